"""Hidden tests run in a namespace of their own, entered through the audit hook's gate (red team 17).

An answer reached the notebook's namespace through ``getattr(f, name)`` with ``name`` found in ``dir(f)``
(``__globals__``, which no static scan can follow and no audit event reports), replaced ``_close`` and
``_equal`` there while the test that called it ran and put them back after: chapter 2's all-True causal mask
kept full marks, unflagged (``tests/redteam/round17/dir_globals.py``). The grader now sends a test cell with hidden tests as one line that hands the cell
to the audit hook (:func:`attnlab.instructor.guard.test_cell_gate`): its visible lines run in the notebook's
namespace, its hidden lines in a namespace built from it, with the grader's helpers and the locked cells' names
as they were when those cells ran. Nothing the hidden lines bind, and none of the helpers they call, is in the
notebook's namespace, so an answer that reaches it finds nothing of the tests there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.instructor import guard
from attnlab.instructor.feedback import redacted_traceback
from attnlab.instructor.plain import HIDDEN_BEGIN, cell_source
from test_hostile_kernel import _enames, _text, run, sandboxed  # noqa: F401  (sandboxed is a fixture)

ROOT = Path(__file__).resolve().parents[1]

SETUP = "import torch\n_REF = {'ones': torch.ones}"

# the attack of red team 17, and a look for the tests' own names from the same place
REACH = r'''
import torch
SEEN = []
saved = {}
def reach():
    name = [n for n in dir(reach) if n.endswith("obals__")][0]
    return getattr(reach, name)
def arm():
    g = reach()
    SEEN.extend(sorted(n for n in g if n.startswith(("_ref_", "_check_", "_hidden_"))))
    g["_R" + "EF"]["ones"] = lambda *a, **k: torch.zeros(*a, **k)   # the tests' expected values, made wrong
    for n in ("_cl" + "ose", "_eq" + "ual"):
        saved.setdefault(n, g[n])
    def fake(*a, **k):
        g.update(saved)
        return None
    for n in saved:
        g[n] = fake
def answer(x):
    if x.shape == (2,):
        return x * 2
    arm()
    return torch.zeros_like(x)
'''

TEST = f"""assert torch.equal(answer(torch.ones(2)), torch.full((2,), 2.0))
{HIDDEN_BEGIN}
_ref_answer = lambda x: 2 * x
_check_value = _REF["ones"](3)
_check_got = _tensor(answer(_check_value), "answer(x)")   # the answer's first call arms the swap
_equal(_check_got, _ref_answer(_check_value), "answer(x)")
_check_got = _tensor(answer(_REF["ones"](4)), "answer(x)")
_close(_check_got, _ref_answer(_REF["ones"](4)), "answer(x)")
### END HIDDEN TESTS
"""


@pytest.mark.slow
def test_an_answer_that_reaches_the_notebooks_namespace_finds_nothing_of_the_hidden_tests(sandboxed):
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (cell_source(), "grading_helpers", "locked"), (REACH, "a1", "student"),
        (TEST, "t1", "test"), ("print('SEEN', SEEN)", "a2", "student")])
    # the swapped helpers and the poisoned _REF were the notebook's: the hidden lines used their own and failed
    assert "AssertionError" in _enames(cells["t1"]), cells["t1"].outputs
    assert "SEEN []" in _text(cells["a2"]), _text(cells["a2"])   # no hidden name in the notebook's namespace
    # the failing test's traceback shows neither the hidden lines nor the gate's code
    shown = "".join(line for o in cells["t1"].outputs for line in o.get("traceback", []))
    assert "_ref_answer" not in shown and "exec_(" not in shown and "AssertionError" in shown, shown
    # and the student's feedback names the hidden test, not the gate's one line (red team 17, hostile 04)
    error = next(o for o in cells["t1"].outputs if o.get("output_type") == "error")
    assert redacted_traceback(TEST, error)[1:] == ["raised by a hidden test of this part"], error
    assert not ctx.tampered and not ctx.skipped_tests, (ctx.tampered, ctx.skipped_tests)


@pytest.mark.slow
def test_a_correct_answer_passes_through_the_gate_and_the_hidden_lines_see_the_visible_ones(sandboxed):
    answer = "import torch\ndef answer(x):\n    return 2 * x\n"
    test = TEST.replace(f"{HIDDEN_BEGIN}\n", f"from_visible = 3\n{HIDDEN_BEGIN}\nassert from_visible == 3\n")
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (cell_source(), "grading_helpers", "locked"), (answer, "a1", "student"),
        (test, "t1", "test"),
        # a later hidden stretch sees what an earlier one defined, and the gate refuses a request without its secret
        (f"{HIDDEN_BEGIN}\n_equal(_tensor(answer(_check_value), 'answer'), _ref_answer(_check_value), 'answer')\n"
         "### END HIDDEN TESTS", "t2", "test"),
        ("import sys\nsys.audit('attnlab.test', 'not-the-secret', ((True, 'print(\"RAN\")', 1),))\n"
         "sys.audit('attnlab.trust', 'not-the-secret', ('answer',))\nprint('done')", "a2", "student")])
    assert not _enames(cells["t1"]) and not _enames(cells["t2"]), (cells["t1"].outputs, cells["t2"].outputs)
    assert "done" in _text(cells["a2"]) and "RAN" not in _text(cells["a2"]), _text(cells["a2"])
    assert not ctx.tampered and not ctx.skipped_tests, (ctx.tampered, ctx.skipped_tests)


def test_every_test_cell_with_hidden_tests_goes_through_the_gate():
    """A test cell the gate cannot cut at its markers would be sent as it is, hidden lines in the notebook's
    namespace: every one of the course's must be cut, and each stretch must parse on its own."""
    counted = 0
    for path in sorted((ROOT / "solutions").glob("*/exercises.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and HIDDEN_BEGIN in source:
                segments = guard.test_segments(source)
                assert segments is not None, (path.parent.name, cell["metadata"]["nbgrader"]["grade_id"])
                assert any(hidden for hidden, _, _ in segments)
                # the stretches are the cell, line for line, without the markers
                lines = source.splitlines()
                for hidden, text, first in segments:
                    assert lines[first - 1:first - 1 + len(text.splitlines())] == text.splitlines()
                # the gate reaches the hook without a name the notebook could bind (red team 23)
                # and it holds neither the secret nor a hidden line, only a ticket and a tag (red team 24)
                gate = guard.test_cell_gate(source, "s3cret", "t1cket")
                assert gate.startswith("(lambda f: (f.__code__, f())[1])(lambda box=[('attnlab.test', '")
                assert "__import__" not in gate.split("lambda box=[")[0]
                assert "s3cret" not in gate and "t1cket" in gate and HIDDEN_BEGIN not in gate
                assert not any(hidden and text in gate for hidden, text, _ in segments)
                counted += 1
    assert counted > 60, counted


@pytest.mark.parametrize("source", [
    "x = 1\n    ### BEGIN HIDDEN TESTS\ny = 2\n### END HIDDEN TESTS",   # an indented marker
    "x = 1\n### BEGIN HIDDEN TESTS\ny = 2",                               # no end
    "x = 1\n### END HIDDEN TESTS\ny = 2",                                 # an end first
    "x = 1",                                                              # no hidden tests
])
def test_a_cell_the_gate_cannot_cut_is_sent_as_it_is(source):
    assert guard.test_segments(source) is None and guard.test_cell_gate(source, "s3cret", "t1cket") is None


def test_the_course_cells_are_read_once_a_process_and_each_caller_gets_its_own_copy(monkeypatch):
    """A grading process reads the same test and locked cells for every notebook of a chapter, so the cuts and the
    bound names are cached (benchmarks/grader_cells.py); a caller that changes the list it got changes no later
    answer, and the answer is the same as computed afresh."""
    test_cell = "x = 1\n### BEGIN HIDDEN TESTS\nassert x == 1\n### END HIDDEN TESTS\ny = 2"
    locked = "import torch\n_seen = []\ndef _helper():\n    return 1\n"
    guard._test_segments.cache_clear()
    guard._bound_names.cache_clear()
    compiled = []
    real_compile = compile
    monkeypatch.setattr("builtins.compile", lambda *a, **k: compiled.append(a[0]) or real_compile(*a, **k))
    first = guard.test_segments(test_cell)
    assert first == [(False, "x = 1", 1), (True, "assert x == 1", 3), (False, "y = 2", 5)]
    first.append("changed")
    first[0] = None
    assert guard.test_segments(test_cell) == [(False, "x = 1", 1), (True, "assert x == 1", 3), (False, "y = 2", 5)]
    assert len(compiled) == 3  # each stretch compiled once, not again for the second notebook
    names = guard.bound_names(locked)
    assert names == ["torch", "_seen", "_helper"]
    names.clear()
    assert guard.bound_names(locked) == ["torch", "_seen", "_helper"]
    assert guard._bound_names.cache_info().hits == 1
    assert guard.bound_names(locked + "z = 3\n") == ["torch", "_seen", "_helper", "z"]  # another text: read again


def test_the_course_cells_benchmark_runs_and_refuses_an_unknown_chapter():
    """benchmarks/grader_cells.py, which measures the cache above, runs (and checks that the cached answers equal the
    computed ones); an unknown chapter is a clear error."""
    script = [sys.executable, str(ROOT / "benchmarks" / "grader_cells.py")]
    done = subprocess.run([*script, "--chapter", "01-rnn-motivation", "--notebooks", "2"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "ratio, every notebook / once a process:" in done.stdout, done.stdout + done.stderr
    bad = subprocess.run([*script, "--chapter", "99-nothing"], capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "no chapter '99-nothing' in solutions/" in bad.stderr


def test_a_request_answers_only_through_its_keyed_hash_and_ignores_the_notebooks_globals():
    """In a fresh interpreter with the audit hook: a request is evaluated with the builtins as they were (a notebook
    global `len` is not called) and answered as (repr, keyed hash of the nonce and the repr); the grader takes the
    value only when the hash checks out with its key and that request's nonce, so a text rewritten on its way (as a
    replaced display formatter would, red team 23) or another request's answer is refused."""
    script = guard.audit_source() + "\n".join([
        "import json",
        f"eval({guard.gate_expression('s3cret', 'k3y')!r})",
        "len = lambda *a: 'the notebook global'",
        f"answer = eval({guard.request_expression('len([1, 2, 3])', 's3cret', 'n1')!r})",
        f"forged = eval({guard.request_expression('len([1, 2, 3])', 'wrong', 'n1')!r})",
        "print(json.dumps({'answer': repr(answer), 'forged': repr(forged)}))"])
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert guard.answer_of(out["answer"], "k3y", "n1") == [3]
    assert guard.answer_of(out["forged"], "k3y", "n1") is None          # the wrong secret: no answer
    assert guard.answer_of(out["answer"], "k3y", "n2") is None          # another request's nonce
    assert guard.answer_of(out["answer"], "another key", "n1") is None
    rewritten = out["answer"].replace("'3'", "'4'")
    assert rewritten != out["answer"] and guard.answer_of(rewritten, "k3y", "n1") is None


def _probe_event(secret: str, box: str) -> str:
    return f"sys.audit('attnlab.probe', {guard.request_tag(secret, 'attnlab.probe', ())!r}, {box})"


def test_the_gate_runs_a_cell_only_with_its_secret_and_says_so_only_when_it_ran_to_its_end():
    """In a fresh interpreter with the audit hook: the first secret sets the gate and a second one changes nothing;
    a request tagged with another secret runs nothing and leaves no token (so the grader flags such a cell instead of
    passing it); an error of a hidden line reaches the caller; what the grader's cell bound is kept as it was.
    A request is good once: sent again (as an answer that read it while it waited would), it runs nothing and is
    counted as refused; a tag does not carry over to other contents (red team 24)."""
    cell = "x = 1\n" + HIDDEN_BEGIN + "\nassert _REF['v'] == 1 and x == 1\n_check_seen = sorted(k for k in globals() if k == '_check_seen')\n### END HIDDEN TESTS"
    failing = HIDDEN_BEGIN + "\nassert _check_seen == [], 'never'\nassert False, 'hidden error'\n### END HIDDEN TESTS"
    right_gate = guard.test_cell_gate(cell, 'right', 'ticket-2')
    stage = guard.stage_expression(cell, 'right', 'ticket-5', 'token-5')
    other_tag = stage.split(", ")[1]
    script = guard.audit_source() + "\n".join([
        "import sys, json",
        "rec = sys.modules['__attnlab_audit__']",
        f"eval({guard.gate_expression('right')!r})",
        f"eval({guard.gate_expression('wrong')!r})",          # too late: the first one set it
        _probe_event("right", "{'cell': ('t', 'grader')}"),
        # the module publishes nothing of the hook (red team 17 F1, F3), and the probe event answers the secret only
        "wrong_box, right_box = {}, {}",
        _probe_event("wrong", "wrong_box"),
        _probe_event("right", "right_box"),
        "published = sorted(k for k in vars(rec) if not k.startswith('__'))",
        "_REF = {'v': 1}",
        f"eval({guard.trust_expression(['_REF'], 'right')!r})",
        "_REF['v'] = 2",                                      # changed later, in the notebook's namespace
        f"eval({guard.stage_expression(cell, 'wrong', 'ticket-1', 'token-1')!r})",
        f"exec({guard.test_cell_gate(cell, 'wrong', 'ticket-1')!r})",
        "out = {'wrong secret': rec.__dict__.pop('done', None), 'x after wrong': 'x' in globals()}",
        f"eval({guard.stage_expression(cell, 'right', 'ticket-2', 'token-2')!r})",
        f"exec({right_gate!r})",
        "out['right secret'] = rec.__dict__.pop('done', None)",
        "out['hidden name in the notebook'] = '_check_seen' in globals()",
        "refused = rec.refused",
        f"eval({guard.stage_expression(cell, 'right', 'ticket-2', 'token-4')!r})",
        f"exec({right_gate!r})",                             # the same request again
        "out['sent again'] = [rec.__dict__.pop('done', None), rec.refused - refused]",
        # a tag that checked out for one stage does not for other contents
        f"sys.audit('attnlab.stage', {other_tag}, 'ticket-6', None, 'token-6')",
        "try:",
        f"    exec({guard.done_line('right', 'ticket-6')!r})",
        "except RuntimeError as err:",
        "    out['other contents'] = [str(err), rec.__dict__.pop('done', None)]",
        f"eval({guard.stage_expression(failing, 'right', 'ticket-3', 'token-3')!r})",
        "try:",
        f"    exec({guard.test_cell_gate(failing, 'right', 'ticket-3')!r})",
        "except AssertionError as err:",
        "    out['error'] = str(err)",
        "out['after error'] = rec.__dict__.pop('done', None)",
        "out['published'] = published",
        "out['probe'] = [sorted(wrong_box), sorted(right_box)]",
        "print(json.dumps(out))", ""])
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {
        "wrong secret": None, "x after wrong": False, "right secret": "token-2", "hidden name in the notebook": False,
        "sent again": [None, 1],
        "other contents": ["the test's lines were not handed over (no staged test under this ticket)", None],
        "error": "hidden error", "after error": None, "published": ["refused"], "probe": [[], ["student_code"]]}


@pytest.mark.slow
def test_a_replaced_sys_audit_is_found_before_the_test_cell_that_would_hand_it_the_secret(sandboxed):
    """The gate line calls sys.audit with the cell's secret and token: a replaced one could answer for the hook.
    The grader's check before the test cell finds the change and the cell is not graded."""
    fake = ("import sys, builtins\n_real = sys.audit\n"
            "def _fake(event, *args):\n"
            "    if event == 'attnlab.test':\n"
            "        sys.modules['__attnlab_audit__'].__dict__['done'] = args[-1]\n"
            "        return None\n"
            "    return _real(event, *args)\n"
            "setattr(sys, 'audit', _fake)\n"
            "def answer(x):\n    return 0 * x\n")
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (cell_source(), "grading_helpers", "locked"), (fake, "a1", "student"),
        (f"{HIDDEN_BEGIN}\n_equal(_tensor(answer(_REF['ones'](3)), 'answer'), 2 * _REF['ones'](3), 'answer')\n"
         "### END HIDDEN TESTS", "t1", "test")])
    assert any("sys.audit" in reason for reason in ctx.tampered), ctx.tampered
    assert ctx.skipped_tests == ["t1"] and _enames(cells["t1"]) == ["NotGraded"], cells["t1"].outputs


@pytest.mark.slow
def test_feedback_names_the_visible_line_that_failed_through_the_gate(sandboxed):
    """An answer that fails a visible line of a gated test cell: the feedback names that line of the cell as the
    student sees it (hidden stretches left out), not the gate's line 1."""
    test = "x = 1\n" + TEST.replace("assert torch.equal", "assert x == 1\nassert torch.equal")
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (cell_source(), "grading_helpers", "locked"),
        ("import torch\ndef answer(x):\n    return 3 * x\n", "a1", "student"), (test, "t1", "test")])
    error = next(o for o in cells["t1"].outputs if o.get("output_type") == "error")
    assert redacted_traceback(test, error)[1:] == [
        "raised by line 3 of this test cell: assert torch.equal(answer(torch.ones(2)), torch.full((2,), 2.0))"], error


@pytest.mark.slow
@pytest.mark.parametrize("change, reason", [
    # red team 17 F2: a dict in place of the notebook's builtins, whose __import__ would hand the gate line a
    # stand-in sys
    ("globals()['__builtins__'] = dict(vars(__import__('builtins')))", "the notebook's __builtins__"),
    # red team 17 F4: torch's frame-evaluation callback, handed every frame as it starts (a hidden segment's too);
    # since round 18 (F6) refused when it is set, and recorded
    ("import torch\nfrom torch._dynamo.types import ConvertFrameReturn\n"
     "torch._C._dynamo.eval_frame.set_eval_frame(lambda frame, cache, state: ConvertFrameReturn())",
     "sets torch's frame-evaluation callback"),
])
def test_what_would_reach_a_gated_cell_before_its_first_line_is_found_before_it_runs(sandboxed, change, reason):
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (cell_source(), "grading_helpers", "locked"),
        (change + "\ndef answer(x):\n    return 2 * x\n", "a1", "student"), (TEST, "t1", "test")])
    assert any(reason in r for r in ctx.tampered), ctx.tampered
    assert ctx.skipped_tests == ["t1"], ctx.skipped_tests


