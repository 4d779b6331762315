"""Chapter 5 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently.

The model answers do not call each other's functions (Parts 5 and 6 use the setup's `layer_norm`,
`feed_forward` and `mha`), except Part 3 (b), which may call (a)'s `prefill_dot_products`. A student's may:
judged from the texts, Part 3 (b) may call `prefill_dot_products`, Part 5 `rms_norm` (a LayerNorm is the
RMSNorm of the centred vector plus the bias) and Part 6 `packed_masks` (one pair over every position gives
the causal mask). Each of those test cells binds the earlier name to a reference first (round 11, second
pass), so a slip in an earlier part costs that part only and mutants of different parts can share a
submission."""

from grading import around_body, from_storage_start, kept_output_buffer, place_mutant, place_mutants

CHAPTER = "05-encoder-decoder"
FULL_MARKS = 16.0


def rms(body):
    return "\ndef rms_norm(x, weight, eps=1e-6):\n" + body + "\n"


_RMS_FLOAT32 = "    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n"


def params(body):
    return ("\ndef modern_params(vocab, d_model, d_ff, n_enc, n_dec):\n    d = d_model\n" + body + "\n")


def prefill(body):
    return "\ndef prefill_dot_products(prompt_len, chunk, layers, heads):\n" + body + "\n"


def request(steps, own=1):
    """(b) on top of prefill_dot_products: `steps` single-position steps, each meeting prompt_len + j - 1 + own keys."""
    return ("\ndef request_dot_products(prompt_len, chunk, new_tokens, layers, heads):\n" + steps +
            "    total = prefill_dot_products(prompt_len, chunk, layers, heads)\n"
            f"    return total + layers * heads * (steps * (prompt_len - 1 + {own}) + steps * (steps + 1) // 2)\n")


def masks(body):
    return ("\ndef packed_masks(src_segments, tgt_segments):\n"
            "    t = tgt_segments.shape[1]\n    causal = torch.ones(t, t, dtype=torch.bool).tril()\n" + body + "\n")


_SAME = "(a[:, :, None] == b[:, None, :])"


def sandwich(lines):
    return "\ndef sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):\n" + lines + "\n"


_SW1 = "    y = y + layer_norm(mha(layer_norm(y, *p['pre1']), None, self_allowed, p['self_attn']), *p['post1'])\n"
_SW2 = "    y = y + layer_norm(mha(layer_norm(y, *p['pre2']), memory, memory_allowed, p['cross_attn']), *p['post2'])\n"
_SW3 = "    return y + layer_norm(feed_forward(layer_norm(y, *p['pre3']), p['ff']), *p['post3'])\n"


def cached(mask, store="    cache['k'], cache['v'] = k, v\n", prologue="", epilogue=""):
    return f"""
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
{prologue}    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
{store}    past = k.shape[2] - n
{mask}
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    out = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
{epilogue}    return out
"""


_OFFSET_MASK = "    allowed = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)"


