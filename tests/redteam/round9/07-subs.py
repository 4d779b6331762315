import textwrap
def D(s): return textwrap.dedent(s)
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {k: D(v) for k, v in cells.items()}, "why": why})

# ---------------------------------------------------------------- Part 1
add("p1-window-truthy-replaces-length", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = window if window else length
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return max(0, (memory_bytes - weight_bytes) // per)
'''}, "breaks 'only the last ones, min(length, window)': a window longer than the sequence is used as is")
add("p1-negative-free-memory", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return (memory_bytes - weight_bytes) // per
'''}, "breaks 'Return 0 when not even one sequence fits, also when the weights alone do not' (returns a negative count)")
add("p1-correct-divmod-keywords", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    import math
    cached = min(length, window) if window is not None else length
    per = math.prod([2, layers, kv_heads, head_dim, cached, bytes_per_value])
    if weight_bytes > memory_bytes:
        return 0
    b, rest = divmod(memory_bytes - weight_bytes, per)
    return int(b)
'''}, "divmod and math.prod: exact integers")
add("p1-hostile-liar-int-and-helper-patch", False, {"max_batch": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return Count(1)

try:
    globals()["_integer"] = lambda x, what="the result": x
    globals()["_number"] = lambda x, what="the result": x
except Exception:
    pass
'''}, "HOSTILE: returns an int subclass whose == is always True and reassigns the grader's _integer/_number helpers")

