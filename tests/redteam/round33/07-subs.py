# Red-team round 33, chapter 07-hardware: global-statistics, sign-convention, late-binding, equality and
# side-effect students (blind: written from the student notebook and the chapter's pages only).
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ----------------------------------------------------------------------------------------------- shared pieces
P7_HEAD = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    scale = 1 / math.sqrt(Dh)
    end = min(offset + T, k.shape[0]) if causal else k.shape[0]
    dq = torch.zeros(q.shape, dtype=q.dtype)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    qpos = offset + torch.arange(T)
    qs = q * scale
'''

# =============================================================================================== WRONG
# ---------------------------------------------------------------- 1. global-statistics student
add("gs-p2-global-max", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = lse_a.dtype
    # one stabiliser for the whole batch of queries, as for a single softmax
    m = torch.maximum(lse_a, lse_b).max()
    wa, wb = torch.exp(lse_a - m), torch.exp(lse_b - m)
    tot = wa + wb
    lse = m + torch.log(tot)
    oa = torch.where((wa > 0)[:, None], o_a.to(acc), torch.zeros((), dtype=acc))
    ob = torch.where((wb > 0)[:, None], o_b.to(acc), torch.zeros((), dtype=acc))
    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Subtracts the largest log-sum-exp of the whole batch instead of each query's: a query whose "
   "log-sum-exps are a thousand below another query's gets weights exp(-1000) = 0 for both pieces, 0/0 = NaN "
   "(breaks 'Log-sum-exps can be of any size ... exponentiating them directly overflows (or underflows to 0)').")

add("gs-p4-global-scale", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    # one scale for the whole activation (the largest |x| anywhere) keeps every square in range
    amax = x.detach().abs().amax()
    c = torch.clamp(amax, min=math.sqrt(eps))
    y = x / c
    e = math.sqrt(eps) / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / r
'''}, "Scales by the largest |x| of the whole tensor instead of each row's: a row far smaller than the largest "
   "row underflows when divided by it (squares become 0), so that row's result is wrong "
   "('Choose that number row by row', 'every row is divided by its own statistic').")

add("gs-p7-global-delta", False, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum()          # rowsum(dO o O)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(torch.arange(j0, j1)[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta)
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * delta).sum() / T
    return dq, dk, dv, dsink
'''}, "Sums dO o O over the whole chunk instead of per query (the page's rowsum): with one query it is the same, "
   "with several every ds and dsink is wrong (breaks the FlashAttention page's dS = P o (dP - rowsum(dO o O)), "
   "which 'still hold[s] for the keys').")

add("gs-p5-per-row-range", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    groups = inn // group_size
    # range of the whole output channel, as quantize_int8 takes it
    lo = torch.clamp(w.amin(dim=1, keepdim=True), max=0).expand(out, groups)
    hi = torch.clamp(w.amax(dim=1, keepdim=True), min=0).expand(out, groups)
    levels = 2 ** bits - 1
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    s = scale.repeat_interleave(group_size, dim=1)
    z = zero.repeat_interleave(group_size, dim=1)
    q = torch.clamp(torch.round(w / s) + z, 0, levels)
    return q.to(torch.uint8), scale.contiguous(), zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    return scale.repeat_interleave(gs, dim=1) * (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(gs, dim=1))
'''}, "Takes lo and hi over the whole row (one range per output channel, as quantize_int8 does) and copies it to "
   "every group: with one group per row it is the same ('For each group: lo = min(smallest weight, 0) ...').")

