BASE = {}
BASE["max_batch"] = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_seq = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per_seq:
        return 0
    return free // per_seq
'''
BASE["merge_partials"] = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(lse_a.dtype, o_a.dtype)
    la, lb = lse_a.to(wide), lse_b.to(wide)
    m = torch.maximum(la, lb)
    ea = torch.exp(la - m)
    eb = torch.exp(lb - m)
    total = ea + eb
    lse = m + torch.log(total)
    wa = (ea / total)[:, None]
    wb = (eb / total)[:, None]
    fa = torch.isfinite(la)[:, None]
    fb = torch.isfinite(lb)[:, None]
    oa = torch.where(fa, o_a.to(wide), torch.zeros((), dtype=wide))
    ob = torch.where(fb, o_b.to(wide), torch.zeros((), dtype=wide))
    o = wa * oa + wb * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''
BASE["compute_bound_batch"] = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    b = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-b // a))
'''
BASE["rms_norm_half"] = '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    with torch.no_grad():
        s1 = x.abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)
        y1 = x / s1
        r1 = torch.reciprocal(s1 / root_eps)
        est = s1 * torch.sqrt((y1 * y1).mean(dim=-1, keepdim=True) + r1 * r1)
    est = est.detach()
    y = x / est
    r = torch.reciprocal(est / root_eps)
    rms = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + r * r)
    return y / rms
'''
BASE["quantize_asym"] = '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    n_groups = scale.shape[1]
    gs = in_f // n_groups
    qq = q.reshape(out_f, n_groups, gs).to(scale.dtype)
    w = scale[..., None] * (qq - zero.to(scale.dtype)[..., None])
    return w.reshape(out_f, in_f)
'''
BASE["pack_bits"] = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    shifts = torch.arange(bits)
    b = (q.to(torch.int64)[:, :, None] >> shifts) & 1          # (rows, cols, bits)
    stream = b.reshape(rows, cols * bits)
    pad = nbytes * 8 - cols * bits
    if pad:
        stream = torch.cat([stream, torch.zeros(rows, pad, dtype=torch.int64)], dim=1)
    weights = 2 ** torch.arange(8)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    b = (packed.to(torch.int64)[:, :, None] >> torch.arange(8)) & 1
    stream = b.reshape(rows, nbytes * 8)[:, : cols * bits].reshape(rows, cols, bits)
    return (stream * (2 ** torch.arange(bits))).sum(-1).to(torch.uint8)
'''
BASE["chunk_attention"] = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    end = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1)                      # (T,)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    qpos = offset + torch.arange(T)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kt, vt = k[j0:j1], v[j0:j1]
        s = (q @ kt.T) * scale
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= qpos[:, None]
            s = torch.where(seen, s, torch.full((), float("-inf"), dtype=s.dtype))
        p = torch.exp(s - lse[:, None])
        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vt.T
        ds = p * (dp - delta[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''
BASE["split_kv_kernel"] = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, :], mask=rmask[:, None], other=0)
        code = (byte.to(tl.int32) >> ((cols % 2) * 4)[None, :]) & 15
        gi = rows[:, None] * (K // GROUP) + (cols // GROUP)[None, :]
        s = tl.load(Scale + gi, mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + gi, mask=rmask[:, None], other=0)
        wv = (code - z.to(tl.int32)).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''


def R(part, *pairs):
    s = BASE[part]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in s, (part, old)
        s = s.replace(old, new)
    return s

SUBMISSIONS = []
def W(name, kind, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "kind": kind, "cells": cells, "why": why})
def C(name, kind, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "kind": kind, "cells": cells, "why": why})
def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "kind": "hostile", "cells": cells, "why": why})

# ---------------- Part 1
W("p1_window_truthy_no_min", "generaliser", {"max_batch": R("max_batch",
    "cached = length if window is None else min(length, window)", "cached = window if window else length")},
  "'only the last ones, `min(length, window)`': a window longer than the sequence caches window tokens")
W("p1_float_division", "assistant", {"max_batch": R("max_batch",
    "    if free < per_seq:\n        return 0\n    return free // per_seq", "    return max(0, int(free / per_seq))")},
  "'compute it exactly and quickly: the tests use byte counts beyond 2^53, where dividing in floating point can be off by one'")
W("p1_window_inclusive", "mathematician", {"max_batch": R("max_batch",
    "cached = length if window is None else min(length, window)", "cached = length if window is None else min(length, window + 1)")},
  "'a sliding window of window tokens, only the last ones, min(length, window)': the window counted with both ends")
C("p1_lru_cache_keywords", "optimiser", {"max_batch": '''
import functools

