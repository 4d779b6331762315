# Round 30 class sweep, chapter 03 (classes AJ, AL, AK, AM, AN). Each variant is the model answer with the smallest
# change that makes the class's mistake; "correct": True marks probes the text allows.
SPLIT = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
COST = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads <= 0 or num_heads % num_kv_heads != 0:
        raise ValueError(f"num_heads={num_heads} is not a multiple of num_kv_heads={num_kv_heads}")
    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_width + 2 * d_model * kv_width + q_width * d_model
    parameters = weights + (q_width + 2 * kv_width + d_model if bias else 0)
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    return parameters, macs, 2 * kv_width * keys
'''
CONTRIB = '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''
LEFT = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    heads = attention(q, k, v, real[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''
CACHE = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''
KEEP = '''
CONVERTED = {}
def converted(t, dtype=torch.float64):
    kept = CONVERTED.get((id(t), dtype))
    if kept is None or kept[0] is not t:  # the original is kept alive beside its copy: its id() is never reused
        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))
    return kept[1]
'''


def swap(code, old, new):
    assert old in code, old
    return code.replace(old, new, 1)

SUBMISSIONS = [
 # ---- class AJ: an input written in place with the values it held
 {"name": "AJ-p1-x-nan-masked-in-place", "correct": False, "cells": {"interleaved": swap(SPLIT,
     "    if d % num_heads:", "    if x.is_floating_point():\n        x.masked_fill_(x != x, float('nan'))\n    if d % num_heads:")},
  "why": "AJ: a validator's masked_fill_ of NaN over NaN (values unchanged, version moved)"},
 {"name": "AJ-p5-wo-nan-to-num-in-place", "correct": False, "cells": {"contributions": swap(CONTRIB,
     "    b, t, d = x.shape", "    b, t, d = x.shape\n    with torch.no_grad():\n        params['w_o'].masked_fill_(params['w_o'] != params['w_o'], 0.0)")},
  "why": "AJ: a NaN check written in place on w_o (no NaN there: values unchanged)"},
 {"name": "AJ-p6-lengths-clamped-in-place", "correct": False, "cells": {"left_padded": swap(LEFT,
     "    d, s = x.shape[-1], memory.shape[1]", "    d, s = x.shape[-1], memory.shape[1]\n    memory_lengths.clamp_(max=s) if s < 2 ** 7 or memory_lengths.dtype not in (torch.int8, torch.uint8) else None")},
  "why": "AJ: lengths clamped in place to S (they are all <= S: values unchanged)"},
 {"name": "AJ-p6-memory-nan-masked-in-place", "correct": False, "cells": {"left_padded": swap(LEFT,
     "    d, s = x.shape[-1], memory.shape[1]", "    d, s = x.shape[-1], memory.shape[1]\n    with torch.no_grad():\n        memory.masked_fill_(memory != memory, 0.0)")},
  "why": "AJ: memory NaN-masked in place under no_grad (no NaN: values unchanged)"},
 {"name": "AJ-p7-past-k-nan-masked-in-place", "correct": False, "cells": {"cache": swap(CACHE,
     "    p, t = past_k.shape[2], x.shape[1]", "    p, t = past_k.shape[2], x.shape[1]\n    with torch.no_grad():\n        past_k.masked_fill_(past_k != past_k, 0.0)")},
  "why": "AJ: past_k NaN-masked in place under no_grad"},
 # ---- class AL: a converted copy of an input kept per id()
 {"name": "AL-p5-params-float64-kept-per-id", "correct": False, "cells": {"contributions": KEEP + '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    x64 = x.to(torch.float64)
    qkv = x64 @ converted(params["w_qkv"]).T + converted(params["b_qkv"])
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = attention(q, k, v)
    w_o = converted(params["w_o"]).reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o).to(x.dtype)
'''}, "why": "AL: float64 copies of the parameters kept per id() (float64 parameters are their own copy)"},
 {"name": "AL-p6-memory-params-float32-kept-per-id", "correct": False, "cells": {"left_padded": KEEP + '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    w, b = converted(params["w_qkv"], work), converted(params["b_qkv"], work)
    m = converted(memory, work)
    q = split_heads(x.to(work) @ w[:d].T + b[:d], num_heads)
    k = split_heads(m @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(m @ w[2 * d:].T + b[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    heads = attention(q, k, v, real[:, None, None, :])
    return (merge_heads(heads) @ converted(params["w_o"], work).T + converted(params["b_o"], work)).to(x.dtype)
'''}, "why": "AL: float32 copies of half memory and parameters kept per id()"},
 {"name": "AL-p7-params-float32-kept-per-id", "correct": False, "cells": {"cache": KEEP + '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    qkv = x.to(work) @ converted(params["w_qkv"], work).T + converted(params["b_qkv"], work)
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k.to(work), k_new], dim=2)
    v = torch.cat([past_v.to(work), v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed)) @ converted(params["w_o"], work).T + converted(params["b_o"], work)
    return out.to(x.dtype), k.to(x.dtype), v.to(x.dtype)
'''}, "why": "AL: float32 copies of half parameters kept per id()"},
 # ---- class AK: the gradient path cut for half precision only
 {"name": "AK-p1-half-split-detached", "correct": False, "cells": {"interleaved": swap(SPLIT,
     "    return x.reshape(b, t, d // num_heads", "    if x.dtype in (torch.float16, torch.bfloat16):\n        x = x.detach()\n    return x.reshape(b, t, d // num_heads")},
  "why": "AK: split detached for half inputs only"},
 {"name": "AK-p6-half-keys-detached", "correct": False, "cells": {"left_padded": swap(LEFT,
     "    k = split_heads(memory", "    if x.dtype in (torch.float16, torch.bfloat16):\n        memory = memory.detach()\n    k = split_heads(memory")},
  "why": "AK: memory detached (keys and values) for half inputs only"},
 {"name": "AK-p7-half-new-keys-no-grad", "correct": False, "cells": {"cache": swap(CACHE,
     "    k = torch.cat([past_k, k_new], dim=2)", "    if x.dtype in (torch.float16, torch.bfloat16):\n        k_new = k_new.detach()\n    k = torch.cat([past_k, k_new], dim=2)")},
  "why": "AK: the new keys detached for half inputs only"},
 # ---- class AN: a value at a limit the text includes refused
 {"name": "AN-p1-d0-refused", "correct": False, "cells": {"interleaved": swap(SPLIT,
     "    if d % num_heads:", "    if d == 0 or d % num_heads:")},
  "why": "AN: D = 0 is divisible by every num_heads"},
 {"name": "AN-p4-no-query-heads-refused", "correct": False, "cells": {"cost": swap(COST,
     "    if num_kv_heads <= 0", "    if num_heads == 0 or num_kv_heads <= 0")},
  "why": "AN: num_heads = 0 is a multiple of every num_kv_heads"},
 {"name": "AN-p4-g-equal-h-wrong", "correct": False, "cells": {"cost": swap(COST,
     "    q_width, kv_width", "    if num_kv_heads == num_heads:\n        num_kv_heads = 1\n    q_width, kv_width")},
  "why": "AN: G = H (ordinary multi-head attention) counted as G = 1"},
 {"name": "AN-p4-past-0-refused", "correct": False, "cells": {"cost": swap(COST,
     "    q_width, kv_width", "    if past < 1:\n        raise ValueError('past')\n    q_width, kv_width")},
  "why": "AN: past may be 0"},
 {"name": "AN-p6-length-S-wrong", "correct": False, "cells": {"left_padded": swap(LEFT,
     "s - memory_lengths.long()[:, None]", "s - memory_lengths.long().clamp(max=s - 1)[:, None]")},
  "why": "AN: a length equal to S (no padding) cut to S - 1"},
 {"name": "AN-p7-p0-refused", "correct": False, "cells": {"cache": swap(CACHE,
     "    qkv = x @", "    if p == 0:\n        raise ValueError('empty cache')\n    qkv = x @")},
  "why": "AN: P may be 0"},
]
