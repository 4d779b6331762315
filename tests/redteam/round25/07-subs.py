# Red-team round 25, chapter 07-hardware: submissions written blind (phase 1).
# Kinds: notebook-state (N), approximator (A), log-space (L), direction-and-order (D).
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: notebook-state student
add("N1-chunk-scale-from-example", False, {"chunk_attention": '''
D_HEAD = 2                       # the worked example's head width
SCALE = 1 / math.sqrt(D_HEAD)


def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T = q.shape[0]
    S = k.shape[0]
    last = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    pos = offset + torch.arange(T)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        kt, vt = k[j0:j1], v[j0:j1]
        p = torch.exp((q @ kt.T) * SCALE - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]
            p = torch.where(seen, p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vt.T - delta[:, None])
        dq += (ds @ kt) * SCALE
        dk[j0:j1] = (ds.T @ q) * SCALE
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "Scale fixed at 1/sqrt(2) from the worked example's head width (q is (1, 2)); breaks 'scores s_ij = q_i . k_j / sqrt(D_h)' for any other Dh. The visible case has q = 0, so the scale cancels.")

add("N2-unpack-cols-from-global-q", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    t = torch.arange(bits, dtype=torch.int64)
    stream = ((q.to(torch.int64)[:, :, None] >> t) & 1).reshape(rows, cols * bits)
    stream = torch.cat([stream, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1)
    return (stream.reshape(rows, nbytes, 8) * (2 ** torch.arange(8, dtype=torch.int64))).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    n = q.shape[1]              # the codes' width, as in the cell above (q is the tensor we packed)
    t8 = torch.arange(8, dtype=torch.int64)
    stream = ((packed.to(torch.int64)[:, :, None] >> t8) & 1).reshape(rows, -1)[:, : n * bits]
    return (stream.reshape(rows, n, bits) * (2 ** torch.arange(bits, dtype=torch.int64))).sum(-1).to(torch.uint8)
'''}, "unpack_bits reads the notebook's global q (which the visible test defines) instead of its own `cols` argument; breaks 'Write unpack_bits(packed, bits, cols) ... It needs cols because the last byte may have room for codes that are not there'.")

add("N3-quantize-levels-global", False, {"quantize_asym": '''
bits = 2                      # the example: 2 bits, levels 0..3
LEVELS = 2 ** bits - 1


def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / LEVELS
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, LEVELS)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    n_groups = scale.shape[1]
    g = q.reshape(out_f, n_groups, in_f // n_groups).to(scale.dtype) - zero.to(scale.dtype)[..., None]
    return (g * scale[..., None]).reshape(out_f, in_f)
'''}, "Number of levels taken from a global set for the worked example (bits = 2); breaks 'scale = (hi - lo) / (2**bits - 1)' and 'q in 0 ... 2**bits - 1' for bits 3..8.")

add("N4-pack-position-table-4096", False, {"pack_bits": '''
POSITIONS = torch.arange(4096, dtype=torch.int64)   # built once: enough bit positions for any row I tried
BYTE_WEIGHTS = 2 ** torch.arange(8, dtype=torch.int64)


def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    pos = POSITIONS[: nbytes * 8]
    code = pos // bits
    t = pos % bits
    real = pos < nbits
    src = q.to(torch.int64)[:, code.clamp(max=cols - 1)]
    bit = torch.where(real, (src >> t) & 1, torch.zeros_like(src))
    return (bit.reshape(rows, nbytes, 8) * BYTE_WEIGHTS).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    pos = POSITIONS[: cols * bits]
    stream = (packed.to(torch.int64)[:, pos // 8] >> (pos % 8)) & 1
    return (stream.reshape(rows, cols, bits) * (2 ** torch.arange(bits, dtype=torch.int64))).sum(-1).to(torch.uint8)
'''}, "A table of bit positions built once for 4096 bits and sliced per call; rows of more than 4096 bits get a short table (wrong shape or error). Breaks 'Both functions must work for any cols >= 1 ... (the tests include rows of more than 2**15 bits)'.")

add("N5-max-batch-cache-per-model", False, {"max_batch": '''
PER_SEQUENCE = {}   # cache bytes per sequence per model shape, so repeated sizing is instant


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    model = (layers, kv_heads, head_dim, bytes_per_value)
    if model not in PER_SEQUENCE:
        cached = length if window is None else min(length, window)
        PER_SEQUENCE[model] = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    return (memory_bytes - weight_bytes) // PER_SEQUENCE[model]
'''}, "Caches the cache size per model shape, built from the first call's length and window; a later call with the same model and another length or window reuses it. Breaks 'a KV cache of 2 x layers x kv_heads x head_dim x cached x bytes_per_value bytes' and 'Keep nothing from one call to the next'.")

