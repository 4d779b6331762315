"""Red team round 16 (hostile): builtins.globals() reaches the notebook namespace unflagged (F2).

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round16/hostile/02-attacks.py --alone builtins_globals_swap control_wrong_mask
"""
ARM = '''
import builtins
saved = {}
def arm():
    # the notebook's namespace, without globals()/vars()/__globals__: builtins.globals() called from
    # this function returns this function's globals, i.e. the notebook's
    g = builtins.globals()
    for n in ("_cl" + "ose", "_eq" + "ual"):
        if n not in saved:
            saved[n] = g[n]
    def fake(*a, **k):
        for n, f in saved.items():
            g[n] = f
        return None
    for n in saved:
        g[n] = fake
'''
WRONG_MASK = ARM + '''
def causal_mask(t, s, offset):
    import torch
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    arm()
    return torch.ones(t, s, dtype=torch.bool)
'''
PLAIN_WRONG_MASK = '''
def causal_mask(t, s, offset):
    import torch
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    return torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS = [
    {"name": "builtins_globals_swap", "correct": False, "cells": {"causal_mask": WRONG_MASK},
     "why": "wrong mask for every hidden input; _close/_equal swapped through builtins.globals() for one call"},
    {"name": "control_wrong_mask", "correct": False, "cells": {"causal_mask": PLAIN_WRONG_MASK},
     "why": "the same wrong mask without the swap"},
]

# F7: the same swap in exec text that parses only under barry_as_FLUFL (the scan parses exec's literal text
# without the cell's future flags, so it reads nothing of it; exec inherits the flag at run time)
BARRY_MASK = '''from __future__ import barry_as_FLUFL
import torch
exec("""
assert 1 <> 2
saved = {}
def arm():
    g = globals()
    for n in ("_close", "_equal"):
        if n not in saved:
            saved[n] = g[n]
    def fake(*a, **k):
        for n, f in saved.items():
            g[n] = f
        return None
    for n in saved:
        g[n] = fake
""")
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    arm()
    return torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS.append({"name": "barry_exec_swap", "correct": False, "cells": {"causal_mask": BARRY_MASK},
                    "why": "F2's wrong mask; the swap's code in exec text that only parses under barry_as_FLUFL"})

# F8: a one-line cell is run through IPython's prefilter (automagic): `time exec("...")` is `%time exec(...)`
# when run, but not Python for the scan and the library rule, which parse nothing of it
_ONE_LINE_CODE = '''import torch
import numpy as np
saved = {}
def arm():
    g = globals()
    for n in ("_close", "_equal"):
        if n not in saved:
            saved[n] = g[n]
    def fake(*a, **k):
        for n, f in saved.items():
            g[n] = f
        return None
    for n in saved:
        g[n] = fake
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (int(np.int64(offset)) + torch.arange(t))[:, None]
    arm()
    return torch.ones(t, s, dtype=torch.bool)
'''


def _one_line(code):
    # %time re-joins its argument's words with single spaces (IPython's arg_split): no blank in the literal
    return '"' + code.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace(" ", "\\x20") + '"'


AUTOMAGIC_MASK = "time exec(" + _one_line(_ONE_LINE_CODE) + ")"
assert "\n" not in AUTOMAGIC_MASK
# the correct answer, with numpy, on one line: the library rule does not see it either
_ONE_LINE_NUMPY = '''import torch
import numpy as np
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (int(np.int64(offset)) + torch.arange(t))[:, None]
'''
SUBMISSIONS.append({"name": "automagic_swap", "correct": False, "cells": {"causal_mask": AUTOMAGIC_MASK},
                    "why": "F2's wrong mask (and numpy) in a one-line `time exec(...)` cell"})
SUBMISSIONS.append({"name": "automagic_numpy_correct", "correct": False,
                    "cells": {"padding_mask": "pass"},  # placeholder replaced below
                    "why": "see F8 (library rule): a correct causal_mask using numpy, one line"})
SUBMISSIONS[-1]["cells"] = {"causal_mask": "time exec(" + _one_line(_ONE_LINE_NUMPY) + ")"}

