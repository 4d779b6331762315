"""Round 17 clamp sweep, chapter 07: the model answer with a defensive clamp on a value the text does not bound."""
_CH = "07"
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


V("rms_x_clamped", "rms_norm_half", [("root = math.sqrt(eps)", "root = math.sqrt(eps)\n    x = x.clamp(-1e4, 1e4)")],
  "x clamped at +-1e4")
V("rms_root_floored", "rms_norm_half", [("rms = c * r", "rms = (c * r).clamp(min=1e-12)")],
  "root mean square floored at 1e-12")
V("rms_root_plus_eps", "rms_norm_half", [("r = torch.sqrt(mean_square + (root / c) ** 2)", "r = torch.sqrt(mean_square + (root / c) ** 2) + 1e-12")],
  "1e-12 added to the root")
V("rms_nan_to_num", "rms_norm_half", [("    s = x / c\n", "    s = torch.nan_to_num(x / c)\n")],
  "nan_to_num on the scaled inputs")
V("asym_scale_floored", "quantize_asym", [("scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # a group of zeros", "scale = scale.clamp(min=1e-12)")],
  "scale floored at 1e-12 instead of 1 for a zero group")
V("asym_scale_floored_too", "quantize_asym", [("scale = torch.where(scale > 0, scale, torch.ones_like(scale))  # a group of zeros", "scale = torch.where(scale > 0, scale, torch.ones_like(scale)).clamp(min=1e-12)")],
  "scale floored at 1e-12 after the zero-group rule")
V("asym_w_clamped", "quantize_asym", [("groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)", "groups = w.clamp(-1e4, 1e4).reshape(out_f, in_f // group_size, group_size)      # (out, G, g)")],
  "weights clamped at +-1e4")
V("asym_w_nan_to_num", "quantize_asym", [("groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)", "groups = torch.nan_to_num(w).reshape(out_f, in_f // group_size, group_size)      # (out, G, g)")],
  "nan_to_num on the weights")
V("bwd_scores_clamped", "chunk_attention", [("p = torch.exp(q @ kj.T * scale - lse[:, None])", "p = torch.exp((q @ kj.T * scale).clamp(-1e4, 1e4) - lse[:, None])")],
  "scores clamped at +-1e4")
V("bwd_lse_clamped", "chunk_attention", [("delta = (d_out * out).sum(dim=1)", "lse = lse.clamp(-1e4, 1e4)\n    delta = (d_out * out).sum(dim=1)")],
  "lse clamped at +-1e4")
V("bwd_sink_clamped", "chunk_attention", [("dsink = -(torch.exp(sink - lse) * delta).sum()", "dsink = -(torch.exp((sink - lse).clamp(-1e4, 1e4)) * delta).sum()")],
  "sink log-probability clamped at +-1e4")
V("bwd_inputs_clamped", "chunk_attention", [("kj, vj = k[j0:j1], v[j0:j1]", "kj, vj = k[j0:j1].clamp(-1e4, 1e4), v[j0:j1]\n        q = q.clamp(-1e4, 1e4)")],
  "q, k clamped at +-1e4")
V("bwd_logp_clamped", "chunk_attention", [("p = torch.exp(q @ kj.T * scale - lse[:, None])", "p = torch.exp((q @ kj.T * scale - lse[:, None]).clamp(min=-1e4))")],
  "log-probabilities clamped at -1e4")
V("bwd_scores_nan_to_num", "chunk_attention", [("p = torch.exp(q @ kj.T * scale - lse[:, None])", "p = torch.exp(torch.nan_to_num(q @ kj.T * scale) - lse[:, None])")],
  "nan_to_num on the scores")
V("kernel_x_clamped", "split_kv_kernel", [("x = tl.load(X + cols)", "x = tl.minimum(tl.maximum(tl.load(X + cols), -1e4), 1e4)")],
  "x clamped at +-1e4")
