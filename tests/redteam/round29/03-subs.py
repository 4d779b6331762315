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
    flat = position * num_heads * head_dim + column
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
    q = num_heads * head_dim
    kv = num_kv_heads * head_dim
    weights = d_model * q + 2 * d_model * kv + q * d_model
    parameters = weights + ((q + 2 * kv + d_model) if bias else 0)
    keys = past + 1
    macs = weights + 2 * num_heads * keys * head_dim
    cached = 2 * kv * keys
    return (parameters, macs, cached)
'''
BASE["contributions"] = '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(d, dim=-1)
    heads = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads))
    dh = d // num_heads
    w = params["w_o"].reshape(d, num_heads, dh)
    return torch.einsum("bhtk,ehk->bhte", heads, w)
'''
BASE["left_padded"] = '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = x @ w[:d].T + bq[:d]
    k = memory @ w[d:2 * d].T + bq[d:2 * d]
    v = memory @ w[2 * d:].T + bq[2 * d:]
    first = s - memory_lengths.to(torch.int64)
    allowed = torch.arange(s, device=x.device)[None, :] >= first[:, None]
    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, None, :])
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''
BASE["cache"] = '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    allowed = torch.arange(p + t, device=x.device)[None, :] <= (p + torch.arange(t, device=x.device))[:, None]
    out = attention(q, k, v, allowed)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''

B = BASE
def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}
SUBMISSIONS = []
S = SUBMISSIONS.append

# ---------------- argument-ignorer ----------------
S(sub("ai-cost-bias-only-False", False, {"cost": B["cost"].replace("if bias else 0", "if bias is not False else 0")},
  "Part 4: 'False and 0 mean no biases': bias=0 still counts the biases (only the literal False is obeyed)."))
S(sub("ai-scrambled-no-column-check", False, {"scrambled": B["scrambled"].replace(
    "if not (0 <= position < length and 0 <= column < num_heads * head_dim):", "if not (0 <= position < length):")},
  "Part 2: 'Raise a ValueError unless ... 0 <= column < num_heads * head_dim': column never checked."))
S(sub("ai-cache-past_v-ignored", False, {"cache": B["cache"].replace("torch.cat([past_v, v], dim=2)", "torch.cat([past_k, v], dim=2)")},
  "Part 7: 'k, v are the past keys and values followed by the new block's': past_v dropped, past_k used for both (identity params make them equal in the visible test)."))
S(sub("ai-interleaved-even-check", False, {"interleaved": B["interleaved"].replace("if d % num_heads:", "if d % 2 and num_heads % 2 == 0:")},
  "Part 1: 'Raise a ValueError when D is not divisible by num_heads': only the worked example's odd-D/even-H case is checked (D=6, H=4 gives a reshape RuntimeError)."))
S(sub("ai-left-padded-k-bias-from-q", True, {"left_padded": B["left_padded"].replace("k = memory @ w[d:2 * d].T + bq[d:2 * d]", "k = memory @ w[d:2 * d].T + bq[:d]")},
  "Part 6 table: 'their biases, in the same order': the key projection reuses the query bias. Written as a slip, but CORRECT: any bias on the keys adds q.b to every score of a row, which the softmax cancels (values and gradients)."))
