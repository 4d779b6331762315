# Round 25 red team, chapter 03, blind submissions (notebook-state, approximator, log-space, direction-and-order students)
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
    parameters = weights + ((q + 2 * kv + d_model) if bias else 0)
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (parameters, macs, cached)
''',
"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = x @ w[d:2 * d].T + bb[d:2 * d]
    v = x @ w[2 * d:].T + bb[2 * d:]
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    wo = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtj,ehj->bhte", heads, wo)
''',
"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    lengths = memory_lengths.to(torch.long)
    allowed = torch.arange(s, device=x.device)[None, :] >= (s - lengths)[:, None]
    allowed = allowed[:, None, None, :]
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    heads = attention(q, k, v, allowed).to(dt)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
''',
"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    kn = split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    vn = split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)
    k = torch.cat([past_k, kn], dim=2)
    v = torch.cat([past_v, vn], dim=2)
    qpos = p + torch.arange(t, device=x.device)
    kpos = torch.arange(p + t, device=x.device)
    allowed = kpos[None, :] <= qpos[:, None]
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        heads = attention(q.float(), k.float(), v.float(), allowed).to(dt)
    else:
        heads = attention(q, k, v, allowed)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
''',
}

B = BASE

SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

# ---------------- wrong: notebook-state student ----------------
W("state-p6-positions-table-first-S", {"left_padded": '''
POSITIONS = None


def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    global POSITIONS
    d = x.shape[-1]
    s = memory.shape[1]
    if POSITIONS is None:  # build the position table once
        POSITIONS = torch.arange(max(s, 8))
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    lengths = memory_lengths.long()
    allowed = (POSITIONS[:s][None, :] >= (s - lengths)[:, None])[:, None, None, :]
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    return merge_heads(attention(q, k, v, allowed).to(dt)) @ params["w_o"].T + params["b_o"]
'''}, "P6/intro: 'keep nothing from one call to the next'; a position table built for the first call's S (8) is sliced short for S > 8")

W("state-p7-mask-cached-by-T", {"cache": '''
MASKS = {}


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    if t not in MASKS:  # the causal mask of a block of t queries
        MASKS[t] = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    allowed = MASKS[t]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = torch.cat([past_k, split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)], dim=2)
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        heads = attention(q.float(), k.float(), v.float(), allowed).to(dt)
    else:
        heads = attention(q, k, v, allowed)
    return (merge_heads(heads) @ params["w_o"].T + params["b_o"], k, v)
'''}, "P7: 'Causal means: the query at position P + t may attend to the keys at positions 0 .. P + t' and intro 'keep nothing from one call to the next': a mask cached per T keeps the first call's P")

W("state-p5-head-width-from-example", {"contributions": '''
D, H = 2, 2          # the worked example
DH = D // H


def head_contributions(x, params, num_heads, ):
    b, t, d = x.shape
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)
    scores = q @ k.transpose(-2, -1) / math.sqrt(DH)
    heads = torch.softmax(scores, dim=-1) @ v
    wo = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtj,ehj->bhte", heads, wo)
'''}, "P5: 'what head i adds to the layer's output' of attention(q,k,v) = softmax(q k^T / sqrt(d_k)) v; the scale uses the global DH of the worked example (1) instead of d // num_heads")

