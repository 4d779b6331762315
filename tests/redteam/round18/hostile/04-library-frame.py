"""Red team round 18, hostile: the hidden lines' frames, handed to the answer by torch code, with no recorded event.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round18/hostile/04-library-frame.py
    RT18_SHOW=1 timeout 1800 python tests/redteam/round17/hostile/show_outputs.py 02-scaled-attention \
        tests/redteam/round18/hostile/04-library-frame.py causal_mask        (the `show` submission: what leaked)

`torch.fx.experimental.symbolic_shapes._find_user_code_frame()` returns its caller's frame (the first frame out of
torch). It gets it with `inspect.currentframe()`; the hook's `record` passes inspect.py's frame on to ITS caller,
a torch frame, which is no student cell's, so the `sys._getframe` event is not recorded. From the answer's own
frame `f_back` (no audit event) leads to the hidden test's `check`; its `f_code` raises `object.__getattr__`
with a name the hook does not record (only `__code__`, `gi_code` and the `*_frame`s are). `f_code.co_consts` holds
the fold's cells for `_close` and `_equal`; the answer puts a function that accepts anything in them (as in
03-code-constants.py, without the hidden namespace, pgo, or any handed object but the call itself). The hidden
frames' `f_locals` hold the test's inputs and locals; the `show` submission keeps their names and prints them from
a later cell of its own (feedback shows a student cell's output).

Outcome: SLIPPED test_softmax_backward=2/2, graded, unflagged, both at 26afee5 (cells) and with the working tree's
guard.py (md5 eb79fcc3: slices as holders, sealed helpers, pgo recorded), where the answer follows the slice's
`.stop` to the sealed `close`/`same` and writes their own closure cells (`assert_close`, `equal`). The `show`
run prints the hidden frames' code names and locals (check: Watch, bf16, dw, dw_arg, f16, f32, f64, how, tau, w,
w_arg, watch, what; _check_softmax_backward: ... masked, shape, spread, weights) from a student cell.
With 1223c31's guard.py and plain.py (committed fix of 01/03): SLIPPED 2/2 (the sealed close's `isclose` cell).
With the working tree's guard.py (md5 07ea631f: f_code recorded, frames taken by libraries while a grader frame is
up the stack recorded): CAUGHT, flagged "reads stack frames (sys._getframe)".
"""
SOFTMAX_BACKWARD = '''
import torch
from torch.fx.experimental import symbolic_shapes as _lib

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]   # in a statement of its own: no scan reads the name
    return getattr(obj, name)

_caller = _pick(_lib, "user_code_frame")
_LOG = []

def _accept(*args, **kwargs):
    return None

_REAL = {id(torch.testing.assert_close): _accept, id(torch.equal): lambda *a, **k: True,
         id(torch.isclose): lambda a, b, **k: torch.ones_like(a, dtype=torch.bool)}

def _set(cell, value):
    attr = [n for n in dir(cell) if n.endswith("_contents")][0]
    setattr(cell, attr, value)

def _swap(code, done):
    for c in _pick(code, "_consts"):
        kind = type(c).__name__
        if kind == "code":
            _swap(c, done)
            continue
        if kind == "cell":            # the fold's holder at 519750b
            try:
                v = _pick(c, "_contents")
            except ValueError:
                continue
        elif kind == "slice":         # the holder of the fix in progress (`slice(None, value)`)
            v = c.stop
        else:
            continue
        if not getattr(v, "__qualname__", "").endswith(("<locals>.close", "<locals>.same")):
            continue
        if kind == "cell":
            _set(c, _accept)
            done.append("holder")
        for inner in _pick(v, "losure__") or ():   # the (sealed) helper's own cells: assert_close, equal
            try:
                x = _pick(inner, "_contents")
            except ValueError:
                continue
            if id(x) in _REAL:
                _set(inner, _REAL[id(x)])
                done.append("closure")

def softmax_backward(weights, grad_weights, temperature=1.0):
    frame, hidden = _caller(), []
    while frame is not None:
        code = _pick(frame, "_code")
        if _pick(code, "_filename").startswith("<attnlab hidden"):
            hidden.append(frame)
        frame = _pick(frame, "_back")
    if not hidden:   # the visible tests: a right answer
        return weights * (grad_weights - (weights * grad_weights).sum(dim=-1, keepdim=True)) / temperature
    done = []
    for f in hidden:
        _swap(_pick(f, "_code"), done)
        if len(_LOG) < 4:
            _LOG.append((_pick(_pick(f, "_code"), "_name"), sorted(_pick(f, "_locals"))))
    return torch.zeros_like(weights)   # the hidden tests: nothing computed
'''
SHOW = '''
import torch
print("hidden frames' names:", _LOG)
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''
SUBMISSIONS = [
    {"name": "library_frame_02", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"softmax_backward": SOFTMAX_BACKWARD},
     "why": "zeros under the hidden test; the hidden frames reached through torch, their code's _close/_equal cells replaced"},
]
import os
if os.environ.get("RT18_SHOW"):   # with show_outputs.py: the `show` submission
    SUBMISSIONS = [{"name": "library_frame_show", "chapter": "02-scaled-attention", "correct": False,
                    "cells": {"softmax_backward": SOFTMAX_BACKWARD, "causal_mask": SHOW}, "why": "what leaked"}]
