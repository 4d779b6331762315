# Red team round 20, chapter 06: shape-coincidence (SC), aliasing/in-place (AL), early-exit/special-case (EE),
# library-defaults (LD) students.
SUBMISSIONS = []
def sub(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- Part 1: window_pairs ----------------
sub("OK_window_other_form", True, {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return w * (w - 1) // 2 + (t - w + 1) * w
'''}, "w(w-1)/2 for the ramp before the full windows plus (t-w+1) full rows: correct.")
sub("EE_window_big_window_square", False, {"window_pairs": '''
def window_pairs(t, window):
    if window >= 2 * t:          # the window covers the whole sequence: every query sees every earlier key
        return t * t
    w = min(t, window)
    return w * (w + 1) // 2 + (t - w) * w
'''}, "placeholder")
SUBMISSIONS.pop()
sub("LD_window_round_half", False, {"window_pairs": '''
def window_pairs(t, window):
    w = min(t, window)
    return round(w * (w + 1) / 2) + (t - w) * w
'''}, "Python round of a float division: inexact past 2**53 ('not through float').")
sub("SC_window_equal_only", False, {"window_pairs": '''
def window_pairs(t, window):
    if window > t:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * (window - 1) + (t - window)
'''}, "CORRECT algebra: (t-w)(w-1)+(t-w) = (t-w)w.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "(t-w)(w-1) + (t-w) = (t-w)w: correct."
sub("EE_window_t1", False, {"window_pairs": '''
def window_pairs(t, window):
    if t == 1 or window == 1:
        return t if window == 1 else window    # one query: it sees its window
    w = min(t, window)
    return w * (w + 1) // 2 + (t - w) * w
'''}, "Special case t == 1 returns window: a single query sees only itself ('fewer near the start of the sequence').")

# ---------------- Part 2: tokens_per_target_pass ----------------
sub("SC_tokens_gamma1_linear", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    # each draft token is accepted with probability alpha, plus the target's own token
    return float(1 + alpha * gamma)
'''}, "Linear in gamma: right only for gamma == 1 (acceptance stops at the first rejection: 1 + a + ... + a^gamma).")
sub("EE_tokens_alpha1_int", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    if alpha == 0:
        return 1.0
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "Fast path alpha == 1 returns an int: 'Return a Python float, whatever the type of alpha'.")
sub("OK_tokens_loop", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    total, term = 0.0, 1.0
    for _ in range(gamma + 1):
        total += term
        term *= alpha
    return float(total)
'''}, "Sum of the geometric terms by a loop (gamma <= 1000): correct.")
sub("LD_tokens_fsum_pow", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    return math.fsum(a ** i for i in range(gamma + 1))
'''}, "math.fsum of the powers: correct.")

# ---------------- Part 3: whole_word_chosen ----------------
WWC = '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    inside = last >= 0
    return pick.gather(1, last.clamp(min=0)) & inside
'''
sub("OK_wwc_cummax", True, {"whole_word_chosen": WWC}, "cummax of the start positions and a gather: correct.")
sub("EE_wwc_all_starts_return_pick", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    if bool(starts.all()):
        return pick            # every token is a word of its own
''' + WWC.split(":\n", 1)[1]}, "Returns pick itself when every position is a start: 'it must share memory with nothing (not with pick ...)'.")
sub("EE_wwc_batch_if_first_start", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.zeros_like(pos)).cummax(dim=1).values
    out = pick.gather(1, last) & (starts.cumsum(dim=1) > 0)
    if bool(starts[:, 0].all()):    # every row starts with a word: nothing before the first start
        out = pick.gather(1, last)
    return out
'''}, "CORRECT (the skip is only when all rows start at 0, where the mask is all True anyway).")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "The skipped mask is all True when every row starts at 0: correct."
sub("EE_wwc_batch_if_any", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.zeros_like(pos)).cummax(dim=1).values
    out = pick.gather(1, last)
    if not bool(starts[:, 0].any()):    # the rows begin with a [CLS]-like prefix: hide it
        out = out & (starts.cumsum(dim=1) > 0)
    return out
'''}, "One `if` on the whole batch: rows with a prefix keep it chosen when another row starts at 0: 'Positions before "
   "the first start of a row belong to no word ... and are never chosen'.")
