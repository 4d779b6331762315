OK = {}
OK["window_pairs"] = '''
def window_pairs(t, window):
    w = min(t, window)
    return w * (w + 1) // 2 + (t - w) * w
'''
OK["tokens_per_target_pass"] = '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''
OK["whole_word_chosen"] = '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    idx = torch.arange(T).expand(B, T)
    last = torch.where(starts, idx, torch.full_like(idx, -1)).cummax(dim=1).values
    take = (pick & starts).gather(1, last.clamp(min=0))
    return take & (last >= 0)
'''
OK["min_p_sample"] = '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    return torch.multinomial(probs * keep, 1, generator=generator).squeeze(-1)
'''
OK["span_corrupt"] = '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    toks, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for t in tgt:
            if t == pad:
                break
            if t in sent:
                cur = t
                spans[cur] = []
            else:
                spans[cur].append(t)
        row, nz = [], []
        for t in inp:
            if t == pad:
                break
            if t in sent:
                row += spans[t]
                nz += [True] * len(spans[t])
            else:
                row.append(t)
                nz.append(False)
        toks.append(row)
        noises.append(nz)
    T = max(len(r) for r in toks)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks], dtype=torch.int64)
    noise = torch.tensor([r + [False] * (T - len(r)) for r in noises], dtype=torch.bool)
    return tokens, noise
'''
OK["expert_choice"] = '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(probs.shape, dtype=torch.bool).scatter(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
'''
OK["gqa_cached_attention"] = '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, G, H // G, T, Dh)
    s = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    s = s.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return torch.einsum("bgrts,bgsd->bgrtd", w, v).reshape(B, H, T, Dh)
'''
OK["decayed_linear_attention"] = '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :])
    D = torch.where(diff >= 0, torch.tensor(decay, dtype=torch.float64) ** diff.clamp(min=0).to(torch.float64), torch.zeros((), dtype=torch.float64)).to(q.dtype)
    A = (fq @ fk.transpose(-1, -2)) * D
    return (A @ v) / A.sum(-1, keepdim=True)
'''

S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------- Part 1 ----------
add("p1-float-closed-form", False, {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return int(w * (w + 1) / 2 + (t - w) * w)
'''}, "Breaks: 'count with Python integer arithmetic (exactly: not through float ...)' - w*(w+1)/2 at 1e15 is rounded.")
add("p1-tensor-for-small-t", False, {"window_pairs": '''
def window_pairs(t, window):
    if t <= 64:
        i = torch.arange(t)
        m = (i[None, :] <= i[:, None]) & (i[:, None] - window < i[None, :])
        return int(m.sum())
    w = min(t, window)
    return w * (w + 1) // 2 + (t - w) * w
'''}, "Builds the mask for small t as a check. Breaks: 'use no tensors or arrays at all, on any path of your code (not even to build the mask for small t...)'.")
add("p1-decimal-default-precision", False, {"window_pairs": '''
from decimal import Decimal
def window_pairs(t, window):
    w = Decimal(min(t, window))
    return int(w * (w + 1) / 2 + (Decimal(t) - w) * w)
'''}, "Breaks: 'nor through decimal at its default precision of 28 digits' (31-digit counts).")
add("ok-p1-fraction-comb", True, {"window_pairs": '''
from fractions import Fraction
import math as m_
def window_pairs(t, window):
    if window >= t:
        return m_.comb(t + 1, 2)
    return int(Fraction(window * (window + 1), 2) + (t - window) * window)
'''}, "math.comb and an exact Fraction: exact integer arithmetic in other clothes.")

# ---------- Part 2 ----------
add("p2-linear-in-alpha", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return 1.0 + gamma * float(alpha)
'''}, "Expected accepted = gamma*alpha (ignores stopping). Breaks: 'The target checks them in order and stops at the first rejection' (1.5 at alpha=0.5, gamma=1 either way).")
add("p2-int-when-alpha-int", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return sum(alpha ** k for k in range(gamma + 1))
'''}, "The geometric sum by a loop; with alpha given as int 0 or 1 it returns an int. Breaks: 'Return a Python float, whatever the type of alpha'.")
add("p2-division-by-zero-at-one", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "Closed form only. Breaks: '0 <= alpha <= 1 (both ends included)' - ZeroDivisionError at alpha=1.")
add("ok-p2-horner-fsum", True, {"tokens_per_target_pass": '''
import math as mm
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    return float(mm.fsum(a ** k for k in range(int(gamma) + 1)))
'''}, "Loop with math.fsum, float() on the way in and out.")

# ---------- Part 3 ----------
add("p3-returns-long", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    wid = starts.long().cumsum(dim=1)
    picked = torch.zeros(B, T + 1, dtype=torch.long)
    b = torch.arange(B)[:, None].expand(B, T)
    picked[b[starts], wid[starts]] = pick[starts].long()
    return picked.gather(1, wid) * (wid > 0)
'''}, "Word ids by cumsum, result left as a 0/1 long tensor (tolist() == [[False, True ...]] holds for 0/1). Breaks: 'Return a **boolean** tensor'.")
add("p3-rows-mixed", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    wid = starts.long().cumsum(dim=1)
    chosen_ids = wid[starts & pick]
    return torch.isin(wid, chosen_ids) & (wid > 0)
'''}, "Word ids are per row but looked up globally. Breaks: 'the word begun by the nearest start at or before it in the same row'.")
add("p3-int16-word-ids", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    wid = starts.cumsum(dim=1, dtype=torch.int16).long()
    picked = torch.zeros(B, T + 1, dtype=torch.bool)
    b = torch.arange(B)[:, None].expand(B, T)
    picked[b[starts], wid[starts]] = pick[starts]
    return picked.gather(1, wid.clamp(min=0)) & (wid > 0)
'''}, "int16 word counter to save memory. Breaks: 'the hidden tests use rows of tens of thousands of positions, most of them starts' (counter wraps past 32767).")
add("ok-p3-gather-no-guard-loop-free", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    T = starts.shape[1]
    pos = torch.arange(T, dtype=torch.int64)
    last = torch.where(starts, pos, 0).cummax(dim=-1).values
    return (pick & starts).gather(-1, last)
'''}, "No explicit 'before the first start' guard: such a position points at index 0, which is not a start there, so (pick & starts)[0] is False.")
add("ok-p3-python-loop", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        cur, row = False, []
        for s, p in zip(srow, prow):
            if s:
                cur = p
            row.append(cur)
        out.append(row)
    return torch.tensor(out, dtype=torch.bool).reshape(starts.shape)
'''}, "'A Python loop is allowed': a loop over positions on Python lists.")