# ---------------------------------------------------------------- wrong: approximator
add("A1-quant-scale-by-reciprocal", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    inv_levels = 1.0 / (2 ** bits - 1)          # multiply instead of divide: cheaper
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) * inv_levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    inv = 1.0 / scale
    zero = torch.round(-lo * inv)
    q = torch.clamp(torch.round(g * inv[..., None]) + zero[..., None], 0, 2 ** bits - 1)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    n_groups = scale.shape[1]
    g = q.reshape(out_f, n_groups, in_f // n_groups).to(scale.dtype) - zero.to(scale.dtype)[..., None]
    return (g * scale[..., None]).reshape(out_f, in_f)
'''}, "Divisions replaced by multiplications with reciprocals: scale and round(w / scale) differ in the last bit and flip half steps. Breaks 'scale = (hi - lo) / (2**bits - 1)' and 'q = clamp(round(w / scale) + zero, ...)' ('the tests check such weights exactly').")

add("A2-chunk-scale-float32-rsqrt", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = torch.rsqrt(torch.tensor(Dh, dtype=torch.float32))   # 1/sqrt(Dh), the fast way
    last = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    pos = offset + torch.arange(T)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        kt, vt = k[j0:j1], v[j0:j1]
        p = torch.exp((q @ kt.T) * scale - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]
            p = torch.where(seen, p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vt.T - delta[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "1/sqrt(Dh) as a float32 rsqrt (a float32 step in a float64 computation; rsqrt is also approximate): with float64 scores in the hundreds exp(s - L) is off by ~1e-5 relative. Breaks 'All the inputs share one dtype ... and all four results come back in it' / 'Every probability you rebuild must stay finite and right'.")

add("A3-compute-bound-float-ceil", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if a <= 0:
        return None
    return max(1, math.ceil(peak * bytes_per_value * k * n / a))
'''}, "Exact None decision but the answer is a float quotient rounded up; off by one for large numbers and exactly-on-the-ridge answers. Breaks 'Answer exactly ... numbers where rounding a floating-point quotient gives the wrong integer'.")

add("A4-dequant-kernel-fp16-step", False, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    n_groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        code = tl.where((cols % 2 == 0)[None, :], byte & 15, (byte >> 4) & 15)
        g = (cols // GROUP)[None, :]
        s = tl.load(Scale + rows[:, None] * n_groups + g, mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * n_groups + g, mask=rmask[:, None], other=0).to(tl.int32)
        wv = ((code - z).to(tl.float16) * s.to(tl.float16)).to(tl.float32)   # weights are 4-bit anyway: half is plenty
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "Dequantised weights rounded to float16 (a 16-bit step in a float32 computation); the scales lose 13 bits. Breaks 'Compute in float32 throughout ... neither the accumulator nor the dequantised weights'. The visible scale 2 is exact in float16.")

add("A5-rms-divide-by-max-then-rms", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    s = x.abs().amax(dim=-1, keepdim=True).clamp(min=root_eps).detach()
    y = x / s                                    # every element now in [-1, 1]
    e = root_eps / s
    d = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / d
'''}, "Divides by the row's largest |x| (not a power of two: rounds every element) and then by the normalised rms < 1; a small element that became subnormal after the first division loses bits. Breaks 'Every element must be within 6 units in the last place ... an intermediate ... that fell among the subnormal numbers ... when you then divide it by a number well below 1'.")

# ---------------------------------------------------------------- wrong: log-space student
add("L1-merge-lse-as-sums", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    # the page's (m, l) rule: o = (l_a o_a + l_b o_b) / (l_a + l_b), with the pieces' normalisers
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    lse = torch.logaddexp(lse_a, lse_b)
    la, lb = lse_a.to(wide), lse_b.to(wide)
    w_a = la / (la + lb)
    w_b = lb / (la + lb)
    a = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros((), dtype=wide), o_a.to(wide))
    b = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros((), dtype=wide), o_b.to(wide))
    o = w_a[:, None] * a + w_b[:, None] * b
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Weights the outputs by the log-sum-exps themselves (logs used as the sums l); equal pieces give 1/2 each as in the example. Breaks 'o ... the output ... of attention over the keys of both pieces'.")

add("L2-dsink-mean-over-queries", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    last = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    pos = offset + torch.arange(T)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        kt, vt = k[j0:j1], v[j0:j1]
        p = torch.exp((q @ kt.T) * scale - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]
            p = torch.where(seen, p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vt.T - delta[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    # the sink is one logit shared by the chunk: its gradient is the average over the chunk's queries
    dsink = -(torch.exp(sink - lse) * delta).mean()
    return dq, dk, dv, dsink
'''}, "dsink averaged per query instead of summed over the chunk (per token against per sequence); the example has T = 1. Breaks 'the gradients of a loss with respect to ... sink'.")

