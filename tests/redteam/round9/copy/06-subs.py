SUBMISSIONS = [
{"name": "p4 min_p_sample", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    filtered = logits.masked_fill(~keep, float("-inf"))
    return torch.multinomial(torch.softmax(filtered, dim=-1), 1, generator=generator).squeeze(-1)
'''}, "why": "copied from sampling.py top_k_filter/top_p_filter (softmax, masked_fill -inf); changes: 2 lines (min-p keep condition, torch.multinomial draw - sample_next is not shown on the page)"},
{"name": "p6 expert_choice", "correct": True, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    n, e = router_logits.shape
    probs = torch.softmax(router_logits, dim=-1)
    sorted_probs, order = probs.sort(dim=0, descending=True, stable=True)
    keep_sorted = (torch.arange(n)[:, None] < capacity).expand(n, e)
    chosen = torch.zeros_like(keep_sorted).scatter(0, order, keep_sorted)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "copied from moe.py route_top_k (softmax probs) + sampling.py top_p_filter (stable sort, scatter of keep_sorted); changes: 4 lines (sort over tokens dim=0, keep = rank < capacity, scatter dim 0, gate via where)"},
{"name": "p7 gqa_cached_attention", "correct": True, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    h, t, s = q.shape[1], q.shape[2], k.shape[2]
    k, v = k.repeat_interleave(h // k.shape[1], dim=1), v.repeat_interleave(h // v.shape[1], dim=1)
    query_pos = torch.arange(s - t, s)
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
'''}, "why": "copied from gqa.py repeat_kv + GroupedQueryAttention.forward and objectives.py TinyDecoderLM.forward (query_pos/allowed lines); changes: 3 lines (sizes, offset = s - t, F.sdpa instead of package sdpa)"},
{"name": "p8 decayed_linear_attention", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    scores = (F.elu(q) + 1) @ (F.elu(k) + 1).transpose(-2, -1)
    t = q.shape[-2]
    dist = torch.arange(t)[:, None] - torch.arange(t)[None, :]
    scores = scores * torch.ones(t, t, dtype=torch.bool).tril() * torch.tensor(decay, dtype=q.dtype) ** dist.clamp(min=0)
    return (scores @ v) / scores.sum(-1, keepdim=True)
'''}, "why": "copied from linear_attention.py causal_linear_attention_quadratic (elu_feature_map inlined); changes: 3 lines (distance matrix, decay**distance factor on the causal mask, no eps)"},
]
