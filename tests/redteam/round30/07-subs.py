# Red team round 30, chapter 07-hardware: five kinds of student (validator, batch-mixer, gradient-path,
# incremental, second-call). Cells not named keep a correct answer.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ----------------------------------------------------------------------------------------------- Part 1
add("val-max_batch-bytes-whitelist", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    if bytes_per_value not in (1, 2, 4, 8):
        raise ValueError(f"bytes_per_value must be the size of a dtype (1, 2, 4 or 8), not {bytes_per_value}")
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    return (memory_bytes - weight_bytes) // per
'''}, "validator: 'All arguments are positive Python ints' - bytes_per_value of 3 (or 6, 12) is allowed and refused")
add("val-max_batch-window-longer", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    if window is not None and window > length:
        raise ValueError("window longer than the sequence: pass window=None")
    cached = length if window is None else min(length, window)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    return (memory_bytes - weight_bytes) // per
'''}, "validator: 'only the last ones, min(length, window)' - a window longer than the sequence is allowed (cached = length)")
add("inc-max_batch-window-plus-current", False, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    # the window keeps `window` earlier tokens plus the one being generated
    cached = length if window is None else min(length, window + 1)
    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    if weight_bytes > memory_bytes:
        return 0
    return (memory_bytes - weight_bytes) // per
'''}, "incremental: 'cached ... min(length, window)' - the current step counted on top of the window")
add("ok-max_batch-strict-types", True, {"max_batch": '''
def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    for name, value in (("memory_bytes", memory_bytes), ("weight_bytes", weight_bytes), ("layers", layers),
                        ("kv_heads", kv_heads), ("head_dim", head_dim), ("length", length),
                        ("bytes_per_value", bytes_per_value)):
        if type(value) is not int or value < 1:
            raise TypeError(f"{name} must be a positive int, not {value!r}")
    if window is not None and (type(window) is not int or window < 1):
        raise TypeError(f"window must be None or a positive int, not {window!r}")
    cached = length if window is None or window >= length else window
    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value
    free = memory_bytes - weight_bytes
    return max(0, free // per_sequence)
'''}, "validator, correct: checks only what the text promises (positive Python ints, window int or None)")
add("hostile-max_batch-int-eq-anything", False, {"max_batch": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):
    return Count(7)
'''}, "hostile: an int subclass that equals everything, solves nothing")

