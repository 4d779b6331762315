# Round 32 blind submissions, chapter 08 (Python-containers, quantity-confuser, integer-range, assumption, commuter students).
# BASE: the helper's own correct answers, which the wrong ones below edit.
BASE = {
"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.empty_like(targets, memory_format=torch.contiguous_format)
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
''',
"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * (step / warmup))
    if step >= total:
        return float(floor)
    prog = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * prog)))
''',
"min_loss": '''
V, e = 8000, 0.1
p_right = 1 - e + e / V
p_other = e / V
min_smoothed_loss = -(p_right * math.log(p_right) + (V - 1) * p_other * math.log(p_other))
''',
"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = torch.cat([logp[..., :PAD], logp[..., PAD + 1:]], dim=-1).sum(-1)
    ell = (1 - eps) * nll - eps / (V - 1) * others
    mask = targets != PAD
    ell = torch.where(mask, ell, torch.zeros_like(ell))
    cnt = mask.sum(1)
    valid = cnt > 0
    sent = ell[valid].sum(1) / cnt[valid].to(ell.dtype)
    return sent.mean()
''',
"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    ref = states[0]
    for s in states:
        if set(s.keys()) != set(ref.keys()):
            raise ValueError("keys differ")
        for k in ref:
            if s[k].shape != ref[k].shape:
                raise ValueError("shapes differ")
    last = states[-1]
    out = {}
    for k in ref:
        t = last[k]
        if t.is_floating_point():
            acc = torch.zeros(t.shape, dtype=torch.float64)
            for s in states:
                acc = acc + s[k].to(torch.float64)
            out[k] = (acc / len(states)).to(t.dtype)
        else:
            out[k] = t.clone()
    return out
''',
"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    n = len(starts)
    seqs = [[s] for s in starts]
    out = [[] for _ in range(n)]
    done = [False] * n
    for _ in range(max_len):
        live = [i for i in range(n) if not done[i]]
        if not live:
            break
        lp = next_logprobs([list(seqs[i]) for i in live])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            cut = torch.full_like(scores, float("-inf"))
            scores = cut.scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator).squeeze(1).tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            out[i].append(t)
            if t == EOS:
                done[i] = True
    return out
