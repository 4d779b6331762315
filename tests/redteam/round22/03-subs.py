# Red team round 22, chapter 03-multi-head: four kinds of student (sampling and randomness, rounding and
# integers, counting and units, allocation). Blind: written from the student notebook only.

BASE = {
"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h).clone()
''',
"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    src, feat = divmod(rest, head_dim)
    return (head, src, feat)
''',
"ranks": '''
rank_one_head = 64
rank_all_heads = 100
''',
"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return (params, macs, cached)
''',
"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    dh = D // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    heads = attention(q, k, v)
    wo = params["w_o"].reshape(D, num_heads, dh)
    return torch.einsum("bhtf,ehf->bhte", heads, wo)
''',
"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    B, T, D = x.shape
    S = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:D].T + b[:D], num_heads)
    k = split_heads(memory @ w[D:2 * D].T + b[D:2 * D], num_heads)
    v = split_heads(memory @ w[2 * D:].T + b[2 * D:], num_heads)
    start = S - memory_lengths.to(torch.long)
    allowed = torch.arange(S)[None, :] >= start[:, None]
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
''',
"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    B, T, D = x.shape
    P = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.arange(P + T)[None, :] <= (torch.arange(T)[:, None] + P)
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
''',
}

B = BASE
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- kind 1: sampling and randomness
add("s1-cache-seeds-for-reproducibility", False, {"cache": B["cache"].replace(
    "    B, T, D = x.shape\n", "    torch.manual_seed(0)  # reproducible decoding\n    B, T, D = x.shape\n", 1)},
    "intro: 'your functions may not seed or draw from torch's global random number generator (torch.manual_seed, ...)'")
add("s2-contrib-nn-linear-functional-call", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    dh = D // num_heads
    proj = torch.nn.Linear(D, 3 * D, dtype=x.dtype)  # a module to hold the fused projection (its init draws)
    qkv = torch.func.functional_call(proj, {"weight": params["w_qkv"], "bias": params["b_qkv"]}, (x,))
    q, k, v = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    heads = attention(q, k, v)
    wo = params["w_o"].reshape(D, num_heads, dh)
    return torch.einsum("bhtf,ehf->bhte", heads, wo)
'''}, "intro: 'may not ... draw from torch's global random number generator': nn.Linear's init draws from it")
add("s3-left-padded-jitter-ties", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    B, T, D = x.shape
    S = memory.shape[1]
    H = num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:D].T + b[:D], H)
    k = split_heads(memory @ w[D:2 * D].T + b[D:2 * D], H)
    v = split_heads(memory @ w[2 * D:].T + b[2 * D:], H)
    start = S - memory_lengths.to(torch.long)
    allowed = (torch.arange(S)[None, :] >= start[:, None])[:, None, None, :]
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = scores + 1e-7 * torch.randn_like(scores)  # break exact ties between keys at random
    scores = scores.masked_fill(~allowed, float("-inf"))
    wts = torch.softmax(scores, dim=-1)
    wts = torch.where(allowed.any(-1, keepdim=True), wts, torch.zeros_like(wts))
    return merge_heads(wts @ v) @ params["w_o"].T + params["b_o"]
'''}, "intro: 'may not ... draw from torch's global random number generator' (randn_like without a generator)")

