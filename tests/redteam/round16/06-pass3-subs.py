BASE = {}
BASE["window_pairs"] = '''
def window_pairs(t, window):
    k = min(t, window)
    return k * (k + 1) // 2 + (t - k) * window
'''
BASE["tokens_per_target_pass"] = '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    return float((1 - alpha ** (gamma + 1)) / (1 - alpha))
'''
BASE["whole_word_chosen"] = '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    inside = last >= 0
    chosen = torch.gather(pick, 1, last.clamp(min=0)) & inside
    return chosen.clone()
'''
BASE["min_p_sample"] = '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''
BASE["span_corrupt"] = '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = sentinels.long()
    rows, noises = [], []
    for b in range(B):
        inp = inputs[b].long()
        inp = inp[inp != pad]
        tgt = targets[b].long()
        tgt = tgt[tgt != pad]
        s_in = torch.isin(inp, sent)
        s_tg = torch.isin(tgt, sent).nonzero().flatten().tolist()
        spans = [tgt[s_tg[i] + 1:s_tg[i + 1]] for i in range(len(s_tg) - 1)]
        pieces, noise, k, start = [], [], 0, 0
        idx = s_in.nonzero().flatten().tolist()
        for i in idx:
            pieces.append(inp[start:i]); noise.append(torch.zeros(i - start, dtype=torch.bool))
            pieces.append(spans[k]); noise.append(torch.ones(len(spans[k]), dtype=torch.bool))
            k += 1
            start = i + 1
        pieces.append(inp[start:]); noise.append(torch.zeros(len(inp) - start, dtype=torch.bool))
        rows.append(torch.cat(pieces)); noises.append(torch.cat(noise))
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(rows[b])] = rows[b]
        noise[b, :len(rows[b])] = noises[b]
    return tokens, noise
'''
BASE["expert_choice"] = '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = torch.softmax(router_logits, dim=-1)
    k = min(capacity, N)
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''
BASE["gqa_cached_attention"] = '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    k = k.repeat_interleave(r, dim=1)
    v = v.repeat_interleave(r, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
'''
BASE["decayed_linear_attention"] = '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    q, k, v = q.to(work), k.to(work), v.to(work)
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=work)
    diff = i[:, None] - i[None, :]
    causal = diff >= 0
    w = torch.where(causal, decay ** diff.clamp(min=0), torch.zeros((), dtype=work))
    a = (fq @ fk.transpose(-1, -2)) * w
    return ((a @ v) / a.sum(-1, keepdim=True)).to(dt)
'''
SUBMISSIONS = []
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
C("p3-porter-p3-tolist-loop", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    rows = []
    for s_row, p_row in zip(starts.tolist(), pick.tolist()):
        cur, row = False, []
        for s, p in zip(s_row, p_row):
            if s:
                cur = p
            row.append(cur)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool).reshape(B, T)
'''}, "a Python loop over positions on lists ('A Python loop is allowed'); reshape gives (0, T) for B = 0.")
C("p3-porter-p3-element-loop", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        cur = False
        for t in range(T):
            if starts[b, t]:
                cur = bool(pick[b, t])
            out[b, t] = cur
    return out
'''}, "probe: a Python loop over positions with tensor indexing ('A Python loop is allowed'); slow on rows of tens of thousands.")
C("p3-api-p6-per-expert-loop", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e in range(E):
        idx = torch.sort(probs[:, e], descending=True, stable=True).indices[:capacity]
        chosen[idx, e] = True
    return chosen, probs * chosen
'''}, "a loop over experts, stable sort per column; probs * mask keeps dtype and gradient.")
