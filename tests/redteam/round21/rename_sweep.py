"""python rename_sweep.py CHAPTER OUT.py: one submission per answer cell of CHAPTER whose functions keep their body and
rename every parameter (``x`` becomes ``x_``), the signature-and-defaults student's renamed argument.

Every notebook says to keep the stubs' signatures, argument names included. A part where the renamed answer keeps
its points never calls that function with an argument by name; whether that is a slip depends on what the part's
text promises (every argument by name, or only the optional ones). Grade with tests/redteam_grade.py."""
import ast, json, pathlib, pprint, sys
sys.path.insert(0, str(pathlib.Path(__file__).parents[2]))
from grading import solution_code

ch, out = sys.argv[1], sys.argv[2]
nb = json.loads((pathlib.Path(__file__).parents[3] / "chapters" / ch / "exercises.ipynb").read_text())
called = {n.id for c in nb["cells"] if c["cell_type"] == "code"
          and c["metadata"].get("nbgrader", {}).get("grade_id", "").startswith("test_")
          for n in ast.walk(ast.parse("".join(c["source"]))) if isinstance(n, ast.Name)}


class Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            node.id += "_"
        return node


subs = []
for gid, code in solution_code(ch).items():
    try:
        tree = ast.parse(code)
    except SyntaxError:
        continue
    changed = []
    for fn in tree.body:
        if not (isinstance(fn, ast.FunctionDef) and fn.name in called):
            continue
        a = fn.args
        params = [p for p in a.posonlyargs + a.args + a.kwonlyargs]
        names = {p.arg for p in params} - {"self"}
        if not names:
            continue
        for p in params:
            if p.arg in names:
                p.arg += "_"
        for stmt in fn.body:
            Rename(names).visit(stmt)
        changed.append(fn.name)
    if changed:
        subs.append({"name": f"renamed-{gid}", "correct": False, "cells": {gid: ast.unparse(tree)},
                     "why": f"every parameter of {', '.join(changed)} renamed"})
open(out, "w").write("SUBMISSIONS = " + pprint.pformat(subs, width=120) + "\n")
print(ch, len(subs))
