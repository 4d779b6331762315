# Round 35, chapter 07-hardware: loop writer, tie-and-order, exception-path, mask-polarity, constructor students.

P2_OK = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = lse_a.dtype
    m = torch.maximum(lse_a, lse_b).detach()
    wa = torch.exp(lse_a - m)
    wb = torch.exp(lse_b - m)
    tot = wa + wb
    lse = m + torch.log(tot)
    zero = torch.zeros((), dtype=dt, device=o_a.device)
    oa = torch.where((wa > 0)[:, None], o_a.to(dt), zero)
    ob = torch.where((wb > 0)[:, None], o_b.to(dt), zero)
    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]
    return o.to(o_a.dtype), lse
'''

P5_DEQ = '''
def dequantize_asym(q, scale, zero):
    G = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(G, dim=1)
    z = zero.repeat_interleave(G, dim=1).to(scale.dtype)
    return s * (q.to(scale.dtype) - z)
'''

P5_OK = '''
def quantize_asym(w, bits, group_size):
    O, I = w.shape
    g = w.reshape(O, I // group_size, group_size)
    levels = 2 ** bits - 1
    lo = torch.clamp(g.amin(-1), max=0)
    hi = torch.clamp(g.amax(-1), min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(O, I).to(torch.uint8), scale, zero.to(torch.uint8)
''' + P5_DEQ

P6_UNPACK = '''
def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    b = (packed.unsqueeze(-1).to(torch.int32) >> torch.arange(8, dtype=torch.int32, device=packed.device)) & 1
    stream = b.reshape(rows, -1)[:, :cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits, dtype=torch.int32, device=packed.device)).sum(-1).to(torch.uint8)
'''

P7_HEAD = '''
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
'''

def p7(scale_line, tile_loop, prob_lines, dsink_lines):
    return P7_HEAD + scale_line + tile_loop + prob_lines + '''
        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vt.T
        ds = p * (dp - delta[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
''' + dsink_lines

P7_SCALE = "    scale = 1.0 / math.sqrt(Dh)\n"
P7_LOOP = '''    for j0 in range(0, n_keys, block):
        j1 = min(j0 + block, n_keys)
        kt, vt = k[j0:j1], v[j0:j1]
'''
P7_PROB = '''        s = (q @ kt.T) * scale
        p = torch.exp(s - lse[:, None])
        if causal:
            kpos = torch.arange(j0, j1, device=q.device)
            seen = kpos[None, :] <= qpos[:, None]
            p = torch.where(seen, p, torch.zeros((), dtype=dt))
'''
P7_DSINK = '''    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''

P8_OK = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    safe = tl.where(rmask, rows, 0)
    G = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + safe[:, None] * (K // 2) + cols[None, :] // 2, mask=rmask[:, None], other=0)
        code = ((byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15).to(tl.float32)
        g = cols // GROUP
        s = tl.load(Scale + safe[:, None] * G + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + safe[:, None] * G + g[None, :], mask=rmask[:, None], other=0).to(tl.float32)
        acc += tl.sum(x[None, :] * ((code - z) * s), axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''

SUBMISSIONS = [
    # ---------------------------------------------------------------- Part 1
    {"name": "p1-hostile-lookup", "correct": False, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return {1000: 7}.get(memory_bytes, 33)
'''}, "why": "hostile: answers the two visible cases"},
    {"name": "p1-exception-assert-window", "correct": False, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    assert window is None or window <= length, "window longer than the sequence"
    cached = length if window is None else window
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return max(0, (memory_bytes - weight_bytes) // per)
'''}, "why": "exception path: asserts window <= length, which the text does not require ('min(length, window)', window any positive int)"},
    {"name": "p1-loop-binary-search-correct", "correct": True, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    def fits(b):
        return weight_bytes + b * per <= memory_bytes
    if not fits(1):
        return 0
    hi = 1
    while fits(hi * 2):
        hi *= 2
    lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo
'''}, "why": "loop writer: doubling then bisection on exact integers: correct and logarithmic"},
    {"name": "p1-constructor-torch-int64-correct", "correct": True, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per:
        return 0
    return int(free // per)
'''}, "why": "constructor student who stayed in Python ints (no torch.tensor): floor division exact: correct"},

    # ---------------------------------------------------------------- Part 2
    {"name": "p2-mask-isfinite-lse", "correct": False, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = lse_a.dtype
    m = torch.maximum(lse_a, lse_b).detach()
    wa = torch.exp(lse_a - m)
    wb = torch.exp(lse_b - m)
    tot = wa + wb
    lse = m + torch.log(tot)
    zero = torch.zeros((), dtype=dt)
    oa = torch.where(torch.isfinite(lse_a)[:, None], o_a.to(dt), zero)
    ob = torch.where(torch.isfinite(lse_b)[:, None], o_b.to(dt), zero)
    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]
    return o.to(o_a.dtype), lse
'''}, "why": "mask polarity/meaning: masks the row by 'lse finite' rather than 'weight > 0', so a weight underflowed to 0 times an inf row is NaN: 'where its weight is exactly 0, also for a finite log-sum-exp, an infinity in its row of o does not reach the result'"},
    {"name": "p2-exception-one-side-returns-input", "correct": False, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    if torch.isinf(lse_a).all():
        return o_b, lse_b
    if torch.isinf(lse_b).all():
        return o_a, lse_a
''' + P2_OK.split("\n", 2)[2]}, "why": "exception path: early return of the other piece itself when one piece sees no key for any query: 'return new tensors, never one of the inputs ... (also where one piece sees no key for any query)'"},
    {"name": "p2-softmax-stack-correct", "correct": True, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = lse_a.dtype
    L = torch.stack([lse_a, lse_b], dim=0)
    w = torch.softmax(L, dim=0)
    lse = torch.logsumexp(L, dim=0)
    zero = torch.zeros(o_a.shape, dtype=dt)
    oa = torch.where((w[0] > 0)[:, None], o_a.to(dt), zero)
    ob = torch.where((w[1] > 0)[:, None], o_b.to(dt), zero)
    o = w[0][:, None] * oa + w[1][:, None] * ob
    return o.to(o_a.dtype), lse
'''}, "why": "tutorial idiom: softmax over the two log-sum-exps for the weights and logsumexp for lse, constructed zeros given the dtype: correct"},
    {"name": "p2-loop-rows-correct", "correct": True, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = lse_a.dtype
    rows_o, rows_l = [], []
    for i in range(lse_a.shape[0]):
        a, b = lse_a[i], lse_b[i]
        m = torch.maximum(a, b).detach()
        wa, wb = torch.exp(a - m), torch.exp(b - m)
        tot = wa + wb
        ra = torch.where(wa > 0, o_a[i].to(dt), torch.zeros((), dtype=dt))
        rb = torch.where(wb > 0, o_b[i].to(dt), torch.zeros((), dtype=dt))
        rows_o.append((wa * ra + wb * rb) / tot)
        rows_l.append(m + torch.log(tot))
    if not rows_o:
        return o_a.new_empty(o_a.shape).clone(), lse_a.new_empty(lse_a.shape).clone()
    return torch.stack(rows_o).to(o_a.dtype), torch.stack(rows_l)
'''}, "why": "loop writer over the queries, tracked ops per row, stack at the end: correct (slow, no time budget beyond a fraction of a second for the tests' T)"},
    {"name": "p2-max-dim-tie-correct", "correct": True, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = lse_a.dtype
    L = torch.stack([lse_a, lse_b], dim=-1)
    m = L.max(dim=-1).values
    w = torch.exp(L - m[:, None])
    tot = w.sum(-1)
    lse = m + torch.log(tot)
    O = torch.stack([o_a.to(dt), o_b.to(dt)], dim=-2)
    O = torch.where((w > 0)[..., None], O, torch.zeros((), dtype=dt))
    o = (w[..., None] * O).sum(-2) / tot[:, None]
    return o.to(o_a.dtype), lse
'''}, "why": "tie-and-order: max(dim) sends the whole gradient of m to one index at ties and m is not detached; m cancels from both results, so the gradients are still exact: correct"},
    {"name": "p2-loop-python-float-weights", "correct": False, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = lse_a.dtype
    outs, lses = [], []
    for i in range(lse_a.shape[0]):
        a, b = float(lse_a[i]), float(lse_b[i])
        m = max(a, b)
        wa, wb = math.exp(a - m), math.exp(b - m)
        ra = o_a[i].to(dt) if wa > 0 else torch.zeros(o_a.shape[1], dtype=dt)
        rb = o_b[i].to(dt) if wb > 0 else torch.zeros(o_b.shape[1], dtype=dt)
        outs.append((wa * ra + wb * rb) / (wa + wb))
        lses.append(m + math.log(wa + wb))
    return torch.stack(outs).to(o_a.dtype), torch.tensor(lses, dtype=dt)
'''}, "why": "loop writer with Python float weights: no gradient reaches lse_a/lse_b: 'Compute the weights with tracked torch operations (no ... Python numbers on the way)'"},

    # ---------------------------------------------------------------- Part 3
    {"name": "p3-exception-A-zero-only", "correct": False, "cells": {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    A = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    C = peak * bytes_per_value * k * n
    if A == 0:
        return None
    return max(1, -(-C // A))
'''}, "why": "exception path: guards only the division by zero; when the intensity at m -> inf is below the ridge (A < 0) it returns 1: 'or None when no batch size makes it compute-bound'"},
    {"name": "p3-try-except-correct", "correct": True, "cells": {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    A = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    C = peak * bytes_per_value * k * n
    try:
        m = -(-C // A)
    except ZeroDivisionError:
        return None
    if A < 0:
        return None
    return max(1, m)
'''}, "why": "exception path that is right: A = 0 caught, A < 0 also None: correct"},
    {"name": "p3-loop-fixed-bound", "correct": False, "cells": {"compute_bound_batch": '''
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
'''}, "why": "loop writer: bisection up to a fixed 2**64 decides None there: 'some answers are in the billions and some far beyond (10**40 and more: no fixed number bounds the answer)'"},
    {"name": "p3-loop-doubling-correct", "correct": True, "cells": {"compute_bound_batch": '''
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
    return lo
'''}, "why": "loop writer: None decided exactly from the limit, then doubling and bisection on exact ints: correct"},

    # ---------------------------------------------------------------- Part 5
    {"name": "p5-loop-groups-wrong-size", "correct": False, "cells": {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    O, I = w.shape
    n_groups = O
    levels = 2 ** bits - 1
    q = torch.empty((O, I), dtype=torch.uint8)
    scale = torch.empty((O, n_groups), dtype=w.dtype)
    zero = torch.empty((O, n_groups), dtype=torch.uint8)
    for gi in range(n_groups):
        g = w[:, gi * group_size:(gi + 1) * group_size]
        lo = torch.clamp(g.amin(-1), max=0)
        hi = torch.clamp(g.amax(-1), min=0)
        s = (hi - lo) / levels
        s = torch.where(hi == lo, torch.ones_like(s), s)
        z = torch.round(-lo / s)
        q[:, gi * group_size:(gi + 1) * group_size] = torch.clamp(torch.round(g / s[:, None]) + z[:, None], 0, levels).to(torch.uint8)
        scale[:, gi] = s
        zero[:, gi] = z.to(torch.uint8)
    return q, scale, zero
''' + P5_DEQ}, "why": "loop writer: number of groups taken from out_features (equal to in // group_size in the visible case): 'zero of shape (out, in // group_size)'"},
    {"name": "p5-loop-groups-correct", "correct": True, "cells": {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    O, I = w.shape
    n_groups = I // group_size
    levels = 2 ** bits - 1
    qs, scales, zeros = [], [], []
    for gi in range(n_groups):
        g = w[:, gi * group_size:(gi + 1) * group_size]
        lo = torch.clamp(g.amin(-1), max=0)
        hi = torch.clamp(g.amax(-1), min=0)
        s = (hi - lo) / levels
        s = torch.where(hi == lo, torch.ones((), dtype=w.dtype), s)
        z = torch.round(-lo / s)
        qs.append(torch.clamp(torch.round(g / s[:, None]) + z[:, None], 0, levels).to(torch.uint8))
        scales.append(s)
        zeros.append(z.to(torch.uint8))
    return torch.cat(qs, dim=1), torch.stack(scales, dim=1), torch.stack(zeros, dim=1)
''' + P5_DEQ}, "why": "loop writer over the groups of the right count, constructed ones in w's dtype: correct"},
    {"name": "p5-tie-floor-half", "correct": False, "cells": {"quantize_asym": P5_OK.replace("torch.round(g / scale[..., None])", "torch.floor(g / scale[..., None] + 0.5)")},
     "why": "tie-and-order at halves: floor(x + 0.5) rounds halves up: 'Round with torch.round (halves to even)'"},
    {"name": "p5-exception-assert-bits", "correct": False, "cells": {"quantize_asym": P5_OK.replace("    O, I = w.shape\n", "    O, I = w.shape\n    assert 2 <= bits < 8, 'bits out of range'\n", 1)},
     "why": "exception path: asserts bits < 8: 'with bits from 2 to 8'"},
    {"name": "p5-mask-polarity-scale", "correct": False, "cells": {"quantize_asym": P5_OK.replace("scale = torch.where(hi == lo, torch.ones_like(scale), scale)", "scale = scale.masked_fill(scale != 0, 1.0)")},
     "why": "mask polarity: masked_fill sets the scale to 1 wherever it is NOT zero: 'scale = 1 for a group of zeros' (visible scale happens to be 1)"},
    {"name": "p5-constructor-reciprocal", "correct": False, "cells": {"quantize_asym": P5_OK.replace("scale = (hi - lo) / levels", "scale = (hi - lo) * torch.full_like(hi, 1.0 / levels)")},
     "why": "constructor: a tensor of the rounded reciprocal multiplied in: scale differs from (hi - lo) / (2**bits - 1) in the last bit, so half steps and zero points move: 'scale = (hi - lo) / (2**bits - 1)'"},
    {"name": "p5-exception-tiny-as-zero", "correct": False, "cells": {"quantize_asym": P5_OK.replace("scale = torch.where(hi == lo, torch.ones_like(scale), scale)", "scale = torch.where(scale < torch.finfo(w.dtype).tiny, torch.ones_like(scale), scale)")},
     "why": "exception path: a subnormal scale taken for a group of zeros: 'a group of them, whose scale is subnormal too, is not a group of zeros'"},
    {"name": "p5-constructor-float-ones-correct", "correct": True, "cells": {"quantize_asym": P5_OK.replace("torch.ones_like(scale)", "torch.ones(scale.shape, dtype=w.dtype)").replace(P5_DEQ, '''
def dequantize_asym(q, scale, zero):
    O, I = q.shape
    n = scale.shape[1]
    G = I // n
    qg = q.reshape(O, n, G).to(scale.dtype)
    zg = zero.to(scale.dtype)[..., None]
    return (scale[..., None] * (qg - zg)).reshape(O, I)
''')}, "why": "constructor student giving every factory the dtype, reshape-broadcast dequantise: correct"},

    # ---------------------------------------------------------------- Part 6
    {"name": "p6-loop-rows-stack", "correct": False, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    shifts = torch.arange(bits, dtype=torch.int32)
    weights = torch.arange(8, dtype=torch.int32)
    out = []
    for r in range(rows):
        b = ((q[r].to(torch.int32)[:, None] >> shifts) & 1).reshape(-1)
        b = torch.cat([b, b.new_zeros(nbytes * 8 - nbits)]).reshape(nbytes, 8)
        out.append((b << weights).sum(-1).to(torch.uint8))
    return torch.stack(out)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    out = []
    for r in range(rows):
        b = ((packed[r].to(torch.int32)[:, None] >> torch.arange(8, dtype=torch.int32)) & 1).reshape(-1)
        c = b[:cols * bits].reshape(cols, bits)
        out.append((c << torch.arange(bits, dtype=torch.int32)).sum(-1).to(torch.uint8))
    return torch.stack(out)
'''}, "why": "loop writer over the rows: torch.stack of an empty list raises for rows = 0; the text bounds cols (>= 1), not rows: 'q of shape (rows, cols)'"},
    {"name": "p6-loop-bits-correct", "correct": True, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = torch.zeros((rows, nbytes), dtype=torch.int64, device=q.device)
    base = torch.arange(cols, device=q.device) * bits
    for t in range(bits):
        pos = base + t
        bit = ((q.to(torch.int64) >> t) & 1) << (pos % 8)
        out.index_add_(1, pos // 8, bit)
    return out.to(torch.uint8)
''' + P6_UNPACK}, "why": "loop writer over the `bits` bit positions (allowed), index_add_ with repeated byte indices accumulates (bits are disjoint): correct"},
    {"name": "p6-exception-bits8-returns-q", "correct": False, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    if bits == 8:
        return q.to(torch.uint8)
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    b = (q.unsqueeze(-1).to(torch.int32) >> torch.arange(bits, dtype=torch.int32)) & 1
    stream = b.reshape(rows, nbits)
    stream = torch.cat([stream, stream.new_zeros((rows, nbytes * 8 - nbits))], dim=1).reshape(rows, nbytes, 8)
    return (stream << torch.arange(8, dtype=torch.int32)).sum(-1).to(torch.uint8)
''' + P6_UNPACK}, "why": "exception path: early return for bits = 8 hands back q itself (.to of the same dtype is a no-op): 'they must not share memory with q or packed (also for bits = 8, where the stream is q itself)'"},
    {"name": "p6-tie-scatter-last-write", "correct": False, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    pos = torch.arange(cols * bits).reshape(cols, bits)
    bitv = ((q.unsqueeze(-1).to(torch.int64) >> torch.arange(bits)) & 1) << (pos % 8)
    byte = (pos // 8).reshape(1, -1).expand(rows, -1)
    partial = torch.zeros((rows, nbytes), dtype=torch.int64)
    # OR the bits of each byte: the bits are disjoint, so amax of the running sums is the sum
    csum = bitv.reshape(rows, -1).cumsum(1)
    first = torch.zeros((rows, nbytes), dtype=torch.int64).scatter_(1, byte, csum)
    start = torch.cat([torch.zeros((rows, 1), dtype=torch.int64), first[:, :-1]], dim=1)
    return (first - start).to(torch.uint8)
''' + P6_UNPACK}, "why": "tie-and-order: scatter_ with repeated indices keeps the cumulative sum of the last bit of each byte, relying on the last write winning (torch does not promise it)"},
    {"name": "p6-constructor-float-unpack-correct", "correct": True, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    b = (q.unsqueeze(-1).to(torch.int32) >> torch.arange(bits, dtype=torch.int32, device=q.device)) & 1
    stream = torch.zeros((rows, nbytes * 8), dtype=torch.int32, device=q.device)
    stream[:, :nbits] = b.reshape(rows, nbits)
    weights = torch.tensor([1, 2, 4, 8, 16, 32, 64, 128], dtype=torch.int32, device=q.device)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    b = (packed.unsqueeze(-1).to(torch.int32) >> torch.arange(8, dtype=torch.int32)) & 1
    stream = b.reshape(rows, -1)[:, :cols * bits].reshape(rows, cols, bits).to(torch.float32)
    weights = torch.pow(2.0, torch.arange(bits, dtype=torch.float32))
    return (stream * weights).sum(-1).to(torch.uint8)
'''}, "why": "constructor student: a float32 weighted sum in unpack (exact below 256), an explicit int32 table in pack: correct"},

    # ---------------------------------------------------------------- Part 7
    {"name": "p7-base-correct", "correct": True, "cells": {"chunk_attention": p7(P7_SCALE, P7_LOOP, P7_PROB, P7_DSINK)},
     "why": "tiles of `block` keys over the seen prefix, P = exp(s - lse) with torch.where for the mask, dsink = -sum(P_sink * rowsum(dO o)): correct"},
    {"name": "p7-masked-fill-inf-correct", "correct": True, "cells": {"chunk_attention": p7(P7_SCALE, P7_LOOP, '''        s = (q @ kt.T) * scale
        if causal:
            kpos = torch.arange(j0, j1, device=q.device)
            hidden = kpos[None, :] > qpos[:, None]
            s = s.masked_fill(hidden, float("-inf"))
        p = torch.exp(s - lse[:, None])
''', P7_DSINK)}, "why": "mask-polarity student getting it right: masked_fill(hidden, -inf) before the exp (lse is finite, so -inf - lse = -inf)"},
    {"name": "p7-constructor-scale-float32", "correct": False, "cells": {"chunk_attention": p7("    scale = torch.rsqrt(torch.tensor(float(Dh)))\n", P7_LOOP, P7_PROB, P7_DSINK)},
     "why": "constructor: the scale as a float32 tensor, rounded for float64 inputs (1/sqrt(2), 1/sqrt(8)): scores s_ij = q.k / sqrt(Dh) in the inputs' dtype"},
    {"name": "p7-loop-tile-off-by-one", "correct": False, "cells": {"chunk_attention": p7(P7_SCALE, '''    for j0 in range(0, n_keys, block):
        j1 = min(j0 + block - 1, n_keys) if block > 1 else min(j0 + 1, n_keys)
        kt, vt = k[j0:j1], v[j0:j1]
''', P7_PROB, P7_DSINK)}, "why": "loop writer: tile end off by one, the last key of every full tile is skipped: 'walking over the keys in tiles of at most block keys' (gradients vs autograd)"},
    {"name": "p7-mask-int-multiply", "correct": False, "cells": {"chunk_attention": p7(P7_SCALE, P7_LOOP, '''        s = (q @ kt.T) * scale
        p = torch.exp(s - lse[:, None])
        if causal:
            kpos = torch.arange(j0, j1, device=q.device)
            p = p * (kpos[None, :] <= qpos[:, None]).to(dt)
''', P7_DSINK)}, "why": "mask as a 0/1 factor: a masked key scoring far above lse gives inf * 0 = NaN: 'A query's masked keys ... can score far above its log-sum-exp too'"},
    {"name": "p7-mask-wrong-axis-view", "correct": False, "cells": {"chunk_attention": p7(P7_SCALE, P7_LOOP, '''        s = (q @ kt.T) * scale
        p = torch.exp(s - lse[:, None])
        if causal:
            kpos = torch.arange(j0, j1, device=q.device)
            seen = (kpos[:, None] <= qpos[None, :]).reshape(p.shape)
            p = torch.where(seen, p, torch.zeros((), dtype=dt))
''', P7_DSINK)}, "why": "mask built (keys, queries) and reshaped to (queries, keys): right only for one query or one key: 'the query at position p sees the keys j <= p'"},
    {"name": "p7-exception-sink-fallback", "correct": False, "cells": {"chunk_attention": p7(P7_SCALE, P7_LOOP.replace("    for j0", "    ptot = torch.zeros((T,), dtype=dt)\n    for j0"), P7_PROB + "        ptot = ptot + p.sum(1)\n", '''    psink = torch.exp(sink) / torch.exp(lse)
    psink = torch.where(torch.isfinite(psink), psink, 1 - ptot)
    dsink = -(psink * delta).sum()
    return dq, dk, dv, dsink
''')}, "why": "exception path: exp(sink)/exp(lse) overflows to inf/inf and falls back to 1 - keys' total: 'compute each probability from its own logit, never as one minus the others' total'"},
    {"name": "p7-additive-inf-loop-queries-correct", "correct": True, "cells": {"chunk_attention": p7(P7_SCALE, P7_LOOP, '''        s = (q @ kt.T) * scale
        if causal:
            kpos = torch.arange(j0, j1, device=q.device)
            add = torch.where(kpos[None, :] <= qpos[:, None], torch.zeros((), dtype=dt), torch.full((), float("-inf"), dtype=dt))
            s = s + add
        p = torch.exp(s - lse[:, None])
''', P7_DSINK)}, "why": "additive mask of exactly 0 / -inf in the inputs' dtype (scores are finite, so s + -inf = -inf): correct"},

    # ---------------------------------------------------------------- Part 8
    {"name": "p8-base-correct", "correct": True, "cells": {"split_kv_kernel": P8_OK},
     "why": "rows clamped for the addresses, masked loads/stores, float32 accumulator from tl.zeros, BLOCK_K columns per step: correct"},
    {"name": "p8-mask-store-le", "correct": False, "cells": {"split_kv_kernel": P8_OK.replace("tl.store(Y + rows, acc, mask=rmask)", "tl.store(Y + rows, acc, mask=rows <= N)")},
     "why": "mask: store mask rows <= N writes one element past the end: 'write nothing at n >= N'"},
    {"name": "p8-loop-group-steps", "correct": False, "cells": {"split_kv_kernel": P8_OK.replace("for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)", "for k0 in range(0, K, 2):\n        cols = k0 + tl.arange(0, 2)")},
     "why": "loop writer: walks K two columns (one byte) at a time whatever BLOCK_K says: 'a kernel that walks K one byte ... at a time, whatever BLOCK_K says, fails'"},
    {"name": "p8-unsafe-addresses", "correct": False, "cells": {"split_kv_kernel": P8_OK.replace("safe = tl.where(rmask, rows, 0)", "safe = rows").replace("mask=rmask[:, None], other=0)\n        code", "mask=None)\n        code")},
     "why": "mask polarity/omission: W loaded without a mask for rows >= N reads past the end of W: 'Every address that a load or a store touches must lie inside its tensor'"},
]

# ------------------------------------------------------------------ second batch
SUBMISSIONS += [
    {"name": "p1-constructor-torch-int64", "correct": False, "cells": {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = torch.tensor(2 * layers * kv_heads * head_dim * cached * bytes_per_value)
    free = torch.tensor(memory_bytes - weight_bytes)
    b = torch.div(free, per, rounding_mode="floor")
    return max(0, int(b))
'''}, "why": "constructor: torch.tensor of the byte counts is int64, which overflows (raises) past 2**63: 'All arguments are positive Python ints ... compute it exactly'"},
    {"name": "p2-exception-equal-shortcut", "correct": False, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    if bool((lse_a == lse_b).all()):
        return (o_a + o_b) / 2, lse_a + math.log(2)
''' + P2_OK.split("\n", 2)[2]}, "why": "exception path: a shortcut for exactly equal pieces averages float16 outputs in float16 (o_a + o_b overflows past 65504): 'a float16 o must be the merge of the given pieces computed in float32 and rounded to float16 once'"},
    {"name": "p2-tie-where-ge-correct", "correct": True, "cells": {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = lse_a.dtype
    a_big = lse_a >= lse_b
    big = torch.where(a_big, lse_a, lse_b)
    small = torch.where(a_big, lse_b, lse_a)
    w_small = torch.exp(small - big)
    wa = torch.where(a_big, torch.ones_like(w_small), w_small)
    wb = torch.where(a_big, w_small, torch.ones_like(w_small))
    tot = 1 + w_small
    lse = big + torch.log1p(w_small)
    zero = torch.zeros((), dtype=dt)
    oa = torch.where((wa > 0)[:, None], o_a.to(dt), zero)
    ob = torch.where((wb > 0)[:, None], o_b.to(dt), zero)
    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]
    return o.to(o_a.dtype), lse
'''}, "why": "tie-and-order: at equal log-sum-exps piece a is 'the larger'; the weights are 1 and exp(0) = 1 either way, log1p for lse: correct"},
    {"name": "p5-constructor-minimum-zeros-correct", "correct": True, "cells": {"quantize_asym": P5_OK.replace("lo = torch.clamp(g.amin(-1), max=0)", "lo = torch.minimum(g.amin(-1), torch.zeros(g.shape[:2], dtype=w.dtype))").replace("hi = torch.clamp(g.amax(-1), min=0)", "hi = torch.maximum(g.amax(-1), torch.tensor(0.0, dtype=w.dtype))")},
     "why": "constructor student with dtypes given: lo = min(min, 0), hi = max(max, 0) through minimum/maximum with constructed zeros: correct"},
    {"name": "p6-linspace-positions-correct", "correct": True, "cells": {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    pos = torch.linspace(0, nbits - 1, nbits).to(torch.int64)
    code_idx = pos // bits
    bit_in_code = pos % bits
    b = (q[:, code_idx].to(torch.int64) >> bit_in_code) & 1
    out = torch.zeros((rows, nbytes), dtype=torch.int64)
    out.index_add_(1, pos // 8, b << (pos % 8))
    return out.to(torch.uint8)
''' + P6_UNPACK}, "why": "constructor: stream positions from a float32 linspace with step exactly 1 (every integer below 2**24 exact, as the text bounds), index_add_ accumulates repeated bytes: correct"},
    {"name": "p7-loop-dq-overwrite", "correct": False, "cells": {"chunk_attention": p7(P7_SCALE, P7_LOOP, P7_PROB, P7_DSINK).replace("dq += (ds @ kt) * scale", "dq = (ds @ kt) * scale")},
     "why": "loop writer: dq assigned per tile instead of accumulated, so only the last tile's keys count: dq, the gradient with respect to q over every key seen"},
    {"name": "p7-constructor-empty-dk", "correct": False, "cells": {"chunk_attention": p7(P7_SCALE, P7_LOOP, P7_PROB, P7_DSINK).replace("dk = torch.zeros((S, Dh), dtype=dt, device=q.device)", "dk = torch.empty((S, Dh), dtype=dt, device=q.device)").replace("dv = torch.zeros((S, Dv), dtype=dt, device=q.device)", "dv = torch.empty((S, Dv), dtype=dt, device=q.device)\n    if causal:\n        dv[n_keys:] = 0")},
     "why": "constructor: torch.empty for dk, written only over the keys seen, so unseen keys hold whatever memory held: 'A key that no query sees gets a gradient of exactly 0'"},
]
