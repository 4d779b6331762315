"""Autograding on a Dask cluster: every notebook a task, one gradebook written by the coordinator.

:func:`grade_on_cluster` is :func:`attnlab.instructor.grading.grade` with the worker processes of a
``dask.distributed`` cluster in place of the local process pool. What a worker does is the local
pool's code, unchanged: :func:`~attnlab.instructor.grading._setup_worker` once per worker process,
then :func:`~attnlab.instructor.grading._grade_one` per notebook (bubblewrap sandbox, limits, tamper
guard, crash survival). The differences are where the data lives:

* **Course files are shipped.** The chapter's source folder, its released notebook and
  ``nbgrader_config.py`` travel once to every worker (one task's result, which the scheduler can
  compute again if every worker holding it dies); no shared folder is needed, and a worker whose
  copy differs cannot exist. Each task carries one submission
  as bytes (and its ``timestamp.txt``).
* **Workers never see the gradebook.** A worker grades into a scratch SQLite gradebook of its own,
  made from the shipped source (``nbgrader generate_assignment``), and returns plain values: the
  :class:`~attnlab.instructor.grading.Result` as a dict, the score and manual-grading flag of every
  test cell, nbgrader's comments, and the autograded notebook (bytes) for feedback. Only this
  process (the coordinator) writes the course's gradebook (SQLite or PostgreSQL), so no worker needs
  database credentials. The scratch gradebook is checked against the course's (same cells, same
  checksums, same points) before anything is written.
* **A worker that dies** mid-notebook has that notebook sent again, at most :data:`RETRIES` times;
  after that the student is reported as a grading failure (status ``failed``, no score), never as
  0. The deaths are counted here, not by the scheduler: a task tells the scheduler when it starts
  (an event on the run's topic, acknowledged before the notebook runs), and a death counts against
  a student only if their notebook had started on that worker. A task that was only waiting on
  the worker (the scheduler places several on the worker that holds the course files) is sent
  again without a count, up to :data:`LOST_BEFORE_START` times; so one hostile notebook that kills
  every worker it runs on fails alone, and the notebooks queued beside it are graded.
* **Resuming.** Each finished student is appended to a ledger (``reports/autograde-<chapter>.jsonl``)
  after its grades are committed. A rerun skips every student whose grades are complete in the
  gradebook and whose ledger line has the same submission (SHA-256) and the same course files;
  ``regrade=True`` grades everyone again.

Results stream back as they finish (``progress``); at most a few tasks per worker thread are in
flight at a time, so 90,000 submissions never sit in the scheduler's memory at once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from . import tempdirs
from .grading import NOTEBOOK, Limits, Part, Result, SetupError, check_submissions, check_unchanged, kernel_threads

# a notebook whose worker dies while grading it is sent again at most this often; then it is a grading failure
RETRIES = 2
# a notebook whose worker dies before it started there (it was waiting behind another) is sent again at
# most this often; it is a sign of a cluster that keeps losing workers, not of the notebook
LOST_BEFORE_START = 10
TASK = "attnlab-grade"
# the topic (with the run's id) on which a grading task says that it started
STARTED = "attnlab-grade-started"
# the note of a student that an earlier run graded (the ledger and the gradebook agree)
SKIPPED = "not graded again: already in the gradebook from an earlier run (--regrade grades it again)"
# what the grading depends on: a worker whose copy of these differs refuses to grade
GRADER_MODULES = ("grading.py", "execute.py", "guard.py", "plain.py", "sandbox.py", "submission.py")
GRADER_PACKAGES = ("nbgrader", "nbconvert", "nbclient", "ipykernel", "jupyter_client", "torch", "nbformat")
SCORED = ("graded", "flagged")
# the Dask settings a grading worker needs: it starts a process of its own (so it may not be daemonic),
# and its sampling profiler is of no use while notebooks are graded
NO_DAEMON = "DASK_DISTRIBUTED__WORKER__DAEMON"
WORKER_ENV = {NO_DAEMON: "False", "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}


# --------------------------------------------------------------------------- what travels to the workers

def grader_fingerprint() -> dict:
    """The grading code's SHA-256 and the versions of the packages it runs on, as a plain dict."""
    from importlib.metadata import PackageNotFoundError, version

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in GRADER_MODULES:
        digest.update(name.encode() + b"\0" + (here / name).read_bytes())
    versions = {}
    for package in GRADER_PACKAGES:
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = "not installed"
    return {"code": digest.hexdigest(), **versions}


