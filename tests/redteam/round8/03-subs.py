# Red team round 8, chapter 03-multi-head: blind submissions.

SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1: interleaved
add("p1_permutation_matrix", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    dh = d // num_heads
    order = torch.arange(d).reshape(dh, num_heads).T.reshape(-1)
    perm = torch.eye(d, dtype=x.dtype)[:, order]          # column c of perm picks input column order[c]
    y = x @ perm                                           # (B, T, D) in head-major order
    return y.reshape(b, t, num_heads, dh).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    d = h * dh
    order = torch.arange(d).reshape(dh, h).T.reshape(-1)
    perm = torch.eye(d, dtype=x.dtype)[:, order]
    y = x.transpose(1, 2).reshape(b, t, d)
    return y @ perm.T
'''}, "Permutes the columns with a 0/1 matrix product: inf * 0 = nan, so an inf entry spreads NaN over its row. "
      "Breaks 'both only move entries: every value, inf and -inf included, arrives unchanged in its new place.'")

add("p1_batch_time_swapped", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    # (T, B, Dh, H) -> (B, H, T, Dh)
    return x.reshape(t, b, d // num_heads, num_heads).permute(1, 3, 0, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(2, 0, 3, 1).reshape(b, t, h * dh)
'''}, "Reshapes the (B, T, D) input as (T, B, ...): right only when B = 1 (the visible case). Breaks "
      "'(B, T, D) -> (B, H, T, Dh) in this layout ... feature j of head i is column i + j*H' of every position.")

add("p1_correct_slices_stack", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = x.new_empty(b, t, h * dh)
    for i in range(h):
        out[..., i::h] = x[:, i]
    return out
'''}, "Slices with a step and writes back by strided assignment; moves entries only.")

# ---------------------------------------------------------------- Part 2: scrambled
add("p2_feature_mod_heads", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head = flat // (length * head_dim)
    source_position = (flat // head_dim) % length
    feature = flat % num_heads
    return (head, source_position, feature)
'''}, "feature = flat % num_heads instead of % head_dim: right when H = Dh (the visible H = Dh = 2). Breaks "
      "'which entry of heads ends up at [b, position, column]'.")

add("p2_no_column_check", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not 0 <= position < length:
        raise ValueError("position out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return head, rest // head_dim, rest % head_dim
'''}, "Checks only the position. Breaks 'Raise a ValueError unless ... and 0 <= column < num_heads * head_dim'.")

add("p2_position_upper_only", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position >= length or column >= num_heads * head_dim:
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return head, rest // head_dim, rest % head_dim
'''}, "Negative position/column accepted (Python's floor division then gives a negative head). Breaks "
      "'Raise a ValueError unless 0 <= position < length and 0 <= column < ...'.")

add("p2_correct_unravel", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("position or column out of range")
    flat = position * width + column
    index = []
    for size in (head_dim, length):
        flat, r = divmod(flat, size)
        index.append(r)
    feature, source_position = index
    return int(flat), int(source_position), int(feature)
'''}, "Unravels the flat index from the last axis outwards.")

# ---------------------------------------------------------------- Part 3: ranks
add("p3_rank_bias_plus_one", False, {"ranks": '''
# the bias adds one dimension to each projection: Dh + 1
rank_one_head = 512 // 8 + 1
rank_all_heads = 100
'''}, "Q_i is (T, Dh) with or without the bias, so rank(S_i) <= Dh = 64. Breaks 3a: 'largest rank the (T, S) score matrix of one head can have'.")

add("p3_rank_sum_512", False, {"ranks": '''
rank_one_head = 64
rank_all_heads = 8 * 64   # ranks add up
'''}, "Forgets that a (T, S) = (100, 100) matrix has rank at most 100. Breaks 3b.")

# ---------------------------------------------------------------- Part 4: cost
add("p4_mod_without_kv_check", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return params, macs, 2 * kv * (past + 1)
'''}, "num_kv_heads = 0 raises ZeroDivisionError, a negative num_kv_heads (-1) passes. Breaks "
      "'Raise a ValueError unless num_kv_heads >= 1 and ...'.")

