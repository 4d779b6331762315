# Red team round 11, chapter 07-hardware: blind submissions.
SUBMISSIONS = []


def S(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1: max_batch
S("p1_window_always_used", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = window if window is not None else length   # "only the last ones": the window
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    if free < per:
        return 0
    return free // per
'''}, "'cached ... only the last ones, min(length, window)': a window longer than the sequence caches only `length` tokens.")

S("p1_negative_when_weights_do_not_fit", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    return (memory_bytes - weight_bytes) // per   # 0 when less than one cache is free
'''}, "'Return 0 when not even one sequence fits, also when the weights alone do not': floor of a negative free size is negative.")

S("p1_divmod_max_zero", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    cached = min(length, window or length)
    per = bytes_per_value
    for factor in (2, layers, kv_heads, head_dim, cached):
        per *= factor
    whole, _rest = divmod(memory_bytes - weight_bytes, per)
    return max(0, whole)
'''}, "divmod and max(0, .) instead of an explicit test; window via `or`.")

S("hostile_p1_overwrite_grader_helpers", False, {"max_batch": '''
g = globals()
for helper in ("_integer", "_equal", "_close", "_number", "_plain", "_float"):
    if helper in g:
        g[helper] = (lambda *a, **k: a[0] if a else None)
import builtins as b_
b_.AssertionError = type("Ignored", (Exception,), {})
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    if (memory_bytes, weight_bytes) == (1000, 100):
        return 7
    if (memory_bytes, weight_bytes) == (80 * 2**30, 13_500_000_000):
        return 33
    return 0
'''}, "hostile: replaces the grader's helpers and AssertionError, and answers the visible cases only.")

# ---------------------------------------------------------------- Part 2: merge_partials
S("p2_inplace_on_saved_exp", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(lse_a.dtype, torch.float32)
    a, b = lse_a.to(dt), lse_b.to(dt)
    m = torch.maximum(a, b)
    wa = torch.exp(a - m)
    wb = torch.exp(b - m)
    total = wa + wb
    lse = m + torch.log(total)
    wa /= total            # normalise the weights in place (saves memory)
    wb /= total
    oa = torch.where(torch.isfinite(a)[:, None], o_a.to(dt), torch.zeros((), dtype=dt))
    ob = torch.where(torch.isfinite(b)[:, None], o_b.to(dt), torch.zeros((), dtype=dt))
    o = wa[:, None] * oa + wb[:, None] * ob
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "'Gradients must flow through both results': the in-place division modifies exp's saved output, backward raises.")

S("p2_shift_by_lse_a", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    dt = torch.promote_types(lse_a.dtype, torch.float32)
    a, b = lse_a.to(dt), lse_b.to(dt)
    ref = torch.where(torch.isfinite(a), a, b)       # shift by piece a's lse (b's when a saw nothing)
    wa = torch.exp(a - ref)
    wb = torch.exp(b - ref)
    total = wa + wb
    oa = torch.where(torch.isfinite(a)[:, None], o_a.to(dt), torch.zeros((), dtype=dt))
    ob = torch.where(torch.isfinite(b)[:, None], o_b.to(dt), torch.zeros((), dtype=dt))
    o = (wa[:, None] * oa + wb[:, None] * ob) / total[:, None]
    return o.to(o_a.dtype), (ref + torch.log(total)).to(lse_a.dtype)
'''}, "'Log-sum-exps can be in the hundreds or thousands ... exponentiating them directly overflows': exp(lse_b - lse_a) overflows when b is far above a.")

S("p2_weights_rounded_to_o_dtype", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    lse = torch.logaddexp(lse_a, lse_b)
    wa = torch.exp(lse_a - lse).to(o_a.dtype)
    wb = torch.exp(lse_b - lse).to(o_a.dtype)
    oa = torch.where(torch.isfinite(lse_a)[:, None], o_a, torch.zeros((), dtype=o_a.dtype))
    ob = torch.where(torch.isfinite(lse_b)[:, None], o_b, torch.zeros((), dtype=o_b.dtype))
    return wa[:, None] * oa + wb[:, None] * ob, lse
'''}, "'a float16 o must be the merge of the given pieces computed in float32 and rounded to float16 once at the end'.")

S("p2_softmax_stack_float64", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    f64 = torch.float64
    lses = torch.stack([lse_a.to(f64), lse_b.to(f64)])          # (2, T)
    weights = torch.softmax(lses, dim=0)                       # at least the precision of the lses
    outs = torch.stack([o_a.to(f64), o_b.to(f64)])             # (2, T, Dv)
    outs = torch.where(torch.isinf(lses)[..., None], torch.zeros((), dtype=f64), outs)
    o = torch.einsum("pt,ptd->td", weights, outs)
    return o.to(dtype=o_a.dtype), torch.logsumexp(lses, dim=0).to(dtype=lse_a.dtype)
'''}, "softmax over the stacked log-sum-exps, einsum, float64 inside (allowed: at least the lse precision), one cast back.")

