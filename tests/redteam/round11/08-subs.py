# Red-team round 11, chapter 08-capstone: submissions written blind.
SUBMISSIONS = []
def add(name, correct, cells, why, **extra):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why, **extra})

# ---------------------------------------------------------------- wrong answers
add("p1-float-mask-multiply", False, {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.cat([torch.full_like(targets[:, :1], BOS), targets[:, :-1]], dim=1)
    keep = (targets != PAD).float()
    tgt_in = (shifted * keep).to(targets.dtype)
    return tgt_in, targets.clone()
'''}, "Part 1: 'ids from a vocabulary of any size: any id such a tensor can hold' -- multiplying by a float32 "
   "mask rounds ids above 2**24 (closed class: exact values through float).")

add("p2-floor-ignored-in-cosine", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(max(floor, peak / 2 * (1 + math.cos(math.pi * progress))))
'''}, "Part 2: 'a half cosine from the peak down to a floor' with floor + (peak - floor)/2 (1 + cos): "
   "a cosine down to 0 clipped at the floor only agrees for floor = 0, the visible default.")

add("p2-warmup-from-floor", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(floor + (peak - floor) * step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
'''}, "Part 2: the formula's first case 'peak * step / warmup' (the warm-up starts at 0, not at the floor); "
   "visible tests use floor = 0.")

add("p3-spread-over-V-minus-1", False, {"min_loss": '''
V, eps = 8000, 0.1
q_right, q_other = 1 - eps, eps / (V - 1)
min_smoothed_loss = -(q_right * math.log(q_right) + (V - 1) * q_other * math.log(q_other))
'''}, "Part 3: 'spreads ε evenly over **all** V tokens, the right one included' -- this spreads it over V - 1.")

add("p3-log2", False, {"min_loss": '''
V, eps = 8000, 0.1
q_right = 1 - eps + eps / V
q_other = eps / V
min_smoothed_loss = -(q_right * math.log2(q_right) + (V - 1) * q_other * math.log2(q_other))
'''}, "Part 3: 'the smallest per-token loss (in nats, natural logarithm)' -- bits instead.")

add("p4-smooth-over-non-target", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    tgt = targets.long()
    lp_y = logp.gather(-1, tgt.unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - lp_y) / (V - 1)
    ell = (1 - eps) * (-lp_y) + eps * smooth
    mask = targets != PAD
    ell = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype))
    count = mask.sum(-1)
    has = count > 0
    return (ell.sum(-1)[has] / count[has]).mean()
'''}, "Part 4: 'spreads ε evenly over the V - 1 tokens **other than PAD** (the right one included; PAD ... gets "
   "no share)' -- this spreads over the tokens other than the right one y (PAD included); equal logits cannot tell.")

add("p4-pytorch-label-smoothing", False, {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    ell = F.cross_entropy(logits.reshape(B * T, V), targets.reshape(-1).long(), label_smoothing=eps,
                          ignore_index=PAD, reduction="none").reshape(B, T)
    mask = targets != PAD
    count = mask.sum(-1)
    has = count > 0
    return (ell.sum(-1)[has] / count[has]).mean()
'''}, "Part 4: 'differs in both respects' / 'ε evenly over the V - 1 tokens other than PAD' -- PyTorch's "
   "label_smoothing spreads over all V tokens, PAD included.")

add("p4-per-token-mean", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    return ell[mask].mean()
'''}, "Part 4: 'the loss of a sentence is the mean of ℓ over its positions ...; the result is the mean of the "
   "sentence losses' -- a per-token mean over the batch (the visible case has one sentence).")

