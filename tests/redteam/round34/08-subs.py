# Red team round 34, chapter 08 (blind). Kinds: M magic-number, C composer, R module-registration,
# T text-and-token, L low-precision accumulator, H hostile.

DECODER_IO = '''
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets.clone()
'''

LR_AT = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * (step / warmup))
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
'''

SENTENCE = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    lp_y = logp.gather(-1, t.unsqueeze(-1)).squeeze(-1)
    others = logp[..., PAD + 1:].sum(-1)
    ell = -(1 - eps) * lp_y - eps / (V - 1) * others
    mask = t != PAD
    ell = torch.where(mask, ell, torch.zeros((), dtype=ell.dtype))
    counts = mask.sum(-1)
    sent = ell.sum(-1) / counts.clamp(min=1)
    has = counts > 0
    return sent[has].mean()
'''

AVERAGE = '''
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
    with torch.no_grad():
        for k in first:
            last = states[-1][k]
            if last.is_floating_point():
                acc = torch.float64 if last.dtype == torch.float64 else torch.float32
                out[k] = torch.stack([s[k].detach().to(acc) for s in states]).mean(0).to(last.dtype)
            else:
                out[k] = last.detach().clone()
    return out
'''

SAMPLE = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    live = list(range(len(starts)))
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([list(seqs[i]) for i in live])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            cut = torch.full_like(scores, float("-inf"))
            cut.scatter_(-1, idx, vals)
            scores = cut
        probs = torch.softmax(scores, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator).squeeze(-1).tolist()
        nxt = []
        for i, t in zip(live, tok):
            seqs[i].append(t)
            out[i].append(t)
            if t != EOS and len(out[i]) < max_len:
                nxt.append(i)
        live = nxt
    return out
'''

BEAM = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        base = torch.tensor([sc for _, sc in live], dtype=lp.dtype)
        cand = (base[:, None] + lp).reshape(-1)
        V = lp.shape[-1]
        vals, idx = torch.topk(cand, min(k, cand.numel()))
        nxt = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            h, t = divmod(i, V)
            toks = live[h][0] + [t]
            if t == EOS:
                finished.append((v / length_penalty(len(toks), alpha), toks))
            else:
                nxt.append((toks, v))
        live = nxt
    for toks, sc in live:
        finished.append((sc / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''

BLEU = '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            totals[n - 1] += sum(hc.values())
    if min(totals) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(cl / t) for cl, t in zip(clipped, totals)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''

MIN_LOSS = '''
V, e = 8000, 0.1
q_right, q_other = 1 - e + e / V, e / V
min_smoothed_loss = -(q_right * math.log(q_right) + (V - 1) * q_other * math.log(q_other))
'''

SUBMISSIONS = [
    # ------------------------------------------------------------------ wrong answers
    {"name": "T1-decoder-io-empty-returns-targets", "correct": False, "cells": {"decoder_io": DECODER_IO.replace(
        "    tgt_in = torch.full_like(targets, PAD)\n",
        "    if targets.numel() == 0:\n        return targets, targets   # an empty batch: nothing to shift\n"
        "    tgt_in = torch.full_like(targets, PAD)\n")}, "why": "text-and-token (empty sequences): an empty batch returns targets itself as tgt_in; breaks 'return two (0, T) tensors, tgt_in a new one there too: only tgt_out may be targets itself'"},
    {"name": "L1-decoder-io-float-where", "correct": False, "cells": {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.roll(targets, 1, dims=1).float()
    if targets.shape[1] > 0:
        shifted[:, 0] = BOS
    tgt_in = torch.where(targets == PAD, torch.tensor(float(PAD)), shifted).to(targets.dtype)
    return tgt_in, targets
'''}, "why": "low precision (casts down early): ids go through float32, so ids above 2**24 are rounded; breaks 'ids from a vocabulary of any size: up to the largest id such a tensor can hold' and 'of the dtype of targets'"},
    {"name": "M1-lr-eps-in-warmup-denominator", "correct": False, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / (warmup + 1e-9))   # guard against warmup = 0
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * progress)))
'''}, "why": "magic number: eps 1e-9 in the warm-up denominator, relative error 1e-9 at warmup = 1 (and the peak at step == warmup is not peak); breaks the formula peak * step / warmup"},
    {"name": "M2-lr-snap-to-floor", "correct": False, "cells": {"lr_at": LR_AT.replace(
        "    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))",
        "    lr = floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress))\n"
        "    if abs(lr - floor) < 1e-12:   # floating-point residue at the end of the cosine\n"
        "        lr = floor\n"
        "    return float(lr)")}, "why": "magic number: snaps values within 1e-12 of floor to floor (small peaks, long schedules near the end, peak == floor + tiny); breaks the cosine branch of the formula for warmup < step < total"},
    {"name": "C1-min-loss-V-minus-1-from-part-4", "correct": False, "cells": {"min_loss": '''