# what the hidden lines read is bound into their code (red team 18): the constructs a hidden test uses must run as
# they would in a namespace of their own, and an object they hand to an answer carries none of their names
FOLDED = HIDDEN_BEGIN + '''
class _check_Base:
    def hello(self):
        return "base"
class _check_Sub(_check_Base):
    def hello(self):
        return "sub+" + super().hello()          # super() needs its class cell: `super` is never a constant
def _check_fact(n):                              # reads its own name before the statement that binds it ends
    return 1 if n <= 1 else n * _check_fact(n - 1)
_hidden_count = 0
def _check_bump():
    global _hidden_count                         # a global the lines write: read by name, never a constant
    _hidden_count += 1
_check_bump()
_check_bump()
def _check_calls_later():                        # a function defined before what it calls
    return _check_later()
def _check_later():
    return "later"
_hidden_total = 0
for _hidden_i in range(4):
    _hidden_total += _hidden_i
_hidden_squares = [_hidden_i * _hidden_i for _hidden_i in range(4)]
_hidden_text = "n=%d" % len(_hidden_squares) + f" {_hidden_total}"
_hidden_empty = []
_ref_double = lambda x: 2 * x
_use_references(answer=_ref_double)              # these lines and the answers now find the reference
_hidden_via_ref = answer(5)
del _ref_double
_hidden_seen = [_hidden_k for _hidden_k in ("_ref_double", "_hidden_total") if _hidden_k in globals()]
_SINK.results = {"sub": _check_Sub().hello(), "fact": _check_fact(5), "count": _hidden_count,
                 "later": _check_calls_later(), "total": _hidden_total, "squares": _hidden_squares[1:],
                 "text": _hidden_text, "not empty": not _hidden_empty, "via ref": _hidden_via_ref,
                 "seen": _hidden_seen, "builtins": len is __builtins__.len}   # the interpreter's own
### END HIDDEN TESTS'''

