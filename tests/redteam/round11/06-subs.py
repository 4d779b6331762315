SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- Part 1 ----------------
add("p1_float_triangle", False, {"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return int(m * (m + 1) / 2) + (t - m) * window
'''}, "Breaks 'count with Python integer arithmetic (exactly: not through float ...)' (closed class: int through float).")

add("p1_sum_range_slow", False, {"window_pairs": '''
def window_pairs(t, window):
    m = min(t, window)
    return sum(range(1, m + 1)) + (t - m) * window
'''}, "Breaks 't and window can be as large as 10^15 (the hidden tests use such sizes)' and 'a call should take a fraction of a second': exact, but a sum over 10^15 terms never ends.")

add("p1_ok_decimal_localcontext", True, {"window_pairs": '''
import decimal

def window_pairs(t, window):
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        m = decimal.Decimal(min(t, window))
        total = m * (m + 1) / 2 + (decimal.Decimal(t) - m) * window
        return int(total)
'''}, "decimal with a local context of 80 digits (the text rules out only the default 28), exact.")

add("p1_ok_trapezoid_branch", True, {"window_pairs": '''
def window_pairs(t, window):
    if t < window:
        return t * (t + 1) >> 1
    return (2 * t - window + 1) * window // 2
'''}, "Trapezoid closed form, shift for the halving.")

# ---------------- Part 2 ----------------
add("p2_linear_expectation", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    # gamma drafts, each accepted with probability alpha, plus the target's own token
    return float(gamma * alpha + 1)
'''}, "Breaks 'The target checks them in order and stops at the first rejection': counts accepted drafts as if independent of earlier rejections (gives 1.5 at alpha=0.5, gamma=1).")

add("p2_near_one_threshold", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha >= 0.999:   # avoid dividing by (almost) zero
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "Breaks 'within 1e-9 of the exact value for every allowed input (apart from alpha = 1 itself, the tests use no alpha closer to 1 than 0.999)': alpha = 0.999 is allowed and gets gamma + 1.")

add("p2_log_domain", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    return (1.0 - math.exp((gamma + 1) * math.log(alpha))) / (1.0 - alpha)
'''}, "Breaks '0 <= alpha <= 1 (both ends included)': math.log(0) raises at alpha = 0.")

add("p2_ok_expm1", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    if a == 0.0:
        return 1.0
    if a == 1.0:
        return gamma + 1.0
    return -math.expm1((gamma + 1) * math.log(a)) / (1.0 - a)
'''}, "expm1/log closed form with both ends special-cased.")

add("p2_ok_geometric_loop", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    total, reach = 1.0, 1.0          # the target's own token always comes
    for _ in range(gamma):
        reach *= alpha               # probability that this draft is reached and accepted
        total += reach
    return float(total)
'''}, "Sum of P(at least i accepted) by a loop (gamma terms).")

add("p2_hostile_abs", False, {"tokens_per_target_pass": '''
import builtins
builtins.abs = lambda x: 0.0

def tokens_per_target_pass(alpha, gamma):
    return 0.0
'''}, "HOSTILE: replaces the builtin abs so the visible check passes, returns 0.")

# ---------------- Part 3 ----------------
add("p3_flat_cummax_leaks_rows", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    s, p = starts.reshape(-1), (pick & starts).reshape(-1)
    last = torch.where(s, torch.arange(B * T), -1).cummax(0).values
    chosen = (last >= 0) & p[last.clamp(min=0)]
    return chosen.reshape(B, T)
'''}, "Breaks 'Every position belongs to the word begun by the nearest start at or before it in the same row. Positions before the first start of a row belong to no word': flattening lets a row's leading positions join the previous row's last word.")

add("p3_word_table_shared", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    wid = starts.long().cumsum(-1)                    # 0 before the first start, then 1, 2, ...
    table = torch.zeros(int(wid.max()) + 1, dtype=torch.bool)
    table[wid[starts]] = pick[starts]                  # chosen flag of every word
    table[0] = False
    return table[wid]
'''}, "Breaks 'in the same row': one table of word flags for the whole batch, so word k of one row takes the flag of word k of another row.")

add("p3_ok_word_ids_scatter", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    wid = torch.cumsum(starts.to(torch.int64), dim=1)                 # (B, T), 0 = no word
    flags = torch.zeros(B, T + 1, dtype=torch.bool)
    flags.scatter_(1, torch.where(starts, wid, 0), pick & starts)      # writes into column 0 are junk
    flags[:, 0] = False
    return torch.gather(flags, 1, wid)
'''}, "Word ids by cumsum, a per-row flag table by scatter, gathered back; column 0 reset.")

