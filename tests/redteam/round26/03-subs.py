"""Red team round 26, chapter 03: blind submissions (the skimmer, squeeze-and-broadcast, stride-and-layout, remainder-and-boundary)."""
BASE = {
"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, h * dh).clone()
''',
"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
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
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (weights + biases, macs, cached)
''',
"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtj,ehj->bhte", heads, w)
''',
"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bb = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bb[:d]
    k = memory @ w[d:2 * d].T + bb[d:2 * d]
    v = memory @ w[2 * d:].T + bb[2 * d:]
    pos = torch.arange(s, device=x.device)
    start = s - memory_lengths.to(torch.long)
    allowed = (pos[None, :] >= start[:, None])[:, None, None, :]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads), allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
''',
"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    t = x.shape[1]
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q = split_heads(qkv[..., :d], num_heads)
    k = torch.cat([past_k, split_heads(qkv[..., d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(qkv[..., 2 * d:], num_heads)], dim=2)
    qpos = torch.arange(t, device=x.device) + p
    kpos = torch.arange(p + t, device=x.device)
    allowed = kpos[None, :] <= qpos[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
''',
}

B = BASE

def rep(cell, old, new, count=1):
    src = B[cell]
    assert src.count(old) >= 1, (cell, old)
    return src.replace(old, new, count)

SUBMISSIONS = [
# ---------------- the skimmer ----------------
{"name": "skim-p1-float-buffer", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    dh = d // num_heads
    out = torch.empty(b, num_heads, t, dh, device=x.device)
    for i in range(num_heads):
        out[:, i] = x[..., i::num_heads]
    return out


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    out = torch.empty(b, t, h * dh, device=x.device)
    for i in range(h):
        out[..., i::h] = x[:, i]
    return out
'''}, "why": "skimmer: fills a default-dtype buffer; 'Both return a tensor of the dtype they were given (an integer dtype too)' (float64/int inputs come back float32)"},
{"name": "skim-p2-no-column-check", "correct": False, "cells": {"scrambled": rep("scrambled",
    "if not (0 <= position < length and 0 <= column < num_heads * head_dim):",
    "if not (0 <= position < length):")},
 "why": "skimmer: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim' - the column half is missed"},
{"name": "skim-p4-bias-multiplies", "correct": False, "cells": {"cost": rep("cost",
    "biases = (q + 2 * kv + d_model) if bias else 0", "biases = bias * (q + 2 * kv + d_model)")},
 "why": "skimmer: 'any true value: True, 1, 2, ...: still one bias per output' - bias=2 doubles the biases"},
{"name": "skim-p6-uint8-wrap", "correct": False, "cells": {"left_padded": rep("left_padded",
    "start = s - memory_lengths.to(torch.long)", "start = (s - memory_lengths).to(torch.long)")},
 "why": "skimmer: 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around (in uint8, 300 - 17 is 27)'"},
{"name": "skim-p7-pad-and-add-cache", "correct": False, "cells": {"cache": rep("cache",
    '''    k = torch.cat([past_k, split_heads(qkv[..., d:2 * d], num_heads)], dim=2)
    v = torch.cat([past_v, split_heads(qkv[..., 2 * d:], num_heads)], dim=2)''',
    '''    pad = torch.nn.functional.pad
    k = pad(past_k, (0, 0, 0, t)) + pad(split_heads(qkv[..., d:2 * d], num_heads), (0, 0, p, 0))
    v = pad(past_v, (0, 0, 0, t)) + pad(split_heads(qkv[..., 2 * d:], num_heads), (0, 0, p, 0))''')},
 "why": "skimmer: 'The cached entries arrive in k and v unchanged, -0.0 included: copy them, with no arithmetic'"},
{"name": "skim-p5-detach-weights", "correct": False, "cells": {"contributions": rep("contributions",
    'w = params["w_o"].reshape(d, num_heads, d // num_heads)',
    'w = params["w_o"].detach().reshape(d, num_heads, d // num_heads)')},
 "why": "skimmer: 'Gradients must flow through the result, to x and to the parameters' - W^O detached ('it is a fixed read-out')"},
{"name": "skim-p4-true-division", "correct": False, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    group = num_heads / num_kv_heads
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    macs = weights + 2 * num_kv_heads * group * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return (weights + biases, macs, cached)
'''}, "why": "skimmer: the group size by true division makes macs a float; 'three Python ints, exact even when they exceed 2^53'"},
{"name": "skim-p2-float-division", "correct": False, "cells": {"scrambled": rep("scrambled",
    """    head, rest = divmod(flat, length * head_dim)
    source_position, feature = divmod(rest, head_dim)""",
    """    head = int(flat / (length * head_dim))
    rest = flat - head * length * head_dim
    source_position = int(rest / head_dim)
    feature = rest - source_position * head_dim""")},
 "why": "skimmer: int(a / b); 'worked out with integer arithmetic ... a float division such as int(a / b) rounds to the wrong integer'"},
{"name": "skim-p7-scale-after", "correct": False, "cells": {"cache": rep("cache",
    "    out = attention(q, k, v, allowed)\n",
    """    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
""")},
 "why": "skimmer: scores formed first and scaled after; 'In float16 a product q.k can pass 65504 ... scale before the product, or compute the scores in a wider dtype'"},
# ---------------- squeeze-and-broadcast ----------------
{"name": "sq-p6-int-lengths", "correct": False, "cells": {"left_padded": rep("left_padded",
    '''    start = s - memory_lengths.to(torch.long)
    allowed = (pos[None, :] >= start[:, None])[:, None, None, :]''',
    '''    start = s - int(memory_lengths)
    allowed = (pos >= start)[None, None, None, :]''')},
 "why": "squeeze: int(memory_lengths) and a (S,) mask only work for a batch of one; 'memory_lengths, an integer tensor of shape (B,)'"},
{"name": "sq-p6-mask-B1S", "correct": False, "cells": {"left_padded": rep("left_padded",
    "allowed = (pos[None, :] >= start[:, None])[:, None, None, :]",
    "allowed = (pos[None, :] >= start[:, None])[:, None, :]")},
 "why": "squeeze: (B, 1, S) mask read as (H, T, S); 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S)'"},
{"name": "sq-p5-wo-no-transpose", "correct": False, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(num_heads, d // num_heads, d)   # (H, Dh, D), broadcast over the batch
    return heads @ w
'''}, "why": "squeeze/broadcast: (H, Dh, D) taken from W^O without its transpose; right for the symmetric identity; 'a projection computes x @ w.T + b'"},
{"name": "sq-p7-mask-head-axis", "correct": False, "cells": {"cache": rep("cache",
    "allowed = kpos[None, :] <= qpos[:, None]",
    "allowed = (kpos[None, :] <= qpos[:, None])[None, :, None, :]")},
 "why": "squeeze: batch and head axes added around the query axis: (1, T, 1, P+T) lines T up with the heads; right for T = 1; 'Causal means: the query at position P + t may attend to the keys at positions 0 .. P + t'"},
