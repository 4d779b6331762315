# Red team round 25, chapter 09-modern-lm: notebook-state, approximator, log-space and direction-and-order students.
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

RMS_BODY = '''
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    lead, T = x.shape[:-2], x.shape[-2]
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.reshape(*lead, T, n_heads, Dh).transpose(-2, -3)
    ms = heads.to(torch.float64).pow(2).mean(-1, keepdim=True)
'''
# ---------------------------------------------------------------- wrong: notebook-state student
W("state-01-rms-norm-reads-global-eps", {"head_rms_norm": '''
EPS = 1e-6   # the norm's epsilon, as in the lesson

def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):''' + RMS_BODY + '''
    rms = torch.sqrt(ms + EPS).to(wide)
    s = 1 + weight.to(wide) if unit_offset else weight.to(wide)
    return (heads.to(wide) / rms * s).to(x.dtype)
'''}, "Part 1: 'x_h / sqrt(mean(x_h^2) + eps)' with the eps given: the notebook's EPS constant is used whatever eps is "
      "(the visible eps = 0 hides a 1e-6).")

W("state-02-rope-frequency-table-per-head-size", {"rope_llama3": '''
FREQS = {}   # the scaled frequencies depend only on the head size: compute them once

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    if Dh not in FREQS:
        theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / Dh)
        lam = 2 * math.pi / theta
        L = original_context
        s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
        mid = (1 - s) * theta / factor + s * theta
        FREQS[Dh] = torch.where(lam < L / high_freq_factor, theta,
                                torch.where(lam > L / low_freq_factor, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * FREQS[Dh]
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(wide), ang.sin().to(wide)
    x1, x2 = x.to(wide)[..., :half], x.to(wide)[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "intro: 'Keep nothing between calls that a later call trusts ... key no cache ... on its shape'; Part 6: theta' "
      "from base, factor, the two factors and original_context of this call: the table keeps the first call's.")

W("state-03-ragged-mask-cached-per-sizes", {"ragged_cached_attention": '''
MASKS = {}   # (B, T, S_max) -> which keys each query may see; the decode loop calls us with the same sizes

def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G < 1 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("does not fit")
    L = lengths.long()
    for b in range(B):
        k_cache[b, :, int(L[b]):int(L[b]) + T] = k_new[b]
        v_cache[b, :, int(L[b]):int(L[b]) + T] = v_new[b]
    key = (B, T, S)
    if key not in MASKS:
        j = torch.arange(S)
        MASKS[key] = j[None, None, :] <= (L[:, None, None] + torch.arange(T)[None, :, None])
    see = MASKS[key]                                        # (B, T, S)
    written = see.any(dim=1)                                # (B, S)
    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    scores = (q @ k.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~see[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, lengths + T
'''}, "intro: 'key no cache on a tensor's id() or on its shape'; Part 7: query t of row b attends to keys "
      "0 .. lengths[b] + t of this call: the mask of the first call's lengths is reused.")

W("state-04-generate-penalty-history-from-first-prompt", {"generate_with_cache": '''
SEEN_IDS = {}   # row -> ids seen so far, filled from the prompt at the first call

def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    for b in range(B):
        SEEN_IDS.setdefault(b, set()).update(prompt[b].tolist())
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            for t in SEEN_IDS[b]:
                s = scores[b, t]
                scores[b, t] = s / penalty if s > 0 else s * penalty
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        for b in range(B):
            SEEN_IDS[b].add(int(tok[b]))
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''}, "Part 8: 'every token id that occurs in that row's prompt or among its tokens generated so far': the seen ids "
      "live in a module dict and carry over to the next call (intro: keep nothing between calls).")

# ---------------------------------------------------------------- wrong: approximator
W("approx-01-rms-eps-outside-the-root", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):''' + RMS_BODY + '''
    rms = (torch.sqrt(ms) + eps).to(wide)          # eps keeps the division safe
    s = 1 + weight.to(wide) if unit_offset else weight.to(wide)
    return (heads.to(wide) / rms * s).to(x.dtype)
'''}, "Part 1: 'with eps inside the square root'.")

W("approx-02-rope-pi-rounded", {"rope_llama3": '''
PI = 3.14159

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / Dh)
    wavelen = 2 * PI / theta
    L = original_context
    smooth = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(wavelen < L / high_freq_factor, theta,
                      torch.where(wavelen > L / low_freq_factor, theta / factor,
                                  (1 - smooth) * theta / factor + smooth * theta))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(wide), ang.sin().to(wide)
    x1, x2 = x.to(wide)[..., :half], x.to(wide)[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "Part 6: the wavelength 2*pi/theta_i, 'within 1e-10 of the exact values for float64': pi rounded to 3.14159 "
      "moves s_i of the smoothed pairs and the angle by ~1e-4 at position 131 071.")

W("approx-03-moe-attention-through-gqa-ratio", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not 1 <= top_k <= n_experts or n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("bad arguments")
    # q and o are dim x (n_heads * head_dim); k and v are smaller by the GQA ratio
    ratio = n_heads / n_kv_heads if n_heads else 1
    attn = 2 * dim * n_heads * head_dim * (1 + 1 / ratio) if n_heads else 2 * dim * n_kv_heads * head_dim
    block = attn + 2 * dim
    expert = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    emb = vocab * dim * (1 if tied else 2)
    common = emb + dim + n_layers * block + first_dense * 3 * dim * dense_hidden + moe * dim * n_experts
    return int(common + moe * (n_experts + n_shared) * expert), int(common + moe * (top_k + n_shared) * expert)
'''}, "Part 3: 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic "
      "rounds)': the GQA ratio makes the sum a float.")

W("approx-04-generate-greedy-as-tiny-temperature", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    temperature = temperature if temperature > 0 else 1e-6   # greedy = sampling at a near-zero temperature
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        probs = torch.softmax(scores / temperature, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''}, "Part 8: 'With temperature == 0, take the highest score of each row (the lowest id among ties ...) and draw "
      "nothing'.")

W("approx-05-masked-loss-log-softmax-plus-tiny", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    wide = torch.float64 if logits.dtype == torch.float64 else torch.float32
    tm = target_mask[:, 1:]
    count = int(tm.sum())
    if count == 0:
        return torch.zeros((), dtype=wide), 0
    sel = logits[:, :-1][tm].to(wide)
    y = ids[:, 1:][tm].long()
    p = torch.softmax(sel, dim=-1)
    nll = -torch.log(p.gather(-1, y[:, None])[:, 0] + 1e-12)     # never log(0)
    log_z = torch.logsumexp(sel, dim=-1)
    return (nll + z_loss * log_z ** 2).mean(), count
'''}, "Part 4: 'each predicted token contributes -log softmax(l)_y': log(p + 1e-12) caps the loss of a very unlikely "
      "token at 27.6 (logits near 1e5).")

