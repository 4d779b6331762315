"""Chapter 6 exercise spec for tests/test_exercises.py: common wrong answers (mutants) that must
lose points, and correct answers written differently that must keep full marks.

Each part has three mutants: a realistic wrong answer, and mutants for the classes of issue #22
that the part's hidden tests close (named in the comment above each)."""

from grading import around_body, from_storage_start, kept_output_buffer, place_mutant, place_mutants, renamed_parameters, replaced as _replaced, solution_code

CHAPTER = "06-variants"
FULL_MARKS = 16.0
# Part 5's model answer, from which the round 12 mutants of Part 5 change one line each
RESTORE_MODEL = solution_code(CHAPTER)["span_corrupt"]
# Part 6's model answer, from which the round 13 mutant of Part 6 changes one keyword
EXPERT_MODEL = solution_code(CHAPTER)["expert_choice"]
# Part 7's model answer before red team 19 (which computed float16 and bfloat16 in float32 from then on)
GQA_BEFORE_19 = """
def gqa_cached_attention(q, k, v):
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)  # the query heads of one group sit next to each other
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    query_pos = torch.arange(s - t, s)  # absolute positions of the new queries
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]  # (T, S)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d)
"""



# Common wrong answers: name -> (the graded test that must lose points, {answer cell: code}).
MUTANTS = {
    # Part 1 -- Python int returns: a float count passes the visible `== 7`
    "window_pairs_returns_float": ("test_window_pairs", {"window_pairs": """
def window_pairs(t, window):
    return window * t - window * (window - 1) / 2 if t >= window else t * (t + 1) / 2
"""}),
    # Part 1 -- inequality boundary: the formula for t >= window used for shorter sequences too
    "window_pairs_ignores_short_sequences": ("test_window_pairs", {"window_pairs": """
def window_pairs(t, window):
    return window * t - window * (window - 1) // 2
"""}),
    # Part 1 -- a rule on another code path / small sizes only: builds the mask when t < window
    "window_pairs_builds_mask_when_short": ("test_window_pairs", {"window_pairs": """
def window_pairs(t, window):
    if t < window:  # every query sees all earlier keys: count the triangle
        return int(torch.ones(t, t, dtype=torch.bool).tril().sum())
    return window * t - window * (window - 1) // 2
"""}),
    # Part 2 -- inequality boundary: the closed form divides by zero at alpha = 1
    "tokens_per_pass_closed_form_at_one": ("test_tokens_per_target_pass", {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
"""}),
    # Part 2 -- realistic: treats the gamma acceptances as independent of the first rejection
    "tokens_per_pass_ignores_stopping": ("test_tokens_per_target_pass", {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    return gamma * alpha + 1.0
"""}),
    # Part 2 -- a lying object: a float subclass whose comparisons and arithmetic always succeed
    "tokens_per_pass_lying_float": ("test_tokens_per_target_pass", {"tokens_per_target_pass": """
class _Sure(float):
    __eq__ = __lt__ = __le__ = __gt__ = __ge__ = lambda self, other: True
    __ne__ = lambda self, other: False
    __sub__ = __rsub__ = lambda self, other: _Sure(0.0)
    __abs__ = lambda self: _Sure(0.0)
    __hash__ = float.__hash__


def tokens_per_target_pass(alpha, gamma):
    return _Sure(gamma * alpha)
"""}),
    # Part 3 -- degenerate batch / rows that differ: the current word carries over into the next row
    "whole_word_carries_across_rows": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    out = torch.zeros_like(starts)
    current = False
    for b in range(starts.shape[0]):
        for t in range(starts.shape[1]):
            if starts[b, t]:
                current = bool(pick[b, t])
            out[b, t] = current
    return out
"""}),
    # Part 3 -- boolean masks: a float 0/1 mask passes the visible `tolist() == [[False, True, ...]]`
    "whole_word_float_mask": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    positions = torch.arange(starts.shape[-1]).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0).float() * pick.gather(-1, word_start.clamp(min=0)).float()
"""}),
    # Part 3 -- inputs changed in place
    "whole_word_changes_pick": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    pick &= starts  # only the starts decide
    positions = torch.arange(starts.shape[-1]).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))
"""}),
    # Part 4 -- the generator argument: draws from the global generator
    "min_p_ignores_generator": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    return torch.multinomial(probs * keep, 1).squeeze(-1)
"""}),
    # Part 4 -- realistic: the threshold applied to the logits instead of the probabilities
    "min_p_on_logits": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    z = logits - logits.amax(dim=-1, keepdim=True) + 1.0
    keep = z >= min_p * z.amax(dim=-1, keepdim=True)
    return torch.multinomial(logits.softmax(dim=-1) * keep, 1, generator=generator).squeeze(-1)
"""}),
    # Part 5 -- realistic: T5's sentinels are the largest ids, so "a sentinel is any id >= the smallest"
    "restore_sentinels_by_range": ("test_span_corrupt", {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = (lambda token, low=int(sentinels.min()): token >= low)
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, order, current = {}, [], None
        for token in row_tg:
            if token == pad:
                break
            if is_sentinel(token):
                current = hidden.setdefault(token, [])
                order.append(token)
            else:
                current.append(token)
        restored, seen = [], 0
        for token in row_in:
            if token == pad:
                break
            if is_sentinel(token):
                restored += [(t, True) for t in hidden[token]]
                seen += 1
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max(len(row) for row in rows)
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        tokens[b, :len(row)] = torch.tensor([token for token, _ in row], dtype=torch.long)
        noise[b, :len(row)] = torch.tensor([flag for _, flag in row], dtype=torch.bool)
    return tokens, noise
"""}),
    # rare algorithm rule: the k-th sentinel of the input is taken to mean sentinels[k]'s segment,
    # right only when a row uses the sentinels in the order given
    "restore_segments_by_sentinel_index": ("test_span_corrupt", {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist()).__contains__
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, order, current = {}, [], None
        for token in row_tg:
            if token == pad:
                break
            if is_sentinel(token):
                current = hidden.setdefault(token, [])
                order.append(token)
            else:
                current.append(token)
        restored, seen = [], 0
        for token in row_in:
            if token == pad:
                break
            if is_sentinel(token):
                restored += [(t, True) for t in hidden.get(int(sentinels[seen]), [])]
                seen += 1
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max(len(row) for row in rows)
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        tokens[b, :len(row)] = torch.tensor([token for token, _ in row], dtype=torch.long)
        noise[b, :len(row)] = torch.tensor([flag for _, flag in row], dtype=torch.bool)
    return tokens, noise
"""}),
    # argument class: the padding of the result is 0 instead of `pad`
    "restore_pads_with_zero": ("test_span_corrupt", {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist()).__contains__
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, order, current = {}, [], None
        for token in row_tg:
            if token == pad:
                break
            if is_sentinel(token):
                current = hidden.setdefault(token, [])
                order.append(token)
            else:
                current.append(token)
        restored, seen = [], 0
        for token in row_in:
            if token == pad:
                break
            if is_sentinel(token):
                restored += [(t, True) for t in hidden[token]]
                seen += 1
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max(len(row) for row in rows)
    tokens = torch.full((len(rows), t), 0, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        tokens[b, :len(row)] = torch.tensor([token for token, _ in row], dtype=torch.long)
        noise[b, :len(row)] = torch.tensor([flag for _, flag in row], dtype=torch.bool)
    return tokens, noise
"""}),
    # unstated-requirement class: the noise mask as 0/1 integers instead of bool
    "restore_noise_as_int": ("test_span_corrupt", {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist()).__contains__
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, order, current = {}, [], None
        for token in row_tg:
            if token == pad:
                break
            if is_sentinel(token):
                current = hidden.setdefault(token, [])
                order.append(token)
            else:
                current.append(token)
        restored, seen = [], 0
        for token in row_in:
            if token == pad:
                break
            if is_sentinel(token):
                restored += [(t, True) for t in hidden[token]]
                seen += 1
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max(len(row) for row in rows)
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        tokens[b, :len(row)] = torch.tensor([token for token, _ in row], dtype=torch.long)
        noise[b, :len(row)] = torch.tensor([flag for _, flag in row], dtype=torch.bool)
    return tokens, noise.long()
"""}),
    # Part 6 -- a rule that changes results rarely: ties go to the higher token index
    "expert_choice_ties_to_later_tokens": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    chosen = torch.zeros_like(probs, dtype=torch.bool)
    for e in range(probs.shape[1]):
        best = probs[:, e].argsort()[probs.shape[0] - min(capacity, probs.shape[0]):]  # the largest, ascending
        chosen[best, e] = True
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # red team 9 (slipped): ties broken by a small penalty on the token index, which also reorders
    # tokens whose probabilities differ by less than 1e-7 per index step
    "expert_choice_epsilon_tie_break": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    n, e = probs.shape
    score = probs.detach() - 1e-7 * torch.arange(n, dtype=probs.dtype).unsqueeze(1)
    top = score.topk(min(capacity, n), dim=0).indices
    chosen = torch.zeros(n, e, dtype=torch.bool).scatter(0, top, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # red team 9: a slack on the threshold "for rounding", which keeps tokens just below it
    "min_p_threshold_with_slack": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(-1, keepdim=True) - 1e-4
    kept = probs * keep
    return torch.multinomial(kept / kept.sum(-1, keepdim=True), 1, generator=generator).squeeze(-1)
"""}),
    # Part 6 -- keep the dtype: computes the gates in float32
    "expert_choice_float32_gate": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.float().softmax(dim=-1)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # Part 7 -- realistic: tiles the key/value heads instead of giving each group consecutive heads
    "gqa_cached_tiles_heads": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    t, s = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    k, v = k.repeat(1, reps, 1, 1), v.repeat(1, reps, 1, 1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.arange(s)[None, :] <= torch.arange(s - t, s)[:, None]
    return scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1) @ v
"""}),
    # Part 8 -- realistic: the normaliser is not decayed
    "decay_normaliser_not_decayed": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    outs = []
    z = torch.cumsum(fk, dim=-2)
    for i in range(q.shape[-2]):
        state = decay * state + fk[..., i, :, None] * v[..., i, None, :]
        outs.append((fq[..., i, :, None] * state).sum(-2) / (fq[..., i, :] * z[..., i, :]).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2)
"""}),
    # Part 8 -- keep the dtype: computes in float64 and returns float64 for float32 inputs
    "decay_returns_float64": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    q, k, v = q.double(), k.double(), v.double()  # accurate for long sequences
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + fk[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + fk[..., i, :]
        outs.append((fq[..., i, :, None] * state).sum(-2) / (fq[..., i, :] * norm).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2)
"""}),
    # ---- red team round (issue #22): answers that kept full marks, and representative ones caught
    # Part 1 -- a rule on every code path (red team, slipped): the mask is built for small t only
    "window_pairs_mask_for_small_t": ("test_window_pairs", {"window_pairs": """
def window_pairs(t, window):
    if t <= 2048:
        i = torch.arange(t)[:, None]
        j = torch.arange(t)[None, :]
        return int(((j <= i) & (j > i - window)).sum())
    m = min(t, window)
    return m * (m + 1) // 2 + (t - m) * window
"""}),
    # Part 1 -- sizes: int64 tensor arithmetic overflows at t ~ 1e12 (and uses tensors)
    "window_pairs_int64_tensors": ("test_window_pairs", {"window_pairs": """
def window_pairs(t, window):
    t_, w_ = torch.tensor(t), torch.tensor(window)
    m = torch.minimum(t_, w_)
    return int(m * (m + 1) // 2 + (t_ - m) * w_)
"""}),
    # Part 2 -- Python float returns: an int at alpha = 1
    "tokens_per_pass_int_at_one": ("test_tokens_per_target_pass", {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
"""}),
    # Part 3 -- batch of one: the first row's words applied to every row
    "whole_word_first_row_only": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    out = torch.zeros_like(starts)
    current = False
    for t in range(starts.shape[1]):
        if starts[0, t]:
            current = bool(pick[0, t])
        out[:, t] = current
    return out
"""}),
    # Part 4 -- rows that differ: the threshold uses the largest probability of the whole batch
    "min_p_batch_max": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    kept = torch.where(probs >= min_p * probs.max(), probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
"""}),
    # Part 5 -- rows that differ (red team, slipped): the width of the first row, longer rows cut
    "restore_width_of_first_row": ("test_span_corrupt", {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows = []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for x in tgt:
            if x == pad:
                break
            if x in sent:
                cur = spans.setdefault(x, [])
            else:
                cur.append(x)
        toks, noise = [], []
        for x in inp:
            if x == pad:
                break
            if x in sent:
                toks += spans[x]
                noise += [True] * len(spans[x])
            else:
                toks.append(x)
                noise.append(False)
        rows.append((toks, noise))
    width = len(rows[0][0])
    tokens = torch.tensor([(t + [pad] * width)[:width] for t, _ in rows], dtype=torch.int64)
    noise = torch.tensor([(n + [False] * width)[:width] for _, n in rows], dtype=torch.bool)
    return tokens, noise
"""}),
    # Part 6 -- keep the dtype: float32 logits give a float64 gate
    "expert_choice_float64_gate": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.double().softmax(dim=-1)  # accurate probabilities
    order = probs.sort(dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(probs.shape, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # Part 7 -- long S: a causal table of 1024 positions (beyond the old 300-position case)
    "gqa_cached_mask_table_1024": ("test_gqa_cached_attention", {"gqa_cached_attention": """
_CAUSAL_1024 = torch.ones(1024, 1024, dtype=torch.bool).tril()


def gqa_cached_attention(q, k, v):
    t, s = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(reps, dim=1), v.repeat_interleave(reps, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    return scores.masked_fill(~_CAUSAL_1024[s - t:s, :s], float("-inf")).softmax(dim=-1) @ v
"""}),
    # Part 7 -- keep the dtype: computes in float64, returns float64 for float32 inputs
    "gqa_cached_returns_float64": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    t, s = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    q, k, v = q.double(), k.double().repeat_interleave(reps, dim=1), v.double().repeat_interleave(reps, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
    return scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1) @ v
"""}),
    # Part 7 -- round 15 (a class from chapter 1's red team): positions made in the dtype of q; past 256 in bfloat16
    # (299 and 300 are one value) a query sees the key after it
    "gqa_cached_positions_in_dtype_of_q": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    query_pos = torch.arange(s - t, s, dtype=q.dtype)
    allowed = torch.arange(s, dtype=q.dtype)[None, :] <= query_pos[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v).reshape(b, h, t, d)
"""}),
    # Part 7 -- stated accuracy: float64 inputs computed in float32 and cast back (about 2e-7 off)
    "gqa_cached_float64_via_float32": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    t, s = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    qf, kf = q.float(), k.float().repeat_interleave(reps, dim=1)
    vf = v.float().repeat_interleave(reps, dim=1)
    scores = qf @ kf.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
    return (scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1) @ vf).to(q.dtype)
"""}),
    # Part 8 -- long sequences (red team, slipped): the gamma^-j rescaling done in float64
    "decay_rescaled_in_float64": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    q, k, v = q.double(), k.double(), v.double()
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    g = decay ** torch.arange(q.shape[-2], dtype=torch.float64)[:, None]
    state = torch.cumsum((fk / g)[..., :, None] * v[..., None, :], dim=-3)
    z = torch.cumsum(fk / g, dim=-2)
    num = ((fq * g)[..., None, :] @ state).squeeze(-2)
    den = ((fq * g) * z).sum(-1, keepdim=True)
    return (num / den).to(dt)
"""}),
    # Part 8 -- a mask by multiplication: gamma^(i - j) overflows for j > i, and inf * 0 is nan
    "decay_negative_exponents": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(q.shape[-2], dtype=q.dtype)[:, None]
    j = torch.arange(q.shape[-2], dtype=q.dtype)[None, :]
    scores = (fq @ fk.transpose(-2, -1)) * (decay ** (i - j) * (j <= i))
    return (scores @ v) / scores.sum(-1, keepdim=True)
"""}),
    # ---- red team round 2 (issue #22): answers that kept full marks in the blind round, and representative
    # ones caught; each class is now tested in every part that it applies to
    # Part 1 -- Python integer arithmetic (round 2, slipped): a float division on one branch, exact only for round sizes
    "window_pairs_float_division_one_branch": ("test_window_pairs", {"window_pairs": """
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return round(t * window - window * (window - 1) / 2)
"""}),
    # Part 2 -- Python float returns: numpy.float64 is a float subclass
    "tokens_per_pass_numpy_float64": ("test_tokens_per_target_pass", {"tokens_per_target_pass": """
import numpy as np

def tokens_per_target_pass(alpha, gamma):
    # tokens k = 0..gamma are produced with probability alpha**k each
    return np.sum(np.float64(alpha) ** np.arange(gamma + 1))
"""}),
    # Part 2 -- the accuracy stated: float32 arithmetic
    "tokens_per_pass_float32_tensor": ("test_tokens_per_target_pass", {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    a = torch.tensor(alpha)
    if alpha == 1:
        return float(gamma + 1)
    return ((1 - a ** (gamma + 1)) / (1 - a)).item()
"""}),
    # Part 3 -- views that are not contiguous: .view(-1) on a transposed tensor raises
    "whole_word_view_flattens": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    b, t = starts.shape
    flat_starts, flat_pick = starts.view(-1), pick.view(-1)
    positions = torch.arange(b * t)
    word_start = torch.where(flat_starts, positions, torch.full_like(positions, -1)).view(b, t).cummax(dim=1).values
    inside = word_start >= torch.arange(b)[:, None] * t  # the start lies in the same row
    return inside & flat_pick[word_start.clamp(min=0)]
"""}),
    # Part 3 -- a row with no start: argmax of an all-False row is 0, so its first token counts as a start
    "whole_word_argmax_first_start": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    first = starts.int().argmax(dim=1, keepdim=True)        # first start of each row
    last = torch.where(starts, pos, torch.zeros_like(pos)).cummax(dim=1).values
    return (pos >= first) & torch.gather(pick, 1, last)
"""}),
    # Part 4 -- a softmax that overflows (round 2, slipped): exp() without subtracting the row maximum
    "min_p_exp_without_max_shift": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    e = torch.exp(logits)
    probs = e / e.sum(dim=-1, keepdim=True)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    kept = probs * keep
    return torch.multinomial(kept / kept.sum(-1, keepdim=True), 1, generator=generator).squeeze(-1)
"""}),
    # Part 4 -- realistic: min_p as an absolute probability threshold
    "min_p_absolute_threshold": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p
    keep[torch.arange(len(probs)), probs.argmax(-1)] = True
    kept = probs * keep
    return torch.multinomial(kept / kept.sum(-1, keepdim=True), 1, generator=generator).squeeze(-1)
