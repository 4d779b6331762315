# Round 19 class sweep, chapter 06 (variants): classes B, C, D, E, G, H (and A/F outside the parts the blind helper
# closed), one variant of the model answer (or a correct variant) per class and part where the class applies.
SUBMISSIONS = []


def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 3 (whole_word_chosen)
W("C_p3_positions_float16", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    positions = torch.arange(starts.shape[-1], dtype=torch.float16).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0).long())
'''}, "C: positions kept in float16 (exact to 2048)")
C("C_p3_positions_float32", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    positions = torch.arange(starts.shape[-1], dtype=torch.float32).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0).long())
'''}, "C (allowed): float32 positions are exact below 2**24, and the text keeps rows shorter than that")
W("D_p3_positions_int16", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    positions = torch.arange(starts.shape[-1]).to(torch.int16).expand(starts.shape)
    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values
    return (word_start >= 0) & pick.gather(-1, word_start.clamp(min=0).long())
'''}, "D: positions narrowed to int16 wrap past 32767")
W("D_p3_word_numbers_uint8", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    b, t = starts.shape
    word = starts.cumsum(-1, dtype=torch.uint8).long()  # word number, 0 before the first start
    table = torch.zeros(b, t + 1, dtype=torch.bool)
    table.scatter_(1, torch.where(starts, word, torch.zeros_like(word)), starts & pick)
    table[:, 0] = False
    return table.gather(1, word) & (word > 0)
'''}, "D: word numbers counted in uint8 wrap at 256")

# ---------------------------------------------------------------- Part 4 (min_p_sample)
C("F_p4_additive_minus_1e9", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    masked = logits + torch.where(keep, 0.0, -1e9).to(logits.dtype)
    return torch.multinomial(masked.softmax(dim=-1), 1, generator=generator).squeeze(-1)
'''}, "F (allowed): a dropped token's probability is below min_p times the best, so its logit lies below the best "
      "one; -1e9 added leaves its share below exp(-1e9) = 0 in every dtype (a dropped token can never score above a "
      "kept one, and -inf stays -inf)")
C("F_p4_additive_finfo_min", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    low = torch.finfo(logits.dtype).min
    masked = logits + torch.where(keep, torch.zeros_like(logits), torch.full_like(logits, low))
    return torch.multinomial(masked.softmax(dim=-1), 1, generator=generator).squeeze(-1)
'''}, "F (allowed): Hugging Face's additive finfo.min on the dropped tokens, whose logits lie below the best kept "
      "one: the sum is at most the best logit plus finfo.min (or -inf), a share of exactly 0")

# ---------------------------------------------------------------- Part 5 (restore_spans)
W("D_p5_length_uint8", {"span_corrupt": '''
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
    lengths = torch.tensor([len(row) for row in rows], dtype=torch.uint8)
    t = int(lengths.max()) if len(rows) else 0
    tokens = torch.full((len(rows), t), pad, dtype=torch.long)
    noise = torch.zeros(len(rows), t, dtype=torch.bool)
    for b, row in enumerate(rows):
        row = row[:t]
        if row:
            tokens[b, :len(row)] = torch.tensor([token for token, _ in row])
            noise[b, :len(row)] = torch.tensor([flag for _, flag in row])
    return tokens, noise
'''}, "D: the sequences' lengths counted in uint8 (a sequence of 256 tokens has length 0)")

# ---------------------------------------------------------------- Part 6 (expert_choice)
W("C_p6_rank_in_dtype_of_probs", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    order = probs.sort(dim=0, descending=True, stable=True).indices
    ranks = torch.arange(n, dtype=probs.dtype)[:, None].expand_as(order).clone()
    rank = torch.empty_like(probs).scatter_(0, order, ranks)
    chosen = rank < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "C: ranks kept in the dtype of the logits: bfloat16 is exact to 256, float16 to 2048")
W("D_p6_rank_counted_uint8", {"expert_choice": '''
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
'''}, "D: the number of tokens ahead counted in uint8 wraps at 256")
W("D_p6_rank_counted_int8", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    idx = torch.arange(n)
    ahead = (probs[None, :, :] > probs[:, None, :]) | (
        (probs[None, :, :] == probs[:, None, :]) & (idx[None, :, None] < idx[:, None, None]))
    rank = ahead.sum(dim=1, dtype=torch.int8)
    chosen = rank.long() < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "D: the number of tokens ahead counted in int8 wraps at 128")
C("D_p6_rank_counted_int64", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    n = probs.shape[0]
    idx = torch.arange(n)
    ahead = (probs[None, :, :] > probs[:, None, :]) | (
        (probs[None, :, :] == probs[:, None, :]) & (idx[None, :, None] < idx[:, None, None]))
    chosen = ahead.sum(dim=1) < capacity
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "D (control): the same count in int64, the default of a bool sum")

# ---------------------------------------------------------------- Part 7 (gqa_cached_attention)
P7_HEAD = '''
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
'''
P7_BODY = '''
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
'''
P7_TAIL = '''
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d).to(dtype)
'''
W("C_p7_positions_in_dtype_from_one", {"gqa_cached_attention": P7_HEAD + '''
    query_pos = torch.arange(s - t + 1, s + 1, dtype=dtype)
    key_pos = torch.arange(1, s + 1, dtype=dtype)
''' + P7_BODY + '''
    scores = scores.masked_fill(~(key_pos[None, :] <= query_pos[:, None]), float("-inf"))
''' + P7_TAIL}, "C: positions 1-based in q's dtype (half inputs: exact to 2048 / 256)")
W("C_p7_positions_in_dtype", {"gqa_cached_attention": P7_HEAD + '''
    query_pos = torch.arange(s - t, s, dtype=dtype)
    key_pos = torch.arange(s, dtype=dtype)
''' + P7_BODY + '''
    scores = scores.masked_fill(~(key_pos[None, :] <= query_pos[:, None]), float("-inf"))
''' + P7_TAIL}, "C: positions 0-based in q's dtype")
W("E_p7_square_mask_unless_one", {"gqa_cached_attention": P7_HEAD + P7_BODY + '''
    if t > 1:  # one new query sees every key: no mask needed
        allowed = torch.ones(s, s, dtype=torch.bool).tril()[s - t:]
        scores = scores.masked_fill(~allowed, float("-inf"))
''' + P7_TAIL}, "E: an S x S mask sliced to its last T rows, skipped for T = 1 (the only T the S = 10**6 case uses); "
      "the text: build nothing much larger than q, k, v and the T x S scores")

# ---------------------------------------------------------------- Part 8 (decayed_linear_attention)
W("C_p8_positions_in_dtype_of_q", {"decayed_linear_attention": '''
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
'''}, "C: the quadratic form with positions in q's dtype: bfloat16 holds every position to 256 only, float16 to 2048")
