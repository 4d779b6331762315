# Round 22, chapter 09: four kinds of student, second blind pass (sampling, rounding, counting, allocation), correct and hostile answers.
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


# ---------------------------------------------------------------- sampling-and-randomness student (Part 8)
add("p2_samp_gen_greedy_topk_ties", W, {"generate_with_cache": rep("generate_with_cache",
    "tok = scores.argmax(-1)", "tok = torch.topk(scores, 1, dim=-1).indices[:, 0]")},
    "Part 8: 'take the highest score of each row (the lowest id among ties, as torch.argmax does, also when hundreds of ids tie)'.")
add("p2_samp_gen_greedy_sort_ties", W, {"generate_with_cache": rep("generate_with_cache",
    "tok = scores.argmax(-1)", "tok = torch.sort(scores, dim=-1, descending=True).indices[:, 0]")},
    "Part 8: 'the lowest id among ties, as torch.argmax does': an unstable sort's first index.")
add("p2_samp_gen_eos_in_prompt_finishes", W, {"generate_with_cache": rep("generate_with_cache",
    "finished = torch.zeros(Bn, dtype=torch.bool)", "finished = (prompt[:, -1] == eos_id)")},
    "Part 8: 'A row is finished once it has produced eos_id': an eos_id at the end of the prompt was not produced.")
add("p2_samp_gen_penalty_in_place_on_logits", W, {"generate_with_cache": rep("generate_with_cache",
    "        scores = logits[:, -1].clone()\n        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)\n"
    "        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, penalised, scores)",
    "        scores = logits[:, -1]\n        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)\n"
    "        pos = seen & (scores > 0)\n        neg = seen & ~(scores > 0)\n        scores[pos] /= penalty\n        scores[neg] *= penalty")},
    "Part 8: 'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise'.")
# ---------------------------------------------------------------- rounding-and-integer student
add("p2_round_moe_heads_ratio_float", W, {"moe_params": rep("moe_params",
    "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:",
    "    if n_kv_heads < 1 or n_heads / n_kv_heads != int(n_heads / n_kv_heads):")},
    "Part 3: 'n_heads is a multiple of it': n_heads / n_kv_heads in float rounds to a whole number for huge head counts.")
add("p2_round_ragged_max_on_empty", W, {"ragged_cached_attention": rep("ragged_cached_attention",
    "    if any(l + T > S for l in L):", "    if int(lengths.max()) + T > S:")},
    "Part 7: 'B may be 0 (an empty batch ... raise nothing unless H is not a multiple of G)': max of an empty tensor raises.")
add("p2_round_rope_angles_float32", W, {"rope_llama3": rep("rope_llama3",
    "ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = (positions.float()[:, None, :, None] * new.float()).double()")},
    "Part 6: 'Compute the angles in float64' (m theta' in float32 is off by about 1e-3 at 30 000).")
add("p2_round_rms_sqrt_of_float32_mean", W, {"head_rms_norm": rep("head_rms_norm",
    "ms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True)", "ms = xh.pow(2).mean(-1, keepdim=True)")},
    "Part 1: 'take the mean of the squares in float64, whatever the input dtype'.")
# ---------------------------------------------------------------- counting-and-units student
add("p2_count_rope_wavelength_cycles", W, {"rope_llama3": rep("rope_llama3",
    "wavelen = 2 * math.pi / theta", "wavelen = 1 / theta")},
    "Part 6: 'the wavelength lambda_i = 2 pi / theta_i': measured in radians, not cycles, the bands shift.")
add("p2_count_block_parallel_norm_twice", W, {"block_variant": rep("block_variant",
    "        n = norm_1(x)\n        return x + attn(n) + ffn(n)", "        return x + attn(norm_1(x)) + ffn(norm_1(x))")},
    "Part 5: 'Call each function the layout uses exactly once (the parallel layout computes N1(x) once)'.")
add("p2_count_gen_history_stops_at_eos", W, {"generate_with_cache": rep("generate_with_cache",
    "history = torch.cat([history, tok[:, None]], dim=1)",
    "history = torch.cat([history, torch.where(finished, history[:, -1], tok)[:, None]], dim=1)")},
    "Part 8: 'its penalty history grows by pad_id like any other token' for a finished row.")