# ---------- Part 4 ----------
add("p4-strict-threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs > min_p * probs.max(dim=-1, keepdim=True).values
    return torch.multinomial(probs * keep, 1, generator=generator).squeeze(-1)
'''}, "Breaks: 'keep token i of a row when its probability is **at least** min_p times the largest' (min_p = 1 keeps nothing / ties dropped).")
add("p4-logit-space-threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    keep = logits >= logits.max(dim=-1, keepdim=True).values + math.log(min_p)
    probs = torch.softmax(logits.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
'''}, "Threshold in log space (equal on paper). Breaks: 'p_i >= min_p * max_j p_j ... no tolerance: a token just below that threshold is dropped' - rounding differs at the threshold.")
add("p4-reseeded-generator", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    g = torch.Generator().manual_seed(generator.initial_seed())
    return torch.multinomial(probs * keep, 1, generator=g).squeeze(-1)
'''}, "Breaks: 'a second call with the same generator draws new numbers (it advances; a new generator seeded from it ... would repeat them)'.")
add("p4-no-max-subtraction", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    e = logits.exp()
    probs = e / e.sum(dim=-1, keepdim=True)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    return torch.multinomial(probs * keep, 1, generator=generator).squeeze(-1)
'''}, "Hand-written softmax. Breaks: 'turn each row into probabilities with a softmax' for 'logits large enough that a softmax which does not subtract the row maximum overflows' (intro).")
add("ok-p4-inverse-cdf", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    kept = torch.where(probs >= min_p * probs.amax(dim=-1, keepdim=True), probs, torch.zeros((), dtype=probs.dtype))
    cdf = kept.cumsum(dim=-1)
    u = torch.rand(probs.shape[0], 1, generator=generator, dtype=probs.dtype) * cdf[:, -1:]
    idx = torch.searchsorted(cdf, u, right=True).squeeze(-1)
    last = (kept > 0).to(torch.int64).cumsum(-1).argmax(-1)
    return torch.minimum(idx, last).to(torch.int64)
'''}, "Inverse-CDF sampling from the generator instead of multinomial: same distribution, other draws.")
add("ok-p4-gumbel-max", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    u = torch.rand(probs.shape, generator=generator, dtype=torch.float64).clamp_(min=1e-300)
    gumbel = -torch.log(-torch.log(u))
    score = torch.where(keep, torch.log(probs.double()) + gumbel, torch.tensor(float("-inf"), dtype=torch.float64))
    return score.argmax(dim=-1)
'''}, "Gumbel-max trick with the given generator: exact sampling from the renormalised kept probabilities.")