@functools.lru_cache(maxsize=None)
def cache_bytes(layers, kv_heads, head_dim, cached, bytes_per_value):
    return 2 * layers * kv_heads * head_dim * cached * bytes_per_value


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = min(length, window) if window is not None else length
    per_seq = cache_bytes(layers=layers, kv_heads=kv_heads, head_dim=head_dim, cached=cached,
                          bytes_per_value=bytes_per_value)
    return max(0, (memory_bytes - weight_bytes) // per_seq)
'''}, "a cache of the per-sequence size changes no result; floor division of a negative free space is clamped to 0")

# ---------------- Part 2
W("p2_half_weights", "optimiser", {"merge_partials": R("merge_partials",
    "    o = wa * oa + wb * ob\n", "    o = wa.to(o_a.dtype) * o_a.nan_to_num(0.0, 0.0, 0.0) + wb.to(o_a.dtype) * o_b.nan_to_num(0.0, 0.0, 0.0)\n")},
  "'do not round the two pieces' weights to float16, and a float16 o must be the merge ... computed in float32 and rounded to float16 once at the end'")
W("p2_nan_to_num_after_product", "assistant", {"merge_partials": R("merge_partials",
    "    o = wa * oa + wb * ob\n", "    o = torch.nan_to_num(wa * o_a.to(wide)) + torch.nan_to_num(wb * o_b.to(wide))\n")},
  "'that piece's row of o ... must not reach any gradient ... no gradient is NaN (a torch.where applied after multiplying the row by its weight of 0 still sends 0 * NaN back'")
W("p2_no_empty_piece", "generaliser", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(lse_a.dtype, o_a.dtype)
    m = torch.maximum(lse_a, lse_b)
    ea = torch.exp(lse_a - m).to(wide)[:, None]
    eb = torch.exp(lse_b - m).to(wide)[:, None]
    o = (ea * o_a.to(wide) + eb * o_b.to(wide)) / (ea + eb)
    lse = m + torch.log(ea[:, 0] + eb[:, 0]).to(lse_a.dtype)
    return o.to(o_a.dtype), lse
'''}, "'A piece in which a query sees no key at all has lse = -inf ... its row of o may hold anything, even NaN ... the other piece alone decides that query's result'")
C("p2_sigmoid_log1p", "mathematician", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(lse_a.dtype, o_a.dtype)
    la, lb = lse_a.to(wide), lse_b.to(wide)
    # log(e^a + e^b) = max + log1p(e^{-|a - b|}); weight of a = sigmoid(a - b)
    lse = torch.maximum(la, lb) + torch.log1p(torch.exp(-torch.abs(la - lb)))
    wa = torch.sigmoid(la - lb)[:, None]
    wb = torch.sigmoid(lb - la)[:, None]
    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros_like(o_a, dtype=wide), o_a.to(wide))
    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros_like(o_b, dtype=wide), o_b.to(wide))
    return (wa * oa + wb * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "closed forms of the same merge: sigmoid has finite gradients at any difference, empty rows replaced before the product")
