# Red-team round 5, chapter 08-capstone: blind submissions (written from the student notebook only).
C = {}
C["decoder_io"] = '''
def decoder_io(targets):
    tgt_out = targets.clone()
    tgt_in = torch.full_like(targets, BOS)
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, tgt_out
'''
C["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * progress)))
'''
C["min_loss"] = '''
eps, V = 0.1, 8000
q_right = 1 - eps + eps / V
q_other = eps / V
min_smoothed_loss = -(q_right * math.log(q_right) + (V - 1) * q_other * math.log(q_other))
'''
C["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    targets = targets.long()
    nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    keep = torch.ones(V, dtype=torch.bool)
    keep[PAD] = False
    smooth = -logp[..., keep].sum(-1) / (V - 1)
    tok = (1 - eps) * nll + eps * smooth
    mask = targets != PAD
    n = mask.sum(1)
    per_sent = (tok * mask).sum(1) / n.clamp(min=1)
    rows = n > 0
    return per_sent[rows].mean()
'''
C["average"] = '''
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
    for k in states[0]:
        t = states[-1][k]
        if t.is_floating_point():
            acc = torch.float64 if t.dtype == torch.float64 else torch.float32
            out[k] = (sum(s[k].to(acc) for s in states) / len(states)).to(t.dtype)
        else:
            out[k] = t.clone()
    return out
'''
C["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    while not all(done):
        live = [i for i in range(len(starts)) if not done[i]]
        lp = next_logprobs([seqs[i] for i in live]) / temperature
        if top_k is not None:
            vals, idx = torch.topk(lp, top_k, dim=-1)
            cut = torch.full_like(lp, float("-inf"))
            cut.scatter_(-1, idx, vals)
            lp = cut
        probs = torch.softmax(lp, dim=-1)
        draw = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for i, tok in zip(live, draw):
            seqs[i].append(int(tok))
            if tok == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''
C["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for j, (toks, score) in enumerate(live):
            for v in range(lp.shape[-1]):
                cands.append((score + float(lp[j, v]), j, v))
        cands.sort(key=lambda c: -c[0])
        new_live = []
        for score, j, v in cands[:k]:
            toks = live[j][0] + [v]
            if v == EOS:
                finished.append((score / length_penalty(len(toks), alpha), toks))
            else:
                new_live.append((toks, score))
        live = new_live
    for toks, score in live:
        finished.append((score / length_penalty(len(toks), alpha), toks))
    best = max(finished, key=lambda f: f[0])
    return [int(t) for t in best[1]]
'''
C["bleu"] = '''
def corpus_bleu(hypotheses, references):
    def grams(toks, n):
        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    logs = 0.0
    for n in range(1, 5):
        match = total = 0
        for h, r in zip(hypotheses, references):
            hg, rg = grams(h, n), grams(r, n)
            match += sum(min(c, rg[g]) for g, c in hg.items())
            total += sum(hg.values())
        if total == 0 or match == 0:
            return 0.0
        logs += math.log(match / total) / 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logs))
'''

def mut(cell, old, new, count=1):
    src = C[cell]
    assert src.count(old) >= 1, (cell, old)
    return {cell: src.replace(old, new, count)}

SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def OK(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

# ---------------- Part 1
W("p1_int32_promoted_to_int64", {"decoder_io": '''
def decoder_io(targets):
    B = targets.shape[0]
    bos = torch.full((B, 1), BOS)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''}, "'two integer tensors of shape (B, T) and of the dtype of targets' (int32 targets give an int64 tgt_in: torch.full defaults to int64 and cat promotes)")
W("p1_view_fails_noncontiguous", {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    flat = targets.view(-1)
    shifted = torch.cat([flat.new_tensor([BOS]), flat[:-1]]).view(B, T)
    shifted[:, 0] = BOS
    tgt_in = shifted.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''}, "intro: hidden tests pass 'tensors that are views and not contiguous, such as a transposed tensor' (.view raises on them)")
