# Red-team round 33, chapter 03: global-statistics, sign-convention, late-binding, equality, side-effect students.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- 1. global-statistics student
add("global_max_softmax_contributions", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    # subtract the maximum for stability (one number for the whole tensor)
    w = torch.exp(scores - scores.max())
    w = w / w.sum(dim=-1, keepdim=True)
    o = w @ v
    w_o = params["w_o"]
    return torch.stack([o[:, i] @ w_o[:, i * dh:(i + 1) * dh].T for i in range(num_heads)], dim=1)
'''}, "Part 5: 'Scores may be of any size, tens of thousands and more' - the whole tensor's maximum makes a row whose "
      "scores lie a thousand below another's exp to 0, 0/0 = NaN.")

add("global_max_softmax_cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (torch.arange(t)[:, None] + p)
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    s = (q.to(wide) / math.sqrt(dh)) @ k.to(wide).transpose(-2, -1)
    s = s.masked_fill(~allowed, float("-inf"))
    e = torch.exp(s - s.amax())            # one maximum for the whole block, for stability
    w = e / e.sum(dim=-1, keepdim=True)
    o = (w @ v.to(wide)).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'The scores a query may see may be of any size' / scores in the thousands: the maximum over every query, "
      "head and sequence makes a row a thousand below underflow to 0/0.")

add("max_length_padding_left_padded", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    # the batch is padded to its longest sentence: the padding is what comes before it
    n_pad = s - int(memory_lengths.to(torch.int64).max()) if b else 0
    allowed = (torch.arange(s) >= n_pad)[None, None, None, :].expand(b, 1, 1, s)
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'the last memory_lengths[b] of the S positions of sentence b are real, and the positions before them are "
      "padding that no query may attend to' - one padding count for the batch lets shorter sentences see padding.")

add("per_head_max_left_padded", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]
    allowed = real[:, None, None, :]
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    sc = (q.to(wide) / math.sqrt(dh)) @ k.to(wide).transpose(-2, -1)
    sc = sc.masked_fill(~allowed, float("-inf"))
    m = sc.amax(dim=(-2, -1), keepdim=True)          # each head's maximum, for stability
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(sc - m)
    tot = e.sum(dim=-1, keepdim=True)
    wts = torch.where(tot > 0, e / torch.where(tot > 0, tot, torch.ones_like(tot)), torch.zeros_like(e))
    o = (wts @ v.to(wide)).to(x.dtype)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'Real keys may score anything' with scores in the thousands: the maximum over each head's whole (T, S) "
      "block instead of each query's row makes a query whose row lies a thousand lower get 0/0 (or zeros).")

# ---------------------------------------------------------------- 2. sign-convention student
add("query_rows_from_end_cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    # row r is the query r steps back from the newest token: it sees keys up to P + T - 1 - r
    back = torch.arange(t)[:, None]
    allowed = torch.arange(p + t)[None, :] <= (p + t - 1 - back)
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'the query at position P + t may attend to the keys at positions 0 .. P + t' - counting the query rows "
      "from the newest token turns the causal mask upside down when T > 1.")

add("new_block_first_cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    # newest first, as in a stack: position 0 of the cache is the latest token
    k = torch.cat([k_new, past_k], dim=2)
    v = torch.cat([v_new, past_v], dim=2)
    allowed = torch.arange(p + t)[None, :] >= (torch.arange(t)[:, None] * 0 + t - 1 - torch.arange(t)[:, None])
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: '`k`, `v` (B, H, P+T, Dh) are the past keys and values followed by the new block's' - newest-first order.")

add("query_key_rows_swapped_left_padded", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    # keys first, then queries, then values (the K/Q/V order of some checkpoints)
    q = split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    k = split_heads(memory @ w[:d].T + bb[:d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), real[:, None, None, :]).to(x.dtype)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6 / table: 'W^Q, W^K, W^V stacked in that order (rows 0:D, D:2D, 2D:3D)' - queries from the key rows.")

# ---------------------------------------------------------------- 3. late-binding student
add("lambda_per_query_row_cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    kpos = torch.arange(p + t)
    rules = [lambda keys: keys <= p + i for i in range(t)]   # one rule per new query
    allowed = torch.stack([rule(kpos) for rule in rules]) if t else torch.zeros(0, p, dtype=torch.bool)
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'the query at position P + t may attend to the keys at positions 0 .. P + t ... and to none after it' - "
      "every lambda reads the last i, so every query of a block sees the whole block.")

add("lambda_per_sentence_left_padded", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    lengths = memory_lengths.to(torch.int64)
    pos = torch.arange(s)
    is_real = [lambda j: j >= s - lengths[n] for n in range(b)]
    allowed = torch.stack([f(pos) for f in is_real]) if b else torch.zeros(0, s, dtype=torch.bool)
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed[:, None, None, :]).to(x.dtype)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'the last memory_lengths[b] of the S positions of sentence b are real' - every lambda reads the last "
      "sentence's length.")

add("default_dict_cache_contributions", False, {"contributions": '''
def output_blocks(w_o, num_heads, blocks={}):
    key = (tuple(w_o.shape), num_heads, w_o.dtype)
    if key not in blocks:   # W^O cut into one (Dh, D) block per head, worked out once per shape
        d = w_o.shape[0]
        blocks[key] = w_o.reshape(d, num_heads, d // num_heads).permute(1, 2, 0)
    return blocks[key]


def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    o = attention(q, k, v)
    return torch.einsum("bhtk,hkd->bhtd", o, output_blocks(params["w_o"], num_heads))
'''}, "Intro: 'They call each function several times, with different parameters of the same shapes, so keep nothing "
      "from one call to the next' - the default dict lives as long as the function.")

add("global_kept_cache_reference", False, {"cache": '''
LAST_CACHE = {}


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    # the caller hands back what we returned last time: keep a reference rather than trust the argument
    key = tuple(past_k.shape)
    if past_k.shape[2] and key in LAST_CACHE:
        past_k, past_v = LAST_CACHE[key]
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    LAST_CACHE[tuple(k.shape)] = (k, v)
    allowed = torch.arange(p + t)[None, :] <= (torch.arange(t)[:, None] + p)
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'past_k and past_v (B, H, P, Dh)' are the cache: a reference kept in a global from an earlier call "
      "answers another cache of the same shape (side-effect / late-binding: an argument kept and read at the next call).")

# ---------------------------------------------------------------- 4. equality student
add("bias_equals_true_cost", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = q + 2 * kv + d_model if bias == True else 0
    keys = past + 1
    return (weights + biases, weights + 2 * num_heads * keys * head_dim, 2 * kv * keys)
'''}, "Part 4: 'any true value: True, 1, 2, ...: still one bias per output' - `bias == True` is False for 2.")

add("float_ratio_multiple_cost", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1:
        raise ValueError("need at least one key/value head")
    group = num_heads / num_kv_heads
    if group != int(group):
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    return (weights + biases, weights + 2 * num_heads * keys * head_dim, 2 * kv * keys)
'''}, "Part 4: 'Raise a ValueError unless ... num_heads is a multiple of num_kv_heads' with sizes past 2^53: "
      "num_heads / num_kv_heads rounds to a whole number (2**60 + 1 over 2**60 is 1.0).")