def course_payload(root: Path, chapter: str, config_file: Path, limits: Limits) -> dict:
    """The files a worker needs for ``chapter`` (bytes by relative path) with their digest, the
    grader's fingerprint and the limits. No database URL, no other chapter, no submission."""
    root = Path(root)
    source = root / "solutions" / chapter
    files = {"nbgrader_config.py": Path(config_file).read_bytes()}
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if path.is_file() and not path.is_symlink() and ".ipynb_checkpoints" not in rel.parts:
            files[f"solutions/{chapter}/{rel.as_posix()}"] = path.read_bytes()
    released = root / "chapters" / chapter / NOTEBOOK
    if released.is_file():
        files[f"chapters/{chapter}/{NOTEBOOK}"] = released.read_bytes()
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return {"chapter": chapter, "files": files, "digest": digest.hexdigest(), "limits": asdict(limits),
            "grader": grader_fingerprint(), "workers_per_host": {}}


# --------------------------------------------------------------------------- the worker side
#
# A Dask worker runs tasks in threads of its own, beside its event loop. The grading runs instead in
# one child process per worker, started with the local pool's own initializer (a process pool of one,
# as ``--workers`` makes): its main thread, its globals, its environment. (Grading in a worker thread
# breaks on CPython 3.11, whose AST builder keeps one recursion count per interpreter: a traceback
# formatted by the event loop while a notebook is parsed makes every later parse in that process fail.)

_STATE: dict = {}
_LOCK = threading.Lock()  # one grading at a time per worker process


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"process {os.getpid()}"


def _watch_parent(parent: int) -> None:
    """In the grading process: exit when the worker that started it (pid ``parent``) dies, also when
    it died while this process was still starting (its kernel's launcher then ends the sandbox, see
    :func:`attnlab.instructor.sandbox._run_and_relay`). The pid comes from the worker: read here, it
    would be that of init once the worker is gone, and the process would wait for work forever."""
    if os.getppid() != parent:
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _pool_init(parent: int, *args) -> None:
    _watch_parent(parent)
    from . import grading

    grading._worker_init(*args)


def _generate(chapter: str) -> str:
    """In the grading process: the chapter into its scratch gradebook; returns the assignment's fingerprint."""
    from nbgrader.api import Gradebook

    from . import grading

    w = grading._WORKER
    if "error" in w:
        raise SetupError(w["error"])
    outcome = w["api"].generate_assignment(chapter, force=True, create=True)
    if not outcome["success"]:
        raise SetupError("nbgrader could not generate the chapter: " + grading.nbgrader_error(outcome))
    with Gradebook(w["db_url"], w["course_id"]) as gb:
        return assignment_fingerprint(gb, chapter)


def _grade_in_child(student: str, notebook: str, note: str) -> dict:
    """In the grading process: the local pool's ``_grade_one``, then what the coordinator needs of the
    scratch gradebook and of the autograded folder, as plain values."""
    from nbgrader.api import Gradebook, MissingEntry

    from . import grading

    w = grading._WORKER
    result = grading._grade_one(student, notebook, note)
    chapter = w["chapter"]
    grades, comments = [], []
    with Gradebook(w["db_url"], w["course_id"]) as gb:
        if result.status in SCORED:
            nb = gb.find_submission_notebook(Path(NOTEBOOK).stem, chapter, student)
            grades = [{"name": g.name, "auto_score": g.auto_score, "max_score": float(g.max_score),
                       "needs_manual_grade": bool(g.needs_manual_grade)} for g in nb.grades]
            comments = [{"name": c.name, "auto_comment": c.auto_comment} for c in nb.comments]
        try:  # the scratch gradebook keeps no student
            gb.remove_submission(chapter, student)
        except MissingEntry:
            pass
    graded = {}
    out = w["out_dir"] / student
    for name in (NOTEBOOK, "timestamp.txt"):
        path = out / chapter / name
        if path.is_file() and not path.is_symlink():
            graded[name] = path.read_bytes()
    shutil.rmtree(out, ignore_errors=True)
    return {"result": asdict(result), "grades": grades, "comments": comments, "graded": graded}