# ---------- Part 5 ----------
add("p5-tokens-in-input-dtype", False, {"span_corrupt": OK["span_corrupt"].replace("dtype=torch.int64)", "dtype=inputs.dtype)")},
    "Returns the tokens in the dtype of inputs. Breaks: 'tokens (int64) holds the original sequences' (int32 inputs).")
add("p5-sentinels-by-range", False, {"span_corrupt": OK["span_corrupt"].replace("sent = set(sentinels.tolist())", "lo, hi = int(sentinels.min()), int(sentinels.max())\n    class R:\n        def __contains__(self, t):\n            return lo <= t <= hi\n    sent = R()")},
    "Treats every id between the smallest and largest sentinel as a sentinel (T5's are a block). Breaks: 'They need not be consecutive numbers'.")
add("p5-sentinels-cast-to-input-dtype", False, {"span_corrupt": OK["span_corrupt"].replace("sent = set(sentinels.tolist())", "sent = set(sentinels.to(inputs.dtype).tolist())")},
    "Casts sentinels to the inputs' dtype before comparing. Breaks: 'sentinels ... int64 or int32 (not necessarily the dtype of inputs)' - int64 sentinels wrap in int32 (and an int32 cast of int64 inputs' sentinels past 2**31 is wrong).")
add("p5-float-pad-fill", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, nzs = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for t in tgt:
            if t == pad:
                break
            if t in sent:
                cur = t
                spans[cur] = []
            else:
                spans[cur].append(t)
        row, nz = [], []
        for t in inp:
            if t == pad:
                break
            if t in sent:
                row += spans[t]
                nz += [True] * len(spans[t])
            else:
                row.append(t)
                nz.append(False)
        rows.append(row)
        nzs.append(nz)
    B, T = len(rows), max(len(r) for r in rows)
    tokens = torch.full((B, T), pad, dtype=torch.float64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, nzs)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.float64)
        noise[b, :len(nz)] = torch.tensor(nz)
    return tokens.long(), noise
'''}, "Fills a float64 buffer and casts to long. Breaks: 'keep ids in integer dtypes, and out of arguments that take a float' (ids past 2**53).")
add("p5-hostile-subprocess-numpy", False, {"span_corrupt": '''
import subprocess, sys, json as js
def restore_spans(inputs, targets, sentinels, pad):
    prog = (
        "import json,sys,numpy as np\\n"
        "d=json.loads(sys.stdin.read());S=set(d['s']);P=d['p'];T=[];N=[]\\n"
        "for inp,tgt in zip(d['i'],d['t']):\\n"
        "  sp={};c=None\\n"
        "  for t in tgt:\\n"
        "    if t==P: break\\n"
        "    if t in S: c=t; sp[c]=[]\\n"
        "    else: sp[c].append(t)\\n"
        "  r=[];n=[]\\n"
        "  for t in inp:\\n"
        "    if t==P: break\\n"
        "    if t in S: r+=sp[t]; n+=[True]*len(sp[t])\\n"
        "    else: r.append(t); n.append(False)\\n"
        "  T.append(r);N.append(n)\\n"
        "L=int(np.max([len(r) for r in T]))\\n"
        "print(json.dumps([[r+[P]*(L-len(r)) for r in T],[n+[False]*(L-len(n)) for n in N]]))\\n")
    data = js.dumps({"i": inputs.tolist(), "t": targets.tolist(), "s": sentinels.tolist(), "p": pad})
    out = subprocess.run([sys.executable, "-c", prog], input=data, capture_output=True, text=True).stdout
    toks, noise = js.loads(out)
    return torch.tensor(toks, dtype=torch.int64), torch.tensor(noise, dtype=torch.bool)
