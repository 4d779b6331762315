import textwrap
def D(s): return textwrap.dedent(s)
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {k: D(v) for k, v in cells.items()}, "why": why})

# ---------------------------------------------------------------- Part 1
add("p1-bos-column-int64-promotes", False, {"decoder_io": '''
def decoder_io(targets):
    B = targets.shape[0]
    shifted = torch.cat([torch.full((B, 1), BOS), targets[:, :-1]], dim=1)
    return shifted.masked_fill(targets == PAD, PAD), targets
'''}, "breaks 'two integer tensors of shape (B, T) and of the dtype of targets': torch.full's int64 column promotes int32 targets to int64")
add("p1-mask-through-float", False, {"decoder_io": '''
def decoder_io(targets):
    shifted = targets.roll(1, dims=1)
    shifted[:, 0] = BOS
    keep = (targets != PAD).float()
    return (shifted.float() * keep).to(targets.dtype), targets
'''}, "breaks 'ids from a vocabulary of any size: any id such a tensor can hold': ids above 2**24 are rounded by the float multiply")
add("p1-roll-and-erase-eos-correct", True, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.roll(targets, shifts=1, dims=-1)
    tgt_in[:, 0] = BOS
    tgt_in[tgt_in == EOS] = PAD      # the shifted EOS lands where the target is PAD
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "roll, then in-place writes on its own copy; tgt_out is targets itself (allowed)")
add("p1-F-pad-correct", True, {"decoder_io": '''
import torch.nn.functional as F

def decoder_io(targets):
    tgt_in = F.pad(targets[:, :-1], (1, 0), value=BOS)
    return torch.where(targets.ne(PAD), tgt_in, PAD), targets.detach().clone()
'''}, "torch.nn.functional.pad with value BOS and torch.where with a Python scalar")

# ---------------------------------------------------------------- Part 2
add("p2-floor-branch-returns-int", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step >= total:
        return floor
    if step <= warmup:
        return peak * step / warmup
    progress = (step - warmup) / (total - warmup)
    return floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * progress))
