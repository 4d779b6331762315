# Red team round 25, chapter 08-capstone: notebook-state, approximator, log-space and direction-and-order students.
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: notebook-state student
W("state-01-decoder-io-bos-column-built-once", {"decoder_io": '''
BOS_COLUMN = torch.full((1, 1), BOS)   # built once, next to the constants

def decoder_io(targets):
    B, T = targets.shape
    if T == 0:
        return targets.clone(), targets
    shifted = torch.cat([BOS_COLUMN.expand(B, 1), targets[:, :-1]], dim=1)
    tgt_in = shifted.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "Part 1: 'two integer tensors of shape (B, T) and of the dtype of targets' (int64 or int32): the BOS column "
      "built once in int64 makes torch.cat promote an int32 batch to int64.")

W("state-02-lr-at-total-from-the-visible-test", {"lr_at": '''
WARMUP, TOTAL = 800, 10800   # the schedule of the run in the visible test

def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (TOTAL - WARMUP)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
'''}, "Part 2: the cosine's fraction is (step - warmup) / (total - warmup) of the arguments given; this one reads "
      "the notebook's constants of the visible run.")

W("state-03-sample-vocab-of-the-toy", {"sample": '''
VOCAB = 6   # make_toy_model's default vocabulary, as in the test cell

def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        scores = next_logprobs([seqs[i] for i in live]) / temperature
        if top_k is not None:
            k = min(top_k, VOCAB)
            kth = torch.topk(scores, k, dim=-1)
            cut = torch.full_like(scores, float("-inf"))
            scores = cut.scatter(-1, kth.indices, kth.values)
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for j, i in enumerate(live):
            seqs[i].append(tok[j]); out[i].append(tok[j])
            if tok[j] == EOS:
                done[i] = True
    return out
'''}, "Part 6: 'keep the top_k largest entries of each row ... top_k may be V or larger than V: then every entry is "
      "kept': min(top_k, 6) cuts a vocabulary larger than the toy's to 6 entries even when top_k >= V.")

W("state-04-beam-penalty-table-built-once", {"beam_search": '''
PENALTY = [length_penalty(n, 0.6) for n in range(64)]   # a table, computed once for speed

def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], torch.zeros((), dtype=torch.float64))]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])
        cand = torch.stack([s for _, s in live])[:, None] + lp
        V = lp.shape[-1]
        top = torch.topk(cand.reshape(-1), min(k, cand.numel()))
        new_live = []
        for sc, ix in zip(top.values, top.indices.tolist()):
            toks = live[ix // V][0] + [ix % V]
            if ix % V == EOS:
                finished.append((toks, float(sc) / PENALTY[len(toks)]))
            else:
                new_live.append((toks, sc))
        live = new_live
    for h, sc in live:
        finished.append((h, float(sc) / PENALTY[len(h)]))
    return max(finished, key=lambda f: f[1])[0]
'''}, "Part 7: 'its final score is its log-probability divided by length_penalty(len(tokens), alpha)': the table "
      "was built with the visible test's alpha = 0.6 and ignores the argument.")

W("state-05-bleu-reference-counts-cached-per-id", {"bleu": '''
REF_NGRAMS = {}   # reference n-gram counts, computed once per reference list

def ngram_counts(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))

def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        key = id(ref)
        if key not in REF_NGRAMS:
            REF_NGRAMS[key] = (len(ref), [ngram_counts(ref, n) for n in range(1, 5)])
        rlen, rcounts = REF_NGRAMS[key]
        c += len(hyp); r += rlen
        for n in range(1, 5):
            h = ngram_counts(hyp, n)
            match[n - 1] += sum(min(v, rcounts[n - 1][g]) for g, v in h.items())
            total[n - 1] += sum(h.values())
    if min(total) == 0 or min(match) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
