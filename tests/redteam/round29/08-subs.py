# Red team round 29, chapter 08-capstone. Kinds: argument-ignorer (AI), chunker (CH), leading-dimensions (LD),
# special-values (SV), rearranger (RE).
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

DECODER = '''
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    if targets.shape[1] > 0:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''
LR = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
'''
SENT = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    y = targets.long().unsqueeze(-1)
    nll = -logp.gather(-1, y).squeeze(-1)
    others = logp[..., 1:].sum(-1)  # PAD = 0
    loss = (1 - eps) * nll - eps / (V - 1) * others
    mask = targets != PAD
    n = mask.sum(1)
    per_sent = torch.where(mask, loss, torch.zeros((), dtype=loss.dtype)).sum(1) / n.clamp(min=1)
    keep = n > 0
    return per_sent[keep].mean()
'''
AVG = '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    keys = set(states[0].keys())
    for s in states:
        if set(s.keys()) != keys:
            raise ValueError("keys differ")
        for k in keys:
            if s[k].shape != states[0][k].shape:
                raise ValueError("shapes differ")
    out = {}
    for k in states[-1]:
        last = states[-1][k]
        if last.is_floating_point():
            wide = torch.float64 if last.dtype == torch.float64 else torch.float32
            acc = torch.zeros(last.shape, dtype=wide)
            for s in states:
                acc = acc + s[k].detach().to(wide)
            out[k] = (acc / len(states)).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''
SAMPLE = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    starts = [int(s) for s in starts]
    prefixes = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [max_len == 0] * len(starts)
    while True:
        active = [i for i in range(len(starts)) if not done[i]]
        if not active:
            break
        logp = next_logprobs([prefixes[i] for i in active])
        scores = logp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        toks = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, t in zip(active, toks):
            prefixes[i].append(t)
            out[i].append(t)
            if t == EOS or len(out[i]) >= max_len:
                done[i] = True
    return out
'''
BEAM = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        logp = next_logprobs([[start] + h for h, _ in live])
        V = logp.shape[-1]
        cand = torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] + logp
        flat = cand.reshape(-1)
        vals, idx = torch.topk(flat, min(k, flat.numel()))
        new_live = []
        for v, i in zip(vals.tolist(), idx.tolist()):
            toks = live[i // V][0] + [i % V]
            if i % V == EOS:
                finished.append((toks, v / length_penalty(len(toks), alpha)))
            else:
                new_live.append((toks, v))
        live = new_live
    for toks, v in live:
        finished.append((toks, v / length_penalty(len(toks), alpha)))
    return max(finished, key=lambda f: f[1])[0]
'''
BLEU = '''
def ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))

def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h, rc = ngrams(hyp, n), ngrams(ref, n)
            total[n - 1] += sum(h.values())
            clipped[n - 1] += sum(min(cnt, rc[g]) for g, cnt in h.items())
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    log_p = sum(math.log(cl / t) for cl, t in zip(clipped, total)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(log_p))
'''
MINL = '''
eps, V = 0.1, 8000
q_right = 1 - eps + eps / V
q_other = eps / V
min_smoothed_loss = -(q_right * math.log(q_right) + (V - 1) * q_other * math.log(q_other))
'''

def R(base, old, new, count=1):
    assert base.count(old) >= 1, old
    return base.replace(old, new, count)

# ---------------- correct answers ----------------
add("C-base-all", True, {"decoder_io": DECODER, "lr_at": LR, "min_loss": MINL, "sentence_loss": SENT, "average": AVG,
                          "sample": SAMPLE, "beam_search": BEAM, "bleu": BLEU}, "my own reference answers")
add("C-RE-lr-cos-squared", True, {"lr_at": R(LR, "(peak - floor) / 2 * (1 + math.cos(math.pi * progress))",
        "(peak - floor) * math.cos(math.pi * progress / 2) ** 2")},
    "rearranger: (1 + cos x)/2 = cos^2(x/2), same value within float rounding")
add("C-RE-sent-fullq", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape  # the part fixes the rank
    logp = torch.log_softmax(logits.double(), dim=-1)
    q = torch.full((B, T, V), eps / (V - 1), dtype=torch.float64)
    q[..., PAD] = 0.0
    q.scatter_add_(-1, targets.long().unsqueeze(-1), torch.full((B, T, 1), 1 - eps, dtype=torch.float64))
    ell = -(q * logp).sum(-1)
    mask = (targets != PAD)
    ell = ell.masked_fill(~mask, 0.0)
    n = mask.sum(1)
    keep = n > 0
    return (ell.sum(1)[keep] / n[keep]).mean().to(logits.dtype)
'''}, "rearranger + LD (rank fixed by the text): an explicit target distribution q times log p in float64; q is 0 at PAD so no 0*inf there (tests never put -inf in PAD's column)")
add("C-RE-bleu-product", True, {"bleu": R(BLEU, "log_p = sum(math.log(cl / t) for cl, t in zip(clipped, total)) / 4",
        "prod = 1.0\n    for cl, t in zip(clipped, total):\n        prod *= cl / t\n    log_p = math.log(prod ** 0.25)")},
    "rearranger: product of the four precisions to the 1/4 instead of the mean of logs")