MUTANTS = {
    # ---- Part 1, RMSNorm
    # red team (slipped): overflow avoided by scaling with the maximum, but all arithmetic stays in
    # float16, about 2 ulps off where one rounding of a float32 result is asked for
    "rms_half_arithmetic_scaled": ("test_rms_norm", {"rms_norm": rms(
        "    m = x.abs().amax(-1, keepdim=True).clamp_min(1e-12)\n"
        "    xs = x / m\n"
        "    rms = torch.sqrt(xs.pow(2).mean(-1, keepdim=True) + eps / (m * m)) * m\n"
        "    return x / rms * weight")}),
    # stated requirement (accuracy in float16): squares computed in float16 overflow to inf
    "rms_half_squares_overflow": ("test_rms_norm", {"rms_norm": rms(
        "    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight")}),
    # red team 2 (slipped): flattens with .view, which fails on a transposed (non-contiguous) x
    "rms_flattens_with_view": ("test_rms_norm", {"rms_norm": rms(
        "    shape = x.shape\n    x2 = x.view(-1, shape[-1])\n"
        "    x32 = x2.float() if x.dtype in (torch.float16, torch.bfloat16) else x2\n"
        "    out = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps) * weight.to(x32.dtype)\n"
        "    return out.to(x.dtype).view(shape)")}),
    # in-place rule: divides the caller's tensor
    "rms_divides_x_in_place": ("test_rms_norm", {"rms_norm": rms(
        "    if x.dtype in (torch.float16, torch.bfloat16):\n"
        "        return rms_norm(x.float(), weight.float(), eps).to(x.dtype)\n"
        "    return x.mul_(torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)).mul_(weight)")}),
    # every argument with a non-default value: eps is ignored
    "rms_ignores_eps": ("test_rms_norm", {"rms_norm": rms(_RMS_FLOAT32 +
        "    return (x32 * torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * weight.to(x32.dtype)).to(x.dtype)")}),
    # red team 8 (slipped, white-box): eps read by keyword only (the hidden tests passed it only by keyword);
    # the signature rms_norm(x, weight, eps=1e-6) allows it by position
    "rms_eps_keyword_only": ("test_rms_norm", {"rms_norm": rms(
        "    eps = options.get('eps', 1e-6)\n" + _RMS_FLOAT32 +
        "    return (x32 * torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.to(x32.dtype)).to(x.dtype)"
    ).replace("weight, eps=1e-6)", "weight, **options)")}),
    # red team 8, class 3: the forward pass right, the 1/rms factor computed under torch.no_grad() (its gradient lost)
    "rms_scale_under_no_grad": ("test_rms_norm", {"rms_norm": rms(_RMS_FLOAT32 +
        "    with torch.no_grad():\n        inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)\n"
        "    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)")}),
    # ---- Part 2, parameter count
    # the lesson's formula kept: biases everywhere, LayerNorm with bias
    "params_with_biases": ("test_modern_params", {"modern_params": params(
        "    attention = 4 * d * d + 4 * d\n    ffn = 3 * d * d_ff + 2 * d_ff + d\n"
        "    return 2 * vocab * d + n_enc * (attention + ffn + 4 * d) + n_dec * (2 * attention + ffn + 6 * d) + 4 * d")}),
    # red team 2 (caught): the encoder and decoder layer counts swapped, equal only when n_enc == n_dec
    "params_stacks_swapped": ("test_modern_params", {"modern_params": params(
        "    return 2 * vocab * d + n_dec * (4 * d * d + 3 * d * d_ff + 2 * d) + n_enc * (8 * d * d + 3 * d * d_ff + 3 * d) + 2 * d")}),
    # the gate forgotten: two feed-forward matrices
    "params_ungated_ffn": ("test_modern_params", {"modern_params": params(
        "    return 2 * vocab * d + n_enc * (4 * d * d + 2 * d * d_ff + 2 * d) + n_dec * (8 * d * d + 2 * d * d_ff + 3 * d) + 2 * d")}),
    # red team: two RMSNorms per decoder layer
    "params_decoder_two_norms": ("test_modern_params", {"modern_params": params(
        "    return 2 * vocab * d + n_enc * (4 * d * d + 3 * d * d_ff + 2 * d) + n_dec * (8 * d * d + 3 * d * d_ff + 2 * d) + 2 * d")}),
    # stated requirement (a Python int): the right number as a float
    "params_returns_float": ("test_modern_params", {"modern_params": params(
        "    ffn = 3.0 * d * d_ff\n"
        "    return 2 * vocab * d + n_enc * (4 * d * d + ffn + 2 * d) + n_dec * (8 * d * d + ffn + 3 * d) + 2 * d")}),
    # ---- Part 3, the dot products of a chunked prefill (a) and of a whole request (b)
    # the lesson's cached count copied: only the causal pairs, as if every position met only its prefix
    # (right for chunks of 1 only)
    "prefill_counts_only_causal_pairs": ("test_cache_count_without", {"cache_count_without": prefill(
        "    return layers * heads * (prompt_len * (prompt_len + 1) // 2)")}),
    # the chunk ignored: the prompt's whole square in one pass (right when chunk >= prompt_len only)
    "prefill_ignores_chunk": ("test_cache_count_without", {"cache_count_without": prefill(
        "    return layers * heads * prompt_len * prompt_len")}),
    # the cached keys forgotten: each chunk scored against its own keys only
    "prefill_own_keys_only": ("test_cache_count_without", {"cache_count_without": prefill(
        "    full, rest = divmod(prompt_len, chunk)\n"
        "    return layers * heads * (full * chunk * chunk + rest * rest)")}),
    # the last chunk counted as a full one (ceil division), as if the prompt were padded to a multiple of chunk
    "prefill_last_chunk_padded": ("test_cache_count_without", {"cache_count_without": prefill(
        "    k = -(-prompt_len // chunk)\n"
        "    return layers * heads * (chunk * chunk * k * (k + 1) // 2)")}),
    # stated requirement (a Python int): the closed form with /, a float of the right value at small sizes
    "prefill_float_division": ("test_cache_count_without", {"cache_count_without": prefill(
        "    full, rest = divmod(prompt_len, chunk)\n"
        "    return layers * heads * (chunk * chunk * full * (full + 1) / 2 + rest * prompt_len)")}),
    # the float converted back with int(): exact below 2**53 only
    "prefill_int_of_float": ("test_cache_count_without", {"cache_count_without": prefill(
        "    full, rest = divmod(prompt_len, chunk)\n"
        "    return int(layers * heads * (chunk * chunk * full * (full + 1) / 2 + rest * prompt_len))")}),
    # int64 tensor arithmetic: exact until it wraps past 2**63
    "prefill_int64_tensor": ("test_cache_count_without", {"cache_count_without": prefill(
        "    full, rest = divmod(prompt_len, chunk)\n"
        "    t = lambda v: torch.tensor(v, dtype=torch.int64)\n"
        "    per_head = t(chunk) * t(chunk) * t(full) * t(full + 1) // 2 + t(rest) * t(prompt_len)\n"
        "    return int(t(layers) * t(heads) * per_head)")}),
    # session 17, blind red team: the chunks counted with math.ceil of a float quotient, which rounds to a whole
    # number one position past it (P = k c + 1 with c near 2**45), so the last chunk of one position is lost
    "prefill_chunks_counted_with_float_ceil": ("test_cache_count_without", {"cache_count_without": prefill(
        "    import math\n"
        "    total = 0\n"
        "    for i in range(math.ceil(prompt_len / chunk)):\n"
        "        m = min(chunk, prompt_len - i * chunk)\n"
        "        total += m * (i * chunk + m)\n"
        "    return total * layers * heads")}),
    # every argument by name: the stub's argument names changed
    "prefill_arguments_renamed": ("test_cache_count_without", {"cache_count_without": """
def prefill_dot_products(P, c, L, H):
    full, rest = divmod(P, c)
    return L * H * (c * c * full * (full + 1) // 2 + rest * P)
"""}),
    # the heads forgotten
    "prefill_forgets_heads": ("test_cache_count_without", {"cache_count_without": prefill(
        "    full, rest = divmod(prompt_len, chunk)\n"
        "    return layers * (chunk * chunk * full * (full + 1) // 2 + rest * prompt_len)")}),
    # a lying number: an int subclass equal to everything
    "prefill_lying_int": ("test_cache_count_without", {"cache_count_without": """
class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def prefill_dot_products(prompt_len, chunk, layers, heads):
    return Anything(0)
"""}),
    # (b): one step per new token after the prefill, as if the prefill did not choose the first one
    "request_one_step_per_token": ("test_cache_count_with", {"cache_count_with": request(
        "    steps = new_tokens\n")}),
    # (b): a step's query scored against the cached keys only, not its own
    "request_step_excludes_own_key": ("test_cache_count_with", {"cache_count_with": request(
        "    steps = max(new_tokens - 1, 0)\n", own=0)}),
    # (b): the closed form for new_tokens - 1 steps, without the case new_tokens = 0 (-1 steps)
    "request_minus_one_step_at_zero": ("test_cache_count_with", {"cache_count_with": request(
        "    steps = new_tokens - 1\n")}),
    # (b): its own prefill count, which ignores the chunk (the whole prompt's square)
    "request_prefill_unchunked": ("test_cache_count_with", {"cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    return layers * heads * (prompt_len * prompt_len + steps * prompt_len + steps * (steps + 1) // 2)
"""}),
    # (b): the lesson's count copied, one position per step from the start (right for chunks of 1 only)
    "request_lesson_count": ("test_cache_count_with", {"cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    last = prompt_len + max(new_tokens - 1, 0)
    return layers * heads * sum(range(1, last + 1))
"""}),
    # (b), stated requirement (a Python int): the arithmetic series with /
    "request_float_division": ("test_cache_count_with", {"cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + layers * heads * steps * (2 * prompt_len + steps + 1) / 2
"""}),
    # (b): int64 tensor arithmetic for the generation, which wraps past 2**63
    "request_int64_tensor": ("test_cache_count_with", {"cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = torch.arange(max(new_tokens - 1, 0), dtype=torch.int64)
    keys = (prompt_len + 1 + steps).sum() * layers * heads
    return prefill_dot_products(prompt_len, chunk, layers, heads) + int(keys)
"""}),
    # (b), every argument by name: new_tokens renamed
    "request_arguments_renamed": ("test_cache_count_with", {"cache_count_with": """
def request_dot_products(prompt_len, chunk, n, layers, heads):
    steps = max(n - 1, 0)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + layers * heads * (steps * prompt_len + steps * (steps + 1) // 2)
"""}),
    # ---- Part 4, packed masks
    # red team: target padding not checked (the visible target has none), so padding queries see padding
    "masks_target_padding_unchecked": ("test_packed_masks", {"packed_masks": masks(
        "    real = lambda a: a[:, :, None] != 0\n"
        "    a, c = src_segments, tgt_segments\n"
        "    return ((a[:, :, None] == a[:, None, :]) & real(a), (c[:, :, None] == c[:, None, :]) & causal,\n"
        "            (c[:, :, None] == a[:, None, :]) & real(c))")}),
    # red team 2 (slipped): one-hot segment matrices, but F.one_hot accepts only int64 ids (int32 fails)
    "masks_one_hot_int64_only": ("test_packed_masks", {"packed_masks": masks(
        "    k = int(max(src_segments.max(), tgt_segments.max())) + 1\n"
        "    hs, ht = F.one_hot(src_segments, k)[..., 1:], F.one_hot(tgt_segments, k)[..., 1:]\n"
        "    return (hs @ hs.transpose(1, 2)) > 0, ((ht @ ht.transpose(1, 2)) > 0) & causal, (ht @ hs.transpose(1, 2)) > 0")}),
    # round 12, class sweep (empty batch): one-hot columns sized from the largest pair number; B = 0 has no maximum
    "masks_one_hot_sized_by_max": ("test_packed_masks", {"packed_masks": masks(
        "    k = int(max(src_segments.max(), tgt_segments.max())) + 1\n"
        "    hs = F.one_hot(src_segments.long(), k)[..., 1:].float()\n"
        "    ht = F.one_hot(tgt_segments.long(), k)[..., 1:].float()\n"
        "    return (hs @ hs.transpose(1, 2)) > 0, ((ht @ ht.transpose(1, 2)) > 0) & causal, (ht @ hs.transpose(1, 2)) > 0")}),
    # stated requirement (boolean): float 0/1 masks
    "masks_float": ("test_packed_masks", {"packed_masks": masks(
        "    eq = lambda a, b: " + _SAME + " & (b[:, None, :] != 0)\n"
        "    return (eq(src_segments, src_segments).float(), (eq(tgt_segments, tgt_segments) & causal).float(),\n"
        "            eq(tgt_segments, src_segments).float())")}),
    # small-size-only: a causal mask precomputed for up to 256 positions
    "masks_causal_cached_to_256": ("test_packed_masks", {"packed_masks": """
_CAUSAL = torch.ones(256, 256, dtype=torch.bool).tril()

def packed_masks(src_segments, tgt_segments):
    t = tgt_segments.shape[1]
    eq = lambda a, b: (a[:, :, None] == b[:, None, :]) & (b[:, None, :] != 0)
    return eq(src_segments, src_segments), eq(tgt_segments, tgt_segments) & _CAUSAL[:t, :t], eq(tgt_segments, src_segments)
"""}),
    # in-place rule: padding renumbered in the caller's tensors so that equality alone suffices
    "masks_renumber_padding_in_place": ("test_packed_masks", {"packed_masks": masks(
        "    src_segments[src_segments == 0] = -1\n    tgt_segments[tgt_segments == 0] = -2\n"
        "    eq = lambda a, b: " + _SAME + "\n"
        "    return eq(src_segments, src_segments), eq(tgt_segments, tgt_segments) & causal, eq(tgt_segments, src_segments)")}),
    # red team 4 (slipped): segment ids narrowed to 8 bits; pairs 256 apart in one row collide
    "masks_uint8_segments": ("test_packed_masks", {"packed_masks": masks(
        "    s, c = src_segments.to(torch.uint8), tgt_segments.to(torch.uint8)\n"
        "    eq = lambda a, b: " + _SAME + " & (b[:, None, :] != 0)\n"
        "    return eq(s, s), eq(c, c) & causal, eq(c, s)")}),
    # ---- Part 5, sandwich layer
    # round 11, second pass (chapter 8's class): Part 1 with eps added to the root instead of the mean square, and a
    # Part 5 that computes its LayerNorms with rms_norm (the centred vector's RMSNorm with eps 1e-5, plus the bias):
    # Part 5's test cell binds a reference of rms_norm, so only Part 1's points go
    "rms_eps_outside_root_with_sandwich_calling_it": ("test_rms_norm", {
        "rms_norm": rms("    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n"
                        "    return (x32 / (x32.pow(2).mean(-1, keepdim=True).sqrt() + eps) * weight.to(x32.dtype)).to(x.dtype)"),
        "sandwich": sandwich(
            "    def norm(h, weight, bias):  # LayerNorm: Part 1's RMSNorm of the centred vector, plus the bias\n"
            "        return rms_norm(h - h.mean(-1, keepdim=True), weight, 1e-5) + bias\n"
            + (_SW1 + _SW2 + _SW3).replace("layer_norm(", "norm("))}),
    # memory normalised with pre2 as well
    "sandwich_normalises_memory": ("test_sandwich", {"sandwich": sandwich(
        _SW1 + "    y = y + layer_norm(mha(layer_norm(y, *p['pre2']), layer_norm(memory, *p['pre2']), memory_allowed,"
        " p['cross_attn']), *p['post2'])\n" + _SW3)}),
    # every argument value: a causal mask is always added, so self_allowed=None is not honoured
    "sandwich_always_causal": ("test_sandwich", {"sandwich": sandwich(
        "    t = y.shape[1]\n    m = torch.ones(t, t, dtype=torch.bool).tril()\n"
        "    m = m if self_allowed is None else m & self_allowed\n"
        "    y = y + layer_norm(mha(layer_norm(y, *p['pre1']), None, m, p['self_attn']), *p['post1'])\n" + _SW2 + _SW3)}),
    # red team: memory_allowed dropped (the visible test passes None)
    "sandwich_ignores_memory_mask": ("test_sandwich", {"sandwich": sandwich(
        _SW1 + "    y = y + layer_norm(mha(layer_norm(y, *p['pre2']), memory, None, p['cross_attn']), *p['post2'])\n" + _SW3)}),
    # red team 2 (slipped): in-place rule on a mask: every query allowed to see itself, in the caller's
    # self_allowed (changes only a row that hides its own position, such as a padded target position)
    "sandwich_mask_in_place": ("test_sandwich", {"sandwich": sandwich(
        "    if self_allowed is not None:\n        self_allowed |= torch.eye(y.shape[1], dtype=torch.bool)\n"
        + _SW1 + _SW2 + _SW3)}),
    # round 12, class sweep (an in-place write that keeps the values): the caller's self_allowed made causal in place;
    # every mask the tests pass is causal already, so the values stay and only the version counter moves (a mask
    # that the caller's autograd graph saved, a stack of layers sharing it, can no longer be used by backward)
    "sandwich_mask_made_causal_in_place": ("test_sandwich", {"sandwich": sandwich(
        "    if self_allowed is not None:\n"
        "        self_allowed &= torch.ones(y.shape[1], y.shape[1], dtype=torch.bool).tril()\n"
        + _SW1 + _SW2 + _SW3)}),
    # red team 13 (views in a caller's dict, red team 12's class): the self-attention weights flattened for a fused
    # kernel and reshaped back into the caller's dict; a view of the same memory with the same shape and values, so
    # only an identity check of p's entries (nested ones included) sees that the entry was replaced
    "sandwich_weight_replaced_by_view": ("test_sandwich", {"sandwich": sandwich(
        "    w = p['self_attn']['w_qkv']\n"
        "    p['self_attn']['w_qkv'] = w.reshape(-1).reshape(w.shape)\n" + _SW1 + _SW2 + _SW3)}),
    # its own causal mask instead of self_allowed (a rule that differs only on a per-row mask)
    # red team 9: an entry added to the caller's parameter dict (the last self-attention output kept
    # for inspection); every given entry keeps its value
    "sandwich_adds_entry_to_p": ("test_sandwich", {"sandwich": sandwich(
        "    p['self_attn_out'] = mha(layer_norm(y, *p['pre1']), None, self_allowed, p['self_attn'])\n"
        "    y = y + layer_norm(p['self_attn_out'], *p['post1'])\n" + _SW2 + _SW3)}),
    "sandwich_own_causal_mask": ("test_sandwich", {"sandwich": sandwich(
        "    t = y.shape[1]\n"
        "    y = y + layer_norm(mha(layer_norm(y, *p['pre1']), None, torch.ones(t, t, dtype=torch.bool).tril(),"
        " p['self_attn']), *p['post1'])\n" + _SW2 + _SW3)}),
    # ---- Part 6, cached block attention
    # small-size-only: a causal mask precomputed for 128 positions
    "cached_mask_precomputed_to_128": ("test_cached_attention", {"cached_attention": "\n_TRIL = torch.ones(128, 128, dtype=torch.bool).tril()\n"
        + cached("    allowed = _TRIL[past:past + n, :past + n]")}),
    # red team: the key bias forgotten; softmax does not see it (q . b_k is the same for every key),
    # so only the cache's contents are wrong
    "cached_keys_without_bias": ("test_cached_attention", {"cached_attention": cached(
        _OFFSET_MASK, prologue="    params = dict(params, b_qkv=torch.cat([params['b_qkv'][:d], 0 * params['b_qkv'][d:2 * d],"
        " params['b_qkv'][2 * d:]]))\n")}),
    # red team (slipped): keeps the inputs and calls mha on them, which the part forbids. Round 3
    # (slipped): the same with mha captured as a default argument, which the hidden tests' swap of the
    # global name missed; mha itself now refuses to run while Part 6's tests call the student's
    # function. This mutant replaces the by-name "cached_calls_mha" (a superset: the guard catches both).
    "cached_calls_mha_captured_as_default": ("test_cached_attention", {"cached_attention": """
def cached_self_attention(x_new, params, cache, attend=mha):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    w_k, w_v = params["w_qkv"].chunk(3)[1:]
    b_k, b_v = params["b_qkv"].chunk(3)[1:]
    k = (x_new @ w_k.T + b_k).reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    v = (x_new @ w_v.T + b_v).reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    xs = torch.cat([cache["x"], x_new], dim=1) if "x" in cache else x_new
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"], cache["x"] = k, v, xs
    total = xs.shape[1]
    return attend(x_new, xs, torch.ones(total, total, dtype=torch.bool).tril()[total - n:], params)
"""}),
    # numerics at extremes (red team 3, found in review): exp() of the scores without the row maximum,
    # normalised by hand; it kept full marks until a hidden case put the scores in the thousands
    "cached_exp_without_the_maximum": ("test_cached_attention", {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    allowed = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(dh)) * allowed
    heads = (e / e.sum(-1, keepdim=True)) @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
"""}),
    # red team 4 (slipped): the inputs so far kept in a module-level list (cleared when the cache is
    # empty) and the keys recomputed from it: right for one sequence, wrong when two caches take turns
    "cached_state_in_global": ("test_cached_attention", {"cached_attention": "\n_SEEN = []\n" + cached(
        _OFFSET_MASK,
        prologue="    if not cache:\n        _SEEN.clear()\n    _SEEN.append(x_new)\n    xs = torch.cat(_SEEN, dim=1)\n",
        store="    k = xs @ w_k.T + b_k; v = xs @ w_v.T + b_v\n"
              "    k = k.reshape(b, -1, NUM_HEADS, dh).transpose(1, 2); v = v.reshape(b, -1, NUM_HEADS, dh).transpose(1, 2)\n"
              "    cache['k'], cache['v'] = k, v\n")}),
    # in-place rule: the 1/sqrt(Dh) scale folded into the caller's query weights and then undone
    "cached_folds_scale_into_params": ("test_cached_attention", {"cached_attention": cached(
        _OFFSET_MASK,
        prologue="    params['w_qkv'][:d].div_(math.sqrt(dh)); params['b_qkv'][:d].div_(math.sqrt(dh))\n"
                 "    params['w_qkv'][:d].mul_(math.sqrt(dh)); params['b_qkv'][:d].mul_(math.sqrt(dh))\n"
                 "    params['w_qkv'][:d].div_(3.0); params['w_qkv'][:d].mul_(3.0)\n")}),
    # red team 9 (slipped): the split projections stored in params (an entry added to the caller's
    # dict); the four given entries keep their values, so only a check of params' entries sees it
    "cached_params_gain_split_weights": ("test_cached_attention", {"cached_attention": cached(
        _OFFSET_MASK, prologue="    if 'w_k' not in params:\n"
                               "        params['w_q'], params['w_k'], params['w_v'] = params['w_qkv'].chunk(3)\n")}),
    # red team 13 (views in a caller's dict, red team 12's class): params['w_qkv'] replaced by a view of itself (a
    # slice of all of it), equal in every value and sharing its memory; only an identity check of params' entries sees it
    "cached_params_entry_replaced_by_view": ("test_cached_attention", {"cached_attention": cached(
        _OFFSET_MASK, prologue="    params['w_qkv'] = params['w_qkv'][:]\n")}),
    # red team 9 (slipped): past taken from a position counter kept in the cache, not from cache['k'];
    # right until the caller shortens the cache (rejected drafts of speculative decoding)
    "cached_position_counter": ("test_cached_attention", {"cached_attention": cached(
        "    past = cache['pos'] - n\n" + _OFFSET_MASK,
        store="    cache['k'], cache['v'] = k, v\n    cache['pos'] = cache.get('pos', 0) + n\n")}),
    # stated requirement (the cache keeps the dtype of x_new): kept in float64 whatever the input,
    # right for float64 inputs only
    "cached_cache_in_float64": ("test_cached_attention", {"cached_attention": cached(
        _OFFSET_MASK, store="    cache['k'], cache['v'] = k.double(), v.double()\n",
        prologue="    if 'k' in cache:\n        cache['k'], cache['v'] = cache['k'].to(x_new.dtype), cache['v'].to(x_new.dtype)\n")}),
    # red team 9, second pass -- Part 6: a softmax written out whose gradient overflows (chapter 9's class):
    # exp() of every score minus the maximum of the allowed ones, the future positions dropped by where()
    # afterwards; the output is right, but at scores in the thousands a future score far above the allowed ones
    # overflows and its 0 * inf makes the gradient NaN
    "cached_exp_masked_after": ("test_cached_attention", {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    allowed = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    top = scores.masked_fill(~allowed, float("-inf")).amax(dim=-1, keepdim=True)
    e = torch.where(allowed, (scores - top).exp(), torch.zeros_like(scores))
    heads = (e / e.sum(-1, keepdim=True)) @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
"""}),
    # round 11, class sweep (class 2, chapters 3 and 4): the square causal mask of every position so far, sliced to
    # the block's rows: right values, memory of (past + n)**2; a terabyte for a cache of 10**6 positions
    "cached_square_mask_sliced": ("test_cached_attention", {"cached_attention": cached(
        "    allowed = torch.ones(past + n, past + n, dtype=torch.bool).tril()[past:]")}),
    # round 11, class sweep (class 4, chapter 3): the cache extended by adding two zero-padded tensors instead of
    # concatenating them: right values, but a -0.0 the cache held comes back as +0.0 (-0.0 + 0.0)
    "cached_cache_extended_by_padded_sum": ("test_cached_attention", {"cached_attention": cached(
        _OFFSET_MASK, prologue="    old = cache.pop('k', None), cache.pop('v', None)\n",
        store="    if old[0] is not None:\n"
              "        p0 = old[0].shape[2]\n"
              "        k = F.pad(old[0], (0, 0, 0, n)) + F.pad(k, (0, 0, p0, 0))\n"
              "        v = F.pad(old[1], (0, 0, 0, n)) + F.pad(v, (0, 0, p0, 0))\n"
              "    cache['k'], cache['v'] = k, v\n")}),
    # round 12, class sweep (an empty batch): heads split with a -1 for the head width; reshape cannot size -1 for
    # B = 0 (a tensor of no elements) and raises
    "cached_heads_split_with_minus_one": ("test_cached_attention", {"cached_attention": cached(_OFFSET_MASK).replace(
        "x.reshape(b, n, NUM_HEADS, dh)", "x.reshape(b, n, NUM_HEADS, -1)")}),
    # red team 9, second pass -- Part 4: the global random generator (chapter 1's class), reseeded "to be safe"
    "masks_reseed_global_generator": ("test_packed_masks", {"packed_masks": masks(
        "    torch.manual_seed(0)\n"
        "    same = lambda a, b: " + _SAME + " & (a != 0)[:, :, None] & (b != 0)[:, None, :]\n"
        "    return same(src_segments, src_segments), same(tgt_segments, tgt_segments) & causal, "
        "same(tgt_segments, src_segments)")}),
    # Session 17 sweep, gradients with respect to a parameter of every kind: a detached copy of one gives the right
    # output and no gradient to it (the hidden tests had checked y, memory and cross_attn's w_qkv only)
    "sandwich_self_attention_detached": ("test_sandwich", {"sandwich": sandwich(
        "    y = y + layer_norm(mha(layer_norm(y, *p['pre1']), None, self_allowed,"
        " {k: v.detach() for k, v in p['self_attn'].items()}), *p['post1'])\n" + _SW2 + _SW3)}),
    "sandwich_post_norm_weight_detached": ("test_sandwich", {"sandwich": sandwich(
        _SW1 + _SW2 + "    return y + layer_norm(feed_forward(layer_norm(y, *p['pre3']), p['ff']), p['post3'][0].detach(),"
        " p['post3'][1])\n")}),
    # red team 17, class sweep (a clamp on a value the text leaves unbounded): x clamped to +-1e4 "to be safe"
    "rms_clamps_x": ("test_rms_norm", {"rms_norm": rms(_RMS_FLOAT32 +
        "    x32 = x32.clamp(-1e4, 1e4)\n"
        "    return (x32 * torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.to(x32.dtype)).to(x.dtype)")}),
    # red team 17 (slipped, the defensive programmer): the count in float "to be safe" and rounded back with
    # int(round(...)): exact below 2**53 only
    "params_int_of_rounded_float": ("test_modern_params", {"modern_params": params(
        "    v, d, f = float(vocab), float(d), float(d_ff)\n"
        "    return int(round(2 * v * d + n_enc * (4 * d * d + 3 * d * f + 2 * d) + n_dec * (8 * d * d + 3 * d * f + 3 * d)"
        " + 2 * d))")}),
    # red team 17 (slipped, the defensive programmer): the residual stream clamped to +-1e4 and NaN-guarded at the end
    "sandwich_clamps_stream": ("test_sandwich", {"sandwich": sandwich(
        _SW1 + _SW2 + "    y = y + layer_norm(feed_forward(layer_norm(y, *p['pre3']), p['ff']), *p['post3'])\n"
        "    return torch.nan_to_num(y.clamp(-1e4, 1e4))\n")}),
    # red team 17 (slipped, the production engineer): the positions of the mask in float16 "to save memory": exact to
    # 2048 only, so past that a query ties with the next position and sees it
    "cached_positions_in_float16": ("test_cached_attention", {"cached_attention": cached(
        "    allowed = torch.arange(past + n, dtype=torch.float16)[None, :] <= "
        "(past + torch.arange(n, dtype=torch.float16))[:, None]")}),
}

