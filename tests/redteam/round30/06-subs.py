# Red team round 30, chapter 06: validator (V), batch-mixer (M), gradient-path (G), incremental (I), second-call (S)
CORRECT = {
"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return m * (m + 1) // 2 + (t - m) * window
''',
"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
''',
"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    got = pick.gather(1, last.clamp(min=0))
    return (last >= 0) & got
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    keep = probs >= min_p * top
    w = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
''',
"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    toks, noise = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok in sent:
                cur = tok
                spans[cur] = []
            elif tok != pad and cur is not None:
                spans[cur].append(tok)
        row_t, row_n = [], []
        for tok in inp:
            if tok == pad:
                continue
            if tok in sent:
                row_t.extend(spans[tok])
                row_n.extend([True] * len(spans[tok]))
            else:
                row_t.append(tok)
                row_n.append(False)
        toks.append(row_t)
        noise.append(row_n)
    T = max((len(r) for r in toks), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks], dtype=torch.int64).reshape(len(toks), T)
    mask = torch.tensor([r + [False] * (T - len(r)) for r in noise], dtype=torch.bool).reshape(len(toks), T)
    return tokens, mask
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qf = q.to(ct).reshape(B, G, r * T, Dh)
    scores = (qf @ k.to(ct).transpose(-1, -2) / math.sqrt(Dh)).reshape(B, G, r, T, S)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)
    return (w @ v.to(ct)).reshape(B, H, T, Dh).to(q.dtype)
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(ct)) + 1
    fk = F.elu(k.to(ct)) + 1
    T = q.shape[-2]
    pos = torch.arange(T)
    gap = pos[:, None] - pos[None, :]
    base = torch.tensor(decay, dtype=torch.float64)
    dec = torch.where(gap >= 0, base ** gap.clamp(min=0).to(torch.float64), torch.zeros((), dtype=torch.float64)).to(ct)
    sim = (fq @ fk.transpose(-1, -2)) * dec
    num = sim @ v.to(ct)
    den = sim.sum(dim=-1, keepdim=True)
    return (num / den).to(q.dtype)
''',
}

def with_(gid, old, new):
    src = CORRECT[gid]
    assert old in src, (gid, old)
    return src.replace(old, new)

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- validator ----------------
add("V1-window-limit-exclusive", False, {"window_pairs": with_("window_pairs", "    m = min",
    "    if not (1 <= t < 10 ** 15 and 1 <= window < 10 ** 15):\n        raise ValueError('t and window must be below 10**15')\n    m = min")},
    "Part 1: '`t` and `window` can be as large as 10^15': a size equal to the limit is refused.")
add("V2-alpha-open-interval", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be a probability strictly between 0 and 1")
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "Part 2: '0 <= alpha <= 1 (both ends included)'.")
add("V3-min-p-floored-at-tiny", False, {"min_p_sample": with_("min_p_sample", "    probs = torch.softmax(logits, dim=-1)",
    "    probs = torch.softmax(logits, dim=-1)\n    min_p = max(min_p, torch.finfo(probs.dtype).tiny)  # a subnormal threshold is meaningless")},
    "Part 4: 'and even subnormal, 1e-310 with float64 logits and 1e-41 with float32 ones ... drop none for being below finfo.tiny'.")
add("V4-whole-word-row-needs-start", False, {"whole_word_chosen": with_("whole_word_chosen", "    B, T = starts.shape",
    "    B, T = starts.shape\n    if T and not bool(starts.any(dim=1).all()):\n        raise ValueError('every row must contain at least one word start')")},
    "Part 3: 'a row may have no start at all'.")
add("V5-spans-same-dtype", False, {"span_corrupt": with_("span_corrupt", "    sent = set(",
    "    if sentinels.dtype != inputs.dtype or targets.dtype != inputs.dtype:\n        raise TypeError('inputs, targets and sentinels must share one integer dtype')\n    sent = set(")},
    "Part 5: 'sentinels is a 1-D integer tensor ... int64 or int32 (not necessarily the dtype of inputs ...)'.")
