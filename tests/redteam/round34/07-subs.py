# Round 34, chapter 07-hardware: blind submissions (magic-number, composer, module-registration [no part builds a
# module], text-and-token [no part handles text or token ids], low-precision accumulator).

BASE = {}
BASE["max_batch"] = '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_seq = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per_seq:
        return 0
    return free // per_seq
'''
BASE["merge_partials"] = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    m = torch.maximum(lse_a, lse_b)
    w_a = torch.exp(lse_a - m)
    w_b = torch.exp(lse_b - m)
    total = w_a + w_b
    lse = m + torch.log(total)
    zero = torch.zeros((), dtype=work)
    oa = torch.where((w_a > 0)[:, None], o_a.to(work), zero)
    ob = torch.where((w_b > 0)[:, None], o_b.to(work), zero)
    o = (w_a.to(work)[:, None] * oa + w_b.to(work)[:, None] * ob) / total.to(work)[:, None]
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
    r = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=r)
    y = x / c
    e = r / c
    denom = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    rms = c * denom
    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, y / denom)
'''
BASE["quantize_asym"] = '''
def quantize_asym(w, bits, group_size):
    out_f, in_f = w.shape
    g = w.reshape(out_f, in_f // group_size, group_size)
    top = 2 ** bits - 1
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    span = hi - lo
    scale = torch.where(span == 0, torch.ones_like(span), span / top)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, top)
    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    d = q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(group, dim=1)
    return scale.repeat_interleave(group, dim=1) * d
'''
BASE["pack_bits"] = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    t = torch.arange(bits, device=q.device)
    stream = ((q.to(torch.int64)[..., None] >> t) & 1).reshape(rows, nbits)
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - nbits))
    weights = 2 ** torch.arange(8, device=q.device)
    return (stream.reshape(rows, nbytes, 8) * weights).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    t = torch.arange(8, device=packed.device)
    stream = ((packed.to(torch.int64)[..., None] >> t) & 1).reshape(rows, -1)[:, : cols * bits]
    weights = 2 ** torch.arange(bits, device=packed.device)
    return (stream.reshape(rows, cols, bits) * weights).sum(-1).to(torch.uint8)
'''
BASE["chunk_attention"] = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    n_keys = min(S, offset + T) if causal else S
    D = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros_like(k)
    dv = torch.zeros_like(v)
    qpos = offset + torch.arange(T, device=q.device)
    for j0 in range(0, n_keys, block):
        j1 = min(j0 + block, n_keys)
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
    p_sink = torch.exp(sink - lse)
    dsink = -(p_sink * D).sum()
    return dq, dk, dv, dsink
'''
BASE["split_kv_kernel"] = '''
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
        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=rmask[:, None], other=0)
        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * n_groups + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=rmask[:, None], other=0)
        wdq = (code - z.to(tl.int32)).to(tl.float32) * s
        acc += tl.sum(wdq * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''


def edit(cell, old, new, count=1):
    src = BASE[cell]
    assert src.count(old) == count, (cell, old, src.count(old))
    return src.replace(old, new)


SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ----------------------------------------------------------------------------------------------------------- wrong
add("W01-magic-p1-window-or-int32max", False, {"max_batch": edit("max_batch",
    "cached = length if window is None else min(length, window)",
    "cached = min(length, window or 2**31 - 1)  # no window: 'infinite' window")},
    "Part 1: 'cached ... is length, or, for a model with a sliding window, min(length, window)' and 'All arguments "
    "are positive Python ints' (no bound on length): 2**31-1 as 'infinitely large' caps length when window is None.")

add("W02-lowprec-p2-mix-in-output-dtype", False, {"merge_partials": edit("merge_partials",
    "work = torch.promote_types(o_a.dtype, lse_a.dtype)", "work = o_a.dtype  # mix in the outputs' own dtype")},
    "Part 2: 'compute in at least the precision of the log-sum-exps, never in a lower one, for o as well' and "
    "'a float16 o must be the merge ... computed in float32 and rounded to float16 once at the end'.")

add("W03-magic-p3-bisect-to-2**64", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    hi = 2 ** 64  # far beyond any real batch
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
'''}, "Part 3: 'some answers are ... far beyond (10**40 and more: no fixed number bounds the answer)' and 'Decide None "
      "exactly': 2**64 as the largest batch returns None where the answer is beyond it.")

