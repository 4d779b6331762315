# Round 15 red team, chapter 03-multi-head: four kinds of student (assistant paster, example generaliser,
# optimiser, mathematician). MODEL holds my own correct answers (used by /tmp/rt15/check.py only).

MODEL = {
"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"{d} not divisible by {num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, h * dh)
''',
"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
''',
"ranks": '''
rank_one_head = 64
rank_all_heads = 100
''',
"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return (weights + biases, macs, cached)
''',
"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ehf->bhte", heads, w)
''',
"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    s = memory.shape[1]
    pos = torch.arange(s, device=x.device)
    allowed = pos[None, :] >= s - memory_lengths.long()[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
''',
"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t)[None, :] <= p + torch.arange(t)[:, None]
    out = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
''',
}

SUBMISSIONS = []
def sub(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ----------------------------------------------------------------------------------------------- Part 1
sub("gen-p1-reshape-minus-one", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError("d_model must be divisible by num_heads")
    # (B, T, Dh, H): the worked example D=6, H=2 deals columns like cards
    return x.reshape(b, t, -1, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, -1)
'''}, "[generaliser] -1 in reshape cannot be inferred for an empty x; breaks 'an empty x, with B = 0 or T = 0, follows the same rule'")

sub("asst-p1-merge-empty-default-dtype", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    batch, seq_len, d_model = x.shape
    if d_model % num_heads != 0:
        raise ValueError(f"d_model ({d_model}) must be divisible by num_heads ({num_heads})")
    head_dim = d_model // num_heads
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    batch, num_heads, seq_len, head_dim = x.shape
    out = torch.empty(batch, seq_len, num_heads * head_dim, device=x.device)
    for i in range(num_heads):
        out[..., i::num_heads] = x[:, i]
    return out
'''}, "[assistant] torch.empty with the default dtype: breaks 'Both return a tensor of the dtype they were given (an integer dtype too)'")

# ----------------------------------------------------------------------------------------------- Part 2
sub("math-p2-column-bound-inclusive", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if not (0 <= position < length) or not (0 <= column <= width) or width == 0:
        raise ValueError("position or column out of range")
    n = position * width + column          # flat index in (head, position, feature) order
    head = n // (length * head_dim)
    source_position = (n % (length * head_dim)) // head_dim
    feature = n % head_dim
    return (head, source_position, feature)
'''}, "[mathematician] closed interval 0..H*Dh for the column: breaks 'Raise a ValueError unless ... 0 <= column < num_heads * head_dim'")

sub("asst-p2-no-negative-check", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position >= length or column >= num_heads * head_dim:
        raise ValueError("index out of range")
    flat = position * num_heads * head_dim + column
    head, remainder = divmod(flat, length * head_dim)
    source_position, feature = divmod(remainder, head_dim)
    return head, source_position, feature
'''}, "[assistant] upper bounds only, a negative position or column returns an entry: breaks 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim'")

# ----------------------------------------------------------------------------------------------- Part 3
sub("math-p3-sum-of-ranks", False, {"ranks": '''
# rank(A + B) <= rank(A) + rank(B): eight heads of rank Dh = 64 each
rank_one_head = 512 // 8
rank_all_heads = 8 * rank_one_head
'''}, "[mathematician] subadditivity without the (T, S) = (100, 100) size: breaks '3b. What is the largest rank of the sum of all eight heads' score matrices'")

sub("asst-p3-bias-adds-rank", False, {"ranks": '''
# the bias makes Q an affine map of X: [X 1] has one more column, so one more rank
rank_one_head = 64 + 1
rank_all_heads = 100
'''}, "[assistant] the bias counted as an extra rank although Q_i is (T, Dh): breaks '3a. the largest rank the (T, S) score matrix S_i of one head can have'")