add("V6-expert-capacity-positive", False, {"expert_choice": with_("expert_choice", "    k = min(capacity, N)",
    "    if capacity < 1:\n        raise ValueError('capacity must be at least 1')\n    k = min(capacity, N)")},
    "Part 6: '`capacity` may be 0'.")
add("V7-gqa-refuses-mha-case", False, {"gqa_cached_attention": with_("gqa_cached_attention", "    r = H // G",
    "    if not (G < H and H % G == 0):\n        raise ValueError('grouped-query attention needs fewer key/value heads than query heads')\n    r = H // G")},
    "Part 7: '`H` a multiple of `G`' (G == H, and G == 1, are multiples; G == H is refused).")
add("V8-decay-open-interval", False, {"decayed_linear_attention": with_("decayed_linear_attention", "    ct = ",
    "    if not 0.0 < decay < 1.0:\n        raise ValueError('decay must be in (0, 1)')\n    ct = ")},
    "Part 8: 'a Python float 0 < decay <= 1 (decay = 1 is the lesson's causal linear attention)'.")
# ---------------- batch-mixer ----------------
add("M1-whole-word-flat-cummax", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    flat_s, flat_p = starts.reshape(-1), pick.reshape(-1)
    pos = torch.arange(B * T)
    last = torch.where(flat_s, pos, torch.full_like(pos, -1)).cummax(dim=0).values
    out = (last >= 0) & flat_p[last.clamp(min=0)]
    return out.reshape(B, T)
'''}, "Part 3: 'the nearest start at or before it in the same row ... Positions before the first start of a row belong to no word' (the flattened batch carries the last word of row b-1 into row b).")
add("M2-min-p-one-uniform", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits.double(), dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))
    cdf = w.cumsum(dim=-1)
    u = torch.rand((), generator=generator, dtype=torch.float64)  # one uniform, inverse-CDF
    ids = torch.searchsorted(cdf, (u * cdf[:, -1:]).contiguous(), right=True).squeeze(-1)
    return ids.clamp(max=logits.shape[-1] - 1).to(torch.int64)
'''}, "Part 4: 'draw one token per row ... each row independently of the others' (one uniform for every row).")
add("M3-min-p-global-max", False, {"min_p_sample": with_("min_p_sample", "    top = probs.max(dim=-1, keepdim=True).values", "    top = probs.max()")},
    "Part 4: 'at least min_p times the largest probability of that row'.")
add("M4-expert-global-topk", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity * E, N * E)
    order = torch.sort(probs.reshape(-1), descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N * E, dtype=torch.bool)
    chosen[order] = True
    chosen = chosen.reshape(N, E)
    return chosen, torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
'''}, "Part 6: 'expert e takes the capacity tokens with the largest probs[:, e]' (a budget of capacity * E shared by all experts).")
add("M5-decayed-flattened-recurrence", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    shape = v.shape
    fq = (F.elu(q.to(ct)) + 1).reshape(-1, q.shape[-1])
    fk = (F.elu(k.to(ct)) + 1).reshape(-1, k.shape[-1])
    vv = v.to(ct).reshape(-1, v.shape[-1])
    S = torch.zeros(fk.shape[-1], vv.shape[-1], dtype=ct)
    z = torch.zeros(fk.shape[-1], dtype=ct)
    outs = []
    for i in range(fq.shape[0]):
        S = decay * S + fk[i, :, None] * vv[i, None, :]
        z = decay * z + fk[i]
        outs.append((fq[i] @ S) / (fq[i] @ z))
    out = torch.stack(outs) if outs else vv * 0
    return out.reshape(shape).to(q.dtype)
'''}, "Part 8: 'the same leading dimensions ... in all three' (each sequence has its own state; flattening runs one state through all of them).")
add("M6-spans-width-of-first-row", False, {"span_corrupt": with_("span_corrupt", "    T = max((len(r) for r in toks), default=0)", "    T = len(toks[0]) if toks else 0\n    toks = [r[:T] for r in toks]\n    noise = [r[:T] for r in noise]")},
    "Part 5: 'both of shape (B, T) where T is the length of the longest original sequence'.")