DIFFERENT_BUT_CORRECT = {
    "rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    work = x.to(torch.float64)          # always compute in float64, round once
    rms = torch.sqrt(torch.mean(work * work, dim=-1, keepdim=True) + eps)
    return (work / rms * weight.to(torch.float64)).to(x.dtype)
""",
    "modern_params": """
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    matrix = lambda rows, cols: rows * cols
    attention = 4 * matrix(d_model, d_model)
    gated = 2 * matrix(d_ff, d_model) + matrix(d_model, d_ff)
    encoder = n_enc * (attention + gated + 2 * d_model) + d_model
    decoder = n_dec * (2 * attention + gated + 3 * d_model) + d_model
    return matrix(vocab, d_model) + matrix(vocab, d_model) + encoder + decoder
""",
    "cache_count_without": """
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for start in range(0, prompt_len, chunk):      # one pass per chunk
        m = min(chunk, prompt_len - start)
        total += m * (start + m)                   # m queries against start cached keys and m new ones
    return total * layers * heads
""",
    "cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for position in range(prompt_len, prompt_len + new_tokens - 1):   # fed one at a time
        total += layers * heads * (position + 1)
    return total
""",
    "packed_masks": """
def packed_masks(src_segments, tgt_segments):
    def same(q, k):
        return torch.eq(q.unsqueeze(2), k.unsqueeze(1)) & q.unsqueeze(2).ne(0)
    t = tgt_segments.shape[1]
    idx = torch.arange(t)
    causal = idx.view(1, -1) <= idx.view(-1, 1)
    return same(src_segments, src_segments), torch.logical_and(same(tgt_segments, tgt_segments), causal), same(tgt_segments, src_segments)
""",
    "sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    blocks = [
        (lambda h: mha(h, None, self_allowed, p["self_attn"]), "1"),
        (lambda h: mha(h, memory, memory_allowed, p["cross_attn"]), "2"),
        (lambda h: feed_forward(h, p["ff"]), "3"),
    ]
    for block, i in blocks:
        y = y + layer_norm(block(layer_norm(y, *p["pre" + i])), *p["post" + i])
    return y
""",
    "cached_attention": """
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    h, dh = NUM_HEADS, d // NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"]).view(b, n, 3, h, dh)
    q, k, v = (qkv[:, :, i].permute(0, 2, 1, 3) for i in range(3))   # (B, H, n, Dh)
    cache["k"] = torch.cat([cache.get("k", k[:, :, :0]), k], dim=2)
    cache["v"] = torch.cat([cache.get("v", v[:, :, :0]), v], dim=2)
    past = cache["k"].shape[2] - n
    # Part 4's decoder mask for one pair over the block is its causal (n, n) mask (int32 ids, a source of one
    # position), after every cached position (round 11, second pass: a later part calling an earlier part's
    # function, graded with a reference of it; class sweep: the mask of all past + n positions, sliced to the
    # block's rows, needed a terabyte for a cache of 10**6 positions)
    ones = torch.ones(1, n, dtype=torch.int32)
    own = packed_masks(ones[:, :1], ones)[1][0]
    allowed = torch.cat([own.new_ones(n, past), own], dim=1)
    out = F.scaled_dot_product_attention(q, cache["k"], cache["v"], attn_mask=allowed)
    return F.linear(out.permute(0, 2, 1, 3).reshape(b, n, d), params["w_o"], params["b_o"])