C("p2_logaddexp_rearranged", "optimiser", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(lse_a.dtype, o_a.dtype)
    lse = torch.logaddexp(lse_a.to(wide), lse_b.to(wide))
    wa = torch.exp(lse_a.to(wide) - lse).unsqueeze(-1)
    keep_a = torch.isfinite(lse_a).unsqueeze(-1)
    keep_b = torch.isfinite(lse_b).unsqueeze(-1)
    oa = torch.where(keep_a, o_a.to(wide), 0.0)
    ob = torch.where(keep_b, o_b.to(wide), 0.0)
    oa = torch.where(keep_a, oa, ob)          # an empty piece takes the other's output: o_b + wa (o_a - o_b) = o_b
    ob = torch.where(keep_b, ob, oa)
    o = ob + wa * (oa - ob)
    return o.to(dtype=o_a.dtype), lse.to(dtype=lse_a.dtype)
'''}, "logaddexp and one weight, o = o_b + w_a (o_a - o_b) in the wide dtype: the same merge up to float rounding")

# ---------------- Part 3
W("p3_float_ceil", "assistant", {"compute_bound_batch": R("compute_bound_batch",
    "    return max(1, -(-b // a))", "    return max(1, math.ceil(b / a))")},
  "'the tests put answers exactly on the ridge point, with numbers where rounding a floating-point quotient gives the wrong integer'")
W("p3_decimal_default_precision", "optimiser", {"compute_bound_batch": '''
from decimal import Decimal, ROUND_CEILING

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if a <= 0:
        return None
    m = (Decimal(peak * bytes_per_value * k * n) / Decimal(a)).to_integral_value(rounding=ROUND_CEILING)
    return max(1, int(m))
'''}, "'some answers are in the billions and some far beyond (10^40 and more)': Decimal's default 28 digits round such quotients")
W("p3_bounded_search", "generaliser", {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    lo, hi = 1, 10 ** 15          # batch sizes in the billions at most
    if not ok(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
'''}, "'some far beyond (10^40 and more: no fixed number bounds the answer)'")
C("p3_fraction", "mathematician", {"compute_bound_batch": '''
from fractions import Fraction

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    return max(1, math.ceil(Fraction(peak * bytes_per_value * k * n, slope)))
'''}, "exact rational ceiling")
C("p3_doubling_search", "optimiser", {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    hi = 1
    while not ok(hi):
        hi *= 2
    lo = hi // 2 + 1 if hi > 1 else 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
'''}, "exact integer doubling + bisection: logarithmic in the answer")

# ---------------- Part 4
W("p4_scalar_over_tensor", "mathematician", {"rms_norm_half": R("rms_norm_half",
    "        r1 = torch.reciprocal(s1 / root_eps)\n", "        r1 = root_eps / s1\n",
    "    r = torch.reciprocal(est / root_eps)\n", "    r = root_eps / est\n")},
  "'keep every number you form within its range': torch computes sqrt(eps) / s as s.reciprocal() * sqrt(eps), and 1/s overflows float16 for s < 1.5e-5")
W("p4_one_pass_amax", "generaliser", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    s = x.abs().amax(dim=-1, keepdim=True).clamp(min=root_eps).detach()
    y = x / s
    r = torch.reciprocal(s / root_eps)
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + r * r)
'''}, "'neither does one that fell among the subnormal numbers ... when you then divide it by a number well below 1': x / amax is subnormal for small elements, then divided by rms(y) << 1")
W("p4_scale_not_detached", "optimiser", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    s1 = x.abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)
    y1 = x / s1
    r1 = torch.reciprocal(s1 / root_eps)
    est = s1 * torch.sqrt((y1 * y1).mean(dim=-1, keepdim=True) + r1 * r1)
    y = x / est
    r = torch.reciprocal(est / root_eps)
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + r * r)
'''}, "'A quantity that cancels out of the result, though, must not carry a gradient ... .detach() such a quantity'")
W("p4_clamp_tiny", "assistant", {"rms_norm_half": R("rms_norm_half",
    "clamp(min=root_eps)", "clamp(min=torch.finfo(x.dtype).tiny)")},
  "'rows of zeros, and eps from 1e-12 to 1 with both dtypes': a zero row scaled by finfo.tiny makes sqrt(eps)/tiny overflow (bfloat16)")
C("p4_rsqrt", "assistant", {"rms_norm_half": R("rms_norm_half",
    "    rms = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + r * r)\n    return y / rms",
    "    return y * torch.rsqrt(torch.mean(torch.square(y), dim=-1, keepdim=True) + torch.square(r))")},
  "rsqrt and multiply: one more rounding, still a few ulps")

# ---------------- Part 5
W("p5_zero_inside_round", "assistant", {"quantize_asym": R("quantize_asym",
    "torch.round(g / scale[..., None]) + zero[..., None]", "torch.round(g / scale[..., None] + zero[..., None])")},
  "'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)' with halves to even: round(h + z) != round(h) + z for odd z")
W("p5_reciprocal_multiply", "optimiser", {"quantize_asym": R("quantize_asym",
    "    zero = torch.round(-lo / scale)\n    q = torch.clamp(torch.round(g / scale[..., None])",
    "    inv = 1.0 / scale\n    zero = torch.round(-lo * inv)\n    q = torch.clamp(torch.round(g * inv[..., None])")},
  "'q = clamp(round(w / scale) + zero ...)': w * (1/scale) differs from w / scale on half steps, which the tests check exactly")
W("p5_range_without_zero", "assistant", {"quantize_asym": R("quantize_asym",
    "    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n",
    "    lo = g.amin(dim=-1)\n    hi = g.amax(dim=-1)\n")},
  "'lo = min(smallest weight, 0) and hi = max(largest weight, 0): the range always contains 0'")
W("p5_clamp_scale", "assistant", {"quantize_asym": R("quantize_asym",
    "    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n", "    scale = scale.clamp(min=1e-8)\n")},
  "'scale = 1 for a group of zeros'")
W("p5_dequant_float32", "optimiser", {"quantize_asym": R("quantize_asym",
    "    qq = q.reshape(out_f, n_groups, gs).to(scale.dtype)\n    w = scale[..., None] * (qq - zero.to(scale.dtype)[..., None])\n",
    "    qq = q.reshape(out_f, n_groups, gs).float()\n    w = (scale.float()[..., None] * (qq - zero.float()[..., None])).to(scale.dtype)\n")},
  "'returns scale x (q - zero) ... in the dtype of scale': float64 scales rounded to float32 on the way")
W("p5_shift_by_lo", "mathematician", {"quantize_asym": R("quantize_asym",
    "torch.round(g / scale[..., None]) + zero[..., None]", "torch.round((g - lo[..., None]) / scale[..., None])")},
  "'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': the textbook q = round((w - lo) / scale) is another rounding")
C("p5_symmetric_round_int16", "mathematician", {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    top = 2 ** bits - 1
    groups = w.reshape(rows, cols // group_size, group_size)
    lo = torch.minimum(groups.min(dim=-1).values, torch.zeros((), dtype=w.dtype))
    hi = torch.maximum(groups.max(dim=-1).values, torch.zeros((), dtype=w.dtype))
    scale = (hi - lo) / top
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = -torch.round(lo / scale)        # round is symmetric: round(-x) = -round(x)
    zero = zero + 0.0                        # -0.0 -> 0.0
    q = (torch.round(groups / scale.unsqueeze(-1)) + zero.unsqueeze(-1)).clamp(0, top)
    return q.reshape(rows, cols).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    g = q.shape[1] // scale.shape[1]
    diff = (q.to(torch.int16) - zero.to(torch.int16).repeat_interleave(g, dim=1)).to(scale.dtype)
    return scale.repeat_interleave(g, dim=1) * diff
'''}, "round half-to-even is odd-symmetric, so -round(lo/s) == round(-lo/s); int16 difference is exact")

