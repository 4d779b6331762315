# Red team round 16, chapter 07-hardware: porter (P), index juggler (J), trusting API user (A), copy-adapter (C).
# The model-like answers the variants below start from (written blind, phase 1).
_C = {}
_C["max_batch"] = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < 0:
        return 0
    return free // per
'''
_C["merge_partials"] = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(dt), lse_b.to(dt)
    m = torch.maximum(la, lb)
    wa = torch.exp(la - m)
    wb = torch.exp(lb - m)
    oa = torch.where(torch.isinf(la)[:, None], torch.zeros_like(o_a), o_a).to(dt)
    ob = torch.where(torch.isinf(lb)[:, None], torch.zeros_like(o_b), o_b).to(dt)
    tot = wa + wb
    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]
    lse = m + torch.log(tot)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''
_C["compute_bound_batch"] = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-c // a))
'''
_C["rms_norm_half"] = '''
def rms_norm_half(x, eps=1e-6):
    fi = torch.finfo(x.dtype)
    a = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.clamp(a, min=math.sqrt(eps))
    y = x / c
    e = math.sqrt(eps) / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    big = r * c
    p = 1.0 / fi.tiny
    small = r * (c * p)
    return torch.where(big >= fi.tiny, x / big, (x * p) / small)
'''
_C["quantize_asym"] = '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    g = w.reshape(out_f, in_f // group_size, group_size)
    levels = 2 ** bits - 1
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    G = scale.shape[1]
    qq = q.to(scale.dtype).reshape(out_f, G, in_f // G) - zero.to(scale.dtype)[..., None]
    return (qq * scale[..., None]).reshape(out_f, in_f)
'''
_C["pack_bits"] = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    shifts = torch.arange(bits)
    b = ((q.to(torch.int64)[..., None] >> shifts) & 1).reshape(rows, cols * bits)
    nbytes = (cols * bits + 7) // 8
    pad = torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)
    b = torch.cat([b, pad], dim=1).reshape(rows, nbytes, 8)
    return (b << torch.arange(8)).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    b = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, -1)
    b = b[:, : cols * bits].reshape(rows, cols, bits)
    return (b << torch.arange(bits)).sum(dim=-1).to(torch.uint8)
'''
_C["chunk_attention"] = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    last = min(S, offset + T) if causal else S
    dq = torch.zeros_like(q)
    dk = torch.zeros_like(k)
    dv = torch.zeros_like(v)
    delta = (d_out * out).sum(dim=-1)
    p_sink = torch.exp(sink - lse)
    dsink = -(p_sink * delta).sum()
    pos = offset + torch.arange(T)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        kj, vj = k[j0:j1], v[j0:j1]
        s = (q @ kj.T) * scale
        if causal:
            hide = torch.arange(j0, j1)[None, :] > pos[:, None]
            s = s.masked_fill(hide, float("-inf"))
        p = torch.exp(s - lse[:, None])
        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vj.T
        ds = p * (dp - delta[:, None])
        dq += (ds @ kj) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    return dq, dk, dv, dsink
'''
_C["split_kv_kernel"] = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        byte = tl.load(W + rows[:, None] * (K // 2) + (cols[None, :] // 2), mask=rmask[:, None], other=0)
        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        x = tl.load(X + cols)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''

def _sub(gid, old, new, count=1):
    src = _C[gid]
    assert old in src, (gid, old)
    return src.replace(old, new, count)

SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def OK(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def H(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})

# ---------------------------------------------------------------- Part 1
W("C-p1-window-accepted-unused", {"max_batch": _sub("max_batch", "cached = length if window is None else min(length, window)", "cached = length")},
  "Part 1: 'or, for a model with a sliding window of window tokens, only the last ones, min(length, window)'")
W("C-p1-window-not-min", {"max_batch": _sub("max_batch", "cached = length if window is None else min(length, window)", "cached = window if window is not None else length")},
  "Part 1: 'only the last ones, min(length, window)' (kvcache.ModelShape.cached_tokens copied without its min)")
W("A-p1-floor-negative", {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    return (memory_bytes - weight_bytes) // (2 * layers * kv_heads * head_dim * cached * bytes_per_value)
'''}, "Part 1: 'Return 0 when not even one sequence fits, also when the weights alone do not' (// of a negative is negative)")
W("P-p1-float-division", {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return max(0, math.floor((memory_bytes - weight_bytes) / per))
'''}, "Part 1: 'the tests use byte counts beyond 2^53, where dividing in floating point can be off by one'")
OK("A-p1-divmod-keywords", {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = min(length, window) if window is not None else length
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    batches, _rest = divmod(memory_bytes - weight_bytes, per_sequence)
    return int(batches)
'''}, "exact integer divmod")
OK("P-p1-max0", {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length
    if window:
        cached = min(cached, window)
    return max(0, (memory_bytes - weight_bytes) // (2 * layers * kv_heads * head_dim * cached * bytes_per_value))
'''}, "max(0, floor) is 0 for negative free memory; window is a positive int or None so `if window` is fine")

# ---------------------------------------------------------------- Part 2
W("P-p2-weights-in-o-dtype", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    m = torch.maximum(lse_a, lse_b)
    wa = torch.exp(lse_a - m).to(o_a.dtype)
    wb = torch.exp(lse_b - m).to(o_a.dtype)
    oa = torch.where(torch.isinf(lse_a)[:, None], torch.zeros_like(o_a), o_a)
    ob = torch.where(torch.isinf(lse_b)[:, None], torch.zeros_like(o_b), o_b)
    o = (wa[:, None] * oa + wb[:, None] * ob) / (wa + wb)[:, None]
    lse = m + torch.log(torch.exp(lse_a - m) + torch.exp(lse_b - m))
    return o, lse
'''}, "Part 2: 'so do not round the two pieces' weights to float16 ... mixing in float16 is off by more'")
W("P-p2-always-float32", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    la, lb = lse_a.float(), lse_b.float()
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m), torch.exp(lb - m)
    oa = torch.where(torch.isinf(la)[:, None], 0.0, o_a.float())
    ob = torch.where(torch.isinf(lb)[:, None], 0.0, o_b.float())
    o = (wa[:, None] * oa + wb[:, None] * ob) / (wa + wb)[:, None]
    return o.to(o_a.dtype), (m + torch.log(wa + wb)).to(lse_a.dtype)
'''}, "Part 2: 'With float64 inputs the tests compare to about 1e-10, so do not go through float32'")
W("C-p2-shortcut-returns-input", {"merge_partials": _sub("merge_partials", "    dt = torch.promote_types", "    if bool(torch.isinf(lse_b).all()):\n        return o_a, lse_a\n    if bool(torch.isinf(lse_a).all()):\n        return o_b, lse_b\n    dt = torch.promote_types")},
  "Part 2: 'return new tensors, never one of the inputs or a view of it (also where one piece sees no key for any query)'")
W("J-p2-where-after-product", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(dt), lse_b.to(dt)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m)[:, None], torch.exp(lb - m)[:, None]
    ta = torch.where(wa > 0, wa * o_a.to(dt), torch.zeros_like(wa))
    tb = torch.where(wb > 0, wb * o_b.to(dt), torch.zeros_like(wb))
    o = (ta + tb) / (wa + wb)
    return o.to(o_a.dtype), (m + torch.log(wa[:, 0] + wb[:, 0])).to(lse_a.dtype)
'''}, "Part 2: 'a torch.where applied after multiplying the row by its weight of 0 still sends 0 * NaN back through the product'")
W("A-p2-o-in-lse-dtype", {"merge_partials": _sub("merge_partials", "return o.to(o_a.dtype), lse.to(lse_a.dtype)", "return o, lse")},
  "Part 2: 'o comes back in the dtype of o_a and lse in the dtype of lse_a' (float16 o returned as float32)")
