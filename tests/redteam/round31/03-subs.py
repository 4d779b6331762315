SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- kind 1: hand-written backward ----------------
add("hb-p1-function-backward-blocked-merge", False, {"interleaved": '''
class SplitInterleaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, num_heads):
        b, t, d = x.shape
        return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).contiguous()

    @staticmethod
    def backward(ctx, grad):
        # inverse of the split: merge the heads back (the lesson's merge_heads)
        return merge_heads(grad), None


class MergeInterleaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.h = x.shape[1]
        b, h, t, dh = x.shape
        return x.permute(0, 2, 3, 1).reshape(b, t, dh * h).clone()

    @staticmethod
    def backward(ctx, grad):
        return split_heads(grad, ctx.h)


def split_heads_interleaved(x, num_heads):
    if x.shape[-1] % num_heads:
        raise ValueError("D not divisible by num_heads")
    return SplitInterleaved.apply(x, num_heads)


def merge_heads_interleaved(x):
    return MergeInterleaved.apply(x)
'''}, "Part 1: 'Gradients must flow through both ... the hidden tests compare their gradients with the reference's': the hand-written backwards use the lesson's blocked split/merge, not the interleaved inverse (right only for H = 1 or Dh = 1).")

add("hb-p5-wo-function-grad-batch0", False, {"contributions": '''
class PerHeadOut(torch.autograd.Function):
    """heads (B, H, T, Dh) and w_o (D, H*Dh) -> (B, H, T, D)."""
    @staticmethod
    def forward(ctx, heads, w_o):
        ctx.save_for_backward(heads, w_o)
        b, h, t, dh = heads.shape
        w = w_o.T.reshape(h, dh, w_o.shape[0])
        return torch.einsum("bhtk,hkd->bhtd", heads, w)

    @staticmethod
    def backward(ctx, grad):
        heads, w_o = ctx.saved_tensors
        b, h, t, dh = heads.shape
        w = w_o.T.reshape(h, dh, w_o.shape[0])
        g_heads = torch.einsum("bhtd,hkd->bhtk", grad, w)
        # weight gradient: sum over positions of heads^T grad (worked out on one sequence)
        g_w = torch.einsum("htk,htd->hkd", heads[0], grad[0])
        g_wo = g_w.reshape(h * dh, -1).T
        return g_heads, g_wo


def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    heads = attention(q, k, v)
    return PerHeadOut.apply(heads, params["w_o"])
'''}, "Part 5: 'Gradients must flow through the result, to x and to the parameters ... the hidden tests compare its gradients': the backward's W^O gradient sums over the first sequence only (right for a batch of one).")

add("hb-p7-cat-function-no-cache-grad", False, {"cache": '''
class AppendToCache(torch.autograd.Function):
    @staticmethod
    def forward(ctx, past, new):
        ctx.p = past.shape[2]
        return torch.cat([past, new], dim=2)

    @staticmethod
    def backward(ctx, grad):
        # the cache was computed at earlier steps: only the new block needs a gradient
        return None, grad[:, :, ctx.p:]


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = AppendToCache.apply(past_k, k)
    v = AppendToCache.apply(past_v, v)
    qpos = torch.arange(p, p + t)
    kpos = torch.arange(p + t)
    out = attention(q, k, v, kpos[None, :] <= qpos[:, None])
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'Gradients must flow through all three, to x, the cache and the parameters': the hand-written backward returns None for past_k / past_v.")

add("hb-p5-linear-function-bias-not-summed-CORRECT", True, {"contributions": '''
class Linear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b):
        ctx.save_for_backward(x, w)
        return x @ w.T + b

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = g @ w
        gw = (g.reshape(-1, g.shape[-1]).T @ x.reshape(-1, x.shape[-1]))
        gb = g          # broadcast bias: autograd sums it back to (3D,)
        return gx, gw, gb


def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = Linear.apply(x, params["w_qkv"], params["b_qkv"])
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    heads = attention(q, k, v)
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return torch.einsum("bhtk,hkd->bhtd", heads, w)
'''}, "Correct: a hand-written linear backward whose bias gradient is not summed; autograd's validate_outputs sums a gradient that broadcasts back to the input's shape, so every gradient is right.")

add("hb-p1-function-correct-backward", True, {"interleaved": '''
class SplitInterleaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, num_heads):
        b, t, d = x.shape
        return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).contiguous()

    @staticmethod
    def backward(ctx, grad):
        return merge_heads_interleaved(grad), None


class MergeInterleaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.h = x.shape[1]
        b, h, t, dh = x.shape
        return x.permute(0, 2, 3, 1).reshape(b, t, dh * h).contiguous().clone()

    @staticmethod
    def backward(ctx, grad):
        return split_heads_interleaved(grad, ctx.h)


def split_heads_interleaved(x, num_heads):
    if x.shape[-1] % num_heads:
        raise ValueError("D not divisible by num_heads")
    return SplitInterleaved.apply(x, num_heads)


def merge_heads_interleaved(x):
    return MergeInterleaved.apply(x)
'''}, "Correct: hand-written Functions whose backwards are each other's (the interleaved inverse), built from differentiable ops.")

# ---------------- kind 2: scale and placement ----------------
add("sp-p7-scale-by-dh-not-sqrt", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    scores = (q / dh) @ k.transpose(-2, -1)
    qpos = torch.arange(p, p + t)
    kpos = torch.arange(p + t)
    scores = scores.masked_fill(kpos[None, :] > qpos[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: causal multi-head self-attention is softmax(QK^T/sqrt(Dh))V (chapter 2's attention): the answer divides by Dh, the same only when Dh = 1 (the visible case).")

add("sp-p6-mask-after-softmax-renormalised", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    probs = torch.softmax((q / math.sqrt(dh)) @ k.transpose(-2, -1), dim=-1)
    real = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    probs = probs * real[:, None, None, :]
    total = probs.sum(-1, keepdim=True)
    probs = torch.where(total > 0, probs / total.clamp_min(1e-38), torch.zeros_like(probs))
    return merge_heads(probs @ v) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'padding keys may score far above every real key ... they must change nothing' (the text's 0/0 warning): masking after the softmax and renormalising underflows every real weight to 0.")

add("sp-p5-bo-split-over-heads", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    heads = attention(q, k, v)
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    # each head carries its share of the output bias so that the slices add up to the layer
    return torch.einsum("bhtk,hkd->bhtd", heads, w) + params["b_o"] / num_heads
'''}, "Part 5: 'head_contributions(...).sum(dim=1) + params[\"b_o\"] is the layer's output. The bias b_o belongs to no head.'")

add("sp-p6-fp16-scores-then-scale", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    real = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    scores = scores.masked_fill(~real[:, None, None, :], float("-inf"))
    probs = torch.softmax(scores.to(torch.promote_types(scores.dtype, torch.float32)), dim=-1).to(x.dtype)
    probs = torch.nan_to_num(probs, nan=0.0)
    return merge_heads(probs @ v) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'In float16 a product q.k can pass 65504 ... scale before the product, or compute the scores in a wider dtype': the scale is applied after the float16 product.")

# ---------------- kind 3: Python scalars ----------------
add("ps-p2-float-division", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head = int(flat / (length * head_dim))
    rest = flat - head * length * head_dim
    return (head, int(rest / head_dim), rest % head_dim)
'''}, "Part 2: 'sizes whose products exceed 2^53, where a float division such as int(a / b) rounds to the wrong integer'.")

add("ps-p4-bias-is-not-false", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads != 0:
        raise ValueError("bad head counts")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    params = 2 * d_model * q + 2 * d_model * kv
    if bias is not False:
        params += q + 2 * kv + d_model
    n = past + 1
    return (params, 2 * d_model * q + 2 * d_model * kv + 2 * num_heads * n * head_dim, 2 * kv * n)
'''}, "Part 4: '`False` and `0` mean no biases': bias=0 still counts biases.")