# F2b: the namespace through a string annotation that typing.get_type_hints evaluates (library code calls eval)
HINTS_MASK = '''import typing
import torch
def namespace(x: "globals()"):
    pass
saved = {}
def arm():
    g = typing.get_type_hints(namespace)["x"]
    for n in ("_cl" + "ose", "_eq" + "ual"):
        if n not in saved:
            saved[n] = g[n]
    def fake(*a, **k):
        for n, f in saved.items():
            g[n] = f
        return None
    for n in saved:
        g[n] = fake
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    arm()
    return torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS.append({"name": "type_hints_swap", "correct": False, "cells": {"causal_mask": HINTS_MASK},
                    "why": "F2's wrong mask; the namespace from typing.get_type_hints of a 'globals()' annotation"})

# F13: the answer, called by a hidden test, sends the kernel's own execute_reply ("ok") and idle status for the
# test cell's request: the grader's client takes the cell as finished without error; the real error that follows
# carries the old request's id and is dropped
FORGED_REPLY_MASK = '''import builtins
import torch
forged = set()
def forge():
    k = builtins.get_ipython().kernel
    parent = k.get_parent("shell")
    mid = parent.get("header", {}).get("msg_id")
    if mid in forged:
        return
    forged.add(mid)
    k.session.send(k.shell_stream, "execute_reply",
                   {"status": "ok", "execution_count": k.execution_count, "user_expressions": {}, "payload": []},
                   parent, ident=k._parent_ident["shell"])
    k._publish_status("idle", "shell", parent)
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    forge()
    return torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS.append({"name": "forged_reply", "correct": False, "cells": {"causal_mask": FORGED_REPLY_MASK},
                    "why": "wrong mask; a forged execute_reply/idle ends the test cell before its hidden checks fail"})

# F13, whole notebook: no answer computes anything; each one forges the test cell's reply at its first call
FORGE = FORGED_REPLY_MASK.split("def causal_mask")[0]
NOTHING = {
    "raw_scores": FORGE + "def raw_scores(q, k):\n    forge()\n",
    "softmax_backward": "def softmax_backward(weights, grad_weights, temperature=1.0):\n    forge()\n",
    "causal_mask": "def causal_mask(t, s, offset):\n    forge()\n",
    "padding_mask": "def padding_mask(lengths, s):\n    forge()\n",
    "masked_attention": "def masked_attention(q, k, v, allowed):\n    forge()\n",
    "variance_experiment": "def dot_product_variance(d_k, n, scale=1.0, generator=None):\n    forge()\n",
    "fixed_self_attention": "class FixedSelfAttention(SeedSelfAttention):\n    def forward(self, x, lengths=None, causal=False):\n        forge()\n",
    "mc_answers": "pass\n",
}
SUBMISSIONS.append({"name": "computes_nothing", "correct": False, "cells": NOTHING,
                    "why": "every answer only forges the reply of the test cell that calls it; no multiple-choice answer"})

# F13 + F8: the multiple-choice tests call no student code; a SIGALRM timer (set in a one-line cell the scan cannot
# read) runs forge() while they run
_TICK = '''import signal
def tick(signum, frame):
    try:
        p = builtins.get_ipython().kernel.get_parent("shell")
        c = p.get("content", {})
        if not c.get("silent") and "setitimer" not in c.get("code", ""):
            forge()
    except Exception:
        pass
signal.signal(signal.SIGALRM, tick)
signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
'''
SUBMISSIONS.append({"name": "computes_nothing_all", "correct": False,
                    "cells": {**NOTHING, "mc_answers": "time exec(" + _one_line(_TICK) + ")"},
                    "why": "computes_nothing plus a timer that forges the multiple-choice test cells too"})

# the same without F8: `__import__("signal")` is not an import statement, which is all the scan's module list reads
_PLAIN_TICK = 'signal = __import__("signal")\n' + _TICK.replace("import signal\n", "")
SUBMISSIONS.append({"name": "computes_nothing_plain", "correct": False,
                    "cells": {**NOTHING, "mc_answers": _PLAIN_TICK},
                    "why": "computes_nothing_all with ordinary code cells only (no automagic)"})

