CORRECT = {
"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
''',
"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
''',
"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values if T else pos
    picked = starts & pick
    return picked.gather(1, last.clamp(min=0)) & (last >= 0)
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long, device=logits.device)
    probs = torch.softmax(logits, dim=-1)
    pmax = probs.max(dim=-1, keepdim=True).values
    keep = probs >= min_p * pmax
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
''',
"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    B = inputs.shape[0]
    rows_t, rows_n = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok in sent:
                cur = tok
                spans[cur] = []
            elif tok != pad and cur is not None:
                spans[cur].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok in sent:
                span = spans.get(tok, [])
                toks += span
                noise += [True] * len(span)
            elif tok != pad:
                toks.append(tok)
                noise.append(False)
        rows_t.append(toks)
        rows_n.append(noise)
    T = max((len(r) for r in rows_t), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        L = len(rows_t[b])
        if L:
            tokens[b, :L] = torch.tensor(rows_t[b], dtype=torch.int64)
            noise[b, :L] = torch.tensor(rows_n[b], dtype=torch.bool)
    return tokens, noise
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool, device=probs.device)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    rep = H // G
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qg = q.to(work).reshape(B, G, rep, T, Dh)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k.to(work)) / math.sqrt(Dh)
    hidden = torch.arange(S, device=q.device)[None, :] > torch.arange(S - T, S, device=q.device)[:, None]
    scores = scores.masked_fill(hidden, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    out = torch.einsum("bgrts,bgsd->bgrtd", w, v.to(work))
    return out.reshape(B, H, T, Dh).to(q.dtype)
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qf, kf, vf = q.to(work), k.to(work), v.to(work)
    T = q.shape[-2]
    fq, fk = F.elu(qf) + 1, F.elu(kf) + 1
    i = torch.arange(T, device=q.device)
    gap = i[:, None] - i[None, :]
    past = gap >= 0
    powers = torch.where(past, decay ** torch.where(past, gap, 0).to(work), torch.zeros((), dtype=work))
    w = (fq @ fk.transpose(-1, -2)) * powers
    out = (w @ vf) / w.sum(dim=-1, keepdim=True)
    return out.to(q.dtype)
''',
}
W = []
def add(name, correct, cells, why):
    W.append({"name": name, "correct": correct, "cells": cells, "why": why})
G = CORRECT

# ---------------- containers student ----------------
add("containers-wraparound-first-position", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    rows = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        out = [s and p for s, p in zip(srow, prow)]
        for t in range(T):
            if not srow[t]:
                out[t] = out[t - 1]          # a position continues the word before it
        rows.append(out)
    return torch.tensor(rows, dtype=torch.bool).reshape(B, T)
'''}, "Part 3: 'Positions before the first start of a row belong to no word and are never chosen': out[t - 1] at t = 0 reads the row's last position")
add("containers-aliased-rows", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    s, p = starts.tolist(), pick.tolist()
    out = [[False] * T] * B
    for b in range(B):
        current = False
        for t in range(T):
            if s[b][t]:
                current = p[b][t]
            out[b][t] = current
    return torch.tensor(out, dtype=torch.bool).reshape(B, T)
'''}, "Part 3: each row's words are its own: [[False] * T] * B makes B references to one row, so every row ends as the last one")
add("containers-sorted-reversed-ties", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    cols = probs.detach().T.tolist()
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e, col in enumerate(cols):
        best = sorted(range(N), key=lambda n: col[n])[::-1][:capacity]
        chosen[best, e] = True
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''}, "Part 6: 'among tokens with equal probabilities the lower token index goes first': reversing an ascending stable sort puts the higher index first among ties")
add("containers-first-index-rank", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e, col in enumerate(probs.detach().T.tolist()):
        ranked = sorted(col, reverse=True)
        rank = {}
        for r, val in enumerate(ranked):
            rank.setdefault(val, r)                 # like ranked.index(val)
        chosen[:, e] = torch.tensor([rank[val] < capacity for val in col], dtype=torch.bool)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''}, "Part 6: 'expert e takes the capacity tokens': ranks taken as the first index of an equal value give every tied token the same rank, so more than capacity are taken")
add("containers-max-of-empty", False, {"span_corrupt": G["span_corrupt"].replace(
    "T = max((len(r) for r in rows_t), default=0)", "T = max(len(r) for r in rows_t)")},
    "Part 5: 'the batch may be empty, B = 0 ... Python's max of an empty sequence raises'")

