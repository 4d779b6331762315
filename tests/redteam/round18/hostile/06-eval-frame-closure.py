"""Red team round 18, hostile: the sealed helpers' closure cells, written through torch's frame callback.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round18/hostile/06-eval-frame-closure.py

Since 1223c31 the hidden lines fold sealed copies of `_close`/`_equal` (fresh closure cells) into slices. The answer
of Part 2 installs torch's frame-evaluation callback (`torch._C._dynamo.eval_frame.set_eval_frame`, names found
with dir()) for the rest of its call: torch hands the callback each Python frame as it starts, as its own
`_PyInterpreterFrame` object, whose `f_code` and `closure` are torch's getters (no audit event, so neither the
`f_code` record nor the library-frame rule of the working tree sees them). When the sealed `close` and `same`
start (the check right after the answer returns), the callback writes their closure cells (`isclose` or
`assert_close`, `equal`). A `weakref.finalize` on the `weights` the check passed sets torch's own callback back
once the check drops them, before the cell ends, so the probe's fingerprint of the callback is the usual one. Part 2
is answered right; Part 3's mask allows every key off the visible case, and the poisoned helpers, being the
sealed copies every later test cell folds in, pass it.

Outcome with the working tree's guard.py (md5 07ea631f) and plain.py (md5 aa7d9e15), at 61fdb6e:
eval_frame_closure_02 SLIPPED test_softmax_backward=2/2 test_causal_mask=2/2, graded, unflagged;
eval_frame_closure_02_control CAUGHT test_causal_mask=0/2.
"""
SOFTMAX_BACKWARD = '''
import torch
import weakref
from torch._dynamo.types import ConvertFrameReturn
from torch.utils._python_dispatch import _get_current_dispatch_mode as _mode

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]   # in a statement of its own: no scan reads the name
    return getattr(obj, name)

_ef = _pick(_pick(torch._C, "_dynamo"), "eval_frame")
_set = _pick(_ef, "set_eval_frame")
_STATE = {"armed": False, "done": []}
_FAKE = {id(torch.testing.assert_close): lambda *a, **k: None,
         id(torch.isclose): lambda a, b, **k: torch.ones_like(a, dtype=torch.bool),
         id(torch.equal): lambda *a, **k: True}

def _on_frame(frame, cache_entry, frame_state):
    code = _pick(frame, "_code")
    if code.co_name in ("close", "same") and code.co_name not in _STATE["done"]:
        for cell in _pick(frame, "closure") or ():
            try:
                value = _pick(cell, "_contents")
            except ValueError:
                continue
            if id(value) in _FAKE:
                attr = [n for n in dir(cell) if n.endswith("_contents")][0]
                setattr(cell, attr, _FAKE[id(value)])
                _STATE["done"].append(code.co_name)
    return ConvertFrameReturn()

def _off(old):
    _set(old)

def softmax_backward(weights, grad_weights, temperature=1.0):
    out = weights * (grad_weights - (weights * grad_weights).sum(dim=-1, keepdim=True)) / temperature
    if _mode() is not None and not _STATE["armed"]:   # the first call from the hidden test (under its watch)
        _STATE["armed"] = True
        old = _set(_on_frame)
        weakref.finalize(weights, _off, old)   # the check drops its input: torch's own callback again
    return out
'''
CAUSAL_MASK = '''
import torch
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):   # the visible test's case
        return torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])
    return torch.ones(t, s, dtype=torch.bool)   # everything else: every key allowed
'''
SUBMISSIONS = [
    {"name": "eval_frame_closure_02", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"softmax_backward": SOFTMAX_BACKWARD, "causal_mask": CAUSAL_MASK},
     "why": "Part 3 all-True off the visible case; the sealed helpers' cells written from torch's frame callback"},
    {"name": "eval_frame_closure_02_control", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"causal_mask": CAUSAL_MASK}, "why": "the same mask alone"},
]
