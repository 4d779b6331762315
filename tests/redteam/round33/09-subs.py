# Round 33 blind red team, chapter 09-modern-lm. Five kinds: global-statistics (G), sign-convention (S),
# late-binding (L), equality (E), side-effect (X).
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


RMS_OK = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)
    w = weight.to(cdt)
    scale = 1 + w if unit_offset else w
    return (xs.to(cdt) * torch.rsqrt(ms + eps).to(cdt) * scale).to(x.dtype)
'''

GEN_HEAD = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
'''
GEN_TAIL = '''
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''
PEN_OK = '''
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
'''
CHOOSE_OK = '''
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
'''


def gen(pen=PEN_OK, choose=CHOOSE_OK, head=GEN_HEAD):
    return head + pen + choose + GEN_TAIL


# ---------------------------------------------------------------- wrong: global-statistics student
add("G1_rms_over_positions", False, {"head_rms_norm": RMS_OK.replace(
    "ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)",
    "ms = xs.to(torch.float64).pow(2).mean(dim=(-2, -1), keepdim=True)   # each head's mean square")},
    "G: the mean of the squares over all positions and features of a head instead of over each position's Dh "
    "features. Breaks 'the mean taken over that head's Dh features only' (a per-position statistic).")

add("G2_lm_loss_mean_of_row_means", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cdt), 0
    row_losses = []
    for b in range(logits.shape[0]):
        mb = m[b]
        if not bool(mb.any()):
            continue
        sel = logits[b, :-1][mb].to(cdt)
        y = ids[b, 1:][mb].long()
        lse = torch.logsumexp(sel, -1)
        row_losses.append((lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse ** 2).mean())
    return torch.stack(row_losses).mean(), count
'''}, "G: the mean of each sequence's mean instead of one mean over every predicted token of the batch. Breaks 'loss is "
      "the **mean over those tokens**, every token weighing the same however many a row has'.")

add("G3_ragged_global_max_softmax", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("row does not fit")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    pos = torch.arange(S)
    end = lengths.long() + T
    written = (pos[None, :] < end[:, None])[:, None, :, None]
    kc = torch.where(written, k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    vc = torch.where(written, v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)
    allowed = pos[None, None, :] <= (lengths.long()[:, None] + torch.arange(T)[None, :])[:, :, None]
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    e = torch.exp(scores - scores.max())          # subtract the maximum for stability
    w = e / e.sum(-1, keepdim=True)
    return w @ vc, lengths + T
'''}, "G: subtracts the maximum of all rows, heads and queries instead of each query's: a query whose scores lie 1000 "
      "below another's underflows to 0/0. Breaks 'softmax(q k^T / sqrt(Dh)) v' with 'Queries ... may be of any size'.")

add("G4_generate_batch_history", False, {"generate_with_cache": gen(pen='''
        seen = torch.zeros(scores.shape[-1], dtype=torch.bool)
        seen[history.reshape(-1)] = True              # every token used so far
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
''')}, "G: one history for the whole batch, so a token of one row is penalised in every row. Breaks 'in each row, "
       "every token id that occurs in that row's prompt or among its tokens generated so far'.")

add("G5_lm_loss_global_max_lse", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cdt), 0
    sel = logits[:, :-1][m].to(cdt)
    y = ids[:, 1:][m].long()
    c = sel.max()                                  # stabiliser
    lse = c + torch.log(torch.exp(sel - c).sum(-1))
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lse * lse).mean(), count
'''}, "G: log Z stabilised by the maximum of every selected score instead of each row's: a row near -1e4 next to a "
      "row near 0 gives log 0. Breaks 'rows whose every score lies far below 0, near -1e4' with 'clamp nothing'.")

# ---------------------------------------------------------------- wrong: sign-convention student
add("S1_lm_loss_mask_on_input_side", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, :-1]        # the mask marks the positions whose logits predict
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cdt), 0
    sel = logits[:, :-1][m].to(cdt)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lse ** 2).mean(), count
