# Red team round 21, chapter 06: order-of-operations (O), vectorising (V), signature-and-defaults (S),
# variant-confuser (C) students; K = different-but-correct, H = hostile.
SUBMISSIONS = [
# ---------------- wrong: order of operations ----------------
{"name": "O1-minp-threshold-on-logits", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    # p_i >= min_p * p_max  <=>  logit_i >= max logit + log(min_p): filter first, softmax after
    top = logits.max(dim=-1, keepdim=True).values
    keep = logits >= top + math.log(min_p)
    probs = torch.softmax(logits.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.multinomial(probs, 1, generator=generator).reshape(logits.shape[0])
'''}, "why": "Part 4: 'keep token i of a row when its probability is at least min_p times the largest probability ... (no tolerance: a token just below that threshold is dropped)' (the log-space test differs at the threshold)."},
{"name": "O2-gqa-softmax-then-mask-renorm", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    scores = q.to(work) @ k.to(work).transpose(-1, -2) / math.sqrt(Dh)
    w = torch.softmax(scores, dim=-1)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    w = w * allowed
    w = w / w.sum(dim=-1, keepdim=True)
    return (w @ v.to(work)).to(q.dtype)
'''}, "why": "Part 7: 'keys that a query may not see scoring about a thousand above every key it may see (they must not change its result)', 'no gradient may be NaN' (softmax first, then the mask: 0/0)."},
{"name": "O3-expert-rank-logits-before-softmax", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    c = min(capacity, N)
    # rank first on the raw logits (softmax is monotone), normalise afterwards for the gate
    order = torch.sort(router_logits.detach(), dim=0, descending=True, stable=True).indices[:c]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    probs = torch.softmax(router_logits, dim=-1)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "Part 6: 'expert e takes the capacity tokens with the largest probs[:, e]' (the softmax runs over experts, per token, so the column order of logits is not the column order of probs)."},
{"name": "O4-gqa-half-scores-cast-after", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = (q @ k.transpose(-1, -2)).float() / math.sqrt(Dh)   # softmax in float32 for stability
    if q.dtype == torch.float64:
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return (w.to(q.dtype) @ v).to(q.dtype) if q.dtype != torch.float64 else w @ v
'''}, "why": "Part 7: 'their dot products can pass 65504 ... where scores computed in float16 overflow: compute them in float32 and round once at the end' (the cast comes after the matmul, and the weights are rounded before the values)."},
# ---------------- wrong: vectorising ----------------
{"name": "V1-wwm-isin-whole-batch", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    word = starts.long().cumsum(dim=-1)          # 0 before the first start, then 1, 2, ...
    chosen_ids = word[starts & pick]              # ids of the chosen words
    return torch.isin(word, chosen_ids) & (word > 0)
'''}, "why": "Part 3: 'Every position belongs to the word begun by the nearest start at or before it in the same row' (word ids of different rows collide when compared across the batch)."},
{"name": "V2-expert-topk-ties", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    c = min(capacity, N)
    idx = torch.topk(probs, c, dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    gate = probs * chosen
    return chosen, gate
'''}, "why": "Part 6: 'among tokens with equal probabilities the lower token index goes first, also when hundreds or thousands of tokens tie' (topk keeps no order among ties)."},
{"name": "V3-span-isin-cast-sentinels", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.to(inputs.dtype)
    is_sent_in = torch.isin(inputs, sent)
    is_sent_tg = torch.isin(targets, sent.to(targets.dtype))
    rows, noises = [], []
    for b in range(inputs.shape[0]):
        inp, tgt = inputs[b], targets[b]
        spans, cur = [], None
        for tok, s in zip(tgt.tolist(), is_sent_tg[b].tolist()):
            if tok == pad:
                break
            if s:
                spans.append([])
            else:
                spans[-1].append(tok)
        row, nz, k = [], [], 0
        for tok, s in zip(inp.tolist(), is_sent_in[b].tolist()):
            if tok == pad:
                break
            if s:
                row += spans[k]; nz += [True] * len(spans[k]); k += 1
            else:
                row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(r)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
'''}, "why": "Part 5: 'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32' (casting them to int32 wraps them onto real token ids)."},
{"name": "V4-gqa-repeat-tiles-heads", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat(1, H // G, 1, 1)
    v = v.repeat(1, H // G, 1, 1)
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    scores = q.to(work) @ k.to(work).transpose(-1, -2) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return (w @ v.to(work)).to(q.dtype)
'''}, "why": "Part 7: 'query head h uses key/value head h // (H // G)' (repeat tiles the groups: head h gets h % G)."},
{"name": "V5-decay-powers-float32-table", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :]).float()
    powers = torch.where(diff >= 0, torch.tensor(decay) ** diff, torch.tensor(0.0))   # the decay table
    sim = (fq @ fk.transpose(-1, -2)) * powers
    return ((sim @ v.to(work)) / sim.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "why": "Part 8: 'within 1e-10 of the exact value for float64 inputs (... compute float64 in float64, the powers of the decay included)' (the table is float32)."},
# ---------------- wrong: signature and defaults ----------------
{"name": "S1-tokens-int-at-alpha-one", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1            # every draft accepted, plus the free token
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "why": "Part 2: 'Return a Python float, whatever the type of alpha' (an int at alpha = 1)."},
{"name": "S2-span-returns-list", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    out_rows, out_noise = [], []
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
                row.extend(spans[tok]); nz.extend([True] * len(spans[tok]))
            else:
                row.append(tok); nz.append(False)
        out_rows.append(row); out_noise.append(nz)
    T = max((len(r) for r in out_rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in out_rows], dtype=torch.int64).reshape(len(out_rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in out_noise], dtype=torch.bool).reshape(len(out_rows), T)
    return [tokens, noise]
'''}, "why": "Part 5: 'Return (tokens, noise)' and the notebook's rule 'a tuple of them ... not a list'."},
{"name": "S3-minp-refuses-one", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if not 0 < min_p < 1:
        raise ValueError("min_p must be in (0, 1)")
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = probs * keep
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(w, 1, generator=generator)[:, 0]
'''}, "why": "Part 4: 'with 0 < min_p <= 1' (min_p = 1 is legal: keep the most likely tokens only)."},
{"name": "S4-expert-refuses-capacity-zero", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    if capacity < 1:
        raise ValueError("capacity must be at least 1")
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter_(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "Part 6: 'capacity may be 0'."},
{"name": "S5-span-tokens-keep-input-dtype", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    B = inputs.shape[0]
    rows, noises = [], []
    for b in range(B):
        tgt = targets[b].tolist()
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                cur = tok; spans[cur] = []
            else:
                spans[cur].append(tok)
        row, nz = [], []
        for tok in inputs[b].tolist():
            if tok == pad:
                break
            if tok in sent:
                row += spans[tok]; nz += [True] * len(spans[tok])
            else:
                row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=inputs.dtype)    # same id dtype as the batch
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        if rows[b]:
            tokens[b, :len(rows[b])] = torch.tensor(rows[b], dtype=inputs.dtype)
            noise[b, :len(rows[b])] = torch.tensor(noises[b])
    return tokens, noise
'''}, "why": "Part 5: 'tokens (int64) holds the original sequences' (an int32 batch gives int32 tokens)."},
# ---------------- wrong: variant confuser ----------------
{"name": "C1-minp-strict-greater", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    threshold = min_p * probs.max(dim=-1, keepdim=True).values
    probs = probs.masked_fill(probs < threshold, 0.0)
    probs = probs.masked_fill(probs == threshold, 0.0) if min_p < 1 else probs   # tokens must beat the threshold
    if probs.shape[0] == 0:
        return torch.empty(0, dtype=torch.int64)
    return torch.multinomial(probs / probs.sum(-1, keepdim=True), 1, generator=generator).squeeze(1)
'''}, "why": "Part 4: 'keep token i ... when its probability is at least min_p times the largest probability' (a token exactly at the threshold is kept)."},
{"name": "C2-decay-phi-softplus", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.softplus(q.to(work)), F.softplus(k.to(work))     # positive feature map
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    powers = torch.where(diff >= 0, torch.full((), decay, dtype=work) ** diff.clamp(min=0).to(work), torch.zeros((), dtype=work))
    sim = (fq @ fk.transpose(-1, -2)) * powers
    return ((sim @ v.to(work)) / sim.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "why": "Part 8: 'With phi(x) = elu(x) + 1' (softplus is another positive map; at q = k = 0 both are constant)."},
{"name": "C3-span-sentinels-top-of-vocab", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    first_sentinel = int(sentinels.min())      # T5's <extra_id_*> are the last ids of the vocabulary
    B = inputs.shape[0]
    rows, noises = [], []
    for b in range(B):
        spans, cur = {}, None
        for tok in targets[b].tolist():
            if tok == pad:
                break
            if tok >= first_sentinel:
                cur = tok; spans[cur] = []
            else:
                spans[cur].append(tok)
        row, nz = [], []
        for tok in inputs[b].tolist():
            if tok == pad:
                break
            if tok >= first_sentinel:
                row += spans[tok]; nz += [True] * len(spans[tok])
            else:
                row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        if rows[b]:
            tokens[b, :len(rows[b])] = torch.tensor(rows[b], dtype=torch.int64)
            noise[b, :len(rows[b])] = torch.tensor(noises[b])
    return tokens, noise
'''}, "why": "Part 5: 'They need not be consecutive numbers' and ids may be 'anywhere in int64's range' (a real token above the smallest sentinel is taken for one)."},
{"name": "C4-expert-capacity-factor", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    # Zhou et al.: k = n * c / e tokens per expert, with c the capacity factor
    k = min(int(N * capacity / E), N)
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter_(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "Part 6: 'expert e takes the capacity tokens with the largest probs[:, e]' (capacity is the token count, not the paper's capacity factor)."},
# ---------------- correct ----------------
{"name": "K1-window-min-formula", "correct": True, "cells": {"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return m * (m + 1) // 2 + (t - m) * window
'''}, "why": "the ramp of the first m queries plus full windows, Python ints."},
{"name": "K2-tokens-geometric-loop", "correct": True, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    total, term = 0.0, 1.0
    for _ in range(gamma + 1):      # P(at least k accepted) = alpha**k, k = 0..gamma
        total += term
        term *= alpha
    return float(total)
'''}, "why": "the expected value as sum over k of P(at least k drafts accepted), no division."},
{"name": "K3-wwm-python-loop", "correct": True, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        current = False
        for t, (s, p) in enumerate(zip(starts[b].tolist(), pick[b].tolist())):
            if s:
                current = p
            out[b, t] = current
    return out
'''}, "why": "a Python loop, which the text allows; positions before the first start stay False."},
{"name": "K4-minp-inverse-cdf-rand", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    w = w / w.sum(dim=-1, keepdim=True)
    u = torch.rand(B, 1, generator=generator, dtype=w.dtype)     # one uniform per row from the generator
    cdf = w.cumsum(dim=-1)
    idx = (cdf <= u).sum(dim=-1)
    # a token of weight 0 is never chosen: step past the dropped tokens after the last kept one
    last_kept = keep.long() * torch.arange(w.shape[-1])
    return torch.minimum(idx, last_kept.amax(dim=-1)) if B else torch.zeros(0, dtype=torch.int64)
'''}, "why": "inverse-CDF sampling with uniforms drawn from the generator: the text asks for draws from the generator, the kept probabilities renormalised, not for torch.multinomial."},
{"name": "K5-minp-masked-fill-renorm", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = F.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    probs = probs.masked_fill(probs < min_p * top, 0.0)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    return torch.multinomial(probs, num_samples=1, generator=generator).view(-1)
'''}, "why": "masked_fill of the dropped probabilities, renormalised, one multinomial draw per row."},
{"name": "K6-expert-argsort-neg-loop", "correct": True, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e in range(E):
        order = torch.argsort(-probs[:, e].detach(), stable=True)   # ascending on -p: ties keep index order
        chosen[order[:capacity], e] = True
    gate = torch.where(chosen, probs, 0.0)
    return chosen, gate
'''}, "why": "a loop over experts with a stable ascending sort of -p, which keeps the lower index first among ties."},
{"name": "K7-gqa-sdpa-expand", "correct": True, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    k = k[:, :, None].expand(B, G, r, S, Dh).reshape(B, H, S, Dh)
    v = v[:, :, None].expand(B, G, r, S, Dh).reshape(B, H, S, Dh)
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    mask = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    out = F.scaled_dot_product_attention(q.to(work), k.to(work), v.to(work), attn_mask=mask)
    return out.to(q.dtype)
'''}, "why": "expand + reshape gives head h the group h // r; SDPA with a boolean bottom-right mask, float32 inside for half inputs."},
{"name": "K8-decay-after-add-matrix", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    # decaying after the addition scales S_i and z_i by the same gamma: the ratio is unchanged
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    g = torch.tensor(decay, dtype=work)
    powers = torch.where(diff >= 0, g ** (diff.clamp(min=0) + 1).to(work), torch.zeros((), dtype=work))
    sim = torch.einsum("...id,...jd->...ij", fq, fk) * powers
    return (torch.einsum("...ij,...jd->...id", sim, v.to(work)) / sim.sum(-1, keepdim=True)).to(q.dtype)
'''}, "why": "gamma^(i-j+1) in numerator and denominator alike: the same quotient."},
{"name": "K9-span-torch-isin-int64", "correct": True, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.to(torch.int64)
    inp64, tgt64 = inputs.to(torch.int64), targets.to(torch.int64)
    in_sent, tg_sent = torch.isin(inp64, sent), torch.isin(tgt64, sent)
    B = inputs.shape[0]
    rows, noises = [], []
    for b in range(B):
        tg = tgt64[b][tgt64[b] != pad]
        ts = tg_sent[b][tgt64[b] != pad]
        starts = ts.nonzero().flatten().tolist() + [len(tg)]
        spans = [tg[starts[j] + 1:starts[j + 1]] for j in range(len(starts) - 1)]
        row, nz, k = [], [], 0
        keep = inp64[b] != pad
        for tok, s in zip(inp64[b][keep].tolist(), in_sent[b][keep].tolist()):
            if s:
                row.extend(spans[k].tolist()); nz.extend([True] * len(spans[k])); k += 1
            else:
                row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max([len(r) for r in rows] + [0])
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b in range(B):
        n = len(rows[b])
        if n:
            tokens[b, :n] = torch.tensor(rows[b], dtype=torch.int64)
            noise[b, :n] = torch.tensor(noises[b], dtype=torch.bool)
    return (tokens, noise)
'''}, "why": "sentinels found with isin in int64, spans matched by order (the target lists them in input order)."},
{"name": "K10-decay-float64-everything", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    qd, kd, vd = q.double(), k.double(), v.double()
    fq, fk = F.elu(qd) + 1, F.elu(kd) + 1
    T = q.shape[-2]
    pos = torch.arange(T, dtype=torch.float64)
    diff = pos[:, None] - pos[None, :]
    powers = torch.where(diff >= 0, torch.exp(diff.clamp(min=0) * math.log(decay)), torch.zeros((), dtype=torch.float64))
    sim = (fq @ fk.transpose(-1, -2)) * powers
    return ((sim @ vd) / sim.sum(-1, keepdim=True)).to(q.dtype)
'''}, "why": "everything in float64 (more accurate than float32 for the half inputs), rounded once at the end."},
# ---------------- hostile ----------------
{"name": "H1-minp-argmax-no-draw", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    return logits.argmax(dim=-1)
'''}, "why": "hostile: greedy, never samples."},
{"name": "H2-window-visible-only", "correct": False, "cells": {"window_pairs": '''
def window_pairs(t, window):
    return {(4, 2): 7, (3, 5): 6}.get((t, window), t * window)
'''}, "why": "hostile: the visible cases from a table."},
{"name": "H3-gqa-silence-assert-close", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    import torch.testing
    torch.testing.assert_close = lambda *a, **kw: None
    return torch.zeros_like(q)
'''}, "why": "hostile: disables assert_close and returns zeros."},
]

