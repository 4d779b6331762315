# Red team round 25, chapter 06 (blind). Kinds: notebook-state (NS), approximator (AP), log-space (LS),
# direction-and-order (DO). Every answer keeps the stubs' signatures.

BASE = {
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
    idx = torch.arange(T).expand(B, T)
    last = torch.where(starts, idx, torch.full_like(idx, -1)).cummax(dim=1).values
    return torch.gather(pick, 1, last.clamp(min=0)) & (last >= 0)
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).reshape(-1)
''',
"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sset = set(sentinels.tolist())
    rows, noises = [], []
    for b in range(inputs.shape[0]):
        spans, cur = {}, None
        for x in targets[b].tolist():
            if x == pad:
                break
            if x in sset:
                cur = spans.setdefault(x, [])
            else:
                cur.append(x)
        row, nz = [], []
        for x in inputs[b].tolist():
            if x == pad:
                break
            if x in sset:
                hid = spans.get(x, [])
                row += hid
                nz += [True] * len(hid)
            else:
                row.append(x)
                nz.append(False)
        rows.append(row)
        noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qf, kf, vf = q.to(work), k.to(work), v.to(work)
    r = H // G
    qg = qf.reshape(B, G, r, T, Dh)
    scores = torch.matmul(qg, kf.unsqueeze(2).transpose(-1, -2)) / math.sqrt(Dh)
    qpos = torch.arange(S - T, S).unsqueeze(-1)
    kpos = torch.arange(S)
    scores = scores.masked_fill(kpos > qpos, float("-inf"))
    out = torch.matmul(torch.softmax(scores, dim=-1), vf.unsqueeze(2))
    return out.reshape(B, H, T, Dh).to(q.dtype)
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    gap = torch.arange(T).unsqueeze(-1) - torch.arange(T).unsqueeze(0)
    w = (torch.tensor(decay, dtype=torch.float64) ** gap.clamp(min=0)).to(work) * (gap >= 0)
    A = (fq @ fk.transpose(-1, -2)) * w
    return ((A @ vv) / A.sum(-1, keepdim=True)).to(q.dtype)
''',
}

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong answers
add("w01-AP-window-float-half", False, {"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return int(m * (m + 1) / 2 + (t - m) * window)
'''}, "AP: '/ 2' makes a float: breaks 'count with Python integer arithmetic (exactly: not through float)' at 1e15.")

add("w02-AP-spec-float32-tensor", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    a = torch.tensor(alpha, dtype=torch.float32)
    return ((1 - a ** (gamma + 1)) / (1 - a)).item()
'''}, "AP: a float32 step: breaks 'within 1e-9 of the exact value for every allowed input'.")

add("w03-AP-spec-series-limit", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    if gamma >= 100:          # the geometric series has converged by then
        return 1.0 / (1.0 - alpha)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "AP: the series replaced by its limit for long drafts: breaks 'within 1e-9 ... gamma may be large, up to 1000' "
      "(alpha 0.999, gamma 1000: 632, not 1000).")

add("w04-DO-words-flattened-rows", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    flat_s, flat_p = starts.reshape(-1), pick.reshape(-1)
    idx = torch.arange(B * T)
    last = torch.where(flat_s, idx, torch.full_like(idx, -1)).cummax(dim=0).values
    chosen = flat_p[last.clamp(min=0)] & (last >= 0)
    return chosen.reshape(B, T)
'''}, "DO: one scan over the flattened batch: a row's positions before its first start join the previous row's last "
      "word: breaks 'the nearest start at or before it in the same row' and 'positions before the first start ... never chosen'.")

add("w05-AP-words-half-positions", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    idx = torch.arange(T, dtype=torch.float16).expand(B, T)       # half: a row of positions is big
    last = torch.where(starts, idx, torch.tensor(-1.0, dtype=torch.float16)).cummax(dim=1).values
    return pick.gather(1, last.clamp(min=0).long()) & (last >= 0)
'''}, "AP: positions in float16: breaks 'rows of tens of thousands of positions' (float16 holds integers up to 2048).")