'''}, "S: reads the mask on the predicting side (position t - 1) instead of the predicted token's side. Breaks "
      "'target_mask ... True where the token ids[b, t] is to be predicted. Position 0 has no prediction'.")

ROPE_HEAD = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("Dh must be even and positions (B, T)")
    half = Dh // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
'''
ROPE_TAIL = '''
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(cdt), torch.sin(ang).to(cdt)
    xc = x.to(cdt)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''
add("S2_rope_blend_swapped", False, {"rope_llama3": ROPE_HEAD + '''
    mid = s * theta / factor + (1 - s) * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
''' + ROPE_TAIL}, "S: the blend weights swapped (s on the divided frequency). Breaks '(1 - s_i) θ_i / f + s_i θ_i'.")

add("S3_generate_penalty_reversed", False, {"generate_with_cache": gen(pen='''
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores * penalty, scores / penalty), scores)
''')}, "S: multiplies positive scores and divides the others. Breaks 'a score above 0 is divided by penalty, any other "
       "score is multiplied by it'.")

add("S4_swiglu_gate_clamped_below", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cdt = torch.float32 if x.dtype == torch.float16 else x.dtype
    xc, wgu, wd = x.to(cdt), w_gate_up.to(cdt), w_down.to(cdt)
    F_ = wgu.shape[0] // 2
    wg, wu = (wgu[0::2], wgu[1::2]) if interleaved else (wgu[:F_], wgu[F_:])
    g, u = xc @ wg.T, xc @ wu.T
    if limit is not None:
        g = g.clamp(min=-limit)                 # the gate is bounded on its negative side
        u = u.clamp(-limit, limit)
    return ((g * torch.sigmoid(beta * g) * u) @ wd.T).to(x.dtype)
'''}, "S: clamps the gate from below instead of from above. Breaks 'replace g by min(g, limit) (clamped from above only)'.")

add("S5_rope_fast_slow_swapped", False, {"rope_llama3": ROPE_HEAD + '''
    mid = (1 - s) * theta / factor + s * theta
    # low-frequency (long-wavelength) pairs keep their frequency, high-frequency ones are interpolated
    new = torch.where(lam > lam_low, theta, torch.where(lam < lam_high, theta / factor, mid))
''' + ROPE_TAIL}, "S: divides the fast pairs and keeps the slow ones. Breaks 'θ_i when λ_i < λ_high (fast pairs: "
                  "unchanged); θ_i / f when λ_i > λ_low (slow pairs: divided by f)'.")

# ---------------------------------------------------------------- wrong: late-binding student
add("L1_lm_loss_shared_zero", False, {"masked_lm_loss": '''
ZERO = torch.zeros(())

def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cdt = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return ZERO.to(cdt), 0          # nothing to predict
    sel = logits[:, :-1][m].to(cdt)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    return (lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse ** 2).mean(), count
'''}, "L: returns one module-level zero tensor (ZERO.to(float32) is ZERO itself) for every empty batch: a caller that "
      "adds into it changes the next call's result. Breaks 'Each call returns new tensors'.")