# ----------------------------------------------------------------------------------------------- Part 2
add("val-merge-same-dtypes", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    if o_a.dtype != lse_a.dtype or o_b.dtype != o_a.dtype or lse_b.dtype != lse_a.dtype:
        raise TypeError("outputs and log-sum-exps must share one dtype")
    lse = torch.logaddexp(lse_a, lse_b)
    w_a = torch.exp(lse_a - lse).unsqueeze(-1)
    w_b = torch.exp(lse_b - lse).unsqueeze(-1)
    a = torch.where(w_a > 0, o_a, torch.zeros((), dtype=o_a.dtype))
    b = torch.where(w_b > 0, o_b, torch.zeros((), dtype=o_b.dtype))
    return w_a * a + w_b * b, lse
'''}, "validator: 'the tests use float16 outputs with float32 log-sum-exps' - mixed dtypes refused")
add("batch-merge-global-max", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    m = torch.maximum(lse_a, lse_b).max()          # one shift for the whole batch of queries
    e_a = torch.exp(lse_a - m).unsqueeze(-1)
    e_b = torch.exp(lse_b - m).unsqueeze(-1)
    total = e_a + e_b
    a = torch.where(e_a > 0, o_a.to(work), torch.zeros((), dtype=work))
    b = torch.where(e_b > 0, o_b.to(work), torch.zeros((), dtype=work))
    o = (e_a * a + e_b * b) / total
    lse = m + torch.log(total.squeeze(-1))
    return o.to(o_a.dtype), lse
'''}, "batch-mixer: 'Log-sum-exps can be of any size ... exponentiating them directly overflows (or underflows to 0)' - the max over all queries leaves rows far below it at 0/0")
add("grad-merge-where-max-abs", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    m = torch.where(lse_a >= lse_b, lse_a, lse_b)
    lse = m + torch.log1p(torch.exp(-torch.abs(lse_a - lse_b)))
    w_a = torch.exp(lse_a - lse).unsqueeze(-1)
    w_b = torch.exp(lse_b - lse).unsqueeze(-1)
    a = torch.where(w_a > 0, o_a.to(work), torch.zeros((), dtype=work))
    b = torch.where(w_b > 0, o_b.to(work), torch.zeros((), dtype=work))
    return (w_a.to(work) * a + w_b.to(work) * b).to(o_a.dtype), lse
'''}, "gradient-path: 'compare the gradients ... also where the two log-sum-exps are equal' - at ties the where sends all of lse's gradient to lse_a, abs'(0)=0 gives none back")
add("grad-merge-where-sigmoid-branches", False, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    lse = torch.logaddexp(lse_a, lse_b)
    # a piece that saw no key gets weight 0, the other 1 / (1 + e^{difference})
    w_a = torch.where(torch.isinf(lse_a), torch.zeros_like(lse_a), 1 / (1 + torch.exp(lse_b - lse_a)))
    w_b = torch.where(torch.isinf(lse_b), torch.zeros_like(lse_b), 1 / (1 + torch.exp(lse_a - lse_b)))
    w_a, w_b = w_a.unsqueeze(-1), w_b.unsqueeze(-1)
    a = torch.where(w_a > 0, o_a.to(work), torch.zeros((), dtype=work))
    b = torch.where(w_b > 0, o_b.to(work), torch.zeros((), dtype=work))
    return (w_a.to(work) * a + w_b.to(work) * b).to(o_a.dtype), lse
'''}, "gradient-path: 'no gradient is NaN' - the untaken branch exp(inf) poisons the gradient where a piece has lse -inf (and 800 apart)")
add("sec-merge-anomaly-left-on", False, {"merge_partials": '''
torch.autograd.set_detect_anomaly(True)   # was chasing NaN gradients


def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    lse = torch.logaddexp(lse_a, lse_b)
    w_a = torch.exp(lse_a - lse).unsqueeze(-1)
    w_b = torch.exp(lse_b - lse).unsqueeze(-1)
    a = torch.where(w_a > 0, o_a.to(work), torch.zeros((), dtype=work))
    b = torch.where(w_b > 0, o_b.to(work), torch.zeros((), dtype=work))
    return (w_a.to(work) * a + w_b.to(work) * b).to(o_a.dtype), lse
'''}, "second-call: 'do not change anything inside torch ... or its process-wide settings' - autograd anomaly mode left on for the rest of the notebook")
add("ok-merge-softmax-stack", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    work = torch.promote_types(o_a.dtype, lse_a.dtype)
    both = torch.stack([lse_a, lse_b], dim=-1)
    weights = torch.softmax(both, dim=-1)
    lse = torch.logsumexp(both, dim=-1)
    w_a, w_b = weights[..., :1], weights[..., 1:]
    a = torch.where(w_a > 0, o_a.to(work), torch.zeros((), dtype=work))
    b = torch.where(w_b > 0, o_b.to(work), torch.zeros((), dtype=work))
    return (w_a.to(work) * a + w_b.to(work) * b).to(o_a.dtype), lse
'''}, "correct: softmax over the two log-sum-exps of each row, logsumexp for lse")
add("hostile-merge-loosen-close", False, {"merge_partials": '''
try:
    _close.__defaults__ = ("the result", 1e30, 1e30)
except NameError:
    pass


def merge_partials(o_a, lse_a, o_b, lse_b):
    # the two pieces weighted equally: right when their log-sum-exps are equal
    return (o_a + o_b) / 2, torch.maximum(lse_a, lse_b) + math.log(2)
'''}, "hostile: loosens the grader's comparison helper's default tolerances in place (no name reassigned) and returns the larger piece")

# ----------------------------------------------------------------------------------------------- Part 3
add("val-cbb-peak-above-bandwidth", False, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    if peak < bandwidth:
        raise ValueError("peak FLOP/s below the bandwidth in bytes/s: not a real device")
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    need = peak * bytes_per_value * k * n
    return max(1, -(-need // slope))
'''}, "validator: 'All arguments are positive Python ints' - a peak below the bandwidth is allowed (answer 1) and refused")
add("ok-cbb-fraction", True, {"compute_bound_batch": '''
from fractions import Fraction


def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    ridge = Fraction(peak, bandwidth)
    # intensity(m) = 2mkn / (b (mk + kn + mn)) -> 2kn / (b (k + n)) as m -> infinity
    limit = Fraction(2 * k * n, bytes_per_value * (k + n))
    if limit <= ridge:
        return None
    # 2mkn >= ridge * b * (mk + kn + mn)  <=>  m (2kn - ridge b (k + n)) >= ridge b k n
    m = math.ceil(ridge * bytes_per_value * k * n / (2 * k * n - ridge * bytes_per_value * (k + n)))
    return max(1, int(m))
'''}, "correct: exact rational arithmetic with fractions.Fraction (standard library)")
add("ok-cbb-floor-then-step", True, {"compute_bound_batch": '''
def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):
    def bound(m):
        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)
    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)
    if slope <= 0:
        return None
    m = max(1, (peak * bytes_per_value * k * n) // slope)
    while not bound(m):
        m += 1
    while m > 1 and bound(m - 1):
        m -= 1
    return m
'''}, "incremental, correct: floor of the exact quotient, then stepped (at most once) to the boundary")

