# Round 27 class sweep, chapter 6 (classes V, W, X). Each variant is the model answer with the smallest change that
# makes the class's mistake; "correct": True marks probes the text allows.
EXPERT_TAIL = '''
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''
DECAY_HEAD = '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)
        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)
'''
DECAY_TAIL = '''
    return torch.stack(outs, dim=-2).to(dtype)
'''
SUBMISSIONS = [
 # ---- class V: a floor below every value the hidden cases reach
 {"name": "V-p2-alpha-floored", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = max(alpha, 1e-6)
    return float(sum(alpha ** k for k in range(gamma + 1)))
'''}, "why": "V: alpha floored at 1e-6 (alpha = 0 gives 1 + 1e-6)"},
 {"name": "V-p4-probs-floored", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1).clamp(min=1e-30)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''}, "why": "V: probabilities floored at 1e-30 (a dropped token of probability 0 is kept at min_p 1e-200)"},
 {"name": "V-p6-probs-floored-at-tiny", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1).clamp(min=torch.finfo(router_logits.dtype).tiny)
''' + EXPERT_TAIL}, "why": "V: probabilities floored at finfo.tiny: subnormal probabilities that differ tie, ranked by index (text: ranked by their values however little they differ); gates of tiny instead of 0"},
 {"name": "V-p6-probs-floored-1e-300", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1).clamp(min=1e-300)
''' + EXPERT_TAIL}, "why": "V: probabilities floored at 1e-300"},
 {"name": "V-p8-bottom-floored-1e-30", "correct": False, "cells": {"decayed_linear_attention": DECAY_HEAD + '''
        outs.append(top / bottom.clamp(min=1e-30))
''' + DECAY_TAIL}, "why": "V: the denominator clamped at 1e-30 (text: do not clamp it; it can be tiny)"},
 {"name": "V-p8-bottom-plus-tiny", "correct": False, "cells": {"decayed_linear_attention": DECAY_HEAD + '''
        outs.append(top / (bottom + torch.finfo(bottom.dtype).tiny))
''' + DECAY_TAIL}, "why": "V: finfo.tiny added to the denominator (text: no epsilon)"},
 {"name": "V-p8-phi-floored", "correct": False, "cells": {"decayed_linear_attention": DECAY_HEAD.replace(
     "phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1", "phi_q, phi_k = (F.elu(q) + 1).clamp(min=1e-30), (F.elu(k) + 1).clamp(min=1e-30)") + '''
        outs.append(top / bottom)
''' + DECAY_TAIL}, "why": "V: phi floored at 1e-30 (text: clamp nothing else either)"},
 {"name": "V-p8-parallel-float64-correct", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    t = q.shape[-2]
    i = torch.arange(t)
    gap = (i[:, None] - i[None, :])
    past = gap >= 0
    powers = torch.where(past, torch.tensor(decay, dtype=torch.float64) ** gap.clamp(min=0).double(),
                         torch.zeros((), dtype=torch.float64)).to(work)
    w = (phi_q @ phi_k.transpose(-2, -1)) * powers
    return ((w @ v) / w.sum(-1, keepdim=True)).to(dtype)
'''}, "why": "correct: the parallel form, powers of past gaps only, weights normalised by their row sum"},
 # ---- class W: a share computed as one minus the others
 {"name": "W-p6-last-expert-one-minus", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    first = router_logits.softmax(dim=-1)[:, :-1]
    probs = torch.cat([first, 1 - first.sum(dim=-1, keepdim=True)], dim=-1)  # shares sum to 1
''' + EXPERT_TAIL}, "why": "W: the last expert's share as 1 - the others (a tiny last share is 0 or rounding noise)"},
 {"name": "W-p6-first-expert-one-minus", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    rest = router_logits.softmax(dim=-1)[:, 1:]
    probs = torch.cat([1 - rest.sum(dim=-1, keepdim=True), rest], dim=-1)
''' + EXPERT_TAIL}, "why": "W: the first expert's share as 1 - the others"},
 {"name": "W-p4-last-token-one-minus", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    first = logits.softmax(dim=-1)[:, :-1]
    probs = torch.cat([first, (1 - first.sum(dim=-1, keepdim=True)).clamp(min=0)], dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''}, "why": "W: the last token's probability as 1 - the others"},
 {"name": "W-p4-first-token-one-minus", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    rest = logits.softmax(dim=-1)[:, 1:]
    probs = torch.cat([(1 - rest.sum(dim=-1, keepdim=True)).clamp(min=0), rest], dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''}, "why": "W: the first token's probability as 1 - the others"},
 # ---- class X: a rule on one of two paths scored alike
 {"name": "X-p7-mask-only-when-square", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    if t == s:  # the prompt: causal; a block after a cache "sees its past"
        allowed = torch.ones(t, s, dtype=torch.bool).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d).to(dtype)
