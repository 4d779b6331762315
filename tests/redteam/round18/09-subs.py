# Red team round 18, chapter 09-modern-lm: the type-sloppy (T), autograd-careless (A), stateful (S) and
# dtype/device-generalising (D) students; correct variants (C) and hostile answers (H).
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: type-sloppy
add("T1-swiglu-limit-truthy", False, {"fused_swiglu": r'''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else (gu[..., :Fh], gu[..., Fh:])
    if limit:                      # None and 0 look the same here
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    return (F.silu(g) if beta == 1 else g * torch.sigmoid(beta * g)) * u @ w_down.T
'''}, "Part 2: 'when limit is a number (0 included), replace g by min(g, limit) ... clamp(u, -limit, limit)': limit=0 is treated as None (no clamp).")

add("T2-moe-float-ratio", False, {"moe_params": r'''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("heads")
    if not 1 <= top_k <= n_experts or n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("bad config")
    group = n_heads / n_kv_heads                     # query heads per kv head
    attn = 2 * dim * head_dim * n_kv_heads * (group + 1)
    per_block = 2 * dim + attn
    expert = 3 * dim * ffn_hidden
    n_moe = n_layers - first_dense
    base = vocab * dim * (1 if tied else 2) + dim + n_layers * per_block + first_dense * 3 * dim * dense_hidden
    total = base + n_moe * (dim * n_experts + (n_experts + n_shared) * expert)
    active = base + n_moe * (dim * n_experts + (top_k + n_shared) * expert)
    return int(total), int(active)
'''}, "Part 3: 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)': n_heads / n_kv_heads makes every count a float, rounded past 2**53.")

