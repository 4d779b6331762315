# Red-team round 9, chapter 03-multi-head: submissions written blind (student notebook + lesson only).
M = {}
M["interleaved"] = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if num_heads <= 0 or d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
M["scrambled"] = '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    pos, feat = divmod(rest, head_dim)
    return (head, pos, feat)
'''
M["ranks"] = '''
rank_one_head = 64
rank_all_heads = 100
'''
M["cost"] = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = q + 2 * kv + d_model if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (weights + biases, macs, cached)
'''
M["contributions"] = '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    dh = d // num_heads
    w = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtd,hde->bhte", o, w)
'''
M["left_padded"] = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    s = memory.shape[1]
    pos = torch.arange(s, device=x.device)
    allowed = pos[None, :] >= s - memory_lengths.long()[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''
M["cache"] = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t, device=x.device)[None, :] <= torch.arange(p, p + t, device=x.device)[:, None]
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''
MODEL = M


def sub(part, code):
    return {part: code}

SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def HOST(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why, "hostile": True})

# ---------------------------------------------------------------- wrong answers
W("p1-permutation-matmul", {"interleaved": '''
def perm_matrix(d, h, dtype):
    dh = d // h
    p = torch.zeros(d, d, dtype=dtype)
    for i in range(h):
        for j in range(dh):
            p[i + j * h, i * dh + j] = 1
    return p


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    y = x @ perm_matrix(d, num_heads, x.dtype)   # block layout
    return y.reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    y = x.transpose(1, 2).reshape(b, t, h * dh)
    return y @ perm_matrix(h * dh, h, x.dtype).T
'''}, "Part 1: 'both only move entries: every value, inf and -inf included, arrives unchanged in its new place' - "
   "a permutation matrix multiplies inf by 0 and gives NaN (and float16 accumulations are fine, but inf is not).")

W("p1-set-default-dtype", {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    torch.set_default_dtype(x.dtype if x.dtype.is_floating_point else torch.float32)
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    idx = torch.arange(d).reshape(d // num_heads, num_heads).T.reshape(-1)
    return x[..., idx].reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "Intro: 'do not change anything inside torch' - the function changes torch's global default dtype "
   "(set to float64 or float16 by the first such call, so later torch.randn/zeros in the caller change dtype).")

W("p1-zero-heads-zerodivision", {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    if dh * num_heads != d:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, dh, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "Part 1: 'Raise a ValueError when D is not divisible by num_heads' - num_heads=0 (nothing is divisible by 0) "
   "raises ZeroDivisionError, and num_heads=-2 with D=6 passes the check and reshape raises RuntimeError.")

W("p2-map-iterator", {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return map(int, (head, rest // head_dim, rest % head_dim))
'''}, "Part 2: 'Return its (head, source_position, feature), three Python int's' - a map iterator is not a tuple; "
   "it can be read once only (tuple(...) in the visible test hides it).")

W("p2-int-subclass-bools", {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    pos, feat = divmod(rest, head_dim)
    # a head_dim of 1 always gives feature 0: return it as False to show it is trivial
    return (head, pos, feat if head_dim > 1 else False)
'''}, "Part 2: 'three Python int's' - bool is a subclass of int, not an int; with head_dim = 1 the third item is False.")

W("p2-column-negative-allowed", {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not 0 <= position < length:
        raise ValueError("position out of range")
    if column >= num_heads * head_dim:
        raise ValueError("column out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    pos, feat = divmod(rest, head_dim)
    return (head, pos, feat)
'''}, "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim' - "
   "a negative column (Python-style index) is accepted. (boundary class, old)")

W("p3-ignores-sequence-length", {"ranks": '''
d_model, heads, seq = 512, 8, 100
rank_one_head = d_model // heads          # Dh
rank_all_heads = heads * rank_one_head    # eight independent heads add their ranks
'''}, "Part 3 3b: 'the largest rank of the sum ... (T, S) score matrix' with T = S = 100 - a 100 x 100 matrix "
   "cannot have rank 512.")

W("p3-bias-adds-one", {"ranks": '''
# the bias adds a constant column to [X 1], so one more dimension
rank_one_head = 512 // 8 + 1
rank_all_heads = 100
'''}, "Part 3 3a: Q_i is '(T, Dh)' - its rank is at most Dh = 64 whatever the bias; 65 is impossible.")