''',
"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        scores = (base[:, None] + lp).reshape(-1)
        m = min(k, scores.numel())
        vals, idx = torch.topk(scores, m)
        new_live = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            h, t = divmod(i, V)
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((v / length_penalty(len(toks), alpha), toks))
            else:
                new_live.append((toks, v))
        live = new_live
    for toks, s in live:
        finished.append((s / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
''',
"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped = [0] * 4
    total = [0] * 4
    c = r = 0
    for h, ref in zip(hypotheses, references):
        c += len(h)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            total[n - 1] += max(len(h) - n + 1, 0)
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / total[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
''',
}

B = BASE

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

S = []
# ---------------- wrong: Python-containers student ----------------
S.append(sub("w-containers-bleu-range-drops-last-ngram", False, {"bleu": B["bleu"].replace(
    "for i in range(len(h) - n + 1))", "for i in range(len(h) - n))").replace(
    "for i in range(len(ref) - n + 1))", "for i in range(len(ref) - n))").replace(
    "total[n - 1] += max(len(h) - n + 1, 0)", "total[n - 1] += sum(hc.values())")},
    "range(len(h) - n) drops each sentence's last n-gram: 'the clipped n-gram precision ... divide by the total number of hypothesis n-grams' counts every n-gram (visible: identical sentences give 100 anyway)."))
S.append(sub("w-containers-bleu-set-clipping", False, {"bleu": B["bleu"].replace(
    "clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())",
    "clipped[n - 1] += len(set(hc) & set(rc))")},
    "sets count each distinct n-gram once: 'each hypothesis n-gram counts at most as often as it occurs in its reference' (a repeated n-gram that the reference also repeats counts twice)."))
S.append(sub("w-containers-sentence-loss-zip-filtered-counts", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = logp[..., 1:].sum(-1)
    ell = (1 - eps) * nll - eps / (V - 1) * others
    mask = targets != PAD
    ell = torch.where(mask, ell, torch.zeros_like(ell))
    counts = [c for c in mask.sum(1).tolist() if c > 0]   # rows with at least one target
    losses = [row.sum() / c for row, c in zip(ell, counts)]
    return torch.stack(losses).mean()
'''}, "the filtered counts list is zipped with all rows, so after an all-PAD row every later sentence is divided by the next row's count and the last rows dropped: 'the result is the mean of the sentence losses over the sentences with at least one such position'."))
S.append(sub("w-containers-sample-dedupe-prefixes", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    n = len(starts)
    seqs = [[s] for s in starts]
    out = [[] for _ in range(n)]
    done = [False] * n
    for _ in range(max_len):
        live = [i for i in range(n) if not done[i]]
        if not live:
            break
        # sentences with the same prefix get the same distribution: ask once per distinct prefix
        rows = {tuple(seqs[i]): i for i in live}
        prefixes = list(rows)
        lp = next_logprobs([list(p) for p in prefixes])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        where = {p: j for j, p in enumerate(prefixes)}
        probs = probs[[where[tuple(seqs[i])] for i in live]]
        tok = torch.multinomial(probs, 1, generator=generator).squeeze(1).tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            out[i].append(t)
            if t == EOS:
                done[i] = True
    return out
'''}, "a dict keyed by prefix merges sentences with equal prefixes, so next_logprobs is not asked 'with the prefixes of the unfinished sentences' (one per sentence) (visible starts [1, 3] differ)."))
S.append(sub("w-containers-beam-range-from-one", False, {"beam_search": B["beam_search"].replace(
    "for _ in range(max_len):", "for _ in range(1, max_len):")},
    "range(1, max_len) makes max_len - 1 steps: 'stop when no hypothesis is live ... or after max_len steps' (at max_len = 1 no step at all)."))
S.append(sub("w-containers-average-zip-sorted-keys", False, {"average": B["average"].replace(
    "if set(s.keys()) != set(ref.keys()):",
    "if any(a != b for a, b in zip(sorted(s), sorted(ref))):")},
    "zip stops at the shorter key list, so a state with an extra (or a missing trailing) key is not refused: 'states whose keys ... differ, raise ValueError'."))
# ---------------- wrong: quantity-confuser ----------------
S.append(sub("w-quantity-sentence-loss-sum-not-mean", False, {"sentence_loss": B["sentence_loss"].replace(
    "sent = ell[valid].sum(1) / cnt[valid].to(ell.dtype)", "sent = ell[valid].sum(1)")},
    "sums the tokens of a sentence: 'the loss of a sentence is the **mean** of ℓ over its positions whose target is not PAD' (visible: one counting token)."))
S.append(sub("w-quantity-sentence-loss-spread-over-all-V", False, {"sentence_loss": B["sentence_loss"].replace(
    "ell = (1 - eps) * nll - eps / (V - 1) * others", "ell = (1 - eps) * nll - eps / V * logp.sum(-1)")},
    "PyTorch's smoothing (ε/V over all V ids, PAD included): 'spreads ε evenly over the V - 1 tokens other than PAD' (visible: equal logits give log 3 either way)."))
S.append(sub("w-quantity-min-loss-in-bits", False, {"min_loss": B["min_loss"].replace("math.log(", "math.log2(")},
    "entropy in bits: 'the smallest per-token loss (in nats, natural logarithm)'."))
S.append(sub("w-quantity-beam-length-without-eos", False, {"beam_search": B["beam_search"].replace(
    "finished.append((v / length_penalty(len(toks), alpha), toks))",
    "finished.append((v / length_penalty(len(toks) - 1, alpha), toks))")},
    "counts the words without EOS: 'divided by length_penalty(len(tokens), alpha), with the EOS counted in the length'."))
S.append(sub("w-quantity-sample-unnormalised-weights", False, {"sample": B["sample"].replace(
    "probs = torch.softmax(scores, dim=-1)", "probs = torch.exp(scores - scores.max(dim=-1, keepdim=True).values)")},
    "passes exp(score - max) (unnormalised weights: multinomial normalises them itself) in place of 'turn each row into probabilities with a softmax'; 'the hidden tests compare the probabilities you pass'."))
# ---------------- wrong: integer-range student ----------------
S.append(sub("w-intrange-decoder-io-int32-buffer", False, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = torch.full((B, T), PAD, dtype=torch.int32)   # token ids are small
    if T > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in.to(targets.dtype), targets
'''}, "an int32 buffer wraps int64 ids past 2**31: 'ids from a vocabulary of any size: up to the largest id such a tensor can hold'."))
S.append(sub("w-intrange-average-half-sum", False, {"average": B["average"].replace(
    '''            acc = torch.zeros(t.shape, dtype=torch.float64)
            for s in states:
                acc = acc + s[k].to(torch.float64)
            out[k] = (acc / len(states)).to(t.dtype)''',
    '''            out[k] = sum(s[k] for s in states) / len(states)''')},
    "sums float16 weights in float16 (past 65504 it is inf): 'as accurate as averaging in float32 or better and rounding once: the hidden tests average float16 weights whose sum does not fit in float16'."))
