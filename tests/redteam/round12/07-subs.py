# Red team round 12, chapter 07-hardware: submissions (phase 1, blind).
P1_OK = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if memory_bytes < weight_bytes:
        return 0
    return (memory_bytes - weight_bytes) // per
'''

P2_OK = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(torch.promote_types(o_a.dtype, lse_a.dtype), torch.promote_types(o_b.dtype, lse_b.dtype))
    la, lb = lse_a.to(dt), lse_b.to(dt)
    lse = torch.logaddexp(la, lb)
    wa = torch.exp(la - lse)[:, None]
    wb = torch.exp(lb - lse)[:, None]
    zero = torch.zeros((), dtype=dt)
    oa = torch.where(torch.isneginf(la)[:, None], zero, o_a.to(dt))
    ob = torch.where(torch.isneginf(lb)[:, None], zero, o_b.to(dt))
    o = wa * oa + wb * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''

P3_OK = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    p = peak * bytes_per_value
    a = 2 * k * n * bandwidth - p * (k + n)
    if a <= 0:
        return None
    b = p * k * n
    return max(1, -(-b // a))
'''

P7_HEAD = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    dt = q.dtype
    scale = 1 / math.sqrt(Dh)
    end = min(S, offset + T) if causal else S
    D = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(S, Dh, dtype=dt)
    dv = torch.zeros(S, v.shape[1], dtype=dt)
    pos = offset + torch.arange(T)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kt, vt = k[j0:j1], v[j0:j1]
        s = (q @ kt.T) * scale
        if causal:
            m = pos[:, None] >= torch.arange(j0, j1)[None, :]
            P = torch.where(m, torch.exp(torch.where(m, s - lse[:, None], -math.inf)), 0.0)
        else:
            P = torch.exp(s - lse[:, None])
        dv[j0:j1] = P.T @ d_out
        dS = P * (d_out @ vt.T - D[:, None])
        dq += (dS @ kt) * scale
        dk[j0:j1] = (dS.T @ q) * scale
'''
P7_OK = P7_HEAD + '''
    dsink = -(torch.exp(sink - lse) * D).sum()
    return dq, dk, dv, dsink.to(dt)
'''

P8_OK = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        m2 = rmask[:, None] & (cols[None, :] < K)
        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=m2, other=0).to(tl.int32)
        code = tl.where(cols[None, :] % 2 == 0, byte & 15, byte >> 4)
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0.0)
        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0).to(tl.int32)
        acc += tl.sum((code - z).to(tl.float32) * s * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''

P5_OK = '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(-1).clamp(max=0)
    hi = g.amax(-1).clamp(min=0)
    top = 2 ** bits - 1
    scale = (hi - lo) / top
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, top)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    G = inn // scale.shape[1]
    d = q.reshape(out, -1, G).to(scale.dtype) - zero.to(scale.dtype)[..., None]
    return (d * scale[..., None]).reshape(out, inn)
'''

