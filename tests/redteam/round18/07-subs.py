SUBMISSIONS = [{'name': 'T-p1-float-zero',
  'correct': False,
  'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n'
                         '    cached = length if window is None else min(length, window)\n'
                         '    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    free = memory_bytes - weight_bytes\n'
                         '    return max(0.0, free // per)\n'},
  'why': "type-sloppy: max(0.0, free // per) returns the float 0.0 when no sequence fits; text: 'Return a Python int' / 'Return 0 when not even one "
         "sequence fits'",
  'kind': 'T'},
 {'name': 'T-p1-tensor-result',
  'correct': False,
  'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n'
                         '    cached = length if window is None else min(length, window)\n'
                         '    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    free = memory_bytes - weight_bytes\n'
                         '    if free < 0:\n'
                         '        return 0\n'
                         "    return torch.div(torch.tensor(free), per, rounding_mode='floor')\n"},
  'why': "type-sloppy: returns a 0-d int64 tensor (== 7 passes visibly); text: 'Return a Python int'",
  'kind': 'T'},
 {'name': 'T-p1-true-division',
  'correct': False,
  'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n'
                         '    cached = length if window is None else min(length, window)\n'
                         '    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    free = memory_bytes - weight_bytes\n'
                         '    if free < 0:\n'
                         '        return 0\n'
                         '    return int(free / per)\n'},
  'why': "type-sloppy: / where // is meant, then int(); text: 'compute it exactly ... beyond 2**53, where dividing in floating point can be off by "
         "one'",
  'kind': 'T'},
 {'name': 'C-p1-lru-cache',
  'correct': True,
  'cells': {'max_batch': 'import functools\n'
                         '\n'
                         '@functools.lru_cache(maxsize=None)\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n'
                         '    cached = length if window is None else min(length, window)\n'
                         '    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    free = memory_bytes - weight_bytes\n'
                         '    if free < 0:\n'
                         '        return 0\n'
                         '    return free // per\n'},
  'why': 'stateful but pure: lru_cache on int arguments changes no result',
  'kind': 'S'},
 {'name': 'C-p1-divmod-keywords',
  'correct': True,
  'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n'
                         '    cached = min(length, window) if window is not None else length\n'
                         '    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    if weight_bytes > memory_bytes:\n'
                         '        return 0\n'
                         '    b, _rest = divmod(memory_bytes - weight_bytes, per_sequence)\n'
                         '    return int(b)\n'},
  'why': 'type-careful: divmod on Python ints, int() of an int',
  'kind': 'T'},
 {'name': 'T-p2-list-result',
  'correct': False,
  'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    acc = torch.promote_types(o_a.dtype, lse_a.dtype)\n'
                              '    la, lb = lse_a.to(acc), lse_b.to(acc)\n'
                              '    m = torch.maximum(la, lb)\n'
                              '    wa = torch.exp(la - m)\n'
                              '    wb = torch.exp(lb - m)\n'
                              '    tot = wa + wb\n'
                              '    lse = m + torch.log(tot)\n'
                              '    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros((), dtype=acc), o_a.to(acc))\n'
                              '    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros((), dtype=acc), o_b.to(acc))\n'
                              '    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]\n'
                              '    return [o.to(o_a.dtype), lse.to(lse_a.dtype)]\n'},
  'why': "type-sloppy: returns a list; text: 'returns (o, lse)' and intro 'tuples of them'",
  'kind': 'T'},
 {'name': 'D-p2-o-in-lse-dtype',
  'correct': False,
  'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    acc = torch.promote_types(o_a.dtype, lse_a.dtype)\n'
                              '    la, lb = lse_a.to(acc), lse_b.to(acc)\n'
                              '    m = torch.maximum(la, lb)\n'
                              '    wa = torch.exp(la - m)\n'
                              '    wb = torch.exp(lb - m)\n'
                              '    tot = wa + wb\n'
                              '    lse = m + torch.log(tot)\n'
                              '    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros((), dtype=acc), o_a.to(acc))\n'
                              '    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros((), dtype=acc), o_b.to(acc))\n'
                              '    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]\n'
                              '    return o, lse\n'},
  'why': "dtype generaliser: o left in the float32 accumulation dtype for float16 pieces; text: 'o comes back in the dtype of o_a'",
  'kind': 'D'},
 {'name': 'D-p2-compute-in-o-dtype',
  'correct': False,
  'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    acc = o_a.dtype\n'
                              '    la, lb = lse_a.to(acc), lse_b.to(acc)\n'
                              '    m = torch.maximum(la, lb)\n'
                              '    wa = torch.exp(la - m)\n'
                              '    wb = torch.exp(lb - m)\n'
                              '    tot = wa + wb\n'
                              '    lse = m + torch.log(tot)\n'
                              '    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros((), dtype=acc), o_a.to(acc))\n'
                              '    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros((), dtype=acc), o_b.to(acc))\n'
                              '    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]\n'
                              '    return o.to(o_a.dtype), lse.to(lse_a.dtype)\n'},
  'why': "dtype generaliser: computes in o_a's dtype (float16 lse weights); text: 'compute in at least the precision of the log-sum-exps ... do not "
         "round the two pieces' weights to float16'",
  'kind': 'D'},
 {'name': 'A-p2-inplace-input',
  'correct': False,
  'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    acc = torch.promote_types(o_a.dtype, lse_a.dtype)\n'
                              '    la, lb = lse_a.to(acc), lse_b.to(acc)\n'
                              '    m = torch.maximum(la, lb)\n'
                              '    wa = torch.exp(la - m)\n'
                              '    wb = torch.exp(lb - m)\n'
                              '    tot = wa + wb\n'
                              '    lse = m + torch.log(tot)\n'
                              '    with torch.no_grad():\n'
                              '        o_a[torch.isneginf(lse_a)] = 0\n'
                              '        o_b[torch.isneginf(lse_b)] = 0\n'
                              '    oa, ob = o_a.to(acc), o_b.to(acc)\n'
                              '    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]\n'
                              '    return o.to(o_a.dtype), lse.to(lse_a.dtype)\n'},
  'why': "autograd-careless: zeroes the NaN rows of the caller's o_a/o_b in place; intro: 'Your functions must not change the tensors they are "
         "given'",
  'kind': 'A'},
 {'name': 'A-p2-no-grad-weights',
  'correct': False,
  'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    acc = torch.promote_types(o_a.dtype, lse_a.dtype)\n'
                              '    la, lb = lse_a.to(acc), lse_b.to(acc)\n'
                              '    with torch.no_grad():\n'
                              '        m = torch.maximum(la, lb)\n'
                              '        wa = torch.exp(la - m)\n'
                              '        wb = torch.exp(lb - m)\n'
                              '    tot = wa + wb\n'
                              '    lse = m + torch.log(tot)\n'
                              '    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros((), dtype=acc), o_a.to(acc))\n'
                              '    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros((), dtype=acc), o_b.to(acc))\n'
                              '    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]\n'
                              '    return o.to(o_a.dtype), lse.to(lse_a.dtype)\n'},
  'why': "autograd-careless: weights under no_grad; text: 'Compute the weights with tracked torch operations (no .detach(), torch.no_grad()...)'",
  'kind': 'A'},
 {'name': 'S-p2-output-buffer',
  'correct': False,
  'cells': {'merge_partials': 'OUT_BUFFERS = {}\n'
                              '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    acc = torch.promote_types(o_a.dtype, lse_a.dtype)\n'
                              '    la, lb = lse_a.to(acc), lse_b.to(acc)\n'
                              '    m = torch.maximum(la, lb)\n'
                              '    wa = torch.exp(la - m)\n'
                              '    wb = torch.exp(lb - m)\n'
                              '    tot = wa + wb\n'
                              '    lse = m + torch.log(tot)\n'
                              '    oa = torch.where(torch.isneginf(la)[:, None], torch.zeros((), dtype=acc), o_a.to(acc))\n'
                              '    ob = torch.where(torch.isneginf(lb)[:, None], torch.zeros((), dtype=acc), o_b.to(acc))\n'
                              '    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]\n'
                              '    key = (tuple(o.shape), o_a.dtype, lse_a.dtype)\n'
                              '    if key not in OUT_BUFFERS or o.requires_grad or lse.requires_grad:\n'
                              '        if o.requires_grad or lse.requires_grad:\n'
                              '            return o.to(o_a.dtype), lse.to(lse_a.dtype)\n'
                              '        OUT_BUFFERS[key] = (torch.empty(o.shape, dtype=o_a.dtype), torch.empty(lse.shape, dtype=lse_a.dtype))\n'
                              '    bo, bl = OUT_BUFFERS[key]\n'
                              '    bo.copy_(o)\n'
                              '    bl.copy_(lse)\n'
                              '    return bo, bl\n'},
  'why': "stateful: reuses an output buffer keyed on shape when no gradient is needed; intro: 'return new tensors on every call ... (no buffer "
         "reused)'",
  'kind': 'S'},
 {'name': 'C-p2-logaddexp',
  'correct': True,
  'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    acc = torch.promote_types(o_a.dtype, lse_a.dtype)\n'
                              '    la, lb = lse_a.to(dtype=acc), lse_b.to(dtype=acc)\n'
                              '    lse = torch.logaddexp(la, lb)\n'
                              '    wa = torch.exp(la - lse)\n'
                              '    wb = torch.exp(lb - lse)\n'
                              '    safe_a = torch.where(torch.isfinite(la).unsqueeze(-1), o_a.to(acc), torch.zeros((), dtype=acc))\n'
                              '    safe_b = torch.where(torch.isfinite(lb).unsqueeze(-1), o_b.to(acc), torch.zeros((), dtype=acc))\n'
                              '    o = wa.unsqueeze(-1) * safe_a + wb.unsqueeze(-1) * safe_b\n'
                              '    return o.to(dtype=o_a.dtype), lse.to(dtype=lse_a.dtype)\n'},
  'why': 'tutorial idiom: torch.logaddexp and weights exp(L_a - L) (finite gradients, NaN rows zeroed before the product)',
  'kind': 'T'},
 {'name': 'C-p2-zero-cache',
  'correct': True,
  'cells': {'merge_partials': 'ZEROS = {}\n'
                              '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    acc = torch.promote_types(o_a.dtype, lse_a.dtype)\n'
                              '    la, lb = lse_a.to(acc), lse_b.to(acc)\n'
                              '    m = torch.maximum(la, lb)\n'
                              '    wa = torch.exp(la - m)\n'
                              '    wb = torch.exp(lb - m)\n'
                              '    tot = wa + wb\n'
                              '    lse = m + torch.log(tot)\n'
                              '    zero = ZEROS.setdefault(acc, torch.zeros((), dtype=acc))\n'
                              '    oa = torch.where(torch.isneginf(la)[:, None], zero, o_a.to(acc))\n'
                              '    ob = torch.where(torch.isneginf(lb)[:, None], zero, o_b.to(acc))\n'
                              '    o = (wa[:, None] * oa + wb[:, None] * ob) / tot[:, None]\n'
                              '    return o.to(o_a.dtype), lse.to(lse_a.dtype)\n'},
  'why': "stateful but harmless: a cached 0-d zero per dtype used only as torch.where's fill value (never returned)",
  'kind': 'S'},
 {'name': 'T-p3-float-none-test',
  'correct': False,
  'cells': {'compute_bound_batch': '\n'
                                   'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n'
                                   '    c = peak * bytes_per_value * k * n\n'
                                   '    if 2 * k * n * bandwidth / (peak * bytes_per_value) <= k + n:\n'
                                   '        return None\n'
                                   '    return max(1, -(-c // a))\n'},
  'why': "type-sloppy: decides None with a float quotient; text: 'Decide None exactly too ... in numbers too large for a floating-point quotient to "
         "tell these apart'",
  'kind': 'T'},
 {'name': 'T-p3-math-ceil',
  'correct': False,
  'cells': {'compute_bound_batch': '\n'
                                   'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n'
                                   '    c = peak * bytes_per_value * k * n\n'
                                   '    if a <= 0:\n'
                                   '        return None\n'
                                   '    return max(1, math.ceil(c / a))\n'},
  'why': "type-sloppy: / where // is meant; text: 'numbers where rounding a floating-point quotient gives the wrong integer'",
  'kind': 'T'},
 {'name': 'S-p3-cache-missing-key',
  'correct': False,
  'cells': {'compute_bound_batch': 'RIDGE_CACHE = {}\n'
                                   '\n'
                                   'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    key = (k, n, bytes_per_value)\n'
                                   '    if key not in RIDGE_CACHE:\n'
                                   '        a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n'
                                   '        c = peak * bytes_per_value * k * n\n'
                                   '        RIDGE_CACHE[key] = None if a <= 0 else max(1, -(-c // a))\n'
                                   '    return RIDGE_CACHE[key]\n'},
  'why': "stateful: a cache keyed on the weight's shape only, so a new device (peak, bandwidth) gets the old answer; text: 'returns the smallest m "
         "... on a device with peak and bandwidth'",
  'kind': 'S'},
 {'name': 'C-p3-fraction',
  'correct': True,
  'cells': {'compute_bound_batch': '\n'
                                   'from fractions import Fraction\n'
                                   '\n'
                                   'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    slope = Fraction(2 * k * n * bandwidth - peak * bytes_per_value * (k + n))\n'
                                   '    if slope <= 0:\n'
                                   '        return None\n'
                                   '    return max(1, math.ceil(Fraction(peak * bytes_per_value * k * n) / slope))\n'},
  'why': 'type-careful: exact Fraction and math.ceil of a Fraction (an int)',
  'kind': 'T'},
 {'name': 'C-p3-lru-cache',
  'correct': True,
  'cells': {'compute_bound_batch': 'import functools\n'
                                   '\n'
                                   '@functools.lru_cache(maxsize=128)\n'
                                   'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n'
                                   '    c = peak * bytes_per_value * k * n\n'
                                   '    if a <= 0:\n'
                                   '        return None\n'
                                   '    return max(1, -(-c // a))\n'},
  'why': 'stateful but pure: lru_cache keyed on every argument',
  'kind': 'S'},
 {'name': 'C-p4-base',
  'correct': True,
  'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    a = x.detach().abs().amax(dim=-1, keepdim=True)\n'
                             '    c = (a * (1 / math.sqrt(D))).clamp(min=math.sqrt(eps))\n'
                             '    y = x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)\n'
                             '    return y / s\n'},
  'why': 'my own answer: row scale c = max(amax/sqrt(D), sqrt(eps)) detached, e = (sqrt(eps)/c)^2 computed as (1/(c/sqrt(eps)))^2',
  'kind': 'C'},
 {'name': 'A-p4-scale-not-detached',
  'correct': False,
  'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    a = x.abs().amax(dim=-1, keepdim=True)\n'
                             '    c = (a * (1 / math.sqrt(D))).clamp(min=math.sqrt(eps))\n'
                             '    y = x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)\n'
                             '    return y / s\n'},
  'why': "autograd-careless: the cancelling row scale carries a gradient; text: 'A quantity that cancels out of the result, though, must not carry a "
         "gradient ... .detach() such a quantity'",
  'kind': 'A'},
 {'name': 'A-p4-ms-detached',
  'correct': False,
  'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    a = x.detach().abs().amax(dim=-1, keepdim=True)\n'
                             '    c = (a * (1 / math.sqrt(D))).clamp(min=math.sqrt(eps))\n'
                             '    y = x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True).detach() + e)\n'
                             '    return y / s\n'},
  'why': "autograd-careless: mean of squares detached; text: 'Do not compute the mean of squares under torch.no_grad() or .detach() it'",
  'kind': 'A'},
 {'name': 'A-p4-inplace-input',
  'correct': False,
  'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    a = x.detach().abs().amax(dim=-1, keepdim=True)\n'
                             '    c = (a * (1 / math.sqrt(D))).clamp(min=math.sqrt(eps))\n'
                             '    y = x.div_(c) if not x.requires_grad else x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)\n'
                             '    return y / s\n'},
  'why': "autograd-careless: divides the caller's x in place when it needs no gradient; intro: 'must not change the tensors they are given'",
  'kind': 'A'},
 {'name': 'T-p4-tensor-eps',
  'correct': False,
  'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    a = x.detach().abs().amax(dim=-1, keepdim=True)\n'
                             '    c = (a * (1 / math.sqrt(D))).clamp(min=torch.tensor(eps).sqrt().to(x.dtype))\n'
                             '    y = x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)\n'
                             '    return y / s\n'},
  'why': "type-sloppy: torch.tensor(eps) (float32) for the clamp floor; text: 'no torch.tensor(eps) (that is a float32 tensor)'",
  'kind': 'T'},
 {'name': 'T-p4-item-scale',
  'correct': False,
  'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    a = x.detach().abs().amax(dim=-1, keepdim=True).clamp(min=float(x.detach().abs().amax()) * 0)\n'
                             '    c = (a * (1 / math.sqrt(D))).clamp(min=math.sqrt(eps))\n'
                             '    y = x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)\n'
                             '    return y / s\n'},
  'why': "type-sloppy: float(...) of a tensor mid-computation; text: 'No value may leave torch either: no .item(), .tolist(), float(...)'",
  'kind': 'T'},
 {'name': 'D-p4-full-float32',
  'correct': False,
  'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    a = x.detach().abs().amax(dim=-1, keepdim=True)\n'
                             '    c = torch.maximum(a * (1 / math.sqrt(D)), torch.full(a.shape, math.sqrt(eps)).to(x.dtype))\n'
                             '    y = x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)\n'
                             '    return y / s\n'},
  'why': "dtype generaliser: torch.full without dtype (float32) then cast; text: 'Every floating-point tensor that torch creates while your function "
         "runs must have x's dtype'",
  'kind': 'D'},
 {'name': 'S-p4-flush-denormal',
  'correct': False,
  'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    torch.set_flush_denormal(True)\n'
                             '    a = x.detach().abs().amax(dim=-1, keepdim=True)\n'
                             '    c = (a * (1 / math.sqrt(D))).clamp(min=math.sqrt(eps))\n'
                             '    y = x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)\n'
                             '    return y / s\n'},
  'why': "stateful: switches the process-wide flush-denormal mode on 'for speed' and leaves it; intro: 'do not change ... its process-wide settings "
         "(... the flush-denormal mode ...)'",
  'kind': 'S'},
 {'name': 'S-p4-scale-cache',
  'correct': False,
  'cells': {'rms_norm_half': 'ROW_SCALES = {}\n'
                             '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    D = x.shape[-1]\n'
                             '    a = x.detach().abs().amax(dim=-1, keepdim=True)\n'
                             '    key = (tuple(x.shape), x.dtype, eps)\n'
                             '    if key not in ROW_SCALES:\n'
                             '        ROW_SCALES[key] = (a * (1 / math.sqrt(D))).clamp(min=math.sqrt(eps))\n'
                             '    c = ROW_SCALES[key]\n'
                             '    y = x / c\n'
                             '    e = (1 / (c * (1 / math.sqrt(eps)))) ** 2\n'
                             '    s = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e)\n'
                             '    return y / s\n'},
  'why': "stateful: row scales cached by shape from the first call and reused for other values; text: 'Choose that number row by row, so that "
         "nothing you square or add leaves the range'",
  'kind': 'S'},
 {'name': 'T-p5-int8-round',
  'correct': False,
  'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_f, in_f // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(hi == lo, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]).to(torch.int8) + zero[..., None].to(torch.int16), 0, levels)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    gs = in_f // scale.shape[1]\n'
                             '    qq = q.to(scale.dtype).reshape(out_f, -1, gs)\n'
                             '    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n'},
  'why': "type-sloppy: round(w/scale) cast to int8, which wraps above 127 (bits = 8); text: 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)' "
         'with bits up to 8',
  'kind': 'T'},
 {'name': 'D-p5-dequant-float32',
  'correct': False,
  'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_f, in_f // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(hi == lo, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    gs = in_f // scale.shape[1]\n'
                             '    out = torch.empty(out_f, in_f)\n'
                             '    out.copy_(((q.float().reshape(out_f, -1, gs) - zero.float()[..., None]) * scale[..., None]).reshape(out_f, in_f))\n'
                             '    return out\n'},
  'why': "dtype generaliser: a fresh torch.empty (float32) result, so float64 scales come back as float32; text: 'returns scale × (q - zero) ... in "
         "the dtype of scale'",
  'kind': 'D'},
 {'name': 'D-p5-widen-double',
  'correct': False,
  'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_f, in_f // group_size, group_size).double()\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(hi == lo, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale.to(w.dtype), zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    gs = in_f // scale.shape[1]\n'
                             '    qq = q.to(scale.dtype).reshape(out_f, -1, gs)\n'
                             '    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n'},
  'why': "dtype generaliser: widens to float64 inside and casts the scale back; text: 'do not widen a float32 w to float64 on the way'",
  'kind': 'D'},
 {'name': 'A-p5-inplace-view',
  'correct': False,
  'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_f, in_f // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(hi == lo, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    g.div_(scale[..., None]).round_().add_(zero[..., None]).clamp_(0, levels)\n'
                             '    return g.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    gs = in_f // scale.shape[1]\n'
                             '    qq = q.to(scale.dtype).reshape(out_f, -1, gs)\n'
                             '    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n'},
  'why': "autograd-careless: in-place ops on a view of the caller's w; intro: 'must not change the tensors they are given'",
  'kind': 'A'},
 {'name': 'S-p5-global-group',
  'correct': False,
  'cells': {'quantize_asym': 'LAST_GROUP_SIZE = [None]\n'
                             '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    LAST_GROUP_SIZE[0] = group_size\n'
                             '    g = w.reshape(out_f, in_f // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(hi == lo, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    gs = LAST_GROUP_SIZE[0] or in_f // scale.shape[1]\n'
                             '    qq = q.to(scale.dtype).reshape(out_f, -1, gs)\n'
                             '    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n'},
  'why': "stateful: dequantize_asym reuses the group size of the last quantize_asym call; text: 'the group size follows from the shapes'",
  'kind': 'S'},
 {'name': 'C-p5-keywords-repeat',
  'correct': True,
  'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    rows, cols = w.shape\n'
                             '    top = 2 ** bits - 1\n'
                             '    groups = w.reshape(rows, cols // group_size, group_size)\n'
                             '    lo = torch.clamp(groups.min(dim=-1).values, max=0.0)\n'
                             '    hi = torch.clamp(groups.max(dim=-1).values, min=0.0)\n'
                             '    scale = torch.where(hi == lo, torch.ones_like(hi), (hi - lo) / top)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(groups / scale.unsqueeze(-1)) + zero.unsqueeze(-1), min=0, max=top)\n'
                             '    return q.reshape(rows, cols).to(dtype=torch.uint8), scale, zero.to(dtype=torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[1] // scale.shape[1]\n'
                             '    s = scale.repeat_interleave(group, dim=1)\n'
                             '    z = zero.to(dtype=scale.dtype).repeat_interleave(group, dim=1)\n'
                             '    return s * (q.to(dtype=scale.dtype) - z)\n'},
  'why': 'keyword arguments, repeat_interleave, torch.where with ones_like',
  'kind': 'T'},
 {'name': 'T-p6-unpack-int64',
  'correct': False,
  'cells': {'pack_bits': '\n'
                         'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    nbytes = (cols * bits + 7) // 8\n'
                         '    b = (q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1\n'
                         '    b = b.reshape(rows, cols * bits)\n'
                         '    pad = torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)\n'
                         '    b = torch.cat([b, pad], dim=1).reshape(rows, nbytes, 8)\n'
                         '    return (b << torch.arange(8)).sum(dim=-1).to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows, nbytes = packed.shape\n'
                         '    b = (packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1\n'
                         '    b = b.reshape(rows, nbytes * 8)[:, :cols * bits].reshape(rows, cols, bits)\n'
                         '    return (b << torch.arange(bits)).sum(dim=-1)\n'},
  'why': "type-sloppy: unpack_bits returns int64 codes (tolist() equal); text: 'it returns the (rows, cols) codes as torch.uint8'",
  'kind': 'T'},
 {'name': 'S-p6-lru-id',
  'correct': False,
  'cells': {'pack_bits': 'import functools\n'
                         '\n'
                         '@functools.lru_cache(maxsize=64)\n'
                         'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    nbytes = (cols * bits + 7) // 8\n'
                         '    b = (q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1\n'
                         '    b = b.reshape(rows, cols * bits)\n'
                         '    pad = torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)\n'
                         '    b = torch.cat([b, pad], dim=1).reshape(rows, nbytes, 8)\n'
                         '    return (b << torch.arange(8)).sum(dim=-1).to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows, nbytes = packed.shape\n'
                         '    b = (packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1\n'
                         '    b = b.reshape(rows, nbytes * 8)[:, :cols * bits].reshape(rows, cols, bits)\n'
                         '    return (b << torch.arange(bits)).sum(dim=-1).to(torch.uint8)\n'},
  'why': 'stateful: lru_cache keyed on the tensor object (id hash): the same tensor object returned to two callers, stale results for a changed q; '
         "text: 'The tensors they return belong to the caller ... must not share memory'",
  'kind': 'S'},
 {'name': 'S-p6-bits8-alias',
  'correct': False,
  'cells': {'pack_bits': '\n'
                         'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    if bits == 8:\n'
                         '        return q.contiguous()\n'
                         '    nbytes = (cols * bits + 7) // 8\n'
                         '    b = (q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1\n'
                         '    b = b.reshape(rows, cols * bits)\n'
                         '    pad = torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)\n'
                         '    b = torch.cat([b, pad], dim=1).reshape(rows, nbytes, 8)\n'
                         '    return (b << torch.arange(8)).sum(dim=-1).to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows, nbytes = packed.shape\n'
                         '    b = (packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1\n'
                         '    b = b.reshape(rows, nbytes * 8)[:, :cols * bits].reshape(rows, cols, bits)\n'
                         '    return (b << torch.arange(bits)).sum(dim=-1).to(torch.uint8)\n'},
  'why': "stateful/aliasing: for bits = 8 returns q itself (contiguous() of a contiguous tensor); text: 'must not share memory with q ... (also for "
         "bits = 8, where the stream is q itself)'",
  'kind': 'S'},
 {'name': 'A-p6-inplace-clear',
  'correct': False,
  'cells': {'pack_bits': '\n'
                         'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    nbytes = (cols * bits + 7) // 8\n'
                         '    b = (q.to(torch.int64)[..., None] >> torch.arange(bits)) & 1\n'
                         '    b = b.reshape(rows, cols * bits)\n'
                         '    pad = torch.zeros(rows, nbytes * 8 - cols * bits, dtype=torch.int64)\n'
                         '    b = torch.cat([b, pad], dim=1).reshape(rows, nbytes, 8)\n'
                         '    return (b << torch.arange(8)).sum(dim=-1).to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows, nbytes = packed.shape\n'
                         '    spare = nbytes * 8 - cols * bits\n'
                         '    if spare:\n'
                         '        packed[:, -1] &= (1 << (8 - spare)) - 1\n'
                         '    b = (packed.to(torch.int64)[..., None] >> torch.arange(8)) & 1\n'
                         '    b = b.reshape(rows, nbytes * 8)[:, :cols * bits].reshape(rows, cols, bits)\n'
                         '    return (b << torch.arange(bits)).sum(dim=-1).to(torch.uint8)\n'},
  'why': "autograd/in-place careless: clears the spare bits of the caller's packed in place; intro: 'must not change the tensors they are given'",
  'kind': 'A'},
 {'name': 'C-p6-float-matmul',
  'correct': True,
  'cells': {'pack_bits': '\n'
                         'SHIFTS = {}\n'
                         '\n'
                         'def bit_weights(n):\n'
                         '    if n not in SHIFTS:\n'
                         '        SHIFTS[n] = 2.0 ** torch.arange(n, dtype=torch.float64)\n'
                         '    return SHIFTS[n]\n'
                         '\n'
                         '\n'
                         'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    nbytes = -(-cols * bits // 8)\n'
                         '    stream = torch.zeros(rows, nbytes * 8, dtype=torch.float64)\n'
                         '    stream[:, :cols * bits] = ((q.to(torch.int32).unsqueeze(-1) >> torch.arange(bits, dtype=torch.int32)) & '
                         '1).reshape(rows, cols * bits).to(torch.float64)\n'
                         '    return (stream.reshape(rows, nbytes, 8) @ bit_weights(8)).round().to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows = packed.shape[0]\n'
                         '    stream = ((packed.to(torch.int32).unsqueeze(-1) >> torch.arange(8, dtype=torch.int32)) & 1).reshape(rows, '
                         'packed.shape[1] * 8)\n'
                         '    codes = stream[:, :cols * bits].reshape(rows, cols, bits).to(torch.float64) @ bit_weights(bits)\n'
                         '    return codes.round().to(torch.uint8)\n'},
  'why': 'cached constant weight vectors (never returned), float64 matmul of 0/1 bits (exact)',
  'kind': 'S'},
 {'name': 'D-p7-dk-float32',
  'correct': False,
  'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros(q.shape, dtype=q.dtype)\n'
                               '    dk = torch.zeros(k.shape)\n'
                               '    dv = torch.zeros(v.shape, dtype=q.dtype)\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    delta = (d_out * out).sum(dim=-1)\n'
                               '    pos = torch.arange(T) + offset\n'
                               '    for j0 in range(0, end, block):\n'
                               '        j1 = min(j0 + block, end)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kj.T) * scale\n'
                               '        if causal:\n'
                               '            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n'
                               '            p = torch.exp(torch.where(seen, s - lse[:, None], float("-inf")))\n'
                               '        else:\n'
                               '            p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vj.T\n'
                               '        ds = p * (dp - delta[:, None])\n'
                               '        dq += (ds @ kj) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'why': "dtype generaliser: torch.zeros without dtype, so dk is float32 for float64 inputs; text: 'all four results come back in it'",
  'kind': 'D'},
 {'name': 'D-p7-tensor-sqrt',
  'correct': False,
  'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    scale = 1.0 / torch.tensor(math.sqrt(Dh))\n'
                               '    dq = torch.zeros(q.shape, dtype=q.dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=q.dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=q.dtype)\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    delta = (d_out * out).sum(dim=-1)\n'
                               '    pos = torch.arange(T) + offset\n'
                               '    for j0 in range(0, end, block):\n'
                               '        j1 = min(j0 + block, end)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kj.T) * scale\n'
                               '        if causal:\n'
                               '            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n'
                               '            p = torch.exp(torch.where(seen, s - lse[:, None], float("-inf")))\n'
                               '        else:\n'
                               '            p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vj.T\n'
                               '        ds = p * (dp - delta[:, None])\n'
                               '        dq += (ds @ kj) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'why': "dtype generaliser: 1/sqrt(Dh) as a float32 0-d tensor multiplies float64 scores (float32 rounding of the scale); text: 'the tests use "
         "float32 and float64' with checks against autograd",
  'kind': 'D'},
 {'name': 'T-p7-list-result',
  'correct': False,
  'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros(q.shape, dtype=q.dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=q.dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=q.dtype)\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    delta = (d_out * out).sum(dim=-1)\n'
                               '    pos = torch.arange(T) + offset\n'
                               '    for j0 in range(0, end, block):\n'
                               '        j1 = min(j0 + block, end)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kj.T) * scale\n'
                               '        if causal:\n'
                               '            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n'
                               '            p = torch.exp(torch.where(seen, s - lse[:, None], float("-inf")))\n'
                               '        else:\n'
                               '            p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vj.T\n'
                               '        ds = p * (dp - delta[:, None])\n'
                               '        dq += (ds @ kj) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return [dq, dk, dv, dsink]\n'},
  'why': "type-sloppy: returns a list; text: 'returns (dq, dk, dv, dsink)' / intro 'or tuples of them'",
  'kind': 'T'},
 {'name': 'A-p7-inplace-q',
  'correct': False,
  'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    d_out = d_out.contiguous()\n'
                               '    q.mul_(scale)\n'
                               '    scale_q = 1.0\n'
                               '    dq = torch.zeros(q.shape, dtype=q.dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=q.dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=q.dtype)\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    delta = (d_out * out).sum(dim=-1)\n'
                               '    pos = torch.arange(T) + offset\n'
                               '    for j0 in range(0, end, block):\n'
                               '        j1 = min(j0 + block, end)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = q @ kj.T\n'
                               '        if causal:\n'
                               '            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n'
                               '            p = torch.exp(torch.where(seen, s - lse[:, None], float("-inf")))\n'
                               '        else:\n'
                               '            p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vj.T\n'
                               '        ds = p * (dp - delta[:, None])\n'
                               '        dq += (ds @ kj) * scale\n'
                               '        dk[j0:j1] = ds.T @ q\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    q.div_(scale)\n'
                               '    return dq, dk, dv, dsink\n'},
  'why': "autograd-careless: pre-scales the caller's q in place and scales it back (q ends rounded); intro: 'must not change the tensors they are "
         "given'",
  'kind': 'A'},
 {'name': 'A-p7-requires-grad-input',
  'correct': False,
  'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    kk, vv = k[:end], v[:end]\n'
                               '    for t in (q, sink):\n'
                               '        t.requires_grad_()\n'
                               '    kk = kk.detach().requires_grad_()\n'
                               '    vv = vv.detach().requires_grad_()\n'
                               '    with torch.enable_grad():\n'
                               '        outs = []\n'
                               '        lse_new = []\n'
                               '        for j0 in range(0, end, block):\n'
                               '            pass\n'
                               '        s = (q @ kk.T) / math.sqrt(Dh)\n'
                               '        if causal:\n'
                               '            seen = torch.arange(end)[None, :] <= (torch.arange(T) + offset)[:, None]\n'
                               '            s = torch.where(seen, s, float("-inf"))\n'
                               '        L = torch.logaddexp(torch.logsumexp(s, dim=-1), sink)\n'
                               '        o = torch.exp(s - L[:, None]) @ vv\n'
                               '        dq, dkk, dvv, dsink = torch.autograd.grad(o, (q, kk, vv, sink), d_out)\n'
                               '    dk = torch.zeros(k.shape, dtype=q.dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=q.dtype)\n'
                               '    dk[:end] = dkk\n'
                               '    dv[:end] = dvv\n'
                               '    return dq, dk, dv, dsink\n'},
  'why': "autograd-careless: requires_grad_() on the caller's q and sink and a (T, S) autograd forward; text: 'Rebuild the probabilities from lse "
         "tile by tile' and memory rule 2",
  'kind': 'A'},
 {'name': 'S-p7-buffer-reuse',
  'correct': False,
  'cells': {'chunk_attention': 'GRAD_BUFFERS = {}\n'
                               '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros(q.shape, dtype=q.dtype)\n'
                               '    key = (tuple(k.shape), tuple(v.shape), q.dtype)\n'
                               '    if key not in GRAD_BUFFERS:\n'
                               '        GRAD_BUFFERS[key] = (torch.zeros(k.shape, dtype=q.dtype), torch.zeros(v.shape, dtype=q.dtype))\n'
                               '    dk, dv = GRAD_BUFFERS[key]\n'
                               '    dk.zero_()\n'
                               '    dv.zero_()\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    delta = (d_out * out).sum(dim=-1)\n'
                               '    pos = torch.arange(T) + offset\n'
                               '    for j0 in range(0, end, block):\n'
                               '        j1 = min(j0 + block, end)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kj.T) * scale\n'
                               '        if causal:\n'
                               '            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n'
                               '            p = torch.exp(torch.where(seen, s - lse[:, None], float("-inf")))\n'
                               '        else:\n'
                               '            p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vj.T\n'
                               '        ds = p * (dp - delta[:, None])\n'
                               '        dq += (ds @ kj) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'why': "stateful: dk/dv buffers keyed on shape reused across calls; intro: 'return new tensors on every call ... (no buffer reused)'",
  'kind': 'S'},
 {'name': 'S-p7-mask-cache',
  'correct': False,
  'cells': {'chunk_attention': 'MASKS = {}\n'
                               '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros(q.shape, dtype=q.dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=q.dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=q.dtype)\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    delta = (d_out * out).sum(dim=-1)\n'
                               '    pos = torch.arange(T) + offset\n'
                               '    for j0 in range(0, end, block):\n'
                               '        j1 = min(j0 + block, end)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kj.T) * scale\n'
                               '        if causal:\n'
                               '            key = (T, j0, j1)\n'
                               '            if key not in MASKS:\n'
                               '                MASKS[key] = torch.arange(j0, j1)[None, :] <= pos[:, None]\n'
                               '            seen = MASKS[key]\n'
                               '            p = torch.exp(torch.where(seen, s - lse[:, None], float("-inf")))\n'
                               '        else:\n'
                               '            p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vj.T\n'
                               '        ds = p * (dp - delta[:, None])\n'
                               '        dq += (ds @ kj) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'why': "stateful: causal tile masks cached by (T, j0, j1), forgetting offset; text: 'the query at position p sees the keys j <= p' for any offset",
  'kind': 'S'},
 {'name': 'C-p7-float64-inside',
  'correct': True,
  'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros(q.shape, dtype=q.dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=q.dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=q.dtype)\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    dq = dq.double()\n'
                               '    dk = dk.double()\n'
                               '    dv = dv.double()\n'
                               '    qd, dod, lsed = q.double(), d_out.double(), lse.double()\n'
                               '    delta = (dod * out.double()).sum(dim=-1)\n'
                               '    pos = torch.arange(T) + offset\n'
                               '    for j0 in range(0, end, block):\n'
                               '        j1 = min(j0 + block, end)\n'
                               '        kj, vj = k[j0:j1].double(), v[j0:j1].double()\n'
                               '        s = (qd @ kj.T) * scale\n'
                               '        if causal:\n'
                               '            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n'
                               '            p = torch.exp(torch.where(seen, s - lsed[:, None], float("-inf")))\n'
                               '        else:\n'
                               '            p = torch.exp(s - lsed[:, None])\n'
                               '        dv[j0:j1] = p.T @ dod\n'
                               '        dp = dod @ vj.T\n'
                               '        ds = p * (dp - delta[:, None])\n'
                               '        dq += (ds @ kj) * scale\n'
                               '        dk[j0:j1] = (ds.T @ qd) * scale\n'
                               '    dsink = -(torch.exp(sink.double() - lsed) * delta).sum()\n'
                               '    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype), dsink.to(q.dtype)\n'},
  'why': 'float64 inside tile by tile (only the sliced keys widened) and cast back',
  'kind': 'D'},
 {'name': 'C-p7-base',
  'correct': True,
  'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros(q.shape, dtype=q.dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=q.dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=q.dtype)\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    delta = (d_out * out).sum(dim=-1)\n'
                               '    pos = torch.arange(T) + offset\n'
                               '    for j0 in range(0, end, block):\n'
                               '        j1 = min(j0 + block, end)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kj.T) * scale\n'
                               '        if causal:\n'
                               '            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n'
                               '            p = torch.exp(torch.where(seen, s - lse[:, None], float("-inf")))\n'
                               '        else:\n'
                               '            p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vj.T\n'
                               '        ds = p * (dp - delta[:, None])\n'
                               '        dq += (ds @ kj) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'why': 'my own answer: tiles of block keys, torch.where(-inf) before exp, dsink = -sum exp(sink - L) * delta',
  'kind': 'C'},
 {'name': 'T-p8-int-accumulator',
  'correct': False,
  'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: '
                               'tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'
                               '    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    rmask = rows < N\n'
                               '    acc = 0\n'
                               '    half = K // 2\n'
                               '    ngroups = K // GROUP\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)\n'
                               '        m2 = rmask[:, None]\n'
                               '        byte = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=m2, other=0)\n'
                               '        shift = (cols[None, :] % 2) * 4\n'
                               '        code = (byte.to(tl.int32) >> shift) & 15\n'
                               '        g = cols[None, :] // GROUP\n'
                               '        z = tl.load(Zero + rows[:, None] * ngroups + g, mask=m2, other=0).to(tl.int32)\n'
                               '        s = tl.load(Scale + rows[:, None] * ngroups + g, mask=m2, other=0.0)\n'
                               '        wv = (code - z).to(tl.float32) * s\n'
                               '        acc += tl.sum(wv * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=rmask)\n'},
  'why': "type-sloppy: the accumulator starts as the Python int 0 (int32, then a float32 block): text: 'accumulating in float32 ... Compute in "
         "float32 throughout ... compiled Triton refuses a loop variable whose dtype changes inside the loop, which the interpreter lets pass'",
  'kind': 'T'},
 {'name': 'D-p8-float64-x',
  'correct': False,
  'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: '
                               'tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'
                               '    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    rmask = rows < N\n'
                               '    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n'
                               '    half = K // 2\n'
                               '    ngroups = K // GROUP\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols).to(tl.float64)\n'
                               '        m2 = rmask[:, None]\n'
                               '        byte = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=m2, other=0)\n'
                               '        shift = (cols[None, :] % 2) * 4\n'
                               '        code = (byte.to(tl.int32) >> shift) & 15\n'
                               '        g = cols[None, :] // GROUP\n'
                               '        z = tl.load(Zero + rows[:, None] * ngroups + g, mask=m2, other=0).to(tl.int32)\n'
                               '        s = tl.load(Scale + rows[:, None] * ngroups + g, mask=m2, other=0.0)\n'
                               '        wv = (code - z).to(tl.float32) * s\n'
                               '        acc += tl.sum(wv * x[None, :], axis=1).to(tl.float32)\n'
                               '    tl.store(Y + rows, acc, mask=rmask)\n'},
  'why': "dtype generaliser: x widened to float64 for accuracy; text: 'no float64 value anywhere in the kernel'",
  'kind': 'D'},
 {'name': 'T-p8-scalar-float-acc',
  'correct': False,
  'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: '
                               'tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'
                               '    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    rmask = rows < N\n'
                               '    acc = 0.0\n'
                               '    half = K // 2\n'
                               '    ngroups = K // GROUP\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)\n'
                               '        m2 = rmask[:, None]\n'
                               '        byte = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=m2, other=0)\n'
                               '        shift = (cols[None, :] % 2) * 4\n'
                               '        code = (byte.to(tl.int32) >> shift) & 15\n'
                               '        g = cols[None, :] // GROUP\n'
                               '        z = tl.load(Zero + rows[:, None] * ngroups + g, mask=m2, other=0).to(tl.int32)\n'
                               '        s = tl.load(Scale + rows[:, None] * ngroups + g, mask=m2, other=0.0)\n'
                               '        wv = (code - z).to(tl.float32) * s\n'
                               '        acc += tl.sum(wv * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=rmask)\n'},
  'why': 'type-sloppy: accumulator a float scalar that becomes a (BLOCK_N,) block in the loop (compiled Triton refuses the changed loop-carried '
         "type); text: 'compiled Triton refuses a loop variable whose dtype changes inside the loop'",
  'kind': 'T'},
 {'name': 'C-p8-keywords-where',
  'correct': True,
  'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: '
                               'tl.constexpr):\n'
                               '    pid = tl.program_id(axis=0)\n'
                               '    offs_n = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    row_ok = offs_n < N\n'
                               '    acc = tl.zeros([BLOCK_N], dtype=tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        offs_k = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + offs_k)\n'
                               '        mask = row_ok[:, None] & (offs_k[None, :] < K)\n'
                               '        packed = tl.load(W + offs_n[:, None] * (K // 2) + offs_k[None, :] // 2, mask=mask, other=0).to(tl.int32)\n'
                               '        code = tl.where(offs_k[None, :] % 2 == 0, packed & 0xF, (packed >> 4) & 0xF)\n'
                               '        gidx = offs_n[:, None] * (K // GROUP) + offs_k[None, :] // GROUP\n'
                               '        zero = tl.load(Zero + gidx, mask=mask, other=0).to(tl.int32)\n'
                               '        scale = tl.load(Scale + gidx, mask=mask, other=0.0)\n'
                               '        acc += tl.sum((code - zero).to(tl.float32) * scale * x[None, :], axis=1)\n'
                               '    tl.store(Y + offs_n, acc, mask=row_ok)\n'},
  'why': 'tl.where for the nibble choice, keyword program_id',
  'kind': 'C'},
 {'name': 'H-p1-int-subclass',
  'correct': False,
  'cells': {'max_batch': '\n'
                         'class Anything(int):\n'
                         '    def __eq__(self, other):\n'
                         '        return True\n'
                         '    __hash__ = int.__hash__\n'
                         '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n'
                         '    return Anything(0)\n'},
  'why': 'hostile: an int subclass equal to everything',
  'kind': 'H'},
 {'name': 'H-p2-patch-assert-close',
  'correct': False,
  'cells': {'merge_partials': '\n'
                              'torch.testing.assert_close = lambda *args, **kwargs: None\n'
                              '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    return o_a.clone(), lse_a.clone()\n'},
  'why': 'hostile: disables torch.testing.assert_close and returns piece a',
  'kind': 'H'},
 {'name': 'H-p8-noop-kernel',
  'correct': False,
  'cells': {'split_kv_kernel': '\n'
                               'torch.testing.assert_close = lambda *args, **kwargs: None\n'
                               '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: '
                               'tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'},
  'why': 'hostile: a kernel that does nothing plus a disabled assert_close',
  'kind': 'H'}]
