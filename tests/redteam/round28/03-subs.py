# Round 28, chapters 03: five kinds of student (tie-breaker, fallback writer, constant-hardcoder, memoizer, spec-lawyer)

MERGE_OK = '''

def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, h * dh).clone()
'''

SUBMISSIONS = [
# ---------------------------------------------------------------- wrong: tie-breaker
{"name": "tie_p2_column_le_width", "correct": False, "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column <= num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    pos, feat = divmod(rest, head_dim)
    return (head, pos, feat)
'''}, "why": "tie-breaker: `<=` at the threshold. Breaks 'Raise a ValueError unless ... 0 <= column < num_heads * head_dim': column == H*Dh returns the next row's first entry."},
{"name": "tie_p4_fewer_query_than_kv_heads", "correct": False, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads < num_kv_heads or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    qd, kvd = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * qd + 2 * d_model * kvd + qd * d_model
    biases = (qd + 2 * kvd + d_model) if bias else 0
    return (weights + biases, weights + 2 * num_heads * (past + 1) * head_dim, 2 * kvd * (past + 1))
'''}, "why": "tie-breaker: requires num_heads >= num_kv_heads (each kv head needs a query head). Breaks '0 is a multiple of every num_kv_heads: no query heads is not an error'."},
{"name": "tie_p1_at_least_one_column_per_head", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d < num_heads or d % num_heads:
        raise ValueError("each head needs a whole number of columns")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).clone()
''' + MERGE_OK}, "why": "tie-breaker: `d < num_heads` threshold. Breaks '(D = 0 is divisible by every num_heads ...)': D = 0 raises."},
# ---------------------------------------------------------------- wrong: fallback writer
{"name": "fb_p6_all_empty_returns_bias", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    if b == 0 or bool((memory_lengths == 0).all()):
        # nothing to attend to anywhere: the output is the bias
        return params["b_o"].expand(b, t, d).clone()
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = memory @ w[d:2 * d].T + bb[d:2 * d]
    v = memory @ w[2 * d:].T + bb[2 * d:]
    pos = torch.arange(s, device=x.device)
    allowed = pos[None, :] >= (s - memory_lengths.long())[:, None]
    dt = x.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    o = attention(split_heads(q, num_heads).to(wide), split_heads(k, num_heads).to(wide),
                  split_heads(v, num_heads).to(wide), allowed[:, None, None, :]).to(dt)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "why": "fallback: when every sentence is empty returns b_o expanded, detached from x, memory, w_qkv and w_o (their gradients None, not zeros). Breaks 'their rows are just the bias b_o, with the bias's gradients (the hidden tests compare gradients there too, also when every sentence has length 0)' / 'Gradients must flow through the result, to x, memory and the parameters'."},
{"name": "fb_p1_empty_shortcut_before_check", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if x.numel() == 0:
        return x.new_empty(b, num_heads, t, d // num_heads)
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).clone()
''' + MERGE_OK}, "why": "fallback: empty x returns early, before the divisibility check. Breaks 'an empty x, with B = 0 or T = 0, follows the same rule' (D = 5, H = 2, B = 0 must raise); also the empty result has no grad_fn."},
{"name": "fb_p2_zero_size_returns_origin", "correct": False, "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if num_heads == 0 or length == 0 or head_dim == 0:
        return (0, 0, 0)  # degenerate tensor: nothing moves
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    pos, feat = divmod(rest, head_dim)
    return (head, pos, feat)
'''}, "why": "fallback: returns (0, 0, 0) for a size of 0. Breaks 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim (so also when a size is 0)'."},
{"name": "fb_p4_zero_kv_heads_returns_zeros", "correct": False, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    try:
        if num_heads % num_kv_heads:
            raise ValueError("query heads must share the key/value heads evenly")
    except ZeroDivisionError:
        return (0, 0, 0)  # no key/value heads: no layer
    qd, kvd = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * qd + 2 * d_model * kvd + qd * d_model
    biases = (qd + 2 * kvd + d_model) if bias else 0
    return (weights + biases, weights + 2 * num_heads * (past + 1) * head_dim, 2 * kvd * (past + 1))
'''}, "why": "fallback: num_kv_heads = 0 returns (0, 0, 0) (ZeroDivisionError swallowed). Breaks 'Raise a ValueError unless num_kv_heads >= 1 ... num_kv_heads = 0 is [an error]'; negative num_kv_heads also passes."},
{"name": "fb_p6_empty_batch_new_zeros", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    if b == 0:
        return x.new_zeros(0, t, d)  # empty batch: nothing to compute
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = memory @ w[d:2 * d].T + bb[d:2 * d]
    v = memory @ w[2 * d:].T + bb[2 * d:]
    pos = torch.arange(s, device=x.device)
    allowed = pos[None, :] >= (s - memory_lengths.long())[:, None]
    dt = x.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    o = attention(split_heads(q, num_heads).to(wide), split_heads(k, num_heads).to(wide),
                  split_heads(v, num_heads).to(wide), allowed[:, None, None, :]).to(dt)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "why": "fallback (UNSURE): B = 0 returns x.new_zeros, with no grad_fn, so the caller's backward() raises. 'Gradients must flow through the result' versus 'B may be 0 (an empty batch: the result is (0, T, D), nothing raised)'; the values are right."},