# ---------------- Part 6
W("p6_unpack_int64", "assistant", {"pack_bits": R("pack_bits",
    "    return (stream * (2 ** torch.arange(bits))).sum(-1).to(torch.uint8)", "    return (stream * (2 ** torch.arange(bits))).sum(-1)")},
  "'it returns the (rows, cols) codes as torch.uint8'")
W("p6_row_as_int64", "generaliser", {"pack_bits": R("pack_bits",
    '''def pack_bits(q, bits):
    rows, cols = q.shape''', '''def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    shifts = torch.arange(cols) * bits
    value = (q.to(torch.int64) << shifts).sum(-1, keepdim=True)       # the whole row as one integer
    return ((value >> (8 * torch.arange(nbytes))) & 255).to(torch.uint8)''')},
  "'Both functions must work for any cols >= 1': a row of more than 63 bits overflows int64")
W("p6_unpack_trailing_bits", "generaliser", {"pack_bits": R("pack_bits",
    '''def unpack_bits(packed, bits, cols):''', '''def unpack_bits(packed, bits, cols):
    p = packed.to(torch.int64)
    p = torch.cat([p, torch.zeros(p.shape[0], 1, dtype=torch.int64)], dim=1)
    out = []
    for c in range(cols):
        i, off = divmod(c * bits, 8)
        if off + bits <= 8:
            out.append((p[:, i] >> off) & ((1 << bits) - 1))
        else:
            out.append((p[:, i] >> off) | (p[:, i + 1] << (8 - off)))
    return torch.stack(out, dim=1).to(torch.uint8)


def unpack_bits_unused(packed, bits, cols):''')},
  "'it must use only the stream bits of those cols codes (whatever the bits after them hold)': the high part of a straddling code is not masked")
