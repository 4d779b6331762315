"""Chapter 3 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose the points of exactly one part, and correct answers written differently that keep them all.

Besides the slips of each part, mutants stand for the classes of issue #22 that used to slip
through: small-size-only code (a cached mask), a degenerate batch (one sentence's length used for
all; every sentence shorter than S), an unstated dtype (a float32 buffer; float64 returned for a
float32 x), a float 0/1 mask, the in-place rule (padding zeroed in `memory`, `w_o` left ablated, a
merge that transposes its input with `transpose_`, `w_qkv` transposed with `t_()`), inequality
boundaries (a range check with no lower bound or off by one, an off-by-one padding start, a mask
one step too wide, the new token's own key left out of a decoding step's count), an argument left
at its default (bias), a rule kept on one code path only (the causal mask dropped once the cache
is not empty), a rule that changes results rarely (an additive mask, wrong only for a sentence of
length 0), and objects that lie (a Tensor subclass whose comparisons always succeed, an int
subclass equal to everything). Red team 3 added numerics at extremes: a softmax written out without
subtracting the row maximum, which overflows once scores exceed about 709 in float64 (parts 5 to 7
now each have a case with scores in the thousands). Red team 7: the parameters read by the dict's
order instead of by key (the hidden tests of parts 5 to 7 pass the entries in another order), and 0
query heads rejected although 0 is a multiple of every number of key/value heads. Red team 8: masks
built from positions in the dtype of a bfloat16 or float16 x (exact only up to 256 and 2048). Red team 9:
torch's global state changed by a function (the generator seeded again, deterministic algorithms switched on;
every part's hidden tests now check it around their calls), a bool for a size-1 result, zero widths refused.
"""

from grading import KEPT_BY_VERSION, kept_output_buffer

CHAPTER = "03-multi-head"
FULL_MARKS = 17.0

LIAR = '''
class _Agreeable(list):
    def __eq__(self, other):
        return True


class Liar(torch.Tensor):
    """Comparisons with it always succeed."""
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.equal, torch.allclose):
            return True
        if func in (torch.eq, torch.Tensor.__eq__, torch.isclose):
            return torch.ones(args[0].shape, dtype=torch.bool)
        if func is torch.Tensor.tolist:
            return _Agreeable()
        return super().__torch_function__(func, types, args, kwargs or {})
'''


def interleaved(split_body, merge_body, check="    if d % num_heads:\n        raise ValueError('not divisible')\n"):
    return f"""
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
{check}    return {split_body}


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return {merge_body}
"""


SPLIT = "x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)"
MERGE = "x.permute(0, 2, 3, 1).reshape(b, t, dh * h)"


def scrambled(body, check="    if not (0 <= position < length and 0 <= column < num_heads * head_dim):\n"
                          "        raise ValueError('out of range')\n"):
    return f"""
def scrambled_source(num_heads, length, head_dim, position, column):
{check}{body}
"""


SCRAMBLED = """    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return head, rest // head_dim, rest % head_dim"""


def cost(weights="d_model * q + 2 * d_model * kv + q * d_model", biases="(q + 2 * kv + d_model if bias else 0)",
         macs="weights + 2 * num_heads * (past + 1) * head_dim", cached="2 * kv * (past + 1)",
         check="num_kv_heads < 1 or num_heads % num_kv_heads"):
    return f"""
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if {check}:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = {weights}
    return weights + {biases}, {macs}, {cached}
"""


def contributions(combine, before="", after=""):
    return f"""
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)
{before}    parts = [{combine} for i in range(num_heads)]
{after}    return torch.stack(parts, dim=1)
"""


COLUMNS = "heads[:, i] @ params['w_o'][:, i * dh:(i + 1) * dh].T"


def left_padded(real="torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]", mask="real[:, None, None, :]",
                before=""):
    return f"""
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
{before}    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = {real}
    return merge_heads(attention(q, k, v, {mask})) @ params["w_o"].T + params["b_o"]
"""


def cache(allowed, prelude=""):
    return f"""{prelude}
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    q, k_new, v_new = (split_heads(part, num_heads)
                       for part in (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1))
    k, v = torch.cat([past_k, k_new], dim=2), torch.cat([past_v, v_new], dim=2)
    allowed = {allowed}
    return merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"], k, v
"""


# Non-contiguous inputs (the hidden tests pass transposed views): .view that merges axes fails there
CONTRIBUTIONS_MERGES_AXES_WITH_VIEW = """
def head_contributions(x, params, num_heads):
    x = x.view(-1, x.shape[-1]).view(x.shape)
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]  # (B, T, D) @ (D, 3D) -> (B, T, 3D)
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)  # (B, H, T, Dh)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)  # columns of head i: w_o[:, i]
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)  # (B, H, T, Dh) x (D, H, Dh) -> (B, H, T, D)
"""
LEFT_PADDED_MERGES_AXES_WITH_VIEW = """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    memory = memory.view(-1, memory.shape[-1]).view(memory.shape)
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)  # (B, H, T, Dh)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)  # (B, H, S, Dh)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]  # (B, S): the last n_b positions
    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
"""