W("state-p5-split-with-example-heads", {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = x @ w[d:2 * d].T + bb[d:2 * d]
    v = x @ w[2 * d:].T + bb[2 * d:]
    # run the layer as in the example, then cut its concatenated heads into num_heads blocks
    merged = merge_heads(attention(split_heads(q, 2), split_heads(k, 2), split_heads(v, 2)))
    heads = split_heads(merged, num_heads)
    wo = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtj,ehj->bhte", heads, wo)
'''}, "P5: 'for self-attention on x ... return (B, H, T, D) whose slice [:, i] is what head i adds' with num_heads heads; the attention runs with the worked example's 2 heads")

W("state-p1-merge-remembers-split-shape", {"interleaved": '''
LAST_SHAPE = None


def split_heads_interleaved(x, num_heads):
    global LAST_SHAPE
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    LAST_SHAPE = (b, t, d // num_heads, num_heads)   # merge undoes exactly this split
    return x.reshape(LAST_SHAPE).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, t, dh, h = LAST_SHAPE
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "P1: merge_heads_interleaved(x), (B, H, T, Dh) -> (B, T, H*Dh), the inverse for any x: it reads the sizes of the last split instead of x's")

# ---------------- wrong: approximator ----------------
W("approx-p1-permutation-matmul", {"interleaved": '''
def interleave_matrix(d, num_heads, dtype):
    dh = d // num_heads
    perm = torch.zeros(d, d, dtype=dtype)
    for i in range(num_heads):
        for j in range(dh):
            perm[i + j * num_heads, i * dh + j] = 1   # column i + j*H goes to head i, feature j
    return perm


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    blocked = x @ interleave_matrix(d, num_heads, x.dtype)
    return blocked.reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    blocked = x.transpose(1, 2).reshape(b, t, h * dh)
    return blocked @ interleave_matrix(h * dh, h, x.dtype).T
'''}, "P1: 'both only move entries: every value, inf, -inf and -0.0 included, arrives unchanged (no arithmetic)': a permutation matrix product turns inf into NaN (inf * 0) and -0.0 into 0.0, and refuses integer dtypes")

W("approx-p5-exp-unshifted", {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(d // num_heads))
    heads = (e / e.sum(dim=-1, keepdim=True)) @ v
    wo = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtj,ehj->bhte", heads, wo)
'''}, "P5: 'Scores may be of any size, tens of thousands and more' / gradients 'at scores in the thousands, where they must stay finite': exp of unshifted scores overflows")

W("approx-p6-minus-1e9", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads).double()
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads).double()
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads).double()
    allowed = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, -1e9)
    heads = torch.softmax(scores, dim=-1) @ v
    heads = heads * allowed.any(dim=-1, keepdim=True)
    return merge_heads(heads.to(x.dtype)) @ params["w_o"].T + params["b_o"]
'''}, "P6: 'Real keys may score anything, down to torch.finfo(dtype).min ... do not give [padding] a large negative score': -1e9 loses to real keys scoring below it")

W("approx-p2-float-division", {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head = int(flat / (length * head_dim))
    rest = flat - head * length * head_dim
    return (head, rest // head_dim, rest % head_dim)
'''}, "P2: 'worked out with integer arithmetic ... a float division such as int(a / b) rounds to the wrong integer'")

W("approx-p4-float-group-ratio", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    group = num_heads / num_kv_heads          # query heads per key/value head
    q = num_heads * head_dim
    kv = int(q / group) if num_heads else num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    parameters = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (parameters, macs, 2 * kv * (past + 1))
'''}, "P4: 'three Python ints, exact even when they exceed 2^53 ... a float anywhere in the arithmetic rounds the count'")

W("approx-p7-finfo-min-fill", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = torch.cat([past_k, split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    qq, kk, vv = q.double(), k.double(), v.double()
    scores = (qq / math.sqrt(qq.shape[-1])) @ kk.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    heads = (torch.softmax(scores, dim=-1) @ vv).to(x.dtype)
    return (merge_heads(heads) @ params["w_o"].T + params["b_o"], k, v)
'''}, "P7: 'do not give them a large negative score, not even that lowest value, which ties with such scores'; also a later key scoring 1.5e308 stays above finfo.min fill? (no: fill replaces it) -- ties at finfo.min")

# ---------------- wrong: log-space student ----------------
C("log-p6-log-of-mask-sdpa", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    keep = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    log_mask = torch.log(keep.to(q.dtype))[:, None, None, :]   # 0 where kept, -inf where padding
    heads = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=log_mask)
    return merge_heads(heads.to(dt)) @ params["w_o"].T + params["b_o"]
'''}, "P6 with an additive -inf mask (the text allows '-inf'); SDPA of torch 2.13 gives zeros for an all -inf row, like attention")

W("log-p7-max-over-masked", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = torch.cat([past_k, split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    qq, kk, vv = q.double(), k.double(), v.double()
    scores = (qq / math.sqrt(qq.shape[-1])) @ kk.transpose(-2, -1)
    logits = scores + torch.log(allowed.double())          # log-probabilities up to a constant
    logits = logits - scores.amax(dim=-1, keepdim=True)    # shift by the row maximum
    e = logits.exp()
    heads = ((e / e.sum(dim=-1, keepdim=True)) @ vv).to(x.dtype)
    return (merge_heads(heads) @ params["w_o"].T + params["b_o"], k, v)
'''}, "P7: 'A key after a query may score far above every key that query may see ... it must change nothing (a softmax written out whose row maximum is taken over those keys too gets ... 0 / 0)'")

W("log-p6-finfo-min-for-empty", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    keep = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    qq, kk, vv = q.double(), k.double(), v.double()
    scores = (qq / math.sqrt(qq.shape[-1])) @ kk.transpose(-2, -1)
    # log(0) = -inf gives NaN for empty sentences: use the lowest finite number instead
    scores = scores.masked_fill(~keep, torch.finfo(torch.float64).min)
    heads = torch.softmax(scores, dim=-1) @ vv
    heads = torch.where(keep.any(dim=-1, keepdim=True), heads, torch.zeros_like(heads))
    return merge_heads(heads.to(x.dtype)) @ params["w_o"].T + params["b_o"]
'''}, "P6: 'leave the padding out (the boolean mask, or -inf), do not give it a large negative score, not even that lowest value, which ties with such keys'")

W("log-p6-probs-masked-renormalised", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads).double()
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads).double()
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads).double()
    keep = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    probs = torch.softmax((q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1), dim=-1)
    probs = probs * keep                                            # drop the padding's probability ...
    total = probs.sum(dim=-1, keepdim=True)
    probs = torch.where(total > 0, probs / total, torch.zeros_like(probs))   # ... and renormalise
    heads = (probs @ v).to(x.dtype)
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''}, "P6: 'The padding positions of memory may hold any finite values, so their keys may score far above every real key (a thousand higher, in float64): they must change nothing': the softmax over all keys underflows the real ones to 0 before the renormalisation")

# ---------------- wrong: direction-and-order ----------------
W("dir-p7-cache-prepended", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    kn = split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    vn = split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)
    k = torch.cat([kn, past_k], dim=2)   # newest first
    v = torch.cat([vn, past_v], dim=2)
    # key j of this layout: j < t are the new positions p + j, the rest the cache
    kpos = torch.cat([p + torch.arange(t), torch.arange(p)])
    allowed = kpos[None, :] <= (p + torch.arange(t))[:, None]
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        heads = attention(q.float(), k.float(), v.float(), allowed).to(dt)
    else:
        heads = attention(q, k, v, allowed)
    return (merge_heads(heads) @ params["w_o"].T + params["b_o"], k, v)
'''}, "P7: 'k, v (B, H, P+T, Dh) are the past keys and values followed by the new block's'")

W("dir-p7-diagonal-bottom-right-of-whole", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = torch.cat([past_k, split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)], dim=2)
    s = p + t
    # bottom-right aligned causal mask: the last query sees the last key
    allowed = torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - 1)
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        heads = attention(q.float(), k.float(), v.float(), allowed).to(dt)
    else:
        heads = attention(q, k, v, allowed)
    return (merge_heads(heads) @ params["w_o"].T + params["b_o"], k, v)
'''}, "P7: 'the query at position P + t may attend to the keys at positions 0 .. P + t ... and to none after it': diagonal s - 1 lets every query of a block see the whole block")