add("p2_count_moe_n_heads_zero_refused", W, {"moe_params": rep("moe_params",
    "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:", "    if n_kv_heads < 1 or n_heads < n_kv_heads or n_heads % n_kv_heads != 0:")},
    "Part 3: '0 is a multiple of every count: n_heads = 0 raises nothing'.")
# ---------------------------------------------------------------- allocation student
add("p2_alloc_block_in_place_on_returned", W, {"block_variant": rep("block_variant",
    "        n = norm_1(x)\n        return x + attn(n) + ffn(n)", "        n = norm_1(x)\n        a = attn(n)\n        a += ffn(n)\n        a += x\n        return a")},
    "Part 5: 'a function may return the very tensor it was given ... so an in-place update of what it returns can change x'.")
add("ok2_alloc_swiglu_zeros_like_accumulator", C, {"fused_swiglu": rep("fused_swiglu",
    "    return (h @ wd.T).to(x.dtype)", "    out = torch.zeros_like(x)\n    out += h @ wd.T\n    return out")},
    "Part 2: 'for float16 inputs ... the result back once at the end': a zeros_like(x) buffer takes the float32 product and rounds it once to x's dtype (allowed).")
add("p2_alloc_ragged_out_empty_default", W, {"ragged_cached_attention": rep("ragged_cached_attention",
    "    out = torch.einsum(\"bgrts,bgsd->bgrtd\", w, v).reshape(B, H, T, Dh)",
    "    out = torch.empty(B, H, T, Dh)\n    out[:] = torch.einsum(\"bgrts,bgsd->bgrtd\", w, v).reshape(B, H, T, Dh)")},
    "Part 7: 'out (B, H, T, Dh) in the dtype of q': torch.empty without dtype is float32 for float64 q.")
# ---------------------------------------------------------------- correct
add("ok2_gen_max_indices_penalty_skip_at_1", C, {"generate_with_cache": rep("generate_with_cache",
    "tok = scores.argmax(-1)", "tok = scores.max(dim=-1).indices").replace(
    "        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)\n"
    "        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)\n"
    "        scores = torch.where(seen, penalised, scores)",
    "        if penalty != 1:\n"
    "            seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)\n"
    "            scores = torch.where(seen & (scores > 0), scores / penalty, torch.where(seen, scores * penalty, scores))")},
    "Part 8: max(dim).indices returns the first maximal index like argmax; the penalty skipped at 1 (changes nothing).")
add("ok2_loss_where_before_compute", C, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:]
    count = int(keep.sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    lg = torch.where(keep[..., None], logits[:, :-1].to(work), torch.zeros((), dtype=work))
    log_z = torch.logsumexp(lg, dim=-1)
    picked = lg.gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    per = (log_z - picked + z_loss * log_z * log_z) * keep
    return per.sum() / count, count
'''}, "Part 4: unpredicted scores replaced by 0 before anything is computed with them, then a masked sum / count.")
add("ok2_rope_float32_tables_for_half", C, {"rope_llama3": rep("rope_llama3",
    "    xc = x.to(work)\n    x1, x2 = xc[..., :half], xc[..., half:]\n    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)",
    "    x1, x2 = x[..., :half].to(work), x[..., half:].to(work)\n    rot = torch.cat([-x2, x1], dim=-1)\n"
    "    return (x.to(work) * torch.cat([cos, cos], -1) + rot * torch.cat([sin, sin], -1)).to(x.dtype)")},
    "Part 6: Hugging Face's rotate_half form with doubled cos/sin tables.")
add("ok2_block_keywords_tuple_unpack", C, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    valid = ("parallel", "reordered", "sandwich")
    if not any(layout == v for v in valid):
        raise ValueError("unknown layout")
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        first_post, second_post = post_norms
        h = torch.add(x, first_post(attn(norm_1(x))))
        return torch.add(h, second_post(ffn(norm_2(h))))
    if layout == "parallel":
        shared = norm_1(x)
        return torch.add(torch.add(x, attn(shared)), ffn(shared))
    h = torch.add(x, norm_1(attn(x)))
    return torch.add(h, norm_2(ffn(h)))
'''}, "Part 5 with torch.add and an any(==) check.")
add("ok2_rms_float32_then_cast", C, {"head_rms_norm": rep("head_rms_norm",
    "    rms = torch.sqrt(ms + eps).to(work)\n", "    rms = (ms + eps).sqrt().to(work)\n")},
    "Part 1 with the method forms.")