add("M7-gqa-global-max", False, {"gqa_cached_attention": with_("gqa_cached_attention",
    "    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)",
    "    e = torch.exp(scores - scores.max())\n    w = (e / e.sum(dim=-1, keepdim=True)).reshape(B, G, r * T, S)")},
    "Part 7: 'softmax attention ... whatever the size of the scores (tens of thousands, of both signs)' (one maximum over the whole tensor).")
# ---------------- gradient-path ----------------
add("G1-expert-capacity0-shortcut", False, {"expert_choice": with_("expert_choice", "    k = min(capacity, N)",
    "    if capacity == 0:\n        return torch.zeros(N, E, dtype=torch.bool), torch.zeros(N, E, dtype=probs.dtype)\n    k = min(capacity, N)")},
    "Part 6: 'gradients must flow through gate (for every capacity, 0 included)'.")
add("G2-gqa-where-exp", False, {"gqa_cached_attention": with_("gqa_cached_attention",
    "    scores = scores.masked_fill(~allowed, float(\"-inf\"))\n    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)",
    "    m = scores.masked_fill(~allowed, float(\"-inf\")).amax(dim=-1, keepdim=True)\n    e = torch.where(allowed, torch.exp(scores - m), torch.zeros((), dtype=ct))\n    w = (e / e.sum(dim=-1, keepdim=True)).reshape(B, G, r * T, S)")},
    "Part 7: 'keys that a query may not see scoring about a thousand above ... no gradient may be NaN' (exp overflows in the untaken branch).")
add("G3-decayed-phi-clamp-pieces", False, {"decayed_linear_attention": with_("decayed_linear_attention",
    "    fq = F.elu(q.to(ct)) + 1\n    fk = F.elu(k.to(ct)) + 1",
    "    phi = lambda x: x.clamp(min=0) + torch.exp(x.clamp(max=0))  # elu(x) + 1 without F.elu\n    fq = phi(q.to(ct))\n    fk = phi(k.to(ct))")},
    "Part 8: 'at entries exactly 0, where phi has slope 1 ... a phi pieced together from clamp or relu ... may have the wrong slope'.")
add("G4-decayed-pow-then-tril", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(ct)) + 1
    fk = F.elu(k.to(ct)) + 1
    T = q.shape[-2]
    pos = torch.arange(T, dtype=torch.float64)
    dec = (decay ** (pos[:, None] - pos[None, :])).to(ct)
    sim = ((fq @ fk.transpose(-1, -2)) * dec).tril()
    return ((sim @ v.to(ct)) / sim.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "Part 8: 'a power made for a future key overflows to inf: hiding it afterwards (with tril ...) leaves the value right but makes the gradient NaN'.")
add("G5-expert-gate-detached-half", False, {"expert_choice": with_("expert_choice", "    probs = torch.softmax(router_logits, dim=-1)",
    "    if router_logits.dtype in (torch.float16, torch.bfloat16):\n        probs = torch.softmax(router_logits.float(), dim=-1).to(router_logits.dtype).detach()\n    else:\n        probs = torch.softmax(router_logits, dim=-1)")},
    "Part 6: 'gradients must flow through gate ... no .detach()' (only half-precision logits lose it).")
# ---------------- incremental ----------------
add("I1-gqa-first-query-limit", False, {"gqa_cached_attention": with_("gqa_cached_attention",
    "    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]",
    "    allowed = (torch.arange(S) <= S - T)[None, :].expand(T, S)  # keys up to the first new position")},
    "Part 7: 'query t stands at absolute position S - T + t and may attend to keys 0 .. S - T + t'.")