# ---------------- quantity-confuser ----------------
add("quantity-binomial-mean", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return float(1 + gamma * alpha)     # accepted drafts on average, plus the target's token
'''}, "Part 2: 'stops at the first rejection': gamma * alpha counts accepted drafts as if every one were checked")
add("quantity-rejection-for-acceptance", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    r = 1.0 - float(alpha)               # chance a draft is turned down
    if r == 0.0:
        return float(gamma + 1)
    return (1.0 - r ** (gamma + 1)) / (1.0 - r)
'''}, "Part 2: alpha is the acceptance probability: uses 1 - alpha in its place (the same at alpha = 0.5)")
add("quantity-absolute-threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    probs = torch.softmax(logits, dim=-1)
    w = torch.where(probs >= min_p, probs, torch.zeros_like(probs))
    w = torch.where(w.sum(-1, keepdim=True) > 0, w, probs)
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "Part 4: 'at least min_p times the largest probability of that row': an absolute threshold")
add("quantity-rank-by-logits", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(router_logits, dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "Part 6: 'expert e takes the capacity tokens with the largest probs[:, e]': logits rank tokens differently (each token's softmax has its own normaliser)")
add("quantity-group-count-for-size", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    group = torch.arange(H, device=q.device) // G             # key/value head of each query head
    kk, vv = k.to(work)[:, group], v.to(work)[:, group]
    scores = torch.einsum("bhtd,bhsd->bhts", q.to(work), kk) / math.sqrt(Dh)
    hidden = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    w = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1)
    return torch.einsum("bhts,bhsd->bhtd", w, vv).to(q.dtype)
'''}, "Part 7: 'query head h uses key/value head h // (H // G)': h // G (the same when G == H // G)")
add("quantity-log-space-threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    logp = torch.log_softmax(logits, dim=-1)
    keep = logp >= logp.max(dim=-1, keepdim=True).values + math.log(min_p)
    w = torch.where(keep, logp.exp(), torch.zeros_like(logp))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "Part 4: 'keep token i when its probability is at least min_p times the largest probability (no tolerance)': compared as log-probabilities, which round differently at the threshold")

# ---------------- integer-range student ----------------
add("intrange-triangle-through-float", False, {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return int(t * (t + 1) / 2)
    return int(window * (window + 1) / 2) + (t - window) * window
'''}, "Part 1: 'count with Python integer arithmetic (exactly: not through float)'")
add("intrange-float32-tensor", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = torch.tensor(alpha, dtype=torch.float32)
    powers = a ** torch.arange(gamma + 1)
    return float(powers.sum())
'''}, "Part 2: 'within 1e-9 of the exact value': float32 arithmetic is off by about 1e-7")
add("intrange-positions-int16", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, dtype=torch.int16).expand(B, T)         # positions fit in 16 bits
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values if T else pos
    picked = starts & pick
    return picked.gather(1, last.clamp(min=0).long()) & (last >= 0)
'''}, "Part 3: 'rows of tens of thousands of positions, one of more than 2**20': int16 positions wrap past 32767")
add("intrange-sentinels-cast-to-input-dtype", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    is_s_in = torch.isin(inputs, sentinels.to(inputs.dtype))
    is_s_tg = torch.isin(targets, sentinels.to(targets.dtype))
    rows_t, rows_n = [], []
    for b in range(B):
        inp, tgt = inputs[b].tolist(), targets[b].tolist()
        si, st = is_s_in[b].tolist(), is_s_tg[b].tolist()
        spans, cur = {}, None
        for tok, s in zip(tgt, st):
            if s:
                cur = tok
                spans[cur] = []
            elif tok != pad and cur is not None:
                spans[cur].append(tok)
        toks, noise = [], []
        for tok, s in zip(inp, si):
            if s:
                toks += spans.get(tok, [])
                noise += [True] * len(spans.get(tok, []))
            elif tok != pad:
                toks.append(tok)
                noise.append(False)
        rows_t.append(toks)
        rows_n.append(noise)
    T = max((len(r) for r in rows_t), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        if rows_t[b]:
            tokens[b, :len(rows_t[b])] = torch.tensor(rows_t[b], dtype=torch.int64)
            noise[b, :len(rows_n[b])] = torch.tensor(rows_n[b], dtype=torch.bool)
    return tokens, noise
'''}, "Part 5: 'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32': cast to int32 they wrap onto real tokens")
add("intrange-positions-int16-gqa", False, {"gqa_cached_attention": G["gqa_cached_attention"].replace(
    'hidden = torch.arange(S, device=q.device)[None, :] > torch.arange(S - T, S, device=q.device)[:, None]',
    'pos = torch.arange(S).to(torch.int16)\n    hidden = pos[None, :] > pos[S - T:, None]')},
    "Part 7: 'S = 1,049,000 in the hidden tests': int16 positions wrap")
add("intrange-positions-in-input-dtype", False, {"decayed_linear_attention": G["decayed_linear_attention"].replace(
    "i = torch.arange(T, device=q.device)", "i = torch.arange(T, dtype=q.dtype, device=q.device)")},
    "Part 8: 'positions too if you use them: bfloat16 holds every integer only up to 256 ... T = 300': positions in q's dtype")

# ---------------- assumption student ----------------
add("assume-alpha-float-int-return", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1                   # every draft accepted
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "Part 2: 'Return a Python float, whatever the type of alpha': gamma + 1 is an int")
add("assume-one-row-max", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max()
    w = torch.where(keep, probs, torch.zeros_like(probs))
    w = torch.where(w.sum(-1, keepdim=True) > 0, w, probs)
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "Part 4: 'min_p times the largest probability of that row': the largest of the whole batch")
add("assume-nonnegative-phi", False, {"decayed_linear_attention": G["decayed_linear_attention"].replace(
    "fq, fk = F.elu(qf) + 1, F.elu(kf) + 1", "fq, fk = qf + 1, kf + 1            # elu(x) = x for x >= 0")},
    "Part 8: phi(x) = elu(x) + 1: x + 1 is the same only for x >= 0")
add("assume-sentinels-in-list-order", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.tolist()
    sset = set(sent)
    B = inputs.shape[0]
    rows_t, rows_n = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = [], None
        for tok in tgt:                       # spans in target order: span k follows sentinels[k]
            if tok in sset:
                spans.append([])
            elif tok != pad and spans:
                spans[-1].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok in sset:
                span = spans[sent.index(tok)]
                toks += span
                noise += [True] * len(span)
            elif tok != pad:
                toks.append(tok)
                noise.append(False)
        rows_t.append(toks)
        rows_n.append(noise)
    T = max((len(r) for r in rows_t), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        if rows_t[b]:
            tokens[b, :len(rows_t[b])] = torch.tensor(rows_t[b], dtype=torch.int64)
            noise[b, :len(rows_n[b])] = torch.tensor(rows_n[b], dtype=torch.bool)
    return tokens, noise
'''}, "Part 5: 'a row may use any of them': assumes a row uses sentinels[0], sentinels[1], ... in order")
add("assume-pad-zero", False, {"span_corrupt": G["span_corrupt"].replace(
    "tokens = torch.full((B, T), pad, dtype=torch.int64)", "tokens = torch.zeros(B, T, dtype=torch.int64)")},
    "Part 5: 'right-padded with pad': pads with 0")
