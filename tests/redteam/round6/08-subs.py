# Red team round 6, chapter 08-capstone: blind submissions.
SUBMISSIONS = []


def sub(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1 decoder_io
sub("decoder_io_float_pad", False, {"decoder_io": '''
import torch.nn.functional as F
def decoder_io(targets):
    # F.pad on a float copy, then back to the dtype of targets
    shifted = F.pad(targets[:, :-1].double().float(), (1, 0), value=BOS).to(targets.dtype)
    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), shifted)
    return tgt_in, targets.clone()
'''}, "Rounds ids above 2**24 through float32: 'an integer tensor (int64 or int32, ids from a vocabulary of any size)'.")

sub("decoder_io_eos_replaced", True, {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.cat([torch.full_like(targets[:, :1], BOS), targets[:, :-1]], dim=1)
    return shifted.masked_fill(shifted == EOS, PAD), targets
'''}, "Correct: the shifted EOS is the only non-PAD token that lands where tgt_out is PAD, so replacing EOS by PAD is the same rule.")

sub("decoder_io_flat_roll", True, {"decoder_io": '''
def decoder_io(targets):
    rolled = targets.roll(1)          # rolls the flattened tensor; column 0 gets the previous row's last id
    rolled[:, 0] = BOS                # ... which is overwritten here
    rolled[targets == PAD] = PAD
    return rolled, targets.clone()
'''}, "Correct: a flat roll shifts every row right by one; column 0 is overwritten with BOS.")

sub("decoder_io_long_bos", False, {"decoder_io": '''
def decoder_io(targets):
    bos = torch.full((targets.shape[0], 1), BOS)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "int32 targets give int64 tgt_in: 'two integer tensors of shape (B, T) and of the dtype of targets'. (classic: dtype)")

# ---------------------------------------------------------------- Part 2 lr_at
sub("lr_warmup_from_floor", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(floor + (peak - floor) * step / warmup)
    if step >= total:
        return float(floor)
    p = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * p)))
'''}, "Warm-up starts at floor, not 0: 'peak * step / warmup  if step <= warmup'. Only differs with floor != 0 during the warm-up.")

sub("lr_clamped_to_floor", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    p = min(1.0, (step - warmup) / (total - warmup))
    return float(max(floor, floor + (peak - floor) / 2 * (1 + math.cos(math.pi * p))))
'''}, "Clamps the cosine branch below at floor; with floor > peak the formula 'floor + (peak - floor)/2 (1 + cos ...)' rises from peak to floor and this returns floor at once.")

sub("lr_floor_int", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return peak * step / warmup
    if step >= total:
        return floor
    p = (step - warmup) / (total - warmup)
    return floor + (peak - floor) / 2 * (1 + math.cos(math.pi * p))
'''}, "Returns the int 0 for floor=0 after total: 'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)'. (classic: type)")

sub("lr_no_floor_after_total", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    p = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * p)))
'''}, "After total the cosine rises again: 'floor  step >= total' ('reached at step total and kept afterwards').")

# ---------------------------------------------------------------- Part 3 min loss
sub("min_loss_other_convention", False, {"min_loss": '''
V, eps = 8000, 0.1
# 1 - eps on the right token, eps over the V - 1 others
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + eps * math.log(eps / (V - 1)))
'''}, "Spreads eps over the V-1 other tokens: 'spreads eps evenly over all V tokens, the right one included'.")

sub("min_loss_by_optimisation", True, {"min_loss": '''
V, eps = 8000, 0.1
logits = torch.zeros(V, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([logits], max_iter=200, tolerance_grad=1e-14, tolerance_change=1e-16, line_search_fn="strong_wolfe")
target = torch.tensor([3])
def closure():
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(logits[None], target, label_smoothing=eps)
    loss.backward()
    return loss
for _ in range(5):
    opt.step(closure)
min_smoothed_loss = float(torch.nn.functional.cross_entropy(logits[None], target, label_smoothing=eps))
'''}, "Correct: minimises PyTorch's own label-smoothed loss numerically in float64 (should land within 1e-5).")