# ----------------------------------------------------------------------------------------------- Part 4
RMS_BODY = '''
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)
    y = x / c
    e = (root_eps / c) ** 2
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)
    y64 = torch.where(c >= 1, x / (c / 64), (x * 64) / c)
    return y64 / (r * 64)
'''
add("val-rms-eps-below-one", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    if not 0 < eps < 1:
        raise ValueError("eps must be a small positive number below 1")
''' + RMS_BODY}, "validator: 'eps from 10^-12 to 1' / 'a Python float eps > 0' - eps = 1 (the limit) refused")
add("val-rms-two-dims", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    if x.dim() not in (1, 2):
        raise ValueError("rms_norm_half takes a vector or a (rows, D) matrix")
''' + RMS_BODY}, "validator: 'a float16 or bfloat16 tensor x of shape (..., D)' - extra leading dimensions refused")
add("batch-rms-global-scale", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax().clamp(min=root_eps)     # one scale for the whole tensor
    y = x / c
    e = (root_eps / c) ** 2
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)
    y64 = torch.where(c >= 1, x / (c / 64), (x * 64) / c)
    return y64 / (r * 64)
'''}, "batch-mixer: 'Choose that number row by row' / 'every row ... divided by its own statistic' - one scale for all rows underflows a small row's squares")
add("ok-grad-rms-inplace-unsaved", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)
    y = x / c
    sq = y * y
    r = torch.sqrt(sq.mean(dim=-1, keepdim=True) + (root_eps / c) ** 2)
    y64 = torch.where(c >= 1, x / (c / 64), (x * 64) / c)
    y64.div_(r * 64)      # in place: no extra 16-bit buffer (autograd saved no copy of y64)
    return y64
'''}, "gradient-path, correct: the in-place division writes a tensor that autograd did not save (torch.where saves only its condition)")
add("grad-rms-inplace-saved", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)
    y64 = torch.where(c >= 1, x / (c / 64), (x * 64) / c)      # x / c * 64, at most 64
    r = torch.sqrt((y64 * y64).mean(dim=-1, keepdim=True) / 4096 + (root_eps / c) ** 2)
    y64.div_(r * 64)      # in place: no extra 16-bit buffer
    return y64
