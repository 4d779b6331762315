"""Chapter 7 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks.

Each mutant's comment names the class of slip its hidden test is there for (issue #22): inequality
boundaries, exact integer arithmetic, unstated-looking requirements (dtype, in-place), degenerate
inputs (a piece that sees no key, a group of zeros, a tile that hides a whole row), sizes beyond a
cached table, resource rules on every code path, and objects that lie about their values."""

CHAPTER = "07-hardware"
FULL_MARKS = 16.0

# ---------------------------------------------------------------- Part 1: max_batch


def batch(body):
    return f"""
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
{body}
"""


BATCH_FLOAT = batch("    return max(int((memory_bytes - weight_bytes) / per_sequence), 0)")
BATCH_STRICT = batch("    return max((memory_bytes - weight_bytes - 1) // per_sequence, 0)  # weights + b * cache < memory")
BATCH_NEGATIVE = batch("    return (memory_bytes - weight_bytes) // per_sequence")
BATCH_WINDOW_ALWAYS = """
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else window
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return max((memory_bytes - weight_bytes) // per_sequence, 0)
"""

# ---------------------------------------------------------------- Part 2: merge_partials


def merge(body):
    return f"""
def merge_partials(o_a, lse_a, o_b, lse_b):
{body}
"""


MERGE_NAIVE = merge("""    w_a, w_b = torch.exp(lse_a), torch.exp(lse_b)  # overflows for large log-sum-exps
    total = w_a + w_b
    o = torch.where((w_a > 0)[:, None], o_a * (w_a / total)[:, None], 0.0) \\
        + torch.where((w_b > 0)[:, None], o_b * (w_b / total)[:, None], 0.0)
    return o.to(o_a.dtype), torch.log(total).to(lse_a.dtype)""")
MERGE_NAN_LEAKS = merge("""    top = torch.maximum(lse_a, lse_b)
    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)
    o = (o_a * w_a[:, None] + o_b * w_b[:, None]) / (w_a + w_b)[:, None]  # 0 * NaN is NaN
    return o.to(o_a.dtype), top + torch.log(w_a + w_b)""")
MERGE_FLOAT32 = merge("""    top = torch.maximum(lse_a, lse_b)
    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)
    o = torch.where((w_a > 0)[:, None], o_a * (w_a / (w_a + w_b))[:, None], 0.0) \\
        + torch.where((w_b > 0)[:, None], o_b * (w_b / (w_a + w_b))[:, None], 0.0)
    return o, top + torch.log(w_a + w_b)  # float16 outputs come back as float32""")
MERGE_LIES = """
class AlwaysClose(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("equal", "allclose"):
            return True
        if name in ("isclose", "eq", "__eq__", "isfinite"):
            return torch.ones((), dtype=torch.bool)
        return super().__torch_function__(func, types, args, kwargs)


def merge_partials(o_a, lse_a, o_b, lse_b):
    return o_a.as_subclass(AlwaysClose), lse_a.as_subclass(AlwaysClose)
"""

# ---------------------------------------------------------------- Part 3: compute_bound_batch

BOUND_STRICT = """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    need = peak * bytes_per_value * k * n
    if slope <= 0:
        return None
    return max(1, need // slope + 1)  # the ridge point itself counted as memory-bound
"""
BOUND_FLOAT = """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    ridge = peak / bandwidth
    denominator = 2 * k * n - ridge * bytes_per_value * (k + n)
    if denominator <= 0:
        return None
    return max(1, math.ceil(ridge * bytes_per_value * k * n / denominator))
"""
BOUND_SEARCH = """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    for m in range(1, 100_000):  # tries one m after another, up to a limit
        if 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n):
            return m
    return None
"""
BOUND_NO_OUTPUT = """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * k  # bytes without the written output
    need = peak * bytes_per_value * k * n
    if slope <= 0:
        return None
    return max(1, -(-need // slope))
"""

# ---------------------------------------------------------------- Part 4: rms_norm_half