"""}),
    # Part 5 -- views that are not contiguous: .view(-1) on transposed inputs raises
    "restore_view_flattens": ("test_span_corrupt", {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    b, li = inputs.shape
    is_sentinel = torch.isin(inputs.view(-1), sentinels).view(b, li)
    rows = []
    for r in range(b):
        hidden, current = {}, None
        for token in targets[r].tolist():
            if token == pad:
                break
            if token in sentinels.tolist():
                current = hidden.setdefault(token, [])
            else:
                current.append(token)
        row = []
        for token, special in zip(inputs[r].tolist(), is_sentinel[r].tolist()):
            if token == pad:
                break
            row += [(x, True) for x in hidden[token]] if special else [(token, False)]
        rows.append(row)
    t = max(len(row) for row in rows)
    tokens = torch.tensor([[x for x, _ in row] + [pad] * (t - len(row)) for row in rows], dtype=torch.int64)
    noise = torch.tensor([[f for _, f in row] + [False] * (t - len(row)) for row in rows], dtype=torch.bool)
    return tokens, noise
"""}),
    # Part 6 -- the accuracy stated: a float64 softmax computed in float32 and cast back
    "expert_choice_softmax_in_float32": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.float().softmax(dim=-1).to(router_logits.dtype)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter(0, order[:min(capacity, n)], True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # Part 6 -- ties: topk does not promise the lower index first
    "expert_choice_topk_ties": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    idx = probs.topk(min(capacity, N), dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # Part 7 -- views that are not contiguous (round 2, slipped): .view(B * H, T, Dh) fails for q as split_heads makes it
    "gqa_cached_view_for_bmm": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1).view(B * H, S, Dh)
    v = v.repeat_interleave(H // G, dim=1).view(B * H, S, Dh)
    q3 = q.view(B * H, T, Dh)                                  # flatten heads for bmm
    scores = torch.bmm(q3, k.transpose(1, 2)) / math.sqrt(Dh)
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.bmm(torch.softmax(scores, dim=-1), v).view(B, H, T, Dh)
"""}),
    # Part 8 -- the float64 accuracy stated (round 2, slipped): the decay's powers built in float32
    "decay_powers_in_float32": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    idx = torch.arange(T)
    gap = (idx[:, None] - idx[None, :]).clamp(min=0)
    D = torch.tril(torch.full((T, T), decay) ** gap)             # float32 decay powers
    weights = (fq @ fk.transpose(-2, -1)) * D
    return ((weights @ v) / weights.sum(-1, keepdim=True)).to(q.dtype)
"""}),
    # Part 8 -- long sequences (round 2, slipped): gamma^-j rescaling inside chunks of 64 still overflows float32 at decay 0.05
    "decay_rescaled_in_chunks": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay, chunk=64):
    # rescaling only inside chunks of 64, carrying the state between chunks
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    state = torch.zeros(*fk.shape[:-2], fk.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*fk.shape[:-2], fk.shape[-1], dtype=q.dtype)
    outs = []
    for s in range(0, T, chunk):
        e = min(s + chunk, T)
        n = e - s
        g = decay ** torch.arange(1, n + 1, dtype=q.dtype)          # gamma^(r+1), r = 0..n-1
        a = fk[..., s:e, :] / g[:, None]
        cs = torch.cumsum(a[..., :, None] * v[..., s:e, None, :], dim=-3) * g[:, None, None]
        cz = torch.cumsum(a, dim=-2) * g[:, None]
        st = state[..., None, :, :] * g[:, None, None] + cs
        zz = z[..., None, :] * g[:, None] + cz
        num = (fq[..., s:e, None, :] @ st).squeeze(-2)
        den = (fq[..., s:e, :] * zz).sum(-1, keepdim=True)
        outs.append(num / den)
        state, z = st[..., -1, :, :], zz[..., -1, :]
    return torch.cat(outs, dim=-2)
"""}),
    # ---- red team round 3 (issue #22): answers that kept full marks in the blind round; each class is now
    # tested in every part that it applies to
    # Part 4 -- min_p_strict_threshold_keeps_best (round 3: `probs > min_p * best` or the best itself) removed in
    # red team 8: distinct logits never put a probability at min_p times the best in exact arithmetic, so it equals
    # `>=` except through float32 rounding, and the check that caught it (a token at 0.25 times the best in a
    # float32 softmax, 0.2499999990 times in exact arithmetic) refused a float64 softmax that the text allows. Plain
    # `>` is still caught by the min_p = 1 ties. Back in red team 16 (below), caught by a case exact in every precision.
    # Part 4 -- red team 8 (slipped, white-box): every number from `generator` itself. A new generator seeded from
    # its initial_seed(), and one given a copy of its state, keep "same seed, same tokens" and "other seed, other
    # tokens" but leave the caller's generator where it was; caught by two calls in a row with one generator.
    "min_p_reseeds_from_initial_seed": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    own = torch.Generator().manual_seed(generator.initial_seed())
    return torch.multinomial(kept, 1, generator=own).squeeze(-1)
"""}),
    "min_p_draws_from_state_copy": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    copy = torch.Generator()
    copy.set_state(generator.get_state())
    return torch.multinomial(kept, 1, generator=copy).squeeze(-1)
"""}),
    # Part 6 -- a softmax that overflows (round 3, the class of part 4's round-2 slip): exp() without the row
    # maximum; caught by router logits offset by up to +-1000. It takes the batch place of
    # expert_choice_softmax_over_tokens (the visible gate check catches it; removed).
    "expert_choice_exp_without_max_shift": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    e = router_logits.exp()
    probs = e / e.sum(dim=-1, keepdim=True)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices[:min(capacity, n)]
    chosen = torch.zeros(probs.shape, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # Part 7 -- a softmax that overflows (round 3, slipped): exp() of the scores without subtracting their maximum;
    # caught by scores of about 1000. It takes the batch place of gqa_cached_mask_from_start (the visible test
    # catches it; removed).
    "gqa_cached_exp_without_max_shift": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    t, s = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(reps, dim=1), v.repeat_interleave(reps, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
    weights = scores.exp() * allowed
    return (weights / weights.sum(dim=-1, keepdim=True)) @ v
"""}),
    # Part 3 -- ids past a narrow dtype's range (the class red team 4 found in chapter 5): positions kept in
    # 16 bits to save memory wrap around past 32767, so later words take the pick of the wrong start
    "whole_word_int16_positions": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    positions = torch.arange(starts.shape[-1], dtype=torch.int16).expand(starts.shape)  # half the memory of int64
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0).long())
"""}),
    # Part 5 -- ids past a narrow dtype's range: the restored tokens built in 16 bits (T5's 32,100 ids fit),
    # so ids of a larger vocabulary wrap around
    "restore_tokens_in_int16": ("test_span_corrupt", {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist())
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, current = {}, None
        for token in row_tg:
            if token == pad:
                break
            if token in is_sentinel:
                current = hidden.setdefault(token, [])
            else:
                current.append(token)
        restored = []
        for token in row_in:
            if token == pad:
                break
            if token in is_sentinel:
                restored += [(t, True) for t in hidden[token]]
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max(len(row) for row in rows)
    tokens = torch.tensor([[x for x, _ in row] + [pad] * (t - len(row)) for row in rows]).to(torch.int16)
    noise = torch.tensor([[f for _, f in row] + [False] * (t - len(row)) for row in rows], dtype=torch.bool)
    return tokens.long(), noise
"""}),
    # Red team 7 (audit of integer dtypes) -- Part 5: a lookup table over the vocabulary filled with
    # index_fill, which takes int64 indices only: int32 sentinels (allowed by the text) raise
    "restore_sentinel_table_int64_only": ("test_span_corrupt", {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    size = max(int(inputs.max()), int(targets.max()), int(sentinels.max()), pad) + 1
    is_sentinel = torch.zeros(size, dtype=torch.bool).index_fill(0, sentinels, True).tolist()
    rows_t, rows_n = [], []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        spans, current = {}, None
        for token in row_tg:
            if token == pad:
                break
            if is_sentinel[token]:
                current = spans.setdefault(token, [])
            else:
                current.append(token)
        row, noise = [], []
        for token in row_in:
            if token == pad:
                break
            if is_sentinel[token]:
                row += spans[token]
                noise += [True] * len(spans[token])
            else:
                row.append(token)
                noise.append(False)
        rows_t.append(row)
        rows_n.append(noise)
    t = max(map(len, rows_t))
    tokens = torch.tensor([r + [pad] * (t - len(r)) for r in rows_t], dtype=torch.long)
    noise = torch.tensor([n + [False] * (t - len(n)) for n in rows_n], dtype=torch.bool)
    return tokens, noise
"""}),
    # Red team 6 -- Part 1: the no-tensor rule checked for torch only: a NumPy mask for small t (and NumPy is not
    # in the allowed libraries); the hidden tests now also watch calls into NumPy with a profile function
    "window_pairs_numpy_mask_for_small_t": ("test_window_pairs", {"window_pairs": """
def window_pairs(t, window):
    if t <= 2048:  # small: count the mask itself, easy to trust
        import numpy as np
        i = np.arange(t)
        return int(((i[None, :] <= i[:, None]) & (i[None, :] > i[:, None] - window)).sum())
    m = min(t, window)
    return m * (m + 1) // 2 + (t - m) * window
"""}),
    # Red team 6 -- Part 2: Python float returns for every allowed alpha: a sum of powers is an int when alpha is
    # given as the int 0 or 1 (the hidden tests used to pass float(alpha) only)
    "tokens_per_pass_int_for_int_alpha": ("test_tokens_per_target_pass", {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    return sum(alpha ** k for k in range(gamma + 1))
"""}),
    # Red team 6 -- Part 3: rows that differ, built on purpose: word numbers made unique per row with an offset of
    # T (one too few: a row has T + 1 numbers, 0 to T), so a row made only of starts, its last word chosen,
    # chooses the positions before the first start of the next row
    "whole_word_row_offset_collides": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.long().cumsum(dim=-1)                      # 0 before the first start, else 1..T
    key = word + T * torch.arange(B)[:, None]                # make the numbers unique per row
    return torch.isin(key, key[starts & pick])               # a start has word >= 1, so word 0 is never picked
"""}),
    # Red team 8, second pass (gradients): right values, but one factor computed outside autograd, so a model
    # trained through the result gets a wrong gradient. Part 6: the gate from detached probabilities (no gradient
    # reaches the router)
    "expert_choice_gate_detached": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs.detach(), torch.zeros_like(probs))
"""}),
    # Part 7: the attention weights under torch.no_grad() (the gradient reaches v only)
    "gqa_cached_weights_under_no_grad": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    allowed = torch.arange(s)[None, :] <= torch.arange(s - t, s)[:, None]
    with torch.no_grad():  # the weights
        scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
        weights = scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1)
    return torch.einsum("bgrts,bgsd->bgrtd", weights, v).reshape(b, h, t, d)
"""}),
    # Part 8: the denominator detached
    "decay_denominator_detached": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)
        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True).detach()
        outs.append(top / bottom)
    return torch.stack(outs, dim=-2).to(q.dtype)
"""}),
    # ---- red team 9, second pass: classes found in other chapters, closed here
    # Part 1 -- exact integers through decimal at its default 28 digits (chapter 7's slip): counts of 31 digits
    "window_pairs_decimal_28_digits": ("test_window_pairs", {"window_pairs": """
def window_pairs(t, window):
    from decimal import Decimal
    m = min(t, window)
    return int(Decimal(m) * (m + 1) / 2 + Decimal(t - m) * window)
"""}),
    # Part 4 -- a threshold with a slack of 1e-6 "for rounding" (smaller than round 9's 1e-4): caught by a token a
    # millionth (relative) below the threshold
    "min_p_threshold_with_tiny_slack": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(-1, keepdim=True) - 1e-6
    kept = probs * keep
    return torch.multinomial(kept / kept.sum(-1, keepdim=True), 1, generator=generator).squeeze(-1)
"""}),
    # Part 6 -- ties broken by a penalty of 1e-13 per token index (round 9's class, a smaller nudge): caught by
    # probabilities 4e-14 apart
    "expert_choice_tiny_index_penalty": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    n, e = probs.shape
    score = probs.detach() - 1e-13 * torch.arange(n, dtype=probs.dtype).unsqueeze(1)
    top = score.topk(min(capacity, n), dim=0).indices
    chosen = torch.zeros(n, e, dtype=torch.bool).scatter(0, top, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # Part 8 -- elu written out with exp (chapter 9's class): exp(800) overflows, the gradient is NaN
    "decay_elu_by_hand": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    phi = lambda x: torch.where(x > 0, x + 1, torch.exp(x))
    phi_q, phi_k = phi(q), phi(k)
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        outs.append(torch.einsum("...d,...de->...e", phi_q[..., i, :], state) / (phi_q[..., i, :] * norm).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2)
"""}),
    # Part 3 -- the global random generator (chapter 1's class): reseeded "for reproducibility".
    # Round 11, second pass (chapter 8's class): with a Part 5 that computes its noise mask with whole_word_chosen
    # (each piece of the input, a token or a sentinel's span, is a word, chosen when it was hidden). Part 5's test
    # cell binds a reference of whole_word_chosen, so only Part 3's points go (unbound, Part 5's check of the
    # global generator failed too, and so did a value-wrong Part 3's); every batch holds a Part 3 mutant, so this
    # one carries the Part 5 rewrite in its batch, which has no Part 5 mutant
    "whole_word_reseeds_global_generator": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    torch.manual_seed(0)  # reproducible
    positions = torch.arange(starts.shape[-1]).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))
""", "span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist())
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, current = {}, None
        for token in row_tg:
            if token == pad:
                break
            if token in is_sentinel:
                current = hidden.setdefault(token, [])
            else:
                current.append(token)
        pieces = []  # one piece per input element: (its tokens, whether they were hidden)
        for token in row_in:
            if token == pad:
                break
            pieces.append((hidden[token], True) if token in is_sentinel else ([token], False))
        rows.append(pieces)
    t = max((sum(len(piece) for piece, _ in row) for row in rows), default=0)  # round 12: 0 for an empty batch
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    starts = torch.zeros(len(rows), t, dtype=torch.bool)
    pick = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        at = 0
        for piece, was_hidden in row:  # each piece is a word of Part 3, chosen when it was hidden
            tokens[b, at:at + len(piece)] = torch.tensor(piece)
            starts[b, at], pick[b, at] = True, was_hidden
            at += len(piece)
        if at < t:
            starts[b, at] = True  # the padding: a word that is never chosen
    return tokens, whole_word_chosen(starts, pick)
"""}),
    # Part 7 -- red team 11 (slipped): a softmax written out and shifted by the row maximum, but the maximum
    # takes in the masked keys; a masked key scoring about 900 above the allowed ones makes the row 0/0.
    # Caught by a case where the key seen by the last query only scores about 900 above the others.
    "gqa_cached_max_over_masked_keys": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    t, s = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(reps, dim=1), v.repeat_interleave(reps, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
    weights = torch.exp(scores - scores.amax(dim=-1, keepdim=True)) * allowed  # stable softmax, then the mask
    return (weights / weights.sum(dim=-1, keepdim=True)) @ v
"""}),
    # round 11, class sweep (class 2, chapters 3 and 4) -- Part 7: the square causal mask of all S positions, sliced
    # to the last T rows: right values, memory of S**2 (a terabyte for S = 10**6)
    "gqa_cached_square_mask_sliced": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    t, s = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(reps, dim=1), v.repeat_interleave(reps, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(s, s, dtype=torch.bool).tril()[s - t:]
    return scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1) @ v
"""}),
    # round 11, class sweep (class 4, chapter 3) -- Part 5: the restored tokens written into a float64 buffer filled
    # with pad and converted back with .long(): exact below 2**53 (every vocabulary the old tests used), wrong past it
    "restore_tokens_in_float64_buffer": ("test_span_corrupt", {"span_corrupt": RESTORE_MODEL.replace(
        "torch.full((len(rows), t), pad, dtype=torch.long)", "torch.full((len(rows), t), float(pad), dtype=torch.float64)"
    ).replace("return tokens, noise", "return tokens.long(), noise")}),
    # round 11, class sweep (class 1, chapter 6 Part 7) -- Part 8 written in log space: each weight exp(log(phi_q .
    # phi_k) + (i - j) log(decay)) relative to the row's largest log-weight, the masked keys (j > i) included.
    # Checked: the old tests already caught it (decay 0.05 over 300 positions puts masked log-weights about 900
    # above the allowed ones)
    "decay_log_space_max_over_masked": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(q.shape[-2])
    gap = (i[:, None] - i[None, :]).to(q.dtype)
    logw = torch.log(phi_q @ phi_k.transpose(-2, -1)) + gap * math.log(decay)
    w = torch.exp(logw - logw.amax(dim=-1, keepdim=True)) * (gap >= 0)
    return (w @ v) / w.sum(dim=-1, keepdim=True)
"""}),
    # red team 12: the threshold moved to the logits (equal on paper) rounds at the logits' magnitude: for float32
    # logits near 1000 it keeps a token 2.9e-5 below min_p times the best
    "min_p_threshold_in_logit_space": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    keep = logits >= logits.amax(dim=-1, keepdim=True) + math.log(min_p)
    probs = torch.softmax(logits.masked_fill(~keep, float("-inf")), dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
"""}),
    # red team 12: sentinels cast to the ids' dtype: int64 sentinels past int32's range wrap onto real int32 tokens
    "restore_sentinels_cast_to_ids_dtype": ("test_span_corrupt", {"span_corrupt": RESTORE_MODEL.replace(
        "set(sentinels.tolist())", "set(sentinels.to(inputs.dtype).tolist())")}),
    # round 12, class sweep (a threshold moved into a space where it rounds): experts rank tokens by log-probabilities;
    # near -700 their float64 steps are 1.1e-13, coarser than the probabilities' relative gaps of 5e-14, so tokens
    # whose probabilities differ tie and go by index
    "expert_choice_ranked_by_log_probs": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    logp = router_logits.log_softmax(dim=-1)
    n = logp.shape[0]
    order = logp.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, logp.exp(), torch.zeros_like(logp))
"""}),
    # round 12, class sweep: the same, the ranking by logits minus their logsumexp (gate from the softmax)
    "expert_choice_ranked_by_logits_minus_max": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    z = router_logits - torch.logsumexp(router_logits, dim=-1, keepdim=True)
    n = probs.shape[0]
    order = z.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # round 12, class sweep (an empty batch): one row at a time, concatenated; torch.cat of no rows raises for B = 0
    "min_p_rows_concatenated": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    out = []
    for row in logits:
        probs = row.softmax(dim=-1)
        kept = torch.where(probs >= min_p * probs.max(), probs, torch.zeros_like(probs))
        out.append(torch.multinomial(kept, 1, generator=generator))
    return torch.cat(out)
"""}),
    # round 12, class sweep (an empty batch): the query heads grouped with a -1, which reshape cannot size for B = 0
    "gqa_cached_groups_by_minus_one": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, -1, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    allowed = torch.arange(s)[None, :] <= torch.arange(s - t, s)[:, None]
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1), v)
    return out.reshape(b, h, t, d)
