"""Hardened, parallel autograding of one chapter, through nbgrader's own ``autograde``.

:func:`grade` checks every submission before it reaches nbgrader (an empty file, bytes that are
not UTF-8, text that is not JSON or not a notebook get a reason instead of a score), then hands the
valid ones to ``workers`` processes. Each process keeps a scratch nbgrader course of its own: the
chapter's source and one student's submission at a time, copied in. nbgrader autogrades that copy
with the course's gradebook URL, so grades land in the real gradebook (SQLite or PostgreSQL), while
the kernel that runs the student's code

* starts through :mod:`attnlab.instructor.sandbox`: in a bubblewrap sandbox (own mount, PID and
  network namespaces, the course not mounted, allow-listed environment; Landlock where bubblewrap
  cannot run), with memory, file-size, CPU-time and process limits, talking to the grader over ZMQ
  ``ipc`` sockets; and
* is driven by :class:`~attnlab.instructor.execute.HardenedExecute` (per-notebook time limit, output
  cap, tamper guard, survival of a dying kernel).

The submitted files are only read, and their SHA-256 is checked after grading. Every student ends
with a :class:`Result`: a score, or a reason why there is none. Results are reported (``progress``)
as each notebook finishes.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from . import tempdirs

NOTEBOOK = "exercises.ipynb"


def _alembic_head() -> str | None:
    """The alembic revision of nbgrader's gradebook schema, read from nbgrader's own migration scripts: the one
    revision that no other script names as its ``down_revision``. None where the scripts cannot be read so."""
    import re

    import nbgrader

    revisions, parents = set(), set()
    for script in (Path(nbgrader.__file__).parent / "alembic" / "versions").glob("*.py"):
        text = script.read_text(encoding="utf-8")
        revision = re.findall(r"^revision\s*=\s*['\"]([0-9a-f]+)['\"]\s*$", text, re.M)
        parent = re.findall(r"^down_revision\s*=\s*(?:None|['\"]([0-9a-f]+)['\"])\s*$", text, re.M)
        if len(revision) != 1 or len(parent) != 1:
            return None
        revisions.add(revision[0])
        parents.update(p for p in parent if p)
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 and parents <= revisions else None


def use_alembic_head() -> None:
    """Make a new gradebook stamp its schema's revision without a subprocess. nbgrader's ``Gradebook`` asks
    ``alembic heads`` for it, in a new Python process (about 2 s of CPU), every time it creates a database: in a
    course's release, in every scratch gradebook of a Dask worker, in the test suite's scratch courses. The answer
    is the same revision, read here from nbgrader's migration scripts (:func:`_alembic_head`); where they cannot be
    read so, nbgrader keeps asking alembic."""
    import nbgrader.api as api

    if getattr(api.get_alembic_version, "attnlab_head", None) is not None:
        return
    head = _alembic_head()
    if head is None:
        return

    def get_alembic_version() -> str:
        return head

    get_alembic_version.attnlab_head = head
    api.get_alembic_version = get_alembic_version
KERNEL_NAME = "attnlab-sandbox"
# environment variables a grading kernel must not see (database URLs and passwords)
SECRET_ENV = ("ATTNLAB_GRADEBOOK_URL", "ATTNLAB_POSTGRES_URL", "DATABASE_URL", "PGPASSWORD", "PGPASSFILE")


@dataclass
class Limits:
    """Limits on one student's notebook. ``cell_timeout=None`` keeps ``nbgrader_config.py``'s.

    Runaway code is stopped by CPU time (``cpu_seconds`` of the kernel process, default twice the
    notebook's wall-clock limit), which does not depend on how busy the machine is; the wall-clock
    limits are generous so that an honest notebook on a loaded machine does not reach them.
    ``isolation`` is ``auto`` (bubblewrap, else Landlock, else limits only), ``bwrap`` (refuse to
    grade without it) or ``landlock``. ``max_cells`` and ``max_notebook_mb`` are checked before
    grading; ``processes`` caps the processes a kernel may start (not enforceable for root)."""

    cell_timeout: int | None = None
    notebook_timeout: int = 600
    memory_mb: int = 4096
    output_bytes: int = 1_000_000
    file_mb: int = 64
    landlock: bool = True
    cpu_seconds: int | None = None
    isolation: str = "auto"
    max_cells: int = 1000
    max_notebook_mb: float = 20
    processes: int = 256
    startup_timeout: int = 300


@dataclass
class Part:
    grade_id: str
    score: float
    max_score: float


@dataclass
class Result:
    """The outcome for one student.

    ``status`` is ``graded``; ``flagged`` (scored, but some parts wait for manual review, see
    ``reasons``); ``invalid`` (the file is not a notebook: no score); ``missing`` (nothing to grade);
    or ``failed`` (nbgrader could not grade it: no score).
    """

    student: str
    status: str
    score: float | None = None
    max_score: float | None = None
    parts: dict[str, Part] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        score = "-" if self.score is None else f"{self.score:g}/{self.max_score:g}"
        why = "; ".join(self.reasons + self.notes)
        return f"{self.student:<24} {self.status:<8} {score:>8}  {why}"


# --------------------------------------------------------------------------- checks before grading

def find_notebook(folder: Path) -> tuple[Path | None, str]:
    """The notebook to grade in a student's submitted folder, and a note if it was renamed."""
    expected = folder / NOTEBOOK
    if expected.is_file():
        return expected, ""
    others = sorted(p for p in folder.glob("*.ipynb") if p.is_file())
    if len(others) == 1:
        return others[0], f"graded {others[0].name} as {NOTEBOOK} (the notebook was renamed)"
    if others:
        names = ", ".join(p.name for p in others)
        return None, f"no {NOTEBOOK}, and several other notebooks ({names}): rename the one to grade"
    return None, f"no {NOTEBOOK} in {folder}"


def extra_notebooks(folder: Path, graded: Path) -> str:
    """A note naming the notebooks of ``folder`` other than ``graded`` (empty if there are none)."""
    others = sorted(p.name for p in folder.glob("*.ipynb") if p.is_file() and p != graded)
    if not others:
        return ""
    return (f"also submitted {', '.join(others)} (not graded: only {graded.name} is); "
            "if that is the one to grade, ask the student to submit it as exercises.ipynb")


# what to ask a student whose file is not a notebook
RESUBMIT = "ask the student to download the notebook from Jupyter (File \u2192 Download) and submit it again"


def check_notebook(path: Path, limits: Limits | None = None) -> str | None:
    """Why ``path`` cannot be graded (None if it can); with ``limits``, also its size and cell count."""
    import nbformat

    if limits is not None and limits.max_notebook_mb:
        size = path.stat().st_size
        if size > limits.max_notebook_mb * 2**20:
            return (f"{path.name} is {size / 2**20:.1f} MiB, more than the limit of {limits.max_notebook_mb} MiB: "
                    "ask the student to clear all outputs (Edit \u2192 Clear Outputs of All Cells), save, and submit again")
    data = path.read_bytes()
    if not data.strip():
        return f"{path.name} is empty ({len(data)} bytes): ask the student to submit the notebook again"
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (Windows editors write one) is removed by the repair
    except UnicodeDecodeError as err:
        return (f"{path.name} is not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start}): "
                "ask the student to save it from Jupyter again")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        return f"{path.name} is not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}): {RESUBMIT}"
    except (ValueError, RecursionError) as err:  # nesting past the parser's depth, an integer of thousands of digits
        return f"{path.name} cannot be read as a notebook ({type(err).__name__}: {str(err)[:120]}): {RESUBMIT}"
    # the outputs a student saved are never graded (nbgrader clears them before running the notebook): not parsed,
    # since nbformat spends minutes validating hundreds of thousands of them (white-box 9: 200 s of grader CPU)
    for cell in raw.get("cells", []) if isinstance(raw, dict) and isinstance(raw.get("cells"), list) else []:
        if isinstance(cell, dict) and isinstance(cell.get("outputs"), list):
            cell["outputs"] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nbformat's warnings about missing cell ids
            nb = nbformat.reads(json.dumps(raw), as_version=4)
            nbformat.validate(nb)
    except Exception as err:  # nbformat raises several kinds of validation errors
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        return f"{path.name} is not a Jupyter notebook ({first}): {RESUBMIT}"
    if limits is not None and limits.max_cells and len(nb.cells) > limits.max_cells:
        return (f"{path.name} has {len(nb.cells)} cells, more than the limit of {limits.max_cells}: ask the student "
                "to copy their answers into a fresh copy of the released notebook, without added cells, and submit that")
    return None


def nbgrader_error(outcome: dict) -> str:
    """The most specific error line of an NbGraderAPI result, not its closing "see the above traceback"."""
    log = (outcome.get("log") or "") + "\n" + (outcome.get("error") or "")
    errors = [ln.strip() for ln in log.splitlines() if "Error" in ln and "NbGraderException" not in ln]
    return errors[-1] if errors else "see nbgrader's log"


def sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# --------------------------------------------------------------------------- the worker process

_WORKER: dict = {}


class SetupError(RuntimeError):
    """The grader itself could not start (configuration, gradebook): no student is to blame."""


def kernel_policy(limits: Limits, threads: int, isolation: dict, hidden: list[str] = (),
                  runtime_dir: str | None = None) -> dict:
    """What :mod:`~attnlab.instructor.sandbox` applies to each grading kernel (the JSON policy file)."""
    cpu = limits.cpu_seconds or (max(limits.notebook_timeout * 2, 60) if limits.notebook_timeout else None)
    return {
        "memory_bytes": limits.memory_mb * 2**20,
        "file_bytes": limits.file_mb * 2**20,
        "cpu_seconds": cpu,
        "processes": limits.processes,
        "unset_env": list(SECRET_ENV),
        "landlock": limits.landlock,
        "threads": threads,
        "isolation": isolation,
        "hidden": [str(h) for h in hidden],
        "runtime_dir": runtime_dir,
    }


def _worker_init(*args) -> None:
    try:
        _setup_worker(*args)
    except Exception as err:  # reported by the first _grade_one call, so the parent can raise it
        _WORKER["error"] = f"{type(err).__name__}: {err}"


def _setup_worker(root: str, chapter: str, db_url: str, limits: Limits, out_dir: str | None, config_file: str,
                  base: str, threads: int, isolation: dict, ipc_base: str) -> None:
    import warnings

    # SQLite waits 5 s for another worker's lock by default; on a loaded machine that runs out and
    # nbgrader fails the notebook ("database is locked"). Wait as long as a notebook may take.
    if db_url.startswith("sqlite") and "timeout=" not in db_url:
        db_url += ("&" if "?" in db_url else "?") + "timeout=600"

    from sqlalchemy.exc import SAWarning

    warnings.filterwarnings("ignore", category=SAWarning)  # raised inside nbgrader's own gradebook code
    # inside the batch's folder, which the parent removes when the pool is done (even if this process dies)
    scratch = Path(tempfile.mkdtemp(prefix="worker-", dir=base))
    source = Path(root) / "solutions" / chapter
    shutil.copytree(source, scratch / "source" / chapter, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    # the kernel's ZMQ sockets are files here (a short path: a Unix socket's name has at most 107 bytes)
    runtime = Path(tempfile.mkdtemp(prefix="w", dir=ipc_base))
    # never mounted into the sandbox: the course, the package's sources, this process's scratch course
    package = Path(__file__).resolve().parents[1]
    hidden = [str(Path(root).resolve()), str(package), str(scratch)]
    if not any(str(package).startswith(os.path.realpath(p) + os.sep) for p in (sys.prefix, sys.base_prefix)):
        hidden.append(str(package.parent))  # an editable install: the checkout's src/ folder
    if db_url.startswith("sqlite:///"):
        hidden.append(str(Path(db_url[len("sqlite:///"):]).resolve().parent))
    policy = kernel_policy(limits, threads, isolation, hidden, str(runtime))
    policy["grader_pid"] = os.getpid()  # the launcher's parent: it ends its sandbox when this process is gone
    (scratch / "policy.json").write_text(json.dumps(policy), encoding="utf-8")
    spec = scratch / "jupyter" / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        # the launcher runs as a script, so starting a kernel does not import the attnlab package (torch)
        "argv": [sys.executable, str(Path(__file__).with_name("sandbox.py")), str(scratch / "policy.json"), "--",
                 "-f", "{connection_file}"],
        "display_name": "Python 3 (attnlab grading sandbox)",
        "language": "python",
        # an interrupt travels as a message on the control channel: the kernel runs in a session and
        # PID namespace of its own, where the grader's signals to the launcher's group do not reach it
        "interrupt_mode": "message",
        "metadata": {"debugger": False},
    }), encoding="utf-8")
    os.environ["JUPYTER_PATH"] = str(scratch / "jupyter")
    os.environ["JUPYTER_RUNTIME_DIR"] = str(runtime)
    api = _worker_api(Path(root), scratch, db_url, limits, Path(config_file), runtime)
    _WORKER.update(root=Path(root), chapter=chapter, db_url=db_url, limits=limits, scratch=scratch, runtime=runtime,
                   out_dir=Path(out_dir) if out_dir else None, api=api, course_id=api.coursedir.course_id)