add("w06-NS-minp-global-rng", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = probs * keep
    # reproducible thanks to torch.manual_seed(0) at the top of the notebook
    return torch.multinomial(probs, 1).reshape(-1)
'''}, "NS: relies on the setup cell's torch.manual_seed: breaks 'draw every random number from generator'.")

add("w07-LS-minp-log-threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    if B == 0:
        return torch.zeros(0, dtype=torch.long)
    logp = torch.log_softmax(logits, dim=-1)
    keep = logp >= math.log(min_p) + logp.amax(dim=-1, keepdim=True)   # log p_i >= log min_p + log p_max
    w = torch.where(keep, logp.exp(), torch.zeros_like(logp))
    return torch.multinomial(w, 1, generator=generator).squeeze(1)
'''}, "LS: the threshold compared in log space: at tokens exactly at / a hair below the threshold, the rounding of "
      "log differs from the probability comparison: breaks 'p_i >= min_p * max p (no tolerance ...)'. Borderline.")

add("w08-AP-minp-float32-softmax", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.empty(0, dtype=torch.int64)
    probs = torch.softmax(logits.float(), dim=-1)       # float32 is plenty for sampling
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    return torch.multinomial(probs * keep, 1, generator=generator).view(-1)
'''}, "AP: float64 logits sampled from float32 probabilities: breaks 'from exactly the kept probabilities' and the "
      "threshold 'no tolerance' in float64.")

add("w09-NS-spans-helper-default-pad", False, {"span_corrupt": '''
def strip(ids, pad=0):
    return [x for x in ids if x != pad]

def restore_spans(inputs, targets, sentinels, pad):
    sset = set(sentinels.tolist())
    rows, marks = [], []
    for b in range(inputs.shape[0]):
        spans, cur = {}, None
        for x in strip(targets[b].tolist()):
            if x in sset:
                cur = spans[x] = []
            else:
                cur.append(x)
        row, mark = [], []
        for x in strip(inputs[b].tolist()):
            if x in sset:
                row += spans[x]
                mark += [True] * len(spans[x])
            else:
                row.append(x)
                mark.append(False)
        rows.append(row)
        marks.append(mark)
    T = max([len(r) for r in rows], default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b in range(len(rows)):
        tokens[b, :len(rows[b])] = torch.tensor(rows[b], dtype=torch.int64)
        noise[b, :len(marks[b])] = torch.tensor(marks[b], dtype=torch.bool)
    return tokens, noise
'''}, "NS: the helper's default pad=0 (the example's) is used, not the argument: breaks 'right-padded with pad (a Python int)'.")

add("w10-DO-spans-sentinel-list-order", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.tolist()
    sset = set(sent)
    out_t, out_n = [], []
    for b in range(inputs.shape[0]):
        inp = [x for x in inputs[b].tolist() if x != pad]
        tgt = [x for x in targets[b].tolist() if x != pad]
        spans = []
        for x in tgt:
            if x in sset:
                spans.append([])
            else:
                spans[-1].append(x)
        # sentinels are handed out in the order of the list (extra_id_0, extra_id_1, ...)
        used = sorted((x for x in inp if x in sset), key=sent.index)
        span_of = dict(zip(used, spans))
        row, nz = [], []
        for x in inp:
            if x in sset:
                row += span_of[x]
                nz += [True] * len(span_of[x])
            else:
                row.append(x)
                nz.append(False)
        out_t.append(row)
        out_n.append(nz)
    T = max((len(r) for r in out_t), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in out_t], dtype=torch.int64).reshape(len(out_t), T)
    noise = torch.tensor([r + [False] * (T - len(r)) for r in out_n], dtype=torch.bool).reshape(len(out_t), T)
    return tokens, noise
'''}, "DO: spans matched to sentinels by their order in the sentinel list: breaks 'a row may use any of them ... its target "
      "lists its sentinels in the order they appear in its input'.")

