# Round 25 class sweep, chapter 03 (multi-head): classes K-P put into the model answer, one variant at a time.
# Class applicability per part: see 03-sweep-verdicts.md.
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1: class N (round trip sharing state)
W("N-p1-merge-reads-heads-of-last-split", {"interleaved": '''
LAST = {}


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    LAST["heads"] = num_heads
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, _, t, dh = x.shape
    h = LAST.get("heads", x.shape[1])  # the number of heads the last split dealt out
    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)
'''}, "N: merge reads the head count the last split left in a global; text: inverse of any (B, H, T, Dh), keep nothing between calls")

W("N-p1-merge-reads-width-of-last-split", {"interleaved": '''
LAST = {}


def split_heads_interleaved(x, num_heads):
    b, t, d = x.shape
    if d % num_heads:
        raise ValueError(f"model width {d} is not divisible by num_heads={num_heads}")
    LAST["d"] = d
    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)


def merge_heads_interleaved(x):
    b, h, t, dh = x.shape
    d = LAST.get("d", h * dh)
    return x.permute(0, 2, 3, 1).reshape(b, t, d)
'''}, "N: merge reads D from the last split; text: inverse of any (B, H, T, Dh), keep nothing between calls")


# ---------------------------------------------------------------- own attention, for K and O (Parts 5-7)
def attend(scale="divide", fill="inf"):
    """An attention written out: boolean mask (True = may attend), zeros for a query that sees nothing."""
    if scale == "divide":
        scores = "(q @ k.transpose(-2, -1)) / math.sqrt(dh)"
    elif scale == "q_folded":
        scores = "(q * (1.0 / math.sqrt(dh))) @ k.transpose(-2, -1)"
    elif scale == "reciprocal_after":
        scores = "(q @ k.transpose(-2, -1)) * dh ** -0.5"
    elif scale == "k_folded_exp_log":
        scores = "q @ (k * math.exp(-0.5 * math.log(dh))).transpose(-2, -1)"
    elif scale == "rsqrt_tensor":
        scores = "(q @ k.transpose(-2, -1)) * torch.rsqrt(torch.tensor(float(dh), dtype=q.dtype))"
    else:
        raise ValueError(scale)
    fill_value = "float('-inf')" if fill == "inf" else "torch.finfo(scores.dtype).min"
    return f'''
def my_attention(q, k, v, allowed=None):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    dh = q.shape[-1]
    scores = {scores}
    if allowed is not None:
        scores = scores.masked_fill(~allowed, {fill_value})
    top = scores.amax(dim=-1, keepdim=True).detach()
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    e = torch.exp(scores - top)
    total = e.sum(dim=-1, keepdim=True)
    weights = e / torch.where(total > 0, total, torch.ones_like(total))
    return (weights @ v).to(dtype)
'''


def contributions(scale):
    return attend(scale) + '''

def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    heads = my_attention(q, k, v)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''


def left_padded(scale="divide", fill="inf", positions="torch.arange(s)", prelude=""):
    return attend(scale, fill) + prelude + f'''

def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = {positions}[None, :] >= s - memory_lengths.long()[:, None]
    heads = my_attention(q, k, v, real[:, None, None, :])
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''


def cache(scale="divide", fill="inf", mask="torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)", prelude=""):
    return attend(scale, fill) + prelude + f'''

def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = {mask}
    out = merge_heads(my_attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''


# ---------------------------------------------------------------- Part 5: class O (correct formulas)
C("O-p5-own-attention-divide", {"contributions": contributions("divide")}, "O baseline: own attention, scores / sqrt(Dh)")
C("O-p5-q-times-reciprocal", {"contributions": contributions("q_folded")}, "O: the scale folded into q as a reciprocal; text fixes no formula")
C("O-p5-scores-times-pow", {"contributions": contributions("reciprocal_after")}, "O: scores * Dh ** -0.5")
C("O-p5-k-times-exp-log", {"contributions": contributions("k_folded_exp_log")}, "O: k scaled by exp(-log(Dh) / 2)")
C("O-p5-rsqrt", {"contributions": contributions("rsqrt_tensor")}, "O: scores * torch.rsqrt(Dh) in the dtype")

# ---------------------------------------------------------------- Part 6: K, L, O
W("K-p6-finfo-min-fill", {"left_padded": left_padded(fill="min")},
  "K: padding filled with finfo(dtype).min ties with real keys scoring exactly that value; text: leave the padding out, not even the lowest value")
W("L-p6-positions-table-2-to-20", {"left_padded": left_padded(
    positions="POSITIONS[:s]", prelude="\n\nPOSITIONS = torch.arange(1 << 20)  # built once, sliced per call\n")},
  "L: a table of 2**20 positions made once and sliced; text: S stays below 2**24 (the slice is short past 2**20)")
W("L-p6-positions-table-2-to-16", {"left_padded": left_padded(
    positions="POSITIONS[:s]", prelude="\n\nPOSITIONS = torch.arange(1 << 16)  # built once, sliced per call\n")},
  "L: a table of 2**16 positions made once and sliced; text: S stays below 2**24")
C("O-p6-own-attention-divide", {"left_padded": left_padded("divide")}, "O baseline: own attention with -inf")
C("O-p6-q-times-reciprocal", {"left_padded": left_padded("q_folded")}, "O: scale folded into q")
C("O-p6-scores-times-pow", {"left_padded": left_padded("reciprocal_after")}, "O: scores * Dh ** -0.5")
C("O-p6-k-times-exp-log", {"left_padded": left_padded("k_folded_exp_log")}, "O: k scaled by exp(-log(Dh)/2)")

# ---------------------------------------------------------------- Part 7: K, L, N, O
W("K-p7-finfo-min-fill", {"cache": cache(fill="min")},
  "K: later keys filled with finfo(dtype).min tie with seen scores of that value; text: not even that lowest value")
W("L-p7-positions-table-2-to-20", {"cache": cache(
    mask="POSITIONS[:p + t][None, :] <= POSITIONS[p:p + t][:, None]",
    prelude="\n\nPOSITIONS = torch.arange(1 << 20)  # built once, sliced per call\n")},
  "L: a table of 2**20 positions made once and sliced; text: P in the millions, P + T below 2**24")
W("L-p7-positions-table-2-to-20-per-call", {"cache": cache(
    mask="torch.arange(1 << 20)[:p + t][None, :] <= torch.arange(1 << 20)[p:p + t][:, None]")},
  "L: a table of 2**20 positions (rebuilt per call) sliced; text: P + T below 2**24")
W("N-p7-cache-kept-in-a-global", {"cache": '''
STORE = {}


def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    kept = STORE.get("kv")
    if kept is not None and kept[0].shape == past_k.shape and kept[1].shape == past_v.shape:
        past_k, past_v = kept  # the cache this function wrote last time
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)
    out = merge_heads(attention(q, k, v, allowed)) @ params["w_o"].T + params["b_o"]
    STORE["kv"] = (k, v)
    return out, k, v
'''}, "N: cache write/read through a global: reads the cache its last call returned instead of past_k/past_v")
C("O-p7-own-attention-divide", {"cache": cache("divide")}, "O baseline: own attention with -inf")
C("O-p7-q-times-reciprocal", {"cache": cache("q_folded")}, "O: scale folded into q")
C("O-p7-scores-times-pow", {"cache": cache("reciprocal_after")}, "O: scores * Dh ** -0.5")
C("O-p7-k-times-exp-log", {"cache": cache("k_folded_exp_log")}, "O: k scaled by exp(-log(Dh)/2)")
