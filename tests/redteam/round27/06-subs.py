# Red team round 27, chapter 6, blind: the epsilon-adder, the fixed-rank student, the from-memory student,
# the mask-and-sentinel student.

CORRECT = {
"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
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
    pos = torch.arange(T).expand(B, T)
    idx = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    sel = starts & pick
    got = sel.gather(1, idx.clamp(min=0))
    return got & (idx >= 0)
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    keep = probs >= min_p * top
    w = torch.where(keep, probs, torch.zeros_like(probs))
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(w, 1, generator=generator).reshape(-1)
''',
"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, flags = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                cur = tok
                spans[cur] = []
            elif cur is not None:
                spans[cur].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                hid = spans.get(tok, [])
                toks += hid
                noise += [True] * len(hid)
            else:
                toks.append(tok)
                noise.append(False)
        rows.append(toks)
        flags.append(noise)
    T = max([len(r) for r in rows], default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, f) in enumerate(zip(rows, flags)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(f)] = torch.tensor(f, dtype=torch.bool)
    return tokens, noise
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:k], True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qg = q.to(work).reshape(B, G, r * T, Dh)
    scores = qg @ k.to(work).transpose(-2, -1) * (1.0 / math.sqrt(Dh))  # (B, G, r*T, S)
    scores = scores.reshape(B, G, r, T, S)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)
    out = w @ v.to(work)
    return out.reshape(B, H, T, Dh).to(q.dtype)
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    gap = i[:, None] - i[None, :]
    past = gap >= 0
    powers = torch.where(past, torch.pow(torch.tensor(decay, dtype=work), gap.clamp(min=0).to(work)), torch.zeros((), dtype=work))
    a = (fq @ fk.transpose(-2, -1)) * powers
    num = a @ v.to(work)
    den = a.sum(dim=-1, keepdim=True)
    return (num / den).to(q.dtype)
''',
}

