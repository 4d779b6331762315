# Round 15, chapter 06: blind submissions (assistant paster, example generaliser, optimiser, mathematician).
CORRECT = {
"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
''',
"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    if a == 1.0:
        return float(gamma + 1)
    return -math.expm1((gamma + 1) * math.log(a)) / (1.0 - a) if a > 0 else 1.0
''',
"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    return (last >= 0) & pick.gather(1, last.clamp(min=0))
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
''',
"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                cur = tok
                spans[cur] = []
            else:
                spans[cur].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                toks += spans[tok]
                noise += [True] * len(spans[tok])
            else:
                toks.append(tok)
                noise.append(False)
        rows.append(toks)
        noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order)
    rank.scatter_(0, order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
    chosen = rank < capacity
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    qg = q.reshape(B, G, r, T, Dh)
    scores = qg @ k.unsqueeze(2).transpose(-1, -2) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v.unsqueeze(2)
    return out.reshape(B, H, T, Dh)
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    q, k, v = q.to(work), k.to(work), v.to(work)
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    w = torch.where(diff >= 0, torch.tensor(decay, dtype=torch.float64) ** diff.clamp(min=0).to(torch.float64),
                    torch.zeros((), dtype=torch.float64)).to(work)
    a = (fq @ fk.transpose(-1, -2)) * w
    return ((a @ v) / a.sum(-1, keepdim=True)).to(dt)
''',
}