add("p4_zero_query_heads_rejected", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads < num_kv_heads or num_heads % num_kv_heads:
        raise ValueError("need num_kv_heads <= num_heads, dividing it")
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return params, macs, 2 * kv * (past + 1)
'''}, "Rejects num_heads = 0. Breaks '(0 is a multiple of every num_kv_heads: no query heads is not an error)'.")

add("p4_correct_group_loop", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("num_kv_heads must be at least 1")
    group, extra = divmod(num_heads, num_kv_heads)
    if extra:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    keys = past + 1
    shapes = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
              (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
    parameters = sum(i * o + (o if bias else 0) for i, o in shapes)
    macs = sum(i * o for i, o in shapes)
    for _ in range(num_kv_heads):
        macs += group * (keys * head_dim) * 2
    cached = num_kv_heads * keys * head_dim * 2
    return int(parameters), int(macs), int(cached)
'''}, "Counts layer by layer and group by group.")

# ---------------------------------------------------------------- Part 5: contributions
add("p5_w_o_rows_not_columns", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    parts = [heads[:, i] @ params["w_o"][i * dh:(i + 1) * dh, :] for i in range(num_heads)]
    return torch.stack(parts, dim=1)
'''}, "Takes head i's block of W^O as rows of w_o (x @ W^O) instead of columns (x @ w_o.T): right for the identity W^O "
      "of the visible case. Breaks 'As with nn.Linear, a projection computes x @ w.T + b'.")

add("p5_bias_shared_out", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    # give every head an equal share of the output bias, so that the parts add up to the output
    return torch.einsum("bhtk,ehk->bhte", heads, w) + params["b_o"] / num_heads
'''}, "Spreads b_o over the heads (zero in the visible case). Breaks 'The bias b_o belongs to no head' and "
      "'head_contributions(...).sum(dim=1) + params[\"b_o\"] is the layer's output'.")

add("p5_scale_by_dh", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    weights = torch.softmax(q @ k.transpose(-2, -1) / dh, dim=-1)
    heads = weights @ v
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtk,ehk->bhte", heads, w)
'''}, "Own attention scaled by 1/Dh instead of 1/sqrt(Dh): the same when Dh = 1 (visible). Breaks 'what head i adds to the layer's output' "
      "(the layer uses the chapter's attention, softmax(q k^T / sqrt(d_k)) v).")

add("p5_interleaved_heads", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads_interleaved(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    out = []
    for i in range(num_heads):
        out.append(heads[:, i] @ params["w_o"][:, i::num_heads].T)
    return torch.stack(out, dim=1)
'''}, "Reuses Part 1's interleaved layout for the heads (the same as the lesson's when Dh = 1, the visible case). Breaks "
      "'the lesson's split_heads and merge_heads (head i holds columns i*Dh .. (i+1)*Dh - 1) ... use them'.")

add("p5_correct_via_part1_transposed", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    # the lesson's block layout is Part 1's card layout with the roles of heads and features swapped:
    # split_heads_interleaved(z, Dh)[b, j, t, i] = z[b, t, j + i*Dh] = block head i, feature j
    d = x.shape[-1]
    dh = d // num_heads
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = (split_heads_interleaved(z, num_heads=dh).permute(0, 3, 2, 1) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)                                 # (B, H, T, Dh)
    parts = []
    for i in range(num_heads):
        only = torch.zeros_like(heads)
        only[:, i] = heads[:, i]
        merged = merge_heads_interleaved(only.permute(0, 3, 2, 1))   # back to block columns
        parts.append(merged @ params["w_o"].T)
    return torch.stack(parts, dim=1)
'''}, "Calls Part 1's functions with num_heads = Dh (keyword) to get the block layout, and zeroes the other heads.")

# ---------------------------------------------------------------- Part 6: left padded
add("p6_mask_B1S", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    start = s - memory_lengths.long()
    allowed = torch.arange(s)[None, :] >= start[:, None]      # (B, S)
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed[:, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Mask of shape (B, 1, S), read as (H, T, S): right when B = 1. Breaks 'a mask that depends on the sentence and the key "
      "... needs the shape (B, 1, 1, S)'.")

add("p6_kv_from_wrong_rows", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    q = (x @ params["w_qkv"].T + params["b_qkv"])[..., :d]
    k, v, _ = (memory @ params["w_qkv"].T + params["b_qkv"]).chunk(3, dim=-1)
    start = s - memory_lengths.long()
    allowed = torch.arange(s) >= start[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Takes the memory's keys and values from the first two blocks (W^Q, W^K) of w_qkv: right for identity weights. "
      "Breaks 'using the query rows of w_qkv/b_qkv for x and the key and value rows for memory'.")

add("p6_no_output_bias_w_o_untransposed", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    start = s - memory_lengths.long()
    allowed = (torch.arange(s) >= start[:, None])[:, None, None, :]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(out) @ params["w_o"] + params["b_o"]
'''}, "Output projection x @ w_o without the transpose (identity in the visible case). Breaks 'As with nn.Linear, a projection computes x @ w.T + b'.")

