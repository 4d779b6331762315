"""The instructor's steps, each one call into nbgrader on the course directory.

The course directory is the repository checkout (``nbgrader_config.py``, ``solutions/``,
``chapters/``). nbgrader's folders live beside them: ``release/``, ``downloaded/``,
``submitted/``, ``autograded/``, ``feedback/``, and the gradebook (``gradebook.db`` unless a
database URL is given, e.g. ``postgresql://grader:secret@localhost/attnlab``).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .grading import NOTEBOOK, Limits, Result, grade, nbgrader_error

# A file name "<student id>_<anything>.ipynb": the id is everything before the first underscore.
DEFAULT_PATTERN = r".*/(?P<student_id>[^/_]+)_(?P<file_id>[^/]+\.ipynb)$"
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")


def default_db_url(root: Path) -> str:
    """``$ATTNLAB_GRADEBOOK_URL`` if set, else ``nbgrader_config.py``'s ``CourseDirectory.db_url``,
    whose default is the SQLite gradebook ``<root>/gradebook.db``."""
    from nbgrader.coursedir import CourseDirectory

    return os.environ.get("ATTNLAB_GRADEBOOK_URL") or CourseDirectory(config=course_config(root)).db_url


def redact(db_url: str) -> str:
    """A database URL with its password hidden, for printing."""
    from sqlalchemy.engine import make_url

    return make_url(db_url).render_as_string(hide_password=True)


def course_config(root: Path, db_url: str | None = None):
    """nbgrader's configuration as its own commands would see it from the course directory: the
    ``nbgrader_config.py`` files of Jupyter's configuration path (``~/.jupyter`` …), then the course's."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = Config()
    for folder in [*reversed(jupyter_config_path()), str(root)]:
        if (Path(folder) / "nbgrader_config.py").is_file():
            config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(folder)).load_config())
    config.CourseDirectory.root = str(Path(root).resolve())
    if db_url:
        config.CourseDirectory.db_url = db_url
    return config


def course_id(root: Path) -> str:
    """The course id that ``nbgrader_config.py`` sets (nbgrader's default: empty)."""
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=course_config(root)).course_id


def course_api(root: Path, db_url: str):
    from nbgrader.apps import NbGraderAPI

    return NbGraderAPI(config=course_config(root, db_url))


def _normalise(nb: dict) -> str:
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- release

def release(root: Path, chapters: list[str], db_url: str, bundle_path: Path) -> tuple[Path, list[str]]:
    """Generate each chapter with nbgrader (gradebook + ``release/``), refresh ``chapters/<ch>/``
    from it, and write the zip of every chapter released so far; returns ``(zip, its chapters)``.

    The zip holds nbgrader's release output (``release/*/exercises.ipynb``: the chapters released now
    and by earlier runs), from which nbgrader removed solutions and hidden tests, so releasing chapter
    by chapter gives a zip that grows with each release. It is refused if an nbgrader marker line
    survived (a source with an unbalanced marker)."""
    api = course_api(root, db_url)
    for chapter in chapters:
        outcome = api.generate_assignment(chapter, force=True, create=True)
        if not outcome["success"]:
            raise RuntimeError(f"nbgrader could not generate {chapter}: {nbgrader_error(outcome)}")
        released = Path(root) / "release" / chapter / NOTEBOOK
        text = _normalise(json.loads(released.read_text(encoding="utf-8")))
        target = Path(root) / "chapters" / chapter / NOTEBOOK
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
    from ..course import chapters as known_chapters
    from ..course import write_bundle

    notebooks = [(chapter, _normalise(json.loads((Path(root) / "release" / chapter / NOTEBOOK).read_text(encoding="utf-8"))))
                 for chapter in known_chapters(root) if (Path(root) / "release" / chapter / NOTEBOOK).is_file()]
    leaks = [f"{chapter}: {m}" for chapter, text in notebooks for m in MARKERS if m in text]
    if leaks:
        raise RuntimeError("refusing to write a student bundle that holds " + ", ".join(leaks))
    return write_bundle(bundle_path, notebooks), [chapter for chapter, _ in notebooks]


# --------------------------------------------------------------------------- collect

@dataclass
class CollectReport:
    collected: dict[str, list[str]] = field(default_factory=dict)   # student -> file names in submitted/
    unmatched: list[tuple[str, str]] = field(default_factory=list)  # (file, why it was not collected)
    log: str = ""


def check_pattern(pattern: str) -> str:
    """``pattern`` if it is a regular expression with the named groups ``student_id`` and ``file_id``;
    else a ValueError that says what to write."""
    import re

    example = r"'.*/(?P<student_id>[^/_]+)_(?P<file_id>[^/]+\.ipynb)$'"
    try:
        groups = re.compile(pattern).groupindex
    except re.error as err:
        raise ValueError(f"--pattern {pattern!r} is not a valid regular expression ({err}); "
                         f"write a Python regular expression such as {example}") from None
    missing = [g for g in ("student_id", "file_id") if g not in groups]
    if missing:
        raise ValueError(f"--pattern {pattern!r} has no group named {' or '.join(missing)}; it needs both "
                         f"(?P<student_id>...) for the student's id and (?P<file_id>...) for the file's name, "
                         f"e.g. {example}")
    return pattern


