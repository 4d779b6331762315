# Red team round 31, chapter 07-hardware: wave 2 (written after the blind grading, before reading the hidden tests; W28 after).
SUBMISSIONS = [
    {
        'name': 'W25-attn-sink-one-minus',
        'correct': False,
        'why': "[wave 2, not blind; sibling/python-scalar] Sink probability as one minus the keys' (cancels when the sink's share is tiny): 'Every probability you rebuild must stay finite and right'.",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    psum = torch.zeros(T, dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        psum = psum + p.sum(dim=-1)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -((1 - psum) * delta).sum()\n    return dq, dk, dv, dsink\n',
        },
    },
    {
        'name': 'W26-merge-function-backward-raw-o',
        'correct': False,
        'why': "[wave 2, not blind; hand-backward] Backward uses the raw rows of o (NaN where a piece sees no key): 0 * NaN in d lse: 'no gradient is NaN'.",
        'cells': {
            'merge_partials': '\nclass Merge(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, o_a, lse_a, o_b, lse_b):\n        dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n        la, lb = lse_a.to(dt), lse_b.to(dt)\n        m = torch.maximum(la, lb)\n        wa = torch.exp(la - m)[:, None]\n        wb = torch.exp(lb - m)[:, None]\n        total = wa + wb\n        oa = torch.where(wa > 0, o_a.to(dt), torch.zeros((), dtype=dt))\n        ob = torch.where(wb > 0, o_b.to(dt), torch.zeros((), dtype=dt))\n        o = (wa * oa + wb * ob) / total\n        lse = m + torch.log(total[:, 0])\n        ctx.save_for_backward(wa / total, wb / total, o_a.to(dt), o_b.to(dt), o)\n        ctx.dtypes = (o_a.dtype, lse_a.dtype)\n        return o.to(o_a.dtype), lse.to(lse_a.dtype)\n\n    @staticmethod\n    def backward(ctx, g_o, g_lse):\n        pa, pb, oa, ob, o = ctx.saved_tensors\n        do, dl = ctx.dtypes\n        g_o, g_lse = g_o.to(pa.dtype), g_lse.to(pa.dtype)\n        d_la = pa[:, 0] * (g_lse + (g_o * (oa - o)).sum(dim=-1))\n        d_lb = pb[:, 0] * (g_lse + (g_o * (ob - o)).sum(dim=-1))\n        return (pa * g_o).to(do), d_la.to(dl), (pb * g_o).to(do), d_lb.to(dl)\n\n\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    return Merge.apply(o_a, lse_a, o_b, lse_b)\n',
        },
    },
    {
        'name': 'W27-rms-function-backward-projection-without-eps',
        'correct': False,
        'why': "[wave 2, not blind; hand-backward/scale-placement] Backward projects on x/sqrt(mean x^2) (no eps): right while eps is negligible; 'eps from 1e-12 to 1' and the gradient rule.",
        'cells': {
            'rms_norm_half': '\nclass RmsHalf(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, eps):\n        d = x.shape[-1]\n        s = math.sqrt(eps)\n        a = x.abs().amax(dim=-1, keepdim=True)\n        c = torch.clamp(a / math.sqrt(d), min=s)\n        e = 1 / (c / s)\n        y = x / c\n        ms = (y * y).mean(dim=-1, keepdim=True)\n        den = torch.sqrt(ms + e * e)\n        ctx.save_for_backward(y, c, den, ms)\n        return y / den\n\n    @staticmethod\n    def backward(ctx, g):\n        y, c, den, ms = ctx.saved_tensors\n        u = torch.where(ms > 0, y / torch.sqrt(ms), torch.zeros_like(y))     # the unit-RMS direction\n        proj = (g * u).mean(dim=-1, keepdim=True)\n        return (g - u * proj) / den / c, None\n\n\ndef rms_norm_half(x, eps=1e-6):\n    return RmsHalf.apply(x, eps)\n',
        },
    },
    {
        'name': 'C14-attn-float64-inside',
        'correct': True,
        'why': '[wave 2, not blind; scale-placement] float64 inside tile by tile, q pre-scaled, masked_fill, cast back.',
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    f = torch.float64\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    q64, o64, l64, g64 = q.to(f) / math.sqrt(Dh), out.to(f), lse.to(f), d_out.to(f)\n    dq = torch.zeros(q.shape, dtype=f)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (g64 * o64).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1].to(f), v[j0:j1].to(f)\n        p = torch.exp(q64 @ kj.T - l64[:, None])\n        if causal:\n            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos[:, None], 0.0)\n        dv[j0:j1] = (p.T @ g64).to(q.dtype)\n        ds = p * (g64 @ vj.T - delta[:, None])\n        dq += ds @ kj\n        dk[j0:j1] = (ds.T @ q64).to(q.dtype)\n    dsink = -(torch.exp(sink.to(f) - l64) * delta).sum()\n    return (dq * scale).to(q.dtype), dk, dv, dsink.to(q.dtype)\n',
        },
    },
    {
        'name': 'C15-merge-logaddexp',
        'correct': True,
        'why': '[wave 2, not blind; sibling] torch.logaddexp for the merged lse; weights exp(l - lse), no division.',
        'cells': {
            'merge_partials': '\ndef merge_partials(o_a, lse_a, o_b, lse_b):\n    dt = torch.promote_types(lse_a.dtype, o_a.dtype)\n    la, lb = lse_a.to(dt), lse_b.to(dt)\n    lse = torch.logaddexp(la, lb)\n    wa = torch.exp(la - lse).unsqueeze(-1)\n    wb = torch.exp(lb - lse).unsqueeze(-1)\n    oa = torch.where(wa > 0, o_a.to(dt), 0.0)\n    ob = torch.where(wb > 0, o_b.to(dt), 0.0)\n    o = wa * oa + wb * ob\n    return o.to(dtype=o_a.dtype), lse.to(dtype=lse_a.dtype)\n',
        },
    },
    {
        'name': 'C16-quant-aminmax-repeat',
        'correct': True,
        'why': '[wave 2, not blind; return-shape] aminmax and repeat_interleave instead of a (out, G, g) view.',
        'cells': {
            'quantize_asym': '\ndef quantize_asym(w, bits, group_size):\n    rows, cols = w.shape\n    top = 2 ** bits - 1\n    grouped = w.reshape(rows, -1, group_size)\n    mn, mx = torch.aminmax(grouped, dim=-1)\n    lo, hi = torch.clamp(mn, max=0), torch.clamp(mx, min=0)\n    scale = torch.where(hi == lo, torch.ones_like(hi), (hi - lo) / top)\n    zero = torch.clamp(torch.round(-lo / scale), 0, top)\n    q = torch.clamp(torch.round(w / scale.repeat_interleave(group_size, dim=1)) + zero.repeat_interleave(group_size, dim=1), 0, top)\n    return (q.to(torch.uint8), scale, zero.to(torch.uint8))\n\n\ndef dequantize_asym(q, scale, zero):\n    gs = q.shape[1] // scale.shape[1]\n    return (q.to(scale.dtype) - zero.to(scale.dtype).repeat_interleave(gs, dim=1)) * scale.repeat_interleave(gs, dim=1)\n',
        },
    },
    {
        'name': 'C17-rms-rsqrt',
        'correct': True,
        'why': '[wave 2, not blind; scale-placement] rsqrt and a product instead of sqrt and a division.',
        'cells': {
            'rms_norm_half': '\ndef rms_norm_half(x, eps=1e-6):\n    d = x.shape[-1]\n    s = math.sqrt(eps)\n    a = x.detach().abs().amax(dim=-1, keepdim=True)\n    c = torch.clamp(a / math.sqrt(d), min=s)\n    e = 1 / (c / s)\n    y = x / c\n    inv = torch.rsqrt(y.square().mean(dim=-1, keepdim=True) + e.square())\n    return y * inv\n',
        },
    },
    {
        'name': 'C18-maxbatch-window-keyword-int',
        'correct': True,
        'why': '[wave 2, not blind; python-scalar] max(0, floor division) on exact ints; `if window` (window is positive or None).',
        'cells': {
            'max_batch': '\ndef max_batch(memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None):\n    cached = min(length, window) if window else length\n    one = 2 * layers * kv_heads * head_dim * cached * bytes_per_value\n    return max(0, (memory_bytes - weight_bytes) // one)\n',
        },
    },
    {
        'name': 'W28-attn-dsink-minus-sum-ds',
        'correct': False,
        'why': "[wave 2, not blind; hand-backward/sibling] dsink as minus the sum of all dS (softmax gradients sum to zero over all logits): the complement again; 'Every probability you rebuild must stay finite and right'.",
        'cells': {
            'chunk_attention': '\ndef chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):\n    T, Dh = q.shape\n    S = k.shape[0]\n    scale = 1.0 / math.sqrt(Dh)\n    last = min(S, offset + T) if causal else S\n    dq = torch.zeros(q.shape, dtype=q.dtype)\n    dk = torch.zeros(k.shape, dtype=q.dtype)\n    dv = torch.zeros(v.shape, dtype=q.dtype)\n    delta = (d_out * out).sum(dim=-1)\n    pos = offset + torch.arange(T)\n    zero = torch.zeros((), dtype=q.dtype)\n    ds_total = torch.zeros((), dtype=q.dtype)\n    for j0 in range(0, last, block):\n        j1 = min(j0 + block, last)\n        kj, vj = k[j0:j1], v[j0:j1]\n        s = (q @ kj.T) * scale\n        p = torch.exp(s - lse[:, None])\n        if causal:\n            seen = torch.arange(j0, j1)[None, :] <= pos[:, None]\n            p = torch.where(seen, p, zero)\n        dv[j0:j1] = p.T @ d_out\n        dp = d_out @ vj.T\n        ds = p * (dp - delta[:, None])\n        dq += (ds @ kj) * scale\n        ds_total = ds_total + ds.sum()\n        dk[j0:j1] = (ds.T @ q) * scale\n    dsink = -ds_total\n    return dq, dk, dv, dsink\n',
        },
    },
]