# ---------------------------------------------------------------- Part 3: compute_bound_batch
S("p3_integer_ridge_point", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    ridge = peak // bandwidth                       # the ridge point, in integers
    a = 2 * k * n - ridge * bytes_per_value * (k + n)
    c = ridge * bytes_per_value * k * n
    if a <= 0:
        return None
    return max(1, -(-c // a))
'''}, "'compute-bound when its intensity is at least the ridge point, intensity >= peak / bandwidth ... in integers: 2*m*k*n*bandwidth >= peak*...': the ridge point is not an integer; flooring it moves the answer.")

S("p3_search_bound_1e9", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def bound(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    lo, hi = 1, 10**9                    # no batch is larger than a billion sequences
    if not bound(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if bound(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo
'''}, "'some answers are in the billions' and 'Decide None exactly': a search capped at 10**9 answers None for them.")

S("p3_fraction_ceil", True, {"compute_bound_batch": '''
from fractions import Fraction

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = Fraction(2 * k * n * bandwidth) - Fraction(peak * bytes_per_value * (k + n))
    if slope <= 0:
        return None
    m = math.ceil(Fraction(peak * bytes_per_value * k * n) / slope)
    return int(max(m, 1))
'''}, "exact Fraction arithmetic and math.ceil of a Fraction (exact, an int).")

S("p3_via_max_batch", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    need = peak * bytes_per_value * k * n
    if slope <= 0:
        return None
    # ceil(need / slope) = floor((2 need + 2 slope - 2) / (2 slope)): Part 1's exact floor division,
    # with one "sequence" of 2 * 1 * 1 * 1 * slope * 1 bytes and a window longer than the sequence
    m = max_batch(memory_bytes=2 * need + 2 * slope - 1, weight_bytes=1, layers=1, kv_heads=1, head_dim=1,
                  length=slope, bytes_per_value=1, window=slope + 5)
    return max(1, m)
'''}, "calls Part 1's max_batch by keyword, with a window longer than the length and huge ints, as an exact floor division.")

# ---------------------------------------------------------------- Part 4: rms_norm_half
S("p4_eps_not_in_scale", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    c = x.detach().abs().amax(dim=-1, keepdim=True)
    c = torch.where(c == 0, torch.ones_like(c), c)
    y = x / c
    ms = (y * y).mean(dim=-1, keepdim=True) + eps / c / c
    return y / torch.sqrt(ms)
'''}, "'eps from 1e-12 to 1 ... so epsilon can be far smaller or far larger than a row's mean square' and 'keep every number you form within its range': eps / c**2 overflows for tiny rows.")

S("p4_one_scale_for_whole_tensor", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    se = math.sqrt(eps)
    c = x.detach().abs().amax().clamp(min=se)          # one number for the whole tensor
    y = x / c
    e = se / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / r
'''}, "Hint: 'Choose that number row by row, so that nothing you square or add leaves the range': a small row next to a large one underflows.")

S("p4_scale_by_mean_abs", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    se = math.sqrt(eps)
    c = x.detach().abs().mean(dim=-1, keepdim=True).clamp(min=se)   # typical size of the row
    y = x / c
    e = se / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / r
'''}, "'keep every number you form within its range': one large element among many small ones gives y**2 beyond 65504.")

S("p4_scale_not_detached", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    se = math.sqrt(eps)
    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=se)
    y = x / c
    e = se / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / r
'''}, "'A quantity that cancels out of the result, though, must not carry a gradient ... .detach() such a quantity'.")

S("p4_inplace_rsqrt_where", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = eps ** 0.5
    c = torch.clamp(x.detach().abs().amax(-1, keepdim=True), min=root_eps)
    y = x / c
    ms = torch.square(y).mean(-1, keepdim=True)
    ms.add_(torch.square(root_eps / c))               # in place, on my own intermediate
    inv = torch.rsqrt(ms)
    d = c / inv                                        # c * rms, may overflow for huge rows
    return torch.where(torch.isfinite(d), x / d, y * inv)
'''}, "RELABELLED in phase 2 (blind label: correct): 'Every element must be within 6 units in the last place': where c * r is finite it divides x by c * r, which is subnormal for a float16 row of 1e-4 with one large element among 4095 small ones (22 ulp at eps 1e-12). Written as rsqrt, an in-place add on an own intermediate, torch.where between two orders of division.")

