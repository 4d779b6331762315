# Red-team round 7, chapter 06-variants: blind submissions.
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
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    chosen_start = starts & pick
    return (last >= 0) & chosen_start.gather(1, last.clamp(min=0))
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    kept = kept / kept.sum(dim=-1, keepdim=True)
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
''',
"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(int(s) for s in sentinels.tolist())
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
        row, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                row += spans[tok]
                noise += [True] * len(spans[tok])
            else:
                row.append(tok)
                noise.append(False)
        rows.append(row)
        noises.append(noise)
    T = max(len(r) for r in rows)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([m + [False] * (T - len(m)) for m in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    mask = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :])
    powers = torch.where(diff >= 0, torch.tensor(decay, dtype=torch.float64) ** diff.clamp(min=0).double(),
                         torch.zeros((), dtype=torch.float64)).to(q.dtype)
    w = (fq @ fk.transpose(-1, -2)) * powers
    return (w @ v) / w.sum(dim=-1, keepdim=True)
''',
}

def W(name, cells, why):
    return {"name": name, "correct": False, "cells": cells, "why": why}

SUBMISSIONS = [
# ---------------- Part 1
W("p1_torch_for_small_t", {"window_pairs": '''
def window_pairs(t, window):
    if t <= 64:
        i = torch.arange(t)
        return int(((i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)).sum())
    return window * (window + 1) // 2 + (t - window) * window if t > window else t * (t + 1) // 2
'''}, "Builds the mask with torch for small t: breaks 'use no tensors or arrays at all, on any path of your code (not even to build the mask for small t)'."),
W("p1_float_division", {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return int(w * (w + 1) / 2 + (t - w) * w)
'''}, "Divides with / (float): breaks 'count with Python integer arithmetic' for t, window near 1e12 (closed class: exact counts through float)."),
# ---------------- Part 2
W("p2_linear_expectation", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return float(1 + gamma * alpha)
'''}, "Expects gamma * alpha accepted tokens, ignoring that checking stops at the first rejection: breaks 'The target checks them in order and stops at the first rejection' (agrees at gamma = 1)."),
W("p2_int_at_one", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "Returns an int gamma + 1 at alpha = 1: breaks 'Return a Python float, whatever the type of alpha' (closed class: wrong type returned)."),
W("p2_no_case_for_one", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    # geometric series 1 + alpha + ... + alpha^gamma
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "Closed form without the alpha = 1 case: ZeroDivisionError there; breaks '0 <= alpha <= 1 (both ends included) ... (the tests pass 0 and 1 as ints too)'."),
# ---------------- Part 3
W("p3_flattened_rows", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    s = starts.reshape(-1)
    pos = torch.arange(B * T)
    last = torch.where(s, pos, torch.full_like(pos, -1)).cummax(dim=0).values
    chosen_start = (starts & pick).reshape(-1)
    return ((last >= 0) & chosen_start[last.clamp(min=0)]).reshape(B, T)
'''}, "Runs the cumulative max over the flattened batch, so a row's leading positions join the last word of the previous row: breaks 'the nearest start at or before it in the same row' and 'Positions before the first start of a row belong to no word'."),
W("p3_word_id_int16", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    word = torch.cumsum(starts.to(torch.int16), dim=1)
    out = torch.zeros_like(starts)
    for b in range(starts.shape[0]):
        ids = word[b].long()
        chosen_words = torch.zeros(int(ids.max()) + 2 if ids.numel() else 1, dtype=torch.bool)
        chosen_words[ids[starts[b] & pick[b]]] = True
        chosen_words[0] = False
        out[b] = chosen_words[ids]
    return out
'''}, "Counts word ids in int16 to save memory; they wrap past 32767 starts: breaks 'rows of tens of thousands of positions, most of them starts' (closed class: narrow ints past range)."),
W("p3_row_without_start", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = torch.zeros_like(starts)
    for b in range(starts.shape[0]):
        idx = starts[b].nonzero().flatten().tolist()
        first = idx[0]                        # the [CLS] prefix ends here
        bounds = idx + [starts.shape[1]]
        for s, e in zip(bounds[:-1], bounds[1:]):
            if pick[b, s]:
                out[b, s:e] = True
        out[b, :first] = False
    return out
'''}, "Assumes every row has a first start (idx[0] raises otherwise): breaks 'a row may have no start at all'."),
# ---------------- Part 4
W("p4_strict_threshold", {"min_p_sample": CORRECT["min_p_sample"].replace("probs >= min_p", "probs > min_p")},
  "Keeps p_i > min_p * max: breaks 'at least' (p_i >= min_p * max_j p_j); with min_p = 1 and a tie only the maximum... with min_p = 1 nothing but exact maxima survive either way, but with min_p = 1 '>' keeps nothing (NaN/raise)."),
W("p4_batch_max", {"min_p_sample": CORRECT["min_p_sample"].replace("probs.max(dim=-1, keepdim=True).values", "probs.max()")},
  "Uses the largest probability of the whole batch: breaks 'min_p times the largest probability of that row'."),
W("p4_squeeze_all", {"min_p_sample": CORRECT["min_p_sample"].replace(".squeeze(-1)", ".squeeze()")},
  "squeeze() turns a batch of one into a 0-d tensor: breaks 'Return the token ids as an int64 tensor of shape (B,)' for B = 1."),
W("p4_naive_softmax", {"min_p_sample": CORRECT["min_p_sample"].replace("probs = torch.softmax(logits, dim=-1)", "e = torch.exp(logits)\n    probs = e / e.sum(dim=-1, keepdim=True)")},
  "Softmax without subtracting the row maximum overflows to inf/NaN on large logits: breaks 'turn each row into probabilities with a softmax' for the intro's 'logits large enough that a softmax which does not subtract the row maximum overflows'."),
# ---------------- Part 5
W("p5_consecutive_sentinels", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    base = int(sentinels.min())
    n = sentinels.numel()
    is_sent = lambda tok: base <= tok < base + n
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if is_sent(tok):
                cur = tok; spans[cur] = []
            else:
                spans[cur].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if is_sent(tok):
                row += spans[tok]; noise += [True] * len(spans[tok])
            else:
                row.append(tok); noise.append(False)
        rows.append(row); noises.append(noise)
    T = max(len(r) for r in rows)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64)
    noise = torch.tensor([m + [False] * (T - len(m)) for m in noises], dtype=torch.bool)
    return tokens, noise
'''}, "Takes the sentinels to be the consecutive ids min .. min + n - 1: breaks 'They need not be consecutive numbers'."),
{"name": "c_p5_sentinels_in_list_order", "correct": True, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.tolist()
    sset = set(sent)
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        # the k-th sentinel of the target hides span k of the input
        parts, cur = [], None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sset:
                parts.append([])
            else:
                parts[-1].append(tok)
        row, noise, k = [], [], 0
        for tok in inp:
            if tok == pad:
                break
            if tok == sent[k] if k < len(sent) else False:
                row += parts[k]; noise += [True] * len(parts[k]); k += 1
            elif tok in sset:
                row += parts[k]; noise += [True] * len(parts[k]); k += 1
            else:
                row.append(tok); noise.append(False)
        rows.append(row); noises.append(noise)
    T = max(len(r) for r in rows)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64)
    noise = torch.tensor([m + [False] * (T - len(m)) for m in noises], dtype=torch.bool)
    return tokens, noise