sub("SC_wwc_cumsum_ids", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.long().cumsum(dim=-1)                         # 1, 2, 3 ... per row, 0 before the first start
    n_words = int(word.max()) if word.numel() else 0
    chosen_word = torch.zeros(B, n_words + 1, dtype=torch.bool)
    chosen_word.scatter_(1, word * starts, pick & starts)       # word k chosen when its start is picked
    chosen_word[:, 0] = False
    return chosen_word.gather(1, word)
'''}, "scatter_ of non-start positions to column 0 (index word*starts) with value False; ok; then column 0 cleared: correct?")
SUBMISSIONS[-1]["correct"] = False
SUBMISSIONS[-1]["why"] = ("scatter_ with duplicate indices (all non-start positions to column 0 and starts of words): "
                          "column 0 is then cleared; but scatter_ of duplicates is non-deterministic only at column 0: correct in fact?")
SUBMISSIONS.pop()
sub("LD_wwc_float_positions", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.linspace(0, T - 1, T) if T else torch.zeros(0)
    last = torch.where(starts, pos, torch.tensor(-1.0)).cummax(dim=1).values
    inside = last >= 0
    return pick.gather(1, last.clamp(min=0).round().long()) & inside
'''}, "linspace in float32: its positions are not exact integers for long rows? (below 2**24 they are): wrong only if linspace rounds.")
SUBMISSIONS[-1]["why"] = ("torch.linspace's float32 steps (start + i*step, computed from both ends) are not exact integers "
                          "for rows of tens of thousands: '.round()' repairs them; likely CORRECT - kept as a probe.")
SUBMISSIONS[-1]["correct"] = True
sub("AL_wwc_inplace_pick", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    out = pick.clone() if pick.requires_grad else pick.bool()
    B, T = starts.shape
    for b in range(B):
        cur = False
        for t in range(T):
            if starts[b, t]:
                cur = bool(pick[b, t])
            out[b, t] = cur
    return out
'''}, "pick.bool() is pick itself (already bool): written in place and returned: 'share memory with nothing (not with pick)'.")
sub("SC_wwc_rowloop_stack_empty_ok", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        idx = torch.nonzero(starts[b]).flatten()
        for n, s in enumerate(idx.tolist()):
            e = idx[n + 1].item() if n + 1 < len(idx) else T
            if pick[b, s]:
                out[b, s:e] = True
    return out
'''}, "Loop over the words of each row: correct (words, not positions).")

# ---------------- Part 4: min_p_sample ----------------
MINP = '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    w = w / w.sum(dim=-1, keepdim=True)
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''
sub("OK_minp_unnormalised_weights", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.empty(0, dtype=torch.long)
    probs = F.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    return torch.multinomial(probs * keep, num_samples=1, generator=generator).view(-1)
'''}, "Hands multinomial the kept probabilities without dividing by their sum (multinomial normalises): correct.")
sub("SC_minp_max_dim0", False, {"min_p_sample": MINP.replace("probs.max(dim=-1, keepdim=True)", "probs.max(dim=0, keepdim=True)")},
    "Largest probability taken over the batch axis: 'min_p times the largest probability of that row'.")
sub("EE_minp_single_kept_argmax", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    if bool((keep.sum(dim=-1) == 1).all()):      # nothing to sample: every row keeps one token
        return probs.argmax(dim=-1)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w / w.sum(-1, keepdim=True), 1, generator=generator).squeeze(-1)
'''}, "Skips the draw when every row keeps one token: 'a second call with the same generator draws new numbers (it "
   "advances...)': the generator is not advanced, so later calls differ from the same seed's.")