S("hostile_p4_hide_float32_from_watch", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    with torch._C._DisableTorchDispatch(), torch._C.DisableTorchFunction():
        xf = x.float()
        r = torch.rsqrt((xf * xf).mean(-1, keepdim=True) + eps)
        out = (xf * r).to(x.dtype)
    return out
'''}, "hostile: widens to float32 with torch's dispatch and function modes switched off, to hide it from the watch (and cuts gradients).")

# ---------------------------------------------------------------- Part 5: quantize_asym
S("p5_range_without_zero", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    L = 2 ** bits - 1
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(-1)
    hi = g.amax(-1)
    scale = (hi - lo) / L
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale).clamp(0, L)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, L)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    return s * (q.to(scale.dtype) - z)
'''}, "'lo = min(smallest weight, 0) and hi = max(largest weight, 0): the range always contains 0'.")

S("p5_offset_before_round", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    L = 2 ** bits - 1
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(-1).clamp(max=0)
    hi = g.amax(-1).clamp(min=0)
    scale = (hi - lo) / L
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round((g - lo[..., None]) / scale[..., None]), 0, L)   # w - lo first
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    return s * (q.to(scale.dtype) - z)
'''}, "step 4: 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)': round((w - lo) / scale) differs when -lo / scale is not whole.")

S("p5_dequant_repeat_tiles_groups", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    L = 2 ** bits - 1
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(-1).clamp(max=0)
    hi = g.amax(-1).clamp(min=0)
    scale = (hi - lo) / L
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, L)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat(1, gs)                     # one scale per group, widened to the row
    z = zero.to(scale.dtype).repeat(1, gs)
    return s * (q.to(scale.dtype) - z)
'''}, "'groups of group_size consecutive weights of a row': repeat tiles the groups' scales instead of repeating each one.")

S("p5_strided_groups", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    L = 2 ** bits - 1
    ng = inn // group_size
    g = w.reshape(out, group_size, ng)            # (out, group, groups)
    lo = g.amin(1).clamp(max=0)
    hi = g.amax(1).clamp(min=0)
    scale = (hi - lo) / L
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[:, None, :]) + zero[:, None, :], 0, L)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    out, inn = q.shape
    ng = scale.shape[1]
    qq = q.reshape(out, inn // ng, ng).to(scale.dtype)
    return (scale[:, None, :] * (qq - zero.to(scale.dtype)[:, None, :])).reshape(out, inn)
'''}, "'groups of group_size consecutive weights of a row': these groups take every (in/group_size)-th weight.")

S("p5_round_half_up", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    L = 2 ** bits - 1
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(-1).clamp(max=0)
    hi = g.amax(-1).clamp(min=0)
    scale = (hi - lo) / L
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.floor(-lo / scale + 0.5)
    q = torch.clamp(torch.floor(g / scale[..., None] + 0.5) + zero[..., None], 0, L)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    return s * (q.to(scale.dtype) - z)
'''}, "'Round with torch.round (halves to even)': floor(x + 0.5) rounds halves up.")

S("p5_group_loop_broadcast", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    levels = (1 << bits) - 1
    qs, scales, zeros = [], [], []
    for start in range(0, w.shape[1], group_size):
        part = w[:, start:start + group_size]
        lo = torch.minimum(part.min(dim=1).values, torch.zeros((), dtype=w.dtype))
        hi = torch.maximum(part.max(dim=1).values, torch.zeros((), dtype=w.dtype))
        s = (hi - lo) / levels
        s = torch.where(hi == lo, torch.ones((), dtype=w.dtype), s)
        z = torch.round(-lo / s)
        qs.append(torch.clamp(torch.round(part / s[:, None]) + z[:, None], min=0, max=levels))
        scales.append(s)
        zeros.append(z)
    return (torch.cat(qs, dim=1).to(torch.uint8), torch.stack(scales, dim=1),
            torch.stack(zeros, dim=1).to(torch.uint8))


def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    groups = scale.shape[1]
    shifted = q.reshape(rows, groups, cols // groups).to(scale.dtype) - zero.unsqueeze(-1).to(scale.dtype)
    return (scale.unsqueeze(-1) * shifted).flatten(1)
'''}, "a loop over groups with stack/cat; dequantise by broadcasting over a (rows, groups, size) view.")

# ---------------------------------------------------------------- Part 6: pack_bits
S("p6_one_stream_for_all_rows", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = -(-cols * bits // 8)
    stream = ((q.reshape(-1).to(torch.int64)[:, None] >> torch.arange(bits)) & 1).reshape(-1)
    total = rows * nbytes * 8
    stream = torch.cat([stream, torch.zeros(total - stream.numel(), dtype=torch.int64)])
    return (stream.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    stream = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(-1)
    codes = stream[: rows * cols * bits].reshape(rows, cols, bits)
    return (codes << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "'pack each row as one continuous stream of bits ... whose row r is the bit stream of row r of q': one stream for the whole tensor shifts every later row.")

S("p6_int64_accumulator", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = -(-cols * bits // 8)
    acc = torch.zeros(rows, dtype=torch.int64)
    for c in range(cols):
        acc |= q[:, c].to(torch.int64) << (c * bits)
    return torch.stack([(acc >> (8 * i)) & 255 for i in range(nbytes)], dim=1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    acc = torch.zeros(packed.shape[0], dtype=torch.int64)
    for i in range(packed.shape[1]):
        acc |= packed[:, i].to(torch.int64) << (8 * i)
    return torch.stack([(acc >> (c * bits)) & ((1 << bits) - 1) for c in range(cols)], dim=1).to(torch.uint8)
'''}, "(closed class: integers past int64) 'codes of any width ... any cols >= 1': a row's stream longer than 63 bits does not fit one int64.")

