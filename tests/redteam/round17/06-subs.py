# Round 17 red team, chapter 06: defensive programmer (DP), high-level library user (HL),
# production engineer (PE), test-driven student (TD).
BASE = {}
BASE["window_pairs"] = '''
def window_pairs(t, window):
    if t <= window:
        return t * (t + 1) // 2
    return window * (window + 1) // 2 + (t - window) * window
'''
BASE["tokens_per_target_pass"] = '''
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
'''
BASE["whole_word_chosen"] = '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=-1).values
    return (last >= 0) & pick.gather(-1, last.clamp(min=0))
'''
BASE["min_p_sample"] = '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    probs = probs / probs.sum(-1, keepdim=True)
    return torch.multinomial(probs, 1, generator=generator).reshape(-1)
'''
BASE["span_corrupt"] = '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad:
                continue
            if tok in sent:
                cur = tok
                spans[cur] = []
            else:
                spans[cur].append(tok)
        row, nz = [], []
        for tok in inp:
            if tok == pad:
                continue
            if tok in sent:
                row += spans[tok]
                nz += [True] * len(spans[tok])
            else:
                row.append(tok)
                nz.append(False)
        rows.append(row)
        noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(r)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
'''
BASE["expert_choice"] = '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
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
    qg = q.reshape(B, G, r * T, Dh)
    scores = qg @ k.transpose(-2, -1) / math.sqrt(Dh)
    scores = scores.reshape(B, G, r, T, S)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1).reshape(B, G, r * T, S)
    return (w @ v).reshape(B, H, T, v.shape[-1])
'''
BASE["decayed_linear_attention"] = '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T)
    diff = i[:, None] - i[None, :]
    wdec = torch.where(diff >= 0, torch.tensor(decay, dtype=torch.float64) ** diff.clamp(min=0).double(), torch.zeros((), dtype=torch.float64))
    a = (fq @ fk.transpose(-2, -1)) * wdec.to(q.dtype)
    return (a @ v) / a.sum(-1, keepdim=True)
'''

SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def X(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "hostile": True, "cells": cells, "why": why})

# ---------------- wrong ----------------
W("dp_window_int_of_float", {"window_pairs": '''
def window_pairs(t, window):
    t, window = int(t), int(window)
    w = min(t, window)
    return int(w * (w + 1) / 2 + (t - w) * w)
'''}, "DP int() of a '/' count: 'count with Python integer arithmetic (exactly: not through float...)'.")
W("td_window_decimal_default", {"window_pairs": '''
from decimal import Decimal
def window_pairs(t, window):
    w = min(t, window)
    return int(Decimal(w) * Decimal(w + 1) / Decimal(2) + Decimal(t - w) * Decimal(w))
'''}, "TD/DP Decimal 'to be exact': 'nor through decimal at its default precision of 28 digits'.")
W("dp_window_round", {"window_pairs": '''
def window_pairs(t, window):
    if t <= window:
        return round(t * (t + 1) / 2)
    return round(window * (window + 1) / 2) + (t - window) * window
'''}, "DP round() of a float: 'count with Python integer arithmetic (exactly: not through float'.")
W("dp_tokens_clamp_alpha", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    a = min(max(float(alpha), 0.0), 1.0 - 1e-9)    # avoid dividing by zero
    return (1.0 - a ** (gamma + 1)) / (1.0 - a)
'''}, "DP clamp away from 1: 'within 1e-9 of the exact value for every allowed input' (alpha = 1 gives gamma + 1).")
W("dp_tokens_alpha0_degenerate", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    if alpha <= 0:
        return 0.0                     # nothing accepted, nothing produced
    if alpha >= 1:
        return float(gamma + 1)
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
'''}, "DP wrong degenerate value: 'every round, whatever happens, also yields exactly one token from the target'.")
W("td_tokens_sum_int", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return sum(alpha ** k for k in range(gamma + 1))
'''}, "TD (visible alpha is a float): 'Return a Python float, whatever the type of alpha' (int 0/1 give an int).")
W("td_whole_word_batch_one", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    s, p = starts[0], pick[0]
    out = torch.zeros_like(s)
    cur = False
    for t in range(s.shape[0]):
        if s[t]:
            cur = bool(p[t])
        out[t] = cur
    return out.unsqueeze(0)
'''}, "TD batch of one (visible case): 'starts (bool, shape (B, T))' ... 'Return a boolean tensor of shape (B, T)'.")
W("pe_whole_word_half_positions", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, dtype=torch.float16).expand(B, T)      # half: smaller index tensor
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=-1).values
    return (last >= 0) & pick.gather(-1, last.clamp(min=0).long())
'''}, "PE float16 positions: 'Every position belongs to the word begun by the nearest start at or before it' (rows of tens of thousands).")
W("dp_whole_word_no_start_returns_pick", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        if not starts[b].any():
            out[b] = pick[b]        # no word boundaries: treat as single-token words
            continue
        pos = torch.arange(T)
        last = torch.where(starts[b], pos, torch.full_like(pos, -1)).cummax(0).values
        out[b] = (last >= 0) & pick[b][last.clamp(min=0)]
    return out
'''}, "DP degenerate row: 'Positions before the first start ... are never chosen; a row may have no start at all'.")
W("pe_whole_word_reused_buffer", {"whole_word_chosen": '''
BUFFERS = {}
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    if (B, T) not in BUFFERS:                       # allocate once per shape
        BUFFERS[(B, T)] = (torch.arange(T).expand(B, T).contiguous(), torch.empty(B, T, dtype=torch.bool))
    pos, out = BUFFERS[(B, T)]
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=-1).values
    torch.logical_and(last >= 0, pick.gather(-1, last.clamp(min=0)), out=out)
    return out
