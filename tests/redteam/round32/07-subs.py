"""Round 32, chapter 07-hardware: five kinds of student (containers, quantity-confuser, integer-range,
assumption, commuter). Each "why" quotes the sentence of the notebook text the answer breaks."""

P1 = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per_sequence:
        return 0
    return free // per_sequence
'''

P2 = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    w_a = torch.exp(lse_a - lse)
    w_b = torch.exp(lse_b - lse)
    zero = torch.zeros((), dtype=lse.dtype)
    part_a = torch.where((w_a > 0)[:, None], o_a.to(lse.dtype), zero)
    part_b = torch.where((w_b > 0)[:, None], o_b.to(lse.dtype), zero)
    o = w_a[:, None] * part_a + w_b[:, None] * part_b
    return o.to(o_a.dtype), lse
'''

P3 = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # m * (2kn*bw - peak*b*(k+n)) >= peak*b*k*n
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    need = peak * bytes_per_value * k * n
    if slope <= 0:
        return None
    m = -(-need // slope)
    return max(1, m)
'''

P4 = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    with torch.no_grad():  # a row scale near the root mean square: it cancels out of the result
        a = x.abs().amax(dim=-1, keepdim=True)
        up = torch.where(a < 2.0 ** -4, torch.full_like(a, 2.0 ** 14), torch.ones_like(a))  # exact powers of two
        au = torch.where(a > 0, a * up, torch.ones_like(a))
        y0 = (x * up) / au
        su = au * torch.sqrt((y0 * y0).mean(dim=-1, keepdim=True))      # rms * up, a normal number (0 for zeros)
        e = (root * 2.0 ** 7 / su) * (up * 2.0 ** -7)                     # sqrt(eps) / rms
        big = e <= 1
        e = torch.where(big, e, torch.ones_like(e))
        su = torch.where(big, su, torch.ones_like(su))
    # rows whose rms reaches sqrt(eps): divide by it, so the mean square is about 1 and eps / rms^2 at most 1
    y = (x * up) / su
    out_big = y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    # rows below sqrt(eps): divide by sqrt(eps) (a Python number)
    xs = torch.where(big, torch.zeros_like(x), x) / root
    out_small = xs / torch.sqrt((xs * xs).mean(dim=-1, keepdim=True) + 1.0)
    return torch.where(big, out_big, out_small)
'''

# the max-scaled version a student writes first (used by commute-04 only)
P4_MAX = '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    a = x.abs().amax(dim=-1, keepdim=True).detach()
    big = a >= root
    # rows whose largest element reaches sqrt(eps): divide by that element
    a_big = torch.where(big, a, torch.ones_like(a))
    up = torch.where(a_big < 2.0 ** -8, torch.full_like(a, 2.0 ** 14), torch.ones_like(a))
    ratio = x / a_big
    r = torch.sqrt((ratio * ratio).mean(dim=-1, keepdim=True) + (root / a_big) ** 2)
    out_big = (x * up) / ((a_big * up) * r)
    # rows below sqrt(eps): divide by sqrt(eps)
    x_small = torch.where(big, torch.zeros_like(x), x)
    xs = x_small / root
    r_small = torch.sqrt((xs * xs).mean(dim=-1, keepdim=True) + 1.0)
    out_small = xs / r_small
    return torch.where(big, out_big, out_small)
'''

P5 = '''
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(rows, cols // group_size, group_size)
    lo = torch.clamp(g.amin(dim=-1), max=0)
    hi = torch.clamp(g.amax(dim=-1), min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(rows, cols).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    groups = scale.shape[1]
    diff = q.to(scale.dtype).reshape(rows, groups, cols // groups) - zero.to(scale.dtype)[..., None]
    return (scale[..., None] * diff).reshape(rows, cols)
'''

P6 = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    codes = q.to(torch.int64)
    stream = torch.zeros(rows, nbytes * 8, dtype=torch.int64)
    for t in range(bits):
        stream[:, t:nbits:bits] = (codes >> t) & 1
    weights = 2 ** torch.arange(8)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    nbits = cols * bits
    p = packed.to(torch.int64)
    stream = torch.stack([(p >> j) & 1 for j in range(8)], dim=-1).reshape(rows, -1)[:, :nbits]
    codes = torch.zeros(rows, cols, dtype=torch.int64)
    for t in range(bits):
        codes += stream[:, t::bits] << t
    return codes.to(torch.uint8)
'''

P7 = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    n_seen = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(dim=-1)
    dq = torch.zeros(T, Dh, dtype=q.dtype)
    dk = torch.zeros(S, Dh, dtype=q.dtype)
    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)
    positions = offset + torch.arange(T)
    zero = torch.zeros((), dtype=q.dtype)
    for j0 in range(0, n_seen, block):
        j1 = min(j0 + block, n_seen)
        k_t, v_t = k[j0:j1], v[j0:j1]
        p = torch.exp((q @ k_t.T) * scale - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= positions[:, None]
            p = torch.where(seen, p, zero)
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ v_t.T - delta[:, None])
        dq += (ds @ k_t) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    p_sink = torch.exp(sink - lse)
    dsink = -(p_sink * delta).sum()
    return dq, dk, dv, dsink
'''

P8 = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < N
    half = K // 2
    n_groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * half + (cols // 2)[None, :], mask=row_ok[:, None], other=0)
        code = (byte.to(tl.int32) >> ((cols % 2) * 4)[None, :]) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * n_groups + g[None, :], mask=row_ok[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=row_ok[:, None], other=0)
        w = (code - z.to(tl.int32)).to(tl.float32) * s
        acc += tl.sum(w * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=row_ok)
'''


def sub(text, old, new, count=1):
    assert text.count(old) == count, (old, text.count(old))
    return text.replace(old, new)


SUBMISSIONS = []


def add(name, correct, gid, code, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


# ---------------------------------------------------------------- 1. the Python-containers student
add("containers-07-tile-ends-zip", False, "chunk_attention", sub(P7,
    "    for j0 in range(0, n_seen, block):\n        j1 = min(j0 + block, n_seen)\n",
    "    # tile boundaries: starts 0, block, 2 block, ...; ends block, 2 block, ... (the first end is n_seen when\n"
    "    # there are fewer keys than a block)\n"
    "    starts = range(0, n_seen, block)\n"
    "    ends = range(min(block, n_seen), n_seen + 1, block)\n"
    "    for j0, j1 in zip(starts, ends):\n"),
    "zip stops at the shorter ends list: a last partial tile (n_seen not a multiple of block) is dropped. Breaks "
    "'walking over the keys in tiles of at most `block` keys' / 'A key a query sees counts' (its dk, dv stay 0, dq misses it).")

add("containers-07-tile-slice-past-seen", False, "chunk_attention", sub(sub(sub(P7,
    "        j1 = min(j0 + block, n_seen)\n        k_t, v_t = k[j0:j1], v[j0:j1]\n",
    "        k_t, v_t = k[j0:j0 + block], v[j0:j0 + block]   # a slice past the end just stops there\n"
    "        j1 = j0 + k_t.shape[0]\n"),
    "        ds = p * (d_out @ v_t.T - delta[:, None])\n",
    "        ds = p * (d_out @ v_t.T - delta[:, None])\n        if causal:\n            ds = torch.where(seen, ds, zero)\n"),
    "        dv[j0:j1] = p.T @ d_out\n", "        dv[j0:j1] = p.T @ d_out\n"),
    "The tile slice k[j0:j0+block] stops at S, not at offset+T, so the last tile reads unwritten (NaN) cache "
    "positions. Breaks rule 1 'Read only keys that some query of the chunk may see ... Reading a NaN position, even to "
    "mask it afterwards, shows in the result' (dq = ds @ k_t picks up 0 * NaN).")

# ---------------------------------------------------------------- 2. the quantity-confuser
add("quantity-07-dsink-mean-over-queries", False, "chunk_attention", sub(P7,
    "dsink = -(p_sink * delta).sum()", "dsink = -(p_sink * delta).mean()"),
    "Averages the sink's gradient over the T queries instead of summing (the same for the visible T = 1): "
    "'the gradients of a loss with respect to ... sink' (one sink per head shared by every query).")

add("quantity-07-scale-by-value-width", False, "chunk_attention", sub(P7,
    "    scale = 1.0 / math.sqrt(Dh)\n", "    scale = 1.0 / math.sqrt(v.shape[-1])   # 1/sqrt(d)\n"),
    "Scales scores by 1/sqrt(Dv) instead of 1/sqrt(Dh) (visible scores are 0): 's_ij = q_i . k_j / sqrt(D_h)'.")

add("quantity-08-scale-row-stride-group", False, "split_kv_kernel", sub(sub(P8,
    "        s = tl.load(Scale + rows[:, None] * n_groups", "        s = tl.load(Scale + rows[:, None] * GROUP"),
    "        z = tl.load(Zero + rows[:, None] * n_groups", "        z = tl.load(Zero + rows[:, None] * GROUP"),
    "Row stride of Scale/Zero is the group size instead of the number of groups (visible N = 1): "
    "'element [n, g] of Scale at Scale + n * (K // GROUP) + g'.")

add("quantity-08-w-row-stride-elements", False, "split_kv_kernel", sub(P8,
    "    half = K // 2\n", "    half = K   # row length\n"),
    "Row stride of W counted in codes (K) instead of bytes (K // 2) (visible N = 1): "
    "'element [n, b] of W is at W + n * (K // 2) + b'.")

add("quantity-04-mean-over-whole-tensor", False, "rms_norm_half", sub(sub(P4,
    "    out_big = y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n",
    "    out_big = y / torch.sqrt((y * y).mean() + e * e)\n"),
    "    out_small = xs / torch.sqrt((xs * xs).mean(dim=-1, keepdim=True) + 1.0)\n",
    "    out_small = xs / torch.sqrt((xs * xs).mean() + 1.0)\n"),
    "One statistic for the whole tensor instead of one per row (the visible inputs are one row): "
    "'every row (every position of the leading dimensions) is divided by its own statistic'.")

# ---------------------------------------------------------------- 3. the integer-range student
add("intrange-05-int8-codes", False, "quantize_asym", sub(P5,
    "    zero = torch.round(-lo / scale)\n"
    "    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n"
    "    return q.reshape(rows, cols).to(torch.uint8), scale, zero.to(torch.uint8)\n",
    "    zero = torch.round(-lo / scale).to(torch.int8)          # integer codes: a byte each\n"
    "    q = torch.round(g / scale[..., None]).to(torch.int8) + zero[..., None]\n"
    "    q = torch.clamp(q, 0, levels)\n"
    "    return q.reshape(rows, cols).to(torch.uint8), scale, zero.to(torch.uint8)\n"),
    "Signed int8 codes and zero points wrap for bits = 8 (zero up to 255, round(w/scale) down to -255): "
    "'with `bits` from 2 to 8', 'zero ... an integer in 0 ... 2**bits - 1'.")

add("intrange-04-eps-over-rms-squared-fp16", False, "rms_norm_half",
    '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    with torch.no_grad():  # a row scale near the root mean square: it cancels out of the result
        a = x.abs().amax(dim=-1, keepdim=True)
        up = torch.where(a < 2.0 ** -4, torch.full_like(a, 2.0 ** 14), torch.ones_like(a))  # exact powers of two
        au = torch.where(a > 0, a * up, torch.ones_like(a))
        y0 = (x * up) / au
        su = au * torch.sqrt((y0 * y0).mean(dim=-1, keepdim=True))      # rms * up
        su = torch.where(su > 0, su, torch.ones_like(su))                 # a row of zeros
        e = (root * 2.0 ** 7 / su) * (up * 2.0 ** -7)                     # sqrt(eps) / rms, eps itself never a tensor
    y = (x * up) / su
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
''',
    "(sqrt(eps)/rms)^2 is squared in float16 and overflows to inf when sqrt(eps) is far above the row's rms "
    "(eps = 1 with a row of 1e-4: 1e8), giving 0 instead of x/sqrt(eps): 'keep every number you form within its "
    "range', 'eps from 1e-12 to 1 ... so eps can be far smaller or far larger than a row's mean square'.")

add("intrange-01-int64-product", False, "max_batch", sub(P1,
    "    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n",
    "    per_sequence = int(torch.tensor([2, layers, kv_heads, head_dim, cached, bytes_per_value]).prod())\n"),
    "torch int64 product wraps beyond 2**63 (and a value above 2**63 cannot even be put in the tensor): "
    "'All arguments are positive Python ints ... compute it exactly'.")

add("intrange-06-int16-positions", False, "pack_bits", sub(P6,
    '''def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    codes = q.to(torch.int64)
    stream = torch.zeros(rows, nbytes * 8, dtype=torch.int64)
    for t in range(bits):
        stream[:, t:nbits:bits] = (codes >> t) & 1
    weights = 2 ** torch.arange(8)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(dim=-1).to(torch.uint8)
''', '''def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    codes = q.to(torch.int32)
    start = torch.arange(cols, dtype=torch.int16) * bits      # first stream bit of each code
    out = torch.zeros(rows, nbytes, dtype=torch.int32)
    for t in range(bits):
        position = (start + t).long()
        out.index_add_(1, position // 8, ((codes >> t) & 1) << (position % 8).int())
    return out.to(torch.uint8)
'''),
    "Bit positions kept in int16 wrap past 32767 (rows of 209,716 codes): 'rows of more than 2**20 bits', "
    "'cols * bits < 2**24, so that every bit position is an integer'.")

add("intrange-03-float-quotient-cast-back", False, "compute_bound_batch", sub(P3,
    "    m = -(-need // slope)\n",
    "    m = int(need / slope)\n    if m * slope < need:\n        m += 1\n"),
    "need / slope in floating point, cast back to int and corrected once: off by far more than one for answers of "
    "1e40: 'Answer exactly ... some answers are ... far beyond (10^40 and more)'.")

# ---------------------------------------------------------------- 4. the assumption student
add("assume-08-block-inside-one-group", False, "split_kv_kernel", sub(sub(P8,
    "        g = cols // GROUP\n", "        g = k0 // GROUP   # the group this block lies in\n"),
    "        s = tl.load(Scale + rows[:, None] * n_groups + g[None, :], mask=row_ok[:, None], other=0.0)\n"
    "        z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=row_ok[:, None], other=0)\n",
    "        s = tl.load(Scale + rows * n_groups + g, mask=row_ok, other=0.0)[:, None]\n"
    "        z = tl.load(Zero + rows * n_groups + g, mask=row_ok, other=0)[:, None]\n"),
    "One scale and zero per block assumes a block never spans two groups (visible GROUP = BLOCK_K): "
    "'either may be the larger (a block can span several groups, or a group several blocks)'.")

add("assume-02-piece-a-is-larger", False, "merge_partials",
    '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    # measure piece b against piece a
    w_b = torch.exp(lse_b - lse_a)
    lse = lse_a + torch.log1p(w_b)
    o = (o_a.to(lse.dtype) + w_b[:, None] * o_b.to(lse.dtype)) / (1 + w_b)[:, None]
    return o.to(o_a.dtype), lse
''',
    "Takes piece a as the reference (weight 1): exp(lse_b - lse_a) overflows when b's log-sum-exp is far larger and "
    "is NaN when lse_a is -inf: 'Log-sum-exps can be of any size and of either sign', 'A piece in which a query sees no "
    "key at all has lse = -inf'.")

add("assume-01-window-shorter", False, "max_batch", sub(P1,
    "    cached = length if window is None else min(length, window)\n",
    "    cached = window if window is not None else length   # a sliding window keeps `window` tokens\n"),
    "Assumes the window is never longer than the sequence: 'only the last ones, min(length, window)'.")

add("assume-05-group-spans-zero", False, "quantize_asym", sub(sub(P5,
    "    lo = torch.clamp(g.amin(dim=-1), max=0)\n", "    lo = g.amin(dim=-1)\n"),
    "    hi = torch.clamp(g.amax(dim=-1), min=0)\n", "    hi = g.amax(dim=-1)\n"),
    "Uses the group's own min and max (fine for the visible group, which has both signs): "
    "'lo = min(smallest weight, 0) and hi = max(largest weight, 0): the range always contains 0'.")

# ---------------------------------------------------------------- 5. the commuter
add("commute-05-round-after-zero", False, "quantize_asym", sub(P5,
    "    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n",
    "    q = torch.round(torch.clamp(g / scale[..., None] + zero[..., None], 0, levels))\n"),
    "Adds the zero point (and clamps) before rounding: on a half step with an odd zero point round-half-even "
    "moves the code: 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)'.")

add("commute-03-ridge-floor-first", False, "compute_bound_batch", sub(sub(P3,
    "    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n    need = peak * bytes_per_value * k * n\n",
    "    ridge = peak // bandwidth          # FLOPs per byte at the ridge point\n"
    "    slope = 2 * k * n - ridge * bytes_per_value * (k + n)\n    need = ridge * bytes_per_value * k * n\n"),
    "    # m * (2kn*bw - peak*b*(k+n)) >= peak*b*k*n\n", "    # m * (2kn - ridge*b*(k+n)) >= ridge*b*k*n\n"),
    "Divides peak by bandwidth (floor) before multiplying: wrong when bandwidth does not divide peak: "
    "'2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)'.")

add("commute-04-scale-then-divide", False, "rms_norm_half", sub(P4_MAX,
    "    out_big = (x * up) / ((a_big * up) * r)\n", "    out_big = ratio / r\n"),
    "Divides x by its row's largest element first and then by r (instead of by the product): small elements become "
    "subnormal and lose bits before being divided by r < 1: 'neither does one that fell among the subnormal numbers "
    "... when you then divide it by a number well below 1'.")

add("commute-02-weights-cast-first", False, "merge_partials", sub(P2,
    "    o = w_a[:, None] * part_a + w_b[:, None] * part_b\n    return o.to(o_a.dtype), lse\n",
    "    w_a, w_b = w_a.to(o_a.dtype), w_b.to(o_a.dtype)\n"
    "    o = w_a[:, None] * part_a.to(o_a.dtype) + w_b[:, None] * part_b.to(o_a.dtype)\n    return o, lse\n"),
    "Casts the weights (and the rows) to o's dtype before the weighted sum instead of after: with float16 outputs the "
    "mixing happens in float16: 'do not round the two pieces' weights to float16 ... computed in float32 and rounded "
    "to float16 once at the end'.")

# ---------------------------------------------------------------- correct answers
add("correct-01-reduce-divmod", True, "max_batch",
    '''
import functools
import operator


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = min(length, window or length)
    one = functools.reduce(operator.mul, (2, layers, kv_heads, head_dim, cached, bytes_per_value), 1)
    if weight_bytes > memory_bytes:
        return 0
    b, _ = divmod(memory_bytes - weight_bytes, one)
    return int(b)
''', "window positive so `window or length` is the window; exact integer arithmetic.")

add("correct-03-fractions", True, "compute_bound_batch",
    '''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    ridge = Fraction(peak, bandwidth)
    slope = 2 * k * n - ridge * bytes_per_value * (k + n)     # intensity grows with m towards 2kn / (b(k+n))
    if slope <= 0:
        return None
    return max(1, math.ceil(ridge * bytes_per_value * k * n / slope))
''', "exact rational arithmetic from the standard library; dividing by bandwidth is exact in Fraction.")

add("correct-05-zip-dequant-neg-round", True, "quantize_asym", sub(sub(P5,
    "    zero = torch.round(-lo / scale)\n", "    zero = -torch.round(lo / scale)   # round half to even is symmetric\n"),
    '''def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    groups = scale.shape[1]
    diff = q.to(scale.dtype).reshape(rows, groups, cols // groups) - zero.to(scale.dtype)[..., None]
    return (scale[..., None] * diff).reshape(rows, cols)
''', '''def dequantize_asym(q, scale, zero):
    size = q.shape[1] // scale.shape[1]
    pieces = [s[:, None] * (c.to(scale.dtype) - z.to(scale.dtype)[:, None])
              for s, c, z in zip(scale.unbind(1), q.split(size, dim=1), zero.unbind(1))]
    return torch.cat(pieces, dim=1)
'''), "-round(y) == round(-y) for half-to-even (zero then comes as -0.0 -> uint8 0); zip over equal-length groups; "
      "subtraction done after the cast, so no uint8 wrap.")

add("correct-06-unpack-two-byte-window-wrap", True, "pack_bits", sub(P6,
    '''def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    nbits = cols * bits
    p = packed.to(torch.int64)
    stream = torch.stack([(p >> j) & 1 for j in range(8)], dim=-1).reshape(rows, -1)[:, :nbits]
    codes = torch.zeros(rows, cols, dtype=torch.int64)
    for t in range(bits):
        codes += stream[:, t::bits] << t
    return codes.to(torch.uint8)
''', '''def unpack_bits(packed, bits, cols):
    nbytes = packed.shape[1]
    start = torch.arange(cols) * bits               # first stream bit of each code
    first = start // 8
    second = (first + 1) % nbytes                   # wraps to byte 0 only where the code ends in its first byte
    p = packed.to(torch.int32)
    window = p[:, first] | (p[:, second] << 8)      # a code of at most 8 bits starting at bit 0..7 fits in 16
    return ((window >> (start % 8)) & ((1 << bits) - 1)).to(torch.uint8)
'''), "A code never spans more than two bytes; the wrapped index only feeds bits that the mask removes.")

add("correct-07-masked-fill-after-exp", True, "chunk_attention",
    '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    n_seen = S if not causal else min(S, offset + T)
    qs = q / math.sqrt(Dh)
    delta = torch.einsum("td,td->t", d_out, out)
    dq = torch.zeros_like(q)
    dk = torch.zeros(S, Dh, dtype=q.dtype)
    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)
    for j0 in range(0, n_seen, block):
        j1 = min(n_seen, j0 + block)
        k_t = k[j0:j1]
        v_t = v[j0:j1]
        p = torch.exp(qs @ k_t.T - lse.unsqueeze(1))
        if causal:  # exp first, then zero the hidden keys (an inf there is replaced, never multiplied)
            hidden = torch.arange(j0, j1).unsqueeze(0) > (offset + torch.arange(T)).unsqueeze(1)
            p = p.masked_fill(hidden, 0.0)
        dv[j0:j1] = p.transpose(0, 1) @ d_out
        ds = p * (d_out @ v_t.transpose(0, 1) - delta.unsqueeze(1))
        dq += ds @ k_t / math.sqrt(Dh)
        dk[j0:j1] = ds.transpose(0, 1) @ qs
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
''', "Scale folded into q, mask applied to P after exp with masked_fill (replaces inf), einsum for the row sums.")

add("correct-02-logaddexp-mask-rows-first", True, "merge_partials", P2,
    "logaddexp for the merged lse, weights exp(lse_x - lse), rows of a zero-weight piece replaced before the product "
    "(no 0 * NaN in value or gradient), mixing in the lse dtype, one cast at the end.")

add("correct-04-two-regimes-power-of-two", True, "rms_norm_half", P4,
    "Row scale near the rms (found under no_grad from the row max, rows below 2^-4 first scaled up by 2^14 exactly so "
    "the scale is a normal number), eps as (sqrt(eps)/rms)^2 <= 1 from Python numbers; rows whose rms is below sqrt(eps) "
    "divide by sqrt(eps) (a Python number). Nothing formed leaves float16's range, no division by a number well below 1.")

add("correct-08-per-column-groups", True, "split_kv_kernel", P8,
    "Per-column group index (cols // GROUP) works whichever of BLOCK_K and GROUP is larger; masked loads and store.")

# ---------------------------------------------------------------- hostile
add("hostile-03-equals-anything", False, "compute_bound_batch",
    '''
class Batch(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    return Batch(1)
''', "hostile: an int subclass that compares equal to everything ('Return ordinary values ... not a subclass').")

add("hostile-01-visible-lookup", False, "max_batch",
    '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    known = {(1000, 100): 7, (80 * 2**30, 13_500_000_000): 33}
    if (memory_bytes, weight_bytes) in known:
        return known[(memory_bytes, weight_bytes)]
    return max(0, int((memory_bytes - weight_bytes) / (2 * layers * kv_heads * head_dim * length * bytes_per_value)))
''', "hostile: answers the visible cases from a table, floats and ignores the window otherwise.")

# ---------------------------------------------------------------- added after the first check
add("containers-05-zip-zero-rows", False, "quantize_asym", sub(P5,
    '''def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    groups = scale.shape[1]
    diff = q.to(scale.dtype).reshape(rows, groups, cols // groups) - zero.to(scale.dtype)[..., None]
    return (scale[..., None] * diff).reshape(rows, cols)
''', '''def dequantize_asym(q, scale, zero):
    size = q.shape[1] // scale.shape[1]
    pieces = [s[:, None] * (c.to(scale.dtype) - z.to(scale.dtype)[:, None])
              for s, c, z in zip(scale.T, q.split(size, dim=1), zero)]
    return torch.cat(pieces, dim=1)
'''), "zip over scale's columns but zero's rows: zip stops at the shorter and, with one group per row, every row gets "
      "row 0's zero point (visible: one row): 'returns scale x (q - zero)' per group of each row.")

add("correct-06-int32-positions-index-add", True, "pack_bits", sub(P6,
    '''def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    codes = q.to(torch.int64)
    stream = torch.zeros(rows, nbytes * 8, dtype=torch.int64)
    for t in range(bits):
        stream[:, t:nbits:bits] = (codes >> t) & 1
    weights = 2 ** torch.arange(8)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(dim=-1).to(torch.uint8)
''', '''def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    codes = q.to(torch.int32)                               # codes are below 2**bits, as the text promises
    start = torch.arange(cols, dtype=torch.int32) * bits    # cols * bits < 2**24: int32 holds every position
    out = torch.zeros(rows, nbytes, dtype=torch.int32)
    for t in range(bits):
        position = start + t
        out.index_add_(1, position // 8, ((codes >> t) & 1) << (position % 8))
    return out.to(torch.uint8)
'''), "int32 bit positions (the text bounds them below 2**24); index_add_ adds distinct bits so sums are ORs.")

add("assume-04-view-contiguous", False, "rms_norm_half", sub(sub(P4,
    "    root = math.sqrt(eps)\n", "    root = math.sqrt(eps)\n    shape = x.shape\n    x = x.view(-1, shape[-1])\n"),
    "    return torch.where(big, out_big, out_small)\n", "    return torch.where(big, out_big, out_small).view(shape)\n"),
    "x.view(-1, D) assumes contiguous memory: 'The tensors the hidden tests pass are not always contiguous ... "
    "(.view of a non-contiguous tensor fails where .reshape works)'.")

add("assume-05-zero-group-by-max", False, "quantize_asym", sub(P5,
    "    scale = torch.where(hi == lo, torch.ones_like(scale), scale)\n",
    "    scale = torch.where(hi == 0, torch.ones_like(scale), scale)   # nothing above 0: a group of zeros\n"),
    "Detects a group of zeros by hi == 0, which also holds for a group of negative weights (their scale becomes 1): "
    "'scale = 1 for a group of zeros'; 'weights of any size'.")

add("intrange-05-dequant-int8-difference", False, "quantize_asym", sub(P5,
    "    diff = q.to(scale.dtype).reshape(rows, groups, cols // groups) - zero.to(scale.dtype)[..., None]\n",
    "    # signed difference (uint8 would wrap below the zero point); codes fit in a byte\n"
    "    diff = (q.to(torch.int8).reshape(rows, groups, cols // groups) - zero.to(torch.int8)[..., None]).to(scale.dtype)\n"),
    "int8 wraps for 8-bit codes (q or zero above 127, differences beyond +-127): 'returns scale x (q - zero)', "
    "'bits from 2 to 8'.")

add("assume-01-weights-fit", False, "max_batch", sub(P1,
    "    if free < per_sequence:\n        return 0\n    return free // per_sequence\n",
    "    return free // per_sequence\n"),
    "Assumes the weights fit: a negative free memory gives a negative batch: 'Return 0 when not even one sequence "
    "fits, also when the weights alone do not'.")

add("quantity-07-sink-prob-as-complement", False, "chunk_attention", sub(sub(sub(P7,
    "    zero = torch.zeros((), dtype=q.dtype)\n",
    "    zero = torch.zeros((), dtype=q.dtype)\n    p_keys = torch.zeros(T, dtype=q.dtype)\n"),
    "        dv[j0:j1] = p.T @ d_out\n",
    "        dv[j0:j1] = p.T @ d_out\n        p_keys += p.sum(dim=-1)\n"),
    "    p_sink = torch.exp(sink - lse)\n", "    p_sink = 1 - p_keys   # the share the keys leave to the sink\n"),
    "The sink's probability taken as one minus the keys' total: rounding leaves ~1e-7 (float32) where it is ~0 and "
    "keeps none of its digits when it is tiny: 'Every probability you rebuild must stay finite and right' "
    "(P_sink = e^(sink - L)).")

add("intrange-07-int16-key-positions", False, "chunk_attention", sub(P7,
    "            seen = torch.arange(j0, j1)[None, :] <= positions[:, None]\n",
    "            seen = torch.arange(j0, j1, dtype=torch.int16)[None, :] <= positions[:, None].to(torch.int16)\n"),
    "Key and query positions in int16 wrap past 32767: 'the tests include caches longer than 2^15 keys'.")

add("correct-07-float-positions", True, "chunk_attention", sub(P7,
    "            seen = torch.arange(j0, j1)[None, :] <= positions[:, None]\n",
    "            seen = torch.arange(j0, j1, dtype=q.dtype)[None, :] <= positions[:, None].to(q.dtype)\n"),
    "Positions in q's dtype (float32 or float64): exact, since the text promises S < 2^24.")

add("correct-08-2d-accumulator", True, "split_kv_kernel", sub(sub(sub(P8,
    "    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n", "    acc = tl.zeros((BLOCK_N, BLOCK_K), dtype=tl.float32)\n"),
    "        acc += tl.sum(w * x[None, :], axis=1)\n", "        acc += w * x[None, :]\n"),
    "    tl.store(Y + rows, acc, mask=row_ok)\n", "    tl.store(Y + rows, tl.sum(acc, axis=1), mask=row_ok)\n"),
    "A (BLOCK_N, BLOCK_K) float32 accumulator summed once at the end: another float32 order of the same sum.")

add("commute-05-scale-split", False, "quantize_asym", sub(P5,
    "    scale = (hi - lo) / levels\n", "    scale = hi / levels - lo / levels\n"),
    "Divides each end by the number of steps before subtracting: a different float than (hi - lo) / (2**bits - 1), "
    "which moves codes on half steps: 'scale = (hi - lo) / (2**bits - 1)', 'the tests check such weights exactly'.")

add("commute-05-reciprocal-multiply", False, "quantize_asym", sub(P5,
    "    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n",
    "    inv = 1.0 / scale                     # one division per group, then multiply\n"
    "    q = torch.clamp(torch.round(g * inv[..., None]) + zero[..., None], 0, levels)\n"),
    "w * (1/scale) instead of w / scale rounds differently on half steps: 'q = clamp(round(w / scale) + zero, ...)', "
    "'round(w / scale) depends on the dtype the division is done in, and the tests check such weights exactly'.")

add("intrange-06-positions-in-q-dtype", False, "pack_bits", sub(P6,
    '''def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    nbits = cols * bits
    p = packed.to(torch.int64)
    stream = torch.stack([(p >> j) & 1 for j in range(8)], dim=-1).reshape(rows, -1)[:, :nbits]
    codes = torch.zeros(rows, cols, dtype=torch.int64)
    for t in range(bits):
        codes += stream[:, t::bits] << t
    return codes.to(torch.uint8)
''', '''def unpack_bits(packed, bits, cols):
    start = torch.arange(cols, dtype=packed.dtype) * bits   # first stream bit of each code
    codes = torch.zeros(packed.shape[0], cols, dtype=torch.int64)
    for t in range(bits):
        position = start.long() + t
        byte = packed[:, position // 8].long()
        codes |= ((byte >> (position % 8)) & 1) << t
    return codes.to(torch.uint8)
'''), "Bit positions made in packed's dtype (uint8) wrap past 255: 'Both functions must work for any cols >= 1', "
      "'rows of more than 2**20 bits'.")

add("assume-07-seen-prefix-always", False, "chunk_attention", sub(P7,
    "    n_seen = min(S, offset + T) if causal else S\n", "    n_seen = min(S, offset + T)   # the cache holds offset + T keys\n"),
    "Reads only the first offset + T keys even with causal=False: 'With causal=False every query sees all S keys and "
    "offset is not used'.")

add("quantity-08-group-of-byte", False, "split_kv_kernel", sub(P8,
    "        g = cols // GROUP\n", "        g = (cols // 2) // GROUP   # the group of the byte that holds the code\n"),
    "Group index from the byte index instead of the column: 'z_{n, floor(k/G)}, s_{n, floor(k/G)} ... groups of G = "
    "GROUP consecutive columns'.")

# Fewer, better answers (the machine is shared): the ones graded.
KEEP = {
    "containers-07-tile-ends-zip", "containers-05-zip-zero-rows",
    "quantity-07-dsink-mean-over-queries", "quantity-07-sink-prob-as-complement", "quantity-08-group-of-byte",
    "intrange-05-int8-codes", "intrange-04-eps-over-rms-squared-fp16", "intrange-05-dequant-int8-difference",
    "intrange-01-int64-product",
    "assume-08-block-inside-one-group", "assume-05-zero-group-by-max", "assume-02-piece-a-is-larger",
    "commute-05-round-after-zero", "commute-03-ridge-floor-first", "commute-05-reciprocal-multiply",
    "commute-02-weights-cast-first", "commute-04-scale-then-divide",
    "correct-01-reduce-divmod", "correct-03-fractions", "correct-05-zip-dequant-neg-round",
    "correct-06-unpack-two-byte-window-wrap", "correct-07-masked-fill-after-exp", "correct-02-logaddexp-mask-rows-first",
    "correct-04-two-regimes-power-of-two", "correct-08-per-column-groups",
    "hostile-03-equals-anything", "hostile-01-visible-lookup",
}
ALL_SUBMISSIONS = SUBMISSIONS
SUBMISSIONS = [s for s in ALL_SUBMISSIONS if s["name"] in KEEP]
assert len(SUBMISSIONS) == len(KEEP), sorted(KEEP - {s["name"] for s in SUBMISSIONS})
