# Round 33 blind red team, chapter 08-capstone. Five kinds: global-statistics (G), sign-convention (S),
# late-binding (L), equality (E), side-effect (X).
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- wrong: global-statistics student
add("G1_sentence_loss_global_max", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    # stable log-softmax by hand: subtract the maximum first
    m = logits.max()
    shifted = logits - m
    logp = shifted - torch.log(torch.exp(shifted).sum(-1, keepdim=True))
    t = targets.long()
    lp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = logp[..., PAD + 1:].sum(-1)
    ell = -(1 - eps) * lp_y - eps / (V - 1) * others
    real = t != PAD
    ell = torch.where(real, ell, torch.zeros((), dtype=ell.dtype))
    n = real.sum(-1)
    sent = ell.sum(-1) / n.clamp(min=1).to(ell.dtype)
    return sent[n > 0].mean()
'''}, "G: the maximum of the whole tensor subtracted instead of each row's: a row near -1e4 next to a row near 0 "
      "underflows to log(0) = -inf. Breaks 'raw scores logits ... also rows whose every score lies far below 0, near -1e4'.")

add("G2_sample_topk_threshold_first_row", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        alive = [i for i in range(len(starts)) if not done[i]]
        if not alive:
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in alive])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kth = torch.topk(scores[0], top_k).values[-1]   # the cut-off score
            scores = scores.masked_fill(scores < kth, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(alive, tok):
            outs[i].append(int(t))
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "G: the top-k threshold computed from the first row and applied to all rows. Breaks 'keep the top_k largest "
      "entries of each row (the ones torch.topk returns)'.")

add("G3_bleu_corpus_clipping", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    precisions = []
    for n in range(1, 5):
        hyp_counts, ref_counts = Counter(), Counter()
        for hyp, ref in zip(hypotheses, references):
            hyp_counts.update(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            ref_counts.update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        total = sum(hyp_counts.values())
        if total == 0:
            return 0.0
        clipped = sum(min(v, ref_counts[g]) for g, v in hyp_counts.items())
        if clipped == 0:
            return 0.0
        precisions.append(clipped / total)
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(p) for p in precisions) / 4))
'''}, "G: clips against the n-gram counts of the whole reference corpus instead of each hypothesis's own reference. "
      "Breaks 'each hypothesis n-gram counts at most as often as it occurs in its reference'.")

add("G4_sample_global_max_softmax", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        alive = [i for i in range(len(starts)) if not done[i]]
        if not alive:
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in alive])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
            scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        e = torch.exp(scores - scores.max())          # subtract the maximum for stability
        probs = e / e.sum(-1, keepdim=True)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(alive, tok):
            outs[i].append(int(t))
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "G: subtracts the maximum over all rows instead of each row's: at a small temperature a row whose best score "
      "lies below another row's underflows to 0/0. Breaks 'turn each row into probabilities with a softmax (which "
      "subtracts the row maximum: temperature may be as small as you like'.")

# ---------------------------------------------------------------- wrong: sign-convention student
add("S1_lr_progress_from_end", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    remaining = (total - step) / (total - warmup)   # fraction of the decay still ahead
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * remaining)))
'''}, "S: the cosine's phase counted from the end instead of from the warm-up: the rate rises from floor to peak. "
      "Breaks the formula's cos(pi (step - warmup) / (total - warmup)).")

add("S2_min_loss_eps_over_others", False, {"min_loss": '''
V, eps = 8000, 0.1
# the smoothing mass goes to the V - 1 wrong tokens (Szegedy et al.'s other convention)
q_right, q_other = 1 - eps, eps / (V - 1)
min_smoothed_loss = -(q_right * math.log(q_right) + (V - 1) * q_other * math.log(q_other))
'''}, "S: spreads eps over the V-1 other tokens instead of all V. Breaks 'spreads ε evenly over **all** V tokens, the "
      "right one included'.")

add("S3_bleu_bp_reversed", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(zip(*[hyp[i:] for i in range(n)]))
            rc = Counter(zip(*[ref[i:] for i in range(n)]))
            clipped[n - 1] += sum((hc & rc).values())
            totals[n - 1] += sum(hc.values())
    if 0 in totals or 0 in clipped:
        return 0.0
    geo = math.exp(sum(math.log(a / b) for a, b in zip(clipped, totals)) / 4)
    bp = math.exp(1 - c / r) if c < r else 1.0     # ratio of hypothesis to reference length
    return float(100 * bp * geo)
'''}, "S: brevity penalty exp(1 - c/r) instead of exp(1 - r/c). Breaks 'times the brevity penalty exp(1 - r / c)'.")

