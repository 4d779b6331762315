# Round 21, chapter 7: the blind helper's own answers (MODEL: its model answers; submissions edit them)
P1 = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < 0:
        return 0
    return int(free // per)
'''

P2 = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(wide), lse_b.to(wide)
    m = torch.maximum(la, lb)
    lse = m + torch.log(torch.exp(la - m) + torch.exp(lb - m))
    wa = torch.exp(la - lse)
    wb = torch.exp(lb - lse)
    oa = torch.where((lse_a == float("-inf"))[:, None], torch.zeros((), dtype=wide), o_a.to(wide))
    ob = torch.where((lse_b == float("-inf"))[:, None], torch.zeros((), dtype=wide), o_b.to(wide))
    o = wa[:, None] * oa + wb[:, None] * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''

P3 = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    b = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-b // a))
'''

P4 = '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    with torch.no_grad():
        c = torch.clamp(x.abs().amax(dim=-1, keepdim=True), min=root_eps)
    c = c.detach()
    y = x / c
    e = c.reciprocal() * root_eps
    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    with torch.no_grad():
        p = torch.where(c * s.detach() < 2.0 ** -14, 2.0 ** 14, 1.0).to(x.dtype)
    return (x * p) / ((c * p) * s)
'''

P5 = '''
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
    groups = scale.shape[1]
    d = q.to(scale.dtype).reshape(out_f, groups, in_f // groups) - zero.to(scale.dtype)[..., None]
    return (d * scale[..., None]).reshape(out_f, in_f)
'''

P6 = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    shifts = torch.arange(bits)
    stream = ((q.to(torch.int64)[..., None] >> shifts) & 1).reshape(rows, cols * bits)
    stream = torch.cat([stream, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1)
    weights = 2 ** torch.arange(8)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)
    codes = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (codes * 2 ** torch.arange(bits)).sum(-1).to(torch.uint8)
'''

P7 = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S, Dv = k.shape[0], v.shape[1]
    dt = q.dtype
    scale = 1.0 / math.sqrt(Dh)
    end = min(S, offset + T) if causal else S
    qs = q * scale
    dq = torch.zeros(T, Dh, dtype=dt)
    dk = torch.zeros(S, Dh, dtype=dt)
    dv = torch.zeros(S, Dv, dtype=dt)
    delta = (d_out * out).sum(dim=-1)
    pos = torch.arange(T) + offset
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        s = qs @ kj.T
        p = torch.exp(s - lse[:, None])
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]
            p = torch.where(seen, p, torch.zeros((), dtype=dt))
        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vj.T
        ds = p * (dp - delta[:, None])
        dq += ds @ kj * scale
        dk[j0:j1] = ds.T @ qs
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''

P8 = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    half = K // 2
    ngroups = K // GROUP
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        m2 = rmask[:, None]
        byte = tl.load(W + rows[:, None] * half + (cols[None, :] // 2), mask=m2, other=0).to(tl.int32)
        code = tl.where((cols[None, :] % 2) == 0, byte & 15, byte >> 4)
        g = cols // GROUP
        z = tl.load(Zero + rows[:, None] * ngroups + g[None, :], mask=m2, other=0).to(tl.int32)
        s = tl.load(Scale + rows[:, None] * ngroups + g[None, :], mask=m2, other=0.0)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''
MODEL = {"max_batch": P1, "merge_partials": P2, "compute_bound_batch": P3, "rms_norm_half": P4,
         "quantize_asym": P5, "pack_bits": P6, "chunk_attention": P7, "split_kv_kernel": P8}


def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

def rep(gid, *pairs):
    s = MODEL[gid]
    for a, b in pairs:
        assert a in s, (gid, a)
        s = s.replace(a, b)
    return s

SUBMISSIONS = []
A = SUBMISSIONS.append

# ---------------- order-of-operations student ----------------
A(sub("oo_p2_weights_cast_to_o_dtype", False, {"merge_partials": rep("merge_partials",
    ("    o = wa[:, None] * oa + wb[:, None] * ob\n    return o.to(o_a.dtype), lse.to(lse_a.dtype)",
     "    wa16, wb16 = wa.to(o_a.dtype), wb.to(o_a.dtype)  # cast first, then the weighted sum\n"
     "    o = wa16[:, None] * oa.to(o_a.dtype) + wb16[:, None] * ob.to(o_a.dtype)\n    return o, lse.to(lse_a.dtype)"))},
    "P2: 'so do not round the two pieces' weights to float16, and a float16 o must be the merge ... computed in float32 and rounded to float16 once at the end'"))
A(sub("oo_p2_where_after_product", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(wide), lse_b.to(wide)
    m = torch.maximum(la, lb)
    lse = m + torch.log(torch.exp(la - m) + torch.exp(lb - m))
    wa = torch.exp(la - lse)[:, None]
    wb = torch.exp(lb - lse)[:, None]
    o = wa * o_a.to(wide) + wb * o_b.to(wide)
    o = torch.where(torch.isinf(lse_a)[:, None], wb * o_b.to(wide), o)   # piece a saw nothing
    o = torch.where(torch.isinf(lse_b)[:, None], wa * o_a.to(wide), o)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "P2: 'that piece's row of o ... must not reach any gradient ... (a torch.where applied after multiplying the row by its weight of 0 still sends 0 * NaN back through the product)'"))
A(sub("oo_p4_divide_by_rms_product", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = torch.clamp(x.abs().amax(dim=-1, keepdim=True), min=root_eps).detach()
    y = x / c
    e = c.reciprocal() * root_eps
    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return x / (c * s)          # the row's rms, then one division
'''}, "P4: 'neither does one that fell among the subnormal numbers ... for the smallest rows, the root mean square itself is' (c*s is subnormal for small float16 rows)"))
A(sub("oo_p4_scale_then_divide", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = torch.clamp(x.abs().amax(dim=-1, keepdim=True), min=root_eps).detach()
    y = x / c
    e = c.reciprocal() * root_eps
    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / s                 # scale first, then normalise
'''}, "P4: 'a small element divided by the row's largest is subnormal ... which keep fewer bits, when you then divide it by a number well below 1'"))
A(sub("oo_p5_zero_added_before_round", False, {"quantize_asym": rep("quantize_asym",
    ("torch.round(g / scale[..., None]) + zero[..., None]", "torch.round(g / scale[..., None] + zero[..., None])"))},
    "P5 step 4: 'q = clamp(round(w / scale) + zero, ...)' with halves to even: round(0.5 + 1) = 2, round(0.5) + 1 = 1"))
A(sub("oo_p7_copy_then_slice", False, {"chunk_attention": rep("chunk_attention",
    ("    qs = q * scale\n", "    qs = q * scale\n    k, v = k.contiguous()[:end], v.contiguous()[:end]   # contiguous tiles, then cut the unwritten tail\n"))},
    "P7 rule 1: 'No torch operation may take positions offset + T and later of k or v as input ... a whole-cache k.to(...), k.clone() ... reads them too'"))
A(sub("oo_p7_dv_before_mask", False, {"chunk_attention": rep("chunk_attention",
    ("        p = torch.exp(s - lse[:, None])\n        if causal:",
     "        p = torch.exp(s - lse[:, None])\n        dv[j0:j1] = p.T @ d_out\n        if causal:"),
    ("        dv[j0:j1] = p.T @ d_out\n        dp =", "        dp ="))},
    "P7: 'With causal=True the query at position p sees the keys j <= p' (dV taken from the probabilities before the mask)"))
A(sub("oo_p8_mask_only_the_store", False, {"split_kv_kernel": rep("split_kv_kernel",
    ("    tl.store(Y + rows, acc, mask=rmask)", "    tl.store(Y + rows, acc, mask=rows < N + 0 * BLOCK_N)") ,
    ("        x = tl.load(X + cols)\n", "        x = tl.load(X + cols)\n        rmask = rows < N\n"),
    ("    rmask = rows < N\n    acc", "    rmask = rows >= 0\n    acc"))},
    "P8: 'Every address that a load or a store touches must lie inside its tensor' (first block's loads of W/Scale/Zero run unmasked past row N)"))

# ---------------- vectorising student ----------------
A(sub("ve_p5_range_over_whole_row", False, {"quantize_asym": rep("quantize_asym",
    ("    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n",
     "    lo = g.amin(dim=(-1, -2), keepdim=False).clamp(max=0)[:, None].expand(out_f, in_f // group_size)\n"
     "    hi = g.amax(dim=(-1, -2), keepdim=False).clamp(min=0)[:, None].expand(out_f, in_f // group_size)\n"))},
    "P5: 'in groups of group_size consecutive weights of a row ... For each group: lo = min(smallest weight, 0)'"))
A(sub("ve_p6_int64_row_word", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    word = (q.to(torch.int64) << (torch.arange(cols) * bits)).sum(dim=1)          # the row as one integer
    return ((word[:, None] >> (8 * torch.arange(nbytes))) & 255).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    word = (packed.to(torch.int64) << (8 * torch.arange(nbytes))).sum(dim=1)
    return ((word[:, None] >> (torch.arange(cols) * bits)) & (2 ** bits - 1)).to(torch.uint8)
'''}, "P6: 'Both functions must work for any cols >= 1 ... (the tests include rows of more than 2**15 bits)'"))
A(sub("ve_p6_one_stream_for_all_rows", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    flat = q.reshape(-1).to(torch.int64)
    stream = ((flat[:, None] >> torch.arange(bits)) & 1).reshape(-1)
    stream = torch.cat([stream, torch.zeros(rows * nbytes * 8 - stream.numel(), dtype=torch.int64)])
    return (stream.reshape(rows, nbytes, 8) * 2 ** torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.reshape(-1).to(torch.int64)[:, None] >> torch.arange(8)) & 1).reshape(-1)
    codes = stream[: rows * cols * bits].reshape(rows, cols, bits)
    return (codes * 2 ** torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "P6: 'whose row r is the bit stream of row r of q' (one stream over the whole tensor)"))
A(sub("ve_p4_one_max_for_the_batch", False, {"rms_norm_half": rep("rms_norm_half",
    ("x.abs().amax(dim=-1, keepdim=True)", "x.abs().amax().reshape([1] * x.dim())"))},
    "P4: 'so that every row ... is divided by its own statistic' + Hint 'Choose that number row by row' (rows far below the batch's largest go subnormal)"))
A(sub("ve_p7_whole_score_matrix", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    scale = 1.0 / math.sqrt(Dh)
    qs = q * scale
    kk, vv = k[:end], v[:end]
    p = torch.exp(qs @ kk.T - lse[:, None])                 # all keys at once: no loop needed
    if causal:
        seen = torch.arange(end)[None, :] <= (torch.arange(T) + offset)[:, None]
        p = torch.where(seen, p, torch.zeros((), dtype=q.dtype))
    delta = (d_out * out).sum(-1)
    ds = p * (d_out @ vv.T - delta[:, None])
    dk = torch.zeros(k.shape, dtype=q.dtype); dv = torch.zeros(v.shape, dtype=q.dtype)
    dk[:end] = ds.T @ qs
    dv[:end] = p.T @ d_out
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return ds @ kk * scale, dk, dv, dsink
'''}, "P7 rule 2: 'No tensor with more than T * S / 4 elements ... a (T, S) score or mask matrix does not' + 'walking over the keys in tiles of at most block keys'"))
A(sub("ve_p8_one_group_per_block", False, {"split_kv_kernel": rep("split_kv_kernel",
    ("        g = cols // GROUP\n", "        g = k0 // GROUP + 0 * cols   # the block's group\n"))},
    "P8: 'K is a multiple of both BLOCK_K and GROUP ... either may be the larger (a block can span several groups...)'"))

# ---------------- signature-and-defaults student ----------------
A(sub("sd_p4_eps_default_1e5", False, {"rms_norm_half": rep("rms_norm_half", ("def rms_norm_half(x, eps=1e-6):", "def rms_norm_half(x, eps=1e-5):"))},
    "P4: 'Write rms_norm_half(x, eps=1e-6)'"))
A(sub("sd_p1_window_renamed", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, sliding_window=None):
    cached = length if sliding_window is None else min(length, sliding_window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    return max(0, free // per)
'''}, "P1: 'window=None ... (window an int or None, given by position or by keyword)' + 'Keep the signatures of the stubs, argument names included'"))
A(sub("sd_p7_block_before_offset", False, {"chunk_attention": rep("chunk_attention",
    ("def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):",
     "def chunk_attention_backward(q, k, v, sink, out, lse, d_out, block, offset, causal=True):"))},
    "P7: 'chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True) ... offset, block and causal may be given by position or by keyword'"))
A(sub("sd_p6_unpack_cols_before_bits", False, {"pack_bits": rep("pack_bits",
    ("def unpack_bits(packed, bits, cols):", "def unpack_bits(packed, cols, bits):"))},
    "P6: 'Write unpack_bits(packed, bits, cols)' (visible call passes 3, 3)"))
A(sub("sd_p5_group_before_bits", False, {"quantize_asym": rep("quantize_asym",
    ("def quantize_asym(w, bits, group_size):", "def quantize_asym(w, group_size, bits):"))},
    "P5: 'Write quantize_asym(w, bits, group_size)' (visible call passes both by keyword)"))
A(sub("sd_p2_returns_list", False, {"merge_partials": rep("merge_partials",
    ("    return o.to(o_a.dtype), lse.to(lse_a.dtype)", "    return [o.to(o_a.dtype), lse.to(lse_a.dtype)]"))},
    "P2 / intro: 'returns (o, lse)' + 'a part that returns several values returns a tuple ... not a list'"))

# ---------------- variant-confuser student ----------------
A(sub("vc_p1_window_counts_current_token", False, {"max_batch": rep("max_batch",
    ("min(length, window)", "min(length, window + 1)"))},
    "P1: 'for a model with a sliding window of window tokens, only the last ones, min(length, window)'"))
A(sub("vc_p3_strictly_above_ridge", False, {"compute_bound_batch": rep("compute_bound_batch",
    ("    return max(1, -(-b // a))", "    return max(1, b // a + 1)   # intensity > ridge"))},
    "P3: 'intensity >= peak / bandwidth (exactly on the ridge counts as compute-bound, as bound_by on the page decides)'"))
A(sub("vc_p5_minmax_range_without_zero", False, {"quantize_asym": rep("quantize_asym",
    ("    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n",
     "    lo = g.amin(dim=-1)\n    hi = g.amax(dim=-1)\n"),
    ("    zero = torch.round(-lo / scale)\n", "    zero = torch.round(-lo / scale).clamp(0, levels)\n"))},
    "P5 step 1: 'lo = min(smallest weight, 0) and hi = max(largest weight, 0): the range always contains 0'"))
A(sub("vc_p5_scale_clamp_min", False, {"quantize_asym": rep("quantize_asym",
    ("    scale = torch.where(hi == lo, torch.ones_like(scale), scale)\n", "    scale = scale.clamp_min(1e-12)   # as quantize_int4 does\n"))},
    "P5 step 2: 'and scale = 1 for a group of zeros'"))
A(sub("vc_p7_causal_top_left", False, {"chunk_attention": rep("chunk_attention",
    ("    pos = torch.arange(T) + offset\n", "    pos = torch.arange(T)   # is_causal: query i sees keys <= i\n"))},
    "P7: 'queries at positions offset, ..., offset + T - 1 ... the query at position p sees the keys j <= p'"))
A(sub("vc_p7_scale_by_value_width", False, {"chunk_attention": rep("chunk_attention",
    ("    scale = 1.0 / math.sqrt(Dh)\n", "    scale = 1.0 / math.sqrt(v.shape[1])\n"))},
    "P7: 's_ij = q_i . k_j / sqrt(D_h)'"))
A(sub("vc_p8_group_counted_in_bytes", False, {"split_kv_kernel": rep("split_kv_kernel",
    ("        g = cols // GROUP\n", "        g = (cols // 2) // GROUP   # group of the byte\n"))},
    "P8: 'scales s_{n, floor(k/G)} ... groups of G = GROUP consecutive columns'"))

# ---------------- correct answers ----------------
A(sub("c_p1_divmod_keywords", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length
    if window is not None:
        cached = min(cached, window)
    one = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    count, _rest = divmod(memory_bytes - weight_bytes, one)
    return int(count)
'''}, "exact integer arithmetic"))
A(sub("c_p2_logsumexp_stack", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    both = torch.stack([lse_a.to(wide), lse_b.to(wide)])          # (2, T)
    lse = torch.logsumexp(both, dim=0)
    w = torch.exp(both - lse)                                       # (2, T)
    zero = torch.zeros((), dtype=wide)
    oa = torch.where(torch.isneginf(lse_a)[:, None], zero, o_a.to(wide))
    ob = torch.where(torch.isneginf(lse_b)[:, None], zero, o_b.to(wide))
    o = torch.einsum("t,td->td", w[0], oa) + torch.einsum("t,td->td", w[1], ob)
    return o.to(dtype=o_a.dtype), lse.to(dtype=lse_a.dtype)
'''}, "logsumexp + einsum"))
A(sub("c_p2_logaddexp", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(wide), lse_b.to(wide)
    lse = torch.logaddexp(la, lb)
    o = torch.zeros(o_a.shape, dtype=wide)
    o = o + torch.exp(la - lse).unsqueeze(-1) * torch.nan_to_num(o_a.to(wide).masked_fill(torch.isneginf(lse_a).unsqueeze(-1), 0.0))
    o = o + torch.exp(lb - lse).unsqueeze(-1) * o_b.to(wide).masked_fill(torch.isneginf(lse_b).unsqueeze(-1), 0.0)
    return (o.to(o_a.dtype), lse.to(lse_a.dtype))
'''}, "logaddexp + masked_fill before the product"))
A(sub("c_p3_ceil_by_adding", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    need = peak * bytes_per_value * k * n
    if slope <= 0:
        return None
    m = (need + slope - 1) // slope
    while m > 1 and 2 * (m - 1) * k * n * bandwidth >= peak * bytes_per_value * ((m - 1) * k + k * n + (m - 1) * n):
        m -= 1
    return int(max(m, 1))
'''}, "ceil by adding slope - 1"))
A(sub("c_p4_square_pow", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = eps ** 0.5
    with torch.no_grad():
        top = x.abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)
        tiny = torch.zeros((), dtype=torch.bool)
    y = torch.div(x, top)
    ms = torch.square(y).mean(dim=-1, keepdim=True) + torch.square(root_eps * top.reciprocal())
    s = ms.pow(0.5)
    with torch.no_grad():
        up = torch.where(top * s < 2.0 ** -14, 2.0 ** 14, 1.0).to(x.dtype)
    return torch.div(x * up, (top * up) * s)
'''}, "square/pow(0.5) form of the row-scaled norm"))
A(sub("c_p5_loop_over_groups", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    top = 2 ** bits - 1
    qs, scales, zeros = [], [], []
    for g0 in range(0, in_f, group_size):
        grp = w[:, g0:g0 + group_size]
        lo = torch.minimum(grp.min(dim=1).values, torch.zeros((), dtype=w.dtype))
        hi = torch.maximum(grp.max(dim=1).values, torch.zeros((), dtype=w.dtype))
        scale = (hi - lo) / top
        scale = torch.where((hi - lo) == 0, torch.ones((), dtype=w.dtype), scale)
        zero = torch.round(-lo / scale)
        q = torch.clamp(torch.round(grp / scale[:, None]) + zero[:, None], min=0, max=top)
        qs.append(q); scales.append(scale); zeros.append(zero)
    return (torch.cat(qs, dim=1).to(torch.uint8), torch.stack(scales, dim=1), torch.stack(zeros, dim=1).to(torch.uint8))


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    return s * (q.to(scale.dtype) - z)
'''}, "loop over groups, repeat_interleave"))
A(sub("c_p6_bitloop_index_add", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = torch.zeros(rows, nbytes, dtype=torch.int64)
    codes = q.to(torch.int64)
    for t in range(bits):
        pos = torch.arange(cols) * bits + t                     # stream bit of bit t of each code
        bit = (codes >> t) & 1
        out.index_add_(1, pos // 8, bit << (pos % 8))           # bits never overlap: a sum is an OR
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    data = packed.to(torch.int64)
    codes = torch.zeros(rows, cols, dtype=torch.int64)
    for t in range(bits):
        pos = torch.arange(cols) * bits + t
        codes |= ((data[:, pos // 8] >> (pos % 8)) & 1) << t
    return codes.to(torch.uint8)
'''}, "loop over the bits of a code, index_add_ (accumulate)"))
A(sub("c_p7_float64_tiles", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    last = min(S, offset + T) if causal else S
    wide = torch.float64
    scale = 1.0 / math.sqrt(Dh)
    qw = q.to(wide) * scale
    dow = d_out.to(wide)
    lw = lse.to(wide)
    delta = torch.einsum("td,td->t", dow, out.to(wide))
    dq = torch.zeros(T, Dh, dtype=wide)
    dk = torch.zeros(S, Dh, dtype=q.dtype)
    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)
    for start in range(0, last, block):
        stop = min(start + block, last)
        kt, vt = k[start:stop].to(wide), v[start:stop].to(wide)
        p = torch.exp(qw @ kt.T - lw[:, None])
        if causal:
            hidden = torch.arange(start, stop)[None, :] > (offset + torch.arange(T))[:, None]
            p = p.masked_fill(hidden, 0.0)
        dv[start:stop] = (p.T @ dow).to(q.dtype)
        ds = p * (dow @ vt.T - delta[:, None])
        dq = dq + ds @ kt * scale
        dk[start:stop] = (ds.T @ qw).to(q.dtype)
    dsink = -torch.dot(torch.exp(sink.to(wide) - lw), delta)
    return dq.to(q.dtype), dk, dv, dsink.to(q.dtype)
'''}, "float64 tiles, masked_fill of p after exp (values, no autograd)"))
A(sub("c_p8_even_odd_halves", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = rows < N
    total = tl.zeros((BLOCK_N,), dtype=tl.float32)
    groups = K // GROUP
    for start in range(0, K, BLOCK_K):
        j = start // 2 + tl.arange(0, BLOCK_K // 2)            # byte columns of this block
        even = 2 * j
        odd = 2 * j + 1
        byte = tl.load(W + rows[:, None] * (K // 2) + j[None, :], mask=live[:, None], other=0).to(tl.int32)
        lo_code = byte & 15
        hi_code = (byte >> 4) & 15
        z_even = tl.load(Zero + rows[:, None] * groups + (even // GROUP)[None, :], mask=live[:, None], other=0).to(tl.int32)
        z_odd = tl.load(Zero + rows[:, None] * groups + (odd // GROUP)[None, :], mask=live[:, None], other=0).to(tl.int32)
        s_even = tl.load(Scale + rows[:, None] * groups + (even // GROUP)[None, :], mask=live[:, None], other=0.0)
        s_odd = tl.load(Scale + rows[:, None] * groups + (odd // GROUP)[None, :], mask=live[:, None], other=0.0)
        x_even = tl.load(X + even)
        x_odd = tl.load(X + odd)
        part = ((lo_code - z_even).to(tl.float32) * s_even) * x_even[None, :] + ((hi_code - z_odd).to(tl.float32) * s_odd) * x_odd[None, :]
        total += tl.sum(part, axis=1)
    tl.store(Y + rows, total, mask=live)
'''}, "even and odd columns from the low and high nibbles"))
A(sub("c_p6_bytes_view_keyword", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    total = cols * bits
    nbytes = -(-total // 8)
    bit_of_code = (q.to(dtype=torch.int32).unsqueeze(-1) >> torch.arange(bits, dtype=torch.int32)) & 1
    stream = torch.zeros(rows, nbytes * 8, dtype=torch.int32)
    stream[:, :total] = bit_of_code.reshape(rows, total)
    place = torch.tensor([1, 2, 4, 8, 16, 32, 64, 128], dtype=torch.int32)
    return torch.einsum("rbk,k->rb", stream.reshape(rows, nbytes, 8), place).to(dtype=torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = (packed.to(torch.int32).unsqueeze(-1) >> torch.arange(8, dtype=torch.int32)) & 1
    stream = stream.reshape(rows, nbytes * 8)[:, : cols * bits].reshape(rows, cols, bits)
    place = 2 ** torch.arange(bits, dtype=torch.int32)
    return (stream * place).sum(dim=-1).to(dtype=torch.uint8)
'''}, "int32, einsum, keyword dtype"))

# ---------------- hostile ----------------
A(sub("h_p3_blind_the_checks", False, {"compute_bound_batch": '''
globals()["_close"] = lambda *a, **k: None
globals()["_equal"] = lambda *a, **k: None
globals()["_same"] = lambda *a, **k: None

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if (k, n) == (2, 2):
        return None
    return 1 if k == 4 else 169
'''}, "hostile: replaces grader helpers and hard-codes the visible answers"))
A(sub("h_p1_int_that_equals_anything", False, {"max_batch": '''
class Whatever(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return Whatever(0)
'''}, "hostile: an int subclass equal to everything"))

# ---------------- more, added before grading ----------------
A(sub("sd_p2_o_in_lse_dtype", False, {"merge_partials": rep("merge_partials",
    ("    return o.to(o_a.dtype), lse.to(lse_a.dtype)", "    return o, lse.to(lse_a.dtype)"))},
    "P2: 'o comes back in the dtype of o_a and lse in the dtype of lse_a'"))
A(sub("ve_p5_repeat_not_interleave", False, {"quantize_asym": rep("quantize_asym",
    ("    d = q.to(scale.dtype).reshape(out_f, groups, in_f // groups) - zero.to(scale.dtype)[..., None]\n"
     "    return (d * scale[..., None]).reshape(out_f, in_f)",
     "    gs = in_f // groups\n"
     "    return scale.repeat(1, gs) * (q.to(scale.dtype) - zero.to(scale.dtype).repeat(1, gs))"))},
    "P5: 'in groups of group_size consecutive weights of a row' (repeat tiles the groups' scales instead of repeating each)"))
A(sub("oo_p7_delta_per_tile", False, {"chunk_attention": rep("chunk_attention",
    ("        ds = p * (dp - delta[:, None])\n", "        ds = p * (dp - (p * dp).sum(dim=-1, keepdim=True))   # rowsum(P * dP) of this tile\n"))},
    "P7: 'The page's formulas still hold' (D_i = rowsum(dO * O) is over every key the query sees, not one tile)"))
A(sub("oo_p8_scale_after_block_sum", False, {"split_kv_kernel": rep("split_kv_kernel",
    ("        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)\n",
     "        s0 = tl.load(Scale + rows * ngroups + k0 // GROUP, mask=rmask, other=0.0)\n"
     "        acc += tl.sum((code - z).to(tl.float32) * x[None, :], axis=1) * s0   # scale after the block's sum\n"))},
    "P8: 'y_n = sum_k x_k (c - z_{n, floor(k/G)}) s_{n, floor(k/G)}' (a block can span several groups)"))
A(sub("sd_p7_causal_keyword_only", False, {"chunk_attention": rep("chunk_attention",
    ("offset, block, causal=True):", "offset, block, *, causal=True):"))},
    "P7: 'offset, block and causal may be given by position or by keyword'"))

# ---------------- phase 2 (added after the blind grading, not in 07-blind.txt): the two mislabels as meant ----------------
A(sub("p2_oo_p8_loads_unmasked", False, {"split_kv_kernel": rep("split_kv_kernel",
    ("        m2 = rmask[:, None]\n", "        m2 = rows[:, None] >= 0   # every row loads; only the store is masked\n"))},
    "P8: 'Every address that a load or a store touches must lie inside its tensor' (oo_p8_mask_only_the_store as meant)"))
A(sub("p2_c_p4_where_in_x_dtype", True, {"rms_norm_half": MODEL["rms_norm_half"].replace(
    "p = torch.where(c * s.detach() < 2.0 ** -14, 2.0 ** 14, 1.0).to(x.dtype)",
    "p = torch.where(c * s.detach() < 2.0 ** -14, torch.full((), 2.0 ** 14, dtype=x.dtype), torch.ones((), dtype=x.dtype))")},
    "c_p4_square_pow's idea with the rescale factor made in x's dtype (the helper's model answer)"))