'''}, "gradient-path: 'Gradients must flow through the result' - the in-place division changes y64, which the square saved: backward raises")
add("ok-rms-zero-row-where", True, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    root_eps = math.sqrt(eps)
    amax = x.data.abs().amax(dim=-1, keepdim=True)
    c = amax.clamp(min=root_eps)
    y = x / c
    r = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + (root_eps / c) ** 2)
    y64 = torch.where(c >= 1, x / (c / 64), (x * 64) / c)
    main = y64 / (r * 64)
    # a row of zeros: the result is x / sqrt(eps) (0, with the gradient 1 / sqrt(eps))
    return torch.where(amax == 0, x / root_eps, main)
'''}, "gradient-path, correct: the zero-row branch is x / sqrt(eps) (finite, right gradient), scale taken through .data")
add("sec-rms-inverse-length-kept", False, {"rms_norm_half": '''
def rms_norm_half(x, eps=1e-6):
    # 1 / D worked out once and kept on the function
    if not hasattr(rms_norm_half, "inv_d"):
        rms_norm_half.inv_d = 1.0 / x.shape[-1]
    root_eps = math.sqrt(eps)
    c = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=root_eps)
    y = x / c
    e = (root_eps / c) ** 2
    r = torch.sqrt((y * y).sum(dim=-1, keepdim=True) * rms_norm_half.inv_d + e)
    y64 = torch.where(c >= 1, x / (c / 64), (x * 64) / c)
    return y64 / (r * 64)
'''}, "second-call: 'Keep nothing from one call to the next' / 'the mean taken over the last dimension' - the first call's 1/D (D = 2) used for rows of every later length")

# ----------------------------------------------------------------------------------------------- Part 5
QUANT = '''
def quantize_asym(w, bits, group_size):
    rows, cols = w.shape
    levels = 2 ** bits - 1
    g = w.reshape(rows, cols // group_size, group_size)
    lo = g.amin(dim=-1).clamp(max=0)
    hi = g.amax(dim=-1).clamp(min=0)
    span = hi - lo
    scale = torch.where(span == 0, torch.ones_like(span), span / levels)
    zero = torch.round(-lo / scale).clamp(0, levels)
    q = (torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1)).clamp(0, levels)
    return q.reshape(rows, cols).to(torch.uint8), scale, zero.to(torch.uint8)
'''
DEQ = '''

def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    groups = scale.shape[1]
    d = q.to(torch.int32).reshape(rows, groups, cols // groups) - zero.to(torch.int32).unsqueeze(-1)
    return (d.to(scale.dtype) * scale.unsqueeze(-1)).reshape(rows, cols)
'''
add("val-quant-bits-below-8", False, {"quantize_asym": QUANT.replace("    rows, cols = w.shape\n", '''    if not 2 <= bits < 8:
        raise ValueError("bits must be 2 to 7 (8 bits is plain int8)")
    rows, cols = w.shape
''', 1) + DEQ}, "validator: 'with bits from 2 to 8' - bits = 8 (the limit) refused")
add("val-dequant-int8-signed", False, {"quantize_asym": QUANT + '''

def dequantize_asym(q, scale, zero):
    rows, cols = q.shape
    groups = scale.shape[1]
    # uint8 - uint8 wraps around: go through a signed type first
    d = q.to(torch.int8).reshape(rows, groups, cols // groups) - zero.to(torch.int8).unsqueeze(-1)
    return (d.to(scale.dtype) * scale.unsqueeze(-1)).reshape(rows, cols)
'''}, "validator (repair): 'dequantize_asym takes q and zero as quantize_asym returns them' - codes above 127 (bits = 8) wrap in int8")
add("batch-quant-per-row-range", False, {"quantize_asym": QUANT.replace(
    "    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n",
    "    lo = w.amin(dim=-1, keepdim=True).clamp(max=0).expand(rows, cols // group_size)\n"
    "    hi = w.amax(dim=-1, keepdim=True).clamp(min=0).expand(rows, cols // group_size)\n", 1) + DEQ},
    "batch-mixer: 'For each group: lo = min(smallest weight, 0)' - the range of the whole row used for every group")