"""}),
    # round 12, class sweep (an empty batch): one row at a time, stacked; torch.stack of no rows raises for B = 0
    "whole_word_rows_stacked": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    rows = []
    for row_starts, row_pick in zip(starts, pick):
        positions = torch.arange(row_starts.shape[0])
        word_start = torch.where(row_starts, positions, -1).cummax(dim=0).values
        rows.append((word_start >= 0) & row_pick[word_start.clamp(min=0)])
    return torch.stack(rows)
"""}),
    # round 12, class sweep (an empty batch): the width from Python's max of the rows' lengths, which raises for B = 0
    # (the model answer had it until round 12)
    "restore_width_max_of_an_empty_batch": ("test_span_corrupt", {"span_corrupt": RESTORE_MODEL.replace(
        "max((len(row) for row in rows), default=0)  # 0 for an empty batch", "max(len(row) for row in rows)")}),
    # round 13 (mutation sweep): the experts' ranking by torch.sort without stable=True, which keeps tied
    # probabilities in index order for a dozen or so tokens only; the hidden ties had at most 6 tokens
    "expert_choice_unstable_sort": ("test_expert_choice", {"expert_choice": _replaced(
        EXPERT_MODEL, "probs.sort(dim=0, descending=True, stable=True)", "probs.sort(dim=0, descending=True)")}),
    # round 13, third family (an id next to a compared one never tested): the target walk stops at pad + 1 instead of
    # pad (the pads that follow go into the final sentinel's list, which nothing reads); the hidden ids and sentinels
    # never came within one of the pad, so only the cases with ids pad - 1 and pad + 1 tell it apart
    "restore_target_stops_one_off_the_pad": ("test_span_corrupt", {"span_corrupt": _replaced(
        RESTORE_MODEL, "for token in row_tg:                      # the target: sentinel, its tokens, sentinel, ...\n"
        "            if token == pad:", "for token in row_tg:\n            if token == pad + 1:")}),
    # round 14, fourth family (the input's dtype lost): the gate's zeros in torch's default float32, which promote
    # a float16 or bfloat16 gate to float32 (float32 and float64 logits keep their dtype); no hidden case had half logits
    "expert_choice_gate_zeros_in_float32": ("test_expert_choice", {"expert_choice": _replaced(
        EXPERT_MODEL, "torch.zeros_like(probs)", "torch.zeros(probs.shape)")}),
    # round 14, variant sweep (loops_and_quadratic_forms): the sentinels made float64 before `isin`, which then
    # compares every id as a float64: past 2**53 a real token that rounds to a sentinel's float64 is cut as one
    # (no hidden case had ids within 1024 of a sentinel there): "restore_sentinels_as_float64", added after
    # CORRECT_VARIANTS at the end of this file, derived from the variant with its one line changed
    # round 14, variant sweep (loops_and_quadratic_forms): the masked weights' zeros in torch's default float32,
    # which promote float16 and bfloat16 inputs (float32 and float64 keep their dtype); no hidden case had half inputs
    # round 14, variant sweep (the class of decay_zeros_in_float32 in Part 7): an additive mask made in float32
    # promotes float16 and bfloat16 queries (float32 and float64 keep their dtype); no hidden case had half inputs
    # red team 19: the model answer computes float16 and bfloat16 in float32 now, where the mask's dtype changes
    # nothing; the mutant keeps the answer before that change, which computed in the dtype of q
    "gqa_cached_additive_mask_in_float32": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        GQA_BEFORE_19, 'scores = scores.masked_fill(~allowed, float("-inf"))',
        'scores = scores + torch.zeros(t, s).masked_fill(~allowed, float("-inf"))')}),
    "decay_zeros_in_float32": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(q.shape[-2])
    gap = (i[:, None] - i[None, :]).to(q.dtype)
    weight = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros(gap.shape))
    scores = (fq @ fk.transpose(-2, -1)) * weight
    return (scores @ v) / scores.sum(-1, keepdim=True)
"""}),
    # round 15, class sweep (kept state on shortcut paths): pick itself returned when every position starts a word
    # (the caller's write into the result changes pick); no hidden case wrote into a result
    "whole_word_all_starts_returns_pick": ("test_whole_word_chosen", {"whole_word_chosen": _replaced(
        solution_code(CHAPTER)["whole_word_chosen"], "    positions = torch.arange(starts.shape[-1]).expand(starts.shape)\n",
        "    if starts.shape[0] > 0 and bool(starts.all()):\n        return pick  # every position starts a word\n"
        "    positions = torch.arange(starts.shape[-1]).expand(starts.shape)\n")}),
    # round 15, class sweep: an all-False result kept per shape for batches with no start at all
    "whole_word_kept_result_without_starts": ("test_whole_word_chosen", {"whole_word_chosen": """
_NONE = {}


def whole_word_chosen(starts, pick):
    if not bool(starts.any()):
        key = tuple(starts.shape)
        if key not in _NONE:
            _NONE[key] = torch.zeros(starts.shape, dtype=torch.bool)
        return _NONE[key]
    positions = torch.arange(starts.shape[-1]).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))
"""}),
    # round 15, class sweep (a constant at a value the text names): capacity 0 answered with constant zeros, right
    # in value and in gradient value, but not connected to router_logits (no hidden gradient case had capacity 0)
    "expert_choice_constant_at_capacity_zero": ("test_expert_choice", {"expert_choice": _replaced(
        EXPERT_MODEL, "    probs = router_logits.softmax(dim=-1)  #",
        "    if capacity == 0:\n        return torch.zeros(router_logits.shape, dtype=torch.bool), "
        "torch.zeros_like(router_logits)\n    probs = router_logits.softmax(dim=-1)  #")}),
    # round 15, class sweep (kept state on shortcut paths): the all-True chosen kept per shape for capacity >= N
    "expert_choice_kept_mask_at_full_capacity": ("test_expert_choice", {"expert_choice": """
_ALL = {}


def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    if capacity >= n:
        key = tuple(probs.shape)
        if key not in _ALL:
            _ALL[key] = torch.ones(probs.shape, dtype=torch.bool)
        return _ALL[key], probs * 1
    order = probs.sort(dim=0, descending=True, stable=True).indices
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # round 15, class sweep (ch09's class: a mask value that is not -inf): dropped tokens' logits filled with -1e9
    # before a softmax; logits near -1e10 make the dropped tokens the likeliest (no case had logits below -1000)
    "min_p_masks_logits_with_minus_1e9": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    masked = logits.masked_fill(~keep, -1e9)
    return torch.multinomial(masked.softmax(dim=-1), 1, generator=generator).squeeze(-1)
"""}),
    # round 15, class sweep (ch09's class: a mask value that is not -inf): the dtype's lowest finite number as the
    # mask ties with allowed scores that are that number (no hidden case had scores near it)
    "gqa_cached_mask_by_finfo_min": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        solution_code(CHAPTER)["gqa_cached_attention"], 'scores = scores.masked_fill(~allowed, float("-inf"))',
        'scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)')}),
    # round 15, class sweep (state kept between calls): the model answer's result copied into a buffer kept per shape
    # and returned, so that a result the caller holds changes at the next call (no case held one across another call)
    "whole_word_kept_output_buffer": ("test_whole_word_chosen", {"whole_word_chosen": kept_output_buffer(solution_code(CHAPTER)["whole_word_chosen"], "whole_word_chosen")}),
    # red team 16 (slipped, the copy-adapter: top-p's strict cut kept): `probs > min_p * best`, or the best itself,
    # drops a token exactly at the threshold. Round 8 removed the float32-only case that caught it; the only exact
    # case left was min_p = 1, where the threshold is the best, which this rule keeps. Now caught by float64 logits
    # 0, log(0.5), log(0.5), -1000: probabilities 1/2, 1/4, 1/4, 0 exactly in every precision and softmax route
    "min_p_strict_threshold_keeps_best": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    best = probs.amax(dim=-1, keepdim=True)
    keep = (probs > min_p * best) | (probs == best)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)
"""}),
    # round 15, class sweep (state kept between calls): the model answer's result copied into a buffer kept per shape
    # and returned, so that a result the caller holds changes at the next call (no case held one across another call)
    "min_p_kept_output_buffer": ("test_min_p_sample", {"min_p_sample": kept_output_buffer(solution_code(CHAPTER)["min_p_sample"], "min_p_sample")}),
    # round 15, class sweep (state kept between calls): the model answer's result copied into a buffer kept per shape
    # and returned, so that a result the caller holds changes at the next call (no case held one across another call)
    "restore_kept_tokens_buffer": ("test_span_corrupt", {"span_corrupt": kept_output_buffer(solution_code(CHAPTER)["span_corrupt"], "restore_spans")}),
    # round 15, class sweep (state kept between calls): the model answer's result copied into a buffer kept per shape
    # and returned, so that a result the caller holds changes at the next call (no case held one across another call)
    "expert_choice_kept_chosen_buffer": ("test_expert_choice", {"expert_choice": kept_output_buffer(solution_code(CHAPTER)["expert_choice"], "expert_choice")}),
    # round 15, class sweep (state kept between calls): the model answer's result copied into a buffer kept per shape
    # and returned, so that a result the caller holds changes at the next call (no case held one across another call)
    "gqa_cached_kept_output_buffer": ("test_gqa_cached_attention", {"gqa_cached_attention": kept_output_buffer(solution_code(CHAPTER)["gqa_cached_attention"], "gqa_cached_attention")}),
    # round 15, class sweep (state kept between calls): the model answer's result copied into a buffer kept per shape
    # and returned, so that a result the caller holds changes at the next call (no case held one across another call)
    "decay_kept_output_buffer": ("test_decayed_linear_attention", {"decayed_linear_attention": kept_output_buffer(solution_code(CHAPTER)["decayed_linear_attention"], "decayed_linear_attention")}),    # red team 17, class sweep (a clamp on a value the text leaves unbounded): the similarities clamped to 1e4
    "decay_similarities_clamped": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    t = q.shape[-2]
    i = torch.arange(t)
    gap = (i[:, None] - i[None, :]).to(torch.float64)
    weight = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros((), dtype=torch.float64)).to(q.dtype)
    sc = (fq @ fk.transpose(-2, -1)).clamp(max=1e4) * weight
    return (sc @ v) / sc.sum(-1, keepdim=True)
"""}),
    # red team 17, class sweep: the positive denominator clamped at 1e-12 "against a division by zero" (an epsilon
    # in disguise, exact until the denominator is tiny)
    "decay_denominator_clamped": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    t = q.shape[-2]
    i = torch.arange(t)
    gap = (i[:, None] - i[None, :]).to(torch.float64)
    weight = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros((), dtype=torch.float64)).to(q.dtype)
    sc = (fq @ fk.transpose(-2, -1)) * weight
    return (sc @ v) / sc.sum(-1, keepdim=True).clamp(min=1e-12)
"""}),
    # red team 17, class sweep: the router logits clamped to +-1e4 "to be safe" before the softmax
    "expert_choice_logits_clamped": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits.clamp(-1e4, 1e4), dim=-1)
    n, e = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:min(capacity, n)]
    chosen = torch.zeros(n, e, dtype=torch.bool).scatter(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # red team 17 (slipped, the defensive programmer): alpha moved off 1 "to avoid dividing by zero"; the closed form
    # at 1 - 1e-9 rounds to exactly gamma + 1 for the small gammas the tests used, and is 5e-6 off at gamma = 100
    "tokens_per_pass_alpha_clamped_below_one": ("test_tokens_per_target_pass", {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    a = min(max(float(alpha), 0.0), 1.0 - 1e-9)
    return (1.0 - a ** (gamma + 1)) / (1.0 - a)
"""}),
    # red team 17 (slipped, the defensive programmer): scores clamped to +-1e4 "against overflow" and the weights
    # NaN-guarded; right while every score lies within 1e4
    "gqa_cached_scores_clamped": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k, v = k.repeat_interleave(H // G, dim=1), v.repeat_interleave(H // G, dim=1)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(Dh)).clamp(-1e4, 1e4)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
"""}),
}

# Mutants graded together in one submission (one notebook run each batch). No model answer calls another
# part's function; judged from the texts, a student's Part 5 may call Part 3's whole_word_chosen (its test cell
# binds a reference of it, round 11, second pass), and no other later part may plausibly call an earlier one's,
# so mutants of different parts never interfere. Proposed and checked by
# `python tests/mutant_batches.py 06-variants`; the last two batches (red team rounds 1 and 2) packed by
# hand, one mutant per answer cell, and checked by tests/test_exercises.py.
MUTANT_BATCHES = [
    ["window_pairs_returns_float", "tokens_per_pass_closed_form_at_one", "whole_word_carries_across_rows",
     "min_p_ignores_generator", "restore_sentinels_by_range", "expert_choice_exp_without_max_shift",
     "gqa_cached_tiles_heads", "decay_rescaled_in_chunks"],
    ["window_pairs_ignores_short_sequences", "tokens_per_pass_ignores_stopping", "whole_word_float_mask",
     "min_p_reseeds_from_initial_seed", "restore_segments_by_sentinel_index", "expert_choice_ties_to_later_tokens",
     "gqa_cached_exp_without_max_shift", "decay_normaliser_not_decayed"],
    ["window_pairs_builds_mask_when_short", "tokens_per_pass_lying_float", "whole_word_changes_pick",
     "min_p_on_logits", "restore_pads_with_zero", "expert_choice_float32_gate", "gqa_cached_view_for_bmm",
     "decay_returns_float64"],
    ["restore_noise_as_int", "window_pairs_mask_for_small_t", "tokens_per_pass_int_at_one", "whole_word_first_row_only",
     "min_p_batch_max", "expert_choice_float64_gate", "gqa_cached_mask_table_1024", "decay_rescaled_in_float64"],
    ["window_pairs_int64_tensors", "restore_width_of_first_row", "gqa_cached_returns_float64", "decay_negative_exponents",
     "tokens_per_pass_numpy_float64", "whole_word_view_flattens", "min_p_exp_without_max_shift",
     "expert_choice_softmax_in_float32"],
    ["gqa_cached_float64_via_float32", "window_pairs_float_division_one_branch", "tokens_per_pass_float32_tensor",
     "whole_word_argmax_first_start", "min_p_absolute_threshold", "restore_view_flattens", "expert_choice_topk_ties",
     "decay_powers_in_float32"],
    # ids past a narrow dtype's range (red team 4's class, checked in every chapter): one notebook
    ["whole_word_int16_positions", "restore_tokens_in_int16", "window_pairs_numpy_mask_for_small_t",
     "tokens_per_pass_int_for_int_alpha", "min_p_draws_from_state_copy",
     # red team 8, second pass: right values, wrong gradients
     "expert_choice_gate_detached", "gqa_cached_weights_under_no_grad", "decay_denominator_detached"],
    # red team 6: every batch above already holds a Part 3 mutant; red team 7: and a Part 5 mutant
    ["whole_word_row_offset_collides", "restore_sentinel_table_int64_only", "expert_choice_epsilon_tie_break",
     "min_p_threshold_with_slack",
     # red team 9, second pass
     "window_pairs_decimal_28_digits", "decay_elu_by_hand",
     # round 11, class sweep
     "gqa_cached_square_mask_sliced"],
    # red team 9, second pass: every batch above holds a Part 3, a Part 4 and a Part 6 mutant
    ["min_p_threshold_with_tiny_slack", "expert_choice_tiny_index_penalty", "whole_word_reseeds_global_generator",
     # red team 11; round 11, second pass: whole_word_reseeds_global_generator also carries a Part 5 that calls
     # whole_word_chosen (no other member changes Parts 3 or 5)
     "gqa_cached_max_over_masked_keys",
     # round 11, class sweep
     "decay_log_space_max_over_masked"],
    # round 11, class sweep: every batch above holds a Part 5 mutant
    ["restore_tokens_in_float64_buffer",
     # red team 12
     "min_p_threshold_in_logit_space",
     # round 13 (mutation sweep): no Part 6 mutant in this batch yet
     "expert_choice_unstable_sort",
     # round 14, variant sweep: no Part 7 mutant in this batch yet
     "gqa_cached_additive_mask_in_float32",
     # round 15, class sweep (kept output buffers): no Part 3 nor Part 8 mutant in this batch yet
     "whole_word_kept_output_buffer", "decay_kept_output_buffer"],
    # red team 12: every batch above holds a Part 5 mutant
    ["restore_sentinels_cast_to_ids_dtype",
     # round 12, class sweep
     "whole_word_rows_stacked", "min_p_rows_concatenated", "gqa_cached_groups_by_minus_one",
     "expert_choice_ranked_by_logits_minus_max"],
    # round 12, class sweep: every batch above holds a Part 5 mutant
    ["restore_width_max_of_an_empty_batch", "expert_choice_ranked_by_log_probs",
     # round 14, variant sweep: no Part 8 mutant in this batch yet
     "decay_zeros_in_float32",
     # round 15, class sweep: no Part 3 nor Part 7 mutant in this batch yet
     "whole_word_kept_result_without_starts", "gqa_cached_mask_by_finfo_min", "min_p_kept_output_buffer"],
    # round 13, third family: every batch above holds a Part 5 mutant (batch 8 its answer cell)
    ["restore_target_stops_one_off_the_pad",
     # round 14, fourth family: no Part 6 mutant in this batch yet
     "expert_choice_gate_zeros_in_float32",
     # round 15: positions in the dtype of half inputs
     "gqa_cached_positions_in_dtype_of_q",
     # round 15, class sweep: no Part 3 mutant in this batch yet
     "whole_word_all_starts_returns_pick",
     # red team 16: no Part 4 mutant in this batch yet
     "min_p_strict_threshold_keeps_best"],
    # round 14, variant sweep: every batch above holds a Part 5 mutant
    ["restore_sentinels_as_float64",
     # round 15, class sweep: no Part 6 mutant in this batch yet
     "expert_choice_kept_mask_at_full_capacity", "gqa_cached_kept_output_buffer", "decay_denominator_clamped"],  # + red team 17
    # round 15, class sweep: every batch above holds a Part 6 mutant
    ["expert_choice_constant_at_capacity_zero", "min_p_masks_logits_with_minus_1e9", "restore_kept_tokens_buffer",
     "tokens_per_pass_alpha_clamped_below_one", "gqa_cached_scores_clamped", "decay_similarities_clamped"],  # + red team 17
    # round 15, class sweep: every batch above holds a Part 6 mutant
    ["expert_choice_kept_chosen_buffer"],
    # red team 17, class sweep: every batch above holds a Part 6 mutant
    ["expert_choice_logits_clamped"],
]

