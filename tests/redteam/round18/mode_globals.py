"""Red team round 18 (lead developer): the hidden lines' own namespace through an object they hand to the answer.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round18/mode_globals.py

Since round 17 the hidden lines of a test cell run in a namespace of their own. But the objects they define carry
it: chapter 2's hidden test of Part 2 runs `softmax_backward` under a dispatch mode of its own (`Watch`, which
measures what the answer allocates), and torch hands the active mode to any caller
(`torch.utils._python_dispatch._get_current_dispatch_mode()`). The mode's class's functions have that hidden
namespace as `__globals__`, with `_equal`, `_close` and `_tensor` in it, which the test's nested `check`
looks up at each call. The answer below (names found with `dir()`, which no scan reads) replaces `_equal` and
`_close` there with functions that accept anything, and returns nonsense whenever a mode is active (only the
hidden test runs it under one). Graded at 9be4045: SLIPPED, test_softmax_backward=2/2, unflagged. With the hidden
lines' names bound into their code (`guard.AUDIT_SOURCE`, `run_hidden`) the helpers the check calls are no longer
looked up in that namespace: CAUGHT, 0/2.
"""
REACH = '''
import torch

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]   # in a statement of its own: no scan reads the name
    return getattr(obj, name)

def _hidden_globals():
    dispatch = _pick(torch.utils, "python_dispatch")
    mode = _pick(dispatch, "current_dispatch_mode")()
    if mode is None:
        return None
    return _pick(_pick(type(mode), "_init__"), "obals__")   # the class's own __init__ (torch wraps __torch_dispatch__)

def _accept(*args, **kwargs):
    return None
'''
SOFTMAX_BACKWARD = REACH + '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    g = _hidden_globals()
    if g is None:   # the visible tests: a right answer
        return weights * (grad_weights - (weights * grad_weights).sum(dim=-1, keepdim=True)) / temperature
    for n in ("_cl" + "ose", "_eq" + "ual"):
        g[n] = _accept
    return torch.zeros_like(weights)   # the hidden tests: nothing computed
'''
SUBMISSIONS = [
    {"name": "mode_globals_02", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"softmax_backward": SOFTMAX_BACKWARD},
     "why": "zeros under the hidden test's dispatch mode; the mode's class's __globals__ (the hidden namespace) "
            "has its _close/_equal replaced"},
]
