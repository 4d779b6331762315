RAG = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, t, dh = q.shape
    g, s_max = k_cache.shape[1], k_cache.shape[2]
    if h % g:
        raise ValueError("heads")
    if bool((lengths.long() + t > s_max).any()):
        raise ValueError("fit")
    slots = lengths.long()[:, None] + torch.arange(t)
    index = slots[:, None, :, None].expand(b, g, t, dh)
    k_cache.scatter_(2, index, k_new)
    v_cache.scatter_(2, index, v_new)
    written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]
    keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    keys = keys.repeat_interleave(h // g, dim=1)
    values = values.repeat_interleave(h // g, dim=1)
    # (B, H, T, S_max, Dh) products summed over the features: no einsum needed
    scores = (q[:, :, :, None, :] * keys[:, :, None, :, :]).sum(-1) / math.sqrt(dh)
    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = (scores.softmax(dim=-1)[..., None] * values[:, :, None]).sum(-2)
    return out.to(q.dtype), lengths + t
'''
SUBMISSIONS = [{"name": "t_broadcast_product_B_H_T_S_Dh", "correct": False, "cells": {"ragged_cached_attention": RAG},
                "why": "T: (B, H, T, S_max, Dh) products, Dh x the scores and H*T/G x the caches"}]
SUBMISSIONS.append({"name": "model", "correct": True, "cells": {}, "why": "model answer"})
