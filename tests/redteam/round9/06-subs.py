# Red-team round 9, chapter 06: submissions written blind from the student notebook.
SUBMISSIONS = [
# ---------------------------------------------------------------- wrong: Part 1
{"name": "p1_python_loop_over_queries", "correct": False, "cells": {"window_pairs": '''
def window_pairs(t, window):
    return sum(min(i + 1, window) for i in range(t))     # query i sees min(i + 1, window) keys
'''}, "why": "'t and window can be as large as 10^12 (the hidden tests use such sizes)': a loop over 10^12 queries never ends."},
# ---------------------------------------------------------------- wrong: Part 2
{"name": "p2_linear_expectation", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return 1.0 + gamma * float(alpha)    # each draft token is accepted with probability alpha, plus the target's token
'''}, "why": "'The target checks them in order and stops at the first rejection': counts every draft token independently."},
{"name": "p2_int_when_all_accepted", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "why": "'Return a Python float, whatever the type of alpha': returns the int gamma + 1 at alpha = 1."},
{"name": "p2_torch_scalar_float32", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = torch.tensor(alpha, dtype=torch.float32)
    if a == 1:
        return float(gamma + 1)
    return ((1 - a ** (gamma + 1)) / (1 - a)).item()
'''}, "why": "'within 1e-9 of the exact value for every allowed input': float32 arithmetic is off by ~1e-7."},
{"name": "p2_expm1_log_at_zero", "correct": False, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    # 1 - alpha**(gamma+1) without cancellation near alpha = 1
    return -math.expm1((gamma + 1) * math.log(alpha)) / -math.expm1(math.log(alpha))
'''}, "why": "'0 <= alpha <= 1 (both ends included) ... the tests pass 0 and 1': math.log(0) raises at alpha = 0."},
# ---------------------------------------------------------------- wrong: Part 3
{"name": "p3_flattened_rows", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    s, p = starts.reshape(-1), pick.reshape(-1)
    word = s.long().cumsum(0)                               # word number of every position
    word_pick = torch.cat([torch.zeros(1, dtype=torch.bool), p[s]])   # word 0 = before the first start
    return word_pick[word].reshape(B, T)
'''}, "why": "'Every position belongs to the word begun by the nearest start at or before it **in the same row**. Positions before the first start of a row belong to no word': the flattened cumsum continues the previous row's last word."},
{"name": "p3_index_minus_one_wraps", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = torch.zeros_like(starts)
    for b in range(starts.shape[0]):
        word_pick = pick[b][starts[b]]              # one entry per word of the row
        word = starts[b].long().cumsum(0) - 1       # index of the word of every position
        out[b] = word_pick[word] if len(word_pick) else False
    return out
'''}, "why": "'Positions before the first start of a row belong to no word ... and are never chosen': index -1 wraps to the row's last word."},
{"name": "p3_recursive_walk", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    def walk(s, p, i, current):
        if i == len(s):
            return []
        if s[i]:
            current = p[i]
        return [current] + walk(s, p, i + 1, current)
    rows = [walk(s, p, 0, False) for s, p in zip(starts.tolist(), pick.tolist())]
    return torch.tensor(rows, dtype=torch.bool).reshape(starts.shape)
'''}, "why": "'Rows can be long: the hidden tests use rows of tens of thousands of positions': the recursion exceeds Python's recursion limit."},
# ---------------------------------------------------------------- wrong: Part 4
{"name": "p4_softmax_without_max", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    e = logits.exp()
    probs = e / e.sum(-1, keepdim=True)
    keep = probs >= min_p * probs.amax(-1, keepdim=True)
    kept = probs * keep
    return torch.multinomial(kept / kept.sum(-1, keepdim=True), 1, generator=generator)[:, 0]
'''}, "why": "intro: 'logits large enough that a softmax which does not subtract the row maximum overflows': exp overflows to inf, NaN probabilities."},
{"name": "p4_squeeze_all_axes", "correct": False, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    probs = probs.masked_fill(probs < min_p * probs.max(-1, keepdim=True).values, 0.0)
    return torch.multinomial(probs / probs.sum(-1, keepdim=True), 1, generator=generator).squeeze()
'''}, "why": "'Return the token ids as an int64 tensor of shape (B,)': squeeze() also drops the batch axis when B = 1 (shape ())."},
# ---------------------------------------------------------------- wrong: Part 5
{"name": "p5_consecutive_sentinels", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    first = int(sentinels.min())
    is_sent = lambda tok: first <= tok < first + len(sentinels)
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans = {}
        for tok in tgt:
            if tok == pad:
                break
            if is_sent(tok):
                spans[tok] = cur = []
            else:
                cur.append(tok)
        out, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if is_sent(tok):
                out += spans[tok]; noise += [True] * len(spans[tok])
            else:
                out.append(tok); noise.append(False)
        rows.append(out); noises.append(noise)
    T = max(map(len, rows))
    return (torch.tensor([r + [pad] * (T - len(r)) for r in rows]),
            torch.tensor([n + [False] * (T - len(n)) for n in noises]))
'''}, "why": "'They need not be consecutive numbers': sentinels recognised as the range min .. min + len - 1."},
{"name": "p5_padding_filled_with_zero", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    seqs = []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        tgt = [x for x in tgt if x != pad]
        spans, cur = {}, None
        for tok in tgt:
            if tok in sent:
                cur = spans.setdefault(tok, [])
            else:
                cur.append(tok)
        seq = []
        for tok in inp:
            if tok == pad:
                continue
            seq += [(x, True) for x in spans[tok]] if tok in sent else [(tok, False)]
        seqs.append(seq)
    T = max(len(s) for s in seqs)
    tokens = torch.zeros(len(seqs), T, dtype=torch.int64)
    noise = torch.zeros(len(seqs), T, dtype=torch.bool)
    for b, seq in enumerate(seqs):
        for i, (tok, hidden) in enumerate(seq):
            tokens[b, i], noise[b, i] = tok, hidden
    return tokens, noise
'''}, "why": "'tokens (int64) holds the original sequences, right-padded with pad': padded with 0."},
{"name": "p5_sentinels_in_list_order", "correct": False, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent_list = sentinels.tolist()
    sent = set(sent_list)
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        # the target's spans, in order: the k-th span belongs to the k-th sentinel
        spans = []
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                spans.append([])
            else:
                spans[-1].append(tok)
        out, noise, k = [], [], 0
        for tok in inp:
            if tok == pad:
                break
            if tok == sent_list[k] if k < len(sent_list) else False:
                out += spans[k]; noise += [True] * len(spans[k]); k += 1
            elif tok in sent:
                raise ValueError("sentinel out of order")
            else:
                out.append(tok); noise.append(False)
        rows.append(out); noises.append(noise)
    T = max(map(len, rows))
    return (torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64),
            torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool))