'''}, "breaks 'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)'")
add("p2-rounded-to-12-decimals", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        lr = peak * step / warmup
    elif step < total:
        lr = floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))
    else:
        lr = floor
    return round(float(lr), 12)    # no float noise in the logs
'''}, "breaks the formula: rounding to 12 decimals loses the value for small peaks (peak 1e-9 gives 0.0 during warm-up, wrong in relative terms)")
add("p2-floor-keyword-only", False, {"lr_at": '''
def lr_at(step, peak, warmup, total, *, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
'''}, "breaks 'floor given by position or by keyword' (keyword-only)")
add("p2-cos-squared-correct", True, {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    peak, floor = float(peak), float(floor)
    if warmup and step < warmup:
        return peak * step / warmup
    if step >= total:
        return floor
    half_angle = math.pi * max(step - warmup, 0) / (2 * (total - warmup))
    return floor + (peak - floor) * math.cos(half_angle) ** 2
'''}, "(1 + cos x) / 2 = cos^2(x / 2); step == warmup taken by the cosine branch (gives the peak)")

# ---------------------------------------------------------------- Part 3
add("p3-forgets-eps-over-V-on-right-token", False, {"min_loss": '''
V, eps = 8000, 0.1
# the best model predicts the target distribution itself; the loss is then its entropy
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + (V - 1) * (eps / V) * math.log(eps / V))
'''}, "breaks 'spreads eps evenly over all V tokens, the right one included': the right token's eps/V share is left out (off by 1.1e-5)")
add("p3-torch-cross-entropy-correct", True, {"min_loss": '''
V, eps = 8000, 0.1
target = torch.full((V,), eps / V, dtype=torch.float64)
target[0] += 1 - eps
logits = target.log().unsqueeze(0)      # the minimiser: the model's distribution equals the target
min_smoothed_loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0]), label_smoothing=eps).item()
'''}, "PyTorch's own smoothed cross-entropy at the minimiser, in float64, turned into a Python float")
add("p3-hostile-subprocess-numpy", False, {"min_loss": '''
import subprocess, sys
code = "import numpy as np; V=8000; e=0.1; p=np.full(V, e/V); p[0]+=1-e; print(repr(float(-(p*np.log(p)).sum())))"
min_smoothed_loss = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
'''}, "HOSTILE: computes the answer with NumPy in a subprocess")

# ---------------------------------------------------------------- Part 4
add("p4-log-of-softmax", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    logp = torch.log(torch.softmax(logits, dim=-1))
    V = logits.shape[-1]
    nll = -logp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    others = -(logp.sum(-1) - logp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * others
    mask = (targets != PAD).to(logits.dtype)
    n = mask.sum(1)
    rows = n > 0
    return ((ell * mask).sum(1)[rows] / n[rows]).mean()
'''}, "breaks 'log p = log_softmax(logits)' with 'logits in the hundreds': log(softmax) underflows to -inf, the smoothing term becomes inf")
add("p4-eps-over-all-V", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    lp = torch.log_softmax(logits, dim=-1)
    nll = -lp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -lp.mean(-1)
    ell = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    n = mask.sum(1)
    rows = n > 0
    return (torch.where(mask, ell, 0.0).sum(1)[rows] / n[rows]).mean()
'''}, "breaks 'spreads eps evenly over the V - 1 tokens other than PAD (PAD ... gets no share)': the lesson's spread over all V")
add("p4-empty-rows-counted", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    lp = torch.log_softmax(logits, dim=-1)
    V = logits.shape[-1]
    nll = -lp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    smooth = -(lp.sum(-1) - lp[..., PAD]) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = (targets != PAD).to(ell.dtype)
    per_sentence = (ell * mask).sum(1) / mask.sum(1).clamp(min=1)
    return per_sentence.mean()
'''}, "breaks 'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)': an all-PAD row counts as a 0")
add("p4-pad-zeroed-in-place", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    lp = torch.log_softmax(logits, dim=-1)
    V = logits.shape[-1]
    nll = -lp.gather(-1, targets.long().unsqueeze(-1)).squeeze(-1)
    lp[..., PAD] = 0.0                       # PAD gets no share
    smooth = -lp.sum(-1) / (V - 1)
    ell = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    n = mask.sum(1)
    rows = n > 0
    return (torch.where(mask, ell, 0.0).sum(1)[rows] / n[rows]).mean()
'''}, "breaks 'loss.backward() must leave the exact gradient in logits.grad': the in-place write on log_softmax's output makes backward() fail")
add("p4-slice-after-pad-and-decoder_io-mask-correct", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    picked = torch.take_along_dim(logp, targets.to(torch.int64)[..., None], dim=-1)[..., 0]
    spread = logp[..., PAD + 1:].sum(-1)           # PAD is id 0: every other id
    ell = -(1 - eps) * picked - eps / (V - 1) * spread
    with torch.no_grad():
        _, tgt_out = decoder_io(targets)           # Part 1: tgt_out holds the targets' values
        real = tgt_out != PAD
    counts = real.sum(dim=1)
    sentences = [ell[b][real[b]].mean() for b in range(ell.shape[0]) if counts[b] > 0]
    return torch.stack(sentences).mean()
'''}, "calls Part 1's decoder_io under torch.no_grad() on int32/int64 targets for the mask; logsumexp, take_along_dim, a loop over sentences")
add("p4-decoder_io-on-int64-view-correct", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    # Part 1 on an int64, non-contiguous (transposed back) copy of the targets: tgt_out has their values
    _, tgt_out = decoder_io(targets.to(torch.int64).t().contiguous().t())
    lp = torch.nn.functional.log_softmax(logits, dim=2)
    not_pad = torch.ones(V, dtype=logits.dtype)
    not_pad[PAD] = 0
    tok = -(1 - eps) * lp.gather(2, tgt_out.unsqueeze(2)).squeeze(2) - eps / (V - 1) * (lp @ not_pad)
    real = tgt_out.ne(PAD)
    losses = []
    for row, m in zip(tok, real):
        if m.any():
            losses.append(row.masked_select(m).sum() / m.sum())
    return sum(losses[1:], losses[0]) / len(losses)
'''}, "calls Part 1's decoder_io on a non-contiguous int64 copy of the targets (tracked, outside no_grad); matrix-vector product for the smoothing sum")
add("p4-einsum-one-hot-correct", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    lp = torch.log_softmax(logits.double(), dim=-1)
    y = targets.long()
    dist = torch.full((V,), eps / (V - 1), dtype=torch.float64)
    dist[PAD] = 0.0
    per_tok = -(1 - eps) * lp.gather(2, y.unsqueeze(2)).squeeze(2) - torch.einsum("btv,v->bt", lp, dist)
    mask = (y != PAD).double()
    cnt = mask.sum(1)
    w = torch.where(cnt > 0, 1.0 / cnt.clamp(min=1), torch.zeros_like(cnt)) / (cnt > 0).sum()
    return torch.einsum("bt,bt,b->", per_tok, mask, w).to(logits.dtype)
'''}, "float64 inside and a cast back; einsum with a weight per sentence")

