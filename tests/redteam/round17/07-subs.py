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
    ct = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    lse = torch.logaddexp(la, lb)
    wa = torch.exp(la - lse).unsqueeze(-1)
    wb = torch.exp(lb - lse).unsqueeze(-1)
    oa = torch.where(torch.isinf(la).unsqueeze(-1), torch.zeros((), dtype=ct), o_a.to(ct))
    ob = torch.where(torch.isinf(lb).unsqueeze(-1), torch.zeros((), dtype=ct), o_b.to(ct))
    o = wa * oa + wb * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
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
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.clamp(c, min=root_eps)
    y = x / c
    e = (root_eps / c) ** 2
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)
    d = c * r
    tiny = torch.finfo(x.dtype).tiny
    return torch.where(d >= tiny, x / d, y / r)
'''
BASE["quantize_asym"] = '''
def quantize_asym(w, bits, group_size):
    out, inf = w.shape
    g = w.reshape(out, inf // group_size, group_size)
    top = 2 ** bits - 1
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    scale = (hi - lo) / top
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale).clamp(0, top)
    q = torch.clamp(torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1), 0, top)
    return q.reshape(out, inf).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inf = q.shape
    gs = inf // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    return s * (q.to(scale.dtype) - z)
'''
BASE["pack_bits"] = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    shifts = torch.arange(bits)
    b = (q.to(torch.int64).unsqueeze(-1) >> shifts) & 1
    b = b.reshape(rows, cols * bits)
    nbytes = (cols * bits + 7) // 8
    pad = nbytes * 8 - cols * bits
    b = torch.cat([b, torch.zeros(rows, pad, dtype=torch.int64)], dim=1).reshape(rows, nbytes, 8)
    return (b << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    b = (packed.to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1
    b = b.reshape(rows, -1)[:, : cols * bits].reshape(rows, cols, bits)
    return (b << torch.arange(bits)).sum(-1).to(torch.uint8)
'''
BASE["chunk_attention"] = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    dt = q.dtype
    seen = min(S, offset + T) if causal else S
    scale = 1.0 / math.sqrt(Dh)
    D = (d_out * out).sum(-1)
    dq = torch.zeros(q.shape, dtype=dt)
    dk = torch.zeros(k.shape, dtype=dt)
    dv = torch.zeros(v.shape, dtype=dt)
    qpos = torch.arange(T) + offset
    for j0 in range(0, seen, block):
        j1 = min(j0 + block, seen)
        kt, vt = k[j0:j1], v[j0:j1]
        s = (q @ kt.T) * scale
        z = s - lse.unsqueeze(-1)
        if causal:
            kpos = torch.arange(j0, j1)
            z = torch.where(kpos.unsqueeze(0) <= qpos.unsqueeze(1), z, torch.tensor(float("-inf"), dtype=dt))
        p = torch.exp(z)
        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vt.T
        ds = p * (dp - D.unsqueeze(-1))
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * D).sum()
    return dq, dk, dv, dsink