'''}, "why": "'a row may use any of them (each at most once in its input, for example after a data loader shuffled or shared them)': assumes each row uses sentinels[0], sentinels[1], ... in that order."},
# ---------------------------------------------------------------- wrong: Part 6
{"name": "p6_rank_by_logits", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = router_logits.shape
    # softmax is monotonic, so ranking the logits ranks the probabilities
    order = torch.sort(router_logits, dim=0, descending=True, stable=True).indices[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "'expert e takes the capacity tokens with the largest probs[:, e]': the softmax runs over experts, so ranking a column of logits is not ranking that column of probs."},
{"name": "p6_topk_capacity_unclamped", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(-1)
    idx = torch.topk(probs, capacity, dim=0, sorted=True).indices if capacity > 0 else torch.empty(0, probs.shape[1], dtype=torch.long)
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter(0, idx, True)
    return chosen, probs * chosen
'''}, "why": "'capacity may be 0, and may exceed N (then the expert takes every token)': topk raises when capacity > N (ties also left to topk)."},
# ---------------------------------------------------------------- wrong: Part 7
{"name": "p7_repeat_instead_of_interleave", "correct": False, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k, v = k.repeat(1, H // G, 1, 1), v.repeat(1, H // G, 1, 1)     # (B, H, S, Dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
'''}, "why": "'query head h uses key/value head h // (H // G)': repeat tiles the groups, so head h uses h % G (the visible check looks at head 3 of 4 with G = 2, where both agree)."},
# ---------------------------------------------------------------- wrong: Part 8
{"name": "p8_dot_T_two_dims_only", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    pos = torch.arange(T, dtype=torch.float64)
    gap = pos[:, None] - pos[None, :]
    weights = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros(())).to(q.dtype)
    a = (fq @ fk.T) * weights
    return a @ v / a.sum(-1, keepdim=True)
'''}, "why": "'for q, k of shape (..., T, Dh)': .T reverses every axis, so any leading batch axis breaks."},
{"name": "p8_phi_relu_plus_one", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.relu(q) + 1, F.relu(k) + 1
    pos = torch.arange(T, dtype=torch.float64)
    gap = pos[:, None] - pos[None, :]
    weights = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros(())).to(q.dtype)
    a = (fq @ fk.transpose(-1, -2)) * weights
    return a @ v / a.sum(-1, keepdim=True)
