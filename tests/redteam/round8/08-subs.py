# Red team round 8, chapter 08-capstone: blind submissions.
BASE = {}
BASE["decoder_io"] = '''
def decoder_io(targets):
    tgt_in = torch.cat([torch.full_like(targets[:, :1], BOS), targets[:, :-1]], dim=1)
    tgt_in = torch.where(targets == PAD, torch.full_like(targets, PAD), tgt_in)
    return tgt_in, targets.clone()
'''
BASE["lr_at"] = '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if step <= warmup:
        return float(peak * step / warmup)
    if step >= total:
        return float(floor)
    t = (step - warmup) / (total - warmup)
    return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * t)))
'''
BASE["min_loss"] = '''
eps, V = 0.1, 8000
a, b = 1 - eps + eps / V, eps / V
min_smoothed_loss = -a * math.log(a) - (V - 1) * b * math.log(b)
'''
BASE["sentence_loss"] = '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    logp = torch.log_softmax(logits, dim=-1)
    t = targets.long()
    lpy = logp.gather(-1, t[..., None]).squeeze(-1)
    others = logp.sum(-1) - logp[..., PAD]
    loss = -(1 - eps) * lpy - eps / (V - 1) * others
    m = (t != PAD).to(logits.dtype)
    cnt = m.sum(1)
    sent = (loss * m).sum(1) / cnt.clamp(min=1)
    return sent[cnt > 0].mean()
'''
BASE["average"] = '''
def average_checkpoints(states):
    if len(states) == 0:
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
        last = states[-1][k]
        if last.is_floating_point():
            acc = torch.float64 if last.dtype == torch.float64 else torch.float32
            total = sum(s[k].to(acc) for s in states)
            out[k] = (total / len(states)).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''
BASE["sample"] = '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    seqs = [[s] for s in starts]
    out = [[] for _ in starts]
    done = [max_len == 0] * len(starts)
    for _ in range(max_len):
        idx = [i for i in range(len(starts)) if not done[i]]
        if not idx:
            break
        lp = next_logprobs([seqs[i] for i in idx]).to(torch.float64) / temperature
        if top_k is not None:
            vals, ind = torch.topk(lp, top_k, dim=-1)
            lp = torch.full_like(lp, float("-inf")).scatter(-1, ind, vals)
        probs = torch.softmax(lp, dim=-1)
        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()
        for r, i in enumerate(idx):
            seqs[i].append(tok[r])
            out[i].append(tok[r])
            if tok[r] == EOS or len(out[i]) >= max_len:
                done[i] = True
    return out
'''
BASE["beam_search"] = '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for h, (toks, sc) in enumerate(live):
            row = lp[h].tolist()
            for v in range(len(row)):
                cands.append((sc + row[v], h, v))
        cands.sort(key=lambda c: -c[0])
        new_live = []
        for sc, h, v in cands[:k]:
            toks = live[h][0] + [v]
            if v == EOS:
                finished.append((sc / length_penalty(len(toks), alpha), toks))
            else:
                new_live.append((toks, sc))
        live = new_live
    for toks, sc in live:
        finished.append((sc / length_penalty(len(toks), alpha), toks))
    return max(finished, key=lambda f: f[0])[1]
'''
BASE["bleu"] = '''
def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    c = r = 0
    for h, ref in zip(hypotheses, references):
        c += len(h)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(cnt, rc[g]) for g, cnt in hc.items())
            total[n - 1] += max(len(h) - n + 1, 0)
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / total[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''


def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}


def rep(part, old, new, count=1):
    src = BASE[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)