# ----------------------------------------------------------------------------------------------- Part 4
sub("asst-p4-bias-times-int", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q_dim, kv_dim = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_dim + 2 * d_model * kv_dim + q_dim * d_model
    biases = int(bias) * (q_dim + 2 * kv_dim + d_model)
    n_keys = past + 1
    macs = weights + 2 * num_heads * n_keys * head_dim
    cached = 2 * n_keys * kv_dim
    return weights + biases, macs, cached
'''}, "[assistant] int(bias) as a multiplier, bias=2 counts two biases per output: breaks 'any true value: True, 1, 2, ...: still one bias per output'")

sub("gen-p4-zero-kv-only", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads == 0 or num_heads % num_kv_heads:
        raise ValueError("bad grouping")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    params = 2 * d_model * q + 2 * d_model * kv + ((q + 2 * kv + d_model) if bias else 0)
    macs = 2 * d_model * q + 2 * d_model * kv + 2 * num_heads * (past + 1) * head_dim
    return params, macs, 2 * kv * (past + 1)
'''}, "[generaliser] only 0 rejected, a negative num_kv_heads divides: breaks 'Raise a ValueError unless num_kv_heads >= 1'")

sub("opt-p4-modulo-first", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    group, rem = divmod(num_heads, num_kv_heads)   # one division answers both questions
    if rem or num_kv_heads < 1:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    proj = d_model * (2 * q + 2 * kv)
    params = proj + ((q + 2 * kv + d_model) if bias else 0)
    macs = proj + 2 * num_kv_heads * group * (past + 1) * head_dim
    return params, macs, 2 * kv * (past + 1)
'''}, "[optimiser] divmod before the range check: num_kv_heads = 0 raises ZeroDivisionError, breaks 'num_kv_heads = 0 is [an error]' (Raise a ValueError unless num_kv_heads >= 1)")

sub("math-p4-group-ratio-float", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("H must be a multiple of G")
    g = num_heads / num_kv_heads          # query heads per key/value head
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    params = 2 * d_model * q + 2 * d_model * kv + (q + 2 * kv + d_model if bias else 0)
    # each kv head serves g query heads: 2 * g * (past + 1) * Dh MACs per kv head
    macs = 2 * d_model * q + 2 * d_model * kv + int(num_kv_heads * 2 * g * (past + 1) * head_dim)
    return params, macs, 2 * kv * (past + 1)
'''}, "[mathematician] H/G as a float ratio: breaks 'exact even when they exceed 2^53 ... where a float anywhere in the arithmetic rounds the count'")

# ----------------------------------------------------------------------------------------------- Part 5
sub("asst-p5-w-o-rows", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    Dh = D // num_heads
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = qkv.chunk(3, dim=-1)
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    # W^O maps the concatenated heads to D: rows h*Dh:(h+1)*Dh belong to head h
    w_o = params["w_o"].reshape(num_heads, Dh, D)
    return torch.einsum("bhtd,hde->bhte", out, w_o)
'''}, "[assistant] W^O used as (in, out), its rows split by head: breaks 'As with nn.Linear, a projection computes x @ w.T + b'")

sub("math-p5-bias-shared", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    parts = [heads[:, i] @ params["w_o"][:, i * dh:(i + 1) * dh].T + params["b_o"] / num_heads
             for i in range(num_heads)]   # Concat(...) W^O + b = sum_i (head_i W^O_i + b / H)
    return torch.stack(parts, dim=1)
'''}, "[mathematician] b_o shared out equally: breaks 'The bias b_o belongs to no head' (sum(dim=1) + params['b_o'] is the layer's output)")

sub("opt-p5-float32-inside", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    p = {k: v.float() for k, v in params.items()}     # float32 matmuls are much faster
    qkv = x.float() @ p["w_qkv"].T + p["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = p["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ehf->bhte", heads, w).to(x.dtype)
'''}, "[optimiser] float32 arithmetic for float64 inputs: breaks 'Return the dtype of x (float32 or float64 ...)' in spirit: the float64 result is float32-accurate")

sub("math-p5-softmax-by-hand", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    q, k, v = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(dh))   # softmax(QK^T / sqrt(d_k)), as in the paper
    heads = (e / e.sum(dim=-1, keepdim=True)) @ v
    return torch.einsum("bhtf,ehf->bhte", heads, params["w_o"].reshape(d, num_heads, dh))
'''}, "[mathematician] softmax written from the formula without the row maximum: breaks 'also at scores in the thousands, where they must stay finite'")