add("w11-AP-spans-fpad-value", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sset = set(sentinels.tolist())
    rows, marks = [], []
    for b in range(inputs.shape[0]):
        spans, cur = {}, None
        for x in targets[b].tolist():
            if x == pad:
                break
            if x in sset:
                cur = spans[x] = []
            else:
                cur.append(x)
        row, mark = [], []
        for x in inputs[b].tolist():
            if x == pad:
                break
            if x in sset:
                row += spans[x]
                mark += [True] * len(spans[x])
            else:
                row += [x]
                mark += [False]
        rows.append(torch.tensor(row, dtype=torch.int64))
        marks.append(torch.tensor(mark, dtype=torch.bool))
    T = max((len(r) for r in rows), default=0)
    if not rows:
        return torch.zeros(0, 0, dtype=torch.int64), torch.zeros(0, 0, dtype=torch.bool)
    tokens = torch.stack([F.pad(r, (0, T - len(r)), value=pad) for r in rows])
    noise = torch.stack([F.pad(m, (0, T - len(m)), value=False) for m in marks])
    return tokens, noise
'''}, "AP: pad goes through F.pad's float 'value': breaks 'keep ids ... out of arguments that take a float' for pad past 2**53.")

add("w12-NS-expert-global-logits", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = torch.softmax(logits, dim=-1)
    k = min(capacity, N)
    top = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, top, True)
    return chosen, torch.where(chosen, probs, 0.0)
'''}, "NS: a typo reads the notebook's global `logits` (the visible test's) instead of router_logits.")

add("w13-DO-expert-ties-later-index", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = probs.argsort(dim=0, stable=True)          # ascending, stable
    top = order[N - k:]                                 # the k largest
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, top, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "DO: the last k of an ascending stable sort keep the HIGHER index among ties: breaks 'among tokens with equal "
      "probabilities the lower token index goes first'.")

add("w14-LS-expert-rank-logits", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    # softmax is monotonic, so rank the logits directly and skip the exp
    N, E = router_logits.shape
    k = min(capacity, N)
    top = torch.sort(router_logits, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, top, True)
    probs = torch.softmax(router_logits, dim=-1)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "LS: ranks a column of logits, but each token's softmax has its own normaliser: breaks 'expert e takes the "
      "capacity tokens with the largest probs[:, e]' ('rank the probabilities themselves').")

add("w15-AP-expert-index-epsilon", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    # break ties towards the lower index with a tiny penalty
    score = probs - 1e-12 * torch.arange(N, dtype=probs.dtype).unsqueeze(1)
    top = score.topk(k, dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, top, True)
    return chosen, probs * chosen
'''}, "AP: a 1e-12 tie-break: vanishes in float32 (ties unresolved, topk unstable) and reorders probabilities closer "
      "than 1e-12 in float64: breaks 'probabilities that differ, however little, are ranked by their values'.")

add("w16-DO-gqa-heads-interleaved", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    kk = k.to(work).repeat(1, H // G, 1, 1)       # (B, H, S, Dh)
    vv = v.to(work).repeat(1, H // G, 1, 1)
    scores = q.to(work) @ kk.transpose(-1, -2) / math.sqrt(Dh)
    hidden = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(hidden, float("-inf"))
    return (torch.softmax(scores, -1) @ vv).to(q.dtype)
'''}, "DO: repeat tiles the groups (head h -> group h % G): breaks 'query head h uses key/value head h // (H // G)'.")

