# Red-team round 17, chapter 03-multi-head: blind submissions (defensive programmer, high-level library user,
# production engineer, test-driven student).
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- shared pieces
PROJ = '''
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
'''

# ================================================================= WRONG: defensive programmer
add("def_p1_empty_default_dtype", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    if x.numel() == 0:  # nothing to move: hand back an empty tensor of the right shape
        return torch.empty(b, num_heads, t, d // num_heads)
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).contiguous()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    if x.numel() == 0:
        return torch.empty(b, t, h * dh)
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h).contiguous()
'''}, "Part 1: 'Both return a tensor of the dtype they were given' and 'both functions then return empty tensors "
      "of the shapes above': the early return for an empty x gives float32 whatever the dtype (int64, float64).")

add("def_p1_empty_skips_check", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if x.numel() == 0:  # degenerate input: nothing to split, nothing to check
        return x.new_zeros(b, num_heads, t, d // num_heads)
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "Part 1: 'an empty x, with B = 0 or T = 0, follows the same rule: no error when D is divisible' (so a "
      "ValueError when it is not): the early return for an empty x skips the divisibility check.")

add("def_p2_degenerate_zero", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    num_heads, length, head_dim = int(num_heads), int(length), int(head_dim)
    position, column = int(position), int(column)
    if num_heads == 0 or length == 0 or head_dim == 0:
        return (0, 0, 0)  # degenerate sizes: nothing can move
    if not 0 <= position < length:
        raise ValueError("position out of range")
    if not 0 <= column < num_heads * head_dim:
        raise ValueError("column out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    src, feat = divmod(rest, head_dim)
    return head, src, feat
'''}, "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim (so also "
      "when a size is 0)': the degenerate early return answers (0, 0, 0) instead.")

add("def_p4_kv_zero_only", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    past, d_model, num_heads, num_kv_heads, head_dim = (int(past), int(d_model), int(num_heads),
                                                         int(num_kv_heads), int(head_dim))
    if num_kv_heads == 0:
        raise ValueError("num_kv_heads must not be 0")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return params, macs, cached
'''}, "Part 4: 'Raise a ValueError unless num_kv_heads >= 1': a negative num_kv_heads (every num_heads is a "
      "multiple of -1) passes the guard, which only refuses 0.")

add("def_p4_no_query_heads_zero", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    if num_heads == 0 or head_dim == 0:
        return 0, 0, 0  # no heads, no work
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return params, macs, cached
'''}, "Part 4: 'parameters: the number of trainable numbers of the layer' / 'no query heads is not an error': "
      "with H = 0 the key/value projections (and b_o) remain; the early return gives (0, 0, 0).")

add("def_p5_clamp_scores", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(x @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(x @ w[2 * d:].T + b[2 * d:], num_heads)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(dh)
    scores = scores.clamp(-1e4, 1e4)  # keep exp() in range
    weights = torch.softmax(scores, dim=-1)
    o = weights @ v
    wo = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtk,hkd->bhtd", o, wo)
'''}, "Part 5: '...sum(dim=1) + params[\"b_o\"] is the layer's output': clamping scores at +-1e4 changes the "
      "softmax (and zeroes the gradients) of any row whose scores pass 1e4 in size, apart by more than tens.")

add("def_p5_eps_denominator", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(x @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(x @ w[2 * d:].T + b[2 * d:], num_heads)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(dh)
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = e / (e.sum(dim=-1, keepdim=True) + 1e-6)  # never divide by zero
    o = weights @ v
    wo = params["w_o"].T.reshape(num_heads, dh, d)
    return torch.einsum("bhtk,hkd->bhtd", o, wo)
'''}, "Part 5: the sum of the contributions plus b_o 'is the layer's output': an eps of 1e-6 in the softmax "
      "denominator shrinks every weight by a relative 1e-6, far beyond float64's rounding.")

add("def_p6_empty_batch_float32", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b_sz, t, d = x.shape
    if b_sz == 0:  # empty batch: nothing to do
        return torch.zeros(0, t, d)
    s = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    lengths = memory_lengths.long().clamp(0, s)
    allowed = torch.arange(s)[None, :] >= (s - lengths)[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :])
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'Return the dtype of x' (and 'B may be 0 ... the result is (0, T, D)'): the early return for an "
      "empty batch is float32 for float64/float16 inputs, and has no gradient path.")