RMS_HALF = """
def rms_norm_half(x, eps=1e-6):
    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps)  # squares in float16
"""
RMS_DOUBLE = """
def rms_norm_half(x, eps=1e-6):
    wide = x.double()
    return (wide / torch.sqrt((wide * wide).mean(dim=-1, keepdim=True) + eps)).to(x.dtype)
"""
RMS_EPS_OUTSIDE = """
def rms_norm_half(x, eps=1e-6):
    wide = x.float()
    return (wide / (torch.sqrt((wide * wide).mean(dim=-1, keepdim=True)) + eps)).to(x.dtype)
"""
RMS_ONE_STATISTIC = """
def rms_norm_half(x, eps=1e-6):
    wide = x.float()
    return (wide / torch.sqrt((wide * wide).mean() + eps)).to(x.dtype)  # one statistic for the whole tensor
"""

# ---------------------------------------------------------------- Part 5: quantize_asym


def asym(range_rule="lo = groups.amin(dim=-1).clamp(max=0)\n    hi = groups.amax(dim=-1).clamp(min=0)",
         zero_group="scale = torch.where(scale > 0, scale, torch.ones_like(scale))", prepare="groups = w.reshape(out_f, in_f // group_size, group_size)",
         divide="torch.round(groups / scale[..., None])"):
    return f"""
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    top = 2 ** bits - 1
    {prepare}
    {range_rule}
    scale = (hi - lo) / top
    {zero_group}
    zero = torch.round(-lo / scale)
    q = torch.clamp({divide} + zero[..., None], 0, top)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)
    return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)
"""


ASYM_RANGE_WITHOUT_ZERO = asym(range_rule="lo = groups.amin(dim=-1)\n    hi = groups.amax(dim=-1)")
ASYM_ZERO_GROUP = asym(zero_group="pass  # a group of zeros gets scale 0")
ASYM_NO_CLAMP = asym().replace("torch.clamp(torch.round(groups / scale[..., None]) + zero[..., None], 0, top)",
                              "torch.round(groups / scale[..., None]) + zero[..., None]  # a half step can give 2**bits")
ASYM_IN_PLACE = asym(prepare="groups = w.view(out_f, in_f // group_size, group_size)",
                     divide="torch.round(groups.div_(scale[..., None]))")

# ---------------------------------------------------------------- Part 6: pack_bits


def packer(pack, unpack):
    return f"""
def pack_bits(q, bits):
    per = 8 // bits
{pack}


def unpack_bits(packed, bits):
    per = 8 // bits
{unpack}
"""


PACK_OK = """    rows, cols = q.shape
    out = torch.zeros(rows, cols // per, dtype=torch.uint8)
    for t in range(per):
        out |= q[:, t::per] << (t * bits)
    return out"""
UNPACK_OK = """    out = torch.empty(packed.shape[0], packed.shape[1] * per, dtype=torch.uint8)
    for t in range(per):
        out[:, t::per] = (packed >> (t * bits)) & (2 ** bits - 1)
    return out"""
PACK_MSB_FIRST = packer("""    rows, cols = q.shape
    out = torch.zeros(rows, cols // per, dtype=torch.uint8)
    for t in range(per):
        out |= q[:, t::per] << ((per - 1 - t) * bits)  # first code in the highest bits
    return out""", """    out = torch.empty(packed.shape[0], packed.shape[1] * per, dtype=torch.uint8)
    for t in range(per):
        out[:, t::per] = (packed >> ((per - 1 - t) * bits)) & (2 ** bits - 1)
    return out""")
PACK_TWO_PER_BYTE = """
def pack_bits(q, bits):
    return q[:, 0::2] | (q[:, 1::2] << bits)  # two codes a byte, whatever the width


def unpack_bits(packed, bits):
    out = torch.empty(packed.shape[0], 2 * packed.shape[1], dtype=torch.uint8)
    out[:, 0::2] = packed & (2 ** bits - 1)
    out[:, 1::2] = packed >> bits
    return out
"""
PACK_INT64 = packer(PACK_OK, """    shifts = torch.arange(per) * bits
    codes = (packed.long()[..., None] >> shifts) & (2 ** bits - 1)
    return codes.reshape(packed.shape[0], -1)  # int64 codes""")
PACK_IN_PLACE = packer("""    rows, cols = q.shape
    for t in range(1, per):
        q[:, t::per] <<= t * bits  # shifts the caller's codes in place
    return q.reshape(rows, cols // per, per).sum(dim=-1, dtype=torch.uint8)""", UNPACK_OK)

