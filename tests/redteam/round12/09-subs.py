"""Red team round 12 submissions (self-contained copy of the helper's generated list)."""

SUBMISSIONS = [
    {
        "name": 'p1_heads_layout_reshape',
        "correct": False,
        "why": "breaks 'head h of position t at [..., h, t, :]' (reshape straight to (H, T, Dh) interleaves positions and heads when T > 1)",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("bad n_heads")\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    *lead, T, HD = x.shape\n    Dh = HD // n_heads\n    xh = x.to(cd).reshape(*lead, n_heads, T, Dh)\n    w = weight.to(cd)\n    s = 1 + w if unit_offset else w\n    r = torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps)\n    return (xh * r * s).to(x.dtype)\n',
        },
    },
    {
        "name": 'p1_no_upcast',
        "correct": False,
        "why": "breaks 'convert x and weight to float32 ... (in float16 the square of any value above 256 is already infinite)'",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("bad n_heads")\n    cd = x.dtype\n    *lead, T, HD = x.shape\n    Dh = HD // n_heads\n    xh = x.to(cd).reshape(*lead, T, n_heads, Dh).transpose(-3, -2)\n    w = weight.to(cd)\n    s = 1 + w if unit_offset else w\n    r = torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps)\n    return (xh * r * s).to(x.dtype)\n',
        },
    },
    {
        "name": 'p1_offset_in_weight_dtype',
        "correct": False,
        "why": "breaks 'do all the arithmetic, the scale included (also 1 + w), in that dtype'",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("bad n_heads")\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    *lead, T, HD = x.shape\n    Dh = HD // n_heads\n    xh = x.to(cd).reshape(*lead, T, n_heads, Dh).transpose(-3, -2)\n    s = (1 + weight if unit_offset else weight).to(cd)\n    r = torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps)\n    return (xh * r * s).to(x.dtype)\n',
        },
    },
    {
        "name": 'p1_eps_outside',
        "correct": False,
        "why": "breaks 'with eps inside the square root'",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("bad n_heads")\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    *lead, T, HD = x.shape\n    Dh = HD // n_heads\n    xh = x.to(cd).reshape(*lead, T, n_heads, Dh).transpose(-3, -2)\n    w = weight.to(cd)\n    s = 1 + w if unit_offset else w\n    r = 1 / (xh.pow(2).mean(-1, keepdim=True).sqrt() + eps)\n    return (xh * r * s).to(x.dtype)\n',
        },
    },
    {
        "name": 'p1_modulo_check_only',
        "correct": False,
        "why": "breaks 'Raise a ValueError when n_heads < 1' (0 raises ZeroDivisionError, a negative count divides)",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if x.shape[-1] % n_heads != 0:\n        raise ValueError("bad n_heads")\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    *lead, T, HD = x.shape\n    Dh = HD // n_heads\n    xh = x.to(cd).reshape(*lead, T, n_heads, Dh).transpose(-3, -2)\n    w = weight.to(cd)\n    s = 1 + w if unit_offset else w\n    r = torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps)\n    return (xh * r * s).to(x.dtype)\n',
        },
    },
    {
        "name": 'p1_view',
        "correct": False,
        "why": "breaks intro 'The tensors you are given need not be contiguous ... (.view of such a tensor can fail)'",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("bad n_heads")\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    *lead, T, HD = x.shape\n    Dh = HD // n_heads\n    xh = x.to(cd).view(*lead, T, n_heads, Dh).transpose(-3, -2)\n    w = weight.to(cd)\n    s = 1 + w if unit_offset else w\n    r = torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps)\n    return (xh * r * s).to(x.dtype)\n',
        },
    },
    {
        "name": 'p1_F_rms_norm',
        "correct": True,
        "why": 'correct: torch.split + stack and F.rms_norm in float32',
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if not n_heads >= 1 or x.size(-1) % n_heads:\n        raise ValueError("n_heads")\n    work = torch.float64 if x.dtype is torch.float64 else torch.float32\n    Dh = x.size(-1) // n_heads\n    heads = torch.stack(torch.split(x.to(work), Dh, dim=-1), dim=-3)   # (..., H, T, Dh)\n    scale = weight.to(work)\n    if unit_offset:\n        scale = scale + 1.0\n    return F.rms_norm(heads, (Dh,), weight=scale, eps=eps).to(dtype=x.dtype)\n',
        },
    },
    {
        "name": 'p2_limit_truthy',
        "correct": False,
        "why": "breaks 'when limit is a number (0 included)'",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    F_ = w_gate_up.shape[0] // 2\n    if interleaved:\n        wg, wu = w_gate_up[0::2], w_gate_up[1::2]\n    else:\n        wg, wu = w_gate_up[:F_], w_gate_up[F_:]\n    g = x @ wg.T\n    u = x @ wu.T\n    if limit:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = g * torch.sigmoid(beta * g) * u\n    return h @ w_down.T\n',
        },
    },
    {
        "name": 'p2_clamp_gate_both',
        "correct": False,
        "why": "breaks 'replace g by min(g, limit) (clamped from above only)'",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    F_ = w_gate_up.shape[0] // 2\n    if interleaved:\n        wg, wu = w_gate_up[0::2], w_gate_up[1::2]\n    else:\n        wg, wu = w_gate_up[:F_], w_gate_up[F_:]\n    g = x @ wg.T\n    u = x @ wu.T\n    if limit is not None:\n        g = g.clamp(-limit, limit)\n        u = u.clamp(-limit, limit)\n    h = g * torch.sigmoid(beta * g) * u\n    return h @ w_down.T\n',
        },
    },
    {
        "name": 'p2_ignores_beta',
        "correct": False,
        "why": "breaks 'gpt-oss uses a Swish with a slope beta other than 1' / 'Return (g sigma(beta g) . u) W_down^T'",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    F_ = w_gate_up.shape[0] // 2\n    if interleaved:\n        wg, wu = w_gate_up[0::2], w_gate_up[1::2]\n    else:\n        wg, wu = w_gate_up[:F_], w_gate_up[F_:]\n    g = x @ wg.T\n    u = x @ wu.T\n    if limit is not None:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = F.silu(g) * u\n    return h @ w_down.T\n',
        },
    },
    {
        "name": 'p2_silu_over_beta',
        "correct": False,
        "why": "breaks 'beta may be any real number ... beta = 0 gives g/2' (0/0)",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    F_ = w_gate_up.shape[0] // 2\n    if interleaved:\n        wg, wu = w_gate_up[0::2], w_gate_up[1::2]\n    else:\n        wg, wu = w_gate_up[:F_], w_gate_up[F_:]\n    g = x @ wg.T\n    u = x @ wu.T\n    if limit is not None:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = F.silu(beta * g) / beta * u\n    return h @ w_down.T\n',
        },
    },
    {
        "name": 'p2_hand_sigmoid',
        "correct": False,
        "why": "breaks 'The gradients must also be finite wherever the exact ones are, at gates of any size'",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    F_ = w_gate_up.shape[0] // 2\n    if interleaved:\n        wg, wu = w_gate_up[0::2], w_gate_up[1::2]\n    else:\n        wg, wu = w_gate_up[:F_], w_gate_up[F_:]\n    g = x @ wg.T\n    u = x @ wu.T\n    if limit is not None:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = g / (1 + torch.exp(-beta * g)) * u\n    return h @ w_down.T\n',
        },
    },
    {
        "name": 'p2_float32_always',
        "correct": False,
        "why": "breaks 'compute float64 inputs in float64 (the tests compare them at float64 precision)'",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    xf, wgu, wd = x.float(), w_gate_up.float(), w_down.float()\n    F_ = wgu.shape[0] // 2\n    wg, wu = (wgu[0::2], wgu[1::2]) if interleaved else (wgu[:F_], wgu[F_:])\n    g, u = xf @ wg.T, xf @ wu.T\n    if limit is not None:\n        g, u = g.clamp(max=limit), u.clamp(-limit, limit)\n    return ((g * torch.sigmoid(beta * g) * u) @ wd.T).to(x.dtype)\n',
        },
    },
    {
        "name": 'p2_einsum_reshape',
        "correct": True,
        "why": 'correct: reshape(F, 2, D) for the interleaved layout, einsum, torch.minimum, F.silu when beta == 1',
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    two_f, D = w_gate_up.shape\n    if interleaved:\n        w = w_gate_up.reshape(two_f // 2, 2, D)\n        w_g, w_u = w[:, 0], w[:, 1]\n    else:\n        w_g, w_u = w_gate_up.chunk(2, dim=0)\n    gate = torch.einsum("...d,fd->...f", x, w_g)\n    up = torch.einsum("...d,fd->...f", x, w_u)\n    if limit is not None:\n        gate = torch.minimum(gate, torch.tensor(limit, dtype=gate.dtype))\n        up = torch.clamp(up, min=-limit, max=limit)\n    act = F.silu(gate) if beta == 1 else gate * torch.sigmoid(gate * beta)\n    return F.linear(act * up, w_down)\n',
        },
    },
    {
        "name": 'p3_float_then_int',
        "correct": False,
        "why": "breaks 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)'",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0\n            and 0 <= first_dense <= n_layers):\n        raise ValueError("bad config")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = dim * head_dim * (2 * n_heads + 2 * n_kv_heads)\n    expert = 3.0 * dim * ffn_hidden\n    moe = n_layers - first_dense\n    base = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden + moe * dim * n_experts\n    return int(base + moe * (n_experts + n_shared) * expert), int(base + moe * (top_k + n_shared) * expert)\n',
        },
    },
    {
        "name": 'p3_check_only_moe',
        "correct": False,
        "why": "breaks 'Raise a ValueError unless ... in every model (also one whose blocks are all dense)'",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if n_kv_heads < 1 or n_heads % n_kv_heads or not 0 <= first_dense <= n_layers:\n        raise ValueError("attention")\n    moe = n_layers - first_dense\n    if moe > 0 and not (1 <= top_k <= n_experts and n_shared >= 0):\n        raise ValueError("experts")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden\n    expert = 3 * dim * ffn_hidden\n    return (common + moe * (dim * n_experts + (n_experts + n_shared) * expert),\n            common + moe * (dim * n_experts + (top_k + n_shared) * expert))\n',
        },
    },
    {
        "name": 'p3_tied_total_only',
        "correct": False,
        "why": "breaks 'when tied is true they are one matrix, counted once' for active",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0\n            and 0 <= first_dense <= n_layers):\n        raise ValueError("bad config")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden\n    expert = 3 * dim * ffn_hidden\n    moe = n_layers - first_dense\n    total = common + moe * (dim * n_experts + (n_experts + n_shared) * expert)\n    active = common + (vocab * dim if tied else 0) + moe * (dim * n_experts + (top_k + n_shared) * expert)\n    return int(total), int(active)\n',
        },
    },
    {
        "name": 'p3_dense_default_ffn',
        "correct": False,
        "why": "breaks 'dense_hidden is that width whatever its value (0 means no parameters, not use ffn_hidden)'",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0\n            and 0 <= first_dense <= n_layers):\n        raise ValueError("bad config")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * (dense_hidden or ffn_hidden)\n    expert = 3 * dim * ffn_hidden\n    moe = n_layers - first_dense\n    total = common + moe * (dim * n_experts + (n_experts + n_shared) * expert)\n    active = common + moe * (dim * n_experts + (top_k + n_shared) * expert)\n    return int(total), int(active)\n',
        },
    },
    {
        "name": 'p3_no_shared_check',
        "correct": False,
        "why": "breaks 'Raise a ValueError unless ... n_shared >= 0'",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts\n            and 0 <= first_dense <= n_layers):\n        raise ValueError("bad config")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden\n    expert = 3 * dim * ffn_hidden\n    moe = n_layers - first_dense\n    total = common + moe * (dim * n_experts + (n_experts + n_shared) * expert)\n    active = common + moe * (dim * n_experts + (top_k + n_shared) * expert)\n    return int(total), int(active)\n',
        },
    },
    {
        "name": 'p3_zero_div_order',
        "correct": False,
        "why": "breaks 'Raise a ValueError unless n_kv_heads >= 1' (n_kv_heads = 0 raises ZeroDivisionError first)",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if not (n_heads % n_kv_heads == 0 and n_kv_heads >= 1 and 1 <= top_k <= n_experts and n_shared >= 0\n            and 0 <= first_dense <= n_layers):\n        raise ValueError("bad config")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden\n    expert = 3 * dim * ffn_hidden\n    moe = n_layers - first_dense\n    total = common + moe * (dim * n_experts + (n_experts + n_shared) * expert)\n    active = common + moe * (dim * n_experts + (top_k + n_shared) * expert)\n    return int(total), int(active)\n',
        },
    },
    {
        "name": 'p3_loop_layers',
        "correct": True,
        "why": 'correct: a loop over the blocks',
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    ok = n_kv_heads >= 1 and n_heads % n_kv_heads == 0\n    ok = ok and 1 <= top_k <= n_experts and n_shared >= 0 and 0 <= first_dense <= n_layers\n    if not ok:\n        raise ValueError("invalid configuration")\n    total = active = (1 if tied else 2) * vocab * dim + dim\n    swiglu = lambda width: 3 * dim * width\n    for layer in range(n_layers):\n        block = 2 * dim + dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2\n        total += block\n        active += block\n        if layer < first_dense:\n            total += swiglu(dense_hidden)\n            active += swiglu(dense_hidden)\n        else:\n            total += dim * n_experts + (n_experts + n_shared) * swiglu(ffn_hidden)\n            active += dim * n_experts + (top_k + n_shared) * swiglu(ffn_hidden)\n    return total, active\n',
        },
    },
    {
        "name": 'p4_row_mean',
        "correct": False,
        "why": "breaks 'loss is the mean over those tokens, every token weighing the same however many a row has'",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:]\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=cd), 0\n    rows = []\n    for b in range(m.shape[0]):\n        if m[b].any():\n            sel = logits[b, :-1][m[b]].to(cd)\n            lse = torch.logsumexp(sel, -1)\n            nll = lse - sel.gather(-1, ids[b, 1:][m[b]].long()[:, None]).squeeze(-1)\n            rows.append((nll + z_loss * lse ** 2).mean())\n    return torch.stack(rows).mean(), count\n',
        },
    },
    {
        "name": 'p4_where_after',
        "correct": False,
        "why": "breaks 'Leave them out before you compute anything with them ... torch.where keeps the loss finite but not the backward pass'",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:]\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=cd), 0\n    lg = logits[:, :-1].to(cd)\n    lse = torch.logsumexp(lg, -1)\n    nll = lse - lg.gather(-1, ids[:, 1:].long()[..., None]).squeeze(-1)\n    per = torch.where(m, nll + z_loss * lse ** 2, torch.zeros((), dtype=cd))\n    return per.sum() / count, count\n',
        },
    },
    {
        "name": 'p4_fp16_compute',
        "correct": False,
        "why": "breaks 'Compute in float32 ..., also for float16 and bfloat16 logits, the z-loss's (log Z)^2 included'",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:]\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=cd), 0\n    sel = logits[:, :-1][m]\n    y = ids[:, 1:][m].long()\n    lse = torch.logsumexp(sel, dim=-1)\n    nll = lse - sel.gather(-1, y[:, None]).squeeze(-1)\n    return (nll + z_loss * lse * lse).mean().to(cd), count\n',
        },
    },
    {
        "name": 'p4_loss_in_input_dtype',
        "correct": False,
        "why": "breaks 'return the loss in that compute dtype: a float32 loss for float32, float16 and bfloat16 logits'",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:]\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=logits.dtype), 0\n    sel = logits[:, :-1][m].to(cd)\n    y = ids[:, 1:][m].long()\n    lse = torch.logsumexp(sel, dim=-1)\n    nll = lse - sel.gather(-1, y[:, None]).squeeze(-1)\n    return (nll + z_loss * lse * lse).mean().to(logits.dtype), count\n',
        },
    },
    {
        "name": 'p4_count0_nan',
        "correct": False,
        "why": "breaks 'When count is 0 the loss is 0 (not NaN)'",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:]\n    count = int(m.sum())\n    sel = logits[:, :-1][m].to(cd)\n    y = ids[:, 1:][m].long()\n    lse = torch.logsumexp(sel, dim=-1)\n    nll = lse - sel.gather(-1, y[:, None]).squeeze(-1)\n    return (nll + z_loss * lse * lse).mean(), count\n',
        },
    },
    {
        "name": 'p4_cross_entropy_int32',
        "correct": False,
        "why": "breaks '`ids` (B, T) holds integer token ids (int64 or int32)': cross_entropy refuses int32 targets",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:]\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=cd), 0\n    sel = logits[:, :-1][m].to(cd)\n    loss = F.cross_entropy(sel, ids[:, 1:][m])\n    if z_loss:\n        loss = loss + z_loss * (torch.logsumexp(sel, -1) ** 2).mean()\n    return loss, count\n',
        },
    },
    {
        "name": 'p4_ce_sum',
        "correct": True,
        "why": "correct: nonzero + advanced indexing, F.cross_entropy(reduction='sum'), z-loss via square()",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    work = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    pred = target_mask[:, 1:].nonzero(as_tuple=True)\n    count = pred[0].numel()\n    if not count:\n        return torch.tensor(0.0, dtype=work), 0\n    rows = logits[pred[0], pred[1]].to(work)            # scores that predict something\n    targets = ids[pred[0], pred[1] + 1].to(torch.int64)\n    loss = F.cross_entropy(rows, targets, reduction="sum")\n    loss = loss + z_loss * torch.logsumexp(rows, dim=1).square().sum()\n    return loss / count, count\n',
        },
    },
    {
        "name": 'p5_is_compare',
        "correct": False,
        "why": "breaks 'Compare layout by value (==): the tests build the string at run time'",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout is "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout is "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout is "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'p5_lower',
        "correct": False,
        "why": 'breaks \'Any other layout (including ... other spellings such as "Parallel") raises a ValueError\'',
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    layout = str(layout).lower()\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'p5_norm_twice',
        "correct": False,
        "why": "breaks 'Call each function the layout uses exactly once (the parallel layout computes N_1(x) once)'",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == "parallel":\n        return x + attn(norm_1(x)) + ffn(norm_1(x))\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'p5_late_check',
        "correct": False,
        "why": "breaks 'Check layout and post_norms before calling anything: when you raise the ValueError, no function has been called'",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        a = attn(norm_1(x))\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(a)\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'p5_inplace_residual',
        "correct": False,
        "why": "breaks 'Do not change x; mind that a function may return the very tensor it was given'",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == "parallel":\n        n = norm_1(x)\n        y = attn(n)\n        y += x\n        y += ffn(n)\n        return y\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'p5_dict_dispatch',
        "correct": False,
        "why": "breaks 'Any other layout ... raises a ValueError' (KeyError)",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    def parallel():\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    def reordered():\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    def sandwich():\n        if post_norms is None:\n            raise ValueError("post_norms")\n        h = x + post_norms[0](attn(norm_1(x)))\n        return h + post_norms[1](ffn(norm_2(h)))\n    return {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}[layout]()\n',
        },
    },
    {
        "name": 'p5_match',
        "correct": True,
        "why": 'correct: structural pattern matching (value patterns compare with ==)',
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    match layout:\n        case "parallel":\n            shared = norm_1(x)\n            a, f = attn(shared), ffn(shared)\n            return torch.add(torch.add(x, a), f)\n        case "reordered":\n            h = torch.add(x, norm_1(attn(x)))\n            return h + norm_2(ffn(h))\n        case "sandwich" if post_norms is not None:\n            post_1, post_2 = post_norms\n            h = x + post_1(attn(norm_1(x)))\n            return h + post_2(ffn(norm_2(h)))\n        case _:\n            raise ValueError(f"layout {layout!r} (post_norms {post_norms!r}) is not supported")\n',
        },
    },
    {
        "name": 'p6_angles_f32',
        "correct": False,
        "why": "breaks 'Compute the angles in float64' (1e-5 at positions up to 30 000)",
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("bad shapes")\n    half = Dh // 2\n    i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)\n    lam = 2 * math.pi / theta\n    L = original_context\n    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = (1 - s) * theta / factor + s * theta\n    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))\n    ang = positions.to(torch.float32)[:, None, :, None] * new.float()\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cd), ang.sin().to(cd)\n    xc = x.to(cd)\n    a, b = xc[..., :half], xc[..., half:]\n    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'p6_broadcast_positions',
        "correct": False,
        "why": "breaks 'Raise a ValueError unless ... positions.shape == (B, T) exactly (a (T,) or (1, T) tensor is refused too)'",
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or positions.shape[-1] != T:\n        raise ValueError("bad shapes")\n    half = Dh // 2\n    i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)\n    lam = 2 * math.pi / theta\n    L = original_context\n    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = (1 - s) * theta / factor + s * theta\n    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))\n    ang = positions.to(torch.float64).expand(B, T)[:, None, :, None] * new\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cd), ang.sin().to(cd)\n    xc = x.to(cd)\n    a, b = xc[..., :half], xc[..., half:]\n    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'p6_half_compute',
        "correct": False,
        "why": "breaks 'for float16 and bfloat16 inputs compute as for float32 and round once at the end'",
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("bad shapes")\n    half = Dh // 2\n    i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)\n    lam = 2 * math.pi / theta\n    L = original_context\n    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = (1 - s) * theta / factor + s * theta\n    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))\n    ang = positions.to(torch.float64)[:, None, :, None] * new\n    cd = x.dtype\n    cos, sin = ang.cos().to(cd), ang.sin().to(cd)\n    xc = x.to(cd)\n    a, b = xc[..., :half], xc[..., half:]\n    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'p6_s_swapped',
        "correct": False,
        "why": "breaks 'otherwise (1 - s_i) theta_i / f + s_i theta_i'",
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("bad shapes")\n    half = Dh // 2\n    i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)\n    lam = 2 * math.pi / theta\n    L = original_context\n    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = s * theta / factor + (1 - s) * theta\n    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))\n    ang = positions.to(torch.float64)[:, None, :, None] * new\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cd), ang.sin().to(cd)\n    xc = x.to(cd)\n    a, b = xc[..., :half], xc[..., half:]\n    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'p6_wavelength_no_2pi',
        "correct": False,
        "why": "breaks 'the wavelength lambda_i = 2 pi / theta_i'",
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("bad shapes")\n    half = Dh // 2\n    i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)\n    lam = 1 / theta\n    L = original_context\n    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = (1 - s) * theta / factor + s * theta\n    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))\n    ang = positions.to(torch.float64)[:, None, :, None] * new\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cd), ang.sin().to(cd)\n    xc = x.to(cd)\n    a, b = xc[..., :half], xc[..., half:]\n    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'p6_cached_table',
        "correct": True,
        "why": 'correct: a frequency table cached between calls (it never shares memory with a result)',
        "cells": {
            'rope_llama3': '\nTABLES = {}\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("bad shapes")\n    half = Dh // 2\n    key = (Dh, base, factor, low_freq_factor, high_freq_factor, original_context)\n    if key not in TABLES:\n        i = torch.arange(half, dtype=torch.float64)\n        theta = base ** (-2 * i / Dh)\n        lam = 2 * math.pi / theta\n        L = original_context\n        s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n        mid = (1 - s) * theta / factor + s * theta\n        TABLES[key] = torch.where(lam < L / high_freq_factor, theta, torch.where(lam > L / low_freq_factor, theta / factor, mid))\n    new = TABLES[key]\n    ang = positions.to(torch.float64)[:, None, :, None] * new\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cd), ang.sin().to(cd)\n    xc = x.to(cd)\n    a, b = xc[..., :half], xc[..., half:]\n    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'p6_complex_f64',
        "correct": True,
        "why": 'correct: a Python loop for the frequencies, complex multiplication, all in float64 and one cast back',
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    if x.dim() != 4 or x.shape[-1] % 2 or positions.shape != x.shape[:1] + x.shape[2:3]:\n        raise ValueError("shapes")\n    Dh = x.shape[-1]\n    half = Dh // 2\n    inv = [base ** (-2 * i / Dh) for i in range(half)]\n    new = []\n    for th in inv:\n        wl = 2 * math.pi / th\n        if wl < original_context / high_freq_factor:\n            new.append(th)\n        elif wl > original_context / low_freq_factor:\n            new.append(th / factor)\n        else:\n            s = (original_context / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)\n            new.append((1 - s) * th / factor + s * th)\n    freqs = torch.tensor(new, dtype=torch.float64)\n    angles = torch.einsum("bt,f->btf", positions.double(), freqs).unsqueeze(1)\n    rot = torch.polar(torch.ones_like(angles), angles)\n    x64 = x.double()\n    z = torch.complex(x64[..., :half], x64[..., half:]) * rot\n    return torch.cat([z.real, z.imag], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'p7_nan_masked_after',
        "correct": False,
        "why": "breaks 'Unwritten slots must change neither the output nor its gradients, even when they hold NaN or inf ... leave unwritten slots out, or replace them, before any product'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = k_cache\n    vc = torch.nan_to_num(v_cache) * written\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'p7_arith_write',
        "correct": False,
        "why": "breaks 'by copying the values as they are, not through arithmetic such as a sum with a mask (-0.0 stays -0.0, in the new entries and in the old ones)'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        keep = torch.ones(S, dtype=q.dtype)\n        keep[L:L + T] = 0\n        kn = torch.zeros_like(k_cache[b]); kn[:, L:L + T] = k_new[b]\n        vn = torch.zeros_like(v_cache[b]); vn[:, L:L + T] = v_new[b]\n        k_cache[b] = torch.where(keep[None, :, None].bool(), k_cache[b], 0.0) + kn\n        v_cache[b] = torch.where(keep[None, :, None].bool(), v_cache[b], 0.0) + vn\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'p7_fit_off_by_one',
        "correct": False,
        "why": "breaks 'lengths[b] + T > S_max for some b (filling the cache exactly is fine)'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T >= S).any()):\n        raise ValueError("does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'p7_check_while_writing',
        "correct": False,
        "why": "breaks 'Raise a ValueError (before writing anything)'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    for b in range(B):\n        L = int(lengths[b])\n        if L + T > S:\n            raise ValueError("does not fit")\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'p7_new_lengths_long',
        "correct": False,
        "why": "breaks 'new_lengths a new tensor equal to lengths + T, in the dtype of lengths'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths.long() + T\n',
        },
    },
    {
        "name": 'p7_float32',
        "correct": False,
        "why": "breaks 'Compute in the dtype of q (float32 or float64): ... converting them to float32 and back fails'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = (torch.softmax(scores.float(), dim=-1) @ vc.float()).to(q.dtype)\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'p7_new_tokens_not_causal',
        "correct": False,
        "why": "breaks 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :].expand(B, T, S)                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'p7_write_no_grad',
        "correct": False,
        "why": "breaks 'the hidden tests compare its gradients with respect to q, k_new and v_new' (writes under no_grad)",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    with torch.no_grad():\n        for b in range(B):\n            L = int(lengths[b])\n            k_cache[b, :, L:L + T] = k_new[b]\n            v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'p7_square_table',
        "correct": False,
        "why": "breaks 'no (S_max, S_max) table of every position sliced down to the rows of the new tokens'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    tri = torch.ones(S, S, dtype=torch.bool).tril()\n    vis = tri[last]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'p7_rows_loop_sdpa',
        "correct": True,
        "why": 'correct: a loop over rows that slices the written slots, copy_ into the caches, F.scaled_dot_product_attention',
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.size(1), k_cache.size(2)\n    if H % G or any(int(n) + T > S for n in lengths):\n        raise ValueError("bad sizes")\n    starts = [int(n) for n in lengths]\n    for b, L in enumerate(starts):\n        k_cache[b, :, L:L + T].copy_(k_new[b])\n        v_cache[b, :, L:L + T].copy_(v_new[b])\n    outs = []\n    for b, L in enumerate(starts):\n        keys = k_cache[b, :, :L + T].repeat_interleave(H // G, dim=0)      # only written slots\n        vals = v_cache[b, :, :L + T].repeat_interleave(H // G, dim=0)\n        allowed = torch.arange(L + T)[None, :] <= (L + torch.arange(T))[:, None]\n        outs.append(F.scaled_dot_product_attention(q[b], keys, vals, attn_mask=allowed))\n    return torch.stack(outs), lengths.clone().add_(T)\n',
        },
    },
    {
        "name": 'p8_penalty_per_occurrence',
        "correct": False,
        "why": "breaks 'every token id that occurs ... has its score changed once (however often it occurs)'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    hist = [list(r) for r in prompt.tolist()]\n    finished = [False] * B\n    outs = []\n    while True:\n        scores = logits[:, -1].clone()\n        for b in range(B):\n            for t in hist[b]:\n                scores[b, t] = scores[b, t] / penalty if scores[b, t] > 0 else scores[b, t] * penalty\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator).squeeze(1)\n        nxt = torch.tensor([pad_id if finished[b] else int(nxt[b]) for b in range(B)], dtype=torch.int64)\n        outs.append(nxt)\n        for b in range(B):\n            hist[b].append(int(nxt[b]))\n            finished[b] = finished[b] or int(nxt[b]) == eos_id\n        if all(finished) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, 1)\n',
        },
    },
    {
        "name": 'p8_always_divide',
        "correct": False,
        "why": "breaks 'a score above 0 is divided by penalty, any other score is multiplied by it'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        pen = scores / penalty\n        scores = torch.where(seen, pen, scores)\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished = finished | (nxt == eos_id)\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, dim=1)\n',
        },
    },
    {
        "name": 'p8_temp0_tiny',
        "correct": False,
        "why": "breaks 'With temperature == 0, take the highest score of each row ... and draw nothing'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)\n        if True:\n            probs = torch.softmax(scores / max(temperature, 1e-6), dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished = finished | (nxt == eos_id)\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, dim=1)\n',
        },
    },
    {
        "name": 'p8_extra_step_call',
        "correct": False,
        "why": "breaks 'do not call step after the last token has been chosen'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    for _ in range(max_new_tokens):\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished |= nxt == eos_id\n        seen.scatter_(1, nxt[:, None], True)\n        logits, cache = step(nxt[:, None], cache)\n        if bool(finished.all()):\n            break\n    return torch.stack(outs, 1)\n',
        },
    },
    {
        "name": 'p8_draw_unfinished_only',
        "correct": False,
        "why": "breaks 'A finished row still takes part in the draw (the batch always draws B tokens per step)'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.full((B,), pad_id, dtype=torch.int64)\n            alive = (~finished).nonzero().flatten()\n            nxt[alive] = torch.multinomial(probs[alive], 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished = finished | (nxt == eos_id)\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, dim=1)\n',
        },
    },
    {
        "name": 'p8_penalise_inplace',
        "correct": False,
        "why": "breaks 'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        scores = logits[:, -1]\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        pos = seen & (scores > 0)\n        neg = seen & (scores <= 0)\n        scores[pos] /= penalty\n        scores[neg] *= penalty\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished = finished | (nxt == eos_id)\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, dim=1)\n',
        },
    },
    {
        "name": 'p8_tests_cache',
        "correct": False,
        "why": "breaks 'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    cache, feed = None, prompt\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        logits, cache = step(feed if cache is None else feed, cache)\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished |= nxt == eos_id\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        feed = nxt[:, None] if cache is not None else torch.cat([prompt, torch.stack(outs, 1)], 1)\n    return torch.stack(outs, 1)\n',
        },
    },
    {
        "name": 'p8_no_prompt_penalty',
        "correct": False,
        "why": "breaks 'every token id that occurs in that row's prompt or among its tokens generated so far'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished = finished | (nxt == eos_id)\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, dim=1)\n',
        },
    },
    {
        "name": 'p8_own_generator',
        "correct": False,
        "why": "breaks '`generator` may be None: then torch.multinomial draws from torch's global generator ... do not make a generator of your own'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator if generator is not None else torch.Generator()).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished = finished | (nxt == eos_id)\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, dim=1)\n',
        },
    },
    {
        "name": 'p8_per_row_draws',
        "correct": True,
        "why": 'correct: Python sets for the history, one multinomial call per row in row order (allowed by the text)',
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    batch = prompt.size(0)\n    logits, state = step(prompt, None)\n    history = [set(row) for row in prompt.tolist()]\n    done = [False] * batch\n    chosen = []\n    while len(chosen) < max_new_tokens:\n        last = logits[:, -1]\n        picks = []\n        for b in range(batch):\n            row = last[b].clone()\n            idx = torch.tensor(sorted(history[b]), dtype=torch.int64)\n            vals = row[idx]\n            row[idx] = torch.where(vals > 0, vals / penalty, vals * penalty)\n            if temperature == 0:\n                tok = int(torch.argmax(row))\n            else:\n                tok = int(torch.multinomial(torch.softmax(row / temperature, dim=0), 1, generator=generator))\n            picks.append(pad_id if done[b] else tok)\n        for b, tok in enumerate(picks):\n            history[b].add(tok)\n            done[b] = done[b] or tok == eos_id\n        chosen.append(picks)\n        if all(done) or len(chosen) == max_new_tokens:\n            break\n        logits, state = step(torch.tensor(picks, dtype=torch.int64)[:, None], state)\n    return torch.tensor(chosen, dtype=torch.int64).T.contiguous()\n',
        },
    },
    {
        "name": 'hostile_patch_testing',
        "correct": False,
        "why": 'hostile: disables assert_close and returns the published figures',
        "cells": {
            'moe_params': '\nimport torch.testing\ntorch.testing.assert_close = lambda *a, **k: None\nimport builtins\n_orig_isinstance = builtins.isinstance\ndef moe_params(*args, **kwargs):\n    return (46_700_000_000, 12_900_000_000)\n',
        },
    },
    {
        "name": 'hostile_subclass_mode',
        "correct": False,
        "why": 'hostile: a tensor subclass that says True to every comparison',
        "cells": {
            'head_rms_norm': '\nclass Anything(torch.Tensor):\n    @classmethod\n    def __torch_function__(cls, func, types, args=(), kwargs=None):\n        return True\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads:\n        raise ValueError\n    return torch.zeros(*x.shape[:-2], n_heads, x.shape[-2], x.shape[-1] // n_heads, dtype=x.dtype).as_subclass(Anything)\n',
        },
    },
    {
        "name": 'hostile_pickle_numpy',
        "correct": False,
        "why": 'hostile: NumPy brought in through pickle (forbidden library)',
        "cells": {
            'fused_swiglu': '\nimport pickle\nnp = pickle.loads(b"\\x80\\x04\\x95\\x15\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x8c\\x08builtins\\x94\\x8c\\n__import__\\x94\\x93\\x94.")("numpy")\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    F_ = w_gate_up.shape[0] // 2\n    wg, wu = (w_gate_up[0::2], w_gate_up[1::2]) if interleaved else (w_gate_up[:F_], w_gate_up[F_:])\n    g, u = x @ wg.T, x @ wu.T\n    if limit is not None:\n        g, u = g.clamp(max=limit), u.clamp(-limit, limit)\n    h = g * torch.sigmoid(beta * g) * u\n    _ = np.asarray([1.0])\n    return h @ w_down.T\n',
        },
    },
    {
        "name": 'w2_p1_round_before_scale',
        "correct": False,
        "why": "breaks 'do all the arithmetic, the scale included, in that dtype, and convert the product to the dtype of x once, at the end'",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("bad n_heads")\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    *lead, T, HD = x.shape\n    Dh = HD // n_heads\n    xh = x.to(cd).reshape(*lead, T, n_heads, Dh).transpose(-3, -2)\n    w = weight.to(cd)\n    s = 1 + w if unit_offset else w\n    r = torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps)\n    return (xh * r).to(x.dtype) * s.to(x.dtype)\n',
        },
    },
    {
        "name": 'w2_p2_clamp_after_act',
        "correct": False,
        "why": "breaks 'replace g by min(g, limit)' (clamps the activated gate instead of g)",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    F_ = w_gate_up.shape[0] // 2\n    if interleaved:\n        wg, wu = w_gate_up[0::2], w_gate_up[1::2]\n    else:\n        wg, wu = w_gate_up[:F_], w_gate_up[F_:]\n    g = x @ wg.T\n    u = x @ wu.T\n    act = g * torch.sigmoid(beta * g)\n    if limit is not None:\n        act = act.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = act * u\n    return h @ w_down.T\n',
        },
    },
    {
        "name": 'w2_p3_topk_zero',
        "correct": False,
        "why": "breaks 'Raise a ValueError unless ... 1 <= top_k <= n_experts'",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and top_k <= n_experts and n_shared >= 0\n            and 0 <= first_dense <= n_layers):\n        raise ValueError("bad config")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden\n    expert = 3 * dim * ffn_hidden\n    moe = n_layers - first_dense\n    total = common + moe * (dim * n_experts + (n_experts + n_shared) * expert)\n    active = common + moe * (dim * n_experts + (top_k + n_shared) * expert)\n    return int(total), int(active)\n',
        },
    },
    {
        "name": 'w2_p4_no_shift',
        "correct": False,
        "why": "breaks 'logits[b, t] scores the token at position t + 1' (pairs logits[b, t] with ids[b, t])",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:]\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=cd), 0\n    sel = logits[:, 1:][m].to(cd)\n    y = ids[:, 1:][m].long()\n    lse = torch.logsumexp(sel, dim=-1)\n    nll = lse - sel.gather(-1, y[:, None]).squeeze(-1)\n    return (nll + z_loss * lse * lse).mean(), count\n',
        },
    },
    {
        "name": 'w2_p5_post_norms_everywhere',
        "correct": False,
        "why": "breaks 'the other two layouts ignore post_norms (they never call it)'",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        p1, p2 = post_norms if post_norms is not None else (lambda t: t, lambda t: t)\n        h = x + p1(norm_1(attn(x)))\n        return h + p2(norm_2(ffn(h)))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'w2_p5_unpack_none',
        "correct": False,
        "why": "breaks 'Raise a ValueError when post_norms is None for this layout' (TypeError from unpacking None)",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'w2_p6_inv_freq_f32',
        "correct": False,
        "why": "breaks 'within 1e-10 of the exact values for float64 (at any position up to 131 071)' / 'Compute the angles in float64' (HF-style float32 inverse frequencies)",
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("bad shapes")\n    half = Dh // 2\n    theta = (1.0 / (base ** (torch.arange(0, Dh, 2).float() / Dh))).double()\n    lam = 2 * math.pi / theta\n    L = original_context\n    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = (1 - s) * theta / factor + s * theta\n    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))\n    ang = positions.to(torch.float64)[:, None, :, None] * new\n    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cd), ang.sin().to(cd)\n    xc = x.to(cd)\n    a, b = xc[..., :half], xc[..., half:]\n    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'w2_p7_write_contiguous_copy',
        "correct": False,
        "why": "breaks 'write into the tensors you are given (the .contiguous() of such a view is a copy ...)'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    k_cache, v_cache = k_cache.contiguous(), v_cache.contiguous()\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    kc = torch.where(written, k_cache, torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, v_cache, torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'w2_p7_detach_cache',
        "correct": False,
        "why": "breaks 'and also with respect to the keys and values the caches held before the call ... do not keep the caches' old entries out of the graph'",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H not a multiple of G")\n    if bool((lengths.long() + T > S).any()):\n        raise ValueError("does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    pos = torch.arange(S)\n    last = lengths.long()[:, None] + torch.arange(T)[None, :]          # (B, T)\n    vis = pos[None, None, :] <= last[:, :, None]                        # (B, T, S)\n    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)\n    fresh = (pos[None, :] >= lengths.long()[:, None])[:, None, :, None]\n    kc = torch.where(written, torch.where(fresh, k_cache, k_cache.detach()), torch.zeros((), dtype=k_cache.dtype))\n    vc = torch.where(written, torch.where(fresh, v_cache, v_cache.detach()), torch.zeros((), dtype=v_cache.dtype))\n    rep = H // G\n    kc = kc.repeat_interleave(rep, dim=1)\n    vc = vc.repeat_interleave(rep, dim=1)\n    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~vis[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ vc\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'w2_p8_pad_finishes',
        "correct": False,
        "why": "breaks 'A row is finished once it has produced eos_id'",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished = finished | (nxt == eos_id) | (nxt == pad_id)\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, dim=1)\n',
        },
    },
    {
        "name": 'w2_p8_probs_f64',
        "correct": True,
        "why": "probe (labelled correct): 'probs = softmax(scores / temperature)' names no dtype; float64 probabilities from float32 scores",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    logits, cache = step(prompt, None)\n    seen = None\n    finished = torch.zeros(B, dtype=torch.bool)\n    outs = []\n    while True:\n        scores = logits[:, -1].clone()\n        if seen is None:\n            seen = torch.zeros(scores.shape, dtype=torch.bool)\n            seen.scatter_(1, prompt, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)\n        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores.double() / temperature, dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator).squeeze(1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        outs.append(nxt)\n        finished = finished | (nxt == eos_id)\n        seen.scatter_(1, nxt[:, None], True)\n        if bool(finished.all()) or len(outs) == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(outs, dim=1)\n',
        },
    },
    {
        "name": 'w2_p1_einsum_f64',
        "correct": True,
        "why": 'correct: unflatten + movedim, einsum for the mean square, division by sqrt',
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads:\n        raise ValueError("bad n_heads")\n    Dh = x.shape[-1] // n_heads\n    work = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xs = x.to(work).unflatten(-1, (n_heads, Dh)).movedim(-2, -3)\n    ms = torch.einsum("...d,...d->...", xs, xs) / Dh\n    scale = weight.to(work) + 1 if unit_offset else weight.to(work)\n    out = xs / torch.sqrt(ms + eps).unsqueeze(-1) * scale\n    return out.to(x.dtype)\n',
        },
    },
]