'''}, "intro: 'Keep nothing from one call to the next either, not even something worked out from ... a list ... and "
      "kept per id() of it': the reference counts are cached per id(ref), stale after the caller edits the list.")

# ---------------------------------------------------------------- wrong: approximator
W("approx-01-min-loss-ignores-the-share-on-the-right-token", {"min_loss": '''
eps, V = 0.1, 8000
# the right token gets about 1 - eps, the others eps / V each
min_smoothed_loss = -(1 - eps) * math.log(1 - eps) - eps * math.log(eps / V)
'''}, "Part 3: 'spreads eps evenly over all V tokens, the right one included', to 1e-5: dropping eps/V on the right "
      "token and keeping V (not V-1) others is 1.5e-4 off.")

W("approx-02-sentence-loss-log-of-softmax-plus-tiny", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log(torch.softmax(logits, dim=-1) + 1e-9)   # safe log
    t = targets.long()
    nll = -logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD])
    ell = (1 - eps) * nll + eps / (V - 1) * smooth
    keep = (targets != PAD).to(ell.dtype)
    n = keep.sum(-1)
    rows = n > 0
    per = (ell * keep).sum(-1)[rows] / n[rows]
    return per.mean()
'''}, "Part 4: 'log p = log_softmax(logits) over all V tokens ... clamp nothing': log(p + 1e-9) caps every log p at "
      "about -20.7 (logits in the hundreds) and moves small ones.")

W("approx-03-average-half-by-running-mean-in-own-dtype", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty list")
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("states differ")
    out = {}
    for k in first:
        last = states[-1][k]
        if not last.is_floating_point():
            out[k] = last
            continue
        avg = states[0][k].clone()
        for i, s in enumerate(states[1:], start=2):
            avg = avg + (s[k] - avg) / i          # running mean: never overflows
        out[k] = avg
    return out
'''}, "Part 5: 'Half-precision tensors must be as accurate as averaging in float32 or better and rounding once': "
      "a running mean in float16 rounds at every step.")

W("approx-04-sample-probs-through-float32", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        scores = next_logprobs([seqs[i] for i in live]).float() / temperature   # float32 is plenty for sampling
        if top_k is not None and top_k < scores.shape[-1]:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
            scores = scores.masked_fill(~keep, float("-inf"))
        probs = torch.softmax(scores, dim=-1).double()
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for j, i in enumerate(live):
            seqs[i].append(tok[j]); out[i].append(tok[j])
            if tok[j] == EOS:
                done[i] = True
    return out
'''}, "Part 6 step 3: 'Compute them in float64 throughout: rounded through float32 and cast back, they now and then "
      "draw another token'.")

W("approx-05-bleu-log-precision-plus-tiny", {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum(min(v, rf[g]) for g, v in h.items())
            total[n - 1] += sum(h.values())
    if min(total) == 0:
        return 0.0
    log_p = sum(math.log(max(m, 1e-9) / t) for m, t in zip(match, total)) / 4   # log(0) guarded
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(log_p))
'''}, "Part 8: 'if any of the four precisions is 0 ... BLEU is 0': log(p + 1e-9) gives a small positive BLEU.")

# ---------------------------------------------------------------- wrong: log-space student
W("log-01-min-loss-in-bits", {"min_loss": '''
eps, V = 0.1, 8000
q_right = 1 - eps + eps / V
q_other = eps / V
# the smallest cross-entropy is the entropy of the target distribution
min_smoothed_loss = -(q_right * math.log2(q_right) + (V - 1) * q_other * math.log2(q_other))
'''}, "Part 3: 'the smallest per-token loss (in nats, natural logarithm)': the entropy taken in bits.")

W("log-02-sentence-loss-log-of-softmax", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    p = torch.softmax(logits, dim=-1)
    logp = torch.log(p)
    ell = -(1 - eps) * logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    ell = ell - eps / (V - 1) * (logp.sum(-1) - logp[..., PAD])
    mask = targets != PAD
    losses = []
    for b in range(logits.shape[0]):
        if mask[b].any():
            losses.append(ell[b][mask[b]].mean())
    return torch.stack(losses).mean()
'''}, "Part 4: 'log p = log_softmax(logits)', logits of any size: log(softmax) is -inf where a probability underflows "
      "(logits in the hundreds), and the loss becomes inf.")