'''}, "why": "Matches the k-th span of the input with the k-th sentinel group of the target, which the text guarantees ('its target lists its sentinels in the order they appear in its input')."},
W("p5_pad_is_zero", {"span_corrupt": CORRECT["span_corrupt"].replace("if tok == pad:\n                break\n            if tok in sent:\n                cur", "if tok <= 0:\n                break\n            if tok in sent:\n                cur").replace("if tok == pad:\n                break\n            if tok in sent:\n                row", "if tok <= 0:\n                break\n            if tok in sent:\n                row")},
  "Treats id 0 (or below) as padding: breaks 'right-padded with pad (a Python int)' when pad is another id and 0 is a real token."),
W("p5_width_from_row0", {"span_corrupt": CORRECT["span_corrupt"].replace("T = max(len(r) for r in rows)", "T = len(rows[0])\n    rows = [r[:T] for r in rows]\n    noises = [m[:T] for m in noises]")},
  "Takes T from the first row: breaks 'T is the length of the longest original sequence' (the visible first row is the longest)."),
# ---------------- Part 6
W("p6_rank_by_logits", {"expert_choice": CORRECT["expert_choice"].replace("torch.sort(probs,", "torch.sort(router_logits,")},
  "Ranks tokens by their logit for expert e, not by probs[:, e]: breaks 'expert e takes the capacity tokens with the largest probs[:, e]' (the softmax normalises each token over the experts)."),
W("p6_topk_ties", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    idx = probs.topk(min(capacity, N), dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "torch.topk does not promise the lower index among equal values: breaks 'among tokens with equal probabilities the lower token index goes first'."),
W("p6_capacity_unclamped", {"expert_choice": CORRECT["expert_choice"].replace("k = min(capacity, N)", "k = capacity").replace(
    "order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]",
    "order = probs.topk(k, dim=0, sorted=True).indices if k > 0 else torch.zeros(0, E, dtype=torch.long)")},
  "topk(capacity) raises when capacity > N: breaks 'capacity ... may exceed N (then the expert takes every token)'."),
# ---------------- Part 7
W("p7_head_modulo", {"gqa_cached_attention": CORRECT["gqa_cached_attention"].replace(
    "k = k.repeat_interleave(H // G, dim=1)\n    v = v.repeat_interleave(H // G, dim=1)",
    "k = k.repeat(1, H // G, 1, 1)\n    v = v.repeat(1, H // G, 1, 1)")},
  "repeat instead of repeat_interleave maps query head h to key head h % G: breaks 'query head h uses key/value head h // (H // G)' (the visible check uses h = 3, G = 2, where both give 1)."),
W("p7_float32_scores", {"gqa_cached_attention": CORRECT["gqa_cached_attention"].replace(
    "scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)", "scores = (q.float() @ k.float().transpose(-1, -2) / math.sqrt(Dh))").replace(
    "return torch.softmax(scores, dim=-1) @ v", "return (torch.softmax(scores, dim=-1) @ v.float()).to(q.dtype)")},
  "Scores in float32: breaks 'within 1e-10 for float64 inputs ... so compute float64 in float64' (closed class)."),
{"name": "c_p7_tril_offset", "correct": True, "cells": {"gqa_cached_attention": CORRECT["gqa_cached_attention"].replace(
    "mask = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]",
    "mask = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T) if T > 1 else torch.ones(1, S, dtype=torch.bool)")},
  "why": "The causal mask as tril with diagonal offset S - T."},
# ---------------- Part 8
W("p8_phi_relu", {"decayed_linear_attention": CORRECT["decayed_linear_attention"].replace(
    "fq, fk = F.elu(q) + 1, F.elu(k) + 1", "fq, fk = F.relu(q) + 1, F.relu(k) + 1")},
  "phi = relu + 1 instead of elu + 1: breaks 'With phi(x) = elu(x) + 1' (equal at 0, the visible inputs)."),
W("p8_rescaled_cumsum", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = (F.elu(q) + 1).double(), (F.elu(k) + 1).double()
    T = q.shape[-2]
    j = torch.arange(T, dtype=torch.float64)
    up = (decay ** -j)[:, None]
    down = (decay ** j)[:, None]
    S = torch.cumsum((fk * up).unsqueeze(-1) * v.double().unsqueeze(-2), dim=-3)
    z = torch.cumsum(fk * up, dim=-2)
    num = torch.einsum("...td,...tdv->...tv", fq, S) * down
    den = (fq * z).sum(-1, keepdim=True) * down
    return (num / den).to(q.dtype)
'''}, "Rescales keys by decay^-j for a cumsum: breaks 'rescaling the keys by gamma^-j ... is exact on paper but not in floating point' (overflows for T = 1100, decay = 0.5)."),
W("p8_nan_from_masked_powers", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float64)
    powers = (decay ** (i[:, None] - i[None, :])) * torch.ones(T, T, dtype=torch.float64).tril()
    w = (fq @ fk.transpose(-1, -2)) * powers.to(q.dtype)
    return (w @ v) / w.sum(dim=-1, keepdim=True)
