# Red team round 18, class sweep, chapter 04 (positional encoding). Each class of BRIEF-SWEEP.md put into the model
# answer of every part where it applies, one variant at a time. A (requires_grad_) and B (id/lru caches) were closed
# in this chapter by its blind helper; C (a finite stand-in for -inf) and D (a float32 sum of squares) apply to no
# part (no part masks scores or takes a norm: Part 2's mask is boolean and its bias finite).
import json
from pathlib import Path

_NB = json.loads((Path(__file__).resolve().parents[3] / "solutions/04-positional-encoding/exercises.ipynb").read_text())
MODEL = {}
for _cell in _NB["cells"]:
    _meta = _cell["metadata"].get("nbgrader", {})
    if _meta.get("solution") and _cell["cell_type"] == "code":
        _src = "".join(_cell["source"])
        MODEL[_meta["grade_id"]] = "\n".join(l for l in _src.splitlines() if "### " not in l) + "\n"


def variant(cell, old, new):
    src = MODEL[cell]
    assert src.count(old) == 1, (cell, old)
    return src.replace(old, new)


def sub(name, cell, old, new, why, correct=False):
    return {"name": name, "correct": correct, "cells": {cell: variant(cell, old, new)}, "why": why}


SUBMISSIONS = [
    # ---- E: a list where the text gives a tuple (Parts 2, 8)
    sub("E-p2-list", "alibi_block", "    return bias, key_pos <= query_pos", "    return [bias, key_pos <= query_pos]",
        "Part 2: 'returning (bias, allowed)'."),
    sub("E-p8-list", "equivariance", "    return worst <= tol, float(worst)", "    return [worst <= tol, float(worst)]",
        "Part 8: 'Return (equivariant, worst)'."),
    # ---- F: backward() run inside (Part 5, the one gradient part)
    sub("F-p5-backward", "rotate_half",
        "    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)  # the other features pass through",
        "    out = torch.cat([rotated, x[..., rotary_dim:]], dim=-1)\n"
        "    if out.requires_grad:  # make sure the gradient flows\n"
        "        out.sum().backward(retain_graph=True)\n    return out",
        "Part 5: gradients compared with the reference's; the caller runs backward."),
]
