"""Chapter 3 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and a correct answer written differently (a loop over heads with weight slices)."""

CHAPTER = "03-multi-head"
FULL_MARKS = 14.0

def cross(keys_from="memory", mask="real[:, None, None, :]"):
    """A cross-attention answer that differs from a correct one only where a mutant says."""
    return f"""
def cross_attention(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads({keys_from} @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(memory.shape[1])[None, :] < memory_lengths[:, None]
    return merge_heads(attention(q, k, v, {mask})) @ params["w_o"].T + params["b_o"]
"""


MUTANTS = {
    "split_reshape_without_transpose": ("test_split_merge", {"split_merge": """
def split_heads(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("not divisible")
    return x.reshape(b, num_heads, t, d // num_heads)

def merge_heads(x):
    b, h, t, dh = x.shape
    return x.reshape(b, t, h * dh)
"""}),
    "heads_merged_in_wrong_order": ("test_self_attention", {"split_merge": """
def split_heads(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("not divisible")
    return x.reshape(b, t, num_heads, d // num_heads).transpose(1, 2)

def merge_heads(x):
    b, h, t, dh = x.shape
    return x.transpose(1, 2).transpose(2, 3).reshape(b, t, h * dh)
"""}),
    "split_without_divisibility_check": ("test_split_merge", {"split_merge": """
def split_heads(x, num_heads):
    b, t, d = x.shape
    return x.reshape(b, t, num_heads, -1).transpose(1, 2)

def merge_heads(x):
    b, h, t, dh = x.shape
    return x.transpose(1, 2).reshape(b, t, h * dh)
"""}),
    "scaled_by_sqrt_d_model": ("test_self_attention", {"self_attention": """
def multi_head_self_attention(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d), dim=-1)
    return merge_heads(w @ v) @ params["w_o"].T + params["b_o"]
"""}),
    "output_projection_missing": ("test_self_attention", {"self_attention": """
def multi_head_self_attention(x, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    return merge_heads(attention(q, k, v))
"""}),
    "query_and_key_rows_swapped": ("test_self_attention", {"self_attention": """
def multi_head_self_attention(x, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    k, q, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    return merge_heads(attention(q, k, v)) @ params["w_o"].T + params["b_o"]
"""}),
    "single_head_ignores_num_heads": ("test_self_attention", {"self_attention": """
def multi_head_self_attention(x, params, num_heads):
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    return attention(q, k, v) @ params["w_o"].T + params["b_o"]
"""}),
    "causal_mask_inverted": ("test_causal", {"causal": """
def causal_multi_head_self_attention(x, params, num_heads):
    t = x.shape[1]
    allowed = torch.ones(t, t, dtype=torch.bool).triu()
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    return merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
"""}),
    "causal_mask_excludes_self": ("test_causal", {"causal": """
def causal_multi_head_self_attention(x, params, num_heads):
    t = x.shape[1]
    allowed = torch.ones(t, t, dtype=torch.bool).tril(-1)
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    return merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
"""}),
    "cross_padding_not_masked": ("test_cross", {"cross": cross(mask="None")}),
    "cross_keys_from_target": ("test_cross", {"cross": cross(keys_from="x")}),
    "cross_mask_without_head_axis": ("test_cross", {"cross": cross(mask="real[:, None, :]")}),
    "parameter_count_without_biases": ("test_param_count", {"param_count": """
def parameter_count(d_model, num_heads):
    return 4 * d_model * d_model
"""}),
    "parameter_count_grows_with_heads": ("test_param_count", {"param_count": """
def parameter_count(d_model, num_heads):
    return num_heads * 4 * d_model * d_model + 4 * d_model  # a full-width W per head
"""}),
    "macs_projections_only": ("test_macs", {"costs": """
macs_512_768_12 = 4 * 512 * 768 * 768
crossover_length = 1536
"""}),
    "macs_scores_per_head_width": ("test_macs", {"costs": """
macs_512_768_12 = 4 * 512 * 768 * 768 + 2 * 512 * 512 * 64
crossover_length = 1536
"""}),
    "crossover_at_d_model": ("test_crossover", {"costs": """
macs_512_768_12 = 1_610_612_736
crossover_length = 768
"""}),
    "reshape_answer_shape_error": ("test_reshape_question", {"mc": 'answer_reshape = "a"'}),
}

DIFFERENT_BUT_CORRECT = {
    "split_merge": """
def split_heads(x, num_heads):
    if x.shape[-1] % num_heads != 0:
        raise ValueError("width must be divisible by the number of heads")
    return torch.stack(x.chunk(num_heads, dim=-1), dim=1)

def merge_heads(x):
    return torch.cat(x.unbind(dim=1), dim=-1)
""",
    "self_attention": """
def multi_head_self_attention(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    outs = []
    for i in range(num_heads):
        rows = slice(i * dh, (i + 1) * dh)
        q = x @ w[:d][rows].T + b[:d][rows]
        k = x @ w[d:2 * d][rows].T + b[d:2 * d][rows]
        v = x @ w[2 * d:][rows].T + b[2 * d:][rows]
        outs.append(attention(q, k, v))
    return torch.einsum("btd,ed->bte", torch.cat(outs, dim=-1), params["w_o"]) + params["b_o"]
""",
    "causal": """
def causal_multi_head_self_attention(x, params, num_heads):
    i = torch.arange(x.shape[1])
    allowed = i[:, None] >= i[None, :]
    q, k, v = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"]).split(x.shape[-1], dim=-1)
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return torch.nn.functional.linear(merge_heads(out), params["w_o"], params["b_o"])
""",
    "cross": """
def cross_attention(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w_q, w_k, w_v = params["w_qkv"].split(d)
    b_q, b_k, b_v = params["b_qkv"].split(d)
    lin = torch.nn.functional.linear
    q, k, v = lin(x, w_q, b_q), lin(memory, w_k, b_k), lin(memory, w_v, b_v)
    allowed = torch.zeros(memory.shape[0], 1, 1, memory.shape[1], dtype=torch.bool)
    for i, n in enumerate(memory_lengths.tolist()):
        allowed[i, ..., :n] = True
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return lin(merge_heads(out), params["w_o"], params["b_o"])
""",
    "param_count": """
def parameter_count(d_model, num_heads):
    weights = 3 * d_model * d_model + d_model * d_model
    biases = 3 * d_model + d_model
    return int(weights + biases)
""",
    "costs": """
d_model, n = 768, 512
projections = 4 * n * d_model ** 2
products = 2 * n ** 2 * d_model
macs_512_768_12 = projections + products
crossover_length = 2 * d_model
""",
    "mc": 'answer_reshape = "c"  # positions and features get mixed',
}

CORRECT_VARIANTS = {"chunk_stack_loops_and_linear": DIFFERENT_BUT_CORRECT}

# Mutants of independent parts graded together, one submission per batch (python tests/mutant_batches.py
# 03-multi-head found them: no member breaks another member's graded test); the others alone.
MUTANT_BATCHES = [
    ["split_reshape_without_transpose", "parameter_count_without_biases", "macs_projections_only", "reshape_answer_shape_error"],
    ["heads_merged_in_wrong_order", "parameter_count_grows_with_heads", "macs_scores_per_head_width"],
    ["split_without_divisibility_check", "scaled_by_sqrt_d_model", "causal_mask_inverted", "cross_padding_not_masked", "crossover_at_d_model"],
    ["output_projection_missing", "causal_mask_excludes_self", "cross_keys_from_target"],
    ["query_and_key_rows_swapped", "cross_mask_without_head_axis"],
]