# ---------------------------------------------------------------- Part 2
add("p2-nan_to_num-nan-only", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wd = torch.promote_types(lse_a.dtype, torch.float32)
    la, lb = lse_a.to(wd), lse_b.to(wd)
    m = torch.maximum(la, lb)
    wa, wb = torch.exp(la - m), torch.exp(lb - m)
    oa = torch.nan_to_num(o_a.to(wd), nan=0.0, posinf=float("inf"), neginf=float("-inf"))
    ob = torch.nan_to_num(o_b.to(wd), nan=0.0, posinf=float("inf"), neginf=float("-inf"))
    o = (wa[:, None] * oa + wb[:, None] * ob) / (wa + wb)[:, None]
    return o.to(o_a.dtype), (m + torch.log(wa + wb)).to(lse_a.dtype)
'''}, "breaks 'its row of o may hold anything, even NaN or infinities (the tests put NaN, inf and -inf there)': NaN cleared but 0 * inf is NaN")
add("p2-weights-rounded-to-o-dtype", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    m = torch.maximum(lse_a, lse_b)
    wa, wb = torch.exp(lse_a - m), torch.exp(lse_b - m)
    tot = wa + wb
    fa, fb = (wa / tot).to(o_a.dtype)[:, None], (wb / tot).to(o_a.dtype)[:, None]
    oa = torch.where(fa > 0, o_a, torch.zeros_like(o_a))
    ob = torch.where(fb > 0, o_b, torch.zeros_like(o_b))
    return fa * oa + fb * ob, m + torch.log(tot)
'''}, "breaks 'do not round the two pieces' weights to float16 ... mixing in float16 is off by more'")
add("p2-logaddexp-correct", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wd = torch.promote_types(torch.promote_types(lse_a.dtype, lse_b.dtype), torch.float32)
    la, lb = lse_a.to(wd), lse_b.to(wd)
    lse = torch.logaddexp(la, lb)
    pa = torch.exp(la - lse).unsqueeze(-1)
    pb = torch.exp(lb - lse).unsqueeze(-1)
    o = torch.where(pa == 0, 0.0, pa * o_a.to(wd)) + torch.where(pb == 0, 0.0, pb * o_b.to(wd))
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "torch.logaddexp and weights normalised by the merged lse")
add("p2-sigmoid-softplus-lerp-correct", True, {"merge_partials": '''
import torch.nn.functional as F

def merge_partials(o_a, lse_a, o_b, lse_b):
    wd = torch.float64 if torch.float64 in (lse_a.dtype, lse_b.dtype, o_a.dtype, o_b.dtype) else torch.float32
    la, lb = lse_a.to(wd), lse_b.to(wd)
    a_empty, b_empty = torch.isinf(la), torch.isinf(lb)
    d = torch.where(a_empty | b_empty, torch.zeros_like(la), la - lb)
    wa = torch.sigmoid(d)
    wb = torch.sigmoid(-d)
    wa = torch.where(a_empty, 0.0, torch.where(b_empty, 1.0, wa))
    wb = torch.where(b_empty, 0.0, torch.where(a_empty, 1.0, wb))
    o = torch.lerp(torch.where(wa[:, None] > 0, o_a.to(wd), 0.0), torch.where(wb[:, None] > 0, o_b.to(wd), 0.0), wb[:, None])
    o = torch.where(a_empty[:, None], o_b.to(wd), torch.where(b_empty[:, None], o_a.to(wd), o))
    lse = torch.where(a_empty, lb, torch.where(b_empty, la, torch.maximum(la, lb) + F.softplus(-torch.abs(la - lb))))
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "sigmoid weights, lerp, softplus: the same merge written another way, in float32/float64")

# ---------------------------------------------------------------- Part 3
add("p3-decimal-28-digits", False, {"compute_bound_batch": '''
from decimal import Decimal, ROUND_CEILING

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if a <= 0:
        return None
    c = peak * bytes_per_value * k * n
    m = (Decimal(c) / Decimal(a)).to_integral_value(rounding=ROUND_CEILING)
    return max(1, int(m))
'''}, "breaks 'Answer exactly': Decimal division keeps only 28 significant digits, so c/a = m + 1e-25 rounds to m")
add("p3-none-decided-by-float", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    best = 2 * k * n / (bytes_per_value * (k + n))   # intensity as m -> infinity
    if best <= peak / bandwidth:
        return None
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    c = peak * bytes_per_value * k * n
    return max(1, -(-c // a))
'''}, "breaks 'Decide None exactly too ... in numbers too large for a floating-point quotient to tell these apart'")
add("p3-fraction-correct", True, {"compute_bound_batch": '''
from fractions import Fraction
import math

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = Fraction(2 * k * n * bandwidth - peak * bytes_per_value * (k + n))
    if slope <= 0:
        return None
    return max(1, math.ceil(Fraction(peak * bytes_per_value * k * n) / slope))
'''}, "exact rational arithmetic")
add("p3-via-max_batch-correct", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if a <= 0:
        return None
    c = peak * bytes_per_value * k * n
    # ceil(c / a) = floor((2c + 2a - 2) / 2a): Part 1's exact floor division, with one "sequence" of 2a bytes
    m = max_batch(memory_bytes=2 * (c + a - 1) + 1, weight_bytes=1, layers=1, kv_heads=1, head_dim=a,
                  length=1, bytes_per_value=1, window=None)
    return max(1, m)
'''}, "calls Part 1's max_batch (all by keyword, window=None, byte counts far beyond 2**53) as an exact floor division")
add("p3-binary-search-correct", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def ok(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):
        return None
    hi = 1
    while not ok(hi):
        hi *= 2
    lo = hi // 2 if hi > 1 else 0      # ok(lo) is False or lo == 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi
'''}, "exponential then binary search on the integer inequality")

# ---------------------------------------------------------------- Part 4
add("p4-flush-denormal-global", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    torch.set_flush_denormal(True)   # denormals are slow on CPUs
    xf = x.to(torch.float32)
    ms = (xf * xf).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps)).to(x.dtype)