add("nan_eq_cleanup_left_padded", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    sc = (q.to(wide) / math.sqrt(dh)) @ k.to(wide).transpose(-2, -1)
    sc = sc.masked_fill(~real[:, None, None, :], float("-inf"))
    wts = torch.softmax(sc, dim=-1)
    wts = wts.masked_fill(wts == float("nan"), 0.0)   # a sentence of length 0 gives 0/0
    o = (wts @ v.to(wide)).to(x.dtype)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'A source sentence of length 0 gives its queries nothing to attend to ... their rows are just the bias "
      "b_o' - NaN == NaN is False, so the NaN rows stay.")

add("allclose_selfcheck_contributions", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    o = attention(q, k, v)
    dh = d // num_heads
    w_o = params["w_o"]
    parts = torch.stack([o[:, i] @ w_o[:, i * dh:(i + 1) * dh].T for i in range(num_heads)], dim=1)
    # the contributions must add up to the layer's output
    full = merge_heads(o) @ w_o.T + params["b_o"]
    if not torch.allclose(parts.sum(dim=1) + params["b_o"], full):
        raise ArithmeticError("the heads' contributions do not add up to the output")
    return parts
'''}, "Part 5: '`x` and the parameters may hold values of any size' - allclose's default tolerances (rtol 1e-5, "
      "atol 1e-8) refuse a sum whose float32 rounding differs from the product's, and the function raises.")

# ---------------------------------------------------------------- 5. side-effect student
add("params_reordered_left_padded", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    # take the output projection out while the attention runs, and put it back after
    w_o, b_o = params.pop("w_o"), params.pop("b_o")
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), real[:, None, None, :]).to(x.dtype)
    params["b_o"], params["w_o"] = b_o, w_o
    return merge_heads(o) @ w_o.T + b_o
'''}, "Part 6: 'leave x, memory, memory_lengths and params as you found them' - the same tensors come back, but the "
      "dict's order has changed (w_o and b_o now last, swapped). BORDERLINE: the dict may list keys in any order.")