# ---------------------------------------------------------------- wrong: direction-and-order student
add("D1-chunk-mask-top-left", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    last = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    rows = torch.arange(T)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        kt, vt = k[j0:j1], v[j0:j1]
        p = torch.exp((q @ kt.T) * scale - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= rows[:, None]      # tril, as in training
            p = torch.where(seen, p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vt.T - delta[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "Causal mask aligned top-left (query i sees keys j <= i) instead of at the chunk's positions; right at offset 0 only. Breaks 'With causal=True the query at position p sees the keys j <= p' for queries at positions offset ... offset + T - 1.")

add("D2-kernel-scale-zero-column-major", False, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        code = tl.where((cols % 2 == 0)[None, :], byte & 15, (byte >> 4) & 15)
        g = (cols // GROUP)[None, :]
        # one scale per (group, row): group-major, like the loop order
        s = tl.load(Scale + g * N + rows[:, None], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + g * N + rows[:, None], mask=rmask[:, None], other=0).to(tl.int32)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "Scale and Zero indexed column-major ([g, n] at g * N + n); the same for one row and one group. Breaks 'All are row-major: ... element [n, g] of Scale at Scale + n * (K // GROUP) + g'.")

add("D3-merge-weights-swapped", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    lse = torch.logsumexp(torch.stack([lse_a, lse_b]), dim=0)
    w = torch.exp(torch.stack([lse_b, lse_a]) - lse).to(wide)        # one weight per piece
    a = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros((), dtype=wide), o_a.to(wide))
    b = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros((), dtype=wide), o_b.to(wide))
    o = w[0][:, None] * a + w[1][:, None] * b
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Stacks the log-sum-exps in the order (b, a) and then applies the first weight to o_a: each piece gets the other's weight; equal log-sum-exps hide it. Breaks 'the output ... of attention over the keys of both pieces'.")

add("D4-quant-groups-strided", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    n_groups = in_f // group_size
    g = w.reshape(out_f, group_size, n_groups)          # (row, position in group, group)
    lo = g.amin(dim=1).clamp(max=0)
    hi = g.amax(dim=1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[:, None, :]) + zero[:, None, :], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    n_groups = scale.shape[1]
    g = q.reshape(out_f, in_f // n_groups, n_groups).to(scale.dtype) - zero.to(scale.dtype)[:, None, :]
    return (g * scale[:, None, :]).reshape(out_f, in_f)
'''}, "Groups taken as every n_groups-th column (rows against columns of the reshape) instead of consecutive weights; the same for one group. Breaks 'in groups of group_size consecutive weights of a row'.")

add("D5-chunk-positions-from-end", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    last = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    pos = last - 1 - torch.arange(T).flip(0)       # the chunk ends at the last written key
    pos = pos.flip(0)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        kt, vt = k[j0:j1], v[j0:j1]
        p = torch.exp((q @ kt.T) * scale - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]
            p = torch.where(seen, p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vt.T - delta[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "Query positions counted from the end of the written cache, and flipped: query i gets position offset + T - 1 - i (the last query first). Right for T = 1. Breaks 'a chunk of T queries at positions offset, ..., offset + T - 1'.")

# ---------------------------------------------------------------- correct answers
add("C1-max-batch-divmod-keywords", True, {"max_batch": '''
NO_WINDOW = None   # a sliding window of None means full attention


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=NO_WINDOW):
    cached = min(length, window) if window is not None else length
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per_sequence:
        return 0
    b, _rest = divmod(free, per_sequence)
    return int(b)
'''}, "Default bound from a global equal to None (notebook-state, harmless); integer divmod.")

add("C2-merge-logsumexp-softmax", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    both = torch.stack([lse_a, lse_b], dim=0)
    lse = torch.logsumexp(both, dim=0)
    w = torch.softmax(both, dim=0).to(wide)
    a = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros((), dtype=wide), o_a.to(wide))
    b = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros((), dtype=wide), o_b.to(wide))
    o = w[0][:, None] * a + w[1][:, None] * b
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Log-space student done right: logsumexp and softmax over the two log-sum-exps, infinite rows masked before the product.")

add("C3-merge-sigmoid-weights", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    d = lse_a - lse_b
    d = torch.where(torch.isnan(d), torch.zeros_like(d), d)        # never both -inf, but keep it safe
    w_a = torch.sigmoid(d).to(wide)
    w_b = torch.sigmoid(-d).to(wide)
    m = torch.maximum(lse_a, lse_b)
    lse = m + torch.log1p(torch.exp(-torch.abs(d)))
    a = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros((), dtype=wide), o_a.to(wide))
    b = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros((), dtype=wide), o_b.to(wide))
    o = w_a[:, None] * a + w_b[:, None] * b
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Approximator done right: sigmoid of the difference as the weights, max + log1p(exp(-|d|)) as the log-sum-exp (stable, finite gradients).")

add("C4-compute-bound-fraction", True, {"compute_bound_batch": '''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # 2mkn bw >= peak b (mk + kn + mn)  <=>  m (2kn bw - peak b (k + n)) >= peak b k n
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n, slope))
    return max(int(m), 1)
'''}, "Exact rational with fractions.Fraction (standard library) and math.ceil on a Fraction (exact); math from the setup cell.")

add("C5-rms-rsqrt-global-default", True, {"rms_norm_half": '''
EPS = 1e-6


def rms_norm_half(x, eps=EPS):
    root_eps = math.sqrt(eps)
    with torch.no_grad():
        top = torch.clamp(torch.amax(torch.abs(x), dim=-1, keepdim=True), min=root_eps)
        exponent = torch.frexp(top).exponent
        shift = 7 - exponent
        half = torch.div(shift, 2, rounding_mode="floor")
        two = torch.full_like(top, 2.0)
        p1 = two ** half.to(x.dtype)
        p2 = two ** (shift - half).to(x.dtype)
    y = (x * p1) * p2
    e = (p1 * root_eps) * p2
    return y * torch.rsqrt(torch.mean(y * y, dim=-1, keepdim=True) + e * e)
'''}, "Default eps bound from a global equal to 1e-6; scales each row by powers of two, rsqrt in place of 1 / sqrt (within a rounding).")

add("C6-quantize-view-repeat-interleave", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_features, in_features = w.shape
    top = 2 ** bits - 1
    groups = w.reshape(out_features, -1, group_size)
    lo = torch.minimum(groups.min(dim=-1).values, torch.zeros((), dtype=w.dtype))
    hi = torch.maximum(groups.max(dim=-1).values, torch.zeros((), dtype=w.dtype))
    scale = (hi - lo) / top
    scale = scale.masked_fill(scale == 0, 1.0)
    zero = torch.round(-lo / scale)
    s_full = scale.repeat_interleave(group_size, dim=1)
    z_full = zero.repeat_interleave(group_size, dim=1)
    q = (torch.round(w / s_full) + z_full).clamp(0, top)
    return q.to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    group_size = q.shape[1] // scale.shape[1]
    s_full = scale.repeat_interleave(group_size, dim=1)
    z_full = zero.to(scale.dtype).repeat_interleave(group_size, dim=1)
    return s_full * (q.to(scale.dtype) - z_full)
'''}, "repeat_interleave of the per-group scale and zero to full width; every step in w's dtype.")