'''}, "breaks 'do not change anything inside torch': flips the process-wide flush-denormal mode, so later float computations (other parts, the grader) change")
add("p4-mean-over-dim1", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    xf = x.float()
    ms = xf.pow(2).mean(dim=1, keepdim=True)
    return (xf / torch.sqrt(ms + eps)).to(x.dtype)
'''}, "breaks 'the mean taken over the last dimension, so that every row (every position of the leading dimensions)' for x of shape (B, T, D)")
add("p4-eps-outside-sqrt", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    xf = x.float()
    rms = xf.pow(2).mean(-1, keepdim=True).sqrt()
    return (xf / (rms + eps)).to(x.dtype)
'''}, "breaks 'with epsilon = eps ... inside the square root' (differs at x = 1e-4)")
add("p4-F-rms_norm-correct", True, {"rms_norm_half": '''
import torch.nn.functional as F

def rms_norm_half(x, eps=1e-6):
    return F.rms_norm(x.to(torch.float32), (x.shape[-1],), eps=eps).to(dtype=x.dtype)
'''}, "torch.nn.functional.rms_norm in float32")
add("p4-norm-over-sqrtD-rsqrt-correct", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    D = x.shape[-1]
    xf = x.to(torch.float32)
    sq = torch.einsum("...d,...d->...", xf, xf)
    inv = torch.rsqrt(sq / D + eps)
    return (xf * inv.unsqueeze(-1)).to(x.dtype)
'''}, "einsum sum of squares and rsqrt multiply in float32")
add("p4-hostile-numpy-via-importlib", False, {"rms_norm_half": '''
import importlib

def rms_norm_half(x, eps=1e-6):
    nm = importlib.import_module("".join(["nu", "m", "py"]))
    a = nm.asarray(x.detach().to(torch.float32).tolist(), dtype="float64")
    r = a / nm.sqrt((a * a).mean(axis=-1, keepdims=True) + eps)
    return torch.tensor(r.tolist(), dtype=x.dtype)
'''}, "HOSTILE: pulls NumPy in through importlib with an obfuscated name (no gradient either)")

# ---------------------------------------------------------------- Part 5
add("p5-round-after-adding-zero", False, {"quantize_asym": BASE_Q if False else '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    levels = 2 ** bits - 1
    lo = g.amin(-1).clamp(max=0)
    hi = g.amax(-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None] + zero[..., None]), 0, levels)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    G = inn // scale.shape[1]
    qq = q.reshape(out, inn // G, G).to(scale.dtype)
    return (scale[..., None] * (qq - zero.to(scale.dtype)[..., None])).reshape(out, inn)
'''}, "breaks 'q = clamp(round(w / scale) + zero, ...) ... Round with torch.round (halves to even)': round(x + z) differs from round(x) + z on halves when z is odd")
add("p5-cast-before-clamp", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, inn // group_size, group_size)
    levels = 2 ** bits - 1
    lo = g.amin(-1).clamp(max=0)
    hi = g.amax(-1).clamp(min=0)
    scale = (hi - lo) / levels
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale).to(torch.uint8)
    q = (torch.round(g / scale[..., None]).to(torch.int16) + zero[..., None]).to(torch.uint8).clamp(0, levels)
    return q.reshape(out, inn), scale, zero


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    G = inn // scale.shape[1]
    qq = q.reshape(out, inn // G, G).to(scale.dtype)
    return (scale[..., None] * (qq - zero.to(scale.dtype)[..., None])).reshape(out, inn)
'''}, "breaks 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': casting to uint8 before the clamp wraps 256 to 0 at bits = 8 when both ends round up")
add("p5-scale-clamped-not-one", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    g = w.reshape(out, -1, group_size)
    levels = 2 ** bits - 1
    lo = torch.clamp(g.min(dim=-1).values, max=0.0)
    hi = torch.clamp(g.max(dim=-1).values, min=0.0)
    scale = ((hi - lo) / levels).clamp(min=torch.finfo(w.dtype).tiny)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1), 0, levels)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    G = q.shape[1] // scale.shape[1]
    return scale.repeat_interleave(G, dim=1) * (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(G, dim=1))
