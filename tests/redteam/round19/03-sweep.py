# Red team 19, class sweep of chapter 03 (multi-head attention): the classes of BRIEF-SWEEP.md, one variant of the
# model answer at a time. Class letters in each name and "why".
SUBMISSIONS = []


def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


LEFT = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d, s = x.shape[-1], memory.shape[1]
    w, b = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + b[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + b[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + b[2 * d:], num_heads)
    real = REAL
    heads = HEADS
    return merge_heads(heads) @ params["w_o"].T + params["b_o"]
'''
REAL = "torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]"
HEADS = "attention(q, k, v, real[:, None, None, :])"


def left(real=REAL, heads=HEADS, extra=""):
    return {"left_padded": extra + LEFT.replace("REAL", real).replace("HEADS", heads)}


CACHE = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    p, t = past_k.shape[2], x.shape[1]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k_new, v_new = (split_heads(part, num_heads) for part in qkv.chunk(3, dim=-1))
    k = torch.cat([past_k, k_new], dim=2)
    v = torch.cat([past_v, v_new], dim=2)
    allowed = ALLOWED
    out = merge_heads(HEADS) @ params["w_o"].T + params["b_o"]
    return out, k, v
'''
ALLOWED = "torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p)"
CHEADS = "attention(q, k, v, allowed)"


def cache(allowed=ALLOWED, heads=CHEADS, extra=""):
    return {"cache": extra + CACHE.replace("ALLOWED", allowed).replace("HEADS", heads)}


# written-out attentions used by the variants (the helper names have no leading underscore)
SOFTMAX_DEFERRED = '''
def attend_deferred(q, k, v, allowed):
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, float("-inf"))
    m = scores.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    total = e.sum(dim=-1, keepdim=True)
    total = total + (total == 0).to(total.dtype)  # a row with no key: 0 / 1, and a finite gradient
    return (e @ v) / total                    # weighted sum first, normalised after: in float16 e @ v can pass 65504
'''
SOFTMAX_ADD = '''
def attend_additive(q, k, v, allowed, fill):
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = scores + (~allowed).to(scores.dtype) * fill(scores.dtype)
    out = torch.softmax(scores, dim=-1) @ v
    return torch.where(allowed.any(dim=-1, keepdim=True), out, torch.zeros_like(out))
'''
SOFTMAX_FILL = '''
def attend_filled(q, k, v, allowed):
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    out = torch.softmax(scores, dim=-1) @ v
    return torch.where(allowed.any(dim=-1, keepdim=True), out, torch.zeros_like(out))
'''
SOFTMAX_COUNT = '''
def attend_counted(q, k, v, allowed):
    out = attention(q, k, v, allowed)
    count = allowed.expand(*out.shape[:-1], allowed.shape[-1]).sum(dim=-1, keepdim=True, dtype=torch.uint8)
    return torch.where(count > 0, out, torch.zeros_like(out))   # a row of 256 allowed keys counts 0
'''

# ---------------- A: half precision past 65504 ----------------
W("A1-left-padded-float16-deferred-normalisation", left(heads="attend_deferred(q, k, v, real[:, None, None, :])",
                                                        extra=SOFTMAX_DEFERRED),
  "A: Part 6 accepts float16 and bounds no value; (exp @ v) summed before the division passes 65504 where the output does not")
W("A2-cache-float16-deferred-normalisation", cache(heads="attend_deferred(q, k, v, allowed)", extra=SOFTMAX_DEFERRED),
  "A: Part 7, same: e @ v in float16 before the division by the row sum")
W("A3-left-padded-float16-unscaled-product", left(heads="attend_additive_unscaled(q, k, v, real[:, None, None, :])",
                                                  extra='''
def attend_additive_unscaled(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return torch.where(allowed.any(dim=-1, keepdim=True), out, torch.zeros_like(out))
'''), "A: the closed N8 slip, multiplied by the reciprocal instead of divided (same overflow)")
C("A-ok-cache-float32-inside", cache(heads="attention(q.float(), k.float(), v.float(), allowed).to(x.dtype)"),
  "A: the text allows a wider dtype inside (float64 inputs would lose digits in float32: so only where x is half)"
  if False else "A: scores in float32 inside for half inputs, the dtype of x otherwise")
SUBMISSIONS[-1]["cells"] = cache(heads="(attention(q.float(), k.float(), v.float(), allowed).to(x.dtype) "
                                       "if x.dtype in (torch.float16, torch.bfloat16) else attention(q, k, v, allowed))")
C("A-ok-left-padded-scale-q-first-deferred-float32", left(heads="attend_deferred(q.float(), k.float(), v.float(), "
                                                               "real[:, None, None, :]).to(x.dtype) if x.dtype in "
                                                               "(torch.float16, torch.bfloat16) else "
                                                               "attend_deferred(q, k, v, real[:, None, None, :])",
                                                         extra=SOFTMAX_DEFERRED),
  "A: the deferred normalisation done in float32 for half inputs: allowed")

# ---------------- C: rounding boundary at one alignment ----------------
W("C1-left-padded-positions-in-x-dtype-one-based",
  left(real="torch.arange(1, s + 1, dtype=x.dtype)[None, :] > (s - memory_lengths.long()[:, None]).to(x.dtype)"),
  "C: Part 6 'build the mask from integer positions, not from positions in the dtype of x', one-based")
W("C2-cache-positions-in-x-dtype-one-based",
  cache(allowed="torch.arange(1, p + t + 1, dtype=x.dtype)[None, :] <= torch.arange(p + 1, p + t + 1, dtype=x.dtype)[:, None]"),
  "C: Part 7 'compare positions as integers, not in the dtype of x', one-based")
W("C3-cache-positions-in-x-dtype-zero-based",
  cache(allowed="torch.arange(p + t, dtype=x.dtype)[None, :] <= torch.arange(p, p + t, dtype=x.dtype)[:, None]"),
  "C: Part 7, zero-based (the alignment the text's example names)")
C("C-ok-cache-positions-float32", cache(allowed="torch.arange(p + t, dtype=torch.float32)[None, :] <= "
                                              "torch.arange(p, p + t, dtype=torch.float32)[:, None]"),
  "C: float32 positions, exact since P + T stays below 2**24 (the text says so)")

# ---------------- D: counts in a narrow integer type ----------------
W("D1-left-padded-lengths-to-uint8",
  left(real="torch.arange(s)[None, :] >= s - memory_lengths.to(torch.uint8).long()[:, None]"),
  "D: Part 6 'memory_lengths may have any integer dtype' and S past 256: a length of 256 kept in uint8 is 0")
W("D2-left-padded-empty-rows-counted-in-uint8", left(heads="attend_counted(q, k, v, real[:, None, None, :])",
                                                     extra=SOFTMAX_COUNT),
  "D: Part 6, a sentence with 256 real positions counted as none (uint8 sum) gets the bias alone")
W("D3-cache-empty-rows-counted-in-uint8", cache(heads="attend_counted(q, k, v, allowed)", extra=SOFTMAX_COUNT),
  "D: Part 7, a query that sees 256 keys counted as none (uint8 sum)")
W("D4-left-padded-empty-rows-counted-in-int8", left(heads="attend_counted(q, k, v, real[:, None, None, :])",
                                                    extra=SOFTMAX_COUNT.replace("uint8", "int8")),
  "D: Part 6, counted in int8: 128 allowed keys wrap to -128")

# ---------------- E: intermediate along the wrong axis ----------------
W("E1-cache-square-mask-sliced",
  cache(allowed="torch.ones(p + t, p + t, dtype=torch.bool).tril()[p:]"),
  "E: Part 7 'build nothing of size (P + T, P + T)': the square mask fits when T is close to P + T")
W("E2-cache-keys-by-keys-mask-when-short",
  cache(allowed="(torch.ones(p + t, p + t, dtype=torch.bool).tril()[p:] if t * 4 >= p + t "
                "else torch.ones(t, p + t, dtype=torch.bool).tril(diagonal=p))"),
  "E: Part 7, the square mask only where T is at least a quarter of P + T (T close to S)")

# ---------------- F: a finite mask added to unbounded scores ----------------
for name, fill, part in (("F1-left-padded-add-minus-1e9", "lambda dt: -1e9", "left"),
                         ("F2-left-padded-add-finfo-min", "lambda dt: torch.finfo(dt).min", "left"),
                         ("F3-cache-add-minus-1e9", "lambda dt: -1e9", "cache"),
                         ("F4-cache-add-finfo-min", "lambda dt: torch.finfo(dt).min", "cache")):
    if part == "left":
        cells = left(heads=f"attend_additive(q, k, v, real[:, None, None, :], {fill})", extra=SOFTMAX_ADD)
    else:
        cells = cache(heads=f"attend_additive(q, k, v, allowed, {fill})", extra=SOFTMAX_ADD)
    W(name, cells, "F: Part 6/7 'do not give it a large negative score': a finite value added to the masked scores")
W("F5-left-padded-fill-finfo-min", left(heads="attend_filled(q, k, v, real[:, None, None, :])", extra=SOFTMAX_FILL),
  "F: Part 6 'not even that lowest value, which ties with such keys' (masked_fill, not added)")
W("F6-cache-fill-finfo-min", cache(heads="attend_filled(q, k, v, allowed)", extra=SOFTMAX_FILL),
  "F: Part 7, same")

# ---------------- H: sizes from .max() of rows with no positions ----------------
W("H1-left-padded-trim-to-longest",
  left(real="torch.arange(s)[None, :] >= s - memory_lengths.long()[:, None]",
       heads="attention(q[..., :, :], k[:, :, s - int(memory_lengths.max()):], v[:, :, s - int(memory_lengths.max()):], "
             "real[:, None, None, s - int(memory_lengths.max()):])"),
  "H: Part 6 'B may be 0': keys trimmed to the longest sentence, .max() of an empty batch raises")
W("H2-left-padded-trim-to-longest-at-least-one",
  left(heads="attention(q, k[:, :, s - max(int(memory_lengths.max()), 1):], v[:, :, s - max(int(memory_lengths.max()), 1):], "
             "real[:, None, None, s - max(int(memory_lengths.max()), 1):]) if memory_lengths.numel() else "
             "attention(q, k, v, real[:, None, None, :])"),
  "H: Part 6, trimmed, with a guard for B = 0 (correct? keys trimmed only drop padding)")
SUBMISSIONS[-1]["correct"] = True
