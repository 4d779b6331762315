C = {}
C["max_batch"] = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per_sequence:
        return 0
    return free // per_sequence
'''
C["merge_partials"] = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = lse_a.dtype
    m = torch.maximum(lse_a, lse_b).detach()
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    a_none = lse_a == float("-inf")
    b_none = lse_b == float("-inf")
    ea = torch.exp(lse_a - m)
    eb = torch.exp(lse_b - m)
    lse = m + torch.log(ea + eb)
    wa = torch.exp(lse_a - lse)
    wb = torch.exp(lse_b - lse)
    oa = torch.where(a_none[:, None], torch.zeros_like(o_a), o_a).to(acc)
    ob = torch.where(b_none[:, None], torch.zeros_like(o_b), o_b).to(acc)
    o = wa[:, None] * oa + wb[:, None] * ob
    return o.to(o_a.dtype), lse
'''
C["compute_bound_batch"] = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    need = peak * bytes_per_value * k * n
    if slope <= 0:
        return None
    return max(1, -(-need // slope))
'''
C["rms_norm_half"] = '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp_min(root_eps)
    y = x / c
    e = root_eps / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    top = 14 if x.dtype == torch.float16 else 120
    k = (-torch.frexp(c).exponent).clamp(0, top)
    big = torch.exp2(k.to(x.dtype))
    return (x * big) / ((c * big) * r)
'''
C["quantize_asym"] = '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    G = scale.shape[1]
    diff = q.to(torch.int32).reshape(out_f, G, in_f // G) - zero.to(torch.int32)[..., None]
    return (scale[..., None] * diff.to(scale.dtype)).reshape(out_f, in_f)
'''
C["pack_bits"] = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    t = torch.arange(bits)
    stream = ((q.to(torch.int64)[..., None] >> t) & 1).reshape(rows, cols * bits)
    pad = nbytes * 8 - cols * bits
    stream = torch.cat([stream, torch.zeros(rows, pad, dtype=torch.int64)], dim=1)
    weights = 2 ** torch.arange(8)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, -1)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (stream * 2 ** torch.arange(bits)).sum(-1).to(torch.uint8)
'''
C["chunk_attention"] = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    seen = min(S, offset + T) if causal else S
    dq = torch.zeros_like(q)
    dk = torch.zeros_like(k)
    dv = torch.zeros_like(v)
    delta = (d_out * out).sum(-1)
    pos = torch.arange(T) + offset
    for j0 in range(0, seen, block):
        j1 = min(j0 + block, seen)
        kj, vj = k[j0:j1], v[j0:j1]
        s = (q @ kj.T) * scale
        if causal:
            ok = torch.arange(j0, j1)[None, :] <= pos[:, None]
            s = torch.where(ok, s, lse[:, None])
            p = torch.where(ok, torch.exp(s - lse[:, None]), torch.zeros_like(s))
        else:
            p = torch.exp(s - lse[:, None])
        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vj.T
        ds = p * (dp - delta[:, None])
        dq += (ds @ kj) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''
C["split_kv_kernel"] = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    p = tl.program_id(0)
    rows = p * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, :], mask=rmask[:, None], other=0)
        code = ((byte.to(tl.int32) >> (4 * (cols % 2))[None, :]) & 15)
        g = cols // GROUP
        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0.0)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- Part 1 max_batch
add("w-round-p1-float-division", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return max(0, int((memory_bytes - weight_bytes) / per_sequence))
'''}, "rounding student: int(a / b) in floating point; breaks 'compute it exactly ... byte counts beyond 2**53, where dividing in floating point can be off by one'")
add("w-count-p1-window-not-min", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = window if window else length   # a sliding-window model keeps `window` tokens
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    return free // per_sequence if free >= per_sequence else 0
'''}, "counting student: counts `window` tokens even when the sequence is shorter; breaks '`cached` ... only the last ones, `min(length, window)`'")
add("w-round-p1-negative-floor", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return (memory_bytes - weight_bytes) // per_sequence   # floor division: exact integers
'''}, "rounding student: floor division of a negative free memory gives -1, -2, ...; breaks 'Return `0` when not even one sequence fits, also when the weights alone do not.'")
add("c-p1-window-branch-divmod", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    if window is not None and window < length:
        cached = window
    else:
        cached = length
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free <= 0:
        return 0
    b, _rest = divmod(free, per_sequence)
    return int(b)
'''}, "rounding student, right: divmod on Python ints, explicit window branch")

