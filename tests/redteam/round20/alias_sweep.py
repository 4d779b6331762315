"""python alias_sweep.py CHAPTER {back|trigger} OUT.py: one submission per answer cell of CHAPTER.

back: the model answer whose top-level functions hand back an input itself whenever their result (or an item of a
returned tuple or list) equals that input in shape, dtype, flag and values: the aliasing student's shortcut on a
degenerate input (nothing appended to a cache, a norm of an all-zero row, an identity permutation).
trigger: the same, but raising where `back` would hand the input back, so that a part where `back` keeps its points
and `trigger` loses them had a case where the result equals an input and nothing noticed the input handed back.
Grade both with tests/redteam_grade.py; see README section 5."""
import pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))
from sweeps import tested_functions, write
WRAP = '''

import functools as _ft
import torch as _tt


def _alias_back(f):
    @_ft.wraps(f)
    def g(*a, **k):
        r = f(*a, **k)
        ins = [x for x in list(a) + list(k.values()) if type(x) is _tt.Tensor]

        def same(t):
            if type(t) is not _tt.Tensor:
                return t
            for x in ins:
                if x.shape == t.shape and x.dtype == t.dtype and x.device == t.device and x.layout == t.layout:
                    with _tt.no_grad():
                        if _tt.equal(x, t) and x.requires_grad == t.requires_grad:
                            return x
            return t
        if type(r) is tuple:
            return tuple(same(t) for t in r)
        if type(r) is list:
            return [same(t) for t in r]
        return same(r)
    return g
'''
ch, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
if mode == "trigger":
    WRAP = WRAP.replace("                            return x\n", "                            raise RuntimeError(\"ALIAS-TRIGGER\")\n")
subs = []
# only the functions the part's tests call (a helper of the answer that hands back its input, such as a projection by
# an identity weight, is no slip)
for gid, code, fns in tested_functions(ch):
    new = code + WRAP + "".join(f"{fn.name} = _alias_back({fn.name})\n" for _, fn in fns)
    subs.append({"name": f"alias-{mode}-{gid}", "correct": False, "cells": {gid: new},
                 "why": "hands back an input itself where the result equals it"})
write(out, subs, ch)