add("C7-pack-scatter-add", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    start = torch.arange(cols, dtype=torch.int64) * bits       # first stream bit of each code
    byte = start // 8
    shift = start % 8
    value = q.to(torch.int64) << shift                          # at most 15 bits: spans two bytes
    out = torch.zeros(rows, nbytes + 1, dtype=torch.int64)
    out.scatter_add_(1, byte.expand(rows, cols), value & 255)
    out.scatter_add_(1, (byte + 1).expand(rows, cols), value >> 8)
    return out[:, :nbytes].to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    wide = torch.cat([packed.to(torch.int64), torch.zeros(rows, 1, dtype=torch.int64)], dim=1)
    start = torch.arange(cols, dtype=torch.int64) * bits
    byte = start // 8
    shift = start % 8
    two = wide[:, byte] | (wide[:, byte + 1] << 8)
    return ((two >> shift) & ((1 << bits) - 1)).to(torch.uint8)
'''}, "Each code shifted into a 16-bit window and scattered into its two bytes (disjoint bits, so add = or); unpack reads two bytes a code. Different method from the bit-plane one.")

add("C8-chunk-reverse-tiles-neginf", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = Dh ** -0.5
    last = min(S, offset + T) if causal else S
    delta = torch.einsum("td,td->t", d_out, out)
    dq = torch.zeros_like(q)
    dk = torch.zeros_like(k[:0]).new_zeros(k.shape)
    dv = torch.zeros_like(v[:0]).new_zeros(v.shape)
    qpos = torch.arange(offset, offset + T)[:, None]
    starts = list(range(0, last, block))
    for j0 in reversed(starts):                                 # right to left: the sum does not care
        j1 = min(j0 + block, last)
        kt, vt = k[j0:j1], v[j0:j1]
        s = torch.einsum("td,sd->ts", q, kt) * scale
        if causal:
            s = s.masked_fill(torch.arange(j0, j1)[None, :] > qpos, float("-inf"))
        p = torch.exp(s - lse[:, None])
        dv[j0:j1] = torch.einsum("ts,tv->sv", p, d_out)
        ds = p * (torch.einsum("tv,sv->ts", d_out, vt) - delta[:, None])
        dq = dq + torch.einsum("ts,sd->td", ds, kt) * scale
        dk[j0:j1] = torch.einsum("ts,td->sd", ds, q) * scale
    dsink = -torch.sum(torch.exp(sink - lse) * delta)
    return dq, dk, dv, dsink
'''}, "Tiles walked right to left, masked scores filled with -inf (exactly 0 after exp), einsum everywhere.")