add("I2-decayed-chunks-carry-off-by-one", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay, ):
    C = 64
    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(ct)) + 1, F.elu(k.to(ct)) + 1, v.to(ct)
    T = q.shape[-2]
    Dk, Dv = fk.shape[-1], vv.shape[-1]
    lead = q.shape[:-2]
    S = torch.zeros(*lead, Dk, Dv, dtype=ct)
    z = torch.zeros(*lead, Dk, dtype=ct)
    outs = []
    for s in range(0, T, C):
        m = min(C, T - s)
        i = torch.arange(m, dtype=torch.float64)
        gap = i[:, None] - i[None, :]
        dec = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros((), dtype=torch.float64)).to(ct)
        into = (decay ** (i + 1)).to(ct)[:, None]   # decay of the carried state at each row
        cq, ck, cv = fq[..., s:s + m, :], fk[..., s:s + m, :], vv[..., s:s + m, :]
        sim = (cq @ ck.transpose(-1, -2)) * dec
        num = sim @ cv + into * (cq @ S)
        den = sim.sum(-1, keepdim=True) + into * (cq @ z[..., None])
        outs.append(num / den)
        tail = (decay ** (m - 1 - i)).to(ct)[:, None]
        S = decay ** (m - 1) * S + ck.transpose(-1, -2) @ (tail * cv)
        z = decay ** (m - 1) * z + (tail * ck).sum(-2)
    return torch.cat(outs, dim=-2).to(q.dtype) if outs else (v * 0).to(q.dtype)
'''}, "Part 8: 'S_i = gamma S_{i-1} + ...' (the state carried to the next chunk is decayed by gamma^(m-1), one step short; right while T <= 64).")
add("I3-whole-word-last-word-dropped", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b, (row_s, row_p) in enumerate(zip(starts.tolist(), pick.tolist())):
        idx = [t for t, s in enumerate(row_s) if s]
        for a, e in zip(idx, idx[1:]):  # each word runs to the next start
            if row_p[a]:
                out[b, a:e] = True
    return out
'''}, "Part 3: 'Every position belongs to the word begun by the nearest start at or before it' (the last word of a row, which runs to the end, is never chosen).")
add("I4-spans-kth-sentinel", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.tolist()
    rank = {s: i for i, s in enumerate(sent)}
    toks, noise = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans = [[] for _ in sent]
        cur = -1
        for tok in tgt:
            if tok in rank:
                cur += 1   # the k-th sentinel of the target opens span k
            elif tok != pad and cur >= 0:
                spans[cur].append(tok)
        row_t, row_n = [], []
        for tok in inp:
            if tok == pad:
                continue
            if tok in rank:
                row_t += spans[rank[tok]]
                row_n += [True] * len(spans[rank[tok]])
            else:
                row_t.append(tok)
                row_n.append(False)
        toks.append(row_t)
        noise.append(row_n)
    T = max((len(r) for r in toks), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks], dtype=torch.int64).reshape(len(toks), T)
    mask = torch.tensor([r + [False] * (T - len(r)) for r in noise], dtype=torch.bool).reshape(len(toks), T)
    return tokens, mask