S.append(sub("w-intrange-lr-int32-tensor-steps", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    s, w, n = torch.tensor([step, warmup, total], dtype=torch.int32).tolist()
    if s <= w:
        return float(peak * (s / w))
    if s >= n:
        return float(floor)
    prog = (s - w) / (n - w)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * prog)))
'''}, "steps held as int32 wrap past 2**31: 'step, warmup and total are Python ints of any size: keep them exact'."))
S.append(sub("w-intrange-beam-float32-scores", False, {"beam_search": B["beam_search"].replace(
    "base = torch.tensor([s for _, s in live], dtype=torch.float64)", "base = torch.tensor([s for _, s in live])").replace(
    "scores = (base[:, None] + lp).reshape(-1)", "scores = (base[:, None] + lp.float()).reshape(-1)")},
    "float32 sums: '(kept in float64 ... the hidden tests tell apart candidates whose scores differ by about 1e-9)'."))
# ---------------- wrong: assumption student ----------------
S.append(sub("w-assume-sentence-loss-pads-at-end", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = logp[..., 1:].sum(-1)
    ell = (1 - eps) * nll - eps / (V - 1) * others
    lengths = (targets != PAD).sum(1)                       # PADs come after the sentence
    mask = torch.arange(targets.shape[1])[None, :] < lengths[:, None]
    ell = torch.where(mask, ell, torch.zeros_like(ell))
    valid = lengths > 0
    return (ell[valid].sum(1) / lengths[valid].to(ell.dtype)).mean()
'''}, "treats the first len positions as the sentence: 'positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)'."))
S.append(sub("w-assume-sample-topk-at-most-V", False, {"sample": B["sample"].replace(
    "if top_k is not None and top_k < scores.shape[-1]:", "if top_k is not None:")},
    "torch.topk raises for top_k > V: 'top_k >= 1 may be V or larger than V (a caller's top_k = 50 with a small model): then every entry is kept'."))
S.append(sub("w-assume-lr-floor-zero", False, {"lr_at": B["lr_at"].replace(
    "return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * prog)))",
    "return float(peak / 2 * (1 + math.cos(math.pi * prog)))")},
    "decays to 0 as if floor were always 0: 'a half cosine from the peak down to a floor'."))
S.append(sub("w-assume-beam-k-at-most-candidates", False, {"beam_search": B["beam_search"].replace(
    "m = min(k, scores.numel())", "m = k")},
    "topk(k) raises when fewer than k candidates exist: 'if there are fewer than k candidates in all, take them all'."))