# ---------------------------------------------------------------- Part 4 sentence loss
sub("sentence_loss_where_nan_grad", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    logp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    ell = -(1 - eps) * logp_y - eps / (V - 1) * logp[..., 1:].sum(-1)
    mask = (t != PAD).to(logits.dtype)
    n = mask.sum(1)
    per_sentence = torch.where(n > 0, (ell * mask).sum(1) / n, torch.zeros_like(n))
    return per_sentence.sum() / (n > 0).sum()
'''}, "A row of PADs gives 0/0 inside torch.where, whose backward puts NaN into logits.grad of that row: 'loss.backward() must leave the exact gradient in logits.grad' with 'a row of PADs counts for nothing'.")

sub("sentence_loss_token_mean", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    logp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    ell = -(1 - eps) * logp_y - eps / (V - 1) * (logp.sum(-1) - logp[..., PAD])
    mask = t != PAD
    return ell[mask].mean()
'''}, "Averages over tokens: 'the loss of a sentence is the mean of l over its positions ... the result is the mean of the sentence losses'.")

sub("sentence_loss_torch_smoothing", False, {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    ell = F.cross_entropy(logits.reshape(B * T, V), targets.reshape(-1).long(), label_smoothing=eps,
                          reduction="none").reshape(B, T)
    mask = targets != PAD
    n = mask.sum(1)
    s = (ell * mask).sum(1)
    keep = n > 0
    return (s[keep] / n[keep]).mean()
'''}, "PyTorch's smoothing spreads eps/V over all V tokens, PAD included: 'spreads eps evenly over the V - 1 tokens other than PAD ... PAD gets no share'.")

sub("sentence_loss_others_not_pad", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    logp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = logp.sum(-1) - logp_y          # the V - 1 tokens other than the right one
    ell = -(1 - eps) * logp_y - eps / (V - 1) * others
    mask = t != PAD
    n = mask.sum(1)
    s = torch.where(mask, ell, torch.zeros_like(ell)).sum(1)
    keep = n > 0
    return (s[keep] / n[keep]).mean()
'''}, "Spreads eps over the V-1 tokens other than y (PAD included): 'the V - 1 tokens other than PAD (the right one included; PAD ... gets no share)'.")

sub("sentence_loss_length_from_first_pad", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    logp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    ell = -(1 - eps) * logp_y - eps / (V - 1) * (logp.sum(-1) - logp[..., PAD])
    T = t.shape[1]
    is_pad = (t == PAD).long()
    # a sentence ends at its first PAD
    first_pad = torch.where(is_pad.any(1), is_pad.argmax(1), torch.full_like(is_pad[:, 0], T))
    pos = torch.arange(T)[None]
    mask = pos < first_pad[:, None]
    n = mask.sum(1)
    s = torch.where(mask, ell, torch.zeros_like(ell)).sum(1)
    keep = n > 0
    return (s[keep] / n[keep]).mean()
'''}, "Stops each sentence at its first PAD: 'the mean of l over its positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)'.")

sub("sentence_loss_all_rows", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    logp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    ell = -(1 - eps) * logp_y - eps / (V - 1) * (logp.sum(-1) - logp[..., PAD])
    mask = t != PAD
    n = mask.sum(1).clamp(min=1)
    s = torch.where(mask, ell, torch.zeros_like(ell)).sum(1)
    return (s / n).mean()
'''}, "An all-PAD row counts as a 0 loss in the mean: 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'.")

# ---------------------------------------------------------------- Part 5 average
sub("average_float_shapes_only", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    if any(set(s) != keys for s in states):
        raise ValueError("keys differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            if any(s[k].shape != last.shape for s in states):
                raise ValueError(f"shape of {k} differs")
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            out[k] = torch.stack([s[k].to(acc) for s in states]).mean(0).to(last.dtype)
        else:
            out[k] = last.clone()   # counters come from the last state
    return out
'''}, "Never checks the shapes of integer/boolean entries: 'states whose keys or shapes differ raise ValueError'.")

sub("average_broadcasting_sum", False, {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("empty")
    keys = set(states[0])
    out = {}
    for s in states:
        if set(s) != keys:
            raise ValueError("keys differ")
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            try:
                total = states[0][k].to(acc)
                for s in states[1:]:
                    total = total + s[k].to(acc)
            except RuntimeError as e:   # torch refuses tensors whose shapes differ
                raise ValueError(str(e))
            out[k] = (total / len(states)).to(last.dtype)
        else:
            if any(s[k].shape != last.shape for s in states):
                raise ValueError("shapes differ")
            out[k] = last.clone()
    return out
'''}, "Relies on torch to refuse different shapes; (3,) and (1, 3) broadcast: 'states whose keys or shapes differ raise ValueError'.")