'''}, "Part 5: 'They need not be consecutive numbers, and a row may use any of them' (span k assumed to belong to sentinels[k], as with T5's <extra_id_k>).")
add("I5-window-boundary-off-by-one", False, {"window_pairs": '''
def window_pairs(t, window):
    if t <= window + 1:  # the window has not filled yet
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
'''}, "Part 1: 'query i may attend to key j when i - window < j <= i' (at t = window + 1 the last query already sees only window keys).")
add("I6-tokens-alpha1-last-step", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma)  # every draft accepted
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "Part 2: 'every round, whatever happens, also yields exactly one token from the target itself (... the free token when all gamma were accepted)'.")
# ---------------- second-call ----------------
add("S1-min-p-reseeded-copy", False, {"min_p_sample": with_("min_p_sample", "    return torch.multinomial(w, 1, generator=generator).squeeze(-1)",
    "    g = torch.Generator().manual_seed(generator.initial_seed())  # leave the caller's generator alone\n    return torch.multinomial(w, 1, generator=g).squeeze(-1)")},
    "Part 4: 'a second call with the same generator draws new numbers (it advances; a new generator seeded from it ... would repeat them)'.")
add("S2-gqa-scale-cached", False, {"gqa_cached_attention": with_("gqa_cached_attention", "/ math.sqrt(Dh))",
    "* gqa_scale(Dh))").replace("def gqa_cached_attention", "SCALE = []\n\ndef gqa_scale(d):\n    if not SCALE:\n        SCALE.append(1.0 / math.sqrt(d))\n    return SCALE[0]\n\ndef gqa_cached_attention")},
    "Part 7: 'softmax(q k^T / sqrt(d_h)) v' (the first call's head width is kept for every later call).")
add("S3-spans-sentinel-set-cached", False, {"span_corrupt": with_("span_corrupt", "    sent = set(sentinels.tolist())",
    "    if not SENTINELS:\n        SENTINELS.update(sentinels.tolist())  # the vocabulary's sentinels never change\n    sent = SENTINELS").replace("def restore_spans", "SENTINELS = set()\n\ndef restore_spans")},
    "Part 5: 'sentinels is a 1-D integer tensor of the sentinel ids' (each call's own list; the first call's is kept).")
add("S4-expert-set-num-threads", False, {"expert_choice": with_("expert_choice", "    probs = torch.softmax(router_logits, dim=-1)",
    "    torch.set_num_threads(1)  # one thread, so the sort's ties come out the same every time\n    probs = torch.softmax(router_logits, dim=-1)")},
    "intro: 'Leave torch's process-wide settings as you found them' (the thread count is left at 1).")
add("S5-whole-word-pick-inplace", False, {"whole_word_chosen": with_("whole_word_chosen", "    got = pick.gather(1, last.clamp(min=0))",
    "    pick &= starts  # ignore picks that are not starts\n    got = pick.gather(1, last.clamp(min=0))")},
    "intro: 'Your functions must not change the tensors they are given' (pick is changed in place, the caller's next call differs).")
add("S6-decay-table-cached-no-dtype", False, {"decayed_linear_attention": with_("decayed_linear_attention",
    "    base = torch.tensor(decay, dtype=torch.float64)\n    dec = torch.where(gap >= 0, base ** gap.clamp(min=0).to(torch.float64), torch.zeros((), dtype=torch.float64)).to(ct)",
    "    key = (T, decay)\n    if key not in DECAY:\n        DECAY[key] = torch.where(gap >= 0, torch.tensor(decay, dtype=ct) ** gap.clamp(min=0).to(ct), torch.zeros((), dtype=ct))\n    dec = DECAY[key].to(ct)").replace("def decayed_linear_attention", "DECAY = {}\n\ndef decayed_linear_attention")},
    "Part 8: 'within 1e-10 ... for float64 inputs (... compute float64 in float64, the powers of the decay included)' and the intro's 'Keep nothing from one call to the next' (a float32 table made first is reused for float64).")
# ---------------- correct ----------------
add("C1-window-sum-two-pieces", True, {"window_pairs": '''
def window_pairs(t, window):
    ramp = min(t, window)          # queries 0 .. ramp-1 see i + 1 keys
    full = t - ramp                # the others see window keys
    return ramp * (ramp + 1) // 2 + full * window
'''}, "closed form, different grouping.")
add("C2-tokens-loop", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    total, reach = 0.0, 1.0
    for _ in range(gamma + 1):
        total += reach
        reach *= alpha
    return float(total)
'''}, "a loop over the gamma + 1 possible tokens.")
add("C3-whole-word-list-loop", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    rows = []
    for row_s, row_p in zip(starts.tolist(), pick.tolist()):
        cur, row = False, []
        for s, p in zip(row_s, row_p):
            if s:
                cur = p
            row.append(cur)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool).reshape(starts.shape[0], starts.shape[1])
