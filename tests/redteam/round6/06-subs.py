SUBMISSIONS = [
# ---------------- Part 1 ----------------
{"name": "p1_numpy_mask_for_small_t", "correct": False, "cells": {"window_pairs": """
def window_pairs(t, window):
    if t <= 2048:                      # small: count the mask itself, easy to trust
        import numpy as np
        i = np.arange(t)
        return int(((i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)).sum())
    return window * (window + 1) // 2 + (t - window) * window if t > window else t * (t + 1) // 2
"""}, "why": "'count with Python integer arithmetic: use no tensors at all, on any path of your code (not even to build the mask for small t)' and 'The exercises use only torch (and the Python standard library)' - a NumPy array dodges a check that only watches torch"},
{"name": "p1_float_halving", "correct": False, "cells": {"window_pairs": """
def window_pairs(t, window):
    m = min(t, window)
    return int(m * (m + 1) / 2) + (t - m) * window
"""}, "why": "'t and window can be as large as 10^12 ... count with Python integer arithmetic' (classic: float arithmetic)"},
# ---------------- Part 2 ----------------
{"name": "p2_linear_expectation", "correct": False, "cells": {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    return float(1 + alpha * gamma)   # each draft token is accepted with probability alpha, plus the free token
"""}, "why": "'The target checks them in order and stops at the first rejection' - agrees with the worked example (gamma = 1) only"},
{"name": "p2_alpha_one_forgets_free_token", "correct": False, "cells": {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    if alpha >= 1:
        return float(gamma)          # everything accepted
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
"""}, "why": "'every round, whatever happens, also yields exactly one token from the target itself (... the free token when all gamma were accepted)' and 'both ends included' - the alpha = 1 branch only"},
{"name": "p2_int_for_int_alpha", "correct": False, "cells": {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    return sum(alpha ** i for i in range(gamma + 1))
"""}, "why": "'Return a Python float' - alpha = 0 or 1 given as int returns an int (classic: wrong type returned, only on the ends)"},
{"name": "p2_geometric_tail_dropped_near_one", "correct": False, "cells": {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    if alpha > 0.99:                  # the closed form divides by a tiny number: use the limit
        return float(gamma + 1)
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
"""}, "why": "'within 1e-9 of the exact value for every allowed input (apart from alpha = 1 itself, the tests use no alpha closer to 1 than 0.999)' - alpha in (0.99, 0.999] is allowed"},
# ---------------- Part 3 ----------------
{"name": "p3_flag_carried_across_rows", "correct": False, "cells": {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    out = torch.zeros_like(starts)
    current = False
    s, p = starts.tolist(), pick.tolist()
    for b in range(len(s)):
        for t in range(len(s[b])):
            if s[b][t]:
                current = p[b][t]
            out[b, t] = current
    return out
"""}, "why": "'Positions before the first start of a row belong to no word ... and are never chosen' - the flag is not reset per row (batch neighbours)"},
{"name": "p3_isin_whole_batch", "correct": False, "cells": {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    word = starts.long().cumsum(dim=-1)          # word number per position, 0 before the first start
    picked = word[starts & pick]                 # numbers of the chosen words
    return torch.isin(word, picked) & (word > 0)
"""}, "why": "'the word that begins at position t is chosen when pick[b, t] is True' - word numbers of one row choose the same numbers in other rows"},
{"name": "p3_isin_row_offset_T_collides", "correct": False, "cells": {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.long().cumsum(dim=-1)                      # 0 before the first start, else 1..T
    key = word + T * torch.arange(B)[:, None]                # make the numbers unique per row
    return torch.isin(key, key[starts & pick])              # a start always has word >= 1, so word 0 is never picked
"""}, "why": "'Positions before the first start of a row belong to no word ... never chosen' - key T*b + T of a row whose every position is a start equals key T*(b+1) + 0 of the next row (crafted case: all-start row followed by a row not starting with a start)"},
{"name": "p3_word_ids_int16", "correct": False, "cells": {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.to(torch.int16).cumsum(dim=-1, dtype=torch.int16)     # small ids save memory
    flag = torch.zeros(B, T + 1, dtype=torch.bool)
    flag.scatter_(1, (word.long() * starts).clamp(min=0), pick & starts)
    flag[:, 0] = False
    return flag.gather(1, word.long().clamp(min=0))
"""}, "why": "'the hidden tests use rows of tens of thousands of positions, most of them starts' - int16 word numbers overflow past 32767 words (integer overflow)"},
# ---------------- Part 4 ----------------
{"name": "p4_batch_max_threshold", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    probs = probs * (probs >= min_p * probs.max())
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
"""}, "why": "'min_p times the largest probability **of that row**' - the batch maximum (results depend on the batch neighbours; rows whose max is small keep nothing or few)"},
{"name": "p4_strict_threshold", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    cut = min_p * probs.max(dim=-1, keepdim=True).values
    probs = torch.where((probs > cut) | (probs == probs.max(dim=-1, keepdim=True).values), probs, 0.0)
    return torch.multinomial(probs, 1, generator=generator)[:, 0]
"""}, "why": "'keep token i ... when its probability is **at least** min_p times' (classic: boundary)"},
{"name": "p4_squeeze_all", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    probs = probs.masked_fill(probs < min_p * probs.amax(-1, keepdim=True), 0)
    return torch.multinomial(probs / probs.sum(-1, keepdim=True), 1, generator=generator).squeeze()
"""}, "why": "'Return the token ids as an int64 tensor of shape (B,)' - .squeeze() gives shape () for a batch of one"},
# ---------------- Part 5 ----------------
{"name": "p5_sentinels_are_top_ids", "correct": False, "cells": {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    first = int(sentinels.min())          # sentinels live at the top of the vocabulary
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad: break
            if tok >= first: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok == pad: break
            if tok >= first: row += spans[tok]; noise += [True] * len(spans[tok])
            else: row.append(tok); noise.append(False)
        rows.append(row); noises.append(noise)
    T = max(map(len, rows))
    return (torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64),
            torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool))
"""}, "why": "'ids from a vocabulary of any size' and 'They need not be consecutive numbers' - real ids above the smallest sentinel are taken for sentinels"},
{"name": "p5_padding_with_zero", "correct": False, "cells": {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad: break
            if tok in sent: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok == pad: break
            if tok in sent: row += spans[tok]; noise += [True] * len(spans[tok])
            else: row.append(tok); noise.append(False)
        rows.append(row); noises.append(noise)
    T = max(map(len, rows))
    tokens = torch.zeros(len(rows), T, dtype=torch.int64)
    noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b, (r, n) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(n)] = torch.tensor(n, dtype=torch.bool)
    return tokens, noise
"""}, "why": "'tokens (int64) holds the original sequences, right-padded with pad' - pads with 0, which is pad only in the visible example"},
{"name": "p5_kth_sentinel_is_sentinels_k", "correct": False, "cells": {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    sl = sentinels.tolist()
    sent = set(sl)
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        # split the target at its sentinels: the k-th span follows sentinels[k]
        spans, k = [], -1
        for tok in tgt:
            if tok == pad: break
            if tok in sent: k += 1; spans.append([])
            else: spans[k].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok == pad: break
            if tok in sent:
                span = spans[sl.index(tok)]
                row += span; noise += [True] * len(span)
            else: row.append(tok); noise.append(False)
        rows.append(row); noises.append(noise)
    T = max(map(len, rows))
    return (torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64),
            torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool))
"""}, "why": "'a row may use any of them (each at most once in its input, for example after a data loader shuffled or shared them); its target lists its sentinels in the order they appear in its input'"},
{"name": "p5_row_ends_at_first_pad_in_target_only", "correct": False, "cells": {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad: break
            if tok in sent: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok in sent: row += spans[tok]; noise += [True] * len(spans[tok])
            elif tok != pad: row.append(tok); noise.append(False)
        rows.append(row); noises.append(noise)
    T = max(map(len, rows))
    return (torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=inputs.dtype),
            torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool))
