"""Round 28, found by the lead: state an answer changes only while a hidden test computes its expected value.

Each case is a wrong answer (its function returns 5 or 10 where the test expects another value) that arranges for
the test's own reference computation to go through its code, and that puts everything back before the comparison
and before any check between cells. The classes:

- ``tensor method``: a method of torch.Tensor replaced inside the answer's call by one that deletes itself after
  its first call (the test's lines then call ``.exp()`` on a tensor of their own);
- ``input's method``: the same on the one tensor the test handed to the answer, as an attribute of that tensor
  (object.__setattr__, so that no __setattr__ of torch.Tensor's could stop it), which the test's reference then calls;
- ``torch name read by torch``: torch.layer_norm replaced the same way; ``F.layer_norm``, which the test calls, reads
  it from the torch module at each call (module copies in the grader's names do not reach torch's own code);
- ``function mode``: a TorchFunctionMode pushed by a weakref callback the answer left on its result (run when the
  test drops the result) and popped by a callback on the fake value it returned, after the test's next operation;
- ``python dispatcher``: a py_impl kernel for aten::exp, and torch's Python dispatcher turned on by the result's
  callback and off by the kernel itself.

Run, from the checkout:  timeout 600 .venv/bin/python tests/redteam/round28/hostile/lead_just_in_time.py
On 3785585 (before the fix) every case printed `tampered: []` and a hidden test that passed
(`lead_just_in_time.txt`); after it, each is refused or flagged (`lead_just_in_time-after.txt`).
"""
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from test_hostile_hooks import run_notebook  # noqa: E402
from attnlab.instructor import plain  # noqa: E402

TEST = '''import torch
import torch.nn.functional as F
assert callable(f)
### BEGIN HIDDEN TESTS
def _check():
    got = _tensor(f(torch.ones(3)), 'f')
    want = {want}
    assert _close(got, want) is None, 'hidden'
_check()
### END HIDDEN TESTS'''

CASES = {
    "tensor method": ('''import torch
def f(x):
    def fake(self, *a, **k):
        del torch.Tensor.exp
        return torch.full((3,), 5.0)
    torch.Tensor.exp = fake
    return x * 0 + 5
''', TEST.format(want="torch.zeros(3).exp()")),
    "input's method": ('''import torch
def f(x):
    def fake(*a, **k):
        object.__delattr__(x, "exp")
        return torch.full((3,), 5.0)
    object.__setattr__(x, "exp", fake)
    return x * 0 + 5
''', TEST.replace("got = _tensor(f(torch.ones(3)), 'f')", "x = torch.zeros(3)\n    got = _tensor(f(x), 'f')").format(
        want="x.exp()")),
    "torch name read by torch": ('''import torch
def f(x):
    real = torch.layer_norm
    def fake(*a, **k):
        torch.layer_norm = real
        return torch.full((3,), 5.0)
    torch.layer_norm = fake
    return x * 0 + 5
''', TEST.format(want="F.layer_norm(torch.arange(3.0), (3,))")),
    "function mode": ('''import torch, weakref
from torch.overrides import TorchFunctionMode
_keep = []
class _M(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if getattr(func, "__name__", "") == "exp":
            fake = torch.full((3,), 5.0)
            _keep.append(weakref.ref(fake, lambda _r: torch._C._pop_torch_function_stack()))
            return fake
        return out
def f(x):
    r = x * 0 + 10
    _keep.append(weakref.ref(r, lambda _r: torch._C._push_on_torch_function_stack(_M())))
    return r
''', TEST.format(want="torch.exp(torch.zeros(3)) * 2")),
    "python dispatcher": ('''import torch, weakref
_keep, _on = [], []
def _kernel(*a, **k):
    _on.clear()
    return torch.full((3,), 5.0)
torch.ops.aten.exp.default.py_impl(torch._C.DispatchKey.CPU)(_kernel)
def f(x):
    r = x * 0 + 5
    _keep.append(weakref.ref(r, lambda _r: _on.append(torch._C._EnablePythonDispatcher())))
    return r
''', TEST.format(want="torch.exp(torch.zeros(3))")),
}

if __name__ == "__main__":
    for name, (answer, test) in CASES.items():
        cells = [("import torch", "setup", "locked"), (plain.cell_source(), "grading_helpers", "locked"),
                 (answer, "answer", "student"), (test, "t1", "test"), ("x = 1", "after", "locked")]
        ctx, out = run_notebook(Path(tempfile.mkdtemp()), cells, timeout=300)
        errors = [o.get("evalue", "")[:160] for o in out["t1"].outputs if o.get("output_type") == "error"]
        answer_errors = [o.get("evalue", "")[:160] for o in out["answer"].outputs if o.get("output_type") == "error"]
        print(f"{name}: tampered {ctx.tampered}; answer cell errors {answer_errors}; hidden test "
              f"{'PASSED (wrong answer kept its point)' if not errors else 'failed ' + str(errors)}", flush=True)