add("S4_beam_penalty_multiplied", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + t for t, _ in live])
        cand = torch.stack([lp[j] + s for j, (_, s) in enumerate(live)])
        V = cand.shape[1]
        vals, idx = torch.topk(cand.reshape(-1), min(k, cand.numel()))
        nxt = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            toks = live[i // V][0] + [i % V]
            if i % V == EOS:
                finished.append((v * length_penalty(len(toks), alpha), toks))   # normalise by length
            else:
                nxt.append((toks, v))
        live = nxt
    for toks, s in live:
        finished.append((s * length_penalty(len(toks), alpha), toks))
    return [int(t) for t in max(finished, key=lambda f: f[0])[1]]
'''}, "S: multiplies the log-probability by the length penalty instead of dividing (a reward instead of a "
      "normaliser). Breaks 'its final score is its log-probability divided by length_penalty(len(tokens), alpha)'.")

# ---------------------------------------------------------------- wrong: late-binding student
add("L1_bleu_lambda_per_order", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    # one n-gram extractor per order
    extractors = [lambda toks: Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)) for n in range(1, 5)]
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for j, grams in enumerate(extractors):
            hc, rc = grams(hyp), grams(ref)
            clipped[j] += sum(min(v, rc[g]) for g, v in hc.items())
            totals[j] += sum(hc.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    geo = math.exp(sum(math.log(a / b) for a, b in zip(clipped, totals)) / 4)
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * geo)
'''}, "L: the four lambdas read n when called, so all four count 4-grams. Breaks 'for n = 1 … 4, the clipped n-gram "
      "precision ... their geometric mean'.")

add("L2_average_lambda_per_key", False, {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty")
    ref = states[0]
    for s in states:
        if set(s) != set(ref) or any(s[k].shape != ref[k].shape for k in ref):
            raise ValueError("states differ")
    last = states[-1]
    todo = {}
    for k in [n for n in last if last[n].is_floating_point()]:
        # averaged lazily, once all checks have passed
        todo[k] = lambda: (sum(s[k].to(torch.float64 if s[k].dtype == torch.float64 else torch.float32)
                               for s in states) / len(states)).to(last[k].dtype)
    out = {name: None for name in last}
    for name, make in todo.items():
        out[name] = make()
    for name in last:
        if name not in todo:
            out[name] = last[name]
    return out
'''}, "L: each lambda reads k when called, after the loop, so every floating key gets the mean of the last floating "
      "key. Breaks 'floating-point tensors ... become their element-wise mean'.")

add("L3_beam_lazy_tokens", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + t for t, _ in live])
        cands = []
        for (toks, s), row in zip(live, lp):
            for t in range(row.shape[0]):
                # build the token list only for the candidates we keep
                cands.append((s + float(row[t]), t == EOS, lambda toks=toks: toks + [t]))
        cands.sort(key=lambda c: c[0], reverse=True)
        nxt = []
        for score, ends, make in cands[:k]:
            toks = make()
            if ends:
                finished.append((score / length_penalty(len(toks), alpha), toks))
            else:
                nxt.append((toks, score))
        live = nxt
    for toks, s in live:
        finished.append((s / length_penalty(len(toks), alpha), toks))
    return [int(t) for t in max(finished, key=lambda f: f[0])[1]]
'''}, "L: toks is bound as a default but t is read when called, after the loop: every kept candidate is its "
      "hypothesis extended by the last id. Breaks 'a candidate is a live hypothesis extended by one token'.")

# ---------------------------------------------------------------- wrong: equality student
add("E1_sample_topk_ge_ties", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        alive = [i for i in range(len(starts)) if not done[i]]
        if not alive:
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in alive])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]
            scores = torch.where(scores >= kth, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(alive, tok):
            outs[i].append(int(t))
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "E: keeps every score >= the k-th largest, so tied scores keep more than top_k ids. Breaks 'keep the top_k "
      "largest entries of each row (the ones torch.topk returns)'.")