add("p3_ok_row_loop_lists", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = []
    for srow, prow in zip(starts.tolist(), pick.tolist()):
        cur, row = False, []
        for s, p in zip(srow, prow):
            if s:
                cur = p
            row.append(cur)
        out.append(row)
    return torch.tensor(out, dtype=torch.bool).reshape(starts.shape)
'''}, "Plain Python loop over rows and positions on lists (a Python loop is allowed).")

# ---------------- Part 4 ----------------
add("p4_one_uniform_all_rows", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    kept = torch.where(probs >= min_p * probs.amax(-1, keepdim=True), probs, 0.0)
    cdf = (kept / kept.sum(-1, keepdim=True)).cumsum(-1)
    u = torch.rand(1, generator=generator, dtype=cdf.dtype)          # one draw, used for every row
    idx = torch.searchsorted(cdf, u.expand(cdf.shape[0], 1).contiguous()).squeeze(-1)
    return idx.clamp(max=cdf.shape[-1] - 1).to(torch.int64)
'''}, "Breaks 'draw one token per row': the rows share one uniform, so their draws are not independent (each row's marginal is right).")

add("p4_argmax_prob_times_uniform", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    kept = torch.where(probs >= min_p * probs.amax(-1, keepdim=True), probs, 0.0)
    u = torch.rand(kept.shape, generator=generator, dtype=kept.dtype)
    return (kept * u).argmax(dim=-1)          # random scores, likely tokens usually win
'''}, "Breaks 'draw one token per row from the kept probabilities, renormalised to sum to 1': argmax(p*u) does not draw token i with probability p_i.")

add("p4_strict_threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs > min_p * probs.max(dim=-1, keepdim=True).values
    kept = probs * keep
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''}, "Breaks 'at least min_p times the largest probability' (closed class: threshold; drops ties, e.g. min_p = 1).")

add("p4_global_max", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max()
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
'''}, "Breaks 'at least min_p times the largest probability **of that row**': the maximum is taken over the whole batch (a row with a flat distribution loses tokens, or all of them).")

add("p4_ok_gumbel_max", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    logp = torch.log_softmax(logits, dim=-1)
    probs = logp.exp()
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    u = torch.rand(logp.shape, generator=generator, dtype=logp.dtype).clamp_(min=torch.finfo(logp.dtype).tiny)
    gumbel = -torch.log(-torch.log(u))
    return torch.where(keep, logp + gumbel, float("-inf")).argmax(dim=-1)
'''}, "Gumbel-max trick with uniforms from the generator: exact distribution, different draws than multinomial.")

add("p4_ok_rejection", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    out = torch.multinomial(probs, 1, generator=generator).squeeze(-1)
    bad = ~keep.gather(-1, out[:, None]).squeeze(-1)
    while bad.any():                       # redraw rows whose token was dropped
        out[bad] = torch.multinomial(probs[bad], 1, generator=generator).squeeze(-1)
        bad = ~keep.gather(-1, out[:, None]).squeeze(-1)
    return out
'''}, "Rejection sampling from the full softmax: conditioned on acceptance it is the renormalised kept distribution.")

# ---------------- Part 5 ----------------
add("p5_sentinels_are_top_ids", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    first = int(sentinels.min())        # T5 puts its sentinels at the top of the vocabulary
    rows_t, rows_n = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad: break
            if tok >= first: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok == pad: break
            if tok >= first: toks += spans[tok]; noise += [True] * len(spans[tok])
            else: toks.append(tok); noise.append(False)
        rows_t.append(toks); rows_n.append(noise)
    T = max(len(r) for r in rows_t)
    return (torch.tensor([r + [pad] * (T - len(r)) for r in rows_t], dtype=torch.int64),
            torch.tensor([r + [False] * (T - len(r)) for r in rows_n], dtype=torch.bool))
'''}, "Breaks 'ids from a vocabulary of any size' and 'They need not be consecutive numbers': treats every id at or above the smallest sentinel as a sentinel.")

add("p5_pad_zero", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows_t, rows_n = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == 0: break
            if tok in sent: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        toks, noise = [], []
        for tok in inp:
            if tok == 0: break
            if tok in sent: toks += spans[tok]; noise += [True] * len(spans[tok])
            else: toks.append(tok); noise.append(False)
        rows_t.append(toks); rows_n.append(noise)
    T = max(len(r) for r in rows_t)
    return (torch.tensor([r + [pad] * (T - len(r)) for r in rows_t], dtype=torch.int64),
            torch.tensor([r + [False] * (T - len(r)) for r in rows_n], dtype=torch.bool))
'''}, "Breaks 'Each row is right-padded with pad (a Python int)': padding detected as id 0.")