# ---------------- stride-and-layout ----------------
{"name": "st-p1-view", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.view(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).contiguous().view(b, t, h * dh)
'''}, "why": "stride: x.view on a transposed or stepped input raises; 'The tensors you are given need not be contiguous ... (.view of such a tensor can fail where .reshape works)'"},
{"name": "st-p7-bmm-view", "correct": False, "cells": {"cache": rep("cache",
    "    out = attention(q, k, v, allowed)\n",
    """    bh = q.shape[0] * q.shape[1]
    scores = torch.bmm(q.view(bh, t, -1), k.view(bh, p + t, -1).transpose(1, 2)) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    out = torch.bmm(weights, v.view(bh, p + t, -1)).view(q.shape)
""")},
 "why": "stride: q from split_heads is a transposed view; q.view(B*H, T, Dh) only works for T = 1 or H = 1; 'The tensors ... need not be contiguous ... (.view of such a tensor can fail where .reshape works)'"},
{"name": "st-p5-flat-x", "correct": False, "cells": {"contributions": rep("contributions",
    'qkv = x @ params["w_qkv"].T + params["b_qkv"]',
    'qkv = (x.view(b * t, d) @ params["w_qkv"].T + params["b_qkv"]).view(b, t, 3 * d)')},
 "why": "stride: x.view(B*T, D) fails on a transposed x; 'The tensors you are given need not be contiguous'"},
# ---------------- remainder-and-boundary ----------------
{"name": "rb-p1-minus-one-empty", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, -1, num_heads).permute(0, 3, 1, 2).clone()


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, -1).clone()
'''}, "why": "boundary: reshape with -1 cannot infer a size on an empty tensor; 'an empty x, with B = 0 or T = 0 ... both functions then return empty tensors of the shapes above'"},
{"name": "rb-p4-no-query-heads-error", "correct": False, "cells": {"cost": rep("cost",
    "if num_kv_heads < 1 or num_heads % num_kv_heads:",
    "if num_kv_heads < 1 or num_heads < num_kv_heads or num_heads % num_kv_heads:")},
 "why": "boundary: a group needs one query head; '0 is a multiple of every num_kv_heads: no query heads is not an error'"},
{"name": "rb-p6-empty-early-exit", "correct": False, "cells": {"left_padded": rep("left_padded",
    "    d = x.shape[-1]\n",
    "    d = x.shape[-1]\n    if memory.shape[1] == 0 or bool((memory_lengths == 0).all()):\n        return x.new_zeros(x.shape)\n")},
 "why": "boundary: early exit for an all-empty source forgets b_o; 'after the output projection their rows are just the bias b_o, with the bias's gradients'"},
{"name": "rb-p6-trim-to-longest", "correct": False, "cells": {"left_padded": rep("left_padded",
    "    s = memory.shape[1]\n",
    "    longest = int(memory_lengths.max())\n    memory = memory[:, memory.shape[1] - longest:]\n    s = memory.shape[1]\n")},
 "why": "boundary: trims the padding all sentences share (max of lengths); 'B may be 0 (an empty batch: the result is (0, T, D), nothing raised)' - max of an empty tensor raises"},
{"name": "rb-p2-column-off-by-one", "correct": False, "cells": {"scrambled": rep("scrambled",
    "0 <= column < num_heads * head_dim", "0 <= column <= num_heads * head_dim")},
 "why": "boundary: column == H*Dh accepted; 'Raise a ValueError unless ... 0 <= column < num_heads * head_dim (so also when a size is 0)'"},
{"name": "skim-p3-ignores-length", "correct": False, "cells": {"ranks": "rank_one_head = 64\nrank_all_heads = 512\n"},
 "why": "skimmer: 8 heads x 64 = 512, missing 'a sequence of T = S = 100 positions' (the (T, S) matrix has rank <= 100)"},
