SUBMISSIONS = [
{"name": "p1 interleaved", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    x = x.reshape(b, t, d // num_heads, num_heads)
    return x.permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    x = x.permute(0, 2, 3, 1)
    return x.reshape(b, t, h * dh)
'''}, "why": "copied from multihead.py split_heads/merge_heads; changes: 3 lines (reshape order (Dh, H), permute instead of transpose x2)"},
{"name": "p5 contributions", "correct": True, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    q, k, v = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(t, num_heads) for t in (q, k, v))
    heads = attention(q, k, v)
    d = x.shape[-1]
    return heads @ params["w_o"].T.reshape(num_heads, d // num_heads, d)
'''}, "why": "copied from MultiHeadAttention.forward (self-attention branch, in_proj->F.linear with params); changes: 3 lines (params rename, d, last line reshapes W_O^T per head instead of out_proj(merge_heads))"},
{"name": "p6 left_padded", "correct": True, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d_model = x.shape[-1]
    w_q, w_kv = params["w_qkv"].split([d_model, 2 * d_model])
    b_q, b_kv = params["b_qkv"].split([d_model, 2 * d_model])
    q = torch.nn.functional.linear(x, w_q, b_q)
    k, v = torch.nn.functional.linear(memory, w_kv, b_kv).chunk(2, dim=-1)
    q, k, v = (split_heads(t, num_heads) for t in (q, k, v))
    S = memory.shape[1]
    mask = (torch.arange(S)[None, :] >= S - memory_lengths.long()[:, None])[:, None, None, :]
    heads = attention(q, k, v, mask)
    return torch.nn.functional.linear(merge_heads(heads), params["w_o"], params["b_o"])
'''}, "why": "copied from MultiHeadAttention.forward cross-attention branch; changes: 4 lines (d_model, params renames, S, left-padding mask line adapted from padding_mask with >= and (B,1,1,S), out_proj as F.linear)"},
{"name": "p7 cache", "correct": True, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    q, k, v = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    q, k, v = (split_heads(t, num_heads) for t in (q, k, v))
    k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
    P, T = past_k.shape[2], x.shape[1]
    mask = torch.ones(T, P + T, dtype=torch.bool).tril(P)
    heads = attention(q, k, v, mask)
    return torch.nn.functional.linear(merge_heads(heads), params["w_o"], params["b_o"]), k, v
'''}, "why": "copied from MultiHeadAttention.forward cache branch (cat of cached k,v) + page's tril mask cell; changes: 4 lines (cat on dim=2 after split, P/T, tril(P) mask, return triple)"},
]