W("p4-kv-heads-negative", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads == 0 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (weights + biases, macs, 2 * kv * (past + 1))
'''}, "Part 4: 'Raise a ValueError unless num_kv_heads >= 1' - num_kv_heads = -2 with num_heads = 4 is accepted "
   "(4 % -2 == 0) and gives negative counts.")

W("p4-refuses-zero-query-heads", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads < num_kv_heads or num_heads % num_kv_heads:
        raise ValueError("need num_kv_heads <= num_heads, and num_heads a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (weights + biases, macs, 2 * kv * (past + 1))
'''}, "Part 4: '(0 is a multiple of every num_kv_heads: no query heads is not an error)' - num_heads = 0 is refused "
   "(a check that is too strict).")

W("p4-refuses-zero-sizes", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if past < 0 or d_model < 1 or head_dim < 1:
        raise ValueError("sizes must be positive")
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (weights + biases, macs, 2 * kv * (past + 1))
'''}, "Part 4: 'Raise a ValueError unless num_kv_heads >= 1 and num_heads is a multiple of num_kv_heads' - the only "
   "errors the text names; head_dim = 0 or d_model = 0 is refused (too strict; may be a mislabel if the reference does too).")

W("p4-bias-is-True", {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = q + 2 * kv + d_model if bias is True else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (weights + biases, macs, 2 * kv * (past + 1))
'''}, "Part 4: 'each projection has one bias per output when bias is true' - bias=1 (or a numpy/torch bool) is true "
   "but `bias is True` counts no biases.")

W("p5-w_o-transposed", {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    o = attention(q, k, v)                                   # (B, H, T, Dh)
    parts = [o[:, i] @ params["w_o"][i * dh:(i + 1) * dh] for i in range(num_heads)]
    return torch.stack(parts, dim=1)
'''}, "Part 5 table: 'As with nn.Linear, a projection computes x @ w.T + b' - head i's block of W^O is "
   "w_o[:, i*Dh:(i+1)*Dh].T, not the rows w_o[i*Dh:(i+1)*Dh] (identity W^O in the visible test hides it).")

W("p5-bias-shared-out", {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtd,hde->bhte", o, w) + params["b_o"] / num_heads
'''}, "Part 5: 'The bias b_o belongs to no head' and '.sum(dim=1) + params[\"b_o\"] is the layer's output' - "
   "each head gets b_o / H (the visible b_o is 0).")

W("p5-no-scaling-own-softmax", {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    weights = torch.softmax(q @ k.transpose(-2, -1), dim=-1)     # Dh-dimensional dot products
    o = weights @ v
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtd,hde->bhte", o, w)
'''}, "Part 5 intro: chapter 2's attention is 'softmax(q k^T / sqrt(d_k)) v' - no 1/sqrt(Dh) (Dh = 1 visible hides it).")

W("p5-exp-without-max", {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(dh))
    o = (e / e.sum(dim=-1, keepdim=True)) @ v
    w = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtd,hde->bhte", o, w)
'''}, "Notebook intro: hidden tests use 'scores large enough that a softmax which does not subtract the row maximum "
   "overflows' - exp of large scores is inf and inf/inf is NaN.")

W("p5-pops-bias-from-dict", {"contributions": '''
def head_contributions(x, params, num_heads):
    params.pop("b_o", None)          # b_o belongs to no head: not needed here
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtd,hde->bhte", o, w)
'''}, "Part 5: 'leave params as you found it' - the dict loses its 'b_o' entry (the tensors are untouched).")

W("p6-mask-B1S", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    s = memory.shape[1]
    allowed = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]      # (B, S)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, :])                                            # (B, 1, S)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S) ... a (B, 1, S) one "
   "[is read] as (H, T, S)' - works only because B = 1 in the visible test.")

W("p6-k-v-swapped", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    wq, wv, wk = params["w_qkv"].split(d)          # (reads the layout from the wrong end)
    bq, bv, bk = params["b_qkv"].split(d)
    q, k, v = x @ wq.T + bq, memory @ wk.T + bk, memory @ wv.T + bv
    s = memory.shape[1]
    allowed = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Table: 'W^Q, W^K, W^V stacked in that order (rows 0:D, D:2D, 2D:3D)' - keys and values swapped "
   "(identity params hide it; old class: identity weights).")