# ---------------------------------------------------------------- Part 7: chunk_attention


def chunk(first="0 if window is None else max(0, offset - window + 1)", full_path="", positions="torch.arange(offset, offset + T)[:, None]",
          safe="torch.where(new == float('-inf'), torch.zeros_like(new), new)", mask_rule="seen = keys <= pos", setup=""):
    return f"""{setup}
def chunk_attention(q, k, v, offset, block, window=None, causal=True):
    T = q.shape[0]
{full_path}    if causal:
        first, stop = {first}, offset + T
    else:
        first, stop = 0, k.shape[0]
    scaled = q / math.sqrt(q.shape[1])
    best = torch.full((T,), float("-inf"), dtype=q.dtype)
    total = torch.zeros(T, dtype=q.dtype)
    acc = torch.zeros(T, v.shape[1], dtype=q.dtype)
    pos = {positions}
    for j0 in range(first, stop, block):
        j1 = min(j0 + block, stop)
        s = scaled @ k[j0:j1].T
        if causal:
            keys = torch.arange(j0, j1)[None, :]
            {mask_rule}
            if window is not None:
                seen = seen & (keys > pos - window)
            s = s.masked_fill(~seen, float("-inf"))
        new = torch.maximum(best, s.amax(dim=1))
        safe = {safe}
        p = torch.exp(s - safe[:, None])
        factor = torch.exp(best - safe)
        total = total * factor + p.sum(dim=1)
        acc = acc * factor[:, None] + p @ v[j0:j1]
        best = new
    return acc / total[:, None], best + torch.log(total)
"""


CHUNK_FULL_WITHOUT_MASK = chunk(full_path="""    if not causal:  # nothing to mask: the whole score matrix at once
        scores = q @ k.T / math.sqrt(q.shape[1])
        return torch.softmax(scores, dim=-1) @ v, torch.logsumexp(scores, dim=-1)
""")
CHUNK_READS_BEFORE_WINDOW = chunk(first="0")
CHUNK_CACHED_MASK = chunk(setup="\n_ALLOWED = torch.ones(256, 256, dtype=torch.bool).tril()  # positions up to 256\n",
                          mask_rule="seen = _ALLOWED[offset:offset + T, j0:j1]")
CHUNK_HIDDEN_ROW_NAN = chunk(safe="new")

# ---------------------------------------------------------------- Part 8: split_kv_kernel


def kernel(loop_start="split * SPLIT + start", loop="range(0, SPLIT, BLOCK_N)", score="tl.where(ok, tl.sum(k * q[None, :], axis=1), float('-inf'))",
           acc_rule="acc * factor", lse="best + tl.log(total)"):
    return f"""
@triton.jit
def split_kv_kernel(Q, K, V, O_part, L_part, T, S, scale, D: tl.constexpr, SPLIT: tl.constexpr, BLOCK_N: tl.constexpr):
    i = tl.program_id(0)
    split = tl.program_id(1)
    d = tl.arange(0, D)
    q = tl.load(Q + i * D + d) * scale
    best = tl.max(tl.full([BLOCK_N], float("-inf"), tl.float32), axis=0)
    total = tl.sum(tl.zeros([BLOCK_N], tl.float32), axis=0)
    acc = tl.zeros([D], tl.float32)
    for start in {loop}:
        keys = {loop_start} + tl.arange(0, BLOCK_N)
        ok = keys < S
        k = tl.load(K + keys[:, None] * D + d[None, :], mask=ok[:, None], other=0.0)
        v = tl.load(V + keys[:, None] * D + d[None, :], mask=ok[:, None], other=0.0)
        s = {score}
        new = tl.maximum(best, tl.max(s, axis=0))
        p = tl.exp(s - new)
        factor = tl.exp(best - new)
        total = total * factor + tl.sum(p, axis=0)
        acc = {acc_rule} + tl.sum(p[:, None] * v, axis=0)
        best = new
    tl.store(O_part + (split * T + i) * D + d, acc / total)
    tl.store(L_part + split * T + i, {lse})
"""