""",
}

LOOPS_AND_EINSUM = {
    "rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    half = x.dtype in (torch.float16, torch.bfloat16)
    work = x.float() if half else x
    mean_square = torch.einsum("...d,...d->...", work, work)[..., None] / work.shape[-1]
    out = work / (mean_square + eps).sqrt() * weight.to(work.dtype)
    return out.to(x.dtype) if half else out
""",
    "modern_params": """
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    total = 2 * vocab * d_model
    for _ in range(n_enc):
        total += 4 * d_model ** 2 + 3 * d_model * d_ff + 2 * d_model
    for _ in range(n_dec):
        total += 8 * d_model ** 2 + 3 * d_model * d_ff + 3 * d_model
    return total + 2 * d_model
""",
    "cache_count_without": """
def prefill_dot_products(prompt_len, chunk, layers, heads):
    chunks = -(-prompt_len // chunk)
    # chunk k holds min(chunk, prompt_len - k * chunk) queries and ends at key min((k + 1) * chunk, prompt_len)
    return sum(min(chunk, prompt_len - k * chunk) * min((k + 1) * chunk, prompt_len) for k in range(chunks)) * heads * layers
""",
    "cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    prefill = chunk * chunk * full * (full + 1) // 2 + rest * prompt_len
    if new_tokens == 0:
        return layers * heads * prefill
    # keys prompt_len + 1 .. prompt_len + new_tokens - 1, an arithmetic series (one factor is even)
    return layers * heads * (prefill + (new_tokens - 1) * (2 * prompt_len + new_tokens) // 2)
""",
    "packed_masks": """
def packed_masks(src_segments, tgt_segments):
    s_q = torch.where(src_segments == 0, -1, src_segments)   # new tensors: the inputs stay as they are
    t_q = torch.where(tgt_segments == 0, -2, tgt_segments)
    t = tgt_segments.shape[1]
    src_allowed = s_q[:, :, None] == src_segments[:, None, :]
    tgt_allowed = (t_q[:, :, None] == tgt_segments[:, None, :]).tril()
    cross_allowed = t_q[:, :, None] == src_segments[:, None, :]
    return src_allowed, tgt_allowed, cross_allowed
""",
    "sandwich": """
def centred_rms(h, weight, bias):   # LayerNorm = Part 1's RMSNorm of the centred vector, plus the bias
    return rms_norm(h - h.mean(dim=-1, keepdim=True), weight, eps=1e-5) + bias

def _sublayer(y, norms, p, block):
    return y + centred_rms(block(centred_rms(y, *p[norms[0]])), *p[norms[1]])

def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = _sublayer(y, ("pre1", "post1"), p, lambda h: mha(h, None, self_allowed, p["self_attn"]))
    y = _sublayer(y, ("pre2", "post2"), p, lambda h: mha(h, memory, memory_allowed, p["cross_attn"]))
    return _sublayer(y, ("pre3", "post3"), p, lambda h: feed_forward(h, p["ff"]))
""",
    "cached_attention": """
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    w = params["w_qkv"].view(3, NUM_HEADS, dh, d)
    bias = params["b_qkv"].view(3, NUM_HEADS, 1, dh)
    q, k, v = (torch.einsum("bnd,hed->bhne", x_new, w[i]) + bias[i] for i in range(3))
    if cache:
        k = torch.cat((cache["k"], k), 2)
        v = torch.cat((cache["v"], v), 2)
    cache.update(k=k, v=v)
    past = k.shape[2] - n
    outs = []
    for i in range(n):   # one new position at a time, each over the keys up to itself
        upto = past + i + 1
        scores = torch.einsum("bhe,bhse->bhs", q[:, :, i], k[:, :, :upto]) / dh ** 0.5
        outs.append(torch.einsum("bhs,bhse->bhe", scores.softmax(-1), v[:, :, :upto]))
    heads = torch.stack(outs, dim=2)                       # (B, H, n, Dh)
    return torch.einsum("bhne,ohe->bno", heads, params["w_o"].view(d, NUM_HEADS, dh)) + params["b_o"]
""",
}

CORRECT_VARIANTS = {"float64_sdpa_broadcast": DIFFERENT_BUT_CORRECT, "loops_and_einsum": LOOPS_AND_EINSUM}

# Mutants of independent parts graded together, one submission per batch: a part that may call another
# part's function calls a reference of it (Parts 3 (b), 5 and 6 bind them), so members cannot break each other's tests (packed by tests/mutant_batches.py, one mutant per answer
# cell; tests/test_exercises.py checks that every batch loses exactly its members' tests).
# Round 15 class sweep (ch02's class, state kept between calls): Part 4 had no repeated call of one T and no scribble.
# A causal mask kept per T and ANDed in place by a batch of one row; and, where one pair fills every row, the kept
# causal mask handed out (a view the caller may write into). Caught by B = 1 then B = 2 calls of one T, each result
# written into and the call made again
MUTANTS["packed_kept_causal_anded_in_place_for_one_row"] = ("test_packed_masks", {"packed_masks": """
CAUSAL = {}

def packed_masks(src_segments, tgt_segments):
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    t = tgt_segments.shape[1]
    if t not in CAUSAL:
        CAUSAL[t] = torch.ones(t, t, dtype=torch.bool).tril()
    causal = CAUSAL[t]
    if tgt_segments.shape[0] == 1:  # one row: no new mask needed
        causal &= same_tgt[0]
        tgt = causal[None]
    else:
        tgt = same_tgt & causal
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, tgt, cross
"""})
MUTANTS["packed_one_pair_returns_the_kept_causal_mask"] = ("test_packed_masks", {"packed_masks": """
CAUSAL = {}

def packed_masks(src_segments, tgt_segments):
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    b, t = tgt_segments.shape
    if t not in CAUSAL:
        CAUSAL[t] = torch.ones(t, t, dtype=torch.bool).tril()
    if tgt_segments.numel() and bool((tgt_segments == 1).all()):  # one pair fills every row: plain causal
        tgt = CAUSAL[t].expand(b, t, t)
    else:
        tgt = same_tgt & CAUSAL[t]
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, tgt, cross
"""})
# Round 15 class sweep (ch09's class, a mask value that is not -inf): torch.finfo(dtype).min ties with scores of that
# lowest finite value (a mask of -1e9 is caught by the same case, where it beats them). Caught by _check_lowest_scores
MUTANTS["cached_mask_finfo_min"] = ("test_cached_attention", {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    allowed = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    weights = torch.softmax(scores.masked_fill(~allowed, torch.finfo(scores.dtype).min), dim=-1)
    return (weights @ v).transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
"""})
# Round 15 class sweep (ch01's class, a constant at a special value): rows of zeros returned as zeros through
# torch.where; right values, no gradient there (the exact gradient is weight / sqrt(eps)). Caught by a zero row
MUTANTS["rms_zero_rows_returned_as_zeros"] = ("test_rms_norm", {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = x32.pow(2).mean(dim=-1, keepdim=True)
    out = torch.where(ms > 0, x32 * torch.rsqrt(ms + eps), torch.zeros_like(x32))  # a zero row stays zero
    return (out * weight.to(x32.dtype)).to(x.dtype)
"""})

# Round 15 class sweep, second pass (chapters 6 and 7's class: a result written into a buffer kept per shape): each
# part that returns tensors copies its results into output tensors kept per shape and returns those, so the next call
# of the same shape overwrites what the caller still holds. Caught by two problems of one shape in turn, the first
# result compared again after the second call


MUTANTS["rms_kept_output_buffer"] = ("test_rms_norm", {"rms_norm": kept_output_buffer(rms(_RMS_FLOAT32 +
    "    return (x32 * torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.to(x32.dtype)).to(x.dtype)"),
    "rms_norm", "x, weight, eps=1e-6", "x, weight, eps")})
MUTANTS["packed_kept_output_buffers"] = ("test_packed_masks", {"packed_masks": kept_output_buffer(
    LOOPS_AND_EINSUM["packed_masks"], "packed_masks", "src_segments, tgt_segments", "src_segments, tgt_segments")})
MUTANTS["sandwich_kept_output_buffer"] = ("test_sandwich", {"sandwich": kept_output_buffer(
    sandwich(_SW1 + _SW2 + _SW3), "sandwich_decoder_layer", "y, memory, self_allowed, memory_allowed, p",
    "y, memory, self_allowed, memory_allowed, p")})
MUTANTS["cached_kept_output_buffer"] = ("test_cached_attention", {"cached_attention": kept_output_buffer(
    cached(_OFFSET_MASK), "cached_self_attention", "x_new, params, cache", "x_new, params, cache")})

MUTANT_BATCHES = [
    ["rms_half_arithmetic_scaled", "params_with_biases", "prefill_counts_only_causal_pairs", "request_one_step_per_token", "masks_target_padding_unchecked", "sandwich_normalises_memory", "cached_mask_precomputed_to_128"],
    ["rms_half_squares_overflow", "params_stacks_swapped", "prefill_ignores_chunk", "request_step_excludes_own_key", "masks_one_hot_int64_only", "sandwich_always_causal", "cached_keys_without_bias"],
    ["rms_flattens_with_view", "params_ungated_ffn", "prefill_own_keys_only", "request_minus_one_step_at_zero", "masks_float", "sandwich_ignores_memory_mask", "cached_calls_mha_captured_as_default"],
    ["rms_divides_x_in_place", "params_decoder_two_norms", "prefill_last_chunk_padded", "request_prefill_unchunked", "masks_causal_cached_to_256", "sandwich_mask_in_place", "cached_exp_without_the_maximum"],
    ["rms_ignores_eps", "params_returns_float", "prefill_float_division", "request_lesson_count", "masks_renumber_padding_in_place", "sandwich_adds_entry_to_p", "cached_state_in_global"],
    ["rms_eps_keyword_only", "prefill_int_of_float", "request_float_division", "masks_uint8_segments", "sandwich_own_causal_mask", "cached_folds_scale_into_params"],
    ["rms_scale_under_no_grad", "prefill_int64_tensor", "request_int64_tensor", "cached_params_gain_split_weights", "masks_reseed_global_generator",
     "sandwich_mask_made_causal_in_place"],  # round 12, class sweep,
    ["prefill_arguments_renamed", "request_arguments_renamed", "cached_position_counter",
     "sandwich_self_attention_detached",  # session 17 sweep
     "masks_one_hot_sized_by_max", "rms_zero_rows_returned_as_zeros"],  # round 12, class sweep
    ["prefill_forgets_heads", "cached_cache_in_float64", "sandwich_post_norm_weight_detached", "packed_kept_causal_anded_in_place_for_one_row"],  # session 17 sweep
    ["prefill_lying_int", "cached_exp_masked_after",
     "rms_eps_outside_root_with_sandwich_calling_it", "packed_one_pair_returns_the_kept_causal_mask"],  # round 11, second pass: no other member changes Parts 1 or 5
    # round 11, class sweep: every batch above holds a Part 6 mutant
    ["cached_square_mask_sliced", "sandwich_weight_replaced_by_view"],  # red team 13: the sandwich mutant
    ["cached_cache_extended_by_padded_sum",
     "rms_kept_output_buffer", "packed_kept_output_buffers", "sandwich_kept_output_buffer"],  # round 15, second pass
    # round 12, class sweep: every batch above holds a Part 6 mutant
    ["cached_heads_split_with_minus_one", "params_int_of_rounded_float", "sandwich_clamps_stream", "rms_clamps_x"],  # + red team 17
    # red team 13: every batch above holds a Part 6 mutant
    ["cached_params_entry_replaced_by_view"],
    # round 15 class sweep: every batch above holds a Part 6 mutant; with one graded alone before
    ["cached_mask_finfo_min", "prefill_chunks_counted_with_float_ceil"],
    # round 15 class sweep, second pass: every batch above holds a Part 6 mutant
    ["cached_kept_output_buffer"],
    # red team 17: every batch above holds a Part 6 mutant
    ["cached_positions_in_float16"],
]


# Red team 18 (four blind helpers: the type-sloppy, the autograd-careless, the stateful and the dtype generaliser):
# the slips of this chapter, each class closed by a hidden check; "free" puts a mutant into the first batch with room
RED_TEAM_18 = {
    # P1, autograd-careless: a single vector's mean square through .item() (right values, no gradient through the
    # norm). Caught by the gradients of (D,), (1, D) and (1, 1, D) vectors
    "rms_single_vector_through_item": ("test_rms_norm", {"rms_norm": rms(_RMS_FLOAT32 +
        "    ms = x32.pow(2).mean(-1, keepdim=True)\n"
        "    scale = 1.0 / math.sqrt(ms.item() + eps) if ms.numel() == 1 else torch.rsqrt(ms + eps)\n"
        "    return (x32 * scale * weight.to(x32.dtype)).to(x.dtype)")}),
    # P1, stateful: the weight converted once and kept by id(): an optimiser's in-place step (same object, new values)
    # is not seen. Caught by one weight stepped in place between calls, in every dtype
    "rms_weight_kept_by_id": ("test_rms_norm", {"rms_norm": "\nWEIGHTS = {}\n" + rms(_RMS_FLOAT32 +
        "    key = (id(weight), x32.dtype)\n"
        "    if key not in WEIGHTS:\n        WEIGHTS[key] = weight.to(x32.dtype)\n"
        "    return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps) * WEIGHTS[key]).to(x.dtype)")}),
    # P1, autograd-careless: requires_grad_() on the caller's weight. Caught by the flags checked after the call
    "rms_sets_requires_grad_on_weight": ("test_rms_norm", {"rms_norm": rms(_RMS_FLOAT32 +
        "    if weight.is_leaf and not weight.requires_grad:\n        weight.requires_grad_()  # a weight is trained\n"
        "    return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps) * weight.to(x32.dtype)).to(x.dtype)")}),
    # P4, type-sloppy: equal source and target segments, the cross mask returned as the source mask itself (one tensor
    # for two results). Caught by equal segments, each mask written into and the others checked
    "packed_cross_is_src_when_segments_equal": ("test_packed_masks", {"packed_masks": masks(
        "    a = b = src_segments\n    src = " + _SAME + " & (a != 0)[:, :, None]\n"
        "    if tgt_segments.shape == src_segments.shape and torch.equal(tgt_segments, src_segments):\n"
        "        cross = src  # the same pairs on both sides\n"
        "    else:\n"
        "        a = tgt_segments\n        cross = " + _SAME + " & (a != 0)[:, :, None]\n"
        "    a = b = tgt_segments\n    tgt = " + _SAME + " & (a != 0)[:, :, None] & causal\n"
        "    return src, tgt, cross")}),
    # P5, autograd-careless: requires_grad_() on the caller's y "so that gradients flow". Caught by the flags
    "sandwich_sets_requires_grad_on_y": ("test_sandwich", {"sandwich": sandwich(
        "    if not y.requires_grad:\n        y.requires_grad_()\n" + _SW1 + _SW2 + _SW3)}),
    # P6, stateful: keys and values kept in buffers grown by doubling and written in place; cache['k'] a view of them.
    # Every value right; the first block's output can no longer be differentiated once a later block wrote the buffer.
    # Caught by the gradients through several blocks
    "cached_kv_in_growing_buffer": ("test_cached_attention", {"cached_attention": cached(_OFFSET_MASK,
        store="""    old = k.shape[2] - n
    buf = cache.get("buf")
    if buf is None or buf[0].shape[2] < old + n or buf[0].shape[0] != b or buf[0].dtype != k.dtype:
        size = max(2 * (old + n), 16)
        buf = cache["buf"] = (k.new_zeros(b, NUM_HEADS, size, dh), v.new_zeros(b, NUM_HEADS, size, dh))
    buf[0][:, :, :old + n] = k
    buf[1][:, :, :old + n] = v
    k, v = buf[0][:, :, :old + n], buf[1][:, :, :old + n]
    cache['k'], cache['v'] = k, v
""")}),
}
MUTANTS.update(RED_TEAM_18)
for _name in RED_TEAM_18:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, None if _name == "cached_kv_in_growing_buffer" else "free")


# Red team 18, class sweep (tests/redteam/round18/05-sweep.py): the classes other chapters' helpers found, put into this
# chapter's model answers. Every batch already holds a Part 6 mutant, so Part 6's backward() inside (caught by the
# same .grad check, 05-sweep-after.txt) has no mutant here: the suite is near its time limit and gets no new batch
SWEEP_18 = {
    # P1, chapter 9's class: backward() run inside, filling the .grad of the caller's leaves (values and the test's
    # autograd.grad unchanged thanks to retain_graph). Caught by .grad None after the gradient cases
    "rms_runs_backward_inside": ("test_rms_norm", {"rms_norm": rms(_RMS_FLOAT32 +
        "    out = (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps) * weight.to(x32.dtype)).to(x.dtype)\n"
        "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)  # check that the graph works\n"
        "    return out")}),
    # P4, chapters 7 and 8's class: the three masks returned as a list. Caught by the tuple kind through _plain
    "packed_masks_returns_a_list": ("test_packed_masks", {"packed_masks": masks(
        "    a = b = src_segments\n    src = " + _SAME + " & (a != 0)[:, :, None]\n"
        "    a = tgt_segments\n    cross = " + _SAME + " & (a != 0)[:, :, None]\n"
        "    a = b = tgt_segments\n    tgt = " + _SAME + " & (a != 0)[:, :, None] & causal\n"
        "    return [src, tgt, cross]")}),
    # P5, chapter 9's class: backward() run inside. Caught by .grad None after the gradient cases
    "sandwich_runs_backward_inside": ("test_sandwich", {"sandwich": sandwich(
        _SW1 + _SW2 + _SW3.replace("    return ", "    out = ") +
        "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out")}),
}
MUTANTS.update(SWEEP_18)
for _name in SWEEP_18:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")


# Red team 19 (four blind helpers: the off-by-one, the padding and reduction, the paper reader and the numerically
# naive student): the slips of this chapter, each class closed by a hidden check; "free" puts a mutant into the first
# batch with room. Part 6's slip (an additive mask of torch.finfo(dtype).min, Hugging Face's way, which a masked key
# scoring far above the lowest visible scores survives) is caught by _check_lowest_scores' second case; every batch
# already holds a Part 6 mutant, so its mutant (cached_adds_finfo_min_mask, below) has a new batch of its own
RED_TEAM_19 = {
    # P4, numerically naive: the number of pairs from the segments' .max(), guarded for an empty batch only; rows of no
    # positions (T = 0 or S = 0 with B > 0) raise. Caught by the cases of two rows with T = 0 and with S = 0
    "masks_one_hot_sized_by_max_rows_unchecked": ("test_packed_masks", {"packed_masks": masks(
        "    if src_segments.shape[0] == 0:\n"
        "        s = src_segments.shape[1]\n"
        "        return (torch.zeros(0, s, s, dtype=torch.bool), torch.zeros(0, t, t, dtype=torch.bool),\n"
        "                torch.zeros(0, t, s, dtype=torch.bool))\n"
        "    k = int(max(src_segments.max(), tgt_segments.max()))\n"
        "    so = F.one_hot(src_segments.long(), k + 1)[..., 1:].float()\n"
        "    to = F.one_hot(tgt_segments.long(), k + 1)[..., 1:].float()\n"
        "    return so @ so.transpose(1, 2) > 0.5, (to @ to.transpose(1, 2) > 0.5) & causal, to @ so.transpose(1, 2) > 0.5")}),
    # P5, numerically naive: the LayerNorms written out with the variance as E[x^2] - E[x]^2, which cancels on a stream
    # of entries about 1e5 with a spread of about 1. Caught by _check_sandwich_large's offset stream
    "sandwich_layer_norm_moments": ("test_sandwich", {"sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, weight, bias):
        mean = x.mean(-1, keepdim=True)
        var = (x * x).mean(-1, keepdim=True) - mean * mean  # E[x^2] - E[x]^2, biased like the lesson's
        return (x - mean) / torch.sqrt(var + 1e-5) * weight + bias
    y = y + ln(mha(ln(y, *p['pre1']), None, self_allowed, p['self_attn']), *p['post1'])
    y = y + ln(mha(ln(y, *p['pre2']), memory, memory_allowed, p['cross_attn']), *p['post2'])
    return y + ln(feed_forward(ln(y, *p['pre3']), p['ff']), *p['post3'])
"""}),
    # P4, padding and reduction (phase 2): padding found from each row's count of real positions, as if it sat at
    # the end of the row. Caught by rows with padding at their start and between pairs
    "masks_padding_from_row_counts": ("test_packed_masks", {"packed_masks": masks(
        "    def real(seg):\n"
        "        return torch.arange(seg.shape[1])[None, :] < (seg != 0).sum(1, keepdim=True)\n"
        "    a = b = src_segments\n    src = " + _SAME + " & real(a)[:, :, None]\n"
        "    a, b = tgt_segments, src_segments\n    cross = " + _SAME + " & real(a)[:, :, None]\n"
        "    a = b = tgt_segments\n    tgt = " + _SAME + " & real(a)[:, :, None] & causal\n"
        "    return src, tgt, cross")}),
}
MUTANTS.update(RED_TEAM_19)
for _name in RED_TEAM_19:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")