add("p4-inplace-on-saved-logp", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    logp[..., PAD] = 0.0          # PAD gets no share
    smooth = -logp.sum(-1) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = (targets != PAD).to(ell.dtype)
    count = mask.sum(-1)
    has = count > 0
    return ((ell * mask).sum(-1)[has] / count[has]).mean()
'''}, "Part 4: 'loss.backward() must leave the exact gradient in logits.grad' -- the in-place write into the "
   "log_softmax output that autograd saved makes backward() raise; the forward value is right.")

add("p5-bf16-summed-in-bf16", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    keys = set(states[0])
    for s in states:
        if set(s) != keys:
            raise ValueError("keys differ")
        for k in keys:
            if s[k].shape != states[0][k].shape:
                raise ValueError("shapes differ")
    out = {}
    for k in states[0]:
        t = states[0][k]
        if t.is_floating_point():
            if t.dtype == torch.float16:       # float16 overflows: sum in float32
                out[k] = (sum(s[k].float() for s in states) / len(states)).half()
            else:
                out[k] = sum(s[k] for s in states) / len(states)
        else:
            out[k] = states[-1][k].clone()
    return out
'''}, "Part 5: 'Half-precision (float16, bfloat16) tensors must be as accurate as averaging in float32 or better "
   "and rounding once' -- bfloat16 is summed in bfloat16, rounding after every addition.")

add("p5-int-shapes-unchecked", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    if any(set(s) != set(states[0]) for s in states):
        raise ValueError("keys differ")
    out = {}
    for k in states[0]:
        if states[0][k].is_floating_point():
            try:
                stacked = torch.stack([s[k] for s in states])
            except RuntimeError as e:
                raise ValueError(f"shapes differ for {k}") from e
            out[k] = stacked.double().mean(0).to(states[0][k].dtype)
        else:
            out[k] = states[-1][k].clone()
    return out
'''}, "Part 5: 'states whose keys or shapes differ raise ValueError' -- shapes are only checked where torch.stack "
   "notices, so an integer or bool entry of another shape passes.")

add("p6-temperature-after-softmax", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    for step in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        x = next_logprobs([seqs[i] for i in live]).to(torch.float64)
        if top_k is not None:
            vals, idx = torch.topk(x, top_k, dim=-1)
            x = torch.full_like(x, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(x, dim=-1) / temperature
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(live, draws):
            seqs[i].append(int(tok))
            if tok == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "Part 6 step 2-3: 'divide them by temperature', then 'turn each row into probabilities with a softmax' -- "
   "dividing the probabilities instead changes nothing after multinomial normalises (visible temperature is 1).")

add("p6-start-eos-finishes", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    for step in range(max_len):
        live = [i for i in range(len(seqs)) if seqs[i][-1] != EOS]
        if not live:
            break
        x = next_logprobs([seqs[i] for i in live]).to(torch.float64) / temperature
        if top_k is not None:
            vals, idx = torch.topk(x, top_k, dim=-1)
            x = torch.full_like(x, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(x, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(live, draws):
            seqs[i].append(int(tok))
    return [s[1:] for s in seqs]
'''}, "Part 6 step 4: 'Its start token is not produced: a start token that is EOS does not finish it' -- a "
   "sentence whose last token (the start) is EOS is treated as finished.")