add("L2_rope_helper_default_base", False, {"rope_llama3": '''
LLAMA3_BASE = 500000.0

def llama3_frequencies(Dh, factor, low, high, L, base=LLAMA3_BASE):
    theta = base ** (-2 * torch.arange(Dh // 2, dtype=torch.float64) / Dh)
    lam = 2 * math.pi / theta
    s = (L / lam - low) / (high - low)
    mid = (1 - s) * theta / factor + s * theta
    return torch.where(lam < L / high, theta, torch.where(lam > L / low, theta / factor, mid))


def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("Dh must be even and positions (B, T)")
    new = llama3_frequencies(Dh, factor, low_freq_factor, high_freq_factor, original_context)
    half = Dh // 2
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cdt = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(cdt), torch.sin(ang).to(cdt)
    xc = x.to(cdt)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "L: the helper's base is a default fixed at definition and the call never passes `base`. Breaks 'θ_i = b^(-2i/Dh) "
      "(b = base)'.")

add("L3_generate_default_seen_set", False, {"generate_with_cache": gen(pen='''
        scores = penalise_rows(scores, history.tolist(), penalty)
''', head='''
def penalise_row(row, tokens, penalty, done=set()):
    for t in tokens:
        if t not in done:          # once per id
            done.add(t)
            row[t] = row[t] / penalty if row[t] > 0 else row[t] * penalty
    return row


def penalise_rows(scores, histories, penalty, out=[]):
    out.clear()
    for row, toks in zip(scores, histories):
        out.append(penalise_row(row.clone(), toks, penalty))
    return torch.stack(out)
''' + GEN_HEAD)}, "L: the set of ids already penalised is a default argument made once, so it keeps growing across rows, steps and "
    "calls: an id penalised once is never penalised again. Breaks 'in each row, every token id that occurs in that "
    "row's prompt or among its tokens generated so far has its score changed once'.")

add("L4_ragged_position_table_default", False, {"ragged_cached_attention": '''
def causal_allowed(lengths, T, S, table=torch.arange(1 << 20)):
    pos = table[:S]
    return pos[None, None, :] <= (lengths.long()[:, None] + table[:T][None, :])[:, :, None], \\
        pos[None, :] < (lengths.long() + T)[:, None]


def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("row does not fit")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    allowed, written = causal_allowed(lengths, T, S)
    kc = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    vc = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    scores = (q @ kc.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ vc, lengths + T
'''}, "L: the table of positions is a default argument made once, 2**20 long: past it the slice is short. Breaks "
      "'a table of positions made once, such as torch.arange(1 << 20), and sliced on every call is too short'.")

# ---------------------------------------------------------------- wrong: equality student
add("E1_moe_topk_strict", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if not 1 <= top_k < n_experts:             # a router must choose
        raise ValueError("top_k")
    if n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("n_shared / first_dense")
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    block = attn + 2 * dim
    expert = 3 * dim * ffn_hidden
    emb = vocab * dim if tied else 2 * vocab * dim
    moe = n_layers - first_dense
    common = emb + dim + n_layers * block + first_dense * 3 * dim * dense_hidden + moe * (dim * n_experts + n_shared * expert)
    return common + moe * n_experts * expert, common + moe * top_k * expert
'''}, "E: refuses top_k == n_experts. Breaks 'Raise a ValueError unless ... 1 <= top_k <= n_experts'.")

add("E2_ragged_full_cache_refused", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool(((lengths.long() + T) >= S).any()):
        raise ValueError("row does not fit")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    pos = torch.arange(S)
    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]
    kc = torch.where(written, k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    vc = torch.where(written, v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    allowed = pos[None, None, :] <= (lengths.long()[:, None] + torch.arange(T)[None, :])[:, :, None]
    scores = (q @ kc.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ vc, lengths + T
'''}, "E: `>=` where the text's limit is inclusive. Breaks 'lengths[b] + T > S_max for some b (filling the cache "
      "exactly is fine)'.")

add("E3_generate_greedy_on_probs", False, {"generate_with_cache": gen(choose='''
        probs = torch.softmax(scores / (temperature if temperature > 0 else 1.0), dim=-1)
        if temperature == 0:
            tok = probs.argmax(-1)
        else:
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
''')}, "E: greedy on the probabilities, where scores a unit apart round to the same probability. Breaks 'compare the "
       "scores themselves, not their probabilities'.")

add("E4_generate_small_temperature_greedy", False, {"generate_with_cache": gen(choose='''
        if temperature < 1e-5:                     # 0 up to rounding
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
''')}, "E: a threshold where the text asks `== 0`. Breaks 'Otherwise (any temperature above 0, however small: no "
       "shortcut to the highest score)'.")

add("E5_swiglu_limit_truthy", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cdt = torch.float32 if x.dtype == torch.float16 else x.dtype
    xc, wgu, wd = x.to(cdt), w_gate_up.to(cdt), w_down.to(cdt)
    F_ = wgu.shape[0] // 2
    wg, wu = (wgu[0::2], wgu[1::2]) if interleaved else (wgu[:F_], wgu[F_:])
    g, u = xc @ wg.T, xc @ wu.T
    if limit:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    return ((F.silu(g) if beta == 1 else g * torch.sigmoid(beta * g)) * u @ wd.T).to(x.dtype)
'''}, "E: `if limit:` treats limit = 0 as no limit. Breaks 'when limit is a number (0 included)'.")

add("E6_block_layout_is", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout is "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout is "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout is "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        h = x + post_norms[0](attn(norm_1(x)))
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError(f"unknown layout {layout!r}")
'''}, "E: compares the layout by identity. Breaks 'Compare layout by value (==): the tests build the string at run time'.")

# ---------------------------------------------------------------- wrong: side-effect student
add("X1_rms_weight_requires_grad", False, {"head_rms_norm": RMS_OK.replace(
    "    w = weight.to(cdt)\n",
    "    if not weight.requires_grad and torch.is_grad_enabled():\n        weight.requires_grad_()     # the weight is trained\n    w = weight.to(cdt)\n")},
    "X: switches on the caller's weight's requires_grad. Breaks 'nor their requires_grad flag (no requires_grad_() on a "
    "tensor you were given'.")

add("X2_generate_own_generator", False, {"generate_with_cache": gen(head='''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    if generator is None:
        generator = torch.Generator()          # a private one, so the global generator is left alone
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
''')}, "X: makes its own generator when none is given. Breaks '`generator` may be `None`: then torch.multinomial draws "
       "from torch's global generator ... do not make a generator of your own'.")

add("X3_generate_draw_unfinished_only", False, {"generate_with_cache": gen(choose='''
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.full((B,), pad_id, dtype=torch.long)
            live = (~finished).nonzero()[:, 0]
            if live.numel():
                probs = torch.softmax(scores[live] / temperature, dim=-1)
                tok[live] = torch.multinomial(probs, 1, generator=generator)[:, 0]
''')}, "X: draws only for unfinished rows, moving the generator less. Breaks 'A finished row still takes part in the "
       "draw (the batch always draws B tokens per step)'.")

add("X4_ragged_cache_requires_grad", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("row does not fit")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    if torch.is_grad_enabled():
        for c in (k_cache, v_cache):
            if c.is_leaf and not c.requires_grad:
                c.requires_grad_()          # so that the old entries get gradients too
    pos = torch.arange(S)
    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]
    kc = torch.where(written, k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    vc = torch.where(written, v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    allowed = pos[None, None, :] <= (lengths.long()[:, None] + torch.arange(T)[None, :])[:, :, None]
    scores = (q @ kc.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ vc, lengths + T
'''}, "X: switches on requires_grad of the caller's caches. Breaks 'nor their requires_grad flag (no requires_grad_() "
      "on a tensor you were given'.")

add("X5_block_parallel_norm_twice", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        return x + attn(norm_1(x)) + ffn(norm_1(x))     # both branches read N1(x)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    p1, p2 = post_norms
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
'''}, "X: calls norm_1 twice in the parallel layout. Breaks 'Call each function the layout uses exactly once (the "
      "parallel layout computes N1(x) once)'.")

# ---------------------------------------------------------------- correct
add("C1_rms_float64_unflatten", True, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1:
        raise ValueError("n_heads must be at least 1")
    D = x.shape[-1]
    if D % n_heads:
        raise ValueError("last axis does not split into n_heads")
    Dh = D // n_heads
    xd = x.to(torch.float64).unflatten(-1, (n_heads, Dh)).movedim(-2, -3)    # (..., H, T, Dh)
    ms = xd.square().sum(-1, keepdim=True) / Dh
    s = weight.to(torch.float64) + 1.0 if unit_offset else weight.to(torch.float64)
    return (xd / torch.sqrt(ms + eps) * s).to(x.dtype)
'''}, "correct: float64 for every input dtype (allowed), unflatten + movedim, a sum divided by Dh.")