add("W04-magic-p4-floor-1e-4", False, {"rms_norm_half": edit("rms_norm_half",
    "c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=r)",
    "c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=1e-4)  # smallest row the tests use")},
    "Part 4: 'eps from 1e-12 to 1 ... so eps can be far smaller or far larger than a row's mean square' and 'keep every "
    "number you form within its range': with c = 1e-4 and eps = 1, (sqrt(eps)/c)**2 = 1e8 overflows float16.")

add("W05-lowprec-p4-divide-before-sum", False, {"rms_norm_half": edit("rms_norm_half",
    "(y * y).mean(dim=-1, keepdim=True)", "(y * y / y.shape[-1]).sum(dim=-1, keepdim=True)")},
    "Part 4: 'Every tensor you form ... is rounded to x's dtype element by element' / 'one below the smallest subnormal "
    "becomes 0': y*y/D is formed in 16 bits before the reduction, so small terms fall among subnormals or to 0 "
    "(rows of thousands, 'Small elements count as much as large ones'); accuracy 6 ulp.")

add("W06-magic-p5-clamp-255", False, {"quantize_asym": edit("quantize_asym",
    "q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, top)",
    "q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, 255)  # uint8 range")},
    "Part 5 step 4: 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': on half steps round(w/scale) + round(-lo/scale) "
    "can reach 2**bits, which 255 does not clamp for bits < 8.")

add("W07-lowprec-p5-float64-inside", False, {"quantize_asym": edit("quantize_asym",
    "    out_f, in_f = w.shape\n", "    dtype = w.dtype\n    w = w.double()  # quantise in full precision\n    out_f, in_f = w.shape\n").replace(
    "return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)",
    "return q.reshape(out_f, in_f).to(torch.uint8), scale.to(dtype), zero.to(torch.uint8)")},
    "Part 5: 'Compute every step in the dtype of w, zero and q as well as scale: do not widen a float32 w to float64'.")

add("W08-lowprec-p5-distribute-scale", False, {"quantize_asym": edit("quantize_asym",
    "    return scale.repeat_interleave(group, dim=1) * d\n",
    "    s = scale.repeat_interleave(group, dim=1)\n    return s * q.to(scale.dtype) - s * zero.to(scale.dtype).repeat_interleave(group, dim=1)\n").replace(
    "    d = q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(group, dim=1)\n", "")},
    "Part 5: 'dequantize_asym ... returns scale x (q - zero)': s*q - s*zero rounds twice and cancels.")

add("W09-magic-p7-exp-clamp-700", False, {"chunk_attention": edit("chunk_attention",
    "p = torch.exp(s - lse[:, None])", "p = torch.exp((s - lse[:, None]).clamp(-700.0, 700.0))  # stay in float64's range").replace(
    "p_sink = torch.exp(sink - lse)", "p_sink = torch.exp((sink - lse).clamp(-700.0, 700.0))")},
    "Part 7: 'A key a query sees counts however small its probability ... subnormal ones (below finfo.tiny) included' and "
    "'The sink's probability counts however small it is': clamping the exponent at -700 lifts probabilities below "
    "e**-700 (float64) to e**-700.")

add("W10-magic-p7-flush-subnormal-p", False, {"chunk_attention": edit("chunk_attention",
    "        dv[j0:j1] = p.T @ d_out\n",
    "        p = torch.where(p < torch.finfo(p.dtype).tiny, torch.zeros((), dtype=p.dtype), p)  # denormals are noise\n"
    "        dv[j0:j1] = p.T @ d_out\n")},
    "Part 7: 'skip no tile or key because its probabilities are small, subnormal ones (below torch.finfo(dtype).tiny) "
    "included'.")

add("W11-lowprec-p7-float32-dq-buffer", False, {"chunk_attention": edit("chunk_attention",
    "    dq = torch.zeros_like(q)\n", "    dq = torch.zeros(T, Dh)  # accumulator\n").replace(
    "    return dq, dk, dv, dsink", "    return dq.to(q.dtype), dk, dv, dsink")},
    "Part 7: 'All the inputs share one dtype, that of q (float32 and float64), and all four results come back in it': dq "
    "accumulated in a float32 buffer (torch.zeros' default dtype) and cast back loses float64 accuracy.")

