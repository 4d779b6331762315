"""Round 34 red team, chapter 03-multi-head: magic-number, composer, (no modules), (no text), low-precision students."""

# ---------------------------------------------------------------- building blocks (correct)
P1 = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h).clone()
'''

P2 = '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if not (0 <= position < length) or not (0 <= column < width):
        raise ValueError("position or column out of range")
    flat = position * width + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
'''

P4 = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q_width, kv_width = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q_width + 2 * d_model * kv_width + q_width * d_model
    biases = (q_width + 2 * kv_width + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv_width * keys
    return (weights + biases, macs, cached)
'''

PROJ = '''
def project_heads(x, params, num_heads, rows):
    d = x.shape[-1]
    w, b = params["w_qkv"][rows * d:(rows + 1) * d], params["b_qkv"][rows * d:(rows + 1) * d]
    return split_heads(x @ w.T + b, num_heads)
'''

P5 = '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    heads = attention(q, k, v)  # (B, H, T, Dh)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)  # (D_out, H, Dh)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''

P6 = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bias[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bias[2 * d:], num_heads)
    start = s - memory_lengths.to(torch.long)  # first real position of each sentence
    allowed = torch.arange(s, device=x.device)[None, :] >= start[:, None]  # (B, S)
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''

P7 = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    keys = torch.arange(p + t, device=x.device)
    queries = torch.arange(p, p + t, device=x.device)
    allowed = keys[None, :] <= queries[:, None]  # (T, P + T)
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''

RANKS = "rank_one_head = 64\nrank_all_heads = 100\n"

SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# =============================================================== WRONG
# --- Part 1 (interleaved)
add("w01-empty-skips-check", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    try:  # an empty-sequence student: reshape's own error is the check
        heads = x.reshape(b, t, d // num_heads, num_heads)
    except RuntimeError as e:
        raise ValueError(str(e)) from None
    return heads.permute(0, 3, 1, 2).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h).clone()
'''}, "text-and-token (empty sequences): lets reshape do the check, which an empty x (B=0 or T=0) passes: "
   "'an empty x, with B = 0 or T = 0, follows the same rule' (raise when D is not divisible).")

add("w02-lowprec-float-roundtrip", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("not divisible")
    # index with a float gather matrix (one-hot), the way a einsum user deals columns
    dh = d // num_heads
    cols = torch.arange(d, device=x.device).reshape(dh, num_heads).T  # (H, Dh): column i + j*H
    return x[..., cols].permute(0, 2, 1, 3).to(torch.get_default_dtype() if x.is_floating_point() else x.dtype)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h).clone()
'''}, "low-precision/reverse: casts a floating x to the default dtype (float32): 'Both return a tensor of the dtype "
   "they were given' (float64 and float16 inputs come back float32).")

# --- Part 2 (scrambled)
add("w03-negative-position", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position >= length or column >= width:  # negative ones index from the end, as in Python
        raise ValueError("out of range")
    flat = (position % length) * width + column % width
    head, rest = divmod(flat, length * head_dim)
    return (head, rest // head_dim, rest % head_dim)
'''}, "magic guard: accepts negative positions/columns: 'Raise a ValueError unless 0 <= position < length and 0 <= column < ...'.")

