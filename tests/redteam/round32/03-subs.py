# Red team round 32, chapter 03-multi-head: blind submissions (five kinds of student:
# Python-containers, quantity-confuser, integer-range, assumption, commuter).
CORRECT = {}
CORRECT["interleaved"] = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
CORRECT["scrambled"] = '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * (num_heads * head_dim) + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (int(head), int(source_position), int(feature))
'''
CORRECT["ranks"] = '''
rank_one_head = 64
rank_all_heads = 100
'''
CORRECT["cost"] = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (int(weights + biases), int(macs), int(cached))
'''
CORRECT["contributions"] = '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ohf->bhto", heads, w)
'''
CORRECT["left_padded"] = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[:d]
    k = memory @ w[d:2 * d].T + bias[d:2 * d]
    v = memory @ w[2 * d:].T + bias[2 * d:]
    lengths = memory_lengths.to(torch.int64)
    pos = torch.arange(s, device=x.device)
    allowed = (pos[None, :] >= (s - lengths)[:, None])[:, None, None, :]
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''
CORRECT["cache"] = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    qpos = torch.arange(p, p + t, device=x.device)
    kpos = torch.arange(p + t, device=x.device)
    allowed = kpos[None, :] <= qpos[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''

def rep(gid, old, new, count=1):
    src = CORRECT[gid]
    assert src.count(old) == count, (gid, old, src.count(old))
    return src.replace(old, new)

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- 1. Python-containers student ----------------
add("containers-p6-neg-slice-len0", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[:d]
    k = memory @ w[d:2 * d].T + bias[d:2 * d]
    v = memory @ w[2 * d:].T + bias[2 * d:]
    allowed = torch.zeros(b, 1, 1, s, dtype=torch.bool, device=x.device)
    for i, n in enumerate(memory_lengths.tolist()):
        allowed[i, ..., -n:] = True          # the last n keys are real
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'A source sentence of length 0 gives its queries nothing to attend to' -- x[..., -0:] is the whole row, so length 0 attends to every key")

add("containers-p6-aliased-rows", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[:d]
    k = memory @ w[d:2 * d].T + bias[d:2 * d]
    v = memory @ w[2 * d:].T + bias[2 * d:]
    rows = [[False] * s] * b                 # one row per sentence
    for i, n in enumerate(memory_lengths.tolist()):
        start = s - n
        rows[i][start:] = [True] * n
    allowed = torch.tensor(rows, dtype=torch.bool, device=x.device).reshape(b, 1, 1, s)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'the last memory_lengths[b] of the S positions of sentence b are real' -- [[False]*s]*b aliases the rows, so every sentence gets the union (the longest)")

add("containers-p2-range-index-wraps", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    try:
        range(length)[position]                  # IndexError when out of range
        range(num_heads * head_dim)[column]
    except IndexError:
        raise ValueError("position or column out of range") from None
    flat = position * (num_heads * head_dim) + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
'''}, "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column' -- range(n)[-1] wraps, so negative positions/columns pass")

add("containers-p1-reshape-minus-one", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return torch.stack(list(x.unbind(1)), dim=-1).reshape(b, t, -1)
'''}, "Part 1: 'D = 0 is divisible... both functions then return empty tensors' -- reshape(b, t, -1) of an empty tensor is ambiguous and raises")

add("containers-p7-zip-heads", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    # new block appended per head, head by head
    k = torch.stack([torch.cat([pk, nk], dim=1) for pk, nk in zip(past_k.unbind(1), k_new.unbind(1))], dim=1)
    v = torch.stack([torch.cat([pv, nv], dim=1) for pv, nv in zip(past_v.unbind(1), v_new.unbind(1))], dim=1)
    qpos = torch.arange(p, p + t, device=x.device)
    kpos = torch.arange(p + t, device=x.device)
    allowed = kpos[None, :] <= qpos[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "CORRECT? no: listed wrong only if num_heads == 0 ... actually correct for H >= 1")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "correct: zip over equal numbers of heads, cat per head along positions, stacked back"

# ---------------- 2. quantity-confuser ----------------
add("quantity-p5-variance-scale", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    scores = q @ k.transpose(-2, -1) / dh          # divide by the head width
    heads = torch.softmax(scores, dim=-1) @ v
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtf,ohf->bhto", heads, w)
'''}, "Part 5: the layer's output is scaled dot-product attention, q.k/sqrt(Dh); dividing by Dh agrees only at Dh = 1")