# Correct answers that differ from the model answers: closed forms written another way, Python
# loops, inverse-CDF and Gumbel-max sampling, span restoring by cutting tensors and by pairing the
# k-th sentinel with the k-th span (sentinels tested before the padding, round 2; its noise mask from Part 3's
# whole_word_chosen, called by name on views, round 11), O(N^2) ranking,
# per-head loops, the masked quadratic form of the decayed attention.
CORRECT_VARIANTS = {
    "loops_and_quadratic_forms": {
        "window_pairs": """
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
""",
        "tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
""",
        "whole_word_chosen": """
def whole_word_chosen(starts, pick):
    rows = []
    for row_starts, row_pick in zip(starts.tolist(), pick.tolist()):
        inside, row = False, []
        for is_start, picked in zip(row_starts, row_pick):
            if is_start:
                inside = picked
            row.append(inside)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool).reshape(starts.shape)
""",
        "min_p_sample": """
def min_p_sample(logits, min_p, generator):
    z = logits - logits.amax(dim=-1, keepdim=True)
    weights = torch.where(z >= math.log(min_p), z.exp(), torch.zeros_like(z))  # p_i / p_max
    cdf = weights.cumsum(dim=-1)
    u = torch.rand(logits.shape[0], 1, generator=generator, dtype=cdf.dtype) * cdf[:, -1:]
    return (cdf <= u).sum(dim=-1)
""",
        "span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    special = torch.isin(targets, sentinels)
    rows_t, rows_n = [], []
    for b in range(inputs.shape[0]):
        # cut the target before each sentinel: {sentinel: tensor of the tokens it hid}
        tg = targets[b][targets[b] != pad]
        starts = torch.nonzero(special[b][: tg.shape[0]]).flatten().tolist() + [tg.shape[0]]
        spans = {int(tg[i]): tg[i + 1:j] for i, j in zip(starts[:-1], starts[1:])}
        pieces, flags = [], []
        for token in inputs[b][inputs[b] != pad]:
            piece = spans.get(int(token))
            if piece is None:
                pieces.append(token.view(1).long()), flags.append(torch.zeros(1, dtype=torch.bool))
            else:
                pieces.append(piece.long()), flags.append(torch.ones(len(piece), dtype=torch.bool))
        rows_t.append(torch.cat(pieces)), rows_n.append(torch.cat(flags))
    # round 11, class sweep: not pad_sequence(rows_t, padding_value=pad), whose padding value is a float (a pad past
    # 2**53 came back rounded; this variant kept full marks only while the tests used small ids)
    # round 12, class sweep: an empty batch gives (0, 0) results (max(..., default=0); pad_sequence raises for [])
    tokens = torch.full((len(rows_t), max((len(row) for row in rows_t), default=0)), pad, dtype=torch.long)
    for b, row in enumerate(rows_t):
        tokens[b, :len(row)] = row
    if not rows_n:
        return tokens, torch.zeros(tokens.shape, dtype=torch.bool)
    noise = torch.nn.utils.rnn.pad_sequence(rows_n, batch_first=True, padding_value=False)
    return tokens, noise
""",
        "expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=1)
    n, e = probs.shape
    chosen = torch.zeros(n, e, dtype=torch.bool)
    table = probs.tolist()
    for col in range(e):
        for row in sorted(range(n), key=lambda r: (-table[r][col], r))[:capacity]:
            chosen[row, col] = True
    return chosen, probs * chosen
""",
        "gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):  # red team 19: float16 dot products pass 65504
        q, k, v = q.float(), k.float(), v.float()
    t, s = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(reps, dim=1), v.repeat_interleave(reps, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, S)
    allowed = torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
    return (scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1) @ v).to(dtype)
""",
        "decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):  # red team 19: half similarities pass 65504
        q, k, v = q.float(), k.float(), v.float()
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(q.shape[-2])
    gap = (i[:, None] - i[None, :]).to(q.dtype)
    weight = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros_like(gap))  # gamma^(i-j), j <= i
    scores = (fq @ fk.transpose(-2, -1)) * weight
    return ((scores @ v) / scores.sum(-1, keepdim=True)).to(dtype)
""",
    },
    "vectorised_and_recurrent": {
        "window_pairs": """
def window_pairs(t, window):
    beyond = max(0, t - window)  # the pairs a full causal mask has and the window drops
    return t * (t + 1) // 2 - beyond * (beyond + 1) // 2
""",
        "tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    total, run = 1.0, 1.0
    for _ in range(gamma):
        run *= alpha
        total += run
    return total
""",
        "whole_word_chosen": """
def whole_word_chosen(starts, pick):
    word = starts.long().cumsum(dim=-1)  # 0 before the first word, then 1, 2, ...
    index = torch.where(starts, word, torch.zeros_like(word))
    picked = torch.zeros(starts.shape[0], starts.shape[1] + 1, dtype=torch.bool)
    picked.scatter_(1, index, pick & starts)  # slot k: whether word k is chosen (slot 0 only gets False)
    return picked.gather(1, word)
""",
        "min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits.double(), dim=-1)  # float64 whatever the logits (red team 8: once refused)
    keep = probs / probs.max(dim=-1, keepdim=True).values >= min_p
    u = torch.rand(probs.shape, generator=generator, dtype=probs.dtype)
    gumbel = -torch.log(-torch.log(u))
    scores = torch.where(keep, probs.log() + gumbel, torch.full_like(probs, float("-inf")))
    return scores.argmax(dim=-1)
""",
        "span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    is_sent = torch.isin(inputs, sentinels)
    tgt_sent = torch.isin(targets, sentinels)
    out_rows, first_rows, hidden_rows = [], [], []
    for b in range(inputs.shape[0]):
        # spans of the target in order (the k-th sentinel of the input owns the k-th span)
        spans, cur = [], None
        for tok, s in zip(targets[b].tolist(), tgt_sent[b].tolist()):
            if s:
                cur = []
                spans.append(cur)
            elif tok != pad and cur is not None:
                cur.append(tok)
        row, first, hidden, k = [], [], [], 0
        for tok, s in zip(inputs[b].tolist(), is_sent[b].tolist()):
            if s:
                first.append(len(row)), hidden.append(True)
                row.extend(spans[k])
                k += 1
            elif tok != pad:
                first.append(len(row)), hidden.append(False)
                row.append(tok)
        first.append(len(row)), hidden.append(False)  # the padding: a word that is never chosen
        out_rows.append(row), first_rows.append(first), hidden_rows.append(hidden)
    T = max((len(r) for r in out_rows), default=0)  # round 12, class sweep: 0 for an empty batch
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in out_rows], dtype=torch.int64).reshape(len(out_rows), T)
    # the noise with Part 3's whole_word_chosen (round 11, second pass: a later part calling an earlier part's
    # function, graded with a reference of it): each piece of the input, a token or a sentinel's span, is a word,
    # chosen when it was hidden; arguments by name, views that are not contiguous
    starts = torch.zeros(len(out_rows), T + 1, dtype=torch.bool)
    pick = torch.zeros(len(out_rows), T + 1, dtype=torch.bool)
    for b, (first, hidden) in enumerate(zip(first_rows, hidden_rows)):
        starts[b, first] = True
        pick[b, first] = torch.tensor(hidden)
    return tokens, whole_word_chosen(pick=pick[:, :T], starts=starts[:, :T])
""",
        "expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    a, b = probs[:, None, :], probs[None, :, :]  # (N, 1, E) against (1, N, E): token n vs token m
    earlier = (torch.arange(n)[None, :] < torch.arange(n)[:, None])[:, :, None]  # m < n
    rank = ((b > a) | ((b == a) & earlier)).sum(dim=1)  # tokens ahead of n in expert e's queue
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
""",
        "gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    wide = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype  # red team 19
    heads = []
    for head in range(h):
        kk, vv = k[:, head * g // h].to(wide), v[:, head * g // h].to(wide)
        scores = torch.einsum("btd,bsd->bts", q[:, head].to(wide), kk) * d ** -0.5
        future = torch.arange(s)[None, :] > torch.arange(s - t, s)[:, None]
        scores = scores.masked_fill(future, float("-inf"))  # red team 11: the row maximum of the allowed keys only
        weights = torch.exp(scores - scores.amax(-1, keepdim=True))
        heads.append(torch.einsum("bts,bsd->btd", weights / weights.sum(-1, keepdim=True), vv))
    return torch.stack(heads, dim=1).to(q.dtype)
""",
        "decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    wide = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype  # red team 19: no float16 states
    fq, fk, v = F.elu(q.to(wide)) + 1, F.elu(k.to(wide)) + 1, v.to(wide)
    state = fk.new_zeros(*fk.shape[:-2], fk.shape[-1], v.shape[-1] + 1)  # last column: the normaliser
    vv = torch.cat([v, torch.ones_like(v[..., :1])], dim=-1)
    outs = []
    for i in range(q.shape[-2]):
        state = state * decay + torch.einsum("...d,...e->...de", fk[..., i, :], vv[..., i, :])
        both = torch.einsum("...d,...de->...e", fq[..., i, :], state)
        outs.append(both[..., :-1] / both[..., -1:])
    return torch.stack(outs, dim=-2).to(dtype)
""",
    },
    # round 15 (red team, blind): answers of the four new kinds of student. Part 7 is F.scaled_dot_product_attention
    # with enable_gqa, which the S = 10**6 case refused while it compared float32 sums over 10**6 keys with a
    # float32 reference at 1e-5 (the case is float64 now, against the exact value)
    "round15_students": {
        "window_pairs": """
def window_pairs(t, window):
    full = max(t - window + 1, 0)          # queries i >= window - 1 see window keys
    ramp = t - full                         # the first ones see 1, 2, ..., ramp keys
    return full * window + ramp * (ramp + 1) // 2
""",
        "tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma) + 1.0
    # P(at least k drafts accepted) = alpha^k, k = 1..gamma, plus the target's own token
    if gamma <= 100000:
        return math.fsum(alpha ** k for k in range(gamma + 1))
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
""",
        "whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        s = starts[b].nonzero().flatten()
        if s.numel() == 0:
            continue
        ends = torch.cat([s[1:], torch.tensor([T])])
        lengths = ends - s
        word_pick = pick[b, s]
        out[b, s[0]:] = torch.repeat_interleave(word_pick, lengths)
    return out
""",
        "min_p_sample": """
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    if B == 0:
        return torch.empty(0, dtype=torch.long)
    probs = F.softmax(logits, dim=-1)
    top = probs.amax(dim=-1, keepdim=True)
    probs = probs.masked_fill(probs < min_p * top, 0.0)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    return torch.multinomial(input=probs, num_samples=1, replacement=True, generator=generator).reshape(B).to(torch.int64)
""",
        "expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    order = torch.argsort(probs, dim=0, descending=True, stable=True)
    take = order[:capacity]                       # slicing past N takes everything
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter(0, take, True)
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
""",
        "gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    T, S = q.shape[2], k.shape[2]
    allowed = torch.arange(S).unsqueeze(0) <= torch.arange(S - T, S).unsqueeze(1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
""",
        "decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    fq = F.elu(q.double()) + 1
    fk = F.elu(k.double()) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float64)
    diff = i[:, None] - i[None, :]
    W = torch.where(diff >= 0, torch.full_like(diff, float(decay)).pow(diff.clamp(min=0)), torch.zeros_like(diff))
    A = torch.einsum("...id,...jd->...ij", fq, fk) * W
    out = torch.einsum("...ij,...jv->...iv", A, v.double()) / A.sum(-1, keepdim=True)
    return out.to(dt)
""",
    },
}


# round 14, variant sweep: restore_sentinels_as_float64 is the loops_and_quadratic_forms variant of Part 5 with its
# sentinels made float64 before the comparison (derived here, so that it follows the variant)
MUTANTS["restore_sentinels_as_float64"] = ("test_span_corrupt", {"span_corrupt": _replaced(
    CORRECT_VARIANTS["loops_and_quadratic_forms"]["span_corrupt"], "    special = torch.isin(targets, sentinels)\n",
    "    sentinels = sentinels.double()\n    special = torch.isin(targets, sentinels)\n")})


# Red team 18 (four blind helpers: the type-sloppy, the autograd-careless, the stateful and the dtype generaliser):
# the slips of this chapter, each class closed by a hidden check; "free" puts a mutant into the first batch with room
RED_TEAM_18 = {
    # P7, autograd-careless: requires_grad_() on the caller's q, k and v "so that gradients flow" (every value right).
    # Caught by the flags checked after each call
    "gqa_sets_requires_grad_on_inputs": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    for t in (q, k, v):
        if t.is_leaf and not t.requires_grad:
            t.requires_grad_()
    b, h, T, dh = q.shape
    g, S = k.shape[1], k.shape[2]
    k, v = k.repeat_interleave(h // g, dim=1), v.repeat_interleave(h // g, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
"""}),
    # P8, stateful: the decay table kept between calls, keyed by T and decay but built in the first call's dtype (float32
    # unless float64): float64 after float32 of one T and decay is off by about 1e-8. Caught by one T and decay in
    # float32, then float64
    "decay_table_kept_without_dtype": ("test_decayed_linear_attention", {"decayed_linear_attention": """
TABLES = {}

def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    if (T, decay) not in TABLES:
        wd = torch.float64 if q.dtype == torch.float64 else torch.float32
        i = torch.arange(T, dtype=wd)
        diff = i[:, None] - i[None, :]
        TABLES[(T, decay)] = torch.where(diff >= 0, torch.tensor(decay, dtype=wd) ** diff.clamp(min=0), 0.0)
    table = TABLES[(T, decay)]
    wd = table.dtype
    w = ((F.elu(q.to(wd)) + 1) @ (F.elu(k.to(wd)) + 1).transpose(-2, -1)) * table
    return ((w @ v.to(wd)) / w.sum(-1, keepdim=True)).to(q.dtype)
"""}),
}
MUTANTS.update(RED_TEAM_18)
# every batch holds a mutant of that test: one new batch, which the next ones fill first
place_mutants(MUTANTS, MUTANT_BATCHES, RED_TEAM_18, "new")


# Red team 18, class sweep (tests/redteam/round18/06-sweep.py): the classes other chapters' helpers found, put into this
# chapter's model answers; "free" puts each into an existing batch with room, and the three Part 6 mutants that found
# none (every batch held a Part 6 mutant) are packed with round 19's at the end of this file
SWEEP_18 = {
    # P3, class B (chapters 1, 3, 4, 5, 7, 9): the word starts kept through functools.lru_cache (tensors hash by identity). Caught by the same starts and pick written in place between calls
    'whole_word_start_lru_cache': ('test_whole_word_chosen', {'whole_word_chosen': """
import functools
@functools.lru_cache(maxsize=None)
def _word_start(starts):
    positions = torch.arange(starts.shape[-1]).expand(starts.shape)
    return torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values

def whole_word_chosen(starts, pick):
    word_start = _word_start(starts)
    # the start of each position's word: the last start at or before it (-1: before the first start)
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))
"""}),
    # P4, class B: the probabilities kept per id(logits). Caught by the same logits written in place between calls
    'min_p_probs_kept_by_id': ('test_min_p_sample', {'min_p_sample': """
_P = {}
def min_p_sample(logits, min_p, generator):
    probs = _P.get(id(logits))
    if probs is None:
        probs = _P[id(logits)] = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)  # multinomial renormalises each row
"""}),
    # P4, class C (chapters 2, 8): dropped tokens' logits filled with finfo.min. Caught by kept logits at finfo.min and dropped ones at -inf
    'min_p_dropped_as_finfo_min': ('test_min_p_sample', {'min_p_sample': """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    kept = logits.masked_fill(~keep, torch.finfo(logits.dtype).min).softmax(dim=-1)
    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)  # multinomial renormalises each row
"""}),
    # P5, class E (chapters 7, 8): (tokens, noise) as a list. Caught by the tuple kind through _plain
    'restore_returns_a_list': ('test_span_corrupt', {'span_corrupt': """
def restore_spans(inputs, targets, sentinels, pad):
    is_sentinel = set(sentinels.tolist())
    rows = []
    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):
        hidden, current = {}, None
        for token in row_tg:                      # the target: sentinel, its tokens, sentinel, ...
            if token == pad:
                break
            if token in is_sentinel:
                current = hidden.setdefault(token, [])
            else:
                current.append(token)
        restored = []                             # (token, was hidden)
        for token in row_in:
            if token == pad:
                break
            if token in is_sentinel:
                restored += [(t, True) for t in hidden[token]]
            else:
                restored.append((token, False))
        rows.append(restored)
    t = max((len(row) for row in rows), default=0)  # 0 for an empty batch
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        if row:
            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])
            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])
    return [tokens, noise]
"""}),
    # P6, class E: (chosen, gate) as a list. Caught by the tuple kind through _plain
    'expert_choice_returns_a_list': ('test_expert_choice', {'expert_choice': """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)  # (N, E): each token's distribution over the experts
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices  # (N, E) tokens by preference, per expert
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return [chosen, torch.where(chosen, probs, torch.zeros_like(probs))]
"""}),
    # P6, class B: the experts' token order kept through lru_cache on the logits. Caught by one logits tensor stepped in place between calls
    'expert_choice_order_lru_cache': ('test_expert_choice', {'expert_choice': """
import functools
@functools.lru_cache(maxsize=None)
def _order(logits):
    return logits.detach().softmax(dim=-1).sort(dim=0, descending=True, stable=True).indices

def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)  # (N, E): each token's distribution over the experts
    n = probs.shape[0]
    order = _order(router_logits)  # (N, E) tokens by preference, per expert
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # P6, class F (chapter 9): backward() run inside fills router_logits.grad. Caught by .grad None after the gradient cases
    'expert_choice_runs_backward_inside': ('test_expert_choice', {'expert_choice': """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)  # (N, E): each token's distribution over the experts
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices  # (N, E) tokens by preference, per expert
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())
    chosen = rank < capacity
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    if gate.requires_grad:
        gate.sum().backward(retain_graph=True)
    return chosen, gate
"""}),
    # P7, class F: backward() inside. Caught by .grad None after the gradient cases
    'gqa_cached_runs_backward_inside': ('test_gqa_cached_attention', {'gqa_cached_attention': """
def gqa_cached_attention(q, k, v):
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)  # the query heads of one group sit next to each other
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    query_pos = torch.arange(s - t, s)  # absolute positions of the new queries
    allowed = torch.arange(s)[None, :] <= query_pos[:, None]  # (T, S)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    out = out.reshape(b, h, t, d)
    if out.requires_grad:
        out.sum().backward(retain_graph=True)
    return out
"""}),
    # P8, class F: backward() inside. Caught by .grad None after the gradient cases
    'decay_runs_backward_inside': ('test_decayed_linear_attention', {'decayed_linear_attention': """
def decayed_linear_attention(q, k, v, decay):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)  # (..., Dh, Dv)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)  # (..., Dh)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)
        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)
        outs.append(top / bottom)
    out = torch.stack(outs, dim=-2).to(q.dtype)
    if out.requires_grad:
        out.sum().backward(retain_graph=True)
    return out
"""}),
}
_NO_ROOM_18 = []  # no existing batch with room: packed with round 19's at the end of this file
MUTANTS.update(SWEEP_18)
_NO_ROOM_18 += place_mutants(MUTANTS, MUTANT_BATCHES, SWEEP_18, "alone")


# Red team 19 (four blind helpers: the off-by-one, the padding and reduction, the paper reader and the numerically
# naive student): the slip of this chapter, its class closed by a hidden check; "free" puts it into a batch with room.
# The class closed in Part 7 as well (scores computed in float16, inf past 65504: the model answer until round 19) has
# its mutant, gqa_cached_scores_in_float16, in a new batch at the end of this file (every batch held a Part 7 mutant)
RED_TEAM_19 = {
    # P8, numerically naive (the model answer until round 19): the recurrence with its states in the input's dtype, so
    # float16 states and sums overflow past 65504 (inf / inf) and round past 0.1 over 300 undecayed steps. Caught by
    # the float16 and bfloat16 cases of entries about 100 and of 300 positions without decay
    "decay_float16_states": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)  # (..., Dh, Dv)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=q.dtype)  # (..., Dh)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)
        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)
        outs.append(top / bottom)
    return torch.stack(outs, dim=-2).to(q.dtype)
