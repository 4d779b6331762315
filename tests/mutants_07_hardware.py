"""Chapter 7 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks.

Each mutant's comment names the class of slip its hidden test is there for (issue #22): inequality
boundaries, exact integer arithmetic, unstated-looking requirements (dtype, in-place), degenerate
inputs (a piece that sees no key, a group of zeros, a tile that hides a whole row), sizes beyond a
cached table, resource rules on every code path, non-contiguous
inputs, and rules that change a result only on a half step. Objects that lie about their values are the liar
notebook's (tests/test_exercises.py)."""

from grading import from_storage_start, kept_output_buffer, place_mutant as _place_mutant, place_mutants as _place_mutants, replaced as _replaced, solution_code

CHAPTER = "07-hardware"
FULL_MARKS = 16.0
# the model answers, from which the round 15 class-sweep mutants change one step each
_SOLUTION = solution_code(CHAPTER)

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

# Session 17 redesign: the statistic may not be computed in a wider dtype (no float32 copy); every row is divided,
# with sqrt(eps), by a number of its own so that squares neither overflow (300, 4e4, 65504 in float16; 1e30, 3e38 in
# bfloat16) nor underflow (1e-4; 1e-25), and that number is detached (its zero gradient, summed in 16 bits, is not)


def rms(body, signature="x, eps=1e-6"):
    return f"\ndef rms_norm_half({signature}):\n{body}"


RMS_SCALED = """    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=math.sqrt(eps)).detach()
    s = x / c
    r = torch.sqrt((s * s).mean(dim=-1, keepdim=True) + (math.sqrt(eps) / c) ** 2)
    return torch.where(c * r >= torch.finfo(x.dtype).tiny, x / (c * r), s / r)
"""
# red team 11 (blind slip): the model answer until then, s / r. Where s = x / c is subnormal (a small element of a
# row with one large one) its rounding error is multiplied by 1 / r, up to 64 at 4096 elements: 32 ulp
RMS_SMALL_ELEMENTS_SUBNORMAL = """    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=math.sqrt(eps)).detach()
    s = x / c
    return s / torch.sqrt((s * s).mean(dim=-1, keepdim=True) + (math.sqrt(eps) / c) ** 2)
"""
# the page's overflow cell, copied: the statistic in float32 (the copy audit's answer of the old part)
RMS_WIDENS_TO_FLOAT32 = rms("""    y = x.float()
    var = (y * y).mean(-1, keepdim=True)
    return (y / (var + eps).sqrt()).to(x.dtype)
""")
# rows scaled by their largest |x|, but eps left as it was: wrong wherever eps counts (tiny rows, large eps)
RMS_EPS_NOT_RESCALED = rms("""    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=1e-30).detach()
    s = x / c
    return s / torch.sqrt((s * s).mean(dim=-1, keepdim=True) + eps)
""")
# round 11 class sweep, class 9 (a gradient at a point the text names): rows of zeros answered by a torch.where that
# puts 0 there. Right values; gradient 0 where the exact one is the incoming gradient / sqrt(eps). It passed the old
# hidden tests (no row of zeros in the gradient cases) and fails the new ones. In MUTANTS alone: every batch already
# holds a Part 4 mutant, so it is graded in a notebook of its own (the lead's call: the case needs its proof in the suite)
RMS_ZERO_ROWS_BY_WHERE = rms("""    zero = (x == 0).all(dim=-1, keepdim=True)  # rows of zeros: the text names them; their result is 0
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=math.sqrt(eps)).detach()
    s = x / c
    r = torch.sqrt((s * s).mean(dim=-1, keepdim=True) + (math.sqrt(eps) / c) ** 2)
    out = torch.where(c * r >= torch.finfo(x.dtype).tiny, x / (c * r), s / r)
    return torch.where(zero, torch.zeros_like(x), out)
""")
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

# ---------------------------------------------------------------- Part 6: pack_bits (a bit stream)


def packer(n_bytes="(cols * bits + 7) // 8", order="torch.arange(8, dtype=torch.int32)", prepare="", unpack_return=".to(torch.uint8)"):
    return f"""
def pack_bits(q, bits):
    rows, cols = q.shape
{prepare}    n_bytes = {n_bytes}
    stream = (q.to(torch.int32)[:, :, None] >> torch.arange(bits, dtype=torch.int32)) & 1
    stream = stream.reshape(rows, cols * bits)[:, :n_bytes * 8]
    pad = torch.zeros(rows, n_bytes * 8 - stream.shape[1], dtype=torch.int32)
    stream = torch.cat([stream, pad], dim=1).reshape(rows, n_bytes, 8)
    return (stream << {order}).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = (packed.to(torch.int32)[:, :, None] >> {order}) & 1
    stream = stream.reshape(rows, -1)[:, :cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits, dtype=torch.int32)).sum(dim=-1){unpack_return}
"""


PACK_INT64 = packer(unpack_return=".long()")
# refbind pass (round 11): a Part 6 that takes its byte count from Part 1's max_batch, window by position
# ("sequences" of 2 * 4 = 8 bytes, a window shorter than the length): ceil(cols * bits / 8) as an exact floor division
PACK_CALLING_MAX_BATCH = packer(n_bytes="max_batch(cols * bits + 8, 1, 1, 1, 1, 9, 1, 4)")
PACK_IN_PLACE = """
def pack_bits(q, bits):
    rows, cols = q.shape
    n_bytes = (cols * bits + 7) // 8
    out = torch.zeros(rows, n_bytes, dtype=torch.int64)
    where = torch.arange(cols) * bits
    for t in range(bits):
        bit = (q & 1).to(torch.int64)
        q >>= 1  # peels the caller's codes, one bit at a time
        n = where + t
        out.scatter_add_(1, (n // 8).expand(rows, cols), bit << (n % 8))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = (packed.to(torch.int32)[:, :, None] >> torch.arange(8, dtype=torch.int32)) & 1
    stream = stream.reshape(rows, -1)[:, :cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits, dtype=torch.int32)).sum(dim=-1).to(torch.uint8)
"""
PACK_NO_STRADDLE = """
def pack_bits(q, bits):
    per = 8 // bits  # whole codes a byte, the rest of the byte left empty
    rows, cols = q.shape
    n_bytes = (cols + per - 1) // per
    out = torch.zeros(rows, n_bytes, dtype=torch.int32)
    for c in range(cols):
        out[:, c // per] |= q[:, c].to(torch.int32) << ((c % per) * bits)
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    per = 8 // bits
    out = torch.empty(packed.shape[0], cols, dtype=torch.uint8)
    for c in range(cols):
        out[:, c] = (packed[:, c // per].to(torch.int32) >> ((c % per) * bits)) & (2 ** bits - 1)
    return out
"""
PACK_ONE_INT64_A_ROW = """
def pack_bits(q, bits):
    rows, cols = q.shape
    n_bytes = (cols * bits + 7) // 8
    word = torch.zeros(rows, dtype=torch.int64)  # the whole row in one int64: fine up to 63 bits
    for c in range(cols):
        word |= q[:, c].to(torch.int64) << (c * bits)
    return ((word[:, None] >> (8 * torch.arange(n_bytes))) & 255).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    word = (packed.to(torch.int64) << (8 * torch.arange(packed.shape[1]))).sum(dim=1)
    return ((word[:, None] >> (bits * torch.arange(cols))) & (2 ** bits - 1)).to(torch.uint8)
"""

# ---------------------------------------------------------------- Part 7: chunk_attention_backward


def backward(stop="offset + T if causal else k.shape[0]", positions="torch.arange(offset, offset + T)[:, None]",
             hidden="torch.arange(j0, j1)[None, :] > pos", dsink="-(torch.exp(sink - lse) * delta).sum()", full_path="",
             acc="", finish="dq, dk, dv, dsink", setup=""):
    return f"""{setup}
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    scale = 1.0 / math.sqrt(Dh)
{full_path}    stop = {stop}
    dq = torch.zeros_like(q{acc})
    dk = torch.zeros_like(k{acc})
    dv = torch.zeros_like(v{acc})
    delta = (d_out * out).sum(dim=1)
    pos = {positions}
    for j0 in range(0, stop, block):
        j1 = min(j0 + block, stop)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(q @ kj.T * scale - lse[:, None])
        if causal:
            p = p.masked_fill({hidden}, 0.0)
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    dsink = {dsink}
    return {finish}
"""


# refbind pass (round 11): a Part 7 that rebuilds the forward output (for delta) tile by tile with Part 2's
# merge_partials, from the sink as a piece whose value is 0; a fully masked tile's row is NaN with lse -inf
BACKWARD_CALLING_MERGE = backward().replace("""    delta = (d_out * out).sum(dim=1)
    pos = torch.arange(offset, offset + T)[:, None]
""", """    pos = torch.arange(offset, offset + T)[:, None]
    o_run, l_run = torch.zeros(T, v.shape[1], dtype=q.dtype), sink.expand(T)
    for j0 in range(0, stop, block):
        j1 = min(j0 + block, stop)
        s = q @ k[j0:j1].T * scale
        if causal:
            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos, float("-inf"))
        l_tile = torch.logsumexp(s, dim=1)
        p = torch.exp(s - torch.where(torch.isinf(l_tile), 0.0, l_tile)[:, None])
        o_run, l_run = merge_partials(o_run, l_run, (p @ v[j0:j1]) / p.sum(dim=1, keepdim=True), l_tile)
    delta = (d_out * o_run).sum(dim=1)
""", 1)


# round 11 class sweep (class 1, found in chapter 6): delta from the forward output rebuilt with a hand-written
# softmax per tile whose row maximum includes the masked keys: a masked key 900 above the keys a query sees in the
# same tile underflows all of them (exp(-900) = 0), and the query loses that tile
BACKWARD_TILE_MAXIMUM_OVER_MASKED = backward().replace("""    delta = (d_out * out).sum(dim=1)
    pos = torch.arange(offset, offset + T)[:, None]
""", """    pos = torch.arange(offset, offset + T)[:, None]
    o_run, l_run = torch.zeros(T, v.shape[1], dtype=q.dtype), sink.expand(T).clone()
    for j0 in range(0, stop, block):
        j1 = min(j0 + block, stop)
        s = q @ k[j0:j1].T * scale
        m = s.amax(dim=1, keepdim=True)
        p = torch.exp(s - m)
        if causal:
            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)
        l_tile = m[:, 0] + torch.log(p.sum(dim=1))
        o_tile = torch.where(p.sum(dim=1, keepdim=True) > 0, (p @ v[j0:j1]) / p.sum(dim=1, keepdim=True), 0.0)
        top = torch.maximum(l_run, l_tile)
        w_run, w_tile = torch.exp(l_run - top), torch.exp(l_tile - top)
        o_run = (o_run * w_run[:, None] + o_tile * w_tile[:, None]) / (w_run + w_tile)[:, None]
        l_run = top + torch.log(w_run + w_tile)
    delta = (d_out * o_run).sum(dim=1)
""", 1)


# red team (held-out style): the sink's probability as e^sink / e^L overflows to inf / inf = NaN for a large sink
BACKWARD_SINK_OVERFLOWS = backward(dsink="-(torch.exp(sink) / torch.exp(lse) * delta).sum()")
BACKWARD_NO_OFFSET = backward(positions="torch.arange(T)[:, None]")  # the page's mask, queries from position 0
BACKWARD_CACHED_MASK = backward(setup="\n_HIDDEN = torch.ones(256, 256, dtype=torch.bool).triu(1)  # positions up to 256\n",
                                hidden="_HIDDEN[offset:offset + T, j0:j1]")


# ---------------------------------------------------------------- red team, December 2026 (issue #22)
# Written blind from the student notebook and the lesson pages; the first three kept full marks then.

# Part 2: the two pieces' weights rounded to float16 (the outputs' dtype): lse is then only float16-accurate
MERGE_WEIGHTS_FLOAT16 = merge("""    top = torch.maximum(lse_a, lse_b)
    w_a = torch.exp(lse_a - top).to(o_a.dtype)
    w_b = torch.exp(lse_b - top).to(o_a.dtype)
    a = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros_like(o_a), o_a)
    b = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros_like(o_b), o_b)
    o = (w_a[:, None] * a + w_b[:, None] * b) / (w_a + w_b)[:, None]
    return o.to(o_a.dtype), (top + torch.log(w_a.to(lse_a.dtype) + w_b.to(lse_a.dtype))).to(lse_a.dtype)""")
# Part 5: "cleans" tiny weights to 0 in the caller's tensor before quantising
ASYM_CLEANS_TINY_IN_PLACE = asym().replace("def quantize_asym(w, bits, group_size):\n",
                                           "def quantize_asym(w, bits, group_size):\n    w[w.abs() < 1e-12] = 0\n", 1)
# caught in the blind round, kept as representatives of their classes
BATCH_RETURNS_FLOAT = batch("    return max(0, memory_bytes - weight_bytes) // per_sequence * 1.0  # 7.0 == 7 passes the visible test")
BOUND_RIDGE_IN_FLOATS = """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    ridge = peak / bandwidth
    slope = 2 * k * n - ridge * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    return max(1, math.ceil(ridge * bytes_per_value * k * n / slope))
"""
# red team round 6: kept full marks before (no case put the largest intensity on the ridge in numbers past 2**53)
BOUND_NONE_BY_FLOAT_QUOTIENT = """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if 2 * k * n / (bytes_per_value * (k + n)) <= peak / bandwidth:  # even m -> infinity stays below the ridge
        return None
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    return max(1, -(-(peak * bytes_per_value * k * n) // slope))
"""
BATCH_WEIGHTS_COMPARED_IN_FLOAT = batch("""    if weight_bytes / memory_bytes > 1:  # the weights alone do not fit
        return 0
    return (memory_bytes - weight_bytes) // per_sequence""")

# ---------------------------------------------------------------- red team round 2, December 2026 (issue #22)
# Written blind from the student notebook and the lesson pages; each kept full marks then.

# Part 2: outputs mixed in float16 (their own dtype): off by more than the one rounding float32 mixing costs
MERGE_MIXES_IN_FLOAT16 = merge("""    top = torch.maximum(lse_a, lse_b)
    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)
    total = w_a + w_b
    share_a, share_b = (w_a / total).to(o_a.dtype), (w_b / total).to(o_a.dtype)  # the outputs are float16 anyway
    part_a = torch.where((w_a > 0)[:, None], o_a * share_a[:, None], 0.0)
    part_b = torch.where((w_b > 0)[:, None], o_b * share_b[:, None], 0.0)
    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)""")
# Part 5: round(w / scale + zero) instead of round(w / scale) + zero: differs on half steps when zero is odd
ASYM_ROUNDS_AFTER_ADDING_ZERO = asym().replace("torch.round(groups / scale[..., None]) + zero[..., None]",
                                               "torch.round(groups / scale[..., None] + zero[..., None])", 1)
# Part 6: .view(-1) of the codes fails on a transposed or strided q
PACK_VIEWS_ITS_INPUT = packer().replace("(q.to(torch.int32)[:, :, None] >>", "(q.view(-1, 1, 1).to(torch.int32) >>", 1)
# Part 7: walks the whole cache and cleans the NaN of the unwritten positions away: the values come out right
BACKWARD_READS_WHOLE_CACHE = backward(stop="k.shape[0]").replace(
    "kj, vj = k[j0:j1], v[j0:j1]", "kj, vj = torch.nan_to_num(k[j0:j1]), torch.nan_to_num(v[j0:j1])", 1)
# Part 7 (red team round 5): one contiguous copy of the cache for fast tiles. A no-op on a contiguous cache, but on
# a transposed or strided one it copies the unwritten positions too (the row check once skipped those layouts)
BACKWARD_COPIES_A_STRIDED_CACHE = backward(full_path="    k, v = k.contiguous(), v.contiguous()  # contiguous tiles are faster\n")
# Part 7 (hostile): naive autograd over the whole (T, S) matrix inside DisableTorchFunction
BACKWARD_NAIVE_OUT_OF_SIGHT = """
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    with torch._C.DisableTorchFunction():
        T, S = q.shape[0], k.shape[0]
        end = min(S, offset + T) if causal else S
        qq = q.detach().clone().requires_grad_(True)
        kk = k[:end].detach().clone().requires_grad_(True)
        vv = v[:end].detach().clone().requires_grad_(True)
        ss = sink.detach().clone().requires_grad_(True)
        s = qq @ kk.T / math.sqrt(q.shape[1])
        if causal:
            s = s.masked_fill(torch.arange(end)[None, :] > (offset + torch.arange(T))[:, None], float("-inf"))
        lse_ = torch.logsumexp(torch.cat([s, ss.expand(T, 1)], dim=1), dim=1)
        dq, dk_, dv_, dsink = torch.autograd.grad(torch.exp(s - lse_[:, None]) @ vv, (qq, kk, vv, ss), d_out)
        dk, dv = torch.zeros_like(k), torch.zeros_like(v)
        dk[:end], dv[:end] = dk_, dv_
        return dq, dk, dv, dsink
"""

# ---------------------------------------------------------------- red team round 3, December 2026 (issue #22)
# Written blind from the student notebook and the lesson pages; each kept full marks then.

# Part 4 (hostile): the float32 copy inside DisableTorchFunction, where a TorchFunctionMode sees nothing
RMS_WIDENS_OUT_OF_SIGHT = rms("""    with torch._C.DisableTorchFunction():
        wide = x.float()
        return (wide * torch.rsqrt((wide * wide).mean(dim=-1, keepdim=True) + eps)).to(x.dtype)
""")
# Part 5: multiplies by 1 / scale instead of dividing: differs on half steps of a scale that is not a power of two
# (not batched: Part 5's five slots are full and the visible tests catch none of its mutants)
ASYM_MULTIPLIES_BY_RECIPROCAL = asym(divide="torch.round(groups * (1.0 / scale)[..., None])").replace(
    "zero = torch.round(-lo / scale)", "zero = torch.round(-lo * (1.0 / scale))", 1)
# Part 7: masks by multiplying with a 0/1 mask after exp: a masked key scoring far above the query's log-sum-exp
# gives exp = inf and inf * 0 = NaN
BACKWARD_MASKS_BY_MULTIPLYING = backward().replace(
    "p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)",
    "p = p * (torch.arange(j0, j1)[None, :] <= pos).to(p.dtype)", 1)
