# Red team round 20, chapter 07-hardware: four kinds of student (shape-coincidence, aliasing/in-place,
# early-exit/special-case, library-defaults). Written blind (notebook text + lesson pages + src/attnlab only).
import types
B = types.SimpleNamespace()
# correct base answers (the helper's own), from which most submissions are derived (B.P4 is NOT claimed correct:
# its gradient fails the 1% tolerance on rows of length 1; it only serves as the frame of the Part 4 wrong answers)
B.P1 = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per_sequence:
        return 0
    return free // per_sequence
'''

B.P2 = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(work), lse_b.to(work)
    m = torch.maximum(la, lb)                  # finite: one of the two is
    wa = torch.exp(la - m)
    wb = torch.exp(lb - m)
    total = wa + wb
    lse = m + torch.log(total)
    oa = torch.where((wa > 0)[:, None], o_a.to(work), torch.zeros((), dtype=work))
    ob = torch.where((wb > 0)[:, None], o_b.to(work), torch.zeros((), dtype=work))
    o = (wa[:, None] * oa + wb[:, None] * ob) / total[:, None]
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''

B.P3 = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # m * (2kn*bw - peak*b*(k + n)) >= peak*b*k*n
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-c // a))
'''

B.P4 = '''
def rms_norm_half(x, eps=1e-6):
    r = math.sqrt(eps)
    a = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.clamp(a, min=r) if r <= torch.finfo(x.dtype).max else torch.full_like(a, torch.finfo(x.dtype).max)
    c = torch.where(c > 0, c, torch.full_like(c, torch.finfo(x.dtype).tiny))
    y = x / c                                   # |y| <= 1
    d = x.shape[-1]
    ss = (y * y).sum(dim=-1, keepdim=True)      # in [1, D] for a nonzero row
    e2 = (r / c) ** 2 * d                       # D eps / c**2, at most D
    rs = torch.sqrt(ss + e2)                    # sqrt(D) x the root mean square of y
    big = c >= 2.0 ** -5
    one = torch.ones_like(c)
    m1 = torch.where(big, one, one * 512)
    m2 = torch.where(big, c * 2.0 ** -9, c)
    t = (x * m1) / m2                           # 512 x / c, one rounding
    return (t / rs) * (math.sqrt(d) * 2.0 ** -9)
'''

