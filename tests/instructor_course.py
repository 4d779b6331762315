"""Helpers for the instructor-workflow tests: a scratch copy of the course, the CLI run in-process."""

from __future__ import annotations

import contextlib
import csv
import io
import shutil
from pathlib import Path

from attnlab import course
from grading import ROOT

CHAPTER = "02-scaled-attention"


def copy_course(target: Path, chapters: tuple[str, ...] = (CHAPTER,)) -> Path:
    """A course directory with the config and the given chapters' sources and student notebooks."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "nbgrader_config.py", target / "nbgrader_config.py")
    for chapter in chapters:
        for part in ("solutions", "chapters"):
            shutil.copytree(ROOT / part / chapter, target / part / chapter)
    return target


def cli(*args: str) -> tuple[int, str, str]:
    """Run ``attnlab-course ARGS`` in this process; returns (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = course.main(list(args))
    return status, out.getvalue(), err.getvalue()


def summary_rows(root: Path, chapter: str = CHAPTER) -> dict[str, dict]:
    with (root / "reports" / f"autograde-{chapter}.csv").open(encoding="utf-8") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def part_grades(db_url: str, chapter: str = CHAPTER) -> dict[str, dict[str, tuple[float, bool]]]:
    """``{student: {grade_id: (score, needs_manual_grade)}}`` from the gradebook."""
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(db_url, "attnlab") as gb:
        for student in gb.students:
            try:
                nb = gb.find_submission_notebook("exercises", chapter, student.id)
            except Exception:  # a student with no submission of this chapter
                continue
            out[student.id] = {g.name: (float(g.score or 0.0), bool(g.needs_manual_grade)) for g in nb.grades}
    return out
