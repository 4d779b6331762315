# CORRECT: the helper's own answers, used only to check the visible tests locally
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
    return float((1.0 - alpha ** (gamma + 1)) / (1.0 - alpha))
''',
"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    start_pick = starts & pick
    got = start_pick.gather(1, last.clamp(min=0))
    return got & (last >= 0)
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
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    nz = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, z) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        nz[b, :len(z)] = torch.tensor(z, dtype=torch.bool)
    return tokens, nz
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices
    take = order[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, take, torch.ones_like(take, dtype=torch.bool))
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    qpos = torch.arange(S - T, S)[:, None]
    kpos = torch.arange(S)[None, :]
    scores = scores.masked_fill(kpos > qpos, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=q.dtype)
    diff = i[:, None] - i[None, :]
    w = torch.where(diff >= 0, torch.tensor(decay, dtype=q.dtype) ** diff.clamp(min=0), torch.zeros((), dtype=q.dtype))
    a = (fq @ fk.transpose(-2, -1)) * w
    return (a @ v) / a.sum(dim=-1, keepdim=True)
''',
}

SUBMISSIONS = [
# ---------------- wrong ----------------
{"name": "window_loop_sum", "correct": False, "cells": {"window_pairs": '''
def window_pairs(t, window):
    return sum(min(i + 1, window) for i in range(t))
'''}, "why": "a Python loop over t: breaks '`t` and `window` can be as large as 10^12 (the hidden tests use such sizes)'"},
{"name": "window_float_halving", "correct": False, "cells": {"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return int(m * (m + 1) / 2 + (t - m) * window)
'''}, "why": "halves through a float: breaks 'count with Python integer arithmetic' for 10^12 sizes (old class: exact counts through float)"},
{"name": "tokens_int_when_alpha_one", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "why": "returns an int at alpha = 1: breaks 'Return a Python float, whatever the type of alpha' (old class: wrong type returned)"},
{"name": "tokens_torch_float32", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = torch.tensor(alpha, dtype=torch.float32)
    powers = a ** torch.arange(gamma + 1)
    return float(powers.sum().item())
'''}, "why": "sums the powers in float32: breaks 'within 1e-9 of the exact value for every allowed input' (old class: float32 arithmetic)"},
{"name": "whole_word_isin_across_rows", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    word = starts.long().cumsum(dim=1)          # word number of each position, 0 before the first start
    chosen_words = word[starts & pick]          # numbers of the chosen words
    return torch.isin(word, chosen_words) & (word > 0)
'''}, "why": "word numbers are per row but compared across the whole batch: breaks 'the nearest start at or before it in the same row' (visible B = 1)"},
{"name": "whole_word_loop_not_reset_per_row", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    s, p = starts.tolist(), pick.tolist()
    current = False
    for b in range(B):
        for t in range(T):
            if s[b][t]:
                current = p[b][t]
            out[b, t] = current
    return out
'''}, "why": "carries the last word's state into the next row: breaks 'Positions before the first start of a row belong to no word ... are never chosen'"},
{"name": "min_p_argmax", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return kept.argmax(dim=-1)
'''}, "why": "greedy among the kept tokens: breaks 'draw one token per row from the kept probabilities, renormalised'"},
{"name": "min_p_absolute_threshold", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    kept = torch.where(probs >= min_p, probs, torch.zeros_like(probs))
    kept = kept / kept.sum(dim=-1, keepdim=True)
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''}, "why": "threshold min_p instead of min_p * max: breaks 'at least min_p times the largest probability of that row'"},
{"name": "span_sentinel_by_threshold", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    first = int(sentinels.min())
    is_sent = lambda tok: tok >= first          # sentinels sit at the top of the vocabulary
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if is_sent(tok):
                cur = tok
                spans[cur] = []
            else:
                spans[cur].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if is_sent(tok):
                row += spans[tok]
                noise += [True] * len(spans[tok])
            else:
                row.append(tok)
                noise.append(False)
        rows.append(row)
        noises.append(noise)
    T = max(len(r) for r in rows)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    nz = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, z) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        nz[b, :len(z)] = torch.tensor(z, dtype=torch.bool)
    return tokens, nz
'''}, "why": "takes every id >= the smallest sentinel for a sentinel: breaks 'ids from a vocabulary of any size' and 'They need not be consecutive numbers'"},
{"name": "span_spans_in_sentinel_list_order", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.tolist()
    rank = {s: i for i, s in enumerate(sent)}
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans = []
        for tok in tgt:
            if tok == pad:
                break
            if tok in rank:
                spans.append([])
            else:
                spans[-1].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in rank:
                span = spans[rank[tok]]          # sentinel k hides the k-th span
                row += span
                noise += [True] * len(span)
            else:
                row.append(tok)
                noise.append(False)
        rows.append(row)
        noises.append(noise)
    T = max(len(r) for r in rows)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    nz = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, z) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        nz[b, :len(z)] = torch.tensor(z, dtype=torch.bool)
    return tokens, nz
