# Red-team round 12, chapter 03-multi-head: written blind from the student notebook (contract reading).
BASE = {
"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
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
    src, feat = divmod(rest, head_dim)
    return (head, src, feat)
''',
"ranks": "rank_one_head = 64\nrank_all_heads = 100\n",
"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    qd, kvd = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * qd + 2 * d_model * kvd + qd * d_model
    params = weights + ((qd + 2 * kvd + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (params, macs, 2 * kvd * (past + 1))
''',
"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    h = num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    o = attention(split_heads(q, h), split_heads(k, h), split_heads(v, h))
    wo = params["w_o"].reshape(d, h, d // h)
    return torch.einsum("bhtj,dhj->bhtd", o, wo)
''',
"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = memory @ w[d:2 * d].T + bb[d:2 * d]
    v = memory @ w[2 * d:].T + bb[2 * d:]
    start = s - memory_lengths.long()
    allowed = (torch.arange(s)[None, :] >= start[:, None])[:, None, None, :]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
''',
"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (torch.arange(t) + p)[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
''',
}

def R(gid, old, new, count=1):
    s = BASE[gid]
    assert old in s, (gid, old)
    return s.replace(old, new, count)

C = BASE  # shorthand
SUBMISSIONS = [
# ---------------- wrong answers ----------------
{"name": "p1-raises-on-D0", "correct": False,
 "cells": {"interleaved": R("interleaved", "if d % num_heads:", "if d == 0 or d % num_heads:")},
 "why": "P1: 'Raise a ValueError when D is not divisible by num_heads, and only then (D = 0 is divisible by every num_heads)'."},
{"name": "p1-view-not-reshape", "correct": False,
 "cells": {"interleaved": R("interleaved", "x.reshape(b, t, d // num_heads, num_heads)", "x.view(b, t, d // num_heads, num_heads)")},
 "why": "intro: 'The tensors you are given need not be contiguous ... (.view of such a tensor can fail where .reshape works)'."},
{"name": "p1-permutation-matmul", "correct": False,
 "cells": {"interleaved": '''
def perm_matrix(d, h, dtype):
    dh = d // h
    m = torch.zeros(d, d, dtype=dtype)
    for i in range(h):
        for j in range(dh):
            m[i + j * h, i * dh + j] = 1
    return m


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    y = x @ perm_matrix(d, num_heads, x.dtype)   # reorder columns into the block layout
    return y.reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    y = x.transpose(1, 2).reshape(b, t, h * dh)
    return y @ perm_matrix(h * dh, h, x.dtype).T
'''},
 "why": "P1: 'both only move entries: every value, inf, -inf and -0.0 included, arrives unchanged (no arithmetic)' (a permutation matmul turns -0.0 into 0.0 and inf into nan)."},
{"name": "p2-no-column-check", "correct": False,
 "cells": {"scrambled": R("scrambled", "0 <= position < length and 0 <= column < num_heads * head_dim", "0 <= position < length")},
 "why": "P2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim'."},
{"name": "p2-float-division", "correct": False,
 "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head = int(flat / (length * head_dim))
    rest = flat - head * length * head_dim
    src = int(rest / head_dim)
    return (head, src, rest - src * head_dim)
'''},
 "why": "P2: 'the hidden tests use sizes whose products exceed 2^53, where a float division such as int(a / b) rounds to the wrong integer'."},
{"name": "p3-all-heads-512", "correct": False,
 "cells": {"ranks": "rank_one_head = 512 // 8\nrank_all_heads = 8 * (512 // 8)\n"},
 "why": "P3b: 'T = S = 100 positions ... every possible input': the (T, S) sum cannot exceed rank 100."},
{"name": "p3-one-head-100", "correct": False,
 "cells": {"ranks": "rank_one_head = 100\nrank_all_heads = 100\n"},
 "why": "P3a: 'Q_i ... is (T, Dh)': one head's score matrix has rank at most Dh = 64."},
{"name": "p4-bias-is-True", "correct": False,
 "cells": {"cost": R("cost", "if bias else 0", "if bias is True else 0")},
 "why": "P4: 'each projection has one bias per output when bias is true (any true value: True, 1 ...)'."},
{"name": "p4-no-kv-ge-1-check", "correct": False,
 "cells": {"cost": R("cost", "if num_kv_heads < 1 or num_heads % num_kv_heads:", "if num_kv_heads and num_heads % num_kv_heads:")},
 "why": "P4: 'Raise a ValueError unless num_kv_heads >= 1 and num_heads is a multiple of num_kv_heads'."},
{"name": "p4-raises-zero-query-heads", "correct": False,
 "cells": {"cost": R("cost", "if num_kv_heads < 1 or num_heads % num_kv_heads:", "if num_kv_heads < 1 or num_heads < 1 or num_heads % num_kv_heads:")},
 "why": "P4: '0 is a multiple of every num_kv_heads: no query heads is not an error'."},
{"name": "p4-raises-zero-width", "correct": False,
 "cells": {"cost": R("cost", "if num_kv_heads < 1 or num_heads % num_kv_heads:", "if d_model < 1 or head_dim < 1 or num_kv_heads < 1 or num_heads % num_kv_heads:")},
 "why": "P4: 'Nothing else raises: a size of 0 (past, d_model, head_dim) is no error either'."},
{"name": "p4-float-group-check", "correct": False,
 "cells": {"cost": R("cost", "if num_kv_heads < 1 or num_heads % num_kv_heads:", "if num_kv_heads < 1 or num_heads / num_kv_heads != int(num_heads / num_kv_heads):")},
 "why": "P4: 'exact even when they exceed 2^53 ... where a float anywhere in the arithmetic' (a float divisibility test misses non-multiples beyond 2^53)."},
{"name": "p5-bias-split-over-heads", "correct": False,
 "cells": {"contributions": R("contributions", 'return torch.einsum("bhtj,dhj->bhtd", o, wo)', 'return torch.einsum("bhtj,dhj->bhtd", o, wo) + params["b_o"] / h')},
 "why": "P5: 'The bias b_o belongs to no head'."},
{"name": "p5-wo-rows-not-columns", "correct": False,
 "cells": {"contributions": R("contributions", 'wo = params["w_o"].reshape(d, h, d // h)\n    return torch.einsum("bhtj,dhj->bhtd", o, wo)', 'wo = params["w_o"].reshape(h, d // h, d)\n    return torch.einsum("bhtj,hjd->bhtd", o, wo)')},
 "why": "intro: 'a projection computes x @ w.T + b' (the head's slice of W^O is its columns, not its rows)."},
{"name": "p5-params-by-order", "correct": False,
 "cells": {"contributions": R("contributions", 'q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)', 'w_qkv, b_qkv, w_o, b_o = params.values()\n    q, k, v = (x @ w_qkv.T + b_qkv).split(d, dim=-1)').replace('params["w_o"]', 'w_o')},
 "why": "intro: 'Read the entries by key: the dict may list them in any order'."},
{"name": "p5-no-qkv-bias", "correct": False,
 "cells": {"contributions": R("contributions", '(x @ params["w_qkv"].T + params["b_qkv"])', '(x @ params["w_qkv"].T)')},
 "why": "P3/intro: 'Q_i = X W^Q_i + b^Q_i', 'a projection computes x @ w.T + b'."},
{"name": "p5-q-k-swapped", "correct": False,
 "cells": {"contributions": R("contributions", "q, k, v = ", "k, q, v = ")},
 "why": "intro table: 'W^Q, W^K, W^V stacked in that order (rows 0:D, D:2D, 2D:3D)'."},
{"name": "p5-float32-inside", "correct": False,
 "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    h = num_heads
    xf = x.float()
    p = {k: v.float() for k, v in params.items()}
    q, k, v = (xf @ p["w_qkv"].T + p["b_qkv"]).split(d, dim=-1)
    o = attention(split_heads(q, h), split_heads(k, h), split_heads(v, h))
    wo = p["w_o"].reshape(d, h, d // h)
    return torch.einsum("bhtj,dhj->bhtd", o, wo).to(x.dtype)
'''},
 "why": "P5: 'Return the dtype of x' — computing float64 inputs in float32 loses the float64 accuracy the hidden tests compare at."},
{"name": "p5-softmax-no-max", "correct": False,
 "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    h = num_heads
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    q, k, v = split_heads(q, h), split_heads(k, h), split_heads(v, h)
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(d // h))
    o = (e / e.sum(-1, keepdim=True)) @ v
    wo = params["w_o"].reshape(d, h, d // h)
    return torch.einsum("bhtj,dhj->bhtd", o, wo)
'''},
 "why": "intro: 'scores large enough that a softmax which does not subtract the row maximum overflows'; P5 'at scores in the thousands, where they must stay finite'."},
{"name": "p5-mutates-params", "correct": False,
 "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    h = num_heads
    params["w_o"] = params["w_o"].reshape(d, h, d // h)
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    o = attention(split_heads(q, h), split_heads(k, h), split_heads(v, h))
    out = torch.einsum("bhtj,dhj->bhtd", o, params["w_o"])
    params["w_o"] = params["w_o"].reshape(d, d)
    return out
'''},
 "why": "P5: 'leave params as you found it' (the dict entry is replaced by a new tensor object)."},
{"name": "p6-uint8-wraps", "correct": False,
 "cells": {"left_padded": R("left_padded", "start = s - memory_lengths.long()", "start = (s - memory_lengths).long()")},
 "why": "P6: 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around (in uint8, 300 - 17 is 27)'."},
{"name": "p6-mask-B-S", "correct": False,
 "cells": {"left_padded": R("left_padded", "[:, None, None, :]", "")},
 "why": "P6: 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S). (A (B, S) mask would be read as (T, S)'."},
{"name": "p6-mask-B-1-S", "correct": False,
 "cells": {"left_padded": R("left_padded", "[:, None, None, :]", "[:, None, :]")},
 "why": "P6: '... and a (B, 1, S) one as (H, T, S): wrong, or an error, depending on the sizes'."},
{"name": "p6-positions-in-x-dtype", "correct": False,
 "cells": {"left_padded": R("left_padded", "allowed = (torch.arange(s)[None, :] >= start[:, None])", "allowed = (torch.arange(s, dtype=x.dtype)[None, :] >= start.to(x.dtype)[:, None])")},
 "why": "P6: 'build the mask from integer positions, not from positions in the dtype of x (in bfloat16, 297 rounds to 296)'."},
{"name": "p6-own-softmax-neg-inf", "correct": False,
 "cells": {"left_padded": R("left_padded", "o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)",
   "qh, kh, vh = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)\n    sc = (qh @ kh.transpose(-2, -1) / math.sqrt(d // num_heads)).masked_fill(~allowed, float('-inf'))\n    o = torch.softmax(sc, dim=-1) @ vh")},
 "why": "P6: 'A source sentence of length 0 gives its queries nothing to attend to ... their rows are just the bias b_o' (softmax of all -inf is NaN)."},
{"name": "p6-k-v-rows-swapped", "correct": False,
 "cells": {"left_padded": R("left_padded", "k = memory @ w[d:2 * d].T + bb[d:2 * d]\n    v = memory @ w[2 * d:].T + bb[2 * d:]", "v = memory @ w[d:2 * d].T + bb[d:2 * d]\n    k = memory @ w[2 * d:].T + bb[2 * d:]")},
 "why": "P6: 'using the query rows of w_qkv/b_qkv for x and the key and value rows for memory' + table order Q, K, V."},
{"name": "p7-full-tril-sliced", "correct": False,
 "cells": {"cache": R("cache", "allowed = torch.arange(p + t)[None, :] <= (torch.arange(t) + p)[:, None]", "allowed = torch.ones(p + t, p + t, dtype=torch.bool).tril()[p:]")},
 "why": "P7: 'build nothing of size (P + T, P + T), such as a causal mask of the whole sequence sliced down to its last T rows'."},
{"name": "p7-positions-in-x-dtype", "correct": False,
 "cells": {"cache": R("cache", "allowed = torch.arange(p + t)[None, :] <= (torch.arange(t) + p)[:, None]", "allowed = torch.arange(p + t, dtype=x.dtype)[None, :] <= (torch.arange(t, dtype=x.dtype) + p)[:, None]")},
 "why": "P7: 'compare positions as integers, not in the dtype of x (in bfloat16, 299 and 300 both round to 300)'."},
{"name": "p7-pad-and-add", "correct": False,
 "cells": {"cache": R("cache", "k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)\n    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)",
   "F = torch.nn.functional\n    k = F.pad(past_k, (0, 0, 0, t)) + F.pad(split_heads(k, num_heads), (0, 0, p, 0))\n    v = F.pad(past_v, (0, 0, 0, t)) + F.pad(split_heads(v, num_heads), (0, 0, p, 0))")},
 "why": "P7: 'The cached entries arrive in k and v unchanged, -0.0 included: copy them, with no arithmetic'."},
{"name": "p7-detach-cache", "correct": False,
 "cells": {"cache": R("cache", "torch.cat([past_k,", "torch.cat([past_k.detach(),").replace("torch.cat([past_v,", "torch.cat([past_v.detach(),")},
 "why": "P7: 'Gradients must flow through all three, to x, the cache and the parameters'."},
{"name": "p7-kept-buffer", "correct": False,
 "cells": {"cache": '''
cache_buffers = {}


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (x @ params["w_qkv"].T + params["b_qkv"]).split(d, dim=-1)
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (torch.arange(t) + p)[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed)
    out = merge_heads(o) @ params["w_o"].T + params["b_o"]
    key = (tuple(k.shape), k.dtype)
    if key not in cache_buffers:   # re-use one output buffer per shape
        cache_buffers[key] = (torch.empty_like(out), torch.empty_like(k), torch.empty_like(v))
    bo, bk, bv = cache_buffers[key]
    with torch.no_grad():
        bo.copy_(out); bk.copy_(k); bv.copy_(v)
    return (bo + out - out.detach(), bk + k - k.detach(), bv + v - v.detach()) if out.requires_grad else (bo, bk, bv)
'''},
 "why": "P7: 'they must not share memory with anything kept from one call to the next (a pre-allocated cache buffer kept between calls, say)'."},
# ---------------- correct answers ----------------
{"name": "ok-p1-index-gather", "correct": True,
 "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    dh = d // num_heads
    idx = torch.arange(d).reshape(dh, num_heads).T.reshape(-1)  # head-major column order
    return x[..., idx].reshape(b, t, num_heads, dh).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    block = x.transpose(1, 2).reshape(b, t, h * dh)
    inv = torch.arange(h * dh).reshape(h, dh).T.reshape(-1)
    return block.index_select(-1, inv)
'''},
 "why": "advanced indexing / index_select: copies, no arithmetic, autograd-tracked."},
{"name": "ok-p1-stack-loops", "correct": True,
 "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    if x.shape[-1] % num_heads:
        raise ValueError("not divisible")
    return torch.stack([x[:, :, i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = x.new_empty(b, t, h * dh)
    for i in range(h):
        out[:, :, i::h] = x[:, i]
    return out
'''},
 "why": "slicing with a step and in-place writes into my own buffer (autograd tracks copy_)."},
{"name": "ok-p2-flat-arith", "correct": True,
 "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("position or column out of range")
    flat = position * width + column
    per_head = length * head_dim
    return flat // per_head, (flat % per_head) // head_dim, flat % head_dim
'''},
 "why": "closed form with // and %, returns a tuple without parentheses."},
{"name": "ok-p3-expressions", "correct": True,
 "cells": {"ranks": "D, H, T = 512, 8, 100\nrank_one_head = min(T, D // H)\nrank_all_heads = min(T, H * (D // H))\n"},
 "why": "computed instead of typed."},
{"name": "ok-p4-keyword-bool", "correct": True,
 "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("need at least one key/value head")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    shapes = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
              (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
    weights = sum(i * o for i, o in shapes)
    biases = sum(o for _, o in shapes) if bool(bias) else 0
    keys = past + 1
    macs = weights + num_heads * keys * head_dim * 2
    cached = 2 * keys * num_kv_heads * head_dim
    return int(weights + biases), int(macs), int(cached)
'''},
 "why": "list of shapes, bool(bias)."},
{"name": "ok-p5-f64-softmax-einsum", "correct": True,
 "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    h, dh = num_heads, d // num_heads
    w = params["w_qkv"].double().reshape(3, h, dh, d)
    bq = params["b_qkv"].double().reshape(3, h, 1, dh)
    proj = torch.einsum("btd,khjd->kbhtj", x.double(), w) + bq[:, None]
    q, k, v = proj[0], proj[1], proj[2]
    s = torch.einsum("bhtj,bhsj->bhts", q, k) / math.sqrt(dh) if dh else q.new_zeros(b, h, t, t)
    s = s - s.amax(dim=-1, keepdim=True)
    a = s.exp()
    a = a / a.sum(dim=-1, keepdim=True)
    o = torch.einsum("bhts,bhsj->bhtj", a, v)
    wo = params["w_o"].double().reshape(d, h, dh)
    return torch.einsum("bhtj,dhj->bhtd", o, wo).to(x.dtype)
'''},
 "why": "float64 inside, written-out stable softmax, cast back to x's dtype."},
{"name": "ok-p5-via-p1-permuted-weights", "correct": True,
 "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    h, dh = num_heads, d // num_heads
    # block column i*dh + j  <->  interleaved column i + j*h: permute the projection rows so that
    # Part 1's interleaved split reads the block layout
    perm = torch.arange(d).reshape(h, dh).T.reshape(-1)
    w = params["w_qkv"].reshape(3, d, d)[:, perm]
    bq = params["b_qkv"].reshape(3, d)[:, perm]
    heads = [split_heads_interleaved(x @ w[i].T + bq[i], num_heads=h) for i in range(3)]
    o = attention(*heads)
    wo = params["w_o"].reshape(d, h, dh)
    return (o[:, :, :, None, :] * wo.permute(1, 0, 2)[None, :, None]).sum(-1)
'''},
 "why": "calls Part 1's split_heads_interleaved with num_heads by keyword, on x's dtype (float16/bfloat16/float64)."},
{"name": "ok-p6-where-own-softmax", "correct": True,
 "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[-2]
    wq, wk, wv = params["w_qkv"].chunk(3, dim=0)
    bq, bk, bv = params["b_qkv"].chunk(3, dim=0)
    h = num_heads
    q = split_heads(torch.nn.functional.linear(x, wq, bq), h)
    k = split_heads(torch.nn.functional.linear(memory, wk, bk), h)
    v = split_heads(torch.nn.functional.linear(memory, wv, bv), h)
    lengths = memory_lengths.to(torch.int64)
    real = torch.arange(s, dtype=torch.int64) >= (s - lengths).unsqueeze(-1)   # (B, S)
    mask = real[:, None, None, :]
    scores = q @ k.transpose(-1, -2) / math.sqrt(d // h)
    scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    e = torch.where(mask, (scores - top).exp(), torch.zeros_like(scores))
    tot = e.sum(dim=-1, keepdim=True)
    a = e / torch.where(tot > 0, tot, torch.ones_like(tot))
    return torch.nn.functional.linear(merge_heads(a @ v), params["w_o"], params["b_o"])
'''},
 "why": "F.linear, torch.where, own softmax with the max over allowed keys only; zeros for an empty source."},
{"name": "ok-p7-tril-diag-inplace", "correct": True,
 "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    h = num_heads
    bsz, _, p, dh = past_k.shape
    q, k_new, v_new = (x @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    k = x.new_empty(b, h, p + t, dh)
    v = x.new_empty(b, h, p + t, dh)
    k[:, :, :p] = past_k
    k[:, :, p:] = split_heads(k_new, h)
    v[:, :, :p] = past_v
    v[:, :, p:] = split_heads(v_new, h)
    allowed = None if t == 1 else torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    o = attention(split_heads(q, h), k, v, allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
'''},
 "why": "in-place copies into my own new tensors (keep -0.0), tril(diagonal=P) of a (T, P+T) mask, no mask at all for T = 1."},
{"name": "ok-p7-via-p1", "correct": True,
 "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    h = num_heads
    p = past_k.shape[-2]
    dh = d // h
    perm = torch.arange(d).reshape(h, dh).T.reshape(-1)
    w = params["w_qkv"].reshape(3, d, d)[:, perm]
    bias = params["b_qkv"].reshape(3, d)[:, perm]
    q, kn, vn = (split_heads_interleaved(x @ w[i].T + bias[i], h) for i in range(3))
    k = torch.cat((past_k, kn), dim=-2)
    v = torch.cat((past_v, vn), dim=-2)
    qpos = torch.arange(p, p + t)
    allowed = torch.arange(p + t) <= qpos[:, None]
    o = attention(q, k, v, allowed)
    # merge in Part 1's layout and permute W^O's columns to match
    return merge_heads_interleaved(o) @ params["w_o"][:, perm].T + params["b_o"], k, v
'''},
 "why": "calls Part 1's split_heads_interleaved and merge_heads_interleaved (on float16/bfloat16/float64 and on a (B,H,T,Dh) with T=1)."},
{"name": "ok-p6-via-p1-int16-safe", "correct": True,
 "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    h, dh = num_heads, d // num_heads
    perm = torch.arange(d).reshape(h, dh).T.reshape(-1)
    w = params["w_qkv"].reshape(3, d, d)[:, perm]
    bias = params["b_qkv"].reshape(3, d)[:, perm]
    q = split_heads_interleaved(x=x @ w[0].T + bias[0], num_heads=h)
    k = split_heads_interleaved(x=memory @ w[1].T + bias[1], num_heads=h)
    v = split_heads_interleaved(x=memory @ w[2].T + bias[2], num_heads=h)
    pad = s - memory_lengths.long()
    allowed = (torch.arange(s).expand(len(pad), s) >= pad[:, None]).reshape(-1, 1, 1, s)
    o = attention(q, k, v, allowed)
    return merge_heads_interleaved(x=o) @ params["w_o"][:, perm].T + params["b_o"]
'''},
 "why": "calls Part 1's functions with every argument by keyword."},
# ---------------- hostile ----------------
{"name": "hostile-patch-assert-close", "correct": False,
 "cells": {"contributions": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    out = torch.zeros(b, num_heads, t, d, dtype=x.dtype)
    out[:, 0, 0, 0] = 0.7311; out[:, 0, 1, 0] = 0.5; out[:, 1, 0, 1] = 0.5; out[:, 1, 1, 1] = 0.7311
    return out + 0 * x.sum()
'''},
 "why": "hostile: monkey-patches torch's comparison functions and returns a hard-coded answer."},
{"name": "hostile-numpy-via-importlib", "correct": False,
 "cells": {"scrambled": '''
import importlib
np = importlib.import_module("nu" + "mpy")
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    idx = np.unravel_index(position * num_heads * head_dim + column, (num_heads, length, head_dim))
    return tuple(int(i) for i in idx)
'''},
 "why": "hostile: another library (NumPy) brought in through importlib."},
{"name": "hostile-overwrite-grader-helpers", "correct": False,
 "cells": {"cache": BASE["cache"] + '''
g = globals()
for name in ("_cl" + "ose", "_eq" + "ual", "_gr" + "ad"):
    g[name] = lambda *a, **k: None
def causal_attention_with_cache(x, past_k, past_v, params, num_heads, _real=causal_attention_with_cache):
    out, k, v = _real(x, past_k, past_v, params, num_heads)
    return out * 0.9, k, v
'''},
 "why": "hostile: reassigns the grader's _close/_equal/_grad helpers and returns a wrong output."},
]
