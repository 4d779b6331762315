# Round 27, chapter 03-multi-head: answers by the epsilon-adder (E), the fixed-rank student (F),
# the from-memory student (M) and the mask-and-sentinel student (S); correct ones and hostile ones.
BASE = {}
BASE["interleaved"] = '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''
BASE["scrambled"] = '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if not (0 <= position < length and 0 <= column < num_heads * head_dim):
        raise ValueError("out of range")
    flat = position * (num_heads * head_dim) + column
    head, rest = divmod(flat, length * head_dim)
    pos, feat = divmod(rest, head_dim)
    return (head, pos, feat)
'''
BASE["ranks"] = '''
rank_one_head = 64
rank_all_heads = 100
'''
BASE["cost"] = '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    q, kv = num_heads * head_dim, num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    biases = (q + 2 * kv + d_model) if bias else 0
    macs = weights + 2 * num_heads * (past + 1) * head_dim
    cached = 2 * kv * (past + 1)
    return (weights + biases, macs, cached)
'''
BASE["contributions"] = '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtj,ehj->bhte", heads, w)
'''
BASE["left_padded"] = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + b[:d]
    k = memory @ w[d:2 * d].T + b[d:2 * d]
    v = memory @ w[2 * d:].T + b[2 * d:]
    s = memory.shape[1]
    lengths = memory_lengths.to(torch.int64)
    allowed = torch.arange(s) >= (s - lengths)[:, None]
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                      allowed[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''
BASE["cache"] = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''


def mut(part, old, new, count=1):
    src = BASE[part]
    assert src.count(old) == count, (part, old)
    return {part: src.replace(old, new)}


# a hand-written masked attention used by several answers (softmax written out)
HAND_P6 = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    s = memory.shape[1]
    lengths = memory_lengths.to(torch.int64)
    real = torch.arange(s) >= (s - lengths)[:, None]          # (B, S), True = real key
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)        # (B, H, T, S)
    #MASK
    return merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
'''


def hand_p6(mask_code):
    return {"left_padded": HAND_P6.replace("    #MASK\n", mask_code)}


SUBMISSIONS = [
    # ---------------------------------------------------------------- epsilon-adder
    {"name": "E1-p2-abs-position", "correct": False,
     "cells": mut("scrambled", "if not (0 <= position < length and 0 <= column < num_heads * head_dim):",
                  "if abs(position) >= length or abs(column) >= num_heads * head_dim:  # safe bounds"),
     "why": "Part 2: 'Raise a ValueError unless 0 <= position < length and 0 <= column < num_heads * head_dim': "
            "abs() lets negative positions and columns through."},
    {"name": "E2-p4-max-kv-heads-1", "correct": False,
     "cells": mut("cost", "if num_kv_heads < 1 or num_heads % num_kv_heads:",
                  "if num_heads % max(num_kv_heads, 1):  # guard the modulo against 0"),
     "why": "Part 4: 'Raise a ValueError unless num_kv_heads >= 1 ... num_kv_heads = 0 is [an error]': the guard "
            "max(G, 1) turns G = 0 into 1 and raises nothing."},
    {"name": "E3-p5-global-max-eps", "correct": False,
     "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    e = torch.exp(scores - scores.max())              # one max for stability
    weights = e / (e.sum(dim=-1, keepdim=True) + 1e-9)  # never divide by zero
    heads = weights @ v
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtj,ehj->bhte", heads, w)
'''},
     "why": "Part 5: 'Scores may be of any size, tens of thousands and more': the max over the whole tensor (not each "
            "row) underflows every exp of a row far below it, and the 1e-9 then gives 0 in place of the softmax."},
    {"name": "E4-p6-lengths-clamp-min-1", "correct": False,
     "cells": mut("left_padded", "lengths = memory_lengths.to(torch.int64)",
                  "lengths = memory_lengths.to(torch.int64).clamp(min=1)  # keep one key so the softmax has a row"),
     "why": "Part 6: 'A source sentence of length 0 gives its queries nothing to attend to ... their rows are just "
            "the bias b_o': the clamp lets them attend to the last padding position."},
    {"name": "E5-p6-denominator-eps", "correct": False,
     "cells": hand_p6('''    scores = scores.masked_fill(~real[:, None, None, :], float("-inf"))
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True).clamp(min=-1e30).nan_to_num(0.0))
    weights = e / (e.sum(dim=-1, keepdim=True) + 1e-6)      # no 0 / 0 for an empty sentence
