"""Helpers for exercise-pipeline tests: build submissions from the sources, grade them with nbgrader."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def load(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def answer_cells(nb: dict) -> dict[str, dict]:
    """The cells a student writes in, by nbgrader grade_id."""
    return {
        c["metadata"]["nbgrader"]["grade_id"]: c
        for c in nb["cells"]
        if c["metadata"].get("nbgrader", {}).get("solution")
    }


def solution_code(chapter: str) -> dict[str, str]:
    """Each answer cell of ``solutions/<chapter>`` with the marker lines removed: the model answer."""
    nb = load(ROOT / "solutions" / chapter / "exercises.ipynb")
    code = {}
    for gid, cell in answer_cells(nb).items():
        source = "".join(cell["source"])
        code[gid] = "\n".join(line for line in source.splitlines() if line.strip() not in MARKERS)
    return code


def write_submission(chapter: str, path: Path, answers: dict[str, str] | None = None, *, base: str = "solution") -> Path:
    """Write a submission: the committed student notebook with its answer cells filled in.

    ``base="solution"`` starts from the model answers, ``base="student"`` from the stubs;
    ``answers`` then replaces individual cells by grade_id.
    """
    nb = load(ROOT / "chapters" / chapter / "exercises.ipynb")
    cells = answer_cells(nb)
    fill = solution_code(chapter) if base == "solution" else {}
    fill.update(answers or {})
    unknown = set(fill) - set(cells)
    if unknown:
        raise KeyError(f"no answer cells {sorted(unknown)} in {chapter}")
    for gid, code in fill.items():
        cells[gid]["source"] = code
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return path


def total(parts: dict) -> float:
    return sum(p.score for p in parts.values())


def maximum(parts: dict) -> float:
    return sum(p.max_score for p in parts.values())


def load_script(relative_path: str):
    """Import a script from the repository (e.g. ``experiments/pre_post_ln.py``) as a module."""
    import importlib.util

    path = ROOT / relative_path
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
