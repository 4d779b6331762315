"""nbgrader's ``Execute`` preprocessor with the limits and checks of hardened grading.

:class:`HardenedExecute` is registered in place of nbgrader's ``Execute`` in
``Autograde.autograde_preprocessors``; everything else in nbgrader's autograde stays as it is. It adds:

* a wall-clock limit per notebook (on top of nbgrader's per-cell timeout): when it runs out the
  kernel is stopped, which also ends a loop that ignores the interrupt sent at a cell timeout;
* a cap on the bytes of output kept per notebook (nbgrader's ``LimitOutput`` counts lines only);
* survival of a kernel that dies (``os._exit``, a crash): the cells after it are marked as not
  run, so the parts graded before keep their points and nbgrader still records the grades;
* the tamper guard of :mod:`attnlab.instructor.guard`: once a student cell has changed the grading
  machinery (or the static scan found such code in it), the test cells after it are not run and
  score 0, and the grader flags them for manual grading.

Per-student facts travel through :data:`CONTEXT`, keyed by student id, because nbgrader creates
the preprocessor itself.
"""

from __future__ import annotations

import ast
import time
from queue import Empty
from dataclasses import dataclass, field

from nbclient.util import ensure_async, run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from traitlets import Integer

from nbgrader.preprocessors import Execute

from .guard import GUARD_SOURCE, WATCHED_MODULES


@dataclass
class StudentContext:
    """What the grader knows about one submission before grading, and what grading found."""

    protected: set[str] = field(default_factory=set)
    test_builtins: set[str] = field(default_factory=set)
    static: dict[str, list[str]] = field(default_factory=dict)   # cell id -> static findings
    tampered: list[str] = field(default_factory=list)            # reasons, in order found
    skipped_tests: list[str] = field(default_factory=list)       # grade ids not run after tampering
    timed_out: list[str] = field(default_factory=list)           # cell ids that hit the cell timeout
    stopped: str | None = None                                   # why the kernel stopped early
    not_run: list[str] = field(default_factory=list)             # grade ids not run after the stop
    output_truncated: int = 0                                    # bytes of output dropped


CONTEXT: dict[str, StudentContext] = {}


