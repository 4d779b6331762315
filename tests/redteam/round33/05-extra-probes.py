# Extra probes of round 33 (not graded blind): run through a plain run of the hidden tests to check why answers were caught.
import runpy
_b = runpy.run_path(__import__("os").path.join(__import__("os").path.dirname(__file__), "05-subs.py"))
BASELINE = _b["BASELINE"]
SUBMISSIONS = [{"name": "late_cached_split_cache_keeps_params", "correct": False, "cells": {"cached_attention": '''
SPLIT = {}

def cached_self_attention(x_new, params, cache):
    entry = SPLIT.get(id(params))
    if entry is None or entry[0] is not params:
        entry = SPLIT[id(params)] = (params, params["w_qkv"].chunk(3), params["b_qkv"].chunk(3))
    _, (w_q, w_k, w_v), (b_q, b_k, b_v) = entry
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    q = F.linear(x_new, w_q, b_q).reshape(B, n, H, Dh).transpose(1, 2)
    k = F.linear(x_new, w_k, b_k).reshape(B, n, H, Dh).transpose(1, 2)
    v = F.linear(x_new, w_v, b_v).reshape(B, n, H, Dh).transpose(1, 2)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    i = torch.arange(n)[:, None] + past
    j = torch.arange(past + n)[None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=j <= i)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}}]