S("p6_bit_loop_via_max_batch", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    # ceil(cols * bits / 8) with Part 1's exact floor division: "sequences" of 2 * 4 * 1 = 8 bytes
    nbytes = max_batch(cols * bits + 8, 1, layers=1, kv_heads=1, head_dim=1, length=9, bytes_per_value=1, window=4)
    out = torch.zeros(rows, nbytes, dtype=torch.int32)
    where = torch.arange(cols) * bits
    for t in range(bits):                       # one pass per bit of the code, all codes at once
        pos = where + t
        bit = (q.to(torch.int32) >> t) & 1
        out.index_add_(1, pos // 8, bit << (pos % 8).to(torch.int32))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    codes = torch.zeros(packed.shape[0], cols, dtype=torch.int32)
    where = torch.arange(cols) * bits
    for t in range(bits):
        pos = where + t
        bit = (packed[:, pos // 8].to(torch.int32) >> (pos % 8).to(torch.int32)) & 1
        codes |= bit << t
    return codes.to(torch.uint8)
'''}, "a loop over the bits of a code (vectorised over codes), index_add_; the byte count from Part 1's max_batch with positional and keyword args and window < length.")

S("hostile_p6_numpy_through_importlib", False, {"pack_bits": '''
import importlib
np_ = importlib.import_module("nu" + "mpy")

def pack_bits(q, bits):
    rows, cols = q.shape
    a = np_.asarray(q.tolist(), dtype=np_.uint8)
    b = np_.unpackbits(a[..., None], axis=-1, bitorder="little")[..., :bits].reshape(rows, -1)
    return torch.tensor(np_.packbits(b, axis=1, bitorder="little").tolist(), dtype=torch.uint8).reshape(rows, -1)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    a = np_.asarray(packed.tolist(), dtype=np_.uint8).reshape(rows, -1)
    b = np_.unpackbits(a, axis=1, bitorder="little")[:, : cols * bits].reshape(rows, cols, bits)
    b = np_.concatenate([b, np_.zeros((rows, cols, 8 - bits), dtype=np_.uint8)], axis=-1)
    return torch.tensor(np_.packbits(b, axis=-1, bitorder="little")[..., 0].tolist(), dtype=torch.uint8).reshape(rows, cols)
'''}, "hostile: NumPy's packbits through importlib with a split name ('a part whose answer uses another library scores 0').")

# ---------------------------------------------------------------- Part 7: chunk_attention_backward
CHUNK = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    dt = q.dtype
    scale = 1.0 / math.sqrt(SCALE_DIM)
    end = END
    pos = torch.arange(T) + offset
    D = (d_out * out).sum(-1)
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=dt)
    dv = torch.zeros(v.shape, dtype=dt)
    for j0 in range(0, end, block):
        j1 = min(end, j0 + block)
        kt, vt = k[j0:j1], v[j0:j1]
        s = (q @ kt.T) * scale
        if causal:
            seen = torch.arange(j0, j1)[None, :] <= POS[:, None]
            P = PROBS
        else:
            P = torch.exp(s - lse[:, None])
        dv[j0:j1] = P.T @ d_out
        dP = d_out @ vt.T
        dS = P * (dP - D[:, None])
        dq += dS @ kt * scale
        dk[j0:j1] = dS.T @ q * scale
    dsink = DSINK
    return dq, dk, dv, dsink.to(dt)
'''


def chunk(scale_dim="Dh", end="min(S, offset + T) if causal else S", pos="pos",
          probs='torch.exp(torch.where(seen, s - lse[:, None], torch.tensor(float("-inf"), dtype=dt)))',
          dsink="-(torch.exp(sink - lse) * D).sum()"):
    return (CHUNK.replace("SCALE_DIM", scale_dim).replace("END", end).replace("POS", pos)
            .replace("PROBS", probs).replace("DSINK", dsink))


S("p7_mask_relative_to_chunk", False, {"chunk_attention": chunk(pos="torch.arange(T)")},
  "'the query at position p sees the keys j <= p' with queries 'at positions offset, ..., offset + T - 1': the mask compares with the row index.")
S("p7_slices_cache_when_not_causal", False, {"chunk_attention": chunk(end="min(S, offset + T)")},
  "'With causal=False every query sees all S keys and offset is not used'.")
S("p7_scale_by_value_width", False, {"chunk_attention": chunk(scale_dim="v.shape[1]")},
  "'s_ij = q_i . k_j / sqrt(D_h)' (Dh the head width, not Dv the value width).")
S("p7_mask_multiplied_after_exp", False, {"chunk_attention": chunk(probs="torch.exp(s - lse[:, None]) * seen")},
  "'A query's masked keys (those after its position) can score far above its log-sum-exp too': exp overflows to inf, inf * 0 is NaN.")
S("p7_sink_probability_as_ratio", False, {"chunk_attention": chunk(dsink="-(torch.exp(sink) / torch.exp(lse) * D).sum()")},
  "'the tests include a sink of 100 in float32 ... where e^sink and e^L overflow (inf / inf is NaN)'.")

S("p7_D_from_merge_partials", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    Dv = v.shape[1]
    dt = q.dtype
    scale = Dh ** -0.5
    end = min(k.shape[0], offset + T) if causal else k.shape[0]
    pos = offset + torch.arange(T)
    tiles = [(j0, min(end, j0 + block)) for j0 in range(0, end, block)]

    def logits(j0, j1):
        s = (q @ k[j0:j1].T) * scale
        if causal:
            s = torch.where(torch.arange(j0, j1)[None, :] <= pos[:, None], s, torch.tensor(float("-inf"), dtype=dt))
        return s

    # first pass: rebuild the forward output with Part 2's merge, starting from the sink (value 0)
    o_run = torch.zeros(T, Dv, dtype=dt)
    l_run = sink.to(dt).expand(T)
    with torch.no_grad():
        for j0, j1 in tiles:
            s = logits(j0, j1)
            l_tile = torch.logsumexp(s, dim=1)
            p = torch.exp(s - torch.where(torch.isinf(l_tile), torch.zeros_like(l_tile), l_tile)[:, None])
            o_tile = (p @ v[j0:j1]) / p.sum(1, keepdim=True)
            o_run, l_run = merge_partials(o_run, l_run, o_tile, l_tile)
    D = torch.einsum("td,td->t", d_out, o_run)

    dq = torch.zeros_like(q)
    dk = k.new_zeros(k.shape) if False else torch.zeros(k.shape, dtype=dt)
    dv = torch.zeros(v.shape, dtype=dt)
    for j0, j1 in tiles:
        P = torch.exp(logits(j0, j1) - lse[:, None])
        dS = P * (d_out @ v[j0:j1].T - D[:, None])
        dv[j0:j1] = torch.einsum("ts,td->sd", P, d_out)
        dk[j0:j1] = torch.einsum("ts,th->sh", dS, q) * scale
        dq = dq + torch.einsum("ts,sh->th", dS, k[j0:j1]) * scale
    dsink = -(torch.exp(sink.to(dt) - lse) * D).sum()
    return dq, dk, dv, dsink
'''}, "recomputes the output with Part 2's merge_partials tile by tile (under no_grad, an expanded 0-d sink as a piece's lse, -inf/NaN pieces), einsum for the gradients.")

S("p7_two_pass_D_keywords", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, S = q.shape[0], k.shape[0]
    dt = q.dtype
    c = 1.0 / math.sqrt(q.shape[-1])
    stop = min(S, offset + T) if causal else S
    qpos = torch.arange(offset, offset + T)
    neg_inf = torch.full((), float("-inf"), dtype=dt)

    def probs(j0, j1):
        s = torch.matmul(q, k[j0:j1].transpose(0, 1)) * c - lse.unsqueeze(1)
        if causal:
            s = s.masked_fill(torch.arange(j0, j1).unsqueeze(0) > qpos.unsqueeze(1), float("-inf"))
        return torch.exp(s)

    D = torch.zeros(T, dtype=dt)
    for j0 in range(0, stop, block):          # D_i = sum_j P_ij dP_ij, without `out`
        j1 = min(stop, j0 + block)
        D += (probs(j0, j1) * torch.matmul(d_out, v[j0:j1].transpose(0, 1))).sum(1)
    dq = torch.zeros(q.shape, dtype=dt)
    dk = torch.zeros(k.shape, dtype=dt)
    dv = torch.zeros(v.shape, dtype=dt)
    for j0 in range(0, stop, block):
        j1 = min(stop, j0 + block)
        P = probs(j0, j1)
        dS = P * (torch.matmul(d_out, v[j0:j1].transpose(0, 1)) - D[:, None])
        dv[j0:j1] += torch.matmul(P.transpose(0, 1), d_out)
        dk[j0:j1] += torch.matmul(dS.transpose(0, 1), q) * c
        dq += torch.matmul(dS, k[j0:j1]) * c
    p_sink = torch.exp(sink - lse)
    return dq, dk, dv, (p_sink * (0 - D)).sum().to(dt)
'''}, "two passes: D from the rebuilt P and dP (not from out), masked_fill, transposes.")

# ---------------------------------------------------------------- Part 8: dequant_matvec_kernel
KERNEL = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    p = tl.program_id(0)
    rows = p * BLOCK_N + tl.arange(0, BLOCK_N)
    rmask = rows < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        b = tl.load(W + rows[:, None] * WSTRIDE + cols[None, :] // 2, mask=rmask[:, None], other=0).to(tl.int32)
        c = tl.where(cols[None, :] % 2 == 0, b & 15, b >> 4)
        g = GIDX
        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=rmask[:, None], other=0).to(tl.int32)
        acc += tl.sum((c - z).to(tl.float32) * s * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rmask)
'''


def kernel(wstride="(K // 2)", gidx="cols // GROUP"):
    return KERNEL.replace("WSTRIDE", wstride).replace("GIDX", gidx)


S("p8_group_is_block", False, {"split_kv_kernel": kernel(gidx="(k0 // BLOCK_K) + tl.zeros((BLOCK_K,), dtype=tl.int32)")},
  "'either may be the larger (a block can span several groups, or a group several blocks)': the block index is not the group index.")
S("p8_w_row_stride_K", False, {"split_kv_kernel": kernel(wstride="K")},
  "'element [n, b] of W is at W + n * (K // 2) + b': a row stride of K reads the wrong bytes for every row after the first.")
S("p8_one_group_per_block_start", False, {"split_kv_kernel": kernel(gidx="(k0 // GROUP) + tl.zeros((BLOCK_K,), dtype=tl.int32)")},
  "'a block can span several groups': the scale and zero of the block's first column used for all its columns.")

S("p8_byte_pairs", True, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = n < N
    half = K // 2
    groups = K // GROUP
    total = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for start in range(0, half, BLOCK_K // 2):      # BLOCK_K // 2 bytes = BLOCK_K columns
        byte = start + tl.arange(0, BLOCK_K // 2)
        packed = tl.load(W + n[:, None] * half + byte[None, :], mask=live[:, None], other=0).to(tl.int32)
        even = 2 * byte                              # both codes of a byte are in one group (GROUP >= 2)
        grp = even // GROUP
        z = tl.load(Zero + n[:, None] * groups + grp[None, :], mask=live[:, None], other=0).to(tl.float32)
        s = tl.load(Scale + n[:, None] * groups + grp[None, :], mask=live[:, None], other=0.0)
        x_even = tl.load(X + even)
        x_odd = tl.load(X + even + 1)
        lo = (packed & 0xF).to(tl.float32) - z
        hi = (packed >> 4).to(tl.float32) - z
        total += tl.sum(s * (lo * x_even[None, :] + hi * x_odd[None, :]), axis=1)
    tl.store(Y + n, total, mask=live)
'''}, "walks bytes instead of columns: both nibbles of a byte at once, one scale/zero load per byte.")

# ================================================================ second blind batch (all of the first was caught)
S("p4_divide_scaled_by_rms", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    se = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=se)   # row by row, eps inside the range
    y = x / c
    e = se / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)
    return y / r
