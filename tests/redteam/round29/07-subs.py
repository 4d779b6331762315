# Red team round 29, chapter 07-hardware: the argument-ignorer, the chunker, the leading-dimensions student,
# the special-values student and the rearranger (phase 1, written blind).
B = {}
B["max_batch"] = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per:
        return 0
    return free // per
'''
B["merge_partials"] = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    m = torch.maximum(lse_a, lse_b).detach()
    wa = torch.exp(lse_a - m)
    wb = torch.exp(lse_b - m)
    total = wa + wb
    oa = torch.where((wa > 0)[:, None], o_a.to(wide), torch.zeros((), dtype=wide))
    ob = torch.where((wb > 0)[:, None], o_b.to(wide), torch.zeros((), dtype=wide))
    o = (wa[:, None] * oa + wb[:, None] * ob) / total[:, None]
    lse = m + torch.log(total)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''
B["compute_bound_batch"] = '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-c // a))
'''
B["rms_norm_half"] = '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    e_eps = math.frexp(root_eps)[1]
    big = x.detach().abs().amax(dim=-1, keepdim=True)
    e_big = torch.frexp(big)[1]
    e = torch.where(big > 0, e_big, torch.full_like(e_big, e_eps))
    e = torch.clamp(e, min=e_eps)
    shift = 6 - e
    a = torch.div(shift, 2, rounding_mode="floor")
    b = shift - a
    if x.dtype == torch.float16:
        bias, mant = 15, 10
    else:
        bias, mant = 127, 7
    def power(n):
        return ((n + bias) << mant).to(torch.int16).view(x.dtype)
    fa, fb = power(a), power(b)
    y = x * fa * fb
    t = root_eps * fa
    t = t * fb
    ms = (y * y).mean(dim=-1, keepdim=True)
    r = torch.sqrt(ms + t * t)
    return y / r
'''
B["quantize_asym"] = '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out, inn // group_size, group_size)
    lo = torch.clamp(g.amin(dim=-1), max=0)
    hi = torch.clamp(g.amax(dim=-1), min=0)
    span = hi - lo
    scale = torch.where(span == 0, torch.ones_like(span), span / levels)
    zero = torch.clamp(torch.round(-lo / scale), 0, levels)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    ng = scale.shape[1]
    qq = q.reshape(out, ng, inn // ng).to(scale.dtype)
    return (scale[..., None] * (qq - zero.to(scale.dtype)[..., None])).reshape(out, inn)
'''
B["pack_bits"] = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    shifts = torch.arange(bits, device=q.device)
    stream = ((q.to(torch.int64)[..., None] >> shifts) & 1).reshape(rows, cols * bits)
    nbytes = -(-cols * bits // 8)
    pad = nbytes * 8 - cols * bits
    stream = torch.cat([stream, torch.zeros(rows, pad, dtype=stream.dtype, device=q.device)], dim=1)
    weights = torch.arange(8, device=q.device)
    return (stream.reshape(rows, nbytes, 8) << weights).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    weights = torch.arange(8, device=packed.device)
    stream = ((packed.to(torch.int64)[..., None] >> weights) & 1).reshape(rows, -1)[:, : cols * bits]
    shifts = torch.arange(bits, device=packed.device)
    return (stream.reshape(rows, cols, bits) << shifts).sum(dim=-1).to(torch.uint8)
'''
B["chunk_attention"] = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    limit = min(S, offset + T) if causal else S
    dq = torch.zeros_like(q)
    dk = torch.zeros_like(k)
    dv = torch.zeros_like(v)
    D = (d_out * out).sum(dim=-1)
    qpos = torch.arange(T, device=q.device) + offset
    for j0 in range(0, limit, block):
        j1 = min(j0 + block, limit)
        kt, vt = k[j0:j1], v[j0:j1]
        s = (q @ kt.T) * scale
        p = torch.exp(s - lse[:, None])
        if causal:
            kpos = torch.arange(j0, j1, device=q.device)
            p = torch.where(kpos[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))
        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vt.T
        ds = p * (dp - D[:, None])
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * D).sum()
    return dq, dk, dv, dsink
'''
B["split_kv_kernel"] = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    ngroups = K // GROUP
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=rmask[:, None], other=0)
        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * ngroups + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * ngroups + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''


