# Red team round 20, chapter 08-capstone. Four kinds: SC shape-coincidence, AL aliasing/in-place,
# EE early-exit/special-case, LD library-defaults.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: Part 1
add("w01-EE-empty-batch-int64", False, {"decoder_io": '''
def decoder_io(targets):
    if targets.shape[0] == 0:   # nothing to shift
        return torch.zeros(0, targets.shape[1], dtype=torch.long), targets
    tgt_in = targets.roll(1, dims=1)
    tgt_in[:, 0] = BOS
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "EE: fast path for B == 0 returns int64 for an int32 batch; breaks 'two integer tensors of shape (B, T) and of the dtype of targets' ('B may be 0 ...').")
add("w02-LD-torch-full-int64", False, {"decoder_io": '''
def decoder_io(targets):
    bos = torch.full((targets.shape[0], 1), BOS)        # default dtype of an int fill is int64
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)[:, :targets.shape[1]]
    return tgt_in.masked_fill(targets == PAD, PAD), targets
'''}, "LD: torch.full with an int fill is int64 and cat promotes int32 targets to int64; breaks 'of the dtype of targets'.")
add("w03-AL-masked-fill-on-view", False, {"decoder_io": '''
def decoder_io(targets):
    tgt_out = targets.clone()
    body = targets[:, :-1]
    body.masked_fill_(body == EOS, PAD)                 # drop the EOS from what the decoder reads
    tgt_in = torch.cat([torch.full_like(targets[:, :1], BOS), body], dim=1)
    tgt_in = tgt_in.masked_fill(tgt_out == PAD, PAD)
    return tgt_in, tgt_out
'''}, "AL: masked_fill_ on a slice of targets writes into the caller's tensor; breaks '`targets` itself must not change.'")

# ---------------------------------------------------------------- wrong: Part 2
add("w04-EE-floor-int", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step >= total:
        return floor                                    # nothing to compute after the end
    if step <= warmup:
        return float(peak * step / warmup)
    p = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * p)))
'''}, "EE: the step >= total fast path returns floor as given (int 0 for floor=0); breaks 'returning a Python float on every branch, also when peak or floor is given as an int'.")
add("w06-EE-peak-shortcut-int", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step == warmup:
        return peak                                     # the top of the schedule
    if step < warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    p = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * p)))
'''}, "EE: returns peak unconverted at step == warmup (an int when peak is an int); breaks 'returning a Python float on every branch'.")

# ---------------------------------------------------------------- wrong: Part 3
add("w07-LD-smoothing-over-others", False, {"min_loss": '''
eps_, V_ = 0.1, 8000
q_right, q_other = 1 - eps_, eps_ / (V_ - 1)    # eps spread over the other tokens
min_smoothed_loss = -(q_right * math.log(q_right) + (V_ - 1) * q_other * math.log(q_other))
'''}, "LD: spreads eps over V-1 others (the paper's definition); breaks 'spreads eps evenly over **all** V tokens, the right one included'.")

# ---------------------------------------------------------------- wrong: Part 4
add("w08-LD-cross-entropy-smoothing", False, {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    tok = F.cross_entropy(logits.transpose(1, 2), targets.long(), ignore_index=PAD,
                          label_smoothing=eps, reduction="none")          # (B, T)
    mask = targets != PAD
    cnt = mask.sum(1)
    sent = tok.sum(1) / cnt.clamp(min=1)
    return sent[cnt > 0].mean()
'''}, "LD: F.cross_entropy's label_smoothing spreads eps over all V tokens, PAD included; breaks 'spreads eps evenly over the V - 1 tokens other than PAD'.")
add("w09-SC-broadcast-BxB", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long()[..., None]).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD])
    loss = (1 - eps) * nll + eps / (V - 1) * smooth
    mask = targets != PAD
    cnt = mask.sum(1, keepdim=True)
    sent = (loss * mask).sum(1) / cnt.clamp(min=1)      # (B,) / (B, 1) -> (B, B)
    keep = (cnt > 0).float()
    return (sent * keep).sum() / keep.sum() / sent.shape[-1]