'''}, "breaks 'scale = 1 for a group of zeros' (uses the smallest normal number instead)")
add("p5-correct-int-dequant-and-loops", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    ng = inn // group_size
    levels = 2 ** bits - 1
    q = torch.empty(out, inn, dtype=torch.uint8)
    scale = torch.empty(out, ng, dtype=w.dtype)
    zero = torch.empty(out, ng, dtype=torch.uint8)
    for gi in range(ng):
        blk = w[:, gi * group_size:(gi + 1) * group_size]
        lo = torch.minimum(blk.amin(dim=1), torch.zeros((), dtype=w.dtype))
        hi = torch.maximum(blk.amax(dim=1), torch.zeros((), dtype=w.dtype))
        s = (hi - lo) / levels
        s[s == 0] = 1
        z = torch.round(-lo / s)
        q[:, gi * group_size:(gi + 1) * group_size] = torch.clamp(torch.round(blk / s[:, None]) + z[:, None], 0, levels).to(torch.uint8)
        scale[:, gi] = s
        zero[:, gi] = z.to(torch.uint8)
    return q, scale, zero


def dequantize_asym(q, scale, zero):
    G = q.shape[1] // scale.shape[1]
    diff = q.to(torch.int32) - zero.to(torch.int32).repeat_interleave(G, dim=1)
    return diff.to(scale.dtype) * scale.repeat_interleave(G, dim=1)
'''}, "a loop over groups with in-place writes into own buffers; dequantise with int32 differences")

# ---------------------------------------------------------------- Part 6
add("p6-whole-tensor-one-stream", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nb = -(-cols * bits // 8)
    b = ((q.reshape(-1).to(torch.int64)[:, None] >> torch.arange(bits)) & 1).reshape(-1)
    b = torch.cat([b, b.new_zeros(rows * nb * 8 - b.numel())])
    return (b.reshape(rows, nb, 8) << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    b = ((packed.reshape(-1).to(torch.int64)[:, None] >> torch.arange(8)) & 1).reshape(-1)
    b = b[: rows * cols * bits].reshape(rows, cols, bits)
    return (b << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "breaks 'whose row r is the bit stream of row r of q': one stream for the whole tensor, so rows after the first start mid-byte when cols*bits % 8 != 0")
add("p6-last-code-takes-the-rest", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = []
    for row in q.tolist():
        val = 0
        for c, code in enumerate(row):
            val += int(code) << (c * bits)
        out.append(list(val.to_bytes(nbytes, "little")))
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, nbytes)


def unpack_bits(packed, bits, cols):
    out = []
    for row in packed.tolist():
        val = int.from_bytes(bytes(row), "little")
        codes = []
        for c in range(cols - 1):
            codes.append(val & ((1 << bits) - 1))
            val >>= bits
        codes.append(val)          # the last code is what is left
        out.append(codes)
    return torch.tensor(out, dtype=torch.uint8).reshape(packed.shape[0], cols)
'''}, "breaks 'it must use only the stream bits of those cols codes (whatever the bits after them hold)': the last code keeps the bits after it")
add("p6-bigint-correct", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = []
    for row in q.tolist():
        val = 0
        for c, code in enumerate(row):
            val |= int(code) << (c * bits)
        out.append(list(val.to_bytes(nbytes, "little")))
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, nbytes)


def unpack_bits(packed, bits, cols):
    mask = (1 << bits) - 1
    out = []
    for row in packed.tolist():
        val = int.from_bytes(bytes(row), "little")
        out.append([(val >> (c * bits)) & mask for c in range(cols)])
    return torch.tensor(out, dtype=torch.uint8).reshape(packed.shape[0], cols)
'''}, "Python big integers per row, little-endian bytes")

# ---------------------------------------------------------------- Part 7
add("p7-ignores-block-single-tile", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    end = min(S, offset + T) if causal else S
    kt, vt = k[:end], v[:end]
    sc = (q @ kt.T) / math.sqrt(Dh) - lse[:, None]
    if causal:
        seen = torch.arange(end)[None, :] <= (torch.arange(T) + offset)[:, None]
        sc = sc.masked_fill(~seen, float("-inf"))
    p = torch.exp(sc)
    Dr = (d_out * out).sum(-1, keepdim=True)
    ds = p * (d_out @ vt.T - Dr)
    dq = ds @ kt / math.sqrt(Dh)
    dk = torch.zeros(S, Dh, dtype=q.dtype)
    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)
    dk[:end] = ds.T @ q / math.sqrt(Dh)
    dv[:end] = p.T @ d_out
    dsink = -(torch.exp(sink - lse) * Dr.squeeze(-1)).sum()
    return dq, dk, dv, dsink
'''}, "breaks 'walking over the keys in tiles of at most block keys' and rule 2 (a (T, offset+T) score matrix)")
add("p7-last-tile-overshoots", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = Dh ** -0.5
    end = min(S, offset + T) if causal else S
    pos = torch.arange(T) + offset
    Dr = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(S, Dh, dtype=q.dtype)
    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)
    for s0 in range(0, end, block):
        kt, vt = k[s0:s0 + block], v[s0:s0 + block]
        n = kt.shape[0]
        sc = q @ kt.T * scale - lse[:, None]
        if causal:
            sc = torch.where(torch.arange(s0, s0 + n)[None, :] <= pos[:, None], sc, float("-inf"))
        p = torch.exp(sc)
        dv[s0:s0 + n] = p.T @ d_out
        ds = p * (d_out @ vt.T - Dr[:, None])
        dq += ds @ kt * scale
        dk[s0:s0 + n] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * Dr).sum()
    return dq, dk, dv, dsink
'''}, "breaks rule 1 'No torch operation may take positions offset + T and later of k or v': the last tile runs to s0 + block (NaN values reach dq and dk)")
add("p7-sink-prob-by-division", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    end = min(S, offset + T) if causal else S
    pos = torch.arange(T) + offset
    Dr = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(S, Dh, dtype=q.dtype)
    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)
    for s0 in range(0, end, block):
        s1 = min(end, s0 + block)
        kt, vt = k[s0:s1], v[s0:s1]
        sc = (q @ kt.T) * scale - lse[:, None]
        if causal:
            sc = torch.where(torch.arange(s0, s1)[None, :] <= pos[:, None], sc, float("-inf"))
        p = torch.exp(sc)
        dv[s0:s1] = p.T @ d_out
        ds = p * (d_out @ vt.T - Dr[:, None])
        dq += ds @ kt * scale
        dk[s0:s1] = ds.T @ q * scale
    p_sink = 1.0 - torch.exp(torch.logsumexp(torch.stack([]), 0)) if False else None
    # the sink's share is what the keys leave: 1 - sum_j P_ij, accumulated per tile
    share = torch.zeros(T, dtype=q.dtype)
    for s0 in range(0, end, block):
        s1 = min(end, s0 + block)
        sc = (q @ k[s0:s1].T) * scale - lse[:, None]
        if causal:
            sc = torch.where(torch.arange(s0, s1)[None, :] <= pos[:, None], sc, float("-inf"))
        share += torch.exp(sc).sum(-1)
    p_sink = 1.0 - share
    dsink = -(p_sink * Dr).sum()
    return dq, dk, dv, dsink