'''}, "why": "X: the causal mask applied only at the prompt (T = S), not to a block of T > 1 after a cache"},
 {"name": "X-p5-pad-stops-inputs-only", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist())
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, current = {}, None
        for token in row_tg:
            if token in is_sentinel:
                current = hidden.setdefault(token, [])
            elif current is not None:
                current.append(token)
        restored = []
        for token in row_in:
            if token == pad:
                break
            if token in is_sentinel:
                restored += [(t, True) for t in hidden[token]]
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max((len(row) for row in rows), default=0)
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        if row:
            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])
            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])
    return tokens, noise
'''}, "why": "X: padding ends the inputs but not the targets (pads appended to the last span)"},
 {"name": "X-p8-decay-state-only", "correct": False, "cells": {"decayed_linear_attention": DECAY_HEAD.replace(
     "norm = decay * norm + phi_k", "norm = norm + phi_k") + '''
        outs.append(top / bottom)
''' + DECAY_TAIL}, "why": "X: the decay applied to the numerator's state only, not to the normaliser"},
 # ---- correct probes for the new cases (written before closing: the text allows each)
 {"name": "C-p8-phi-as-exp", "correct": True, "cells": {"decayed_linear_attention": DECAY_HEAD.replace(
     "phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1",
     "phi_q = torch.where(q > 0, q + 1, torch.exp(q.clamp(max=0)))\n    phi_k = torch.where(k > 0, k + 1, torch.exp(k.clamp(max=0)))") + """
        outs.append(top / bottom)
""" + DECAY_TAIL}, "why": "correct: phi as x + 1 or exp(x) (exact where elu(x) + 1 rounds)"},
 {"name": "C-p6-probs-through-logsumexp", "correct": False, "cells": {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.exp(router_logits - router_logits.logsumexp(dim=-1, keepdim=True))
""" + EXPERT_TAIL}, "why": "probe written as correct, judged wrong: the text rules out logits minus their log-sum-exp (probabilities near 1e-304 whose logarithms round alike, round 12's case)"},
 {"name": "C-p4-masked-logits-softmax", "correct": True, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, logits, torch.full_like(logits, float("-inf"))).softmax(dim=-1)
    return torch.multinomial(input=kept, num_samples=1, generator=generator).squeeze(-1)
"""}, "why": "correct: the kept logits softmaxed again (renormalised before the draw), multinomial by keyword"},
 {"name": "C-p4-unnormalised-exp", "correct": True, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    shifted = logits - logits.amax(dim=-1, keepdim=True)
    weights = shifted.exp()  # the best token has weight 1
    keep = weights >= min_p
    return weights.where(keep, torch.zeros_like(weights)).multinomial(1, generator=generator).squeeze(-1)
"""}, "why": "correct: unnormalised exp(logits - max), kept where at least min_p (the ratio to the best)"},
 # ---- added after the first grading: V in Part 7
 {"name": "V-p7-softmax-denominator-eps", "correct": False, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    query_pos = torch.arange(s - t, s)
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))

    e = (scores - scores.amax(dim=-1, keepdim=True)).exp()
    weights = e / (e.sum(dim=-1, keepdim=True) + 1e-12)
    out = torch.einsum("bgrts,bgsd->bgrtd", weights, v)
    return out.reshape(b, h, t, d).to(dtype)
"""}, "why": "V: 1e-12 added to the softmax denominator (at least 1 after the max shift: relative 1e-12)"},
 {"name": "V-p7-weights-floored", "correct": False, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    query_pos = torch.arange(s - t, s)
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))

    weights = scores.softmax(dim=-1).clamp(min=1e-12)
    out = torch.einsum("bgrts,bgsd->bgrtd", weights, v)
    return out.reshape(b, h, t, d).to(dtype)
"""}, "why": "V: attention weights floored at 1e-12 (masked keys get 1e-12)"},
]
