"""CPU that a grading process spends reading the course's own cells of one notebook, each time and once per process.

    python benchmarks/grader_cells.py                      # every chapter, 20 notebooks each
    python benchmarks/grader_cells.py --chapter 03-multi-head --notebooks 50

The grader reads the test cells and the locked cells of every notebook it grades: it cuts each test cell at its
hidden-test markers and compiles every stretch (``guard.test_segments``), and after each locked cell asks which names
it bound (``guard.bound_names``). nbgrader puts those cells back from the released notebook, so their text is the
same in every notebook of a chapter, and one grading process grades one chapter: the answers are cached per
process. This script does that reading for ``--notebooks`` notebooks of each chapter, first computing every answer
again (the functions behind the caches), then through the caches as a grading process does, and prints the CPU
time of each and their ratio, measured in this run. It also checks that both give the same answers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from attnlab.instructor import guard  # noqa: E402


def course_cells(chapter: str) -> tuple[list[str], list[str]]:
    """The sources of the test cells and of the locked cells of a chapter's source notebook."""
    nb = json.loads((ROOT / "solutions" / chapter / "exercises.ipynb").read_text(encoding="utf-8"))
    tests, locked = [], []
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] != "code" or meta.get("solution"):
            continue
        (tests if meta.get("grade") else locked).append("".join(cell["source"]))
    return tests, locked


def read_notebook(tests, locked, segments, names) -> list:
    return [segments(s) for s in tests] + [names(s) for s in locked]


def cpu_of(notebooks: int, tests, locked, segments, names) -> tuple[float, list]:
    start = time.process_time()
    for _ in range(notebooks):
        answers = read_notebook(tests, locked, segments, names)
    return time.process_time() - start, answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chapter", action="append", help="chapter id (repeatable; default: every chapter)")
    parser.add_argument("--notebooks", type=int, default=20, help="notebooks graded by one process (default 20)")
    args = parser.parse_args()
    if args.notebooks < 1:
        parser.error("--notebooks must be at least 1")
    chapters = args.chapter or sorted(p.parent.name for p in (ROOT / "solutions").glob("*/exercises.ipynb"))
    uncached_segments = guard._test_segments.__wrapped__
    uncached_names = guard._bound_names.__wrapped__
    total_each, total_once = 0.0, 0.0
    print(f"{'chapter':24} {'every notebook':>15} {'once a process':>15}   (CPU s for {args.notebooks} notebooks)")
    for chapter in chapters:
        if not (ROOT / "solutions" / chapter / "exercises.ipynb").is_file():
            raise SystemExit(f"no chapter {chapter!r} in solutions/: give one of the folders there")
        tests, locked = course_cells(chapter)
        guard._test_segments.cache_clear()
        guard._bound_names.cache_clear()
        each, expected = cpu_of(args.notebooks, tests, locked, uncached_segments, uncached_names)
        once, got = cpu_of(args.notebooks, tests, locked, guard._test_segments, guard._bound_names)
        if got != expected:
            raise SystemExit(f"{chapter}: the cached answers differ from the computed ones")
        total_each += each
        total_once += once
        print(f"{chapter:24} {each:15.3f} {once:15.3f}")
    print(f"{'all':24} {total_each:15.3f} {total_once:15.3f}")
    print(f"ratio, every notebook / once a process: {total_each / max(total_once, 1e-9):.1f}")


if __name__ == "__main__":
    main()
