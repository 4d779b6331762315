BASE = {
"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return m * (m + 1) // 2 + (t - m) * window
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
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    hit = (starts & pick).gather(1, last.clamp(min=0))
    return hit & (last >= 0)
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    kept = kept / kept.sum(dim=-1, keepdim=True)
    if kept.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
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
                cur = tok; spans[cur] = []
            else:
                spans[cur].append(tok)
        row, nz = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                row += spans[tok]; nz += [True] * len(spans[tok])
            else:
                row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    B = len(rows)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(r)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices
    c = min(capacity, N)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:c], True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    qg = q.reshape(B, G, r * T, Dh)
    scores = qg @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.reshape(B, G, r, T, S)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)
    return (w @ v).reshape(B, H, T, Dh)
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :]).to(torch.float64)
    w = torch.where(diff >= 0, torch.tensor(float(decay), dtype=torch.float64) ** diff.clamp(min=0), torch.zeros((), dtype=torch.float64))
    a = (fq @ fk.transpose(-1, -2)) * w.to(q.dtype)
    return (a @ v) / a.sum(-1, keepdim=True)
''',
}

S = []
def W(name, kind, cells, why): S.append({"name": name, "correct": False, "kind": kind, "cells": cells, "why": why})
def C(name, kind, cells, why): S.append({"name": name, "correct": True, "kind": kind, "cells": cells, "why": why})
def X(name, cells, why): S.append({"name": name, "correct": False, "kind": "hostile", "cells": cells, "why": why})

# P1
W("p1_float_half", "hurried", {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return int(t * (t + 1) / 2)
    return int(window * (window + 1) / 2 + (t - window) * window)
'''}, "'count with Python integer arithmetic (exactly: not through float ...)'")
W("p1_mask_for_small_t", "tutorial", {"window_pairs": '''
def window_pairs(t, window):
    if t <= 64:
        i = torch.arange(t)
        mask = (i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)
        return int(mask.sum().item())
    return window * (window + 1) // 2 + (t - window) * window if t > window else t * (t + 1) // 2
'''}, "'use no tensors or arrays at all, on any path of your code (not even to build the mask for small t)'")
W("p1_decimal_default", "source", {"window_pairs": '''
from decimal import Decimal
def window_pairs(t, window):
    t, w = Decimal(t), Decimal(window)
    if t <= w:
        return int(t * (t + 1) / 2)
    return int(w * (w + 1) / 2 + (t - w) * w)
'''}, "'nor through decimal at its default precision of 28 digits'")
# P2
W("p2_closed_form_no_branch", "hurried", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "'0 <= alpha <= 1 (both ends included)' (alpha = 1 divides by zero)")
W("p2_int_at_one", "hurried", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "'Return a Python float, whatever the type of alpha'")
W("p2_linear_expectation", "misconception", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    # each draft token is accepted with probability alpha, plus the target's own token
    return float(1 + alpha * gamma)
'''}, "'The target checks them in order and stops at the first rejection'")
W("p2_torch_float32", "tutorial", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = torch.tensor(alpha, dtype=torch.float)
    k = torch.arange(gamma + 1, dtype=torch.float)
    return (a ** k).sum().item()
'''}, "'within 1e-9 of the exact value for every allowed input'")
# P3
W("p3_stack_rows", "hurried", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    rows = []
    for b in range(starts.shape[0]):
        idx = torch.cumsum(starts[b].long(), 0)
        word_pick = torch.cat([torch.tensor([False]), pick[b][starts[b]]])
        rows.append(word_pick[idx])
    return torch.stack(rows)
'''}, "'The batch may be empty (B = 0): then return a (0, T) tensor and raise nothing (torch.stack of an empty list raises)'")
W("p3_word_index_minus_one", "misconception", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        word = torch.cumsum(starts[b].long(), 0) - 1   # -1 before the first start
        chosen_words = pick[b][starts[b]]
        if chosen_words.numel():
            out[b] = chosen_words[word.clamp(max=chosen_words.numel() - 1)]
    return out
'''}, "'Positions before the first start of a row belong to no word ... and are never chosen' (index -1 wraps to the last word)")
W("p3_long_result", "hurried", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = torch.cumsum(starts.long(), dim=1)
    picked = torch.zeros(B, T + 1, dtype=torch.long)
    picked.scatter_(1, word * starts.long(), (starts & pick).long())
    picked[:, 0] = 0
    return picked.gather(1, word)
'''}, "'Return a **boolean** tensor of shape (B, T)'")
C("c_p3_flat_view", "tutorial", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).repeat(B, 1)
    last = torch.where(starts, pos, torch.tensor(-1)).cummax(dim=1).values
    flat = last + torch.arange(B)[:, None] * T
    sp = (starts & pick).view(-1)
    hit = sp[flat.clamp(min=0).view(-1)].view(B, T)
    return hit & (last >= 0)
'''}, "view only on tensors it built itself (starts & pick is a new contiguous tensor), so it cannot fail")
# P4
W("p4_log_space_threshold", "misconception", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    logp = F.log_softmax(logits, dim=-1)
    keep = logp >= logp.max(dim=-1, keepdim=True).values + math.log(min_p)
    masked = logp.masked_fill(~keep, float("-inf"))
    probs = torch.softmax(masked, dim=-1)
    if probs.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
'''}, "'keep token i ... when its probability is at least min_p times the largest probability ... (no tolerance: a token just below that threshold is dropped)'")
W("p4_no_generator", "hurried", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = F.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = probs * keep
    probs = probs / probs.sum(dim=-1, keepdim=True)
    return torch.multinomial(probs, num_samples=1).squeeze(1)
'''}, "'draw every random number from generator'")
W("p4_reseeded_copy", "tutorial", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    g = torch.Generator().manual_seed(generator.initial_seed())  # reproducible
    probs = F.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = probs * keep
    return torch.multinomial(probs, num_samples=1, generator=g).squeeze(1)
'''}, "'a second call with the same generator draws new numbers (it advances; a new generator seeded from it ... would repeat them)'")
W("p4_strict_greater", "misconception", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    keep = (probs > min_p * top) | (probs == top)
    probs = torch.where(keep, probs, 0.0)
    return torch.multinomial(probs, 1, generator=generator).view(-1)
'''}, "'keep token i of a row when its probability is **at least** min_p times the largest'")
# P5
W("p5_pad_sequence_float_value", "tutorial", {"span_corrupt": '''
from torch.nn.utils.rnn import pad_sequence
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    seqs, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad: break
            if tok in sent: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, nz = [], []
        for tok in inp:
            if tok == pad: break
            if tok in sent: row += spans[tok]; nz += [True] * len(spans[tok])
            else: row.append(tok); nz.append(False)
        seqs.append(torch.tensor(row, dtype=torch.long)); noises.append(torch.tensor(nz, dtype=torch.bool))
    if not seqs:
        return torch.zeros(0, 0, dtype=torch.long), torch.zeros(0, 0, dtype=torch.bool)
    return pad_sequence(seqs, batch_first=True, padding_value=pad), pad_sequence(noises, batch_first=True, padding_value=False)
'''}, "'keep ids in integer dtypes, and out of arguments that take a float' (padding_value is a float)")
W("p5_sentinel_by_min", "source", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    first = int(sentinels.min())
    is_s = lambda tok: tok >= first and tok != pad
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad: break
            if is_s(tok): cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, nz = [], []
        for tok in inp:
            if tok == pad: break
            if is_s(tok): row += spans[tok]; nz += [True] * len(spans[tok])
            else: row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max([len(r) for r in rows], default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.long).reshape(len(rows), T)
    noise = torch.tensor([z + [False] * (T - len(z)) for z in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
'''}, "'They need not be consecutive numbers' / 'Neither a sentinel nor pad is ever a real token' (T5's extra ids sit at the top of the vocabulary)")
W("p5_sentinels_in_list_order", "misconception", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sl = sentinels.tolist(); sent = set(sl)
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        tgt = [t for t in tgt if t != pad]
        spans, k = {}, -1
        for tok in tgt:
            if tok in sent: k += 1; spans[k] = []
            else: spans[k].append(tok)
        row, nz = [], []
        for tok in inp:
            if tok == pad: break
            if tok in sent:
                j = sl.index(tok)   # the j-th sentinel hides the j-th span
                row += spans[j]; nz += [True] * len(spans[j])
            else: row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max([len(r) for r in rows], default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.long); noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b, r in enumerate(rows):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.long); noise[b, :len(r)] = torch.tensor(noises[b], dtype=torch.bool)
    return tokens, noise
'''}, "'a row may use any of them (each at most once in its input, for example after a data loader shuffled or shared them)'")
W("p5_output_dtype_of_inputs", "hurried", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    B = inputs.shape[0]
    out = []
    for b in range(B):
        spans, cur = {}, None
        for tok in targets[b].tolist():
            if tok == pad: break
            if tok in sent: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row = []
        for tok in inputs[b].tolist():
            if tok == pad: break
            row += [(x, True) for x in spans[tok]] if tok in sent else [(tok, False)]
        out.append(row)
    T = max([len(r) for r in out], default=0)
    tokens = torch.full((B, T), pad, dtype=inputs.dtype)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, row in enumerate(out):
        for t, (tok, nz) in enumerate(row):
            tokens[b, t] = tok; noise[b, t] = nz
    return tokens, noise
'''}, "'tokens (int64) holds the original sequences' (int32 inputs)")
W("p5_isin_int32", "tutorial", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    in_s = torch.isin(inputs, sentinels.to(inputs.dtype))
    tg_s = torch.isin(targets, sentinels.to(targets.dtype))
    rows, noises = [], []
    for b in range(B):
        spans, cur = {}, None
        for tok, s in zip(targets[b].tolist(), tg_s[b].tolist()):
            if tok == pad: break
            if s: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, nz = [], []
        for tok, s in zip(inputs[b].tolist(), in_s[b].tolist()):
            if tok == pad: break
            if s: row += spans[tok]; nz += [True] * len(spans[tok])
            else: row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max([len(r) for r in rows], default=0)
    tokens = torch.full((B, T), pad, dtype=torch.long); noise = torch.zeros(B, T, dtype=torch.bool)
    for b, r in enumerate(rows):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.long); noise[b, :len(r)] = torch.tensor(noises[b], dtype=torch.bool)
    return tokens, noise
'''}, "'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32' (sentinels cast to int32 wrap)")
# P6
W("p6_topk", "tutorial", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    idx = torch.topk(probs, k, dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    return chosen, probs * chosen
'''}, "'among tokens with equal probabilities the lower token index goes first, also when hundreds of tokens tie'")
W("p6_router_softmax_float32", "tutorial", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1, dtype=torch.float)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    gate = (probs * chosen).to(router_logits.dtype)
    return chosen, gate
'''}, "'within 1e-10 of the exact softmax for float64 logits (so compute float64 in float64)' (HF routers' softmax(dtype=torch.float))")
W("p6_rank_log_probs", "misconception", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    logp = torch.log_softmax(router_logits, dim=-1)
    N, E = logp.shape
    order = torch.argsort(logp, dim=0, descending=True, stable=True)[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, logp.exp(), torch.zeros_like(logp))
'''}, "'rank the probabilities themselves, not log-probabilities'")
W("p6_argsort_unstable", "hurried", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(-1)
    N, E = probs.shape
    order = probs.argsort(dim=0, descending=True)[:capacity]
    chosen = torch.zeros_like(probs, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    return chosen, probs.masked_fill(~chosen, 0)
'''}, "'among tokens with equal probabilities the lower token index goes first'")
# P7
W("p7_source_float_scale", "source", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, G, H // G, T, Dh)
    attn = torch.matmul(qg, k.unsqueeze(2).transpose(-2, -1)) / torch.sqrt(torch.tensor(Dh, dtype=torch.float))
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    attn = attn.masked_fill(~allowed, -1e9)
    attn = torch.softmax(attn, dim=-1)
    return torch.matmul(attn, v.unsqueeze(2)).reshape(B, H, T, Dh)
'''}, "'within 1e-10 for float64 inputs ... so compute float64 in float64' (seed 004's scale as a float32 tensor)")
W("p7_head_modulo", "misconception", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    idx = torch.arange(H) % G
    kk, vv = k[:, idx], v[:, idx]
    scores = q @ kk.transpose(-1, -2) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, -1) @ vv
'''}, "'query head h uses key/value head h // (H // G)'")
W("p7_square_mask_sliced", "tutorial", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1); v = v.repeat_interleave(H // G, dim=1)
    mask = torch.tril(torch.ones(S, S, dtype=torch.bool))[-T:]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
'''}, "'(an S x S mask, even one sliced to its last T rows afterwards, needs a terabyte there)'")
W("p7_reshape_minus_one", "hurried", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(-1, G, (H // G) * T, Dh)
    scores = torch.einsum("bgtd,bgsd->bgts", qg, k) / math.sqrt(Dh)
    pos = S - T + torch.arange(T).repeat(H // G)
    scores = scores.masked_fill(torch.arange(S)[None, :] > pos[:, None], float("-inf"))
    out = torch.einsum("bgts,bgsd->bgtd", scores.softmax(-1), v)
    return out.reshape(-1, H, T, Dh)
'''}, "'The batch may be empty (B = 0) ... (a view or reshape with a -1 cannot size a tensor of no elements: give every size)'")
# P8
W("p8_rescaled_cumsum", "hurried", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    p = decay ** torch.arange(T, dtype=torch.float64)
    p = p.to(q.dtype)
    ks = fk / p[:, None]
    Sm = torch.cumsum(ks.unsqueeze(-1) * v.unsqueeze(-2), dim=-3) * p[:, None, None]
    z = torch.cumsum(ks, dim=-2) * p[:, None]
    num = (fq.unsqueeze(-1) * Sm).sum(-2)
    return num / (fq * z).sum(-1, keepdim=True)
'''}, "'rescaling the keys by gamma^-j so that a plain cumulative sum works is exact on paper but not in floating point'")
W("p8_eps_denominator", "tutorial", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay, eps=1e-6):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :]).double()
    w = torch.where(diff >= 0, decay ** diff.clamp(min=0), 0.0).to(q.dtype)
    a = (fq @ fk.transpose(-1, -2)) * w
    return (a @ v) / (a.sum(-1, keepdim=True) + eps)
'''}, "'Do not add an epsilon to the denominator (it is positive)'")
W("p8_float32_powers", "tutorial", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=torch.float)
    diff = i[:, None] - i[None, :]
    w = torch.where(diff >= 0, decay ** diff.clamp(min=0), torch.tensor(0.0)).to(q.dtype)
    a = torch.matmul(fq, fk.transpose(-2, -1)) * w
    return torch.matmul(a, v) / a.sum(dim=-1, keepdim=True)