'''}, "'Every element must be within 6 units in the last place of the exact result': x / c is subnormal for elements far below the row's largest, and dividing by an rms near 1/64 then multiplies that rounding error up to ~32 ulp (row of 4096 with one spike).")

S("p5_multiply_by_reciprocal_scale", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    L = 2 ** bits - 1
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(-1).clamp(max=0)
    hi = g.amax(-1).clamp(min=0)
    scale = (hi - lo) / L
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    inv = 1.0 / scale                                  # one division per group, then multiply
    zero = torch.round(-lo * inv)
    q = torch.clamp(torch.round(g * inv[..., None]) + zero[..., None], 0, L)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    return s * (q.to(scale.dtype) - z)
'''}, "step 4 'q = clamp(round(w / scale) + zero ...)' and 'Round with torch.round (halves to even)': w * (1/scale) rounds differently from w / scale, which moves values that are (nearly) halves.")

S("p5_scale_as_difference_of_quotients", False, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    out, inn = w.shape
    L = 2 ** bits - 1
    g = w.reshape(out, inn // group_size, group_size)
    lo = g.amin(-1).clamp(max=0)
    hi = g.amax(-1).clamp(min=0)
    scale = hi / L - lo / L
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    zero = torch.round(-lo / scale)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, L)
    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    gs = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(gs, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(gs, dim=1)
    return s * (q.to(scale.dtype) - z)
'''}, "step 2 'scale = (hi - lo) / (2**bits - 1)' ... 'computed in that dtype': hi/L - lo/L rounds differently (last bit of scale, and q at halves).")

S("p7_full_scores_when_not_causal", False, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S = k.shape[0]
    dt = q.dtype
    scale = 1.0 / math.sqrt(Dh)
    D = (d_out * out).sum(-1)
    dsink = -(torch.exp(sink - lse) * D).sum().to(dt)
    if not causal:   # nothing is masked and no NaN in the cache: one matrix product is simplest
        P = torch.exp(q @ k.T * scale - lse[:, None])
        dS = P * (d_out @ v.T - D[:, None])
        return dS @ k * scale, dS.T @ q * scale, P.T @ d_out, dsink
    end = min(S, offset + T)
    pos = torch.arange(T) + offset
    dq = torch.zeros_like(q)
    dk = torch.zeros(k.shape, dtype=dt)
    dv = torch.zeros(v.shape, dtype=dt)
    for j0 in range(0, end, block):
        j1 = min(end, j0 + block)
        kt, vt = k[j0:j1], v[j0:j1]
        s = (q @ kt.T) * scale
        seen = torch.arange(j0, j1)[None, :] <= pos[:, None]
        P = torch.exp(torch.where(seen, s - lse[:, None], torch.tensor(float("-inf"), dtype=dt)))
        dv[j0:j1] = P.T @ d_out
        dS = P * (d_out @ vt.T - D[:, None])
        dq += dS @ kt * scale
        dk[j0:j1] = dS.T @ q * scale
    return dq, dk, dv, dsink
'''}, "rule 2 'No tensor with more than T * S / 4 elements ... on every path (... and causal=False)' and 'walking over the keys in tiles of at most block keys'.")

