"""The grading kernel's own reading of cells, its outputs and its folder (red team 16, hostile: F8, F9, F11, F12).

Small notebooks run by :class:`HardenedExecute` in a kernel started the way grading starts it, through
:mod:`attnlab.instructor.sandbox` (with resource limits only, so that no bubblewrap is needed here; the
bootstrap that sets the kernel up is the same in every isolation):

* F8: a one-line cell is the Python the static scan reads: IPython's automagic, autocall and other prefilter
  checkers are off, so `time exec("...")` or `pip install x` is a SyntaxError in its own cell, never a magic;
  a cell that turns them on again is flagged and they are off again before the next cell;
* F9: error outputs count toward the output limit and are clipped (message, traceback lines), also an error
  the kernel's reply names; the error's name stays, so the cell still fails;
* F11: the kernel folder's watch counts folders and every entry, and stops the kernel past ``disk_entries``;
* F12: a test cell's source is nowhere the kernel keeps its request (``get_parent``, the shell's
  ``parent_header``, the kernel's context, IPython's record of the running cell) while student code it calls runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest

from attnlab.instructor import sandbox
from attnlab.instructor.execute import CONTEXT, HardenedExecute, StudentContext, crash_message

KERNEL = "attnlab-test-sandbox"
SETUP = "import torch, os, sys\n_REF = {'allclose': torch.allclose}\nx = 1"


@pytest.fixture
def sandboxed(tmp_path, monkeypatch):
    """A kernelspec that starts the kernel through the sandbox launcher, as grading does."""
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"memory_bytes": 4096 * 2**20, "file_bytes": 64 * 2**20,
                                  "isolation": {"tool": "rlimits"}}), encoding="utf-8")
    spec = tmp_path / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, str(Path(sandbox.__file__)), str(policy), "--", "-f", "{connection_file}"],
        "display_name": "sandbox test", "language": "python", "interrupt_mode": "message"}), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return tmp_path


def _cell(source: str, gid: str, kind: str):
    meta = {"grade_id": gid, "solution": kind == "student", "grade": kind == "test", "locked": kind != "student"}
    if kind == "test":
        meta["points"] = 1
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": meta})


def run(tmp: Path, cells: list[tuple[str, str, str]], kernel: str = KERNEL, **options):
    """Run ``[(source, grade id, kind)]``; (the student's context, {grade id: cell})."""
    submitted = tmp / "submitted"
    submitted.mkdir(parents=True)
    (submitted / "exercises.ipynb").write_text("{}", encoding="utf-8")
    (tmp / "run").mkdir()
    ctx = StudentContext(protected={"_REF"}, test_builtins={"isinstance", "len"}, submitted=str(submitted))
    CONTEXT.clear()
    CONTEXT["s"] = ctx
    nb = nbformat.v4.new_notebook(cells=[_cell(*c) for c in cells])
    try:
        options.setdefault("timeout", 120)
        out, _ = HardenedExecute(kernel_name=kernel, **options).preprocess(
            nb, {"nbgrader": {"student": "s"}, "metadata": {"path": str(tmp / "run")}})
    finally:
        CONTEXT.clear()
    return ctx, {c.metadata.nbgrader["grade_id"]: c for c in out.cells}


def _text(cell) -> str:
    return "".join(o.get("text", "") + str(o.get("data", "")) + o.get("evalue", "") for o in cell.outputs)


def _enames(cell) -> list[str]:
    return [o["ename"] for o in cell.outputs if o.get("output_type") == "error"]


# --------------------------------------------------------------------------- F8: one-line cells

@pytest.mark.slow
def test_a_one_line_cell_is_python_in_the_grading_kernel_never_a_magic(sandboxed):
    """Red team 16 F8: with automagic on (IPython's default), `time exec("...")` as a one-line cell ran as %time,
    text that is no Python to the static scan, and `pip install x` ran pip. In the grading kernel each is a
    SyntaxError in its own cell, and the cells after it run as usual."""
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"),
        ('time exec("a = 1")', "a1", "student"),
        ("pip install attnlab-no-such-package", "a2", "student"),
        ("b = 2", "a3", "student"),
        ("assert b == 2", "t1", "test"),
        ("assert a == 1", "t2", "test")])
    assert _enames(cells["a1"]) == ["SyntaxError"], cells["a1"].outputs
    assert _enames(cells["a2"]) == ["SyntaxError"], cells["a2"].outputs
    assert not cells["a3"].outputs and not cells["t1"].outputs
    assert _enames(cells["t2"]) == ["NameError"]          # exec never ran
    assert not ctx.tampered, ctx.tampered