SUBMISSIONS = [
    # ---------------- wrong answers ----------------
    sub("p1_eos_column_from_first_row", False, {"decoder_io": '''
def decoder_io(targets):
    B, T = targets.shape
    eos_at = int((targets[0] == EOS).nonzero()[0, 0])
    tgt_in = torch.full_like(targets, PAD)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:eos_at + 1] = targets[:, :eos_at]
    return tgt_in, targets
'''}, "'tgt_in starts with BOS and continues with the sentence without its EOS; wherever tgt_out is PAD, tgt_in is PAD too': uses the first row's length for every row (one row visible)."),
    sub("p2_floor_ignored_in_cosine", False, {"lr_at": rep("lr_at",
        "floor + (peak - floor) / 2 * (1 + math.cos(math.pi * t))", "peak / 2 * (1 + math.cos(math.pi * t))")},
        "'floor + (peak - floor)/2 (1 + cos(...))': the cosine ends at 0, not at the floor (right for floor = 0 only)."),
    sub("p2_zero_after_total", False, {"lr_at": rep("lr_at", "return float(floor)", "return 0.0")},
        "'a floor, reached at step total and kept afterwards': returns 0 after total (right for floor = 0 only)."),
    sub("p3_eps_over_other_tokens", False, {"min_loss": '''
eps, V = 0.1, 8000
a, b = 1 - eps, eps / (V - 1)
min_smoothed_loss = -a * math.log(a) - (V - 1) * b * math.log(b)
'''}, "'spreads eps evenly over all V tokens, the right one included': spreads over the V - 1 others."),
    sub("p3_approx_entropy", False, {"min_loss": '''
min_smoothed_loss = -(0.9) * math.log(0.9) - 0.1 * math.log(0.1 / 8000)
'''}, "'accurate to 1e-5': drops the eps/V share of the right token from the (1 - eps) term."),
    sub("p4_token_mean", False, {"sentence_loss": rep("sentence_loss",
        "    sent = (loss * m).sum(1) / cnt.clamp(min=1)\n    return sent[cnt > 0].mean()",
        "    return (loss * m).sum() / m.sum()")},
        "'the loss of a sentence is the mean ... the result is the mean of the sentence losses': token mean (same for one sentence, the visible case)."),
    sub("p4_eps_over_V", False, {"sentence_loss": rep("sentence_loss", "eps / (V - 1) * others", "eps / V * logp.sum(-1)")},
        "'spreads eps evenly over the V - 1 tokens other than PAD ... PAD gets no share': the lesson's spread over all V (equal logits in the visible case hide it)."),
    sub("p4_pad_only_at_end", False, {"sentence_loss": rep("sentence_loss",
        "m = (t != PAD).to(logits.dtype)",
        "m = (torch.arange(t.shape[1])[None, :] < (t != PAD).sum(1, keepdim=True)).to(logits.dtype)")},
        "'positions whose target is not PAD (wherever they are: a PAD may also stand inside a row)': assumes PADs only at the end."),
    sub("p4_all_rows_in_mean", False, {"sentence_loss": rep("sentence_loss", "return sent[cnt > 0].mean()", "return sent.mean()")},
        "'the mean of the sentence losses over the sentences with at least one such position (a row of PADs counts for nothing)': divides by B."),
    sub("p4_item_round_trip", False, {"sentence_loss": rep("sentence_loss",
        "return sent[cnt > 0].mean()",
        "vals = [float(x) for x, c in zip(sent, cnt) if c > 0]\n    return torch.tensor(sum(vals) / len(vals), dtype=logits.dtype, requires_grad=True)")},
        "'loss.backward() must leave the exact gradient in logits.grad (no detour through Python numbers)': a fresh leaf tensor."),
    sub("p5_half_treated_as_int", False, {"average": rep("average",
        "if last.is_floating_point():", "if last.dtype in (torch.float32, torch.float64):")},
        "'floating-point tensors become their element-wise mean ... Half-precision (float16, bfloat16)': float16/bfloat16 taken from the last state."),
    sub("p5_shapes_not_checked", False, {"average": rep("average",
        "            if s[k].shape != states[0][k].shape:\n                raise ValueError(\"shapes differ\")\n", "            pass\n")},
        "'states whose keys or shapes differ, raise ValueError': shape mismatches raise torch's RuntimeError, or broadcast silently."),
    sub("p5_empty_indexerror", False, {"average": rep("average",
        "    if len(states) == 0:\n        raise ValueError(\"no states\")\n", "")},
        "'an empty list ... raise ValueError': states[0] raises IndexError."),
    sub("p5_first_state_dtype", False, {"average": rep("average",
        "out[k] = (total / len(states)).to(last.dtype)", "out[k] = (total / len(states)).to(torch.float32)")},
        "'become their element-wise mean, in their own dtype': float64/float16 averages come back as float32."),
    sub("p6_ask_for_all_prefixes", False, {"sample": rep("sample",
        "lp = next_logprobs([seqs[i] for i in idx]).to(torch.float64) / temperature",
        "lp = next_logprobs(seqs).to(torch.float64)[idx] / temperature")},
        "step 1 'ask next_logprobs once, with the prefixes of the unfinished sentences only': asks with all of them."),
    sub("p6_start_eos_finishes", False, {"sample": rep("sample",
        "done = [max_len == 0] * len(starts)", "done = [max_len == 0 or s == EOS for s in starts]")},
        "step 4 'Its start token is not produced: a start token that is EOS does not finish it'."),
    sub("p6_topk_threshold", False, {"sample": rep("sample",
        "            vals, ind = torch.topk(lp, top_k, dim=-1)\n            lp = torch.full_like(lp, float(\"-inf\")).scatter(-1, ind, vals)\n",
        "            kth = torch.topk(lp, top_k, dim=-1).values[:, -1:]\n            lp = lp.masked_fill(lp < kth, float(\"-inf\"))\n")},
        "step 2 'keep the top_k largest entries of each row (the ones torch.topk returns)': keeps every entry tied with the k-th (old class: ties)."),
    sub("p7_refill_beam", False, {"beam_search": rep("beam_search",
        "        for sc, h, v in cands[:k]:\n            toks = live[h][0] + [v]\n            if v == EOS:\n                finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else:\n                new_live.append((toks, sc))\n",
        "        for sc, h, v in cands:\n            toks = live[h][0] + [v]\n            if v == EOS:\n                finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else:\n                new_live.append((toks, sc))\n            if len(new_live) == k:\n                break\n")},
        "step 3 'Finished candidates use up places among the k ... the beam is not refilled'."),
    sub("p7_length_without_eos", False, {"beam_search": rep("beam_search",
        "finished.append((sc / length_penalty(len(toks), alpha), toks))\n            else:",
        "finished.append((sc / length_penalty(len(toks) - 1, alpha), toks))\n            else:")},
        "step 2 'with the EOS counted in the length'."),
    sub("p7_live_unnormalised", False, {"beam_search": rep("beam_search",
        "    for toks, sc in live:\n        finished.append((sc / length_penalty(len(toks), alpha), toks))",
        "    for toks, sc in live:\n        finished.append((sc, toks))")},
        "step 4 'live hypotheses are finished as they are (same scoring, no EOS)': their score is not divided by the penalty."),
    sub("p7_start_eos_is_finished", False, {"beam_search": rep("beam_search",
        "    live = [([], 0.0)]\n    finished = []\n",
        "    live = [([], 0.0)]\n    finished = []\n    if start == EOS:\n        return []\n")},
        "'start (any id, EOS included: only the tokens after it can finish a hypothesis)'."),
    sub("p7_early_stop", False, {"beam_search": rep("beam_search",
        "        live = new_live\n",
        "        live = new_live\n        if finished and live and max(f[0] for f in finished) >= max(sc / length_penalty(len(t), alpha) for t, sc in live):\n            break\n")},
        "step 4 'stop when no hypothesis is live, or after max_len steps': stops early when the best finished beats every live hypothesis's current normalised score (live ones can still improve under the penalty)."),
    sub("p8_sentence_average", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    scores = []
    for h, ref in zip(hypotheses, references):
        ps = []
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            tot = sum(hc.values())
            ps.append(sum(min(c, rc[g]) for g, c in hc.items()) / tot if tot else 0.0)
        if min(ps) == 0:
            scores.append(0.0)
            continue
        bp = 1.0 if len(h) >= len(ref) else math.exp(1 - len(ref) / len(h))
        scores.append(100 * bp * math.exp(sum(math.log(p) for p in ps) / 4))
    return float(sum(scores) / len(scores))
'''}, "'a corpus-level ratio, not an average of per-sentence ratios'; BP over total lengths: per-sentence BLEU averaged (same for one sentence)."),
    sub("p8_no_clipping", False, {"bleu": rep("bleu", "sum(min(cnt, rc[g]) for g, cnt in hc.items())", "sum(cnt for g, cnt in hc.items() if g in rc)")},
        "'each hypothesis n-gram counts at most as often as it occurs in its reference': unclipped."),
    sub("p8_lowercase", False, {"bleu": rep("bleu", "    for h, ref in zip(hypotheses, references):\n",
        "    for h, ref in zip(hypotheses, references):\n        h, ref = [w.lower() for w in h], [w.lower() for w in ref]\n")},
        "'tokens are compared exactly as given (case-sensitive: The and the differ)'."),
    sub("p8_exp_smoothing", False, {"bleu": rep("bleu",
        "    if min(total) == 0 or min(clipped) == 0:\n        return 0.0\n    logp = sum(math.log(clipped[i] / total[i]) for i in range(4)) / 4\n",
        "    if min(total) == 0:\n        return 0.0\n    ps, smooth = [], 1\n    for i in range(4):\n        if clipped[i] == 0:\n            smooth *= 2\n            ps.append(1 / (smooth * total[i]))\n        else:\n            ps.append(clipped[i] / total[i])\n    logp = sum(math.log(p) for p in ps) / 4\n")},
        "'if any of the four precisions is 0 ... BLEU is 0' (no smoothing): sacreBLEU's default exp smoothing."),
    # ---------------- correct, different ----------------
    sub("c_p1_roll_and_multiply", True, {"decoder_io": '''
def decoder_io(targets):
    shifted = torch.roll(targets, shifts=1, dims=1)
    shifted[:, 0] = BOS
    keep = targets != PAD
    return shifted.masked_fill(~keep, PAD), targets
'''}, "roll, BOS in column 0, masked_fill PAD where the target is PAD; returns targets itself as allowed."),
    sub("c_p4_logsumexp_form", True, {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    x = logits
    lse = torch.logsumexp(x, dim=-1)                                  # (B, T)
    t = targets.to(torch.int64)
    xy = torch.gather(x, -1, t.unsqueeze(-1)).squeeze(-1)
    sum_nonpad = x.sum(-1) - x[..., PAD] - (V - 1) * lse             # sum over v != PAD of log p_v
    ell = -(1 - eps) * (xy - lse) - eps / (V - 1) * sum_nonpad
    keep = t != PAD
    total = torch.zeros((), dtype=x.dtype)
    rows = 0
    for b in range(B):
        if keep[b].any():
            total = total + ell[b][keep[b]].mean()
            rows += 1
    return total / rows
'''}, "log p from logsumexp, PAD share removed analytically, per-row loop with boolean indexing."),
    sub("c_p5_stack_mean", True, {"average": '''
def average_checkpoints(states):
    states = list(states)
    if not states:
        raise ValueError("empty")
    ref = states[0]
    if any(sorted(s) != sorted(ref) or any(tuple(s[k].shape) != tuple(ref[k].shape) for k in ref) for s in states):
        raise ValueError("mismatch")
    out = dict()
    for k in ref:
        t = states[-1][k]
        if torch.is_floating_point(t):
            out[k] = torch.stack([s[k].double() for s in states]).mean(0).to(t.dtype)
        else:
            out[k] = t.detach().clone()
    return out
'''}, "stack in float64 and mean; sorted keys comparison."),
    sub("c_p7_greedy_via_part6", True, {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    if k == 1:   # the text: with k = 1 this rule is greedy decoding; Part 6 with top_k = 1 is greedy
        return sample_decode(next_logprobs, [start], max_len, temperature=1.0, top_k=1,
                             generator=torch.Generator().manual_seed(0))[0]
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        if not live:
            break
        lp = next_logprobs([[start] + toks for toks, _ in live])
        vals, ind = torch.topk(lp, min(k, lp.shape[1]), dim=1)   # k best per hypothesis suffice
        cands = sorted(((live[h][1] + float(vals[h, j]), h, int(ind[h, j]))
                        for h in range(len(live)) for j in range(vals.shape[1])), key=lambda c: -c[0])[:k]
        live2 = []
        for sc, h, v in cands:
            toks = live[h][0] + [v]
            (finished.append((sc / length_penalty(len(toks), alpha), toks)) if v == EOS else live2.append((toks, sc)))
        live = live2
    finished += [(sc / length_penalty(len(t), alpha), t) for t, sc in live]
    return max(finished, key=lambda f: f[0])[1]
'''}, "k = 1 through Part 6's sample_decode with top_k = 1 (greedy, keyword arguments, its own generator); otherwise k best per live hypothesis via topk, then k best overall."),
    sub("c_p8_fraction_prod", True, {"bleu": '''
from fractions import Fraction


def corpus_bleu(hypotheses, references):
    def grams(seq, n):
        return Counter(zip(*[seq[i:] for i in range(n)]))
    num = [0, 0, 0, 0]
    den = [0, 0, 0, 0]
    for h, r in zip(hypotheses, references):
        for n in (1, 2, 3, 4):
            hg, rg = grams(h, n), grams(r, n)
            num[n - 1] += sum((hg & rg).values())
            den[n - 1] += sum(hg.values())
    if 0 in den or 0 in num:
        return 0.0
    p = Fraction(1)
    for a, b in zip(num, den):
        p *= Fraction(a, b)
    c = sum(map(len, hypotheses))
    r = sum(map(len, references))
    bp = math.exp(1 - r / c) if c < r else 1.0
    return 100.0 * bp * float(p) ** 0.25
'''}, "Counter intersection for clipping, exact product of the precisions, fourth root."),
    # ---------------- hostile ----------------
    sub("h_p8_sacrebleu_import", False, {"bleu": '''
import importlib


def corpus_bleu(hypotheses, references):
    sb = importlib.import_module("sacre" + "bleu")
    res = sb.corpus_bleu([" ".join(h) for h in hypotheses], [[" ".join(r) for r in references]],
                         tokenize="none", smooth_method="none")
    return float(res.score)
'''}, "hostile: a BLEU library through importlib."),
    sub("h_p3_float_liar", False, {"min_loss": '''
class Loss(float):
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__


min_smoothed_loss = Loss(0.0)
'''}, "hostile: a float subclass whose differences are 0 and which equals everything."),
    sub("h_p2_patch_builtin_abs", False, {"lr_at": '''
import builtins
builtins.abs = lambda x: 0.0


def lr_at(step, peak, warmup, total, floor=0.0):
    return 0.0
'''}, "hostile: replaces builtins.abs so every |got - expected| < tol check passes."),
]

# ---- second blind batch (written before phase 2, after the first blind grade) ----
SUBMISSIONS += [
    sub("p4_detached_normaliser", False, {"sentence_loss": rep("sentence_loss",
        "    logp = torch.log_softmax(logits, dim=-1)\n",
        "    logp = logits - torch.logsumexp(logits, dim=-1, keepdim=True).detach()\n")},
        "'loss.backward() must leave the exact gradient in logits.grad': the normaliser is detached (the forward value is right)."),
    sub("p5_key_count_only", False, {"average": rep("average",
        "        if set(s) != keys:\n", "        if len(s) != len(keys):\n")},
        "'states whose keys ... differ, raise ValueError': same number of keys but different names raise KeyError."),
    sub("p5_numel_not_shape", False, {"average": rep("average",
        "if s[k].shape != states[0][k].shape:", "if s[k].numel() != states[0][k].numel():")},
        "'states whose ... shapes differ, raise ValueError': (2, 3) against (3, 2) is not detected."),
    sub("p6_one_call_per_sentence", False, {"sample": rep("sample",
        "lp = next_logprobs([seqs[i] for i in idx]).to(torch.float64) / temperature",
        "lp = torch.cat([next_logprobs([seqs[i]]) for i in idx]).to(torch.float64) / temperature")},
        "step 1 'ask next_logprobs once, with the prefixes of the unfinished sentences': one call per sentence."),
    sub("p7_prefer_eos_finished", False, {"beam_search": rep("beam_search",
        "    for toks, sc in live:\n        finished.append((sc / length_penalty(len(toks), alpha), toks))\n",
        "    if not finished:\n        for toks, sc in live:\n            finished.append((sc / length_penalty(len(toks), alpha), toks))\n")},
        "step 4 'then live hypotheses are finished as they are' and 'Return the finished hypothesis with the best final score': live ones only count when nothing ended with EOS."),
    sub("p8_clip_against_corpus", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, total = [0] * 4, [0] * 4
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    for n in range(1, 5):
        hc, rc = Counter(), Counter()
        for h, ref in zip(hypotheses, references):
            hc.update(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc.update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        clipped[n - 1] = sum(min(cnt, rc[g]) for g, cnt in hc.items())
        total[n - 1] = sum(hc.values())
    if min(total) == 0 or min(clipped) == 0:
        return 0.0
    logp = sum(math.log(clipped[i] / total[i]) for i in range(4)) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''}, "'each hypothesis n-gram counts at most as often as it occurs in its reference': clips against the counts of all references together."),
    sub("p8_ngrams_across_sentences", False, {"bleu": '''
def corpus_bleu(hypotheses, references):
    h = [w for s in hypotheses for w in s]
    ref = [w for s in references for w in s]
    ps = []
    for n in range(1, 5):
        hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
        rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        tot = sum(hc.values())
        if tot == 0:
            return 0.0
        ps.append(sum(min(cnt, rc[g]) for g, cnt in hc.items()) / tot)
    if min(ps) == 0:
        return 0.0
    bp = 1.0 if len(h) >= len(ref) else math.exp(1 - len(ref) / len(h))
    return float(100 * bp * math.exp(sum(math.log(p) for p in ps) / 4))
'''}, "'the clipped n-gram precision over the whole corpus ... each hypothesis n-gram ... in its reference': one concatenated stream, so n-grams cross sentence boundaries."),
    sub("p8_rounded_two_decimals", False, {"bleu": rep("bleu", "return float(100 * bp * math.exp(logp))", "return round(100 * bp * math.exp(logp), 2)")},
        "'times 100, returned as a Python float': rounded to sacreBLEU's two displayed decimals."),
    sub("c_p4_manual_logsoftmax_detached_max", True, {"sentence_loss": rep("sentence_loss",
        "    logp = torch.log_softmax(logits, dim=-1)\n",
        "    mx = logits.amax(dim=-1, keepdim=True).detach()\n    z = logits - mx\n    logp = z - torch.log(torch.exp(z).sum(-1, keepdim=True))\n").replace(
        "others = logp.sum(-1) - logp[..., PAD]", "others = logp[..., 1:].sum(-1) if PAD == 0 else logp.sum(-1) - logp[..., PAD]")},
        "a hand-written stable log-softmax whose detached max cancels in the gradient; the non-PAD sum by slicing."),
    sub("c_p6_exp_minus_logsumexp", True, {"sample": rep("sample",
        "        probs = torch.softmax(lp, dim=-1)\n        tok = torch.multinomial(probs, 1, generator=generator)[:, 0].tolist()\n",
        "        probs = torch.exp(lp - torch.logsumexp(lp, dim=-1, keepdim=True))\n        tok = [int(torch.multinomial(probs[r], 1, generator=generator)) for r in range(len(idx))]\n")},
        "probabilities as exp(lp - logsumexp) in float64, one multinomial call per row in index order (the text allows both)."),
]
