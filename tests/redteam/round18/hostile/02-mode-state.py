"""Red team round 18, hostile: the state of the dispatch mode the hidden test runs the answer under.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round18/hostile/02-mode-state.py

Chapter 2, Part 2 forbids torch's own softmax backward (`torch._softmax_backward_data`) and any tensor of more
than twice the elements of `weights` (no (..., S, S) Jacobian). The hidden test watches the answer with a
dispatch mode of its own (class `Watch`), which torch hands to any caller
(`torch.utils._python_dispatch._get_current_dispatch_mode()`); it keeps what it saw as plain attributes of the
instance (`ops`, a set; `largest`, an int; `inputs`, a set), which the answer changes with plain attribute
access (no audit event, no name the scan can read). Constants in the hidden lines' code do not help: the
check reads the mode's state after the answer returns.
"""
COMMON = '''
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode as _mode

def _work(weights, grad_weights, temperature, jacobian):
    dtype = weights.dtype
    w, g = (weights, grad_weights) if dtype == torch.float64 else (weights.float(), grad_weights.float())
    if jacobian:   # the (..., S, S) Jacobian the text forbids
        J = torch.diag_embed(w) - w.unsqueeze(-1) * w.unsqueeze(-2)
        out = (J @ g.unsqueeze(-1)).squeeze(-1)
    else:          # torch's own softmax backward, which the text refuses
        out = torch._softmax_backward_data(g, w, -1, w.dtype)
    return (out / temperature).to(dtype)
'''
HIDE = '''
def _hide(m, n):
    if m is None:
        return
    state = vars(m)
    if "ops" in state:
        for op in [o for o in state["ops"] if "softmax_backward" in str(o)]:
            state["ops"].discard(op)
    if "largest" in state:
        state["largest"] = min(state["largest"], n)
'''
def answer(jacobian, hide):
    return COMMON + (HIDE if hide else "\ndef _hide(m, n):\n    pass\n") + f'''
def softmax_backward(weights, grad_weights, temperature=1.0):
    out = _work(weights, grad_weights, temperature, {jacobian})
    _hide(_mode(), weights.numel())
    return out
'''
SUBMISSIONS = [
    {"name": "mode_ops", "correct": False, "cells": {"softmax_backward": answer(False, True)},
     "why": "torch._softmax_backward_data, then its op taken out of the mode's `ops`"},
    {"name": "mode_ops_control", "correct": False, "cells": {"softmax_backward": answer(False, False)},
     "why": "the same, the mode left alone"},
    {"name": "mode_largest", "correct": False, "cells": {"softmax_backward": answer(True, True)},
     "why": "the (..., S, S) Jacobian, then the mode's `largest` set back"},
    {"name": "mode_largest_control", "correct": False, "cells": {"softmax_backward": answer(True, False)},
     "why": "the same, the mode left alone"},
]