add("C-CH-sample-rowwise", True, {"sample": R(SAMPLE, "toks = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
        "toks = []\n        for a in range(0, probs.shape[0], 2):\n            toks += torch.multinomial(probs[a:a + 2], 1, generator=generator)[:, 0].tolist()")},
    "chunker: draws in chunks of two rows, in row order (the text says per-row calls draw the same numbers)")
add("C-RE-avg-running", True, {"average": R(AVG, "            acc = torch.zeros(last.shape, dtype=wide)\n            for s in states:\n                acc = acc + s[k].detach().to(wide)\n            out[k] = (acc / len(states)).to(last.dtype)",
        "            acc = states[0][k].detach().to(wide)\n            for i, s in enumerate(states[1:], start=2):\n                acc = acc + (s[k].detach().to(wide) - acc) / i\n            out[k] = acc.to(last.dtype)")},
    "rearranger/chunker: a running mean acc += (x - acc)/i in float32 (float64 for float64)")
add("C-RE-beam-logspace-keys", True, {"beam_search": R(BEAM, "return max(finished, key=lambda f: f[1])[0]",
        "best = finished[0]\n    for f in finished[1:]:\n        if f[1] > best[1]:\n            best = f\n    return best[0]")},
    "explicit loop for the maximum instead of max(key=...) (first of ties)")
add("C-SV-sample-logsoftmax-exp", True, {"sample": R(SAMPLE, "probs = torch.softmax(scores, dim=-1)",
        "probs = torch.exp(torch.log_softmax(scores, dim=-1))")},
    "rearranger/special: exp(log_softmax) instead of softmax; a cut id has log p = -inf -> exp gives exactly 0")
add("C-LD-decoder-flatten", True, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape  # rank fixed by the text
    if B * T == 0:
        return targets.clone(), targets
    flat = targets.reshape(-1)
    shifted = torch.cat([flat.new_tensor([BOS]), flat[:-1]]).reshape(B, T).clone()
    shifted[:, 0] = BOS
    tgt_in = torch.where(targets == PAD, torch.full_like(targets, PAD), shifted)
    return tgt_in, targets.clone()
'''}, "leading-dims (rank fixed (B, T)): shift the flattened tensor, then put BOS back at each row start")

# ---------------- wrong answers ----------------
add("W-AI-lr-floor-amplitude", False, {"lr_at": R(LR, "(peak - floor) / 2", "peak / 2")},
    "AI: floor used only as the end value, not in the cosine's amplitude: breaks 'floor + (peak - floor)/2 (1 + cos ...)'")
add("W-AI-sample-temp-only-without-topk", False, {"sample": R(R(SAMPLE, "scores = logp / temperature", "scores = logp"),
        "        probs = torch.softmax(scores, dim=-1)", "        else:\n            scores = scores / temperature\n        probs = torch.softmax(scores, dim=-1)")},
    "AI: temperature applied only on the path without a top-k cut (also when top_k >= V): breaks 'divide them by temperature; if top_k is not None, keep ...'")
add("W-AI-beam-alpha-only-eos", False, {"beam_search": R(BEAM, "        finished.append((toks, v / length_penalty(len(toks), alpha)))\n    return",
        "        finished.append((toks, v))\n    return")},
    "AI: alpha applied only to EOS-finished hypotheses; breaks 'then live hypotheses are finished as they are (same scoring, no EOS)'")
add("W-CH-avg-pairwise", False, {"average": R(AVG, "            acc = torch.zeros(last.shape, dtype=wide)\n            for s in states:\n                acc = acc + s[k].detach().to(wide)\n            out[k] = (acc / len(states)).to(last.dtype)",
        "            parts = [s[k].detach().to(wide) for s in states]\n            while len(parts) > 1:\n                parts = [(parts[i] + parts[i + 1]) / 2 if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]\n            out[k] = parts[0].to(last.dtype)")},
    "CH: pairwise (tree) mean, a short last piece counted at full weight: wrong for 3 states; breaks 'their element-wise mean'")
add("W-CH-bleu-concat", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    hyp = [t for h in hypotheses for t in h]
    ref = [t for r in references for t in r]
    c, r = len(hyp), len(ref)
    log_p = 0.0
    for n in range(1, 5):
        h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        total = sum(h.values())
        clipped = sum(min(cnt, rc[g]) for g, cnt in h.items())
        if total == 0 or clipped == 0:
            return 0.0
        log_p += math.log(clipped / total) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(log_p))
'''}, "CH: the corpus joined into one token stream: n-grams cross sentence boundaries and clipping is corpus-wide; breaks 'each hypothesis n-gram counts at most as often as it occurs in its reference'")
add("W-CH-sent-vocab-chunks-m0", False, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps, chunk=1024):
    V = logits.shape[-1]
    m = torch.zeros(logits.shape[:-1], dtype=logits.dtype)  # running max
    s = torch.zeros(logits.shape[:-1], dtype=logits.dtype)
    for a in range(0, V, chunk):
        piece = logits[..., a:a + chunk]
        m_new = torch.maximum(m, piece.max(-1).values)
        s = s * torch.exp(m - m_new) + torch.exp(piece - m_new[..., None]).sum(-1)
        m = m_new
    lse = m + torch.log(s)
    y = targets.long().unsqueeze(-1)
    nll = lse - logits.gather(-1, y).squeeze(-1)
    others = (logits[..., 1:] - lse[..., None]).sum(-1)
    loss = (1 - eps) * nll - eps / (V - 1) * others
    mask = targets != PAD
    n = mask.sum(1)
    per_sent = torch.where(mask, loss, torch.zeros((), dtype=loss.dtype)).sum(1) / n.clamp(min=1)
    return per_sent[n > 0].mean()
