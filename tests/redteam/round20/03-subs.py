# Red team round 20, chapter 3 (blind). Kinds: SC shape-coincidence, AL aliasing/in-place,
# EE early-exit/special-case, LD library defaults.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


MERGE = '''

def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
SPLIT = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"d_model={d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)
'''
COST_TAIL = '''
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (weights + biases, macs, cached)
'''
PROJ5 = '''
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
'''
PROJ6 = '''
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
'''
PROJ7 = '''
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
'''

# ---------------------------------------------------------------- wrong: shape-coincidence (SC)
add("SC-p5-scale-by-T", False, {"contributions": '''
def head_contributions(x, params, num_heads):''' + PROJ5 + '''
    scores = (q / math.sqrt(x.shape[1] // num_heads)) @ k.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-1)
    o = weights @ v
    w = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtf,hfe->bhte", o, w)
'''}, "SC: divides the scores by sqrt(T/H) (x.shape[1] is T in (B, T, D)); the visible case has T = D = 2. "
   "Breaks 'the layer's output' (Concat(head_1..head_H) W^O with chapter 2's attention, scale 1/sqrt(Dh)).")

add("SC-p5-w_o-not-transposed", False, {"contributions": '''
def head_contributions(x, params, num_heads):''' + PROJ5 + '''
    o = attention(q, k, v)
    w = params["w_o"].reshape(num_heads, dh, d)  # rows of head i, paper layout (x W)
    return torch.einsum("bhtf,hfe->bhte", o, w)
'''}, "SC: uses W^O in the paper's (in, out) layout; the visible cases use the symmetric identity. Breaks "
   "'As with nn.Linear, a projection computes x @ w.T + b' and 'head_contributions(x, params, H).sum(dim=1) + "
   "params[\"b_o\"] is the layer's output'.")

add("SC-p7-P-from-axis-1", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):''' + PROJ7 + '''
    p = past_k.size(1)  # cached length
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    query_pos = torch.arange(p, p + t)
    key_pos = torch.arange(k.shape[2])
    out = attention(q, k, v, key_pos[None, :] <= query_pos[:, None])
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "SC: reads P from axis 1 of past_k (B, H, P, Dh), which is H; in the visible cases H = 2 >= P + t so "
   "every key is allowed anyway. Breaks 'Causal means: the query at position P + t may attend to the keys at "
   "positions 0 .. P + t ... and to none after it'.")

add("SC-p6-batch-on-head-axis", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):''' + PROJ6 + '''
    keep = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]  # (B, S)
    out = attention(q, k, v, keep[None, :, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "SC: the (B, S) mask is put at (1, B, 1, S), so it lines up the batch with the head axis; right for B = 1 "
   "(visible) and silently wrong when B = H. Breaks 'a mask that depends on the sentence and the key but not on "
   "the head or the query needs the shape (B, 1, 1, S)'.")

add("SC-p4-new-keys-per-kv-head", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + num_kv_heads  # the new token brings one key per key/value head
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * head_dim * num_kv_heads * (past + 1)
    return (weights + biases, macs, cached)
'''}, "SC: counts past + G keys per query head; the visible case has G = 1. Breaks 'The new token's query "
   "attends to all of them and to its own key'.")

add("SC-p3-rank-from-widths", False, {"ranks": '''
rank_one_head = 64           # Q_i is (T, Dh): at most Dh
rank_all_heads = 8 * 64      # eight heads of rank 64 add up
'''}, "SC: 8 * 64 = 512 = D, but S_1 + ... + S_8 is a (T, S) = (100, 100) matrix. Breaks 'largest rank of the "
   "sum of all eight heads' score matrices' (T = S = 100).")

add("SC-p2-column-bound-from-length", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < length * head_dim):
        raise ValueError("position or column out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
'''}, "SC: bounds the column by T * Dh (the size of one head's block) instead of H * Dh; the visible raise case "
   "only tests the position. Breaks 'Raise a ValueError unless ... 0 <= column < num_heads * head_dim'.")

