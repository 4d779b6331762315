"""Red team round 17 (lead developer): the notebook's namespace through a name found with dir().

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round17/dir_globals.py
    timeout 1800 python tests/redteam_grade.py 09-modern-lm tests/redteam/round17/dir_globals.py

`getattr(f, name)`, with `name` the entry of `dir(f)` that ends in "obals__", is the answer's own function's
`__globals__`: the notebook's namespace. No static scan can read the name, and reading `__globals__` raises no
audit event. At each call the wrong answers below replace `_close` and `_equal` there (the replacement puts the
originals back when called), so a comparison of the hidden test made after an answer's call compares nothing.
Graded at 8542e98, before the test cells' gate (`guard.test_cell_gate`): `swap_02` kept 2/2, unflagged;
`swap_09` lost its point all the same (a check of that part does not go through the two helpers). With the gate
the hidden lines use helpers of their own: both lose their points. Each submission names its chapter; the grader
keeps a correct answer in every other cell.
"""
REACH = '''
def _reach(f):
    name = [n for n in dir(f) if n.endswith("obals__")][0]   # in a statement of its own: the scan flags
    return getattr(f, name)                                  # getattr(f, <dir() inline>), not this
_saved = {}
def _arm(f):
    g = _reach(f)
    for n in ("_cl" + "ose", "_eq" + "ual"):
        _saved.setdefault(n, g[n])
    def fake(*a, **k):
        g.update(_saved)
        return None
    for n in _saved:
        g[n] = fake
'''
MASK_SWAP = REACH + '''
import torch
def causal_mask(t, s, offset):
    _arm(causal_mask)   # at every call, the visible test's too: the hidden test's first comparison is then swapped
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    return torch.ones(t, s, dtype=torch.bool)
'''
NORM_SWAP = REACH + '''
import torch
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    _arm(head_rms_norm)
    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:
        raise ValueError("x does not split into n_heads heads")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    out = heads * torch.rsqrt(heads.square().mean(-1, keepdim=True) + eps) * scale
    if tuple(x.shape) != (1, 4):
        out = out * 1.01
    return out.transpose(-3, -2).to(x.dtype)
'''
SUBMISSIONS = [
    {"name": "swap_02", "chapter": "02-scaled-attention", "correct": False, "cells": {"causal_mask": MASK_SWAP},
     "why": "an all-True mask off the visible case; _close/_equal swapped through the dir() route"},
    {"name": "swap_09", "chapter": "09-modern-lm", "correct": False, "cells": {"head_rms_norm": NORM_SWAP},
     "why": "1 % too large off the visible case; _close/_equal swapped through the dir() route"},
]