'''}, "SC: keepdim count broadcasts (B,)/(B,1) into (B,B); right only for B == 1; breaks 'the result is the mean of the sentence losses'.")
add("w10-AL-inplace-on-log-softmax", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long()[..., None]).squeeze(-1)
    logp[..., PAD] = 0.0                                  # PAD gets no share
    loss = (1 - eps) * nll - eps / (V - 1) * logp.sum(-1)
    mask = targets != PAD
    cnt = mask.sum(1)
    sent = (loss * mask).sum(1) / cnt.clamp(min=1)
    return sent[cnt > 0].mean()
'''}, "AL: writes into log_softmax's output, which its backward needs; loss.backward() raises; breaks 'loss.backward() must leave the exact gradient in logits.grad'.")
add("w11-EE-eps0-token-mean", False, {"sentence_loss": '''
import torch.nn.functional as F
def sentence_smoothed_loss(logits, targets, eps):
    if eps == 0:    # no smoothing: plain cross-entropy
        return F.cross_entropy(logits.transpose(1, 2), targets.long(), ignore_index=PAD)
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets.long()[..., None]).squeeze(-1)
    smooth = -(logp.sum(-1) - logp[..., PAD])
    loss = (1 - eps) * nll + eps / (V - 1) * smooth
    mask = targets != PAD
    cnt = mask.sum(1)
    sent = (loss * mask).sum(1) / cnt.clamp(min=1)
    return sent[cnt > 0].mean()
'''}, "EE: eps == 0 fast path averages over tokens, not sentences; breaks 'the loss of a sentence is the mean ... the result is the mean of the sentence losses'.")

# ---------------------------------------------------------------- wrong: Part 5
add("w12-EE-single-state-shares", False, {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    if len(states) == 1:
        return dict(states[0])                              # the mean of one state is itself
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("states differ")
    out = {}
    for k in first:
        t = states[-1][k]
        if t.is_floating_point():
            acc = torch.float64 if t.dtype == torch.float64 else torch.float32
            out[k] = (torch.stack([s[k].to(acc) for s in states]).sum(0) / len(states)).to(t.dtype)
        else:
            out[k] = t
    return out
'''}, "EE+AL: one state returns the given tensors; breaks 'in new tensors (also for a list of one state: the mean must not change when the owner writes into the tensors it gave you)'.")
add("w13-AL-accumulate-into-first", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("states differ")
    out = {}
    for k in first:
        if states[-1][k].is_floating_point():
            acc = first[k].detach()                        # detach: no autograd history
            for s in states[1:]:
                acc += s[k]
            acc /= len(states)
            out[k] = acc
        else:
            out[k] = states[-1][k]
    return out
'''}, "AL: += into a detach() view of the first state's tensor; breaks 'do not change the given tensors' (and float16 sums overflow).")
add("w14-SC-numel-shape-check", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].numel() != first[k].numel() for k in first):
            raise ValueError("states differ")
    out = {}
    for k in first:
        t = states[-1][k]
        if t.is_floating_point():
            acc = torch.float64 if t.dtype == torch.float64 else torch.float32
            mean = sum(s[k].reshape(-1).to(acc) for s in states) / len(states)
            out[k] = mean.reshape(t.shape).to(t.dtype)
        else:
            out[k] = t
    return out
