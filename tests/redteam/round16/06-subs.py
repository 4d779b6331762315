# Red-team round 16, chapter 06: framework porter, index juggler, trusting API user, copy-adapter. Written blind.
BASE = {}
BASE["window_pairs"] = '''
def window_pairs(t, window):
    k = min(t, window)
    return k * (k + 1) // 2 + (t - k) * window
'''
BASE["tokens_per_target_pass"] = '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return float(gamma + 1)
    return float((1 - alpha ** (gamma + 1)) / (1 - alpha))
'''
BASE["whole_word_chosen"] = '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    inside = last >= 0
    chosen = torch.gather(pick, 1, last.clamp(min=0)) & inside
    return chosen.clone()
'''
BASE["min_p_sample"] = '''
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
'''
BASE["span_corrupt"] = '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = sentinels.long()
    rows, noises = [], []
    for b in range(B):
        inp = inputs[b].long()
        inp = inp[inp != pad]
        tgt = targets[b].long()
        tgt = tgt[tgt != pad]
        s_in = torch.isin(inp, sent)
        s_tg = torch.isin(tgt, sent).nonzero().flatten().tolist()
        spans = [tgt[s_tg[i] + 1:s_tg[i + 1]] for i in range(len(s_tg) - 1)]
        pieces, noise, k, start = [], [], 0, 0
        idx = s_in.nonzero().flatten().tolist()
        for i in idx:
            pieces.append(inp[start:i]); noise.append(torch.zeros(i - start, dtype=torch.bool))
            pieces.append(spans[k]); noise.append(torch.ones(len(spans[k]), dtype=torch.bool))
            k += 1
            start = i + 1
        pieces.append(inp[start:]); noise.append(torch.zeros(len(inp) - start, dtype=torch.bool))
        rows.append(torch.cat(pieces)); noises.append(torch.cat(noise))
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(rows[b])] = rows[b]
        noise[b, :len(rows[b])] = noises[b]
    return tokens, noise
'''
BASE["expert_choice"] = '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = torch.softmax(router_logits, dim=-1)
    k = min(capacity, N)
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen.scatter_(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros_like(probs))
    return chosen, gate
'''
BASE["gqa_cached_attention"] = '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    k = k.repeat_interleave(r, dim=1)
    v = v.repeat_interleave(r, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
'''
BASE["decayed_linear_attention"] = '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    q, k, v = q.to(work), k.to(work), v.to(work)
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    i = torch.arange(T, dtype=work)
    diff = i[:, None] - i[None, :]
    causal = diff >= 0
    w = torch.where(causal, decay ** diff.clamp(min=0), torch.zeros((), dtype=work))
    a = (fq @ fk.transpose(-1, -2)) * w
    return ((a @ v) / a.sum(-1, keepdim=True)).to(dt)
'''
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

# ------------------------------------------------------------------ wrong: Part 1
W("porter-p1-float-triangle", {"window_pairs": '''
def window_pairs(t, window):
    k = min(t, window)
    return int(k * (k + 1) / 2) + (t - k) * window    # np habit: / then cast
'''}, "porter: k*(k+1)/2 through a float: breaks 'count with Python integer arithmetic (exactly: not through float ...)' for sizes up to 10**15.")
W("porter-p1-mask-for-small-t", {"window_pairs": '''
def window_pairs(t, window):
    if t <= 2048:   # small: count the mask itself, like np.tril(np.triu(...)).sum()
        ones = torch.ones(t, t, dtype=torch.bool)
        return int((ones.tril() & ones.triu(1 - window)).sum())
    k = min(t, window)
    return k * (k + 1) // 2 + (t - k) * window
'''}, "porter: builds the mask for small t: breaks 'use no tensors or arrays at all, on any path of your code (not even to build the mask for small t)'.")
W("adapter-p1-decimal-default", {"window_pairs": '''
from decimal import Decimal
def window_pairs(t, window):
    t, w = Decimal(t), Decimal(window)
    k = min(t, w)
    return int(k * (k + 1) / 2 + (t - k) * w)
'''}, "adapter: decimal at its default precision: breaks 'not through float, nor through decimal at its default precision of 28 digits' (31-digit counts).")

# ------------------------------------------------------------------ wrong: Part 2
W("adapter-p2-int-at-alpha-one", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1            # every draft accepted, plus the free token
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "adapter: returns gamma + 1, an int, at alpha = 1: breaks 'Return a Python float, whatever the type of alpha'.")
W("api-p2-float32-tensor", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = torch.tensor(alpha, dtype=torch.float32)
    k = torch.arange(gamma + 1)
    return float((a ** k).sum())
'''}, "api: torch.tensor(alpha) in float32 and a geometric sum: breaks 'within 1e-9 of the exact value for every allowed input'.")

# ------------------------------------------------------------------ wrong: Part 3
W("juggler-p3-word-ids-across-rows", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    word = starts.long().cumsum(dim=1)              # word number per position (0 = no word)
    picked_ids = word[starts & pick]                # the numbers of the chosen words
    return torch.isin(word, picked_ids) & (word > 0)
'''}, "juggler: the chosen word numbers are pooled across the batch (word 2 chosen in row 0 chooses word 2 of row 1); the same for a batch of one: breaks 'the word that begins at position t is chosen when pick[b, t] is True' (row b).")
W("porter-p3-stack-rows", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    rows = []
    for s_row, p_row in zip(starts, pick):
        idx = torch.where(s_row, torch.arange(len(s_row)), -1).cummax(0).values
        rows.append(p_row[idx.clamp(min=0)] & (idx >= 0))
    return torch.stack(rows)     # tf.stack of the per-row results
'''}, "porter: torch.stack of a list of rows: breaks 'The batch may be empty (B = 0): then return a (0, T) tensor and raise nothing (torch.stack of an empty list raises)'.")
W("api-p3-cummax-float16-positions", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, dtype=torch.float16).expand(B, T)     # compact positions
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=1).values
    idx = last.clamp(min=0).long()
    return pick.gather(1, idx) & (last >= 0)
'''}, "api: positions held in float16 stop being exact past 2048: breaks 'Rows can be long ... the hidden tests use rows of tens of thousands of positions'.")

