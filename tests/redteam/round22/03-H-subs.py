# Round 22 second pass, chapter 03, class H: the scale 1/sqrt(Dh) made a tensor in x's half dtype, float32 work
SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": f"H: {name}", "correct": False, "cells": cells, "why": why})

W("p6 scale rounded to x's dtype, scores in float32", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    scale = torch.tensor(1 / math.sqrt(q.shape[-1]), dtype=x.dtype)
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    scores = (q.to(work) @ k.to(work).transpose(-2, -1)) * scale.to(work)
    allowed = real[:, None, None, :]
    scores = scores.masked_fill(~allowed, float("-inf"))
    wts = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
    heads = (wts @ v.to(work)).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "scale 1/sqrt(Dh) rounded to float16 before float32 work")

W("p7 scale rounded to x's dtype, scores in float32", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    scale = torch.tensor(1 / math.sqrt(q.shape[-1]), dtype=x.dtype)
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    scores = (q.to(work) @ k.to(work).transpose(-2, -1)) * scale.to(work)
    wts = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    out = merge_heads((wts @ v.to(work)).to(x.dtype)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "scale 1/sqrt(Dh) rounded to float16 before float32 work")