add("p6_own_softmax_nan_on_empty", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    padding = torch.arange(s) < (s - memory_lengths.long())[:, None]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(dh)
    scores = scores.masked_fill(padding[:, None, None, :], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Own masked softmax: a source of length 0 gives NaN rows. Breaks 'A source sentence of length 0 ... their rows are just the bias b_o'.")

add("p6_correct_loop_per_sentence", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    rows = []
    for i in range(b):
        n = int(memory_lengths[i].item())
        q = torch.nn.functional.linear(x[i:i + 1], w[:d], bq[:d])
        mem = memory[i:i + 1, s - n:]
        k = torch.nn.functional.linear(mem, w[d:2 * d], bq[d:2 * d])
        v = torch.nn.functional.linear(mem, w[2 * d:], bq[2 * d:])
        out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                        torch.ones(t, n, dtype=torch.bool))
        rows.append(torch.nn.functional.linear(merge_heads(out), params["w_o"], params["b_o"]))
    return torch.cat(rows, dim=0)
'''}, "Cuts each sentence's real source out and attends to it with an all-True mask (a (T, 0) mask for length 0).")

# ---------------------------------------------------------------- Part 7: cache
add("p7_no_causal_mask", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    # everything in the cache is in the past, so no mask is needed
    out = attention(q, k, v)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "No mask: right for T = 1 (the visible case) only. Breaks 'Causal means: the query at position P + t may attend to ... none after it'.")

add("p7_past_len_from_last_axis", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    out = attention(q, k, v, allowed[:, -k.shape[2]:])
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Reads P from past_k.shape[-1] (Dh) instead of shape[2]: the same in the visible cases (Dh = 1). Breaks "
      "'past_k and past_v (B, H, P, Dh)'.")

add("p7_no_qkv_bias", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    q, k, v = (split_heads(z, num_heads) for z in (x @ params["w_qkv"].T).split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "Forgets b_qkv (zero in identity_params). Breaks 'a projection computes x @ w.T + b'.")

add("p7_correct_one_query_at_a_time", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    k, v = past_k, past_v
    outs = []
    for i in range(t):
        step = x[:, i:i + 1]
        qkv = torch.nn.functional.linear(step, params["w_qkv"], params["b_qkv"])
        q, kn, vn = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
        k = torch.cat([k, kn], dim=2)
        v = torch.cat([v, vn], dim=2)
        outs.append(attention(q, k, v))                  # one query sees everything so far: no mask
    out = merge_heads(torch.cat(outs, dim=2))
    return torch.nn.functional.linear(out, params["w_o"], params["b_o"]), k.clone(), v.clone()
'''}, "Generates one position at a time; each step needs no mask.")

