"""python rename_sweep.py CHAPTER OUT.py [--one]: one submission per answer cell of CHAPTER whose functions keep their
body and rename every parameter (``x`` becomes ``x_``), the signature-and-defaults student's renamed argument. With
``--one``, one submission per parameter of each function the tests call, renaming that parameter only: a part
whose tests name some arguments but never a required one lets such an answer through.

Every notebook says to keep the stubs' signatures, argument names included. A part where the renamed answer keeps
its points never calls that function with an argument by name; whether that is a slip depends on what the part's
text promises (every argument by name, or only the optional ones). Grade with tests/redteam_grade.py."""
import ast, pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))
from sweeps import tested_functions, write

ch, out = sys.argv[1], sys.argv[2]
one = "--one" in sys.argv[3:]


class Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if node.id in self.names:
            node.id += "_"
        return node


def renamed(code, fname, only):
    """``code`` with the parameters of function ``fname`` renamed (all of them, or the one named ``only``)."""
    tree = ast.parse(code)
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef) and fn.name == fname:
            a = fn.args
            names = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} - {"self"}
            names = names & {only} if only else names
            for p in a.posonlyargs + a.args + a.kwonlyargs:
                if p.arg in names:
                    p.arg += "_"
            for stmt in fn.body:
                Rename(names).visit(stmt)
    return ast.unparse(tree)


subs = []
for gid, code, tested in tested_functions(ch):
    fns = [fn for _, fn in tested if {p.arg for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs} - {"self"}]
    if not fns:
        continue
    if not one:
        new = code
        for fn in fns:
            new = renamed(new, fn.name, None)
        subs.append({"name": f"renamed-{gid}", "correct": False, "cells": {gid: new},
                     "why": f"every parameter of {', '.join(fn.name for fn in fns)} renamed"})
        continue
    for fn in fns:
        for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
            if p.arg != "self":
                subs.append({"name": f"renamed-{fn.name}-{p.arg}", "correct": False,
                             "cells": {gid: renamed(code, fn.name, p.arg)}, "why": f"{fn.name}'s {p.arg} renamed"})
write(out, subs, ch)