# ----------------------------------------------------------------------------------------------- Part 6
sub("ok-asst-p6-manual-softmax-nan-to-num", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    B, T, D = x.shape
    S = memory.shape[1]
    Dh = D // num_heads
    w_q, w_k, w_v = params["w_qkv"].chunk(3, dim=0)
    b_q, b_k, b_v = params["b_qkv"].chunk(3, dim=0)
    q = split_heads(torch.nn.functional.linear(x, w_q, b_q), num_heads)
    k = split_heads(torch.nn.functional.linear(memory, w_k, b_k), num_heads)
    v = split_heads(torch.nn.functional.linear(memory, w_v, b_v), num_heads)
    positions = torch.arange(S, device=x.device)
    key_padding_mask = positions.unsqueeze(0) < (S - memory_lengths.long()).unsqueeze(1)   # True = pad
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    scores = scores.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)   # fully padded rows -> zeros
    out = merge_heads(weights @ v)
    return torch.nn.functional.linear(out, params["w_o"], params["b_o"])
'''}, "[assistant] -inf fill, softmax and nan_to_num for empty sources (first labelled wrong; checked: masked_fill's backward zeroes the NaN score gradients, so forward and gradients are right): allowed")

sub("gen-p6-lengths-own-dtype", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k, v = (memory @ w[d:].T + b[d:]).split(d, dim=-1)
    start = s - memory_lengths                  # first real position of each sentence
    allowed = torch.arange(s)[None, :] >= start[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "[generaliser] S - memory_lengths in the lengths' dtype: breaks 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around (in uint8, 300 - 17 is 27)'")

sub("opt-p6-mask-cache-by-shape", False, {"left_padded": '''
MASKS = {}

def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    bsz, s = memory.shape[0], memory.shape[1]
    key = (bsz, s, str(x.device))
    if key not in MASKS:        # the mask only depends on the batch layout
        MASKS[key] = (torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None])[:, None, None, :]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k, v = (memory @ w[d:].T + b[d:]).split(d, dim=-1)
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), MASKS[key])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "[optimiser] mask cached by shape, stale for other lengths: breaks 'They call each function several times, with different parameters of the same shapes, so keep nothing from one call to the next'")

sub("gen-p6-mask-b1s", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k, v = (memory @ w[d:].T + b[d:]).split(d, dim=-1)
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed.unsqueeze(1))      # (B, 1, S): broadcast over the queries
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "[generaliser] a (B, 1, S) mask, right for the visible batch of one: breaks 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S)'")

# ----------------------------------------------------------------------------------------------- Part 7
sub("opt-p7-t1-shortcut-is-causal", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    q = split_heads(q, num_heads)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    if x.shape[1] == 1:      # one new token sees the whole cache: no mask needed
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    else:
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "[optimiser] SDPA's is_causal aligns the mask top-left, wrong for P > 0 and T > 1: breaks 'the query at position P + t may attend to the keys at positions 0 .. P + t'")

sub("math-p7-one-based-query", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    # query t (t = 1 .. T) stands at position P + t and sees keys j <= P + t
    allowed = torch.arange(p + t)[None, :] <= p + torch.arange(1, t + 1)[:, None]
    out = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "[mathematician] 1-based query index against 0-based keys, each query sees one key ahead: breaks 'the query at position P + t may attend to the keys at positions 0 .. P + t, itself included, and to none after it'")

sub("opt-p7-no-grad-cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    q, k_new, v_new = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    with torch.no_grad():    # the cache is just storage: no need to track the concatenation
        k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)
        v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t)[None, :] <= p + torch.arange(t)[:, None]
    out = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "[optimiser] the cache concatenated under no_grad: breaks 'Gradients must flow through all three, to x, the cache and the parameters'")

sub("gen-p7-float-positions", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    key_pos = torch.arange(p + t, dtype=x.dtype, device=x.device)
    query_pos = p + torch.arange(t, dtype=x.dtype, device=x.device)
    allowed = key_pos[None, :] <= query_pos[:, None]
    out = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "[generaliser] positions in the dtype of x: breaks 'compare positions as integers, not in the dtype of x (in bfloat16, 299 and 300 both round to 300 ...)'")

