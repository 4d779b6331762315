# Round 14 red-team submissions for 03-multi-head (blind, phase 1).
BASE = {
"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, h * dh)
''',
"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * (num_heads * head_dim) + column
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
        raise ValueError("bad heads")
    q_out, kv_out = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_out + 2 * d_model * kv_out + q_out * d_model
    biases = q_out + 2 * kv_out + d_model if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv_out * keys
    return (weights + biases, macs, cached)
''',
"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtf,hfe->bhte", heads, w)
''',
"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = memory @ w[d:2 * d].T + bb[d:2 * d]
    v = memory @ w[2 * d:].T + bb[2 * d:]
    q, k, v = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    pos = torch.arange(s)
    allowed = pos[None, :] >= (s - memory_lengths.to(torch.long))[:, None]
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
''',
"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
''',
}

SUBMISSIONS = [
# ---------------- wrong: tutorial reader ----------------
{"name": "t_merge_reshape_minus1", "correct": False, "kind": "tutorial", "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, -1, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).contiguous().view(b, t, -1)
'''}, "why": "P1: 'D = 0 is divisible by every num_heads' (reshape/view with -1 cannot infer a size for 0 elements)"},
{"name": "t_view_split", "correct": False, "kind": "tutorial", "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError("d_model must be divisible by num_heads")
    return x.view(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).contiguous().view(b, t, h * dh)
'''}, "why": "intro: 'The tensors you are given need not be contiguous ... .view of such a tensor can fail'"},
{"name": "t_decode_no_mask_then_is_causal", "correct": False, "kind": "tutorial", "cells": {"cache": '''
import torch.nn.functional as F

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = F.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    # one new token sees the whole cache: no mask needed (HF style); a block uses is_causal
    out = F.scaled_dot_product_attention(q, k, v, is_causal=t > 1)
    return F.linear(merge_heads(out), params["w_o"], params["b_o"]), k, v
'''}, "why": "P7: 'the query at position P + t may attend to the keys at positions 0 .. P + t' (is_causal aligns the mask top-left, so with P > 0 and T > 1 queries miss most of the cache)"},
{"name": "t_masked_fill_minus1e9_own_attention", "correct": False, "kind": "tutorial", "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dk = d // num_heads
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    mask = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]).unsqueeze(1).unsqueeze(2)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(dk)
    scores = scores.masked_fill(mask == 0, -1e9)
    p = torch.softmax(scores, dim=-1)
    out = torch.matmul(p, v)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "P6: 'A source sentence of length 0 gives its queries nothing to attend to ... their rows are just the bias b_o' (and float16: -1e9 overflows)"},
{"name": "t_manual_seed_for_reproducibility", "correct": False, "kind": "tutorial", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    torch.manual_seed(0)  # reproducible runs
    b, t, d = x.shape
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = torch.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtf,hfe->bhte", heads, w)
'''}, "why": "intro: 'your functions may not seed or draw from torch's global random number generator (torch.manual_seed ...)'"},
{"name": "t_int64_tensor_arithmetic", "correct": False, "kind": "tutorial", "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("index out of range")
    flat = torch.tensor(position) * num_heads * head_dim + column
    head = torch.div(flat, length * head_dim, rounding_mode="floor")
    rest = flat - head * length * head_dim
    return head.item(), torch.div(rest, head_dim, rounding_mode="floor").item(), (rest % head_dim).item()
'''}, "why": "P2: 'beyond 2^64, where integer tensors (int64) wrap around'"},
{"name": "t_hf_finfo_min_mask", "correct": True, "kind": "tutorial", "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    bsz, t, d = x.size()
    p = past_k.size(-2)
    head_dim = d // num_heads
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = qkv.split(d, dim=-1)
    q = q.reshape(bsz, t, num_heads, head_dim).transpose(1, 2)
    k = torch.cat([past_k, k.reshape(bsz, t, num_heads, head_dim).transpose(1, 2)], dim=2)
    v = torch.cat([past_v, v.reshape(bsz, t, num_heads, head_dim).transpose(1, 2)], dim=2)
    scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(head_dim)
    future = torch.arange(p + t)[None, :] > (torch.arange(t) + p)[:, None]
    scores = scores.masked_fill(future, torch.finfo(scores.dtype).min)
    probs = torch.nn.functional.softmax(scores, dim=-1)
    out = torch.matmul(probs, v).transpose(1, 2).reshape(bsz, t, d)
    return torch.nn.functional.linear(out, params["w_o"], params["b_o"]), k, v
'''}, "why": "P7 Hugging Face style: masked_fill with torch.finfo(dtype).min on a (T, P+T) block (correct)"},
# ---------------- wrong: source reader ----------------
{"name": "s_view_batch_size_contrib", "correct": True, "kind": "source", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    batch_size, seq_len, d_model = x.size()
    d_k = d_model // num_heads
    W = params["w_qkv"]
    Bq = params["b_qkv"]
    Q = (x @ W[:d_model].T + Bq[:d_model]).view(batch_size, -1, num_heads, d_k).transpose(1, 2)
    K = (x @ W[d_model:2 * d_model].T + Bq[d_model:2 * d_model]).view(batch_size, -1, num_heads, d_k).transpose(1, 2)
    V = (x @ W[2 * d_model:].T + Bq[2 * d_model:]).view(batch_size, -1, num_heads, d_k).transpose(1, 2)
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    attn = torch.softmax(scores, dim=-1)
    out = torch.matmul(attn, V)
    w_o = params["w_o"]
    return torch.stack([out[:, i] @ w_o[:, i * d_k:(i + 1) * d_k].T for i in range(num_heads)], dim=1)
'''}, "why": "P5 the source article's view/transpose idiom on contiguous projections (correct)"},
{"name": "s_square_subsequent_mask_sliced", "correct": False, "kind": "source", "cells": {"cache": '''
def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
    return mask

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = generate_square_subsequent_mask(p + t)[p:]
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "P7: 'build nothing of size (P + T, P + T), such as a causal mask of the whole sequence sliced down to its last T rows'"},
{"name": "s_right_pad_mask_of_shape_BS", "correct": False, "kind": "source", "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    mask = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]   # (B, S)
    out = attention(q, k, v, mask.unsqueeze(1))   # (B, 1, S), like the article's padding mask
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "P6: 'a (B, 1, S) one [would be read] as (H, T, S): wrong, or an error, depending on the sizes'"},
{"name": "s_bias_count_times_flag", "correct": False, "kind": "source", "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q_out, kv_out = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_out + 2 * d_model * kv_out + q_out * d_model
    params = weights + bias * (q_out + 2 * kv_out + d_model)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return int(params), macs, 2 * kv_out * (past + 1)
'''}, "why": "P4: 'each projection has one bias per output when bias is true (any true value: True, 1...)' -- bias=2 doubles the biases"},
# ---------------- wrong: hurried ----------------
{"name": "h_float_divisibility", "correct": False, "kind": "hurried", "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or not (num_heads / num_kv_heads).is_integer():
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q_out, kv_out = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_out + 2 * d_model * kv_out + q_out * d_model
    biases = (q_out + 2 * kv_out + d_model) if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return weights + biases, macs, 2 * kv_out * (past + 1)
'''}, "why": "P4: 'exact even when they exceed 2^53 ... a float anywhere in the arithmetic' (num_heads = 2^60 + 2, num_kv_heads = 4 passes the float check)"},
{"name": "h_no_memory_bias", "correct": False, "kind": "hurried", "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w = params["w_qkv"]
    q = split_heads(x @ w[:d].T + params["b_qkv"][:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T, num_heads)
    v = split_heads(memory @ w[2 * d:].T, num_heads)
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "P6: 'using the query rows of w_qkv/b_qkv for x and the key and value rows for memory'"},
{"name": "h_scrambled_no_neg_check", "correct": False, "kind": "hurried", "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position >= length or column >= num_heads * head_dim:
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    return flat // (length * head_dim), flat % (length * head_dim) // head_dim, flat % head_dim
'''}, "why": "P2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim'"},
{"name": "h_merge_empty_heads", "correct": True, "kind": "hurried", "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.unflatten(-1, (d // num_heads, num_heads)).movedim(-1, 1)


def merge_heads_interleaved(x):
    return x.movedim(1, -1).flatten(-2)
'''}, "why": "P1 with unflatten/movedim/flatten (correct)"},
{"name": "h_kv_heads_only_zero_check", "correct": False, "kind": "hurried", "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads == 0 or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q_out, kv_out = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_out + 2 * d_model * kv_out + q_out * d_model
    biases = (q_out + 2 * kv_out + d_model) if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return weights + biases, macs, 2 * kv_out * (past + 1)
'''}, "why": "P4: 'Raise a ValueError unless num_kv_heads >= 1' (num_kv_heads = -1 divides everything)"},
{"name": "h_lengths_in_own_dtype", "correct": False, "kind": "hurried", "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    first_real = s - memory_lengths
    allowed = torch.arange(s)[None, :] >= first_real[:, None]
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "P6: 'a Python int combined with such a tensor, wrap around (in uint8, 300 - 17 is 27)'"},
# ---------------- wrong: careful, one misconception ----------------
{"name": "m_wo_rows_per_head", "correct": False, "kind": "misconception", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    w = params["w_o"].reshape(num_heads, dh, d)   # rows i*Dh .. of W^O
    return torch.einsum("bhtf,hfe->bhte", heads, w)
'''}, "why": "P5: 'As with nn.Linear, a projection computes x @ w.T + b' -- head i meets columns i*Dh.. of w_o, not rows"},
{"name": "m_bias_shared_between_heads", "correct": False, "kind": "misconception", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtf,hfe->bhte", heads, w) + params["b_o"] / num_heads
'''}, "why": "P5: 'The bias b_o belongs to no head.'"},
{"name": "m_rank_bias_adds_one", "correct": False, "kind": "misconception", "cells": {"ranks": '''
rank_one_head = 65   # the bias adds a column of ones to X
rank_all_heads = 100
'''}, "why": "P3a: Q_i is (T, Dh): S_i = Q_i K_i^T has rank at most Dh = 64, bias or not"},
{"name": "m_cache_query_positions_from_zero_block", "correct": True, "kind": "misconception", "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    # the new block is causal among itself; every cached key is visible
    allowed = torch.cat([torch.ones(t, p, dtype=torch.bool), torch.ones(t, t, dtype=torch.bool).tril()], dim=1)
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "P7: cache all visible, block causal: the same mask as j <= P + i (correct)"},
{"name": "m_gqa_macs_per_kv_head", "correct": False, "kind": "misconception", "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q_out, kv_out = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_out + 2 * d_model * kv_out + q_out * d_model
    biases = q_out + 2 * kv_out + d_model if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * num_kv_heads * head_dim * (past + 1) if num_heads else 0
    return (weights + biases, macs, cached)
'''}, "why": "P4: 'cached: how many numbers the layer's key/value cache holds after this step' -- with no query heads the K/V projections still fill the cache"},
# ---------------- correct ----------------
{"name": "C_interleave_via_split_heads_perm", "correct": True, "kind": "tutorial", "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    dh = d // num_heads
    order = torch.arange(d).reshape(dh, num_heads).T.reshape(-1) if d else torch.arange(0)
    return split_heads(x[..., order], num_heads)   # the lesson's split of the reordered columns


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    d = h * dh
    order = torch.arange(d).reshape(dh, h).T.reshape(-1) if d else torch.arange(0)
    inverse = torch.empty_like(order)
    inverse[order] = torch.arange(d)
    return merge_heads(x)[..., inverse]
'''}, "why": "P1 via the setup's split_heads/merge_heads and an index permutation"},
{"name": "C_scrambled_by_keyword_unravel", "correct": True, "kind": "hurried", "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if not 0 <= position < length:
        raise ValueError(f"position {position} outside 0..{length - 1}")
    if not 0 <= column < width:
        raise ValueError(f"column {column} outside 0..{width - 1}")
    flat = position * width + column
    feature = flat % head_dim
    source_position = (flat // head_dim) % length
    head = flat // (head_dim * length)
    return int(head), int(source_position), int(feature)
'''}, "why": "P2 unravel from the last axis"},
{"name": "C_cost_loops_bool", "correct": True, "kind": "tutorial", "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("need at least one key/value head")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    shapes = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
              (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
    parameters = 0
    macs = 0
    for fan_in, fan_out in shapes:
        parameters += fan_in * fan_out + (fan_out if bool(bias) else 0)
        macs += fan_in * fan_out
    keys = past + 1
    macs += num_heads * keys * head_dim   # q k^T
    macs += num_heads * keys * head_dim   # a v
    cached = 2 * num_kv_heads * keys * head_dim
    return parameters, macs, cached
'''}, "why": "P4 as a loop over the four projections"},
{"name": "C_contrib_float64_manual_softmax", "correct": True, "kind": "tutorial", "cells": {"contributions": '''
import torch.nn.functional as F

def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    w_qkv, b_qkv = params["w_qkv"].double(), params["b_qkv"].double()
    qkv = F.linear(x.double(), w_qkv, b_qkv)
    q, k, v = qkv.chunk(3, dim=-1)
    q = q.reshape(b, t, num_heads, dh).transpose(1, 2)
    k = k.reshape(b, t, num_heads, dh).transpose(1, 2)
    v = v.reshape(b, t, num_heads, dh).transpose(1, 2)
    scores = torch.einsum("bhqf,bhkf->bhqk", q, k) / math.sqrt(dh)
    scores = scores - scores.amax(dim=-1, keepdim=True).detach()
    p = scores.exp()
    p = p / p.sum(dim=-1, keepdim=True)
    heads = p @ v
    w_o = params["w_o"].double().reshape(d, num_heads, dh)    # w_o[:, i*Dh:(i+1)*Dh]
    out = torch.einsum("bhtf,ehf->bhte", heads, w_o)
    return out.to(x.dtype)
'''}, "why": "P5 in float64 with a written-out stable softmax (detached max is the usual trick: the gradient is unchanged)"},
{"name": "C_contrib_via_merge_heads_onehot", "correct": True, "kind": "careful", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    parts = []
    for i in range(num_heads):
        keep = torch.zeros(num_heads, 1, 1, dtype=x.dtype)
        keep[i] = 1
        parts.append(merge_heads(heads * keep) @ params["w_o"].T)
    return torch.stack(parts, dim=1) if parts else x.new_zeros(b, 0, t, d)
'''}, "why": "P5 via the setup's merge_heads: each head alone through W^O"},
{"name": "C_left_padded_where_flip_keywords", "correct": True, "kind": "tutorial", "cells": {"left_padded": '''
import torch.nn.functional as F

def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.size()
    s = memory.size(1)
    w_q, w_k, w_v = params["w_qkv"].split(d, dim=0)
    b_q, b_k, b_v = params["b_qkv"].split(d, dim=0)
    q = split_heads(F.linear(x, w_q, b_q), num_heads=num_heads)
    k = split_heads(F.linear(memory, w_k, b_k), num_heads=num_heads)
    v = split_heads(F.linear(memory, w_v, b_v), num_heads=num_heads)
    from_end = torch.arange(s - 1, -1, -1, dtype=torch.long)          # distance from the last position
    allowed = from_end[None, :] < memory_lengths.to(dtype=torch.int64)[:, None]
    out = attention(q=q, k=k, v=v, allowed=allowed.view(b, 1, 1, s))
    return F.linear(merge_heads(out), params["w_o"], params["b_o"])
'''}, "why": "P6 with positions counted from the end, F.linear, keyword arguments"},
{"name": "C_left_padded_own_softmax_minf", "correct": True, "kind": "tutorial", "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dk = d // num_heads
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bb[2 * d:], num_heads)
    lengths = memory_lengths.long()
    mask = (torch.arange(s)[None, :] >= (s - lengths)[:, None])[:, None, None, :]
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(dk)
    scores = scores.masked_fill(mask == 0, float("-inf"))
    has_key = mask.any(dim=-1, keepdim=True)
    scores = torch.where(has_key, scores, torch.zeros((), dtype=scores.dtype))
    p = torch.softmax(scores, dim=-1) * has_key
    out = torch.matmul(p, v)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "why": "P6 tutorial attention with masked_fill(mask == 0, -inf) and empty rows handled before the softmax"},
{"name": "C_cache_tril_diagonal", "correct": True, "kind": "tutorial", "cells": {"cache": '''
import torch.nn.functional as F

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.size(2)
    qkv = F.linear(x, params["w_qkv"], params["b_qkv"])
    q, k_new, v_new = qkv.chunk(3, dim=-1)
    q, k_new, v_new = split_heads(q, num_heads), split_heads(k_new, num_heads), split_heads(v_new, num_heads)
    k = torch.cat((past_k, k_new), dim=-2)
    v = torch.cat((past_v, v_new), dim=-2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = attention(q=q, k=k, v=v, allowed=allowed)
    return F.linear(merge_heads(out), params["w_o"], params["b_o"]), k, v
'''}, "why": "P7 with tril(diagonal=P) on a (T, P+T) block"},
# ---------------- hostile ----------------
{"name": "X_call_reference_via_gc", "correct": False, "kind": "hostile", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    import gc
    for obj in gc.get_objects():
        if type(obj).__name__ == "function" and obj.__name__ == "head_contributions" \\
                and obj.__code__ is not head_contributions.__code__:
            return obj(x, params, num_heads)
    return torch.zeros(x.shape[0], num_heads, x.shape[1], x.shape[2], dtype=x.dtype)
'''}, "why": "hostile: finds any other function called head_contributions (the grader's reference) and calls it; zeros otherwise (fails visible unless a reference exists)"},
{"name": "X_disable_hidden_checks", "correct": False, "kind": "hostile", "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    g = globals()
    g["_keeps_torch_state"] = lambda check, what: None
    g["_close"] = lambda *a, **k: None
    g["_equal"] = lambda *a, **k: None
    b, t, d = x.shape
    s = memory.shape[1]
    w = params["w_qkv"]
    q = split_heads(x @ w[:d].T, num_heads)
    k = split_heads(memory @ w[d:2 * d].T, num_heads)
    v = split_heads(memory @ w[2 * d:].T, num_heads)
    allowed = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(q, k, v, allowed.unsqueeze(1))
    return merge_heads(out) @ params["w_o"].T
'''}, "why": "hostile: reassigns the grader's helpers to no-ops from inside the function; the computation drops every bias and uses a (B,1,S) mask"},
{"name": "X_int_subclass_ranks", "correct": False, "kind": "hostile", "cells": {"ranks": '''
class Any(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

rank_one_head = Any(1)
rank_all_heads = Any(1)
'''}, "why": "hostile: int subclass equal to everything"},
]