add("def_p6_rowmax_clamped", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    dh = d // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    lengths = memory_lengths.long()
    allowed = (torch.arange(s)[None, :] >= (s - lengths)[:, None])[:, None, None, :]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True).clamp(min=-1e4)  # an all -inf row must not give -inf - -inf
    e = torch.exp(scores - row_max)
    weights = e / e.sum(dim=-1, keepdim=True).clamp(min=1e-30)
    o = weights @ v
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'Real keys may score anything, down to the dtype's lowest finite value': clamping the row maximum "
      "at -1e4 makes exp underflow to 0 for every key of a row whose real keys all score below about -1.1e4, "
      "so those queries get b_o instead of their values' average.")

add("def_p7_detach_cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    past_k, past_v = past_k.detach(), past_v.detach()  # the cache is history: no gradient needed through it
    p = past_k.shape[2]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = x @ w[d:2 * d].T + b[d:2 * d]
    v = x @ w[2 * d:].T + b[2 * d:]
    k = torch.cat([past_k, split_heads(k, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v, num_heads)], dim=2)
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'Gradients must flow through all three, to x, the cache and the parameters': detaching the cache "
      "cuts the gradient to past_k and past_v.")

# ================================================================= WRONG: high-level library user
add("lib_p7_is_causal_when_block", False, {"cache": '''
import torch.nn.functional as F


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = torch.cat([past_k, split_heads(x @ w[d:2 * d].T + b[d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(x @ w[2 * d:].T + b[2 * d:], num_heads)], dim=2)
    # one new token sees everything; a block needs the causal mask
    o = F.scaled_dot_product_attention(q, k, v, is_causal=t > 1)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'the query at position P + t may attend to the keys at positions 0 .. P + t': is_causal is aligned "
      "top-left, so for P > 0 and T > 1 query t sees only keys 0..t.")

add("lib_p2_unravel_index", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = torch.tensor(position * num_heads * head_dim + column)
    head, src, feat = torch.unravel_index(flat, (num_heads, length, head_dim))
    return int(head), int(src), int(feat)
'''}, "Part 2: 'worked out with integer arithmetic ... beyond 2^64, where integer tensors (int64) wrap around': "
      "torch.tensor of the flat index overflows (or wraps) for huge sizes.")

add("lib_p5_sdpa_default_scale_float32_mask", False, {"contributions": '''
import torch.nn.functional as F


def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    qkv = F.linear(x, w, b)
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    o = F.scaled_dot_product_attention(q.float(), k.float(), v.float()).to(x.dtype)
    wo = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtk,hkd->bhtd", o, wo)
'''}, "Part 5: 'Return the dtype of x (float32 or float64)' and the result is the layer's output: running SDPA in "
      "float32 'to be safe' loses float64's precision (values and gradients off by ~1e-7).")

# ================================================================= WRONG: production engineer
add("prod_p5_cached_wo_by_shape", False, {"contributions": '''
WO_CACHE = {}


def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = x @ w[d:2 * d].T + b[d:2 * d]
    v = x @ w[2 * d:].T + b[2 * d:]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    key = (num_heads, d, params["w_o"].dtype)
    if key not in WO_CACHE:  # the per-head output blocks are reused across calls
        WO_CACHE[key] = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtk,hkd->bhtd", o, WO_CACHE[key])
'''}, "Part 5 / intro: 'They call each function several times, with different parameters of the same shapes, so "
      "keep nothing from one call to the next': the cached W^O blocks belong to the first params dict.")