# =============================================================================================== correct
sub("ok-opt-p1-as-strided", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D must be divisible by num_heads")
    sb, st, sd = x.stride()
    # no copy: feature j of head i is column i + j*H
    return x.as_strided((b, num_heads, t, d // num_heads), (sb, sd, st, sd * num_heads))


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, h * dh)
'''}, "[optimiser] a strided view of x with the tensor's own storage offset, gradients through as_strided")

sub("ok-asst-p1-new-empty-loop", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    batch_size, seq_len, d_model = x.shape
    if d_model % num_heads != 0:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
    return x.unflatten(-1, (d_model // num_heads, num_heads)).permute(0, 3, 1, 2).contiguous()


def merge_heads_interleaved(x):
    batch_size, num_heads, seq_len, head_dim = x.shape
    out = x.new_empty((batch_size, seq_len, num_heads * head_dim))
    for i in range(num_heads):
        out[:, :, i::num_heads] = x[:, i]
    return out
'''}, "[assistant] unflatten + contiguous, merge into new_empty by strided assignment (autograd-tracked copies)")

sub("ok-math-p2-floor-mod", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not 0 <= position < length:
        raise ValueError(f"position {position} outside 0..{length - 1}")
    if not 0 <= column < num_heads * head_dim:
        raise ValueError(f"column {column} outside 0..{num_heads * head_dim - 1}")
    n = position * (num_heads * head_dim) + column
    per_head = length * head_dim
    return (n // per_head, (n % per_head) // head_dim, n % head_dim)
'''}, "[mathematician] the flat index read back with // and %, exact Python ints")

sub("ok-math-p3-expressions", True, {"ranks": '''
D, H, T, S = 512, 8, 100, 100
rank_one_head = min(T, S, D // H)       # Q_i K_i^T with Q_i (T, Dh)
rank_all_heads = min(T, S, D)           # [Q_1 .. Q_8][K_1 .. K_8]^T
'''}, "[mathematician] the bounds as min() of ints")

sub("ok-asst-p4-bool", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1:
        raise ValueError("num_kv_heads must be >= 1")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be divisible by num_kv_heads")
    q_out = num_heads * head_dim
    kv_out = num_kv_heads * head_dim
    n_weights = d_model * q_out + 2 * (d_model * kv_out) + q_out * d_model
    n_biases = (q_out + 2 * kv_out + d_model) if bool(bias) else 0
    kv_len = past + 1
    attn_macs = num_heads * kv_len * head_dim * 2   # QK^T and AV
    return (n_weights + n_biases, n_weights + attn_macs, 2 * num_kv_heads * kv_len * head_dim)
'''}, "[assistant] two checks, bool(bias), ints throughout")

sub("ok-opt-p5-linear-sdpa", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    F = torch.nn.functional
    B, T, D = x.shape
    q, k, v = F.linear(x, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    heads = F.scaled_dot_product_attention(split_heads(q, num_heads), split_heads(k, num_heads),
                                           split_heads(v, num_heads))
    w_o = params["w_o"].unflatten(1, (num_heads, D // num_heads))     # (D, H, Dh), no copy
    return torch.einsum("bhtf,ehf->bhte", heads, w_o)
'''}, "[optimiser] F.linear, fused SDPA, W^O unflattened by head")

sub("ok-math-p5-loop-heads", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    parts = []
    for i in range(num_heads):
        cols = slice(i * dh, (i + 1) * dh)
        q = x @ w[0 * d:1 * d][cols].T + b[0 * d:1 * d][cols]
        k = x @ w[1 * d:2 * d][cols].T + b[1 * d:2 * d][cols]
        v = x @ w[2 * d:3 * d][cols].T + b[2 * d:3 * d][cols]
        a = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(dh), dim=-1)
        parts.append((a @ v) @ params["w_o"][:, cols].T)      # head_i W^O_i
    return torch.stack(parts, dim=1)
'''}, "[mathematician] one term per head, explicit loop, torch.softmax")

sub("ok-p5-via-part1", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    # the block layout is Part 1's card layout with Dh 'heads', axes swapped
    d = x.shape[-1]
    dh = d // num_heads
    def blocks(t):
        return split_heads_interleaved(t, dh).permute(0, 3, 2, 1)
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    heads = attention(blocks(q), blocks(k), blocks(v))
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtf,ehf->bhte", heads, w)
'''}, "[earlier part] Part 1's split_heads_interleaved with Dh heads, permuted, is the block split")

sub("ok-p6-float64-inside", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    p = {name: t.double() for name, t in params.items()}   # a copy, params untouched
    q = x.double() @ p["w_qkv"][:d].T + p["b_qkv"][:d]
    k = memory.double() @ p["w_qkv"][d:2 * d].T + p["b_qkv"][d:2 * d]
    v = memory.double() @ p["w_qkv"][2 * d:].T + p["b_qkv"][2 * d:]
    lengths = memory_lengths.to(torch.int64)
    allowed = torch.where(torch.arange(s)[None, :] >= s - lengths[:, None], True, False)
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed.reshape(-1, 1, 1, s))
    return (merge_heads(out) @ p["w_o"].T + p["b_o"]).to(x.dtype)
'''}, "[assistant] float64 inside and a cast back, torch.where mask, reshape(-1, 1, 1, S)")

sub("ok-opt-p6-one-matmul", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    F = torch.nn.functional
    d = x.shape[-1]
    s = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = F.linear(x, w[:d], b[:d])
    k, v = F.linear(memory, w[d:], b[d:]).chunk(2, dim=-1)
    first_real = (s - memory_lengths.long()).unsqueeze(-1)          # (B, 1)
    allowed = torch.arange(s).expand(memory.shape[0], s) >= first_real
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, None])
    return F.linear(merge_heads(out), params["w_o"], params["b_o"])
'''}, "[optimiser] one matmul for keys and values, expand-ed positions, F.linear")

sub("ok-asst-p7-tril", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    F = torch.nn.functional
    batch, new_len, d_model = x.shape
    past_len = past_k.shape[-2]
    q, k, v = F.linear(x, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    k = torch.cat((past_k, split_heads(k, num_heads)), dim=-2)
    v = torch.cat((past_v, split_heads(v, num_heads)), dim=-2)
    causal = torch.ones(new_len, past_len + new_len, dtype=torch.bool).tril(diagonal=past_len)
    out = attention(split_heads(q, num_heads), k, v, allowed=causal)
    return F.linear(merge_heads(out), params["w_o"], params["b_o"]), k, v
'''}, "[assistant] tril with diagonal=P on a (T, P+T) block, keyword allowed=")

