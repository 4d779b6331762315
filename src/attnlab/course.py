"""Course tooling: turn the exercise sources in ``solutions/`` into student notebooks and grade them.

Everything goes through nbgrader's own API (:class:`nbgrader.apps.NbGraderAPI`). Each call works in
a scratch course directory, so it never touches the repository's gradebook, and nbgrader's
``--force`` (which deletes the whole release folder of an assignment) cannot reach ``chapters/``.

Command line (also ``python -m attnlab.course``)::

    attnlab-course generate            # every chapter
    attnlab-course generate 02-scaled-attention
    attnlab-course check               # fails if a committed student notebook is out of date
    attnlab-course bundle              # dist/attnlab-exercises.zip: every student notebook, no solutions

and the instructor's workflow, one command per step (see :mod:`attnlab.instructor`)::

    attnlab-course release [CHAPTER ...]          # gradebook + release/ + chapters/ + dist/attnlab-released.zip
                                                  # (every chapter released so far)
    attnlab-course collect CHAPTER DOWNLOAD.zip   # LMS download -> submitted/<student>/CHAPTER/
    attnlab-course autograde CHAPTER --workers 2  # hardened autograde, summary for every student
    attnlab-course feedback CHAPTER               # feedback/<student>/CHAPTER/exercises.html
    attnlab-course export --out grades.csv        # every student and chapter, with a status column
    attnlab-course doctor                         # versions, the course folder, kernel isolation

Every command works on the course folder named by ``--course DIR``, else ``$ATTNLAB_COURSE_ROOT``, else
the current folder, and refuses a folder without ``nbgrader_config.py`` and ``solutions/``.
Default output paths (``dist/…``, ``grades.csv``) are at the course root; an explicit ``--out`` is
relative to the current directory. ``--db URL`` (or ``$ATTNLAB_GRADEBOOK_URL``) selects the
gradebook; the default is SQLite in ``gradebook.db`` at the course root.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

NOTEBOOK = "exercises.ipynb"
# default outputs, relative to the course root (an explicit --out is relative to the current directory)
BUNDLE = "dist/attnlab-exercises.zip"    # `bundle`: every chapter's student notebook
RELEASED = "dist/attnlab-released.zip"   # `release`: every chapter released so far
GRADES = "grades.csv"                    # `export`


def repo_root(course: Path | str | None = None) -> Path:
    """The course folder: ``course`` (``--course DIR``), else ``$ATTNLAB_COURSE_ROOT``, else the current
    folder. It must hold ``nbgrader_config.py`` and ``solutions/``: nothing else is searched (not the
    parent folders, not the checkout the package was installed from), so a command never works on a
    course other than the one named."""
    env = os.environ.get("ATTNLAB_COURSE_ROOT")
    if course is not None:
        folder, origin = Path(course), "given with --course"
    elif env:
        folder, origin = Path(env), "from $ATTNLAB_COURSE_ROOT"
    else:
        folder, origin = Path.cwd(), "the current folder"
    missing = [name for name, ok in (("nbgrader_config.py", (folder / "nbgrader_config.py").is_file()),
                                     ("solutions/ folder", (folder / "solutions").is_dir())) if not ok]
    if missing:
        raise FileNotFoundError(
            f"{folder} ({origin}) is not an attnlab course folder: it has no {' and no '.join(missing)}; "
            "run the command in the course folder, or name it with --course DIR (or ATTNLAB_COURSE_ROOT)")
    return folder.resolve()


def chapters(root: Path | None = None) -> list[str]:
    """The chapter ids that have an exercise source, e.g. ``['02-scaled-attention']``."""
    root = root or repo_root()
    return sorted(p.parent.name for p in (root / "solutions").glob(f"*/{NOTEBOOK}"))


def _check_chapter(chapter: str, root: Path) -> Path:
    source = root / "solutions" / chapter / NOTEBOOK
    if not source.is_file():
        known = ", ".join(chapters(root)) or "none"
        raise ValueError(f"no exercise source {source}; known chapters: {known}")
    return source


def _api(course: Path, root: Path):
    from .instructor.grading import use_alembic_head

    use_alembic_head()
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    merged = Config()
    merged.merge(config)
    merged.CourseDirectory.root = str(course)
    merged.CourseDirectory.db_url = f"sqlite:///{course / 'gradebook.db'}"
    merged.CourseDirectory.source_directory = "source"
    merged.Exchange.root = str(course / "exchange")
    return NbGraderAPI(config=merged)


@contextmanager
def scratch_course(chapter: str, root: Path | None = None):
    """A temporary nbgrader course holding one chapter's source; yields ``(api, course_dir)``.

    The assignment is generated on entry, so its gradebook holds the hidden tests.
    """
    root = root or repo_root()
    source = _check_chapter(chapter, root)
    from attnlab.instructor import tempdirs

    with tempdirs.folder("attnlab-course-") as tmp:  # removed by a later run if this one is killed
        course = Path(tmp)
        (course / "source" / chapter).mkdir(parents=True)
        shutil.copy2(source, course / "source" / chapter / NOTEBOOK)
        api = _api(course, root)
        result = api.generate_assignment(chapter, force=True, create=True)
        if not result["success"]:
            raise RuntimeError(f"nbgrader could not generate {chapter}:\n{result['error'] or result['log']}")
        yield api, course


def _normalise(nb: dict) -> str:
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def generated_student_notebook(chapter: str, root: Path | None = None) -> str:
    """The student notebook nbgrader generates now from ``solutions/<chapter>``, as committed text."""
    with scratch_course(chapter, root) as (_api_, course):
        released = course / "release" / chapter / NOTEBOOK
        return _normalise(json.loads(released.read_text(encoding="utf-8")))


def sync_helpers(chapter: str, root: Path | None = None) -> bool:
    """Write the current ``grading_helpers`` cell (:mod:`attnlab.instructor.plain`) into the chapter's
    source notebook; returns True if the source changed."""
    from .instructor.plain import sync_helper_cell

    source = _check_chapter(chapter, root or repo_root())
    nb = json.loads(source.read_text(encoding="utf-8"))
    if not sync_helper_cell(nb):
        return False
    tmp = source.with_suffix(".ipynb.tmp")
    tmp.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(source)
    return True


def source_problems(chapter: str, root: Path | None = None) -> list[str]:
    """Why a chapter's source breaks the rules of hidden tests (empty if it does not): a missing or
    stale ``grading_helpers`` cell, or a student value compared without a plain-value helper."""
    from .instructor.plain import notebook_problems

    return notebook_problems(_check_chapter(chapter, root or repo_root()))


def generate(chapter: str, root: Path | None = None) -> Path:
    """Refresh the source's ``grading_helpers`` cell, then regenerate ``chapters/<chapter>/exercises.ipynb``
    from the source; returns the path."""
    root = root or repo_root()
    sync_helpers(chapter, root)
    text = generated_student_notebook(chapter, root)
    target = root / "chapters" / chapter / NOTEBOOK
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".ipynb.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    return target


BUNDLE_README = """attnlab exercises: one notebook per chapter.