add("w04-magic-int64-limit", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    LARGE = 2**63 - 1  # sizes past int64 cannot be real tensors
    width = min(num_heads * head_dim, LARGE)
    if not (0 <= position < length and 0 <= column < width):
        raise ValueError("out of range")
    flat = position * width + column
    head, rest = divmod(flat, length * head_dim)
    return (head, rest // head_dim, rest % head_dim)
'''}, "magic-number: caps the width at 2**63-1 as 'large': 'the hidden tests use sizes ... beyond 2^64' and "
   "'compared as exact integers'.")

# --- Part 3 (ranks)
add("w05-rank-bias-adds-one", False, {"ranks": "rank_one_head = 512 // 8 + 1  # the bias adds a direction\nrank_all_heads = 100\n"},
    "3a: Q_i is (T, Dh): its rank is at most Dh = 64 whatever the bias.")
add("w06-rank-sum-512", False, {"ranks": "rank_one_head = 64\nrank_all_heads = 8 * 64\n"},
    "3b: the sum is a (T, S) = (100, 100) matrix: rank at most 100.")

# --- Part 4 (cost)
add("w07-cost-heads-ge-kv", False, {"cost": P4.replace(
    "if num_kv_heads < 1 or num_heads % num_kv_heads:",
    "if num_kv_heads < 1 or num_heads < num_kv_heads or num_heads % num_kv_heads:")},
    "composer of HF config checks: raises for num_heads = 0: '0 is a multiple of every num_kv_heads: no query heads is not an error'.")
add("w08-cost-zero-guard", False, {"cost": P4.replace(
    "if num_kv_heads < 1 or num_heads % num_kv_heads:",
    "if num_kv_heads == 0 or num_heads % num_kv_heads != 0:  # guard the modulo")},
    "magic guard: only guards the division by zero, so num_kv_heads = -1 or -2 passes: 'Raise a ValueError unless num_kv_heads >= 1'.")
add("w09-cost-bias-multiplier", False, {"cost": P4.replace(
    "biases = (q_width + 2 * kv_width + d_model) if bias else 0",
    "biases = int(bias) * (q_width + 2 * kv_width + d_model)")},
    "bias=2 counts the biases twice: 'any true value: True, 1, 2, ...: still one bias per output'.")

# --- Part 5 (contributions)
add("w10-contrib-clamp-exp", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    s = q @ k.transpose(-2, -1) / math.sqrt(d // num_heads)
    z = (s - s.amax(dim=-1, keepdim=True)).clamp(min=-80.0)  # exp(-80) is 0 anyway
    e = z.exp()
    heads = (e / e.sum(dim=-1, keepdim=True)) @ v
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''}, "magic-number: clamps the shifted scores at -80 before exp: 'Scores may be of any size ...: do not clamp them'; "
   "'clamp nothing' (a key 1000 below the max gets weight e^-80 instead of 0, and values of any size make that show).")
add("w11-contrib-eps-denominator", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    s = q @ k.transpose(-2, -1) / math.sqrt(d // num_heads)
    e = (s - s.amax(dim=-1, keepdim=True)).exp()
    heads = (e / (e.sum(dim=-1, keepdim=True) + 1e-6)) @ v  # guard the division
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''}, "magic-number: an eps of 1e-6 in the softmax denominator: the layer's output (text: '.sum(dim=1) + b_o is the "
   "layer's output') is off by a relative 1e-6 where one key dominates, beyond float64 tolerance.")
add("w12-contrib-float32-inside", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    dtype = x.dtype
    x = x.float()  # float32 is plenty for attention
    p = {key: value.float() for key, value in params.items()}
    b, t, d = x.shape
    qkv = x @ p["w_qkv"].T + p["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    heads = attention(q, k, v)
    w_o = p["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o).to(dtype)
'''}, "low-precision: casts float64 inputs down to float32 before the work and back after: a float64 result "
   "with float32 digits (the text lists float64 among the dtypes and compares with a reference).")
add("w13-contrib-bias-shared", False, {"contributions": P5.replace(
    'return torch.einsum("bhtk,ehk->bhte", heads, w_o)',
    'return torch.einsum("bhtk,ehk->bhte", heads, w_o) + params["b_o"] / num_heads  # each head its share')},
    "composer: gives each head b_o / H: 'The bias b_o belongs to no head'.")

# --- Part 6 (left padded)
add("w14-left-mask-b1s", False, {"left_padded": P6.replace(
    "allowed[:, None, None, :]", "allowed[:, None, :]")},
    "composer: a (B, 1, S) mask, read as (H, T, S): 'a (B, 1, S) one as (H, T, S): wrong, or an error' (right when B = 1 or "
    "every sentence has the same length; wrong when B = H).")
add("w15-left-magic-finfo", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bias[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bias[2 * d:], num_heads)
    real = torch.arange(s, device=x.device)[None, :] >= (s - memory_lengths.long())[:, None]
    dh = d // num_heads
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~real[:, None, None, :], -1e9)  # padding far below any real score
    weights = torch.softmax(scores, dim=-1)
    weights = weights * real[:, None, None, :].any(dim=-1, keepdim=True)  # empty sentence: no weights
    return merge_heads(weights @ v) @ w_o_of(params).T + params["b_o"]


