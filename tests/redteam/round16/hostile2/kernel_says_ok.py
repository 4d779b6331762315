"""Red team round 16, hostile 2: a failed test cell that the kernel itself reports as a success, with the secret.

    timeout 900 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round16/hostile2/kernel_says_ok.py --alone sticky_nothing_all sticky_wrong_mask

No reply is forged and no message dropped: the answer the test calls finds IPython's `ExecutionResult` of the
running cell in `run_cell_async`'s frame (frames as in forge_token.py: `logging.currentframe()`, `f_back` and
`f_locals` by names found in `dir`), and changes the object's class (for this one object) to a subclass whose
`error_in_exec` ignores what is set. When the test's assertion fails, `run_code` sets the error there (ignored)
and calls `showtraceback`, which this one time does nothing (the shell's class is swapped for one whose
`showtraceback` puts the real class back). `result.success` is then True, ipykernel replies "ok" and evaluates
the user expressions itself: the reply is the kernel's own, with the secret, and the cell has no error output.
"""
STICKY = '''import logging
def _name(obj, start, end):
    return [n for n in dir(obj) if n.startswith(start) and n.endswith(end)][0]
_done = []  # the results already armed, kept alive so that no later one has the same id
def cheat():
    fr = getattr(logging, _name(logging, "current", "frame"))()
    up, seen = _name(fr, "f_b", "ack"), _name(fr, "f_l", "ocals")
    shell = result = None
    while fr is not None:
        loc = getattr(fr, seen)
        if type(loc.get("result")).__name__ == "ExecutionResult" and loc.get("self") is not None:
            shell, result = loc["self"], loc["result"]
            break
        fr = getattr(fr, up)
    if result is None or any(r is result for r in _done):
        return
    _done.append(result)
    klass = _name(result, "__cl", "ass__")
    plain_shell = type(shell)
    def silent(self, *a, **k):
        setattr(self, klass, plain_shell)  # once: the shell's own class again
    quiet_shell = type(plain_shell.__name__, (plain_shell,), {_name(shell, "showtr", "aceback"): silent})
    def ignore(self, value):
        if value is not None:
            setattr(shell, klass, quiet_shell)  # the traceback about to be shown is not shown
    fields = {_name(result, "error_in", "exec"): property(lambda self: None, ignore)}
    setattr(result, klass, type(type(result).__name__, (type(result),), fields))
'''
NOTHING_S = {
    "raw_scores": STICKY + "def raw_scores(q, k):\n    cheat()\n",
    "softmax_backward": "def softmax_backward(weights, grad_weights, temperature=1.0):\n    cheat()\n",
    "causal_mask": "def causal_mask(t, s, offset):\n    cheat()\n",
    "padding_mask": "def padding_mask(lengths, s):\n    cheat()\n",
    "masked_attention": "def masked_attention(q, k, v, allowed):\n    cheat()\n",
    "variance_experiment": "def dot_product_variance(d_k, n, scale=1.0, generator=None):\n    cheat()\n",
    "fixed_self_attention": "class FixedSelfAttention(SeedSelfAttention):\n    def forward(self, x, lengths=None, causal=False):\n        cheat()\n",
    "mc_answers": '''class _Choice(str):
    def __eq__(self, other):
        cheat()
        return str.__eq__(self, other)
    __hash__ = str.__hash__
answer_masking = _Choice("a")
answer_doubling = _Choice("a")
''',
}
WRONG_MASK_S = STICKY + '''
def causal_mask(t, s, offset):
    import torch
    cheat()
    return torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS = [
    {"name": "sticky_nothing_all", "correct": False, "cells": NOTHING_S,
     "why": "every answer computes nothing; the failed test cells are reported ok by the kernel itself"},
    {"name": "sticky_wrong_mask", "correct": False, "cells": {"causal_mask": WRONG_MASK_S},
     "why": "an all-True causal mask; its failed test cell is reported ok by the kernel itself"},
]

# The same without any frame: IPython's `post_run_cell` event is handed the cell's ExecutionResult before ipykernel
# reads `result.success`. The answer the test calls registers a callback (and hides the next traceback by the
# shell's class, as above); the callback clears the error, puts the class back and unregisters itself, so the
# probe before the next cell finds the callbacks and the shell as they were. The shell is reached as
# `print.__self__` (the builtins module) and its `get_ipython`, the name found in `dir`.
EVENTS = '''def _name(obj, start, end):
    return [n for n in dir(obj) if n.startswith(start) and n.endswith(end)][0]
_armed = []
def cheat():
    if _armed:
        return
    home = print.__self__  # the builtins module, as the object a builtin function is bound to
    sh = getattr(home, _name(home, "get_", "python"))()
    klass = _name(sh, "__cl", "ass__")
    plain = type(sh)
    quiet = type(plain.__name__, (plain,), {_name(sh, "showtr", "aceback"): lambda self, *a, **k: None})
    setattr(sh, klass, quiet)
    def after(result):
        setattr(sh, klass, plain)
        result.error_in_exec = None
        sh.events.unregister("post_run_cell", after)
        _armed.clear()
    sh.events.register("post_run_cell", after)
    _armed.append(after)
'''
NOTHING_E = {**NOTHING_S, "raw_scores": EVENTS + "def raw_scores(q, k):\n    cheat()\n"}
SUBMISSIONS.append({"name": "events_nothing_all", "correct": False, "cells": NOTHING_E,
                    "why": "sticky_nothing_all without frames: a post_run_cell callback clears the test's error"})
SUBMISSIONS.append({"name": "events_wrong_mask", "correct": False,
                    "cells": {"causal_mask": EVENTS + "\ndef causal_mask" + WRONG_MASK_S.split("def causal_mask")[1]},
                    "why": "an all-True causal mask; its error cleared by a post_run_cell callback"})