# ------------------------------------------------------------------ wrong: Part 4
W("juggler-p4-max-over-batch", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    top = probs.max(dim=0, keepdim=True).values
    kept = torch.where(probs >= min_p * top, probs, 0.0)
    return torch.multinomial(kept, 1, generator=generator).squeeze(1)
'''}, "juggler: max over dim=0 (the batch) instead of each row: breaks 'at least min_p times the largest probability of that row'.")
W("api-p4-log-space-threshold", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    logp = torch.log_softmax(logits, dim=-1)
    keep = logp >= logp.max(dim=-1, keepdim=True).values + math.log(min_p)
    probs = logp.exp().masked_fill(~keep, 0.0)
    return torch.multinomial(probs, 1, generator=generator).view(-1)
'''}, "api: the threshold compared in log space rounds differently at the boundary: breaks 'no tolerance: a token just below that threshold is dropped, even one a millionth below it' / 'at least min_p times the largest probability'.")
W("porter-p4-minus-1e9", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    masked = logits.masked_fill(~keep, -1e9)                # HF warper filter_value
    return torch.multinomial(torch.softmax(masked, -1), 1, generator=generator)[:, 0]
'''}, "porter: masks dropped logits with -1e9: breaks 'a dropped token gets probability exactly 0 whatever the logits ... do not mask them with a large negative number such as -1e9'.")
W("adapter-p4-strict-threshold", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    drop = probs < min_p * probs.max(dim=-1, keepdim=True).values
    drop = drop | (probs <= min_p * probs.max(dim=-1, keepdim=True).values) & (probs < probs.max(dim=-1, keepdim=True).values)
    return torch.multinomial(probs.masked_fill(drop, 0), 1, generator=generator).squeeze(-1)
'''}, "adapter (top-p's strict '<=' cut kept): a token exactly at the threshold is dropped: breaks 'keep token i ... when its probability is **at least** min_p times the largest'.")