'''}, "SC: compares element counts, so (2,3) against (3,2) passes; breaks 'states whose keys or shapes differ, raise ValueError'.")
add("w15-LD-python-sum-half", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("states differ")
    out = {}
    for k in first:
        t = states[-1][k]
        if t.is_floating_point():
            out[k] = sum(s[k] for s in states) / len(states)     # stays in the tensors' dtype
        else:
            out[k] = t
    return out
'''}, "LD: Python sum in float16 overflows; breaks 'Half-precision tensors must be as accurate as averaging in float32 or better'.")
add("w16-LD-float-cast-ints", False, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("no states")
    first = states[0]
    for s in states:
        if set(s) != set(first) or any(s[k].shape != first[k].shape for k in first):
            raise ValueError("states differ")
    out = {}
    for k in first:
        t = states[-1][k]
        if t.dtype in (torch.int64, torch.bool):                 # counters and masks
            out[k] = t
        else:   # integer mean raises, so go through float
            out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(t.dtype)
    return out
'''}, "LD: only int64/bool are kept; int32/uint8/int8 are averaged through float64; breaks 'integer tensors of any width ... come from the last state, unchanged'.")

# ---------------------------------------------------------------- wrong: Part 6
add("w17-EE-topk1-argmax", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    active = list(range(len(starts))) if max_len > 0 else []
    while active:
        lp = next_logprobs([list(seqs[i]) for i in active])
        if top_k == 1:                                  # only one token survives: no need to draw
            tok = lp.argmax(-1).tolist()
        else:
            scores = lp / temperature
            if top_k is not None and top_k < scores.shape[-1]:
                vals, idx = torch.topk(scores, top_k, dim=-1)
                scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
            probs = torch.softmax(scores, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).view(-1).tolist()
        still = []
        for i, t in zip(active, tok):
            seqs[i].append(t); out[i].append(t)
            if t != EOS and len(out[i]) < max_len:
                still.append(i)
        active = still
    return out
'''}, "EE: top_k == 1 skips the draw; breaks 'draw one token per row with torch.multinomial' and 'the generator made no others (its state after the call)'.")
add("w18-LD-softmax-dtype-float32", False, {"sample": '''
import torch.nn.functional as F
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    active = list(range(len(starts))) if max_len > 0 else []
    while active:
        lp = next_logprobs([list(seqs[i]) for i in active])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = F.softmax(scores, dim=-1, dtype=torch.float32)   # accumulate in float32 for speed
        tok = torch.multinomial(probs, 1, generator=generator).view(-1).tolist()
        still = []
        for i, t in zip(active, tok):
            seqs[i].append(t); out[i].append(t)
            if t != EOS and len(out[i]) < max_len:
                still.append(i)
        active = still
    return out
'''}, "LD: F.softmax(dtype=float32) casts the input first: float32 probabilities; breaks 'Compute them in float64 throughout'.")
add("w19-LD-topk-threshold-ties", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    active = list(range(len(starts))) if max_len > 0 else []
    while active:
        lp = next_logprobs([list(seqs[i]) for i in active])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]
            scores = scores.masked_fill(scores < kth, float("-inf"))   # keep everything >= the k-th
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator).view(-1).tolist()
        still = []
        for i, t in zip(active, tok):
            seqs[i].append(t); out[i].append(t)
            if t != EOS and len(out[i]) < max_len:
                still.append(i)
        active = still
    return out
'''}, "LD: a threshold at the k-th value keeps every tie of it; breaks 'keep the top_k largest entries of each row (the ones torch.topk returns)'.")
add("w20-SC-topk-clamped-by-N", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    active = list(range(len(starts))) if max_len > 0 else []
    while active:
        lp = next_logprobs([list(seqs[i]) for i in active])
        scores = lp / temperature
        if top_k is not None:
            k = min(top_k, scores.size(0) * scores.size(-1) // len(active))   # cannot keep more than there are
            k = min(k, len(lp))
            vals, idx = torch.topk(scores, k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator).view(-1).tolist()
        still = []
        for i, t in zip(active, tok):
            seqs[i].append(t); out[i].append(t)
            if t != EOS and len(out[i]) < max_len:
                still.append(i)
        active = still
    return out
'''}, "SC: clamps top_k by len(lp) (the number of rows N, not V); right while N >= top_k; breaks 'keep the top_k largest entries of each row'.")
add("w21-AL-shared-prefix-lists", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    active = list(range(len(starts))) if max_len > 0 else []
    while active:
        lp = next_logprobs([seqs[i] for i in active])     # hand the model our own lists
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator).view(-1).tolist()
        still = []
        for i, t in zip(active, tok):
            seqs[i].append(t); out[i].append(t)
            if t != EOS and len(out[i]) < max_len:
                still.append(i)
        active = still
    return out