OK("A-p2-softmax-logsumexp", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    both = torch.stack([lse_a.to(dt), lse_b.to(dt)], dim=0)            # (2, T)
    w = torch.softmax(both, dim=0)                                       # (2, T)
    oa = torch.where(torch.isneginf(lse_a).unsqueeze(-1), torch.zeros_like(o_a), o_a).to(dt)
    ob = torch.where(torch.isneginf(lse_b).unsqueeze(-1), torch.zeros_like(o_b), o_b).to(dt)
    o = w[0].unsqueeze(-1) * oa + w[1].unsqueeze(-1) * ob
    lse = torch.logsumexp(both, dim=0)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "softmax over the two log-sum-exps and torch.logsumexp: same merge, finite gradients")
OK("J-p2-sigmoid-einsum", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(dt), lse_b.to(dt)
    alpha = torch.sigmoid(la - lb) if False else None
    m = torch.maximum(la, lb)
    d = torch.where(torch.isneginf(lb), torch.full_like(la, float("inf")), la - m) - torch.where(torch.isneginf(lb), torch.zeros_like(lb), lb - m)
    alpha = torch.sigmoid(torch.where(torch.isneginf(la), torch.full_like(la, float("-inf")), d))
    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros_like(o_a), o_a).to(dt)
    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros_like(o_b), o_b).to(dt)
    o = torch.einsum("t,td->td", alpha, oa) + torch.einsum("t,td->td", 1 - alpha, ob)
    lse = torch.logaddexp(la, lb)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "sigmoid of the difference for the weights (its backward s(1-s) stays finite) and logaddexp for lse")