def _prepare(payload: dict) -> dict:
    """Set this worker process up for the payload's chapter once: the course files written, the
    grading process started and its scratch gradebook made."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from . import grading
    from .sandbox import probe_isolation

    key = (payload["digest"], json.dumps(payload["limits"], sort_keys=True))
    if _STATE.get("key") == key:
        return _STATE
    started = time.perf_counter()
    here = _worker_address()
    mine = grader_fingerprint()
    if mine != payload["grader"]:
        diff = ", ".join(f"{k} {mine.get(k)} here, {v} on the coordinator"
                         for k, v in payload["grader"].items() if mine.get(k) != v)
        raise SetupError(f"the worker {here} grades with different code ({diff}): install the same attnlab "
                         "(and the same torch and nbgrader) on every worker and on the coordinator")
    if multiprocessing.current_process().daemon:
        raise SetupError(f"the worker {here} is a daemonic process, which may not start the grading process: start "
                         f"the workers with the environment variable {NO_DAEMON}=False (see the instructor guide, "
                         "'Grading on a cluster')")
    _cleanup()
    try:
        from distributed import get_worker

        local = get_worker().local_directory
    except (ImportError, ValueError):
        local = None
    # named after this process: a later setup removes them if this worker is killed (tempdirs.sweep)
    for prefix, where in (("attnlab-grade-", local), ("attnlab-ipc-", grading._short_temp_dir())):
        tempdirs.sweep(prefix, where)
    base = Path(tempdirs.make("attnlab-grade-", local))
    ipc = tempdirs.make("attnlab-ipc-", grading._short_temp_dir())
    _STATE.update(base=base, ipc=ipc)
    course = base / "course"
    for name, data in payload["files"].items():
        target = course / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    private = base / "private"  # the scratch gradebook and the autograded copies: never in the sandbox
    private.mkdir()
    db_url = f"sqlite:///{private / 'gradebook.db'}"
    limits = Limits(**payload["limits"])
    chapter = payload["chapter"]
    host = here.split("://")[-1].rsplit(":", 1)[0]
    share = payload.get("workers_per_host", {}).get(host)
    threads = kernel_threads(share) if share else 1
    try:
        isolation = probe_isolation(limits.isolation, limits.landlock)
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_pool_init,
                                   initargs=(os.getpid(), str(course), chapter, db_url, limits, str(private / "out"),
                                             str(course / "nbgrader_config.py"), str(base), threads, isolation, ipc))
        _STATE["pool"] = pool
        fingerprint = pool.submit(_generate, chapter).result()
    except Exception as err:
        _cleanup()
        if isinstance(err, SetupError):
            raise SetupError(f"the worker {here} could not set up grading: {err}") from None
        raise SetupError(f"the worker {here} could not set up grading: {type(err).__name__}: {err}") from None
    _STATE.update(key=key, chapter=chapter, isolation=isolation, fingerprint=fingerprint, threads=threads,
                  setup_s=time.perf_counter() - started)
    return _STATE


def _course_files(payload: dict) -> dict:
    return payload


def _cleanup() -> None:
    if _STATE.get("pool") is not None:
        _STATE["pool"].shutdown(wait=True, cancel_futures=True)
    for name in ("base", "ipc"):
        if _STATE.get(name):
            shutil.rmtree(_STATE[name], ignore_errors=True)
    _STATE.clear()


def _announce(topic: str, student: str, attempt: int) -> None:
    """Tell the scheduler, and wait until it has heard, that this worker starts ``student``'s attempt:
    from now on a death of this worker counts against the student (see :class:`Deaths`)."""
    from distributed import get_worker
    from distributed.utils import sync

    worker = get_worker()
    msg = {"student": student, "attempt": attempt, "pid": os.getpid(), "worker": worker.address}
    sync(worker.loop, worker.scheduler.log_event, topic=topic, msg=msg, callback_timeout=60)


def grade_task(payload: dict, student: str, notebook: bytes, timestamp: bytes | None, note: str,
               started: str | None = None, attempt: int = 1) -> dict:
    """One student's grading on a worker: the local pool's ``_grade_one`` on a copy of the bytes, in
    the worker's grading process, into its scratch gradebook; returns plain values (see the module's
    docstring). ``started``, the run's topic, is told when the task begins (:func:`_announce`). A
    grading process that dies is replaced and the notebook graded once more, alone, as the local pool
    does; a second death is a failure."""
    from concurrent.futures.process import BrokenProcessPool

    with _LOCK:
        if started is not None:
            _announce(started, student, attempt)
        for process_try in (1, 2):
            state = _prepare(payload)
            done = {"fingerprint": state["fingerprint"], "isolation": state["isolation"]["tool"],
                    "worker": _worker_address(), "threads": state["threads"], "setup_s": state.pop("setup_s", 0.0)}
            inbox = state["base"] / "inbox"
            shutil.rmtree(inbox, ignore_errors=True)
            inbox.mkdir()
            (inbox / NOTEBOOK).write_bytes(notebook)
            if timestamp is not None:
                (inbox / "timestamp.txt").write_bytes(timestamp)
            try:
                reply = state["pool"].submit(_grade_in_child, student, str(inbox / NOTEBOOK), note).result()
                break
            except BrokenProcessPool:
                _cleanup()
                if process_try == 2:
                    reply = {"result": asdict(Result(student, "failed", reasons=[
                        "the grading process died while grading it"])), "grades": [], "comments": [], "graded": {}}
            finally:
                shutil.rmtree(inbox, ignore_errors=True)
    return {**reply, **done}


# --------------------------------------------------------------------------- the coordinator side

def assignment_fingerprint(gb, chapter: str) -> str:
    """A digest of what nbgrader grades ``chapter`` by: every source cell's checksum and every test
    cell's points, as the gradebook holds them."""
    nb = gb.find_notebook(Path(NOTEBOOK).stem, chapter)
    cells = sorted((c.name, c.checksum or "") for c in nb.source_cells)
    points = sorted((g.name, float(g.max_score)) for g in nb.grade_cells)
    return hashlib.sha256(json.dumps([cells, points]).encode()).hexdigest()