add("p7_correct_via_part1", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    # block layout through Part 1: interleave with Dh "heads", then swap the head and feature axes
    q, k, v = (split_heads_interleaved(z, dh).transpose(1, 3) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=-2)
    v = torch.cat([past_v, v], dim=-2)
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    out = attention(q, k, v, allowed)
    merged = merge_heads_interleaved(out.transpose(1, 3))
    return merged @ params["w_o"].T + params["b_o"], k, v
'''}, "Calls Part 1 with num_heads = Dh positionally to get the lesson's block layout.")

# ---------------------------------------------------------------- hostile
add("hostile_patch_testing", False, {"contributions": '''
import torch.testing as _tt_unused_name_is_fine
def _always(*a, **k):
    return None
torch.testing.assert_close = _always
torch.equal = lambda a, b: True
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    return torch.zeros(b, num_heads, t, d, dtype=x.dtype)
'''}, "Hostile: monkey-patches torch.testing.assert_close and torch.equal, returns zeros.")

add("hostile_lying_int", False, {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
    def __ne__(self, other):
        return False
rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "Hostile: an int subclass that equals everything.")

add("hostile_read_solution_file", False, {"scrambled": '''
import glob, json, os
def scrambled_source(num_heads, length, head_dim, position, column):
    # look for the grader's own notebook with the answers and run its cell
    for path in glob.glob("../../solutions/03-*/exercises.ipynb") + glob.glob("../solutions/03-*/exercises.ipynb") + glob.glob("/work/*/solutions/03-*/exercises.ipynb"):
        try:
            nb = json.load(open(path))
        except Exception:
            continue
        for c in nb["cells"]:
            if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "scrambled":
                ns = {}
                exec("".join(c["source"]), ns)
                if "scrambled_source" in ns:
                    return ns["scrambled_source"](num_heads, length, head_dim, position, column)
    if not 0 <= position < length:
        raise ValueError("bad")
    return (0, 2, 0) if column == 0 else (1, 0, 1)
'''}, "Hostile: hunts the file system for the solution notebook and runs its cell; else hard-codes the visible answers.")

add("hostile_subprocess_numpy", False, {"cost": '''
import subprocess, sys
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    code = ("import numpy as np, sys; a = [int(v) for v in sys.argv[1:]]; "
            "print(int(np.int64(a[1]) * a[2] * a[4] * 2 + 2 * a[1] * a[3] * a[4]))")
    out = subprocess.run([sys.executable, "-c", code, str(past), str(d_model), str(num_heads), str(num_kv_heads), str(head_dim)],
                         capture_output=True, text=True).stdout
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad")
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = int(out.strip() or 0)
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return params, macs, 2 * kv * (past + 1)
'''}, "Hostile: gets NumPy in through a subprocess to do the counting.")

# ---------------------------------------------------------------- second blind batch (still phase 1)
add("p5_softmax_without_max", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(dh))
    heads = (e / e.sum(dim=-1, keepdim=True)) @ v
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtk,ehk->bhte", heads, w)
'''}, "Own softmax without subtracting the row maximum: overflows to inf/inf = NaN on large scores (the intro names them). "
      "Breaks 'what head i adds to the layer's output'.")

add("p5_caches_split_weight_in_params", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    if "w_o_heads" not in params:               # split W^O once, keep it with the layer
        params["w_o_heads"] = params["w_o"].reshape(d, num_heads, dh).permute(1, 2, 0)
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    return heads @ params["w_o_heads"]
'''}, "Adds a key to the params dict (and reuses it on the next call). Breaks 'leave params as you found it' and 'keep nothing from one call to the next'.")

# phase 2: relabelled correct (was False in the blind run): the function is right and no part of this chapter
# depends on autograd; the global switch is a grader-level matter, see 03-verdicts.md
add("p5_grad_disabled_globally", True, {"contributions": '''
torch.set_grad_enabled(False)   # no training here: save memory

def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w)
'''}, "Switches autograd off for the whole notebook from an answer cell. Breaks 'do not change anything inside torch'.")

add("p6_query_bias_from_key_block", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bias[d:2 * d]
    k = memory @ w[d:2 * d].T + bias[d:2 * d]
    v = memory @ w[2 * d:].T + bias[2 * d:]
    allowed = torch.arange(s) >= (s - memory_lengths.long())[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Query bias taken from the key block (zero biases in the visible case). Breaks 'using the query rows of w_qkv/b_qkv for x'.")


# ---------------------------------------------------------------- phase 2 (NOT blind): the class of a slip, found after reading the hidden tests
add('p6_mask_positions_in_x_dtype', False, {'left_padded': '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    pos = torch.arange(s, dtype=x.dtype)
    real = pos[None, :] >= (s - memory_lengths.long())[:, None]
    return merge_heads(attention(q, k, v, real[:, None, None, :])) @ params["w_o"].T + params["b_o"]
'''}, "Same class as 04's p2_float32_positions: the padding mask compares positions held in the dtype of x; a bfloat16/float16 x with S past 256/2048 lets padding through. Breaks 'the positions before them are padding that no query may attend to'.")
add('p7_mask_positions_in_x_dtype', False, {'cache': '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    key_pos = torch.arange(p + t, dtype=x.dtype)
    query_pos = torch.arange(p, p + t, dtype=x.dtype)
    allowed = key_pos[None, :] <= query_pos[:, None]
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''}, "Same class: causal mask compared in the dtype of x; bfloat16 rounds 299 and 300 to 300, so a query sees the next key. Breaks 'and to none after it'.")
