# Round 27 class sweep, chapter 5 (classes V, W, X). Each variant is the model answer with the smallest change that
# makes the class's mistake; "correct": True marks probes the text allows.
SUBMISSIONS = [
 # ---- class V: a floor below every value the hidden cases reach
 {"name": "V-p1-mean-square-floored", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True).clamp(min=1e-12) + eps)
    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)
'''}, "why": "V: the mean square floored at 1e-12 before eps: a zero row's gradient is weight / sqrt(eps + 1e-12)"},
 {"name": "V-p1-denominator-floored", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    inv_rms = torch.rsqrt((x32.pow(2).mean(dim=-1, keepdim=True) + eps).clamp(min=1e-12))
    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)
'''}, "why": "V: mean square + eps floored at 1e-12: nothing changes while eps >= 1e-12 (the text does not bound eps)"},
 {"name": "V-p1-rms-floored-at-tiny", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = torch.sqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (x32 / rms * weight.to(x32.dtype)).to(x.dtype)
'''}, "why": "correct: x / sqrt(ms + eps) (division instead of rsqrt)"},
 {"name": "V-p1-float64-inside", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.double()
    ms = (x64 * x64).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (x64 / torch.sqrt(ms + eps) * weight.double()).to(x.dtype)
'''}, "why": "correct: float64 inside (allowed), sum / D, cast back once"},
 # ---- class X: a rule on one of two paths scored alike
 {"name": "X-p6-mask-only-at-the-prompt", "correct": False, "cells": {"cached_attention": '''
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
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    if past == 0:  # the prompt needs the causal mask; later blocks "only see the past"
        allowed = torch.ones(n, n, dtype=torch.bool).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    heads = weights @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''}, "why": "X: the causal mask applied at the prompt step only, not to later blocks of n > 1"},
 {"name": "X-p6-mask-only-for-blocks", "correct": True, "cells": {"cached_attention": '''
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
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    if n > 1:  # one new position sees every key
        rows = torch.arange(past, past + n)[:, None]
        cols = torch.arange(past + n)[None, :]
        scores = scores.masked_fill(cols > rows, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    heads = weights @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''}, "why": "correct: no mask for n = 1 (every key is allowed there)"},
 {"name": "C-p1-F-rms-norm-float64", "correct": True, "cells": {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    return F.rms_norm(x.double(), (x.shape[-1],), weight.double(), eps=eps).to(x.dtype)
"""}, "why": "correct: F.rms_norm in float64 (allowed), eps passed on"},
 # ---- added after the first grading: V in Part 6 (the class found in chapter 6 Part 7)
 {"name": "V-p6-weights-floored", "correct": False, "cells": {"cached_attention": """
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
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1).clamp(min=1e-12)
    heads = weights @ v
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
"""}, "why": "V: attention weights floored at 1e-12 (future positions get 1e-12 of their values)"},
]