W("p6-deterministic-algorithms", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    torch.use_deterministic_algorithms(True)      # reproducible results for grading
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    s = memory.shape[1]
    allowed = torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Intro: 'do not change anything inside torch' - flips torch's global deterministic-algorithms flag and leaves it on.")

W("p6-float-lengths-S-minus", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    s = memory.shape[1]
    start = (s - memory_lengths).to(torch.long)                 # first real position
    allowed = torch.arange(s)[None, :] >= start[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'a Python int combined with such a tensor, wrap around (in uint8, 300 - 17 is 27)' - s - memory_lengths in "
   "uint8 wraps (old class: small integer dtypes).")

W("p7-assumes-single-token-when-cached", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    p, t = past_k.shape[2], x.shape[1]
    if p == 0:   # prompt: ordinary causal mask
        allowed = torch.ones(t, t, dtype=torch.bool).tril()
    else:        # decoding: the new token sees the whole cache
        allowed = None
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "Part 7: 'T may be 1 or more' with P > 0 and 'the query at position P + t may attend to the keys at positions "
   "0 .. P + t ... and to none after it' - with P > 0 and T > 1 the block sees its own future.")

W("p7-cache-order-reversed", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    p, t = past_k.shape[2], x.shape[1]
    k = torch.cat([k, past_k], dim=2)          # newest first
    v = torch.cat([v, past_v], dim=2)
    key_pos = torch.cat([torch.arange(p, p + t), torch.arange(p)])
    allowed = key_pos[None, :] <= torch.arange(p, p + t)[:, None]
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "Part 7: 'k, v (B, H, P+T, Dh) are the past keys and values followed by the new block's' - the new block comes "
   "first (out is right; the visible test checks only the shapes of k and v).")

W("p7-manual-seed", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    torch.manual_seed(0)        # make dropout-free attention reproducible
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "Intro: 'do not change anything inside torch' - reseeds torch's global generator on every call "
   "(the caller's later random numbers repeat).")

W("p7-mask-in-float-tril-dtype", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k.contiguous(), v.contiguous()
'''}, "PLACEHOLDER")
SUBMISSIONS.pop()   # (the line above is a correct answer; kept out)

# ---------------------------------------------------------------- correct answers
C("p1-as-strided-any-strides", {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if num_heads <= 0 or d % num_heads:
        raise ValueError("D must be divisible by num_heads")
    sb, st, sd = x.stride()
    return x.as_strided((b, num_heads, t, d // num_heads), (sb, sd, st, sd * num_heads))


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = x.new_empty(b, t, h * dh)
    for i in range(h):
        out[:, :, i::h] = x[:, i]        # in-place on my own intermediate: autograd tracks it
    return out
'''}, "as_strided built from the input's own strides (any layout, shares storage: not contiguous), merge by "
   "slice assignment into a fresh tensor.")

C("p1-index-gather-float64", {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    *lead, d = x.shape
    if num_heads < 1 or d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    order = torch.arange(d).reshape(-1, num_heads).T.reshape(-1)        # columns of head 0, then head 1, ...
    return torch.index_select(x, -1, order).unflatten(-1, (num_heads, d // num_heads)).movedim(-2, -3)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    cols = torch.stack(x.unbind(dim=1), dim=-1)     # (B, T, Dh, H)
    return cols.flatten(start_dim=-2)
'''}, "index_select with an index, unflatten/movedim; merge through unbind/stack.")

C("p2-recursive-mixed-radix", {"scrambled": '''
def digits(n, radices):
    """mixed-radix digits of n, most significant first"""
    if not radices:
        return []
    q, r = divmod(n, radices[-1])
    return digits(q, radices[:-1]) + [r]


def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if not (0 <= position < length and 0 <= column < width):
        raise ValueError(f"position {position} / column {column} out of range")
    head, src, feat = digits(position * width + column, [num_heads, length, head_dim])
    return int(head), int(src), int(feat)
'''}, "mixed-radix digits by recursion (depth 3), ints built with int().")

C("p3-computed-by-torch", {"ranks": '''
g = torch.Generator().manual_seed(1)
T, D, H = 100, 512, 8
Dh = D // H
X = torch.randn(T, D, generator=g, dtype=torch.float64)
Q = X @ torch.randn(D, Dh, generator=g, dtype=torch.float64) + 1
K = X @ torch.randn(D, Dh, generator=g, dtype=torch.float64)
rank_one_head = int(torch.linalg.matrix_rank(Q @ K.T))
Qa, Ka = X @ torch.randn(D, D, generator=g, dtype=torch.float64), X @ torch.randn(D, D, generator=g, dtype=torch.float64)
rank_all_heads = int(torch.linalg.matrix_rank(Qa @ Ka.T))
del g, X, Q, K, Qa, Ka
'''}, "the ranks measured with torch.linalg.matrix_rank on random float64 weights (64 and 100).")

C("p4-sum-and-bool", {"cost": '''
import math as m


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("num_kv_heads must be at least 1")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    outs = [num_heads * head_dim, num_kv_heads * head_dim, num_kv_heads * head_dim, d_model]
    ins = [d_model, d_model, d_model, num_heads * head_dim]
    weights = sum(m.prod(p) for p in zip(outs, ins))
    params = weights + int(bool(bias)) * sum(outs)
    attended = past + 1
    macs = weights + num_heads * attended * head_dim * 2
    cached = 2 * attended * num_kv_heads * head_dim
    return params, macs, cached
'''}, "sums over the four projections with math.prod; bias by truthiness.")

C("p5-per-head-loop-float64-keywords", {"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    dh = D // num_heads
    p = {name: t.to(torch.float64) for name, t in params.items()}
    xx = x.to(torch.float64)
    wq, wk, wv = p["w_qkv"].chunk(3)
    bq, bk, bv = p["b_qkv"].chunk(3)
    out = torch.zeros(B, num_heads, T, D, dtype=torch.float64)
    for i in range(num_heads):
        cols = slice(i * dh, (i + 1) * dh)
        q = xx @ wq[cols].T + bq[cols]          # (B, T, Dh): one head, 3-D tensors
        k = xx @ wk[cols].T + bk[cols]
        v = xx @ wv[cols].T + bv[cols]
        o = attention(q=q, k=k, v=v, allowed=None)
        out[:, i] = o @ p["w_o"][:, cols].T    # in-place into my own buffer
    return out.to(x.dtype)
'''}, "one head at a time, chapter 2's attention called on 3-D tensors with keywords, float64 inside, cast back.")

C("p5-zero-other-heads-merge", {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q, k, v = (x @ w[i * d:(i + 1) * d].T + b[i * d:(i + 1) * d] for i in range(3))
    o = attention(split_heads(q, num_heads=num_heads), split_heads(k, num_heads=num_heads),
                  split_heads(v, num_heads=num_heads))                          # (B, H, T, Dh)
    eye = torch.eye(num_heads, dtype=torch.bool)
    only = torch.where(eye[None, :, :, None, None], o[:, None], torch.zeros((), dtype=o.dtype))  # (B, H, H, T, Dh)
    merged = merge_heads(only.flatten(0, 1))                                     # (B*H, T, D)
    return (merged @ params["w_o"].T).unflatten(0, (x.shape[0], num_heads))
'''}, "each head's share = the output projection of the merged heads with every other head set to zero "
   "(torch.where), split_heads by keyword.")

C("p5-via-interleaved-part1", {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x.double() @ params["w_qkv"].double().T + params["b_qkv"].double()
    q, k, v = qkv.split(d, dim=-1)
    # go through part 1's layout: interleave the block heads and deal them out again (a round trip)
    heads = [split_heads_interleaved(merge_heads_interleaved(split_heads(z, num_heads)), num_heads) for z in (q, k, v)]
    o = attention(*heads)
    w = params["w_o"].double().T.reshape(num_heads, dh, d)
    return torch.einsum("bhtd,hde->bhte", o, w).to(x.dtype)
'''}, "calls part 1's split_heads_interleaved / merge_heads_interleaved in float64 on non-contiguous inputs "
   "(a round trip that leaves the block layout).")

C("p6-python-loop-mask-where", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    B, S = memory.shape[0], memory.shape[1]
    d = x.shape[-1]
    rows = []
    for n in memory_lengths.tolist():                 # Python ints: no wrap-around
        rows.append([s >= S - n for s in range(S)])
    allowed = torch.tensor(rows, dtype=torch.bool).reshape(B, 1, 1, S)
    w_q, w_k, w_v = params["w_qkv"].split(d)
    b_q, b_k, b_v = params["b_qkv"].split(d)
    q = torch.nn.functional.linear(x, w_q, b_q)
    k = torch.nn.functional.linear(memory, w_k, b_k)
    v = torch.nn.functional.linear(memory, w_v, b_v)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed=allowed)
    return torch.nn.functional.linear(merge_heads(o), params["w_o"], params["b_o"])
'''}, "mask from Python ints, F.linear, attention's mask by keyword.")

C("p6-own-softmax-float64", {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    S = memory.shape[-2]
    p = {k: params[k].double() for k in ("w_qkv", "b_qkv", "w_o", "b_o")}
    q = x.double() @ p["w_qkv"][:d].T + p["b_qkv"][:d]
    kv = memory.double() @ p["w_qkv"][d:].T + p["b_qkv"][d:]
    k, v = kv[..., :d], kv[..., d:]
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    lengths = memory_lengths.to(torch.int64)
    keep = (torch.arange(S) + lengths[:, None]) >= S                     # (B, S)
    scores = torch.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(d // num_heads)
    scores = scores.masked_fill(~keep[:, None, None, :], float("-inf"))
    m = scores.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    z = e.sum(dim=-1, keepdim=True)
    wts = e / torch.where(z > 0, z, torch.ones_like(z))
    o = torch.einsum("bhts,bhsd->bhtd", wts, v)
    return (merge_heads(o) @ p["w_o"].T + p["b_o"]).to(x.dtype)
'''}, "own stable softmax in float64 with -inf masking, empty rows guarded, einsum; cast back.")

C("p7-loop-prefix-no-mask", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q = split_heads(qkv[..., :d], num_heads)
    k = torch.cat((past_k, split_heads(qkv[..., d:2 * d], num_heads)), dim=-2)
    v = torch.cat((past_v, split_heads(qkv[..., 2 * d:], num_heads)), dim=-2)
    P = past_k.shape[-2]
    outs = []
    for t in range(x.shape[1]):        # query P + t sees keys 0 .. P + t: a prefix, no mask needed
        outs.append(attention(q[:, :, t:t + 1], k[:, :, :P + t + 1], v[:, :, :P + t + 1]))
    o = torch.cat(outs, dim=2)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
'''}, "one query at a time over its prefix of keys (no mask at all).")

C("p7-via-part6-flipped-memory", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    B, T = x.shape[0], x.shape[1]
    P = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    k = torch.cat([past_k, split_heads(qkv[..., d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(qkv[..., 2 * d:], num_heads)], dim=2)
    if P == 0:
        # an empty cache: query t sees x[0 .. t]. Part 6 keeps the LAST n positions of the memory, so give it the
        # sequence reversed (a non-contiguous view) and n = t + 1 as an int32 tensor.
        rows = [cross_attention_left_padded(x[:, t:t + 1], x.flip(1), torch.full((B,), t + 1, dtype=torch.int32),
                                            params, num_heads=num_heads) for t in range(T)]
        return torch.cat(rows, dim=1), k, v
    q = split_heads(qkv[..., :d], num_heads)
    allowed = torch.arange(P + T)[None, :] <= torch.arange(P, P + T)[:, None]
    return merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"], k, v
'''}, "with an empty cache, calls part 6's cross_attention_left_padded once per query on the reversed sequence "
   "(int32 lengths, num_heads by keyword).")