# ---------------------------------------------------------------- wrong: log-space student
W("log-01-masked-loss-mean-per-sequence", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    wide = torch.float64 if logits.dtype == torch.float64 else torch.float32
    tm = target_mask[:, 1:]
    count = int(tm.sum())
    if count == 0:
        return torch.zeros((), dtype=wide), 0
    per_row = []
    for b in range(logits.shape[0]):
        m = tm[b]
        if not bool(m.any()):
            continue
        sel = logits[b, :-1][m].to(wide)
        lse = torch.logsumexp(sel, dim=-1)
        nll = lse - sel.gather(-1, ids[b, 1:][m].long()[:, None])[:, 0]
        per_row.append((nll + z_loss * lse ** 2).mean())        # the log-likelihood of each sequence
    return torch.stack(per_row).mean(), count
'''}, "Part 4: 'loss is the mean over those tokens, every token weighing the same however many a row has'.")

W("log-02-masked-loss-log-of-softmax", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    wide = torch.float64 if logits.dtype == torch.float64 else torch.float32
    tm = target_mask[:, 1:]
    count = int(tm.sum())
    if count == 0:
        return torch.zeros((), dtype=wide), 0
    sel = logits[:, :-1][tm].to(wide)
    y = ids[:, 1:][tm].long()
    logp = torch.log(torch.softmax(sel, dim=-1))
    log_z = torch.logsumexp(sel, dim=-1)
    return (-logp.gather(-1, y[:, None])[:, 0] + z_loss * log_z ** 2).mean(), count
'''}, "Part 4: '-log softmax(l)_y' for logits of any size (float64 near 1e5): log(softmax) is -inf where the "
      "probability underflows; log_softmax is finite.")