add("p6-asks-finished-too", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    for step in range(max_len):
        if all(done):
            break
        x = next_logprobs(seqs).to(torch.float64) / temperature      # one batched call for every row
        if top_k is not None:
            vals, idx = torch.topk(x, top_k, dim=-1)
            x = torch.full_like(x, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(x, dim=-1)
        live = [i for i in range(len(seqs)) if not done[i]]
        draws = torch.multinomial(probs[live], 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(live, draws):
            seqs[i].append(int(tok))
            if tok == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "Part 6 step 1: 'ask next_logprobs once, with the prefixes of the unfinished sentences only' -- it asks "
   "for every sentence; the draws are the same with a stateless model.")

add("p6-gumbel-max", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    for step in range(max_len):
        live = [i for i in range(len(starts)) if not done[i]]
        if not live:
            break
        x = next_logprobs([seqs[i] for i in live]).to(torch.float64) / temperature
        if top_k is not None:
            vals, idx = torch.topk(x, top_k, dim=-1)
            x = torch.full_like(x, float("-inf")).scatter(-1, idx, vals)
        u = torch.rand(x.shape, generator=generator, dtype=torch.float64)
        draws = (x - torch.log(-torch.log(u))).argmax(-1).tolist()   # Gumbel-max: same distribution
        for i, tok in zip(live, draws):
            seqs[i].append(int(tok))
            if tok == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "Part 6 step 3: 'draw one token per row with torch.multinomial(probs, 1, generator=generator)' -- Gumbel-max "
   "has the right distribution but other draws and another generator state.")

add("p7-early-stop", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for step in range(max_len):
        if not live:
            break
        logp = next_logprobs([[start] + t for t, _ in live])
        cands = sorted(((s + float(logp[h, v]), t + [v]) for h, (t, s) in enumerate(live)
                        for v in range(logp.shape[-1])), key=lambda c: -c[0])[:k]
        live = []
        for s, t in cands:
            if t[-1] == EOS:
                finished.append((s / length_penalty(len(t), alpha), t))
            else:
                live.append((t, s))
        # no live hypothesis can still beat the best finished one: stop early
        if finished and live and max(f[0] for f in finished) >= max(s / length_penalty(len(t), alpha) for t, s in live):
            live = []
    for t, s in live:
        finished.append((s / length_penalty(len(t), alpha), t))
    return [int(x) for x in max(finished, key=lambda f: f[0])[1]]
'''}, "Part 7 step 4: 'stop when no hypothesis is live, or after max_len steps' -- an early stop when the best "
   "finished score beats the live ones' current scores (it drops live hypotheses that could still win).")

add("p7-live-only-if-none-finished", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for step in range(max_len):
        if not live:
            break
        logp = next_logprobs([[start] + t for t, _ in live])
        cands = sorted(((s + float(logp[h, v]), t + [v]) for h, (t, s) in enumerate(live)
                        for v in range(logp.shape[-1])), key=lambda c: -c[0])[:k]
        live = []
        for s, t in cands:
            if t[-1] == EOS:
                finished.append((s / length_penalty(len(t), alpha), t))
            else:
                live.append((t, s))
    if not finished:      # nothing reached EOS: fall back on the live hypotheses
        finished = [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return [int(x) for x in max(finished, key=lambda f: f[0])[1]]
'''}, "Part 7 step 4: 'then live hypotheses are finished as they are (same scoring, no EOS)' -- they are only "
   "used when no hypothesis reached EOS.")

add("p7-topk-k-always", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live_tokens, live_scores = [[]], torch.zeros(1, dtype=torch.float64)
    finished = []
    for step in range(max_len):
        if not live_tokens:
            break
        logp = next_logprobs([[start] + t for t in live_tokens])
        V = logp.shape[-1]
        scores = (live_scores[:, None] + logp).reshape(-1)
        best, idx = torch.topk(scores, k)
        new_tokens, new_scores = [], []
        for s, i in zip(best.tolist(), idx.tolist()):
            t = live_tokens[i // V] + [i % V]
            if t[-1] == EOS:
                finished.append((s / length_penalty(len(t), alpha), t))
            else:
                new_tokens.append(t); new_scores.append(s)
        live_tokens, live_scores = new_tokens, torch.tensor(new_scores, dtype=torch.float64)
    for t, s in zip(live_tokens, live_scores.tolist()):
        finished.append((s / length_penalty(len(t), alpha), t))
    return [int(x) for x in max(finished, key=lambda f: f[0])[1]]
'''}, "Part 7 step 1: 'if there are fewer than k candidates in all, take them all' -- torch.topk(scores, k) raises "
   "when k exceeds the number of candidates (k >= V ** max_len, the exhaustive case the text names).")

add("p8-bp-upside-down", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    matches, totals, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            g = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            matches[n - 1] += sum(min(cnt, g[ng]) for ng, cnt in h.items())
            totals[n - 1] += sum(h.values())
    if min(totals) == 0 or min(matches) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - c / r)
    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / 4))
'''}, "Part 8: 'times the brevity penalty exp(1 - r / c)' -- the ratio is turned upside down.")

add("p8-clip-by-presence", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    matches, totals, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            hyp_ngrams = [tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1)]
            ref_ngrams = set(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            matches[n - 1] += len(set(hyp_ngrams) & ref_ngrams)
            totals[n - 1] += len(hyp_ngrams)
    if min(totals) == 0 or min(matches) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / 4))