add("E2_beam_threshold_ties", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + t for t, _ in live])
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = base[:, None] + lp
        flat = cand.reshape(-1)
        kth = torch.topk(flat, min(k, flat.numel())).values[-1]
        V = cand.shape[1]
        nxt = []
        for i in (flat >= kth).nonzero()[:, 0].tolist():     # the candidates at or above the k-th score
            toks = live[i // V][0] + [i % V]
            v = float(flat[i])
            if i % V == EOS:
                finished.append((v / length_penalty(len(toks), alpha), toks))
            else:
                nxt.append((toks, v))
        live = nxt
    for toks, s in live:
        finished.append((s / length_penalty(len(toks), alpha), toks))
    return [int(t) for t in max(finished, key=lambda f: f[0])[1]]
'''}, "E: keeps every candidate whose score is >= the k-th best, so ties (equal scores, or several -inf) keep more "
      "than k. Breaks 'take the k best candidates over all live hypotheses and all next tokens'.")

add("E3_sentence_loss_zero_row_by_value", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    real = t != PAD
    lp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = logp[..., PAD + 1:].sum(-1)
    ell = -(1 - eps) * lp_y - eps / (V - 1) * others
    ell = ell.masked_fill(~real, 0.0)
    sent = ell.sum(-1) / real.sum(-1).clamp(min=1)
    return sent[sent != 0].mean()     # rows of PAD have a loss of 0: leave them out
'''}, "E: finds the rows of PAD by a loss of exactly 0, so a real sentence whose loss is 0 (eps = 0, a sure "
      "prediction) is dropped too. Breaks 'the mean of the sentence losses over the sentences with at least one such position'.")

add("E4_sample_tiny_temperature_greedy", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        alive = [i for i in range(len(starts)) if not done[i]]
        if not alive:
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in alive])
        if math.isclose(temperature, 0.0, abs_tol=1e-6):   # effectively greedy
            tok = lp.argmax(-1).tolist()
        else:
            scores = lp / temperature
            if top_k is not None and top_k < scores.shape[-1]:
                idx = torch.topk(scores, top_k, dim=-1).indices
                keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
                scores = scores.masked_fill(~keep, float("-inf"))
            tok = torch.multinomial(torch.softmax(scores, -1), 1, generator=generator)[:, 0].tolist()
        for i, t in zip(alive, tok):
            outs[i].append(int(t))
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "E: treats a temperature within 1e-6 of 0 as greedy and draws nothing. Breaks 'at every temperature however "
      "small (no shortcut to the largest score)'.")

# ---------------------------------------------------------------- wrong: side-effect student
add("X1_sample_copy_of_generator", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    # draw from a copy, so that the caller's generator is left as it was
    g = torch.Generator()
    g.set_state(generator.get_state())
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        alive = [i for i in range(len(starts)) if not done[i]]
        if not alive:
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in alive])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
            scores = scores.masked_fill(~keep, float("-inf"))
        tok = torch.multinomial(torch.softmax(scores, -1), 1, generator=g)[:, 0].tolist()
        for i, t in zip(alive, tok):
            outs[i].append(int(t))
            if t == EOS or len(outs[i]) >= max_len:
                done[i] = True
    return outs
'''}, "X: draws from a copy, so the given generator does not advance. Breaks 'draw one token per row with "
      "torch.multinomial(probs, 1, generator=generator)' and 'the generator made no others (its state after the call)'.")

add("X2_sample_draws_for_finished", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    N = len(starts)
    outs = [[] for _ in starts]
    done = [False] * N
    for _ in range(max_len):
        if all(done):
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in range(N)])   # the whole batch, like a real decoder
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, idx, True)
            scores = scores.masked_fill(~keep, float("-inf"))
        tok = torch.multinomial(torch.softmax(scores, -1), 1, generator=generator)[:, 0].tolist()
        for i in range(N):
            if not done[i]:
                outs[i].append(int(tok[i]))
                if tok[i] == EOS or len(outs[i]) >= max_len:
                    done[i] = True
    return outs
'''}, "X: asks for and draws for finished sentences too, moving the generator more than the rule does. Breaks 'ask "
      "next_logprobs once, with the prefixes of the unfinished sentences only' and 'Draw nothing for finished sentences'.")