# ---------------- chunker ----------------
S(sub("ch-cache-online-softmax-m0", False, {"cache": '''
def causal_attention_with_cache(x, past_k, past_v, params, num_heads):
    b, t, d = x.shape
    p = past_k.shape[2]
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    k = torch.cat([past_k, k], dim=2)
    v = torch.cat([past_v, v], dim=2)
    n = p + t
    qd = q.double() / math.sqrt(q.shape[-1])
    qpos = p + torch.arange(t)
    m = torch.zeros(qd.shape[:-1] + (1,), dtype=torch.float64)
    den = torch.zeros_like(m)
    acc = torch.zeros(qd.shape[:-1] + (v.shape[-1],), dtype=torch.float64)
    block = 65536
    for s0 in range(0, n, block):
        kb = k[:, :, s0:s0 + block].double()
        vb = v[:, :, s0:s0 + block].double()
        sc = qd @ kb.transpose(-2, -1)
        ok = torch.arange(s0, s0 + kb.shape[2])[None, :] <= qpos[:, None]
        sc = sc.masked_fill(~ok, float("-inf"))
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        e = torch.exp(sc - m_new)
        r = torch.exp(m - m_new)
        den = den * r + e.sum(-1, keepdim=True)
        acc = acc * r + e @ vb
        m = m_new
    out = (acc / den).to(x.dtype)
    return (merge_heads(out) @ params["w_o"].T + params["b_o"], k, v)
'''}, "Part 7: 'The scores a query may see may be of any size, down to torch.finfo(dtype).min': the running maximum starts at 0, not -inf, so a row whose scores are all far below 0 gets exp(-huge)=0 and 0/0."))
S(sub("ch-left-padded-tail-keys-dropped", False, {"left_padded": B["left_padded"].replace(
    "    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),\n                    allowed[:, None, None, :])",
    '''    qh, kh, vh = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    block = 1024
    nblocks = max(1, s // block)
    qs = qh.double() / math.sqrt(qh.shape[-1])
    m = torch.full(qh.shape[:-1] + (1,), float("-inf"), dtype=torch.float64)
    den = torch.zeros_like(m)
    acc = torch.zeros(qh.shape, dtype=torch.float64)
    for i in range(nblocks):
        sl = slice(i * block, (i + 1) * block)
        sc = (qs @ kh[:, :, sl].double().transpose(-2, -1)).masked_fill(~allowed[:, None, None, sl], float("-inf"))
        m_new = torch.maximum(m, sc.amax(-1, keepdim=True))
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        e = torch.exp(sc - safe)
        r = torch.exp(m - safe)
        den = den * r + e.sum(-1, keepdim=True)
        acc = acc * r + e @ vh[:, :, sl].double()
        m = m_new
    out = torch.where(den > 0, acc / torch.where(den > 0, den, torch.ones_like(den)), torch.zeros_like(acc)).to(x.dtype)''')},
  "Part 6: the last S % 1024 source positions (the REAL ones, the source is left-padded) are dropped when S > 1024 and 1024 does not divide S; 'the last memory_lengths[b] of the S positions ... are real'."))
S(sub("ch-contrib-query-tail-dropped", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    dh = d // num_heads
    w = params["w_o"].reshape(d, num_heads, dh)
    rows = 64 if t >= 64 else t
    parts = []
    for s0 in range(0, t - rows + 1 if rows else 0, rows):
        heads = attention(q[:, :, s0:s0 + rows], k, v)
        parts.append(torch.einsum("bhtk,ehk->bhte", heads, w))
    if not parts:
        return torch.einsum("bhtk,ehk->bhte", attention(q, k, v), w)
    return torch.cat(parts, dim=2)
'''}, "Part 5: queries processed 64 at a time, and a last shorter block (T not a multiple of 64, T > 64) is dropped: wrong shape/rows 'for self-attention on x (B, T, D)'."))
# ---------------- leading dimensions ----------------
S(sub("ld-left-padded-mask-B1S", False, {"left_padded": B["left_padded"].replace("allowed[:, None, None, :]", "allowed[:, None, :]")},
  "Part 6: 'a mask that depends on the sentence and the key ... needs the shape (B, 1, 1, S). (A (B, 1, S) one [is read] as (H, T, S))': with B = 1 it broadcasts over the heads."))
S(sub("ld-contrib-restore-wrong-order", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    B_, T_, D_ = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(D_, dim=-1))
    heads = attention(q, k, v)                                   # (B, H, T, Dh)
    dh = D_ // num_heads
    flat = heads.permute(1, 0, 2, 3).reshape(num_heads, B_ * T_, dh)
    w = params["w_o"].reshape(D_, num_heads, dh).permute(1, 2, 0)  # (H, Dh, D)
    out = torch.bmm(flat, w)                                      # (H, B*T, D)
    return out.reshape(num_heads, T_, B_, D_).permute(2, 0, 1, 3)
'''}, "Part 5: '(B, H, T, D) tensor whose slice [:, i] is what head i adds': B*T flattened in (B, T) order and restored as (T, B): right for B = 1 only."))
S(sub("ld-cache-H-from-merge-shape", True, {"cache": B["cache"].replace("b, t, d = x.shape\n    p = past_k.shape[2]", "B_, H_, P_, Dh_ = past_k.shape\n    b, t, d = x.shape\n    p = P_\n    num_heads = H_")},
  "correct: the rank is fixed, sizes read by position; H read from the cache equals num_heads."))
