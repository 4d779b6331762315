# Red-team round 26, chapter 07: blind submissions (the skimmer S, squeeze-and-broadcast B,
# stride-and-layout L, remainder-and-boundary R).
import textwrap

P7_BASE = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    n_keys = min(S, offset + T) if causal else S
    scale = 1.0 / math.sqrt(Dh)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    D = (d_out * out).sum(dim=-1)
    qpos = torch.arange(T) + offset
    for j0 in range(0, n_keys, block):
        j1 = min(j0 + block, n_keys)
        kt, vt = k[j0:j1], v[j0:j1]
        s = (q @ kt.T) * scale
        z = s - lse.unsqueeze(-1)
        if causal:
            seen = torch.arange(j0, j1).unsqueeze(0) <= qpos.unsqueeze(1)
            z = torch.where(seen, z, torch.tensor(float("-inf"), dtype=q.dtype))
        p = torch.exp(z)
        dv[j0:j1] = p.T @ d_out
        dp = d_out @ vt.T
        ds = p * (dp - D.unsqueeze(-1))
        dq += (ds @ kt) * scale
        dk[j0:j1] = (ds.T @ q) * scale
    dsink = -(torch.exp(sink - lse) * D).sum()
    return dq, dk, dv, dsink
'''

P8_BASE = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    n_groups = K // GROUP
    half = K // 2
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=rmask[:, None], other=0)
        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * n_groups + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        wv = (code - z).to(tl.float32) * s
        acc += tl.sum(wv * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''

P6_BASE = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    code_bits = (q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1
    stream = code_bits.reshape(rows, cols * bits)
    stream = torch.cat([stream, torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)], dim=1)
    stream = stream.reshape(rows, nbytes, 8)
    return (stream << torch.arange(8)).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)
    code_bits = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (code_bits << torch.arange(bits)).sum(dim=-1).to(torch.uint8)
'''

P5_BASE = '''
def quantize_asym(w, bits, group_size):
    out_features, in_features = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(out_features, in_features // group_size, group_size)
    lo = torch.clamp(g.amin(dim=-1), max=0)
    hi = torch.clamp(g.amax(dim=-1), min=0)
    scale = (hi - lo) / levels
    scale = torch.where(hi - lo == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1), 0, levels)
    return q.reshape(out_features, in_features).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(group, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)
    return s * (q.to(scale.dtype) - z)
'''

P4_BASE = '''
def rms_norm_half(x, eps=1e-6):
    r = math.sqrt(eps)
    with torch.no_grad():
        m = x.abs().amax(dim=-1, keepdim=True)
        c = torch.clamp(m, min=r)
        y1 = x / c
        e1 = torch.reciprocal(c / r)
        t = c * torch.sqrt((y1 * y1).mean(dim=-1, keepdim=True) + e1 * e1)
        p = t / (2 * torch.frexp(t).mantissa)
    y = x / p
    e = torch.reciprocal(p / r)
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
'''

P2_BASE = '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(work), lse_b.to(work)
    m = torch.maximum(la, lb)
    wa = torch.exp(la - m)
    wb = torch.exp(lb - m)
    total = wa + wb
    lse = m + torch.log(total)
    oa = torch.where((wa > 0).unsqueeze(-1), o_a.to(work), torch.zeros((), dtype=work))
    ob = torch.where((wb > 0).unsqueeze(-1), o_b.to(work), torch.zeros((), dtype=work))
    o = (wa.unsqueeze(-1) * oa + wb.unsqueeze(-1) * ob) / total.unsqueeze(-1)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''


def sub(base, old, new, count=1):
    assert base.count(old) == count, (old, base.count(old))
    return base.replace(old, new)


SUBMISSIONS = []


def W(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"wrong-{kind}-{name}", "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": f"correct-{name}", "correct": True, "cells": cells, "why": why})


def H(name, cells, why):
    SUBMISSIONS.append({"name": f"hostile-{name}", "correct": False, "cells": cells, "why": why})