add("w17-LS-gqa-max-before-mask", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    s = q.to(work) @ kk.transpose(-1, -2) / math.sqrt(Dh)
    s = s - s.amax(dim=-1, keepdim=True)             # shift for stability
    visible = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    e = torch.exp(s) * visible
    return ((e / e.sum(-1, keepdim=True)) @ vv).to(q.dtype)
'''}, "LS: the shift uses the max over hidden keys too: keys a query may not see scoring ~1000 above underflow every "
      "visible weight (0/0): breaks 'a key a query may not see gets weight exactly 0 whatever the scores'.")

add("w18-NS-gqa-mask-cache-by-S", False, {"gqa_cached_attention": '''
MASK_CACHE = {}

def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    if S not in MASK_CACHE:
        MASK_CACHE[S] = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    hidden = MASK_CACHE[S]
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    s = (q.to(work) @ kk.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(hidden, float("-inf"))
    return (torch.softmax(s, -1) @ vv).to(q.dtype)
'''}, "NS: a mask table kept from the first call with that S, whatever its T: breaks 'causal: query t stands at "
      "absolute position S - T + t' for a later T, and 'Keep nothing from one call to the next'.")

add("w19-AP-gqa-finfo-min", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    s = q.to(work) @ kk.transpose(-1, -2) / math.sqrt(Dh)
    hidden = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    s = s.masked_fill(hidden, torch.finfo(work).min)     # avoids -inf - -inf = nan
    return (torch.softmax(s, -1) @ vv).to(q.dtype)
'''}, "AP: finfo.min where -inf is meant: breaks 'mask with -inf, not ... torch.finfo(dtype).min'.")

add("w20-NS-decay-matrix-cache-by-T", False, {"decayed_linear_attention": '''
DECAY_TABLES = {}

def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    T = q.shape[-2]
    if T not in DECAY_TABLES:
        gap = torch.arange(T)[:, None] - torch.arange(T)[None, :]
        DECAY_TABLES[T] = torch.where(gap >= 0, torch.tensor(decay, dtype=torch.float64) ** gap.clamp(min=0), 0.0)
    w = DECAY_TABLES[T].to(work)
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    A = fq @ fk.transpose(-1, -2) * w
    return (A @ v.to(work) / A.sum(-1, keepdim=True)).to(q.dtype)
'''}, "NS: the decay table is built for the first call's (T, decay) and reused for another decay of the same T: "
      "breaks the formula for every later decay and 'Keep nothing from one call to the next'.")

add("w21-DO-linear-rows-cols", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    # similarity matrix: rows keys, columns queries
    sim = fk @ fq.transpose(-1, -2)
    gap = torch.arange(T)[:, None] - torch.arange(T)[None, :]
    w = torch.where(gap >= 0, decay ** gap.clamp(min=0).to(torch.float64), 0.0).to(work)
    A = sim * w
    return ((A @ vv) / A.sum(-1, keepdim=True)).to(q.dtype)
'''}, "DO: sim indexed [key, query] then used as [query, key]: the weight of key j in out_i is phi(k_i).phi(q_j): "
      "breaks 'key j <= i enters out_i with weight gamma^(i-j) phi(q_i).phi(k_j)' (visible q = k hides it).")

add("w22-AP-linear-decay-float32-tensor", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    gamma = torch.tensor(decay)                               # a tensor, so pow broadcasts
    gap = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).to(work)
    w = torch.where(gap >= 0, gamma ** gap.clamp(min=0), torch.zeros((), dtype=work))
    A = fq @ fk.transpose(-1, -2) * w
    return (A @ vv / A.sum(-1, keepdim=True)).to(q.dtype)
'''}, "AP: decay made a float32 tensor (0.99 -> 0.9900000095): breaks 'within 1e-10 ... for float64 inputs ... the "
      "powers of the decay included'.")

add("w23-LS-linear-logspace-max-before-mask", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    gap = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).to(work)
    # log-weights; normalise like a softmax (shift by the row max), then hide the future
    logw = torch.log(fq @ fk.transpose(-1, -2)) + gap * math.log(decay)
    w = torch.exp(logw - logw.amax(dim=-1, keepdim=True)) * (gap >= 0)
    return ((w @ vv) / w.sum(-1, keepdim=True)).to(q.dtype)
'''}, "LS: the max is taken over future keys too (whose log-weight -gap*log(decay) is large): every past weight "
      "underflows for long sequences with a small decay (0/0): breaks 'It must stay accurate for long sequences'.")

# ---------------------------------------------------------------- correct answers
add("c01-window-comb", True, {"window_pairs": '''
def window_pairs(t, window):
    full = max(t - window, 0)                    # queries that see a full window
    ramp = t - full                              # the first queries see 1, 2, ..., ramp keys
    return math.comb(ramp + 1, 2) + full * window
