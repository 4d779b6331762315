# Round 22, chapter 09: four kinds of student (sampling, rounding, counting, allocation), correct and hostile answers.
B = {}
B["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.to(work).reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    ms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(work)
    s = weight.to(work)
    if unit_offset:
        s = 1 + s
    return (xh / rms * s).to(x.dtype)
'''
B["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xc, wgu, wd = x.to(work), w_gate_up.to(work), w_down.to(work)
    F_ = wgu.shape[0] // 2
    if interleaved:
        wg, wu = wgu[0::2], wgu[1::2]
    else:
        wg, wu = wgu[:F_], wgu[F_:]
    g = xc @ wg.T
    u = xc @ wu.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return (h @ wd.T).to(x.dtype)
'''
B["moe_params"] = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not 1 <= top_k <= n_experts:
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    block = attn + 2 * dim
    expert = 3 * dim * ffn_hidden
    moe_layers = n_layers - first_dense
    dense = first_dense * 3 * dim * dense_hidden
    common = emb + dim + n_layers * block + dense + moe_layers * (dim * n_experts + n_shared * expert)
    total = common + moe_layers * n_experts * expert
    active = common + moe_layers * top_k * expert
    return int(total), int(active)
'''
B["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    sel = logits[:, :-1][m].to(work)
    y = ids[:, 1:][m].long()
    log_z = torch.logsumexp(sel, dim=-1)
    nll = log_z - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * log_z ** 2).mean(), count
'''
B["block_variant"] = '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    p1, p2 = post_norms
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
'''
B["rope_llama3"] = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    wavelen = 2 * math.pi / theta
    L = original_context
    lam_high = L / high_freq_factor
    lam_low = L / low_freq_factor
    s = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(wavelen < lam_high, theta, torch.where(wavelen > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(work), torch.sin(ang).to(work)
    xc = x.to(work)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''
B["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G < 1 or H % G != 0:
        raise ValueError("heads")
    L = [int(v) for v in lengths.tolist()]
    if any(l + T > S for l in L):
        raise ValueError("too long")
    for b in range(B):
        k_cache[b, :, L[b]:L[b] + T] = k_new[b]
        v_cache[b, :, L[b]:L[b] + T] = v_new[b]
    rep = H // G
    pos = torch.arange(S)
    ends = lengths.long() + T                                       # (B,)
    written = pos[None, :] < ends[:, None]                          # (B, S)
    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype))
    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype))
    last = lengths.long()[:, None] + torch.arange(T)[None, :]       # (B, T)
    see = pos[None, None, :] <= last[:, :, None]                    # (B, T, S)
    qg = q.reshape(B, G, rep, T, Dh)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    scores = scores.masked_fill(~see[:, None, None], float("-inf"))
    w = torch.softmax(scores, dim=-1)
    out = torch.einsum("bgrts,bgsd->bgrtd", w, v).reshape(B, H, T, Dh)
    return out, lengths + T
'''
B["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    Bn = prompt.shape[0]
    history = prompt.clone()
    finished = torch.zeros(Bn, dtype=torch.bool)
    chosen = []
    logits, cache = step(prompt, None)
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, penalised, scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''


def rep(part, old, new, count=1):
    src = B[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)


W, C = False, True
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- 1. sampling-and-randomness student (Part 8; no other part draws)
add("samp_gen_draw_only_unfinished", W, {"generate_with_cache": rep("generate_with_cache",
    "tok = torch.multinomial(probs, 1, generator=generator)[:, 0]",
    "tok = torch.full((Bn,), pad_id, dtype=torch.long)\n"
    "            live = ~finished\n"
    "            if bool(live.any()):\n"
    "                tok[live] = torch.multinomial(probs[live], 1, generator=generator)[:, 0]")},
    "Part 8: 'A finished row still takes part in the draw (the batch always draws B tokens per step)'.")
add("samp_gen_own_generator_for_none", W, {"generate_with_cache": rep("generate_with_cache",
    "Bn = prompt.shape[0]", "Bn = prompt.shape[0]\n    if generator is None:\n        generator = torch.Generator()")},
    "Part 8: 'generator may be None: then torch.multinomial draws from torch's global generator ... do not make a generator of your own'.")
add("samp_gen_inverse_cdf", W, {"generate_with_cache": rep("generate_with_cache",
    "tok = torch.multinomial(probs, 1, generator=generator)[:, 0]",
    "u = torch.rand(Bn, 1, generator=generator)\n"
    "            tok = torch.searchsorted(probs.cumsum(-1), u)[:, 0].clamp(max=probs.shape[-1] - 1)")},
    "Part 8: 'draw with torch.multinomial(probs, 1, generator=generator) ... and no other random source'.")
add("samp_gen_rows_reversed", W, {"generate_with_cache": rep("generate_with_cache",
    "tok = torch.multinomial(probs, 1, generator=generator)[:, 0]",
    "tok = torch.zeros(Bn, dtype=torch.long)\n"
    "            for b in reversed(range(Bn)):\n"
    "                tok[b] = torch.multinomial(probs[b], 1, generator=generator)[0]")},
    "Part 8: 'one call per row, in row order, draws the same numbers': rows drawn last to first.")
add("samp_gen_tiny_temperature_greedy", W, {"generate_with_cache": rep("generate_with_cache",
    "if temperature == 0:", "if temperature < 1e-3:")},
    "Part 8: 'any temperature above 0, however small: no shortcut to the highest score'.")
add("samp_gen_tempered_probs_power", W, {"generate_with_cache": rep("generate_with_cache",
    "probs = torch.softmax(scores / temperature, dim=-1)",
    "p = torch.softmax(scores, dim=-1) ** (1.0 / temperature)\n            probs = p / p.sum(-1, keepdim=True)")},
    "Part 8: 'take probs = softmax(scores / temperature)': p ** (1/T) renormalised underflows at small T and differs in rounding.")

# ---------------------------------------------------------------- 2. rounding-and-integer student
add("round_moe_float_intermediate", W, {"moe_params": rep("moe_params",
    "attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim",
    "attn = 2.0 * dim * head_dim * n_heads * (1 + 1 / (n_heads / n_kv_heads)) if n_heads else 2.0 * dim * n_kv_heads * head_dim")},
    "Part 3: 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)'.")
add("round_rms_offset_in_input_dtype", W, {"head_rms_norm": rep("head_rms_norm",
    "s = weight.to(work)\n    if unit_offset:\n        s = 1 + s",
    "s = (1 + weight if unit_offset else weight).to(work)")},
    "Part 1: 'do all the arithmetic, the scale included (also 1 + w), in that dtype': 1 + w rounded in float16/bfloat16.")
add("round_rope_limits_floor_div", W, {"rope_llama3": rep("rope_llama3",
    "lam_high = L / high_freq_factor\n    lam_low = L / low_freq_factor",
    "lam_high = L // high_freq_factor\n    lam_low = L // low_freq_factor")},
    "Part 6: 'the factors need not divide L, so these limits need not be whole numbers'.")
add("round_ragged_scale_float32", W, {"ragged_cached_attention": rep("ragged_cached_attention",
    "/ math.sqrt(Dh)", "* torch.tensor(float(Dh)).rsqrt()")},
    "Part 7: 'the tests compare float64 inputs at float64 precision': a float32 1/sqrt(Dh).")
add("round_swiglu_limit_zero_falsy", W, {"fused_swiglu": rep("fused_swiglu", "if limit is not None:", "if limit:")},
    "Part 2: 'when limit is a number (0 included)'.")
add("round_ragged_lengths_retyped", W, {"ragged_cached_attention": rep("ragged_cached_attention",
    "return out, lengths + T", "return out, torch.tensor([l + T for l in L])")},
    "Part 7: 'new_lengths a new tensor equal to lengths + T, in the dtype of lengths' (int32 too).")

# ---------------------------------------------------------------- 3. counting-and-units student
add("count_moe_tied_active_both", W, {"moe_params": rep("moe_params",
    "active = common + moe_layers * top_k * expert",
    "active = common + moe_layers * top_k * expert + (vocab * dim if tied else 0)")},
    "Part 3: 'when tied ... they are one matrix, counted once' (in active too).")
add("count_moe_dense_zero_means_ffn", W, {"moe_params": rep("moe_params",
    "dense = first_dense * 3 * dim * dense_hidden", "dense = first_dense * 3 * dim * (dense_hidden or ffn_hidden)")},
    "Part 3: 'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")'.")
add("count_loss_per_sequence_mean", W, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    rows = []
    for b in range(logits.shape[0]):
        if m[b].any():
            sel = logits[b, :-1][m[b]].to(work)
            y = ids[b, 1:][m[b]].long()
            log_z = torch.logsumexp(sel, dim=-1)
            nll = log_z - sel.gather(-1, y[:, None])[:, 0]
            rows.append((nll + z_loss * log_z ** 2).mean())
    return torch.stack(rows).mean(), count
'''}, "Part 4: 'loss is the mean over those tokens, every token weighing the same however many a row has'.")
add("count_loss_no_shift", W, {"masked_lm_loss": rep("masked_lm_loss",
    "sel = logits[:, :-1][m].to(work)", "sel = logits[:, 1:][m].to(work)")},
    "Part 4: 'logits[b, t] scores the token at position t + 1': logits[b, t] read as scoring ids[b, t].")
add("count_loss_z_over_all_positions", W, {"masked_lm_loss": rep("masked_lm_loss",
    "    return (nll + z_loss * log_z ** 2).mean(), count",
    "    z_all = torch.logsumexp(logits.to(work), dim=-1)\n"
    "    return nll.mean() + z_loss * (z_all ** 2).mean(), count")},
    "Part 4: 'Each predicted token contributes ... + z (log Z)^2': the z-loss averaged over every position.")
add("count_ragged_no_causal_in_chunk", W, {"ragged_cached_attention": rep("ragged_cached_attention",
    "see = pos[None, None, :] <= last[:, :, None]", "see = (pos[None, :] < ends[:, None])[:, None, :].expand(B, T, S)")},
    "Part 7: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'.")
add("count_ragged_refuses_full_cache", W, {"ragged_cached_attention": rep("ragged_cached_attention",
    "if any(l + T > S for l in L):", "if any(l + T >= S for l in L):")},
    "Part 7: 'lengths[b] + T > S_max ... (filling the cache exactly is fine)'.")
add("count_gen_penalty_per_occurrence", W, {"generate_with_cache": rep("generate_with_cache",
    "seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)\n"
    "        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)\n"
    "        scores = torch.where(seen, penalised, scores)",
    "counts = torch.zeros(scores.shape).scatter_add(1, history, torch.ones(history.shape))\n"
    "        factor = penalty ** counts\n"
    "        scores = torch.where(scores > 0, scores / factor, scores * factor)")},
    "Part 8: 'has its score changed once (however often it occurs)'.")
add("count_gen_step_after_last", W, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    Bn = prompt.shape[0]
    history = prompt.clone()
    finished = torch.zeros(Bn, dtype=torch.bool)
    chosen = []
    feed, cache = prompt, None
    for i in range(max_new_tokens):
        logits, cache = step(feed, cache)
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        feed = tok[:, None]
        if bool(finished.all()):
            logits, cache = step(feed, cache)   # let the model see the final EOS
            break
    return torch.stack(chosen, dim=1)
'''}, "Part 8: 'do not call step after the last token has been chosen'.")
add("count_rope_arange_step2_doubled", W, {"rope_llama3": rep("rope_llama3",
    "i = torch.arange(half, dtype=torch.float64)", "i = torch.arange(0, Dh, 2, dtype=torch.float64)")},
    "Part 6: 'theta_i = b^(-2i/Dh) for i = 0 .. Dh/2 - 1': i taken from arange(0, Dh, 2) and doubled again.")

# ---------------------------------------------------------------- 4. allocation student
add("alloc_rms_default_buffer", W, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    lead, T = x.shape[:-2], x.shape[-2]
    out = torch.empty(*lead, n_heads, T, Dh)
    s = weight.double() + 1 if unit_offset else weight.double()
    for h in range(n_heads):
        xh = x[..., h * Dh:(h + 1) * Dh].double()
        out[..., h, :, :] = xh / torch.sqrt(xh.pow(2).mean(-1, keepdim=True) + eps) * s
    return out.to(x.dtype)
'''}, "Part 1: 'convert x and weight to float32 (to float64 when x is float64)': the float32 buffer rounds float64 results.")
add("alloc_swiglu_unit_loop_zeros", W, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    F_ = w_gate_up.shape[0] // 2
    out = torch.zeros(x.shape)
    xc = x.float()
    for j in range(F_):
        gi, ui = (2 * j, 2 * j + 1) if interleaved else (j, F_ + j)
        g = xc @ w_gate_up[gi].float()
        u = xc @ w_gate_up[ui].float()
        if limit is not None:
            g = g.clamp(max=limit)
            u = u.clamp(-limit, limit)
        out = out + (g * torch.sigmoid(beta * g) * u)[..., None] * w_down[:, j].float()
    return out.to(x.dtype)
'''}, "Part 2: 'compute float64 inputs in float64': the float32 accumulator (torch.zeros without dtype).")
add("alloc_loss_zero_default_dtype", W, {"masked_lm_loss": rep("masked_lm_loss",
    "return torch.zeros((), dtype=work), 0", "return torch.tensor(0.0), 0")},
    "Part 4: 'return the loss in that compute dtype: ... a float64 loss for float64 logits' (count 0 too).")