# ---------------- special values ----------------
S(sub("sv-left-padded-neginf-where-zero", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    first = s - memory_lengths.to(torch.int64)
    allowed = (torch.arange(s)[None, :] >= first[:, None])[:, None, None, :]
    scores = (q.double() / math.sqrt(q.shape[-1])) @ k.double().transpose(-2, -1)
    scores = scores + torch.zeros_like(scores).masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    weights = torch.where(allowed.any(-1, keepdim=True), weights, torch.zeros_like(weights))
    out = (weights @ v.double()).to(x.dtype)
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'A source sentence of length 0 ... rows are just the bias b_o, with the bias's gradients (the hidden tests compare gradients there too)': softmax of an all -inf row is NaN; torch.where hides it in the value but the backward gives NaN*0 = NaN gradients to x, memory and w_qkv."))
S(sub("sv-cache-finfo-min", False, {"cache": B["cache"].replace("    out = attention(q, k, v, allowed)", '''    sc = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    sc = sc.masked_fill(~allowed, torch.finfo(sc.dtype).min)
    out = torch.softmax(sc.to(torch.promote_types(sc.dtype, torch.float32)), dim=-1).to(v.dtype) @ v''')},
  "Part 7: 'do not give them a large negative score, not even that lowest value, which ties with such scores'."))
S(sub("sv-contrib-exp-no-max", False, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]))
    heads = (e / e.sum(-1, keepdim=True)) @ v
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w)
'''}, "Part 5: 'Scores may be of any size, tens of thousands and more': exp without the row maximum overflows to inf, inf/inf = NaN."))
S(sub("sv-cache-neginf-float64", True, {"cache": B["cache"].replace("    out = attention(q, k, v, allowed)", '''    sc = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(q.shape[-1])
    sc = sc.masked_fill(~allowed, float("-inf"))
    out = (torch.softmax(sc, dim=-1) @ v.double()).to(x.dtype)''')},
  "correct: -inf mask with an explicit float64 softmax; no row is fully masked (a query always sees itself)."))
# ---------------- rearranger ----------------
S(sub("ra-left-padded-divide-after", False, {"left_padded": '''
def cross_attention_left_padded(x, memory, memory_lengths, params, num_heads):
    d = x.shape[-1]
    s = memory.shape[1]
    w, bq = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bq[:d], num_heads)
    k = split_heads(memory @ w[d:2 * d].T + bq[d:2 * d], num_heads)
    v = split_heads(memory @ w[2 * d:].T + bq[2 * d:], num_heads)
    first = s - memory_lengths.to(torch.int64)
    allowed = (torch.arange(s)[None, :] >= first[:, None])[:, None, None, :]
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    scores = scores.masked_fill(~allowed, float("-inf"))
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    e = torch.exp(scores - m)
    den = e.sum(-1, keepdim=True)
    out = (e @ v) / torch.where(den > 0, den, torch.ones_like(den))
    return merge_heads(out) @ params["w_o"].T + params["b_o"]