# ---------------- Part 2
W("p2_no_floor_after_total", mut("lr_at", "    if step >= total:\n        return float(floor)\n", ""),
  "'down to a floor, reached at step total and kept afterwards' / 'floor, step >= total' (the cosine rises again past total)")
W("p2_floor_ignored_in_cosine", mut("lr_at", "floor + (peak - floor) / 2 *", "peak / 2 *"),
  "'floor + (peak - floor)/2 (1 + cos(...))' for warmup < step < total: floor used only with its default 0")
W("p2_floor_branch_returns_int", mut("lr_at", "return float(floor)", "return floor"),
  "'returning a Python float on every branch, also when peak or floor is given as an int (such as floor=0)'")
# ---------------- Part 3
W("p3_spreads_over_V_minus_1", {"min_loss": '''
eps, V = 0.1, 8000
q_right = 1 - eps
q_other = eps / (V - 1)
min_smoothed_loss = -(q_right * math.log(q_right) + (V - 1) * q_other * math.log(q_other))
'''}, "'spreads ε evenly over all V tokens, the right one included' (this spreads it over the V - 1 others)")
# ---------------- Part 4
W("p4_token_mean_not_sentence_mean", {"sentence_loss": C["sentence_loss"].replace(
    "    per_sent = (tok * mask).sum(1) / n.clamp(min=1)\n    rows = n > 0\n    return per_sent[rows].mean()\n",
    "    return (tok * mask).sum() / mask.sum()\n")},
  "'the loss of a sentence is the mean of ℓ over its positions ... the result is the mean of the sentence losses' (token mean weighs long sentences more)")
W("p4_spread_over_all_V", mut("sentence_loss", "    smooth = -logp[..., keep].sum(-1) / (V - 1)\n", "    smooth = -logp.sum(-1) / V\n"),
  "'spreads ε evenly over the V - 1 tokens other than PAD ... PAD gets no share'")
W("p4_pad_rows_count_as_zero", mut("sentence_loss", "    rows = n > 0\n    return per_sent[rows].mean()\n", "    return per_sent.mean()\n"),
  "'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)'")
W("p4_float32_compute", mut("sentence_loss", "logp = torch.log_softmax(logits, dim=-1)", "logp = torch.log_softmax(logits.float(), dim=-1)"),
  "'Return a 0-dimensional tensor of the dtype of logits (float32 or float64)' (float64 logits give a float32 loss)")
# ---------------- Part 5
W("p5_float16_sum_overflows", mut("average", "acc = torch.float64 if t.dtype == torch.float64 else torch.float32", "acc = t.dtype"),
  "'Half-precision tensors must be as accurate as averaging in float32 or better and rounding once: ... float16 weights whose sum does not fit in float16'")
W("p5_key_order_matters", mut("average", "        if set(s.keys()) != keys:", "        if list(s.keys()) != list(states[0].keys()):"),
  "'the same keys in another order do not differ'")
W("p5_single_state_returned_as_is", mut("average", "    out = {}\n", "    if len(states) == 1:\n        return states[0]\n    out = {}\n"),
  "'return a new dict (not one of the given ones)'")
W("p5_no_shape_check", mut("average", "            if s[k].shape != states[0][k].shape:\n                raise ValueError(\"shapes differ\")\n", "            pass\n"),
  "'states whose keys or shapes differ raise ValueError' (broadcastable shapes such as (1,) and (3,) average silently)")
# ---------------- Part 6
W("p6_temperature_multiplies", mut("sample", "lp = next_logprobs([seqs[i] for i in live]) / temperature", "lp = next_logprobs([seqs[i] for i in live]) * temperature"),
  "'divide them by temperature' (visible test uses temperature 1)")
