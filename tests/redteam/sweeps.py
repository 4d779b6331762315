"""Shared by the mechanical sweeps (tests/redteam/round21/*_sweep.py): the model answer's functions that a chapter's
test cells call, and the SUBMISSIONS file that tests/redteam_grade.py reads."""
import ast
import json
import pathlib
import pprint
import sys

ROOT = pathlib.Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from grading import solution_code  # noqa: E402


def called(chapter):
    """Every name the student notebook's test cells use."""
    nb = json.loads((ROOT / "chapters" / chapter / "exercises.ipynb").read_text())
    return {n.id for c in nb["cells"] if c["cell_type"] == "code"
            and c["metadata"].get("nbgrader", {}).get("grade_id", "").startswith("test_")
            for n in ast.walk(ast.parse("".join(c["source"]))) if isinstance(n, ast.Name)}


def tested_functions(chapter):
    """``(grade_id, code, [(index in the cell's body, FunctionDef), ...])`` for each answer cell of the model answer
    that defines a top-level function the test cells call."""
    names = called(chapter)
    for gid, code in solution_code(chapter).items():
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        fns = [(i, fn) for i, fn in enumerate(tree.body) if isinstance(fn, ast.FunctionDef) and fn.name in names]
        if fns:
            yield gid, code, fns


def write(out, subs, chapter):
    open(out, "w").write("SUBMISSIONS = " + pprint.pformat(subs, width=120) + "\n")
    print(chapter, len(subs))