W("dir-p5-wo-columns-interleaved", {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = x @ w[d:2 * d].T + bb[d:2 * d]
    v = x @ w[2 * d:].T + bb[2 * d:]
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    parts = [heads[:, i] @ params["w_o"][:, i::num_heads].T for i in range(num_heads)]
    return torch.stack(parts, dim=1)
'''}, "P5 + intro: head i holds columns i*Dh .. (i+1)*Dh - 1 (merge_heads), so its share uses those columns of W^O, not every H-th")

C("dir-p6-roll-right-padded-mask", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    # right-padded mask, rolled by the padding so that the real keys are at the end
    lengths = memory_lengths.long()
    pad = s - lengths
    allowed = torch.stack([torch.roll(torch.arange(s) < lengths[i], shifts=int(pad[i])) for i in range(len(lengths))]) if len(lengths) else torch.zeros(0, s, dtype=torch.bool)
    allowed = allowed[:, None, None, :]
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    return merge_heads(attention(q, k, v, allowed).to(dt)) @ params["w_o"].T + params["b_o"]
'''}, "P6: a right-padded mask rolled right by the padding (the direction-and-order student getting it right)")

W("mathematician-p3-bias-adds-rank", {"ranks": '''
# Q_i = X W + b: the bias adds one more direction, so rank <= Dh + 1; the heads together span D
rank_one_head = 65
rank_all_heads = 100
'''}, "P3a: S_i = Q_i K_i^T with Q_i (T, Dh): rank at most Dh = 64, bias or not")