# Round 19 class sweep (tests/redteam/round19/05-sweep.py): the classes other chapters' helpers found, put into this
# chapter's model answers; "free" puts each into an existing batch with room. Part 6's (a (past + n) x (past + n) mask
# built for blocks of more than one: cached_square_mask_unless_one, below) has a new batch, as every batch holds a
# Part 6 mutant
ROUND_19_SWEEP = {
    # P4, class C (ch02: a rounding boundary tested at one alignment): causal positions kept in float16, counted from
    # 1; caught by one target pair of 2060 positions (a float16 row past 2048 within one pair)
    "masks_positions_float16_from_one": ("test_packed_masks", {"packed_masks": """
def packed_masks(src_segments, tgt_segments):
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    pos = torch.arange(1, tgt_segments.shape[1] + 1, dtype=torch.float16)
    causal = pos[None, :] <= pos[:, None]
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, same_tgt & causal, cross
"""}),
}
MUTANTS.update(ROUND_19_SWEEP)
for _name in ROUND_19_SWEEP:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")


# Round 19's two Part 6 mutants that had no batch (every batch above holds a Part 6 mutant): each gets a new batch,
# which, like every batch but batch_0, runs as a plain process (tests/cellrun.py), not as an nbgrader notebook
from grading import replaced as _replaced, solution_code as _solution_code  # noqa: E402