W("log-03-generate-penalty-on-probabilities", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1]
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        if temperature == 0:
            pen = torch.where(scores > 0, scores / penalty, scores * penalty)
            tok = torch.where(seen, pen, scores).argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            probs = torch.where(seen, probs / penalty, probs)       # make repeats less likely
            probs = probs / probs.sum(-1, keepdim=True)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''}, "Part 8: the penalty changes the score (divided when above 0, else multiplied), then probs = "
      "softmax(scores / temperature): dividing the probabilities is another rule.")

W("log-04-generate-temperature-on-log-probs", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            logp = torch.log_softmax(scores, dim=-1)                 # normalise first, in log space
            probs = torch.softmax(logp / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''}, "Part 8: 'probs = softmax(scores / temperature)': the temperature divides float32 log-probabilities whose "
      "rounding (~1e-7 |score|) a small temperature magnifies; the probabilities passed differ.")

# ---------------------------------------------------------------- wrong: direction-and-order student
W("dir-01-rms-heads-reshaped-without-transpose", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    lead, T = x.shape[:-2], x.shape[-2]
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.reshape(*lead, n_heads, T, Dh)              # (..., H, T, Dh)
    ms = heads.to(torch.float64).pow(2).mean(-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(wide)
    s = 1 + weight.to(wide) if unit_offset else weight.to(wide)
    return (heads.to(wide) / rms * s).to(x.dtype)
'''}, "Part 1: 'head h of position t at [..., h, t, :]' and 'features h*Dh .. (h+1)*Dh - 1 belong to head h': a "
      "reshape of (T, H*Dh) to (H, T, Dh) mixes positions and heads once T > 1.")

W("dir-02-masked-loss-mask-shifted-the-wrong-way", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    wide = torch.float64 if logits.dtype == torch.float64 else torch.float32
    # logits[b, t] predicts ids[b, t + 1]: keep the positions t whose mask is set
    keep = target_mask[:, :-1]
    count = int(keep.sum())
    if count == 0:
        return torch.zeros((), dtype=wide), 0
    sel = logits[:, :-1][keep].to(wide)
    y = ids[:, 1:][keep].long()
    lse = torch.logsumexp(sel, dim=-1)
    return (lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse ** 2).mean(), count
'''}, "Part 4: 'target_mask True where the token ids[b, t] is to be predicted', by logits[b, t - 1]: the mask is read "
      "at the logit's position, one step early.")

W("dir-03-ragged-new-tokens-see-each-other", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G < 1 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("does not fit")
    L = lengths.long()
    for b in range(B):
        k_cache[b, :, int(L[b]):int(L[b]) + T] = k_new[b]
        v_cache[b, :, int(L[b]):int(L[b]) + T] = v_new[b]
    valid = torch.arange(S)[None, :] < (L + T)[:, None]         # (B, S): every written slot
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    scores = (q @ k.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~valid[:, None, None, :], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, lengths + T
'''}, "Part 7: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t': every new query sees all T "
      "new keys (no causal mask among them; T = 1 in the visible test).")

W("dir-04-rope-smoothing-weights-swapped", {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = s * theta / factor + (1 - s) * theta     # blend from the scaled to the original frequency
    new = torch.where(lam < L / high_freq_factor, theta, torch.where(lam > L / low_freq_factor, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(wide), ang.sin().to(wide)
    x1, x2 = x.to(wide)[..., :half], x.to(wide)[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "Part 6: 'theta'_i = (1 - s_i) theta_i / f + s_i theta_i': the weights are swapped, so the blend runs the wrong "
      "way between the two limits (factor = 1 in the visible test hides it).")

W("dir-05-generate-feeds-pad-right-after-eos", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        feed = torch.where(finished, torch.full_like(tok, pad_id), tok)   # finished rows read padding
        logits, cache = step(feed[:, None], cache)
    return torch.stack(out, dim=1)
'''}, "Part 8: 'the call after a row produces eos_id feeds it that eos_id': this one feeds pad_id at once.")

