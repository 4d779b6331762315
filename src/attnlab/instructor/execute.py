"""nbgrader's ``Execute`` preprocessor with the limits and checks of hardened grading.

:class:`HardenedExecute` is registered in place of nbgrader's ``Execute`` in
``Autograde.autograde_preprocessors``; everything else in nbgrader's autograde stays as it is. It adds:

* a kernel folder that holds only the student's submitted files, copied fresh for every run
  (``<scratch course>/kernel/<student>/``), never the notebook with the hidden tests put back;
* a wall-clock limit per notebook, over all its runs (on top of nbgrader's per-cell timeout): when it
  runs out the kernel is stopped, which also ends a loop that ignores the interrupt sent at a cell timeout; a cell
  interrupted at its limit gets ``interrupt_grace`` seconds to stop before it counts as "kept running";
* a cap on the bytes of output kept per notebook (nbgrader's ``LimitOutput`` counts lines only);
* survival of a crash: when the kernel dies in a cell (a segfault, ``os._exit``), the notebook is run
  again from the start in a new kernel with that cell replaced by an error, at most
  ``crash_restarts`` times, so every other part is graded as usual; past that, the cells after the
  crash are marked as not run. The same holds for a cell that keeps running after the interrupt at
  its time limit (a long call into C, a loop that swallows ``KeyboardInterrupt``), and for a test cell
  interrupted at its limit, whose half-done checks (a dispatch mode still pushed) would otherwise
  read as tampering in the next cell; a cell stopped by the notebook's own limit ends the run;
* the tamper guard of :mod:`attnlab.instructor.guard`: an audit hook installed before the first cell,
  and before every cell a fresh fingerprint of the kernel's hooks, compared by this process with the
  first one. Once a student cell (or student code that a test called) has changed or read the grading
  machinery, or the static scan found such code in it, one more check names what that cell changed,
  nothing more runs in that kernel, and the test cells from there on are not graded (score 0, flagged
  for manual grading). A kernel that does not answer a check within ``probe_timeout`` is flagged the
  same way. A cell nbgrader does not manage (one the student added) is the student's code like an
  answer cell, never the grader's;
* the library rule of :mod:`attnlab.instructor.libraries`: the graded cells of an answer that uses a
  library the notebook does not allow score 0, with the reason as their first output;
* text on stderr in a graded cell (a warning that a correct answer raises, a debugging print) is kept
  as ordinary output: nbgrader would score the cell 0 for it, and only an error should.

Per-student facts travel through :data:`CONTEXT`, keyed by student id, because nbgrader creates
the preprocessor itself.
"""

from __future__ import annotations

import ast
import copy
import os
import secrets
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty

from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbclient.util import ensure_async, run_sync
from nbformat.notebooknode import NotebookNode
from traitlets import Bool, Enum, Integer, Unicode

from nbgrader.preprocessors import Execute

from . import guard

KERNEL_FOLDER = "kernel"  # below the scratch course: <scratch>/kernel/<student>/ is the kernel's working folder


@dataclass
class StudentContext:
    """What the grader knows about one submission before grading, and what grading found."""

    protected: set[str] = field(default_factory=set)
    test_builtins: set[str] = field(default_factory=set)
    static: dict[str, list[str]] = field(default_factory=dict)   # cell id -> static findings
    hidden_builtins: list[str] = field(default_factory=list)     # student globals put aside while test cells run
    library: dict[str, str] = field(default_factory=dict)        # test cell id -> why its part breaks the library rule
    submitted: str | None = None                                 # folder of the student's submitted files
    tampered: list[str] = field(default_factory=list)            # reasons, in order found
    skipped_tests: list[str] = field(default_factory=list)       # grade ids not graded after tampering
    timed_out: list[str] = field(default_factory=list)           # cell ids that hit the cell timeout
    stopped: str | None = None                                   # why the kernel stopped early
    not_run: list[str] = field(default_factory=list)             # grade ids not run after the stop
    output_truncated: int = 0                                    # bytes of output dropped
    crashed: list[str] = field(default_factory=list)             # cells that crashed the kernel, and how
    settings_changed: list[str] = field(default_factory=list)    # test cells after which torch's settings differed
    runs: int = 0                                                # kernels started for this notebook

    def reset_run(self) -> None:
        """Forget what one run found; a run after a crash starts again from the first cell."""
        self.tampered, self.skipped_tests, self.timed_out, self.not_run = [], [], [], []
        self.settings_changed = []
        self.stopped, self.output_truncated = None, 0


CONTEXT: dict[str, StudentContext] = {}


