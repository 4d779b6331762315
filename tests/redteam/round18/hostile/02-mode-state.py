"""Red team round 18, hostile: the state of the dispatch mode the hidden test runs the answer under.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round18/hostile/02-mode-state.py

Chapter 2, Part 2 forbids torch's own softmax backward (`torch._softmax_backward_data`) and any tensor of more
than twice the elements of `weights` (no (..., S, S) Jacobian). The hidden test watches the answer with a
dispatch mode of its own (class `Watch`), which torch hands to any caller
(`torch.utils._python_dispatch._get_current_dispatch_mode()`); it keeps what it saw as plain attributes of the
instance (`ops`, a set; `largest`, an int; `inputs`, a set), which the answer changes with plain attribute
access (no audit event, no name the scan can read). Constants in the hidden lines' code do not help: the
check reads the mode's state after the answer returns.

Outcome (both at 26afee5 and with the working tree's guard.py, md5 eb79fcc3): mode_ops SLIPPED
test_softmax_backward=2/2 (confirmed alone), mode_largest SLIPPED 2/2, mode_draws SLIPPED test_variance_experiment=2/2
(confirmed alone); each control (the mode left alone) CAUGHT 0/2. Status graded, no flag.
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
# Part 6 (same chapter): q's entries must be drawn with torch.rand (uniform); the hidden test's mode `Draws`
# counts the numbers drawn from each (`uniform`, `normal`). This answer draws q from a normal with the uniform's
# mean and variance (the text: "normal entries with the uniform's mean and variance give the same variance ...
# but not these inputs") and moves its count from `normal` to `uniform`.
def variance(hide):
    fix = '''
    m = _mode()
    if m is not None:
        state = vars(m)
        if "uniform" in state and "normal" in state:
            state["uniform"] += n * d_k
            state["normal"] -= n * d_k
''' if hide else ""
    return '''
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode as _mode

def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = 0.5 + torch.randn(n, d_k, generator=generator, dtype=torch.float64) / 12 ** 0.5   # not torch.rand
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
''' + fix + '''
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
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
    {"name": "mode_draws", "correct": False, "cells": {"variance_experiment": variance(True)},
     "why": "q drawn from a normal, not torch.rand; the mode's counts of uniform and normal numbers moved"},
    {"name": "mode_draws_control", "correct": False, "cells": {"variance_experiment": variance(False)},
     "why": "the same, the mode left alone"},
]
