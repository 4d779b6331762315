# Red-team round 33, chapter 06 (blind). Five kinds: global-statistics, sign-convention, late-binding,
# equality, side-effect students.

WINDOW = '''
def window_pairs(t, window):
    w = min(t, window)
    return w * (w + 1) // 2 + (t - w) * window
'''
TOKENS = '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''
WHOLE = '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    return (last >= 0) & pick.gather(1, last.clamp(min=0))
'''
MINP = '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.zeros(0, dtype=torch.long)
    probs = torch.softmax(logits.double(), dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))
    return torch.multinomial(w, 1, generator=generator).squeeze(1)
'''
SPANS = '''
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
    T = max((len(r) for r in toks), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks], dtype=torch.long).reshape(len(toks), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(toks), T)
    return tokens, noise
'''
EXPERT = '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool, device=probs.device)
    chosen.scatter_(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
'''
GQA = '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(work).reshape(B, G, r * T, Dh)
    scores = qg @ k.to(work).transpose(-2, -1) / math.sqrt(Dh)          # (B, G, r*T, S)
    qpos = torch.arange(S - T, S).repeat(r)[:, None]
    kpos = torch.arange(S)[None, :]
    scores = scores.masked_fill(kpos > qpos, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v.to(work)
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''
DECAY = '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    gap = (i - j).clamp(min=0).to(torch.float64)
    w = torch.where(i >= j, torch.pow(torch.tensor(decay, dtype=torch.float64), gap), 0.0).to(work)
    scores = (fq @ fk.transpose(-2, -1)) * w
    return ((scores @ v.to(work)) / scores.sum(dim=-1, keepdim=True)).to(q.dtype)
'''
BASELINE = {"window_pairs": WINDOW, "tokens_per_target_pass": TOKENS, "whole_word_chosen": WHOLE,
            "min_p_sample": MINP, "span_corrupt": SPANS, "expert_choice": EXPERT,
            "gqa_cached_attention": GQA, "decayed_linear_attention": DECAY}

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: global-statistics student
add("glob_whole_word_flat_cumsum", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    flat_starts = starts.reshape(-1)
    word = flat_starts.long().cumsum(0)                 # word number of every position
    n_words = int(word[-1]) if word.numel() else 0
    word_pick = torch.zeros(n_words + 1, dtype=torch.bool)
    word_pick[word[flat_starts]] = pick.reshape(-1)[flat_starts]
    out = word_pick[word] & (word > 0)
    return out.reshape(B, T)
'''}, "Part 3: 'Every position belongs to the word begun by the nearest start at or before it in the same row. Positions "
      "before the first start of a row belong to no word': words numbered over the flattened batch carry the last word "
      "of a row into the next row's head.")

add("glob_min_p_batch_max", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max()
    w = probs * keep
    return torch.multinomial(w, 1, generator=generator).squeeze(1)
'''}, "Part 4: 'at least min_p times the largest probability of that row': the largest of the whole batch.")

add("glob_expert_softmax_global_max", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    e = torch.exp(router_logits - router_logits.max())       # stable softmax
    probs = e / e.sum(dim=-1, keepdim=True)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
'''}, "Part 6: 'probs is the router's softmax over the experts, for each token ... whatever the size of the logits': "
      "the maximum of the whole tensor makes rows a thousand below it 0/0.")

add("glob_gqa_softmax_global_max", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    kk = k.to(work).repeat_interleave(r, dim=1)
    vv = v.to(work).repeat_interleave(r, dim=1)
    scores = q.to(work) @ kk.transpose(-2, -1) / math.sqrt(Dh)
    hide = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(hide, float("-inf"))
    e = torch.exp(scores - scores.max())
    out = (e / e.sum(dim=-1, keepdim=True)) @ vv
    return out.to(q.dtype)
'''}, "Part 7: 'scores of tens of thousands, of both signs: clamp none of them' with one maximum for the whole tensor: "
      "a row far below it underflows to 0/0.")