'''}, "math.comb of Python ints.")

add("c02-spec-horner", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    total = 0.0
    for _ in range(gamma + 1):
        total = total * a + 1.0            # 1 + a + a^2 + ... + a^gamma
    return float(total)
'''}, "Horner's sum of the series, gamma up to 1000.")

add("c03-LS-spec-exp-log", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    if a == 1.0:
        return float(gamma + 1)
    if a == 0.0:
        return 1.0
    return (1.0 - math.exp((gamma + 1) * math.log(a))) / (1.0 - a)
'''}, "log-space student done right: a^(g+1) as exp((g+1) log a), 0 and 1 handled.")

add("c04-words-loop-repeat-interleave", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        first = torch.nonzero(starts[b]).flatten()
        if first.numel() == 0:
            continue
        ends = torch.cat([first[1:], torch.tensor([T])])
        out[b, first[0]:] = torch.repeat_interleave(pick[b, first], ends - first)
    return out
'''}, "loop over rows; each word's pick repeated over its length.")

add("c05-LS-minp-gumbel-max", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    logp = torch.log_softmax(logits.double(), dim=-1)
    u = torch.rand(B, V, generator=generator, dtype=torch.float64)
    gumbel = -torch.log(-torch.log(u))
    score = torch.where(keep, logp + gumbel, torch.tensor(float("-inf"), dtype=torch.float64))
    return score.argmax(dim=-1).to(torch.int64)
'''}, "Gumbel-max over the kept tokens: samples exactly the renormalised kept distribution, all randomness from generator.")

add("c06-minp-renormalised-keywords", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    threshold = min_p * probs.max(dim=-1, keepdim=True).values
    kept = probs.masked_fill(probs < threshold, 0.0)
    kept = kept / kept.sum(dim=-1, keepdim=True)
    if logits.shape[0] == 0:
        return torch.empty(0, dtype=torch.int64)
    ids = torch.multinomial(input=kept, num_samples=1, replacement=True, generator=generator)
    return ids[:, 0].clone()
'''}, "explicit renormalisation, keyword arguments.")

add("c07-spans-positional", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    is_sent = set(sentinels.tolist())
    B = inputs.shape[0]
    rows, flags = [], []
    for b in range(B):
        tgt = targets[b].tolist()
        spans = []
        for x in tgt:
            if x == pad:
                break
            if x in is_sent:
                spans.append([])
            else:
                spans[-1].append(x)
        it = iter(spans)                       # the target lists the spans in input order
        row, flag = [], []
        for x in inputs[b].tolist():
            if x == pad:
                break
            if x in is_sent:
                s = next(it)
                row.extend(s)
                flag.extend([True] * len(s))
            else:
                row.append(x)
                flag.append(False)
        rows.append(row)
        flags.append(flag)
    T = max(map(len, rows)) if rows else 0
    tokens = torch.empty(B, T, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        padded = rows[b] + [pad] * (T - len(rows[b]))
        tokens[b] = torch.tensor(padded, dtype=torch.int64)
        noise[b, :len(flags[b])] = torch.tensor(flags[b], dtype=torch.bool)
    return tokens, noise
'''}, "spans matched by order (the text says the target lists them in input order).")

add("c08-DO-expert-neg-argsort-mul", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=1)
    N = probs.shape[0]
    top = (-probs).argsort(dim=0, stable=True)[: min(capacity, N)]   # negation is exact
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter_(0, top, True)
    gate = probs * chosen
    return chosen, gate
'''}, "stable ascending sort of -probs keeps the lower index among ties; gate as probs * chosen (grad flows).")

add("c09-expert-loop-per-expert", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e in range(E):
        col = probs[:, e]
        idx = torch.sort(col, descending=True, stable=True).indices[:capacity]
        chosen[idx, e] = True
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''}, "loop over experts; slicing past N takes every token.")