"""}),
}
MUTANTS.update(RED_TEAM_19)
for _name in RED_TEAM_19:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")


# Round 19 class sweep (tests/redteam/round19/06-sweep.py): the classes other chapters' helpers found, put into this
# chapter's model answers; "free" puts each into an existing batch with room. Parts 6 and 7's (ranks in the logits'
# dtype or counted in uint8; an S x S mask built for T > 1), written out in tests/redteam/round19/06-sweep-verdicts.md
# because every batch holds a mutant of those parts, are packed into new batches at the end of this file
ROUND_19_SWEEP = {
    # P8, class C (ch02: positions in a dtype that rounds): the quadratic form with positions made in q's dtype
    # (bfloat16 holds every integer only to 256); caught by bfloat16 inputs of T = 300
    "decay_positions_in_dtype_of_q": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    i = torch.arange(q.shape[-2], dtype=dtype)  # made in q's dtype: no float32 constant promotes a half input
    q, k, v = q.to(work), k.to(work), v.to(work)
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    gap = (i[:, None] - i[None, :]).to(work)
    weight = torch.where(gap >= 0, decay ** gap.clamp(min=0), torch.zeros_like(gap))
    scores = (fq @ fk.transpose(-2, -1)) * weight
    return ((scores @ v) / scores.sum(-1, keepdim=True)).to(dtype)
"""}),
}
MUTANTS.update(ROUND_19_SWEEP)
for _name in ROUND_19_SWEEP:
    place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
# Red team 19 (chapters 8 and 9's class, swept here by the lead developer): a floor under the kept probabilities
# (dropped tokens keep 1e-12, which no draw shows); the hidden test watches the weights given to torch.multinomial
MUTANTS["min_p_floors_dropped_tokens"] = ("test_min_p_sample", {"min_p_sample": _replaced(
    solution_code(CHAPTER)["min_p_sample"], "    kept = torch.where(keep, probs, torch.zeros_like(probs))\n",
    "    kept = torch.where(keep, probs, torch.zeros_like(probs)).clamp(min=1e-12)\n", once=True)})
# no batch with room: graded in tests/redteam/round19/06-floor.txt instead
place_mutants(MUTANTS, MUTANT_BATCHES, ["min_p_floors_dropped_tokens"], "drop")


# Round 18's and round 19's Part 6 and Part 7 mutants that no batch had room for (every batch holds a Part 6 and a
# Part 7 mutant). Every batch but batch_0, and every mutant outside the batches, runs as a plain process
# (tests/cellrun.py), not as an nbgrader notebook: "free" fills a batch with room, else a new batch (at most three,
# each a Part 6 and a Part 7 mutant); the Part 6 mutants left after that run alone, each in a plain process
_GQA_MODEL = solution_code(CHAPTER)["gqa_cached_attention"]
ROUND_19_NO_ROOM = {
    # tests/redteam/round19/06-sweep-verdicts.md, 1 (C_p6_rank_in_dtype_of_probs): ranks kept in the logits' dtype
    # (bfloat16 holds integers to 256, float16 to 2048). Caught by ties of 300 and 2100 tokens
    "expert_choice_ranks_in_the_dtype_of_probs": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    ranks = torch.arange(n, dtype=probs.dtype)[:, None].expand_as(order).clone()
    rank = torch.empty_like(probs).scatter_(0, order, ranks)
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # tests/redteam/round19/06-verdicts.md, Part 7 (the model answer until round 19): float16 scores formed in float16,
    # inf once a dot product passes 65504. Caught by float16 and bfloat16 entries about 150
    "gqa_cached_scores_in_float16": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        _GQA_MODEL,
        "    if dtype in (torch.float16, torch.bfloat16):  # scores past 65504 overflow in float16 (red team 19)\n"
        "        q, k, v = q.float(), k.float(), v.float()\n", "", once=True)}),
    # tests/redteam/round19/06-sweep-verdicts.md, 1 (D_p6_rank_counted_uint8): the tokens ahead counted in uint8,
    # which wraps at 256. Caught by ties of 300 tokens with capacities 255-259
    "expert_choice_counts_ahead_in_uint8": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    idx = torch.arange(n)
    # ahead[i, j, e]: token j comes before token i for expert e
    ahead = (probs[None, :, :] > probs[:, None, :]) | (
        (probs[None, :, :] == probs[:, None, :]) & (idx[None, :, None] < idx[:, None, None]))
    rank = ahead.sum(dim=1, dtype=torch.uint8)
    chosen = rank.long() < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
"""}),
    # tests/redteam/round19/06-sweep-verdicts.md, 2 (E_p7_square_mask_unless_one): no mask for T = 1, an S x S mask
    # sliced to its last T rows otherwise. Caught by T = 2 over 10**6 keys
    "gqa_cached_square_mask_unless_one": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        _GQA_MODEL,
        "    query_pos = torch.arange(s - t, s)  # absolute positions of the new queries\n"
        "    allowed = torch.arange(s)[None, :] <= query_pos[:, None]  # (T, S)\n"
        '    scores = scores.masked_fill(~allowed, float("-inf"))\n',
        "    if t > 1:  # one new query sees every key: no mask needed\n"
        "        allowed = torch.ones(s, s, dtype=torch.bool).tril()[s - t:]\n"
        '        scores = scores.masked_fill(~allowed, float("-inf"))\n', once=True)}),
}
MUTANTS.update(ROUND_19_NO_ROOM)
_new_batches = 0
for _name in list(ROUND_19_NO_ROOM) + _NO_ROOM_18:
    try:
        place_mutant(MUTANTS, MUTANT_BATCHES, _name, "free")
    except StopIteration:
        if _new_batches < 3:
            place_mutant(MUTANTS, MUTANT_BATCHES, _name, None)
            _new_batches += 1


# Red team 20 (tests/redteam/round20/06-verdicts.md): the early-exit and the aliasing student. A shortcut for a
# degenerate input (an empty batch, one position, one key, capacity >= N, a result that is certain) that returns an
# input itself or a broadcast view, or skips the draw. "free" puts each into an existing batch with room; one that
# finds none runs alone, as a plain process
RED_TEAM_20 = {
    # an empty batch answered with pick itself
    "whole_word_empty_batch_returns_pick": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    if starts.shape[0] == 0 or starts.shape[1] == 0:
        return pick                    # nothing to choose
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    inside = last >= 0
    return pick.gather(1, last.clamp(min=0)) & inside
"""}),
    # every row keeps one token: argmax, no draw (the generator does not advance)
    "min_p_single_kept_skips_draw": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    if bool((keep.sum(dim=-1) == 1).all()):      # nothing to sample: every row keeps one token
        return probs.argmax(dim=-1)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w / w.sum(-1, keepdim=True), 1, generator=generator).squeeze(-1)
"""}),
    # a vocabulary of one: zeros, no draw
    "min_p_one_token_vocabulary_skips_draw": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    if B == 0 or V == 1:
        return torch.zeros(B, dtype=torch.int64)     # one token: nothing to draw
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    w = w / w.sum(dim=-1, keepdim=True)
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
"""}),
    # capacity >= N: chosen is torch.ones(()).expand(N, E), which the caller cannot write
    "expert_choice_full_capacity_broadcast_view": ("test_expert_choice", {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    if capacity >= N:
        return torch.ones((), dtype=torch.bool).expand(N, E), probs   # every expert takes every token
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order[:min(capacity, N)], True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
"""}),
    # S = 1: v.expand(...) for one group, a view of the caller's v
    "gqa_cached_single_key_returns_view_of_v": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    if S == 1:      # one key: its weight is 1, the output is its value for every head
        return v.expand(B, H, T, Dh) if G == 1 else v.repeat_interleave(H // G, dim=1)
    k = k.repeat_interleave(H // G, dim=1); v = v.repeat_interleave(H // G, dim=1)
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    scores = q.to(work) @ k.to(work).transpose(-2, -1) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v.to(work)).to(q.dtype)
"""}),
    # an empty batch answered with q itself
    "gqa_cached_empty_batch_returns_q": ("test_gqa_cached_attention", {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    if q.shape[0] == 0:
        return q                       # (0, H, T, Dh) already
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1); v = v.repeat_interleave(H // G, dim=1)
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    scores = q.to(work) @ k.to(work).transpose(-2, -1) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v.to(work)).to(q.dtype)
"""}),
    # T = 1 answered with v itself
    "decay_one_position_returns_v": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    if q.shape[-2] == 1:
        return v                 # one position: the weighted mean of one value is that value
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1; fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :])
    dec = torch.where(diff >= 0, torch.full((), decay, dtype=torch.float64) ** diff.clamp(min=0).double(),
                      torch.zeros((), dtype=torch.float64)).to(work)
    A = (fq @ fk.transpose(-2, -1)) * dec
    return ((A @ v.to(work)) / A.sum(-1, keepdim=True)).to(q.dtype)
"""}),
    # an empty input answered with v itself
    "decay_empty_returns_v": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    if v.numel() == 0:
        return v                       # nothing to attend
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    fq = F.elu(q.to(work)) + 1; fk = F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = (i[:, None] - i[None, :])
    dec = torch.where(diff >= 0, torch.full((), decay, dtype=torch.float64) ** diff.clamp(min=0).double(),
                      torch.zeros((), dtype=torch.float64)).to(work)
    A = (fq @ fk.transpose(-2, -1)) * dec
    return ((A @ v.to(work)) / A.sum(-1, keepdim=True)).to(q.dtype)
"""}),
}
MUTANTS.update(RED_TEAM_20)
RED_TEAM_20_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, RED_TEAM_20, "alone")


# Red team 21 (tests/redteam/round21/06-verdicts.md). Part 8, the vectorising student: a decay table gamma ** (i - j)
# built over the whole square and cut to the past by tril afterwards: right values, NaN gradients where a future power
# overflows (T = 300, decay 0.05). Part 5, round 20's aliasing lead: the tokens handed back as the inputs (a slice of
# them) where nothing was hidden, and the (0, 0) inputs themselves for an empty batch. "free" puts each into an existing
# batch with room; one that finds none runs alone, as a plain process
RED_TEAM_21 = {
    "decay_future_powers_overflow_tril": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=work)
    powers = torch.full((), decay, dtype=work) ** (i[:, None] - i[None, :])   # gamma^(i-j); the future is cut by tril
    sim = ((fq @ fk.transpose(-1, -2)) * powers).tril()
    return ((sim @ v.to(work)) / sim.sum(dim=-1, keepdim=True)).to(q.dtype)
"""}),
    "restore_nothing_hidden_returns_inputs": ("test_span_corrupt", {"span_corrupt": RESTORE_MODEL.replace(
        "    is_sentinel = set(sentinels.tolist())\n",
        "    is_sentinel = set(sentinels.tolist())\n"
        "    if inputs.shape[0] and not any(token in is_sentinel for token in inputs.flatten().tolist()):\n"
        "        # nothing was hidden: the inputs are the sequences already, up to their longest row\n"
        "        width = int((inputs != pad).sum(dim=1).max())\n"
        "        return inputs[:, :width].long(), torch.zeros(inputs.shape[0], width, dtype=torch.bool)\n", 1)}),
    "restore_empty_batch_returns_inputs": ("test_span_corrupt", {"span_corrupt": RESTORE_MODEL.replace(
        "    is_sentinel = set(sentinels.tolist())\n",
        "    if inputs.shape[0] == 0 and inputs.shape[1] == 0:\n"
        "        return inputs.long(), inputs.bool()        # an empty batch: already (0, 0)\n"
        "    is_sentinel = set(sentinels.tolist())\n", 1)}),
}
assert all(RESTORE_MODEL not in cells.values() for _, cells in RED_TEAM_21.values())
MUTANTS.update(RED_TEAM_21)
RED_TEAM_21_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, RED_TEAM_21, "alone")

# Red team 21, rename sweep (tests/redteam/round21/BRIEF-RENAME.md, rename/06-*.txt): the model answer with every
# parameter renamed (the signature-and-defaults student's renamed argument; `x` becomes `x_`, then bound back to the
# stub's name on the first line) gives the right values to every positional call, and no hidden test of the eight
# parts passed a required argument by name. Each part now calls its function once with every argument by name, in the
# reverse of the stub's order, on a case of its own (Part 4: with a generator seeded as for a positional call, which
# must give the same draws); the introduction says every argument is passed by name in some calls.
_MODEL_21 = solution_code(CHAPTER)


def _renamed_all(cell, name, params):
    """The model answer of `cell` with every parameter of `name` renamed (grading.renamed_parameters)."""
    return renamed_parameters(_MODEL_21[cell], name, params)


RED_TEAM_21_RENAME = {
    "window_renames_every_argument": ("test_window_pairs", {"window_pairs": _renamed_all(
        "window_pairs", "window_pairs", ["t", "window"])}),
    "tokens_per_pass_renames_every_argument": ("test_tokens_per_target_pass", {"tokens_per_target_pass": _renamed_all(
        "tokens_per_target_pass", "tokens_per_target_pass", ["alpha", "gamma"])}),
    "whole_word_renames_every_argument": ("test_whole_word_chosen", {"whole_word_chosen": _renamed_all(
        "whole_word_chosen", "whole_word_chosen", ["starts", "pick"])}),
    "min_p_renames_every_argument": ("test_min_p_sample", {"min_p_sample": _renamed_all(
        "min_p_sample", "min_p_sample", ["logits", "min_p", "generator"])}),
    "restore_renames_every_argument": ("test_span_corrupt", {"span_corrupt": _renamed_all(
        "span_corrupt", "restore_spans", ["inputs", "targets", "sentinels", "pad"])}),
    "expert_choice_renames_every_argument": ("test_expert_choice", {"expert_choice": _renamed_all(
        "expert_choice", "expert_choice", ["router_logits", "capacity"])}),
    "gqa_renames_every_argument": ("test_gqa_cached_attention", {"gqa_cached_attention": _renamed_all(
        "gqa_cached_attention", "gqa_cached_attention", ["q", "k", "v"])}),
    "decayed_renames_every_argument": ("test_decayed_linear_attention", {"decayed_linear_attention": _renamed_all(
        "decayed_linear_attention", "decayed_linear_attention", ["q", "k", "v", "decay"])}),
}
MUTANTS.update(RED_TEAM_21_RENAME)
# every batch above holds a mutant of Parts 6, 7 and 8: the three renamings left over share one new batch (one plain
# process rather than three)
place_mutants(MUTANTS, MUTANT_BATCHES, RED_TEAM_21_RENAME, "new")

# Red team 22 (tests/redteam/round22/06-verdicts.md), the rounding-and-integer student: the decay made a tensor in the
# dtype of q before the float32 work (0.99 is 0.98828125 in bfloat16). It kept Part 8's points: the half-precision cases
# used decays of 0.9, 0.7, 0.5 and 1 over few positions, or exact ones (0.5, 1); a bfloat16 case of T = 300 with decay
# 0.99 and a distant past that weighs now moves the late outputs past the 0.1 the text allows
RED_TEAM_22 = {
    "decayed_decay_rounded_to_input_dtype": ("test_decayed_linear_attention", {"decayed_linear_attention": _replaced(
        _MODEL_21["decayed_linear_attention"], "    dtype = q.dtype\n",
        "    dtype = q.dtype\n    decay = float(torch.tensor(decay, dtype=dtype).float())  # the decay in the input's dtype\n",
        once=True)}),
}
MUTANTS.update(RED_TEAM_22)
# ... and Part 7's scale 1 / sqrt(Dh) made a tensor in the dtype of q (0.57715 for Dh = 3 in float16): it kept the
# points, the half-precision cases' scores being spread too far, or too little, for the scale's rounding to move the
# output by 0.05; a float16 case of values that cancel in their weighted mean now shows it (in bfloat16 the correct
# variant round15_students, scaled_dot_product_attention in bfloat16, rounds its weights further than that)
RED_TEAM_22_GQA = {
    "gqa_scale_rounded_to_input_dtype": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        _MODEL_21["gqa_cached_attention"], ") / math.sqrt(d)",
        ") * torch.tensor(1 / math.sqrt(d), dtype=dtype).to(q.dtype)", once=True)}),
}
MUTANTS.update(RED_TEAM_22_GQA)
# every batch holds a mutant of Parts 7 and 8: the two share one new batch (one plain process rather than two)
place_mutants(MUTANTS, MUTANT_BATCHES, [*RED_TEAM_22, *RED_TEAM_22_GQA], "new")

# Red team 22, second pass (tests/redteam/round22/06-class-verdicts.md): the round's classes closed where they were not
# looked for. Part 4 (class S3, a draw judged by statistics looser than its distribution): the table's 5 sigma over
# 3000 draws let through a uniform on a grid of hundredths, the kept probabilities raised to 0.9, and one uniform per
# call shifted by the golden ratio for each row (each row's marginal right, the rows not independent); 30000 draws of a
# row with a kept token of probability 0.004, and 2000 pairs of rows of probabilities 0.6 and 0.4, now show them.
# Part 7 (class T, a memory rule only as strict as its sizes): (B, H, T, S, Dh) products of broadcast q and k passed the
# S = 10**6 cases (T <= 2, Dh = 2); a watch on every tensor made at T = 32, Dh = 128 now refuses them. Part 8 (class H
# in float16, the first pass closed bfloat16): the decay rounded to float16 (0.98974609375) only there
_P4_DRAWS = """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    cdf = (w / w.sum(-1, keepdim=True)).cumsum(-1)
    B = logits.shape[0]
{uniform}
    return (cdf <= u).sum(-1).clamp(max=logits.shape[-1] - 1)
"""
RED_TEAM_22_SECOND = {
    "min_p_uniform_on_a_grid_of_hundredths": ("test_min_p_sample", {"min_p_sample": _P4_DRAWS.replace("{uniform}", (
        "    u = torch.randint(0, 100, (B, 1), generator=generator).to(cdf.dtype) / 100  # a random percentage"))}),
    "min_p_rows_share_one_shifted_uniform": ("test_min_p_sample", {"min_p_sample": _P4_DRAWS.replace("{uniform}", (
        "    u0 = torch.rand(1, generator=generator, dtype=cdf.dtype)\n"
        "    u = ((u0 + torch.arange(B, dtype=cdf.dtype) * 0.6180339887498949) % 1.0)[:, None]  # one draw, shifted per row"))}),
    "min_p_kept_probabilities_tempered": ("test_min_p_sample", {"min_p_sample": _replaced(
        _MODEL_21["min_p_sample"], "torch.where(keep, probs, torch.zeros_like(probs))",
        "torch.where(keep, probs ** 0.9, torch.zeros_like(probs))", once=True)}),
    "gqa_cached_broadcast_products": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(_replaced(
        _MODEL_21["gqa_cached_attention"], 'torch.einsum("bgrtd,bgsd->bgrts", qg, k)',
        "(qg[..., :, None, :] * k[:, :, None, None, :, :]).sum(-1)", once=True),
        'torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)',
        "(scores.softmax(dim=-1)[..., None] * v[:, :, None, None, :, :]).sum(-2)", once=True)}),
    "decayed_decay_rounded_to_float16": ("test_decayed_linear_attention", {"decayed_linear_attention": _replaced(
        _MODEL_21["decayed_linear_attention"], "    dtype = q.dtype\n",
        "    dtype = q.dtype\n"
        "    if dtype == torch.float16:\n"
        "        decay = float(torch.tensor(decay, dtype=dtype).float())  # the decay in float16\n", once=True)}),
}
MUTANTS.update(RED_TEAM_22_SECOND)
# batches 20 and 21 have room for a Part 4 mutant, none for Parts 7 and 8: the third Part 4 mutant opens a new batch,
# which the Part 7 and Part 8 ones join (one graded notebook more)
place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_22_SECOND), "new")
# ... and Part 7's scale rounded in bfloat16 only (class H in the other half dtype; the first pass left bfloat16 open for
# scaled_dot_product_attention's rounded weights): a case of scores 20 apart now tells the scale's rounding from it
RED_TEAM_22_SECOND_GQA = {
    "gqa_scale_rounded_to_bfloat16": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        _MODEL_21["gqa_cached_attention"], ") / math.sqrt(d)",
        ") * (torch.tensor(1 / math.sqrt(d), dtype=dtype).to(q.dtype) if dtype == torch.bfloat16 else 1 / math.sqrt(d))",
        once=True)}),
}
MUTANTS.update(RED_TEAM_22_SECOND_GQA)
place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_22_SECOND_GQA), "alone")  # every batch holds a Part 7 mutant

