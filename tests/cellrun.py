"""Run a chapter's graded notebook in a plain Python process, for the mutant batches of the suite.

nbgrader's autograde, with the grader's sandbox and tamper checks, costs about 4 s a notebook, and
half of that is starting a kernel and importing torch. The mutant batches are the course's own
code, not students': they test the hidden tests, not the grader. So this runs them as nbgrader would
execute them (every code cell of the source notebook in order, in one namespace, the answer cells
replaced, a graded cell scoring its points when it raises nothing) in a process forked from a
server that imported torch once. tests/test_exercises.py grades one batch and the model answer of
every chapter both ways and requires equal points, so the two cannot drift apart.
"""

from __future__ import annotations

import functools
import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import os
import sys
import traceback
from pathlib import Path

from grading import SOLUTION_LINES, load

from attnlab.instructor import guard, libraries  # before a notebook process blocks the course package

# imported once in the fork server; every notebook process starts with them loaded
PRELOAD = ["cellrun_preload"]
TIMEOUT = 600  # seconds for one notebook; a mutant that hangs fails its test with this reason
_context = None


def _ctx():
    """The fork server's context, started with the preload on its path (Python 3.11's fork server
    takes the parent's ``sys.path`` for its children but not for its own imports: ``PYTHONPATH``)."""
    global _context
    if _context is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        saved = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), *([saved] if saved else [])])
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            if saved is None:
                del os.environ["PYTHONPATH"]
            else:
                os.environ["PYTHONPATH"] = saved
        _context = context
    return _context


def notebook_cells(source: Path, answers: dict[str, str]) -> list[tuple[str, str, float]]:
    """``(grade_id, code, points)`` of every code cell of the source notebook, in order: answer
    cells replaced by ``answers`` (the model answer where a cell is missing), test cells with their
    hidden tests. As the grader does, a part whose answer breaks the library rule scores 0: each of its
    graded cells runs and then raises the rule's reason."""
    cells, kinds = [], []
    for cell in load(source)["cells"]:
        if cell["cell_type"] != "code":
            continue
        meta = cell["metadata"].get("nbgrader", {})
        gid = meta.get("grade_id", "")
        code = "".join(cell["source"])
        if meta.get("solution"):
            code = answers[gid] if gid in answers else "\n".join(
                line for line in code.splitlines() if line.strip() not in SOLUTION_LINES)
        points = float(meta.get("points", 0)) if meta.get("grade") else 0.0
        cells.append((gid, code, points))
        kinds.append("student" if meta.get("solution") else "test" if meta.get("grade") else "locked")
    return _library_rule(cells, kinds)


def _library_rule(cells: list[tuple[str, str, float]], kinds: list[str]) -> list[tuple[str, str, float]]:
    """``cells`` with the grader's library rule applied (``attnlab.instructor.libraries``, as ``grading.py``
    calls it): every graded cell of a part whose answer cell breaks it ends by raising the reason."""
    locked = [code for (_, code, _), kind in zip(cells, kinds) if kind == "locked"]
    answers = [(gid, code) for (gid, code, _), kind in zip(cells, kinds) if kind == "student"]
    parts = libraries.part_tests([(kind, gid, bool(points)) for (gid, _, points), kind in zip(cells, kinds)])
    failing = {}
    allowed, named = _notebook_rule(tuple(locked))
    for gid, reasons in libraries.scan(answers, allowed).items():
        why = libraries.message(gid, reasons, named)
        failing.update({test: why for test in parts.get(gid, [])})
    return [(gid, code + f"\nraise AssertionError({failing[gid]!r})\n" if gid in failing else code, points)
            for gid, code, points in cells]


@functools.lru_cache(maxsize=16)
def _notebook_rule(locked: tuple[str, ...]):
    """The modules a notebook's locked cells allow and name: the same cells for every batch of a chapter, parsed
    once per test process (as the grader does once per grading process), not once per batch."""
    return frozenset(libraries.allowed_modules(list(locked))), tuple(libraries.notebook_libraries(list(locked)))