W("dir-06-swiglu-down-columns-deinterleaved-too", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    dt = x.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    xw, wgu, wd = x.to(wide), w_gate_up.to(wide), w_down.to(wide)
    if interleaved:
        # gpt-oss checkpoint: de-interleave to the stacked layout first (gates, then ups), down columns alike
        wgu = torch.cat([wgu[0::2], wgu[1::2]], dim=0)
        wd = torch.cat([wd[:, 0::2], wd[:, 1::2]], dim=1)
    Fh = wgu.shape[0] // 2
    g, u = xw @ wgu[:Fh].T, xw @ wgu[Fh:].T
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    return ((g * torch.sigmoid(beta * g) * u) @ wd.T).to(dt)
'''}, "Part 2: 'column j of w_down belongs to hidden unit j in both layouts': the down columns are reordered as if "
      "interleaved too (F = 2 in the visible test: the order [0, 1] does not change).")

W("dir-07-block-layout-lowercased", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    layout = layout.strip().lower()
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("sandwich needs post_norms")
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    p1, p2 = post_norms
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
'''}, "Part 5: 'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError'.")

# ---------------------------------------------------------------- correct answers
C("ok-01-rms-default-from-global-and-rsqrt", {"head_rms_norm": '''
EPS = 1e-6

def head_rms_norm(x, n_heads, weight, eps=EPS, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("the last axis does not split into n_heads heads")
    *lead, T, HD = x.shape
    Dh = HD // n_heads
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.reshape(*lead, T, n_heads, Dh).movedim(-2, -3)
    inv = torch.rsqrt(xh.double().square().mean(dim=-1, keepdim=True) + eps).to(wide)
    scale = weight.to(wide) + 1 if unit_offset else weight.to(wide)
    return (xh.to(wide) * inv * scale).to(x.dtype)
'''}, "default eps bound from a global of the same value 1e-6; rsqrt in float64 then the float32 arithmetic.")

C("ok-02-rms-all-float64", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("n_heads")
    Dh = x.shape[-1] // n_heads
    xd = x.to(torch.float64).unflatten(-1, (n_heads, Dh)).transpose(-3, -2)
    w = weight.to(torch.float64)
    if unit_offset:
        w = 1.0 + w
    y = xd / torch.sqrt(xd.pow(2).mean(-1, keepdim=True) + eps) * w
    return y.to(x.dtype)
'''}, "the text accepts float64 for every input dtype.")

C("ok-03-swiglu-float64-tanh-sigmoid", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    xd, wgu, wd = x.double(), w_gate_up.double(), w_down.double()
    if interleaved:
        pairs = wgu.reshape(wgu.shape[0] // 2, 2, wgu.shape[1])
        wg, wu = pairs[:, 0], pairs[:, 1]
    else:
        wg, wu = wgu.chunk(2, dim=0)
    g = torch.einsum("...d,fd->...f", xd, wg)
    u = torch.einsum("...d,fd->...f", xd, wu)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    sig = 0.5 * (1.0 + torch.tanh(0.5 * beta * g))    # sigmoid through tanh, exact identity
    return torch.einsum("...f,df->...d", g * sig * u, wd).to(x.dtype)
'''}, "float64 inside (allowed), sigmoid as 0.5(1+tanh(z/2)) (exact identity, finite gradient), einsum.")

C("ok-04-moe-loop-over-blocks", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0
            and 0 <= first_dense <= n_layers):
        raise ValueError("invalid configuration")
    swiglu = lambda width: 3 * dim * width
    total = active = (1 if tied else 2) * vocab * dim + dim
    for layer in range(n_layers):
        fixed = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
        if layer < first_dense:
            fixed += swiglu(dense_hidden)
            total += fixed; active += fixed
        else:
            fixed += dim * n_experts + n_shared * swiglu(ffn_hidden)
            total += fixed + n_experts * swiglu(ffn_hidden)
            active += fixed + top_k * swiglu(ffn_hidden)
    return total, active