add("p5_sentinel_order_assumed", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sl = sentinels.tolist()
    rows_t, rows_n = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        inp = [x for x in inp if x != pad]; tgt = [x for x in tgt if x != pad]
        n = sum(1 for x in inp if x in sl)                 # spans in this row: sentinels 0 .. n-1, final n
        spans = [tgt[tgt.index(sl[i]) + 1: tgt.index(sl[i + 1])] for i in range(n)]
        toks, noise = [], []
        for x in inp:
            if x in sl:
                sp = spans[sl.index(x)]; toks += sp; noise += [True] * len(sp)
            else:
                toks.append(x); noise.append(False)
        rows_t.append(toks); rows_n.append(noise)
    T = max(len(r) for r in rows_t)
    return (torch.tensor([r + [pad] * (T - len(r)) for r in rows_t], dtype=torch.int64),
            torch.tensor([r + [False] * (T - len(r)) for r in rows_n], dtype=torch.bool))
'''}, "Breaks 'a row may use any of them (each at most once in its input, for example after a data loader shuffled or shared them)': assumes a row with n spans uses sentinels[0..n-1] and ends with sentinels[n].")

add("p5_ok_index_walk", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    is_sent = {int(s): True for s in sentinels}
    out_rows = []
    for b in range(inputs.shape[0]):
        inp = [int(x) for x in inputs[b] if int(x) != pad]
        tgt = [int(x) for x in targets[b] if int(x) != pad]
        marks = [i for i, x in enumerate(tgt) if x in is_sent]          # span j is tgt[marks[j]+1 : marks[j+1]]
        j, toks, noise = 0, [], []
        for x in inp:
            if x in is_sent:
                span = tgt[marks[j] + 1: marks[j + 1]]; j += 1
                toks.extend(span); noise.extend([True] * len(span))
            else:
                toks.append(x); noise.append(False)
        out_rows.append((toks, noise))
    T = max(len(t) for t, _ in out_rows)
    tokens = torch.full((len(out_rows), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(out_rows), T, dtype=torch.bool)
    for b, (t, n) in enumerate(out_rows):
        tokens[b, :len(t)] = torch.tensor(t, dtype=torch.int64); noise[b, :len(n)] = torch.tensor(n, dtype=torch.bool)
    return tokens, noise
'''}, "Pairs spans by order of appearance (the text guarantees the target lists them in input order), fills preallocated tensors.")

# ---------------- Part 6 ----------------
add("p6_rank_by_logits", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    # softmax is monotonic, so ranking the logits ranks the probabilities
    order = torch.sort(router_logits, dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "Breaks 'expert e takes the capacity tokens with the largest probs[:, e]': the softmax runs along a row, so it keeps order within a token, not within an expert's column.")

add("p6_masked_fill_inplace_softmax", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    gate = probs.masked_fill_(~chosen, 0.0)        # no copy needed
    return chosen, gate
'''}, "Breaks 'gradients must flow through gate ... the hidden tests compare its gradient': masked_fill_ changes the softmax output that softmax saved, so backward raises.")

add("p6_ok_rank_of_rank", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(-1)
    N = probs.shape[0]
    idx = torch.arange(N, dtype=probs.dtype).unsqueeze(1).expand_as(probs)
    # rank of each token inside its column: count tokens that beat it (higher prob, or equal and lower index)
    beats = (probs.unsqueeze(0) > probs.unsqueeze(1)) | ((probs.unsqueeze(0) == probs.unsqueeze(1)) & (idx.unsqueeze(0) < idx.unsqueeze(1)))
    rank = beats.sum(1)
    chosen = rank < capacity
    return chosen, probs * chosen
'''}, "Counts for each token how many tokens beat it in its column (pairwise comparison), multiplies instead of where.")