def result_from_dict(data: dict) -> Result:
    data = dict(data)
    parts = {k: Part(**p) for k, p in data.pop("parts", {}).items()}
    return Result(**data, parts=parts)


class Deaths:
    """The coordinator's count of worker deaths, per student. The scheduler runs with
    ``allowed_failures`` 0, so every death of a worker reaches this process as a ``KilledWorker`` for
    each task that the worker held; :meth:`verdict` says what to do with it. A death counts against a
    student only if the attempt had started on that worker (its :func:`_announce` event was seen):
    after :data:`RETRIES` + 1 such deaths the student is a grading failure. A task that died before it
    started is sent again without a count, at most :data:`LOST_BEFORE_START` times."""

    def __init__(self, retries: int, lost_limit: int):
        self.retries, self.lost_limit = retries, lost_limit
        self.attempt: dict[str, int] = {}
        self.deaths: dict[str, int] = {}
        self.lost: dict[str, int] = {}
        self.started: dict[tuple[str, int], str] = {}  # (student, attempt) -> the worker it started on

    def next_attempt(self, student: str) -> int:
        self.attempt[student] = self.attempt.get(student, 0) + 1
        return self.attempt[student]

    def heard(self, msg: dict) -> None:
        """An :func:`_announce` message."""
        self.started[(msg["student"], int(msg["attempt"]))] = msg["worker"]

    def verdict(self, student: str, last_worker: str) -> Result | None:
        """After the worker holding ``student``'s current attempt died: ``None`` to send it again, or the
        failure to report."""
        worker = self.started.get((student, self.attempt[student]))
        if worker is not None:
            self.deaths[student] = self.deaths.get(student, 0) + 1
            if self.deaths[student] > self.retries:
                return Result(student, "failed", reasons=[
                    f"grading failed: the worker grading it died {self.deaths[student]} times (last {worker}); "
                    "no score: grade the student again"])
            return None
        self.lost[student] = self.lost.get(student, 0) + 1
        if self.lost[student] > self.lost_limit:
            return Result(student, "failed", reasons=[
                f"grading failed: {self.lost[student]} workers that held it died before it started (last "
                f"{last_worker}); the cluster keeps losing workers; no score: grade the student again"])
        return None


def failure(student: str, err: BaseException) -> Result:
    """The result of a task that ended without a result (other than a worker's death, see
    :class:`Deaths`): a grading failure, never a score."""
    if type(err).__name__ in ("CancelledError", "FutureCancelledError"):
        return Result(student, "failed", reasons=[f"grading failed: the cluster lost the task ({err}); no score: "
                                                  "grade the student again"])
    return Result(student, "failed", reasons=[f"grading raised {type(err).__name__}: {err}"])


def read_ledger(path: Path | None) -> dict[str, dict]:
    """The newest ledger line of every student (a line cut short by a stopped run is ignored)."""
    if path is None or not Path(path).is_file():
        return {}
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
            out[entry["student"]] = entry
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
    return out