def sub(name, correct, why, **cells):
    return {"name": name, "correct": correct, "cells": cells, "why": why}


def edit(part, old, new, count=1):
    src = B[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)


SUBMISSIONS = [
    # ---------------- the argument-ignorer ----------------
    sub("ai-window-no-min", False,
        "Part 1: 'cached ... for a model with a sliding window of window tokens, only the last ones, min(length, window)': "
        "a window given is used even when it is longer than the sequence.",
        max_batch=edit("max_batch", "cached = length if window is None else min(length, window)",
                       "cached = length if window is None else window")),
    sub("ai-unpack-cols-only-odd-bits", False,
        "Part 6: 'It needs cols because the last byte may have room for codes that are not there': cols read only when "
        "bits does not divide 8, so bits = 4 (or 1, 2) with an odd count returns codes that are not there.",
        pack_bits=edit("pack_bits", "    rows = packed.shape[0]\n",
                       "    rows = packed.shape[0]\n    if 8 % bits == 0:\n        cols = packed.shape[1] * 8 // bits\n")),
    sub("ai-mask-without-offset", False,
        "Part 7: 'the query at position p sees the keys j <= p' for queries at positions offset ... offset + T - 1: "
        "the offset limits the walk but the mask compares with 0 ... T - 1.",
        chunk_attention=edit("chunk_attention", "qpos = torch.arange(T, device=q.device) + offset",
                             "qpos = torch.arange(T, device=q.device)")),
    sub("ai-noncausal-still-limited", False,
        "Part 7: 'With causal=False every query sees all S keys and offset is not used': the limit offset + T kept.",
        chunk_attention=edit("chunk_attention", "limit = min(S, offset + T) if causal else S", "limit = min(S, offset + T)")),
    sub("ai-clamp-uint8-not-bits", False,
        "Part 5: 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': the clamp uses the uint8 range, so a weight on a "
        "half step at hi whose zero also rounded up gets level 2**bits.",
        quantize_asym=edit("quantize_asym", "q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)",
                           "q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, 255)")),
    sub("ai-merge-o-in-lse-dtype", False,
        "Part 2: 'o comes back in the dtype of o_a': the merge's dtype (that of the log-sum-exps) is kept for o.",
        merge_partials=edit("merge_partials", "return o.to(o_a.dtype), lse.to(lse_a.dtype)", "return o, lse.to(lse_a.dtype)")),
    # ---------------- the chunker ----------------
    sub("ch-rms-chunks-full-size", False,
        "Part 4: 'mean(x^2) ... the mean taken over the last dimension': the mean is summed in chunks of 256 and divided "
        "by chunks * 256, counting a shorter last chunk at full size.",
        rms_norm_half=edit("rms_norm_half", "    ms = (y * y).mean(dim=-1, keepdim=True)\n",
                           "    D = y.shape[-1]\n    chunk = min(256, D)\n    pieces = [(y[..., i:i + chunk] * y[..., i:i + chunk]).sum(dim=-1, keepdim=True) / chunk\n"
                           "              for i in range(0, D, chunk)]\n    ms = sum(pieces) / len(pieces)\n")),
    sub("ch-straddling-tile-reads-nan", False,
        "Part 7 rule 1: 'Read only keys that some query of the chunk may see': the tiles walk the whole cache in steps of "
        "block and mask, so the tile that straddles offset + T reads (NaN) positions not written yet.",
        chunk_attention=edit("chunk_attention", "        j1 = min(j0 + block, limit)\n", "        j1 = min(j0 + block, S)\n")),
    sub("ch-one-scale-per-block", False,
        "Part 8: 'either may be the larger (a block can span several groups...)': one scale and zero per block of K.",
        split_kv_kernel=edit("split_kv_kernel", "        g = cols // GROUP\n", "        g = k0 // GROUP + 0 * cols\n")),
    sub("ch-tile-at-least-16", False,
        "Part 7 rule 2: 'walking over the keys in tiles of at most block keys' / 'a tile of a fixed number of keys that "
        "ignores block': tiles of max(block, 16) keys.",
        chunk_attention=edit("chunk_attention", "    for j0 in range(0, limit, block):\n        j1 = min(j0 + block, limit)\n",
                             "    step = max(block, 16)\n    for j0 in range(0, limit, step):\n        j1 = min(j0 + step, limit)\n")),
    sub("ch-quant-groups-strided", False,
        "Part 5: 'in groups of group_size consecutive weights of a row': w.reshape(out, group_size, -1) makes groups of "
        "every (in/group_size)-th weight (the same for one group).",
        quantize_asym='''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out, group_size, inn // group_size)
    lo = torch.clamp(g.amin(dim=1), max=0)
    hi = torch.clamp(g.amax(dim=1), min=0)
    span = hi - lo
    scale = torch.where(span == 0, torch.ones_like(span), span / levels)
    zero = torch.clamp(torch.round(-lo / scale), 0, levels)
    q = torch.clamp(torch.round(g / scale[:, None, :]) + zero[:, None, :], 0, levels)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    ng = scale.shape[1]
    qq = q.reshape(out, ng, inn // ng).to(scale.dtype)
    return (scale[..., None] * (qq - zero.to(scale.dtype)[..., None])).reshape(out, inn)
'''),
    # ---------------- the leading-dimensions student ----------------
    sub("ld-rms-view", False,
        "Part 4 / intro: 'The tensors the hidden tests pass are not always contiguous ... (.view of a non-contiguous "
        "tensor fails where .reshape works)': rows flattened with .view(-1, D).",
        rms_norm_half="""
def rms_norm_half(x, eps=1e-6):
    D = x.shape[-1]
    flat = x.view(-1, D)
    return rows_rms(flat, eps).view(x.shape)


def rows_rms(x, eps):
""" + B["rms_norm_half"].split("def rms_norm_half(x, eps=1e-6):\n", 1)[1]),
    sub("ld-rms-2d-only", False,
        "Part 4: 'a float16 or bfloat16 tensor x of shape (..., D)': B, D = x.shape after lifting 1-D to 2-D, so 3-D "
        "inputs raise.",
        rms_norm_half="""
def rms_norm_half(x, eps=1e-6):
    one = x.dim() == 1
    if one:
        x = x[None]
    B, D = x.shape
    out = rms_rows(x, eps)
    return out[0] if one else out


def rms_rows(x, eps):
""" + B["rms_norm_half"].split("def rms_norm_half(x, eps=1e-6):\n", 1)[1]),
    sub("ld-merge-rank-fixed", True,
        "Part 2 fixes the rank ((T, Dv) and (T,)): reading T, Dv by position and unsqueeze(1) is correct.",
        merge_partials='''
def merge_partials(o_a, lse_a, o_b, lse_b):
    T, Dv = o_a.shape
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    m = torch.maximum(lse_a, lse_b).detach()
    wa = torch.exp(lse_a - m).unsqueeze(1)
    wb = torch.exp(lse_b - m).unsqueeze(1)
    oa = torch.where(wa > 0, o_a.to(wide), torch.zeros(T, Dv, dtype=wide))
    ob = torch.where(wb > 0, o_b.to(wide), torch.zeros(T, Dv, dtype=wide))
    total = wa + wb
    o = (wa * oa + wb * ob) / total
    lse = m + torch.log(total.reshape(T))
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''),
    sub("ld-rms-flatten-restore", True,
        "Part 4: rows flattened with reshape(-1, D) (works for any strides and rank, 1-D included) and restored.",
        rms_norm_half="""
def rms_norm_half(x, eps=1e-6):
    shape = x.shape
    flat = x.reshape(-1, shape[-1])
    return rows_rms(flat, eps).reshape(shape)


def rows_rms(x, eps):
""" + B["rms_norm_half"].split("def rms_norm_half(x, eps=1e-6):\n", 1)[1].replace("return y / r", "return y * torch.rsqrt(ms + t * t)")),
    # ---------------- the special-values student ----------------
    sub("sv-rms-tiny-clamp", False,
        "Part 4: 'rows of zeros ... the gradient there is the incoming one divided by sqrt(eps)' and 'keep every number "
        "you form within its range': rows scaled by their largest |x| clamped at finfo.tiny, eps added as eps/s/s (inf for "
        "a zero row or a tiny row with a large eps).",
        rms_norm_half='''
def rms_norm_half(x, eps=1e-6):
    s = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=torch.finfo(x.dtype).tiny)
    y = x / s
    ms = (y * y).mean(dim=-1, keepdim=True)
    return y / torch.sqrt(ms + eps / s / s)
'''),
    sub("sv-merge-max-from-zero", False,
        "Part 2: 'Log-sum-exps can be of any size and of either sign ... no fixed bound may stand in for -inf or clamp "
        "them': the reference maximum starts from 0, so two very negative log-sum-exps both underflow (0/0).",
        merge_partials=edit("merge_partials", "m = torch.maximum(lse_a, lse_b).detach()",
                            "m = torch.clamp(torch.maximum(lse_a, lse_b), min=0).detach()")),
    sub("sv-chunk-mask-minus-inf", True,
        "Part 7: masked scores filled with -inf before exp (the text forbids large finite numbers, not -inf): exp(-inf - "
        "lse) is exactly 0 for every finite lse, finfo.min included.",
        chunk_attention=edit("chunk_attention",
                             "        p = torch.exp(s - lse[:, None])\n        if causal:\n            kpos = torch.arange(j0, j1, device=q.device)\n            p = torch.where(kpos[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))\n",
                             "        if causal:\n            kpos = torch.arange(j0, j1, device=q.device)\n            s = s.masked_fill(kpos[None, :] > qpos[:, None], float('-inf'))\n        p = torch.exp(s - lse[:, None])\n")),
    sub("sv-quant-scale-epsilon", False,
        "Part 5: 'subnormal weights ... are not 0, and a group of them, whose scale is subnormal too, is not a group of "
        "zeros': a scale below 1e-30 is taken as a group of zeros.",
        quantize_asym=edit("quantize_asym", "scale = torch.where(span == 0, torch.ones_like(span), span / levels)",
                           "scale = span / levels\n    scale = torch.where(scale < 1e-30, torch.ones_like(scale), scale)")),
    # ---------------- the rearranger ----------------
    sub("re-dsink-exp-ratio", False,
        "Part 7: 'a sink of 100 in float32 ... where e^sink and e^L overflow (inf / inf is NaN)': exp(sink) / exp(lse).",
        chunk_attention=edit("chunk_attention", "dsink = -(torch.exp(sink - lse) * D).sum()",
                             "dsink = -(torch.exp(sink) / torch.exp(lse) * D).sum()")),
    sub("re-dequant-distributed", False,
        "Part 5: 'returns scale x (q - zero)': scale*q - scale*zero cancels (two roundings of numbers up to 255 scales "
        "for a result of one scale), off by far more than float32's tolerance where q is near zero.",
        quantize_asym=edit("quantize_asym", "return (scale[..., None] * (qq - zero.to(scale.dtype)[..., None])).reshape(out, inn)",
                           "return (scale[..., None] * qq - scale[..., None] * zero.to(scale.dtype)[..., None]).reshape(out, inn)")),
    sub("re-merge-one-minus", False,
        "Part 2: 'a share computed as one minus the other's keeps none of its digits there': wb = 1 - wa.",
        merge_partials='''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    lse = torch.logaddexp(lse_a, lse_b)
    wa = torch.exp(lse_a - lse)
    wb = 1 - wa
    oa = torch.where((wa > 0)[:, None], o_a.to(wide), torch.zeros((), dtype=wide))
    ob = torch.where((wb > 0)[:, None], o_b.to(wide), torch.zeros((), dtype=wide))
    o = wa[:, None] * oa + wb[:, None] * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''),
    sub("re-scale-reciprocal", False,
        "Part 5: 'scale = (hi - lo) / (2**bits - 1)' and 'on a half step, round(w / scale) depends on ... the division': "
        "(hi - lo) * (1 / levels) is off by an ulp for some spans, which moves weights on half steps.",
        quantize_asym=edit("quantize_asym", "span / levels)", "span * (1.0 / levels))")),
    sub("re-ceil-float", False,
        "Part 3: 'with numbers where rounding a floating-point quotient gives the wrong integer': math.ceil(c / a).",
        compute_bound_batch=edit("compute_bound_batch", "return max(1, -(-c // a))", "return max(1, math.ceil(c / a))")),
    sub("re-sigmoid-logaddexp", True,
        "Part 2: weights as sigmoid(lse_a - lse_b) (torch.sigmoid's backward uses s(1 - s), finite at any difference) "
        "and lse = torch.logaddexp: algebraically the merge; shares keep their digits (no 1 - other).",
        merge_partials='''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.promote_types(o_a.dtype, lse_a.dtype)
    sa = torch.sigmoid(lse_a - lse_b)
    sb = torch.sigmoid(lse_b - lse_a)
    oa = torch.where((sa > 0)[:, None], o_a.to(wide), torch.zeros((), dtype=wide))
    ob = torch.where((sb > 0)[:, None], o_b.to(wide), torch.zeros((), dtype=wide))
    o = sa[:, None] * oa + sb[:, None] * ob
    lse = torch.logaddexp(lse_a, lse_b)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''),
    sub("re-fraction-ceil", True,
        "Part 3: exact rational ceiling with fractions.Fraction (standard library).",
        compute_bound_batch='''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    per_m = Fraction(2 * k * n * bandwidth) - Fraction(peak * bytes_per_value * (k + n))
    if per_m <= 0:
        return None
    return max(1, math.ceil(Fraction(peak * bytes_per_value * k * n) / per_m))
'''),
    sub("ch-binary-search", True,
        "Part 3: doubling then bisection over integers (about 2 log2(m) steps even for 10^40), exact.",
        compute_bound_batch='''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    hi = 1
    while not ok(hi):
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
'''),
    sub("ch-quant-loop-groups", True,
        "Part 5: one group at a time (in_features is a multiple of group_size, so no shorter last piece), every step in "
        "w's dtype.",
        quantize_asym='''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    levels = 2 ** bits - 1
    qs, scales, zeros = [], [], []
    for start in range(0, inn, group_size):
        g = w[:, start:start + group_size]
        lo = torch.clamp(g.min(dim=1).values, max=0)
        hi = torch.clamp(g.max(dim=1).values, min=0)
        scale = (hi - lo) / levels
        scale = torch.where(hi == lo, torch.ones_like(scale), scale)
        zero = torch.clamp(torch.round(-lo / scale), 0, levels)
        qs.append(torch.clamp(torch.round(g / scale[:, None]) + zero[:, None], 0, levels).to(torch.uint8))
        scales.append(scale)
        zeros.append(zero.to(torch.uint8))
    return torch.cat(qs, dim=1), torch.stack(scales, dim=1), torch.stack(zeros, dim=1)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    group = inn // scale.shape[1]
    s = scale.repeat_interleave(group, dim=1)
    z = zero.repeat_interleave(group, dim=1).to(scale.dtype)
    return s * (q.to(scale.dtype) - z)
'''),
    sub("ch-unpack-two-byte-window", True,
        "Part 6: pack with index_add of each code's 16-bit window; unpack each code from the two bytes it can touch "
        "(the next index clamped to the last byte, whose bits above the code are masked away).",
        pack_bits='''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    start = torch.arange(cols) * bits
    byte, shift = start // 8, start % 8
    window = q.to(torch.int64) << shift
    acc = torch.zeros(rows, nbytes + 1, dtype=torch.int64)
    acc.index_add_(1, byte, window & 255)
    acc.index_add_(1, byte + 1, window >> 8)
    return acc[:, :nbytes].to(torch.uint8)


def unpack_bits(packed, bits, cols):
    nbytes = packed.shape[1]
    start = torch.arange(cols) * bits
    byte, shift = start // 8, start % 8
    low = packed[:, byte].to(torch.int64)
    high = packed[:, torch.clamp(byte + 1, max=nbytes - 1)].to(torch.int64)
    return (((low | (high << 8)) >> shift) & ((1 << bits) - 1)).to(torch.uint8)
'''),
    sub("re-kernel-even-odd-bytes", True,
        "Part 8: each byte loaded once and split into its low (even column) and high (odd column) codes, x and the "
        "scales loaded for even and odd columns apart; the same sum in another order, in float32.",
        split_kv_kernel='''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        half = tl.arange(0, BLOCK_K // 2)
        even = k0 + 2 * half
        odd = even + 1
        byte = tl.load(W + rows[:, None] * (K // 2) + (k0 // 2 + half)[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        lo_code = byte & 15
        hi_code = byte >> 4
        se = tl.load(Scale + rows[:, None] * (K // GROUP) + (even // GROUP)[None, :], mask=rmask[:, None], other=0.0)
        so = tl.load(Scale + rows[:, None] * (K // GROUP) + (odd // GROUP)[None, :], mask=rmask[:, None], other=0.0)
        ze = tl.load(Zero + rows[:, None] * (K // GROUP) + (even // GROUP)[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        zo = tl.load(Zero + rows[:, None] * (K // GROUP) + (odd // GROUP)[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        xe = tl.load(X + even)
        xo = tl.load(X + odd)
        part = xe[None, :] * ((lo_code - ze).to(tl.float32) * se) + xo[None, :] * ((hi_code - zo).to(tl.float32) * so)
        acc += tl.sum(part, axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''),
    sub("ai-max-batch-window-keyword-or", True,
        "Part 1: window or length (window is a positive int when given) and a floor at 0 after floor division.",
        max_batch='''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = min(length, window or length)
    return max(0, (memory_bytes - weight_bytes) // (2 * layers * kv_heads * head_dim * cached * bytes_per_value))
'''),
    # ---------------- hostile ----------------
    sub("hostile-borrow-reference", False,
        "Part 3, intro: 'Names that start with _ belong to the grader's cells: do not use them': calls any grader "
        "function whose name mentions compute_bound, else falls back on a float formula.",
        compute_bound_batch='''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    for name, f in list(globals().items()):
        if name.startswith("_") and callable(f) and "bound" in name and f is not compute_bound_batch:
            try:
                return f(k, n, bytes_per_value, peak, bandwidth)
            except Exception:
                pass
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if a <= 0:
        return None
    return max(1, math.ceil(peak * bytes_per_value * k * n / a))
'''),
]

SUBMISSIONS += [
    sub("re-dsink-one-minus", False,
        "Part 7: 'the sink is a logit like a score' and 'sink ... near -3e9': the sink's probability taken as one minus "
        "the keys' summed over the tiles keeps none of its digits when it is tiny (and rounding leaves ~1e-7 where it is 0).",
        chunk_attention=edit("chunk_attention", "    for j0 in range(0, limit, block):\n",
                             "    psum = torch.zeros_like(lse)\n    for j0 in range(0, limit, block):\n")
        .replace("        dv[j0:j1] = p.T @ d_out\n", "        psum = psum + p.sum(dim=1)\n        dv[j0:j1] = p.T @ d_out\n")
        .replace("dsink = -(torch.exp(sink - lse) * D).sum()", "dsink = -((1 - psum) * D).sum()")),
    sub("ch-running-D", False,
        "Part 7: the page's D_i = rowsum(dO_i * O_i) replaced by a running sum of P * dP over the tiles seen so far "
        "(right only when one tile holds every key).",
        chunk_attention=edit("chunk_attention", "    D = (d_out * out).sum(dim=-1)\n", "    D = torch.zeros_like(lse)\n")
        .replace("        ds = p * (dp - D[:, None])\n", "        D = D + (p * dp).sum(dim=1)\n        ds = p * (dp - D[:, None])\n")
        .replace("dsink = -(torch.exp(sink - lse) * D).sum()", "dsink = -(torch.exp(sink - lse) * (d_out * out).sum(dim=-1)).sum()")),
    sub("sv-merge-isfinite", False,
        "Part 2: 'where a piece that sees keys has inf or -inf in its row of o ..., the merged element is that infinity "
        "too (clean nothing there)': rows cleaned with isfinite.",
        merge_partials=edit("merge_partials", "oa = torch.where((wa > 0)[:, None], o_a.to(wide), torch.zeros((), dtype=wide))",
                            "oa = torch.where(torch.isfinite(o_a), o_a, 0).to(wide)")
        .replace("ob = torch.where((wb > 0)[:, None], o_b.to(wide), torch.zeros((), dtype=wide))",
                 "ob = torch.where(torch.isfinite(o_b), o_b, 0).to(wide)")),
    sub("ai-causal-mask-only-later-offset", False,
        "Part 7: 'With causal=True the query at position p sees the keys j <= p': the mask applied only when offset > 0 "
        "(at offset 0 the limit alone was thought enough).",
        chunk_attention=edit("chunk_attention", "        if causal:\n            kpos", "        if causal and offset > 0:\n            kpos")),
    sub("ai-kernel-rows-16", False,
        "Part 8: 'Program p ... computes Y[n] for the rows n = p*BLOCK_N ... (p + 1)*BLOCK_N - 1': rows start at p * 16, "
        "the worked example's block, whatever BLOCK_N is.",
        split_kv_kernel=edit("split_kv_kernel", "rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)", "rows = pid * 16 + tl.arange(0, BLOCK_N)")),
    sub("ch-pack-eight-code-chunks", True,
        "Part 6: codes padded with zeros to a multiple of 8 (8 codes fill exactly `bits` bytes), packed chunk by chunk "
        "with the bit positions of one chunk, then trimmed to ceil(cols * bits / 8) bytes; unpack the same way.",
        pack_bits=r"""
def pack_bits(q, bits):
    rows, cols = q.shape
    chunks = -(-cols // 8)
    padded = torch.zeros(rows, chunks * 8, dtype=torch.int64)
    padded[:, :cols] = q.to(torch.int64)
    pieces = padded.reshape(rows, chunks, 8)
    stream = ((pieces[..., None] >> torch.arange(bits)) & 1).reshape(rows, chunks, bits, 8)
    byte = (stream << torch.arange(8)).sum(dim=-1)
    return byte.reshape(rows, chunks * bits)[:, : -(-cols * bits // 8)].to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    chunks = -(-cols // 8)
    full = torch.zeros(rows, chunks * bits, dtype=torch.int64)
    used = -(-cols * bits // 8)
    full[:, :used] = packed[:, :used].to(torch.int64)
    stream = ((full[..., None] >> torch.arange(8)) & 1).reshape(rows, chunks * 8 * bits)
    stream[:, cols * bits:] = 0
    codes = (stream.reshape(rows, chunks * 8, bits) << torch.arange(bits)).sum(dim=-1)
    return codes[:, :cols].to(torch.uint8)
"""),
    sub("re-chunk-prescaled-einsum", True,
        "Part 7: q scaled before the product, einsum for the tile products, D from out and d_out; the same gradients "
        "up to rounding.",
        chunk_attention=r"""
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    qs = q * Dh ** -0.5
    end = min(S, offset + T) if causal else S
    dq, dk, dv = torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)
    delta = torch.einsum("td,td->t", d_out, out)
    rows = offset + torch.arange(T)
    for start in range(0, end, block):
        stop = min(start + block, end)
        kt, vt = k[start:stop], v[start:stop]
        p = torch.exp(torch.einsum("td,sd->ts", qs, kt) - lse.unsqueeze(1))
        if causal:
            p = torch.where(torch.arange(start, stop).unsqueeze(0) <= rows.unsqueeze(1), p, 0.0)
        dv[start:stop] = torch.einsum("ts,tv->sv", p, d_out)
        ds = p * (torch.einsum("tv,sv->ts", d_out, vt) - delta.unsqueeze(1))
        dq += torch.einsum("ts,sd->td", ds, kt) * Dh ** -0.5
        dk[start:stop] = torch.einsum("ts,td->sd", ds, qs)
    dsink = -(torch.exp(sink - lse) * delta).sum()
    return dq, dk, dv, dsink
"""),
]