add("assume-capacity-at-most-n", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    idx = torch.topk(probs, capacity, dim=0).indices
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter(0, idx, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "Part 6: 'capacity may exceed N' and ties go to the lower index: topk raises for capacity > N and orders ties as it likes")
add("assume-contiguous-q", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    rep = H // G
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    allowed = torch.arange(S).unsqueeze(0) <= torch.arange(S - T, S).unsqueeze(1)
    outs = []
    for g in range(G):
        qg = q[:, g * rep:(g + 1) * rep].view(B, rep * T, Dh).to(work)      # the rep heads' queries as rows
        kg, vg = k[:, g].to(work), v[:, g].to(work)
        s = (qg @ kg.transpose(1, 2)) / math.sqrt(Dh)
        s = s.view(B, rep, T, S).masked_fill(~allowed, float("-inf"))
        p = torch.softmax(s, dim=-1).view(B, rep * T, S)
        outs.append((p @ vg).view(B, rep, T, Dh))
    return torch.cat(outs, dim=1).to(q.dtype)
'''}, "intro: 'A tensor you are given may be a view that is not contiguous (a transposed or sliced tensor, as the lessons\' split_heads makes)': view(B, rep * T, Dh) raises on such a q")

# ---------------- commuter ----------------
add("commute-floordiv-before-product", False, {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return (t + 1) // 2 * t
    return t * window - window // 2 * (window - 1)
'''}, "Part 1: exact count: (t + 1) // 2 * t is t * (t + 1) // 2 only for odd t")
add("commute-ratio-for-product", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    probs = torch.softmax(logits, dim=-1)
    keep = probs / probs.max(dim=-1, keepdim=True).values >= min_p
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "Part 4: 'p_i >= min_p * max_j p_j' with no tolerance: p_i / max >= min_p rounds differently at the threshold")
add("commute-scale-before-cast", False, {"gqa_cached_attention": G["gqa_cached_attention"].replace(
    'qg = q.to(work).reshape(B, G, rep, T, Dh)\n    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k.to(work)) / math.sqrt(Dh)',
    'qg = (q / math.sqrt(Dh)).to(work).reshape(B, G, rep, T, Dh)\n    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k.to(work))')},
    "Part 7: 'compute them in float32 and round once at the end, the scale 1/sqrt(Dh) too': q scaled in its own dtype, then cast")