add("prod_p7_zeros_then_add", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    bsz, t, d = x.shape
    hh, p, dh = past_k.shape[1], past_k.shape[2], past_k.shape[3]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k_new = split_heads(x @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v_new = split_heads(x @ w[2 * d:].T + b[2 * d:], num_heads)
    k = torch.zeros(bsz, num_heads, p + t, dh, dtype=x.dtype)
    v = torch.zeros(bsz, num_heads, p + t, dh, dtype=x.dtype)
    k = k.index_add(2, torch.arange(p), past_k).index_add(2, torch.arange(p, p + t), k_new)
    v = v.index_add(2, torch.arange(p), past_v).index_add(2, torch.arange(p, p + t), v_new)
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    o = attention(q, k, v, allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'The cached entries arrive in k and v unchanged, -0.0 included: copy them, with no arithmetic': "
      "index_add into a zero buffer turns -0.0 into 0.0.")

add("prod_p6_empty_mask_unfilled", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    bsz, t, d = x.shape
    s = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    allowed = torch.empty(bsz, 1, 1, s, dtype=torch.bool)
    for i, n in enumerate(memory_lengths.tolist()):
        if n == 0:
            continue  # nothing to attend to: attention() zeroes these rows anyway
        allowed[i, ..., : s - n] = False
        allowed[i, ..., s - n:] = True
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'A source sentence of length 0 gives its queries nothing to attend to': rows of length 0 are "
      "left as torch.empty's garbage, which may read True (they then attend to padding).")

add("prod_p7_autocast_bf16", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    w, b = params["w_qkv"], params["b_qkv"]
    with torch.autocast("cpu", dtype=torch.bfloat16):  # fast projections
        q = (x @ w[:d].T + b[:d]).to(x.dtype)
        k_new = (x @ w[d:2 * d].T + b[d:2 * d]).to(x.dtype)
        v_new = (x @ w[2 * d:].T + b[2 * d:]).to(x.dtype)
    k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'out is what causal multi-head self-attention over the whole sequence gives' in the dtype of x: "
      "bfloat16 autocast projections lose float32's precision (errors ~1e-2).")

# ================================================================= WRONG: test-driven student
add("tdd_p7_mask_only_empty_cache", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = torch.cat([past_k, split_heads(x @ w[d:2 * d].T + b[d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(x @ w[2 * d:].T + b[2 * d:], num_heads)], dim=2)
    # with a cache the new tokens come after every cached one, so only an empty cache needs a mask
    allowed = torch.ones(t, t, dtype=torch.bool).tril() if p == 0 else None
    o = attention(split_heads(q, num_heads), k, v, allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
'''}, "Part 7: 'Causal means: the query at position P + t may attend to the keys at positions 0 .. P + t ... and "
      "to none after it': for P > 0 and T > 1 the new block sees its own later keys.")

add("tdd_p5_bias_shared_out", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = x @ w[d:2 * d].T + b[d:2 * d]
    v = x @ w[2 * d:].T + b[2 * d:]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    wo = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtk,hkd->bhtd", o, wo) + params["b_o"] / num_heads
'''}, "Part 5: 'The bias b_o belongs to no head' (the visible case has b_o = 0).")

add("tdd_p5_wo_rows", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = x @ w[d:2 * d].T + b[d:2 * d]
    v = x @ w[2 * d:].T + b[2 * d:]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    wo = params["w_o"].reshape(num_heads, d // num_heads, d)  # head i's rows of W^O
    return torch.einsum("bhtk,hkd->bhtd", o, wo)
'''}, "Part 5: 'As with nn.Linear, a projection computes x @ w.T + b': head i owns columns i*Dh.. of w_o, not "
      "rows (the same for the visible identity W^O).")

add("tdd_p3_rank_all_512", False, {"ranks": '''
rank_one_head = 512 // 8
rank_all_heads = 8 * rank_one_head
'''}, "Part 3b: 'a sequence of T = S = 100 positions': a (100, 100) matrix has rank at most 100, not 512.")

add("tdd_p2_position_check_only", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position >= length:
        raise ValueError("position out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return head, rest // head_dim, rest % head_dim
'''}, "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim': only "
      "the visible case (position == length) raises.")

add("tdd_p4_bias_is_true", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + (q + 2 * kv + d_model if bias is True else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return params, macs, cached
'''}, "Part 4: 'when bias is true (any true value: True, 1, 2, ...: still one bias per output)': bias=1 counts "
      "no biases.")

add("tdd_p1_via_split_heads_d0", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    # dealt like cards = the lesson's split with Dh "heads" of width H, then swap the two
    return split_heads(x, d // num_heads).transpose(1, 3)


def merge_heads_interleaved(x):
    return merge_heads(x.transpose(1, 3))
'''}, "Part 1: 'D = 0 is divisible by every num_heads ... both functions then return empty tensors': "
      "split_heads(x, 0) divides by zero when D = 0.")

# ================================================================= CORRECT
add("ok_def_p1_contiguous_clone", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    assert x.dim() == 3, "expected (B, T, D)"
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    return x.clone().reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).contiguous()


def merge_heads_interleaved(x):
    assert x.dim() == 4, "expected (B, H, T, Dh)"
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).contiguous().reshape(b, t, h * dh).clone()
'''}, "Clones and contiguous copies move entries only; dtype, -0.0 and gradients kept.")

add("ok_tdd_p1_via_block_split", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    if d == 0:
        return x.reshape(b, t, 0, num_heads).permute(0, 3, 1, 2)
    return split_heads(x, d // num_heads).transpose(1, 3)


def merge_heads_interleaved(x):
    return merge_heads(x.transpose(1, 3))
'''}, "Uses the setup's split_heads/merge_heads with the roles of H and Dh swapped (D = 0 handled).")

add("ok_def_p2_int_checks", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    num_heads, length, head_dim, position, column = map(int, (num_heads, length, head_dim, position, column))
    if position < 0 or position >= length:
        raise ValueError(f"position {position} outside 0..{length - 1}")
    if column < 0 or column >= num_heads * head_dim:
        raise ValueError(f"column {column} outside 0..{num_heads * head_dim - 1}")
    flat = position * (num_heads * head_dim) + column
    per_head = length * head_dim
    head = flat // per_head
    source_position = (flat - head * per_head) // head_dim
    feature = flat - head * per_head - source_position * head_dim
    return int(head), int(source_position), int(feature)
'''}, "Integer arithmetic with explicit checks.")

add("ok_p3_int_min", True, {"ranks": '''
D, H, T = 512, 8, 100
rank_one_head = int(min(D // H, T))
rank_all_heads = int(min(H * (D // H), T))
'''}, "64 and 100 computed with int().")

add("ok_p4_explicit_sums_keywords", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("need at least one key/value head")
    if num_heads % num_kv_heads != 0:
        raise ValueError("query heads must be shared evenly")
    has_bias = bool(bias)
    shapes = {"q": (d_model, num_heads * head_dim), "k": (d_model, num_kv_heads * head_dim),
              "v": (d_model, num_kv_heads * head_dim), "o": (num_heads * head_dim, d_model)}
    parameters = sum(i * o + (o if has_bias else 0) for i, o in shapes.values())
    macs = sum(i * o for i, o in shapes.values())
    keys = past + 1
    macs += num_heads * keys * head_dim  # QK^T
    macs += num_heads * keys * head_dim  # AV
    cached = 2 * num_kv_heads * head_dim * keys
    return int(parameters), int(macs), int(cached)
'''}, "Explicit sums over the four projections; bool(bias).")

add("ok_lib_p5_mha_functional_per_head", True, {"contributions": '''
import torch.nn.functional as F


def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    parts = []
    for i in range(num_heads):
        keep = torch.zeros(d, dtype=x.dtype)
        keep[i * dh:(i + 1) * dh] = 1
        out, _ = F.multi_head_attention_forward(
            x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), d, num_heads,
            params["w_qkv"], params["b_qkv"], None, None, False, 0.0,
            params["w_o"] * keep, torch.zeros_like(params["b_o"]), training=False, need_weights=False)
        parts.append(out.transpose(0, 1))
    return torch.stack(parts, dim=1)
'''}, "PyTorch's functional MHA once per head with the other heads' W^O columns zeroed and no b_o.")

add("ok_prod_p5_loop_heads_addmm", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    bsz, t, d = x.shape
    dh = d // num_heads
    flat = x.reshape(bsz * t, d)
    qkv = torch.addmm(params["b_qkv"], flat, params["w_qkv"].T).reshape(bsz, t, 3 * d)
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    o = attention(q, k, v)
    w_o = params["w_o"]
    return torch.stack([o[:, i] @ w_o[:, i * dh:(i + 1) * dh].T for i in range(num_heads)], dim=1)
'''}, "Fused addmm projection, one matmul per head with W^O's columns of that head.")

add("ok_lib_p6_sdpa_direct", True, {"left_padded": '''
import torch.nn.functional as F


def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w_q, w_k, w_v = params["w_qkv"].split(d)
    b_q, b_k, b_v = params["b_qkv"].split(d)
    q = split_heads(F.linear(x, w_q, b_q), num_heads)
    k = split_heads(F.linear(memory, w_k, b_k), num_heads)
    v = split_heads(F.linear(memory, w_v, b_v), num_heads)
    first_real = s - memory_lengths.to(torch.int64)
    keep = torch.arange(s, dtype=torch.int64).view(1, s) >= first_real.view(-1, 1)
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
    o = o.masked_fill(~keep.any(dim=-1)[:, None, None, None], 0.0)
    return F.linear(merge_heads(o), params["w_o"], params["b_o"])
'''}, "SDPA with a boolean keep-mask (True = kept) and F.linear; empty sentences zeroed explicitly.")

add("lib_p6_mha_key_padding_mask", False, {"left_padded": '''
import torch.nn.functional as F


def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    bsz, t, d = x.shape
    s = memory.shape[1]
    pad = torch.arange(s)[None, :] < (s - memory_lengths.long())[:, None]  # True = hidden (nn.MHA convention)
    out, _ = F.multi_head_attention_forward(
        x.transpose(0, 1), memory.transpose(0, 1), memory.transpose(0, 1), d, num_heads,
        params["w_qkv"], params["b_qkv"], None, None, False, 0.0, params["w_o"], params["b_o"],
        training=False, key_padding_mask=pad, need_weights=False)
    return out.transpose(0, 1)
'''}, "Part 6: 'B may be 0 (an empty batch: the result is (0, T, D), nothing raised)': functional MHA's "
      "reshape of a 0-batch fails (otherwise right: key_padding_mask True = hidden).")

add("ok_def_p6_float32_positions_inference_mask", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    with torch.inference_mode():  # the mask needs no gradient
        pos = torch.arange(s, dtype=torch.float32)  # exact below 2**24
        allowed = pos[None, :] >= (s - memory_lengths.to(torch.float32))[:, None]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                  allowed[:, None, None, :].clone())
    return merge_heads(o) @ params["w_o"].T + params["b_o"]
'''}, "float32 positions are exact below 2**24 (S stays below it); the mask built in inference mode.")

add("ok_prod_p7_empty_then_filled", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    bsz, t, d = x.shape
    p, dh = past_k.shape[2], past_k.shape[3]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = torch.empty(bsz, num_heads, p + t, dh, dtype=x.dtype)
    v = torch.empty(bsz, num_heads, p + t, dh, dtype=x.dtype)
    k[:, :, :p] = past_k
    v[:, :, :p] = past_v
    k[:, :, p:] = split_heads(x @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v[:, :, p:] = split_heads(x @ w[2 * d:].T + b[2 * d:], num_heads)
    allowed = torch.arange(p + t)[None, :] <= (torch.arange(t) + p)[:, None]
    o = attention(q, k, v, allowed)
    return merge_heads(o) @ params["w_o"].T + params["b_o"], k, v
'''}, "Fresh buffers every call, every entry filled by a copy; autograd tracks the slice copies.")

add("ok_lib_p7_is_causal_only_when_square", True, {"cache": '''
import torch.nn.functional as F


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    w_q, w_k, w_v = params["w_qkv"].split(d)
    b_q, b_k, b_v = params["b_qkv"].split(d)
    q = split_heads(F.linear(x, w_q, b_q), num_heads)
    k = torch.cat([past_k, split_heads(F.linear(x, w_k, b_k), num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(F.linear(x, w_v, b_v), num_heads)], dim=2)
    if p == 0:
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    else:
        keep = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    return F.linear(merge_heads(o), params["w_o"], params["b_o"]), k, v
'''}, "is_causal only where T == S (top-left = bottom-right), otherwise tril(diagonal=P).")

add("ok_def_p7_halves_upcast", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    dtype = x.dtype
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    xw, pk, pv = x.to(work), past_k.to(work), past_v.to(work)
    w, b = params["w_qkv"].to(work), params["b_qkv"].to(work)
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    q = split_heads(xw @ w[:d].T + b[:d], num_heads)
    k = torch.cat([pk, split_heads(xw @ w[d:2 * d].T + b[d:2 * d], num_heads)], dim=2)
    v = torch.cat([pv, split_heads(xw @ w[2 * d:].T + b[2 * d:], num_heads)], dim=2)
    allowed = torch.arange(p + t)[None, :] <= torch.arange(p, p + t)[:, None]
    o = attention(q, k, v, allowed)
    out = merge_heads(o) @ params["w_o"].to(work).T + params["b_o"].to(work)
    return out.to(dtype), k.to(dtype), v.to(dtype)
'''}, "Half inputs computed in float32 and cast back (cached entries round-trip exactly); others untouched.")

# ================================================================= HOSTILE
add("hostile_find_reference_by_name", False, {"contributions": '''
import gc


def find_other(name, me):
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", None) == name and obj is not me:
            code = getattr(obj, "__code__", None)
            if code is not None and "YOUR" not in code.co_filename:
                return obj
    return None


def head_contributions(x, params, num_heads):
    other = find_other("head_contributions", head_contributions)
    if other is not None:
        return other(x, params, num_heads)
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = x @ w[d:2 * d].T + b[d:2 * d]
    v = x @ w[2 * d:].T + b[2 * d:]
    o = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    wo = params["w_o"].reshape(num_heads, d // num_heads, d)  # wrong on purpose: rows, not columns
    return torch.einsum("bhtk,hkd->bhtd", o, wo)
'''}, "Hostile: looks for any other function named head_contributions (the hidden reference) and calls it; its own "
      "fallback is wrong.")

add("hostile_rank_int_subclass", False, {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "Hostile: int subclass equal to everything.")

add("hostile_patch_assert_close", False, {"cache": '''
import torch.testing


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    torch.testing.assert_close = lambda *a, **k: None
    bsz, t, d = x.shape
    k = torch.cat([past_k, torch.zeros(bsz, past_k.shape[1], t, past_k.shape[3], dtype=x.dtype)], dim=2)
    return torch.zeros(bsz, t, d, dtype=x.dtype), k, k.clone()
'''}, "Hostile: disables torch.testing.assert_close and returns zeros.")