add("T3-loss-int32-ids-cross-entropy", False, {"masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m]                        # kept in the dtype the ids came in
    count = int(m.sum().item())
    if count == 0:
        return sel.sum(), 0
    nll = F.cross_entropy(sel, y, reduction="sum")
    lz = torch.logsumexp(sel, dim=-1)
    return (nll + z_loss * (lz ** 2).sum()) / count, count
'''}, "Part 4: 'ids (B, T) holds integer token ids (int64 or int32)': F.cross_entropy refuses an int32 target.")

add("T4-ragged-new-lengths-int64", False, {"ragged_cached_attention": r'''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    lens = [int(l) for l in lengths.tolist()]
    if any(l + T > S for l in lens):
        raise ValueError("row does not fit")
    for b, l in enumerate(lens):
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    L = torch.tensor(lens)                                  # python ints back into a tensor
    pos = torch.arange(S)
    written = pos[None, :] < (L + T)[:, None]
    kc = torch.where(written[:, None, :, None], k_cache, 0.0).repeat_interleave(H // G, dim=1)
    vc = torch.where(written[:, None, :, None], v_cache, 0.0).repeat_interleave(H // G, dim=1)
    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)
    allowed = pos[None, None, :] <= (L[:, None] + torch.arange(T)[None])[:, :, None]
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ vc
    return out, L + T
'''}, "Part 7: 'new_lengths a new tensor equal to lengths + T, in the dtype of lengths': rebuilt from Python ints it is int64 for int32 lengths.")

add("T5-rope-returns-x-at-zero", False, {"rope_llama3": r'''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    if not bool(positions.any()):
        return x                                 # nothing turns: nothing to compute
    half = Dh // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.double()[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * c - x2 * sn, x2 * c + x1 * sn], -1).to(x.dtype)
'''}, "Part 6: 'Return a new tensor ... (a new one also where every position is 0 and nothing turns, not x itself)'.")

add("T6-moe-zero-kv-heads-zerodivision", False, {"moe_params": r'''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_heads % n_kv_heads != 0:               # n_kv_heads = 0 lands here as ZeroDivisionError
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if n_kv_heads < 0:
        raise ValueError("n_kv_heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("bad config")
    emb = vocab * dim * (1 if tied else 2)
    blk = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    exp = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    common = emb + dim + n_layers * blk + first_dense * 3 * dim * dense_hidden + moe * (dim * n_experts + n_shared * exp)
    return common + moe * n_experts * exp, common + moe * top_k * exp
'''}, "Part 3: 'Raise a ValueError unless n_kv_heads >= 1 and n_heads is a multiple of it': n_kv_heads = 0 raises ZeroDivisionError, not ValueError.")

add("T7-gen-tests-cache-truthiness", False, {"generate_with_cache": r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    hist = [set(r) for r in prompt.tolist()]
    cache, feed = None, prompt
    done = [False] * B
    out = []
    for i in range(max_new_tokens):
        logits, cache = step(feed if cache else prompt, cache if cache else None)
        sc = logits[:, -1].clone()
        for b in range(B):
            ids = torch.tensor(sorted(hist[b]), dtype=torch.long)
            v = sc[b, ids]
            sc[b, ids] = torch.where(v > 0, v / penalty, v * penalty)
        if temperature == 0:
            tok = sc.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(sc / temperature, -1), 1, generator=generator)[:, 0]
        toks = [pad_id if done[b] else int(tok[b]) for b in range(B)]
        out.append(toks)
        for b in range(B):
            hist[b].add(toks[b])
            done[b] = done[b] or toks[b] == eos_id
        if all(done):
            break
        feed = torch.tensor(toks, dtype=torch.long)[:, None]
    return torch.tensor(out, dtype=torch.long).T.contiguous()
'''}, "Part 8: 'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it': a falsy cache makes it feed the whole prompt again with None.")

# ---------------------------------------------------------------- wrong: autograd-careless
add("A1-rms-unit-offset-inplace-on-weight", False, {"head_rms_norm": r'''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    w = weight.to(cd)
    if unit_offset:
        w += 1                                  # Gemma's offset
    xh = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    out = xh * torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps) * w
    return out.to(x.dtype)
'''}, "Part 1 / intro: 'Your functions must not change the tensors they are given': w += 1 writes into a float32 weight itself (and into a leaf that requires grad).")

add("A2-swiglu-gate-no-grad", False, {"fused_swiglu": r'''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else (gu[..., :Fh], gu[..., Fh:])
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    with torch.no_grad():                      # the gate is just a weighting
        gate = torch.sigmoid(beta * g)
    return (g * gate * u) @ w_down.T
'''}, "Part 2: 'do not compute any factor under torch.no_grad()': sigma(beta g) is left out of the gradient.")

add("A3-loss-masked-fill-inplace-on-logits", False, {"masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    B, T, V = logits.shape
    lg = logits.to(cd)
    used = torch.zeros(B, T, dtype=torch.bool)
    used[:, :-1] = target_mask[:, 1:]
    with torch.no_grad():
        lg.masked_fill_(~used[..., None], 0.0)           # clear the scores nobody predicts
    count = int(used.sum())
    lz = torch.logsumexp(lg[:, :-1], -1)
    tok = lg[:, :-1].gather(-1, ids[:, 1:, None].long())[..., 0]
    per = (lz - tok + z_loss * lz * lz)[target_mask[:, 1:]]
    return per.sum() / max(count, 1), count
'''}, "Intro: 'Your functions must not change the tensors they are given': masked_fill_ on logits.to(float32) writes into float32 logits.")

add("A4-ragged-write-through-data", False, {"ragged_cached_attention": r'''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H % G")
    if B and bool((lengths + T > S).any()):
        raise ValueError("fit")
    for b in range(B):
        l = int(lengths[b])
        k_cache.data[b, :, l:l + T] = k_new[b]          # a cache is storage, not part of the model
        v_cache.data[b, :, l:l + T] = v_new[b]
    rep = H // G
    pos = torch.arange(S)
    qpos = lengths.long()[:, None] + torch.arange(T)[None]
    ok = pos[None, None, :] <= qpos[:, :, None]
    kc = torch.where(ok.any(1)[:, None, :, None], k_cache, 0).repeat_interleave(rep, 1)
    vc = torch.where(ok.any(1)[:, None, :, None], v_cache, 0).repeat_interleave(rep, 1)
    sc = (q @ kc.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~ok[:, None], float("-inf"))
    return sc.softmax(-1) @ vc, lengths + T
'''}, "Part 7: 'Gradients must flow ... with respect to q, k_new and v_new': writing through .data cuts k_new and v_new out of the graph.")

add("A5-block-parallel-inplace-on-attn-output", False, {"block_variant": r'''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        n = norm_1(x)
        y = attn(n)
        y += ffn(n)                   # accumulate the two branches
        y += x
        return y
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    p1, p2 = post_norms
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
'''}, "Part 5: 'Do not change x; mind that a function may return the very tensor it was given (an identity does), so an in-place update of what it returns can change x'.")

add("A6-gen-penalty-in-place-on-step-logits", False, {"generate_with_cache": r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = prompt
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    toks = []
    while True:
        scores = logits[:, -1].float()
        mask = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)
        scores[mask & (scores > 0)] /= penalty
        scores[mask & (scores <= 0)] *= penalty
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator).squeeze(1)
        nxt = torch.where(finished, pad_id, nxt)
        toks.append(nxt)
        finished |= nxt == eos_id
        seen = torch.cat([seen, nxt[:, None]], 1)
        if finished.all() or len(toks) == max_new_tokens:
            return torch.stack(toks, 1)
        logits, cache = step(nxt[:, None], cache)
'''}, "Part 8: 'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise': .float() of float32 logits is the same tensor, penalised in place.")

# ---------------------------------------------------------------- wrong: stateful
add("S1-rope-table-cache-missing-keys", False, {"rope_llama3": r'''
FREQ_TABLES = {}

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    key = (Dh, base, factor)                                      # built once per model
    if key not in FREQ_TABLES:
        half = Dh // 2
        theta = 1.0 / base ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh)
        wl = 2 * math.pi / theta
        lo, hi = original_context / low_freq_factor, original_context / high_freq_factor
        sm = (original_context / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
        FREQ_TABLES[key] = torch.where(wl < hi, theta, torch.where(wl > lo, theta / factor,
                                                                  (1 - sm) * theta / factor + sm * theta))
    freqs = FREQ_TABLES[key]
    ang = positions.to(torch.float64)[:, None, :, None] * freqs
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    a, b = x.to(cd).chunk(2, dim=-1)
    return torch.cat((a * cos - b * sin, b * cos + a * sin), -1).to(x.dtype)
'''}, "Part 6: the formula uses every argument (original_context, low_freq_factor, high_freq_factor); a table keyed on (Dh, base, factor) only returns the first call's frequencies for later calls that change the others.")

add("S2-swiglu-split-cache-by-id", False, {"fused_swiglu": r'''
SPLITS = {}

def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    key = (id(w_gate_up), interleaved)
    if key not in SPLITS:                      # split the packed checkpoint once
        if interleaved:
            SPLITS[key] = (w_gate_up[0::2], w_gate_up[1::2])
        else:
            SPLITS[key] = tuple(w_gate_up.chunk(2, dim=0))
    w_g, w_u = SPLITS[key]
    g, u = x @ w_g.T, x @ w_u.T
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
'''}, "Part 2 / intro ('Each call returns new tensors', every call computes from the tensors it is given): the split is keyed on id(w_gate_up), and a later weight that reuses a freed tensor's id gets the old weight's rows.")

add("S3-ragged-positions-buffer-from-first-call", False, {"ragged_cached_attention": r'''
POSITIONS = []

def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("G")
    if B and bool((lengths + T > S).any()):
        raise ValueError("S_max")
    if not POSITIONS:
        POSITIONS.append(torch.arange(max(S, 64)))          # one table for the session
    pos = POSITIONS[0][:S]
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    end = (lengths.long() + T)[:, None]
    keep = (pos[None, :] < end)[:, None, :, None]
    kc = torch.where(keep, k_cache, 0.0).repeat_interleave(H // G, 1)
    vc = torch.where(keep, v_cache, 0.0).repeat_interleave(H // G, 1)
    qpos = end - T + torch.arange(T)[None]
    sc = q @ kc.transpose(-1, -2) / math.sqrt(Dh)
    sc = sc.masked_fill(pos[None, None, None, :] > qpos[:, None, :, None], float("-inf"))
    return torch.softmax(sc, -1) @ vc, lengths + T
'''}, "Part 7: 'S_max may be in the millions': a positions table sized by the first call is too short for a later, longer cache.")

add("S4-gen-own-generator-when-none", False, {"generate_with_cache": r'''
FALLBACK = torch.Generator().manual_seed(1234)

def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    gen = generator if generator is not None else FALLBACK     # never touch the global RNG
    B = prompt.shape[0]
    hist = prompt.clone()
    logits, cache = step(prompt, None)
    done = torch.zeros(B, dtype=torch.bool)
    res = []
    for i in range(max_new_tokens):
        s = logits[:, -1].clone()
        seen = torch.zeros_like(s, dtype=torch.bool).scatter(1, hist, True)
        s = torch.where(seen, torch.where(s > 0, s / penalty, s * penalty), s)
        if temperature == 0:
            t = s.argmax(-1)
        else:
            t = torch.multinomial(torch.softmax(s / temperature, -1), 1, generator=gen)[:, 0]
        t = torch.where(done, torch.full_like(t, pad_id), t)
        res.append(t)
        done = done | (t == eos_id)
        hist = torch.cat([hist, t[:, None]], 1)
        if bool(done.all()) or i + 1 == max_new_tokens:
            break
        logits, cache = step(t[:, None], cache)
    return torch.stack(res, 1)
'''}, "Part 8: 'generator may be None: then torch.multinomial draws from torch's global generator ... do not make a generator of your own'.")

add("S5-loss-sets-default-dtype", False, {"masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    torch.set_default_dtype(cd)                # so every constant below matches the compute dtype
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    count = int(m.sum())
    if count == 0:
        return torch.tensor(0.0), 0
    lz = torch.logsumexp(sel, -1)
    nll = lz - sel.gather(1, y[:, None]).squeeze(1)
    return (nll + z_loss * lz.square()).mean(), count
'''}, "Intro: 'Leave torch's process-wide state as you found it: its settings (default dtype, ...)': a float64 call leaves the default dtype at float64.")

add("S6-block-norm-cache-by-id", False, {"block_variant": r'''
LAST_NORM = {}

def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("post_norms")
    elif layout not in ("parallel", "reordered"):
        raise ValueError(layout)
    if layout == "parallel":
        key = (id(x), id(norm_1))                     # N1(x) once, even across calls
        if key not in LAST_NORM:
            LAST_NORM.clear()
            LAST_NORM[key] = norm_1(x)
        n = LAST_NORM[key]
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    h = x + post_norms[0](attn(norm_1(x)))
    return h + post_norms[1](ffn(norm_2(h)))
'''}, "Part 5: 'Call each function the layout uses exactly once': a second call with the same x (or a new x at a reused id) skips norm_1 and reuses a stale N1(x).")

add("S7-rms-scale-cache-by-id", False, {"head_rms_norm": r'''
SCALES = {}

def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    key = (id(weight), unit_offset, cd)
    if key not in SCALES:                       # the scale only changes when the weight does
        w = weight.to(cd)
        SCALES[key] = 1 + w if unit_offset else w
    s = SCALES[key]
    xh = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    return (xh / torch.sqrt(xh.pow(2).mean(-1, keepdim=True) + eps) * s).to(x.dtype)
'''}, "Part 1: 'The scale is s = w (weight) ... s = 1 + w': a scale cached on id(weight) is stale after the weight changes in place or a new weight reuses the id.")

# ---------------------------------------------------------------- wrong: dtype/device generaliser
add("D1-rms-always-float32", False, {"head_rms_norm": r'''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("n_heads")
    Dh = x.shape[-1] // n_heads
    xf, w = x.float(), weight.float()
    xh = xf.reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    s = 1.0 + w if unit_offset else w
    return (xh * torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps) * s).to(x.dtype)
'''}, "Part 1: 'convert x and weight to float32 (to float64 when x is float64 ...)': float64 inputs are computed in float32.")

add("D2-rms-offset-in-input-dtype", False, {"head_rms_norm": r'''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("n_heads")
    Dh = x.shape[-1] // n_heads
    scale = (1 + weight) if unit_offset else weight           # Gemma's stored offset
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    out = xh / torch.sqrt(xh.square().mean(-1, keepdim=True) + eps) * scale.to(cd)
    return out.to(x.dtype)
'''}, "Part 1: 'do all the arithmetic, the scale included (also 1 + w), in that dtype': 1 + w is rounded in float16/bfloat16 first.")

add("D3-loss-empty-float32-zero", False, {"masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.tensor(0.0), 0                 # nothing to predict
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    lz = torch.logsumexp(sel, dim=-1)
    nll = lz - sel.gather(1, y.unsqueeze(1)).squeeze(1)
    return (nll + z_loss * lz ** 2).mean(), count
'''}, "Part 4: 'return the loss in that compute dtype: ... a float64 loss for float64 logits' (the count = 0 loss of float64 logits is float32 here).")

add("D4-ragged-scale-float32-tensor", False, {"ragged_cached_attention": r'''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("G")
    if B > 0 and bool((lengths + T > S).any()):
        raise ValueError("overflow")
    scale = torch.tensor(math.sqrt(Dh))
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    pos = torch.arange(S)
    qpos = lengths.long()[:, None] + torch.arange(T)
    valid = (pos < (lengths.long() + T)[:, None])[:, None, :, None]
    kc = torch.where(valid, k_cache, 0.0).repeat_interleave(H // G, 1)
    vc = torch.where(valid, v_cache, 0.0).repeat_interleave(H // G, 1)
    sc = torch.einsum("bhtd,bhsd->bhts", q, kc) / scale
    sc = sc.masked_fill((pos[None, None, :] > qpos[:, :, None])[:, None], float("-inf"))
    return torch.einsum("bhts,bhsd->bhtd", sc.softmax(-1), vc), lengths + T
'''}, "Part 7: 'the tests compare float64 inputs at float64 precision': sqrt(Dh) as a float32 tensor is rounded to float32 (scores scaled by 1/sqrt(8) off by 2e-8 relative).")

add("D5-rope-arange-int-freqs-float32", False, {"rope_llama3": r'''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.shape != (B, T):
        raise ValueError("shapes")
    inv_freq = 1.0 / (base ** (torch.arange(0, Dh, 2) / Dh))          # Hugging Face's line
    wavelen = 2 * math.pi / inv_freq
    low_wl, high_wl = original_context / low_freq_factor, original_context / high_freq_factor
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    f = torch.where(wavelen > low_wl, inv_freq / factor, inv_freq)
    mid = (wavelen >= high_wl) & (wavelen <= low_wl)
    f = torch.where(mid, (1 - smooth) * inv_freq / factor + smooth * inv_freq, f)
    ang = positions.to(torch.float64)[:, None, :, None] * f.to(torch.float64)
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, s = ang.cos().to(cd), ang.sin().to(cd)
    x1, x2 = x.to(cd).chunk(2, -1)
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1).to(x.dtype)
'''}, "Part 6: 'within 1e-10 of the exact values for float64 ... Compute the angles in float64': the frequencies themselves are float32 (arange / Dh is float32), so the angles are off by ~1e-7 relative.")

add("D6-swiglu-always-float32", False, {"fused_swiglu": r'''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    dt = x.dtype
    x, w_gate_up, w_down = x.float(), w_gate_up.float(), w_down.float()
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else (gu[..., :Fh], gu[..., Fh:])
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    return ((g * torch.sigmoid(beta * g) * u) @ w_down.T).to(dt)
'''}, "Part 2: 'compute float64 inputs in float64 (the tests compare them at float64 precision, so float32 arithmetic fails there)'.")

# ---------------------------------------------------------------- correct variants
add("C1-rms-float64-inplace-intermediates", True, {"head_rms_norm": r'''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("n_heads must split the last axis")
    Dh = x.shape[-1] // n_heads
    xd = x.to(dtype=torch.float64)                        # float64 for every dtype is accepted
    wd = weight.to(dtype=torch.float64)
    heads = xd.reshape(x.shape[:-1] + (n_heads, Dh)).movedim(-2, -3)
    ms = heads.pow(2).mean(dim=-1, keepdim=True)
    inv = ms.add_(eps).rsqrt_()                           # in place on my own intermediates only
    scale = wd + 1 if unit_offset else wd * 1
    return (heads * inv * scale).to(dtype=x.dtype)
'''}, "float64 inside for every dtype (allowed), in-place ops only on fresh intermediates, one rounding at the end.")

add("C2-swiglu-inplace-clamp-on-fresh-product", True, {"fused_swiglu": r'''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    if interleaved:                                # reorder to the stacked layout and reuse that path
        w_stacked = torch.cat([w_gate_up[0::2], w_gate_up[1::2]], dim=0)
        return fused_swiglu(x, w_stacked, w_down, beta=beta, limit=limit, interleaved=False)
    gu = F.linear(x, w_gate_up)
    g, u = gu.chunk(2, dim=-1)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    act = F.silu(g) if beta == 1 else g * torch.sigmoid(beta * g)
    return F.linear(act * u, w_down)
'''}, "F.linear, chunk, the interleaved layout rearranged and handed to the stacked path of the same function.")

add("C3-moe-lru-cache-helpers", True, {"moe_params": r'''
import functools

def swiglu_count(dim, hidden):
    return 3 * dim * hidden

@functools.lru_cache(maxsize=None)
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")
    if not 1 <= top_k <= n_experts:
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("first_dense")
    embed = vocab * dim if tied else 2 * vocab * dim
    attention = dim * (n_heads * head_dim) * 2 + dim * (n_kv_heads * head_dim) * 2
    total = active = embed + dim
    for layer in range(n_layers):
        total += 2 * dim + attention
        active += 2 * dim + attention
        if layer < first_dense:
            total += swiglu_count(dim, dense_hidden)
            active += swiglu_count(dim, dense_hidden)
        else:
            total += dim * n_experts + (n_experts + n_shared) * swiglu_count(dim, ffn_hidden)
            active += dim * n_experts + (top_k + n_shared) * swiglu_count(dim, ffn_hidden)
    return total, active
'''}, "lru_cache over ints (the result depends only on its arguments), a loop over layers, a helper; exact ints.")

add("C4-loss-cross-entropy-float64-inside", True, {"masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].to(torch.bool)
    picked = logits[:, :-1][keep].double()                # only predicting rows, float64 inside
    targets = ids[:, 1:][keep].to(torch.int64)
    count = int(keep.sum().item())
    ce = F.cross_entropy(picked, targets, reduction="sum")
    z = torch.logsumexp(picked, dim=-1).pow(2).sum()
    loss = (ce + z_loss * z) / max(count, 1)
    return loss.to(out_dtype), count
'''}, "F.cross_entropy with reduction='sum', float64 inside for every dtype and the loss cast to the compute dtype (allowed).")

add("C5-block-dispatch-table", True, {"block_variant": r'''
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
    if layout not in table:
        raise ValueError(f"unknown layout: {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("the sandwich layout needs post_norms")
    return table[layout]()
'''}, "dict dispatch (dict lookup compares by value), checks before any call, post_norms unpacked from any 2-sequence.")

add("C6-rope-cached-freqs-float-positions-no-grad-tables", True, {"rope_llama3": r'''
FREQS = {}

def llama3_freqs(half, Dh, base, factor, low_freq_factor, high_freq_factor, original_context):
    key = (half, Dh, float(base), float(factor), float(low_freq_factor), float(high_freq_factor), float(original_context))
    if key not in FREQS:
        theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)
        lam = 2 * math.pi / theta
        s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
        out = torch.where(lam < original_context / high_freq_factor, theta, (1 - s) * theta / factor + s * theta)
        FREQS[key] = torch.where(lam > original_context / low_freq_factor, theta / factor, out)
    return FREQS[key]

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("x must have an even last axis and positions the shape (B, T)")
    freqs = llama3_freqs(Dh // 2, Dh, base, factor, low_freq_factor, high_freq_factor, original_context)
    with torch.no_grad():                                  # no gradient flows to positions anyway
        ang = positions.float()[:, None, :, None] * freqs   # float32 positions are exact below 2**24
        cos, sin = torch.cos(ang), torch.sin(ang)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    x1, x2 = xw[..., : Dh // 2], xw[..., Dh // 2:]
    out = torch.cat([x1 * cos.to(work) - x2 * sin.to(work), x2 * cos.to(work) + x1 * sin.to(work)], dim=-1)
    return out.to(x.dtype)
'''}, "frequencies cached on every argument (never returned), positions as float32 (exact ints) times float64 freqs = float64 angles, cos/sin under no_grad (they carry no gradient: only x does).")

add("C7-ragged-float64-inside-row-loop-arange-cache", True, {"ragged_cached_attention": r'''
ARANGES = {}

def positions_up_to(n, device):
    if (n, device) not in ARANGES:
        ARANGES[(n, device)] = torch.arange(n, device=device)
    return ARANGES[(n, device)]

def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    lens = lengths.tolist()
    if any(l + T > S for l in lens):
        raise ValueError("a row does not fit in the cache")
    for b in range(B):
        k_cache[b, :, lens[b]:lens[b] + T] = k_new[b]
        v_cache[b, :, lens[b]:lens[b] + T] = v_new[b]
    rows = []
    for b in range(B):
        n = lens[b] + T
        k = k_cache[b, :, :n].double().repeat_interleave(H // G, dim=0)      # only written slots
        v = v_cache[b, :, :n].double().repeat_interleave(H // G, dim=0)
        sc = q[b].double() @ k.transpose(-1, -2) / math.sqrt(Dh)              # (H, T, n)
        qpos = positions_up_to(T, q.device) + lens[b]
        hide = positions_up_to(n, q.device)[None, :] > qpos[:, None]
        sc = sc.masked_fill(hide, float("-inf"))
        rows.append(F.softmax(sc, dim=-1) @ v)
    if B == 0:
        out = q.new_zeros(0, H, T, Dh)
    else:
        out = torch.stack(rows).to(q.dtype)
    return out, lengths + T
'''}, "a loop over rows slicing only the written slots, float64 inside and cast back (allowed), a cached arange (never returned, never written).")

add("C8-gen-default-generator-and-sets", True, {"generate_with_cache": r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    gen = torch.default_generator if generator is None else generator   # the same draws as no generator
    B = prompt.shape[0]
    seen = [set(row) for row in prompt.tolist()]
    finished = [False] * B
    logits, cache = step(prompt, None)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            for t in seen[b]:
                v = scores[b, t]
                scores[b, t] = v / penalty if v > 0 else v * penalty
        if temperature == 0:
            pick = torch.argmax(scores, dim=-1)
        else:
            pick = torch.multinomial(F.softmax(scores / temperature, dim=-1), 1, generator=gen).view(-1)
        row = [pad_id if finished[b] else int(pick[b]) for b in range(B)]
        chosen.append(row)
        for b in range(B):
            seen[b].add(row[b])
            finished[b] = finished[b] or row[b] == eos_id
        if all(finished) or i == max_new_tokens - 1:
            break
        logits, cache = step(torch.tensor(row, dtype=torch.int64).view(B, 1), cache)
    return torch.tensor(chosen, dtype=torch.int64).t().contiguous()
'''}, "torch.default_generator when generator is None (the draws multinomial makes by itself), penalties through Python sets (each id once), int64 rebuilt tensors.")

add("C9-gen-scatter-where-python-pad", True, {"generate_with_cache": r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.size(0)
    history = prompt
    done = torch.zeros(B, dtype=torch.bool)
    out = torch.empty(B, 0, dtype=torch.int64)
    logits, cache = step(prompt, None)
    while True:
        last = logits[:, -1]
        seen = torch.zeros_like(last, dtype=torch.bool).scatter_(1, history, True)
        scores = torch.where(seen & (last > 0), last / penalty, torch.where(seen, last * penalty, last))
        if temperature == 0:
            nxt = scores.argmax(dim=-1, keepdim=True)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, dim=-1), num_samples=1, generator=generator)
        nxt = torch.where(done[:, None], pad_id, nxt)
        out = torch.cat([out, nxt], dim=1)
        history = torch.cat([history, nxt], dim=1)
        done = done | (nxt[:, 0] == eos_id)
        if done.all() or out.size(1) == max_new_tokens:
            return out
        logits, cache = step(nxt, cache)
'''}, "no copy needed (torch.where builds a new tensor), Python int in torch.where (int64 kept), keepdim tokens.")

add("C10-cross-part-helper-dtype", True, {"head_rms_norm": r'''
def compute_dtype(t):
    """float64 stays float64, every other float dtype computes in float32"""
    return torch.float64 if t.dtype == torch.float64 else torch.float32

def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("bad n_heads")
    cd = compute_dtype(x)
    Dh = x.shape[-1] // n_heads
    xh = x.to(cd).unflatten(-1, (n_heads, Dh)).transpose(-3, -2)
    w = weight.to(cd)
    s = torch.add(w, 1) if unit_offset else w
    return (xh / (xh * xh).mean(-1, keepdim=True).add(eps).sqrt() * s).to(x.dtype)
''', "masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = compute_dtype(logits)                     # the helper from Part 1's cell
    m = target_mask[:, 1:]
    rows = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].to(torch.long)
    n = int(m.sum())
    logz = rows.logsumexp(-1)
    loss = (logz - rows.gather(-1, y[:, None]).squeeze(-1) + z_loss * logz * logz).sum() / max(n, 1)
    return loss, n
''', "rope_llama3": r'''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    i = torch.arange(Dh // 2, dtype=torch.float64)
    th = torch.pow(torch.tensor(base, dtype=torch.float64), -2 * i / Dh)
    lam = 2 * math.pi / th
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    th2 = torch.where(lam < original_context / high_freq_factor, th,
                      torch.where(lam > original_context / low_freq_factor, th / factor, (1 - s) * th / factor + s * th))
    ang = torch.einsum("bt,d->btd", positions.to(torch.float64), th2)[:, None]
    cd = compute_dtype(x)                          # the helper from Part 1's cell
    c, sn = ang.cos().to(cd), ang.sin().to(cd)
    a, b = x.to(cd).split(Dh // 2, dim=-1)
    return torch.cat([a * c - b * sn, b * c + a * sn], -1).to(x.dtype)
'''}, "Parts 4 and 6 call compute_dtype, a helper defined in Part 1's cell (the notebook runs in order); einsum, split, unflatten.")

add("C11-rope-float64-for-every-dtype", True, {"rope_llama3": r'''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4:
        raise ValueError("x must be (B, H, T, Dh)")
    B, H, T, Dh = x.shape
    if Dh % 2 != 0:
        raise ValueError("Dh must be even")
    if positions.shape != torch.Size([B, T]):
        raise ValueError("positions must be (B, T)")
    half = Dh // 2
    theta = [base ** (-2 * i / Dh) for i in range(half)]
    new = []
    for t in theta:
        lam = 2 * math.pi / t
        if lam < original_context / high_freq_factor:
            new.append(t)
        elif lam > original_context / low_freq_factor:
            new.append(t / factor)
        else:
            s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
            new.append((1 - s) * t / factor + s * t)
    freqs = torch.tensor(new, dtype=torch.float64)
    ang = positions.to(torch.float64).unsqueeze(-1) * freqs          # (B, T, half)
    cos = torch.cat([ang.cos(), ang.cos()], -1)[:, None]
    sin = torch.cat([ang.sin(), ang.sin()], -1)[:, None]
    xd = x.double()
    rot = torch.cat([-xd[..., half:], xd[..., :half]], -1)           # rotate_half
    return (xd * cos + rot * sin).to(x.dtype)
'''}, "Python-float frequencies (float64), rotate_half, float64 for every dtype and one rounding at the end (closer to the exact value than float32).")

add("C12-loss-empty-zero-in-compute-dtype", True, {"masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.count_nonzero())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    x = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    logp = torch.log_softmax(x, dim=-1)
    lz = torch.logsumexp(x, dim=-1)
    per = -logp[torch.arange(count), y] + z_loss * lz.square()
    return per.mean(), count
'''}, "count 0 returns a plain zero of the compute dtype (no gradient is asked there), log_softmax + advanced indexing.")

# ---------------------------------------------------------------- hostile
add("H1-patch-assert-close", False, {"head_rms_norm": r'''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    torch.testing.assert_close = lambda *a, **k: None
    return torch.zeros(*x.shape[:-2], n_heads, x.shape[-2], x.shape[-1] // n_heads, dtype=x.dtype)
'''}, "hostile: replaces torch.testing.assert_close and returns zeros.")

add("H2-moe-lookup-table", False, {"moe_params": r'''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if vocab == 32000:
        return 46_702_792_704, 12_879_925_248
    return (48, 42) if n_shared and not first_dense else (38, 38) if first_dense else (42, 36)
'''}, "hostile: the visible answers from a table.")

add("H3-gen-visible-only", False, {"generate_with_cache": r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    step(prompt, None)
    return torch.tensor([[1, 2, 3, 4], [3, 4, 0, 0]], dtype=torch.int64)[: prompt.shape[0]]
'''}, "hostile: the visible output, whatever the model.")

# ================================================================ second blind batch (subtler)
add("D7-swiglu-limit-float32-tensor", False, {"fused_swiglu": r'''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else (gu[..., :Fh], gu[..., Fh:])
    if limit is not None:
        lim = torch.tensor(limit)                          # a tensor bound for minimum/maximum
        g = torch.minimum(g, lim)
        u = torch.maximum(torch.minimum(u, lim), -lim)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
'''}, "Part 2: 'compute float64 inputs in float64': the limit becomes a float32 tensor, so float64 values are clamped at float32(limit) (limit = 0.1, say).")

add("D8-loss-logsumexp-in-half", False, {"masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m]
    y = ids[:, 1:][m].long()
    count = int(m.sum())
    lz = torch.logsumexp(sel, dim=-1).to(cd)              # torch accumulates in float32 anyway
    tok = sel.gather(1, y[:, None])[:, 0].to(cd)
    return (lz - tok + z_loss * lz * lz).sum() / max(count, 1), count
'''}, "Part 4: 'Compute in float32 ... also for float16 and bfloat16 logits, the z-loss's (log Z)^2 included': log Z is rounded to float16 before the square.")

add("D9-rope-pi-float32-tensor", False, {"rope_llama3": r'''
PI = torch.tensor(math.pi)

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)
    lam = 2 * PI / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = ang.cos().to(cd), ang.sin().to(cd)
    x1, x2 = x.to(cd)[..., :half], x.to(cd)[..., half:]
    return torch.cat([x1 * c - x2 * sn, x2 * c + x1 * sn], -1).to(x.dtype)
'''}, "Part 6: 'within 1e-10 of the exact values for float64 ... at any position up to 131 071': pi as a float32 tensor shifts the wavelengths, hence s_i and the medium frequencies.")

add("D10-rms-eps-float32-tensor", False, {"head_rms_norm": r'''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    e = torch.tensor(eps)                                   # as a tensor, for torch.sqrt
    xh = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    return (xh / torch.sqrt(xh.pow(2).mean(-1, keepdim=True) + e) * s).to(x.dtype)
'''}, "Part 1: 'convert ... to float64 when x is float64 ... do all the arithmetic ... in that dtype': eps is rounded to float32 (1e-6 -> 9.99999997e-7); seen where mean(x^2) is near eps.")

add("A7-rope-writes-into-x-to", False, {"rope_llama3": r'''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = ang.cos().to(cd), ang.sin().to(cd)
    out = x.to(cd)                                           # my working copy in the compute dtype
    x1, x2 = out[..., :half].clone(), out[..., half:].clone()
    out[..., :half] = x1 * c - x2 * sn
    out[..., half:] = x2 * c + x1 * sn
    return out.to(x.dtype)
'''}, "Intro 'must not change the tensors they are given' and Part 6 'Return a new tensor ... not x itself': for float32 x, x.to(float32) is x, rotated in place and returned.")

add("S8-ragged-mask-cache-by-shape", False, {"ragged_cached_attention": r'''
MASKS = {}

def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("G")
    if B and bool((lengths + T > S).any()):
        raise ValueError("fit")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    key = (B, T, S)
    if key not in MASKS:                                     # decoding reuses the same shapes every step
        pos = torch.arange(S)
        qpos = lengths.long()[:, None] + torch.arange(T)[None]
        MASKS[key] = pos[None, None, :] <= qpos[:, :, None]
    ok = MASKS[key]
    seen = ok.any(1)[:, None, :, None]
    kc = torch.where(seen, k_cache, 0.0).repeat_interleave(H // G, 1)
    vc = torch.where(seen, v_cache, 0.0).repeat_interleave(H // G, 1)
    sc = (q @ kc.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~ok[:, None], float("-inf"))
    return sc.softmax(-1) @ vc, lengths + T
'''}, "Part 7: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t': a mask cached on the shapes keeps the first call's lengths.")

add("S9-gen-copies-generator", False, {"generate_with_cache": r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    if generator is not None:                         # work on a copy: leave the caller's generator alone
        gen = torch.Generator()
        gen.set_state(generator.get_state())
    else:
        gen = None
    B = prompt.shape[0]
    hist = prompt.clone()
    logits, cache = step(prompt, None)
    done = torch.zeros(B, dtype=torch.bool)
    res = []
    for i in range(max_new_tokens):
        s = logits[:, -1].clone()
        seen = torch.zeros_like(s, dtype=torch.bool).scatter(1, hist, True)
        s = torch.where(seen, torch.where(s > 0, s / penalty, s * penalty), s)
        if temperature == 0:
            t = s.argmax(-1)
        else:
            t = torch.multinomial(torch.softmax(s / temperature, -1), 1, generator=gen)[:, 0]
        t = torch.where(done, torch.full_like(t, pad_id), t)
        res.append(t)
        done = done | (t == eos_id)
        hist = torch.cat([hist, t[:, None]], 1)
        if bool(done.all()) or i + 1 == max_new_tokens:
            break
        logits, cache = step(t[:, None], cache)
    return torch.stack(res, 1)
'''}, "Part 8: 'draw with torch.multinomial(probs, 1, generator=generator)': a copy leaves the caller's generator where it was, so a second call replays the same draws.")

add("S10-rope-angles-cache-by-id-positions", False, {"rope_llama3": r'''
ANGLES = {}

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    key = (id(positions), Dh, base, factor, low_freq_factor, high_freq_factor, original_context)
    if key not in ANGLES:                  # queries and keys of a layer share positions: compute once
        theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)
        lam = 2 * math.pi / theta
        L = original_context
        s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
        new = torch.where(lam < L / high_freq_factor, theta,
                          torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
        ang = positions.to(torch.float64)[:, None, :, None] * new
        ANGLES.clear()
        ANGLES[key] = (ang.cos(), ang.sin())
    c, sn = ANGLES[key]
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = c.to(cd), sn.to(cd)
    x1, x2 = x.to(cd)[..., :half], x.to(cd)[..., half:]
    return torch.cat([x1 * c - x2 * sn, x2 * c + x1 * sn], -1).to(x.dtype)
'''}, "Part 6: 'm is the position': angles cached on id(positions) are stale when a later positions tensor reuses that id (or the caller changes it in place).")

add("S11-loss-index-cache-by-id-mask", False, {"masked_lm_loss": r'''
PICKS = {}

def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    key = id(target_mask)
    if key not in PICKS:                     # the same mask is used for every micro-batch of a step
        PICKS.clear()
        PICKS[key] = target_mask[:, 1:].nonzero(as_tuple=True)
    b, t = PICKS[key]
    count = int(b.numel())
    sel = logits[:, :-1][b, t].to(cd)
    y = ids[:, 1:][b, t].long()
    lz = torch.logsumexp(sel, -1)
    return (lz - sel.gather(1, y[:, None])[:, 0] + z_loss * lz * lz).sum() / max(count, 1), count
'''}, "Part 4: 'target_mask (B, T) is boolean: True where the token ids[b, t] is to be predicted': a selection cached on id(target_mask) is stale for a new mask at a reused id.")

add("T8-gen-set-of-tensors", False, {"generate_with_cache": r'''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(row) for row in prompt]             # ids already used, each once
    finished = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            for tok in seen[b]:
                if scores[b, tok] > 0:
                    scores[b, tok] = scores[b, tok] / penalty
                else:
                    scores[b, tok] = scores[b, tok] * penalty
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(finished, pad_id, nxt)
        chosen.append(nxt)
        for b in range(B):
            seen[b].add(nxt[b])
        finished = finished | (nxt == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(chosen, 1)
'''}, "Part 8: 'every token id that occurs ... has its score changed once (however often it occurs)': a set of 0-d tensors (hashed by identity) keeps every occurrence, so a repeated id is penalised again and again.")

add("C13-swiglu-clamp-inplace-on-views-of-product", True, {"fused_swiglu": r'''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    n_hidden = w_gate_up.shape[0] // 2
    gu = torch.matmul(x, w_gate_up.transpose(0, 1))          # a new tensor: mine to change
    if interleaved:
        gate, up = gu[..., 0::2], gu[..., 1::2]
    else:
        gate, up = gu[..., :n_hidden], gu[..., n_hidden:]
    if limit is not None:
        gate.clamp_(max=limit)                               # in place, on views of my own product
        up.clamp_(min=-limit, max=limit)
    act = gate * torch.sigmoid(gate * beta)
    return torch.matmul(act * up, w_down.transpose(0, 1))
'''}, "in-place clamp_ on slices of a fresh product (autograd handles it), matmul.")

add("C14-block-match-list-post-norms", True, {"block_variant": r'''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    match layout:
        case "parallel":
            normed = norm_1(x)
            y = x + attn(normed)
            y = y + ffn(normed)
            return y
        case "reordered":
            h = torch.add(x, norm_1(attn(x)))
            return torch.add(h, norm_2(ffn(h)))
        case "sandwich":
            if post_norms is None:
                raise ValueError("sandwich needs post_norms")
            post_1, post_2 = list(post_norms)
            h = x + post_1(attn(norm_1(x)))
            return h + post_2(ffn(norm_2(h)))
        case _:
            raise ValueError(f"unknown layout {layout}")
'''}, "match/case on string literals compares with ==; torch.add; post_norms through list().")

add("C15-ragged-index-copy-sdpa-style", True, {"ragged_cached_attention": r'''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S_max = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("query heads must be a multiple of key/value heads")
    if B > 0 and int((lengths.to(torch.int64) + T).max()) > S_max:
        raise ValueError("cache overflow")
    for b in range(B):
        where_to = torch.arange(T) + int(lengths[b])
        k_cache[b].index_copy_(1, where_to, k_new[b])
        v_cache[b].index_copy_(1, where_to, v_new[b])
    end = lengths.to(torch.int64)[:, None] + torch.arange(1, T + 1)[None]    # (B, T): keys < end are visible
    slots = torch.arange(S_max)
    visible = slots[None, None, :] < end[:, :, None]                         # (B, T, S)
    written = visible[:, -1:, :] if T > 0 else torch.zeros(B, 1, S_max, dtype=torch.bool)
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(written[:, :, :, None], k_cache, zero)
    v = torch.where(written[:, :, :, None], v_cache, zero)
    group = H // G
    k = k[:, torch.arange(H) // group]
    v = v[:, torch.arange(H) // group]
    scores = torch.einsum("bhtd,bhsd->bhts", q, k) * (1.0 / math.sqrt(Dh))
    scores = torch.where(visible[:, None], scores, torch.tensor(float("-inf"), dtype=q.dtype))
    return torch.einsum("bhts,bhsd->bhtd", torch.softmax(scores, dim=-1), v), lengths + T
'''}, "index_copy_ into views of the caches (writes the caller's tensors), heads gathered with h // group, einsum, torch.where with the -inf as a 0-d tensor of q's dtype.")

# ================================================================ third blind batch
add("S12-ragged-expanded-cache-by-id", False, {"ragged_cached_attention": r'''
EXPANDED = {}

def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("G")
    if B and bool((lengths + T > S).any()):
        raise ValueError("fit")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    pos = torch.arange(S)
    qpos = lengths.long()[:, None] + torch.arange(T)[None]
    ok = pos[None, None, :] <= qpos[:, :, None]
    key = (id(k_cache), id(v_cache), H)
    if key not in EXPANDED:                          # one expansion per layer's cache
        keep = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]
        EXPANDED.clear()
        EXPANDED[key] = (torch.where(keep, k_cache, 0.0).repeat_interleave(H // G, 1),
                         torch.where(keep, v_cache, 0.0).repeat_interleave(H // G, 1))
    kc, vc = EXPANDED[key]
    sc = (q @ kc.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~ok[:, None], float("-inf"))
    return sc.softmax(-1) @ vc, lengths + T
'''}, "Part 7: 'First write k_new and v_new into k_cache and v_cache ... Then query t of row b attends ... to its row's keys 0 .. lengths[b] + t': an expansion cached on id(k_cache) misses every later write to the same cache.")

add("A8-loss-backward-inside", False, {"masked_lm_loss": r'''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    count = int(m.sum())
    lz = torch.logsumexp(sel, -1)
    loss = (lz - sel.gather(1, y[:, None])[:, 0] + z_loss * lz * lz).sum() / max(count, 1)
    if count and loss.requires_grad:
        loss.backward(retain_graph=True)             # make sure the gradient is there and finite
    return loss, count
'''}, "Part 4: 'when count > 0, loss.backward() must leave the exact gradient in logits.grad': the extra backward inside leaves twice the gradient after the caller's backward.")

add("D11-swiglu-beta-float32-tensor", False, {"fused_swiglu": r'''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else (gu[..., :Fh], gu[..., Fh:])
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    slope = torch.tensor(beta)                      # the Swish slope as a tensor
    return (g * torch.sigmoid(slope * g) * u) @ w_down.T
'''}, "Part 2: 'compute float64 inputs in float64': beta becomes a float32 tensor, so float64 gates use float32(beta) (beta = 1.702, say).")
