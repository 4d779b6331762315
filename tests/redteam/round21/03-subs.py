# Red team round 21, chapter 03-multi-head: order-of-operations, vectorising, signature-and-defaults,
# variant-confuser students (blind).
CORRECT = {}
CORRECT["interleaved"] = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
CORRECT["scrambled"] = '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * (num_heads * head_dim) + column
    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)
    return (head, source_position, feature)
'''
CORRECT["ranks"] = '''
rank_one_head = 64
rank_all_heads = 100
'''
CORRECT["cost"] = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("num_heads must be a multiple of num_kv_heads >= 1")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (weights + biases, macs, cached)
'''
CORRECT["contributions"] = '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    heads = attention(q, k, v)                                   # (B, H, T, Dh)
    w_o = params["w_o"].reshape(d, num_heads, dh)                 # (D, H, Dh)
    return torch.einsum("bhtd,ehd->bhte", heads, w_o)
'''
CORRECT["left_padded"] = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    q, k, v = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    s = memory.shape[1]
    start = s - memory_lengths.to(torch.int64)                      # first real position
    allowed = torch.arange(s, device=x.device)[None, :] >= start[:, None]   # (B, S)
    out = attention(q, k, v, allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''
CORRECT["cache"] = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = qkv.split(d, dim=-1)
    q = split_heads(q, num_heads)
    k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t, device=x.device)[None, :] <= (p + torch.arange(t, device=x.device))[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = []
SUBMISSIONS.append(sub("C00-model", True, dict(CORRECT), "my own answers"))

def rep(gid, *pairs):
    code = CORRECT[gid]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new)
    return {gid: code}

OWN_ATT = '''
def own_attention(q, k, v, allowed, scale_after=False):
    s = q @ k.transpose(-2, -1)
    s = s.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(s, dim=-1)
    w = torch.nan_to_num(w, nan=0.0)
    return w @ v
'''

# ---------------- order-of-operations student ----------------
SUBMISSIONS.append(sub("W-O1-bias-shared-by-heads", False, rep("contributions",
    'return torch.einsum("bhtd,ehd->bhte", heads, w_o)',
    'return torch.einsum("bhtd,ehd->bhte", heads, w_o) + params["b_o"] / num_heads  # each head owns 1/H of the bias'),
    "adds b_o / H to each head's share (the sum is then the output minus... plus b_o again); breaks 'The bias b_o belongs to no head' and 'head_contributions(...).sum(dim=1) + params[\"b_o\"] is the layer's output'"))

SUBMISSIONS.append(sub("W-O2-bias-added-before-scale", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    # the text says: scale before the product. Scale the input of the query projection (cheaper: D wide)
    q = (x / math.sqrt(dh)) @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    q, k, v = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    s = memory.shape[1]
    start = s - memory_lengths.to(torch.int64)
    allowed = (torch.arange(s)[None, :] >= start[:, None])[:, None, None, :]
    scores = (q @ k.transpose(-2, -1)).masked_fill(~allowed, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
'''}, "scales x before the query projection, so the query bias b^Q is added after the scale (unscaled); breaks 'softmax(q k^T / sqrt(d_k)) v' of `attention` (the query rows with their bias, then scaled); visible case has zero biases and Dh = 1"))