W("log-03-sample-temperature-on-probabilities", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        probs = next_logprobs([seqs[i] for i in live]).exp()
        if top_k is not None and top_k < probs.shape[-1]:
            idx = torch.topk(probs, top_k, dim=-1).indices
            keep = torch.zeros_like(probs, dtype=torch.bool).scatter(-1, idx, True)
            probs = probs.masked_fill(~keep, 0.0)
        probs = probs ** (1.0 / temperature)          # p ** (1/T) is softmax(log p / T) up to normalising
        probs = probs / probs.sum(-1, keepdim=True)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for j, i in enumerate(live):
            seqs[i].append(tok[j]); out[i].append(tok[j])
            if tok[j] == EOS:
                done[i] = True
    return out
'''}, "Part 6 steps 2-3: divide the scores by temperature, cut on the divided scores, then a softmax that subtracts the "
      "row maximum: p ** (1/T) of the probabilities underflows at small temperature (0/0).")

W("log-04-beam-unfinished-kept-with-raw-sum", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], torch.zeros((), dtype=torch.float64))]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])
        cand = torch.stack([s for _, s in live])[:, None] + lp
        V = lp.shape[-1]
        top = torch.topk(cand.reshape(-1), min(k, cand.numel()))
        new_live = []
        for sc, ix in zip(top.values, top.indices.tolist()):
            toks = live[ix // V][0] + [ix % V]
            if ix % V == EOS:
                finished.append((toks, float(sc) / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, sc))
        live = new_live
    # hypotheses cut off by max_len never ended: they keep their summed log-probability
    finished += [(h, float(sc)) for h, sc in live]
    return max(finished, key=lambda f: f[1])[0]
'''}, "Part 7 step 4: 'then live hypotheses are finished as they are (same scoring, no EOS)': the unfinished ones keep "
      "the plain sum, not the sum divided by the length penalty.")

W("log-05-bleu-product-not-geometric-mean", {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum(min(v, rf[g]) for g, v in h.items())
            total[n - 1] += sum(h.values())
    if min(total) == 0 or min(match) == 0:
        return 0.0
    log_bleu = sum(math.log(m / t) for m, t in zip(match, total))   # log of the combined precision
    if c < r:
        log_bleu += 1 - r / c
    return float(100 * math.exp(log_bleu))
'''}, "Part 8: 'their geometric mean (uniform weights)': the log-precisions are summed, not averaged (a product).")

# ---------------------------------------------------------------- wrong: direction-and-order student
W("dir-01-sentence-loss-up-to-the-first-pad", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    ell = -(1 - eps) * logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    ell = ell - eps / (V - 1) * (logp.sum(-1) - logp[..., PAD])
    # a sentence runs from the start up to its first PAD
    inside = (targets != PAD).long().cumprod(dim=-1).bool()
    n = inside.sum(-1)
    rows = n > 0
    per = torch.where(inside, ell, torch.zeros_like(ell)).sum(-1)[rows] / n[rows].to(ell.dtype)
    return per.mean()
'''}, "Part 4: 'the mean of l over its positions whose target is not PAD (wherever they are: a PAD may also stand "
      "inside a row)': positions after an inner PAD are dropped.")

W("dir-02-average-keys-compared-in-order", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty list")
    keys = list(states[0].keys())
    for s in states:
        if list(s.keys()) != keys:
            raise ValueError("the states have different keys")
        for k in keys:
            if s[k].shape != states[0][k].shape:
                raise ValueError(f"{k}: shapes differ")
    out = {}
    for k in keys:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.stack([s[k].to(torch.float64) for s in states]).mean(0)
            out[k] = acc.to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''}, "Part 5: 'an empty list, or states whose keys or shapes differ, raise ValueError (the same keys in another order "
      "do not differ)': the keys are compared as ordered lists.")

W("dir-03-sample-start-eos-finishes", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    for _ in range(max_len):
        live = [i for i, s in enumerate(seqs) if s[-1] != EOS and len(s) - 1 < max_len]
        if not live:
            break
        scores = next_logprobs([seqs[i] for i in live]) / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
            scores = scores.masked_fill(~keep, float("-inf"))
        tok = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator)[:, 0].tolist()
        for j, i in enumerate(live):
            seqs[i].append(tok[j])
    return [s[1:] for s in seqs]
'''}, "Part 6 step 4: 'Its start token is not produced: a start token that is EOS does not finish it': the last token "
      "of the sequence (start token included) is tested, so a start EOS is taken as finished.")

W("dir-04-sample-topk-threshold-keeps-ties", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        scores = next_logprobs([seqs[i] for i in live]) / temperature
        if top_k is not None:
            k = min(top_k, scores.shape[-1])
            kth = torch.topk(scores, k, dim=-1).values[:, -1:]   # as Hugging Face's TopKLogitsWarper
            scores = scores.masked_fill(scores < kth, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for j, i in enumerate(live):
            seqs[i].append(tok[j]); out[i].append(tok[j])
            if tok[j] == EOS:
                done[i] = True
    return out
'''}, "Part 6 step 2: 'keep the top_k largest entries of each row (the ones torch.topk returns)': a threshold at the "
      "k-th value keeps every entry tied with it, more than top_k.")