class _NoCoursePackage:  # as in a grading kernel: `import attnlab` fails
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "attnlab" or name.startswith("attnlab."):
            raise ModuleNotFoundError("the course package attnlab is not available while grading", name=name)
        return None


# the thread count the process was given (as_in_a_grading_kernel), which a test cell's check compares with
_THREADS: int | None = None


def as_in_a_grading_kernel(threads: int) -> None:
    """In a forked process, before notebook code runs: the course package cannot be imported (it is
    dropped from ``sys.modules`` and refused by a finder), torch uses ``threads`` threads, and
    stdout/stderr go to /dev/null."""
    import torch

    for name in [name for name in sys.modules if name == "attnlab" or name.startswith("attnlab.")]:
        del sys.modules[name]
    sys.meta_path.insert(0, _NoCoursePackage)
    torch.set_num_threads(threads)
    global _THREADS
    _THREADS = threads  # as the grader reads the kernel's count before any student code
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


def run_cell(namespace: dict, gid: str, code: str, points: float) -> tuple[str, BaseException | None]:
    """Run one cell as the grader would: a graded cell starts with torch's global switches at their
    defaults and fails if it leaves one changed. Returns ``(error text or "", the exception raised or None)``."""
    import builtins
    import linecache

    error, raised = "", None
    if points:  # as the grader does before every test cell: torch's global switches back to their defaults
        eval(guard.reset_switches(_THREADS), {"__builtins__": builtins})
    filename = f"<cell {gid}>"
    # as IPython does: the cell's source in linecache, so that inspect.getsource finds what the cell defined
    # (chapter 7's Part 8 hands its kernel's source to Triton's compiler)
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    try:
        exec(compile(code, filename, "exec"), namespace)
    except BaseException as err:  # noqa: BLE001 - a cell's error (SystemExit included) is its result
        error, raised = "".join(traceback.format_exception_only(type(err), err)).strip()[-300:], err
    if points:  # as the grader does after every test cell: a switch an answer left changed fails the cell
        changed = eval(guard.settings_changed(_THREADS), {"__builtins__": builtins})
        if changed:
            error = error or f"GlobalSettings: {guard.settings_message(changed)}"
            eval(guard.reset_switches(_THREADS), {"__builtins__": builtins})
    return error, raised


def _execute(cells, threads: int, conn) -> None:
    """In the forked process: run the cells, send ``{grade_id: (score, max_score, error)}``."""
    import builtins

    as_in_a_grading_kernel(threads)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    parts = {}
    for gid, code, points in cells:
        error, _ = run_cell(namespace, gid, code, points)
        if points:
            parts[gid] = (0.0 if error else points, points, error)
    conn.send(parts)
    conn.close()


def run_notebooks(notebooks: dict[str, list[tuple[str, str, float]]], processes: int = 1, threads: int = 1
                  ) -> tuple[dict[str, dict[str, tuple[float, float, str]]], dict[str, str]]:
    """Run ``{name: cells}``, ``processes`` at a time. Returns ``({name: {graded cell: (score, max,
    error)}}, {name: why})``: the second dict names the notebooks whose process died (an
    out-of-bounds store in Triton's interpreter can abort it), which only the grader's crash
    isolation grades as a student's notebook would be. A notebook past ``TIMEOUT`` raises."""
    ctx = _ctx()
    pending, running, results, crashed = list(notebooks.items()), {}, {}, {}
    while pending or running:
        while pending and len(running) < processes:
            name, cells = pending.pop(0)
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_execute, args=(cells, threads, child), daemon=True)
            proc.start()
            child.close()
            running[name] = (proc, parent)
        ready = multiprocessing.connection.wait([c for _, c in running.values()], timeout=TIMEOUT)
        if not ready:
            for proc, _ in running.values():
                proc.kill()
            raise RuntimeError(f"{sorted(running)} ran longer than {TIMEOUT} s")
        for conn in ready:
            name = next(n for n, (_, c) in running.items() if c is conn)
            proc, _ = running.pop(name)
            try:
                results[name] = conn.recv()
            except EOFError:
                proc.join(5)
                crashed[name] = f"the process ended without a result (exit code {proc.exitcode})"
            conn.close()
            proc.join()
    return results, crashed
