# the base (correct) answers used by the visible-test check
BASE = {}
BASE["interleaved"] = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
BASE["scrambled"] = '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rem = divmod(flat, length * head_dim)
    src, feat = divmod(rem, head_dim)
    return (head, src, feat)
'''
BASE["ranks"] = '''
rank_one_head = 64
rank_all_heads = 100
'''
BASE["cost"] = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return (weights + biases, macs, cached)
'''
BASE["contributions"] = '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", o, w)
'''
BASE["left_padded"] = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    s = memory.shape[1]
    pos = torch.arange(s, device=x.device)
    allowed = pos[None, :] >= (s - memory_lengths.long())[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''
BASE["cache"] = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.shape[2]
    allowed = torch.arange(p + t, device=x.device)[None, :] <= (p + torch.arange(t, device=x.device))[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''
B = BASE

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = []
W = lambda n, c, w: SUBMISSIONS.append(sub(n, False, c, w))
C = lambda n, c, w: SUBMISSIONS.append(sub(n, True, c, w))

# ---------------- off-by-one student ----------------
W("O1-scrambled-column-bound-inclusive", {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column > width:
        raise ValueError("position or column out of range")
    flat = position * width + column
    per_head = length * head_dim
    return (flat // per_head, (flat % per_head) // head_dim, flat % head_dim)
'''}, "Part 2: 'Raise a ValueError unless ... 0 <= column < num_heads * head_dim': column == H*Dh is let through")
W("O2-cost-zero-kv-heads-allowed", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 0 or (num_kv_heads > 0 and num_heads % num_kv_heads != 0):
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = q + 2 * kv + d_model if bias else 0
    return (weights + biases, weights + 2 * num_heads * (past + 1) * head_dim, 2 * kv * (past + 1))
'''}, "Part 4: 'Raise a ValueError unless num_kv_heads >= 1 ... num_kv_heads = 0 is [an error], with no query heads too' (check written as < 0)")
W("O3-cost-more-kv-than-query-heads-raises", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_kv_heads > num_heads or num_heads % num_kv_heads:
        raise ValueError("need 1 <= num_kv_heads <= num_heads, dividing it")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = q + 2 * kv + d_model if bias else 0
    return (weights + biases, weights + 2 * num_heads * (past + 1) * head_dim, 2 * kv * (past + 1))
'''}, "Part 4: '0 is a multiple of every num_kv_heads: no query heads is not an error' (H = 0 < G raises here)")
W("O4-cache-query-positions-from-1", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.shape[2]
    query_pos = p + torch.arange(1, t + 1)          # positions of the new block, counted from 1
    key_pos = torch.arange(p + t)
    allowed = key_pos[None, :] <= query_pos[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'the query at position P + t may attend to the keys at positions 0 .. P + t, itself included, and to none after it' (each query sees one key ahead)")
W("O5-rank-bias-adds-one", {"ranks": '''
# Q_i = X W + b: the bias adds one more direction, [X 1] has one more column
rank_one_head = 64 + 1
rank_all_heads = 100
'''}, "Part 3a: Q_i is (T, Dh) = (100, 64), so S_i has rank at most 64, bias or not")
W("O6-interleaved-raise-when-D-smaller-than-H", {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d < num_heads or d % num_heads != 0:
        raise ValueError(f"D={d} cannot be dealt to {num_heads} heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "Part 1: 'Raise a ValueError when D is not divisible by num_heads, and only then (D = 0 is divisible by every num_heads...)'")

# ---------------- padding and reduction student ----------------
W("R1-left-padded-one-mask-from-max-length", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    s = memory.shape[1]
    longest = int(memory_lengths.long().max()) if memory_lengths.numel() else 0
    allowed = (torch.arange(s) >= s - longest)[None, :]     # (1, S): the padding every sentence shares
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'the last memory_lengths[b] of the S positions of sentence b are real' (one mask for the batch, from its longest sentence)")
W("R2-left-padded-mask-B1S", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    s = memory.shape[1]
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed.unsqueeze(1))
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S) ... a (B, 1, S) one [is read] as (H, T, S)'")
W("R3-contributions-bias-shared-by-heads", {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    # each head's fair share of the output bias, so that the parts add up to the whole output
    return torch.einsum("bhtk,ehk->bhte", o, w) + params["b_o"] / num_heads
'''}, "Part 5: 'head_contributions(x, params, H).sum(dim=1) + params[\"b_o\"] is the layer's output. The bias b_o belongs to no head.'")
W("R4-cache-P-from-wrong-dim", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.size(1)                    # cached length
    n = k.size(2)
    allowed = torch.arange(n)[None, :] <= (p + torch.arange(t))[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: past_k is (B, H, P, Dh): P is its axis 2; reading axis 1 (H) misplaces the causal boundary")
W("R5-contributions-wo-rows", {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    parts = [o[:, i] @ params["w_o"][i * dh:(i + 1) * dh, :] for i in range(num_heads)]
    return torch.stack(parts, dim=1)
'''}, "Part 5: as with nn.Linear a projection is x @ w.T: head i's block of W^O is w_o[:, i*Dh:(i+1)*Dh] (columns), not rows")

# ---------------- paper and reference-code reader ----------------
W("P1-contributions-conv1d-no-transpose", {"contributions": '''
def head_contributions(x, params, num_heads):
    # GPT-2's Conv1D: y = x @ W + b
    b, t, d = x.shape
    w = params["w_qkv"]
    q = x @ w[:d] + params["b_qkv"][:d]
    k = x @ w[d:2 * d] + params["b_qkv"][d:2 * d]
    v = x @ w[2 * d:] + params["b_qkv"][2 * d:]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    wo = params["w_o"].reshape(num_heads, d // num_heads, d)   # rows of W^O per head
    return torch.einsum("bhtk,hke->bhte", o, wo)
'''}, "Part 5 / intro: 'As with nn.Linear, a projection computes x @ w.T + b' (GPT-2 Conv1D convention x @ w)")
W("P2-left-padded-conv1d-no-transpose", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d] + bq[:d]
    k = memory @ w[d:2 * d] + bq[d:2 * d]
    v = memory @ w[2 * d:] + bq[2 * d:]
    s = memory.shape[1]
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"] + params["b_o"]
'''}, "intro: 'As with nn.Linear, a projection computes x @ w.T + b'")
W("P3-cache-conv1d-no-transpose", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].reshape(3, d, d).transpose(0, 1).reshape(d, 3 * d) + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.shape[2]
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return (merge_heads(o) @ params["w_o"] + params["b_o"], k, v)
'''}, "intro: 'As with nn.Linear, a projection computes x @ w.T + b' (weights used as GPT-2 Conv1D's (in, out))")
W("P4-rank-all-heads-full-width", {"ranks": '''
# Bhojanapalli et al.: the heads together restore the full d_model rank
rank_one_head = 512 // 8
rank_all_heads = 8 * 64
'''}, "Part 3b: the (T, S) = (100, 100) sum cannot have rank above 100")
W("P5-left-padded-llama-float32-softmax", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    import torch.nn.functional as F
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    s = memory.shape[1]
    allowed = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    probs = F.softmax(scores.float(), dim=-1).type_as(q)      # as in llama's reference code
    probs = torch.where(allowed.any(-1, keepdim=True), probs, torch.zeros((), dtype=probs.dtype))
    return merge_heads(probs @ v) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'Return the dtype of x': a float64 layer whose softmax runs in float32 loses half its digits (llama's scores.float())")
W("P6-left-padded-F-mha-key-padding-mask", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    import torch.nn.functional as F
    b, t, d = x.shape
    s = memory.shape[1]
    padding = torch.arange(s)[None, :] < (s - memory_lengths.long())[:, None]   # nn.MultiheadAttention: True = ignore
    out, _ = F.multi_head_attention_forward(
        x.transpose(0, 1), memory.transpose(0, 1), memory.transpose(0, 1), d, num_heads,
        params["w_qkv"], params["b_qkv"], None, None, False, 0.0, params["w_o"], params["b_o"],
        training=False, key_padding_mask=padding, need_weights=False)
    out = out.transpose(0, 1)
    empty = (memory_lengths == 0)[:, None, None]
    return torch.where(empty, params["b_o"].expand_as(out), out)
'''}, "Part 6: 'A source sentence of length 0 ... their rows are just the bias b_o, with the bias's gradients (the hidden tests compare gradients there too)': torch's MHA gives NaN there and NaN gradients")

# ---------------- numerically naive student ----------------
W("N1-contributions-exp-without-max", {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(dh))
    o = (e / e.sum(dim=-1, keepdim=True)) @ v
    return torch.einsum("bhtk,ehk->bhte", o, params["w_o"].reshape(d, num_heads, dh))
'''}, "Part 5: 'Scores may be of any size, tens of thousands and more' (exp overflows, inf / inf)")
W("N2-left-padded-max-over-padding-too", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    s = memory.shape[1]
    keep = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :].to(q.dtype)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True)) * keep
    total = e.sum(dim=-1, keepdim=True)
    probs = e / torch.where(total > 0, total, torch.ones_like(total))
    return merge_heads(probs @ v) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'the padding positions ... may score far above every real key ... they must change nothing' (row max over padding keys)")
W("N3-cache-finfo-min-mask", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q = split_heads(q, num_heads)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.shape[2]
    later = torch.arange(p + t)[None, :] > (p + torch.arange(t))[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(later, torch.finfo(scores.dtype).min)
    o = torch.softmax(scores, dim=-1) @ v
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'do not give them a large negative score, not even that lowest value, which ties with such scores'")
W("N4-cost-float-group-check", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1:
        raise ValueError("need at least one key/value head")
    group = num_heads / num_kv_heads
    if group != int(group):
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = q + 2 * kv + d_model if bias else 0
    return (weights + biases, weights + 2 * num_heads * (past + 1) * head_dim, 2 * kv * (past + 1))
'''}, "Part 4: 'exact even when they exceed 2^53': H / G in float rounds 2^60 + 1 over 2 to a whole number, so no ValueError")
W("N5-left-padded-clamp-length-to-1", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    s = memory.shape[1]
    lengths = memory_lengths.long().clamp(min=1)      # never an empty softmax (no 0 / 0)
    allowed = torch.arange(s)[None, :] >= (s - lengths)[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'A source sentence of length 0 gives its queries nothing to attend to ... their rows are just the bias b_o'")
W("N6-interleaved-permutation-matmul", {"interleaved": '''
def column_permutation(d, h):
    order = torch.arange(d).reshape(d // h, h).T.reshape(-1)     # new column c takes old column order[c]
    return torch.eye(d)[:, order] if d else torch.zeros(0, 0)


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    p = column_permutation(d, num_heads).to(x.dtype)
    return split_heads(x @ p, num_heads)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    p = column_permutation(h * dh, h).to(x.dtype)
    return merge_heads(x) @ p.T
'''}, "Part 1: 'both only move entries: every value, inf, -inf and -0.0 included, arrives unchanged (no arithmetic)'")
W("N7-cache-float16-scores-unscaled-first", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q = split_heads(q, num_heads)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.shape[2]
    later = torch.arange(p + t)[None, :] > (p + torch.arange(t))[:, None]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])      # the textbook order
    scores = scores.masked_fill(later, float("-inf"))
    o = torch.softmax(scores, dim=-1) @ v
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'x, the cache and the parameters may hold values of any size' (in float16 q @ k^T overflows before the scaling)")

# ---------------- correct ----------------
C("C1-interleaved-unflatten-movedim", {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    return x.unflatten(-1, (d // num_heads, num_heads)).movedim(-1, 1)


def merge_heads_interleaved(x):
    return x.movedim(1, -1).flatten(-2)
'''}, "same layout")
C("C2-interleaved-via-lesson-split", {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D must be divisible by num_heads")
    order = torch.arange(d).reshape(d // num_heads, num_heads).T.reshape(-1)
    return split_heads(x[..., order], num_heads)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    order = torch.arange(h * dh).reshape(h, dh).T.reshape(-1)
    return merge_heads(x)[..., order]
'''}, "gather of columns, lesson's split/merge")
C("C3-scrambled-floor-mod", {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if not 0 <= position < length:
        raise ValueError("position out of range")
    if not 0 <= column < width:
        raise ValueError("column out of range")
    flat = position * width + column
    head = flat // (length * head_dim)
    source_position = (flat // head_dim) % length
    feature = flat % head_dim
    return (int(head), int(source_position), int(feature))
'''}, "same integer arithmetic")
C("C4-ranks-min", {"ranks": '''
D, H, T = 512, 8, 100
rank_one_head = min(D // H, T)
rank_all_heads = min(H * (D // H), T)
'''}, "64, 100")
C("C5-cost-loops", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("num_kv_heads must be at least 1")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    has_bias = bool(bias)
    shapes = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
              (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
    parameters = macs = 0
    for n_in, n_out in shapes:
        parameters += n_in * n_out + (n_out if has_bias else 0)
        macs += n_in * n_out
    keys = past + 1
    for _ in range(2):                           # Q K^T, then A V
        macs += num_heads * keys * head_dim
    cached = 2 * keys * num_kv_heads * head_dim
    return (parameters, macs, cached)
'''}, "same counts")
C("C6-contributions-mask-merge-loop", {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    parts = []
    for i in range(num_heads):
        only_i = torch.zeros_like(o)
        only_i[:, i] = o[:, i]
        parts.append(merge_heads(only_i) @ params["w_o"].T)
    return torch.stack(parts, dim=1)
'''}, "zero the other heads, project")
C("C7-contributions-float64-inside", {"contributions": '''
def head_contributions(x, params, num_heads):
    dtype = x.dtype
    x64 = x.double()
    p = {key: value.double() for key, value in params.items()}
    b, t, d = x.shape
    qkv = x64 @ p["w_qkv"].T + p["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    o = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    w = p["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", o, w).to(dtype)
'''}, "float64 inside and cast back")
C("C8-left-padded-own-softmax-where", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(torch.nn.functional.linear(x, w[:d], bq[:d]), num_heads)
    k = split_heads(torch.nn.functional.linear(memory, w[d:2 * d], bq[d:2 * d]), num_heads)
    v = split_heads(torch.nn.functional.linear(memory, w[2 * d:], bq[2 * d:]), num_heads)
    s = memory.shape[1]
    first_real = s - memory_lengths.to(torch.int64)
    allowed = (torch.arange(s)[None, :] >= first_real[:, None])[:, None, None, :]
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    probs = torch.softmax(scores, dim=-1)
    probs = torch.where(allowed.any(dim=-1, keepdim=True), probs, torch.zeros((), dtype=probs.dtype))
    return torch.nn.functional.linear(merge_heads(probs @ v), params["w_o"], params["b_o"])
'''}, "own softmax with -inf and zero rows for empty sentences")
C("C9-cache-tril-sdpa", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    import torch.nn.functional as F
    b, t, d = x.shape
    q, k_new, v_new = F.linear(x, params["w_qkv"], params["b_qkv"]).split(d, dim=-1)
    k = torch.cat((past_k, split_heads(k_new, num_heads)), dim=-2)
    v = torch.cat((past_v, split_heads(v_new, num_heads)), dim=-2)
    p = past_k.shape[-2]
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    o = F.scaled_dot_product_attention(split_heads(q, num_heads), k, v, attn_mask=allowed)
    return (F.linear(merge_heads(o), params["w_o"], params["b_o"]), k, v)
'''}, "bottom-right causal via tril(diagonal=P)")
C("C10-cache-checks-size-with-part4", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.shape[2]
    if t == 1:   # one decoding step: the cache holds what Part 4 counts
        assert b * decode_step_cost(p, d, num_heads, num_kv_heads=num_heads, head_dim=dh)[2] == k.numel() + v.numel()
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed=allowed)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "calls Part 4 in a way that changes nothing")
C("C11-cache-first-token-via-part5", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.shape[2]
    if p == 0 and t == 1:   # the first token sees only itself: plain self-attention, Part 5 summed over heads
        return (head_contributions(x, params, num_heads).sum(dim=1) + params["b_o"], k, v)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "calls Part 5 where self-attention without a mask is the causal one (one token, empty cache)")
W("C12-cache-llama-additive-inf", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    xq, xk, xv = qkv.split(d, dim=-1)
    keys = torch.cat([past_k, split_heads(xk, num_heads)], dim=2)
    values = torch.cat([past_v, split_heads(xv, num_heads)], dim=2)
    p = past_k.shape[2]
    mask = torch.full((t, t), float("-inf"), dtype=x.dtype).triu(1)
    mask = torch.hstack([torch.zeros((t, p), dtype=x.dtype), mask])
    q = split_heads(xq, num_heads)
    scores = q @ keys.transpose(2, 3) / math.sqrt(q.shape[-1]) + mask
    probs = torch.softmax(scores, dim=-1)
    return (merge_heads(probs @ values) @ params["w_o"].T + params["b_o"], keys, values)
'''}, "blind label: correct (llama's reference mask: zeros for the cache, triu(1) of -inf for the block). Phase 2: "
   "relabelled wrong, the same slip as N7: llama's `matmul(xq, keys^T) / sqrt(head_dim)` forms q . k in float16 "
   "before the scaling, NaN where the text's 'values of any size' allows a finite result (Part 7)")

# ---------------- hostile ----------------
W("X1-cost-always-equal-ints", {"cost": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    return (Count(88 if bias else 72), Count(108), Count(18))
'''}, "hostile: int subclass equal to everything")
W("X2-ranks-always-equal", {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "hostile: int subclass equal to everything")
W("X3-scrambled-tuple-subclass", {"scrambled": '''
class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length):
        raise ValueError("bad position")
    return (Anything(0), Anything(0), Anything(0))
'''}, "hostile: tuple subclass equal to everything")

# ---------------- phase 2 additions: N7's class in Part 6, and a correct answer that scales first ----------------
SUBMISSIONS.append({"name": "N8-left-padded-float16-scores-unscaled-first", "correct": False, "why": "phase 2 (N7's class in Part 6 and a correct scale-first answer): Part 6/7 float16 sentence", "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    s = memory.shape[1]
    allowed = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    probs = torch.where(allowed.any(dim=-1, keepdim=True), probs, torch.zeros((), dtype=probs.dtype))
    return merge_heads(probs @ v) @ params["w_o"].T + params["b_o"]
'''}})
SUBMISSIONS.append({"name": "C13-cache-scale-first-own-softmax", "correct": True, "why": "phase 2 (N7's class in Part 6 and a correct scale-first answer): Part 6/7 float16 sentence", "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q = split_heads(q, num_heads)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    p = past_k.shape[2]
    later = torch.arange(p + t)[None, :] > (p + torch.arange(t))[:, None]
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = scores.masked_fill(later, float("-inf"))
    o = torch.softmax(scores, dim=-1) @ v
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}})