def collect(root: Path, chapter: str, download: Path, pattern: str = DEFAULT_PATTERN) -> CollectReport:
    """Import an LMS download (a zip, or a folder of files) into ``submitted/`` with nbgrader's
    ``zip_collect``. File names must carry the student id (``pattern``, a regular expression with
    groups ``student_id`` and ``file_id``, matched against the whole path)."""
    from nbgrader.apps.zipcollectapp import ZipCollectApp
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.utils import capture_log

    check_pattern(pattern)
    download = Path(download)
    if not download.exists():
        raise FileNotFoundError(f"no such file or folder: {download}")
    archive = Path(root) / "downloaded" / chapter / "archive"
    shutil.rmtree(archive, ignore_errors=True)
    archive.mkdir(parents=True)
    if download.is_dir():
        for item in sorted(download.rglob("*")):
            if item.is_file():
                shutil.copy2(item, archive / item.name)
    else:
        shutil.copy2(download, archive / download.name)
    config = course_config(root)
    config.CourseDirectory.assignment_id = chapter
    config.ZipCollectApp.force = True
    config.FileNameCollectorPlugin.named_regexp = pattern
    config.ZipCollectApp.log_level = "ERROR"
    app = ZipCollectApp(config=config)
    app.coursedir = CourseDirectory(parent=app)
    outcome = capture_log(app)
    if not outcome["success"]:
        raise RuntimeError(f"nbgrader zip_collect failed:\n{outcome.get('error') or outcome.get('log')}")
    report = CollectReport(log=outcome.get("log", ""))
    extracted = Path(root) / "downloaded" / chapter / "extracted"
    for path in sorted(p for p in extracted.rglob("*") if p.is_file()):
        info = app.collector_plugin_inst.collect(str(path))
        if not info:
            why = ("not a notebook" if path.suffix != ".ipynb" else "no student id in the name (see --pattern)")
            report.unmatched.append((str(path.relative_to(extracted)), why))
        else:
            name = Path(info["file_id"]).name
            report.collected.setdefault(info["student_id"], []).append(name)
    return report


# --------------------------------------------------------------------------- autograde

def submitted_students(root: Path, chapter: str) -> list[str]:
    return sorted(p.parent.name for p in (Path(root) / "submitted").glob(f"*/{chapter}") if p.is_dir())


def autograde(root: Path, chapter: str, db_url: str, students: list[str] | None = None, workers: int = 1,
              limits: Limits | None = None, progress=None) -> list[Result]:
    """Grade ``submitted/<student>/<chapter>/`` for all (or the given) students into the gradebook;
    autograded notebooks go to ``autograded/``. Writes ``reports/autograde-<chapter>.csv``."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url, course_id(root)) as gb:
        try:
            gb.find_assignment(chapter)
        except MissingEntry:
            raise RuntimeError(f"the gradebook has no assignment {chapter}: run `attnlab-course release {chapter}` first") from None
    known = submitted_students(root, chapter)
    students = students or known
    unknown = [s for s in students if s not in known]
    if unknown:
        raise ValueError(f"no submitted/<student>/{chapter} for {', '.join(unknown)}; run `attnlab-course collect` first")
    folders = {s: Path(root) / "submitted" / s / chapter for s in students}
    results = grade(Path(root), chapter, folders, db_url, workers=workers, limits=limits,
                    out_dir=Path(root) / "autograded", progress=progress)
    write_report(Path(root) / "reports" / f"autograde-{chapter}.csv", results)
    return results


REPORT_COLUMNS = ["student", "status", "score", "max_score", "reasons", "notes", "seconds"]


def write_report(report: Path, results: list[Result]) -> Path:
    """Merge ``results`` into the summary CSV by student: a student graded now gets the new row, every
    other student keeps the row of an earlier run (so ``--student X`` does not drop the others)."""
    rows: dict[str, dict] = {}
    if report.is_file():
        with report.open(newline="", encoding="utf-8") as f:
            rows = {row["student"]: row for row in csv.DictReader(f) if row.get("student")}
    for r in results:
        rows[r.student] = {"student": r.student, "status": r.status, "score": "" if r.score is None else r.score,
                           "max_score": "" if r.max_score is None else r.max_score, "reasons": "; ".join(r.reasons),
                           "notes": "; ".join(r.notes), "seconds": r.seconds}
    report.parent.mkdir(parents=True, exist_ok=True)
    tmp = report.with_suffix(".csv.tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=REPORT_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for student in sorted(rows):
            writer.writerow(rows[student])
    tmp.replace(report)
    return report


# --------------------------------------------------------------------------- feedback and export

def feedback(root: Path, chapter: str, db_url: str, students: list[str] | None = None) -> dict[str, Path | str]:
    """nbgrader's HTML feedback for each autograded student: ``{student: html path or error}``.

    Hidden tests are removed and the tracebacks of test cells reduced to the error and its visible
    line (:mod:`attnlab.instructor.feedback`), so the feedback reveals no hidden test or answer."""
    from nbgrader.apps import NbGraderAPI

    from .feedback import feedback_preprocessors

    config = course_config(root, db_url)
    config.GenerateFeedback.preprocessors = feedback_preprocessors()
    api = NbGraderAPI(config=config)
    graded = sorted(p.parent.name for p in (Path(root) / "autograded").glob(f"*/{chapter}") if p.is_dir())
    out: dict[str, Path | str] = {}
    for student in students or graded:
        if student not in graded:
            out[student] = f"no autograded notebook: run `attnlab-course autograde {chapter} --student {student}` first"
            continue
        outcome = api.generate_feedback(chapter, student)
        html = Path(root) / "feedback" / student / chapter / "exercises.html"
        out[student] = html if outcome["success"] and html.is_file() else (
            "nbgrader could not write feedback: " + nbgrader_error(outcome))
    return out


def export(root: Path, db_url: str, out: Path) -> Path:
    """All grades of the gradebook as CSV, by nbgrader's CSV export plugin."""
    from nbgrader.api import Gradebook
    from nbgrader.plugins import CsvExportPlugin

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with Gradebook(db_url, course_id(root)) as gb:
        CsvExportPlugin(to=str(out)).export(gb)
    return out