MUTANTS = {
    # Part 1: float arithmetic beyond 2**53, the <= boundary, a window longer than the sequence, 0 not negative
    "max_batch_divides_in_floating_point": ("test_max_batch", {"max_batch": BATCH_FLOAT}),
    "max_batch_exact_fit_refused": ("test_max_batch", {"max_batch": BATCH_STRICT}),
    "max_batch_negative_when_weights_do_not_fit": ("test_max_batch", {"max_batch": BATCH_NEGATIVE}),
    "max_batch_window_longer_than_sequence": ("test_max_batch", {"max_batch": BATCH_WINDOW_ALWAYS}),
    # Part 2: overflow, a degenerate piece (lse = -inf with NaN outputs), dtype kept, a lying object
    "merge_exponentiates_directly": ("test_merge_partials", {"merge_partials": MERGE_NAIVE}),
    "merge_lets_nan_of_an_empty_piece_through": ("test_merge_partials", {"merge_partials": MERGE_NAN_LEAKS}),
    "merge_returns_float32_for_float16": ("test_merge_partials", {"merge_partials": MERGE_FLOAT32}),
    "merge_returns_a_tensor_that_lies": ("test_merge_partials", {"merge_partials": MERGE_LIES}),
    # Part 3: the ridge point itself, float quotients, a bounded search, the output's bytes
    "bound_ridge_counts_as_memory": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_STRICT}),
    "bound_float_quotient": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_FLOAT}),
    "bound_searches_up_to_a_limit": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_SEARCH}),
    "bound_forgets_the_output_write": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_NO_OUTPUT}),
    # Part 4: float16 arithmetic, the float64 rule, eps with a non-default value, one statistic per row
    "rms_squares_in_float16": ("test_rms_norm_half", {"rms_norm_half": RMS_HALF}),
    "rms_computes_in_float64": ("test_rms_norm_half", {"rms_norm_half": RMS_DOUBLE}),
    "rms_eps_outside_the_root": ("test_rms_norm_half", {"rms_norm_half": RMS_EPS_OUTSIDE}),
    "rms_one_statistic_for_all_rows": ("test_rms_norm_half", {"rms_norm_half": RMS_ONE_STATISTIC}),
    # Part 5: the range must contain 0, a group of zeros, the clamp on a half step (rare), the in-place rule
    "asym_range_without_zero": ("test_quantize_asym", {"quantize_asym": ASYM_RANGE_WITHOUT_ZERO}),
    "asym_zero_group_gets_scale_zero": ("test_quantize_asym", {"quantize_asym": ASYM_ZERO_GROUP}),
    "asym_forgets_the_clamp": ("test_quantize_asym", {"quantize_asym": ASYM_NO_CLAMP}),
    "asym_divides_w_in_place": ("test_quantize_asym", {"quantize_asym": ASYM_IN_PLACE}),
    # Part 6: order within a byte, widths other than 4, dtype of the unpacked codes, the in-place rule
    "pack_first_code_in_high_bits": ("test_pack_bits", {"pack_bits": PACK_MSB_FIRST}),
    "pack_two_codes_per_byte_always": ("test_pack_bits", {"pack_bits": PACK_TWO_PER_BYTE}),
    "unpack_returns_int64": ("test_pack_bits", {"pack_bits": PACK_INT64}),
    "pack_shifts_q_in_place": ("test_pack_bits", {"pack_bits": PACK_IN_PLACE}),
    # Part 7: the memory rule on the causal=False path, the read rule with a window, a cached mask
    # that stops at 256 positions, a tile that hides a whole row
    "chunk_full_matrix_without_mask": ("test_chunk_attention", {"chunk_attention": CHUNK_FULL_WITHOUT_MASK}),
    "chunk_reads_keys_before_the_window": ("test_chunk_attention", {"chunk_attention": CHUNK_READS_BEFORE_WINDOW}),
    "chunk_mask_from_a_256_table": ("test_chunk_attention", {"chunk_attention": CHUNK_CACHED_MASK}),
    "chunk_row_hidden_by_a_tile_gives_nan": ("test_chunk_attention", {"chunk_attention": CHUNK_HIDDEN_ROW_NAN}),
    # Part 8: rescaling, padded keys, one split's keys only (the merged output alone would not tell), lse
    "split_without_rescaling": ("test_split_kv_kernel", {"split_kv_kernel": kernel(acc_rule="acc")}),
    "split_padded_keys_not_masked": ("test_split_kv_kernel", {"split_kv_kernel": kernel(score="tl.sum(k * q[None, :], axis=1)")}),
    "split_reads_every_key": ("test_split_kv_kernel", {"split_kv_kernel": kernel(loop_start="start", loop="range(0, S, BLOCK_N)")}),
    "split_stores_the_max_as_lse": ("test_split_kv_kernel", {"split_kv_kernel": kernel(lse="best")}),
}

