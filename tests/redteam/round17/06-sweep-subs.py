exec(open("tests/redteam/round17/06-subs.py").read().split("SUBMISSIONS = []")[0])
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
W("x_decay_weights_clamped", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    wdec = torch.where(diff >= 0, torch.tensor(decay, dtype=torch.float64) ** diff.clamp(min=0).double(), torch.zeros((), dtype=torch.float64))
    a = (fq @ fk.transpose(-2, -1)).clamp(max=1e4) * wdec.to(q.dtype)
    return (a @ v) / a.sum(-1, keepdim=True)
'''}, "clamp of the similarities")
W("x_expert_logits_clamped", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits.clamp(-1e4, 1e4), dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "clamp of the logits")
W("x_min_p_logits_clamped", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits.clamp(-1e4, 1e4), dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(probs, 1, generator=generator).reshape(-1)
'''}, "clamp of the logits")
W("x_decay_eps_tiny", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    wdec = torch.where(diff >= 0, torch.tensor(decay, dtype=torch.float64) ** diff.clamp(min=0).double(), torch.zeros((), dtype=torch.float64))
    a = (fq @ fk.transpose(-2, -1)) * wdec.to(q.dtype)
    return (a @ v) / a.sum(-1, keepdim=True).clamp(min=1e-12)
'''}, "clamp of the denominator")
