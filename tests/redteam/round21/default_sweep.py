"""python default_sweep.py CHAPTER OUT.py: one submission per defaulted parameter of the functions CHAPTER's tests
call, with that default changed (a float times 1.5, an int plus 1, a bool flipped, a string or None left alone): the
signature-and-defaults student's default that differs from the stated one. A part that keeps its points never calls
the function without that argument, or cannot tell the two defaults apart. Grade with tests/redteam_grade.py."""
import ast, pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))
from sweeps import tested_functions, write

ch, out = sys.argv[1], sys.argv[2]


def changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 if value else 1e-3
    return None


subs = []
for gid, code, fns in tested_functions(ch):
    for i, fn in fns:
        a = fn.args
        positional = a.posonlyargs + a.args
        pairs = list(zip(positional[len(positional) - len(a.defaults):], range(len(a.defaults)))) if a.defaults else []
        for param, k in pairs + [(p, None) for p in a.kwonlyargs]:
            default = a.defaults[k] if k is not None else a.kw_defaults[a.kwonlyargs.index(param)]
            if not isinstance(default, ast.Constant) or changed(default.value) is None:
                continue
            new = ast.parse(code)
            f = new.body[i]
            node = f.args.defaults[k] if k is not None else f.args.kw_defaults[f.args.kwonlyargs.index(param)]
            node.value = changed(default.value)
            subs.append({"name": f"default-{fn.name}-{param.arg}", "correct": False, "cells": {gid: ast.unparse(new)},
                         "why": f"{fn.name}'s default {param.arg}={default.value!r} changed to {node.value!r}"})
write(out, subs, ch)