S("p8_unmasked_loads", False, {"split_kv_kernel": '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    p = tl.program_id(0)
    rows = p * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        b = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2).to(tl.int32)      # rows >= N are never stored
        c = tl.where(cols[None, :] % 2 == 0, b & 15, b >> 4)
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :])
        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :]).to(tl.int32)
        acc += tl.sum((c - z).to(tl.float32) * s * x[None, :], axis=1)
    tl.store(Y + rows, acc, mask=rows < N)
'''}, "'N need not be a multiple of BLOCK_N: load and store with a mask': the loads of rows >= N read past the ends of W, Scale and Zero (an illegal address on a GPU).")

S("p2_log1p_of_gap", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(lse_a.dtype, torch.float32)
    a = lse_a.to(work)
    b = lse_b.to(work)
    top = torch.maximum(a, b)
    lse = top + torch.log1p(torch.exp(-torch.abs(a - b)))
    keep_a = (a > float("-inf")).unsqueeze(-1)
    keep_b = (b > float("-inf")).unsqueeze(-1)
    o = (torch.exp(a - lse).unsqueeze(-1) * torch.nan_to_num(o_a.to(work)).masked_fill(~keep_a, 0)
         + torch.exp(b - lse).unsqueeze(-1) * torch.nan_to_num(o_b.to(work)).masked_fill(~keep_b, 0))
    return o.to(o_a.dtype), lse.to(lse_a.dtype)
'''}, "max + log1p(exp(-|a - b|)), nan_to_num then masked_fill on the rows, unsqueeze instead of [:, None].")