'''}, "HOSTILE: does the work with NumPy in a subprocess. Breaks 'a part whose answer uses another library ... scores 0'.")
add("ok-p5-order-matching-int32-sentinels", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = {int(s) for s in sentinels}
    out_t, out_n = [], []
    for b in range(B):
        inp = [int(t) for t in inputs[b] if int(t) != pad]
        tgt = [int(t) for t in targets[b] if int(t) != pad]
        groups = []
        for t in tgt:
            if t in sent:
                groups.append([])
            else:
                groups[-1].append(t)
        it = iter(groups)
        row, nz = [], []
        for t in inp:
            if t in sent:
                g = next(it)
                row.extend(g)
                nz.extend([True] * len(g))
            else:
                row.append(t)
                nz.append(False)
        out_t.append(row)
        out_n.append(nz)
    T = max(map(len, out_t))
    tokens = torch.stack([torch.cat([torch.tensor(r, dtype=torch.int64), torch.full((T - len(r),), pad, dtype=torch.int64)]) for r in out_t])
    noise = torch.stack([torch.tensor(n + [False] * (T - len(n)), dtype=torch.bool) for n in out_n])
    return tokens, noise
'''}, "Matches the k-th sentinel of the input with the k-th span of the target by order ('its target lists its sentinels in the order they appear in its input'), drops pads anywhere, torch.full with an int pad in int64.")

# ---------- Part 6 ----------
add("p6-topk-ties", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    k = min(capacity, probs.shape[0])
    idx = probs.topk(k, dim=0).indices
    chosen = torch.zeros(probs.shape, dtype=torch.bool).scatter(0, idx, True)
    return chosen, torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
'''}, "topk does not promise an order among equal values. Breaks: 'among tokens with equal probabilities the lower token index goes first'.")
add("p6-rank-by-logits", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    order = torch.sort(router_logits, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(probs.shape, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
'''}, "Ranks each expert's column by logits (softmax is monotone... per token, not per column). Breaks: 'expert e takes the capacity tokens with the largest probs[:, e]'.")
add("p6-softmax-in-float32", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits.float(), dim=-1).to(router_logits.dtype)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(probs.shape, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
'''}, "Router softmax in float32 (common MoE practice). Breaks: 'within 1e-10 of the exact softmax for float64 logits (so compute float64 in float64)' and the ranking of probabilities that differ by < 1e-13.")
add("p6-hostile-lying-tensor", False, {"expert_choice": '''
class Agree(torch.Tensor):
    def __eq__(self, other):
        return True
    def tolist(self):
        return [[True, False], [False, True], [False, False]]
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    chosen = torch.zeros(N, E, dtype=torch.bool).as_subclass(Agree)
    return chosen, torch.zeros(N, E, dtype=router_logits.dtype)
'''}, "HOSTILE: a tensor subclass whose tolist/== lie for the visible case. Breaks 'Return exactly what a part asks for: a torch.Tensor'.")
add("ok-p6-argsort-neg-float64-mul", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    lse = torch.logsumexp(router_logits, dim=-1, keepdim=True)
    probs = torch.exp(router_logits - lse)
    N = probs.shape[0]
    order = torch.argsort(-probs, dim=0, stable=True)[: min(capacity, N)]
    chosen = torch.zeros_like(probs, dtype=torch.bool)
    chosen.scatter_(0, order, torch.ones_like(order, dtype=torch.bool))
    gate = probs * chosen
    return chosen, gate
'''}, "Softmax as exp(x - logsumexp), stable ascending argsort of -probs, gate = probs * chosen.")

# ---------- Part 7 ----------
add("p7-repeat-not-interleave", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k2, v2 = k.repeat(1, H // G, 1, 1), v.repeat(1, H // G, 1, 1)
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    return F.scaled_dot_product_attention(q, k2, v2, attn_mask=allowed)
'''}, "Tiles the kv heads (head h -> h % G). Breaks: 'query head h uses key/value head h // (H // G)' (the visible test checks head 3 only, where both agree).")
add("p7-square-mask-sliced", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    allowed = torch.ones(S, S, dtype=torch.bool).tril()[S - T:]
    k2, v2 = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
    return F.scaled_dot_product_attention(q, k2, v2, attn_mask=allowed)
'''}, "Breaks: 'build nothing much larger than q, k, v and the T x S scores (an S x S mask, even one sliced to its last T rows afterwards, needs a terabyte)'.")
add("p7-max-over-all-keys", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, G, H // G, T, Dh)
    s = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    e = torch.exp(s - s.amax(dim=-1, keepdim=True)) * allowed
    w = e / e.sum(dim=-1, keepdim=True)
    return torch.einsum("bgrts,bgsd->bgrtd", w, v).reshape(B, H, T, Dh)
'''}, "Breaks: 'keys that a query may not see scoring about a thousand above every key it may see (they must not change its result)' - the max includes hidden keys, the visible weights underflow.")
add("p7-float32-inside", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    out = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=allowed, enable_gqa=True)
    return out.to(q.dtype)
'''}, "Breaks: 'within 1e-10 for float64 inputs ... so compute float64 in float64: arithmetic in float32 and a cast back is off by about 1e-7'.")
add("ok-p7-sdpa-enable-gqa", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    T, S = q.shape[-2], k.shape[-2]
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
'''}, "F.scaled_dot_product_attention's enable_gqa (head h uses kv head h // (H // G)).")
add("ok-p7-loop-over-groups-where", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    allowed = (torch.arange(S).unsqueeze(0) - torch.arange(T).unsqueeze(1)) <= (S - T)
    outs = []
    for h in range(H):
        kh, vh = k[:, h // r], v[:, h // r]
        s = q[:, h] @ kh.transpose(-1, -2) * (1.0 / math.sqrt(Dh))
        s = torch.where(allowed, s, torch.full((), float("-inf"), dtype=s.dtype))
        outs.append(torch.softmax(s, dim=-1) @ vh)
    return torch.stack(outs, dim=1)
'''}, "Loop over query heads, torch.where against -inf.")