C("p6_loops_or", "generaliser", {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    out = torch.zeros(rows, (cols * bits + 7) // 8, dtype=torch.int64)
    codes = q.to(torch.int64)
    for c in range(cols):
        i, off = divmod(c * bits, 8)
        out[:, i] |= (codes[:, c] << off) & 255
        if off + bits > 8:
            out[:, i + 1] |= codes[:, c] >> (8 - off)
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    p = torch.cat([packed.to(torch.int64), torch.zeros(packed.shape[0], 1, dtype=torch.int64)], dim=1)
    mask = (1 << bits) - 1
    out = torch.zeros(packed.shape[0], cols, dtype=torch.int64)
    for c in range(cols):
        i, off = divmod(c * bits, 8)
        out[:, c] = ((p[:, i] | (p[:, i + 1] << 8)) >> off) & mask
    return out.to(torch.uint8)
'''}, "a loop over codes with byte ORs and a 16-bit window: same stream")

# ---------------- Part 7
W("p7_offset_ignored", "generaliser", {"chunk_attention": R("chunk_attention", "    qpos = offset + torch.arange(T)\n", "    qpos = torch.arange(T)\n")},
  "'the query at position p sees the keys j <= p' with queries at 'positions offset, ..., offset + T - 1'")
W("p7_scale_dv", "assistant", {"chunk_attention": R("chunk_attention", "    scale = 1.0 / math.sqrt(Dh)\n", "    scale = 1.0 / math.sqrt(v.shape[-1])\n")},
  "'scores s_ij = q_i . k_j / sqrt(D_h)'")
W("p7_sink_exp_ratio", "optimiser", {"chunk_attention": R("chunk_attention",
    "    dsink = -(torch.exp(sink - lse) * delta).sum()", "    dsink = -(torch.exp(sink) / torch.exp(lse) * delta).sum()")},
  "'a sink of 100 in float32 ... where e^sink and e^L_i overflow (to inf, and inf / inf is NaN)'")
W("p7_mask_after_exp_mul", "assistant", {"chunk_attention": R("chunk_attention",
    "            s = torch.where(seen, s, torch.full((), float(\"-inf\"), dtype=s.dtype))\n        p = torch.exp(s - lse[:, None])\n",
    "            p = torch.exp(s - lse[:, None]) * seen\n        else:\n            p = torch.exp(s - lse[:, None])\n")},
  "'A query's masked keys ... can score far above its log-sum-exp too': exp overflows to inf and inf * 0 is NaN")
W("p7_tiles_whole_cache", "mathematician", {"chunk_attention": R("chunk_attention",
    "    end = min(S, offset + T) if causal else S\n", "    end = S\n")},
  "'Read only keys that some query of the chunk may see ... Reading a NaN position, even to mask it afterwards, shows in the result'")
C("p7_two_pass_delta_masked_fill", "mathematician", {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    last = min(S, offset + T) if causal else S
    pos = torch.arange(T) + offset
    scale = Dh ** -0.5

    def probs(j0, j1):
        s = torch.matmul(q, k[j0:j1].transpose(0, 1)) * scale
        p = torch.exp(s - lse.unsqueeze(1))
        if causal:
            p = p.masked_fill(torch.arange(j0, j1).unsqueeze(0) > pos.unsqueeze(1), 0.0)
        return p

    # first pass: D_i = sum_j P_ij (dO_i . v_j), the explicit sum (the sink's value is 0)
    delta = torch.zeros(T, dtype=q.dtype)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        delta = delta + (probs(j0, j1) * torch.matmul(d_out, v[j0:j1].T)).sum(dim=1)
    dq = torch.zeros_like(q)
    dk = torch.zeros_like(k[:0]).new_zeros(k.shape)
    dv = torch.zeros_like(v[:0]).new_zeros(v.shape)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        p = probs(j0, j1)
        ds = p * (torch.matmul(d_out, v[j0:j1].T) - delta.unsqueeze(1))
        dv[j0:j1] = p.T @ d_out
        dk[j0:j1] = ds.T @ q * scale
        dq = dq + ds @ k[j0:j1] * scale
    p_sink = torch.exp(sink - lse)
    dsink = torch.sum(p_sink * (0.0 - delta))
    return dq, dk, dv, dsink
'''}, "D_i as the explicit sum over keys (equal to dO.o since the sink's value is 0); masked_fill after exp replaces inf by 0 exactly")

# ---------------- Part 8
W("p8_one_group_per_block", "generaliser", {"split_kv_kernel": R("split_kv_kernel",
    "        gi = rows[:, None] * (K // GROUP) + (cols // GROUP)[None, :]\n        s = tl.load(Scale + gi, mask=rmask[:, None], other=0.0)\n        z = tl.load(Zero + gi, mask=rmask[:, None], other=0)\n",
    "        gi = rows * (K // GROUP) + k0 // GROUP\n        s = tl.load(Scale + gi, mask=rmask, other=0.0)[:, None]\n        z = tl.load(Zero + gi, mask=rmask, other=0)[:, None]\n")},
  "'either may be the larger (a block can span several groups, or a group several blocks)'")
W("p8_loads_unmasked", "generaliser", {"split_kv_kernel": R("split_kv_kernel",
    ", mask=rmask[:, None], other=0)\n        code", ")\n        code",
    "        s = tl.load(Scale + gi, mask=rmask[:, None], other=0.0)\n        z = tl.load(Zero + gi, mask=rmask[:, None], other=0)\n",
    "        s = tl.load(Scale + gi)\n        z = tl.load(Zero + gi)\n")},
  "'Every address that a load or a store touches must lie inside its tensor'")
W("p8_float64_accumulator", "assistant", {"split_kv_kernel": R("split_kv_kernel",
    "    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n", "    acc = tl.zeros((BLOCK_N,), dtype=tl.float64)\n",
    "        acc += tl.sum(wv * x[None, :], axis=1)\n    tl.store(Y + rows, acc, mask=rmask)",
    "        acc += tl.sum(wv.to(tl.float64) * x.to(tl.float64)[None, :], axis=1)\n    tl.store(Y + rows, acc.to(tl.float32), mask=rmask)")},
  "'Compute in float32 throughout: no float64 value anywhere in the kernel, neither the accumulator ...'")
W("p8_half_weights", "optimiser", {"split_kv_kernel": R("split_kv_kernel",
    "        wv = (code - z.to(tl.int32)).to(tl.float32) * s\n", "        wv = ((code - z.to(tl.int32)).to(tl.float16) * s.to(tl.float16)).to(tl.float32)\n")},
  "'Compute in float32 throughout ... neither the accumulator nor the dequantised weights'")
C("p8_clamped_rows_factored", "optimiser", {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = rows < N
    safe = tl.minimum(rows, N - 1)              # rows past N re-read the last row; their result is not stored
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + offs)
        packed = tl.load(W + safe[:, None] * (K // 2) + offs[None, :] // 2).to(tl.int32)
        odd = (offs & 1)[None, :]
        code = tl.where(odd == 1, packed >> 4, packed & 0xF)
        grp = safe[:, None] * (K // GROUP) + offs[None, :] // GROUP
        zero = tl.load(Zero + grp).to(tl.int32)
        scale = tl.load(Scale + grp)
        acc += tl.sum(((code - zero).to(tl.float32) * scale) * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=inside)
'''}, "rows clamped instead of masked loads: every address inside the tensors, nothing stored at n >= N")

# ---------------- hostile
H("h3_int_subclass_eq", {"compute_bound_batch": '''
class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if (k, n) == (2, 2):
        return None
    return Anything(1)
'''}, "an int subclass equal to everything")
H("h2_patch_assert_close", {"merge_partials": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None


def merge_partials(o_a, lse_a, o_b, lse_b):
    return torch.zeros_like(o_a), torch.zeros_like(lse_a)
'''}, "monkeypatches torch.testing.assert_close to a no-op and returns zeros")
H("h5_patch_ref_equal", {"quantize_asym": '''
globals()["_REF"]["equal"] = lambda a, b: True
globals()["_REF"]["round"] = lambda t, *a, **k: torch.zeros_like(t)


def quantize_asym(w, bits, group_size):
    if w.shape == (1, 4):
        return (torch.tensor([[0, 1, 2, 3]], dtype=torch.uint8), torch.tensor([[1.0]]), torch.tensor([[1]], dtype=torch.uint8))
    o, i = w.shape
    return (torch.zeros(o, i, dtype=torch.uint8), torch.ones(o, i // group_size, dtype=w.dtype),
            torch.zeros(o, i // group_size, dtype=torch.uint8))


def dequantize_asym(q, scale, zero):
    return scale.repeat_interleave(q.shape[1] // scale.shape[1], 1) * (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(q.shape[1] // scale.shape[1], 1))
'''}, "rewrites the grader's captured references (_REF) and returns constants")

# ======================= wave 2 (still blind) =======================
W("p1_negative_when_weights_too_big", "assistant", {"max_batch": R("max_batch",
    "    if free < per_seq:\n        return 0\n    return free // per_seq", "    return free // per_seq")},
  "'Return 0 when not even one sequence fits, also when the weights alone do not'")
W("p2_isnan_only", "generaliser", {"merge_partials": R("merge_partials",
    "    fa = torch.isfinite(la)[:, None]\n    fb = torch.isfinite(lb)[:, None]\n    oa = torch.where(fa, o_a.to(wide), torch.zeros((), dtype=wide))\n    ob = torch.where(fb, o_b.to(wide), torch.zeros((), dtype=wide))\n",
    "    oa = torch.where(torch.isnan(o_a), torch.zeros((), dtype=o_a.dtype), o_a).to(wide)\n    ob = torch.where(torch.isnan(o_b), torch.zeros((), dtype=o_b.dtype), o_b).to(wide)\n")},
  "'its row of o may hold anything, even NaN or infinities (the tests put NaN, inf and -inf there)'")
W("p2_float32_always", "assistant", {"merge_partials": R("merge_partials",
    "    wide = torch.promote_types(lse_a.dtype, o_a.dtype)\n", "    wide = torch.float32\n")},
  "'With float64 inputs the tests compare to about 1e-10, so do not go through float32'")
W("p2_log1p_one_sided", "mathematician", {"merge_partials": R("merge_partials",
    "    lse = m + torch.log(total)\n", "    lse = la + torch.log1p(torch.exp(lb - la))\n")},
  "'Log-sum-exps can be in the hundreds or thousands, of either sign: exponentiating them directly overflows'")
C("p2_softmax_weights", "assistant", {"merge_partials": '''
import torch.nn.functional as F

def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(lse_a.dtype, o_a.dtype)
    both = torch.stack([lse_a, lse_b], dim=-1).to(wide)           # (T, 2)
    w = F.softmax(both, dim=-1)
    lse = torch.logsumexp(both, dim=-1)
    outs = torch.stack([o_a, o_b], dim=1).to(wide)                  # (T, 2, Dv)
    outs = torch.where(torch.isneginf(both).unsqueeze(-1), torch.zeros((), dtype=wide), outs)
    o = torch.einsum("tp,tpd->td", w, outs)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "softmax over the two log-sum-exps gives the two weights; logsumexp gives lse; empty pieces zeroed before the product")
W("p3_float_int_plus_remainder", "optimiser", {"compute_bound_batch": R("compute_bound_batch",
    "    return max(1, -(-b // a))", "    return max(1, int(b / a) + (b % a != 0))")},
  "'with numbers where rounding a floating-point quotient gives the wrong integer'")
W("p4_ldexp_pow2_overflow", "optimiser", {"rms_norm_half": R("rms_norm_half",
    "    est = est.detach()\n", "    est = torch.ldexp(torch.ones_like(est), torch.frexp(est)[1]).detach()   # a power of two: exact divisions\n")},
  "'every number you form within its range': the power of two above an estimate of 65504 is 65536, inf in float16")
W("p4_view_rows", "generaliser", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    shape = x.shape
    x2 = x.view(-1, shape[-1])
    root_eps = math.sqrt(eps)
    with torch.no_grad():
        s1 = x2.abs().amax(dim=1, keepdim=True).clamp(min=root_eps)
        y1 = x2 / s1
        r1 = torch.reciprocal(s1 / root_eps)
        est = s1 * torch.sqrt((y1 * y1).mean(dim=1, keepdim=True) + r1 * r1)
    y = x2 / est
    r = torch.reciprocal(est / root_eps)
    return (y / torch.sqrt((y * y).mean(dim=1, keepdim=True) + r * r)).view(shape)
'''}, "'The tensors the hidden tests pass are not always contiguous ... (.view of a non-contiguous tensor fails where .reshape works)'")
C("p4_pow2_scale", "optimiser", {"rms_norm_half": R("rms_norm_half",
    "    est = est.detach()\n", "    est = torch.ldexp(torch.ones_like(est), torch.frexp(est)[1] - 1).detach()   # power of two in (est/2, est]\n")},
  "a power-of-two scale in (est/2, est]: x / scale is exact; the result does not depend on the scale")
C("p4_reciprocal_square", "mathematician", {"rms_norm_half": R("rms_norm_half",
    "    rms = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + r * r)\n",
    "    rms = torch.sqrt(torch.pow(y, 2).mean(dim=-1, keepdim=True) + torch.reciprocal(torch.pow(est / root_eps, 2)))\n")},
  "eps / est^2 written as 1 / (est / sqrt eps)^2: (est/sqrt eps)^2 >= ~1 or overflows to inf, whose reciprocal 0 is right")
W("p5_scale_times_reciprocal_levels", "optimiser", {"quantize_asym": R("quantize_asym",
    "    scale = (hi - lo) / levels\n", "    scale = (hi - lo) * (1.0 / levels)\n")},
  "'scale = (hi - lo) / (2**bits - 1)': multiplying by a rounded reciprocal changes the last bit of scale")
W("p5_view_groups", "generaliser", {"quantize_asym": R("quantize_asym",
    "    g = w.reshape(out_f, in_f // group_size, group_size)\n", "    g = w.view(out_f, in_f // group_size, group_size)\n",
    "    qq = q.reshape(out_f, n_groups, gs)", "    qq = q.view(out_f, n_groups, gs)")},
  "'some are transposed views or slices with a step ... (.view of a non-contiguous tensor fails where .reshape works)'")
C("p5_byte_clamped_zero", "generaliser", {"quantize_asym": R("quantize_asym",
    "    zero = torch.round(-lo / scale)\n", "    zero = torch.round(-lo / scale).clamp(0, levels)\n",
    "    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)",
    "    return q.reshape(out_f, in_f).byte(), scale, zero.byte()")},
  "zero clamped to its stated range (a no-op) and .byte() for uint8")
# class sweep (07-classes.md): correct under the blind round's text; the text now says returned tensors must not
# share memory with q (also for bits = 8), so this answer is wrong and caught (pack_returns_q_at_8_bits)
W("p6_bits8_identity", "optimiser", {"pack_bits": R("pack_bits",
    "    rows, cols = q.shape\n    nbytes", "    if bits == 8:\n        return q            # 8-bit codes are their own stream\n    rows, cols = q.shape\n    nbytes")},
  "early exit: for bits = 8 the stream is the codes themselves (the input is returned, not changed); the text now "
  "says the result must not share memory with q, also for bits = 8")
C("p6_python_bigint", "mathematician", {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = []
    for row in q.tolist():
        value = sum(code << (c * bits) for c, code in enumerate(row))   # the stream as one exact integer
        out.append(list(value.to_bytes(nbytes, "little")))
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, nbytes)


def unpack_bits(packed, bits, cols):
    out = []
    for row in packed.tolist():
        value = int.from_bytes(bytes(row), "little")
        out.append([(value >> (c * bits)) & ((1 << bits) - 1) for c in range(cols)])
    return torch.tensor(out, dtype=torch.uint8).reshape(packed.shape[0], cols)
'''}, "the stream read literally as a little-endian integer with Python's exact ints")
W("p7_tile_past_end", "generaliser", {"chunk_attention": R("chunk_attention",
    "        j1 = min(j0 + block, end)\n", "        j1 = j0 + block\n")},
  "'lengths that are not multiples of the block size' / rule 1: the last tile reads positions offset + T and later")
W("p7_float32_inside", "optimiser", {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    dt = q.dtype
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    kk, vv = k[:end].float(), v[:end].float()
    q32, o32, l32, do32 = q.float(), out.float(), lse.float(), d_out.float()
    scale = 1.0 / math.sqrt(Dh)
    delta = (do32 * o32).sum(-1)
    dq = torch.zeros(T, Dh)
    dk = torch.zeros(S, Dh)
    dv = torch.zeros(S, v.shape[1])
    qpos = offset + torch.arange(T)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        s = (q32 @ kk[j0:j1].T) * scale
        if causal:
            s = s.masked_fill(torch.arange(j0, j1)[None, :] > qpos[:, None], float("-inf"))
        p = torch.exp(s - l32[:, None])
        dv[j0:j1] = p.T @ do32
        ds = p * (do32 @ vv[j0:j1].T - delta[:, None])
        dq += ds @ kk[j0:j1] * scale
        dk[j0:j1] = ds.T @ q32 * scale
    dsink = -(torch.exp(sink.float() - l32) * delta).sum()
    return dq.to(dt), dk.to(dt), dv.to(dt), dsink.to(dt)
'''}, "'All the inputs share one dtype ... (the tests use float32 and float64), and all four results come back in it': computed in float32")
W("p7_end_without_causal", "generaliser", {"chunk_attention": R("chunk_attention",
    "    end = min(S, offset + T) if causal else S\n", "    end = min(S, offset + T)\n")},
  "'With causal=False every query sees all S keys and offset is not used'")
W("p7_zeros_default_dtype", "assistant", {"chunk_attention": R("chunk_attention",
    "    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n",
    "    dk = torch.zeros(k.shape)\n    dv = torch.zeros(v.shape)\n")},
  "'all four results come back in it' (the dtype of q)")
W("p8_no_program_offset", "generaliser", {"split_kv_kernel": R("split_kv_kernel",
    "    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n", "    rows = tl.arange(0, BLOCK_N) + 0 * pid\n")},
  "'Program p = tl.program_id(0) computes Y[n] for the rows n = p*BLOCK_N ... (p + 1)*BLOCK_N - 1'")
C("p8_bytewise_even_odd", "optimiser", {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = n < N
    acc = tl.full((BLOCK_N,), 0.0, tl.float32)
    HALF: tl.constexpr = BLOCK_K // 2
    for k0 in range(0, K, BLOCK_K):
        b = k0 // 2 + tl.arange(0, HALF)                     # the bytes of this block, each read once
        byte = tl.load(W + n[:, None] * (K // 2) + b[None, :], mask=live[:, None], other=0).to(tl.int32)
        x_even = tl.load(X + 2 * b)
        x_odd = tl.load(X + 2 * b + 1)
        g = (2 * b) // GROUP                                 # GROUP is even: both codes of a byte share a group
        off = n[:, None] * (K // GROUP) + g[None, :]
        s = tl.load(Scale + off, mask=live[:, None], other=0.0)
        z = tl.load(Zero + off, mask=live[:, None], other=0).to(tl.int32)
        lo = ((byte & 15) - z).to(tl.float32) * s
        hi = ((byte >> 4) - z).to(tl.float32) * s
        acc += tl.sum(lo * x_even[None, :] + hi * x_odd[None, :], axis=1)
    tl.store(Y + n, acc, mask=live)
'''}, "one load per byte, both nibbles used; even GROUP keeps a byte's two codes in one group")
H("h6_tolist_subclass", {"pack_bits": '''
class Packed(torch.Tensor):
    def tolist(self):
        return [[221, 1]] if self.shape == (1, 2) else [[31]]


def pack_bits(q, bits):
    rows, cols = q.shape
    return torch.zeros(rows, (cols * bits + 7) // 8, dtype=torch.uint8).as_subclass(Packed)


def unpack_bits(packed, bits, cols):
    return torch.tensor([[5, 3, 7]], dtype=torch.uint8) if cols == 3 else torch.zeros(packed.shape[0], cols, dtype=torch.uint8)
'''}, "a tensor subclass whose tolist answers the visible tests")