@pytest.mark.slow
def test_automagic_turned_on_by_a_cell_is_flagged_and_off_again_before_the_next(sandboxed):
    """A cell that reaches the shell (here through sys.displayhook, which holds it) and turns automagic and the
    prefilter's checkers on: the grader turns them off before the next cell, which stays a SyntaxError, and flags
    the cell that turned them on."""
    turn_on = ("import sys\nshell = sys.displayhook.shell\nshell.automagic = True\n"
               "for checker in shell.prefilter_manager.checkers:\n    checker.enabled = True")
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (turn_on, "a1", "student"), ('time exec("a = 1")', "a2", "student"),
        ("assert a == 1", "t1", "test")], keep_running_when_flagged=True)
    assert _enames(cells["a2"]) == ["SyntaxError"], cells["a2"].outputs
    assert any(r.startswith("cell a1 turned on IPython's automagic") for r in ctx.tampered), ctx.tampered
    assert _enames(cells["t1"]) == ["NotGraded"]


# --------------------------------------------------------------------------- F12: the test cell's source

SPY = r'''
import sys
def _collect(seen, x, depth=0):
    if depth > 6:
        return
    if isinstance(x, str):
        seen.append(x)
    elif isinstance(x, bytes):
        seen.append(x.decode('latin-1'))
    elif isinstance(x, dict):
        for k, v in list(x.items()):
            _collect(seen, k, depth + 1)
            _collect(seen, v, depth + 1)
    elif isinstance(x, (list, tuple, set)):
        for v in list(x):
            _collect(seen, v, depth + 1)
    elif hasattr(x, '__dict__') and not isinstance(x, type):
        _collect(seen, dict(vars(x)), depth + 1)

def answer():
    shell = get_ipython()
    kernel = shell.kernel
    seen = []
    places = {
        'get_parent shell': lambda: kernel.get_parent('shell'),
        'get_parent': lambda: kernel.get_parent(),
        '_parent_header': lambda: kernel._parent_header,
        'shell.parent_header': lambda: shell.parent_header,
        'shell context': lambda: [v for _, v in kernel._shell_context.items()],
        'this context': lambda: [v for _, v in __import__('contextvars').copy_context().items()],
        'session': lambda: kernel.session,
        'exec_result': lambda: sys.displayhook.exec_result.info,
        'last_execution_result': lambda: shell.last_execution_result.info,
        'displayhook parent': lambda: sys.displayhook.parent_header,
        'stdout parent': lambda: sys.stdout.parent_header,
    }
    for name, get in places.items():
        try:
            _collect(seen, get())
        except Exception as err:
            seen.append(f'{name}: {type(err).__name__}')
    print('SEEN', '|'.join(seen))
    print('HEADER', kernel.get_parent('shell')['header']['msg_type'])
    return 1
'''


@pytest.mark.slow
def test_a_test_cells_source_is_not_in_the_request_the_kernel_keeps(sandboxed):
    """Red team 16 F12: an answer that a test cell called read the test's whole text, hidden tests included, in
    `get_ipython().kernel.get_parent("shell")["content"]["code"]`. The kernel keeps the request (its header routes
    the cell's output) but no code in it, nor in the shell's parent_header, the kernel's context variables or
    IPython's record of the running cell; what the answer prints still reaches the test cell's output."""
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (SPY, "a1", "student"),
        ("assert answer() == 1  # hidden-line-xyz\n_hidden_expected = 'hidden-value-abc'", "t1", "test"),
        ("print('own-line')  # own-marker-123", "a2", "student"),
        ("assert answer() == 1", "t2", "test")])
    printed = _text(cells["t1"])
    assert "SEEN" in printed and "HEADER execute_request" in printed, printed   # the answer ran and printed there
    assert "hidden-line-xyz" not in printed and "hidden-value-abc" not in printed, printed
    after = _text(cells["t2"])
    assert "SEEN" in after and "hidden-line-xyz" not in after and "own-marker-123" not in after, after
    assert not _enames(cells["t1"]) and not _enames(cells["t2"]), (cells["t1"].outputs, cells["t2"].outputs)


# --------------------------------------------------------------------------- F9: error outputs

@pytest.mark.slow
def test_error_outputs_are_clipped_and_counted_and_still_fail_the_cell(sandboxed):
    """Red team 16 F9: `raise ValueError("A" * 10**8)` was kept whole, twice (message and traceback), past the
    output limit: 200 MB of graded notebook per cell. The message and each traceback line are clipped, the errors
    count toward the limit, and every cell that raised still fails with its error's name."""
    big = "def boom():\n    raise ValueError('A' * 3_000_000)"
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), (big, "a1", "student"), ("boom()", "a2", "student"),
        ("boom()", "t1", "test"), ("boom()", "t2", "test"), ("boom()", "t3", "test")],
        output_limit=30_000, error_chars=10_000)
    for gid in ("a2", "t1", "t2", "t3"):
        assert "ValueError" in _enames(cells[gid]), (gid, cells[gid].outputs)
    size = sum(len(json.dumps(c.outputs)) for c in cells.values())
    assert size < 100_000, size
    first = next(o for o in cells["a2"].outputs if o.get("output_type") == "error")
    assert first["evalue"].startswith("A" * 10_000) and "more characters]" in first["evalue"]
    assert all(len(line) < 10_100 for line in first["traceback"])
    assert "[error message dropped" in next(o for o in cells["t3"].outputs if o.get("output_type") == "error")["evalue"]
    assert ctx.output_truncated > 0


