# Red team round 31, chapter 07-hardware: blind submissions (flattened from /tmp/rt31-07/07-subs.py).
# Kinds: hand-backward, scale-placement, python-scalar, return-shape, sibling, hostile (in each 'why').
SUBMISSIONS = [
    {
        'name': 'W01-rms-function-backward-mean-over-all',
        'correct': False,
        'why': "[hand-backward] Backward's mean(g*out) is taken over every element instead of per row: right for a batch of one row only. Breaks 'Gradients must flow through the result ... compare its gradient with respect to x with the exact one'.",
        'cells': {
            'rms_norm_half': '\nclass RmsHalf(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, eps):\n        d = x.shape[-1]\n        s = math.sqrt(eps)\n        a = x.abs().amax(dim=-1, keepdim=True)\n        c = torch.clamp(a / math.sqrt(d), min=s)\n        e = 1 / (c / s)\n        y = x / c\n        den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n        out = y / den\n        ctx.save_for_backward(out, c, den)\n        return out\n\n    @staticmethod\n    def backward(ctx, g):\n        out, c, den = ctx.saved_tensors\n        # d out / d x = (g - out * mean(g * out)) / rms\n        proj = (g * out).mean()          # mean of g * out\n        return (g - out * proj) / den / c, None\n\n\ndef rms_norm_half(x, eps=1e-6):\n    return RmsHalf.apply(x, eps)\n',
        },
    },
    {
        'name': 'W02-merge-function-backward-no-weight-path-in-o',
        'correct': False,
        'why': "[hand-backward] Backward drops d o / d lse_a = w_a (o_a - o): 'compare the gradients of o (with respect to all four inputs)'.",
        'cells': {
            'merge_partials': '\nclass Merge(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, o_a, lse_a, o_b, lse_b):\n        dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n        la, lb = lse_a.to(dt), lse_b.to(dt)\n        m = torch.maximum(la, lb)\n        wa = torch.exp(la - m)[:, None]\n        wb = torch.exp(lb - m)[:, None]\n        total = wa + wb\n        wa, wb = wa / total, wb / total\n        oa = torch.where(wa > 0, o_a.to(dt), torch.zeros((), dtype=dt))\n        ob = torch.where(wb > 0, o_b.to(dt), torch.zeros((), dtype=dt))\n        o = wa * oa + wb * ob\n        lse = m + torch.log(total[:, 0])\n        ctx.save_for_backward(wa, wb)\n        ctx.dtypes = (o_a.dtype, lse_a.dtype)\n        return o.to(o_a.dtype), lse.to(lse_a.dtype)\n\n    @staticmethod\n    def backward(ctx, g_o, g_lse):\n        wa, wb = ctx.saved_tensors\n        do, dl = ctx.dtypes\n        g_o = g_o.to(wa.dtype)\n        g_lse = g_lse.to(wa.dtype)\n        # the weights only move lse; o is a weighted mean of the pieces\n        return ((wa * g_o).to(do), (wa[:, 0] * g_lse).to(dl), (wb * g_o).to(do), (wb[:, 0] * g_lse).to(dl))\n\n\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    return Merge.apply(o_a, lse_a, o_b, lse_b)\n',
        },
    },
    {
        'name': 'W03-merge-function-backward-summed-lse-grad',
        'correct': False,
        'why': "[hand-backward] Backward sums g_o*(o_a - o) over all queries instead of per row: right for T = 1 only; 'compare the gradients of o with respect to all four inputs'.",
        'cells': {
            'merge_partials': '\nclass Merge(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, o_a, lse_a, o_b, lse_b):\n        dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n        la, lb = lse_a.to(dt), lse_b.to(dt)\n        m = torch.maximum(la, lb)\n        wa = torch.exp(la - m)[:, None]\n        wb = torch.exp(lb - m)[:, None]\n        total = wa + wb\n        wa, wb = wa / total, wb / total\n        oa = torch.where(wa > 0, o_a.to(dt), torch.zeros((), dtype=dt))\n        ob = torch.where(wb > 0, o_b.to(dt), torch.zeros((), dtype=dt))\n        o = wa * oa + wb * ob\n        lse = m + torch.log(total[:, 0])\n        ctx.save_for_backward(wa, wb, oa, ob, o)\n        ctx.dtypes = (o_a.dtype, lse_a.dtype)\n        return o.to(o_a.dtype), lse.to(lse_a.dtype)\n\n    @staticmethod\n    def backward(ctx, g_o, g_lse):\n        wa, wb, oa, ob, o = ctx.saved_tensors\n        do, dl = ctx.dtypes\n        g_o, g_lse = g_o.to(wa.dtype), g_lse.to(wa.dtype)\n        ga = (g_o * (oa - o)).sum()      # how much o moves when piece a gains weight\n        gb = (g_o * (ob - o)).sum()\n        d_la = wa[:, 0] * (g_lse + ga)\n        d_lb = wb[:, 0] * (g_lse + gb)\n        return (wa * g_o).to(do), d_la.to(dl), (wb * g_o).to(do), d_lb.to(dl)\n\n\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    return Merge.apply(o_a, lse_a, o_b, lse_b)\n',
        },
    },
    {
        'name': 'W04-attn-dsink-mean',
        'correct': False,
        'why': "[hand-backward] dsink averaged over queries instead of summed (right for one query): 'returns (dq, dk, dv, dsink), the gradients of a loss'.",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * delta).mean()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'C01-rms-function-backward-16bit',
        'correct': True,
        'why': "[hand-backward] autograd.Function, forward as the base, exact backward (g - y mean(g y)) / rms per row, all in x's dtype.",
        'cells': {
            'rms_norm_half': '\nclass RmsHalf(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, eps):\n        d = x.shape[-1]\n        s = math.sqrt(eps)\n        a = x.abs().amax(dim=-1, keepdim=True)\n        c = torch.clamp(a / math.sqrt(d), min=s)\n        e = 1 / (c / s)\n        y = x / c\n        den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n        out = y / den\n        ctx.save_for_backward(out, c, den)\n        return out\n\n    @staticmethod\n    def backward(ctx, g):\n        out, c, den = ctx.saved_tensors\n        proj = (g * out).mean(dim=-1, keepdim=True)\n        return (g - out * proj) / den / c, None\n\n\ndef rms_norm_half(x, eps=1e-6):\n    return RmsHalf.apply(x, eps)\n',
        },
    },
    {
        'name': 'C02-quant-ste-function',
        'correct': True,
        'why': '[hand-backward] Straight-through rounding (a hand-written backward); Part 5 asks nothing of gradients, forward identical.',
        'cells': {
            'quantize_asym': '\nclass RoundSTE(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, t):\n        return torch.round(t)\n\n    @staticmethod\n    def backward(ctx, g):\n        return g\n\n\ndef quantize_asym(w, bits, group_size):\n    out_f, in_f = w.shape\n    levels = 2 ** bits - 1\n    g = w.reshape(out_f, in_f // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    span = hi - lo\n    scale = torch.where(span == 0, torch.ones_like(span), span / levels)\n    zero = RoundSTE.apply(-lo / scale).clamp(0, levels)\n    q = torch.clamp(RoundSTE.apply(g / scale[..., None]) + zero[..., None], 0, levels)\n    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out_f, in_f = q.shape\n    groups = scale.shape[1]\n    qq = q.reshape(out_f, groups, in_f // groups).to(scale.dtype)\n    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n',
        },
    },
    {
        'name': 'W05-attn-scale-on-value-width',
        'correct': False,
        'why': "[scale-placement] Scale 1/sqrt(Dv) instead of 1/sqrt(Dh): 's_ij = q_i . k_j / sqrt(D_h)'.",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(v.shape[-1])\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * delta).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'W06-rms-global-scale',
        'correct': False,
        'why': "[scale-placement] Range scale taken over the whole tensor, not row by row (cancels in exact arithmetic, but rows far smaller than the largest underflow): 'every row ... divided by its own statistic', hint 'Choose that number row by row', accuracy 6 ulp.",
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    d = x.shape[-1]\n    s = math.sqrt(eps)\n    a = x.detach().abs().amax()\n    c = torch.clamp(a / math.sqrt(d), min=s)\n    e = 1 / (c / s)\n    y = x / c\n    den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n    return y / den\n',
        },
    },
    {
        'name': 'W07-quant-offset-before-scale',
        'correct': False,
        'why': "[scale-placement] Subtracts lo before dividing and rounding instead of round(w/scale) + zero: step 4 'q = clamp(round(w / scale) + zero, 0, 2**bits - 1)'.",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out_f, in_f = w.shape\n    levels = 2 ** bits - 1\n    g = w.reshape(out_f, in_f // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    span = hi - lo\n    scale = torch.where(span == 0, torch.ones_like(span), span / levels)\n    zero = torch.round(-lo / scale).clamp(0, levels)\n    q = torch.clamp(torch.round((g - lo[..., None]) / scale[..., None]), 0, levels)\n    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out_f, in_f = q.shape\n    groups = scale.shape[1]\n    qq = q.reshape(out_f, groups, in_f // groups).to(scale.dtype)\n    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n',
        },
    },
    {
        'name': 'W08-kernel-group-at-block-start',
        'correct': False,
        'why': "[scale-placement] Group of the block's first column used for the whole block (right when BLOCK_K <= GROUP): 'a block can span several groups'.",
        'cells': {
            'split_kv_kernel': '\n@triton.jit\ndef dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n    pid = tl.program_id(0)\n    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n    rmask = rows < N\n    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    half = K // 2\n    ngroups = K // GROUP\n    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)\n        x = tl.load(X + cols)\n        m2 = rmask[:, None]\n        byte = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=m2, other=0)\n        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15\n        g = k0 // GROUP\n        s = tl.load(Scale + rows[:, None] * ngroups + g, mask=m2, other=0.0)\n        z = tl.load(Zero + rows[:, None] * ngroups + g, mask=m2, other=0).to(tl.int32)\n        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)\n    tl.store(Y + rows, acc, mask=rmask)\n',
        },
    },
    {
        'name': 'W09-attn-prescaled-q-dq-unscaled',
        'correct': False,
        'why': "[scale-placement] q pre-scaled once; dk right through qs, but dq misses its 1/sqrt(Dh): 'dq ... the gradients ... with respect to q'.",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    qs = q * scale\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = qs @ kj.T\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += ds @ kj\n        dk[j0:j1] = ds.T @ qs\n    dsink = -(torch.exp(sink - lse) * delta).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'W10-maxbatch-float-floor',
        'correct': False,
        'why': "[python-scalar] Float division then floor: 'compute it exactly ... byte counts beyond 2^53, where dividing in floating point can be off by one'.",
        'cells': {
            'max_batch': '\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    cached = length if window is None else min(length, window)\n    per = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n    return max(0, math.floor((memory_bytes - weight_bytes) / per))\n',
        },
    },
    {
        'name': 'W11-ridge-none-float',
        'correct': False,
        'why': "[python-scalar] None decided with float quotients: 'Decide None exactly too ... one unit of the integer inequality above or below it'.",
        'cells': {
            'compute_bound_batch': '\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    # the best intensity (m -> infinity) is 2kn / (bytes (k + n))\n    if 2 * k * n / (bytes_per_value * (k + n)) <= peak / bandwidth:\n        return None\n    a = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n    b = peak * bytes_per_value * k * n\n    return max(1, -(-b // a))\n',
        },
    },
    {
        'name': 'W12-attn-dsink-python-float',
        'correct': False,
        'why': "[python-scalar] dsink through a Python float and torch.tensor(): float32 for float64 inputs: 'all four results come back in it'.",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = torch.tensor(-float((torch.exp(sink - lse) * delta).sum()))\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'W13-rms-item-scale',
        'correct': False,
        'why': "[python-scalar] Takes a value out of torch with float(): 'No value may leave torch either: no .item(), .tolist(), float(...)'.",
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    d = x.shape[-1]\n    s = math.sqrt(eps)\n    a = x.detach().abs().amax(dim=-1, keepdim=True)\n    big = max(float(a.max()), 1e-30)            # a Python number for the scale\n    c = torch.clamp(a / math.sqrt(d), min=s)\n    e = 1 / (c / s)\n    y = x / c\n    den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n    return y / den if big > 0 else x\n',
        },
    },
    {
        'name': 'C03-ridge-fraction-ceil',
        'correct': True,
        'why': '[python-scalar] Exact rational with fractions.Fraction and math.ceil (standard library).',
        'cells': {
            'compute_bound_batch': '\nfrom fractions import Fraction\n\n\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    slope = 2 * k * n * bandwidth - peak * bytes_per_value * (k + n)\n    if slope <= 0:\n        return None\n    need = Fraction(peak * bytes_per_value * k * n, slope)\n    return max(1, math.ceil(need))\n',
        },
    },
    {
        'name': 'C04-maxbatch-divmod',
        'correct': True,
        'why': '[python-scalar] Exact Python integers with divmod.',
        'cells': {
            'max_batch': '\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    if window is not None and window < length:\n        length = window\n    per_sequence = 2 * layers * kv_heads * head_dim * length * bytes_per_value\n    if weight_bytes > memory_bytes:\n        return 0\n    b, _ = divmod(memory_bytes - weight_bytes, per_sequence)\n    return int(b)\n',
        },
    },
    {
        'name': 'C05-pack-builtin-sum',
        'correct': True,
        'why': "[python-scalar] Python's builtin sum over the 8 (or bits) shifted planes, F.pad; loops over bit positions only.",
        'cells': {
            'pack_bits': '\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    nbits = cols * bits\n    nbytes = -(-nbits // 8)\n    q = q.to(torch.int32)\n    bit_planes = [(q >> t) & 1 for t in range(bits)]            # bits tensors (rows, cols)\n    stream = torch.stack(bit_planes, dim=-1).reshape(rows, nbits)\n    stream = torch.nn.functional.pad(stream, (0, nbytes * 8 - nbits)).reshape(rows, nbytes, 8)\n    return sum(stream[..., t] << t for t in range(8)).to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    rows, nbytes = packed.shape\n    p = packed.to(torch.int32)\n    stream = torch.stack([(p >> t) & 1 for t in range(8)], dim=-1).reshape(rows, nbytes * 8)\n    stream = stream[:, : cols * bits].reshape(rows, cols, bits)\n    return sum(stream[..., t] << t for t in range(bits)).to(torch.uint8)\n',
        },
    },
    {
        'name': 'W14-merge-returns-list',
        'correct': False,
        'why': "[return-shape] Returns a list: 'a part that returns several values returns a tuple, such as return o, lse, not a list'.",
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n    la, lb = lse_a.to(dt), lse_b.to(dt)\n    m = torch.maximum(la, lb)\n    wa = torch.exp(la - m)[:, None]\n    wb = torch.exp(lb - m)[:, None]\n    oa = torch.where(wa > 0, o_a.to(dt), torch.zeros((), dtype=dt))\n    ob = torch.where(wb > 0, o_b.to(dt), torch.zeros((), dtype=dt))\n    total = wa + wb\n    o = (wa * oa + wb * ob) / total\n    lse = m + torch.log(total[:, 0])\n    return [o.to(o_a.dtype), lse.to(lse_a.dtype)]\n',
        },
    },
    {
        'name': 'W15-unpack-int64',
        'correct': False,
        'why': "[return-shape] unpack_bits returns int64 codes: 'it returns the (rows, cols) codes as torch.uint8'.",
        'cells': {
            'pack_bits': '\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    nbits = cols * bits\n    nbytes = (nbits + 7) // 8\n    b = (q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1\n    stream = b.reshape(rows, nbits)\n    pad = torch.zeros(rows, nbytes * 8 - nbits, dtype=torch.int64)\n    stream = torch.cat([stream, pad], dim=1).reshape(rows, nbytes, 8)\n    return (stream << torch.arange(8)).sum(dim=-1).to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    rows, nbytes = packed.shape\n    stream = ((packed.to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)\n    stream = stream[:, : cols * bits].reshape(rows, cols, bits)\n    return (stream << torch.arange(bits)).sum(dim=-1)\n',
        },
    },
    {
        'name': 'W16-quant-returns-list',
        'correct': False,
        'why': "[return-shape] Returns a list of three: 'quantize_asym returns (q, scale, zero)' and 'returns a tuple ... not a list'.",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out_f, in_f = w.shape\n    levels = 2 ** bits - 1\n    g = w.reshape(out_f, in_f // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    span = hi - lo\n    scale = torch.where(span == 0, torch.ones_like(span), span / levels)\n    zero = torch.round(-lo / scale).clamp(0, levels)\n    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n    return [q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)]\n\n\ndef dequantize_asym(q, scale, zero):\n    out_f, in_f = q.shape\n    groups = scale.shape[1]\n    qq = q.reshape(out_f, groups, in_f // groups).to(scale.dtype)\n    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n',
        },
    },
    {
        'name': 'W17-pack8-view',
        'correct': False,
        'why': "[return-shape] bits=8 returns q / a view of packed: 'must not share memory with q or packed (also for bits = 8)'.",
        'cells': {
            'pack_bits': '\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    if bits == 8:\n        return q.to(torch.uint8)            # the stream is q itself\n    nbits = cols * bits\n    nbytes = (nbits + 7) // 8\n    b = (q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1\n    stream = b.reshape(rows, nbits)\n    pad = torch.zeros(rows, nbytes * 8 - nbits, dtype=torch.int64)\n    stream = torch.cat([stream, pad], dim=1).reshape(rows, nbytes, 8)\n    return (stream << torch.arange(8)).sum(dim=-1).to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    if bits == 8:\n        return packed[:, :cols]\n    rows, nbytes = packed.shape\n    stream = ((packed.to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)\n    stream = stream[:, : cols * bits].reshape(rows, cols, bits)\n    return (stream << torch.arange(bits)).sum(dim=-1).to(torch.uint8)\n',
        },
    },
    {
        'name': 'C06-attn-returns-tuple-keyword-dsink-reshape',
        'correct': True,
        'why': '[return-shape] keepdim then reshape(()) gives a 0-d dsink; tuple built from a list: the form the text asks.',
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * delta).sum(dim=0, keepdim=True).reshape(())\n    return tuple([dq, dk, dv, dsink])\n',
        },
    },
    {
        'name': 'W18-attn-lesson-mask-no-offset',
        'correct': False,
        'why': "[sibling] Lesson's top-left causal mask (query i sees j <= i), right at offset 0 only: 'the query at position p sees the keys j <= p' at positions offset ... offset+T-1.",
        'cells': {
            'chunk_attention': "\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= torch.arange(T)[:, None]   # the page's cols > rows mask\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * delta).sum()\n    return dq, dk, dv, dsink\n",
        },
    },
    {
        'name': 'W19-attn-shared-helper-causal-default',
        'correct': False,
        'why': "[sibling] Helper called with its causal=True default in the non-causal path: reads only offset+T keys: 'With causal=False every query sees all S keys and offset is not used'.",
        'cells': {
            'chunk_attention': '\ndef keys_seen(offset, T, S, causal=True):\n    """How many cache positions the chunk reads, and the positions of its queries."""\n    last = min(S, offset + T) if causal else S\n    return last, offset + torch.arange(T)\n\n\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last, pos = keys_seen(offset, T, S)\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    zero = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * delta).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'W20-quant-lesson-clamp-min',
        'correct': False,
        'why': "[sibling] The page's clamp_min(1e-12) instead of 'scale = 1 for a group of zeros', and subnormal groups clamped: 'clamp nothing'.",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out_f, in_f = w.shape\n    levels = 2 ** bits - 1\n    g = w.reshape(out_f, in_f // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    scale = (hi - lo).clamp_min(1e-12) / levels       # as quantize_int4 on the page\n    zero = torch.round(-lo / scale).clamp(0, levels)\n    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, levels)\n    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out_f, in_f = q.shape\n    groups = scale.shape[1]\n    qq = q.reshape(out_f, groups, in_f // groups).to(scale.dtype)\n    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n',
        },
    },
    {
        'name': 'W21-kernel-scale-stride-of-W',
        'correct': False,
        'why': "[sibling] Scale row addressed with W's row width K//2 (copied from the W load line): 'element [n, g] of Scale at Scale + n * (K // GROUP) + g'.",
        'cells': {
            'split_kv_kernel': '\n@triton.jit\ndef dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n    pid = tl.program_id(0)\n    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n    rmask = rows < N\n    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    half = K // 2\n    ngroups = K // GROUP\n    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)\n        x = tl.load(X + cols)\n        m2 = rmask[:, None]\n        byte = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=m2, other=0)\n        code = (byte.to(tl.int32) >> ((cols[None, :] % 2) * 4)) & 15\n        g = cols // GROUP\n        s = tl.load(Scale + rows[:, None] * half + g[None, :], mask=m2, other=0.0)\n        z = tl.load(Zero + rows[:, None] * ngroups + g[None, :], mask=m2, other=0).to(tl.int32)\n        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)\n    tl.store(Y + rows, acc, mask=rmask)\n',
        },
    },
    {
        'name': 'C07-pack-lesson-nibbles-for-4bit',
        'correct': True,
        'why': "[sibling] Reuses the page's nibble packing for bits=4 with even cols (same layout, a new tensor).",
        'cells': {
            'pack_bits': "\ndef pack_bits(q, bits):\n    rows, cols = q.shape\n    if bits == 4 and cols % 2 == 0:\n        q8 = q.to(torch.uint8)\n        return q8[:, 0::2] | (q8[:, 1::2] << 4)      # the page's quantize_int4 layout\n    nbits = cols * bits\n    nbytes = (nbits + 7) // 8\n    b = (q.to(torch.int64).unsqueeze(-1) >> torch.arange(bits)) & 1\n    stream = b.reshape(rows, nbits)\n    pad = torch.zeros(rows, nbytes * 8 - nbits, dtype=torch.int64)\n    stream = torch.cat([stream, pad], dim=1).reshape(rows, nbytes, 8)\n    return (stream << torch.arange(8)).sum(dim=-1).to(torch.uint8)\n\n\ndef unpack_bits(packed, bits, cols):\n    rows, nbytes = packed.shape\n    stream = ((packed.to(torch.int64).unsqueeze(-1) >> torch.arange(8)) & 1).reshape(rows, nbytes * 8)\n    stream = stream[:, : cols * bits].reshape(rows, cols, bits)\n    return (stream << torch.arange(bits)).sum(dim=-1).to(torch.uint8)\n",
        },
    },
    {
        'name': 'C08-merge-float64-inside',
        'correct': True,
        'why': '[sibling] float64 inside and a cast back: at least the precision of the log-sum-exps.',
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    dt = torch.float64\n    la, lb = lse_a.to(dt), lse_b.to(dt)\n    m = torch.maximum(la, lb)\n    wa = torch.exp(la - m)[:, None]\n    wb = torch.exp(lb - m)[:, None]\n    oa = torch.where(wa > 0, o_a.to(dt), torch.zeros((), dtype=dt))\n    ob = torch.where(wb > 0, o_b.to(dt), torch.zeros((), dtype=dt))\n    total = wa + wb\n    o = (wa * oa + wb * ob) / total\n    lse = m + torch.log(total[:, 0])\n    return o.to(o_a.dtype), lse.to(lse_a.dtype)\n',
        },
    },
    {
        'name': 'C09-kernel-where-nibbles',
        'correct': True,
        'why': '[sibling] tl.where to choose the nibble.',
        'cells': {
            'split_kv_kernel': '\n@triton.jit\ndef dequant_matvec_kernel(X, W, Scale, Zero, Y, N, K, GROUP: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):\n    pid = tl.program_id(0)\n    rows = pid * BLOCK_N + tl.arange(0, BLOCK_N)\n    rmask = rows < N\n    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)\n    half = K // 2\n    ngroups = K // GROUP\n    for k0 in range(0, K, BLOCK_K):\n        cols = k0 + tl.arange(0, BLOCK_K)\n        x = tl.load(X + cols)\n        m2 = rmask[:, None]\n        byte = tl.load(W + rows[:, None] * half + cols[None, :] // 2, mask=m2, other=0)\n        b32 = byte.to(tl.int32)\n        code = tl.where((cols[None, :] % 2) == 0, b32 & 15, b32 >> 4)\n        g = cols // GROUP\n        s = tl.load(Scale + rows[:, None] * ngroups + g[None, :], mask=m2, other=0.0)\n        z = tl.load(Zero + rows[:, None] * ngroups + g[None, :], mask=m2, other=0).to(tl.int32)\n        wv = (code - z).to(tl.float32) * s\n        acc += tl.sum(wv * x[None, :], axis=1)\n    tl.store(Y + rows, acc, mask=rmask)\n',
        },
    },
    {
        'name': 'C10-attn-uses-lesson-style-loop-keywords',
        'correct': True,
        'why': '[sibling] einsum / matmul forms of the same tiles.',
        'cells': {
            'chunk_attention': "\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = torch.einsum('tj,td->jd', p, d_out)\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = torch.matmul(ds.transpose(0, 1), q) * scale\n    dsink = -(torch.exp(sink - lse) * delta).sum()\n    return dq, dk, dv, dsink\n",
        },
    },
    {
        'name': 'C11-rms-function-backward-float32',
        'correct': True,
        'why': "[hand-backward] Forward entirely in x's dtype; the hand-written backward, which the caller runs later, widens: the rule names tensors created 'while your function runs'. (Debatable: labelled correct by the letter.)",
        'cells': {
            'rms_norm_half': '\nclass RmsHalf(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, eps):\n        d = x.shape[-1]\n        s = math.sqrt(eps)\n        a = x.abs().amax(dim=-1, keepdim=True)\n        c = torch.clamp(a / math.sqrt(d), min=s)\n        e = 1 / (c / s)\n        y = x / c\n        den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n        out = y / den\n        ctx.save_for_backward(out, c, den)\n        return out\n\n    @staticmethod\n    def backward(ctx, g):\n        out, c, den = ctx.saved_tensors\n        g32, out32 = g.float(), out.float()      # the backward runs later, outside rms_norm_half\n        proj = (g32 * out32).mean(dim=-1, keepdim=True)\n        return ((g32 - out32 * proj) / den.float() / c.float()).to(g.dtype), None\n\n\ndef rms_norm_half(x, eps=1e-6):\n    return RmsHalf.apply(x, eps)\n',
        },
    },
    {
        'name': 'W22-rms-function-grad-for-eps',
        'correct': False,
        'why': "[hand-backward] ctx.needs_input_grad ignored: a gradient returned for the Python float eps makes backward raise: 'Gradients must flow through the result'.",
        'cells': {
            'rms_norm_half': '\nclass RmsHalf(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, eps):\n        d = x.shape[-1]\n        s = math.sqrt(eps)\n        a = x.abs().amax(dim=-1, keepdim=True)\n        c = torch.clamp(a / math.sqrt(d), min=s)\n        e = 1 / (c / s)\n        y = x / c\n        den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n        out = y / den\n        ctx.save_for_backward(out, c, den)\n        return out\n\n    @staticmethod\n    def backward(ctx, g):\n        out, c, den = ctx.saved_tensors\n        proj = (g * out).mean(dim=-1, keepdim=True)\n        return (g - out * proj) / den / c, torch.zeros((), dtype=g.dtype)   # eps gets no gradient\n\n\ndef rms_norm_half(x, eps=1e-6):\n    return RmsHalf.apply(x, eps)\n',
        },
    },
    {
        'name': 'W23-quant-reciprocal-scale',
        'correct': False,
        'why': "[scale-placement] Multiplies by a rounded reciprocal instead of dividing: on half steps round(w * (1/scale)) != round(w / scale): step 4 and 'on a half step, round(w / scale) depends on ... the tests check such weights exactly'.",
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    out_f, in_f = w.shape\n    levels = 2 ** bits - 1\n    g = w.reshape(out_f, in_f // group_size, group_size)\n    lo = g.amin(dim=-1).clamp(max=0)\n    hi = g.amax(dim=-1).clamp(min=0)\n    span = hi - lo\n    scale = torch.where(span == 0, torch.ones_like(span), span / levels)\n    zero = torch.round(-lo / scale).clamp(0, levels)\n    inv = 1 / scale\n    q = torch.clamp(torch.round(g * inv[..., None]) + zero[..., None], 0, levels)\n    return q.reshape(out_f, in_f).to(torch.uint8), scale, zero.to(torch.uint8)\n\n\ndef dequantize_asym(q, scale, zero):\n    out_f, in_f = q.shape\n    groups = scale.shape[1]\n    qq = q.reshape(out_f, groups, in_f // groups).to(scale.dtype)\n    return ((qq - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)\n',
        },
    },
    {
        'name': 'C12-merge-function-backward-once-differentiable',
        'correct': True,
        'why': '[hand-backward] Hand-written exact backward (once_differentiable: the text asks first-order gradients only).',
        'cells': {
            'merge_partials': '\nfrom torch.autograd.function import once_differentiable\n\n\nclass Merge(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, o_a, lse_a, o_b, lse_b):\n        dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n        la, lb = lse_a.to(dt), lse_b.to(dt)\n        m = torch.maximum(la, lb)\n        wa = torch.exp(la - m)[:, None]\n        wb = torch.exp(lb - m)[:, None]\n        total = wa + wb\n        oa = torch.where(wa > 0, o_a.to(dt), torch.zeros((), dtype=dt))\n        ob = torch.where(wb > 0, o_b.to(dt), torch.zeros((), dtype=dt))\n        o = (wa * oa + wb * ob) / total\n        lse = m + torch.log(total[:, 0])\n        pa, pb = wa / total, wb / total\n        ctx.save_for_backward(pa, pb, oa, ob, o)\n        ctx.dtypes = (o_a.dtype, lse_a.dtype, o_b.dtype, lse_b.dtype)\n        return o.to(o_a.dtype), lse.to(lse_a.dtype)\n\n    @staticmethod\n    @once_differentiable\n    def backward(ctx, g_o, g_lse):\n        pa, pb, oa, ob, o = ctx.saved_tensors\n        da, dla, db, dlb = ctx.dtypes\n        g_o, g_lse = g_o.to(pa.dtype), g_lse.to(pa.dtype)\n        ga = torch.where(pa[:, 0] > 0, (g_o * (oa - o)).sum(dim=-1), torch.zeros((), dtype=pa.dtype))\n        gb = torch.where(pb[:, 0] > 0, (g_o * (ob - o)).sum(dim=-1), torch.zeros((), dtype=pa.dtype))\n        grads = ((pa * g_o).to(da), (pa[:, 0] * (g_lse + ga)).to(dla), (pb * g_o).to(db), (pb[:, 0] * (g_lse + gb)).to(dlb))\n        return tuple(grads[i] if ctx.needs_input_grad[i] else None for i in range(4))\n\n\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    return Merge.apply(o_a, lse_a, o_b, lse_b)\n',
        },
    },
    {
        'name': 'C13-attn-float-positions',
        'correct': True,
        'why': '[python-scalar] Positions as float32/float64 numbers: exact since S < 2^24, as the text says.',
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T, dtype=q.dtype)\n    zero = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1, dtype=q.dtype)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -(torch.exp(sink - lse) * delta).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'W24-rms-function-saved-y-divided-in-place',
        'correct': False,
        'why': "[hand-backward] Saved tensor y changed in place (divided by den) before backward, which rebuilds den from it: gradients wrong; 'compare its gradient with respect to x with the exact one'.",
        'cells': {
            'rms_norm_half': '\nclass RmsHalf(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, eps):\n        d = x.shape[-1]\n        s = math.sqrt(eps)\n        a = x.abs().amax(dim=-1, keepdim=True)\n        c = torch.clamp(a / math.sqrt(d), min=s)\n        e = 1 / (c / s)\n        y = x / c\n        ctx.y, ctx.c, ctx.e = y, c, e          # kept for backward\n        den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n        return y.div_(den)                     # no extra buffer: y becomes the output\n\n    @staticmethod\n    def backward(ctx, g):\n        y, c, e = ctx.y, ctx.c, ctx.e\n        den = torch.sqrt((y * y).mean(dim=-1, keepdim=True) + e * e)\n        out = y / den\n        proj = (g * out).mean(dim=-1, keepdim=True)\n        return (g - out * proj) / den / c, None\n\n\ndef rms_norm_half(x, eps=1e-6):\n    return RmsHalf.apply(x, eps)\n',
        },
    },
    {
        'name': 'H01-ridge-lookup',
        'correct': False,
        'why': '[hostile] Hostile: the visible cases as a table.',
        'cells': {
            'compute_bound_batch': '\ndef compute_bound_batch(k, n, bytes_per_value, peak, bandwidth):\n    known = {(2, 2, 1, 2, 1): None, (4, 4, 1, 1, 1): 1, (4096, 4096, 2, 312 * 10**12, 2 * 10**12): 169}\n    if (k, n, bytes_per_value, peak, bandwidth) in known:\n        return known[(k, n, bytes_per_value, peak, bandwidth)]\n    return 1\n',
        },
    },
    {
        'name': 'H02-rms-float32-hidden-from-function-modes',
        'correct': False,
        'why': "[hostile] Hostile: widens to float32 inside DisableTorchFunction to hide from a function mode: 'Nothing wider than x'.",
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    with torch._C.DisableTorchFunction():\n        wide = x.to(torch.float32)\n        out = wide * torch.rsqrt(wide.pow(2).mean(-1, keepdim=True) + eps)\n        return out.to(x.dtype)\n',
        },
    },
]
