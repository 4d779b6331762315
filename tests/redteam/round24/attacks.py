"""Round 24 (session 30): code an answer leaves running with no frame of a student cell on its stack.

Run, from the checkout:  timeout 600 .venv/bin/python tests/redteam/round24/attacks.py [NAME ...]

Round 23 refused a grader's request that carries the gate's secret when a student cell's frame is up the stack. But
an answer can run code from text with no frame of its own: a thread whose target is `exec` (its frames are
threading's and "<string>"), or a finalizer (`weakref.finalize(obj, exec, text, d)`) that the garbage collector
calls in the middle of the grader's own code. Each attack here runs in the cheap harness of round 23
(tests/test_hostile_hooks.run_notebook); the answer `f` is wrong everywhere (it returns 0), the hidden tests expect 42.
The names an attack uses are built in a second statement, as a hostile student writes them, so that the static scan
reads no name of the grader's.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout's tests/
from test_hostile_hooks import report_attacks  # noqa: E402

SETUP = "import os, sys\ndef _close(a, b):\n    return abs(a - b) < 1e-6"
HELPERS = "def _close(a, b):\n    return abs(a - b) < 1e-6"    # a locked cell after student code (grading helpers)
PROTECTED = {"_REF", "_close"}
T1 = "assert callable(f)\n### BEGIN HIDDEN TESTS\nassert _close(f(1), 42), 'hidden-1'\n### END HIDDEN TESTS"
T2 = "assert callable(f)\n### BEGIN HIDDEN TESTS\nassert _close(f(2), 42), 'hidden-2'\n### END HIDDEN TESTS"

# the running cell's request, read by the answer (round 23's H4): on the guard before this round it held the gate's
# secret in every request of the grader's
PARENT = r'''
import re
_sh = getattr(exit, '_ip')
_k = 'get_' + 'par' + 'ent'
_seen = {}
def _request_text():
    c = getattr(_sh.kernel, _k)().get('content', {})
    return str(c.get('code', '')) + str(c.get('user_expressions', ''))
def f(v):
    g = re.search(r"'attnlab\.\w+', '([0-9a-f]{32})'", _request_text())
    if g:
        _seen['secret'] = g.group(1)
    return 0
'''

# I1: with the secret from the running cell's request, a request made by a thread whose target is exec: no frame of
# a student cell is on that thread's stack, so round 23's rule let it through; the trust request then put the
# answer's `_close` (from the dict the text runs in) into the hidden tests' namespace. The thread ends in its cell
THREAD_TRUST = r'''
import threading
_n = '_clo' + 'se'
_t = 'import sys\nsys.audit("attnlab." + "trust", S, (N,))'
_d = {'S': _seen.get('secret', ''), 'N': _n, _n: lambda *a, **k: True}
import builtins as _b
_x = getattr(_b, 'ex' + 'ec')
_th = threading.Thread(target=_x, args=(_t, _d))
_th.start(); _th.join()
'''

# I2: a thread made from text that outlives its cell and rebinds the notebook's `_close` while the grader's next
# locked cell runs, so that the grader keeps the answer's `_close` for the hidden tests (red team 15's thread,
# whose target was the answer's function; this one's frames are threading's and "<string>")
LINGERING = r'''
import threading, sys
_n = '_clo' + 'se'
_ns = getattr(exit, '_ip').user_ns
_t = ('import sys, time\nsys.setswitchinterval(1e-6)\nend = time.time() + 20\n'
      'while time.time() < end:\n    if NS.get(N) is not FAKE:\n        NS[N] = FAKE\n')
_d = {'NS': _ns, 'N': _n, 'FAKE': lambda *a, **k: True}
import builtins as _b
_x = getattr(_b, 'ex' + 'ec')
threading.Thread(target=_x, args=(_t, _d), daemon=True).start()
def f(v):
    return 0
'''

# I3: a finalizer (weakref.finalize with exec and a text) on an object in a reference cycle: the garbage collector
# calls it later, in the middle of the grader's own code (the probe before the next cell), with no frame of a student
# cell anywhere. It reads the request the grader is running and sends, with its secret, a trust request for the
# answer's `_close`; on this round's guard it can only send that request's own tags again
FINALIZER = r'''
import weakref, gc
_n = '_clo' + 'se'
import builtins as _b
_x = getattr(_b, 'ex' + 'ec')
_t = r"""
import re, sys
c = getattr(SH.kernel, 'get_' + 'par' + 'ent')().get('content', {})
text = str(c.get('code', '')) + str(c.get('user_expressions', ''))
g = re.search(r"attnlab\.\w+\W+([0-9a-f]{32})\W", text)
if g:
    sys.audit('attnlab.' + 'trust', g.group(1), (N,))