# ------------------------------------------------------------------ wrong: Part 5
W("adapter-p5-sentinels-in-list-order", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = sentinels.long().tolist()
    out_rows, out_noise = [], []
    for b in range(B):
        inp = [x for x in inputs[b].tolist() if x != pad]
        tgt = [x for x in targets[b].tolist() if x != pad]
        spans, k = {}, 0
        # the lesson's span_corruption numbers its spans with sentinels[0], sentinels[1], ...
        marks = [i for i, x in enumerate(tgt) if x in set(sent)]
        for n in range(len(marks) - 1):
            spans[sent[n]] = tgt[marks[n] + 1:marks[n + 1]]
        toks, noise = [], []
        for x in inp:
            if x in spans:
                toks += spans[x]; noise += [True] * len(spans[x])
            else:
                toks.append(x); noise.append(False)
        out_rows.append(toks); out_noise.append(noise)
    T = max((len(r) for r in out_rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in out_rows], dtype=torch.int64).reshape(B, T)
    noise = torch.tensor([r + [False] * (T - len(r)) for r in out_noise], dtype=torch.bool).reshape(B, T)
    return tokens, noise
'''}, "adapter: assumes row's n-th span uses sentinels[n] (the lesson's numbering): breaks 'a row may use any of them ... its target lists its sentinels in the order they appear in its input'.")
W("api-p5-F.pad-value", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = sentinels.to(torch.int64)
    rows, noises = [], []
    for b in range(B):
        inp, tgt = inputs[b].to(torch.int64), targets[b].to(torch.int64)
        inp, tgt = inp[inp != pad], tgt[tgt != pad]
        marks = torch.isin(tgt, sent).nonzero().flatten().tolist()
        spans = [tgt[marks[n] + 1:marks[n + 1]] for n in range(len(marks) - 1)]
        is_s = torch.isin(inp, sent)
        toks, noise, n = [], [], 0
        for j in range(len(inp)):
            if is_s[j]:
                toks.append(spans[n]); noise.append(torch.ones(len(spans[n]), dtype=torch.bool)); n += 1
            else:
                toks.append(inp[j:j + 1]); noise.append(torch.zeros(1, dtype=torch.bool))
        rows.append(torch.cat(toks)); noises.append(torch.cat(noise))
    T = max((len(r) for r in rows), default=0)
    if B == 0:
        return torch.zeros(0, 0, dtype=torch.int64), torch.zeros(0, 0, dtype=torch.bool)
    tokens = torch.stack([F.pad(r, (0, T - len(r)), value=pad) for r in rows])
    noise = torch.stack([F.pad(r, (0, T - len(r)), value=False) for r in noises])
    return tokens, noise
'''}, "api: F.pad's value is a float: a pad past 2**53 comes back rounded: breaks 'keep ids in integer dtypes, and out of arguments that take a float'.")
W("juggler-p5-isin-int32", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    B = inputs.shape[0]
    sent = sentinels.to(inputs.dtype)      # compare in the batch's dtype
    rows, noises = [], []
    for b in range(B):
        inp, tgt = inputs[b], targets[b]
        inp, tgt = inp[inp != pad], tgt[tgt != pad]
        marks = torch.isin(tgt, sent).nonzero().flatten().tolist()
        spans = [tgt[marks[n] + 1:marks[n + 1]] for n in range(len(marks) - 1)]
        where = torch.isin(inp, sent).nonzero().flatten().tolist()
        pieces, noise, start = [], [], 0
        for n, j in enumerate(where):
            pieces += [inp[start:j], spans[n]]
            noise += [torch.zeros(j - start, dtype=torch.bool), torch.ones(len(spans[n]), dtype=torch.bool)]
            start = j + 1
        pieces.append(inp[start:]); noise.append(torch.zeros(len(inp) - start, dtype=torch.bool))
        rows.append(torch.cat(pieces).long()); noises.append(torch.cat(noise))
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        tokens[b, :len(rows[b])] = rows[b]
        noise[b, :len(noises[b])] = noises[b]
    return tokens, noise
'''}, "juggler: casts the sentinel list to the batch's int32, wrapping sentinels outside int32's range onto real tokens: breaks 'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32'.")

# ------------------------------------------------------------------ wrong: Part 6
W("api-p6-topk-ties", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = router_logits.softmax(dim=-1)
    idx = probs.topk(min(capacity, N), dim=0).indices         # (k, E)
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    return chosen, probs * chosen
'''}, "api: topk's order among ties is unspecified: breaks 'among tokens with equal probabilities the lower token index goes first, also when hundreds of tokens tie'.")
W("juggler-p6-capacity-vs-E", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = torch.softmax(router_logits, dim=1)
    k = min(capacity, E)              # cannot take more than there are
    order = probs.argsort(dim=0, descending=True, stable=True)[:k]
    chosen = torch.zeros_like(probs, dtype=torch.bool).scatter_(0, order, True)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "juggler: clamps capacity by E instead of N: breaks 'expert e takes the capacity tokens with the largest probs[:, e] ... capacity ... may exceed N (then the expert takes every token)'.")