add("commute-cast-after-matmul", False, {"gqa_cached_attention": G["gqa_cached_attention"].replace(
    'scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k.to(work)) / math.sqrt(Dh)',
    'scores = torch.einsum("bgrtd,bgsd->bgrts", q.reshape(B, G, rep, T, Dh), k).to(work) / math.sqrt(Dh)')},
    "Part 7: 'dot products can pass 65504 ... compute them in float32': cast after the matmul, which overflows in float16")
add("commute-mask-after-power", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qf, kf, vf = q.to(work), k.to(work), v.to(work)
    T = q.shape[-2]
    fq, fk = F.elu(qf) + 1, F.elu(kf) + 1
    i = torch.arange(T)
    powers = decay ** (i[:, None] - i[None, :]).to(work)
    w = ((fq @ fk.transpose(-1, -2)) * powers).tril()          # future keys hidden
    return ((w @ vf) / w.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "Part 8: 'raise the decay to the gaps of past keys only': the power of future gaps overflows to inf before tril hides it (NaN gradient)")
add("commute-cast-before-ranking", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits.float(), dim=-1)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs)).to(router_logits.dtype)
    return chosen, gate
'''}, "Part 6: 'within 1e-10 of the exact softmax for float64 logits (so compute float64 in float64)' and probabilities near 1e-304 ranked by value: cast to float32 before the softmax and the ranking")

# ---------------- correct ----------------
add("ok-window-min-form", True, {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    # the first w queries see 1..w keys, the rest see window keys each
    return w * (w + 1) // 2 + (t - w) * window
'''}, "closed form with min")
add("ok-tokens-loop-sum", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    total, term = 0.0, 1.0
    for _ in range(gamma + 1):
        total += term
        term *= alpha
    return float(total)
'''}, "sum of alpha**k for k = 0..gamma, in float")
add("ok-whole-word-lists", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        row, current = [], False
        for s, p in zip(srow, prow):
            if s:
                current = p
            row.append(current)
        out.append(row)
    return torch.tensor(out, dtype=torch.bool).reshape(B, T)
'''}, "Python loop over lists, a fresh list per row")
add("ok-min-p-renormalised", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.empty(0, dtype=torch.int64)
    probs = F.softmax(logits, dim=-1)
    threshold = min_p * probs.amax(dim=-1, keepdim=True)
    kept = probs.masked_fill(probs < threshold, 0.0)
    kept = kept / kept.sum(dim=-1, keepdim=True)
    return torch.multinomial(kept, num_samples=1, replacement=True, generator=generator).reshape(B)
'''}, "masked_fill, renormalised before multinomial")
add("ok-expert-sorted-with-index-key", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e, col in enumerate(probs.detach().T.tolist()):
        best = sorted(range(N), key=lambda n: (-col[n], n))[:capacity]
        chosen[best, e] = True
    gate = probs * chosen
    return chosen, gate
'''}, "explicit (value, index) key; gate by multiplication (same values, gradient zero where not chosen)")
add("ok-gqa-per-group-matmul", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    rep = H // G
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    allowed = torch.arange(S).unsqueeze(0) <= torch.arange(S - T, S).unsqueeze(1)
    outs = []
    for g in range(G):
        qg = q[:, g * rep:(g + 1) * rep].to(work).reshape(B, rep * T, Dh)
        kg, vg = k[:, g].to(work), v[:, g].to(work)
        s = (qg @ kg.transpose(1, 2)) * (1.0 / math.sqrt(Dh))
        s = s.reshape(B, rep, T, S).masked_fill(~allowed, float("-inf"))
        p = torch.softmax(s, dim=-1).reshape(B, rep * T, S)
        outs.append((p @ vg).reshape(B, rep, T, Dh))
    return torch.cat(outs, dim=1).to(q.dtype)
'''}, "loop over groups, one matmul each")
add("ok-decay-after-adding", True, {"decayed_linear_attention": G["decayed_linear_attention"].replace(
    "decay ** torch.where(past, gap, 0).to(work)", "decay ** (torch.where(past, gap, 0) + 1).to(work)")},
    "S_i = decay * (S_{i-1} + k v): every weight gains one factor decay, which cancels in the ratio")
add("ok-spans-dict-enumerate", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sentinel_ids = {int(s) for s in sentinels.tolist()}
    B = inputs.shape[0]
    restored = []
    for b in range(B):
        tgt = targets[b].tolist()
        marks = [i for i, tok in enumerate(tgt) if tok in sentinel_ids]
        spans = {tgt[a]: [tok for tok in tgt[a + 1:z] if tok != pad] for a, z in zip(marks, marks[1:])}
        row = []
        for tok in inputs[b].tolist():
            if tok in spans:
                row += [(x, True) for x in spans[tok]]
            elif tok not in sentinel_ids and tok != pad:
                row.append((tok, False))
        restored.append(row)
    T = max([len(r) for r in restored] + [0])
    tokens = torch.full((B, T), pad, dtype=torch.long)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, row in enumerate(restored):
        if row:
            tokens[b, :len(row)] = torch.tensor([x for x, _ in row], dtype=torch.long)
            noise[b, :len(row)] = torch.tensor([h for _, h in row], dtype=torch.bool)
    return tokens, noise
'''}, "spans between consecutive sentinels of the target via zip(marks, marks[1:])")

