# Red team round 25, class sweep of chapter 06 (classes K-P of BRIEF-SWEEP.md). Each variant is the model answer
# (or a correct variant) with one class's mistake, or, for class O, another formula the text allows.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---- Part 4 (min_p_sample): K (finfo.min fill), M (smaller absolute slacks), O (the threshold as a division)
def minp(keep_line, body=None):
    return {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    best = probs.amax(dim=-1, keepdim=True)
''' + keep_line + (body or '''
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
''')}


add("p4-K-finfo-min-logits", False, minp("    keep = probs >= min_p * best\n", '''
    masked = logits.masked_fill(~keep, torch.finfo(logits.dtype).min)
    return torch.multinomial(masked.softmax(dim=-1), 1, generator=generator).squeeze(-1)
'''), "K: dropped tokens' logits filled with finfo.min tie with kept tokens at that value.")
add("p4-M-slack-1e-15", False, minp("    keep = probs >= min_p * best - 1e-15\n"),
    "M: an absolute slack of 1e-15 (smaller than the 1e-12 the text names, still a slack under a tiny threshold).")
add("p4-M-slack-finfo-eps", False, minp("    keep = probs >= min_p * best - torch.finfo(probs.dtype).eps\n"),
    "M: a slack of the dtype's machine epsilon (2.2e-16 in float64).")
add("p4-M-slack-plus-side", False, minp("    keep = probs + 1e-14 >= min_p * best\n"),
    "M: the slack added to the probabilities (p + 1e-14).")
add("p4-O-ratio", True, minp("    keep = probs / best >= min_p\n"),
    "O: the rule as a ratio, p_i / max p >= min_p (the same relation).")
add("p4-O-float64-softmax", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = logits.double().softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''}, "O: probabilities in float64 for every dtype (more precise than the input's dtype).")
add("p4-O-manual-softmax", True, minp("    keep = probs >= min_p * best\n", '''
    e = (logits - logits.amax(dim=-1, keepdim=True)).exp()
    p = e * (1.0 / e.sum(dim=-1, keepdim=True))
    keep = p >= min_p * p.amax(dim=-1, keepdim=True)
    return torch.multinomial(torch.where(keep, p, 0.0), 1, generator=generator).squeeze(-1)
'''), "O: softmax written out, the sum's reciprocal multiplied.")

# ---- Part 6 (expert_choice): L (a table of ranks made once), O (softmax written otherwise)
add("p6-L-rank-table-2-to-16", False, {"expert_choice": '''
RANKS = torch.arange(1 << 16)   # built once


def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, RANKS[:n, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "L: a table of ranks of 65536 made once and sliced: the text sets no limit on N.")
add("p6-O-manual-softmax", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    e = (router_logits - router_logits.amax(dim=-1, keepdim=True)).exp()
    probs = e / e.sum(dim=-1, keepdim=True)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "O: softmax written out (exp of the shifted logits over their sum).")
add("p6-O-reciprocal-softmax", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    e = (router_logits - router_logits.amax(dim=-1, keepdim=True)).exp()
    probs = e * (1.0 / e.sum(dim=-1, keepdim=True))
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "O: softmax as exp times the reciprocal of the sum.")
add("p6-O-float64-probs", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.double().softmax(dim=-1)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs)).to(router_logits.dtype)
'''}, "O: softmax in float64 for every dtype, ranked there, the gate cast back.")

# ---- Part 7 (gqa_cached_attention): K (finfo.min fill), O (scale formulas)
def gqa(score_lines):
    return {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    query_pos = torch.arange(s - t, s)
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]
''' + score_lines + '''
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d).to(dtype)
'''}


add("p7-K-finfo-min-fill", False, gqa('''
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
'''), "K: masked keys filled with finfo(dtype).min tie with an allowed score of that value.")
add("p7-O-q-times-pow", True, gqa('''
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg * d ** -0.5, k)
    scores = scores.masked_fill(~allowed, float("-inf"))
'''), "O: the scale folded into q as d ** -0.5.")
add("p7-O-times-reciprocal", True, gqa('''
    scores = torch.matmul(qg, k[:, :, None].transpose(-2, -1)) * (1.0 / math.sqrt(d))
    scores = torch.where(allowed, scores, float("-inf"))
'''), "O: matmul, scores times 1 / sqrt(d), torch.where.")
add("p7-O-k-scaled", True, gqa('''
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k / math.sqrt(d))
    scores = scores.masked_fill(~allowed, float("-inf"))
'''), "O: the scale folded into the keys.")

# ---- Part 8 (decayed_linear_attention): L (a table of positions made once), O (other formulas)
P8_TT = '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    t = q.shape[-2]
    POS_LINE
    gap = pos[:, None] - pos[None, :]
    past = gap >= 0
    POW_LINE
    sim = (phi_q @ phi_k.transpose(-2, -1)) * w
    DIV_LINE
'''


def p8(pos="pos = torch.arange(t)", pw="w = torch.where(past, decay ** gap.clamp(min=0).to(work), 0.0)",
       div="return ((sim @ v) / sim.sum(dim=-1, keepdim=True)).to(dtype)", pre=""):
    return {"decayed_linear_attention": pre + P8_TT.replace("POS_LINE", pos).replace("POW_LINE", pw).replace("DIV_LINE", div)}


add("p8-O-exp-log-decay", True, p8(pw="w = torch.where(past, torch.exp(gap.clamp(min=0).to(work) * math.log(decay)), 0.0)"),
    "O: the decay's powers as exp(gap * log(decay)), past gaps only, a T x T form.")
add("p8-O-times-reciprocal", True, p8(div="return ((sim @ v) * (1.0 / sim.sum(dim=-1, keepdim=True))).to(dtype)"),
    "O: T x T form, the output times the reciprocal of the denominator.")
add("p8-O-loop-reciprocal", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)
    outs = []
    for i in range(q.shape[-2]):
        state = state * decay + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = norm * decay + phi_k[..., i, :]
        top = (phi_q[..., i, :, None] * state).sum(-2)
        outs.append(top * (1.0 / (phi_q[..., i, :] * norm).sum(-1, keepdim=True)))
    return torch.stack(outs, dim=-2).to(dtype)
'''}, "O: the recurrence, the output times the reciprocal of the denominator.")
add("p8-L-position-table-4096", False, p8(pos="pos = POSITIONS[:t]", pre="POSITIONS = torch.arange(1 << 12)   # built once\n"),
    "L: a table of 4096 positions made once and sliced (T x T form): the text sets no limit on T.")