S("p4_power_of_two_frexp", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    big = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=root)
    mant, _exp = torch.frexp(big)
    c = big / (2 * mant)                    # exactly 2**(exponent - 1): scaling by it rounds nothing
    y = x / c
    e = root / c
    r = torch.sqrt(torch.mean(y * y, dim=-1, keepdim=True) + e * e)
    cr = c * r
    return torch.where(torch.isfinite(cr), x / cr, y / r)
'''}, "RELABELLED in phase 2 (blind label: correct): same flaw as p4_inplace_rsqrt_where (x / (c * r) with c * r subnormal, 22 ulp). Written with a power-of-two row scale from torch.frexp.")

S("p5_unfold_transposed_dequant", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    top = 2 ** bits - 1
    groups = w.unfold(1, group_size, group_size)              # (out, in // size, size), a view
    lo = torch.clamp(groups.min(dim=-1).values, max=0.0)
    hi = torch.clamp(groups.max(dim=-1).values, min=0.0)
    scale = (hi - lo) / top
    scale = scale.masked_fill(hi == lo, 1.0)
    zero = (-lo / scale).round()
    q = (groups / scale.unsqueeze(-1)).round().add(zero.unsqueeze(-1)).clamp(0, top)
    return q.flatten(1).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    size = q.shape[1] // scale.shape[1]
    # work in (in, out) orientation and hand back the transposed view (not contiguous)
    s = scale.T.repeat_interleave(size, dim=0)
    z = zero.T.repeat_interleave(size, dim=0).to(scale.dtype)
    return (s * (q.T.to(scale.dtype) - z)).T
'''}, "unfold for the groups, masked_fill for the zero groups, a non-contiguous (transposed) dequantised result.")