def _worker_api(root: Path, scratch: Path, db_url: str, limits: Limits, config_file: Path, runtime: Path):
    use_alembic_head()
    from nbgrader.apps import NbGraderAPI
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    from .execute import HardenedExecute

    config = Config()
    config.merge(PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config())
    config.CourseDirectory.root = str(scratch)
    config.CourseDirectory.db_url = db_url
    config.CourseDirectory.source_directory = "source"
    config.Exchange.root = str(scratch / "exchange")
    config.Autograde.autograde_preprocessors = [
        HardenedExecute if p is Execute else p for p in Autograde.class_traits()["autograde_preprocessors"].default()]
    config.OverwriteCells.add_missing_cells = True
    config.HardenedExecute.kernel_name = KERNEL_NAME
    config.HardenedExecute.notebook_timeout = limits.notebook_timeout
    config.HardenedExecute.output_limit = limits.output_bytes
    # after the interrupt at a cell's time limit, how long the kernel has to stop before it is stopped
    # (nbclient's default, 4 s, is short for a loaded machine)
    config.HardenedExecute.iopub_timeout = 10
    # wall-clock waits that an honest notebook on a loaded machine must never reach
    config.HardenedExecute.startup_timeout = limits.startup_timeout
    # ZMQ over Unix socket files in the runtime folder, which the sandbox binds: the kernel's network
    # namespace is empty, so TCP on localhost would not reach it (one kernel at a time per process)
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = str(runtime / "kernel")
    config.KernelManager.connection_file = str(runtime / "kernel.json")
    config.HardenedExecute.runtime_folder = str(runtime)  # this worker's alone: measured with the kernel's folder
    if limits.cell_timeout is not None:
        config.HardenedExecute.timeout = limits.cell_timeout
    return NbGraderAPI(config=config)