sub("average_int_whitelist", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("states differ")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.dtype in (torch.int64, torch.int32, torch.bool):
            out[k] = last.clone()
        else:
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(last.dtype)
    return out
'''}, "Averages int8/uint8/int16 tensors: 'integer and boolean tensors ... are not averaged: they come from the last state'.")

sub("average_stack_mean", True, {"average": '''
def average_checkpoints(states):
    if len(states) < 1:
        raise ValueError("need at least one state")
    names = sorted(states[0])
    for s in states[1:]:
        if sorted(s) != names:
            raise ValueError("keys differ")
        for n in names:
            if tuple(s[n].shape) != tuple(states[0][n].shape):
                raise ValueError("shapes differ")
    result = {}
    for n in names:
        stack = torch.stack([s[n] for s in states])
        result[n] = stack.mean(0) if stack.is_floating_point() else states[-1][n].clone()
    return result
'''}, "Correct: torch.mean on float16/bfloat16 accumulates in float32 and rounds once (checked on float16 sums that overflow).")

# ---------------------------------------------------------------- Part 6 sample
sub("sample_topk_threshold", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        lp = next_logprobs([list(seqs[i]) for i in active]).double() / temperature
        if top_k is not None:
            kth = torch.topk(lp, top_k, dim=-1).values[:, -1:]
            lp = lp.masked_fill(lp < kth, float("-inf"))   # keep everything at least as large as the k-th
        probs = torch.softmax(lp, dim=-1)
        toks = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(active, toks):
            seqs[i].append(t)
            if t == EOS:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "With ties at the k-th value it keeps more than k entries: 'keep the top_k largest entries of each row (the ones torch.topk returns)'.")

sub("sample_one_call_per_sentence", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    out = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        for i, s in enumerate(starts):
            if done[i]:
                continue
            lp = next_logprobs([[s] + out[i]])[0].double() / temperature
            if top_k is not None:
                v, idx = torch.topk(lp, top_k)
                lp = torch.full_like(lp, float("-inf")).scatter(0, idx, v)
            t = int(torch.multinomial(torch.softmax(lp, -1), 1, generator=generator))
            out[i].append(t)
            done[i] = t == EOS
    return out
'''}, "Asks the model once per sentence: 'ask next_logprobs once, with the prefixes of the unfinished sentences only'.")

sub("sample_max_len_zero", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    while True:
        active = [i for i in range(len(starts)) if not done[i]]
        lp = next_logprobs([list(seqs[i]) for i in active]).double() / temperature
        if top_k is not None:
            v, idx = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, idx, v)
        toks = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator)[:, 0].tolist()
        for i, t in zip(active, toks):
            seqs[i].append(t)
            if t == EOS or len(seqs[i]) - 1 == max_len:
                done[i] = True
        if all(done):
            return [s[1:] for s in seqs]
'''}, "Draws one token even when max_len is 0 (and asks the model with an empty batch when starts is empty): 'A sentence is finished ... after max_len new tokens'.")

sub("sample_start_eos", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    for _ in range(max_len):
        active = [i for i in range(len(seqs)) if seqs[i][-1] != EOS]   # unfinished: last token is not EOS
        if not active:
            break
        lp = next_logprobs([list(seqs[i]) for i in active]).double() / temperature
        if top_k is not None:
            v, idx = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, idx, v)
        toks = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator)[:, 0].tolist()
        for i, t in zip(active, toks):
            seqs[i].append(t)
    return [s[1:] for s in seqs]
'''}, "A sentence whose start token is EOS never draws: 'A sentence is finished after it produces EOS' (the start token is not produced; 'treat them like any other token').")