'''}, "PE output buffer reused per shape: 'it must share memory with nothing (not with pick, not with a tensor kept from one call to the next)'.")
W("hl_min_p_categorical", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = probs * keep
    return torch.distributions.Categorical(probs=probs).sample()
'''}, "HL Categorical.sample() has no generator: 'draw every random number from generator'.")
W("dp_min_p_tolerance", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits.float(), dim=-1)
    thr = min_p * probs.max(dim=-1, keepdim=True).values
    keep = probs >= thr - 1e-7            # float slack
    probs = torch.where(keep, probs, torch.zeros_like(probs)).clamp(min=0)
    return torch.multinomial(probs, 1, generator=generator).view(-1)
'''}, "DP slack on the threshold: 'no tolerance: a token just below that threshold is dropped, even one a millionth below it'.")
W("pe_min_p_clone_generator", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    g = torch.Generator().manual_seed(generator.initial_seed())    # reproducible per request
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(probs, 1, generator=g).reshape(-1)
'''}, "PE generator re-seeded per call: 'a second call with the same generator draws new numbers (it advances; a new generator seeded from it ... would repeat them)'.")
W("td_min_p_squeeze", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(probs, 1, generator=generator).squeeze()
'''}, "TD squeeze() (visible B = 2): 'Return the token ids as an int64 tensor of shape (B,)' (B = 1 gives a 0-d tensor).")
W("hl_span_pad_sequence", {"span_corrupt": '''
from torch.nn.utils.rnn import pad_sequence
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    toks, nzs = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad: continue
            if tok in sent: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, nz = [], []
        for tok in inp:
            if tok == pad: continue
            if tok in sent: row += spans[tok]; nz += [True] * len(spans[tok])
            else: row.append(tok); nz.append(False)
        toks.append(torch.tensor(row, dtype=torch.int64)); nzs.append(torch.tensor(nz, dtype=torch.bool))
    if not toks:
        return torch.zeros(0, 0, dtype=torch.int64), torch.zeros(0, 0, dtype=torch.bool)
    return pad_sequence(toks, batch_first=True, padding_value=pad), pad_sequence(nzs, batch_first=True, padding_value=False)
'''}, "HL pad_sequence's float padding_value: 'keep ids ... out of arguments that take a float' (pad past 2**53).")
W("dp_span_refuse_int32", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    if inputs.dtype != torch.int64 or targets.dtype != torch.int64:
        raise ValueError("ids must be int64")
    sent = set(sentinels.tolist())
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        spans, cur = {}, None
        for tok in tgt:
            if tok == pad: continue
            if tok in sent: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, nz = [], []
        for tok in inp:
            if tok == pad: continue
            if tok in sent: row += spans[tok]; nz += [True] * len(spans[tok])
            else: row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(r)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
'''}, "DP stricter dtype check: 'inputs (B, Li) and targets (B, Lt) are integer tensors (int64 or int32)'.")
W("td_span_sentinels_in_list_order", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = sentinels.tolist()
    rows, noises = [], []
    for inp, tgt in zip(inputs.tolist(), targets.tolist()):
        tgt = [t for t in tgt if t != pad]
        # the target's spans, in the sentinel list's order
        spans, k = [], 0
        for tok in tgt:
            if tok in sent: spans.append([])
            else: spans[-1].append(tok)
        row, nz, used = [], [], 0
        for tok in inp:
            if tok == pad: continue
            if tok in sent:
                span = spans[sent.index(tok)]
                row += span; nz += [True] * len(span)
            else:
                row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((len(rows), T), pad, dtype=torch.int64)
    noise = torch.zeros(len(rows), T, dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(r)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
'''}, "TD sentinels used in list order (visible rows use X, Y, Z in order): 'a row may use any of them ... its target lists its sentinels in the order they appear in its input'.")
W("pe_span_isin_cast", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    s = sentinels.to(inputs.dtype)                 # same dtype for isin
    B = inputs.shape[0]
    in_sent, tg_sent = torch.isin(inputs, s), torch.isin(targets, s.to(targets.dtype))
    rows, noises = [], []
    for b in range(B):
        inp, tgt = inputs[b].tolist(), targets[b].tolist()
        spans, cur = {}, None
        for j, tok in enumerate(tgt):
            if tok == pad: continue
            if tg_sent[b, j]: cur = tok; spans[cur] = []
            else: spans[cur].append(tok)
        row, nz = [], []
        for j, tok in enumerate(inp):
            if tok == pad: continue
            if in_sent[b, j]: row += spans[tok]; nz += [True] * len(spans[tok])
            else: row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max((len(r) for r in rows), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros(B, T, dtype=torch.bool)
    for b, (r, nz) in enumerate(zip(rows, noises)):
        tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
        noise[b, :len(r)] = torch.tensor(nz, dtype=torch.bool)
    return tokens, noise
'''}, "PE sentinels cast to inputs' dtype: 'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32' (wrap-around).")
W("hl_expert_topk", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    idx = torch.topk(probs, k, dim=0).indices
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, idx, True)
    return chosen, probs * chosen
