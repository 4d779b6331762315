"""Round 22: an honest `torch.manual_seed(0)` as the first line of each tested function of the model answer (the
sampling student's "reproducible" habit; every notebook forbids seeding torch's global generator).

    python tests/redteam/round22/seed_sweep.py CHAPTER OUT.py

One submission per function. Each is wrong and must lose its own part, by the tests' check of the global
generator, and nothing else: it must not be flagged as tampering with the grader.
"""
import ast
import sys

sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1]))
from sweeps import tested_functions, write  # noqa: E402


def main(chapter, out):
    subs = []
    for gid, code, fns in tested_functions(chapter):
        lines = code.splitlines()
        for _, fn in fns:
            first = fn.body[0]
            if isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant) and len(fn.body) > 1:
                first = fn.body[1]  # after the docstring
            indent = " " * first.col_offset
            seeded = lines[:first.lineno - 1] + [indent + "torch.manual_seed(0)"] + lines[first.lineno - 1:]
            subs.append({"name": f"seed-{fn.name}", "correct": False, "cells": {gid: "import torch\n" + "\n".join(seeded)},
                         "why": "every notebook: the functions may not seed torch's global generator"})
    write(out, subs, chapter)


if __name__ == "__main__":
    main(*sys.argv[1:3])