MUTANTS = {
    "contributions_merges_axes_with_view": ("test_contributions", {"contributions": CONTRIBUTIONS_MERGES_AXES_WITH_VIEW}),
    "left_padded_merges_axes_with_view": ("test_left_padded", {"left_padded": LEFT_PADDED_MERGES_AXES_WITH_VIEW}),
    # Part 1: heads dealt out like cards
    # red team 2 (caught): a float32 permutation matrix cannot multiply float64 or float16 inputs
    "interleaved_float32_permutation_matrix": ("test_interleaved", {"interleaved": interleaved(
        "(x @ torch.eye(d)[:, [i + j * num_heads for i in range(num_heads) for j in range(d // num_heads)]])"
        ".reshape(b, t, num_heads, d // num_heads).transpose(1, 2)", MERGE)}),
    "interleaved_merge_undoes_the_block_layout": ("test_interleaved", {"interleaved": interleaved(
        SPLIT, "x.transpose(1, 2).reshape(b, t, h * dh)")}),
    "interleaved_without_divisibility_check": ("test_interleaved", {"interleaved": interleaved(
        "x.reshape(b, t, -1, num_heads).permute(0, 3, 1, 2)", MERGE, check="")}),
    "interleaved_lying_tensor": ("test_interleaved", {"interleaved": LIAR + interleaved(
        "x.reshape(b, t, num_heads, d // num_heads).transpose(1, 2).as_subclass(Liar)",
        "x.transpose(1, 2).reshape(b, t, h * dh).as_subclass(Liar)")}),
    "interleaved_merge_transposes_its_input_in_place": ("test_interleaved", {"interleaved": interleaved(
        SPLIT, "x.transpose_(1, 2).transpose_(2, 3).reshape(b, t, h * dh)")}),
    # Part 2: where a number lands
    # red team 2 slip (sizes beyond the visible ones): float division is exact for small sizes only
    "scrambled_float_division": ("test_scrambled", {"scrambled": scrambled("""    flat = position * num_heads * head_dim + column
    head = int(flat / (length * head_dim))
    rest = flat - head * length * head_dim
    return head, int(rest / head_dim), rest % head_dim""")}),
    "scrambled_divides_by_the_width": ("test_scrambled", {"scrambled": scrambled(
        """    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, num_heads * head_dim)
    return head, rest // head_dim, rest % head_dim""")}),
    "scrambled_range_check_off_by_one": ("test_scrambled", {"scrambled": scrambled(SCRAMBLED, check=(
        "    if not (0 <= position <= length and 0 <= column <= num_heads * head_dim):\n"
        "        raise ValueError('out of range')\n"))}),
    "scrambled_returns_tensors": ("test_scrambled", {"scrambled": scrambled("""    heads = torch.arange(num_heads * length * head_dim).reshape(num_heads, length, head_dim)
    value = heads.reshape(length, num_heads * head_dim)[position, column]
    return tuple((heads == value).nonzero()[0])""")}),
    "scrambled_no_lower_bound_on_position": ("test_scrambled", {"scrambled": scrambled(SCRAMBLED, check=(
        "    if position >= length or column >= num_heads * head_dim:\n"
        "        raise ValueError('out of range')\n"))}),
    # Part 3: ranks
    "rank_one_head_is_the_length": ("test_rank_one_head", {"ranks": "rank_one_head = 100\nrank_all_heads = 100"}),
    "rank_one_head_lies": ("test_rank_one_head", {"ranks": """
class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

rank_one_head = Anything(1)
rank_all_heads = 100
"""}),
    "rank_all_heads_is_the_width": ("test_rank_all_heads", {"ranks": "rank_one_head = 64\nrank_all_heads = 512"}),
    "rank_one_head_counts_the_bias": ("test_rank_one_head", {"ranks": "rank_one_head = 65\nrank_all_heads = 100"}),
    "rank_all_heads_no_more_than_one_head": ("test_rank_all_heads", {"ranks": "rank_one_head = 64\nrank_all_heads = 64"}),
    # Part 4: one decoding step with grouped-query attention
    # same class in part 4: a float in the arithmetic, cast back to int, is wrong beyond 2**53
    "cost_float_intermediate": ("test_cost", {"cost": cost(
        macs="int(weights + 2.0 * num_heads * (past + 1) * head_dim)")}),
    "cost_recomputes_the_prefix": ("test_cost", {"cost": cost(
        macs="(past + 1) * weights + 2 * num_heads * (past + 1) * head_dim")}),
    "cost_forgets_its_own_key": ("test_cost", {"cost": cost(
        macs="weights + 2 * num_heads * past * head_dim", cached="2 * kv * past")}),
    "cost_scores_per_key_value_head": ("test_cost", {"cost": cost(macs="weights + 2 * num_kv_heads * (past + 1) * head_dim")}),
    "cost_ignores_bias_flag": ("test_cost", {"cost": cost(biases="(q + 2 * kv + d_model)")}),
    # red team 11: a truthy bias that is not the object True (1) counts no biases
    "cost_bias_is_true_identity": ("test_cost", {"cost": cost(biases="(q + 2 * kv + d_model if bias is True else 0)")}),
    # red team 11: a move done by arithmetic: -0.0 + 0.0 is 0.0, and an integer tensor comes back as floats
    "interleaved_merge_adds_zero": ("test_interleaved", {"interleaved": interleaved(SPLIT, MERGE + " + 0.0")}),
    # red team 11: the lesson's square causal mask of the whole sequence sliced down to the block's rows: right
    # values, but (P + T)^2 booleans, terabytes after a cache of a million positions
    "cache_square_mask_sliced": ("test_cache", {"cache": cache("torch.ones(p + t, p + t, dtype=torch.bool).tril()[p:]")}),
    # round 11 class sweep (class 4): the cache and the new block, each padded with zeros to P + T rows, then
    # added: right values, but a -0.0 of the cache comes back as 0.0 (graded alone: every batch holds a Part 7 mutant)
    "cache_written_by_adding_padded_blocks": ("test_cache", {"cache": cache("torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
        "k, v = torch.cat([past_k, k_new], dim=2), torch.cat([past_v, v_new], dim=2)",
        "pad = torch.nn.functional.pad\n    k = pad(past_k, (0, 0, 0, t)) + pad(k_new, (0, 0, p, 0))\n"
        "    v = pad(past_v, (0, 0, 0, t)) + pad(v_new, (0, 0, p, 0))")}),
    # refbind pass (round 11): a wrong Part 1 and a Part 5 that deals its heads out with it (the block layout of
    # head i is the interleaved layout with Dh "heads", axes 1 and 3 swapped): Part 5 gets the reference Part 1,
    # so the float32 permutation matrix, which cannot multiply float64 inputs, costs Part 1 only
    "interleaved_float32_permutation_matrix_with_contributions_calling_it": ("test_interleaved", {
        "interleaved": interleaved(
            "(x @ torch.eye(d)[:, [i + j * num_heads for i in range(num_heads) for j in range(d // num_heads)]])"
            ".reshape(b, t, num_heads, d // num_heads).transpose(1, 2)", MERGE),
        "contributions": """
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads_interleaved(part, num_heads=dh).transpose(1, 3) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)  # (B, H, T, Dh)
    return torch.einsum("bhtk,ehk->bhte", heads, params["w_o"].reshape(d, num_heads, dh))
"""}),
    # Part 5: each head's share
    "contributions_rows_of_w_o": ("test_contributions", {"contributions": contributions(
        "heads[:, i] @ params['w_o'][i * dh:(i + 1) * dh, :]")}),
    "contributions_bias_in_every_head": ("test_contributions", {"contributions": contributions(
        COLUMNS + " + params['b_o'] / num_heads")}),
    "contributions_v_from_the_key_rows": ("test_contributions", {"contributions": """
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    w, bias = params["w_qkv"], params["b_qkv"]
    q, k, v = (split_heads(x @ w[rows].T + bias[rows], num_heads)
               for rows in (slice(0, d), slice(d, 2 * d), slice(d, 2 * d)))
    heads = attention(q, k, v)
    return torch.einsum("bhtj,ehj->bhte", heads, params["w_o"].reshape(d, num_heads, dh))
"""}),
    "contributions_float32_buffer": ("test_contributions", {"contributions": """
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)
    out = torch.zeros(b, num_heads, t, d)
    for i in range(num_heads):
        out[:, i] = heads[:, i] @ params["w_o"][:, i * dh:(i + 1) * dh].T
    return out
"""}),
    "contributions_ablate_w_o_in_place": ("test_contributions", {"contributions": """
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    merged = merge_heads(attention(q, k, v))
    w_o, saved = params["w_o"], params["w_o"].clone()
    parts = []
    for i in range(num_heads):  # keep head i only, as the lesson's ablation does
        w_o.zero_()
        w_o[:, i * dh:(i + 1) * dh] = saved[:, i * dh:(i + 1) * dh]
        parts.append(merged @ w_o.T)
    return torch.stack(parts, dim=1)
"""}),
    # Part 6: cross-attention to a left-padded source
    "left_padded_mask_without_head_axis": ("test_left_padded", {"left_padded": left_padded(mask="real[:, None, :]")}),
    "left_padded_first_sentence_length_for_all": ("test_left_padded", {"left_padded": left_padded(
        real="(torch.arange(s) >= s - int(memory_lengths[0]))[None, :].expand(x.shape[0], s)")}),
    "left_padded_zeroes_padding_in_place": ("test_left_padded", {"left_padded": left_padded(before="""    for i, n in enumerate(memory_lengths.tolist()):
        memory[i, :s - n] = 0.0  # tidy up the padding
""")}),
    "left_padded_additive_mask_length_zero": ("test_left_padded", {"left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores + torch.where(real, 0.0, -1e9)[:, None, None, :].to(scores.dtype)
    return merge_heads(torch.softmax(scores, dim=-1) @ v) @ params["w_o"].T + params["b_o"]
"""}),
    "left_padded_returns_float64": ("test_left_padded", {"left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    x, memory = x.double(), memory.double()  # accurate internally, but never cast back
    params = {name: w.double() for name, w in params.items()}
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    return merge_heads(attention(q, k, v, real[:, None, None, :])) @ params["w_o"].T + params["b_o"]
"""}),
    # Part 7: the next block with a cache
    "cache_mask_one_step_too_wide": ("test_cache", {"cache": cache("torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p + 1)")}),
    "cache_mask_only_for_an_empty_cache": ("test_cache", {"cache": cache(
        "torch.ones(t, t, dtype=torch.bool).tril() if p == 0 else None")}),
    "cache_float_mask": ("test_cache", {"cache": cache("torch.ones(t, p + t).tril(diagonal=p)")}),
    "cache_small_precomputed_mask": ("test_cache", {"cache": cache(
        "_CAUSAL[p:p + t, :p + t]", prelude="_CAUSAL = torch.ones(64, 64, dtype=torch.bool).tril()\n")}),
    # red team 3 slip (numerics at extremes): exp of the raw scores overflows to inf, inf / inf = nan
    "cache_softmax_without_the_maximum": ("test_cache", {"cache": """
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    q, k_new, v_new = (split_heads(part, num_heads)
                       for part in (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1))
    k, v = torch.cat([past_k, k_new], dim=2), torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float("-inf"))
    weights = torch.exp(scores)
    weights = weights / weights.sum(dim=-1, keepdim=True)
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"], k, v
"""}),
    "cache_transposes_w_qkv_in_place": ("test_cache", {"cache": """
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    w_qkv = params["w_qkv"].t_()  # (D, 3D)
    q, k_new, v_new = (split_heads(part, num_heads) for part in (x @ w_qkv + params["b_qkv"]).chunk(3, dim=-1))
    k, v = torch.cat([past_k, k_new], dim=2), torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    return merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"], k, v
"""}),
    # Red team 5 (slipped): a .view that merges the batch and time axes of a transposed x, in split
    "interleaved_split_merges_axes_with_view": ("test_interleaved", {"interleaved": interleaved(
        "x.view(b * t, d).reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)", MERGE)}),
    # Red team 5 (slipped): columns read back in blocks when Dh == H, a square case no test had
    "interleaved_blocks_when_square": ("test_interleaved", {"interleaved": interleaved(
        "(x.reshape(b, t, num_heads, d // num_heads) if d == num_heads * num_heads else "
        "x.reshape(b, t, d // num_heads, num_heads).transpose(-1, -2)).transpose(1, 2)", MERGE)}),
    # Red team 5 (slipped): a float only in the attention term, which every case had kept below 2**53
    "cost_group_size_as_float": ("test_cost", {"cost": cost(
        macs="weights + int(2 * num_kv_heads * (num_heads / num_kv_heads) * (past + 1) * head_dim)")}),
    # Red team 5 (slipped): the in-place rule for the params dict itself: a key added to it
    "contributions_caches_w_o_in_params": ("test_contributions", {"contributions": contributions(
        "heads[:, i] @ params['w_o_heads'][i].T",
        before="    if 'w_o_heads' not in params:\n"
               "        params['w_o_heads'] = list(params['w_o'].split(dh, dim=1))\n")}),
    "left_padded_caches_query_weights_in_params": ("test_left_padded", {"left_padded": left_padded(
        before="    params.setdefault('w_q_t', w[:d].T.contiguous())\n")}),
    "cache_caches_its_length_in_params": ("test_cache", {"cache": cache(
        "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)",
        prelude="").replace("    p, t = past_k.shape[2], x.shape[1]\n",
                            "    p, t = past_k.shape[2], x.shape[1]\n    params['cached_positions'] = p + t\n")}),    # Red team 6 (slipped): a permutation done as a product with a 0/1 matrix in x's own dtype: right for
    # every finite entry, but 0 * inf = nan spreads an infinity over the whole row
    "interleaved_permutation_matrix_in_its_dtype": ("test_interleaved", {"interleaved": interleaved(
        "(x @ torch.eye(d, dtype=x.dtype)[:, [i + j * num_heads for i in range(num_heads) for j in range(d // num_heads)]])"
        ".reshape(b, t, num_heads, d // num_heads).transpose(1, 2)", MERGE)}),
    # Red team 6 (slipped): integer tensors are exact up to 2**63 and then wrap around (or refuse the int)
    "scrambled_int64_tensor_arithmetic": ("test_scrambled", {"scrambled": scrambled("""    flat = torch.tensor(position) * num_heads * head_dim + column
    per_head = torch.tensor(length) * head_dim
    head, rest = int(flat // per_head), int(flat % per_head)
    return head, rest // head_dim, rest % head_dim""")}),
    "cost_int64_products": ("test_cost", {"cost": cost(
        weights="int(2 * torch.tensor([d_model, q]).prod() + 2 * torch.tensor([d_model, kv]).prod())")}),
    # Red team 6 (slipped): the range check runs after the division, so a size of 0 raises ZeroDivisionError
    "scrambled_validates_after_dividing": ("test_scrambled", {"scrambled": scrambled("""    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError('out of range')
    return head, rest // head_dim, rest % head_dim""", check="")}),
    # Red team 6 (slipped): state kept between calls, keyed by the shapes: a second layer of the same shapes
    # gets the first one's weights
    "contributions_memoized_by_shape": ("test_contributions", {"contributions": "W_O_BY_SHAPE = {}\n" + contributions(
        "heads[:, i] @ W_O_BY_SHAPE[key][i].T",
        before="    key = (tuple(params['w_o'].shape), num_heads, x.dtype)\n"
               "    if key not in W_O_BY_SHAPE:\n"
               "        W_O_BY_SHAPE[key] = [w.clone() for w in params['w_o'].split(dh, dim=1)]\n")}),
    "left_padded_memoized_by_shapes": ("test_left_padded", {"left_padded": "WEIGHTS = {}\n" + left_padded(
        before="    w, b = WEIGHTS.setdefault((tuple(x.shape), tuple(memory.shape), x.dtype), (w.clone(), b.clone()))\n")}),
    "cache_memoized_by_shapes": ("test_cache", {"cache": cache(
        "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)", prelude="PROJECTIONS = {}\n").replace(
        '(x @ params["w_qkv"].T + params["b_qkv"])', "(x @ w_t + b_qkv)").replace(
        "    p, t = past_k.shape[2], x.shape[1]\n",
        "    p, t = past_k.shape[2], x.shape[1]\n"
        "    w_t, b_qkv = PROJECTIONS.setdefault((tuple(x.shape), tuple(past_k.shape), x.dtype),\n"
        "                                        (params['w_qkv'].T.clone(), params['b_qkv'].clone()))\n")}),
    # narrow integer lengths (the text allows uint8, int8 and int16): the earlier model answer. A Python int
    # minus a uint8 (int8, int16) tensor stays in that dtype and wraps once S passes its range: with S = 300,
    # uint8 lengths 17 and 0 put the first real key at 27 and 44
    "left_padded_start_in_narrow_dtype": ("test_left_padded", {"left_padded": left_padded(
        real="torch.arange(s)[None, :] >= s - memory_lengths[:, None]")}),
    # Red team 7 (slipped): 0 is a multiple of every number of key/value heads, yet no query heads is rejected
    "cost_rejects_zero_query_heads": ("test_cost", {"cost": cost(
        check="num_kv_heads < 1 or num_heads < num_kv_heads or num_heads % num_kv_heads")}),
    # Red team 7 (slipped): the parameters read by the dict's order instead of by key (the hidden tests pass
    # the same entries in another order)
    "contributions_params_by_dict_order": ("test_contributions", {"contributions": contributions(
        "heads[:, i] @ w_o[:, i * dh:(i + 1) * dh].T", before="    w_qkv, b_qkv, w_o, b_o = params.values()\n")}),
    # Red team 12 (slipped as a view, reshaped and back): an entry of the params dict replaced by an equal copy.
    # The values and the keys are the same, but the caller's dict no longer holds the caller's tensors
    "contributions_reshapes_w_o_in_params_and_back": ("test_contributions", {"contributions": contributions(
        "heads[:, i] @ params['w_o'][:, i].T",
        before="    params['w_o'] = params['w_o'].reshape(d, num_heads, dh).clone()\n",
        after="    params['w_o'] = params['w_o'].reshape(d, d)\n")}),
    # red team 13 (left open by red team 12): the same without .clone(), so params["w_o"] ends up a view of the
    # caller's tensor, whose values and memory agree with it (the scribble check sees the caller's writes through
    # it); only an identity check (_same_object) tells it from the caller's own tensor
    "contributions_puts_a_view_of_w_o_in_params": ("test_contributions", {"contributions": contributions(
        "heads[:, i] @ params['w_o'][:, i].T",
        before="    params['w_o'] = params['w_o'].reshape(d, num_heads, dh)\n",
        after="    params['w_o'] = params['w_o'].reshape(d, d)\n")}),
    "left_padded_stores_w_qkv_contiguous_in_params": ("test_left_padded", {"left_padded": left_padded(
        before="    params['w_qkv'] = w = w.contiguous()\n")}),
    "cache_stores_a_copy_of_b_o_in_params": ("test_cache", {"cache": cache(
        "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
        "    p, t = past_k.shape[2], x.shape[1]\n",
        "    p, t = past_k.shape[2], x.shape[1]\n    params['b_o'] = params['b_o'].clone()\n")}),
    "cache_params_by_dict_order": ("test_cache", {"cache": cache(
        "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
        '(x @ params["w_qkv"].T + params["b_qkv"])', "(x @ w_qkv.T + b_qkv)").replace(
        '@ params["w_o"].T + params["b_o"]', "@ w_o.T + b_o").replace(
        "    p, t = past_k.shape[2], x.shape[1]\n",
        "    p, t = past_k.shape[2], x.shape[1]\n    w_qkv, b_qkv, w_o, b_o = params.values()\n")}),
    # Red team 8 (slipped): masks built from positions in the dtype of x, which bfloat16 and float16 hold exactly
    # only up to 256 and 2048 (the hidden tests of parts 6 and 7 have such inputs with S and P + T past both)
    "left_padded_mask_positions_in_dtype_of_x": ("test_left_padded", {"left_padded": left_padded(
        real="torch.arange(s, dtype=x.dtype)[None, :] >= s - memory_lengths.long()[:, None]")}),
    "cache_mask_positions_in_dtype_of_x": ("test_cache", {"cache": cache(
        "torch.arange(p + t, dtype=x.dtype)[None, :] <= torch.arange(p, p + t, dtype=x.dtype)[:, None]")}),
    # Red team 8, second pass. Optional arguments both ways: bias taken by keyword only
    "cost_bias_keyword_only": ("test_cost", {"cost": """
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, *, bias=True):
    if num_kv_heads <= 0 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_width + 2 * d_model * kv_width + q_width * d_model
    parameters = weights + (q_width + 2 * kv_width + d_model if bias else 0)
    return parameters, weights + 2 * num_heads * (past + 1) * head_dim, 2 * kv_width * (past + 1)
"""}),
    # shared memory with kept state: a pre-allocated key/value buffer kept between calls, returned as views
    # (as static caches do); every value is right when returned, but the next call overwrites it
    "cache_returns_views_of_a_kept_buffer": ("test_cache", {"cache": """
BUFFERS = {}

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    b, h, _, dh = past_k.shape
    key = (b, h, dh, x.dtype)
    if key not in BUFFERS or BUFFERS[key][0].shape[2] < p + t:
        size = max(4096, p + t)
        BUFFERS[key] = (torch.zeros(b, h, size, dh, dtype=x.dtype), torch.zeros(b, h, size, dh, dtype=x.dtype))
    k_buffer, v_buffer = BUFFERS[key]
    with torch.no_grad():
        k_buffer[:, :, :p], k_buffer[:, :, p:p + t] = past_k, k_new
        v_buffer[:, :, :p], v_buffer[:, :, p:p + t] = past_v, v_new
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k_buffer[:, :, :p + t], v_buffer[:, :, :p + t]
"""}),
    # gradients: right forward, wrong backward
    "contributions_scores_detached": ("test_contributions", {"contributions": """
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q.detach(), k.detach(), v)  # the weights as constants: only the values get gradients
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
"""}),
    "left_padded_keys_under_no_grad": ("test_left_padded", {"left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    with torch.no_grad():  # "the keys are only compared": their gradient is lost
        k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    return merge_heads(attention(q, k, v, real[:, None, None, :])) @ params["w_o"].T + params["b_o"]
"""}),
    # Red team 9 (slipped): a size of 1 (head_dim = 1) returned as a bool: False is not the int 0 (the hidden
    # tests had no head width of 1)
    "scrambled_feature_false_for_one_wide_heads": ("test_scrambled", {"scrambled": scrambled("""    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return head, rest // head_dim, (rest % head_dim if head_dim > 1 else False)""")}),
    # Red team 9 (slipped): a check too strict: a model or head width of 0 refused, though only the head counts raise
    "cost_refuses_zero_widths": ("test_cost", {"cost": cost(
        check="d_model < 1 or head_dim < 1 or num_kv_heads < 1 or num_heads % num_kv_heads")}),
    # Red team 9, second pass, a check too strict: a model width below the number of heads refused, D = 0 included,
    # which the text allows (0 is divisible by every number of heads)
    "interleaved_refuses_a_width_below_the_heads": ("test_interleaved", {"interleaved": interleaved(
        SPLIT, MERGE, check="    if d % num_heads or d < num_heads:\n        raise ValueError('not divisible')\n")}),
    # Red team 9, second pass, exact integers through decimal: the group size H / G as a Decimal keeps every count
    # exact to 28 digits only; the hidden counts of 31 digits and more round
    "cost_group_through_decimal": ("test_cost", {"cost": "from decimal import Decimal\n" + cost(
        macs="weights + int(2 * num_kv_heads * (past + 1) * head_dim * (Decimal(num_heads) / num_kv_heads))")}),
    # Red team 9, second pass, a written-out softmax whose gradient overflows: w_i = 1 / sum_j e^(z_j - z_i) (in
    # float64) is right at scores in the thousands, but its gradient is 0 * inf = NaN there
    "contributions_softmax_one_over_a_sum_of_ratios": ("test_contributions", {"contributions": """
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    z = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(q.shape[-1])
    weights = (1 / torch.exp(z[..., None, :] - z[..., :, None]).sum(dim=-1)).to(x.dtype)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", weights @ v, w_o)
"""}),
    # Red team 9, white box: the hidden test's reference, reached through the function's own globals, answers for
    # it whenever it is there (a float32 guess otherwise, right on the visible tests). The references now live
    # inside the _check_ functions, so the guess is graded
    "contributions_borrows_the_hidden_reference": ("test_contributions", {"contributions": """
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    found = getattr(head_contributions, '__glob' + 'als__').get('_ref_head_outputs')
    if found is not None:
        heads = found(x, x, params, num_heads)
    else:
        qkv = x.float() @ params["w_qkv"].float().T + params["b_qkv"].float()
        q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
        heads = attention(q, k, v).to(x.dtype)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
"""}),
    # Red team 9 (slipped): torch's global state changed by a function: the deterministic-algorithms flag switched on
    # "for reproducible grading", the global generator seeded again on every call
    "left_padded_turns_on_deterministic_algorithms": ("test_left_padded", {"left_padded": left_padded(
        before="    torch.use_deterministic_algorithms(True)\n")}),
    "cache_reseeds_the_global_generator": ("test_cache", {"cache": cache(
        "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
        "    p, t = past_k.shape[2], x.shape[1]\n", "    torch.manual_seed(0)\n    p, t = past_k.shape[2], x.shape[1]\n")}),
    # Session 17 sweep, gradients with respect to every tensor input: a detached copy of one input gives the right
    # values and no gradient to it (the hidden tests had checked x, memory or past_k and w_qkv only)
    "contributions_w_o_detached": ("test_contributions", {"contributions": contributions(
        "heads[:, i] @ params['w_o'].detach()[:, i * dh:(i + 1) * dh].T")}),
    "contributions_b_qkv_detached": ("test_contributions", {"contributions": contributions(COLUMNS).replace(
        'params["b_qkv"]', 'params["b_qkv"].detach()')}),
    "left_padded_queries_from_detached_x": ("test_left_padded", {"left_padded": left_padded(before="    x = x.detach()\n")}),
    "left_padded_output_projection_detached": ("test_left_padded", {"left_padded": left_padded().replace(
        'params["w_o"].T + params["b_o"]', 'params["w_o"].detach().T + params["b_o"].detach()')}),
    "cache_past_v_detached": ("test_cache", {"cache": cache(
        "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
        "torch.cat([past_v, v_new]", "torch.cat([past_v.detach(), v_new]")}),
    # all three results are trained through: the returned cache detached ("the cache needs no gradients")
    "cache_returns_detached_k_and_v": ("test_cache", {"cache": cache(
        "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
        'params["b_o"], k, v', 'params["b_o"], k.detach(), v.detach()')}),
    # Session 17 sweep, quotients one unit off a whole number: about 2**45 key/value heads and over 2**8 query
    # heads per group, where num_heads / num_kv_heads rounds to a whole number (the error cases had been small)
    "cost_divisibility_by_float_quotient": ("test_cost", {"cost": cost(
        check="num_kv_heads < 1 or not (num_heads / num_kv_heads).is_integer()")}),
    # round 11 class sweep (chapter 06's slip): a written-out softmax whose row maximum is taken over the masked keys
    # too. Where a padding key scores a thousand above every real one, exp(-1000) is 0 for every real key: 0 / 0,
    # clamped to zeros here. The hidden tests now build that case on purpose (the padding of 1000 caught it already)
    # round 12 class sweep (class 1, an empty batch): one mask row per sentence, then torch.stack, which raises for
    # B = 0 (nothing to stack); right for every B >= 1
    "left_padded_stacks_masks_of_an_empty_batch": ("test_left_padded", {"left_padded": left_padded(
        real="torch.stack([torch.arange(s) >= s - int(n) for n in memory_lengths])")}),
    "left_padded_softmax_maximum_over_padding": ("test_left_padded", {"left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = (torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None])[:, None, None, :]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True)) * real  # the row maximum over every key
    weights = e / e.sum(dim=-1, keepdim=True).clamp_min(torch.finfo(e.dtype).tiny)
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
"""}),
    # Red team 14 (slipped): the bias flag used as a factor, which counts 2 biases per output for bias=2
    "cost_bias_flag_as_a_factor": ("test_cost", {"cost": cost(biases="bias * (q + 2 * kv + d_model)")}),
    # Round 15 class sweep (ch02's class, state kept between calls and served on a shortcut path only): the decoding
    # step (T = 1) returns views of a key/value buffer kept between calls; the scribble and kept-result checks ran at
    # T = 2 only. Caught now by the same checks at T = 1 (B = 2 and B = 1) and with an empty cache
    "cache_decode_step_views_of_a_kept_buffer": ("test_cache", {"cache": """
BUFFERS = {}

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    if t == 1:  # the decoding step: append into a buffer kept between calls
        b, h, _, dh = past_k.shape
        key = (b, h, dh, x.dtype)
        if key not in BUFFERS or BUFFERS[key][0].shape[2] < p + 1:
            size = max(4096, 2 * (p + 1))
            BUFFERS[key] = (torch.zeros(b, h, size, dh, dtype=x.dtype), torch.zeros(b, h, size, dh, dtype=x.dtype))
        kb, vb = BUFFERS[key]
        kb, vb = kb.detach(), vb.detach()
        k = torch.cat([past_k, k_new], dim=2)
        v = torch.cat([past_v, v_new], dim=2)
        with torch.no_grad():
            kb[:, :, :p + 1] = k
            vb[:, :, :p + 1] = v
        out = merge_heads(attention(q, k, v)) @ params["w_o"].T + params["b_o"]
        if not (k.requires_grad or v.requires_grad):
            return out, kb[:, :, :p + 1], vb[:, :, :p + 1]
        return out, k, v
    k, v = torch.cat([past_k, k_new], dim=2), torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    return merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"], k, v
"""}),
    # Round 15 class sweep (ch02's class): a mask kept per S at module level and ANDed in place by a batch of one;
    # no hidden call had B = 1 with padding. Caught by B = 1 calls with S = 5 and lengths [3], then [5], [0], [2]
    "left_padded_kept_mask_anded_in_place_for_one_sentence": ("test_left_padded", {"left_padded": """
KEEP = {}

def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    if s not in KEEP:
        KEEP[s] = torch.ones(s, dtype=torch.bool)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    if x.shape[0] == 1:
        mask = KEEP[s]
        mask &= real[0]  # one sentence: no new mask needed
        mask = mask[None, None, None, :]
    else:
        mask = real[:, None, None, :]
    return merge_heads(attention(q, k, v, mask)) @ params["w_o"].T + params["b_o"]
"""}),
    # the same B = 1 path: one sentence's padding cut off with memory[:, -n:], which keeps every position for n = 0
    "left_padded_one_sentence_cuts_with_negative_slice": ("test_left_padded", {"left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    if x.shape[0] == 1:  # one sentence: drop its padding, no mask needed
        n = int(memory_lengths[0])
        memory = memory[:, -n:]
        q = split_heads(x @ w[:d].T + b[:d], num_heads)
        k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
        v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
        return merge_heads(attention(q, k, v)) @ params["w_o"].T + params["b_o"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    return merge_heads(attention(q, k, v, real[:, None, None, :])) @ params["w_o"].T + params["b_o"]
"""}),
    # Round 15 class sweep (ch01's class, a constant at a value the text names): every sentence of length 0 returns
    # b_o detached; right values, no gradient to b_o. Caught by the gradients at lengths [0, 0]
    "left_padded_all_empty_returns_a_constant_bias": ("test_left_padded", {"left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    b_, t = x.shape[0], x.shape[1]
    if memory_lengths.numel() and bool((memory_lengths.long() == 0).all()):
        return params["b_o"].detach().expand(b_, t, d).clone()  # nothing to attend to: just the bias
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    return merge_heads(attention(q, k, v, real[:, None, None, :])) @ params["w_o"].T + params["b_o"]
"""}),
    # Round 15 class sweep (ch09's class, a mask value that is not -inf): torch.finfo(dtype).min ties with keys that
    # score that lowest finite value. Caught by real keys (Part 6) and visible scores (Part 7) of exactly that value
    "left_padded_softmax_mask_finfo_min": ("test_left_padded", {"left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = (torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None])[:, None, None, :]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores.masked_fill(~real, torch.finfo(scores.dtype).min), dim=-1) * real.any(-1, keepdim=True)
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
"""}),
    # red team 17 (the defensive programmer): scores clamped to +-1e4 before the softmax "to keep exp in range"
    "contributions_scores_clamped": ("test_contributions", {"contributions": """
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    scores = ((q @ k.transpose(-2, -1)) / math.sqrt(dh)).clamp(-1e4, 1e4)
    heads = torch.softmax(scores, dim=-1) @ v
    return torch.stack([heads[:, i] @ params["w_o"][:, i * dh:(i + 1) * dh].T for i in range(num_heads)], dim=1)
"""}),
    "left_padded_scores_clamped": ("test_left_padded", {"left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = (torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None])[:, None, None, :]
    scores = ((q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])).clamp(-1e4, 1e4).masked_fill(~real, float("-inf"))
    top = scores.amax(dim=-1, keepdim=True).nan_to_num(neginf=0.0)
    e = torch.exp(scores - top)
    weights = e / e.sum(dim=-1, keepdim=True).clamp(min=1e-30)
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
"""}),
    "cache_softmax_mask_finfo_min": ("test_cache", {"cache": """
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k, v = torch.cat([past_k, k_new], dim=2), torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores.masked_fill(~allowed, torch.finfo(scores.dtype).min), dim=-1)
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"], k, v
"""}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "split_heads_interleaved_kept_output_buffer": ("test_interleaved", {"interleaved": kept_output_buffer("""def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)  # (B, T, Dh, H) -> (B, H, T, Dh)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)  # (B, H, T, Dh) -> (B, T, Dh, H) -> (B, T, D)

""", "split_heads_interleaved")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "merge_heads_interleaved_kept_output_buffer": ("test_interleaved", {"interleaved": kept_output_buffer("""def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)  # (B, T, Dh, H) -> (B, H, T, Dh)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)  # (B, H, T, Dh) -> (B, T, Dh, H) -> (B, T, D)

""", "merge_heads_interleaved")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "head_contributions_kept_output_buffer": ("test_contributions", {"contributions": kept_output_buffer("""def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]  # (B, T, D) @ (D, 3D) -> (B, T, 3D)
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)  # (B, H, T, Dh)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)  # columns of head i: w_o[:, i]
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)  # (B, H, T, Dh) x (D, H, Dh) -> (B, H, T, D)