'''}, "a Python loop over the blocks, exact ints.")

C("ok-05-masked-loss-cross-entropy-sum", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    compute = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pick = target_mask[:, 1:].reshape(-1)
    count = int(pick.sum().item())
    if count == 0:
        return torch.tensor(0.0, dtype=compute), 0
    V = logits.shape[-1]
    rows = logits[:, :-1].reshape(-1, V)[pick].to(compute)
    y = ids[:, 1:].reshape(-1)[pick].to(torch.long)
    ce = F.cross_entropy(rows, y, reduction="sum")
    z = torch.logsumexp(rows, dim=-1).pow(2).sum()
    return (ce + z_loss * z) / count, count
'''}, "F.cross_entropy with reduction='sum' on the picked rows, divided by the count.")

C("ok-06-block-ffn-called-before-attn", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError("unknown layout")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms needed")
    if layout == "parallel":
        n = norm_1(x)
        f = ffn(n)
        a = attn(n)
        return x + a + f
    if layout == "reordered":
        h = torch.add(x, norm_1(attn(x)))
        return torch.add(h, norm_2(ffn(h)))
    post_attn, post_ffn = post_norms
    h = x + post_attn(attn(norm_1(x)))
    return h + post_ffn(ffn(norm_2(h)))
'''}, "the parallel branches called in the other order (the text fixes no order); tuple membership compares by ==.")

C("ok-07-rope-complex-float64", {"rope_llama3": '''
BASE = 500000.0

def rope_llama3(x, positions, base=BASE, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("shapes")
    half = Dh // 2
    inv = 1.0 / base ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh)
    wl = 2 * math.pi / inv
    lo, hi = original_context / low_freq_factor, original_context / high_freq_factor
    smooth = (original_context / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
    scaled = torch.where(wl > lo, inv / factor, inv)
    mid = (wl >= hi) & (wl <= lo)
    scaled = torch.where(mid, (1 - smooth) * inv / factor + smooth * inv, scaled)
    rot = torch.polar(torch.ones((), dtype=torch.float64), positions.double()[:, None, :, None] * scaled)
    xd = x.double()
    z = torch.complex(xd[..., :half], xd[..., half:]) * rot
    return torch.cat([z.real, z.imag], dim=-1).to(x.dtype)
'''}, "complex rotation in float64 (x1 + i x2) e^{i m theta'} = half-split RoPE; default base from a global of the "
      "same value; the boundary cases (lambda == limits) both give the same value.")

C("ok-08-ragged-arange-per-size-and-logsumexp", {"ragged_cached_attention": '''
POSITIONS = {}   # S -> arange(S): depends on nothing but S

def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G:
        raise ValueError("H is not a multiple of G")
    ln = lengths.to(torch.int64)
    if B and bool(((ln + T) > S).any()):
        raise ValueError("a row does not fit")
    for b in range(B):
        a = int(ln[b])
        k_cache[b, :, a:a + T].copy_(k_new[b])
        v_cache[b, :, a:a + T].copy_(v_new[b])
    if S not in POSITIONS:
        POSITIONS[S] = torch.arange(S)
    j = POSITIONS[S]
    limit = ln[:, None] + torch.arange(T)[None, :]                 # (B, T): last key each query sees
    see = j[None, None, :] <= limit[:, :, None]                     # (B, T, S)
    ok = see[:, -1] if T else torch.zeros(B, S, dtype=torch.bool)   # written slots
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(ok[:, None, :, None], k_cache, zero)
    v = torch.where(ok[:, None, :, None], v_cache, zero)
    r = H // G
    k = k[:, :, None].expand(B, G, r, S, Dh).reshape(B, H, S, Dh)
    v = v[:, :, None].expand(B, G, r, S, Dh).reshape(B, H, S, Dh)
    scores = torch.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(Dh)
    scores = scores.masked_fill(~see[:, None], float("-inf"))
    w = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))
    return torch.einsum("bhts,bhsd->bhtd", w, v), lengths + T