add("glob_decay_normaliser_all_tokens", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    gap = (i - j).clamp(min=0).to(torch.float64)
    w = torch.where(i >= j, torch.pow(torch.tensor(decay, dtype=torch.float64), gap), 0.0).to(work)
    scores = (fq @ fk.transpose(-2, -1)) * w
    # normalise by the decayed key sum z_i, shared by all queries: z_i = sum_j gamma^(i-j) phi(k_j), then phi(q_i).z_i
    z = w @ fk                                   # (..., T, Dh)
    den = (fq * z).sum(dim=-1, keepdim=True)
    return ((scores @ vv) / den).to(q.dtype)
'''}, "control (this is the same denominator, correct)") if False else None

# ---------------------------------------------------------------- wrong: sign-convention student
add("sign_expert_ascending_take_last", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.argsort(probs, dim=0, stable=True)             # ascending
    top = order[N - k:] if k > 0 else order[:0]                  # the k largest are at the end
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, top, True)
    return chosen, torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
'''}, "Part 6: 'among tokens with equal probabilities the lower token index goes first': ascending stable order read "
      "from its end puts the higher index first among ties.")

add("sign_spans_sentinels_in_id_order", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    order = sorted(sentinels.tolist())          # <extra_id_0>, <extra_id_1>, ...: spans in sentinel order
    sent = set(order)
    toks, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        # the target's spans, in order
        spans = []
        for t in tgt:
            if t == pad:
                break
            if t in sent:
                spans.append([])
            else:
                spans[-1].append(t)
        used = sorted(t for t in inp if t in sent)
        by_sentinel = {s: spans[n] for n, s in enumerate(used)}
        row, nz = [], []
        for t in inp:
            if t == pad:
                break
            if t in sent:
                row += by_sentinel[t]
                nz += [True] * len(by_sentinel[t])
            else:
                row.append(t)
                nz.append(False)
        toks.append(row)
        noises.append(nz)
    T = max((len(r) for r in toks), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks], dtype=torch.long).reshape(len(toks), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(toks), T)
    return tokens, noise
'''}, "Part 5: 'They need not be consecutive numbers ... its target lists its sentinels in the order they appear in its "
      "input': spans matched to sentinels in ascending id order (T5's ids even descend).")

add("sign_decay_powers_from_start", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    out = []
    S = None
    z = None
    for i in range(T):
        kv = fk[..., i, :, None] * vv[..., i, None, :]
        S = kv if S is None else S * decay + kv
        z = fk[..., i, :] if z is None else z * decay + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        out.append(num / den)
    return torch.stack(out, dim=-2).to(q.dtype)
'''}, "control: correct recurrence (kept below as a correct answer)") if False else None

# ---------------------------------------------------------------- wrong: late-binding student
add("late_spans_sentinels_accumulated_global", False, {"span_corrupt": '''
KNOWN_SENTINELS = set()

def restore_spans(inputs, targets, sentinels, pad):
    KNOWN_SENTINELS.update(sentinels.tolist())     # remember every sentinel seen so far
    sent = KNOWN_SENTINELS
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
                row += spans.get(t, [])
                nz += [True] * len(spans.get(t, []))
            else:
                row.append(t)
                nz.append(False)
        toks.append(row)
        noises.append(nz)
    T = max((len(r) for r in toks), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks], dtype=torch.long).reshape(len(toks), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(toks), T)
    return tokens, noise
'''}, "Intro: 'Keep nothing from one call to the next'; Part 5: the sentinels are the ones given: an id that was a "
      "sentinel in an earlier call is a real token in a later one.")

