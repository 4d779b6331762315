# Red team round 8, chapter 07-hardware: blind submissions.
BASE = {}
BASE["max_batch"] = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per:
        return 0
    return free // per
'''
BASE["merge_partials"] = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(torch.promote_types(lse_a.dtype, lse_b.dtype), torch.float32)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m), torch.exp(lb - m)
    s = wa + wb
    lse = m + torch.log(s)
    oa = torch.where((wa > 0)[:, None], o_a.to(ct), torch.zeros((), dtype=ct))
    ob = torch.where((wb > 0)[:, None], o_b.to(ct), torch.zeros((), dtype=ct))
    o = (wa[:, None] * oa + wb[:, None] * ob) / s[:, None]
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''
BASE["compute_bound_batch"] = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    P = peak * bytes_per_value
    A = 2 * k * n * bandwidth - P * (k + n)
    if A <= 0:
        return None
    return max(1, -(-(P * k * n) // A))
'''
BASE["rms_norm_half"] = '''
def rms_norm_half(x, eps=1e-6):
    xf = x.to(torch.float32)
    ms = (xf * xf).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps)).to(x.dtype)
'''
BASE["quantize_asym"] = '''
def quantize_asym(w, bits, group_size):
    O, I = w.shape
    g = w.reshape(O, I // group_size, group_size)
    L = 2 ** bits - 1
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / L
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale).clamp(0, L)
    q = (torch.round(g / scale[..., None]) + zero[..., None]).clamp(0, L)
    return q.reshape(O, I).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    O, I = q.shape
    G = I // scale.shape[1]
    d = (q.to(scale.dtype).reshape(O, -1, G) - zero.to(scale.dtype)[..., None]) * scale[..., None]
    return d.reshape(O, I)
'''
BASE["pack_bits"] = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    b = (q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1
    stream = b.reshape(rows, cols * bits)
    stream = torch.cat([stream, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1)
    return (stream.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)
    stream = stream[:, :cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits)).sum(-1).to(torch.uint8)
'''
BASE["chunk_attention"] = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    dt = q.dtype
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    scale = 1.0 / math.sqrt(Dh)
    lsef, dof = lse.to(dt), d_out.to(dt)
    D = (dof * out.to(dt)).sum(-1)
    dq = torch.zeros(T, Dh, dtype=dt)
    dk = torch.zeros(S, Dh, dtype=dt)
    dv = torch.zeros(S, v.shape[1], dtype=dt)
    pos = torch.arange(T) + offset
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        kt, vt = k[j0:j1].to(dt), v[j0:j1].to(dt)
        s = (q @ kt.T) * scale
        if causal:
            s = torch.where(torch.arange(j0, j1)[None, :] <= pos[:, None], s, float("-inf"))
        P = torch.exp(s - lsef[:, None])
        dv[j0:j1] = P.T @ dof
        dS = P * (dof @ vt.T - D[:, None])
        dq += (dS @ kt) * scale
        dk[j0:j1] = (dS.T @ q) * scale
    dsink = -(torch.exp(sink.to(dt) - lsef) * D).sum()
    return dq, dk, dv, dsink
'''
KERNEL = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rn = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    nmask = rn < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + rk)
        b = tl.load(W + rn[:, None] * (K // 2) + (rk // 2)[None, :], mask=nmask[:, None], other=0).to(tl.int32)
        c = tl.where((rk % 2 == 0)[None, :], b & 15, (b >> 4) & 15)
        g = rk // GROUP
        s = tl.load(Scale + rn[:, None] * (K // GROUP) + g[None, :], mask=nmask[:, None], other=0.0)
        z = tl.load(Zero + rn[:, None] * (K // GROUP) + g[None, :], mask=nmask[:, None], other=0).to(tl.int32)
        acc += tl.sum((c - z).to(tl.float32) * s * x[None, :], axis=1)
    tl.store(Y + rn, acc, mask=nmask)
'''
BASE["split_kv_kernel"] = KERNEL


def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}


def rep(part, old, new, count=1):
    src = BASE[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)


SUBMISSIONS = [
    # ---------------- wrong answers ----------------
    sub("p1_window_not_min", False, {"max_batch": rep("max_batch",
        "cached = length if window is None else min(length, window)", "cached = window if window else length")},
        "'cached ... only the last ones, min(length, window)': a window longer than the sequence is counted in full."),
    sub("p1_negative_when_weights_too_big", False, {"max_batch": rep("max_batch",
        "    if free < per:\n        return 0\n", "")},
        "'Return 0 when not even one sequence fits, also when the weights alone do not': returns a negative count."),
    sub("p2_lse_a_as_reference", False, {"merge_partials": rep("merge_partials",
        "m = torch.maximum(la, lb)", "m = torch.where(torch.isinf(la), lb, la)")},
        "'Log-sum-exps can be in the hundreds or thousands: exponentiating them directly overflows': subtracts lse_a, not the max, so exp(lb - la) overflows when lse_b >> lse_a."),
    sub("p2_o_mixed_in_o_dtype", False, {"merge_partials": rep("merge_partials",
        "o = (wa[:, None] * oa + wb[:, None] * ob) / s[:, None]\n    return o.to(o_a.dtype)",
        "o = (wa / s)[:, None].to(o_a.dtype) * oa.to(o_a.dtype) + (wb / s)[:, None].to(o_a.dtype) * ob.to(o_a.dtype)\n    return o")},
        "'a float16 o must be the merge of the given pieces computed in float32 and rounded to float16 once at the end': weights rounded to float16 and mixed in float16."),
    sub("p3_float_ceil", False, {"compute_bound_batch": rep("compute_bound_batch",
        "return max(1, -(-(P * k * n) // A))", "return max(1, math.ceil(P * k * n / A))")},
        "'rounding a floating-point quotient gives the wrong integer ... solve the inequality exactly' (old class: exact counts through float)."),
    sub("p3_none_by_float_intensity", False, {"compute_bound_batch": rep("compute_bound_batch",
        "    if A <= 0:\n        return None\n",
        "    if 2 * k * n / (k + n) <= peak * bytes_per_value / bandwidth:\n        return None\n")},
        "'Decide None exactly too: ... one unit of the integer inequality above or below it, in numbers too large for a floating-point quotient' (old class: float)."),
    sub("p4_eps_hardcoded", False, {"rms_norm_half": rep("rms_norm_half", "ms + eps", "ms + 1e-6")},
        "'with epsilon = eps inside the square root': the eps argument is ignored (right only for the default)."),
    sub("p4_mean_over_all_rows", False, {"rms_norm_half": rep("rms_norm_half",
        "(xf * xf).mean(dim=-1, keepdim=True)", "(xf * xf).mean()")},
        "'every row (every position of the leading dimensions) is divided by its own statistic': one statistic for the whole tensor (visible input has one row)."),
    sub("p4_no_keepdim_broadcast", False, {"rms_norm_half": rep("rms_norm_half",
        "(xf * xf).mean(dim=-1, keepdim=True)", "(xf * xf).mean(dim=-1)")},
        "'every row ... divided by its own statistic': the (rows,) statistic broadcasts along the last axis, so row statistics are applied to columns (right for one row; square inputs mix rows and columns)."),
    sub("p5_round_from_lo", False, {"quantize_asym": rep("quantize_asym",
        "(torch.round(g / scale[..., None]) + zero[..., None])", "torch.round((g - lo[..., None]) / scale[..., None])")},
        "step 4 'q = clamp(round(w / scale) + zero, ...)': rounds (w - lo)/scale, which differs when -lo/scale is not an integer."),
    sub("p5_strided_groups", False, {"quantize_asym": rep("quantize_asym",
        "g = w.reshape(O, I // group_size, group_size)",
        "g = w.reshape(O, group_size, I // group_size).transpose(1, 2)").replace(
        "return q.reshape(O, I)", "return q.transpose(1, 2).reshape(O, I)")},
        "'in groups of group_size consecutive weights of a row': groups every (I/group_size)-th weight (same as consecutive when there is one group)."),
    sub("p5_dequant_group_from_scale_width", False, {"quantize_asym": rep("quantize_asym",
        "G = I // scale.shape[1]", "G = scale.shape[1]")},
        "'(the group size follows from the shapes)': uses the number of groups as the group size; right when both are 1... here the visible case has I=4, one group -> G=1 works by broadcasting? (checked: passes visible)"),
    sub("p5_no_clamp_top", False, {"quantize_asym": rep("quantize_asym",
        "(torch.round(g / scale[..., None]) + zero[..., None]).clamp(0, L)", "(torch.round(g / scale[..., None]) + zero[..., None])")},
        "step 4 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': without the clamp round(a)+round(b) can reach 2**bits."),
    sub("p6_one_stream_for_all_rows", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    total = rows * cols * bits
    b = ((q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1).reshape(-1)
    b = torch.cat([b, torch.zeros(rows * nbytes * 8 - total, dtype=torch.int64)])
    return (b.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(-1)
    stream = stream[:rows * cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "'whose row r is the bit stream of row r of q': one continuous stream over all rows, so rows after the first start mid-byte (right for one row)."),
    sub("p6_unpack_uses_junk_bits", False, {"pack_bits": BASE["pack_bits"].split("def unpack_bits")[0] + '''
def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    out = []
    for r in range(rows):
        big = int.from_bytes(bytes(packed[r].tolist()), "little")
        row = [(big >> (c * bits)) & ((1 << bits) - 1) for c in range(cols - 1)]
        row.append(big >> ((cols - 1) * bits))
        out.append(row)
    return torch.tensor(out, dtype=torch.uint8)
'''}, "'it must use only the stream bits of those cols codes (whatever the bits after them hold)': the last code takes all the bits above it."),
    sub("p7_no_scale_in_dq_dk", False, {"chunk_attention": rep("chunk_attention",
        "dq += (dS @ kt) * scale", "dq += dS @ kt").replace("dk[j0:j1] = (dS.T @ q) * scale", "dk[j0:j1] = dS.T @ q")},
        "'scores s_ij = q_i . k_j / sqrt(Dh)': the chain rule's 1/sqrt(Dh) is missing from dq and dk (visible q = k = 0)."),
    sub("p7_mask_ignores_offset", False, {"chunk_attention": rep("chunk_attention",
        "pos = torch.arange(T) + offset", "pos = torch.arange(T)")},
        "'the query at position p sees the keys j <= p' with positions offset ... offset+T-1: the mask uses the query's index in the chunk."),
    sub("p7_full_mask_matrix", False, {"chunk_attention": rep("chunk_attention",
        "    pos = torch.arange(T) + offset\n",
        "    pos = torch.arange(T) + offset\n    seen = torch.arange(S)[None, :] <= pos[:, None]\n").replace(
        "torch.where(torch.arange(j0, j1)[None, :] <= pos[:, None], s", "torch.where(seen[:, j0:j1], s")},
        "rule 2 'No tensor with more than T*S/4 elements ... a (T, S) score or mask matrix does not' fit: builds the whole (T, S) causal mask once."),
    sub("p7_whole_cache_cast", False, {"chunk_attention": rep("chunk_attention",
        "    D = (dof * out.to(dt)).sum(-1)\n", "    D = (dof * out.to(dt)).sum(-1)\n    k, v = k.to(dt, copy=True), v.to(dt, copy=True)\n")},
        "rule 1 'a whole-cache k.to(...), k.clone() ... reads them too': copies the whole cache, unwritten positions included."),
    sub("p7_causal_false_uses_offset", False, {"chunk_attention": rep("chunk_attention",
        "end = min(S, offset + T) if causal else S", "end = min(S, offset + T)")},
        "'With causal=False every query sees all S keys and offset is not used': keys after offset+T are dropped."),
    sub("p8_group_from_block", False, {"split_kv_kernel": KERNEL.replace("g = rk // GROUP", "g = rk // BLOCK_K")},
        "'groups of G = GROUP consecutive columns ... either may be the larger': uses the block as the group (visible GROUP == BLOCK_K)."),
    sub("p8_one_group_per_block", False, {"split_kv_kernel": KERNEL.replace("g = rk // GROUP", "g = (k0 // GROUP) + 0 * rk")},
        "'a block can span several groups': takes the group of the block's first column for the whole block."),
    sub("p8_w_row_stride_K", False, {"split_kv_kernel": KERNEL.replace("W + rn[:, None] * (K // 2)", "W + rn[:, None] * K")},
        "'element [n, b] of W is at W + n * (K // 2) + b': row stride K (right for one row, the visible case)."),
    # ---------------- correct, different ----------------
    sub("c_p2_logaddexp", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(torch.promote_types(lse_a.dtype, lse_b.dtype), torch.float32)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    lse = torch.logaddexp(la, lb)
    out = torch.zeros(o_a.shape, dtype=ct)
    for o_x, l_x in ((o_a, la), (o_b, lb)):
        w = torch.exp(l_x - lse)
        out = out + torch.where(torch.isneginf(l_x)[:, None], 0.0, o_x.to(ct) * w[:, None])
    return out.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "logaddexp and per-piece weights exp(L_x - L), masking the dead piece with where."),
    sub("c_p3_fraction_via_part1", True, {"compute_bound_batch": '''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    ridge = Fraction(peak, bandwidth)
    # intensity as m -> oo is 2kn / (bpv (k + n)); compare exactly
    if Fraction(2 * k * n, bytes_per_value * (k + n)) <= ridge:
        return None
    num = peak * bytes_per_value * k * n
    den = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    # ceil(num / den) with Part 1's max_batch: floor((mem - w) / per), per = 2 * den here, by keyword
    m = max_batch(memory_bytes=2 * (num + den - 1) + 1, weight_bytes=1, layers=1, kv_heads=1, head_dim=den,
                  length=10 ** 40, bytes_per_value=1, window=1)
    return max(1, m)
'''}, "exact Fraction test for None, and the ceiling from Part 1's max_batch called by keyword with a window shorter than the length."),
    sub("c_p4_functional_rms_norm", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    y = torch.nn.functional.rms_norm(x.float(), (x.shape[-1],), eps=eps)
    return y.to(x.dtype)
'''}, "torch's own rms_norm on a float32 copy."),
    sub("c_p6_python_bigint", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = []
    for row in q.tolist():
        big = 0
        for c, code in enumerate(row):
            big |= code << (c * bits)
        out.append(list(big.to_bytes(nbytes, "little")))
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, nbytes)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    mask = (1 << bits) - 1
    out = []
    for row in packed.tolist():
        big = int.from_bytes(bytes(row), "little")
        out.append([(big >> (c * bits)) & mask for c in range(cols)])
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, cols)
'''}, "one Python int per row as the bit stream (to_bytes / from_bytes little-endian)."),
    sub("c_p7_delta_from_tiles_two_pass", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    dt = q.dtype
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    qs = q.to(dt) / math.sqrt(Dh)
    L = lse.to(dt)
    dO = d_out.to(dt)
    pos = offset + torch.arange(T)

    def probs(j0, j1):
        s = qs @ k[j0:j1].to(dt).T
        if causal:
            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos[:, None], float("-inf"))
        return torch.exp(s - L[:, None])

    # pass 1: D_i = sum_j P_ij dP_ij (the sink's value is zero, so it adds nothing)
    D = torch.zeros(T, dtype=dt)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        D += (probs(j0, j1) * (dO @ v[j0:j1].to(dt).T)).sum(1)
    dq = torch.zeros(T, Dh, dtype=dt)
    dk = torch.zeros(S, Dh, dtype=dt)
    dv = torch.zeros(S, v.shape[1], dtype=dt)
    for j0 in range(0, end, block):
        j1 = min(j0 + block, end)
        P = probs(j0, j1)
        dv[j0:j1] = P.T @ dO
        dS = P * (dO @ v[j0:j1].to(dt).T - D[:, None])
        dq += dS @ k[j0:j1].to(dt) / math.sqrt(Dh)
        dk[j0:j1] = dS.T @ qs
    p_sink = torch.exp(sink.to(dt) - L)
    return dq, dk, dv, (p_sink * (0 - D)).sum()
'''}, "D from the tiles in a first pass instead of rowsum(dO * out); masked_fill; the sink as a logit with value 0."),
    sub("c_p8_two_nibble_halves", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    ok = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    HALF: tl.constexpr = BLOCK_K // 2
    for k0 in range(0, K, BLOCK_K):
        cb = k0 // 2 + tl.arange(0, HALF)            # byte columns of this block
        byte = tl.load(W + rows[:, None] * (K // 2) + cb[None, :], mask=ok[:, None], other=0).to(tl.float32)
        hi = tl.floor(byte / 16.0)
        lo = byte - 16.0 * hi
        ke = 2 * cb
        ko = 2 * cb + 1
        for (kk, code) in ((ke, lo), (ko, hi)):
            xg = tl.load(X + kk)
            sc = tl.load(Scale + rows[:, None] * (K // GROUP) + (kk // GROUP)[None, :], mask=ok[:, None], other=0.0)
            zz = tl.load(Zero + rows[:, None] * (K // GROUP) + (kk // GROUP)[None, :], mask=ok[:, None], other=0).to(tl.float32)
            acc += tl.sum(xg[None, :] * (code - zz) * sc, axis=1)
    tl.store(Y + rows, acc, mask=ok)
'''}, "even and odd columns handled as two half-blocks, nibbles split with float floor instead of shifts."),
    # ---------------- hostile ----------------
    sub("h_p1_int_subclass_liar", False, {"max_batch": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return Count(0)
'''}, "hostile: an int subclass equal to everything."),
    sub("h_p3_peek_caller_frame", False, {"compute_bound_batch": '''
import sys as system


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    f = system._getframe(1)
    while f is not None:
        for name, val in list(f.f_locals.items()):
            if name.lower() in ("expected", "want", "ref", "reference", "answer", "exp", "target") and (val is None or type(val) is int):
                return val
        f = f.f_back
    table = {(2, 2, 1, 2, 1): None, (4, 4, 1, 1, 1): 1, (4096, 4096, 2, 312 * 10**12, 2 * 10**12): 169}
    return table.get((k, n, bytes_per_value, peak, bandwidth), 1)
'''}, "hostile: reads the expected value from the hidden test's frame, else a table of the visible cases."),
    sub("h_p6_numpy_via_importlib", False, {"pack_bits": '''
import importlib


def pack_bits(q, bits):
    np = importlib.import_module("nu" + "mpy")
    a = np.asarray(q.tolist(), dtype=np.uint8)
    b = np.unpackbits(a[..., None], axis=-1, bitorder="little")[..., :bits].reshape(a.shape[0], -1)
    return torch.tensor(np.packbits(b, axis=-1, bitorder="little").tolist(), dtype=torch.uint8).reshape(a.shape[0], -1)


def unpack_bits(packed, bits, cols):
    np = importlib.import_module("nu" + "mpy")
    a = np.asarray(packed.tolist(), dtype=np.uint8)
    b = np.unpackbits(a, axis=-1, bitorder="little")[:, :cols * bits].reshape(a.shape[0], cols, bits)
    return torch.tensor((b * (1 << np.arange(bits))).sum(-1).tolist(), dtype=torch.uint8).reshape(a.shape[0], cols)
'''}, "hostile: NumPy smuggled in through importlib with a split name."),
    sub("h_p4_patch_assert_close", False, {"rms_norm_half": '''
import torch.testing as tt
tt.assert_close = lambda *a, **k: None


def rms_norm_half(x, eps=1e-6):
    return x.clone()
'''}, "hostile: disables torch.testing.assert_close and returns x."),
]

# ---- second blind batch (written before phase 2, after the first blind grade) ----
SUBMISSIONS += [
    sub("p1_window_keyword_only", False, {"max_batch": rep("max_batch", "bytes_per_value, window=None)", "bytes_per_value, *, window=None)")},
        "signature 'max_batch(memory_bytes, ..., bytes_per_value, window=None)': window can only be given by keyword."),
    sub("p3_floor_plus_one", False, {"compute_bound_batch": rep("compute_bound_batch",
        "return max(1, -(-(P * k * n) // A))", "return max(1, (P * k * n) // A + 1)")},
        "'exactly on the ridge counts as compute-bound': one too many when the answer is exactly on the ridge (old class: on the threshold)."),
    sub("p4_divide_in_half", False, {"rms_norm_half": rep("rms_norm_half",
        "return (xf / torch.sqrt(ms + eps)).to(x.dtype)", "return x / torch.sqrt(ms + eps).to(x.dtype)")},
        "'rounded to that dtype once, at the end: divide in float32 too': the statistic is rounded to float16 and the division done in float16."),
    sub("p5_tiny_range_scale_one", False, {"quantize_asym": rep("quantize_asym",
        "scale = torch.where(scale == 0, torch.ones_like(scale), scale)", "scale = torch.where(scale < 1e-8, torch.ones_like(scale), scale)")},
        "step 2 'scale = 1 for a group of zeros': a 'safe' threshold also replaces the scale of groups with a tiny but non-zero range."),
    sub("p5_range_per_row", False, {"quantize_asym": rep("quantize_asym",
        "    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n",
        "    lo = w.amin(dim=-1, keepdim=True).clamp(max=0).expand(O, I // group_size)\n    hi = w.amax(dim=-1, keepdim=True).clamp(min=0).expand(O, I // group_size)\n")},
        "'For each group: lo = min(smallest weight, 0) ...': one range per row (right with one group a row, the visible case)."),
    sub("p7_scale_by_dv", False, {"chunk_attention": rep("chunk_attention",
        "scale = 1.0 / math.sqrt(Dh)", "scale = 1.0 / math.sqrt(d_out.shape[-1])")},
        "'s_ij = q_i . k_j / sqrt(D_h)': scales by the value width (invisible when q = k = 0, the visible case)."),
    sub("c_p2_sigmoid_weights", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(torch.promote_types(lse_a.dtype, lse_b.dtype), torch.float32)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    wa = torch.sigmoid(la - lb)                       # share of piece a; a dead piece gets exactly 0
    wb = torch.sigmoid(lb - la)
    lse = torch.where(la >= lb, la + torch.log1p(torch.exp(lb - la)), lb + torch.log1p(torch.exp(la - lb)))
    oa = torch.nan_to_num(o_a.to(ct), nan=0.0, posinf=0.0, neginf=0.0)
    ob = torch.nan_to_num(o_b.to(ct), nan=0.0, posinf=0.0, neginf=0.0)
    o = torch.where((wa == 0)[:, None], o_b.to(ct), torch.where((wb == 0)[:, None], o_a.to(ct), wa[:, None] * oa + wb[:, None] * ob))
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "sigmoid of the lse difference as the weights, log1p for the lse; dead pieces by where."),
    sub("c_p7_zeros_like_cache", True, {"chunk_attention": rep("chunk_attention",
        "    dk = torch.zeros(S, Dh, dtype=dt)\n    dv = torch.zeros(S, v.shape[1], dtype=dt)\n",
        "    dk = torch.zeros_like(k, dtype=dt)\n    dv = torch.zeros_like(v, dtype=dt)\n")},
        "zeros_like(k) reads k's shape, not its values (rule 1 forbids reading positions: k.to, k.clone, nan_to_num)."),
    sub("c_p4_vector_norm", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    xf = x.to(dtype=torch.float32)
    D = xf.shape[-1]
    norm = torch.linalg.vector_norm(xf, ord=2, dim=-1, keepdim=True)
    return (xf / torch.sqrt(norm * norm / D + eps)).to(x.dtype)
'''}, "the mean square as ||x||^2 / D through torch.linalg.vector_norm in float32."),
]