'''}, "breaks 'Every probability you rebuild must stay finite and right': the sink share as 1 - sum P loses all digits when the sink takes a tiny share (1 - p for p near 1)")
add("p7-two-pass-D-from-tiles-correct", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    dt = q.dtype
    end = min(S, offset + T) if causal else S
    pos = torch.arange(T) + offset
    tiles = []
    for s0 in range(0, end, block):
        s1 = min(end, s0 + block)
        kt, vt = k[s0:s1].to(dt), v[s0:s1].to(dt)
        sc = torch.einsum("td,sd->ts", q, kt) / math.sqrt(Dh) - lse[:, None]
        if causal:
            sc = sc.masked_fill(torch.arange(s0, s1)[None, :] > pos[:, None], float("-inf"))
        tiles.append((s0, s1, kt, vt))
    # first pass: D_i = sum_j P_ij dP_ij (the sink's value is 0, so it adds nothing)
    Dr = torch.zeros(T, dtype=dt)
    for s0, s1, kt, vt in tiles:
        sc = torch.einsum("td,sd->ts", q, kt) / math.sqrt(Dh) - lse[:, None]
        if causal:
            sc = sc.masked_fill(torch.arange(s0, s1)[None, :] > pos[:, None], float("-inf"))
        Dr = Dr + (torch.exp(sc) * torch.einsum("tv,sv->ts", d_out, vt)).sum(-1)
    dq = torch.zeros(T, Dh, dtype=dt)
    grads_k, grads_v = [], []
    for s0, s1, kt, vt in tiles:
        sc = torch.einsum("td,sd->ts", q, kt) / math.sqrt(Dh) - lse[:, None]
        if causal:
            sc = sc.masked_fill(torch.arange(s0, s1)[None, :] > pos[:, None], float("-inf"))
        p = torch.exp(sc)
        ds = p * (torch.einsum("tv,sv->ts", d_out, vt) - Dr[:, None])
        dq = dq + torch.einsum("ts,sd->td", ds, kt) / math.sqrt(Dh)
        grads_k.append(torch.einsum("ts,td->sd", ds, q) / math.sqrt(Dh))
        grads_v.append(torch.einsum("ts,tv->sv", p, d_out))
    grads_k.append(torch.zeros(S - end, Dh, dtype=dt))
    grads_v.append(torch.zeros(S - end, v.shape[1], dtype=dt))
    dsink = -(torch.exp(sink.to(dt) - lse) * Dr).sum()
    return dq, torch.cat(grads_k), torch.cat(grads_v), dsink
'''}, "einsum, D rebuilt from the tiles in a first pass instead of rowsum(dO * O), gradients concatenated")
add("p7-sink-share-via-merge_partials-correct", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    dt = q.dtype
    scale = 1.0 / math.sqrt(Dh)
    end = min(S, offset + T) if causal else S
    pos = torch.arange(T) + offset
    Dr = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = q.new_zeros(S, Dh)
    dv = q.new_zeros(S, v.shape[1])
    keys_lse = torch.full((T,), float("-inf"), dtype=dt)
    for s0 in range(0, end, block):
        s1 = min(end, s0 + block)
        kt, vt = k[s0:s1], v[s0:s1]
        raw = (q @ kt.T) * scale
        if causal:
            raw = torch.where(torch.arange(s0, s1)[None, :] <= pos[:, None], raw, float("-inf"))
        keys_lse = torch.logaddexp(keys_lse, torch.logsumexp(raw, dim=-1))
        p = torch.exp(raw - lse[:, None])
        dv[s0:s1] = p.T @ d_out
        ds = p * (d_out @ vt.T - Dr[:, None])
        dq += ds @ kt * scale
        dk[s0:s1] = ds.T @ q * scale
    # the sink is a piece of its own with log-sum-exp `sink` and "output" 1; the keys a piece with output 0:
    # Part 2's merge of the two gives each query the sink's share of the probability
    ones = torch.ones(T, 1, dtype=dt)
    with torch.no_grad():
        share, _ = merge_partials(ones, sink.to(dt).expand(T), torch.zeros(T, 1, dtype=dt), keys_lse)
    dsink = -(share[:, 0] * Dr).sum()
    return dq, dk, dv, dsink
'''}, "calls Part 2's merge_partials under torch.no_grad() on float32/float64 pieces, with an expanded (stride-0) lse, to get each query's sink share")
add("p7-zeros_like-k-correct", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    scale = 1.0 / math.sqrt(Dh)
    end = min(S, offset + T) if causal else S
    pos = torch.arange(T) + offset
    Dr = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros_like(k, dtype=q.dtype)
    dv = torch.zeros_like(v, dtype=q.dtype)
    for s0 in range(0, end, block):
        s1 = min(end, s0 + block)
        kt, vt = k[s0:s1], v[s0:s1]
        sc = (q @ kt.T) * scale - lse[:, None]
        if causal:
            sc = torch.where(torch.arange(s0, s1)[None, :] <= pos[:, None], sc, float("-inf"))
        p = torch.exp(sc)
        dv[s0:s1] += p.T @ d_out
        ds = p * (d_out @ vt.T - Dr[:, None])
        dq += ds @ kt * scale
        dk[s0:s1] += ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * Dr).sum()
    return dq, dk, dv, dsink.to(q.dtype)
'''}, "zeros_like(k) reads only k's shape, never its values (no NaN can show); the text's rule is about reading positions")