add("C2_swiglu_view_silu_f64", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    two_f, D = w_gate_up.shape
    Fh = two_f // 2
    xd, wd = x.to(torch.float64), w_down.to(torch.float64)
    w = w_gate_up.to(torch.float64)
    if interleaved:
        w = w.reshape(Fh, 2, D).transpose(0, 1)       # (2, F, D): gates, then ups
    else:
        w = w.reshape(2, Fh, D)
    g = torch.einsum("...d,fd->...f", xd, w[0])
    u = torch.einsum("...d,fd->...f", xd, w[1])
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    act = F.silu(g) if beta == 1.0 else g * torch.sigmoid(g * beta)
    return torch.einsum("...f,df->...d", act * u, wd).to(x.dtype)
'''}, "correct: float64 inside for every dtype (allowed), reshape of the fused matrix, F.silu where beta == 1.")

add("C3_moe_loop", True, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("experts or layers")
    swiglu = lambda width: 3 * dim * width
    total = active = (1 if tied else 2) * vocab * dim + dim
    for layer in range(n_layers):
        common = 2 * dim + dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim + n_heads * head_dim * dim
        if layer < first_dense:
            common += swiglu(dense_hidden)
            total += common
            active += common
        else:
            common += dim * n_experts + n_shared * swiglu(ffn_hidden)
            total += common + n_experts * swiglu(ffn_hidden)
            active += common + top_k * swiglu(ffn_hidden)
    return total, active
'''}, "correct: a loop over blocks with exact ints (a loop of n_layers is cheap).")

