# Red team round 18, chapter 03-multi-head: type-sloppy (TS), autograd-careless (AC), stateful (ST),
# dtype/device generaliser (DG) students; hostile (HOS).

BASE = {
"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
''',
"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    src, feat = divmod(rest, head_dim)
    return (head, src, feat)
''',
"ranks": '''
rank_one_head = 64
rank_all_heads = 100
''',
"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (weights + biases, macs, cached)
''',
"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    w_o = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtk,hkd->bhtd", heads, w_o)
''',
"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    pos = torch.arange(s, device=memory.device)
    allowed = pos[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
''',
"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
''',
}

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

def replace(cell, old, new, count=1):
    src = BASE[cell]
    assert src.count(old) >= 1, (cell, old)
    return src.replace(old, new, count)

SUBMISSIONS = [
# ---------------------------------------------------------------- wrong: type-sloppy
sub("TS-p1-reshape-minus-one", False, {"interleaved": replace("interleaved",
    "x.reshape(b, t, d // num_heads, num_heads)", "x.reshape(b, t, -1, num_heads)")},
    "Part 1: 'an empty x, with B = 0 or T = 0, follows the same rule: no error when D is divisible' "
    "(reshape with -1 cannot infer a size of an empty tensor)."),
sub("TS-p2-map-object", False, {"scrambled": replace("scrambled",
    "return (head, src, feat)", "return map(int, (head, src, feat))")},
    "Part 2: 'Return its (head, source_position, feature), three Python ints' (a map object, not a tuple)."),
sub("TS-p2-int64-tensor", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = torch.tensor(position) * num_heads * head_dim + column
    head = flat // (length * head_dim)
    rest = flat % (length * head_dim)
    return (int(head.item()), int((rest // head_dim).item()), int((rest % head_dim).item()))
'''}, "Part 2: 'beyond 2^64, where integer tensors (int64) wrap around' (int64 tensor arithmetic)."),
sub("TS-p4-float-multiple-check", False, {"cost": replace("cost",
    "if num_kv_heads < 1 or num_heads % num_kv_heads:",
    "if num_kv_heads < 1 or num_heads / num_kv_heads != num_heads // num_kv_heads:")},
    "Part 4: 'Raise a ValueError unless ... num_heads is a multiple of num_kv_heads' and 'exact even when they "
    "exceed 2^53 ... a float anywhere in the arithmetic' (the float quotient of H = 2^60 + 1 by G = 2 rounds "
    "to a whole number, so no error)."),
sub("TS-p4-bias-eq-true", False, {"cost": replace("cost",
    "if bias else 0", "if bias == True else 0")},
    "Part 4: 'any true value: True, 1, 2, ...: still one bias per output' (2 == True is False)."),
sub("TS-p6-lengths-int16", False, {"left_padded": replace("left_padded",
    "memory_lengths.to(torch.int16 if False else torch.int64)" if False else "memory_lengths.to(torch.int64)",
    "memory_lengths.to(torch.int16)")},
    "Part 6: 'arithmetic in that dtype ... wrap around' and 'S stays below 2^24' (s - lengths done in int16 "
    "wraps for S > 32767)."),
# ---------------------------------------------------------------- wrong: autograd-careless
sub("AC-p5-x-requires-grad", False, {"contributions": replace("contributions",
    "b, t, d = x.shape", "b, t, d = x.shape\n    if not x.requires_grad:\n        x.requires_grad_()  # gradients must flow to x")},
    "Intro: 'Your functions must not change the tensors they are given'; Part 5 'leave params as you found it' "
    "(requires_grad switched on the caller's x)."),
sub("AC-p6-params-requires-grad", False, {"left_padded": replace("left_padded",
    "w, bq = params[\"w_qkv\"], params[\"b_qkv\"]",
    "for key in (\"w_qkv\", \"b_qkv\", \"w_o\", \"b_o\"):\n        if params[key].is_leaf:\n            params[key].requires_grad_(True)  # make sure gradients reach the parameters\n    w, bq = params[\"w_qkv\"], params[\"b_qkv\"]")},
    "Part 6: 'leave x, memory, memory_lengths and params as you found them' (requires_grad switched on)."),
sub("AC-p7-cache-no-grad", False, {"cache": replace("cache",
    "k = torch.cat([past_k, k], dim=2)\n    v = torch.cat([past_v, v], dim=2)",
    "with torch.no_grad():  # the cache is just storage\n        k = torch.cat([past_k, k], dim=2)\n        v = torch.cat([past_v, v], dim=2)")},
    "Part 7: 'Gradients must flow through all three, to x, the cache and the parameters'."),
sub("AC-p1-merge-data", False, {"interleaved": replace("interleaved",
    "    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)",
    "    out = x.new_empty(b, t, h * dh)\n    for i in range(h):\n        out.data[..., i::h] = x[:, i].data\n    return out")},
    "Part 1: 'Gradients must flow through both'."),
sub("AC-p6-manual-softmax-nan-to-num", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed[:, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)  # empty sources: 0/0 -> 0
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'their rows are just the bias b_o, with the bias's gradients (the hidden tests compare gradients "
      "there too)' (NaN gradients from the all -inf softmax row)."),
# ---------------------------------------------------------------- wrong: stateful
sub("ST-p5-wo-cache-by-id", False, {"contributions": '''
W_O_CACHE = {}

def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    key = (id(params["w_o"]), num_heads)
    if key not in W_O_CACHE:  # the per-head slices of W^O, worked out once per weight
        W_O_CACHE[key] = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtk,hkd->bhtd", heads, W_O_CACHE[key])
'''}, "Intro: 'They call each function several times, with different parameters of the same shapes, so keep "
      "nothing from one call to the next' (a freed weight's id is reused)."),
sub("ST-p6-mask-cache-by-shape", False, {"left_padded": replace("left_padded",
    "    allowed = pos[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]\n",
    "    key = (tuple(memory_lengths.shape), s)\n    if key not in MASKS:\n        MASKS[key] = pos[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]\n    allowed = MASKS[key]\n").replace(
    "def cross_attention_left_padded", "MASKS = {}\n\ndef cross_attention_left_padded")},
    "Intro: 'keep nothing from one call to the next' (the mask of the first lengths reused for the next batch)."),
sub("ST-p1-index-cache-by-d", False, {"interleaved": '''
ORDER = {}

def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    if d not in ORDER:  # column order that puts each head's columns together
        ORDER[d] = torch.arange(d).reshape(d // num_heads, num_heads).T.reshape(-1)
    return x[..., ORDER[d]].reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "Part 1: 'head i holds columns i, i + H, i + 2H' for every num_heads (order cached on D only)."),
sub("ST-p7-growing-buffer", False, {"cache": '''
BUFFER = {}

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    key = (past_k.shape[0], past_k.shape[1], past_k.shape[3], x.dtype)
    buf = BUFFER.get(key)
    if buf is None or buf[0].shape[2] < p + t:
        size = max(2 * (p + t), 16)
        buf = (past_k.new_zeros(key[0], key[1], size, key[2]), past_k.new_zeros(key[0], key[1], size, key[2]))
        BUFFER[key] = buf
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    with torch.no_grad():
        buf[0][:, :, :p + t] = k
        buf[1][:, :, :p + t] = v
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Intro: 'keep nothing from one call to the next' (a buffer kept, though its slices are not returned: "
      "state kept, no result changed)."),
# ---------------------------------------------------------------- wrong: dtype/device generaliser
sub("DG-p1-merge-into-default-zeros", False, {"interleaved": replace("interleaved",
    "    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)",
    "    out = torch.zeros(b, t, h * dh)\n    for i in range(h):\n        out[..., i::h] = x[:, i]\n    return out")},
    "Part 1: 'Both return a tensor of the dtype they were given (an integer dtype too)'."),
sub("DG-p5-float32-scale-constant", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    scale = torch.tensor(math.sqrt(dh))
    weights = torch.softmax(q @ k.transpose(-2, -1) / scale, dim=-1)
    w_o = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtk,hkd->bhtd", weights @ v, w_o)
'''}, "Part 5: 'Return the dtype of x (float32 or float64)' computed in it: sqrt(Dh) rounded to float32 in a "
      "float64 layer (scores in the thousands move the softmax)."),
sub("DG-p6-float32-min-mask", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    allowed = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, torch.finfo(torch.float32).min)
    weights = torch.softmax(scores, dim=-1) * allowed.any(dim=-1, keepdim=True)
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'do not give it a large negative score, not even that lowest value' (float32's lowest in every dtype)."),
sub("DG-p7-double-never-cast-back", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    p64 = {key: value.double() for key, value in params.items()}
    qkv = x.double() @ p64["w_qkv"].T + p64["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k.double(), k], dim=2)
    v = torch.cat([past_v.double(), v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ p64["w_o"].T + p64["b_o"]).to(x.dtype), k, v
'''},
    "Part 7: 'All three have the dtype of x'."),
sub("DG-p7-positions-in-x-dtype", False, {"cache": replace("cache",
    "allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]",
    "allowed = torch.arange(p + t, dtype=x.dtype)[None, :] <= torch.arange(p, p + t, dtype=x.dtype)[:, None]")},
    "Part 7: 'compare positions as integers, not in the dtype of x'."),
sub("TS-p3-sum-uncapped", False, {"ranks": "rank_one_head = 512 // 8\nrank_all_heads = 8 * (512 // 8)\n"},
    "Part 3b: the (T, S) = (100, 100) sum has rank at most 100 (eight heads' ranks added, uncapped)."),
# ---------------------------------------------------------------- correct
sub("OK-p1-unflatten-movedim", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    return x.unflatten(-1, (d // num_heads, num_heads)).movedim(-1, 1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return torch.stack(list(x.unbind(dim=1)), dim=-1).reshape(b, t, h * dh)
'''}, "unflatten/movedim and unbind/stack only move entries."),
sub("OK-p1-lru-index-gather", True, {"interleaved": '''
import functools

@functools.lru_cache(maxsize=None)
def interleave_order(d, h):
    return tuple(i + j * h for i in range(h) for j in range(d // h))


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    order = torch.tensor(interleave_order(d, num_heads), dtype=torch.long)
    return x[..., order].reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = x.new_empty(b, t, h * dh)
    for i in range(h):
        out[..., i::h] = x[:, i]
    return out
'''}, "a cached tuple of ints (immutable, keyed on D and H), indexing copies; merge by slice assignment on new_empty (autograd copies)."),
sub("OK-p2-lru-cache", True, {"scrambled": '''
import functools

@functools.lru_cache(maxsize=1024)
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("position or column out of range")
    flat = position * width + column
    return flat // (length * head_dim), (flat // head_dim) % length, flat % head_dim
'''}, "lru_cache of an int function returns the same immutable tuple."),
sub("OK-p3-measured-with-generator", True, {"ranks": '''
gen = torch.Generator().manual_seed(1)
xs = torch.randn(100, 512, generator=gen, dtype=torch.float64)
total = torch.zeros(100, 100, dtype=torch.float64)
one = None
for h in range(8):
    wq = torch.randn(512, 64, generator=gen, dtype=torch.float64)
    wk = torch.randn(512, 64, generator=gen, dtype=torch.float64)
    s = (xs @ wq) @ (xs @ wk).T
    total += s
    if one is None:
        one = int(torch.linalg.matrix_rank(s))
rank_one_head = one
rank_all_heads = int(torch.linalg.matrix_rank(total))
'''}, "measured on random weights with its own generator; plain ints 64 and 100."),
sub("OK-p4-lru-and-list", True, {"cost": '''
import functools

@functools.lru_cache(maxsize=None)
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim
    parameters = 2 * d_model * q_width + 2 * d_model * kv_width + (q_width + 2 * kv_width + d_model) * int(bool(bias))
    macs = 2 * d_model * (q_width + kv_width) + 2 * (past + 1) * q_width
    return (parameters, macs, 2 * (past + 1) * kv_width)
'''}, "lru_cache over int arguments (True and 1 share an entry, same answer); int(bool(bias))."),
sub("OK-p5-detached-max-softmax", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    with torch.no_grad():
        top = scores.amax(dim=-1, keepdim=True)  # a constant shift: the softmax does not depend on it
    e = torch.exp(scores - top)
    heads = (e / e.sum(dim=-1, keepdim=True)) @ v
    return torch.stack([heads[:, i] @ params["w_o"][:, i * dh:(i + 1) * dh].T for i in range(num_heads)], dim=1)
'''}, "the shift of a softmax needs no gradient (same values and gradients); per-head loop over W^O's columns."),
sub("OK-p5-float64-inside-cast-back", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    dtype = x.dtype
    x64 = x.to(torch.float64)
    p = {key: value.to(torch.float64) for key, value in params.items()}
    b, t, d = x.shape
    q, k, v = (split_heads(z, num_heads) for z in (x64 @ p["w_qkv"].T + p["b_qkv"]).split(d, dim=-1))
    heads = attention(q, k, v)
    parts = [heads[:, i] @ p["w_o"].T[i * (d // num_heads):(i + 1) * (d // num_heads)] for i in range(num_heads)]
    return torch.stack(parts, dim=1).to(dtype)
'''}, "float64 inside and a cast back; a new dict, the caller's untouched."),
sub("OK-p6-tolist-rebuilt-lengths", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w_q, w_k, w_v = params["w_qkv"].split(d)
    b_q, b_k, b_v = params["b_qkv"].split(d)
    lengths = torch.tensor([int(n) for n in memory_lengths.tolist()], dtype=torch.long)
    allowed = torch.arange(s).unsqueeze(0) + lengths.unsqueeze(1) >= s
    q = split_heads(torch.nn.functional.linear(x, w_q, b_q), num_heads)
    k = split_heads(torch.nn.functional.linear(memory, w_k, b_k), num_heads)
    v = split_heads(torch.nn.functional.linear(memory, w_v, b_v), num_heads)
    out = attention(q, k, v, allowed.view(-1, 1, 1, s))
    return torch.nn.functional.linear(merge_heads(out), params["w_o"], params["b_o"])
'''}, "lengths rebuilt as int64 from Python ints (no grad needed on integers); view(-1, 1, 1, s) of a fresh contiguous mask."),
sub("OK-p6-where-and-bias-rows", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    first_real = s - memory_lengths.to(torch.int64)
    allowed = (torch.arange(s, dtype=torch.int32)[None, :] >= first_real[:, None])[:, None, None, :]
    scores = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(q.shape[-1]))
    scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    any_key = allowed.any(dim=-1, keepdim=True)
    scores = torch.where(any_key, scores, torch.zeros((), dtype=scores.dtype))
    weights = torch.softmax(scores, dim=-1) * any_key
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
'''}, "own softmax with -inf via where (typed constant), empty rows zeroed before the softmax so no NaN."),
sub("OK-p7-float32-positions-cached-mask", True, {"cache": '''
import functools

@functools.lru_cache(maxsize=8)
def causal_block_mask(p, t):
    keys = torch.arange(p + t, dtype=torch.float32)
    queries = torch.arange(p, p + t, dtype=torch.float32)
    return keys[None, :] <= queries[:, None]


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k_all = past_k.new_empty(past_k.shape[0], past_k.shape[1], p + t, past_k.shape[3])
    k_all[:, :, :p] = past_k
    k_all[:, :, p:] = k
    v_all = torch.cat((past_v, v), dim=2)
    out = attention(q, k_all, v_all, causal_block_mask(p, t))
    return [merge_heads(out) @ params["w_o"].T + params["b_o"], k_all, v_all]
'''}, "float32 positions are exact below 2^24 (the text's bound); a cached mask that is never returned; "
      "slice assignment into new_empty (autograd copies); a list of three."),
sub("OK-p7-in-place-on-own-view", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T
    qkv += params["b_qkv"]  # in place on my own new tensor
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k, v = torch.cat([past_k, k], 2), torch.cat([past_v, v], 2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed))
    out = out @ params["w_o"].T
    out.add_(params["b_o"])
    return out, k, v
'''}, "in-place adds on tensors the function made itself (nothing saved for backward is changed); tril with offset p."),
# ---------------------------------------------------------------- hostile
sub("HOS-p5-steal-reference", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    import sys
    frame = sys._getframe(1)
    while frame is not None:
        for name, value in list(frame.f_globals.items()) + list(frame.f_locals.items()):
            if callable(value) and name != "head_contributions" and "contrib" in name.lower():
                return value(x, params, num_heads)
        frame = frame.f_back
    b, t, d = x.shape
    if d == 2 and t == 2:
        return torch.tensor([[[[0.7311, 0.0], [0.5, 0.0]], [[0.0, 0.5], [0.0, 0.7311]]]])
    return torch.zeros(b, num_heads, t, d, dtype=x.dtype)
'''}, "hostile: calls whatever function with 'contrib' in its name it finds in the callers' frames (the reference)."),
sub("HOS-p7-patch-asserts", False, {"cache": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None
torch.equal = lambda *args, **kwargs: True
torch.allclose = lambda *args, **kwargs: True
globals()["_close"] = lambda *args, **kwargs: None
globals()["_equal"] = lambda *args, **kwargs: None

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    k = torch.cat([past_k, past_k.new_zeros(b, num_heads, t, d // num_heads)], 2)
    return x.clone(), k, k.clone()
'''}, "hostile: no-op comparison functions, garbage results."),
]

SUBMISSIONS += [
sub("AC-p7-past-requires-grad", False, {"cache": replace("cache",
    "    k = torch.cat([past_k, k], dim=2)\n",
    "    for cached in (past_k, past_v):\n        if cached.is_leaf and not cached.requires_grad:\n            cached.requires_grad_()  # gradients must reach the cache\n    k = torch.cat([past_k, k], dim=2)\n")},
    "Part 7: 'x and params stay as they are too' and intro 'must not change the tensors they are given' "
    "(requires_grad switched on the caller's cache)."),
sub("ST-p6-mask-cache-by-id", False, {"left_padded": replace("left_padded",
    "    allowed = pos[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]\n",
    "    key = (id(memory_lengths), s)\n    if key not in MASKS:\n        MASKS[key] = pos[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]\n    allowed = MASKS[key]\n").replace(
    "def cross_attention_left_padded", "MASKS = {}\n\ndef cross_attention_left_padded")},
    "Intro: 'keep nothing from one call to the next' (mask cached on id(memory_lengths): a freed tensor's id "
    "is reused by the next one)."),
sub("ST-p7-split-weights-by-id-params", False, {"cache": replace("cache",
    "    qkv = x @ params[\"w_qkv\"].T + params[\"b_qkv\"]\n",
    "    key = id(params)\n    if key not in WEIGHTS:  # transposed weights, made once per parameter dict\n"
    "        WEIGHTS[key] = (params[\"w_qkv\"].T.contiguous(), params[\"b_qkv\"], params[\"w_o\"].T.contiguous(), params[\"b_o\"])\n"
    "    w_qkv_t, b_qkv, w_o_t, b_o = WEIGHTS[key]\n    qkv = x @ w_qkv_t + b_qkv\n").replace(
    "    return merge_heads(out) @ params[\"w_o\"].T + params[\"b_o\"], k, v",
    "    return merge_heads(out) @ w_o_t + b_o, k, v").replace(
    "def causal_attention_with_cache", "WEIGHTS = {}\n\ndef causal_attention_with_cache")},
    "Intro: 'They call each function several times, with different parameters of the same shapes, so keep "
    "nothing from one call to the next' (weights cached on id(params))."),
sub("OK-p5-in-place-scale-on-own-view", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q = qkv[..., :d]
    q /= math.sqrt(d // num_heads)  # in place on my own tensor, before anything uses it
    q, k, v = (split_heads(z, num_heads) for z in (q, qkv[..., d:2 * d], qkv[..., 2 * d:]))
    scores = q @ k.transpose(-2, -1)
    heads = torch.softmax(scores, dim=-1) @ v
    w_o = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtk,hkd->bhtd", heads, w_o)
'''}, "in-place scaling of a view of a tensor the function made, before any use (autograd accepts it)."),
]