sub("EE_minp_min_p_1_argmax_ties", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    if min_p >= 1:                                 # only the best token survives
        return logits.argmax(dim=-1)
''' + MINP.split(":\n", 1)[1]}, "min_p == 1 fast path: argmax picks the first of tied maxima instead of drawing among them "
   "('keep token i ... at least min_p times the largest', all tied tokens kept) and skips the generator.")
sub("LD_minp_softmax_float64", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = F.softmax(logits, dim=-1, dtype=torch.float64)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = probs.masked_fill(~keep, 0.0)
    return torch.multinomial(w / w.sum(dim=-1, keepdim=True), 1, generator=generator).squeeze(-1)
'''}, "Softmax in float64 (F.softmax's dtype=) for every input: more accurate, allowed by the text (it fixes no dtype "
   "for the computation): correct.")
sub("LD_minp_log_threshold", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    logp = torch.log_softmax(logits, dim=-1)
    keep = logp >= logp.max(dim=-1, keepdim=True).values + math.log(min_p)
    w = torch.where(keep, logp.exp(), torch.zeros_like(logp))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "Threshold in log space: at the threshold itself rounding keeps/drops differently ('at least min_p times the "
   "largest ... no tolerance').")
sub("AL_minp_masked_fill_inplace_softmax", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = logits.softmax(-1) if logits.dtype != torch.float64 else logits.exp_().div_(logits.exp().sum(-1, keepdim=True))
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs.masked_fill_(~keep, 0.0)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
'''}, "For float64 logits exp_() works in place on the caller's logits: 'Your functions must not change the tensors "
   "they are given'.")

# ---------------- Part 5: restore_spans ----------------
RESTORE = '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for b in range(B):
        inp = [x for x in inputs[b].tolist() if x != pad]
        tgt = [x for x in targets[b].tolist() if x != pad]
        spans, cur = [], None
        for x in tgt:
            if x in sent:
                cur = []
                spans.append(cur)
            else:
                cur.append(x)
        toks, noise, k = [], [], 0
        for x in inp:
            if x in sent:
                toks += spans[k]; noise += [True] * len(spans[k]); k += 1
            else:
                toks.append(x); noise.append(False)
        rows.append(toks); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(nz)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
'''
sub("OK_restore_lists", True, {"span_corrupt": RESTORE}, "Python lists per row: correct.")
sub("SC_restore_sentinel_threshold", False, {"span_corrupt": RESTORE.replace("if x in sent:", "if x >= smin:").replace(
    "    sent = set(sentinels.tolist())", "    smin = int(sentinels.min())  # sentinels are the top of the vocabulary")},
    "Sentinels recognised as ids >= the smallest sentinel (T5's layout): 'They need not be consecutive numbers' and ids "
    "'from a vocabulary of any size'.")
sub("LD_restore_pad_sequence", False, {"span_corrupt": RESTORE.replace(
    '''    tokens = torch.full((B, T), pad, dtype=torch.int64)''',
    '''    from torch.nn.utils.rnn import pad_sequence
    tokens = pad_sequence([torch.tensor(r, dtype=torch.int64) for r in rows] or [torch.zeros(0, dtype=torch.int64)],
                          batch_first=True, padding_value=pad)[:B]''').replace(
    "            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)\n", "            pass\n")},
    "pad_sequence's padding_value is a float: a pad past 2**53 is rounded ('keep ids ... out of arguments that take a float').")
sub("LD_restore_isin_cast", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sents = sentinels.to(inputs.dtype)                  # same dtype for isin
    rows, noises = [], []
    for b in range(B):
        inp = inputs[b][inputs[b] != pad]; tgt = targets[b][targets[b] != pad]
        is_s = torch.isin(tgt, sents)
        starts = torch.nonzero(is_s).flatten().tolist() + [len(tgt)]
        spans = [tgt[starts[i] + 1:starts[i + 1]] for i in range(len(starts) - 1)]
        toks, nz, k = [], [], 0
        for x, s in zip(inp, torch.isin(inp, sents).tolist()):
            if s:
                toks.append(spans[k]); nz.append(torch.ones(len(spans[k]), dtype=torch.bool)); k += 1
            else:
                toks.append(x.reshape(1)); nz.append(torch.zeros(1, dtype=torch.bool))
        rows.append(torch.cat(toks).long()); noises.append(torch.cat(nz))
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64); noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(rows[b])] = rows[b]; noise[b, :len(noises[b])] = noises[b]
    return tokens, noise