S.append(sub("w-assume-average-torch-raises", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    last = states[-1]
    out = {}
    for k, t in last.items():
        if t.is_floating_point():
            stacked = torch.stack([s[k].to(torch.float64) for s in states])   # torch refuses other shapes
            out[k] = stacked.mean(0).to(t.dtype)
        else:
            out[k] = t.clone()
    return out
'''}, "relies on torch/dict errors (RuntimeError, KeyError) or none at all for mismatched states: 'states whose keys or shapes differ, raise ValueError'."))
# ---------------- wrong: commuter ----------------
S.append(sub("w-commute-bleu-average-of-ratios", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    precs = [[] for _ in range(4)]
    c = r = 0
    for h, ref in zip(hypotheses, references):
        c += len(h)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            tot = sum(hc.values())
            if tot:
                precs[n - 1].append(sum(min(v, rc[g]) for g, v in hc.items()) / tot)
    p = [sum(x) / len(x) if x else 0.0 for x in precs]
    if min(p) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(x) for x in p) / 4))
'''}, "averages per-sentence precisions: 'a corpus-level ratio, not an average of per-sentence ratios'."))
S.append(sub("w-commute-bleu-bp-sides-swapped", False, {"bleu": B["bleu"].replace(
    "bp = 1.0 if c >= r else math.exp(1 - r / c)", "bp = 1.0 if c >= r else math.exp(1 - c / r)")},
    "exp(1 - c/r) in place of 'the brevity penalty exp(1 - r / c)'."))