SUBMISSIONS.append(sub("W-O3-mask-after-softmax-renorm", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    q, k, v = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    s = memory.shape[1]
    keep = (torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None])[:, None, None, :]
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    weights = weights * keep                                  # drop the padding, then renormalise
    total = weights.sum(dim=-1, keepdim=True)
    weights = torch.where(total > 0, weights / total, torch.zeros_like(weights))
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
'''}, "masks after the softmax and renormalises: a padding key scoring a thousand higher underflows every real weight to 0 (0/0 -> zeros); breaks 'they must change nothing, neither the result nor its gradients'"))

SUBMISSIONS.append(sub("W-O4-cast-after-product-fp16", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = qkv.split(d, dim=-1)
    q = split_heads(q, num_heads)
    k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    # work in float32 for the softmax (half inputs): the product is taken first, then widened and scaled
    scores = (q @ k.transpose(-2, -1)).float() / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = (weights @ v.float()).to(x.dtype)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "widens to float32 after the float16 product q k^T, which already overflowed to inf; breaks 'scale before the product, or compute the scores in a wider dtype. Scores formed first and scaled after overflow'"))

SUBMISSIONS.append(sub("W-O5-finite-fill-then-scale", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = qkv.split(d, dim=-1)
    q = split_heads(q, num_heads) / math.sqrt(d // num_heads)
    k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    later = torch.arange(p + t)[None, :] > (p + torch.arange(t))[:, None]
    scores = (q @ k.transpose(-2, -1)).masked_fill(later, torch.finfo(x.dtype).min)
    out = torch.softmax(scores, dim=-1) @ v
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "hides later keys with the finite finfo.min (HF style); breaks 'do not give them a large negative score, not even that lowest value, which ties with such scores'"))

# ---------------- vectorising student ----------------
SUBMISSIONS.append(sub("W-V1-mask-in-lengths-dtype", False, rep("left_padded",
    "start = s - memory_lengths.to(torch.int64)", "start = s - memory_lengths                          # stays in its dtype"),
    "computes S - lengths in the lengths' dtype (uint8 wraps for S > 255); breaks 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around'"))

SUBMISSIONS.append(sub("W-V2-batch-max-trim", False, rep("left_padded",
    "    s = memory.shape[1]\n",
    "    longest = int(memory_lengths.max())                # drop the columns no sentence needs\n"
    "    s = memory.shape[1]\n    k, v = k[:, :, s - longest:], v[:, :, s - longest:]\n    memory_lengths = memory_lengths.long() - 0\n    s = longest\n"),
    "max over the whole batch to trim the keys: raises on an empty batch; breaks 'B may be 0 (an empty batch: the result is (0, T, D), nothing raised)'"))

SUBMISSIONS.append(sub("W-V3-where-exp-nan-grad", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = qkv.split(d, dim=-1)
    q = split_heads(q, num_heads) / math.sqrt(dh)
    k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    s = q @ k.transpose(-2, -1)
    m = s.masked_fill(~allowed, float("-inf")).amax(dim=-1, keepdim=True)
    e = torch.where(allowed, torch.exp(s - m), torch.zeros((), dtype=s.dtype))
    w = e / e.sum(dim=-1, keepdim=True)
    return (merge_heads(w @ v) @ params["w_o"].T + params["b_o"], k, v)
'''}, "torch.where whose untaken branch exp(s - m) is inf for a later key scoring far higher: value right, gradient NaN; breaks 'it must change nothing, neither the output nor its gradients'"))

SUBMISSIONS.append(sub("W-V4-reshape-minus-one-empty", False, rep("interleaved",
    "x.reshape(b, t, d // num_heads, num_heads)", "x.reshape(b, t, -1, num_heads)"),
    "reshape with -1 cannot infer the size of an empty tensor (B = 0 or T = 0); breaks 'an empty x ... no error when D is divisible, and both functions then return empty tensors'"))

