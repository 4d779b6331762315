"""Chapter 7 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks."""

CHAPTER = "07-hardware"
FULL_MARKS = 16.0


def merge(body):
    return f"""
def merge_stats(m_a, l_a, m_b, l_b):
    m = torch.maximum(m_a, m_b)
{body}
"""


def roofline(intensity, bound_rule):
    return f"""
def matmul_intensity(m, k, n, bytes_per_value):
    return {intensity}


def bound(intensity, peak, bandwidth):
    return {bound_rule}
"""


ROOF_OK = "2 * m * k * n / (bytes_per_value * (m * k + k * n + m * n))"
BOUND_OK = '"memory" if intensity < peak / bandwidth else "compute"'


def int8(quantize):
    return f"""
def int8_quantize(w):
{quantize}


def int8_dequantize(q, scale):
    return q.to(scale.dtype) * scale
"""


def int4(pack, unpack):
    return f"""
def pack_int4(q):
{pack}


def unpack_int4(packed):
{unpack}
"""


PACK_OK = """    u = (q.to(torch.int16) + 8).to(torch.uint8)
    return u[:, 0::2] | (u[:, 1::2] << 4)"""
UNPACK_OK = """    out = torch.empty(packed.shape[0], 2 * packed.shape[1], dtype=torch.int8)
    out[:, 0::2] = (packed & 15).to(torch.int8) - 8
    out[:, 1::2] = (packed >> 4).to(torch.int8) - 8
    return out"""


def tiled(scores_rule="s = (q @ kb.T) / math.sqrt(q.shape[1])", causal_rule="cols <= rows", numer_rule="numer * factor"):
    return f"""
def tiled_attention(q, k, v, block, causal=False):
    m = torch.full((q.shape[0], 1), float("-inf"), dtype=q.dtype)
    l = torch.zeros(q.shape[0], 1, dtype=q.dtype)
    numer = torch.zeros(q.shape[0], v.shape[1], dtype=q.dtype)
    rows = torch.arange(q.shape[0])[:, None]
    for j in range(0, k.shape[0], block):
        kb, vb = k[j:j + block], v[j:j + block]
        {scores_rule}
        if causal:
            cols = torch.arange(j, j + kb.shape[0])[None, :]
            s = s.masked_fill(~({causal_rule}), float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=1, keepdim=True))
        safe = m_new.nan_to_num(neginf=0.0)
        p = torch.exp(s - safe)
        factor = torch.exp(m - safe)
        l = l * factor + p.sum(dim=1, keepdim=True)
        numer = {numer_rule} + p @ vb
        m = m_new
    return numer / l
"""


def kernel(score_rule="tl.where(cols[None, :] < S, tl.dot(q, tl.trans(k)) * scale, float('-inf'))",
           acc_rule="acc * alpha[:, None]"):
    return f"""
@triton.jit
def attention_kernel(Q, K, V, O, T, S, scale, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, D)
    q = tl.load(Q + rows[:, None] * D + d[None, :], mask=rows[:, None] < T, other=0.0)
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    for start in range(0, S, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        k = tl.load(K + cols[:, None] * D + d[None, :], mask=cols[:, None] < S, other=0.0)
        v = tl.load(V + cols[:, None] * D + d[None, :], mask=cols[:, None] < S, other=0.0)
        s = {score_rule}
        m_new = tl.maximum(m, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m - m_new)
        l = l * alpha + tl.sum(p, 1)
        acc = {acc_rule} + tl.dot(p, v)
        m = m_new
    tl.store(O + rows[:, None] * D + d[None, :], acc / l[:, None], mask=rows[:, None] < T)
"""