'''}, "why": "assumes a row uses sentinels[0], sentinels[1], ... in order: breaks 'a row may use any of them (each at most once ... shuffled or shared)'"},
{"name": "expert_ranks_by_logit", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(router_logits, dim=0, descending=True, stable=True).indices
    take = order[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, take, torch.ones_like(take, dtype=torch.bool))
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "ranks tokens by raw logit, not by probability: breaks 'expert e takes the capacity tokens with the largest probs[:, e]'"},
{"name": "expert_token_taken_once", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    taken = torch.zeros(N, dtype=torch.bool)
    for e in range(E):
        order = torch.sort(probs[:, e], descending=True, stable=True).indices
        count = 0
        for n in order.tolist():
            if count == capacity:
                break
            if not taken[n]:
                chosen[n, e] = True
                taken[n] = True
                count += 1
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "lets a token go to one expert only: breaks 'A token may be taken by several experts, or by none'"},
{"name": "gqa_repeat_not_interleave", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat(1, H // G, 1, 1)
    v = v.repeat(1, H // G, 1, 1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    mask = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1) @ v
'''}, "why": "head h uses kv head h % G: breaks 'query head h uses key/value head h // (H // G)' (visible checks head 3, where both agree)"},
{"name": "gqa_exp_without_max", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    w = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(Dh))
    w = w * (torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None])
    return (w / w.sum(-1, keepdim=True)) @ v
'''}, "why": "softmax without subtracting the maximum overflows: breaks 'softmax attention' for the large scores the notebook's intro names"},
{"name": "decay_phi_exp", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = torch.exp(q), torch.exp(k)           # positive feature map
    i = torch.arange(T, dtype=q.dtype)
    diff = i[:, None] - i[None, :]
    w = torch.where(diff >= 0, torch.tensor(decay, dtype=q.dtype) ** diff.clamp(min=0), torch.zeros((), dtype=q.dtype))
    a = (fq @ fk.transpose(-2, -1)) * w
    return (a @ v) / a.sum(dim=-1, keepdim=True)
'''}, "why": "phi = exp instead of elu + 1 (equal at 0, the visible q = k = 0): breaks 'With phi(x) = elu(x) + 1'"},
{"name": "decay_q_k_swapped", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=q.dtype)
    diff = i[:, None] - i[None, :]
    w = torch.where(diff >= 0, torch.tensor(decay, dtype=q.dtype) ** diff.clamp(min=0), torch.zeros((), dtype=q.dtype))
    a = (fk @ fq.transpose(-2, -1)) * w
    return (a @ v) / a.sum(dim=-1, keepdim=True)