'''}, "HL topk's tie order: 'among tokens with equal probabilities the lower token index goes first, also when hundreds of tokens tie'.")
W("dp_expert_clamp_probs", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1).clamp(min=1e-12)   # no exact zeros
    N, E = probs.shape
    k = max(0, min(int(capacity), N))
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool)
    chosen[order, torch.arange(E).expand(k, E)] = True
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "DP clamp(min=eps): 'gate ... equal to probs' and 'probabilities that differ, however little, are ranked by their values (... near 1e-304)'.")
W("pe_expert_float32", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    logits = router_logits.float()                        # router in fp32
    probs = torch.softmax(logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter_(0, order, True)
    gate = torch.where(chosen, probs, 0.0).to(router_logits.dtype)
    return chosen, gate
'''}, "PE router in float32: 'within 1e-10 of the exact softmax for float64 logits (so compute float64 in float64)'.")
W("td_expert_argmax", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    best = probs.argmax(dim=0)                 # each expert's top token
    chosen = torch.zeros_like(probs, dtype=torch.bool)
    chosen[best, torch.arange(probs.shape[1])] = True
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "TD capacity 1 (visible case): 'expert e takes the capacity tokens with the largest probs[:, e]'.")
W("td_gqa_repeat", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k, v = k.repeat(1, H // G, 1, 1), v.repeat(1, H // G, 1, 1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
'''}, "TD (visible checks head 3 only): 'query head h uses key/value head h // (H // G)'.")
W("dp_gqa_clamp_scores", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(Dh)).clamp(-1e4, 1e4)
    allowed = torch.arange(S)[None, :] <= (S - T + torch.arange(T))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.nan_to_num(torch.softmax(scores, dim=-1)) @ v
'''}, "DP clamp(-1e4, 1e4) on scores: 'softmax(q k^T / sqrt(d_h)) v ... scores, which have no lower bound'.")
W("pe_gqa_inference_mode_mask", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    with torch.inference_mode():                     # the mask needs no autograd
        hidden = torch.arange(S)[None, :] > (S - T + torch.arange(T))[:, None]
    r = H // G
    scores = (q.reshape(B, G, r * T, Dh) @ k.transpose(-2, -1) / math.sqrt(Dh)).reshape(B, G, r, T, S)
    scores = scores.masked_fill(hidden, float("-inf"))
    return (torch.softmax(scores, -1).reshape(B, G, r * T, S) @ v).reshape(B, H, T, Dh)
'''}, "PE mask made under inference_mode: 'gradients must flow through the result ... the hidden tests compare its gradients' (an inference tensor cannot be saved for backward).")
W("hl_gqa_sdpa_float_mask_f32", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    S = k.shape[2]
    mask = torch.zeros(T, S).masked_fill(torch.ones(T, S, dtype=torch.bool).triu(S - T + 1), float("-inf"))
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
'''}, "HL float32 additive mask: 'return (B, H, T, Dh) in the dtype of q (... a constant made in float32 ... would promote them)'.")
W("td_decay_dot_T", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float64)
    diff = i[:, None] - i[None, :]
    w = torch.where(diff >= 0, decay ** diff.clamp(min=0), torch.zeros((), dtype=torch.float64)).to(q.dtype)
    a = (fq @ fk.T) * w
    return (a @ v) / a.sum(-1, keepdim=True)