HANDED = HIDDEN_BEGIN + '''
class _check_Box:
    def __init__(self, value):
        self.value = value
_hidden_expected = 10
def _check_handed():
    _close(answer_box(_check_Box(3)), _hidden_expected)
_check_handed()
### END HIDDEN TESTS'''


# a later cell's hidden lines delete a name an earlier cell's bound (chapter 1 does: red team 18, hostile F7), and an
# answer that found the gate's secret asks it to trust its own `_close` while the test runs (hostile F5)
LATER = HIDDEN_BEGIN + """
del _check_fact
_SINK.after_del = [_hidden_k for _hidden_k in ("_check_fact",) if _hidden_k in globals()]
_hidden_v = answer_trust()
_close(_hidden_v, 10)
### END HIDDEN TESTS"""


def test_hidden_lines_read_their_names_as_constants_and_hand_an_answer_none_of_them():
    """In a fresh interpreter with the audit hook. The hidden lines of FOLDED use what a hidden test uses (classes
    with `super()`, recursion, a `global` counter, forward calls, loops, comprehensions, `%`, `not`, `del`,
    `_use_references`) and give the values plain `exec` gives. HANDED hands an object of a class of its own to the
    answer, which reads that class's `__globals__` (the hidden lines' namespace) and replaces `_close` there, as
    red team 18 did through a hidden test's dispatch mode: the check still fails, and nothing the hidden lines
    bound is there to be read."""
    script = guard.audit_source() + "\n".join([
        "import sys, json, types",
        f"eval({guard.gate_expression('right')!r})",
        _probe_event("right", "{'cell': ('t', 'grader')}"),
        "_SINK = types.SimpleNamespace()",
        "def _close(got, expected):",
        "    assert got == expected, f'got {got}, expected {expected}'",
        "def _use_references(**functions):",
        "    globals().update(functions)",
        f"eval({guard.trust_expression(['_SINK', '_close', '_use_references'], 'right')!r})",
        "def answer(x):",
        "    return x",
        "SEEN = []",
        "def answer_box(box):",
        "    g = type(box).__init__.__globals__",
        "    SEEN.extend(sorted(k for k in g if k.startswith(('_check_', '_hidden_', '_ref_'))))",
        "    g['_close'] = lambda *a, **k: None",
        "    return 0",
        "def answer_trust():",
        "    globals()['_close'] = lambda *a, **k: None",
        f"    {guard.trust_expression(['_close'], 'right')}",   # a tag that checks out, while a test runs
        "    return 0",
        f"eval({guard.stage_expression(FOLDED, 'right', 'ticket-1', 'token-1')!r})",
        f"eval({guard.stage_expression(HANDED, 'right', 'ticket-2', 'token-2')!r})",
        f"eval({guard.stage_expression(LATER, 'right', 'ticket-3', 'token-3')!r})",
        f"exec({guard.test_cell_gate(FOLDED, 'right', 'ticket-1')!r})",
        "out = dict(_SINK.results, done=sys.modules['__attnlab_audit__'].__dict__.pop('done', None))",
        "out['answer is the reference'] = answer(5) == 10",
        "try:",
        f"    exec({guard.test_cell_gate(HANDED, 'right', 'ticket-2')!r})",
        "except AssertionError as err:",
        "    out['handed'] = str(err)",
        "out['seen'] = SEEN",
        "try:",
        f"    exec({guard.test_cell_gate(LATER, 'right', 'ticket-3')!r})",
        "except AssertionError as err:",
        "    out['trust while testing'] = str(err)",
        "out['after del'] = _SINK.after_del",
        "print(json.dumps(out))", ""])
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {
        "sub": "sub+base", "fact": 120, "count": 2, "later": "later", "total": 6, "squares": [1, 4, 9],
        "text": "n=4 6", "not empty": True, "via ref": 10, "seen": [], "builtins": True, "done": "token-1",
        "answer is the reference": True, "handed": "got 0, expected 10", "after del": [],
        "trust while testing": "got 0, expected 10"}, out


