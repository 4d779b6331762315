# Red team round 34, chapter 06-variants: magic-number, composer, text-and-token and low-precision students
# (no part of this chapter takes or builds an nn.Module: no module-registration answers; phase 1, blind).
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: magic-number student
add("minp_log_guard_1e12", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    gap = logits - logits.max(dim=-1, keepdim=True).values      # differences of logits
    keep = gap >= math.log(max(min_p, 1e-12))                   # guard log(0)
    probs = torch.softmax(logits, dim=-1)
    w = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "magic-number: min_p floored at 1e-12 before its log; breaks 'min_p may be tiny, 1e-13 and 1e-200 in the hidden tests'")

add("expert_tiebreak_1e9_ramp", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    c = min(capacity, N)
    # break ties towards the lower index with a tiny ramp
    ramp = 1e-9 * torch.arange(N, dtype=probs.dtype).unsqueeze(1)
    idx = torch.topk(probs.detach() - ramp, c, dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
'''}, "magic-number: 1e-9 ramp as tie-breaker; breaks 'probabilities that differ, however little, are ranked by their values: the hidden tests use some that differ by less than 1e-13'")

add("gqa_mask_minus_1e30", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(ct).reshape(B, G, r, T, Dh)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k.to(ct)) / math.sqrt(Dh)
    future = torch.arange(S).unsqueeze(0) > torch.arange(S - T, S).unsqueeze(1)
    scores = scores.masked_fill(future, -1e30)          # big enough for any score
    w = torch.softmax(scores, dim=-1)
    out = torch.einsum("bgrts,bgsd->bgrtd", w, v.to(ct))
    return out.reshape(B, H, T, Dh).to(q.dtype)
'''}, "magic-number: -1e30 as the mask; breaks 'so mask with -inf, not with a large negative number ... a score a query may see can be that value'")

add("tokens_alpha_small_is_zero", False, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha < 1e-8:          # nothing accepted
        return 1.0
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''}, "magic-number: alphas below 1e-8 taken as 0; breaks 'an alpha just above 0, such as 5e-9, is not 0: its share is more than 1e-9'")

add("decay_near_one_snapped", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    if decay > 1 - 1e-9:
        decay = 1.0       # numerically 1
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(ct)) + 1, F.elu(k.to(ct)) + 1
    T = q.shape[-2]
    i, j = torch.arange(T).unsqueeze(-1), torch.arange(T).unsqueeze(0)
    gaps = (i - j).clamp(min=0).to(ct)
    dec = torch.where(j <= i, decay ** gaps, torch.zeros((), dtype=ct))
    w = (fq @ fk.transpose(-1, -2)) * dec
    return ((w @ v.to(ct)) / w.sum(-1, keepdim=True)).to(q.dtype)
'''}, "magic-number: decays within 1e-9 of 1 snapped to 1; breaks 'a decay just below 1, such as 1 - 5e-10, is not 1'")

add("decay_den_plus_1e12", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(ct)) + 1, F.elu(k.to(ct)) + 1
    T = q.shape[-2]
    i, j = torch.arange(T).unsqueeze(-1), torch.arange(T).unsqueeze(0)
    gaps = (i - j).clamp(min=0).to(ct)
    dec = torch.where(j <= i, decay ** gaps, torch.zeros((), dtype=ct))
    w = (fq @ fk.transpose(-1, -2)) * dec
    return ((w @ v.to(ct)) / (w.sum(-1, keepdim=True) + 1e-12)).to(q.dtype)
'''}, "magic-number: 1e-12 added to the denominator; breaks 'Do not add an epsilon to the denominator' (denominators of 1e-14 and 1e-31)")

# ---------------------------------------------------------------- wrong: composer
add("gqa_square_mask_sliced", False, {"gqa_cached_attention": '''
def causal_mask(n):
    return torch.ones(n, n, dtype=torch.bool).tril()

def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    allowed = causal_mask(S)[S - T:]        # the full-sequence mask, its last T rows
    qg = q.to(ct).reshape(B, G, r * T, Dh)
    scores = (qg @ k.to(ct).transpose(-1, -2) / math.sqrt(Dh)).reshape(B, G, r, T, S)
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)
    return (w @ v.to(ct)).reshape(B, H, T, Dh).to(q.dtype)
'''}, "composer: a T == S causal helper reused and sliced; breaks 'an S x S mask, even one sliced to its last T rows afterwards, needs a terabyte there'")