add("W12-composer-p7-tril-whole-matrix-offset", False, {"chunk_attention": edit("chunk_attention",
    "            kpos = torch.arange(j0, j1, device=q.device)\n            p = torch.where(kpos[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))",
    "            seen = torch.ones(T, j1 - j0, dtype=torch.bool).tril(diagonal=offset)  # causal mask of the chunk\n"
    "            p = torch.where(seen, p, torch.zeros((), dtype=p.dtype))")},
    "Part 7: 'the query at position p sees the keys j <= p': the whole-matrix causal mask tril(diagonal=offset) reused "
    "for a tile starting at key j0 (needs diagonal=offset - j0).")

add("W13-lowprec-p8-dequant-in-float16", False, {"split_kv_kernel": edit("split_kv_kernel",
    "wdq = (code - z.to(tl.int32)).to(tl.float32) * s",
    "wdq = ((code - z.to(tl.int32)).to(tl.float16) * s.to(tl.float16)).to(tl.float32)  # 16-bit weights in registers")},
    "Part 8: 'Compute in float32 throughout' / 'accumulating in float32': the dequantised weights are rounded to float16.")

add("W14-magic-p8-clamp-x-65504", False, {"split_kv_kernel": edit("split_kv_kernel",
    "        x = tl.load(X + cols)\n",
    "        x = tl.load(X + cols)\n        x = tl.minimum(tl.maximum(x, -65504.0), 65504.0)  # keep activations finite\n")},
    "Part 8: 'X holds values of any size (clamp nothing ...)'.")

add("W15-composer-p8-scale-per-block", False, {"split_kv_kernel": edit("split_kv_kernel",
    "        g = cols // GROUP\n", "        g = (k0 // GROUP) + tl.zeros((BLOCK_K,), dtype=tl.int32)  # one group per block\n")},
    "Part 8: 'either may be the larger (a block can span several groups ...)': the group index taken once per block "
    "(right when GROUP >= BLOCK_K, as in the visible case) is wrong when a block spans several groups.")


add("W17-magic-p8-flush-subnormal-x", False, {"split_kv_kernel": edit("split_kv_kernel",
    "        x = tl.load(X + cols)\n",
    "        x = tl.load(X + cols)\n        x = tl.where(tl.abs(x) < 1.1754944e-38, 0.0, x)  # denormals: flush like the GPU\n")},
    "Part 8: 'X holds values of any size (clamp nothing, and flush no subnormal value, below "
    "torch.finfo(torch.float32).tiny, to 0 ...)'.")

add("W18-lowprec-p5-reciprocal-scale", False, {"quantize_asym": edit("quantize_asym",
    "    scale = torch.where(span == 0, torch.ones_like(span), span / top)\n",
    "    scale = torch.where(span == 0, torch.ones_like(span), span * (1.0 / top))  # one reciprocal, then multiply\n")},
    "Part 5 step 2: 'scale = (hi - lo) / (2**bits - 1)': multiplying by a rounded reciprocal gives a scale one unit "
    "off for some spans, which moves q on half steps ('the tests check such weights exactly').")

# --------------------------------------------------------------------------------------------------------- correct
add("C01-composer-p7-tile-tril-offset-minus-j0", True, {"chunk_attention": edit("chunk_attention",
    "            kpos = torch.arange(j0, j1, device=q.device)\n            p = torch.where(kpos[None, :] <= qpos[:, None], p, torch.zeros((), dtype=p.dtype))",
    "            seen = torch.ones(T, j1 - j0, dtype=torch.bool).tril(diagonal=offset - j0)\n"
    "            p = p.masked_fill(~seen, 0.0)")},
    "Part 7: the whole-matrix mask shifted by the tile's start is exactly 'keys j <= p'; masked_fill with 0 after exp.")