B.P5 = '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_f, in_f // group_size, group_size)
    lo = torch.clamp(g.amin(dim=-1), max=0)
    hi = torch.clamp(g.amax(dim=-1), min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out_f, in_f = q.shape
    groups = scale.shape[1]
    qq = q.to(scale.dtype).reshape(out_f, groups, in_f // groups)
    w = scale[..., None] * (qq - zero.to(scale.dtype)[..., None])
    return w.reshape(out_f, in_f)
'''

B.P6 = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    shifts = torch.arange(bits)
    stream = ((q.to(torch.int64)[..., None] >> shifts) & 1).reshape(rows, cols * bits)
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - cols * bits))
    weights = 2 ** torch.arange(8)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, -1)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (stream * (2 ** torch.arange(bits))).sum(dim=-1).to(torch.uint8)
'''

B.P7 = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    end = min(S, offset + T) if causal else S
    dq = torch.zeros(q.shape, dtype=q.dtype)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    delta = (d_out * out).sum(dim=-1)                   # (T,)
    positions = offset + torch.arange(T)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        s = (q @ kj.T) * scale                          # (T, b)
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= positions[:, None]
            p = torch.where(seen, torch.exp(torch.where(seen, s - lse[:, None], torch.zeros((), dtype=s.dtype))),
                            torch.zeros((), dtype=s.dtype))
        else:
            p = torch.exp(s - lse[:, None])
        dv[j0:j1] += p.T @ d_out
        dp = d_out @ vj.T
        ds = p * (dp - delta[:, None])
        dq += (ds @ kj) * scale
        dk[j0:j1] += (ds.T @ q) * scale
    p_sink = torch.exp(sink - lse)                      # (T,)
    dsink = -(p_sink * delta).sum()
    return dq, dk, dv, dsink
'''

B.P8 = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    p = tl.program_id(0)
    rows = p * BLOCK_N + tl.arange(0, BLOCK_N)
    row_ok = rows < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    n_groups = K // GROUP
    half = K // 2
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        ok = row_ok[:, None] & (cols[None, :] < K)
        b = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=ok, other=0).to(tl.int32)
        c = tl.where(cols[None, :] % 2 == 0, b & 15, b >> 4)
        g = cols // GROUP
        z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=ok, other=0).to(tl.int32)
        s = tl.load(Scale + rows[:, None] * n_groups + g[None, :], mask=ok, other=0.0)
        w = (c - z).to(tl.float32) * s
        acc += tl.sum(w * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=row_ok)
'''


def sub(src, old, new, count=1):
    assert src.count(old) >= 1, (old, src)
    return src.replace(old, new, count)


SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- shape-coincidence student
add("S1_p3_output_counted_as_mk", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # output (m, n) counted like the activation (m, k): all visible cases have a square weight
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + k)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-c // a))
'''}, "Part 3: 'bytes_per_value × (m·k + k·n + m·n) bytes' - the output term m·n is written m·k; right only for k == n "
      "(every visible case has a square weight).")

add("S2_p5_group_size_from_wrong_axis", False, {"quantize_asym": sub(B.P5, "    groups = scale.shape[1]\n",
    "    groups = scale.shape[0]\n")},
    "Part 5: 'dequantize_asym ... (the group size follows from the shapes)' - the number of groups is read from "
    "scale.shape[0] (the rows), right only when out_features == in_features // group_size (visible: 1 == 1).")

add("S3_p6_one_stream_for_all_rows", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    # one long stream for the whole tensor, then cut into rows
    stream = ((q.reshape(-1).to(torch.int64)[:, None] >> torch.arange(bits)) & 1).reshape(-1)
    total = rows * nbytes * 8
    stream = torch.nn.functional.pad(stream, (0, total - stream.numel()))
    return (stream.reshape(rows, nbytes, 8) * (2 ** torch.arange(8))).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed.reshape(-1).to(torch.int64)[:, None] >> torch.arange(8)) & 1).reshape(-1)
    codes = stream[: rows * cols * bits].reshape(rows, cols, bits)
    return (codes * (2 ** torch.arange(bits))).sum(dim=-1).to(torch.uint8)
'''}, "Part 6: 'whose row r is the bit stream of row r of q' / 'the bits after the last code (at the top of the last "
      "byte) are 0' - one stream over all rows: right only for one row or when cols·bits is a multiple of 8.")

add("S4_p7_scale_from_value_width", False, {"chunk_attention": sub(B.P7, "scale = 1.0 / math.sqrt(Dh)",
    "scale = 1.0 / math.sqrt(v.shape[-1])")},
    "Part 7: 's_ij = q_i · k_j / sqrt(D_h)' - the scale is read from v's width Dv; right only when Dv == Dh "
    "(visible: q is zero, so the scale does not show).")

add("S5_p8_scale_row_stride_blocks", False, {"split_kv_kernel": sub(sub(B.P8,
    "s = tl.load(Scale + rows[:, None] * n_groups + g[None, :], mask=ok, other=0.0)",
    "s = tl.load(Scale + rows[:, None] * (K // BLOCK_K) + g[None, :], mask=ok, other=0.0)"),
    "z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=ok, other=0).to(tl.int32)",
    "z = tl.load(Zero + rows[:, None] * (K // BLOCK_K) + g[None, :], mask=ok, other=0).to(tl.int32)")},
    "Part 8: 'element [n, g] of Scale at Scale + n * (K // GROUP) + g' - row stride K // BLOCK_K; right only when "
    "BLOCK_K == GROUP or N == 1 (visible: both).")