# ---------------------------------------------------------------- wrong: constant-hardcoder
{"name": "const_p7_float32_compute", "correct": False, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    o = attention(q.to(torch.float32), k.to(torch.float32), v.to(torch.float32), allowed).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "why": "constant-hardcoder: attention always in torch.float32 (the lesson's dtype), so float64 inputs lose precision. Breaks 'All three have the dtype of x' in spirit: the hidden tests compare float64 to float64 tolerances (the intro: 'float64 and float16')."},
{"name": "const_p5_float32_compute", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    f = torch.float32
    qkv = x.to(f) @ params["w_qkv"].to(f).T + params["b_qkv"].to(f)
    q, k, v = qkv.split(d, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].to(f).reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", o, w).to(x.dtype)
'''}, "why": "constant-hardcoder: computes in torch.float32 whatever x's dtype. Breaks 'Return the dtype of x (float32 or float64 ...)': the dtype is right but float64 values carry float32 errors."},
{"name": "const_p3_ranks_from_widths", "correct": False, "cells": {"ranks": '''
rank_one_head = 512 // 8
rank_all_heads = 512
'''}, "why": "constant-hardcoder: the sum of the eight heads' ranks capped by D = 512, forgetting T = S = 100. Breaks 3b: the (T, S) matrix has rank at most 100."},
{"name": "const_p6_window_2048", "correct": False, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = memory @ w[d:2 * d].T + bb[d:2 * d]
    v = memory @ w[2 * d:].T + bb[2 * d:]
    pos = torch.arange(s, device=x.device, dtype=torch.int16)
    allowed = pos[None, :].long() >= (s - memory_lengths.long())[:, None]
    dt = x.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    o = attention(split_heads(q, num_heads).to(wide), split_heads(k, num_heads).to(wide),
                  split_heads(v, num_heads).to(wide), allowed[:, None, None, :]).to(dt)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "why": "constant-hardcoder: positions kept in torch.int16 (a 'small' integer dtype) which wraps past 32767. Breaks 'S larger than 256 or 2048 ... build the mask from integer positions' with S up to 2^24 (sources longer than 2^20)."},
# ---------------------------------------------------------------- wrong: memoizer
{"name": "memo_p1_index_by_width", "correct": False, "cells": {"interleaved": '''
INDEX = {}

def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    if d not in INDEX:
        INDEX[d] = torch.arange(d).reshape(d // num_heads, num_heads).T.reshape(-1)
    return x[..., INDEX[d]].reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, h * dh).clone()
'''}, "why": "memoizer: the gather index cached by D only; a later call with the same D and another num_heads gets the first call's layout. Breaks 'keep nothing from one call to the next' and 'feature j of head i is column i + j*H'."},
{"name": "memo_p5_wo_view_by_id", "correct": False, "cells": {"contributions": '''
WO = {}

def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    key = (id(params["w_o"]), num_heads)
    if key not in WO:
        WO[key] = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", o, WO[key])
'''}, "why": "memoizer: W^O reshaped once per id(w_o); ids come back after a tensor is freed, and a non-contiguous w_o reshapes to a copy that misses in-place updates. Breaks 'not even something worked out from a tensor ... kept per id() of it'."},
{"name": "memo_p6_mask_by_shape", "correct": False, "cells": {"left_padded": '''
MASKS = {}

def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = memory @ w[d:2 * d].T + bb[d:2 * d]
    v = memory @ w[2 * d:].T + bb[2 * d:]
    key = (b, s, memory_lengths.dtype)
    if key not in MASKS:
        pos = torch.arange(s, device=x.device)
        MASKS[key] = (pos[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    dt = x.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    o = attention(split_heads(q, num_heads).to(wide), split_heads(k, num_heads).to(wide),
                  split_heads(v, num_heads).to(wide), MASKS[key]).to(dt)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "why": "memoizer: the padding mask cached by (B, S, dtype), not by the lengths. Breaks 'keep nothing from one call to the next' and 'the last memory_lengths[b] ... are real'."},
{"name": "memo_p7_mask_by_total_length", "correct": False, "cells": {"cache": '''
MASKS = {}

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    if p + t not in MASKS:  # the causal mask of the last rows; rows are broadcast if fewer
        MASKS[p + t] = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    allowed = MASKS[p + t][-t:]
    dt = x.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(dt)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "why": "memoizer: the causal mask cached by P + T and its last T rows sliced; a later call with the same P + T but more new rows (smaller P) gets rows of the first call's size only (fewer rows: wrong mask rows). Breaks 'the query at position P + t may attend to the keys at positions 0 .. P + t'."},
# ---------------------------------------------------------------- wrong: spec-lawyer
{"name": "law_p4_bias_is_true_only", "correct": False, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not (num_kv_heads >= 1 and num_heads % num_kv_heads == 0):
        raise ValueError("bad heads")
    qd, kvd = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * qd + 2 * d_model * kvd + qd * d_model
    biases = (qd + 2 * kvd + d_model) if bias is True else 0
    return (weights + biases, weights + 2 * num_heads * (past + 1) * head_dim, 2 * kvd * (past + 1))
'''}, "why": "spec-lawyer: reads `bias=True` as the flag's only true value. Breaks 'any true value: True, 1, 2, ...: still one bias per output'."},
{"name": "law_p2_negative_position_python_index", "correct": False, "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position >= length or column >= num_heads * head_dim:
        raise ValueError("out of range")
    position %= length
    column %= num_heads * head_dim
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    pos, feat = divmod(rest, head_dim)
    return (head, pos, feat)
'''}, "why": "spec-lawyer: negative position/column taken as Python indices from the end. Breaks 'Raise a ValueError unless 0 <= position < length and 0 <= column'."},
# ---------------------------------------------------------------- correct
{"name": "ok_law_p1_views", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, h * dh)
'''}, "why": "spec-lawyer: returns views where reshape allows (as the lesson's split_heads does); nothing asks for a copy (UNSURE: 'return new tensors on every call')."},
{"name": "ok_memo_p1_index_by_width_and_heads", "correct": True, "cells": {"interleaved": '''
INDEX = {}

def column_order(d, h):
    if (d, h) not in INDEX:
        INDEX[(d, h)] = torch.arange(d).reshape(d // h, h).T.reshape(-1)
    return INDEX[(d, h)]


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x[..., column_order(d, num_heads).to(x.device)].reshape(b, t, num_heads, d // num_heads).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    inverse = torch.argsort(column_order(h * dh, h))
    return merge_heads(x)[..., inverse.to(x.device)]
'''}, "why": "memoizer, correct: an index cached by (D, H), never returned, only read; merge uses the lesson's merge_heads and the inverse permutation."},
{"name": "ok_memo_p2_lru", "correct": True, "cells": {"scrambled": '''
import functools

@functools.lru_cache(maxsize=None)
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    row = num_heads * head_dim
    flat = position * row + column
    per_head = length * head_dim
    return (flat // per_head, (flat % per_head) // head_dim, flat % head_dim)
'''}, "why": "memoizer, correct: lru_cache on a pure function of ints (the same answer for the same arguments)."},
{"name": "ok_memo_p4_lru_full_signature", "correct": True, "cells": {"cost": '''
import functools

@functools.lru_cache(maxsize=256)
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim
    params = 2 * d_model * q_width + 2 * d_model * kv_width
    if bias:
        params += q_width + 2 * kv_width + d_model
    macs = 2 * d_model * q_width + 2 * d_model * kv_width + 2 * num_heads * head_dim * (past + 1)
    return (params, macs, 2 * kv_width * (past + 1))
'''}, "why": "memoizer, correct: lru_cache keyed by every argument (True and 1 share a key, with the same answer)."},
{"name": "ok_law_p4_bool_multiplier", "correct": True, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1:
        raise ValueError("num_kv_heads must be >= 1")
    if num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    qd = num_heads * head_dim
    kvd = num_kv_heads * head_dim
    per_output = 1 + int(bool(bias))
    parameters = d_model * qd + qd + 2 * (d_model * kvd + kvd) + qd * d_model + d_model
    if not bias:
        parameters -= qd + 2 * kvd + d_model
    keys = past + 1
    macs = sum([d_model * qd, d_model * kvd, d_model * kvd, qd * d_model, num_heads * keys * head_dim, num_heads * keys * head_dim])
    return (int(parameters), int(macs), int(2 * keys * kvd))
'''}, "why": "spec-lawyer, correct: two separate ValueErrors, counts summed term by term in Python ints."},
{"name": "ok_fb_p5_one_position_shortcut", "correct": True, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    if t == 1:
        o = split_heads(v, num_heads)  # one key: its softmax weight is 1
    else:
        o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtk,ehk->bhte", o, w)
'''}, "why": "fallback writer, correct: one position attends to itself with weight 1, so the output is the value (the same value and the same gradient to x, v's rows; q and k get zero gradient as softmax of one entry has zero derivative)."},
{"name": "ok_law_p5_loop_over_heads_float64", "correct": True, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    dt = x.dtype
    x64 = x.to(torch.float64)
    p = {name: value.to(torch.float64) for name, value in params.items()}
    q = x64 @ p["w_qkv"][:d].T + p["b_qkv"][:d]
    k = x64 @ p["w_qkv"][d:2 * d].T + p["b_qkv"][d:2 * d]
    v = x64 @ p["w_qkv"][2 * d:].T + p["b_qkv"][2 * d:]
    parts = []
    for i in range(num_heads):
        cols = slice(i * dh, (i + 1) * dh)
        scores = q[..., cols] @ k[..., cols].transpose(-2, -1) / math.sqrt(dh)
        weights = torch.softmax(scores, dim=-1)
        parts.append((weights @ v[..., cols]) @ p["w_o"][:, cols].T)
    return torch.stack(parts, dim=1).to(dt)
'''}, "why": "spec-lawyer, correct: a Python loop over heads, float64 inside and a cast back to x's dtype; params copied to float64 in a new dict (the given dict untouched)."},
{"name": "ok_tie_p6_flipped_positions", "correct": True, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = memory @ w[d:2 * d].T + bb[d:2 * d]
    v = memory @ w[2 * d:].T + bb[2 * d:]
    from_end = torch.arange(s - 1, -1, -1, device=x.device)  # distance from the last position
    allowed = from_end[None, :] < memory_lengths.to(torch.int64)[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "why": "tie-breaker, correct: counts positions from the end, `<` lengths (the same set as j >= S - L); calls `attention` in the input dtype, float16 too (SDPA on CPU accumulates in float32) (UNSURE for float16 overflow)."},
{"name": "ok_law_p6_float64_inside", "correct": True, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dt = x.dtype
    w = params["w_qkv"].to(torch.float64)
    bb = params["b_qkv"].to(torch.float64)
    xx, mm = x.to(torch.float64), memory.to(torch.float64)
    q = split_heads(xx @ w[:d].T + bb[:d], num_heads)
    k = split_heads(mm @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(mm @ w[2 * d:].T + bb[2 * d:], num_heads)
    lengths = memory_lengths.to(torch.int64)
    allowed = torch.arange(s)[None, :] + lengths[:, None] >= s
    o = attention(q, k, v, allowed[:, None, None, :])
    out = merge_heads(o) @ params["w_o"].to(torch.float64).T + params["b_o"].to(torch.float64)
    return out.to(dt)
'''}, "why": "spec-lawyer, correct: everything in float64 and a cast back; mask j + L >= S in int64."},
{"name": "ok_const_p7_float32_positions", "correct": True, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    kpos = torch.arange(p + t, dtype=torch.float32)
    qpos = p + torch.arange(t, dtype=torch.float32)
    allowed = kpos[None, :] <= qpos[:, None]
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "why": "constant-hardcoder, correct: positions in torch.float32, which holds every integer below 2^24 ('P + T stays below 2^24')."},
{"name": "ok_memo_p7_mask_by_rows_and_past", "correct": True, "cells": {"cache": '''
MASKS = {}

def causal_mask(t, p):
    if (t, p) not in MASKS:
        MASKS[(t, p)] = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    return MASKS[(t, p)]


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    dt = x.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    o = attention(q.to(wide), k.to(wide), v.to(wide), causal_mask(t, p)).to(dt)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "why": "memoizer, correct: the causal mask depends only on (T, P); cached by both, only read, never returned (UNSURE: many distinct P values fill memory)."},
{"name": "ok_fb_p7_one_token_no_mask", "correct": True, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    if p > 0:
        k = torch.cat([past_k, k], dim=2)
        v = torch.cat([past_v, v], dim=2)
    else:
        k, v = k.clone(), v.clone()
    if t == 1:
        allowed = None  # one new token sees the whole cache and itself
    else:
        allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    dt = x.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    o = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(dt)
    return (merge_heads(o) @ params["w_o"].T + params["b_o"], k, v)
'''}, "why": "fallback writer, correct: T = 1 needs no mask; an empty cache is not concatenated (the new keys are cloned)."},
{"name": "ok_tie_p1_loop_over_heads", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return torch.stack([x[:, i] for i in range(h)], dim=-1).reshape(b, t, h * dh)
'''}, "why": "spec-lawyer, correct: strided slices stacked (a loop over the heads)."},
# ---------------------------------------------------------------- hostile
{"name": "hostile_p3_equal_to_anything", "correct": False, "cells": {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "why": "hostile: int subclasses equal to anything."},
{"name": "hostile_p2_tuple_equal_to_anything", "correct": False, "cells": {"scrambled": '''
class Anything(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__

def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    return (Anything(0), Anything(0), Anything(0))
'''}, "why": "hostile: a tuple of int subclasses that compare equal to anything."},
]