'''),
     "why": "Part 6: the result must be the layer's output (attention = softmax): the + 1e-6 in the denominator "
            "shrinks every weight by a relative 1e-6/sum (within float32 rounding, far outside float64's)."},
    {"name": "E6-p1-nan-to-num", "correct": False,
     "cells": mut("interleaved", "return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)",
                  "return torch.nan_to_num(x).reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)"),
     "why": "Part 1: 'every value, inf, -inf and -0.0 included, arrives unchanged in its new place': nan_to_num "
            "turns inf into the largest finite value."},
    {"name": "E7-p5-scale-eps", "correct": False,
     "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    scores = q @ k.transpose(-2, -1) / (math.sqrt(dh) + 1e-6)   # safe division
    heads = torch.softmax(scores, dim=-1) @ v
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtj,ehj->bhte", heads, w)
'''},
     "why": "Part 5: the heads are softmax(q k^T / sqrt(Dh)) v; the + 1e-6 changes a score of 10^4 by 10^-2 at Dh = 1, "
            "which moves the softmax ('Scores may be of any size, tens of thousands and more')."},
    # ---------------------------------------------------------------- fixed-rank
    {"name": "F1-p1-view-minus-one", "correct": False,
     "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError("D not divisible by num_heads")
    return x.reshape(b, t, -1, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(b, t, -1)
'''},
     "why": "Part 1: 'an empty x, with B = 0 or T = 0 ... both functions then return empty tensors of the shapes "
            "above': reshape with -1 cannot infer the size of an empty tensor and raises."},
    {"name": "F2-p6-mask-B1S", "correct": False,
     "cells": mut("left_padded", "allowed[:, None, None, :])", "allowed[:, None, :])  # (B, 1, S): one row per sentence"),
     "why": "Part 6: 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S) ... a (B, 1, S) "
            "one [is read] as (H, T, S)': right only when B = 1 as in the example."},
    {"name": "F3-p7-mask-BTS", "correct": False,
     "cells": mut("cache", "out = merge_heads(attention(q, k, v, allowed))",
                  "allowed = allowed.expand(x.shape[0], t, p + t)  # one mask per sequence\n"
                  "    out = merge_heads(attention(q, k, v, allowed))"),
     "why": "Part 7: the mask must line up with the scores (B, H, T, P+T): a (B, T, P+T) mask is read as (H, T, P+T), "
            "right only for a batch of one as in the example."},
    {"name": "F4-p6-int-lengths", "correct": False,
     "cells": mut("left_padded", "allowed = torch.arange(s) >= (s - lengths)[:, None]",
                  "allowed = (torch.arange(s) >= s - int(lengths))[None, :]"),
     "why": "Part 6: memory_lengths has shape (B,): int() of it only works for the example's batch of one."},
    {"name": "F5-p5-bmm-batch0", "correct": False,
     "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (z.reshape(b * t, num_heads, dh).transpose(0, 1) for z in qkv.split(d, dim=-1))  # (H, B*T, Dh)
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(dh)
    heads = torch.bmm(torch.softmax(scores, dim=-1), v)              # (H, B*T, Dh)
    heads = heads.reshape(num_heads, b, t, dh).transpose(0, 1)         # (B, H, T, Dh)
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtj,ehj->bhte", heads, w)
'''},
     "why": "Part 5: self-attention within each sentence: folding the batch into the positions (B*T rows) lets the "
            "queries of one sentence attend to the keys of the others; right only for a batch of one."},
    # ---------------------------------------------------------------- from-memory
    {"name": "M1-p3-affine-plus-one", "correct": False,
     "cells": {"ranks": "rank_one_head = 65  # Dh plus one for the bias (affine map)\nrank_all_heads = 100\n"},
     "why": "Part 3a: Q_i is (T, Dh) whatever the bias, so rank(S_i) <= Dh = 64."},
    {"name": "M2-p3-sum-of-ranks", "correct": False,
     "cells": {"ranks": "rank_one_head = 64\nrank_all_heads = 8 * 64  # rank of a sum <= sum of the ranks = D\n"},
     "why": "Part 3b: S_1 + ... + S_8 is (T, S) = (100, 100), so its rank is at most 100."},
    {"name": "M3-p5-paper-WO-rows", "correct": False,
     "cells": mut("contributions", 'w = params["w_o"].reshape(d, num_heads, d // num_heads)',
                  'w = params["w_o"].reshape(num_heads, d // num_heads, d).permute(2, 0, 1)  # Concat(heads) W^O: rows of W^O'),
     "why": "Part 5: 'As with nn.Linear, a projection computes x @ w.T + b': the paper's Concat(...) W^O takes rows of W^O, "
            "PyTorch's layout columns; the same only for a symmetric W^O like the identity of the example."},
    {"name": "M4-p5-bias-shared", "correct": False,
     "cells": mut("contributions", 'return torch.einsum("bhtj,ehj->bhte", heads, w)',
                  'return torch.einsum("bhtj,ehj->bhte", heads, w) + params["b_o"] / num_heads  # each head its share of b_o'),
     "why": "Part 5: 'The bias b_o belongs to no head' (the sum over heads plus b_o is the output)."},
    {"name": "M5-p6-kv-swapped", "correct": False,
     "cells": {"left_padded": BASE["left_padded"].replace("k = memory @ w[d:2 * d].T + b[d:2 * d]", "K_").replace(
         "v = memory @ w[2 * d:].T + b[2 * d:]", "v = memory @ w[d:2 * d].T + b[d:2 * d]").replace(
         "K_", "k = memory @ w[2 * d:].T + b[2 * d:]")},
     "why": "Part 6: the table: W^Q, W^K, W^V stacked in that order: keys from rows D:2D, values from 2D:3D."},
    {"name": "M6-p7-no-max-shift", "correct": False,
     "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    e = torch.exp((q / math.sqrt(dh)) @ k.transpose(-2, -1)) * allowed
    weights = e / e.sum(dim=-1, keepdim=True)
    out = merge_heads(weights @ v) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''},
     "why": "Part 7: 'at scores in the thousands, where they must stay finite': a softmax written from memory "
            "without the max shift overflows to inf/inf = NaN."},
    # ---------------------------------------------------------------- mask-and-sentinel
    {"name": "S1-p4-bias-is-True", "correct": False,
     "cells": mut("cost", "biases = (q + 2 * kv + d_model) if bias else 0",
                  "biases = (q + 2 * kv + d_model) if bias is True else 0"),
     "why": "Part 4: 'any true value: True, 1, 2, ...: still one bias per output': `is True` counts none for bias=1."},
    {"name": "S2-p4-zero-heads-sentinel", "correct": False,
     "cells": mut("cost", "if num_kv_heads < 1 or num_heads % num_kv_heads:",
                  "if not num_heads or not num_kv_heads or num_heads % num_kv_heads:"),
     "why": "Part 4: '0 is a multiple of every num_kv_heads: no query heads is not an error'."},
    {"name": "S3-p6-finfo-min", "correct": False,
     "cells": hand_p6('''    scores = scores.masked_fill(~real[:, None, None, :], torch.finfo(scores.dtype).min)
    weights = torch.softmax(scores, dim=-1)
'''),
     "why": "Part 6: 'do not give it a large negative score, not even that lowest value' and a length-0 sentence "
            "must give b_o (finfo.min spreads it uniformly over the padding)."},
    {"name": "S4-p6-minus-1e4", "correct": False,
     "cells": hand_p6('''    scores = scores + (~real[:, None, None, :]).to(scores.dtype) * -1e4   # additive mask
    weights = torch.softmax(scores, dim=-1)
'''),
     "why": "Part 6: 'The padding positions ... may score far above every real key (a thousand higher)': -1e4 "
            "added does not hide them; and a length-0 sentence gets the padding's values, not b_o."},
    {"name": "S5-p7-is-causal-prefill-only", "correct": False,
     "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    # prefill (empty cache): causal; decoding (one token): it sees the whole cache, so no mask
    causal = past_k.shape[2] == 0 and x.shape[1] > 1
    heads = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''},
     "why": "Part 7: 'the query at position P + t may attend to the keys at positions 0 .. P + t ... none after "
            "it', also for a block of T > 1 new tokens after a non-empty cache."},
    {"name": "S7-p6-zero-length-sentinel", "correct": False,
     "cells": mut("left_padded", "lengths = memory_lengths.to(torch.int64)",
                  "lengths = memory_lengths.to(torch.int64)\n"
                  "    lengths = torch.where(lengths == 0, s, lengths)   # 0 = no length given: the whole source is real"),
     "why": "Part 6: 'A source sentence of length 0 gives its queries nothing to attend to ... their rows are just the bias b_o'."},
    {"name": "S6-p7-minus-1e9", "correct": False,
     "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    hidden = torch.arange(p + t)[None, :] > (p + torch.arange(t))[:, None]
    scores = (q / math.sqrt(dh)) @ k.transpose(-2, -1)
    scores = scores.masked_fill(hidden, -1e9)
    out = merge_heads(torch.softmax(scores, dim=-1) @ v) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''},
     "why": "Part 7: 'leave the later keys out (a boolean mask, or -inf), do not give them a large negative score'."},
    # ---------------------------------------------------------------- correct
    {"name": "C1-p1-column-index", "correct": True,
     "cells": {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads != 0:
        raise ValueError(f"{d} is not divisible by {num_heads}")
    dh = d // num_heads
    order = torch.arange(d).reshape(dh, num_heads).T.reshape(-1)   # head 0's columns, then head 1's, ...
    return x[:, :, order].reshape(b, t, num_heads, dh).transpose(1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    blocks = x.transpose(1, 2).reshape(b, t, h * dh)                 # head blocks side by side
    order = torch.arange(h * dh).reshape(h, dh).T.reshape(-1)         # column c = i + j*H comes from block i, feature j
    return blocks[:, :, order]
'''},
     "why": "gathers the columns with an index (moves entries only); works for empty x."},
    {"name": "C2-p2-floor-mod", "correct": True,
     "cells": {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    width = num_heads * head_dim
    if position < 0 or position >= length or column < 0 or column >= width:
        raise ValueError("position or column out of range")
    flat = position * width + column
    head = flat // (length * head_dim)
    source_position = (flat // head_dim) % length
    feature = flat % head_dim
    return (int(head), int(source_position), int(feature))
'''},
     "why": "integer // and %, another order."},
    {"name": "C3-p3-min", "correct": True,
     "cells": {"ranks": "rank_one_head = min(512 // 8, 100, 100)\nrank_all_heads = min(8 * (512 // 8), 100, 100)\n"},
     "why": "the bounds written out."},
    {"name": "C4-p4-bool-bias", "correct": True,
     "cells": {"cost": '''
def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads <= 0:
        raise ValueError("need at least one key/value head")
    if num_heads % num_kv_heads != 0:
        raise ValueError("num_heads must be a multiple of num_kv_heads")
    hq = num_heads * head_dim
    hkv = num_kv_heads * head_dim
    per_token = d_model * hq + 2 * d_model * hkv + hq * d_model
    parameters = per_token + int(bool(bias)) * (hq + 2 * hkv + d_model)
    keys = past + 1
    macs = per_token + num_heads * keys * head_dim + num_heads * keys * head_dim
    cached = 2 * keys * hkv
    return parameters, macs, cached
'''},
     "why": "bool(bias), written step by step."},
    {"name": "C5-p5-loop-heads-f64", "correct": True,
     "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    xd = x.to(torch.float64)
    p = {key: value.to(torch.float64) for key, value in params.items()}
    qkv = xd @ p["w_qkv"].T + p["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    heads = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(dh), dim=-1) @ v
    parts = []
    for i in range(num_heads):
        parts.append(heads[:, i] @ p["w_o"][:, i * dh:(i + 1) * dh].T)
    return torch.stack(parts, dim=1).to(x.dtype)
'''},
     "why": "float64 inside and cast back; one slice of W^O's columns per head."},
    {"name": "C6-p6-no-key-bias", "correct": True,
     "cells": mut("left_padded", "k = memory @ w[d:2 * d].T + b[d:2 * d]",
                  "k = memory @ w[d:2 * d].T  # the key bias adds q.b_k to a whole row of scores: the softmax ignores it"),
     "why": "from memory: the key bias shifts every score of a row by the same q.b_k, which the softmax cancels; "
            "its gradient is 0 in exact arithmetic."},
    {"name": "C7-p6-nan-to-num-allowed", "correct": True,
     "cells": hand_p6('''    scores = scores.masked_fill(~real[:, None, None, :], float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)   # an empty sentence: all -inf -> NaN -> 0
'''),
     "why": "epsilon-adder's guard where the text wants zeros: -inf mask, NaN rows of an empty sentence turned to 0 "
            "(its gradient is 0 there too)."},
    {"name": "C8-p6-reverse-index-loop", "correct": True,
     "cells": {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(torch.nn.functional.linear(x, w[:d], b[:d]), num_heads)
    k = split_heads(torch.nn.functional.linear(memory, w[d:2 * d], b[d:2 * d]), num_heads)
    v = split_heads(torch.nn.functional.linear(memory, w[2 * d:], b[2 * d:]), num_heads)
    s = memory.shape[1]
    from_end = torch.arange(s - 1, -1, -1)          # distance of each key from the end
    outs = []
    for i in range(x.shape[0]):
        keep = from_end < memory_lengths[i].long()  # the last lengths[i] keys
        outs.append(attention(q[i:i + 1], k[i:i + 1], v[i:i + 1], allowed=keep.reshape(1, 1, 1, s)))
    heads = torch.cat(outs, dim=0) if outs else q.new_zeros(0, num_heads, x.shape[1], d // num_heads) @ v.new_zeros(0, num_heads, d // num_heads, d // num_heads)
    return torch.nn.functional.linear(merge_heads(heads), params["w_o"], params["b_o"])
'''},
     "why": "a loop over the batch (allowed), keys counted from the end."},
    {"name": "C9-p7-triu-negated", "correct": True,
     "cells": mut("cache", "allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]",
                  "allowed = ~torch.ones(t, p + t, dtype=torch.bool).triu(diagonal=p + 1)  # hide the keys after each query"),
     "why": "mask-and-sentinel student right: triu(k=P+1) marks the hidden keys, negated."},
    {"name": "C10-p7-float32-scores", "correct": True,
     "cells": {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    p, t = past_k.shape[2], x.shape[1]
    wide = torch.promote_types(x.dtype, torch.float32)
    allowed = torch.arange(p + t)[None, :] <= (p + torch.arange(t))[:, None]
    heads = attention(q.to(wide), k.to(wide), v.to(wide), allowed).to(x.dtype)
    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]
    return (out, k, v)
'''},
     "why": "wider dtype for the attention of half inputs (allowed: 'or work in a wider dtype')."},
    {"name": "C11-p5-masked-copy-per-head", "correct": True,
     "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    d = x.shape[-1]
    dh = d // num_heads
    qkv = torch.nn.functional.linear(x, params["w_qkv"], params["b_qkv"])
    q, k, v = (split_heads(z, num_heads) for z in qkv.chunk(3, dim=-1))
    merged = merge_heads(attention(q, k, v))
    parts = []
    for i in range(num_heads):
        keep = torch.zeros(d, dtype=torch.bool)
        keep[i * dh:(i + 1) * dh] = True
        only_i = torch.where(keep, merged, torch.zeros((), dtype=merged.dtype))
        parts.append(only_i @ params["w_o"].T)
    return torch.stack(parts, dim=1)
'''},
     "why": "each head's columns kept, the others zeroed, through W^O without its bias."},
    # ---------------------------------------------------------------- hostile
    {"name": "X1-p4-always-equal-ints", "correct": False,
     "cells": {"cost": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


class Counts(tuple):
    def __eq__(self, other):
        return True
    __hash__ = tuple.__hash__


def decode_step_cost(past, d_model, num_heads, num_kv_heads, head_dim, bias=True):
    if num_kv_heads < 1 or num_heads % num_kv_heads:
        raise ValueError("bad heads")
    return Counts((Count(72), Count(0), Count(0)))
'''},
     "why": "hostile: tuple and int subclasses equal to everything."},
    {"name": "X2-p5-disable-assert-close", "correct": False,
     "cells": {"contributions": '''
import torch.testing


def head_contributions(x, params, num_heads):
    torch.testing.assert_close = lambda *a, **k: None
    b, t, d = x.shape
    return x.new_zeros(b, num_heads, t, d)
'''},
     "why": "hostile: disables torch.testing.assert_close and returns zeros."},
    {"name": "X3-p3-int-subclass", "correct": False,
     "cells": {"ranks": '''
class Rank(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

rank_one_head = Rank(1)
rank_all_heads = Rank(1)
'''},
     "why": "hostile: ints equal to everything."},
]

# ---- second blind batch (written after the first blind grading, before reading any test)
SUBMISSIONS += [
    {"name": "S8-p6-mask-in-lengths-dtype", "correct": False,
     "cells": mut("left_padded", "allowed = torch.arange(s) >= (s - lengths)[:, None]",
                  "allowed = torch.arange(s) >= (s - memory_lengths)[:, None]   # first real key of each sentence"),
     "why": "Part 6: 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around': S - lengths "
            "in uint8 wraps for S > 255 (300 - 17 is 27)."},
    {"name": "E8-p7-sdpa-scale-eps", "correct": False,
     "cells": mut("cache", "out = merge_heads(attention(q, k, v, allowed))",
                  "heads = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed, "
                  "scale=1.0 / (math.sqrt(q.shape[-1]) + 1e-6))\n"
                  "    out = merge_heads(heads)"),
     "why": "Part 7: causal multi-head self-attention scales by 1/sqrt(Dh): + 1e-6 moves scores in the thousands."},
    {"name": "C12-p6-lengths-clamp-to-S", "correct": True,
     "cells": mut("left_padded", "lengths = memory_lengths.to(torch.int64)",
                  "lengths = memory_lengths.to(torch.int64).clamp(0, s)   # a length never exceeds S"),
     "why": "epsilon-adder's guard the text allows: lengths are between 0 and S."},
]
