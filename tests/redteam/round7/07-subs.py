BASE = {}
BASE["max_batch"] = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    return (memory_bytes - weight_bytes) // per
'''
BASE["merge_partials"] = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(torch.promote_types(o_a.dtype, lse_a.dtype), torch.float32)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m), torch.exp(lb - m)
    tot = wa + wb
    lse = m + torch.log(tot)
    wa, wb = (wa / tot)[:, None], (wb / tot)[:, None]
    oa = torch.where(wa > 0, wa * o_a.to(ct), torch.zeros((), dtype=ct))
    ob = torch.where(wb > 0, wb * o_b.to(ct), torch.zeros((), dtype=ct))
    return (oa + ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''
BASE["compute_bound_batch"] = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-c // a))
'''
BASE["rms_norm_half"] = '''
def rms_norm_half(x, eps=1e-6):
    xf = x.to(torch.float32)
    ms = (xf * xf).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps)).to(x.dtype)
'''
BASE["quantize_asym"] = '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    G = inn // group_size
    wg = w.reshape(out, G, group_size)
    lo = wg.amin(dim=-1).clamp(max=0)
    hi = wg.amax(dim=-1).clamp(min=0)
    levels = 2 ** bits - 1
    scale = (hi - lo) / levels
    scale = torch.where(hi == lo, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(wg / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    return s * (q.to(scale.dtype) - z)
'''
BASE["pack_bits"] = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    shifts = torch.arange(bits)
    b = (q.to(torch.int64)[:, :, None] >> shifts) & 1
    b = b.reshape(rows, cols * bits)
    b = torch.cat([b, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1)
    b = b.reshape(rows, nbytes, 8)
    return (b << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    b = (packed.to(torch.int64)[:, :, None] >> torch.arange(8)) & 1
    b = b.reshape(rows, nbytes * 8)[:, :cols * bits].reshape(rows, cols, bits)
    return (b << torch.arange(bits)).sum(-1).to(torch.uint8)
'''
BASE["chunk_attention"] = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    dt = q.dtype
    scale = 1.0 / math.sqrt(Dh)
    end = min(offset + T, S) if causal else S
    dq = torch.zeros(T, Dh, dtype=dt)
    dk = torch.zeros(S, Dh, dtype=dt)
    dv = torch.zeros(S, v.shape[1], dtype=dt)
    D = (d_out.to(dt) * out.to(dt)).sum(-1)
    L = lse.to(dt)
    pos = torch.arange(T)[:, None] + offset
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kt, vt = k[j0:j1].to(dt), v[j0:j1].to(dt)
        s = (q @ kt.T) * scale
        if causal:
            s = torch.where(torch.arange(j0, j1)[None, :] <= pos, s, torch.tensor(float("-inf"), dtype=dt))
        P = torch.exp(s - L[:, None])
        dv[j0:j1] = P.T @ d_out.to(dt)
        dP = d_out.to(dt) @ vt.T
        dS = P * (dP - D[:, None])
        dq += dS @ kt * scale
        dk[j0:j1] = dS.T @ q * scale
    p_sink = torch.exp(sink.to(dt) - L)
    dsink = -(p_sink * D).sum()
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
        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=rmask[:, None], other=0).to(tl.int32)
        code = (byte >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0.0)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''
SUBMISSIONS = [{"name": "base", "correct": True, "cells": {}, "why": "model"}]

def sub(gid, old, new, count=1):
    s = BASE[gid]
    assert s.count(old) >= 1, (gid, old)
    return s.replace(old, new, count)

def W(name, cells, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- Part 1
W("p1_window_not_min", {"max_batch": sub("max_batch", "min(length, window)", "window")},
  "'cached ... `length`, or, for a model with a sliding window ..., only the last ones, `min(length, window)`': a window longer than the sequence caches only `length` tokens")
W("p1_cached_by_truthiness_and_window_first", {"max_batch": sub("max_batch", "cached = length if window is None else min(length, window)",
  "cached = min(length, window or length)")},
  "correct: `window or length` is the same for positive ints", correct=True)
# ---------------- Part 2
W("p2_weights_rounded_to_o_dtype", {"merge_partials": sub("merge_partials",
  "    oa = torch.where(wa > 0, wa * o_a.to(ct), torch.zeros((), dtype=ct))\n    ob = torch.where(wb > 0, wb * o_b.to(ct), torch.zeros((), dtype=ct))\n    return (oa + ob).to(o_a.dtype), lse.to(lse_a.dtype)",
  "    wa, wb = wa.to(o_a.dtype), wb.to(o_a.dtype)\n    oa = torch.where(wa > 0, wa * o_a, torch.zeros((), dtype=o_a.dtype))\n    ob = torch.where(wb > 0, wb * o_b, torch.zeros((), dtype=o_a.dtype))\n    return (oa + ob).to(o_a.dtype), lse.to(lse_a.dtype)")},
  "'do not round the two pieces' weights to float16 ... mixing in float16 is off by more'")
W("p2_nan_to_num", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(torch.promote_types(o_a.dtype, lse_a.dtype), torch.float32)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    lse = torch.logaddexp(la, lb)
    wa, wb = torch.exp(la - lse)[:, None], torch.exp(lb - lse)[:, None]
    oa = torch.nan_to_num(o_a.to(ct), nan=0.0)
    ob = torch.nan_to_num(o_b.to(ct), nan=0.0)
    return (wa * oa + wb * ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "different but correct: nan_to_num makes the empty rows finite (inf -> float max), and their weight exp(-inf) = 0 then removes them", correct=True)
W("p2_sigmoid_weights", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(torch.promote_types(o_a.dtype, lse_a.dtype), torch.float32)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    lse = torch.logaddexp(la, lb)
    wa = torch.sigmoid(la - lb).unsqueeze(-1)
    wb = torch.sigmoid(lb - la).unsqueeze(-1)
    oa = torch.where(wa == 0, 0.0, o_a.to(ct) * wa)
    ob = torch.where(wb == 0, 0.0, o_b.to(ct) * wb)
    return (oa + ob).to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "different but correct: weights as sigmoids of the lse difference, logaddexp for lse", correct=True)
W("p2_where_on_lse_inf_only_a", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(torch.promote_types(o_a.dtype, lse_a.dtype), torch.float32)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    lse = torch.logaddexp(la, lb)
    wa, wb = torch.exp(la - lse)[:, None], torch.exp(lb - lse)[:, None]
    oa = torch.where(torch.isinf(la)[:, None], 0.0, o_a.to(ct))
    return (wa * oa + wb * o_b.to(ct)).to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "'A piece in which a query sees no key at all has lse = -inf ... the other piece alone decides': guards piece a only, piece b's empty rows poison the result")
# ---------------- Part 3
W("p3_integer_ridge", {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    ridge = peak // bandwidth
    a = 2 * k * n - ridge * bytes_per_value * (k + n)
    c = ridge * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-c // a))
'''}, "'intensity >= peak / bandwidth ... in integers: 2*m*k*n*bandwidth >= peak*bytes_per_value*(...)': the ridge point truncated to an integer")
W("p3_strict_none_at_ridge", {"compute_bound_batch": sub("compute_bound_batch", "if a <= 0:\n        return None\n    return max(1, -(-c // a))",
  "if a < 0:\n        return None\n    if a == 0:\n        return None if c > 0 else 1\n    return max(1, -(-c // a))")},
  "correct rewrite (c > 0 always, so a == 0 gives None)", correct=True)
W("p3_fraction", {"compute_bound_batch": '''
from fractions import Fraction
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # m * (2kn*bw - P*b*(k+n)) >= P*b*k*n
    slope = Fraction(2 * k * n * bandwidth) - Fraction(peak * bytes_per_value * (k + n))
    if slope <= 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n) / slope)
    return int(max(m, 1))
'''}, "different but correct: exact rationals with Fraction", correct=True)
# ---------------- Part 4
W("p4_eps_outside_sqrt", {"rms_norm_half": sub("rms_norm_half", "torch.sqrt(ms + eps)", "(torch.sqrt(ms) + eps)")},
  "'with epsilon = eps inside the square root'")
W("p4_mean_dim1", {"rms_norm_half": sub("rms_norm_half", "mean(dim=-1, keepdim=True)", "mean(dim=1, keepdim=True)")},
  "'the mean taken over the last dimension, so that every row (every position of the leading dimensions) is divided by its own statistic': dim=1 is the last only for 2-D inputs")
W("p4_hardcoded_eps", {"rms_norm_half": sub("rms_norm_half", "torch.sqrt(ms + eps)", "torch.sqrt(ms + 1e-6)")},
  "'with epsilon = eps inside the square root': the eps argument is ignored")
W("p4_vector_norm", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    xf = x.float()
    nrm = torch.linalg.vector_norm(xf, ord=2, dim=-1, keepdim=True)
    rms = torch.sqrt(nrm * nrm / x.shape[-1] + eps)
    return (xf / rms).to(dtype=x.dtype)
'''}, "different but correct: the statistic through vector_norm", correct=True)
W("p4_prescaled_half", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    amax = x.abs().amax(dim=-1, keepdim=True).float().clamp(min=1e-30)
    y = x.float() / amax
    ms = (y * y).mean(dim=-1, keepdim=True)
    return (y / torch.sqrt(ms + eps / (amax * amax))).to(x.dtype)
'''}, "equivalent up to float32 rounding: prescaling by the row max (x/amax / sqrt(ms/amax^2 + eps/amax^2)); but eps/amax^2 overflows for tiny amax... a correct-ish variant", correct=True)
# ---------------- Part 5
W("p5_round_shift_lo", {"quantize_asym": sub("quantize_asym", "torch.round(wg / scale[..., None]) + zero[..., None]",
  "torch.round((wg - lo[..., None]) / scale[..., None])")},
  "'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': rounds w/scale - lo/scale once instead of adding the rounded zero point")
W("p5_lo_without_zero", {"quantize_asym": sub("quantize_asym", "lo = wg.amin(dim=-1).clamp(max=0)\n    hi = wg.amax(dim=-1).clamp(min=0)",
  "lo = wg.amin(dim=-1)\n    hi = wg.amax(dim=-1)")},
  "'lo = min(smallest weight, 0) and hi = max(largest weight, 0): the range always contains 0'")
W("p5_zero_group_global", {"quantize_asym": sub("quantize_asym", "scale = torch.where(hi == lo, torch.ones_like(scale), scale)",
  "if bool((hi == lo).all()):\n        scale = torch.ones_like(scale)")},
  "'scale = 1 for a group of zeros': per group, not only when the whole tensor is zero")
W("p5_floor_half_up", {"quantize_asym": sub("quantize_asym", "torch.round(wg / scale[..., None])", "torch.floor(wg / scale[..., None] + 0.5)")},
  "'Round with torch.round (halves to even)'")
W("p5_dequant_repeat_tile", {"quantize_asym": sub("quantize_asym", "s = scale.repeat_interleave(gs, dim=1)\n    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)",
  "s = scale.repeat(1, gs)\n    z = zero.to(scale.dtype).repeat(1, gs)")},
  "'in groups of group_size consecutive weights of a row': repeat tiles the scales instead of giving each group's scale to its consecutive weights")
W("p5_groups_strided", {"quantize_asym": sub("quantize_asym", "wg = w.reshape(out, G, group_size)", "wg = w.reshape(out, group_size, G).transpose(1, 2)").replace(
  "return q.reshape(out, inn).to(torch.uint8)", "return q.transpose(1, 2).reshape(out, inn).to(torch.uint8)")},
  "'in groups of group_size consecutive weights of a row': groups of every G-th weight")
# ---------------- Part 6
W("p6_one_stream_for_all_rows", {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    b = (q.to(torch.int64).reshape(-1)[:, None] >> torch.arange(bits)) & 1
    b = b.reshape(-1)
    b = torch.cat([b, torch.zeros(rows * nbytes * 8 - b.numel(), dtype=torch.int64)])
    return (b.reshape(-1, 8) << torch.arange(8)).sum(-1).to(torch.uint8).reshape(rows, nbytes)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    b = (packed.to(torch.int64).reshape(-1)[:, None] >> torch.arange(8)) & 1
    b = b.reshape(-1)[:rows * cols * bits].reshape(rows, cols, bits)
    return (b << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "'whose row r is the bit stream of row r of q': the whole tensor packed as one stream, right only when cols*bits is a multiple of 8 or rows == 1")
W("p6_python_int_rows", {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = []
    for row in q.tolist():
        acc = 0
        for c, code in enumerate(row):
            acc |= int(code) << (c * bits)
        out.append(list(acc.to_bytes(nbytes, "little")))
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, nbytes)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    mask = (1 << bits) - 1
    out = []
    for row in packed.tolist():
        acc = int.from_bytes(bytes(row), "little")
        out.append([(acc >> (c * bits)) & mask for c in range(cols)])
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, cols)
'''}, "different but correct: one Python big integer per row", correct=True)
# ---------------- Part 7
W("p7_scale_by_dv", {"chunk_attention": sub("chunk_attention", "scale = 1.0 / math.sqrt(Dh)", "scale = 1.0 / math.sqrt(v.shape[1])")},
  "'scores s_ij = q_i . k_j / sqrt(D_h)': scales by the value width, same when Dv == Dh")
