"""Round 31 class sweep 2, chapter 08-capstone: classes AP (gradients checked at one rank only) and AQ (an integer
offset or position through float32, an angle reduced by a float 2 pi). Each variant is the model answer with the
smallest change that makes its class's mistake; the correct ones must keep full marks. Graded in plain processes
as tests/cellrun.py does: `python tests/redteam/round31/08-sweep2.py` (one notebook per variant)."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CHAPTER = "08-capstone"
_NB = json.loads((ROOT / "solutions" / CHAPTER / "exercises.ipynb").read_text())
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
        code = code.replace(old, new, 1)
    return "\n" + code


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


# AP: no part applies. Part 4 (the one part that asks for gradients) takes logits of exactly (B, T, V); no other part
# asks for gradients.

# AQ, Part 2: step, warmup and total are Python ints with no upper bound ("step = 1, 2, 3, ..."); the hidden steps
# stopped at 10**6. Each variant puts one integer through float32 and does the rest in float64: exact below 2**24
add("AQ2-progress-numerator-through-float32", "lr_at", swap(
    "lr_at", "    progress = (step - warmup) / (total - warmup)",
    "    progress = float(torch.tensor(float(step - warmup))) / (total - warmup)"),
    "Part 2: step - warmup through a float32 tensor (the cosine branch)")
add("AQ2-step-through-float32", "lr_at", swap(
    "lr_at", "    if step <= warmup:\n", "    step_f = float(torch.tensor(float(step)))  # the step as a tensor value\n    if step <= warmup:\n",
    "        return peak * step / warmup", "        return peak * step_f / warmup",
    "    progress = (step - warmup) / (total - warmup)", "    progress = (step_f - warmup) / (total - warmup)"),
    "Part 2: the step through a float32 tensor on both computed branches")
add("AQ2-warmup-fraction-through-float32", "lr_at", swap(
    "lr_at", "        return peak * step / warmup", "        return peak * float(torch.tensor(float(step))) / warmup"),
    "Part 2: the step through float32 on the warm-up branch only")
add("AQ2-schedule-table-float32-steps", "lr_at", swap(
    "lr_at", "    progress = (step - warmup) / (total - warmup)",
    "    offsets = torch.arange(step - warmup, step - warmup + 1, dtype=torch.float32)  # a float32 arange\n"
    "    progress = float(offsets[0]) / (total - warmup)"),
    "Part 2: a float32 arange of offsets")
# correct rearrangements the new cases must keep
add("OK2-progress-split", "lr_at", swap(
    "lr_at", "    progress = (step - warmup) / (total - warmup)", "    progress = step / (total - warmup) - warmup / (total - warmup)"),
    "Part 2: the progress as a difference of two quotients (exact enough while total - warmup is large)", correct=True)
add("OK2-float64-tensors", "lr_at", swap(
    "lr_at", "        return peak * step / warmup", "        return float(peak * (torch.tensor(step, dtype=torch.float64) / warmup))",
    "    progress = (step - warmup) / (total - warmup)",
    "    progress = float(torch.tensor(step - warmup, dtype=torch.float64) / (total - warmup))"),
    "Part 2: float64 tensors (int64 conversions) in place of Python floats", correct=True)
add("OK2-cosine-of-the-rest", "lr_at", swap(
    "lr_at", "    return floor + (peak - floor) * 0.5 * (1 + math.cos(math.pi * progress))",
    "    return floor + (peak - floor) * 0.5 * (1 - math.cos(math.pi * (1 - progress)))"),
    "Part 2: cos(pi p) written as -cos(pi (1 - p))", correct=True)

# AQ, other integers of this chapter through float32 (ids, counters): already closed, checked again
add("AQ1-ids-through-float32", "decoder_io", swap(
    "decoder_io", "    tgt_in[:, 1:] = targets[:, :-1]", "    tgt_in[:, 1:] = targets[:, :-1].float().to(targets.dtype)"),
    "Part 1: ids up to the largest the dtype holds, through float32")
add("AQ5-counter-through-float32", "average", swap(
    "average", "            out[k] = states[-1][k].clone()", "            out[k] = states[-1][k].float().to(states[-1][k].dtype)"),
    "Part 5: an int64 counter past 2**24 through float32")


def main(names=None):
    sys.path.insert(0, str(ROOT / "tests"))
    import cellrun

    src = ROOT / "solutions" / CHAPTER / "exercises.ipynb"
    subs = [s for s in SUBMISSIONS if not names or s["name"] in names]
    nbs = {s["name"]: cellrun.notebook_cells(src, s["cells"]) for s in subs}
    res, crashed = cellrun.run_notebooks(nbs, processes=1)
    for s in subs:
        parts = res.get(s["name"], {})
        total = sum(v[0] for v in parts.values()), sum(v[1] for v in parts.values())
        lost = {g: e[:160] for g, (sc, mx, e) in parts.items() if sc < mx}
        if s["correct"]:
            verdict = "OK" if not lost and s["name"] not in crashed else "REFUSED"
        else:
            verdict = "CAUGHT" if lost or s["name"] in crashed else "SLIPPED"
        print(f"{verdict:8} {s['name']}: {total[0]:g}/{total[1]:g} {lost}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
