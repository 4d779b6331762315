"""Red-team round 30, chapter 09: blind submissions (kinds: V validator, B batch-mixer, G gradient-path,
I incremental, S second-call, OK correct, H hostile)."""

SUBMISSIONS = [
    {
        "name": 'V_rms_divmod_before_head_check',
        "correct": False,
        "why": "Part 1: 'Raise a ValueError when n_heads < 1' -- n_heads = 0 raises ZeroDivisionError from divmod first.",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    Dh, rest = divmod(x.shape[-1], n_heads)\n    if n_heads < 1 or rest:\n        raise ValueError("the last axis must split into n_heads >= 1 equal parts")\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xh = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)\n    ms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True)\n    rms = torch.sqrt(ms + eps)\n    w = weight.to(cdt)\n    s = 1 + w if unit_offset else w\n    y = (xh.to(torch.float64) / rms).to(cdt) * s\n    return y.to(x.dtype)\n',
        },
    },
    {
        "name": 'V_rms_only_zero_heads_refused',
        "correct": False,
        "why": "Part 1: 'Raise a ValueError when n_heads < 1' -- a negative n_heads passes the check (and fails later with another error or a wrong shape).",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads == 0 or x.shape[-1] % n_heads != 0:\n        raise ValueError("the last axis must split into n_heads equal parts")\n\n    Dh = x.shape[-1] // n_heads\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xh = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)\n    ms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True)\n    rms = torch.sqrt(ms + eps)\n    w = weight.to(cdt)\n    s = 1 + w if unit_offset else w\n    y = (xh.to(torch.float64) / rms).to(cdt) * s\n    return y.to(x.dtype)\n',
        },
    },
    {
        "name": 'V_swiglu_limit_zero_taken_as_none',
        "correct": False,
        "why": "Part 2: 'when limit is a number (0 included)' -- limit = 0 is falsy, so nothing is clamped.",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xc, wgu, wd = x.to(cdt), w_gate_up.to(cdt), w_down.to(cdt)\n    F_ = wgu.shape[0] // 2\n    if interleaved:\n        wg, wu = wgu[0::2], wgu[1::2]\n    else:\n        wg, wu = wgu[:F_], wgu[F_:]\n    g = xc @ wg.T\n    u = xc @ wu.T\n    if limit:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = g * torch.sigmoid(beta * g) * u\n    return (h @ wd.T).to(x.dtype)\n',
        },
    },
    {
        "name": 'V_moe_top_k_checked_only_with_experts',
        "correct": False,
        "why": "Part 3: 'Raise a ValueError unless ... 1 <= top_k <= n_experts, n_shared >= 0 ... in every model (also one whose blocks are all dense)' -- checked only when some block has experts.",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:\n        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")\n    if not (0 <= first_dense <= n_layers):\n        raise ValueError("need 0 <= first_dense <= n_layers")\n    moe_blocks = n_layers - first_dense\n    if moe_blocks > 0:\n        if not (1 <= top_k <= n_experts):\n            raise ValueError("need 1 <= top_k <= n_experts")\n        if n_shared < 0:\n            raise ValueError("n_shared < 0")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    expert = 3 * dim * ffn_hidden\n    common = emb + dim + n_layers * (2 * dim + attn) + first_dense * 3 * dim * dense_hidden \\\n        + moe_blocks * (dim * n_experts + n_shared * expert)\n    return common + moe_blocks * n_experts * expert, common + moe_blocks * top_k * expert\n',
        },
    },
    {
        "name": 'V_moe_refuses_zero_query_heads',
        "correct": False,
        "why": "Part 3: '(0 is a multiple of every count: n_heads = 0 raises nothing)' -- n_heads = 0 raises.",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if n_kv_heads < 1 or n_heads < 1 or n_heads % n_kv_heads != 0:\n        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")\n    if not (1 <= top_k <= n_experts):\n        raise ValueError("need 1 <= top_k <= n_experts")\n    if n_shared < 0:\n        raise ValueError("n_shared < 0")\n    if not (0 <= first_dense <= n_layers):\n        raise ValueError("need 0 <= first_dense <= n_layers")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    expert = 3 * dim * ffn_hidden\n    moe_blocks = n_layers - first_dense\n    common = emb + dim + n_layers * (2 * dim + attn) + first_dense * 3 * dim * dense_hidden \\\n        + moe_blocks * (dim * n_experts + n_shared * expert)\n    return common + moe_blocks * n_experts * expert, common + moe_blocks * top_k * expert\n',
        },
    },
    {
        "name": 'V_ragged_refuses_exactly_full_cache',
        "correct": False,
        "why": "Part 7: 'lengths[b] + T > S_max ... (filling the cache exactly is fine)' -- a row that fills the cache exactly raises.",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and bool((lengths.long() + T >= S).any()):\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'V_ragged_checks_first_row_only',
        "correct": False,
        "why": "Part 7: 'when a row would not fit: lengths[b] + T > S_max for some b' -- only row 0 is checked; a later row that does not fit raises another error (or is written partly).",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and int(lengths[0]) + T > S:\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'V_ragged_checks_while_writing',
        "correct": False,
        "why": "Part 7: 'Raise a ValueError (before writing anything)' -- rows before the one that does not fit are already written.",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    for b in range(B):\n        L = int(lengths[b])\n        if L + T > S:\n            raise ValueError(f"row {b} does not fit")\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'V_block_refuses_post_norms_elsewhere',
        "correct": False,
        "why": "Part 5: 'the other two layouts ignore post_norms (they never call it)' -- post_norms given with them raises.",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout not in ("parallel", "reordered", "sandwich"):\n        raise ValueError(f"unknown layout {layout!r}")\n    if (layout == "sandwich") != (post_norms is not None):\n        raise ValueError("post_norms is for the sandwich layout only, and it needs them")\n\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'V_rope_refuses_positions_past_scaled_context',
        "correct": False,
        "why": "Part 6: 'each between 0 and 131 071 (the 128K context)' -- positions at or past original_context * factor raise (65 536 by default... with factor 8 and 8192 that is 65 536 < 131 071).",
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("Dh must be even and positions (B, T)")\n    if positions.numel() and (int(positions.min()) < 0 or int(positions.max()) >= original_context * factor):\n        raise ValueError("position outside the extended context")\n    half = Dh // 2\n    i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)\n    wl = 2 * math.pi / theta\n    L = original_context\n    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n    s = (L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = (1 - s) * theta / factor + s * theta\n    new = torch.where(wl < lam_high, theta, torch.where(wl > lam_low, theta / factor, mid))\n    ang = positions.to(torch.float64)[:, None, :, None] * new\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cdt), ang.sin().to(cdt)\n    xc = x.to(cdt)\n    x1, x2 = xc[..., :half], xc[..., half:]\n    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)\n    return out.to(x.dtype)\n',
        },
    },
    {
        "name": 'V_generate_asserts_a_cache',
        "correct": False,
        "why": "Part 8: 'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it'.",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    hist = [set(prompt[b].tolist()) for b in range(B)]\n    logits, cache = step(prompt, None)\n    if cache is None:\n        raise ValueError("step returned no cache")\n    done = torch.zeros(B, dtype=torch.bool)\n    out = []\n    for n in range(max_new_tokens):\n        sc = logits[:, -1].clone()\n        for b in range(B):\n            ids = torch.tensor(sorted(hist[b]), dtype=torch.long)\n            v = sc[b, ids]\n            sc[b, ids] = torch.where(v > 0, v / penalty, v * penalty)\n        if temperature == 0:\n            tok = sc.argmax(dim=-1)\n        else:\n            probs = torch.softmax(sc / temperature, dim=-1)\n            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n        tok = torch.where(done, torch.full_like(tok, pad_id), tok)\n        out.append(tok)\n        for b in range(B):\n            hist[b].add(int(tok[b]))\n        done = done | (tok == eos_id)\n        if bool(done.all()) or n == max_new_tokens - 1:\n            break\n        logits, cache = step(tok[:, None], cache)\n    return torch.stack(out, dim=1)\n',
        },
    },
    {
        "name": 'B_rms_mean_over_positions_too',
        "correct": False,
        "why": "Part 1: 'the mean taken over that head's Dh features only' -- over the head's features at every position.",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("the last axis must split into n_heads >= 1 equal parts")\n    Dh = x.shape[-1] // n_heads\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xh = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)\n    ms = xh.to(torch.float64).pow(2).mean((-2, -1), keepdim=True)\n    rms = torch.sqrt(ms + eps)\n    w = weight.to(cdt)\n    s = 1 + w if unit_offset else w\n    y = (xh.to(torch.float64) / rms).to(cdt) * s\n    return y.to(x.dtype)\n',
        },
    },
    {
        "name": 'B_masked_lm_count_assumes_position0_set',
        "correct": False,
        "why": "Part 4: 'count is the number of predicted tokens' and 'target_mask[:, 0] is ignored' -- one per row subtracted, right only when every row's position 0 is True.",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:].bool()\n    if not bool(m.any()):\n        return torch.zeros((), dtype=cdt), 0\n    count = int(target_mask.sum()) - target_mask.shape[0]   # position 0 is always part of the prompt\n    sel = logits[:, :-1][m].to(cdt)\n    y = ids[:, 1:][m].long()\n    lz = torch.logsumexp(sel, dim=-1)\n    per = -(sel.gather(-1, y[:, None]).squeeze(-1) - lz) + z_loss * lz ** 2\n    return per.mean(), count\n',
        },
    },
    {
        "name": 'B_ragged_unwritten_slots_from_longest_row',
        "correct": False,
        "why": "Part 7: 'Unwritten slots must change neither the output nor its gradients, even when they hold NaN' -- a shorter row's unwritten slots are kept (masked only after the product).",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and bool((lengths.long() + T > S).any()):\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = (pos < end.max()).expand(B, S)                    # slots written in some row\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'B_generate_penalty_history_of_whole_batch',
        "correct": False,
        "why": "Part 8: 'in each row, every token id that occurs in that row's prompt or among its tokens generated so far' -- one history for the whole batch.",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    seen = set(prompt.reshape(-1).tolist())\n    logits, cache = step(prompt, None)\n    done = torch.zeros(B, dtype=torch.bool)\n    out = []\n    for n in range(max_new_tokens):\n        sc = logits[:, -1].clone()\n        ids = torch.tensor(sorted(seen), dtype=torch.long)\n        v = sc[:, ids]\n        sc[:, ids] = torch.where(v > 0, v / penalty, v * penalty)\n        if temperature == 0:\n            tok = sc.argmax(dim=-1)\n        else:\n            probs = torch.softmax(sc / temperature, dim=-1)\n            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n        tok = torch.where(done, torch.full_like(tok, pad_id), tok)\n        out.append(tok)\n        seen.update(tok.tolist())\n        done = done | (tok == eos_id)\n        if bool(done.all()) or n == max_new_tokens - 1:\n            break\n        logits, cache = step(tok[:, None], cache)\n    return torch.stack(out, dim=1)\n',
        },
    },
    {
        "name": 'B_rope_first_row_positions_for_all',
        "correct": False,
        "why": "Part 6: 'row b holds the positions of sequence b (they differ from row to row)' -- row 0's positions for every row.",
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("Dh must be even and positions (B, T)")\n    half = Dh // 2\n    i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)\n    wl = 2 * math.pi / theta\n    L = original_context\n    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n    s = (L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)\n    mid = (1 - s) * theta / factor + s * theta\n    new = torch.where(wl < lam_high, theta, torch.where(wl > lam_low, theta / factor, mid))\n    ang = positions[0].to(torch.float64)[None, None, :, None] * new   # positions shared by the batch\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cdt), ang.sin().to(cdt)\n    xc = x.to(cdt)\n    x1, x2 = xc[..., :half], xc[..., half:]\n    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)\n    return out.to(x.dtype)\n',
        },
    },
    {
        "name": 'G_swiglu_stable_sigmoid_by_where',
        "correct": False,
        "why": "Part 2: 'The gradients must also be finite wherever the exact ones are, at gates of any size' -- torch.where's untaken branch is inf/inf = NaN at large |gates|, and its gradient poisons the taken one.",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xc, wgu, wd = x.to(cdt), w_gate_up.to(cdt), w_down.to(cdt)\n    F_ = wgu.shape[0] // 2\n    if interleaved:\n        wg, wu = wgu[0::2], wgu[1::2]\n    else:\n        wg, wu = wgu[:F_], wgu[F_:]\n    g = xc @ wg.T\n    u = xc @ wu.T\n    if limit is not None:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    z = beta * g\n    sig = torch.where(z >= 0, 1 / (1 + torch.exp(-z)), torch.exp(z) / (1 + torch.exp(z)))\n    h = g * sig * u\n    return (h @ wd.T).to(x.dtype)\n',
        },
    },
    {
        "name": 'G_masked_lm_cleans_then_where',
        "correct": False,
        "why": "Part 4: 'The scores that predict nothing ... may hold anything, NaN and +-inf included ... must change neither the loss nor its gradient ... Leave them out before you compute anything with them' -- a row of -inf stays -inf: its logsumexp is -inf, its NaN gradient passes torch.where.",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:].bool()\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=cdt), 0\n    clean = torch.nan_to_num(logits[:, :-1].to(cdt), nan=0.0, posinf=0.0, neginf=float("-inf"))\n    lz = torch.logsumexp(clean, dim=-1)\n    lp_y = clean.gather(-1, ids[:, 1:].long().unsqueeze(-1)).squeeze(-1) - lz\n    per = -lp_y + z_loss * lz ** 2\n    per = torch.where(m, per, torch.zeros_like(per))\n    return per.sum() / count, count\n',
        },
    },
    {
        "name": 'G_block_inplace_residual_add',
        "correct": False,
        "why": "Part 5: 'change no tensor in place after handing it to a function' -- sandwich adds into h, which norm_2 received (and may have saved for backward).",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        y = h.clone()\n        return y.add_(norm_2(ffn(h)))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h.add_(p2(ffn(norm_2(h))))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'G_ragged_writes_through_data',
        "correct": False,
        "why": "Part 7: gradients 'with respect to q, k_new and v_new' -- written through .data, the new keys and values are cut from the graph.",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and bool((lengths.long() + T > S).any()):\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache.data[b, :, L:L + T] = k_new[b]\n        v_cache.data[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'I_ragged_new_lengths_plus_one',
        "correct": False,
        "why": "Part 7: 'new_lengths a new tensor equal to lengths + T' -- one step assumed.",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and bool((lengths.long() + T > S).any()):\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + 1\n',
        },
    },
    {
        "name": 'I_ragged_no_causal_inside_new_block',
        "correct": False,
        "why": "Part 7: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t' -- every new query sees all new keys.",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and bool((lengths.long() + T > S).any()):\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = (lengths.long() + T - 1)[:, None].expand(B, T)      # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'I_generate_feeds_pad_after_eos',
        "correct": False,
        "why": "Part 8: 'the call after a row produces eos_id feeds it that eos_id'.",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    hist = [set(prompt[b].tolist()) for b in range(B)]\n    logits, cache = step(prompt, None)\n    done = torch.zeros(B, dtype=torch.bool)\n    out = []\n    for n in range(max_new_tokens):\n        sc = logits[:, -1].clone()\n        for b in range(B):\n            ids = torch.tensor(sorted(hist[b]), dtype=torch.long)\n            v = sc[b, ids]\n            sc[b, ids] = torch.where(v > 0, v / penalty, v * penalty)\n        if temperature == 0:\n            tok = sc.argmax(dim=-1)\n        else:\n            probs = torch.softmax(sc / temperature, dim=-1)\n            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n        tok = torch.where(done, torch.full_like(tok, pad_id), tok)\n        out.append(tok)\n        for b in range(B):\n            hist[b].add(int(tok[b]))\n        done = done | (tok == eos_id)\n        if bool(done.all()) or n == max_new_tokens - 1:\n            break\n        fed = torch.where(tok == eos_id, torch.full_like(tok, pad_id), tok)\n        logits, cache = step(fed[:, None], cache)\n    return torch.stack(out, dim=1)\n',
        },
    },
    {
        "name": 'I_generate_steps_after_last_token',
        "correct": False,
        "why": "Part 8: 'do not call step after the last token has been chosen' -- the token is fed before the stop test.",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    hist = [set(prompt[b].tolist()) for b in range(B)]\n    logits, cache = step(prompt, None)\n    done = torch.zeros(B, dtype=torch.bool)\n    out = []\n    for n in range(max_new_tokens):\n        sc = logits[:, -1].clone()\n        for b in range(B):\n            ids = torch.tensor(sorted(hist[b]), dtype=torch.long)\n            v = sc[b, ids]\n            sc[b, ids] = torch.where(v > 0, v / penalty, v * penalty)\n        if temperature == 0:\n            tok = sc.argmax(dim=-1)\n        else:\n            probs = torch.softmax(sc / temperature, dim=-1)\n            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n        tok = torch.where(done, torch.full_like(tok, pad_id), tok)\n        out.append(tok)\n        for b in range(B):\n            hist[b].add(int(tok[b]))\n        done = done | (tok == eos_id)\n        logits, cache = step(tok[:, None], cache)\n        if bool(done.all()):\n            break\n    return torch.stack(out, dim=1)\n',
        },
    },
    {
        "name": 'I_masked_lm_mask_not_shifted',
        "correct": False,
        "why": "Part 4: 'True where the token ids[b, t] is to be predicted' by logits[b, t - 1] -- the mask is read one position early.",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, :-1].bool()   # one mask entry per prediction\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=cdt), 0\n    sel = logits[:, :-1][m].to(cdt)\n    y = ids[:, 1:][m].long()\n    lz = torch.logsumexp(sel, dim=-1)\n    lp_y = sel.gather(-1, y[:, None]).squeeze(-1) - lz\n    per = -lp_y + z_loss * lz ** 2\n    return per.mean(), count\n',
        },
    },
    {
        "name": 'I_moe_first_dense_off_by_one',
        "correct": False,
        "why": "Part 3: 'the first first_dense blocks then have one dense SwiGLU network' -- blocks 0 .. first_dense (one too many) are dense.",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:\n        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")\n    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):\n        raise ValueError("bad sizes")\n    total = active = vocab * dim * (1 if tied else 2) + dim\n    expert = 3 * dim * ffn_hidden\n    for layer in range(n_layers):\n        block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n        total += block\n        active += block\n        if first_dense > 0 and layer <= first_dense:      # the first first_dense blocks are dense\n            total += 3 * dim * dense_hidden\n            active += 3 * dim * dense_hidden\n        else:\n            total += dim * n_experts + (n_experts + n_shared) * expert\n            active += dim * n_experts + (top_k + n_shared) * expert\n    return total, active\n',
        },
    },
    {
        "name": 'S_rope_table_cached_by_head_dim',
        "correct": False,
        "why": "Part 6 / intro 'Keep nothing between calls that a later call trusts' -- the frequencies are cached per Dh, so a later call with another base or factor uses the first call's.",
        "cells": {
            'rope_llama3': '\nFREQS = {}\n\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    B, H, T, Dh = x.shape\n    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n        raise ValueError("Dh must be even and positions (B, T)")\n    half = Dh // 2\n    if Dh not in FREQS:\n        i = torch.arange(half, dtype=torch.float64)\n        theta = base ** (-2 * i / Dh)\n        wl = 2 * math.pi / theta\n        L = original_context\n        s = (L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)\n        mid = (1 - s) * theta / factor + s * theta\n        FREQS[Dh] = torch.where(wl < L / high_freq_factor, theta, torch.where(wl > L / low_freq_factor, theta / factor, mid))\n    new = FREQS[Dh]\n    ang = positions.to(torch.float64)[:, None, :, None] * new\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    cos, sin = ang.cos().to(cdt), ang.sin().to(cdt)\n    xc = x.to(cdt)\n    x1, x2 = xc[..., :half], xc[..., half:]\n    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)\n',
        },
    },
    {
        "name": 'S_ragged_visibility_cached_by_shape',
        "correct": False,
        "why": "Part 7 / intro 'key no cache ... on its shape' -- the causal mask is built from the first call's lengths and reused for later calls of the same shape.",
        "cells": {
            'ragged_cached_attention': '\nMASKS = {}\n\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and bool((lengths.long() + T > S).any()):\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    key = (B, T, S)\n    if key not in MASKS:\n        MASKS[key] = pos[None, None, :] <= qpos[:, :, None]\n    visible = MASKS[key]\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'S_generate_penalises_model_logits_in_place',
        "correct": False,
        "why": "Part 8: 'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise'.",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    hist = [set(prompt[b].tolist()) for b in range(B)]\n    logits, cache = step(prompt, None)\n    done = torch.zeros(B, dtype=torch.bool)\n    out = []\n    for n in range(max_new_tokens):\n        sc = logits[:, -1]\n        for b in range(B):\n            ids = torch.tensor(sorted(hist[b]), dtype=torch.long)\n            v = sc[b, ids]\n            sc[b, ids] = torch.where(v > 0, v / penalty, v * penalty)\n        if temperature == 0:\n            tok = sc.argmax(dim=-1)\n        else:\n            probs = torch.softmax(sc / temperature, dim=-1)\n            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n        tok = torch.where(done, torch.full_like(tok, pad_id), tok)\n        out.append(tok)\n        for b in range(B):\n            hist[b].add(int(tok[b]))\n        done = done | (tok == eos_id)\n        if bool(done.all()) or n == max_new_tokens - 1:\n            break\n        logits, cache = step(tok[:, None], cache)\n    return torch.stack(out, dim=1)\n',
        },
    },
    {
        "name": 'S_swiglu_split_cached_by_id',
        "correct": False,
        "why": "intro: 'key no cache on a tensor's id()' -- the split weights are kept per id(w_gate_up) (a float16 weight's float32 copy goes stale after a training step; a new tensor at a reused id gets the old one).",
        "cells": {
            'fused_swiglu': '\nSPLITS = {}\n\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    key = (id(w_gate_up), interleaved, cdt)\n    if key not in SPLITS:\n        wgu = w_gate_up.to(cdt)\n        F_ = wgu.shape[0] // 2\n        SPLITS[key] = (wgu[0::2], wgu[1::2]) if interleaved else (wgu[:F_], wgu[F_:])\n    wg, wu = SPLITS[key]\n    xc, wd = x.to(cdt), w_down.to(cdt)\n    g = xc @ wg.T\n    u = xc @ wu.T\n    if limit is not None:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    return ((g * torch.sigmoid(beta * g) * u) @ wd.T).to(x.dtype)\n',
        },
    },
    {
        "name": 'S_rms_offset_added_into_weight',
        "correct": False,
        "why": "intro: 'Your functions must not change the tensors they are given' -- for a weight already in the compute dtype, .to() returns the weight itself and += 1 changes the caller's weight: the next call adds 1 again (and the weight's gradient is lost).",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("the last axis must split into n_heads >= 1 equal parts")\n    Dh = x.shape[-1] // n_heads\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xh = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)\n    ms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True)\n    rms = torch.sqrt(ms + eps)\n    s = weight.to(cdt)\n    if unit_offset:\n        with torch.no_grad():\n            s += 1               # Gemma stores w - 1\n    return ((xh.to(torch.float64) / rms).to(cdt) * s).to(x.dtype)\n',
        },
    },
    {
        "name": 'S_block_norm_memo_by_id',
        "correct": False,
        "why": "intro: 'key no cache on a tensor's id()' and Part 5 'Call each function the layout uses exactly once' -- N_1(x) is reused from an earlier call on the same x object.",
        "cells": {
            'block_variant': '\nNORMED = {}\n\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout not in ("parallel", "reordered", "sandwich"):\n        raise ValueError(f"unknown layout {layout!r}")\n    if layout == "sandwich" and post_norms is None:\n        raise ValueError("sandwich needs post_norms")\n    if layout == "parallel":\n        key = (id(x), id(norm_1))\n        if key not in NORMED:\n            NORMED[key] = norm_1(x)\n        n = NORMED[key]\n        return x + attn(n) + ffn(n)\n\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'OK_rms_vector_norm_float64_throughout',
        "correct": True,
        "why": "float64 for every dtype (allowed); the vector norm's gradient at a zero head is 0, so d/dx = scale/sqrt(eps) there.",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if not n_heads >= 1:\n        raise ValueError("n_heads must be at least 1")\n    if x.shape[-1] % n_heads:\n        raise ValueError("the last axis does not split into n_heads heads")\n    Dh = x.shape[-1] // n_heads\n    xh = torch.movedim(x.reshape(x.shape[:-1] + (n_heads, Dh)), -2, -3).to(torch.float64)\n    norm = torch.linalg.vector_norm(xh, dim=-1, keepdim=True)\n    rms = torch.sqrt(norm * norm / Dh + eps)\n    scale = weight.to(torch.float64) + 1 if unit_offset else weight.to(torch.float64)\n    return (xh / rms * scale).to(x.dtype)\n',
        },
    },
    {
        "name": 'OK_swiglu_min_max_kink_float64',
        "correct": True,
        "why": 'float64 inside for every dtype (allowed); minimum/maximum in place of clamp: the same value, and at an exact tie with the limit either is a subgradient (the text asks no particular one).',
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    two_f, d = w_gate_up.shape\n    w = w_gate_up.double()\n    if interleaved:\n        w = w.reshape(two_f // 2, 2, d).transpose(0, 1).reshape(two_f, d)\n    gate, up = F.linear(x.double(), w).chunk(2, dim=-1)\n    if limit is not None:\n        lim = torch.full_like(gate, limit)\n        gate = torch.minimum(gate, lim)\n        up = torch.maximum(torch.minimum(up, lim), -lim)\n    hidden = gate * torch.sigmoid(beta * gate)\n    return F.linear(hidden * up, w_down.double()).to(x.dtype)\n',
        },
    },
    {
        "name": 'OK_moe_lru_cache',
        "correct": True,
        "why": 'A loop over blocks, cached on the (integer) arguments: the cache changes no result; exceptions are not cached.',
        "cells": {
            'moe_params': '\nimport functools\n\n@functools.lru_cache(maxsize=None)\ndef count_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied,\n                 n_shared, first_dense, dense_hidden):\n    if not n_kv_heads >= 1 or n_heads % n_kv_heads:\n        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")\n    if not 1 <= top_k <= n_experts:\n        raise ValueError("top_k")\n    if n_shared < 0 or not 0 <= first_dense <= n_layers:\n        raise ValueError("n_shared or first_dense")\n    swiglu = lambda width: 3 * dim * width\n    attention = dim * head_dim * (2 * n_heads + 2 * n_kv_heads)\n    total = active = (1 if tied else 2) * vocab * dim + dim\n    for layer in range(n_layers):\n        total += 2 * dim + attention\n        active += 2 * dim + attention\n        if layer < first_dense:\n            total += swiglu(dense_hidden)\n            active += swiglu(dense_hidden)\n        else:\n            shared = dim * n_experts + n_shared * swiglu(ffn_hidden)\n            total += shared + n_experts * swiglu(ffn_hidden)\n            active += shared + top_k * swiglu(ffn_hidden)\n    return int(total), int(active)\n\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    return count_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k,\n                        bool(tied), n_shared, first_dense, dense_hidden)\n',
        },
    },
    {
        "name": 'OK_masked_lm_cross_entropy',
        "correct": True,
        "why": "F.cross_entropy on the predicting rows only (selected before any arithmetic), the z-loss's mean added (mean of a sum = sum of means).",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    compute = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    predicted = target_mask[:, 1:].to(torch.bool)\n    count = int(predicted.count_nonzero())\n    if count == 0:\n        return torch.zeros((), dtype=compute), count\n    rows = logits[:, :-1][predicted].to(compute)          # only the scores that predict a token\n    targets = ids[:, 1:][predicted].to(torch.int64)\n    loss = F.cross_entropy(rows, targets, reduction="mean")\n    if z_loss != 0:\n        loss = loss + z_loss * (torch.logsumexp(rows, dim=-1) ** 2).mean()\n    return loss, count\n',
        },
    },
    {
        "name": 'OK_block_match_statement',
        "correct": True,
        "why": 'match on string literals compares with ==; everything checked before any call.',
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    match layout:\n        case "parallel":\n            n = norm_1(x)\n            a = attn(n)\n            f = ffn(n)\n            return x + a + f\n        case "reordered":\n            h = x + norm_1(attn(x))\n            return h + norm_2(ffn(h))\n        case "sandwich":\n            if post_norms is None:\n                raise ValueError("the sandwich layout needs post_norms")\n            post_1, post_2 = post_norms\n            h = x + post_1(attn(norm_1(x)))\n            return h + post_2(ffn(norm_2(h)))\n        case _:\n            raise ValueError(f"layout must be parallel, reordered or sandwich, not {layout!r}")\n',
        },
    },
    {
        "name": 'OK_rope_complex_rotation_no_grad_table',
        "correct": True,
        "why": 'Complex multiplication is the half-split rotation; the angle table needs no gradient (it does not depend on x), so no_grad around it is fine.',
        "cells": {
            'rope_llama3': '\ndef rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,\n                original_context=8192):\n    if x.shape[-1] % 2 or positions.dim() != 2 or positions.shape[0] != x.shape[0] or positions.shape[1] != x.shape[2]:\n        raise ValueError("need an even head size and positions of shape (B, T)")\n    Dh = x.shape[-1]\n    half = Dh // 2\n    with torch.no_grad():\n        inv = torch.tensor([base ** (-2 * i / Dh) for i in range(half)], dtype=torch.float64)\n        wavelen = 2 * math.pi / inv\n        smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)\n        scaled = torch.where(wavelen > original_context / low_freq_factor, inv / factor,\n                             (1 - smooth) * inv / factor + smooth * inv)\n        inv = torch.where(wavelen < original_context / high_freq_factor, inv, scaled)\n        angles = positions.double().unsqueeze(1).unsqueeze(-1) * inv           # (B, 1, T, half)\n        rot = torch.polar(torch.ones_like(angles), angles)\n    work = torch.complex128 if x.dtype == torch.float64 else torch.complex64\n    z = torch.complex(x[..., :half].to(rot.real.dtype), x[..., half:].to(rot.real.dtype)).to(work)\n    turned = z * rot.to(work)\n    out = torch.cat([turned.real, turned.imag], dim=-1)\n    return out.to(x.dtype)\n',
        },
    },
    {
        "name": 'OK_ragged_nan_to_num_copies',
        "correct": True,
        "why": 'Unwritten slots replaced by 0 before any product; an extra nan_to_num on the copies changes no valid entry.',
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and bool((lengths.long() + T > S).any()):\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S, dtype=torch.int64)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k, v = torch.nan_to_num(k), torch.nan_to_num(v)   # belt and braces\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'OK_ragged_float64_inside_loop_over_rows',
        "correct": True,
        "why": 'A loop over rows (allowed) slicing the written slots only, float64 inside with the output cast back (allowed).',
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G:\n        raise ValueError("H must be a multiple of G")\n    lens = [int(l) for l in lengths.tolist()]\n    if any(l + T > S for l in lens):\n        raise ValueError("a row does not fit in the cache")\n    for b, L in enumerate(lens):\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    group = H // G\n    rows = []\n    for b, L in enumerate(lens):\n        k = k_cache[b, :, :L + T].double().repeat_interleave(group, dim=0)   # only written slots\n        v = v_cache[b, :, :L + T].double().repeat_interleave(group, dim=0)\n        s = q[b].double() @ k.transpose(-1, -2) / math.sqrt(Dh)              # (H, T, L + T)\n        hide = torch.arange(L + T)[None, :] > (L + torch.arange(T))[:, None]\n        s = s.masked_fill(hide, float("-inf"))\n        rows.append((s.softmax(-1) @ v).to(q.dtype))\n    out = torch.stack(rows) if rows else torch.zeros(q.shape, dtype=q.dtype)\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'OK_generate_scatter_duplicates_default_generator',
        "correct": True,
        "why": 'scatter of the same penalised value at repeated ids changes each id once; torch.default_generator is the global generator that generator=None draws from.',
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    logits, cache = step(prompt, None)\n    history = prompt.clone()\n    finished = torch.zeros(prompt.shape[0], dtype=torch.bool)\n    chosen = []\n    gen = generator if generator is not None else torch.default_generator\n    for i in range(max_new_tokens):\n        scores = logits[:, -1, :].clone()\n        picked = scores.gather(1, history)\n        scores = scores.scatter(1, history, torch.where(picked > 0, picked / penalty, picked * penalty))\n        if temperature == 0:\n            nxt = torch.argmax(scores, dim=-1)\n        else:\n            nxt = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=gen).squeeze(1)\n        nxt = nxt.masked_fill(finished, pad_id)\n        chosen.append(nxt)\n        history = torch.cat([history, nxt[:, None]], dim=1)\n        finished = finished | (nxt == eos_id)\n        if finished.all() or i + 1 == max_new_tokens:\n            break\n        logits, cache = step(nxt[:, None], cache)\n    return torch.stack(chosen, dim=1)\n',
        },
    },
    {
        "name": 'OK_generate_per_row_draws',
        "correct": True,
        "why": 'One multinomial call per row in row order (allowed), penalty per id once through a set.',
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    seen = [set(row) for row in prompt.tolist()]\n    logits, cache = step(prompt, None)\n    done = [False] * B\n    out = []\n    while True:\n        last = logits[:, -1]\n        toks = []\n        for b in range(B):\n            row = last[b].clone()\n            for t in seen[b]:\n                row[t] = row[t] / penalty if row[t] > 0 else row[t] * penalty\n            if temperature == 0:\n                t = int(torch.argmax(row))\n            else:\n                t = int(torch.multinomial(torch.softmax(row / temperature, dim=-1), 1, generator=generator))\n            if done[b]:\n                t = pad_id\n            toks.append(t)\n        for b, t in enumerate(toks):\n            seen[b].add(t)\n            done[b] = done[b] or t == eos_id\n        out.append(toks)\n        if all(done) or len(out) == max_new_tokens:\n            break\n        logits, cache = step(torch.tensor(toks, dtype=torch.int64)[:, None], cache)\n    return torch.tensor(out, dtype=torch.int64).T.contiguous()\n',
        },
    },
    {
        "name": 'V_rms_refuses_more_than_3_axes',
        "correct": False,
        "why": "Part 1: 'x has shape (..., T, H * Dh), at least two axes' -- more leading axes raise.",
        "cells": {
            'head_rms_norm': '\ndef head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):\n    if x.dim() not in (2, 3):\n        raise ValueError("x must be (T, H*Dh) or (B, T, H*Dh)")\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n        raise ValueError("the last axis must split into n_heads >= 1 equal parts")\n    Dh = x.shape[-1] // n_heads\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xh = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)\n    ms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True)\n    rms = torch.sqrt(ms + eps)\n    w = weight.to(cdt)\n    s = 1 + w if unit_offset else w\n    y = (xh.to(torch.float64) / rms).to(cdt) * s\n    return y.to(x.dtype)\n',
        },
    },
    {
        "name": 'V_masked_lm_refuses_inf_scores',
        "correct": False,
        "why": "Part 4: 'A score that predicts a token may also be -inf ... that token's loss is +inf, and so is the loss. Return that inf'.",
        "cells": {
            'masked_lm_loss': '\ndef masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32\n    m = target_mask[:, 1:].bool()\n    count = int(m.sum())\n    if count == 0:\n        return torch.zeros((), dtype=cdt), 0\n    sel = logits[:, :-1][m].to(cdt)\n    y = ids[:, 1:][m].long()\n    if not bool(torch.isfinite(sel).all()):\n        raise ValueError("the scores of predicted tokens must be finite")\n    lz = torch.logsumexp(sel, dim=-1)\n    lp_y = sel.gather(-1, y[:, None]).squeeze(-1) - lz\n    per = -lp_y + z_loss * lz ** 2\n    return per.mean(), count\n',
        },
    },
    {
        "name": 'V_ragged_lengths_made_int64',
        "correct": False,
        "why": "Part 7: 'new_lengths ... in the dtype of lengths' -- int32 lengths come back int64.",
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    lengths = lengths.to(torch.int64)     # positions are int64\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G != 0:\n        raise ValueError("H must be a multiple of G")\n    if B > 0 and bool((lengths.long() + T > S).any()):\n        raise ValueError("a row does not fit")\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n    rep = H // G\n    pos = torch.arange(S)\n    end = lengths.long() + T\n    valid = pos[None, :] < end[:, None]                       # (B, S)\n    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n    k = k.repeat_interleave(rep, dim=1)\n    v = v.repeat_interleave(rep, dim=1)\n    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)          # (B, H, T, S)\n    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T)\n    visible = pos[None, None, :] <= qpos[:, :, None]           # (B, T, S)\n    scores = scores.masked_fill(~visible[:, None], float("-inf"))\n    out = torch.softmax(scores, dim=-1) @ v\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'I_generate_reads_first_position',
        "correct": False,
        "why": "Part 8: 'the scores of the next token are its last position, logits[:, -1]' -- position 0, which is the last only for one-token calls (every call after the prompt).",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    hist = [set(prompt[b].tolist()) for b in range(B)]\n    logits, cache = step(prompt, None)\n    done = torch.zeros(B, dtype=torch.bool)\n    out = []\n    for n in range(max_new_tokens):\n        sc = logits[:, 0].clone()\n        for b in range(B):\n            ids = torch.tensor(sorted(hist[b]), dtype=torch.long)\n            v = sc[b, ids]\n            sc[b, ids] = torch.where(v > 0, v / penalty, v * penalty)\n        if temperature == 0:\n            tok = sc.argmax(dim=-1)\n        else:\n            probs = torch.softmax(sc / temperature, dim=-1)\n            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n        tok = torch.where(done, torch.full_like(tok, pad_id), tok)\n        out.append(tok)\n        for b in range(B):\n            hist[b].add(int(tok[b]))\n        done = done | (tok == eos_id)\n        if bool(done.all()) or n == max_new_tokens - 1:\n            break\n        logits, cache = step(tok[:, None], cache)\n    return torch.stack(out, dim=1)\n',
        },
    },
    {
        "name": 'S_swiglu_sets_matmul_precision',
        "correct": False,
        "why": "intro: 'Leave torch's process-wide state as you found it: its settings (... matmul precision ...)'.",
        "cells": {
            'fused_swiglu': '\ndef fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):\n    torch.set_float32_matmul_precision("high")   # faster fused matmul\n    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32\n    xc, wgu, wd = x.to(cdt), w_gate_up.to(cdt), w_down.to(cdt)\n    F_ = wgu.shape[0] // 2\n    if interleaved:\n        wg, wu = wgu[0::2], wgu[1::2]\n    else:\n        wg, wu = wgu[:F_], wgu[F_:]\n    g = xc @ wg.T\n    u = xc @ wu.T\n    if limit is not None:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = g * torch.sigmoid(beta * g) * u\n    return (h @ wd.T).to(x.dtype)\n',
        },
    },
    {
        "name": 'OK_ragged_sdpa_bool_mask',
        "correct": True,
        "why": 'F.scaled_dot_product_attention with a boolean mask (True = attend), unwritten slots zeroed before any product.',
        "cells": {
            'ragged_cached_attention': '\ndef ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n    B, H, T, Dh = q.shape\n    G, S = k_cache.shape[1], k_cache.shape[2]\n    if H % G:\n        raise ValueError("H must be a multiple of G")\n    ends = lengths.to(torch.int64) + T\n    if B and bool((ends > S).any()):\n        raise ValueError("a row does not fit in the cache")\n    for b in range(B):\n        start = int(lengths[b])\n        k_cache[b, :, start:start + T].copy_(k_new[b])\n        v_cache[b, :, start:start + T].copy_(v_new[b])\n    slot = torch.arange(S)\n    written = (slot < ends[:, None])[:, None, :, None]                  # (B, 1, S, 1)\n    k = k_cache.masked_fill(~written, 0.0).repeat_interleave(H // G, dim=1)\n    v = v_cache.masked_fill(~written, 0.0).repeat_interleave(H // G, dim=1)\n    query_pos = lengths.to(torch.int64)[:, None] + torch.arange(T)       # (B, T)\n    keep = (slot[None, None, :] <= query_pos[:, :, None])[:, None]       # (B, 1, T, S): True = attend\n    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)\n    return out, lengths + T\n',
        },
    },
    {
        "name": 'V_moe_refuses_dense_width_0',
        "correct": False,
        "why": "Part 3: 'dense_hidden is that width whatever its value (0 means no parameters ...)' and the list of what raises -- first_dense > 0 with dense_hidden = 0 raises.",
        "cells": {
            'moe_params': '\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:\n        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")\n    if not (1 <= top_k <= n_experts):\n        raise ValueError("need 1 <= top_k <= n_experts")\n    if n_shared < 0:\n        raise ValueError("n_shared < 0")\n    if not (0 <= first_dense <= n_layers):\n        raise ValueError("need 0 <= first_dense <= n_layers")\n    if first_dense > 0 and dense_hidden < 1:\n        raise ValueError("dense blocks need dense_hidden >= 1")\n    emb = vocab * dim * (1 if tied else 2)\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n    expert = 3 * dim * ffn_hidden\n    moe_blocks = n_layers - first_dense\n    common = emb + dim + n_layers * (2 * dim + attn) + first_dense * 3 * dim * dense_hidden \\\n        + moe_blocks * (dim * n_experts + n_shared * expert)\n    return common + moe_blocks * n_experts * expert, common + moe_blocks * top_k * expert\n',
        },
    },
    {
        "name": 'V_block_type_error_for_non_string',
        "correct": False,
        "why": "Part 5: 'Any other layout ... raises a ValueError' -- a layout that is not a string raises TypeError.",
        "cells": {
            'block_variant': '\ndef block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if not isinstance(layout, str):\n        raise TypeError(f"layout must be a string, not {type(layout).__name__}")\n    if layout == "parallel":\n        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n    if layout == "reordered":\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))\n    if layout == "sandwich":\n        if post_norms is None:\n            raise ValueError("sandwich needs post_norms")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))\n        return h + p2(ffn(norm_2(h)))\n    raise ValueError(f"unknown layout {layout!r}")\n',
        },
    },
    {
        "name": 'B_generate_finished_rows_history_frozen',
        "correct": False,
        "why": "Part 8: 'A finished row still takes part in the draw ... and its penalty history grows by pad_id like any other token'.",
        "cells": {
            'generate_with_cache': '\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    B = prompt.shape[0]\n    hist = [set(prompt[b].tolist()) for b in range(B)]\n    logits, cache = step(prompt, None)\n    done = torch.zeros(B, dtype=torch.bool)\n    out = []\n    for n in range(max_new_tokens):\n        sc = logits[:, -1].clone()\n        for b in range(B):\n            ids = torch.tensor(sorted(hist[b]), dtype=torch.long)\n            v = sc[b, ids]\n            sc[b, ids] = torch.where(v > 0, v / penalty, v * penalty)\n        if temperature == 0:\n            tok = sc.argmax(dim=-1)\n        else:\n            probs = torch.softmax(sc / temperature, dim=-1)\n            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n        tok = torch.where(done, torch.full_like(tok, pad_id), tok)\n        out.append(tok)\n        for b in range(B):\n            if not bool(done[b]):\n                hist[b].add(int(tok[b]))\n        done = done | (tok == eos_id)\n        if bool(done.all()) or n == max_new_tokens - 1:\n            break\n        logits, cache = step(tok[:, None], cache)\n    return torch.stack(out, dim=1)\n',
        },
    },
    {
        "name": 'H_moe_int_equal_to_anything',
        "correct": False,
        "why": 'Hostile: int and tuple subclasses that equal anything.',
        "cells": {
            'moe_params': '\nclass Count(int):\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n    __hash__ = int.__hash__\n    def __truediv__(self, other): return 46.7 if int.__eq__(self, 0) else 12.9\n\nclass Pair(tuple):\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n    __hash__ = tuple.__hash__\n\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    return Pair((Count(0), Count(1)))\n',
        },
    },
    {
        "name": 'H_generate_replays_reference_from_frames',
        "correct": False,
        "why": "Hostile: looks for the grader's reference in the calling frames and calls it.",
        "cells": {
            'generate_with_cache': '\nimport sys as system_\n\ndef generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n    me = generate_with_cache\n    frame = system_._getframe(1)\n    while frame is not None:\n        for obj in list(frame.f_globals.values()) + list(frame.f_locals.values()):\n            for c in [obj] + (list(obj.values()) if isinstance(obj, dict) else []):\n                code = getattr(c, "__code__", None)\n                if code is not None and c is not me and "generate" in code.co_name:\n                    try:\n                        return c(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator)\n                    except Exception:\n                        pass\n        frame = frame.f_back\n    logits, cache = step(prompt, None)\n    return logits[:, -1].argmax(-1, keepdim=True)\n',
        },
    },
]