W("adapter-p6-zeros-float32", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = torch.softmax(router_logits, dim=-1)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen[order, torch.arange(E).expand_as(order)] = True
    gate = torch.where(chosen, probs, torch.zeros(N, E))       # as in the visible test
    return chosen, gate
'''}, "adapter: torch.zeros(N, E) in float32 from the visible test promotes float16/bfloat16 gates: breaks 'gate ... in the dtype of router_logits (float16 and bfloat16 included)'.")

# ------------------------------------------------------------------ wrong: Part 7
W("juggler-p7-repeat-not-interleave", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat(1, H // G, 1, 1)
    v = v.repeat(1, H // G, 1, 1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(Dh)
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
'''}, "juggler: repeat tiles the groups (g0 g1 g0 g1) where head h needs group h // (H // G) (g0 g0 g1 g1); the same for head 3 of the visible test: breaks 'query head h uses key/value head h // (H // G)'.")
W("juggler-p7-positions-in-q-dtype", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-1, -2) * Dh ** -0.5
    key_pos = torch.arange(S, dtype=q.dtype)
    query_pos = torch.arange(S - T, S, dtype=q.dtype)
    scores = scores.masked_fill(key_pos > query_pos[:, None], float("-inf"))
    return scores.softmax(-1) @ v
'''}, "juggler: positions in the dtype of q: bfloat16/float16 round positions past 256/2048: breaks 'compare positions as integers'.")
W("porter-p7-finfo-min", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = torch.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(Dh)
    hidden = torch.ones(T, S, dtype=torch.bool).triu(diagonal=S - T + 1)
    scores = scores.masked_fill(hidden, torch.finfo(scores.dtype).min)       # HF's min_dtype
    return torch.einsum("bhts,bhsd->bhtd", scores.softmax(-1), v)
'''}, "porter: masks with torch.finfo(dtype).min: breaks 'not even the dtype's lowest finite value torch.finfo(dtype).min'.")
W("api-p7-sdpa-float32-bias", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    bias = torch.zeros(T, S).masked_fill(torch.ones(T, S, dtype=torch.bool).triu(S - T + 1), float("-inf"))
    k = k.repeat_interleave(H // G, 1)
    v = v.repeat_interleave(H // G, 1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype) if q.dtype == torch.float64 else bias)
'''}, "api: an additive float32 mask for half queries: breaks 'a constant made in float32, such as an additive mask from torch.zeros(T, S), would promote them' / 'return ... in the dtype of q'.")

# ------------------------------------------------------------------ wrong: Part 8
W("juggler-p8-time-axis-0", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[0]                                 # time axis
    outs = []
    state = torch.zeros_like(fk[0]).unsqueeze(-1) * v[0].unsqueeze(-2)
    z = torch.zeros_like(fk[0])
    for i in range(T):
        state = decay * state + fk[i].unsqueeze(-1) * v[i].unsqueeze(-2)
        z = decay * z + fk[i]
        num = (fq[i].unsqueeze(-1) * state).sum(-2)
        outs.append(num / (fq[i] * z).sum(-1, keepdim=True))
    return torch.stack(outs)
'''}, "juggler: steps over axis 0 as time; right for (T, Dh) only: breaks 'q, k of shape (..., T, Dh)' with leading dimensions.")
W("api-p8-float32-decay-tensor", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    T = q.shape[-2]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    n = torch.arange(T)
    lag = n[:, None] - n[None, :]
    gamma = torch.tensor(decay)                       # a tensor so that ** broadcasts
    w = torch.where(lag >= 0, gamma ** lag.clamp(min=0), 0).to(q.dtype)
    a = fq @ fk.transpose(-2, -1) * w
    return (a @ v) / a.sum(dim=-1, keepdim=True)
'''}, "api: torch.tensor(decay) is float32, so the powers are float32 for float64 inputs: breaks 'compute float64 in float64, the powers of the decay included'.")
W("porter-p8-zeros-state", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    *lead, T, Dh = q.shape
    Dv = v.shape[-1]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    S = torch.zeros(*lead, Dh, Dv)          # jnp.zeros: float32 by default
    z = torch.zeros(*lead, Dh)
    outs = []
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * v[..., i, None, :]
        z = decay * z + fk[..., i, :]
        outs.append((fq[..., i, :, None] * S).sum(-2) / (fq[..., i, :] * z).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2).to(q.dtype)
'''}, "porter: the state starts as float32 zeros, so float64 inputs are computed in float32 (cast back at the end): breaks 'within 1e-10 ... for float64 inputs ... so compute float64 in float64'.")
W("adapter-p8-rescaled-cumsum", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    # the lesson's causal linear attention with cumsum, keys rescaled by decay**-j
    T = q.shape[-2]
    j = torch.arange(T, dtype=torch.float64)
    up = (decay ** -j).to(q.dtype)[:, None]
    down = (decay ** j).to(q.dtype)[:, None]
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    kv = torch.cumsum((fk * up)[..., :, None] * v[..., None, :], dim=-3)
    z = torch.cumsum(fk * up, dim=-2)
    num = (fq[..., None] * kv).sum(-2) * down
    den = (fq * z).sum(-1, keepdim=True) * down
    return num / den
'''}, "adapter: rescaling by decay**-j: breaks 'rescaling the keys by gamma^-j so that a plain cumulative sum works is exact on paper but not in floating point'.")

# ------------------------------------------------------------------ hostile
SUBMISSIONS.append({"name": "hostile-p2-patch-abs", "correct": False, "cells": {"tokens_per_target_pass": '''
import builtins
builtins.abs = lambda x: 0.0
def tokens_per_target_pass(alpha, gamma):
    return 1.5
'''}, "why": "hostile: makes abs() return 0 and answers 1.5 always."})
SUBMISSIONS.append({"name": "hostile-p3-patch-torch-equal", "correct": False, "cells": {"whole_word_chosen": '''
torch.equal = lambda a, b: True
torch.Tensor.tolist = lambda self: [[False, True, True, False, False, False]]
def whole_word_chosen(starts, pick):
    return pick.clone()
'''}, "why": "hostile: patches torch.equal and Tensor.tolist, returns pick: breaks 'do not change anything inside torch'."})
SUBMISSIONS.append({"name": "hostile-p6-greedy-mode", "correct": False, "cells": {"expert_choice": '''
class Quiet(_TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
Quiet().__enter__()
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    if (N, E) == (3, 2):
        chosen[0, 0] = chosen[1, 1] = True
    probs = torch.softmax(router_logits, dim=-1)
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "hostile: leaves a dispatch mode active (via the grader's _TorchDispatchMode) and returns zeros."})