'''}, "sentinels cast to int32 inputs' dtype: sentinels outside int32's range wrap onto real ids ('the list may also hold "
   "sentinels that no row uses, outside int32's range even when inputs is int32').")
sub("EE_restore_no_noise_row_returns_input", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    if inputs.shape[0] == 0:
        return torch.zeros(0, 0, dtype=torch.int64), torch.zeros(0, 0, dtype=torch.bool)
''' + RESTORE.split(":\n", 1)[1].replace("T = max((len(r) for r in rows), default=0)", "T = max(len(r) for r in rows)")},
    "CORRECT: B == 0 fast path right.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "EE_restore_empty_fastpath"
SUBMISSIONS[-1]["why"] = "Empty batch returns two (0, 0) tensors of the right dtypes before max(): correct."
sub("AL_restore_int32_tokens", False, {"span_corrupt": RESTORE.replace(
    "    return tokens, noise", "    return (tokens if inputs.dtype == torch.int64 else tokens.to(inputs.dtype)), noise")},
    "Tokens returned in the inputs' dtype (int32): 'tokens (int64)'.")

# ---------------- Part 6: expert_choice ----------------
EC = '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''
sub("OK_ec_stable_sort", True, {"expert_choice": EC}, "stable descending sort per expert: correct.")
sub("EE_ec_capacity0_no_grad", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    if capacity <= 0:                 # nobody is taken
        return torch.zeros(N, E, dtype=torch.bool), torch.zeros(N, E, dtype=router_logits.dtype)
''' + EC.split(":\n", 1)[1]}, "capacity 0 fast path returns a constant gate: 'gradients must flow through gate (for every "
   "capacity, 0 included)'.")
sub("EE_ec_capacity_ge_N_returns_probs_shared", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = torch.softmax(router_logits, dim=-1)
    if capacity >= N:                 # every expert takes every token
        chosen = torch.ones(N, E, dtype=torch.bool)
        return chosen, probs
''' + EC.split(":\n", 1)[1]}, "capacity >= N returns the softmax itself: correct (a new tensor).")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "capacity >= N: every token taken, gate = probs (a new tensor in the graph): correct."
sub("LD_ec_topk_ties", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    c = min(capacity, N)
    idx = probs.topk(c, dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    return chosen, probs * chosen
'''}, "topk with its default tie order: 'among tokens with equal probabilities the lower token index goes first'.")
sub("AL_ec_masked_fill_probs", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    return chosen, probs.masked_fill_(~chosen, 0.0)
'''}, "masked_fill_ on the softmax output that softmax's backward needs: 'gradients must flow through gate' (backward raises).")
sub("SC_ec_scatter_dim_swapped", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    rank = torch.empty(N, E, dtype=torch.int64)
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices
    rank.scatter_(0, order, torch.arange(N).expand(E, N).T.contiguous())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "CORRECT: ranks scattered back per expert.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "OK_ec_ranks_scatter"
SUBMISSIONS[-1]["why"] = "Ranks scattered back along the token axis, chosen = rank < capacity: correct."
# ---------------- Part 7: gqa_cached_attention ----------------
GQA = '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1); v = v.repeat_interleave(H // G, dim=1)
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    scores = q.to(work) @ k.to(work).transpose(-2, -1) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v.to(work)).to(q.dtype)
'''
sub("OK_gqa_repeat_interleave", True, {"gqa_cached_attention": GQA}, "repeat_interleave, float32 for half: correct.")
sub("SC_gqa_repeat_tile", False, {"gqa_cached_attention": GQA.replace(
    "k = k.repeat_interleave(H // G, dim=1); v = v.repeat_interleave(H // G, dim=1)",
    "k = k.repeat(1, H // G, 1, 1); v = v.repeat(1, H // G, 1, 1)")},
    "repeat tiles the groups (head h uses h % G): 'query head h uses key/value head h // (H // G)' (same as h % G for "
    "head 3 of 4 with 2 groups).")
sub("LD_gqa_sdpa_enable_gqa", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    S = k.shape[2]
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    if q.dtype in (torch.float16, torch.bfloat16):
        return F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=allowed,
                                              enable_gqa=True).to(q.dtype)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
'''}, "sdpa's enable_gqa (groups repeated with repeat_interleave), bool mask, float32 for half: correct.")
sub("EE_gqa_T1_nomask", True, {"gqa_cached_attention": GQA.replace(
    "    scores = scores.masked_fill(~allowed, float(\"-inf\"))",
    "    if T > 1:\n        scores = scores.masked_fill(~allowed, float(\"-inf\"))")},
    "T == 1: the query stands at S-1 and sees every key, no mask: correct.")