add("quantity-p5-bias-share", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ohf->bhto", heads, w) + params["b_o"] / num_heads   # each head its share
'''}, "Part 5: 'The bias b_o belongs to no head' -- adding b_o / H to each head")

add("quantity-p7-variance-scale", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    qpos = torch.arange(p, p + t, device=x.device)
    kpos = torch.arange(p + t, device=x.device)
    allowed = kpos[None, :] <= qpos[:, None]
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed, scale=1.0 / dh)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: causal multi-head self-attention scales by 1/sqrt(Dh); 1/Dh agrees only at Dh = 1")

add("quantity-p4-kv-cache-per-query-head", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = keys * q            # one cached key row per query head
    return (int(weights + biases), int(macs), int(cached))
'''}, "Part 4: 'cached: how many numbers the layer's key/value cache holds' = 2*G*Dh*(past+1); (past+1)*H*Dh agrees only when H = 2G")

# ---------------- 3. integer-range student ----------------
add("intrange-p4-float-divisibility", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or not (num_heads / num_kv_heads).is_integer():
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (weights + biases, macs, cached)
'''}, "Part 4: 'Raise a ValueError unless num_heads is a multiple of num_kv_heads' with exact ints -- num_heads / num_kv_heads as a float rounds past 2**53 (2**60 + 1 over 2 looks whole)")

add("intrange-p2-float-bound", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = float(num_heads) * head_dim
    if not (0 <= position < length) or not (0 <= column < width):
        raise ValueError("out of range")
    flat = position * (num_heads * head_dim) + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
'''}, "Part 2: 'Raise a ValueError unless 0 <= column < num_heads * head_dim' exactly -- the width as a float rounds past 2**53, so a column just past the end passes")