C("p7-via-part5-single-token", {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    P, T = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, kn, vn = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    k, v = torch.cat([past_k, kn], dim=2), torch.cat([past_v, vn], dim=2)
    if P == 0 and T == 1:
        # one token alone: causal self-attention = ordinary self-attention = part 5's heads summed (in float64)
        p64 = {name: params[name].to(torch.float64) for name in params}
        out = head_contributions(x.to(torch.float64), p64, num_heads=num_heads).sum(dim=1) + p64["b_o"]
        return out.to(x.dtype), k, v
    allowed = torch.ones(T, P + T, dtype=torch.bool).tril(diagonal=P)
    return merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"], k, v
'''}, "for one token and an empty cache, calls part 5's head_contributions in float64 with num_heads by keyword.")

# ---------------------------------------------------------------- hostile
HOST("hostile-p3-int-that-equals-all", {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "an int subclass that claims equality with every answer.")

HOST("hostile-p2-int-subclass-items", {"scrambled": '''
class Any(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__


def scrambled_source(num_heads, length, head_dim, position, column):
    if not 0 <= position < length:
        raise ValueError("bad position")
    return (Any(0), Any(0), Any(0))
'''}, "items that compare equal to anything.")

HOST("hostile-p5-patch-assert-close", {"contributions": '''
torch.testing.assert_close = lambda *args, **kwargs: None


def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    return torch.zeros(b, num_heads, t, d, dtype=x.dtype)
'''}, "disables torch.testing.assert_close and returns zeros.")

HOST("hostile-p4-read-expected-from-frames", {"cost": '''
import sys


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    # look in the caller's frame for an expected value and hand it back
    f = sys._getframe(1)
    for name, val in list(f.f_locals.items()) + list(f.f_globals.items()):
        if name.startswith("_") and isinstance(val, tuple) and len(val) == 3 and all(type(i) is int for i in val):
            return val
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad")
    return (88 if bias else 72, 108, 18)
'''}, "hunts the caller's frames for the expected tuple, else returns the visible answer.")