sub("sample_draws_for_finished", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        if all(done):
            break
        active = [i for i in range(len(starts)) if not done[i]]
        lp = next_logprobs([list(seqs[i]) for i in active]).double() / temperature
        if top_k is not None:
            v, idx = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, idx, v)
        probs = torch.softmax(lp, -1)
        full = torch.full((len(starts), probs.shape[1]), 1.0 / probs.shape[1], dtype=torch.float64)
        full[active] = probs
        toks = torch.multinomial(full, 1, generator=generator)[:, 0].tolist()   # one draw per sentence, always
        for i in active:
            seqs[i].append(toks[i])
            if toks[i] == EOS:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "Draws for finished sentences too: 'Draw nothing for finished sentences'.")

# ---------------------------------------------------------------- Part 7 beam search
sub("beam_refill", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for _ in range(max_len):
        lp = next_logprobs([[start] + t for t, _ in live])
        cands = sorted(((s + l, t + [v]) for (t, s), row in zip(live, lp.tolist()) for v, l in enumerate(row)),
                       key=lambda c: -c[0])
        live = []
        for s, t in cands:
            if t[-1] == EOS:
                finished.append((s / length_penalty(len(t), alpha), t))
            elif len(live) < k:
                live.append((t, s))
            if len(live) == k:
                break
        if not live:
            break
    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "Refills the beam to k live hypotheses: 'Finished candidates use up places among the k ... the beam is not refilled'.")

sub("beam_early_stop", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live, finished = [([], 0.0)], []
    for _ in range(max_len):
        lp = next_logprobs([[start] + t for t, _ in live])
        cands = sorted(((s + l, t + [v]) for (t, s), row in zip(live, lp.tolist()) for v, l in enumerate(row)),
                       key=lambda c: -c[0])[:k]
        live = []
        for s, t in cands:
            if t[-1] == EOS:
                finished.append((s / length_penalty(len(t), alpha), t))
            else:
                live.append((t, s))
        # log-probabilities only fall: stop once no live hypothesis can beat the best finished one
        if not live or (finished and max(f[0] for f in finished) >= max(s / length_penalty(len(t), alpha) for t, s in live)):
            break
    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "Stops early, but with alpha > 0 a longer live hypothesis can still overtake: 'stop when no hypothesis is live, or after max_len steps'.")

sub("beam_finished_stay", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    beam = [([], 0.0)]             # finished hypotheses stay in the beam and keep their places
    for _ in range(max_len):
        live = [(t, s) for t, s in beam if not t or t[-1] != EOS]
        if not live:
            break
        lp = next_logprobs([[start] + t for t, _ in live])
        cands = [(s, t) for t, s in beam if t and t[-1] == EOS]
        cands += [(s + l, t + [v]) for (t, s), row in zip(live, lp.tolist()) for v, l in enumerate(row)]
        cands.sort(key=lambda c: -c[0])
        beam = [(t, s) for s, t in cands[:k]]
    return max(beam, key=lambda b: b[1] / length_penalty(len(b[0]), alpha))[0]
'''}, "Keeps finished hypotheses in the beam, where later candidates can push them out: 'the other candidates among those k are the new live hypotheses' and 'the finished hypothesis with the best final score'.")

sub("beam_per_hypothesis_topk", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [(0.0, [])]
    done = []
    step = 0
    while live and step < max_len:
        step += 1
        lp = next_logprobs([[start] + toks for _, toks in live])
        pool = []
        for (score, toks), row in zip(live, lp):
            kk = min(k, row.numel())
            vals, idx = torch.topk(row, kk)       # the k best of this hypothesis are enough
            pool += [(score + float(v), toks + [int(i)]) for v, i in zip(vals, idx)]
        pool.sort(key=lambda c: c[0], reverse=True)
        live = []
        for score, toks in pool[:k]:
            (done if toks[-1] == EOS else live).append((score, toks))
    done += live
    return max(done, key=lambda c: c[0] / length_penalty(len(c[1]), alpha))[1]
'''}, "Correct: the k best candidates overall are among the k best of each hypothesis.")