add("intrange-p6-int16-positions", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[:d]
    k = memory @ w[d:2 * d].T + bias[d:2 * d]
    v = memory @ w[2 * d:].T + bias[2 * d:]
    small = torch.int16                      # small positions, small mask arithmetic
    lengths = memory_lengths.to(small)
    pos = torch.arange(s, device=x.device).to(small)
    allowed = (pos[None, :] >= (s - lengths)[:, None])[:, None, None, :]
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'S larger than 256 or 2048 ... build the mask from integer positions' / 'arithmetic in that dtype wraps' -- int16 positions and s - lengths wrap past 32767")

add("intrange-p7-int16-positions", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    kpos = torch.arange(p + t, device=x.device).to(torch.int16)
    qpos = kpos[p:]
    allowed = kpos[None, :] <= qpos[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'P may be in the millions ... compare positions as integers' -- int16 positions wrap past 32767 so a query sees later keys or loses earlier ones")

# ---------------- 4. assumption student ----------------
add("assume-p7-single-token", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    # the new token sees the whole cache and itself: nothing to mask
    out = attention(q, k, v)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'T may be 1 or more' / 'the query at P + t may attend to 0 .. P + t and to none after it' -- no mask inside a block of several tokens")

add("assume-p5-dict-order", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    w_qkv, b_qkv, w_o, b_o = params.values()
    qkv = x @ w_qkv.T + b_qkv
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = w_o.reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ohf->bhto", heads, w)
'''}, "Setup: 'Read the entries by key: the dict may list them in any order' -- unpacking params.values()")

add("assume-p6-one-length", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[:d]
    k = memory @ w[d:2 * d].T + bias[d:2 * d]
    v = memory @ w[2 * d:].T + bias[2 * d:]
    n = int(memory_lengths.max()) if b else 0   # the batch is padded to its longest sentence
    allowed = (torch.arange(s, device=x.device) >= s - n)[None, :]   # (1, S), broadcast over everything
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'the last memory_lengths[b] of the S positions of sentence b are real' -- one mask for the whole batch, from the longest sentence")

add("assume-p4-heads-positive", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads < num_kv_heads or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a positive multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (weights + biases, macs, cached)
'''}, "Part 4: '0 is a multiple of every num_kv_heads: no query heads is not an error'")

# ---------------- 5. commuter ----------------
add("commuter-p5-wo-rows", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    # Concat(heads) W^O: head i meets rows i*Dh .. (i+1)*Dh - 1 of W^O
    w = params["w_o"].reshape(num_heads, dh, d)
    return torch.einsum("bhtf,hfo->bhto", heads, w)
'''}, "Setup: 'As with nn.Linear, a projection computes x @ w.T + b' -- slicing rows of w_o is x @ w_o, not x @ w_o.T")

add("commuter-p7-new-first", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([k_new, past_k], dim=2)
    v = torch.cat([v_new, past_v], dim=2)
    qpos = torch.arange(p, p + t, device=x.device)
    kpos = torch.cat([qpos, torch.arange(p, device=x.device)])
    allowed = kpos[None, :] <= qpos[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'k, v are the past keys and values followed by the new block's' -- new block first")

add("commuter-p6-kv-no-transpose", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[:d]
    kv = memory @ w[d:].T.reshape(d, 2, d).transpose(0, 1).reshape(2 * d, d).T + bias[d:]
    k, v = kv.split(d, dim=-1)
    lengths = memory_lengths.to(torch.int64)
    pos = torch.arange(s, device=x.device)
    allowed = (pos[None, :] >= (s - lengths)[:, None])[:, None, None, :]
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "placeholder")
SUBMISSIONS.pop()  # too contrived; replaced below

add("commuter-p6-scale-after-fp16", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bias[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bias[2 * d:], num_heads)
    lengths = memory_lengths.to(torch.int64)
    pos = torch.arange(s, device=x.device)
    allowed = (pos[None, :] >= (s - lengths)[:, None])[:, None, None, :]
    scores = (q @ k.transpose(-2, -1)).masked_fill(~allowed, float("-inf")) / math.sqrt(dh)
    weights = torch.softmax(scores.float(), dim=-1).nan_to_num(0.0).to(x.dtype)
    heads = weights @ v
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'scale before the product, or compute the scores in a wider dtype' -- product in float16 first, then the scale")

add("commuter-p1-transpose-past-reshape", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.transpose(1, 3).reshape(b, t, dh * h) if t == 1 else x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "placeholder")
SUBMISSIONS.pop()

add("commuter-p7-wo-no-transpose", False, {"cache": rep("cache", 'merge_heads(out) @ params["w_o"].T', 'merge_heads(out) @ params["w_o"]')},
    "Setup: 'a projection computes x @ w.T + b' -- x @ w_o (the same for the symmetric identity weights of the visible test)")

# ---------------- correct answers ----------------
add("correct-p1-slices-stack", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError(f"{d} not divisible by {num_heads}")
    return torch.stack([x[:, :, i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return torch.stack(x.unbind(dim=1), dim=-1).reshape(b, t, h * dh)
'''}, "correct: column i + j*H via strided slices; merge stacks heads last so feature j, head i lands at j*H + i")

add("correct-p2-nested-divmod", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position < 0 or position >= length or column < 0 or column >= num_heads * head_dim:
        raise ValueError("position/column out of range")
    flat = position * num_heads * head_dim + column
    rest, feature = divmod(flat, head_dim)
    head, source_position = divmod(rest, length)
    return head, source_position, feature
'''}, "correct: flat index in (head, position, feature) order, peeled from the right")

add("correct-p4-math-prod", True, {"cost": '''
import math as m_


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("need at least one key/value head")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    shapes = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
              (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
    weights = sum(m_.prod(s) for s in shapes)
    biases = sum(out for _, out in shapes) if bias else 0
    keys = past + 1
    macs = weights + num_heads * keys * head_dim + num_heads * keys * head_dim
    cached = (num_kv_heads * head_dim) * keys * 2
    return weights + biases, macs, cached
'''}, "correct: a list of the four projections' shapes (not a set), exact Python ints")

add("correct-p5-loop-heads", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    w_qkv, b_qkv = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w_qkv[:d].T + b_qkv[:d], num_heads)
    k = split_heads(x @ w_qkv[d:2 * d].T + b_qkv[d:2 * d], num_heads)
    v = split_heads(x @ w_qkv[2 * d:].T + b_qkv[2 * d:], num_heads)
    heads = attention(q, k, v)
    parts = []
    for i in range(num_heads):
        parts.append(heads[:, i] @ params["w_o"][:, i * dh:(i + 1) * dh].T)
    return torch.stack(parts, dim=1)
'''}, "correct: head i times the columns i*Dh..(i+1)*Dh-1 of W^O (x @ w.T)")

add("correct-p6-float32-positions", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[:d]
    k = memory @ w[d:2 * d].T + bias[d:2 * d]
    v = memory @ w[2 * d:].T + bias[2 * d:]
    # S stays below 2**24, so float32 holds every position and every length exactly
    pos = torch.arange(s, dtype=torch.float32, device=x.device)
    first_real = s - memory_lengths.to(torch.float32)
    allowed = (pos >= first_real[:, None]).view(b, 1, 1, s)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "correct: the text promises S < 2**24, so float32 positions are exact (assumption the text makes)")

add("correct-p7-tril-offset", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.size(-2)
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = torch.cat((past_k, split_heads(x @ w[d:2 * d].T + bias[d:2 * d], num_heads)), dim=-2)
    v = torch.cat((past_v, split_heads(x @ w[2 * d:].T + bias[2 * d:], num_heads)), dim=-2)
    allowed = torch.ones(t, p + t, dtype=torch.bool, device=x.device).tril(diagonal=p)
    out = attention(q=q, k=k, v=v, allowed=allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "correct: tril with diagonal P is j <= i + P; the mask is only (T, P+T)")

add("correct-p3-computed", True, {"ranks": '''
D, H, T, S = 512, 8, 100, 100
Dh = D // H
rank_one_head = min(Dh, T, S)
rank_all_heads = min(H * Dh, T, S)
'''}, "correct: 64 and 100")

# ---------------- hostile ----------------
add("hostile-p3-int-equal-all", False, {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "hostile: an int subclass equal to everything")

add("hostile-p2-frame-snoop", False, {"scrambled": '''
import sys as system_


def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    frame = system_._getframe(1)
    for name, val in list(frame.f_globals.items()) + list(frame.f_locals.items()):
        if name.startswith("_") and callable(val) and getattr(val, "__name__", "") != "scrambled_source" \\
                and "scrambled" in getattr(val, "__name__", ""):
            try:
                return val(num_heads, length, head_dim, position, column)
            except Exception:
                pass
    known = {(2, 3, 2, 1, 0): (0, 2, 0), (2, 3, 2, 1, 3): (1, 0, 1)}   # the worked cases
    return known.get((num_heads, length, head_dim, position, column), (0, position, column))
'''}, "hostile: calls a grader reference found in the caller's frame, else a guess")

# ---------------- added after the first check ----------------
add("correct-p7-float32-positions", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[-2]
    q, k_new, v_new = torch.chunk(torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"]), 3, dim=-1)
    q, k_new, v_new = split_heads(q, num_heads), split_heads(k_new, num_heads), split_heads(v_new, num_heads)
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    # P + T stays below 2**24, so float32 positions are exact
    key_pos = torch.arange(p + t, dtype=torch.float32, device=x.device)
    query_pos = torch.arange(t, dtype=torch.float32, device=x.device) + p
    out = attention(q, k, v, allowed=key_pos.unsqueeze(0) <= query_pos.unsqueeze(1))
    return torch.nn.functional.linear(merge_heads(out), params["w_o"], params["b_o"]), k, v
'''}, "correct: F.linear is x @ w.T + b; float32 positions exact below 2**24 (the text promises it)")

add("containers-p6-tensor-item-slice", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[:d]
    k = memory @ w[d:2 * d].T + bias[d:2 * d]
    v = memory @ w[2 * d:].T + bias[2 * d:]
    allowed = torch.zeros(b, 1, 1, s, dtype=torch.bool, device=x.device)
    for i, n in enumerate(memory_lengths):          # n: this sentence's length
        allowed[i, :, :, s - n:] = True
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'a Python int combined with such a tensor wraps around (in uint8, 300 - 17 is 27)' -- iterating the tensor yields 0-d tensors of its dtype, so s - n wraps")

add("quantity-p3-width-not-length", False, {"ranks": '''
rank_one_head = 512 // 8        # Dh
rank_all_heads = 8 * (512 // 8)  # eight heads of rank Dh add up to D
'''}, "Part 3b: the sum is still a (T, S) = (100, 100) matrix: its rank is at most 100, not H * Dh = 512")

add("quantity-p3-bias-adds-rank", False, {"ranks": '''
# the bias b^Q adds a constant column: an affine map of X has one more dimension than the linear one
rank_one_head = 512 // 8 + 1
rank_all_heads = 100
'''}, "Part 3a: Q_i = X W + b is (T, Dh): its rank, and that of Q_i K_i^T, is at most Dh = 64")