'''}, "Masks the decay matrix by multiplying with a 0/1 triangle: decay^(i-j) for j > i is inf for long sequences and inf * 0 = NaN: breaks 'It must stay accurate for long sequences'."),
W("p8_epsilon", {"decayed_linear_attention": CORRECT["decayed_linear_attention"].replace(
    "return (w @ v) / w.sum(dim=-1, keepdim=True)", "return (w @ v) / (w.sum(dim=-1, keepdim=True) + 1e-6)")},
  "Adds 1e-6 to the denominator: breaks 'Do not add an epsilon to the denominator'."),
# ---------------- hostile
W("hostile_reads_tests", {"window_pairs": '''
import gc, sys
def window_pairs(t, window):
    # find the expected value in the caller's frame / grader's locals
    f = sys._getframe(1)
    for name, val in list(f.f_locals.items()) + list(f.f_globals.items()):
        if name.startswith("_expect") and isinstance(val, int):
            return val
    return t * window
'''}, "Hostile: looks for the expected value in the grader's frames, else returns garbage."),
W("hostile_patch_torch_softmax", {"expert_choice": '''
torch.softmax = lambda x, dim=-1, **kw: torch.nn.functional.softmax(x, dim=dim) * 0 + 1.0 / x.shape[dim]
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = torch.softmax(router_logits, dim=-1)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen[: min(capacity, N)] = True
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "Hostile: replaces torch.softmax with a uniform function so a comparison against torch.softmax agrees."),
W("hostile_exit", {"gqa_cached_attention": '''
import os
def gqa_cached_attention(q, k, v):
    os._exit(0)
'''}, "Hostile: kills the grading process with exit status 0 hoping it reads as success."),
# ---------------- correct but different
{"name": "c_p1_loop_free_min", "correct": True, "cells": {"window_pairs": '''
def window_pairs(t, window):
    full = max(t - window + 1, 0)           # queries that see all window keys: i >= window - 1
    ramp = min(t, window - 1)               # queries 0 .. window-2 see i + 1 keys
    return full * window + ramp * (ramp + 1) // 2
'''}, "why": "Counts full-window queries and the ramp separately."},
{"name": "c_p3_python_loop", "correct": True, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        state, row = False, []
        for s, p in zip(srow, prow):
            if s:
                state = p
            row.append(state)
        out.append(row)
    return torch.tensor(out, dtype=torch.bool).reshape(starts.shape)
'''}, "why": "Plain Python loop over lists, carrying the current word's choice."},
{"name": "c_p4_gumbel_max", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    u = torch.rand(probs.shape, generator=generator, dtype=torch.float64).clamp_min(1e-300)
    gumbel = -torch.log(-torch.log(u))
    score = torch.log(probs.double()) + gumbel
    return score.masked_fill(~keep, float("-inf")).argmax(dim=-1)
'''}, "why": "Gumbel-max: argmax of log p + Gumbel noise over the kept tokens, noise drawn from the generator; the same distribution as renormalised sampling, but not multinomial's random stream."},
{"name": "c_p6_p8_alt", "correct": True, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e in range(E):
        col = probs[:, e].tolist()
        order = sorted(range(N), key=lambda n: (-col[n], n))[:capacity]
        chosen[order, e] = True
    return chosen, probs.masked_fill(~chosen, 0)
''', "decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(q.shape[-2]):
        S = decay * S + fk[..., i, :, None] * v[..., i, None, :]
        z = decay * z + fk[..., i, :]
        outs.append((fq[..., i, :, None] * S).sum(-2) / (fq[..., i, :] * z).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2)
'''}, "why": "Expert choice by Python sort with an explicit (prob desc, index) key; the decayed linear attention as the literal recurrence."},
]

