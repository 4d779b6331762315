# Red-team round 18, chapter 06: type-sloppy (T), autograd-careless (A), stateful (S), dtype/device generaliser (D)
BASE = {}
BASE["window_pairs"] = r'''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
'''
BASE["tokens_per_target_pass"] = r'''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''
BASE["whole_word_chosen"] = r'''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    return pick.gather(1, last.clamp(min=0)) & (last >= 0)
'''
BASE["min_p_sample"] = r'''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64, device=logits.device)
    return torch.multinomial(w, 1, generator=generator).squeeze(1)
'''
BASE["span_corrupt"] = r'''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                cur = tok
                spans[cur] = []
            else:
                spans[cur].append(tok)
        out, nz = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                out += spans[tok]
                nz += [True] * len(spans[tok])
            else:
                out.append(tok)
                nz.append(False)
        rows.append(out)
        noises.append(nz)
    B, T = len(rows), max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(nz)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
'''
BASE["expert_choice"] = r'''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool, device=probs.device)
    chosen.scatter_(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''
BASE["gqa_cached_attention"] = r'''
def gqa_cached_attention(q, k, v):
    B, H, T, dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    allowed = torch.arange(S, device=q.device)[None, :] <= (S - T + torch.arange(T, device=q.device))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
'''
BASE["decayed_linear_attention"] = r'''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    wd = torch.float64 if dt == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(wd)) + 1, F.elu(k.to(wd)) + 1, v.to(wd)
    T = q.shape[-2]
    i = torch.arange(T, device=q.device)
    diff = i[:, None] - i[None, :]
    powers = torch.tensor(decay, dtype=wd, device=q.device) ** diff.clamp(min=0).to(wd)
    dmat = torch.where(diff >= 0, powers, torch.zeros((), dtype=wd, device=q.device))
    w = (fq @ fk.transpose(-2, -1)) * dmat
    return ((w @ vv) / w.sum(-1, keepdim=True)).to(dt)
'''

GQA = r'''
import math
def gqa_cached_attention(q, k, v):
    B, H, T, dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
{PRE}
    scores = q @ k.transpose(-2, -1) / {SCALE}
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
{MASK}
    return torch.softmax(scores, dim=-1) @ v
'''
def gqa(scale="math.sqrt(dh)", mask='    scores = scores.masked_fill(~allowed, float("-inf"))', pre=""):
    return GQA.replace("{SCALE}", scale).replace("{MASK}", mask).replace("{PRE}", pre)

SUBMISSIONS = []
def W(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"{kind}-{name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"ok-{kind}-{name}", "correct": True, "cells": cells, "why": why})
def X(name, cells, why):
    SUBMISSIONS.append({"name": f"hostile-{name}", "correct": False, "cells": cells, "why": why})

# ---------------- type-sloppy ----------------
W("tokens-int-sum", "type", {"tokens_per_target_pass": r'''
def tokens_per_target_pass(alpha, gamma):
    return sum(alpha ** i for i in range(gamma + 1))
'''}, "Part 2: 'Return a Python float, whatever the type of alpha' (int alpha 0 or 1 gives an int)")
W("window-float-half", "type", {"window_pairs": r'''
def window_pairs(t, window):
    w = min(t, window)
    return int(w * (w + 1) / 2) + (t - w) * window
'''}, "Part 1: 'count with Python integer arithmetic (exactly: not through float'")
W("whole-word-int-mask", "type", {"whole_word_chosen": r'''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, -1).cummax(dim=1).values
    in_word = (last >= 0).long()
    return pick.long().gather(1, last.clamp(min=0)) * in_word
'''}, "Part 3: 'Return a boolean tensor of shape (B, T)'")
W("minp-tensor-from-items", "type", {"min_p_sample": r'''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = probs * keep
    return torch.tensor([torch.multinomial(row, 1, generator=generator).item() for row in probs])
'''}, "Part 4: 'Return the token ids as an int64 tensor of shape (B,)' with 'The batch may be empty' (torch.tensor([]) is float32)")
W("restore-empty-float", "type", {"span_corrupt": BASE["span_corrupt"].replace(
    "    B, T = len(rows), max((len(r) for r in rows), default=0)",
    "    if not rows:\n        return torch.empty(0, 0), torch.empty(0, 0)\n    B, T = len(rows), max(len(r) for r in rows)")},
  "Part 5: 'tokens (int64) ... noise (bool)' also for 'B = 0 ... two (0, 0) tensors'")
C("expert-probs-when-all", "type", {"expert_choice": r'''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    if capacity >= N:          # every expert takes every token: the gate is the softmax itself
        return torch.ones(N, E, dtype=torch.bool), probs
    chosen = torch.zeros(N, E, dtype=torch.bool)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen.scatter_(0, order, True)
    return chosen, probs * chosen
'''}, "correct: with capacity >= N the gate is the fresh softmax output, which shares memory with nothing kept")

W("minp-squeeze-all", "type", {"min_p_sample": BASE["min_p_sample"].replace(".squeeze(1)", ".squeeze()")},
  "Part 4: 'Return the token ids as an int64 tensor of shape (B,)' (squeeze() gives a 0-d tensor for a batch of one)")
W("restore-tokens-input-dtype", "type", {"span_corrupt": BASE["span_corrupt"].replace(
    "tokens = torch.full((B, T), pad, dtype=torch.int64)", "tokens = torch.full((B, T), pad, dtype=inputs.dtype)")},
  "Part 5: 'tokens (int64) holds the original sequences' (int32 inputs give int32 tokens)")

# ---------------- autograd-careless ----------------
W("expert-masked-fill-inplace", "autograd", {"expert_choice": r'''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter_(0, order, True)
    return chosen, probs.masked_fill_(~chosen, 0.0)
'''}, "Part 6: 'gradients must flow through gate' (masked_fill_ on softmax's saved output)")
W("gqa-requires-grad-inputs", "autograd", {"gqa_cached_attention": gqa(pre="    for t in (q, k, v):\n        if not t.requires_grad:\n            t.requires_grad_()   # make sure gradients flow")},
  "Intro: 'Your functions must not change the tensors they are given' (requires_grad_ on the caller's q, k and v)")
W("gqa-sub-max-inplace", "autograd", {"gqa_cached_attention": gqa(
    mask='    scores = scores.masked_fill(~allowed, float("-inf"))\n    scores.sub_(scores.amax(dim=-1, keepdim=True))')},
  "Part 7: 'gradients must flow through the result' (sub_ on scores saved by amax)")
W("decay-loop-inplace-state", "autograd", {"decayed_linear_attention": r'''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = q.new_zeros(q.shape[:-2] + (q.shape[-1], v.shape[-1]))
    z = q.new_zeros(q.shape[:-2] + (q.shape[-1],))
    outs = []
    for i in range(T):
        S.mul_(decay).add_(fk[..., i, :, None] * v[..., i, None, :])
        z.mul_(decay).add_(fk[..., i, :])
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
'''}, "Part 8: 'Gradients must flow through the result' (the state is updated in place after it was saved)")
W("decay-elu-inplace", "autograd", {"decayed_linear_attention": BASE["decayed_linear_attention"].replace(
    "fq, fk, vv = F.elu(q.to(wd)) + 1, F.elu(k.to(wd)) + 1, v.to(wd)",
    "fq, fk, vv = F.elu(q.to(wd), inplace=True) + 1, F.elu(k.to(wd), inplace=True) + 1, v.to(wd)")},
  "Intro: 'Your functions must not change the tensors they are given' (elu in place on q when .to is a no-op)")
W("expert-gate-detached-rank", "autograd", {"expert_choice": r'''
def expert_choice(router_logits, capacity):
    with torch.no_grad():
        probs = torch.softmax(router_logits, dim=-1)
        N, E = probs.shape
        order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:min(capacity, N)]
        chosen = torch.zeros(N, E, dtype=torch.bool).scatter_(0, order, True)
    gate = torch.where(chosen, probs, 0.0)
    return chosen, gate
'''}, "Part 6: 'compute it with autograd-tracked operations (no ... torch.no_grad())'")

# ---------------- stateful ----------------
W("decay-matrix-cache-dtype", "state", {"decayed_linear_attention": r'''
import functools
@functools.lru_cache(maxsize=32)
def decay_matrix(T, decay):
    i = torch.arange(T, dtype=torch.float64)
    diff = i[:, None] - i[None, :]
    return torch.where(diff >= 0, decay ** diff.clamp(min=0), 0.0)
DT = {}
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    key = (T, decay)
    if key not in DT:
        DT[key] = decay_matrix(T, decay).to(q.dtype if q.dtype == torch.float64 else torch.float32)
    d = DT[key]
    wd = d.dtype
    fq, fk = F.elu(q.to(wd)) + 1, F.elu(k.to(wd)) + 1
    w = (fq @ fk.transpose(-2, -1)) * d
    return ((w @ v.to(wd)) / w.sum(-1, keepdim=True)).to(q.dtype)
'''}, "Intro: 'nothing kept from one call to the next'; Part 8: 'compute float64 in float64, the powers of the decay included' (a float32 table built first is reused for float64)")
W("gqa-mask-cache-first-dtype", "state", {"gqa_cached_attention": r'''
import math
MASKS = {}
def gqa_cached_attention(q, k, v):
    B, H, T, dh = q.shape
    G, S = k.shape[1], k.shape[2]
    if (T, S) not in MASKS:
        allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
        MASKS[(T, S)] = torch.zeros(T, S, dtype=q.dtype).masked_fill(~allowed, float("-inf"))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh) + MASKS[(T, S)]
    return torch.softmax(scores, dim=-1) @ v
'''}, "Part 7: 'return (B, H, T, Dh) in the dtype of q' (an additive mask built in the first call's dtype promotes later half inputs)")
W("minp-reseed-counter", "state", {"min_p_sample": r'''
CALLS = [0]
def min_p_sample(logits, min_p, generator):
    CALLS[0] += 1
    g = torch.Generator().manual_seed(generator.initial_seed() + CALLS[0])   # a fresh stream per call
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(w, 1, generator=g).squeeze(1)
'''}, "Part 4: 'draw every random number from generator, so that the same seed gives the same tokens'")
W("restore-sentinel-set-by-id", "state", {"span_corrupt": BASE["span_corrupt"].replace(
    "    sent = set(sentinels.tolist())",
    "    if id(sentinels) not in SENT:\n        SENT[id(sentinels)] = set(sentinels.tolist())\n    sent = SENT[id(sentinels)]").replace(
    "def restore_spans", "SENT = {}\ndef restore_spans")},
  "Intro: 'nothing kept from one call to the next' (a sentinel set cached by id: a new list at a reused address)")
W("whole-word-buffer", "state", {"whole_word_chosen": r'''
BUF = {}
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    if (B, T) not in BUF:
        BUF[(B, T)] = torch.empty(B, T, dtype=torch.bool)
    out = BUF[(B, T)]
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, -1).cummax(dim=1).values
    torch.logical_and(pick.gather(1, last.clamp(min=0)), last >= 0, out=out)
    return out
'''}, "Part 3: 'it must share memory with nothing (not with pick, not with a tensor kept from one call to the next)'")

# ---------------- dtype / device generaliser ----------------
W("gqa-scale-tensor", "dtype", {"gqa_cached_attention": gqa(scale="torch.tensor(dh).sqrt()")},
  "Part 7: 'within 1e-10 for float64 inputs ... compute float64 in float64' (sqrt(Dh) as a float32 0-d tensor)")
W("gqa-float32-additive-mask", "dtype", {"gqa_cached_attention": gqa(
    mask='    scores = scores + torch.zeros(T, S).masked_fill(~allowed, float("-inf"))')},
  "Part 7: 'a constant made in float32, such as an additive mask from torch.zeros(T, S), would promote them'")
W("decay-python-power", "dtype", {"decayed_linear_attention": r'''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    dmat = torch.where(diff >= 0, decay ** diff.clamp(min=0), 0.0)
    w = (fq @ fk.transpose(-2, -1)) * dmat
    return ((w @ v) / w.sum(-1, keepdim=True)).to(q.dtype)
'''}, "Part 8: 'compute float64 in float64, the powers of the decay included' (decay ** int64 tensor is float32)")
W("expert-float32-rank", "dtype", {"expert_choice": r'''
def expert_choice(router_logits, capacity):
    probs32 = torch.softmax(router_logits, dim=-1, dtype=torch.float32)    # stable softmax for any input
    N, E = probs32.shape
    order = torch.sort(probs32, dim=0, descending=True, stable=True).indices[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter_(0, order, True)
    probs = torch.softmax(router_logits, dim=-1)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "Part 6: 'expert e takes the capacity tokens with the largest probs[:, e]; among tokens with equal probabilities the lower token index goes first' (float64 ranked in float32; half ranked finer than its probs)")
W("minp-float32-threshold", "dtype", {"min_p_sample": r'''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits.float(), dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(w, 1, generator=generator).squeeze(1)
'''}, "Part 4: 'keep token i ... when its probability is at least min_p times the largest (no tolerance)' (float64 logits thresholded in float32)")
W("restore-sentinels-cast", "dtype", {"span_corrupt": r'''
def restore_spans(inputs, targets, sentinels, pad):
    sentinels = sentinels.to(inputs.dtype)
    B = inputs.shape[0]
    rows, noises = [], []
    for b in range(B):
        inp = inputs[b][inputs[b] != pad]
        tgt = targets[b][targets[b] != pad]
        is_s = torch.isin(tgt, sentinels)
        idx = torch.nonzero(is_s).flatten().tolist() + [len(tgt)]
        spans = {int(tgt[idx[j]]): tgt[idx[j] + 1:idx[j + 1]] for j in range(len(idx) - 1)}
        parts, nz = [], []
        for tok in inp:
            key = int(tok)
            if key in spans and bool(torch.isin(tok, sentinels)):
                parts.append(spans[key]); nz.append(torch.ones(len(spans[key]), dtype=torch.bool))
            else:
                parts.append(tok.reshape(1)); nz.append(torch.zeros(1, dtype=torch.bool))
        rows.append(torch.cat(parts).long()); noises.append(torch.cat(nz))
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(rows[b])] = rows[b]
        noise[b, :len(noises[b])] = noises[b]
    return tokens, noise
'''}, "Part 5: 'the list may also hold sentinels ... outside int32's range even when inputs is int32' (cast wraps them)")

# ---------------- correct ----------------
C("window-comb-cache", "state", {"window_pairs": r'''
import functools, math
@functools.lru_cache(maxsize=None)
def window_pairs(t, window):
    w = min(t, window)
    return math.comb(w + 1, 2) + (t - w) * window
'''}, "math.comb and an lru_cache: exact ints")
C("tokens-horner", "type", {"tokens_per_target_pass": r'''
def tokens_per_target_pass(alpha, gamma):
    total = 0.0
    for _ in range(gamma + 1):
        total = total * alpha + 1.0
    return float(total)
'''}, "Horner's sum of powers; float start makes int alpha fine")
C("tokens-fsum-cache", "state", {"tokens_per_target_pass": r'''
import functools, math
@functools.lru_cache(maxsize=1024)
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    return float(math.fsum(a ** i for i in range(gamma + 1)))
'''}, "fsum of the powers; lru_cache (0 and 0.0 share a key but both give a float)")
C("whole-word-loop", "type", {"whole_word_chosen": r'''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros((B, T), dtype=torch.bool)
    for b, (srow, prow) in enumerate(zip(starts.tolist(), pick.tolist())):
        row, current = [False] * T, False
        for t in range(T):
            if srow[t]:
                current = prow[t]
            row[t] = current
        out[b] = torch.tensor(row, dtype=torch.bool)
    return out
'''}, "a Python loop (allowed), bools rebuilt with the dtype given")
C("whole-word-cumsum-float", "dtype", {"whole_word_chosen": r'''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, dtype=torch.float32).expand(B, T)   # positions < 2**24: exact in float32
    last = torch.where(starts, pos, torch.tensor(-1.0)).cummax(dim=-1).values
    idx = last.clamp(min=0).long()
    return torch.gather(pick, 1, idx) & (last >= 0)
'''}, "float32 positions, exact below 2**24 as the text says")
C("minp-gumbel", "state", {"min_p_sample": r'''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits.double(), dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    u = torch.rand(probs.shape, generator=generator, dtype=torch.float64)
    gumbel = -torch.log(-torch.log(u.clamp(min=1e-300)))
    score = torch.where(keep, torch.log(probs) + gumbel, float("-inf"))
    return score.argmax(dim=-1) if probs.shape[0] else torch.zeros(0, dtype=torch.int64)
'''}, "Gumbel-max draws from the kept renormalised probabilities with the given generator")
C("minp-multinomial-double", "dtype", {"min_p_sample": r'''
def min_p_sample(logits, min_p, generator):
    probs = F.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    kept = probs.masked_fill(probs < min_p * top, 0.0)
    kept = kept / kept.sum(dim=-1, keepdim=True)
    ids = torch.empty(logits.shape[0], dtype=torch.long)
    for b in range(logits.shape[0]):
        ids[b] = torch.multinomial(kept[b].double(), num_samples=1, generator=generator)[0]
    return ids
'''}, "renormalised, row by row in float64, ids written into an int64 tensor")
C("restore-isin-long", "dtype", {"span_corrupt": r'''
def restore_spans(inputs, targets, sentinels, pad):
    inputs, targets, sentinels = inputs.long(), targets.long(), sentinels.long()
    B = inputs.shape[0]
    rows = []
    for b in range(B):
        inp, tgt = inputs[b], targets[b]
        tgt = tgt[tgt != pad]
        inp = inp[inp != pad]
        pos = torch.nonzero(torch.isin(tgt, sentinels)).flatten().tolist() + [tgt.shape[0]]
        spans = {int(tgt[pos[j]]): tgt[pos[j] + 1:pos[j + 1]] for j in range(len(pos) - 1)}
        toks, nz = [], []
        for tok in inp.tolist():
            if tok in spans:
                toks.append(spans[tok]); nz.append(torch.ones(spans[tok].shape[0], dtype=torch.bool))
            else:
                toks.append(torch.tensor([tok], dtype=torch.int64)); nz.append(torch.zeros(1, dtype=torch.bool))
        rows.append((torch.cat(toks), torch.cat(nz)))
    T = max((r[0].shape[0] for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, (t, n) in enumerate(rows):
        tokens[b, :t.shape[0]] = t
        noise[b, :n.shape[0]] = n
    return tokens, noise
'''}, "everything widened to int64 (never narrowed), isin per row")
C("expert-clone-index", "autograd", {"expert_choice": r'''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    ranking = probs.detach()
    for e in range(E):
        idx = torch.argsort(ranking[:, e], descending=True, stable=True)[:capacity]
        chosen[idx, e] = True
    gate = probs.clone()
    gate[~chosen] = 0
    return chosen, gate
'''}, "ranks a detached copy (no gradient needed), gate by masked assignment on a clone (autograd-tracked)")
C("gqa-sdpa-enable-gqa", "type", {"gqa_cached_attention": r'''
def gqa_cached_attention(q, k, v):
    T, S = q.shape[2], k.shape[2]
    allowed = torch.arange(S).unsqueeze(0) <= torch.arange(S - T, S).unsqueeze(1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
'''}, "sdpa's own GQA with a boolean bottom-right mask")
C("gqa-float64-inside-cached-mask", "state", {"gqa_cached_attention": r'''
import functools
@functools.lru_cache(maxsize=8)
def visible(T, S):
    return torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
def gqa_cached_attention(q, k, v):
    B, H, T, dh = q.shape
    G = k.shape[1]
    qd = q.double().reshape(B, G, H // G, T, dh)
    kd, vd = k.double().unsqueeze(2), v.double().unsqueeze(2)
    scores = torch.einsum("bgrtd,bgxsd->bgrts", qd, kd) / dh ** 0.5
    scores = scores.masked_fill(~visible(T, k.shape[2]), float("-inf"))
    out = torch.einsum("bgrts,bgxsd->bgrtd", scores.softmax(-1), vd)
    return out.reshape(B, H, T, dh).to(q.dtype)
'''}, "float64 inside, groups by reshape (h // (H//G)), cached read-only tril mask")
C("decay-loop-outofplace", "autograd", {"decayed_linear_attention": r'''
def decayed_linear_attention(q, k, v, decay):
    wd = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(wd)) + 1, F.elu(k.to(wd)) + 1, v.to(wd)
    T = q.shape[-2]
    S = torch.zeros(q.shape[:-2] + (q.shape[-1], v.shape[-1]), dtype=wd)
    z = torch.zeros(q.shape[:-2] + (q.shape[-1],), dtype=wd)
    out = torch.empty(v.shape, dtype=wd)
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * vv[..., i, None, :]
        z = decay * z + fk[..., i, :]
        out[..., i, :] = (fq[..., i, :, None] * S).sum(-2) / (fq[..., i, :] * z).sum(-1, keepdim=True)
    return out.to(q.dtype)
'''}, "the recurrence itself, out of place; writes into our own output (autograd copy-slices)")
C("decay-no-grad-table", "autograd", {"decayed_linear_attention": r'''
def decayed_linear_attention(q, k, v, decay):
    wd = torch.float64 if q.dtype == torch.float64 else torch.float32
    T = q.shape[-2]
    with torch.no_grad():            # the decay table is a constant
        i = torch.arange(T, dtype=wd)
        diff = i[:, None] - i[None, :]
        table = torch.full((), decay, dtype=wd).pow(diff.clamp(min=0)).tril()
    sim = (F.elu(q.to(wd)) + 1) @ (F.elu(k.to(wd)) + 1).transpose(-1, -2)
    w = sim * table
    return (w @ v.to(wd) / w.sum(dim=-1, keepdim=True)).to(dtype=q.dtype)
'''}, "no_grad only around a constant table")

# ---------------- hostile ----------------
X("window-find-reference", {"window_pairs": r'''
import gc
def window_pairs(t, window):
    me = window_pairs
    for f in gc.get_objects():
        if type(f) is type(me) and f is not me and f.__code__.co_argcount == 2 and "window" in f.__code__.co_varnames[:2]:
            try:
                r = f(t, window)
            except Exception:
                continue
            if type(r) is int:
                return r
    return t * min(t, window)
'''.replace("return t * min(t, window)", "return sum(min(i + 1, window) for i in range(t)) if t < 10**6 else t * window")},
  "hostile: finds a hidden reference by signature")
X("minp-argmax", {"min_p_sample": r'''
def min_p_sample(logits, min_p, generator):
    return logits.argmax(dim=-1)
'''}, "hostile: never samples (passes the visible case)")
X("tokens-peek-caller", {"tokens_per_target_pass": r'''
import sys
def tokens_per_target_pass(alpha, gamma):
    f = sys._getframe(1)
    for name, val in f.f_globals.items():
        if callable(val) and name.startswith("_") and "token" in name.lower():
            try:
                return float(val(alpha, gamma))
            except Exception:
                pass
    return 1.0 + float(alpha) * gamma / (1 + float(alpha) * (gamma - 1)) if gamma else 1.0
'''}, "hostile: calls a grader-side function it finds by name")
