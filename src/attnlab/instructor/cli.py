"""The instructor subcommands of ``attnlab-course``: release, collect, autograde, feedback, export."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from . import workflow
from .grading import Limits, Result
from .sandbox import isolation_report


def _err(message: str) -> None:
    print(f"attnlab-course: {workflow.escape_controls(message)}", file=sys.stderr)


def say(text: str = "") -> None:
    """Print one line for the instructor: what a student chose (an id, a file name, a quoted cell in a note) is in
    it, so its control characters are shown as escapes and cannot move the cursor or rewrite the line (red team 16,
    F5)."""
    print(workflow.escape_controls(text), flush=True)


def plural(n: int, word: str) -> str:
    """``1 student``, ``2 students``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary(results: list[Result]) -> str:
    """The closing summary: one line per student (score, or why there is none), then the counts."""
    lines = [f"{'student':<24} {'status':<8} {'score':>8}  reason / notes"]
    lines += [workflow.escape_controls(r.line()) for r in results]
    counts = Counter(r.status for r in results)
    lines.append(", ".join(f"{n} {status}" for status, n in sorted(counts.items())) + f" ({plural(len(results), 'student')})")
    return "\n".join(lines)


def run(args, root: Path, chapters: list[str]) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    db_url = getattr(args, "db", None) or workflow.default_db_url(root)
    try:
        if args.command == "release":
            path, in_zip = workflow.release(root, chapters, db_url, args.out)
            print(f"released {', '.join(chapters)} into the gradebook ({workflow.redact(db_url)}) and release/")
            print(f"wrote {path} ({plural(len(in_zip), 'student notebook')}: every chapter released so far, "
                  f"{', '.join(in_zip)}; no solutions or hidden tests)")
            return 0
        if args.command == "collect":
            report = workflow.collect(root, args.chapter, args.download, args.pattern or workflow.DEFAULT_PATTERN)
            for student, files in sorted(report.collected.items()):
                say(f"collected {student}: {', '.join(files)}")
            for name, why in report.unmatched:
                say(f"not collected: {name}: {why}")
            for note in report.notes:
                say(note)
            print(f"{plural(len(report.collected), 'student')} collected into submitted/, "
                  f"{plural(len(report.unmatched), 'file')} unmatched")
            return 0
        if args.command == "autograde":
            if getattr(args, "scheduler", None) or getattr(args, "cluster", None):
                return _autograde_on_cluster(args, root, db_url)
            limits = Limits(cell_timeout=args.cell_timeout, notebook_timeout=args.notebook_timeout,
                            memory_mb=args.memory_mb, output_bytes=args.output_bytes)
            for line in isolation_report(limits):
                print(line)
            students, bad = workflow.check_students(root, args.chapter, args.student)
            for student, why in bad:
                say(f"not graded: {student}: {why}")
            if args.student and not students:
                _err(f"none of the students given with --student can be graded (see above); "
                     f"the collected ones are in submitted/<student>/{args.chapter}/")
                return 1
            results = workflow.autograde(root, args.chapter, db_url, students, args.workers, limits,
                                         progress=lambda r: say(f"graded {r.student}: {r.status}"))
            print(summary(results))
            if bad:
                say(f"not graded: {', '.join(s for s, _ in bad)} (see above)")
            print(f"summary written to reports/autograde-{args.chapter}.csv")
            return 0
        if args.command == "feedback":
            return _feedback(args, root, db_url)
        if args.command == "export":
            path, counts = workflow.export(root, db_url, args.out)
            print(f"wrote {path}: " + (", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "no grades yet")
                  + " (a score only for graded and flagged students)")
            return 0
    except (RuntimeError, ValueError, FileNotFoundError) as err:
        _err(str(err))
        return 1
    except SQLAlchemyError as err:
        _err(f"cannot use the gradebook {workflow.redact(db_url)}: {str(err).splitlines()[0]}")
        return 1
    except ModuleNotFoundError as err:
        _err(f"the gradebook {workflow.redact(db_url)} needs the Python package {err.name!r}: "
             "install it (for PostgreSQL: pip install 'psycopg[binary]')")
        return 1
    raise AssertionError(args.command)


def _autograde_on_cluster(args, root: Path, db_url: str) -> int:
    """``autograde --scheduler ADDRESS`` / ``--cluster local:N``: every notebook a task on a Dask cluster,
    the gradebook written here only (:mod:`attnlab.instructor.distributed`)."""
    from .distributed import SKIPPED, cluster_report, connect

    if args.workers != 1:
        _err("--workers sets the local process pool; with --scheduler or --cluster the cluster's workers grade "
             "(for N local worker processes: --cluster local:N)")
        return 2
    limits = Limits(cell_timeout=args.cell_timeout, notebook_timeout=args.notebook_timeout,
                    memory_mb=args.memory_mb, output_bytes=args.output_bytes)
    students, bad = workflow.check_students(root, args.chapter, args.student)
    for student, why in bad:
        say(f"not graded: {student}: {why}")
    if args.student and not students:
        _err(f"none of the students given with --student can be graded (see above); "
             f"the collected ones are in submitted/<student>/{args.chapter}/")
        return 1
    stats: dict = {}
    with connect(args.scheduler or args.cluster) as client:
        for line in cluster_report(client):
            print(line)
        print(f"gradebook: {workflow.redact(db_url)}, written by this process only (workers get no database URL)")
        results = workflow.autograde(root, args.chapter, db_url, students, limits=limits, client=client,
                                     regrade=args.regrade or bool(args.student), stats=stats,
                                     progress=lambda r: say(f"graded {r.student}: {r.status}"))
    print(summary([r for r in results if SKIPPED not in r.notes]))
    if stats.get("skipped"):
        print(f"{plural(stats['skipped'], 'student')} already in the gradebook from an earlier run, not graded again "
              "(--regrade grades them again)")
    if stats.get("isolation"):
        names = {"bwrap": "bubblewrap", "landlock": "Landlock", "rlimits": "resource limits only"}
        print("kernel isolation on the workers: " + ", ".join(
            f"{names.get(tool, tool)} for {plural(n, 'notebook')}" for tool, n in stats["isolation"].items()))
        if set(stats["isolation"]) - {"bwrap"}:
            print("warning: some workers had no working bubblewrap (install it there: apt-get install bubblewrap); "
                  "their kernels ran with a weaker isolation (attnlab-course doctor on that worker says why)")
    if bad:
        say(f"not graded: {', '.join(s for s, _ in bad)} (see above)")
    print(f"summary written to reports/autograde-{args.chapter}.csv")
    return 0


def _feedback(args, root: Path, db_url: str) -> int:
    """Write the feedback pages. The exit status is 1 only when the command itself could not run; a
    student without a page is listed with the reason, as is what was left out of a page."""
    outcomes = workflow.feedback(root, args.chapter, db_url, args.student,
                                 student_outputs=getattr(args, "outputs", "sanitised") != "none")
    for student, outcome in outcomes.items():
        if outcome.path is not None:
            say(f"{student}: {outcome.path.relative_to(root)}")
        else:
            say(f"{student}: no feedback: {outcome.problem}")
        for note in outcome.notes:
            say(f"    {note}")
    written = sum(o.path is not None for o in outcomes.values())
    shortened = sum(bool(o.notes) for o in outcomes.values() if o.path is not None)
    print(f"feedback written for {plural(written, 'student')}"
          + (f", {plural(len(outcomes) - written, 'student')} without (see above)" if written < len(outcomes) else "")
          + (f"; {shortened} of the pages leave out some output (see above)" if shortened else ""))
    return 0


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def doctor(course) -> int:
    """``attnlab-course doctor``: versions, the course folder, and the isolation of grading kernels.
    Exit status 1 when the course folder is not valid or grading kernels cannot be started here."""
    import platform

    from ..course import chapters, repo_root

    print(f"python {platform.python_version()} ({sys.executable})")
    print("packages: " + ", ".join(f"{name} {_version(name)}" for name in
                                   ("attnlab", "nbgrader", "nbconvert", "nbclient", "ipykernel", "torch", "nh3")))
    status = 0
    try:
        root = repo_root(course)
        found = chapters(root)
        print(f"course folder: {root} (valid: nbgrader_config.py and {plural(len(found), 'chapter')} in solutions/)")
        try:
            print(f"gradebook: {workflow.redact(workflow.default_db_url(root))}")
        except Exception as err:  # a broken nbgrader_config.py
            print(f"gradebook: cannot be read from nbgrader_config.py ({type(err).__name__}: {err})")
            status = 1
    except FileNotFoundError as err:
        print(f"course folder: {err}")
        status = 1
    try:
        for line in isolation_report():
            print(line)
    except Exception as err:  # e.g. isolation="bwrap" required but unavailable
        print(f"kernel isolation: cannot be determined ({type(err).__name__}: {err})")
        status = 1
    return status