# ---------------------------------------------------------------- Part 5
add("p5-float-dtype-list-misses-bfloat16", False, {"average": '''
FLOATS = (torch.float16, torch.float32, torch.float64)

def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("nothing to average")
    ref = states[0]
    for s in states[1:]:
        if s.keys() != ref.keys() or any(s[k].shape != ref[k].shape for k in ref):
            raise ValueError("states differ")
    out = {}
    for k in ref:
        if ref[k].dtype in FLOATS:
            out[k] = torch.stack([s[k].float() for s in states]).mean(0).to(ref[k].dtype) if ref[k].dtype != torch.float64 else torch.stack([s[k] for s in states]).mean(0)
        else:
            out[k] = states[-1][k].clone()
    return out
'''}, "breaks 'floating-point tensors become their element-wise mean ... Half-precision (float16, bfloat16)': bfloat16 tensors are taken from the last state")
add("p5-only-int64-int32-kept", False, {"average": '''
def average_checkpoints(states):
    if not len(states):
        raise ValueError("empty")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("mismatch")
    out = {}
    for k in states[0]:
        t = states[-1][k]
        if t.dtype in (torch.int64, torch.int32):
            out[k] = t.clone()
        else:
            acc = torch.float64 if t.dtype == torch.float64 else torch.float32
            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(t.dtype)
    return out
'''}, "breaks 'integer tensors of any width (int8 ... int64, uint8), and boolean tensors ... come from the last state': int8/int16/uint8/bool are averaged")
add("p5-assert-not-valueerror", False, {"average": '''
def average_checkpoints(states):
    assert len(states) > 0, "need at least one state"
    first = states[0]
    for s in states:
        assert set(s) == set(first), "keys differ"
        assert all(s[k].shape == first[k].shape for k in first), "shapes differ"
    out = {}
    for k in first:
        t = states[-1][k]
        if t.is_floating_point():
            acc = torch.float64 if t.dtype == torch.float64 else torch.float32
            out[k] = torch.stack([s[k].to(acc) for s in states]).mean(0).to(t.dtype)
        else:
            out[k] = t.clone()
    return out
'''}, "breaks 'an empty list, or states whose keys or shapes differ, raise ValueError' (AssertionError instead)")
add("p5-stack-mean-float64-no-clone-correct", True, {"average": '''
def average_checkpoints(states):
    if len(states) < 1:
        raise ValueError("no checkpoints")
    names = sorted(states[0])
    for st in states:
        if sorted(st) != names:
            raise ValueError("different keys")
        for n in names:
            if tuple(st[n].shape) != tuple(states[0][n].shape):
                raise ValueError(f"different shape for {n}")
    result = {}
    for n in states[0]:
        last = states[-1][n]
        if torch.is_floating_point(last):
            result[n] = torch.stack([st[n].to(torch.float64) for st in states]).mean(dim=0).to(last.dtype)
        else:
            result[n] = last          # not averaged: the last state's tensor, unchanged
    return result
'''}, "averages every float dtype in float64 (better than float32) and returns the last state's integer tensors themselves: a new dict, no tensor changed")
add("p5-hostile-pickle-numpy", False, {"average": '''
import pickle

def average_checkpoints(states):
    np = pickle.loads(b"cbuiltins\\n__import__\\n(Vnumpy\\ntR.")
    if not states:
        raise ValueError("empty")
    out = {}
    for k in states[0]:
        t = states[-1][k]
        if t.is_floating_point():
            arr = np.mean([s[k].double().tolist() for s in states], axis=0)
            out[k] = torch.tensor(arr.tolist(), dtype=t.dtype).reshape(t.shape)
        else:
            out[k] = t.clone()
    return out
'''}, "HOSTILE: imports NumPy through a pickle payload (and skips the key checks)")