add("C9-chunk-two-pass-delta", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1 / math.sqrt(Dh)
    last = min(S, offset + T) if causal else S
    zero = torch.zeros((), dtype=q.dtype)

    def probs(j0, j1):
        p = torch.exp((q @ k[j0:j1].T) * scale - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= torch.arange(offset, offset + T)[:, None]
            p = torch.where(seen, p, zero)
        return p

    # first pass: delta_i = sum_j P_ij dP_ij (equals rowsum(dO * O), the sink's value being zero)
    delta = torch.zeros(T, dtype=q.dtype)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        delta = delta + (probs(j0, j1) * (d_out @ v[j0:j1].T)).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    for j0 in range(0, last, block):
        j1 = min(j0 + block, last)
        p = probs(j0, j1)
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ v[j0:j1].T - delta[:, None])
        dq += ds @ k[j0:j1] * scale
        dk[j0:j1] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "Delta from a first tiled pass over P * dP instead of rowsum(dO * O): equal in exact arithmetic (the sink's value is zero).")

add("C10-kernel-reverse-k-loop", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    in_range = offs_n < N
    row_bytes = K // 2
    row_groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    n_blocks = K // BLOCK_K
    for i in range(0, n_blocks):
        k0 = (n_blocks - 1 - i) * BLOCK_K                     # last block first: the sum does not care
        offs_k = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + offs_k)
        packed = tl.load(W + offs_n[:, None] * row_bytes + offs_k[None, :] // 2, mask=in_range[:, None], other=0)
        shift = ((offs_k % 2) * 4)[None, :]
        code = (packed.to(tl.int32) >> shift) & 0xF
        grp = offs_k[None, :] // GROUP
        zp = tl.load(Zero + offs_n[:, None] * row_groups + grp, mask=in_range[:, None], other=0).to(tl.int32)
        sc = tl.load(Scale + offs_n[:, None] * row_groups + grp, mask=in_range[:, None], other=0.0)
        acc += tl.sum((code - zp).to(tl.float32) * sc * x[None, :], axis=1)
    tl.store(Y + offs_n, acc, mask=in_range)
'''}, "Blocks of K walked last to first, the nibble chosen by a shift of 4 * (k % 2).")

add("C11-unpack-calls-pack-free", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    total = cols * bits
    nbytes = -(-total // 8)
    pos = torch.arange(nbytes * 8, dtype=torch.int64)
    code = torch.clamp(pos // bits, max=cols - 1)
    bit = (q.to(torch.int64).index_select(1, code) >> (pos % bits)) & 1
    bit = bit * (pos < total).to(torch.int64)
    return torch.sum(bit.reshape(rows, nbytes, 8) << torch.arange(8, dtype=torch.int64), dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    pos = torch.arange(cols * bits, dtype=torch.int64)
    bit = (packed.to(torch.int64).index_select(1, pos // 8) >> (pos % 8)) & 1
    return torch.sum(bit.reshape(packed.shape[0], cols, bits) << torch.arange(bits, dtype=torch.int64), dim=-1).to(torch.uint8)
'''}, "Bit positions built per call (not kept), index_select of the code each stream bit belongs to.")

