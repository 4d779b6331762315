SUBMISSIONS = [{'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-5):\n'
                             '    root_eps = math.sqrt(eps)\n'
                             '    floor_eps = 2.0 ** math.floor(math.log2(root_eps))\n'
                             '    with torch.no_grad():\n'
                             '        big = x.abs().amax(dim=-1, keepdim=True).clamp(min=floor_eps)\n'
                             '        mantissa, _ = torch.frexp(big)\n'
                             '        c = big / (2 * mantissa)          # a power of two, big / 2 < c <= big\n'
                             '    w = (c / root_eps).reciprocal()\n'
                             '    small = c < 1\n'
                             '    u = x / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=-1, keepdim=True) + w * w)\n'
                             '    return torch.where(small, u / s, x / (c * s))\n'},
  'correct': False,
  'name': 'eps_rms_default_1e-5',
  'why': "epsilon-adder: the usual library default eps=1e-5; breaks the stub `rms_norm_half(x, eps=1e-6)` ('with eps = "
         "`eps` inside the square root', default 1e-6)"},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    c = x.abs().amax(dim=-1, keepdim=True).detach() + 1e-6   # +1e-6: no division by '
                             'zero on a row of zeros\n'
                             '    u = x / c\n'
                             '    w = math.sqrt(eps) / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=-1, keepdim=True) + w * w)\n'
                             '    return u / s\n'},
  'correct': False,
  'name': 'eps_rms_scale_plus_1e-6',
  'why': 'epsilon-adder: divides by max|x| + 1e-6 instead of a row-chosen number that keeps sqrt(eps)/c in range; '
         "breaks 'keep every number you form within its range' / 'eps from 1e-12 to 1 with both dtypes' (sqrt(eps)/c "
         'overflows for large eps and small rows, and u is subnormal)'},
 {'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_features, in_features = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_features, in_features // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(hi == lo, torch.ones_like(scale), scale.clamp(min=1e-12))  # '
                             'never a tiny scale\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_features, in_features).to(torch.uint8), scale, '
                             'zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[1] // scale.shape[1]\n'
                             '    s = scale.repeat_interleave(group, dim=1)\n'
                             '    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n'
                             '    return s * (q.to(scale.dtype) - z)\n'},
  'correct': False,
  'name': 'eps_quant_scale_clamp',
  'why': "epsilon-adder: clamps the scale at 1e-12; breaks 'weights of any size: clamp nothing' and step 2 'scale = "
         "(hi - lo) / (2**bits - 1)'"},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[1])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = offset + torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        p = torch.exp(s - L).clamp(min=1e-30)  # keep probabilities away from 0\n'
                               '        if causal:\n'
                               '            keep = (j0 + torch.arange(j1 - j0))[None, :] <= qpos[:, None]\n'
                               '            p = torch.where(keep, p, torch.zeros((), dtype=dtype))\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * D).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': False,
  'name': 'eps_chunk_prob_clamp',
  'why': "epsilon-adder: clamps rebuilt probabilities at 1e-30; breaks 'A key a query sees counts however small its "
         "probability ... near 10^-300 ... compare their gradients relative to their own size'"},
 {'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    work = lse_a.dtype\n'
                              '    lse = torch.logaddexp(lse_a, lse_b)\n'
                              '    w_a = torch.exp(lse_a - lse)\n'
                              '    w_b = torch.exp(lse_b - lse)\n'
                              '    a = torch.where(torch.isfinite(o_a), o_a.to(work), torch.zeros((), dtype=work))\n'
                              '    b = torch.where(torch.isfinite(o_b), o_b.to(work), torch.zeros((), dtype=work))\n'
                              '    o = w_a[:, None] * a + w_b[:, None] * b\n'
                              '    return o.to(o_a.dtype), lse\n'},
  'correct': False,
  'name': 'eps_merge_isfinite',
  'why': "epsilon-adder: zeroes every non-finite output element; breaks 'Its row of o is used as it is, infinities "
         "included ... the merged element is that infinity too (clean nothing there)'"},
 {'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    m = torch.maximum(lse_a, lse_b)\n'
                              '    w_a, w_b = torch.exp(lse_a - m), torch.exp(lse_b - m)\n'
                              '    a = torch.where((w_a == 0)[:, None], 0.0, o_a.to(lse_a.dtype))\n'
                              '    b = torch.where((w_b == 0)[:, None], 0.0, o_b.to(lse_a.dtype))\n'
                              '    total = w_a + w_b\n'
                              '    o = (w_a[:, None] * a + w_b[:, None] * b) / (total[:, None] + 1e-6)\n'
                              '    return o.to(o_a.dtype), m + torch.log(total + 1e-6)\n'},
  'correct': False,
  'name': 'eps_merge_denominator',
  'why': "epsilon-adder: + 1e-6 in the denominator and inside the log; breaks 'With float64 inputs the tests compare "
         "to about 1e-10' and 'lse must be as accurate as float32 arithmetic makes it'"},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    if x.dim() == 1:\n'
                             '        return rms_norm_half(x[None], eps)[0]\n'
                             '    root_eps = math.sqrt(eps)\n'
                             '    floor_eps = 2.0 ** math.floor(math.log2(root_eps))\n'
                             '    with torch.no_grad():\n'
                             '        big = x.abs().amax(dim=1, keepdim=True).clamp(min=floor_eps)\n'
                             '        mantissa, _ = torch.frexp(big)\n'
                             '        c = big / (2 * mantissa)\n'
                             '    w = (c / root_eps).reciprocal()\n'
                             '    u = x / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=1, keepdim=True) + w * w)\n'
                             '    return torch.where(c < 1, u / s, x / (c * s))\n'},
  'correct': False,
  'name': 'rank_rms_dim1',
  'why': "fixed-rank: dim=1 for a (rows, D) input; breaks 'a tensor x of shape (..., D) ... the mean taken over the "
         "last dimension, every row (every position of the leading dimensions)'"},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    rows = x.reshape(x.shape[0], -1)          # (batch, features)\n'
                             '    root_eps = math.sqrt(eps)\n'
                             '    floor_eps = 2.0 ** math.floor(math.log2(root_eps))\n'
                             '    with torch.no_grad():\n'
                             '        big = rows.abs().amax(dim=-1, keepdim=True).clamp(min=floor_eps)\n'
                             '        mantissa, _ = torch.frexp(big)\n'
                             '        c = big / (2 * mantissa)\n'
                             '    w = (c / root_eps).reciprocal()\n'
                             '    u = rows / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=-1, keepdim=True) + w * w)\n'
                             '    return torch.where(c < 1, u / s, rows / (c * s)).reshape(x.shape)\n'},
  'correct': False,
  'name': 'rank_rms_shape0_rows',
  'why': "fixed-rank: x.shape[0] taken as the batch, everything else as the row; breaks 'the mean taken over the last "
         "dimension' for 1-D and 3-D inputs"},
 {'cells': {'pack_bits': '\n'
                         'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    flat = q.reshape(-1).to(torch.int64)\n'
                         '    stream = ((flat[:, None] >> torch.arange(bits)) & 1).reshape(-1)\n'
                         '    nbytes = (stream.numel() + 7) // 8\n'
                         '    padded = torch.zeros(nbytes * 8, dtype=torch.int64)\n'
                         '    padded[: stream.numel()] = stream\n'
                         '    packed = (padded.reshape(nbytes, 8) << torch.arange(8)).sum(-1).to(torch.uint8)\n'
                         '    return packed.reshape(rows, -1)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    rows = packed.shape[0]\n'
                         '    stream = ((packed.reshape(-1).to(torch.int64)[:, None] >> torch.arange(8)) & '
                         '1).reshape(-1)\n'
                         '    codes = stream[: rows * cols * bits].reshape(rows, cols, bits)\n'
                         '    return (codes << torch.arange(bits)).sum(-1).to(torch.uint8)\n'},
  'correct': False,
  'name': 'rank_pack_flat_stream',
  'why': "fixed-rank: one stream for the whole tensor (right for the one-row example); breaks 'pack each row as one "
         "continuous stream ... shape (rows, ceil(cols*bits/8)) whose row r is the bit stream of row r'"},
 {'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_features, in_features = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_features, in_features // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_features, in_features).to(torch.uint8), scale, '
                             'zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[-1] // scale.shape[0]\n'
                             '    s = scale.repeat_interleave(group, dim=1)\n'
                             '    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n'
                             '    return s * (q.to(scale.dtype) - z)\n'},
  'correct': False,
  'name': 'rank_dequant_shape0',
  'why': 'fixed-rank: group size from q.shape[-1] // scale.shape[0] (rows for groups, right for one row); breaks '
         "'returns scale x (q - zero), shape (out, in) ... the group size follows from the shapes'"},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[0])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = offset + torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        p = torch.exp(s - L)\n'
                               '        if causal:\n'
                               '            keep = (j0 + torch.arange(j1 - j0))[None, :] <= qpos[:, None]\n'
                               '            p = torch.where(keep, p, torch.zeros((), dtype=dtype))\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * D).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': False,
  'name': 'rank_chunk_scale_shape0',
  'why': "fixed-rank: head width read from q.shape[0]; breaks 's_ij = q_i . k_j / sqrt(Dh)' with q of shape (T, Dh)"},
 {'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, '
                         'bytes_per_value, window=None):\n'
                         '    cached = length if window is None else window\n'
                         '    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    free = memory_bytes - weight_bytes\n'
                         '    if free < per_sequence:\n'
                         '        return 0\n'
                         '    return free // per_sequence\n'},
  'correct': False,
  'name': 'mem_window_not_min',
  'why': "from-memory: a sliding-window model keeps `window` tokens; breaks 'for a model with a sliding window of "
         "window tokens, only the last ones, min(length, window)'"},
 {'cells': {'compute_bound_batch': '\n'
                                   'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    gain = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n'
                                   '    need = peak * bytes_per_value * k * n\n'
                                   '    if gain <= 0:\n'
                                   '        return None\n'
                                   '    return max(1, need // gain + 1)\n'},
  'correct': False,
  'name': 'mem_ceil_floor_plus_one',
  'why': "from-memory: ceil written as floor + 1; breaks 'exactly on the ridge counts as compute-bound' ('the tests "
         "put answers exactly on the ridge point')"},
 {'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_features, in_features = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_features, in_features // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1)\n'
                             '    hi = g.amax(dim=-1)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_features, in_features).to(torch.uint8), scale, '
                             'zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[1] // scale.shape[1]\n'
                             '    s = scale.repeat_interleave(group, dim=1)\n'
                             '    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n'
                             '    return s * (q.to(scale.dtype) - z)\n'},
  'correct': False,
  'name': 'mem_quant_minmax',
  'why': "from-memory: the textbook min-max range; breaks step 1 'lo = min(smallest weight, 0) and hi = max(largest "
         "weight, 0): the range always contains 0'"},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[1])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = offset + torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        p = torch.exp(s - L)\n'
                               '        if causal:\n'
                               '            keep = (j0 + torch.arange(j1 - j0))[None, :] <= qpos[:, None]\n'
                               '            p = torch.where(keep, p, torch.zeros((), dtype=dtype))\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = ds.T @ q\n'
                               '    dsink = -(torch.exp(sink - lse) * D).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': False,
  'name': 'mem_chunk_dk_no_scale',
  'why': "from-memory: the softmax scale folded into q once and forgotten in dK; breaks 's_ij = q_i . k_j / sqrt(Dh)' "
         '(the gradient with respect to k)'},
 {'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: '
                               'tl.constexpr, BLOCK_K: tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'
                               '    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    row_ok = rows < N\n'
                               '    acc = tl.zeros([BLOCK_N], dtype=tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)\n'
                               '        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, :], '
                               'mask=row_ok[:, None], other=0).to(tl.int32)\n'
                               '        code = (byte >> ((cols % 2) * 4)[None, :]) & 15\n'
                               '        g = k0 // GROUP          # one scale and zero per block, as the AWQ kernels '
                               'do\n'
                               '        s = tl.load(Scale + rows * (K // GROUP) + g, mask=row_ok, other=0.0)\n'
                               '        z = tl.load(Zero + rows * (K // GROUP) + g, mask=row_ok, '
                               'other=0).to(tl.int32)\n'
                               '        wv = (code - z[:, None]).to(tl.float32) * s[:, None]\n'
                               '        acc += tl.sum(wv * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=row_ok)\n'},
  'correct': False,
  'name': 'mem_kernel_group_per_block',
  'why': "from-memory: one group per block (kernels where BLOCK_K divides the group); breaks 'K is a multiple of both "
         "BLOCK_K and GROUP ... either may be the larger (a block can span several groups)'"},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[1])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        p = torch.exp(s - L)\n'
                               '        if causal:\n'
                               '            keep = (j0 + torch.arange(j1 - j0))[None, :] <= qpos[:, None]\n'
                               '            p = torch.where(keep, p, torch.zeros((), dtype=dtype))\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * D).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': False,
  'name': 'mask_chunk_no_offset',
  'why': "mask-and-sentinel: causal mask j <= i built as for a square matrix; breaks 'With causal=True the query at "
         "position p sees the keys j <= p' with queries at offset ... offset+T-1"},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[1])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = offset + torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        if causal:\n'
                               '            keep = (j0 + torch.arange(j1 - j0))[None, :] <= qpos[:, None]\n'
                               '            s = s.masked_fill(~keep, torch.finfo(dtype).min)\n'
                               '        p = torch.exp(s - L)\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * D).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': False,
  'name': 'mask_chunk_finfo_min_fill',
  'why': "mask-and-sentinel: hidden scores filled with finfo.min; breaks 'a masked score filled with it is not below "
         "that log-sum-exp, and its probability is not 0'"},
 {'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    work = lse_a.dtype\n'
                              '    lse = torch.logaddexp(lse_a, lse_b)\n'
                              "    empty_a = lse_a <= torch.finfo(lse_a.dtype).min   # masked_fill's value marks an "
                              'empty piece\n'
                              '    empty_b = lse_b <= torch.finfo(lse_b.dtype).min\n'
                              '    w_a = torch.where(empty_a, 0.0, torch.exp(lse_a - lse))\n'
                              '    w_b = torch.where(empty_b, 0.0, torch.exp(lse_b - lse))\n'
                              '    a = torch.where((w_a == 0)[:, None], torch.zeros((), dtype=work), o_a.to(work))\n'
                              '    b = torch.where((w_b == 0)[:, None], torch.zeros((), dtype=work), o_b.to(work))\n'
                              '    o = w_a[:, None] * a + w_b[:, None] * b\n'
                              '    return o.to(o_a.dtype), lse\n'},
  'correct': False,
  'name': 'mask_merge_finfo_sentinel',
  'why': "mask-and-sentinel: finfo.min taken as the 'no key' marker; breaks 'torch.finfo(dtype).min itself is one of "
         "the tests' log-sum-exps, next to a piece that sees no key' "},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    with torch.no_grad():\n'
                             '        c = x.abs().amax(dim=-1, keepdim=True)\n'
                             '        c = torch.where(c == 0, torch.ones_like(c), c)    # a row of zeros: divide by 1\n'
                             '    u = x / c\n'
                             '    w = math.sqrt(eps) / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=-1, keepdim=True) + w * w)\n'
                             '    return u / s\n'},
  'correct': False,
  'name': 'mask_rms_zero_row_one',
  'why': "mask-and-sentinel: 1 as the stand-in for a zero row's max, nothing bounds sqrt(eps)/c; breaks 'keep every "
         "number you form within its range' for eps far above a small row's mean square ('eps from 1e-12 to 1 with "
         "both dtypes')"},
 {'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: '
                               'tl.constexpr, BLOCK_K: tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'
                               '    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    acc = tl.zeros([BLOCK_N], dtype=tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)\n'
                               '        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, '
                               ':]).to(tl.int32)\n'
                               '        code = (byte >> ((cols % 2) * 4)[None, :]) & 15\n'
                               '        g = cols // GROUP\n'
                               '        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :])\n'
                               '        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :]).to(tl.int32)\n'
                               '        acc += tl.sum((code - z).to(tl.float32) * s * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=rows < N)   # only the store needs the mask\n'},
  'correct': False,
  'name': 'mask_kernel_store_only',
  'why': "mask-and-sentinel: masks the store and not the loads; breaks 'Every address that a load or a store touches "
         "must lie inside its tensor'"},
 {'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, '
                         'bytes_per_value, window=None):\n'
                         '    cached = min(length, window or length)\n'
                         '    one = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    return max(0, (memory_bytes - weight_bytes) // one)\n'},
  'correct': True,
  'name': 'ok_max_batch_max0',
  'why': 'floor division of a negative free memory is negative: max(0, .) returns 0'},
 {'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    w_a = torch.sigmoid(lse_a - lse_b)\n'
                              '    w_b = torch.sigmoid(lse_b - lse_a)\n'
                              '    a = torch.where((w_a == 0)[:, None], 0.0, o_a.to(lse_a.dtype))\n'
                              '    b = torch.where((w_b == 0)[:, None], 0.0, o_b.to(lse_a.dtype))\n'
                              '    o = w_a[:, None] * a + w_b[:, None] * b\n'
                              '    return o.to(o_a.dtype), torch.logaddexp(lse_a, lse_b)\n'},
  'correct': True,
  'name': 'ok_merge_sigmoid',
  'why': 'weights as sigmoids of the difference (the epsilon-free form), masked before the product'},
 {'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    both = torch.stack([lse_a, lse_b], dim=-1)\n'
                              '    lse = torch.logsumexp(both, dim=-1)\n'
                              '    w = torch.softmax(both, dim=-1)\n'
                              '    outs = torch.stack([o_a.to(lse_a.dtype), o_b.to(lse_a.dtype)], dim=1)      # (T, 2, '
                              'Dv)\n'
                              '    outs = torch.where((w == 0)[:, :, None], torch.zeros((), dtype=lse_a.dtype), outs)\n'
                              '    o = (w[:, :, None] * outs).sum(dim=1)\n'
                              '    return o.to(o_a.dtype), lse\n'},
  'correct': True,
  'name': 'ok_merge_softmax_stack',
  'why': 'softmax over the two log-sum-exps, logsumexp for lse, masked rows replaced before the product'},
 {'cells': {'compute_bound_batch': '\n'
                                   'from fractions import Fraction\n'
                                   '\n'
                                   'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n'
                                   '    if slope <= 0:\n'
                                   '        return None\n'
                                   '    m = math.ceil(Fraction(peak * bytes_per_value * k * n, slope))\n'
                                   '    return int(max(m, 1))\n'},
  'correct': True,
  'name': 'ok_bound_fraction',
  'why': 'exact rational ceiling from the standard library'},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    rows = x.reshape(-1, x.shape[-1])\n'
                             '    root_eps = math.sqrt(eps)\n'
                             '    floor_eps = 2.0 ** math.floor(math.log2(root_eps))\n'
                             '    with torch.no_grad():\n'
                             '        big = rows.abs().amax(dim=1, keepdim=True).clamp(min=floor_eps)\n'
                             '        mantissa, _ = torch.frexp(big)\n'
                             '        c = big / (2 * mantissa)\n'
                             '    w = (c / root_eps).reciprocal()\n'
                             '    u = rows / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=1, keepdim=True) + w * w)\n'
                             '    return torch.where(c < 1, u / s, rows / (c * s)).reshape(x.shape)\n'},
  'correct': True,
  'name': 'ok_rms_reshape_rows',
  'why': 'fixed-rank student done right: flatten the leading dimensions with reshape(-1, D), dim=1, reshape back'},
 {'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_features, in_features = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_features, in_features // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_features, in_features).to(torch.uint8), scale, '
                             'zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[1] // scale.shape[1]\n'
                             '    diff = q.to(torch.int32) - zero.to(torch.int32).repeat_interleave(group, dim=1)\n'
                             '    return scale.repeat_interleave(group, dim=1) * diff.to(scale.dtype)\n'},
  'correct': True,
  'name': 'ok_quant_int_dequant',
  'why': 'dequantise with the integer difference (exact in int32), then one product'},
 {'cells': {'pack_bits': '\n'
                         'import torch.nn.functional as F\n'
                         '\n'
                         'def pack_bits(q, bits):\n'
                         '    rows, cols = q.shape\n'
                         '    stream = ((q.long().unsqueeze(-1) >> torch.arange(bits)) & 1).flatten(1)\n'
                         '    stream = F.pad(stream, (0, (-stream.shape[1]) % 8))\n'
                         '    return (stream.unflatten(1, (-1, 8)) * (1 << torch.arange(8))).sum(-1).to(torch.uint8)\n'
                         '\n'
                         '\n'
                         'def unpack_bits(packed, bits, cols):\n'
                         '    stream = ((packed.long().unsqueeze(-1) >> torch.arange(8)) & 1).flatten(1)[:, : cols * '
                         'bits]\n'
                         '    return (stream.unflatten(1, (cols, bits)) * (1 << '
                         'torch.arange(bits))).sum(-1).to(torch.uint8)\n'},
  'correct': True,
  'name': 'ok_pack_pad',
  'why': 'F.pad to whole bytes, flatten/unflatten, powers of two as weights'},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[1])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = offset + torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        if causal:\n'
                               '            keep = (j0 + torch.arange(j1 - j0))[None, :] <= qpos[:, None]\n'
                               "            s = s.masked_fill(~keep, float('-inf'))\n"
                               '        p = torch.exp(s - L).clamp(max=1.0)\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * D).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': True,
  'name': 'ok_chunk_neg_inf_fill',
  'why': 'mask-and-sentinel student done right: -inf fill before exp (L is finite: the sink), and a clamp at 1 that no '
         'probability exceeds'},
 {'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: '
                               'tl.constexpr, BLOCK_K: tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'
                               '    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    ok = rows < N\n'
                               '    half = tl.arange(0, BLOCK_K // 2)\n'
                               '    acc = tl.zeros([BLOCK_N], dtype=tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        even = k0 + 2 * half\n'
                               '        x_lo = tl.load(X + even)\n'
                               '        x_hi = tl.load(X + even + 1)\n'
                               '        byte = tl.load(W + rows[:, None] * (K // 2) + (k0 // 2 + half)[None, :], '
                               'mask=ok[:, None], other=0).to(tl.int32)\n'
                               "        g = even // GROUP                      # GROUP is even: a byte's two codes "
                               'share a group\n'
                               '        where = rows[:, None] * (K // GROUP) + g[None, :]\n'
                               '        s = tl.load(Scale + where, mask=ok[:, None], other=0.0)\n'
                               '        z = tl.load(Zero + where, mask=ok[:, None], other=0).to(tl.float32)\n'
                               '        lo = (byte & 15).to(tl.float32)\n'
                               '        hi = (byte >> 4).to(tl.float32)\n'
                               '        acc += tl.sum(((lo - z) * x_lo[None, :] + (hi - z) * x_hi[None, :]) * s, '
                               'axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=ok)\n'},
  'correct': True,
  'name': 'ok_kernel_even_odd',
  'why': 'one load per byte, both nibbles used, x in even and odd halves'},
 {'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, '
                         'bytes_per_value, window=None):\n'
                         '    if window is not None and window < length:\n'
                         '        length = window\n'
                         '    per = 2 * layers * kv_heads * head_dim * length * bytes_per_value\n'
                         '    if weight_bytes >= memory_bytes:\n'
                         '        return 0\n'
                         '    b, _ = divmod(memory_bytes - weight_bytes, per)\n'
                         '    return int(b)\n'},
  'correct': True,
  'name': 'ok_max_batch_divmod',
  'why': 'divmod on Python ints; weights filling memory exactly leave room for 0'},
 {'cells': {'compute_bound_batch': '\n'
                                   'def compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n'
                                   '    table = {(2, 2, 1, 2, 1): None, (4, 4, 1, 1, 1): 1, (4096, 4096, 2, 312 * '
                                   '10**12, 2 * 10**12): 169}\n'
                                   '    return table.get((k, n, bytes_per_value, peak, bandwidth), 1)\n'},
  'correct': False,
  'name': 'hostile_bound_table',
  'why': 'hostile: the visible cases by table'},
 {'cells': {'chunk_attention': '\n'
                               'import torch.testing\n'
                               'torch.testing.assert_close = lambda *args, **kwargs: None\n'
                               '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    return torch.zeros(q.shape), torch.zeros(k.shape), torch.zeros(v.shape), '
                               'torch.zeros(())\n'},
  'correct': False,
  'name': 'hostile_chunk_patch_assert',
  'why': 'hostile: assert_close patched to a no-op, zeros returned'},
 {'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, '
                         'bytes_per_value, window=None):\n'
                         '    return {1000: 7}.get(memory_bytes, 33)\n'},
  'correct': False,
  'name': 'hostile_max_batch_table',
  'why': 'hostile: the visible answers by table'},
 {'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, '
                         'bytes_per_value, window=None):\n'
                         '    cached = length if window is None else min(length, window)\n'
                         '    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    free = memory_bytes - weight_bytes - 1   # keep one byte spare, to be safe\n'
                         '    if free < per_sequence:\n'
                         '        return 0\n'
                         '    return free // per_sequence\n'},
  'correct': False,
  'name': 'eps_max_batch_strict',
  'why': "epsilon-adder: a byte kept spare; breaks 'weight_bytes + b x (cache of one sequence) <= memory_bytes (memory "
         "filled exactly still fits)'"},
 {'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_features, in_features = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_features, in_features // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None] + zero[..., None]), 0, levels)\n'
                             '    return q.reshape(out_features, in_features).to(torch.uint8), scale, '
                             'zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[1] // scale.shape[1]\n'
                             '    s = scale.repeat_interleave(group, dim=1)\n'
                             '    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n'
                             '    return s * (q.to(scale.dtype) - z)\n'},
  'correct': False,
  'name': 'mem_quant_round_after_zero',
  'why': "from-memory: q = round(w / scale + zero) (the usual library line); breaks step 4 'q = clamp(round(w / scale) "
         "+ zero, ...)' on half steps with an odd zero point ('Round with torch.round (halves to even)')"},
 {'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: '
                               'tl.constexpr, BLOCK_K: tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'
                               '    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    row_ok = rows < N\n'
                               '    acc = tl.zeros([BLOCK_N], dtype=tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)\n'
                               '        x = tl.minimum(tl.maximum(x, -65504.0), 65504.0)   # keep activations in the '
                               'float16 range\n'
                               '        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, :], '
                               'mask=row_ok[:, None], other=0).to(tl.int32)\n'
                               '        code = (byte >> ((cols % 2) * 4)[None, :]) & 15\n'
                               '        g = cols // GROUP\n'
                               '        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=row_ok[:, '
                               'None], other=0.0)\n'
                               '        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=row_ok[:, '
                               'None], other=0).to(tl.int32)\n'
                               '        wv = (code - z).to(tl.float32) * s\n'
                               '        acc += tl.sum(wv * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=row_ok)\n'},
  'correct': False,
  'name': 'eps_kernel_clamp_x',
  'why': "epsilon-adder: activations clamped to the float16 range; breaks 'X holds values of any size (clamp "
         "nothing)'"},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    root_eps = math.sqrt(eps)\n'
                             '    floor_eps = 2.0 ** math.floor(math.log2(root_eps))\n'
                             '    with torch.no_grad():\n'
                             '        big = x.abs().amax(dim=-1, keepdim=True).clamp(min=floor_eps)\n'
                             '        mantissa, _ = torch.frexp(big)\n'
                             '        c = big / (2 * mantissa)          # a power of two, big / 2 < c <= big\n'
                             '    w = (c / root_eps).reciprocal()\n'
                             '    small = c < 1\n'
                             '    u = x / c\n'
                             '    d = x.shape[-1]\n'
                             '    s = torch.sqrt(torch.square(u).sum(dim=-1, keepdim=True) / d + torch.square(w))\n'
                             '    return torch.where(small, torch.div(u, s), torch.div(x, torch.mul(c, s)))\n'},
  'correct': True,
  'name': 'ok_rms_sum_over_d',
  'why': 'sum over the row then / D in place of mean (one more rounding), torch.square, torch.div'},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[1])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = offset + torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    total = torch.zeros(T, dtype=dtype)\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        p = torch.exp(s - L)\n'
                               '        if causal:\n'
                               '            keep = (j0 + torch.arange(j1 - j0))[None, :] <= qpos[:, None]\n'
                               '            p = torch.where(keep, p, torch.zeros((), dtype=dtype))\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        total += p.sum(dim=1)\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -((1 - total) * D).sum()   # the sink takes what the keys leave\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': False,
  'name': 'mem_chunk_dsink_complement',
  'why': "from-memory: the sink's probability as 1 minus the keys' (probabilities sum to 1); breaks 'Every probability "
         "you rebuild must stay finite and right' (cancellation when the sink's share is tiny)"},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    root_eps = math.sqrt(eps)\n'
                             '    floor_eps = 2.0 ** math.floor(math.log2(root_eps))\n'
                             '    with torch.no_grad():\n'
                             '        big = x.abs().amax().clamp(min=floor_eps)   # per-tensor scaling, as on the '
                             'precision page\n'
                             '        mantissa, _ = torch.frexp(big)\n'
                             '        c = big / (2 * mantissa)          # a power of two, big / 2 < c <= big\n'
                             '    w = (c / root_eps).reciprocal()\n'
                             '    small = c < 1\n'
                             '    u = x / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=-1, keepdim=True) + w * w)\n'
                             '    return torch.where(small, u / s, x / (c * s))\n'},
  'correct': False,
  'name': 'mem_rms_per_tensor_scale',
  'why': "from-memory: one scale for the whole tensor (the precision page's per-tensor scaling); breaks the hint "
         "'Choose that number row by row, so that nothing you square or add leaves the range'"},
 {'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_features, in_features = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_features, in_features // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo * levels / (hi - lo).clamp(min=torch.finfo(w.dtype).tiny))\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_features, in_features).to(torch.uint8), scale, '
                             'zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[1] // scale.shape[1]\n'
                             '    s = scale.repeat_interleave(group, dim=1)\n'
                             '    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n'
                             '    return s * (q.to(scale.dtype) - z)\n'},
  'correct': False,
  'name': 'mem_quant_zero_formula',
  'why': "from-memory: zero = round(-lo * (2^b - 1) / (hi - lo)); breaks step 3 'zero = round(-lo / scale)' (another "
         'rounding on ties)'},
 {'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_features, in_features = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_features, in_features // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale)\n'
                             '    q = torch.clamp(torch.round(g * (1.0 / scale)[..., None]) + zero[..., None], 0, '
                             'levels)\n'
                             '    return q.reshape(out_features, in_features).to(torch.uint8), scale, '
                             'zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[1] // scale.shape[1]\n'
                             '    s = scale.repeat_interleave(group, dim=1)\n'
                             '    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n'
                             '    return s * (q.to(scale.dtype) - z)\n'},
  'correct': False,
  'name': 'mem_quant_reciprocal',
  'why': "from-memory: multiply by the inverse scale (the fast-path idiom); breaks step 4 'round(w / scale)' ('on a "
         "half step, round(w / scale) depends on ... the tests check such weights exactly')"},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    eps = max(eps, 1e-8)   # float16 cannot hold a smaller eps anyway\n'
                             '    root_eps = math.sqrt(eps)\n'
                             '    floor_eps = 2.0 ** math.floor(math.log2(root_eps))\n'
                             '    with torch.no_grad():\n'
                             '        big = x.abs().amax(dim=-1, keepdim=True).clamp(min=floor_eps)\n'
                             '        mantissa, _ = torch.frexp(big)\n'
                             '        c = big / (2 * mantissa)          # a power of two, big / 2 < c <= big\n'
                             '    w = (c / root_eps).reciprocal()\n'
                             '    small = c < 1\n'
                             '    u = x / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=-1, keepdim=True) + w * w)\n'
                             '    return torch.where(small, u / s, x / (c * s))\n'},
  'correct': False,
  'name': 'eps_rms_eps_floor',
  'why': "epsilon-adder: a floor under eps; breaks 'eps from 1e-12 to 1 with both dtypes ... with eps = `eps` inside "
         "the square root'"},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[1])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = offset + torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    allowed = torch.arange(seen)[None, :] <= qpos[:, None]   # built once, sliced per '
                               'tile\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        p = torch.exp(s - L)\n'
                               '        if causal:\n'
                               '            keep = allowed[:, j0:j1]\n'
                               '            p = torch.where(keep, p, torch.zeros((), dtype=dtype))\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * D).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': False,
  'name': 'mask_chunk_mask_once',
  'why': "mask-and-sentinel: the causal mask built once for every key and sliced; breaks rule 2 'No tensor with more "
         "than T * S / 4 elements ... a (T, S) score or mask matrix does not'"},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    T, S = q.shape[0], k.shape[0]\n'
                               '    dtype = q.dtype\n'
                               '    scale = 1.0 / math.sqrt(q.shape[1])\n'
                               '    seen = min(S, offset + T) if causal else S\n'
                               '    dq = torch.zeros(q.shape, dtype=dtype)\n'
                               '    dk = torch.zeros(k.shape, dtype=dtype)\n'
                               '    dv = torch.zeros(v.shape, dtype=dtype)\n'
                               '    D = (d_out * out).sum(dim=-1)\n'
                               '    qpos = offset + torch.arange(T)\n'
                               '    L = lse[:, None]\n'
                               '    for j0 in range(0, seen, block):\n'
                               '        j1 = min(j0 + block, seen)\n'
                               '        kt, vt = k[j0:j1], v[j0:j1]\n'
                               '        s = (q @ kt.T) * scale\n'
                               '        p = torch.exp(torch.clamp(s - L, max=0.0))   # a seen key never scores above '
                               'L\n'
                               '        if causal:\n'
                               '            keep = torch.ones(T, j1 - j0, dtype=torch.bool).tril(diagonal=offset - '
                               'j0)\n'
                               '            p = p.masked_fill(~keep, 0.0)\n'
                               '        dv[j0:j1] = p.T @ d_out\n'
                               '        dp = d_out @ vt.T\n'
                               '        ds = p * (dp - D[:, None])\n'
                               '        dq += (ds @ kt) * scale\n'
                               '        dk[j0:j1] = (ds.T @ q) * scale\n'
                               '    dsink = -(torch.exp(sink - lse) * D).sum()\n'
                               '    return dq, dk, dv, dsink\n'},
  'correct': True,
  'name': 'ok_chunk_tril_clamped_exponent',
  'why': 'tril with the diagonal offset - j0 (key j0+j seen by query i iff j <= i + offset - j0); exponent clamped at '
         '0, a guard the text allows'},
 {'cells': {'chunk_attention': '\n'
                               'def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, '
                               'causal=True):\n'
                               '    dtype = q.dtype\n'
                               '    T, Dh = q.shape\n'
                               '    S = k.shape[0]\n'
                               '    end = min(S, offset + T) if causal else S\n'
                               '    qd, od, gd, Ld = q.double(), out.double(), d_out.double(), lse.double()\n'
                               '    delta = (gd * od).sum(-1, keepdim=True)\n'
                               '    dq = torch.zeros(T, Dh, dtype=torch.float64)\n'
                               '    dk_parts, dv_parts = [], []\n'
                               '    for start in range(0, end, block):\n'
                               '        stop = min(start + block, end)\n'
                               '        kt, vt = k[start:stop].double(), v[start:stop].double()\n'
                               '        p = torch.exp(qd @ kt.transpose(0, 1) / math.sqrt(Dh) - Ld[:, None])\n'
                               '        if causal:\n'
                               '            pos = torch.arange(start, stop)\n'
                               '            p = torch.where(pos[None, :] > (offset + torch.arange(T))[:, None], 0.0, '
                               'p)\n'
                               '        ds = p * (gd @ vt.transpose(0, 1) - delta) / math.sqrt(Dh)\n'
                               '        dq = dq + ds @ kt\n'
                               '        dk_parts.append(ds.transpose(0, 1) @ qd)\n'
                               '        dv_parts.append(p.transpose(0, 1) @ gd)\n'
                               '    dk = torch.zeros(S, Dh, dtype=dtype)\n'
                               '    dv = torch.zeros(S, v.shape[1], dtype=dtype)\n'
                               '    if dk_parts:\n'
                               '        dk[:end] = torch.cat(dk_parts).to(dtype)\n'
                               '        dv[:end] = torch.cat(dv_parts).to(dtype)\n'
                               '    dsink = -(torch.exp(sink.double() - Ld) * delta[:, 0]).sum()\n'
                               '    return dq.to(dtype), dk, dv, dsink.to(dtype)\n'},
  'correct': True,
  'name': 'ok_chunk_float64_inside',
  'why': 'float64 inside and a cast back; tiles gathered with cat (each piece (block, Dh), the whole (end, Dh) is no '
         'larger than k)'},
 {'cells': {'split_kv_kernel': '\n'
                               '@triton.jit\n'
                               'def dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: '
                               'tl.constexpr, BLOCK_K: tl.constexpr):\n'
                               '    pid = tl.program_id(0)\n'
                               '    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n'
                               '    row_ok = rows < N\n'
                               '    acc = tl.zeros([BLOCK_N], dtype=tl.float32)\n'
                               '    for k0 in range(0, K, BLOCK_K):\n'
                               '        cols = k0 + tl.arange(0, BLOCK_K)\n'
                               '        x = tl.load(X + cols)\n'
                               '        byte = tl.load(W + rows[:, None] * (K // 2) + (cols // 2)[None, :], '
                               'mask=row_ok[:, None], other=0).to(tl.int32)\n'
                               '        code = (byte >> ((cols % 2) * 4)[None, :]) & 15\n'
                               '        g = cols // GROUP\n'
                               '        s = tl.load(Scale + rows[:, None] * (K // GROUP) + g[None, :], mask=row_ok[:, '
                               'None], other=0.0)\n'
                               '        z = tl.load(Zero + rows[:, None] * (K // GROUP) + g[None, :], mask=row_ok[:, '
                               'None], other=0).to(tl.int32)\n'
                               '        wv = code.to(tl.float32) * s - z.to(tl.float32) * s\n'
                               '        acc += tl.sum(wv * x[None, :], axis=1)\n'
                               '    tl.store(Y + rows, acc, mask=row_ok)\n'},
  'correct': True,
  'name': 'ok_kernel_two_products',
  'why': 'c*s - z*s in float32 (another order of operations)'},
 {'cells': {'quantize_asym': '\n'
                             'def quantize_asym(w, bits, group_size):\n'
                             '    out_features, in_features = w.shape\n'
                             '    levels = 2 ** bits - 1\n'
                             '    g = w.reshape(out_features, in_features // group_size, group_size)\n'
                             '    lo = g.amin(dim=-1).clamp(max=0)\n'
                             '    hi = g.amax(dim=-1).clamp(min=0)\n'
                             '    scale = (hi - lo) / levels\n'
                             '    scale = torch.where(scale == 0, torch.ones_like(scale), scale)\n'
                             '    zero = torch.round(-lo / scale).clamp(0, levels)   # a guard: it already lies there\n'
                             '    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n'
                             '    return q.reshape(out_features, in_features).to(torch.uint8), scale, '
                             'zero.to(torch.uint8)\n'
                             '\n'
                             '\n'
                             'def dequantize_asym(q, scale, zero):\n'
                             '    group = q.shape[1] // scale.shape[1]\n'
                             '    s = scale.repeat_interleave(group, dim=1)\n'
                             '    z = zero.to(scale.dtype).repeat_interleave(group, dim=1)\n'
                             '    return s * (q.to(scale.dtype) - z)\n'},
  'correct': True,
  'name': 'ok_quant_zero_clamped',
  'why': 'a clamp the text states holds anyway'},
 {'cells': {'max_batch': '\n'
                         'def max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, '
                         'bytes_per_value, window=None):\n'
                         '    limit = float("inf") if window is None else window\n'
                         '    cached = length if length <= limit else window\n'
                         '    per_sequence = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n'
                         '    return (memory_bytes - weight_bytes) // per_sequence if memory_bytes - weight_bytes >= '
                         'per_sequence else 0\n'},
  'correct': True,
  'name': 'ok_max_batch_inf_window',
  'why': 'inf as the no-window sentinel, only in a comparison (the count stays an int)'},
 {'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    work = lse_a.dtype\n'
                              '    lse = torch.logaddexp(lse_a, lse_b)\n'
                              '    w_a = torch.exp(lse_a - lse).clamp(max=1.0)\n'
                              '    w_b = torch.exp(lse_b - lse).clamp(max=1.0)\n'
                              '    a = torch.where((w_a == 0)[:, None], torch.zeros((), dtype=work), o_a.to(work))\n'
                              '    b = torch.where((w_b == 0)[:, None], torch.zeros((), dtype=work), o_b.to(work))\n'
                              '    o = w_a[:, None] * a + w_b[:, None] * b\n'
                              '    return o.to(o_a.dtype), lse\n'},
  'correct': True,
  'name': 'ok_merge_clamped_weights',
  'why': 'epsilon-adder done right: weights clamped at 1, which they never exceed'},
 {'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    lse = torch.logaddexp(lse_a, lse_b)\n'
                              '    w_a = torch.exp(lse_a - lse)\n'
                              '    w_b = torch.exp(lse_b - lse)\n'
                              '    a = torch.where((w_a == 0)[:, None], 0.0, o_a.to(lse_a.dtype))\n'
                              '    b = torch.where((w_b == 0)[:, None], 0.0, o_b.to(lse_a.dtype))\n'
                              '    o = torch.lerp(a, b, w_b[:, None])      # o = o_a + w_b (o_b - o_a), the '
                              'online-softmax update\n'
                              '    return o.to(o_a.dtype), lse\n'},
  'correct': False,
  'name': 'mem_merge_lerp',
  'why': "from-memory: the running update o_a + w_b (o_b - o_a); breaks 'where a piece that sees keys has inf or -inf "
         "in its row of o ... the merged element is that infinity too' (inf - inf inside the update)"},
 {'cells': {'merge_partials': '\n'
                              'def merge_partials(o_a, lse_a, o_b, lse_b):\n'
                              '    m = torch.maximum(lse_a, lse_b)\n'
                              '    lse = m + torch.log1p(torch.exp(-torch.abs(lse_a - lse_b)))\n'
                              '    w_a = torch.exp(lse_a - lse)\n'
                              '    w_b = torch.exp(lse_b - lse)\n'
                              '    a = torch.where((w_a == 0)[:, None], 0.0, o_a.to(lse_a.dtype))\n'
                              '    b = torch.where((w_b == 0)[:, None], 0.0, o_b.to(lse_a.dtype))\n'
                              '    return (w_a[:, None] * a + w_b[:, None] * b).to(o_a.dtype), lse\n'},
  'correct': True,
  'name': 'ok_merge_log1p',
  'why': 'lse = max + log1p(exp(-|a - b|)) from memory, right (ties: maximum splits the gradient, |.| gives 0)'},
 {'cells': {'rms_norm_half': '\n'
                             'def rms_norm_half(x, eps=1e-6):\n'
                             '    root_eps = math.sqrt(eps)\n'
                             '    floor_eps = 2.0 ** math.floor(math.log2(root_eps))\n'
                             '    with torch.no_grad():\n'
                             '        big = x.abs().amax(dim=-1, keepdim=True).clamp(min=floor_eps)\n'
                             '        mantissa, _ = torch.frexp(big)\n'
                             '        c = big / (2 * mantissa)          # a power of two, big / 2 < c <= big\n'
                             '    w = (c / root_eps).reciprocal()\n'
                             '    small = c < 1\n'
                             '    u = x / c\n'
                             '    s = torch.sqrt((u * u).mean(dim=-1, keepdim=True) + w * w)\n'
                             '    return torch.nan_to_num(torch.where(small, u / s, x / (c * s)))   # a guard: nothing '
                             'there is NaN or inf\n'},
  'correct': True,
  'name': 'ok_rms_nan_to_num_guard',
  'why': 'epsilon-adder done right: nan_to_num on a result that holds no NaN or inf'}]