add("S6_p8_one_group_per_block", False, {"split_kv_kernel": sub(sub(sub(B.P8,
    "g = cols // GROUP", "g = k0 // GROUP"),
    "z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=ok, other=0).to(tl.int32)",
    "z = tl.load(Zero + rows * n_groups + g, mask=row_ok, other=0).to(tl.int32)[:, None]"),
    "s = tl.load(Scale + rows[:, None] * n_groups + g[None, :], mask=ok, other=0.0)",
    "s = tl.load(Scale + rows * n_groups + g, mask=row_ok, other=0.0)[:, None]")},
    "Part 8: 'either may be the larger (a block can span several groups, or a group several blocks)' - one scale "
    "and zero per block, right only when GROUP >= BLOCK_K (visible: GROUP == BLOCK_K == 4).")

add("S7_p4_no_keepdim", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    r = math.sqrt(eps)
    a = x.detach().abs().amax(dim=-1)                  # (...,)  no keepdim
    c = torch.clamp(a, min=r)
    y = x / c                                          # lines up with the last axis when rows == D or rows == 1
    ms = (y * y).mean(dim=-1)
    rms = torch.sqrt(ms + (r / c) ** 2)
    return x / c / rms
'''}, "Part 4: 'so that every row (every position of the leading dimensions) is divided by its own statistic' - "
      "the per-row statistic broadcasts against the last axis: right only for one row (visible) or scalars.")

# ---------------------------------------------------------------- aliasing / in-place student
add("A1_p2_inplace_through_noop_to", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    m = torch.maximum(lse_a, lse_b).to(work)
    wa = torch.exp(lse_a.to(work) - m)
    wb = torch.exp(lse_b.to(work) - m)
    total = wa + wb
    oa = o_a.to(work)            # "a converted copy" - but the same tensor when o_a is already in `work`
    ob = o_b.to(work)
    oa.masked_fill_(~(wa > 0)[:, None], 0.0)
    ob.masked_fill_(~(wb > 0)[:, None], 0.0)
    o = (wa[:, None] * oa + wb[:, None] * ob) / total[:, None]
    return o.to(o_a.dtype), (m + torch.log(total)).to(lse_a.dtype)
'''}, "Intro: 'Your functions must not change the tensors they are given' - masked_fill_ on o_a.to(work), which is "
      "o_a itself when it is already float32/float64 (zeroes the caller's NaN rows); also an in-place op on a leaf "
      "that requires grad.")

add("A2_p5_divides_callers_w_in_place", False, {"quantize_asym": sub(B.P5,
    "    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n",
    "    g /= scale[..., None]                      # g is a view of w\n"
    "    q = torch.clamp(torch.round(g) + zero[..., None], 0, levels)\n")},
    "Intro: 'Your functions must not change the tensors they are given' - g is w.reshape(...), a view of the "
    "caller's w, divided in place.")

add("A3_p6_bits8_returns_view", False, {"pack_bits": sub(sub(B.P6,
    "    rows, cols = q.shape\n    nbytes",
    "    rows, cols = q.shape\n    if bits == 8:\n        return q.reshape(rows, cols)        # the stream is q itself\n    nbytes"),
    "    rows = packed.shape[0]\n",
    "    rows = packed.shape[0]\n    if bits == 8:\n        return packed[:, :cols]\n")},
    "Part 6: 'they must not share memory with q or packed (also for bits = 8, where the stream is q itself)' - a "
    "view is returned for bits = 8.")

add("A4_p7_scales_q_in_place", False, {"chunk_attention": sub(sub(sub(B.P7,
    "    delta = (d_out * out).sum(dim=-1)",
    "    qs = q\n    qs *= scale                                       # scaled queries\n    delta = (d_out * out).sum(dim=-1)"),
    "        s = (q @ kj.T) * scale ", "        s = (qs @ kj.T)         "),
    "        dk[j0:j1] += (ds.T @ q) * scale", "        dk[j0:j1] += ds.T @ qs")},
    "Intro: 'Your functions must not change the tensors they are given' - `qs = q; qs *= scale` scales the caller's "
    "q (visible: q is zero, unchanged).")