# against the lead's working tree of 09:40 (vars(x) of a plain name is allowed): the namespace through
# vars(alias of sys)["modules"] and vars(module), helper names read backwards by a function
VARS_ALIAS_MASK = '''import sys
import torch
s = sys
def back(t):
    return t[::-1]
saved = {}
def arm():
    mods = vars(s)["modules"]
    m = mods[back("__niam__")]
    g = vars(m)
    for n in (back("esolc_"), back("lauqe_")):
        if n not in saved:
            saved[n] = g[n]
    def fake(*a, **k):
        for n, f in saved.items():
            g[n] = f
        return None
    for n in saved:
        g[n] = fake
def causal_mask(t, s_, offset):
    if (t, s_, offset) == (2, 5, 2):
        return torch.arange(s_)[None, :] <= (offset + torch.arange(t))[:, None]
    arm()
    return torch.ones(t, s_, dtype=torch.bool)
'''
SUBMISSIONS.append({"name": "vars_alias_swap", "correct": False, "cells": {"causal_mask": VARS_ALIAS_MASK},
                    "why": "F2's wrong mask; the namespace through vars(s)['modules'] with s = sys"})

# F13 against the lead's working tree of 09:40, ordinary code cells only: the kernel through the namespace above,
# its attributes by names read backwards by a function; the timer through __import__("signal")
FORGE2 = '''import sys
s_alias = sys
def back(t):
    return t[::-1]
forged = set()
def kernel():
    m = vars(s_alias)["modules"][back("__niam__")]
    return getattr(vars(m)[back("nohtypi_teg")](), "kernel")
def forge():
    k = kernel()
    parent = getattr(k, back("tnerap_teg"))("shell")
    mid = parent.get("header", {}).get("msg_id")
    if mid in forged:
        return
    forged.add(mid)
    ident = getattr(k, back("tnedi_tnerap_"))["shell"]
    getattr(k, "session").send(getattr(k, back("maerts_llehs")), "execute_reply",
                               {"status": "ok", "execution_count": k.execution_count, "user_expressions": {}, "payload": []},
                               parent, ident=ident)
    getattr(k, back("sutats_hsilbup_"))("idle", "shell", parent)
'''
_TICK2 = '''signal = __import__("signal")
def tick(signum, frame):
    try:
        kk = kernel()
        p = getattr(kk, back("tnerap_teg"))("shell")
        c = p.get("content", {})
        if not c.get("silent") and "setitimer" not in c.get("code", ""):
            forge()
    except Exception:
        pass
signal.signal(signal.SIGALRM, tick)
signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
'''
NOTHING2 = {**NOTHING, "raw_scores": FORGE2 + "def raw_scores(q, k):\n    forge()\n", "mc_answers": _TICK2}
SUBMISSIONS.append({"name": "computes_nothing_plain2", "correct": False, "cells": NOTHING2,
                    "why": "F13 with ordinary cells against the 09:40 working tree"})

# F13 against the lead's duplicate-reply check (working tree of 09:47): the forge also hides the real reply (the
# kernel's session.send drops the request's later messages and is put back at the first message of another request)
FORGE3 = FORGE2.replace('''    getattr(k, back("sutats_hsilbup_"))("idle", "shell", parent)
''', '''    getattr(k, back("sutats_hsilbup_"))("idle", "shell", parent)
    sess = getattr(k, "session")
    real = getattr(sess, "send")
    def quiet(stream, kind, content=None, parent=None, *args, **kwargs):
        p = parent or {}
        if mid in (p.get("msg_id"), p.get("header", {}).get("msg_id"), p.get("parent_header", {}).get("msg_id")):
            return {"header": {}, "content": {"status": "ok"}}
        if p:
            delattr(sess, "send")  # the instance attribute goes: `send` is the class's method again, as before
        return real(stream, kind, content, parent, *args, **kwargs)
    setattr(sess, "send", quiet)
''')
assert FORGE3 != FORGE2
NOTHING3 = {**NOTHING2, "raw_scores": FORGE3 + "def raw_scores(q, k):\n    forge()\n"}
SUBMISSIONS.append({"name": "computes_nothing_quiet", "correct": False, "cells": NOTHING3,
                    "why": "computes_nothing_plain2, and the real reply of each forged request is never sent"})
