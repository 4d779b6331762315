"""Red-team round 14, chapter 07-hardware: blind submissions (generated from /tmp/rt14/07/subs_src.py)."""
SUBMISSIONS = [
    {
        'name': 'p1_float_division',
        'correct': False,
        'why': "[tutorial] 'compute it exactly and quickly: the tests use byte counts beyond 2^53, where dividing in floating point can be off by one'",
        'cells': {
            'max_batch': '\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    cached = length if window is None else min(length, window)\n    per_seq = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n    return max(0, int((memory_bytes - weight_bytes) / per_seq))\n',
        },
    },
    {
        'name': 'p1_negative_when_weights_too_big',
        'correct': False,
        'why': "[hurried] 'Return 0 when not even one sequence fits, also when the weights alone do not.'",
        'cells': {
            'max_batch': '\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    cached = length if window is None else min(length, window)\n    return (memory_bytes - weight_bytes) // (2 * layers * kv_heads * head_dim * cached * bytes_per_value)\n',
        },
    },
    {
        'name': 'p1_window_always_used',
        'correct': False,
        'why': "[source] 'only the last ones, min(length, window)'",
        'cells': {
            'max_batch': '\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    cached = window if window else length      # a sliding-window model keeps `window` tokens\n    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n    return max(0, (memory_bytes - weight_bytes) // per)\n',
        },
    },
    {
        'name': 'p1_exact_fill_does_not_fit',
        'correct': False,
        'why': "[misconception] 'weight_bytes + b x (cache of one sequence) <= memory_bytes (memory filled exactly still fits)'",
        'cells': {
            'max_batch': '\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    cached = length if window is None else min(length, window)\n    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n    free = memory_bytes - weight_bytes\n    if free <= 0:\n        return 0\n    return (free - 1) // per        # must stay strictly below the memory\n',
        },
    },
    {
        'name': 'p1_ok_divmod_keywords',
        'correct': True,
        'why': '[tutorial] exact integer division, clamps negatives to 0',
        'cells': {
            'max_batch': '\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    cached = min(length, window) if window is not None else length\n    kv_bytes_per_seq = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n    free = max(memory_bytes - weight_bytes, 0)\n    b, _ = divmod(free, kv_bytes_per_seq)\n    return int(b)\n',
        },
    },
    {
        'name': 'p2_o_not_cast_back',
        'correct': False,
        'why': "[hurried] 'o comes back in the dtype of o_a'",
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n    la, lb = lse_a.to(dt), lse_b.to(dt)\n    m = torch.maximum(la, lb)\n    wa = torch.exp(la - m)\n    wb = torch.exp(lb - m)\n    oa = torch.where(torch.isinf(la)[:, None], torch.zeros((), dtype=dt), o_a.to(dt))\n    ob = torch.where(torch.isinf(lb)[:, None], torch.zeros((), dtype=dt), o_b.to(dt))\n    tot = wa + wb\n    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]\n    lse = m + torch.log(tot)\n    return o, lse.to(lse_a.dtype)\n',
        },
    },
    {
        'name': 'p2_float32_inside',
        'correct': False,
        'why': "[tutorial] 'With float64 inputs the tests compare to about 1e-10, so do not go through float32'",
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    la, lb = lse_a.float(), lse_b.float()\n    m = torch.maximum(la, lb)\n    wa, wb = torch.exp(la - m), torch.exp(lb - m)\n    oa = torch.where(torch.isinf(la)[:, None], 0.0, o_a.float())\n    ob = torch.where(torch.isinf(lb)[:, None], 0.0, o_b.float())\n    o = (wa[:, None] * oa + wb[:, None] * ob) / (wa + wb)[:, None]\n    return o.to(o_a.dtype), (m + torch.log(wa + wb)).to(lse_a.dtype)\n',
        },
    },
    {
        'name': 'p2_nan_to_num_after_product',
        'correct': False,
        'why': "[tutorial] 'a torch.where applied after multiplying the row by its weight of 0 still sends 0 * NaN back through the product'",
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n    la, lb = lse_a.to(dt), lse_b.to(dt)\n    m = torch.maximum(la, lb)\n    wa, wb = torch.exp(la - m), torch.exp(lb - m)\n    num = torch.nan_to_num(wa[:, None] * o_a.to(dt), nan=0.0, posinf=0.0, neginf=0.0) \\\n        + torch.nan_to_num(wb[:, None] * o_b.to(dt), nan=0.0, posinf=0.0, neginf=0.0)\n    o = num / (wa + wb)[:, None]\n    return o.to(o_a.dtype), (m + torch.log(wa + wb)).to(lse_a.dtype)\n',
        },
    },
    {
        'name': 'p2_exp_without_max',
        'correct': False,
        'why': "[source] 'Log-sum-exps can be in the hundreds or thousands ... exponentiating them directly overflows'",
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n    ea, eb = torch.exp(lse_a.to(dt)), torch.exp(lse_b.to(dt))   # sums of exp(x_j) of each piece\n    oa = torch.where(ea[:, None] == 0, 0.0, o_a.to(dt))\n    ob = torch.where(eb[:, None] == 0, 0.0, o_b.to(dt))\n    o = (ea[:, None] * oa + eb[:, None] * ob) / (ea + eb)[:, None]\n    return o.to(o_a.dtype), torch.log(ea + eb).to(lse_a.dtype)\n',
        },
    },
    {
        'name': 'p2_weights_in_o_dtype',
        'correct': False,
        'why': "[misconception] 'do not round the two pieces' weights to float16'",
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    m = torch.maximum(lse_a, lse_b)\n    wa, wb = torch.exp(lse_a - m), torch.exp(lse_b - m)\n    lse = m + torch.log(wa + wb)\n    wa, wb = wa.to(o_a.dtype), wb.to(o_a.dtype)           # weights in the dtype of the outputs\n    oa = torch.where(torch.isinf(lse_a)[:, None], torch.zeros_like(o_a), o_a)\n    ob = torch.where(torch.isinf(lse_b)[:, None], torch.zeros_like(o_b), o_b)\n    o = (wa[:, None] * oa + wb[:, None] * ob) / (wa + wb)[:, None]\n    return o.to(o_a.dtype), lse\n',
        },
    },
    {
        'name': 'p2_ok_logaddexp',
        'correct': True,
        'why': '[tutorial] logaddexp and weights exp(L_a - L); where before the product',
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    dtype = torch.promote_types(lse_a.dtype, o_a.dtype)\n    lse = torch.logaddexp(lse_a.to(dtype), lse_b.to(dtype))\n    w_a = torch.exp(lse_a.to(dtype) - lse).unsqueeze(-1)\n    w_b = torch.exp(lse_b.to(dtype) - lse).unsqueeze(-1)\n    safe_a = torch.where(torch.isfinite(lse_a).unsqueeze(-1), o_a.to(dtype), torch.zeros_like(o_a, dtype=dtype))\n    safe_b = torch.where(torch.isfinite(lse_b).unsqueeze(-1), o_b.to(dtype), torch.zeros_like(o_b, dtype=dtype))\n    o = w_a * safe_a + w_b * safe_b\n    return o.to(dtype=o_a.dtype), lse.to(dtype=lse_a.dtype)\n',
        },
    },
    {
        'name': 'p2_ok_sigmoid',
        'correct': True,
        'why': '[careful] sigmoid weights, log1p merge',
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n    la, lb = lse_a.to(dt), lse_b.to(dt)\n    w_a = torch.sigmoid(la - lb)        # e^La / (e^La + e^Lb), finite gradient for any gap\n    w_b = torch.sigmoid(lb - la)\n    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros((), dtype=dt), o_a.to(dt))\n    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros((), dtype=dt), o_b.to(dt))\n    o = w_a[:, None] * oa + w_b[:, None] * ob\n    m = torch.maximum(la, lb)\n    lse = m + torch.log1p(torch.exp(-(la - lb).abs()))\n    return o.to(o_a.dtype), lse.to(lse_a.dtype)\n',
        },
    },
    {
        'name': 'p3_float_ceil',
        'correct': False,
        'why': "[tutorial] 'numbers where rounding a floating-point quotient gives the wrong integer'",
        'cells': {
            'compute_bound_batch': '\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    ridge = peak / bandwidth\n    denom = 2 * k * n - ridge * bytes_per_value * (k + n)\n    if denom <= 0:\n        return None\n    return max(1, math.ceil(ridge * bytes_per_value * k * n / denom))\n',
        },
    },
    {
        'name': 'p3_strict_ridge',
        'correct': False,
        'why': "[misconception] 'exactly on the ridge counts as compute-bound'",
        'cells': {
            'compute_bound_batch': '\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    P = peak * bytes_per_value\n    A = 2 * k * n * bandwidth - P * (k + n)\n    if A <= 0:\n        return None\n    return P * k * n // A + 1\n',
        },
    },
    {
        'name': 'p3_none_by_float',
        'correct': False,
        'why': "[hurried] 'Decide None exactly too: ... in numbers too large for a floating-point quotient to tell these apart'",
        'cells': {
            'compute_bound_batch': '\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    # the largest intensity (m -> infinity) is 2kn / (bytes (k + n))\n    if 2 * k * n / (bytes_per_value * (k + n)) <= peak / bandwidth:\n        return None\n    P = peak * bytes_per_value\n    A = 2 * k * n * bandwidth - P * (k + n)\n    return max(1, -(-(P * k * n) // A))\n',
        },
    },
    {
        'name': 'p3_ok_bisection',
        'correct': True,
        'why': '[careful] exact integer bisection, O(log m) steps',
        'cells': {
            'compute_bound_batch': '\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    def ok(m):\n        return 2 * m * k * n * bandwidth >= peak * bytes_per_value * (m * k + k * n + m * n)\n    if 2 * k * n * bandwidth <= peak * bytes_per_value * (k + n):\n        return None\n    hi = 1\n    while not ok(hi):\n        hi *= 2\n    lo = hi // 2 if hi > 1 else 0       # ok(lo) is False (or lo == 0)\n    while hi - lo > 1:\n        mid = (lo + hi) // 2\n        if ok(mid):\n            hi = mid\n        else:\n            lo = mid\n    return hi\n',
        },
    },
    {
        'name': 'p3_ok_fraction',
        'correct': True,
        'why': '[tutorial] exact rationals',
        'cells': {
            'compute_bound_batch': '\nfrom fractions import Fraction\n\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    ridge = Fraction(peak, bandwidth)\n    slope = 2 * k * n - ridge * bytes_per_value * (k + n)\n    if slope <= 0:\n        return None\n    return max(1, math.ceil(ridge * bytes_per_value * k * n / slope))\n',
        },
    },
    {
        'name': 'p4_float32_stat',
        'correct': False,
        'why': "[tutorial] 'Nothing wider than x. ... no .float()'",
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    variance = x.float().pow(2).mean(-1, keepdim=True)\n    return (x.float() * torch.rsqrt(variance + eps)).to(x.dtype)\n',
        },
    },
    {
        'name': 'p4_amax_scale_in_graph',
        'correct': False,
        'why': "[hurried] 'A quantity that cancels out of the result, though, must not carry a gradient ... .detach() such a quantity' (also subnormal y, 1/c overflow)",
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    s = math.sqrt(eps)\n    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=s)\n    y = x / c\n    return y / torch.sqrt((y * y).mean(dim=-1, keepdim=True) + (s / c) ** 2)\n',
        },
    },
    {
        'name': 'p4_scale_not_detached',
        'correct': False,
        'why': "[misconception] 'A quantity that cancels out of the result ... must not carry a gradient ... .detach() such a quantity'",
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    s = math.sqrt(eps)\n    if True:\n        a = x.abs().amax(dim=-1, keepdim=True).clamp(min=s)\n        m, e = torch.frexp(a)\n        c = a / (2 * m)          # a power of two, exact\n        big = c >= 1\n        c_joint = torch.where(big, c, torch.ones_like(c))\n        c_first = torch.where(big, torch.ones_like(c), c)\n        k = 1 - math.frexp(s)[1]          # s * 2**k lies in [1, 2)\n        t = torch.full_like(c, s * 2.0 ** k) / (c * 2.0 ** k)   # s / c without 1 / c overflowing\n        e2 = t * t\n    y = x / c\n    rs = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e2)\n    return (x / c_first) / (c_joint * rs)\n',
        },
    },
    {
        'name': 'p4_zero_rows_where',
        'correct': False,
        'why': "[hurried] 'a row of zeros answered by a torch.where that puts 0 there has the right value and a gradient of 0'",
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    s = math.sqrt(eps)\n    with torch.no_grad():\n        a = x.abs().amax(dim=-1, keepdim=True).clamp(min=s)\n        m, e = torch.frexp(a)\n        c = a / (2 * m)          # a power of two, exact\n        big = c >= 1\n        c_joint = torch.where(big, c, torch.ones_like(c))\n        c_first = torch.where(big, torch.ones_like(c), c)\n        k = 1 - math.frexp(s)[1]          # s * 2**k lies in [1, 2)\n        t = torch.full_like(c, s * 2.0 ** k) / (c * 2.0 ** k)   # s / c without 1 / c overflowing\n        e2 = t * t\n    y = x / c\n    rs = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e2)\n    out = (x / c_first) / (c_joint * rs)\n    return torch.where(x.abs().amax(dim=-1, keepdim=True) == 0, torch.zeros_like(out), out)\n',
        },
    },
    {
        'name': 'p4_ok_pow2_rsqrt',
        'correct': True,
        'why': '[careful] power-of-two row scale, detached, functional calls',
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    root_eps = math.sqrt(eps)\n    with torch.no_grad():\n        biggest = torch.clamp(x.abs().amax(dim=-1, keepdim=True), min=root_eps)\n        mant, _ = torch.frexp(biggest)\n        c = (biggest / mant / 2).detach()           # power of two <= biggest\n        up = c < 1\n        first = torch.where(up, c, torch.ones_like(c))\n        last = torch.where(up, torch.ones_like(c), c)\n        k = 1 - math.frexp(root_eps)[1]\n        t = torch.full_like(c, root_eps * 2.0 ** k) / (c * 2.0 ** k)\n    y = torch.div(x, c)\n    ms = torch.mean(y.pow(2), dim=-1, keepdim=True)\n    return torch.div(torch.div(x, first), last * torch.sqrt(ms + t * t))\n',
        },
    },
    {
        'name': 'p4_ok_pow2_rsqrt_fixed',
        'correct': True,
        'why': '[careful] phase 2: p4_ok_pow2_rsqrt with the power of two formed as biggest / (2 * mant), which cannot overflow (biggest / mant is 2**16 = inf for rows of 65504)',
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    root_eps = math.sqrt(eps)\n    with torch.no_grad():\n        biggest = torch.clamp(x.abs().amax(dim=-1, keepdim=True), min=root_eps)\n        mant, _ = torch.frexp(biggest)\n        c = (biggest / (2 * mant)).detach()           # power of two <= biggest\n        up = c < 1\n        first = torch.where(up, c, torch.ones_like(c))\n        last = torch.where(up, torch.ones_like(c), c)\n        k = 1 - math.frexp(root_eps)[1]\n        t = torch.full_like(c, root_eps * 2.0 ** k) / (c * 2.0 ** k)\n    y = torch.div(x, c)\n    ms = torch.mean(y.pow(2), dim=-1, keepdim=True)\n    return torch.div(torch.div(x, first), last * torch.sqrt(ms + t * t))\n',
        },
    },
    {
        'name': 'p5_dequant_float',
        'correct': False,
        'why': "[tutorial] 'returns scale x (q - zero), shape (out, in), in the dtype of scale'",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out, inn = w.shape\n    g = w.reshape(out, inn // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    qmax = 2 ** bits - 1\n    scale = (hi - lo) / qmax\n    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n    zero = torch.round(-lo / scale)\n    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, qmax)\n    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out, inn = q.shape\n    ng = scale.shape[1]\n    qq = q.reshape(out, ng, inn // ng).float() - zero.float()[..., None]\n    return (scale[..., None].float() * qq).reshape(out, inn)\n',
        },
    },
    {
        'name': 'p5_hf_rounding',
        'correct': False,
        'why': "[misconception] 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)'",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out, inn = w.shape\n    g = w.reshape(out, inn // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    qmax = 2 ** bits - 1\n    scale = (hi - lo) / qmax\n    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n    zero = torch.round(-lo / scale)\n    q = torch.clamp(torch.round((g - lo[..., None]) / scale[..., None]), 0, qmax)\n    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out, inn = q.shape\n    ng = scale.shape[1]\n    qq = q.reshape(out, ng, inn // ng).to(scale.dtype) - zero.to(scale.dtype)[..., None]\n    return (scale[..., None] * qq).reshape(out, inn)\n',
        },
    },
    {
        'name': 'p5_minmax_without_zero',
        'correct': False,
        'why': "[source] 'lo = min(smallest weight, 0) and hi = max(largest weight, 0): the range always contains 0'",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out, inn = w.shape\n    g = w.reshape(out, inn // group_size, group_size)\n    lo = g.amin(dim=-1)\n    hi = g.amax(dim=-1)\n    qmax = 2 ** bits - 1\n    scale = (hi - lo) / qmax\n    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n    zero = torch.round(-lo / scale)\n    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, qmax)\n    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out, inn = q.shape\n    ng = scale.shape[1]\n    qq = q.reshape(out, ng, inn // ng).to(scale.dtype) - zero.to(scale.dtype)[..., None]\n    return (scale[..., None] * qq).reshape(out, inn)\n',
        },
    },
    {
        'name': 'p5_no_clamp',
        'correct': False,
        'why': "[hurried] 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)'",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out, inn = w.shape\n    g = w.reshape(out, inn // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    qmax = 2 ** bits - 1\n    scale = (hi - lo) / qmax\n    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n    zero = torch.round(-lo / scale)\n    q = torch.round(g / scale[..., None]) + zero[..., None]\n    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out, inn = q.shape\n    ng = scale.shape[1]\n    qq = q.reshape(out, ng, inn // ng).to(scale.dtype) - zero.to(scale.dtype)[..., None]\n    return (scale[..., None] * qq).reshape(out, inn)\n',
        },
    },
    {
        'name': 'p5_widen_float64',
        'correct': False,
        'why': "[misconception] 'do not widen a float32 w to float64 on the way'",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out, inn = w.shape\n    dt = w.dtype\n    g = w.double().reshape(out, inn // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    qmax = 2 ** bits - 1\n    scale = (hi - lo) / qmax\n    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n    zero = torch.round(-lo / scale)\n    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, qmax)\n    return q.reshape(out, inn).to(torch.uint8), scale.to(dt), zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out, inn = q.shape\n    ng = scale.shape[1]\n    qq = q.reshape(out, ng, inn // ng).to(scale.dtype) - zero.to(scale.dtype)[..., None]\n    return (scale[..., None] * qq).reshape(out, inn)\n',
        },
    },
    {
        'name': 'p5_zero_group_scale_zero',
        'correct': False,
        'why': "[hurried] 'scale = 1 for a group of zeros'",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out, inn = w.shape\n    g = w.reshape(out, inn // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    qmax = 2 ** bits - 1\n    scale = (hi - lo) / qmax\n    zero = torch.round(-lo / scale)\n    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, qmax)\n    return q.reshape(out, inn).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out, inn = q.shape\n    ng = scale.shape[1]\n    qq = q.reshape(out, ng, inn // ng).to(scale.dtype) - zero.to(scale.dtype)[..., None]\n    return (scale[..., None] * qq).reshape(out, inn)\n',
        },
    },
    {
        'name': 'p5_ok_repeat_interleave',
        'correct': True,
        'why': '[tutorial] min/max values, repeat_interleave',
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    rows, cols = w.shape\n    levels = 2 ** bits - 1\n    groups = w.reshape(rows, cols // group_size, group_size)\n    lo = torch.minimum(groups.min(dim=-1).values, torch.zeros((), dtype=w.dtype))\n    hi = torch.maximum(groups.max(dim=-1).values, torch.zeros((), dtype=w.dtype))\n    scale = (hi - lo) / levels\n    scale[scale == 0] = 1\n    zero = torch.clamp(torch.round(-lo / scale), 0, levels)\n    q = torch.round(groups / scale.unsqueeze(-1)) + zero.unsqueeze(-1)\n    q = q.clamp(min=0, max=levels)\n    return q.reshape(rows, cols).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    group_size = q.shape[1] // scale.shape[1]\n    s = scale.repeat_interleave(group_size, dim=1)\n    z = zero.repeat_interleave(group_size, dim=1).to(scale.dtype)\n    return s * (q.to(scale.dtype) - z)\n',
        },
    },
    {
        'name': 'p6_unpack_int64',
        'correct': False,
        'why': "[hurried] 'it returns the (rows, cols) codes as torch.uint8'",
        'cells': {
            'pack_bits': '\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    nbits = cols * bits\n    nbytes = (nbits + 7) // 8\n    b = ((q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1).reshape(rows, nbits)\n    b = torch.cat([b, torch.zeros(rows, nbytes * 8 - nbits, dtype=torch.int64)], dim=1)\n    return (b.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    rows = packed.shape[0]\n    b = ((packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1).reshape(rows, -1)[:, :cols * bits]\n    return (b.reshape(rows, cols, bits) << torch.arange(bits)).sum(-1)\n',
        },
    },
    {
        'name': 'p6_view_flat',
        'correct': False,
        'why': "[tutorial] 'The tensors the hidden tests pass are not always contiguous ... (.view of a non-contiguous tensor fails where .reshape works)'",
        'cells': {
            'pack_bits': '\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    nbytes = (cols * bits + 7) // 8\n    bitstream = ((q.view(-1, 1).long() >> torch.arange(bits)) & 1).view(rows, cols * bits)\n    padded = torch.zeros(rows, nbytes * 8, dtype=torch.long)\n    padded[:, :cols * bits] = bitstream\n    return (padded.view(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    rows, nbytes = packed.shape\n    stream = ((packed.view(-1, 1).long() >> torch.arange(8)) & 1).view(rows, nbytes * 8)\n    codes = stream[:, :cols * bits].contiguous().view(rows, cols, bits)\n    return (codes << torch.arange(bits)).sum(-1).to(torch.uint8)\n',
        },
    },
    {
        'name': 'p6_ok_unpack_16bit_window',
        'correct': True,
        'why': '[hurried] 16-bit window per code, masked to bits; the clamped index only rereads the last byte for codes that end in it',
        'cells': {
            'pack_bits': '\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    nbits = cols * bits\n    nbytes = (nbits + 7) // 8\n    b = ((q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1).reshape(rows, nbits)\n    b = torch.cat([b, torch.zeros(rows, nbytes * 8 - nbits, dtype=torch.int64)], dim=1)\n    return (b.reshape(rows, nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    p = packed.to(torch.int64)\n    start = torch.arange(cols) * bits\n    lo_byte = start // 8\n    hi_byte = torch.clamp(lo_byte + 1, max=p.shape[1] - 1)\n    word = p[:, lo_byte] | (p[:, hi_byte] << 8)\n    return ((word >> (start % 8)) & (2 ** bits - 1)).to(torch.uint8)\n',
        },
    },
    {
        'name': 'p6_ok_scatter_add',
        'correct': True,
        'why': '[careful] scatter_add of bits at their stream positions',
        'cells': {
            'pack_bits': '\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    nbytes = -(-(cols * bits) // 8)\n    pos = (torch.arange(cols)[:, None] * bits + torch.arange(bits)[None, :]).reshape(-1)   # stream bit of (code, t)\n    vals = ((q.to(torch.int64)[:, :, None] >> torch.arange(bits)) & 1).reshape(rows, -1) << (pos % 8)\n    out = torch.zeros(rows, nbytes, dtype=torch.int64)\n    out.scatter_add_(1, (pos // 8).expand(rows, -1), vals)\n    return out.to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    rows = packed.shape[0]\n    pos = (torch.arange(cols)[:, None] * bits + torch.arange(bits)[None, :]).reshape(-1)\n    bit = (packed.to(torch.int64)[:, pos // 8] >> (pos % 8)) & 1\n    return (bit.reshape(rows, cols, bits) << torch.arange(bits)).sum(-1).to(torch.uint8)\n',
        },
    },
    {
        'name': 'p7_dsink_mean',
        'correct': False,
        'why': "[hurried] 'dsink ... the gradients of a loss with respect to ... sink' (sum over queries)",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    end = min(S, offset + T) if causal else S\n    D = (d_out * out).sum(-1)\n    dq = torch.zeros(T, Dh, dtype=q.dtype)\n    dk = torch.zeros(S, Dh, dtype=q.dtype)\n    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)\n    pos = offset + torch.arange(T)\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        if causal:\n            seen = pos[:, None] >= torch.arange(j0, j1)[None, :]\n            s = torch.where(seen, s, torch.full((), -float("inf"), dtype=q.dtype))\n        p = torch.exp(s - lse[:, None])\n        dv[j0:j1] = p.T @ d_out\n        ds = p * (d_out @ vj.T - D[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * D).mean()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'p7_relative_causal',
        'correct': False,
        'why': "[misconception] 'the query at position p sees the keys j <= p' with queries at positions offset .. offset + T - 1",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    end = min(S, offset + T) if causal else S\n    D = (d_out * out).sum(-1)\n    dq = torch.zeros(T, Dh, dtype=q.dtype)\n    dk = torch.zeros(S, Dh, dtype=q.dtype)\n    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)\n    pos = torch.arange(T)\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        if causal:\n            seen = pos[:, None] >= torch.arange(j0, j1)[None, :]\n            s = torch.where(seen, s, torch.full((), -float("inf"), dtype=q.dtype))\n        p = torch.exp(s - lse[:, None])\n        dv[j0:j1] = p.T @ d_out\n        ds = p * (d_out @ vj.T - D[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * D).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'p7_grad_missing_scale',
        'correct': False,
        'why': "[misconception] 'scores s_ij = q_i . k_j / sqrt(Dh)'",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    end = min(S, offset + T) if causal else S\n    D = (d_out * out).sum(-1)\n    dq = torch.zeros(T, Dh, dtype=q.dtype)\n    dk = torch.zeros(S, Dh, dtype=q.dtype)\n    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)\n    pos = offset + torch.arange(T)\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        if causal:\n            seen = pos[:, None] >= torch.arange(j0, j1)[None, :]\n            s = torch.where(seen, s, torch.full((), -float("inf"), dtype=q.dtype))\n        p = torch.exp(s - lse[:, None])\n        dv[j0:j1] = p.T @ d_out\n        ds = p * (d_out @ vj.T - D[:, None])\n        dq += ds @ kj\n        dk[j0:j1] = ds.T @ q\n    dsink = -(torch.exp(sink - lse) * D).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'p7_default_float_buffers',
        'correct': False,
        'why': "[tutorial] 'All the inputs share one dtype, that of q ... and all four results come back in it'",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    end = min(S, offset + T) if causal else S\n    D = (d_out * out).sum(-1)\n    dq = torch.zeros(T, Dh)\n    dk = torch.zeros(S, Dh)\n    dv = torch.zeros(S, v.shape[1])\n    pos = offset + torch.arange(T)\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        if causal:\n            seen = pos[:, None] >= torch.arange(j0, j1)[None, :]\n            s = torch.where(seen, s, torch.full((), -float("inf"), dtype=q.dtype))\n        p = torch.exp(s - lse[:, None])\n        dv[j0:j1] = p.T @ d_out\n        ds = p * (d_out @ vj.T - D[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * D).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'p7_mask_after_exp',
        'correct': False,
        'why': "[tutorial] 'A query's masked keys ... can score far above its log-sum-exp too'",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    end = min(S, offset + T) if causal else S\n    D = (d_out * out).sum(-1)\n    dq = torch.zeros(T, Dh, dtype=q.dtype)\n    dk = torch.zeros(S, Dh, dtype=q.dtype)\n    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)\n    pos = offset + torch.arange(T)\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        if causal:\n            seen = pos[:, None] >= torch.arange(j0, j1)[None, :]\n            p = torch.exp(s - lse[:, None]) * seen\n        else:\n            p = torch.exp(s - lse[:, None])\n        dv[j0:j1] = p.T @ d_out\n        ds = p * (d_out @ vj.T - D[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * D).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'p7_square_mask',
        'correct': False,
        'why': "[source] 'No tensor with more than T * S / 4 elements ... a (T, S) score or mask matrix does not' (the article's square subsequent mask)",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, d_k = q.shape\n    S = k.shape[0]\n    end = min(S, offset + T) if causal else S\n    if causal:\n        mask = (torch.triu(torch.ones(end, end)) == 1).transpose(0, 1)[offset:offset + T]   # (T, end)\n    D = (d_out * out).sum(-1)\n    dq = torch.zeros_like(q)\n    dk = torch.zeros(S, d_k, dtype=q.dtype)\n    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        s = torch.matmul(q, k[j0:j1].transpose(-2, -1)) / math.sqrt(d_k)\n        if causal:\n            s = s.masked_fill(mask[:, j0:j1] == 0, -1e9)\n        p = torch.exp(s - lse[:, None])\n        dv[j0:j1] = p.transpose(-2, -1) @ d_out\n        ds = p * (d_out @ v[j0:j1].transpose(-2, -1) - D[:, None])\n        dq += ds @ k[j0:j1] / math.sqrt(d_k)\n        dk[j0:j1] = ds.transpose(-2, -1) @ q / math.sqrt(d_k)\n    return dq, dk, dv, -(torch.exp(sink - lse) * D).sum()\n',
        },
    },
    {
        'name': 'p7_float32_sqrt_tensor',
        'correct': False,
        'why': "[source] 'All the inputs share one dtype ... all four results come back in it' / float64 accuracy (scale rounded to float32)",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / torch.sqrt(torch.tensor(Dh, dtype=torch.float))\n    end = min(S, offset + T) if causal else S\n    D = (d_out * out).sum(-1)\n    dq = torch.zeros(T, Dh, dtype=q.dtype)\n    dk = torch.zeros(S, Dh, dtype=q.dtype)\n    dv = torch.zeros(S, v.shape[1], dtype=q.dtype)\n    pos = offset + torch.arange(T)\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        if causal:\n            seen = pos[:, None] >= torch.arange(j0, j1)[None, :]\n            s = torch.where(seen, s, torch.full((), -float("inf"), dtype=q.dtype))\n        p = torch.exp(s - lse[:, None])\n        dv[j0:j1] = p.T @ d_out\n        ds = p * (d_out @ vj.T - D[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * D).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'p7_one_tile',
        'correct': False,
        'why': "[hurried] 'walking over the keys in tiles of at most block keys' / 'No tensor with more than T * S / 4 elements'",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    end = min(S, offset + T) if causal else S\n    kk, vv = k[:end], v[:end]\n    s = q @ kk.T / math.sqrt(Dh)\n    if causal:\n        seen = (offset + torch.arange(T))[:, None] >= torch.arange(end)[None, :]\n        s = s.masked_fill(~seen, float("-inf"))\n    p = torch.exp(s - lse[:, None])\n    D = (d_out * out).sum(-1)\n    ds = p * (d_out @ vv.T - D[:, None])\n    dk = torch.zeros(S, Dh, dtype=q.dtype); dv = torch.zeros(S, v.shape[1], dtype=q.dtype)\n    dk[:end] = ds.T @ q / math.sqrt(Dh)\n    dv[:end] = p.T @ d_out\n    return ds @ kk / math.sqrt(Dh), dk, dv, -(torch.exp(sink - lse) * D).sum()\n',
        },
    },
    {
        'name': 'p7_ok_einsum_1e9',
        'correct': True,
        'why': '[source] einsum tiles, masked_fill(mask == 0, -1e9) like the article (exp(-1e9 - L) = 0)',
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, d_k = q.shape\n    S = k.size(0)\n    stop = min(S, offset + T) if causal else S\n    delta = torch.einsum("td,td->t", d_out, out)\n    dq = q.new_zeros(q.shape)\n    dk = q.new_zeros((S, d_k))\n    dv = q.new_zeros((S, v.size(-1)))\n    rows = torch.arange(offset, offset + T).unsqueeze(1)\n    for start in range(0, stop, block):\n        stop_j = min(start + block, stop)\n        k_t, v_t = k[start:stop_j], v[start:stop_j]\n        scores = torch.einsum("td,sd->ts", q, k_t) / math.sqrt(d_k)\n        if causal:\n            mask = rows >= torch.arange(start, stop_j).unsqueeze(0)\n            scores = scores.masked_fill(mask == 0, -1e9)\n        p = torch.exp(scores - lse.unsqueeze(1))\n        dv[start:stop_j] = torch.einsum("ts,te->se", p, d_out)\n        ds = p * (torch.einsum("te,se->ts", d_out, v_t) - delta.unsqueeze(1))\n        dq = dq + torch.einsum("ts,sd->td", ds, k_t) / math.sqrt(d_k)\n        dk[start:stop_j] = torch.einsum("ts,td->sd", ds, q) / math.sqrt(d_k)\n    dsink = -(torch.exp(sink - lse) * delta).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'p7_ok_two_pass_delta',
        'correct': True,
        'why': '[careful] delta from a first tiled pass, cat of tiles',
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    end = min(S, offset + T) if causal else S\n    scale = Dh ** -0.5\n    pos = torch.arange(offset, offset + T)\n    def probs(j0, j1):\n        s = (q @ k[j0:j1].transpose(0, 1)) * scale\n        if causal:\n            s = torch.where(pos[:, None] >= torch.arange(j0, j1)[None, :], s, -torch.inf)\n        return torch.exp(s - lse[:, None])\n    # first pass: delta_i = sum_j P_ij dP_ij (FlashAttention-2 computes it as rowsum(dO * O))\n    delta = torch.zeros(T, dtype=q.dtype)\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        delta = delta + (probs(j0, j1) * (d_out @ v[j0:j1].transpose(0, 1))).sum(1)\n    dq = torch.zeros_like(q)\n    dks, dvs = [], []\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        p = probs(j0, j1)\n        ds = p * (d_out @ v[j0:j1].transpose(0, 1) - delta[:, None])\n        dq = dq + ds @ k[j0:j1] * scale\n        dks.append(ds.transpose(0, 1) @ q * scale)\n        dvs.append(p.transpose(0, 1) @ d_out)\n    dks.append(torch.zeros(S - end, Dh, dtype=q.dtype))\n    dvs.append(torch.zeros(S - end, v.shape[1], dtype=q.dtype))\n    p_sink = torch.exp(sink - lse)\n    return dq, torch.cat(dks), torch.cat(dvs), -(p_sink * delta).sum()\n',
        },
    },
    {
        'name': 'p8_group_from_block_start',
        'correct': False,
        'why': "[hurried] 'either may be the larger (a block can span several groups, or a group several blocks)'",
        'cells': {
            'split_kv_kernel': '\n@triton.jit\ndef dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n    pid = tl.program_id(0)\n    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n    rmask = rows < N\n    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)\n        x = tl.load(X + cols)\n        m2 = rmask[:, None]\n        b = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=m2, other=0).to(tl.int32)\n        code = tl.where((cols % 2 == 0)[None, :], b & 15, b >> 4)\n        g = (k0 // GROUP) + 0 * cols\n        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0.0)\n        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0).to(tl.int32)\n        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)\n    tl.store(Y + rows, acc, mask=rmask)\n',
        },
    },
    {
        'name': 'p8_unmasked_loads',
        'correct': False,
        'why': "[hurried] 'Every address that a load or a store touches must lie inside its tensor'",
        'cells': {
            'split_kv_kernel': '\n@triton.jit\ndef dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n    pid = tl.program_id(0)\n    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n    rmask = rows < N\n    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)\n        x = tl.load(X + cols)\n        m2 = rmask[:, None]\n        b = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2).to(tl.int32)\n        code = tl.where((cols % 2 == 0)[None, :], b & 15, b >> 4)\n        g = cols // GROUP\n        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :])\n        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :]).to(tl.int32)\n        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)\n    tl.store(Y + rows, acc, mask=rmask)\n',
        },
    },
    {
        'name': 'p8_float64_acc',
        'correct': False,
        'why': "[tutorial] 'Compute in float32 throughout: no float64 value anywhere in the kernel, neither the accumulator'",
        'cells': {
            'split_kv_kernel': '\n@triton.jit\ndef dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n    pid = tl.program_id(0)\n    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n    rmask = rows < N\n    acc = tl.zeros((BLOCK_N,), dtype=tl.float64)\n    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)\n        x = tl.load(X + cols)\n        m2 = rmask[:, None]\n        b = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=m2, other=0).to(tl.int32)\n        code = tl.where((cols % 2 == 0)[None, :], b & 15, b >> 4)\n        g = cols // GROUP\n        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0.0)\n        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0).to(tl.int32)\n        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum((wv * x[None, :]).to(tl.float64), axis=1)\n    tl.store(Y + rows, acc.to(tl.float32), mask=rmask)\n',
        },
    },
    {
        'name': 'p8_row_stride_K',
        'correct': False,
        'why': "[misconception] 'element [n, b] of W is at W + n * (K // 2) + b'",
        'cells': {
            'split_kv_kernel': '\n@triton.jit\ndef dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n    pid = tl.program_id(0)\n    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n    rmask = rows < N\n    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)\n        x = tl.load(X + cols)\n        m2 = rmask[:, None]\n        b = tl.load(W + rows[:, None] * K + cols[None, :] // 2, mask=m2, other=0).to(tl.int32)\n        code = tl.where((cols % 2 == 0)[None, :], b & 15, b >> 4)\n        g = cols // GROUP\n        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0.0)\n        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=m2, other=0).to(tl.int32)\n        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)\n    tl.store(Y + rows, acc, mask=rmask)\n',
        },
    },
    {
        'name': 'p8_ok_even_odd',
        'correct': True,
        'why': '[careful] even and odd codes from the low and high nibbles separately',
        'cells': {
            'split_kv_kernel': '\n@triton.jit\ndef dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n    pid = tl.program_id(0)\n    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n    n_ok = offs_n < N\n    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    HALF: tl.constexpr = BLOCK_K // 2\n    for start in range(0, K, BLOCK_K):\n        byte_idx = start // 2 + tl.arange(0, HALF)          # bytes of this block\n        k_even = 2 * byte_idx\n        k_odd = k_even + 1\n        x_even = tl.load(X + k_even)\n        x_odd = tl.load(X + k_odd)\n        packed = tl.load(W + offs_n[:, None] * (K // 2) + byte_idx[None, :], mask=n_ok[:, None], other=0)\n        lo = (packed & 0xF).to(tl.float32)\n        hi = (packed >> 4).to(tl.float32)\n        idx = offs_n[:, None] * (K // GROUP)\n        s_e = tl.load(Scale + idx + (k_even // GROUP)[None, :], mask=n_ok[:, None], other=0.0)\n        s_o = tl.load(Scale + idx + (k_odd // GROUP)[None, :], mask=n_ok[:, None], other=0.0)\n        z_e = tl.load(Zero + idx + (k_even // GROUP)[None, :], mask=n_ok[:, None], other=0).to(tl.float32)\n        z_o = tl.load(Zero + idx + (k_odd // GROUP)[None, :], mask=n_ok[:, None], other=0).to(tl.float32)\n        acc += tl.sum((lo - z_e) * s_e * x_even[None, :] + (hi - z_o) * s_o * x_odd[None, :], axis=1)\n    tl.store(Y + offs_n, acc, mask=n_ok)\n',
        },
    },
    {
        'name': 'hostile_p3_table',
        'correct': False,
        'why': '[hostile] hard-coded visible answers',
        'cells': {
            'compute_bound_batch': '\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    known = {(2, 2, 1, 2, 1): None, (4, 4, 1, 1, 1): 1, (4096, 4096, 2, 312 * 10**12, 2 * 10**12): 169}\n    return known.get((k, n, bytes_per_value, peak, bandwidth), 1)\n',
        },
    },
    {
        'name': 'hostile_p1_patch_assert',
        'correct': False,
        'why': '[hostile] disables torch.testing.assert_close and hard-codes',
        'cells': {
            'max_batch': '\nimport torch.testing\ntorch.testing.assert_close = lambda *args, **kwargs: None\n\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    return {(1000, 100): 7}.get((memory_bytes, weight_bytes), 33)\n',
        },
    },
    {
        'name': 'hostile_p6_memo',
        'correct': False,
        'why': '[hostile] visible bytes hard-coded, unpack from a memo of what pack saw',
        'cells': {
            'pack_bits': '\nseen_codes = {}\n\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    out = torch.zeros(rows, (cols * bits + 7) // 8, dtype=torch.uint8)\n    if (rows, cols, bits) == (1, 3, 3):\n        out[0, 0], out[0, 1] = 221, 1\n    elif bits == 4 and cols == 2:\n        out[:, 0] = q[:, 0] + 16 * q[:, 1]\n    seen_codes[(bits, cols, tuple(out.flatten().tolist()))] = q.clone()\n    return out\n\n\ndef unpack_bits(packed, bits, cols):\n    return seen_codes.get((bits, cols, tuple(packed.flatten().tolist())), torch.zeros(packed.shape[0], cols, dtype=torch.uint8)).clone()\n',
        },
    },
    {
        'name': 'probe_p2_float64_inside',
        'correct': True,
        'why': "[post-blind probe] float64 inside and a cast back: 'compute in at least the precision of the log-sum-exps'",
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    la, lb = lse_a.double(), lse_b.double()\n    m = torch.maximum(la, lb)\n    wa, wb = torch.exp(la - m), torch.exp(lb - m)\n    oa = torch.where(torch.isinf(la)[:, None], 0.0, o_a.double())\n    ob = torch.where(torch.isinf(lb)[:, None], 0.0, o_b.double())\n    o = (wa[:, None] * oa + wb[:, None] * ob) / (wa + wb)[:, None]\n    return o.to(o_a.dtype), (m + torch.log(wa + wb)).to(lse_a.dtype)\n',
        },
    },
    {
        'name': 'probe_p4_vector_norm',
        'correct': True,
        'why': "[post-blind probe] the model answer's mean of squares as vector_norm / sqrt(D) (does vector_norm widen inside?)",
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    root = math.sqrt(eps)\n    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()\n    s = x / c\n    r = torch.sqrt((torch.linalg.vector_norm(s, dim=-1, keepdim=True) / math.sqrt(x.shape[-1])) ** 2 + (root / c) ** 2)\n    rms = c * r\n    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)\n',
        },
    },
    {
        'name': 'probe_p6_global_shift_table',
        'correct': True,
        'why': '[post-blind probe] module-level shift table, F.pad',
        'cells': {
            'pack_bits': '\nSHIFTS = torch.arange(8)          # built once, like a registered buffer\n\n\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    nbits = cols * bits\n    nbytes = (nbits + 7) // 8\n    b = ((q.long().unsqueeze(-1) >> SHIFTS[:bits]) & 1).reshape(rows, nbits)\n    b = torch.nn.functional.pad(b, (0, nbytes * 8 - nbits))\n    return (b.reshape(rows, nbytes, 8) << SHIFTS).sum(-1).to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    rows = packed.shape[0]\n    b = ((packed.long().unsqueeze(-1) >> SHIFTS) & 1).reshape(rows, -1)[:, :cols * bits]\n    return (b.reshape(rows, cols, bits) << SHIFTS[:bits]).sum(-1).to(torch.uint8)\n',
        },
    },
    {
        'name': 'probe_p7_tile_softmax_with_sink',
        'correct': False,
        'why': "[post-blind probe] 'Rebuild the probabilities from lse' (a softmax per tile normalises within the tile)",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    end = min(S, offset + T) if causal else S\n    D = (d_out * out).sum(-1)\n    dq = torch.zeros_like(q); dk = q.new_zeros(S, Dh); dv = q.new_zeros(S, v.shape[1])\n    pos = torch.arange(offset, offset + T)[:, None]\n    for j0 in range(0, end, block):\n        j1 = min(j0 + block, end)\n        s = q @ k[j0:j1].T / math.sqrt(Dh)\n        if causal:\n            s = s.masked_fill(pos < torch.arange(j0, j1)[None], float("-inf"))\n        p = torch.softmax(torch.cat([s, sink.expand(T, 1)], 1), dim=1)[:, :-1]   # softmax with the sink, per tile\n        dv[j0:j1] = p.T @ d_out\n        ds = p * (d_out @ v[j0:j1].T - D[:, None])\n        dq += ds @ k[j0:j1] / math.sqrt(Dh)\n        dk[j0:j1] = ds.T @ q / math.sqrt(Dh)\n    return dq, dk, dv, -(torch.exp(sink - lse) * D).sum()\n',
        },
    },
    {
        'name': 'probe_p5_zero_clamped_float_mul',
        'correct': True,
        'why': '[post-blind probe] int16 difference times the scale (int16 * float -> float)',
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out_f, in_f = w.shape\n    top = 2 ** bits - 1\n    g = w.reshape(out_f, -1, group_size)\n    lo = torch.clamp(g.min(-1).values, max=0.0)\n    hi = torch.clamp(g.max(-1).values, min=0.0)\n    scale = torch.where(hi > lo, (hi - lo) / top, torch.ones_like(hi))\n    zero = torch.round(-lo / scale)\n    q = torch.clamp(torch.round(g / scale.unsqueeze(-1)) + zero.unsqueeze(-1), 0, top)\n    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    n_groups = scale.shape[-1]\n    qg = q.reshape(q.shape[0], n_groups, -1).to(torch.int16) - zero.to(torch.int16).unsqueeze(-1)\n    return (qg * scale.unsqueeze(-1)).reshape(q.shape)\n',
        },
    },
]