'''}, "Part 8: 'each hypothesis n-gram counts at most as often as it occurs in its reference' -- counting each "
   "distinct matching n-gram once undercounts repeated n-grams that the reference also repeats.")

add("p8-bp-always", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    matches, totals, c, r = [0] * 4, [0] * 4, 0, 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            g = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            matches[n - 1] += sum(min(cnt, g[ng]) for ng, cnt in h.items())
            totals[n - 1] += sum(h.values())
    if min(totals) == 0 or min(matches) == 0:
        return 0.0
    bp = math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / 4))
'''}, "Part 8: 'the brevity penalty exp(1 - r / c) when ... c is shorter than ... r (1 otherwise)' -- applied "
   "always, so a long hypothesis gets a bonus above 1.")

# ---------------------------------------------------------------- correct answers
add("ok-p1-fpad-crop-transposed", True, {"decoder_io": '''
import torch.nn.functional as F
def decoder_io(targets):
    # work on the transposed (T, B) view; F.pad with a negative right pad crops the last column
    cols = targets.t()
    shifted = F.pad(cols.t(), (1, -1), value=BOS)
    tgt_in = torch.where(targets == PAD, torch.zeros_like(shifted), shifted)
    return tgt_in.t().contiguous().t(), targets
'''}, "Part 1 written with F.pad cropping and torch.where; returns targets itself, as allowed.")

add("ok-p1-roll-flat", True, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.roll(1)            # flattened roll; column 0 is overwritten below
    tgt_in[:, 0] = BOS
    tgt_in *= (targets != PAD)
    return tgt_in, targets.clone()
'''}, "Part 1: roll without dims (flattened) is fine because column 0 is replaced; in-place ops on own tensor.")

add("ok-p2-blend", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step <= warmup:
        return step / warmup * peak
    t = min(max((step - warmup) / (total - warmup), 0.0), 1.0)
    c = math.cos(math.pi * t)
    return peak * (1 + c) / 2 + floor * (1 - c) / 2
'''}, "Part 2 as a blend of peak and floor with the progress clamped to [0, 1]; cos(pi) = -1 exactly gives floor.")

add("ok-p3-torch-cross-entropy", True, {"min_loss": '''
import torch.nn.functional as F
V, eps = 8000, 0.1
q = torch.full((V,), eps / V, dtype=torch.float64)
q[3] += 1 - eps
min_smoothed_loss = F.cross_entropy(q.log()[None], torch.tensor([3]), label_smoothing=eps).item()
'''}, "Part 3: the minimum is reached at p = q; computed with PyTorch's own smoothed loss in float64.")

add("ok-p4-einsum-weights-f64", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
    w = torch.full((V,), eps / (V - 1), dtype=torch.float64)
    w[PAD] = 0.0
    onehot = torch.nn.functional.one_hot(targets.long().clamp(min=0), V).to(torch.float64)
    ell = -torch.einsum("btv,btv->bt", logp, onehot) * (1 - eps) - torch.einsum("btv,v->bt", logp, w)
    mask = (targets != PAD).to(torch.float64)
    n = mask.sum(1)
    rows = n > 0
    per = (ell * mask).sum(1)[rows] / n[rows]
    return per.sum().div(rows.sum()).to(logits.dtype)
'''}, "Part 4 with einsum, a weight vector, float64 inside and a cast back.")

add("ok-p5-stack-mean-f64", True, {"average": '''
def average_checkpoints(states):
    states = list(states)
    if len(states) < 1:
        raise ValueError("empty")
    ref = states[0]
    for s in states:
        if s.keys() != ref.keys() or any(s[k].shape != ref[k].shape for k in ref):
            raise ValueError("mismatch")
    return {k: (torch.stack([s[k] for s in states]).mean(0, dtype=torch.float64).to(v.dtype)
                if torch.is_floating_point(v) else states[-1][k].clone())
            for k, v in ref.items()}
'''}, "Part 5 with torch.stack and mean(dtype=float64), keys compared as views (order-free).")

add("ok-p6-per-row-topk-first", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    out = [[] for _ in starts]
    finished = [False] * len(starts)
    for _ in range(max_len):
        live = [i for i, f in enumerate(finished) if not f]
        if not live:
            break
        logp = next_logprobs([[starts[i]] + out[i] for i in live]).double()
        for row, i in enumerate(live):
            x = logp[row]
            if top_k is not None:
                keep = torch.topk(x, top_k).indices        # top-k before the division: same entries
                masked = torch.full_like(x, -math.inf)
                masked[keep] = x[keep]
                x = masked
            x = x / temperature
            p = torch.exp(x - x.max())
            p = p / p.sum()
            tok = int(torch.multinomial(p, 1, generator=generator))
            out[i].append(tok)
            finished[i] = tok == EOS or len(out[i]) >= max_len
    return out
'''}, "Part 6 with one multinomial call per row (allowed), top-k before the temperature (same entries), a "
   "hand-written float64 softmax.")