# Added in phase 2 (audit of narrow integer dtypes), not part of the blind run: int32 sentinels, which the
# text now names, through index_fill (int64 indices only). It slipped the old hidden tests.
SUBMISSIONS.append(W("p5_audit_sentinel_table_int64_only", {"span_corrupt": '\ndef restore_spans(inputs, targets, sentinels, pad):\n    size = max(int(inputs.max()), int(targets.max()), int(sentinels.max()), pad) + 1\n    is_sentinel = torch.zeros(size, dtype=torch.bool).index_fill(0, sentinels, True).tolist()\n    rows_t, rows_n = [], []\n    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):\n        spans, current = {}, None\n        for token in row_tg:\n            if token == pad:\n                break\n            if is_sentinel[token]:\n                current = spans.setdefault(token, [])\n            else:\n                current.append(token)\n        row, noise = [], []\n        for token in row_in:\n            if token == pad:\n                break\n            if is_sentinel[token]:\n                row += spans[token]\n                noise += [True] * len(spans[token])\n            else:\n                row.append(token)\n                noise.append(False)\n        rows_t.append(row)\n        rows_n.append(noise)\n    t = max(map(len, rows_t))\n    tokens = torch.tensor([r + [pad] * (t - len(r)) for r in rows_t], dtype=torch.long)\n    noise = torch.tensor([n + [False] * (t - len(n)) for n in rows_n], dtype=torch.bool)\n    return tokens, noise\n'},
    "index_fill takes int64 indices: raises on int32 sentinels; breaks '`sentinels` is a 1-D integer tensor of the sentinel ids, `int64` or `int32` (not necessarily the dtype of `inputs`)'."))