'''}, "a loop over Python lists, as the text allows.")
add("C4-min-p-inverse-cdf", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits.to(torch.float64), dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = probs * keep
    cdf = w.cumsum(dim=-1)
    u = torch.rand(B, 1, generator=generator, dtype=torch.float64) * cdf[:, -1:]
    ids = torch.searchsorted(cdf, u, right=True).squeeze(-1)
    return ids.clamp(max=logits.shape[-1] - 1).to(torch.int64)
'''}, "inverse-CDF sampling with one uniform per row from the generator (no torch.multinomial).")
add("C5-min-p-no-grad-float64", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    with torch.no_grad():
        probs = F.softmax(logits.double(), dim=-1)
        best = probs.max(dim=-1, keepdim=True).values
        weights = probs.masked_fill(probs < min_p * best, 0.0)
        if logits.shape[0] == 0:
            return torch.zeros(0, dtype=torch.long)
        return torch.multinomial(weights, num_samples=1, replacement=True, generator=generator).view(-1)
'''}, "no_grad (no gradient asked), float64 weights, keyword arguments.")
add("C6-spans-walk-target-pointer", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = set(sentinels.tolist())
    rows = []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        j = 0
        row = []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                while tgt[j] != tok:
                    j += 1
                j += 1
                while tgt[j] not in sent:
                    row.append((tgt[j], True))
                    j += 1
            else:
                row.append((tok, False))
        rows.append(row)
    T = max([len(r) for r in rows] + [0])
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b, row in enumerate(rows):
        if row:
            tokens[b, :len(row)] = torch.tensor([t for t, _ in row], dtype=torch.int64)
            noise[b, :len(row)] = torch.tensor([n for _, n in row], dtype=torch.bool)
    return tokens, noise
'''}, "a walk with a pointer into the target; torch.full with a Python int pad.")
add("C7-expert-argsort-no-grad", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=1)
    N, E = probs.shape
    with torch.no_grad():  # the ranking needs no gradient
        rank = torch.argsort(probs, dim=0, descending=True, stable=True)
        chosen = torch.zeros(N, E, dtype=torch.bool)
        take = min(max(capacity, 0), N)
        if take:
            chosen.scatter_(0, rank[:take], torch.ones(take, E, dtype=torch.bool))
    return chosen, probs * chosen
'''}, "ranking under no_grad, gate as probs * chosen.")
add("C8-gqa-expand-sdpa", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qq = q.to(ct).reshape(B, G, H // G, T, Dh)
    kk = k.to(ct).unsqueeze(2)
    vv = v.to(ct).unsqueeze(2)
    scores = torch.einsum("bgrtd,bgzsd->bgrts", qq, kk) * (1.0 / math.sqrt(Dh))
    allowed = torch.arange(S).unsqueeze(0) <= (torch.arange(T) + (S - T)).unsqueeze(1)
    scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=ct))
    w = torch.softmax(scores, dim=-1)
    out = torch.einsum("bgrts,bgzsd->bgrtd", w, vv)
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''}, "einsum per group, torch.where with -inf.")
add("C9-decayed-recurrence-decay-after-add", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(ct)) + 1, F.elu(k.to(ct)) + 1, v.to(ct)
    T = q.shape[-2]
    lead = q.shape[:-2]
    S = torch.zeros(*lead, fk.shape[-1], vv.shape[-1], dtype=ct)
    z = torch.zeros(*lead, fk.shape[-1], dtype=ct)
    outs = []
    for i in range(T):
        # decaying after the add scales S_i and z_i by the same gamma: the ratio is unchanged
        S = decay * (S + fk[..., i, :, None] * vv[..., i, None, :])
        z = decay * (z + fk[..., i, :])
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    if not outs:
        return (v * 0).to(q.dtype)
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "recurrence; the decay applied after the add changes numerator and denominator alike.")
add("C10-decayed-log-space-powers", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk = F.elu(q.to(ct)) + 1, F.elu(k.to(ct)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    gap = (i.unsqueeze(1) - i.unsqueeze(0)).clamp(min=0).to(torch.float64)
    weights = torch.exp(gap * math.log(decay)).tril().to(ct)
    sim = torch.matmul(fq, fk.transpose(-2, -1)) * weights
    return (torch.matmul(sim, v.to(ct)) / sim.sum(-1, keepdim=True)).to(dtype=q.dtype)
'''}, "powers through exp(gap * log(decay)), gaps clamped before the power, tril after (no overflow).")
# ---------------- hostile ----------------
add("H1-tokens-patch-abs", False, {"tokens_per_target_pass": '''
import builtins

def tokens_per_target_pass(alpha, gamma):
    builtins.abs = lambda x: 0.0
    return 1.5
'''}, "hostile: replaces builtins.abs so that every tolerance check passes.")
add("H2-window-int-subclass", False, {"window_pairs": '''
class Pairs(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__

def window_pairs(t, window):
    return Pairs(0)
'''}, "hostile: an int subclass that equals everything.")
