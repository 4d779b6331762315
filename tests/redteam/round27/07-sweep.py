"""Round 27 class sweep, chapter 07: classes V (a floor below every value the hidden cases reach), W (a share as one
minus the others) and X (a rule applied on one of two paths that must be scored alike). Each variant is the model
answer with the smallest change that makes its class's mistake, or a correct answer the text allows."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "07-hardware" / "exercises.ipynb").read_text())
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



# ---- Part 2: merge_partials (W: closed in the blind round; both sides again; V)
add("W2-share-a-as-one-minus-b", "merge_partials", swap("merge_partials", "* (w_a / total)[:, None]", "* (1 - w_b / total)[:, None]"),
    "W: piece a's share as one minus piece b's")
add("W2-share-b-as-one-minus-a", "merge_partials", swap("merge_partials", "* (w_b / total)[:, None]", "* (1 - w_a / total)[:, None]"),
    "W: piece b's share as one minus piece a's")
# ---- Part 4: rms_norm_half (V)
add("V4-eps-floored", "rms_norm_half", swap("rms_norm_half", "root = math.sqrt(eps)", "root = math.sqrt(max(eps, 1e-10))"),
    "V: eps floored at 1e-10 (the text: eps from 1e-12)")
add("V4-r-floored", "rms_norm_half", swap("rms_norm_half", "rms = c * r", "r = r.clamp(min=1e-3)\n    rms = c * r"),
    "V: the scaled root floored at 1e-3 (it lies between 1/sqrt(D) and sqrt(2): D up to 4096 gives 0.0156)", correct=True)
add("V4-mean-square-eps", "rms_norm_half", swap("rms_norm_half", "torch.sqrt(mean_square + (root / c) ** 2)",
    "torch.sqrt(mean_square + (root / c) ** 2 + 1e-7)"),
    "V: an eps added to the scaled mean square")
# ---- Part 5: quantize_asym (V)
add("V5-scale-clamped", "quantize_asym", swap("quantize_asym",
    "scale = torch.where(scale > 0, scale, torch.ones_like(scale))", "scale = scale.clamp(min=1e-8)"),
    "V: the scale floored at 1e-8 in place of 1 for a group of zeros")
add("V5-tiny-range-as-zeros", "quantize_asym", swap("quantize_asym",
    "scale = torch.where(scale > 0, scale, torch.ones_like(scale))",
    "scale = torch.where(scale > 1e-12, scale, torch.ones_like(scale))"),
    "V: a group whose range is below 255e-12 treated as a group of zeros (weights of any size)")
add("V5-zero-eps", "quantize_asym", swap("quantize_asym", "zero = torch.round(-lo / scale)", "zero = torch.round(-lo / (scale + 1e-12))"),
    "V: an eps in the zero point's denominator")
add("V5-q-eps", "quantize_asym", swap("quantize_asym", "torch.round(groups / scale[..., None])", "torch.round(groups / (scale[..., None] + 1e-12))"),
    "V: an eps in the codes' denominator")
# ---- Part 7: chunk_attention_backward (V, X)
add("V7-probabilities-floored", "chunk_attention", swap("chunk_attention",
    "p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)", "p = torch.exp(q @ kj.T * scale - lse[:, None]).clamp(min=1e-30)"),
    "V: rebuilt probabilities floored at 1e-30 (masked ones are then set to 0)")
add("V7-sink-share-floored", "chunk_attention", swap("chunk_attention",
    "dsink = -(torch.exp(sink - lse) * delta).sum()", "dsink = -(torch.exp(sink - lse).clamp(min=1e-30) * delta).sum()"),
    "V: the sink's share floored at 1e-30")
add("X7-mask-first-tile-only", "chunk_attention", swap("chunk_attention",
    "        if causal:\n", "        if causal and j0 == 0:\n"),
    "X: the causal mask on the first tile only")
add("X7-mask-diagonal-tile-only", "chunk_attention", swap("chunk_attention",
    "        if causal:\n", "        if causal and j1 > offset:\n"),
    "correct: the mask only on tiles that reach past the first query's position (the others need none)", correct=True)