SUBMISSIONS = [
# ---------------------------------------------------------------- the epsilon-adder
{"name": "E1 window_pairs: triangle through a float, rounded to be safe", "correct": False, "kind": "epsilon-adder",
 "cells": {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return int(round(w * (w + 1) / 2)) + (t - w) * w
'''},
 "why": "'count with Python integer arithmetic (exactly: not through float ...)': the triangle of 10**15 is not a float"},
{"name": "E2 tokens_per_target_pass: alpha moved off 1 by 1e-9", "correct": False, "kind": "epsilon-adder",
 "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = min(float(alpha), 1.0 - 1e-9)  # avoid 0 / 0
    return (1.0 - a ** (gamma + 1)) / (1.0 - a)
'''},
 "why": "'gamma may be large, up to 1000 in the tests, with alpha = 1 too, so do not move alpha off 1 to avoid a division'"},
{"name": "E3 tokens_per_target_pass: + 1e-15 in the denominator", "correct": False, "kind": "epsilon-adder",
 "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha + 1e-15)
'''},
 "why": "'within 1e-9 of the exact value for every allowed input': alpha = 1 gives 0 instead of gamma + 1"},
{"name": "E4 min_p_sample: probabilities floored with clamp(min=1e-12)", "correct": False, "kind": "epsilon-adder",
 "cells": {"min_p_sample": CORRECT["min_p_sample"].replace("w = torch.where(keep, probs, torch.zeros_like(probs))",
                                                          "w = torch.where(keep, probs, torch.zeros_like(probs)).clamp(min=1e-12)")},
 "why": "'a dropped token gets probability exactly 0 ... no floor or eps either, such as .clamp(min=1e-12)'"},
{"name": "E5 gqa: manual softmax with + 1e-9 in the denominator", "correct": False, "kind": "epsilon-adder",
 "cells": {"gqa_cached_attention": CORRECT["gqa_cached_attention"].replace(
 "    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)",
 "    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))\n    w = (e / (e.sum(dim=-1, keepdim=True) + 1e-9)).reshape(B, G, r * T, S)")},
 "why": "'within 1e-10 for float64 inputs': the 1e-9 shifts every weight by up to 1e-9 relative"},
{"name": "E6 decayed: + 1e-6 in the denominator", "correct": False, "kind": "epsilon-adder",
 "cells": {"decayed_linear_attention": CORRECT["decayed_linear_attention"].replace("(num / den)", "(num / (den + 1e-6))")},
 "why": "'Do not add an epsilon to the denominator, nor clamp it (it is positive, though it can be tiny: about 1e-14 where q is about -33)'"},
{"name": "E7 expert_choice: probabilities clamped to [1e-9, 1] before ranking and gating", "correct": False, "kind": "epsilon-adder",
 "cells": {"expert_choice": CORRECT["expert_choice"].replace("probs = torch.softmax(router_logits, dim=-1)",
                                                            "probs = torch.softmax(router_logits, dim=-1).clamp(1e-9, 1.0)")},
 "why": "'whatever the size of the logits (... clamp nothing)'; probabilities near 1e-304 rank by their values"},
# ---------------------------------------------------------------- the fixed-rank student
{"name": "F1 whole_word_chosen: written for the example's single row", "correct": False, "kind": "fixed-rank",
 "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    row_s = starts[0].tolist()
    row_p = pick[0].tolist()
    out, cur = [], False
    for s, p in zip(row_s, row_p):
        if s:
            cur = p
        out.append(cur)
    return torch.tensor([out] * starts.shape[0], dtype=torch.bool).reshape(starts.shape)
'''},
 "why": "'starts (bool, shape (B, T))': every row is its own sentence; the answer copies row 0 to every row"},
{"name": "F2 min_p_sample: multinomial(...).squeeze()", "correct": False, "kind": "fixed-rank",
 "cells": {"min_p_sample": CORRECT["min_p_sample"].replace(".reshape(-1)", ".squeeze()")},
 "why": "'Return the token ids as an int64 tensor of shape (B,)': B = 1 gives shape ()"},
{"name": "F3 gqa: key/value heads repeated with repeat (tiled) instead of repeat_interleave", "correct": False, "kind": "fixed-rank",
 "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    kk = k.to(work).repeat(1, H // G, 1, 1)
    vv = v.to(work).repeat(1, H // G, 1, 1)
    scores = q.to(work) @ kk.transpose(-2, -1) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return (w @ vv).to(q.dtype)
'''},
 "why": "'query head h uses key/value head h // (H // G)': repeat tiles (h % G); the example checks head 3 of 4 with G = 2, where both agree"},
{"name": "F4 decayed: q @ k.T, right for 2-D inputs only", "correct": False, "kind": "fixed-rank",
 "cells": {"decayed_linear_attention": CORRECT["decayed_linear_attention"].replace("fq @ fk.transpose(-2, -1)", "fq @ fk.T")},
 "why": "'q, k of shape (..., T, Dh)': .T reverses every axis of a 3-D or 4-D tensor"},
{"name": "F5 expert_choice: capacity bounded by probs.shape[1] (the layout read as (E, N))", "correct": False, "kind": "fixed-rank",
 "cells": {"expert_choice": CORRECT["expert_choice"].replace("    k = min(capacity, N)", "    k = min(capacity, probs.shape[1])")},
 "why": "'expert e takes the capacity tokens with the largest probs[:, e] ... capacity ... may exceed N (then the expert takes every token)': with more tokens than experts the bound is E, not N"},
# ---------------------------------------------------------------- the from-memory student
{"name": "M1 expert_choice: tokens ranked by their logits (token-choice habit)", "correct": False, "kind": "from-memory",
 "cells": {"expert_choice": CORRECT["expert_choice"].replace("torch.sort(probs, dim=0", "torch.sort(router_logits, dim=0")},
 "why": "'expert e takes the capacity tokens with the largest probs[:, e]' (a logit's rank in its column is not its probability's: each row has its own normaliser)"},
{"name": "M2 expert_choice: topk over the tokens", "correct": False, "kind": "from-memory",
 "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    idx = probs.topk(k, dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    return chosen, probs * chosen
'''},
 "why": "'among tokens with equal probabilities the lower token index goes first, also when hundreds or thousands of tokens tie': topk does not promise it"},
{"name": "M3 restore_spans: a sentinel is any id >= the smallest sentinel (T5's extra ids at the top)", "correct": False, "kind": "from-memory",
 "cells": {"span_corrupt": CORRECT["span_corrupt"].replace("    sent = set(sentinels.tolist())",
     "    low = int(sentinels.min())\n    class Above:\n        def __contains__(self, tok):\n            return tok >= low\n    sent = Above()")},
 "why": "'ids from a vocabulary of any size ... They need not be consecutive numbers': a real id above the smallest sentinel is taken for one"},
{"name": "C12 restore_spans: the k-th sentinel of the input takes the k-th span of the target (from memory, right)", "correct": True, "kind": "from-memory",
 "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.tolist()
    sset = set(sent)
    rows, flags = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        tgt = [t for t in tgt if t != pad]
        spans = []
        for tok in tgt:
            if tok in sset:
                spans.append([])
            else:
                spans[-1].append(tok)
        toks, noise, k = [], [], 0
        for tok in inp:
            if tok == pad:
                break
            if tok in sset:
                toks += spans[k]
                noise += [True] * len(spans[k])
                k += 1
            else:
                toks.append(tok)
                noise.append(False)
        rows.append(toks)
        flags.append(noise)
    T = max([len(r) for r in rows], default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, f) in enumerate(zip(rows, flags)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(f)] = torch.tensor(f, dtype=torch.bool)
    return tokens, noise
'''},
 "why": "'its target lists its sentinels in the order they appear in its input': the k-th sentinel met in the input is the k-th of the target"},
{"name": "M5 decayed: keys rescaled by decay**-j and a plain cumsum (the RetNet parallel form from memory)", "correct": False, "kind": "from-memory",
 "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    j = torch.arange(T, dtype=torch.float64)
    up = (decay ** (-j)).to(work).unsqueeze(-1)
    down = (decay ** j).to(work).unsqueeze(-1)
    kv = torch.cumsum((fk * up).unsqueeze(-1) * v.to(work).unsqueeze(-2), dim=-3)
    z = torch.cumsum(fk * up, dim=-2)
    num = torch.einsum("...td,...tdv->...tv", fq, kv) * down
    den = (fq * z).sum(-1, keepdim=True) * down
    return (num / den).to(q.dtype)
'''},
 "why": "'rescaling the keys by gamma^-j so that a plain cumulative sum works is exact on paper but not in floating point'"},
{"name": "M6 tokens_per_target_pass: returns gamma + 1 (an int) at alpha = 1", "correct": False, "kind": "from-memory",
 "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''},
 "why": "'Return a Python float, whatever the type of alpha'"},
{"name": "M7 gqa: half inputs computed in their own dtype", "correct": False, "kind": "from-memory",
 "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    scores = q.reshape(B, G, r * T, Dh) @ k.transpose(-2, -1) / math.sqrt(Dh)
    scores = scores.reshape(B, G, r, T, S)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1).reshape(B, G, r * T, S)
    return (w @ v).reshape(B, H, T, Dh)