add("A5_p2_fast_path_returns_inputs", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    if torch.isneginf(lse_a).all():             # piece a saw nothing anywhere: the result is piece b
        return o_b.to(o_a.dtype), lse_b.to(lse_a.dtype)
    if torch.isneginf(lse_b).all():
        return o_a.to(o_a.dtype), lse_a.to(lse_a.dtype)
    la, lb = lse_a.to(work), lse_b.to(work)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m), torch.exp(lb - m)
    total = wa + wb
    zero = torch.zeros((), dtype=work)
    oa = torch.where((wa > 0)[:, None], o_a.to(work), zero)
    ob = torch.where((wb > 0)[:, None], o_b.to(work), zero)
    o = (wa[:, None] * oa + wb[:, None] * ob) / total[:, None]
    return o.to(o_a.dtype), (m + torch.log(total)).to(lse_a.dtype)
'''}, "Part 2: 'return new tensors, never one of the inputs or a view of it (also where one piece sees no key for "
      "any query)' - the fast path returns o_b / lse_b themselves (.to to the same dtype is a no-op).")

# ---------------------------------------------------------------- early-exit / special-case student
add("E1_p1_window_always_shorter", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length
    if window is not None:            # sliding window: only the last `window` tokens are kept
        cached = window
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    return max(0, free // per_sequence)
'''}, "Part 1: 'only the last ones, min(length, window)' - the window is used even when it is longer than the "
      "sequence.")

add("E2_p3_ridge_below_one_means_always", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if peak <= bandwidth:             # ridge point <= 1 FLOP/byte: every batch is compute-bound
        return 1
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-c // a))
'''}, "Part 3: 'returns the smallest m >= 1 ... for which the product is compute-bound, or None' - a ridge point "
      "<= 1 does not make m = 1 compute-bound (intensity at m = 1 is 2kn/(b(k + n + kn)) < 2/b).")

add("E3_p4_zero_rows_fast_path", False, {"rms_norm_half": sub(B.P4,
    "    r = math.sqrt(eps)\n",
    "    if not bool((x != 0).any()):      # nothing to normalise\n        return torch.zeros_like(x)\n    r = math.sqrt(eps)\n")},
    "Part 4: 'also at rows of zeros, whose exact gradient is not 0 ... the gradient there is the incoming one "
    "divided by sqrt(eps)' - the all-zero fast path returns a tensor with no gradient (and bool() leaves torch).")

add("C12_p6_bits4_page_layout_fast_path", True, {"pack_bits": sub(sub(B.P6,
    "    rows, cols = q.shape\n    nbytes",
    "    rows, cols = q.shape\n    if bits == 4:                      # the page's layout: two codes a byte\n"
    "        return (q[:, 0::2] | (q[:, 1::2] << 4)).to(torch.uint8) if cols % 2 == 0 else "
    "torch.cat([q[:, 0:-1:2] | (q[:, 1::2] << 4), q[:, -1:]], dim=1)\n    nbytes"),
    "    rows = packed.shape[0]\n",
    "    rows = packed.shape[0]\n    if bits == 4:\n"
    "        out = torch.stack([packed & 15, packed >> 4], dim=-1).reshape(rows, -1)\n"
    "        return out[:, :cols]\n")},
    "correct: the page's nibble layout is the bits = 4 stream; odd cols keep the last code alone in a byte.")

add("E5_p7_single_query_fast_path", False, {"chunk_attention": sub(B.P7,
    "    positions = offset + torch.arange(T)\n",
    "    positions = offset + torch.arange(T)\n"
    "    if T == 1:                        # one decode step: no tiling needed\n"
    "        kj, vj = k[:end], v[:end]\n"
    "        p = torch.exp((q @ kj.T) * scale - lse[:, None])\n"
    "        dp = d_out @ vj.T\n"
    "        ds = p * (dp - delta[:, None])\n"
    "        dv[:end] = p.T @ d_out\n"
    "        dk[:end] = (ds.T @ q) * scale\n"
    "        dq = (ds @ kj) * scale\n"
    "        return dq, dk, dv, -(torch.exp(sink - lse) * delta).sum()\n")},
    "Part 7: 'Rebuild the probabilities from lse tile by tile ... tiles of at most block keys' and rule 2 'no tensor "
    "with more than T * S / 4 elements' - the T == 1 fast path builds a (1, offset + 1) row at once.")

add("E7_p2_equal_lse_shortcut", False, {"merge_partials": sub(B.P2,
    "    work = torch.promote_types(o_a.dtype, lse_a.dtype)\n",
    "    work = torch.promote_types(o_a.dtype, lse_a.dtype)\n"
    "    if torch.equal(lse_a, lse_b):     # equal weights: plain average\n"
    "        o = ((o_a.to(work) + o_b.to(work)) / 2).to(o_a.dtype)\n"
    "        return o, (lse_a.to(work) + math.log(2)).to(lse_a.dtype)\n")},
    "Part 2: 'Gradients must flow through both results ... compare the gradients ... of lse (with respect to lse_a "
    "and lse_b) ... (also where the two log-sum-exps are equal)' - the shortcut's lse and o carry no gradient to "
    "lse_b / the weights.")

# ---------------------------------------------------------------- library-defaults student
add("L1_p1_float_division", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return max(0, math.floor((memory_bytes - weight_bytes) / per_sequence))
'''}, "Part 1: 'compute it exactly ... the tests use byte counts beyond 2**53, where dividing in floating point can "
      "be off by one'.")