add("C4_lm_loss_cross_entropy", True, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].reshape(-1)
    count = int(keep.sum().item())
    if count == 0:
        return torch.zeros((), dtype=out_dtype), 0
    V = logits.shape[-1]
    rows = logits[:, :-1].reshape(-1, V)[keep].to(torch.float64)
    y = ids[:, 1:].reshape(-1)[keep].to(torch.int64)
    ce = F.cross_entropy(rows, y, reduction="sum")
    logz = torch.logsumexp(rows, dim=-1)
    total = ce + z_loss * (logz * logz).sum()
    return (total / count).to(out_dtype), count
'''}, "correct: float64 inside (allowed), F.cross_entropy with reduction='sum' over the selected rows.")

add("C5_block_table", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    known = ["parallel", "reordered", "sandwich"]
    if not any(layout == k for k in known):
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("the sandwich layout needs post_norms")
    if layout == "parallel":
        n = norm_1(x)
        a = attn(n)
        f = ffn(n)
        return x + a + f
    if layout == "reordered":
        h = x + norm_1(attn(x))
        y = h + norm_2(ffn(h))
        return y
    post_1, post_2 = post_norms
    h = x + post_1(attn(norm_1(x)))
    return h + post_2(ffn(norm_2(h)))
'''}, "correct: the three layouts spelled out, checks first.")

add("C6_rope_meta_loop", True, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0:
        raise ValueError("Dh must be even")
    if positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("positions must be (B, T)")
    low_wavelen = original_context / low_freq_factor
    high_wavelen = original_context / high_freq_factor
    freqs = []
    for i in range(Dh // 2):                     # as in Meta's reference code
        f = base ** (-2 * i / Dh)
        wavelen = 2 * math.pi / f
        if wavelen < high_wavelen:
            freqs.append(f)
        elif wavelen > low_wavelen:
            freqs.append(f / factor)
        else:
            smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            freqs.append((1 - smooth) * f / factor + smooth * f)
    inv = torch.tensor(freqs, dtype=torch.float64)
    angles = positions.double().unsqueeze(-1) * inv            # (B, T, Dh/2)
    angles = torch.cat([angles, angles], dim=-1)[:, None]      # (B, 1, T, Dh)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    rot = torch.cat([-xw[..., Dh // 2:], xw[..., :Dh // 2]], dim=-1)   # rotate_half
    return (xw * angles.cos().to(work) + rot * angles.sin().to(work)).to(x.dtype)
'''}, "correct: frequencies in Python floats as Meta's code, rotate_half, cos/sin in float64 then cast.")

add("C7_ragged_rows_sdpa", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H is not a multiple of G")
    lens = [int(l) for l in lengths.tolist()]
    if any(l + T > S for l in lens):
        raise ValueError("a row does not fit in the cache")
    for b, l in enumerate(lens):
        k_cache[b, :, l:l + T].copy_(k_new[b])
        v_cache[b, :, l:l + T].copy_(v_new[b])
    outs = []
    for b, l in enumerate(lens):
        k = k_cache[b, :, :l + T].repeat_interleave(H // G, dim=0)    # only written slots
        v = v_cache[b, :, :l + T].repeat_interleave(H // G, dim=0)
        keep = torch.arange(l + T)[None, :] <= (l + torch.arange(T))[:, None]   # True = may attend
        outs.append(F.scaled_dot_product_attention(q[b], k, v, attn_mask=keep))
    out = torch.stack(outs) if outs else q.new_zeros((0, H, T, Dh))
    return out, lengths.clone() + T
'''}, "correct: a loop over rows (allowed), each row's written keys sliced, SDPA with a boolean keep-mask.")