# ---------- Part 8 ----------
add("p8-rescaled-cumsum", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    j = torch.arange(T, dtype=torch.float64)
    up = (decay ** -j).to(q.dtype).unsqueeze(-1)
    down = (decay ** j).to(q.dtype).unsqueeze(-1)
    S = torch.cumsum((fk * up).unsqueeze(-1) * v.unsqueeze(-2), dim=-3)
    z = torch.cumsum(fk * up, dim=-2)
    num = torch.einsum("...td,...tdv->...tv", fq, S) * down
    den = (fq * z).sum(-1, keepdim=True) * down
    return num / den
'''}, "Breaks: 'rescaling the keys by gamma^-j so that a plain cumulative sum works is exact on paper but not in floating point'.")
add("p8-epsilon-denominator", False, {"decayed_linear_attention": OK["decayed_linear_attention"].replace("/ A.sum(-1, keepdim=True)", "/ (A.sum(-1, keepdim=True) + 1e-6)")},
    "Breaks: 'Do not add an epsilon to the denominator (it is positive)'.")
add("p8-decay-powers-float32", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T)
    D = (decay ** (i[:, None] - i[None, :]).clamp(min=0)).tril().to(q.dtype)
    A = (fq @ fk.transpose(-1, -2)) * D
    return (A @ v) / A.sum(-1, keepdim=True)
'''}, "decay ** int-tensor gives float32 powers. Breaks: 'compute float64 in float64, the powers of the decay included'.")
add("p8-power-matrix-times-mask", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=torch.float64)
    causal = torch.ones(T, T, dtype=torch.float64).tril()
    D = (decay ** (i[:, None] - i[None, :]) * causal).to(q.dtype)
    A = (fq @ fk.transpose(-1, -2)) * D
    return (A @ v) / A.sum(-1, keepdim=True)
'''}, "Full power matrix then times a 0/1 causal mask: above the diagonal decay^-(j-i) overflows to inf and inf*0 = NaN (T=1100, decay 0.5). Breaks: 'It must stay accurate for long sequences'.")
add("p8-relu-feature-map", False, {"decayed_linear_attention": OK["decayed_linear_attention"].replace("F.elu(q) + 1, F.elu(k) + 1", "F.relu(q) + 1, F.relu(k) + 1")},
    "Misremembered feature map (equal at 0, the visible input). Breaks: 'With phi(x) = elu(x) + 1'.")
add("ok-p8-recurrence-loop", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = 1 + F.elu(q), 1 + F.elu(k)
    T = q.shape[-2]
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * v[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = torch.einsum("...d,...dv->...v", fq[..., i, :], S)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
'''}, "The recurrence itself, step by step (T=1100 steps are fine).")
add("ok-p8-log-space-decay-where", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=torch.float64)
    diff = i[:, None] - i[None, :]
    logD = torch.where(diff >= 0, diff * math.log(decay), torch.tensor(float("-inf"), dtype=torch.float64))
    D = torch.exp(logD).to(q.dtype)
    A = torch.einsum("...id,...jd->...ij", fq, fk) * D
    num = torch.einsum("...ij,...jv->...iv", A, v)
    return num / A.sum(dim=-1, keepdim=True)
'''}, "Decay matrix as exp((i-j) log gamma) in float64 with -inf above the diagonal, einsum.")
SUBMISSIONS = S