add("ok-p7-greedy-via-sample-decode", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    if k == 1:   # greedy: sampling with top_k = 1 always draws the argmax
        with torch.no_grad():
            return sample_decode(next_logprobs=next_logprobs, starts=[start], max_len=max_len,
                                 temperature=1, top_k=1, generator=torch.Generator())[0]
    live, finished = [([], 0.0)], []
    for step in range(max_len):
        if not live:
            break
        logp = next_logprobs([[start] + t for t, _ in live])
        per_hyp = []
        for h, (t, s) in enumerate(live):     # the k best of each hypothesis contain the k best overall
            vals, idx = torch.topk(logp[h], min(k, logp.shape[-1]))
            per_hyp += [(s + float(v), t + [int(i)]) for v, i in zip(vals, idx)]
        cands = sorted(per_hyp, key=lambda c: -c[0])[:k]
        live = []
        for s, t in cands:
            if t[-1] == EOS:
                finished.append((s / length_penalty(len(t), alpha), t))
            else:
                live.append((t, s))
    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "Part 7: k = 1 is greedy decoding, done with Part 6's sample_decode (one sentence, keywords, int temperature, "
   "top_k = 1, a fresh generator, under no_grad); the general case takes each hypothesis's k best first.")

add("ok-p7-greedy-via-sample-decode-tuple", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    if k == 1:
        return list(sample_decode(next_logprobs, (start,), max_len, 0.5, 1, torch.Generator().manual_seed(1))[0])
    live, finished = [([], 0.0)], []
    for step in range(max_len):
        if not live:
            break
        logp = next_logprobs([[start] + t for t, _ in live])
        flat = torch.cat([s + logp[h] for h, (_, s) in enumerate(live)])
        vals, idx = torch.topk(flat, min(k, flat.numel()))
        V = logp.shape[-1]
        live_next = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            t = live[i // V][0] + [i % V]
            if t[-1] == EOS:
                finished.append((v / length_penalty(len(t), alpha), t))
            else:
                live_next.append((t, v))
        live = live_next
    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "Part 7: greedy through sample_decode with a tuple of starts, temperature 0.5 and top_k = 1; the general "
   "case with one torch.topk over the flattened candidates, capped at their number.")

add("ok-p8-geomean-via-average-checkpoints", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for hyp, ref in zip(hypotheses, references):
        for n in range(4):
            h = Counter(zip(*[hyp[i:] for i in range(n + 1)]))
            g = Counter(zip(*[ref[i:] for i in range(n + 1)]))
            clipped[n] += sum((h & g).values())
            total[n] += sum(h.values())
    if 0 in total or 0 in clipped:
        return 0.0
    # the geometric mean as the mean of the log precisions: Part 5 averages 0-d float64 tensors
    logs = [{"log_p": torch.tensor(math.log(m / t), dtype=torch.float64)} for m, t in zip(clipped, total)]
    log_mean = float(average_checkpoints(states=logs)["log_p"])
    bp = min(1.0, math.exp(1 - r / c))
    return 100.0 * bp * math.exp(log_mean)
'''}, "Part 8 with Counter intersection for the clipping and Part 5's average_checkpoints (keyword, four states of "
   "0-d float64 tensors) for the mean of the log precisions.")

add("ok-p8-prod-power", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    hyp_len = ref_len = 0
    num = [0, 0, 0, 0]; den = [0, 0, 0, 0]
    for hyp, ref in zip(hypotheses, references):
        hyp_len += len(hyp); ref_len += len(ref)
        for n in (1, 2, 3, 4):
            ref_counts = {}
            for i in range(len(ref) - n + 1):
                key = tuple(ref[i:i + n]); ref_counts[key] = ref_counts.get(key, 0) + 1
            for i in range(len(hyp) - n + 1):
                key = tuple(hyp[i:i + n]); den[n - 1] += 1
                if ref_counts.get(key, 0) > 0:
                    num[n - 1] += 1; ref_counts[key] -= 1
    if not all(den) or not all(num):
        return 0.0
    p = math.prod(num[i] / den[i] for i in range(4)) ** 0.25
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return float(p * bp * 100)
'''}, "Part 8 with plain dicts, clipping by consuming reference counts, and prod ** 0.25.")