def _error(ename: str, evalue: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


ERROR_LINES = 200  # traceback entries kept of one error: the first and the last half of them


def _clip(text, limit: int) -> str:
    """``text`` as a string, cut at ``limit`` characters (0: no limit) with a marker that says how many more."""
    text = text if isinstance(text, str) else str(text)
    if limit and len(text) > limit:
        return f"{text[:limit]}[... {len(text) - limit} more characters]"
    return text


def _output_size(content: dict) -> int:
    """The characters of an output message's content that would go into the notebook."""
    return sum(len(str(content.get(key) or "")) for key in ("text", "data", "metadata"))


def _gid(cell) -> str:
    """The cell's grade id; for a cell without one (added by the student), ``added-`` and its cell id."""
    return cell.metadata.get("nbgrader", {}).get("grade_id", "") or f"added-{cell.get('id', '?')}"


def _kind(cell) -> str:
    """``student`` (an answer cell, or a cell nbgrader does not manage: one the student added), ``test``
    (a graded cell) or ``locked`` (the grader's own code, restored by nbgrader from the source)."""
    nbg = cell.metadata.get("nbgrader", {})
    if nbg.get("solution"):
        return "student"
    if nbg.get("grade"):
        return "test"
    return "locked" if nbg.get("locked") else "student"


def replaced_message(event: str) -> str:
    return f"this cell {event}; it was replaced by an error so that the other parts could be graded"


def crash_message(how: str) -> str:
    return replaced_message(f"crashed the kernel ({how})")


# Before every cell: IPython's dynamic reading of one-line cells (automagic, autocall and every prefilter checker:
# `time exec("...")` run as %time, red team 16 F8) off, as the grading kernel starts; the repr of what had to be
# turned off, '' when nothing. Evaluated as a user expression, which no prefilter reads
PREFILTER_OFF = (
    "(lambda s: '' if s is None else (lambda on: (setattr(s, 'automagic', False), setattr(s, 'autocall', 0), "
    "[setattr(c, 'enabled', False) for c in s.prefilter_manager.checkers], ', '.join(on))[-1])("
    "[n for n, v in (('automagic', s.automagic), ('autocall', s.autocall)) if v] + "
    "['prefilter checker ' + type(c).__name__ for c in s.prefilter_manager.checkers if c.enabled]))"
    "(getattr(getattr(__import__('sys').modules.get('IPython.core.interactiveshell'), 'InteractiveShell', None), "
    "'_instance', None))")


# what a cell did that makes the notebook run again without it: (error name of its output, event)
KEPT_RUNNING = ("CellTimeout", "kept running after the interrupt at its time limit")
TEST_INTERRUPTED = ("CellTimeout", "was interrupted at its time limit (a test cell: what it left half done in the "
                                   "kernel is not trusted)")


def copy_submission(submitted: Path, target: Path) -> None:
    """Copy the regular files below ``submitted`` into a fresh ``target`` (symbolic links are skipped)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for folder, dirs, files in os.walk(submitted):  # does not follow links to folders
        here = Path(folder)
        rel = here.relative_to(submitted)
        (target / rel).mkdir(parents=True, exist_ok=True)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
        for name in files:
            if not (here / name).is_symlink() and (here / name).is_file():
                shutil.copyfile(here / name, target / rel / name)


class HardenedExecute(Execute):
    notebook_timeout = Integer(600, help="wall-clock seconds for a whole notebook; 0 means no limit").tag(config=True)
    output_limit = Integer(1_000_000, help="bytes of cell output kept per notebook; 0 means no limit").tag(config=True)
    crash_restarts = Integer(3, help="how many times a notebook is run again after its kernel crashed").tag(config=True)
    interrupt_grace = Integer(30, help="seconds a cell interrupted at its time limit has to stop").tag(config=True)
    startup_timeout = Integer(300, help=NotebookClient.startup_timeout.help).tag(config=True)
    keep_running_when_flagged = Bool(False, help="run every cell after the grading machinery was found changed or "
                                     "read, so that each later change is named too (a patched builtin can make each "
                                     "later check crawl until the notebook's limit); by default one more check names "
                                     "what the flagged cell changed, and nothing more runs").tag(config=True)
    # nbclient skips a cell tagged "skip-execution", and nbgrader scores a test cell that never ran as passed:
    # a tag the student put on every test cell gave an empty notebook full marks. No tag a student can
    # know skips anything here
    skip_cells_with_tag = Unicode("attnlab-skips-no-cell-" + secrets.token_hex(16),
                                  help="a tag no submission can know: no cell is skipped when graded").tag(config=False)
    disk_bytes = Integer(1024 * 2**20, help="bytes of files the kernel may keep in its folder on the grader's disk; "
                         "past that it is stopped, as after a crash (0: no limit)").tag(config=True)
    runtime_folder = Unicode("", help="the kernel's runtime folder (its connection file and sockets) when it is "
                             "this kernel's alone, as each grading worker's is: what the student writes there counts "
                             "toward the disk limits and is removed after each run; empty: not measured").tag(config=True)
    disk_entries = Integer(50_000, help="files, folders and links the kernel may keep in its folder (an honest "
                           "notebook makes a few dozen, torch.compile's caches a few hundred); past that it is "
                           "stopped, as after a crash (0: no limit)").tag(config=True)
    error_chars = Integer(10_000, help="characters kept of an error's message and of each line of its traceback "
                          "(the rest is replaced by a marker); an error's name is always kept").tag(config=True)
    probe_timeout = Integer(60, help="seconds the grader waits for the kernel's answer to one of its own checks (they "
                            "take well under a second); a kernel that does not answer in time is flagged").tag(config=True)
    # widget state sent by the kernel goes into the graded notebook's metadata, uncounted by the output limit;
    # grading shows no widget
    store_widget_state = Bool(False, help="keep the state of widgets in the graded notebook").tag(config=True)
    # the outputs are in once the last cell ran: the kernel (and its sandbox) is killed, not asked to end.
    # Graceful, it would run the student's atexit hooks after grading, and take about a second longer
    shutdown_kernel = Enum(["graceful", "immediate"], default_value="immediate",
                           help=NotebookClient.shutdown_kernel.help).tag(config=True)

    # ------------------------------------------------------------------ one notebook, run until no crash

    def preprocess(self, nb, resources, km=None):
        resources = resources if resources is not None else {}
        student = resources.get("nbgrader", {}).get("student")
        self._ctx = CONTEXT.setdefault(student, StudentContext())
        metadata = resources.setdefault("metadata", {})
        original_path = metadata.get("path")
        submitted, folder = self._folders(original_path, student)
        self._kernel_folder = folder
        original = copy.deepcopy(nb)
        self._crashed: dict[int, tuple[str, str]] = {}  # cell index -> (error name, what the cell did)
        # the notebook's limit covers all its runs: a cell that hangs and one after it that hangs again (four
        # of them, or a thread that starves every check) cost one limit, not one per run (757 s seen before)
        self._overall_deadline = time.monotonic() + self.notebook_timeout if self.notebook_timeout else None
        try:
            for attempt in range(self.crash_restarts + 1):
                self._attempt = attempt
                self._ctx.reset_run()
                self._ctx.runs += 1
                if folder is not None:
                    copy_submission(submitted, folder)
                    metadata["path"] = str(folder)
                run = copy.deepcopy(original)
                self._crash: tuple[int, str, str, str] | None = None
                out, resources = self._run(run, resources, km)
                if self._crash is None:
                    break
                index, gid, ename, event = self._crash
                self._crashed[index] = (ename, event)
                self._ctx.crashed.append(f"cell {gid} {event}; it was replaced by an error and "
                                         "the notebook was run again from the start")
        finally:
            metadata["path"] = original_path
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        return out, resources

    def _folders(self, path: str | None, student: str | None) -> tuple[Path | None, Path | None]:
        """(the student's submitted folder, the kernel's fresh folder), or (None, None) outside a course."""
        submitted = Path(self._ctx.submitted) if self._ctx.submitted else None
        if path is None:
            return None, None
        here = Path(path).resolve()
        # nbgrader runs the notebook in <course>/autograded/<student>/<assignment>
        course = here.parents[2] if len(here.parents) > 2 and here.parents[1].name == "autograded" else None
        if submitted is None and course is not None:
            submitted = course / "submitted" / here.parent.name / here.name
        if submitted is None or not submitted.is_dir():
            raise RuntimeError(f"the submitted files of {student!r} are not in {submitted}; the grading kernel "
                               "runs in a copy of them only")
        base = course if course is not None else here.parent
        return submitted, base / KERNEL_FOLDER / (student or "student")

    def _run(self, nb, resources, km):
        """nbconvert's ``ExecutePreprocessor.preprocess`` with a check after the last cell."""
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._deadline = self._overall_deadline  # one budget for all the runs of a notebook
        self._output_bytes = 0
        self._truncated_cells: set[int] = set()
        self._guard_ready = False
        self._functorch_loaded = False
        self._threads: int | None = None  # the kernel's thread count before any student code (None: torch not loaded)
        self._gate_set = False   # the hook holds the gate's secret: the grader's expressions go to it
        self._baseline: dict | None = None
        self._digest: dict = {}
        self._blocked_by: str | None = None
        self._named_after_block = False  # the one check after a flag, which names what the flagged cell changed
        self._reported: set = set()
        self._last: tuple | None = None      # (cell, grade id, kind) of the last cell that ran
        self._unanswered: set[str] = set()   # the grader's own requests that got no reply in time
        self._token: str | None = None       # the secret of the test cell running (see async_execute_cell)
        self._gate = secrets.token_hex(16)   # the secret of the test cells' gate in this kernel (guard.test_cell_gate)
        self._signing = secrets.token_hex(16)  # the key the hook signs its answers with (guard.answer_of)
        self.timeout_func = self._cell_timeout
        self._disk_hit: tuple[int, int] | None = None
        with self.setup_kernel():
            stop = threading.Event()
            threading.Thread(target=self._watch_disk, args=(stop,), daemon=True).start()
            try:
                info = self.wait_for_reply(self.kc.kernel_info())
                if info is None:
                    raise RuntimeError(f"the grading kernel did not answer within {self.startup_timeout} s of starting")
                self.nb.metadata["language_info"] = info["content"]["language_info"]
                for index, cell in enumerate(self.nb.cells):
                    self.preprocess_cell(cell, resources, index)
                self._finish()
            finally:
                stop.set()
        self.set_widgets_metadata()
        return self.nb, self.resources

    # ------------------------------------------------------------------ time limits

    def _get_timeout(self, cell):
        if cell is None:  # the kernel_info request right after start: a loaded machine may take a while
            return max(self.startup_timeout, self.timeout or 0)
        return super()._get_timeout(cell)

    def _cell_timeout(self, cell):
        limit = self.timeout
        if limit and cell is not None and _kind(cell) == "locked" and not self._functorch_loaded:
            # the notebook's own cells before any cell of the student's (nbgrader restored their source): they
            # import torch, which on a loaded machine took longer than a cell's limit, and the interrupted import
            # then cost the student every part. Only the course's code runs here, so they get the start's limit
            limit = max(self.startup_timeout, limit)
        if self._deadline is None:
            return limit
        remaining = max(1, int(self._deadline - time.monotonic()) + 1)
        return min(limit, remaining) if limit else remaining

    def _time_left(self) -> bool:
        """Whether the notebook's limit, shared by all its runs, leaves time for another run."""
        return self._deadline is None or time.monotonic() < self._deadline

    def _wait(self) -> float:
        """How long to wait for the reply to one of the grader's own requests: ``probe_timeout``, a minute by
        default, even when the notebook's limit leaves less, so that a loaded machine never changes an outcome. A
        cell that breaks the kernel's own machinery (a replaced ``builtins.type`` makes every request fail
        inside the kernel, which then never answers) costs that much, not the rest of the notebook's limit."""
        return float(self.probe_timeout or 600)

    async def _async_handle_timeout(self, timeout, cell=None):
        if cell is None or not self.interrupt_on_timeout:
            return await super()._async_handle_timeout(timeout, cell)
        # the cell reached its limit: interrupt it, then wait for the kernel's own reply to it
        self._ctx.timed_out.append(_gid(cell))
        # the notebook's limit, not the cell's own, gave this cell less time: running again would not help
        self._notebook_limit_hit = not self.timeout or timeout < self.timeout
        await ensure_async(self.km.interrupt_kernel())
        grace = self.interrupt_grace
        if self._deadline is not None:  # never past the notebook's own limit
            grace = min(grace, self._deadline - time.monotonic())
        end = time.monotonic() + max(grace, self.iopub_timeout)
        while time.monotonic() < end:
            try:
                msg = await ensure_async(self.kc.shell_channel.get_msg(timeout=min(1.0, max(0.05, end - time.monotonic()))))
            except Empty:
                if not await ensure_async(self.km.is_alive()):
                    raise DeadKernelError("Kernel died") from None
                continue
            if msg.get("msg_type") == "execute_reply":  # the only request in flight is the cell's
                return {"content": {**self.error_on_timeout, "status": "error"}}
        raise CellTimeoutError.error_from_timeout_and_cell("Kernel kept running after the interrupt", timeout, cell)

    async def _silent(self, code: str, expression: str | None = None, timeout: float | None = None):
        """Run code without output; return the ``text/plain`` of ``expression`` (or None).

        Once the audit hook holds the gate's secret, ``expression`` goes to the hook as a request
        (:func:`guard.request_expression`), so no name the notebook binds stands for one the expression reads; the
        text returned is then the ``repr`` of its value. Waits ``timeout`` seconds (default: see :meth:`_wait`) for
        the reply; None if none came."""
        requested = bool(expression) and self._gate_set
        if requested:
            nonce = secrets.token_hex(8)
            expression = guard.request_expression(expression, self._gate, nonce)
        msg_id = await ensure_async(self.kc.execute(code, silent=True, store_history=False,
                                                    user_expressions={"r": expression} if expression else {}))
        deadline = time.monotonic() + (timeout or self._wait())
        reply = None
        while time.monotonic() < deadline:
            try:
                msg = await ensure_async(self.kc.shell_channel.get_msg(timeout=min(5.0, max(0.1, deadline - time.monotonic()))))
            except Empty:
                if not await ensure_async(self.km.is_alive()):
                    return None
                continue
            parent = msg["parent_header"].get("msg_id")
            if parent == msg_id:
                reply = msg
                break
            if msg.get("msg_type") == "execute_reply" and parent not in self._unanswered and self._last is not None:
                # the grader sends one request at a time and reads its reply before the next: a reply to an
                # earlier request is a second one, and the first was sent on the cell's behalf before it had
                # finished (red team 16: an answer forged the test cell's reply at its first call, and a notebook
                # computing nothing scored full marks in every chapter)
                cell, gid = self._last[0], self._last[1]
                self._flag([f"cell {gid}: the kernel answered this cell twice: a reply was sent on its behalf "
                            "before it had finished (a forged reply)"], cell, gid)
        if reply is None:
            self._unanswered.add(msg_id)
        if not reply or reply["content"].get("status") != "ok" or not expression:
            return None
        value = reply["content"].get("user_expressions", {}).get("r", {})
        if value.get("status") != "ok":
            return None
        text = value.get("data", {}).get("text/plain")
        if not requested:
            return text
        answer = guard.answer_of(text, self._signing, nonce)
        return None if answer is None else repr(answer[0])

    async def _stop_kernel(self, reason: str) -> None:
        self._ctx.stopped = reason
        try:
            await self.km.shutdown_kernel(now=True)
        except Exception:  # a kernel that is already gone cannot be stopped twice
            pass

    def _watch_disk(self, stop: threading.Event) -> None:
        """In a thread while the kernel runs: the bytes and the entries in its folder, twice a second. Past
        ``disk_bytes`` or ``disk_entries`` the kernel is killed (its cell is then replaced by an error, as after a
        crash): a cell writing file after file would otherwise fill the grader's disk, and the gradebook and the
        other workers' notebooks with it (white-box 9: each file is capped by the sandbox, their number is not),
        and one making folders or empty files by the hundred thousand would fill it, or its inodes, unseen (red
        team 16 F11). Every entry counts (files, folders, links and the rest) with its own blocks; a pass stops
        at the first limit passed, so it reads at most ``disk_entries`` entries, and the next pass waits longer
        after a slow one."""
        folder = self._kernel_folder
        if folder is None or not (self.disk_bytes or self.disk_entries):
            return
        # the kernel's runtime folder (its connection file and sockets, one kernel's per worker) is writable too:
        # it counts with the kernel's own folder (red team 16: 1.2 GB written there went unmeasured)
        connection = getattr(self.km, "connection_file", "") or ""
        runtime = self.runtime_folder or None
        if runtime and not (connection and os.path.dirname(os.path.realpath(connection)) == os.path.realpath(runtime)):
            runtime = None  # only a folder of this kernel's own, where its connection file is
        folders = [str(folder)] + ([runtime] if runtime and os.path.isdir(runtime) else [])
        pause = 0.5
        try:
            while not stop.wait(pause):
                started = time.monotonic()
                total, entries = 0, 0
                for place in folders:
                    used, count = self._disk_use(place)
                    total, entries = total + used, entries + count
                if (self.disk_bytes and total > self.disk_bytes) or (self.disk_entries and entries > self.disk_entries):
                    self._disk_hit = (total, entries)
                    process = getattr(getattr(self.km, "provisioner", None), "process", None)
                    if process is not None:
                        try:
                            process.kill()
                        except OSError:
                            pass
                    return
                # a pass over tens of thousands of entries takes a while: at most a tenth of the watcher's time
                pause = max(0.5, 10 * (time.monotonic() - started))
        finally:
            if len(folders) > 1:
                self._clear_runtime(folders[1], connection)

    def _clear_runtime(self, runtime: str, connection: str) -> None:
        """What the student's code left in the kernel's runtime folder goes, once the kernel is stopped or done:
        only the connection file and the kernel's sockets stay (a run again after a crash would otherwise start
        with the files that stopped the first one)."""
        keep = {os.path.abspath(connection)}
        try:
            info = self.km.get_connection_info()
            keep |= {os.path.abspath(f"{info['ip']}-{info[key]}") for key in info if key.endswith("_port")}
        except Exception:
            return  # without the kernel's own names nothing is removed
        try:
            listing = list(os.scandir(runtime))
        except OSError:
            return
        for entry in listing:
            if os.path.abspath(entry.path) in keep:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass

    def _disk_use(self, folder) -> tuple[int, int]:
        """(bytes, entries) below ``folder``, counting every entry and its blocks, not following links; stops
        counting once a limit is passed."""
        limit_bytes, limit_entries = self.disk_bytes, self.disk_entries
        total, entries = 0, 0
        stack = [str(folder)]
        while stack:
            try:
                with os.scandir(stack.pop()) as listing:
                    for entry in listing:
                        entries += 1
                        try:
                            total += entry.stat(follow_symlinks=False).st_blocks * 512
                            if entry.is_dir(follow_symlinks=False):
                                stack.append(entry.path)
                        except OSError:
                            pass
                        if (limit_entries and entries > limit_entries) or (limit_bytes and total > limit_bytes):
                            return total, entries
            except OSError:
                pass
        return total, entries

    def _how_it_died(self) -> str:
        if self._disk_hit:
            total, entries = self._disk_hit
            if self.disk_entries and entries > self.disk_entries:
                return (f"it made more than {self.disk_entries} files and folders in its folder, the limit of the "
                        "grader's disk a notebook may use")
            return (f"it wrote more than {self.disk_bytes // 2**20} MiB of files into its folder, the limit of "
                    "the grader's disk a notebook may use")
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        status = process.poll() if process is not None else None
        return f"killed by signal {-status}" if status is not None and status < 0 else f"exit status {status}"

    # ------------------------------------------------------------------ the tamper guard

    async def _probe(self, upcoming, detail):
        nonce = secrets.token_hex(8)
        # a shadowing global the grader puts aside before each test cell (see grading.py) is no tampering
        watched = set(self._ctx.test_builtins) - set(self._ctx.hidden_builtins)
        expression = guard.probe_expression(nonce, cell=upcoming, detail=detail, test_builtins=watched,
                                            protected=self._ctx.protected, gate=self._gate)
        text = await self._silent("", expression)
        return guard.read_probe(text, nonce) if text is not None else None

    def _flag(self, reasons: list[str], cell=None, gid: str = "") -> None:
        """Record tampering; the test cells after it, and ``cell`` if it is a test cell that ran, are not graded."""
        reasons = [r for r in dict.fromkeys(reasons) if r not in self._reported]
        if not reasons:
            return
        self._reported.update(reasons)
        self._ctx.tampered.extend(reasons)
        if not self._blocked_by:
            self._blocked_by = f"cell {gid} modifies or reads the grading machinery"
        if cell is not None and cell.metadata.get("nbgrader", {}).get("grade") and gid not in self._ctx.skipped_tests:
            cell.outputs.insert(0, _error("NotGraded", f"not graded: {self._blocked_by}; flagged for manual review"))
            self._ctx.skipped_tests.append(gid)

    async def _check(self, upcoming):
        """Compare the kernel's hooks with the first fingerprint; blame the last cell that ran."""
        last_cell, last_gid, last_kind = self._last or (None, "before the first cell", "locked")
        value = await self._probe(upcoming, [] if self._baseline is not None else None)
        if value is None:
            self._named_after_block = True  # a kernel that did not answer this check will not answer the next
            if not await ensure_async(self.km.is_alive()):
                raise DeadKernelError("Kernel died")
            if self._deadline is not None and time.monotonic() > self._deadline:
                await self._stop_kernel(f"the notebook ran past its limit of {self.notebook_timeout} s")
                return
            self._flag([f"cell {last_gid}: the tamper guard got no answer from the kernel after this cell "
                        "(its check was blocked or replaced)"], last_cell, last_gid)
            return
        if self._baseline is None:
            self._baseline, self._digest = value["detail"], value["digest"]
        reasons = []
        for event, what, owner, line, running in value["events"]:
            during = f" (while cell {running} ran)" if running and running != owner else ""
            where = f"cell {owner}, line {line}" if line else f"cell {owner}"  # 0: no line of a cell (the hook's own)
            reasons.append(f"{where}: {guard.describe_event(event, what)}{during}")
        changed = sorted(g for g in set(value["digest"]) | set(self._digest) if value["digest"].get(g) != self._digest.get(g))
        if changed:
            detail = await self._probe(None, changed)
            if detail is None:
                self._flag([f"cell {last_gid}: the tamper guard got no answer from the kernel after this cell"],
                           last_cell, last_gid)
                return
            for group, key in guard.compare({g: self._baseline.get(g, {}) for g in changed}, detail["detail"]):
                trusted = last_kind == "locked" or (last_kind == "test" and group == "user")
                if trusted or (group, key) in self._reported:
                    continue
                self._reported.add((group, key))  # each changed entry is reported once, for the cell that changed it
                reasons.append(guard.reason(last_gid, group, key))
            # what the grader's own cells change (an import, a test's helpers) becomes the new reference
            adopt = [g for g in changed if last_kind == "locked" or (last_kind == "test" and g == "user")]
            for group in adopt:
                if group in detail["detail"]:
                    self._baseline[group] = detail["detail"][group]
                    self._digest[group] = detail["digest"][group]
        if reasons:
            self._flag(reasons, last_cell, last_gid)
        if self._blocked_by:
            self._named_after_block = True  # this check named what the flagged cell changed

    # ------------------------------------------------------------------ one cell

    async def async_execute_cell(self, cell, cell_index, execution_count=None, store_history=True):
        if cell.cell_type != "code" or not cell.source.strip():
            return cell
        nbg = cell.metadata.get("nbgrader", {})
        gid, kind = _gid(cell), _kind(cell)
        if self._ctx.stopped:
            cell.outputs = [_error("NotRun", f"not run: {self._ctx.stopped}")]
            if nbg.get("grade"):
                self._ctx.not_run.append(gid)
            return cell
        if self._deadline is not None and time.monotonic() > self._deadline:
            await self._stop_kernel(f"the notebook ran past its limit of {self.notebook_timeout} s")
            return await self.async_execute_cell(cell, cell_index, execution_count, store_history)
        if cell_index in self._crashed:
            ename, event = self._crashed[cell_index]
            cell.outputs = [_error(ename, replaced_message(event))]
            return cell
        if self._blocked_by and not self.keep_running_when_flagged:
            return await self._after_block(cell, gid, kind)
        try:
            if not self._guard_ready:
                # the audit hook goes in before any cell, so before any student code
                self._guard_ready = True
                await self._silent("", guard.audit_expression())
                await self._silent("", guard.gate_expression(self._gate, self._signing))
                self._gate_set = True
            if kind != "locked" and not self._functorch_loaded:
                # before the first cell that is not the grader's own: what torch.func registers at its first
                # call goes into the reference state (the check below adopts it, the last cell being locked)
                self._functorch_loaded = True
                # torch loaded now when the notebook's locked cells import it, even if the student put a cell of
                # their own above them: the audit hook gates torch's kernel registration at its next check, before
                # any student code (guard.AUDIT_SOURCE, install_torch_gate)
                from .libraries import allowed_modules

                locked = [c.source for c in self.nb.cells if c.cell_type == "code" and _kind(c) == "locked"]
                # the number of threads the kernel starts with (its share of the cores), read before any student code:
                # what the check after every test cell compares with and puts back
                started = await self._silent(("import torch\n" if "torch" in allowed_modules(locked) else "")
                                             + guard.FUNCTORCH_PRELOAD, guard.THREADS_AT_START)
                try:
                    threads = ast.literal_eval(started) if started else None
                except (ValueError, SyntaxError):
                    threads = None
                self._threads = threads if type(threads) is int and threads > 0 else None
            await self._check((gid, "student" if kind == "student" else "grader"))
        except DeadKernelError:
            return await self._died(cell, self._last[0] if self._last else cell, cell_index)
        if self._ctx.stopped:
            return await self.async_execute_cell(cell, cell_index, execution_count, store_history)
        if self._blocked_by and (kind == "test" or not self.keep_running_when_flagged):
            return await self._after_block(cell, gid, kind)
        if kind == "test":
            # torch's global switches back to their defaults, so that a part is not graded under a mode an
            # earlier cell left on (`torch.set_grad_enabled(False)` at the top of an answer would fail every
            # later gradient check); evaluated as a user expression, so no input transformer sees it
            turned_on = await self._silent("", f"({PREFILTER_OFF}, {guard.reset_switches(self._threads)})[0]")
            if self._ctx.hidden_builtins:
                await self._silent("", guard.HIDE_SHADOWS % (tuple(self._ctx.hidden_builtins),))
        else:
            turned_on = await self._silent("", f"({PREFILTER_OFF}, {guard.forget_sources(self._gate)})[0]")
        self._prefilter_was_on(turned_on)
        if self._blocked_by and (kind == "test" or not self.keep_running_when_flagged):
            return await self._after_block(cell, gid, kind)
        self._last = (cell, gid, kind)
        timeouts = len(self._ctx.timed_out)
        self._notebook_limit_hit = False
        # a test cell has a secret (staged with the hook before the cell, below) the kernel hands back only when the
        # cell's code ran to its end without an error (ipykernel evaluates user expressions only then), and the
        # kernel keeps no copy of it
        # (sandbox.py): a reply sent on the cell's behalf, or the kernel's own reply to a failed test rewritten as a
        # success, lacks it (red team 16 F13: an answer that forged the test cell's reply and dropped the real one
        # scored full marks for a notebook computing nothing, in every chapter)
        # The secret is left by a last line the grader adds to the cell's code, and the user expression takes it
        # back: a cell cut short while its reply is made to say ok (red team 16, second round: the running cell's
        # result told that it had no error, or a post_run_cell callback that cleared it) never reaches that line
        self._token = secrets.token_hex(16) if kind == "test" else None
        if self._token is not None:
            plain_execute, token = self.kc.execute, self._token
            store = f"__import__('sys').modules[{guard.AUDIT_MODULE!r}].__dict__"
            # a cell with hidden tests goes through the audit hook's gate, which leaves the secret itself: its hidden
            # lines run in a namespace that no answer reaches through the notebook's (guard.test_cell_gate). Both the
            # gate and the last line reach the hook without a name, and the secret comes back through a request.
            # The lines and the secret are handed to the hook first, under a ticket: the cell's own request, which an
            # answer can read while it runs, holds neither (red team 23, 24)
            ticket = secrets.token_hex(8)
            await self._silent("", guard.stage_expression(cell.source, self._gate, ticket, token))
            last_line = guard.done_line(self._gate, ticket)
            gated = guard.test_cell_gate(cell.source, self._gate, ticket)
            self._done_nonce = secrets.token_hex(8)
            done = guard.request_expression(f"{store}.pop('done', None)", self._gate, self._done_nonce)
            self.kc.execute = lambda code, **kw: plain_execute(
                gated or (code + last_line), user_expressions={"done": done}, **kw)
        try:
            # only the student's cells go into IPython's history (In, _ih, _i): a cell printing `In` shows no
            # hidden test in the feedback
            cell = await super().async_execute_cell(cell, cell_index, execution_count,
                                                    store_history and kind == "student")
        except DeadKernelError:
            return await self._died(cell, cell, cell_index)
        except CellTimeoutError:
            # nbclient interrupted the cell at its time limit, but the kernel kept running it
            return await self._without(cell, cell_index, kept_running=True)
        finally:
            if self._token is not None:
                try:
                    del self.kc.execute  # the client's own method again
                except AttributeError:
                    pass
            self._token = None
        if kind == "locked" and not self._ctx.stopped:
            # what the grader's own cell bound, kept for the hidden tests as it is now, before any later cell runs
            names = guard.bound_names(cell.source)
            if names:
                await self._silent("", guard.trust_expression(names, self._gate))
        if kind == "test" and self._ctx.hidden_builtins:
            await self._silent("", guard.RESTORE_SHADOWS)
        if kind == "test" and not self._ctx.stopped:
            try:  # the repr of a str, '' when every setting is at its default
                changed = ast.literal_eval(await self._silent("", guard.settings_changed(self._threads)) or "''")
            except (ValueError, SyntaxError):
                changed = ""
            if isinstance(changed, str) and changed:
                # before any other output, so that nothing printed before it reads as a score
                cell.outputs.insert(0, _error("GlobalSettings", guard.settings_message(changed)))
                self._ctx.settings_changed.append(f"test cell {gid} failed: the answers it ran changed {changed}")
                await self._silent("", guard.reset_switches(self._threads))
        if kind == "test" and len(self._ctx.timed_out) > timeouts:
            return await self._without(cell, cell_index, kept_running=False)
        if kind == "student" and self._ctx.static.get(gid):
            self._flag(list(self._ctx.static[gid]), cell, gid)
        if kind == "test" and gid in self._ctx.library:
            # first, so that no output before it (a printed number reads as partial credit) decides the score
            cell.outputs.insert(0, _error("LibraryRule", self._ctx.library[gid]))
        return cell

    def _prefilter_was_on(self, text: str | None) -> None:
        """Flag the last cell when IPython's reading of one-line cells had to be turned off again before this
        one (the grading kernel starts with it off: see ``sandbox.KERNEL_OPTIONS``)."""
        try:
            turned_on = ast.literal_eval(text) if text else ""
        except (ValueError, SyntaxError):
            turned_on = ""
        if not turned_on or not isinstance(turned_on, str) or self._last is None or self._last[2] == "locked":
            return
        cell, gid, kind = self._last  # a test cell: the student code it called (no grader cell does this)
        self._flag([f"cell {gid}{' (student code it called)' if kind == 'test' else ''} turned on IPython's "
                    f"{turned_on}, which runs a one-line cell as a magic or a call that the static scan does not "
                    "read; it was turned off again"], cell, gid)

    async def _name_what_changed(self) -> None:
        """One check after a flag: it names what the flagged cell changed at run time."""
        if self._named_after_block or self._ctx.stopped:
            return
        self._named_after_block = True
        try:
            await self._check(None)
        except DeadKernelError:
            pass  # nothing more runs in it anyway

    async def _after_block(self, cell, gid: str, kind: str):
        """A cell after the grading machinery was found changed or read. By default nothing more runs in that
        kernel (a patched builtin can make every later check crawl until the notebook's limit); test cells
        wait for manual review."""
        if not self.keep_running_when_flagged:
            await self._name_what_changed()
        if kind == "test":
            cell.outputs = [_error("NotGraded", f"not graded: {self._blocked_by}; flagged for manual review")]
            self._ctx.skipped_tests.append(gid)
        else:
            cell.outputs = [_error("NotRun", f"not run: {self._blocked_by}")]
        return cell

    async def _without(self, cell, cell_index, kept_running: bool):
        """A cell that kept running after the interrupt at its time limit, or a test cell interrupted there:
        the notebook runs again without it. Past the restarts, or when the notebook's own limit ran out,
        a cell that kept running stops the kernel and an interrupted test cell goes on in this kernel."""
        ename, event = KEPT_RUNNING if kept_running else TEST_INTERRUPTED
        gid = _gid(cell)
        index = next((i for i, c in enumerate(self.nb.cells) if c is cell), cell_index)
        again = not self._notebook_limit_hit and self._attempt < self.crash_restarts and index not in self._crashed
        if again and self._time_left():
            self._crash = (index, gid, ename, event)
            await self._stop_kernel(f"cell {gid} {event}; the notebook is run again without it")
            cell.outputs.append(_error(ename, replaced_message(event)))
        elif kept_running and (self._notebook_limit_hit or again):
            # the notebook's limit cut the cell short, and a loaded machine may leave it no time to stop; or the
            # limit, shared by all the runs, leaves no time to run the notebook again
            await self._stop_kernel(f"the notebook ran past its limit of {self.notebook_timeout} s "
                                    f"(cell {gid} {event})")
            cell.outputs.append(_error("KernelStopped", self._ctx.stopped))
        elif kept_running:
            await self._stop_kernel(f"cell {gid} {event}, so the kernel was stopped")
            cell.outputs.append(_error("KernelStopped", self._ctx.stopped))
        else:
            return cell
        if cell.metadata.get("nbgrader", {}).get("grade"):
            self._ctx.not_run.append(gid)
        return cell

    async def _died(self, cell, culprit, cell_index):
        """The kernel died while ``culprit`` ran (or right after): run again without it, or give up."""
        how = self._how_it_died()
        gid = _gid(culprit)
        index = next((i for i, c in enumerate(self.nb.cells) if c is culprit), cell_index)
        if self._attempt < self.crash_restarts and index not in self._crashed and self._time_left():
            self._crash = (index, gid, "KernelCrash", f"crashed the kernel ({how})")
            await self._stop_kernel(f"the kernel died in cell {gid} ({how}); the notebook is run again without it")
        else:
            await self._stop_kernel(f"the kernel died in cell {gid} ({how})")
        culprit.outputs.append(_error("DeadKernel", crash_message(how) if self._crash else self._ctx.stopped))
        if culprit.metadata.get("nbgrader", {}).get("grade"):
            self._ctx.not_run.append(gid)
        if cell is not culprit:
            return await self.async_execute_cell(cell, cell_index)
        return cell

    async def _async_finish(self):
        """The check after the last cell: what the last cells changed is found too."""
        if self._ctx.stopped or not self._guard_ready or self._last is None:
            return
        if self._blocked_by and not self.keep_running_when_flagged:
            await self._name_what_changed()
            return
        try:
            await self._check(None)
        except DeadKernelError:
            last = self._last[0]
            await self._died(last, last, next(i for i, c in enumerate(self.nb.cells) if c is last))

    _finish = run_sync(_async_finish)

    # nbclient binds the synchronous wrapper to its own coroutine; bind it to ours
    execute_cell = run_sync(async_execute_cell)

    def output(self, outs, msg, display_id, cell_index):
        content = msg.get("content", {})
        test_cell = _kind(self.nb.cells[cell_index]) == "test"
        if test_cell and msg.get("msg_type") == "stream" and content.get("name") == "stderr":
            # nbgrader scores a graded cell 0 for any text on stderr, and a correct answer can write some there
            # (a warning from torch, a debugging print): in a test cell only an error decides the score
            msg = {**msg, "content": {**content, "name": "stdout"}}
        elif test_cell and msg.get("msg_type") == "execute_result":
            # nbgrader reads the first value a graded cell shows as its score ("ok" or a number: full or partial
            # credit, and more than the cell's points fails the notebook), before any error after it. Student
            # code can show one (sys.displayhook) while a test calls it: shown, it counts for nothing
            msg = {**msg, "msg_type": "display_data", "header": {**msg.get("header", {}), "msg_type": "display_data"},
                   "content": {k: v for k, v in content.items() if k != "execution_count"}}
        if msg.get("msg_type") == "error":
            # an error is never dropped (it decides the score); its text is clipped and counted (red team 16 F9:
            # `raise ValueError("A" * 10**8)` kept 200 MB in the graded notebook)
            fields = self._count_error(self._clip_error(content), outs, cell_index)
            return super().output(outs, {**msg, "content": {**content, **fields}}, display_id, cell_index)
        if self.output_limit:
            content = msg.get("content", {})
            size = _output_size(content)
            self._output_bytes += size
            if self._output_bytes > self.output_limit:
                self._ctx.output_truncated += size
                self._truncation_notice(outs, cell_index)
                return None
        return super().output(outs, msg, display_id, cell_index)

    def _truncation_notice(self, outs, cell_index) -> None:
        """Once per cell, where its output went past the limit: a notice (on stdout in a test cell, where stderr
        would cost the part)."""
        if cell_index not in self._truncated_cells:
            self._truncated_cells.add(cell_index)
            test_cell = _kind(self.nb.cells[cell_index]) == "test"
            outs.append(NotebookNode(output_type="stream", name="stdout" if test_cell else "stderr",
                                     text=f"[output truncated: more than {self.output_limit} bytes]\n"))

    def _clip_error(self, content: dict) -> dict:
        """An error's name, message and traceback as text, each string cut at ``error_chars`` and the traceback
        at ``ERROR_LINES`` entries (its first and last ones), with markers that say how much was left out."""
        limit = self.error_chars
        traceback = content.get("traceback") or []
        if not isinstance(traceback, list):
            traceback = [traceback]
        if len(traceback) > ERROR_LINES:
            half = ERROR_LINES // 2
            traceback = [*traceback[:half], f"[... {len(traceback) - 2 * half} more traceback entries]",
                         *traceback[-half:]]
        return {"ename": _clip(content.get("ename", ""), limit), "evalue": _clip(content.get("evalue", ""), limit),
                "traceback": [_clip(line, limit) for line in traceback]}

    def _count_error(self, fields: dict, outs, cell_index) -> dict:
        """``fields`` (a clipped error) counted toward the output limit; past it, only the error's name remains,
        with a notice, so that the cell still fails as it did."""
        if not self.output_limit:
            return fields
        size = len(fields["ename"]) + len(fields["evalue"]) + sum(len(line) for line in fields["traceback"])
        self._output_bytes += size
        if self._output_bytes <= self.output_limit:
            return fields
        notice = f"[error message dropped: more than {self.output_limit} bytes of output]"
        self._ctx.output_truncated += size
        self._truncation_notice(outs, cell_index)
        return {"ename": fields["ename"], "evalue": notice, "traceback": [f"{fields['ename'][:200]}: {notice}"]}

    def on_cell_executed(self, **kwargs):
        """nbgrader's: an error the kernel's reply names and no output showed is added to the cell (nbgrader
        scores by the outputs), here clipped and counted as any other error."""
        cell, reply = kwargs["cell"], kwargs.get("execute_reply") or {}
        content = reply.get("content") or {}
        if self._token is not None and content.get("status") == "ok":
            done = (content.get("user_expressions") or {}).get("done") or {}
            if guard.answer_of((done.get("data") or {}).get("text/plain"), self._signing, self._done_nonce) != [
                    self._token]:
                gid = _gid(cell)
                self._flag([f"cell {gid}: the reply to this test cell was not the kernel's own: it reports success "
                            "without the proof the kernel gives when the cell's code ran to its end (a forged "
                            "reply)"], cell, gid)
        if content.get("status") != "error":
            return
        fields = self._clip_error(content)
        if any(o.get("output_type") == "error" and o.get("ename") == fields["ename"] for o in cell.outputs):
            return
        index = kwargs.get("cell_index")
        if index is None:
            index = next((i for i, c in enumerate(self.nb.cells) if c is cell), 0)
        fields = self._count_error(fields, cell.outputs, index)
        if not fields["traceback"]:
            fields["traceback"] = ["ERROR: An error occurred while showtraceback was disabled"]
        cell.outputs.append(NotebookNode(output_type="error", **fields))

    def _update_display_id(self, display_id, msg):
        """An update of an output shown earlier (``display(..., display_id=...)``) writes its data into every
        output of that id: counted toward the output limit like a new output, once per output it replaces, and
        past the limit not made."""
        if self.output_limit:
            copies = sum(len(indices) for indices in self._display_id_map.get(display_id, {}).values())
            size = _output_size(msg.get("content", {})) * copies
            self._output_bytes += size
            if self._output_bytes > self.output_limit:
                self._ctx.output_truncated += size
                return
        super()._update_display_id(display_id, msg)