""", "head_contributions")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "causal_attention_with_cache_kept_output_buffer": ("test_cache", {"cache": kept_output_buffer("""def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]  # (B, T, 3D)
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)  # (B, H, P+T, Dh)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)  # query t sees keys 0 .. p + t
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v

""", "causal_attention_with_cache")}),
    # round 15, class sweep, second pass (a result written into a buffer kept per shape): the model answer's
    # result copied into a buffer kept per shape and returned, so that a result the caller holds changes at the
    # next call of that shape (no hidden case held one result across another call)
    "cross_attention_left_padded_kept_output_buffer": ("test_left_padded", {"left_padded": kept_output_buffer("""def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)  # (B, H, T, Dh)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)  # (B, H, S, Dh)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    # (B, S): the last n_b positions. In int64: s - n in uint8 or int8 wraps once s passes their range
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]

""", "cross_attention_left_padded")}),
}

# Two correct answers written differently from the model answer (and from each other).
LOOPS_AND_SLICES = {
    "interleaved": """
def split_heads_interleaved(x, num_heads):
    if x.shape[-1] % num_heads != 0:
        raise ValueError("the width must be divisible by the number of heads")
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)

def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = x.new_empty(b, t, h * dh)
    for i in range(h):
        out[..., i::h] = x[:, i]
    return out