add("late_decay_table_cache_no_dtype", False, {"decayed_linear_attention": '''
DECAY_TABLES = {}

def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    T = q.shape[-2]
    key = (T, decay)
    if key not in DECAY_TABLES:           # the decay matrix depends only on T and the decay
        i = torch.arange(T)[:, None]
        j = torch.arange(T)[None, :]
        gap = (i - j).clamp(min=0).to(work)
        DECAY_TABLES[key] = torch.where(i >= j, torch.pow(torch.tensor(decay, dtype=work), gap), 0.0)
    w = DECAY_TABLES[key].to(work)
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    scores = (fq @ fk.transpose(-2, -1)) * w
    return ((scores @ v.to(work)) / scores.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "Intro: 'Keep nothing from one call to the next'; Part 8: 'within 1e-10 ... for float64 inputs ... the powers of "
      "the decay included': a table built in float32 at a first float32 call is reused for float64 inputs.")

add("late_min_p_first_generator_global", False, {"min_p_sample": '''
SAMPLER = {}

def min_p_sample(logits, min_p, generator):
    gen = SAMPLER.setdefault("generator", generator)      # the decoding loop's generator
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    probs = torch.softmax(logits.double(), dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    return torch.multinomial(torch.where(keep, probs, 0.0), 1, generator=gen).squeeze(1)
'''}, "Part 4: 'draw every random number from generator ... so that the same seed gives the same tokens': keeps the "
      "first call's generator in a global and draws from it at every later call.")

add("late_whole_word_row_lambdas", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    builders = []
    for s_row, p_row in zip(starts.tolist(), pick.tolist()):
        row, chosen = [], False
        for s, p in zip(s_row, p_row):
            if s:
                chosen = p
            row.append(chosen)
        builders.append(lambda: torch.tensor(row, dtype=torch.bool))   # build the tensors at the end
    if not builders:
        return torch.zeros(0, T, dtype=torch.bool)
    return torch.stack([build() for build in builders])
'''}, "Part 3: each row's words: every lambda reads row when called, so every row becomes the last row.")

# ---------------------------------------------------------------- wrong: equality student
add("eq_expert_threshold_kth_value", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    if capacity <= 0:
        chosen = torch.zeros(N, E, dtype=torch.bool)
    elif capacity >= N:
        chosen = torch.ones(N, E, dtype=torch.bool)
    else:
        kth = torch.topk(probs, capacity, dim=0).values[-1]      # each expert's capacity-th largest
        chosen = probs >= kth
    return chosen, torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
'''}, "Part 6: 'expert e takes the capacity tokens with the largest probs[:, e]; among tokens with equal probabilities "
      "the lower token index goes first': a threshold at the capacity-th value takes every tied token.")

add("eq_tokens_isclose_loose", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if math.isclose(alpha, 1.0, rel_tol=2e-3):
        return float(gamma + 1)             # geometric sum of ones
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "Part 2: 'within 1e-9 of the exact value for every allowed input (... the tests use no alpha closer to 1 than "
      "0.999': isclose with rel_tol 2e-3 treats 0.999 as 1.")

add("eq_min_p_isclose_threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    probs = torch.softmax(logits.double(), dim=-1)
    thr = min_p * probs.amax(dim=-1, keepdim=True)
    keep = (probs > thr) | torch.isclose(probs, thr)        # "at least": equal counts, up to rounding
    return torch.multinomial(torch.where(keep, probs, 0.0), 1, generator=generator).squeeze(1)
'''}, "Part 4: 'no tolerance: a token just below that threshold is dropped, even one a millionth below it'.")