add("C8_generate_default_generator_rowwise", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    gen = generator if generator is not None else torch.default_generator   # the global one
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    seen = [set(row) for row in prompt.tolist()]
    done = [False] * B
    chosen = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].float().clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]), dtype=torch.int64)
            s = scores[b, idx]
            scores[b, idx] = torch.where(s > 0, s / penalty, s * penalty)
        if temperature == 0:
            toks = [int(torch.argmax(scores[b])) for b in range(B)]
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            toks = [int(torch.multinomial(probs[b], 1, generator=gen)) for b in range(B)]   # row order
        for b in range(B):
            if done[b]:
                toks[b] = pad_id
            elif toks[b] == eos_id:
                done[b] = True
            seen[b].add(toks[b])
        chosen.append(toks)
        if all(done) or n == max_new_tokens - 1:
            break
        logits, cache = step(torch.tensor(toks, dtype=torch.int64)[:, None], cache)
    return torch.tensor(chosen, dtype=torch.int64).reshape(-1, B).T.contiguous()
'''}, "correct: torch.default_generator stands for the global one; per-row draws in row order (allowed); Python sets.")

add("C9_generate_default_sets_cleared", True, {"generate_with_cache": gen(pen='''
        scores = penalise_rows(scores, history.tolist(), penalty)
''', head='''
def penalise_row(row, tokens, penalty, done=set()):
    done.clear()
    for t in tokens:
        if t not in done:          # once per id
            done.add(t)
            row[t] = row[t] / penalty if row[t] > 0 else row[t] * penalty
    return row


def penalise_rows(scores, histories, penalty, out=[]):
    out.clear()
    for row, toks in zip(scores, histories):
        out.append(penalise_row(row.clone(), toks, penalty))
    return torch.stack(out)
''' + GEN_HEAD)}, "correct: mutable default containers, but cleared at every call before use: they change no result.")


# ---------------------------------------------------------------- hostile
add("H1_ragged_borrow_reference", False, {"ragged_cached_attention": '''
import sys

def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    f = sys._getframe(1)
    while f is not None:
        for space in (f.f_locals, f.f_globals):
            for name, obj in list(space.items()):
                if callable(obj) and obj is not ragged_cached_attention and "ragged" in str(name).lower():
                    try:
                        return obj(q, k_new, v_new, k_cache, v_cache, lengths)
                    except Exception:
                        pass
        f = f.f_back
    B, H, T, Dh = q.shape
    G = k_cache.shape[1]
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    S = k_cache.shape[2]
    k = k_cache.repeat_interleave(H // G, 1)
    v = v_cache.repeat_interleave(H // G, 1)
    sc = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    ok = torch.arange(S)[None, None, :] <= (lengths[:, None] + torch.arange(T)[None, :])[:, :, None]
    w = torch.softmax(sc.masked_fill(~ok[:, None], -1e9), -1)
    return w @ v, lengths + T
'''}, "hostile: calls whatever 'ragged' function it finds in the grader's frames; falls back to no masking.")


# dropped before grading (the text names each of these mistakes outright; kept here for the record):
DROPPED = ['E6_block_layout_is', 'L4_ragged_position_table_default', 'X4_ragged_cache_requires_grad']
SUBMISSIONS = [s for s in SUBMISSIONS if s['name'] not in DROPPED]