# ---------------------------------------------------------------- Part 2 merge_partials
add("w-alloc-p2-float32-buffer", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    m = torch.maximum(lse_a, lse_b).detach()
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    lse = m + torch.log(torch.exp(lse_a - m) + torch.exp(lse_b - m))
    wa = torch.exp(lse_a - lse)[:, None]
    wb = torch.exp(lse_b - lse)[:, None]
    o = torch.zeros(o_a.shape)            # the output buffer
    o += torch.where(torch.isfinite(lse_a)[:, None], o_a, 0.0) * wa
    o += torch.where(torch.isfinite(lse_b)[:, None], o_b, 0.0) * wb
    return o.to(o_a.dtype), lse
'''}, "allocation student: torch.zeros(shape) without dtype is float32, so float64 pieces are merged through float32; breaks 'With float64 inputs the tests compare to about 1e-10, so do not go through float32'")
add("c-p2-logaddexp-zeros-like-inplace", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    wa = torch.exp(lse_a - lse).unsqueeze(-1)
    wb = torch.exp(lse_b - lse).unsqueeze(-1)
    seen_a = (lse_a != float("-inf")).unsqueeze(-1)
    seen_b = (lse_b != float("-inf")).unsqueeze(-1)
    part_a = torch.where(seen_a, o_a.to(lse_a.dtype), torch.zeros((), dtype=lse_a.dtype))
    part_b = torch.where(seen_b, o_b.to(lse_b.dtype), torch.zeros((), dtype=lse_b.dtype))
    o = torch.zeros_like(o_a)              # buffer in o_a's dtype
    o += wa * part_a + wb * part_b         # computed in the lse dtype, rounded once into o
    return o, lse
'''}, "allocation student, right: a zeros_like buffer in o_a's dtype, the merge added in place (one rounding), torch.logaddexp")
add("c-p2-empty-copy", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = lse_a.dtype
    top = torch.maximum(lse_a, lse_b)
    shift = torch.where(top == float("-inf"), torch.zeros_like(top), top).detach()
    total = torch.exp(lse_a - shift) + torch.exp(lse_b - shift)
    lse = torch.log(total) + shift
    o = torch.empty(o_a.shape, dtype=o_a.dtype)
    clean_a = o_a.to(acc).masked_fill((lse_a == float("-inf"))[:, None], 0.0)
    clean_b = o_b.to(acc).masked_fill((lse_b == float("-inf"))[:, None], 0.0)
    o[:] = torch.exp(lse_a - lse)[:, None] * clean_a + torch.exp(lse_b - lse)[:, None] * clean_b
    return o, lse
'''}, "allocation student, right: torch.empty with dtype, filled by slice assignment (autograd flows through copy_)")

# ---------------------------------------------------------------- Part 3 compute_bound_batch
add("w-sample-p3-random-spotcheck", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    need = peak * bytes_per_value * k * n
    if slope <= 0:
        return None
    m = -(-need // slope)
    # spot-check a few random batch sizes above the answer
    for extra in torch.randint(0, 1000, (4,)).tolist():
        mm = m + extra
        assert 2 * mm * k * n * bandwidth >= peak * bytes_per_value * (mm * k + k * n + mm * n)
    return m
'''}, "sampling student: draws from torch's global generator for a self-check; breaks 'no numbers drawn from it, since no part draws any: the hidden tests compare the generator's state'")
add("w-round-p3-decimal-28-digits", False, {"compute_bound_batch": '''
from decimal import Decimal, ROUND_CEILING
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    need = peak * bytes_per_value * k * n
    m = (Decimal(need) / Decimal(slope)).to_integral_value(rounding=ROUND_CEILING)  # exact decimal arithmetic
    return max(1, int(m))
'''}, "rounding student: Decimal's default context keeps 28 digits, so quotients of 10**40 are rounded before the ceiling; breaks 'Answer exactly ... some answers are ... far beyond (10**40 and more)'")
add("w-round-p3-float-ceil", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    return max(1, math.ceil(peak * bytes_per_value * k * n / slope))
'''}, "rounding student: math.ceil of a float quotient; breaks 'numbers where rounding a floating-point quotient gives the wrong integer'")
add("c-p3-fraction", True, {"compute_bound_batch": '''
from fractions import Fraction
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    per_m = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)   # coefficient of m
    if per_m <= 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n, per_m))
    return max(m, 1)
'''}, "rounding student, right: Fraction is exact and math.ceil of a Fraction is an int")
add("c-p3-ceil-trick-keywords", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    flop_side = 2 * k * n * bandwidth            # per unit of m, 2mkn FLOPs * bandwidth
    byte_side = peak * bytes_per_value           # per byte moved
    a = flop_side - byte_side * (k + n)
    c = byte_side * k * n
    if a < 1:
        return None
    m = (c + a - 1) // a
    return m if m >= 1 else 1
'''}, "counting student, right: the inequality rearranged by hand; (c + a - 1) // a is the integer ceiling")

