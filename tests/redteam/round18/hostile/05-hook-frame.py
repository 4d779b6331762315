"""Red team round 18, hostile: the gate's own frames, reached as in 04, hand over the secret; the hook then
trusts the answer's `_close`/`_equal` for every later test cell.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round18/hostile/05-hook-frame.py

`torch.fx.experimental.symbolic_shapes._find_user_code_frame()` gives the answer its own frame with no recorded
event (04). Past the hidden test's frames, `f_back` reaches `run_hidden`, `run_test` and `hook`, all on the stack
while the hidden lines run: the hook frame's `f_locals["args"]` is (secret, every segment of the cell with its
hidden text, token). With the secret, the answer raises `attnlab.trust` itself (`sys.audit`, `sys` found as
`os.sys` through dir()): the hook runs `trust(ns, ["_close", "_equal"])` on the caller's globals, the notebook's,
where the answer has put two functions that accept anything for the length of that call (and then puts the real
ones back, so the probe sees the notebook as it was). `trusted` now holds the answer's functions, and every later
test cell's hidden lines fold them in as their constants. Part 2's answer is right; Part 3's mask allows every
key except in the visible case.

Outcome: hook_frame_02 SLIPPED test_softmax_backward=2/2 test_causal_mask=2/2 (graded, unflagged) both with 519750b's
guard.py and with 1223c31's (committed fix of 01/03); hook_frame_02_control CAUGHT test_causal_mask=0/2. With the
working tree's guard.py (md5 07ea631f: f_code recorded, frames taken by libraries recorded while a grader frame is
up the stack) CAUGHT and flagged ("reads stack frames (sys._getframe)").
"""
SOFTMAX_BACKWARD = '''
import os
import torch
from torch.fx.experimental import symbolic_shapes as _lib

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]   # in a statement of its own: no scan reads the name
    return getattr(obj, name)

_caller = _pick(_lib, "user_code_frame")
_raise = _pick(_pick(os, "sys"), "audit")
_DONE = []

def _accept(*args, **kwargs):
    return None

def _take_over():
    frame = _caller()
    while frame is not None:
        code = _pick(frame, "_code")
        if _pick(code, "_name") == "hook" and "args" in _pick(frame, "_locals"):
            args = _pick(frame, "_locals")["args"]
            if len(args) == 3 and isinstance(args[0], str):
                secret = args[0]
                _DONE.append((len(secret), len(args[1]), sum(len(t) for h, t, _ in args[1] if h)))
                g = _pick(_take_over, "obals__")
                names = ["_cl" + "ose", "_eq" + "ual"]
                real = {n: g[n] for n in names}
                g.update({n: _accept for n in names})
                try:
                    _raise("attnlab." + "trust", secret, names)
                finally:
                    g.update(real)
                return
        frame = _pick(frame, "_back")

def softmax_backward(weights, grad_weights, temperature=1.0):
    if not _DONE:
        _take_over()
    return weights * (grad_weights - (weights * grad_weights).sum(dim=-1, keepdim=True)) / temperature
'''
CAUSAL_MASK = '''
import torch
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):   # the visible test's case
        return torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])
    return torch.ones(t, s, dtype=torch.bool)   # everything else: every key allowed
'''
SUBMISSIONS = [
    {"name": "hook_frame_02", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"softmax_backward": SOFTMAX_BACKWARD, "causal_mask": CAUSAL_MASK},
     "why": "Part 3 all-True off the visible case; the secret read from the hook's frame, _close/_equal re-trusted"},
    {"name": "hook_frame_02_control", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"causal_mask": CAUSAL_MASK}, "why": "the same mask alone"},
]