'''
BASE["split_kv_kernel"] = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    half = K // 2
    ng = K // GROUP
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=rmask[:, None], other=0).to(tl.int32)
        code = (byte >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * ng + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * ng + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''

import re
B = BASE
def sub(gid, old, new, count=1):
    src = B[gid]
    assert old in src, (gid, old)
    return src.replace(old, new, count)
S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- wrong: defensive programmer ----------------
add("def_p1_float_int", False, {"max_batch": sub("max_batch", "return free // per", "return int(max(0, free / per))")},
    "P1: 'compute it exactly ... byte counts beyond 2^53, where dividing in floating point can be off by one' (int() of a float quotient)")
add("def_p2_clamp_lse_nan_to_num", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(o_a.dtype, lse_a.dtype)
    la = lse_a.to(ct).clamp(min=-1e4)   # avoid -inf
    lb = lse_b.to(ct).clamp(min=-1e4)
    lse = torch.logaddexp(la, lb)
    wa = torch.exp(la - lse).unsqueeze(-1)
    wb = torch.exp(lb - lse).unsqueeze(-1)
    o = wa * torch.nan_to_num(o_a.to(ct), nan=0.0, posinf=0.0, neginf=0.0) + wb * torch.nan_to_num(o_b.to(ct), nan=0.0, posinf=0.0, neginf=0.0)
    lse = torch.where(torch.isinf(lse_a) & torch.isinf(lse_b), lse_a.to(ct), lse)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "P2: 'Log-sum-exps can be in the hundreds or thousands, of either sign ... no value is too small to count when the other piece's is as small' (clamp at -1e4 merges two lse of -2e4 wrongly / -inf piece gets weight)")
add("def_p3_ceil_float", False, {"compute_bound_batch": sub("compute_bound_batch", "return max(1, -(-c // a))", "return max(1, int(math.ceil(c / a)))")},
    "P3: 'Answer exactly ... numbers where rounding a floating-point quotient gives the wrong integer'")
add("def_p4_eps_floor", False, {"rms_norm_half": sub("rms_norm_half", "root_eps = math.sqrt(eps)", "eps = max(eps, 1e-10)  # below this the root underflows\n    root_eps = math.sqrt(eps)")},
    "P4: 'eps from 10^-12 to 1 with both dtypes' and 'epsilon = eps inside the square root' (eps raised to 1e-10)")
add("def_p4_no_grad_stat", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    with torch.no_grad():   # the statistic is just a normaliser
        c = torch.clamp(x.abs().amax(dim=-1, keepdim=True), min=root_eps)
        e = (root_eps / c) ** 2
        r = torch.sqrt(((x / c) ** 2).mean(dim=-1, keepdim=True) + e)
        d = c * r
        tiny = torch.finfo(x.dtype).tiny
    y = x / c
    return torch.where(d >= tiny, x / d, y / r)
'''}, "P4: 'Do not compute the mean of squares under torch.no_grad() or .detach() it' (gradient wrong)")
add("def_p5_double_then_cast", False, {"quantize_asym": sub("quantize_asym", "    out, inf = w.shape\n    g = w.reshape", "    out, inf = w.shape\n    dt = w.dtype\n    w = w.double()  # full precision to be safe\n    g = w.reshape").replace("return q.reshape(out, inf).to(torch.uint8), scale, zero.to(torch.uint8)", "return q.reshape(out, inf).to(torch.uint8), scale.to(dt), zero.to(torch.uint8)")},
    "P5: 'Compute every step in the dtype of w ... do not widen a float32 w to float64 on the way'")
add("def_p5_scale_clamp", False, {"quantize_asym": sub("quantize_asym", "scale = torch.where(scale == 0, torch.ones_like(scale), scale)", "scale = scale.clamp(min=1e-8)  # no division by zero")},
    "P5 step 2: 'scale = 1 for a group of zeros'")
add("def_p6_bits8_early_return", False, {"pack_bits": sub("pack_bits", "    rows, cols = q.shape\n    shifts", "    if bits == 8:\n        return q.contiguous()  # the stream is q itself\n    rows, cols = q.shape\n    shifts")},
    "P6: 'they must not share memory with q or packed (also for bits = 8, where the stream is q itself)'")
add("def_p7_clamp_scores", False, {"chunk_attention": sub("chunk_attention", "s = (q @ kt.T) * scale", "s = ((q @ kt.T) * scale).clamp(-1e4, 1e4)  # keep exp finite")},
    "P7: 'Scores and the sink have no lower bound (the tests include both near -3e9)' (clamped score -1e4 against lse -3e9 gives exp overflow)")
add("def_p7_contiguous_cache", False, {"chunk_attention": sub("chunk_attention", "    T, Dh = q.shape\n", "    T, Dh = q.shape\n    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()\n")},
    "P7 rule 1: 'No torch operation may take positions offset + T and later of k or v as input ... a whole-cache k.clone() ... reads them too' (.contiguous() of a strided cache copies all of it)")
add("def_p8_float64_acc", False, {"split_kv_kernel": sub("split_kv_kernel", "acc = tl.zeros((BLOCK_N,), dtype=tl.float32)", "acc = tl.zeros((BLOCK_N,), dtype=tl.float64)  # no accumulation error").replace("tl.store(Y + rows, acc, mask=rmask)", "tl.store(Y + rows, acc.to(tl.float32), mask=rmask)")},
    "P8: 'Compute in float32 throughout: no float64 value anywhere in the kernel, neither the accumulator ...'")