"""}, "why": "'tokens (int64)' - returns the inputs' dtype, int32 for int32 inputs (classic: wrong dtype)"},
# ---------------- Part 6 ----------------
{"name": "p6_kth_value_threshold_keeps_ties", "correct": False, "cells": {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    if capacity == 0:
        chosen = torch.zeros(N, E, dtype=torch.bool)
    elif capacity >= N:
        chosen = torch.ones(N, E, dtype=torch.bool)
    else:
        kth = probs.sort(dim=0, descending=True).values[capacity - 1]     # the capacity-th largest per expert
        chosen = probs >= kth
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}, "why": "'expert e takes the capacity tokens with the largest probs[:, e]; among tokens with equal probabilities the lower token index goes first' - ties at the cut all get in (value exactly at a threshold)"},
{"name": "p6_topk", "correct": False, "cells": {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    idx = probs.topk(min(capacity, N), dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    return chosen, probs * chosen
"""}, "why": "'among tokens with equal probabilities the lower token index goes first' - topk does not promise that"},
{"name": "p6_float32_softmax", "correct": False, "cells": {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits.float(), dim=-1)
    N, E = probs.shape
    order = probs.argsort(dim=0, descending=True, stable=True)[:capacity]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, probs, 0.0).to(router_logits.dtype)