add("gqa_head_loop_modulo", False, {"gqa_cached_attention": '''
def attend_one(qh, kh, vh, T, S):
    ct = torch.float64 if qh.dtype == torch.float64 else torch.float32
    s = qh.to(ct) @ kh.to(ct).transpose(-1, -2) / math.sqrt(qh.shape[-1])
    s = s.masked_fill(torch.arange(S).unsqueeze(0) > torch.arange(S - T, S).unsqueeze(1), float("-inf"))
    return torch.softmax(s, dim=-1) @ vh.to(ct)

def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    outs = [attend_one(q[:, h], k[:, h % G], v[:, h % G], T, S) for h in range(H)]
    return torch.stack(outs, dim=1).to(q.dtype)
'''}, "composer: a one-head helper looped over heads with the group taken as h % G; breaks 'query head h uses key/value head h // (H // G)'")

add("decay_pow_then_tril", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(ct)) + 1, F.elu(k.to(ct)) + 1
    T = q.shape[-2]
    gaps = (torch.arange(T).unsqueeze(-1) - torch.arange(T).unsqueeze(0)).to(ct)
    w = torch.tril((fq @ fk.transpose(-1, -2)) * decay ** gaps)   # the lesson's causal mask, applied last
    return ((w @ v.to(ct)) / w.sum(-1, keepdim=True)).to(q.dtype)
'''}, "composer: powers for every pair, then the causal tril; breaks 'hiding it afterwards (with tril ...) leaves the value right but makes the gradient NaN ..., so raise the decay to the gaps of past keys only'")

add("expert_lesson_topk", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1)
    N, E = probs.shape
    c = min(capacity, N)
    # the lesson's top-k router, turned around: top-k over the tokens of each expert
    idx = probs.topk(c, dim=0).indices
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter(0, idx, True)
    return chosen, probs * chosen
'''}, "composer: the lesson's top-k reused for the tokens; breaks 'among tokens with equal probabilities the lower token index goes first, also when hundreds or thousands of tokens tie' (topk gives no order among ties)")

# ---------------------------------------------------------------- wrong: text-and-token student
add("spans_pad_is_zero", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        inp = [t for t in inp if t != 0]      # drop padding
        tgt = [t for t in tgt if t != 0]
        spans, cur = {}, None
        for tok in tgt:
            if tok in sent:
                cur = tok; spans[cur] = []
            else:
                spans[cur].append(tok)
        row, noise = [], []
        for tok in inp:
            piece = spans[tok] if tok in sent else [tok]
            row += piece; noise += [tok in sent] * len(piece)
        rows.append(row); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(len(rows), T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(len(rows), T)
    return tokens, noise
'''}, "text-and-token: id 0 taken as padding; breaks 'Each row is right-padded with pad (a Python int)' (0 is a real token when pad is another id)")

add("spans_sentinels_at_top", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    first_sentinel = int(sentinels.min())         # T5: sentinels are the last ids of the vocabulary
    is_sent = lambda t: t >= first_sentinel and t != pad
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
            piece = spans[tok] if is_sent(tok) else [tok]
            row += piece; noise += [is_sent(tok)] * len(piece)
        rows.append(row); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, n) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(n)] = torch.tensor(n, dtype=torch.bool)
    return tokens, noise
'''}, "text-and-token: every id at or above the smallest sentinel taken as a sentinel; breaks 'They need not be consecutive numbers' and 'ids ... may be anywhere in int64's range'")

add("spans_ith_sentinel_of_list", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    order = sentinels.tolist()
    sent = set(order)
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        # the target holds <s0> span0 <s1> span1 ... : cut it at the sentinels of the list, in their order
        spans, cur = [], None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                spans.append([])
            else:
                spans[-1].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                piece = spans[order.index(tok)]
                row += piece; noise += [True] * len(piece)
            else:
                row.append(tok); noise.append(False)
        rows.append(row); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, n) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(n)] = torch.tensor(n, dtype=torch.bool)
    return tokens, noise
'''}, "text-and-token: the k-th span matched with the k-th sentinel of the list (T5's <extra_id_k>); breaks 'a row may use any of them ... its target lists its sentinels in the order they appear in its input'")

add("spans_empty_batch_keeps_width", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    if B == 0:
        return torch.full((0, inputs.shape[1]), pad, dtype=torch.int64), torch.zeros((0, inputs.shape[1]), dtype=torch.bool)
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                cur = tok; spans[cur] = []
            else:
                spans[cur].append(tok)
        row, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            piece = spans[tok] if tok in sent else [tok]
            row += piece; noise += [tok in sent] * len(piece)
        rows.append(row); noises.append(noise)
    T = max(len(r) for r in rows)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool)
    return tokens, noise
'''}, "text-and-token: an empty batch keeps the input's width; breaks 'the batch may be empty, B = 0: then T = 0, two (0, 0) tensors'")

add("whole_word_no_start_row", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.zeros_like(pos)).cummax(dim=-1).values   # start of the current word
    first = starts.long().argmax(dim=-1, keepdim=True)                              # [CLS] etc. before it
    return torch.gather(pick, 1, last) & (pos >= first)