'''}, "TD .T (visible inputs are 2-D): 'q, k of shape (..., T, Dh)'.")
W("dp_decay_eps_denominator", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float64)
    diff = i[:, None] - i[None, :]
    w = torch.where(diff >= 0, decay ** diff.clamp(min=0), torch.zeros((), dtype=torch.float64)).to(q.dtype)
    a = (fq @ fk.transpose(-2, -1)) * w
    return (a @ v) / (a.sum(-1, keepdim=True) + 1e-6)
'''}, "DP epsilon: 'Do not add an epsilon to the denominator (it is positive)'.")
W("pe_decay_float32_powers", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float32)
    diff = i[:, None] - i[None, :]
    w = torch.tril(torch.tensor(decay, dtype=torch.float32) ** diff.clamp(min=0)).to(q.dtype)
    a = (fq @ fk.transpose(-2, -1)) * w
    return (a @ v) / a.sum(-1, keepdim=True)
'''}, "PE powers in float32: 'compute float64 in float64, the powers of the decay included'.")
W("hl_decay_cumsum_rescale", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q).double() + 1, F.elu(k).double() + 1
    T = q.shape[-2]
    scale = torch.tensor(decay, dtype=torch.float64) ** torch.arange(T, dtype=torch.float64)
    kv = torch.cumsum((fk / scale[:, None]).unsqueeze(-1) * v.double().unsqueeze(-2), dim=-3)
    z = torch.cumsum(fk / scale[:, None], dim=-2)
    num = (fq.unsqueeze(-2) @ kv).squeeze(-2) * scale[:, None]
    den = (fq * z).sum(-1, keepdim=True) * scale[:, None]
    return (num / den).to(q.dtype)
'''}, "HL cumsum with gamma^-j rescaling: 'rescaling the keys by gamma^-j ... is exact on paper but not in floating point'.")