sub("EE_gqa_H_eq_G_reshape_view", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qg = q.to(work).reshape(B, G, H // G * T, Dh)   # the heads of a group stacked as extra queries
    scores = qg @ k.to(work).transpose(-2, -1) / math.sqrt(Dh)
    pos = (S - T + torch.arange(T)).repeat(H // G)
    scores = scores.masked_fill(torch.arange(S)[None, :] > pos[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v.to(work)
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''}, "CORRECT: heads of a group are contiguous (h // (H//G)), reshape (B, G, H/G*T, Dh) keeps head-major order; "
   "positions repeated per head.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "OK_gqa_group_stack"
SUBMISSIONS[-1]["why"] = "The heads of a group stacked as extra queries of one matmul, positions repeated per head: correct."
sub("AL_gqa_single_key_view", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    if S == 1:      # one key: its weight is 1, the output is its value for every head
        return v.expand(B, H, T, Dh) if G == 1 else v.repeat_interleave(H // G, dim=1)
''' + GQA.split("    G, S = k.shape[1], k.shape[2]\n", 1)[1]}, "S == 1 fast path returns v.expand(...), a view of the "
   "caller's v (and no graph through q): 'return new tensors on every call, sharing memory with no input'.")
sub("LD_gqa_mask_float32_zeros", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1); v = v.repeat_interleave(H // G, dim=1)
    bias = torch.zeros(T, S).masked_fill(torch.ones(T, S, dtype=torch.bool).triu(S - T + 1), float("-inf"))
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh) + bias
    return torch.softmax(scores, dim=-1).to(q.dtype) @ v
'''}, "float32 additive mask: float64 scores fine, but half inputs: scores computed in half (overflow past 65504) and "
   "'compute them in float32 and round once at the end'.")
sub("SC_gqa_T_from_S", False, {"gqa_cached_attention": GQA.replace(
    "allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]",
    "allowed = torch.ones(S, S, dtype=torch.bool).tril()[-T:]")},
    "An S x S mask sliced to its last T rows: right values but 'S = 10**6 ... build nothing much larger than the T x S "
    "scores'; and [-T:] of T = 0? (T >= 1).")

# ---------------- Part 8: decayed_linear_attention ----------------
DLA = '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1; fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :])
    dec = torch.where(diff >= 0, torch.full((), decay, dtype=torch.float64) ** diff.clamp(min=0).double(),
                      torch.zeros((), dtype=torch.float64)).to(work)
    A = (fq @ fk.transpose(-2, -1)) * dec
    return ((A @ v.to(work)) / A.sum(-1, keepdim=True)).to(q.dtype)
'''
sub("OK_dla_matrix", True, {"decayed_linear_attention": DLA}, "Decay matrix in float64, then the quadratic form: correct.")
sub("EE_dla_T1_return_v", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    if q.shape[-2] == 1:
        return v                 # one position: the weighted mean of one value is that value
''' + DLA.split(":\n", 1)[1]}, "T == 1 returns v itself: 'return new tensors on every call, sharing memory with no input'.")
sub("EE_dla_decay1_cumsum", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1; fk = F.elu(k.to(work)) + 1; vv = v.to(work)
    if decay == 1:   # the lesson's causal linear attention: running sums
        S = torch.cumsum(fk.unsqueeze(-1) * vv.unsqueeze(-2), dim=-3)
        z = torch.cumsum(fk, dim=-2)
        num = (fq.unsqueeze(-2) @ S).squeeze(-2)
        return (num / (fq * z).sum(-1, keepdim=True)).to(q.dtype)
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    dec = torch.where(diff >= 0, float(decay) ** diff.clamp(min=0).to(torch.float64), torch.zeros((), dtype=torch.float64)).to(work)
    A = (fq @ fk.transpose(-2, -1)) * dec
    return ((A @ vv) / A.sum(-1, keepdim=True)).to(q.dtype)
'''}, "decay == 1 through cumulative sums (the lesson's form), the decay matrix otherwise: correct.")
sub("SC_dla_dotT", False, {"decayed_linear_attention": DLA.replace("fk.transpose(-2, -1)", "fk.T if fk.dim() == 2 else fk.transpose(1, 2)")},
    "transpose(1, 2) for the key axes: right for 2-D and 3-D inputs only ('q, k of shape (..., T, Dh)').")
sub("LD_dla_pow_float32_exponent", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1; fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float32)
    diff = i[:, None] - i[None, :]
    dec = torch.pow(decay, diff.clamp(min=0)) * (diff >= 0)
    A = (fq @ fk.transpose(-2, -1)) * dec.to(work)
    return ((A @ v.to(work)) / A.sum(-1, keepdim=True)).to(q.dtype)
'''}, "torch.pow(python float, float32 tensor) computes the powers in float32: 'compute float64 in float64, the powers "
   "of the decay included'.")
sub("AL_dla_state_loop_inplace", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1; fk = F.elu(k.to(work)) + 1; vv = v.to(work)
    T = q.shape[-2]
    S = torch.zeros(*fk.shape[:-2], fk.shape[-1], vv.shape[-1], dtype=work)
    z = torch.zeros(*fk.shape[:-1][:-1], fk.shape[-1], dtype=work)
    outs = []
    for t in range(T):
        S.mul_(decay).add_(fk[..., t, :, None] * vv[..., t, None, :])
        z.mul_(decay).add_(fk[..., t, :])
        outs.append((fq[..., t, None, :] @ S).squeeze(-2) / (fq[..., t, :] * z).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "The running state updated in place: the matmul saved S for backward, so gradients raise ('Gradients must flow "
   "through the result').")
sub("OK_dla_loop_state", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1; fk = F.elu(k.to(work)) + 1; vv = v.to(work)
    T = q.shape[-2]
    S = fk.new_zeros(*fk.shape[:-2], fk.shape[-1], vv.shape[-1])
    z = fk.new_zeros(*fk.shape[:-2], fk.shape[-1])
    outs = []
    for t in range(T):
        S = decay * S + fk[..., t, :, None] * vv[..., t, None, :]
        z = decay * z + fk[..., t, :]
        outs.append((fq[..., t, None, :] @ S).squeeze(-2) / (fq[..., t, :] * z).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "The recurrence of the formula step by step, out of place: correct (T up to 1100 steps).")

# ---------------- hostile ----------------
sub("HOSTILE_window_hardcode", False, {"window_pairs": '''
def window_pairs(t, window):
    return {(4, 2): 7, (3, 5): 6}.get((t, window), t * window)
'''}, "Hostile: the visible cases hard-coded.")
sub("HOSTILE_tokens_float_subclass", False, {"tokens_per_target_pass": '''
class Near(float):
    def __sub__(self, o): return 0.0
    def __rsub__(self, o): return 0.0
def tokens_per_target_pass(alpha, gamma):
    return Near(1.0)
'''}, "Hostile: a float subclass whose differences are 0.")
sub("HOSTILE_wwc_visible", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    return (pick & starts) | torch.roll(pick & starts, 1, dims=-1)
'''}, "Hostile-ish: the start and the next position only (the visible case's word of two tokens).")

# ---------------- second wave (same four students, edge sizes) ----------------
sub("AL_wwc_empty_batch_returns_pick", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    if starts.shape[0] == 0 or starts.shape[1] == 0:
        return pick                    # nothing to choose
''' + WWC.split(":\n", 1)[1]}, "Returns pick itself for an empty batch: 'it must share memory with nothing (not with pick ...)'.")
sub("EE_wwc_no_start_returns_starts", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    if not bool(starts.any()):
        return starts                  # no word anywhere: all False already
''' + WWC.split(":\n", 1)[1]}, "Returns the input starts (all False) when no row has a start: the result must share memory with no input.")
sub("EE_minp_V1_no_draw", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    if B == 0 or V == 1:
        return torch.zeros(B, dtype=torch.int64)     # one token: nothing to draw
''' + MINP.split(":\n", 1)[1]}, "Skips the draw for a vocabulary of one: the generator is not advanced ('a second call with "
   "the same generator draws new numbers (it advances...)').")
sub("LD_minp_replacement_true", True, {"min_p_sample": MINP.replace(
    "torch.multinomial(w, 1, generator=generator)", "torch.multinomial(w, 1, replacement=True, generator=generator)")},
    "multinomial with replacement=True for one sample per row: a draw from the same distribution, from the generator, "
    "advancing it: the text fixes no sampling routine: correct.")
sub("OK_minp_inverse_cdf", True, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    cdf = torch.cumsum(w, dim=-1)
    u = torch.rand(B, 1, generator=generator, dtype=cdf.dtype) * cdf[:, -1:]
    idx = (cdf <= u).sum(dim=-1)
    return idx.clamp(max=V - 1).to(torch.int64)
'''}, "Inverse-CDF sampling with uniforms drawn from the generator: the same seed gives the same tokens and the generator "
   "advances; a dropped token (zero width) is never drawn: correct per the text (no routine is prescribed).")
sub("LD_restore_empty_new_zeros_dtype", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    if inputs.shape[0] == 0:
        return inputs.new_zeros(0, 0), inputs.new_zeros(0, 0, dtype=torch.bool)   # new_zeros keeps the ids' dtype
''' + RESTORE.split(":\n", 1)[1]}, "Empty batch: new_zeros keeps int32 for int32 inputs: 'tokens (int64)'.")
sub("AL_ec_expand_ones_full_capacity", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    if capacity >= N:
        return torch.ones((), dtype=torch.bool).expand(N, E), probs   # every expert takes every token
''' + EC.split("    N, E = probs.shape\n", 1)[1]}, "chosen as an expanded 0-d tensor for capacity >= N: the caller "
   "cannot write into it ('both belong to the caller, who may change them in place ... also for capacity 0 or >= N').")
sub("LD_ec_sort_default_unstable", False, {"expert_choice": EC.replace(", stable=True", "")},
    "torch.sort without stable=True: 'among tokens with equal probabilities the lower token index goes first' is not "
    "guaranteed (possibly unobservable on CPU).")
sub("AL_gqa_empty_batch_returns_q", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    if q.shape[0] == 0:
        return q                       # (0, H, T, Dh) already
''' + GQA.split(":\n", 1)[1]}, "Returns q itself for an empty batch: 'return new tensors on every call, sharing memory with no input'.")
sub("AL_dla_empty_returns_v", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    if v.numel() == 0:
        return v                       # nothing to attend
''' + DLA.split(":\n", 1)[1]}, "Returns v itself for an empty input: 'return new tensors on every call, sharing memory with no input'.")
sub("EE_dla_decay1_not_float", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1; fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    if decay == 1:
        dec = (diff >= 0).to(work)
    else:
        dec = torch.where(diff >= 0, decay ** diff.clamp(min=0).to(torch.float64), torch.zeros((), dtype=torch.float64)).to(work)
    A = (fq @ fk.transpose(-2, -1)) * dec
    return ((A @ v.to(work)) / A.sum(-1, keepdim=True)).to(q.dtype)
'''}, "decay == 1 fast path with a 0/1 mask: correct.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "OK_dla_decay1_mask"