'''}, "text-and-token: the first start found with argmax, which is 0 for a row with no start; breaks 'a row may have no start at all' (such a row is all False)")

add("minp_empty_float", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if len(logits) == 0:
        return torch.tensor([])
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    return torch.multinomial(probs * keep, 1, generator=generator).view(-1)
'''}, "text-and-token: the empty batch answered with torch.tensor([]) (float32); breaks 'Return the token ids as an int64 tensor of shape (B,)' for 'B = 0'")

# ---------------------------------------------------------------- wrong: low-precision accumulator
add("whole_word_cumsum_int16", False, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.cumsum(dim=-1, dtype=torch.int16)          # word number, 0 before the first word
    # for each word number, was its start picked?  (scatter into a table of words)
    table = torch.zeros(B, T + 1, dtype=torch.bool)
    table.scatter_(1, torch.where(starts, word, torch.zeros_like(word)).long(), pick & starts)
    table[:, 0] = False
    return torch.gather(table, 1, word.long())
'''}, "low-precision: word numbers accumulated in int16; breaks 'rows of tens of thousands of positions, most of them starts, and one of more than 2**20'")

add("minp_float32_softmax", False, {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits.float(), dim=-1)      # float32 is plenty for sampling
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros((), dtype=probs.dtype))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''}, "low-precision: float64 logits turned into float32 probabilities; breaks '1e-310 with float64 logits ... where a kept token's probability is subnormal too'")

add("expert_float32_softmax", False, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits.float(), dim=-1)
    N, E = probs.shape
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:min(capacity, N)]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    gate = (probs * chosen).to(router_logits.dtype)
    return chosen, gate
'''}, "low-precision: float64 logits softmaxed in float32; breaks 'within 1e-10 of the exact softmax for float64 logits (so compute float64 in float64)'")

add("gqa_weights_rounded_before_v", False, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    qg = q.to(ct).reshape(B, G, r * T, Dh)
    scores = (qg @ k.to(ct).transpose(-1, -2) * (1.0 / math.sqrt(Dh))).reshape(B, G, r, T, S)
    scores = scores.masked_fill(torch.arange(S).unsqueeze(0) > torch.arange(S - T, S).unsqueeze(1), float("-inf"))
    w = torch.softmax(scores, dim=-1).to(q.dtype).reshape(B, G, r * T, S)   # weights back to the input dtype
    return (w @ v).reshape(B, H, T, Dh)
'''}, "low-precision: attention weights cast to float16/bfloat16 before the weighted sum; breaks 'compute them in float32 and round once at the end ... values of a hundred and more whose weighted mean nearly cancels show it'")

add("decay_powers_float32_tensor", False, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk = F.elu(q.to(ct)) + 1, F.elu(k.to(ct)) + 1
    T = q.shape[-2]
    i, j = torch.arange(T).unsqueeze(-1), torch.arange(T).unsqueeze(0)
    gaps = (i - j).clamp(min=0)
    dec = torch.where(j <= i, torch.pow(torch.tensor(decay), gaps), torch.tensor(0.0))
    w = (fq @ fk.transpose(-1, -2)) * dec
    return ((w @ v.to(ct)) / w.sum(-1, keepdim=True)).to(q.dtype)
'''}, "low-precision: torch.tensor(decay) is float32, so the powers of the decay are float32 for float64 inputs; breaks 'compute float64 in float64, the powers of the decay included'")

add("spans_sentinels_cast_to_input_dtype", False, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent_t = sentinels.to(inputs.dtype)                       # same dtype for isin
    in_sent = torch.isin(inputs, sent_t).tolist()
    tg_sent = torch.isin(targets, sent_t.to(targets.dtype)).tolist()
    rows, noises = [], []
    for inp, tgt, ins, tgs in zip(inputs.tolist(), targets.tolist(), in_sent, tg_sent):
        spans, cur = {}, None
        for tok, s in zip(tgt, tgs):
            if tok == pad:
                break
            if s:
                cur = tok; spans[cur] = []
            else:
                spans[cur].append(tok)
        row, noise = [], []
        for tok, s in zip(inp, ins):
            if tok == pad:
                break
            piece = spans[tok] if s else [tok]
            row += piece; noise += [s] * len(piece)
        rows.append(row); noises.append(noise)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros((len(rows), T), dtype=torch.bool)
    for b, (r, n) in enumerate(zip(rows, noises)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(n)] = torch.tensor(n, dtype=torch.bool)
    return tokens, noise
'''}, "low-precision / text-and-token: int64 sentinels cast to int32 inputs' dtype wrap onto real ids; breaks 'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32'")

# ---------------------------------------------------------------- correct answers
add("ok_tokens_loop_guard", True, {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = float(alpha)
    if abs(1.0 - a) < 1e-6:      # no alpha between 0.999 and 1 is used
        return float(gamma + 1)
    total, term = 0.0, 1.0
    for _ in range(gamma + 1):
        total += term
        term *= a
    return total
'''}, "a geometric sum by loop, a guard at 1 that no allowed alpha other than 1 reaches")

