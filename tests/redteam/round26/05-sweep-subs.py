SUBMISSIONS = [
 {"name": "SW-cached-squeeze-heads", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    allowed = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    heads = (torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v).squeeze()
    if heads.dim() == 3:
        heads = heads.unsqueeze(2)
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''}, "why": "SQ sweep: squeeze() of (B, H, n, Dh) for n = 1 or B = 1"},
 {"name": "SW-sandwich-view", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    B, T, D = y.shape
    flat = y.view(B * T, D).view(B, T, D)
    y = flat + layer_norm(mha(layer_norm(flat, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
'''}, "why": "ST sweep: view on y"},
 {"name": "SW-cached-view", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    x2 = x_new.view(b * n, d)
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x2 @ w_q.T + b_q), split(x2 @ w_k.T + b_k), split(x2 @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    allowed = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    heads = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''}, "why": "ST sweep: view on x_new"},
]