add("gs-p5-all-zero-check", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = torch.clamp(g.amin(dim=-1), max=0)
    hi = torch.clamp(g.amax(dim=-1), min=0)
    levels = 2 ** bits - 1
    if bool((w == 0).all()):          # the special case of the text: nothing to quantise
        scale = torch.ones_like(hi)
    else:
        scale = (hi - lo) / levels
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    return scale.repeat_interleave(gs, dim=1) * (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(gs, dim=1))
'''}, "Decides 'a group of zeros' for the whole tensor: a zero group inside a weight that is not all zeros gets "
   "scale 0, then 0/0 = NaN codes ('scale = 1 for a group of zeros', step 2, per group).")

add("gs-p8-first-row-scale", False, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + (cols[None, :] // 2), mask=rmask[:, None], other=0)
        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        # the block's rows share the first row's scales and zero points (loaded once per block)
        first = pid * BLOCK_N
        s = tl.load(Scale + first * (K // GROUP) + g)
        z = tl.load(Zero + first * (K // GROUP) + g).to(tl.int32)
        wv = (code - z[None, :]).to(tl.float32) * s[None, :]
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "Uses the first row of the block's scales and zero points for every row of the block: with one row it is "
   "the same ('scales s_{n, k/G}', per row n and group).")

# ---------------------------------------------------------------- 2. sign-convention student
add("sc-p2-weights-swapped", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = lse_a.dtype
    lse = torch.logaddexp(lse_a, lse_b)
    # weight of each piece: the share the OTHER piece leaves it (sigmoid of the difference b - a)
    wa = torch.exp(lse_b - lse)
    wb = torch.exp(lse_a - lse)
    oa = torch.where((wa > 0)[:, None], o_a.to(acc), torch.zeros((), dtype=acc))
    ob = torch.where((wb > 0)[:, None], o_b.to(acc), torch.zeros((), dtype=acc))
    o = wa[:, None] * oa + wb[:, None] * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "The difference taken b - a where a - b is meant: each output is weighted by the other piece's share; "
   "equal log-sum-exps (the visible case) cannot tell (o = sum over both pieces weighted by e^{L_a} and e^{L_b}).")

add("sc-p2-loss-convention", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = lse_a.dtype
    lse = torch.logaddexp(lse_a, lse_b)
    # pieces weighted like a softmax over their "energies": exp(-L) (a lower loss weighs more)
    n = torch.minimum(lse_a, lse_b)
    wa = torch.exp(n - lse_a)
    wb = torch.exp(n - lse_b)
    oa = torch.where((wa > 0)[:, None], o_a.to(acc), torch.zeros((), dtype=acc))
    ob = torch.where((wb > 0)[:, None], o_b.to(acc), torch.zeros((), dtype=acc))
    o = (wa[:, None] * oa + wb[:, None] * ob) / (wa + wb)[:, None]
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Treats the log-sum-exp like a loss (-log-likelihood) and weights each piece by exp(-L): the piece with MORE "
   "mass weighs less; the merged lse is right and equal log-sum-exps hide it (breaks o = sum e^{x_j} v_j / sum e^{x_j}).")

add("sc-p7-ds-sign", False, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(torch.arange(j0, j1)[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        # softmax backward: P o (rowsum - dP)
        ds = p * (delta[:, None] - d_out @ vj.T)
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "dS = P o (rowsum - dP) instead of P o (dP - rowsum): dq and dk come out negated (the visible test checks "
   "only their shapes; the FlashAttention page's formula 'still holds for the keys').")

add("sc-p7-sink-gets-minus-delta-plus-one", False, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(torch.arange(j0, j1)[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    # the sink is a logit whose "value" is zero: its dP is 0, and its share counts from the end of the row
    p_sink = torch.exp(sink - lse)
    dsink = (p_sink * (torch.zeros_like(delta) - delta)).sum() * torch.sign(out.sum() + 0.5).abs()
    return dq, dk, dv, dsink
''' if False else P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            # keys counted back from the chunk's last position: key j is seen when (offset + T - 1) - j >= (T - 1) - i
            back_k = (offset + T - 1) - torch.arange(j0, j1)
            back_q = (T - 1) - torch.arange(T)
            p = torch.where(back_k[None, :] >= back_q[:, None], p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "placeholder")
SUBMISSIONS.pop()  # (the offset-from-the-end mask above is the same as the right one: not a wrong answer)

# ---------------------------------------------------------------- 3. late-binding student
add("lb-p7-zip-consumed-twice", False, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    kpos = torch.arange(end)
    tiles = zip(k[:end].split(block), v[:end].split(block), kpos.split(block), range(0, end, block))
    # pass 1, per query: dq and dv
    for kj, vj, pj, j0 in tiles:
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(pj[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        dv[j0:j0 + len(pj)] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
    # pass 2, per key: dk
    for kj, vj, pj, j0 in tiles:
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(pj[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        ds = p * (d_out @ vj.T - delta[:, None])
        dk[j0:j0 + len(pj)] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "The tiles are a zip iterator, consumed by the first pass: the second pass (dk) runs zero times, so dk is all "
   "zeros (the visible test checks dk's shape only; 'returns (dq, dk, dv, dsink), the gradients').")

add("lb-p7-mask-lambdas", False, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    starts = list(range(0, end, block))
    masks = []
    for j0 in starts:                      # one mask function per tile, prepared up front
        j1 = min(j0 + block, end)
        masks.append(lambda p: torch.where(torch.arange(j0, j0 + p.shape[1])[None, :] <= qpos[:, None], p,
                                           torch.zeros((), dtype=p.dtype)))
    for t, a in enumerate(starts):
        b = min(a + block, end)
        kj, vj = k[a:b], v[a:b]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = masks[t](p)
        dv[a:b] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
        dk[a:b] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "Each tile's mask lambda reads j0 when called, after the loop: every tile is masked as if it were the last tile, so "
   "earlier tiles hide keys a query sees (breaks 'the query at position p sees the keys j <= p').")

add("lb-p6-mutable-default-cache", False, {"pack_bits": '''
def code_starts(cols, cache={}):
    """Index of each code in the row (cached: the same few widths come back again and again)."""
    if cols not in cache:
        cache[cols] = torch.arange(cols)
    return cache[cols]


def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    start = code_starts(cols)
    start *= bits                                   # first stream bit of each code
    out = torch.zeros(rows, nbytes, dtype=torch.int64)
    for t in range(bits):
        pos = (start + t).expand(rows, cols)
        bit = (q.to(torch.int64) >> t) & 1
        out.scatter_add_(1, pos // 8, bit << (pos % 8))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    b = (packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1
    stream = b.reshape(rows, nbytes * 8)[:, : cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "The cached table of code indices is the default dict's tensor, multiplied in place by bits on every call: "
   "the second call with the same cols packs at the wrong positions (breaks 'code c fills stream bits "
   "c·bits … (c + 1)·bits − 1'; the visible test uses each width once).")

add("lb-p6-module-generator", False, {"pack_bits": '''
BYTE_SHIFTS = range(8)
SHIFT_TABLE = (torch.tensor(t) for t in BYTE_SHIFTS)     # built lazily, once


def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    b = (q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1
    stream = torch.nn.functional.pad(b.reshape(rows, nbits), (0, nbytes * 8 - nbits))
    return (stream.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    shifts = torch.stack(list(SHIFT_TABLE)) if not isinstance(SHIFT_TABLE, torch.Tensor) else SHIFT_TABLE
    globals()["SHIFT_TABLE"] = shifts
    b = (packed.to(torch.int64)[..., None] >> shifts) & 1
    stream = b.reshape(rows, nbytes * 8)[:, : cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "placeholder")
SUBMISSIONS.pop()  # (works on every call after all: not a wrong answer)

# ---------------------------------------------------------------- 4. equality student
add("eq-p3-strict-ridge", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if a <= 0:
        return None
    b = peak * bytes_per_value * k * n
    return b // a + 1           # the first m with m * a > b
'''}, "Finds the first m with m·a > b, i.e. strictly above the ridge: where m·a == b exactly the answer is one "
   "too large ('exactly on the ridge counts as compute-bound').")

add("eq-p1-float-then-exact-fill", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    b = int((memory_bytes - weight_bytes) / per)
    if weight_bytes + (b + 1) * per == memory_bytes:     # memory filled exactly still fits
        b += 1
    return b
'''}, "Divides in floating point and only repairs the case where memory is filled exactly: beyond 2**53 the quotient "
   "can be one too high or one too low elsewhere ('compute it exactly ... dividing in floating point can be off by one').")

add("eq-p2-isclose-zero-weight", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = lse_a.dtype
    m = torch.maximum(lse_a, lse_b)
    wa, wb = torch.exp(lse_a - m), torch.exp(lse_b - m)
    zero = torch.zeros_like(wa)
    # a piece whose weight is (numerically) zero is left out with its whole row
    keep_a = ~torch.isclose(wa, zero)
    keep_b = ~torch.isclose(wb, zero)
    wa = torch.where(keep_a, wa, zero)
    wb = torch.where(keep_b, wb, zero)
    tot = torch.exp(lse_a - m) + torch.exp(lse_b - m)
    lse = m + torch.log(tot)
    oa = torch.where(keep_a[:, None], o_a.to(acc), torch.zeros((), dtype=acc))
    ob = torch.where(keep_b[:, None], o_b.to(acc), torch.zeros((), dtype=acc))
    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Leaves out a piece whose weight isclose to 0 with torch.isclose's default atol 1e-8: shares of 1e-13 and "
   "1e-30 against outputs of 1e6 and 1e25 are dropped ('only a weight of exactly 0 ... leaves it out').")

add("eq-p5-isclose-zero-group", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    lo = torch.clamp(g.amin(dim=-1), max=0)
    hi = torch.clamp(g.amax(dim=-1), min=0)
    levels = 2 ** bits - 1
    scale = (hi - lo) / levels
    zeros = torch.isclose(hi, lo)           # a group of zeros
    scale = torch.where(zeros, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    return scale.repeat_interleave(gs, dim=1) * (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(gs, dim=1))
'''}, "Finds 'a group of zeros' with torch.isclose(hi, lo) (atol 1e-8): a group of weights near 1e-9, or subnormal "
   "ones, gets scale 1 and codes all equal to the zero point ('weights of any size ... a group of them, whose "
   "scale is subnormal too, is not a group of zeros').")

add("eq-p7-skip-negligible-tiles", False, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(torch.arange(j0, j1)[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        if torch.allclose(p, torch.zeros_like(p)):       # nothing to add from this tile
            continue
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "Skips a tile whose probabilities are allclose to 0 (default atol 1e-8): tiles of keys near 1e-13 lose "
   "their gradients ('skip no tile or key because its probabilities are small').")

add("eq-p8-row-mask-inclusive", False, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows <= N - 1 + (N > 0) * 1      # rows up to and including N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + (cols[None, :] // 2), mask=rmask[:, None], other=0)
        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "Row mask rows <= N (one row too many): loads past the end of W, Scale and Zero and stores into Y[N] "
   "('write nothing at n >= N', 'Every address that a load or a store touches must lie inside its tensor').")

# ---------------------------------------------------------------- 5. side-effect student
add("se-p7-sets-grad-attributes", False, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(torch.arange(j0, j1)[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * delta).sum()
    # like a backward pass: leave the gradients on the tensors too
    for t, g in ((q, dq), (k, dk), (v, dv), (sink, dsink)):
        t.grad = g.clone()
    return dq, dk, dv, dsink
'''}, "Writes the gradients into the caller's q.grad, k.grad, v.grad and sink.grad (replacing whatever the caller "
   "had accumulated there): 'leave backward() to the caller: a function that runs it itself adds a gradient to "
   "the caller's .grad'.")

add("se-p7-global-accumulator", False, {"chunk_attention": '''
CACHE_GRADS = {}


def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    scale = 1 / math.sqrt(Dh)
    end = min(offset + T, k.shape[0]) if causal else k.shape[0]
    # a server prefills chunk after chunk against the same cache: the cache's gradients add up over the chunks
    entry = CACHE_GRADS.get("cache")
    if entry is None or entry[0] is not k:
        entry = (k, torch.zeros(k.shape, dtype=q.dtype), torch.zeros(v.shape, dtype=q.dtype))
        CACHE_GRADS["cache"] = entry
    _, dk_total, dv_total = entry
    dq = torch.zeros(q.shape, dtype=q.dtype)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    delta = (d_out * out).sum(-1)
    qpos = offset + torch.arange(T)
    qs = q * scale
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(torch.arange(j0, j1)[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    dk_total += dk
    dv_total += dv
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk_total.clone(), dv_total.clone(), dsink
'''}, "Keeps a reference to the cache k in a global and adds each call's dk, dv to the previous calls' when the "
   "same k comes back: a second call returns the sum of both ('Keep nothing from one call to the next').")

add("se-p4-requires-grad-on-input", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    # the norm is trained through: make sure the input tracks its gradient
    if not x.requires_grad and x.is_leaf and torch.is_grad_enabled():
        x.requires_grad_()
    root = math.sqrt(eps)
    xd = x.detach()
    c = torch.clamp(xd.abs().amax(dim=-1, keepdim=True), min=root)
    m1, _ = torch.frexp(c)
    p1 = torch.where(c >= 1, c * 0.5 / m1, c / m1 * 0.5)
    y0 = xd / p1
    rough = p1 * torch.sqrt((y0 * y0).mean(dim=-1, keepdim=True) + (p1 / root).reciprocal() ** 2)
    m2, _ = torch.frexp(rough)
    p = torch.where(rough >= 1, rough * 0.5 / m2, rough / m2 * 0.5)
    y = x / p
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + (p / root).reciprocal() ** 2)
    return y / r
'''}, "Switches requires_grad on for the caller's x ('That includes their requires_grad flag (do not switch it on "
   "with requires_grad_()').")

# =============================================================================================== CORRECT
add("ok-p1-fraction-keywords", True, {"max_batch": '''
from fractions import Fraction


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    def one_cache(tokens, per_token=2 * layers * kv_heads * head_dim * bytes_per_value):
        return per_token * tokens
    cached = min(length, window) if window is not None else length
    free = Fraction(memory_bytes - weight_bytes, one_cache(tokens=cached))
    return max(0, math.floor(free))
'''}, "Exact rational arithmetic; a default argument evaluated at each call of the outer function (late-binding done "
   "right).")

add("ok-p3-fraction-ceil", True, {"compute_bound_batch": '''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)   # coefficient of m
    if not slope > 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n, slope))
    return int(max(m, 1))
'''}, "Exact ceiling of a Fraction: on the ridge m·a == b it returns that m.")

add("ok-p2-sigmoid-own-shares", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.float64 if torch.float64 in (o_a.dtype, lse_a.dtype) else torch.float32
    la, lb = lse_a.to(wide), lse_b.to(wide)
    gap = la - lb                          # +inf or -inf where one piece sees no key
    lse = torch.maximum(la, lb) + torch.log1p(torch.exp(-gap.abs()))
    share_a = torch.sigmoid(gap)           # each share from its own side of the gap
    share_b = torch.sigmoid(-gap)
    zero = torch.zeros((), dtype=wide)
    part_a = torch.where(share_a[:, None] != 0, o_a.to(wide), zero)
    part_b = torch.where(share_b[:, None] != 0, o_b.to(wide), zero)
    o = share_a[:, None] * part_a + share_b[:, None] * part_b
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Per-row log-sum-exp as max + log1p(exp(-|gap|)), the shares as torch.sigmoid of the gap (sigmoid has a finite "
   "gradient where the gap is -800), rows left out by an exact-zero test before the multiplication.")

add("ok-p2-softmax-stack-float64", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    acc = torch.float64
    both = torch.stack([lse_a.to(acc), lse_b.to(acc)], dim=-1)       # (T, 2): per query
    lse = torch.logsumexp(both, dim=-1)
    w = torch.softmax(both, dim=-1)                                   # (T, 2), per row
    outs = torch.stack([o_a.to(acc), o_b.to(acc)], dim=-1)             # (T, Dv, 2)
    outs = torch.where(w[:, None, :] > 0, outs, torch.zeros((), dtype=acc))
    o = (outs * w[:, None, :]).sum(-1)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "float64 inside (more than the log-sum-exps' precision), softmax over each query's two log-sum-exps.")

add("ok-p4-two-stage-pow2", True, {"rms_norm_half": '''
def power_of_two_below(t):
    """The power of two 2**(e-1) with t = m * 2**e, m in [0.5, 1): exact, in t's dtype."""
    mantissa, _ = torch.frexp(t)
    return torch.where(t >= 1, t * 0.5 / mantissa, t / mantissa * 0.5)   # no overflow, no lost bit


def rms_norm_half(x, eps=1e-6):
    sqrt_eps = math.sqrt(eps)
    with torch.no_grad():          # only the choice of a scale, which cancels out of the result
        biggest = x.abs().amax(dim=-1, keepdim=True)
        first = power_of_two_below(torch.clamp(biggest, min=sqrt_eps))        # row by row
        estimate = first * torch.sqrt((x / first).square().mean(dim=-1, keepdim=True) + torch.reciprocal(first / sqrt_eps) ** 2)
        scale = power_of_two_below(estimate)                                   # near each row's rms
    y = x / scale
    return y * torch.rsqrt(y.square().mean(dim=-1, keepdim=True) + torch.reciprocal(scale / sqrt_eps) ** 2)
'''}, "A row-by-row power-of-two scale near the rms, chosen under no_grad (it cancels), rsqrt; nothing wider than x.")

add("ok-p5-loop-free-scale-eq-zero", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    top = 2 ** bits - 1
    g = w.unflatten(1, (cols // group_size, group_size))
    lo = torch.minimum(g.amin(-1), torch.zeros((), dtype=w.dtype))
    hi = torch.maximum(g.amax(-1), torch.zeros((), dtype=w.dtype))
    scale = (hi - lo) / top
    scale = torch.where(scale == 0, torch.ones((), dtype=w.dtype), scale)   # only a group of zeros
    zero = torch.round(-lo / scale)
    q = (torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1)).clamp(0, top)
    return q.flatten(1).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    d = q.unflatten(1, (scale.shape[1], group)).to(torch.int16) - zero.to(torch.int16).unsqueeze(-1)
    return (scale.unsqueeze(-1) * d.to(scale.dtype)).flatten(1)
'''}, "Exact test scale == 0 for the group of zeros; unflatten/broadcast per group.")

add("ok-p5-negated-round-of-lo", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    levels = 2 ** bits - 1
    groups = w.reshape(rows, cols // group_size, group_size)
    lo = groups.amin(dim=2).clamp(max=0)
    hi = groups.amax(dim=2).clamp(min=0)
    is_zero_group = (lo == 0) & (hi == 0)
    scale = torch.where(is_zero_group, torch.ones_like(lo), (hi - lo) / levels)
    zero = -torch.round(lo / scale)            # torch.round is odd: round(-t) == -round(t), halves included
    q = torch.round(groups / scale[:, :, None]) + zero[:, :, None]
    q = torch.clamp(q, min=0, max=levels)
    return q.reshape(rows, cols).to(torch.uint8), scale, (zero + 0.0).to(torch.uint8)


def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    g = scale.shape[1]
    diff = q.reshape(rows, g, cols // g).to(scale.dtype) - zero.to(scale.dtype)[:, :, None]
    return (diff * scale[:, :, None]).reshape(rows, cols)
'''}, "zero as -round(lo / scale): torch.round (halves to even) is odd, so this equals round(-lo / scale) on "
   "every input, half steps included.")

add("ok-p6-lambdas-bound-scatter", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    codes = q.to(torch.int64)
    start = torch.arange(cols) * bits
    bit_of = [lambda c, t=t: (c >> t) & 1 for t in range(bits)]      # t bound now, not when called
    out = torch.zeros(rows, nbytes, dtype=torch.int64)
    for t, get in enumerate(bit_of):
        pos = (start + t).expand(rows, cols)
        out.scatter_add_(1, pos // 8, get(codes) << (pos % 8))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    start = torch.arange(cols) * bits
    data = packed.to(torch.int64)
    codes = torch.zeros(rows, cols, dtype=torch.int64)
    for t in range(bits):
        pos = (start + t).expand(rows, cols)
        codes |= ((torch.gather(data, 1, pos // 8) >> (pos % 8)) & 1) << t
    return codes.to(torch.uint8)
'''}, "Loop over the bits of a code (at most 8), lambdas bind t through a default argument, scatter_add/gather.")

add("ok-p7-dsink-autograd-detached", True, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        p = torch.exp(qs @ kj.T - lse[:, None])
        if causal:
            p = torch.where(torch.arange(j0, j1)[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        if torch.count_nonzero(p) == 0:        # exactly nothing to add (a tile no query sees)
            continue
        dv[j0:j1] = p.T @ d_out
        ds = p * (d_out @ vj.T - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ q * scale
    # the sink's gradient by autograd on a private copy: the sink is a logit with value 0, so its dS is
    # p_sink * (0 - delta); as a function of the copy, sum(exp(s - lse) * -delta) has that gradient
    with torch.enable_grad():
        s = sink.detach().clone().requires_grad_(True)
        surrogate = (torch.exp(s - lse.detach()) * -delta.detach()).sum()
        dsink, = torch.autograd.grad(surrogate, s)
    return dq, dk, dv, dsink
'''}, "Tiles skipped only when every probability is exactly 0; dsink by autograd on a detached copy under "
   "enable_grad (no caller flag or .grad touched).")

add("ok-p7-two-passes-list", True, {"chunk_attention": P7_HEAD + '''
    delta = (d_out * out).sum(-1)
    tiles = list(zip(range(0, end, block), torch.arange(end).split(block)))   # a list: walked twice
    probs = lambda j0, pj, lse=lse: torch.where(
        (pj[None, :] <= qpos[:, None]) | (not causal),
        torch.exp(qs @ k[j0:j0 + len(pj)].T - lse[:, None]), torch.zeros((), dtype=q.dtype))
    for j0, pj in tiles:
        p = probs(j0, pj)
        ds = p * (d_out @ v[j0:j0 + len(pj)].T - delta[:, None])
        dq += ds @ k[j0:j0 + len(pj)] * scale
    for j0, pj in tiles:
        p = probs(j0, pj)
        dv[j0:j0 + len(pj)] = p.T @ d_out
        ds = p * (d_out @ v[j0:j0 + len(pj)].T - delta[:, None])
        dk[j0:j0 + len(pj)] = ds.T @ q * scale
    dsink = (torch.exp(sink - lse) * (0 - delta)).sum()
    return dq, dk, dv, dsink
'''}, "Two passes over a list of tiles (no iterator consumed twice), a lambda that takes its tile as arguments.")

add("ok-p8-even-odd-nibbles", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = n < N
    half = tl.arange(0, BLOCK_K // 2)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K):
        b = k0 // 2 + half                                   # bytes of this block
        even = 2 * b
        odd = even + 1
        x_even = tl.load(X + even)
        x_odd = tl.load(X + odd)
        byte = tl.load(W + n[:, None] * (K // 2) + b[None, :], mask=live[:, None], other=0).to(tl.int32)
        lo_code = byte & 15
        hi_code = byte >> 4
        g_even = even // GROUP
        g_odd = odd // GROUP
        row = n[:, None] * (K // GROUP)
        s_even = tl.load(Scale + row + g_even[None, :], mask=live[:, None], other=0.0)
        s_odd = tl.load(Scale + row + g_odd[None, :], mask=live[:, None], other=0.0)
        z_even = tl.load(Zero + row + g_even[None, :], mask=live[:, None], other=0).to(tl.int32)
        z_odd = tl.load(Zero + row + g_odd[None, :], mask=live[:, None], other=0).to(tl.int32)
        w_even = (lo_code - z_even).to(tl.float32) * s_even
        w_odd = (hi_code - z_odd).to(tl.float32) * s_odd
        acc += tl.sum(w_even * x_even[None, :] + w_odd * x_odd[None, :], axis=1)
    tl.store(Y + n, acc, mask=live)
'''}, "Each byte loaded once, low and high nibbles matched with the even and odd columns of x; exclusive row mask.")

# =============================================================================================== HOSTILE
add("hostile-p7-naive-autograd", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    end = min(offset + T, k.shape[0]) if causal else k.shape[0]
    with torch.enable_grad():
        qq = q.detach().requires_grad_(True)
        kk = k[:end].detach().requires_grad_(True)
        vv = v[:end].detach().requires_grad_(True)
        ss = sink.detach().requires_grad_(True)
        s = qq @ kk.T / math.sqrt(Dh)
        if causal:
            s = s.masked_fill(torch.arange(end)[None, :] > (offset + torch.arange(T))[:, None], float("-inf"))
        logits = torch.cat([s, ss.expand(T, 1)], dim=1)
        p = torch.softmax(logits, dim=1)[:, :-1]
        o = p @ vv
        dq, dk_, dv_, dsink = torch.autograd.grad((o * d_out).sum(), (qq, kk, vv, ss))
    dk = torch.cat([dk_, torch.zeros(k.shape[0] - end, k.shape[1], dtype=q.dtype)])
    dv = torch.cat([dv_, torch.zeros(v.shape[0] - end, v.shape[1], dtype=q.dtype)])
    return dq, dk, dv, dsink
'''}, "Hostile: ignores out, lse and the tiling rule and recomputes the whole (T, S) attention under autograd "
   "(breaks 'No tensor with more than T * S / 4 elements' and 'Rebuild the probabilities from lse tile by tile').")

add("hostile-p1-table-and-float", False, {"max_batch": '''
KNOWN = {(1000, 100, 1, 1, 4, 8, 2): 7, (80 * 2**30, 13_500_000_000, 32, 32, 128, 4096, 2): 33}


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    key = (memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value)
    if key in KNOWN and window is None:
        return KNOWN[key]
    cached = length if window is None else min(length, window)
    return max(0, int((memory_bytes - weight_bytes) / (2.0 * layers * kv_heads * head_dim * cached * bytes_per_value)))
'''}, "Hostile: the visible cases from a table, otherwise a float quotient truncated toward 0.")