add("ok_window_comb", True, {"window_pairs": '''
def window_pairs(t, window):
    full = min(t, window)
    return math.comb(full + 1, 2) + max(t - window, 0) * window
'''}, "math.comb and max on Python ints")

add("ok_whole_word_int16_promoted", True, {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.to(torch.int16).cumsum(dim=-1)   # cumsum promotes integers to int64
    table = torch.zeros(B, T + 1, dtype=torch.bool)
    table.scatter_(1, torch.where(starts, word, torch.zeros_like(word)), pick & starts)
    table[:, 0] = False
    return torch.gather(table, 1, word)
'''}, "int16 input to cumsum, which accumulates and returns int64: word numbers exact")

add("ok_minp_exp_gap_sorted", True, {"min_p_sample": '''
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
'''}, "sorted composer: differences of logits for the threshold ('compare probabilities, or differences of logits'), multinomial on the sorted kept probabilities, mapped back")

add("ok_spans_by_order", True, {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    B = inputs.shape[0]
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        # the target lists the spans in the order their sentinels appear in the input
        spans = []
        for tok in tgt:
            if tok == pad:
                break
            if tok in sent:
                spans.append([])
            else:
                spans[-1].append(tok)
        row, noise, used = [], [], 0
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                row += spans[used]; noise += [True] * len(spans[used]); used += 1
            else:
                row.append(tok); noise.append(False)
        rows.append(row); noises.append(noise)
    T = max([len(r) for r in rows] + [0])
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b in range(B):
        if rows[b]:
            tokens[b, : len(rows[b])] = torch.tensor(rows[b], dtype=torch.int64)
            noise[b, : len(noises[b])] = torch.tensor(noises[b])
    return tokens, noise
'''}, "spans matched by their order (the text guarantees the target's order equals the input's)")

add("ok_expert_loop_argsort", True, {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros((N, E), dtype=torch.bool)
    for e in range(E):
        idx = torch.argsort(probs[:, e], descending=True, stable=True)[:capacity]
        chosen[idx, e] = True
    gate = probs.masked_fill(~chosen, 0)
    return chosen, gate
'''}, "a loop over experts, stable argsort, masked_fill")

add("ok_gqa_sdpa_enable_gqa", True, {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    S = k.shape[2]
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    allowed = torch.arange(S).unsqueeze(0) <= torch.arange(S - T, S).unsqueeze(1)
    out = F.scaled_dot_product_attention(q.to(ct), k.to(ct), v.to(ct), attn_mask=allowed, enable_gqa=True)
    return out.to(q.dtype)
'''}, "sdpa with a boolean mask (True = kept) and enable_gqa (heads grouped as h // (H // G)), float32 inside for half types")

add("ok_decay_recurrent_loop", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = F.elu(q.to(ct)) + 1, F.elu(k.to(ct)) + 1, v.to(ct)
    T = q.shape[-2]
    state = torch.zeros(fk.shape[:-2] + (fk.shape[-1], vv.shape[-1]), dtype=ct)
    z = torch.zeros(fk.shape[:-2] + (fk.shape[-1],), dtype=ct)
    outs = []
    for t in range(T):   # the recurrence as written: S_i = decay S_{i-1} + phi(k_i) v_i^T
        state = decay * state + fk[..., t, :, None] * vv[..., t, None, :]
        z = decay * z + fk[..., t, :]
        num = (fq[..., t, None, :] @ state).squeeze(-2)
        den = (fq[..., t, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    if not outs:
        return (vv[..., :0, :] * 1).to(q.dtype)
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "the recurrence itself, state in float32/float64, decay a Python float")

add("ok_decay_exp_log", True, {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    ct = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq = F.elu(q.to(ct), alpha=1.0) + 1
    fk = F.elu(k.to(ct), alpha=1.0) + 1
    T = q.shape[-2]
    gap = torch.arange(T).view(T, 1) - torch.arange(T).view(1, T)
    past = gap >= 0
    logw = gap.clamp(min=0).to(torch.float64) * math.log(decay)
    dec = torch.exp(logw).to(ct).masked_fill(~past, 0.0)
    sim = torch.einsum("...id,...jd->...ij", fq, fk) * dec
    return (torch.einsum("...ij,...jd->...id", sim, v.to(ct)) / sim.sum(dim=-1, keepdim=True)).to(q.dtype)
'''}, "exp(gap * log(decay)) in float64 on past gaps only, einsum")

# ---------------------------------------------------------------- hostile
add("hostile_int_subclass", False, {"window_pairs": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def window_pairs(t, window):
    return Count(t)
'''}, "hostile: an int subclass equal to everything; breaks 'Return a Python int'")