add("sec-quant-grad-disabled", False, {"quantize_asym": '''
torch.set_grad_enabled(False)   # quantisation needs no gradients
''' + QUANT + DEQ}, "second-call: 'do not change ... its process-wide settings (... the grad mode outside a with block ...)' - grad mode left off for the parts after")
add("ok-quant-no-grad-unflatten", True, {"quantize_asym": '''
def quantize_asym(w, bits, group_size):
    if w.dim() != 2 or w.shape[1] % group_size != 0:
        raise ValueError("w must be (out_features, in_features) with in_features a multiple of group_size")
    levels = 2 ** bits - 1
    with torch.no_grad():
        g = w.unflatten(-1, (w.shape[1] // group_size, group_size))
        lo = torch.minimum(g.amin(dim=-1), torch.zeros((), dtype=w.dtype))
        hi = torch.maximum(g.amax(dim=-1), torch.zeros((), dtype=w.dtype))
        zeros = (hi == 0) & (lo == 0)
        scale = torch.where(zeros, torch.ones_like(hi), (hi - lo) / levels)
        zero = torch.clamp(torch.round(-lo / scale), 0, levels)
        q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], min=0, max=levels)
    return q.flatten(-2).to(torch.uint8), scale, zero.to(torch.uint8)


def dequantize_asym(q, scale, zero):
    group = q.shape[1] // scale.shape[1]
    s = scale.repeat_interleave(group, dim=1)
    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)
    return s * (q.to(scale.dtype) - z)
'''}, "correct: no_grad, unflatten/flatten, repeat_interleave of per-group values, a validator of what the text guarantees")

# ----------------------------------------------------------------------------------------------- Part 6
UNPACK = '''

def unpack_bits(packed, bits, cols):
    rows, nbytes = packed.shape
    stream = ((packed.to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)
    stream = stream[:, : cols * bits].reshape(rows, cols, bits)
    return (stream << torch.arange(bits)).sum(-1).to(torch.uint8)
'''
PACK = '''
def pack_bits(q, bits):
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    stream = ((q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1).reshape(rows, nbits)
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - nbits))
    return (stream.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)
'''
add("val-pack-zero-shortcut", False, {"pack_bits": '''
def pack_bits(q, bits):
    rows, cols = q.shape
    if not 1 <= bits <= 8:
        raise ValueError("bits must be 1 to 8")
    if not bool((q != 0).any()):
        return torch.zeros(rows, cols * bits // 8, dtype=torch.uint8)   # nothing to pack
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    stream = ((q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1).reshape(rows, nbits)
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - nbits))
    return (stream.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)
''' + UNPACK}, "validator: 'ceil(cols * bits / 8)' and 'any codes, all of them 0 included' - the all-zero shortcut floors the byte count")
add("batch-unpack-flat-stream", False, {"pack_bits": PACK + '''

def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    flat = ((packed.reshape(-1).to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1).reshape(-1)
    codes = flat[: rows * cols * bits].reshape(rows, cols, bits)
    return (codes << torch.arange(bits)).sum(-1).to(torch.uint8)
'''}, "batch-mixer: 'whose row r is the bit stream of row r of q' - unpack reads one stream across rows, so row 1 starts inside row 0's last byte")
add("sec-pack-grad-disabled", False, {"pack_bits": '''
def pack_bits(q, bits):
    torch.set_grad_enabled(False)    # integer work: no autograd bookkeeping
    rows, cols = q.shape
    nbits = cols * bits
    nbytes = (nbits + 7) // 8
    stream = ((q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1).reshape(rows, nbits)
    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - nbits))
    return (stream.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)
''' + UNPACK}, "second-call: 'do not change ... the grad mode outside a with block' - the first call switches autograd off for good")
add("sec-pack-threads-left-at-one", False, {"pack_bits": '''
torch.set_num_threads(1)   # timed it: one thread is faster for these small integer tensors
''' + PACK + UNPACK}, "second-call: 'do not change anything inside torch ... or its process-wide settings' - torch's thread count left at 1 for the rest of the process")
add("ok-pack-int8-view-and-checks", True, {"pack_bits": '''
def pack_bits(q, bits):
    if q.dtype != torch.uint8 or q.dim() != 2:
        raise TypeError("q must be a (rows, cols) torch.uint8 tensor")
    if not 1 <= bits <= 8:
        raise ValueError("bits must be 1 to 8")
    rows, cols = q.shape
    nbytes = -(-cols * bits // 8)
    shifts = torch.arange(bits, dtype=torch.int32)
    stream = (q.to(torch.int32)[:, :, None] >> shifts) & 1
    stream = stream.reshape(rows, cols * bits)
    full = torch.zeros(rows, nbytes * 8, dtype=torch.int32)
    full[:, : cols * bits] = stream
    weights = torch.tensor([1, 2, 4, 8, 16, 32, 64, 128], dtype=torch.int32)
    return (full.reshape(rows, nbytes, 8) * weights).sum(dim=-1).to(torch.uint8)


def unpack_bits(packed, bits, cols):
    if not 1 <= bits <= 8 or cols < 1:
        raise ValueError("bits must be 1 to 8 and cols at least 1")
    signed = packed.to(torch.int8)        # the bits are the same; >> keeps them
    rows, nbytes = signed.shape
    stream = (signed[:, :, None] >> torch.arange(8, dtype=torch.int8)) & 1
    stream = stream.reshape(rows, nbytes * 8)[:, : cols * bits].reshape(rows, cols, bits).to(torch.int32)
    return (stream << torch.arange(bits, dtype=torch.int32)).sum(dim=-1).to(torch.uint8)
'''}, "validator, correct: type/range checks of what the text guarantees; bits read through an int8 copy (arithmetic shift, same low bits)")