MUTANTS = {
    "merge_without_rescaling": ("test_merge_stats", {"merge_stats": merge("    return m, l_a + l_b")}),
    "merge_rescales_the_wrong_way": ("test_merge_stats", {"merge_stats": merge(
        "    return m, l_a * torch.exp(m - m_a) + l_b * torch.exp(m - m_b)")}),
    "kv_forgets_the_values": ("test_kv_cache_bytes", {"kv_cache_bytes": """
def kv_cache_bytes(layers, kv_heads, head_dim, length, batch, bytes_per_value):
    return layers * kv_heads * head_dim * length * batch * bytes_per_value
"""}),
    "kv_ignores_batch": ("test_kv_cache_bytes", {"kv_cache_bytes": """
def kv_cache_bytes(layers, kv_heads, head_dim, length, batch, bytes_per_value):
    return 2 * layers * kv_heads * head_dim * length * bytes_per_value
"""}),
    "intensity_one_flop_per_term": ("test_roofline", {"roofline": roofline(
        "m * k * n / (bytes_per_value * (m * k + k * n + m * n))", BOUND_OK)}),
    "intensity_ignores_output_write": ("test_roofline", {"roofline": roofline(
        "2 * m * k * n / (bytes_per_value * (m * k + k * n))", BOUND_OK)}),
    "bound_inverted": ("test_roofline", {"roofline": roofline(ROOF_OK, '"compute" if intensity < peak / bandwidth else "memory"')}),
    "mean_square_in_float16": ("test_fp16", {"fp16": """
fp16_max = 65504.0


def mean_square(x):
    return (x * x).mean().float()
"""}),
    "fp16_max_is_two_to_the_16": ("test_fp16", {"fp16": """
fp16_max = 65536.0


def mean_square(x):
    return x.float().pow(2).mean()
"""}),
    "int8_one_scale_per_tensor": ("test_int8", {"int8": int8("""    scale = (w.abs().max() / 127).expand(w.shape[0], 1)
    return torch.round(w / scale).to(torch.int8), scale""")}),
    "int8_truncates_instead_of_rounding": ("test_int8", {"int8": int8("""    scale = w.abs().amax(dim=1, keepdim=True) / 127
    return (w / scale).to(torch.int8), scale""")}),
    "int8_divides_by_128": ("test_int8", {"int8": int8("""    scale = w.abs().amax(dim=1, keepdim=True) / 128
    return torch.round(w / scale).to(torch.int8), scale""")}),
    "int4_nibbles_swapped": ("test_int4", {"int4": int4("""    u = (q.to(torch.int16) + 8).to(torch.uint8)
    return u[:, 1::2] | (u[:, 0::2] << 4)""", """    out = torch.empty(packed.shape[0], 2 * packed.shape[1], dtype=torch.int8)
    out[:, 1::2] = (packed & 15).to(torch.int8) - 8
    out[:, 0::2] = (packed >> 4).to(torch.int8) - 8
    return out""")}),
    "int4_without_offset": ("test_int4", {"int4": int4("""    u = q.to(torch.uint8) & 15
    return u[:, 0::2] | (u[:, 1::2] << 4)""", """    out = torch.empty(packed.shape[0], 2 * packed.shape[1], dtype=torch.int8)
    out[:, 0::2] = (packed & 15).to(torch.int8)
    out[:, 1::2] = (packed >> 4).to(torch.int8)
    return out""")}),
    "tiled_builds_the_full_matrix": ("test_tiled_attention", {"tiled_attention": """
def tiled_attention(q, k, v, block, causal=False):
    s = q @ k.T / math.sqrt(q.shape[1])
    if causal:
        s = s.masked_fill(~torch.ones(s.shape, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(s, dim=-1) @ v
"""}),
    "tiled_without_rescaling_the_output": ("test_tiled_attention", {"tiled_attention": tiled(numer_rule="numer")}),
    "tiled_causal_off_by_one": ("test_tiled_attention", {"tiled_attention": tiled(causal_rule="cols < rows")}),
    "triton_without_rescaling": ("test_triton_kernel", {"triton_kernel": kernel(acc_rule="acc")}),
    "triton_padded_keys_not_masked": ("test_triton_kernel", {"triton_kernel": kernel(
        score_rule="tl.dot(q, tl.trans(k)) * scale")}),
    "triton_forgets_the_scale": ("test_triton_kernel", {"triton_kernel": kernel(
        score_rule="tl.where(cols[None, :] < S, tl.dot(q, tl.trans(k)), float('-inf'))")}),
}