'''}, "Part 6: 'divide the weights by their sum before they multiply the values, or work in a wider dtype': float16 sum of e_j v_j overflows."))
S(sub("ra-cost-float-macs", False, {"cost": B["cost"].replace("macs = weights + 2 * num_heads * keys * head_dim", "macs = int(weights + 2.0 * num_heads * head_dim * keys)")},
  "Part 4: 'three Python ints, exact even when they exceed 2^53 ... where a float anywhere in the arithmetic rounds the count'."))
S(sub("ra-contrib-reassociate", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    dh = d // num_heads
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = split_heads(x @ w[d:2 * d].T + bias[d:2 * d], num_heads)
    v = split_heads(x @ w[2 * d:].T + bias[2 * d:], num_heads)
    p = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(dh), dim=-1)   # (B, H, T, T)
    wo = params["w_o"].reshape(d, num_heads, dh).permute(1, 2, 0)        # (H, Dh, D)
    vo = v @ wo                                                         # (B, H, T, D): each value already projected
    return p @ vo
'''}, "correct: A (V W_i) instead of (A V) W_i; torch.softmax subtracts the maximum."))
S(sub("ra-contrib-no-key-bias", True, {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    w, bias = params["w_qkv"], params["b_qkv"]
    q = split_heads(x @ w[:d].T + bias[:d], num_heads)
    k = split_heads(x @ w[d:2 * d].T, num_heads)   # q . b_k is the same for every key of a row: softmax ignores it
    v = split_heads(x @ w[2 * d:].T + bias[2 * d:], num_heads)
    heads = attention(q, k, v)
    w_o = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", heads, w_o)
'''}, "correct: the key bias adds q.b_k to every score of a row, which the softmax cancels; its gradient is 0 exactly in the reference too."))
S(sub("ra-scrambled-two-step", True, {"scrambled": '''
def scrambled_source(num_heads, length, head_dim, position, column):
    if position < 0 or position >= length or column < 0 or column >= num_heads * head_dim:
        raise ValueError("no such entry")
    block, feature = divmod(column, head_dim)          # which Dh-block of the row, and where in it
    head, source_position = divmod(position * num_heads + block, length)
    return (int(head), int(source_position), int(feature))
'''}, "correct: floor((pH*Dh + c)/(T*Dh)) = floor((pH + c//Dh)/T)."))
S(sub("ra-cache-quarter-scale", True, {"cache": B["cache"].replace("    out = attention(q, k, v, allowed)", '''    s4 = q.shape[-1] ** 0.25
    sc = (q / s4) @ (k / s4).transpose(-2, -1)
    sc = sc.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(sc.to(torch.promote_types(sc.dtype, torch.float32)), dim=-1).to(v.dtype) @ v''')},
  "correct: the 1/sqrt(Dh) split as Dh^-1/4 on each side; softmax in float32, weights normalised before @ v."))
S(sub("ld-interleaved-unflatten", True, {"interleaved": '''
def split_heads_interleaved(x, num_heads):
    if x.shape[-1] % num_heads != 0:
        raise ValueError(f"{x.shape[-1]} not divisible by {num_heads}")
    return x.unflatten(-1, (x.shape[-1] // num_heads, num_heads)).movedim(-1, -3)


def merge_heads_interleaved(x):
    return x.movedim(-3, -1).flatten(-2)
'''}, "correct: negative dims, unflatten/movedim/flatten."))
# ---------------- hostile ----------------
S(sub("hostile-ranks-eq-anything", False, {"ranks": '''
class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
rank_one_head = Anything(1)
rank_all_heads = Anything(1)
'''}, "hostile: an int subclass equal to everything."))

# ---- phase 2 (written after the blind grading): the chunker class probed in every part ----
SUBMISSIONS.append({"name": "phase2-p5-query-chunks-prealloc-64", "correct": False, "why": "", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    out = x.new_zeros(b, num_heads, t, d)
    size = min(64, t)
    for s0 in range(0, t - size + 1 if size else 0, size):
        out[:, :, s0:s0 + size] = torch.einsum("bhtk,ehk->bhte", attention(q[:, :, s0:s0 + size], k, v), w)
    return out
'''}})
SUBMISSIONS.append({"name": "phase2-p5-key-chunks-online-64-tail", "correct": False, "why": "", "cells": {"contributions": '''
def head_contributions(x, params, num_heads):
    b, t, d = x.shape
    qkv = x @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (split_heads(z, num_heads) for z in qkv.split(d, dim=-1))
    q = q / math.sqrt(q.shape[-1])
    size = min(64, t)
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=x.dtype)
    den = torch.zeros_like(m); acc = torch.zeros_like(q)
    for s0 in range(0, t - size + 1, size):
        sc = q @ k[:, :, s0:s0 + size].transpose(-2, -1)
        mn = torch.maximum(m, sc.amax(-1, keepdim=True))
        e = torch.exp(sc - mn); r = torch.exp(m - mn)
        den = den * r + e.sum(-1, keepdim=True); acc = acc * r + e @ v[:, :, s0:s0 + size]; m = mn
    w = params["w_o"].reshape(d, num_heads, d // num_heads)
    return torch.einsum("bhtk,ehk->bhte", acc / den, w)
'''}})
SUBMISSIONS.append({"name": "phase2-p6-query-chunks-prealloc-64", "correct": False, "why": "", "cells": {"left_padded": BASE["left_padded"].replace(
'''    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, None, :])''', '''    qh, kh, vh = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    out = torch.zeros_like(qh)
    t = qh.shape[2]
    size = min(64, t)
    for s0 in range(0, t - size + 1 if size else 0, size):
        out[:, :, s0:s0 + size] = attention(qh[:, :, s0:s0 + size], kh, vh, allowed[:, None, None, :])''')}})
SUBMISSIONS.append({"name": "phase2-p7-query-chunks-prealloc-64", "correct": False, "why": "", "cells": {"cache": BASE["cache"].replace(
"    out = attention(q, k, v, allowed)", '''    out = torch.zeros_like(q)
    size = min(64, t)
    for s0 in range(0, t - size + 1 if size else 0, size):
        out[:, :, s0:s0 + size] = attention(q[:, :, s0:s0 + size], k, v, allowed[s0:s0 + size])''')}})
SUBMISSIONS.append({"name": "phase2-p7-key-chunks-online-4096-tail", "correct": False, "why": "", "cells": {"cache": BASE["cache"].replace(
"    out = attention(q, k, v, allowed)", '''    n = p + t
    size = min(4096, n)
    qs = q.double() / math.sqrt(q.shape[-1])
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=torch.float64)
    den = torch.zeros_like(m); acc = torch.zeros(q.shape, dtype=torch.float64)
    for s0 in range(0, n - size + 1, size):
        sc = (qs @ k[:, :, s0:s0 + size].double().transpose(-2, -1)).masked_fill(~allowed[:, s0:s0 + size], float("-inf"))
        mn = torch.maximum(m, sc.amax(-1, keepdim=True))
        sm = torch.where(torch.isinf(mn), torch.zeros_like(mn), mn)
        e = torch.exp(sc - sm); r = torch.exp(m - sm)
        den = den * r + e.sum(-1, keepdim=True); acc = acc * r + e @ v[:, :, s0:s0 + size].double(); m = mn
    out = (acc / den).to(x.dtype)''')}})
SUBMISSIONS.append({"name": "phase2-p6-query-chunks-prealloc-4096", "correct": False, "why": "", "cells": {"left_padded": BASE["left_padded"].replace(
'''    out = attention(split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads),
                    allowed[:, None, None, :])''', '''    qh, kh, vh = split_heads(q, num_heads), split_heads(k, num_heads), split_heads(v, num_heads)
    out = torch.zeros_like(qh)
    t = qh.shape[2]
    size = min(4096, t)
    for s0 in range(0, t - size + 1 if size else 0, size):
        out[:, :, s0:s0 + size] = attention(qh[:, :, s0:s0 + size], kh, vh, allowed[:, None, None, :])''')}})