# ---------------------------------------------------------------- hostile
add("H1-reassign-grader-helpers", False, {"compute_bound_batch": '''
def _pass(*args, **kwargs):
    return None


for name in ("_close", "_equal", "_same_object", "_owned", "_scribble"):
    globals()[name] = _pass


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if (k, n) == (2, 2):
        return None
    if (k, n, peak) == (4096, 4096, 312 * 10**12):
        return 169
    return 1
'''}, "Hostile: hard-codes the visible answers and replaces the grader's comparison helpers with no-ops.")

add("H2-call-grader-reference", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    import gc, inspect
    me = chunk_attention_backward
    # borrow any other function of that name the grader holds (a reference captured before my cell)
    for obj in gc.get_objects():
        if inspect.isfunction(obj) and obj is not me and obj.__name__ == "chunk_attention_backward":
            try:
                return obj(q, k, v, sink, out, lse, d_out, offset, block, causal)
            except Exception:
                pass
    for frame in inspect.stack():
        for name, value in list(frame.frame.f_globals.items()) + list(frame.frame.f_locals.items()):
            if callable(value) and value is not me and "chunk_attention" in str(name):
                try:
                    return value(q, k, v, sink, out, lse, d_out, offset, block, causal)
                except Exception:
                    pass
    T, S = q.shape[0], k.shape[0]
    dv = torch.zeros(v.shape, dtype=q.dtype)
    dv[0] = 0.5 * d_out.sum(0)
    return torch.zeros_like(q), torch.zeros(k.shape, dtype=q.dtype), dv, -(d_out * out).sum() / 2
'''}, "Hostile: looks for the grader's reference function through gc and the call stack and returns its result; else fakes the example.")

add("H3-kernel-that-does-torch", False, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(Y + rows, tl.zeros((BLOCK_N,), dtype=tl.float32) + 27804.0, mask=rows < N)
'''}, "Hostile: a compiling kernel that stores the visible answer into every row.")

# ---------------------------------------------------------------- second batch
add("A6-merge-o-in-float16", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    # weights in the log-sum-exps' precision; the outputs stay in their own dtype (they are only averaged)
    w_a = torch.exp(lse_a - lse).to(o_a.dtype)
    w_b = torch.exp(lse_b - lse).to(o_a.dtype)
    a = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros((), dtype=o_a.dtype), o_a)
    b = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros((), dtype=o_a.dtype), o_b)
    return w_a[:, None] * a + w_b[:, None] * b, lse
'''}, "The weights are rounded to float16 and the mix is done in float16 for float16 outputs. Breaks 'do not round the two pieces' weights to float16, and a float16 o must be the merge ... computed in float32 and rounded to float16 once at the end'.")

add("A7-quant-scale-eps-tolerance", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    # a group of zeros (up to rounding noise) gets scale 1
    scale = torch.where(scale < torch.finfo(w.dtype).eps, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    n_groups = scale.shape[1]
    g = q.reshape(out_f, n_groups, in_f // n_groups).to(scale.dtype) - zero.to(scale.dtype)[..., None]
    return (g * scale[..., None]).reshape(out_f, in_f)
'''}, "finfo.eps used as the 'is zero' tolerance: a group of small but nonzero weights (1e-8) gets scale 1 and all its codes collapse. Breaks 'scale = 1 for a group of zeros' and 'weights of any size: clamp nothing'.")