'''},
 "why": "'their dot products can pass 65504 ... where scores computed in float16 overflow: compute them in float32 and round once at the end'"},
# ---------------------------------------------------------------- the mask-and-sentinel student
{"name": "S1 whole_word_chosen: 'no word yet' marked by index -1, read as the last position", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = []
    for s_row, p_row in zip(starts.tolist(), pick.tolist()):
        sel = [s and p for s, p in zip(s_row, p_row)]
        cur = -1
        row = []
        for t, s in enumerate(s_row):
            if s:
                cur = t
            row.append(sel[cur])
        out.append(row)
    return torch.tensor(out, dtype=torch.bool).reshape(starts.shape)
'''},
 "why": "'Positions before the first start of a row belong to no word ... and are never chosen': sel[-1] is the last position's"},
{"name": "S2 min_p_sample: dropped logits filled with -1e9", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    masked = logits.masked_fill(~keep, -1e9)
    w = torch.softmax(masked, dim=-1)
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(w, 1, generator=generator).reshape(-1)
'''},
 "why": "'do not mask them with a large negative number such as -1e9 ... the hidden tests give kept tokens logits of that value'"},
{"name": "S3 min_p_sample: strict > threshold", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"min_p_sample": CORRECT["min_p_sample"].replace("keep = probs >= min_p * top", "keep = probs > min_p * top")},
 "why": "'keep token i of a row when its probability is **at least** min_p times the largest'"},
{"name": "S4 restore_spans: padding found by id 0", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"span_corrupt": CORRECT["span_corrupt"].replace("if tok == pad:", "if tok == 0:")},
 "why": "'Each row is right-padded with pad (a Python int)' (pad may be any id; 0 may be a real token)"},
{"name": "S5 gqa: masked with finfo(dtype).min", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"gqa_cached_attention": CORRECT["gqa_cached_attention"].replace('float("-inf")', 'torch.finfo(scores.dtype).min')},
 "why": "'mask with -inf, not with a large negative number, not even the dtype's lowest finite value torch.finfo(dtype).min'"},
{"name": "S6 decayed: every power made, future ones hidden afterwards with tril", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=work)
    powers = torch.pow(torch.tensor(decay, dtype=work), i[:, None] - i[None, :]).tril()
    a = (fq @ fk.transpose(-2, -1)) * powers
    return ((a @ v.to(work)) / a.sum(-1, keepdim=True)).to(q.dtype)
'''},
 "why": "'where a power gamma^(i-j) made for a future key overflows to inf: hiding it afterwards (with tril ...) leaves the value right but makes the gradient NaN'"},
{"name": "S7 expert_choice: gate from a 0/1 float mask multiplied in, chosen read back with != 0", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices
    mask = torch.zeros(N, E, dtype=probs.dtype)
    mask.scatter_(0, order[:k], 1.0)
    gate = probs * mask
    return gate != 0, gate
'''},
 "why": "'chosen a bool tensor (N, E), True where expert e took token n': a chosen token of probability 0 (underflowed, logits of tens of thousands) reads as not chosen"},
# ---------------------------------------------------------------- correct
{"name": "C1 window_pairs: min-based sum formula", "correct": True,
 "cells": {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return w * (w + 1) // 2 + (t - w) * window
'''}, "why": "exact"},
{"name": "C2 tokens_per_target_pass: an explicit sum (float loop)", "correct": True,
 "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    total, term = 0.0, 1.0
    for _ in range(gamma + 1):
        total += term
        term *= float(alpha)
    return total
'''}, "why": "sum_{k=0}^{gamma} alpha^k"},
{"name": "C3 whole_word_chosen: cummax with sentinel 0 (position 0 is never a selected start unless a start)", "correct": True,
 "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    T = starts.shape[-1]
    pos = torch.arange(T)
    last_start = torch.where(starts, pos, 0).cummax(dim=-1).values
    return (starts & pick).gather(-1, last_start)
'''}, "why": "before the first start the index is 0, and position 0 is not a start there, so sel[0] is False"},
{"name": "C4 whole_word_chosen: Python lists per row", "correct": True,
 "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    rows = []
    for s_row, p_row in zip(starts.tolist(), pick.tolist()):
        cur, row = False, []
        for s, p in zip(s_row, p_row):
            if s:
                cur = p
            row.append(cur)
        rows.append(row)
    if B == 0:
        return torch.zeros(0, T, dtype=torch.bool)
    return torch.tensor(rows, dtype=torch.bool)
'''}, "why": "allowed loop over Python lists"},
{"name": "C5 min_p_sample: logits masked with -inf, softmax again", "correct": True,
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.empty(0, dtype=torch.int64)
    p = F.softmax(logits, dim=-1)
    keep = p >= min_p * p.max(dim=-1, keepdim=True).values
    w = F.softmax(logits.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.multinomial(w, num_samples=1, generator=generator)[:, 0]
'''}, "why": "the kept probabilities renormalised"},
{"name": "C6 min_p_sample: the threshold in log space (log p_i >= log min_p + log p_max)", "correct": True,
 "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    logp = torch.log_softmax(logits, dim=-1)
    keep = logp >= math.log(min_p) + logp.max(dim=-1, keepdim=True).values
    w = torch.where(keep, logp.exp(), torch.zeros_like(logp))
    return torch.multinomial(w, 1, generator=generator).view(-1)
'''}, "why": "probe: equivalent on paper; may differ from the probability comparison at exact thresholds (see verdicts)"},
{"name": "C7 restore_spans: sentinel positions found with isin, rows rebuilt from lists", "correct": True,
 "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sset = set(sentinels.tolist())
    out_t, out_n = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        hidden, key = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sset:
                key = tok
                hidden.setdefault(key, [])
            else:
                hidden[key].append(tok)
        t_row, n_row = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sset:
                t_row.extend(hidden[tok])
                n_row.extend([True] * len(hidden[tok]))
            else:
                t_row.append(tok)
                n_row.append(False)
        out_t.append(t_row)
        out_n.append(n_row)
    T = max((len(r) for r in out_t), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in out_t], dtype=torch.int64).reshape(len(out_t), T)
    noise = torch.tensor([r + [False] * (T - len(r)) for r in out_n], dtype=torch.bool).reshape(len(out_n), T)
    return tokens, noise
'''}, "why": "same walk"},
{"name": "C8 expert_choice: argsort stable on the negated probabilities, where-gate", "correct": True,
 "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1)
    N = probs.shape[0]
    order = torch.argsort(-probs, dim=0, stable=True)
    rank = torch.empty_like(order)
    rank.scatter_(0, order, torch.arange(N).unsqueeze(1).expand_as(order).contiguous())
    chosen = rank < capacity
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
'''}, "why": "rank of each token within its expert column; ties by index through the stable sort"},
{"name": "C9 gqa: einsum with a group axis, float64 kept", "correct": True,
 "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q5 = q.to(work).reshape(B, G, H // G, T, Dh)
    s = torch.einsum("bgrtd,bgsd->bgrts", q5, k.to(work)) / math.sqrt(Dh)
    t_pos = torch.arange(S - T, S).unsqueeze(-1)
    s_pos = torch.arange(S).unsqueeze(0)
    s = s.masked_fill(s_pos > t_pos, float("-inf"))
    w = s.softmax(dim=-1)
    out = torch.einsum("bgrts,bgsd->bgrtd", w, v.to(work))
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''}, "why": "einsum contracts Dh without a broadcast product"},
{"name": "C10 decayed: the decay applied after adding (weights gamma^(i-j+1)), which cancels in the ratio", "correct": True,
 "cells": {"decayed_linear_attention": CORRECT["decayed_linear_attention"].replace("gap.clamp(min=0).to(work)", "(gap.clamp(min=0) + 1).to(work)")},
 "why": "numerator and denominator share the factor gamma; a probe of the from-memory recurrence S_i = gamma (S_{i-1} + phi k v); within tolerance? gamma factor rounding only (note: with decay 0.001 and T=120, gamma^(gap+1) underflows one step earlier: a probe)"},
{"name": "C11 decayed: an explicit recurrence over the positions (states in float32/float64)", "correct": True,
 "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1
    fk = F.elu(k.to(work)) + 1
    vv = v.to(work)
    T = q.shape[-2]
    lead = q.shape[:-2]
    S = torch.zeros(*lead, fk.shape[-1], vv.shape[-1], dtype=work)
    z = torch.zeros(*lead, fk.shape[-1], dtype=work)
    outs = []
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * vv[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    if T == 0:
        return torch.zeros(*lead, 0, vv.shape[-1], dtype=q.dtype)
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "why": "the text's recurrence; a loop over T (up to 1100) may be slow: a probe of the time limit"},
# ---------------------------------------------------------------- hostile
{"name": "H1 window_pairs: an int subclass equal to everything", "correct": False, "kind": "hostile",
 "cells": {"window_pairs": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def window_pairs(t, window):
    return Count(0)
'''}, "why": "hostile"},
{"name": "H2 expert_choice: patches torch.testing.assert_close and returns the top-1 greedily", "correct": False, "kind": "hostile",
 "cells": {"expert_choice": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None

def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen[0, 0] = True
    chosen[1, 1] = True
    return chosen, torch.zeros(N, E, dtype=router_logits.dtype) + 0 * router_logits
'''}, "why": "hostile: hard-codes the visible example and disables the checker"},
{"name": "H3 tokens_per_target_pass: a float subclass that is close to everything", "correct": False, "kind": "hostile",
 "cells": {"tokens_per_target_pass": '''
class Near(float):
    def __sub__(self, other):
        return Near(0.0)
    def __rsub__(self, other):
        return Near(0.0)
    def __abs__(self):
        return 0.0

def tokens_per_target_pass(alpha, gamma):
    return Near(1.0)
'''}, "why": "hostile"},
]

# ---------------------------------------------------------------- second wave (still blind)
SUBMISSIONS += [
{"name": "C13 tokens_per_target_pass: rounded to 12 decimals (a guard within the 1e-9 allowed)", "correct": True,
 "cells": {"tokens_per_target_pass": CORRECT["tokens_per_target_pass"].replace("    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)",
                                                                               "    return round((1.0 - alpha ** (gamma + 1)) / (1.0 - alpha), 12)")},
 "why": "rounding changes the value by at most 5e-13 < 1e-9"},
{"name": "C14 min_p_sample: the ratio p_i / p_max compared with min_p", "correct": True,
 "cells": {"min_p_sample": CORRECT["min_p_sample"].replace("keep = probs >= min_p * top", "keep = probs / top >= min_p")},
 "why": "probe: equivalent on paper; may differ from the product at exact thresholds"},
{"name": "S8 restore_spans: sentinels cast to the dtype of inputs and found with isin", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"span_corrupt": CORRECT["span_corrupt"].replace("    sent = set(sentinels.tolist())",
                                                          "    sent = set(sentinels.to(inputs.dtype).tolist())")},
 "why": "'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32': the cast wraps them onto real ids"},
{"name": "F6 gqa: q grouped with reshape(B, G, -1, Dh)", "correct": False, "kind": "fixed-rank",
 "cells": {"gqa_cached_attention": CORRECT["gqa_cached_attention"].replace("qg = q.to(work).reshape(B, G, r * T, Dh)", "qg = q.to(work).reshape(B, G, -1, Dh)")},
 "why": "'The batch may be empty (B = 0) ... (a view or reshape that gives the size 0 beside a -1, such as (B, G, -1, Dh), cannot size a tensor of no elements: give every size)'"},
{"name": "F7 gqa: q grouped with view", "correct": False, "kind": "fixed-rank",
 "cells": {"gqa_cached_attention": CORRECT["gqa_cached_attention"].replace("qg = q.to(work).reshape(B, G, r * T, Dh)", "qg = q.to(work).view(B, G, r * T, Dh)")},
 "why": "'A tensor you are given may be a view that is not contiguous (a transposed or sliced tensor ...): .view fails on such a tensor where .reshape works' (float32 q: .to is a no-op, so the view sees q's strides)"},
{"name": "F8 decayed: T read as q.shape[0] (the example is 2-D)", "correct": False, "kind": "fixed-rank",
 "cells": {"decayed_linear_attention": CORRECT["decayed_linear_attention"].replace("    T = q.shape[-2]", "    T = q.shape[0]")},
 "why": "'q, k of shape (..., T, Dh)'"},
{"name": "E8 decayed: decay kept below 1 by 1e-6", "correct": False, "kind": "epsilon-adder",
 "cells": {"decayed_linear_attention": CORRECT["decayed_linear_attention"].replace("    work = torch.float32", "    decay = min(decay, 1.0 - 1e-6)\n    work = torch.float32", 1)},
 "why": "'a Python float 0 < decay <= 1 (decay = 1 is the lesson's causal linear attention)'; within 1e-10 for float64"},
]