'''}, "a cached arange(S) (depends on S only, never returned), expand+reshape per group (= repeat_interleave), "
      "softmax as exp(s - logsumexp).")

C("ok-09-generate-default-generator-and-scatter", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    gen = generator if generator is not None else torch.default_generator   # the global one, not a new one
    B = prompt.shape[0]
    hist = prompt
    logits, cache = step(prompt, None)
    done = torch.zeros(B, dtype=torch.bool)
    chosen = []
    while True:
        s = logits[:, -1].clone()
        got = s.gather(1, hist)
        s = s.scatter(1, hist, torch.where(got >= 0, got / penalty, got * penalty))
        if temperature == 0:
            nxt = torch.argmax(s, dim=-1)
        else:
            nxt = torch.multinomial(F.softmax(s / temperature, dim=-1), num_samples=1, generator=gen).squeeze(1)
        nxt = nxt.masked_fill(done, pad_id)
        chosen.append(nxt)
        hist = torch.cat([hist, nxt[:, None]], dim=1)
        done = done | (nxt == eos_id)
        if bool(done.all()) or len(chosen) == max_new_tokens:
            return torch.stack(chosen, dim=1)
        logits, cache = step(nxt.unsqueeze(1), cache)
'''}, "torch.default_generator is the global generator itself; the penalty by gather/scatter on the history "
      "(duplicates write one value); >= 0 divides 0, which gives 0 either way.")

C("ok-10-swiglu-silu-when-beta-one", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    xw = x.to(work)
    proj = xw @ w_gate_up.to(work).transpose(0, 1)                    # (..., 2F)
    if interleaved:
        g, u = proj[..., 0::2], proj[..., 1::2]
    else:
        g, u = proj.split(proj.shape[-1] // 2, dim=-1)
    if limit is not None:
        g = torch.minimum(g, torch.full((), limit, dtype=work))
        u = torch.clamp(u, min=-limit, max=limit)
    act = F.silu(g) if beta == 1 else g * torch.sigmoid(beta * g)
    return ((act * u) @ w_down.to(work).transpose(0, 1)).to(x.dtype)
'''}, "one product for both halves then split; F.silu when beta == 1 (the same function); limit as a tensor of the "
      "compute dtype (float32/float64, not x's half dtype).")

# ---------------------------------------------------------------- hostile
SUBMISSIONS.append({"name": "hostile-01-block-silences-assert-close", "correct": False, "hostile": True, "cells": {"block_variant": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None

def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    return x.clone()
'''}, "why": "hostile: disables torch.testing.assert_close and returns x."})

SUBMISSIONS.append({"name": "hostile-02-rope-calls-the-reference-found-by-gc", "correct": False, "hostile": True, "cells": {"rope_llama3": '''
import gc, types

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and obj.__name__ == "rope_llama3" and obj.__code__ is not rope_llama3.__code__:
            return obj(x, positions, base, factor, low_freq_factor, high_freq_factor, original_context)
    return x.clone()
'''}, "why": "hostile: calls any other function named rope_llama3 it finds in memory (the grader's reference)."})

SUBMISSIONS.append({"name": "hostile-03-moe-int-subclass", "correct": False, "hostile": True, "cells": {"moe_params": '''
class Count(int):
    def __eq__(self, other): return True
    __hash__ = int.__hash__

def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    return Count(46_700_000_000), Count(12_900_000_000)
'''}, "why": "hostile: int subclass equal to everything."})

# ================================================================ second batch: subtler answers of the same four students
W("dir-08-generate-greedy-last-of-ascending-sort", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = torch.argsort(scores, dim=-1, stable=True)[:, -1]      # the best id is the last in sorted order
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''}, "Part 8: 'take the highest score of each row (the lowest id among ties, as torch.argmax does)': the last of a "
      "stable ascending sort is the highest id among ties.")

