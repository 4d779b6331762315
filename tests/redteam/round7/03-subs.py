# Red-team round 7, chapter 03-multi-head: blind submissions.
SUBMISSIONS = [
# ---------------- Part 1: interleaved ----------------
{"name": "p1-permutation-matrix-matmul", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    dh = d // num_heads
    order = torch.arange(d).reshape(dh, num_heads).T.reshape(-1)   # new column c takes old column order[c]
    perm = torch.eye(d, dtype=x.dtype)[:, order]
    return (x @ perm).reshape(b, t, num_heads, dh).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    d = h * dh
    order = torch.arange(d).reshape(dh, h).T.reshape(-1)
    perm = torch.eye(d, dtype=x.dtype)[order, :]
    return x.transpose(1, 2).reshape(b, t, d) @ perm
'''}, "why": "'both only move entries: every value, inf and -inf included, arrives unchanged in its new place' - a permutation matrix product turns inf into nan (inf * 0) and spreads a nan across the row"},
{"name": "p1-batch-of-one-only", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x[0].reshape(t, d // num_heads, num_heads).permute(2, 0, 1).unsqueeze(0)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x[0].permute(1, 2, 0).reshape(1, t, dh * h)
'''}, "why": "'(B, T, D) -> (B, H, T, Dh)': drops every batch entry but the first (right only for the visible batch of one)"},
{"name": "ok-p1-double-transpose", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    # (B, H, T, Dh) -> (B, T, Dh, H): swap H to the end, then T and Dh (as Dh == T in my test)
    return x.transpose(1, 3).transpose(1, 2).reshape(b, t, dh * h)
'''}, "why": "two transposes instead of one permute: transpose(1, 3) then (1, 2) gives (B, T, Dh, H)"},
# ---------------- Part 2: scrambled ----------------
{"name": "p2-heads-and-width-swapped", "correct": False, "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * num_heads)
    src, feat = divmod(rest, num_heads)
    return (head, src, feat)
'''}, "why": "'which entry of heads (B, H, T, Dh) ends up at [b, position, column]': divides by length*num_heads and num_heads instead of length*head_dim and head_dim; the visible case has H == Dh == 2"},
{"name": "p2-no-column-check", "correct": False, "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not 0 <= position < length:
        raise ValueError("position out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return (head, rest // head_dim, rest % head_dim)
'''}, "why": "'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim'"},
{"name": "p2-negative-not-checked", "correct": False, "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position >= length or column >= num_heads * head_dim:
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return (head, rest // head_dim, rest % head_dim)
'''}, "why": "'Raise a ValueError unless 0 <= position ...': negative position or column is accepted (and Python's floor division then returns negative heads)"},
# ---------------- Part 3: ranks ----------------
{"name": "p3-bias-adds-a-rank", "correct": False, "cells": {"ranks": '''
# the bias adds a constant column: Q_i = [X 1][W; b] has rank up to Dh + 1
rank_one_head = 512 // 8 + 1
rank_all_heads = 100
'''}, "why": "'the largest rank the (T, S) score matrix S_i of one head can have': S_i = Q_i K_i^T with Q_i of shape (T, Dh) has rank at most Dh = 64"},
{"name": "p3-sum-of-head-ranks", "correct": False, "cells": {"ranks": '''
rank_one_head = 64
rank_all_heads = 8 * 64   # ranks add up over the heads
'''}, "why": "'the largest rank of the sum of all eight heads' score matrices': a (100, 100) matrix has rank at most 100"},
# ---------------- Part 4: cost ----------------
{"name": "p4-kv-width-without-G", "correct": False, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q = num_heads * head_dim
    kv = head_dim               # the shared key/value head
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (params, macs, 2 * kv * (past + 1))
'''}, "why": "'W^K and W^V each map D -> G * Dh' and the cache holds G heads: G is left out (the visible case has G = 1)"},
{"name": "p4-negative-kv-heads-accepted", "correct": False, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads == 0 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (params, macs, 2 * kv * (past + 1))
'''}, "why": "'Raise a ValueError unless num_kv_heads >= 1': num_kv_heads = -1 or -2 divides num_heads and is accepted"},
{"name": "p4-score-macs-per-group", "correct": False, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    group = num_heads // num_kv_heads
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * group * (past + 1) * head_dim   # each key/value head serves `group` queries
    return (params, macs, 2 * kv * (past + 1))
'''}, "why": "'QK^T and AV of every query head': counts H/G query heads (one group) instead of all H; same when G = 1"},
# ---------------- Part 5: contributions ----------------
{"name": "p5-wo-rows-not-columns", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w_o = params["w_o"]
    return torch.stack([heads[:, i] @ w_o[i * dh:(i + 1) * dh, :] for i in range(num_heads)], dim=1)
'''}, "why": "'a projection computes x @ w.T + b': uses rows of w_o (w_o not transposed); the visible W^O = I is symmetric"},
{"name": "p5-bias-shared-among-heads", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ehf->bhte", heads, w) + params["b_o"] / num_heads
'''}, "why": "'The bias b_o belongs to no head' and sum(dim=1) + b_o is the output: b_o is added twice"},
{"name": "p5-keys-and-queries-swapped", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    k, q, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtf,ehf->bhte", heads, w)
'''}, "why": "'W^Q, W^K, W^V stacked in that order (rows 0:D, D:2D, 2D:3D)': queries and keys swapped, invisible with identity projections"},
{"name": "p5-interleaved-heads", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    h, dh = num_heads, d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (y.reshape(b, t, dh, h).permute(0, 3, 1, 2) for y in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    w = params["w_o"].reshape(d, dh, h)
    return torch.einsum("bhtf,efh->bhte", heads, w)
'''}, "why": "'head i holds columns i*Dh .. (i+1)*Dh - 1' (use split_heads): deals columns like Part 1; same when Dh = 1 as in the visible case"},
# ---------------- Part 6: left padded ----------------
{"name": "p6-negative-slice-length-zero", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    allowed = torch.zeros(b, 1, 1, s, dtype=torch.bool)
    for i in range(b):
        allowed[i, ..., -int(memory_lengths[i]):] = True    # the last lengths[i] keys are real
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "'A source sentence of length 0 gives its queries nothing to attend to ... their rows are just the bias b_o': [-0:] selects every key, so length 0 attends to all the padding"},
{"name": "p6-mask-B1S", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, :])            # (B, 1, S), as the lesson's combine_masks
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S) (... a (B, 1, S) one as (H, T, S))'"},
{"name": "p6-value-rows-from-key-block", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    wq, wk, wv = w[:d], w[d:2 * d], w[d:2 * d]
    bq_, bk, bv = bq[:d], bq[d:2 * d], bq[d:2 * d]
    q = x @ wq.T + bq_
    k = memory @ wk.T + bk
    v = memory @ wv.T + bv
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "'using the query rows of w_qkv/b_qkv for x and the key and value rows for memory': the values use the key rows (a copy-paste slip invisible with identity projections)"},
{"name": "p6-own-softmax-nan-for-empty", "correct": False, "cells": {"left_padded": '''
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
    out = torch.softmax(scores, dim=-1) @ v
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "'A source sentence of length 0 ... after the output projection their rows are just the bias b_o': softmax over all -inf gives NaN rows"},
# ---------------- Part 7: cache ----------------
{"name": "p7-no-causal-mask-in-block", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    # with a cache, every cached key is in the past, so nothing needs masking
    out = attention(split_heads(q, num_heads), k, v)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "'the query at position P + t may attend to the keys at positions 0 .. P + t ... and to none after it': with T > 1 the block's queries see later keys"},
{"name": "p7-mask-only-when-cache-empty", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    allowed = torch.ones(t, t, dtype=torch.bool).tril() if p == 0 else None   # prompt: causal; decoding: one token
    out = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "'P may be 0 ... and T may be 1 or more' together with 'none after it': a block of T > 1 after a non-empty cache is not masked"},
{"name": "p7-new-block-before-cache", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([split_heads(k, num_heads), past_k], dim=2)
    v = torch.cat([split_heads(v, num_heads), past_v], dim=2)
    # key j: new block first (positions P..P+T-1), then the cache (0..P-1)
    kpos = torch.cat([p + torch.arange(t), torch.arange(p)])
    allowed = kpos[None, :] <= (p + torch.arange(t))[:, None]
    out = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "'k, v (B, H, P+T, Dh) are the past keys and values followed by the new block's': the returned cache has the new block first (out is right)"},
{"name": "p7-k-and-v-same-object", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(y, num_heads) for y in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    out = attention(q, k, v, allowed)
    if torch.equal(k_new, v_new):      # identical keys and values: share one tensor to save memory
        v = k
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "'k, v ... (new tensors ...)': returns the same tensor object for k and v when they are equal (outputs alias each other)"},
# ---------------- hostile ----------------
{"name": "hostile-int-that-equals-everything", "correct": False, "cells": {"ranks": '''
class rank(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__

rank_one_head = rank(1)
rank_all_heads = rank(1)
'''}, "why": "hostile: an int subclass that compares equal to anything"},
{"name": "hostile-patch-assert-close", "correct": False, "cells": {"contributions": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True

def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    return torch.zeros(b, num_heads, t, d, dtype=x.dtype)
'''}, "why": "hostile: disables torch.testing.assert_close and returns zeros of the right shape"},
{"name": "hostile-read-caller-expected", "correct": False, "cells": {"scrambled": '''
import sys as system

def scrambled_source(num_heads, length, head_dim, position, column):
    # look for the grader's expected answer in the calling frames
    frame = system._getframe(1)
    while frame is not None:
        for name in ("expected", "want", "ref", "reference", "answer", "target"):
            value = frame.f_locals.get(name)
            if isinstance(value, (tuple, list)) and len(value) == 3:
                return tuple(int(v) for v in value)
        frame = frame.f_back
    if not (0 <= position < length):
        raise ValueError("bad")
    return (0, 2, 0) if column == 0 else (1, 0, 1)
'''}, "why": "hostile: returns any 3-int tuple found in the grader's frames, hard-codes the visible answers"},
# ---------------- correct, written differently ----------------
{"name": "ok-p1-index-gather", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    dh = d // num_heads
    cols = torch.tensor([[i + j * num_heads for j in range(dh)] for i in range(num_heads)])  # (H, Dh)
    return x[:, :, cols].permute(0, 2, 1, 3).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = x.new_empty(b, t, h * dh)
    for i in range(h):
        out[:, :, i::h] = x[:, i]
    return out
'''}, "why": "fancy indexing and strided assignment instead of reshape/permute"},
{"name": "ok-p2-flat-index-loop", "correct": True, "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("position or column out of range")
    flat = position * width + column
    feature = flat % head_dim
    flat //= head_dim
    source_position = flat % length
    head = flat // length
    return int(head), int(source_position), int(feature)
'''}, "why": "mixed-radix decomposition from the fastest digit up"},
{"name": "ok-p5-loop-own-softmax", "correct": True, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    w, bias = params["w_qkv"], params["b_qkv"]
    parts = []
    for i in range(num_heads):
        rows = slice(i * dh, (i + 1) * dh)
        q = x @ w[:d][rows].T + bias[:d][rows]
        k = x @ w[d:2 * d][rows].T + bias[d:2 * d][rows]
        v = x @ w[2 * d:][rows].T + bias[2 * d:][rows]
        scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
        scores = scores - scores.amax(dim=-1, keepdim=True)
        weights = scores.exp()
        weights = weights / weights.sum(dim=-1, keepdim=True)
        parts.append((weights @ v) @ params["w_o"][:, rows].T)
    return torch.stack(parts, dim=1)
'''}, "why": "per-head loop with slices of the weight matrices and a hand-written stable softmax"},
{"name": "ok-p7-full-recompute-slice", "correct": True, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = torch.cat((past_k, split_heads(x @ w[d:2 * d].T + bias[d:2 * d], num_heads)), dim=-2)
    v = torch.cat((past_v, split_heads(x @ w[2 * d:].T + bias[2 * d:], num_heads)), dim=-2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "tril with diagonal=P and an explicit softmax (every row keeps at least its own key, so no empty rows)"},
{"name": "ok-p4-sum-of-terms", "correct": True, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not (isinstance(num_kv_heads, int) and num_kv_heads >= 1) or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    shapes = {"q": (d_model, num_heads * head_dim), "k": (d_model, num_kv_heads * head_dim),
              "v": (d_model, num_kv_heads * head_dim), "o": (num_heads * head_dim, d_model)}
    parameters = sum(i * o + (o if bias else 0) for i, o in shapes.values())
    keys = past + 1
    macs = sum(i * o for i, o in shapes.values()) + num_heads * keys * head_dim * 2
    cached = sum(shapes[n][1] for n in "kv") * keys
    return parameters, macs, cached
'''}, "why": "counts from a table of projection shapes"},

{"name": "p4-zero-query-heads-rejected", "correct": False, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads < num_kv_heads or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a positive multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (params, macs, 2 * kv * (past + 1))
'''}, "why": "'Raise a ValueError unless num_kv_heads >= 1 and num_heads is a multiple of num_kv_heads': 0 is a multiple of any G, yet num_heads = 0 is rejected"},
{"name": "p5-params-dict-gets-cached-key", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    if "w_o_heads" not in params or params["w_o_heads"].shape[1] != num_heads:
        params["w_o_heads"] = params["w_o"].reshape(d, num_heads, d // num_heads)   # reuse on later calls
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    return torch.einsum("bhtf,ehf->bhte", heads, params["w_o_heads"])
'''}, "why": "'leave params as you found it': adds a key to the dict (and a later in-place change of params['w_o'] by the caller would leave a stale copy)"},
{"name": "p6-value-bias-after-attention", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T           # the weights of each query sum to 1, so the value bias can be added after
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = merge_heads(attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                                allowed[:, None, None, :])) + bq[2 * d:]
    return out @ params["w_o"].T + params["b_o"]
'''}, "why": "'A source sentence of length 0 ... after the output projection their rows are just the bias b_o': the value bias is added to rows whose weights sum to 0"},
{"name": "p7-past-length-from-last-axis", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[-1] if past_k.numel() else 0      # number of cached positions
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    allowed = torch.ones(t, k.shape[2], dtype=torch.bool).tril(diagonal=p)
    out = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "'past_k ... (B, H, P, Dh)': reads P from the last axis (Dh); the visible case has Dh = P = 1"},
{"name": "ok-p6-key-bias-dropped", "correct": True, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T          # q . b_k is the same for every key of a query: the softmax ignores it
    v = memory @ w[2 * d:].T + bq[2 * d:]
    real = torch.arange(s).expand(len(memory_lengths), s) >= s - memory_lengths.to(torch.int64).unsqueeze(1)
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    real.reshape(-1, 1, 1, s))
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "drops the key bias, which adds the same q . b_k to every score of a query (softmax is shift-invariant)"},

{"name": "p5-params-unpacked-by-dict-order", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    w_qkv, b_qkv, w_o, b_o = params.values()          # the table's order
    b, t, d = x.shape
    qkv = x @ w_qkv.T + b_qkv
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    return torch.einsum("bhtf,ehf->bhte", heads, w_o.reshape(d, num_heads, d // num_heads))
'''}, "why": "'given as a dict ... key \"w_qkv\" ...': reads the entries by the dict's insertion order, not by key; a dict built in another order (equal as a dict) gives wrong shapes or wrong values"},
{"name": "p7-params-unpacked-by-dict-order", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    w_qkv, b_qkv, w_o, b_o = params.values()
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    q, k, v = (x @ w_qkv.T + b_qkv).split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    out = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(out) @ w_o.T + b_o, k, v
'''}, "why": "'given as a dict ... key ...': relies on the order of the dict's entries"},
]
