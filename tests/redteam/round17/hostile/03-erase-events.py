"""Red team round 17, hostile: the audit hook's record of events is a list on a module the answer can reach.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round17/hostile/03-erase-events.py

`sys.modules["__attnlab_audit__"].events` is where the hook appends what it records (here `sys._getframe`, called
by an answer while the hidden lines run) and where the probe reads it before the next cell. The probe fingerprints
only the list's identity. The answer (names found with `dir()`, `sys` as `os.sys`, the module by a key built at
run time) calls `sys._getframe(1)` from inside the hidden lines, replaces `_close`/`_equal` in the caller's
`f_globals` (the gate's private namespace of that hidden segment; never the notebook's, which the probe watches),
then empties `events` in place. The frame also holds the hidden test's locals (its inputs and expected values).
Outcome at 1880e8e: an all-True causal mask (wrong off the visible case) keeps test_causal_mask 2/2; graded, no
flag. Independent of the gate's closures (01) and of `__builtins__` (02): what is recorded can be unrecorded.
"""
ERASE = '''
import os
import torch

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]
    return getattr(obj, name)

_s = _pick(os, "ys")
_rec = _pick(_s, "odules")["__attnlab" + "_audit__"]
_frame_of = _pick(_s, "_getframe")

def causal_mask(t, s, offset):
    caller = _frame_of(1)
    g = _pick(caller, "globals")
    for k in ("_cl" + "ose", "_eq" + "ual"):
        if k in g and g is not _pick(causal_mask, "obals__"):   # the hidden lines' own namespace only
            g[k] = lambda *a, **kw: None
    _pick(_rec, "vents").clear()     # the hook's record of sys._getframe, erased before the probe reads it
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    return torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS = [
    {"name": "erase_events", "chapter": "02-scaled-attention", "correct": False, "cells": {"causal_mask": ERASE},
     "why": "all-True mask off the visible case; sys._getframe into the hidden segment, then the hook's events emptied"},
]