'''}, "why": "weight phi(k_i)^T phi(q_j) (q and k swapped; equal for the visible q = k): breaks 'key j <= i enters out_i with weight gamma^(i-j) phi(q_i)^T phi(k_j)'"},
{"name": "decay_2d_only_T", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[0]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=q.dtype)
    diff = i[:, None] - i[None, :]
    w = torch.where(diff >= 0, torch.tensor(decay, dtype=q.dtype) ** diff.clamp(min=0), torch.zeros((), dtype=q.dtype))
    a = (fq @ fk.mT) * w
    return (a @ v) / a.sum(dim=-1, keepdim=True)
'''}, "why": "takes T from the first axis (only right for 2-D inputs): breaks 'q, k of shape (..., T, Dh)'"},
{"name": "decay_rescaled_cumsum_float64", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    qd, kd, vd = q.double(), k.double(), v.double()
    fq, fk = F.elu(qd) + 1, F.elu(kd) + 1
    T = q.shape[-2]
    g = torch.tensor(decay, dtype=torch.float64) ** torch.arange(T, dtype=torch.float64)   # decay^j
    S = torch.cumsum((fk / g[:, None])[..., :, None] * vd[..., None, :], dim=-3)          # sum_j decay^-j phi(k_j) v_j
    z = torch.cumsum(fk / g[:, None], dim=-2)
    num = (fq[..., :, :, None] * S).sum(-2) * g[:, None]
    den = (fq * z).sum(-1, keepdim=True) * g[:, None]
    return (num / den).to(dt)
'''}, "why": "rescales keys by decay^-j for a plain cumsum: breaks 'It must stay accurate for long sequences ... rescaling the keys by gamma^-j ... is exact on paper but not in floating point'"},
# ---------------- correct ----------------
{"name": "ok_window_min_form", "correct": True, "cells": {"window_pairs": '''
def window_pairs(t, window):
    full = max(t - window + 1, 0)           # queries that see a whole window
    ramp = t - full                          # the first queries, seeing 1, 2, ...
    return full * window + ramp * (ramp + 1) // 2
'''}, "why": "counts the full-window queries and the ramp"},
{"name": "ok_tokens_sum_of_powers", "correct": True, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    total, term = 0.0, 1.0
    for _ in range(gamma + 1):
        total += term
        term *= a
    return total
'''}, "why": "E = sum_{i=0}^{gamma} alpha^i by direct summation"},
{"name": "ok_min_p_row_by_row", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    out = []
    for row in logits:
        p = torch.softmax(row.double(), dim=-1)
        p = torch.where(p >= min_p * p.max(), p, torch.zeros_like(p))
        out.append(torch.multinomial(p / p.sum(), 1, generator=generator))
    return torch.cat(out).to(torch.int64)
'''}, "why": "one row at a time, probabilities in float64; same seed gives the same tokens"},
{"name": "ok_min_p_inverse_cdf", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    p = torch.softmax(logits.double(), dim=-1)
    p = torch.where(p >= min_p * p.amax(dim=-1, keepdim=True), p, torch.zeros_like(p))
    cdf = (p / p.sum(-1, keepdim=True)).cumsum(-1)
    u = torch.rand(logits.shape[0], 1, generator=generator, dtype=torch.float64)
    idx = (cdf < u).sum(-1)
    last_kept = torch.where(p > 0, torch.arange(p.shape[-1]), torch.zeros_like(idx[:, None])).amax(-1)
    return torch.minimum(idx, last_kept).to(torch.int64)
'''}, "why": "inverse-CDF sampling with uniforms drawn from the generator"},
{"name": "ok_expert_python_sort", "correct": True, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    cols = probs.T.tolist()
    for e in range(E):
        ranked = sorted(range(N), key=lambda n: (-cols[e][n], n))
        for n in ranked[:capacity]:
            chosen[n, e] = True
    return chosen, probs * chosen
'''}, "why": "ties ordered with an explicit (-p, index) key; gate = probs * chosen"},
{"name": "ok_gqa_grouped_einsum", "correct": True, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, G, H // G, T, Dh)
    s = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    allowed = torch.arange(S) <= (torch.arange(T) + (S - T))[:, None]
    s = s.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return torch.einsum("bgrts,bgsd->bgrtd", w, v).reshape(B, H, T, Dh)
'''}, "why": "groups the query heads instead of repeating the keys"},
{"name": "ok_decay_recurrence_loop", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for t in range(T):
        S = decay * S + fk[..., t, :, None] * v[..., t, None, :]
        z = decay * z + fk[..., t, :]
        num = (fq[..., t, :, None] * S).sum(-2)
        den = (fq[..., t, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
'''}, "why": "the recurrence of the text, step by step"},
# ---------------- hostile ----------------
{"name": "hostile_int_equal_to_everything", "correct": False, "cells": {"window_pairs": '''
class Pairs(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def window_pairs(t, window):
    return Pairs(1)
'''}, "why": "hostile: int subclass whose == always holds"},
{"name": "hostile_patch_builtins_abs", "correct": False, "cells": {"tokens_per_target_pass": '''
import builtins
builtins.abs = lambda x: 0.0
def tokens_per_target_pass(alpha, gamma):
    return 1.0
'''}, "why": "hostile: replaces builtins.abs so every |got - expected| is 0"},
{"name": "hostile_patch_assert_close", "correct": False, "cells": {"decayed_linear_attention": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def decayed_linear_attention(q, k, v, decay):
    return torch.zeros(*v.shape, dtype=q.dtype)
'''}, "why": "hostile: disables torch.testing.assert_close"},
{"name": "hostile_pickle_numpy", "correct": False, "cells": {"expert_choice": '''
import pickle
def expert_choice(router_logits, capacity):
    argsort = pickle.loads(b"cnumpy\\nargsort\\n.")
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e in range(E):
        for n in list(argsort([-x for x in probs[:, e].tolist()], kind="stable"))[:capacity]:
            chosen[int(n), e] = True
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "hostile: NumPy's argsort smuggled in through pickle"},
# ---------------- phase 2 (white-box, added after the blind grading) ----------------
{"name": "p2_min_p_reseeds_from_initial_seed", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    g = torch.Generator().manual_seed(generator.initial_seed())
    return torch.multinomial(kept, 1, generator=g).squeeze(-1)
'''}, "why": "phase 2 (white-box, after the blind grading): draws from a new generator or a copy of its state, so the caller's generator never advances: breaks 'draw every random number from generator'"},
{"name": "p2_min_p_copies_generator_state", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    g = torch.Generator()
    g.set_state(generator.get_state())
    return torch.multinomial(kept, 1, generator=g).squeeze(-1)
'''}, "why": "phase 2 (white-box, after the blind grading): draws from a new generator or a copy of its state, so the caller's generator never advances: breaks 'draw every random number from generator'"},
]