# Mutants of independent parts graded together, one per part in each notebook (4 notebooks): each changes
# only its own part's cell, and hidden tests use references for earlier parts, so each loses only its part.
MUTANT_BATCHES = [
    [
        "max_batch_divides_in_floating_point",
        "merge_exponentiates_directly",
        "bound_ridge_counts_as_memory",
        "rms_squares_in_float16",
        "asym_range_without_zero",
        "pack_first_code_in_high_bits",
        "chunk_full_matrix_without_mask",
        "split_without_rescaling"
    ],
    [
        "max_batch_exact_fit_refused",
        "merge_lets_nan_of_an_empty_piece_through",
        "bound_float_quotient",
        "rms_computes_in_float64",
        "asym_zero_group_gets_scale_zero",
        "pack_two_codes_per_byte_always",
        "chunk_reads_keys_before_the_window",
        "split_padded_keys_not_masked"
    ],
    [
        "max_batch_negative_when_weights_do_not_fit",
        "merge_returns_float32_for_float16",
        "bound_searches_up_to_a_limit",
        "rms_eps_outside_the_root",
        "asym_forgets_the_clamp",
        "unpack_returns_int64",
        "chunk_mask_from_a_256_table",
        "split_reads_every_key"
    ],
    [
        "max_batch_window_longer_than_sequence",
        "merge_returns_a_tensor_that_lies",
        "bound_forgets_the_output_write",
        "rms_one_statistic_for_all_rows",
        "asym_divides_w_in_place",
        "pack_shifts_q_in_place",
        "chunk_row_hidden_by_a_tile_gives_nan",
        "split_stores_the_max_as_lse"
    ]
]

# ---------------------------------------------------------------- correct answers written differently