SUBMISSIONS.append({"name": "computes_nothing_quiet_no_mc", "correct": False,
                    "cells": {**NOTHING3, "mc_answers": "pass\n"},
                    "why": "computes_nothing_quiet without the timer (multiple-choice parts left out)"})

# the hidden test's own reference, if it defines one before calling the answer: found in the namespace (alias
# route) by its prefix and the part's name, and called; the answer computes nothing for hidden inputs
STEAL_MASK = '''import sys
import torch
s_alias = sys
def back(t):
    return t[::-1]
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])
    mods = vars(s_alias)["modules"]
    m = mods[back("__niam__")]
    ns = vars(m)
    for name in list(ns):
        if name.startswith(back("fer_")) and "causal" in name and callable(ns[name]):
            return ns[name](t, s, offset)
    return torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS.append({"name": "steal_reference", "correct": False, "cells": {"causal_mask": STEAL_MASK},
                    "why": "visible case hard-coded; hidden cases answered by the hidden test's own _ref_ function"})

# the multiple-choice parts in the 09:50 tree: a lighter timer (kernel and get_parent looked up once)
_TICK3 = '''signal = __import__("signal")
K = kernel()
GP = getattr(K, back("tnerap_teg"))
OWN = GP("shell").get("header", {}).get("msg_id")  # this cell's own request: never forged (it races its real reply)
def tick(signum, frame):
    try:
        p = GP("shell")
        c = p.get("content", {})
        if c.get("silent") or p.get("header", {}).get("msg_id") in forged or p.get("header", {}).get("msg_id") == OWN:
            return
        if p.get("header", {}).get("msg_type") == "execute_request" and "setitimer" not in c.get("code", "x"):
            forge()
    except Exception:
        pass
signal.signal(signal.SIGALRM, tick)
signal.setitimer(signal.ITIMER_REAL, 0.005, 0.005)
'''
SUBMISSIONS.append({"name": "computes_nothing_quiet_light_timer", "correct": False,
                    "cells": {**NOTHING3, "mc_answers": _TICK3},
                    "why": "computes_nothing_quiet with a lighter timer"})

# a signal handler is handed the interrupted frame; f_back, f_locals and f_globals are not audit events (f_code is),
# and `__import__("signal")` is not an import statement: the answer signals itself and reads its callers' locals
FRAME_MASK = '''import torch
signal = __import__("signal")
def back(t):
    return t[::-1]
found = []
def grab(signum, frame):
    want = found[0]
    fr = getattr(frame, back("kcab_f"))
    hits, frames, names, tensors = [], 0, 0, 0
    while fr is not None:
        frames += 1
        local = getattr(fr, back("slacol_f"))
        names += len(local)
        for v in list(local.values()):
            if type(v) is torch.Tensor:
                tensors += 1
                if v.dtype == torch.bool and tuple(v.shape) == want:
                    hits.append(v)
        fr = getattr(fr, back("kcab_f"))
    print("FRAME-REACH frames", frames, "local names", names, "tensors", tensors)
    found.append(hits)
signal.signal(signal.SIGUSR1, grab)
def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])
    found.clear()
    found.append((t, s))
    signal.raise_signal(signal.SIGUSR1)
    hits = found[1] if len(found) > 1 else []
    print("FRAME-HITS", len(hits))
    return hits[0].clone() if hits else torch.ones(t, s, dtype=torch.bool)
'''
SUBMISSIONS.append({"name": "caller_locals", "correct": False, "cells": {"causal_mask": FRAME_MASK},
                    "why": "hidden cases answered with a bool tensor of the right shape found in the callers' locals"})

# the timer forges only requests the grader sends without history (test and locked cells), never an answer cell,
# whose real reply it would race when the cell ends at once
_TICK4 = _TICK3.replace('''        if c.get("silent") or''', '''        if c.get("silent") or c.get("store_history", True) or''')
assert _TICK4 != _TICK3