# ---------------- Part 7 ----------------
add("p7_repeat_tiles_heads", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat(1, H // G, 1, 1); v = v.repeat(1, H // G, 1, 1)
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
'''}, "Breaks 'query head h uses key/value head h // (H // G)': repeat tiles the groups (head h gets h % G), which agrees with the visible check for head 3 of 4 with G = 2.")

add("p7_max_over_masked", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1); v = v.repeat_interleave(H // G, dim=1)
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    s = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    e = torch.exp(s - s.amax(-1, keepdim=True)) * allowed
    return (e / e.sum(-1, keepdim=True)) @ v
'''}, "Breaks 'also for scores of about a thousand, where no gradient may be NaN or infinite': the max includes masked keys, so a row can underflow to 0/0.")

add("p7_ok_grouped_einsum", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    qg = q.reshape(B, G, H // G, T, Dh)                      # heads g*r .. g*r + r - 1 share group g
    s = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    future = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    w = torch.softmax(s.masked_fill(future, float("-inf")), dim=-1)
    return torch.einsum("bgrts,bgsd->bgrtd", w, v).reshape(B, H, T, Dh)
'''}, "Groups the query heads instead of repeating keys; einsum; masked_fill(-inf).")

add("p7_hostile_patch_assert_close", False, {"gqa_cached_attention": '''
torch.testing.assert_close = lambda *args, **kwargs: None

def gqa_cached_attention(q, k, v):
    return torch.zeros_like(q)
'''}, "HOSTILE: disables torch.testing.assert_close, returns zeros.")

# ---------------- Part 8 ----------------
add("p8_rescale_cumsum", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    q, k, v = q.double(), k.double(), v.double()
    T = q.shape[-2]
    g = decay ** torch.arange(T, dtype=torch.float64)             # gamma^j
    pq, pk = F.elu(q) + 1, (F.elu(k) + 1) / g[:, None]            # keys scaled by gamma^-j
    S = torch.cumsum(pk.unsqueeze(-1) * v.unsqueeze(-2), dim=-3)
    z = torch.cumsum(pk, dim=-2)
    num = torch.einsum("...td,...tdv->...tv", pq, S) * g[:, None]
    den = (pq * z).sum(-1, keepdim=True) * g[:, None]
    return (num / den).to(dt)
'''}, "Breaks 'rescaling the keys by gamma^-j so that a plain cumulative sum works is exact on paper but not in floating point ... only postpones the overflow'.")

add("p8_recurrence_inplace_state", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    pq, pk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(T):
        S.mul_(decay).add_(pk[..., i, :, None] * v[..., i, None, :])     # update the state in place
        z.mul_(decay).add_(pk[..., i, :])
        num = (pq[..., i, :, None] * S).sum(-2)
        den = (pq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
'''}, "Breaks 'Gradients must flow through the result ... the hidden tests compare its gradients': the in-place state update changes tensors earlier steps saved, so backward raises (values right).")

add("p8_ok_recurrence_decay_after", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    pq, pk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = q.new_zeros(*q.shape[:-2], q.shape[-1], v.shape[-1])
    z = q.new_zeros(*q.shape[:-2], q.shape[-1])
    outs = []
    for i in range(T):
        # decay after adding: every weight gets one more factor gamma, which cancels in the ratio
        S = decay * (S + pk[..., i, :, None] * v[..., i, None, :])
        z = decay * (z + pk[..., i, :])
        outs.append(torch.einsum("...d,...dv->...v", pq[..., i, :], S) / (pq[..., i, :] * z).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2)
'''}, "Recurrence loop, out-of-place, decay applied after adding (a common factor gamma cancels in out_i).")

add("p8_ok_log_space_powers", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float64)
    rel = i[:, None] - i[None, :]
    logd = math.log(decay)
    w_dec = torch.where(rel >= 0, torch.exp(rel.clamp(min=0) * logd), torch.zeros(()))
    w = torch.einsum("...id,...jd->...ij", F.elu(q) + 1, F.elu(k) + 1) * w_dec.to(q.dtype)
    return torch.einsum("...ij,...jv->...iv", w / w.sum(-1, keepdim=True), v)
'''}, "Decay powers through exp(rel * log(decay)) in float64, normalised weights then applied to v.")
