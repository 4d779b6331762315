BASE = {}
BASE["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(cd)
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    return (xs.to(cd) / rms * s).to(x.dtype)
'''
BASE["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc, wg, wd = x.to(cd), w_gate_up.to(cd), w_down.to(cd)
    if interleaved:
        wgate, wup = wg[0::2], wg[1::2]
    else:
        wgate, wup = wg[:Fh], wg[Fh:]
    g = xc @ wgate.T
    u = xc @ wup.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return (h @ wd.T).to(x.dtype)
'''
BASE["moe_params"] = '''
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
    expert = 3 * dim * ffn_hidden
    base = emb + dim + n_layers * (2 * dim + attn) + first_dense * 3 * dim * dense_hidden
    n_moe = n_layers - first_dense
    total = base + n_moe * (dim * n_experts + (n_experts + n_shared) * expert)
    active = base + n_moe * (dim * n_experts + (top_k + n_shared) * expert)
    return int(total), int(active)
'''
BASE["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    logz = torch.logsumexp(sel, dim=-1)
    nll = logz - sel.gather(-1, y[:, None]).squeeze(-1)
    loss = (nll + z_loss * logz ** 2).mean()
    return loss, count
'''
BASE["block_variant"] = '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))
    raise ValueError("layout")
'''
BASE["rope_llama3"] = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shape")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''
BASE["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("heads")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    new_lengths = lengths + T
    pos = torch.arange(S)
    valid = pos[None, :] < new_lengths.long()[:, None]                     # (B, S)
    kc = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    vc = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    rep = H // G
    qg = q.reshape(B, G, rep * T, Dh)
    scores = qg @ kc.transpose(-1, -2) / math.sqrt(Dh)                     # (B, G, rep*T, S)
    scores = scores.reshape(B, G, rep, T, S)
    qpos = lengths.long()[:, None] + torch.arange(T)                       # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                       # (B, T, S)
    scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))
    w = torch.softmax(scores, dim=-1).reshape(B, G, rep * T, S)
    out = (w @ vc).reshape(B, H, T, Dh)
    return out, new_lengths
'''
BASE["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for t in range(max_new_tokens):
        scores = logits[:, -1].clone()
        if penalty != 1:
            seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or t == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''
