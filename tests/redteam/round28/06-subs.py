# Red-team round 28, chapter 06 (blind). Kinds: tie-breaker, fallback writer, constant-hardcoder, memoizer, spec-lawyer.
SUBMISSIONS = []
def W(name, kind, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": f"[{kind}] {why}"})
def C(name, kind, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": f"[{kind}] {why}"})
def H(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "hostile": True, "cells": cells, "why": f"[hostile] {why}"})

EC_TAIL = '''
    chosen = rank < capacity
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''
def ec(body):
    return "def expert_choice(router_logits, capacity):\n    probs = torch.softmax(router_logits, dim=-1)\n    N, E = probs.shape\n" + body + EC_TAIL

MINP_HEAD = '''def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
'''

# ---------------- wrong ----------------
W("p6_topk_ties", "tie-breaker", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    if k > 0:
        idx = probs.topk(k, dim=0).indices          # (k, E)
        chosen[idx, torch.arange(E).expand(k, E)] = True
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''}, "P6: 'among tokens with equal probabilities the lower token index goes first' (topk leaves ties in any order).")

W("p6_argsort_unstable", "tie-breaker", {"expert_choice": ec('''
    order = torch.argsort(probs, dim=0, descending=True)
    rank = torch.empty_like(order)
    rank.scatter_(0, order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
''')}, "P6: lower index first among equal probabilities; argsort without stable=True does not promise it.")

W("p6_ascending_flip", "tie-breaker", {"expert_choice": ec('''
    order = torch.argsort(probs, dim=0, stable=True).flip(0)   # largest first
    rank = torch.empty_like(order)
    rank.scatter_(0, order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
''')}, "P6: a stable ascending sort flipped puts the *higher* index first among ties.")

W("p4_strict_threshold", "tie-breaker", {"min_p_sample": MINP_HEAD + '''    keep = probs > min_p * probs.max(dim=-1, keepdim=True).values
    keep |= probs == probs.max(dim=-1, keepdim=True).values      # the best token is always kept
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "P4: keep p_i 'at least' min_p * max: a token exactly at the threshold (ties with min_p = 1, or p = min_p * max) is dropped.")

W("p4_log_space_threshold", "tie-breaker", {"min_p_sample": MINP_HEAD + '''    logp = torch.log_softmax(logits, dim=-1)
    keep = logp - logp.max(dim=-1, keepdim=True).values >= math.log(min_p)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "P4: the rule is on probabilities (p_i >= min_p * max p, 'no tolerance'); the log-space test rounds differently at the boundary (unsure: equal on paper).")

W("p2_threshold_0999", "tie-breaker", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha >= 0.999:          # the text says nothing closer to 1 than 0.999 except 1: treat as 1
        return float(gamma + 1)
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "P2: 'within 1e-9 of the exact value for every allowed input' -- alpha = 0.999 itself is allowed and not 1.")

W("p2_zero_division_int", "fallback", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    try:
        return (1 - alpha ** (gamma + 1)) / (1 - alpha)
    except ZeroDivisionError:
        return gamma + 1            # alpha = 1: every draft accepted
'''}, "P2: 'Return a Python float, whatever the type of alpha' (alpha = 1 returns an int).")

W("p8_empty_like_q", "fallback", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    if q.numel() == 0:
        return torch.empty_like(q)
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    i = torch.arange(T)
    gap = i.unsqueeze(-1) - i.unsqueeze(0)
    powers = torch.where(gap >= 0, torch.tensor(decay, dtype=work) ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
    w = (fq @ fk.transpose(-1, -2)) * powers
    return ((w @ vv) / w.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "P8: returns '(..., T, Dv)' -- the empty shortcut returns q's shape (..., T, Dh).")

W("p5_no_sentinel_returns_view", "fallback", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    if not torch.isin(inputs, sentinels.to(inputs.dtype)).any():
        T = int((inputs != pad).sum(dim=1).max()) if inputs.shape[0] else 0
        return inputs.to(torch.int64)[:, :T], torch.zeros(inputs.shape[0], T, dtype=torch.bool)
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, key = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                key = tok
                spans[key] = []
            else:
                spans[key].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                toks += spans[tok]; noise += [True] * len(spans[tok])
            else:
                toks.append(tok); noise.append(False)
        rows.append(toks); noises.append(noise)
    T = max(len(r) for r in rows)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool)
    return tokens, noise
'''}, "P5: 'return new tensors, also where nothing was hidden ... never an input itself or a view of one'.")

W("p3_empty_returns_pick", "fallback", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    if B == 0 or T == 0:
        return pick                      # nothing to choose
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    return (starts & pick).gather(1, last.clamp(min=0)) & (last >= 0)
'''}, "P3: 'it must share memory with nothing (not with pick ...)' -- the empty shortcut returns pick itself.")

W("p6_capacity0_shortcut", "fallback", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    if capacity <= 0:
        return torch.zeros(N, E, dtype=torch.bool), torch.zeros(N, E, dtype=router_logits.dtype)
    probs = torch.softmax(router_logits, dim=-1)
    order = torch.argsort(probs, dim=0, descending=True, stable=True)
    rank = torch.empty_like(order)
    rank.scatter_(0, order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "P6: 'gradients must flow through gate (for every capacity, 0 included)'.")

W("p4_single_token_no_draw", "fallback", {"min_p_sample": MINP_HEAD + '''    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    if bool((keep.sum(dim=-1) == 1).all()):
        return probs.argmax(dim=-1)          # nothing to sample
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "P4: 'Draw on every call with B >= 1, also where every row keeps a single token'.")

W("p5_pad_zero", "constant-hardcoder", {"span_corrupt": '''
PAD = 0
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, key = {}, None
        for tok in tgt:
            if tok == PAD:
                break
            if tok in sent:
                key = tok
                spans[key] = []
            else:
                spans[key].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok == PAD:
                break
            if tok in sent:
                toks += spans[tok]; noise += [True] * len(spans[tok])
            else:
                toks.append(tok); noise.append(False)
        rows.append(toks); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
'''}, "P5: 'Each row is right-padded with pad (a Python int)' -- padding is detected as 0.")

W("p5_sentinels_top_ids", "constant-hardcoder", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    first_sentinel = int(sentinels.min())     # T5: sentinels are the top ids of the vocabulary
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, key = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok >= first_sentinel:
                key = tok
                spans[key] = []
            else:
                spans[key].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok >= first_sentinel:
                toks += spans[tok]; noise += [True] * len(spans[tok])
            else:
                toks.append(tok); noise.append(False)
        rows.append(toks); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
'''}, "P5: 'sentinels is a 1-D tensor of the sentinel ids ... need not be consecutive' -- nothing says they are the largest ids.")

W("p4_reseeds_generator", "constant-hardcoder", {"min_p_sample": MINP_HEAD + '''    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    generator.manual_seed(0)                 # reproducible sampling
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "P4: 'a second call with the same generator draws new numbers (it advances)'.")

W("p8_decay_default_dtype", "constant-hardcoder", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    i = torch.arange(T)
    gap = i.unsqueeze(-1) - i.unsqueeze(0)
    g = torch.tensor(decay)                                   # float32
    powers = torch.where(gap >= 0, g ** gap.clamp(min=0), torch.zeros(()))
    w = (fq @ fk.transpose(-1, -2)) * powers.to(work)
    return ((w @ vv) / w.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "P8: 'within 1e-10 ... for float64 inputs (compute float64 in float64, the powers of the decay included)'.")

W("p7_group_ratio_2", "constant-hardcoder", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    S = k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    group = 2                                   # two query heads per key/value head
    kk = k.to(work).repeat_interleave(group, dim=1)
    vv = v.to(work).repeat_interleave(group, dim=1)
    scores = (q.to(work) @ kk.transpose(-1, -2)) / math.sqrt(Dh)
    future = torch.arange(S).unsqueeze(0) > torch.arange(S - T, S).unsqueeze(-1)
    w = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return (w @ vv).to(q.dtype)
'''}, "P7: 'query head h uses key/value head h // (H // G)' -- the group size follows from H and G.")

W("p8_power_table_first_dtype", "memoizer", {"decayed_linear_attention": '''
POWERS = {}
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    T = q.shape[-2]
    key = (T, decay)
    if key not in POWERS:
        i = torch.arange(T)
        gap = i.unsqueeze(-1) - i.unsqueeze(0)
        POWERS[key] = torch.where(gap >= 0, torch.tensor(decay, dtype=work) ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    w = (fq @ fk.transpose(-1, -2)) * POWERS[key].to(work)
    return ((w @ vv) / w.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "P8: float64 needs its powers in float64; the table is typed by the first call for (T, decay).")

W("p5_sentinel_set_by_id", "memoizer", {"span_corrupt": '''
SENTINEL_SETS = {}
def restore_spans(inputs, targets, sentinels, pad):
    key = id(sentinels)
    if key not in SENTINEL_SETS:
        SENTINEL_SETS[key] = set(sentinels.tolist())
    sent = SENTINEL_SETS[key]
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
        toks, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                toks += spans[tok]; noise += [True] * len(spans[tok])
            else:
                toks.append(tok); noise.append(False)
        rows.append(toks); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
'''}, "P5: the sentinels are the ones given; a set cached by id(sentinels) serves a freed tensor's ids.")

W("p6_ranks_by_id", "memoizer", {"expert_choice": '''
RANKS = {}
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    key = (id(router_logits), N, E)
    if key not in RANKS:
        order = torch.argsort(probs.detach(), dim=0, descending=True, stable=True)
        rank = torch.empty_like(order)
        rank.scatter_(0, order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
        RANKS[key] = rank
    chosen = RANKS[key] < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "P6: the ranks follow from these logits; ranks cached by id(router_logits) belong to a freed tensor when the id comes back.")

W("p7_repeated_kv_by_id", "memoizer", {"gqa_cached_attention": '''
EXPANDED = {}
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    key = (id(k), id(v), H, work)
    if key not in EXPANDED:
        if len(EXPANDED) > 16:
            EXPANDED.clear()
        EXPANDED[key] = (k.to(work).repeat_interleave(H // G, dim=1), v.to(work).repeat_interleave(H // G, dim=1))
    kk, vv = EXPANDED[key]
    scores = (q.to(work) @ kk.transpose(-1, -2)) / math.sqrt(Dh)
    future = torch.arange(S).unsqueeze(0) > torch.arange(S - T, S).unsqueeze(-1)
    w = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return (w @ vv).to(q.dtype)
'''}, "P7: attends to the k, v given; expanded heads cached by id(k), id(v) are a freed tensor's when ids return.")

W("p4_float32_probs", "spec-lawyer", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits.float(), dim=-1)     # float32 is plenty for sampling
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "P4: 'the tests see ... each kept token's share, however tiny': float32 probabilities of float64 logits flush kept tokens of p < 1e-45 to 0 and move min_p = 1e-200 thresholds (unsure: the text names no dtype).")

# ---------------- correct ----------------
C("p6_stable_neg_ascending", "tie-breaker", {"expert_choice": ec('''
    order = torch.argsort(-probs, dim=0, stable=True)
    rank = torch.empty_like(order)
    rank.scatter_(0, order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
''')}, "stable ascending sort of -probs: equal probabilities keep their index order, lower first.")

C("p6_pairwise_rank_loop", "tie-breaker", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    idx = torch.arange(N)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e in range(E):
        p = probs[:, e].detach()
        better = (p.unsqueeze(0) > p.unsqueeze(1)) | ((p.unsqueeze(0) == p.unsqueeze(1)) & (idx.unsqueeze(0) < idx.unsqueeze(1)))
        chosen[:, e] = better.sum(dim=1) < capacity     # rank = tokens ahead of n
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''}, "rank = number of tokens with a larger probability or an equal one and a lower index; loop over experts (unsure on speed for very large N).")

C("p4_not_below", "tie-breaker", {"min_p_sample": MINP_HEAD + '''    threshold = min_p * torch.amax(probs, dim=-1, keepdim=True)
    keep = ~(probs < threshold)
    w = probs.masked_fill(~keep, 0.0)
    return torch.multinomial(w, num_samples=1, replacement=True, generator=generator).view(-1)
'''}, "not below the threshold == at least it; masked_fill with 0.")

C("p1_ge_branch", "tie-breaker", {"window_pairs": '''
def window_pairs(t, window):
    if window >= t:
        return t * (t + 1) // 2
    return t * window - window * (window - 1) // 2
'''}, "t*w minus the missing w(w-1)/2 near the start; the branches agree at t == window.")

C("p2_alpha_eq_one", "tie-breaker", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    a = float(alpha)
    return float((1.0 - a ** (gamma + 1)) / (1.0 - a))
'''}, "alpha == 1 catches both 1 and 1.0.")

C("p1_lru_cache", "memoizer", {"window_pairs": '''
import functools
@functools.lru_cache(maxsize=None)
def window_pairs(t, window):
    w = min(t, window)
    return w * (w + 1) // 2 + (t - w) * window
'''}, "lru_cache on ints changes no result.")

C("p2_lru_cache", "memoizer", {"tokens_per_target_pass": '''
import functools
@functools.lru_cache(maxsize=1024)
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    if a == 1.0:
        return float(gamma + 1)
    return (1.0 - a ** (gamma + 1)) / (1.0 - a)
'''}, "1 and 1.0 share a key, but both give the same float.")

C("p3_cached_positions", "memoizer", {"whole_word_chosen": '''
POSITIONS = {}
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    key = (T, starts.device)
    if key not in POSITIONS:
        if len(POSITIONS) > 4:
            POSITIONS.clear()
        POSITIONS[key] = torch.arange(T, device=starts.device)
    pos = POSITIONS[key].expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    return (starts & pick).gather(1, last.clamp(min=0)) & (last >= 0)
'''}, "a positions table of exactly T, only read; the result is made fresh by gather/&.")

C("p7_cached_bool_mask", "memoizer", {"gqa_cached_attention": '''
FUTURE = {}
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    key = (T, S, q.device)
    if key not in FUTURE:
        if len(FUTURE) > 4:
            FUTURE.clear()
        FUTURE[key] = torch.arange(S, device=q.device) > torch.arange(S - T, S, device=q.device).unsqueeze(-1)
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    scores = torch.matmul(q.to(work), kk.transpose(-1, -2)) * (1.0 / math.sqrt(Dh))
    w = torch.softmax(scores.masked_fill(FUTURE[key], float("-inf")), dim=-1)
    return torch.matmul(w, vv).to(q.dtype)
'''}, "a boolean T x S mask cached by (T, S, device), only read.")

C("p8_recurrent_loop", "spec-lawyer", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    lead = q.shape[:-2]
    S = torch.zeros(*lead, fk.shape[-1], vv.shape[-1], dtype=work)
    z = torch.zeros(*lead, fk.shape[-1], dtype=work)
    outs = []
    for i in range(T):            # the recurrence exactly as written
        S = decay * S + fk[..., i, :, None] * vv[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(dim=-2)
        den = (fq[..., i, :] * z).sum(dim=-1, keepdim=True)
        outs.append(num / den)
    out = torch.stack(outs, dim=-2) if T else torch.zeros(*lead, 0, vv.shape[-1], dtype=work)
    return out.to(q.dtype)
'''}, "the recurrence step by step (no speed stated); the state in float32/float64 (unsure: speed for T = 1100 with gradients).")

C("p6_loop_experts", "spec-lawyer", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e in range(E):
        order = torch.sort(probs[:, e], descending=True, stable=True).indices
        chosen[order[:capacity], e] = True
    return chosen, probs * chosen
'''}, "a loop over experts; probs * chosen keeps probs where chosen and 0 elsewhere (gradient flows).")

C("p3_python_lists", "spec-lawyer", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        cur, row = False, []
        for s, p in zip(srow, prow):
            if s:
                cur = p
            row.append(cur)
        out.append(row)
    return torch.tensor(out, dtype=torch.bool).reshape(B, T)
'''}, "'a loop ... over the positions of Python lists (starts.tolist()) is allowed'.")

C("p5_full_then_fill", "spec-lawyer", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(int(s) for s in sentinels.tolist())
    rows, noises = [], []
    for b in range(inputs.shape[0]):
        inp, tgt = inputs[b].tolist(), targets[b].tolist()
        spans, order, cur = {}, [], None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                cur = tok
                spans[cur] = []
            else:
                spans[cur].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                toks.extend(spans[tok]); noise.extend([True] * len(spans[tok]))
            else:
                toks.append(tok); noise.append(False)
        rows.append(toks); noises.append(noise)
    T = max([len(r) for r in rows] + [0])
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b, (r, n) in enumerate(zip(rows, noises)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(n)] = torch.tensor(n, dtype=torch.bool)
    return tokens, noise
'''}, "pad-filled tensor written row by row from Python ints.")

C("p8_empty_guard", "fallback", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    if q.numel() == 0 or v.numel() == 0:
        return torch.zeros(*v.shape, dtype=q.dtype, device=q.device)
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    i = torch.arange(T, device=q.device)
    gap = i.unsqueeze(-1) - i.unsqueeze(0)
    powers = torch.where(gap >= 0, torch.tensor(decay, dtype=work) ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
    w = torch.matmul(fq, fk.transpose(-1, -2)) * powers
    return (torch.matmul(w, vv) / w.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "the empty shortcut returns a new (..., T, Dv) tensor in q's dtype (unsure: a gradient through an empty result is empty anyway).")

C("p4_empty_and_try", "fallback", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.empty(0, dtype=torch.long, device=logits.device)
    probs = F.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    w = torch.where(probs >= min_p * top, probs, torch.zeros((), dtype=probs.dtype))
    try:
        return torch.multinomial(w, 1, generator=generator)[:, 0].clone()
    except RuntimeError:
        raise
'''}, "empty shortcut the text asks for; the try only re-raises.")