SUBMISSIONS.append(sub("W-V5-int64-tensor-arith", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    # vectorised: one flat index tensor, then divmod with tensor ops
    flat = torch.tensor(position) * (num_heads * head_dim) + column
    head = torch.div(flat, length * head_dim, rounding_mode="floor")
    rest = flat - head * (length * head_dim)
    return (int(head), int(rest // head_dim), int(rest % head_dim))
'''}, "does the index arithmetic in an int64 tensor; breaks 'beyond 2^64, where integer tensors (int64) wrap around'"))

SUBMISSIONS.append(sub("W-V6-wo-reshape-interleaved", False, rep("contributions",
    'w_o = params["w_o"].reshape(d, num_heads, dh)                 # (D, H, Dh)',
    'w_o = params["w_o"].reshape(d, dh, num_heads).transpose(1, 2)  # (D, H, Dh)'),
    "splits W^O's columns among heads like cards: head i gets columns i, i+H, ...; breaks 'Concat(head_1..head_H) W^O' with the lesson's split_heads layout (head i holds columns i*Dh..(i+1)*Dh-1); visible case has Dh = 1"))

# ---------------- signature-and-defaults student ----------------
SUBMISSIONS.append(sub("W-S1-cost-returns-list", False, rep("cost",
    "return (weights + biases, macs, cached)", "return [weights + biases, macs, cached]"),
    "returns a list; breaks 'returning (parameters, macs, cached)' and the intro's 'a tuple, not a list'"))

SUBMISSIONS.append(sub("W-S2-bias-is-True", False, rep("cost",
    "biases = (q + 2 * kv + d_model) if bias else 0", "biases = (q + 2 * kv + d_model) if bias is True else 0"),
    "honours only bias=True; breaks 'any true value: True, 1, 2, ...: still one bias per output'"))

SUBMISSIONS.append(sub("W-S3-negative-kv-heads", False, rep("cost",
    "if num_kv_heads < 1 or num_heads % num_kv_heads:", "if num_kv_heads == 0 or num_heads % num_kv_heads:"),
    "accepts a negative num_kv_heads silently (4 % -2 == 0); breaks 'Raise a ValueError unless num_kv_heads >= 1'"))

SUBMISSIONS.append(sub("W-S4-renamed-lengths", False, rep("left_padded",
    "def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):",
    "def cross_attention_left_padded(x, memory, lengths, params, num_heads):\n    memory_lengths = lengths",
    ),
    "renames memory_lengths to lengths: a caller passing memory_lengths= gets a TypeError; breaks 'Keep the signatures of the stubs, argument names included'"))

SUBMISSIONS.append(sub("W-S5-scrambled-list", False, rep("scrambled",
    "return (head, source_position, feature)", "return [head, source_position, feature]"),
    "returns a list; breaks 'Return its (head, source_position, feature), three Python ints' and 'a tuple, not a list'"))

SUBMISSIONS.append(sub("W-S6-cache-kv-swapped", False, rep("cache",
    'return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)',
    'return (merge_heads(out) @ params["w_o"].T + params["b_o"], v, k)'),
    "returns (out, v, k); breaks 'Return (out, k, v)'; the visible identity weights make k equal to v"))

SUBMISSIONS.append(sub("W-S7-negative-position-index", False, rep("scrambled",
    "if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):",
    "if position >= length or column >= num_heads * head_dim:\n        raise ValueError('out of range')\n    position, column = position % length, column % (num_heads * head_dim)  # Python-style negative index\n    if False:"),
    "accepts negative positions/columns as Python-style indices; breaks 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim'"))

# ---------------- variant-confuser student ----------------
SUBMISSIONS.append(sub("W-VC1-rank-all-heads-width", False, {"ranks": "rank_one_head = 64\nrank_all_heads = 512  # the heads together span the model width\n"},
    "gives the concatenated width D for the sum; breaks 'the (T, S) score matrix', T = S = 100 bounds every rank"))

SUBMISSIONS.append(sub("W-VC2-no-scaling-luong", False, rep("contributions",
    "heads = attention(q, k, v)                                   # (B, H, T, Dh)",
    "heads = attention(q * math.sqrt(dh), k, v)                   # Luong dot-product: no 1/sqrt(dh)"),
    "unscaled dot-product scores (Luong); breaks chapter 2's softmax(q k^T / sqrt(d_k)) that `attention` computes; visible Dh = 1"))

SUBMISSIONS.append(sub("W-VC3-mup-scaling", False, rep("cache",
    "out = attention(q, k, v, allowed)",
    "out = attention(q / math.sqrt(q.shape[-1]), k, v, allowed)   # muP: 1/d_head, not 1/sqrt(d_head)"),
    "muP's 1/Dh score scaling; breaks 'causal multi-head self-attention' with attention's 1/sqrt(d_k); visible Dh = 1"))

SUBMISSIONS.append(sub("W-VC4-rank-affine-plus-one", False, {"ranks": "rank_one_head = 65  # Dh + 1: the bias adds a direction (affine map)\nrank_all_heads = 100\n"},
    "counts the bias as one more dimension; breaks the shape: Q_i is (T, Dh), so rank(S_i) <= Dh = 64"))

# ---------------- different-but-correct ----------------
SUBMISSIONS.append(sub("C01-interleaved-stack-slices", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads != 0:
        raise ValueError(f"D={d} is not divisible by num_heads={num_heads}")
    # the loop the text describes: head i takes columns i, i + H, i + 2H, ...
    return torch.stack([x[:, :, i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    # deal the cards back: (B, T, Dh, H) flattened puts head i's feature j at column i + j*H
    return torch.stack(x.unbind(dim=1), dim=-1).flatten(start_dim=2)
'''}, "a loop over heads with strided slices and stack; unbind/stack/flatten for the inverse"))

SUBMISSIONS.append(sub("C02-scrambled-floor-mod", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("position or column out of range")
    flat = position * width + column          # row-major offset in the (B, T, H*Dh) view
    per_head = length * head_dim
    head = flat // per_head
    source_position = (flat % per_head) // head_dim
    feature = flat % head_dim
    return head, source_position, feature
'''}, "separate // and %; a bare tuple; feature = flat % Dh is the same as rest % Dh"))

SUBMISSIONS.append(sub("C03-ranks-min", True, {"ranks": '''
D, H, T, S = 512, 8, 100, 100
rank_one_head = min(D // H, T, S)
rank_all_heads = min(D, T, S)
'''}, "computed with min"))

SUBMISSIONS.append(sub("C04-cost-keywords-bool", True, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("num_kv_heads must be at least 1")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    shapes = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
              (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
    parameters = sum(i * o for i, o in shapes) + (sum(o for _, o in shapes) if bool(bias) else 0)
    macs = sum(i * o for i, o in shapes)
    for _head in range(0):
        pass
    macs += num_heads * (past + 1) * head_dim   # scores
    macs += num_heads * (past + 1) * head_dim   # weighted sum of values
    cached = 2 * num_kv_heads * (past + 1) * head_dim
    return int(parameters), int(macs), int(cached)
'''}, "projections as a list of (in, out) shapes; bool(bias)"))

SUBMISSIONS.append(sub("C05-contributions-loop-heads", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    w_qkv, b_qkv = params["w_qkv"], params["b_qkv"]
    q = split_heads(torch.nn.functional.linear(x, w_qkv[:d], b_qkv[:d]), num_heads)
    k = split_heads(torch.nn.functional.linear(x, w_qkv[d:2 * d], b_qkv[d:2 * d]), num_heads)
    v = split_heads(torch.nn.functional.linear(x, w_qkv[2 * d:], b_qkv[2 * d:]), num_heads)
    parts = []
    for i in range(num_heads):
        head = attention(q[:, i], k[:, i], v[:, i])                     # (B, T, Dh)
        parts.append(head @ params["w_o"][:, i * dh:(i + 1) * dh].T)    # (B, T, D)
    return torch.stack(parts, dim=1)
'''}, "F.linear per projection, a loop over heads, each head times its block of W^O's columns"))

SUBMISSIONS.append(sub("C06-left-padded-wide-dtype", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    dtype = x.dtype
    wide = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    p = {key: params[key].to(wide) for key in ("w_qkv", "b_qkv", "w_o", "b_o")}   # a new dict, params untouched
    xw, mw = x.to(wide), memory.to(wide)
    d = x.shape[-1]
    q = split_heads(xw @ p["w_qkv"][:d].T + p["b_qkv"][:d], num_heads)
    k = split_heads(mw @ p["w_qkv"][d:2 * d].T + p["b_qkv"][d:2 * d], num_heads)
    v = split_heads(mw @ p["w_qkv"][2 * d:].T + p["b_qkv"][2 * d:], num_heads)
    S = memory.shape[1]
    positions = torch.arange(S, dtype=torch.long)
    real = torch.where(positions.unsqueeze(0) >= S - memory_lengths.long().unsqueeze(1), True, False)
    out = attention(q, k, v, allowed=real.reshape(-1, 1, 1, S))
    return (merge_heads(out) @ p["w_o"].T + p["b_o"]).to(dtype)
'''}, "works in float32 for half inputs and casts back (the text allows a wider dtype); torch.where for the mask, reshape(-1, 1, 1, S)"))