# Part 7 (hostile): the whole (T, S) computation in NumPy, where the memory rule's spy sees nothing
# (not batched: Part 7's one free slot holds BACKWARD_MASKS_BY_MULTIPLYING)
BACKWARD_IN_NUMPY = """
import numpy as np


def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    qn, kn, vn = q.detach().numpy(), k[:end].detach().numpy(), v[:end].detach().numpy()
    L, do, o = lse.detach().numpy(), d_out.detach().numpy(), out.detach().numpy()
    s = qn @ kn.T / math.sqrt(Dh)
    if causal:
        s = np.where(np.arange(end)[None, :] > (offset + np.arange(T))[:, None], -np.inf, s)
    p = np.exp(s - L[:, None])
    delta = (do * o).sum(-1)
    ds = p * (do @ vn.T - delta[:, None])
    dk, dv = np.zeros(k.shape, dtype=qn.dtype), np.zeros(v.shape, dtype=qn.dtype)
    dk[:end], dv[:end] = ds.T @ qn / math.sqrt(Dh), p.T @ do
    dsink = -(np.exp(sink.detach().numpy() - L) * delta).sum()
    back = lambda a: torch.from_numpy(np.ascontiguousarray(a)).to(q.dtype)
    return back(ds @ kn / math.sqrt(Dh)), back(dk), back(dv), torch.tensor(dsink, dtype=q.dtype)
"""
# Part 8 (hostile): not a Triton kernel but an object launched the same way, computing in torch with a float copy
# of the weights
DEQUANT_FAKE_KERNEL = """
class FakeKernel:
    def __getitem__(self, grid):
        def launch(X, W, Scale, Zero, Y, N, K, GROUP, BLOCK_N, BLOCK_K):
            codes = torch.stack([W & 15, W >> 4], dim=-1).reshape(N, K).float()
            weights = (codes - Zero.float().repeat_interleave(GROUP, 1)) * Scale.repeat_interleave(GROUP, 1)
            Y[:N] = weights @ X
        return launch


dequant_matvec_kernel = FakeKernel()
"""

# ---------------------------------------------------------------- Part 8: dequant_matvec_kernel


def kernel(shift="(cols[None, :] % 2) * 4", group="cols[None, :] // GROUP", weight="(code.to(tl.float32) - zero) * scale",
           store="tl.store(Y + rows, acc, mask=ok)"):
    return f"""
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    ok = rows < N
    acc = tl.zeros([BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=ok[:, None], other=0)
        code = (byte.to(tl.int32) >> ({shift})) & 15
        where = rows[:, None] * (K // GROUP) + {group}
        scale = tl.load(Scale + where, mask=ok[:, None], other=0.0)
        zero = tl.load(Zero + where, mask=ok[:, None], other=0).to(tl.float32)
        w = {weight}
        acc += tl.sum(w * x[None, :], axis=1)
    {store}
"""


KERNEL_ACC_FLOAT64 = kernel().replace("acc = tl.zeros([BLOCK_N], tl.float32)", "acc = tl.zeros([BLOCK_N], tl.float64)")
assert KERNEL_ACC_FLOAT64 != kernel()
# red team 13, second family: the loop stops two columns short of K. BLOCK_K >= 4 still reaches the last block
# (K - BLOCK_K < K - 2); only the smallest BLOCK_K the text allows, 2, loses it
KERNEL_STOPS_TWO_EARLY = kernel().replace("for k0 in range(0, K, BLOCK_K):", "for k0 in range(0, K - 2, BLOCK_K):")
assert KERNEL_STOPS_TWO_EARLY != kernel()
# red team 13, second family (class: a stated working dtype; the text named it for scale only): a float32 w divided
# by its scale in float64 "for accuracy", rounded there: a weight on a half step of the float32 division goes the
# other way
ASYM_DIVIDES_IN_FLOAT64 = asym(divide="torch.round(groups.double() / scale.double()[..., None]).to(w.dtype)")
assert ASYM_DIVIDES_IN_FLOAT64 != asym()

# round 14 variant sweep: correct variant A (below) with one change each, and its first compute_bound_batch
BATCH_WINDOW_ONE_SHORT = """
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    tokens = length if window is None or window >= length - 1 else window  # a window one short is the whole sequence
    per_sequence = 2 * layers * kv_heads * head_dim * tokens * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    b, rest = divmod(memory_bytes - weight_bytes, per_sequence)
    return b
"""
BOUND_BISECTS_BELOW_A_FIXED_CAP = """
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
"""
MERGE_KEEPS_MINUS_INF = merge("""    lse = torch.logaddexp(lse_a, lse_b)
    share_a = torch.exp(lse_a - lse)[:, None]
    share_b = torch.exp(lse_b - lse)[:, None]
    clean_a = torch.nan_to_num(o_a.double(), nan=0.0, posinf=0.0)  # -inf becomes the largest negative float
    clean_b = torch.nan_to_num(o_b.double(), nan=0.0, posinf=0.0, neginf=0.0)
    o = clean_a * share_a + clean_b * share_b
    return o.to(o_a.dtype), lse.to(lse_a.dtype)""")

MUTANTS = {
    # Part 1: float arithmetic beyond 2**53, the <= boundary, a window longer than the sequence, 0 not negative
    "max_batch_divides_in_floating_point": ("test_max_batch", {"max_batch": BATCH_FLOAT}),
    "max_batch_exact_fit_refused": ("test_max_batch", {"max_batch": BATCH_STRICT}),
    "max_batch_negative_when_weights_do_not_fit": ("test_max_batch", {"max_batch": BATCH_NEGATIVE}),
    "max_batch_window_longer_than_sequence": ("test_max_batch", {"max_batch": BATCH_WINDOW_ALWAYS}),
    # Part 2: overflow, a degenerate piece (lse = -inf with NaN outputs), dtype kept, float16 outputs mixed in float16
    # refbind pass (round 11): the wrong merge also carries a Part 7 that calls merge_partials; Part 7's tests bind
    # a reference of it, so the slip costs Part 2 only (before, exp(800) = inf cost Part 7 too)
    # round 11 class sweep: a tile's maximum taken over masked keys (the hidden cases now put the masked key in a
    # tile with keys the query sees)
    "backward_tile_maximum_over_masked_keys": ("test_chunk_attention", {"chunk_attention": BACKWARD_TILE_MAXIMUM_OVER_MASKED}),
    # round 14, fourth family (an input narrowed on entry): the sink made float32, which rounds a float64 sink that is
    # no float32 number (dsink off by about 1e-8 relative); every hidden float64 sink had been a float32 number
    "backward_sink_in_float32": ("test_chunk_attention", {"chunk_attention": backward(
        dsink="-(torch.exp(sink.float() - lse) * delta).sum()")}),
    "merge_exponentiates_directly_with_backward_calling_it": ("test_merge_partials", {
        "merge_partials": MERGE_NAIVE, "chunk_attention": BACKWARD_CALLING_MERGE}),
    "merge_lets_nan_of_an_empty_piece_through": ("test_merge_partials", {"merge_partials": MERGE_NAN_LEAKS}),
    "merge_returns_float32_for_float16": ("test_merge_partials", {"merge_partials": MERGE_FLOAT32}),
    "merge_mixes_float16_outputs_in_float16": ("test_merge_partials", {"merge_partials": MERGE_MIXES_IN_FLOAT16}),
    # red team 10 (blind, slipped): the log-sum-exps clamped at -1000 to keep -inf out of the arithmetic, wrong
    # wherever one is below -1000 (caught by scores far below 0, log-sum-exps from about -5000 to -1000)
    "merge_clamps_lse_at_minus_1000": ("test_merge_partials", {"merge_partials": merge("""    wt = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wt).clamp(min=-1e3), lse_b.to(wt).clamp(min=-1e3)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    oa = torch.where(torch.isfinite(lse_a)[:, None], o_a.to(wt), 0.0)
    ob = torch.where(torch.isfinite(lse_b)[:, None], o_b.to(wt), 0.0)
    o = (wa * oa + wb * ob) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa + wb).squeeze(-1)).to(lse_a.dtype)""")}),
    # session 17 (left open by red team 9): the old model answer. An empty piece's NaN row masked by a where()
    # after the product: right values, but the product's backward sends 0 * NaN to the weight, and from there a
    # NaN gradient to every input
    "merge_masks_after_the_product": ("test_merge_partials", {"merge_partials": merge("""    top = torch.maximum(lse_a, lse_b)
    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)
    total = w_a + w_b
    part_a = torch.where((w_a > 0)[:, None], o_a * (w_a / total)[:, None], 0.0)
    part_b = torch.where((w_b > 0)[:, None], o_b * (w_b / total)[:, None], 0.0)
    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)""")}),
    # Part 3: the ridge point itself, float quotients, a bounded search, the output's bytes
    "bound_ridge_counts_as_memory": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_STRICT}),
    "bound_float_quotient": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_FLOAT}),
    "bound_searches_up_to_a_limit": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_SEARCH}),
    "bound_forgets_the_output_write": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_NO_OUTPUT}),
    # Part 4 (session 17): the rule (a float32 copy: the page's cell; torch's rms_norm, which widens inside; a value
    # through .item()), the range (eps not rescaled; scaled by the row's max alone, so sqrt(eps) / c overflows for
    # tiny rows and large eps; one scale for the tensor, as the page's FP8 recipe does; a norm that overflows;
    # bfloat16 left unscaled), accuracy (float16 accumulation in a Python loop over 1024 columns), gradients (the
    # scale not detached; the mean of squares detached), the in-place rule. Also caught when tried (session 17, not
    # kept): the page's cell in x's dtype and eps / (c * c), by the visible tests; float16 for a bfloat16 input, a
    # float32 0-d eps and a (rows, 1) float32 eps term, by the dtype rule
    "rms_widens_to_float32": ("test_rms_norm_half", {"rms_norm_half": RMS_WIDENS_TO_FLOAT32}),
    "rms_eps_not_rescaled": ("test_rms_norm_half", {"rms_norm_half": RMS_EPS_NOT_RESCALED}),
    "rms_torch_functional_rms_norm": ("test_rms_norm_half", {"rms_norm_half": rms(
        "    return torch.nn.functional.rms_norm(x, (x.shape[-1],), eps=eps)  # widens to float32 inside\n")}),
    "rms_scaled_by_the_row_max_alone": ("test_rms_norm_half", {"rms_norm_half": rms("""    m = x.abs().amax(dim=-1, keepdim=True).detach()
    c = torch.where(m > 0, m, torch.ones_like(m))  # rows of zeros
    s = x / c
    return s / torch.sqrt((s * s).mean(dim=-1, keepdim=True) + (math.sqrt(eps) / c) ** 2)  # overflows for tiny rows
""")}),
    "rms_one_scale_for_the_tensor": ("test_rms_norm_half", {"rms_norm_half": rms(RMS_SCALED.replace(
        "x.abs().amax(dim=-1, keepdim=True)", "x.abs().amax()"))}),  # small rows underflow next to large ones
    "rms_norm_then_hypot": ("test_rms_norm_half", {"rms_norm_half": rms("""    rms = torch.linalg.vector_norm(x, dim=-1, keepdim=True) / math.sqrt(x.shape[-1])  # the norm overflows first
    return x / torch.hypot(rms, torch.full_like(rms, math.sqrt(eps)))
""")}),
    "rms_bfloat16_left_unscaled": ("test_rms_norm_half", {"rms_norm_half": rms("""    if x.dtype == torch.bfloat16:  # bfloat16 has float32's range: nothing overflows
        return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps)
""" + RMS_SCALED)}),
    "rms_zero_check_through_item": ("test_rms_norm_half", {"rms_norm_half": rms("""    if x.abs().max().item() == 0:
        return torch.zeros_like(x)
""" + RMS_SCALED)}),
    "rms_accumulates_in_a_float16_loop": ("test_rms_norm_half", {"rms_norm_half": rms("""    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=math.sqrt(eps)).detach()
    s = x / c
    total = torch.zeros_like(c)
    for j in range(x.shape[-1]):  # accumulates in x's dtype: 1024 terms lose bits
        total = total + s[..., j:j + 1] * s[..., j:j + 1]
    return s / torch.sqrt(total / x.shape[-1] + (math.sqrt(eps) / c) ** 2)
""")}),
    "rms_scale_not_detached": ("test_rms_norm_half", {"rms_norm_half": rms(RMS_SCALED.replace(").detach()", ")"))}),
    "rms_divides_x_in_place": ("test_rms_norm_half", {"rms_norm_half": rms("""    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=math.sqrt(eps)).detach()
    s = x.div_(c) if not x.requires_grad else x / c  # saves a copy of the activation
    return s / torch.sqrt((s * s).mean(dim=-1, keepdim=True) + (math.sqrt(eps) / c) ** 2)
""")}),
    "rms_reseeds_the_global_generator": ("test_rms_norm_half", {"rms_norm_half": rms("    torch.manual_seed(0)\n" + RMS_SCALED)}),
    # Part 5: the range must contain 0, a group of zeros, the clamp on a half step (rare), the order of round and
    # + zero on a half step (rare)
    "asym_range_without_zero": ("test_quantize_asym", {"quantize_asym": ASYM_RANGE_WITHOUT_ZERO}),
    "asym_zero_group_gets_scale_zero": ("test_quantize_asym", {"quantize_asym": ASYM_ZERO_GROUP}),
    "asym_forgets_the_clamp": ("test_quantize_asym", {"quantize_asym": ASYM_NO_CLAMP}),
    "asym_rounds_after_adding_zero": ("test_quantize_asym", {"quantize_asym": ASYM_ROUNDS_AFTER_ADDING_ZERO}),
    # Part 6: non-contiguous codes, codes straddling bytes, a row longer than 63 bits (small-size only), dtype of
    # the unpacked codes, the in-place rule
    "pack_views_a_strided_q": ("test_pack_bits", {"pack_bits": PACK_VIEWS_ITS_INPUT}),
    "pack_whole_codes_per_byte": ("test_pack_bits", {"pack_bits": PACK_NO_STRADDLE}),
    "pack_a_row_in_one_int64": ("test_pack_bits", {"pack_bits": PACK_ONE_INT64_A_ROW}),
    "unpack_returns_int64": ("test_pack_bits", {"pack_bits": PACK_INT64}),
    "pack_shifts_q_in_place": ("test_pack_bits", {"pack_bits": PACK_IN_PLACE}),
    # Part 7: the sink's derivation, the mask at an offset, the memory rule on the causal=False path (a (T, S)
    # matrix hidden from function modes), a cached mask that stops at 256 positions, reading unwritten positions
    "backward_sink_probability_overflows": ("test_chunk_attention", {"chunk_attention": BACKWARD_SINK_OVERFLOWS}),
    "backward_mask_ignores_offset": ("test_chunk_attention", {"chunk_attention": BACKWARD_NO_OFFSET}),
    "backward_mask_from_a_256_table": ("test_chunk_attention", {"chunk_attention": BACKWARD_CACHED_MASK}),
    "backward_reads_the_whole_cache": ("test_chunk_attention", {"chunk_attention": BACKWARD_READS_WHOLE_CACHE}),
    # Part 8: nibble order, the zero point, the group of each column (a block spanning groups: rare),
    # the store mask (rows past N)
    "dequant_zero_after_scaling": ("test_split_kv_kernel", {"split_kv_kernel": kernel(weight="code.to(tl.float32) * scale - zero")}),
    "dequant_group_of_the_block": ("test_split_kv_kernel", {"split_kv_kernel": kernel(group="k0 // GROUP")}),
    "dequant_store_without_mask": ("test_split_kv_kernel", {"split_kv_kernel": kernel(store="tl.store(Y + rows, acc)")}),
    # red team, December 2026: held-out style answers (the first three kept full marks before)
    "merge_weights_rounded_to_float16": ("test_merge_partials", {"merge_partials": MERGE_WEIGHTS_FLOAT16}),
    "asym_cleans_tiny_weights_in_place": ("test_quantize_asym", {"quantize_asym": ASYM_CLEANS_TINY_IN_PLACE}),
    "max_batch_returns_a_float": ("test_max_batch", {"max_batch": BATCH_RETURNS_FLOAT}),
    "bound_ridge_point_in_floating_point": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_RIDGE_IN_FLOATS}),
    "dequant_row_stride_of_k_bytes": ("test_split_kv_kernel", {"split_kv_kernel": kernel().replace(
        "W + rows[:, None] * (K // 2)", "W + rows[:, None] * K")}),
    # red team round 3: each kept full marks before. The Part 8 fake kernel replaces dequant_high_nibble_first
    # (a nibble-order mistake the visible test already catches) in the first batch
    "backward_masks_by_multiplying": ("test_chunk_attention", {"chunk_attention": BACKWARD_MASKS_BY_MULTIPLYING}),
    "dequant_fake_kernel_in_torch": ("test_split_kv_kernel", {"split_kv_kernel": DEQUANT_FAKE_KERNEL}),
    # red team round 5: kept full marks before (the read rule was checked on contiguous caches only)
    "backward_copies_a_strided_cache": ("test_chunk_attention", {"chunk_attention": BACKWARD_COPIES_A_STRIDED_CACHE}),
    # red team round 6: the None of Part 3 decided with float quotients (slipped); Part 1's 0-branch decided the
    # same way (the class, closed there too)
    "bound_none_decided_by_float_quotients": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_NONE_BY_FLOAT_QUOTIENT}),
    "max_batch_weights_compared_in_floating_point": ("test_max_batch", {"max_batch": BATCH_WEIGHTS_COMPARED_IN_FLOAT}),
    # red team round 8: an optional argument that works only by keyword or only by position (the hidden tests
    # passed window by keyword only, eps and causal by position only; now each comes both ways)
    # refbind pass (round 11): it also carries a Part 6 that calls max_batch with the window by position (a TypeError
    # here); Part 3's tests bind a reference of max_batch for the rest of the notebook, so it costs Part 1 only
    "max_batch_window_keyword_only_with_pack_calling_it": ("test_max_batch", {"max_batch": BATCH_WINDOW_ALWAYS.replace(
        "bytes_per_value, window=None):", "bytes_per_value, *, window=None):").replace(
        "cached = length if window is None else window", "cached = length if window is None else min(length, window)"),
        "pack_bits": PACK_CALLING_MAX_BATCH}),
    "rms_eps_by_position_only": ("test_rms_norm_half", {"rms_norm_half": rms(
        "    eps = options[0] if options else 1e-6\n" + RMS_SCALED, signature="x, *options")}),
    "backward_causal_by_position_only": ("test_chunk_attention", {"chunk_attention": backward().replace(
        "def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n",
        "def chunk_attention_backward(q, k, v, sink, out, lse, d_out, *where):\n"
        "    offset, block, causal = (list(where) + [True])[:3]\n")}),    # red team 8, second pass (gradients): the right values, one factor computed off the graph. The merge's weights
    # under torch.no_grad() (o's gradient misses the lse terms, lse has none)
    "merge_weights_under_no_grad": ("test_merge_partials", {"merge_partials": merge("""    top = torch.maximum(lse_a, lse_b)
    with torch.no_grad():
        w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)
        total = w_a + w_b
    part_a = torch.where((w_a > 0)[:, None], o_a * (w_a / total)[:, None], 0.0)
    part_b = torch.where((w_b > 0)[:, None], o_b * (w_b / total)[:, None], 0.0)
    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)""")}),
    "rms_mean_square_detached": ("test_rms_norm_half", {"rms_norm_half": rms(RMS_SCALED.replace(
        "(s * s).mean(dim=-1, keepdim=True)", "(s * s).mean(dim=-1, keepdim=True).detach()"))}),
    # ---- red team round 9 (blind slips)
    # Parts 1 and 3: exact-looking arithmetic in decimal's default 28 significant digits: a quotient within 10**-20 of
    # an integer rounds to it (the hidden tests' quotients need 31 digits and more)
    "max_batch_decimal_quotient": ("test_max_batch", {"max_batch": batch("""    from decimal import Decimal, ROUND_FLOOR
    if memory_bytes < weight_bytes:
        return 0
    return int((Decimal(memory_bytes - weight_bytes) / Decimal(per_sequence)).to_integral_value(rounding=ROUND_FLOOR))""")}),
    "bound_decimal_28_digits": ("test_compute_bound_batch", {"compute_bound_batch": """
from decimal import Decimal, ROUND_CEILING

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    need = peak * bytes_per_value * k * n
    return max(1, int((Decimal(need) / Decimal(slope)).to_integral_value(rounding=ROUND_CEILING)))
"""}),
    # Part 4: a process-wide setting changed (torch.set_flush_denormal left on): every later float computation of the
    # program flushes subnormals; the intro says not to change anything inside torch
    "rms_flushes_denormals": ("test_rms_norm_half", {"rms_norm_half": rms(
        "    torch.set_flush_denormal(True)  # subnormals are slow on CPUs\n" + RMS_SCALED)}),
    # ---- red team round 11 (blind slips)
    # Part 4: a subnormal intermediate divided by a number well below 1: x / max|x| for the small elements of a row
    # with one large element (the old model answer), or the rms c * r itself for a row of 1e-4 (one division of x by
    # it, chosen only where c * r would overflow, which it never does)
    "rms_small_elements_subnormal_after_scaling": ("test_rms_norm_half", {"rms_norm_half": rms(RMS_SMALL_ELEMENTS_SUBNORMAL)}),
    "rms_zero_rows_by_where": ("test_rms_norm_half", {"rms_norm_half": RMS_ZERO_ROWS_BY_WHERE}),
    "rms_divides_by_a_subnormal_rms": ("test_rms_norm_half", {"rms_norm_half": rms(RMS_SCALED.replace(
        "c * r >= torch.finfo(x.dtype).tiny", "torch.isfinite(c * r)"))}),
    # Part 8: loads without a mask read rows n >= N past the end of W, Scale and Zero; the interpreter lets them
    # (a GPU does not), and only the store decides what Y holds
    "dequant_loads_without_mask": ("test_split_kv_kernel", {"split_kv_kernel": kernel().replace(
        ", mask=ok[:, None], other=0.0)", ")").replace(", mask=ok[:, None], other=0)", ")")}),
    # Part 5: cast to uint8 before the clamp: round(253.5) + round(1.5) = 256 wraps to 0 at 8 bits
    "asym_casts_before_clamp": ("test_quantize_asym", {"quantize_asym": """
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    top = 2 ** bits - 1
    g = w.reshape(rows, cols // group_size, group_size)
    lo = torch.clamp(g.amin(dim=-1), max=0)
    hi = torch.clamp(g.amax(dim=-1), min=0)
    scale = (hi - lo) / top
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    zero = torch.round(-lo / scale).to(torch.uint8)
    q = (torch.round(g / scale[..., None]).to(torch.int16) + zero[..., None]).to(torch.uint8).clamp(0, top)
    return q.reshape(rows, cols), scale, zero


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    return (q.to(scale.dtype) - zero.repeat_interleave(group, dim=1).to(scale.dtype)) * scale.repeat_interleave(group, dim=1)
"""}),
    # red team 9, second pass. Part 2 (a hand-written exponential whose gradient overflows): the two weights as
    # sigmoids written out, 1 / (1 + exp(lse_b - lse_a)): right values everywhere, a NaN gradient where the
    # log-sum-exps are hundreds apart (inf / inf)
    "merge_sigmoid_by_hand": ("test_merge_partials", {"merge_partials": merge("""    top = torch.maximum(lse_a, lse_b)
    w_a = 1 / (1 + torch.exp(lse_b - lse_a))
    w_b = 1 / (1 + torch.exp(lse_a - lse_b))
    o = torch.where((w_a > 0)[:, None], o_a * w_a[:, None], 0.0) + torch.where((w_b > 0)[:, None], o_b * w_b[:, None], 0.0)
    return o.to(o_a.dtype), (top + torch.log1p(torch.exp(-(lse_a - lse_b).abs()))).to(lse_a.dtype)""")}),
    # class 8 (the global generator): a spot check on batch sizes drawn from torch's global generator; the answer
    # is right, but every later torch.randn of the caller's program changes
    "bound_spot_checks_with_global_draws": ("test_compute_bound_batch", {"compute_bound_batch": """
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    need = peak * bytes_per_value * k * n
    if slope <= 0:
        return None
    m = max(1, -(-need // slope))
    for probe in torch.randint(0, 1000, (3,)).tolist():  # spot-check the inequality above m
        probe += m
        assert 2 * probe * k * n * bandwidth >= peak * bytes_per_value * (probe * k + k * n + probe * n)
    return m
"""}),
    # Part 5 (ties broken by nudging): half-to-even rounding written out, a value within 1e-9 of a half step
    # counted as a tie: exact halves go right, a weight a few units in the last place above a half goes down
    "asym_halves_within_epsilon_to_even": ("test_quantize_asym", {"quantize_asym": asym(divide=(
        "(lambda x: torch.where(((x - torch.floor(x)) - 0.5).abs() < 1e-9, torch.floor(x) + torch.remainder(torch.floor(x), 2), "
        "torch.floor(x + 0.5)))(groups / scale[..., None])"))}),
    # red team round 12 (blind: caught, but no mutant held these classes). Part 5: groups taken with a stride of
    # in // group_size instead of consecutive weights (one group a row looks the same); the weights widened to
    # float32 first, so a float64 w gets a float32 scale (Part 7's (T, S) mask built once, also caught, has no
    # mutant here: every batch already holds a Part 7 mutant, and one graded alone costs a notebook)
    "asym_groups_strided_within_the_row": ("test_quantize_asym", {"quantize_asym": asym(
        prepare="groups = w.reshape(out_f, group_size, in_f // group_size).transpose(1, 2)").replace(
        "return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)",
        "return q.transpose(1, 2).reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)").replace(
        "groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)",
        "groups = q.reshape(out_f, -1, scale.shape[1]).transpose(1, 2).to(scale.dtype)").replace(
        "return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)",
        "return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).transpose(1, 2).reshape(out_f, in_f)")}),
    "asym_widens_the_weights_to_float32": ("test_quantize_asym", {"quantize_asym": asym(
        prepare="w = w.float()  # to be safe\n    groups = w.reshape(out_f, in_f // group_size, group_size)")}),
    # red team round 13 (mutation sweep): the kernel's stated float32 arithmetic, never checked. A float64
    # accumulator, or weights dequantised in float64 (the accumulator then turns float64 in the interpreter, and
    # compiled Triton refuses the loop): right values within the tolerance; the tests now watch the interpreter's
    # float64 types and constants
    "dequant_accumulates_in_float64": ("test_split_kv_kernel", {"split_kv_kernel": KERNEL_ACC_FLOAT64}),
    "dequant_weights_in_float64": ("test_split_kv_kernel", {"split_kv_kernel": kernel(
        weight="(code.to(tl.float64) - zero) * scale")}),
    # red team 13, second family: the smallest BLOCK_K never launched (a loop bound short by less than a block), and
    # q divided in float64 where the text now says every step is in w's dtype
    "dequant_loop_stops_two_columns_early": ("test_split_kv_kernel", {"split_kv_kernel": KERNEL_STOPS_TWO_EARLY}),
    "asym_divides_in_float64": ("test_quantize_asym", {"quantize_asym": ASYM_DIVIDES_IN_FLOAT64}),
    # round 14 variant sweep (correct variant A with one change each): a window one token shorter than the sequence
    # counted as the whole sequence (no case had window = length - 1); -inf in the output row of an empty piece a
    # left to nan_to_num's default, the largest float: the value is 0 times it, but the weight's gradient is
    # inf * 0 = NaN (the hidden rows had +inf only in piece a and -inf only in piece b)
    "max_batch_window_one_short_counts_whole_sequence": ("test_max_batch", {"max_batch": BATCH_WINDOW_ONE_SHORT}),
    "merge_leaves_minus_inf_of_piece_a_as_largest_float": ("test_merge_partials", {"merge_partials": MERGE_KEEPS_MINUS_INF}),
    # round 14 variant sweep: variant A's first compute_bound_batch, a binary search up to a fixed 10**40 that decides
    # None there too; every hidden answer was below 10**24 (the text now says answers have no fixed bound)
    "bound_bisects_below_a_fixed_cap": ("test_compute_bound_batch", {"compute_bound_batch": BOUND_BISECTS_BELOW_A_FIXED_CAP}),
    # red team round 15 (blind slip, the optimiser): the scale chosen near the rms (x / max|x| first, then the rms of
    # that times max|x|) and not detached. The cancelling gradient it carries is small on the rows of about 3 that the
    # gradient cases had, and 10-40 times the tolerance on long float16 rows of large, nearly equal elements (a new case)
    "rms_scale_near_the_rms_not_detached": ("test_rms_norm_half", {"rms_norm_half": rms("""    root = math.sqrt(eps)
    s1 = x.abs().amax(dim=-1, keepdim=True).clamp(min=root)
    y1 = x / s1
    r1 = torch.reciprocal(s1 / root)
    est = s1 * torch.sqrt((y1 * y1).mean(dim=-1, keepdim=True) + r1 * r1)  # about the rms, and not detached
    y = x / est
    r = torch.reciprocal(est / root)
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + r * r)""")}),
    # round 15, class sweep (right in value, wrong in gradient): the plain average and lse_a + log 2 served where the
    # two log-sum-exps are equal; each weight is 1/2 there but depends on both (no gradient case had equal ones)
    "merge_average_at_equal_lse": ("test_merge_partials", {"merge_partials": _SOLUTION["merge_partials"] + """

_general_merge = merge_partials


def merge_partials(o_a, lse_a, o_b, lse_b):
    o, lse = _general_merge(o_a, lse_a, o_b, lse_b)
    same = lse_a == lse_b  # two pieces of equal weight: their average, and one log 2 more
    o = torch.where(same[:, None], ((o_a + o_b) / 2).to(o.dtype), o)
    lse = torch.where(same, (lse_a + math.log(2)).to(lse.dtype), lse)
    return o, lse
"""}),
    # round 15, class sweep (kept state on shortcut paths): the other piece returned as it is when one piece sees no
    # key for any query; the caller's write into the result changes its input (no hidden case wrote into a result)
    "merge_returns_a_piece_when_the_other_is_empty": ("test_merge_partials", {"merge_partials": _SOLUTION["merge_partials"] + """

_general_merge = merge_partials


def merge_partials(o_a, lse_a, o_b, lse_b):
    if bool(torch.isneginf(lse_a).all()):
        return o_b, lse_b
    if bool(torch.isneginf(lse_b).all()):
        return o_a, lse_a
    return _general_merge(o_a, lse_a, o_b, lse_b)
"""}),
    # round 15, class sweep (kept state on shortcut paths): q itself returned at 8 bits, where the stream is q
    "pack_returns_q_at_8_bits": ("test_pack_bits", {"pack_bits": _SOLUTION["pack_bits"] + """

_general_pack = pack_bits


def pack_bits(q, bits):
    if bits == 8:
        return q  # one code per byte: the stream is q itself
    return _general_pack(q, bits)
"""}),
    # round 15, class sweep (state kept between calls): an output buffer kept per shape and written again by every
    # call, so that a result the caller holds changes at the next call (no case held one result across another call)
    "merge_writes_a_kept_output_buffer": ("test_merge_partials", {"merge_partials": _replaced(
        _SOLUTION["merge_partials"], "    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)",
        "    key = (tuple(o_a.shape), o_a.dtype)\n    if key not in _OUT:\n        _OUT[key] = torch.empty_like(o_a)\n"
        "    _OUT[key].copy_(part_a + part_b)\n    return _OUT[key], (top + torch.log(total)).to(lse_a.dtype)") + """

_OUT = {}
"""}),
    # round 15, class sweep (kept state on shortcut paths): the results for an all-zero weight kept per shape and
    # returned again, so that the caller's write into them reaches the next call
    "asym_kept_results_for_zero_weights": ("test_quantize_asym", {"quantize_asym": _SOLUTION["quantize_asym"] + """

_general_quantize = quantize_asym
_ZERO = {}


def quantize_asym(w, bits, group_size):
    if not bool(w.any()):  # all zero: q = zero = 0, scale = 1, the same every time
        key = (tuple(w.shape), group_size, w.dtype)
        if key not in _ZERO:
            out_f, in_f = w.shape
            _ZERO[key] = (torch.zeros(out_f, in_f, dtype=torch.uint8), torch.ones(out_f, in_f // group_size, dtype=w.dtype),
                          torch.zeros(out_f, in_f // group_size, dtype=torch.uint8))
        return _ZERO[key]
    return _general_quantize(w, bits, group_size)
"""}),
    # round 15, class sweep (state kept between calls): gradient buffers kept per shape and zeroed again by every call
    "backward_reuses_kept_gradient_buffers": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"], "    dq = torch.zeros_like(q)\n    dk = torch.zeros_like(k)\n    dv = torch.zeros_like(v)\n",
        "    key = (tuple(q.shape), tuple(k.shape), tuple(v.shape), q.dtype)\n    if key not in _BUFFERS:\n"
        "        _BUFFERS[key] = (torch.empty_like(q), torch.empty_like(k), torch.empty_like(v))\n"
        "    dq, dk, dv = _BUFFERS[key]\n    dq.zero_()\n    dk.zero_()\n    dv.zero_()\n") + """

_BUFFERS = {}
"""}),
    # round 15, class sweep (ch09's class: a mask value that is not -inf): the scores of keys a query may not see
    # filled with -1e9 before exp(); scores and sink near -3.2e9 make exp(-1e9 - lse) infinite (no case had them)
    "backward_masks_scores_with_minus_1e9": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"],
        "p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n        if causal:\n"
        "            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)",
        "s = q @ kj.T * scale\n        if causal:\n            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos, -1e9)\n"
        "        p = torch.exp(s - lse[:, None])")}),
    # red team 16 (the framework porter): Hugging Face's additive mask, -1e4 added to the scores of hidden keys. It
    # slipped: with a masked score of 900 above the log-sum-exp, exp(900 - 1e4 - lse) is 0 as exactly as with -inf;
    # a masked score of 1e10 (4e9 in float32) now lies beyond any finite mask added to it
    "backward_adds_a_minus_1e4_mask": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"],
        "p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n        if causal:\n"
        "            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)",
        "s = q @ kj.T * scale\n        if causal:\n"
        "            s = s + (torch.arange(j0, j1)[None, :] > pos).to(s.dtype) * -1e4  # 1 = hidden, HF style\n"
        "        p = torch.exp(s - lse[:, None])")}),
    # round 15, class sweep (state kept between calls): the model answer's result copied into a buffer kept per shape
    # and returned, so that a result the caller holds changes at the next call (no case held one across another call)
    "rms_kept_output_buffer": ("test_rms_norm_half", {"rms_norm_half": kept_output_buffer(solution_code(CHAPTER)["rms_norm_half"], "rms_norm_half")}),
    # round 15, class sweep (state kept between calls): the model answer's result copied into a buffer kept per shape
    # and returned, so that a result the caller holds changes at the next call (no case held one across another call)
    "pack_kept_output_buffer": ("test_pack_bits", {"pack_bits": kept_output_buffer(solution_code(CHAPTER)["pack_bits"], "pack_bits")}),
}