# ---------------------------------------------------------------- wrong: aliasing and in-place (AL)
add("AL-p1-mutable-default-order", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads, order=[]):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"d_model={d} is not divisible by num_heads={num_heads}")
    if not order:  # work the column order out once
        order.extend(i + j * num_heads for i in range(num_heads) for j in range(d // num_heads))
    return x[..., order].reshape(b, t, num_heads, d // num_heads).transpose(1, 2)
''' + MERGE}, "AL: a mutable default list keeps the first call's column order. Breaks 'keep nothing from one call "
   "to the next' and 'feature j of head i is column i + j*H' for any other (D, H).")

add("AL-p5-inplace-softmax", False, {"contributions": '''
def head_contributions(x, params, num_heads):''' + PROJ5 + '''
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)
    scores -= scores.amax(dim=-1, keepdim=True)  # stable softmax, in place to save memory
    scores.exp_()
    scores /= scores.sum(dim=-1, keepdim=True)
    o = scores @ v
    w = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtf,hfe->bhte", o, w)
'''}, "AL: in-place ops on tensors autograd saved (amax's input, exp's output): the forward is right, "
   "backward raises. Breaks 'Gradients must flow through the result, to x and to the parameters'.")

add("AL-p6-long-is-self-then-inplace", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):''' + PROJ6 + '''
    pad = memory_lengths.long()       # a copy in int64
    pad.neg_().add_(s)                # number of padding positions, in place
    keep = torch.arange(s)[None, :] >= pad[:, None]
    out = attention(q, k, v, keep[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "AL: .long() of an int64 tensor is the tensor itself, so the caller's memory_lengths is overwritten. "
   "Breaks 'leave x, memory, memory_lengths and params as you found them'.")

add("AL-p6-bias-expand-when-all-empty", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    if bool((memory_lengths == 0).all()):  # nothing to attend to anywhere: every row is b_o
        return params["b_o"].expand(x.shape[0], x.shape[1], -1)
''' + PROJ6 + '''
    keep = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(q, k, v, keep[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "AL: the all-empty result is an expanded view of params['b_o']: the caller's in-place change writes into "
   "(or fails on) the parameter. Breaks 'Every tensor they return belongs to the caller ... return new tensors'.")

add("AL-p7-kept-buffer", False, {"cache": '''
KV_BUFFERS = {}


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):''' + PROJ7 + '''
    p = past_k.shape[2]
    shape = (b, num_heads, p + t, d // num_heads)
    key = (shape, x.dtype)
    if key not in KV_BUFFERS:  # allocate once per shape, reuse afterwards
        KV_BUFFERS[key] = (torch.empty(shape, dtype=x.dtype), torch.empty(shape, dtype=x.dtype))
    k, v = KV_BUFFERS[key]
    k[:, :, :p] = past_k
    k[:, :, p:] = k_new
    v[:, :, :p] = past_v
    v[:, :, p:] = v_new
    query_pos = torch.arange(p, p + t)
    key_pos = torch.arange(p + t)
    out = attention(q, k, v, key_pos[None, :] <= query_pos[:, None])
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "AL: k and v are buffers kept between calls. Breaks 'they must not share memory with anything kept from "
   "one call to the next (a pre-allocated cache buffer kept between calls, say)'.")

# ---------------------------------------------------------------- wrong: early exit (EE)
add("EE-p1-empty-fast-path", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if x.numel() == 0:  # nothing to move
        return torch.empty(b, num_heads, t, d // num_heads)
    if d % num_heads:
        raise ValueError(f"d_model={d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    if x.numel() == 0:
        return torch.empty(b, t, h * dh)
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "EE: the empty fast path skips the divisibility check and returns float32. Breaks 'an empty x ... follows "
   "the same rule' and 'Both return a tensor of the dtype they were given (an integer dtype too)'.")

add("EE-p2-one-head-shortcut", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if num_heads == 1:  # one head: the reshape is the identity
        return (0, position, column)
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("position or column out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
'''}, "EE: the H = 1 shortcut returns before the range check. Breaks 'Raise a ValueError unless "
   "0 <= position < length and 0 <= column < num_heads * head_dim (so also when a size is 0)'.")

add("EE-p4-no-query-heads-shortcut", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_heads == 0:  # no query heads: only the key/value projections, W^O's bias and the cache
        kv = num_kv_heads * head_dim
        return (2 * d_model * kv + ((2 * kv + d_model) if bias else 0), 2 * d_model * kv, 2 * kv * (past + 1))
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
''' + COST_TAIL}, "EE: with no query heads it returns before the check. Breaks 'no query heads is not an error, "
   "but num_kv_heads = 0 is, with no query heads too'.")

add("EE-p5-one-head-whole-layer", False, {"contributions": '''
def head_contributions(x, params, num_heads):''' + PROJ5 + '''
    o = attention(q, k, v)
    if num_heads == 1:  # a single head contributes the whole layer
        return (merge_heads(o) @ params["w_o"].T + params["b_o"]).unsqueeze(1)
    w = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtf,hfe->bhte", o, w)
'''}, "EE: the H = 1 fast path includes b_o. Breaks 'The bias b_o belongs to no head' (sum(dim=1) + b_o is the "
   "layer's output).")

add("EE-p6-all-empty-zeros", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    if bool((memory_lengths == 0).all()):  # every source empty: the rows are just the bias
        return torch.zeros(b, t, d) + params["b_o"]
''' + PROJ6 + '''
    keep = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(q, k, v, keep[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "EE: the all-empty fast path builds float32 zeros, so float16/bfloat16/float64 inputs get float32 (and no "
   "gradient to x/memory). Breaks 'Return the dtype of x'.")

add("EE-p7-empty-cache-no-mask", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):''' + PROJ7 + '''
    p = past_k.shape[2]
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    if p == 0:  # empty cache: plain self-attention over the block
        allowed = None
    else:
        allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "EE: with an empty cache it drops the causal mask (the visible first call has T = 1). Breaks 'Causal "
   "means: the query at position P + t may attend to ... and to none after it' (P may be 0).")

# ---------------------------------------------------------------- wrong: library defaults (LD)
add("LD-p5-softmax-dtype-float32", False, {"contributions": '''
def head_contributions(x, params, num_heads):''' + PROJ5 + '''
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-1, dtype=torch.float32).to(v.dtype)  # softmax in fp32 for stability
    o = weights @ v
    w = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtf,hfe->bhte", o, w)
'''}, "LD: softmax(dtype=float32) rounds float64 weights to float32. Breaks 'Return the dtype of x (float32 or "
   "float64 ...)' with the reference's precision.")

add("LD-p4-python-modulo-negative", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads == 0 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
''' + COST_TAIL}, "LD: Python's % takes the divisor's sign, so a negative num_kv_heads passes. Breaks 'Raise a "
   "ValueError unless num_kv_heads >= 1 and ...'.")

add("LD-p1-reshape-minus-one-empty", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"d_model={d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, -1, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, -1)
'''}, "LD: reshape's -1 cannot be inferred for a tensor of 0 elements, so B = 0 or T = 0 raises. Breaks 'an empty "
   "x ... no error when D is divisible, and both functions then return empty tensors of the shapes above'.")

add("LD-p7-is_causal-top-left", False, {"cache": '''
import torch.nn.functional as F


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):''' + PROJ7 + '''
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=t > 1)  # one token sees everything
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "LD: is_causal aligns the mask top-left, so with a cache (P > 0, T > 1) query t sees keys 0..t only. "
   "Breaks 'the query at position P + t may attend to the keys at positions 0 .. P + t'.")

# ---------------------------------------------------------------- correct
add("OK-p1-unflatten-flatten", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads != 0:
        raise ValueError("D is not divisible by num_heads")
    if num_heads == 1:  # one head holds every column, in order
        return x.unsqueeze(1)
    return x.unflatten(-1, (d // num_heads, num_heads)).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    return x.permute(0, 2, 3, 1).flatten(start_dim=2)
'''}, "unflatten/flatten work on empty tensors; the H = 1 fast path is the same view.")

add("OK-p1-strided-slices-stack", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"{d} % {num_heads} != 0")
    return torch.stack([x[:, :, i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return torch.stack(x.unbind(dim=1), dim=-1).reshape(b, t, h * dh)
'''}, "head i is the strided slice i::H; merging stacks the heads as the fastest axis.")

add("OK-p2-explicit-integer-steps", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length:
        raise ValueError("position out of range")
    if column < 0 or column >= width:
        raise ValueError("column out of range")
    flat = position * width + column          # row-major index in (B, T, H*Dh) = in (B, H, T, Dh)
    per_head = length * head_dim
    head = flat // per_head
    source_position = (flat % per_head) // head_dim
    feature = flat % head_dim
    return (int(head), int(source_position), int(feature))
'''}, "integer // and %, one check per condition.")

add("OK-p3-matrix-rank-numerically", True, {"ranks": '''
def max_score_rank(heads, d=512, h=8, t=100):
    g = torch.Generator().manual_seed(1)
    dh = d // h
    x = torch.randn(t, d, generator=g, dtype=torch.float64)
    total = torch.zeros(t, t, dtype=torch.float64)
    for _ in range(heads):
        wq, wk = (torch.randn(d, dh, generator=g, dtype=torch.float64) for _ in range(2))
        bq, bk = (torch.randn(dh, generator=g, dtype=torch.float64) for _ in range(2))
        total = total + (x @ wq + bq) @ (x @ wk + bk).T
    return int(torch.linalg.matrix_rank(total))


rank_one_head = max_score_rank(1)
rank_all_heads = max_score_rank(8)
'''}, "random weights reach the largest rank; a local generator leaves torch's global one alone.")

add("OK-p4-bool-bias-keywords", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("num_kv_heads must be at least 1")
    if num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q_width = num_heads * head_dim
    kv_width = num_kv_heads * head_dim
    proj = d_model * q_width + d_model * kv_width * 2 + q_width * d_model
    params = proj + int(bool(bias)) * (q_width + 2 * kv_width + d_model)
    keys = past + 1
    macs = proj + num_heads * keys * head_dim + num_heads * keys * head_dim  # scores, weighted sum
    cached = keys * kv_width * 2
    return int(params), int(macs), int(cached)
'''}, "plain ints throughout; bool(bias) for any true value.")

add("OK-p5-per-head-float64-loop", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    wide = {k: v.to(torch.float64) for k, v in params.items()}  # new tensors: params untouched
    xw = x.to(torch.float64)
    parts = []
    for i in range(num_heads):
        rows = slice(i * dh, (i + 1) * dh)
        q = xw @ wide["w_qkv"][:d][rows].T + wide["b_qkv"][:d][rows]
        k = xw @ wide["w_qkv"][d:2 * d][rows].T + wide["b_qkv"][d:2 * d][rows]
        v = xw @ wide["w_qkv"][2 * d:][rows].T + wide["b_qkv"][2 * d:][rows]
        o = attention(q, k, v)                                   # (B, T, Dh)
        parts.append(o @ wide["w_o"][:, rows].T)                 # (B, T, D)
    return torch.stack(parts, dim=1).to(x.dtype)
'''}, "one head at a time with chapter 2's attention, float64 inside and a cast back.")

add("OK-p5-sdpa-and-one-head", True, {"contributions": '''
import torch.nn.functional as F


def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    q, k, v = F.linear(x, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    o = F.scaled_dot_product_attention(split_heads(q, num_heads), split_heads(k, num_heads),
                                       split_heads(v, num_heads))
    if num_heads == 1:
        return (o[:, 0] @ params["w_o"].T).unsqueeze(1)
    return o @ params["w_o"].T.reshape(num_heads, dh, d)  # (B, H, T, Dh) @ (H, Dh, D)
'''}, "F.linear + fused attention; the H = 1 special case has no bias; batched matmul per head.")

add("OK-p6-all-full-no-mask", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):''' + PROJ6 + '''
    lengths = memory_lengths.to(dtype=torch.int64, copy=True)
    if lengths.numel() and bool((lengths == s).all()):
        allowed = None  # no padding anywhere
    else:
        first_real = s - lengths                                    # (B,)
        allowed = torch.where(torch.arange(s)[None, :] >= first_real[:, None], True, False)
        allowed = allowed.reshape(-1, 1, 1, s)
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "int64 positions; no mask when nothing is padded; torch.where for the mask.")

add("OK-p7-buffer-per-call", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):''' + PROJ7 + '''
    p = past_k.shape[2]
    dh = d // num_heads
    k = torch.empty(b, num_heads, p + t, dh, dtype=x.dtype)  # new every call
    v = torch.empty(b, num_heads, p + t, dh, dtype=x.dtype)
    k[:, :, :p] = past_k
    k[:, :, p:] = k_new
    v[:, :, :p] = past_v
    v[:, :, p:] = v_new
    if t == 1:
        allowed = None  # one new token sees every key
    else:
        allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "copies into buffers made in this call; tril(p) is the causal mask aligned at the end; T = 1 needs none.")

add("OK-p7-float64-softmax-and-p5", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    p = past_k.shape[2]
    if p == 0 and t == 1 and x.dtype in (torch.float32, torch.float64):
        # one token and nothing cached: plain self-attention, Part 5's heads summed
        qkv = x @ params["w_qkv"].T + params["b_qkv"]
        _, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
        out = head_contributions(x, params, num_heads).sum(dim=1) + params["b_o"]
        return (out, torch.cat([past_k, k_new], 2), torch.cat([past_v, v_new], 2))
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    qw, kw, vw = q.double() / math.sqrt(dh), k.double(), v.double()
    scores = torch.einsum("bhtf,bhsf->bhts", qw, kw)
    later = torch.arange(p + t)[None, :] > torch.arange(p, p + t)[:, None]
    scores = scores.masked_fill(later, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhts,bhsf->bhtf", weights, vw).to(x.dtype)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "written-out softmax in float64 with -inf for later keys; one token with no cache reuses Part 5.")

add("OK-p6-softmax-nan_to_num", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):''' + PROJ6 + '''
    dh = d // num_heads
    keep = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)           # scaled before the product
    scores = scores.masked_fill(~keep[:, None, None, :], float("-inf"))
    wide = torch.promote_types(scores.dtype, torch.float32)
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1, dtype=wide)).to(q.dtype)  # empty rows: NaN -> 0
    out = weights @ v
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "written-out masked softmax (at least float32), NaN rows of empty sentences zeroed; masked_fill's backward "
   "sends no gradient into those rows.")

# ---------------------------------------------------------------- hostile
add("HOSTILE-p3-int-equal-to-everything", False, {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "hostile: an int subclass equal to anything.")

add("HOSTILE-p4-steal-reference", False, {"cost": '''
import sys


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    me = decode_step_cost
    frame = sys._getframe(1)
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for value in list(scope.values()):
                found = [value] + (list(value.values()) if isinstance(value, dict) else [])
                for f in found:
                    if callable(f) and getattr(f, "__name__", "") == "decode_step_cost" and f is not me:
                        return f(past, d_model, num_heads, num_kv_heads, head_dim, bias)
        frame = frame.f_back
    if num_heads % num_kv_heads:
        raise ValueError("no")
    return (88 if bias else 72, 108, 18)
'''}, "hostile: walks the caller's frames for a reference function of the same name; else the visible values.")
