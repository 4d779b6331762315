# Red team round 25, class sweep (K-P) of chapter 08-capstone: each variant is the model answer with one class's
# change (or a correct other formula, class O). Built from the solution notebook's model answers by replacement.
import json
from pathlib import Path

_NB = json.loads((Path(__file__).resolve().parents[3] / "solutions" / "08-capstone" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and _c["cell_type"] == "code":
        MODEL[_m["grade_id"]] = "\n".join(l for l in "".join(_c["source"]).splitlines() if "### " not in l) + "\n"

SUBMISSIONS = []


def V(name, part, pairs, correct, why):
    code = MODEL[part]
    for old, new in pairs:
        assert old in code, (name, old)
        code = code.replace(old, new, 1)
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {part: code}, "why": why})


# Part 2 lr_at -- class O: other formulas for the cosine's fraction and the warm-up ramp
V("O-lr-at-fraction-times-reciprocal", "lr_at", [("(step - warmup) / (total - warmup)", "(step - warmup) * (1.0 / (total - warmup))")],
  True, "class O: the fraction of the decay as a product with the reciprocal; the text fixes no formula")
V("O-lr-at-ramp-peak-times-fraction", "lr_at", [("peak * step / warmup", "float(peak * (step / warmup))")],
  True, "class O: the warm-up as peak times the fraction step / warmup")

# Part 4 sentence_smoothed_loss -- O: scales folded elsewhere; P: infinities cleaned from the log-probabilities
V("O-sentence-loss-eps-over-v-folded", "sentence_loss",
  [("spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)", "spread = -(logp.sum(dim=-1) - logp[..., PAD]) * (1.0 / (v - 1))")],
  True, "class O: the share eps / (V - 1) as a product with the reciprocal")
V("O-sentence-loss-mean-times-reciprocal-count", "sentence_loss",
  [("/ counts[has_tokens]", "* (1.0 / counts[has_tokens])")],
  False, "relabelled after the first grading (was correct: True): 1.0 / an int64 tensor is a float32 tensor (the default "
         "dtype), so float64 losses are scaled by a float32 reciprocal, off by ~1e-8 relative: the text asks float64 "
         "precision; not a class O refusal")
V("O-sentence-loss-mean-times-reciprocal-count-in-dtype", "sentence_loss",
  [("/ counts[has_tokens]", "* (1.0 / counts[has_tokens].to(per_token.dtype))")],
  True, "class O: each sentence's mean as a product with the reciprocal of its count, in the logits' dtype")
V("P-sentence-loss-log-probs-nan-to-num", "sentence_loss",
  [("logp = torch.log_softmax(logits, dim=-1)", "logp = torch.log_softmax(logits, dim=-1).nan_to_num()")],
  False, "class P: a -inf logit (a score a model rules out) makes log p = -inf and the loss inf; nan_to_num makes it finite")

# Part 5 average_checkpoints -- O: the mean as a product with 1/n, or torch.mean of a float64 stack
V("O-average-times-reciprocal", "average", [("(total / len(states))", "(total * (1.0 / len(states)))")],
  True, "class O: the mean as the float64 sum times 1 / n, rounded once to the dtype")
V("O-average-float64-stack-mean", "average",
  [("total = sum(s[k].double() for s in states)\n            out[k] = (total / len(states))",
    "out[k] = (torch.stack([s[k].double() for s in states]).mean(dim=0))")],
  True, "class O: torch.mean of a float64 stack, rounded once")

# Part 6 sample_decode -- K: the cut filled with finfo.min; M: a top-k cut by a threshold with a slack; O: formulas
V("K-sample-cut-filled-with-finfo-min", "sample",
  [('torch.full_like(scores, float("-inf"))', "torch.full_like(scores, torch.finfo(scores.dtype).min)")],
  False, "class K: 'set the others to -inf (not to a large negative number)': a kept score at -1.797e308 (the lowest "
         "finite float64) ties with the cut ones, which then take weight")
V("M-sample-topk-cut-by-threshold-with-slack", "sample",
  [("kept = scores.topk(top_k, dim=-1).indices\n            scores = torch.full_like(scores, float(\"-inf\")).scatter(-1, kept, scores.gather(-1, kept))",
    "kth = scores.topk(top_k, dim=-1).values[:, -1:]\n            scores = scores.masked_fill(scores < kth - 1e-12, float(\"-inf\"))")],
  False, "class M: 'keep the top_k largest entries (the ones torch.topk returns)': a slack of 1e-12 under the k-th score "
         "keeps every score when the divided scores lie closer than that (a temperature of 1e18)")
V("O-sample-div-method-and-exp-log-softmax", "sample",
  [("/ temperature", ".div(temperature)"), ("probs = torch.softmax(scores.double(), dim=-1)", "probs = torch.log_softmax(scores, dim=-1).exp()")],
  True, "class O: exp of log_softmax instead of softmax: the same probabilities up to the last bits")
V("O-sample-times-reciprocal-temperature", "sample",
  [("/ temperature", "* (1.0 / temperature)")],
  True, "class O: the scores times the reciprocal of the temperature")

# Part 7 beam_search -- O: the length penalty applied as a product with its reciprocal
V("O-beam-final-score-times-reciprocal", "beam_search",
  [("finished.append((score / length_penalty(len(tokens), alpha), tokens))\n            else",
    "finished.append((score * (1.0 / length_penalty(len(tokens), alpha)), tokens))\n            else"),
   ("    for tokens, score in live:\n        finished.append((score / length_penalty(len(tokens), alpha), tokens))",
    "    for tokens, score in live:\n        finished.append((score * (1.0 / length_penalty(len(tokens), alpha)), tokens))")],
  True, "class O: the final score as a product with the reciprocal of the penalty")

# Part 8 corpus_bleu -- O: other formulas for the log precisions and the brevity penalty
V("O-bleu-log-difference-and-brevity-quotient", "bleu",
  [("math.log(m / t)", "(math.log(m) - math.log(t))"), ("math.exp(1 - ref_len / hyp_len)", "math.exp((hyp_len - ref_len) / hyp_len)")],
  True, "class O: log m - log t for log(m / t) and (c - r) / c for 1 - r / c")
V("O-bleu-mean-log-times-quarter", "bleu",
  [("for m, t in zip(matches, totals)) / 4", "for m, t in zip(matches, totals)) * 0.25")],
  True, "class O: the uniform weights as a product with 0.25")