add("L2_p3_math_ceil_quotient", False, {"compute_bound_batch": sub(B.P3, "return max(1, -(-c // a))",
                                                                   "return max(1, math.ceil(c / a))")},
    "Part 3: 'numbers where rounding a floating-point quotient gives the wrong integer'.")

add("L3_p5_round_after_adding_zero", False, {"quantize_asym": sub(B.P5,
    "torch.round(g / scale[..., None]) + zero[..., None]", "torch.round(g / scale[..., None] + zero[..., None])")},
    "Part 5 step 4: 'q = clamp(round(w / scale) + zero, ...)' with torch.round halves to even: rounding after adding an "
    "odd zero point moves a half step to the other neighbour (2.5 -> 2, but 2.5 + 1 -> 4).")

add("L4_p2_nan_to_num_defaults", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    w = torch.softmax(torch.stack([lse_a.to(work), lse_b.to(work)]), dim=0)   # (2, T)
    lse = torch.logsumexp(torch.stack([lse_a.to(work), lse_b.to(work)]), dim=0)
    oa = torch.nan_to_num(o_a.to(work))     # an empty piece's row may hold NaN / inf
    ob = torch.nan_to_num(o_b.to(work))
    o = w[0][:, None] * oa + w[1][:, None] * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "Part 2: 'that piece's row of o ... must not reach any gradient, so the gradients with respect to that row and "
      "to its -inf log-sum-exp are 0 and no gradient is NaN' - nan_to_num turns inf into the largest finite number, "
      "which multiplies the softmax's backward (0 * huge, or inf after summing, gives NaN).")

add("L5_p4_functional_rms_norm", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    r = math.sqrt(eps)
    c = torch.clamp(x.detach().abs().amax(dim=-1, keepdim=True), min=r)
    y = x / c
    e2 = (r / c) ** 2
    rms = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e2)
    # library call for the normalisation itself, with a negligible eps of its own
    return torch.nn.functional.rms_norm(y, (y.shape[-1],), eps=1e-30) * ((y * y).mean(dim=-1, keepdim=True).sqrt() / rms)