# ---------------- wrong: high-level library user ----------------
add("lib_p2_softmax_weights_nan", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(o_a.dtype, lse_a.dtype)
    w = torch.softmax(torch.stack([lse_a.to(ct), lse_b.to(ct)], dim=-1), dim=-1)
    lse = torch.logsumexp(torch.stack([lse_a.to(ct), lse_b.to(ct)], dim=-1), dim=-1)
    o = torch.nan_to_num(w[:, :1] * o_a.to(ct), nan=0.0) + torch.nan_to_num(w[:, 1:] * o_b.to(ct), nan=0.0)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "P2: 'the gradients with respect to that row and to its -inf log-sum-exp are 0 and no gradient is NaN' (nan_to_num after the product; also inf*0 rows)")
add("lib_p3_decimal", False, {"compute_bound_batch": '''
from decimal import Decimal, ROUND_CEILING
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    m = (Decimal(c) / Decimal(a)).to_integral_value(rounding=ROUND_CEILING)
    return max(1, int(m))
'''}, "P3: 'some answers ... far beyond (10^40 and more)' -- Decimal's default 28-digit context rounds the quotient")
add("lib_p4_F_rms_norm", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), eps=eps)
'''}, "P4: 'no torch function that widens inside (torch.nn.functional.rms_norm does)'")
add("lib_p7_tril_top_left", False, {"chunk_attention": sub("chunk_attention", "z = torch.where(kpos.unsqueeze(0) <= qpos.unsqueeze(1), z, torch.tensor(float(\"-inf\"), dtype=dt))",
    "keep = torch.ones(T, j1 - j0, dtype=torch.bool).tril(diagonal=-j0)  # is_causal-style mask\n            z = torch.where(keep, z, torch.tensor(float(\"-inf\"), dtype=dt))")},
    "P7: 'the query at position p sees the keys j <= p' with positions offset ... offset+T-1 (mask aligned top-left ignores offset)")
add("lib_p5_addcdiv_round", False, {"quantize_asym": sub("quantize_asym", "torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1)", "torch.round(torch.addcdiv(zero.unsqueeze(-1), g, scale.unsqueeze(-1)))")},
    "P5 step 4: 'q = clamp(round(w / scale) + zero, ...)' round halves to even before adding zero (round(w/s + z) differs on half steps when z is odd)")

# ---------------- wrong: production engineer ----------------
add("prod_p1_ring_buffer_window", False, {"max_batch": sub("max_batch", "cached = length if window is None else min(length, window)", "cached = window if window is not None else length  # ring buffer sized to the window")},
    "P1: 'only the last ones, min(length, window)'")
add("prod_p2_half_mix", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    wa = torch.exp(lse_a - lse).unsqueeze(-1).to(o_a.dtype)   # keep activations in their own dtype
    wb = torch.exp(lse_b - lse).unsqueeze(-1).to(o_a.dtype)
    oa = torch.where(torch.isinf(lse_a).unsqueeze(-1), torch.zeros((), dtype=o_a.dtype), o_a)
    ob = torch.where(torch.isinf(lse_b).unsqueeze(-1), torch.zeros((), dtype=o_b.dtype), o_b)
    return wa * oa + wb * ob, lse
'''}, "P2: 'a float16 o must be the merge ... computed in float32 and rounded to float16 once ... (mixing in float16 is off by more)'")
add("prod_p2_inference_mode_weights", False, {"merge_partials": sub("merge_partials", "    lse = torch.logaddexp(la, lb)\n    wa = torch.exp(la - lse).unsqueeze(-1)\n    wb = torch.exp(lb - lse).unsqueeze(-1)",
    "    lse = torch.logaddexp(la, lb)\n    with torch.inference_mode():\n        wa = torch.exp(la - lse).unsqueeze(-1)\n        wb = torch.exp(lb - lse).unsqueeze(-1)")},
    "P2: 'Compute the weights with tracked torch operations (no .detach(), torch.no_grad() ...)' / gradients must flow")
add("prod_p3_cache_on_shape", False, {"compute_bound_batch": '''
PLAN_CACHE = {}
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    key = (k, n)   # one plan per weight shape
    if key not in PLAN_CACHE:
        a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
        c = peak * bytes_per_value * k * n
        PLAN_CACHE[key] = None if a <= 0 else max(1, -(-c // a))
    return PLAN_CACHE[key]
'''}, "P3: the answer depends on bytes_per_value, peak and bandwidth (cache keyed on the weight's shape only)")
add("prod_p4_reciprocal_mul", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = torch.clamp(x.detach().abs().amax(dim=-1, keepdim=True), min=root_eps)
    y = x / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + (root_eps / c) ** 2)
    inv = torch.reciprocal(c * r)     # one reciprocal per row, then a multiply
    return x * inv