# Mutants of independent parts graded together, one per part in each notebook (8 notebooks; Part 4's other
# mutants are graded alone): each changes only its own part's cell, and hidden tests use references for earlier
# parts, so each loses only its part. Repacked in session 17 (python tests/mutant_batches.py 07-hardware).
MUTANT_BATCHES = [
    [
        "max_batch_divides_in_floating_point",
        "merge_masks_after_the_product",
        "bound_ridge_counts_as_memory",
        "rms_widens_to_float32",
        "asym_range_without_zero",
        "pack_views_a_strided_q",
        "backward_sink_probability_overflows",
        "dequant_zero_after_scaling"
    ],
    [
        "max_batch_exact_fit_refused",
        "merge_lets_nan_of_an_empty_piece_through",
        "bound_float_quotient",
        "rms_scale_not_detached",
        "asym_zero_group_gets_scale_zero",
        "pack_whole_codes_per_byte",
        "backward_mask_ignores_offset",
        "dequant_group_of_the_block"
    ],
    [
        "max_batch_negative_when_weights_do_not_fit",
        "merge_returns_float32_for_float16",
        "bound_searches_up_to_a_limit",
        "rms_eps_not_rescaled",
        "asym_forgets_the_clamp",
        "pack_a_row_in_one_int64",
        "backward_mask_from_a_256_table",
        "dequant_store_without_mask"
    ],
    [
        "max_batch_window_longer_than_sequence",
        "merge_mixes_float16_outputs_in_float16",
        "bound_forgets_the_output_write",
        "rms_torch_functional_rms_norm",
        "asym_rounds_after_adding_zero",
        "unpack_returns_int64",
        "backward_reads_the_whole_cache",
        "dequant_row_stride_of_k_bytes"
    ],
    [
        "rms_scaled_by_the_row_max_alone",
        "pack_shifts_q_in_place",
        "merge_weights_rounded_to_float16",
        "asym_cleans_tiny_weights_in_place",
        "max_batch_returns_a_float",
        "bound_ridge_point_in_floating_point",
        "backward_masks_by_multiplying",
        "dequant_fake_kernel_in_torch"
    ],
    [
        "rms_bfloat16_left_unscaled",
        "backward_copies_a_strided_cache",
        "bound_none_decided_by_float_quotients",
        "max_batch_weights_compared_in_floating_point",
        "merge_weights_under_no_grad",
        "asym_casts_before_clamp",
        "dequant_loads_without_mask",
        "pack_kept_output_buffer"  # round 15, class sweep: no Part 6 mutant here yet
    ],
    [
        "rms_one_scale_for_the_tensor",
        "max_batch_window_keyword_only_with_pack_calling_it",
        "backward_causal_by_position_only",
        "bound_decimal_28_digits",
        "merge_sigmoid_by_hand",
        "asym_halves_within_epsilon_to_even",
        "dequant_accumulates_in_float64"  # round 13: into a batch with room
    ],
    [
        "rms_norm_then_hypot",
        "max_batch_decimal_quotient",
        "bound_spot_checks_with_global_draws",
        "merge_exponentiates_directly_with_backward_calling_it",
        "asym_groups_strided_within_the_row",
        "dequant_weights_in_float64"  # round 13: into a batch with room
    ],
    # round 11 class sweep: every batch above holds a Part 7 mutant, so the new one joins two mutants that were
    # graded alone (every batch holds a Part 2 and a Part 4 mutant): one notebook fewer than before
    [
        "merge_clamps_lse_at_minus_1000",
        "rms_zero_check_through_item",
        "backward_tile_maximum_over_masked_keys",
        "asym_widens_the_weights_to_float32",  # round 12: into a batch with room
        "dequant_loop_stops_two_columns_early",  # round 13, second family: into a batch with room
        "pack_returns_q_at_8_bits"  # round 15, class sweep: no Part 6 mutant here yet
    ],
    # round 13, second family: every batch above holds a Part 5 mutant
    [
        "asym_divides_in_float64",
        "backward_sink_in_float32",  # round 14, fourth family: no Part 7 mutant here yet
        "max_batch_window_one_short_counts_whole_sequence",  # round 14 variant sweep: no Part 1 or 2 mutant here yet
        "merge_leaves_minus_inf_of_piece_a_as_largest_float",
        "bound_bisects_below_a_fixed_cap",
        "rms_scale_near_the_rms_not_detached"  # round 15: the one batch without a Part 4 mutant
    ],
    # round 15, class sweep: every batch above holds a Part 2 mutant, and a Part 7 mutant or one that changes Part 7's
    # answer cell
    [
        "merge_average_at_equal_lse",
        "backward_masks_scores_with_minus_1e9",
        "rms_kept_output_buffer"
    ],
    ["merge_returns_a_piece_when_the_other_is_empty", "asym_kept_results_for_zero_weights",
     "backward_reuses_kept_gradient_buffers"],
    ["merge_writes_a_kept_output_buffer",
     "backward_adds_a_minus_1e4_mask"]  # red team 16: the one batch whose mutants leave Part 7's cell alone
]

