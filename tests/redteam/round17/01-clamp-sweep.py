"""Round 17 clamp sweep, chapter 01: the model answer with a defensive clamp on a value the text does not bound."""
_CH = "01"
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

V("additive_scores_clamped", "additive", [("scores = (hidden @ p[\"v\"])", "scores = (hidden @ p[\"v\"]).clamp(-1e4, 1e4)")],
  "scores clamped at +-1e4 before the softmax")
V("additive_scores_nan_to_num", "additive", [("scores = (hidden @ p[\"v\"])", "scores = torch.nan_to_num(hidden @ p[\"v\"])")],
  "nan_to_num on the scores before the softmax")
V("additive_probs_clamped", "additive", [("alpha = torch.softmax(scores, dim=-1)", "alpha = torch.softmax(scores, dim=-1).clamp(min=1e-8)")],
  "attention weights clamped at 1e-8 (masked sources get 1e-8)")
V("additive_x_clamped", "additive", [("b, t, _ = x.shape", "x = x.clamp(-1e4, 1e4)\n    b, t, _ = x.shape")],
  "inputs clamped at +-1e4")
V("additive_state_clamped", "additive", [("states.append(state)", "state = state.clamp(-1e4, 1e4)\n        states.append(state)")],
  "state clamped at +-1e4 (tanh: harmless) -- control")
V("norms_root_clamped", "gradient_norms", [("norms = [torch.linalg.matrix_norm(product).mean()]", "norms = [torch.linalg.matrix_norm(product).clamp(min=1e-12).mean()]"),
  ("norms.append(torch.linalg.matrix_norm(product).mean())", "norms.append(torch.linalg.matrix_norm(product).clamp(min=1e-12).mean())")],
  "Frobenius norms floored at 1e-12")
V("norms_sqrt_eps", "gradient_norms", [("norms = [torch.linalg.matrix_norm(product).mean()]", "norms = [(product.square().sum((-2, -1)) + 1e-12).sqrt().mean()]"),
  ("norms.append(torch.linalg.matrix_norm(product).mean())", "norms.append((product.square().sum((-2, -1)) + 1e-12).sqrt().mean())")],
  "Frobenius norms as sqrt(sum + 1e-12)")
V("norms_x_clamped", "gradient_norms", [("b, t, _ = x.shape", "x = x.clamp(-1e4, 1e4)\n    b, t, _ = x.shape")],
  "inputs clamped at +-1e4")
V("unroll_x_clamped", "rnn_unroll", [("b, t, _ = x.shape", "x = x.clamp(-1e4, 1e4)\n    b, t, _ = x.shape")],
  "inputs clamped at +-1e4")
V("step_x_clamped", "rnn_step", [("candidate = torch.tanh(x @", "x = x.clamp(-1e4, 1e4)\n    candidate = torch.tanh(x @")],
  "inputs clamped at +-1e4")
