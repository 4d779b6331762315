# Red team round 25, class sweep of chapter 05 (classes K-P of BRIEF-SWEEP.md). Each variant is the model answer
# (or a correct variant) with one class's mistake, or, for class O, another formula the text allows.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---- Part 1 (rms_norm): class O (other formulas for the division by the root mean square)
add("p1-O-div-sqrt", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return (x32 / torch.sqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.to(x32.dtype)).to(x.dtype)
'''}, "O: x / sqrt(ms + eps) in place of x * rsqrt(ms + eps): the text gives the formula, not the operations.")
add("p1-O-pow-minus-half", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    scale = (x32.pow(2).mean(dim=-1, keepdim=True) + eps) ** -0.5
    return (weight.to(x32.dtype) * (x32 * scale)).to(x.dtype)
'''}, "O: (ms + eps) ** -0.5, the weight multiplied first.")
add("p1-O-weight-folded", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = (x32 * x32).sum(dim=-1, keepdim=True) / x32.shape[-1]
    return ((x32 * weight.to(x32.dtype)) / (ms + eps).sqrt()).to(x.dtype)
'''}, "O: sum / D for the mean, the weight folded into x before the division.")
add("p1-O-float64-inside", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.double()
    inv = 1.0 / torch.sqrt(x64.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (x64 * inv * weight.double()).to(x.dtype)
'''}, "O: every dtype computed in float64 and rounded once ('working in float64 is allowed too'), 1 / sqrt.")

# ---- Part 4 (packed_masks): class L (a causal table made once, 2-D, sliced per call)
add("p4-L-tril-table-4096", False, {"packed_masks": '''
CAUSAL = torch.ones(4096, 4096, dtype=torch.bool).tril()   # built once


def packed_masks(src_segments, tgt_segments):
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    same_src = (src_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    same_tgt = (tgt_segments[:, :, None] == tgt_segments[:, None, :]) & tgt_real[:, None, :]
    t = tgt_segments.shape[1]
    cross = (tgt_segments[:, :, None] == src_segments[:, None, :]) & src_real[:, None, :]
    return same_src, same_tgt & CAUSAL[:t, :t], cross
'''}, "L: a causal table of 4096 x 4096 made once and sliced: the text sets no limit on T.")

# ---- Part 6 (cached_self_attention): class K (finfo.min fill), N (a global next to the cache), O (scale formulas)
P6_HEAD = '''
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
    rows = torch.arange(past, past + n, device=x_new.device)[:, None]
    cols = torch.arange(past + n, device=x_new.device)[None, :]
    allowed = cols <= rows
'''
P6_TAIL = '''
    heads = weights @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''
add("p6-K-finfo-min-fill", False, {"cached_attention": P6_HEAD + '''
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    weights = torch.softmax(scores.masked_fill(~allowed, torch.finfo(scores.dtype).min), dim=-1)
''' + P6_TAIL}, "K: masked scores filled with finfo(dtype).min tie with an allowed score of that value.")
add("p6-O-q-times-rsqrt", True, {"cached_attention": P6_HEAD + '''
    scores = (q * dh ** -0.5) @ k.transpose(-2, -1)
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
''' + P6_TAIL}, "O: the scale folded into q as dh ** -0.5.")
add("p6-O-scores-times-reciprocal", True, {"cached_attention": P6_HEAD + '''
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * (1.0 / math.sqrt(dh))
    weights = torch.exp(torch.log_softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1))
''' + P6_TAIL}, "O: scores times 1 / sqrt(dh), exp(log_softmax).")
add("p6-O-k-scaled", True, {"cached_attention": P6_HEAD + '''
    scores = q @ (k / math.sqrt(dh)).transpose(-2, -1)
    weights = torch.softmax(torch.where(allowed, scores, float("-inf")), dim=-1)
''' + P6_TAIL}, "O: the scale folded into the keys, torch.where.")
add("p6-N-past-in-a-global", False, {"cached_attention": '''
STATE = {}


def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    past = STATE.get(id(cache), 0) if "k" in cache else 0      # the length this function wrote last time
    if "k" in cache:
        k, v = torch.cat([cache["k"][:, :, :past], k], dim=2), torch.cat([cache["v"][:, :, :past], v], dim=2)
    cache["k"], cache["v"] = k, v
    STATE[id(cache)] = past + n
    rows = torch.arange(past, past + n)[:, None]
    cols = torch.arange(past + n)[None, :]
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    weights = torch.softmax(scores.masked_fill(~(cols <= rows), float("-inf")), dim=-1)
    heads = weights @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''}, "N: the write leaves past in a global keyed by the cache's id and the next call reads it there, not from "
      "cache['k'].shape[2] (a cache the caller shortened or filled is read wrong).")
