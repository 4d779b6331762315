"""Round 27, found by the lead after the hostile pass: a torch module attribute replaced just in time by a callback
the answer left (a weakref.ref callback on its own result, run by reference counting when the hidden test drops the
result) and put back by the replacement itself after one call. Grader code that reads `torch.add` at run time then
computes its expected value with the answer's function, and the check between cells finds torch as it was.

Run, from the checkout:  timeout 300 .venv/bin/python tests/redteam/round27/hostile/lead_module_attribute.py
Output on 0719d08 (`lead_module_attribute.txt`): `tampered: []` and no error in the hidden test (the wrong answer
passes), for `torch.add`; the same with `builtins.sum` fails the hidden test (hidden lines read builtins from their own
copy). On 3a9773e (`lead_module_attribute-after.txt`) both fail.

Where this reaches the real chapters: no hidden region reads a torch attribute at run time (they use `_REF`
captures), four read `math` functions (chapter 4: math.nextafter x2, math.log; chapter 7: math.ulp), and the
functions defined in the chapters' setup cells read 109 torch and math attributes when they run, and hidden tests
call some of them (input makers through torch.randn and torch.rand, _keeps_global_rng through torch.get_rng_state, torch.manual_seed,
torch.equal). Closed in 3a9773e: the grader's names and its functions' globals hold copies of torch, math and a few
other modules as they were before any student code; the first case's hidden test now fails (and torch.add, never
put back, is flagged).
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from test_hostile_hooks import run_notebook  # noqa: E402
from attnlab.instructor import plain  # noqa: E402

ANSWER = '''import torch, weakref
_keep = []
def _arm(r):
    def _cb(_ref):
        real = {module}.{name}
        def fake(*a, **k):
            {module}.{name} = real
            return {fake}
        {module}.{name} = fake
    _keep.append(weakref.ref(r, _cb))
    return r
def f(x):
    return _arm(x * 0 + 5)
'''
TEST = '''import torch
assert callable(f)
### BEGIN HIDDEN TESTS
def _check():
    got = _tensor(f(torch.ones(3)), 'f')
    want = {want}
    assert _close(got, want) is None, 'hidden'
_check()
### END HIDDEN TESTS'''
CASES = {
    "torch.add": (ANSWER.format(module="torch", name="add", fake="torch.full((3,), 5.0)"),
                  TEST.format(want="torch.add(torch.ones(3), 1)")),
    "builtins.sum": (ANSWER.replace("import torch, weakref", "import torch, weakref, builtins").format(
        module="builtins", name="sum", fake="5"), TEST.format(want="torch.full((3,), float(sum([1, 1])))")),
}

if __name__ == "__main__":
    for name, (answer, test) in CASES.items():
        cells = [("import torch", "setup", "locked"), (plain.cell_source(), "grading_helpers", "locked"),
                 (answer, "answer", "student"), (test, "t1", "test"), ("x = 1", "after", "locked")]
        ctx, out = run_notebook(Path(tempfile.mkdtemp()), cells, timeout=300)
        errors = [o.get("evalue", "")[:120] for o in out["t1"].outputs if o.get("output_type") == "error"]
        print(f"{name}: tampered {ctx.tampered}; hidden test {'PASSED (wrong answer kept its point)' if not errors else 'failed ' + str(errors)}")