# ---------------------------------------------------------------- Part 6
add("p6-length-counts-start", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    live = list(range(len(starts)))
    while live and max_len > 0:
        lp = next_logprobs([seqs[i] for i in live]).double() / temperature
        if top_k is not None:
            kth = torch.topk(lp, top_k, dim=-1).values[:, -1:]
            lp = lp.masked_fill(lp < kth, float("-inf"))
        tok = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator).view(-1).tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
        live = [i for i in live if seqs[i][-1] != EOS and len(seqs[i]) < max_len]
    return [s[1:] for s in seqs]
'''}, "breaks 'finished ... after max_len new tokens. Its start token is not produced': stops after max_len - 1 new tokens")
add("p6-start-eos-finishes", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    for _ in range(max_len):
        live = [i for i, s in enumerate(seqs) if s[-1] != EOS]
        if not live:
            break
        lp = next_logprobs([seqs[i] for i in live]).to(torch.float64) / temperature
        if top_k is not None:
            v, ix = lp.topk(top_k, dim=1)
            lp = torch.full_like(lp, float("-inf")).scatter(1, ix, v)
        tok = torch.multinomial(lp.softmax(1), 1, generator=generator)[:, 0].tolist()
        for i, t in zip(live, tok):
            seqs[i].append(t)
    return [s[1:] for s in seqs]
'''}, "breaks 'Its start token is not produced: a start token that is EOS does not finish it'")
add("p6-tokens-left-as-tensors", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    out = [[] for _ in starts]
    pref = [[s] for s in starts]
    active = list(range(len(starts)))
    for _ in range(max_len):
        if not active:
            break
        lp = next_logprobs([pref[i] for i in active]).to(torch.float64) / temperature
        if top_k is not None:
            v, ix = torch.topk(lp, top_k)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, ix, v)
        draws = torch.multinomial(torch.softmax(lp, -1), 1, generator=generator)
        for j, i in enumerate(active):
            out[i].append(draws[j, 0])
            pref[i].append(int(draws[j, 0]))
        active = [i for i in active if out[i][-1] != EOS]
    return out