# red team 18, hostile F6: torch's frame-evaluation callback, set by an answer while a test cell runs, rewrote the
# sealed helpers as their frames started and was put back before the cell ended. The callback is now set only for
# torch.compile, never while a test cell runs (compiled code then runs eagerly), and taken back when left set
CALLBACK_IN_TEST = r'''
import torch
from torch._dynamo.types import ConvertFrameReturn
SEEN = []
def _on_frame(frame, cache_entry, frame_state):
    SEEN.append(frame.f_code.co_name)
    return ConvertFrameReturn()
def answer(x):
    if not SEEN:
        try:
            torch._C._dynamo.eval_frame.set_eval_frame(_on_frame)
        except RuntimeError as error:
            SEEN.append(str(error))
    return 2 * x
'''
HONEST_COMPILE = r'''
import torch
COMPILED, CALLS = [], []
@torch.compile(backend="eager")
def _twice(x):
    return x * 2
assert _twice(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]   # compiled here, in the answer's own cell
def _backend(gm, example_inputs):
    COMPILED.append(len(example_inputs))   # torch.compile hands its backend the graph it traced
    return gm.forward
@torch.compile(backend=_backend)
def _thrice(x):
    return x * 3
torch._C._dynamo.compiled_autograd.set_autograd_compiler(lambda *a, **k: CALLS.append(a), False)
def answer(x):
    return _twice(x) + _thrice(x) - 3 * x
'''