_CACHED_MODEL = _solution_code(CHAPTER)["cached_attention"]
ROUND_19_PART_6 = {
    # tests/redteam/round19/05-verdicts.md, 1 (paper_p6_finfo_min_mask): Hugging Face's additive mask, finfo(dtype).min
    # added to the masked scores (through scaled_dot_product_attention's float attn_mask); a masked key scoring far
    # above the visible ones survives it. Caught by _check_lowest_scores' second case
    "cached_adds_finfo_min_mask": ("test_cached_attention", {"cached_attention": _replaced(
        _CACHED_MODEL,
        '    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)\n'
        '    heads = weights @ v',
        '    bias = torch.zeros(allowed.shape, dtype=q.dtype, device=q.device).masked_fill(~allowed, torch.finfo(q.dtype).min)\n'
        '    heads = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)', once=True)}),
    # tests/redteam/round19/05-sweep-verdicts.md, 2 (E_p6_square_mask_unless_one): no mask for a block of one, a
    # (past + n) x (past + n) mask sliced to the block's rows otherwise. Caught by the block of two after the 10**6 cache
    "cached_square_mask_unless_one": ("test_cached_attention", {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    if n > 1:  # a single new position sees every key: no mask needed
        allowed = torch.ones(past + n, past + n, dtype=torch.bool).tril()[past:]
        scores = scores.masked_fill(~allowed, float("-inf"))
    heads = torch.softmax(scores, dim=-1) @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
"""}),
}
MUTANTS.update(ROUND_19_PART_6)
place_mutants(MUTANTS, MUTANT_BATCHES, ROUND_19_PART_6, "new")


# Red team 20 (tests/redteam/round20/05-verdicts.md): the early-exit and the aliasing student. A shortcut for a
# degenerate input (an empty batch, x all zeros, a weight of ones, T = 1) that returns an input itself, drops the
# graph or drops a mask. "free" puts each into an existing batch with room; one that finds none runs alone
RED_TEAM_20 = {
    # an empty x returned as it is (no values to get wrong)
    "rms_empty_input_returned": ("test_rms_norm", {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    if x.numel() == 0:
        return x  # nothing to normalise
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        return (xf * torch.rsqrt(xf.square().mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps) * weight
"""}),
    # x all zeros answered by zeros_like: no gradient (weight / sqrt(eps) with respect to x)
    "rms_all_zero_input_shortcut": ("test_rms_norm", {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    if not bool(x.any()):
        return torch.zeros_like(x)     # 0 / sqrt(eps) * w = 0
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        return (xf * torch.rsqrt(xf.square().mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps) * weight
"""}),
    # a weight of ones skipped: no gradient with respect to it
    "rms_unit_weight_skipped": ("test_rms_norm", {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    out = xw * torch.rsqrt(xw.square().mean(-1, keepdim=True) + eps)
    if bool((weight == 1).all()):     # a freshly initialised weight: nothing to scale
        return out.to(x.dtype)
    return (out * weight.to(work)).to(x.dtype)
"""}),
    # T = 1 drops self_allowed, which may hide a padded row's only position
    "sandwich_t1_drops_self_mask": ("test_sandwich", {"sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if y.shape[1] == 1:
        self_allowed = None       # one position: causality is trivial
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
"""}),
    # an empty batch returned as y itself
    "sandwich_empty_batch_returns_y": ("test_sandwich", {"sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if y.shape[0] == 0 or y.shape[1] == 0:
        return y                  # nothing to do
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
"""}),
    # an empty batch's output returned as x_new itself
    "cached_empty_batch_returns_x_new": ("test_cached_attention", {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; Dh = D // H
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    if B == 0:
        return x_new      # (0, n, D) already
    past = k.shape[2] - n
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
"""}),
}
MUTANTS.update(RED_TEAM_20)
RED_TEAM_20_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, RED_TEAM_20, "alone")

# Red team 21, rename sweep (tests/redteam/round21/BRIEF-RENAME.md, rename/05-*.txt): the model answer with every
# parameter renamed (the signature-and-defaults student's renamed argument; `x` becomes `x_`, then bound back to the
# stub's name on the first line) gives the right values to every positional call, and these four parts' hidden tests
# passed no required argument by name. Each now calls its function once with every argument by name, in the reverse of
# the stub's order, on a case of its own; the introduction says every argument is passed by name in some calls.
from grading import renamed_parameters, replaced as _replaced, solution_code as _solution_code  # noqa: E402

_MODEL_21 = _solution_code(CHAPTER)


def _renamed_all(cell, name, params):
    """The model answer of `cell` with every parameter of `name` renamed (grading.renamed_parameters)."""
    return renamed_parameters(_MODEL_21[cell], name, params)


RED_TEAM_21_RENAME = {
    "params_renames_every_argument": ("test_modern_params", {"modern_params": _renamed_all(
        "modern_params", "modern_params", ["vocab", "d_model", "d_ff", "n_enc", "n_dec"])}),
    "masks_renames_every_argument": ("test_packed_masks", {"packed_masks": _renamed_all(
        "packed_masks", "packed_masks", ["src_segments", "tgt_segments"])}),
    "sandwich_renames_every_argument": ("test_sandwich", {"sandwich": _renamed_all(
        "sandwich", "sandwich_decoder_layer", ["y", "memory", "self_allowed", "memory_allowed", "p"])}),
    "cached_renames_every_argument": ("test_cached_attention", {"cached_attention": _renamed_all(
        "cached_attention", "cached_self_attention", ["x_new", "params", "cache"])}),
}
MUTANTS.update(RED_TEAM_21_RENAME)
RED_TEAM_21_RENAME_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, RED_TEAM_21_RENAME, "alone")
# cached_renames_every_argument: every batch holds a Part 6 mutant, so it runs alone in a plain process

# Red team 21, rename sweep, second pass (`rename_sweep.py --one`, rename/05-one-*.txt): one parameter renamed at a time
# kept Part 1's points with `x` or `weight` renamed, since only `eps` was ever passed by name. Part 1 now calls
# rms_norm(eps=..., weight=..., x=...) once, compared with the reference; the introduction names `weight=`
MUTANTS["rms_renames_weight"] = ("test_rms_norm", {"rms_norm": _replaced(
    _MODEL_21["rms_norm"], "def rms_norm(x, weight, eps=1e-6):\n",
    "def rms_norm(x, w, eps=1e-6):\n    weight = w  # the formula's w\n", once=True)})
RED_TEAM_21_RENAME_ALONE += place_mutants(MUTANTS, MUTANT_BATCHES, ["rms_renames_weight"], "alone")

# Red team 22 (tests/redteam/round22/05-verdicts.md), the rounding-and-integer student: eps made a tensor in the input's
# dtype "to keep every constant in it" (1e-6 is 1.013e-6 in float16), then the float32 work and one rounding. It kept
# Part 1's points: the half-precision cases had no values whose mean square is about eps (values of about 1e-3); a
# float16 case there now sees it several units in the last place off
RED_TEAM_22 = {
    "rms_eps_rounded_to_input_dtype": ("test_rms_norm", {"rms_norm": _replaced(
        _MODEL_21["rms_norm"], "+ eps)", "+ torch.tensor(eps, dtype=x.dtype).to(x32.dtype))", once=True)}),
}
MUTANTS.update(RED_TEAM_22)
RED_TEAM_22_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, RED_TEAM_22, "alone")

# Red team 25 (tests/redteam/round25/05-verdicts.md), the notebook-state student: a table of positions made once at the
# top of the cell for the sizes the student expected (torch.arange(1 << 20)) and sliced per call kept Part 6's points:
# the largest cache was 10**6 positions, under 2**20, while the text promises only past + n below 2**24. The cache of
# the caller-filled case is now 1,049,000 positions (past 2**20 and 10**6), where such a table is short and raises
RED_TEAM_25 = {
    "cached_positions_from_a_table_of_2_to_20": ("test_cached_attention", {"cached_attention": _replaced(_replaced(
        "\nPOSITIONS = torch.arange(1 << 20)  # made once: a million positions is plenty\n" + _MODEL_21["cached_attention"],
        "    rows = torch.arange(past, past + n, device=x_new.device)[:, None]\n",
        "    rows = POSITIONS[past:past + n][:, None]\n", once=True),
        "    cols = torch.arange(past + n, device=x_new.device)[None, :]\n",
        "    cols = POSITIONS[:past + n][None, :]\n", once=True)}),
}
MUTANTS.update(RED_TEAM_25)
RED_TEAM_25_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, RED_TEAM_25, "alone")

# Red team 25 class sweep (tests/redteam/round25/05-sweep-verdicts.md), class L (a table sized below the text's limit):
# a causal table of 4096 x 4096 made once and sliced per call kept Part 4's points (the longest target row was 2100,
# and the text sets no limit on T). A target row of 4097 positions is now longer than such a table
SWEEP_25 = {
    "packed_causal_from_a_table_of_4096": ("test_packed_masks", {"packed_masks": _replaced(
        "\nCAUSAL = torch.ones(4096, 4096, dtype=torch.bool).tril()  # made once: 4096 positions is plenty\n"
        + _MODEL_21["packed_masks"],
        "    causal = torch.ones(t, t, dtype=torch.bool, device=tgt_segments.device).tril()\n",
        "    causal = CAUSAL[:t, :t]\n", once=True)}),
}
MUTANTS.update(SWEEP_25)
assert not place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_25), "alone")  # into an existing batch (17)

# Red team 26 (tests/redteam/round26/05-verdicts.md), the squeeze-and-broadcast student: squeeze() with no dim, then an
# unsqueeze, is right wherever the only size-1 axis is a batch of one, and lines up with another axis where a size-1 axis
# sits beside one of more than one. Part 1 had no (B, 1, D) input with B > 1 (a mean square (B, 1, 1) squeezed to (B,)
# and unsqueezed to (B, 1) broadcasts (B, 1, D) to (B, B, D)), Part 4 no row of one position in a batch of several (the
# query-validity mask (B, 1) squeezed to (B,)), Part 5 no memory of one position beside a batch of several. Each part now
# has such cases: (3, 1, 8), (2, 1, 4, 6), (1, 4, 1, 6) and (5, 1) inputs; S = 1 and T = 1 in a batch of three; S = 1
# with memory_allowed (3, 1, 1)
RED_TEAM_26 = {
    "rms_mean_square_squeezed_with_no_dim": ("test_rms_norm", {"rms_norm": _replaced(
        _MODEL_21["rms_norm"], "inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)",
        "inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True).squeeze() + eps).unsqueeze(-1)", once=True)}),
    "packed_query_validity_squeezed_with_no_dim": ("test_packed_masks", {"packed_masks": """
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    s_q = (s != 0).squeeze().unsqueeze(-1)    # (B, S, 1) query is real
    t_q = (t != 0).squeeze().unsqueeze(-1)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & s_q
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & t_q & causal
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & t_q
    return src, tgt, cross
"""}),
    "sandwich_memory_mask_squeezed_one_dim_read_as_one_row": ("test_sandwich", {"sandwich": _replaced(
        _MODEL_21["sandwich"], "    y = y + layer_norm(mha(layer_norm(y, *p[\"pre1\"])",
        "    if memory_allowed is not None:  # back to (B, 1, S) whatever it was\n"
        "        memory_allowed = memory_allowed.squeeze()\n"
        "        memory_allowed = (memory_allowed.reshape(1, 1, -1) if memory_allowed.dim() <= 1\n"
        "                          else memory_allowed[:, None, :])\n"
        "    y = y + layer_norm(mha(layer_norm(y, *p[\"pre1\"])", once=True)}),
}
MUTANTS.update(RED_TEAM_26)
RED_TEAM_26_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_26), "alone")

# Round 26 class sweep (tests/redteam/round26/05-sweep-verdicts.md), class T (an input that starts inside its storage):
# an input rebuilt with torch.as_strided(x, x.shape, x.stride(), 0) (or read by arithmetic from the storage's start) is
# right for every tensor that starts at its storage's start, and every input of Parts 1, 4, 5 and 6 did (the transposed
# and strided ones too). Each part now gets inputs that are slices of bigger tensors, after other values: x and weight
# (Part 1), both segment tensors (Part 4), y, memory and both masks (Part 5), x_new, every parameter and the caller's
# cached keys and values (Part 6). Mutants go into existing batches only: Part 4's found room; Parts 1, 5 and 6's (every
# batch holds one of theirs) are written out in the verdicts instead
SWEEP_26 = {
    "packed_segments_as_strided_from_the_storage_start": ("test_packed_masks", {"packed_masks": from_storage_start(
        _MODEL_21["packed_masks"], "packed_masks", "src_segments", "tgt_segments")}),
}
MUTANTS.update(SWEEP_26)
assert not place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_26), "alone")  # into an existing batch (19)
# The three that no existing batch had room for (written out in the verdicts), in a batch of their own
SWEEP_26_OWN_BATCH = {
    "rms_x_as_strided_from_the_storage_start": ("test_rms_norm", {"rms_norm": from_storage_start(
        _MODEL_21["rms_norm"], "rms_norm", "x")}),
    "sandwich_memory_as_strided_from_the_storage_start": ("test_sandwich", {"sandwich": from_storage_start(
        _MODEL_21["sandwich"], "sandwich_decoder_layer", "memory")}),
    "cached_cache_as_strided_from_the_storage_start": ("test_cached_attention", {"cached_attention": _replaced(
        _MODEL_21["cached_attention"], 'torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)',
        'torch.cat([torch.as_strided(cache["k"], cache["k"].shape, cache["k"].stride(), 0), k], dim=2), '
        'torch.cat([torch.as_strided(cache["v"], cache["v"].shape, cache["v"].stride(), 0), v], dim=2)', once=True)}),
}
MUTANTS.update(SWEEP_26_OWN_BATCH)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_26_OWN_BATCH), "new")

# Round 27 class sweep (tests/redteam/round27/05-sweep-verdicts.md), class V (a floor below every value the hidden cases
# reach): Part 1's (mean square + eps).clamp(min=1e-12) changed nothing while every eps was at least 1e-6; the text now
# says eps may be as small as you like, and a hidden case uses eps = 1e-30 on rows of zeros and of entries near 1e-20
SWEEP_27 = {
    "rms_denominator_floored": ("test_rms_norm", {"rms_norm": _replaced(
        _MODEL_21["rms_norm"], "torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)",
        "torch.rsqrt((x32.pow(2).mean(dim=-1, keepdim=True) + eps).clamp(min=1e-12))", once=True)}),
}
MUTANTS.update(SWEEP_27)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_27), "new")
# Part 6's attention weights floored at 1e-12 (the class chapter 6 Part 7 showed): future positions got 1e-12 of their
# values, within the tolerance while every value was about 1; a hidden case now makes a future position 1e12 larger
SWEEP_27_P6 = {
    "cached_weights_floored": ("test_cached_attention", {"cached_attention": _replaced(
        _MODEL_21["cached_attention"], 'weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)',
        'weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1).clamp(min=1e-12)', once=True)}),
}
MUTANTS.update(SWEEP_27_P6)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_27_P6), "new")


# Red team 28 (tests/redteam/round28/05-verdicts.md), the memoizer and the fallback writer. (1) A count kept between
# calls under a key that leaves out an argument (Part 3 (b)'s chunk taken as a server constant) passed: no two hidden
# calls differed in that argument alone. Parts 2, 3 (a) and 3 (b) now call in turn pairs that differ in one argument,
# for every argument. (2) Part 4's masks kept by id() of the segments passed (ids of fresh tensors rarely came back);
# Part 4 now refills the same segment tensors in place between calls, Part 5 its two mask tensors, Part 6 steps one
# params dict's weights in place between decodes (weights transposed once and kept by id()). (3) A shortcut decided for
# the whole batch: Part 4's padding-only batch answered with three slices of one zero tensor (a write into one shows in
# another), Part 5's sublayer skipped when its mask allows nothing anywhere (mha's zeros still get LN_post's bias): a
# batch of padding only with each mask written into, and masks that allow nothing in the whole batch
RED_TEAM_28 = {
    'params_memo_drops_d_ff': ('test_modern_params', {'modern_params': """
COUNTS = {}
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    key = (vocab, d_model, n_enc, n_dec)
    if key not in COUNTS:
        d = d_model
        COUNTS[key] = 2 * vocab * d + n_enc * (4 * d * d + 3 * d * d_ff + 2 * d) + n_dec * (8 * d * d + 3 * d * d_ff + 3 * d) + 2 * d
    return COUNTS[key]
"""}),
    'prefill_memo_drops_layers': ('test_cache_count_without', {'cache_count_without': """
COUNTS = {}
def prefill_dot_products(prompt_len, chunk, layers, heads):
    key = (prompt_len, chunk, heads)
    if key not in COUNTS:
        full, rest = divmod(prompt_len, chunk)
        COUNTS[key] = layers * heads * (chunk * chunk * full * (full + 1) // 2 + rest * prompt_len)
    return COUNTS[key]
"""}),
    'request_memo_drops_chunk': ('test_cache_count_with', {'cache_count_with': """
COUNTS = {}
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    key = (prompt_len, new_tokens, layers, heads)   # the chunk size of a server never changes
    if key not in COUNTS:
        total = prefill_dot_products(prompt_len, chunk, layers, heads)
        steps = max(new_tokens - 1, 0)
        COUNTS[key] = total + layers * heads * (steps * prompt_len + steps * (steps + 1) // 2)
    return COUNTS[key]
"""}),
    'packed_all_padding_one_zero_tensor': ('test_packed_masks', {'packed_masks': """
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    B, S, T = s.shape[0], s.shape[1], t.shape[1]
    if B > 0 and not bool((s != 0).any()) and not bool((t != 0).any()):   # padding only: nothing may attend
        none = torch.zeros(B, max(S, T), max(S, T), dtype=torch.bool)
        return none[:, :S, :S], none[:, :T, :T], none[:, :T, :S]
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
    pos = torch.arange(T)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & (pos.unsqueeze(-1) >= pos)
    return src, tgt, cross
"""}),
    'packed_memo_by_id': ('test_packed_masks', {'packed_masks': """
MASK_MEMO = {}
def packed_masks(src_segments, tgt_segments):
    key = (id(src_segments), id(tgt_segments), tuple(src_segments.shape), tuple(tgt_segments.shape))
    if key not in MASK_MEMO:
        s, t = src_segments, tgt_segments
        src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
        cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
        pos = torch.arange(t.shape[-1])
        tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & (pos.unsqueeze(-1) >= pos)
        MASK_MEMO[key] = (src, tgt, cross)
    src, tgt, cross = MASK_MEMO[key]
    return src.clone(), tgt.clone(), cross.clone()
"""}),
    'sandwich_skip_cross_when_memory_fully_masked': ('test_sandwich', {'sandwich': """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    if memory_allowed is None or memory_allowed.any():   # nothing to attend to: skip cross-attention
        y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
"""}),
    'sandwich_self_mask_kept_per_shape': ('test_sandwich', {'sandwich': """
SELF_MASKS = {}
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if self_allowed is not None:
        key = tuple(self_allowed.shape)
        if key not in SELF_MASKS:
            SELF_MASKS[key] = self_allowed.clone()      # a layer stack reuses the same mask
        self_allowed = SELF_MASKS[key]
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
"""}),
    'cached_pretransposed_weights_by_id': ('test_cached_attention', {'cached_attention': """
WEIGHTS_T = {}
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    key = (id(params["w_qkv"]), id(params["w_o"]), D, x_new.dtype)
    if key not in WEIGHTS_T:
        if len(WEIGHTS_T) > 64:
            WEIGHTS_T.clear()
        WEIGHTS_T[key] = (params["w_qkv"].t().contiguous(), params["w_o"].t().contiguous())   # x @ W.T made contiguous once
    w_qkv_t, w_o_t = WEIGHTS_T[key]
    qkv = x_new @ w_qkv_t + params["b_qkv"]
    q, k, v = (t.reshape(B, n, H, Dh).transpose(1, 2) for t in qkv.chunk(3, dim=-1))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    past = k.shape[2] - n
    cache["k"], cache["v"] = k, v
    mask = torch.arange(past + n).unsqueeze(0) <= torch.arange(past, past + n).unsqueeze(-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return out.transpose(1, 2).reshape(B, n, D) @ w_o_t + params["b_o"]
"""}),
}
MUTANTS.update(RED_TEAM_28)
place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_28), "new")


# Round 28 class sweep (tests/redteam/round28/05-sweep-verdicts.md). Class Y: a cache keyed on id() and the version
# counter passed every "same objects changed in place" case, which wrote with copy_() or mul_() (they move _version);
# those cases now write through .data and call in a row on the same objects. Class AA: a contiguous or int64 copy kept
# per id() is the input itself for a contiguous int64 input; those cases now pass strided views and int32 ids. Class Z:
# an empty input answered by a new empty tensor without a gradient; the empty cases now differentiate the result
ROUND_28_SWEEP = {
    # Y: the weight converted once per id() and _version (stale after a write through .data)
    'rms_weight_cast_by_id_and_version': ('test_rms_norm', {'rms_norm': '\n\nWEIGHTS = {}\ndef rms_norm(x, weight, eps=1e-6):\n    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n    inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)\n    return (x32 * inv_rms * cast(weight, x32.dtype)).to(x.dtype)\n\ndef cast(weight, dtype):\n    key = (id(weight), weight._version, dtype)\n    if key not in WEIGHTS:\n        WEIGHTS.clear()\n        WEIGHTS[key] = weight.to(dtype)\n    return WEIGHTS[key]\n'}),
    # Z: an empty input answered by torch.empty_like(x), which has no gradient
    'rms_empty_without_gradient': ('test_rms_norm', {'rms_norm': '\ndef rms_norm(x, weight, eps=1e-6):\n    if x.numel() == 0:\n        return torch.empty_like(x)\n    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n    inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)\n    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)\n'}),
    # Y: masks memoized per id() and _version of the segments
    'packed_masks_by_id_and_version': ('test_packed_masks', {'packed_masks': '\n\nMEMO = {}\ndef packed_masks(src_segments, tgt_segments):\n    key = (id(src_segments), src_segments._version, id(tgt_segments), tgt_segments._version,\n           tuple(src_segments.shape), tuple(tgt_segments.shape))\n    if key not in MEMO:\n        MEMO.clear()\n        MEMO[key] = packed_plain(src_segments, tgt_segments)\n    return tuple(m.clone() for m in MEMO[key])\ndef packed_plain(src_segments, tgt_segments):\n    src_real, tgt_real = src_segments != 0, tgt_segments != 0\n    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]\n    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]\n    t = tgt_segments.shape[1]\n    causal = torch.ones(t, t, dtype=torch.bool, device=tgt_segments.device).tril()\n    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]\n    return same_src, same_tgt & causal, cross\n'}),
    # AA: an int64 contiguous copy kept per id(), the input itself for int64 contiguous ids
    'packed_int64_copy_kept_per_id': ('test_packed_masks', {'packed_masks': '\n\nLONG = {}\ndef as_long(x, slot):\n    key = (id(x), tuple(x.shape), x.dtype, x.stride())\n    if LONG.get(slot, (None,))[0] != key:\n        LONG[slot] = (key, x.long().contiguous())\n    return LONG[slot][1]\ndef packed_masks(src_segments, tgt_segments):\n    src_segments, tgt_segments = as_long(src_segments, "src"), as_long(tgt_segments, "tgt")\n    src_real, tgt_real = src_segments != 0, tgt_segments != 0\n    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]\n    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]\n    t = tgt_segments.shape[1]\n    causal = torch.ones(t, t, dtype=torch.bool, device=tgt_segments.device).tril()\n    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]\n    return same_src, same_tgt & causal, cross\n'}),
    # Y: masks copied once per id() and _version
    'sandwich_masks_by_id_and_version': ('test_sandwich', {'sandwich': '\n\nMASKS = {}\ndef prepared(mask):\n    if mask is None:\n        return None\n    key = (id(mask), mask._version, tuple(mask.shape))\n    if key not in MASKS:\n        if len(MASKS) > 8:\n            MASKS.clear()\n        MASKS[key] = mask.clone()\n    return MASKS[key]\ndef sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):\n    self_allowed, memory_allowed = prepared(self_allowed), prepared(memory_allowed)\n    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])\n    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])\n    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])\n'}),
    # Z: an empty batch answered by torch.empty_like(y), which has no gradient
    'sandwich_empty_without_gradient': ('test_sandwich', {'sandwich': '\ndef sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):\n    if y.numel() == 0:\n        return torch.empty_like(y)\n    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])\n    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])\n    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])\n'}),
    # Y: projections split and copied once per id() and _version of the weights
    'cached_weights_by_id_and_version': ('test_cached_attention', {'cached_attention': '\nSPLIT = {}\ndef cached_self_attention(x_new, params, cache):\n    b, n, d = x_new.shape\n    dh = d // NUM_HEADS\n\n    key = (id(params["w_qkv"]), params["w_qkv"]._version, id(params["b_qkv"]), params["b_qkv"]._version)\n    if key not in SPLIT:\n        SPLIT.clear()\n        SPLIT[key] = ([w.clone() for w in params["w_qkv"].chunk(3)], [w.clone() for w in params["b_qkv"].chunk(3)])\n    (w_q, w_k, w_v), (b_q, b_k, b_v) = SPLIT[key]\n    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)\n    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)\n    if "k" in cache:\n        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)\n    cache["k"], cache["v"] = k, v\n    past = k.shape[2] - n\n    rows = torch.arange(past, past + n, device=x_new.device)[:, None]\n    cols = torch.arange(past + n, device=x_new.device)[None, :]\n    allowed = cols <= rows\n    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)\n    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)\n    heads = weights @ v\n    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]\n'}),
    # Z: an empty batch answered by new_zeros, which have no gradient
    'cached_empty_without_gradient': ('test_cached_attention', {'cached_attention': '\ndef cached_self_attention(x_new, params, cache):\n    b, n, d = x_new.shape\n    dh = d // NUM_HEADS\n    if b == 0:\n        past = cache["k"].shape[2] if "k" in cache else 0\n        cache["k"] = x_new.new_zeros(0, NUM_HEADS, past + n, dh)\n        cache["v"] = x_new.new_zeros(0, NUM_HEADS, past + n, dh)\n        return x_new.new_zeros(0, n, d)\n    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)\n    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)\n    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)\n    if "k" in cache:\n        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)\n    cache["k"], cache["v"] = k, v\n    past = k.shape[2] - n\n    rows = torch.arange(past, past + n, device=x_new.device)[:, None]\n    cols = torch.arange(past + n, device=x_new.device)[None, :]\n    allowed = cols <= rows\n    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)\n    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)\n    heads = weights @ v\n    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]\n'}),
}
MUTANTS.update(ROUND_28_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28_SWEEP), "new")


# Red team round 30 (tests/redteam/round30/05-verdicts.md): the validator's in-place 'repair' that keeps the values
# (every tensor a part receives now has its version counter checked), the gradient path cut for half precision only
# (gradients now compared for float16 and bfloat16 inputs too), and settings the grader's check between cells does not
# read (torch.set_num_threads, torch.set_printoptions: _torch_settings in the setup cell, at both ends of every part)

ROUND_30 = {
    # validator: x_new 'repaired' in place, version counter moved
    'cached_x_new_nan_to_num_in_place': ('test_cached_attention', {'cached_attention': '\ndef cached_self_attention(x_new, params, cache):\n    B, n, D = x_new.shape\n    x_new.nan_to_num_()\n    H = NUM_HEADS\n    Dh = D // H\n    w_q, w_k, w_v = params["w_qkv"].chunk(3)\n    b_q, b_k, b_v = params["b_qkv"].chunk(3)\n    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)\n    q = split(F.linear(x_new, w_q, b_q))\n    k = split(F.linear(x_new, w_k, b_k))\n    v = split(F.linear(x_new, w_v, b_v))\n    if "k" in cache:\n        past = cache["k"].shape[2]\n        k = torch.cat([cache["k"], k], dim=2)\n        v = torch.cat([cache["v"], v], dim=2)\n    else:\n        past = 0\n    cache["k"], cache["v"] = k, v\n    qpos = torch.arange(past, past + n, device=x_new.device)\n    kpos = torch.arange(past + n, device=x_new.device)\n    mask = kpos[None, :] <= qpos[:, None]\n    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)\n    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])\n'}),
    # validator: segments 'repaired' in place, values unchanged, version counters moved
    'packed_segments_clamped_in_place': ('test_packed_masks', {'packed_masks': '\ndef packed_masks(src_segments, tgt_segments):\n    src_segments.clamp_(min=0)  # padding ids are never negative\n    tgt_segments.clamp_(min=0)\n    s, t = src_segments.long(), tgt_segments.long()\n    T = t.shape[1]\n    pos = torch.arange(T, device=t.device)\n    causal = pos[None, :] <= pos[:, None]\n    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)\n    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal\n    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)\n    return src, tgt, cross\n'}),
    # second call: the function changes the number of threads
    'prefill_changes_threads_inside': ('test_cache_count_without', {'cache_count_without': '\ndef prefill_dot_products(prompt_len, chunk, layers, heads):\n    torch.set_num_threads(2 if torch.get_num_threads() != 2 else 1)\n    total, s = 0, 0\n    while s < prompt_len:\n        m = min(chunk, prompt_len - s)\n        total += m * (s + m)\n        s += m\n    return total * layers * heads\n'}),
    # gradient path: the scale under no_grad for float16/bfloat16 inputs only
    'rms_half_scale_under_no_grad': ('test_rms_norm', {'rms_norm': '\ndef rms_norm(x, weight, eps=1e-6):\n    if x.dtype in (torch.float16, torch.bfloat16):\n        with torch.no_grad():  # only a scale: keep the float32 copy out of the graph to save memory\n            inv = torch.rsqrt(x.float().pow(2).mean(dim=-1, keepdim=True) + eps)\n        return (x.float() * inv * weight.float()).to(x.dtype)\n    ms = x.pow(2).mean(dim=-1, keepdim=True)\n    return x * torch.rsqrt(ms + eps) * weight\n'}),
    # validator: the weight 'repaired' in place (nan_to_num_ changes nothing), version counter moved
    'rms_weight_nan_to_num_in_place': ('test_rms_norm', {'rms_norm': '\ndef rms_norm(x, weight, eps=1e-6):\n    torch.nan_to_num_(weight)  # a weight loaded from disk may hold NaN\n    ct = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype\n    xf = x.to(ct)\n    ms = xf.pow(2).mean(dim=-1, keepdim=True)\n    return (xf * torch.rsqrt(ms + eps) * weight.to(ct)).to(x.dtype)\n'}),
    # second call: print options left changed
    'sandwich_leaves_print_options_changed': ('test_sandwich', {'sandwich': '\ndef sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):\n    torch.set_printoptions(precision=10, sci_mode=False)  # left from debugging\n    h = layer_norm(y, *p["pre1"])\n    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])\n    h = layer_norm(y, *p["pre2"])\n    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])\n    h = layer_norm(y, *p["pre3"])\n    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])\n'}),
}
MUTANTS.update(ROUND_30)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30), "new")


# Round 30 class sweep (tests/redteam/round30/05-sweep-verdicts.md), class AL from chapter 9: a converted copy of an
# input kept per id() (the original kept alive beside it), unseen where every same-object case was float64, its own
# conversion; now float32 (and float16, bfloat16 where the part takes them) same objects through .data and set_
ROUND_30_SWEEP = {
    # AL: float64 copies of memory and of the parameters kept per id()
    'sandwich_memory_params_float64_kept_per_id': ('test_sandwich', {'sandwich': '\nCONVERTED = {}\ndef converted(t):\n    kept = CONVERTED.get(id(t))\n    if kept is None or kept[0] is not t:  # the original is kept alive with its copy, so its id() is never reused\n        kept = CONVERTED[id(t)] = (t, t.to(torch.float64))\n    return kept[1]\ndef conv_p(p):\n    return {name: (converted(v) if torch.is_tensor(v) else\n                   tuple(converted(t) for t in v) if isinstance(v, (tuple, list)) else\n                   {key: converted(t) for key, t in v.items()})\n            for name, v in p.items()}\ndef sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):\n    dtype = y.dtype\n    p = conv_p(p)\n    memory = converted(memory)\n    y = y.to(torch.float64)\n    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])\n    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])\n    return (y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])).to(dtype)\n'}),
    # AL: float64 copies of the weights kept per id() (the same-object case was float64, its own copy)
    'cached_weights_float64_kept_per_id': ('test_cached_attention', {'cached_attention': '\nCONVERTED = {}\ndef converted(t):\n    kept = CONVERTED.get(id(t))\n    if kept is None or kept[0] is not t:  # the original kept alive with its copy: its id() is never reused\n        kept = CONVERTED[id(t)] = (t, t.to(torch.float64))\n    return kept[1]\ndef cached_self_attention(x_new, params, cache):\n    b, n, d = x_new.shape\n    dh = d // NUM_HEADS\n    (w_q, w_k, w_v), (b_q, b_k, b_v) = converted(params["w_qkv"]).chunk(3), converted(params["b_qkv"]).chunk(3)\n    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)\n    x64 = x_new.to(torch.float64)\n    q, k, v = split(x64 @ w_q.T + b_q), split(x64 @ w_k.T + b_k), split(x64 @ w_v.T + b_v)\n    k, v = k.to(x_new.dtype), v.to(x_new.dtype)\n    if "k" in cache:\n        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)\n    cache["k"], cache["v"] = k, v\n    past = k.shape[2] - n\n    rows = torch.arange(past, past + n)[:, None]\n    cols = torch.arange(past + n)[None, :]\n    scores = q @ k.to(torch.float64).transpose(-2, -1) / math.sqrt(dh)\n    weights = torch.softmax(scores.masked_fill(~(cols <= rows), float("-inf")), dim=-1)\n    heads = weights @ v.to(torch.float64)\n    return (heads.transpose(1, 2).reshape(b, n, d) @ converted(params["w_o"]).T + converted(params["b_o"])).to(x_new.dtype)\n'}),
}
MUTANTS.update(ROUND_30_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")


# Round 31 class sweep (tests/redteam/round31/05-sweep.md), class AO: a setting changed inside a function and put back
# as the default (or as the value found when the cell ran), not as the function found it. Every hidden call ran with the
# defaults on, so nothing was left changed; each part now also hands its function to _settings_kept, which calls it with
# every setting away from its default. One mutant per part, a different setting in each
_M31 = _solution_code(CHAPTER)


ROUND_31_SWEEP = {
    'rms_default_dtype_put_back_float32': ('test_rms_norm', {'rms_norm': around_body(
        _M31["rms_norm"], "torch.set_default_dtype(torch.float64)  # anything made here in double precision",
        "torch.set_default_dtype(torch.float32)")}),
    'params_matmul_precision_put_back_highest': ('test_modern_params', {'modern_params': around_body(
        _M31["modern_params"], 'torch.set_float32_matmul_precision("high")', 'torch.set_float32_matmul_precision("highest")')}),
    'prefill_print_options_put_back_default': ('test_cache_count_without', {'cache_count_without': around_body(
        _M31["cache_count_without"], "torch.set_printoptions(precision=2)  # while debugging the counts",
        'torch.set_printoptions(profile="default")')}),
    'request_flush_denormal_put_back_off': ('test_cache_count_with', {'cache_count_with': around_body(
        _M31["cache_count_with"], "torch.set_flush_denormal(True)", "torch.set_flush_denormal(False)")}),
    'packed_anomaly_put_back_off': ('test_packed_masks', {'packed_masks': around_body(
        _M31["packed_masks"], "torch.set_anomaly_enabled(True)", "torch.set_anomaly_enabled(False)")}),
    'sandwich_threads_put_back_as_the_cell_found_them': ('test_sandwich', {'sandwich': around_body(
        _M31["sandwich"], "torch.set_num_threads(1)  # small matrices: one thread is faster",
        "torch.set_num_threads(THREADS)", prologue="THREADS = torch.get_num_threads()\n\n")}),
    'cached_mask_grad_mode_put_back_on': ('test_cached_attention', {'cached_attention': _replaced(_replaced(
        _M31["cached_attention"], "    rows = torch.arange(", "    torch.set_grad_enabled(False)  # the mask needs no gradient\n"
        "    rows = torch.arange(", once=True), "    allowed = cols <= rows  # (n, past + n)\n",
        "    allowed = cols <= rows  # (n, past + n)\n    torch.set_grad_enabled(True)\n", once=True)}),
}
MUTANTS.update(ROUND_31_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")

# Round 33 class sweep (tests/redteam/round33/05-sweep.md): each slipped before its case was added
from grading import replaced as _replaced33, solution_code as _solution_code33

_M33 = _solution_code33(CHAPTER)


def _first_lines33(code: str, name: str, *lines: str) -> str:
    """``code`` with ``lines`` run first in the body of ``name``."""
    head, sep, body = code.partition(f"def {name}(")
    signature, colon, rest = body.partition("):\n")
    return head + sep + signature + colon + "".join(f"    {line}\n" for line in lines) + rest


ROUND_33_SWEEP = {
    # Part 1 -- class BA: one scale for the whole tensor (to keep the squares in range): small rows beside rows near
    # 1e140 underflow to a mean square of 0
    "rms_norm_scaled_by_the_whole_tensors_max": ("test_rms_norm", {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    s = x32.detach().abs().amax() if x32.numel() else x32.new_ones(())
    s = torch.where(s > 0, s, torch.ones_like(s))
    ms = (x32 / s).pow(2).mean(dim=-1, keepdim=True) * s * s
    return (x32 * torch.rsqrt(ms + eps) * weight.to(x32.dtype)).to(x.dtype)
"""}),
    # Part 1 -- class BB: the caller's .grad cleared
    "rms_norm_clears_the_inputs_grad": ("test_rms_norm", {"rms_norm": _first_lines33(
        _M33["rms_norm"], "rms_norm", "x.grad = None", "weight.grad = None")}),
    # Part 5 -- class BB: the parameters' .grad cleared
    "sandwich_clears_the_params_grad": ("test_sandwich", {"sandwich": _first_lines33(
        _M33["sandwich"], "sandwich_decoder_layer", "for t in p['self_attn'].values(): t.grad = None")}),
    # Part 5 -- class BC: a key of p taken out and put back (it moves to the end)
    "sandwich_moves_a_key_of_p": ("test_sandwich", {"sandwich": _first_lines33(
        _M33["sandwich"], "sandwich_decoder_layer", "p['ff'] = p.pop('ff')")}),
    # Part 6 -- class BB: the .grad of x_new and of the parameters cleared
    "cached_attention_clears_the_inputs_grad": ("test_cached_attention", {"cached_attention": _first_lines33(
        _M33["cached_attention"], "cached_self_attention", "for t in params.values(): t.grad = None",
        "x_new.grad = None")}),
    # Part 6 -- class BC: a key of params taken out and put back (it moves to the end)
    "cached_attention_moves_a_key_of_params": ("test_cached_attention", {"cached_attention": _first_lines33(
        _M33["cached_attention"], "cached_self_attention", "params['w_o'] = params.pop('w_o')")}),
}
MUTANTS.update(ROUND_33_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SWEEP), "new")


# Round 35 class sweep (tests/redteam/round35/05-sweep.md): each slipped before this round's hidden cases
_M35 = _solution_code33(CHAPTER)
ROUND_35_SWEEP = {
    # Part 6 -- class BL: cached entries cleaned on their way in (inf becomes finfo.max, or 0)
    "cached_attention_cache_nan_to_num": ("test_cached_attention", {"cached_attention": _M35["cached_attention"].replace(
        'torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)',
        'torch.cat([cache["k"].nan_to_num(), k], dim=2), torch.cat([cache["v"].nan_to_num(), v], dim=2)')}),
    "cached_attention_cache_where_finite": ("test_cached_attention", {"cached_attention": _M35["cached_attention"].replace(
        'torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)',
        'torch.cat([torch.where(cache["k"].isfinite(), cache["k"], 0.0), k], dim=2), '
        'torch.cat([torch.where(cache["v"].isfinite(), cache["v"], 0.0), v], dim=2)')}),
    # Part 3 (b) -- class BK: (a) called with a negative length (new_tokens = 0), which (a)'s text does not cover
    "request_calls_prefill_with_minus_one": ("test_cache_count_with", {"cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    steps = max(new_tokens - 1, 0)
    # the steps are a prefill of new_tokens - 1 positions in chunks of 1, each also meeting the prompt's keys
    return total + layers * heads * steps * prompt_len + prefill_dot_products(new_tokens - 1, 1, layers, heads)
"""}),
    # Part 6 -- class BK: the block's causal mask from Part 4's packed_masks, with float segments Part 4 does not name
    "cached_attention_packed_masks_float_segments": ("test_cached_attention", {"cached_attention": _M35[
        "cached_attention"].replace(
        "    allowed = cols <= rows  # (n, past + n)",
        "    one = torch.ones(1, n)  # float segments: one pair\n"
        "    own = packed_masks(one, one)[1][0]  # (n, n) causal\n"
        "    allowed = torch.cat([torch.ones(n, past, dtype=torch.bool), own], dim=1)")}),
}
MUTANTS.update(ROUND_35_SWEEP)
# at most one new batch (every batch already holds a Part 6 mutant): the first Part 6 mutant opens it, the other two are
# caught by the same hidden cases and stay out of the batches (their code is in tests/redteam/round35/05-sweep.md)
place_mutants(MUTANTS, MUTANT_BATCHES, ["request_calls_prefill_with_minus_one", "cached_attention_cache_nan_to_num"], "new")
ROUND_35_SWEEP_DROPPED = place_mutants(MUTANTS, MUTANT_BATCHES, ["cached_attention_cache_where_finite",
                                                                  "cached_attention_packed_masks_float_segments"], "drop")
assert ROUND_35_SWEEP_DROPPED == ["cached_attention_cache_where_finite", "cached_attention_packed_masks_float_segments"]
