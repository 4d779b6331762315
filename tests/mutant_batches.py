"""Propose ``MUTANT_BATCHES`` for a chapter's mutant spec, from grading, not from reading the code.

    python tests/mutant_batches.py 03-multi-head

Grades every mutant of ``tests/mutants_<chapter>.py`` alone and records which graded tests it makes
lose points (its own, and any later part that calls the broken function). Two mutants may share a
submission only if they change different answer cells, target different graded tests, and neither
breaks the other's test; the mutants are packed greedily into such batches. The batches are then
graded and each must lose exactly the union of its members' tests. Prints the batches of two or
more members, ready to paste into the spec; a spec's batches are checked again by
``tests/test_exercises.py`` (each member must still lose its own test).
"""

from __future__ import annotations

import importlib
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from attnlab import course  # noqa: E402
from grading import ROOT, write_submission  # noqa: E402


def lost_tests(parts: dict) -> set[str]:
    return {grade_id for grade_id, part in parts.items() if part.score < part.max_score}


def propose(chapter: str, folder: Path) -> list[list[str]]:
    spec = importlib.import_module("mutants_" + chapter.replace("-", "_"))
    alone = course.autograde_notebooks(chapter, {
        name: write_submission(chapter, folder / f"{name}.ipynb", answers) for name, (_, answers) in spec.MUTANTS.items()
    }, ROOT, workers=2)
    breaks = {name: lost_tests(parts) for name, parts in alone.items()}
    harmless = [name for name, (test, _) in spec.MUTANTS.items() if test not in breaks[name]]
    if harmless:
        raise SystemExit(f"{chapter}: these mutants keep their own test's points even alone: {harmless}")

    def clash(a: str, b: str) -> bool:
        (test_a, cells_a), (test_b, cells_b) = spec.MUTANTS[a], spec.MUTANTS[b]
        return test_a == test_b or test_b in breaks[a] or test_a in breaks[b] or bool(set(cells_a) & set(cells_b))

    batches: list[list[str]] = []
    for name in sorted(spec.MUTANTS, key=lambda n: -len(breaks[n])):  # the most entangled first
        home = next((b for b in batches if not any(clash(name, m) for m in b)), None)
        if home is None:
            batches.append([name])
        else:
            home.append(name)

    together = course.autograde_notebooks(chapter, {
        f"batch_{i}": write_submission(chapter, folder / f"batch_{i}.ipynb",
                                       {cell: code for m in batch for cell, code in spec.MUTANTS[m][1].items()})
        for i, batch in enumerate(batches)
    }, ROOT, workers=2)
    for i, batch in enumerate(batches):
        expected, got = set().union(*(breaks[m] for m in batch)), lost_tests(together[f"batch_{i}"])
        if got != expected:
            raise SystemExit(f"{chapter}: batch {batch} lost {sorted(got)}, its members alone {sorted(expected)}")
    return [batch for batch in batches if len(batch) > 1]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    with tempfile.TemporaryDirectory(prefix="mutant-batches-") as tmp:
        print("MUTANT_BATCHES = " + json.dumps(propose(sys.argv[1], Path(tmp)), indent=4))