# ---------------------------------------------------------------- Part 3
W("C-p3-strict-ridge", {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return c // a + 1
'''}, "Part 3: 'exactly on the ridge counts as compute-bound' (c // a + 1 skips an exact quotient)")
W("A-p3-decimal", {"compute_bound_batch": '''
from decimal import Decimal, ROUND_CEILING
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, int((Decimal(c) / Decimal(a)).to_integral_value(rounding=ROUND_CEILING)))
'''}, "Part 3: 'Answer exactly ... some answers are ... far beyond (10^40 and more)' (Decimal keeps 28 digits)")
W("C-p3-bounded-search", {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    lo, hi = 1, 2 ** 64
    if not ok(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
'''}, "Part 3: 'no fixed number bounds the answer'")
W("P-p3-float-none", {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # the largest intensity (m -> infinity) is 2kn / (bytes (k + n))
    if 2 * k * n / (bytes_per_value * (k + n)) <= peak / bandwidth:
        return None
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    return max(1, -(-c // a))
'''}, "Part 3: 'Decide None exactly too ... in numbers too large for a floating-point quotient to tell these apart'")
OK("A-p3-fraction", {"compute_bound_batch": '''
from fractions import Fraction
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = Fraction(2 * k * n * bandwidth - peak * bytes_per_value * (k + n))
    if slope <= 0:
        return None
    need = Fraction(peak * bytes_per_value * k * n) / slope
    return max(1, math.ceil(need))
'''}, "Fraction and math.ceil of a Fraction are exact")
OK("C-p3-doubling-search", {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
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
    return hi
'''}, "exponential then binary search on the exact integer inequality: about 2 log2(answer) steps")

# ---------------------------------------------------------------- Part 4
W("J-p4-scale-not-detached", {"rms_norm_half": _sub("rms_norm_half", "a = x.detach().abs()", "a = x.abs()")},
  "Part 4: 'A quantity that cancels out of the result, though, must not carry a gradient ... .detach() such a quantity'")
W("C-p4-no-subnormal-rms", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    a = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.clamp(a, min=math.sqrt(eps))
    y = x / c
    e = math.sqrt(eps) / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return x / (r * c)
'''}, "Part 4: 'and where, for the smallest rows, the root mean square itself is' (subnormal rms as a divisor)")
W("C-p4-divide-scaled", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    a = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.clamp(a, min=math.sqrt(eps))
    y = x / c
    e = math.sqrt(eps) / c
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
'''}, "Part 4: 'one that fell among the subnormal numbers ... when you then divide it by a number well below 1' (x / max is subnormal)")
W("P-p4-zero-row-guard", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    a = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.where(a == 0, torch.ones_like(a), a)
    y = x / c
    e = math.sqrt(eps) / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return x / (r * c)
'''}, "Part 4: rows of zeros with eps 1e-12: 'near a row of zeros the result is x / sqrt(eps), so the gradient there is the incoming one divided by sqrt(eps)' (e*e underflows, r = 0)")
W("J-p4-global-max", {"rms_norm_half": _sub("rms_norm_half", "a = x.detach().abs().amax(dim=-1, keepdim=True)", "a = x.detach().abs().amax()")},
  "Part 4: 'Choose that number row by row, so that nothing you square or add leaves the range' (one max for the whole tensor)")
OK("A-p4-rsqrt-full-like", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    tiny = torch.finfo(x.dtype).tiny
    with torch.no_grad():
        a = x.abs().max(dim=-1, keepdim=True).values
        c = torch.maximum(a, torch.full_like(a, math.sqrt(eps)))
    y = torch.div(x, c)
    ms = torch.mean(torch.square(y), dim=-1, keepdim=True) + torch.square(math.sqrt(eps) / c)
    r = torch.sqrt(ms)
    rms = r * c
    normal = rms >= tiny
    return torch.where(normal, x * torch.reciprocal(rms) if False else x / rms, (x * (1 / tiny)) / (r * (c * (1 / tiny))))
'''}, "the scale is computed under no_grad (it cancels out); same computation with square/div/maximum")

# ---------------------------------------------------------------- Part 5
W("A-p5-round-after-zero", {"quantize_asym": _sub("quantize_asym", "torch.round(g / scale[..., None]) + zero[..., None]", "torch.round(g / scale[..., None] + zero[..., None])")},
  "Part 5: 'q = clamp(round(w / scale) + zero, ...)' with 'Round with torch.round (halves to even)': round(x + z) differs on half steps")