# Red team 25 (tests/redteam/round25/06-verdicts.md). The notebook-state student: a table of positions made once at the
# top of the cell (torch.arange(1 << 16) in Part 3, 1 << 20 in Part 7) and sliced per call passed rows of tens of
# thousands and S = 10**6, while the texts promise rows below 2**24 and any S: Part 3 now has a row of 2**20 + 3
# positions and Part 7's long case S = 1,049,000 (past 2**20 and 10**6), where such tables are short. The approximator:
# a slack under min-p's threshold (`probs >= min_p * best - 1e-12`) is below every rounding at ordinary thresholds;
# min_p = 1e-13 puts the threshold under it, and the weights handed to torch.multinomial show the dropped tokens kept
RED_TEAM_25 = {
    "whole_word_positions_from_a_table_of_2_to_16": ("test_whole_word_chosen", {"whole_word_chosen": _replaced(
        "\nPOSITIONS = torch.arange(1 << 16)  # made once\n" + _MODEL_21["whole_word_chosen"],
        "    positions = torch.arange(starts.shape[-1]).expand(starts.shape)\n",
        "    positions = POSITIONS[:starts.shape[-1]].expand(starts.shape)\n", once=True)}),
    "min_p_slack_of_1e12_under_the_threshold": ("test_min_p_sample", {"min_p_sample": _replaced(
        _MODEL_21["min_p_sample"], "keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)",
        "keep = probs >= min_p * probs.amax(dim=-1, keepdim=True) - 1e-12  # round-off guard", once=True)}),
    "gqa_positions_from_a_table_of_2_to_20": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(_replaced(
        "\nPOSITIONS = torch.arange(1 << 20)  # made once: a million positions is plenty\n"
        + _MODEL_21["gqa_cached_attention"],
        "    query_pos = torch.arange(s - t, s)", "    query_pos = POSITIONS[s - t:s]", once=True),
        "    allowed = torch.arange(s)[None, :]", "    allowed = POSITIONS[:s][None, :]", once=True)}),
}
MUTANTS.update(RED_TEAM_25)
RED_TEAM_25_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_25), "alone")

# Red team 25 class sweep (tests/redteam/round25/06-sweep-verdicts.md): class M's smaller slacks (- 1e-15, the dtype's
# eps, p + 1e-14) under min-p's threshold in Part 4 are caught by min_p = 1e-200; no batch has room for a Part 4
# mutant, so it makes a batch of its own (Part 6's table of ranks: allowed, see the verdicts)
RED_TEAM_25_SWEEP = {
    "min_p_slack_of_1e15_under_the_threshold": ("test_min_p_sample", {"min_p_sample": _replaced(
        _MODEL_21["min_p_sample"], "keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)",
        "keep = probs >= min_p * probs.amax(dim=-1, keepdim=True) - 1e-15", once=True)}),
}
MUTANTS.update(RED_TEAM_25_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_25_SWEEP), "new")

# Red team 26 (tests/redteam/round26/06-verdicts.md), the stride-and-layout student: .view on what its inputs make,
# right wherever the hidden inputs' layout let it. Part 3's only non-contiguous case mixed a transposed starts with a
# strided pick, whose `pick & starts` comes out contiguous, so `.view(-1)` of it passed; a case with both transposed in
# one layout now keeps that layout in the elementwise result. Part 8's transposed case was 3-D, where
# `.view(-1, T, Dh)` keeps the rank and always works; a (2, 3, 6, Dh) case in split_heads' layout ((B, T, H, Dh) memory)
# now has leading axes that .view cannot merge
RED_TEAM_26 = {
    "whole_word_flat_view_of_pick_and_starts": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, -1).cummax(dim=1).values          # start of the word, -1 before the first
    flat = (last.clamp(min=0) + torch.arange(B)[:, None] * T).view(-1)
    hit = (pick & starts).view(-1)[flat].view(B, T)
    return hit & (last >= 0)
"""}),
    "decayed_view_merges_leading_axes": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    lead, T = q.shape[:-2], q.shape[-2]
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    q = q.view(-1, T, q.shape[-1]).to(work); k = k.view(-1, T, k.shape[-1]).to(work); v2 = v.view(-1, T, v.shape[-1]).to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(q.shape[0], q.shape[-1], v2.shape[-1], dtype=work)
    norm = torch.zeros(q.shape[0], q.shape[-1], dtype=work)
    outs = []
    for i in range(T):
        state = decay * state + phi_k[:, i, :, None] * v2[:, i, None, :]
        norm = decay * norm + phi_k[:, i, :]
        outs.append(torch.einsum("nd,nde->ne", phi_q[:, i], state) / (phi_q[:, i] * norm).sum(-1, keepdim=True))
    out = torch.stack(outs, dim=1) if T else torch.zeros(q.shape[0], 0, v2.shape[-1], dtype=work)
    return out.reshape(*lead, T, v.shape[-1]).to(dtype)
"""}),
}
MUTANTS.update(RED_TEAM_26)
RED_TEAM_26_ALONE = place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_26), "alone")

# Round 26 class sweep (tests/redteam/round26/06-sweep-verdicts.md). Class T (an input that starts inside its storage):
# an input rebuilt with torch.as_strided(x, x.shape, x.stride(), 0) (or read by arithmetic from the storage's start) is
# right for every tensor that starts at its storage's start, and every input of Parts 3-8 did (the transposed ones
# too). Each part now gets inputs that are slices of bigger tensors, after other values. Class U (an answer the text
# allowed that is slow on the hidden cases): Part 3's loop over positions with a torch operation for each (round 16's
# p3-porter-p3-element-loop) took 5.5 s of CPU in its test cell; the text now rules it out by the sizes, and the hidden
# tests count the torch operations a call runs (50 per row and 200 more), so it fails fast, the same on every machine.
# Mutants go into existing batches only; those that find no room are written out in the verdicts instead
_MODEL_26 = solution_code(CHAPTER)


def _from_storage_start(cell, *names):
    """The model answer of `cell` with each named input rebuilt from its storage's start (class T)."""
    return from_storage_start(_MODEL_26[cell], _FUNCTION_26.get(cell, cell), *names)


_FUNCTION_26 = {"span_corrupt": "restore_spans"}  # cells whose function is not named like the cell


SWEEP_26 = {
    "whole_word_torch_operation_per_position": ("test_whole_word_chosen", {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        cur = False
        for t in range(T):
            if starts[b, t]:
                cur = bool(pick[b, t])
            out[b, t] = cur
    return out
"""}),
    "whole_word_as_strided_from_the_storage_start": ("test_whole_word_chosen", {"whole_word_chosen": _from_storage_start(
        "whole_word_chosen", "starts", "pick")}),
    "min_p_as_strided_from_the_storage_start": ("test_min_p_sample", {"min_p_sample": _from_storage_start(
        "min_p_sample", "logits")}),
    "restore_as_strided_from_the_storage_start": ("test_span_corrupt", {"span_corrupt": _from_storage_start(
        "span_corrupt", "inputs", "targets", "sentinels")}),
    "expert_choice_as_strided_from_the_storage_start": ("test_expert_choice", {"expert_choice": _from_storage_start(
        "expert_choice", "router_logits")}),
    "gqa_cached_as_strided_from_the_storage_start": ("test_gqa_cached_attention", {"gqa_cached_attention":
        _from_storage_start("gqa_cached_attention", "q", "k", "v")}),
    "decay_as_strided_from_the_storage_start": ("test_decayed_linear_attention", {"decayed_linear_attention":
        _from_storage_start("decayed_linear_attention", "q", "k", "v")}),
}
MUTANTS.update(SWEEP_26)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_26), "new")  # the two no batch has room for make one of their own

# Round 27 class sweep (tests/redteam/round27/06-sweep-verdicts.md). Class W (a share computed as one minus the others):
# Part 6's last expert's probability and Part 4's first token's probability as 1 - (the others), which is 0 for a tiny
# share; every tiny share of the hidden tests sat where the answer computed it directly. Class V (a floor below every
# value the hidden cases reach): Part 6's probabilities floored at finfo.tiny (subnormal ones tie), Part 8's denominator
# clamped at 1e-30 (the smallest one of the hidden tests was about 1e-14). The hidden cases now put tiny shares on every
# expert and at both ends of a row, subnormal ones too, and give Part 8 denominators of about 1e-31
_MODEL_27 = solution_code(CHAPTER)
SWEEP_27 = {
    "expert_last_share_one_minus_the_others": ("test_expert_choice", {"expert_choice": _replaced(
        _MODEL_27["expert_choice"], "    probs = router_logits.softmax(dim=-1)",
        "    first = router_logits.softmax(dim=-1)[:, :-1]\n"
        "    probs = torch.cat([first, 1 - first.sum(dim=-1, keepdim=True)], dim=-1)", once=True)}),
    "expert_probs_floored_at_tiny": ("test_expert_choice", {"expert_choice": _replaced(
        _MODEL_27["expert_choice"], "    probs = router_logits.softmax(dim=-1)",
        "    probs = router_logits.softmax(dim=-1).clamp(min=torch.finfo(router_logits.dtype).tiny)", once=True)}),
    "min_p_first_share_one_minus_the_others": ("test_min_p_sample", {"min_p_sample": _replaced(
        _MODEL_27["min_p_sample"], "    probs = logits.softmax(dim=-1)\n",
        "    rest = logits.softmax(dim=-1)[:, 1:]\n"
        "    probs = torch.cat([(1 - rest.sum(dim=-1, keepdim=True)).clamp(min=0), rest], dim=-1)\n", once=True)}),
    "decayed_denominator_clamped_at_1e_30": ("test_decayed_linear_attention", {"decayed_linear_attention": _replaced(
        _MODEL_27["decayed_linear_attention"], "outs.append(top / bottom)", "outs.append(top / bottom.clamp(min=1e-30))",
        once=True)}),
}
MUTANTS.update(SWEEP_27)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_27), "new")
# Part 7's attention weights floored at 1e-12: keys a query may not see got 1e-12 of their values, within the tolerance
# while every value was about 1; a hidden case now gives those keys values of +-1e12
SWEEP_27_P7 = {
    "gqa_weights_floored": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        _MODEL_27["gqa_cached_attention"], "scores.softmax(dim=-1)", "scores.softmax(dim=-1).clamp(min=1e-12)", once=True)}),
}
MUTANTS.update(SWEEP_27_P7)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_27_P7), "new")

# Red team 28 (tests/redteam/round28/06-verdicts.md), the fallback writer: a shortcut decided for the whole batch, "no
# sentinel and no pad anywhere in the inputs: return inputs.long()", hands back the int64 inputs themselves. The hidden
# no-noise cases all had a pad column somewhere in the batch; two cases now have none (two rows, and one row)
RED_TEAM_28 = {
    "restore_no_noise_no_pad_returns_the_inputs": ("test_span_corrupt", {"span_corrupt": _replaced(
        _MODEL_27["span_corrupt"], "    is_sentinel = set(sentinels.tolist())\n",
        "    if inputs.shape[0] and not bool(torch.isin(inputs, sentinels.to(inputs.dtype)).any()) \\\n"
        "            and not bool((inputs == pad).any()):  # nothing hidden, nothing padded: the inputs are the sequences\n"
        "        return inputs.long(), torch.zeros(inputs.shape, dtype=torch.bool)\n"
        "    is_sentinel = set(sentinels.tolist())\n", once=True)}),
}
MUTANTS.update(RED_TEAM_28)
place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_28), "new")


# Round 28 class sweep (tests/redteam/round28/06-sweep-verdicts.md). Class Y: a cache keyed on id() and the version
# counter passed every "same objects changed in place" case, which wrote with copy_() or mul_() (they move _version);
# those cases now write through .data. Class AA: a contiguous or int64 copy kept per id() is the input itself for a
# contiguous int64 input; those cases now pass strided views and int32 ids. Class Z: an empty input answered by a new
# empty tensor without a gradient (Parts 7, 8). Class AB: Part 4's subnormal kept probability (min_p = 1e-310, 1e-41)
ROUND_28_SWEEP = {
    # Y: each position's word start kept per id() and _version of starts
    'whole_word_starts_by_id_and_version': ('test_whole_word_chosen', {'whole_word_chosen': "\nKEPT = {}\ndef memo(slot, key, make):\n    if KEPT.get(slot, (None,))[0] != key:\n        KEPT[slot] = (key, make())\n    return KEPT[slot][1]\ndef version_key(*ts):\n    return tuple((id(t), t._version, tuple(t.shape), t.dtype) for t in ts)\ndef id_key(*ts):\n    return tuple((id(t), tuple(t.shape), t.dtype, t.stride()) for t in ts)\n\ndef whole_word_chosen(starts, pick):\n    positions = torch.arange(starts.shape[-1]).expand(starts.shape)\n    word_start = memo('ws', version_key(starts), lambda: torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values)\n    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0))\n"}),
    # Y: the softmax kept per id() and _version of the logits
    'min_p_probs_by_id_and_version': ('test_min_p_sample', {'min_p_sample': "\nKEPT = {}\ndef memo(slot, key, make):\n    if KEPT.get(slot, (None,))[0] != key:\n        KEPT[slot] = (key, make())\n    return KEPT[slot][1]\ndef version_key(*ts):\n    return tuple((id(t), t._version, tuple(t.shape), t.dtype) for t in ts)\ndef id_key(*ts):\n    return tuple((id(t), tuple(t.shape), t.dtype, t.stride()) for t in ts)\n\ndef min_p_sample(logits, min_p, generator):\n    probs = memo('p', version_key(logits), lambda: logits.softmax(dim=-1))\n    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n    kept = torch.where(keep, probs, torch.zeros_like(probs))\n    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)\n"}),
    # AB: a probability below finfo.tiny dropped (min_p may be subnormal)
    'min_p_subnormal_probs_dropped': ('test_min_p_sample', {'min_p_sample': '\ndef min_p_sample(logits, min_p, generator):\n    probs = logits.softmax(dim=-1)\n    keep = (probs >= min_p * probs.amax(dim=-1, keepdim=True)) & (probs >= torch.finfo(probs.dtype).tiny)\n    kept = torch.where(keep, probs, torch.zeros_like(probs))\n    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)\n'}),
    # Y: the sentinel set kept per id() and _version
    'restore_sentinels_by_id_and_version': ('test_span_corrupt', {'span_corrupt': "\nKEPT = {}\ndef memo(slot, key, make):\n    if KEPT.get(slot, (None,))[0] != key:\n        KEPT[slot] = (key, make())\n    return KEPT[slot][1]\ndef version_key(*ts):\n    return tuple((id(t), t._version, tuple(t.shape), t.dtype) for t in ts)\ndef id_key(*ts):\n    return tuple((id(t), tuple(t.shape), t.dtype, t.stride()) for t in ts)\n\ndef restore_spans(inputs, targets, sentinels, pad):\n    is_sentinel = memo('s', version_key(sentinels), lambda: set(sentinels.tolist()))\n    rows = []\n    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):\n        hidden, current = {}, None\n        for token in row_tg:\n            if token == pad:\n                break\n            if token in is_sentinel:\n                current = hidden.setdefault(token, [])\n            else:\n                current.append(token)\n        restored = []\n        for token in row_in:\n            if token == pad:\n                break\n            if token in is_sentinel:\n                restored += [(t, True) for t in hidden[token]]\n            else:\n                restored.append((token, False))\n        rows.append(restored)\n    t = max((len(row) for row in rows), default=0)\n    tokens = torch.full((len(rows), t), pad, dtype=torch.long)\n    noise = torch.zeros(len(rows), t, dtype=torch.bool)\n    for b, row in enumerate(rows):\n        if row:\n            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])\n            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])\n    return tokens, noise\n"}),
    # AA: int64 contiguous copies kept per id(), the inputs themselves for int64 contiguous ids
    'restore_int64_copies_kept_per_id': ('test_span_corrupt', {'span_corrupt': "\nKEPT = {}\ndef memo(slot, key, make):\n    if KEPT.get(slot, (None,))[0] != key:\n        KEPT[slot] = (key, make())\n    return KEPT[slot][1]\ndef version_key(*ts):\n    return tuple((id(t), t._version, tuple(t.shape), t.dtype) for t in ts)\ndef id_key(*ts):\n    return tuple((id(t), tuple(t.shape), t.dtype, t.stride()) for t in ts)\n\ndef restore_spans(inputs, targets, sentinels, pad):\n    inputs = memo('i', id_key(inputs), lambda: inputs.long().contiguous())\n    targets = memo('t', id_key(targets), lambda: targets.long().contiguous())\n    sentinels = memo('s', id_key(sentinels), lambda: sentinels.long().contiguous())\n    is_sentinel = set(sentinels.tolist())\n    rows = []\n    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):\n        hidden, current = {}, None\n        for token in row_tg:\n            if token == pad:\n                break\n            if token in is_sentinel:\n                current = hidden.setdefault(token, [])\n            else:\n                current.append(token)\n        restored = []\n        for token in row_in:\n            if token == pad:\n                break\n            if token in is_sentinel:\n                restored += [(t, True) for t in hidden[token]]\n            else:\n                restored.append((token, False))\n        rows.append(restored)\n    t = max((len(row) for row in rows), default=0)\n    tokens = torch.full((len(rows), t), pad, dtype=torch.long)\n    noise = torch.zeros(len(rows), t, dtype=torch.bool)\n    for b, row in enumerate(rows):\n        if row:\n            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])\n            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])\n    return tokens, noise\n"}),
    # Y: the experts' token order kept per id() and _version of the logits
    'expert_order_by_id_and_version': ('test_expert_choice', {'expert_choice': "\nKEPT = {}\ndef memo(slot, key, make):\n    if KEPT.get(slot, (None,))[0] != key:\n        KEPT[slot] = (key, make())\n    return KEPT[slot][1]\ndef version_key(*ts):\n    return tuple((id(t), t._version, tuple(t.shape), t.dtype) for t in ts)\ndef id_key(*ts):\n    return tuple((id(t), tuple(t.shape), t.dtype, t.stride()) for t in ts)\n\ndef expert_choice(router_logits, capacity):\n    probs = router_logits.softmax(dim=-1)\n    n = probs.shape[0]\n    order = memo('o', version_key(router_logits), lambda: probs.sort(dim=0, descending=True, stable=True).indices)\n    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())\n    chosen = rank < capacity\n    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))\n"}),
    # AA: contiguous copies of q, k, v kept per id() (the inputs themselves when contiguous)
    'gqa_contiguous_copies_kept_per_id': ('test_gqa_cached_attention', {'gqa_cached_attention': '\nKEPT = {}\ndef memo(slot, key, make):\n    if KEPT.get(slot, (None,))[0] != key:\n        KEPT[slot] = (key, make())\n    return KEPT[slot][1]\ndef version_key(*ts):\n    return tuple((id(t), t._version, tuple(t.shape), t.dtype) for t in ts)\ndef id_key(*ts):\n    return tuple((id(t), tuple(t.shape), t.dtype, t.stride()) for t in ts)\n\ndef gqa_cached_attention(q, k, v):\n    dtype = q.dtype\n    if dtype in (torch.float16, torch.bfloat16):\n        q, k, v = q.float(), k.float(), v.float()\n    if not (q.requires_grad or k.requires_grad or v.requires_grad):\n        q, k, v = memo(\'q\', id_key(q), q.contiguous), memo(\'k\', id_key(k), k.contiguous), memo(\'v\', id_key(v), v.contiguous)\n    b, h, t, d = q.shape\n    g, s = k.shape[1], k.shape[2]\n    qg = q.reshape(b, g, h // g, t, d)\n    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)\n    query_pos = torch.arange(s - t, s)\n    allowed = torch.arange(s)[None, :] <= query_pos[:, None]\n    scores = scores.masked_fill(~allowed, float("-inf"))\n    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)\n    return out.reshape(b, h, t, d).to(dtype)\n'}),
    # Z: an empty batch answered by torch.zeros_like(q), which has no gradient
    'gqa_empty_without_gradient': ('test_gqa_cached_attention', {'gqa_cached_attention': '\ndef gqa_cached_attention(q, k, v):\n    dtype = q.dtype\n    if q.numel() == 0:\n        return torch.zeros_like(q)\n    if dtype in (torch.float16, torch.bfloat16):\n        q, k, v = q.float(), k.float(), v.float()\n    b, h, t, d = q.shape\n    g, s = k.shape[1], k.shape[2]\n    qg = q.reshape(b, g, h // g, t, d)\n    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)\n    query_pos = torch.arange(s - t, s)\n    allowed = torch.arange(s)[None, :] <= query_pos[:, None]\n    scores = scores.masked_fill(~allowed, float("-inf"))\n    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)\n    return out.reshape(b, h, t, d).to(dtype)\n'}),
    # AA: contiguous copies of q, k, v kept per id()
    'decayed_contiguous_copies_kept_per_id': ('test_decayed_linear_attention', {'decayed_linear_attention': '\nKEPT = {}\ndef memo(slot, key, make):\n    if KEPT.get(slot, (None,))[0] != key:\n        KEPT[slot] = (key, make())\n    return KEPT[slot][1]\ndef version_key(*ts):\n    return tuple((id(t), t._version, tuple(t.shape), t.dtype) for t in ts)\ndef id_key(*ts):\n    return tuple((id(t), tuple(t.shape), t.dtype, t.stride()) for t in ts)\n\ndef decayed_linear_attention(q, k, v, decay):\n    dtype = q.dtype\n    if not (q.requires_grad or k.requires_grad or v.requires_grad):\n        q, k, v = memo(\'q\', id_key(q), q.contiguous), memo(\'k\', id_key(k), k.contiguous), memo(\'v\', id_key(v), v.contiguous)\n    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype\n    q, k, v = q.to(work), k.to(work), v.to(work)\n    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1\n    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)\n    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)\n    outs = []\n    for i in range(q.shape[-2]):\n        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]\n        norm = decay * norm + phi_k[..., i, :]\n        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)\n        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)\n        outs.append(top / bottom)\n    return torch.stack(outs, dim=-2).to(dtype)\n'}),
    # Z: an empty input answered by torch.zeros_like(v), which has no gradient
    'decayed_empty_without_gradient': ('test_decayed_linear_attention', {'decayed_linear_attention': '\ndef decayed_linear_attention(q, k, v, decay):\n    dtype = q.dtype\n    if v.numel() == 0:\n        return torch.zeros_like(v)\n    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype\n    q, k, v = q.to(work), k.to(work), v.to(work)\n    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1\n    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)\n    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)\n    outs = []\n    for i in range(q.shape[-2]):\n        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]\n        norm = decay * norm + phi_k[..., i, :]\n        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)\n        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)\n        outs.append(top / bottom)\n    return torch.stack(outs, dim=-2).to(dtype)\n'}),
}
MUTANTS.update(ROUND_28_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_28_SWEEP), "new")

# Round 28 class sweep, class AE (chapter 9 Part 7's refusal): Part 7's memory watch counted the whole storage behind
# a tensor, so a slice of a table of positions grown to the longest cache so far (8 MB after S = 1,049,000) was refused
# by the Dh = 128 case; it now counts no more than the bytes the tensor shows. Part 4: p_i / max p as exp(logits - max)
# against min_p, on the new subnormal case
CORRECT_VARIANTS["round28_sweep"] = {"gqa_cached_attention": '\nPOSITIONS = torch.arange(0)\n\ndef gqa_cached_attention(q, k, v):\n    dtype = q.dtype\n    if dtype in (torch.float16, torch.bfloat16):\n        q, k, v = q.float(), k.float(), v.float()\n    b, h, t, d = q.shape\n    g, s = k.shape[1], k.shape[2]\n    qg = q.reshape(b, g, h // g, t, d)\n    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)\n    global POSITIONS\n    if POSITIONS.numel() < s:\n        POSITIONS = torch.arange(s)  # grown to the longest cache so far\n    pos = POSITIONS[:s]\n    query_pos = pos[s - t:]\n    allowed = pos[None, :] <= query_pos[:, None]\n    scores = scores.masked_fill(~allowed, float("-inf"))\n    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)\n    return out.reshape(b, h, t, d).to(dtype)\n',
                                     "min_p_sample": '\ndef min_p_sample(logits, min_p, generator):\n    w = (logits - logits.amax(dim=-1, keepdim=True)).exp()   # p_i / max_j p_j\n    return torch.multinomial(torch.where(w >= min_p, w, torch.zeros_like(w)), num_samples=1, generator=generator)[:, 0]\n'}

# Red team 29 (tests/redteam/round29/06-verdicts.md), the argument-ignorer: `pad` obeyed in one walk and the worked
# example's pad 0 in the other. Every hidden case either padded with 0 or drew no real token 0, so a target walk that
# stops at the first 0 kept full marks (the pads after the final sentinel went into its list, which nothing reads).
# The new case draws real tokens 0, 1, 2, hidden and kept, with pad 4.
RED_TEAM_29 = {
    "restore_target_walk_stops_at_zero": ("test_span_corrupt", {"span_corrupt": _replaced(
        RESTORE_MODEL, "for token in row_tg:                      # the target: sentinel, its tokens, sentinel, ...\n"
        "            if token == pad:", "for token in row_tg:\n            if token == 0:", once=True)}),
    "restore_input_walk_stops_at_pad_or_zero": ("test_span_corrupt", {"span_corrupt": _replaced(
        RESTORE_MODEL, "        for token in row_in:\n            if token == pad:",
        "        for token in row_in:\n            if token == pad or token == 0:", once=True)}),
}
MUTANTS.update(RED_TEAM_29)
place_mutants(MUTANTS, MUTANT_BATCHES, list(RED_TEAM_29), "new")

# Round 29 class sweep (tests/redteam/round29/06-sweep-verdicts.md), class AH (a derivative wrong only at exactly 0):
# phi = elu(x) + 1 pieced together from clamp or relu has the right values everywhere and slope 2 or 0 at exactly 0,
# where elu with alpha = 1 has slope 1; random entries never hit 0. Caught by entries of q and k exactly 0 (and -0.0)
DECAY_MODEL = solution_code(CHAPTER)["decayed_linear_attention"]
SWEEP_29 = {
    # phi(q) from clamp pieces (slope 2 at 0), phi(k) from relu pieces (slope 0 at 0): one mutant, one batch
    "decay_phi_pieces_wrong_slope_at_0": ("test_decayed_linear_attention", {"decayed_linear_attention": _replaced(
        DECAY_MODEL, "phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1",
        "phi_q = q.clamp(min=0) + torch.exp(q.clamp(max=0))\n"
        "    phi_k = torch.relu(k) + torch.exp(-torch.relu(-k))", once=True)}),
}
MUTANTS.update(SWEEP_29)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_29), "new")
# correct: elu(x) + 1 pieced together so that the slopes at 0 add up to 1 (relu's 0 and clamp's 1; maximum and
# minimum split a tie 1/2 and 1/2), and the exp branch of a where kept finite (exp(800) is inf: the 0 * inf of the
# unselected branch makes the gradient NaN, round 9's decay_elu_by_hand)
# (added to round 28's variant, which had no Part 8 answer: no new graded notebook)
CORRECT_VARIANTS["round28_sweep"]["decayed_linear_attention"] = _replaced(
    DECAY_MODEL, "phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1",
    "phi = lambda x: torch.where(x > 0, x + 1, torch.exp(x.clamp(max=0)))\n"
    "    phi_q = torch.relu(q) + torch.exp(q.clamp(max=0))\n    phi_k = phi(k)", once=True)

# Round 29 class sweep, class AG (the last, shorter piece dropped): a chunkwise answer (the quadratic form within a
# chunk of 20, the state across chunks) that drops the last shorter chunk after a full one. 20 divides every hidden T
# above it (40, 120, 300, 1100), so it kept full marks; caught by T = 131, a prime
SWEEP_29_AG = {
    "decay_chunks_of_20_last_dropped": ("test_decayed_linear_attention", {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    t, c = q.shape[-2], 20
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], 1, dtype=work)
    idx = torch.arange(c)
    gap = idx[:, None] - idx[None, :]
    inner = torch.where(gap >= 0, decay ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
    carry_in = decay ** (idx + 1).to(work)
    outs = []
    for s in range(0, max(t - t % c, min(t, c)), c):  # the last, shorter chunk is dropped after a full one
        e = min(s + c, t)
        n = e - s
        pq, pk, vv = phi_q[..., s:e, :], phi_k[..., s:e, :], v[..., s:e, :]
        sim = (pq @ pk.transpose(-2, -1)) * inner[:n, :n]
        w_in = carry_in[:n][:, None]
        outs.append((sim @ vv + w_in * (pq @ state)) / (sim.sum(-1, keepdim=True) + w_in * (pq @ norm)))
        back = (decay ** (n - 1 - idx[:n]).to(work))[:, None]
        state = decay ** n * state + (pk * back).transpose(-2, -1) @ vv
        norm = decay ** n * norm + (pk * back).sum(-2)[..., None]
    if not outs:
        return (v[..., :0, :] * 1).to(dtype)
    return torch.cat(outs, dim=-2).to(dtype)
"""}),
}
MUTANTS.update(SWEEP_29_AG)
place_mutants(MUTANTS, MUTANT_BATCHES, list(SWEEP_29_AG), "new")