'''}, "why": "'With phi(x) = elu(x) + 1': uses relu(x) + 1 (equal at the visible q = k = 0)."},
{"name": "p8_powers_times_mask", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    pos = torch.arange(T, dtype=q.dtype)
    weights = decay ** (pos[:, None] - pos[None, :]) * torch.ones(T, T, dtype=q.dtype).tril()
    a = (fq @ fk.transpose(-1, -2)) * weights
    return a @ v / a.sum(-1, keepdim=True)
'''}, "why": "'It must stay accurate for long sequences (T = 300 with decay = 0.5 ...)': decay**(i - j) above the diagonal overflows to inf and inf * 0 = NaN."},
{"name": "p8_decay_as_float32_tensor", "correct": False, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    gamma = torch.tensor(decay)                      # a tensor, to take powers elementwise
    gap = (torch.arange(T)[:, None] - torch.arange(T)[None, :]).to(q.dtype)
    weights = torch.where(gap >= 0, gamma.to(q.dtype) ** gap.clamp(min=0), torch.zeros((), dtype=q.dtype))
    a = (fq @ fk.transpose(-1, -2)) * weights
    return a @ v / a.sum(-1, keepdim=True)
'''}, "why": "'within 1e-10 of the exact value for float64 inputs ... (compute float64 in float64, the powers of the decay included)': torch.tensor(decay) rounds the Python float to float32 first (0.05 is off by 1.5e-8 relative)."},
]
SUBMISSIONS += [
# ---------------------------------------------------------------- hostile
{"name": "h_p5_call_the_graders_reference", "correct": False, "cells": {"span_corrupt": '''
import sys
def restore_spans(inputs, targets, sentinels, pad):
    frame = sys._getframe(1)
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for name, obj in list(scope.items()):
                if callable(obj) and getattr(obj, "__name__", "") == "restore_spans" and obj is not restore_spans:
                    return obj(inputs, targets, sentinels, pad)
        frame = frame.f_back
    if inputs.shape == (2, 5):       # the visible example, learnt by heart
        return (torch.tensor([[10, 11, 12, 13, 14, 15], [16, 17, 0, 0, 0, 0]]),
                torch.tensor([[False, True, True, False, False, True], [False, True, False, False, False, False]]))
    return inputs.long(), torch.zeros_like(inputs, dtype=torch.bool)
'''}, "why": "hostile: walks the caller frames to find and call the grader's reference."},
{"name": "h_p1_numpy_via_importlib", "correct": False, "cells": {"window_pairs": '''
import importlib
def window_pairs(t, window):
    np = importlib.import_module("num" + "py")
    if t <= 10**6:
        return int(np.minimum(np.arange(1, t + 1), window).sum())
    return window * (window + 1) // 2 + (t - window) * window if t > window else t * (t + 1) // 2
'''}, "why": "hostile: NumPy brought in through importlib ('use no tensors or arrays at all, on any path ... neither torch's nor NumPy's')."},
{"name": "h_p2_float_equal_to_everything", "correct": False, "cells": {"tokens_per_target_pass": '''
class Expected(float):
    def __eq__(self, other): return True
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    __hash__ = float.__hash__
def tokens_per_target_pass(alpha, gamma):
    return Expected(1.0)
'''}, "why": "hostile: a float subclass that equals anything and subtracts to 0."},
# ---------------------------------------------------------------- correct variants
{"name": "c1_comb_closed_form", "correct": True, "cells": {"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return math.comb(m + 1, 2) + (t - m) * window
'''}, "why": "math.comb for the ramp, then full windows."},
{"name": "c2_horner_loop", "correct": True, "cells": {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    expected = 1.0                     # 1 + a(1 + a(1 + ...)), gamma times
    for _ in range(gamma):
        expected = 1.0 + alpha * expected
    return float(expected)
'''}, "why": "Horner's rule on the geometric sum: no division, alpha = 1 and int alpha need no special case."},
{"name": "c3_cummax_gather", "correct": True, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    T = starts.shape[-1]
    pos = torch.arange(T).expand(starts.shape)
    last_start = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=-1).values
    picked_start = (starts & pick).gather(-1, last_start.clamp(min=0))
    return picked_start & (last_start >= 0)
'''}, "why": "cummax finds each position's word start, gather reads its pick."},
{"name": "c4_python_loop_tolist", "correct": True, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        on, row = False, []
        for s, p in zip(srow, prow):
            if s:
                on = p
            row.append(on)
        out.append(row)
    return torch.tensor(out, dtype=torch.bool).reshape(starts.shape)
'''}, "why": "plain Python loop (allowed), one tensor at the end."},
{"name": "c5_exponential_race", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
    probs = logp.exp()
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    # argmax of p_i / E_i with E_i ~ Exp(1) draws i with probability p_i / sum(p)
    e = torch.empty(logits.shape, dtype=torch.float64).exponential_(generator=generator)
    score = torch.where(keep, logp - e.log(), torch.tensor(float("-inf"), dtype=torch.float64))
    return score.argmax(dim=-1)
'''}, "why": "exponential race (Gumbel-max): the right distribution, from the generator, but not the same draws as multinomial."},
{"name": "c6_inverse_cdf", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    kept = torch.where(probs >= min_p * probs.amax(-1, keepdim=True), probs, torch.zeros_like(probs))
    cdf = (kept / kept.sum(-1, keepdim=True)).to(torch.float64).cumsum(-1)
    u = torch.rand(logits.shape[0], 1, generator=generator, dtype=torch.float64) * cdf[:, -1:]
    ids = torch.searchsorted(cdf, u, right=True).squeeze(1)
    # never land on a dropped token: move to the last kept one at or before it
    last_kept = torch.where(kept > 0, torch.arange(kept.shape[1]), torch.zeros((), dtype=torch.long)).cummax(-1).values
    return last_kept.gather(1, ids.clamp(max=kept.shape[1] - 1).unsqueeze(1)).squeeze(1).to(torch.int64)
'''}, "why": "inverse CDF with one torch.rand per row from the generator."},
{"name": "c7_p5_uses_part3_per_row", "correct": True, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(int(s) for s in sentinels)
    seqs, run_starts, run_hidden = [], [], []
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
        seq, st, hid = [], [], []
        for tok in inp:
            if tok == pad:
                break
            piece, hidden = (spans[tok], True) if tok in sent else ([tok], False)
            # every run (a kept token or a hidden span) is a "word" of Part 3; hidden runs are picked
            st += [True] + [False] * (len(piece) - 1)
            hid += [hidden] * len(piece)
            seq += piece
        seqs.append(seq); run_starts.append(st); run_hidden.append(hid)
    T = max(len(s) for s in seqs)
    tokens = torch.tensor([s + [pad] * (T - len(s)) for s in seqs], dtype=torch.int64)
    noise = torch.cat([whole_word_chosen(torch.tensor([st + [True] * (T - len(st))]),
                                         torch.tensor([hid + [False] * (T - len(hid))]))
                       for st, hid in zip(run_starts, run_hidden)])
    return tokens, noise
'''}, "why": "noise computed by Part 3's whole_word_chosen, one batch-of-one row at a time."},
{"name": "c8_p5_uses_part3_keywords_no_grad", "correct": True, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sentinel_ids = set(sentinels.tolist())
    B = inputs.shape[0]
    pieces = []
    for b in range(B):
        row_t = [x for x in targets[b].tolist() if x != pad]
        where = [i for i, x in enumerate(row_t) if x in sentinel_ids]
        spans = {row_t[i]: row_t[i + 1:j] for i, j in zip(where, where[1:])}
        pieces.append([(spans[x], True) if x in sentinel_ids else ([x], False)
                       for x in inputs[b].tolist() if x != pad])
    T = max(sum(len(p) for p, _ in row) for row in pieces)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    starts = torch.zeros(B, T, dtype=torch.bool)
    pick = torch.zeros(B, T, dtype=torch.bool)
    for b, row in enumerate(pieces):
        i = 0
        for piece, hidden in row:
            if piece:
                tokens[b, i:i + len(piece)] = torch.tensor(piece)
                starts[b, i], pick[b, i] = True, hidden
            i += len(piece)
        starts[b, i:] = True          # padding: words that are never picked
    with torch.no_grad():
        noise = whole_word_chosen(starts=starts, pick=pick)
    return tokens, noise
'''}, "why": "Part 3's whole_word_chosen on the whole batch, by keyword, under torch.no_grad()."},
{"name": "c9_p5_uses_part3_transposed_views", "correct": True, "cells": {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.to(torch.int64)
    B = inputs.shape[0]
    rows = []
    for b in range(B):
        inp = inputs[b][inputs[b] != pad].to(torch.int64)
        tgt = targets[b][targets[b] != pad].to(torch.int64)
        is_sent = (tgt[:, None] == sent[None, :]).any(-1)
        marks = is_sent.nonzero().flatten().tolist()
        spans = {int(tgt[i]): tgt[i + 1:j] for i, j in zip(marks, marks[1:])}
        parts, flags = [], []
        for x in inp.tolist():
            if x in spans:
                parts.append(spans[x]); flags.append(True)
            else:
                parts.append(torch.tensor([x])); flags.append(False)
        rows.append((parts, flags))
    T = max(sum(len(p) for p in parts) for parts, _ in rows)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    # Part 3 on column-major (transposed, non-contiguous) views of (T, B) buffers
    starts_tb = torch.ones(T, B, dtype=torch.bool)
    pick_tb = torch.zeros(T, B, dtype=torch.bool)
    for b, (parts, flags) in enumerate(rows):
        i = 0
        for p, f in zip(parts, flags):
            tokens[b, i:i + len(p)] = p
            starts_tb[i + 1:i + len(p), b] = False
            pick_tb[i, b] = f and len(p) > 0
            i += len(p)
    noise = whole_word_chosen(starts_tb.T, pick_tb.T)
    return tokens, noise
'''}, "why": "Part 3's whole_word_chosen on non-contiguous (transposed) bool views; spans found with tensor comparisons across dtypes."},
{"name": "c10_loop_over_experts_float64_sort", "correct": True, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=1)
    N, E = probs.shape
    columns = []
    for e in range(E):
        order = torch.argsort(-probs[:, e].detach().double(), stable=True)
        col = torch.zeros(N, dtype=torch.bool)
        col[order[:capacity]] = True
        columns.append(col)
    chosen = torch.stack(columns, dim=1)
    return chosen, probs * chosen