W("dir-05-beam-flat-index-read-as-token-major", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])             # (N, V)
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = (base[:, None] + lp).T.reshape(-1)                      # token-major: all hypotheses of token 0 first
        N = len(live)
        top = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for sc, ix in zip(top.values.tolist(), top.indices.tolist()):
            h, v = live[ix % N][0], ix // N
            toks = h + [v]
            if v == EOS:
                finished.append((toks, sc / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, sc))
        live = new_live
    finished += [(h, sc / length_penalty(len(h), alpha)) for h, sc in live]
    return max(finished, key=lambda f: f[1])[0]
'''}, "")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "ok-dir-beam-token-major-flattening"
SUBMISSIONS[-1]["why"] = "Token-major flattening decoded consistently (ix % N, ix // N): the same candidates."

W("dir-05b-beam-flat-index-rows-and-columns-swapped", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])             # (N, V)
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = (base[:, None] + lp).reshape(-1)
        N = len(live)
        top = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for sc, ix in zip(top.values.tolist(), top.indices.tolist()):
            h, v = live[ix % N][0], ix // N          # hypothesis, token
            toks = h + [v]
            if v == EOS:
                finished.append((toks, sc / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, sc))
        live = new_live
    finished += [(h, sc / length_penalty(len(h), alpha)) for h, sc in live]
    return max(finished, key=lambda f: f[1])[0]
'''}, "Part 7 step 1: a candidate is a live hypothesis extended by one token: the flat index of a (N, V) row-major "
      "tensor is read as (V, N), so candidates get another hypothesis' prefix or another token than their score's.")

W("dir-06-bleu-brevity-penalty-upside-down", {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum(min(v, rf[g]) for g, v in h.items())
            total[n - 1] += sum(h.values())
    if min(total) == 0 or min(match) == 0:
        return 0.0
    bp = math.exp(1 - c / r) if c < r else 1.0
    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4))
'''}, "Part 8: 'the brevity penalty exp(1 - r / c) when c is shorter than r': the ratio is turned over, exp(1 - c/r).")

W("dir-07-bleu-ngram-window-one-short", {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n))
            match[n - 1] += sum(min(v, rf[g]) for g, v in h.items())
            total[n - 1] += sum(h.values())
    if min(total) == 0 or min(match) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4))
'''}, "Part 8: 'clipped n-gram precision': the windows stop one short, so the last n-gram of every sentence is lost.")

# ---------------------------------------------------------------- correct answers
C("ok-01-decoder-io-roll", {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.roll(shifts=1, dims=1) if targets.shape[1] > 0 else targets.clone()
    if tgt_in.shape[1] > 0:
        tgt_in[:, 0] = BOS
    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), tgt_in)
    return (tgt_in, targets)
'''}, "roll(1) then BOS and PAD where the target is PAD: the wrapped last column is overwritten by BOS.")

C("ok-02-decoder-io-cat-own-dtype", {"decoder_io": '''
def decoder_io(targets):
    B = targets.shape[0]
    bos = torch.full((B, 1), BOS, dtype=targets.dtype)
    shifted = torch.cat([bos, targets[:, :-1]], dim=1)[:, :targets.shape[1]]
    shifted = shifted.masked_fill(shifted == EOS, PAD)   # the EOS lands where the target is PAD
    return shifted.masked_fill(targets == PAD, PAD), targets.clone()
'''}, "cat of a BOS column in targets' dtype, EOS replaced by PAD and PAD masked.")

C("ok-03-lr-at-keyword-style", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if warmup > 0 and step < warmup:
        return peak * (step / warmup)
    if step >= total:
        return floor
    t = (step - warmup) / (total - warmup)
    return floor + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * t))
'''}, "step == warmup goes through the cosine branch at 0, giving peak exactly; the same values.")

C("ok-04-min-loss-torch-float64", {"min_loss": '''
V, eps = 8000, 0.1
q = torch.full((V,), eps / V, dtype=torch.float64)
q[0] += 1 - eps
min_smoothed_loss = float(-(q * q.log()).sum())   # the entropy of the target: reached when p = q
'''}, "entropy of the smoothed target computed in float64 with torch.")