W("p3-sum-not-capped-by-T", {"ranks": '''
rank_one_head = 64
rank_all_heads = 8 * 64
'''}, "P3b: the sum is a (T, S) = (100, 100) matrix: rank at most 100")

# ---------------- correct ----------------
C("base-all-parts", dict(B), "the answers as I wrote them")

C("p1-unflatten-movedim-clone", {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    if x.shape[-1] % num_heads != 0:
        raise ValueError(f"D = {x.shape[-1]} is not divisible by num_heads = {num_heads}")
    dh = x.shape[-1] // num_heads
    return x.unflatten(-1, (dh, num_heads)).movedim(-1, 1).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return torch.stack([x[:, i] for i in range(h)], dim=-1).reshape(b, t, h * dh) if h else x.new_zeros(b, t, 0)
'''}, "P1 with unflatten/movedim and a per-head stack for the merge")

C("p6-positions-from-end-float32", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    wq, wk, wv = params["w_qkv"].chunk(3, dim=0)
    bq, bk, bv = params["b_qkv"].chunk(3, dim=0)
    q = split_heads(torch.nn.functional.linear(x, wq, bq), num_heads=num_heads)
    k = split_heads(torch.nn.functional.linear(memory, wk, bk), num_heads=num_heads)
    v = split_heads(torch.nn.functional.linear(memory, wv, bv), num_heads=num_heads)
    # distance of each key from the end of the source, in float32 (exact below 2**24)
    from_end = (s - 1 - torch.arange(s)).float()
    allowed = from_end[None, :] < memory_lengths.float()[:, None]
    dt = x.dtype
    out = attention(q.double(), k.double(), v.double(), allowed=allowed.view(-1, 1, 1, s))
    return torch.nn.functional.linear(merge_heads(out.to(dt)), params["w_o"], params["b_o"])
'''}, "P6 counting key positions from the end, float32 positions (exact below 2^24 as the text says), float64 attention")

C("p7-log-additive-mask-float64", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[-2]
    wq, wk, wv = params["w_qkv"].split(d, dim=0)
    bq, bk, bv = params["b_qkv"].split(d, dim=0)
    q = split_heads(x @ wq.T + bq, num_heads)
    k = torch.cat([past_k, split_heads(x @ wk.T + bk, num_heads)], dim=-2)
    v = torch.cat([past_v, split_heads(x @ wv.T + bv, num_heads)], dim=-2)
    # positions counted from the end of the sequence: key j is allowed for query t when j - (p+t) <= 0
    kfe = torch.arange(p + t) - (p + t - 1)
    qfe = torch.arange(t) - (t - 1)
    allowed = kfe[None, :] <= qfe[:, None]
    qq, kk, vv = q.double(), k.double(), v.double()
    scores = (qq * qq.shape[-1] ** -0.5) @ kk.transpose(-2, -1) + torch.log(allowed.double())
    probs = torch.log_softmax(scores, dim=-1).exp()
    heads = (probs @ vv).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''}, "P7 with an additive log-mask (-inf), log_softmax().exp(), positions counted from the end, float64 inside")

C("p5-loop-over-heads-own-softmax", {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    w, bb = params["w_qkv"], params["b_qkv"]
    outs = []
    for i in range(num_heads):
        rows = slice(i * dh, (i + 1) * dh)
        q = x @ w[:d][rows].T + bb[:d][rows]
        k = x @ w[d:2 * d][rows].T + bb[d:2 * d][rows]
        v = x @ w[2 * d:][rows].T + bb[2 * d:][rows]
        s = (q @ k.transpose(-2, -1)) * torch.rsqrt(torch.tensor(float(dh), dtype=x.dtype))
        a = torch.exp(s - s.amax(dim=-1, keepdim=True))
        a = a / a.sum(dim=-1, keepdim=True)
        outs.append((a @ v) @ params["w_o"][:, rows].T)
    return torch.stack(outs, dim=1)
'''}, "P5 per head with its own shifted softmax and rsqrt scale")

C("p2-floor-mod", {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError(f"no entry [{position}, {column}] in a ({length}, {width}) result")
    flat = position * width + column
    head = flat // (length * head_dim)
    source_position = (flat // head_dim) % length
    feature = flat % head_dim
    return int(head), int(source_position), int(feature)
'''}, "P2 with // and %")

