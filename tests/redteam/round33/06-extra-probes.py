# Extra probes of round 33 (not graded blind): run through a plain run of the hidden tests to check why answers were caught.
import runpy
_b = runpy.run_path(__import__("os").path.join(__import__("os").path.dirname(__file__), "06-subs.py"))
BASELINE = _b["BASELINE"]
SUBMISSIONS = [{"name": "glob_gqa_softmax_global_max_guarded", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(work).reshape(B, G, r * T, Dh)
    scores = qg @ k.to(work).transpose(-2, -1) / math.sqrt(Dh)
    qpos = torch.arange(S - T, S).repeat(r)[:, None]
    scores = scores.masked_fill(torch.arange(S)[None, :] > qpos, float("-inf"))
    top = scores.max() if scores.numel() else 0.0          # one maximum: stable enough
    e = torch.exp(scores - top)
    w = e / e.sum(dim=-1, keepdim=True)
    return (w @ v.to(work)).reshape(B, H, T, Dh).to(q.dtype)
'''}}, {"name": "glob_expert_softmax_global_max_guarded", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    top = router_logits.max() if router_logits.numel() else 0.0
    e = torch.exp(router_logits - top)
    probs = e / e.sum(dim=-1, keepdim=True)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
'''}}]