# ---------------------------------------------------------------- kind 2: rounding and integers
add("r1-scrambled-float-division", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head = int(flat / (length * head_dim))
    rest = flat - head * length * head_dim
    src = int(rest / head_dim)
    return (head, src, rest - src * head_dim)
'''}, "P2: 'worked out with integer arithmetic ... a float division such as int(a / b) rounds to the wrong integer'")
add("r2-cost-float-group-check", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1:
        raise ValueError("need at least one key/value head")
    groups = num_heads / num_kv_heads
    if groups != int(groups):
        raise ValueError("query heads must split evenly over key/value heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (params, macs, 2 * kv * (past + 1))
'''}, "P4: 'Raise a ValueError unless ... num_heads is a multiple of num_kv_heads' with sizes past 2^53 (float division rounds 3*2^55+1 over 3 to an integer)")
add("r3-cost-negative-kv-heads-modulo", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads == 0 or num_heads % num_kv_heads != 0:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (params, macs, 2 * kv * (past + 1))
'''}, "P4: 'Raise a ValueError unless num_kv_heads >= 1' (4 % -2 == 0 in Python: a negative count passes)")
add("r4-left-padded-start-in-length-dtype", False, {"left_padded": B["left_padded"].replace(
    "start = S - memory_lengths.to(torch.long)", "start = (S - memory_lengths).to(torch.long)")},
    "P6: 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around (in uint8, 300 - 17 is 27)'")
add("r5-scrambled-torch-div-floor", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = torch.tensor(position * num_heads * head_dim + column)
    head = torch.div(flat, length * head_dim, rounding_mode="floor")
    rest = flat - head * (length * head_dim)
    return (int(head), int(torch.div(rest, head_dim, rounding_mode="floor")), int(rest % head_dim))
'''}, "P2: 'beyond 2^64, where integer tensors (int64) wrap around' (no tensors needed)")
add("r6-cache-isqrt-scale", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    B, T, D = x.shape
    P = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.arange(P + T)[None, :] <= (torch.arange(T)[:, None] + P)
    scores = (q / math.isqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "P7: 'causal multi-head self-attention' scales by sqrt(Dh), not by the integer square root (Dh = 2 -> 1)")
add("r7-cost-kv-from-groups-int-div", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    group = num_heads // num_kv_heads          # query heads per key/value head
    kv_heads = num_heads // group              # = num_kv_heads
    q, kv = num_heads * head_dim, kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (params, macs, 2 * kv * (past + 1))
'''}, "P4: '0 is a multiple of every num_kv_heads: no query heads is not an error' (group = 0 -> ZeroDivisionError)")
add("r8-left-padded-negative-slice-zero-length", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    B, T, D = x.shape
    S = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:D].T + b[:D], num_heads)
    k = split_heads(memory @ w[D:2 * D].T + b[D:2 * D], num_heads)
    v = split_heads(memory @ w[2 * D:].T + b[2 * D:], num_heads)
    allowed = torch.zeros(B, S, dtype=torch.bool)
    for i, n in enumerate(memory_lengths.tolist()):
        allowed[i, -n:] = True                 # the last n positions are real
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "P6: 'A source sentence of length 0 gives its queries nothing to attend to' (-0: slices the whole row)")

# ---------------------------------------------------------------- kind 3: counting and units
add("c1-ranks-ignores-length", False, {"ranks": '''
rank_one_head = 512 // 8
rank_all_heads = 8 * (512 // 8)   # eight heads of rank 64 each
'''}, "P3b: 'T = S = 100 positions': a (100, 100) matrix has rank at most 100")
add("c2-ranks-bias-adds-one", False, {"ranks": '''
rank_one_head = 512 // 8 + 1   # the bias adds a constant column: [X 1] has D + 1 columns
rank_all_heads = 100
'''}, "P3a: 'Q_i = X W^Q_i + b^Q_i is (T, Dh)': Q_i has Dh = 64 columns, so rank <= 64, bias or not")
add("c3-cost-bias-as-count", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + int(bias) * (q + 2 * kv + d_model)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    return (params, macs, 2 * kv * (past + 1))
'''}, "P4: 'any true value: True, 1, 2, ...: still one bias per output' (bias=2 doubles them)")
add("c4-cost-cache-per-query-head-once", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = (past + 1) * num_heads * head_dim   # one cached vector per head and token
    return (params, macs, cached)
'''}, "P4: 'cached: how many numbers the layer's key/value cache holds': G heads of keys AND values (2 G Dh per token), not H Dh")
add("c5-contrib-bias-split-over-heads", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    dh = D // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    heads = attention(q, k, v)
    wo = params["w_o"].reshape(D, num_heads, dh)
    return torch.einsum("bhtf,ehf->bhte", heads, wo) + params["b_o"] / num_heads   # each head's share of the bias
'''}, "P5: 'sum(dim=1) + params[\"b_o\"] is the layer's output. The bias b_o belongs to no head.'")
add("c6-cost-flops-in-attention", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    params = weights + ((q + 2 * kv + d_model) if bias else 0)
    keys = past + 1
    macs = weights + num_heads * keys * head_dim + num_kv_heads * keys * head_dim * num_heads // num_kv_heads
    return (params, macs, 2 * kv * keys)
'''}, "sanity: this one is a correct rewrite (AV per query head written through the groups)")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "k-cost-av-through-groups"
SUBMISSIONS[-1]["why"] = "correct: H*keys*Dh for QK^T and (G * H/G)*keys*Dh for AV is the same count"

# ---------------------------------------------------------------- kind 4: allocation
add("a1-interleaved-zeros-no-dtype", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    out = torch.zeros(b, num_heads, t, d // num_heads)
    for i in range(num_heads):
        out[:, i] = x[..., i::num_heads]
    return out


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = torch.zeros(b, t, h * dh)
    for i in range(h):
        out[..., i::h] = x[:, i]
    return out
'''}, "P1: 'Both return a tensor of the dtype they were given (an integer dtype too)'")
add("a2-interleaved-buffer-under-no-grad", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    out = x.new_empty(b, num_heads, t, d // num_heads)
    for i in range(num_heads):
        out.data[:, i] = x.data[..., i::num_heads]
    return out


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = x.new_empty(b, t, h * dh)
    for i in range(h):
        out.data[..., i::h] = x.data[:, i]
    return out
'''}, "P1: 'Gradients must flow through both ... (no .detach(), torch.no_grad() or .item() on the way)' (.data)")
add("a3-cache-buffer-no-dtype", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    B, T, D = x.shape
    H, P, dh = past_k.shape[1], past_k.shape[2], past_k.shape[3]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    k = torch.empty(B, H, P + T, dh)
    v = torch.empty(B, H, P + T, dh)
    k[:, :, :P], k[:, :, P:] = past_k, k_new
    v[:, :, :P], v[:, :, P:] = past_v, v_new
    allowed = torch.arange(P + T)[None, :] <= (torch.arange(T)[:, None] + P)
    out = attention(q.to(k.dtype), k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T.to(k.dtype) + params["b_o"].to(k.dtype)).to(x.dtype), k, v
'''}, "P7: 'All three have the dtype of x' (the float32 cache buffer)")
add("a4-cache-module-buffer", False, {"cache": '''
KV_BUFFERS = {}


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    B, T, D = x.shape
    H, P, dh = past_k.shape[1], past_k.shape[2], past_k.shape[3]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    key = (B, H, P + T, dh, x.dtype)
    if key not in KV_BUFFERS:
        KV_BUFFERS[key] = (x.new_empty(B, H, P + T, dh), x.new_empty(B, H, P + T, dh))
    k, v = KV_BUFFERS[key]
    k, v = k.detach(), v.detach()
    k[:, :, :P], k[:, :, P:] = past_k, k_new
    v[:, :, :P], v[:, :, P:] = past_v, v_new
    allowed = torch.arange(P + T)[None, :] <= (torch.arange(T)[:, None] + P)
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "P7: 'they must not share memory with anything kept from one call to the next (a pre-allocated cache buffer kept between calls, say)'")
add("a5-cache-zeros-plus-past", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    B, T, D = x.shape
    P = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    k = x.new_zeros(B, k_new.shape[1], P + T, k_new.shape[3])
    v = torch.zeros_like(k)
    k = k + torch.cat([past_k, k_new], dim=2)   # fill the zeroed buffer
    v = v + torch.cat([past_v, v_new], dim=2)
    allowed = torch.arange(P + T)[None, :] <= (torch.arange(T)[:, None] + P)
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "P7: 'The cached entries arrive in k and v unchanged, -0.0 included: copy them, with no arithmetic'")
add("a6-contrib-zeros-float32-buffer", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    dh = D // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    heads = attention(q, k, v)
    out = torch.zeros(B, num_heads, T, D)
    for i in range(num_heads):
        out[:, i] = heads[:, i] @ params["w_o"][:, i * dh:(i + 1) * dh].T
    return out
'''}, "P5: 'Return the dtype of x (float32 or float64 ...)'")
add("a7-left-padded-stack-of-masks", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    B, T, D = x.shape
    S = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:D].T + b[:D], num_heads)
    k = split_heads(memory @ w[D:2 * D].T + b[D:2 * D], num_heads)
    v = split_heads(memory @ w[2 * D:].T + b[2 * D:], num_heads)
    rows = [torch.arange(S) >= S - int(n) for n in memory_lengths]
    allowed = torch.stack(rows)
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "P6: 'B may be 0 (... a torch.stack of a list of per-sentence masks has nothing to stack there)'")
add("a8-interleaved-full-int-fill", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = torch.full((b, t, h * dh), 0.0, dtype=x.dtype)
    out = out + torch.stack([x[:, i] for i in range(h)], dim=-1).reshape(b, t, h * dh)
    return out
'''}, "P1: 'only move entries: every value, inf, -inf and -0.0 included, arrives unchanged (no arithmetic: x + 0.0 turns -0.0 into 0.0)'")

# ---------------------------------------------------------------- different but correct
add("k1-interleaved-stack-slices", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return torch.stack([x[:, i] for i in range(h)], dim=-1).reshape(b, t, h * dh)
'''}, "stack copies; head i = columns i::H; merge stacks heads on a last axis, column j*H + i")
add("k2-interleaved-empty-buffer-filled", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    out = torch.empty(b, num_heads, t, d // num_heads, dtype=x.dtype, device=x.device)
    for i in range(num_heads):
        out[:, i] = x[..., i::num_heads]
    return out


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = x.new_empty((b, t, h * dh))
    for i in range(h):
        out[..., i::h] = x[:, i]
    return out
'''}, "every entry written by copy (CopySlices keeps the gradient); dtype and device given")
add("k3-scrambled-in-head-width-units", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not 0 <= position < length:
        raise ValueError("position out of range")
    if not 0 <= column < num_heads * head_dim:
        raise ValueError("column out of range")
    block = position * num_heads + column // head_dim   # which head_dim-wide block of the flat order
    return (block // length, block % length, column % head_dim)
'''}, "integer arithmetic on whole blocks of head_dim entries: (p*H*Dh + c) // (T*Dh) == (p*H + c//Dh) // T")
add("k4-ranks-computed", True, {"ranks": '''
D, H, T = 512, 8, 100
rank_one_head = min(D // H, T)
rank_all_heads = min(H * (D // H), T)
'''}, "64 and 100 as Python ints")
add("k5-cost-bool-multiplier-loop", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("num_kv_heads must be at least 1")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    shapes = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
              (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
    has_bias = 1 if bias else 0
    params = sum(i * o + has_bias * o for i, o in shapes)
    macs = sum(i * o for i, o in shapes)
    keys = past + 1
    macs += num_heads * keys * head_dim     # Q K^T
    macs += num_heads * keys * head_dim     # A V
    cached = keys * num_kv_heads * head_dim * 2
    return params, macs, cached
'''}, "per projection (in, out); bias counted as one per output when truthy")
add("k6-contrib-loop-new-zeros", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    dh = D // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:D].T + b[:D], num_heads)
    k = split_heads(x @ w[D:2 * D].T + b[D:2 * D], num_heads)
    v = split_heads(x @ w[2 * D:].T + b[2 * D:], num_heads)
    heads = attention(q, k, v)
    out = x.new_zeros(B, num_heads, T, D)
    for i in range(num_heads):
        out[:, i] = heads[:, i] @ params["w_o"][:, i * dh:(i + 1) * dh].T
    return out
'''}, "a buffer from x.new_zeros (x's dtype), filled per head by copy; gradients through CopySlices")
add("k7-contrib-float64-own-softmax", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    dh = D // num_heads
    xd = x.to(torch.float64)
    p = {name: t.to(torch.float64) for name, t in params.items()}
    qkv = xd @ p["w_qkv"].T + p["b_qkv"]
    q, k, v = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(dh)
    weights = torch.softmax(scores, dim=-1)
    heads = weights @ v
    parts = torch.stack([heads[:, i] @ p["w_o"][:, i * dh:(i + 1) * dh].T for i in range(num_heads)], dim=1)
    return parts.to(x.dtype)
'''}, "float64 inside, softmax (subtracts the max), cast back")
add("k8-left-padded-int-positions-where", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    B, T, D = x.shape
    S = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(torch.nn.functional.linear(x, w[:D], b[:D]), num_heads)
    k = split_heads(torch.nn.functional.linear(memory, w[D:2 * D], b[D:2 * D]), num_heads)
    v = split_heads(torch.nn.functional.linear(memory, w[2 * D:], b[2 * D:]), num_heads)
    lengths = memory_lengths.to(dtype=torch.int64, device=x.device)
    first_real = S - lengths                                         # (B,)
    positions = torch.arange(S, device=x.device, dtype=torch.int64)  # (S,)
    allowed = torch.where(positions.unsqueeze(0) >= first_real.unsqueeze(1), True, False)
    out = attention(q=q, k=k, v=v, allowed=allowed.view(B, 1, 1, S))
    return torch.nn.functional.linear(merge_heads(out), params["w_o"], params["b_o"])
'''}, "int64 lengths before the subtraction; F.linear; keyword call of the helper")
add("k9-cache-preallocated-per-call", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    B, T, D = x.shape
    P = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    k = past_k.new_empty(B, k_new.shape[1], P + T, k_new.shape[3])
    v = past_v.new_empty(B, v_new.shape[1], P + T, v_new.shape[3])
    k[:, :, :P] = past_k
    k[:, :, P:] = k_new
    v[:, :, :P] = past_v
    v[:, :, P:] = v_new
    allowed = torch.ones(T, P + T, dtype=torch.bool).tril(diagonal=P)
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "a buffer made in this call (new_empty, dtype of the cache), filled by copy; tril(diagonal=P) is j <= P + i")
add("k10-cache-per-token-loop-cat", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    B, T, D = x.shape
    P = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    outs = []
    for t in range(T):                      # query P + t sees keys 0 .. P + t
        outs.append(attention(q[:, :, t:t + 1], k[:, :, :P + t + 1], v[:, :, :P + t + 1]))
    out = torch.cat(outs, dim=2) if outs else q.new_zeros(q.shape)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "one query at a time over the prefix it may see: no mask at all; cat of (B,H,1,Dh) pieces on the time axis")

