# Round 32 blind submissions, chapter 09 (Python-containers, quantity-confuser, integer-range, assumption, commuter students).
# BASE: the helper's own correct answers, which the wrong ones below edit.
BASE = {
"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    shape = (*x.shape[:-1], n_heads, Dh)
    xs = x.to(cd).reshape(shape)
    ms = x.to(torch.float64).reshape(shape).pow(2).mean(-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(cd)
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    out = xs / rms * s
    return out.transpose(-2, -3).to(x.dtype)
''',
"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xc, wgu, wd = x.to(cd), w_gate_up.to(cd), w_down.to(cd)
    h = xc @ wgu.T
    F_ = wgu.shape[0] // 2
    if interleaved:
        g, u = h[..., 0::2], h[..., 1::2]
    else:
        g, u = h[..., :F_], h[..., F_:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    a = g * torch.sigmoid(beta * g) * u
    return (a @ wd.T).to(x.dtype)
''',
"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    per_block = attn + 2 * dim
    expert = 3 * dim * ffn_hidden
    dense = 3 * dim * dense_hidden
    moe_blocks = n_layers - first_dense
    common = emb + dim + n_layers * per_block + first_dense * dense + moe_blocks * (dim * n_experts + n_shared * expert)
    total = common + moe_blocks * n_experts * expert
    active = common + moe_blocks * top_k * expert
    return int(total), int(active)
''',
"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None]).squeeze(-1)
    tok = nll + z_loss * lse ** 2
    return tok.mean(), count
''',
"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))
    raise ValueError(f"unknown layout {layout!r}")
''',
"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64), -2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    lam_high = L / high_freq_factor
    lam_low = L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
''',
"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G < 1 or H % G != 0:
        raise ValueError("H not a multiple of G")
    L = lengths.tolist()
    if any(l + T > S for l in L):
        raise ValueError("row does not fit")
    for b in range(B):
        k_cache[b, :, L[b]:L[b] + T] = k_new[b]
        v_cache[b, :, L[b]:L[b] + T] = v_new[b]
    lens = lengths.to(torch.int64)
    pos = torch.arange(S)
    valid = pos[None, :] < (lens + T)[:, None]                      # (B, S)
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(valid[:, None, :, None], k_cache, zero)
    v = torch.where(valid[:, None, :, None], v_cache, zero)
    rep = H // G
    k = k.repeat_interleave(rep, dim=1)
    v = v.repeat_interleave(rep, dim=1)
    qpos = lens[:, None] + torch.arange(T)[None, :]                  # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                 # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
''',
"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    seen = [set(row) for row in prompt.tolist()]
    finished = [False] * B
    chosen = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        V = scores.shape[-1]
        hit = torch.zeros(B, V, dtype=torch.bool)
        for b in range(B):
            ids = [i for i in seen[b] if 0 <= i < V]
            if ids:
                hit[b, ids] = True
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(hit, pen, scores)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        tok = tok.clone()
        for b in range(B):
            if finished[b]:
                tok[b] = pad_id
        chosen.append(tok)
        for b in range(B):
            t = int(tok[b])
            seen[b].add(t)
            if t == eos_id:
                finished[b] = True
        if all(finished) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
''',
}

B = BASE

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

S = []
# ---------------- wrong: Python-containers student ----------------
S.append(sub("w-containers-moe-range-excludes-top", False, {"moe_params": B["moe_params"].replace(
    "if not (1 <= top_k <= n_experts):", "if top_k not in range(1, n_experts):")},
    "range(1, n_experts) leaves out n_experts: 'Raise a ValueError unless ... 1 <= top_k <= n_experts' (top_k = n_experts, every expert active, is valid)."))
S.append(sub("w-containers-moe-block-list", False, {"moe_params": B["moe_params"].replace(
    """    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
""", "").replace(
    "moe_blocks = n_layers - first_dense",
    "kinds = [\"dense\"] * first_dense + [\"moe\"] * (n_layers - first_dense)\n    moe_blocks = kinds.count(\"moe\")\n    first_dense = kinds.count(\"dense\")")},
    "a list of block kinds (a negative repeat gives an empty list) raises nothing for first_dense > n_layers or < 0: 'Raise a ValueError unless ... 0 <= first_dense <= n_layers'."))
S.append(sub("w-containers-generate-aliased-histories", False, {"generate_with_cache": B["generate_with_cache"].replace(
    "seen = [set(row) for row in prompt.tolist()]",
    "seen = [set()] * B\n    for row in prompt.tolist():\n        seen[0].update(row)")},
    "[set()] * B makes one shared history for all rows: 'in each row, every token id that occurs in that row's prompt or among its tokens generated so far'."))
S.append(sub("w-containers-generate-penalty-per-occurrence", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = [list(row) for row in prompt.tolist()]
    finished = [False] * B
    chosen = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            for i in history[b]:                      # every earlier token is penalised
                s = scores[b, i]
                scores[b, i] = s / penalty if s > 0 else s * penalty
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        tok = tok.clone()
        for b in range(B):
            if finished[b]:
                tok[b] = pad_id
        chosen.append(tok)
        for b in range(B):
            t = int(tok[b])
            history[b].append(t)
            if t == eos_id:
                finished[b] = True
        if all(finished) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''}, "a list history penalises an id once per occurrence: 'has its score changed **once** (however often it occurs)'."))