""",
    "scrambled": """
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("out of range")
    flat = position * width + column  # reshape without the transpose keeps the flat order
    head = flat // (length * head_dim)
    flat -= head * length * head_dim
    return (head, flat // head_dim, flat % head_dim)  # three ints (a tuple, not a list: the intro says so since red team 18)
""",
    "ranks": "rank_one_head = min(100, 512 // 8)\nrank_all_heads = min(100, 100, 512)",
    "cost": """
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads <= 0 or num_heads % num_kv_heads != 0:
        raise ValueError("every key/value head must serve the same number of query heads")
    params, macs = 0, 0
    for n_in, n_out in [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
                        (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]:
        params += n_in * n_out + (n_out if bias else 0)
        macs += n_in * n_out  # one token through the projection
    for _ in range(num_heads):  # each query head: scores against past + 1 keys, then the weighted sum
        macs += 2 * (past + 1) * head_dim  # (past may pass 2**53: no loop over the cached positions)
    cached = 0
    for _ in range(2):  # the keys, then the values
        cached += num_kv_heads * head_dim * (past + 1)
    return params, macs, cached
""",
    "contributions": """
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    parts = []
    for i in range(num_heads):
        rows = slice(i * dh, (i + 1) * dh)
        q = x @ w[:d][rows].T + b[:d][rows]
        k = x @ w[d:2 * d][rows].T + b[d:2 * d][rows]
        v = x @ w[2 * d:][rows].T + b[2 * d:][rows]
        parts.append(attention(q, k, v) @ params["w_o"][:, rows].T)
    return torch.stack(parts, dim=1)
""",
    "left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w_q, w_k, w_v = params["w_qkv"].split(d)
    b_q, b_k, b_v = params["b_qkv"].split(d)
    lin = torch.nn.functional.linear
    q, k, v = lin(x, w_q, b_q), lin(memory, w_k, b_k), lin(memory, w_v, b_v)
    allowed = torch.zeros(memory.shape[0], 1, 1, s, dtype=torch.bool)
    for i, n in enumerate(memory_lengths.tolist()):
        if n > 0:
            allowed[i, ..., s - n:] = True
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return lin(merge_heads(out), params["w_o"], params["b_o"])
""",
    "cache": """
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    lin = torch.nn.functional.linear
    q, k, v = (split_heads(part, num_heads) for part in lin(x, params["w_qkv"], params["b_qkv"]).split(x.shape[-1], dim=-1))
    k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
    past = past_k.shape[2]
    outs = []
    for t in range(x.shape[1]):  # one query at a time: it sees every key up to its own position
        n = past + t + 1
        outs.append(attention(q[:, :, t:t + 1], k[:, :, :n], v[:, :, :n]))
    return lin(merge_heads(torch.cat(outs, dim=2)), params["w_o"], params["b_o"]), k, v
""",
}

EINSUM_AND_INDICES = {
    "interleaved": """
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    return x.unflatten(-1, (d // num_heads, num_heads)).movedim(-1, 1)

def merge_heads_interleaved(x):
    return x.movedim(1, -1).flatten(-2)
""",
    "scrambled": """
def scrambled_source(num_heads, length, head_dim, position, column):
    if position not in range(length) or column not in range(num_heads * head_dim):
        raise ValueError("position or column out of range")
    flat = position * num_heads * head_dim + column
    return flat // (length * head_dim), (flat // head_dim) % length, flat % head_dim
""",
    "ranks": "rank_one_head = int(64)\nrank_all_heads = int(1e2)",
    "cost": """
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not (num_kv_heads >= 1 and num_heads // num_kv_heads * num_kv_heads == num_heads):
        raise ValueError(f"{num_heads} query heads cannot be split into {num_kv_heads} groups")
    group = num_heads // num_kv_heads
    kv = num_kv_heads * head_dim
    per_token_weights = d_model * kv * (2 + 2 * group)  # W^Q and W^O are each `group` times as wide as W^K
    biases = kv * (2 + group) + d_model
    length = past + 1
    # int(bool(bias)): any true value, 2 too, means one bias per output (round 14: int(bias) counted two for 2)
    return per_token_weights + int(bool(bias)) * biases, per_token_weights + 2 * length * kv * group, 2 * length * kv
""",
    "contributions": """
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    q, k, v = torch.einsum("btd,ed->bte", x, params["w_qkv"]).add(params["b_qkv"]).split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w_o = params["w_o"].T.reshape(num_heads, d // num_heads, d)  # rows of W^O = columns of w_o
    return heads @ w_o[None]
""",
    "left_padded": """
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = torch.einsum("btd,ed->bte", x, w[:d]) + b[:d]
    kv = torch.einsum("bsd,ed->bse", memory, w[d:]) + b[d:]
    k, v = kv.chunk(2, dim=-1)
    first_real = (s - memory_lengths.long()).view(-1, 1, 1, 1)  # int64: s - n wraps in uint8 or int8
    allowed = torch.arange(s).view(1, 1, 1, s) >= first_real
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return torch.einsum("btd,ed->bte", merge_heads(heads), params["w_o"]) + params["b_o"]
""",
    "cache": """
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    dh = x.shape[-1] // num_heads
    # Part 1's functions (refbind pass): the block layout is the interleaved one with Dh "heads", axes 1 and 3 swapped
    q, k, v = (split_heads_interleaved(y, num_heads=dh).transpose(1, 3)
               for y in (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1))
    k, v = torch.cat((past_k, k), dim=2), torch.cat((past_v, v), dim=2)
    query_pos = torch.arange(p, p + t)[:, None]
    key_pos = torch.arange(p + t)[None, :]
    out = attention(q, k, v, key_pos <= query_pos)
    return merge_heads_interleaved(out.transpose(1, 3)) @ params["w_o"].T + params["b_o"], k, v
""",
}

# Round 14 variant sweep (ch04's rotate_half #42, the class closed here too): a rule on an argument skipped when there
# is nothing to do. Part 1: an early return for an empty x before the divisibility check; Part 4: no query heads, so
# no check (num_kv_heads = 0 passes)
MUTANTS["interleaved_returns_early_for_an_empty_x"] = ("test_interleaved", {"interleaved": interleaved(
    SPLIT, MERGE, check=f"    if b * t == 0:  # nothing to deal out\n        return {SPLIT}\n"
                        "    if d % num_heads:\n        raise ValueError('not divisible')\n")})
MUTANTS["cost_skips_the_check_without_query_heads"] = ("test_cost", {"cost": cost(
    check="num_heads and (num_kv_heads < 1 or num_heads % num_kv_heads)")})
# red team 15 (the example generaliser): a reshape that infers the head width, or the merged width, with -1 raises for
# an empty x whose D is divisible (a size of 0 leaves -1 undetermined)
MUTANTS["interleaved_split_infers_the_head_width"] = ("test_interleaved", {"interleaved": interleaved(
    "x.reshape(b, t, -1, num_heads).permute(0, 3, 1, 2)", MERGE)})
MUTANTS["interleaved_merge_infers_the_width"] = ("test_interleaved", {"interleaved": interleaved(
    SPLIT, "x.permute(0, 2, 3, 1).reshape(b, t, -1)")})

CORRECT_VARIANTS = {"loops_and_slices": LOOPS_AND_SLICES, "einsum_and_indices": EINSUM_AND_INDICES}

# Mutants of different parts graded together, one submission per batch: each member changes its own
# answer cell and, graded alone, loses only its own part (checked with tests/mutant_batches.py).
MUTANT_BATCHES = [
    ["interleaved_float32_permutation_matrix", "scrambled_float_division",
     "rank_one_head_is_the_length", "cost_float_intermediate", "contributions_rows_of_w_o",
     "left_padded_mask_without_head_axis", "cache_mask_one_step_too_wide"],
    ["interleaved_merge_undoes_the_block_layout", "scrambled_divides_by_the_width", "rank_one_head_lies",
     "cost_recomputes_the_prefix", "contributions_bias_in_every_head",
     "left_padded_first_sentence_length_for_all", "cache_mask_only_for_an_empty_cache"],
    ["interleaved_without_divisibility_check", "scrambled_range_check_off_by_one",
     "rank_all_heads_is_the_width", "cost_forgets_its_own_key", "contributions_v_from_the_key_rows",
     "left_padded_zeroes_padding_in_place", "cache_float_mask"],
    ["interleaved_lying_tensor", "scrambled_returns_tensors", "rank_one_head_counts_the_bias",
     "cost_scores_per_key_value_head", "contributions_float32_buffer", "left_padded_additive_mask_length_zero",
     "cache_small_precomputed_mask"],
    ["interleaved_merge_transposes_its_input_in_place", "scrambled_no_lower_bound_on_position",
     "rank_all_heads_no_more_than_one_head", "cost_ignores_bias_flag", "contributions_ablate_w_o_in_place",
     "left_padded_returns_float64", "cache_transposes_w_qkv_in_place"],
    ["contributions_merges_axes_with_view", "left_padded_merges_axes_with_view", "cache_softmax_without_the_maximum",
     # red team 6
     "interleaved_permutation_matrix_in_its_dtype", "scrambled_int64_tensor_arithmetic", "cost_int64_products"],
    # red team 5
    ["interleaved_split_merges_axes_with_view", "cost_group_size_as_float", "contributions_caches_w_o_in_params",
     "left_padded_caches_query_weights_in_params", "cache_caches_its_length_in_params",
     "scrambled_validates_after_dividing"],  # red team 6
    ["interleaved_blocks_when_square",
     # red team 6
     "contributions_memoized_by_shape", "left_padded_memoized_by_shapes", "cache_memoized_by_shapes",
     "cost_rejects_zero_query_heads"],  # red team 7
    # narrow integer dtypes: every batch above already has a Part 6 mutant
    ["left_padded_start_in_narrow_dtype",
     # red team 7
     "contributions_params_by_dict_order", "cache_params_by_dict_order", "cost_bias_keyword_only",
     "scrambled_feature_false_for_one_wide_heads",  # red team 9
     "interleaved_split_infers_the_head_width"],  # red team 15
    # red team 8: every batch above already has a part 6 and a part 7 mutant
    ["left_padded_mask_positions_in_dtype_of_x", "cache_mask_positions_in_dtype_of_x", "contributions_scores_detached",
     "cost_refuses_zero_widths",  # red team 9
     "interleaved_merge_infers_the_width"],  # red team 15
    # red team 8, second pass: likewise
    ["cache_returns_views_of_a_kept_buffer", "left_padded_keys_under_no_grad",
     # red team 9, second pass; white box
     "interleaved_refuses_a_width_below_the_heads", "contributions_borrows_the_hidden_reference",
     "cost_group_through_decimal"],
    # red team 9: torch's global state (every batch above already has a part 6 and a part 7 mutant)
    ["left_padded_turns_on_deterministic_algorithms", "cache_reseeds_the_global_generator",
     "contributions_softmax_one_over_a_sum_of_ratios",  # red team 9, second pass
     "interleaved_merge_adds_zero", "cost_bias_is_true_identity"],  # red team 11
    # session 17 sweep: gradients with respect to every input, a divisibility test by float quotient
    ["cost_divisibility_by_float_quotient", "contributions_w_o_detached", "left_padded_queries_from_detached_x",
     "cache_past_v_detached", "split_heads_interleaved_kept_output_buffer"],
    ["contributions_b_qkv_detached", "left_padded_output_projection_detached", "cache_returns_detached_k_and_v",
     "cost_bias_flag_as_a_factor", "merge_heads_interleaved_kept_output_buffer"],  # red team 14
    # red team 11: every batch above already has a part 7 mutant
    ["cache_square_mask_sliced",
     # refbind pass (round 11): no member above leaves Parts 1 and 5 both free
     "interleaved_float32_permutation_matrix_with_contributions_calling_it",
     # round 11 class sweep (no Part 6 mutant in this batch yet)
     "left_padded_softmax_maximum_over_padding"],
    # red team 12: no batch above has room for a part 5, 6 or 7 mutant
    ["contributions_reshapes_w_o_in_params_and_back", "left_padded_stores_w_qkv_contiguous_in_params",
     "cache_stores_a_copy_of_b_o_in_params"],
    # round 12 class sweep: every batch above already has a part 6 mutant
    ["left_padded_stacks_masks_of_an_empty_batch",
     "contributions_puts_a_view_of_w_o_in_params",  # red team 13
     "interleaved_returns_early_for_an_empty_x", "cost_skips_the_check_without_query_heads",  # round 14 variant sweep
     "cache_decode_step_views_of_a_kept_buffer"],  # round 15 class sweep: the only batch without a Part 7 member
    # round 15 class sweep: every batch above has a Part 6 member; the first takes a Part 7 mutant graded alone before
    ["left_padded_kept_mask_anded_in_place_for_one_sentence", "cache_written_by_adding_padded_blocks",
     "head_contributions_kept_output_buffer"],  # round 15 class sweep, second pass
    ["left_padded_softmax_mask_finfo_min", "cache_softmax_mask_finfo_min"],
    ["left_padded_all_empty_returns_a_constant_bias", "causal_attention_with_cache_kept_output_buffer"],
    ["left_padded_one_sentence_cuts_with_negative_slice"],
    # round 15 class sweep, second pass: every batch above has a Part 6 member
    ["cross_attention_left_padded_kept_output_buffer"],
    # red team 17 (scores clamped to +-1e4): every batch above has a Part 6 member
    ["left_padded_scores_clamped", "contributions_scores_clamped"],
]

# Round 17 clamp sweep (tests/redteam/round17/03-clamp-verdicts.md): a defensive clamp on a value the text does not
# bound, right for every value the tests used (x and the projections of order 1 to 1000). The hidden tests of
# Parts 5 to 7 now use x near 1e5 with keys near 1e-5: queries and values near 1e5, scores of order 1
MUTANTS["contributions_clamps_x"] = ("test_contributions", {"contributions": contributions(
    COLUMNS, before="").replace("qkv = x @ params", "qkv = x.clamp(-1e4, 1e4) @ params", 1)})
MUTANTS["left_padded_clamps_the_queries"] = ("test_left_padded", {"left_padded": left_padded(
    mask="real[:, None, None, :]").replace("    real = ", "    q = q.clamp(-1e4, 1e4)\n    real = ", 1)})
MUTANTS["cache_clamps_x"] = ("test_cache", {"cache": cache("torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
    "(x @ params", "(x.clamp(-1e4, 1e4) @ params", 1)})
MUTANTS["cache_clamps_the_queries"] = ("test_cache", {"cache": cache("torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
    "    allowed = ", "    q = q.clamp(-1e4, 1e4)\n    allowed = ", 1)})
# two batches with a Part 6 member only take the Part 5 and Part 7 mutants; every batch holds a Part 6 member
next(b for b in MUTANT_BATCHES if b == ["left_padded_one_sentence_cuts_with_negative_slice"]).extend(
    ["contributions_clamps_x", "cache_clamps_x"])
next(b for b in MUTANT_BATCHES if b == ["cross_attention_left_padded_kept_output_buffer"]).append("cache_clamps_the_queries")
MUTANT_BATCHES.append(["left_padded_clamps_the_queries"])

# Red team 18 (tests/redteam/round18/03-verdicts.md). The autograd-careless student switches requires_grad on in a
# tensor the caller passed "so that gradients flow" (no value check sees a flag; the caller's later in-place writes
# to it fail): the hidden tests of Parts 1 and 5 to 7 now read the flag of every tensor they pass after the call.
# The stateful student keeps something worked out from the parameters per id(): the caller's tensors, changed in
# place between two calls (an optimizer step), leave it stale; Parts 1 and 5 to 7 now call again with the same
# tensors after writing into them.
FLIP = "    if {name}.is_floating_point() and {name}.is_leaf and not {name}.requires_grad:\n        {name}.requires_grad_()\n"
MUTANTS["interleaved_switches_requires_grad_on_x"] = ("test_interleaved", {"interleaved": interleaved(
    SPLIT, MERGE, check="    if d % num_heads:\n        raise ValueError('not divisible')\n" + FLIP.format(name="x"))})
MUTANTS["contributions_switches_requires_grad_on_x"] = ("test_contributions", {"contributions": contributions(
    COLUMNS).replace("    dh = d // num_heads\n", "    dh = d // num_heads\n" + FLIP.format(name="x"), 1)})
MUTANTS["left_padded_switches_requires_grad_on_params"] = ("test_left_padded", {"left_padded": left_padded(
    before="".join(FLIP.format(name=f"params['{key}']") for key in ("w_qkv", "b_qkv", "w_o", "b_o")))})
MUTANTS["cache_switches_requires_grad_on_the_cache"] = ("test_cache", {"cache": cache(
    "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)").replace(
    "    p, t = past_k.shape[2], x.shape[1]\n",
    "    p, t = past_k.shape[2], x.shape[1]\n" + FLIP.format(name="past_k") + FLIP.format(name="past_v"), 1)})
MUTANTS["contributions_caches_w_o_per_id"] = ("test_contributions", {"contributions": """
PER_HEAD_W_O = {}

def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)
    key = (id(params["w_o"]), num_heads)
    if key not in PER_HEAD_W_O:  # W^O's rows per head, worked out once per weight (a copy: w_o.T is not contiguous)
        PER_HEAD_W_O[key] = params["w_o"].T.reshape(num_heads, d // num_heads, d).clone()
    return torch.einsum("bhtk,hkd->bhtd", heads, PER_HEAD_W_O[key])
"""})
MUTANTS["cache_caches_weights_per_id_of_params"] = ("test_cache", {"cache": """
TRANSPOSED = {}

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    if id(params) not in TRANSPOSED:  # the weights transposed once per parameter dict
        TRANSPOSED[id(params)] = (params["w_qkv"].T.contiguous(), params["b_qkv"].clone(),
                                  params["w_o"].T.contiguous(), params["b_o"].clone())
    w_qkv_t, b_qkv, w_o_t, b_o = TRANSPOSED[id(params)]
    q, k_new, v_new = (split_heads(part, num_heads) for part in (x @ w_qkv_t + b_qkv).chunk(3, dim=-1))
    k, v = torch.cat([past_k, k_new], dim=2), torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    return merge_heads(attention(q, k, v, allowed)) @ w_o_t + b_o, k, v
"""})
# batches with room (no member of that part yet); every batch holds a Part 6 member, so the Part 6 mutant is alone
next(b for b in MUTANT_BATCHES if b[:1] == ["left_padded_clamps_the_queries"]).extend(
    ["interleaved_switches_requires_grad_on_x", "contributions_switches_requires_grad_on_x",
     "cache_switches_requires_grad_on_the_cache"])
next(b for b in MUTANT_BATCHES if b[:1] == ["cross_attention_left_padded_kept_output_buffer"]).append(
    "contributions_caches_w_o_per_id")
next(b for b in MUTANT_BATCHES if b[:1] == ["left_padded_scores_clamped"]).append("cache_caches_weights_per_id_of_params")
MUTANT_BATCHES.append(["left_padded_switches_requires_grad_on_params"])

# Red team 18 class sweep (tests/redteam/round18/03-sweep-verdicts.md). Class E: the values a part returns as
# (a, b, c) returned as a list, which unpacks like the tuple (Parts 2, 4 and 7 now check the kind through _plain).
# Class F: backward() run inside "to check that the gradient flows" (retain_graph=True, so the caller's
# autograd.grad still works and the gradients compared are right): the caller's leaves get a .grad before its own
# backward pass (Parts 1, 5, 6 and 7 now check that .grad is still None after a call on leaves that require grad).
# No batch has room for a Part 6 mutant (every batch holds one), and one only for one Part 7 mutant: Part 6's
# backward() and Part 7's list have none (Part 7 checks both on one call; the list is proven in Parts 2 and 4).
from grading import place_mutant, place_mutants, replaced as _replaced_code, solution_code as _solution_code  # noqa: E402

_MODEL = _solution_code(CHAPTER)
_BACKWARD = "    if {0}.requires_grad:  # make sure the gradient flows\n        {0}.sum().backward(retain_graph=True)\n"
for _name, _test, _part, _old, _new in [
        ("scrambled_returns_a_list", "test_scrambled", "scrambled", "    return head, source_position, feature",
         "    return [head, source_position, feature]"),
        ("cost_returns_a_list", "test_cost", "cost", "    return parameters, macs, 2 * kv_width * keys",
         "    return [parameters, macs, 2 * kv_width * keys]"),
        ("interleaved_split_runs_backward_inside", "test_interleaved", "interleaved",
         "    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)",
         "    out = x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)\n" + _BACKWARD.format("out")
         + "    return out"),
        ("contributions_runs_backward_inside", "test_contributions", "contributions",
         '    return torch.einsum("bhtk,ehk->bhte", heads, w_o)',
         '    out = torch.einsum("bhtk,ehk->bhte", heads, w_o)\n' + _BACKWARD.format("out") + "    return out"),
        ("cache_runs_backward_inside", "test_cache", "cache", "    return out, k, v",
         _BACKWARD.format("out") + "    return out, k, v")]:
    MUTANTS[_name] = (_test, {_part: _replaced_code(_MODEL[_part], _old, _new, once=True)})
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")

# Red team 19 (tests/redteam/round19/03-verdicts.md), the numerically naive student: the textbook order
# softmax((q @ k^T) / sqrt(Dh)) written out in the dtype of x. In float16 a product q . k passes 65504 where the score
# q . k / sqrt(Dh) does not: inf, then inf - inf = NaN. Parts 6 and 7 now each have a float16 case with products near
# 72 000 to 76 500 and scores near 51 000 to 54 000 (the texts say so). Every batch above holds a Part 6 and a Part 7
# member; these two (CAUGHT in round19/03-after.txt: N7 and N8) go into new batches below, which, like every batch
# but batch_0, run as plain processes (tests/cellrun.py), not as nbgrader notebooks
_TEXTBOOK = ('    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # scaled after the product\n'
             '    scores = scores.masked_fill(~{mask}, float("-inf"))\n'
             '    {out} = merge_heads(torch.softmax(scores, dim=-1) @ v) @ params["w_o"].T + params["b_o"]\n')
ROUND_19 = {
    "cache_float16_scores_scaled_after_the_product": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], '    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]\n',
        _TEXTBOOK.format(mask="allowed", out="out"), once=True)}),
    "left_padded_float16_scores_scaled_after_the_product": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"],
        '    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)\n'
        '    return merge_heads(heads) @ params["w_o"].T + params["b_o"]',
        '    allowed = real[:, None, None, :]\n'
        '    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # scaled after the product\n'
        '    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)\n'
        '    weights = torch.where(allowed.any(dim=-1, keepdim=True), weights, torch.zeros((), dtype=weights.dtype))\n'
        '    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]', once=True)}),
}