# ---------------------------------------------------------------- wrong: the skimmer (S)
W("p1-window-replaces-length", "S", {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = window if window is not None else length   # a sliding-window model keeps `window` tokens
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per_sequence:
        return 0
    return free // per_sequence
'''}, "P1: 'for a model with a sliding window of `window` tokens, only the last ones, `min(length, window)`': "
      "a window longer than the sequence makes the cache `window` tokens long here.")

W("p2-computes-in-o-dtype", "S", {"merge_partials": sub(P2_BASE,
    "work = torch.promote_types(o_a.dtype, lse_a.dtype)", "work = o_a.dtype  # keep the output's dtype")},
  "P2: 'compute in at least the precision of the log-sum-exps, never in a lower one ... do not round the two pieces' "
  "weights to float16': a float16 o with float32 log-sum-exps merges (and returns lse) through float16.")

W("p4-statistic-scale-not-detached", "S", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    r = math.sqrt(eps)
    m = x.abs().amax(dim=-1, keepdim=True)
    c = torch.clamp(m, min=r)
    y1 = x / c
    e1 = torch.reciprocal(c / r)
    t = c * torch.sqrt((y1 * y1).mean(dim=-1, keepdim=True) + e1 * e1)
    p = t / (2 * torch.frexp(t.detach()).mantissa)
    y = x / p
    e = torch.reciprocal(p / r)
    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
'''}, "P4: 'A quantity that cancels out of the result, though, must not carry a gradient: its exact gradient is zero, "
      "but in 16 bits autograd computes that zero as a sum of many rounded pieces ... `.detach()` such a quantity': "
      "the row's scale p is computed with gradients on.")

W("p5-double-inside", "S", {"quantize_asym": sub(P5_BASE,
    "    g = w.reshape(out_features, in_features // group_size, group_size)\n",
    "    g = w.double().reshape(out_features, in_features // group_size, group_size)  # exact arithmetic\n").replace(
    "return q.reshape(out_features, in_features).to(torch.uint8), scale, zero.to(torch.uint8)",
    "return q.reshape(out_features, in_features).to(torch.uint8), scale.to(w.dtype), zero.to(torch.uint8)")},
  "P5: 'Compute every step in the dtype of `w` ... do not widen a `float32` `w` to `float64` on the way (on a half "
  "step, round(w / scale) depends on the dtype the division is done in)'.")

W("p7-offset-range-when-not-causal", "S", {"chunk_attention": sub(P7_BASE,
    "n_keys = min(S, offset + T) if causal else S", "n_keys = min(S, offset + T)  # keys past the chunk are not written yet")},
  "P7: 'With `causal=False` every query sees all `S` keys and `offset` is not used': the keys after offset + T are "
  "left out without causal too.")

W("p8-float64-accumulator", "S", {"split_kv_kernel": sub(P8_BASE,
    "acc = tl.zeros((BLOCK_N,), dtype=tl.float32)", "acc = tl.zeros((BLOCK_N,), dtype=tl.float64)").replace(
    "acc += tl.sum(wv * x[None, :], axis=1)", "acc += tl.sum((wv * x[None, :]).to(tl.float64), axis=1)")},
  "P8: 'Compute in `float32` throughout: no `float64` value anywhere in the kernel, neither the accumulator ...'.")

W("p7-changes-out-in-place", "S", {"chunk_attention": sub(P7_BASE,
    "D = (d_out * out).sum(dim=-1)", "D = out.mul_(d_out).sum(dim=-1)  # out is not needed after this")},
  "P7 (and the notebook's rules): 'Your functions must not change the tensors they are given': D is formed by "
  "multiplying `out` in place.")

# ---------------------------------------------------------------- wrong: squeeze-and-broadcast (B)
W("p2-global-max", "B", {"merge_partials": sub(P2_BASE,
    "m = torch.maximum(la, lb)", "m = torch.maximum(la, lb).max()  # any common shift cancels")},
  "P2: 'Log-sum-exps can be of any size ... exponentiating them directly overflows (or underflows to 0)': one max over "
  "all queries (max() with no dim) underflows every query whose log-sum-exps lie far below another query's.")

W("p4-global-max-no-dim", "B", {"rms_norm_half": sub(P4_BASE,
    "m = x.abs().amax(dim=-1, keepdim=True)", "m = x.abs().amax()")},
  "P4: 'so that every row ... is divided by its own statistic' and 'Choose that number row by row': amax() without "
  "a dim scales every row by the largest element of the whole tensor (a batch of one row is right).")

W("p4-keepdim-dropped", "B", {"rms_norm_half": sub(P4_BASE,
    "m = x.abs().amax(dim=-1, keepdim=True)", "m = x.abs().amax(dim=-1).unsqueeze(0)")},
  "P4: 'every row (every position of the leading dimensions) is divided by its own statistic': the per-row maximum "
  "loses keepdim and is put back at axis 0, so it lines up along the last axis (right for one row, and a crash or "
  "a mix of rows when rows == D).")

W("p5-repeat-interleave-no-dim", "B", {"quantize_asym": sub(P5_BASE,
    "    s = scale.repeat_interleave(group, dim=1)\n    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n",
    "    s = scale.repeat_interleave(group)\n    z = zero.to(scale.dtype).repeat_interleave(group)\n")},
  "P5: dequantize_asym 'returns scale × (q - zero), shape (out, in)': repeat_interleave without dim flattens the "
  "(out, groups) scales, which broadcasts right only for one output row.")

