# Round 26 class sweep, chapter 3 (classes R, S, U; T closed in b7316cc). Each variant is the model answer (or a correct
# variant) with the smallest change that makes the class's mistake.
SPLIT_MODEL = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)
'''
MERGE_MODEL = '''
def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
SUBMISSIONS = [
 # ---- class R: a size-1 axis beside a longer one (squeeze() with no dim, then an unsqueeze or a broadcast)
 {"name": "R-p1-split-squeeze-then-batch-of-one", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    y = x.squeeze()  # a batch of one, or a lone (T, D)
    if y.dim() == 2:
        y = y.unsqueeze(0)
    return y.reshape(y.shape[0], y.shape[1], d // num_heads, num_heads).permute(0, 3, 1, 2)
''' + MERGE_MODEL}, "why": "R: T = 1 with B > 1 squeezes to (B, D), unsqueeze(0) reads it as one sequence of B tokens"},
 {"name": "R-p1-merge-squeeze-then-batch-of-one", "correct": False, "cells": {"interleaved": SPLIT_MODEL + '''
def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    y = x.squeeze()
    while y.dim() < 4:
        y = y.unsqueeze(0)
    b, h, t, dh = y.shape
    return y.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "why": "R: one head with several batches (or T = 1) squeezed, the axes put back at the front"},
 {"name": "R-p5-heads-squeezed-and-broadcast", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v).squeeze()  # (B, H, T, Dh), sizes of one dropped
    while heads.dim() < 4:
        heads = heads.unsqueeze(1)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''}, "why": "R: one head (or T = 1) with several batches: squeezed axes come back in the wrong place"},
 {"name": "R-p6-lengths-squeezed-mask-broadcast", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]  # (B, S)
    mask = real.squeeze()  # (B, S); a batch of one comes back as (S,)
    if mask.dim() == 1:
        mask = mask[None]
    heads = attention(q, k, v, mask[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "why": "R: S = 1 with B > 1: the (B, 1) mask squeezes to (B,), read as one sentence of B keys"},
 {"name": "R-p6-query-squeezed", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    xq = x.squeeze()  # one query token: (B, D)
    if xq.dim() == 2 and x.shape[1] == 1:
        xq = xq.unsqueeze(1)
    elif xq.dim() == 2:
        xq = xq.unsqueeze(0)
    q = split_heads(xq @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    heads = attention(q, k, v, real[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "why": "R: B = 1 with T = 1 squeezes to (D,), and B = 3, T = 1 is handled; but B = 1, T > 1 goes through unsqueeze(0) (right): wrong only for B = 1, T = 1 where (D,) stays 1-D"},
 {"name": "R-p7-decode-step-squeezed", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    heads = attention(q, k, v, allowed)
    if t == 1:  # a decoding step: drop the query axis and put it back
        heads = heads.squeeze().reshape(x.shape[0], num_heads, 1, -1)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "why": "R: squeeze() then reshape: correct (squeeze keeps the order); probe (expected allowed)", "correct": True},
 {"name": "R-p7-decode-query-broadcast", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    if t == 1:  # one new token sees every key: no mask
        q1 = q.squeeze()  # (B, H, Dh)
        if q1.dim() == 3:
            q1 = q1[:, :, None]
        else:
            q1 = q1.reshape(1, num_heads, 1, -1)
        heads = attention(q1, k, v)
    else:
        heads = attention(q, k, v, torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p))
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "why": "R: one head with several batches at a decoding step: q (B, 1, 1, Dh) squeezes to (B, Dh), read as one batch of B heads"},
 # ---- class S: a non-contiguous layout that still lets .view through
 {"name": "S-p1-split-view-merges-batch-and-time", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    return x.view(b * t, d // num_heads, num_heads).permute(2, 0, 1).reshape(num_heads, b, t, d // num_heads).transpose(0, 1)
''' + MERGE_MODEL}, "why": "S: view merges B and T, which fails on a (T, B, D) tensor transposed to (B, T, D)"},
 {"name": "S-p1-merge-view-of-heads", "correct": False, "cells": {"interleaved": SPLIT_MODEL + '''
def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.view(b * h, t, dh).reshape(b, h, t, dh).permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "why": "S: view(b * h, t, dh) fails on a (B, H, T, Dh) made as split_heads makes it"},
 {"name": "S-p5-view-of-x-rows", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = (x.view(b * t, d) @ params["w_qkv"].T + params["b_qkv"]).view(b, t, 3 * d)
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''}, "why": "S: x.view(b * t, d) fails on a (T, B, D) tensor transposed"},
 {"name": "S-p5-view-of-w_o", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)
    w_o = params["w_o"].view(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''}, "why": "S: params['w_o'].view splits the column axis: works for any strides of w_o? (probe)"},
 {"name": "S-p6-view-of-memory-rows", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    bsz = memory.shape[0]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    kv = (memory.view(bsz * s, d) @ w[d:].T + b[d:]).view(bsz, s, 2 * d)
    k = split_heads(kv[..., :d], num_heads)
    v = split_heads(kv[..., d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    heads = attention(q, k, v, real[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "why": "S: memory.view(B * S, D) fails on a (S, B, D) memory transposed"},
 {"name": "S-p6-view-of-x-rows", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    bsz, t = x.shape[:2]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads((x.view(bsz * t, d) @ w[:d].T + b[:d]).view(bsz, t, d), num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    heads = attention(q, k, v, real[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "why": "S: x.view(B * T, D) fails on a (T, B, D) x transposed"},
 {"name": "S-p7-view-of-the-cache", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    bsz, h, p, dh = past_k.shape
    t = x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k.view(bsz * h, p, dh), k_new.reshape(bsz * h, t, dh)], dim=1).view(bsz, h, p + t, dh)
    v = torch.cat([past_v.view(bsz * h, p, dh), v_new.reshape(bsz * h, t, dh)], dim=1).view(bsz, h, p + t, dh)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "why": "S: past_k.view(B * H, P, Dh) fails on a cache made as split_heads makes it ((B, P, H, Dh) transposed)"},
 {"name": "S-p7-view-of-x-rows", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    bsz, d = x.shape[0], x.shape[2]
    qkv = (x.view(bsz * t, d) @ params["w_qkv"].T + params["b_qkv"]).view(bsz, t, 3 * d)
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "why": "S: x.view(B * T, D) fails on a (T, B, D) x transposed"},
]
# the R-p7 squeeze-then-reshape probe is correct (squeeze keeps the order of the entries, reshape restores the shape)
for s in SUBMISSIONS:
    if s["name"] == "R-p7-decode-step-squeezed":
        s["correct"] = True

# ---- class U: the loops the text allows, timed on the hidden cases
SUBMISSIONS += [
 {"name": "U-p6-mask-loop-over-keys", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.zeros(memory.shape[0], s, dtype=torch.bool)
    for i, n in enumerate(memory_lengths.tolist()):
        for j in range(s):  # key by key
            real[i, j] = j >= s - n
    heads = attention(q, k, v, real[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "why": "U: the mask written key by key: 1 049 000 keys in a hidden case (ruled out by the text since this sweep: correct before it)"},
 {"name": "U-p7-mask-loop-over-queries", "correct": True, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.zeros(t, p + t, dtype=torch.bool)
    for i in range(t):
        allowed[i, :p + i + 1] = True
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "why": "U: the causal mask row by row (a loop over the queries)"},
 {"name": "U-p7-mask-loop-over-keys", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.zeros(t, p + t, dtype=torch.bool)
    for i in range(t):
        for j in range(p + i + 1):
            allowed[i, j] = True
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "why": "U: the causal mask key by key: P = 1 049 000 in a hidden case (ruled out by the text since this sweep: correct before it)"},
]