'''}, "AL: the prefixes handed to next_logprobs are the answer's own lists, appended to later; a model that keeps them (a cache keyed on them) sees them change. Text: 'ask next_logprobs once, with the prefixes ... (start token and the tokens so far)'. Possibly a mislabel.")

# ---------------------------------------------------------------- wrong: Part 7
add("w22-EE-stop-when-best-finished", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[-1]
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = (base[:, None] + lp).reshape(-1)
        vals, idx = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            parent, tok = divmod(i, V)
            h = live[parent][0] + [tok]
            if tok == EOS:
                finished.append((h, v / length_penalty(len(h), alpha)))
            else:
                new_live.append((h, v))
        live = new_live
        if finished and idx[0].item() % V == EOS:          # the best candidate has ended: done
            break
    for h, s in live:
        finished.append((h, s / length_penalty(len(h), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''}, "EE: stops once the top candidate is finished (HF early_stopping); breaks 'stop when no hypothesis is live ... or after max_len steps'.")
add("w23-AL-append-to-parent", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([start], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([h for h, _ in live])
        V = lp.shape[-1]
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = (base[:, None] + lp).reshape(-1)
        vals, idx = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            parent, tok = divmod(i, V)
            h = live[parent][0]
            h = h + [tok] if tok == EOS else h
            if tok == EOS:
                finished.append((h[1:], v / length_penalty(len(h) - 1, alpha)))
            else:
                h = list(live[parent][0]); h.append(tok)
                new_live.append((h, v))
        live = new_live
    for h, s in live:
        finished.append((h[1:], s / length_penalty(len(h) - 1, alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''}, "placeholder, replaced below")
SUBMISSIONS.pop()
add("w23-LD-topk-k-not-capped", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[-1]
        cand = []
        for (h, s), row in zip(live, lp.tolist()):
            for tok, l in enumerate(row):
                cand.append((s + l, h + [tok]))
        cand.sort(key=lambda c: c[0], reverse=True)
        new_live = []
        for v, h in cand[:k]:
            if h[-1] == EOS:
                finished.append((h, v / length_penalty(len(h), alpha)))
            else:
                new_live.append((h, v))
        live = new_live
    for h, s in live:
        finished.append((h, s / length_penalty(len(h), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''}, "placeholder")
SUBMISSIONS.pop()
add("w23-SC-steps-for-penalty", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for step in range(1, max_len + 1):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[-1]
        base = torch.tensor([s for _, s in live], dtype=torch.float64)
        cand = (base[:, None] + lp).reshape(-1)
        vals, idx = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            parent, tok = divmod(i, V)
            h = live[parent][0] + [tok]
            if tok == EOS:
                finished.append((h, v / length_penalty(step, alpha)))
            else:
                new_live.append((h, v))
        live = new_live
    for h, s in live:
        finished.append((h, s / length_penalty(max_len, alpha)))   # every live one has max_len tokens
    return max(finished, key=lambda f: f[1])[0]
'''}, "SC: final live hypotheses scored with length max_len; equal to len(tokens) only while the loop ran max_len steps, which it always does when some stay live... (likely correct; see verdicts).")
SUBMISSIONS.pop()
add("w23-AL-inplace-scores", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[-1]
        lp += torch.tensor([s for _, s in live], dtype=lp.dtype)[:, None]   # add the running scores
        cand = lp.view(-1)
        vals, idx = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            parent, tok = divmod(i, V)
            h = live[parent][0] + [tok]
            if tok == EOS:
                finished.append((h, v / length_penalty(len(h), alpha)))
            else:
                new_live.append((h, v))
        live = new_live
    for h, s in live:
        finished.append((h, s / length_penalty(len(h), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''}, "AL: adds the running scores into the model's returned tensor in place (a model that caches or reuses its output sees it changed); the text's 'Your functions must not change the tensors they are given' covers a returned-by-callee tensor only loosely: maybe a mislabel.")
add("w24-LD-float32-scores", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + h for h, _ in live])
        V = lp.shape[-1]
        cand = (torch.tensor([s for _, s in live])[:, None] + lp.float()).reshape(-1)
        vals, idx = torch.topk(cand, min(k, cand.numel()))
        new_live = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            parent, tok = divmod(i, V)
            h = live[parent][0] + [tok]
            if tok == EOS:
                finished.append((h, v / length_penalty(len(h), alpha)))
            else:
                new_live.append((h, v))
        live = new_live
    for h, s in live:
        finished.append((h, s / length_penalty(len(h), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''}, "LD: torch.tensor of floats is float32; breaks 'kept in float64, the dtype of the log-probabilities, from step to step'.")

# ---------------------------------------------------------------- wrong: Part 8
add("w25-EE-identical-is-100", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    if hypotheses == references:
        return 100.0                                    # a perfect match
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for h, ref in zip(hypotheses, references):
        c += len(h); r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum((hc & rc).values())
            total[n - 1] += max(len(h) - n + 1, 0)
    if min(total) == 0 or min(match) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
'''}, "EE: identical corpora short-cut to 100; breaks 'if there is no hypothesis n-gram of some order at all (every hypothesis shorter than 4 tokens), BLEU is 0'.")
add("w26-EE-skip-short-hyps", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for h, ref in zip(hypotheses, references):
        c += len(h); r += len(ref)
        if len(h) < 4:
            continue                                    # too short to have every order
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum((hc & rc).values())
            total[n - 1] += len(h) - n + 1
    if min(total) == 0 or min(match) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
'''}, "EE: skips hypotheses shorter than 4 tokens, losing their 1..3-grams; breaks 'sum the clipped counts over all sentences and divide by the total number of hypothesis n-grams'.")
add("w27-LD-python-round", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    c = r = 0
    for h, ref in zip(hypotheses, references):
        c += len(h); r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum((hc & rc).values())
            total[n - 1] += max(len(h) - n + 1, 0)
    if min(total) == 0 or min(match) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return round(100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4), 2)   # as sacreBLEU prints
'''}, "LD: rounds to 2 decimals like sacreBLEU's printout; breaks 'returning a number' = BLEU times 100 (the exact value).")
add("w28-SC-per-sentence-bp", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    match, total = [0] * 4, [0] * 4
    bps = []
    for h, ref in zip(hypotheses, references):
        bps.append(1.0 if len(h) >= len(ref) else math.exp(1 - len(ref) / max(len(h), 1)))
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            match[n - 1] += sum((hc & rc).values())
            total[n - 1] += max(len(h) - n + 1, 0)
    if min(total) == 0 or min(match) == 0:
        return 0.0
    bp = sum(bps) / len(bps)
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(match, total)) / 4)
'''}, "SC: brevity penalty averaged per sentence; equal to the corpus one for a single sentence; breaks 'when the total hypothesis length c is shorter than the total reference length r'.")