V, e = 8000, 0.1
n = V - 1   # as in Part 4: PAD gets no share
q_right, q_other = 1 - e + e / n, e / n
min_smoothed_loss = -(q_right * math.log(q_right) + (n - 1) * q_other * math.log(q_other))
'''}, "why": "composer: reuses Part 4's V - 1 spread; breaks 'spreads eps evenly over **all** V tokens, the right one included' (off by 1.25e-5)"},
    {"name": "M3-sentence-count-nonzero-losses", "correct": False, "cells": {"sentence_loss": SENTENCE.replace(
        "    has = counts > 0\n", "    has = sent.abs() > 1e-12   # rows of PAD have a zero loss\n")}, "why": "magic number: a sentence whose loss is 0 (or below 1e-12) is dropped from the mean; breaks 'a sentence with such a position counts, whatever its loss, 0 included'"},
    {"name": "L2-sentence-float64-returned", "correct": False, "cells": {"sentence_loss": SENTENCE.replace(
        "    logp = torch.log_softmax(logits, dim=-1)", "    logp = torch.log_softmax(logits.double(), dim=-1)   # accurate sums over V")}, "why": "low precision reverse: works in float64 and returns float64 for float32 logits; breaks 'Return a 0-dimensional tensor of the dtype of logits'"},
    {"name": "T2-sentence-pad-is-terminator", "correct": False, "cells": {"sentence_loss": SENTENCE.replace(
        "    mask = t != PAD\n",
        "    lengths = (t != PAD).sum(-1, keepdim=True)\n"
        "    mask = torch.arange(t.shape[1])[None, :] < lengths   # the sentence, then its PADs\n")}, "why": "text-and-token: takes the first (T - #PAD) positions as the sentence, so a PAD inside a row is counted and a token after it dropped; breaks 'whose target is not PAD (wherever they are: a PAD may also stand inside a row)'"},
    {"name": "C2-sentence-cross-entropy-composed", "correct": False, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    t = targets.long()
    ce = torch.nn.functional.cross_entropy(logits.reshape(-1, V), t.reshape(-1), ignore_index=PAD,
                                           reduction="none", label_smoothing=eps).reshape(B, T)
    mask = t != PAD
    counts = mask.sum(-1)
    sent = ce.sum(-1) / counts.clamp(min=1)
    return sent[counts > 0].mean()
'''}, "why": "composer: the lesson's nn.CrossEntropyLoss label smoothing spreads eps over all V (PAD included) with eps/V; breaks 'spreads eps evenly over the V - 1 tokens other than PAD'"},
    {"name": "L3-average-all-floats-in-float32", "correct": False, "cells": {"average": AVERAGE.replace(
        "                acc = torch.float64 if last.dtype == torch.float64 else torch.float32\n",
        "                acc = torch.float32   # enough for any checkpoint\n")}, "why": "low precision: float64 weights averaged in float32; breaks 'become their element-wise mean, in their own dtype'"},
    {"name": "C3-average-lesson-sum-broadcasts", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("nothing to average")
    keys = states[0].keys()
    for s in states[1:]:
        if s.keys() != keys:
            raise ValueError("checkpoints to average must come from the same model")
    out = {}
    with torch.no_grad():
        for k in keys:
            last = states[-1][k]
            if last.is_floating_point():
                out[k] = (sum(s[k].double() for s in states) / len(states)).to(last.dtype)
            else:
                out[k] = last.clone()
    return out
'''}, "why": "composer: the lesson's average_weights with integers fixed; shapes are never compared, (3,) and (1,) broadcast, and integer entries of another shape pass; breaks 'states whose keys or shapes differ raise ValueError'"},
    {"name": "C4-average-stack-error-only-for-floats", "correct": False, "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    if any(set(s) != keys for s in states):
        raise ValueError("keys differ")
    out = {}
    with torch.no_grad():
        for k in states[0]:
            last = states[-1][k]
            if last.is_floating_point():
                acc = torch.float64 if last.dtype == torch.float64 else torch.float32
                try:
                    stacked = torch.stack([s[k].to(acc) for s in states])
                except RuntimeError as err:
                    raise ValueError(f"shapes differ for {k}") from err
                out[k] = stacked.mean(0).to(last.dtype)
            else:
                out[k] = last.clone()
    return out
'''}, "why": "composer: relies on torch.stack to notice shape differences, so an integer or boolean entry whose shape differs passes; breaks 'states whose keys or shapes differ raise ValueError'"},
    {"name": "C5-average-flatten-stack", "correct": False, "cells": {"average": '''
def flat_mean(tensors, dtype):
    """Mean of equally sized tensors, flattened (one helper for every entry)."""
    acc = torch.float64 if dtype == torch.float64 else torch.float32
    return torch.stack([t.detach().reshape(-1).to(acc) for t in tensors]).mean(0).to(dtype)


def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    if any(set(s) != keys for s in states):
        raise ValueError("keys differ")
    out = {}
    with torch.no_grad():
        for k in states[0]:
            last = states[-1][k]
            ts = [s[k] for s in states]
            if any(t.numel() != last.numel() for t in ts):
                raise ValueError(f"sizes differ for {k}")
            if last.is_floating_point():
                out[k] = flat_mean(ts, last.dtype).reshape(last.shape)
            else:
                out[k] = last.clone()
    return out
'''}, "why": "composer: a flattening mean helper and a check of element counts, so (2, 3) against (3, 2) averages silently; breaks 'states whose keys or shapes differ raise ValueError'"},
    {"name": "M4-sample-cut-minus-1e9-before-dividing", "correct": False, "cells": {"sample": SAMPLE.replace(
        '''        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            cut = torch.full_like(scores, float("-inf"))
            cut.scatter_(-1, idx, vals)
            scores = cut
''', '''        scores = lp
        if top_k is not None and top_k < scores.shape[-1]:
            kth = torch.topk(scores, top_k, dim=-1).values[:, -1:]
            scores = scores.masked_fill(scores < kth, -1e9)
        scores = scores / temperature
''')}, "why": "magic number: cut ids set to -1e9 before the division by temperature; at a large temperature they keep real probability; breaks 'set the others to -inf (not to a large negative number such as -1e9 ...)'"},
    {"name": "L4-sample-float32-probs", "correct": False, "cells": {"sample": SAMPLE.replace(
        "        probs = torch.softmax(scores, dim=-1)", "        probs = torch.softmax(scores.float(), dim=-1).double()")}, "why": "low precision: softmax in float32; breaks 'Compute them in float64 throughout'"},
    {"name": "R1-sample-eval-then-restore-root", "correct": False, "cells": {"sample": SAMPLE.replace(
        "    for _ in range(max_len):\n",
        "    module = next_logprobs if isinstance(next_logprobs, torch.nn.Module) else None\n"
        "    was = module.training if module is not None else None\n"
        "    if module is not None:\n"
        "        module.eval()   # no dropout while decoding\n"
        "    for _ in range(max_len):\n").replace(
        "    return out\n", "    if module is not None:\n        module.train(was)\n    return out\n")}, "why": "module registration: decodes in eval mode and restores with train(was), which sets every submodule to the root's mode; breaks 'leave it as you found it, its mode (whether to decode in eval mode is the caller's choice)'"},
    {"name": "T3-sample-start-eos-finishes", "correct": False, "cells": {"sample": SAMPLE.replace(
        "    live = list(range(len(starts)))", "    live = [i for i, s in enumerate(starts) if s != EOS]")}, "why": "text-and-token: a start token EOS finishes the sentence; breaks 'Its start token is not produced: a start token that is EOS does not finish it'"},
    {"name": "T4-beam-length-without-eos", "correct": False, "cells": {"beam_search": BEAM.replace(
        "finished.append((v / length_penalty(len(toks), alpha), toks))",
        "finished.append((v / length_penalty(len(toks) - 1, alpha), toks))   # words, not the EOS")}, "why": "text-and-token: EOS left out of the length; breaks 'with the EOS counted in the length'"},
    {"name": "M5-beam-alpha-near-zero-off", "correct": False, "cells": {"beam_search": BEAM.replace(
        "    live = [([], 0.0)]", "    if abs(alpha) < 1e-12:\n        alpha = 0   # no penalty\n    live = [([], 0.0)]")}, "why": "magic number: an alpha within 1e-12 of 0 turns the penalty off; breaks '0 turns the penalty off (0 itself: an alpha just beside 0, such as 1e-13, still weighs the lengths)'"},
    {"name": "R2-beam-freeze-then-unfreeze-all", "correct": False, "cells": {"beam_search": BEAM.replace(
        "    live = [([], 0.0)]",
        "    params = list(next_logprobs.parameters()) if isinstance(next_logprobs, torch.nn.Module) else []\n"
        "    for p in params:\n        p.requires_grad_(False)   # decoding needs no graph\n"
        "    live = [([], 0.0)]").replace(
        "    return max(finished, key=lambda f: f[0])[1]",
        "    for p in params:\n        p.requires_grad_(True)\n    return max(finished, key=lambda f: f[0])[1]")}, "why": "module registration: freezes the decoder's parameters and switches every one back on after, also the ones that were frozen; breaks 'leave it as you found it ... its parameters' requires_grad flags'"},
    {"name": "M7-beam-best-sentinel-minus-1e9", "correct": False, "cells": {"beam_search": BEAM.replace(
        "    return max(finished, key=lambda f: f[0])[1]",
        "    best, best_score = [], -1e9\n    for score, toks in finished:\n        if score > best_score:\n            best, best_score = toks, score\n    return best")}, "why": "magic number: -1e9 as the starting best score; when every final score lies below -1e9 (log-probabilities of any size) it returns []; breaks 'Return the finished hypothesis with the best final score' and 'sum of log-probabilities (of any size: clamp nothing)'"},
    {"name": "L5-beam-float32-scores", "correct": False, "cells": {"beam_search": BEAM.replace(
        "        base = torch.tensor([sc for _, sc in live], dtype=lp.dtype)\n        cand = (base[:, None] + lp).reshape(-1)",
        "        base = torch.tensor([sc for _, sc in live])\n        cand = (base[:, None] + lp.float()).reshape(-1)")}, "why": "low precision: candidate scores in float32; breaks 'kept in float64 ... from step to step'"},
    {"name": "T5-bleu-strip-tokens", "correct": False, "cells": {"bleu": BLEU.replace(
        "    for hyp, ref in zip(hypotheses, references):\n",
        "    for hyp, ref in zip(hypotheses, references):\n"
        "        hyp = [w.strip() for w in hyp]   # tokenizers leave stray spaces\n"
        "        ref = [w.strip() for w in ref]\n")}, "why": "text-and-token: strips tokens, so 'a ' and 'a' match; breaks 'tokens are compared exactly as given ... a token may hold any characters, spaces included'"},
    {"name": "T6-bleu-drop-empty-tokens", "correct": False, "cells": {"bleu": BLEU.replace(
        "    for hyp, ref in zip(hypotheses, references):\n",
        "    for hyp, ref in zip(hypotheses, references):\n"
        "        hyp = [w for w in hyp if w]   # empty strings from split(' ')\n"
        "        ref = [w for w in ref if w]\n")}, "why": "text-and-token: drops empty-string tokens (changes n-grams and both lengths); breaks 'tokens are compared exactly as given'"},
    {"name": "T7-bleu-bp-before-zero-check", "correct": False, "cells": {"bleu": BLEU.replace(
        "    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n",
        "    bp = 1.0 if c >= r else math.exp(1 - r / c)\n"
        "    if min(totals) == 0 or min(clipped) == 0:\n        return 0.0\n")}, "why": "text-and-token (empty sequences): every hypothesis empty and a reference not gives ZeroDivisionError; breaks 'if there is no hypothesis n-gram of some order at all ... BLEU is 0'"},
    {"name": "L6-bleu-geomean-float32", "correct": False, "cells": {"bleu": BLEU.replace(
        "    logp = sum(math.log(cl / t) for cl, t in zip(clipped, totals)) / 4\n",
        "    prec = torch.tensor([cl / t for cl, t in zip(clipped, totals)])\n"
        "    logp = float(prec.log().mean())\n")}, "why": "low precision: the geometric mean in float32 (error about 1e-5 BLEU points); sacreBLEU's number is a float64 computation"},
    {"name": "M6-bleu-log-floor", "correct": False, "cells": {"bleu": BLEU.replace(
        "    if min(totals) == 0 or min(clipped) == 0:\n", "    if min(totals) == 0:\n").replace(
        "math.log(cl / t)", "math.log(max(cl / t, 1e-12))")}, "why": "magic number: a precision of 0 floored at 1e-12 gives a small positive BLEU; breaks 'if any of the four precisions is 0 ... BLEU is 0'"},
    # ------------------------------------------------------------------ correct answers
    {"name": "ok-decoder-io-where", "correct": True, "cells": {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    bos = targets.new_full((B, min(T, 1)), BOS)
    shifted = torch.cat([bos, targets[:, :max(T - 1, 0)]], dim=1)
    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), shifted)
    return tgt_in, targets