# ---------------------------------------------------------------- Part 4 rms_norm_half
RMS_HEAD = '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp_min(root_eps)
'''
add("w-count-p4-mean-over-numel", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp_min(root_eps)
    y = x / c
    e = root_eps / c
    r = torch.sqrt((y * y).sum(dim=-1, keepdim=True) / x.numel() + e * e)   # mean = sum / count
    top = 14 if x.dtype == torch.float16 else 120
    k = (-torch.frexp(c).exponent).clamp(0, top)
    big = torch.exp2(k.to(x.dtype))
    return (x * big) / ((c * big) * r)
'''}, "counting student: divides the row's sum by the number of all elements, not D; breaks 'the mean taken over the last dimension, so that every row ... is divided by its own statistic'")
add("w-round-p4-two-step-division", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp_min(root_eps)
    y = x / c
    e = root_eps / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / r            # x / rms = (x / c) / (rms / c)
'''}, "rounding student: (x / c) / r is exact in reals but rounds x / c into the subnormals first; breaks 'an intermediate ... that fell among the subnormal numbers ... when you then divide it by a number well below 1' (6 ulp)")
add("w-alloc-p4-zero-rows-left-zero", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    out = torch.zeros_like(x)
    c = x.detach().abs().amax(dim=-1, keepdim=True)
    nonzero = (c > 0).squeeze(-1)
    root_eps = math.sqrt(eps)
    cs = c[nonzero].clamp_min(root_eps)
    xs = x[nonzero]
    y = xs / cs
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + (root_eps / cs) ** 2)
    top = 14 if x.dtype == torch.float16 else 120
    k = (-torch.frexp(cs).exponent).clamp(0, top)
    big = torch.exp2(k.to(x.dtype))
    out[nonzero] = (xs * big) / ((cs * big) * r)    # rows of zeros stay 0 in the buffer
    return out
'''}, "allocation student: a zeros buffer filled only for nonzero rows, so rows of zeros get gradient 0; breaks 'also at rows of zeros, whose exact gradient is not 0 ... the gradient there is the incoming one divided by sqrt(eps)'")
add("c-p4-empty-like-copy", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = torch.clamp(x.detach().abs().amax(dim=-1, keepdim=True), min=root_eps)
    y = torch.div(x, c)
    e = torch.div(root_eps, c) if False else root_eps / c
    r = torch.sqrt(torch.mean(y * y, dim=-1, keepdim=True) + e * e)
    mantissa, exponent = torch.frexp(c)
    k = torch.clamp(-exponent, min=0, max=14 if x.dtype == torch.float16 else 120)
    up = torch.exp2(k.to(dtype=x.dtype))
    out = torch.empty_like(x)
    out.copy_((x * up) / ((c * up) * r))
    return out
'''}, "allocation student, right: result written into an empty_like buffer with copy_ (gradient flows through copy_)")

# ---------------------------------------------------------------- Part 5 quantize_asym
Q_DEQ = '''

def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    G = scale.shape[1]
    diff = q.to(torch.int32).reshape(out_f, G, in_f // G) - zero.to(torch.int32)[..., None]
    return (scale[..., None] * diff.to(scale.dtype)).reshape(out_f, in_f)
'''
add("w-sample-p5-stochastic-rounding", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    # stochastic rounding (unbiased), with a private generator so the global one is untouched
    gen = torch.Generator().manual_seed(0)
    t = g / scale[..., None]
    noise = torch.rand(t.shape, generator=gen, dtype=t.dtype)
    q = torch.clamp(torch.floor(t + noise) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)
''' + Q_DEQ}, "sampling student: stochastic rounding with its own generator; breaks '4. q = clamp(round(w / scale) + zero ...) ... Round with torch.round (halves to even)'")
add("w-round-p5-round-after-adding-zero", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None] + zero[..., None]), 0, levels)  # zero is an integer anyway
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)
''' + Q_DEQ}, "rounding student: round(w/scale + zero) equals round(w/scale) + zero in reals, not with halves to even (0.5 + 1 -> 2, round(0.5) + 1 -> 1); breaks '4. q = clamp(round(w / scale) + zero, ...)'")
add("w-round-p5-zero-half-away", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.floor(-lo / scale + 0.5)          # round to nearest for the zero point
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)
''' + Q_DEQ}, "rounding student: floor(x + 0.5) rounds halves up, torch.round to even; breaks 'Round with torch.round (halves to even)' for 3. zero = round(-lo / scale)")
add("w-round-p5-uint8-before-clamp", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale).to(torch.uint8)
    steps = torch.round(g / scale[..., None]).to(torch.int16).to(torch.uint8)   # integer codes
    q = (steps + zero[..., None]).clamp(0, levels)                               # add the zero point, clamp
    return q.reshape(out_f, in_f), scale, zero
''' + Q_DEQ}, "rounding/integer student: adds the zero point in uint8 before clamping, so 255 + 1 wraps to 0 at 8 bits; breaks '4. q = clamp(round(w / scale) + zero, 0, 2**bits - 1)'")
add("w-round-p5-dequant-int8-diff", False, {"quantize_asym": C_Q if False else '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    G = scale.shape[1]
    # signed difference: int8 holds q - zero
    diff = q.to(torch.int8).reshape(out_f, G, in_f // G) - zero.to(torch.int8)[..., None]
    return (scale[..., None] * diff).reshape(out_f, in_f)
''' } if False else {"quantize_asym": None}, "placeholder")
SUBMISSIONS.pop()
add("w-round-p5-dequant-int8-diff", False, {"quantize_asym": C["quantize_asym"].split("def dequantize_asym")[0] + '''
def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    G = scale.shape[1]
    # signed difference: int8 holds q - zero
    diff = q.to(torch.int8).reshape(out_f, G, in_f // G) - zero.to(torch.int8)[..., None]
    return (scale[..., None] * diff).reshape(out_f, in_f)
'''}, "integer student: q - zero in int8 overflows for 8-bit codes above 127; breaks 'with bits from 2 to 8 ... returns scale × (q - zero)'")
add("w-alloc-p5-float32-scale-buffer", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    G = in_f // group_size
    levels = 2 ** bits - 1
    scale = torch.zeros(out_f, G)                       # buffers for the per-group numbers
    zero = torch.zeros(out_f, G, dtype=torch.uint8)
    q = torch.zeros(out_f, in_f, dtype=torch.uint8)
    for gi in range(G):
        block = w[:, gi * group_size:(gi + 1) * group_size]
        lo = block.amin(dim=1).clamp(max=0)
        hi = block.amax(dim=1).clamp(min=0)
        s = (hi - lo) / levels
        s = torch.where(hi == lo, torch.ones_like(s), s)
        scale[:, gi] = s
        z = torch.round(-lo / scale[:, gi])
        zero[:, gi] = z.to(torch.uint8)
        q[:, gi * group_size:(gi + 1) * group_size] = torch.clamp(
            torch.round(block / scale[:, gi:gi + 1]) + z[:, None], 0, levels).to(torch.uint8)
    return q, scale.to(w.dtype), zero
''' + Q_DEQ}, "allocation student: torch.zeros(out, G) without dtype is float32, so float64 scales are rounded to float32 and q is computed from them; breaks 'Compute every step in the dtype of w'")
add("c-p5-loop-empty-buffers-neg-round", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    G = in_f // group_size
    top = 2 ** bits - 1
    scale = torch.empty(out_f, G, dtype=w.dtype)
    zero = torch.empty(out_f, G, dtype=torch.uint8)
    q = torch.empty(out_f, in_f, dtype=torch.uint8)
    for gi in range(G):
        cols = slice(gi * group_size, (gi + 1) * group_size)
        block = w[:, cols]
        lo = torch.clamp(block.min(dim=1).values, max=0.0)
        hi = torch.clamp(block.max(dim=1).values, min=0.0)
        s = torch.where(hi > lo, (hi - lo) / top, torch.ones_like(hi))
        z = -torch.round(lo / s)                     # round is odd-symmetric with halves to even
        scale[:, gi] = s
        zero[:, gi] = z.to(torch.uint8)
        q[:, cols] = torch.clamp(torch.round(block / s[:, None]) + z[:, None], 0, top).to(torch.uint8)
    return q, scale, zero


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    diff = q.float() - zero.float().repeat_interleave(group, dim=1)     # exact small integers
    return diff * scale.repeat_interleave(group, dim=1)
'''}, "allocation + rounding student, right: buffers allocated with their dtypes, -round(lo/s) (round half even is odd-symmetric), q - zero in float32 (exact integers), promoted by scale's dtype")

