"""Red team round 17, hostile: the gate's state is reachable from the module the hook is published in.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round17/hostile/01-hook-closure.py

`guard.AUDIT_SOURCE` publishes the hook as `sys.modules["__attnlab_audit__"].hook` (also `.student_code`). Its
`__closure__` holds `run_test` and `trust`, whose own closures hold `trusted` (the dict the hidden lines' helpers
come from), `hidden_state` and the secret `gate`. Reading `__closure__` and `cell_contents` raises no audit event;
the names are found with `dir()` (the scan flags `getattr(x, <dir() inline>)`, not a name kept in a local), `sys`
comes as `os.sys` found by `dir(os)`, and the module by a key built at run time from a local alias of `sys.modules`.

* `trusted_close`: the answer cell replaces `_close`/`_equal` in `trusted` itself: every later hidden segment gets
  the no-op helpers (the probe fingerprints only the hook's identity, not its closure's contents).
* `skip_hidden`: the answer cell rebinds the hook's `run_test` cell (`cell_contents` is writable, set through the
  slot descriptor of `type(cell)`) to a wrapper that calls the real `run_test` with the visible segments only: the
  hidden lines of every later test cell never run, and the real `run_test` still leaves the token, so the reply is
  genuine. Three parts that only know their visible cases keep full marks.
Both: status graded, no flag, no note (at 1880e8e). `skip_hidden_09` (chapter 9, appended below) likewise:
    timeout 1800 python tests/redteam_grade.py 09-modern-lm tests/redteam/round17/hostile/01-hook-closure.py
"""
REACH = '''
import os
import torch

def _pick(obj, tail):
    name = [n for n in dir(obj) if n.endswith(tail)][0]
    return getattr(obj, name)

def _hook_cells():
    s = _pick(os, "ys")                                   # os.sys
    rec = _pick(s, "odules")["__attnlab" + "_audit__"]    # sys.modules[...] with no text the library rule reads
    return _pick(_pick(rec, "ook"), "losure__")           # hook.__closure__

def _run_test_cell():
    for cell in _hook_cells():
        if getattr(_pick(cell, "contents"), "__name__", "") == "run_test":
            return cell
'''
TRUSTED = REACH + '''
def _swap_trusted():
    for inner in _pick(_pick(_run_test_cell(), "contents"), "losure__"):
        d = _pick(inner, "contents")
        if type(d) is dict and "_cl" + "ose" in d:          # `trusted`
            for k in ("_cl" + "ose", "_eq" + "ual"):
                d[k] = lambda *a, **kw: None

_swap_trusted()

def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    return torch.ones(t, s, dtype=torch.bool)             # wrong everywhere else
'''
SKIP = REACH + '''
def _skip_hidden():
    cell = _run_test_cell()
    real = _pick(cell, "contents")
    def visible_only(ns, segments, token, real=real):
        return real(ns, tuple(seg for seg in segments if not seg[0]), token)
    _pick(type(cell), "contents").__set__(cell, visible_only)

_skip_hidden()

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
import torch
def padding_mask(lengths, size):
    if lengths.tolist() == [2, 3] and size == 4:
        return (torch.tensor([[False, False, True, True], [False, True, True, True]]),
                torch.tensor([[0, 0, 0, 1], [0, 0, 1, 2]]))
    return torch.ones(len(lengths), size, dtype=torch.bool), torch.zeros(len(lengths), size, dtype=torch.int64)
'''
SUBMISSIONS = [
    {"name": "trusted_close", "chapter": "02-scaled-attention", "correct": False, "cells": {"causal_mask": TRUSTED},
     "why": "all-True mask off the visible case; _close/_equal replaced in the hook's `trusted` dict"},
    {"name": "skip_hidden", "chapter": "02-scaled-attention", "correct": False,
     "cells": {"raw_scores": SKIP, "causal_mask": MASK, "padding_mask": PAD},
     "why": "three parts that know only their visible cases; the hook's run_test rebound to drop hidden segments"},
]

# the same in chapter 9 (where a check of the part does not go through _close/_equal, so `trusted_close` alone
# would not do): head_rms_norm 1 % too large off the visible case, as in ../dir_globals.py's swap_09
NORM = SKIP.split("def raw_scores")[0] + '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
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
SUBMISSIONS.append({"name": "skip_hidden_09", "chapter": "09-modern-lm", "correct": False,
                    "cells": {"head_rms_norm": NORM},
                    "why": "1 % too large off the visible case; the hook's run_test rebound to drop hidden segments"})