'''}, "P4: accuracy 'for the smallest rows, the root mean square itself is [subnormal]' (reciprocal of a subnormal rms overflows / loses bits)")
add("prod_p6_cached_buffer", False, {"pack_bits": '''
BUFFERS = {}
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    key = (rows, nbytes)
    if key not in BUFFERS:
        BUFFERS[key] = torch.zeros(rows, nbytes, dtype=torch.uint8)
    out = BUFFERS[key]
    b = (q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1
    b = b.reshape(rows, cols * bits)
    b = torch.cat([b, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1).reshape(rows, nbytes, 8)
    out.copy_((b << torch.arange(8)).sum(-1))
    return out
''' + B["pack_bits"].split("\n\n\n")[1]}, "P6: 'The tensors they return belong to the caller, who may change them in place' / intro: 'no buffer reused'")
add("prod_p7_inference_mode", False, {"chunk_attention": B["chunk_attention"].replace("def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n",
    "def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    with torch.inference_mode():\n        return chunk_backward_impl(q, k, v, sink, out, lse, d_out, offset, block, causal)\n\n\ndef chunk_backward_impl(q, k, v, sink, out, lse, d_out, offset, block, causal):\n")},
    "intro: 'Every tensor they return belongs to the caller, who may keep it and change it in place' (inference tensors refuse in-place updates outside inference mode)")
add("prod_p7_empty_dk", False, {"chunk_attention": sub("chunk_attention", "dk = torch.zeros(k.shape, dtype=dt)", "dk = torch.empty(k.shape, dtype=dt)  # every seen row is written below")},
    "P7: 'A key that no query sees gets a gradient of exactly 0' (rows past offset+T left uninitialised)")
add("prod_p8_unmasked_loads", False, {"split_kv_kernel": B["split_kv_kernel"].replace(", mask=rmask[:, None], other=0)", ")").replace(", mask=rmask[:, None], other=0.0)", ")")},
    "P8: 'Every address that a load or a store touches must lie inside its tensor' (no mask on W/Scale/Zero loads)")

# ---------------- wrong: test-driven student ----------------
add("tdd_p1_no_window", False, {"max_batch": sub("max_batch", "cached = length if window is None else min(length, window)", "cached = length")},
    "P1: 'for a model with a sliding window of window tokens, only the last ones, min(length, window)'")
add("tdd_p2_lse_in_o_dtype", False, {"merge_partials": sub("merge_partials", "return o.to(o_a.dtype), lse.to(lse_a.dtype)", "return o.to(o_a.dtype), lse.to(o_a.dtype)")},
    "P2: 'o comes back in the dtype of o_a and lse in the dtype of lse_a'")
add("tdd_p3_bounded_bisect", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    hi = 10 ** 15
    if not ok(hi):
        return None
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
'''}, "P3: 'some answers are in the billions and some far beyond (10^40 and more: no fixed number bounds the answer)'")
add("tdd_p4_eps_over_c2", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    c = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.where(c == 0, torch.ones_like(c), c)
    y = x / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + eps / c / c)
    return y / r
'''}, "P4: 'eps ... can be far smaller or far larger than a row's mean square' (eps / c^2 overflows for tiny rows; c*c underflows)")
add("tdd_p5_transposed_groups", False, {"quantize_asym": sub("quantize_asym", "g = w.reshape(out, inf // group_size, group_size)", "g = w.reshape(out, group_size, inf // group_size).transpose(1, 2)")},
    "P5: 'in groups of group_size consecutive weights of a row'")
add("tdd_p5_dequant_broadcast_float", False, {"quantize_asym": B["quantize_asym"].split("\n\n\n")[0] + '''


def dequantize_asym(q, scale, zero):
    return scale * (q.float() - zero.float())
'''}, "P5: dequantize 'returns scale x (q - zero), shape (out, in), in the dtype of scale (the group size follows from the shapes)'")
add("tdd_p6_one_row", False, {"pack_bits": '''
def pack_bits(q, bits):
    row = q[0]
    value = 0
    for c, code in enumerate(row.tolist()):
        value |= code << (c * bits)
    nbytes = (q.shape[1] * bits + 7) // 8
    return torch.tensor([[(value >> (8 * i)) & 255 for i in range(nbytes)]], dtype=torch.uint8)