def test_an_error_named_only_by_the_kernels_reply_is_clipped_and_counted():
    """The reply's error (added by nbgrader when no output showed one) goes through the same clipping."""
    ex = HardenedExecute(output_limit=50_000, error_chars=1_000)
    # what _run sets for each run of a notebook
    ex._ctx, ex._output_bytes, ex._truncated_cells, ex._token = StudentContext(), 0, set(), None
    ex.nb = nbformat.v4.new_notebook(cells=[_cell("f()", "t1", "test"), _cell("f()", "t2", "test")])
    reply = {"content": {"status": "error", "ename": "E" * 20_000, "evalue": "v" * 10**6,
                         "traceback": ["x" * 10**5] * 1000}}
    for index, cell in enumerate(ex.nb.cells):
        ex.on_cell_executed(cell=cell, cell_index=index, execute_reply=reply)
    first, second = (next(o for o in c.outputs if o.output_type == "error") for c in ex.nb.cells)
    assert len(first.ename) < 1_100 and len(first.evalue) < 1_100 and len(first.traceback) <= 201
    assert all(len(line) < 1_100 for line in first.traceback)
    assert second.ename == first.ename and "[error message dropped" in second.evalue
    # an error with that name already shown is not added twice
    ex.on_cell_executed(cell=ex.nb.cells[0], cell_index=0, execute_reply=reply)
    assert sum(o.output_type == "error" for o in ex.nb.cells[0].outputs) == 1


# --------------------------------------------------------------------------- F11: entries in the kernel folder

@pytest.mark.slow
@pytest.mark.parametrize("what", ["folders", "empty files"])
def test_a_cell_making_entries_by_the_thousand_is_stopped_and_replaced(sandboxed, what):
    """Red team 16 F11: 100,000 folders and 100,000 empty files went unnoticed (only files' bytes were counted).
    Every entry counts now; past ``disk_entries`` the kernel is stopped and the cell replaced, as after a crash."""
    make = "os.mkdir(f'd{i}')" if what == "folders" else "open(f'f{i}', 'w').close()"
    fill = f"import os, time\nfor i in range(6000):\n    {make}\ntime.sleep(20)\nb = 2"
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), ("a = 1", "a1", "student"), ("assert a == 1", "t1", "test"),
        (fill, "a2", "student"), ("assert b == 2", "t2", "test"), ("c = 3", "a3", "student"),
        ("assert a + c == 4", "t3", "test")], disk_entries=2_000)
    how = "it made more than 2000 files and folders in its folder, the limit of the grader's disk a notebook may use"
    assert ctx.crashed == [f"cell a2 crashed the kernel ({how}); it was replaced by an error and the notebook was "
                           "run again from the start"], ctx.crashed
    assert cells["a2"].outputs[-1]["evalue"] == crash_message(how)
    assert not cells["t1"].outputs and not cells["t3"].outputs and _enames(cells["t2"]) == ["NameError"]


@pytest.mark.slow
def test_what_a_cell_writes_into_the_runtime_folder_counts_and_goes(sandboxed):
    """Red team 16: the kernel's runtime folder (its connection file) is writable too; 1.2 GB written there went
    unmeasured. A grading worker's runtime folder is the kernel's alone: it counts with the kernel's folder, and what
    the student left there is removed after the run, so the run again without the cell is not stopped by it."""
    from traitlets.config import Config

    runtime = sandboxed / "runtime"
    runtime.mkdir()
    config = Config({"KernelManager": {"connection_file": str(runtime / "kernel.json")}})  # as grading.py sets it
    fill = ("import os, sys, time\nd = os.path.dirname(sys.argv[sys.argv.index('-f') + 1])\n"
            "open(os.path.join(d, 'junk'), 'wb').write(b'0' * 3_000_000)\ntime.sleep(20)\nb = 2")
    ctx, cells = run(sandboxed, [
        (SETUP, "setup", "locked"), ("a = 1", "a1", "student"), ("assert a == 1", "t1", "test"),
        (fill, "a2", "student"), ("assert b == 2", "t2", "test"), ("c = 3", "a3", "student"),
        ("assert a + c == 4", "t3", "test")], disk_bytes=2_000_000, runtime_folder=str(runtime),
        config=config)
    assert len(ctx.crashed) == 1 and ctx.crashed[0].startswith("cell a2 crashed the kernel (it wrote more than"), ctx.crashed
    assert not cells["t1"].outputs and not cells["t3"].outputs and _enames(cells["t2"]) == ["NameError"]
    assert not (runtime / "junk").exists()


def test_the_disk_count_includes_folders_and_links_and_stops_at_the_limit(tmp_path):
    for i in range(30):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / "f").write_bytes(b"")
        (tmp_path / f"l{i}").symlink_to("/")
    ex = HardenedExecute(disk_entries=0, disk_bytes=0)
    total, entries = ex._disk_use(tmp_path)
    assert entries == 90 and total >= 30 * 4096 * 0, (total, entries)
    ex = HardenedExecute(disk_entries=10, disk_bytes=0)
    assert ex._disk_use(tmp_path)[1] == 11  # stops counting once past the limit
