"""Red team round 15 (hostile): the 02-attacks.py notebook that computes nothing, generated for any chapter.

    timeout 1800 python tests/redteam_grade.py 09-modern-lm tests/redteam/round15/hostile/any-chapter-attacks.py

Every answer stub's `raise NotImplementedError()` becomes `return helper.one()` (a `Yes`: equal to
anything, true, two items when unpacked); the first answer cell also writes and imports the module (see
02-attacks.py for how it escapes the static scan, the audit hook and the tamper guard).
"""
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
_spec = importlib.util.spec_from_file_location("attacks02", HERE / "02-attacks.py")
_m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_m)

# generic Yes: unpacks into two items (most tuple answers are pairs); no Sequence registration (the watcher
# swaps `torch` before a test cell starts, so no real assert_close sees a Yes)
CHEAT = _m.CHEAT.replace("    def __iter__(self): return iter(())\n    def __len__(self): return 0\n",
                         "    def __iter__(self): return iter((Yes(), Yes()))\n    def __len__(self): return 2\n")
CHEAT = CHEAT.replace("collections.abc.Sequence.register(Yes)", "pass")
assert CHEAT != _m.CHEAT
LOADER = _m.LOADER.replace(repr(_m.CHEAT), repr(CHEAT))

chapter = next((a for a in sys.argv if (ROOT / "chapters" / a).is_dir()), "02-scaled-attention")
nb = json.loads((ROOT / "chapters" / chapter / "exercises.ipynb").read_text())
cells, first = {}, True
for cell in nb["cells"]:
    meta = cell["metadata"].get("nbgrader", {})
    if not meta.get("solution"):
        continue
    src = "".join(cell["source"])
    lines = []
    for line in src.split("\n"):
        if line.strip() == "raise NotImplementedError()":
            indent = line[: len(line) - len(line.lstrip())]
            line = f"{indent}return helper.one()" if indent else f"{indent}pass"
        lines.append(line)
    cells[meta["grade_id"]] = (LOADER if first else "") + "\n".join(lines)
    first = False

SUBMISSIONS = [{"name": f"nothing_{chapter}", "correct": False, "cells": cells,
                "why": "every answer returns a Yes and computes nothing"}]