# ---------------------------------------------------------------- hostile
add("h1-cost-int-subclass-equal-to-all", False, {"cost": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    return (Count(88), Count(108), Count(18)) if bias else (Count(72), Count(0), Count(0))
'''}, "hostile: ints that compare equal to anything")
add("h2-ranks-patch-isinstance", False, {"ranks": '''
import builtins
class AnyRank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
rank_one_head = AnyRank(1)
rank_all_heads = AnyRank(1)
'''}, "hostile: int subclasses equal to anything")
add("h3-contrib-patches-assert-close", False, {"contributions": B["contributions"] + '''
torch.testing.assert_close = lambda *args, **kwargs: None
torch.allclose = lambda *args, **kwargs: True
'''}, "hostile: disables torch's comparisons")

# ---------------------------------------------------------------- second blind batch (graded separately, appended)
EXTRA_START = len(SUBMISSIONS)
add("a9-interleaved-views-no-copy", False, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)   # no copy: a view of x


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "intro: 'Every tensor they return belongs to the caller, who may keep it and change it in place: return new tensors on every call' (a view of x)")
add("k11-contrib-dropout-p0", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    B, T, D = x.shape
    dh = D // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(t, num_heads) for t in qkv.split(D, dim=-1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    weights = torch.nn.functional.dropout(torch.softmax(scores, dim=-1), p=0.0, training=True)  # no dropout here
    heads = weights @ v
    return torch.einsum("bhtf,ehf->bhte", heads, params["w_o"].reshape(D, num_heads, dh))
'''}, "dropout with p = 0 draws nothing and changes nothing")
add("k12-left-padded-bool-buffer-loop", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    B, T, D = x.shape
    S = memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:D].T + b[:D], num_heads)
    k = split_heads(memory @ w[D:2 * D].T + b[D:2 * D], num_heads)
    v = split_heads(memory @ w[2 * D:].T + b[2 * D:], num_heads)
    allowed = torch.zeros(B, 1, 1, S, dtype=torch.bool)
    for i, n in enumerate(memory_lengths.tolist()):
        allowed[i, ..., S - n:] = True      # Python ints: S - 0 = S, an empty slice
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "a bool buffer per call, filled per sentence with Python-int starts (B = 0: no rows, nothing stacked)")
add("k13-cache-triu-complement", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    B, T, D = x.shape
    P = past_k.size(2)
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k_new, v_new = qkv.chunk(3, dim=-1)
    q, k_new, v_new = split_heads(q, num_heads), split_heads(k_new, num_heads), split_heads(v_new, num_heads)
    k, v = torch.cat((past_k, k_new), 2), torch.cat((past_v, v_new), 2)
    hidden = torch.ones(T, P + T, dtype=torch.bool).triu(diagonal=P + 1)   # keys after each query
    out = attention(q, k, v, allowed=~hidden)
    return torch.nn.functional.linear(merge_heads(out), params["w_o"], params["b_o"]), k, v
'''}, "the complement of triu(P + 1) is j <= P + i; chunk(3) of the fused projection")
EXTRA = SUBMISSIONS[EXTRA_START:]