# Red team 19 class sweep (tests/redteam/round19/03-sweep-verdicts.md): the round's classes put into the model answers
# of Parts 6 and 7. Four slipped and are now caught by hidden cases: (A) the weighted sum of the values formed in
# float16 before the division by the softmax's row sum (Parts 6 and 7: many keys of equal score, values near 2000);
# (C) mask positions counted from 1 in the dtype of x (Part 6: sentences starting at 296..299 and 2096..2099); (D) the
# real keys of a sentence counted in uint8 (Part 6: 128, 256 and 257 real positions); (F) finfo(dtype).min added to
# the scores of later keys (Part 7: a later key at +1.5e308 against seen keys at -1.5e308). Each CAUGHT in
# tests/redteam/round19/03-sweep-after.txt; packed with round 19's two above into new batches below.
ROUND_19.update({
    "left_padded_float16_values_summed_before_the_division": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], '    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)\n',
        '    allowed = real[:, None, None, :]\n'
        '    scores = ((q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)).masked_fill(~allowed, float("-inf"))\n'
        '    top = scores.amax(dim=-1, keepdim=True)\n'
        '    e = torch.exp(scores - torch.where(top.isfinite(), top, torch.zeros_like(top)))\n'
        '    total = e.sum(dim=-1, keepdim=True)\n'
        '    heads = (e @ v) / (total + (total == 0).to(total.dtype))  # summed before the division: float16 overflows\n',
        once=True)}),
    "cache_float16_values_summed_before_the_division": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], '    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]\n',
        '    scores = ((q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)).masked_fill(~allowed, float("-inf"))\n'
        '    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))\n'
        '    out = merge_heads((e @ v) / e.sum(dim=-1, keepdim=True)) @ params["w_o"].T + params["b_o"]\n', once=True)}),
    "left_padded_mask_positions_one_based_in_dtype_of_x": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], '    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]\n',
        '    real = torch.arange(1, s + 1, dtype=x.dtype)[None, :] > (s - memory_lengths.long()[:, None]).to(x.dtype)\n',
        once=True)}),
    "left_padded_counts_real_keys_in_uint8": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], '    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)\n',
        '    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)\n'
        '    count = real.sum(dim=-1, dtype=torch.uint8)  # 256 real keys count 0\n'
        '    heads = torch.where((count > 0)[:, None, None, None], heads, torch.zeros_like(heads))\n', once=True)}),
    "cache_adds_finfo_min_to_later_keys": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], '    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]\n',
        '    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)\n'
        '    scores = scores + (~allowed).to(scores.dtype) * torch.finfo(scores.dtype).min\n'
        '    out = merge_heads(torch.softmax(scores, dim=-1) @ v) @ params["w_o"].T + params["b_o"]\n', once=True)}),
})