SUBMISSIONS = [
    # ---------------------------------------------------------------- wrong answers
    {"name": "p1-window-not-min", "correct": False, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = window if window is not None else length
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if memory_bytes < weight_bytes:
        return 0
    return (memory_bytes - weight_bytes) // per
'''}, "why": "P1: 'only the last ones, min(length, window)': a window longer than the sequence is used as is, so a short sequence is charged a full window's cache."},
    {"name": "p1-negative-when-weights-too-big", "correct": False, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return (memory_bytes - weight_bytes) // per
'''}, "why": "P1: 'Return 0 when not even one sequence fits, also when the weights alone do not': floor division of a negative free memory returns a negative count."},
    {"name": "p1-float-division", "correct": False, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return max(0, int((memory_bytes - weight_bytes) / per))
'''}, "why": "P1: 'compute it exactly ... byte counts beyond 2**53, where dividing in floating point can be off by one'."},
    {"name": "p2-weights-rounded-to-half", "correct": False, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    wa = torch.exp(lse_a - lse)[:, None].to(o_a.dtype)
    wb = torch.exp(lse_b - lse)[:, None].to(o_a.dtype)
    oa = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros_like(o_a), o_a)
    ob = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros_like(o_b), o_b)
    return wa * oa + wb * ob, lse
'''}, "why": "P2: 'do not round the two pieces' weights to float16, and a float16 o must be the merge ... computed in float32 and rounded to float16 once at the end'."},
    {"name": "p2-nan-row-not-removed", "correct": False, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    lse = torch.logaddexp(lse_a.to(dt), lse_b.to(dt))
    wa = torch.exp(lse_a.to(dt) - lse)[:, None]
    wb = torch.exp(lse_b.to(dt) - lse)[:, None]
    o = wa * o_a.to(dt) + wb * o_b.to(dt)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "why": "P2: 'its row of o may hold anything, even NaN or infinities ... the other piece alone decides that query's result': 0 * NaN is NaN."},
    {"name": "p2-where-after-multiply", "correct": False, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(dt), lse_b.to(dt)
    lse = torch.logaddexp(la, lb)
    ta = torch.exp(la - lse)[:, None] * o_a.to(dt)
    tb = torch.exp(lb - lse)[:, None] * o_b.to(dt)
    ta = torch.where(torch.isneginf(la)[:, None], torch.zeros_like(ta), ta)
    tb = torch.where(torch.isneginf(lb)[:, None], torch.zeros_like(tb), tb)
    return (ta + tb).to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "why": "P2: 'that piece's row of o ... must not reach any gradient ... (a torch.where applied after multiplying the row by its weight of 0 still sends 0 * NaN back through the product)'."},
    {"name": "p3-float-ceil", "correct": False, "cells": {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    p = peak * bytes_per_value
    a = 2 * k * n * bandwidth - p * (k + n)
    if a <= 0:
        return None
    return max(1, math.ceil(p * k * n / a))
'''}, "why": "P3: 'Answer exactly ... with numbers where rounding a floating-point quotient gives the wrong integer'."},
    {"name": "p3-none-decided-in-float", "correct": False, "cells": {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    ridge = peak / bandwidth
    best = 2 * k * n / (bytes_per_value * (k + n))   # intensity as m -> infinity
    if best <= ridge:
        return None
    p = peak * bytes_per_value
    a = 2 * k * n * bandwidth - p * (k + n)
    return max(1, -(-(p * k * n) // a))
'''}, "why": "P3: 'Decide None exactly too: ... one unit of the integer inequality above or below it, in numbers too large for a floating-point quotient to tell these apart' (a = 1 looks like the ridge in float, and a = 0 with a float best just above the ridge divides by zero)."},
    {"name": "p3-ridge-is-memory-bound", "correct": False, "cells": {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    p = peak * bytes_per_value
    a = 2 * k * n * bandwidth - p * (k + n)
    if a <= 0:
        return None
    return p * k * n // a + 1
'''}, "why": "P3: 'exactly on the ridge counts as compute-bound': the smallest m with a strict inequality is one too large when the ridge falls on an integer."},
    {"name": "p4-float32-inside", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
'''}, "why": "P4: 'Nothing wider than x. Every floating-point tensor that torch creates while your function runs must have x's dtype: no .float()'."},
    {"name": "p4-scale-not-detached", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    c = x.abs().amax(-1, keepdim=True)
    c = torch.maximum(c, torch.full_like(c, math.sqrt(eps)))
    y = x / c
    e = math.sqrt(eps) / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e)