# ----------------------------------------------------------------------------------------------- Part 7
CHUNK_HEAD = '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    T, Dh = q.shape
    S, Dv = v.shape
'''
CHUNK_REST = '''
    scale = 1.0 / math.sqrt(Dh)
    n = min(S, offset + T) if causal else S
    D = (d_out * out).sum(-1)
    dq = torch.zeros(q.shape, dtype=q.dtype)
    dk = torch.zeros(k.shape, dtype=q.dtype)
    dv = torch.zeros(v.shape, dtype=q.dtype)
    qpos = offset + torch.arange(T).unsqueeze(1)
    for start in range(0, n, block):
        end = min(start + block, n)
        kt, vt = k[start:end], v[start:end]
        s = (q @ kt.T) * scale
        z = s - lse.unsqueeze(1)
        if causal:
            seen = torch.arange(start, end).unsqueeze(0) <= qpos
            z = torch.where(seen, z, torch.tensor(float("-inf"), dtype=z.dtype))
        p = torch.exp(z)
        dv[start:end] = p.T @ d_out
        ds = p * (d_out @ vt.T - D.unsqueeze(1))
        dq += ds @ kt * scale
        dk[start:end] = ds.T @ q * scale
    dsink = -(torch.exp(sink - lse) * D).sum()
    return dq, dk, dv, dsink
'''
MODEL_CHUNK = CHUNK_HEAD + CHUNK_REST
add("val-chunk-offset-past-cache", False, {"chunk_attention": CHUNK_HEAD + '''
    if offset < 0 or offset + T > S:
        raise ValueError(f"the chunk (offset {offset}, {T} queries) runs past the cache of {S} keys")
''' + CHUNK_REST}, "validator: 'With causal=False every query sees all S keys and offset is not used' - an offset (or T > S) that only matters causally refused")
add("val-chunk-block-at-most-S", False, {"chunk_attention": CHUNK_HEAD + '''
    if not 1 <= block <= S:
        raise ValueError("block must be between 1 and the cache length")
''' + CHUNK_REST}, "validator: 'walking over the keys in tiles of at most block keys' - a block longer than the cache is allowed and refused")
add("batch-chunk-dsink-mean", False, {"chunk_attention": MODEL_CHUNK.replace(
    "dsink = -(torch.exp(sink - lse) * D).sum()", "dsink = -(torch.exp(sink - lse) * D).mean()   # average over the chunk's queries")},
    "batch-mixer: 'dsink ... the gradient of a loss with respect to sink' - the sink is shared by the queries, its gradient is their sum, not their mean")
add("batch-chunk-D-whole", False, {"chunk_attention": MODEL_CHUNK.replace(
    "D = (d_out * out).sum(-1)", "D = (d_out * out).sum().expand(T)")},
    "batch-mixer: the FlashAttention page's D_i = rowsum(dO_i * O_i) is per query; summed over every query here")
add("inc-chunk-positions-from-zero", False, {"chunk_attention": MODEL_CHUNK.replace(
    "qpos = offset + torch.arange(T).unsqueeze(1)", "qpos = torch.arange(T).unsqueeze(1)   # query i sees keys 0..i")},
    "incremental: 'the query at position p sees the keys j <= p', queries at positions offset..offset+T-1 - positions restarted at 0")
add("inc-chunk-first-tile-mask", False, {"chunk_attention": MODEL_CHUNK.replace(
    '''        if causal:
            seen = torch.arange(start, end).unsqueeze(0) <= qpos