def _cells(nb) -> tuple[list, list, list]:
    """(student cells, locked non-test cells, test cells) of a notebook, by nbgrader metadata."""
    student, locked, tests = [], [], []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        if meta.get("solution"):
            student.append(cell)
        elif meta.get("grade"):
            tests.append(cell)
        else:
            locked.append(cell)
    return student, locked, tests


def _clear_folder(folder: Path | None) -> None:
    """Remove everything in ``folder`` (links themselves, never what they point to)."""
    if folder is None or not folder.is_dir():
        return
    for entry in os.scandir(folder):
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _grade_one(student: str, notebook: str, note: str) -> Result:
    started = time.monotonic()
    # the kernels' socket folder is writable inside the sandbox: whatever a kernel left there (a link
    # where the next connection file goes, say) is removed before and after each student
    _clear_folder(_WORKER.get("runtime"))
    try:
        result = _grade_in_scratch(student, notebook, note)
    finally:
        _clear_context()
        _clear_folder(_WORKER.get("runtime"))
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _clear_context() -> None:
    from .execute import CONTEXT

    CONTEXT.clear()


def _grade_in_scratch(student: str, notebook: str, note: str) -> Result:
    import nbformat
    from nbgrader.api import Gradebook

    from . import libraries
    from .execute import CONTEXT, StudentContext, _gid, _kind
    from .guard import (builtins_used_by_functions, defined_names, edited_locked_cells, shadow_note, static_findings,
                        used_builtins)
    from .submission import NO_MATCH, repair_file

    w = _WORKER
    if "error" in w:
        raise SetupError(f"the grading process could not start: {w['error']}")
    chapter, scratch, api = w["chapter"], w["scratch"], w["api"]
    result = Result(student, "graded", notes=[note] if note else [])
    folder = scratch / "submitted" / student / chapter
    shutil.rmtree(scratch / "submitted" / student, ignore_errors=True)
    shutil.rmtree(scratch / "autograded" / student, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copyfile(notebook, folder / NOTEBOOK)
    stamp = Path(notebook).parent / "timestamp.txt"
    if stamp.is_file():
        shutil.copyfile(stamp, folder / "timestamp.txt")
    # tampered nbgrader metadata (points, grade ids, flags): restored from the released notebook, with notes
    result.notes += repair_file(folder / NOTEBOOK, w["root"] / "chapters" / chapter / NOTEBOOK,
                                scratch / "source" / chapter / NOTEBOOK)
    if NO_MATCH in result.notes:
        result.status, result.reasons = "invalid", [NO_MATCH]
        result.notes = [n for n in result.notes if n != NO_MATCH]
        return result

    submitted = nbformat.read(folder / NOTEBOOK, as_version=4)
    if "source_nb" not in w:  # the same for every student: read once per process
        released_path = w["root"] / "chapters" / chapter / NOTEBOOK
        w["source_nb"] = nbformat.read(scratch / "source" / chapter / NOTEBOOK, as_version=4)
        w["released_nb"] = nbformat.read(released_path, as_version=4) if released_path.is_file() else None
    source = w["source_nb"]
    if "parts" not in w:
        code = [c for c in source.cells if c.cell_type == "code"]
        locked_sources = [c.source for c in code if _kind(c) == "locked"]
        w["allowed"] = libraries.allowed_modules(locked_sources)
        w["libraries"] = libraries.notebook_libraries(locked_sources)
        w["parts"] = libraries.part_tests([(_kind(c), _gid(c), bool(c.metadata.get("nbgrader", {}).get("grade")))
                                           for c in code])
    if w["released_nb"] is not None:
        edited, missing = edited_locked_cells(submitted, w["released_nb"])
        result.notes += [f"locked cell {gid} was edited; nbgrader graded the original" for gid in edited]
        result.notes += [f"cell {gid} was deleted; nbgrader put it back" for gid in missing]
    _, locked, tests = _cells(source)
    protected = defined_names([c.source for c in locked + tests]) | {"__attnlab_guard__"}
    # the grader's own lines in a test cell call __import__ first (execute.py): a student's shadow of it is hidden too
    ctx = StudentContext(protected=protected, test_builtins=used_builtins([c.source for c in tests]) | {"__import__"})
    # the student's code: the answer cells and any cell nbgrader does not manage (one the student added)
    written = [(_gid(c), c.source) for c in submitted.cells if c.cell_type == "code" and _kind(c) == "student"]
    # a scratch global that shadows a builtin the tests use (`max = scores.max()`) is put aside while test cells
    # run, unless a function of the student's reads that name (then the tests would see it: flagged as before)
    read_by_functions = builtins_used_by_functions([text for _, text in written])
    hidden = set()
    for gid, text in written:
        found = static_findings(gid, text, protected, ctx.test_builtins)
        for name in ctx.test_builtins - read_by_functions:
            if any(f.endswith(shadow_note(name)) for f in found):
                found = [f for f in found if not f.endswith(shadow_note(name))]
                hidden.add(name)
        if found:
            ctx.static[gid] = found
    ctx.hidden_builtins = sorted(hidden)
    result.notes += [f"the student's cells bind {name}, a builtin the tests use; it was put aside while the test "
                     "cells ran" for name in ctx.hidden_builtins]
    added = {_gid(c) for c in submitted.cells if c.cell_type == "code" and _kind(c) == "student"
             and not c.metadata.get("nbgrader", {}).get("solution")}
    for gid, reasons in libraries.scan(written, w["allowed"], added).items():
        if gid in w["parts"]:
            why = libraries.message(gid, reasons, w["libraries"])
            result.notes.append(why)
            ctx.library.update({test: why for test in w["parts"][gid]})
    CONTEXT.clear()
    CONTEXT[student] = ctx

    outcome = api.autograde(chapter, student, force=True, create=True)
    if not outcome["success"]:
        if os.environ.get("ATTNLAB_GRADING_DEBUG"):
            print(outcome.get("log"), outcome.get("error"), file=sys.stderr)
        result.status = "failed"
        result.reasons.append("nbgrader could not grade it: " + nbgrader_error(outcome))
        return result

    flagged = set(ctx.skipped_tests) | set(ctx.not_run)
    with Gradebook(w["db_url"], w["course_id"]) as gb:
        nb = gb.find_submission_notebook(Path(NOTEBOOK).stem, chapter, student)
        for grade in nb.grades:
            if grade.name in flagged:
                grade.needs_manual_grade = True
        gb.db.commit()
        result.parts = {g.name: Part(g.name, float(g.score or 0.0), float(g.max_score)) for g in nb.grades}
    result.score = sum(p.score for p in result.parts.values())
    result.max_score = sum(p.max_score for p in result.parts.values())

    if ctx.tampered:
        result.status = "flagged"
        result.reasons.append("modifies the grading machinery: " + "; ".join(dict.fromkeys(ctx.tampered)))
        if ctx.skipped_tests:
            result.reasons.append("not graded, for manual review: " + ", ".join(ctx.skipped_tests))
    if ctx.stopped:
        result.status = "flagged"
        result.reasons.append(ctx.stopped + (("; not run: " + ", ".join(ctx.not_run)) if ctx.not_run else ""))
    result.notes += ctx.crashed  # cells that crashed the kernel, replaced by an error (execute.py)
    result.notes += [f"cell {gid} hit the time limit of one cell and was interrupted" for gid in ctx.timed_out]
    result.notes += ctx.settings_changed  # torch's process-wide settings left changed by an answer (execute.py)
    if ctx.output_truncated:
        result.notes.append(f"output truncated: {ctx.output_truncated} bytes beyond the limit were dropped")

    graded = scratch / "autograded" / student / chapter
    if w["out_dir"] is not None and graded.is_dir():
        target = w["out_dir"] / student / chapter
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        if (graded / "timestamp.txt").is_file() and not (graded / "timestamp.txt").is_symlink():
            shutil.copyfile(graded / "timestamp.txt", target / "timestamp.txt")
        if (graded / NOTEBOOK).is_file() and not (graded / NOTEBOOK).is_symlink():
            # nbgrader's formgrader renders this notebook into the instructor's browser as it is: student HTML,
            # scripts and raw HTML in Markdown are cleaned first, as for the feedback (red team 16, F4)
            _write_clean(graded / NOTEBOOK, target / NOTEBOOK, source)
    shutil.rmtree(scratch / "autograded" / student, ignore_errors=True)
    shutil.rmtree(scratch / "submitted" / student, ignore_errors=True)
    return result


def _write_clean(graded: Path, target: Path, source) -> None:
    """``graded`` written to ``target`` with :func:`~attnlab.instructor.feedback.clean_graded_notebook` applied,
    the course's locked Markdown cells (those of the chapter's ``source``) left as nbgrader restored them."""
    import nbformat

    from .feedback import clean_graded_notebook

    trusted = [c.metadata["nbgrader"]["grade_id"] for c in source.cells if c.cell_type == "markdown"
               and c.metadata.get("nbgrader", {}).get("locked") and c.metadata["nbgrader"].get("grade_id")]
    nb = nbformat.read(graded, as_version=4)
    # the kernel's output is capped per notebook already (HardenedExecute): this keeps all of it, and its notice
    limit = int(_WORKER["limits"].output_bytes) + 10_000 if "limits" in _WORKER else 1_010_000
    nbformat.write(clean_graded_notebook(nb, trusted, output_chars=limit), target)


# --------------------------------------------------------------------------- the batch

def _short_temp_dir() -> str:
    """Where the kernels' socket files go: the temporary folder, unless its path is too long for them."""
    tmp = tempfile.gettempdir()
    return tmp if len(tmp) <= 40 else "/tmp"


def kernel_threads(workers: int) -> int:
    """The threads each of ``workers`` parallel kernels gets: its share of this machine's cores, and no more than the
    grader's own environment allows (``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` or ``OPENBLAS_NUM_THREADS``, where one
    is set). Hidden tests compute on small tensors: a second thread saves them little time, and torch's idle OpenMP
    threads spin between parallel regions (benchmarks/kernel_threads.py measures the CPU of chapter 1's hidden tests
    with 1 and with 2 threads). An instructor who sets ``OMP_NUM_THREADS=1`` gets one-thread kernels, and so does
    the test suite, which sets it to each test process's share of the cores."""
    from .sandbox import THREAD_ENV

    threads = max(1, len(os.sched_getaffinity(0)) // max(1, workers))
    caps = [int(v) for v in (os.environ.get(name, "") for name in THREAD_ENV) if v.isdigit() and int(v) > 0]
    return min([threads, *caps])


def _run_pool(root, chapter, db_url, limits, out_dir, config_file, workers, batch, isolation):
    """Yield ``(student, Result or None)`` as each finishes; None when the worker process died."""
    context = multiprocessing.get_context("spawn")
    workers = min(workers, len(batch))
    # the kernels share the cores: each gets its part, so parallel kernels do not oversubscribe them
    threads = kernel_threads(workers)
    # named after this process, so the next batch removes them if this one is killed (tempdirs.sweep)
    with tempdirs.folder("attnlab-grade-") as base, tempdirs.folder("attnlab-ipc-", _short_temp_dir()) as ipc, \
            ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_init,
                                initargs=(str(root), chapter, db_url, limits, str(out_dir) if out_dir else None,
                                          str(config_file), base, threads, isolation, ipc)) as pool:
        futures = {pool.submit(_grade_one, s, str(p), note): s for s, (p, note) in batch.items()}
        for future in as_completed(futures):
            student = futures[future]
            try:
                yield student, future.result()
            except BrokenProcessPool:
                yield student, None
            except SetupError:
                raise
            except Exception as err:  # one student's failure never stops the batch
                yield student, Result(student, "failed", reasons=[f"grading raised {type(err).__name__}: {err}"])


def grade(root: Path, chapter: str, submissions: dict[str, Path], db_url: str, *, workers: int = 1,
          limits: Limits | None = None, out_dir: Path | None = None, config_file: Path | None = None,
          progress=None) -> list[Result]:
    """Grade ``{student_id: notebook file or submitted folder}``; one :class:`Result` per student.

    The gradebook at ``db_url`` must already hold the assignment (``nbgrader generate_assignment``,
    done by ``attnlab-course release``). Autograded notebooks are copied to ``out_dir/<student>/
    <chapter>/`` when given. ``progress`` is called with each finished :class:`Result`.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    limits = limits or Limits()
    from .sandbox import probe_isolation

    isolation = probe_isolation(limits.isolation, limits.landlock)  # once per batch
    config_file = Path(config_file or Path(root) / "nbgrader_config.py")
    results, to_grade, hashes = check_submissions(submissions, limits)
    for r in results.values():
        if progress:
            progress(r)

    # First all together; a student whose process died (taking the pool with it) is graded again
    # alone, so that only the student who breaks a process twice is reported as failed.
    batches = [(workers, dict(to_grade))]
    retry: dict[str, tuple[Path, str]] = {}
    while batches:
        size, batch = batches.pop(0)
        for student, result in _run_pool(root, chapter, db_url, limits, out_dir, config_file, size, batch, isolation):
            if result is None and student not in retry:
                retry[student] = batch[student]
                batches.append((1, {student: batch[student]}))
                continue
            results[student] = result or Result(student, "failed", reasons=["the grading process died while grading it"])
            if progress:
                progress(results[student])

    check_unchanged(results, hashes)
    return [results[s] for s in submissions]


def check_unchanged(results: dict[str, Result], hashes: dict[str, tuple[Path, str]]) -> None:
    """Fail every student whose submitted file changed while it was graded."""
    for student, (path, digest) in hashes.items():
        if student in results and sha256(path) != digest:  # never expected: grading reads copies only
            results[student].status = "failed"
            results[student].reasons.append(f"{path} changed during grading")


def check_submissions(submissions: dict[str, Path], limits: Limits):
    """The checks before grading: ``(results of the students who cannot be graded, {student: (notebook,
    note)} of those who can, {student: (notebook, sha256)})``."""
    results: dict[str, Result] = {}
    to_grade: dict[str, tuple[Path, str]] = {}
    hashes: dict[str, tuple[Path, str]] = {}
    for student, path in submissions.items():
        path = Path(path)
        note = ""
        if path.is_dir():
            found, note = find_notebook(path)
            if found is None:
                results[student] = Result(student, "missing", reasons=[note])
                continue
            extra = extra_notebooks(path, found)
            note = "; ".join(n for n in (note, extra) if n)
            path = found
        elif not path.is_file():
            results[student] = Result(student, "missing", reasons=[f"no file {path}"])
            continue
        hashes[student] = (path, sha256(path))
        problem = check_notebook(path, limits)
        if problem:
            results[student] = Result(student, "invalid", reasons=[problem])
        else:
            to_grade[student] = (path, note)
    return results, to_grade, hashes
