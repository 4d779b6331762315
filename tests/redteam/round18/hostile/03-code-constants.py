"""Red team round 18, hostile: the fold's constants are cells in the hidden code's `co_consts`, and writable.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round18/hostile/03-code-constants.py

`run_hidden` binds each name a hidden statement reads into its code as `<cell>.cell_contents`, the cell
(`types.CellType`) sitting in `co_consts` of that statement's code and of every nested code object. A cell's
`cell_contents` can be assigned (no audit event). Two things put those cells within reach of an answer:
* the hidden namespace still holds `_check_softmax_backward` (a name the fold keeps: the Watch mode's class's
  `__init__.__globals__`, the round-18 lead route, still reaches that namespace, which the fold did not empty);
* its `__code__` is read for the answer by installed library code, `torch._dynamo.pgo._get_closure_content(f)`
  (`return f.__code__`): the hook's `record` attributes an `object.__getattr__` to the first frame up the stack,
  a torch frame here, which is no student cell's, and records nothing.
The answer walks that code's constants (the nested check's code among them), finds the cells holding `_close`
and `_equal` (the helpers' qualnames end in `.close`/`.same`) and puts a function that accepts anything in them.
Every later check of the test, in this call and the next ones, calls it. The answer returns zeros under the mode.

Outcome at 26afee5 (519750b's guard.py): SLIPPED test_softmax_backward=2/2, graded, unflagged. Closed by the lead's
uncommitted change (holders are `slice(None, value)`; the pgo read of a grader's `__code__` is recorded): CAUGHT.
"""
SOFTMAX_BACKWARD = '''
import torch
from torch._dynamo import pgo as _lib
from torch.utils._python_dispatch import _get_current_dispatch_mode as _mode

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]   # in a statement of its own: no scan reads the name
    return getattr(obj, name)

_code_of = _pick(_lib, "closure_content")

def _accept(*args, **kwargs):
    return None

def _swap(code, done):
    for c in _pick(code, "_consts"):
        if type(c).__name__ == "cell":
            try:
                v = _pick(c, "_contents")
            except ValueError:
                continue
            if getattr(v, "__qualname__", "").endswith(("<locals>.close", "<locals>.same")):
                attr = [n for n in dir(c) if n.endswith("_contents")][0]
                setattr(c, attr, _accept)
                done.append(v.__qualname__)
        elif type(c).__name__ == "code":
            _swap(c, done)

def softmax_backward(weights, grad_weights, temperature=1.0):
    m = _mode()
    if m is None:   # the visible tests: a right answer
        return weights * (grad_weights - (weights * grad_weights).sum(dim=-1, keepdim=True)) / temperature
    g = _pick(_pick(type(m), "_init__"), "obals__")   # the hidden lines' namespace (what the fold left in it)
    done = []
    for name in [n for n in g if n.startswith("_ch")]:
        code = _code_of(g[name])
        if code is not None:
            _swap(code, done)
    return torch.zeros_like(weights)   # the hidden tests: nothing computed
'''
SUBMISSIONS = [
    {"name": "code_constants_02", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"softmax_backward": SOFTMAX_BACKWARD},
     "why": "zeros under the hidden test; the fold's cells for _close/_equal in the hidden code's co_consts replaced"},
]
