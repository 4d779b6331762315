"""Round 17 clamp sweep, chapter 08: the model answer with a defensive clamp on a value the text does not bound."""
_CH = "08"
import json as _json, glob as _glob

_NB = _json.load(open(_glob.glob("solutions/%s-*/exercises.ipynb" % _CH)[0]))
_MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        _MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                         if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)
SUBMISSIONS = []


def V(name, gid, edits, why):
    """the model answer of `gid` with each (old, new) replaced once."""
    code = _MODEL[gid]
    for old, new in edits:
        assert code.count(old) == 1, (name, old)
        code = code.replace(old, new)
    SUBMISSIONS.append({"name": name, "correct": False, "cells": {gid: code}, "why": why})

V("loss_logits_clamped", "sentence_loss", [("logp = torch.log_softmax(logits, dim=-1)", "logp = torch.log_softmax(logits.clamp(-1e4, 1e4), dim=-1)")],
  "logits clamped at +-1e4")
V("loss_logits_nan_to_num", "sentence_loss", [("logp = torch.log_softmax(logits, dim=-1)", "logp = torch.log_softmax(torch.nan_to_num(logits), dim=-1)")],
  "nan_to_num on the logits")
V("loss_logp_clamped", "sentence_loss", [("logp = torch.log_softmax(logits, dim=-1)", "logp = torch.log_softmax(logits, dim=-1).clamp(min=-1e4)")],
  "log-probabilities clamped at -1e4")
V("loss_counts_eps", "sentence_loss", [("/ counts[has_tokens]", "/ (counts[has_tokens] + 1e-12)")],
  "1e-12 added to the token counts")
V("sample_temperature_floored", "sample", [("/ temperature", "/ max(temperature, 1e-4)")],
  "temperature floored at 1e-4")
V("sample_scores_clamped", "sample", [("scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature", "scores = (next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature).clamp(-1e4, 1e4)")],
  "scores clamped at +-1e4")
V("sample_logprobs_clamped", "sample", [("scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature", "scores = next_logprobs([[starts[i]] + outs[i] for i in live]).clamp(-1e4, 1e4) / temperature")],
  "log-probabilities clamped at +-1e4 before the temperature")
V("sample_probs_clamped", "sample", [("probs = torch.softmax(scores.double(), dim=-1)", "probs = torch.softmax(scores.double(), dim=-1).clamp(min=1e-8)")],
  "probabilities floored at 1e-8")
V("sample_scores_nan_to_num", "sample", [("probs = torch.softmax(scores.double(), dim=-1)", "probs = torch.softmax(torch.nan_to_num(scores.double(), neginf=-1e300), dim=-1)")],
  "nan_to_num on the scores")
V("beam_logprobs_clamped", "beam_search", [("candidates = (scores[:, None] + logprobs).flatten()", "candidates = (scores[:, None] + logprobs.clamp(min=-1e4)).flatten()")],
  "log-probabilities clamped at -1e4")
V("beam_penalty_floored", "beam_search", [("finished.append((score / length_penalty(len(tokens), alpha), tokens))\n            else", "finished.append((score / max(length_penalty(len(tokens), alpha), 1e-12), tokens))\n            else"),
  ("    for tokens, score in live:\n        finished.append((score / length_penalty(len(tokens), alpha), tokens))", "    for tokens, score in live:\n        finished.append((score / max(length_penalty(len(tokens), alpha), 1e-12), tokens))")],
  "length penalty floored at 1e-12 (both divisions; the first grading floored the one inside the loop only)")
V("bleu_totals_floored", "bleu", [("math.log(m / t)", "math.log(max(m, 1e-12) / max(t, 1e-12))")],
  "counts floored at 1e-12 under the log")
V("lr_denominator_eps", "lr_at", [("progress = (step - warmup) / (total - warmup)", "progress = (step - warmup) / (total - warmup + 1e-12)")],
  "1e-12 added to the cosine's denominator")