W("p7_end_ignores_causal_flag", {"chunk_attention": sub("chunk_attention", "end = min(offset + T, S) if causal else S", "end = min(offset + T, S)")},
  "'With causal=False every query sees all S keys and offset is not used'")
W("p7_mask_ignores_offset", {"chunk_attention": sub("chunk_attention", "pos = torch.arange(T)[:, None] + offset", "pos = torch.arange(T)[:, None]")},
  "'the query at position p sees the keys j <= p' with positions offset ... offset+T-1")
W("p7_D_from_tiles", {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S, Dv = v.shape
    dt = q.dtype
    sc = Dh ** -0.5
    end = min(offset + T, S) if causal else S
    L = lse.to(dt)[:, None]
    dO = d_out.to(dt)
    # pass 1: D_i = sum_j P_ij dO_i . v_j (equals dO_i . o_i since the sink carries value 0)
    D = torch.zeros(T, dtype=dt)
    tiles = []
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        s = (q @ k[j0:j1].to(dt).T) * sc
        if causal:
            keep = (torch.arange(j0, j1)[None, :] - offset) <= torch.arange(T)[:, None]
            s = s.masked_fill(~keep, float("-inf"))
        P = (s - L).exp()
        D = D + (P * (dO @ v[j0:j1].to(dt).T)).sum(1)
        tiles.append((j0, j1))
    dq = torch.zeros_like(q, dtype=dt)
    dk = q.new_zeros((S, Dh), dtype=dt)
    dv = q.new_zeros((S, Dv), dtype=dt)
    for j0, j1 in tiles:
        kt, vt = k[j0:j1].to(dt), v[j0:j1].to(dt)
        s = (q @ kt.T) * sc
        if causal:
            keep = (torch.arange(j0, j1)[None, :] - offset) <= torch.arange(T)[:, None]
            s = s.masked_fill(~keep, float("-inf"))
        P = (s - L).exp()
        dS = P * (dO @ vt.T - D[:, None])
        dv[j0:j1] = P.T @ dO
        dk[j0:j1] = sc * dS.T @ q
        dq = dq + sc * dS @ kt
    dsink = -((sink.to(dt) - lse.to(dt)).exp() * D).sum()
    return dq, dk, dv, dsink
'''}, "different but correct: D from a first pass over the tiles instead of rowsum(dO * out)", correct=True)
# ---------------- Part 8
W("p8_one_group_per_block", {"split_kv_kernel": sub("split_kv_kernel", "g = cols // GROUP", "g = cols * 0 + k0 // GROUP")},
  "'either may be the larger (a block can span several groups, ...)': one scale per block")
W("p8_group_from_byte_index", {"split_kv_kernel": sub("split_kv_kernel", "g = cols // GROUP", "g = (cols // 2) // GROUP")},
  "'groups of G = GROUP consecutive columns': group index from the byte index")
W("p8_scale_stride_blocks", {"split_kv_kernel": sub("split_kv_kernel",
  "s = tl.load(Scale + rows[:, None] * (K // GROUP)", "s = tl.load(Scale + rows[:, None] * (K // BLOCK_K)")},
  "'element [n, g] of Scale at Scale + n * (K // GROUP) + g': row stride K // BLOCK_K, same when BLOCK_K == GROUP")
W("p8_per_row_programs_vectorised_k", {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n_idx = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    ok = n_idx < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    half = tl.arange(0, BLOCK_K // 2)
    for k0 in range(0, K, BLOCK_K):
        b = k0 // 2 + half
        byte = tl.load(W + n_idx[:, None] * (K // 2) + b[None, :], mask=ok[:, None], other=0).to(tl.int32)
        lo = (byte & 15).to(tl.float32)
        hi = (byte >> 4).to(tl.float32)
        ke = k0 + 2 * half
        ko = ke + 1
        xe = tl.load(X + ke)
        xo = tl.load(X + ko)
        ge = ke // GROUP
        go = ko // GROUP
        ze = tl.load(Zero + n_idx[:, None] * (K // GROUP) + ge[None, :], mask=ok[:, None], other=0).to(tl.float32)
        zo = tl.load(Zero + n_idx[:, None] * (K // GROUP) + go[None, :], mask=ok[:, None], other=0).to(tl.float32)
        se = tl.load(Scale + n_idx[:, None] * (K // GROUP) + ge[None, :], mask=ok[:, None], other=0.0)
        so = tl.load(Scale + n_idx[:, None] * (K // GROUP) + go[None, :], mask=ok[:, None], other=0.0)
        acc += tl.sum((lo - ze) * se * xe[None, :] + (hi - zo) * so * xo[None, :], axis=1)
    tl.store(Y + n_idx, acc, mask=ok)
'''}, "different but correct: even and odd codes handled as two half-width vectors", correct=True)
# ---------------- hostile
W("hostile_int_lies", {"max_batch": '''
class Answer(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return Answer(0)
'''}, "hostile: an int subclass equal to everything")
W("hostile_patch_assert_close", {"merge_partials": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
def merge_partials(o_a, lse_a, o_b, lse_b):
    return o_a.clone(), lse_a.clone()
'''}, "hostile: disables torch's comparisons")
W("hostile_fake_kernel", {"split_kv_kernel": '''
class dequant_matvec_kernel_cls:
    def __getitem__(self, grid):
        def launch(X, W, Scale, Zero, Y, N, K, GROUP, BLOCK_N, BLOCK_K):
            lo = (W & 15).to(torch.float32); hi = (W >> 4).to(torch.float32)
            c = torch.stack([lo, hi], -1).reshape(W.shape[0], -1)
            z = Zero.to(torch.float32).repeat_interleave(GROUP, 1); s = Scale.repeat_interleave(GROUP, 1)
            Y[:N] = ((c - z) * s) @ X
        return launch
dequant_matvec_kernel = dequant_matvec_kernel_cls()
triton.jit = lambda f=None, **kw: f
'''}, "hostile: a torch stand-in that launches like a kernel")
W("hostile_read_caller_frame", {"compute_bound_batch": '''
import sys as system
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    # brute force with a cap, and peek at the grader's locals for anything named expected
    f = system._getframe(1)
    for name in ("expected", "want", "ref", "_expected"):
        if name in f.f_locals:
            return f.f_locals[name]
    for m in range(1, 10000):
        if 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n):
            return m
    return None
'''}, "hostile: reads the caller's locals, falls back on a capped search")
# ================= wave 2
W("p5_no_upper_clamp", {"quantize_asym": sub("quantize_asym", "q = torch.clamp(torch.round(wg / scale[..., None]) + zero[..., None], 0, levels)",
  "q = torch.clamp(torch.round(wg / scale[..., None]) + zero[..., None], min=0)")},
  "'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': with halves rounded to even, round(hi/scale) + zero can be 2**bits (hi/scale = 1.5, -lo/scale = 1.5 at 2 bits)")
W("p5_scale_clamp_tiny", {"quantize_asym": sub("quantize_asym", "scale = torch.where(hi == lo, torch.ones_like(scale), scale)", "scale = scale.clamp(min=1e-12)")},
  "'scale = 1 for a group of zeros'")
W("p7_sink_prob_as_complement", {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    dt = q.dtype
    scale = 1.0 / math.sqrt(Dh)
    end = min(offset + T, S) if causal else S
    dq = torch.zeros(T, Dh, dtype=dt)
    dk = torch.zeros(S, Dh, dtype=dt)
    dv = torch.zeros(S, v.shape[1], dtype=dt)
    D = (d_out.to(dt) * out.to(dt)).sum(-1)
    L = lse.to(dt)
    seen = torch.zeros(T, dtype=dt)
    pos = torch.arange(T)[:, None] + offset
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kt, vt = k[j0:j1].to(dt), v[j0:j1].to(dt)
        s = (q @ kt.T) * scale
        if causal:
            s = torch.where(torch.arange(j0, j1)[None, :] <= pos, s, torch.tensor(float("-inf"), dtype=dt))
        P = torch.exp(s - L[:, None])
        seen = seen + P.sum(1)
        dv[j0:j1] = P.T @ d_out.to(dt)
        dS = P * (d_out.to(dt) @ vt.T - D[:, None])
        dq += dS @ kt * scale
        dk[j0:j1] = dS.T @ q * scale
    p_sink = 1 - seen          # the sink takes what the keys leave
    dsink = -(p_sink * D).sum()
    return dq, dk, dv, dsink
'''}, "'Every probability you rebuild must stay finite and right': the sink's probability as 1 - sum of the keys' cancels when it is small (sink far below the scores)")
W("p7_dsink_from_q_dtype_cast_late", {"chunk_attention": sub("chunk_attention", "p_sink = torch.exp(sink.to(dt) - L)", "p_sink = torch.exp(sink - lse).to(dt)")},
  "correct when sink and lse have q's dtype (the tests' case); computing in their own dtype", correct=True)