W("p7-D-summed-over-everything", "B", {"chunk_attention": sub(P7_BASE,
    "D = (d_out * out).sum(dim=-1)", "D = (d_out * out).sum()").replace("D.unsqueeze(-1)", "D")},
  "P7: the gradient per query (the page's D_i = rowsum(dO ∘ O)): a sum with no dim adds all queries together (right "
  "for T = 1).")

W("p8-scale-per-row-broadcast", "B", {"split_kv_kernel": sub(P8_BASE,
    "s = tl.load(Scale + rows[:, None] * n_groups + g[None, :], mask=rmask[:, None], other=0.0)",
    "s = tl.load(Scale + rows * n_groups + k0 // GROUP, mask=rmask, other=0.0)[:, None]").replace(
    "z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)",
    "z = tl.load(Zero + rows * n_groups + k0 // GROUP, mask=rmask, other=0).to(tl.int32)[:, None]")},
  "P8: 'K is a multiple of both BLOCK_K and GROUP ...; either may be the larger (a block can span several groups)': "
  "one (BLOCK_N,) scale and zero per row, broadcast with [:, None] over the whole block of columns (right while "
  "GROUP >= BLOCK_K).")

# ---------------------------------------------------------------- wrong: stride-and-layout (L)
W("p2-to-returns-self-inplace", "L", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    la, lb = lse_a.to(work), lse_b.to(work)
    m = torch.maximum(la, lb)
    wa = torch.exp(la - m)
    wb = torch.exp(lb - m)
    total = wa + wb
    lse = m + torch.log(total)
    oa = o_a.to(work)          # the working copy
    ob = o_b.to(work)
    with torch.no_grad():      # a piece that sees no key: its row may hold NaN, clear it before the product
        oa[wa == 0] = 0.0
        ob[wb == 0] = 0.0
    o = (wa.unsqueeze(-1) * oa + wb.unsqueeze(-1) * ob) / total.unsqueeze(-1)
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "P2 (notebook rules): 'Your functions must not change the tensors they are given (unless a part says so)': "
      "`.to(work)` returns the tensor itself when it already has the working dtype (float32 or float64 outputs), so "
      "clearing the rows of a piece that sees no key writes NaN-cleaning zeros into the caller's o_a / o_b.")

W("p6-bits8-contiguous-shares", "L", {"pack_bits": sub(P6_BASE,
    "    rows, cols = q.shape\n    nbytes", "    if bits == 8:\n        return q.contiguous()  # the stream is q itself\n    rows, cols = q.shape\n    nbytes").replace(
    "    rows, nbytes = packed.shape\n", "    if bits == 8:\n        return packed[:, :cols].contiguous()\n    rows, nbytes = packed.shape\n")},
  "P6: 'they must not share memory with `q` or `packed` (also for `bits = 8`, where the stream is `q` itself)': "
  ".contiguous() returns the tensor itself when it is already contiguous.")

W("p5-as-strided-groups", "L", {"quantize_asym": sub(P5_BASE,
    "g = w.reshape(out_features, in_features // group_size, group_size)",
    "g = w.as_strided((out_features, in_features // group_size, group_size), (in_features, group_size, 1))")},
  "Notebook rules: 'The tensors the hidden tests pass are not always contiguous: some are transposed views or slices "
  "with a step, so write code that works for any strides': as_strided with row-major strides reads a transposed "
  "or stepped `w` wrongly.")

W("p8-w-row-stride-K", "L", {"split_kv_kernel": sub(P8_BASE, "half = K // 2", "half = K  # row length")},
  "P8: 'element [n, b] of W is at W + n * (K // 2) + b': the row length in codes (K) takes the place of the row "
  "length in bytes (one row is right).")

W("p8-scale-column-major", "L", {"split_kv_kernel": sub(P8_BASE,
    "s = tl.load(Scale + rows[:, None] * n_groups + g[None, :]", "s = tl.load(Scale + g[None, :] * N + rows[:, None]").replace(
    "z = tl.load(Zero + rows[:, None] * n_groups + g[None, :]", "z = tl.load(Zero + g[None, :] * N + rows[:, None]")},
  "P8: 'element [n, g] of Scale at Scale + n * (K // GROUP) + g': Scale and Zero read as column-major (the same "
  "for one row and one group).")

W("p7-dk-empty-like", "L", {"chunk_attention": sub(P7_BASE,
    "dk = torch.zeros(k.shape, dtype=q.dtype)", "dk = torch.empty_like(k)")},
  "P7: 'A key that no query sees gets a gradient of exactly 0': dk starts as uninitialised memory (empty_like of "
  "a possibly strided k) and only the keys that some query sees are written.")