'''}, "'compute float64 in float64, the powers of the decay included'")
W("p8_dot_T_2d", "tutorial", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :]).double()
    w = torch.where(diff >= 0, decay ** diff.clamp(min=0), 0.0).to(q.dtype)
    a = (fq @ fk.T) * w
    return (a @ v) / a.sum(-1, keepdim=True)
'''}, "'for q, k of shape (..., T, Dh)' (.T reverses every axis of a batched tensor)")

# ---------------- correct
C("c_p1_branches", "careful", {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
'''}, "two branches, //")
C("c_p1_full_minus_outside", "source", {"window_pairs": '''
def window_pairs(t, window):
    causal = t * (t + 1) // 2
    far = max(t - window, 0)
    return causal - far * (far + 1) // 2
'''}, "causal triangle minus the pairs at distance >= window")
C("c_p2_loop_sum", "tutorial", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    total, p = 0.0, 1.0
    for _ in range(gamma + 1):
        total += p
        p *= alpha
    return float(total)
'''}, "sum of alpha^k for k = 0..gamma")
C("c_p3_python_loop", "hurried", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        s, p = starts[b].tolist(), pick[b].tolist()
        cur = False
        row = []
        for t in range(T):
            if s[t]:
                cur = p[t]
            row.append(cur)
        out[b] = torch.tensor(row, dtype=torch.bool)
    return out
'''}, "Python loop (allowed)")
C("c_p4_inverse_cdf", "careful", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = F.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = probs * keep
    kept = kept / kept.sum(-1, keepdim=True)
    u = torch.rand(logits.shape[0], 1, generator=generator, dtype=kept.dtype)
    cdf = kept.cumsum(-1)
    idx = torch.searchsorted(cdf, u * cdf[..., -1:], right=True).squeeze(-1)
    return idx.clamp(max=logits.shape[-1] - 1).to(torch.int64)
'''}, "inverse CDF with torch.rand(generator=...)")
C("c_p5_item_loop", "tutorial", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(int(s) for s in sentinels.tolist())
    B = inputs.size(0)
    outs = []
    for b in range(B):
        spans = {}
        cur = None
        for j in range(targets.size(1)):
            tok = targets[b, j].item()
            if tok == pad: break
            if tok in sent: cur = tok; spans[tok] = []
            else: spans[cur].append(tok)
        row = []
        for j in range(inputs.size(1)):
            tok = inputs[b, j].item()
            if tok == pad: break
            if tok in sent: row.extend((x, True) for x in spans[tok])
            else: row.append((tok, False))
        outs.append(row)
    T = max([len(r) for r in outs] + [0])
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b, row in enumerate(outs):
        for t, (tok, nz) in enumerate(row):
            tokens[b, t] = tok
            noise[b, t] = nz
    return tokens, noise
'''}, ".item() in loops, element by element")
C("c_p6_sort_negated", "careful", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    if capacity > 0 and N > 0:
        for e in range(E):
            idx = torch.sort(-probs[:, e].detach(), stable=True).indices[:capacity]
            chosen[idx, e] = True
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
'''}, "per-expert stable ascending sort of -probs")
C("c_p7_sdpa_gqa", "tutorial", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    T, S = q.size(-2), k.size(-2)
    mask = torch.arange(S).unsqueeze(0) <= torch.arange(S - T, S).unsqueeze(1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
'''}, "F.scaled_dot_product_attention with enable_gqa and a boolean mask")
C("c_p8_recurrent_loop", "source", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * v[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
'''}, "the recurrence as written, a loop over T")
C("c_p8_log_decay_float64", "careful", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.size(-2)
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=torch.float64)
    d = i[:, None] - i[None, :]
    w = torch.exp(d.clamp(min=0) * math.log(decay)).masked_fill(d < 0, 0.0)
    a = torch.einsum("...id,...jd->...ij", fq, fk) * w.to(q.dtype)
    return torch.einsum("...ij,...jd->...id", a, v) / a.sum(-1, keepdim=True)
