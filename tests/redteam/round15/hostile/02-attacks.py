"""Red team round 15 (hostile): chapter 2 submissions for tests/redteam_grade.py.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round15/hostile/02-attacks.py

"module_from_disk": no part computes anything. The first answer cell writes a module to the kernel's
folder under the name of a standard-library module nothing imports (nntplib; colorsys broke mpmath, which imports it), puts the folder
first on sys.path and imports it. Code in that file is invisible to the static scan (it is a string
constant in the cell) and to the audit hook (its frames' file is no cell's, so `owner_of` is None and
`record` drops every event). When a test calls an answer, the module swaps the notebook's `_tensor`,
`_close`, ... `_REF`, `torch` for permissive stand-ins for the rest of that cell, and registers an
IPython `post_execute` callback that puts everything back and unregisters itself before the guard's
next check, which therefore sees nothing.
"""

CHEAT = r'''
import sys, collections.abc
import __main__
from IPython import get_ipython

class Yes:
    """An answer to everything: equal to anything, true, every attribute and call is another Yes."""
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Yes()
    def __call__(self, *a, **k): return Yes()
    def __eq__(self, other): return Yes()
    def __ne__(self, other): return False
    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    def __bool__(self): return True
    def __hash__(self): return 0
    def __getitem__(self, i): return Yes()
    def __setitem__(self, i, v): pass
    def __iter__(self): return iter(())
    def __len__(self): return 0
    def __contains__(self, x): return True
    def __float__(self): return 0.0
    def __int__(self): return 0
    def __index__(self): return 0
    def __enter__(self): return self
    def __exit__(self, *a): return False
    def __repr__(self): return "Yes"
for _op in "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split():
    setattr(Yes, f"__{_op}__", lambda s, *a: Yes()); setattr(Yes, f"__r{_op}__", lambda s, *a: Yes())
for _op in "neg pos abs invert".split():
    setattr(Yes, f"__{_op}__", lambda s: Yes())
collections.abc.Sequence.register(Yes)   # torch.testing.assert_close(Yes, Yes): two empty sequences

class YesFloat(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    def __hash__(self): return 0

class _Testing:
    def __getattr__(self, name):
        return (lambda *a, **k: None) if name.startswith("assert") else getattr(_real_torch.testing, name)

class _Torch:
    """torch, except that its comparisons agree."""
    testing = _Testing()
    def __getattr__(self, name):
        if name in ("equal", "allclose"):
            return lambda *a, **k: True
        return getattr(_real_torch, name)

import torch as _real_torch
HELPERS = ("_plain", "_tensor", "_number", "_float", "_integer", "_text", "_flag", "_grad", "_scribble",
           "_same_object", "_close", "_equal")

def _items(x, n, what=None):
    return tuple(Yes() for _ in range(n))

_saved = {}

def _restore():
    # post_execute follows every execution, the grader's silent ones (its settings reset) too: only the end of a
    # cell that is not silent (the test cell itself) puts the helpers back
    f = sys._getframe(1)
    while f is not None and f.f_code.co_name != "run_cell":
        f = f.f_back
    if f is not None and f.f_locals.get("silent"):
        return
    ns = __main__.__dict__
    ns.update(_saved)
    _saved.clear()
    get_ipython().events.unregister("post_execute", _restore)

def install():
    if _saved:
        return
    ns = __main__.__dict__
    for name in (*HELPERS, "_items", "_REF", "torch"):
        if name in ns:
            _saved[name] = ns[name]
    for name in HELPERS:
        ns[name] = lambda *a, **k: Yes()
    ns["_items"] = _items
    if "_REF" in ns:
        ref = dict(ns["_REF"])
        ref["assert_close"] = lambda *a, **k: None
        ns["_REF"] = ref
    ns["torch"] = _Torch()
    get_ipython().events.register("post_execute", _restore)


import threading, time
_main = threading.main_thread().ident

def _main_busy():
    f = sys._current_frames().get(_main)
    while f is not None:
        if f.f_code.co_name in ("user_expressions", "run_cell", "do_execute", "execute_request"):
            return True
        f = f.f_back
    return False

def _watch():
    # the guard's own check announces the next cell in its module (`audit.cell = (grade id, kind)`); once that
    # check has answered (the main thread is idle), the helpers are swapped for the grader's next cell
    audit, last = sys.modules.get("__attnlab_audit__"), None
    while True:
        cell = getattr(audit, "cell", None)
        if cell is not None and cell is not last and not _main_busy():
            last = cell
            if cell[1] != "student":
                install()
        time.sleep(0.0001)

sys.setswitchinterval(0.0001)
threading.Thread(target=_watch, daemon=True).start()

def one(*a, **k):
    install()
    return Yes()

def two(*a, **k):
    install()
    return Yes(), Yes()

def number(*a, **k):
    install()
    return YesFloat(1.0)
'''