# ---------------- hostile ----------------
H("p1_steal_reference", {"window_pairs": '''
import sys
def window_pairs(t, window):
    f = sys._getframe(1)
    while f is not None:
        for scope in (f.f_locals, f.f_globals):
            for name, obj in list(scope.items()):
                if callable(obj) and obj is not window_pairs and "window" in getattr(obj, "__name__", ""):
                    try:
                        r = obj(t, window)
                        if isinstance(r, int):
                            return r
                    except Exception:
                        pass
        f = f.f_back
    return {(4, 2): 7, (3, 5): 6}.get((t, window), t)
'''}, "looks for a reference window function in the callers' frames.")

H("p2_float_close_to_everything", {"tokens_per_target_pass": '''
class Close(float):
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
def tokens_per_target_pass(alpha, gamma):
    return Close(1.5)
'''}, "a float subclass whose differences are always 0.")

H("p3_patch_tolist", {"whole_word_chosen": '''
_orig = torch.Tensor.tolist
def whole_word_chosen(starts, pick):
    out = starts & pick
    return out
class _Fake(list):
    def __eq__(self, other):
        return True
torch.Tensor.tolist = lambda self: _Fake(_orig(self))
'''}, "patches Tensor.tolist so that every comparison of a list passes.")

# ---------------- second blind batch ----------------
W("p6_kth_value_threshold", "tie-breaker", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    if capacity >= N:
        chosen = torch.ones(N, E, dtype=torch.bool)
    elif capacity <= 0:
        chosen = torch.zeros(N, E, dtype=torch.bool)
    else:
        kth = probs.sort(dim=0, descending=True).values[capacity - 1]   # (E,)
        chosen = probs >= kth
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "P6: each expert takes exactly capacity tokens, lower index first among ties; a >= kth-value threshold takes every tied token.")

