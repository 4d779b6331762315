# Red-team round 21, chapter 08-capstone: four kinds of student
# (O = order-of-operations, Z = vectoriser, S = signature-and-defaults, C = variant-confuser, H = hostile)
import importlib.util as _u, os as _os
_here = _os.path.dirname(_os.path.abspath(__file__))
_p = _os.path.join(_here, "08-base.py")
if not _os.path.exists(_p):
    _p = "/tmp/rt21-0809/base08.py"  # scratch copy
_s = _u.spec_from_file_location("base08", _p); _m = _u.module_from_spec(_s); _s.loader.exec_module(_m)
BASE = _m.BASE


def mut(cell, *pairs):
    src = BASE[cell]
    for old, new in pairs:
        assert old in src, (cell, old)
        src = src.replace(old, new)
    return {cell: src}


SUBMISSIONS = [
    # ---------------- wrong: order of operations ----------------
    {"name": "O1_p6_mask_probs_after_softmax_renorm", "correct": False,
     "cells": mut("sample", ('''        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)''', '''        probs = torch.softmax(scores, dim=-1)
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            keep = torch.zeros_like(probs).scatter(-1, idx, 1.0)
            probs = probs * keep
            probs = probs / probs.sum(-1, keepdim=True)''')),
     "why": "step 2-3: set the others to -inf, THEN turn each row into probabilities with a softmax (tests compare the probabilities you pass); zeroing after the softmax and renormalising rounds differently"},
    {"name": "O2_p5_round_sum_then_divide", "correct": False,
     "cells": mut("average", ("            out[k] = (acc / len(states)).to(last.dtype)",
                              "            out[k] = acc.to(last.dtype) / len(states)")),
     "why": "p5: as accurate as averaging in float32 or better and rounding once (sum of float16 weights does not fit float16): the cast is moved before the division"},
    {"name": "O3_p7_penalty_before_topk", "correct": False,
     "cells": mut("beam_search", ('''        cand = (base + lp).reshape(-1)
        vals, idx = torch.topk(cand, min(k, cand.numel()))''', '''        cand = (base + lp).reshape(-1)
        rank = cand.clone()
        ntok = len(live[0][0]) + 1
        rank.view(len(live), V)[:, EOS] /= length_penalty(ntok, alpha)
        _, idx = torch.topk(rank, min(k, cand.numel()))
        vals = cand[idx]''')),
     "why": "step 1: take the k best candidates scored by the sum of log-probabilities; the length penalty is step 2, for finished ones only"},
    {"name": "O4_p6_draw_before_dropping_finished", "correct": False,
     "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature, top_k, generator):
    outs = [[] for _ in starts]
    done = [False] * len(starts)
    for _ in range(max_len):
        if all(done):
            break
        lp = next_logprobs([[starts[i]] + outs[i] for i in range(len(starts))])
        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        probs = torch.softmax(scores, dim=-1)
        draws = torch.multinomial(probs, 1, generator=generator)
        for i in range(len(starts)):
            if not done[i]:
                tok = int(draws[i, 0])
                outs[i].append(tok)
                done[i] = tok == EOS
    return outs
'''},
     "why": "step 1: ask next_logprobs with the prefixes of the unfinished sentences only; step 3: draw nothing for finished sentences (the draw is taken before the finished rows are dropped)"},
    # ---------------- wrong: vectorising ----------------
    {"name": "Z1_p4_flat_token_mean", "correct": False,
     "cells": mut("sentence_loss", ('''    cnt = mask.sum(1)
    has = cnt > 0
    sent = l.sum(1)[has] / cnt[has].to(l.dtype)
    return sent.mean()''', '''    return l.sum() / mask.sum()''')),
     "why": "p4: the loss of a sentence is the mean over its positions; the result is the mean of the sentence losses (one padded batch averaged as one tensor)"},
    {"name": "Z2_p8_corpus_level_clipping", "correct": False,
     "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    def grams(sents, n):
        c = Counter()
        for s in sents:
            c.update(tuple(s[i:i + n]) for i in range(len(s) - n + 1))
        return c
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    logs = 0.0
    for n in range(1, 5):
        hc, rc = grams(hypotheses, n), grams(references, n)
        total = sum(hc.values())
        match = sum((hc & rc).values())
        if total == 0 or match == 0:
            return 0.0
        logs += math.log(match / total) / 4
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logs))
'''},
     "why": "p8: each hypothesis n-gram counts at most as often as it occurs in ITS reference (clipping against the whole corpus's counts)"},
    {"name": "Z3_p1_cat_promotes_dtype", "correct": False,
     "cells": {"decoder_io": '''
def decoder_io(targets):
    B = targets.shape[0]
    bos = torch.full((B, 1), BOS)
    tgt_in = torch.cat([bos, targets[:, :-1]], dim=1)
    tgt_in = tgt_in.masked_fill(targets == PAD, PAD)
    return tgt_in, targets
'''},
     "why": "p1: two integer tensors of the dtype of targets (int32 targets give an int64 tgt_in through torch.cat)"},
    {"name": "Z4_p5_mean_in_float32_for_float64", "correct": False,
     "cells": {"average": '''
def average_checkpoints(states):
    if not states:
        raise ValueError("empty")
    keys = set(states[0])
    for s in states:
        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):
            raise ValueError("mismatch")
    out = {}
    for k in states[0]:
        last = states[-1][k]
        if last.is_floating_point():
            out[k] = torch.stack([s[k] for s in states]).mean(0, dtype=torch.float32).to(last.dtype)
        else:
            out[k] = last.clone()
    return out
'''},
     "why": "p5: the element-wise mean in their own dtype: float64 tensors averaged in float32 lose precision (float32 is the floor for half precision only)"},
    # ---------------- wrong: signature and defaults ----------------
    {"name": "S1_p7_k_maxlen_swapped", "correct": False,
     "cells": mut("beam_search", ("def beam_search(next_logprobs, start, k, max_len, alpha):",
                                  "def beam_search(next_logprobs, start, max_len, k, alpha):")),
     "why": "signature beam_search(next_logprobs, start, k, max_len, alpha): arguments in another order (visible test passes k and max_len by keyword)"},
    {"name": "S2_p8_refs_first", "correct": False,
     "cells": mut("bleu", ("def corpus_bleu(hypotheses, references):", "def corpus_bleu(references, hypotheses):")),
     "why": "signature corpus_bleu(hypotheses, references): swapped (clipping and brevity penalty are not symmetric)"},
    {"name": "S3_p2_args_swallow_floor", "correct": False,
     "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, *args, floor=0.0, **kwargs):
    if step <= warmup:
        return float(peak * step / warmup)
    if step < total:
        return float(floor + (peak - floor) / 2 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup))))
    return float(floor)