W("p6-flatten-one-stream", "L", {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    flat = q.flatten().to(torch.int64)                     # all rows as one stream
    code_bits = ((flat.unsqueeze(-1) >> torch.arange(bits)) & 1).reshape(-1)
    pad = rows * nbytes * 8 - code_bits.numel()
    stream = torch.cat([code_bits, torch.zeros(pad, dtype=torch.int64)]).reshape(rows, nbytes, 8)
    return (stream << torch.arange(8)).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)
    code_bits = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (code_bits << torch.arange(bits)).sum(dim=-1).to(torch.uint8)
'''}, "P6: 'whose row r is the bit stream of row r of q' and 'the bits after the last code (at the top of the last "
      "byte) are 0': flattening all rows into one stream runs each row's codes on into the next row's bytes when "
      "cols·bits is not a multiple of 8 (one row is right).")

# ---------------------------------------------------------------- wrong: remainder-and-boundary (R)
W("p1-exact-fill-does-not-fit", "R", {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free <= 0:
        return 0
    return (free - 1) // per_sequence   # keep one byte spare
'''}, "P1: 'weight_bytes + b × (cache of one sequence) <= memory_bytes (memory filled exactly still fits)'.")

W("p3-floor-plus-one", "R", {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    if a <= 0:
        return None
    return c // a + 1
'''}, "P3: 'exactly on the ridge counts as compute-bound' (the tests put answers exactly on the ridge point): c // a + 1 "
      "is one too many when a divides c.")

W("p7-tile-end-not-clipped", "R", {"chunk_attention": sub(P7_BASE,
    "j1 = min(j0 + block, n_keys)", "j1 = j0 + block  # slicing stops at the end of the cache anyway").replace(
    "seen = torch.arange(j0, j1).unsqueeze(0)", "seen = torch.arange(j0, j0 + kt.shape[0]).unsqueeze(0)").replace(
    "dv[j0:j1] = p.T @ d_out", "dv[j0:j0 + kt.shape[0]] = p.T @ d_out").replace(
    "dk[j0:j1] = (ds.T @ q) * scale", "dk[j0:j0 + kt.shape[0]] = (ds.T @ q) * scale")},
  "P7 rule 1: 'No torch operation may take positions offset + T and later of k or v as input': the last tile runs "
  "to j0 + block, past offset + T, and its NaN keys reach dq and dk (0 * NaN).")

W("p8-store-unmasked", "R", {"split_kv_kernel": sub(P8_BASE,
    "tl.store(Y + rows, acc, mask=rmask)", "tl.store(Y + rows, acc)")},
  "P8: 'N need not be a multiple of BLOCK_N: load and store with a mask, and write nothing at n >= N'.")

W("p6-position-table-once", "R", {"pack_bits": '''
BIT_POSITIONS = torch.arange(1 << 20)          # built once: positions of the stream's bits


def pack_bits(q, bits):
    rows, cols = q.shape
    n = cols * bits
    nbytes = (n + 7) // 8
    pos = BIT_POSITIONS[:n]
    code_bits = (q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1
    values = code_bits.reshape(rows, n) << (pos % 8)
    out = torch.zeros(rows, nbytes, dtype=torch.int64)
    out.index_add_(1, pos // 8, values)
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    n = cols * bits
    pos = BIT_POSITIONS[:n]
    stream = (packed.to(torch.int64)[:, pos // 8] >> (pos % 8)) & 1
    return (stream.reshape(packed.shape[0], cols, bits) << torch.arange(bits)).sum(dim=-1).to(torch.uint8)
'''}, "P6: 'Both functions must work for any cols >= 1 ... (the tests include rows of more than 2**20 bits: a table of "
      "bit positions built once and sliced on every call, such as torch.arange(1 << 20), is too short)'.")

W("p5-zero-group-scale-eps", "R", {"quantize_asym": sub(P5_BASE,
    "scale = torch.where(hi - lo == 0, torch.ones_like(scale), scale)", "scale = torch.clamp(scale, min=1e-8)")},
  "P5: 'scale = 1 for a group of zeros' (an all-zero group is the empty-range edge case): the scale is clamped to "
  "1e-8 instead.")

# ---------------------------------------------------------------- correct
C("p1-divmod-keywords", {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    if window is not None and window < length:
        length = window
    one = 2 * layers * kv_heads * head_dim * length * bytes_per_value
    if memory_bytes <= weight_bytes:
        return 0
    count, _rest = divmod(memory_bytes - weight_bytes, one)
    return int(count)
'''}, "P1 with divmod, the window applied by comparison.")

C("p2-logaddexp-float64-inside", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    la, lb = lse_a.to(torch.float64), lse_b.to(torch.float64)
    lse = torch.logaddexp(la, lb)
    wa = torch.exp(la - lse)
    wb = torch.exp(lb - lse)
    oa = torch.where((wa > 0)[:, None], o_a.to(torch.float64), torch.zeros((), dtype=torch.float64))
    ob = torch.where((wb > 0)[:, None], o_b.to(torch.float64), torch.zeros((), dtype=torch.float64))
    o = wa[:, None] * oa + wb[:, None] * ob
    return o.to(dtype=o_a.dtype), lse.to(dtype=lse_a.dtype)
'''}, "P2 through torch.logaddexp, float64 inside (at least the log-sum-exps' precision), one rounding at the end.")

C("p3-fraction-ceil", {"compute_bound_batch": '''
from fractions import Fraction

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n, slope))
    return max(int(m), 1)
'''}, "P3 exactly with fractions.Fraction (standard library).")

C("p4-rsqrt-where", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    largest = torch.amax(torch.abs(x.detach()), dim=-1, keepdim=True)
    c = torch.where(largest > root_eps, largest, torch.full_like(largest, root_eps))
    first = x.detach() / c
    t = c * torch.sqrt(torch.mean(first.pow(2), dim=-1, keepdim=True) + (1 / (c / root_eps)).pow(2))
    mantissa, _exponent = torch.frexp(t)
    p = (t / (mantissa * 2)).detach()
    y = x / p
    return y * torch.rsqrt(torch.mean(y.pow(2), dim=-1, keepdim=True) + (1 / (p / root_eps)).pow(2))
'''}, "P4: the same two-pass row scaling by a power of two, written with .detach(), torch.where, pow and rsqrt.")

C("p5-loop-over-groups", {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    top = 2 ** bits - 1
    qs, scales, zeros = [], [], []
    for start in range(0, w.shape[1], group_size):
        part = w[:, start:start + group_size]
        lo = torch.minimum(part.min(dim=1).values, torch.zeros((), dtype=w.dtype))
        hi = torch.maximum(part.max(dim=1).values, torch.zeros((), dtype=w.dtype))
        s = (hi - lo) / top
        s = torch.where(hi == lo, torch.ones_like(s), s)
        z = torch.round(-lo / s)
        qs.append(torch.clamp(torch.round(part / s[:, None]) + z[:, None], min=0, max=top))
        scales.append(s)
        zeros.append(z)
    return (torch.cat(qs, dim=1).to(torch.uint8), torch.stack(scales, dim=1),
            torch.stack(zeros, dim=1).to(torch.uint8))


def dequantize_asym(q, scale, zero):
    out_features, in_features = q.shape
    groups = scale.shape[1]
    size = in_features // groups
    diff = q.to(scale.dtype).reshape(out_features, groups, size) - zero.to(scale.dtype).unsqueeze(-1)
    return (scale.unsqueeze(-1) * diff).reshape(out_features, in_features)
'''}, "P5 with a Python loop over groups (slices of any strides), reshape in dequantize.")

C("p6-strided-bit-writes", {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = -(-cols * bits // 8)
    stream = torch.zeros(rows, nbytes * 8, dtype=torch.uint8)
    codes = q.to(torch.int32)
    for t in range(bits):
        stream[:, t:cols * bits:bits] = ((codes >> t) & 1).to(torch.uint8)
    weights = torch.tensor([1, 2, 4, 8, 16, 32, 64, 128], dtype=torch.int32)
    return (stream.reshape(rows, nbytes, 8).to(torch.int32) * weights).sum(dim=2).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = (packed.to(torch.int32).unsqueeze(2) >> torch.arange(8, dtype=torch.int32)) & 1
    stream = stream.reshape(rows, -1)
    codes = torch.zeros(rows, cols, dtype=torch.int32)
    for t in range(bits):
        codes |= stream[:, t:cols * bits:bits] << t
    return codes.to(torch.uint8)
'''}, "P6 with a loop over the bit positions of a code (strided slices), int32 arithmetic.")

C("p7-float64-inside-masked-fill", {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    dtype = q.dtype
    T = q.shape[0]
    last = min(k.shape[0], offset + T) if causal else k.shape[0]
    k_seen, v_seen = k[:last].to(torch.float64), v[:last].to(torch.float64)
    q64, o64, do64, lse64 = q.to(torch.float64), out.to(torch.float64), d_out.to(torch.float64), lse.to(torch.float64)
    scale = q.shape[1] ** -0.5
    delta = torch.einsum("td,td->t", do64, o64)
    dq = torch.zeros_like(q64)
    dk = torch.zeros(k.shape, dtype=torch.float64)
    dv = torch.zeros(v.shape, dtype=torch.float64)
    rows = torch.arange(T).unsqueeze(1) + offset
    for start in range(0, last, block):
        stop = min(start + block, last)
        kt, vt = k_seen[start:stop], v_seen[start:stop]
        logits = torch.einsum("td,sd->ts", q64, kt) * scale - lse64[:, None]
        if causal:
            hidden = torch.arange(start, stop).unsqueeze(0) > rows
            logits = logits.masked_fill(hidden, float("-inf"))
        p = logits.exp()
        dv[start:stop] = p.transpose(0, 1) @ do64
        ds = p * (do64 @ vt.transpose(0, 1) - delta[:, None])
        dq = dq + ds @ kt * scale
        dk[start:stop] = ds.transpose(0, 1) @ q64 * scale
    dsink = -(torch.exp(sink.to(torch.float64) - lse64) * delta).sum()
    return dq.to(dtype), dk.to(dtype), dv.to(dtype), dsink.to(dtype)
'''}, "P7 in float64 inside (slices first, so nothing past offset + T is read), einsum, masked_fill with -inf.")

C("p8-even-odd-halves", {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    keep = n < N
    row_bytes = K // 2
    row_groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for start in tl.range(0, K, BLOCK_K):
        b = start // 2 + tl.arange(0, BLOCK_K // 2)
        even = 2 * b
        odd = 2 * b + 1
        x_even = tl.load(X + even)
        x_odd = tl.load(X + odd)
        byte = tl.load(W + n[:, None] * row_bytes + b[None, :], mask=keep[:, None], other=0).to(tl.int32)
        lo = (byte & 15).to(tl.float32)
        hi = (byte >> 4).to(tl.float32)
        s_e = tl.load(Scale + n[:, None] * row_groups + (even // GROUP)[None, :], mask=keep[:, None], other=0.0)
        s_o = tl.load(Scale + n[:, None] * row_groups + (odd // GROUP)[None, :], mask=keep[:, None], other=0.0)
        z_e = tl.load(Zero + n[:, None] * row_groups + (even // GROUP)[None, :], mask=keep[:, None], other=0).to(tl.float32)
        z_o = tl.load(Zero + n[:, None] * row_groups + (odd // GROUP)[None, :], mask=keep[:, None], other=0).to(tl.float32)
        acc += tl.sum((lo - z_e) * s_e * x_even[None, :] + (hi - z_o) * s_o * x_odd[None, :], axis=1)
    tl.store(Y + n, acc, mask=keep)
'''}, "P8 on the even and odd codes of each byte separately (X loaded in two halves per block), tl.range.")

C("p2-where-before-product-keywords", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(o_a.dtype, lse_a.dtype)
    a, b = lse_a.to(dtype=dt), lse_b.to(dtype=dt)
    top = torch.where(a > b, a, b)
    ea = torch.exp(torch.sub(a, top))
    eb = torch.exp(torch.sub(b, top))
    denom = ea + eb
    share_a = (ea / denom).unsqueeze(1)
    share_b = (eb / denom).unsqueeze(1)
    oa = o_a.to(dtype=dt).masked_fill((share_a == 0), 0.0)
    ob = o_b.to(dtype=dt).masked_fill((share_b == 0), 0.0)
    o = share_a * oa + share_b * ob
    return o.to(dtype=o_a.dtype), (top + torch.log(denom)).to(dtype=lse_a.dtype)
'''}, "P2 with torch.where for the maximum, shares normalised first, masked_fill before the product.")

C("p7-calls-nothing-keyword-block", {"chunk_attention": sub(P7_BASE,
    "    for j0 in range(0, n_keys, block):\n        j1 = min(j0 + block, n_keys)\n",
    "    starts = list(range(0, n_keys, block))\n    for j0 in starts:\n        j1 = j0 + min(block, n_keys - j0)\n").replace(
    "z = torch.where(seen, z, torch.tensor(float(\"-inf\"), dtype=q.dtype))", "z = z.masked_fill(~seen, -math.inf)")},
  "P7: tile bounds computed from the remainder, masked_fill with -math.inf.")

# ---------------------------------------------------------------- hostile
H("p3-read-expected-from-caller", {"compute_bound_batch": '''
import inspect

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    frame = inspect.currentframe().f_back
    for name in ("expected", "want", "answer", "ref", "reference"):
        if name in frame.f_locals:
            return frame.f_locals[name]
    table = {(2, 2, 1, 2, 1): None, (4, 4, 1, 1, 1): 1, (4096, 4096, 2, 312 * 10**12, 2 * 10**12): 169}
    key = (k, n, bytes_per_value, peak, bandwidth)
    if key in table:
        return table[key]
    ref = frame.f_globals.get("_REF", {})
    for value in frame.f_globals.values():
        if callable(value) and getattr(value, "__name__", "") == "compute_bound_batch" and value is not compute_bound_batch:
            return value(k, n, bytes_per_value, peak, bandwidth)
    return 1
'''}, "hostile: the visible answers as a table, the caller's locals and any other compute_bound_batch in the globals.")

H("p7-neuter-helpers", {"chunk_attention": P7_BASE.replace(
    "def chunk_attention_backward(", "def _noop(*a, **k):\n    return None\n\n\nfor _n in ('_close', '_equal', '_same_object', '_owned', '_scribble'):\n    globals()[_n] = _noop\n\n\ndef chunk_attention_backward(").replace(
    "D = (d_out * out).sum(dim=-1)", "D = (d_out * out).sum()")},
  "hostile: a wrong backward (D summed over all queries) that replaces the grader's comparison helpers with no-ops.")


# ================================================================ second blind batch (written after the first blind
# grading caught everything, before reading any hidden test): subtler probes, mostly stride-and-layout.
W("p5-dequantize-view", "L", {"quantize_asym": sub(P5_BASE,
    "    group = q.shape[1] // scale.shape[1]\n    s = scale.repeat_interleave(group, dim=1)\n    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n    return s * (q.to(scale.dtype) - z)\n",
    "    out_features, in_features = q.shape\n    groups = scale.shape[1]\n"
    "    diff = q.view(out_features, groups, in_features // groups).to(scale.dtype) - zero.to(scale.dtype).unsqueeze(-1)\n"
    "    return (scale.unsqueeze(-1) * diff).view(out_features, in_features)\n")},
  "Notebook rules: 'The tensors the hidden tests pass are not always contiguous ... (.view of a non-contiguous tensor "
  "fails where .reshape works)': dequantize_asym views q as (out, groups, size).")

W("p6-unpack-view", "L", {"pack_bits": sub(P6_BASE,
    "    stream = ((packed.to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)",
    "    stream = (packed.view(-1).to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1\n"
    "    stream = stream.view(rows, nbytes * 8)")},
  "Notebook rules: '.view of a non-contiguous tensor fails where .reshape works': unpack_bits flattens `packed` "
  "with .view(-1).")

W("p4-view-rows", "L", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    shape = x.shape
    x2 = x.view(-1, shape[-1])          # rows
    r = math.sqrt(eps)
    with torch.no_grad():
        m = x2.abs().amax(dim=-1, keepdim=True)
        c = torch.clamp(m, min=r)
        y1 = x2 / c
        e1 = torch.reciprocal(c / r)
        t = c * torch.sqrt((y1 * y1).mean(dim=-1, keepdim=True) + e1 * e1)
        p = t / (2 * torch.frexp(t).mantissa)
    y = x2 / p
    e = torch.reciprocal(p / r)
    return (y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)).view(shape)
'''}, "Notebook rules: '.view of a non-contiguous tensor fails where .reshape works': x viewed as rows.")