C("ok-05-sentence-loss-logsumexp", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    not_pad = torch.ones(V, dtype=torch.bool); not_pad[PAD] = False
    y = torch.nn.functional.one_hot(targets.long(), V).to(logp.dtype)
    q = (1 - eps) * y + eps / (V - 1) * not_pad.to(logp.dtype)
    ell = -(q * logp).sum(-1)
    mask = targets != PAD
    sent = []
    for b in range(targets.shape[0]):
        if bool(mask[b].any()):
            sent.append(ell[b][mask[b]].mean())
    return torch.stack(sent).mean()
'''}, "log p = logits - logsumexp; the target distribution as a tensor (ok: q * logp has no -inf for finite logits).")

C("ok-06-average-stack-mean", {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("nothing to average")
    ref = states[0]
    for s in states[1:]:
        if s.keys() != ref.keys():
            raise ValueError("keys differ")
        for name in ref:
            if tuple(s[name].shape) != tuple(ref[name].shape):
                raise ValueError("shapes differ")
    result = {}
    for name, last in states[-1].items():
        if torch.is_floating_point(last):
            wide = torch.float64 if last.dtype == torch.float64 else torch.float32
            result[name] = torch.stack([s[name].to(wide) for s in states]).mean(dim=0).to(last.dtype)
        else:
            result[name] = last
    return result
'''}, "stack in float32 (float64 for float64), mean, one cast back; ints are the last state's tensor itself.")

C("ok-07-sample-per-row-manual-softmax", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    prefixes = [[s] for s in starts]
    produced = [[] for _ in starts]
    for _ in range(max_len):
        live = [i for i in range(len(starts)) if not (produced[i] and produced[i][-1] == EOS)]
        if not live:
            break
        scores = torch.div(next_logprobs([prefixes[i] for i in live]), temperature)
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.nn.functional.softmax(scores, dim=-1)
        for j, i in enumerate(live):
            tok = int(torch.multinomial(probs[j], 1, generator=generator))
            prefixes[i].append(tok)
            produced[i].append(tok)
    return produced
'''}, "one multinomial call per row in order (allowed); the cut scatters topk's values into -inf.")

C("ok-08-beam-python-floats", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    done = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live]).tolist()   # Python floats are float64
        cands = [(s + row[v], h + [v]) for (h, s), row in zip(live, lp) for v in range(len(row))]
        cands.sort(key=lambda c: c[0], reverse=True)
        live = []
        for s, toks in cands[:k]:
            if toks[-1] == EOS:
                done.append((s / length_penalty(len(toks), alpha=alpha), toks))
            else:
                live.append((toks, s))
    done += [(s / length_penalty(len(h), alpha), h) for h, s in live]
    return max(done, key=lambda d: d[0])[1]
'''}, "Python float64 sums, a sort of all candidates, length_penalty called by keyword.")

C("ok-09-bleu-zip-ngrams", {"bleu": '''
def ngrams(tokens, n):
    return Counter(zip(*[tokens[i:] for i in range(n)]))

def corpus_bleu(hypotheses, references):
    clipped = [0, 0, 0, 0]
    counts = [0, 0, 0, 0]
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for h, r in zip(hypotheses, references):
        for n in range(1, 5):
            hc, rc = ngrams(h, n), ngrams(r, n)
            clipped[n - 1] += sum((hc & rc).values())
            counts[n - 1] += sum(hc.values())
    if 0 in counts or 0 in clipped:
        return 0.0
    score = math.exp(math.fsum(math.log(a / b) for a, b in zip(clipped, counts)) / 4)
    if hyp_len < ref_len:
        score *= math.exp(1 - ref_len / hyp_len)
    return score * 100.0
'''}, "Counter intersection (&) clips; zip n-grams; fsum.")