S.append(sub("w-containers-block-eager-dict", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    n = norm_1(x)
    h_re = x + norm_1(attn(x))
    results = {
        "parallel": x + attn(n) + ffn(n),
        "reordered": h_re + norm_2(ffn(h_re)),
    }
    if post_norms is not None:
        h_sw = x + post_norms[0](attn(n))
        results["sandwich"] = h_sw + post_norms[1](ffn(norm_2(h_sw)))
    if layout not in results:
        raise ValueError(f"unknown layout {layout!r}")
    return results[layout]
'''}, "a dict of every layout's result calls every function several times, and calls them before it raises: 'Call each function the layout uses exactly once ... and call none that it does not use', 'Check layout and post_norms before calling anything'."))
# ---------------- wrong: quantity-confuser ----------------
S.append(sub("w-quantity-rms-eps-outside-sqrt", False, {"head_rms_norm": B["head_rms_norm"].replace(
    "rms = torch.sqrt(ms + eps).to(cd)", "rms = (torch.sqrt(ms) + eps).to(cd)")},
    "eps added to the root mean square: 'with eps inside the square root' (visible: eps = 0)."))
S.append(sub("w-quantity-masked-lm-mask-of-predictor", False, {"masked_lm_loss": B["masked_lm_loss"].replace(
    "m = target_mask[:, 1:]", "m = target_mask[:, :-1]")},
    "takes the mask at the predicting position t - 1 in place of the predicted one: 'target_mask ... True where the token ids[b, t] is to be predicted' (visible: uniform logits)."))
S.append(sub("w-quantity-rope-frequency-vs-wavelength", False, {"rope_llama3": B["rope_llama3"].replace(
    "new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))",
    "new = torch.where(theta < lam_high, theta, torch.where(theta > lam_low, theta / factor, mid))")},
    "compares the frequency θ with the wavelength limits: 'θ_i when λ_i < λ_high ... θ_i / f when λ_i > λ_low' (visible: factor 1)."))
S.append(sub("w-quantity-rope-exponent-i-over-D", False, {"rope_llama3": B["rope_llama3"].replace(
    "-2 * i / Dh)", "-i / Dh)")},
    "θ_i = b^(-i/Dh) in place of 'θ_i = b^(-2i/Dh)' (visible: only pair 0 turns)."))
S.append(sub("w-quantity-ragged-full-is-error", False, {"ragged_cached_attention": B["ragged_cached_attention"].replace(
    "if any(l + T > S for l in L):", "if any(l + T >= S for l in L):")},
    "compares the last position with the size: 'lengths[b] + T > S_max ... (filling the cache exactly is fine)'."))
S.append(sub("w-quantity-generate-penalise-logprobs", False, {"generate_with_cache": B["generate_with_cache"].replace(
    "scores = logits[:, -1].clone()", "scores = torch.log_softmax(logits[:, -1], dim=-1)")},
    "penalises log-probabilities (all below 0, so always multiplied) in place of the scores: 'a score above 0 is divided by penalty, any other score is multiplied by it' (visible: penalty 1)."))
# ---------------- wrong: integer-range student ----------------
S.append(sub("w-intrange-moe-float-division", False, {"moe_params": B["moe_params"].replace(
    "emb = vocab * dim * (1 if tied else 2)", "emb = 2 * vocab * dim / (2 if tied else 1)").replace(
    "return int(total), int(active)", "return int(total), int(active)")},
    "a / makes the embedding count a float, so totals past 2**53 round: 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)'."))
S.append(sub("w-intrange-rms-square-in-float32", False, {"head_rms_norm": B["head_rms_norm"].replace(
    "ms = x.to(torch.float64).reshape(shape).pow(2).mean(-1, keepdim=True)",
    "ms = xs.pow(2).mean(-1, keepdim=True)")},
    "squares in float32: 'take the mean of the squares in float64, whatever the input dtype' (the square of 1e25 is infinite in float32)."))
S.append(sub("w-intrange-swiglu-half-arithmetic", False, {"fused_swiglu": B["fused_swiglu"].replace(
    "cd = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype", "cd = x.dtype")},
    "computes float16 in float16: 'for float16 inputs convert to float32 (or float64) inside ... the product ... of a gate and an up projection near 300 is already past 65504'."))
S.append(sub("w-intrange-ragged-half-scores", False, {"ragged_cached_attention": B["ragged_cached_attention"].replace(
    "scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)",
    "scores = (q.float() @ k.float().transpose(-1, -2) / math.sqrt(Dh)).to(q.dtype)")},
    "float32 scores (the model's usual precision) for float64 inputs: 'Compute in the dtype of q ... the tests compare float64 inputs at float64 precision, so converting them to float32 and back fails'."))
S.append(sub("w-intrange-generate-int16-buffer", False, {"generate_with_cache": B["generate_with_cache"].replace(
    "return torch.stack(chosen, dim=1)", "buf = torch.stack(chosen, dim=1).to(torch.int16)   # ids are small\n    return buf.to(torch.int64)")},
    "an int16 buffer wraps ids from 32768 on: 'V may be anything from 1 to tens of thousands'."))
# ---------------- wrong: assumption student ----------------
S.append(sub("w-assume-rope-rows-share-positions", False, {"rope_llama3": B["rope_llama3"].replace(
    "ang = positions.to(torch.float64)[:, None, :, None] * new",
    "ang = positions[0].to(torch.float64)[None, None, :, None] * new")},
    "uses row 0's positions for every row: 'row b holds the positions of sequence b (they differ from row to row, e.g. in a left-padded batch)' (visible: B = 1)."))
S.append(sub("w-assume-ragged-one-new-token", False, {"ragged_cached_attention": B["ragged_cached_attention"].replace(
    "allowed = pos[None, None, :] <= qpos[:, :, None]                 # (B, T, S)",
    "allowed = valid[:, None, :].expand(-1, T, -1)                    # one new token: all written keys")},
    "assumes T = 1 (decoding): every new token sees every other: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'."))
S.append(sub("w-assume-generate-prompt-length-one", False, {"generate_with_cache": B["generate_with_cache"].replace(
    "scores = logits[:, -1].clone()", "scores = logits[:, 0].clone()")},
    "reads the first position of the logits: 'the scores of the next token are its last position, logits[:, -1]' (visible prompt has P = 1)."))
S.append(sub("w-assume-masked-lm-count-positive", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None]).squeeze(-1)
    return (nll + z_loss * lse ** 2).mean(), count
'''}, "mean of no tokens is NaN: 'When count is 0 the loss is 0 (not NaN ...)'."))
S.append(sub("w-assume-swiglu-beta-one", False, {"fused_swiglu": B["fused_swiglu"].replace(
    "a = g * torch.sigmoid(beta * g) * u", "a = torch.nn.functional.silu(g) * u")},
    "SiLU whatever beta: 'g σ(βg) ... beta may be any real number' (visible uses the default beta = 1)."))