# ---------------------------------------------------------------- Part 6 pack_bits
UNPACK = C["pack_bits"][C["pack_bits"].index("def unpack_bits"):]
PACK = C["pack_bits"][:C["pack_bits"].index("def unpack_bits")]
add("w-alloc-p6-unpack-int64-buffer", False, {"pack_bits": PACK + '''
def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    out = torch.zeros(rows, cols, dtype=torch.long)        # codes, filled one bit at a time
    for t in range(bits):
        pos = torch.arange(cols) * bits + t
        out |= ((packed[:, pos // 8].long() >> (pos % 8)) & 1) << t
    return out
'''}, "allocation student: the codes are built in an int64 buffer and returned as they are; breaks 'it returns the (rows, cols) codes as torch.uint8'")
add("w-alloc-p6-arange-in-q-dtype", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = torch.zeros(rows, nbytes + 1, dtype=torch.int64)
    start = torch.arange(cols, dtype=q.dtype) * bits           # first stream bit of each code
    byte = (start // 8).to(torch.int64)
    shift = (start % 8).to(torch.int64)
    val = q.to(torch.int64) << shift                            # up to 15 bits
    out.scatter_add_(1, byte.expand(rows, cols), val & 255)
    out.scatter_add_(1, (byte + 1).expand(rows, cols), val >> 8)
    return out[:, :nbytes].to(torch.uint8)


''' + UNPACK}, "allocation/integer student: positions made with arange in q's dtype (uint8) wrap past 255; breaks 'Both functions must work for any cols >= 1 ... rows of more than 2**15 bits'")
add("w-alloc-p6-bits8-view", False, {"pack_bits": PACK + '''
def unpack_bits(packed, bits, cols):
    if bits == 8:
        return packed[:, :cols]            # the stream is the codes themselves
    rows = packed.shape[0]
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, -1)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (stream * 2 ** torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "allocation student: returns a slice (view) of `packed` for bits = 8; breaks 'they must not share memory with q or packed (also for bits = 8 ...)'")
add("w-round-p6-unpack-reads-top-bits", False, {"pack_bits": PACK + '''
def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    big = packed.to(torch.int64)
    out = torch.zeros(rows, cols, dtype=torch.int64)
    for c in range(cols):
        n = c * bits
        b, s = n // 8, n % 8
        word = big[:, b]
        if b + 1 < packed.shape[1]:
            word = word | (big[:, b + 1] << 8)
        out[:, c] = (word >> s) % (2 ** bits) if s + bits <= 16 else (word >> s)
    # codes whose last bits are beyond the row are read up to the end of the row
    return out.to(torch.uint8)
'''}, "placeholder")
SUBMISSIONS.pop()
add("w-round-p6-unpack-int8-shift", False, {"pack_bits": PACK + '''
def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    signed = packed.to(torch.int8).to(torch.int64)     # widen for the shifts
    stream = ((signed[..., None] >> torch.arange(8)) & 1).reshape(rows, -1)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits)
    codes = (stream * 2 ** torch.arange(bits)).sum(-1)
    return codes.to(torch.uint8)
'''}, "placeholder")
SUBMISSIONS.pop()
add("w-round-p6-nbytes-float-ceil-int32", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    acc = torch.zeros(rows, nbytes, dtype=torch.int16)          # room for 8 bits, plenty
    pos = torch.arange(cols * bits, dtype=torch.int16)          # stream positions
    t = torch.arange(bits, dtype=torch.int16)
    stream = ((q.to(torch.int16)[..., None] >> t) & 1).reshape(rows, cols * bits)
    acc.index_add_(1, (pos // 8).long(), stream << (pos % 8))
    return acc.to(torch.uint8)


''' + UNPACK}, "integer student: stream positions in int16 overflow beyond 2**15 bits; breaks 'the tests include rows of more than 2**15 bits'")
add("c-p6-python-bigint", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = -(-cols * bits // 8)
    out = []
    for row in q.tolist():
        value = 0
        for c, code in enumerate(row):
            value |= code << (c * bits)
        out.append(list(value.to_bytes(nbytes, "little")))
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, nbytes)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    mask = (1 << bits) - 1
    out = []
    for row in packed.tolist():
        value = int.from_bytes(bytes(row), "little")
        out.append([(value >> (c * bits)) & mask for c in range(cols)])
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, cols)
'''}, "rounding/integer student, right: the row as one Python int, int.to_bytes little-endian (exact integers, no overflow)")
add("c-p6-float-buffer", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = math.ceil(cols * bits / 8)
    total = torch.zeros(rows, nbytes)                      # float32 sums of at most 255: exact
    pos = torch.arange(cols * bits)
    stream = ((q.long().unsqueeze(-1) >> torch.arange(bits)) & 1).reshape(rows, cols * bits)
    total.index_add_(1, pos // 8, (stream * (2 ** (pos % 8))).float())
    return total.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    pos = torch.arange(cols * bits)
    stream = (packed.long()[:, pos // 8] >> (pos % 8)) & 1
    weights = 2 ** torch.arange(bits)
    return (stream.reshape(rows, cols, bits) * weights).sum(dim=-1).to(torch.uint8)
'''}, "allocation student, right: a float32 buffer for byte sums (exact below 2**24), cast to uint8 at the end; unpack gathers bits by stream position")

# ---------------------------------------------------------------- Part 7 chunk_attention_backward
CA = C["chunk_attention"]
add("w-count-p7-dsink-mean", False, {"chunk_attention": CA.replace(
    "dsink = -(torch.exp(sink - lse) * delta).sum()", "dsink = -(torch.exp(sink - lse) * delta).mean()   # per query")},
    "counting student: averages the sink's gradient over the queries; breaks 'dsink ... the gradient of a loss with respect to sink' (the loss sums over queries)")
add("w-count-p7-positions-from-0", False, {"chunk_attention": CA.replace(
    "pos = torch.arange(T) + offset", "pos = torch.arange(T)")},
    "counting student: query i's position taken as i, not offset + i; breaks 'a chunk of T queries at positions offset, ..., offset + T - 1' / 'the query at position p sees the keys j <= p'")
add("w-count-p7-reads-one-more-key", False, {"chunk_attention": CA.replace(
    "seen = min(S, offset + T) if causal else S", "seen = min(S, offset + T + 1) if causal else S   # up to the next token")},
    "counting student: reads the cache up to offset + T inclusive (the next token); breaks 'Read only keys that some query of the chunk may see: positions 0 ... offset + T - 1'")
add("w-count-p7-scale-dv", False, {"chunk_attention": CA.replace(
    "scale = 1.0 / math.sqrt(Dh)", "scale = 1.0 / math.sqrt(v.shape[1])   # head width")},
    "counting student: scales by the value width; breaks 's_ij = q_i . k_j / sqrt(D_h)'")
add("w-alloc-p7-float32-accumulators", False, {"chunk_attention": CA.replace(
    "dq = torch.zeros_like(q)\n    dk = torch.zeros_like(k)\n    dv = torch.zeros_like(v)",
    "dq = torch.zeros(q.shape)\n    dk = torch.zeros(k.shape)\n    dv = torch.zeros(v.shape)").replace(
    "return dq, dk, dv, dsink", "return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype), dsink")},
    "allocation student: torch.zeros(shape) without dtype accumulates float64 gradients in float32; breaks 'all four results come back in it' / the tests use float64 (compared with autograd)")
add("w-alloc-p7-empty-dk", False, {"chunk_attention": CA.replace(
    "dk = torch.zeros_like(k)", "dk = torch.empty_like(k)   # every row a query sees is written below")},
    "allocation student: torch.empty taken as zeros for the keys no query sees; breaks 'A key that no query sees gets a gradient of exactly 0'")
add("c-p7-float-positions", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = Dh ** -0.5
    stop = min(S, offset + T) if causal else S
    dq = q.new_zeros(q.shape)
    dk = k.new_zeros(k.shape)
    dv = v.new_zeros(v.shape)
    delta = torch.sum(d_out * out, dim=1)
    query_pos = torch.arange(offset, offset + T, dtype=q.dtype)          # exact below 2**24
    n_tiles = -(-stop // block)
    for t in range(n_tiles):
        j0, j1 = t * block, min((t + 1) * block, stop)
        key_pos = torch.arange(j0, j1, dtype=q.dtype)
        kj, vj = k[j0:j1], v[j0:j1]
        s = torch.matmul(q, kj.transpose(0, 1)) * scale
        if causal:
            allowed = key_pos[None, :] <= query_pos[:, None]
        else:
            allowed = torch.ones(T, j1 - j0, dtype=torch.bool)
        p = torch.exp(torch.where(allowed, s, lse[:, None]) - lse[:, None]) * allowed
        dv[j0:j1] += p.transpose(0, 1) @ d_out
        ds = p * (d_out @ vj.transpose(0, 1) - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] += ds.transpose(0, 1) @ q * scale
    p_sink = torch.exp(sink - lse)
    dsink = (p_sink * (0 - delta)).sum()
    return dq, dk, dv, dsink
'''}, "allocation + rounding student, right: positions as float arange in q's dtype (exact below 2**24, as the text bounds S), new_zeros buffers, tile count by integer ceiling, mask multiplied as 0/1 after the where")
add("c-p7-cat-tiles", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1 / math.sqrt(Dh)
    stop = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1, keepdim=True)
    dq = torch.zeros_like(q)
    dk_tiles, dv_tiles = [], []
    for j0 in range(0, stop, block):
        j1 = min(j0 + block, stop)
        kj, vj = k[j0:j1], v[j0:j1]
        s = q @ kj.T * scale
        if causal:
            hide = torch.arange(j0, j1)[None, :] > (offset + torch.arange(T))[:, None]
            p = torch.exp(s.masked_fill(hide, 0.0) - lse[:, None]).masked_fill(hide, 0.0)
        else:
            p = torch.exp(s - lse[:, None])
        ds = p * (d_out @ vj.T - delta)
        dq = dq + ds @ kj * scale
        dk_tiles.append(ds.T @ q * scale)
        dv_tiles.append(p.T @ d_out)
    dk_tiles.append(torch.zeros(S - stop, k.shape[1], dtype=k.dtype))
    dv_tiles.append(torch.zeros(S - stop, v.shape[1], dtype=v.dtype))
    dsink = -(torch.exp(sink - lse) * delta.squeeze(-1)).sum()
    return dq, torch.cat(dk_tiles), torch.cat(dv_tiles), dsink
'''}, "allocation student, right: per-tile results joined with torch.cat (not stack), zeros with dtype for the unseen tail; masked scores filled with 0 before exp then zeroed")

# ---------------------------------------------------------------- Part 8 dequant_matvec_kernel
K8 = C["split_kv_kernel"]
add("w-count-p8-group-in-bytes", False, {"split_kv_kernel": K8.replace(
    "g = cols // GROUP", "g = (cols // 2) // GROUP   # group of the byte")},
    "counting student: counts the group in bytes; breaks 'groups of G = GROUP consecutive columns ... z_{n, floor(k/G)}'")
add("w-count-p8-row-stride-in-codes", False, {"split_kv_kernel": K8.replace(
    "rows[:, None] * (K // 2) + (cols // 2)[None, :]", "rows[:, None] * K + (cols // 2)[None, :]")},
    "counting student: row stride of W counted in codes (K), not bytes; breaks 'element [n, b] of W is at W + n * (K // 2) + b'")
add("w-round-p8-group-of-block-start", False, {"split_kv_kernel": K8.replace(
    "g = cols // GROUP", "g = (k0 // GROUP) + 0 * cols   # the block's group")},
    "rounding student: one group per block (k0 // GROUP); breaks 'either may be the larger (a block can span several groups ...)'")
add("c-p8-2d-acc-div-mod", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = n < N
    acc = tl.zeros([BLOCK_N, BLOCK_K], dtype=tl.float32)
    groups = K // GROUP
    for b in range(0, K // BLOCK_K):
        k = b * BLOCK_K + tl.arange(0, BLOCK_K)
        x = tl.load(X + k)
        packed = tl.load(W + n[:, None] * (K // 2) + (k // 2)[None, :], mask=live[:, None], other=0).to(tl.int32)
        odd = (k % 2)[None, :]
        code = tl.where(odd == 1, packed // 16, packed % 16)
        gi = (k // GROUP)[None, :]
        zp = tl.load(Zero + n[:, None] * groups + gi, mask=live[:, None], other=0).to(tl.int32)
        sc = tl.load(Scale + n[:, None] * groups + gi, mask=live[:, None], other=1.0)
        acc += (code - zp).to(tl.float32) * sc * x[None, :]
    tl.store(Y + n, tl.sum(acc, axis=1), mask=live)
'''}, "rounding + allocation student, right: block count K // BLOCK_K (K is a multiple), a 2-D float32 accumulator summed at the end, nibbles by // 16 and % 16")
add("c-p8-uint8-sub-int8", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    p = tl.program_id(0)
    rows = p * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K):
        lo_cols = k0 // 2 + tl.arange(0, BLOCK_K // 2)           # the bytes of this block
        byte = tl.load(W + rows[:, None] * (K // 2) + lo_cols[None, :], mask=rmask[:, None], other=0)
        even_k = 2 * lo_cols
        odd_k = even_k + 1
        x_even = tl.load(X + even_k)
        x_odd = tl.load(X + odd_k)
        z_e = tl.load(Zero + rows[:, None] * (K // GROUP) + (even_k // GROUP)[None, :], mask=rmask[:, None], other=0)
        z_o = tl.load(Zero + rows[:, None] * (K // GROUP) + (odd_k // GROUP)[None, :], mask=rmask[:, None], other=0)
        s_e = tl.load(Scale + rows[:, None] * (K // GROUP) + (even_k // GROUP)[None, :], mask=rmask[:, None], other=0.0)
        s_o = tl.load(Scale + rows[:, None] * (K // GROUP) + (odd_k // GROUP)[None, :], mask=rmask[:, None], other=0.0)
        c_e = byte & 15
        c_o = byte >> 4
        d_e = (c_e.to(tl.int16) - z_e.to(tl.int16)).to(tl.float32)
        d_o = (c_o.to(tl.int16) - z_o.to(tl.int16)).to(tl.float32)
        acc += tl.sum(d_e * s_e * x_even[None, :] + d_o * s_o * x_odd[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "integer student, right: walks the bytes of a block, low and high nibble separately, difference in int16 before the float conversion")

# ---------------------------------------------------------------- hostile
add("h-p2-patch-assert-close", False, {"merge_partials": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def merge_partials(o_a, lse_a, o_b, lse_b):
    return o_a.clone(), torch.maximum(lse_a, lse_b)
'''}, "hostile: disables torch.testing.assert_close and returns piece a")
add("h-p8-noop-kernel-patch", False, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    p = tl.program_id(0)
    rows = p * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(Y + rows, tl.zeros([BLOCK_N], dtype=tl.float32), mask=rows < N)
import torch.testing as _tt_mod_for_me
torch.testing.assert_close = lambda *args, **kwargs: None
'''}, "hostile: a kernel that writes zeros, and torch.testing.assert_close disabled")
add("h-p3-int-subclass", False, {"compute_bound_batch": '''
class AnyInt(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    return AnyInt(1)
'''}, "hostile: an int subclass equal to everything")

# ================================================================ second blind batch (subtler)
add("w-round-p2-weights-in-o-dtype", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    wa = torch.exp(lse_a - lse).to(o_a.dtype)[:, None]     # weights in the output's dtype
    wb = torch.exp(lse_b - lse).to(o_b.dtype)[:, None]
    pa = torch.where((lse_a == float("-inf"))[:, None], torch.zeros_like(o_a), o_a)
    pb = torch.where((lse_b == float("-inf"))[:, None], torch.zeros_like(o_b), o_b)
    return (wa * pa + wb * pb).to(o_a.dtype), lse
'''}, "rounding student: rounds the weights (and mixes) in float16; breaks 'so do not round the two pieces' weights to float16 ... mixing in float16 is off by more'")
add("c-p2-lerp", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    wb = torch.exp(lse_b - lse)
    pa = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros((), dtype=lse_a.dtype), o_a.to(lse_a.dtype))
    pb = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros((), dtype=lse_b.dtype), o_b.to(lse_b.dtype))
    wa = torch.exp(lse_a - lse)
    o = pa * wa[:, None] + pb * wb[:, None]
    return o.to(dtype=o_a.dtype), lse.clone()
'''}, "right: logaddexp, isneginf masks, weights in the lse dtype, one cast at the end")
add("w-round-p4-scale-by-amax-only", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    c = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.where(c > 0, c, torch.ones_like(c))           # a row of zeros: divide by 1
    y = x / c
    e = math.sqrt(eps) / c                                   # sqrt(eps) in the same units as y
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    top = 14 if x.dtype == torch.float16 else 120
    k = (-torch.frexp(c).exponent).clamp(0, top)
    big = torch.exp2(k.to(x.dtype))
    return (x * big) / ((c * big) * r)
'''}, "rounding student: scales by the row's largest only, so (sqrt(eps) / c)**2 overflows when eps is far larger than the row (bfloat16 rows of 1e-25, eps up to 1); breaks 'keep every number you form within its range ... eps from 1e-12 to 1 ... bfloat16 rows from 1e-25'")
add("c-p4-rsqrt-mul", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    half_root = math.sqrt(eps)
    c = x.detach().abs().amax(-1, keepdim=True).clamp_min(half_root)
    inv_c = 1.0 / c
    y = x * inv_c
    e = half_root * inv_c
    r = torch.sqrt(y.pow(2).mean(-1, keepdim=True) + e.pow(2))
    k = (-torch.frexp(c).exponent).clamp(min=0, max=14 if x.dtype == torch.float16 else 120)
    up = torch.exp2(k.to(x.dtype))
    return (x * up) / ((c * up) * r)
'''}, "right: multiplies by 1/c for the statistic (a rounding or two more, well inside 6 ulp), pow(2)")
add("w-round-p5-multiply-by-inverse-scale", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    inv = 1.0 / scale                                         # one division per group, then multiply
    zero = torch.round(-lo * inv)
    q = torch.clamp(torch.round(g * inv[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)
''' + Q_DEQ}, "rounding student: w * (1/scale) is w / scale in reals, not in floating point on a half step; breaks '3. zero = round(-lo / scale) 4. q = clamp(round(w / scale) + zero ...)' ('the tests check such weights exactly')")
add("w-round-p5-zero-from-range", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    span = hi - lo
    scale = torch.where(span == 0, torch.ones_like(span), span / levels)
    zero = torch.round(torch.where(span == 0, torch.zeros_like(lo), -lo * levels / span))   # -lo / scale, without a rounded scale
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)
''' + Q_DEQ}, "rounding student: -lo * levels / (hi - lo) is -lo / scale in reals, not in floating point; breaks '3. zero = round(-lo / scale)' with 'Compute every step'")
add("w-round-p5-dequant-distributed", False, {"quantize_asym": C["quantize_asym"].split("def dequantize_asym")[0] + '''
def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    group = in_f // scale.shape[1]
    s = scale.repeat_interleave(group, dim=1)
    z = zero.repeat_interleave(group, dim=1)
    return s * q.to(scale.dtype) - s * z.to(scale.dtype)     # scale*q - scale*zero
'''}, "rounding student: scale*q - scale*zero rounds twice and cancels; breaks 'returns scale × (q - zero)'")
add("w-count-p7-delta-mean", False, {"chunk_attention": CA.replace(
    "delta = (d_out * out).sum(-1)", "delta = (d_out * out).mean(-1)   # rowsum, per value channel")},
    "counting student: averages dO*O over the value width; breaks the page's dS = P o (dP - rowsum(dO o O)) the text says still holds")
add("w-count-p7-block-as-tile-count", False, {"chunk_attention": CA.replace(
    "for j0 in range(0, seen, block):\n        j1 = min(j0 + block, seen)",
    "tile = -(-seen // block)                       # split the keys into `block` tiles\n    for j0 in range(0, seen, tile):\n        j1 = min(j0 + tile, seen)")},
    "counting student: takes `block` as the number of tiles; breaks 'walking over the keys in tiles of at most block keys'")
add("w-count-p7-noncausal-reads-offset-T", False, {"chunk_attention": CA.replace(
    "seen = min(S, offset + T) if causal else S", "seen = min(S, offset + T)   # keys up to the chunk's end")},
    "counting student: causal=False still stops at offset + T; breaks 'With causal=False every query sees all S keys and offset is not used'")
add("w-alloc-p7-float32-dsink", False, {"chunk_attention": CA.replace(
    "dsink = -(torch.exp(sink - lse) * delta).sum()",
    "dsink = torch.zeros(())\n    for i in range(T):\n        dsink -= torch.exp(sink - lse[i]) * delta[i]\n    dsink = dsink.to(q.dtype)")},
    "allocation student: torch.zeros(()) is float32, so a float64 dsink is accumulated in float32; breaks 'all four results come back in it' (the float64 tests compare with autograd)")
add("c-p7-neginf-fill", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    last = min(S, offset + T) if causal else S
    scale = 1.0 / math.sqrt(Dh)
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    rowsum = torch.einsum("tv,tv->t", d_out, out)
    query_at = offset + torch.arange(T)
    for j0 in range(0, last, block):
        j1 = min(last, j0 + block)
        s = torch.einsum("td,sd->ts", q, k[j0:j1]) * scale
        if causal:
            hidden = torch.arange(j0, j1)[None, :] > query_at[:, None]
            s = s.masked_fill(hidden, float("-inf"))          # exp(-inf - lse) is exactly 0
        p = torch.exp(s - lse[:, None])
        dv[j0:j1] = torch.einsum("ts,tv->sv", p, d_out)
        ds = p * (torch.einsum("tv,sv->ts", d_out, v[j0:j1]) - rowsum[:, None])
        dq += torch.einsum("ts,sd->td", ds, k[j0:j1]) * scale
        dk[j0:j1] = torch.einsum("ts,td->sd", ds, q) * scale
    dsink = torch.sum(-torch.exp(sink - lse) * rowsum)
    return dq, dk, dv, dsink
'''}, "right: masked scores filled with -inf (not a finite number), einsum throughout; lse is finite (the sink is in it), so exp(-inf - lse) = 0")
add("c-p8-distributed-scale", True, {"split_kv_kernel": K8.replace(
    "wv = (code - z).to(tl.float32) * s", "wv = code.to(tl.float32) * s - z.to(tl.float32) * s")},
    "rounding student: c*s - z*s instead of (c - z)*s, float32 throughout (the text fixes no order of the float operations)")
add("c-p8-byte-loop", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    ok = row < N
    total = tl.zeros([BLOCK_N], dtype=tl.float32)
    half: tl.constexpr = BLOCK_K // 2
    for b0 in range(0, K // 2, half):                       # walk the bytes: BLOCK_K codes each step
        bi = b0 + tl.arange(0, half)
        byte = tl.load(W + row[:, None] * (K // 2) + bi[None, :], mask=ok[:, None], other=0).to(tl.int32)
        for j in tl.static_range(2):
            col = 2 * bi + j
            code = (byte >> (4 * j)) & 0xF
            grp = col // GROUP
            zp = tl.load(Zero + row[:, None] * (K // GROUP) + grp[None, :], mask=ok[:, None], other=0).to(tl.int32)
            sc = tl.load(Scale + row[:, None] * (K // GROUP) + grp[None, :], mask=ok[:, None], other=0.0)
            xv = tl.load(X + col)
            total += tl.sum((code - zp).to(tl.float32) * sc * xv[None, :], axis=1)
    tl.store(Y + row, total, mask=ok)
'''}, "counting student, right: loops over bytes (K // 2 in steps of BLOCK_K // 2), both nibbles with tl.static_range")
add("c-p1-fraction-floor", True, {"max_batch": '''
from fractions import Fraction
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    tokens = min(length, window) if window is not None else length
    one = 2 * layers * kv_heads * head_dim * tokens * bytes_per_value
    if memory_bytes <= weight_bytes:
        return 0
    return math.floor(Fraction(memory_bytes - weight_bytes, one))
'''}, "rounding student, right: an exact Fraction floored (math.floor of a Fraction is an int)")

# ================================================================ phase 2 addition (not blind): an earlier part called
add("c-p6-nbytes-from-max-batch", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    # ceil(cols * bits / 8) with Part 1's exact floor division: (cols*bits + 8 - 1) // (2 * 4)
    nbytes = max_batch(cols * bits + 8, 1, 1, 1, 1, 4, 1)
    stream = ((q.long()[..., None] >> torch.arange(bits)) & 1).reshape(rows, cols * bits)
    full = torch.zeros(rows, nbytes * 8, dtype=torch.long)
    full[:, : cols * bits] = stream
    return (full.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed.long()[..., None] >> torch.arange(8)) & 1).reshape(rows, -1)[:, : cols * bits]
    return (stream.reshape(rows, cols, bits) << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "right, written after the blind phase: the byte count from Part 1's max_batch (an exact floor division), as the text allows a later part to call an earlier one")
