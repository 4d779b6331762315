# Round 26, chapter 06: skimmer (SK), squeeze-and-broadcast (SQ), stride-and-layout (ST), remainder-and-boundary (RB)
SUBMISSIONS = [
 # ---------------- Part 1 ----------------
 {"name": "W01-SK-window-float-triangle", "correct": False, "cells": {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) / 2
    return window * (window + 1) // 2 + (t - window) * window
'''}, "why": "SK: 'Return a Python int' / 'exactly: not through float'"},
 # ---------------- Part 2 ----------------
 {"name": "W02-SK-tokens-alpha-one-divides", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "why": "SK: '0 <= alpha <= 1 (both ends included)': alpha = 1 divides by zero"},
 {"name": "W03-SK-tokens-int-for-int-alpha", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    # one token for sure, then token i+1 needs the first i+1 drafts accepted
    return sum(alpha ** i for i in range(gamma + 1))
'''}, "why": "SK: 'Return a Python float, whatever the type of alpha (the tests pass 0 and 1 as ints too)'"},
 {"name": "W04-RB-tokens-alpha-one-branch-gamma", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma)          # every draft accepted
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "why": "RB: boundary alpha = 1 drops the target's own token: 'every round, whatever happens, also yields exactly one token from the target itself (... the free token when all gamma were accepted)'"},
 # ---------------- Part 3 ----------------
 {"name": "W05-RB-wholeword-last-word-dropped", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    chosen = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        idx = torch.nonzero(starts[b]).flatten().tolist()
        for s, e in zip(idx, idx[1:]):        # a word runs from its start to the next start
            if pick[b, s]:
                chosen[b, s:e] = True
    return chosen
'''}, "why": "RB: the last word of a row (up to the row's end) is never chosen: 'Every position belongs to the word begun by the nearest start at or before it'"},
 {"name": "W06-SQ-wholeword-isin-across-batch", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    word = starts.long().cumsum(dim=-1)          # word number of each position, 0 before the first start
    picked = word[starts & pick]                 # the numbers of the chosen words
    return torch.isin(word, picked) & (word > 0)
'''}, "why": "SQ: boolean indexing flattens the batch: word k chosen in one row chooses word k in every row ('Every position belongs to the word begun by the nearest start at or before it in the same row')"},
 {"name": "W07-ST-wholeword-flat-view", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, -1).cummax(dim=1).values          # start of the word, -1 before the first
    flat = (last.clamp(min=0) + torch.arange(B)[:, None] * T).view(-1)
    hit = (pick & starts).view(-1)[flat].view(B, T)
    return hit & (last >= 0)