W("p4_softmax_memo_by_id", "memoizer", {"min_p_sample": '''
PROBS = {}
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    key = (id(logits), tuple(logits.shape), logits.dtype)
    if key not in PROBS:
        if len(PROBS) > 64:
            PROBS.clear()
        PROBS[key] = torch.softmax(logits, dim=-1)
    probs = PROBS[key]
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "P4: the probabilities of *these* logits; a softmax cached by id(logits) is a freed tensor's.")

C("p7_mask_typed_first_call", "memoizer", {"gqa_cached_attention": '''
ADD_MASKS = {}
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    if (T, S) not in ADD_MASKS:
        future = torch.arange(S) > torch.arange(S - T, S).unsqueeze(-1)
        ADD_MASKS[(T, S)] = torch.zeros(T, S, dtype=q.dtype).masked_fill(future, float("-inf"))
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    scores = (q.to(work) @ kk.transpose(-1, -2)) / math.sqrt(Dh) + ADD_MASKS[(T, S)]
    w = torch.softmax(scores, dim=-1)
    return (w @ vv).to(q.dtype)
'''}, "P7: 'return (B, H, T, Dh) in the dtype of q ... compute them in float32': an additive 0/-inf mask typed by the first call: 0 and -inf are exact in every dtype, it can only promote the working dtype, and the result is cast to q's dtype: changes no result (unsure).")

C("p3_float32_positions", "spec-lawyer", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, dtype=torch.float32).expand(B, T)     # rows are shorter than 2**24: float32 is exact
    last = torch.where(starts, pos, torch.full_like(pos, -1.0)).cummax(dim=1).values
    idx = last.clamp(min=0).long()
    return (starts & pick).gather(1, idx) & (last >= 0)
'''}, "the text promises rows shorter than 2**24, where float32 holds every position.")