# Round 19's seven (four of Part 6, three of Part 7): "free" fills a batch with room, else a new batch (at most three);
# the fourth Part 6 mutant, with no batch left to take it, runs alone in a plain process of its own
MUTANTS.update(ROUND_19)
_new_batches = 0
for _name in ROUND_19:
    try:
        place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
    except StopIteration:
        if _new_batches < 3:
            place_mutant(MUTANTS, MUTANT_BATCHES, _name, None)
            _new_batches += 1

# Red team 21 (tests/redteam/round21/03-verdicts.md), the signature-and-defaults student: an argument renamed in the
# stub's signature (heads for num_heads, lengths for memory_lengths, cache_k for past_k) gives the right values to
# every positional call, and the hidden tests called Parts 1, 2 and 5 to 7 positionally only (Part 4 named bias alone).
# Each part now passes every argument by name in some cases (the introduction says so); one renaming per part.
# Round 20's aliasing lead for Part 6: the empty batch's result equals x (shape, dtype, no values), and an early exit
# that handed x itself back kept its points; Part 6 now runs _owned on every result of its main cases. Part 7's lead is
# the identity weights' coincidence (out equals x where each query sees only itself), no shortcut: no check added.
# Each goes into the first batch with room (at most one mutant per graded test); a mutant no batch has room for stays
# out of the batches and runs alone in a plain process.
ROUND_21 = {
    "interleaved_split_renames_num_heads": ("test_interleaved", {"interleaved": _replaced_code(
        _MODEL["interleaved"], "def split_heads_interleaved(x, num_heads):\n",
        "def split_heads_interleaved(x, heads):\n    num_heads = heads\n", once=True)}),
    "interleaved_merge_renames_x": ("test_interleaved", {"interleaved": _replaced_code(
        _MODEL["interleaved"], "def merge_heads_interleaved(x):\n", "def merge_heads_interleaved(heads):\n    x = heads\n",
        once=True)}),
    "scrambled_renames_head_dim": ("test_scrambled", {"scrambled": _replaced_code(
        _MODEL["scrambled"], "def scrambled_source(num_heads, length, head_dim, position, column):\n",
        "def scrambled_source(num_heads, length, dh, position, column):\n    head_dim = dh\n", once=True)}),
    "cost_renames_num_kv_heads": ("test_cost", {"cost": _replaced_code(
        _MODEL["cost"], "def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):\n",
        "def decode_step_cost(past, d_model, num_heads, num_groups, head_dim, bias=True):\n    num_kv_heads = num_groups\n",
        once=True)}),
    "contributions_renames_params": ("test_contributions", {"contributions": _replaced_code(
        _MODEL["contributions"], "def head_contributions(x, params, num_heads):\n",
        "def head_contributions(x, weights, num_heads):\n    params = weights\n", once=True)}),
    "left_padded_renames_memory_lengths": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):\n",
        "def cross_attention_left_padded(x, memory, lengths, params, num_heads):\n    memory_lengths = lengths\n",
        once=True)}),
    "cache_renames_the_cache": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], "def causal_attention_with_cache(x, past_k, past_v, params, num_heads):\n",
        "def causal_attention_with_cache(x, cache_k, cache_v, params, num_heads):\n    past_k, past_v = cache_k, cache_v\n",
        once=True)}),
    "left_padded_empty_batch_hands_back_x": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):\n",
        "def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):\n"
        "    if x.shape[0] == 0:  # an empty batch: nothing to compute, and x has the result's shape\n        return x\n",
        once=True)}),
}
MUTANTS.update(ROUND_21)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_21, "alone")  # no batch has room: it runs alone

# Red team 25 (tests/redteam/round25/03-verdicts.md), the notebook-state student: a merge that reads the sizes of the
# last split instead of its own input's passed, since every hidden merge followed a split of the same shape. Part 1's
# hidden tests now merge heads of one shape right after a split of another.
ROUND_25 = {
    "interleaved_merge_reads_the_last_splits_sizes": ("test_interleaved", {"interleaved": """
LAST_SHAPE = None


def split_heads_interleaved(x, num_heads):
    global LAST_SHAPE
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("not divisible")
    LAST_SHAPE = (b, t, d // num_heads, num_heads)  # the merge undoes exactly this split
    return x.reshape(LAST_SHAPE).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, t, dh, h = LAST_SHAPE
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
"""}),
}
MUTANTS.update(ROUND_25)
ROUND_25_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_25, "alone")

# Round 25 class sweep (tests/redteam/round25/03-sweep-verdicts.md): class L, positions from a table torch.arange(2**20)
# made once (Part 6's longest source was 32 800, Part 7's cache 10**6 + 3; now 1 049 000 both), and class N, Part 7's
# cache its last call returned read back from a global when the shapes match (now a cache of its own of the same shape
# right after such a call). No batch had room: they make batches of their own (one notebook run each, in a plain
# process)
ROUND_25_SWEEP = {
    "left_padded_positions_from_a_table_of_2_to_20": ("test_left_padded", {"left_padded": (
        "\nPOSITIONS = torch.arange(1 << 20)\n" + left_padded(real="POSITIONS[:s][None, :] >= s - memory_lengths.long()[:, None]"))}),
    "cache_positions_from_a_table_of_2_to_20": ("test_cache", {"cache": cache(
        "POSITIONS[:p + t][None, :] <= POSITIONS[p:p + t][:, None]", prelude="\nPOSITIONS = torch.arange(1 << 20)\n")}),
    "cache_read_back_from_the_last_call": ("test_cache", {"cache": """
STORE = {}


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    kept = STORE.get("kv")
    if kept is not None and kept[0].shape == past_k.shape and kept[1].shape == past_v.shape:
        past_k, past_v = kept
    p, t = past_k.shape[2], x.shape[1]
    q, k_new, v_new = (split_heads(part, num_heads)
                       for part in (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1))
    k, v = torch.cat([past_k, k_new], dim=2), torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    STORE["kv"] = (k, v)
    return merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"], k, v
"""}),
}
MUTANTS.update(ROUND_25_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_25_SWEEP, "new")

# Red team 26 (tests/redteam/round26/03-verdicts.md), the stride-and-layout student: Part 1 dealt the columns out with
# torch.as_strided and an explicit storage_offset of 0, which reads from the start of the storage instead of where the
# view begins. Every input of the hidden tests began at offset 0 (copies, transposed copies), so it passed. Part 1 now
# also passes inputs that start inside their storage after other values, and Parts 5 to 7's strided copies do too.
ROUND_26 = {
    "interleaved_as_strided_from_the_storage_start": ("test_interleaved", {"interleaved": """
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("not divisible")
    sb, st, sd = x.stride()
    return torch.as_strided(x, (b, num_heads, t, d // num_heads), (sb, sd, st, sd * num_heads), 0)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    sb, sh, st, sd = x.stride()
    return torch.as_strided(x, (b, t, dh, h), (sb, st, sd, sh), 0).reshape(b, t, h * dh)
"""}),
}
MUTANTS.update(ROUND_26)
ROUND_26_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_26, "alone")

# Round 26 class sweep (tests/redteam/round26/03-sweep-verdicts.md), class U (an answer the text allowed that is slow on
# the hidden cases): a mask written with a torch operation per key took tens of seconds at the hidden sources and caches
# past 2**20, graded differently on a busy machine. Parts 6 and 7 now rule it out with the sizes as the reason, and the
# hidden tests count the operations the long call runs (500 at B = H = T = 1), so it fails fast and the same everywhere
ROUND_26_SWEEP = {
    "left_padded_mask_written_key_by_key": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]\n",
        "    real = torch.zeros(memory.shape[0], s, dtype=torch.bool)\n"
        "    for i, n in enumerate(memory_lengths.tolist()):\n"
        "        for j in range(s):\n"
        "            real[i, j] = j >= s - n\n", once=True)}),
}
MUTANTS.update(ROUND_26_SWEEP)
ROUND_26_SWEEP_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_26_SWEEP, "alone")
assert not ROUND_26_SWEEP_ALONE, ROUND_26_SWEEP_ALONE
# Part 7's twin (the causal mask written key by key) has no batch with room for a test_cache mutant: its code is in the
# sweep's verdicts, and the sweep's U-p7-mask-loop-over-keys grades it


# Round 26's class sweep (tests/redteam/round26/03-sweep-verdicts.md): the mutant no existing batch had room for,
# in a batch of its own
MUTANTS["cache_mask_written_key_by_key"] = ("test_cache", {"cache": _replaced_code(
    _MODEL["cache"], "    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)",
    "    allowed = torch.zeros(t, p + t, dtype=torch.bool)\n"
    "    for i in range(t):\n"
    "        for j in range(p + i + 1):\n"
    "            allowed[i, j] = True", once=True)})
place_mutants(MUTANTS, MUTANT_BATCHES, ["cache_mask_written_key_by_key"], "new")


# Round 27 class sweep (tests/redteam/round27/03-sweep-verdicts.md), class V (a floor below every value the hidden
# cases reach): a written-out softmax whose exponentials are floored at 1e-30 passed Parts 5-7, where no key of weight
# exactly 0 held a value large enough for the floor to show; each part now has keys of weight exactly 0 (scores
# thousands below the others) holding values of 1e300 (1e38 in float32), first and last among the keys
_FLOORED_ATTENTION = '''
def floored_attention(q, k, v, allowed=None):
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = torch.exp(scores - top).clamp_min(1e-30)  # no weight of exactly 0
    if allowed is not None:
        e = torch.where(allowed, e, 0.0)
    total = e.sum(dim=-1, keepdim=True)
    return (e / torch.where(total > 0, total, torch.ones_like(total))) @ v

'''
ROUND_27_SWEEP = {
    "contributions_weights_floored": ("test_contributions", {"contributions": _FLOORED_ATTENTION + _replaced_code(
        _MODEL["contributions"], "heads = attention(q, k, v)", "heads = floored_attention(q, k, v)", once=True)}),
    "left_padded_weights_floored": ("test_left_padded", {"left_padded": _FLOORED_ATTENTION + _replaced_code(
        _MODEL["left_padded"], "heads = attention(q, k, v,", "heads = floored_attention(q, k, v,", once=True)}),
    "cache_weights_floored": ("test_cache", {"cache": _FLOORED_ATTENTION + _replaced_code(
        _MODEL["cache"], "merge_heads(attention(q, k, v, allowed))", "merge_heads(floored_attention(q, k, v, allowed))",
        once=True)}),
}
MUTANTS.update(ROUND_27_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_27_SWEEP, "new")

# Red team 28 (tests/redteam/round28/03-verdicts.md). The fallback writer: an empty input answered with a new constant,
# after the checks (x.new_empty in Part 1, x.new_zeros(0, T, D) for an empty batch in Part 6), has the right shapes
# and no autograd history, so the caller's backward() fails on it; Parts 1 and 6 now take the gradient of an empty
# result too. The memoizer (a neighbour of its slip, W^O reshaped per head and kept per id(w_o), which stays a view
# of the entry and so goes wrong only when a freed weight's id comes back: see the verdicts): w_o.contiguous() kept
# per id is the entry itself when it is contiguous and a stale copy of a strided one; lengths.long() kept per id is
# the int64 lengths themselves and a copy of narrower ones. The in-place sections of Parts 5, 6 and 7 now write into
# strided entries (and int16 lengths).
ROUND_28 = {
    "interleaved_empty_x_answered_with_new_empty": ("test_interleaved", {"interleaved": _replaced_code(_replaced_code(
        _MODEL["interleaved"], "    return x.reshape(b, t, d // num_heads, num_heads)",
        "    if x.numel() == 0:  # nothing to deal out\n        return x.new_empty(b, num_heads, t, d // num_heads)\n"
        "    return x.reshape(b, t, d // num_heads, num_heads)", once=True),
        "    return x.permute(0, 2, 3, 1)",
        "    if x.numel() == 0:\n        return x.new_empty(b, t, dh * h)\n    return x.permute(0, 2, 3, 1)", once=True)}),
    "left_padded_empty_batch_answered_with_new_zeros": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "    w, b = params[\"w_qkv\"], params[\"b_qkv\"]\n",
        "    if x.shape[0] == 0:  # an empty batch: nothing to compute\n        return x.new_zeros(0, x.shape[1], d)\n"
        "    w, b = params[\"w_qkv\"], params[\"b_qkv\"]\n", once=True)}),
    "contributions_w_o_made_contiguous_and_kept_per_id": ("test_contributions", {"contributions": "PER_ID = {}\n" + _replaced_code(
        _MODEL["contributions"], "    w_o = params[\"w_o\"].reshape(d, num_heads, d // num_heads)",
        "    if id(params[\"w_o\"]) not in PER_ID:  # laid out once per weight\n"
        "        PER_ID[id(params[\"w_o\"])] = params[\"w_o\"].contiguous()\n"
        "    w_o = PER_ID[id(params[\"w_o\"])].reshape(d, num_heads, d // num_heads)", once=True)}),
    "left_padded_lengths_converted_and_kept_per_id": ("test_left_padded", {"left_padded": "PER_ID = {}\n" + _replaced_code(
        _MODEL["left_padded"], "    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]",
        "    if id(memory_lengths) not in PER_ID:\n        PER_ID[id(memory_lengths)] = memory_lengths.long()\n"
        "    real = torch.arange(s)[None, :] >= s - PER_ID[id(memory_lengths)][:, None]", once=True)}),
}
MUTANTS.update(ROUND_28)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28), "new")

