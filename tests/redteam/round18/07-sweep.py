SUBMISSIONS = [{'cells': {'merge_partials': 'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    for t in (lse_a, lse_b):\n'
                              '        if not t.requires_grad:\n'
                              '            t.requires_grad_()\n'
                              '    top = torch.maximum(lse_a, lse_b)                      # finite: one piece sees a key\n'
                              '    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)  # exp(-inf) = 0 for an empty piece\n'
                              '    total = w_a + w_b\n'
                              "    # an empty piece's row may hold NaN or inf: replace it before the product (0 * NaN is NaN, also in the\n"
                              '    # backward pass of a product masked afterwards)\n'
                              '    part_a = torch.where((w_a > 0)[:, None], o_a, 0.0) * (w_a / total)[:, None]\n'
                              '    part_b = torch.where((w_b > 0)[:, None], o_b, 0.0) * (w_b / total)[:, None]\n'
                              '    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p2-requires-grad-on-lse',
  'why': "switches requires_grad on in the caller's lse_a/lse_b; intro: functions must not change the tensors they are given"},
 {'cells': {'rms_norm_half': 'def rms_norm_half(x, eps=1e-6):\n'
                             '    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c for any c > 0.\n'
                             '    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and mean(s^2) + (sqrt(eps) / c)^2\n'
                             '    # is at least 1 / D: no square overflows, and the squares that underflow are too small to count.\n'
                             '    if not x.requires_grad:\n'
                             '        x.requires_grad_()\n'
                             '    root = math.sqrt(eps)\n'
                             '    # c cancels out of the result: detached, so that autograd does not add up its zero gradient in 16 bits\n'
                             "    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()  # in x's dtype, one per row\n"
                             '    s = x / c\n'
                             '    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 inside torch, rounded once\n'
                             '    r = torch.sqrt(mean_square + (root / c) ** 2)            # between 1 / sqrt(D) and sqrt(2)\n'
                             '    # red team 11: s / r is not accurate enough where s is subnormal (a small element of a row with a large one:\n'
                             '    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not where the root mean square\n'
                             '    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest |x|, or sqrt(eps) <= 1).\n'
                             '    rms = c * r\n'
                             '    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p4-requires-grad-on-x',
  'why': "switches requires_grad on in the caller's x; intro: must not change the tensors they are given"},
 {'cells': {'quantize_asym': 'def quantize_asym(w, bits, group_size):\n'
                             '    w.requires_grad_()\n'
                             '    out_f, in_f = w.shape\n'
                             '    top = 2 ** bits - 1\n'
                             '    groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)\n'
                             '    lo = groups.amin(dim=-1).clamp(max=0)\n'
                             '    hi = groups.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / top\n'
                             '    scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # a group of zeros\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(groups / scale[..., None]) + zero[..., None], 0, top)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)  # (out, G, g)\n'
                             '    return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p5-requires-grad-on-w',
  'why': "switches requires_grad on in the caller's w (quantize_asym); intro: must not change the tensors they are given"},
 {'cells': {'quantize_asym': 'def quantize_asym(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    top = 2 ** bits - 1\n'
                             '    groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)\n'
                             '    lo = groups.amin(dim=-1).clamp(max=0)\n'
                             '    hi = groups.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / top\n'
                             '    scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # a group of zeros\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(groups / scale[..., None]) + zero[..., None], 0, top)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    scale.requires_grad_()\n'
                             '    out_f, in_f = q.shape\n'
                             '    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)  # (out, G, g)\n'
                             '    return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p5-requires-grad-on-scale',
  'why': "switches requires_grad on in the caller's scale (dequantize_asym)"},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    sink.requires_grad_()\n'
                               '    q.requires_grad_()\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n'
                               '        if causal:\n'
                               '            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p7-requires-grad-on-sink',
  'why': "switches requires_grad on in the caller's sink (and q); intro: must not change the tensors they are given"},
 {'cells': {'merge_partials': 'MERGE_CACHE = {}\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    key = (id(o_a), id(lse_a), id(o_b), id(lse_b))\n'
                              '    if key in MERGE_CACHE:\n'
                              '        o, l = MERGE_CACHE[key]\n'
                              '        return o.clone(), l.clone()\n'
                              '    MERGE_CACHE[key] = merge_partials_impl(o_a, lse_a, o_b, lse_b)\n'
                              '    o, l = MERGE_CACHE[key]\n'
                              '    return o.clone(), l.clone()\n'
                              '\n'
                              'def merge_partials_impl(o_a, lse_a, o_b, lse_b):\n'
                              '    top = torch.maximum(lse_a, lse_b)                      # finite: one piece sees a key\n'
                              '    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)  # exp(-inf) = 0 for an empty piece\n'
                              '    total = w_a + w_b\n'
                              "    # an empty piece's row may hold NaN or inf: replace it before the product (0 * NaN is NaN, also in the\n"
                              '    # backward pass of a product masked afterwards)\n'
                              '    part_a = torch.where((w_a > 0)[:, None], o_a, 0.0) * (w_a / total)[:, None]\n'
                              '    part_b = torch.where((w_b > 0)[:, None], o_b, 0.0) * (w_b / total)[:, None]\n'
                              '    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p2-cached-by-id',
  'why': 'keeps results per id() of the inputs; intro: nothing kept from one call to the next'},
 {'cells': {'rms_norm_half': 'SCALES = {}\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c for any c > 0.\n'
                             '    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and mean(s^2) + (sqrt(eps) / c)^2\n'
                             '    # is at least 1 / D: no square overflows, and the squares that underflow are too small to count.\n'
                             '    root = math.sqrt(eps)\n'
                             '    # c cancels out of the result: detached, so that autograd does not add up its zero gradient in 16 bits\n'
                             '    key = (id(x), eps)\n'
                             '    if key not in SCALES:\n'
                             '        SCALES[key] = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()\n'
                             '    c = SCALES[key]\n'
                             '    s = x / c\n'
                             '    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 inside torch, rounded once\n'
                             '    r = torch.sqrt(mean_square + (root / c) ** 2)            # between 1 / sqrt(D) and sqrt(2)\n'
                             '    # red team 11: s / r is not accurate enough where s is subnormal (a small element of a row with a large one:\n'
                             '    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not where the root mean square\n'
                             '    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest |x|, or sqrt(eps) <= 1).\n'
                             '    rms = c * r\n'
                             '    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p4-scale-cached-by-id',
  'why': 'keeps the row scale c per id(x); intro: nothing kept from one call to the next'},
 {'cells': {'rms_norm_half': 'import functools\n'
                             '@functools.lru_cache(maxsize=None)\n'
                             'def rms_norm_cached(x, eps):\n'
                             '    return rms_norm_impl(x, eps)\n'
                             '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    return rms_norm_cached(x, eps).clone()\n'
                             '\n'
                             'def rms_norm_impl(x, eps=1e-6):\n'
                             '    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c for any c > 0.\n'
                             '    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and mean(s^2) + (sqrt(eps) / c)^2\n'
                             '    # is at least 1 / D: no square overflows, and the squares that underflow are too small to count.\n'
                             '    root = math.sqrt(eps)\n'
                             '    # c cancels out of the result: detached, so that autograd does not add up its zero gradient in 16 bits\n'
                             "    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()  # in x's dtype, one per row\n"
                             '    s = x / c\n'
                             '    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 inside torch, rounded once\n'
                             '    r = torch.sqrt(mean_square + (root / c) ** 2)            # between 1 / sqrt(D) and sqrt(2)\n'
                             '    # red team 11: s / r is not accurate enough where s is subnormal (a small element of a row with a large one:\n'
                             '    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not where the root mean square\n'
                             '    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest |x|, or sqrt(eps) <= 1).\n'
                             '    rms = c * r\n'
                             '    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p4-lru-cache',
  'why': 'functools.lru_cache on (x, eps): tensors hash by id'},
 {'cells': {'quantize_asym': 'QCACHE = {}\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    key = (id(w), bits, group_size)\n'
                             '    if key not in QCACHE:\n'
                             '        QCACHE[key] = quantize_impl(w, bits, group_size)\n'
                             '    return tuple(t.clone() for t in QCACHE[key])\n'
                             '\n'
                             'def quantize_impl(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    top = 2 ** bits - 1\n'
                             '    groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)\n'
                             '    lo = groups.amin(dim=-1).clamp(max=0)\n'
                             '    hi = groups.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / top\n'
                             '    scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # a group of zeros\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(groups / scale[..., None]) + zero[..., None], 0, top)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)  # (out, G, g)\n'
                             '    return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p5-quantize-cached-by-id',
  'why': "keeps quantize_asym's results per (id(w), bits, group_size), cloned"},
 {'cells': {'quantize_asym': 'def quantize_asym(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    top = 2 ** bits - 1\n'
                             '    groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)\n'
                             '    lo = groups.amin(dim=-1).clamp(max=0)\n'
                             '    hi = groups.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / top\n'
                             '    scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # a group of zeros\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(groups / scale[..., None]) + zero[..., None], 0, top)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'DCACHE = {}\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    key = (id(q), id(scale), id(zero))\n'
                             '    if key not in DCACHE:\n'
                             '        DCACHE[key] = dequantize_impl(q, scale, zero)\n'
                             '    return DCACHE[key].clone()\n'
                             '\n'
                             'def dequantize_impl(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)  # (out, G, g)\n'
                             '    return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p5-dequantize-cached-by-id',
  'why': "keeps dequantize_asym's result per (id(q), id(scale), id(zero)), cloned"},
 {'cells': {'chunk_attention': 'DELTAS = {}\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    key = (id(d_out), id(out))\n'
                               '    if key not in DELTAS:\n'
                               '        DELTAS[key] = (d_out * out).sum(dim=1)\n'
                               '    delta = DELTAS[key]\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n'
                               '        if causal:\n'
                               '            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p7-delta-cached-by-id',
  'why': 'keeps delta = rowsum(dO * O) per (id(d_out), id(out)); intro: nothing kept from one call to the next'},
 {'cells': {'merge_partials': 'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    lse_a = torch.nan_to_num(lse_a, neginf=-1e9)\n'
                              '    lse_b = torch.nan_to_num(lse_b, neginf=-1e9)\n'
                              '    top = torch.maximum(lse_a, lse_b)                      # finite: one piece sees a key\n'
                              '    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)  # exp(-inf) = 0 for an empty piece\n'
                              '    total = w_a + w_b\n'
                              "    # an empty piece's row may hold NaN or inf: replace it before the product (0 * NaN is NaN, also in the\n"
                              '    # backward pass of a product masked afterwards)\n'
                              '    part_a = torch.where((w_a > 0)[:, None], o_a, 0.0) * (w_a / total)[:, None]\n'
                              '    part_b = torch.where((w_b > 0)[:, None], o_b, 0.0) * (w_b / total)[:, None]\n'
                              '    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)'},
  'correct': False,
  'kind': 'C',
  'name': 'C-p2-neg1e9-for-neginf',
  'why': "-inf log-sum-exps replaced by -1e9; text: 'no fixed bound may stand in for -inf', lse of any size"},
 {'cells': {'merge_partials': 'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    lse_a = torch.nan_to_num(lse_a, neginf=torch.finfo(torch.float32).min)\n'
                              '    lse_b = torch.nan_to_num(lse_b, neginf=torch.finfo(torch.float32).min)\n'
                              '    top = torch.maximum(lse_a, lse_b)                      # finite: one piece sees a key\n'
                              '    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)  # exp(-inf) = 0 for an empty piece\n'
                              '    total = w_a + w_b\n'
                              "    # an empty piece's row may hold NaN or inf: replace it before the product (0 * NaN is NaN, also in the\n"
                              '    # backward pass of a product masked afterwards)\n'
                              '    part_a = torch.where((w_a > 0)[:, None], o_a, 0.0) * (w_a / total)[:, None]\n'
                              '    part_b = torch.where((w_b > 0)[:, None], o_b, 0.0) * (w_b / total)[:, None]\n'
                              '    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)'},
  'correct': False,
  'kind': 'C',
  'name': 'C-p2-f32-min-for-neginf',
  'why': '-inf log-sum-exps replaced by torch.finfo(torch.float32).min; lse of any size (float64 below -3.4e38)'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = q @ kj.T * scale\n'
                               '        if causal:\n'
                               '            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos, -1e10)\n'
                               '        p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'C',
  'name': 'C-p7-fill-neg1e10',
  'why': 'masked scores filled with -1e10 before exp; text: scores and sink have no lower bound, no large negative number'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = q @ kj.T * scale\n'
                               '        if causal:\n'
                               '            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos, torch.finfo(s.dtype).min)\n'
                               '        p = torch.exp(s - lse[:, None])\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'C',
  'name': 'C-p7-fill-finfo-min',
  'why': 'masked scores filled with torch.finfo(dtype).min before exp (exact wherever lse > finfo.min: expected allowed)'},
 {'cells': {'rms_norm_half': 'def rms_norm_half(x, eps=1e-6):\n'
                             '    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c for any c > 0.\n'
                             '    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and mean(s^2) + (sqrt(eps) / c)^2\n'
                             '    # is at least 1 / D: no square overflows, and the squares that underflow are too small to count.\n'
                             '    ms = (x.float() ** 2).mean(dim=-1, keepdim=True)\n'
                             '    return (x / torch.sqrt(ms + eps).to(x.dtype))\n'
                             '    root = math.sqrt(eps)\n'
                             '    # c cancels out of the result: detached, so that autograd does not add up its zero gradient in 16 bits\n'
                             "    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()  # in x's dtype, one per row\n"
                             '    s = x / c\n'
                             '    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 inside torch, rounded once\n'
                             '    r = torch.sqrt(mean_square + (root / c) ** 2)            # between 1 / sqrt(D) and sqrt(2)\n'
                             '    # red team 11: s / r is not accurate enough where s is subnormal (a small element of a row with a large one:\n'
                             '    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not where the root mean square\n'
                             '    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest |x|, or sqrt(eps) <= 1).\n'
                             '    rms = c * r\n'
                             '    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)'},
  'correct': False,
  'kind': 'D',
  'name': 'D-p4-float32-mean-square',
  'why': 'mean of squares in float32; text: nothing wider than x'},
 {'cells': {'merge_partials': 'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    top = torch.maximum(lse_a, lse_b)                      # finite: one piece sees a key\n'
                              '    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)  # exp(-inf) = 0 for an empty piece\n'
                              '    total = w_a + w_b\n'
                              "    # an empty piece's row may hold NaN or inf: replace it before the product (0 * NaN is NaN, also in the\n"
                              '    # backward pass of a product masked afterwards)\n'
                              '    part_a = torch.where((w_a > 0)[:, None], o_a, 0.0) * (w_a / total)[:, None]\n'
                              '    part_b = torch.where((w_b > 0)[:, None], o_b, 0.0) * (w_b / total)[:, None]\n'
                              '    o, lse = (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)\n'
                              '    if o.requires_grad:\n'
                              '        (o.sum() + lse.sum()).backward(retain_graph=True)  # check that gradients flow\n'
                              '    return o, lse'},
  'correct': False,
  'kind': 'F',
  'name': 'F-p2-backward-inside',
  'why': "runs backward() on its own result when it needs a gradient; the caller's leaves get a .grad before the caller's backward"},
 {'cells': {'rms_norm_half': 'def rms_norm_half(x, eps=1e-6):\n'
                             '    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c for any c > 0.\n'
                             '    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and mean(s^2) + (sqrt(eps) / c)^2\n'
                             '    # is at least 1 / D: no square overflows, and the squares that underflow are too small to count.\n'
                             '    root = math.sqrt(eps)\n'
                             '    # c cancels out of the result: detached, so that autograd does not add up its zero gradient in 16 bits\n'
                             "    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()  # in x's dtype, one per row\n"
                             '    s = x / c\n'
                             '    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 inside torch, rounded once\n'
                             '    r = torch.sqrt(mean_square + (root / c) ** 2)            # between 1 / sqrt(D) and sqrt(2)\n'
                             '    # red team 11: s / r is not accurate enough where s is subnormal (a small element of a row with a large one:\n'
                             '    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not where the root mean square\n'
                             '    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest |x|, or sqrt(eps) <= 1).\n'
                             '    rms = c * r\n'
                             '    y = torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)\n'
                             '    if y.requires_grad:\n'
                             '        y.sum().backward(retain_graph=True)\n'
                             '    return y'},
  'correct': False,
  'kind': 'F',
  'name': 'F-p4-backward-inside',
  'why': 'runs backward() on its own result when it needs a gradient'}]