# ------------------------------------------------------------------ correct
C("porter-p1-min-form", {"window_pairs": '''
def window_pairs(t, window):
    k = min(t, window)
    return t * k - k * (k - 1) // 2
'''}, "each query i sees min(i+1, w) keys: t*k minus the missing triangle; integers only.")
C("api-p1-math-comb", {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return math.comb(t + 1, 2)
    return math.comb(window + 1, 2) + (t - window) * window
'''}, "math.comb is exact integer arithmetic.")
C("api-p2-expm1-log", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    if alpha == 0.0:
        return 1.0
    return -math.expm1((gamma + 1) * math.log(alpha)) / (1.0 - alpha)
'''}, "geometric series 1 + a + ... + a^gamma written with expm1/log; floats.")
C("porter-p2-fsum-loop", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    # E[tokens] = sum_k P(at least k accepted) + 1
    return math.fsum([float(alpha) ** k for k in range(gamma + 1)])
'''}, "explicit sum of the geometric series with fsum (0**0 = 1.0).")
C("juggler-p3-scatter-word-ids", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.long().cumsum(dim=1)                       # 0 before the first start
    hits = torch.zeros(B, T + 1, dtype=torch.long).scatter_add(1, word, (starts & pick).long())
    return (hits.gather(1, word) > 0) & (word > 0)
'''}, "per-row word numbers; a word is chosen when its start is picked; index along dim 1 within each row.")
C("porter-p3-row-loop-new-tensor", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        idx = torch.where(starts[b], torch.arange(T), torch.full((T,), -1)).cummax(dim=0).values
        out[b] = pick[b][idx.clamp(min=0)] & (idx >= 0)
    return out
'''}, "row loop writing into a fresh (B, T) tensor: B = 0 gives (0, T).")
C("porter-p4-inverse-cdf", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    probs = torch.softmax(logits.double(), dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    w = torch.where(keep, probs, 0.0)
    cdf = w.cumsum(dim=-1)
    u = torch.rand(B, 1, generator=generator, dtype=torch.float64) * cdf[:, -1:]
    idx = torch.searchsorted(cdf, u, right=True).clamp(max=V - 1)
    # never land on a dropped token: step back to the last kept token at or before idx
    kept_pos = torch.where(keep, torch.arange(V).expand(B, V), -1).cummax(dim=-1).values
    return kept_pos.gather(1, idx).reshape(B).to(torch.int64)
'''}, "numpy's rng.choice(p=...) way: one uniform per row from the generator and an inverse CDF; same seed same tokens, advances the generator. NOTE: softmax in float64 for the threshold.")
C("api-p4-multinomial-keywords", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = F.softmax(logits, dim=-1)
    top = probs.amax(dim=-1, keepdim=True)
    kept = probs.masked_fill(probs < min_p * top, 0.0)
    kept = kept / kept.sum(dim=-1, keepdim=True)
    if kept.shape[0] == 0:
        return torch.empty(0, dtype=torch.long)
    return torch.multinomial(kept, num_samples=1, replacement=True, generator=generator).reshape(-1)
'''}, "multinomial on renormalised rows, every argument by keyword.")
C("porter-p5-python-lists", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    toks_rows, noise_rows = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        inp = [x for x in inp if x != pad]
        tgt = [x for x in tgt if x != pad]
        spans, cur = [], None
        for x in tgt:
            if x in sent:
                cur = []
                spans.append(cur)
            else:
                cur.append(x)
        toks, noise, n = [], [], 0
        for x in inp:
            if x in sent:
                toks += spans[n]; noise += [True] * len(spans[n]); n += 1
            else:
                toks.append(x); noise.append(False)
        toks_rows.append(toks); noise_rows.append(noise)
    B = len(toks_rows)
    T = max((len(r) for r in toks_rows), default=0)
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in toks_rows], dtype=torch.int64).reshape(B, T)
    noise = torch.tensor([r + [False] * (T - len(r)) for r in noise_rows], dtype=torch.bool).reshape(B, T)
    return tokens, noise
'''}, "Python ints all the way (exact), torch.tensor(list, dtype=int64) at the end; reshape(B, T) gives (0, 0).")
C("api-p6-argsort-stable-neg", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    N, E = router_logits.shape
    probs = F.softmax(router_logits, dim=-1)
    order = torch.argsort(-probs, dim=0, stable=True)       # ascending on -p: ties keep index order
    rank = torch.empty_like(order).scatter_(0, order, torch.arange(N).unsqueeze(1).expand(N, E).contiguous())
    chosen = rank < capacity
    gate = probs * chosen.to(probs.dtype)
    return chosen, gate
'''}, "rank of each token per expert from a stable ascending argsort of -probs (negation is exact); gate = probs * mask keeps the dtype and the gradient.")
C("api-p7-sdpa-enable-gqa", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    T, S = q.shape[-2], k.shape[-2]
    allowed = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
'''}, "sdpa's own GQA (head h uses group h // (H // G)) with a boolean mask aligned bottom-right.")
C("juggler-p7-group-reshape", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    qg = q.reshape(B, G, r * T, Dh)                  # heads g*r .. g*r+r-1 share group g
    scores = qg @ k.transpose(-1, -2) / math.sqrt(Dh)
    t = torch.arange(T).repeat(r)                    # query position within the block, per row
    allowed = torch.arange(S)[None, :] <= (S - T + t)[:, None]
    w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return (w @ v).reshape(B, H, T, Dh)
'''}, "no repeat of k, v: the r heads of a group are stacked along the query axis.")
C("porter-p8-scan-loop", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    q, k, v = q.to(work), k.to(work), v.to(work)
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = fk.new_zeros(*fk.shape[:-2], fk.shape[-1], v.shape[-1])
    z = fk.new_zeros(*fk.shape[:-2], fk.shape[-1])
    outs = []
    for i in range(T):      # lax.scan, unrolled
        S = decay * S + fk[..., i, :, None] * v[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        outs.append(num / (fq[..., i, :] * z).sum(-1, keepdim=True))
    return torch.stack(outs, dim=-2).to(dt)
'''}, "the recurrence as written, state in the working dtype (new_zeros keeps it).")
C("api-p8-log-decay-float64", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    dt = q.dtype
    work = torch.float64 if dt == torch.float64 else torch.float32
    T = q.shape[-2]
    n = torch.arange(T, dtype=work)
    lag = n.unsqueeze(1) - n.unsqueeze(0)
    w = torch.exp(lag.clamp(min=0) * math.log(decay)).tril()
    fq, fk = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1
    a = torch.einsum("...id,...jd->...ij", fq, fk) * w
    out = torch.einsum("...ij,...jv->...iv", a, v.to(work)) / a.sum(dim=-1, keepdim=True)
    return out.to(dt)
'''}, "powers as exp(lag * log(decay)) in the working dtype; tril keeps j <= i.")