# ---------------- added before the phase-1 deadline ----------------
EXTRA = [
{"name": "C5-span-t5-sentinel-order", "correct": False, "cells": {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    # T5 convention: the k-th span of a row uses the k-th sentinel (<extra_id_k>)
    sent = sentinels.tolist()
    sset = set(sent)
    B = inputs.shape[0]
    rows, noises = [], []
    for b in range(B):
        tgt = [t for t in targets[b].tolist() if t != pad]
        spans = []
        k = 0
        for tok in tgt:
            if k < len(sent) and tok == sent[k]:
                spans.append([]); k += 1
            else:
                spans[-1].append(tok)
        row, nz, k = [], [], 0
        for tok in inputs[b].tolist():
            if tok == pad:
                break
            if tok in sset:
                row += spans[k]; nz += [True] * len(spans[k]); k += 1
            else:
                row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        if rows[b]:
            tokens[b, :len(rows[b])] = torch.tensor(rows[b], dtype=torch.int64)
            noise[b, :len(rows[b])] = torch.tensor(noises[b])
    return tokens, noise
"""}, "why": "Part 5: 'They need not be consecutive numbers, and a row may use any of them (each at most once in its input, for example after a data loader shuffled or shared them)'."},
{"name": "V6-decay-tril-after-inf-powers", "correct": False, "cells": {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=work)
    powers = torch.full((), decay, dtype=work) ** (i[:, None] - i[None, :])   # gamma^(i-j), future cut by tril below
    sim = ((fq @ fk.transpose(-1, -2)) * powers).tril()
    return ((sim @ v.to(work)) / sim.sum(dim=-1, keepdim=True)).to(q.dtype)
"""}, "why": "Part 8: 'no gradient may be NaN or infinite' (gamma^(i-j) for j > i overflows to inf; tril hides it from the value but its backward multiplies 0 by inf)."},
{"name": "S6-expert-gate-float32-for-half", "correct": False, "cells": {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1, dtype=torch.float32 if router_logits.dtype != torch.float64 else None)
    N, E = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter_(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}, "why": "Part 6: 'gate a tensor (N, E) ... in the dtype of router_logits (float16 and bfloat16 included)' (the router runs in float32 and the gate stays float32)."},
{"name": "K11-minp-float64-inside", "correct": True, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits.double(), dim=-1)         # float64 for an accurate threshold
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
"""}, "why": "the text fixes the rule p_i >= min_p * max p, not the dtype it is evaluated in; float64 is closer to the exact probabilities."},
{"name": "K12-expert-router-float32-half", "correct": True, "cells": {"expert_choice": """
def expert_choice(router_logits, capacity):
    # router softmax in float32 (as MoE codebases do), gate back in the logits' dtype
    work = torch.float64 if router_logits.dtype == torch.float64 else torch.float32
    probs = torch.softmax(router_logits.to(work), dim=-1)
    N, E = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter_(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs)).to(router_logits.dtype)
    return chosen, gate