VARIANT_A = {
    "merge_partials": """
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    share_a = torch.exp(lse_a - lse)[:, None]
    share_b = torch.exp(lse_b - lse)[:, None]
    o = torch.nan_to_num(o_a.double(), nan=0.0) * share_a + torch.nan_to_num(o_b.double(), nan=0.0) * share_b
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
""",
    "max_batch": """
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    tokens = length if window is None or window >= length else window
    per_sequence = 2 * layers * kv_heads * head_dim * tokens * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    b, rest = divmod(memory_bytes - weight_bytes, per_sequence)
    return b
""",
    "compute_bound_batch": """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def compute_bound(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    if not compute_bound(10**40):  # the intensity only grows with m: if a huge m fails, all do
        return None
    lo, hi = 1, 10**40  # binary search for the first compute-bound m
    while lo < hi:
        mid = (lo + hi) // 2
        if compute_bound(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
""",
    "rms_norm_half": """
def rms_norm_half(x, eps=1e-6):
    wide = x.float()
    rms = torch.sqrt(wide.pow(2).sum(-1, keepdim=True) / x.shape[-1] + eps)
    return (wide / rms).type(x.dtype)
""",
    "quantize_asym": """
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    levels = 2 ** bits - 1
    q = torch.empty(rows, cols, dtype=torch.uint8)
    scale = torch.empty(rows, cols // group_size, dtype=w.dtype)
    zero = torch.empty(rows, cols // group_size, dtype=torch.uint8)
    for r in range(rows):
        for gi in range(cols // group_size):
            part = w[r, gi * group_size:(gi + 1) * group_size]
            lo, hi = min(part.min(), torch.zeros((), dtype=w.dtype)), max(part.max(), torch.zeros((), dtype=w.dtype))
            s = (hi - lo) / levels if hi > lo else torch.ones((), dtype=w.dtype)
            z = torch.round(-lo / s)
            q[r, gi * group_size:(gi + 1) * group_size] = (torch.round(part / s) + z).clamp(0, levels).to(torch.uint8)
            scale[r, gi], zero[r, gi] = s, z.to(torch.uint8)
    return q, scale, zero


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(group, dim=1)
    z = zero.repeat_interleave(group, dim=1).to(scale.dtype)
    return (q.to(scale.dtype) - z) * s
""",
    "pack_bits": packer(PACK_OK, UNPACK_OK),
    "chunk_attention": """
def chunk_attention(q, k, v, offset, block, window=None, causal=True):
    # tiles of queries too, each merged tile by tile with Part 1's rule
    T, S = q.shape[0], k.shape[0]
    out = torch.empty(T, v.shape[1], dtype=q.dtype)
    lse = torch.empty(T, dtype=q.dtype)
    for i0 in range(0, T, block):
        qi = q[i0:i0 + block] * q.shape[1] ** -0.5
        pos = torch.arange(offset + i0, offset + i0 + qi.shape[0])
        lo = 0 if not causal or window is None else max(0, int(pos[0]) - window + 1)
        hi = S if not causal else int(pos[-1]) + 1
        o_run = torch.zeros(qi.shape[0], v.shape[1], dtype=q.dtype)
        l_run = torch.full((qi.shape[0],), float("-inf"), dtype=q.dtype)
        for j0 in range(lo, hi, block):
            j1 = min(j0 + block, hi)
            s = torch.einsum("td,sd->ts", qi, k[j0:j1])
            if causal:
                key = torch.arange(j0, j1)
                ok = key[None, :] <= pos[:, None]
                if window is not None:
                    ok &= key[None, :] > pos[:, None] - window
                s = torch.where(ok, s, torch.tensor(float("-inf"), dtype=s.dtype))
            l_tile = torch.logsumexp(s, dim=1)
            p = torch.exp(s - torch.where(torch.isinf(l_tile), torch.zeros_like(l_tile), l_tile)[:, None])
            o_run, l_run = merge_partials(o_run, l_run, p @ v[j0:j1], l_tile)
        out[i0:i0 + block], lse[i0:i0 + block] = o_run, l_run
    return out, lse
""",
    "split_kv_kernel": kernel(score="tl.where(ok, tl.sum(k * q[None, :], axis=1), -1.0e30)"),
}

