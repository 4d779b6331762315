BASE = {}
BASE["decoder_io"] = '''
def decoder_io(targets):
    tgt_in = targets.clone()
    if targets.shape[1] > 0:
        tgt_in[:, 1:] = targets[:, :-1]
        tgt_in[:, 0] = BOS
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''
BASE["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step < total:
        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
    return float(floor)
'''
BASE["min_loss"] = '''
eps_, V_ = 0.1, 8000
q_hi, q_lo = 1 - eps_ + eps_ / V_, eps_ / V_
min_smoothed_loss = -(q_hi * math.log(q_hi) + (V_ - 1) * q_lo * math.log(q_lo))
'''
BASE["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -logp[..., 1:].sum(-1)
    l = (1 - eps) * nll + eps / (V - 1) * smooth
    mask = targets != PAD
    l = torch.where(mask, l, torch.zeros((), dtype=l.dtype))
    cnt = mask.sum(1)
    has = cnt > 0
    sent = l.sum(1)[has] / cnt[has].to(l.dtype)
    return sent.mean()
'''
BASE["average"] = '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    first = states[0]
    for s in states:
        if set(s.keys()) != set(first.keys()) or len(s) != len(first):
            raise ValueError("keys differ")
        for k in first:
            if s[k].shape != first[k].shape:
                raise ValueError("shapes differ")
    out = {}
    for k in first:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.zeros(last.shape, dtype=torch.float64)
            for s in states:
                acc = acc + s[k].to(torch.float64)
            out[k] = (acc / len(states)).to(last.dtype)
        else:
            out[k] = last
    return out
'''
BASE["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in live])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)
        nxt = []
        for j, i in enumerate(live):
            tok = int(draws[j, 0])
            outs[i].append(tok)
            if tok != EOS and len(outs[i]) < max_len:
                nxt.append(i)
        live = nxt
    return outs
'''
BASE["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        base = torch.tensor([s for _, s in live], dtype=torch.float64)[:, None]
        cand = (base + lp).reshape(-1)
        vals, idx = torch.topk(cand, min(k, cand.numel()))
        nxt = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            h, tok = divmod(i, V)
            toks = live[h][0] + [tok]
            if tok == EOS:
                finished.append((toks, v / length_penalty(len(toks), alpha)))
            else:
                nxt.append((toks, v))
        live = nxt
    for toks, v in live:
        finished.append((toks, v / length_penalty(len(toks), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''
BASE["bleu"] = '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for h, ref in zip(hypotheses, references):
        c += len(h)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            totals[n - 1] += sum(hc.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / totals[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''