add("alloc_block_float32_accumulator", W, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    y = torch.zeros(x.shape)
    y += x
    if layout == "parallel":
        n = norm_1(x)
        y += attn(n)
        y += ffn(n)
        return y
    if layout == "reordered":
        y += norm_1(attn(x))
        h = y.clone()
        y += norm_2(ffn(h))
        return y
    p1, p2 = post_norms
    y += p1(attn(norm_1(x)))
    h = y.clone()
    y += p2(ffn(norm_2(h)))
    return y
'''}, "Part 5: the result has x's dtype (float64 inputs): torch.zeros without dtype accumulates in float32.")
add("alloc_rope_table_default_dtype", W, {"rope_llama3": rep("rope_llama3",
    "cos, sin = torch.cos(ang).to(work), torch.sin(ang).to(work)",
    "cos = torch.zeros(ang.shape)\n    sin = torch.zeros(ang.shape)\n    cos[:] = torch.cos(ang)\n    sin[:] = torch.sin(ang)\n    cos, sin = cos.to(work), sin.to(work)")},
    "Part 6: 'within 1e-10 of the exact values for float64': cos/sin tables in a float32 buffer.")
add("alloc_rope_int_arange_theta", W, {"rope_llama3": rep("rope_llama3",
    "i = torch.arange(half, dtype=torch.float64)", "i = torch.arange(half)")},
    "Part 6: 'Compute the angles in float64': an int64 arange divided by Dh gives float32 frequencies.")
add("alloc_ragged_score_buffer", W, {"ragged_cached_attention": rep("ragged_cached_attention",
    "scores = scores.masked_fill(~see[:, None, None], float(\"-inf\"))",
    "buf = torch.full(scores.shape, float(\"-inf\"))\n"
    "    keep = see[:, None, None].expand(scores.shape)\n"
    "    buf[keep] = scores[keep]\n"
    "    scores = buf")},
    "Part 7: 'Compute in the dtype of q ... float64 at float64 precision': a default-dtype -inf buffer rounds float64 scores.")
add("alloc_gen_history_buffer_zeros", W, {"generate_with_cache": rep("generate_with_cache",
    "history = prompt.clone()", "history = torch.zeros(Bn, prompt.shape[1] + max_new_tokens, dtype=torch.long)\n"
    "    history[:, :prompt.shape[1]] = prompt").replace(
    "history = torch.cat([history, tok[:, None]], dim=1)", "history[:, prompt.shape[1] + i] = tok")},
    "Part 8: 'every token id that occurs in that row's prompt or among its tokens generated so far': the untrimmed zero buffer penalises id 0.")

# ---------------------------------------------------------------- correct answers
add("ok_rms_float64_unflatten_rsqrt", C, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads must split the last axis")
    xd = x.to(torch.float64).unflatten(-1, (n_heads, x.shape[-1] // n_heads)).movedim(-2, -3)
    scale = weight.to(torch.float64) + (1.0 if unit_offset else 0.0)
    y = xd * torch.rsqrt(xd.square().mean(dim=-1, keepdim=True) + eps) * scale
    return y.to(x.dtype)
'''}, "Part 1: float64 for every input dtype is accepted; unflatten/movedim; unit_offset=False adds 0.0 (still a product with w).")
add("ok_swiglu_where_clamps_view_pairs", C, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    dt = x.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    F_ = w_gate_up.shape[0] // 2
    w = w_gate_up.to(work)
    if interleaved:
        pairs = w.reshape(F_, 2, -1)
        wg, wu = pairs[:, 0], pairs[:, 1]
    else:
        wg, wu = w.split(F_, dim=0)
    gu = torch.nn.functional.linear(x.to(work), torch.cat([wg, wu], 0))
    g, u = gu[..., :F_], gu[..., F_:]
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    act = torch.nn.functional.silu(g) if beta == 1 else g * torch.sigmoid(beta * g)
    return torch.nn.functional.linear(act * u, w_down.to(work)).to(dt)
'''}, "Part 2 with one fused product, F.linear, F.silu at beta = 1.")
add("ok_moe_per_block_sum", C, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0
            and 0 <= first_dense <= n_layers):
        raise ValueError("invalid configuration")
    def swiglu(width):
        return 3 * dim * width
    total = active = vocab * dim * (1 if tied else 2) + dim
    for layer in range(n_layers):
        shared = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
        if layer < first_dense:
            shared += swiglu(dense_hidden)
            total += shared
            active += shared
        else:
            shared += dim * n_experts + n_shared * swiglu(ffn_hidden)
            total += shared + n_experts * swiglu(ffn_hidden)
            active += shared + top_k * swiglu(ffn_hidden)
    return total, active
'''}, "Part 3 as a loop over blocks, all in Python ints.")
add("ok_loss_cross_entropy_sum", C, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    compute = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].bool()
    count = int(keep.sum().item())
    if count == 0:
        return torch.zeros((), dtype=compute), count
    scores = logits[:, :-1][keep].to(dtype=compute)
    targets = ids[:, 1:][keep].to(torch.int64)
    ce = torch.nn.functional.cross_entropy(scores, targets, reduction="sum")
    z = torch.logsumexp(scores, dim=-1).pow(2).sum()
    return (ce + z_loss * z) / count, count