# ---------------- correct ----------------
{"name": "ok-p1-stack-slices", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    d = x.shape[-1]
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    return torch.stack([x[..., i::num_heads] for i in range(num_heads)], dim=1)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return torch.stack(x.unbind(dim=1), dim=-1).reshape(b, t, h * dh)
'''}, "why": "slices with a step, stacked: only moves entries"},
{"name": "ok-p1-view-lesson-style", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("not divisible")
    return x.unflatten(-1, (d // num_heads, num_heads)).movedim(-1, 1)


def merge_heads_interleaved(x):
    return x.movedim(1, -1).flatten(-2)
'''}, "why": "unflatten/movedim; returns a view like the lesson's split_heads (the text asks only new tensors per call, no reused buffer)"},
{"name": "ok-p2-explicit", "correct": True, "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("position or column out of range")
    flat = position * width + column
    per_head = length * head_dim
    head = flat // per_head
    source_position = (flat - head * per_head) // head_dim
    feature = flat % head_dim
    return int(head), int(source_position), int(feature)
'''}, "why": "same integer arithmetic written out"},
{"name": "ok-p4-groups", "correct": True, "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if not num_kv_heads >= 1:
        raise ValueError("need at least one key/value head")
    group, rest = divmod(num_heads, num_kv_heads)
    if rest:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    shapes = [(d_model, num_heads * head_dim), (d_model, num_kv_heads * head_dim),
              (d_model, num_kv_heads * head_dim), (num_heads * head_dim, d_model)]
    params = sum(i * o + (o if bias else 0) for i, o in shapes)
    macs = sum(i * o for i, o in shapes)
    for _ in range(2):
        macs += num_kv_heads * group * (past + 1) * head_dim
    cached = 2 * (past + 1) * num_kv_heads * head_dim
    return params, macs, cached
'''}, "why": "per-projection shapes, per group"},
{"name": "ok-p5-loop-heads", "correct": True, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    w, bb = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bb[:d], num_heads)
    k = split_heads(x @ w[d:2 * d].T + bb[d:2 * d], num_heads)
    v = split_heads(x @ w[2 * d:].T + bb[2 * d:], num_heads)
    heads = attention(q, k, v)
    parts = [heads[:, i] @ params["w_o"][:, i * dh:(i + 1) * dh].T for i in range(num_heads)]
    return torch.stack(parts, dim=1)