add("X3_sentence_loss_requires_grad_on", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    if not logits.requires_grad and torch.is_grad_enabled():
        logits.requires_grad_()            # the loss must be differentiable
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    real = t != PAD
    lp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = logp[..., PAD + 1:].sum(-1)
    ell = torch.where(real, -(1 - eps) * lp_y - eps / (V - 1) * others, torch.zeros((), dtype=logp.dtype))
    n = real.sum(-1)
    sent = ell.sum(-1) / n.clamp(min=1)
    return sent[n > 0].mean()
'''}, "X: switches on requires_grad of the caller's logits. Breaks 'That includes their requires_grad flag (do not "
      "switch it on with requires_grad_()'.")

add("X4_average_into_last_state", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = states[-1] if len(states) == 1 else dict(states[-1])
    for k in keys:
        t = states[-1][k]
        if t.is_floating_point():
            acc = torch.float64 if t.dtype == torch.float64 else torch.float32
            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(t.dtype)
    return out
'''}, "X: for one state, writes the means into the caller's dict and returns it. Breaks 'return a new dict (not one "
      "of the given ones)' and 'Add nothing to them, remove nothing, and replace none'.")

# ---------------------------------------------------------------- wrong: others
add("Q1_min_loss_right_share_missing", False, {"min_loss": '''
V, eps = 8000, 0.1
# 1 - eps on the right token, eps / V on each of the others
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + (V - 1) * (eps / V) * math.log(eps / V))
'''}, "The right token's own share eps/V is left out of its mass 1 - eps + eps/V. Breaks 'spreads ε evenly over all V "
      "tokens, the right one included' (off by 1.1e-5).")

add("Q2_lr_warmup_from_floor", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(floor + (peak - floor) * step / warmup)    # warm up from the floor
    if step >= total:
        return float(floor)
    return float(floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
'''}, "Warms up from floor to peak instead of from 0. Breaks 'peak · step / warmup  for step <= warmup'.")

# ---------------------------------------------------------------- correct
add("C1_decoder_io_where_eos", True, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    bos = torch.full((B, 1), BOS, dtype=targets.dtype)
    shifted = torch.cat([bos, targets[:, :-1]], dim=1)[:, :T]
    # the shifted EOS is the only token that lands on a PAD target
    tgt_in = torch.where(shifted == EOS, torch.tensor(PAD, dtype=targets.dtype), shifted)
    return tgt_in, targets.clone()
'''}, "correct: the EOS moved right lands exactly where tgt_out is PAD (or falls off the end).")

add("C2_lr_reordered", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step <= warmup:
        return step / warmup * peak
    if step < total:
        t = (step - warmup) / (total - warmup)
        return 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * t)) + floor
    return floor * 1.0
'''}, "correct: another order of the same arithmetic; float on every branch (floor * 1.0, a Python int times a float).")

add("C3_min_loss_torch_entr", True, {"min_loss": '''
q = torch.full((8000,), 0.1 / 8000, dtype=torch.float64)
q[0] += 0.9
min_smoothed_loss = float(torch.special.entr(q).sum())   # the minimum of the cross-entropy is the entropy of q
'''}, "correct: the cross-entropy H(q, p) is smallest at p = q, where it is the entropy of q.")

add("C4_sentence_loss_f64_colmask", True, {"sentence_loss": '''
import torch.nn.functional as F

def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = F.log_softmax(logits.to(torch.float64), dim=-1)
    cols = torch.arange(V) != PAD
    t = targets.to(torch.int64)
    nll = -logp.gather(-1, t[..., None])[..., 0]
    smooth = -logp[..., cols].sum(-1) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    real = t != PAD
    per_tok = torch.where(real, ell, torch.zeros_like(ell))
    cnt = real.sum(-1)
    keep = cnt > 0
    loss = (per_tok.sum(-1)[keep] / cnt[keep]).mean()
    return loss.to(logits.dtype)
'''}, "correct: float64 inside and a cast back; the sum over non-PAD ids by a boolean column mask.")

add("C5_average_stack_pop_restore", True, {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty list")
    last = states.pop()              # put back below
    try:
        names = set(last.keys())
        for s in states:
            if set(s.keys()) != names:
                raise ValueError("keys differ")
            for n in names:
                if tuple(s[n].shape) != tuple(last[n].shape):
                    raise ValueError("shapes differ")
        out = {}
        for n, t in last.items():
            if torch.is_floating_point(t):
                wide = torch.float64 if t.dtype == torch.float64 else torch.float32
                stacked = torch.stack([s[n].to(wide) for s in states] + [t.to(wide)])
                out[n] = stacked.mean(dim=0).to(t.dtype)
            else:
                out[n] = t.clone()
        return out
    finally:
        states.append(last)
'''}, "correct: takes the last state off the list and always puts it back (the list holds the same dict objects "
      "after the call); stack + mean in float32/float64; integers copied from the last state.")