SUBMISSIONS.append(sub("C07-cache-tril-offset", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = torch.cat((past_k, split_heads(x @ w[d:2 * d].T + b[d:2 * d], num_heads)), dim=-2)
    v = torch.cat((past_v, split_heads(x @ w[2 * d:].T + b[2 * d:], num_heads)), dim=-2)
    P, T = past_k.shape[-2], x.shape[1]
    allowed = torch.ones(T, P + T, dtype=torch.bool).tril(diagonal=P)     # (T, P+T): row t sees keys 0..P+t
    out = attention(q, k, v, allowed=allowed)
    return out.transpose(1, 2).reshape(x.shape[0], T, d) @ params["w_o"].T + params["b_o"], k, v
'''}, "tril with diagonal P on a (T, P+T) block; merge written out"))

SUBMISSIONS.append(sub("C08-cache-written-softmax", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k_new, v_new = qkv.chunk(3, dim=-1)
    k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)
    wide = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    qs = split_heads(q, num_heads).to(wide) / math.sqrt(dh)                 # scale before the product
    scores = qs @ k.to(wide).transpose(-2, -1)
    P, T = past_k.shape[2], x.shape[1]
    later = torch.arange(P + T).unsqueeze(0) > (torch.arange(T) + P).unsqueeze(1)
    scores = scores.masked_fill(later, float("-inf"))
    m = scores.amax(dim=-1, keepdim=True)
    e = torch.exp(scores - m)
    weights = e / e.sum(dim=-1, keepdim=True)                               # normalise before the values
    out = (weights @ v.to(wide)).to(x.dtype)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "softmax written out with -inf masking, row max over the allowed keys, float32 for half inputs, weights normalised before the values"))

SUBMISSIONS.append(sub("C09-contributions-masked-wo", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.split(d, dim=-1))
    heads = attention(q, k, v)                                           # (B, H, T, Dh)
    w_o_t = params["w_o"].T.reshape(num_heads, dh, d)                    # rows of W^O^T per head
    return heads @ w_o_t.unsqueeze(0)                                    # (B, H, T, Dh) @ (1, H, Dh, D)
'''}, "batched matmul with W^O^T reshaped to (H, Dh, D)"))