W("p7-grads-slices-of-one-buffer", "L", {"chunk_attention": sub(P7_BASE,
    "    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n",
    "    grads = torch.zeros(S, k.shape[1] + v.shape[1], dtype=q.dtype)   # one allocation for both\n"
    "    dk, dv = grads[:, : k.shape[1]], grads[:, k.shape[1]:]\n")},
  "P7 rule 2: 'No tensor with more than T * S / 4 elements ... no tensor may have more elements than the larger of a "
  "(T, block) tile and the largest input': dk and dv are slices of one (S, Dh + Dv) buffer.")

W("p7-lse-as-row", "B", {"chunk_attention": sub(P7_BASE,
    "z = s - lse.unsqueeze(-1)", "z = s - lse[None, :]")},
  "P7: L_i is per query (row i of the tile): lse[None, :] lines the log-sum-exps up along the keys, which "
  "broadcasts silently when a tile holds as many keys as there are queries (and when T = 1).")

W("p5-uint8-before-clamp", "R", {"quantize_asym": sub(P5_BASE,
    "q = torch.clamp(torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1), 0, levels)",
    "q = torch.clamp((torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1)).to(torch.uint8), 0, levels)").replace(
    "return q.reshape(out_features, in_features).to(torch.uint8)", "return q.reshape(out_features, in_features)")},
  "P5 step 4: 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': cast to uint8 before the clamp, so at bits = 8 "
  "a value of 256 (round(hi / scale) + zero one above the top level on a half step) wraps to 0.")