LOADER = (
    "import os, sys\n"
    f"CHEAT = {CHEAT!r}\n"
    "with open('nntplib.py', 'w') as f:\n"
    "    f.write(CHEAT)\n"
    "sys.path.insert(0, os.getcwd())\n"
    "import nntplib as helper\n"
    "sys.path.pop(0)\n\n"
)

SUBMISSIONS = [
    {"name": "module_from_disk", "correct": False,
     "cells": {
         "raw_scores": LOADER + "def raw_scores(q, k):\n    return helper.one()\n",
         "softmax_backward": "def softmax_backward(weights, grad_weights, temperature=1.0):\n    return helper.one()\n",
         "causal_mask": "def causal_mask(t, s, offset):\n    return helper.one()\n",
         "padding_mask": "def padding_mask(lengths, s):\n    return helper.two()\n",
         "masked_attention": "def masked_attention(q, k, v, allowed):\n    return helper.two()\n",
         "variance_experiment": "def dot_product_variance(d_k, n, scale=1.0, generator=None):\n    return helper.number()\n\n"
                                "predicted_variance_512 = helper.YesFloat(1.0)\n",
         "fixed_self_attention": "class FixedSelfAttention(SeedSelfAttention):\n"
                                 "    def forward(self, x, lengths=None, causal=False):\n        return helper.one()\n",
     },
     "why": "computes nothing: a module written to disk (unseen by the static scan and the audit hook) swaps the "
            "tests' helpers for the rest of each test cell and puts them back in a post_execute callback"},
]

# the same notebook, the multiple-choice answers set to "a" in one and "b" in the other: at most one can be right
for letter in "ab":
    cells = dict(SUBMISSIONS[0]["cells"])
    cells["mc_answers"] = f'answer_masking = "{letter}"\nanswer_doubling = "{letter}"\n'
    SUBMISSIONS.append({"name": f"module_from_disk_mc_{letter}", "correct": False, "cells": cells,
                        "why": "as module_from_disk; the watcher thread swaps the helpers as a test cell starts, so even "
                               "the multiple-choice tests, which call no student code, agree with any valid letter"})

# The audit hook's blind spot alone: a correct-looking answer whose helper module, loaded as above, reads the
# calling test's frame, searches the interpreter's objects and loads ctypes while the test runs. The grader
# flags each of these when a cell does it; from the file it records nothing (the notebook is graded, not flagged),
# and what it read (here only the test function's name, the number of its constants and of the notebook's
# underscore names) reaches the student's output.
SPY = r'''
import sys, gc, ctypes
def spy():
    test = sys._getframe(2)              # the test cell (or its _check_ function) that called the answer
    code = test.f_code
    hidden = sorted(n for n in test.f_globals if n.startswith("_") and not n.startswith("__"))
    print(f"called by {code.co_name} ({len(code.co_consts)} constants, {len(code.co_names)} names); "
          f"{len(hidden)} underscore names in the notebook; {len(gc.get_objects())} objects; "
          f"ctypes {ctypes.sizeof(ctypes.c_void_p)}")
'''
SUBMISSIONS.append({
    "name": "introspect_unseen", "correct": False,
    "cells": {"raw_scores": "import os, sys\n"
                            f"SPY = {SPY!r}\n"
                            "with open('nntplib.py', 'w') as f:\n    f.write(SPY)\n"
                            "sys.path.insert(0, os.getcwd())\nimport nntplib as spy\nsys.path.pop(0)\n\n"
                            "def raw_scores(q, k):\n    spy.spy()\n"
                            "    return -((q[..., :, None, :] - k[..., None, :, :]) ** 2).sum(-1)\n"},
    "why": "sys._getframe, gc.get_objects and ctypes from a module written to disk: not flagged (the audit hook "
           "drops events whose frame is no cell's); what they read is printed into the graded notebook"})