'''}, "Part 4 with F.cross_entropy(reduction='sum') / count.")
add("ok_block_dispatch_table", C, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    def reordered():
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    def sandwich():
        p_1, p_2 = post_norms
        h = x + p_1(attn(norm_1(x)))
        return h + p_2(ffn(norm_2(h)))
    table = {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}
    if not isinstance(layout, str) or layout not in table:
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("sandwich needs post_norms")
    return table[layout]()
'''}, "Part 5 with a dispatch table, checks before any call.")
add("ok_rope_empty_like_halves", C, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4 or x.shape[-1] % 2 or positions.dim() != 2 or tuple(positions.shape) != tuple(x.shape[:1] + x.shape[2:3]):
        raise ValueError("bad shapes")
    Dh = x.shape[-1]
    half = Dh // 2
    inv = 1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
    wl = 2 * math.pi / inv
    smooth = (original_context / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
    freqs = inv.clone()
    slow = wl > original_context / low_freq_factor
    freqs[slow] = inv[slow] / factor
    midband = ~(wl < original_context / high_freq_factor) & ~slow
    freqs[midband] = (1 - smooth[midband]) * inv[midband] / factor + smooth[midband] * inv[midband]
    ang = torch.einsum("bt,f->btf", positions.to(torch.float64), freqs)[:, None]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, s = ang.cos().to(work), ang.sin().to(work)
    xw = x.to(work)
    out = torch.empty_like(xw)
    out[..., :half] = xw[..., :half] * c - xw[..., half:] * s
    out[..., half:] = xw[..., half:] * c + xw[..., :half] * s
    return out.to(x.dtype)
'''}, "Part 6 in the Hugging Face form (inv_freq from arange(0, Dh, 2) / Dh), written into an empty_like buffer.")
add("ok_ragged_row_loop_repeat", C, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    L = lengths.tolist()
    if B and max(L) + T > S:
        raise ValueError("row does not fit")
    for b in range(B):
        k_cache[b, :, L[b]:L[b] + T].copy_(k_new[b])
        v_cache[b, :, L[b]:L[b] + T].copy_(v_new[b])
    outs = []
    for b in range(B):
        n = L[b] + T
        k = k_cache[b, :, :n].repeat_interleave(H // G, dim=0)   # (H, n, Dh)
        v = v_cache[b, :, :n].repeat_interleave(H // G, dim=0)
        s = q[b] @ k.transpose(-1, -2) / math.sqrt(Dh)            # (H, T, n)
        causal = torch.arange(n)[None, :] <= (L[b] + torch.arange(T))[:, None]
        s = s.masked_fill(~causal, float("-inf"))
        outs.append(torch.softmax(s, dim=-1) @ v)
    out = torch.stack(outs) if outs else q.new_empty(q.shape)
    return out, lengths + T
'''}, "Part 7 with a loop over rows, slicing each row's written keys (unwritten slots never enter a product).")
add("ok_gen_temperature_first_default_generator", C, {"generate_with_cache": rep("generate_with_cache",
    "        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)\n"
    "        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)\n"
    "        scores = torch.where(seen, penalised, scores)\n"
    "        if temperature == 0:\n"
    "            tok = scores.argmax(-1)\n"
    "        else:\n"
    "            probs = torch.softmax(scores / temperature, dim=-1)\n"
    "            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]",
    "        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)\n"
    "        if temperature == 0:\n"
    "            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n"
    "            tok = scores.argmax(-1)\n"
    "        else:\n"
    "            t = scores / temperature\n"
    "            t = torch.where(seen, torch.where(t > 0, t / penalty, t * penalty), t)\n"
    "            g = torch.default_generator if generator is None else generator\n"
    "            tok = torch.multinomial(torch.softmax(t, dim=-1), num_samples=1, generator=g)[:, 0]")},
    "Part 8: dividing by the temperature first and penalising after is the same number (T > 0 keeps signs); None -> torch.default_generator is the global generator.")