def append_ledger(path: Path | None, entry: dict) -> None:
    if path is None:
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
        f.flush()
        os.fsync(f.fileno())


def complete_in_gradebook(gb, chapter: str) -> set[str]:
    """The students whose submission of ``chapter`` has an automatic score in every test cell."""
    done = set()
    for submission in gb.assignment_submissions(chapter):
        grades = [g for nb in submission.notebooks for g in nb.grades]
        if grades and all(g.auto_score is not None for g in grades):
            done.add(submission.student.id)
    return done


def graded_before(ledger: dict[str, dict], complete: set[str], hashes: dict[str, tuple[Path, str]],
                  course_digest: str) -> dict[str, Result]:
    """The students an earlier run graded: complete in the gradebook, with a ledger line of a scored
    result for the same submission and the same course files."""
    out = {}
    for student, (_, digest) in hashes.items():
        entry = ledger.get(student)
        if (student in complete and entry and entry.get("sha256") == digest and entry.get("course") == course_digest
                and entry["result"].get("status") in SCORED):
            result = result_from_dict(entry["result"])
            result.notes.append(SKIPPED)
            out[student] = result
    return out


def record(gb, chapter: str, student: str, reply: dict, timestamp, late) -> None:
    """Write one student's grades into the course's gradebook, as nbgrader's autograde would have."""
    gb.update_or_create_student(student)
    if timestamp:
        submission = gb.update_or_create_submission(chapter, student, timestamp=timestamp)
    else:
        submission = gb.update_or_create_submission(chapter, student)
    nb = gb.find_submission_notebook(Path(NOTEBOOK).stem, chapter, student)
    rows = {g.name: g for g in nb.grades}
    for grade in reply["grades"]:
        row = rows[grade["name"]]
        row.auto_score = grade["auto_score"]
        # as nbgrader's SaveAutoGrades: an earlier manual score keeps the cell up for review
        row.needs_manual_grade = grade["needs_manual_grade"] or row.manual_score is not None
    notes = {c.name: c for c in nb.comments}
    for comment in reply["comments"]:
        if comment["name"] in notes:
            notes[comment["name"]].auto_comment = comment["auto_comment"]
    gb.db.flush()
    # as nbgrader's AssignLatePenalties, with the course's due date and late-submission plugin
    nb.late_submission_penalty = None
    if submission.total_seconds_late > 0:
        penalty = late.plugin_inst.late_submission_penalty(student, nb.score, submission.total_seconds_late)
        if penalty is not None:
            nb.late_submission_penalty = late._check_late_penalty(nb, penalty)
    gb.db.commit()


def _write_graded(out_dir: Path | None, student: str, chapter: str, graded: dict[str, bytes]) -> None:
    if out_dir is None or not graded:
        return
    target = Path(out_dir) / student / chapter
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for name in (NOTEBOOK, "timestamp.txt"):
        if name in graded:
            (target / name).write_bytes(graded[name])


def _scheduler_settings(client, settings: dict) -> dict:
    """Set attributes of the scheduler for this run (``allowed_failures``: how often a task whose worker
    died is run again; ``WORKER_SATURATION``: tasks sent to a worker per thread); returns the old values."""
    def swap(dask_scheduler, settings):  # a closure: sent by value, the scheduler needs no attnlab
        old = {name: getattr(dask_scheduler, name) for name in settings}
        for name, value in settings.items():
            setattr(dask_scheduler, name, value)
        return old

    return client.run_on_scheduler(swap, settings=settings)


# every death of a worker reaches the coordinator, which counts it only against the notebook that was being
# graded (Deaths); and no more tasks on a one-thread worker than it runs, where the scheduler can hold them
SCHEDULER_SETTINGS = {"allowed_failures": 0, "WORKER_SATURATION": 1.0}