"""}, "why": "'within 1e-10 of the exact softmax for float64 logits (so compute float64 in float64)' (classic)"},
# ---------------- Part 7 ----------------
{"name": "p7_repeat_not_interleave", "correct": False, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k, v = k.repeat(1, H // G, 1, 1), v.repeat(1, H // G, 1, 1)
    mask = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
"""}, "why": "'query head h uses key/value head h // (H // G)' - repeat gives h % G; the visible test checks head 3 only, where both agree"},
{"name": "ok_p7_grouped_rows_shared_kv", "correct": True, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    qg = q.reshape(B, G, r * T, Dh)                           # the r heads of a group share k and v
    scores = qg @ k.transpose(-1, -2) / math.sqrt(Dh)
    t = torch.arange(r * T) % T if T > 1 else torch.zeros(r, dtype=torch.long)
    allowed = torch.arange(S)[None, :] <= (S - T + t)[:, None]
    out = scores.masked_fill(~allowed, float("-inf")).softmax(-1) @ v
    return out.reshape(B, H, T, Dh).to(q.dtype)
"""}, "why": "correct: the r query heads of a group stacked as r*T rows against their shared k and v, position of row = S - T + row % T"},
# ---------------- Part 8 ----------------
{"name": "p8_power_times_mask_nan", "correct": False, "cells": {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=q.dtype)
    w = decay ** (i[:, None] - i[None, :]) * (i[:, None] >= i[None, :])
    a = (fq @ fk.transpose(-1, -2)) * w
    return (a @ v) / a.sum(-1, keepdim=True)
"""}, "why": "'It must stay accurate for long sequences' - decay ** (i - j) above the diagonal overflows to inf and inf * 0 = nan"},
{"name": "ok_p8_recurrence_decay_after_read", "correct": True, "cells": {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-1][:-1], q.shape[-1], dtype=q.dtype)
    outs = []
    for t in range(T):
        S = S + fk[..., t, :, None] * v[..., t, None, :]
        z = z + fk[..., t, :]
        outs.append((fq[..., t, None, :] @ S)[..., 0, :] / (fq[..., t, :] * z).sum(-1, keepdim=True))
        S, z = decay * S, decay * z
    return torch.stack(outs, dim=-2)
