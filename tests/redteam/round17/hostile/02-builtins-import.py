"""Red team round 17, hostile: the gate line resolves `__import__` through the notebook's own `__builtins__`.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round17/hostile/02-builtins-import.py

The gate sends a test cell as `__import__('sys').audit('attnlab.test', <secret>, <segments>, <token>)`, run as the
cell's code in the notebook's namespace, whose builtins are `user_ns['__builtins__']`. An answer cell reaches that
namespace through its own function's `__globals__` (name found with `dir()`, as in ../dir_globals.py) and puts a
dict there in place of the builtins module: a copy of it whose `__import__` returns, for "sys", a view of the real
module whose `audit` is the answer's. No attribute of `builtins`, `sys` or `sys.audit` changes, and the probe does
not look at `user_ns['__builtins__']`, so nothing is flagged. The answer's `audit` receives the secret, every
hidden line of the cell (the segments) and the token; here it calls the real `sys.audit` with the visible segments
only, so the real hook runs them (its caller's `f_globals` is the notebook's) and leaves the token: the hidden
lines never run. It also keeps the hidden text it was handed; the padding_mask cell prints its size and a digest
in its own output, which the feedback page shows (any encoding of the text itself would do, see the guide's
"Open").
Outcome at 1880e8e: raw_scores, causal_mask and padding_mask (visible cases only) keep 1/1, 2/2, 2/2; graded,
not flagged. Independent of 01-hook-closure.py (no use of `__attnlab_audit__`).
"""
INSTALL = '''
import os
import torch

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]
    return getattr(obj, name)

def _anchor():
    return None

_seen = []

class _SysView:
    def __init__(self, real):
        self._real = real
    def __getattr__(self, name):
        return getattr(self._real, name)
    def audit(self, event, *args):
        loud = _pick(self._real, "audit")
        if event == "attnlab." + "test" and len(args) == 3:
            gate, segments, token = args
            _seen.extend(text for hidden, text, first in segments if hidden)
            return loud(event, gate, tuple(seg for seg in segments if not seg[0]), token)
        return loud(event, *args)

def _install():
    g = _pick(_anchor, "obals__")
    key = "__built" + "ins__"
    module = g[key]
    real_import = _pick(module, "port__")
    view = _SysView(_pick(os, "ys"))
    def importer(name, gl=None, lo=None, fromlist=(), level=0):
        found = real_import(name, gl, lo, fromlist, level)
        return view if name == "s" + "ys" and not fromlist and not level else found
    table = {n: getattr(module, n) for n in dir(module)}
    table[[n for n in dir(module) if n.endswith("port__")][0]] = importer
    g[key] = table

_install()

def raw_scores(q, k):
    if q.shape == (2, 2) and k.shape == (3, 2):
        return torch.tensor([[-1.0, -25.0, 0.0], [-1.0, -13.0, -2.0]])
    return -torch.ones(*q.shape[:-1], k.shape[-2])
'''
MASK = '''
import torch
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])
    return torch.ones(t, s, dtype=torch.bool)
'''
PAD = '''
import hashlib
import torch
_joined = "\\n".join(_seen)
print(f"hidden text handed to my code so far: {len(_seen)} segments, {len(_joined)} characters, "
      f"sha256 {hashlib.sha256(_joined.encode()).hexdigest()[:16]}")
def padding_mask(lengths, size):
    if lengths.tolist() == [2, 3] and size == 4:
        return (torch.tensor([[False, False, True, True], [False, True, True, True]]),
                torch.tensor([[0, 0, 0, 1], [0, 0, 1, 2]]))
    return torch.ones(len(lengths), size, dtype=torch.bool), torch.zeros(len(lengths), size, dtype=torch.int64)
'''
SUBMISSIONS = [
    {"name": "builtins_import", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"raw_scores": INSTALL, "causal_mask": MASK, "padding_mask": PAD},
     "why": "visible cases only; the notebook's __builtins__ replaced by a dict whose __import__('sys') hands the "
            "gate line an audit that drops the hidden segments (and keeps their text)"},
]