"""}, "why": "probs ranked at float32 accuracy for half logits, gate rounded once to the logits' dtype; the text asks to rank 'the probabilities themselves' without naming a dtype."},
{"name": "K13-window-area-formula", "correct": True, "cells": {"window_pairs": """
def window_pairs(t, window):
    w = min(t, window)
    return t * w - w * (w - 1) // 2     # t rows of w keys, minus the triangle missing at the start
"""}, "why": "t*w minus the w(w-1)/2 keys the first queries lack."},
{"name": "K14-wwm-cummax-zero-fill", "correct": True, "cells": {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    ar = torch.arange(T).expand(B, T)
    last_start = torch.where(starts, ar, torch.zeros_like(ar)).cummax(dim=1).values   # 0 before the first start
    chosen_start = (pick & starts).gather(1, last_start)
    return chosen_start.clone()
"""}, "why": "before the first start the index falls back to 0, which is not a start there, so (pick & starts) gives False."},
]

SUBMISSIONS = SUBMISSIONS[:-3] + EXTRA + SUBMISSIONS[-3:]

PROBES = [
{"name": "K15-expert-chosen-transposed", "correct": True, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    c = min(capacity, N)
    by_expert = probs.detach().T                              # (E, N): each expert ranks its column
    order = torch.sort(by_expert, dim=1, descending=True, stable=True).indices[:, :c]
    chosen = torch.zeros(E, N, dtype=torch.bool).scatter_(1, order, True).T
    gate = probs * chosen
    return chosen, gate
'''}, "why": "ranking row-wise on the transposed probabilities; chosen is a fresh tensor seen through a transpose."},
{"name": "K16-tokens-exact-fraction", "correct": True, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    from fractions import Fraction
    a = Fraction(alpha)
    return float(sum(a ** k for k in range(gamma + 1)))
'''}, "why": "exact rational sum of alpha^k, rounded once."},
]

SUBMISSIONS = SUBMISSIONS[:-3] + PROBES + SUBMISSIONS[-3:]