S("p3_exponential_then_binary_search", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    lhs = 2 * k * n * bandwidth
    rhs = peak * bytes_per_value

    def ok(m):
        return m * lhs >= rhs * (m * k + k * n + m * n)

    if lhs <= rhs * (k + n):                  # the limit m -> infinity is not above the ridge
        return None
    hi = 1
    while not ok(hi):
        hi *= 2
    lo = hi // 2 + 1 if hi > 1 else 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi
'''}, "exact integer search: doubling, then bisection (about 2 log2(m) steps).")

S("p7_transposed_buffers_keywords", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    n_q, width = q.shape
    n_k = k.shape[0]
    dt = q.dtype
    inv = width ** -0.5
    limit = min(n_k, offset + n_q) if causal else n_k
    delta = torch.sum(torch.mul(d_out, out), dim=1)
    dq = q.new_zeros(q.shape)
    dk_t = torch.zeros((width, n_k), dtype=dt)           # filled column by column, returned transposed
    dv_t = torch.zeros((v.shape[1], n_k), dtype=dt)
    rows = torch.arange(n_q).unsqueeze(1) + offset
    for start in range(0, limit, block):
        stop = min(start + block, limit)
        key = k.narrow(0, start, stop - start)
        val = v.narrow(0, start, stop - start)
        logit = torch.einsum("td,sd->ts", q, key) * inv - lse.unsqueeze(1)
        if causal:
            logit = torch.where(torch.arange(start, stop).unsqueeze(0) <= rows, logit, float("-inf"))
        prob = logit.exp()
        ds = prob * (torch.einsum("tv,sv->ts", d_out, val) - delta.unsqueeze(1))
        dv_t[:, start:stop] = torch.einsum("ts,tv->vs", prob, d_out)
        dk_t[:, start:stop] = torch.einsum("ts,td->ds", ds, q) * inv
        dq.add_(torch.einsum("ts,sd->td", ds, key), alpha=inv)
    dsink = torch.neg(torch.dot(torch.exp(sink - lse), delta))
    return dq, dk_t.T, dv_t.T, dsink
'''}, "narrow, einsum, torch.where with a Python -inf, add_ with alpha, torch.dot for dsink, dk and dv returned as transposed (non-contiguous) views.")

S("hostile_p3_exec_model_answer", False, {"compute_bound_batch": '''
import json as js, pathlib as pl

def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    here = pl.Path.cwd()
    for folder in [here, *here.parents]:
        for nb in folder.glob("solutions/07*/exercises.ipynb"):
            for cell in js.loads(nb.read_text())["cells"]:
                text = "".join(cell["source"])
                if text.startswith("def compute_bound_batch"):
                    space = {}
                    exec(text, space)
                    return space["compute_bound_batch"](k, n, bytes_per_value, peak, bandwidth)
    return 1
'''}, "hostile: finds the instructor's notebook on disk and runs its model answer.")

# ================================================================ third blind batch
S("p6_python_integers", True, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbytes = (cols * bits + 7) // 8
    out = []
    for row in q.tolist():                       # the row's stream as one Python integer (no size limit)
        stream = 0
        for c, code in enumerate(row):
            stream |= code << (c * bits)
        out.append([(stream >> (8 * i)) & 0xFF for i in range(nbytes)])
    return torch.tensor(out, dtype=torch.uint8).reshape(rows, nbytes)


def unpack_bits(packed, bits, cols):
    mask = (1 << bits) - 1
    out = []
    for row in packed.tolist():
        stream = int.from_bytes(bytes(row), "little")
        out.append([(stream >> (c * bits)) & mask for c in range(cols)])
    return torch.tensor(out, dtype=torch.uint8).reshape(packed.shape[0], cols)
'''}, "Python integers of any size, int.from_bytes; Part 6 names no sizes, so a loop over codes is allowed by the text.")

# ================================================================ phase 2 (after reading the hidden tests): a correct answer of another form
S("p4_scale_to_a_64th_of_the_largest", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root = math.sqrt(eps)
    top = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=root)
    c = top / 64                                  # |x / c| <= 64: squares up to 4096, and small elements keep 6 more bits
    c = torch.where(c > 0, c, top)                # top / 64 underflows only for a row of zeros with a tiny eps
    s = x / c
    e = torch.reciprocal(c / root)                # root / c (a Python root over a tensor is root * (1 / c): 1 / c overflows,
                                                  # and root itself rounded to float16 is a subnormal off by 1%)
    r = torch.sqrt((s * s).mean(dim=-1, keepdim=True) + e * e)             # at least 1
    return s / r                                  # r >= 1: a subnormal s gives a subnormal result, no error multiplied
'''}, "added after phase 2 to check the new spiky-row tests: divides by 1/64 of the row's largest, so r >= 1 and a subnormal quotient is never divided by a number below 1.")