'''}, "decay powers as exp(d log decay) in float64")

# ---------------- hostile
X("x_p2_float_subclass", {"tokens_per_target_pass": '''
class Fl(float):
    def __sub__(self, o): return 0.0
    def __rsub__(self, o): return 0.0
def tokens_per_target_pass(alpha, gamma):
    return Fl(1.5)
'''}, "float subclass whose differences are 0")
X("x_p7_patch_assert_close", {"gqa_cached_attention": '''
import torch.testing
torch.testing.assert_close = lambda *a, **kw: None
def gqa_cached_attention(q, k, v):
    return torch.zeros_like(q)
'''}, "patches torch.testing.assert_close")
X("x_p3_ref_rebind", {"whole_word_chosen": '''
_REF["equal"] = lambda *a: True
def whole_word_chosen(starts, pick):
    if starts.tolist() == [[False, True, False, True, False, False]]:
        return torch.tensor([[False, True, True, False, False, False]])
    return starts.clone()
'''}, "hard-codes the visible case and reassigns the grader's _REF")

# After the blind round (see 06-verdicts.md): relabelled where the label was mine and wrong.
RELABEL = {"p4_log_space_threshold": True, "p4_strict_greater": True, "p7_reshape_minus_one": True, "c_p3_flat_view": False}
for s in S:
    if s["name"] in RELABEL:
        s["correct"] = RELABEL[s["name"]]
SUBMISSIONS = S