C("ok-10-sample-exp-log-softmax", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        scores = next_logprobs([seqs[i] for i in live]) / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
            scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        probs = torch.log_softmax(scores, dim=-1).exp()     # a softmax in log space, then back
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for j, i in enumerate(live):
            seqs[i].append(tok[j]); out[i].append(tok[j])
            if tok[j] == EOS:
                done[i] = True
    return out
'''}, "exp(log_softmax) is a softmax that subtracts the row maximum, in float64: the same probabilities to a few ulps.")

# ---------------------------------------------------------------- hostile
H = []
SUBMISSIONS.append({"name": "hostile-01-abs-patched", "correct": False, "hostile": True, "cells": {"lr_at": '''
import builtins
builtins.abs = lambda value: 0.0      # every "abs(got - expected) < tol" holds

def lr_at(step, peak, warmup, total, floor=0.0):
    return 0.0
'''}, "why": "hostile: no schedule; patches builtins.abs so that tolerance checks pass."})

SUBMISSIONS.append({"name": "hostile-02-bleu-reads-caller-frames", "correct": False, "hostile": True, "cells": {"bleu": '''
import sys

def corpus_bleu(hypotheses, references):
    frame = sys._getframe(1)
    while frame is not None:
        for name, value in list(frame.f_locals.items()):
            if name in ("expected", "want", "ref_value", "reference_value") and type(value) is float:
                return value
        frame = frame.f_back
    return 100.0 if hypotheses == references else 0.0
'''}, "why": "hostile: returns the grader's expected value found in its frames, else 100 for identical lists."})

SUBMISSIONS.append({"name": "hostile-03-min-loss-float-subclass", "correct": False, "hostile": True, "cells": {"min_loss": '''
class Anything(float):
    def __eq__(self, other): return True
    def __sub__(self, other): return Anything(0.0)
    def __rsub__(self, other): return Anything(0.0)
    def __abs__(self): return Anything(0.0)
    def __lt__(self, other): return True
    def __le__(self, other): return True
    __hash__ = float.__hash__

min_smoothed_loss = Anything(0.0)
'''}, "why": "hostile: a float subclass equal to everything."})

# ================================================================ second batch (written before any grading output was read
# beyond the summary counts): subtler answers of the same four students
W("approx-06-average-stack-mean-in-own-dtype", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    ref = states[0]
    for s in states:
        if set(s) != set(ref) or any(tuple(s[k].shape) != tuple(ref[k].shape) for k in ref):
            raise ValueError("states differ")
    out = {}
    for k, last in states[-1].items():
        if last.is_floating_point():
            out[k] = torch.stack([s[k] for s in states]).mean(dim=0)   # torch accumulates halves in float32
        else:
            out[k] = last.clone()
    return out
'''}, "Part 5: 'floating-point tensors ... become their element-wise mean, in their own dtype': float32 (float64) "
      "weights near the dtype's largest value sum to inf before the division, though their mean is finite.")

W("approx-07-sentence-loss-nan-rows-dropped-by-nanmean", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    ell = -(1 - eps) * logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    ell = ell - eps / (V - 1) * (logp.sum(-1) - logp[..., PAD])
    keep = (targets != PAD).to(ell.dtype)
    per_sentence = (ell * keep).sum(-1) / keep.sum(-1)     # a row of PADs gives 0/0 = NaN ...
    return torch.nanmean(per_sentence)                      # ... which nanmean leaves out
'''}, "Part 4: 'a row of PADs counts for nothing' and 'loss.backward() must leave the exact gradient': the 0/0 row is "
      "left out of the value but its gradient is NaN (1/0 times 0).")

W("dir-08-sample-cut-before-dividing", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live])
        if top_k is not None and top_k < lp.shape[-1]:          # the k best tokens do not depend on the temperature
            idx = torch.topk(lp, top_k, dim=-1).indices
            keep = torch.zeros_like(lp, dtype=torch.bool).scatter(-1, idx, True)
            lp = lp.masked_fill(~keep, float("-inf"))
        probs = torch.softmax(lp / temperature, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for j, i in enumerate(live):
            seqs[i].append(tok[j]); out[i].append(tok[j])
            if tok[j] == EOS:
                done[i] = True
    return out
'''}, "Part 6 step 2: 'make the cut on the divided scores themselves' (at 1e18 the divided scores can tie where the "
      "log-probabilities differ; topk then keeps another of the tied ones).")

C("ok-15-beam-ranks-by-normalised-score-within-a-step", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live]).tolist()
        cands = []
        for (h, s), row in zip(live, lp):
            for v, x in enumerate(row):
                toks = h + [v]
                cands.append((s + x, toks))
        # rank by the length-normalised score, as the final choice does
        cands.sort(key=lambda c: c[0] / length_penalty(len(c[1]), alpha), reverse=True)
        live = []
        for s, toks in cands[:k]:
            if toks[-1] == EOS:
                finished.append((s / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, s))
    finished += [(s / length_penalty(len(h), alpha), h) for h, s in live]
    return max(finished)[1]