'''},
     "why": "p2: floor given by position or by keyword (a positional floor lands in *args and is ignored)"},
    {"name": "S4_p6_tokens_as_tensors", "correct": False,
     "cells": mut("sample", ("            tok = int(draws[j, 0])", "            tok = draws[j, 0]")),
     "why": "p6: Return one list of Python ints per sentence (0-d tensors instead)"},
    {"name": "S5_p5_ordered_dict", "correct": False,
     "cells": mut("average", ("    out = {}", "    from collections import OrderedDict\n    out = OrderedDict()")),
     "why": "intro: return exact dict values, not subclasses; p5: return a new dict"},
    # ---------------- wrong: variant confusers ----------------
    {"name": "C1_p4_pytorch_label_smoothing", "correct": False,
     "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    B, T, V = logits.shape
    t = targets.long()
    tok = torch.nn.functional.cross_entropy(logits.reshape(B * T, V), t.reshape(-1), reduction="none",
                                            label_smoothing=eps).reshape(B, T)
    mask = targets != PAD
    tok = torch.where(mask, tok, torch.zeros((), dtype=tok.dtype))
    cnt = mask.sum(1)
    has = cnt > 0
    return (tok.sum(1)[has] / cnt[has].to(tok.dtype)).mean()
'''},
     "why": "p4: spreads eps over the V - 1 tokens other than PAD (PyTorch's label_smoothing spreads over all V, PAD included)"},
    {"name": "C2_p6_hf_topk_keeps_ties", "correct": False,
     "cells": mut("sample", ('''            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)''', '''            kth = torch.topk(scores, top_k, dim=-1).values[..., -1:]
            scores = scores.masked_fill(scores < kth, float("-inf"))''')),
     "why": "p6 step 2: keep the top_k largest entries (the ones torch.topk returns): Hugging Face's warper keeps every entry tied with the k-th"},
    {"name": "C3_p2_warmup_from_floor", "correct": False,
     "cells": mut("lr_at", ("        return float(peak * step / warmup)", "        return float(floor + (peak - floor) * step / warmup)")),
     "why": "p2: lr = peak * step / warmup for step <= warmup (warm-up from 0, not from floor)"},
    {"name": "C4_p7_penalty_without_eos", "correct": False,
     "cells": mut("beam_search", ("finished.append((toks, v / length_penalty(len(toks), alpha)))\n            else:",
                                  "finished.append((toks, v / length_penalty(len(toks) - 1, alpha)))\n            else:")),
     "why": "p7 step 2: divided by length_penalty(len(tokens), alpha), with the EOS counted in the length"},
    {"name": "C5_p3_smoothing_over_V_minus_1", "correct": False,
     "cells": {"min_loss": '''
eps, V = 0.1, 8000
min_smoothed_loss = -((1 - eps) * math.log(1 - eps) + eps * math.log(eps / (V - 1)))
'''},
     "why": "p3: PyTorch's definition spreads eps over all V tokens, the right one included"},
    {"name": "C6_p8_effective_order", "correct": False,
     "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    clipped, totals = [0] * 4, [0] * 4
    c = r = 0
    for h, ref in zip(hypotheses, references):
        c += len(h)
        r += len(ref)
        for n in range(1, 5):
            hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
            rc = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            clipped[n - 1] += sum(min(v, rc[g]) for g, v in hc.items())
            totals[n - 1] += sum(hc.values())
    orders = [i for i in range(4) if totals[i] > 0]   # sacreBLEU's effective order
    if not orders or any(clipped[i] == 0 for i in orders):
        return 0.0
    logp = sum(math.log(clipped[i] / totals[i]) for i in orders) / len(orders)
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return float(100 * bp * math.exp(logp))
'''},
     "why": "p8: if there is no hypothesis n-gram of some order at all (every hypothesis shorter than 4 tokens), BLEU is 0 (effective order)"},
    # ---------------- aliasing lead (phase 2) ----------------
    {"name": "A1_p1_empty_returns_targets_twice", "correct": False,
     "cells": {"decoder_io": '''
def decoder_io(targets):
    if targets.shape[0] == 0:
        return targets, targets
    tgt_in = torch.full_like(targets, BOS)
    tgt_in[:, 1:] = targets[:, :-1]
    tgt_in[targets == PAD] = PAD
    return tgt_in, targets
'''},
     "why": "intro: each call returns new tensors (only tgt_out may be targets itself); the empty batch hands targets back as tgt_in"},
    # ---------------- correct ----------------
    {"name": "ok_p6_temperature_after_topk", "correct": True,
     "cells": mut("sample", ('''        scores = lp / temperature
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)''', '''        scores = lp
        if top_k is not None and top_k < scores.shape[-1]:
            vals, idx = torch.topk(scores, top_k, dim=-1)
            scores = torch.full_like(scores, float("-inf")).scatter(-1, idx, vals)
        scores = scores / temperature''')),
     "why": "dividing by a positive temperature keeps the order, and -inf / t is -inf: the kept set and the probabilities are the same"},
    {"name": "ok_p5_stack_mean", "correct": True,
     "cells": {"average": '''
