"""Helpers for exercise-pipeline tests: build submissions from the sources, grade them with nbgrader."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTION_LINES = ("### BEGIN SOLUTION", "### END SOLUTION")


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
        code[gid] = "\n".join(line for line in source.splitlines() if line.strip() not in SOLUTION_LINES)
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


MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
ANSWER = re.compile(r"^\w+=(\"\w\"|'\w'|[\d_.*+/()]+)$")


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def secret_lines(chapter: str) -> set[str]:
    """Lines of the model answers and hidden tests that appear nowhere a student may see them:
    not in the student notebook and not in the code the course publishes (package, experiments,
    benchmarks)."""
    source = load(ROOT / "solutions" / chapter / "exercises.ipynb")
    student = squash(json.dumps(load(ROOT / "chapters" / chapter / "exercises.ipynb")["cells"]))
    published = [*(ROOT / "src" / "attnlab").glob("*.py"), *(ROOT / "experiments").glob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    public = squash("".join(p.read_text() for p in published))
    secrets = set()
    for cell in source["cells"]:
        inside = None
        for line in "".join(cell["source"]).splitlines():
            stripped = line.strip()
            if stripped in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
                inside = stripped
                continue
            if stripped in ("### END SOLUTION", "### END HIDDEN TESTS"):
                inside = None
                continue
            squashed = squash(line)
            # long lines, or short answers such as `answer_masking = "c"` / `crossover_length = 1536`;
            # short generic code (`with torch.no_grad():`) may appear anywhere and is not a leak
            distinctive = len(squashed) >= 24 or ANSWER.match(squashed)
            if inside and distinctive and not squashed.startswith("#"):
                if squashed not in public and json.dumps(line.strip())[1:-1].replace(" ", "") not in student:
                    secrets.add(squashed)
    return secrets