add("C6_sample_per_row_draws", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = {i: [] for i in range(len(starts))}
    alive = list(range(len(starts)))
    steps = 0
    while alive and steps < max_len:
        steps += 1
        lp = next_logprobs([[starts[i]] + seqs[i] for i in alive])
        scores = lp.div(temperature)
        if top_k is not None:
            kk = min(top_k, scores.shape[-1])
            top = scores.topk(kk, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, top.indices, top.values)
        probs = torch.softmax(scores, dim=-1)
        still = []
        for row, i in enumerate(alive):           # one call per row, in index order
            t = int(torch.multinomial(probs[row], 1, generator=generator).item())
            seqs[i].append(t)
            if t != EOS and len(seqs[i]) < max_len:
                still.append(i)
        alive = still
    return [seqs[i] for i in range(len(starts))]
'''}, "correct: one multinomial call per row in index order (allowed), top-k by scattering topk's values into -inf.")

add("C7_beam_python_floats", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [(0.0, [])]
    done = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for _, toks in live])
        rows = lp.tolist()                        # Python floats are float64
        cands = []
        for (s, toks), row in zip(live, rows):
            for t, v in enumerate(row):
                cands.append((s + v, toks + [t]))
        cands.sort(key=lambda c: c[0], reverse=True)
        live = []
        for s, toks in cands[:k]:
            if toks[-1] == EOS:
                done.append((s / length_penalty(len(toks), alpha), toks))
            else:
                live.append((s, toks))
    done.extend((s / length_penalty(len(toks), alpha), toks) for s, toks in live)
    return max(done, key=lambda d: d[0])[1]
'''}, "correct: the same rule with Python float64 sums and a stable sort.")

add("C8_bleu_prod_zip", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    match = [0, 0, 0, 0]
    count = [0, 0, 0, 0]
    hyp_len = ref_len = 0
    for h, ref in zip(hypotheses, references):
        h, ref = list(h), list(ref)
        hyp_len += len(h)
        ref_len += len(ref)
        for n in (1, 2, 3, 4):
            hg = Counter(zip(*(h[i:] for i in range(n))))
            rg = Counter(zip(*(ref[i:] for i in range(n))))
            match[n - 1] += sum((hg & rg).values())
            count[n - 1] += sum(hg.values())
    if any(c == 0 for c in count) or any(m == 0 for m in match):
        return 0.0
    prec = [m / c for m, c in zip(match, count)]
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return 100.0 * bp * math.prod(prec) ** 0.25
'''}, "correct: Counter intersection for the clipping, the geometric mean as the 4th root of the product.")

# ---------------------------------------------------------------- hostile
add("H1_sentence_loss_borrow_reference", False, {"sentence_loss": '''
import sys

def sentence_smoothed_loss(logits, targets, eps):
    # look for a reference implementation in the caller's namespaces
    f = sys._getframe(1)
    while f is not None:
        for space in (f.f_locals, f.f_globals):
            for name, obj in list(space.items()):
                if callable(obj) and obj is not sentence_smoothed_loss and "smoothed" in str(name).lower():
                    try:
                        return obj(logits, targets, eps)
                    except Exception:
                        pass
        f = f.f_back
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, -1)
    t = targets.long()
    real = t != PAD
    ell = -(1 - eps) * logp.gather(-1, t[..., None])[..., 0] - eps / (V - 1) * logp[..., 1:].sum(-1)
    return ell[real].mean()
'''}, "hostile: calls whatever 'smoothed' function it finds in the grader's frames; falls back to a token-level mean.")


# dropped before grading (the text names each of these mistakes outright; kept here for the record):
DROPPED = ['G4_sample_global_max_softmax', 'E4_sample_tiny_temperature_greedy', 'X1_sample_copy_of_generator']
SUBMISSIONS = [s for s in SUBMISSIONS if s['name'] not in DROPPED]
