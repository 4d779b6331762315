"""Round 27 class sweep, chapter 08: classes V (a floor below every value the hidden cases reach), W (a share as one
minus the others) and X (a rule applied on one of two paths that must be scored alike). Each variant is the model
answer with the smallest change that makes its class's mistake, or a correct answer the text allows."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "08-capstone" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                        if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)


def swap(gid, *pairs):
    code = MODEL[gid]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new)
    return "\n" + code


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})



OLD_SPREAD = "    spread = -(logp.sum(dim=-1) - logp[..., PAD]) / (v - 1)  # (B, T)\n"
NEW_SPREAD = "    spread = -(logp[..., :PAD].sum(dim=-1) + logp[..., PAD + 1:].sum(dim=-1)) / (v - 1)  # (B, T)\n"
# ---- Part 4: sentence_smoothed_loss (W, V)
add("W4-spread-as-all-minus-pad", "sentence_loss", swap("sentence_loss", NEW_SPREAD, OLD_SPREAD),
    "W: the eps share's sum over the ids other than PAD taken as the sum over all V minus PAD's term (the model "
    "answer before this sweep): PAD's score of -1e20 leaves 0 of the others")
add("W4-spread-logits-all-minus-pad", "sentence_loss", swap("sentence_loss", NEW_SPREAD,
    "    spread = -((logits.sum(dim=-1) - logits[..., PAD]) / (v - 1) - torch.logsumexp(logits, dim=-1))\n"),
    "W: the same complement in logit space (mean logit of the non-PAD ids minus log Z)")
add("C4-spread-masked-fill", "sentence_loss", swap("sentence_loss", NEW_SPREAD,
    "    pad_col = torch.arange(v) == PAD\n    spread = -logp.masked_fill(pad_col, 0.0).sum(dim=-1) / (v - 1)\n"),
    "correct: PAD's column set to 0 before the sum", correct=True)
add("C4-spread-target-distribution", "sentence_loss", swap("sentence_loss", NEW_SPREAD,
    "    w = torch.ones(v, dtype=logp.dtype)\n    w[PAD] = 0.0\n    spread = -(logp * w).sum(dim=-1) / (v - 1)\n"),
    "correct: a weight 0 on PAD's column (0 * -1e20 is 0)", correct=True)
add("V4-log-of-softmax-floored", "sentence_loss", swap("sentence_loss", "logp = torch.log_softmax(logits, dim=-1)",
    "logp = torch.log(torch.softmax(logits, dim=-1).clamp(min=1e-30))"),
    "V: log p as the log of a floored softmax")
add("V4-count-eps", "sentence_loss", swap("sentence_loss", "/ counts[has_tokens]", "/ (counts[has_tokens] + 1e-9)"),
    "V: an eps added to the count of real tokens")
# ---- Part 2: lr_at (V)
add("V2-progress-eps", "lr_at", swap("lr_at", "(total - warmup)", "(total - warmup + 1e-9)"),
    "V: an eps in the progress's denominator")
add("V2-warmup-floor", "lr_at", swap("lr_at", "peak * step / warmup", "peak * step / max(warmup, 1e-9)"),
    "V: a floor under warmup (never reached: step <= warmup = 0 never holds for step >= 1)", correct=True)
# ---- Part 6: sample_decode (X, V)
add("X6-topk-first-step-only", "sample", swap("sample", "    for _ in range(max_len):", "    for _step in range(max_len):",
    "if top_k is not None and top_k < scores.shape[-1]:", "if top_k is not None and top_k < scores.shape[-1] and _step == 0:"),
    "X: the top-k cut at the first step only")
add("X6-temperature-first-step-only", "sample", swap("sample", "    for _ in range(max_len):", "    for _step in range(max_len):",
    ") / temperature", ") / (temperature if _step == 0 else 1.0)"),
    "X: the temperature at the first step only")
add("X6-temperature-later-steps-only", "sample", swap("sample", "    for _ in range(max_len):", "    for _step in range(max_len):",
    ") / temperature", ") / (temperature if _step > 0 else 1.0)"),
    "X: the temperature at later steps only")
add("X6-topk-first-row-only", "sample", swap("sample", "scores = torch.full_like(scores, float(\"-inf\")).scatter(-1, kept, scores.gather(-1, kept))",
    "cut = torch.full_like(scores, float(\"-inf\")).scatter(-1, kept, scores.gather(-1, kept))\n            scores = torch.cat([cut[:1], scores[1:]])"),
    "X: the top-k cut on the first live row only")
add("V6-probs-floor", "sample", swap("sample", "probs = torch.softmax(scores.double(), dim=-1)",
    "probs = torch.softmax(scores.double(), dim=-1).clamp(min=1e-300)"),
    "V: the probabilities floored (a cut id keeps a chance)")
# ---- Part 7: beam_search (X)
add("X7-live-unpenalised-at-the-end", "beam_search", swap("beam_search",
    "    for tokens, score in live:\n        finished.append((score / length_penalty(len(tokens), alpha), tokens))",
    "    for tokens, score in live:\n        finished.append((score, tokens))"),
    "X: the length penalty on EOS hypotheses only; those finished at max_len keep their raw score")
add("X7-eos-unpenalised", "beam_search", swap("beam_search",
    "finished.append((score / length_penalty(len(tokens), alpha), tokens))\n            else:",
    "finished.append((score, tokens))\n            else:"),
    "X: the length penalty on hypotheses finished at max_len only")
add("X7-eos-length-without-eos", "beam_search", swap("beam_search",
    "finished.append((score / length_penalty(len(tokens), alpha), tokens))\n            else:",
    "finished.append((score / length_penalty(len(tokens) - 1, alpha), tokens))\n            else:"),
    "X: the EOS hypotheses' length counted without the EOS, the live ones' with all their tokens")
add("V7-penalty-floor-both", "beam_search", swap("beam_search",
    "finished.append((score / length_penalty(len(tokens), alpha), tokens))\n            else:",
    "finished.append((score / max(length_penalty(len(tokens), alpha), 1e-300), tokens))\n            else:"),
    "V: the penalty floored at 1e-300 (penalties reach 3e-63 at alpha = -500; 1e-300 is never reached)", correct=True)
# ---- Part 8: corpus_bleu (V)
add("V8-brevity-eps", "bleu", swap("bleu", "math.exp(1 - ref_len / hyp_len)", "math.exp(1 - ref_len / (hyp_len + 1e-9))"),
    "V: an eps in the brevity penalty's denominator")
add("V8-precision-floor", "bleu", swap("bleu", "math.log(m / t)", "math.log(max(m / t, 1e-12))"),
    "V: a floor under the precisions (never reached: a precision is at least 1 / (number of n-grams))", correct=True)