def grade_on_cluster(root: Path, chapter: str, submissions: dict[str, Path], db_url: str, client, *,
                     limits: Limits | None = None, out_dir: Path | None = None, config_file: Path | None = None,
                     progress=None, ledger: Path | None = None, regrade: bool = False,
                     course_id: str | None = None, stats: dict | None = None) -> list[Result]:
    """Grade ``{student_id: notebook file or submitted folder}`` on the Dask cluster of ``client``;
    one :class:`Result` per student, as :func:`~attnlab.instructor.grading.grade` returns.

    The gradebook at ``db_url`` must hold the assignment (``attnlab-course release``); only this
    process writes to it. ``ledger`` (a JSON-lines file) records each finished student, so that a
    rerun skips those already graded (unless ``regrade``). ``stats``, when given, is filled with what
    ran: ``isolation`` (notebooks per isolation tool on the workers), ``workers`` (notebooks per worker)
    ``skipped`` (students graded by an earlier run), ``coordinator_s`` (seconds this process spent on
    the finished tasks: gradebook, ledger, autograded copies) and ``setup_s`` (seconds each worker
    spent setting itself up)."""
    import warnings

    from distributed import KilledWorker, as_completed
    from nbgrader.api import Gradebook
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import AssignLatePenalties
    from sqlalchemy.exc import SAWarning

    from .workflow import course_config

    warnings.filterwarnings("ignore", category=SAWarning)  # raised inside nbgrader's own gradebook code
    stats = stats if stats is not None else {}
    stats.update(isolation={}, workers={}, skipped=0, coordinator_s=0.0, setup_s={})
    limits = limits or Limits()
    root = Path(root)
    config_file = Path(config_file or root / "nbgrader_config.py")
    config = course_config(root, db_url)
    course_id = course_id if course_id is not None else CourseDirectory(config=config).course_id
    results, to_grade, hashes = check_submissions(submissions, limits)
    for r in results.values():
        if progress:
            progress(r)
    payload = course_payload(root, chapter, config_file, limits)
    with Gradebook(db_url, course_id) as gb:
        expected = assignment_fingerprint(gb, chapter)
        if not regrade:
            before = graded_before(read_ledger(ledger), complete_in_gradebook(gb, chapter),
                                   {s: hashes[s] for s in to_grade}, payload["digest"])
            for student, result in before.items():
                results[student] = result
                del to_grade[student]
            stats["skipped"] = len(before)
    if not to_grade:
        check_unchanged(results, hashes)
        return [results[s] for s in submissions]

    late = AssignLatePenalties(config=config)
    late.init_plugin()
    cd = CourseDirectory(config=config)
    info = client.scheduler_info()["workers"].values()
    hosts: dict[str, int] = {}
    for w in info:
        hosts[w["host"]] = hosts.get(w["host"], 0) + 1
    payload["workers_per_host"] = hosts
    run = uuid.uuid4().hex[:8]
    queue = list(to_grade.items())
    students: dict = {}

    topic = f"{STARTED}-{run}"
    deaths = Deaths(RETRIES, LOST_BEFORE_START)

    def submit(student: str):
        path, note = to_grade[student]
        stamp = Path(path).parent / "timestamp.txt"
        attempt = deaths.next_attempt(student)
        key = (TASK, run, student, attempt)
        future = client.submit(grade_task, shipped, student, Path(path).read_bytes(),
                               stamp.read_bytes() if stamp.is_file() else None, note, topic, attempt,
                               key=key, pure=False)
        students[future.key] = student
        live[future.key] = future
        pending.add(future)

    def ship():
        # the course files as a task of their own (not scattered data): a worker fetches them once from a
        # peer, and if every worker that held them dies, the scheduler computes them again
        return client.submit(_course_files, payload, key=(TASK + "-course", run, uuid.uuid4().hex[:6]), pure=False)

    def hear():  # the start events the subscription has not delivered yet (it is asynchronous)
        for _, msg in client.get_events(topic):
            deaths.heard(msg)

    def window() -> int:
        return max(2, 2 * sum(client.nthreads().values()))

    live: dict = {}

    def fill(target: int) -> None:
        while queue and len(live) < target:
            submit(queue.pop(0)[0])

    pending = as_completed()
    finished = 0
    old_settings = shipped = None
    subscribed = False
    try:
        old_settings = _scheduler_settings(client, SCHEDULER_SETTINGS)
        client.subscribe_topic(topic, lambda event: deaths.heard(event[1]))
        subscribed = True
        shipped = ship()
        target = window()
        fill(target)
        with Gradebook(db_url, course_id) as gb:
            for future in pending:
                live.pop(future.key, None)
                student = students.pop(future.key)
                busy = time.perf_counter()
                reply = None
                try:
                    reply = future.result()
                except SetupError:
                    raise
                except KilledWorker as err:  # the worker holding it (or the course files it waited for) died
                    future.release()
                    hear()
                    result = deaths.verdict(student, err.last_worker.address)
                    if result is None:  # sent again; the course files too, if they were lost with it
                        if shipped.status == "error":
                            shipped.release()
                            shipped = ship()
                        submit(student)
                        continue
                except Exception as err:  # the task erred
                    result = failure(student, err)
                else:
                    result = result_from_dict(reply["result"])
                    if result.status in SCORED:
                        if reply["fingerprint"] != expected:
                            raise RuntimeError(
                                f"the gradebook's {chapter} differs from solutions/{chapter} (cells or points "
                                f"changed after it was released): run `attnlab-course release {chapter}` first")
                        path = to_grade[student][0]
                        record(gb, chapter, student, reply, cd.get_existing_timestamp(str(Path(path).parent)), late)
                    _write_graded(out_dir, student, chapter, reply["graded"])
                future.release()
                results[student] = result
                append_ledger(ledger, {"student": student, "sha256": hashes[student][1], "course": payload["digest"],
                                       "worker": reply["worker"] if reply else None,
                                       "isolation": reply["isolation"] if reply else None,
                                       "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                       "result": asdict(result)})
                stats["coordinator_s"] += time.perf_counter() - busy
                if reply:
                    stats["isolation"][reply["isolation"]] = stats["isolation"].get(reply["isolation"], 0) + 1
                    stats["workers"][reply["worker"]] = stats["workers"].get(reply["worker"], 0) + 1
                    stats["setup_s"][reply["worker"]] = stats["setup_s"].get(reply["worker"], 0.0) + reply.get("setup_s", 0.0)
                if progress:
                    progress(result)
                finished += 1
                if finished % 50 == 0:  # workers may have joined or left
                    target = window()
                fill(target)
    finally:
        for future in live.values():
            future.cancel()
        if subscribed:
            try:
                client.unsubscribe_topic(topic)
            except Exception:  # the scheduler is gone
                pass
        if shipped is not None:
            shipped.release()
        if old_settings is not None:
            try:
                _scheduler_settings(client, old_settings)
            except Exception:  # the scheduler is gone: nothing to restore
                pass
    check_unchanged(results, hashes)
    return [results[s] for s in submissions]


# --------------------------------------------------------------------------- connecting

@contextmanager
def connect(spec: str, *, timeout: float = 30):
    """A ``distributed.Client`` for ``local:N`` (a local cluster of N one-thread worker processes, started
    and stopped here), a scheduler address (``tcp://host:8786``) or a scheduler file (``*.json``)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise RuntimeError("grading on a cluster needs Dask: pip install 'attnlab[cluster]' "
                           "(or pip install 'dask[distributed]') on the coordinator and every worker") from None
    import logging

    cluster = None
    if spec.startswith("local:"):
        count = spec.split(":", 1)[1]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--cluster {spec!r}: write local:N with N the number of worker processes, e.g. local:2")
        import dask

        with dask.config.set({"distributed.worker.daemon": False, "distributed.worker.profile.enabled": False,
                              "distributed.scheduler.worker-saturation": 1.0}):
            cluster = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR)
        client = Client(cluster)
    else:
        try:
            if spec.endswith(".json") or Path(spec).is_file():
                if not Path(spec).is_file():
                    raise RuntimeError(f"no scheduler file {spec}: give the file that `dask scheduler "
                                       "--scheduler-file FILE` writes, or the scheduler's address tcp://HOST:8786")
                client = Client(scheduler_file=spec, timeout=timeout)
            else:
                client = Client(spec, timeout=timeout)
        except (OSError, TimeoutError) as err:
            raise RuntimeError(f"cannot reach the Dask scheduler at {spec} ({type(err).__name__}: {err}): start it with "
                               "`dask scheduler`, and give its address as tcp://HOST:8786") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def cluster_report(client) -> list[str]:
    """One line on the cluster: its workers and their threads."""
    workers = client.scheduler_info()["workers"]
    threads = sum(w["nthreads"] for w in workers.values())
    hosts = len({w["host"] for w in workers.values()})
    line = f"cluster: {client.scheduler_info()['address']}, {len(workers)} workers on {hosts} host(s), {threads} threads"
    lines = [line]
    if any(w["nthreads"] > 1 for w in workers.values()):
        lines.append("warning: some workers have more than one thread; a worker grades one notebook at a time, "
                     "so start workers with --nthreads 1 and as many --nworkers as the host has cores to spare")
    if not workers:
        lines.append("warning: the cluster has no workers yet; grading starts when they join")
    return lines