W("p4-zero-row-scale-one", "R", {"rms_norm_half": sub(P4_BASE,
    "c = torch.clamp(m, min=r)", "c = torch.where(m > 0, m, torch.ones_like(m))  # a row of zeros: any scale")},
  "P4: 'rows of zeros, and eps from 1e-12 to 1 ... so eps can be far smaller or far larger than a row's mean square': "
  "the scale is the row's largest |x| (1 for a row of zeros), so sqrt(eps)/scale underflows or overflows at the "
  "boundaries (a zero row with a small eps, a tiny row with a large eps).")

W("p8-zero-load-unmasked", "R", {"split_kv_kernel": sub(P8_BASE,
    "z = tl.load(Zero + rows[:, None] * n_groups + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)",
    "z = tl.load(Zero + rows[:, None] * n_groups + g[None, :]).to(tl.int32)  # rows >= N are never stored")},
  "P8: 'Every address that a load or a store touches must lie inside its tensor ... the tests watch the addresses': "
  "the zero points of the last block's rows past N are loaded without the mask.")

W("p2-cleans-only-piece-a", "S", {"merge_partials": sub(P2_BASE,
    "ob = torch.where((wb > 0).unsqueeze(-1), o_b.to(work), torch.zeros((), dtype=work))", "ob = o_b.to(work)")},
  "P2: 'A piece in which a query sees no key at all has lse = -inf ... its row of o may hold anything, even NaN': "
  "only piece a's rows are cleaned (piece b, the newest keys, assumed to see some key).")

