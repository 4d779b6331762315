"""Round 17 clamp sweep, chapter 09: the model answer with a defensive clamp on a value the text does not bound."""
_CH = "09"
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

V("rms_x_clamped", "head_rms_norm", [("heads = x.to(work)", "heads = x.to(work).clamp(-1e4, 1e4)")], "x clamped at +-1e4")
V("rms_ms_floored", "head_rms_norm", [("heads.square().mean(dim=-1, keepdim=True) + eps)", "(heads.square().mean(dim=-1, keepdim=True) + eps).clamp(min=1e-12))")],
  "mean square + eps floored at 1e-12 under the root")
V("rms_eps_floored", "head_rms_norm", [("heads.square().mean(dim=-1, keepdim=True) + eps)", "heads.square().mean(dim=-1, keepdim=True) + max(eps, 1e-12))")],
  "eps floored at 1e-12")
V("swiglu_x_clamped", "fused_swiglu", [("both = x @ w_gate_up.T", "both = x.clamp(-1e4, 1e4) @ w_gate_up.T")], "x clamped at +-1e4")
V("swiglu_gate_clamped", "fused_swiglu", [("if limit is not None:", "gate = gate.clamp(-1e4, 1e4)\n    if limit is not None:")], "gate clamped at +-1e4")
V("mlm_logits_clamped", "masked_lm_loss", [("scores = logits[:, :-1][chosen].to(work)", "scores = logits[:, :-1][chosen].to(work).clamp(-1e4, 1e4)")],
  "logits clamped at +-1e4")
V("mlm_lse_clamped", "masked_lm_loss", [("log_z = torch.logsumexp(scores, dim=-1)", "log_z = torch.logsumexp(scores, dim=-1).clamp(-1e4, 1e4)")],
  "log-sum-exp clamped at +-1e4")
V("mlm_nan_to_num", "masked_lm_loss", [("scores = logits[:, :-1][chosen].to(work)", "scores = torch.nan_to_num(logits[:, :-1][chosen].to(work))")],
  "nan_to_num on the logits")
V("ragged_scores_clamped", "ragged_cached_attention", [("scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh)", "scores = (torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh)).clamp(-1e4, 1e4)")],
  "scores clamped at +-1e4")
V("ragged_scores_nan_to_num", "ragged_cached_attention", [("scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh)", "scores = torch.nan_to_num(torch.einsum(\"bgrtd,bgsd->bgrts\", qg, keys) / math.sqrt(dh))")],
  "nan_to_num on the scores")
V("ragged_q_clamped", "ragged_cached_attention", [("qg = q.reshape(b, g, h // g, t, dh)", "qg = q.clamp(-1e4, 1e4).reshape(b, g, h // g, t, dh)")],
  "queries clamped at +-1e4")
V("gen_temperature_floored", "generate_with_cache", [("torch.softmax(scores / temperature, dim=-1)", "torch.softmax(scores / max(temperature, 1e-4), dim=-1)")],
  "temperature floored at 1e-4")
V("gen_scores_clamped", "generate_with_cache", [("scores = logits[:, -1].clone()", "scores = logits[:, -1].clamp(-1e4, 1e4)")],
  "logits clamped at +-1e4")
V("gen_probs_clamped", "generate_with_cache", [("torch.softmax(scores / temperature, dim=-1)", "torch.softmax(scores / temperature, dim=-1).clamp(min=1e-8)")],
  "probabilities floored at 1e-8")
V("gen_penalty_floored", "generate_with_cache", [("scores / penalty, scores * penalty", "scores / max(penalty, 1e-4), scores * max(penalty, 1e-4)")],
  "penalty floored at 1e-4")