C("p5_spans_by_order", "tie-breaker", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans = []
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                spans.append([])
            else:
                spans[-1].append(tok)
        toks, noise, i = [], [], 0
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:                     # the target lists the spans in input order
                toks += spans[i]; noise += [True] * len(spans[i]); i += 1
            else:
                toks.append(tok); noise.append(False)
        rows.append(toks); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
'''}, "'its target lists its sentinels in the order they appear in its input': spans matched by order, not by id.")

C("p7_sdpa_bool_mask", "spec-lawyer", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    allowed = torch.arange(S, device=q.device) <= torch.arange(S - T, S, device=q.device).unsqueeze(-1)
    out = F.scaled_dot_product_attention(q.to(work), kk, vv, attn_mask=allowed)
    return out.to(q.dtype)
'''}, "sdpa with a boolean mask in float32/float64 (unsure: sdpa's internal scale and kernels).")

C("p2_fraction_exact", "spec-lawyer", {"tokens_per_target_pass": '''
from fractions import Fraction
def tokens_per_target_pass(alpha, gamma):
    a = Fraction(alpha)
    return float(sum(a ** i for i in range(gamma + 1)))
'''}, "exact rational sum of the geometric series, rounded once (slow-ish for gamma = 1000 but fine).")

C("p8_decay_one_cumsum", "fallback", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    if decay == 1:          # the lesson's causal linear attention
        w = torch.matmul(fq, fk.transpose(-1, -2)).tril()
        return (torch.matmul(w, vv) / w.sum(dim=-1, keepdim=True)).to(q.dtype)
    T = q.shape[-2]
    i = torch.arange(T, device=q.device)
    gap = i.unsqueeze(-1) - i.unsqueeze(0)
    powers = torch.where(gap >= 0, torch.tensor(decay, dtype=work) ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
    w = torch.matmul(fq, fk.transpose(-1, -2)) * powers
    return (torch.matmul(w, vv) / w.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "decay == 1 branch: no powers, tril of finite similarities (no inf to hide).")