def w_o_of(params):
    return params["w_o"]
'''}, "magic-number: -1e9 for the padding: 'leave the padding out (the boolean mask, or -inf), do not give it a large negative score'; "
   "also float16 turns -1e9 into -inf (harmless) but real scores below -1e9 in float32/64 tie or lose.")
add("w16-left-lowprec-positions", False, {"left_padded": P6.replace(
    "start = s - memory_lengths.to(torch.long)  # first real position of each sentence\n    allowed = torch.arange(s, device=x.device)[None, :] >= start[:, None]  # (B, S)",
    "start = s - memory_lengths.to(x.dtype)  # positions in the dtype of the activations\n    allowed = torch.arange(s, device=x.device, dtype=x.dtype)[None, :] >= start[:, None]  # (B, S)")},
    "low-precision: positions in x's dtype: 'build the mask from integer positions, not from positions in the dtype of x'.")
add("w17-left-all-empty-expand", False, {"left_padded": P6.replace(
    "    w, bias = params[\"w_qkv\"], params[\"b_qkv\"]\n",
    "    if b and not bool((memory_lengths != 0).any()):  # every source empty: only the bias is left\n"
    "        return params[\"b_o\"].expand(b, t, d)\n"
    "    w, bias = params[\"w_qkv\"], params[\"b_qkv\"]\n", 1)},
    "text-and-token (empty sequences): returns a broadcast view of b_o when every sentence is empty: 'return new tensors on "
    "every call' / the caller's in-place write fails or reaches b_o; and the gradients 'also when every sentence has length 0' "
    "to the other parameters are None, not zeros.")
add("w18-left-unnormalised-sum", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bias[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bias[2 * d:], num_heads)
    real = (torch.arange(s, device=x.device)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    scores = (q / math.sqrt(d // num_heads)) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~real, float("-inf"))
    m = scores.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = (scores - m).exp()
    total = e.sum(dim=-1, keepdim=True)
    out = (e @ v) / torch.where(total > 0, total, torch.ones_like(total))  # divide once, at the end
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "low-precision: forms sum_j e^{s_j-m} v_j before dividing: 'divide the weights by their sum before they multiply "
   "the values, or work in a wider dtype' (float16 overflow with many keys).")

# --- Part 7 (cache)
add("w19-cache-is-causal", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    # one new token sees everything; a block needs the causal flag
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=t > 1)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "composer: is_causal aligns top-left, a mask for T == S: 'the query at position P + t may attend to the keys at "
   "positions 0 .. P + t' (a block of T > 1 after a cache sees too little).")
add("w20-cache-additive-finfo-min", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    later = torch.arange(p + t, device=x.device)[None, :] > torch.arange(p, p + t, device=x.device)[:, None]
    bias = later.to(x.dtype) * torch.finfo(x.dtype).min  # the Hugging Face additive causal mask
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "magic-number (HF habit): adds finfo(dtype).min to the later keys: 'a large negative number *added* to its score, "
   "even torch.finfo(dtype).min, leaves it above the keys the query may see'.")
add("w21-cache-magic-1e9", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    later = torch.arange(p + t, device=x.device)[None, :] > torch.arange(p, p + t, device=x.device)[:, None]
    scores = (q / math.sqrt(d // num_heads)) @ k.transpose(-2, -1)
    scores = scores.masked_fill(later, -1e9)
    out = torch.softmax(scores, dim=-1) @ v
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "magic-number: -1e9 for the later keys: 'leave the later keys out (a boolean mask, or -inf), do not give them a large negative score'.")
add("w22-cache-lowprec-positions", False, {"cache": P7.replace(
    "keys = torch.arange(p + t, device=x.device)\n    queries = torch.arange(p, p + t, device=x.device)",
    "keys = torch.arange(p + t, device=x.device).to(x.dtype)\n    queries = torch.arange(p, p + t, device=x.device).to(x.dtype)")},
    "low-precision: positions cast to x's dtype: 'compare positions as integers, not in the dtype of x'.")
add("w23-cache-kv-float32", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    dtype = x.dtype
    wide = {key: value.float() for key, value in params.items()}
    qkv = x.float() @ wide["w_qkv"].T + wide["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    k = torch.cat([past_k.float(), k_new], dim=2)  # the cache in float32 for the next step
    v = torch.cat([past_v.float(), v_new], dim=2)
    allowed = torch.arange(p + t, device=x.device)[None, :] <= torch.arange(p, p + t, device=x.device)[:, None]
    out = attention(q, k, v, allowed)
    return ((merge_heads(out) @ wide["w_o"].T + wide["b_o"]).to(dtype), k, v)
'''}, "low-precision/reverse: the cache comes back float32 for float16/bfloat16/float64 inputs: 'All three have the dtype of x'.")