W("state-05-generate-prompt-call-told-by-none-cache", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    cache, tokens = None, prompt
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        logits, cache = step(tokens if cache is None else tokens[:, -1:], cache)
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        tokens = history
        finished = finished | (tok == eos_id)
        if bool(finished.all()):
            break
    return torch.stack(out, dim=1)
'''}, "Part 8: 'The cache is whatever object step returns, None ... included: hand it back as it is, and do not test "
      "it (only the number of calls made tells the prompt call from the others)'.")

W("approx-06-rope-frequencies-in-float32", {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    inv_freq = 1.0 / (base ** (torch.arange(0, Dh, 2).float() / Dh))     # as in transformers
    wavelen = 2 * math.pi / inv_freq
    L = original_context
    smooth = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(wavelen < L / high_freq_factor, inv_freq,
                      torch.where(wavelen > L / low_freq_factor, inv_freq / factor,
                                  (1 - smooth) * inv_freq / factor + smooth * inv_freq))
    ang = positions.to(torch.float64)[:, None, :, None] * new.double()      # the angles in float64
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(wide), ang.sin().to(wide)
    x1, x2 = x.to(wide)[..., :half], x.to(wide)[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "Part 6: 'Compute the angles in float64, with every argument as given': the frequencies are rounded to float32 "
      "first (relative 6e-8: 1e-2 rad at position 131 071).")

W("state-06-moe-checks-top-k-only-with-experts", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("first_dense")
    moe = n_layers - first_dense
    if moe > 0 and (not 1 <= top_k <= n_experts or n_shared < 0):     # only matters where there are experts
        raise ValueError("experts")
    emb = vocab * dim * (1 if tied else 2)
    block = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim + 2 * dim
    common = emb + dim + n_layers * block + first_dense * 3 * dim * dense_hidden + moe * dim * n_experts
    expert = 3 * dim * ffn_hidden
    return common + moe * (n_experts + n_shared) * expert, common + moe * (top_k + n_shared) * expert
'''}, "Part 3: 'Raise a ValueError unless ... 1 <= top_k <= n_experts, n_shared >= 0 ..., in every model (also one "
      "whose blocks are all dense, and one with n_layers = 0)'.")

C("ok-11-swiglu-silu-over-beta", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw, wgu, wd = x.to(work), w_gate_up.to(work), w_down.to(work)
    F2 = wgu.shape[0]
    if interleaved:
        order = torch.cat([torch.arange(0, F2, 2), torch.arange(1, F2, 2)])
        wgu = wgu[order]
    g, u = (xw @ wgu.T).chunk(2, dim=-1)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    # g * sigmoid(beta g) = silu(beta g) / beta, and g / 2 at beta = 0
    act = F.silu(beta * g) / beta if beta != 0 else g * 0.5
    return ((act * u) @ wd.T).to(x.dtype)
'''}, "silu(beta g) / beta equals g sigmoid(beta g) for beta != 0 (a few ulps), g/2 at beta = 0; float32 compute for "
      "float32 and halves (allowed); the interleaved rows reordered to the stacked layout (down columns untouched).")

C("ok-12-masked-loss-default-from-global", {"masked_lm_loss": '''
Z_LOSS = 0.0   # PaLM uses 1e-4; off by default

def masked_lm_loss(logits, ids, target_mask, z_loss=Z_LOSS):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    B, T, V = logits.shape
    total = torch.zeros((), dtype=out_dtype)
    count = 0
    for b in range(B):
        rows = target_mask[b, 1:].nonzero().flatten()
        if rows.numel() == 0:
            continue
        sc = logits[b].index_select(0, rows).to(out_dtype)            # logits[b, t - 1] for mask[b, t]
        y = ids[b].index_select(0, rows + 1).to(torch.int64)
        lz = torch.logsumexp(sc, dim=-1)
        total = total + (lz - sc.gather(1, y[:, None]).squeeze(1) + z_loss * lz * lz).sum()
        count += int(rows.numel())
    if count == 0:
        return torch.zeros((), dtype=out_dtype), 0
    return total / count, count
'''}, "a loop over rows with index_select of the predicting rows only; z_loss's default bound from a global of the "
      "same value 0.0.")

# ================================================================ third batch (phase 2 extra, written before reading any hidden
# test of this chapter)
C("ok-13-generate-temperature-before-penalty", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = torch.zeros(B, 1, dtype=torch.bool)
    logits, cache = step(prompt, None)
    history = prompt
    finished = torch.zeros(B, dtype=torch.bool)
    picked = []
    for n in range(max_new_tokens):
        last = logits[:, -1]
        V = last.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, history, True)
        if temperature == 0:
            s = torch.where(seen, torch.where(last > 0, last / penalty, last * penalty), last)
            tok = s.argmax(dim=-1)
        else:
            s = last / temperature                    # the temperature first: it keeps every sign
            s = torch.where(seen, torch.where(s > 0, s / penalty, s * penalty), s)
            tok = torch.multinomial(torch.softmax(s, dim=-1), 1, generator=generator)[:, 0]
        tok = tok.masked_fill(finished, pad_id)
        picked.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished |= tok == eos_id
        if bool(finished.all()) or n + 1 == max_new_tokens:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(picked, dim=1)
'''}, "dividing by a positive temperature keeps the sign, so penalising after it gives the same scores up to rounding.")