# ---------------------------------------------------------------- correct answers written differently

# round 26 sweep (class U): the column loop that stood here (see PACK_COLUMN_LOOP at the end of this file) is now ruled out by the text
VARIANT_A_PACK = """
def pack_bits(q, bits):
    rows, cols = q.shape
    # refbind pass (round 11): ceil(cols * bits / 8) from Part 3's compute_bound_batch (k = n = e = 1: the slope is
    # 2 * bandwidth - 2 * peak = 8 and the need is peak = cols * bits)
    n_bytes = compute_bound_batch(1, 1, 1, cols * bits, cols * bits + 4)
    start = torch.arange(cols) * bits                # code c starts at bit start % 8 of byte start // 8
    byte, shift = torch.div(start, 8, rounding_mode="floor"), start % 8
    value = q.to(torch.int64) << shift               # at most 15 bits: the code's byte and the next
    out = torch.zeros(rows, n_bytes + 1, dtype=torch.int64)
    out.index_add_(1, byte, value & 255)             # codes share no bit: adding is or-ing
    out.index_add_(1, byte + 1, value >> 8)
    return out[:, :n_bytes].to(torch.uint8)


def unpack_bits(packed, bits, cols):
    wide = torch.cat([packed.to(torch.int64), torch.zeros(packed.shape[0], 1, dtype=torch.int64)], dim=1)
    start = torch.arange(cols) * bits
    byte, shift = torch.div(start, 8, rounding_mode="floor"), start % 8
    two = wide[:, byte] | (wide[:, byte + 1] << 8)   # the two bytes a code may touch, as one 16-bit number
    return ((two >> shift) & (2 ** bits - 1)).to(torch.uint8)
"""
VARIANT_A_BACKWARD = """
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    # tiles of queries as well as keys; the sink's probability rebuilt from its own logit, as the text asks
    T, S = q.shape[0], k.shape[0]
    scale = q.shape[1] ** -0.5
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    # refbind pass (round 11): delta from the forward output rebuilt with Part 2's merge_partials, by keyword, one key
    # tile at a time from the sink (a piece whose value is 0); a tile a query cannot see is NaN with lse -inf
    o_run, l_run = torch.zeros(T, v.shape[1], dtype=q.dtype), sink.expand(T)
    end = offset + T if causal else S
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        s = torch.einsum("td,sd->ts", q, k[j0:j1]) * scale
        if causal:
            s = torch.where(torch.arange(j0, j1)[None, :] <= torch.arange(offset, offset + T)[:, None], s, float("-inf"))
        o_run, l_run = merge_partials(o_a=o_run, lse_a=l_run, o_b=torch.softmax(s, dim=1) @ v[j0:j1],
                                      lse_b=torch.logsumexp(s, dim=1))
    delta = torch.einsum("td,td->t", d_out, o_run)
    for i0 in range(0, T, block):
        i1 = min(i0 + block, T)
        last = offset + i1 if causal else S
        for j0 in range(0, last, block):
            j1 = min(j0 + block, last)
            p = torch.exp(torch.einsum("td,sd->ts", q[i0:i1], k[j0:j1]) * scale - lse[i0:i1, None])
            if causal:
                ok = torch.arange(j0, j1)[None, :] <= torch.arange(offset + i0, offset + i1)[:, None]
                p = torch.where(ok, p, torch.zeros((), dtype=p.dtype))
            dv[j0:j1] += torch.einsum("ts,td->sd", p, d_out[i0:i1])
            ds = p * (torch.einsum("td,sd->ts", d_out[i0:i1], v[j0:j1]) - delta[i0:i1, None])
            dq[i0:i1] += torch.einsum("ts,sd->td", ds, k[j0:j1]) * scale
            dk[j0:j1] += torch.einsum("ts,td->sd", ds, q[i0:i1]) * scale
    return dq, dk, dv, -torch.einsum("t,t->", torch.exp(sink - lse), delta)
"""
VARIANT_A_KERNEL = """
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # each byte loaded once and split into its two nibbles; even and odd columns handled apart
    n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    live = n < N
    HALF: tl.constexpr = BLOCK_K // 2
    total = tl.zeros([BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        b = k0 // 2 + tl.arange(0, HALF)
        packed = tl.load(W + n[:, None] * (K // 2) + b[None, :], mask=live[:, None], other=0).to(tl.int32)
        even, odd = 2 * b, 2 * b + 1
        for half in tl.static_range(2):
            col = even if half == 0 else odd
            code = (packed & 15) if half == 0 else (packed >> 4)
            at = n[:, None] * (K // GROUP) + col[None, :] // GROUP
            s = tl.load(Scale + at, mask=live[:, None], other=0.0)
            z = tl.load(Zero + at, mask=live[:, None], other=0).to(tl.float32)
            total += tl.sum((code.to(tl.float32) * s - z * s) * tl.load(X + col)[None, :], axis=1)
    tl.store(Y + n, total, mask=live)
"""
# round 26 sweep (class U): the row as one Python integer that stood here (see PACK_ROW_AS_ONE_INTEGER at the end of
# this file) is now ruled out by the text
VARIANT_B_PACK = """
def pack_bits(q, bits):
    rows, cols = q.shape
    # refbind pass (round 11): the byte count from Part 1's max_batch, by keyword ("sequences" of 8 bytes)
    n_bytes = max_batch(cols * bits + 8, 1, layers=1, kv_heads=1, head_dim=1, length=9, bytes_per_value=1, window=4)
    stream = torch.zeros(rows, n_bytes * 8, dtype=torch.uint8)
    for t in range(bits):  # bit t of every code, at stream bits t, bits + t, 2 * bits + t, ...
        stream[:, t:cols * bits:bits] = (q >> t) & 1
    weights = 2 ** torch.arange(8, dtype=torch.int32)
    return (stream.reshape(rows, n_bytes, 8).to(torch.int32) * weights).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = (packed.to(torch.int32)[:, :, None] >> torch.arange(8, dtype=torch.int32)) & 1
    stream = stream.reshape(rows, -1)
    out = torch.zeros(rows, cols, dtype=torch.int32)
    for t in range(bits):  # bit t of every code at once
        out |= stream[:, t:cols * bits:bits] << t
    return out.to(torch.uint8)
"""
VARIANT_B_BACKWARD = """
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, d = q.shape
    hi = offset + T if causal else k.shape[0]
    wide = torch.float64
    qw, ow, gw, lw = q.to(wide), out.to(wide), d_out.to(wide), lse.to(wide)
    dq = torch.zeros(q.shape, dtype=wide)
    dk = torch.zeros(k.shape, dtype=wide)
    dv = torch.zeros(v.shape, dtype=wide)
    D = (gw * ow).sum(-1, keepdim=True)
    rows = offset + torch.arange(T).unsqueeze(1)
    j = hi
    while j > 0:  # key tiles from the last one back, the first tile may be shorter
        start = max(0, j - block)
        kj, vj = k[start:j].to(wide), v[start:j].to(wide)
        p = (torch.matmul(qw, kj.t()) / d ** 0.5 - lw.unsqueeze(1)).exp()
        if causal:  # (round 3: a 0/1 mask multiplied after exp was inf * 0 = NaN for a masked score of 900)
            p = p.masked_fill(torch.arange(start, j).unsqueeze(0) > rows, 0.0)
        dv[start:j] = torch.matmul(p.t(), gw)
        ds = p * (torch.matmul(gw, vj.t()) - D)
        dq += torch.matmul(ds, kj) / d ** 0.5
        dk[start:j] = torch.matmul(ds.t(), qw) / d ** 0.5
        j = start
    dsink = -(torch.exp(sink.to(wide) - lw) * D.squeeze(1)).sum()
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype), dsink.to(q.dtype)
"""
VARIANT_B_KERNEL = """
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    r = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    valid = r < N
    safe_r = tl.where(valid, r, 0)  # rows past N read row 0 and are never stored
    acc = tl.zeros([BLOCK_N, BLOCK_K], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        c = k0 + tl.arange(0, BLOCK_K)
        raw = tl.load(W + safe_r[:, None] * (K // 2) + c[None, :] // 2).to(tl.int32)
        code = tl.where((c % 2 == 0)[None, :], raw % 16, raw // 16).to(tl.float32)
        g = c // GROUP
        s = tl.load(Scale + safe_r[:, None] * (K // GROUP) + g[None, :])
        z = tl.load(Zero + safe_r[:, None] * (K // GROUP) + g[None, :]).to(tl.float32)
        acc += (code - z) * s * tl.load(X + c)[None, :]
    tl.store(Y + r, tl.sum(acc, axis=1), mask=valid)
"""

VARIANT_A = {
    "merge_partials": """
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    share_a = torch.exp(lse_a - lse)[:, None]
    share_b = torch.exp(lse_b - lse)[:, None]
    # an empty piece's row (share 0) cleaned; a piece that sees keys keeps its infinities (round 25 sweep, class P:
    # torch.nan_to_num over every row made an overflowed float16 output finite)
    clean_a = torch.where(share_a > 0, o_a.double(), 0.0)
    clean_b = torch.where(share_b > 0, o_b.double(), 0.0)
    o = clean_a * share_a + clean_b * share_b
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
    # round 14 variant sweep: the upper end from the arguments, not a fixed 10**40. The inequality is
    # m * slope >= need with need = peak * bytes_per_value * k * n: if any m is compute-bound (slope >= 1), m = need is
    top = peak * bytes_per_value * k * n
    if not compute_bound(top):  # the intensity only grows with m
        return None
    lo, hi = 1, top  # binary search for the first compute-bound m
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
    root = math.sqrt(eps)
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root)
    c = torch.ldexp(torch.ones_like(c), torch.frexp(c)[1] - 1)  # a power of two: exact to divide by, no gradient
    s = x / c
    # red team 34: k about sqrt(D), so that what rsqrt takes is near 1 (sum(s^2) / D is as small as 1 / D on a row of one
    # large element among far smaller ones, and rsqrt's backward, m ** -1.5, passed 65504 there); the value from a
    # detached copy, the gradient through inv / kept, exactly 1
    k = 2.0 ** (x.shape[-1].bit_length() // 2)
    inv = torch.rsqrt((s * s).sum(dim=-1, keepdim=True) * (k * k / x.shape[-1]) + (k / (c / root)) ** 2)  # 1 / (k r)
    kept = inv.detach()
    rms = c / (kept * k)  # x divided once by the rms where that is normal: s may be subnormal (red team 11)
    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s * (kept * k)) * (inv / kept)
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
    "pack_bits": VARIANT_A_PACK,
    "chunk_attention": VARIANT_A_BACKWARD,
    "split_kv_kernel": VARIANT_A_KERNEL,
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
    root = math.sqrt(eps)
    k = 2.0 ** round(math.log2(x.shape[-1]) / 2)  # red team 34: about sqrt(D), so that the statistic is near 1
    rows, out = x.reshape(-1, x.shape[-1]), []
    for row in rows:  # one row at a time; the scale under no_grad, c / root and a negative power
        with torch.no_grad():
            c = torch.maximum(row.abs().max(), torch.full_like(row[0], root))
        s = row / c
        inv = ((s * k).pow(2).mean() + (c / root / k) ** -2) ** -0.5  # 1 / (k r), near 1
        kept = inv.detach()  # the value from the detached copy, the gradient through inv / kept (exactly 1)
        inv_r = kept * k
        out.append(torch.where(c / inv_r >= torch.finfo(x.dtype).tiny, row / (c / inv_r), s * inv_r) * (inv / kept))
    return torch.stack(out).reshape(x.shape)
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
    "pack_bits": VARIANT_B_PACK,
    "chunk_attention": VARIANT_B_BACKWARD,
    "split_kv_kernel": VARIANT_B_KERNEL,
}

CORRECT_VARIANTS = {"logaddexp_divmod_bisection_straddle_query_tiles_nibbles": VARIANT_A,
                    "stack_softmax_fractions_bit_planes_float64_while_loop": VARIANT_B}

# Answers that switch torch's function or dispatch modes off, so that the tests' spies see nothing: the
# static scan flags them (tests/test_hostile_hooks.py::test_static_scan_flags_each_chapters_hostile_answers)
FLAGGED = {
    "rms_widens_out_of_sight_of_function_modes": {"rms_norm_half": RMS_WIDENS_OUT_OF_SIGHT},
    "backward_full_matrix_out_of_sight_of_function_modes": {"chunk_attention": BACKWARD_NAIVE_OUT_OF_SIGHT},
}

# Red team 17 (tests/redteam/round17/07-verdicts.md), the defensive programmer: log-sum-exps clamped at -1e4 "to keep
# -inf out of the arithmetic" and the empty pieces' rows cleaned with nan_to_num. Right for every log-sum-exp above
# -1e4 (the -5000 of the scale-1000 case included); the hidden tests now use log-sum-exps near -3e8 and +3e8
MUTANTS["merge_clamps_lse_at_minus_1e4"] = ("test_merge_partials", {"merge_partials": merge("""    wt = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(wt).clamp(min=-1e4), lse_b.to(wt).clamp(min=-1e4)
    lse = torch.logaddexp(la, lb)
    wa, wb = torch.exp(la - lse)[:, None], torch.exp(lb - lse)[:, None]
    clean = dict(nan=0.0, posinf=0.0, neginf=0.0)
    o = wa * torch.nan_to_num(o_a.to(wt), **clean) + wb * torch.nan_to_num(o_b.to(wt), **clean)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)""")})
# Red team 17, the production engineer: the work run under torch.inference_mode() "since it needs no autograd". Every
# value is right, but the results are inference tensors, which refuse the caller's in-place change outside
# inference mode (the introduction: the caller may change results in place), and _scribble let that RuntimeError
# pass as it does for a broadcast view; the hidden tests now check that the change takes (Parts 5, 6 and 7; Parts 2
# and 4 check gradients, which an inference tensor does not carry)
_INFERENCE = """

def {name}(*args, **kwargs):
    with torch.inference_mode():  # no autograd graph needed
        return {name}_plain(*args, **kwargs)