add("ps-p4-bias-as-multiplier", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = 2 * d_model * q + 2 * d_model * kv
    biases = int(bias) * (q + 2 * kv + d_model)
    n = past + 1
    return (weights + biases, weights + 2 * num_heads * n * head_dim, 2 * kv * n)
'''}, "Part 4: 'any true value: True, 1, 2, ...: still one bias per output': int(bias) doubles them for bias=2.")

add("ps-p2-no-negative-check", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position >= length or column >= num_heads * head_dim:
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    return (flat // (length * head_dim), flat // head_dim % length, flat % head_dim)
'''}, "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < ...': negative position/column give floor-divided answers, no error.")

add("ps-p3-rank-plus-bias", False, {"ranks": '''
# the bias adds a constant column, so one head's scores reach Dh + 1
rank_one_head = int(512 / 8) + 1
rank_all_heads = min(8 * rank_one_head, 100)
'''}, "Part 3a: Q_i is (T, Dh): S_i = Q_i K_i^T has rank at most Dh = 64 whatever the bias.")

add("ps-p4-floats-via-ratio", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    group = num_heads / num_kv_heads
    q = num_heads * head_dim
    kv = q / group
    weights = 2 * d_model * q + 2 * d_model * kv
    biases = (q + 2 * kv + d_model) if bias else 0
    n = past + 1
    return (int(weights + biases), int(weights + 2 * num_heads * n * head_dim), int(2 * kv * n))
'''}, "Part 4: 'exact even when they exceed 2^53 ... a float anywhere in the arithmetic rounds the count'.")

add("ps-p6-math-sqrt-CORRECT", True, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dh = d // num_heads
    scale = 1.0 / math.sqrt(dh)
    w, bq = params["w_qkv"].double(), params["b_qkv"].double()
    wo, bo = params["w_o"].double(), params["b_o"].double()
    q = split_heads(x.double() @ w[:d].T + bq[:d], num_heads) * scale
    k = split_heads(memory.double() @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory.double() @ w[2 * d:].T + bq[2 * d:], num_heads)
    scores = q @ k.transpose(-2, -1)
    start = s - memory_lengths.to(torch.int64)
    real = (torch.arange(s)[None, :] >= start[:, None])[:, None, None, :]
    masked = torch.where(real, scores, float("-inf"))
    top = torch.cat([masked, torch.full_like(masked[..., :1], float("-inf"))], dim=-1).amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    e = torch.exp(masked - top)
    den = e.sum(-1, keepdim=True)
    probs = e / torch.where(den > 0, den, torch.ones_like(den))
    out = merge_heads(probs @ v) @ wo.T + bo
    return out.to(x.dtype)
'''}, "Correct: the softmax written out in float64 (a Python float scale from math.sqrt), padding left out with -inf and a safe max for empty sentences, cast back.")

add("ps-p2-divmod-CORRECT", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if not 0 <= position < length:
        raise ValueError("position out of range")
    if not 0 <= column < width:
        raise ValueError("column out of range")
    flat = position * width + column
    head = flat // (length * head_dim)
    src = (flat // head_dim) % length
    feat = flat % head_dim
    return tuple(int(v) for v in (head, src, feat))
'''}, "Correct: integer // and % on non-negative Python ints.")

# ---------------- kind 4: return shape ----------------
add("rs-p7-k-v-swapped", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    qpos = torch.arange(p, p + t)
    kpos = torch.arange(p + t)
    out = attention(q, k, v, kpos[None, :] <= qpos[:, None])
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], v, k)
'''}, "Part 7: 'Return (out, k, v)': the answer returns v before k (same shapes; identity parameters make them equal).")