W("p6_draws_for_finished_rows", {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    done = [False] * len(starts)
    while not all(done):
        lp = next_logprobs(seqs) / temperature
        if top_k is not None:
            vals, idx = torch.topk(lp, top_k, dim=-1)
            cut = torch.full_like(lp, float("-inf"))
            cut.scatter_(-1, idx, vals)
            lp = cut
        draw = torch.multinomial(torch.softmax(lp, dim=-1), 1, generator=generator)[:, 0].tolist()
        for i, tok in enumerate(draw):
            if done[i]:
                continue
            seqs[i].append(int(tok))
            if tok == EOS or len(seqs[i]) - 1 >= max_len:
                done[i] = True
    return [s[1:] for s in seqs]
'''}, "'ask next_logprobs once, with the prefixes of the unfinished sentences only' / 'Draw nothing for finished sentences'")
W("p6_max_len_counts_start", mut("sample", "len(seqs[i]) - 1 >= max_len", "len(seqs[i]) >= max_len"),
  "'A sentence is finished after it produces EOS or after max_len new tokens' (stops one short)")
W("p6_forbids_pad_bos", mut("sample", "        probs = torch.softmax(lp, dim=-1)\n", "        lp[:, PAD] = float('-inf')\n        lp[:, BOS] = float('-inf')\n        probs = torch.softmax(lp, dim=-1)\n"),
  "'it may predict any id, PAD and BOS included: treat them like any other token'")
W("p6_float32_probs", mut("sample", "        probs = torch.softmax(lp, dim=-1)\n", "        probs = torch.softmax(lp.float(), dim=-1)\n"),
  "'draw one token per row with torch.multinomial(probs, 1, generator=generator) on the float64 probabilities' (float32 probabilities: a draw near a cumulative boundary can differ)")
# ---------------- Part 7
W("p7_refills_beam", mut("beam_search", "        for score, j, v in cands[:k]:\n", "        for score, j, v in cands:\n            if len(new_live) >= k:\n                break\n"),
  "'Finished candidates use up places among the k ... the beam is not refilled'")
W("p7_penalty_without_eos", mut("beam_search", "finished.append((score / length_penalty(len(toks), alpha), toks))\n            else:", "finished.append((score / length_penalty(len(toks) - 1, alpha), toks))\n            else:"),
  "'divided by length_penalty(len(tokens), alpha), with the EOS counted in the length'")
W("p7_unfinished_live_dropped", mut("beam_search", "    for toks, score in live:\n        finished.append((score / length_penalty(len(toks), alpha), toks))\n",
  "    if not finished:\n        for toks, score in live:\n            finished.append((score / length_penalty(len(toks), alpha), toks))\n"),
  "'then live hypotheses are finished as they are (same scoring, no EOS)' (here only when nothing else finished)")
# ---------------- Part 8
W("p8_zero_returned_as_int", mut("bleu", "            return 0.0", "            return 0"),
  "'times 100, returned as a Python float (also when it is 0)'")
W("p8_bp_always", mut("bleu", "    bp = 1.0 if c >= r else math.exp(1 - r / c)", "    bp = math.exp(1 - r / c)"),
  "'times the brevity penalty exp(1 - r/c) when ... c is shorter than ... r (1 otherwise)'")
W("p8_sentence_average", {"bleu": '''
def corpus_bleu(hypotheses, references):
    def grams(toks, n):
        return Counter(tuple(toks[i:i + n]) for i in range(len(toks) - n + 1))
    logs = 0.0
    for n in range(1, 5):
        precs = []
        for h, r in zip(hypotheses, references):
            hg, rg = grams(h, n), grams(r, n)
            tot = sum(hg.values())
            if tot:
                precs.append(sum(min(c, rg[g]) for g, c in hg.items()) / tot)
        p = sum(precs) / len(precs) if precs else 0.0
        if p == 0:
            return 0.0
        logs += math.log(p) / 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logs))