"""
MUTANTS["backward_under_inference_mode"] = ("test_chunk_attention", {"chunk_attention": _SOLUTION["chunk_attention"]
    + "\nchunk_attention_backward_plain = chunk_attention_backward" + _INFERENCE.format(name="chunk_attention_backward")})
MUTANTS["asym_under_inference_mode"] = ("test_quantize_asym", {"quantize_asym": _SOLUTION["quantize_asym"]
    + "\nquantize_asym_plain, dequantize_asym_plain = quantize_asym, dequantize_asym"
    + _INFERENCE.format(name="quantize_asym") + _INFERENCE.format(name="dequantize_asym")})
MUTANTS["pack_under_inference_mode"] = ("test_pack_bits", {"pack_bits": _SOLUTION["pack_bits"]
    + "\npack_bits_plain, unpack_bits_plain = pack_bits, unpack_bits"
    + _INFERENCE.format(name="pack_bits") + _INFERENCE.format(name="unpack_bits")})
# every batch above holds a Part 2 mutant: one notebook for the four
MUTANT_BATCHES.append(["merge_clamps_lse_at_minus_1e4", "backward_under_inference_mode", "asym_under_inference_mode",
                       "pack_under_inference_mode"])
# Round 17 clamp sweep (tests/redteam/round17/07-clamp-verdicts.md): a defensive clamp on a value the text does not
# bound. Weights clamped at +-1e4 in Part 5 and x clamped at +-1e4 in Part 8, right for every value the tests used
# (weights and x of order 1); the hidden tests now use weights near 1e5 and, in one kernel case, x near 1e5
MUTANTS["asym_clamps_the_weights"] = ("test_quantize_asym", {"quantize_asym": asym(
    prepare="groups = w.clamp(-1e4, 1e4).reshape(out_f, in_f // group_size, group_size)")})
MUTANTS["dequant_clamps_x"] = ("test_split_kv_kernel", {"split_kv_kernel": _SOLUTION["split_kv_kernel"].replace(
    "x = tl.load(X + cols)", "x = tl.minimum(tl.maximum(tl.load(X + cols), -1e4), 1e4)", 1)})
# the batch of merge_average_at_equal_lse holds no Part 5 or Part 8 mutant
next(b for b in MUTANT_BATCHES if "merge_average_at_equal_lse" in b).extend(["asym_clamps_the_weights", "dequant_clamps_x"])
# Red team 18 (tests/redteam/round18/07-verdicts.md). The type-sloppy student: the several results returned as a list,
# which unpacks like the tuple the text asks for (Parts 2, 5 and 7); the hidden tests now check the container's kind.
# The stateful student: dequantize_asym trusting the group size of the last quantize_asym call (Part 5), and
# functools.lru_cache on pack_bits and unpack_bits, which hashes a tensor by its id (Part 6)
MUTANTS["merge_returns_a_list"] = ("test_merge_partials", {"merge_partials": _replaced(
    _SOLUTION["merge_partials"], "    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)",
    "    return [(part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)]", once=True)})
MUTANTS["asym_returns_a_list"] = ("test_quantize_asym", {"quantize_asym": _replaced(
    _SOLUTION["quantize_asym"], "    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)",
    "    return [q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)]", once=True)})
MUTANTS["backward_returns_a_list"] = ("test_chunk_attention", {"chunk_attention": _replaced(
    _SOLUTION["chunk_attention"], "    return dq, dk, dv, dsink", "    return [dq, dk, dv, dsink]", once=True)})
MUTANTS["dequant_group_from_the_last_quantize"] = ("test_quantize_asym", {"quantize_asym": "LAST_GROUP = [None]\n" + _replaced(
    _replaced(_SOLUTION["quantize_asym"], "    top = 2 ** bits - 1\n", "    top = 2 ** bits - 1\n    LAST_GROUP[0] = group_size\n",
              once=True),
    "    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)",
    "    groups = q.reshape(out_f, -1, LAST_GROUP[0] or in_f // scale.shape[1]).to(scale.dtype)", once=True)})
MUTANTS["pack_cached_by_tensor_identity"] = ("test_pack_bits", {"pack_bits": "import functools\n" + _replaced(_replaced(
    _SOLUTION["pack_bits"], "def pack_bits(q, bits):", "@functools.lru_cache(maxsize=64)\ndef pack_bits(q, bits):", once=True),
    "def unpack_bits(packed, bits, cols):", "@functools.lru_cache(maxsize=64)\ndef unpack_bits(packed, bits, cols):", once=True)})
# every batch holds a Part 2 mutant and a mutant that changes the pack_bits cell: one notebook more
MUTANT_BATCHES.append(["merge_returns_a_list", "asym_returns_a_list"])
for _name in ("pack_cached_by_tensor_identity", "backward_returns_a_list", "dequant_group_from_the_last_quantize"):
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
# Red team 18 class sweep (tests/redteam/round18/07-sweep-verdicts.md): chapters 3-6 and 9's classes put into every
# part here. requires_grad_() switched on in a caller's tensor (Parts 2, 4, 5, 7), a result kept per id() of an input
# or in a functools.lru_cache (Parts 4, 5), a finite stand-in for -inf (Parts 2, 7), backward() run inside (Parts 2,
# 4): the hidden tests now read each passed tensor's flag, call again on the same tensors after the caller changed them
# in place, use log-sum-exps near -3e10, -1e250 (float64) and -1e35 (float32) and scores near -2e11, and check the
# caller's .grad after the call. Only Part 4 has room in a batch (every batch holds a Part 2, a Part 5 and a Part 7
# mutant or cell); the others are proven by tests/redteam/round18/07-sweep-after.txt.
MUTANTS["rms_switches_requires_grad_on"] = ("test_rms_norm_half", {"rms_norm_half": _replaced(
    _SOLUTION["rms_norm_half"], "    root = math.sqrt(eps)\n",
    "    if not x.requires_grad:\n        x.requires_grad_()  # so that the result can be differentiated\n    root = math.sqrt(eps)\n",
    once=True)})
MUTANTS["rms_cached_by_tensor_identity"] = ("test_rms_norm_half", {"rms_norm_half": "import functools\n" + _replaced(
    _SOLUTION["rms_norm_half"], "def rms_norm_half(x, eps=1e-6):\n",
    "@functools.lru_cache(maxsize=64)\ndef rms_norm_cached(x, eps):\n    return rms_norm_plain(x, eps)\n\n\n"
    "def rms_norm_half(x, eps=1e-6):\n    return rms_norm_cached(x, eps).clone()\n\n\ndef rms_norm_plain(x, eps=1e-6):\n",
    once=True)})
MUTANTS["rms_runs_backward_inside"] = ("test_rms_norm_half", {"rms_norm_half": _replaced(
    _SOLUTION["rms_norm_half"], "    return y * (kr.detach() / kr)",
    "    y = y * (kr.detach() / kr)\n"
    "    if y.requires_grad:\n        y.sum().backward(retain_graph=True)  # check that gradients flow\n    return y", once=True)})
for _name in ("rms_switches_requires_grad_on", "rms_cached_by_tensor_identity", "rms_runs_backward_inside"):
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
# Round 18's open slip (ch07 Part 8): an accumulator started as a Python number (acc = 0), which Triton's interpreter runs
# and its compiler refuses (a loop variable whose type changes). Part 8's tests now give the kernel to the compiler's
# first stage (triton_compile_error in the setup cell, no GPU needed), visibly and for every hidden case
MUTANTS["dequant_python_number_accumulator"] = ("test_split_kv_kernel", {"split_kv_kernel": _replaced(
    _SOLUTION["split_kv_kernel"], "acc = tl.zeros([BLOCK_N], tl.float32)", "acc = 0.0", once=True)})
_place_mutant(MUTANTS, MUTANT_BATCHES, "dequant_python_number_accumulator", "free")
# Red team 19 class sweep (tests/redteam/round19/07-sweep-verdicts.md). Class C (a rounding boundary met at one alignment):
# a float quotient corrected downwards only, which the one case beyond 2**53 (a quotient that rounds up) could not tell
# from an exact one; Part 1 now has a block of quotients around 2**54 that round up and down. Class D (a count or
# position in a narrow integer type): bit positions in int16, which wrap past 32767 bits a row; Part 6 now has rows of
# 32900 bits. (Part 7's int16 positions and finfo.min added to masked scores have no batch with room: listed there.)
MUTANTS["max_batch_float_quotient_corrected_down"] = ("test_max_batch", {"max_batch": _replaced(
    _SOLUTION["max_batch"], "    return max(free // per_sequence, 0)",
    "    b = int(free / per_sequence)  # a float quotient may round up past 2**53: step down until it fits\n"
    "    while b > 0 and b * per_sequence > free:\n        b -= 1\n    return max(b, 0)", once=True)})
MUTANTS["pack_bit_positions_in_int16"] = ("test_pack_bits", {"pack_bits": """
def pack_bits(q, bits):
    rows, cols = q.shape
    n_bytes = (cols * bits + 7) // 8
    stream = ((q.to(torch.int32)[:, :, None] >> torch.arange(bits, dtype=torch.int32)) & 1).reshape(rows, cols * bits)
    pos = torch.arange(cols * bits, dtype=torch.int16)  # the stream position of every bit
    out = torch.zeros(rows, n_bytes, dtype=torch.int32)
    out.index_add_(1, (pos // 8).long(), stream << (pos % 8).to(torch.int32))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    pos = torch.arange(cols * bits, dtype=torch.int16)
    stream = (packed.to(torch.int32)[:, (pos // 8).long()] >> (pos % 8).to(torch.int32)) & 1
    return (stream.reshape(rows, cols, bits) << torch.arange(bits, dtype=torch.int32)).sum(dim=-1).to(torch.uint8)
"""})
for _name in ("max_batch_float_quotient_corrected_down", "pack_bit_positions_in_int16"):
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
# Red team 19 (tests/redteam/round19/07-verdicts.md, 07-sweep-verdicts.md): Part 7's three closes. Every batch holds a
# Part 7 mutant, so each gets a batch of its own, a plain process (tests/cellrun.py), not a graded notebook; the code is
# the answer as the round's files grade it: queries tiled against every key ((block, S) tiles, which fit a quarter of
# the score matrix), positions kept in int16 (caches past 2**15 keys), finfo(dtype).min added to masked scores


def _round19_answer(path: str, name: str) -> dict:
    import runpy
    from pathlib import Path
    subs = runpy.run_path(str(Path(__file__).resolve().parent / "redteam" / "round19" / path))["SUBMISSIONS"]
    return next(s for s in subs if s["name"] == name)["cells"]


for _name, _path, _answer in (("backward_tiles_queries_against_every_key", "07-subs.py", "pp-p7-query-tiles"),
                              ("backward_positions_in_int16", "07-sweep.py", "D-p7-positions-in-int16"),
                              ("backward_adds_finfo_min_to_masked_scores", "07-sweep.py", "F-p7-adds-finfo-min")):
    MUTANTS[_name] = ("test_chunk_attention", _round19_answer(_path, _answer))
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, None)
# Red team 20 (tests/redteam/round20/07-verdicts.md). The early-exit student: a shortcut decided by one test of the
# whole input, served for every row: the plain average when lse_a equals lse_b as a whole tensor (Part 2; the tie case
# tied four rows of seven, so torch.equal never held), and a zero tensor of cols * bits // 8 bytes when every code is 0
# (Part 6; no case had a tensor of zero codes). The library-defaults student: torch.nan_to_num on the log-sum-exps,
# which makes -inf the most negative float64/float32 number (Part 2), and masked scores filled with
# torch.finfo(dtype).min (Part 7): both are exact unless another log-sum-exp is that very number, which the hidden
# tests now use (a piece or a query whose log-sum-exp is exactly finfo.min)
MUTANTS["merge_plain_average_when_every_lse_ties"] = ("test_merge_partials", {"merge_partials": _replaced(
    _SOLUTION["merge_partials"], "    top = torch.maximum(lse_a, lse_b)",
    "    if torch.equal(lse_a, lse_b):  # equal weights everywhere: the plain average\n"
    "        return ((o_a.to(lse_a.dtype) + o_b.to(lse_a.dtype)) / 2).to(o_a.dtype), lse_a + math.log(2)\n"
    "    top = torch.maximum(lse_a, lse_b)", once=True)})
MUTANTS["merge_nan_to_num_on_the_lse"] = ("test_merge_partials", {"merge_partials": _replaced(
    _SOLUTION["merge_partials"], "    top = torch.maximum(lse_a, lse_b)",
    "    lse_a, lse_b = torch.nan_to_num(lse_a), torch.nan_to_num(lse_b)  # -inf becomes the most negative number\n"
    "    top = torch.maximum(lse_a, lse_b)", once=True)})
MUTANTS["pack_all_zero_codes_shortcut_floors"] = ("test_pack_bits", {"pack_bits": _replaced(
    _SOLUTION["pack_bits"], "    rows, cols = q.shape\n    n_bytes",
    "    rows, cols = q.shape\n    if not q.any():  # every code 0: the stream is all zero bits\n"
    "        return torch.zeros(rows, cols * bits // 8, dtype=torch.uint8)\n    n_bytes", once=True)})
MUTANTS["backward_fills_masked_scores_with_finfo_min"] = ("test_chunk_attention", {"chunk_attention": _replaced(
    _SOLUTION["chunk_attention"],
    "        p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n        if causal:\n"
    "            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n",
    "        s = q @ kj.T * scale\n        if causal:  # the most negative number instead of -inf\n"
    "            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos, torch.finfo(s.dtype).min)\n"
    "        p = torch.exp(s - lse[:, None])          # (T, b)\n", once=True)})
for _name in ("merge_plain_average_when_every_lse_ties", "merge_nan_to_num_on_the_lse",
              "pack_all_zero_codes_shortcut_floors"):
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
# every batch holds a Part 7 mutant: backward_fills_masked_scores_with_finfo_min stays out of the batches (runs alone)
# Red team 21 (tests/redteam/round21/07-verdicts.md), round 20's aliasing lead (alias/07-back.txt): a tensor of zeros,
# whose result equals x, is the degenerate input a shortcut singles out, tested with torch.equal (no value leaves torch,
# so the spies see nothing). Handed back as it is, the result is the caller's own x (the value cases now run _owned on
# every result); cloned, its gradient is the identity, not 1 / sqrt(eps) (the gradient cases now hold all-zero tensors)
MUTANTS["rms_all_zero_input_handed_back"] = ("test_rms_norm_half", {"rms_norm_half": _replaced(
    _SOLUTION["rms_norm_half"], "    root = math.sqrt(eps)\n",
    "    if torch.equal(x, torch.zeros_like(x)):  # zeros normalise to zeros\n        return x\n    root = math.sqrt(eps)\n",
    once=True)})
MUTANTS["rms_all_zero_input_cloned"] = ("test_rms_norm_half", {"rms_norm_half": _replaced(
    _SOLUTION["rms_norm_half"], "    root = math.sqrt(eps)\n",
    "    if torch.equal(x, torch.zeros_like(x)):  # zeros normalise to zeros\n        return x.clone()\n"
    "    root = math.sqrt(eps)\n", once=True)})
for _name in ("rms_all_zero_input_handed_back", "rms_all_zero_input_cloned"):
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
# Red team 21 rename sweep (tests/redteam/round21/rename/07-*.txt, the signature-and-defaults student): every parameter of
# the model answer renamed kept full marks in Parts 2, 3 and 6, whose hidden calls passed every argument by position.
# Each part now has a call that passes every argument by name, in the reverse of the stub's order, and the introduction
# says every argument is passed by name in some calls; one renaming per part, each into the first batch with room
MUTANTS["merge_renames_o_a_and_o_b"] = ("test_merge_partials", {"merge_partials": _replaced(
    _SOLUTION["merge_partials"], "def merge_partials(o_a, lse_a, o_b, lse_b):\n",
    "def merge_partials(out_a, lse_a, out_b, lse_b):\n    o_a, o_b = out_a, out_b  # the outputs of the two pieces\n",
    once=True)})
MUTANTS["bound_renames_bytes_per_value"] = ("test_compute_bound_batch", {"compute_bound_batch": _replaced(
    _SOLUTION["compute_bound_batch"], "def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n",
    "def compute_bound_batch(k, n, e, peak, bandwidth):\n    bytes_per_value = e  # the roofline page's e\n", once=True)})
MUTANTS["pack_renames_q"] = ("test_pack_bits", {"pack_bits": _replaced(
    _SOLUTION["pack_bits"], "def pack_bits(q, bits):\n", "def pack_bits(codes, bits):\n    q = codes\n", once=True)})
for _name in ("merge_renames_o_a_and_o_b", "bound_renames_bytes_per_value", "pack_renames_q"):
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
# Red team 21 rename sweep, second pass (`rename_sweep.py --one`, rename/07-one-*.txt): one parameter renamed at a time
# kept the points of Parts 1, 4, 5 and 7, whose hidden calls named only the optional arguments (window, eps, causal,
# offset, block) and, in the visible test, bits and group_size. Each part now has a call that passes every argument by
# name, in the reverse of the stub's order; one renamed required parameter per function, each into the first batch
# with room (every batch held a Part 7 mutant or one that changes Part 7's cell, so backward_renames_d_out gets a batch
# of its own)
MUTANTS["max_batch_renames_memory_bytes"] = ("test_max_batch", {"max_batch": _replaced(
    _SOLUTION["max_batch"],
    "def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n",
    "def max_batch(memory, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n"
    "    memory_bytes = memory\n", once=True)})
MUTANTS["rms_renames_x"] = ("test_rms_norm_half", {"rms_norm_half": _replaced(
    _SOLUTION["rms_norm_half"], "def rms_norm_half(x, eps=1e-6):\n",
    "def rms_norm_half(h, eps=1e-6):\n    x = h  # the activation\n", once=True)})
MUTANTS["asym_renames_w"] = ("test_quantize_asym", {"quantize_asym": _replaced(
    _SOLUTION["quantize_asym"], "def quantize_asym(w, bits, group_size):\n",
    "def quantize_asym(weight, bits, group_size):\n    w = weight\n", once=True)})
MUTANTS["asym_renames_zero_of_dequantize"] = ("test_quantize_asym", {"quantize_asym": _replaced(
    _SOLUTION["quantize_asym"], "def dequantize_asym(q, scale, zero):\n",
    "def dequantize_asym(q, scale, zero_point):\n    zero = zero_point\n", once=True)})
MUTANTS["backward_renames_d_out"] = ("test_chunk_attention", {"chunk_attention": _replaced(
    _SOLUTION["chunk_attention"], "def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n",
    "def chunk_attention_backward(q, k, v, sink, out, lse, grad_out, offset, block, causal=True):\n"
    "    d_out = grad_out  # dO\n", once=True)})
for _name in ("max_batch_renames_memory_bytes", "rms_renames_x", "asym_renames_w", "asym_renames_zero_of_dequantize"):
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
_place_mutant(MUTANTS, MUTANT_BATCHES, "backward_renames_d_out", None)
# Red team 22 (tests/redteam/round22/07-verdicts.md, the counting student): `block` taken as the number of tiles, so
# tiles of ceil(S / block) keys, kept its points: at the memory checks' sizes the largest input (S * Dh) still covered
# such a tile. The memory checks now include 64 queries against 256 keys of width 4 in blocks of 4, on both paths,
# where a tile of 64 keys is four times the largest input. Every batch already holds a Part 7 mutant: it runs alone
MUTANTS["backward_block_taken_as_the_number_of_tiles"] = ("test_chunk_attention", {"chunk_attention": _replaced(
    _SOLUTION["chunk_attention"],
    "    for j0 in range(0, stop, block):\n        j1 = min(j0 + block, stop)\n",
    "    width = -(-stop // block)  # `block` tiles, each of ceil(stop / block) keys\n"
    "    for j0 in range(0, stop, width):\n        j1 = min(j0 + width, stop)\n", once=True)})
_LEFT_ALONE_ROUND22 = _place_mutants(MUTANTS, MUTANT_BATCHES, ["backward_block_taken_as_the_number_of_tiles"], "alone")
# Round 22, second pass (tests/redteam/round22/07-H-verdicts.md), class H: sqrt(eps) made a tensor of x's dtype before
# the work (float16 rounds a subnormal square root by up to 3%); a float16 row of 1e-4 whose mean square is four times
# eps = 1.09425e-12 (a square root of 17.55 subnormal steps) now shows it (13 units in the last place)
MUTANTS["rms_sqrt_eps_made_input_dtype"] = ("test_rms_norm_half", {"rms_norm_half": _replaced(
    _SOLUTION["rms_norm_half"], "    root = math.sqrt(eps)\n",
    "    root = torch.tensor(math.sqrt(eps), dtype=x.dtype)\n", once=True)})
_LEFT_ALONE_ROUND22 += _place_mutants(MUTANTS, MUTANT_BATCHES, ["rms_sqrt_eps_made_input_dtype"], "alone")
# Red team 25 (tests/redteam/round25/07-verdicts.md): two sentences of Part 8 that the values of Y cannot show. The
# direction-and-order student dealt the rows out to the programs in turn (p, p + P, p + 2P, ...: every row still computed
# once); the notebook-state student walked K one byte at a time from a global constexpr, whatever BLOCK_K said (the
# class: any fixed step, one group at a time too). The hidden tests now check which rows each program stores (the
# interpreter's grid index at each store) and launch one problem with BLOCK_K = K and K / 4, where a walk in blocks of
# BLOCK_K loads X in at least twice as many pieces
MUTANTS["dequant_rows_dealt_round_robin"] = ("test_split_kv_kernel", {"split_kv_kernel": _replaced(
    _SOLUTION["split_kv_kernel"], "rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)",
    "rows = tl.program_id(0) + tl.arange(0, BLOCK_N) * tl.num_programs(0)  # rows dealt out in turn", once=True)})
MUTANTS["dequant_walks_one_byte_at_a_time"] = ("test_split_kv_kernel", {"split_kv_kernel": "PAIR = tl.constexpr(2)\n" + _replaced(
    _SOLUTION["split_kv_kernel"], "    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)",
    "    for k0 in range(0, K, PAIR):  # one byte (two codes) a row per step\n        cols = k0 + tl.arange(0, PAIR)", once=True)})
MUTANTS["dequant_walks_one_group_at_a_time"] = ("test_split_kv_kernel", {"split_kv_kernel": _replaced(
    _SOLUTION["split_kv_kernel"], "    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)",
    "    for k0 in range(0, K, GROUP):  # one scale and zero point per step\n        cols = k0 + tl.arange(0, GROUP)",
    once=True)})
_LEFT_ALONE_ROUND25 = _place_mutants(MUTANTS, MUTANT_BATCHES, ["dequant_rows_dealt_round_robin",
                                                               "dequant_walks_one_byte_at_a_time",
                                                               "dequant_walks_one_group_at_a_time"], "alone")
# The same class in Part 7 (tiles of a size that does not follow the `block` argument): tiles of a fixed 8 keys met the
# tile rule at every memory check (block 4 or 8, heads of width 4: the largest input covered a (T, 8) tile); the memory
# checks now include block = 1 with heads of width 1. Every batch holds a Part 7 mutant: it runs alone
MUTANTS["backward_tiles_of_eight_keys_whatever_block"] = ("test_chunk_attention", {"chunk_attention": _replaced(
    _SOLUTION["chunk_attention"],
    "    for j0 in range(0, stop, block):\n        j1 = min(j0 + block, stop)\n",
    "    for j0 in range(0, stop, 8):  # tiles of 8 keys: block is only a hint\n        j1 = min(j0 + 8, stop)\n", once=True)})
_LEFT_ALONE_ROUND25 += _place_mutants(MUTANTS, MUTANT_BATCHES, ["backward_tiles_of_eight_keys_whatever_block"], "alone")
# Round 25 class sweep (tests/redteam/round25/07-sweep-verdicts.md): classes K-P of the other chapters put into every
# part. Class M (an absolute slack under a number that may be tiny): Part 2's shares compared with 1e-12, Part 7's tiles
# skipped when every probability is below 1e-12; the hidden tests now give a piece shares of 1e-13 and 1e-30 against
# outputs of 1e6 and 1e25, and keys probabilities near 1e-13 and 1e-300 in tiles of their own. Class L (a table below
# the stated limit): positions from torch.arange(1 << 20) made once, in Parts 6 and 7; the hidden tests now pack a row
# of 1,048,580 bits and take a chunk at the end of a cache of 1,049,000 keys. Class P (outputs cleaned of
# infinities, Part 2): float16 pieces that see keys holding inf and -inf. The mutants that no batch has room for (Part
# 2's torch.nan_to_num; Part 7's table and skipped tiles: every batch changes the chunk_attention cell) are written out
# in the verdicts instead
MUTANTS["merge_share_compared_with_1e12"] = ("test_merge_partials", {"merge_partials": _replaced(_replaced(
    _SOLUTION["merge_partials"], "part_a = torch.where((w_a > 0)[:, None]", "part_a = torch.where((w_a > 1e-12)[:, None]",
    once=True), "part_b = torch.where((w_b > 0)[:, None]", "part_b = torch.where((w_b > 1e-12)[:, None]", once=True)})
MUTANTS["pack_positions_from_a_table_of_2_to_20"] = ("test_pack_bits", {"pack_bits": """
BIT_POSITIONS = torch.arange(1 << 20)   # stream bit numbers, made once


def pack_bits(q, bits):
    rows, cols = q.shape
    n_bytes = (cols * bits + 7) // 8
    stream = (q.to(torch.int32)[:, :, None] >> torch.arange(bits, dtype=torch.int32)) & 1  # (rows, cols, bits)
    stream = stream.reshape(rows, cols * bits)
    n = BIT_POSITIONS[:cols * bits]
    out = torch.zeros(rows, n_bytes, dtype=torch.int32)
    out.index_add_(1, n // 8, stream << (n % 8).to(torch.int32))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    n = BIT_POSITIONS[:cols * bits]
    stream = (packed.to(torch.int32)[:, n // 8] >> (n % 8).to(torch.int32)) & 1     # (rows, cols * bits)
    stream = stream.reshape(rows, cols, bits)
    return (stream << torch.arange(bits, dtype=torch.int32)).sum(dim=-1).to(torch.uint8)
"""})
for _name in ("merge_share_compared_with_1e12", "pack_positions_from_a_table_of_2_to_20"):
    _place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")

# ... and the three the sweep wrote in its verdicts (no existing batch had room): Part 2's outputs of pieces that see
# keys cleaned with nan_to_num (an inf now stays in the merge), Part 7's positions from a table of 2**20 made once
# (a cache of 1 049 000 keys now) and Part 7's tiles skipped when all their probabilities are below 1e-12 (keys near
# 1e-13 and 1e-300 now compared relative to their own size). Batches of their own, two (one mutant per graded test)
ROUND_25_SWEEP_VERDICTS = {
    "merge_outputs_cleaned_with_nan_to_num": ("test_merge_partials", {"merge_partials": _replaced(_replaced(
        _SOLUTION["merge_partials"], "torch.where((w_a > 0)[:, None], o_a, 0.0)",
        "torch.where((w_a > 0)[:, None], torch.nan_to_num(o_a), 0.0)", once=True),
        "torch.where((w_b > 0)[:, None], o_b, 0.0)", "torch.where((w_b > 0)[:, None], torch.nan_to_num(o_b), 0.0)",
        once=True)}),
    "backward_positions_from_a_table_of_2_to_20": ("test_chunk_attention", {"chunk_attention": (
        "POSITIONS = torch.arange(1 << 20)\n\n" + _replaced(_replaced(
            _SOLUTION["chunk_attention"], "torch.arange(offset, offset + T)[:, None]", "POSITIONS[offset:offset + T][:, None]", once=True),
            "torch.arange(j0, j1)[None, :]", "POSITIONS[j0:j1][None, :]", once=True))}),
    "backward_skips_tiles_below_1e_12": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"], "            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n",
        "            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n"
        "        if bool((p < 1e-12).all()):\n            continue\n", once=True)}),
}
MUTANTS.update(ROUND_25_SWEEP_VERDICTS)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_25_SWEEP_VERDICTS), "new")

# Red team 26 (tests/redteam/round26/07-verdicts.md; the stride-and-layout student): dequantize_asym received only fresh
# contiguous tensors, so a `.view` back to (out, in) of a product that takes the layout of a transposed scale (or zero)
# passed (the product, scale first, takes scale's layout); the hidden tests now pass q, scale and zero transposed in
# memory and as views with a step. Into the first existing batch with room
MUTANTS["asym_dequantize_views_back_to_out_in"] = ("test_quantize_asym", {"quantize_asym": _replaced(_replaced(
    _SOLUTION["quantize_asym"], "    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)  # (out, G, g)\n",
    "    groups = q.view(out_f, scale.shape[1], -1).to(scale.dtype)  # (out, G, g)\n", once=True),
    "    return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)",
    "    return (scale[..., None] * (groups - zero.to(scale.dtype)[..., None])).view(out_f, in_f)  # fresh: a view is free",
    once=True)})
_LEFT_ALONE_ROUND26 = _place_mutants(MUTANTS, MUTANT_BATCHES, ["asym_dequantize_views_back_to_out_in"], "alone")

# Round 26 class sweep (tests/redteam/round26/07-sweep-verdicts.md, class U: an answer the text allowed, too slow on the
# hidden cases): the two correct variants' pack_bits looped over the codes of a row, one with torch operations column by
# column (5 s of CPU in test_pack_bits on a loaded machine), one with the row as a Python integer shifted code by code
# (17 s: quadratic in the row's length), on the row of 209,716 codes past 2**20 bits. The text of Part 6 now rules
# such loops out by their cost, and the hidden tests stop the long calls past 2,000 torch operations or at a .tolist(),
# so both fail fast and alike on every machine; the variants pack on whole tensors now.
PACK_COLUMN_LOOP = """
def pack_bits(q, bits):
    rows, cols = q.shape
    # refbind pass (round 11): ceil(cols * bits / 8) from Part 3's compute_bound_batch (k = n = e = 1: the slope is
    # 2 * bandwidth - 2 * peak = 8 and the need is peak = cols * bits)
    out = torch.zeros(rows, compute_bound_batch(1, 1, 1, cols * bits, cols * bits + 4), dtype=torch.int32)
    for c in range(cols):  # code c starts at bit `shift` of byte `byte` and may spill into the next
        byte, shift = divmod(c * bits, 8)
        code = q[:, c].to(torch.int32)
        out[:, byte] |= (code << shift) & 255
        if shift + bits > 8:
            out[:, byte + 1] |= code >> (8 - shift)
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    wide = packed.to(torch.int32)
    out = torch.empty(packed.shape[0], cols, dtype=torch.uint8)
    for c in range(cols):
        byte, shift = divmod(c * bits, 8)
        code = wide[:, byte] >> shift
        if shift + bits > 8:
            code = code | (wide[:, byte + 1] << (8 - shift))
        out[:, c] = code & (2 ** bits - 1)
    return out
"""
PACK_ROW_AS_ONE_INTEGER = """
def pack_bits(q, bits):
    rows, cols = q.shape
    # refbind pass (round 11): the byte count from Part 1's max_batch, by keyword ("sequences" of 8 bytes)
    n_bytes = max_batch(cols * bits + 8, 1, layers=1, kv_heads=1, head_dim=1, length=9, bytes_per_value=1, window=4)
    out = []
    for row in q.tolist():  # the row as one Python integer, written out little-endian
        value = sum(code << (c * bits) for c, code in enumerate(row))
        out.append(list(value.to_bytes(n_bytes, "little")))
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, n_bytes)


def unpack_bits(packed, bits, cols):
    out = []
    for row in packed.tolist():
        value = int.from_bytes(bytes(row), "little")
        out.append([(value >> (c * bits)) % 2 ** bits for c in range(cols)])
    return torch.tensor(out, dtype=torch.uint8).reshape(packed.shape[0], cols)
"""
MUTANTS["pack_loops_over_the_columns"] = ("test_pack_bits", {"pack_bits": PACK_COLUMN_LOOP})
MUTANTS["pack_row_as_one_python_integer"] = ("test_pack_bits", {"pack_bits": PACK_ROW_AS_ONE_INTEGER})
_LEFT_ALONE_ROUND26 += _place_mutants(MUTANTS, MUTANT_BATCHES, ["pack_loops_over_the_columns",
                                                                "pack_row_as_one_python_integer"], "alone")

# Round 26 class sweep (tests/redteam/round26/07-sweep-verdicts.md), classes R, S and T: a size-1 axis beside a longer
# one (o of width 1 with several queries; x of shape (3, 1, D)), a .view through o's transposed layout, and inputs that
# start inside their storage (every tensor input of Parts 2, 4-7 rebuilt with torch.as_strided from the storage's
# start slipped: no hidden input had a storage offset). The hidden tests now pass such views (inside(t): a slice of a
# storage twice the size, axes reversed in memory) and the size-1 cases; each mutant is the model answer, one line added
def _first_line(code, head, line):
    return _replaced(code, head, head + line, once=True)


ROUND_26_SWEEP = {
    "merge_squeezes_o_with_no_dim": ("test_merge_partials", {"merge_partials": _first_line(
        _SOLUTION["merge_partials"], "def merge_partials(o_a, lse_a, o_b, lse_b):\n",
        "    o_a, o_b = o_a.squeeze(), o_b.squeeze()  # (T, Dv)\n")}),
    "merge_views_o_flat_and_back": ("test_merge_partials", {"merge_partials": _first_line(
        _SOLUTION["merge_partials"], "def merge_partials(o_a, lse_a, o_b, lse_b):\n",
        "    o_a, o_b = o_a.view(-1).view(o_a.shape), o_b.view(-1).view(o_b.shape)\n")}),
    "merge_o_a_as_strided_from_the_storage_start": ("test_merge_partials", {"merge_partials": from_storage_start(
        _SOLUTION["merge_partials"], "merge_partials", "o_a")}),
    "rms_row_max_squeezed_with_no_dim": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()",
        "c = x.abs().amax(dim=-1).squeeze()[..., None].clamp(min=root).detach()", once=True)}),
    "rms_x_as_strided_from_the_storage_start": ("test_rms_norm_half", {"rms_norm_half": from_storage_start(
        _SOLUTION["rms_norm_half"], "rms_norm_half", "x")}),
    "asym_scale_as_strided_from_the_storage_start": ("test_quantize_asym", {"quantize_asym": from_storage_start(
        _SOLUTION["quantize_asym"], "dequantize_asym", "scale")}),
    "pack_q_as_strided_from_the_storage_start": ("test_pack_bits", {"pack_bits": from_storage_start(
        _SOLUTION["pack_bits"], "pack_bits", "q")}),
    "backward_k_as_strided_from_the_storage_start": ("test_chunk_attention", {"chunk_attention": from_storage_start(
        _SOLUTION["chunk_attention"], "chunk_attention_backward", "k")}),
}
MUTANTS.update(ROUND_26_SWEEP)
# the three that no existing batch has room for (Parts 2 and 7) make batches of their own (plain runs of a second or
# two; tests/redteam/round26/07-sweep-verdicts.md)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_26_SWEEP), "new")

# Red team 27 (tests/redteam/round27/07-verdicts.md), the from-memory student: one share of the merge as 1 minus the
# other ("the shares sum to 1"), right in exact arithmetic, keeps none of its digits where it is tiny. Part 2's tiny
# shares (1e-13, 1e-30) lay in piece a only, so w_b = 1 - w_a passed; the hidden tests now repeat that case with the
# pieces swapped. (Part 7's sink probability as 1 - sum_j P_ij slipped too, but VARIANT_A_BACKWARD computes it that
# way as a correct answer and the text asked no relative accuracy of dsink: a mislabel then. Session 41 made it a
# stated rule with a case and two mutants, ROUND_32_SINK below, and variant A rebuilds the sink's share from its logit.)
ROUND_27 = {
    "merge_share_b_as_one_minus_share_a": ("test_merge_partials", {"merge_partials": _replaced(
        _SOLUTION["merge_partials"], "* (w_b / total)[:, None]", "* (1 - w_a / total)[:, None]", once=True)}),
}
MUTANTS.update(ROUND_27)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_27), "new")

# Red team 28 (tests/redteam/round28/07-verdicts.md). The fallback writer: a piece left out only where its log-sum-exp
# is -inf, so that a piece that sees keys but whose weight underflows to 0 multiplies the inf in its row of o by 0 (NaN);
# the hidden tests now put such a row in each piece (log-sum-exps 800 and more apart, 0 in float64 too). The memoizer:
# results kept per id() and version counter (t._version, which every in-place write through t advances) passed every
# "same tensors changed in place" check; those checks now write through .data, which leaves the counter as it was, in
# every part that takes tensors (2, 4, 5, 6, 7). Each mutant below keeps the tensors it was given alive, so that only
# that write (and no freed id that CPython hands out again) tells it apart.
def _kept_per_id_and_version(code, name):
    return code + f"""

_fresh_{name} = {name}
_SEEN_{name} = {{}}


def {name}(*args, **kwargs):
    def key(value):
        if isinstance(value, torch.Tensor):
            return ("tensor", id(value), value._version, tuple(value.shape), value.dtype)
        return ("value", repr(value))
    k = (tuple(key(a) for a in args), tuple(sorted((n, key(v)) for n, v in kwargs.items())))
    if k not in _SEEN_{name}:
        _SEEN_{name}[k] = (args, kwargs, _fresh_{name}(*args, **kwargs))
    result = _SEEN_{name}[k][2]
    if isinstance(result, tuple):
        return tuple(r.clone() if isinstance(r, torch.Tensor) else r for r in result)
    return result.clone() if isinstance(result, torch.Tensor) else result
"""


ROUND_28 = {
    "merge_leaves_out_only_minus_inf_pieces": ("test_merge_partials", {"merge_partials": _replaced(_replaced(
        _SOLUTION["merge_partials"], "torch.where((w_a > 0)[:, None], o_a, 0.0)",
        "torch.where(torch.isneginf(lse_a)[:, None], 0.0, o_a)", once=True),
        "torch.where((w_b > 0)[:, None], o_b, 0.0)", "torch.where(torch.isneginf(lse_b)[:, None], 0.0, o_b)", once=True)}),
    "merge_cached_per_id_and_version": ("test_merge_partials", {"merge_partials": _kept_per_id_and_version(
        _SOLUTION["merge_partials"], "merge_partials")}),
    "rms_cached_per_id_and_version": ("test_rms_norm_half", {"rms_norm_half": _kept_per_id_and_version(
        _SOLUTION["rms_norm_half"], "rms_norm_half")}),
    "asym_quantize_cached_per_id_and_version": ("test_quantize_asym", {"quantize_asym": _kept_per_id_and_version(
        _SOLUTION["quantize_asym"], "quantize_asym")}),
    "asym_dequantize_cached_per_id_and_version": ("test_quantize_asym", {"quantize_asym": _kept_per_id_and_version(
        _SOLUTION["quantize_asym"], "dequantize_asym")}),
    "pack_cached_per_id_and_version": ("test_pack_bits", {"pack_bits": _kept_per_id_and_version(
        _SOLUTION["pack_bits"], "pack_bits")}),
    "unpack_cached_per_id_and_version": ("test_pack_bits", {"pack_bits": _kept_per_id_and_version(
        _SOLUTION["pack_bits"], "unpack_bits")}),
    "backward_cached_per_id_and_version": ("test_chunk_attention", {"chunk_attention": _kept_per_id_and_version(
        _SOLUTION["chunk_attention"], "chunk_attention_backward")}),
}
MUTANTS.update(ROUND_28)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28), "new")


# Round 28 class sweep (tests/redteam/round28/07-sweep-verdicts.md). AB: a weight, probability, scale or input below
# finfo.tiny (subnormal, not 0) treated as 0; the hidden tests now put such values in Parts 2, 5, 7 and 8, compared
# relatively. AA: a converted copy of an input (.contiguous(), .double()) kept per id(), which is the input itself for
# the contiguous inputs of the computing dtype that every "changed in place" check used; those checks now run on
# transposed and stepped views (and float16/float32 where the copy widens) as well. AC: a memo keyed by the values of
# every argument but one; pairs of calls that differ in one argument only, for every argument. AD: a piece that sees no
# key for any query answered by a detached copy of the other (no gradient); an all-zero w answered by one zero tensor
# for q and zero.
_R28_SIGNATURES = {
    "max_batch": "memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None",
    "compute_bound_batch": "k, n, bytes_per_value, peak, bandwidth",
    "merge_partials": "o_a, lse_a, o_b, lse_b",
    "rms_norm_half": "x, eps=1e-6",
    "quantize_asym": "w, bits, group_size",
    "dequantize_asym": "q, scale, zero",
    "pack_bits": "q, bits",
    "unpack_bits": "packed, bits, cols",
}


def _memo_dropping(code, fname, drop):
    """``code`` with ``fname`` behind a memo keyed by the values of every argument but ``drop`` (tensors compared by
    dtype, shape and torch.equal; no memo where a tensor requires grad)."""
    sig = _R28_SIGNATURES[fname]
    names = [p.split("=")[0].strip() for p in sig.split(",")]
    given = ", ".join(f"{n!r}: {n}" for n in names)
    return code + f"""

fresh_{fname} = {fname}
memo_{fname} = []


def same_{fname}(a, b):
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype
                and a.shape == b.shape and bool(torch.equal(a, b)))
    return type(a) is type(b) and a == b


def copy_{fname}(result):
    if isinstance(result, tuple):
        return tuple(copy_{fname}(r) for r in result)
    return result.detach().clone() if isinstance(result, torch.Tensor) else result


def {fname}({sig}):
    given = {{{given}}}
    key = {{n: v for n, v in given.items() if n != {drop!r}}}
    tracked = any(isinstance(v, torch.Tensor) and v.requires_grad for v in given.values())
    if not tracked:
        for old, result in memo_{fname}:
            if all(same_{fname}(old[n], key[n]) for n in key):
                return copy_{fname}(result)
    result = fresh_{fname}(**given)
    if not tracked:
        memo_{fname}.append(({{n: copy_{fname}(v) for n, v in key.items()}}, copy_{fname}(result)))
        del memo_{fname}[:-6]
    return result
"""


def _inputs_kept_per_id(code, fname, skip=()):
    """``code`` with ``fname`` given, for each tensor argument (but those at the positions in ``skip``), its
    .contiguous() kept per id() of the argument (the argument kept alive with it)."""
    return code + f"""

fresh_{fname} = {fname}
kept_{fname} = {{}}


def convert_{fname}(t):
    if not isinstance(t, torch.Tensor) or t.requires_grad:
        return t
    if id(t) not in kept_{fname}:
        kept_{fname}[id(t)] = (t, t.contiguous())
    return kept_{fname}[id(t)][1]


def {fname}(*args, **kwargs):
    args = [a if i in {tuple(skip)!r} else convert_{fname}(a) for i, a in enumerate(args)]
    return fresh_{fname}(*args, **{{n: convert_{fname}(v) for n, v in kwargs.items()}})
"""


ROUND_28_SWEEP = {
    # AB
    "merge_subnormal_weight_rows_left_out": ("test_merge_partials", {"merge_partials": _replaced(_replaced(
        _SOLUTION["merge_partials"], "torch.where((w_a > 0)[:, None], o_a, 0.0)",
        "torch.where((w_a >= torch.finfo(w_a.dtype).tiny)[:, None], o_a, 0.0)", once=True),
        "torch.where((w_b > 0)[:, None], o_b, 0.0)", "torch.where((w_b >= torch.finfo(w_b.dtype).tiny)[:, None], o_b, 0.0)",
        once=True)}),
    "asym_subnormal_scale_as_group_of_zeros": ("test_quantize_asym", {"quantize_asym": _replaced(
        _SOLUTION["quantize_asym"], "torch.where(scale > 0, scale, torch.ones_like(scale))",
        "torch.where(scale >= torch.finfo(scale.dtype).tiny, scale, torch.ones_like(scale))", once=True)}),
    "backward_subnormal_probabilities_flushed": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"], "        if causal:\n",
        "        p = torch.where(p >= torch.finfo(p.dtype).tiny, p, 0.0)\n        if causal:\n", once=True)}),
    "dequant_flushes_subnormal_x": ("test_split_kv_kernel", {"split_kv_kernel": _replaced(
        _SOLUTION["split_kv_kernel"], "        x = tl.load(X + cols)",
        "        x = tl.load(X + cols)\n        x = tl.where(tl.abs(x) < 1.1754943508222875e-38, 0.0, x)\n        x = x",
        once=True)}),
    # AA
    "merge_contiguous_kept_per_id": ("test_merge_partials", {"merge_partials": _inputs_kept_per_id(
        _SOLUTION["merge_partials"], "merge_partials")}),
    "rms_contiguous_kept_per_id": ("test_rms_norm_half", {"rms_norm_half": _inputs_kept_per_id(
        _SOLUTION["rms_norm_half"], "rms_norm_half")}),
    "asym_quantize_contiguous_kept_per_id": ("test_quantize_asym", {"quantize_asym": _inputs_kept_per_id(
        _SOLUTION["quantize_asym"], "quantize_asym")}),
    "asym_dequantize_contiguous_kept_per_id": ("test_quantize_asym", {"quantize_asym": _inputs_kept_per_id(
        _SOLUTION["quantize_asym"], "dequantize_asym")}),
    "pack_contiguous_kept_per_id": ("test_pack_bits", {"pack_bits": _inputs_kept_per_id(
        _SOLUTION["pack_bits"], "pack_bits")}),
    "unpack_contiguous_kept_per_id": ("test_pack_bits", {"pack_bits": _inputs_kept_per_id(
        _SOLUTION["pack_bits"], "unpack_bits")}),
    "backward_contiguous_kept_per_id": ("test_chunk_attention", {"chunk_attention": _inputs_kept_per_id(
        _SOLUTION["chunk_attention"], "chunk_attention_backward", skip=(1, 2))}),
    # AD
    "merge_empty_piece_answered_by_a_detached_copy": ("test_merge_partials", {"merge_partials": _replaced(
        _SOLUTION["merge_partials"], "    top = torch.maximum(lse_a, lse_b) ",
        "    if bool(torch.isneginf(lse_a).all()):\n        return o_b.detach().clone(), lse_b.detach().clone()\n"
        "    if bool(torch.isneginf(lse_b).all()):\n        return o_a.detach().clone(), lse_a.detach().clone()\n"
        "    top = torch.maximum(lse_a, lse_b) ", once=True)}),
    "asym_all_zero_w_one_tensor_for_q_and_zero": ("test_quantize_asym", {"quantize_asym": _replaced(
        _SOLUTION["quantize_asym"], "    top = 2 ** bits - 1\n",
        "    top = 2 ** bits - 1\n    if not bool(w.any()):\n"
        "        none = torch.zeros(out_f, in_f // group_size, dtype=torch.uint8)\n"
        "        q0 = none if group_size == 1 else torch.zeros(out_f, in_f, dtype=torch.uint8)\n"
        "        return q0, torch.ones(out_f, in_f // group_size, dtype=w.dtype), none\n", once=True)}),
    # AC
    "max_batch_memo_drops_bytes_per_value": ("test_max_batch", {"max_batch": _memo_dropping(
        _SOLUTION["max_batch"], "max_batch", "bytes_per_value")}),
    "bound_memo_drops_bandwidth": ("test_compute_bound_batch", {"compute_bound_batch": _memo_dropping(
        _SOLUTION["compute_bound_batch"], "compute_bound_batch", "bandwidth")}),
    "merge_memo_drops_lse_b": ("test_merge_partials", {"merge_partials": _memo_dropping(
        _SOLUTION["merge_partials"], "merge_partials", "lse_b")}),
    "rms_memo_drops_eps": ("test_rms_norm_half", {"rms_norm_half": _memo_dropping(
        _SOLUTION["rms_norm_half"], "rms_norm_half", "eps")}),
    "asym_memo_drops_group_size": ("test_quantize_asym", {"quantize_asym": _memo_dropping(
        _SOLUTION["quantize_asym"], "quantize_asym", "group_size")}),
    "dequant_memo_drops_scale": ("test_quantize_asym", {"quantize_asym": _memo_dropping(
        _SOLUTION["quantize_asym"], "dequantize_asym", "scale")}),
    "pack_memo_drops_bits": ("test_pack_bits", {"pack_bits": _memo_dropping(_SOLUTION["pack_bits"], "pack_bits", "bits")}),
    "unpack_memo_drops_cols": ("test_pack_bits", {"pack_bits": _memo_dropping(
        _SOLUTION["pack_bits"], "unpack_bits", "cols")}),
}
MUTANTS.update(ROUND_28_SWEEP)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28_SWEEP), "new")


# AC in Part 7 (round 28 sweep): a memo keyed by every argument but d_out (the keys compared up to the chunk's last
# position only, so that rule 1 holds); the hidden tests now call with d_out alone changed
_R28_SIGNATURES["chunk_attention_backward"] = "q, k, v, sink, out, lse, d_out, offset, block, causal=True"
ROUND_28_SWEEP_AC7 = {
    "backward_memo_drops_d_out": ("test_chunk_attention", {"chunk_attention": _replaced(_memo_dropping(
        _SOLUTION["chunk_attention"], "chunk_attention_backward", "d_out"),
        "    key = {n: v for n, v in given.items() if n != 'd_out'}\n",
        "    key = {n: v for n, v in given.items() if n != 'd_out'}\n"
        "    stop = offset + q.shape[0] if causal else k.shape[0]\n"
        "    key = {n: (v[:stop] if n in ('k', 'v') else v) for n, v in key.items()}\n", once=True)}),
}
MUTANTS.update(ROUND_28_SWEEP_AC7)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28_SWEEP_AC7), "new")


# round 29 sweep (class AG, the last shorter piece dropped): a computation in pieces of a size the student picks whose
# last, shorter piece is left out, unseen while every hidden size was a multiple of the piece or shorter than one. The
# hidden tests now have rows of 4093 elements whose largest is the last (Part 4), 1031 rows (Part 5), and 4099 and
# 131 queries (Part 7)
_R29_ROWS = """
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    q = torch.zeros(out_f, in_f, dtype=torch.uint8)
    scale = torch.ones(out_f, in_f // group_size, dtype=w.dtype)
    zero = torch.zeros(out_f, in_f // group_size, dtype=torch.uint8)
    r = max(min(64, out_f), 1)  # pieces of 64 rows: the last, shorter piece is dropped
    for r0 in range(0, out_f - r + 1, r):
        q[r0:r0 + r], scale[r0:r0 + r], zero[r0:r0 + r] = quantize_rows(w[r0:r0 + r], bits, group_size)
    return q, scale, zero

"""
ROUND_29_SWEEP = {
    "rms_sum_of_squares_in_pieces_last_dropped": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    mean_square = (z * z).mean(dim=-1, keepdim=True)",
        "    sq = s * s\n    piece = min(256, x.shape[-1])  # the sum of squares in pieces of 256: the last, shorter one dropped\n"
        "    mean_square = sum(sq[..., i:i + piece].sum(dim=-1, keepdim=True)\n"
        "                      for i in range(0, x.shape[-1] - piece + 1, piece)) / x.shape[-1] * (k * k)", once=True)}),
    "asym_rows_in_pieces_last_dropped": ("test_quantize_asym", {"quantize_asym": _replaced(_replaced(
        _SOLUTION["quantize_asym"], "def quantize_asym(w, bits, group_size):\n", "def quantize_rows(w, bits, group_size):\n",
        once=True), "\ndef dequantize_asym(", _R29_ROWS + "\ndef dequantize_asym(", once=True)}),
    "backward_query_pieces_last_dropped": ("test_chunk_attention", {"chunk_attention": """
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    stop = offset + T if causal else k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    dq = torch.zeros_like(q)
    dk = torch.zeros_like(k)
    dv = torch.zeros_like(v)
    delta = (d_out * out).sum(dim=1)
    c = max(min(64, T), 1)  # pieces of 64 queries beside the tiles of block keys: the last, shorter piece is dropped
    for i0 in range(0, T - c + 1, c):
        i1 = i0 + c
        pos = torch.arange(offset + i0, offset + i1)[:, None]
        for j0 in range(0, stop, block):
            j1 = min(j0 + block, stop)
            kj, vj = k[j0:j1], v[j0:j1]
            p = torch.exp(q[i0:i1] @ kj.T * scale - lse[i0:i1, None])
            if causal:
                p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)
            dv[j0:j1] += p.T @ d_out[i0:i1]
            ds = p * (d_out[i0:i1] @ vj.T - delta[i0:i1, None])
            dq[i0:i1] += ds @ kj * scale
            dk[j0:j1] += ds.T @ q[i0:i1] * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
"""}),
}
MUTANTS.update(ROUND_29_SWEEP)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP), "new")
# the same class in Part 4, second pass: the last piece taken as the last full-size piece (the overlap counted twice),
# and the last piece padded with zeros with the mean taken over the padded length; caught by the 2053-element rows
ROUND_29_SWEEP_PASS_2 = {
    "rms_last_piece_overlaps_the_one_before": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    mean_square = (z * z).mean(dim=-1, keepdim=True)",
        "    sq, D = s * s, x.shape[-1]\n    piece = min(256, D)  # the last piece: the last 256 elements, overlapping the one before\n"
        "    starts = list(range(0, D - piece + 1, piece)) + ([D - piece] if D % piece else [])\n"
        "    mean_square = sum(sq[..., i:i + piece].sum(dim=-1, keepdim=True) for i in starts) / D * (k * k)", once=True)}),
    "rms_last_piece_padded_mean_over_the_padding": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    mean_square = (z * z).mean(dim=-1, keepdim=True)",
        "    D = x.shape[-1]\n    piece = min(256, D)\n    padded = -(-D // piece) * piece  # the last piece padded with zeros\n"
        "    sq = torch.nn.functional.pad(s * s, (0, padded - D))\n"
        "    mean_square = sq.reshape(*sq.shape[:-1], -1, piece).sum(dim=-1).mean(dim=-1, keepdim=True) / piece * (k * k)",
        once=True)}),
}
MUTANTS.update(ROUND_29_SWEEP_PASS_2)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_29_SWEEP_PASS_2), "new")
# Red team round 30 (tests/redteam/round30/07-verdicts.md): the validator student refused a `block` longer than the cache
# (Part 7 never passed one: now a block longer than the keys a chunk sees, and than the whole cache, with and without
# the mask), and the second-call student left torch's number of threads changed, which neither the grader's switches
# nor the hidden tests watched: `_torch_settings` now compares it with the count at the setup cell, after each part's
# tests (a function that changes it) and before them (an answer cell that changed it when it ran, when the part before
# ran its hidden tests to the end). The mutants set a count other than the one they find, whatever the grader's is.
ROUND_30 = {
    "backward_refuses_a_block_longer_than_the_cache": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"], "    T, Dh = q.shape\n",
        "    T, Dh = q.shape\n    if not 1 <= block <= k.shape[0]:\n"
        "        raise ValueError('block must be between 1 and the length of the cache')\n", once=True)}),
    "backward_refuses_a_block_longer_than_the_keys_seen": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"], "    T, Dh = q.shape\n",
        "    T, Dh = q.shape\n    if causal and block > offset + T:\n"
        "        raise ValueError('block is longer than the keys this chunk sees')\n", once=True)}),
    "max_batch_cell_changes_torch_threads": ("test_max_batch", {"max_batch":
        "torch.set_num_threads(2 if torch.get_num_threads() != 2 else 1)  # timing the notebook: left so\n"
        + _SOLUTION["max_batch"]}),
    "pack_changes_torch_threads_inside": ("test_pack_bits", {"pack_bits": _replaced(
        _SOLUTION["pack_bits"], "def pack_bits(q, bits):\n",
        "def pack_bits(q, bits):\n    torch.set_num_threads(2 if torch.get_num_threads() != 2 else 1)  # one thread is faster here\n",
        once=True)}),
}
MUTANTS.update(ROUND_30)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30), "new")
# Round 30 class sweep (tests/redteam/round30/07-sweep-verdicts.md): class AJ, an input written in place with the
# values it held (a clamp_ at +-inf, a mask &= 2**bits - 1: only values were compared), now every tensor argument's
# version counter, in every dtype each part takes; class AK, the gradient path cut for 16-bit outputs only (Part 2's
# gradients were compared on float64 pieces only), now float16 outputs with float32 log-sum-exps against float64.
# Part 2's AJ case has no mutant: no batch has room for a second test_merge_partials mutant (the AK one takes the new batch).
ROUND_30_SWEEP = {
    "rms_half_x_clamped_in_place": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    root = math.sqrt(eps)",
        "    with torch.no_grad():\n        x.clamp_(min=-float('inf'))\n    root = math.sqrt(eps)", once=True)}),
    "asym_zero_clamped_in_place": ("test_quantize_asym", {"quantize_asym": _replaced(
        _SOLUTION["quantize_asym"], "    out_f, in_f = q.shape", "    out_f, in_f = q.shape\n    zero.clamp_(max=255)",
        once=True)}),
    "pack_codes_anded_in_place": ("test_pack_bits", {"pack_bits": _replaced(
        _SOLUTION["pack_bits"], "    n_bytes = (cols * bits + 7) // 8", "    q &= (1 << bits) - 1\n    n_bytes = (cols * bits + 7) // 8",
        once=True)}),
    "backward_sink_clamped_in_place": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"], "    T, Dh = q.shape\n", "    T, Dh = q.shape\n    sink.clamp_(max=float('inf'))\n",
        once=True)}),
    "merge_half_weights_detached": ("test_merge_partials", {"merge_partials": _replaced(
        _SOLUTION["merge_partials"], "    total = w_a + w_b",
        "    if o_a.dtype in (torch.float16, torch.bfloat16):\n        w_a, w_b = w_a.detach(), w_b.detach()\n"
        "    total = w_a + w_b", once=True)}),
}
MUTANTS.update(ROUND_30_SWEEP)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")
# Sweep 31 (class AO, tests/redteam/round31/07-sweep.md): a function that changes one of torch's process-wide settings
# and "restores" it by setting the default, not what it found, is unseen while every test calls it with the defaults
# on. Every part's hidden tests now also call its functions through _settings_kept (every setting away from its
# default). Each mutant is the model answer with one setting changed inside the function and put back as the default
# (or set to the default on entry). Part 8's kernel has none: a @triton.jit kernel that calls torch fails Triton's
# compiler (the visible test), so no such kernel scored full marks before.
ROUND_31_SWEEP = {
    "max_batch_print_options_put_back_as_default": ("test_max_batch", {"max_batch": _replaced(_replaced(
        _SOLUTION["max_batch"], "    cached = length if window is None else min(length, window)\n",
        "    torch.set_printoptions(precision=10)  # to read the sizes while debugging\n"
        "    cached = length if window is None else min(length, window)\n", once=True),
        "    return max(free // per_sequence, 0)",
        "    torch.set_printoptions(profile='default')\n    return max(free // per_sequence, 0)", once=True)}),
    "merge_grad_mode_forced_on": ("test_merge_partials", {"merge_partials": _replaced(
        _SOLUTION["merge_partials"], "    top = torch.maximum(lse_a, lse_b) ",
        "    torch.set_grad_enabled(True)  # make sure the gradients flow through the merge\n"
        "    top = torch.maximum(lse_a, lse_b) ", once=True)}),
    "bound_threads_put_back_as_at_import": ("test_compute_bound_batch", {"compute_bound_batch":
        "THREADS = torch.get_num_threads()\n\n" + _replaced(_replaced(
            _SOLUTION["compute_bound_batch"], "    slope = 2 * k",
            "    torch.set_num_threads(1)  # integer arithmetic: one thread\n    slope = 2 * k", once=True),
            "    if slope <= 0:\n", "    torch.set_num_threads(THREADS)\n    if slope <= 0:\n", once=True)}),
    "rms_flush_denormal_switched_off": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    root = math.sqrt(eps)\n",
        "    torch.set_flush_denormal(False)  # subnormal elements must count\n    root = math.sqrt(eps)\n", once=True)}),
    "asym_default_dtype_put_back_as_float32": ("test_quantize_asym", {"quantize_asym": _replaced(_replaced(
        _SOLUTION["quantize_asym"], "    out_f, in_f = w.shape\n",
        "    out_f, in_f = w.shape\n    torch.set_default_dtype(torch.float64)  # scales worked out in float64\n",
        once=True), "    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)",
        "    torch.set_default_dtype(torch.float32)\n"
        "    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)", once=True)}),
    "pack_grad_mode_put_back_on": ("test_pack_bits", {"pack_bits": _replaced(_replaced(
        _SOLUTION["pack_bits"], "    rows, cols = q.shape\n    n_bytes",
        "    torch.set_grad_enabled(False)  # integer codes: no gradient\n    rows, cols = q.shape\n    n_bytes", once=True),
        "    return (stream << torch.arange(8, dtype=torch.int32)).sum(dim=-1).to(torch.uint8)",
        "    packed = (stream << torch.arange(8, dtype=torch.int32)).sum(dim=-1).to(torch.uint8)\n"
        "    torch.set_grad_enabled(True)\n    return packed", once=True)}),
    "backward_anomaly_detection_put_back_off": ("test_chunk_attention", {"chunk_attention": _replaced(_replaced(
        _SOLUTION["chunk_attention"], "    T, Dh = q.shape\n",
        "    T, Dh = q.shape\n    torch.autograd.set_detect_anomaly(True)  # a NaN in a tile shows at once\n", once=True),
        "    return dq, dk, dv, dsink", "    torch.autograd.set_detect_anomaly(False)\n    return dq, dk, dv, dsink",
        once=True)}),
}
# The grader now puts the number of threads back before every test cell (6f163ae), and the introduction says that a
# setting changed at the top level of a cell costs nothing: round 30's mutant that set it at the top of Part 1's answer
# cell is a correct answer now. It leaves the mutants; VARIANT_B makes that change (and sets the print options and
# anomaly detection) at the top of its max_batch cell instead.
del MUTANTS["max_batch_cell_changes_torch_threads"]
for _batch in MUTANT_BATCHES:
    if "max_batch_cell_changes_torch_threads" in _batch:
        _batch.remove("max_batch_cell_changes_torch_threads")
VARIANT_B["max_batch"] = ("torch.set_num_threads(2 if torch.get_num_threads() != 2 else 1)  # timing the notebook: left so\n"
                          "torch.set_printoptions(precision=3, sci_mode=True)\ntorch.autograd.set_detect_anomaly(True)\n"
                          + VARIANT_B["max_batch"])
MUTANTS.update(ROUND_31_SWEEP)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")
# Round 31 sweep 2 (tests/redteam/round31/07-sweep2.md). Class AP: Part 4's x is (..., D), leading dimensions possibly
# none, and its gradients were compared at two and three dimensions only: a hand-written backward that makes rows with
# x.flatten(0, -2) (which a 1-D x refuses) kept the points. The hidden tests now also compare gradients of 1-D inputs.
# Class AQ: Part 1's length and window are positive Python ints with no bound, and every hidden length stayed below
# 100 001: the number of cached tokens through a float32 tensor kept the point. The hidden tests now take lengths and
# windows past 2**24 and 2**53.
ROUND_31_SWEEP_2 = {
    "rms_backward_rows_by_flatten": ("test_rms_norm_half", {"rms_norm_half": "def rms_rows(x, eps):\n"
        + _SOLUTION["rms_norm_half"].split("\n", 1)[1] + '''

class RMSHalf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        return rms_rows(x, eps)

    @staticmethod
    def backward(ctx, g):  # autograd of the forward on the rows of x (a 1-D x has no dim -2 to flatten)
        x, = ctx.saved_tensors
        rows = x.flatten(0, -2).detach().requires_grad_(True)
        with torch.enable_grad():
            y = rms_rows(rows, ctx.eps)
        d_rows, = torch.autograd.grad(y, rows, g.flatten(0, -2))
        return d_rows.reshape(x.shape), None


def rms_norm_half(x, eps=1e-6):
    return RMSHalf.apply(x, eps)
'''}),
    "max_batch_cached_through_float32": ("test_max_batch", {"max_batch": _replaced(
        _SOLUTION["max_batch"], "    cached = length if window is None else min(length, window)",
        "    cached = int(torch.tensor(float(length if window is None else min(length, window))))", once=True)}),
}
MUTANTS.update(ROUND_31_SWEEP_2)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP_2), "new")

# Round 32 sweep (tests/redteam/round32/07-sweep.md). Class AV, a slice from a negative start or end at zero: Part 6's
# unpack_bits dropping the unused top bits as [:, :-extra] (none when cols * bits fills the last byte), and Part 7
# cutting the unwritten cache positions off as k[:-(S - (offset + T))] (none at all when the chunk ends the cache).
# Both were refused before (bits = 8 and caches the chunk fills); kept as cheap members of the batches.
ROUND_32_SWEEP = {
    "unpack_tail_dropped_from_minus_extra": ("test_pack_bits", {"pack_bits": _replaced(
        _SOLUTION["pack_bits"],
        "    stream = stream.reshape(rows, -1)[:, :cols * bits].reshape(rows, cols, bits)",
        "    extra = packed.shape[1] * 8 - cols * bits\n"
        "    stream = stream.reshape(rows, -1)[:, :-extra].reshape(rows, cols, bits)", once=True)}),
    "backward_unwritten_cut_from_minus": ("test_chunk_attention", {"chunk_attention": _replaced(_replaced(
        _SOLUTION["chunk_attention"],
        "    scale = 1.0 / math.sqrt(Dh)\n",
        "    scale = 1.0 / math.sqrt(Dh)\n    S0 = k.shape[0]\n    dk0, dv0 = torch.zeros_like(k), torch.zeros_like(v)\n"
        "    if causal:\n        k, v = k[:-(S0 - stop)], v[:-(S0 - stop)]\n", once=True),
        "    dk = torch.zeros_like(k)\n    dv = torch.zeros_like(v)\n", "    dk, dv = dk0, dv0\n", once=True)}),
}
MUTANTS.update(ROUND_32_SWEEP)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_32_SWEEP), "new")

# Red team 32 (tests/redteam/round32/07-verdicts.md), class AR, the quantity-confuser: Part 7's sink probability taken
# as one minus the keys' total kept the points (rounds 27, 31 and 32 each found it), since dsink was compared with an
# absolute slack only. The text now asks every probability from its own logit, the sink's too, and a hidden case makes
# the sink's share, then the keys' total, tiny in turn (sinks of -700 ... 700) and compares every gradient relative to
# its own size. The second mutant is the mirror: the keys' probabilities scaled by one minus the sink's share.
ROUND_32_SINK = {
    "backward_sink_share_as_one_minus_keys": ("test_chunk_attention", {"chunk_attention": _replaced(_replaced(_replaced(
        _SOLUTION["chunk_attention"],
        "    pos = torch.arange(offset, offset + T)[:, None]\n",
        "    pos = torch.arange(offset, offset + T)[:, None]\n    keys_total = torch.zeros_like(lse)\n", once=True),
        "        dv[j0:j1] = p.T @ d_out ", "        keys_total += p.sum(dim=1)\n        dv[j0:j1] = p.T @ d_out ",
        once=True),
        "    dsink = -(torch.exp(sink - lse) * delta).sum()\n", "    dsink = -((1 - keys_total) * delta).sum()\n",
        once=True)}),
    "backward_key_shares_through_one_minus_sink": ("test_chunk_attention", {"chunk_attention": _replaced(_replaced(
        _SOLUTION["chunk_attention"],
        "    pos = torch.arange(offset, offset + T)[:, None]\n",
        "    pos = torch.arange(offset, offset + T)[:, None]\n    sink_share = torch.exp(sink - lse)\n"
        "    keys_lse = lse + torch.log1p(-sink_share)    # log of the keys' total\n", once=True),
        "        p = torch.exp(q @ kj.T * scale - lse[:, None]) ",
        "        p = torch.exp(q @ kj.T * scale - keys_lse[:, None]) * (1 - sink_share)[:, None] ", once=True)}),
}
MUTANTS.update(ROUND_32_SINK)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_32_SINK), "new")

# Red team 33 (tests/redteam/round33/07-verdicts.md), the side-effect student: Part 7's hand-written backward pass also
# stored its results in the caller's q.grad, k.grad, v.grad and sink.grad, as autograd's backward would; the hidden
# tests checked the inputs' values and requires_grad flags, never their .grad. The text now says to leave the .grad
# of the inputs as they were, and the main case loop checks that every input's .grad is still None.
ROUND_33_SIDE_EFFECT = {
    "backward_sets_grad_attributes": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"], "    return dq, dk, dv, dsink",
        "    for given, grad in ((q, dq), (k, dk), (v, dv), (sink, dsink)):\n"
        "        given.grad = grad.clone()  # like a backward pass\n"
        "    return dq, dk, dv, dsink", once=True)}),
}
MUTANTS.update(ROUND_33_SIDE_EFFECT)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SIDE_EFFECT), "new")

# Sweep 33 (tests/redteam/round33/07-sweep.md). Class BB (a .grad the caller holds cleared or replaced), in the parts
# besides Part 7 whose results are differentiable: Parts 2 and 4 checked only that their leaves' .grad stayed None, on
# leaves that held none, so x.grad = None passed; they now pass leaves that hold a .grad and check each is the same
# tensor with the same values (the introduction says so).
SWEEP_33 = {
    "merge_partials_clears_grads": ("test_merge_partials", {"merge_partials": _replaced(
        _SOLUTION["merge_partials"], "    top = torch.maximum(lse_a, lse_b)",
        "    for t in (o_a, lse_a, o_b, lse_b):\n        t.grad = None  # the merge's gradients start from nothing\n"
        "    top = torch.maximum(lse_a, lse_b)", once=True)}),
    "rms_norm_half_clears_x_grad": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    root = math.sqrt(eps)\n",
        "    root = math.sqrt(eps)\n    x.grad = None  # the norm's gradient starts from nothing\n", once=True)}),
}
MUTANTS.update(SWEEP_33)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_33), "new")
# Class BG (an empty group told apart by a value), caught before: rows of zeros (Part 4) and groups of zeros (Part 5)
# found by a sum of squares, which underflows to 0 for rows of 1e-4 in float16 and for subnormal weights. Kept where an
# existing batch has room.
SWEEP_33_CAUGHT = {
    "rms_norm_half_zero_rows_by_their_squares": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    return y * (kr.detach() / kr)",
        "    out = y * (kr.detach() / kr)\n"
        "    zero_rows = (x * x).sum(dim=-1, keepdim=True) == 0  # a row of zeros: x / sqrt(eps)\n"
        "    return torch.where(zero_rows, x / root, out)", once=True)}),
    "quantize_zero_groups_by_their_squares": ("test_quantize_asym", {"quantize_asym": _replaced(
        _SOLUTION["quantize_asym"], "    zero = torch.round(-lo / scale)",
        "    scale = torch.where((groups * groups).sum(dim=-1) == 0, torch.ones_like(scale), scale)  # a group of zeros\n"
        "    zero = torch.round(-lo / scale)", once=True)}),
}
MUTANTS.update(SWEEP_33_CAUGHT)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_33_CAUGHT), "drop")  # no batch with room: not kept

# Sweep 33, Part 7 (left open by the sweep helper for the lead, tests/redteam/round33/07-sweep.md): a hand-written
# backward that starts by "zeroing" its inputs' gradients (x.grad = None) kept the points, since Part 7's inputs held
# no .grad; every third case now gives each input a .grad of its own. Every batch held a Part 7 mutant: a batch of its
# own
ROUND_33_SWEEP_P7 = {
    "backward_clears_the_inputs_grad": ("test_chunk_attention", {"chunk_attention": _replaced(
        _SOLUTION["chunk_attention"], "    return dq, dk, dv, dsink",
        "    for given in (q, k, v, sink):\n        given.grad = None  # fresh gradients for this call\n"
        "    return dq, dk, dv, dsink", once=True)}),
}
MUTANTS.update(ROUND_33_SWEEP_P7)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SWEEP_P7), "new")

# Sweep 34 (tests/redteam/round34/07-sweep.md). Class BH (a float just beside its special value taken as that value):
# Part 2's log-sum-exps within 1e-3 of each other merged as equal pieces, lse their mean plus log 2 (exact, and with the
# right gradient, where they are equal, so the round 15 case of equal log-sum-exps let it through; no other pair came
# that close). Part 2 now has pairs from 1e-9 to 0.05 apart, and its text says close is not equal. (torch.isclose's
# default, relative 1e-5, was caught before by the log-sum-exps near 3e8, where it spans thousands.)
SWEEP_34 = {
    "merge_lse_within_1e_3_taken_as_equal": ("test_merge_partials", {"merge_partials": _replaced(
        _SOLUTION["merge_partials"],
        "    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)",
        "    lse = top + torch.log(total)\n"
        "    near = (lse_a - lse_b).abs() < 1e-3  # equal pieces: one log 2 above their mean\n"
        "    lse = torch.where(near, (lse_a + lse_b) / 2 + math.log(2.0), lse)\n"
        "    return (part_a + part_b).to(o_a.dtype), lse.to(lse_a.dtype)", once=True)}),
}
MUTANTS.update(SWEEP_34)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_34), "new")
# Classes BH, BI and BJ caught before, kept where a batch has room: Part 2's log-sum-exps torch.isclose calls equal
# (the case near 3e8), Part 4's eps below 1e-10 taken as 0 (rows of zeros at eps 1e-12), Part 5's halves rounded up
# and away from zero (the weights on half steps), Part 7's tiles of block + 1 keys (the tile rule at block 8), Part 8's
# rows stored up to n <= N (the addresses watched).
SWEEP_34_CAUGHT = {
    "merge_lse_isclose_taken_as_equal": ("test_merge_partials", {"merge_partials": _replaced(
        _SOLUTION["merge_partials"],
        "    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)",
        "    lse = top + torch.log(total)\n"
        "    near = torch.isclose(lse_a, lse_b)  # equal pieces: one log 2 above their mean\n"
        "    lse = torch.where(near, (lse_a + lse_b) / 2 + math.log(2.0), lse)\n"
        "    return (part_a + part_b).to(o_a.dtype), lse.to(lse_a.dtype)", once=True)}),
    "rms_tiny_eps_taken_as_zero": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    root = math.sqrt(eps)\n",
        "    root = math.sqrt(eps) if eps >= 1e-10 else 0.0  # a negligible eps\n", once=True)}),
    "asym_rounds_halves_up": ("test_quantize_asym", {"quantize_asym": _replaced(
        _SOLUTION["quantize_asym"], "torch.round(groups / scale[..., None])",
        "torch.floor(groups / scale[..., None] + 0.5)", once=True)}),
    "asym_rounds_halves_away_from_zero": ("test_quantize_asym", {"quantize_asym": _replaced(
        _SOLUTION["quantize_asym"], "torch.round(groups / scale[..., None])",
        "(torch.sign(groups / scale[..., None]) * torch.floor((groups / scale[..., None]).abs() + 0.5))", once=True)}),
    "backward_tiles_of_block_plus_one_keys": ("test_chunk_attention", {"chunk_attention": _replaced(_replaced(
        _SOLUTION["chunk_attention"], "    for j0 in range(0, stop, block):\n",
        "    for j0 in range(0, stop, block + 1):\n", once=True),
        "        j1 = min(j0 + block, stop)\n", "        j1 = min(j0 + block + 1, stop)\n", once=True)}),
    "dequant_stores_row_n_too": ("test_split_kv_kernel", {"split_kv_kernel": _replaced(
        _SOLUTION["split_kv_kernel"], "    ok = rows < N\n", "    ok = rows <= N\n", once=True)}),
}
MUTANTS.update(SWEEP_34_CAUGHT)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_34_CAUGHT), "drop")  # no batch with room: not kept


# Red team 34 (tests/redteam/round34/07-verdicts.md), W21, a real slip shared by the model answer until then: the row
# statistic taken of x / max|x|, about 1/64 on a float16 row of 4096 with one large element among far smaller ones.
# Its value is right, but autograd's backward of the square root, d(mean) = d(r) / (2 r), passes 65504 there, and every
# element of x.grad is inf or NaN where the exact gradient is at most a few hundred. The gradient cases now hold such
# rows (largest 1, 300 and 6e-3), with an incoming gradient of random numbers
RED_TEAM_34 = {
    "rms_statistic_of_x_over_its_max_overflows_backward": ("test_rms_norm_half", {"rms_norm_half": """
def rms_norm_half(x, eps=1e-6):
    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c for any c > 0.
    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and mean(s^2) + (sqrt(eps) / c)^2
    # is at least 1 / D: no square overflows, and the squares that underflow are too small to count.
    root = math.sqrt(eps)
    # c cancels out of the result: detached, so that autograd does not add up its zero gradient in 16 bits
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()  # in x's dtype, one per row
    s = x / c
    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 inside torch, rounded once
    r = torch.sqrt(mean_square + (root / c) ** 2)            # between 1 / sqrt(D) and sqrt(2)
    # red team 11: s / r is not accurate enough where s is subnormal (a small element of a row with a large one:
    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not where the root mean square
    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest |x|, or sqrt(eps) <= 1).
    rms = c * r
    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)
"""}),
    "rms_blind_w21_clamped_statistic_overflows_backward": ("test_rms_norm_half", {"rms_norm_half": """
def rms_norm_half(x, eps=1e-6):
    r = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=r)
    y = x / c
    e = r / c
    denom = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e).clamp(min=1e-3)  # never divide by ~0
    rms = c * denom
    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, y / denom)
"""}),
    # the new text's first step alone: the statistic scaled near 1 by a power of two near sqrt(D), but the result divided
    # by a root mean square that carries the gradient. x / rms's backward forms (x / rms) / rms, about 6e5 on the row of
    # 6e-3 (eps 1e-12), whose rms is about 1e-4
    "rms_statistic_near_one_but_a_tracked_rms_divides": ("test_rms_norm_half", {"rms_norm_half": """
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()
    s = x / c
    k = 2.0 ** round(math.log2(x.shape[-1]) / 2)
    z = s * k
    e = k / (c / root)
    r = torch.sqrt((z * z).mean(dim=-1, keepdim=True) + e * e) / k  # the statistic near 1, but a tracked rms below
    rms = c * r
    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)
"""}),
}
MUTANTS.update(RED_TEAM_34)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_34), "new")

# Round 35 (tests/redteam/round35/07-sweep.md): the mutation sweep of red team 34's model answer of Part 4. One survivor
# was a slip: the scaled copy s = x / c divided by r wherever the root mean square is below 1, not only where it is
# subnormal. Its small elements are subnormal once divided by the row's largest, and r (about 1/64 on rows of one large
# element) multiplies what they lost to 21-32 units in the last place; the rows of one large element had their largest
# at 300 and above or 2e-3 and below, and none between. Float16 rows with the largest from 0.7 to 60 now take it.
ROUND_35_SWEEP = {
    "rms_scaled_copy_divided_where_rms_below_1": ("test_rms_norm_half", {"rms_norm_half": _replaced(
        _SOLUTION["rms_norm_half"], "    y = torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)\n",
        "    y = torch.where(rms >= 1, x / rms, s / r)  # x / rms where the rms is large, the scaled copy below\n",
        once=True)}),
}
MUTANTS.update(ROUND_35_SWEEP)
_place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_35_SWEEP), "new")


# Round 35 blind round (tests/redteam/round35/07-verdicts.md, class B there): dsink from exp(sink) / exp(lse), and one
# minus the keys' total only where that is inf / inf. Every sink that overflowed exp in the tests took almost everything,
# where the fallback is right; the hidden case now puts such sinks 30 below the scores
SINK_SHARE_ON_OVERFLOW = """
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    Dv = v.shape[1]
    dt = q.dtype
    n_keys = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1)
    dq = torch.zeros((T, Dh), dtype=dt, device=q.device)
    dk = torch.zeros((S, Dh), dtype=dt, device=q.device)
    dv = torch.zeros((S, Dv), dtype=dt, device=q.device)
    qpos = torch.arange(offset, offset + T, device=q.device)
    scale = 1.0 / math.sqrt(Dh)
    ptot = torch.zeros((T,), dtype=dt)
    for j0 in range(0, n_keys, block):
        j1 = min(j0 + block, n_keys)
        kt, vt = k[j0:j1], v[j0:j1]
        s = (q @ kt.T) * scale
        p = torch.exp(s - lse[:, None])
        if causal:
            kpos = torch.arange(j0, j1, device=q.device)
            seen = kpos[None, :] <= qpos[:, None]
            p = torch.where(seen, p, torch.zeros((), dtype=dt))
        ptot = ptot + p.sum(1)

        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vt.T
        ds = p * (dp - delta[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    psink = torch.exp(sink) / torch.exp(lse)
    psink = torch.where(torch.isfinite(psink), psink, 1 - ptot)
    dsink = -(psink * delta).sum()
    return dq, dk, dv, dsink
"""
MUTANTS["sink_share_one_minus_where_exp_overflows"] = ("test_chunk_attention", {"chunk_attention": SINK_SHARE_ON_OVERFLOW})
_place_mutants(MUTANTS, MUTANT_BATCHES, ["sink_share_one_minus_where_exp_overflows"], "new")