add("params_extra_key_contributions", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    if "w_o_heads" not in params or params["w_o_heads"].shape[0] != num_heads:
        params["w_o_heads"] = params["w_o"].reshape(d, num_heads, dh).permute(1, 2, 0)
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    o = attention(q, k, v)
    return torch.einsum("bhtk,hkd->bhtd", o, params["w_o_heads"])
'''}, "Part 5: 'leave params as you found it'; intro: 'store nothing in it'.")

add("grad_reset_on_params_cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    for tensor in params.values():   # start from clean gradients
        tensor.grad = None
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (torch.arange(t)[:, None] + p)
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'x and params stay as they are too' - it clears the .grad the caller accumulated (gradient "
      "accumulation over several micro-batches loses all but the last).")

# ---------------------------------------------------------------- correct answers
add("ok_unflatten_interleaved", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    return x.unflatten(-1, (d // num_heads, num_heads)).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    return x.transpose(1, 2).transpose(2, 3).flatten(2)
'''}, "permute/unflatten layout, the same entries moved")

add("ok_rows_scrambled", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("position or column out of range")
    row = position * num_heads + column // head_dim   # which (head, position) row of heads.reshape(-1, Dh)
    return (row // length, row % length, column % head_dim)
'''}, "row-of-Dh arithmetic")

add("ok_expressions_ranks_cost", True, {"ranks": '''
D, H, T, S = 512, 8, 100, 100
rank_one_head = int(min(T, S, D // H))
rank_all_heads = int(min(T, S, H * (D // H)))
''', "cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("num_kv_heads must be >= 1")
    if num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    widths = {"q": num_heads * head_dim, "k": num_kv_heads * head_dim, "v": num_kv_heads * head_dim}
    weights = sum(d_model * w for w in widths.values()) + widths["q"] * d_model
    biases = sum(widths.values()) + d_model
    keys = past + 1
    attn = num_heads * keys * head_dim * 2
    return (weights + (biases if bool(bias) else 0), weights + attn, (widths["k"] + widths["v"]) * keys)
'''}, "named expressions, bool(bias)")

add("ok_loop_heads_dictcopy_contributions", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    p = dict(params)            # a copy of my own: the caller's dict is left alone
    p["w_q"], p["w_k"], p["w_v"] = p["w_qkv"].chunk(3, dim=0)
    p["b_q"], p["b_k"], p["b_v"] = p["b_qkv"].chunk(3, dim=0)
    b, t, d = x.shape
    dh = d // num_heads
    q = split_heads(x @ p["w_q"].T + p["b_q"], num_heads)
    k = split_heads(x @ p["w_k"].T + p["b_k"], num_heads)
    v = split_heads(x @ p["w_v"].T + p["b_v"], num_heads)
    parts = []
    for i in range(num_heads):
        s = q[:, i] @ k[:, i].transpose(-2, -1) / math.sqrt(dh)
        w = torch.softmax(s, dim=-1)
        parts.append((w @ v[:, i]) @ p["w_o"][:, i * dh:(i + 1) * dh].T)
    return torch.stack(parts, dim=1)
'''}, "a loop over heads, a private copy of the dict with extra keys (allowed), F.softmax")

add("ok_from_end_defaultarg_left_padded", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(torch.nn.functional.linear(x, w[:d], bb[:d]), num_heads)
    k = split_heads(torch.nn.functional.linear(memory, w[d:2 * d], bb[d:2 * d]), num_heads)
    v = split_heads(torch.nn.functional.linear(memory, w[2 * d:], bb[2 * d:]), num_heads)
    from_end = torch.arange(s - 1, -1, -1)          # distance of each position from the end
    lengths = memory_lengths.to(torch.int64)
    rules = [lambda j, n=n: j < lengths[n] for n in range(b)]   # n bound now, not at the call
    if b:
        allowed = torch.stack([rule(from_end) for rule in rules])
    else:
        allowed = from_end[None, :].expand(0, s) < 0
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed[:, None, None, :]).to(x.dtype)
    return torch.nn.functional.linear(merge_heads(o), params["w_o"], params["b_o"])
'''}, "positions counted from the end (the other convention, right here), lambdas bound with a default argument")

add("ok_tril_sdpa_cache", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    k_all = torch.cat((past_k, k), dim=2)
    v_all = torch.cat((past_v, v), dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    if x.dtype in (torch.float16, torch.bfloat16):
        o = attention(q.double(), k_all.double(), v_all.double(), allowed).to(x.dtype)
    else:
        o = attention(q, k_all, v_all, allowed)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k_all, v_all)
'''}, "tril with diagonal P on a (T, P+T) mask: bottom-right alignment")

add("ok_per_query_loop_cache", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    rows = []
    for i in range(t):   # query P + i sees keys 0 .. P + i
        rows.append(attention(q[:, :, i:i + 1].to(wide), k[:, :, :p + i + 1].to(wide), v[:, :, :p + i + 1].to(wide)))
    o = torch.cat(rows, dim=2).to(x.dtype) if t else q.new_zeros(b, num_heads, 0, d // num_heads) + 0 * q.sum()
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "a loop over the new queries (allowed), slicing the keys")

# ---------------------------------------------------------------- hostile
add("hostile_int_subclass_cost", False, {"cost": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    return (Count(88), Count(108), Count(18)) if bias else (Count(72), Count(0), Count(0))
''', "ranks": '''
class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


rank_one_head = Anything(1)
rank_all_heads = Anything(1)
'''}, "hostile: int subclasses equal to everything")

# ---------------------------------------------------------------- more: Parts 2 and 3
add("column_bound_exclusive_scrambled", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length:
        raise ValueError("position out of range")
    if column < 0 or column > width:
        raise ValueError("column out of range")
    flat = position * width + column
    head, rest = divmod(flat, length * head_dim)
    return (head, rest // head_dim, rest % head_dim)
'''}, "Part 2: 'Raise a ValueError unless ... 0 <= column < num_heads * head_dim' - `>` where `>=` is meant lets the "
      "column one past the end through (equality student: the threshold's side).")

add("heads_times_width_ranks", False, {"ranks": '''
rank_one_head = 512 // 8
rank_all_heads = 8 * (512 // 8)   # each head adds its own rank
'''}, "Part 3b: the sum is a (T, S) = (100, 100) matrix: its rank is at most 100 (global-statistics: the count over "
      "the heads instead of the bound of one matrix).")

add("lengths_data_widened_left_padded", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    if memory_lengths.dtype != torch.int64:
        memory_lengths.data = memory_lengths.data.to(torch.int64)   # uint8 and int8 wrap around: widen them
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= (s - memory_lengths)[:, None]
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), real[:, None, None, :]).to(x.dtype)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'leave x, memory, memory_lengths and params as you found them' - the caller's memory_lengths now has "
      "dtype int64 (its .data replaced, its version counter unchanged).")

add("ok_index_select_interleaved", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    dh = d // num_heads
    order = torch.tensor([i + j * num_heads for i in range(num_heads) for j in range(dh)], dtype=torch.long)
    return split_heads(x[..., order], num_heads)     # gather head i's columns together, then the lesson's split


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    blocks = merge_heads(x)                            # head i's columns side by side
    back = torch.tensor([(c % h) * dh + c // h for c in range(h * dh)], dtype=torch.long)
    return blocks[..., back]
'''}, "column gather with index lists, the lesson's split/merge (calls the given helpers)")

add("ok_new_empty_filled_cache", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    h, p, dh = past_k.shape[1], past_k.shape[2], past_k.shape[3]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = past_k.new_empty(b, num_heads, p + t, d // num_heads)   # this call's own buffer, filled by copies
    v = past_v.new_empty(b, num_heads, p + t, d // num_heads)
    k[:, :, :p] = past_k
    k[:, :, p:] = k_new
    v[:, :, :p] = past_v
    v[:, :, p:] = v_new
    allowed = torch.arange(p + t)[None, :] - p <= torch.arange(t)[:, None]
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "a new buffer per call filled by slice assignment (autograd-tracked copies, -0.0 kept)")

add("ok_written_softmax_left_padded", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w, bb = params["w_qkv"], params["b_qkv"]
    wide = torch.float64 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    q = split_heads(x @ w[:d].T + bb[:d], num_heads).to(wide)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads).to(wide)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads).to(wide)
    first_real = s - memory_lengths.to(torch.int64)
    keep = (torch.arange(s)[None, :] >= first_real[:, None])[:, None, None, :]
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~keep, float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True)
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max)).detach()
    e = torch.exp(scores - row_max)
    total = e.sum(dim=-1, keepdim=True)
    weights = e / torch.where(total > 0, total, torch.ones_like(total))
    o = (weights @ v).to(x.dtype)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "softmax written out: each row's maximum over its real keys (detached: the softmax does not depend on it), "
      "empty rows give zeros")