for expression in c.get('user_expressions', {}).values():
    LOG.append(eval(expression, SH.user_ns))    # the grader's request, sent before the grader's own copy
"""
_log = []
class _Cycle:
    pass
def _arm():
    c = _Cycle()
    c.me = c
    weakref.finalize(c, _x, _t, {'SH': getattr(exit, '_ip'), 'N': _n, _n: lambda *a, **k: True, 'LOG': _log})
_arm()
def f(v):
    return 0
'''

# I4: the same rebinding from a threading.Timer whose function is exec: while it waits, its frames are threading's own
TIMER = LINGERING.replace("threading.Thread(target=_x, args=(_t, _d), daemon=True).start()",
                          "_tm = threading.Timer(0.3, _x, args=(_t, _d))\n_tm.daemon = True\n_tm.start()")

# I5: the collector's callbacks: exec of a text at every collection would need two arguments of its own; a bound
# method of an installed class does the rest (code.InteractiveInterpreter runs text; its frames are code.py's)
GC_CALLBACK = r'''
import gc, code, functools
_n = '_clo' + 'se'
_i = code.InteractiveInterpreter({'SH': getattr(exit, '_ip'), 'N': _n})
_src = "SH.user_ns[N] = lambda *a, **k: True"
getattr(gc, 'call' + 'backs').append(lambda phase, info, _r=_i.runsource, _s=_src: _r(_s))
def f(v):
    return 0
'''

# I6: an answer that a test calls turns the collector back on (gc.enable raises no audit event), so that the
# callbacks it left run inside the test's own code; here only the switch, the route to every such callback
GC_BACK_ON = "import gc\ndef f(v):\n    gc.enable()\n    return 0\n"

ATTACKS = {
    "I1_thread_trust_with_the_running_requests_secret": [
        (PARENT, "a1", "student"), (T1, "t1", "test"), (THREAD_TRUST, "a2", "student"), (T2, "t2", "test")],
    "I2_lingering_text_thread_rebinds_a_helper_during_a_locked_cell": [
        (LINGERING, "a1", "student"), (HELPERS, "helpers", "locked"), (T1, "t1", "test"), ("x = 3", "a2", "student"),
        (T2, "t2", "test")],
    "I4_timer_of_exec_rebinds_a_helper_during_a_locked_cell": [
        (TIMER, "a1", "student"), (HELPERS, "helpers", "locked"), (T1, "t1", "test"), ("x = 3", "a2", "student"),
        (T2, "t2", "test")],
    "I5_gc_callback_rebinds_a_helper": [
        (GC_CALLBACK, "a1", "student"), (HELPERS, "helpers", "locked"), (T1, "t1", "test"), (T2, "t2", "test")],
    "I6_collector_turned_back_on_inside_a_test": [
        (GC_BACK_ON, "a1", "student"), (T1, "t1", "test"), ("x = 3", "a2", "student"), (T2, "t2", "test")],
    "I3_finalizer_in_the_graders_probe": [
        (PARENT, "a1", "student"), (T1, "t1", "test"), (FINALIZER, "a2", "student"), ("print('replayed', len(_log))", "a3", "student"),
        (T2, "t2", "test")],
}


def main(names):
    report_attacks(ATTACKS, SETUP, PROTECTED, names, prefix="rt24-")


if __name__ == "__main__":
    main(sys.argv[1:])