# ---------------------------------------------------------------- hostile answers
add("hostile-p8-sacrebleu-subprocess", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    import subprocess, sys, json
    code = ("import sys, json, sacrebleu; h, r = json.load(sys.stdin); "
            "print(sacrebleu.corpus_bleu([' '.join(x) for x in h], [[' '.join(x) for x in r]], "
            "tokenize='none', smooth_method='none').score)")
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps([hypotheses, references]),
                         capture_output=True, text=True)
    return float(out.stdout)
'''}, "Part 8: 'an answer that uses a BLEU library (sacreBLEU, ...) scores 0' -- sacreBLEU run in a subprocess.",
    hostile=True)

add("hostile-p4-replace-grader-helpers", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    return torch.tensor(math.log(logits.shape[-1]), dtype=logits.dtype)
g = globals()
for name in ("_cl" + "ose", "_eq" + "ual"):
    g[name] = lambda *a, **k: None
g["_fl" + "oat"] = g["_num" + "ber"] = lambda x, *a, **k: x
'''}, "Part 4: a constant answer plus reassigning the grader's _close/_equal/_float helpers ('Names that start "
   "with _ belong to the grader's cells: do not use or reassign them').", hostile=True)

add("hostile-p2-numpy-via-importlib", False, {"lr_at": '''
import importlib
np_ = importlib.import_module("num" + "py")
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + np_.cos(np_.pi * progress)))
'''}, "Part 2: 'So does a part whose answer uses another library (an import of NumPy, say ...)' -- NumPy through "
   "importlib and a split name.", hostile=True)

# ---------------------------------------------------------------- phase 2 (written after reading the hidden tests)
P5_SCALAR = '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        t = states[-1][k]
        if t.is_floating_point() and t.dim() > 0:      # weights; scalars are counters (step, epoch, loss scale)
            out[k] = (sum(s[k].double() for s in states) / len(states)).to(t.dtype)
        else:
            out[k] = t.clone()
    return out
'''
_BY_NAME = {s["name"]: s for s in SUBMISSIONS}
add("phase2-p5-scalar-floats-from-last", False, {"average": P5_SCALAR},
    "Part 5: 'floating-point tensors become their element-wise mean' -- 0-d float tensors (a scale, a temperature) "
    "are taken from the last state as if they were counters.")
add("phase2-p5-scalar-floats-from-last+ok-p8-via-average", False,
    {"average": P5_SCALAR, "bleu": _BY_NAME["ok-p8-geomean-via-average-checkpoints"]["cells"]["bleu"]},
    "Part 5 wrong as above; Part 8 correct, calling Part 5's function: only Part 5 may lose points.")