# ---------------- correct ----------------
C("dp_window_loop_min", {"window_pairs": '''
def window_pairs(t, window):
    assert t >= 1 and window >= 1
    w = min(int(t), int(window))
    return w * (w + 1) // 2 + (t - w) * window
'''}, "int() on ints and min: exact.")
C("td_window_divmod", {"window_pairs": '''
def window_pairs(t, window):
    full = max(t - window, 0)
    head = t - full
    q, r = divmod(head * (head + 1), 2)
    assert r == 0
    return q + full * window
'''}, "divmod.")
C("hl_tokens_fsum", {"tokens_per_target_pass": '''
import math
def tokens_per_target_pass(alpha, gamma):
    return float(math.fsum(float(alpha) ** i for i in range(gamma + 1)))
'''}, "fsum of the geometric series, float.")
C("hl_whole_word_cumsum_gather", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.long().cumsum(dim=-1)                     # 0 before the first start
    picked = torch.zeros(B, T + 1, dtype=torch.bool)
    idx = torch.where(starts, word, torch.zeros_like(word))
    picked.scatter_(1, idx, pick & starts)
    picked[:, 0] = False
    return picked.gather(1, word)
'''}, "cumsum word id then gather (scatter into slot per word).")
C("dp_whole_word_loop", {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    starts, pick = starts.clone(), pick.clone()
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        idx = torch.nonzero(starts[b]).flatten().tolist()
        ends = idx[1:] + [T]
        for s, e in zip(idx, ends):
            if pick[b, s]:
                out[b, s:e] = True
    return out
'''}, "loop over words per row.")
C("pe_min_p_log_space_inference", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    with torch.no_grad():
        probs = torch.softmax(logits.to(torch.float64), dim=-1).to(logits.dtype) if logits.dtype == torch.float64 else torch.softmax(logits, dim=-1)
        keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
        masked = probs.masked_fill(~keep, 0.0)
        return torch.multinomial(masked, num_samples=1, replacement=True, generator=generator).view(-1).clone()
'''}, "no_grad sampling, multinomial on unnormalised kept probs (allowed: multinomial normalises).")
C("dp_span_python_loops", {"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    assert inputs.dim() == 2 and targets.dim() == 2
    sent = {int(s) for s in sentinels.tolist()}
    B = inputs.shape[0]
    rows, noises = [], []
    for b in range(B):
        tgt = [t for t in targets[b].tolist() if t != pad]
        spans, i = {}, 0
        while i < len(tgt):
            key = tgt[i]; j = i + 1
            while j < len(tgt) and tgt[j] not in sent:
                j += 1
            spans[key] = tgt[i + 1:j]; i = j
        row, nz = [], []
        for tok in inputs[b].tolist():
            if tok == pad: continue
            if tok in sent:
                row.extend(spans[tok]); nz.extend([True] * len(spans[tok]))
            else:
                row.append(tok); nz.append(False)
        rows.append(row); noises.append(nz)
    T = max([len(r) for r in rows] + [0])
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in rows], dtype=torch.int64).reshape(B, T)
    noise = torch.tensor([n + [False] * (T - len(n)) for n in noises], dtype=torch.bool).reshape(B, T)
    return tokens, noise
'''}, "torch.tensor of Python-int lists (int64 exact), explicit reshape for B = 0.")
C("hl_expert_sort_stable_where", {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = F.softmax(router_logits, dim=-1)
    N, E = probs.shape
    order = torch.argsort(probs, dim=0, descending=True, stable=True)[:capacity]
    chosen = torch.zeros((N, E), dtype=torch.bool)
    chosen.scatter_(0, order, torch.ones_like(order, dtype=torch.bool))
    gate = probs.masked_fill(~chosen, 0)
    return chosen, gate
'''}, "argsort stable, masked_fill, slicing past N.")
C("pe_gqa_sdpa_enable_gqa_bool", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    T, S = q.shape[-2], k.shape[-2]
    allowed = torch.arange(S, device=q.device)[None, :] <= (S - T + torch.arange(T, device=q.device))[:, None]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, enable_gqa=True)
'''}, "SDPA with bool mask and enable_gqa (interleaved groups).")
C("dp_decay_recurrent_loop", {"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    fq, fk = F.elu(q) + 1, F.elu(k) + 1
    T = q.shape[-2]
    S = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=q.dtype)
    z = torch.zeros(*q.shape[:-1][:-1], q.shape[-1], dtype=q.dtype)
    outs = []
    for i in range(T):
        S = decay * S + fk[..., i, :, None] * v[..., i, None, :]
        z = decay * z + fk[..., i, :]
        num = (fq[..., i, :, None] * S).sum(-2)
        den = (fq[..., i, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    return torch.stack(outs, dim=-2)
'''}, "the recurrence itself, a loop over T.")

C("td_gqa_repeat_interleave_keywords", {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    S = k.shape[2]
    rep = H // k.shape[1]
    k = torch.repeat_interleave(k, repeats=rep, dim=1)
    v = torch.repeat_interleave(v, repeats=rep, dim=1)
    scores = torch.einsum("bhtd,bhsd->bhts", q, k) * (1.0 / math.sqrt(Dh))
    qpos = torch.arange(S - T, S).unsqueeze(1)
    kpos = torch.arange(S).unsqueeze(0)
    scores = torch.where(kpos <= qpos, scores, torch.full((), float("-inf"), dtype=scores.dtype))
    return torch.einsum("bhts,bhsd->bhtd", torch.softmax(scores, dim=-1), v)
'''}, "repeat_interleave (the lesson's), einsum, where with a -inf scalar of the scores' dtype.")
C("td_min_p_keywords_renorm", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    probs = F.softmax(logits, dim=1)
    top = torch.max(probs, dim=1, keepdim=True).values
    kept = torch.where(probs >= top * min_p, probs, 0.0)
    kept = kept / kept.sum(dim=1, keepdim=True)
    ids = torch.multinomial(input=kept, num_samples=1, generator=generator)
    return ids[:, 0].to(torch.int64)
'''}, "keywords, renormalised, dim=1 on 2-D logits.")

# ---------------- hostile ----------------
X("hostile_tokens_visible_only", {"tokens_per_target_pass": '''
def tokens_per_target_pass(alpha, gamma):
    return 1.5
'''}, "returns the visible answer.")
X("hostile_min_p_argmax", {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    return logits.argmax(dim=-1)
'''}, "greedy, never samples.")