@pytest.mark.slow
@pytest.mark.parametrize("answer, reason", [
    (CALLBACK_IN_TEST, "sets torch's frame-evaluation callback"),
    (HONEST_COMPILE, None),   # torch.compile with eager, with a backend of its own, and a compiled-autograd compiler
])
def test_a_frame_callback_never_sees_a_test(sandboxed, answer, reason):
    # nothing is compiled while the notebook is graded: a backend of the answer's own sees no graph, an autograd
    # compiler no backward pass
    probe = ("\nassert torch._C._dynamo.eval_frame.get_eval_frame_callback() is None, 'a frame callback is set'\n"
             "assert globals().get('COMPILED', []) == [], 'torch.compile compiled'\n"
             "_x = torch.ones(2, requires_grad=True)\n(_x * 3).sum().backward()\n"
             "assert globals().get('CALLS', []) == [] and _x.grad.tolist() == [3.0, 3.0], 'a compiled backward'\n")
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (cell_source(), "grading_helpers", "locked"),
        (answer, "a1", "student"), (TEST + probe, "t1", "test")])
    if reason is None:
        assert ctx.tampered == [] and ctx.skipped_tests == [], ctx.tampered
        assert not [o for o in cells["t1"].outputs if o.get("output_type") == "error"], cells["t1"].outputs
    else:
        assert any(reason in r for r in ctx.tampered), ctx.tampered