'''}, "why": "P4: 'A quantity that cancels out of the result, though, must not carry a gradient ... .detach() such a quantity' (the row scale c cancels)."},
    {"name": "p4-eps-term-overflows", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    c = x.abs().amax(-1, keepdim=True).detach()
    c = torch.where(c == 0, torch.ones_like(c), c)
    y = x / c
    e = math.sqrt(eps) / c
    return y / torch.sqrt((y * y).mean(-1, keepdim=True) + e * e) / c * c
'''}, "why": "P4: 'eps from 1e-12 to 1 ... so epsilon can be far smaller or far larger than a row's mean square' with 'keep every number you form within its range': scaling by the row maximum alone makes (sqrt(eps)/c)**2 overflow when eps dominates."},
    {"name": "p5-tiny-scale-for-zero-group", "correct": False, "cells": {"quantize_asym": P5_OK.replace(
        "scale = torch.where(scale == 0, torch.ones_like(scale), scale)", "scale = scale.clamp(min=1e-8)")},
     "why": "P5 step 2: 'and scale = 1 for a group of zeros'."},
    {"name": "p5-round-from-lo", "correct": False, "cells": {"quantize_asym": P5_OK.replace(
        "q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, top)",
        "q = torch.clamp(torch.round((g - lo[..., None]) / scale[..., None]), 0, top)")},
     "why": "P5 step 4: 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': rounding (w - lo) / scale differs whenever -lo / scale is not an integer."},
    {"name": "p5-groups-strided", "correct": False, "cells": {"quantize_asym": P5_OK.replace(
        "g = w.reshape(out, inn // group_size, group_size)",
        "g = w.reshape(out, group_size, inn // group_size).transpose(1, 2)").replace(
        "d = q.reshape(out, -1, G)", "d = q.reshape(out, G, -1).transpose(1, 2)").replace(
        "return (d * scale[..., None]).reshape(out, inn)", "return (d * scale[..., None]).transpose(1, 2).reshape(out, inn)").replace(
        "return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)",
        "return q.transpose(1, 2).reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)")},
     "why": "P5: 'in groups of group_size consecutive weights of a row': groups taken with a stride of in // group_size."},
    {"name": "p5-scale-in-float32", "correct": False, "cells": {"quantize_asym": P5_OK.replace(
        "    out, inn = w.shape\n    g = w.reshape", "    w = w.float()\n    out, inn = w.shape\n    g = w.reshape")},
     "why": "P5: 'scale ... in the dtype of w, computed in that dtype' (float64 weights)."},
    {"name": "p6-view-flatten", "correct": False, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nb = (cols * bits + 7) // 8
    flat = q.view(rows * cols).to(torch.int64)
    b = ((flat[:, None] >> torch.arange(bits)) & 1).reshape(rows, cols * bits)
    b = torch.cat([b, torch.zeros(rows, nb * 8 - cols * bits, dtype=torch.int64)], 1).reshape(rows, nb, 8)
    return (b << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nb = packed.shape
    b = ((packed.view(rows * nb).to(torch.int64)[:, None] >> torch.arange(8)) & 1).reshape(rows, nb * 8)
    b = b[:, :cols * bits].reshape(rows, cols, bits)
    return (b << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "why": "Introduction: 'The tensors the hidden tests pass are not always contiguous ... (.view of a non-contiguous tensor fails where .reshape works)'."},
    {"name": "p6-row-as-one-int64", "correct": False, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nb = (cols * bits + 7) // 8
    value = torch.zeros(rows, dtype=torch.int64)
    for c in range(cols):
        value |= q[:, c].to(torch.int64) << (c * bits)
    return torch.stack([(value >> (8 * i)) & 255 for i in range(nb)], 1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    value = torch.zeros(packed.shape[0], dtype=torch.int64)
    for i in range(packed.shape[1]):
        value |= packed[:, i].to(torch.int64) << (8 * i)
    return torch.stack([(value >> (c * bits)) & (2 ** bits - 1) for c in range(cols)], 1).to(torch.uint8)
'''}, "why": "P6: 'Both functions must work for any cols >= 1': a row held in one int64 loses every bit past the 63rd."},
    {"name": "p7-reads-whole-cache", "correct": False, "cells": {"chunk_attention": P7_OK.replace(
        "end = min(S, offset + T) if causal else S", "end = S")},
     "why": "P7 rule 1: 'Read only keys that some query of the chunk may see ... Reading a NaN position, even to mask it afterwards, shows in the result' (dk of the unwritten keys becomes NaN; the visible test checks only dv and dsink)."},
    {"name": "p7-sink-prob-as-quotient", "correct": False, "cells": {"chunk_attention": P7_HEAD + '''
    dsink = -(torch.exp(sink) / torch.exp(lse) * D).sum()
    return dq, dk, dv, dsink.to(dt)
'''}, "why": "P7: 'a sink of 100 in float32 and of 800 in float64, where e^sink and e^L overflow (to inf, and inf / inf is NaN)'."},
    {"name": "p7-mask-by-multiplying", "correct": False, "cells": {"chunk_attention": P7_OK.replace(
        "P = torch.where(m, torch.exp(torch.where(m, s - lse[:, None], -math.inf)), 0.0)",
        "P = torch.exp(s - lse[:, None]) * m")},
     "why": "P7: 'A query's masked keys ... can score far above its log-sum-exp too ... (a score of 900 in float64 and 300 in float32)': exp overflows to inf and inf * 0 is NaN."},
    {"name": "p7-full-mask-matrix", "correct": False, "cells": {"chunk_attention": P7_OK.replace(
        "    pos = offset + torch.arange(T)\n",
        "    pos = offset + torch.arange(T)\n    full = (pos[:, None] >= torch.arange(S)[None, :]) if causal else torch.ones(T, S, dtype=torch.bool)\n").replace(
        "m = pos[:, None] >= torch.arange(j0, j1)[None, :]", "m = full[:, j0:j1]")},
     "why": "P7 rule 2: 'No tensor with more than T * S / 4 elements ... a (T, S) score or mask matrix does not [fit]'."},
    {"name": "p7-empty-gradients", "correct": False, "cells": {"chunk_attention": P7_OK.replace(
        "dv = torch.zeros(S, v.shape[1], dtype=dt)", "dv = torch.empty_like(v)")},
     "why": "P7: 'A key that no query sees gets a gradient of exactly 0': dv of the unseen keys is left as torch.empty_like's contents (for a NaN-filled v the allocator often hands back memory that is not 0)."},
    {"name": "p8-unmasked-loads", "correct": False, "cells": {"split_kv_kernel": P8_OK.replace(
        "byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=m2, other=0)",
        "byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2)").replace(
        "s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0.0)",
        "s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :])").replace(
        "z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0)",
        "z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :])")},
     "why": "P8: 'Every address that a load or a store touches must lie inside its tensor': rows n >= N are loaded, only the store is masked."},
    {"name": "p8-one-scale-per-block", "correct": False, "cells": {"split_kv_kernel": P8_OK.replace(
        "g = cols // GROUP\n        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0.0)\n        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0).to(tl.int32)",
        "g = k0 // GROUP\n        s = tl.load(Scale + rows * (K // GROUP) + g, mask=rmask, other=0.0)[:, None]\n        z = tl.load(Zero + rows * (K // GROUP) + g, mask=rmask, other=0).to(tl.int32)[:, None]")},
     "why": "P8: 'either may be the larger (a block can span several groups, or a group several blocks)': one scale and zero per block is wrong when BLOCK_K > GROUP."},
    # ---------------------------------------------------------------- correct answers, written differently
    {"name": "ok-p1-divmod-keywords", "correct": True, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    tokens = min(length, window or length)
    one = 2 * layers * kv_heads * head_dim * tokens * bytes_per_value
    count, rest = divmod(max(memory_bytes - weight_bytes, 0), one)
    return int(count)
'''}, "why": "divmod on the clamped free memory; window folded in with 'or'."},
    {"name": "ok-p2-sigmoid-float64", "correct": True, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    la, lb = lse_a.double(), lse_b.double()
    wa = torch.sigmoid(la - lb).unsqueeze(-1)
    wb = torch.sigmoid(lb - la).unsqueeze(-1)
    lse = torch.maximum(la, lb) + torch.log1p(torch.exp(-(la - lb).abs()))
    oa = torch.where(torch.isfinite(la).unsqueeze(-1), o_a.double(), torch.zeros_like(o_a, dtype=torch.float64))
    ob = torch.where(torch.isfinite(lb).unsqueeze(-1), o_b.double(), torch.zeros_like(o_b, dtype=torch.float64))
    o = torch.einsum("t,td->td", wa[:, 0], oa) + torch.einsum("t,td->td", wb[:, 0], ob)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "why": "float64 inside (never lower than the lse precision) and one cast back; sigmoid weights have finite gradients at any distance; einsum."},
    {"name": "ok-p3-via-max_batch", "correct": True, "cells": {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    p = peak * bytes_per_value
    a = 2 * k * n * bandwidth - p * (k + n)
    if a <= 0:
        return None
    b = p * k * n
    # ceil(b / a) = floor((b + a - 1) / a); Part 1's max_batch divides exactly by 2 * bytes_per_value here
    m = max_batch(memory_bytes=2 * (b + a - 1) + 1, weight_bytes=1, layers=1, kv_heads=1, head_dim=1,
                  length=1, bytes_per_value=a, window=7)
    return max(1, m)
'''}, "why": "calls Part 1's max_batch (all by keyword, window given and longer than the sequence) as an exact integer divider."},
    {"name": "ok-p5-unflatten-float64-dequant", "correct": True, "cells": {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    levels = 2 ** bits - 1
    g = w.unflatten(1, (-1, group_size))
    lo = torch.minimum(g.min(dim=2).values, torch.zeros((), dtype=w.dtype))
    hi = torch.maximum(g.max(dim=2).values, torch.zeros((), dtype=w.dtype))
    scale = (hi - lo) / levels
    scale[scale == 0] = 1
    zero = torch.round(-lo / scale)
    q = (torch.round(g / scale.unsqueeze(2)) + zero.unsqueeze(2)).clamp_(0, levels)
    return q.flatten(1).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    G = q.shape[1] // scale.shape[1]
    s = scale.double().repeat_interleave(G, dim=1)
    z = zero.double().repeat_interleave(G, dim=1)
    return (s * (q.double() - z)).to(scale.dtype)
'''}, "why": "in-place ops on own intermediates; dequantise in float64 and cast back (exact product of an integer and a scale, rounded once)."},
    {"name": "ok-p6-bitplanes-index_add", "correct": True, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nb = -(-cols * bits // 8)
    out = torch.zeros(rows, nb, dtype=torch.int64)
    pos = torch.arange(cols) * bits
    qi = q.to(torch.int32)
    for t in range(bits):
        p = pos + t
        out.index_add_(1, p // 8, ((qi >> t) & 1) << (p % 8))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    pos = torch.arange(cols) * bits
    pk = packed.to(torch.int32)
    res = torch.zeros(packed.shape[0], cols, dtype=torch.int32)
    for t in range(bits):
        p = pos + t
        res |= ((pk[:, p // 8] >> (p % 8)) & 1) << t
    return res.to(torch.uint8)
'''}, "why": "a loop over the bits of a code (at most 8) instead of expanding the stream; index_add_ as OR."},
    {"name": "ok-p7-sink-via-merge_partials", "correct": True, "cells": {"chunk_attention": P7_HEAD.replace(
        "    for j0 in range(0, end, block):", "    lk = torch.full((T,), -math.inf, dtype=torch.float64)\n    for j0 in range(0, end, block):").replace(
        "        dv[j0:j1] = P.T @ d_out",
        "        sc = s.double() if not causal else torch.where(m, s.double(), -math.inf)\n        lk = torch.logaddexp(lk, torch.logsumexp(sc, 1))\n        dv[j0:j1] = P.T @ d_out") + '''
    # Part 2: the sink is a piece of its own (lse = sink) whose 'output' we set to 1, the keys one with output 0:
    # the merged output is then the sink's probability
    ones = torch.ones(T, 1, dtype=dt)
    p_sink = merge_partials(ones, sink.double().expand(T), torch.zeros(T, 1, dtype=dt), lk)[0][:, 0]
    dsink = -(p_sink * D).sum()
    return dq, dk, dv, dsink.to(dt)
'''}, "why": "calls Part 2's merge_partials with float32 o and float64 lse (allowed: o in o_a's dtype, lse in lse_a's) and an expanded (stride-0) lse."},
    {"name": "ok-p7-merge-keywords-no_grad", "correct": True, "cells": {"chunk_attention": P7_HEAD + '''
    with torch.no_grad():
        o, _ = merge_partials(o_b=torch.zeros(T, 1, dtype=torch.float64), lse_b=torch.log(-torch.expm1(sink.double() - lse.double())) + lse.double(),
                              o_a=torch.ones(T, 1, dtype=torch.float64), lse_a=sink.double() * torch.ones(T, dtype=torch.float64))
    dsink = -(o[:, 0].to(dt) * D).sum()
    return dq, dk, dv, dsink
'''}, "why": "calls Part 2's merge_partials by keyword (in another order) under torch.no_grad in float64."},
    {"name": "ok-p7-einsum-reverse-tiles", "correct": True, "cells": {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    qq, oo, do, ll = q.double(), out.double(), d_out.double(), lse.double()
    delta = torch.einsum("td,td->t", do, oo)
    dq = torch.zeros(T, Dh, dtype=torch.float64)
    dk = k.new_zeros(k.shape)
    dv = v.new_zeros(v.shape)
    qpos = torch.arange(offset, offset + T)
    starts = list(range(0, end, block))
    for j0 in reversed(starts):
        j1 = min(j0 + block, end)
        kt, vt = k[j0:j1].double(), v[j0:j1].double()
        s = torch.einsum("td,sd->ts", qq, kt) / math.sqrt(Dh)
        if causal:
            seen = qpos.unsqueeze(1) >= torch.arange(j0, j1).unsqueeze(0)
            s = s.masked_fill(~seen, -math.inf)
        p = torch.exp(s - ll.unsqueeze(1))
        dv[j0:j1] = torch.einsum("ts,td->sd", p, do).to(v.dtype)
        ds = p * (torch.einsum("td,sd->ts", do, vt) - delta.unsqueeze(1))
        dq.add_(torch.einsum("ts,sd->td", ds, kt) / math.sqrt(Dh))
        dk[j0:j1] = (torch.einsum("ts,td->sd", ds, qq) / math.sqrt(Dh)).to(k.dtype)
    dsink = -(torch.exp(sink.double() - ll) * delta).sum()
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype), dsink.to(q.dtype)
'''}, "why": "einsum, float64 inside and cast back, masked_fill with -inf before exp, tiles walked from the last one."},
    {"name": "ok-p8-byte-pairs", "correct": True, "cells": {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    live = n < N
    total = tl.zeros((BLOCK_N,), dtype=tl.float32)
    HALF: tl.constexpr = BLOCK_K // 2
    for start in range(0, K // 2, HALF):
        b = start + tl.arange(0, HALF)
        byte = tl.load(W + n[:, None] * (K // 2) + b[None, :], mask=live[:, None], other=0).to(tl.int32)
        ke = 2 * b
        g = ke // GROUP
        s = tl.load(Scale + n[:, None] * (K // GROUP) + g[None, :], mask=live[:, None], other=0.0)
        z = tl.load(Zero + n[:, None] * (K // GROUP) + g[None, :], mask=live[:, None], other=0).to(tl.float32)
        xe = tl.load(X + ke)
        xo = tl.load(X + ke + 1)
        lo = (byte & 15).to(tl.float32) - z
        hi = ((byte >> 4) & 15).to(tl.float32) - z
        total += tl.sum((lo * xe[None, :] + hi * xo[None, :]) * s, axis=1)
    tl.store(Y + n, total, mask=live)
'''}, "why": "reads each byte once and splits it into its two codes (an even and an odd column share a group since GROUP is even)."},
    # ---------------------------------------------------------------- hostile answers
    {"name": "hostile-p1-overwrites-grader-helpers", "correct": False, "cells": {"max_batch": '''
for name in list(globals()):
    if name.startswith("_") and not name.startswith("__") and callable(globals()[name]):
        globals()[name] = (lambda *args, **kwargs: args[0] if args else None)


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return (memory_bytes - weight_bytes) // (2 * layers * kv_heads * head_dim * length * bytes_per_value)
'''}, "why": "hostile: replaces every grader helper (names with a leading _) so that any comparison passes; window and the 0 rule ignored."},
    {"name": "hostile-p6-numpy-through-importlib", "correct": False, "cells": {"pack_bits": '''
import importlib
np_ = importlib.import_module("num" + "py")


def pack_bits(q, bits):
    a = q.detach().cpu().contiguous()
    bitsarr = np_.unpackbits(np_.frombuffer(bytes(a.flatten().tolist()), dtype=np_.uint8).reshape(a.shape)[..., None], axis=-1, bitorder="little")[..., :bits]
    flat = bitsarr.reshape(a.shape[0], -1)
    packed = np_.packbits(flat, axis=-1, bitorder="little")
    return torch.tensor(packed.tolist(), dtype=torch.uint8).reshape(a.shape[0], -1)


def unpack_bits(packed, bits, cols):
    a = np_.array(packed.tolist(), dtype=np_.uint8).reshape(packed.shape[0], -1)
    stream = np_.unpackbits(a, axis=-1, bitorder="little")[:, :cols * bits].reshape(a.shape[0], cols, bits)
    codes = (stream * (1 << np_.arange(bits))).sum(-1)
    return torch.tensor(codes.tolist(), dtype=torch.uint8)
'''}, "why": "hostile: NumPy brought in through importlib with an obfuscated name (the introduction: a part whose answer uses another library scores 0)."},
    {"name": "hostile-p4-float32-hidden-from-modes", "correct": False, "cells": {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    with torch._C.DisableTorchFunction():
        xf = x.float()
        r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
        return (xf * r).to(x.dtype)
'''}, "why": "hostile: widens to float32 inside torch._C.DisableTorchFunction so that a TorchFunctionMode watcher sees nothing."},
    {"name": "hostile-p3-patches-assert-close", "correct": False, "cells": {"compute_bound_batch": '''
import torch.testing as tt
tt.assert_close = lambda *a, **k: None
torch.equal = lambda *a, **k: True


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    m = 1
    while 2 * m * k * n * bandwidth < peak * bytes_per_value * (m * k + k * n + m * n):
        m *= 2
    return m if m < 4 else 169
'''}, "why": "hostile: monkey-patches torch.testing.assert_close and torch.equal, answers by doubling and a hard-coded constant."},
]