# ---------------------------------------------------------------- Part 8
add("p8-group-of-block-start", False, {"split_kv_kernel": '''
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
        g = k0 // GROUP
        s = tl.load(Scale + rows * (K // GROUP) + g, mask=rmask, other=0.0)
        z = tl.load(Zero + rows * (K // GROUP) + g, mask=rmask, other=0).to(tl.int32)
        acc += tl.sum((code - z[:, None]).to(tl.float32) * x[None, :], axis=1) * s
    tl.store(Y + rows, acc, mask=rmask)
'''}, "breaks 'either may be the larger (a block can span several groups...)': one scale per block")
add("p8-clamped-row-loads-correct", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_c = tl.minimum(rows, N - 1)   # clamp the rows we read; only the store needs the mask
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows_c[:, None] * (K // 2) + cols[None, :] // 2).to(tl.int32)
        code = (byte >> ((cols[None, :] % 2) * 4)) & 15
        g = cols // GROUP
        s = tl.load(Scale + rows_c[:, None] * (K // GROUP) + g[None, :])
        z = tl.load(Zero + rows_c[:, None] * (K // GROUP) + g[None, :]).to(tl.int32)
        acc += tl.sum((code - z).to(tl.float32) * s * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rows < N)
'''}, "loads clamped to the last row instead of masked (reads nothing outside the tensors), store masked")
add("p8-weights-in-float16", False, {"split_kv_kernel": '''
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
        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        wdq = ((code - z).to(tl.float32) * s).to(tl.float16)     # half-precision weights, as GPUs keep them
        acc += tl.sum(wdq.to(tl.float32) * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "breaks the formula y = sum x (c - z) s with float32 X and Scale: the dequantised weights are rounded to float16 (exact on the visible scale 2)")
add("p3-hostile-reads-reference", False, {"compute_bound_batch": '''
import json as js, pathlib

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    for base in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents, pathlib.Path("/work/main")]:
        nb = base / "solutions" / "07-hardware" / "exercises.ipynb"
        try:
            cells = js.loads(nb.read_text())["cells"]
        except Exception:
            continue
        for c in cells:
            if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "compute_bound_batch":
                space = {}
                exec("".join(c["source"]), space)
                return space["compute_bound_batch"](k, n, bytes_per_value, peak, bandwidth)
    import math
    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    return None if a <= 0 else max(1, math.ceil(peak * bytes_per_value * k * n / a))
'''}, "HOSTILE: reads the instructor's solution notebook from disk and runs its answer (falls back to a float quotient)")
add("p3-via-max_batch-window-positional-correct", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    c = peak * bytes_per_value * k * n
    # floor((c - 1) / slope) + 1 = ceil(c / slope); Part 1 divides by 2 * cached bytes, cached = min(length, window)
    below = max_batch(2 * (c - 1) + 7, 7, 1, 1, 1, 10 ** 30 * slope, 1, slope)
    return below + 1
'''}, "calls Part 1's max_batch with window by position (smaller than length) as an exact floor division on numbers far beyond 2**53")
add("p8-2d-grid-free-correct", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    half = tl.arange(0, BLOCK_K // 2)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        b0 = k0 // 2
        byte = tl.load(W + rows[:, None] * (K // 2) + b0 + half[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        lo_code = byte & 0xF
        hi_code = byte >> 4
        ke = k0 + 2 * half
        ko = ke + 1
        xe = tl.load(X + ke)
        xo = tl.load(X + ko)
        se = tl.load(Scale + rows[:, None] * (K // GROUP) + (ke // GROUP)[None, :], mask=rmask[:, None], other=0.0)
        so = tl.load(Scale + rows[:, None] * (K // GROUP) + (ko // GROUP)[None, :], mask=rmask[:, None], other=0.0)
        ze = tl.load(Zero + rows[:, None] * (K // GROUP) + (ke // GROUP)[None, :], mask=rmask[:, None], other=0).to(tl.float32)
        zo = tl.load(Zero + rows[:, None] * (K // GROUP) + (ko // GROUP)[None, :], mask=rmask[:, None], other=0).to(tl.float32)
        acc += tl.sum((lo_code.to(tl.float32) - ze) * se * xe[None, :] + (hi_code.to(tl.float32) - zo) * so * xo[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''}, "reads each byte once and splits it into its even and odd codes")