1. Install Python 3.10 or newer, then PyTorch's CPU build and Jupyter:
     pip install torch --index-url https://download.pytorch.org/whl/cpu
     pip install jupyterlab
   (On Linux a plain "pip install torch" downloads a multi-GB CUDA build.)
   Chapter 7's Triton part also needs: pip install triton (Linux only; it runs on the CPU).
2. Open a chapter's notebook: jupyter lab NN-topic/exercises.ipynb
3. Write your code where a cell says YOUR CODE HERE, delete its raise NotImplementedError(),
   and run the test cell below each part. Grading adds hidden tests in the same cells.
4. Before handing in: Kernel > Restart & Run All, and check that no cell raises.
"""


def bundle(out: Path, root: Path | None = None) -> Path:
    """Write a zip of every committed student notebook (``chapters/*/exercises.ipynb``) and a README.

    Only student notebooks go in: nothing from ``solutions/``. Fails if a notebook is out of date.
    """
    root = root or repo_root()
    notebooks = []
    for chapter in chapters(root):
        student = root / "chapters" / chapter / NOTEBOOK
        if not student.is_file() or student.read_text(encoding="utf-8") != generated_student_notebook(chapter, root):
            raise RuntimeError(f"chapters/{chapter}/{NOTEBOOK} is out of date: run `attnlab-course generate {chapter}` first")
        notebooks.append((chapter, student.read_text(encoding="utf-8")))
    return write_bundle(out, notebooks)


def write_bundle(out: Path, notebooks: list[tuple[str, str]]) -> Path:
    """Write the student zip (README plus ``(chapter, notebook text)`` pairs), atomically."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("attnlab-exercises/README.txt", BUNDLE_README)
        for chapter, text in notebooks:
            zf.writestr(f"attnlab-exercises/{chapter}/{NOTEBOOK}", text)
    tmp.replace(out)
    return out


@dataclass
class GradedPart:
    grade_id: str
    score: float
    max_score: float


def autograde_notebooks(chapter: str, submissions: dict[str, Path], root: Path | None = None,
                        workers: int = 1, limits=None) -> dict[str, dict[str, GradedPart]]:
    """Autograde ``{student_id: notebook}`` for one chapter; returns ``{student: {grade_id: part}}``.

    Grading is the hardened grading of :func:`attnlab.instructor.grading.grade`, in ``workers``
    processes, against a scratch gradebook of a scratch course (the repository's own gradebook is
    never touched). Students whose notebook cannot be graded at all map to an empty dict.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    from .instructor.grading import grade

    root = root or repo_root()
    with scratch_course(chapter, root) as (_api_, course):
        results = grade(root, chapter, submissions, f"sqlite:///{course / 'gradebook.db'}", workers=workers,
                        limits=limits)
    return {r.student: {gid: GradedPart(gid, p.score, p.max_score) for gid, p in r.parts.items()} for r in results}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attnlab-course", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="regenerate the student notebooks in chapters/ from solutions/")
    gen.add_argument("chapter", nargs="*", help="chapter ids (default: all)")
    chk = sub.add_parser("check", help="exit 1 if a committed student notebook differs from a fresh generation, or a "
                         "source's hidden tests compare student values without the plain-value helpers")
    chk.add_argument("chapter", nargs="*", help="chapter ids (default: all)")
    bnd = sub.add_parser("bundle", help="write a zip of all student notebooks (no solutions) for students")
    bnd.add_argument("--out", type=Path, help=f"zip file to write (default: {BUNDLE} at the course root)")

    def db(p):
        p.add_argument("--db", metavar="URL", help="gradebook database URL, e.g. postgresql://user:pw@host/db "
                       "(default: $ATTNLAB_GRADEBOOK_URL, else nbgrader's CourseDirectory.db_url, which is "
                       "the SQLite gradebook.db at the course root unless configured)")

    rel = sub.add_parser("release", help="generate chapters into the gradebook and release/, refresh chapters/, "
                         "write the student zip")
    rel.add_argument("chapter", nargs="*", help="chapter ids (default: all)")
    rel.add_argument("--out", type=Path, help=f"zip of every released chapter to write (default: {RELEASED} at the "
                     "course root)")
    db(rel)
    col = sub.add_parser("collect", help="import an LMS download (zip or folder) into submitted/ (nbgrader zip_collect)")
    col.add_argument("chapter", help="chapter id")
    col.add_argument("download", type=Path, help="zip file or folder of notebooks whose names carry student ids")
    col.add_argument("--pattern", help="regular expression with groups student_id and file_id, matched against "
                     "each file's path (default: '<student>_<name>.ipynb')")
    ag = sub.add_parser("autograde", help="grade submitted notebooks with limits and tamper checks")
    ag.add_argument("chapter", help="chapter id")
    ag.add_argument("--student", action="append", help="grade only this student (repeatable)")
    ag.add_argument("--workers", type=int, default=1, help="parallel grading processes (default 1)")
    ag.add_argument("--cell-timeout", type=int, help="seconds per cell (default: nbgrader_config.py)")
    ag.add_argument("--notebook-timeout", type=int, default=600, help="seconds per notebook (default 600)")
    ag.add_argument("--memory-mb", type=int, default=4096, help="address-space cap of a kernel (default 4096)")
    ag.add_argument("--output-bytes", type=int, default=1_000_000, help="output kept per notebook (default 1000000)")
    where = ag.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS", help="grade on a Dask cluster: the scheduler's address "
                       "(tcp://HOST:8786) or its --scheduler-file; only this process writes the gradebook")
    where.add_argument("--cluster", metavar="local:N", help="grade on a Dask cluster of N worker processes started "
                       "on this machine")
    ag.add_argument("--regrade", action="store_true", help="with --scheduler/--cluster: grade again the students "
                    "an earlier run already put into the gradebook (default: they are skipped)")
    db(ag)
    fb = sub.add_parser("feedback", help="write HTML feedback for each autograded student")
    fb.add_argument("chapter", help="chapter id")
    fb.add_argument("--student", action="append", help="only this student (repeatable)")
    fb.add_argument("--outputs", choices=("sanitised", "none"), default="sanitised",
                    help="sanitised (default): show what student code printed, truncated, sanitised and with no "
                    "hidden-test text; none: show no output of student code, only each test's error name")
    db(fb)
    ex = sub.add_parser("export", help="write every grade of the gradebook as CSV")
    ex.add_argument("--out", type=Path, help=f"CSV file to write (default: {GRADES} at the course root)")
    db(ex)
    sub.add_parser("doctor", help="print the isolation grading kernels get here, the versions in use, and "
                   "whether the course folder is valid")
    for command in sub.choices.values():
        command.add_argument("--course", type=Path, metavar="DIR", help="the course folder (default: "
                             "$ATTNLAB_COURSE_ROOT, else the current folder; never searched for elsewhere)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "doctor":
        from .instructor.cli import doctor

        return doctor(args.course)
    try:
        root = repo_root(args.course)
        if isinstance(getattr(args, "chapter", None), str):
            selected = [args.chapter]
        else:
            selected = getattr(args, "chapter", None) or chapters(root)
        for chapter in selected:
            _check_chapter(chapter, root)
        if getattr(args, "workers", 1) < 1:
            raise ValueError(f"--workers must be at least 1, got {args.workers}")
        if args.command == "collect" and args.pattern is not None:
            from .instructor.workflow import check_pattern

            check_pattern(args.pattern)
    except (FileNotFoundError, ValueError) as err:
        print(f"attnlab-course: {err}", file=sys.stderr)
        return 2
    if hasattr(args, "out"):
        default = {"bundle": BUNDLE, "release": RELEASED, "export": GRADES}[args.command]
        args.out = root / default if args.out is None else args.out.absolute()
    if args.command in ("release", "collect", "autograde", "feedback", "export"):
        from .instructor.cli import run

        return run(args, root, selected)
    return _student_notebook_commands(args, root, selected)


def _student_notebook_commands(args, root: Path, selected: list[str]) -> int:
    if args.command == "bundle":
        try:
            path = bundle(args.out, root)
        except RuntimeError as err:
            print(f"attnlab-course: {err}", file=sys.stderr)
            return 1
        count = len(chapters(root))
        print(f"wrote {path} ({count} notebook{'' if count == 1 else 's'})")
        return 0
    if args.command == "generate":
        for chapter in selected:
            print(f"wrote {generate(chapter, root).relative_to(root)}")
        return 0
    stale = []
    for chapter in selected:
        committed = root / "chapters" / chapter / NOTEBOOK
        fresh = generated_student_notebook(chapter, root)
        if not committed.is_file() or committed.read_text(encoding="utf-8") != fresh:
            stale.append(chapter)
    for chapter in stale:
        print(f"chapters/{chapter}/{NOTEBOOK} is out of date: run `attnlab-course generate {chapter}`")
    broken = {chapter: source_problems(chapter, root) for chapter in selected}
    for chapter, problems in broken.items():
        for problem in problems:
            print(f"solutions/{chapter}/{NOTEBOOK}: {problem}")
    return 1 if stale or any(broken.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