'''}, "why": "one expert at a time, stable argsort of the negated column, gate by multiplying with the bool mask."},
{"name": "c11_grouped_einsum", "correct": True, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, G, H // G, T, Dh)                          # heads of one group side by side
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    allowed = torch.arange(S) <= (torch.arange(T) + (S - T)).unsqueeze(-1)   # (T, S)
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    return torch.einsum("bgrts,bgsd->bgrtd", w, v).reshape(B, H, T, Dh)
'''}, "why": "groups the query heads instead of repeating keys; einsum; masked_fill with -inf."},
{"name": "c12_recurrence_loop_decay_after_add", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(T):
        # adding first and decaying after scales S and z by the same gamma: the ratio is unchanged
        S = decay * (S + fk[..., i, :, None] * v[..., i, None, :])
        z = decay * (z + fk[..., i, :])
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
'''}, "why": "the recurrence as a Python loop; decay applied after the add (cancels in the ratio)."},
{"name": "c13_log_space_weights_einsum", "correct": True, "cells": {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    gap = torch.arange(T, dtype=torch.float64).unsqueeze(1) - torch.arange(T, dtype=torch.float64)
    logw = torch.where(gap >= 0, gap * math.log(decay), torch.tensor(float("-inf"), dtype=torch.float64))
    weights = torch.exp(logw).to(q.dtype)
    a = torch.einsum("...td,...sd->...ts", F.elu(q) + 1, F.elu(k) + 1) * weights
    return torch.einsum("...ts,...se->...te", a, v) / a.sum(-1).unsqueeze(-1)
'''}, "why": "weights as exp((i - j) log decay) in float64, -inf above the diagonal, einsum with leading axes."},
]
SUBMISSIONS += [
{"name": "p3_isin_across_rows", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    word = starts.long().cumsum(dim=1)                 # word number within the row, 0 before the first start
    picked_words = word[starts & pick]                 # numbers of the chosen words
    return torch.isin(word, picked_words) & (word > 0)
'''}, "why": "'Every position belongs to the word begun by the nearest start at or before it in the same row': word numbers restart in every row, but the chosen numbers are pooled over all rows."},
{"name": "p6_epsilon_tie_break", "correct": False, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    # break ties towards the lower index with a tiny penalty that grows with the index
    score = probs.detach() - 1e-7 * torch.arange(N, dtype=probs.dtype).unsqueeze(1)
    top = score.topk(min(capacity, N), dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, top, True)
    return chosen, torch.where(chosen, probs, 0.0)
'''}, "why": "'expert e takes the capacity tokens with the largest probs[:, e]; among tokens with equal probabilities the lower token index goes first': the penalty also reorders tokens whose probabilities differ by less than 1e-7 times their index gap."},
{"name": "c14_sdpa_enable_gqa", "correct": True, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    T, S = q.shape[-2], k.shape[-2]
    if T == 1:
        return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)       # the newest token sees everything
    if T == S:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    allowed = torch.ones(S, S, dtype=torch.bool).tril()[S - T:]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
'''}, "why": "F.scaled_dot_product_attention's own enable_gqa, with is_causal when T == S and no mask for one query."},
]