'''}, "'a corpus-level ratio, not an average of per-sentence ratios'")
W("p8_concatenated_corpus", {"bleu": C["bleu"].replace(
    "        for h, r in zip(hypotheses, references):\n            hg, rg = grams(h, n), grams(r, n)\n",
    "        for h, r in [(sum(hypotheses, []), sum(references, []))]:\n            hg, rg = grams(h, n), grams(r, n)\n")},
  "'each hypothesis n-gram counts at most as often as it occurs in its reference' (concatenating makes n-grams across sentence boundaries and clips against other sentences' references)")
W("p8_unclipped", mut("bleu", "match += sum(min(c, rg[g]) for g, c in hg.items())", "match += sum(c for g, c in hg.items() if g in rg)"),
  "'the clipped n-gram precision: each hypothesis n-gram counts at most as often as it occurs in its reference'")

# ---------------- hostile
SUBMISSIONS.append({"name": "h_builtins_abs_patched", "correct": False, "cells": {"lr_at": '''
import builtins
builtins.abs = lambda x: 0.0
def lr_at(step, peak, warmup, total, floor=0.0):
    return 0.0
'''}, "why": "hostile: patches builtins.abs so every abs(...) < tol comparison passes"})
SUBMISSIONS.append({"name": "h_lying_float_bleu", "correct": False, "cells": {"bleu": '''
class Anything(float):
    def __eq__(self, other): return True
    def __sub__(self, other): return Anything(0.0)
    def __rsub__(self, other): return Anything(0.0)
    def __abs__(self): return 0.0
    def __lt__(self, other): return True
    def __hash__(self): return 0
def corpus_bleu(hypotheses, references):
    return Anything(0.0)
'''}, "why": "hostile: a float subclass equal to everything"})
SUBMISSIONS.append({"name": "h_patch_assert_close", "correct": False, "cells": {"average": '''
torch.testing.assert_close = lambda *a, **k: None
def average_checkpoints(states):
    if not states:
        raise ValueError
    return {k: v.clone() for k, v in states[-1].items()}
'''}, "why": "hostile: disables torch.testing.assert_close and returns the last state"})

# ---------------- different but correct
OK("c1_decoder_io_loop", {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    tgt_in = torch.empty_like(targets)
    for b in range(B):
        prev = BOS
        for t in range(T):
            tgt_in[b, t] = PAD if targets[b, t] == PAD else prev
            prev = targets[b, t]
    return tgt_in, targets
'''}, "same rule with loops, returning targets itself (allowed)")
OK("c2_lr_sin_squared", {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step <= warmup:
        return step / warmup * peak * 1.0
    if step >= total:
        return floor * 1.0
    x = (step - warmup) / (total - warmup)
    return floor + (peak - floor) * math.cos(math.pi * x / 2) ** 2
'''}, "(1 + cos 2a)/2 = cos^2 a")
OK("c3_bleu_counter_and", {"bleu": '''
def corpus_bleu(hypotheses, references):
    import collections
    match = [0] * 4
    total = [0] * 4
    for h, r in zip(hypotheses, references):
        for n in range(1, 5):
            hg = collections.Counter(zip(*[h[i:] for i in range(n)]))
            rg = collections.Counter(zip(*[r[i:] for i in range(n)]))
            match[n - 1] += sum((hg & rg).values())
            total[n - 1] += sum(hg.values())
    if min(total) == 0 or min(match) == 0:
        return 0.0
    p = 1.0
    for m, t in zip(match, total):
        p *= m / t
    c = sum(map(len, hypotheses)); r = sum(map(len, references))
    bp = math.exp(1 - r / c) if c < r else 1.0
    return 100.0 * bp * p ** 0.25
'''}, "Counter intersection for clipping, product of precisions to the 1/4")
OK("c4_sentence_loss_cross_entropy", {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    import torch.nn.functional as F
    B, T, V = logits.shape
    logp = F.log_softmax(logits, dim=-1)
    w = torch.full((V,), eps / (V - 1), dtype=logits.dtype)
    w[PAD] = 0.0
    dist = w.expand(B, T, V).clone()
    dist.scatter_add_(-1, targets.long().unsqueeze(-1), torch.full((B, T, 1), 1 - eps, dtype=logits.dtype))
    tok = -(dist * logp).sum(-1)
    mask = (targets != PAD).to(logits.dtype)
    n = mask.sum(1)
    has = n > 0
    return ((tok * mask).sum(1)[has] / n[has]).mean()
'''}, "explicit target distribution dotted with log p")
