"""Red team round 18, hostile: the constants' own state, the helpers' closure cells.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round18/hostile/01-helper-closure.py

The fold binds `_close` and `_equal` into the hidden lines' code as constants: the function objects the
grading_helpers cell made. What those functions call lives in the cells of their closure (`assert_close`,
`equal`, shared by every helper made by `_attnlab_plain_helpers`), and `__closure__` / `cell_contents`
raise no audit event, are not fingerprinted by the probe (fp = ids of the function, its code, its defaults),
and are reached from the answer's own `__globals__` (names found with dir()). The answer cell replaces
`assert_close` with a no-op and `equal` with one that says True, once, when the cell runs.

Outcome at 26afee5 (guard.py as committed in 519750b; run with that guard.py on PYTHONPATH, see FINDINGS.md):
closure_02 SLIPPED test_softmax_backward=2/2 (confirmed alone); closure_02_control CAUGHT 0/2; closure_02_causal
SLIPPED test_causal_mask=2/2 (confirmed alone); status graded, unflagged. Closed by the lead's uncommitted change
(trust() seals grader functions with fresh cells; working tree md5 eb79fcc3): all three CAUGHT. But the sealed
copies' own cells are still writable from the hidden code's constants: 04-library-frame.py.
"""
REACH = '''
import torch

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]   # in a statement of its own: no scan reads the name
    return getattr(obj, name)

def _neuter():
    g = _pick(_neuter, "obals__")
    for helper, real, fake in ((g["_cl" + "ose"], torch.testing.assert_close, lambda *a, **k: None),
                               (g["_eq" + "ual"], torch.equal, lambda *a, **k: True)):
        for cell in _pick(helper, "losure__"):
            if _pick(cell, "_contents") is real:
                attr = [n for n in dir(cell) if n.endswith("_contents")][0]
                setattr(cell, attr, fake)
_neuter()
'''
SOFTMAX_BACKWARD = REACH + '''
from torch.utils._python_dispatch import _get_current_dispatch_mode as _mode

def softmax_backward(weights, grad_weights, temperature=1.0):
    if _mode() is None:   # the visible tests: a right answer
        return weights * (grad_weights - (weights * grad_weights).sum(dim=-1, keepdim=True)) / temperature
    return torch.zeros_like(weights)   # the hidden tests: nothing computed
'''
CONTROL = SOFTMAX_BACKWARD.replace("_neuter()\n", "")
CAUSAL_MASK = REACH + '''
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):   # the visible test's case
        return torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])
    return torch.ones(t, s, dtype=torch.bool)   # everything else: every key allowed
'''
SUBMISSIONS = [
    {"name": "closure_02", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"softmax_backward": SOFTMAX_BACKWARD},
     "why": "zeros under the hidden test's dispatch mode; _close/_equal's closure cells (assert_close, equal) "
            "replaced from the answer cell"},
    {"name": "closure_02_control", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"softmax_backward": CONTROL}, "why": "the same answer, helpers left alone"},
    {"name": "closure_02_causal", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"causal_mask": CAUSAL_MASK}, "why": "all-True mask except the visible case; helpers' cells replaced"},
]