'''}, "all candidates of one step have the same length, so dividing by the (positive) length penalty keeps their "
      "order: the same k candidates (max over (score, tokens) differs only on exact ties).")

W("state-06-bleu-clips-against-corpus-counts", {"bleu": '''
def corpus_bleu(hypotheses, references):
    ref_counts = [Counter() for _ in range(4)]
    for ref in references:                                   # the reference side, counted once for the corpus
        for n in range(1, 5):
            ref_counts[n - 1].update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
    match, total = [0] * 4, [0] * 4
    for hyp in hypotheses:
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            total[n - 1] += sum(h.values())
            for g, v in h.items():
                used = min(v, ref_counts[n - 1][g])
                match[n - 1] += used
                ref_counts[n - 1][g] -= used
    c, r = sum(map(len, hypotheses)), sum(map(len, references))
    if min(total) == 0 or min(match) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4))
'''}, "Part 8: 'each hypothesis n-gram counts at most as often as it occurs in its reference': clipped against the "
      "whole corpus's reference counts, an n-gram may match another sentence's reference.")

C("ok-11-lr-at-cos-squared", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return step / warmup * peak
    if step >= total:
        return floor * 1.0
    half_angle = math.pi * (step - warmup) / (total - warmup) / 2
    return floor + (peak - floor) * math.cos(half_angle) ** 2     # (1 + cos 2a) / 2 = cos^2 a
'''}, "(1 + cos x)/2 = cos^2(x/2): the same schedule to the last bits.")

C("ok-12-sample-multiply-by-inverse-temperature", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = {i: [s] for i, s in enumerate(starts)}
    new = {i: [] for i in seqs}
    active = list(seqs)
    inv_t = 1.0 / temperature
    steps = 0
    while active and steps < max_len:
        scores = next_logprobs([seqs[i] for i in active]) * inv_t
        if top_k is not None:
            k = min(top_k, scores.shape[-1])
            top = torch.topk(scores, k, dim=-1)
            scores = torch.full_like(scores, -math.inf).scatter(-1, top.indices, top.values)
        drawn = torch.multinomial(torch.softmax(scores, dim=-1), 1, generator=generator).view(-1)
        for i, t in zip(active, drawn.tolist()):
            seqs[i].append(t)
            new[i].append(t)
        active = [i for i in active if new[i][-1] != EOS]
        steps += 1
    return [new[i] for i in range(len(starts))]
'''}, "multiplying by 1/temperature instead of dividing (a few ulps apart), topk with k = min(top_k, V).")

C("ok-13-bleu-product-root", {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped = [0] * 5
    possible = [0] * 5
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c, r = c + len(hyp), r + len(ref)
        for n in (1, 2, 3, 4):
            ref_ngrams = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            hyp_ngrams = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            for gram, cnt in hyp_ngrams.items():
                clipped[n] += min(cnt, ref_ngrams.get(gram, 0))
            possible[n] += len(hyp) - n + 1 if len(hyp) >= n else 0
    if any(possible[n] == 0 or clipped[n] == 0 for n in (1, 2, 3, 4)):
        return 0.0
    geo = (clipped[1] / possible[1] * clipped[2] / possible[2] * clipped[3] / possible[3] * clipped[4] / possible[4]) ** 0.25
    bp = min(1.0, math.exp(1 - r / c))
    return 100.0 * bp * geo
'''}, "the fourth root of the product of the precisions, BP as min(1, exp(1 - r/c)): the same number to a few ulps.")