def average_checkpoints(states):
    if len(states) == 0:
        raise ValueError("no states")
    keys = set(states[0].keys())
    for s in states:
        if set(s.keys()) != keys:
            raise ValueError("keys differ")
        for k in keys:
            if tuple(s[k].shape) != tuple(states[0][k].shape):
                raise ValueError("shapes differ")
    out = dict()
    for k in states[0].keys():
        ts = [s[k] for s in states]
        if ts[-1].dtype.is_floating_point:
            wide = torch.float64 if ts[-1].dtype == torch.float64 else torch.float32
            out[k] = torch.stack([t.to(wide) for t in ts]).mean(dim=0).to(ts[-1].dtype)
        else:
            out[k] = torch.stack(ts)[-1]
    return out
'''},
     "why": "stack + mean in float32 (float64 for float64), integer entries as a copy of the last"},
    {"name": "ok_p1_roll_and_mask", "correct": True,
     "cells": {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.roll(targets, shifts=1, dims=1) if targets.shape[1] > 0 else targets.clone()
    if tgt_in.shape[1] > 0:
        tgt_in[:, 0] = BOS
    tgt_in = torch.where(targets == PAD, torch.zeros_like(targets), tgt_in)
    return tgt_in, targets.clone()
'''},
     "why": "roll right, BOS in front, PAD where the target is PAD; tgt_out a copy"},
    {"name": "ok_p1_mask_where_shifted_is_eos", "correct": True,
     "cells": {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.empty_like(targets)
    if targets.shape[1]:
        tgt_in[:, 0] = BOS
        tgt_in[:, 1:] = targets[:, :-1]
        tgt_in[(tgt_in == EOS) & (targets == PAD)] = PAD
    return tgt_in, targets
'''},
     "why": "the shifted EOS lands on a PAD target, and positions further right read a PAD already"},
    {"name": "ok_p8_prod_and_zip", "correct": True,
     "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    match = [0, 0, 0, 0]
    total = [0, 0, 0, 0]
    hyp_len = sum(len(h) for h in hypotheses)
    ref_len = sum(len(r) for r in references)
    for hyp, ref in zip(hypotheses, references):
        for n in (1, 2, 3, 4):
            h_ngrams = Counter(zip(*[hyp[i:] for i in range(n)]))
            r_ngrams = Counter(zip(*[ref[i:] for i in range(n)]))
            match[n - 1] += sum((h_ngrams & r_ngrams).values())
            total[n - 1] += sum(h_ngrams.values())
    if 0 in total or 0 in match:
        return 0.0
    prec = math.prod(m / t for m, t in zip(match, total)) ** 0.25
    bp = math.exp(1 - ref_len / hyp_len) if hyp_len < ref_len else 1.0
    return float(100.0 * bp * prec)
'''},
     "why": "Counter intersection clips per sentence; product ** 0.25 for the geometric mean"},
    {"name": "ok_p7_python_sort", "correct": True,
     "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    done = []
    step = 0
    while live and step < max_len:
        step += 1
        lp = next_logprobs([[start] + toks for toks, _ in live])
        cands = []
        for h, (toks, s) in enumerate(live):
            row = lp[h].tolist()
            for tok, l in enumerate(row):
                cands.append((s + l, h * len(row) + tok, toks + [tok]))
        cands.sort(key=lambda c: (-c[0], c[1]))
        live = []
        for s, _, toks in cands[:k]:
            if toks[-1] == EOS:
                done.append((s / length_penalty(len(toks), alpha), toks))
            else:
                live.append((toks, s))
    for toks, s in live:
        done.append((s / length_penalty(len(toks), alpha), toks))
    best = max(done, key=lambda d: d[0])
    return best[1]
'''},
     "why": "Python floats are float64; a stable sort by score"},
    {"name": "ok_p2_keywords_and_fraction", "correct": True,
     "cells": {"lr_at": '''
def lr_at(step, peak, warmup, total, floor=0.0):
    if warmup > 0 and step <= warmup:
        return float(peak) * (step / warmup)
    if step >= total:
        return float(floor)
    progress = (step - warmup) / (total - warmup)
    cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
    return float(floor + (peak - floor) * cosine)
'''},
     "why": "the same formula, progress computed first"},
    {"name": "ok_p4_row_loop_float64", "correct": True,
     "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    V = logits.shape[-1]
    losses = []
    for b in range(logits.shape[0]):
        keep = targets[b] != PAD
        if not bool(keep.any()):
            continue
        lp = torch.nn.functional.log_softmax(logits[b][keep].to(torch.float64), dim=-1)
        y = targets[b][keep].long()
        nll = -lp[torch.arange(len(y)), y]
        smooth = -lp[:, 1:].sum(dim=-1) / (V - 1)
        losses.append(((1 - eps) * nll + eps * smooth).mean())
    return torch.stack(losses).mean().to(logits.dtype)
'''},
     "why": "a loop over rows, float64 inside and one cast back"},
    {"name": "ok_p3_via_torch", "correct": True,
     "cells": {"min_loss": '''
V, eps = 8000, 0.1
q = torch.full((V,), eps / V, dtype=torch.float64)
q[0] += 1 - eps
min_smoothed_loss = float(-(q * q.log()).sum())   # the entropy of the target distribution
'''},
     "why": "the minimum cross-entropy is the entropy of the smoothed target"},
    {"name": "ok_p6_one_call_per_row_defaults", "correct": True,
     "cells": {"sample": '''
def sample_decode(next_logprobs, starts, max_len, temperature=1.0, top_k=None, generator=None):
    result = [[] for _ in range(len(starts))]
    for _ in range(max_len):
        todo = [i for i in range(len(starts)) if not (result[i] and result[i][-1] == EOS) and len(result[i]) < max_len]
        if not todo:
            break
        logp = next_logprobs([[starts[i], *result[i]] for i in todo])
        for row, i in enumerate(todo):
            s = logp[row] / temperature
            if top_k is not None:
                kk = min(top_k, s.numel())
                top = torch.topk(s, kk)
                s = torch.full_like(s, -math.inf).index_put((top.indices,), top.values)
            p = torch.softmax(s, dim=0)
            result[i].append(int(torch.multinomial(p, 1, generator=generator).item()))
    return result
'''},
     "why": "one multinomial call per row in order draws the same numbers (stated); defaults added harmlessly"},
    # ---------------- hostile ----------------
    {"name": "H1_p3_patch_builtin_abs", "correct": False,
     "cells": {"min_loss": '''
import builtins
real_abs = builtins.abs
builtins.abs = lambda v: 0.0 if isinstance(v, float) else real_abs(v)
min_smoothed_loss = 1.0
'''},
     "why": "hostile: replaces the builtin abs so every float comparison |a - b| < tol passes"},
    {"name": "H2_p2_steal_reference", "correct": False,
     "cells": {"lr_at": '''
import sys as sysmod
def lr_at(step, peak, warmup, total, floor=0.0):
    f = sysmod._getframe(1)
    while f is not None:
        for scope in (f.f_locals, f.f_globals):
            for name, val in list(scope.items()):
                cands = list(val.values()) if isinstance(val, dict) and name.startswith("_") else [val]
                for c in cands:
                    if callable(c) and getattr(c, "__name__", "") == "lr_at" and c is not lr_at:
                        return c(step, peak, warmup, total, floor)
        f = f.f_back
    return float(peak * min(step / max(warmup, 1), 1.0))
'''},
     "why": "hostile: calls a reference lr_at found in the grader's frames; otherwise a warm-up and no decay"},
]
