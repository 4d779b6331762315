# Round 27 class sweep, chapter 03 (classes V, W, X of tests/redteam/round27/BRIEF-SWEEP.md): the model answer of
# each part with one class's mistake put in; "correct": True only where the text allows the answer.
SOFTMAX_ATTENTION = '''
def my_attention(q, k, v, allowed=None):
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = EXP
    total = e.sum(dim=-1, keepdim=True)
    return (e / DENOM) @ v
'''
def att(exp="torch.exp(scores - top)", denom="torch.where(total > 0, total, torch.ones_like(total))"):
    return SOFTMAX_ATTENTION.replace("EXP", exp).replace("DENOM", denom)

P5 = '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = my_attention(q, k, v)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''
P6 = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    heads = my_attention(q, k, v, real[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''
P7 = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = MASK
    out = merge_heads(my_attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''
FLOORED = 'torch.exp(scores - top).clamp_min(1e-30) if allowed is None else torch.where(allowed, torch.exp(scores - top).clamp_min(1e-30), 0.0)'
FLOORED_TINY = 'torch.exp(scores - top).clamp_min(torch.finfo(q.dtype).tiny) if allowed is None else torch.where(allowed, torch.exp(scores - top).clamp_min(torch.finfo(q.dtype).tiny), 0.0)'
EPS = "(total + 1e-30)"
GOOD_MASK = "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)"
SUBMISSIONS = [
    {"name": "sw_p5_own_softmax", "correct": True, "cells": {"contributions": att() + P5},
     "why": "control: a written-out softmax, scaled before the product"},
    {"name": "sw_p5_V_exp_floored", "correct": False, "cells": {"contributions": att(exp=FLOORED) + P5},
     "why": "V: the exponentials floored at 1e-30 ('clamp nothing'): a key whose weight underflows to 0 keeps 1e-30"},
    {"name": "sw_p5_V_exp_floored_tiny", "correct": False, "cells": {"contributions": att(exp=FLOORED_TINY) + P5},
     "why": "V: the exponentials floored at finfo.tiny"},
    {"name": "sw_p5_V_denominator_eps", "correct": True, "cells": {"contributions": att(denom=EPS) + P5},
     "why": "V, equivalent: the shifted sum is at least 1"},
    {"name": "sw_p6_own_softmax", "correct": True, "cells": {"left_padded": att() + P6},
     "why": "control: a written-out softmax"},
    {"name": "sw_p6_V_exp_floored", "correct": False, "cells": {"left_padded": att(exp=FLOORED) + P6},
     "why": "V: real keys' exponentials floored at 1e-30"},
    {"name": "sw_p6_V_exp_floored_tiny", "correct": False, "cells": {"left_padded": att(exp=FLOORED_TINY) + P6},
     "why": "V: real keys' exponentials floored at finfo.tiny"},
    {"name": "sw_p6_V_denominator_eps", "correct": True, "cells": {"left_padded": att(denom=EPS) + P6},
     "why": "V, equivalent: the shifted sum is at least 1 where a key is real; 0 / 1e-30 = 0 where none is"},
    {"name": "sw_p6_X_mask_only_when_padded", "correct": True,
     "cells": {"left_padded": att() + P6.replace("heads = my_attention(q, k, v, real[:, None, None, :])",
               "heads = my_attention(q, k, v, None if bool((memory_lengths.long() == s).all()) else real[:, None, None, :])")},
     "why": "X, equivalent: no mask where no sentence is padded"},
    {"name": "sw_p7_own_softmax", "correct": True, "cells": {"cache": att() + P7.replace("MASK", GOOD_MASK)},
     "why": "control: a written-out softmax"},
    {"name": "sw_p7_V_exp_floored", "correct": False, "cells": {"cache": att(exp=FLOORED) + P7.replace("MASK", GOOD_MASK)},
     "why": "V: allowed keys' exponentials floored at 1e-30"},
    {"name": "sw_p7_V_exp_floored_tiny", "correct": False, "cells": {"cache": att(exp=FLOORED_TINY) + P7.replace("MASK", GOOD_MASK)},
     "why": "V: allowed keys' exponentials floored at finfo.tiny"},
    {"name": "sw_p7_X_mask_only_at_the_prompt", "correct": False,
     "cells": {"cache": att() + P7.replace("MASK", f"({GOOD_MASK}) if p == 0 else None")},
     "why": "X: the causal mask only at the prompt step (P = 0), none for later blocks"},
    {"name": "sw_p7_X_mask_only_for_blocks", "correct": True,
     "cells": {"cache": att() + P7.replace("MASK", f"({GOOD_MASK}) if t > 1 else None")},
     "why": "X, equivalent: one new token may see every key, so no mask is needed at T = 1"},
]

# a softmax in log space and float64 inside, checked against the new cases
LOGSM = '''
def my_attention(q, k, v, allowed=None):
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.log_softmax(scores.double(), dim=-1).exp().nan_to_num(0.0)
    if allowed is not None:
        w = torch.where(allowed.any(dim=-1, keepdim=True), w, 0.0)
    return (w @ v.double()).to(q.dtype)
'''
SUBMISSIONS += [
    {"name": "alt_p5_logsm64", "correct": True, "cells": {"contributions": LOGSM + P5}},
    {"name": "alt_p6_logsm64", "correct": True, "cells": {"left_padded": LOGSM + P6}},
    {"name": "alt_p7_logsm64", "correct": True, "cells": {"cache": LOGSM + P7.replace("MASK", GOOD_MASK)}},
]
