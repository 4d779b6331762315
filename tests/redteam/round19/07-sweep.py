"""Round 19 class sweep, chapter 07-hardware: the model answer changed one class at a time (see 07-sweep-verdicts.md)."""

SUBMISSIONS = [{'cells': {'max_batch': 'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, '
                         'bytes_per_value, window=None):\n'
                         '    cached = length if window is None else min(length, window)\n'
                         '    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    free = memory_bytes - weight_bytes\n'
                         '    b = int(free / per_sequence)  # a float quotient may round up past 2**53: step down '
                         'until it fits\n'
                         '    while b > 0 and b * per_sequence > free:\n'
                         '        b -= 1\n'
                         '    return max(b, 0)'},
  'correct': False,
  'kind': 'C',
  'name': 'C-p1-float-quotient-corrected-down',
  'why': "C: 'compute it exactly': a float quotient corrected only downwards; beyond 2**53 the quotient can also round "
         'down'},
 {'cells': {'max_batch': 'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, '
                         'bytes_per_value, window=None):\n'
                         '    cached = length if window is None else min(length, window)\n'
                         '    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    free = memory_bytes - weight_bytes\n'
                         '    b = max(int(free / per_sequence), 0)\n'
                         '    while (b + 1) * per_sequence <= free:\n'
                         '        b += 1\n'
                         '    return b'},
  'correct': False,
  'kind': 'C',
  'name': 'C-p1-float-quotient-corrected-up',
  'why': 'C: the other direction: a float quotient corrected only upwards'},
 {'cells': {'compute_bound_batch': 'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    # m * (2kn W - P e (k + n)) >= P e k n\n'
                                   '    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n'
                                   '    need = peak * bytes_per_value * k * n\n'
                                   '    if slope <= 0:\n'
                                   '        return None\n'
                                   '    m = math.ceil(need / slope)\n'
                                   '    if (m - 1) * slope >= need:\n'
                                   '        m -= 1\n'
                                   '    elif m * slope < need:\n'
                                   '        m += 1\n'
                                   '    return max(1, m)'},
  'correct': False,
  'kind': 'C',
  'name': 'C-p3-float-ceil-one-step-corrections',
  'why': "C: 'answer exactly': a float ceiling corrected by one step each way"},
 {'cells': {'merge_partials': 'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    top = torch.maximum(lse_a, lse_b)                      # finite: one piece sees a '
                              'key\n'
                              '    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)  # exp(-inf) = 0 for an '
                              'empty piece\n'
                              '    total = w_a + w_b\n'
                              "    # an empty piece's row may hold NaN or inf: replace it before the product (0 * NaN "
                              'is NaN, also in the\n'
                              '    # backward pass of a product masked afterwards)\n'
                              '    part_a = torch.where((w_a > 0)[:, None], o_a, 0.0) * w_a[:, None]\n'
                              '    part_b = torch.where((w_b > 0)[:, None], o_b, 0.0) * w_b[:, None]\n'
                              "    num = (part_a + part_b).to(o_a.dtype)  # unnormalised sum kept in o's dtype\n"
                              '    return (num / total[:, None]).to(o_a.dtype), (top + '
                              'torch.log(total)).to(lse_a.dtype)'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p2-numerator-in-half',
  'why': "A: the unnormalised numerator (up to twice |o|) rounded to float16: 'computed in float32 and rounded to "
         "float16 once'"},
 {'cells': {'merge_partials': 'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    low = torch.finfo(o_a.dtype).min  # a finite stand-in for an empty piece\n'
                              '    lse_a = torch.where(torch.isinf(lse_a), torch.full_like(lse_a, low), lse_a)\n'
                              '    lse_b = torch.where(torch.isinf(lse_b), torch.full_like(lse_b, low), lse_b)\n'
                              '    top = torch.maximum(lse_a, lse_b)\n'
                              '    w_a, w_b = torch.exp(lse_a - top), torch.exp(lse_b - top)  # exp(-inf) = 0 for an '
                              'empty piece\n'
                              '    total = w_a + w_b\n'
                              "    # an empty piece's row may hold NaN or inf: replace it before the product (0 * NaN "
                              'is NaN, also in the\n'
                              '    # backward pass of a product masked afterwards)\n'
                              '    part_a = torch.where((w_a > 0)[:, None], o_a, 0.0) * (w_a / total)[:, None]\n'
                              '    part_b = torch.where((w_b > 0)[:, None], o_b, 0.0) * (w_b / total)[:, None]\n'
                              '    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)'},
  'correct': False,
  'kind': 'F',
  'name': 'F-p2-finfo-of-o-dtype-for-minus-inf',
  'why': "F: 'no fixed bound may stand in for -inf': finfo of o's dtype (-65504 for float16) against float32 "
         'log-sum-exps'},
 {'cells': {'rms_norm_half': 'def rms_norm_half(x, eps=1e-6):\n'
                             '    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps)\n'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p4-squares-in-half',
  'why': 'A: squares of float16 past 65504 (rows of 300)'},
 {'cells': {'rms_norm_half': 'def rms_norm_half(x, eps=1e-6):\n'
                             '    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c '
                             'for any c > 0.\n'
                             '    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and '
                             'mean(s^2) + (sqrt(eps) / c)^2\n'
                             '    # is at least 1 / D: no square overflows, and the squares that underflow are too '
                             'small to count.\n'
                             '    root = math.sqrt(eps)\n'
                             '    # c cancels out of the result: detached, so that autograd does not add up its zero '
                             'gradient in 16 bits\n'
                             "    c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()  # in x's dtype, one "
                             'per row\n'
                             '    s = x / c\n'
                             '    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 '
                             'inside torch, rounded once\n'
                             '    r = torch.sqrt(mean_square + eps / (c * c))            # between 1 / sqrt(D) and '
                             'sqrt(2)\n'
                             '    # red team 11: s / r is not accurate enough where s is subnormal (a small element of '
                             'a row with a large one:\n'
                             '    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not '
                             'where the root mean square\n'
                             '    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest '
                             '|x|, or sqrt(eps) <= 1).\n'
                             '    rms = c * r\n'
                             '    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)'},
  'correct': False,
  'kind': 'A',
  'name': 'A-p4-eps-over-c-squared',
  'why': "A: c * c formed in 16 bits underflows/loses bits for small rows ('keep every number you form within its "
         "range')"},
 {'cells': {'rms_norm_half': 'def rms_norm_half(x, eps=1e-6):\n'
                             '    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c '
                             'for any c > 0.\n'
                             '    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and '
                             'mean(s^2) + (sqrt(eps) / c)^2\n'
                             '    # is at least 1 / D: no square overflows, and the squares that underflow are too '
                             'small to count.\n'
                             '    root = math.sqrt(eps)\n'
                             '    # c cancels out of the result: detached, so that autograd does not add up its zero '
                             'gradient in 16 bits\n'
                             "    c = (x * x).amax(dim=-1, keepdim=True).sqrt().clamp(min=root).detach()  # in x's "
                             'dtype, one per row\n'
                             '    s = x / c\n'
                             '    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 '
                             'inside torch, rounded once\n'
                             '    r = torch.sqrt(mean_square + (root / c) ** 2)            # between 1 / sqrt(D) and '
                             'sqrt(2)\n'
                             '    # red team 11: s / r is not accurate enough where s is subnormal (a small element of '
                             'a row with a large one:\n'
                             '    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not '
                             'where the root mean square\n'
                             '    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest '
                             '|x|, or sqrt(eps) <= 1).\n'
                             '    rms = c * r\n'
                             '    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p4-row-max-through-squares',
  'why': 'B: the largest |x| as the root of the largest square (overflows past 256 in float16)'},
 {'cells': {'rms_norm_half': 'def rms_norm_half(x, eps=1e-6):\n'
                             '    # x / sqrt(mean(x^2) + eps) = s / sqrt(mean(s^2) + (sqrt(eps) / c)^2) with s = x / c '
                             'for any c > 0.\n'
                             '    # c = max(max|x| of the row, sqrt(eps)) puts |s| <= 1 and sqrt(eps) / c <= 1, and '
                             'mean(s^2) + (sqrt(eps) / c)^2\n'
                             '    # is at least 1 / D: no square overflows, and the squares that underflow are too '
                             'small to count.\n'
                             '    root = math.sqrt(eps)\n'
                             '    # c cancels out of the result: detached, so that autograd does not add up its zero '
                             'gradient in 16 bits\n'
                             '    c = torch.linalg.vector_norm(x, dim=-1, keepdim=True).clamp(min=root).detach()  # in '
                             "x's dtype, one per row\n"
                             '    s = x / c\n'
                             '    mean_square = (s * s).mean(dim=-1, keepdim=True)         # accumulated in float32 '
                             'inside torch, rounded once\n'
                             '    r = torch.sqrt(mean_square + (root / c) ** 2)            # between 1 / sqrt(D) and '
                             'sqrt(2)\n'
                             '    # red team 11: s / r is not accurate enough where s is subnormal (a small element of '
                             'a row with a large one:\n'
                             '    # r near 1 / 64 multiplies its rounding error to 32 ulp), and x / (c * r) is not '
                             'where the root mean square\n'
                             '    # c * r is subnormal (rows of 1e-4). c * r never overflows (it is about the largest '
                             '|x|, or sqrt(eps) <= 1).\n'
                             '    rms = c * r\n'
                             '    return torch.where(rms >= torch.finfo(x.dtype).tiny, x / rms, s / r)'},
  'correct': False,
  'kind': 'B',
  'name': 'B-p4-row-norm-scale',
  'why': "B: the row's norm as the scale (a norm through squares overflows float16 at 65504)"},
 {'cells': {'quantize_asym': 'def quantize_asym(w, bits, group_size):\n'
                             '    out_f, in_f = w.shape\n'
                             '    top = 2 ** bits - 1\n'
                             '    groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)\n'
                             '    lo = groups.amin(dim=-1).clamp(max=0)\n'
                             '    hi = groups.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / top\n'
                             '    scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # a group of zeros\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(groups / scale[..., None]).to(torch.int8) + zero[..., '
                             'None].to(torch.int8), 0, top)\n'
                             '    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    out_f, in_f = q.shape\n'
                             '    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)  # (out, G, g)\n'
                             '    return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., '
                             'None]).reshape(out_f, in_f)'},
  'correct': False,
  'kind': 'D',
  'name': 'D-p5-rounded-codes-in-int8',
  'why': 'D: the rounded codes kept in int8 (wraps at 128) before adding the zero point; 8 bits reach 255'},
 {'cells': {'pack_bits': 'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    n_bytes = (cols * bits + 7) // 8\n'
                         '    stream = ((q.to(torch.int32)[:, :, None] >> torch.arange(bits, dtype=torch.int32)) & '
                         '1).reshape(rows, cols * bits)\n'
                         '    pos = torch.arange(cols * bits, dtype=torch.int16)  # the stream position of every bit\n'
                         '    out = torch.zeros(rows, n_bytes, dtype=torch.int32)\n'
                         '    out.index_add_(1, (pos // 8).long(), stream << (pos % 8).to(torch.int32))\n'
                         '    return out.to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows = packed.shape[0]\n'
                         '    pos = torch.arange(cols * bits, dtype=torch.int16)\n'
                         '    stream = (packed.to(torch.int32)[:, (pos // 8).long()] >> (pos % 8).to(torch.int32)) & '
                         '1\n'
                         '    return (stream.reshape(rows, cols, bits) << torch.arange(bits, '
                         'dtype=torch.int32)).sum(dim=-1).to(torch.uint8)\n'},
  'correct': False,
  'kind': 'D',
  'name': 'D-p6-bit-positions-in-int16',
  'why': "D: bit positions in int16 wrap past 32767 bits; 'Both functions must work for any cols >= 1'"},
 {'cells': {'pack_bits': 'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    n_bytes = (cols * bits + 7) // 8\n'
                         '    stream = ((q.to(torch.int32)[:, :, None] >> torch.arange(bits, dtype=torch.int32)) & '
                         '1).reshape(rows, cols * bits)\n'
                         '    pos = torch.arange(cols * bits, dtype=torch.uint8)  # the stream position of every bit\n'
                         '    out = torch.zeros(rows, n_bytes, dtype=torch.int32)\n'
                         '    out.index_add_(1, (pos // 8).long(), stream << (pos % 8).to(torch.int32))\n'
                         '    return out.to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows = packed.shape[0]\n'
                         '    pos = torch.arange(cols * bits, dtype=torch.uint8)\n'
                         '    stream = (packed.to(torch.int32)[:, (pos // 8).long()] >> (pos % 8).to(torch.int32)) & '
                         '1\n'
                         '    return (stream.reshape(rows, cols, bits) << torch.arange(bits, '
                         'dtype=torch.int32)).sum(dim=-1).to(torch.uint8)\n'},
  'correct': False,
  'kind': 'D',
  'name': 'D-p6-bit-positions-in-uint8',
  'why': 'D: bit positions in uint8 wrap past 255 bits'},
 {'cells': {'pack_bits': 'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    n_bytes = (cols * bits + 7) // 8\n'
                         '    stream = ((q.to(torch.int32)[:, :, None] >> torch.arange(bits, dtype=torch.int32)) & '
                         '1).reshape(rows, cols * bits)\n'
                         '    pos = torch.arange(cols * bits, dtype=torch.int64)  # the stream position of every bit\n'
                         '    out = torch.zeros(rows, n_bytes, dtype=torch.int32)\n'
                         '    out.index_add_(1, (pos // 8).long(), stream << (pos % 8).to(torch.int32))\n'
                         '    return out.to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows = packed.shape[0]\n'
                         '    pos = torch.arange(cols * bits, dtype=torch.int64)\n'
                         '    stream = (packed.to(torch.int32)[:, (pos // 8).long()] >> (pos % 8).to(torch.int32)) & '
                         '1\n'
                         '    return (stream.reshape(rows, cols, bits) << torch.arange(bits, '
                         'dtype=torch.int32)).sum(dim=-1).to(torch.uint8)\n'},
  'correct': True,
  'kind': 'ok',
  'name': 'ok-p6-bit-positions-in-int64',
  'why': 'control: the same with int64 positions'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds '
                               'nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T, dtype=torch.uint8)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n'
                               '        if causal:\n'
                               '            p = p.masked_fill(torch.arange(j0, j1, dtype=torch.uint8)[None, :] > pos, '
                               '0.0)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'D',
  'name': 'D-p7-positions-in-uint8',
  'why': 'D: positions in uint8 wrap at 256'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds '
                               'nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T, dtype=torch.int16)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n'
                               '        if causal:\n'
                               '            p = p.masked_fill(torch.arange(j0, j1, dtype=torch.int16)[None, :] > pos, '
                               '0.0)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'D',
  'name': 'D-p7-positions-in-int16',
  'why': 'D: positions in int16 wrap at 32768; the text: S stays below 2**24'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = torch.diagonal(d_out @ out.T)                # rowsum(dO * O): the sink '
                               'adds nothing (its value is 0)\n'
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
  'kind': 'E',
  'name': 'E-p7-delta-by-diagonal',
  'why': 'E: a (T, T) intermediate (rule 2)'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds '
                               'nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    hidden = torch.arange(stop)[None, :] > torch.arange(stop)[:, None]  # (stop, '
                               'stop)\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n'
                               '        if causal:\n'
                               '            p = p.masked_fill(hidden[offset:offset + T, j0:j1], 0.0)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'E',
  'name': 'E-p7-square-mask-table',
  'why': 'E: a (stop, stop) causal mask table sliced per tile (rule 2)'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds '
                               'nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n'
                               '        if causal:\n'
                               '            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * ((d_out[:, None, :] * vj[None, :, :]).sum(-1) - delta[:, None])  # '
                               '(T, b, Dv) then summed\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'E',
  'name': 'E-p7-broadcast-tile-product',
  'why': 'E: a (T, block, Dv) broadcast product per tile (rule 2)'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds '
                               'nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = q @ kj.T * scale\n'
                               '        if causal:\n'
                               '            s = s + (torch.arange(j0, j1)[None, :] > pos).to(s.dtype) * '
                               'torch.finfo(q.dtype).min  # 0 where seen\n'
                               '        p = torch.exp(s - lse[:, None])                          # (T, b)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'F',
  'name': 'F-p7-adds-finfo-min',
  'why': "F: Hugging Face's additive mask, finfo(dtype).min added to the scores: 'do not mask with a large negative "
         "number ... whether you fill it in or add it'; a masked key scoring far above the visible ones stays above "
         'them'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds '
                               'nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = q @ kj.T * scale\n'
                               '        if causal:\n'
                               '            s = s + (torch.arange(j0, j1)[None, :] > pos).to(s.dtype) * -1e30  # 0 '
                               'where seen\n'
                               '        p = torch.exp(s - lse[:, None])                          # (T, b)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'F',
  'name': 'F-p7-adds-minus-1e30',
  'why': 'F: -1e30 added to the masked scores'},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds '
                               'nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = q @ kj.T * scale\n'
                               '        if causal:\n'
                               '            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos, -1e30)\n'
                               '        p = torch.exp(s - lse[:, None])                          # (T, b)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': False,
  'kind': 'F',
  'name': 'F-p7-fills-minus-1e30',
  'why': "F: -1e30 filled in: 'scores and the sink have no lower bound'"},
 {'cells': {'chunk_attention': 'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, Dh = q.shape\n'
                               '    stop = offset + T if causal else k.shape[0]     # one past the last key any query '
                               'sees\n'
                               '    scale = 1.0 / math.sqrt(Dh)\n'
                               '    dq = torch.zeros_like(q)\n'
                               '    dk = torch.zeros_like(k)\n'
                               '    dv = torch.zeros_like(v)\n'
                               '    delta = (d_out * out).sum(dim=1)                # rowsum(dO * O): the sink adds '
                               'nothing (its value is 0)\n'
                               '    pos = torch.arange(offset, offset + T)[:, None]\n'
                               '    for j0 in range(0, stop, block):\n'
                               '        j1 = min(j0 + block, stop)\n'
                               '        kj, vj = k[j0:j1], v[j0:j1]\n'
                               '        s = q @ kj.T * scale\n'
                               '        if causal:\n'
                               '            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos, '
                               'torch.finfo(q.dtype).min)\n'
                               '        p = torch.exp(s - lse[:, None])                          # (T, b)\n'
                               '        dv[j0:j1] = p.T @ d_out                                 # (b, T) @ (T, Dv)\n'
                               '        ds = p * (d_out @ vj.T - delta[:, None])                # (T, b)\n'
                               '        dq += ds @ kj * scale\n'
                               '        dk[j0:j1] = ds.T @ q * scale\n'
                               '    # the sink is a logit with dP = 0: dsink = sum_i P_sink,i (0 - delta_i)\n'
                               '    dsink = -(torch.exp(sink - lse) * delta).sum()\n'
                               '    return dq, dk, dv, dsink'},
  'correct': True,
  'kind': 'ok',
  'name': 'ok-p7-fills-finfo-min',
  'why': 'control: finfo(dtype).min filled in (round 18: allowed, equivalent wherever P can be rebuilt)'},
 {'cells': {'split_kv_kernel': '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: '
                               'tl.constexpr, BLOCK_K: tl.constexpr):\n'
                               '    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    ok = rows < N\n'
                               '    acc = tl.zeros([BLOCK_N], tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)                                                     # '
                               '(BLOCK_K,)\n'
                               '        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=ok[:, '
                               'None], other=0)\n'
                               '        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15                # '
                               '(BLOCK_N, BLOCK_K)\n'
                               '        where = rows[:, None] * (K // GROUP) + cols[None, :] // GROUP               # '
                               'the group of each column\n'
                               '        scale = tl.load(Scale + where, mask=ok[:, None], other=0.0)\n'
                               '        zero = tl.load(Zero + where, mask=ok[:, None], other=0)\n'
                               '        w = (code.to(tl.uint8) - zero).to(tl.float32) * scale  # both bytes: subtract '
                               'before widening\n'
                               '        acc += tl.sum(w * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=ok)'},
  'correct': False,
  'kind': 'D',
  'name': 'D-p8-code-minus-zero-in-uint8',
  'why': 'D: code - zero in uint8 wraps where the code is below the zero point'},
 {'cells': {'split_kv_kernel': '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: '
                               'tl.constexpr, BLOCK_K: tl.constexpr):\n'
                               '    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    ok = rows < N\n'
                               '    acc = tl.zeros([BLOCK_N], tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)                                                     # '
                               '(BLOCK_K,)\n'
                               '        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=ok[:, '
                               'None], other=0)\n'
                               '        byte = byte.to(tl.int8)\n'
                               '        code = tl.where((cols[None, :] % 2) == 1, byte >> 4, byte & 15).to(tl.int32)  '
                               '# high nibble by a shift alone\n'
                               '        where = rows[:, None] * (K // GROUP) + cols[None, :] // GROUP               # '
                               'the group of each column\n'
                               '        scale = tl.load(Scale + where, mask=ok[:, None], other=0.0)\n'
                               '        zero = tl.load(Zero + where, mask=ok[:, None], other=0).to(tl.float32)\n'
                               '        w = (code.to(tl.float32) - zero) * scale\n'
                               '        acc += tl.sum(w * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=ok)'},
  'correct': False,
  'kind': 'D',
  'name': 'D-p8-high-nibble-from-int8',
  'why': 'D: the byte kept as int8: a high nibble of 8 and more comes out negative from the shift'},
 {'cells': {'split_kv_kernel': '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: '
                               'tl.constexpr, BLOCK_K: tl.constexpr):\n'
                               '    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    ok = rows < N\n'
                               '    acc = tl.zeros([BLOCK_N], tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)                                                     # '
                               '(BLOCK_K,)\n'
                               '        byte = tl.load(W + rows[:, None] * (K // 2) + cols[None, :] // 2, mask=ok[:, '
                               'None], other=0)\n'
                               '        code = (byte.to(tl.int8).to(tl.int32) >> ((cols[None, :] % 2) * 4)) & '
                               '15                # (BLOCK_N, BLOCK_K)\n'
                               '        where = rows[:, None] * (K // GROUP) + cols[None, :] // GROUP               # '
                               'the group of each column\n'
                               '        scale = tl.load(Scale + where, mask=ok[:, None], other=0.0)\n'
                               '        zero = tl.load(Zero + where, mask=ok[:, None], other=0).to(tl.float32)\n'
                               '        w = (code.to(tl.float32) - zero) * scale\n'
                               '        acc += tl.sum(w * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=ok)'},
  'correct': True,
  'kind': 'D',
  'name': 'D-p8-byte-as-int8',
  'why': 'allowed (equivalent): the byte read as int8 is sign-extended, but the & 15 after the arithmetic shift keeps '
         "exactly the nibble's bits"}]