# Round 28 class sweep (tests/redteam/round28/03-sweep-verdicts.md). Class Y: something kept per id() and the version
# counter _version of the caller's tensors, which a write through .data (an optimizer's p.data update) leaves where
# it was: every in-place section of Parts 1, 5, 6 and 7 wrote with _scribble (add_, which moves the counter); they
# now also write new values through .data into the same strided objects and call right after the call before.
# Class AA: x.contiguous() kept per id(x), x itself for the contiguous x of Part 1's in-place section. Class AC: Part
# 4's counts memoized under a key that leaves out one argument; calls that differ in one argument now follow each other.
ROUND_28_SWEEP = {
    "interleaved_merge_cached_by_id_and_version": ("test_interleaved", {"interleaved": KEPT_BY_VERSION + _replaced_code(
        _MODEL["interleaved"], "    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)",
        "    return kept_by_version([x], lambda: x.permute(0, 2, 3, 1).reshape(b, t, dh * h)).clone()", once=True)}),
    "interleaved_split_input_made_contiguous_and_kept_per_id": ("test_interleaved", {"interleaved": "PER_ID = {}\n" + _replaced_code(
        _MODEL["interleaved"], "    return x.reshape(b, t, d // num_heads, num_heads)",
        "    x = PER_ID.setdefault(id(x), (x, x.contiguous()))[1]  # laid out once per tensor\n"
        "    return x.reshape(b, t, d // num_heads, num_heads)", once=True)}),
    "contributions_w_o_cached_by_id_and_version": ("test_contributions", {"contributions": KEPT_BY_VERSION + _replaced_code(
        _MODEL["contributions"], "    w_o = params[\"w_o\"].reshape(d, num_heads, d // num_heads)",
        "    w_o = kept_by_version([params[\"w_o\"]], lambda: params[\"w_o\"].contiguous()).reshape(d, num_heads, d // num_heads)",
        once=True)}),
    "left_padded_weights_cached_by_id_and_version": ("test_left_padded", {"left_padded": KEPT_BY_VERSION + _replaced_code(
        _MODEL["left_padded"], "    w, b = params[\"w_qkv\"], params[\"b_qkv\"]",
        "    w, b = (kept_by_version([params[name]], lambda: params[name].contiguous()) for name in (\"w_qkv\", \"b_qkv\"))",
        once=True)}),
    "cache_projections_cached_by_id_and_version": ("test_cache", {"cache": KEPT_BY_VERSION + _replaced_code(
        _MODEL["cache"], "    qkv = x @ params[\"w_qkv\"].T + params[\"b_qkv\"]",
        "    qkv = kept_by_version([x, params[\"w_qkv\"], params[\"b_qkv\"]], lambda: x @ params[\"w_qkv\"].T + params[\"b_qkv\"])",
        once=True)}),
    "cost_memoized_without_head_dim": ("test_cost", {"cost": "MEMO = {}\n" + _replaced_code(_replaced_code(
        _MODEL["cost"], "def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):\n",
        "def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):\n"
        "    key = (past, d_model, num_heads, num_kv_heads, bool(bias))  # the head width is fixed per model\n"
        "    if key in MEMO:\n        return MEMO[key]\n", once=True),
        "    return parameters, macs, 2 * kv_width * keys",
        "    MEMO[key] = parameters, macs, 2 * kv_width * keys\n    return MEMO[key]", once=True)}),
}
MUTANTS.update(ROUND_28_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28_SWEEP), "new")

# Round 29 (tests/redteam/round29/03-verdicts.md), the chunker: queries taken in blocks of 64 rows, the last shorter block
# dropped (left as zeros), or never reached while every hidden case was shorter than a block. Parts 5 and 6 now have a
# case of 1031 and 4099 queries (primes: no block of 2 to 1030 or 4098 rows divides them); Part 7 already had one.
ROUND_29 = {
    "contributions_query_blocks_drop_the_last": ("test_contributions", {"contributions": _replaced_code(
        _MODEL["contributions"], "    return torch.einsum(\"bhtk,ehk->bhte\", heads, w_o)",
        "    out = torch.zeros_like(torch.einsum(\"bhtk,ehk->bhte\", heads, w_o))\n"
        "    size = min(64, t)  # blocks of 64 queries\n"
        "    for s0 in range(0, t - size + 1 if size else 0, size):\n"
        "        out[:, :, s0:s0 + size] = torch.einsum(\"bhtk,ehk->bhte\", attention(q[:, :, s0:s0 + size], k, v), w_o)\n"
        "    return out", once=True)}),
    "left_padded_query_blocks_drop_the_last": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)",
        "    heads = torch.zeros_like(q)\n"
        "    size = min(64, q.shape[2])  # blocks of 64 queries\n"
        "    for s0 in range(0, q.shape[2] - size + 1 if size else 0, size):\n"
        "        heads[:, :, s0:s0 + size] = attention(q[:, :, s0:s0 + size], k, v, real[:, None, None, :])", once=True)}),
}
MUTANTS.update(ROUND_29)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29), "new")


# Round 29 class sweep (tests/redteam/round29/03-sweep-verdicts.md), class AG (the last, shorter piece dropped): Part 7's
# new queries taken in blocks of 512 (a loop over them is allowed), the last, shorter block left at 0, unseen while every
# block had 299 queries or fewer; closed by 521 new queries after a cache of 2. (Classes AF and AI were caught in Parts
# 5-7 already; Parts 5 and 6 had AG closed in round 29.)
ROUND_29_SWEEP = {
    "cache_query_blocks_of_512_last_dropped": ("test_cache", {"cache": """def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]  # (B, T, 3D)
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)  # (B, H, P+T, Dh)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)  # query t sees keys 0 .. p + t
    heads = torch.zeros_like(q)
    n = t
    for i in range(0, max(1, n // 512) * 512, 512):                                   # 512 new queries at a time
        heads[:, :, i:i + 512] = attention(q[:, :, i:i + 512], k, v, allowed[i:i + 512])
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return out, k, v"""}),
}
MUTANTS.update(ROUND_29_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP), "new")


# Red team 30 (tests/redteam/round30/03-verdicts.md). The second-call student: a torch.set_grad_enabled(False) ...
# torch.set_grad_enabled(True) pair (or a lone set_grad_enabled(True)) inside a function switches the grad mode on for a
# caller inside torch.no_grad(); the grader's check after the cell never saw it (the mode was on there, as it should be).
# Parts 1, 5, 6 and 7 are now also called inside torch.no_grad() and check that the mode is still off. The validator: an
# empty input "repaired" into a new tensor of its shape (an empty cache, an empty batch) keeps every value and loses the
# caller's gradient; Parts 6 and 7 now take gradients with respect to empty inputs too (Part 6's case, an empty batch
# replaced, was checked by hand: no batch has room for another Part 6 mutant, and one more batch costs more than it proves).
ROUND_30 = {
    "interleaved_grad_mode_switched_on": ("test_interleaved", {"interleaved": _replaced_code(
        _MODEL["interleaved"], "    if d % num_heads:\n",
        "    torch.set_grad_enabled(False)  # the check needs no gradient\n    bad = d % num_heads\n"
        "    torch.set_grad_enabled(True)\n    if bad:\n", once=True)}),
    "contributions_grad_mode_switched_on": ("test_contributions", {"contributions": _replaced_code(
        _MODEL["contributions"], "    heads = attention(q, k, v)  # (B, H, T, Dh)\n",
        "    torch.set_grad_enabled(True)  # gradients must flow through the heads\n"
        "    heads = attention(q, k, v)  # (B, H, T, Dh)\n", once=True)}),
    "left_padded_grad_mode_switched_on": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]\n",
        "    torch.set_grad_enabled(False)  # the mask needs no gradient\n"
        "    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]\n"
        "    torch.set_grad_enabled(True)\n", once=True)}),
    "cache_grad_mode_switched_on": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], "    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)  # query t sees keys 0 .. p + t\n",
        "    torch.set_grad_enabled(False)  # the mask needs no gradient\n"
        "    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)\n"
        "    torch.set_grad_enabled(True)\n", once=True)}),
    "cache_empty_cache_replaced_by_new_zeros": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], "    p, t = past_k.shape[2], x.shape[1]\n",
        "    p, t = past_k.shape[2], x.shape[1]\n"
        "    if p == 0:  # an empty cache: start a fresh one of the right dtype\n"
        "        past_k, past_v = x.new_zeros(past_k.shape), x.new_zeros(past_v.shape)\n", once=True)}),
}
MUTANTS.update(ROUND_30)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30), "new")
# Red team 30, after grading: the default dtype set to float64 for a function's own work and "put back" as float32, not
# as the dtype the caller had (S3, which slipped once the grader no longer flagged set_default_dtype as tampering).
# Parts 1, 5, 6 and 7 are now also called with float64 as the default dtype, which must still be float64 after the call.
ROUND_30_DTYPE = {
    "contributions_default_dtype_reset_to_float32": ("test_contributions", {"contributions": _replaced_code(
        _MODEL["contributions"], "    heads = attention(q, k, v)  # (B, H, T, Dh)\n",
        "    torch.set_default_dtype(torch.float64)  # the softmax in double precision\n"
        "    heads = attention(q, k, v)  # (B, H, T, Dh)\n"
        "    torch.set_default_dtype(torch.float32)  # back to the default\n", once=True)}),
}
MUTANTS.update(ROUND_30_DTYPE)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_DTYPE), "new")