# Mutants of independent parts graded together: each notebook run carries one mistake per part.
MUTANT_BATCHES = [
    ["merge_without_rescaling", "kv_forgets_the_values", "intensity_one_flop_per_term", "mean_square_in_float16",
     "int8_one_scale_per_tensor", "int4_nibbles_swapped", "tiled_without_rescaling_the_output",
     "triton_padded_keys_not_masked"],
    ["merge_rescales_the_wrong_way", "kv_ignores_batch", "bound_inverted", "fp16_max_is_two_to_the_16",
     "int8_truncates_instead_of_rounding", "int4_without_offset", "tiled_builds_the_full_matrix",
     "triton_without_rescaling"],
    ["intensity_ignores_output_write", "int8_divides_by_128", "tiled_causal_off_by_one", "triton_forgets_the_scale"],
]

# Correct answers that differ from the model answers: logaddexp, explicit products, a single
# comparison, bit operations, two-dimensional tiling with einsum, a kernel with finite sentinels.
DIFFERENT_BUT_CORRECT = {
    "merge_stats": """
def merge_stats(m_a, l_a, m_b, l_b):
    m = torch.maximum(m_a, m_b)
    lse = torch.logaddexp(m_a + torch.log(l_a), m_b + torch.log(l_b))
    return m, torch.exp(lse - m)
""",
    "kv_cache_bytes": """
def kv_cache_bytes(layers, kv_heads, head_dim, length, batch, bytes_per_value):
    total = 1
    for factor in (2, layers, kv_heads, head_dim, length, batch, bytes_per_value):
        total *= factor
    return total
""",
    "roofline": roofline("(2 * m * k * n / bytes_per_value) / (m * k + k * n + m * n)", BOUND_OK),
    "fp16": """
fp16_max = float((2 - 2 ** -10) * 2 ** 15)


def mean_square(x):
    return x.float().pow(2).mean()
""",
    "int8": int8("""    biggest = w.abs().amax(dim=1, keepdim=True)
    q = torch.round(w * (127 / biggest.clamp_min(1e-30))).to(torch.int8)
    return q, biggest / 127"""),
    "int4": int4(PACK_OK, UNPACK_OK),
    "tiled_attention": """
def tiled_attention(q, k, v, block, causal=False):
    out = torch.empty(q.shape[0], v.shape[1], dtype=q.dtype)
    for i in range(0, q.shape[0], block):
        qi = q[i:i + block] * q.shape[1] ** -0.5
        m = torch.full((qi.shape[0],), float("-inf"), dtype=q.dtype)
        l = torch.zeros(qi.shape[0], dtype=q.dtype)
        acc = torch.zeros(qi.shape[0], v.shape[1], dtype=q.dtype)
        for j in range(0, k.shape[0], block):
            s = torch.einsum("td,sd->ts", qi, k[j:j + block])
            if causal:
                r = torch.arange(i, i + qi.shape[0])[:, None]
                c = torch.arange(j, j + s.shape[1])[None, :]
                s = torch.where(c <= r, s, torch.full_like(s, float("-inf")))
            m_new = torch.maximum(m, s.max(dim=1).values)  # key 0 comes first: finite from block 0 on
            keep = torch.exp(m - m_new)
            p = torch.exp(s - m_new[:, None])
            l = l * keep + p.sum(dim=1)
            acc = acc * keep[:, None] + torch.einsum("ts,sd->td", p, v[j:j + block])
            m = m_new
        out[i:i + block] = acc / l[:, None]
    return out
""",
    "triton_kernel": kernel(score_rule="tl.where(cols[None, :] < S, tl.dot(q * scale, tl.trans(k)), -1.0e30)"),
}

CORRECT_VARIANTS = {"logaddexp_products_bitops_2d_tiles": DIFFERENT_BUT_CORRECT}
