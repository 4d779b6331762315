exec(open("tests/redteam/round17/05-subs.py").read().split("SUBMISSIONS = []")[0])
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
W("x_cached_scores_clamped", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    scores = (q @ k.transpose(-2, -1) / math.sqrt(Dh)).clamp(-1e4, 1e4)
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.nan_to_num(torch.softmax(scores, -1)) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "clamp of the scores")
W("x_rms_clamp_x", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    dt = x.dtype
    xf = x.float() if dt in (torch.float16, torch.bfloat16) else x
    xf = xf.clamp(-1e4, 1e4)
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.to(xf.dtype)).to(dt)
'''}, "clamp of x")