add("W21-lowprec-p4-grad-overflow-dominant-row (was C02)", False, {"rms_norm_half": edit("rms_norm_half",
    "denom = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)",
    "denom = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e).clamp(min=1e-3)  # never divide by ~0")},
    "Relabelled in phase 1 before grading again (found by my own gradient check, nothing hidden read): the clamp never "
    "acts (denominator >= 1/64), but this answer's backward pass overflows float16: with c = max|x| the row statistic "
    "denom = sqrt(mean((x/c)**2) + eps/c**2) is as small as 1/64 on a 4096-long row of one large element among far "
    "smaller ones, and autograd forms d(mean)/... = sum(g*y)/(2*denom**3) ~ 1e5 > 65504, so every element of x.grad "
    "is inf or NaN for an incoming gradient of randn. Part 4: 'Gradients must flow ... compare its gradient with the exact "
    "one, each element to within 1% plus 16 eps times the largest' and 'keep every number you form within its range'; "
    "the tests include 'float16 rows of one large element among thousands of far smaller ones'. The same code is the "
    "rms_norm_half of my BASE, used by no other submission.")

add("C03-composer-p6-page-nibbles", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    if bits == 8:
        return q.clone()
    if bits == 4:  # the page's layout: low nibble first
        if cols % 2:
            q = torch.cat([q, torch.zeros(rows, 1, dtype=q.dtype)], dim=1)
        return (q[:, 0::2] | (q[:, 1::2] << 4)).to(torch.uint8)
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    t = torch.arange(bits)
    stream = ((q.to(torch.int64)[..., None] >> t) & 1).reshape(rows, nbits)
    stream = torch.cat([stream, stream.new_zeros(rows, nbytes * 8 - nbits)], dim=1)
    return (stream.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    if bits == 8:
        return packed[:, :cols].clone()
    if bits == 4:
        both = torch.stack([packed & 15, packed >> 4], dim=-1).reshape(rows, -1)
        return both[:, :cols].clone()
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, -1)[:, : cols * bits]
    return (stream.reshape(rows, cols, bits) << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "Part 6: 'For bits = 4 this is the page's layout': the page's nibble code reused for 4 bits, a copy for 8 bits.")

add("C04-magic-p2-clamp-difference", True, {"merge_partials": edit("merge_partials",
    "    w_a = torch.exp(lse_a - m)\n    w_b = torch.exp(lse_b - m)\n",
    "    w_a = torch.exp((lse_a - m).clamp(min=-1e4))  # exp(-1e4) is exactly 0 in every float dtype\n"
    "    w_b = torch.exp((lse_b - m).clamp(min=-1e4))\n")},
    "Part 2: the difference lse - max is <= 0; below -1e4 exp gives exactly 0 either way (and a gradient of 0), so "
    "every weight is the same bit for bit.")

add("C05-lowprec-p7-float64-inside", True, {"chunk_attention": edit("chunk_attention",
    "    T, Dh = q.shape\n",
    "    dtype = q.dtype\n    T, Dh = q.shape\n    S_all = k.shape[0]\n"
    "    n_read = min(S_all, offset + T) if causal else S_all\n"
    "    q, sink, out, lse, d_out = q.double(), sink.double(), out.double(), lse.double(), d_out.double()\n"
    "    k, v = k[:n_read].double(), v[:n_read].double()\n").replace(
    "    S = k.shape[0]\n", "    S = S_all\n").replace(
    "    dk = torch.zeros_like(k)\n    dv = torch.zeros_like(v)\n",
    "    dk = torch.zeros(S, Dh, dtype=torch.float64)\n    dv = torch.zeros(S, v.shape[1], dtype=torch.float64)\n").replace(
    "    return dq, dk, dv, dsink", "    return dq.to(dtype), dk.to(dtype), dv.to(dtype), dsink.to(dtype)")},
    "Part 7: float64 inside (only the keys the chunk may see are converted) and every result cast back to q's dtype.")

add("C06-p3-fraction-ceil", True, {"compute_bound_batch": '''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    return max(1, math.ceil(Fraction(peak * bytes_per_value * k * n, slope)))
'''}, "Part 3: exact rational ceiling from the standard library.")

add("C07-p8-formula-order-int-dequant", True, {"split_kv_kernel": edit("split_kv_kernel",
    "        wdq = (code - z.to(tl.int32)).to(tl.float32) * s\n        acc += tl.sum(wdq * x[None, :], axis=1)\n",
    "        c = code.to(tl.float32) - z.to(tl.float32)\n        part = tl.sum(x[None, :] * c * s, axis=1)\n        acc = acc + part\n")},
    "Part 8: the formula's own order x_k (c - z) s, in float32, accumulated in float32.")

add("C08-magic-p5-span-test", True, {"quantize_asym": edit("quantize_asym",
    "    scale = torch.where(span == 0, torch.ones_like(span), span / top)\n",
    "    scale = span / top\n    scale = torch.where(hi == lo, torch.ones_like(scale), scale)  # all zeros: hi = lo = 0\n")},
    "Part 5 step 2: 'scale = 1 for a group of zeros', tested as hi == lo (both 0 exactly).")


add("W16-composer-p5-page-4bit-zero-clamp", False, {"quantize_asym": edit("quantize_asym",
    "    zero = torch.round(-lo / scale)\n", "    zero = torch.round(-lo / scale).clamp(0, 15)  # a 4-bit zero point, as on the page\n")},
    "Part 5 step 3: 'zero = round(-lo / scale), an integer in 0 ... 2**bits - 1', with bits from 2 to 8: the page's "
    "4-bit range kept for the zero point.")

add("C09-composer-p2-logsumexp-shares", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    lse = torch.logsumexp(torch.stack([lse_a, lse_b]), dim=0)
    share_a = torch.exp(lse_a - lse).to(work)[:, None]
    share_b = torch.exp(lse_b - lse).to(work)[:, None]
    zero = torch.zeros((), dtype=work)
    o = share_a * torch.where(share_a > 0, o_a.to(work), zero) + share_b * torch.where(share_b > 0, o_b.to(work), zero)
    return o.to(o_a.dtype), lse
'''}, "Part 2: torch.logsumexp of the two log-sum-exps is the merged L; each piece's share exp(L_a - L) "
      "computed from its own log-sum-exp, in the log-sum-exps' precision, rows of weight 0 left out before the product.")


add("W19-lowprec-p4-scale-not-detached", False, {"rms_norm_half": edit("rms_norm_half",
    "c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=r)",
    "c = x.abs().amax(dim=-1, keepdim=True).clamp(min=r)")},
    "Part 4: 'A quantity that cancels out of the result, though, must not carry a gradient ... in 16 bits autograd "
    "computes that zero as a sum of many rounded pieces ... .detach() such a quantity.'")

add("W20-magic-p2-mask-by-finite-lse", False, {"merge_partials": edit("merge_partials",
    "    oa = torch.where((w_a > 0)[:, None], o_a.to(work), zero)\n    ob = torch.where((w_b > 0)[:, None], o_b.to(work), zero)\n",
    "    oa = torch.where(torch.isfinite(lse_a)[:, None], o_a.to(work), zero)  # the piece saw keys\n"
    "    ob = torch.where(torch.isfinite(lse_b)[:, None], o_b.to(work), zero)\n")},
    "Part 2: 'where its weight is exactly 0, also for a finite log-sum-exp, an infinity in its row of o does not reach "
    "the result (0 x inf is NaN ...)'.")

add("C10-magic-p6-position-table-2**24", True, {"pack_bits": '''
POSITIONS = torch.arange(1 << 24)  # every stream bit position the text allows (cols * bits < 2**24)


def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    pos = POSITIONS[: nbytes * 8]
    code, t = pos // bits, pos % bits
    inside = pos < nbits
    bit = (q.to(torch.int64)[:, code.clamp(max=cols - 1)] >> t) & 1
    bit = bit * inside
    return (bit.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    pos = POSITIONS[: cols * bits]
    bit = (packed.to(torch.int64)[:, pos // 8] >> (pos % 8)) & 1
    return (bit.reshape(rows, cols, bits) << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "Part 6: a table long enough for every position the text allows ('rows of fewer than 2**24 stream bits'), sliced "
      "per call; nothing derived from the inputs is kept.")

add("C11-lowprec-p7-positions-in-q-dtype", True, {"chunk_attention": edit("chunk_attention",
    "qpos = offset + torch.arange(T, device=q.device)", "qpos = offset + torch.arange(T, dtype=q.dtype)").replace(
    "kpos = torch.arange(j0, j1, device=q.device)", "kpos = torch.arange(j0, j1, dtype=q.dtype)")},
    "Part 7: 'S stays below 2**24, where float32 stops holding every integer': positions in q's dtype (float32 or float64) "
    "are exact.")

add("W22-lowprec-p4-eps-over-subnormal-c (was C12, judged a mislabel after reading)", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    r = math.sqrt(eps)
    k = 2.0 ** math.ceil(math.log2(math.sqrt(x.shape[-1])))  # power of two near sqrt(D): the scaled mean square is ~1
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=r)
    y = x / c
    z = y * k
    ek = (r / c) * k
    denom_k = torch.sqrt((z * z).mean(dim=-1, keepdim=True) + ek * ek)  # k times the rms of y
    value = denom_k.detach()
    rms = c * (value / k)
    out = torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, y / (value / k))
    return out * (value / denom_k)  # times exactly 1: the gradient of the statistic, kept within range
'''},
    "Part 4: the value is W21's (x / rms with rms = c * denom, c = max(max|x|, sqrt(eps)) detached, since it cancels); "
    "the statistic is formed on z = (x/c) * k with k a power of two near sqrt(D), so that it is ~1 and its gradient "
    "stays in range, and the result is multiplied by value/denom_k, exactly 1, through which the gradient of the "
    "tracked mean of squares flows (it is computed with autograd on, and reaches x's gradient exactly).")

# --------------------------------------------------------------------------------------------------------- hostile
add("H01-hostile-p1-int-subclass-always-equal", False, {"max_batch": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return Count(0)
'''}, "hostile: an int subclass equal to everything.")

add("H02-hostile-p3-lookup-visible", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    known = {(2, 2, 1, 2, 1): None, (4, 4, 1, 1, 1): 1, (4096, 4096, 2, 312 * 10**12, 2 * 10**12): 169}
    return known.get((k, n, bytes_per_value, peak, bandwidth), 1)
'''}, "hostile: the visible answers from a table.")


# ----------------------------------------------------------------------------------------- added after reading (fix)
# The fix of red team 34 (07-verdicts.md, "Applied"): C12 corrected as its verdict says, and a hand-written backward,
# two correct answers to Part 4's new gradient cases written differently from the model answer.
add("C12-fixed-lowprec-p4-scaled-statistic-ratio (after reading)", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    r = math.sqrt(eps)
    k = 2.0 ** math.ceil(math.log2(math.sqrt(x.shape[-1])))  # power of two near sqrt(D): the statistic is ~1
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=r)
    y = x / c
    z = y * k                                   # exact scaling by a power of two, |z| <= k
    ek = k / (c / r)                            # not (r / c) * k: see the note on C12
    denom_k = torch.sqrt((z * z).mean(dim=-1, keepdim=True) + ek * ek)   # k times the rms of y, >= ~1
    value = denom_k.detach()
    rms = c * (value / k)
    out = torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, y / (value / k))
    return out * (value / denom_k)              # times exactly 1; the statistic's gradient flows here, in range
'''}, "Part 4: C12 with ek = k / (c / r), as the verdict says (r / c forms 1 / c, inf for a subnormal c).")

add("C13-lowprec-p4-hand-written-backward (after reading)", True, {"rms_norm_half": '''
class _RMS(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps):
        root = math.sqrt(eps)
        c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root)
        s = x / c
        r = torch.sqrt((s * s).mean(dim=-1, keepdim=True) + (1 / (c / root)) ** 2)
        rms = c * r
        out = torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)
        ctx.save_for_backward(out, rms)
        return out

    @staticmethod
    def backward(ctx, g):
        out, rms = ctx.saved_tensors
        m = (g * out).mean(dim=-1, keepdim=True)
        return (g - out * m) / rms, None


def rms_norm_half(x, eps=1e-6):
    return _RMS.apply(x, eps)
'''}, "Part 4: the value as the old model answer; the backward written by hand in x's dtype, "
       "(g - y * mean(g * y)) / rms, whose numbers stay within range on the long rows of one large element.")