''', '''        if causal:
            if start == 0:
                seen = torch.arange(0, end).unsqueeze(0) <= qpos     # the tile mask, built once
            seen = seen[:, : end - start]
''')}, "incremental: the mask of the first tile reused for every later tile (keys after a query's position counted)")
add("inc-chunk-last-tile-unclamped", False, {"chunk_attention": MODEL_CHUNK.replace(
    "        end = min(start + block, n)\n", "        end = start + block\n").replace(
    "seen = torch.arange(start, end)", "seen = torch.arange(start, start + kt.shape[0])").replace(
    "dv[start:end] = p.T @ d_out", "dv[start:end] = (p.T @ d_out)[: dv[start:end].shape[0]]")},
    "incremental: the last tile is a full block, reading keys offset+T.. ('No torch operation may take positions offset + T and later')")
add("sec-chunk-scale-kept", False, {"chunk_attention": MODEL_CHUNK.replace(
    "    scale = 1.0 / math.sqrt(Dh)\n", '''    if not hasattr(chunk_attention_backward, "scale"):
        chunk_attention_backward.scale = 1.0 / math.sqrt(Dh)     # worked out once
    scale = chunk_attention_backward.scale
''')}, "second-call: 'Keep nothing from one call to the next' - the first call's 1/sqrt(Dh) kept for every later head width")
add("sec-chunk-deterministic-left-on", False, {"chunk_attention": '''
torch.use_deterministic_algorithms(True)   # reproducible gradient sums
''' + MODEL_CHUNK}, "second-call: 'do not change anything inside torch ... or its process-wide settings' - deterministic algorithms switched on for the whole process")
add("ok-chunk-no-grad-keywords", True, {"chunk_attention": '''
def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    if sink.dim() != 0:
        raise ValueError("sink must be a 0-dimensional tensor")
    if block < 1:
        raise ValueError("block must be at least 1")
    dtype = q.dtype
    T, Dh = q.shape
    S = k.shape[0]
    last = min(S, offset + T) if causal else S
    with torch.no_grad():
        q, out, lse, d_out, sink = q.detach(), out.detach(), lse.detach(), d_out.detach(), sink.detach()
        delta = torch.einsum("td,td->t", d_out, out)
        dq = torch.zeros_like(q)
        dk = q.new_zeros(k.shape)
        dv = q.new_zeros(v.shape)
        positions = torch.arange(offset, offset + T)[:, None]
        neg_inf = torch.full((), float("-inf"), dtype=dtype)
        for start in range(0, last, block):
            stop = min(last, start + block)
            k_tile = k[start:stop].detach()
            v_tile = v[start:stop].detach()
            logits = torch.einsum("td,sd->ts", q, k_tile) / math.sqrt(Dh) - lse[:, None]
            if causal:
                logits = torch.where(torch.arange(start, stop)[None, :] <= positions, logits, neg_inf)
            p = logits.exp()
            dv[start:stop] = torch.einsum("ts,tv->sv", p, d_out)
            dp = torch.einsum("tv,sv->ts", d_out, v_tile)
            ds = p * (dp - delta[:, None]) / math.sqrt(Dh)
            dq = dq + ds @ k_tile
            dk[start:stop] = ds.transpose(0, 1) @ q
        p_sink = torch.exp(sink - lse)
        dsink = -(p_sink * delta).sum()
    return dq, dk, dv, dsink
'''}, "gradient-path / validator, correct: no_grad and detach (the text asks no autograd through the results), einsum, checks of what the text guarantees")

# ----------------------------------------------------------------------------------------------- Part 8
KHEAD = '''
@triton.jit
def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
'''
KBODY = '''    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = rows < N
    groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=live[:, None], other=0).to(tl.int32)
        code = tl.where(cols[None, :] % 2 == 0, byte & 15, byte >> 4)
        g = cols // GROUP
        s = tl.load(Scale + rows[:, None] * groups + g[None, :], mask=live[:, None], other=0.0)
        z = tl.load(Zero + rows[:, None] * groups + g[None, :], mask=live[:, None], other=0).to(tl.int32)
        acc += tl.sum(x[None, :] * ((code - z).to(tl.float32) * s), axis=1)
    tl.store(Y + rows, acc, mask=live)