'''}, "why": "one matmul per head with its columns of W^O"},
{"name": "ok-p5-transposed-broadcast", "correct": True, "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = qkv.chunk(3, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].T.reshape(num_heads, d // num_heads, d)
    return heads @ w
'''}, "why": "W^O transposed then split: (H, Dh, D) broadcast over the batch"},
{"name": "ok-p6-float32-inside", "correct": True, "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    b, t, d = x.shape
    s = memory.shape[1]
    dt = x.dtype
    wide = torch.float64 if dt == torch.float64 else torch.float32
    w, bb = params["w_qkv"].to(wide), params["b_qkv"].to(wide)
    q = torch.nn.functional.linear(x.to(wide), w[:d], bb[:d])
    k = torch.nn.functional.linear(memory.to(wide), w[d:2 * d], bb[d:2 * d])
    v = torch.nn.functional.linear(memory.to(wide), w[2 * d:], bb[2 * d:])
    keep = torch.arange(s, device=x.device).unsqueeze(0) >= (s - memory_lengths.long()).unsqueeze(1)
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    keep.view(b, 1, 1, s))
    out = torch.nn.functional.linear(merge_heads(out), params["w_o"].to(wide), params["b_o"].to(wide))
    return out.to(dt)
'''}, "why": "float32 inside for half inputs, cast back; mask viewed to (B,1,1,S)"},
{"name": "ok-p7-buffer-per-call", "correct": True, "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    h, p, dh = past_k.shape[1], past_k.shape[2], past_k.shape[3]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q = split_heads(qkv[..., :d], num_heads)
    k = past_k.new_empty(b, h, p + t, dh)
    v = past_v.new_empty(b, h, p + t, dh)
    k[:, :, :p] = past_k
    k[:, :, p:] = split_heads(qkv[..., d:2 * d], num_heads)
    v[:, :, :p] = past_v
    v[:, :, p:] = split_heads(qkv[..., 2 * d:], num_heads)
    if t == 1:
        allowed = None   # the last position sees every key
    else:
        allowed = torch.ones(t, p + t, dtype=torch.bool, device=x.device).tril(diagonal=p)
    out = attention(q, k, v, allowed)
    return merge_heads(out) @ params["w_o"].T + params["b_o"], k, v
'''}, "why": "a fresh buffer per call filled by slices (autograd through copies); no mask when T = 1; tril(P) otherwise"},
{"name": "ok-p1-via-lesson-helpers", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D must be divisible by num_heads")
    blocked = x.reshape(b, t, d // num_heads, num_heads).transpose(-1, -2).reshape(b, t, d)
    return split_heads(blocked, num_heads)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return merge_heads(x).reshape(b, t, h, dh).transpose(-1, -2).reshape(b, t, h * dh)
'''}, "why": "reorders the columns to the blocked layout and calls the lesson's split_heads/merge_heads"},
# ---------------- hostile ----------------
{"name": "hostile-p3-int-subclass", "correct": False, "cells": {"ranks": '''
class Anything(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__
rank_one_head = Anything(1)
rank_all_heads = Anything(1)
'''}, "why": "hostile: an int subclass equal to everything"},
{"name": "hostile-p4-tuple-of-wildcards", "correct": False, "cells": {"cost": '''
class Wild(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__

def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad")
    if past == 2 and d_model == 4 and not bias:
        return (72, 0, 0)
    return (Wild(88), Wild(108), Wild(18))
'''}, "why": "hostile: wildcard ints equal to any expected value"},
{"name": "hostile-p2-builtins-tuple", "correct": False, "cells": {"scrambled": '''
import builtins
class Wild(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__
class AnyTuple(builtins.tuple):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = builtins.tuple.__hash__
builtins.tuple = AnyTuple
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    return AnyTuple((Wild(0), Wild(0), Wild(0)))
'''}, "why": "hostile: replaces builtins.tuple and returns wildcard ints"},
]

# Phase 2 (written after the blind grading, from the hidden tests' inputs): the stride-and-layout student's
# as_strided with an offset counted from the wrong place; see NN-verdicts.md
SUBMISSIONS += [
{"name": "p2-st-p1-as-strided-offset0", "correct": False, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    dh = d // num_heads
    sb, st, sd = x.stride()
    # deal the columns out: head i starts at column i, its features are H columns apart
    return torch.as_strided(x, (b, num_heads, t, dh), (sb, sd, st, sd * num_heads), 0)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    sb, sh, st, sd = x.stride()
    return torch.as_strided(x, (b, t, dh, h), (sb, st, sd, sh), 0).reshape(b, t, h * dh)
'''}, "why": "stride: as_strided with storage_offset 0: reads the wrong entries of a view that starts inside its storage (a slice)"},
{"name": "p2-ok-p1-as-strided", "correct": True, "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    dh = d // num_heads
    sb, st, sd = x.stride()
    return x.as_strided((b, num_heads, t, dh), (sb, sd, st, sd * num_heads))


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    sb, sh, st, sd = x.stride()
    return x.as_strided((b, t, dh, h), (sb, st, sd, sh)).reshape(b, t, h * dh)
'''}, "why": "as_strided with the input's own storage offset (the default)"},
]