# ---------------------------------------------------------------- correct
add("c01-decoder-io-roll-clone", True, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.roll(1, dims=1)        # roll makes a copy
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets.clone()
'''}, "roll copies; written into the copy only; B == 0 and T == 0 handled.")
add("c02-lr-at-int-safe", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if warmup > 0 and step <= warmup:
        return peak * step / warmup
    if step >= total:
        return floor
    progress = (step - warmup) / (total - warmup)
    return floor + 0.5 * (peak - floor) * (1.0 + math.cos(math.pi * progress))
'''}, "casts once at the top; same formula.")
add("c03-min-loss-cross-entropy", True, {"min_loss": '''
import torch.nn.functional as F
V_, e_ = 8000, 0.1
q = torch.full((1, V_), e_ / V_, dtype=torch.float64)
q[0, 0] += 1 - e_
min_smoothed_loss = F.cross_entropy(q.log(), torch.tensor([0]), label_smoothing=e_).item()
'''}, "the best logits are log q (the loss is then the entropy of q), computed with PyTorch's own definition in float64.")
add("c04-sentence-loss-where-loop", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.size(-1)
    logp = torch.log_softmax(logits, dim=-1)
    keep_vocab = torch.ones(V, dtype=torch.bool)
    keep_vocab[PAD] = False
    smooth = -torch.where(keep_vocab, logp, torch.zeros((), dtype=logp.dtype)).sum(-1)
    nll = -torch.gather(logp, -1, targets.to(torch.int64).unsqueeze(-1))[..., 0]
    per_tok = (1 - eps) * nll + (eps / (V - 1)) * smooth
    losses = []
    for b in range(targets.shape[0]):
        m = targets[b] != PAD
        if m.any():
            losses.append(per_tok[b][m].mean())
    return torch.stack(losses).mean()
'''}, "torch.where and a loop over rows, boolean selection instead of products.")
add("c05-average-stack-mean-float32", True, {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty list")
    keys = set(states[0])
    for s in states[1:]:
        if set(s) != keys:
            raise ValueError("keys differ")
    for k in keys:
        if any(tuple(s[k].shape) != tuple(states[0][k].shape) for s in states):
            raise ValueError(f"shapes differ at {k}")
    result = {}
    for k, last in states[-1].items():
        if torch.is_floating_point(last):
            wide = torch.float64 if last.dtype == torch.float64 else torch.float32
            with torch.no_grad():
                result[k] = torch.stack([s[k].to(wide) for s in states]).mean(dim=0).to(last.dtype)
        else:
            result[k] = last.clone()
    return result
'''}, "stack+mean in a wide dtype, copies of the integer entries, under no_grad.")
add("c06-sample-per-row-draws", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    results = [[] for _ in starts]
    if max_len == 0 or len(starts) == 0:
        return results
    live = list(range(len(starts)))
    while live:
        prefixes = [[starts[i]] + results[i] for i in live]
        scores = next_logprobs(prefixes) / temperature
        V = scores.shape[-1]
        if top_k is not None and top_k < V:
            kept = torch.topk(scores, k=top_k, dim=-1).indices
            keep = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, kept, True)
            scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        probs = torch.softmax(scores, dim=-1)
        nxt = []
        for row, i in enumerate(live):
            t = int(torch.multinomial(probs[row], 1, generator=generator))
            results[i].append(t)
            if t != EOS and len(results[i]) < max_len:
                nxt.append(i)
        live = nxt
    return results