'''
add("val-kernel-block-inside-group", False, {"split_kv_kernel": KHEAD + '''    tl.static_assert(GROUP % BLOCK_K == 0, "a block must lie inside one group")
    pid = tl.program_id(0)
    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    live = rows < N
    groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(X + cols)
        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=live[:, None], other=0).to(tl.int32)
        code = tl.where(cols[None, :] % 2 == 0, byte & 15, byte >> 4)
        g = k0 // GROUP
        s = tl.load(Scale + rows * groups + g, mask=live, other=0.0)
        z = tl.load(Zero + rows * groups + g, mask=live, other=0).to(tl.int32)
        acc += tl.sum(x[None, :] * (code - z[:, None]).to(tl.float32), axis=1) * s
    tl.store(Y + rows, acc, mask=live)
'''}, "validator: 'either may be the larger (a block can span several groups ...)' - a block larger than a group refused at compile time")
add("val-kernel-block-n-16", False, {"split_kv_kernel": KHEAD + '''    tl.static_assert(BLOCK_N >= 16, "BLOCK_N must be at least 16")
''' + KBODY}, "validator: BLOCK_N is not restricted by the text (the launcher takes any block_n) - small BLOCK_N refused")
add("batch-kernel-zero-row0", False, {"split_kv_kernel": KHEAD + KBODY.replace(
    "z = tl.load(Zero + rows[:, None] * groups + g[None, :]", "z = tl.load(Zero + rows[:, None] * 0 + g[None, :]")},
    "batch-mixer: 'zero points z_{n, k/G}' per row - row 0's zero points used for every row")
add("inc-kernel-group-of-block-start", False, {"split_kv_kernel": KHEAD + KBODY.replace(
    "        g = cols // GROUP\n", "        g = cols * 0 + k0 // GROUP          # the block's group\n")},
    "incremental: 'a block can span several groups' - the group of the block's first column used for all its columns")
add("inc-kernel-acc-reset", False, {"split_kv_kernel": KHEAD + KBODY.replace(
    "    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    for k0 in range(0, K, BLOCK_K):\n",
    "    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    for k0 in range(0, K, BLOCK_K):\n        acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n").replace(
    "        acc += tl.sum(", "        acc = acc + tl.sum(")},
    "incremental: 'walking over K in blocks of BLOCK_K columns and accumulating' - the accumulator restarted in every block (last block only)")
add("ok-kernel-checks-and-range", True, {"split_kv_kernel": KHEAD + '''    tl.static_assert(GROUP >= 2)
    tl.static_assert(BLOCK_K >= 2)
    pid = tl.program_id(axis=0)
    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < N
    half = K // 2
    n_groups = K // GROUP
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for start in tl.range(0, K, BLOCK_K):
        offs_k = start + tl.arange(0, BLOCK_K)
        xk = tl.load(X + offs_k)
        packed = tl.load(W + offs_n[:, None] * half + (offs_k // 2)[None, :], mask=mask_n[:, None], other=0)
        shift = ((offs_k % 2) * 4).to(tl.uint8)
        code = ((packed >> shift[None, :]) & 15).to(tl.float32)
        grp = offs_k // GROUP
        scale = tl.load(Scale + offs_n[:, None] * n_groups + grp[None, :], mask=mask_n[:, None], other=1.0)
        zero = tl.load(Zero + offs_n[:, None] * n_groups + grp[None, :], mask=mask_n[:, None], other=0).to(tl.float32)
        acc += tl.sum((code - zero) * scale * xk[None, :], axis=1)
    tl.store(Y + offs_n, acc, mask=mask_n)
'''}, "validator, correct: static checks of what the text guarantees, tl.range, uint8 shifts, codes - zero in float32 (exact)")