SUBMISSIONS = [
# ---------------- wrong: assistant paster ----------------
{"name": "paster_window_mask_small", "correct": False, "kind": "paster", "cells": {"window_pairs": '''
def window_pairs(t, window):
    if t <= 4096:  # small: count the mask directly
        i = torch.arange(t)
        mask = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)
        return int(mask.sum())
    w = min(window, t)
    return w * (w + 1) // 2 + (t - w) * w
'''}, "why": "Part 1: 'use no tensors or arrays at all, on any path of your code (not even to build the mask for small t ...)'."},
{"name": "paster_tokens_int_at_one", "correct": False, "kind": "paster", "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "why": "Part 2: 'Return a Python float, whatever the type of alpha' (returns int gamma + 1 at alpha = 1)."},
{"name": "paster_min_p_logspace", "correct": False, "kind": "paster", "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    # min-p in log space: log p_i >= log(min_p) + log p_max  <=>  logit_i >= max_logit + log(min_p)
    top = logits.max(dim=-1, keepdim=True).values
    filtered = logits.masked_fill(logits < top + math.log(min_p), float("-inf"))
    probs = torch.softmax(filtered, dim=-1)
    if probs.shape[0] == 0:
        return torch.empty(0, dtype=torch.long)
    return torch.multinomial(probs, num_samples=1, generator=generator).view(-1)
'''}, "why": "Part 4: 'keep token i ... when its probability is at least min_p times the largest probability ... (no tolerance: a token just below that threshold is dropped, even one a millionth below it)' (the log-space test rounds differently at the threshold)."},
{"name": "paster_expert_topk", "correct": False, "kind": "paster", "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    if k > 0:
        _, idx = torch.topk(probs, k, dim=0)          # (k, E)
        chosen = chosen.scatter(0, idx, True)
    gate = probs * chosen
    return chosen, gate
'''}, "why": "Part 6: 'among tokens with equal probabilities the lower token index goes first, also when hundreds of tokens tie' (topk does not promise that order)."},
{"name": "paster_gqa_float_mask", "correct": False, "kind": "paster", "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    n_rep = H // G
    k = k.repeat_interleave(n_rep, dim=1)
    v = v.repeat_interleave(n_rep, dim=1)
    mask = torch.zeros(T, S)
    mask = mask.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(S - T + 1), float("-inf"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh) + mask
    return torch.softmax(scores, dim=-1) @ v
'''}, "why": "Part 7: 'return (B, H, T, Dh) in the dtype of q (float16 and bfloat16 included ...: a constant made in float32, such as an additive mask from torch.zeros(T, S), would promote them)'."},
{"name": "paster_decayed_eps", "correct": False, "kind": "paster", "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay, eps=1e-6):
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    q, k, v = q.to(work), k.to(work), v.to(work)
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    idx = torch.arange(T)
    exps = (idx[:, None] - idx[None, :]).clamp(min=0).to(torch.float64)
    D = torch.where(idx[:, None] >= idx[None, :], decay ** exps, torch.zeros((), dtype=torch.float64)).to(work)
    A = (fq @ fk.transpose(-2, -1)) * D
    return (A @ v / (A.sum(dim=-1, keepdim=True) + eps)).to(dt)
'''}, "why": "Part 8: 'Do not add an epsilon to the denominator (it is positive)'."},
# ---------------- wrong: example generaliser ----------------
{"name": "gen_gqa_repeat_not_interleave", "correct": False, "kind": "generaliser", "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    S = k.shape[2]
    k = k.repeat(1, H // k.shape[1], 1, 1)
    v = v.repeat(1, H // v.shape[1], 1, 1)
    s = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    s = s.masked_fill(~allowed, float("-inf"))
    return torch.softmax(s, dim=-1) @ v
'''}, "why": "Part 7: 'query head h uses key/value head h // (H // G)' (repeat gives h % G; the visible check looks at head 3 only, where both agree)."},
{"name": "gen_decayed_2d_only", "correct": False, "kind": "generaliser", "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[0]
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    i = torch.arange(T)
    expo = (i[:, None] - i[None, :]).clamp(min=0).to(torch.float64)
    w = (torch.tensor(decay, dtype=torch.float64) ** expo * (i[:, None] >= i[None, :])).to(work)
    a = (fq @ fk.T) * w
    return (a @ v.to(work) / a.sum(1, keepdim=True)).to(dt)
'''}, "why": "Part 8: 'for q, k of shape (..., T, Dh), v of shape (..., T, Dv) (the same leading dimensions ...)' (reads T from dim 0 and uses .T)."},
{"name": "gen_whole_word_first_start", "correct": False, "kind": "generaliser", "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        idx = starts[b].nonzero().flatten().tolist()
        first = idx[0]
        word = torch.cumsum(starts[b].long(), 0) - 1        # word number of each position
        chosen_words = pick[b, torch.tensor(idx)]
        out[b, first:] = chosen_words[word[first:]]
    return out
'''}, "why": "Part 3: 'a row may have no start at all' (idx[0] raises IndexError on such a row)."},
{"name": "gen_restore_sentinel_range", "correct": False, "kind": "generaliser", "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    lo, hi = int(sentinels.min()), int(sentinels.max())
    is_sent = lambda t: lo <= t <= hi
    out_t, out_n = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        fill, cur = {}, None
        for t in tgt:
            if t == pad:
                break
            if is_sent(t):
                cur = t
                fill[t] = []
            else:
                fill[cur].append(t)
        row, noise = [], []
        for t in inp:
            if t == pad:
                break
            if is_sent(t):
                row += fill[t]
                noise += [True] * len(fill[t])
            else:
                row.append(t)
                noise.append(False)
        out_t.append(row)
        out_n.append(noise)
    T = max([len(r) for r in out_t], default=0)
    tokens = torch.full((len(out_t), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(out_t), T, dtype=torch.bool)
    for b, (r, n) in enumerate(zip(out_t, out_n)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(n)] = torch.tensor(n, dtype=torch.bool)
    return tokens, noise
'''}, "why": "Part 5: 'They need not be consecutive numbers' (a real token between the smallest and largest sentinel is taken for a sentinel)."},
{"name": "gen_min_p_global_max", "correct": False, "kind": "generaliser", "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    probs = torch.where(probs >= min_p * probs.max(), probs, torch.zeros_like(probs))
    if probs.numel() == 0:
        return torch.zeros(probs.shape[0], dtype=torch.int64)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
'''}, "why": "Part 4: 'at least min_p times the largest probability of that row' (max over the whole batch)."},
# ---------------- wrong: optimiser ----------------
{"name": "opt_whole_word_half_positions", "correct": False, "kind": "optimiser", "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, dtype=torch.float16)   # half the memory of int32 for the running maximum
    last = torch.where(starts, pos, torch.tensor(-1.0, dtype=torch.float16)).cummax(dim=1).values
    ok = last >= 0
    return ok & pick.gather(1, last.clamp(min=0).long())
'''}, "why": "Part 3: 'the hidden tests use rows of tens of thousands of positions' (float16 positions round above 2048)."},
{"name": "opt_expert_log_softmax", "correct": False, "kind": "optimiser", "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    logp = torch.log_softmax(router_logits, dim=-1)   # monotone in probs, and stable: rank on it
    N, E = logp.shape
    order = torch.argsort(logp.detach(), dim=0, descending=True, stable=True)
    ranks = torch.argsort(order, dim=0)
    chosen = ranks < capacity
    gate = torch.where(chosen, logp.exp(), torch.zeros((), dtype=logp.dtype))
    return chosen, gate
'''}, "why": "Part 6: 'so rank the probabilities themselves, not log-probabilities, nor logits minus their log-sum-exp'."},
{"name": "opt_gqa_float32_compute", "correct": False, "kind": "optimiser", "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    dt = q.dtype
    q, k, v = q.float(), k.float(), v.float()   # float32 matmuls are much faster than float64 ones
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, G, H // G, T, Dh)
    s = torch.einsum("bgrtd,bgsd->bgrts", qg, k) * Dh ** -0.5
    s = s.masked_fill(torch.arange(S) > torch.arange(S - T, S)[:, None], float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", s.softmax(-1), v)
    return out.reshape(B, H, T, Dh).to(dt)
'''}, "why": "Part 7: 'within 1e-10 for float64 inputs ..., so compute float64 in float64: arithmetic in float32 and a cast back is off by about 1e-7'."},
{"name": "opt_decayed_rescaled_cumsum", "correct": False, "kind": "optimiser", "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    # O(T): gamma^(i-j) = gamma^i * gamma^-j, so a plain cumulative sum works
    dt = q.dtype
    q64, k64, v64 = q.double(), k.double(), v.double()
    fq, fk = F.elu(q64) + 1, F.elu(k64) + 1
    T = q.shape[-2]
    g = torch.tensor(decay, dtype=torch.float64) ** torch.arange(T, dtype=torch.float64)
    S = torch.cumsum((fk / g[:, None]).unsqueeze(-1) * v64.unsqueeze(-2), dim=-3) * g[:, None, None]
    z = torch.cumsum(fk / g[:, None], dim=-2) * g[:, None]
    num = (fq.unsqueeze(-1) * S).sum(-2)
    den = (fq * z).sum(-1, keepdim=True)
    return (num / den).to(dt)
'''}, "why": "Part 8: 'rescaling the keys by gamma^-j so that a plain cumulative sum works is exact on paper but not in floating point'."},
{"name": "opt_min_p_inplace_shift", "correct": False, "kind": "optimiser", "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.numel() == 0:
        return torch.zeros(logits.shape[0], dtype=torch.int64)
    x = logits.sub_(logits.max(dim=-1, keepdim=True).values)   # shift in place: no copy of a (B, V) tensor
    probs = x.exp_()  # max is now exactly 1
    probs = probs / probs.sum(-1, keepdim=True)
    keep = probs >= min_p * probs.max(-1, keepdim=True).values
    return torch.multinomial(probs * keep, 1, generator=generator).squeeze(1)
'''}, "why": "Intro: 'Your functions must not change the tensors they are given' (sub_ and exp_ write the caller's logits)."},
# ---------------- wrong: mathematician ----------------
{"name": "math_window_float_half", "correct": False, "kind": "mathematician", "cells": {"window_pairs": '''
def window_pairs(t, window):
    # sum_{i=1}^{t} min(i, w) = w(w+1)/2 + (t - w) w   for t >= w, else t(t+1)/2
    if t < window:
        return t * (t + 1) / 2
    return window * (window + 1) / 2 + (t - window) * window
'''}, "why": "Part 1: 'Return a Python int' and 'count with Python integer arithmetic (exactly: not through float ...)'."},
{"name": "math_tokens_no_alpha_one", "correct": False, "kind": "mathematician", "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    # E = sum_{k=0}^{gamma} alpha^k = (1 - alpha^(gamma+1)) / (1 - alpha)
    return float((1 - alpha ** (gamma + 1)) / (1 - alpha))
'''}, "why": "Part 2: '0 <= alpha <= 1 (both ends included)' (divides by zero at alpha = 1)."},
{"name": "math_gqa_max_before_mask", "correct": False, "kind": "mathematician", "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    kk = k.repeat_interleave(r, dim=1)
    vv = v.repeat_interleave(r, dim=1)
    s = (q @ kk.transpose(-1, -2)) / math.sqrt(Dh)
    # a_tj = exp(s_tj - m_t) [j <= S-T+t] / sum_j exp(s_tj - m_t) [j <= S-T+t]
    e = torch.exp(s - s.amax(dim=-1, keepdim=True))
    e = e * (torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None])
    return (e / e.sum(-1, keepdim=True)) @ vv
'''}, "why": "Part 7: 'keys that a query may not see scoring about a thousand above every key it may see (they must not change its result)' and 'no gradient may be NaN or infinite'."},
{"name": "math_decayed_float32_decay", "correct": False, "kind": "mathematician", "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    gamma = torch.tensor(decay)
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    T = q.shape[-2]
    i = torch.arange(T)
    # weight of key j in out_i: gamma^(i-j) phi(q_i).phi(k_j), j <= i
    powers = torch.where(i[:, None] >= i[None, :], gamma ** (i[:, None] - i[None, :]).clamp(min=0), torch.zeros(()))
    a = ((F.elu(q.to(work)) + 1) @ (F.elu(k.to(work)) + 1).transpose(-1, -2)) * powers.to(work)
    return ((a @ v.to(work)) / a.sum(-1, keepdim=True)).to(dt)
'''}, "why": "Part 8: 'within 1e-10 of the exact value for float64 inputs (... so compute float64 in float64, the powers of the decay included)' (torch.tensor(decay) is float32)."},
{"name": "math_restore_int32_sentinels", "correct": False, "kind": "mathematician", "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    s = sentinels.to(inputs.dtype)
    B = inputs.shape[0]
    rows, marks = [], []
    for b in range(B):
        is_s_in = torch.isin(inputs[b], s)
        is_s_tg = torch.isin(targets[b], s)
        # the target is <s_1> y_1 <s_2> y_2 ... <s_n>: span k runs between sentinel k and sentinel k+1
        tg = targets[b][targets[b] != pad]
        pos = torch.nonzero(is_s_tg[:tg.shape[0]]).flatten().tolist()
        spans = {int(tg[pos[k]]): tg[pos[k] + 1:pos[k + 1]] for k in range(len(pos) - 1)}
        pieces, noise = [], []
        for tok, sen in zip(inputs[b][inputs[b] != pad].tolist(), is_s_in[inputs[b] != pad].tolist()):
            if sen:
                pieces.append(spans[tok].to(torch.int64))
                noise.append(torch.ones(len(spans[tok]), dtype=torch.bool))
            else:
                pieces.append(torch.tensor([tok], dtype=torch.int64))
                noise.append(torch.zeros(1, dtype=torch.bool))
        rows.append(torch.cat(pieces))
        marks.append(torch.cat(noise))
    T = max([len(r) for r in rows], default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(rows[b])] = rows[b]
        noise[b, :len(marks[b])] = marks[b]
    return tokens, noise
'''}, "why": "Part 5: 'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32' (casting the sentinels to int32 wraps them onto real ids) and pad as the fill value of torch.full."},
# ---------------- correct ----------------
{"name": "ok_window_min_form", "correct": True, "kind": "mathematician", "cells": {"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return m * (m + 1) // 2 + (t - m) * window
'''}, "why": "closed form with //."},
{"name": "ok_tokens_fsum_loop", "correct": True, "kind": "mathematician", "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma) + 1.0
    # P(at least k drafts accepted) = alpha^k, k = 1..gamma, plus the target's own token
    if gamma <= 100000:
        return math.fsum(alpha ** k for k in range(gamma + 1))
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "why": "explicit sum of the series."},
{"name": "ok_whole_word_loop", "correct": True, "kind": "generaliser", "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        s = starts[b].nonzero().flatten()
        if s.numel() == 0:
            continue
        ends = torch.cat([s[1:], torch.tensor([T])])
        lengths = ends - s
        word_pick = pick[b, s]
        out[b, s[0]:] = torch.repeat_interleave(word_pick, lengths)
    return out
'''}, "why": "a loop over rows ('A Python loop is allowed')."},
{"name": "ok_min_p_F_softmax_kw", "correct": True, "kind": "paster", "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    if B == 0:
        return torch.empty(0, dtype=torch.long)
    probs = F.softmax(logits, dim=-1)
    top = probs.amax(dim=-1, keepdim=True)
    probs = probs.masked_fill(probs < min_p * top, 0.0)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    return torch.multinomial(input=probs, num_samples=1, replacement=True, generator=generator).reshape(B).to(torch.int64)
'''}, "why": "F.softmax, masked_fill, renormalised, multinomial by keyword."},
{"name": "ok_restore_lists", "correct": True, "kind": "generaliser", "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sentinel_ids = frozenset(int(s) for s in sentinels.tolist())
    B = inputs.shape[0]
    toks, noise = [], []
    for b in range(B):
        tgt = [x for x in targets[b].tolist() if x != pad]
        fills, key = {}, None
        for x in tgt:
            if x in sentinel_ids:
                key = x
                fills.setdefault(key, [])
            else:
                fills[key].append(x)
        row, nz = [], []
        for x in inputs[b].tolist():
            if x == pad:
                continue
            if x in sentinel_ids:
                row.extend(fills[x]); nz.extend([True] * len(fills[x]))
            else:
                row.append(x); nz.append(False)
        toks.append(row); noise.append(nz)
    T = max(map(len, toks)) if toks else 0
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    mask = torch.zeros((B, T), dtype=torch.bool)
    for b in range(B):
        if toks[b]:
            tokens[b, :len(toks[b])] = torch.tensor(toks[b], dtype=torch.int64)
            mask[b, :len(noise[b])] = torch.tensor(noise[b])
    return tokens, mask
'''}, "why": "Python lists, torch.full with the int pad."},
{"name": "ok_expert_pairwise_rank", "correct": True, "kind": "mathematician", "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    p = probs.detach()
    idx = torch.arange(N)
    # rank of token n for expert e = #{m : p_m > p_n} + #{m < n : p_m == p_n}
    greater = (p.unsqueeze(0) > p.unsqueeze(1)).sum(dim=1)             # (N, E): over m
    ties = ((p.unsqueeze(0) == p.unsqueeze(1)) & (idx[None, :] < idx[:, None]).unsqueeze(-1)).sum(dim=1)
    chosen = (greater + ties) < capacity
    gate = probs * chosen.to(probs.dtype)
    return chosen, gate
'''}, "why": "ranks by explicit counts, ties by index."},
{"name": "ok_expert_argsort", "correct": True, "kind": "paster", "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    order = torch.argsort(probs, dim=0, descending=True, stable=True)
    take = order[:capacity]                       # slicing past N takes everything
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter(0, take, True)
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
'''}, "why": "stable argsort, scatter."},
{"name": "ok_gqa_sdpa_enable_gqa", "correct": True, "kind": "paster", "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    T, S = q.shape[2], k.shape[2]
    allowed = torch.arange(S).unsqueeze(0) <= torch.arange(S - T, S).unsqueeze(1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
'''}, "why": "sdpa with a boolean mask and enable_gqa (repeat_interleave layout)."},
{"name": "ok_gqa_einsum_f64", "correct": True, "kind": "optimiser", "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, G, H // G, T, Dh)
    s = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    s = torch.where(torch.arange(S) <= torch.arange(S - T, S)[:, None], s, torch.tensor(float("-inf"), dtype=s.dtype))
    out = torch.einsum("bgrts,bgsd->bgrtd", torch.softmax(s, dim=-1), v)
    return out.reshape(B, H, T, Dh)
'''}, "why": "grouped einsum, torch.where with a -inf scalar of the scores' dtype."},
{"name": "ok_decayed_recurrence", "correct": True, "kind": "mathematician", "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    S = None
    outs = []
    for i in range(T):
        kv = fk[..., i, :, None] * vv[..., i, None, :]
        S = kv if S is None else decay * S + kv
        z = fk[..., i, :] if i == 0 else decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2).to(dt)