W("p2_log1p_merge", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(torch.promote_types(o_a.dtype, lse_a.dtype), torch.float32)
    a, b = lse_a.to(work), lse_b.to(work)
    hi = torch.maximum(a, b)
    lse = hi + torch.log1p(torch.exp(-(a - b).abs()))
    fa = torch.isfinite(a).unsqueeze(1)
    fb = torch.isfinite(b).unsqueeze(1)
    xa = torch.where(fa, o_a.to(work), torch.zeros((), dtype=work)) * torch.exp(a - lse).unsqueeze(1)
    xb = torch.where(fb, o_b.to(work), torch.zeros((), dtype=work)) * torch.exp(b - lse).unsqueeze(1)
    return (xa + xb).to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "different but correct: log1p form and an isfinite guard", correct=True)
W("p6_bits8_returns_view", {"pack_bits": BASE["pack_bits"].replace("def pack_bits(q, bits):\n", "def pack_bits(q, bits):\n    if bits == 8:\n        return q\n", 1).replace("def unpack_bits(packed, bits, cols):\n", "def unpack_bits(packed, bits, cols):\n    if bits == 8:\n        return packed[:, :cols]\n", 1)},
  "correct per the text? for 8 bits the stream is the codes themselves, returned without a copy (the text asks for a uint8 tensor of that shape, and does not ask for a new one)", correct=True)