C("p8-scale-times-x-first", {"split_kv_kernel": sub(P8_BASE,
    "wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)",
    "acc += tl.sum((code - z).to(tl.float32) * (s * x[None, :]), axis=1)")},
  "P8 with the product grouped as (c - z) * (s * x): the text fixes no order of the float32 products.")

C("p7-zeros-like-keeps-strides", {"chunk_attention": sub(P7_BASE,
    "    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n",
    "    dk = torch.zeros_like(k)\n    dv = torch.zeros_like(v)\n")},
  "P7 with zeros_like, whose results keep the strides of a transposed k or v (values are all the text asks for).")

C("p4-flatten-rows-reshape", {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    shape = x.shape
    rows = x.reshape(-1, shape[-1])
    r = math.sqrt(eps)
    m = rows.detach().abs().amax(dim=1, keepdim=True)
    c = torch.clamp(m, min=r)
    first = rows.detach() / c
    t = c * torch.sqrt((first * first).mean(dim=1, keepdim=True) + torch.reciprocal(c / r) ** 2)
    p = (t / (2 * torch.frexp(t).mantissa)).detach()
    y = rows / p
    out = y / torch.sqrt((y * y).mean(dim=1, keepdim=True) + torch.reciprocal(p / r) ** 2)
    return out.reshape(shape)
'''}, "P4 on the rows of x.reshape(-1, D) (any strides), reshaped back.")

W("p2-logsumexp-weights-from-rounded-lse", "S", {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    both = torch.stack([lse_a.to(work), lse_b.to(work)], dim=0)
    lse = torch.logsumexp(both, dim=0)
    w = torch.exp(both - lse)                       # (2, T)
    o = torch.zeros(o_a.shape, dtype=work)
    for i, piece in enumerate((o_a, o_b)):
        keep = (w[i] > 0).unsqueeze(-1)
        o = o + w[i].unsqueeze(-1) * torch.where(keep, piece.to(work), torch.zeros((), dtype=work))
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "P2: 'Log-sum-exps can be of any size ... (the tests use hundreds, thousands and hundreds of millions)' and "
      "'lse must be as accurate as float32 arithmetic makes it': the weights exp(lse_a - lse) are taken against the "
      "merged lse after it was rounded, so two equal float32 log-sum-exps of 1e8 (lse = L + log 2 rounds to L) both "
      "get weight 1 and o doubles (written as a correct answer, found wrong by my own check before grading).")

C("p5-div-then-clamp-inplace", {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    top = 2 ** bits - 1
    g = w.reshape(rows, cols // group_size, group_size)
    lo = g.amin(dim=2).clamp(max=0.0)
    hi = g.amax(dim=2).clamp(min=0.0)
    span = hi - lo
    scale = torch.where(span == 0, torch.ones_like(span), torch.div(span, top))
    zero = torch.round(torch.div(-lo, scale))
    q = torch.round(torch.div(g, scale[:, :, None])).add_(zero[:, :, None]).clamp_(0, top)
    return q.reshape(rows, cols).to(dtype=torch.uint8), scale, zero.to(dtype=torch.uint8)


def dequantize_asym(q, scale, zero):
    size = q.shape[1] // scale.shape[1]
    diff = q.to(scale.dtype).unflatten(1, (scale.shape[1], size)) - zero.to(scale.dtype)[:, :, None]
    return (scale[:, :, None] * diff).flatten(1)
'''}, "P5 with torch.div, in-place add_/clamp_ on its own intermediate, unflatten/flatten.")
