"""Round 17 clamp sweep, chapter 02: the model answer with a defensive clamp on a value the text does not bound."""
_CH = "02"
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

V("raw_scores_clamped", "raw_scores", [("return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)", "return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).clamp(min=-1e4).to(q.dtype)")],
  "scores clamped at -1e4")
V("raw_inputs_clamped", "raw_scores", [("a, b = q.to(work), k.to(work)", "a, b = q.to(work).clamp(-1e4, 1e4), k.to(work).clamp(-1e4, 1e4)")],
  "q, k clamped at +-1e4")
V("smb_temperature_floored", "softmax_backward", [("/ temperature      #", "/ max(temperature, 1e-4)      #")],
  "temperature floored at 1e-4")
V("smb_weights_clamped", "softmax_backward", [("inner = (weights * grad_weights)", "weights = weights.clamp(min=1e-8)\n    inner = (weights * grad_weights)")],
  "probabilities clamped at 1e-8")
V("smb_grad_clamped", "softmax_backward", [("inner = (weights * grad_weights)", "grad_weights = grad_weights.clamp(-1e4, 1e4)\n    inner = (weights * grad_weights)")],
  "upstream gradient clamped at +-1e4")
V("masked_scores_clamped", "masked_attention", [("scores = scores.masked_fill(~allowed", "scores = scores.clamp(-1e4, 1e4).masked_fill(~allowed")],
  "scores clamped at +-1e4 before masking")
V("masked_scores_nan_to_num", "masked_attention", [("scores = scores.masked_fill(~allowed", "scores = torch.nan_to_num(scores).masked_fill(~allowed")],
  "nan_to_num on the scores")
V("masked_lse_clamped", "masked_attention", [("shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)", "shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse.clamp(min=-1e4))")],
  "shift (log-sum-exp) clamped at -1e4")
V("masked_inputs_clamped", "masked_attention", [("scores = q @ k.transpose(-2, -1)", "q, k = q.clamp(-1e4, 1e4), k.clamp(-1e4, 1e4)\n    scores = q @ k.transpose(-2, -1)")],
  "q, k clamped at +-1e4")
V("masked_weights_clamped", "masked_attention", [("return weights @ v, lse", "return weights.clamp(min=1e-8) * allowed @ v, lse")],
  "weights floored at 1e-8 at allowed keys")
V("fixed_scores_clamped", "fixed_self_attention", [("scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])", "scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).clamp(-1e4, 1e4)")],
  "scores clamped at +-1e4")
V("fixed_x_clamped", "fixed_self_attention", [("t = x.shape[1]", "t = x.shape[1]\n        x = x.clamp(-1e4, 1e4)")],
  "x clamped at +-1e4")
V("fixed_scores_nan_to_num", "fixed_self_attention", [("scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])", "scores = torch.nan_to_num(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]))")],
  "nan_to_num on the scores")
V("variance_clamped", "variance_experiment", [("return dots.var().item()", "return dots.var().clamp(min=1e-12).item()")],
  "variance floored at 1e-12")