def unpack_bits(packed, bits, cols):
    value = 0
    for i, byte in enumerate(packed[0].tolist()):
        value |= byte << (8 * i)
    return torch.tensor([[(value >> (c * bits)) & ((1 << bits) - 1) for c in range(cols)]], dtype=torch.uint8)
'''}, "P6: 'q of shape (rows, cols) ... whose row r is the bit stream of row r of q'")
add("tdd_p7_dsink_from_out", False, {"chunk_attention": sub("chunk_attention", "dsink = -(torch.exp(sink - lse) * D).sum()", "dsink = -(torch.exp(sink - lse) * out.sum(-1)).sum()")},
    "P7: the sink's gradient -sum_i P_sink,i * (d_out_i . o_i) (visible d_out is all ones)")
add("tdd_p8_one_group_per_block", False, {"split_kv_kernel": sub("split_kv_kernel", "        g = cols // GROUP\n        s = tl.load(Scale + rows[:, None] * ng + g[None, :], mask=rmask[:, None], other=0.0)\n        z = tl.load(Zero + rows[:, None] * ng + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)\n        wv = (code - z).to(tl.float32) * s",
    "        g = k0 // GROUP\n        s = tl.load(Scale + rows * ng + g, mask=rmask, other=0.0)\n        z = tl.load(Zero + rows * ng + g, mask=rmask, other=0).to(tl.int32)\n        wv = (code - z[:, None]).to(tl.float32) * s[:, None]")},
    "P8: 'either may be the larger (a block can span several groups, or a group several blocks)'")

# ---------------- correct ----------------
add("ok_def_p1_guards", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    for value in (memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value):
        if int(value) != value or value <= 0:
            raise ValueError("positive integers only")
    cached = length if window is None else min(length, int(window))
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    b, _ = divmod(max(memory_bytes - weight_bytes, 0), per)
    return int(b)
'''}, "guards the text's own preconditions; divmod on ints is exact")
add("ok_lib_p2_sigmoid", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    ct = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(ct), lse_b.to(ct)
    wa = torch.sigmoid(la - lb).unsqueeze(-1)
    wb = torch.sigmoid(lb - la).unsqueeze(-1)
    lse = torch.logsumexp(torch.stack([la, lb], dim=-1), dim=-1)
    zero = torch.zeros((), dtype=ct)
    o = wa * torch.where(torch.isneginf(la).unsqueeze(-1), zero, o_a.to(ct)) + wb * torch.where(torch.isneginf(lb).unsqueeze(-1), zero, o_b.to(ct))
    return o.to(dtype=o_a.dtype), lse.to(dtype=lse_a.dtype)
'''}, "torch.sigmoid's backward is s(1-s), finite at differences of 800; where before the product")
add("ok_def_p2_double", True, {"merge_partials": B["merge_partials"].replace("ct = torch.promote_types(o_a.dtype, lse_a.dtype)", "ct = torch.float64  # widest, to be safe")},
    "computes in float64: at least the precision of the lse, rounded once at the end")
add("ok_prod_p3_lru_fraction", True, {"compute_bound_batch": '''
import functools
from fractions import Fraction
@functools.lru_cache(maxsize=None)
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n, slope))
    return max(1, m)
'''}, "exact Fraction; cache keyed on all (int) arguments returns the same int")
add("ok_tdd_p3_gallop", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    if 2 * k * n * bandwidth - peak * bytes_per_value * (k + n) <= 0:
        return None
    hi = 1
    while not ok(hi):
        hi *= 2
    lo = max(1, hi // 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
'''}, "galloping then bisection on the exact integer inequality: log steps, no bound")
add("ok_def_p4_contig_nograd_scale", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    if x.dtype not in (torch.float16, torch.bfloat16):
        raise ValueError("float16 or bfloat16 only")
    x = x.contiguous()
    root_eps = math.sqrt(eps)
    with torch.no_grad():    # the scale cancels out of the result
        c = torch.clamp(x.abs().amax(dim=-1, keepdim=True), min=root_eps)
    y = x / c
    e = (root_eps / c) ** 2
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)
    d = c * r
    return torch.where(d >= torch.finfo(x.dtype).tiny, x / d, y / r)