'''}, "why": "ST: .view(-1) on pick/starts that are not contiguous raises (intro: 'A tensor you are given may be a view that is not contiguous ... .view fails')"},
 {"name": "W08-RB-wholeword-stack-rows", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    rows = []
    for s_row, p_row in zip(starts, pick):
        T = s_row.shape[0]
        last = torch.where(s_row, torch.arange(T), -1).cummax(dim=0).values
        got = (p_row & s_row)[last.clamp(min=0)] & (last >= 0)
        rows.append(got)
    return torch.stack(rows)
'''}, "why": "RB: empty batch: 'The batch may be empty (B = 0): then return a (0, T) tensor and raise nothing (torch.stack of an empty list raises)'"},
 # ---------------- Part 4 ----------------
 {"name": "W09-SQ-minp-squeeze-all", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    weights = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(weights, 1, generator=generator).squeeze()
'''}, "why": "SQ: squeeze() with no dim turns a batch of one into a 0-d tensor: 'Return the token ids as an int64 tensor of shape (B,)'"},
 {"name": "W10-SQ-minp-global-max", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max()
    weights = probs * keep
    return torch.multinomial(weights, 1, generator=generator)[:, 0]
'''}, "why": "SQ: max() with no dim takes the largest probability of the whole batch: 'min_p times the largest probability of that row'"},
 {"name": "W11-SK-minp-strict", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    weights = probs.masked_fill(probs < min_p * top, 0.0)
    weights = weights.masked_fill(probs == min_p * top, 0.0)   # only the ones above the cut
    return torch.multinomial(weights, 1, generator=generator).view(-1)
'''}, "why": "SK: 'keep token i of a row when its probability is at least min_p times the largest' (>= : a token exactly at the threshold, min_p = 1 keeps the ties)"},
 # ---------------- Part 5 ----------------
 {"name": "W12-SK-spans-dtype-of-inputs", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = set(sentinels.tolist())
    seqs, marks = [], []
    for b in range(B):
        spans, cur = {}, None
        for x in targets[b].tolist():
            if x == pad:
                continue
            if x in sent:
                cur = spans.setdefault(x, [])
            elif cur is not None:
                cur.append(x)
        seq, nz = [], []
        for x in inputs[b].tolist():
            if x == pad:
                continue
            if x in sent:
                seq += spans.get(x, []); nz += [True] * len(spans.get(x, []))
            else:
                seq.append(x); nz.append(False)
        seqs.append(seq); marks.append(nz)
    T = max([len(s) for s in seqs], default=0)
    tokens = torch.full((B, T), pad, dtype=inputs.dtype)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(seqs[b])] = torch.tensor(seqs[b], dtype=inputs.dtype)
        noise[b, :len(marks[b])] = torch.tensor(marks[b], dtype=torch.bool)
    return tokens, noise
'''}, "why": "SK: 'tokens (int64) holds the original sequences' (int32 inputs give int32 tokens)"},
 {"name": "W13-SK-spans-sentinels-in-list-order", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = sentinels.tolist()
    sset = set(sent)
    seqs, marks = [], []
    for b in range(B):
        tgt = [x for x in targets[b].tolist() if x != pad]
        # the k-th span uses sentinel k: it runs from sentinel k to sentinel k+1 in the target
        spans = []
        k = 0
        while sent[k] in tgt and k + 1 < len(sent) and sent[k + 1] in tgt:
            i, j = tgt.index(sent[k]), tgt.index(sent[k + 1])
            spans.append(tgt[i + 1:j])
            k += 1
        seq, nz, used = [], [], 0
        for x in inputs[b].tolist():
            if x == pad:
                continue
            if x in sset:
                seq += spans[used]; nz += [True] * len(spans[used]); used += 1
            else:
                seq.append(x); nz.append(False)
        seqs.append(seq); marks.append(nz)
    T = max([len(s) for s in seqs], default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(seqs[b])] = torch.tensor(seqs[b], dtype=torch.int64)
        noise[b, :len(marks[b])] = torch.tensor(marks[b], dtype=torch.bool)
    return tokens, noise
'''}, "why": "SK: 'They need not be consecutive numbers, and a row may use any of them (each at most once in its input, for example after a data loader shuffled or shared them)'"},
 {"name": "W14-RB-spans-max-empty", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = set(sentinels.tolist())
    seqs, marks = [], []
    for b in range(B):
        spans, cur = {}, None
        for x in targets[b].tolist():
            if x == pad:
                continue
            if x in sent:
                cur = spans.setdefault(x, [])
            elif cur is not None:
                cur.append(x)
        seq, nz = [], []
        for x in inputs[b].tolist():
            if x == pad:
                continue
            if x in sent:
                seq += spans.get(x, []); nz += [True] * len(spans.get(x, []))
            else:
                seq.append(x); nz.append(False)
        seqs.append(seq); marks.append(nz)
    T = max(len(s) for s in seqs)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(seqs[b])] = torch.tensor(seqs[b], dtype=torch.int64)
        noise[b, :len(marks[b])] = torch.tensor(marks[b], dtype=torch.bool)
    return tokens, noise
'''}, "why": "RB: empty batch: 'the batch may be empty, B = 0: then T = 0, two (0, 0) tensors, and nothing raised; Python's max of an empty sequence raises'"},
 {"name": "W15-ST-spans-nothing-hidden-returns-input", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    is_sent = torch.isin(inputs, sentinels)
    if not bool(is_sent.any()):
        # nothing was hidden: the inputs are the sequences already
        keep = int((inputs != pad).sum(dim=1).max()) if B else 0
        return inputs[:, :keep].to(torch.int64), torch.zeros(B, keep, dtype=torch.bool)
    sent = set(sentinels.tolist())
    seqs, marks = [], []
    for b in range(B):
        spans, cur = {}, None
        for x in targets[b].tolist():
            if x == pad:
                continue
            if x in sent:
                cur = spans.setdefault(x, [])
            elif cur is not None:
                cur.append(x)
        seq, nz = [], []
        for x in inputs[b].tolist():
            if x == pad:
                continue
            if x in sent:
                seq += spans.get(x, []); nz += [True] * len(spans.get(x, []))
            else:
                seq.append(x); nz.append(False)
        seqs.append(seq); marks.append(nz)
    T = max([len(s) for s in seqs], default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(seqs[b])] = torch.tensor(seqs[b], dtype=torch.int64)
        noise[b, :len(marks[b])] = torch.tensor(marks[b], dtype=torch.bool)
    return tokens, noise
'''}, "why": "ST: a slice of int64 inputs .to(int64) is a view of the input: 'return new tensors, also where nothing was hidden ..., never an input itself or a view of one'"},
 # ---------------- Part 6 ----------------
 {"name": "W16-SK-expert-topk-ties", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    idx = torch.topk(probs, k, dim=0).indices              # (k, E)
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''}, "why": "SK: 'among tokens with equal probabilities the lower token index goes first' (topk does not promise it)"},
 {"name": "W17-SK-expert-gate-float32", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits.float(), dim=-1)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    gate = probs * chosen
    return chosen, gate
'''}, "why": "SK: 'gate ... in the dtype of router_logits (float16 and bfloat16 included) and within 1e-10 ... for float64 logits (so compute float64 in float64)'"},
 {"name": "W18-RB-expert-capacity-zero-shortcut", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    if capacity == 0:
        return torch.zeros(N, E, dtype=torch.bool), torch.zeros(N, E, dtype=router_logits.dtype)
    probs = torch.softmax(router_logits, dim=-1)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "RB: capacity 0 shortcut cuts the graph: 'gradients must flow through gate (for every capacity, 0 included)'"},
 {"name": "W19-ST-expert-inplace-on-softmax", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    gate = probs.masked_fill_(~chosen, 0.0)      # reuse the softmax's memory
    return chosen, gate
'''}, "why": "ST: writes into softmax's output, which its backward saved: 'gradients must flow through gate ... compute it with autograd-tracked operations'"},
 # ---------------- Part 7 ----------------
 {"name": "W20-SQ-gqa-unsqueeze-wrong-axis", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(dt).reshape(B, H // G, G, T, Dh)            # heads grouped
    kg, vg = k.to(dt).unsqueeze(1), v.to(dt).unsqueeze(1)  # (B, 1, G, S, Dh)
    scores = qg @ kg.transpose(-1, -2) / math.sqrt(Dh)
    pos = torch.arange(S)
    allowed = pos[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ vg
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''}, "why": "SQ: unsqueeze at the wrong axis maps head h to group h % G: 'query head h uses key/value head h // (H // G)'"},
 {"name": "W21-ST-gqa-view", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.view(B, G, r * T, Dh).to(dt)
    scores = qg @ k.to(dt).transpose(-1, -2) / math.sqrt(Dh)      # (B, G, r*T, S)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.view(B, G, r, T, S).masked_fill(~allowed, float("-inf")).view(B, G, r * T, S)
    out = torch.softmax(scores, dim=-1) @ v.to(dt)
    return out.view(B, H, T, Dh).to(q.dtype)
'''}, "why": "ST: .view on a q that is not contiguous (the lessons' split_heads makes one) raises: intro 'A tensor you are given may be a view that is not contiguous'"},
 {"name": "W22-SK-gqa-scores-in-half", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    ke = k.repeat_interleave(r, dim=1)
    ve = v.repeat_interleave(r, dim=1)
    scores = (q @ ke.transpose(-1, -2)) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ ve
'''}, "why": "SK: 'their dot products can pass 65504 ... where scores computed in float16 overflow: compute them in float32 and round once at the end'"},
 {"name": "W23-RB-gqa-minus-one-size", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(dt).reshape(B, G, -1, Dh)                    # the r heads of a group, stacked over T
    scores = qg @ k.to(dt).transpose(-1, -2) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.reshape(B, G, -1, T, S).masked_fill(~allowed, float("-inf")).reshape(B, G, -1, S)
    out = torch.softmax(scores, dim=-1) @ v.to(dt)
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''}, "why": "RB: empty batch: 'a view or reshape that gives the size 0 beside a -1, such as (B, G, -1, Dh), cannot size a tensor of no elements: give every size'"},
 # ---------------- Part 8 ----------------
 {"name": "W24-ST-decay-dot-T", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    T = q.shape[-2]
    fq, fk = F.elu(q.to(dt)) + 1, F.elu(k.to(dt)) + 1
    sim = fq @ fk.T
    i = torch.arange(T)
    gap = i[:, None] - i[None, :]
    w = torch.where(gap >= 0, decay ** gap.clamp(min=0).to(torch.float64), 0.0).to(dt)
    a = sim * w
    return (a @ v.to(dt) / a.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "why": "ST: .T on more than two dimensions reverses every axis: 'q, k of shape (..., T, Dh)'"},
 {"name": "W25-RB-decay-future-powers", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    T = q.shape[-2]
    fq, fk = F.elu(q.to(dt)) + 1, F.elu(k.to(dt)) + 1
    i = torch.arange(T, dtype=torch.float64)
    powers = (decay ** (i[:, None] - i[None, :])).tril().to(dt)    # future keys cut off
    a = (fq @ fk.transpose(-1, -2)) * powers
    return (a @ v.to(dt) / a.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "why": "RB: powers made for future keys overflow: 'hiding it afterwards (with tril ...) leaves the value right but makes the gradient NaN ..., so raise the decay to the gaps of past keys only'"},
 {"name": "W26-SK-decay-tensor-in-q-dtype", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(dt)) + 1, F.elu(k.to(dt)) + 1
    g = torch.tensor(decay, dtype=q.dtype)
    i = torch.arange(T)
    gap = (i[:, None] - i[None, :]).clamp(min=0)
    w = torch.where(i[:, None] >= i[None, :], g.to(dt) ** gap, torch.zeros((), dtype=dt))
    a = (fq @ fk.transpose(-1, -2)) * w
    return (a @ v.to(dt) / a.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "why": "SK: 'the decay too: not a tensor in the dtype of q, where 0.99 becomes 0.98828125 in bfloat16'"},
 {"name": "W27-SQ-decay-denominator-sum-all", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    T = q.shape[-2]
    fq, fk = F.elu(q.to(dt)) + 1, F.elu(k.to(dt)) + 1
    i = torch.arange(T)
    gap = i[:, None] - i[None, :]
    w = torch.where(gap >= 0, decay ** gap.clamp(min=0).to(torch.float64), 0.0).to(dt)
    a = (fq @ fk.transpose(-1, -2)) * w                # (..., T, T)
    num = a @ v.to(dt)                                 # (..., T, Dv)
    den = a.sum(dim=-1)                                # (..., T)
    return (num / den.unsqueeze(-1 if num.dim() == 2 else 1)).to(q.dtype)
'''}, "why": "SQ: unsqueeze at the wrong axis for batched inputs (dim 1 instead of -1): (B,T) -> (B,1,T) against (B,T,Dv)"},
 # ---------------- correct ----------------
 {"name": "C01-window-min", "correct": True, "cells": {"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return m * (m + 1) // 2 + (t - m) * window
'''}, "why": "ramp then full windows"},
 {"name": "C02-tokens-loop-float", "correct": True, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    total, p = 0.0, 1.0
    for _ in range(gamma + 1):
        total += p
        p *= a
    return total
'''}, "why": "geometric sum by loop, float"},
 {"name": "C03-wholeword-cummax-gather", "correct": True, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=-1).values
    at_start = pick & starts
    return at_start.gather(-1, last.clamp(min=0)) & last.ge(0)