SUBMISSIONS.append(sub("C10-left-padded-via-sdpa-keywords", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w_q, w_k, w_v = params["w_qkv"].split(d, dim=0)
    b_q, b_k, b_v = params["b_qkv"].split(d, dim=0)
    q = split_heads(torch.nn.functional.linear(x, w_q, b_q), num_heads=num_heads)
    k = split_heads(torch.nn.functional.linear(memory, w_k, b_k), num_heads=num_heads)
    v = split_heads(torch.nn.functional.linear(memory, w_v, b_v), num_heads=num_heads)
    S = memory.shape[1]
    pad = torch.arange(S).view(1, S) < (S - memory_lengths.to(torch.long)).view(-1, 1)     # True = padding
    out = attention(q=q, k=k, v=v, allowed=(~pad)[:, None, None, :])
    return torch.nn.functional.linear(merge_heads(out), params["w_o"], params["b_o"])
'''}, "every call by keyword, a padding mask inverted, F.linear"))

# ---------------- hostile ----------------
SUBMISSIONS.append(sub("H01-ranks-int-equal-to-all", False, {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__

rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "hostile: an int subclass equal to everything"))

SUBMISSIONS.append(sub("H02-cost-steals-reference", False, {"cost": '''
import sys as system_module
import gc as garbage


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    me = decode_step_cost
    for obj in garbage.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "decode_step_cost" and obj is not me:
            return obj(past, d_model, num_heads, num_kv_heads, head_dim, bias)
    frame = system_module._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):
            if callable(value) and getattr(value, "__name__", "").endswith("decode_step_cost") and value is not me:
                return value(past, d_model, num_heads, num_kv_heads, head_dim, bias)
        frame = frame.f_back
    return (88, 108, 18) if bias else (72, 108, 18)
'''}, "hostile: looks for the hidden reference through gc and the caller's frames, else hard-codes the visible case"))

SUBMISSIONS.append(sub("H03-scrambled-patches-tuple-check", False, {"scrambled": '''
import builtins


class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length) or not (0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    return (Anything(0), Anything(0), Anything(0))
'''}, "hostile: int subclasses equal to anything"))

# ---------------- second batch (still blind) ----------------
SUBMISSIONS.append(sub("W-S8-scrambled-renamed-args", False, {"scrambled": CORRECT["scrambled"].replace(
    "def scrambled_source(num_heads, length, head_dim, position, column):",
    "def scrambled_source(heads, length, dh, position, column):\n    num_heads, head_dim = heads, dh")},
    "renames num_heads/head_dim to heads/dh; breaks 'Keep the signatures of the stubs, argument names included'"))

SUBMISSIONS.append(sub("W-S9-cache-renamed-args", False, {"cache": CORRECT["cache"].replace(
    "def causal_attention_with_cache(x, past_k, past_v, params, num_heads):",
    "def causal_attention_with_cache(x, cache_k, cache_v, params, num_heads):\n    past_k, past_v = cache_k, cache_v")},
    "renames past_k/past_v to cache_k/cache_v; breaks 'Keep the signatures of the stubs, argument names included'"))

SUBMISSIONS.append(sub("W-S10-split-renamed-heads", False, {"interleaved": CORRECT["interleaved"].replace(
    "def split_heads_interleaved(x, num_heads):", "def split_heads_interleaved(x, heads):\n    num_heads = heads")},
    "renames num_heads to heads; breaks 'Keep the signatures of the stubs, argument names included'"))

SUBMISSIONS.append(sub("W-A1-left-padded-empty-bias-view", False, rep("left_padded",
    "    d = x.shape[-1]\n",
    "    d = x.shape[-1]\n    if not bool((memory_lengths != 0).any()):      # nothing to attend to anywhere: just the bias\n"
    "        return params[\"b_o\"].expand(x.shape[0], x.shape[1], d)\n"),
    "every sentence of length 0: returns b_o expanded, a view of the caller's parameter; breaks 'Every tensor they return belongs to the caller ... return new tensors on every call'"))

SUBMISSIONS.append(sub("C11-cache-empty-past-views", True, rep("cache",
    "    k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)\n    v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)\n",
    "    if past_k.shape[2] == 0:                         # empty cache: nothing to append\n"
    "        k, v = split_heads(k_new, num_heads), split_heads(v_new, num_heads)\n"
    "    else:\n"
    "        k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)\n        v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)\n"),
    "maybe-correct: for an empty cache returns k and v as views of one projection tensor (they share storage with each other, with no input); the text asks only that they share memory with nothing kept between calls"))