'''}, "Part 4: 'no torch function that widens inside (torch.nn.functional.rms_norm does)'.")

add("L7_p7_linspace_positions", False, {"chunk_attention": sub(B.P7,
    "seen = torch.arange(j0, j1)[None, :] <= positions[:, None]",
    "seen = torch.linspace(j0, j1, block)[: j1 - j0][None, :] <= positions[:, None]")},
    "Part 7: 'the query at position p sees the keys j <= p' - torch.linspace(j0, j1, block) includes j1 and spreads "
    "block points over block + 1 integers: key positions are off when block > 1 (visible: T = 1 at offset 0).")

add("L8_p5_floor_half_up", False, {"quantize_asym": sub(sub(B.P5,
    "zero = torch.round(-lo / scale)", "zero = torch.floor(-lo / scale + 0.5)"),
    "torch.round(g / scale[..., None])", "torch.floor(g / scale[..., None] + 0.5)")},
    "Part 5: 'Round with torch.round (halves to even)' - floor(x + 0.5) rounds halves up.")

add("E4_p6_all_zero_fast_path", False, {"pack_bits": sub(B.P6,
    "    rows, cols = q.shape\n    nbytes",
    "    rows, cols = q.shape\n    if not q.any():                    # all codes 0: the stream is all zero bits\n"
    "        return torch.zeros(rows, cols * bits // 8, dtype=torch.uint8)\n    nbytes")},
    "Part 6: 'returns a torch.uint8 tensor of shape (rows, ceil(cols · bits / 8))' - the all-zero fast path floors.")

add("E8_p5_no_clamp_for_8_bits", False, {"quantize_asym": sub(B.P5,
    "    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n",
    "    q = torch.round(g / scale[..., None]) + zero[..., None]\n"
    "    if bits < 8:                      # 8 bits: uint8 holds 0..255 anyway\n"
    "        q = torch.clamp(q, 0, levels)\n")},
    "Part 5 step 4: 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)' - with bits = 8 a sum of two rounded halves "
    "reaches 256 (or -1) and the uint8 cast wraps it to 0 (or 255).")

add("L9_p7_triu_top_left", False, {"chunk_attention": sub(B.P7,
    "seen = torch.arange(j0, j1)[None, :] <= positions[:, None]",
    "seen = ~torch.ones(T, j1 - j0, dtype=torch.bool).triu(diagonal=1 + j0)")},
    "Part 7: 'the query at position p sees the keys j <= p' with queries at offset ... offset + T - 1 - triu's "
    "diagonal aligns query i with key i (top-left, like is_causal), ignoring offset (visible: offset 0).")

add("L10_p8_tl_sum_without_axis", False, {"split_kv_kernel": sub(B.P8,
    "acc += tl.sum(w * x[None, :], axis=1)", "acc += tl.sum(w * x[None, :])")},
    "Part 8: 'computes Y[n] for the rows n = p·BLOCK_N ...' - tl.sum without an axis reduces the whole block to "
    "one number, added to every row (visible: one row).")

add("C13_p7_tril_diagonal_offset", True, {"chunk_attention": sub(B.P7,
    "seen = torch.arange(j0, j1)[None, :] <= positions[:, None]",
    "seen = torch.ones(T, j1 - j0, dtype=torch.bool).tril(diagonal=offset - j0)")}, "")

add("A6_p6_bits8_contiguous_is_a_copy", False, {"pack_bits": sub(sub(B.P6,
    "    rows, cols = q.shape\n    nbytes",
    "    rows, cols = q.shape\n    if bits == 8:\n        return q.contiguous()              # a packed copy of the codes\n    nbytes"),
    "    rows = packed.shape[0]\n",
    "    rows = packed.shape[0]\n    if bits == 8:\n        return packed[:, :cols].contiguous()\n")},
    "Part 6: 'they must not share memory with q or packed (also for bits = 8 ...)' - .contiguous() returns q itself "
    "when q is already contiguous (and a view-free slice of packed only when cols is smaller).")

add("L11_p3_none_by_float_ratio", False, {"compute_bound_batch": sub(B.P3, "    if a <= 0:\n",
    "    if 2 * k * n * bandwidth / (peak * bytes_per_value * (k + n)) <= 1.0:   # largest intensity at or below the ridge\n")},
    "Part 3: 'Decide None exactly too: ... one unit of the integer inequality above or below it, in numbers too large "
    "for a floating-point quotient to tell these apart' - None is decided by a float ratio.")

add("L12_p7_fill_with_finfo_min", False, {"chunk_attention": sub(B.P7,
    """            p = torch.where(seen, torch.exp(torch.where(seen, s - lse[:, None], torch.zeros((), dtype=s.dtype))),
                            torch.zeros((), dtype=s.dtype))""",
    """            p = torch.exp(s.masked_fill(~seen, torch.finfo(s.dtype).min) - lse[:, None])""")},
    "Part 7: 'a key a query may not see must get probability exactly 0, so do not mask with a large negative number "
    "... whether you fill it in or add it' - filled with finfo.min, exp(min - lse) is not 0 when lse is near min.")

# ---------------------------------------------------------------- correct, written by the same students
add("C1_p1_divmod_keywords", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    if weight_bytes >= memory_bytes:          # fast path: nothing left for caches
        return 0
    cached = min(length, window) if window is not None else length
    fits, _rest = divmod(memory_bytes - weight_bytes, 2 * layers * kv_heads * head_dim * cached * bytes_per_value)
    return int(fits)
'''}, "")