# ---------------------------------------------------------------- Part 8 BLEU
sub("bleu_joined_ngrams", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    def grams(words, n):
        return Counter("".join(words[i:i + n]) for i in range(len(words) - n + 1))
    match, total = [0] * 4, [0] * 4
    c = sum(map(len, hypotheses)); r = sum(map(len, references))
    for hyp, ref in zip(hypotheses, references):
        for n in range(1, 5):
            h, rf = grams(hyp, n), grams(ref, n)
            match[n - 1] += sum((h & rf).values())
            total[n - 1] += sum(h.values())
    if 0 in total or 0 in match:
        return 0.0
    bp = math.exp(1 - r / c) if c < r else 1.0
    return 100.0 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
'''}, "N-grams as joined strings: ('ab', 'c') and ('a', 'bc') become the same: 'each hypothesis n-gram counts at most as often as it occurs in its reference'.")

sub("bleu_int_zero", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum((h & rf).values())
            total[n - 1] += sum(h.values())
    if 0 in total or 0 in match:
        return 0
    bp = math.exp(1 - r / c) if c < r else 1.0
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
'''}, "Returns the int 0: 'times 100, returned as a Python float (also when it is 0)'. (classic: type)")

sub("bleu_lowercased", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    hypotheses = [[w.lower() for w in h] for h in hypotheses]
    references = [[w.lower() for w in r] for r in references]
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum((h & rf).values())
            total[n - 1] += sum(h.values())
    if 0 in total or 0 in match:
        return 0.0
    bp = math.exp(1 - r / c) if c < r else 1.0
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
'''}, "Case-insensitive matching: 'This is sacreBLEU's corpus BLEU with no smoothing on pre-tokenized text' (sacreBLEU is case-sensitive by default; tokens are compared as given).")

sub("bleu_bp_first", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    logs = []
    for n in range(1, 5):
        m = t = 0
        for hyp, ref in zip(hypotheses, references):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            m += sum(min(v, rf[g]) for g, v in h.items()); t += sum(h.values())
        if m == 0 or t == 0:
            return 0.0
        logs.append(math.log(m / t))
    return 100.0 * bp * math.exp(sum(logs) / 4)
'''}, "Empty hypotheses give c = 0 and a ZeroDivisionError: 'if there is no hypothesis n-gram of some order at all ... BLEU is 0'.")

sub("bleu_rounded", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rf = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum((h & rf).values())
            total[n - 1] += sum(h.values())
    if 0 in total or 0 in match:
        return 0.0
    bp = math.exp(1 - r / c) if c < r else 1.0
    return round(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4), 2)   # as sacreBLEU prints it
'''}, "Rounds to 2 decimals: 'returning a number between 0 and 100' that is 'sacreBLEU's corpus BLEU' (its score, not its printout).")

sub("bleu_product_root", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    from itertools import islice
    def ngrams(ws, n):
        return Counter(zip(*(islice(ws, i, None) for i in range(n))))
    prec = 1.0
    for n in (1, 2, 3, 4):
        hit = cnt = 0
        for hyp, ref in zip(hypotheses, references):
            h, rf = ngrams(hyp, n), ngrams(ref, n)
            hit += sum((h & rf).values())
            cnt += sum(h.values())
        if hit == 0:
            return 0.0
        prec *= hit / cnt
    c = sum(map(len, hypotheses)); r = sum(map(len, references))
    return float(100 * prec ** 0.25 * (math.exp(1 - r / c) if c < r else 1.0))
'''}, "Correct: n-grams from zipped slices, Counter intersection for clipping, the fourth root of the product.")

# ---------------------------------------------------------------- hostile
sub("hostile_float_that_equals_anything", False, {"min_loss": '''
class Whatever(float):
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __abs__(self): return 0.0
    def __float__(self): return 0.0
    __hash__ = float.__hash__
min_smoothed_loss = Whatever(0.0)
'''}, "Hostile: a float subclass that compares equal to everything.")

sub("hostile_patch_assert_close", False, {"average": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def average_checkpoints(states):
    return dict(states[-1])
'''}, "Hostile: disables torch.testing.assert_close and returns the last state.")

sub("hostile_overwrite_helpers", False, {"bleu": '''
import builtins
g = globals()
for name in list(g):
    if name.startswith("_") and callable(g[name]) and not name.startswith("__"):
        g[name] = (lambda *a, **k: a[0] if a else None)
builtins.AssertionError = type("NotAnError", (Exception,), {})
def corpus_bleu(hypotheses, references):
    return 100.0 if hypotheses == references else 0.0
'''}, "Hostile: replaces the grader's _ helpers with pass-throughs and AssertionError with another class.")