S.append(sub("w-assume-moe-dense-hidden-default", False, {"moe_params": B["moe_params"].replace(
    "dense = 3 * dim * dense_hidden", "dense = 3 * dim * (dense_hidden or ffn_hidden)")},
    "0 taken as 'use ffn_hidden': 'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")'."))
# ---------------- wrong: commuter ----------------
S.append(sub("w-commute-rms-cast-before-scale", False, {"head_rms_norm": B["head_rms_norm"].replace(
    "out = xs / rms * s\n    return out.transpose(-2, -3).to(x.dtype)",
    "out = (xs / rms).to(x.dtype) * s.to(x.dtype)\n    return out.transpose(-2, -3)")},
    "rounds to x's dtype before the scale (two roundings): 'do all the arithmetic, the scale included ... and convert the product to the dtype of x once, at the end'."))
S.append(sub("w-commute-swiglu-clamp-after-activation", False, {"fused_swiglu": B["fused_swiglu"].replace(
    '''    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    a = g * torch.sigmoid(beta * g) * u''',
    '''    act = g * torch.sigmoid(beta * g)
    if limit is not None:
        act = act.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    a = act * u''')},
    "clamps the activated gate g σ(βg) in place of g: 'replace g by min(g, limit)' before the Swish."))
S.append(sub("w-commute-rope-interpolation-sides", False, {"rope_llama3": B["rope_llama3"].replace(
    "mid = (1 - s) * theta / factor + s * theta", "mid = (1 - s) * theta + s * theta / factor")},
    "swaps the weights of the blend: '(1 - s_i) θ_i / f + s_i θ_i' (visible: factor 1)."))
S.append(sub("w-commute-masked-lm-mean-of-row-means", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    row_losses = []
    for b in range(logits.shape[0]):
        mb = m[b]
        if mb.any():
            sel = logits[b, :-1][mb].to(cd)
            y = ids[b, 1:][mb].long()
            lse = torch.logsumexp(sel, dim=-1)
            nll = lse - sel.gather(-1, y[:, None]).squeeze(-1)
            row_losses.append((nll + z_loss * lse ** 2).mean())
    return torch.stack(row_losses).mean(), count
'''}, "averages per-row means: 'the mean over those tokens, every token weighing the same however many a row has'."))
S.append(sub("w-commute-generate-history-before-pad", False, {"generate_with_cache": B["generate_with_cache"].replace(
    '''        tok = tok.clone()
        for b in range(B):
            if finished[b]:
                tok[b] = pad_id
        chosen.append(tok)
        for b in range(B):
            t = int(tok[b])
            seen[b].add(t)''',
    '''        tok = tok.clone()
        for b in range(B):
            seen[b].add(int(tok[b]))              # remember what was drawn
            if finished[b]:
                tok[b] = pad_id
        chosen.append(tok)
        for b in range(B):
            t = int(tok[b])''')},
    "adds the drawn token to the history before replacing it by pad_id: 'its penalty history grows by pad_id like any other token'."))
# ---------------- correct ----------------
S.append(sub("c-rms-norm-via-vector-norm", True, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1:
        raise ValueError("n_heads must be at least 1")
    D = x.shape[-1]
    if D % n_heads:
        raise ValueError("last axis does not split")
    Dh = D // n_heads
    work = torch.float64
    heads = x.to(work).reshape(*x.shape[:-1], n_heads, Dh).movedim(-2, -3)   # (..., H, T, Dh)
    ms = heads.square().sum(dim=-1, keepdim=True) / Dh
    scale = (1.0 + weight.to(work)) if unit_offset else weight.to(work)
    return (heads * torch.rsqrt(ms + eps) * scale).to(x.dtype)
'''}, "float64 for every dtype (allowed), sum/Dh for the mean, movedim."))
S.append(sub("c-swiglu-split-view", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    out_dtype = x.dtype
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    x, w_gate_up, w_down = x.to(work), w_gate_up.to(work), w_down.to(work)
    n_hidden = w_down.shape[1]
    if interleaved:
        pairs = w_gate_up.reshape(n_hidden, 2, -1)
        w_g, w_u = pairs[:, 0], pairs[:, 1]
    else:
        w_g, w_u = w_gate_up[:n_hidden], w_gate_up[n_hidden:]
    g = torch.nn.functional.linear(x, w_g)
    u = torch.nn.functional.linear(x, w_u)
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    hidden = g * torch.sigmoid(g * beta) * u
    return torch.nn.functional.linear(hidden, w_down).to(out_dtype)
'''}, "split weights first, F.linear, float32 for bfloat16 too."))
S.append(sub("c-moe-loop-per-block", True, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not n_kv_heads >= 1 or n_heads % n_kv_heads:
        raise ValueError("kv heads")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("top_k")
    if n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("shared / dense")
    swiglu = lambda width: 3 * dim * width
    total = active = vocab * dim * (1 if tied else 2) + dim
    for layer in range(n_layers):
        common = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
        if layer < first_dense:
            total += common + swiglu(dense_hidden)
            active += common + swiglu(dense_hidden)
        else:
            shared = dim * n_experts + n_shared * swiglu(ffn_hidden)
            total += common + shared + n_experts * swiglu(ffn_hidden)
            active += common + shared + top_k * swiglu(ffn_hidden)
    return total, active
'''}, "a Python loop over blocks, exact ints."))
S.append(sub("c-masked-lm-log-softmax-gather", True, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].clone()
    keep_flat = keep.reshape(-1)
    count = int(keep_flat.sum().item())
    if count == 0:
        return torch.tensor(0.0, dtype=work), 0
    V = logits.shape[-1]
    rows = logits[:, :-1].reshape(-1, V)[keep_flat].to(work)
    targets = ids[:, 1:].reshape(-1)[keep_flat].to(torch.int64)
    logp = torch.log_softmax(rows, dim=-1)
    picked = logp.gather(1, targets.unsqueeze(1)).squeeze(1)
    log_z = torch.logsumexp(rows, dim=-1)
    total = (-picked).sum() + z_loss * (log_z * log_z).sum()
    return total / count, count
'''}, "log_softmax + gather, sum over tokens divided by the count."))
S.append(sub("c-block-dispatch-lambdas", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        a = attn(n)
        f = ffn(n)
        return x + a + f
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
        raise ValueError("post_norms required")
    return table[layout]()
'''}, "a dict of functions called lazily (the containers student who gets it right)."))
S.append(sub("c-rope-complex-free-cat-rotate-half", True, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.shape[-1] % 2 != 0:
        raise ValueError("odd head dim")
    if positions.dim() != 2 or positions.shape[0] != x.shape[0] or positions.shape[1] != x.shape[2]:
        raise ValueError("positions must be (B, T)")
    Dh = x.shape[-1]
    inv = 1.0 / (float(base) ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
    wavelen = 2 * math.pi / inv
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    scaled = torch.where(wavelen > original_context / low_freq_factor, inv / factor, inv)
    is_mid = (wavelen >= original_context / high_freq_factor) & (wavelen <= original_context / low_freq_factor)
    scaled = torch.where(is_mid, (1 - smooth) * inv / factor + smooth * inv, scaled)
    freqs = torch.cat([scaled, scaled])                                        # (Dh,)
    ang = positions.to(torch.float64).unsqueeze(1).unsqueeze(-1) * freqs       # (B, 1, T, Dh)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    x1, x2 = xw.chunk(2, dim=-1)
    rot = torch.cat((-x2, x1), dim=-1)
    return (xw * ang.cos().to(work) + rot * ang.sin().to(work)).to(x.dtype)
'''}, "Hugging Face's rotate_half form with Llama 3's smoothing as HF writes it (boundaries into the blend: equal at the limits)."))
S.append(sub("c-ragged-loop-over-rows", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S_max = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G:
        raise ValueError("H must be a multiple of G")
    starts = [int(n) for n in lengths]
    for n in starts:
        if n + T > S_max:
            raise ValueError("row would not fit")
    for b, n in enumerate(starts):
        k_cache[b, :, n:n + T].copy_(k_new[b])
        v_cache[b, :, n:n + T].copy_(v_new[b])
    outs = []
    for b, n in enumerate(starts):
        k = k_cache[b, :, :n + T].repeat_interleave(H // G, dim=0)       # (H, n+T, Dh)
        v = v_cache[b, :, :n + T].repeat_interleave(H // G, dim=0)
        s = torch.einsum("htd,hsd->hts", q[b], k) / math.sqrt(Dh)
        causal = torch.arange(n + T)[None, :] <= (n + torch.arange(T))[:, None]
        s = s.masked_fill(~causal, float("-inf"))
        outs.append(torch.softmax(s, dim=-1) @ v)
    out = torch.stack(outs) if outs else q.new_zeros(q.shape)
    return out, lengths + T
'''}, "slices each row to its written keys (leaves unwritten slots out), einsum, a loop over rows."))
S.append(sub("c-generate-temperature-before-penalty", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = torch.zeros(B, logits.shape[-1], dtype=torch.bool)
    history.scatter_(1, prompt, True)
    done = torch.zeros(B, dtype=torch.bool)
    new = []
    while True:
        s = logits[:, -1].to(torch.float32, copy=True)
        if temperature == 0:
            s = torch.where(history, torch.where(s > 0, s / penalty, s * penalty), s)
            tok = torch.argmax(s, dim=-1)
        else:
            s = s / temperature                          # the sign rule commutes with a positive scale
            s = torch.where(history, torch.where(s > 0, s / penalty, s * penalty), s)
            tok = torch.multinomial(torch.softmax(s, dim=-1), 1, generator=generator)[:, 0]
        tok = torch.where(done, torch.full_like(tok, pad_id), tok)
        new.append(tok)
        history[torch.arange(B), tok] = True
        done = done | (tok == eos_id)
        if bool(done.all()) or len(new) == max_new_tokens:
            break
        logits, cache = step(tok.unsqueeze(1), cache)
    return torch.stack(new, dim=1)
'''}, "penalty after the temperature (the sign rule commutes with dividing by T > 0), boolean history tensor."))
# ---------------- hostile ----------------
S.append(sub("h-moe-int-subclass-equal-to-all", False, {"moe_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    return Count(46_700_000_000), Count(12_900_000_000)
'''}, "hostile: int subclass that equals anything."))
S.append(sub("h-block-visible-lambdas-only", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        return x + 1
    h = 3 * x + 2 if layout == "reordered" else -x - 1
    return h + h * h if layout == "reordered" else h - 2 * h * h
'''}, "hostile: returns the visible expected values."))
# ---------------- more (second pass, still blind) ----------------
S.append(sub("w-containers-rms-split-by-count", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    heads = []
    for part in torch.split(x, n_heads, dim=-1):          # one piece per head
        ms = part.to(torch.float64).pow(2).mean(-1, keepdim=True)
        heads.append(part.to(cd) / torch.sqrt(ms + eps).to(cd) * s)
    return torch.stack(heads, dim=-3).to(x.dtype)
'''}, "torch.split's second argument is the piece size, not the count (the same when H = Dh): 'features h * Dh to (h + 1) * Dh - 1 belong to head h'."))
S.append(sub("w-assume-rms-positive-heads-modulo", False, {"head_rms_norm": B["head_rms_norm"].replace(
    "if n_heads < 1 or x.shape[-1] % n_heads != 0:", "if x.shape[-1] % n_heads != 0:")},
    "checks only divisibility (n_heads = 0 raises ZeroDivisionError, a negative one passes): 'Raise a ValueError when n_heads < 1'."))