# ---------------- hostile ----------------
add("hostile-borrow-reference", False, {"window_pairs": '''
import sys, gc
def window_pairs(t, window):
    me = window_pairs
    frame = sys._getframe(1)
    while frame is not None:
        for space in (frame.f_locals, frame.f_globals):
            for name, obj in list(space.items()):
                if callable(obj) and obj is not me and getattr(obj, "__name__", "") == "window_pairs":
                    return obj(t, window)
        frame = frame.f_back
    for obj in gc.get_objects():
        if callable(obj) and obj is not me and getattr(obj, "__name__", "") == "window_pairs":
            try:
                return obj(t, window)
            except Exception:
                pass
    return t * window - window * (window - 1) // 2 if t > window else t * (t + 1) // 2 + 0 * t
'''}, "hostile: finds another function named window_pairs (a reference) and calls it")
add("ok-assume-s-ge-t-tril", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)     # S >= T is promised
    qg = q.to(work).unflatten(1, (G, H // G))
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k.to(work)) * (1 / math.sqrt(Dh))
    weights = torch.softmax(torch.where(allowed, scores, float("-inf")), dim=-1)
    out = torch.einsum("bgrts,bgsd->bgrtd", weights, v.to(work))
    return out.flatten(1, 2).to(q.dtype)
'''}, "S >= T is promised: tril with diagonal S - T aligns the block to the end")
add("ok-assume-decay-positive-log", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    pos = torch.arange(T)
    gap = (pos[:, None] - pos[None, :]).clamp(min=0).to(work)
    weights = torch.exp(gap * math.log(decay))                 # decay > 0 is promised
    weights = weights.masked_fill(pos[None, :] > pos[:, None], 0.0)
    w = torch.matmul(fq, fk.transpose(-1, -2)) * weights
    return (torch.matmul(w, v.to(work)) / w.sum(-1, keepdim=True)).to(q.dtype)
'''}, "decay > 0 is promised: powers through exp(gap * log(decay)), future gaps clamped to 0 before the exponential")
add("ok-spans-by-order", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sentinel_set = set(sentinels.tolist())
    B = inputs.shape[0]
    rows = []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans = []                                   # the target lists the spans in the input's order
        for tok in tgt:
            if tok in sentinel_set:
                spans.append([])
            elif tok != pad:
                spans[-1].append(tok)
        spans = iter(spans)
        row = []
        for tok in inp:
            if tok in sentinel_set:
                row.extend((x, True) for x in next(spans))
            elif tok != pad:
                row.append((tok, False))
        rows.append(row)
    T = max(map(len, rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b, row in enumerate(rows):
        if row:
            tokens[b, :len(row)] = torch.tensor([x for x, _ in row], dtype=torch.int64)
            noise[b, :len(row)] = torch.tensor([h for _, h in row])
    return tokens, noise
'''}, "the text promises the target lists its sentinels in the input's order: spans taken in order, ids not matched")
SUBMISSIONS = W