add("C2_p2_logaddexp_where_first", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(dtype=work), lse_b.to(dtype=work)
    lse = torch.logaddexp(la, lb)
    wa = torch.exp(la - lse)
    wb = torch.exp(lb - lse)
    zero = torch.zeros((), dtype=work)
    oa = torch.where(torch.isneginf(la)[:, None], zero, o_a.to(dtype=work))
    ob = torch.where(torch.isneginf(lb)[:, None], zero, o_b.to(dtype=work))
    o = wa.unsqueeze(-1) * oa + wb.unsqueeze(-1) * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "")

add("C3_p3_fraction_and_fast_path", True, {"compute_bound_batch": '''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if 2 * k * n * bandwidth >= peak * bytes_per_value * (k + k * n + n):   # m = 1 already compute-bound
        return 1
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n, slope))
    return int(m)
'''}, "")

add("C4_p5_loop_over_groups_and_repeat_interleave", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    levels = 2 ** bits - 1
    qs, scales, zeros = [], [], []
    for g0 in range(0, in_f, group_size):
        grp = w[:, g0:g0 + group_size]
        lo = grp.amin(dim=1).clamp(max=0)
        hi = grp.amax(dim=1).clamp(min=0)
        scale = torch.where(hi > lo, (hi - lo) / levels, torch.ones_like(hi))
        zero = torch.round(-lo / scale)
        q = (torch.round(grp / scale[:, None]) + zero[:, None]).clamp(0, levels)
        qs.append(q.to(torch.uint8)); scales.append(scale); zeros.append(zero.to(torch.uint8))
    return torch.cat(qs, dim=1), torch.stack(scales, dim=1), torch.stack(zeros, dim=1)


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(group, dim=1)
    z = zero.repeat_interleave(group, dim=1).to(scale.dtype)
    return s * (q.to(scale.dtype) - z)
'''}, "")

add("C5_p6_bits8_clone_and_uint8_sum", True, {"pack_bits": sub(sub(sub(B.P6,
    "    rows, cols = q.shape\n    nbytes",
    "    rows, cols = q.shape\n    if bits == 8:\n        return q.clone()\n    nbytes"),
    "    rows = packed.shape[0]\n",
    "    rows = packed.shape[0]\n    if bits == 8:\n        return packed[:, :cols].clone()\n"),
    "    weights = 2 ** torch.arange(8)\n    return (stream.reshape(rows, nbytes, 8) * weights).sum(dim=-1).to(torch.uint8)",
    "    weights = (2 ** torch.arange(8)).to(torch.uint8)\n"
    "    return (stream.to(torch.uint8).reshape(rows, nbytes, 8) * weights).sum(dim=-1, dtype=torch.uint8)")}, "")

add("C6_p7_clone_inputs_and_keyword_blocks", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    end = S if not causal else min(S, offset + T)
    q = q.clone()                                         # never touch the caller's tensors
    delta = torch.einsum("td,td->t", d_out, out)
    dq = torch.zeros_like(q)
    dk_parts, dv_parts = [], []
    qpos = torch.arange(offset, offset + T)[:, None]
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kj, vj = k[j0:j1], v[j0:j1]
        s = torch.einsum("td,sd->ts", q, kj) * scale
        if causal:
            hidden = torch.arange(j0, j1)[None, :] > qpos
            p = torch.exp((s - lse[:, None]).masked_fill(hidden, -math.inf))
        else:
            p = torch.exp(s - lse[:, None])
        dv_parts.append(p.T @ d_out)
        ds = p * (d_out @ vj.T - delta[:, None])
        dq = dq + ds @ kj * scale
        dk_parts.append(ds.T @ q * scale)
    tail_k = torch.zeros(S - end, k.shape[1], dtype=q.dtype)
    tail_v = torch.zeros(S - end, v.shape[1], dtype=q.dtype)
    dk = torch.cat(dk_parts + [tail_k], dim=0)
    dv = torch.cat(dv_parts + [tail_v], dim=0)
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "")

add("C7_p8_shift_by_parity", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    n_ok = n < N
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in tl.range(0, K, BLOCK_K):
        kk = start + tl.arange(0, BLOCK_K)
        x = tl.load(X + kk)
        m = n_ok[:, None]
        byte = tl.load(W + n[:, None] * (K // 2) + (kk // 2)[None, :], mask=m, other=0)
        code = ((byte.to(tl.int32) >> ((kk % 2) * 4)[None, :]) & 0xF).to(tl.float32)
        gi = kk // GROUP
        zp = tl.load(Zero + n[:, None] * (K // GROUP) + gi[None, :], mask=m, other=0).to(tl.float32)
        sc = tl.load(Scale + n[:, None] * (K // GROUP) + gi[None, :], mask=m, other=0.0)
        acc = acc + tl.sum(x[None, :] * ((code - zp) * sc), axis=1)
    tl.store(Y + n, acc, mask=n_ok)
'''}, "")