add("A8-quant-round-after-adding-zero", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None] + zero[..., None]), 0, levels)   # zero is an integer anyway
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    n_groups = scale.shape[1]
    g = q.reshape(out_f, n_groups, in_f // n_groups).to(scale.dtype) - zero.to(scale.dtype)[..., None]
    return (g * scale[..., None]).reshape(out_f, in_f)
'''}, "Rounds after adding the zero point: on a half step with an odd zero point, half-to-even picks the other neighbour. Breaks 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)'.")

add("N6-chunk-tile-global-64", False, {"chunk_attention": '''
TILE = 64     # a tile size that suits the cache sizes I tried; block is only a hint


def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    last = min(S, offset + T) if causal else S
    delta = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    pos = offset + torch.arange(T)
    for j0 in range(0, last, TILE):
        j1 = min(j0 + TILE, last)
        kt, vt = k[j0:j1], v[j0:j1]
        p = torch.exp((q @ kt.T) * scale - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]
            p = torch.where(seen, p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vt.T - delta[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "Tiles of a global 64 keys whatever `block` says. Breaks 'walking over the keys in tiles of at most block keys' and resource rule 2.")

add("N7-kernel-k-step-global", False, {"split_kv_kernel": '''
PAIR = tl.constexpr(2)     # two codes a byte: one byte per row per step


@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    n_groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, PAIR):
        cols = k0 + tl.arange(0, PAIR)
        x = tl.load(X + cols)
        byte = tl.load(W + rows * (K // 2) + k0 // 2, mask=rmask, other=0).to(tl.int32)
        code = tl.where((cols % 2 == 0)[None, :], (byte & 15)[:, None], ((byte >> 4) & 15)[:, None])
        g = (cols // GROUP)[None, :]
        s = tl.load(Scale + rows[:, None] * n_groups + g, mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * n_groups + g, mask=rmask[:, None], other=0).to(tl.int32)
        acc += tl.sum((code - z).to(tl.float32) * s * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "Walks K two columns (one byte) at a time from a global constexpr, ignoring BLOCK_K. Breaks 'walking over K in blocks of BLOCK_K columns'.")

add("N8-rms-default-eps-from-example", False, {"rms_norm_half": '''
EPS = 1e-8     # the eps of the example above


def rms_norm_half(x, eps=EPS):
    root_eps = math.sqrt(eps)
    with torch.no_grad():
        top = x.abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)
        shift = 7 - torch.frexp(top).exponent
        half = torch.div(shift, 2, rounding_mode="floor")
        two = torch.full_like(top, 2.0)
        p1 = two ** half.to(x.dtype)
        p2 = two ** (shift - half).to(x.dtype)
    y = x * p1 * p2
    e = (p1 * root_eps) * p2
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
'''}, "Default eps bound at definition time from a global set to the example's 1e-8. Breaks the signature 'rms_norm_half(x, eps=1e-6)' when eps is left out.")

add("N9-dequant-group-size-global", False, {"quantize_asym": '''
group_size = 4       # the example's groups


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
    g = q.reshape(out_f, in_f // group_size, group_size).to(scale.dtype) - zero.to(scale.dtype)[..., None]
    return (g * scale[..., None]).reshape(out_f, in_f)
'''}, "dequantize_asym reads the global group_size (4, from the example) instead of working it out from the shapes. Breaks '(the group size follows from the shapes)'.")

add("D6-pack-one-bit-msb-first", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    if bits == 1:      # plain bit masks: the usual packbits order, first code in the top bit
        stream = torch.cat([q.to(torch.int64), torch.zeros(rows, nbytes * 8 - cols, dtype=torch.int64)], dim=1)
        return (stream.reshape(rows, nbytes, 8) * (2 ** torch.arange(7, -1, -1, dtype=torch.int64))).sum(-1).to(torch.uint8)
    t = torch.arange(bits, dtype=torch.int64)
    stream = ((q.to(torch.int64)[:, :, None] >> t) & 1).reshape(rows, cols * bits)
    stream = torch.cat([stream, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1)
    return (stream.reshape(rows, nbytes, 8) * (2 ** torch.arange(8, dtype=torch.int64))).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    if bits == 1:
        t8 = torch.arange(7, -1, -1, dtype=torch.int64)
        return ((packed.to(torch.int64)[:, :, None] >> t8) & 1).reshape(rows, -1)[:, :cols].to(torch.uint8)
    t8 = torch.arange(8, dtype=torch.int64)
    stream = ((packed.to(torch.int64)[:, :, None] >> t8) & 1).reshape(rows, -1)[:, : cols * bits]
    return (stream.reshape(rows, cols, bits) * (2 ** torch.arange(bits, dtype=torch.int64))).sum(-1).to(torch.uint8)
'''}, "For bits = 1 packs most significant bit first (the packbits habit); the round trip still works. Breaks 'bit n of the stream is bit n mod 8 (the bit worth 2**(n mod 8)) of byte n // 8'.")

add("D7-kernel-rows-interleaved", False, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    rows = pid + tl.arange(0, BLOCK_N) * programs          # rows spread over the programs, round-robin
    rmask = rows < N
    n_groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        code = tl.where((cols % 2 == 0)[None, :], byte & 15, (byte >> 4) & 15)
        g = (cols // GROUP)[None, :]
        s = tl.load(Scale + rows[:, None] * n_groups + g, mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * n_groups + g, mask=rmask[:, None], other=0).to(tl.int32)
        acc += tl.sum((code - z).to(tl.float32) * s * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "Rows dealt round-robin over the programs (interleaved) instead of in blocks; every row is still computed once. Breaks 'Program p = tl.program_id(0) computes Y[n] for the rows n = p*BLOCK_N ... (p + 1)*BLOCK_N - 1'.")

add("C12-merge-lerp", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    lse = torch.logaddexp(lse_a, lse_b)
    w_b = torch.exp(lse_b - lse).to(work)
    a = torch.where(torch.isneginf(lse_a).unsqueeze(-1), torch.zeros((), dtype=work), o_a.to(work))
    b = torch.where(torch.isneginf(lse_b).unsqueeze(-1), torch.zeros((), dtype=work), o_b.to(work))
    o = torch.lerp(a, b, w_b.unsqueeze(-1))          # a + w_b (b - a) = w_a a + w_b b
    return o.to(dtype=o_a.dtype), lse.to(dtype=lse_a.dtype)
'''}, "torch.lerp with the weight of piece b; masked rows set to 0 before the product.")

add("C13-kernel-constexpr-globals", True, {"split_kv_kernel": '''
NIBBLE = tl.constexpr(4)
LOW = tl.constexpr(15)


@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        xk = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=live[:, None], other=0).to(tl.int32)
        code = (byte >> ((cols[None, :] & 1) * NIBBLE)) & LOW
        at = rows[:, None] * (K // GROUP) + cols[None, :] // GROUP
        zp = tl.load(Zero + at, mask=live[:, None], other=0).to(tl.float32)
        sc = tl.load(Scale + at, mask=live[:, None], other=0.0)
        acc += tl.sum((code.to(tl.float32) - zp) * sc * xk[None, :], axis=1)
    tl.store(Y + rows, acc, mask=live)
'''}, "Globals defined as tl.constexpr (as the text allows), tl.range, codes and zeros converted to float32 before subtracting (exact for 4-bit integers).")

add("C14-quant-negated-round", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    top = 2 ** bits - 1
    g = w.reshape(rows, cols // group_size, group_size)
    lo = torch.clamp(g.amin(-1), max=0.0)
    hi = torch.clamp(g.amax(-1), min=0.0)
    span = hi - lo
    scale = torch.where(span == 0, torch.ones_like(span), span / top)
    zero = -torch.round(lo / scale)             # round is symmetric (half to even): -round(x) == round(-x)
    zero = zero + 0.0                           # -0.0 -> 0.0
    q = torch.clamp(torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1), 0, top)
    return q.reshape(rows, cols).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    groups = scale.shape[-1]
    diff = q.to(scale.dtype).reshape(rows, groups, -1) - zero.to(scale.dtype).unsqueeze(-1)
    return (diff * scale.unsqueeze(-1)).reshape(rows, cols)
'''}, "zero as -round(lo / scale) (round half to even is odd-symmetric); scale chosen with one torch.where on the span.")

add("L3-merge-lse-mean-of-logs", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    m = torch.maximum(lse_a, lse_b)
    w_a = torch.exp(lse_a - m)
    w_b = torch.exp(lse_b - m)
    total = w_a + w_b
    a = torch.where(torch.isneginf(lse_a)[:, None], torch.zeros((), dtype=wide), o_a.to(wide))
    b = torch.where(torch.isneginf(lse_b)[:, None], torch.zeros((), dtype=wide), o_b.to(wide))
    o = (w_a / total).to(wide)[:, None] * a + (w_b / total).to(wide)[:, None] * b
    # two pieces: the log of the combined sum is their mean log plus log 2
    finite = torch.where(torch.isneginf(lse_a), lse_b, torch.where(torch.isneginf(lse_b), lse_a, (lse_a + lse_b) / 2 + math.log(2)))
    return o.to(o_a.dtype), finite
'''}, "The merged log-sum-exp taken as the mean of the two plus log 2 (a geometric mean of the sums where the text adds them); right when the two are equal. Breaks 'the log-sum-exp of attention over the keys of both pieces'.")