add("eq_decay_isclose_one_cumsum", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    if math.isclose(decay, 1.0):
        # no decay: the lesson's causal linear attention with cumulative sums
        S = torch.cumsum(fk.unsqueeze(-1) * vv.unsqueeze(-2), dim=-3)
        z = torch.cumsum(fk, dim=-2)
        num = (fq.unsqueeze(-1) * S).sum(-2)
        den = (fq * z).sum(-1, keepdim=True)
        return (num / den).to(q.dtype)
    T = q.shape[-2]
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    gap = (i - j).clamp(min=0).to(torch.float64)
    w = torch.where(i >= j, torch.pow(torch.tensor(decay, dtype=torch.float64), gap), 0.0).to(work)
    scores = (fq @ fk.transpose(-2, -1)) * w
    return ((scores @ vv) / scores.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "Part 8: 'a Python float 0 < decay <= 1' and 'within 1e-10 ... for float64': a decay within 1e-9 of 1 (such as "
      "1 - 1e-10) is treated as 1; over a thousand steps the weights are off by about 1e-7.")

add("eq_spans_float_isin", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    # which positions hold a sentinel (vectorised)
    inp_is_s = torch.isin(inputs.double(), sentinels.double()).tolist()
    tgt_is_s = torch.isin(targets.double(), sentinels.double()).tolist()
    toks, noises = [], []
    for inp, tgt, inp_s, tgt_s in zip(inputs.tolist(), targets.tolist(), inp_is_s, tgt_is_s):
        spans, cur = {}, None
        for t, s in zip(tgt, tgt_s):
            if t == pad:
                break
            if s:
                cur = t
                spans[cur] = []
            else:
                spans[cur].append(t)
        row, nz = [], []
        for t, s in zip(inp, inp_s):
            if t == pad:
                break
            if s:
                row += spans.get(t, [])
                nz += [True] * len(spans.get(t, []))
            else:
                row.append(t)
                nz.append(False)
        toks.append(row)
        noises.append(nz)
    T = max((len(r) for r in toks), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks], dtype=torch.long).reshape(len(toks), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(toks), T)
    return tokens, noise
'''}, "Part 5: 'past 2**53, where a float64 no longer holds every integer, so keep ids in integer dtypes': isin in "
      "float64 mistakes a token next to a sentinel for the sentinel.")

# ---------------------------------------------------------------- wrong: side-effect student
add("side_min_p_restores_generator", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    state = generator.get_state()          # leave the caller's generator as it was
    probs = torch.softmax(logits.double(), dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    ids = torch.multinomial(torch.where(keep, probs, 0.0), 1, generator=generator).squeeze(1)
    generator.set_state(state)
    return ids
'''}, "Part 4: 'a second call with the same generator draws new numbers (it advances)'.")

add("side_gqa_requires_grad_inputs", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    for t in (q, k, v):                   # gradients must flow through the result
        if t.is_floating_point() and not t.requires_grad and t.is_leaf:
            t.requires_grad_(True)
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(work).reshape(B, G, r * T, Dh)
    scores = qg @ k.to(work).transpose(-2, -1) / math.sqrt(Dh)
    qpos = torch.arange(S - T, S).repeat(r)[:, None]
    scores = scores.masked_fill(torch.arange(S)[None, :] > qpos, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v.to(work)
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''}, "Intro: 'Your functions must not change ... their requires_grad flag'.")

add("side_min_p_skip_draw_when_certain", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    probs = torch.softmax(logits.double(), dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    if bool((keep.sum(dim=-1) == 1).all()):
        return probs.argmax(dim=-1)                  # greedy: nothing to draw
    return torch.multinomial(torch.where(keep, probs, 0.0), 1, generator=generator).squeeze(1)
'''}, "Part 4: 'Draw on every call with B >= 1, also where every row keeps a single token'.")

SUBMISSIONS = [s for s in SUBMISSIONS if s is not None]

# ---------------------------------------------------------------- correct
add("ok_window_sum_loop_free", True, {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
'''}, "Two branches, <= at the join (both formulas agree at t == window).")

add("ok_tokens_loop_and_isclose", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    if math.isclose(a, 1.0, rel_tol=1e-12, abs_tol=0.0):
        return float(gamma + 1)
    total, term = 0.0, 1.0
    for _ in range(gamma + 1):
        total += term
        term *= a
    return total
'''}, "A loop over the geometric series (no division); isclose with a tolerance far inside the promised 0.999.")

add("ok_whole_word_python_rows", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    rows = []
    for s_row, p_row in zip(starts.tolist(), pick.tolist()):
        row, chosen = [], False
        for s, p in zip(s_row, p_row):
            if s:
                chosen = p
            row.append(chosen)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool).reshape(B, T)
'''}, "Python lists per row, one tensor at the end (allowed).")