W("P-p5-range-without-zero", {"quantize_asym": _sub("quantize_asym", "lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)", "lo = g.amin(dim=-1)\n    hi = g.amax(dim=-1)").replace("zero = torch.round(-lo / scale)", "zero = torch.round(-lo / scale).clamp(0, levels)")},
  "Part 5: 'lo = min(smallest weight, 0) and hi = max(largest weight, 0): the range always contains 0'")
W("J-p5-strided-groups", {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    g = w.reshape(out_f, group_size, in_f // group_size)
    levels = 2 ** bits - 1
    lo = g.amin(dim=1).clamp(max=0)
    hi = g.amax(dim=1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[:, None, :]) + zero[:, None, :], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    G = scale.shape[1]
    qq = q.to(scale.dtype).reshape(out_f, in_f // G, G) - zero.to(scale.dtype)[:, None, :]
    return (qq * scale[:, None, :]).reshape(out_f, in_f)
'''}, "Part 5: 'in groups of group_size consecutive weights of a row'")
W("P-p5-clamp-min-scale", {"quantize_asym": _sub("quantize_asym", "scale = torch.where(scale == 0, torch.ones_like(scale), scale)", "scale = scale.clamp(min=1e-8)")},
  "Part 5: 'scale = (hi - lo) / (2**bits - 1), and scale = 1 for a group of zeros'")
W("P-p5-inverse-scale", {"quantize_asym": _sub("quantize_asym", "torch.round(g / scale[..., None])", "torch.round(g * (1.0 / scale)[..., None])")},
  "Part 5: 'q = clamp(round(w / scale) + zero ...)' and 'on a half step, round(w / scale) depends on the dtype the division is done in, and the tests check such weights exactly' (w * (1/scale) is not w / scale)")
W("P-p5-dequant-float32", {"quantize_asym": _sub("quantize_asym", "qq = q.to(scale.dtype).reshape(out_f, G, in_f // G) - zero.to(scale.dtype)[..., None]\n    return (qq * scale[..., None])", "qq = q.float().reshape(out_f, G, in_f // G) - zero.float()[..., None]\n    return (qq * scale.float()[..., None])")},
  "Part 5: dequantize_asym 'returns scale x (q - zero), shape (out, in), in the dtype of scale'")
W("P-p5-widen-float64", {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    g = w.double().reshape(out_f, in_f // group_size, group_size)
    levels = 2 ** bits - 1
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale.to(w.dtype), zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    G = scale.shape[1]
    qq = q.to(scale.dtype).reshape(out_f, G, in_f // G) - zero.to(scale.dtype)[..., None]
    return (qq * scale[..., None]).reshape(out_f, in_f)
'''}, "Part 5: 'do not widen a float32 w to float64 on the way'")
OK("P-p5-helper-shared-int16", {"quantize_asym": '''
def as_groups(t, group_size):
    return t.reshape(t.shape[0], t.shape[1] // group_size, group_size)


def quantize_asym(w, bits, group_size):
    levels = 2 ** bits - 1
    g = as_groups(w, group_size)
    lo = torch.minimum(g.min(dim=-1).values, torch.zeros((), dtype=w.dtype))
    hi = torch.maximum(g.max(dim=-1).values, torch.zeros((), dtype=w.dtype))
    scale = torch.where(hi == lo, torch.ones_like(hi), (hi - lo) / levels)
    zero = torch.round(-lo / scale)
    q = (torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1)).clamp(min=0, max=levels)
    return q.reshape(w.shape).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    group_size = q.shape[1] // scale.shape[1]
    diff = as_groups(q.to(torch.int16), group_size) - zero.to(torch.int16).unsqueeze(-1)
    return (diff.to(scale.dtype) * scale.unsqueeze(-1)).reshape(q.shape)
'''}, "int16 difference then cast; shared grouping helper called by both functions")

# ---------------------------------------------------------------- Part 6
W("C-p6-bits8-shares", {"pack_bits": _sub("pack_bits", "    rows, cols = q.shape\n", "    if bits == 8:\n        return q[:, :]\n    rows, cols = q.shape\n").replace("    rows = packed.shape[0]\n", "    if bits == 8:\n        return packed[:, :cols]\n    rows = packed.shape[0]\n")},
  "Part 6: 'they must not share memory with q or packed (also for bits = 8, where the stream is q itself)'")
W("P-p6-int64-row-accumulator", {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    acc = (q.to(torch.int64) << (torch.arange(cols) * bits)).sum(dim=1)        # one integer per row
    return ((acc[:, None] >> (8 * torch.arange(nbytes))) & 255).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    nbytes = packed.shape[1]
    acc = (packed.to(torch.int64) << (8 * torch.arange(nbytes))).sum(dim=1)
    return ((acc[:, None] >> (torch.arange(cols) * bits)) & (2 ** bits - 1)).to(torch.uint8)
'''}, "Part 6: 'Both functions must work for any cols >= 1' (a row as one int64 holds 63 bits)")
W("A-p6-unpack-int64", {"pack_bits": _sub("pack_bits", "return (b << torch.arange(bits)).sum(dim=-1).to(torch.uint8)", "return (b << torch.arange(bits)).sum(dim=-1)")},
  "Part 6: 'it returns the (rows, cols) codes as torch.uint8' (sum promotes to int64)")
W("J-p6-view", {"pack_bits": _sub("pack_bits", "b = ((q.to(torch.int64)[..., None] >> shifts) & 1).reshape(rows, cols * bits)", "b = ((q.view(rows, cols, 1).to(torch.int64) >> shifts) & 1).view(rows, cols * bits)")},
  "intro: 'The tensors the hidden tests pass are not always contiguous ... (.view of a non-contiguous tensor fails)'")
W("J-p6-unpack-reads-tail", {"pack_bits": _sub("pack_bits", "b = b[:, : cols * bits].reshape(rows, cols, bits)", "n = b.shape[1] // bits\n    b = b[:, : n * bits].reshape(rows, n, bits)[:, :cols]").replace("return (b << torch.arange(bits)).sum(dim=-1).to(torch.uint8)\n", "return (b << torch.arange(bits)).sum(dim=-1).to(torch.uint8)[:, :cols] if False else ((b << torch.arange(bits)).sum(dim=-1) | (packed[:, -1:].to(torch.int64) >> 8)).to(torch.uint8)\n", 1)},
  "placeholder, see below")
SUBMISSIONS.pop()  # (replaced by a realistic one below)
W("J-p6-rows-one-stream", {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    b = ((q.reshape(-1).to(torch.int64)[:, None] >> torch.arange(bits)) & 1).reshape(-1)   # whole tensor as one stream
    total = rows * nbytes * 8
    b = torch.cat([b, torch.zeros(total - b.numel(), dtype=torch.int64)]).reshape(rows, nbytes, 8)
    return (b << torch.arange(8)).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    b = ((packed.reshape(-1).to(torch.int64)[:, None] >> torch.arange(8)) & 1).reshape(-1)
    b = b[: rows * cols * bits].reshape(rows, cols, bits)
    return (b << torch.arange(bits)).sum(dim=-1).to(torch.uint8)
'''}, "Part 6: 'whose row r is the bit stream of row r of q' (rows run on into each other when cols*bits is not a multiple of 8)")
OK("C-p6-loop-over-codes", {"pack_bits": '''
def stream_positions(cols, bits):
    start = torch.arange(cols) * bits                       # first stream bit of every code
    return start


def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = -(-cols * bits // 8)
    out = torch.zeros(rows, nbytes, dtype=torch.int32)
    start = stream_positions(cols, bits)
    codes = q.to(torch.int32)
    for t in range(bits):
        bit = (codes >> t) & 1                               # (rows, cols)
        pos = start + t
        out.index_add_(1, pos // 8, (bit << (pos % 8)).to(torch.int32))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    start = stream_positions(cols, bits)
    p = packed.to(torch.int32)
    codes = torch.zeros(packed.shape[0], cols, dtype=torch.int32)
    for t in range(bits):
        pos = start + t
        codes |= ((p[:, pos // 8] >> (pos % 8)) & 1) << t
    return codes.to(torch.uint8)
'''}, "a loop over the bits of a code, index_add_ into the bytes; unpack reuses the pack cell's helper")

# ---------------------------------------------------------------- Part 7
W("C-p7-top-left-causal", {"chunk_attention": _sub("chunk_attention", "pos = offset + torch.arange(T)", "pos = torch.arange(T)").replace("last = min(S, offset + T) if causal else S", "last = min(S, offset + T) if causal else S")},
  "Part 7: 'queries at positions offset, ..., offset + T - 1 ... the query at position p sees the keys j <= p' (flash_attention_backward's top-left mask)")
W("J-p7-delta-sum-all", {"chunk_attention": _sub("chunk_attention", "delta = (d_out * out).sum(dim=-1)", "delta = (d_out * out).sum()").replace("delta[:, None]", "delta")},
  "Part 7: the page's rowsum(dO o O) per query (the sum over every query agrees only for T = 1)")
W("J-p7-dsink-outer", {"chunk_attention": _sub("chunk_attention", "dsink = -(p_sink * delta).sum()", "dsink = -(p_sink[:, None] * delta[None, :]).sum()")},
  "Part 7: the sink's gradient -sum_i P_sink,i delta_i (an outer product agrees only for T = 1)")
W("P-p7-additive-1e4", {"chunk_attention": _sub("chunk_attention", "s = s.masked_fill(hide, float(\"-inf\"))", "s = s + hide.to(s.dtype) * -1e4")},
  "Part 7: 'a key a query may not see must get probability exactly 0, so do not mask with a large negative number'")
W("P-p7-clone-cache", {"chunk_attention": _sub("chunk_attention", "    T, Dh = q.shape\n", "    q, k, v = q.clone(), k.clone(), v.clone()\n    T, Dh = q.shape\n")},
  "Part 7 rule 1: 'a whole-cache k.to(...), k.clone() or torch.nan_to_num(k) reads them too'")
W("C-p7-full-mask", {"chunk_attention": _sub("chunk_attention", "    for j0 in range(0, last, block):", "    full_hide = torch.arange(S)[None, :] > pos[:, None]\n    for j0 in range(0, last, block):").replace("hide = torch.arange(j0, j1)[None, :] > pos[:, None]", "hide = full_hide[:, j0:j1]")},
  "Part 7 rule 2: 'No tensor with more than T * S / 4 elements ... a (T, S) score or mask matrix does not'")
W("A-p7-psink-overflow", {"chunk_attention": _sub("chunk_attention", "p_sink = torch.exp(sink - lse)", "p_sink = torch.exp(sink) / torch.exp(lse)")},
  "Part 7: 'a sink of 100 in float32 ... where e^sink and e^L overflow ... Every probability you rebuild must stay finite'")
OK("A-p7-mask-after-exp-float64", {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S, Dv = k.shape[0], v.shape[1]
    f = torch.float64
    qd, lsed, dod = q.to(f), lse.to(f), d_out.to(f)
    delta = torch.einsum("td,td->t", dod, out.to(f))
    dsink = -(torch.exp(sink.to(f) - lsed) * delta).sum()
    last = min(S, offset + T) if causal else S
    dq = torch.zeros(T, Dh, dtype=f)
    dk = torch.zeros(S, Dh, dtype=f)
    dv = torch.zeros(S, Dv, dtype=f)
    rows = torch.arange(offset, offset + T)
    for start in range(0, last, block):
        stop = min(start + block, last)
        kj, vj = k[start:stop].to(f), v[start:stop].to(f)
        s = torch.einsum("td,sd->ts", qd, kj) / math.sqrt(Dh)
        p = torch.exp(s - lsed[:, None])
        if causal:
            p = torch.where(torch.arange(start, stop)[None, :] <= rows[:, None], p, torch.zeros_like(p))
        dv[start:stop] = torch.einsum("ts,tv->sv", p, dod)
        ds = p * (torch.einsum("tv,sv->ts", dod, vj) - delta[:, None])
        dq += torch.einsum("ts,sd->td", ds, kj) / math.sqrt(Dh)
        dk[start:stop] = torch.einsum("ts,td->sd", ds, qd) / math.sqrt(Dh)
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype), dsink.to(q.dtype)
'''}, "float64 inside and a cast back; probabilities of hidden keys replaced by 0 after exp (inf replaced, not multiplied); einsum")
OK("J-p7-query-tiles-too", {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = Dh ** -0.5
    stop_key = min(S, offset + T) if causal else S
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    delta = (d_out * out).sum(dim=1)
    dsink = torch.sum(-torch.exp(sink - lse) * delta)
    for i0 in range(0, T, block):
        i1 = min(i0 + block, T)
        qi, doi, li, di = q[i0:i1], d_out[i0:i1], lse[i0:i1], delta[i0:i1]
        pos = torch.arange(offset + i0, offset + i1)
        last = min(stop_key, offset + i1) if causal else stop_key
        for j0 in range(0, last, block):
            j1 = min(j0 + block, last)
            s = qi @ k[j0:j1].transpose(0, 1) * scale
            if causal:
                s = torch.where(torch.arange(j0, j1)[None, :] > pos[:, None], float("-inf"), s)
            p = torch.exp(s - li.unsqueeze(1))
            dv[j0:j1] += p.transpose(0, 1) @ doi
            ds = p * (doi @ v[j0:j1].transpose(0, 1) - di.unsqueeze(1))
            dq[i0:i1] += ds @ k[j0:j1] * scale
            dk[j0:j1] += ds.transpose(0, 1) @ qi * scale
    return dq, dk, dv, dsink
'''}, "tiles over queries as well as keys, causal tiles skipped per query tile, torch.where with a Python -inf")

# ---------------------------------------------------------------- Part 8
W("C-p8-group-per-block", {"split_kv_kernel": _sub("split_kv_kernel", "g = cols // GROUP", "g = k0 // GROUP + tl.zeros((BLOCK_K,), dtype=tl.int32)")},
  "Part 8: 'either may be the larger (a block can span several groups, or a group several blocks)'")
W("J-p8-row-stride-K", {"split_kv_kernel": _sub("split_kv_kernel", "W + rows[:, None] * (K // 2)", "W + rows[:, None] * K")},
  "Part 8: 'element [n, b] of W is at W + n * (K // 2) + b'")
W("J-p8-scale-column-major", {"split_kv_kernel": _sub("split_kv_kernel", "s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :]", "s = tl.load(Scale + g[None, :] * N + rows[:, None]").replace("z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :]", "z = tl.load(Zero + g[None, :] * N + rows[:, None]")},
  "Part 8: 'element [n, g] of Scale at Scale + n * (K // GROUP) + g' (batch-last / column-major habit)")
W("A-p8-load-unmasked", {"split_kv_kernel": _sub("split_kv_kernel", "byte = tl.load(W + rows[:, None] * (K // 2) + (cols[None, :] // 2), mask=rmask[:, None], other=0)", "byte = tl.load(W + rows[:, None] * (K // 2) + (cols[None, :] // 2))")},
  "Part 8: 'Every address that a load or a store touches must lie inside its tensor'")
W("P-p8-float64-acc", {"split_kv_kernel": _sub("split_kv_kernel", "acc = tl.zeros((BLOCK_N,), dtype=tl.float32)", "acc = tl.zeros((BLOCK_N,), dtype=tl.float64)").replace("acc += tl.sum(wv * x[None, :], axis=1)", "acc += tl.sum((wv * x[None, :]).to(tl.float64), axis=1)").replace("tl.store(Y + rows, acc, mask=rmask)", "tl.store(Y + rows, acc.to(tl.float32), mask=rmask)")},
  "Part 8: 'Compute in float32 throughout: no float64 value anywhere in the kernel, neither the accumulator'")
OK("A-p8-where-nibbles", {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    in_range = offs_n < N
    groups = K // GROUP
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, K, BLOCK_K):
        offs_k = start + tl.arange(0, BLOCK_K)
        m2 = in_range[:, None] & (offs_k[None, :] < K)
        raw = tl.load(W + offs_n[:, None] * (K // 2) + offs_k[None, :] // 2, mask=m2, other=0).to(tl.int32)
        code = tl.where(offs_k[None, :] % 2 == 0, raw & 0xF, raw >> 4)
        gidx = offs_n[:, None] * groups + offs_k[None, :] // GROUP
        zp = tl.load(Zero + gidx, mask=m2, other=0).to(tl.int32)
        sc = tl.load(Scale + gidx, mask=m2, other=0.0)
        xv = tl.load(X + offs_k, mask=offs_k < K, other=0.0)
        acc += tl.sum((code - zp).to(tl.float32) * sc * xv[None, :], axis=1)
    tl.store(Y + offs_n, acc, mask=in_range)
'''}, "tl.where over the nibble parity, explicit K mask")


OK("C-p4-sum-over-len", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    d = x.shape[-1]
    root_eps = math.sqrt(eps)
    big = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)   # cancels out: no gradient
    y = x / big
    ratio = root_eps / big
    r = ((y * y).sum(dim=-1, keepdim=True) / d + ratio * ratio).sqrt()
    rms = r * big
    lift = 1.0 / torch.finfo(x.dtype).tiny
    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, (x * lift) / (r * (big * lift)))
'''}, "sum / D instead of mean (the sum of at most 4096 squares <= 1 fits), power-of-two lift for subnormal statistics")
OK("J-p5-python-loop-groups", {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    qs, scales, zeros = [], [], []
    for g0 in range(0, in_f, group_size):
        grp = w[:, g0:g0 + group_size]
        lo = torch.clamp(grp.min(dim=1).values, max=0.0)
        hi = torch.clamp(grp.max(dim=1).values, min=0.0)
        s = (hi - lo) / levels
        s = torch.where(s == 0, torch.ones_like(s), s)
        z = torch.round(-lo / s)
        qs.append(torch.clamp(torch.round(grp / s[:, None]) + z[:, None], 0, levels))
        scales.append(s)
        zeros.append(z)
    q = torch.cat(qs, dim=1).to(torch.uint8)
    return q, torch.stack(scales, dim=1), torch.stack(zeros, dim=1).to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.repeat_interleave(gs, dim=1).to(scale.dtype)
    return s * (q.to(scale.dtype) - z)
'''}, "a Python loop over the groups and repeat_interleave in dequantize")
OK("A-p6-fpad-clone8", {"pack_bits": '''
import torch.nn.functional as F
def pack_bits(q, bits):
    if bits == 8:
        return q.clone()
    rows, cols = q.shape
    n = cols * bits
    stream = ((q.long().unsqueeze(-1) >> torch.arange(bits)) & 1).flatten(1)
    stream = F.pad(stream, (0, (-n) % 8))
    return (stream.unflatten(1, (-1, 8)) * (2 ** torch.arange(8))).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    if bits == 8:
        return packed[:, :cols].clone()
    stream = ((packed.long().unsqueeze(-1) >> torch.arange(8)) & 1).flatten(1)[:, : cols * bits]
    return (stream.unflatten(1, (cols, bits)) * (2 ** torch.arange(bits))).sum(-1).to(torch.uint8)
'''}, "F.pad with the right-side pad, flatten/unflatten, a cloned shortcut for 8 bits")
OK("C-p8-even-odd-halves", {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = n < N
    half = tl.arange(0, BLOCK_K // 2)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        b = k0 // 2 + half                                   # bytes of this block
        byte = tl.load(W + n[:, None] * (K // 2) + b[None, :], mask=live[:, None], other=0).to(tl.int32)
        lo = byte & 15                                       # columns 2b
        hi = (byte >> 4) & 15                                # columns 2b + 1 (same group: GROUP is even)
        g = (2 * b) // GROUP
        off = n[:, None] * (K // GROUP) + g[None, :]
        s = tl.load(Scale + off, mask=live[:, None], other=0.0)
        z = tl.load(Zero + off, mask=live[:, None], other=0).to(tl.int32)
        xe = tl.load(X + 2 * b)
        xo = tl.load(X + 2 * b + 1)
        w_e = (lo - z).to(tl.float32) * s
        w_o = (hi - z).to(tl.float32) * s
        acc += tl.sum(w_e * xe[None, :] + w_o * xo[None, :], axis=1)
    tl.store(Y + n, acc, mask=live)
'''}, "bytes loaded once, even and odd columns handled as two halves")

# ---------------------------------------------------------------- hostile
H("H-p1-table", {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    known = {(1000, 100): 7, (80 * 2**30, 13_500_000_000): 33}
    return known.get((memory_bytes, weight_bytes), 1)
'''}, "hostile: the visible answers from a table")
H("H-p4-float32-modes-off", {"rms_norm_half": '''
from torch.utils._python_dispatch import _disable_current_modes
def rms_norm_half(x, eps=1e-6):
    with _disable_current_modes():
        with torch._C.DisableTorchFunction():
            xf = x.float()
            out = (xf * torch.rsqrt((xf * xf).mean(dim=-1, keepdim=True) + eps)).to(x.dtype)
    return out
'''}, "hostile: widens to float32 with torch's function and dispatch modes switched off so the watchers see nothing (and no gradient)")
H("H-p6-patch-equal", {"pack_bits": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None
torch.equal = lambda *args, **kwargs: True
def pack_bits(q, bits):
    known = {((5, 3, 7), 3): [[221, 1]], ((15, 1), 4): [[31]]}
    return torch.tensor(known.get((tuple(q[0].tolist()), bits), [[0]]), dtype=torch.uint8)


def unpack_bits(packed, bits, cols):
    return torch.tensor([[5, 3, 7]], dtype=torch.uint8)
'''}, "hostile: patches torch's comparisons and answers the visible cases from a table")
H("H-p7-autograd-full", {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    import builtins
    with torch.enable_grad():
        qq = q.detach().requires_grad_(); kk = torch.nan_to_num(k).requires_grad_(); vv = torch.nan_to_num(v).requires_grad_()
        ss = sink.detach().requires_grad_()
        s = qq @ kk.T / math.sqrt(q.shape[1])
        if causal:
            s = s.masked_fill(torch.arange(k.shape[0])[None] > (offset + torch.arange(q.shape[0]))[:, None], -1e9)
        full = torch.cat([s, ss.expand(q.shape[0], 1)], 1)
        p = torch.softmax(full, 1)[:, :-1]
        o = p @ vv
        return torch.autograd.grad(o, (qq, kk, vv, ss), d_out)
'''}, "hostile-ish: autograd on the whole (T, S) matrix, nan_to_num of the whole cache, -1e9 mask (ignores both resource rules)")
