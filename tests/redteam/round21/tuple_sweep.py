"""python tuple_sweep.py CHAPTER OUT.py: one submission per answer cell: every tested function that returns a tuple returns a list instead."""
import ast, json, pathlib, pprint, sys
sys.path.insert(0, str(pathlib.Path(__file__).parents[2]))
from grading import solution_code
ch, out = sys.argv[1], sys.argv[2]
nb = json.loads(((pathlib.Path(__file__).parents[3] / "chapters") / ch / "exercises.ipynb").read_text())
called = {n.id for c in nb["cells"] if c["cell_type"] == "code"
          and c["metadata"].get("nbgrader", {}).get("grade_id", "").startswith("test_")
          for n in ast.walk(ast.parse("".join(c["source"]))) if isinstance(n, ast.Name)}
WRAP = '''

import functools as _ft


def _as_list(f):
    @_ft.wraps(f)
    def g(*a, **k):
        r = f(*a, **k)
        return list(r) if type(r) is tuple else r
    return g
'''
subs = []
for gid, code in solution_code(ch).items():
    try:
        tree = ast.parse(code)
    except SyntaxError:
        continue
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in called
             and any(isinstance(r, ast.Return) and isinstance(r.value, ast.Tuple) for r in ast.walk(n))]
    if names:
        subs.append({"name": f"list-{gid}", "correct": False, "cells": {gid: code + WRAP + "".join(f"{n} = _as_list({n})\n" for n in names)},
                     "why": f"{', '.join(names)} return a list where a tuple is stated"})
open(out, "w").write("SUBMISSIONS = " + pprint.pformat(subs, width=120) + "\n")
print(ch, len(subs), [s["name"] for s in subs])
