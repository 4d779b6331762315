"""Round 17 clamp sweep, chapter 04: the model answer with a defensive clamp on a value the text does not bound."""
_CH = "04"
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


V("table_angle_clamped", "table_halves", [("angle = positions.to(torch.float64).unsqueeze(-1)", "angle = positions.to(torch.float64).clamp(-1e4, 1e4).unsqueeze(-1)")],
  "positions clamped at +-1e4")
V("table_scale_floored", "table_halves", [("stretched = base * scale **", "stretched = base * max(scale, 1e-4) **")],
  "scale floored at 1e-4")
V("table_base_floored", "table_halves", [("stretched = base * scale **", "stretched = max(base, 1e-4) * scale **")],
  "base floored at 1e-4")
V("alibi_distance_clamped", "alibi_block", [("distance = (query_pos - key_pos).abs()", "distance = (query_pos - key_pos).abs().clamp(max=10_000)")],
  "distance clamped at 1e4")
V("position_row_nan_to_num", "position", [("sin, cos = float(row[-2]), float(row[-1])", "row = torch.nan_to_num(row)\n    sin, cos = float(row[-2]), float(row[-1])")],
  "nan_to_num on the row")
V("position_row_clamped", "position", [("sin, cos = float(row[-2]), float(row[-1])", "sin, cos = float(row[-2].clamp(-1e4, 1e4)), float(row[-1].clamp(-1e4, 1e4))")],
  "row clamped at +-1e4")
V("rope_x_clamped", "rotate_half", [("a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)", "a, b = x[..., :half].to(work).clamp(-1e4, 1e4), x[..., half:rotary_dim].to(work).clamp(-1e4, 1e4)")],
  "rotated features clamped at +-1e4")
V("rope_base_floored", "rotate_half", [("theta = base ** (", "theta = max(base, 1e-4) ** (")],
  "base floored at 1e-4")
V("rope_angle_clamped", "rotate_half", [("cos, sin = angle.cos().to(work), angle.sin().to(work)", "angle = angle.clamp(-1e4, 1e4)\n    cos, sin = angle.cos().to(work), angle.sin().to(work)")],
  "angle clamped at +-1e4")
V("shift_angle_clamped", "shift", [("c, s = torch.cos(offset * freq), torch.sin(offset * freq)", "c, s = torch.cos((offset * freq).clamp(-1e4, 1e4)), torch.sin((offset * freq).clamp(-1e4, 1e4))")],
  "angle clamped at +-1e4")
V("shift_freq_floored", "shift", [("freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)", "freq = (base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)).clamp(min=1e-12)")],
  "frequencies floored at 1e-12")
V("shift_base_floored", "shift", [("freq = base ** (", "freq = max(base, 1e-4) ** (")],
  "base floored at 1e-4")
V("equiv_gap_clamped", "equivariance", [("worst = max(gaps)", "worst = min(max(gaps), 1e4)")],
  "largest gap clamped at 1e4")
V("equiv_gap_nan_to_num", "equivariance", [("worst = max(gaps)", "worst = float(torch.nan_to_num(torch.tensor(max(gaps))))")],
  "nan_to_num on the largest gap")
V("equiv_x_clamped", "equivariance", [("t = x.shape[1]", "t = x.shape[1]\n    x = x.clamp(-1e4, 1e4)")],
  "x clamped at +-1e4")