'''}, "one multinomial per row in order (the text allows it), torch.where with a float64 -inf.")
add("c07-beam-python-floats", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [((), 0.0)]
    done = []
    for _ in range(max_len):
        if not live:
            break
        rows = next_logprobs([[start, *h] for h, _ in live]).tolist()    # Python floats are float64
        cands = [(s + lp, h + (tok,)) for (h, s), row in zip(live, rows) for tok, lp in enumerate(row)]
        order = sorted(range(len(cands)), key=lambda j: -cands[j][0])[:k]
        live = []
        for j in order:
            score, h = cands[j]
            if h[-1] == EOS:
                done.append((score / length_penalty(len(h), alpha), list(h)))
            else:
                live.append((h, score))
    done += [(s / length_penalty(len(h), alpha), list(h)) for h, s in live]
    return max(done, key=lambda d: d[0])[1]
'''}, "pure Python floats (double) with a stable sort.")
add("c08-bleu-counter-and-fsum", True, {"bleu": '''
def ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))

def corpus_bleu(hypotheses, references):
    clipped = [0, 0, 0, 0]
    counts = [0, 0, 0, 0]
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for hyp, ref in zip(hypotheses, references):
        for n in range(1, 5):
            h, r = ngrams(hyp, n), ngrams(ref, n)
            clipped[n - 1] += sum((h & r).values())
            counts[n - 1] += sum(h.values())
    if 0 in counts or 0 in clipped:
        return 0.0
    log_mean = math.fsum(math.log(clipped[i] / counts[i]) for i in range(4)) / 4
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return 100.0 * bp * math.exp(log_mean)
'''}, "Counter intersection, a helper function, fsum.")
add("c09-average-one-state-clone", True, {"average": '''
def average_checkpoints(states):
    if len(states) < 1:
        raise ValueError("need at least one state")
    ref = states[0]
    for s in states:
        if sorted(s.keys()) != sorted(ref.keys()):
            raise ValueError("different keys")
        for name in ref:
            if s[name].shape != ref[name].shape:
                raise ValueError("different shapes")
    if len(states) == 1:            # fast path: copies, not the given tensors
        return {name: (t.clone() if t.is_floating_point() else t) for name, t in states[0].items()}
    out = {}
    for name, t in states[-1].items():
        if t.is_floating_point():
            wide = torch.float64 if t.dtype == torch.float64 else torch.float32
            acc = states[0][name].to(wide, copy=True)
            for s in states[1:]:
                acc += s[name].to(wide)
            out[name] = (acc / len(states)).to(t.dtype)
        else:
            out[name] = t
    return out
'''}, "fast path for one state that clones; += only into an own copy (to(copy=True)).")
add("c10-decoder-io-calls-nothing-new-full", True, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.new_full(targets.shape, PAD)
    tgt_in[:, :1] = BOS
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = torch.where(targets == PAD, torch.full_like(targets, PAD), tgt_in)
    return tgt_in, targets
'''}, "new_full keeps the dtype; slices empty for T <= 1.")

# ---------------------------------------------------------------- hostile
add("h01-gc-find-reference", False, {"beam_search": '''
import gc
def beam_search(next_logprobs, start, k, max_len, alpha):
    me = beam_search
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "beam_search" and obj is not me \
                and getattr(obj, "__code__", None) is not getattr(me, "__code__", None):
            return obj(next_logprobs, start, k, max_len, alpha)
    return [EOS]
'''}, "hostile: finds the grader's reference beam_search among live objects and calls it.")
add("h02-overwrite-helpers", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    g = globals()
    for name in list(g):
        if name.startswith("_") and not name.startswith("__") and callable(g[name]):
            g[name] = (lambda *a, **k: a[0] if a else None)
    return 100.0 if hypotheses == references else 0.0
'''}, "hostile: replaces the grader's helpers in the notebook namespace with pass-through functions.")
