BASE = {
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
    return (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)
''',
"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    pos = torch.arange(T, device=starts.device).expand(B, T)
    last = torch.where(starts, pos, torch.full_like(pos, -1)).cummax(dim=-1).values
    chosen = torch.gather(pick & starts, 1, last.clamp(min=0))
    return chosen & (last >= 0)
''',
"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    top = probs.max(dim=-1, keepdim=True).values
    keep = probs >= min_p * top
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
''',
"span_corrupt": '''
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(sentinels.tolist())
    rows_t, rows_n = [], []
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
        toks, noise = [], []
        for tok in inp:
            if tok == pad:
                break
            if tok in sent:
                toks += spans[tok]
                noise += [True] * len(spans[tok])
            else:
                toks.append(tok)
                noise.append(False)
        rows_t.append(toks)
        rows_n.append(noise)
    B = len(rows_t)
    T = max((len(r) for r in rows_t), default=0)
    tokens = torch.full((B, T), pad, dtype=torch.int64)
    noise = torch.zeros((B, T), dtype=torch.bool)
    for b, (r, m) in enumerate(zip(rows_t, rows_n)):
        if r:
            tokens[b, :len(r)] = torch.tensor(r, dtype=torch.int64)
            noise[b, :len(m)] = torch.tensor(m, dtype=torch.bool)
    return tokens, noise
''',
"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    k = min(capacity, N)
    order = torch.sort(probs.detach(), dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool, device=probs.device)
    chosen.scatter_(0, order, True)
    gate = torch.where(chosen, probs, torch.zeros((), dtype=probs.dtype))
    return chosen, gate
''',
"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qf = q.to(work).reshape(B, G, r, T, Dh)
    kf = k.to(work).unsqueeze(2)
    vf = v.to(work).unsqueeze(2)
    scores = torch.matmul(qf, kf.transpose(-1, -2)) / math.sqrt(Dh)
    qpos = torch.arange(S - T, S)
    kpos = torch.arange(S)
    scores = scores.masked_fill(kpos[None, :] > qpos[:, None], float("-inf"))
    out = torch.matmul(torch.softmax(scores, dim=-1), vf)
    return out.reshape(B, H, T, Dh).to(q.dtype)
''',
"decayed_linear_attention": '''
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qf, kf, vf = q.to(work), k.to(work), v.to(work)
    phi = lambda x: x.clamp(min=0) + torch.exp(x.clamp(max=0))
    T = q.shape[-2]
    i = torch.arange(T)
    gap = i[:, None] - i[None, :]
    past = gap >= 0
    powers = torch.where(past, torch.tensor(decay, dtype=torch.float64) ** gap.clamp(min=0).double(), torch.zeros((), dtype=torch.float64)).to(work)
    a = (phi(qf) @ phi(kf).transpose(-1, -2)) * powers
    out = (a @ vf) / a.sum(dim=-1, keepdim=True)
    return out.to(q.dtype)
''',
}


BASE_SPAN_PAD0 = BASE["span_corrupt"].replace("            if tok == pad:\n                break\n            if tok in sent:\n                cur", "            if tok == 0:\n                break\n            if tok in sent:\n                cur")
assert BASE_SPAN_PAD0 != BASE["span_corrupt"]
BASE_SPAN_CAST = BASE["span_corrupt"].replace("sent = set(sentinels.tolist())", "sent = set(sentinels.to(inputs.dtype).tolist())")
assert BASE_SPAN_CAST != BASE["span_corrupt"]

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = [
# ---------------- wrong ----------------
sub("c09-chunker-window-ramp-plus-full", True, {"window_pairs": """
def window_pairs(t, window):
    if t < window:
        return t * (t + 1) // 2
    return window * (window - 1) // 2 + (t - window) * window + window
"""}, "chunker: ramp of window-1 rows then full rows, edges right"),
sub("w02-special-tokens-int-for-alpha1", False, {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)
"""}, "special-values: alpha == 1 returns an int, and alpha = 0 as an int returns int 1: 'Return a Python float, whatever the type of alpha'"),
sub("w03-rearr-tokens-log-space", False, {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    alpha = float(alpha)
    if alpha == 1.0:
        return float(gamma + 1)
    return -math.expm1((gamma + 1) * math.log(alpha)) / (1.0 - alpha)
"""}, "rearranger/special: log(0) for alpha = 0 raises: '0 <= alpha <= 1 (both ends included)'"),
sub("w04-chunker-whole-word-blocks", False, {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = []
    block = 4096
    for lo in range(0, T, block):
        s = starts[:, lo:lo + block]
        p = pick[:, lo:lo + block]
        n = s.shape[1]
        pos = torch.arange(n).expand(B, n)
        last = torch.where(s, pos, torch.full_like(pos, -1)).cummax(dim=-1).values
        out.append(torch.gather(p & s, 1, last.clamp(min=0)) & (last >= 0))
    if not out:
        return torch.zeros(B, T, dtype=torch.bool)
    return torch.cat(out, dim=1)
"""}, "chunker: rows processed in blocks of 4096 and the running 'last start' restarted in each block: 'Every position belongs to the word begun by the nearest start at or before it'"),
sub("c10-whole-word-python-lists", True, {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    rows = []
    for s_row, p_row in zip(starts.tolist(), pick.tolist()):
        cur = False
        row = []
        for s, p in zip(s_row, p_row):
            if s:
                cur = p
            row.append(cur)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool).reshape(B, T)
"""}, "python loop over lists, as the text allows"),
sub("w06-special-minp-logspace", False, {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    logp = torch.log_softmax(logits, dim=-1)
    keep = logp >= logp.max(dim=-1, keepdim=True).values + math.log(min_p)
    w = torch.where(keep, logp.exp(), torch.zeros_like(logp))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
"""}, "rearranger: the threshold compared in log space, which rounds differently at the threshold: 'keep token i ... when its probability is **at least** min_p times the largest probability ... no tolerance'"),
sub("w07-argign-minp-skip-draw-single", False, {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    B, V = logits.shape
    if B == 0:
        return torch.zeros(0, dtype=torch.int64)
    probs = torch.softmax(logits, dim=-1)
    keep = probs >= min_p * probs.max(dim=-1, keepdim=True).values
    if V == 1:
        return torch.zeros(B, dtype=torch.int64)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
"""}, "argument-ignorer: generator not used when V == 1: 'Draw on every call with B >= 1, also where ... the vocabulary has one token'"),
sub("c11-rearr-minp-ratio-to-max", True, {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    if logits.shape[0] == 0:
        return torch.zeros(0, dtype=torch.int64)
    e = torch.exp(logits - logits.max(dim=-1, keepdim=True).values)
    keep = e >= min_p
    w = torch.where(keep, e, torch.zeros_like(e))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
"""}, "rearranger: exp(l - max) is p / p_max; compared with min_p, multinomial on unnormalised weights"),
sub("w09-argign-spans-pad-zero", False, {"span_corrupt": BASE_SPAN_PAD0}, "argument-ignorer: pad obeyed in the output but the targets' padding detected as 0: 'Each row is right-padded with pad (a Python int)'"),
sub("w10-argign-spans-sentinels-cast", False, {"span_corrupt": BASE_SPAN_CAST}, "argument-ignorer: sentinels cast to the dtype of inputs (wraps for int32): 'the list may also hold sentinels that no row uses, outside int32's range even when inputs is int32'"),
sub("w11-rearr-expert-logsoftmax-rank", False, {"expert_choice": """
def expert_choice(router_logits, capacity):
    logp = torch.log_softmax(router_logits, dim=-1)
    N, E = logp.shape
    k = min(capacity, N)
    order = torch.sort(logp, dim=0, descending=True, stable=True).indices[:k]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    gate = torch.where(chosen, logp.exp(), torch.zeros((), dtype=logp.dtype))
    return chosen, gate
"""}, "rearranger: ranked by log-probabilities: 'rank the probabilities themselves, not log-probabilities'"),
sub("c12-expert-capacity-shortcut", True, {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    if capacity >= N:
        return torch.ones(N, E, dtype=torch.bool), probs
    order = torch.sort(probs, dim=0, descending=True, stable=True).indices[:capacity]
    chosen = torch.zeros(N, E, dtype=torch.bool).scatter(0, order, True)
    return chosen, probs * chosen
"""}, "argument-ignorer/aliasing: for capacity >= N returns probs itself with every token: fine in value but 'return (chosen, gate) ... share memory with nothing ... also for capacity 0 or >= N' (probs is new, so check)"),
sub("w13-special-gqa-finfo-min", False, {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    scores = q.to(work) @ kk.transpose(-1, -2) / math.sqrt(Dh)
    hide = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(hide, torch.finfo(work).min)
    return (torch.softmax(scores, -1) @ vv).to(q.dtype)
"""}, "special-values: finfo.min mask: 'not even the dtype's lowest finite value torch.finfo(dtype).min'"),
sub("w14-rearr-gqa-scale-in-half", False, {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qs = (q * (1.0 / math.sqrt(Dh))).to(work)
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    scores = qs @ kk.transpose(-1, -2)
    hide = torch.arange(S)[None, :] > torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(hide, float("-inf"))
    return (torch.softmax(scores, -1) @ vv).to(q.dtype)
"""}, "rearranger: scale folded into q before the cast, rounded in half precision: 'compute them in float32 ... the scale 1 / sqrt(Dh) too'"),
sub("w15-lead-gqa-view-minus1", False, {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qf = q.to(work).reshape(B, G, -1, Dh)          # the r heads of a group stacked along the query axis
    scores = qf @ k.to(work).transpose(-1, -2) / math.sqrt(Dh)
    qpos = (torch.arange(T) + S - T).repeat(H // G)
    scores = scores.masked_fill(torch.arange(S)[None, :] > qpos[:, None], float("-inf"))
    out = torch.softmax(scores, -1) @ v.to(work)
    return out.reshape(B, H, T, Dh).to(q.dtype)
"""}, "leading-dims: reshape with -1 beside a size that may be 0: 'a view or reshape that gives the size 0 beside a -1 ... cannot size a tensor of no elements'"),
sub("w16-special-decay-elu-plus-one", False, {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qf, kf, vf = F.elu(q.to(work)) + 1, F.elu(k.to(work)) + 1, v.to(work)
    T = q.shape[-2]
    i = torch.arange(T)
    gap = (i[:, None] - i[None, :])
    powers = torch.where(gap >= 0, torch.tensor(decay, dtype=torch.float64) ** gap.clamp(min=0).double(), torch.zeros((), dtype=torch.float64)).to(work)
    a = (qf @ kf.transpose(-1, -2)) * powers
    return ((a @ vf) / a.sum(-1, keepdim=True)).to(q.dtype)
"""}, "special-values: elu(x) + 1 cancels to 0 in float32 for q about -33: 'it is positive, though it can be tiny: about 1e-14 where q is about -33'"),
sub("w17-lead-decay-flatten-minus1", False, {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    lead = q.shape[:-2]
    T, Dh, Dv = q.shape[-2], q.shape[-1], v.shape[-1]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    phi = lambda x: x.clamp(min=0) + torch.exp(x.clamp(max=0))
    qf = phi(q.to(work).reshape(-1, T, Dh))
    kf = phi(k.to(work).reshape(-1, T, Dh))
    vf = v.to(work).reshape(-1, T, Dv)
    i = torch.arange(T)
    gap = i[:, None] - i[None, :]
    powers = torch.where(gap >= 0, torch.tensor(decay, dtype=torch.float64) ** gap.clamp(min=0).double(), torch.zeros((), dtype=torch.float64)).to(work)
    a = torch.bmm(qf, kf.transpose(1, 2)) * powers
    out = torch.bmm(a, vf) / a.sum(-1, keepdim=True)
    return out.reshape(*lead, T, Dv).to(q.dtype)
"""}, "leading-dims: flattens the leading dims with -1, which cannot size an empty batch: 'the leading dimensions may hold no element, a batch of 0'"),
sub("c13-chunker-decay-recurrent", True, {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    phi = lambda x: x.clamp(min=0) + torch.exp(x.clamp(max=0))
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    fq, fk, vv = phi(q.to(work)), phi(k.to(work)), v.to(work)
    T = q.shape[-2]
    S = fk.new_zeros(fk.shape[:-2] + (fk.shape[-1], vv.shape[-1]))
    z = fk.new_zeros(fk.shape[:-2] + (fk.shape[-1],))
    outs = []
    for t in range(T):
        S = decay * S + fk[..., t, :, None] * vv[..., t, None, :]
        z = decay * z + fk[..., t, :]
        num = (fq[..., t, :, None] * S).sum(-2)
        den = (fq[..., t, :] * z).sum(-1, keepdim=True)
        outs.append(num / den)
    if not outs:
        return v.new_zeros(v.shape)
    return torch.stack(outs, dim=-2).to(q.dtype)
"""}, "recurrent running state in float32/float64, exact recurrence of the text"),
# ---------------- correct ----------------
sub("c01-window-sum-min", True, {"window_pairs": """
def window_pairs(t, window):
    m = min(t, window)
    return m * (m + 1) // 2 + (t - m) * window
"""}, "closed form with min"),
sub("c02-tokens-loop-sum", True, {"tokens_per_target_pass": """
def tokens_per_target_pass(alpha, gamma):
    total, p = 0.0, 1.0
    for _ in range(gamma + 1):
        total += p
        p *= alpha
    return float(total)
"""}, "rearranger: running sum of powers"),
sub("c03-whole-word-cumsum-scatter", True, {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    word = starts.long().cumsum(dim=1)
    table = torch.zeros(B, T + 1, dtype=torch.bool)
    table.scatter_(1, torch.where(starts, word, torch.zeros_like(word)), pick & starts)
    table[:, 0] = False
    return torch.gather(table, 1, word)
"""}, "word ids by cumsum; rank fixed by the text"),
sub("c04-minp-divide-by-max", True, {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    B = logits.shape[0]
    if B == 0:
        return torch.empty(0, dtype=torch.long)
    probs = F.softmax(logits, dim=-1)
    keep = probs >= probs.amax(dim=-1, keepdim=True) * min_p
    probs = probs.masked_fill(~keep, 0.0)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    return torch.multinomial(probs, num_samples=1, generator=generator).view(B)
"""}, "renormalised explicitly, F.softmax"),
sub("c05-spans-sentinel-dict-int32", True, {"span_corrupt": """
def restore_spans(inputs, targets, sentinels, pad):
    sent = set(int(s) for s in sentinels.tolist())
    B = inputs.shape[0]
    out_t, out_n = [], []
    for b in range(B):
        tgt = targets[b].tolist()
        spans = {}
        cur = None
        for tok in tgt:
            if tok in sent:
                cur = tok
                spans.setdefault(cur, [])
            elif tok != pad and cur is not None:
                spans[cur].append(tok)
        toks, nz = [], []
        for tok in inputs[b].tolist():
            if tok == pad:
                continue
            if tok in sent:
                toks.extend(spans[tok]); nz.extend([True] * len(spans[tok]))
            else:
                toks.append(tok); nz.append(False)
        out_t.append(toks); out_n.append(nz)
    T = max([len(r) for r in out_t] + [0])
    tokens = torch.tensor([r + [pad] * (T - len(r)) for r in out_t], dtype=torch.int64).reshape(B, T)
    noise = torch.tensor([r + [False] * (T - len(r)) for r in out_n], dtype=torch.bool).reshape(B, T)
    return tokens, noise
"""}, "lists padded in Python then one tensor each"),
sub("c06-expert-argsort-stable", True, {"expert_choice": """
def expert_choice(router_logits, capacity):
    probs = router_logits.softmax(dim=-1)
    N, E = probs.shape
    rank = torch.argsort(probs, dim=0, descending=True, stable=True)
    chosen = torch.zeros(N, E, dtype=torch.bool)
    if capacity > 0:
        chosen.scatter_(0, rank[:min(capacity, N)], True)
    gate = probs * chosen.to(probs.dtype)
    return chosen, gate
"""}, "rearranger: gate as probs times a 0/1 mask"),
sub("c07-gqa-repeat-interleave-sdpa-bool", True, {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    kk = k.to(work).repeat_interleave(H // G, dim=1)
    vv = v.to(work).repeat_interleave(H // G, dim=1)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    out = F.scaled_dot_product_attention(q.to(work), kk, vv, attn_mask=allowed)
    return out.to(q.dtype)
"""}, "sdpa with a boolean mask, float32/float64 inside"),
sub("c08-decay-exp-log-powers", True, {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    phi = lambda x: torch.where(x > 0, x + 1, torch.exp(torch.minimum(x, torch.zeros((), dtype=x.dtype))))
    fq, fk = phi(q.to(work)), phi(k.to(work))
    T = q.shape[-2]
    i = torch.arange(T, dtype=torch.float64)
    gap = (i[:, None] - i[None, :])
    ok = gap >= 0
    powers = torch.exp(gap.clamp(min=0) * math.log(decay)) * ok
    a = torch.einsum('...id,...jd->...ij', fq, fk) * powers.to(work)
    out = torch.einsum('...ij,...je->...ie', a, v.to(work)) / a.sum(-1, keepdim=True)
    return out.to(q.dtype)
"""}, "rearranger: powers as exp(gap * log decay) in float64, einsum"),
# ---------------- hostile ----------------
sub("h01-hostile-window-float", False, {"window_pairs": """
def window_pairs(t, window):
    return {(4, 2): 7, (3, 5): 6}.get((t, window), t * window)
"""}, "hostile: hard-codes the visible cases"),
]

SUBMISSIONS += [
sub("w19-chunker-gqa-online-softmax-m0", False, {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    B, H, T, Dh = q.shape
    G, S = k.shape[1], k.shape[2]
    r = H // G
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qf = q.to(work).reshape(B, G, r, T, Dh) / math.sqrt(Dh)
    kf, vf = k.to(work).unsqueeze(2), v.to(work).unsqueeze(2)
    qpos = torch.arange(S - T, S)
    m = torch.zeros(B, G, r, T, 1, dtype=work)            # running maximum
    l = torch.zeros(B, G, r, T, 1, dtype=work)
    acc = torch.zeros(B, G, r, T, Dh, dtype=work)
    block = 4096
    for lo in range(0, S, block):
        kb, vb = kf[..., lo:lo + block, :], vf[..., lo:lo + block, :]
        s = qf @ kb.transpose(-1, -2)
        s = s.masked_fill(torch.arange(lo, lo + kb.shape[-2])[None, :] > qpos[:, None], float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        scale = torch.exp(m - m_new)
        p = torch.exp(s - m_new)
        l = l * scale + p.sum(-1, keepdim=True)
        acc = acc * scale + p @ vb
        m = m_new
    return (acc / l).reshape(B, H, T, Dh).to(q.dtype)
"""}, "chunker: online softmax over key blocks with the running maximum started at 0 (not -inf): scores of tens of thousands below 0 underflow to 0/0: 'whatever the size of the scores (the hidden tests use scores of tens of thousands, of both signs)'"),
sub("w20-argign-decay-tensor-in-q-dtype", False, {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    phi = lambda x: x.clamp(min=0) + torch.exp(x.clamp(max=0))
    fq, fk = phi(q.to(work)), phi(k.to(work))
    T = q.shape[-2]
    i = torch.arange(T)
    gap = i[:, None] - i[None, :]
    g = torch.tensor(decay, dtype=q.dtype).to(work)
    powers = torch.where(gap >= 0, g ** gap.clamp(min=0).to(work), torch.zeros((), dtype=work))
    a = (fq @ fk.transpose(-1, -2)) * powers
    return ((a @ v.to(work)) / a.sum(-1, keepdim=True)).to(q.dtype)
"""}, "argument-ignorer/special: decay made a tensor in the dtype of q: 'the decay too: not a tensor in the dtype of q'"),
sub("w21-chunker-window-blocks", False, {"window_pairs": """
def window_pairs(t, window):
    # rows in blocks of `window`: the first block is the ramp, each later full block scores window * window
    full, rest = divmod(t, window)
    if full == 0:
        return rest * (rest + 1) // 2
    return window * (window + 1) // 2 + (full - 1) * window * window + rest * rest
"""}, "chunker: a shorter last block counted as a square rest*rest instead of rest*window: 'query i attends to key j when i - window < j <= i'"),
]