add("ok_min_p_rowwise_multinomial_logit_diff", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    out = torch.zeros(logits.shape[0], dtype=torch.long)
    for b in range(logits.shape[0]):
        row = logits[b].double()
        p = torch.softmax(row, dim=-1)
        keep = p >= min_p * p.max()
        w = torch.where(keep, p, torch.zeros_like(p))
        out[b] = torch.multinomial(w / w.sum(), 1, generator=generator)[0]
    return out
'''}, "One multinomial per row from the same generator (each row independent), renormalised explicitly.")

add("ok_min_p_exponential_race", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    probs = torch.softmax(logits.to(torch.float64), dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    # exponential race: argmax p_i / E_i with E_i ~ Exp(1) draws i with probability p_i / sum(p)
    e = torch.empty(B, V, dtype=torch.float64).exponential_(generator=generator)
    score = torch.where(keep, probs / e, torch.full((), -1.0, dtype=torch.float64))
    return score.argmax(dim=-1)
'''}, "Another exact way to draw from the kept, renormalised probabilities, with numbers drawn from generator only.")

add("ok_spans_dict_walk_keywords", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = {int(s) for s in sentinels.tolist()}
    B = inputs.shape[0]
    tok_rows, noise_rows = [], []
    for b in range(B):
        tgt = targets[b].tolist()
        hidden = {}
        current = None
        for t in tgt:
            if t in sent:
                current = hidden.setdefault(t, [])
            elif t != pad and current is not None:
                current.append(t)
        toks, noise = [], []
        for t in inputs[b].tolist():
            if t in sent:
                toks.extend(hidden.get(t, []))
                noise.extend([True] * len(hidden.get(t, [])))
            elif t != pad:
                toks.append(t)
                noise.append(False)
        tok_rows.append(toks)
        noise_rows.append(noise)
    T = max(map(len, tok_rows)) if tok_rows else 0
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        n = len(tok_rows[b])
        if n:
            tokens[b, :n] = torch.tensor(tok_rows[b], dtype=torch.int64)
            noise[b, :n] = torch.tensor(noise_rows[b], dtype=torch.bool)
    return tokens, noise
'''}, "Dict of spans, torch.full of pad, rows written in (a few torch ops per row).")

add("ok_expert_argsort_negated", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=1)
    N, E = probs.shape
    rank_order = torch.argsort(-probs, dim=0, stable=True)      # largest first, ties by index
    ranks = torch.empty_like(rank_order)
    ranks.scatter_(0, rank_order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
    chosen = ranks < capacity
    gate = probs * chosen
    return chosen, gate
'''}, "Rank of every token by a stable ascending sort of -probs (ties keep index order); gate as probs * mask.")

add("ok_gqa_repeat_interleave_sdpa", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    allowed = torch.arange(S).unsqueeze(0) <= torch.arange(S - T, S).unsqueeze(1)
    out = F.scaled_dot_product_attention(q.to(work), kk, vv, attn_mask=allowed)
    return out.to(q.dtype)
'''}, "repeat_interleave for the groups, SDPA with a boolean mask aligned at the end.")

add("ok_decay_recurrence_loop", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    S = torch.zeros(*fk.shape[:-2], fk.shape[-1], vv.shape[-1], dtype=work)
    z = torch.zeros(*fk.shape[:-1][:-1], fk.shape[-1], dtype=work)
    outs = []
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * vv[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    if not outs:
        return (vv[..., :0, :] * 1).to(q.dtype)
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "The recurrence itself, step by step, in float32/float64.")


# ---------------------------------------------------------------- added: a part with no entry yet
add("eq_window_float_triangle", False, {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return int(w * (w + 1) / 2) + (t - w) * window
'''}, "Part 1: 'count with Python integer arithmetic (exactly: not through float)': w(w+1)/2 past 2**53 is rounded.")

# ---------------------------------------------------------------- hostile
add("hostile_window_int_equal_to_all", False, {"window_pairs": '''
class PairCount(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def window_pairs(t, window):
    return PairCount(0)
'''}, "hostile: an int subclass equal to everything.")