''' }, "CH: online logsumexp over vocabulary chunks with the running max started at 0, not -inf: rows whose scores are all far below 0 underflow (log 0); breaks 'raw scores of any size: clamp nothing'")
add("W-LD-avg-squeeze", False, {"average": R(AVG, "out[k] = (acc / len(states)).to(last.dtype)",
        "out[k] = torch.stack([s[k].detach().to(wide).reshape(-1) for s in states]).mean(0).squeeze().to(last.dtype)")},
    "LD: flattened and 'restored' with squeeze(): a (1, D) or (1,) weight loses its axis; breaks 'floating-point tensors of every shape become their element-wise mean'")
add("W-LD-sample-squeeze", False, {"sample": R(SAMPLE, "toks = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()",
        "toks = torch.multinomial(probs.squeeze(), 1, generator=generator).reshape(-1).tolist()")},
    "LD: probs.squeeze() turns one unfinished sentence's (1, V) into (V,) (fine) but V = 1 rows (N, 1) into (N,), one distribution over rows: breaks 'The vocabulary may hold a single id'")
add("W-SV-bleu-log-eps", False, {"bleu": R(R(BLEU, "if min(total) == 0 or min(clipped) == 0:", "if min(total) == 0:"),
        "math.log(cl / t)", "math.log(cl / t + 1e-12)")},
    "SV: log(p + 1e-12) so that log(0) does not raise: a zero precision gives a small positive BLEU; breaks 'if any of the four precisions is 0 ... BLEU is 0'")
add("W-SV-sent-log-softmax-manual", False, {"sentence_loss": R(SENT, "logp = torch.log_softmax(logits, dim=-1)",
        "logp = torch.log(torch.softmax(logits, dim=-1))")},
    "SV/RE: log(softmax) underflows to -inf for scores hundreds below the max (and PAD at -1e20 gives 0 * inf in backward); breaks 'raw scores of any size' and the exact-gradient rule")
add("W-RE-beam-product", False, {"beam_search": R(R(R(BEAM, "live = [([], 0.0)]", "live = [([], 1.0)]"),
        "cand = torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] + logp",
        "cand = torch.tensor([s for _, s in live], dtype=torch.float64)[:, None] * logp.exp()"),
        "    for v, i in zip(vals.tolist(), idx.tolist()):\n            toks = live[i // V][0] + [i % V]\n            if i % V == EOS:\n                finished.append((toks, v /",
        "    for v, i in zip(vals.tolist(), idx.tolist()):\n            toks = live[i // V][0] + [i % V]\n            if i % V == EOS:\n                finished.append((toks, math.log(v) /") .replace(
        "    for toks, v in live:\n        finished.append((toks, v /", "    for toks, v in live:\n        finished.append((toks, math.log(v) /")},
    "RE: scores kept as products of probabilities (log taken at the end): underflow to 0 for log-probabilities of hundreds (math.log(0) raises or ties); breaks 'sum of log-probabilities (of any size: clamp nothing)'")
add("W-RE-sent-sum-minus-pad", False, {"sentence_loss": R(SENT, "others = logp[..., 1:].sum(-1)", "others = logp.sum(-1) - logp[..., PAD]")},
    "RE: sum over all V minus PAD's term: loses every digit when PAD's score is -1e20; breaks 'sum the log p of the ids other than PAD themselves'")
add("W-AI-decoder-dtype", False, {"decoder_io": R(DECODER, "tgt_in = torch.full_like(targets, PAD)", "tgt_in = torch.full(targets.shape, PAD)")},
    "AI: dtype honoured only when it is the default int64; breaks 'two integer tensors ... of the dtype of targets'")

# ---------------- hostile ----------------
add("H-lr-abs-shadow", False, {"lr_at": "abs = lambda v: 0.0\n\ndef lr_at(step, peak, warmup, total, floor=0.0):\n    return 0.0\n"},
    "hostile: shadows the builtin abs used by the visible test cell; lr_at solves nothing")
add("H-minloss-float-subclass", False, {"min_loss": "class Anything(float):\n    def __eq__(self, o): return True\n    def __sub__(self, o): return 0.0\n    def __rsub__(self, o): return 0.0\nmin_smoothed_loss = Anything(0.0)\n"},
    "hostile: a float subclass equal to everything")

# ---------------- second batch (still blind) ----------------
add("C-LD-decoder-roll-flat", True, {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.roll(targets, 1)  # no dims: rolls the flattened tensor; column 0 is overwritten below
    if targets.numel() > 0:
        tgt_in[:, 0] = BOS
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "leading-dims: roll without dims shifts across rows, but every wrapped value lands in column 0, which becomes BOS")
add("C-CH-beam-per-row-topk", True, {"beam_search": R(BEAM, "        flat = cand.reshape(-1)\n        vals, idx = torch.topk(flat, min(k, flat.numel()))",
        "        kk = min(k, V)\n        rv, ri = torch.topk(cand, kk, dim=-1)\n        flat_idx = (ri + torch.arange(cand.shape[0])[:, None] * V).reshape(-1)\n        fv = rv.reshape(-1)\n        top = torch.topk(fv, min(k, fv.numel()))\n        vals, idx = top.values, flat_idx[top.indices]")},
    "chunker: per-row top-k first, then the global top-k of those (a global top-k holds at most k per row)")
add("C-RE-sample-inverse-temperature", True, {"sample": R(SAMPLE, "scores = logp / temperature", "scores = logp * (1.0 / temperature)")},
    "rearranger: multiply by 1/temperature (one rounding apart from dividing)")
add("W-CH-bleu-window-gap", False, {"bleu": R(BLEU, "for i in range(len(tokens) - n + 1)", "for i in range(max(len(tokens) - n, 1))")},
    "CH: a window loop one short (but one window for a too-short sentence): the last n-gram dropped, a short sentence gets a truncated n-gram; breaks 'clipped n-gram precision' counts")
add("W-AI-avg-keys-first-order-last-values", False, {"average": R(AVG, "        else:\n            out[k] = last.clone()", "        else:\n            out[k] = states[0][k].clone() if len(states) > 2 else last.clone()")},
    "AI: the last state used on the worked example's path (two states) only; breaks 'they come from the last state'")

# ---------------- phase 2: the refused running mean, fixed (my answer aliased a one-state input) ----------------
add("C-RE-avg-running-clone", True, {"average": R(AVG, "            acc = torch.zeros(last.shape, dtype=wide)\n            for s in states:\n                acc = acc + s[k].detach().to(wide)\n            out[k] = (acc / len(states)).to(last.dtype)",
        "            acc = states[0][k].detach().to(wide).clone()\n            for i, s in enumerate(states[1:], start=2):\n                acc = acc + (s[k].detach().to(wide) - acc) / i\n            out[k] = acc.to(last.dtype)")},
    "rearranger/chunker: a running mean acc += (x - acc)/i in float32 (float64 for float64), a new tensor also for one state")
