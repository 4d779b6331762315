"""python order_sweep.py CHAPTER OUT.py: one submission per pair of neighbouring positional parameters of the functions
CHAPTER's tests call, with the two swapped in the signature (names kept, defaults kept in place): the
signature-and-defaults student's arguments in another order, right for every call that names them and wrong for a
positional call unless both values are equal. Grade with tests/redteam_grade.py."""
import ast, pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))
from sweeps import tested_functions, write

ch, out = sys.argv[1], sys.argv[2]
subs = []
for gid, code, fns in tested_functions(ch):
    for i, fn in fns:
        n_args, n_def = len(fn.args.args), len(fn.args.defaults)
        for j in range(n_args - 1):
            if (j < n_args - n_def) != (j + 1 < n_args - n_def):
                continue  # one with a default and one without: the swap would not parse
            new = ast.parse(code)
            args = new.body[i].args.args
            args[j].arg, args[j + 1].arg = args[j + 1].arg, args[j].arg
            subs.append({"name": f"order-{fn.name}-{args[j + 1].arg}-{args[j].arg}", "correct": False,
                         "cells": {gid: ast.unparse(new)},
                         "why": f"{fn.name} takes {args[j + 1].arg} and {args[j].arg} in the other order"})
write(out, subs, ch)