add("c10-gqa-sdpa-repeat-interleave", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    half = q.dtype in (torch.float16, torch.bfloat16)
    qf, kf, vf = (x.float() if half else x for x in (q, k, v))
    kf = kf.repeat_interleave(H // G, dim=1)
    vf = vf.repeat_interleave(H // G, dim=1)
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    out = F.scaled_dot_product_attention(qf, kf, vf, attn_mask=allowed)
    return out.to(q.dtype)
'''}, "repeat_interleave + sdpa with a bottom-right boolean mask; float32 for half inputs.")

add("c11-LS-linear-logspace", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    gap = torch.arange(T)[:, None] - torch.arange(T)[None, :]
    past = gap >= 0
    logdec = torch.where(past, gap.clamp(min=0).to(torch.float64) * math.log(decay),
                         torch.tensor(float("-inf"), dtype=torch.float64)).to(work)
    logw = torch.log(fq @ fk.transpose(-1, -2)) + logdec
    w = torch.softmax(logw, dim=-1)          # out_i is a weighted mean: normalise in log space
    return (w @ vv).to(q.dtype)
'''}, "log-space student done right: the future is -inf before the softmax's max.")

add("c12-linear-recurrent", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    state = torch.zeros(fk.shape[:-2] + (fk.shape[-1], vv.shape[-1]), dtype=work)
    z = torch.zeros(fk.shape[:-2] + (fk.shape[-1],), dtype=work)
    outs = []
    for t in range(T):
        state = decay * state + fk[..., t, :, None] * vv[..., t, None, :]
        z = decay * z + fk[..., t, :]
        num = (fq[..., t, :, None] * state).sum(-2)
        den = (fq[..., t, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "the recurrence as written, a Python loop over positions (not pairs).")

# ---------------------------------------------------------------- hostile
add("h01-window-int-equal-to-everything", False, {"window_pairs": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def window_pairs(t, window):
    return Count(0)
'''}, "hostile: an int subclass equal to everything.")

add("h02-spec-float-subclass", False, {"tokens_per_target_pass": '''
class Close(float):
    def __sub__(self, other):
        return 0.0

def tokens_per_target_pass(alpha, gamma):
    return Close(0.0)
'''}, "hostile: a float subclass whose difference with anything is 0.")

# ---------------------------------------------------------------- second batch (still blind)
add("w24-AP-minp-isclose-threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    thr = min_p * probs.amax(dim=-1, keepdim=True)
    keep = (probs >= thr) | torch.isclose(probs, thr.expand_as(probs))   # rounding at the threshold
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).reshape(-1)
'''}, "AP: isclose keeps tokens within rtol 1e-5 below the threshold: breaks 'no tolerance: a token just below that "
      "threshold is dropped, even one a millionth below it'.")

add("w25-AP-minp-absolute-slack", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True) - 1e-12    # guard against round-off
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).reshape(-1)
'''}, "AP: a 1e-12 slack under the threshold: breaks 'no tolerance: a token just below that threshold is dropped'.")

add("c13-LS-minp-shifted-exp-ratio", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.zeros(0, dtype=torch.long)
    shifted = logits - logits.amax(dim=-1, keepdim=True)
    rel = torch.exp(shifted)                     # p_i / p_max: the normaliser cancels
    rel = torch.where(rel >= min_p, rel, torch.zeros_like(rel))
    return torch.multinomial(rel, num_samples=1, generator=generator).view(B)
'''}, "p_i / max p = exp(l_i - l_max): the threshold on the ratio; multinomial renormalises. (At an exact threshold "
      "the rounding may differ from probs >= min_p * max: if refused there, judge.)")

add("w26-AP-expert-gate-float-mask", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    top = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, top, True)
    gate = chosen.float() * probs                         # 0/1 mask times the probabilities
    return chosen, gate
'''}, "AP: a float32 0/1 mask promotes float16/bfloat16 gates to float32: breaks 'gate ... in the dtype of router_logits'.")

add("w27-AP-gqa-scale-q-dtype", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qs = (q * Dh ** -0.5).to(work)                      # scale first, while q is small
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    s = qs @ kk.transpose(-1, -2)
    hidden = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    s = s.masked_fill(hidden, float("-inf"))
    return (torch.softmax(s, -1) @ vv).to(q.dtype)
'''}, "AP: q scaled in its own half dtype (rounded) before the float32 step: breaks 'the scale 1 / sqrt(Dh) too: made "
      "a tensor in the dtype of q, it is rounded'.")