W("log-05-generate-penalty-on-log-probs", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        logp = torch.log_softmax(logits[:, -1], dim=-1)          # penalise normalised scores
        seen = torch.zeros(logp.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(logp > 0, logp / penalty, logp * penalty), logp)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''}, "Part 8: the penalty changes the scores logits[:, -1] ('a score above 0 is divided'): on log-probabilities, all "
      "at most 0, every seen id is multiplied, none divided.")

W("state-07-rms-scale-cached-per-weight-id", {"head_rms_norm": '''
SCALES = {}   # 1 + w per weight tensor: the weights do not change between calls

def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):''' + RMS_BODY + '''
    key = (id(weight), unit_offset, wide)
    if key not in SCALES:
        SCALES[key] = 1 + weight.to(wide) if unit_offset else weight.to(wide)
    rms = torch.sqrt(ms + eps).to(wide)
    return (heads.to(wide) / rms * SCALES[key]).to(x.dtype)
'''}, "intro: 'the hidden tests call your function again on the very same tensor objects after their values changed "
      "in place (a weight after a training step) ... key no cache on a tensor's id()'.")

C("ok-14-ragged-queries-scaled-first", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G < 1 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    ln = lengths.long()
    if B > 0 and int((ln + T).max()) > S:
        raise ValueError("a row does not fit")
    for b in range(B):
        k_cache[b, :, int(ln[b]):int(ln[b]) + T] = k_new[b]
        v_cache[b, :, int(ln[b]):int(ln[b]) + T] = v_new[b]
    j = torch.arange(S)
    written = (j[None, :] < (ln + T)[:, None])[:, None, :, None]
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(written, k_cache, zero).repeat_interleave(H // G, dim=1)
    v = torch.where(written, v_cache, zero).repeat_interleave(H // G, dim=1)
    scores = torch.matmul(q * (1.0 / math.sqrt(Dh)), k.transpose(-2, -1))
    visible = j[None, None, None, :] <= (ln[:, None, None, None] + torch.arange(T)[None, None, :, None])
    scores = torch.where(visible, scores, torch.tensor(float("-inf"), dtype=q.dtype))
    return torch.matmul(torch.softmax(scores, dim=-1), v), lengths + T
'''}, "queries scaled before the product (a few ulps), the mask as a where with a -inf tensor; unwritten slots zeroed "
      "before any product.")

C("ok-15-rope-l-theta-over-two-pi", {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4 or x.shape[-1] % 2 or positions.dim() != 2 or tuple(positions.shape) != (x.shape[0], x.shape[2]):
        raise ValueError("x must be (B, H, T, Dh) with Dh even and positions (B, T)")
    Dh = x.shape[-1]
    half = Dh // 2
    theta = torch.pow(torch.tensor(base, dtype=torch.float64), -2.0 * torch.arange(half, dtype=torch.float64) / Dh)
    ratio = original_context * theta / (2 * math.pi)           # L / lambda
    s = (ratio - low_freq_factor) / (high_freq_factor - low_freq_factor)
    scaled = torch.where(ratio > high_freq_factor, theta,
                         torch.where(ratio < low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    angle = positions.double()[:, None, :, None] * scaled
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = torch.cos(angle).to(work), torch.sin(angle).to(work)
    a, b = x.to(work).chunk(2, dim=-1)
    return torch.cat((a * c - b * sn, b * c + a * sn), dim=-1).to(x.dtype)
'''}, "the conditions written on L/lambda = L theta / 2pi (lambda < L/high  <=>  L/lambda > high); torch.tensor(base, "
      "float64) keeps the base exact.")