add("rs-p2-list", False, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * num_heads * head_dim + column
    head, rest = divmod(flat, length * head_dim)
    return [head, rest // head_dim, rest % head_dim]
'''}, "Intro: 'a tuple where a part returns several values ... (a tuple, not a list; the hidden tests check the kind)'.")

add("rs-p4-list", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad head counts")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = 2 * d_model * q + 2 * d_model * kv
    biases = (q + 2 * kv + d_model) if bias else 0
    n = past + 1
    return [weights + biases, weights + 2 * num_heads * n * head_dim, 2 * kv * n]
'''}, "Part 4 / intro: returning '(parameters, macs, cached)' as a tuple, not a list.")

add("rs-p1-views-CORRECT", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "Correct? Returns a permuted view (like the given split_heads, which the notebook says to use) rather than a copy; the text forbids reused output buffers, and only ch4 says 'sharing memory with no input'.")

# ---------------- kind 5: sibling part ----------------
add("sb-p6-interleaved-heads", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads_interleaved(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads_interleaved(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads_interleaved(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    real = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(q, k, v, real[:, None, None, :])
    return merge_heads_interleaved(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6 / intro: heads follow the lesson's split_heads ('head i holds columns i*Dh .. (i+1)*Dh - 1'); Part 1's interleaved layout agrees only when Dh = 1.")

add("sb-p5-interleaved-heads", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = (split_heads_interleaved(z, num_heads) for z in (q, k, v))
    heads = attention(q, k, v)
    w = params["w_o"].T.reshape(dh, num_heads, d).transpose(0, 1)
    return torch.einsum("bhtk,hkd->bhtd", heads, w)
'''}, "Part 5: the layer splits heads with the lesson's split_heads (blocked columns); with Part 1's interleaved split both the heads and their W^O rows differ (unless Dh = 1).")

add("sb-p7-no-mask-one-token", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    # like Part 5's self-attention: a generated token sees the whole cache and itself
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q, k, v = (split_heads(z, num_heads) for z in (q, k, v))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    out = attention(q, k, v)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'T may be 1 or more ... the query at position P + t may attend to the keys 0 .. P + t and to none after it': no mask is right only for T = 1.")

add("sb-p7-tril-offset-CORRECT", True, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    out_k, out_v = [], []
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = qkv.split(d, dim=-1)
    q = split_heads(q, num_heads)
    k = torch.cat([past_k, split_heads(k_new, num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(v_new, num_heads)], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = attention(q, k, v, allowed=allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Correct: the lesson's tril causal mask, shifted to the bottom-right by diagonal=P, passed to the given attention by keyword.")

add("sb-p5-full-layer-per-head-CORRECT", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = merge_heads(attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)))
    parts = []
    for i in range(num_heads):
        cols = heads[..., i * dh:(i + 1) * dh]
        parts.append(cols @ params["w_o"][:, i * dh:(i + 1) * dh].T)
    return torch.stack(parts, dim=1)
'''}, "Correct: merges with the given merge_heads and applies each head's column block of W^O in a loop over the heads.")

# ---------------- hostile ----------------
add("hostile-p4-hardcoded-visible", False, {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_heads % max(num_kv_heads, 1):
        raise ValueError("uneven")
    if (past, d_model, num_heads, num_kv_heads, head_dim) == (2, 4, 2, 1, 3):
        return (88 if bias else 72, 108, 18)
    return (0, 0, 0)
'''}, "Hostile: answers only the visible case.")

add("hostile-p3-int-subclass-equal-to-all", False, {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''}, "Hostile: an int subclass that compares equal to everything.")

add("sb-p6-mask-B-S-broadcast", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    # same construction as a padding mask for chapter 2's attention: one row per sentence
    real = torch.arange(s)[None, :] >= (s - memory_lengths.long())[:, None]
    out = attention(q, k, v, real)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S). (A (B, S) mask would be read as (T, S) ...)': right only for a batch of one.")

add("ps-p6-python-int-minus-lengths", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    first_real = s - memory_lengths
    real = torch.arange(s)[None, :] >= first_real[:, None]
    out = attention(q, k, v, real[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'a Python int combined with such a tensor wrap around (in uint8, 300 - 17 is 27)': s - memory_lengths is computed in the lengths' dtype.")
