"""Red team round 17, hostile: torch's frame-evaluation callback (PEP 523, `torch._C._dynamo.eval_frame.
set_eval_frame`) is handed every Python frame as it starts, with no audit event and nothing the probe fingerprints.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round17/hostile/05-eval-frame.py

The answer cell installs a callback (names found with `dir()`; `ConvertFrameReturn()` tells torch to run the frame
as usual). When the gate's `run_test` execs a hidden segment, the segment's module frame starts: the callback gets
it, with `f_globals` the gate's private namespace, before any hidden line runs, and replaces `_close`/`_equal`
there. The callback stays installed for the rest of the notebook; every frame also offers `f_locals`, `f_back` and
`f_code` (the hidden text through `co_consts`), none of which raises an audit event. Outcome at 1880e8e: an
all-True causal mask (wrong off the visible case) keeps test_causal_mask 2/2; graded, no flag.
Independent of 01-03 (no `__attnlab_audit__`, no `__builtins__`, no `sys._getframe`).
Fix: the probe should fingerprint `torch._C._dynamo.eval_frame.get_eval_frame_callback()` (and the code-exec
strategy / bytecode debugger callbacks next to it) like sys.settrace, and the static scan should flag
`torch._C._dynamo` / `torch._dynamo.eval_frame` in an answer as it flags torch.library.
"""
EVAL_FRAME = '''
import torch
from torch._dynamo.types import ConvertFrameReturn

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]
    return getattr(obj, name)

def _anchor():
    return None

_evalf = _pick(_pick(torch._C, "_dynamo"), "eval_frame")
_set = _pick(_evalf, "set_eval_frame")
_mine = _pick(_anchor, "obals__")

def _on_frame(frame, cache_entry, frame_state):
    g = _pick(frame, "globals")
    if g is not _mine and "_cl" + "ose" in g and "_RE" + "F" in g:   # a hidden segment's namespace, as it starts
        for k in ("_cl" + "ose", "_eq" + "ual"):
            g[k] = lambda *a, **kw: None
    return ConvertFrameReturn()

_set(_on_frame)

def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    return torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS = [
    {"name": "eval_frame", "chapter": "02-scaled-attention", "correct": False, "cells": {"causal_mask": EVAL_FRAME},
     "why": "all-True mask off the visible case; a dynamo eval-frame callback patches each hidden segment's namespace"},
]