'''}, "why": "start index by cummax"},
 {"name": "C04-wholeword-wordid-scatter", "correct": True, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    wid = starts.to(torch.int64).cumsum(dim=1)                  # 0 before the first word
    table = torch.zeros(B, T + 1, dtype=torch.bool)
    table.scatter_(1, torch.where(starts, wid, 0), pick & starts)  # only starts write a True
    return table.gather(1, wid) & (wid > 0)
'''}, "why": "word numbers and a per-row table"},
 {"name": "C05-minp-where-float64", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = F.softmax(logits, dim=-1)
    best = probs.amax(dim=-1, keepdim=True)
    keep = probs >= best * min_p
    w = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))
    w = w / w.sum(dim=-1, keepdim=True)
    return torch.multinomial(w, num_samples=1, generator=generator).reshape(-1)
'''}, "why": "F.softmax, explicit renormalisation, reshape"},
 {"name": "C06-minp-inverse-cdf", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs)).to(torch.float64)
    cdf = w.cumsum(dim=-1)
    u = torch.rand(B, 1, generator=generator, dtype=torch.float64) * cdf[:, -1:]
    idx = torch.searchsorted(cdf, u, right=True).squeeze(-1)
    # never past the last kept token (rounding at the top end)
    last_kept = (V - 1) - keep.flip(-1).to(torch.int64).argmax(dim=-1)
    return torch.minimum(idx, last_kept)
'''}, "why": "inverse CDF with one uniform per row from the generator; zero-weight tokens never hit (right=True)"},
 {"name": "C07-spans-dict-walk", "correct": True, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sentinel_ids = set(sentinels.tolist())
    rows = []
    for b in range(B):
        spans = {}
        current = None
        for tok in targets[b].tolist():
            if tok == pad:
                break
            if tok in sentinel_ids:
                current = tok
                spans[current] = []
            else:
                spans[current].append(tok)
        row = []
        for tok in inputs[b].tolist():
            if tok == pad:
                break
            if tok in sentinel_ids:
                row.extend((t, True) for t in spans[tok])
            else:
                row.append((tok, False))
        rows.append(row)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, row in enumerate(rows):
        for i, (tok, hidden) in enumerate(row):
            tokens[b, i] = tok
            noise[b, i] = hidden
    return tokens, noise
'''}, "why": "dict of spans, stop at the first pad (right-padded)"},
 {"name": "C08-expert-stable-sort", "correct": True, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.argsort(probs.T, dim=-1, descending=True, stable=True)[:, :capacity]   # (E, k)
    chosen_t = torch.zeros(E, N, dtype=torch.bool)
    chosen_t.scatter_(1, order, True)
    chosen = chosen_t.T.contiguous()
    gate = probs * chosen
    return chosen, gate
'''}, "why": "per-expert rows, stable argsort, transpose back"},
 {"name": "C09-gqa-fold-groups", "correct": True, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(dt).reshape(B, G, r * T, Dh)
    scores = torch.matmul(qg, k.to(dt).transpose(-1, -2)) * (1.0 / math.sqrt(Dh))
    scores = scores.reshape(B, G, r, T, S)
    allowed = torch.arange(S).unsqueeze(0) <= (torch.arange(T) + (S - T)).unsqueeze(1)
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)
    out = torch.matmul(weights, v.to(dt))
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''}, "why": "fold the r heads of a group into the query axis"},
 {"name": "C10-decay-where-gaps", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    T = q.shape[-2]
    fq = F.elu(q.to(dt)) + 1
    fk = F.elu(k.to(dt)) + 1
    idx = torch.arange(T)
    gap = idx.view(-1, 1) - idx.view(1, -1)
    past = gap >= 0
    powers = torch.where(past, torch.full((T, T), float(decay), dtype=torch.float64) ** gap.clamp(min=0), 0.0).to(dt)
    a = torch.einsum("...id,...jd->...ij", fq, fk) * powers
    return (torch.einsum("...ij,...jv->...iv", a, v.to(dt)) / a.sum(-1, keepdim=True)).to(q.dtype)
'''}, "why": "einsum, powers of past gaps only"},
 {"name": "C11-decay-recurrent", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq = F.elu(q.to(dt)) + 1
    fk = F.elu(k.to(dt)) + 1
    vv = v.to(dt)
    T = q.shape[-2]
    S = torch.zeros(*fk.shape[:-2], fk.shape[-1], vv.shape[-1], dtype=dt)
    z = torch.zeros(*fk.shape[:-2], fk.shape[-1], dtype=dt)
    outs = []
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * vv[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    if T == 0:
        return torch.zeros(*v.shape, dtype=q.dtype)
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "why": "the recurrence itself, float32/float64 state"},
 # ---------------- hostile ----------------
 {"name": "H01-window-int-subclass", "correct": False, "cells": {"window_pairs": '''
class Pairs(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def window_pairs(t, window):
    return Pairs(0)
'''}, "why": "hostile: int subclass equal to everything"},
 {"name": "H02-tokens-float-subclass", "correct": False, "cells": {"tokens_per_target_pass": '''
class Tokens(float):
    def __sub__(self, other):
        return 0.0
    __rsub__ = __sub__
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__
def tokens_per_target_pass(alpha, gamma):
    return Tokens(1.0)
'''}, "why": "hostile: float subclass whose differences are 0"},
]