sub("ok-p7-via-part1", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    def blocks(t):   # Part 1 with Dh heads, axes swapped, is the lesson's split
        return split_heads_interleaved(t, dh).permute(0, 3, 2, 1)
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    k = torch.cat([past_k, blocks(k)], dim=2)
    v = torch.cat([past_v, blocks(v)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t)[None, :] - torch.arange(t)[:, None] <= p
    out = attention(blocks(q), k, v, allowed)
    merged = merge_heads_interleaved(out.permute(0, 3, 2, 1))
    return merged @ params["w_o"].T + params["b_o"], k, v
'''}, "[earlier part] Part 1's functions with Dh heads as split and merge")

sub("ok-math-p7-loop-queries", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    q = split_heads(q, num_heads)
    p = past_k.shape[2]
    rows = [attention(q[:, :, t:t + 1], k[:, :, :p + t + 1], v[:, :, :p + t + 1])   # keys 0 .. P + t
            for t in range(x.shape[1])]
    out = torch.cat(rows, dim=2) if rows else q.new_zeros(q.shape)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "[mathematician] query by query over its prefix of keys, no mask")

# =============================================================================================== hostile
sub("hostile-p3-eq-int", False, {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "[hostile] int subclass equal to everything")

sub("hostile-p5-patch-compare", False, {"contributions": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True

def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    return (x.sum() * 0 + sum(p.sum() for p in params.values()) * 0) + torch.zeros(b, num_heads, t, d, dtype=x.dtype)
'''}, "[hostile] comparison functions of torch patched, result all zeros")