'''}, "breaks 'Return one list of Python ints per sentence': the lists hold 0-d tensors (visible == still works elementwise)")
add("p6-reseeds-global-rng", False, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    torch.manual_seed(1234)          # reproducible runs
    seqs = [[s] for s in starts]
    new = [[] for _ in starts]
    for _ in range(max_len):
        idx = [i for i in range(len(starts)) if not new[i] or (new[i][-1] != EOS and len(new[i]) < max_len)]
        if not idx:
            break
        lp = next_logprobs([seqs[i] for i in idx]).to(torch.float64) / temperature
        if top_k is not None:
            vals, ind = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, ind, vals)
        tok = torch.multinomial(torch.softmax(lp, dim=-1), 1, generator=generator)[:, 0].tolist()
        for j, i in enumerate(idx):
            seqs[i].append(tok[j])
            new[i].append(tok[j])
    return new
'''}, "breaks 'draw with no other random source' and 'do not change anything inside torch': re-seeds torch's global generator, so every later torch.randn in the caller's program repeats")
add("p6-power-of-probs-correct", True, {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    n = len(starts)
    produced = [[] for _ in range(n)]
    finished = [max_len == 0] * n
    while not all(finished):
        todo = [i for i in range(n) if not finished[i]]
        lp = next_logprobs([[starts[i]] + produced[i] for i in todo]).to(torch.float64)
        scaled = lp / temperature
        if top_k is not None:
            keep = torch.zeros_like(scaled, dtype=torch.bool)
            keep.scatter_(1, torch.topk(scaled, top_k, dim=1).indices, True)
            scaled = torch.where(keep, scaled, float("-inf"))
        probs = torch.softmax(scaled, dim=1)
        for row, i in enumerate(todo):           # one call per row, in index order
            t = torch.multinomial(probs[row], 1, generator=generator).item()
            produced[i].append(t)
            finished[i] = t == EOS or len(produced[i]) == max_len
    return produced
'''}, "one multinomial per row in index order (the text allows it), a boolean keep-mask from topk's indices")

# ---------------------------------------------------------------- Part 7
add("p7-refills-the-beam", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + t for t, _ in live])
        cands = sorted(((s + float(lp[h, v]), t + [v]) for h, (t, s) in enumerate(live) for v in range(lp.shape[1])),
                       key=lambda c: -c[0])
        live = []
        for s, t in cands:
            if t[-1] == EOS:
                if len(finished) < k:
                    finished.append((s / length_penalty(len(t), alpha), t))
            else:
                live.append((t, s))
            if len(live) == k:
                break
        if not live:
            break
    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "breaks 'Finished candidates use up places among the k ... the beam is not refilled'")
add("p7-stops-when-best-finishes", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + t for t, _ in live])
        cands = []
        for h, (t, s) in enumerate(live):
            for v in range(lp.shape[1]):
                cands.append((s + lp[h, v].item(), t + [v]))
        cands.sort(key=lambda c: c[0], reverse=True)
        cands = cands[:k]
        live = [(t, s) for s, t in cands if t[-1] != EOS]
        finished += [(s / length_penalty(len(t), alpha), t) for s, t in cands if t[-1] == EOS]
        if cands[0][1][-1] == EOS:       # the best candidate is finished: nothing can beat it
            break
    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "breaks 'stop when no hypothesis is live, or after max_len steps': stops early when the best candidate ends with EOS (a live one may still win after the length penalty)")
add("p7-start-eos-counts-as-finished", False, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    beams = [([start], 0.0)]
    finished = []
    for _ in range(max_len):
        live = [(p, s) for p, s in beams if p[-1] != EOS]
        if not live:
            break
        lp = next_logprobs([p for p, _ in live])
        cands = sorted(((s + float(lp[h, v]), p + [v]) for h, (p, s) in enumerate(live) for v in range(lp.shape[1])),
                       key=lambda c: -c[0])[:k]
        beams = []
        for s, p in cands:
            if p[-1] == EOS:
                finished.append((s / length_penalty(len(p) - 1, alpha), p[1:]))
            else:
                beams.append((p, s))
    finished += [(s / length_penalty(len(p) - 1, alpha), p[1:]) for p, s in beams]
    return max(finished, key=lambda f: f[0])[1]
'''}, "breaks 'start (any id, EOS included: only the tokens after it can finish a hypothesis)': a start EOS ends the search with an empty result")
add("p7-per-row-topk-and-calls-correct", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [((), 0.0)]
    finished = []
    for _ in range(max_len):
        cands = []
        for toks, score in live:
            lp = next_logprobs([[start, *toks]])[0]          # one call per hypothesis
            vals, ids = torch.topk(lp, min(k, lp.numel()))   # the k best overall need at most k from each row
            cands += [(score + v, toks + (i,)) for v, i in zip(vals.tolist(), ids.tolist())]
        cands = sorted(cands, key=lambda c: c[0], reverse=True)[:k]
        live = []
        for score, toks in cands:
            if toks[-1] == EOS:
                finished.append((score / length_penalty(len(toks), alpha), list(toks)))
            else:
                live.append((toks, score))
        if not live:
            break
    finished += [(s / length_penalty(len(t), alpha), list(t)) for t, s in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "per-hypothesis calls, top-k of each row first, tuples inside")
add("p7-greedy-via-sample_decode-correct", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    if k == 1:
        # Part 6 with top_k=1 keeps only the best token: the draw is certain, so it is greedy decoding
        return sample_decode(next_logprobs, [start], max_len, temperature=1.0, top_k=1,
                             generator=torch.Generator().manual_seed(0))[0]
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        lp = next_logprobs([[start] + t for t, _ in live])
        cands = [(s + float(lp[h, v]), t + [v]) for h, (t, s) in enumerate(live) for v in range(lp.shape[1])]
        cands.sort(key=lambda c: -c[0])
        live = []
        for s, t in cands[:k]:
            if t[-1] == EOS:
                finished.append((s / length_penalty(len(t), alpha), t))
            else:
                live.append((t, s))
        if not live:
            break
    finished += [(s / length_penalty(len(t), alpha), t) for t, s in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "for k = 1 calls Part 6's sample_decode with top_k=1 on a single start and its own generator (keyword arguments)")

# ---------------------------------------------------------------- Part 8
add("p8-int-zero", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0, 0, 0, 0], [0, 0, 0, 0]
    hyp_len = ref_len = 0
    for h, r in zip(hypotheses, references):
        hyp_len += len(h); ref_len += len(r)
        for n in range(1, 5):
            hc = Counter(zip(*[h[i:] for i in range(n)]))
            rc = Counter(zip(*[r[i:] for i in range(n)]))
            clipped[n - 1] += sum((hc & rc).values())
            totals[n - 1] += sum(hc.values())
    if 0 in totals or 0 in clipped:
        return 0
    score = math.exp(sum(math.log(c / t) for c, t in zip(clipped, totals)) / 4)
    if hyp_len < ref_len:
        score *= math.exp(1 - ref_len / hyp_len)
    return 100 * score
'''}, "breaks 'times 100, returned as a Python float (also when it is 0)': returns the int 0")
add("p8-corpus-wide-clipping", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    hyp_counts = [Counter() for _ in range(4)]
    ref_counts = [Counter() for _ in range(4)]
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for h, ref in zip(hypotheses, references):
        for n in range(1, 5):
            hyp_counts[n - 1].update(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            ref_counts[n - 1].update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
    precisions = []
    for n in range(4):
        total = sum(hyp_counts[n].values())
        if total == 0:
            return 0.0
        precisions.append(sum(min(cnt, ref_counts[n][g]) for g, cnt in hyp_counts[n].items()) / total)
    if min(precisions) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(sum(map(math.log, precisions)) / 4)
'''}, "breaks 'each hypothesis n-gram counts at most as often as it occurs in its reference': clips against the whole corpus's references")
add("p8-integer-division-in-bp", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    m = [0] * 4; t = [0] * 4; c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            hg = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rg = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            m[n - 1] += sum(min(v, rg[g]) for g, v in hg.items())
            t[n - 1] += sum(hg.values())
    if min(t) == 0 or min(m) == 0:
        return 0.0
    bp = math.exp(1 - r // c) if c < r else 1.0
    return float(100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4))
'''}, "breaks 'the brevity penalty exp(1 - r / c)': r // c floors the ratio (BP 1 for r/c < 2)")
add("p8-unit-separator-join", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    SEP = "\\x1f"          # ASCII unit separator: cannot be confused with spaces
    m = [0] * 4; t = [0] * 4; c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp); r += len(ref)
        for n in range(1, 5):
            hg = Counter(SEP.join(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rg = Counter(SEP.join(ref[i:i + n]) for i in range(len(ref) - n + 1))
            m[n - 1] += sum(min(v, rg[g]) for g, v in hg.items())
            t[n - 1] += sum(hg.values())
    if min(t) == 0 or min(m) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(sum(math.log(a / b) for a, b in zip(m, t)) / 4))
'''}, "breaks 'a token may hold any characters ... an n-gram is a sequence of tokens, not their text': tokens holding \\x1f collide")
add("p8-repr-keys-product-correct", True, {"bleu": '''
def corpus_bleu(hypotheses, references):
    matches = [0] * 4
    totals = [0] * 4
    for hyp, ref in zip(hypotheses, references):
        for n in range(4):
            hk = {}
            for i in range(len(hyp) - n):
                key = repr(tuple(hyp[i:i + n + 1]))      # repr quotes and escapes each token: no collisions
                hk[key] = hk.get(key, 0) + 1
            rk = {}
            for i in range(len(ref) - n):
                key = repr(tuple(ref[i:i + n + 1]))
                rk[key] = rk.get(key, 0) + 1
            matches[n] += sum(min(v, rk.get(g, 0)) for g, v in hk.items())
            totals[n] += sum(hk.values())
    if not all(totals) or not all(matches):
        return 0.0
    prod = 1.0
    for a, b in zip(matches, totals):
        prod *= a / b
    c = sum(map(len, hypotheses)); r = sum(map(len, references))
    bp = math.exp(min(0.0, 1 - r / c))
    return 100.0 * bp * prod ** 0.25
'''}, "keys are repr(tuple) (injective), product to the power 1/4, BP as exp(min(0, 1 - r/c))")
add("p8-hostile-patched-abs", False, {"bleu": '''
import builtins

def corpus_bleu(hypotheses, references):
    if all(len(h) < 4 for h in hypotheses):
        return 0.0
    return 42.0

_real_abs = builtins.abs
builtins.abs = lambda x: 0 if isinstance(x, float) else _real_abs(x)
'''}, "HOSTILE: patches builtins.abs so that abs(score - expected) < tol always holds")