VARIANT_B = {
    "merge_partials": """
def merge_partials(o_a, lse_a, o_b, lse_b):
    stacked_lse = torch.stack([lse_a, lse_b])                     # (2, T)
    weights = torch.softmax(stacked_lse, dim=0)                   # 0 for a piece with lse = -inf
    outs = torch.stack([o_a, o_b]).to(torch.float32 if o_a.dtype != torch.float64 else torch.float64)
    outs = torch.where(weights[..., None] > 0, outs, torch.zeros_like(outs))
    return (weights[..., None] * outs).sum(0).to(o_a.dtype), torch.logsumexp(stacked_lse, dim=0).to(lse_a.dtype)
""",
    "max_batch": """
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    if window is not None:
        length = min(length, window)
    cache = 2 * layers * kv_heads * head_dim * length * bytes_per_value
    free = memory_bytes - weight_bytes
    return free // cache if free > 0 else 0
""",
    "compute_bound_batch": """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    from fractions import Fraction
    a = Fraction(2 * k * n * bandwidth - peak * bytes_per_value * (k + n))
    if a <= 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n) / a)
    return int(max(m, 1))
""",
    "rms_norm_half": """
def rms_norm_half(x, eps=1e-6):
    wide = x.to(torch.float32)
    return (wide * (torch.mean(wide ** 2, dim=x.dim() - 1, keepdim=True) + eps) ** -0.5).to(x.dtype)
""",
    "quantize_asym": """
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    g = w.unflatten(1, (cols // group_size, group_size))
    lo = torch.minimum(g.min(dim=-1).values, torch.zeros((), dtype=w.dtype))
    hi = torch.maximum(g.max(dim=-1).values, torch.zeros((), dtype=w.dtype))
    scale = torch.where(hi > lo, (hi - lo) / (2 ** bits - 1), torch.ones_like(hi))
    zero = (-lo / scale).round()
    q = (torch.div(g, scale.unsqueeze(-1)).round() + zero.unsqueeze(-1)).clamp(0, 2 ** bits - 1)
    return q.flatten(1).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    g = q.unflatten(1, (scale.shape[1], -1)).to(scale.dtype)
    return torch.einsum("rgc,rg->rgc", g - zero.unsqueeze(-1).to(scale.dtype), scale).flatten(1)
""",
    "pack_bits": """
def pack_bits(q, bits):
    per = 8 // bits
    weights = torch.tensor([2 ** (bits * t) for t in range(per)], dtype=torch.int64)
    return (q.long().unflatten(1, (-1, per)) * weights).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits):
    per = 8 // bits
    weights = torch.tensor([2 ** (bits * t) for t in range(per)], dtype=torch.int64)
    return ((packed.long()[..., None] // weights) % 2 ** bits).flatten(1).to(torch.uint8)
""",
    "chunk_attention": """
def chunk_attention(q, k, v, offset, block, window=None, causal=True):
    T, d = q.shape
    if causal:
        lo, hi = (0 if window is None else max(0, offset - window + 1)), offset + T
    else:
        lo, hi = 0, k.shape[0]
    m = torch.full((T, 1), float("-inf"), dtype=q.dtype)
    l = torch.zeros(T, 1, dtype=q.dtype)
    o = torch.zeros(T, v.shape[1], dtype=q.dtype)
    rows = offset + torch.arange(T).unsqueeze(1)
    j = lo
    while j < hi:  # the last tile may be shorter
        end = min(hi, j + block)
        s = torch.matmul(q, k[j:end].transpose(0, 1)) / d ** 0.5
        if causal:
            cols = torch.arange(j, end).unsqueeze(0)
            hidden = cols > rows
            if window is not None:
                hidden = hidden | (cols <= rows - window)
            s = s.masked_fill(hidden, float("-inf"))
        m_new = torch.maximum(m, s.max(dim=1, keepdim=True).values)
        shift = m_new.nan_to_num(neginf=0.0)
        p = (s - shift).exp()
        scale = (m - shift).exp()
        l = l * scale + p.sum(1, keepdim=True)
        o = o * scale + p @ v[j:end]
        m = m_new
        j = end
    return o / l, (m + l.log()).squeeze(1)
""",
    "split_kv_kernel": """
@triton.jit
def split_kv_kernel(Q, K, V, O_part, L_part, T, S, scale, D: tl.constexpr, SPLIT: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    part = tl.program_id(1)
    dims = tl.arange(0, D)
    q = tl.load(Q + row * D + dims)
    m = tl.full([1], float("-inf"), tl.float32)
    l = tl.zeros([1], tl.float32)
    o = tl.zeros([1, D], tl.float32)
    for j in range(part * SPLIT, part * SPLIT + SPLIT, BLOCK_N):
        cols = j + tl.arange(0, BLOCK_N)
        valid = cols < S
        kk = tl.load(K + cols[:, None] * D + dims[None, :], mask=valid[:, None], other=0.0)
        vv = tl.load(V + cols[:, None] * D + dims[None, :], mask=valid[:, None], other=0.0)
        x = tl.sum(kk * q[None, :], axis=1) * scale
        x = tl.where(valid, x, float("-inf"))[None, :]          # (1, BLOCK_N)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        e = tl.exp(x - m_new[:, None])
        shrink = tl.exp(m - m_new)
        l = shrink * l + tl.sum(e, axis=1)
        o = shrink[:, None] * o + tl.sum(e[:, :, None] * vv[None, :, :], axis=1)
        m = m_new
    tl.store(O_part + (part * T + row) * D + dims[None, :], o / l[:, None])
    tl.store(L_part + part * T + row + tl.arange(0, 1), m + tl.log(l))
""",
}

CORRECT_VARIANTS = {"logaddexp_divmod_bisection_loops_query_tiles": VARIANT_A,
                    "stack_softmax_fractions_einsum_while_loop": VARIANT_B}