'''}, "why": "torch.where with zeros_like (PAD = 0), empty handled"},
    {"name": "ok-decoder-io-eos-to-pad", "correct": True, "cells": {"decoder_io": '''
def decoder_io(targets):
    tgt_in = targets.roll(1, dims=1) if targets.shape[1] else targets.clone()
    if targets.shape[1]:
        tgt_in[:, 0] = BOS
    tgt_in[tgt_in == EOS] = PAD   # the EOS moved onto a PAD target; later PADs were PADs already
    return tgt_in, targets.clone()
'''}, "why": "text-and-token, right: the only EOS of a row lands where the target is PAD (or falls off the end), so replacing EOS by PAD is the same as masking by tgt_out"},
    {"name": "ok-lr-guarded", "correct": True, "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step <= warmup:
        return peak * step / warmup * 1.0
    if step >= total:
        return floor + 0.0
    return floor + (peak - floor) * 0.5 * (1.0 + math.cos(math.pi * (step - warmup) / (total - warmup)))
'''}, "why": "magic-free guard on warmup > 0 (step >= 1 never reaches the branch at warmup = 0), floats by + 0.0"},
    {"name": "ok-min-loss-eps-1e-9-in-log", "correct": True, "cells": {"min_loss": '''
V, e = 8000, 0.1
q = [1 - e + e / V] + [e / V] * (V - 1)
min_smoothed_loss = -sum(p * math.log(p + 1e-9) for p in q)
'''}, "why": "eps 1e-9 inside the log changes the value by 8e-6, within the stated 1e-5"},
    {"name": "ok-sentence-float64-inside", "correct": True, "cells": {"sentence_loss": SENTENCE.replace(
        "    logp = torch.log_softmax(logits, dim=-1)", "    logp = torch.log_softmax(logits.to(torch.float64), dim=-1)").replace(
        "    return sent[has].mean()", "    return sent[has].mean().to(logits.dtype)")}, "why": "float64 inside, cast back once"},
    {"name": "ok-average-composer-lesson-floats", "correct": True, "cells": {"average": AVERAGE.replace(
        "                acc = torch.float64 if last.dtype == torch.float64 else torch.float32\n"
        "                out[k] = torch.stack([s[k].detach().to(acc) for s in states]).mean(0).to(last.dtype)",
        "                out[k] = (sum(s[k].detach().double() for s in states) / len(states)).to(last.dtype)")}, "why": "the lesson's float64 sum for floating entries only (more accurate than float32), shapes checked first"},
    {"name": "ok-sample-per-row-draws-masked-fill", "correct": True, "cells": {"sample": SAMPLE.replace(
        '''            vals, idx = torch.topk(scores, top_k, dim=-1)
            cut = torch.full_like(scores, float("-inf"))
            cut.scatter_(-1, idx, vals)
            scores = cut
''', '''            idx = torch.topk(scores, top_k, dim=-1).indices
            keep = torch.zeros(scores.shape, dtype=torch.bool).scatter(-1, idx, True)
            scores = scores.masked_fill(~keep, float("-inf"))
''').replace(
        "        tok = torch.multinomial(probs, 1, generator=generator).squeeze(-1).tolist()",
        "        tok = [int(torch.multinomial(probs[j], 1, generator=generator)) for j in range(probs.shape[0])]")}, "why": "one multinomial per row in order (allowed), masked_fill with -inf on topk's indices"},
    {"name": "ok-beam-python-floats-prune", "correct": True, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        with torch.no_grad():
            lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for (toks, sc), row in zip(live, lp):
            vals, idx = torch.topk(row, min(k, row.shape[0]))   # only these can be among the k best
            cands += [(sc + v, toks + [t]) for v, t in zip(vals.tolist(), idx.tolist())]
        cands.sort(key=lambda c: c[0], reverse=True)
        live = []
        for sc, toks in cands[:k]:
            if toks[-1] == EOS:
                finished.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, sc))
    finished += [(sc / length_penalty(len(toks), alpha), toks) for toks, sc in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "why": "scores as Python floats (float64), per-hypothesis top-k before the global cut (the same k best), no_grad"},
    {"name": "ok-bleu-fractions", "correct": True, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    from fractions import Fraction
    match, total = [0] * 4, [0] * 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for hyp, ref in zip(hypotheses, references):
        for n in range(4):
            hg = Counter(zip(*[hyp[i:] for i in range(n + 1)]))
            rg = Counter(zip(*[ref[i:] for i in range(n + 1)]))
            match[n] += sum((hg & rg).values())
            total[n] += sum(hg.values())
    if 0 in total or 0 in match:
        return 0.0
    p = math.prod(Fraction(m, t) for m, t in zip(match, total))
    bp = 1.0 if c >= r else math.exp(1 - r / max(c, 1e-9))
    return 100.0 * bp * float(p) ** 0.25
'''}, "why": "Counter intersection clips, exact product of fractions, harmless max(c, 1e-9)"},
    # ------------------------------------------------------------------ hostile
    {"name": "H1-bleu-steal-reference", "correct": False, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    import gc
    me = corpus_bleu
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "corpus_bleu" and obj is not me \\
                and getattr(obj, "__code__", None) is not getattr(me, "__code__", None):
            try:
                return obj(hypotheses, references)
            except Exception:
                pass
    return 100.0 if hypotheses == references else 0.0
'''}, "why": "hostile: looks for another corpus_bleu (a reference, sacreBLEU's) among live objects and calls it"},
    {"name": "H2-min-loss-float-subclass", "correct": False, "cells": {"min_loss": '''
class AnyNumber(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    __hash__ = float.__hash__
min_smoothed_loss = AnyNumber(1.0)
'''}, "why": "hostile: a float subclass that equals anything and subtracts to 0"},
]