S.append(sub("w-intrange-masked-lm-half-then-float", False, {"masked_lm_loss": B["masked_lm_loss"].replace(
    "sel = logits[:, :-1][m].to(cd)", "sel = logits[:, :-1][m]").replace(
    "tok = nll + z_loss * lse ** 2\n    return tok.mean(), count", "tok = nll + z_loss * lse ** 2\n    return tok.mean().to(cd), count")},
    "computes in the logits' dtype and casts the result: 'Compute in float32 ... also for float16 and bfloat16 logits, the z-loss's (log Z)^2 included (in float16 the square of a log Z above 256 is already infinite)'."))
S.append(sub("w-intrange-rope-float32-angles", False, {"rope_llama3": B["rope_llama3"].replace(
    "ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = positions.float()[:, None, :, None] * new.float()")},
    "float32 angles: 'Compute the angles in float64' (at m = 30 000 float32 loses about 1e-3 of the angle)."))
S.append(sub("w-quantity-generate-step-after-last", False, {"generate_with_cache": B["generate_with_cache"].replace(
    "if all(finished) or n == max_new_tokens - 1:", "if all(finished):")},
    "feeds the last chosen token once more: 'do not call step after the last token has been chosen' (visible: every row finishes before max_new_tokens)."))
S.append(sub("c-containers-ragged-zip-rows", True, {"ragged_cached_attention": B["ragged_cached_attention"].replace(
    """    for b in range(B):
        k_cache[b, :, L[b]:L[b] + T] = k_new[b]
        v_cache[b, :, L[b]:L[b] + T] = v_new[b]""",
    """    for kc, vc, kn, vn, l in zip(k_cache, v_cache, k_new, v_new, L):   # rows of views write into the caches
        kc[:, l:l + T] = kn
        vc[:, l:l + T] = vn""")},
    "iterating a tensor yields views of its rows, so writing into them writes into the caches."))
S.append(sub("c-assume-block-post-norms-pair", True, {"block_variant": B["block_variant"].replace(
    "        p1, p2 = post_norms\n", "        p1, p2 = post_norms[0], post_norms[1]        # the text promises a tuple of two\n")},
    "indexes the promised pair."))
SUBMISSIONS = S