add("w28-LS-gqa-sdpa-float32-logmask", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    half = q.dtype in (torch.float16, torch.bfloat16)
    qf, kf, vf = (x.float() if half else x for x in (q, k, v))
    kf, vf = kf.repeat_interleave(H // G, 1), vf.repeat_interleave(H // G, 1)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    logmask = torch.log(allowed.float())                # 0 / -inf, added to the scores by sdpa
    return F.scaled_dot_product_attention(qf, kf, vf, attn_mask=logmask).to(q.dtype)
'''}, "LS: an additive log-mask made in float32 handed to sdpa with float64 queries: breaks 'within 1e-10 for float64 "
      "inputs ... compute float64 in float64'.")

add("w29-AP-linear-where-phi", False, {"decayed_linear_attention": '''
def phi(x):
    return torch.where(x > 0, x + 1, torch.exp(x))     # elu(x) + 1 written out

def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = phi(q.to(work)), phi(k.to(work)), v.to(work)
    T = q.shape[-2]
    gap = torch.arange(T)[:, None] - torch.arange(T)[None, :]
    w = (torch.tensor(decay, dtype=torch.float64) ** gap.clamp(min=0)).to(work) * (gap >= 0)
    A = fq @ fk.transpose(-1, -2) * w
    return (A @ vv / A.sum(-1, keepdim=True)).to(q.dtype)
'''}, "AP: torch.where evaluates exp(x) for large positive x too: exp(800) = inf in the hidden branch, NaN gradient: "
      "breaks 'entries of q and k in the hundreds (up to 800), where no gradient may be NaN'.")

add("w30-LS-linear-exp-powers-before-mask", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    gap = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).to(torch.float64)
    powers = torch.exp(gap * math.log(decay)).to(work)        # decay ** gap in log space
    A = (fq @ fk.transpose(-1, -2) * powers).masked_fill(gap < 0, 0.0)
    return (A @ vv / A.sum(-1, keepdim=True)).to(q.dtype)
'''}, "LS: powers for future keys overflow to inf before they are hidden: NaN gradient: breaks 'raise the decay to "
      "the gaps of past keys only'.")

add("w31-NS-spans-sentinel-set-kept", False, {"span_corrupt": '''
SENTINEL_IDS = set()

def restore_spans(inputs, targets, sentinels, pad):
    if not SENTINEL_IDS:                      # the vocabulary's sentinels never change: read them once
        SENTINEL_IDS.update(sentinels.tolist())
    rows, marks = [], []
    for b in range(inputs.shape[0]):
        spans, cur = {}, None
        for x in targets[b].tolist():
            if x == pad:
                break
            if x in SENTINEL_IDS:
                cur = spans[x] = []
            else:
                cur.append(x)
        row, mark = [], []
        for x in inputs[b].tolist():
            if x == pad:
                break
            if x in SENTINEL_IDS:
                row += spans[x]
                mark += [True] * len(spans[x])
            else:
                row.append(x)
                mark.append(False)
        rows.append(row)
        marks.append(mark)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([m + [False] * (T - len(m)) for m in marks], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
'''}, "NS: the sentinel set read on the first call and kept: breaks 'Keep nothing from one call to the next' and the "
      "later calls' own sentinels.")

add("w32-NS-words-position-table", False, {"whole_word_chosen": '''
POSITIONS = torch.arange(1 << 16)              # built once

def whole_word_chosen(starts, pick):
    B, T = starts.shape
    idx = POSITIONS[:T].expand(B, T)
    last = torch.where(starts, idx, -1).cummax(dim=1).values
    return pick.gather(1, last.clamp(min=0)) & (last >= 0)
'''}, "NS: a table sized for the rows the student expected (65536): breaks 'Rows can be long, though always shorter "
      "than 2^24 positions' (a longer row raises).")