add("ok_gen_per_row_preallocated", C, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    Bn = prompt.shape[0]
    out = torch.empty(Bn, max_new_tokens, dtype=torch.long)
    done = [False] * Bn
    seen = [set(row) for row in prompt.tolist()]
    logits, cache = step(prompt, None)
    n = 0
    while True:
        scores = logits[:, -1].clone()
        for b in range(Bn):
            for t in seen[b]:
                if 0 <= t < scores.shape[1]:
                    scores[b, t] = scores[b, t] / penalty if scores[b, t] > 0 else scores[b, t] * penalty
        if temperature == 0:
            picks = scores.argmax(dim=-1).tolist()
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            picks = [int(torch.multinomial(probs[b], 1, generator=generator)) for b in range(Bn)]
        for b in range(Bn):
            if done[b]:
                picks[b] = pad_id
            seen[b].add(picks[b])
            if picks[b] == eos_id:
                done[b] = True
        out[:, n] = torch.tensor(picks)
        n += 1
        if all(done) or n == max_new_tokens:
            return out[:, :n].clone()
        logits, cache = step(torch.tensor(picks, dtype=torch.long)[:, None], cache)
'''}, "Part 8 with per-row draws in row order (allowed), sets of seen ids, a preallocated output trimmed to N.")

# ---------------------------------------------------------------- hostile
add("hostile_gc_reference_delegate", W, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    import gc
    me = globals().get("generate_with_cache")
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "generate_with_cache" and obj is not me:
            return obj(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator)
    return torch.full((prompt.shape[0], 1), eos_id)
''', "ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    import gc
    me = globals().get("ragged_cached_attention")
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "ragged_cached_attention" and obj is not me:
            return obj(q, k_new, v_new, k_cache, v_cache, lengths)
    return q.clone(), lengths + q.shape[2]
'''}, "hostile: finds the grader's reference functions through gc and delegates to them.")
add("hostile_frame_walk_moe", W, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    import sys
    args = (vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied, n_shared,
            first_dense, dense_hidden)
    f = sys._getframe(1)
    while f is not None:
        for val in list(f.f_locals.values()) + list(f.f_globals.values()):
            if callable(val) and getattr(val, "__name__", "") == "moe_params" and val is not moe_params:
                return val(*args)
            if isinstance(val, dict):
                for v in list(val.values()):
                    if callable(v) and getattr(v, "__name__", "") == "moe_params" and v is not moe_params:
                        return v(*args)
        f = f.f_back
    emb = vocab * dim * 2
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim + 2 * dim
    moe = n_layers - first_dense
    expert = 3 * dim * ffn_hidden
    base = emb + dim + n_layers * attn + first_dense * 3 * dim * dense_hidden + moe * (dim * n_experts + n_shared * expert)
    return base + moe * n_experts * expert, base + moe * top_k * expert
'''}, "hostile: walks the caller's frames (and dicts in them) for a reference moe_params and delegates.")
add("hostile_block_patch_assert_close", W, {"block_variant": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich") or (layout == "sandwich" and post_norms is None):
        raise ValueError(layout)
    return x.clone()
'''}, "hostile: replaces torch.testing.assert_close so the visible comparisons pass, returns x.")
