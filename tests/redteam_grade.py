"""Black-box grading of red-team submissions for one chapter (scores only, no test text).

    python tests/redteam_grade.py 03-multi-head path/to/submissions.py [--alone NAME ...]

submissions.py defines SUBMISSIONS = [
    {"name": "p3_forgets_scale", "correct": False, "cells": {"<answer grade_id>": "<code>"}, "why": "..."},
    (an optional "chapter" key: the submission is graded only with that chapter)
    ...
]
Each submission replaces only the answer cells it names; every other cell keeps a correct answer.
Submissions that change different cells are packed into one graded notebook (parts are graded
independently); every wrong answer that keeps full marks and every correct one that loses points is
then graded again alone to confirm, and so is every member of a notebook the grader flagged (one
hostile answer flags the whole notebook, which would read as "caught" for its neighbours). Prints one line per submission:
  CAUGHT / SLIPPED (wrong answers), OK / REFUSED (correct ones), with the points of the graded tests
that follow the changed answer cells.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from attnlab import course  # noqa: E402
from grading import load, write_submission  # noqa: E402
from attnlab.instructor.grading import grade  # noqa: E402


def graded_after(chapter: str) -> dict[str, list[str]]:
    """answer cell grade_id -> the graded test cells up to the next answer cell."""
    nb = load(ROOT / "chapters" / chapter / "exercises.ipynb")
    out, current = {}, None
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            current = meta["grade_id"]
            out[current] = []
            if meta.get("grade"):
                out[current].append(current)
        elif meta.get("grade") and current is not None:
            out[current].append(meta["grade_id"])
    return out


def run(chapter: str, batches: dict[str, dict[str, str]], tmp: Path):
    paths = {name: write_submission(chapter, tmp / f"{name}.ipynb", cells) for name, cells in batches.items()}
    with course.scratch_course(chapter, ROOT) as (_api, scratch):
        results = grade(ROOT, chapter, paths, f"sqlite:///{scratch / 'gradebook.db'}", workers=2)
    return {r.student: r for r in results}


def verdict(sub, result, targets):
    tests = [t for cell in sub["cells"] for t in targets.get(cell, [])]
    if result is None or not result.parts:
        return "LOST_ALL" if not sub["correct"] else "REFUSED", f"status={getattr(result, 'status', None)}"
    lost = [t for t in tests if t in result.parts and result.parts[t].score < result.parts[t].max_score]
    detail = " ".join(f"{t}={result.parts[t].score:g}/{result.parts[t].max_score:g}" for t in tests if t in result.parts)
    if result.status == "flagged":
        detail += " [flagged: " + "; ".join(result.reasons)[:200] + "]"
    if sub["correct"]:
        return ("OK" if not lost and result.status == "graded" else "REFUSED"), detail
    return ("CAUGHT" if lost else "SLIPPED"), detail


def main(argv):
    chapter, spec_path = argv[0], Path(argv[1])
    only = argv[argv.index("--alone") + 1:] if "--alone" in argv else None
    spec = importlib.util.spec_from_file_location("subs", spec_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    # a submission may name its chapter, so that one file can hold answers for several
    subs = [s for s in mod.SUBMISSIONS if (only is None or s["name"] in only) and s.get("chapter", chapter) == chapter]
    names = [s["name"] for s in subs]
    if len(set(names)) != len(names):
        raise SystemExit("submission names must be unique")
    targets = graded_after(chapter)
    for s in subs:
        unknown = set(s["cells"]) - set(targets)
        if unknown:
            raise SystemExit(f"{s['name']}: no answer cells {sorted(unknown)}; answer cells are {sorted(targets)}")
    # pack: disjoint answer cells per notebook
    packs: list[list[dict]] = []
    for s in subs:
        home = next((p for p in packs if not any(set(s["cells"]) & set(m["cells"]) for m in p)), None)
        (home.append(s) if home is not None else packs.append([s]))
    if only is not None:
        packs = [[s] for s in subs]
    with tempfile.TemporaryDirectory(prefix="redteam-") as tmp:
        tmp = Path(tmp)
        batches = {f"pack{i}": {c: code for m in p for c, code in m["cells"].items()} for i, p in enumerate(packs)}
        results = run(chapter, batches, tmp)
        lines, recheck = {}, []
        for i, p in enumerate(packs):
            result = results.get(f"pack{i}")
            # a flagged notebook tells nothing about its members: one hostile answer flags all
            flagged = result is not None and result.status == "flagged"
            for s in p:
                v, d = verdict(s, result, targets)
                lines[s["name"]] = (v, d)
                if len(p) > 1 and (flagged or v in ("SLIPPED", "REFUSED")):
                    recheck.append(s)
        if recheck:
            again = run(chapter, {f"alone{i}": s["cells"] for i, s in enumerate(recheck)}, tmp)
            for i, s in enumerate(recheck):
                v, d = verdict(s, again.get(f"alone{i}"), targets)
                lines[s["name"]] = (v, d + " (confirmed alone)")
    counts = {}
    for s in subs:
        v, d = lines[s["name"]]
        counts[v] = counts.get(v, 0) + 1
        print(f"{v:8} {s['name']}: {d}")
    print("summary:", counts, f"graded notebooks: {len(packs)} (+{len(recheck)} alone)")


if __name__ == "__main__":
    main(sys.argv[1:])