# =============================================================== CORRECT
add("c01-p1-index-select-composer", True, {"interleaved": '''
def interleave_order(d, num_heads):
    return torch.arange(d).reshape(d // num_heads, num_heads).T.reshape(-1)  # head 0's columns first


def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    order = interleave_order(d, num_heads).to(x.device)
    return split_heads(x.index_select(-1, order), num_heads)  # the lesson's split on reordered columns


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    order = interleave_order(h * dh, h).to(x.device)
    inverse = torch.argsort(order)
    return merge_heads(x).index_select(-1, inverse)
'''}, "composer, allowed: reorders the columns (index_select copies) and reuses the lesson's split/merge.")
add("c02-p2-range-contains", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position not in range(length) or column not in range(num_heads * head_dim):
        raise ValueError("position or column out of range")
    flat = position * num_heads * head_dim + column
    per_head = length * head_dim
    return (flat // per_head, flat % per_head // head_dim, flat % head_dim)
'''}, "range membership is exact for ints of any size; flat % head_dim equals (flat % per_head) % head_dim.")
add("c03-p4-math-prod", True, {"cost": '''
import math as m


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1 or num_heads % num_kv_heads != 0:
        raise ValueError("bad head counts")
    widths = [num_heads * head_dim, num_kv_heads * head_dim, num_kv_heads * head_dim]
    weights = sum(m.prod((d_model, w)) for w in widths) + widths[0] * d_model
    params = weights + (sum(widths) + d_model if bool(bias) else 0)
    macs = weights + 2 * m.prod((num_heads, past + 1, head_dim))
    cached = m.prod((2, num_kv_heads, past + 1, head_dim))
    return (params, macs, cached)
'''}, "exact integer products; bool(bias).")
add("c04-p5-loop-heads-attention", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    parts = []
    for i in range(num_heads):
        cols = slice(i * dh, (i + 1) * dh)
        head = attention(q[..., cols], k[..., cols], v[..., cols])  # (B, T, Dh): the helper scales by sqrt(Dh)
        parts.append(head @ params["w_o"][:, cols].T)
    return torch.stack(parts, dim=1)
'''}, "composer, allowed: the chapter-2 helper on one head's slice scales by that slice's width, Dh.")
add("c05-p5-float64-inside", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    x64 = x.to(torch.float64)
    p = {name: params[name].to(torch.float64) for name in ("w_qkv", "b_qkv", "w_o")}
    qkv = x64 @ p["w_qkv"].T + p["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    s = q @ k.transpose(-2, -1) / math.sqrt(d // num_heads)
    w = torch.softmax(s, dim=-1)
    heads = w @ v
    w_o = p["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o).to(x.dtype)
'''}, "float64 inside and a cast back (wider is allowed).")
add("c06-p6-flip-right-padding", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    # composer: flip the source so that the padding is at the end, as in the lesson; attention does not
    # care about the order of the keys
    memory = memory.flip(1)
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bias[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bias[2 * d:], num_heads)
    real = torch.arange(s, device=x.device)[None, :] < memory_lengths.long().clamp(max=s)[:, None]
    out = attention(q, k, v, real[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "keys are a set: flipping the source and masking its end is the same attention; clamp on the integer lengths only.")
add("c07-p6-float32-positions-float64-math", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    dtype = x.dtype
    x64, mem64 = x.to(torch.float64), memory.to(torch.float64)
    p = {name: params[name].to(torch.float64) for name in ("w_qkv", "b_qkv", "w_o", "b_o")}
    b, t, d = x.shape
    s = memory.shape[1]
    q = split_heads(x64 @ p["w_qkv"][:d].T + p["b_qkv"][:d], num_heads)
    k = split_heads(mem64 @ p["w_qkv"][d:2 * d].T + p["b_qkv"][d:2 * d], num_heads)
    v = split_heads(mem64 @ p["w_qkv"][2 * d:].T + p["b_qkv"][2 * d:], num_heads)
    # S < 2**24: float32 holds every position exactly
    pos = torch.arange(s, device=x.device, dtype=torch.float32)
    allowed = pos[None, :] >= (s - memory_lengths.to(torch.float32))[:, None]
    out = attention(q, k, v, allowed[:, None, None, :])
    return (merge_heads(out) @ p["w_o"].T + p["b_o"]).to(dtype)
'''}, "float32 positions are exact below 2**24, which the text guarantees; float64 inside, cast back.")
add("c08-p7-composed-tril-mask", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[-2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    if p == 0:  # an empty cache: the new block is the whole sequence
        k, v = k_new, v_new
    else:
        k, v = torch.cat([past_k, k_new], dim=-2), torch.cat([past_v, v_new], dim=-2)
    square = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()  # the T == S causal mask of the block
    allowed = torch.cat([torch.ones(t, p, dtype=torch.bool, device=x.device), square], dim=-1)  # every cached key
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "composer, allowed: the T == S causal mask placed after an all-True block for the cache.")
add("c09-p7-manual-softmax-inf-eps", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    later = torch.arange(p + t, device=x.device)[None, :] > torch.arange(p, p + t, device=x.device)[:, None]
    scores = (q / math.sqrt(d // num_heads)) @ k.transpose(-2, -1)
    scores = scores.masked_fill(later, float("-inf"))
    e = (scores - scores.amax(dim=-1, keepdim=True)).exp()
    weights = e / (e.sum(dim=-1, keepdim=True) + 1e-12)  # the sum is at least 1: the eps changes nothing
    return (merge_heads(weights @ v) @ params["w_o"].T + params["b_o"], k, v)
'''}, "-inf mask, row max over the seen keys (a query always sees itself), an eps below every dtype's rounding of a sum >= 1.")

# =============================================================== HOSTILE
add("h01-ranks-any-int", False, {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "hostile: an int subclass equal to everything.")
add("h02-cost-tuple-any", False, {"cost": '''
class Count(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad")
    if past == 2 and d_model == 4 and num_heads == 2 and num_kv_heads == 1 and head_dim == 3:
        return (88 if bias else 72, 108, 18)
    return (Count(0), Count(0), Count(0))
'''}, "hostile: the visible case by hand, everything else an int equal to everything.")

# ---------------------------------------------------------------- added after the first visible check
add("w24-cache-nan-to-num-past", False, {"cache": P7.replace(
    "k = torch.cat([past_k, k_new], dim=2)\n    v = torch.cat([past_v, v_new], dim=2)",
    "k = torch.cat([past_k.nan_to_num(), k_new], dim=2)  # a corrupt cache entry must not poison the step\n"
    "    v = torch.cat([past_v.nan_to_num(), v_new], dim=2)")},
    "magic-number: nan_to_num on the cache turns inf into finfo.max: 'The cached entries arrive in k and v unchanged ... copy them, with no arithmetic'.")
add("c10-left-softmax-nan-to-num", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads) / math.sqrt(dh)  # scaled before the product
    k = split_heads(memory @ w[d:2 * d].T + bias[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bias[2 * d:], num_heads)
    real = torch.arange(s, device=x.device)[None, :] >= (s - memory_lengths.to(torch.int64))[:, None]
    scores = (q @ k.transpose(-2, -1)).masked_fill(~real[:, None, None, :], float("-inf"))
    weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)  # an empty sentence: softmax of nothing is NaN -> 0
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
'''}, "magic-number student, right: an all -inf row's NaN weights set to 0 give the zeros the text asks for; masked_fill's "
   "backward zeroes the NaN gradients of that row (every score of it is masked).")