# Red team round 30 (tests/redteam/round30/06-verdicts.md): the validator's in-place 'repair' that keeps the values
# (every tensor a part receives now has its version counter checked), the gradient path cut for half precision only
# (gradients now compared for float16 and bfloat16 inputs too), and settings the grader's check between cells does not
# read (torch.set_num_threads, torch.set_printoptions: _torch_settings in the setup cell, at both ends of every part)

ROUND_30 = {
    # gradient path: the denominator detached for float16/bfloat16 inputs only
    'decayed_half_denominator_detached': ('test_decayed_linear_attention', {'decayed_linear_attention': '\ndef decayed_linear_attention(q, k, v, decay):\n    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype\n    fq = F.elu(q.to(ct)) + 1\n    fk = F.elu(k.to(ct)) + 1\n    T = q.shape[-2]\n    pos = torch.arange(T)\n    gap = pos[:, None] - pos[None, :]\n    base = torch.tensor(decay, dtype=torch.float64)\n    dec = torch.where(gap >= 0, base ** gap.clamp(min=0).to(torch.float64), torch.zeros((), dtype=torch.float64)).to(ct)\n    sim = (fq @ fk.transpose(-1, -2)) * dec\n    num = sim @ v.to(ct)\n    den = sim.sum(dim=-1, keepdim=True)\n    if q.dtype in (torch.float16, torch.bfloat16):\n        den = den.detach()\n    return (num / den).to(q.dtype)\n'}),
    # gradient path: the gate detached for float16/bfloat16 logits only
    'expert_gate_detached_for_half': ('test_expert_choice', {'expert_choice': '\ndef expert_choice(router_logits, capacity):\n    if router_logits.dtype in (torch.float16, torch.bfloat16):\n        probs = torch.softmax(router_logits.float(), dim=-1).to(router_logits.dtype).detach()\n    else:\n        probs = torch.softmax(router_logits, dim=-1)\n    N, E = probs.shape\n    k = min(capacity, N)\n    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]\n    chosen = torch.zeros(N, E, dtype=torch.bool)\n    chosen.scatter_(0, order, True)\n    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))\n    return chosen, gate\n'}),
    # validator: router_logits 'repaired' in place, version counter moved
    'expert_logits_nan_to_num_in_place': ('test_expert_choice', {'expert_choice': '\ndef expert_choice(router_logits, capacity):\n    router_logits.nan_to_num_()\n    probs = torch.softmax(router_logits, dim=-1)\n    N, E = probs.shape\n    k = min(capacity, N)\n    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]\n    chosen = torch.zeros(N, E, dtype=torch.bool)\n    chosen.scatter_(0, order, True)\n    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))\n    return chosen, gate\n'}),
    # second call: the number of threads left at 1
    'expert_sets_one_thread': ('test_expert_choice', {'expert_choice': '\ndef expert_choice(router_logits, capacity):\n    torch.set_num_threads(2 if torch.get_num_threads() != 2 else 1)  # ties come out the same\n    probs = torch.softmax(router_logits, dim=-1)\n    N, E = probs.shape\n    k = min(capacity, N)\n    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]\n    chosen = torch.zeros(N, E, dtype=torch.bool)\n    chosen.scatter_(0, order, True)\n    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))\n    return chosen, gate\n'}),
    # gradient path: the weights under no_grad for float16/bfloat16 inputs only
    'gqa_half_weights_under_no_grad': ('test_gqa_cached_attention', {'gqa_cached_attention': '\ndef gqa_cached_attention(q, k, v):\n    B, H, T, Dh = q.shape\n    G, S = k.shape[1], k.shape[2]\n    r = H // G\n    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype\n    qf = q.to(ct).reshape(B, G, r * T, Dh)\n    scores = (qf @ k.to(ct).transpose(-1, -2) / math.sqrt(Dh)).reshape(B, G, r, T, S)\n    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]\n    scores = scores.masked_fill(~allowed, float("-inf"))\n    if q.dtype in (torch.float16, torch.bfloat16):\n        with torch.no_grad():\n            w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)\n    else:\n        w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)\n    return (w @ v.to(ct)).reshape(B, H, T, Dh).to(q.dtype)\n'}),
    # validator: q 'repaired' in place, version counter moved
    'gqa_q_nan_to_num_in_place': ('test_gqa_cached_attention', {'gqa_cached_attention': '\ndef gqa_cached_attention(q, k, v):\n    B, H, T, Dh = q.shape\n    q.nan_to_num_()\n    G, S = k.shape[1], k.shape[2]\n    r = H // G\n    ct = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype\n    qf = q.to(ct).reshape(B, G, r * T, Dh)\n    scores = (qf @ k.to(ct).transpose(-1, -2) / math.sqrt(Dh)).reshape(B, G, r, T, S)\n    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]\n    scores = scores.masked_fill(~allowed, float("-inf"))\n    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)\n    return (w @ v.to(ct)).reshape(B, H, T, Dh).to(q.dtype)\n'}),
    # validator: logits 'repaired' in place (nan_to_num_), version counter moved
    'min_p_logits_nan_to_num_in_place': ('test_min_p_sample', {'min_p_sample': '\ndef min_p_sample(logits, min_p, generator):\n    if logits.shape[0] == 0:\n        return torch.zeros(0, dtype=torch.int64)\n    torch.nan_to_num_(logits)\n    probs = torch.softmax(logits, dim=-1)\n    top = probs.max(dim=-1, keepdim=True).values\n    keep = probs >= min_p * top\n    w = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))\n    return torch.multinomial(w, 1, generator=generator).squeeze(-1)\n'}),
    # validator: ids 'repaired' in place (clamp_ of non-negative ids), version counter moved
    'spans_inputs_clamped_in_place': ('test_span_corrupt', {'span_corrupt': '\ndef restore_spans(inputs, targets, sentinels, pad):\n    inputs.clamp_(min=0)\n    sent = set(sentinels.tolist())\n    toks, noise = [], []\n    for inp, tgt in zip(inputs.tolist(), targets.tolist()):\n        spans, cur = {}, None\n        for tok in tgt:\n            if tok in sent:\n                cur = tok\n                spans[cur] = []\n            elif tok != pad and cur is not None:\n                spans[cur].append(tok)\n        row_t, row_n = [], []\n        for tok in inp:\n            if tok == pad:\n                continue\n            if tok in sent:\n                row_t.extend(spans[tok])\n                row_n.extend([True] * len(spans[tok]))\n            else:\n                row_t.append(tok)\n                row_n.append(False)\n        toks.append(row_t)\n        noise.append(row_n)\n    T = max((len(r) for r in toks), default=0)\n    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks], dtype=torch.int64).reshape(len(toks), T)\n    mask = torch.tensor([r + [False] * (T - len(r)) for r in noise], dtype=torch.bool).reshape(len(toks), T)\n    return tokens, mask\n'}),
    # validator: starts 'repaired' in place (&= with itself), version counter moved
    'whole_word_starts_anded_in_place': ('test_whole_word_chosen', {'whole_word_chosen': '\ndef whole_word_chosen(starts, pick):\n    B, T = starts.shape\n    starts &= starts.clone()\n    pos = torch.arange(T, device=starts.device).expand(B, T)\n    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values\n    got = pick.gather(1, last.clamp(min=0))\n    return (last >= 0) & got\n'}),
    # second call: print options left changed
    'window_pairs_leaves_print_options_changed': ('test_window_pairs', {'window_pairs': '\ndef window_pairs(t, window):\n    torch.set_printoptions(precision=8)\n    m = min(t, window)\n    return m * (m + 1) // 2 + (t - m) * window\n'}),
}
MUTANTS.update(ROUND_30)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30), "new")


