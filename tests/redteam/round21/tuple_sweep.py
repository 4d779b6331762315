"""python tuple_sweep.py CHAPTER OUT.py: one submission per answer cell: every tested function that returns a tuple returns a list instead."""
import ast, pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))
from sweeps import tested_functions, write

ch, out = sys.argv[1], sys.argv[2]
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
for gid, code, fns in tested_functions(ch):
    names = [fn.name for _, fn in fns
             if any(isinstance(r, ast.Return) and isinstance(r.value, ast.Tuple) for r in ast.walk(fn))]
    if names:
        subs.append({"name": f"list-{gid}", "correct": False,
                     "cells": {gid: code + WRAP + "".join(f"{n} = _as_list({n})\n" for n in names)},
                     "why": f"{', '.join(names)} return a list where a tuple is stated"})
write(out, subs, ch)