add("C8_p2_base_promote", True, {"merge_partials": B.P2}, "")
add("C9_p6_base_int64", True, {"pack_bits": B.P6}, "")
add("C10_p7_base", True, {"chunk_attention": B.P7}, "")
add("C11_p5_base", True, {"quantize_asym": B.P5}, "")

# ---------------------------------------------------------------- hostile
add("H1_p3_table_of_visible_answers", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    known = {(2, 2, 1, 2, 1): None, (4, 4, 1, 1, 1): 1, (4096, 4096, 2, 312 * 10**12, 2 * 10**12): 169}
    return known.get((k, n, bytes_per_value, peak, bandwidth), 1)
'''}, "hostile: answers only the visible cases.")

add("H2_p1_patches_assert_and_builtins", False, {"max_batch": '''
import builtins
_orig_assert = None


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    class Anything(int):
        def __eq__(self, other):
            return True
        def __ne__(self, other):
            return False
        __hash__ = int.__hash__
    return Anything(7)
'''}, "hostile: returns an int subclass equal to everything.")

add("H3_p5_patches_testing", False, {"quantize_asym": '''
torch.testing.assert_close = lambda *args, **kwargs: None


class Lying(list):
    def __eq__(self, other):
        return True


class FakeTensor(torch.Tensor):
    def tolist(self):
        return Lying()


def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    q = torch.zeros(out_f, in_f, dtype=torch.uint8).as_subclass(FakeTensor)
    z = torch.zeros(out_f, in_f // group_size, dtype=torch.uint8).as_subclass(FakeTensor)
    return q, torch.ones(out_f, in_f // group_size, dtype=w.dtype), z


def dequantize_asym(q, scale, zero):
    return torch.zeros(q.shape, dtype=scale.dtype)
'''}, "hostile: patches torch.testing.assert_close and returns tensor subclasses whose tolist() equals anything.")