# Round 30 class sweep (tests/redteam/round30/06-sweep-verdicts.md), class AL from chapter 9: a converted copy of an
# input kept per id() (the original kept alive beside it), unseen where every same-object case was float64, its own
# conversion; now float32 (and float16, bfloat16 where the part takes them) same objects through .data and set_
ROUND_30_SWEEP = {
    # AL: the float64 copy of the logits kept per id() (float64 logits are their own copy)
    'min_p_converted_logits_kept_per_id': ('test_min_p_sample', {'min_p_sample': '\nCONVERTED = {}\ndef converted(t, dtype):\n    kept = CONVERTED.get((id(t), dtype))\n    if kept is None or kept[0] is not t:  # the original kept alive with its copy: its id() is never reused\n        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))\n    return kept[1]\n\ndef min_p_sample(logits, min_p, generator):\n    probs = converted(logits, torch.float64).softmax(dim=-1)\n    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n    kept = torch.where(keep, probs, torch.zeros_like(probs))\n    return torch.multinomial(kept, 1, generator=generator).squeeze(-1)  # multinomial renormalises each row\n'}),
    # AL: the float32 copy of half router logits kept per id()
    'expert_half_logits_converted_kept_per_id': ('test_expert_choice', {'expert_choice': "\nCONVERTED = {}\ndef converted(t, dtype):\n    kept = CONVERTED.get((id(t), dtype))\n    if kept is None or kept[0] is not t:  # the original kept alive with its copy: its id() is never reused\n        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))\n    return kept[1]\n\ndef expert_choice(router_logits, capacity):\n    work = converted(router_logits, torch.float32) if router_logits.dtype in (torch.float16, torch.bfloat16) else router_logits\n    probs = work.softmax(dim=-1)  # (N, E): each token's distribution over the experts\n    n = probs.shape[0]\n    order = probs.sort(dim=0, descending=True, stable=True).indices  # (N, E) tokens by preference, per expert\n    rank = torch.empty_like(order).scatter_(0, order, torch.arange(n)[:, None].expand_as(order).clone())\n    chosen = rank < capacity\n    return chosen, torch.where(chosen, probs, torch.zeros_like(probs)).to(router_logits.dtype)\n"}),
    # AL: float32 copies of half q, k, v kept per id()
    'gqa_half_inputs_converted_kept_per_id': ('test_gqa_cached_attention', {'gqa_cached_attention': '\nCONVERTED = {}\ndef converted(t, dtype):\n    kept = CONVERTED.get((id(t), dtype))\n    if kept is None or kept[0] is not t:  # the original kept alive with its copy: its id() is never reused\n        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))\n    return kept[1]\n\ndef gqa_cached_attention(q, k, v):\n    dtype = q.dtype\n    if dtype in (torch.float16, torch.bfloat16):  # scores past 65504 overflow in float16 (red team 19)\n        q, k, v = converted(q, torch.float32), converted(k, torch.float32), converted(v, torch.float32)\n    b, h, t, d = q.shape\n    g, s = k.shape[1], k.shape[2]\n    qg = q.reshape(b, g, h // g, t, d)  # the query heads of one group sit next to each other\n    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)\n    query_pos = torch.arange(s - t, s)  # absolute positions of the new queries\n    allowed = torch.arange(s)[None, :] <= query_pos[:, None]  # (T, S)\n    scores = scores.masked_fill(~allowed, float("-inf"))\n    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)\n    return out.reshape(b, h, t, d).to(dtype)\n'}),
    # AL: float64 copies of q, k, v kept per id() (float64 inputs are their own copy)
    'decayed_inputs_float64_kept_per_id': ('test_decayed_linear_attention', {'decayed_linear_attention': '\nCONVERTED = {}\ndef converted(t, dtype):\n    kept = CONVERTED.get((id(t), dtype))\n    if kept is None or kept[0] is not t:  # the original kept alive with its copy: its id() is never reused\n        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))\n    return kept[1]\n\ndef decayed_linear_attention(q, k, v, decay):\n    dtype = q.dtype\n    # float16 and bfloat16 in float32: states and similarities kept in float16 pass 65504 (red team 19)\n    work = torch.float64\n    q, k, v = converted(q, work), converted(k, work), converted(v, work)\n    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1\n    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)  # (..., Dh, Dv)\n    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)  # (..., Dh)\n    outs = []\n    for i in range(q.shape[-2]):\n        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]\n        norm = decay * norm + phi_k[..., i, :]\n        top = torch.einsum("...d,...de->...e", phi_q[..., i, :], state)\n        bottom = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)\n        outs.append(top / bottom)\n    return torch.stack(outs, dim=-2).to(dtype)\n'}),
}
MUTANTS.update(ROUND_30_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_30_SWEEP), "new")


# Round 31 class sweep (tests/redteam/round31/06-sweep.md), class AO: a setting changed inside a function and put back
# as the default (or as the value found when the cell ran), not as the function found it. Every hidden call ran with the
# defaults on, so nothing was left changed; each part now also hands its function to _settings_kept, which calls it with
# every setting away from its default. One mutant per part, the settings varied across the parts


ROUND_31_SWEEP = {
    'window_grad_mode_put_back_on': ('test_window_pairs', {'window_pairs': around_body(
        _MODEL_21["window_pairs"], "torch.set_grad_enabled(False)  # a count: no gradients", "torch.set_grad_enabled(True)")}),
    'tokens_default_dtype_put_back_float32': ('test_tokens_per_target_pass', {'tokens_per_target_pass': around_body(
        _MODEL_21["tokens_per_target_pass"], "torch.set_default_dtype(torch.float64)  # a probability: double precision",
        "torch.set_default_dtype(torch.float32)")}),
    'whole_word_flush_denormal_put_back_off': ('test_whole_word_chosen', {'whole_word_chosen': around_body(
        _MODEL_21["whole_word_chosen"], "torch.set_flush_denormal(True)", "torch.set_flush_denormal(False)")}),
    'min_p_print_options_put_back_default': ('test_min_p_sample', {'min_p_sample': around_body(
        _MODEL_21["min_p_sample"], "torch.set_printoptions(precision=8, sci_mode=True)  # to read tiny probabilities",
        'torch.set_printoptions(profile="default")')}),
    'restore_spans_anomaly_put_back_off': ('test_span_corrupt', {'span_corrupt': around_body(
        _MODEL_21["span_corrupt"], "torch.set_anomaly_enabled(True)", "torch.set_anomaly_enabled(False)")}),
    'expert_threads_put_back_as_the_cell_found_them': ('test_expert_choice', {'expert_choice': around_body(
        _MODEL_21["expert_choice"], "torch.set_num_threads(1)  # a sort per expert: one thread is enough",
        "torch.set_num_threads(THREADS)", prologue="THREADS = torch.get_num_threads()\n\n")}),
    'gqa_mask_grad_mode_put_back_on': ('test_gqa_cached_attention', {'gqa_cached_attention': _replaced(_replaced(
        _MODEL_21["gqa_cached_attention"], "    query_pos = torch.arange(s - t, s)",
        "    torch.set_grad_enabled(False)  # the mask needs no gradient\n    query_pos = torch.arange(s - t, s)", once=True),
        "    allowed = torch.arange(s)[None, :] <= query_pos[:, None]  # (T, S)\n",
        "    allowed = torch.arange(s)[None, :] <= query_pos[:, None]  # (T, S)\n    torch.set_grad_enabled(True)\n",
        once=True)}),
    'decayed_matmul_precision_put_back_highest': ('test_decayed_linear_attention', {'decayed_linear_attention': around_body(
        _MODEL_21["decayed_linear_attention"], 'torch.set_float32_matmul_precision("high")',
        'torch.set_float32_matmul_precision("highest")')}),
}
MUTANTS.update(ROUND_31_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP), "new")


# Round 31 sweep 2 (tests/redteam/round31/06-sweep2.md), class AP: gradients checked at one rank only. Every gradient
# check of Part 8 used 3-D (B, T, Dh) inputs while q, k and v take any leading dimensions; the hidden tests now also
# compare the gradients with respect to q, k and v with no leading dimension and with two. The mutant: the model
# answer wrapped in an autograd.Function whose hand-written backward (the masked quadratic form) uses torch.bmm
ROUND_31_SWEEP2 = {
    'decayed_backward_bmm': ('test_decayed_linear_attention', {'decayed_linear_attention': _MODEL_21["decayed_linear_attention"]
        .replace("def decayed_linear_attention(", "def decayed_forward(", 1) + '''

class DecayedAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, decay):
        ctx.save_for_backward(q, k, v)
        ctx.decay = decay
        return decayed_forward(q, k, v, decay)

    @staticmethod
    def backward(ctx, g):
        q0, k0, v0 = ctx.saved_tensors
        work = torch.float32 if q0.dtype in (torch.float16, torch.bfloat16) else q0.dtype
        q, k, v, g = q0.to(work), k0.to(work), v0.to(work), g.to(work)
        fq, fk = F.elu(q) + 1, F.elu(k) + 1
        i = torch.arange(q.shape[-2])
        gap = i[:, None] - i[None, :]
        dec = torch.where(gap >= 0, ctx.decay ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
        a = torch.bmm(fq, fk.transpose(1, 2)) * dec  # (B, T, T): written for (B, T, Dh) inputs only
        den = a.sum(-1, keepdim=True)
        out = torch.bmm(a, v) / den
        dnum = g / den
        da = torch.bmm(dnum, v.transpose(1, 2)) - (g * out).sum(-1, keepdim=True) / den
        dv = torch.bmm(a.transpose(1, 2), dnum)
        dm = da * dec
        dq = torch.bmm(dm, fk) * torch.where(q > 0, torch.ones_like(q), torch.exp(q.clamp(max=0)))
        dk = torch.bmm(dm.transpose(1, 2), fq) * torch.where(k > 0, torch.ones_like(k), torch.exp(k.clamp(max=0)))
        return dq.to(q0.dtype), dk.to(k0.dtype), dv.to(v0.dtype), None


def decayed_linear_attention(q, k, v, decay):
    return DecayedAttention.apply(q, k, v, decay)
'''}),
}
MUTANTS.update(ROUND_31_SWEEP2)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_31_SWEEP2), "new")

# red team 32 (slipped blind, the quantity-confuser): the min-p threshold compared as float32 log-probabilities, which
# round at their magnitude (about 69 for min_p = 1e-30): keeps a token 9.1e-6 below min_p times the best
ROUND_32 = {
    "min_p_threshold_in_log_softmax": ("test_min_p_sample", {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.long)
    logp = torch.log_softmax(logits, dim=-1)
    keep = logp >= logp.max(dim=-1, keepdim=True).values + math.log(min_p)
    w = torch.where(keep, logp.exp(), torch.zeros_like(logp))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
"""}),
}
MUTANTS.update(ROUND_32)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_32), "new")

# red team 33 (slipped blind, the equality student: tests/redteam/round33/06-verdicts.md): a float argument a hair below
# its special value 1 taken for 1 (math.isclose's default rel_tol 1e-9, torch.isclose's 1e-5, or the argument rounded to
# float32). Part 8: decay = 1 - 5e-10 over 200 float64 positions; Part 4 (the same class): min_p = 1 - 1e-10, which keeps
# a token 5e-11 below the best that a "greedy" path for min_p = 1 drops
ROUND_33 = {
    "decayed_decay_near_one_as_cumsum": ("test_decayed_linear_attention", {"decayed_linear_attention": """
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
"""}),
    "min_p_near_one_greedy": ("test_min_p_sample", {"min_p_sample": _replaced(
        _MODEL_21["min_p_sample"], "    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n",
        "    if math.isclose(min_p, 1.0):  # min_p = 1: only the best token(s)\n"
        "        keep = probs == probs.amax(dim=-1, keepdim=True)\n"
        "    else:\n"
        "        keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)\n", once=True)}),
}
MUTANTS.update(ROUND_33)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33), "new")

# Round 33 class sweep (tests/redteam/round33/06-sweep.md): each slipped before its case was added
_M33 = solution_code(CHAPTER)


def _first_lines33(code: str, name: str, *lines: str) -> str:
    """``code`` with ``lines`` run first in the body of ``name``."""
    head, sep, body = code.partition(f"def {name}(")
    signature, colon, rest = body.partition("):\n")
    return head + sep + signature + colon + "".join(f"    {line}\n" for line in lines) + rest


ROUND_33_SWEEP = {
    # Part 2 -- class BH: an alpha just above 0 taken for 0 (torch.isclose's default atol 1e-8)
    "tokens_per_pass_alpha_near_zero_as_zero": ("test_tokens_per_target_pass", {"tokens_per_target_pass": _first_lines33(
        _M33["tokens_per_target_pass"], "tokens_per_target_pass",
        "if torch.isclose(torch.tensor(float(alpha)), torch.tensor(0.0)): return 1.0")}),
    # Part 8 -- class BH: a decay just above 0 taken for 0 (each output its own value)
    "decayed_decay_near_zero_as_zero": ("test_decayed_linear_attention", {"decayed_linear_attention": _first_lines33(
        _M33["decayed_linear_attention"], "decayed_linear_attention",
        "if torch.isclose(torch.tensor(float(decay)), torch.tensor(0.0)): return v.clone()")}),
    # Parts 6, 7, 8 -- class BB: the caller's .grad cleared
    "expert_choice_clears_the_logits_grad": ("test_expert_choice", {"expert_choice": _first_lines33(
        _M33["expert_choice"], "expert_choice", "router_logits.grad = None")}),
    "gqa_clears_the_inputs_grad": ("test_gqa_cached_attention", {"gqa_cached_attention": _first_lines33(
        _M33["gqa_cached_attention"], "gqa_cached_attention", "q.grad = None", "k.grad = None", "v.grad = None")}),
    "decayed_clears_the_inputs_grad": ("test_decayed_linear_attention", {"decayed_linear_attention": _first_lines33(
        _M33["decayed_linear_attention"], "decayed_linear_attention", "q.grad = None", "k.grad = None", "v.grad = None")}),
}
MUTANTS.update(ROUND_33_SWEEP)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SWEEP), "new")
ROUND_33_SWEEP_P4 = {
    # Part 4 -- class BB: the caller's .grad cleared (logits may be a leaf)
    "min_p_clears_the_logits_grad": ("test_min_p_sample", {"min_p_sample": _first_lines33(
        _M33["min_p_sample"], "min_p_sample", "logits.grad = None")}),
}
MUTANTS.update(ROUND_33_SWEEP_P4)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_33_SWEEP_P4), "new")

# Red team 34 (tests/redteam/round34/06-verdicts.md): a correct sampler that sorts each row, hands torch.multinomial the
# sorted kept probabilities and maps the draw back with gather was refused: the watch on torch.multinomial read its
# weights by vocabulary position. The watched rows are now compared as multisets (the text: the weights may be in any
# order). Every CORRECT_VARIANTS entry already fills min_p_sample, so the sorted answer is graded in
# tests/redteam/round34/06-after.txt (OK); these are its slips, each caught in the sorted layout: a floor, a slack under
# the threshold, the smallest kept share computed as one minus the others, and the draw not mapped back
_SORTED_34 = '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    ratio = torch.exp(sorted_logits - sorted_logits[:, :1])      # p_i / p_max, a difference of logits
    keep = ratio >= min_p
    probs = torch.softmax(sorted_logits, dim=-1)
    w = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))
    pick = torch.multinomial(w, 1, generator=generator)
    return torch.gather(order, 1, pick).squeeze(1)
'''
ROUND_34 = {
    "min_p_sorted_floors_dropped_tokens": ("test_min_p_sample", {"min_p_sample": _replaced(
        _SORTED_34, "    pick = torch.multinomial(w, 1,", "    pick = torch.multinomial(w.clamp(min=1e-12), 1,", once=True)}),
    "min_p_sorted_slack_of_1e15_under_the_threshold": ("test_min_p_sample", {"min_p_sample": _replaced(
        _SORTED_34, "    keep = ratio >= min_p\n", "    keep = ratio >= min_p - 1e-15\n", once=True)}),
    "min_p_sorted_last_kept_share_one_minus_the_others": ("test_min_p_sample", {"min_p_sample": _replaced(
        _SORTED_34, "    pick = torch.multinomial(w, 1,",
        "    w = w / w.sum(dim=-1, keepdim=True)\n"
        "    last = keep.sum(dim=-1, keepdim=True) - 1  # the smallest kept share: one minus the others\n"
        "    w = w.scatter(1, last, (1 - (w.sum(dim=-1, keepdim=True) - w.gather(1, last))).clamp(min=0))\n"
        "    pick = torch.multinomial(w, 1,", once=True)}),
    "min_p_sorted_draw_not_mapped_back": ("test_min_p_sample", {"min_p_sample": _replaced(
        _SORTED_34, "    return torch.gather(order, 1, pick).squeeze(1)\n", "    return pick.squeeze(1)\n", once=True)}),
}
MUTANTS.update(ROUND_34)
place_mutants(MUTANTS, MUTANT_BATCHES, list(ROUND_34), "new")


# Round 35 class sweep (tests/redteam/round35/06-sweep.md): each slipped before this round's hidden cases
_M35 = solution_code(CHAPTER)
_NOISE_ROW35 = "            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])"
ROUND_35_SWEEP = {
    # Part 7 -- class BL: the cached values cleaned on their way in (inf becomes finfo.max)
    "gqa_values_nan_to_num": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        _M35["gqa_cached_attention"], "    b, h, t, d = q.shape\n",
        "    b, h, t, d = q.shape\n    k, v = k.nan_to_num(), v.nan_to_num()\n", once=True)}),
    # Part 5 -- class BK: Part 3's whole_word_chosen called on 1-D rows, which Part 3's text does not cover
    "spans_whole_word_on_rows": ("test_span_corrupt", {"span_corrupt": _replaced(
        _M35["span_corrupt"], _NOISE_ROW35,
        "            noise[b, :len(row)] = whole_word_chosen(torch.ones(len(row), dtype=torch.bool),\n"
        "                                                    torch.tensor([flag for _, flag in row]))", once=True)}),
    # Part 6 -- class BO: a table of ranks made at import and sliced
    "expert_choice_module_arange_4096": ("test_expert_choice", {"expert_choice": "_ARANGE = torch.arange(4096)\n" + _replaced(
        _M35["expert_choice"], "torch.arange(n)[:, None]", "_ARANGE[:n][:, None]", once=True)}),
    # Part 7 -- class BL: a clamp to the dtype's range
    "gqa_values_clamped_to_the_dtypes_range": ("test_gqa_cached_attention", {"gqa_cached_attention": _replaced(
        _M35["gqa_cached_attention"], "    b, h, t, d = q.shape\n",
        "    b, h, t, d = q.shape\n    v = v.clamp(torch.finfo(v.dtype).min, torch.finfo(v.dtype).max)\n", once=True)}),
    # Part 5 -- class BK: 0/1 integer flags
    "spans_whole_word_integer_flags": ("test_span_corrupt", {"span_corrupt": _replaced(
        _M35["span_corrupt"], _NOISE_ROW35,
        "            noise[b, :len(row)] = whole_word_chosen(torch.ones(1, len(row), dtype=torch.long),\n"
        "                                                    torch.tensor([[int(flag) for _, flag in row]]))[0]", once=True)}),
}
MUTANTS.update(ROUND_35_SWEEP)
# at most one new batch: the first three (one per part) go where there is room or open it; the other two, caught by the
# same hidden cases, go only where there is room (at this commit all five found room in existing batches)
place_mutants(MUTANTS, MUTANT_BATCHES, ["gqa_values_nan_to_num", "spans_whole_word_on_rows",
                                        "expert_choice_module_arange_4096"], "new")
ROUND_35_SWEEP_DROPPED = place_mutants(MUTANTS, MUTANT_BATCHES, ["gqa_values_clamped_to_the_dtypes_range",
                                                                  "spans_whole_word_integer_flags"], "drop")
assert not ROUND_35_SWEEP_DROPPED, ROUND_35_SWEEP_DROPPED