# Round 30 class sweep (tests/redteam/round30/03-sweep-verdicts.md): AJ, an input written in place with the values it
# held (version counters of every tensor argument now compared, in every dtype a part takes), and AL, a converted
# copy of an input kept per id() with the original alive beside it (same objects in float32/float16/bfloat16 now)
ROUND_30_SWEEP = {
    # AJ: x masked_fill_ of NaN over NaN
    'interleaved_x_nan_masked_in_place': ('test_interleaved', {'interleaved': '\ndef split_heads_interleaved(x, num_heads):\n    b, t, d = x.shape\n    if x.is_floating_point():\n        x.masked_fill_(x != x, float(\'nan\'))\n    if d % num_heads:\n        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")\n    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)\n\n\ndef merge_heads_interleaved(x):\n    b, h, t, dh = x.shape\n    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)\n'}),
    # AJ: w_o NaN-masked in place under no_grad
    'contributions_w_o_nan_masked_in_place': ('test_contributions', {'contributions': '\ndef head_contributions(x, params, num_heads):\n    b, t, d = x.shape\n    with torch.no_grad():\n        params[\'w_o\'].masked_fill_(params[\'w_o\'] != params[\'w_o\'], 0.0)\n    qkv = x @ params["w_qkv"].T + params["b_qkv"]\n    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))\n    heads = attention(q, k, v)\n    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)\n    return torch.einsum("bhtk,ehk->bhte", heads, w_o)\n'}),
    # AJ: memory NaN-masked in place under no_grad
    'left_padded_memory_nan_masked_in_place': ('test_left_padded', {'left_padded': '\ndef cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):\n    d, s = x.shape[-1], memory.shape[1]\n    with torch.no_grad():\n        memory.masked_fill_(memory != memory, 0.0)\n    w, b = params["w_qkv"], params["b_qkv"]\n    q = split_heads(x @ w[:d].T + b[:d], num_heads)\n    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)\n    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)\n    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]\n    heads = attention(q, k, v, real[:, None, None, :])\n    return merge_heads(heads) @ params["w_o"].T + params["b_o"]\n'}),
    # AJ: past_k NaN-masked in place under no_grad
    'cache_past_k_nan_masked_in_place': ('test_cache', {'cache': '\ndef causal_attention_with_cache(x, past_k, past_v, params, num_heads):\n    p, t = past_k.shape[2], x.shape[1]\n    with torch.no_grad():\n        past_k.masked_fill_(past_k != past_k, 0.0)\n    qkv = x @ params["w_qkv"].T + params["b_qkv"]\n    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))\n    k = torch.cat([past_k, k_new], dim=2)\n    v = torch.cat([past_v, v_new], dim=2)\n    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)\n    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]\n    return out, k, v\n'}),
    # AL: float64 copies of the parameters kept per id()
    'contributions_params_float64_kept_per_id': ('test_contributions', {'contributions': '\nCONVERTED = {}\ndef converted(t, dtype=torch.float64):\n    kept = CONVERTED.get((id(t), dtype))\n    if kept is None or kept[0] is not t:  # the original is kept alive beside its copy: its id() is never reused\n        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))\n    return kept[1]\n\ndef head_contributions(x, params, num_heads):\n    b, t, d = x.shape\n    x64 = x.to(torch.float64)\n    qkv = x64 @ converted(params["w_qkv"]).T + converted(params["b_qkv"])\n    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))\n    heads = attention(q, k, v)\n    w_o = converted(params["w_o"]).reshape(d, num_heads, d // num_heads)\n    return torch.einsum("bhtk,ehk->bhte", heads, w_o).to(x.dtype)\n'}),
    # AL: float32 copies of half memory and parameters kept per id()
    'left_padded_half_inputs_float32_kept_per_id': ('test_left_padded', {'left_padded': '\nCONVERTED = {}\ndef converted(t, dtype=torch.float64):\n    kept = CONVERTED.get((id(t), dtype))\n    if kept is None or kept[0] is not t:  # the original is kept alive beside its copy: its id() is never reused\n        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))\n    return kept[1]\n\ndef cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):\n    d, s = x.shape[-1], memory.shape[1]\n    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n    w, b = converted(params["w_qkv"], work), converted(params["b_qkv"], work)\n    m = converted(memory, work)\n    q = split_heads(x.to(work) @ w[:d].T + b[:d], num_heads)\n    k = split_heads(m @ w[d:2 * d].T + b[d:2 * d], num_heads)\n    v = split_heads(m @ w[2 * d:].T + b[2 * d:], num_heads)\n    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]\n    heads = attention(q, k, v, real[:, None, None, :])\n    return (merge_heads(heads) @ converted(params["w_o"], work).T + converted(params["b_o"], work)).to(x.dtype)\n'}),
    # AL: float32 copies of half parameters kept per id()
    'cache_half_params_float32_kept_per_id': ('test_cache', {'cache': '\nCONVERTED = {}\ndef converted(t, dtype=torch.float64):\n    kept = CONVERTED.get((id(t), dtype))\n    if kept is None or kept[0] is not t:  # the original is kept alive beside its copy: its id() is never reused\n        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))\n    return kept[1]\n\ndef causal_attention_with_cache(x, past_k, past_v, params, num_heads):\n    p, t = past_k.shape[2], x.shape[1]\n    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n    qkv = x.to(work) @ converted(params["w_qkv"], work).T + converted(params["b_qkv"], work)\n    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))\n    k = torch.cat([past_k.to(work), k_new], dim=2)\n    v = torch.cat([past_v.to(work), v_new], dim=2)\n    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)\n    out = merge_heads(attention(q, k, v, allowed)) @ converted(params["w_o"], work).T + converted(params["b_o"], work)\n    return out.to(x.dtype), k.to(x.dtype), v.to(x.dtype)\n'}),
}
MUTANTS.update(ROUND_30_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")


# Sweep 31 (tests/redteam/round31/03-sweep.md). Class AK, left open by round 30's sweep: the gradient path cut for half
# precision only (Parts 1, 6 and 7 now compare float16 and bfloat16 gradients with float64 ones). Class AO: a setting
# changed inside a function and put back as the default rather than as it was found (every part now also calls its
# functions through _settings_kept, with every setting the grader checks away from its default); one setting per part.
ROUND_31_SWEEP = {
    # AK: the split detached for half inputs only (the merge is left whole)
    "interleaved_half_split_detached": ("test_interleaved", {"interleaved": _replaced_code(
        _MODEL["interleaved"], "    return x.reshape(b, t, d // num_heads, num_heads)",
        "    if x.dtype in (torch.float16, torch.bfloat16):  # no gradient needed through a half-precision split\n"
        "        x = x.detach()\n"
        "    return x.reshape(b, t, d // num_heads, num_heads)", once=True)}),
    # AK: the values detached for half memory only (memory still gets a gradient through the keys)
    "left_padded_half_values_detached": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)\n",
        "    source = memory.detach() if memory.dtype in (torch.float16, torch.bfloat16) else memory\n"
        "    v = split_heads(source @ w[2 * d:].T + b[2 * d:], num_heads)\n", once=True)}),
    # AK: the new keys detached for half x only
    "cache_half_new_keys_detached": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], "    k = torch.cat([past_k, k_new], dim=2)",
        "    if x.dtype in (torch.float16, torch.bfloat16):\n"
        "        k_new = k_new.detach()\n"
        "    k = torch.cat([past_k, k_new], dim=2)", once=True)}),
    # AO: two threads for the copy, then one, the count the grader's kernels start with, rather than the count found
    "interleaved_threads_put_back_as_one": ("test_interleaved", {"interleaved": _replaced_code(
        _MODEL["interleaved"], "    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)",
        "    torch.set_num_threads(2)\n"
        "    out = x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)\n"
        "    torch.set_num_threads(1)\n"
        "    return out", once=True)}),
    # AO: the grad mode switched off for integer arithmetic and "put back" on
    "scrambled_grad_mode_put_back_on": ("test_scrambled", {"scrambled": _replaced_code(
        _MODEL["scrambled"], "    head, rest = divmod(flat, length * head_dim)\n",
        "    torch.set_grad_enabled(False)  # integers only: no gradient\n"
        "    head, rest = divmod(flat, length * head_dim)\n"
        "    torch.set_grad_enabled(True)\n", once=True)}),
    # AO: the default dtype set to float64 for the counts and put back as float32
    "cost_default_dtype_put_back_float32": ("test_cost", {"cost": _replaced_code(
        _MODEL["cost"], "    keys = past + 1",
        "    torch.set_default_dtype(torch.float64)\n"
        "    keys = past + 1\n"
        "    torch.set_default_dtype(torch.float32)", once=True)}),
    # AO: flush-denormal switched on for the heads and put back off
    "contributions_flush_denormal_put_back_off": ("test_contributions", {"contributions": _replaced_code(
        _MODEL["contributions"], "    heads = attention(q, k, v)  # (B, H, T, Dh)\n",
        "    torch.set_flush_denormal(True)  # tiny weights need not be exact\n"
        "    heads = attention(q, k, v)  # (B, H, T, Dh)\n"
        "    torch.set_flush_denormal(False)\n", once=True)}),
    # AO: anomaly detection switched on around the attention and put back off
    "left_padded_anomaly_detection_put_back_off": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)\n",
        "    torch.autograd.set_detect_anomaly(True)  # a NaN in the backward pass names its operation\n"
        "    heads = attention(q, k, v, real[:, None, None, :])  # mask (B, 1, 1, S)\n"
        "    torch.autograd.set_detect_anomaly(False)\n", once=True)}),
    # AO: print options changed for a debug line and put back with the default profile
    "cache_print_options_put_back_default": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], "    p, t = past_k.shape[2], x.shape[1]\n",
        "    torch.set_printoptions(precision=8, sci_mode=False)  # for debugging the cache\n"
        "    p, t = past_k.shape[2], x.shape[1]\n"
        "    torch.set_printoptions(profile=\"default\")\n", once=True)}),
}
MUTANTS.update(ROUND_31_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")


# Sweep 31b (tests/redteam/round31/03-sweep2.md). Class AQ, found in chapter 4 Part 7: an integer position through
# float32. Part 4's `past` (unbounded) now reaches 2**24 + 1 and + 2, 2**53 + 1, 2**64 + 1 and 10**30 + 1. Class AP
# (gradients checked at one rank only) has no place here: every part's text fixes the rank of every tensor input.
ROUND_31_SWEEP2 = {
    # AQ: the number of cached positions through a float32 tensor (2**24 + 1 becomes 2**24)
    "cost_past_through_float32": ("test_cost", {"cost": _replaced_code(
        _MODEL["cost"], "    keys = past + 1",
        "    keys = int(torch.tensor(float(past), dtype=torch.float32).item()) + 1", once=True)}),
}
MUTANTS.update(ROUND_31_SWEEP2)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP2), "new")


# Red team 32 (tests/redteam/round32/03-verdicts.md), the integer-range student: Part 2's range check made against a
# bound in floats (float(num_heads) * head_dim). Every width the hidden tests used was below 2**53 (only the lengths
# were larger), so the rounded bound never showed; Part 2 now checks widths past 2**53 and 2**64 and a length past 2**53,
# the last column and position kept and the ones after them refused, and its text says to compare exact integers.
ROUND_32 = {
    "scrambled_range_checked_in_floats": ("test_scrambled", {"scrambled": scrambled(SCRAMBLED, check=(
        "    if not (0 <= position < float(length) and 0 <= column < float(num_heads) * head_dim):\n"
        "        raise ValueError('out of range')\n"))}),
}
MUTANTS.update(ROUND_32)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_32), "new")


# Sweep 32 (tests/redteam/round32/03-sweep.md), class AV: a slice from a negative start at a length of 0. Part 6's
# real keys marked per sentence with real[i, -n:] keep every position for n = 0 (closed before by the length-0
# sentences of the batched cases; the B = 1 path is left_padded_one_sentence_cuts_with_negative_slice).
SWEEP_32 = {
    "left_padded_real_keys_from_minus_length": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"],
        "    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]\n",
        "    real = torch.zeros(x.shape[0], s, dtype=torch.bool)\n"
        "    for i, n in enumerate(memory_lengths.tolist()):\n"
        "        real[i, -n:] = True\n", once=True)}),
}
MUTANTS.update(SWEEP_32)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_32), "new")


# Red team 33 (tests/redteam/round33/03-verdicts.md), the side-effect student: the params dict left with the same tensor
# objects in another order (w_o and b_o popped and put back: every check read the dict by key), and the .grad of the
# caller's parameters cleared (`p.grad = None`, "to start from clean gradients": every .grad check passed clones or
# leaves without one). Parts 5 to 7 now compare the dict's key order, and Parts 1 and 5 to 7 pass leaves that hold a
# .grad and check that it is still the same tensor with the same values.
ROUND_33 = {
    "left_padded_params_taken_out_and_put_back": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "    return merge_heads(heads) @ params[\"w_o\"].T + params[\"b_o\"]",
        "    w_o, b_o = params.pop(\"w_o\"), params.pop(\"b_o\")\n"
        "    params[\"b_o\"], params[\"w_o\"] = b_o, w_o\n"
        "    return merge_heads(heads) @ w_o.T + b_o", once=True)}),
    "contributions_params_taken_out_and_put_back": ("test_contributions", {"contributions": _replaced_code(
        _MODEL["contributions"], "    b, t, d = x.shape\n",
        "    b, t, d = x.shape\n"
        "    params[\"b_o\"] = params.pop(\"b_o\")  # (the same tensor, moved last)\n", once=True)}),
    "cache_clears_params_grad": ("test_cache", {"cache": _replaced_code(
        _MODEL["cache"], "    p, t = past_k.shape[2], x.shape[1]\n",
        "    for tensor in params.values():  # start from clean gradients\n"
        "        tensor.grad = None\n"
        "    p, t = past_k.shape[2], x.shape[1]\n", once=True)}),
    "left_padded_zeroes_memory_grad": ("test_left_padded", {"left_padded": _replaced_code(
        _MODEL["left_padded"], "    d, s = x.shape[-1], memory.shape[1]\n",
        "    d, s = x.shape[-1], memory.shape[1]\n"
        "    if memory.grad is not None:  # the encoder's gradient comes from this call only\n"
        "        memory.grad = torch.zeros_like(memory)\n", once=True)}),
}
MUTANTS.update(ROUND_33)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33), "new")


# Red team 34 (tests/redteam/round34/03-verdicts.md), the magic-number student: Part 7's cached entries "cleaned up" with
# nan_to_num on their way into k and v, which keeps -0.0 and every finite value (every hidden cache was finite) and turns
# inf into finfo.max. Part 7 now has a cache with inf and -inf entries, compared in k and v, and its text says so (and,
# for P = 0, that k and v are built from the empty cache too).
ROUND_34 = {
    "cache_entries_through_nan_to_num": ("test_cache", {"cache": _replaced_code(_replaced_code(
        _MODEL["cache"], "    k = torch.cat([past_k, k_new], dim=2)",
        "    k = torch.cat([past_k.nan_to_num(), k_new], dim=2)", once=True),
        "    v = torch.cat([past_v, v_new], dim=2)", "    v = torch.cat([past_v.nan_to_num(), v_new], dim=2)", once=True)}),
}
MUTANTS.update(ROUND_34)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34), "new")


# Round 35 class sweep (tests/redteam/round35/03-sweep.md, class BK): Part 5 built on Part 1's split_heads_interleaved
# called on (T, D) rows, which Part 1's text does not cover; slipped before this round (the stand-in took any rank)
ROUND_35_SWEEP = {
    "contributions_interleaved_split_on_2d_rows": ("test_contributions", {"contributions": """
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    w_o = params["w_o"].reshape(d, num_heads, dh)
    out = []
    for n in range(b):  # one sequence at a time: (T, D) rows dealt out with Part 1's function, Dh "heads" of H
        q, k, v = (split_heads_interleaved(part, num_heads=dh).permute(2, 0, 1) for part in qkv[n].chunk(3, dim=-1))
        heads = attention(q, k, v)  # (H, T, Dh)
        out.append(torch.einsum("htk,ehk->hte", heads, w_o))
    return torch.stack(out) if out else x.new_zeros(0, num_heads, t, d) + 0 * x.sum()
"""}),
}
MUTANTS.update(ROUND_35_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_35_SWEEP), "new")