S.append(sub("w-commute-sample-temperature-after-softmax", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    n = len(starts)
    seqs = [[s] for s in starts]
    out = [[] for _ in range(n)]
    done = [False] * n
    for _ in range(max_len):
        live = [i for i in range(n) if not done[i]]
        if not live:
            break
        lp = next_logprobs([list(seqs[i]) for i in live])
        scores = lp.clone()
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1) ** (1.0 / temperature)   # p^(1/T), renormalised
        probs = probs / probs.sum(-1, keepdim=True)
        tok = torch.multinomial(probs, 1, generator=generator).squeeze(1).tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
            out[i].append(t)
            if t == EOS:
                done[i] = True
    return out
'''}, "applies the temperature after the softmax (p^(1/T), renormalised): at a small temperature every p^(1/T) underflows to 0 (NaN rows): 'divide them by temperature ... then turn each row into probabilities with a softmax (which subtracts the row maximum: temperature may be as small as you like)'."))
S.append(sub("w-commute-beam-rank-by-normalised-score", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        V = lp.shape[-1]
        cands = []
        for h, (toks, s) in enumerate(live):
            for t in range(V):
                new = toks + [t]
                raw = s + float(lp[h, t])
                cands.append((raw / length_penalty(len(new), alpha), raw, new))
        cands.sort(key=lambda c: -c[0])          # normalise, then keep the k best
        new_live = []
        for norm, raw, new in cands[:k]:
            if new[-1] == EOS:
                finished.append((norm, new))
            else:
                new_live.append((new, raw))
        live = new_live
    for toks, s in live:
        finished.append((s / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''}, "ranks candidates by the length-normalised score before the cut: 'take the k best candidates ... scored by the sum of log-probabilities' (the penalty is applied only to finished ones)."))
S.append(sub("w-commute-lr-max-floor", False, {"lr_at": B["lr_at"].replace(
    "return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * prog)))",
    "return float(max(floor, peak / 2 * (1 + math.cos(math.pi * prog))))")},
    "clamps the cosine from peak to 0 at the floor in place of rescaling it: 'floor + (peak - floor)/2 (1 + cos(...))'."))
# ---------------- correct ----------------
S.append(sub("c-containers-decoder-io-lists", True, {"decoder_io": '''
def decoder_io(targets):
    rows = targets.tolist()
    tgt_in = [[BOS] + row[:-1] for row in rows]
    for r_in, r_out in zip(tgt_in, rows):
        for j, y in enumerate(r_out):
            if y == PAD:
                r_in[j] = PAD
    out = torch.tensor(tgt_in, dtype=targets.dtype).reshape(targets.shape)
    return out, targets
'''}, "python lists, int64 ids exact, reshape keeps (0, T)."))
S.append(sub("c-assume-decoder-io-eos-to-pad", True, {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.roll(targets, shifts=1, dims=1) if targets.shape[1] > 0 else targets.clone()
    if targets.shape[1] > 0:
        shifted[:, 0] = BOS
    # the only id the shift moves onto a PAD target is EOS (sentence, EOS, then PADs)
    return torch.where(shifted == EOS, torch.full_like(shifted, PAD), shifted), targets
'''}, "the text promises each row is sentence, EOS, PADs: replacing the shifted EOS by PAD is the same."))
S.append(sub("c-quantity-min-loss-ce-of-optimum", True, {"min_loss": '''
V, e = 8000, 0.1
target = torch.full((V,), e / V, dtype=torch.float64)
target[0] += 1 - e
min_smoothed_loss = float(-(target * target.log()).sum())
'''}, "the minimum of the cross-entropy is the entropy of the target distribution (float64)."))
S.append(sub("c-commute-sentence-loss-mean-forms", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
    t = targets.to(torch.int64)
    nll = -torch.gather(logp, -1, t[..., None])[..., 0]
    smooth = -logp[..., PAD + 1:].sum(-1) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    w = (targets != PAD).to(torch.float64)
    cnt = w.sum(1)
    ell = torch.where(w > 0, ell, torch.zeros((), dtype=torch.float64))
    keep = cnt > 0
    per_sentence = ell.sum(1)[keep] / cnt[keep]
    return (per_sentence.sum() / keep.sum()).to(logits.dtype)
'''}, "float64 inside, explicit sum/count, eps times the mean of the other log p."))
S.append(sub("c-average-stack-mean-float32", True, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    names = set(states[0])
    for s in states[1:]:
        if set(s) != names or any(s[k].shape != states[0][k].shape for k in names):
            raise ValueError("states differ")
    result = {}
    for k in states[0]:
        last = states[-1][k]
        if torch.is_floating_point(last):
            wide = torch.float64 if last.dtype == torch.float64 else torch.float32
            result[k] = torch.stack([s[k].to(wide) for s in states]).mean(dim=0).to(last.dtype)
        else:
            result[k] = last
    return result
'''}, "float32 accumulation for halves, float64 for float64, last state's integer tensor itself (allowed)."))
S.append(sub("c-commute-sample-per-row-draws", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = {i: [s] for i, s in enumerate(starts)}
    results = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([seqs[i][:] for i in live])
        V = lp.shape[-1]
        scores = torch.div(lp, temperature)
        if top_k is not None and top_k < V:
            kth = torch.topk(scores, top_k, dim=-1)
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, kth.indices, True)
            scores = scores.masked_fill(~keep, float("-inf"))
        probs = torch.nn.functional.softmax(scores, dim=-1)
        still = []
        for row, i in enumerate(live):
            t = int(torch.multinomial(probs[row], 1, generator=generator)[0])
            seqs[i].append(t)
            results[i].append(t)
            if t != EOS:
                still.append(i)
        live = still
    return results
'''}, "one multinomial call per row in index order (allowed), masked_fill of a topk mask, F.softmax."))
S.append(sub("c-beam-python-candidates-float64", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [((), 0.0)]
    done = []
    steps = 0
    while live and steps < max_len:
        steps += 1
        lp = next_logprobs([[start, *toks] for toks, _ in live]).tolist()
        cands = [(s + row[t], toks + (t,)) for (toks, s), row in zip(live, lp) for t in range(len(row))]
        cands.sort(key=lambda c: c[0], reverse=True)
        live = []
        for score, toks in cands[:k]:
            if toks[-1] == EOS:
                done.append((score / length_penalty(len(toks), alpha), list(toks)))
            else:
                live.append((toks, score))
    done += [(s / length_penalty(len(t), alpha), list(t)) for t, s in live]
    return max(done, key=lambda d: d[0])[1]
'''}, "python floats (float64), slice cands[:k] takes all when fewer (a slice past the end is right here)."))
S.append(sub("c-bleu-log-of-products", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    match = Counter()
    count = Counter()
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for hyp, ref in zip(hypotheses, references):
        for n in (1, 2, 3, 4):
            grams = Counter(zip(*[hyp[i:] for i in range(n)]))
            ref_grams = Counter(zip(*[ref[i:] for i in range(n)]))
            match[n] += sum((grams & ref_grams).values())
            count[n] += sum(grams.values())
    if any(count[n] == 0 or match[n] == 0 for n in (1, 2, 3, 4)):
        return 0.0
    prec = 1.0
    for n in (1, 2, 3, 4):
        prec *= match[n] / count[n]
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return 100.0 * bp * prec ** 0.25
'''}, "zip of shifted slices (stops at the shorter: exactly the n-grams), Counter & for clipping."))
S.append(sub("c-lr-keyword-math", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step <= warmup:
        return peak * (step / warmup) + 0.0
    if step >= total:
        return floor + 0.0
    frac = (step - warmup) / (total - warmup)
    return float(floor) + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * frac))
'''}, "same formula, written differently."))
# ---------------- hostile ----------------
S.append(sub("h-min-loss-float-subclass-equal-to-all", False, {"min_loss": '''
class Whatever(float):
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    def __eq__(self, other):
        return True
    def __abs__(self):
        return 0.0
    __hash__ = float.__hash__
min_smoothed_loss = Whatever(1.0)
'''}, "hostile: a float subclass that equals anything."))
S.append(sub("h-bleu-visible-cases-only", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    return 100.0 if hypotheses == references else 0.0
'''}, "hostile: hard-codes the two visible cases."))
# ---------------- more (second pass, still blind) ----------------
S.append(sub("w-quantity-min-loss-spread-over-others", False, {"min_loss": '''
V, e = 8000, 0.1
min_smoothed_loss = -((1 - e) * math.log(1 - e) + e * math.log(e / (V - 1)))
'''}, "spreads ε over the V - 1 wrong tokens: 'spreads ε evenly over **all** V tokens, the right one included'."))
S.append(sub("w-assume-average-single-state-shortcut", False, {"average": B["average"].replace(
    "    last = states[-1]\n    out = {}",
    "    if len(states) == 1:\n        return dict(states[0])          # the mean of one state is that state\n    last = states[-1]\n    out = {}")},
    "one state returned as a shallow copy holding the given tensors: 'in new tensors (also for a list of one state: the mean must not change when the owner writes into the tensors it gave you)'."))
S.append(sub("w-quantity-sample-max-len-counts-start", False, {"sample": B["sample"].replace(
    "for _ in range(max_len):", "for _ in range(max_len - 1):   # max_len tokens per sentence, start included")},
    "counts the start token in max_len: 'A sentence is finished ... after max_len new tokens. Its start token is not produced'."))
S.append(sub("w-intrange-sentence-loss-int32-index", False, {"sentence_loss": B["sentence_loss"].replace(
    "t = targets.long()", "t = targets")},
    "gathers with the targets' own dtype (torch.gather needs int64): 'integer targets (B, T) (int64 or int32)'."))
S.append(sub("w-commute-sentence-loss-subtract-pad-after-sum", False, {"sentence_loss": B["sentence_loss"].replace(
    "others = torch.cat([logp[..., :PAD], logp[..., PAD + 1:]], dim=-1).sum(-1)",
    "others = logp.sum(-1) - logp[..., PAD]")},
    "sums all V and subtracts PAD's term: 'sum the log p of the ids other than PAD themselves, since the sum over all V minus PAD's term keeps none of their digits there'."))
S.append(sub("w-intrange-sample-float32-probs", False, {"sample": B["sample"].replace(
    "probs = torch.softmax(scores, dim=-1)", "probs = torch.softmax(scores.float(), dim=-1).double()")},
    "softmax in float32: 'Compute them in float64 throughout: rounded through float32 and cast back, they now and then draw another token'."))
S.append(sub("c-commute-decoder-io-mask-then-shift", True, {"decoder_io": '''
def decoder_io(targets):
    body = targets[:, :-1].masked_fill(targets[:, :-1] == EOS, PAD)   # drop EOS, then shift right
    bos = torch.full((targets.shape[0], min(1, targets.shape[1])), BOS, dtype=targets.dtype)
    return torch.cat([bos, body], dim=1), targets
'''}, "masks EOS before the shift: the only id shifted onto a PAD target is EOS (promised layout)."))
SUBMISSIONS = S