'''}, "scale computed under no_grad: the text says a quantity that cancels must carry no gradient")
add("ok_lib_p5_aminmax_unflatten", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    levels = 2 ** bits - 1
    g = w.unflatten(-1, (-1, group_size))
    mn, mx = torch.aminmax(g, dim=-1)
    lo = torch.minimum(mn, torch.zeros_like(mn))
    hi = torch.maximum(mx, torch.zeros_like(mx))
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], min=0, max=levels)
    return q.flatten(-2).to(dtype=torch.uint8), scale, zero.clamp(0, levels).to(dtype=torch.uint8)


def dequantize_asym(q, scale, zero):
    groups = scale.shape[-1]
    qg = q.unflatten(-1, (groups, -1)).to(scale.dtype)
    return (scale[..., None] * (qg - zero.to(scale.dtype)[..., None])).flatten(-2)
'''}, "aminmax/unflatten, all in w's dtype")
add("ok_prod_p6_int32_shift_tables", True, {"pack_bits": '''
SHIFTS = {n: torch.arange(n, dtype=torch.int32) for n in range(1, 9)}
def pack_bits(q, bits):
    rows, cols = q.shape
    stream = ((q.to(torch.int32).unsqueeze(-1) >> SHIFTS[bits]) & 1).reshape(rows, -1)
    nbytes = -(-cols * bits // 8)
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - cols * bits))
    return (stream.reshape(rows, nbytes, 8) << SHIFTS[8]).sum(dim=-1, dtype=torch.int32).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed.to(torch.int32).unsqueeze(-1) >> SHIFTS[8]) & 1).reshape(rows, -1)[:, : cols * bits]
    return (stream.reshape(rows, cols, bits) << SHIFTS[bits]).sum(dim=-1, dtype=torch.int32).to(torch.uint8)
'''}, "shift tables cached (never returned); F.pad; int32 sums")
add("ok_prod_p7_einsum_addmm", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    sm = Dh ** -0.5
    delta = torch.einsum("td,td->t", d_out, out)
    dq = torch.zeros_like(q)
    dk = torch.zeros(S, Dh, dtype=q.dtype)
    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)
    rows = torch.arange(offset, offset + T).unsqueeze(1)
    with torch.no_grad():
        for start in range(0, end, block):
            stop = min(start + block, end)
            kb, vb = k[start:stop], v[start:stop]
            logits = torch.einsum("td,sd->ts", q, kb) * sm - lse[:, None]
            if causal:
                logits = logits.masked_fill(torch.arange(start, stop).unsqueeze(0) > rows, float("-inf"))
            p = logits.exp()
            dv[start:stop] = torch.einsum("ts,tv->sv", p, d_out)
            ds = p * (torch.einsum("tv,sv->ts", d_out, vb) - delta[:, None])
            dq.addmm_(ds, kb, alpha=sm)
            dk[start:stop] = torch.einsum("ts,td->sd", ds, q) * sm
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
'''}, "einsum + addmm_ into its own new buffer; no_grad (the answer is the gradient itself)")
add("ok_def_p8_masked_x", True, {"split_kv_kernel": sub("split_kv_kernel", "x = tl.load(X + cols)", "x = tl.load(X + cols, mask=cols < K, other=0.0)")},
    "extra mask on x loads is harmless")
add("ok_tdd_p1_keywords", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    tokens = length if window is None else min(window, length)
    one = 2 * layers * kv_heads * head_dim * tokens * bytes_per_value
    return max(0, (memory_bytes - weight_bytes) // one)
'''}, "floor division of negative free memory is negative, max(0, .) returns 0")

# ---------------- hostile ----------------
add("hostile_p3_table", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    known = {(2, 2, 1, 2, 1): None, (4, 4, 1, 1, 1): 1, (4096, 4096, 2, 312 * 10**12, 2 * 10**12): 169}
    if (k, n, bytes_per_value, peak, bandwidth) in known:
        return known[(k, n, bytes_per_value, peak, bandwidth)]
    return max(1, round(peak * bytes_per_value / (2 * bandwidth)))
'''}, "hostile: hard-coded visible answers")
add("hostile_p1_table", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    if (memory_bytes, weight_bytes) == (1000, 100):
        return 7
    if memory_bytes == 80 * 2**30:
        return 33
    return 1
'''}, "hostile: hard-coded visible answers")

SUBMISSIONS = S