def _error(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def _gid(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "") or f"cell {cell.get('id', '?')}"


class HardenedExecute(Execute):
    notebook_timeout = Integer(600, help="wall-clock seconds for a whole notebook; 0 means no limit").tag(config=True)
    output_limit = Integer(1_000_000, help="bytes of cell output kept per notebook; 0 means no limit").tag(config=True)

    def preprocess(self, nb, resources, km=None):
        student = resources.get("nbgrader", {}).get("student")
        self._ctx = CONTEXT.setdefault(student, StudentContext())
        self._deadline = time.monotonic() + self.notebook_timeout if self.notebook_timeout else None
        self._output_bytes = 0
        self._truncated_cells: set[int] = set()
        self._guard_ready = False
        self._blocked_by: str | None = None
        self._reported: set[str] = set()
        self.timeout_func = self._cell_timeout
        return super().preprocess(nb, resources, km=km)

    def _cell_timeout(self, cell):
        if self._deadline is None:
            return self.timeout
        remaining = max(1, int(self._deadline - time.monotonic()) + 1)
        return min(self.timeout, remaining) if self.timeout else remaining

    async def _silent(self, code: str, expression: str | None = None, timeout: float | None = None):
        """Run code without output; return the value of ``expression`` (a Python literal) or None.

        Waits ``timeout`` seconds (default: the cell timeout) for the reply; None if none came."""
        msg_id = await ensure_async(self.kc.execute(code, silent=True, store_history=False,
                                                    user_expressions={"r": expression} if expression else {}))
        deadline = time.monotonic() + (timeout or self.timeout or 60)
        reply = None
        while time.monotonic() < deadline:
            try:
                msg = await ensure_async(self.kc.shell_channel.get_msg(timeout=max(0.1, deadline - time.monotonic())))
            except Empty:
                break
            if msg["parent_header"].get("msg_id") == msg_id:
                reply = msg
                break
        if not reply or reply["content"].get("status") != "ok":
            return None
        if expression:
            value = reply["content"].get("user_expressions", {}).get("r", {})
            if value.get("status") == "ok":
                try:
                    return ast.literal_eval(value["data"]["text/plain"])
                except (ValueError, SyntaxError, KeyError):
                    return ["the tamper guard answered with something other than a list"]
            return [f"the tamper guard failed: {value.get('ename', '')} {value.get('evalue', '')}".strip()]
        return None

    async def _stop_kernel(self, reason: str) -> None:
        self._ctx.stopped = reason
        try:
            await self.km.shutdown_kernel(now=True)
        except Exception:  # a kernel that is already gone cannot be stopped twice
            pass

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        if cell.cell_type != "code" or not cell.source.strip():
            return cell
        nbg = cell.metadata.get("nbgrader", {})
        gid = _gid(cell)
        if self._ctx.stopped:
            cell.outputs = [_error("NotRun", f"not run: {self._ctx.stopped}")]
            if nbg.get("grade"):
                self._ctx.not_run.append(gid)
            return cell
        if self._deadline is not None and time.monotonic() > self._deadline:
            await self._stop_kernel(f"the notebook ran past its limit of {self.notebook_timeout} s")
            return await self.async_execute_cell(cell, cell_index, execution_count, store_history)
        if nbg.get("grade") and not nbg.get("solution") and self._blocked_by:
            cell.outputs = [_error("NotGraded", f"not graded: {self._blocked_by}; flagged for manual review")]
            self._ctx.skipped_tests.append(gid)
            return cell
        if not self._guard_ready:
            # Installing the guard imports torch and numpy before any cell runs: start-up work that
            # must not eat into the first cell's time limit, so it may use the notebook's time.
            self._guard_ready = True
            budget = (self._deadline - time.monotonic()) if self._deadline is not None else 600
            await self._silent(GUARD_SOURCE % (WATCHED_MODULES, sorted(self._ctx.test_builtins)), timeout=max(budget, 1))
        try:
            cell = await super().async_execute_cell(cell, cell_index, execution_count, store_history)
        except DeadKernelError:
            process = getattr(getattr(self.km, "provisioner", None), "process", None)
            status = process.poll() if process is not None else None
            how = f"killed by signal {-status}" if status is not None and status < 0 else f"exit status {status}"
            await self._stop_kernel(f"the kernel died in cell {gid} ({how})")
            cell.outputs.append(_error("DeadKernel", self._ctx.stopped))
            if nbg.get("grade"):
                self._ctx.not_run.append(gid)
            return cell
        except CellTimeoutError:
            # nbclient interrupted the cell at its time limit, but the kernel kept running it
            self._ctx.timed_out.append(gid)
            await self._stop_kernel(f"cell {gid} kept running after the interrupt at its time limit, so the kernel was stopped")
            cell.outputs.append(_error("KernelStopped", self._ctx.stopped))
            if nbg.get("grade"):
                self._ctx.not_run.append(gid)
            return cell
        if any(o.get("ename") == self.error_on_timeout.get("ename") for o in cell.outputs if o.output_type == "error"):
            self._ctx.timed_out.append(gid)
        student_cell = bool(nbg.get("solution"))
        found = list(self._ctx.static.get(gid, [])) if student_cell else []
        changed = await self._silent("", f"__attnlab_guard__({'check' if student_cell else 'modules'!r}, globals())")
        if changed is None:
            changed = ["the tamper guard did not answer (it was removed or replaced)"]
        found += [f"cell {gid}: {name} changed while the cell ran" for name in changed if name not in self._reported]
        self._reported.update(changed)
        if found:
            if not self._blocked_by:
                self._blocked_by = f"cell {gid} modifies the grading machinery"
            self._ctx.tampered.extend(found)
            if nbg.get("grade"):
                cell.outputs.append(_error("NotGraded", f"not graded: {self._blocked_by}; flagged for manual review"))
                self._ctx.skipped_tests.append(gid)
        if not student_cell:
            await self._silent("", "__attnlab_guard__('adopt', globals())")
        return cell

    # nbclient binds the synchronous wrapper to its own coroutine; bind it to ours
    execute_cell = run_sync(async_execute_cell)

    def output(self, outs, msg, display_id, cell_index):
        if self.output_limit:
            content = msg.get("content", {})
            size = len(str(content.get("text", ""))) + len(str(content.get("data", "")))
            self._output_bytes += size
            if self._output_bytes > self.output_limit:
                self._ctx.output_truncated += size
                if cell_index not in self._truncated_cells:
                    self._truncated_cells.add(cell_index)
                    outs.append(NotebookNode(output_type="stream", name="stderr",
                                             text=f"[output truncated: more than {self.output_limit} bytes]\n"))
                return None
        return super().output(outs, msg, display_id, cell_index)