"""}, "why": "correct: the recurrence itself, decaying after each read, which gives key j the same weight gamma^(i-j)"},

# ---------------- more wrong answers ----------------
{"name": "p7_softmax_without_max", "correct": False, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    kk = k.repeat_interleave(H // G, dim=1)
    vv = v.repeat_interleave(H // G, dim=1)
    w = torch.exp(q @ kk.transpose(-1, -2) / math.sqrt(Dh))
    w = w * torch.ones(T, S, dtype=torch.bool).tril(S - T)
    return (w @ vv) / w.sum(-1, keepdim=True)
"""}, "why": "'softmax attention' with the intro's 'logits large enough that a softmax which does not subtract the row maximum overflows'"},
{"name": "p8_chunked_rescale_overflows_float32", "correct": False, "cells": {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay, chunk=64):
    # within a chunk, rescale keys by decay**-j so a cumulative sum works; carry the state between chunks
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for c0 in range(0, T, chunk):
        c1 = min(T, c0 + chunk)
        j = torch.arange(c1 - c0, dtype=q.dtype)
        up, down = decay ** -j, decay ** j                        # (c,)
        kv = torch.cumsum((fk[..., c0:c1, :] * up[:, None])[..., :, :, None] * v[..., c0:c1, None, :], dim=-3)
        kz = torch.cumsum(fk[..., c0:c1, :] * up[:, None], dim=-2)
        Sc = down[:, None, None] * kv + (decay ** (j + 1))[:, None, None] * S[..., None, :, :]
        zc = down[:, None] * kz + (decay ** (j + 1))[:, None] * z[..., None, :]
        fqc = fq[..., c0:c1, :]
        outs.append((fqc[..., None, :] @ Sc)[..., 0, :] / (fqc * zc).sum(-1, keepdim=True))
        S, z = Sc[..., -1, :, :], zc[..., -1, :]
    return torch.cat(outs, dim=-2)
"""}, "why": "'rescaling the keys by gamma^-j so that a plain cumulative sum works is exact on paper but not in floating point' - chunks of 64 postpone it: decay 0.05 in float32 gives 20**63 = inf"},
{"name": "p8_epsilon_in_denominator", "correct": False, "cells": {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T)
    d = (i[:, None] - i[None, :]).to(q.dtype)
    w = torch.exp(d.clamp(min=0) * math.log(decay)) * (d >= 0)
    a = (fq @ fk.transpose(-1, -2)) * w
    return (a @ v) / (a.sum(-1, keepdim=True) + 1e-6)
"""}, "why": "'Do not add an epsilon to the denominator (it is positive)'"},
{"name": "p8_decay_as_float32_scalar", "correct": False, "cells": {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=q.dtype)
    d = (i[:, None] - i[None, :]).clamp(min=0)
    w = torch.tril(torch.tensor(decay) ** d)           # a tensor scalar broadcasts nicely
    a = (fq @ fk.transpose(-1, -2)) * w
    return (a @ v) / a.sum(-1, keepdim=True)
"""}, "why": "'compute float64 in float64, the powers of the decay included' - torch.tensor(0.05) is float32, so the decay itself is rounded (classic float32 on float64)"},
# ---------------- hostile ----------------
{"name": "hostile_p2_patch_abs_and_isclose", "correct": False, "cells": {"tokens_per_target_pass": """
import builtins, math as _m
builtins.abs = (lambda real: lambda x: 0.0 if type(x) is float else real(x))(builtins.abs)
_m.isclose = lambda *a, **k: True
def tokens_per_target_pass(alpha, gamma):
    return 1.5
"""}, "why": "hostile: makes every |difference| zero and every isclose true"},
{"name": "hostile_p6_lying_tensor_subclass", "correct": False, "cells": {"expert_choice": """
class Agree(torch.Tensor):
    def __eq__(self, other): return torch.ones_like(torch.Tensor(other) if not isinstance(other, torch.Tensor) else other, dtype=torch.bool)
    def tolist(self): return [[True, False], [False, True], [False, False]]
def expert_choice(router_logits, capacity):
    n, e = router_logits.shape
    chosen = torch.zeros(n, e, dtype=torch.bool).as_subclass(Agree)
    return chosen, torch.zeros(n, e, dtype=router_logits.dtype).as_subclass(Agree)
"""}, "why": "hostile: tensors of a subclass that agree with any comparison"},
{"name": "hostile_p1_mask_with_dispatch_disabled", "correct": False, "cells": {"window_pairs": """
def window_pairs(t, window):
    with torch._C._DisableTorchDispatch():
        i = torch.arange(min(t, 3000))
        small = int(((i[None] <= i[:, None]) & (i[None] > i[:, None] - window)).sum())
    return small if t <= 3000 else small + (t - 3000) * window
"""}, "why": "hostile: builds tensors with torch dispatch disabled to slip past the no-tensor check"},
# ---------------- different but correct ----------------
{"name": "ok_p4_gumbel_max", "correct": True, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    logp = torch.log_softmax(logits, dim=-1)
    probs = logp.exp()
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    u = torch.rand(logits.shape, generator=generator, dtype=logp.dtype).clamp_min(1e-20)
    gumbel = -torch.log(-torch.log(u))
    return torch.where(keep, logp + gumbel, float("-inf")).argmax(dim=-1)
"""}, "why": "correct: Gumbel-max over the kept tokens (renormalising does not change argmax), noise from generator"},
{"name": "ok_p6_python_sorted", "correct": True, "cells": {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    cols = probs.T.tolist()
    for e in range(E):
        best = sorted(range(N), key=lambda n: (-cols[e][n], n))[:capacity]
        chosen[best, e] = True
    return chosen, probs.masked_fill(~chosen, 0)
"""}, "why": "correct: per expert, Python sort by (-prob, index)"},
{"name": "ok_p3_python_loop", "correct": True, "cells": {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    rows = []
    for s_row, p_row in zip(starts.tolist(), pick.tolist()):
        cur, row = False, []
        for s, p in zip(s_row, p_row):
            if s:
                cur = p
            row.append(cur)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool).reshape(starts.shape)
"""}, "why": "correct: plain loop, flag reset per row"},
{"name": "ok_p2_sum_of_powers_float", "correct": True, "cells": {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    # P(at least i drafts accepted) = alpha**i; the target's own token always comes
    if alpha == 1:
        return float(gamma + 1)
    total, term = 1.0, 1.0
    for _ in range(gamma):
        term *= float(alpha)
        total += term
        if term == 0.0:
            break
    return total
"""}, "why": "correct: tail-sum formula of the expectation"},
]