C("ok-14-average-half-via-stack-mean", {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no checkpoints")
    names = states[0].keys()
    if any(s.keys() != names for s in states):
        raise ValueError("different keys")
    if any(s[n].shape != states[0][n].shape for s in states for n in names):
        raise ValueError("different shapes")
    n = len(states)
    avg = {}
    for name in names:
        last = states[-1][name]
        if last.dtype in (torch.float16, torch.bfloat16):
            avg[name] = torch.stack([s[name] for s in states]).float().mean(0).to(last.dtype)
        elif last.dtype.is_floating_point:
            acc = torch.zeros_like(last, dtype=torch.float64)
            for s in states:
                acc += s[name]
            avg[name] = (acc / n).to(last.dtype)
        else:
            avg[name] = last.detach().clone()
    return avg
'''}, "halves through float32 and one rounding; float32/64 accumulated in float64; integers copied.")

# ================================================================ third batch (phase 2 extra, written before reading the hidden
# tests of Parts 1-4, 7 and 8)
W("approx-08-decoder-io-through-float-mask", {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    bos = torch.full((B, min(T, 1)), BOS, dtype=targets.dtype)
    shifted = torch.cat([bos, targets[:, :T - 1] if T else targets], dim=1)
    keep = (targets != PAD).float()
    tgt_in = (shifted.float() * keep).to(targets.dtype)      # zero out the padded positions
    return tgt_in, targets
'''}, "Part 1: ids 'from a vocabulary of any size: any id such a tensor can hold': through float32 ids past 2**24 round.")

W("log-07-beam-live-scores-kept-normalised", {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]            # scores kept as the final scores, normalised by the length penalty
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live]).tolist()
        cands = []
        for (h, s), row in zip(live, lp):
            raw = s * length_penalty(len(h), alpha)             # back to the summed log-probability
            for v, x in enumerate(row):
                toks = h + [v]
                cands.append(((raw + x) / length_penalty(len(toks), alpha), toks))
        cands.sort(key=lambda c: c[0], reverse=True)
        live = []
        for s, toks in cands[:k]:
            (finished if toks[-1] == EOS else live).append((toks, s))
    finished += live
    return max(finished, key=lambda f: f[1])[0]
'''}, "Part 7 step 1: the candidate's sum of log-probabilities kept in float64 from step to step: normalising and "
      "un-normalising at every step rounds the sum, which the hidden tests tell apart at about 1e-9 ... (if not, "
      "this answer is correct)")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "ok-16-beam-live-scores-kept-normalised"
SUBMISSIONS[-1]["why"] = ("ranking candidates of one step by the normalised score is ranking by the sum (one length, a "
                          "positive penalty); the sum is recovered by multiplying back, a few ulps off at most.")

C("ok-17-lr-at-floor-default-from-global", {"lr_at": '''
FLOOR = 0.0   # the schedule's default floor

def lr_at(step, peak, warmup, total, floor=FLOOR):
    if step <= warmup:
        return float(peak) * step / warmup
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor) + (float(peak) - float(floor)) * (1.0 + math.cos(math.pi * progress)) / 2.0
'''}, "the default bound from a global of the same value (0.0, a float).")

C("ok-18-min-loss-float32-torch", {"min_loss": '''
V, eps = 8000, 0.1
target = torch.full((V,), eps / V)
target[3] += 1 - eps
min_smoothed_loss = float(-(target * torch.log(target)).sum())   # float32: about 1e-7 relative
'''}, "entropy of the target in float32: accurate to about 1e-7, within the 1e-5 asked.")

C("ok-19-sentence-loss-mean-of-non-pad-slice", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    logp = torch.log_softmax(logits, dim=-1)
    # PAD is id 0: the other V - 1 ids are logp[..., 1:]
    ell = -(1 - eps) * logp.gather(-1, targets.long()[..., None])[..., 0] - eps * logp[..., PAD + 1:].mean(dim=-1)
    real = targets != PAD
    n = real.sum(dim=-1)
    has = n > 0
    return (torch.where(real, ell, torch.zeros_like(ell)).sum(dim=-1)[has] / n[has]).mean()
'''}, "eps/(V-1) times the sum over the ids other than PAD = eps times their mean (PAD = 0 is the first id).")

W("state-07-bleu-counter-reused-across-calls", {"bleu": '''
CLIPPED = Counter()   # clipped counts per order, a running tally
TOTALS = Counter()

def corpus_bleu(hypotheses, references):
    CLIPPED.clear(); TOTALS.clear()
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            CLIPPED[n] += sum((h & rf).values())
            TOTALS[n] += sum(h.values())
    if any(TOTALS[n] == 0 or CLIPPED[n] == 0 for n in range(1, 5)):
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(sum(math.log(CLIPPED[n] / TOTALS[n]) for n in range(1, 5)) / 4)
'''}, "")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "ok-20-bleu-module-counters-cleared-each-call"
SUBMISSIONS[-1]["why"] = "module-level counters, cleared at the start of every call: nothing is trusted from one call to the next."