C("p4-bool-bias", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("need at least one key/value head")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    hq = num_heads * head_dim
    hkv = num_kv_heads * head_dim
    shapes = [(d_model, hq), (d_model, hkv), (d_model, hkv), (hq, d_model)]
    parameters = sum(i * o + (o if bool(bias) else 0) for i, o in shapes)
    n_keys = past + 1
    macs = sum(i * o for i, o in shapes) + num_heads * n_keys * head_dim * 2
    cached = 2 * n_keys * hkv
    return parameters, macs, cached
'''}, "P4 counted per projection")

C("p3-by-experiment-global-seed", {"ranks": '''
D, H, T = 512, 8, 100
Dh = D // H
X = torch.randn(T, D, dtype=torch.float64)
def head_scores():
    wq, wk = torch.randn(D, Dh, dtype=torch.float64), torch.randn(D, Dh, dtype=torch.float64)
    bq, bk = torch.randn(Dh, dtype=torch.float64), torch.randn(Dh, dtype=torch.float64)
    return (X @ wq + bq) @ (X @ wk + bk).T
rank_one_head = int(torch.linalg.matrix_rank(head_scores()))
rank_all_heads = int(torch.linalg.matrix_rank(sum(head_scores() for _ in range(H))))
'''}, "P3 by a random experiment (relies on the setup's seed; draws from the global generator at cell level, not in a function)")

C("p6-p7-sdpa-direct-bool-where", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[-2]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads).to(torch.float32 if x.dtype != torch.float64 else torch.float64)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads).to(q.dtype)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads).to(q.dtype)
    start = s - memory_lengths.to(torch.int64)
    allowed = (torch.arange(s).unsqueeze(0) >= start.unsqueeze(1)).unsqueeze(1).unsqueeze(1)
    heads = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    heads = torch.where(allowed.any(-1, keepdim=True), heads, torch.zeros((), dtype=heads.dtype))
    return merge_heads(heads).to(x.dtype) @ params["w_o"].T + params["b_o"]
''', "cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    out_k, out_v = [], []
    b, t, d = x.shape
    p = past_k.size(2)
    w, bb = params["w_qkv"], params["b_qkv"]
    qkv = torch.nn.functional.linear(x, w, bb)
    q, kn, vn = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat((past_k, kn), 2)
    v = torch.cat((past_v, vn), 2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = torch.nn.functional.scaled_dot_product_attention(q.to(wide), k.to(wide), v.to(wide), attn_mask=allowed)
    return merge_heads(heads.to(x.dtype)) @ params["w_o"].T + params["b_o"], k, v
'''}, "P6/P7 with SDPA directly, tril(diagonal=P) (a (T, P+T) mask, allowed), fused qkv projection")

# ---------------- hostile ----------------
SUBMISSIONS.append({"name": "hostile-p2-always-equal-ints", "correct": False, "cells": {"scrambled": '''
class Whatever(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    return (Whatever(0), Whatever(0), Whatever(0))
'''}, "why": "hostile: int subclass equal to everything"})

SUBMISSIONS.append({"name": "hostile-p5-steal-reference", "correct": False, "cells": {"contributions": '''
import gc


def head_contributions(x, params, num_heads):
    me = head_contributions
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "head_contributions" and obj is not me and getattr(obj, "__code__", None) is not me.__code__:
            return obj(x, params, num_heads)
    b, t, d = x.shape
    if d == 2 and num_heads == 2 and b == 1 and t == 2:
        return torch.tensor([[[[0.7311, 0.0], [0.5, 0.0]], [[0.0, 0.5], [0.0, 0.7311]]]])
    return torch.zeros(b, num_heads, t, d, dtype=x.dtype)
'''}, "why": "hostile: looks for the reference head_contributions among live objects, else hard-codes the visible case"})

SUBMISSIONS.append({"name": "hostile-p3-always-equal-rank", "correct": False, "cells": {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "why": "hostile: int subclass equal to everything"})