'''}, "why": "the recurrence of the text, step by step."},
{"name": "ok_decayed_float64_inside", "correct": True, "kind": "optimiser", "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    fq = F.elu(q.double()) + 1
    fk = F.elu(k.double()) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float64)
    diff = i[:, None] - i[None, :]
    W = torch.where(diff >= 0, torch.full_like(diff, float(decay)).pow(diff.clamp(min=0)), torch.zeros_like(diff))
    A = torch.einsum("...id,...jd->...ij", fq, fk) * W
    out = torch.einsum("...ij,...jv->...iv", A, v.double()) / A.sum(-1, keepdim=True)
    return out.to(dt)
'''}, "why": "float64 inside for every dtype, one cast back."},
{"name": "ok_window_loop_free_sum", "correct": True, "kind": "generaliser", "cells": {"window_pairs": '''
def window_pairs(t, window):
    full = max(t - window + 1, 0)          # queries i >= window - 1 see window keys
    ramp = t - full                         # the first ones see 1, 2, ..., ramp keys
    return full * window + ramp * (ramp + 1) // 2
'''}, "why": "counts the full-window queries and the ramp."},
# ---------------- hostile ----------------
{"name": "hostile_window_int_subclass", "correct": False, "kind": "hostile", "cells": {"window_pairs": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def window_pairs(t, window):
    return Count(0)
'''}, "why": "an int subclass equal to everything."},
{"name": "hostile_whole_word_visible", "correct": False, "kind": "hostile", "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = starts & pick
    out[:, 2] = out[:, 1]
    return out
'''}, "why": "fits the visible example only."},
{"name": "hostile_tokens_const", "correct": False, "kind": "hostile", "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return 1.0 + float(alpha)
'''}, "why": "the gamma = 1 case only."},
]
