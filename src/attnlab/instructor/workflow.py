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

from . import tempdirs
from .grading import NOTEBOOK, Limits, Result, grade, nbgrader_error, use_alembic_head

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
    use_alembic_head()
    from nbgrader.apps import NbGraderAPI

    return NbGraderAPI(config=course_config(root, db_url))


# C0 and C1 control characters, DEL, and the bidirectional overrides and isolates: in a student's text (a note
# quoting a cell, a file name, an id) they would move the instructor's cursor, erase a line or reverse what
# follows (red team 16, F5)
_CONTROLS = "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"


def escape_controls(text) -> str:
    """``text`` with its control characters written as escapes (``\\x1b``, ``\\u202e``), for a terminal or a
    report: what a student wrote can never rewrite what the instructor sees."""
    import re

    return re.sub(_CONTROLS, lambda m: repr(m.group())[1:-1], str(text))


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")


def csv_cell(value):
    """A CSV cell a spreadsheet shows as text: a string that starts like a formula (``=``, ``+``, ``-``, ``@``,
    tab, CR) gets a leading ``'`` (so does one that starts with ``'``, so that :func:`csv_value` reads every
    cell back as it was); other values are left as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_value(text: str) -> str:
    """The value :func:`csv_cell` wrote."""
    return text[1:] if isinstance(text, str) and text.startswith("'") else text


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
class CollectLimits:
    """What ``collect`` reads from one download at most. Sizes are of the unpacked bytes, counted while
    they are read (a zip's own size fields are never trusted)."""

    entry_bytes: int = 64 * 2**20    # one file
    total_bytes: int = 2 * 2**30     # everything read from the download, kept or not
    entries: int = 20_000            # entries of a zip, or files of a folder


@dataclass
class CollectReport:
    collected: dict[str, list[str]] = field(default_factory=dict)   # student -> file names in submitted/
    unmatched: list[tuple[str, str]] = field(default_factory=list)  # (entry, why it was not collected)
    notes: list[str] = field(default_factory=list)                  # e.g. an earlier submission replaced
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


def student_id_problem(student: str) -> str | None:
    """Why ``student`` cannot name a folder under ``submitted/`` (None if it can)."""
    if not student.strip():
        return "the student id in the name is empty"
    if student in (".", ".."):
        return f"the student id {student!r} is not a folder name"
    if any(sep in student for sep in "/\\"):
        return f"the student id {student!r} contains a path separator"
    if student.startswith("."):
        return f"the student id {student!r} starts with a dot (a hidden folder)"
    import re

    if re.search(_CONTROLS, student):
        return f"the student id {student!r} contains control characters"
    if len(student) > 128:
        return f"the student id is {len(student)} characters long (at most 128)"
    return None


def _entry_name_problem(name: str) -> str | None:
    """Why a zip entry's name is refused: absolute, or leading out of the download."""
    import re

    if "\0" in name:
        return "the name contains a NUL byte"
    unified = name.replace("\\", "/")
    if unified.startswith("/") or re.match(r"^[A-Za-z]:", unified):
        return "absolute path (an archive entry must be a relative path)"
    if ".." in unified.split("/"):
        return "path leads outside the download (it contains '..')"
    return None


def _mib(n: int) -> str:
    return f"{n / 2**20:g} MiB"


@dataclass
class _Entry:
    name: str          # as reported: "<zip stem>/<entry>" or the path relative to the folder
    date: float        # zip date or file mtime (seconds since the epoch)
    opener: object     # () -> binary file object
    size_hint: int | None = None
    source: str = ""   # which part of the download it came from: a zip's path in a folder, "" for the rest


def _zip_entries(download: Path, report: CollectReport, limits: CollectLimits, prefix: str = "", source: str = ""):
    """The readable entries of a zip (named ``<prefix><zip stem>/<entry>``); every refused one goes to
    ``report.unmatched``."""
    import stat
    import time
    import zipfile

    try:
        with download.open("rb") as f:
            end = zipfile._EndRecData(f)  # the count in the end record, read before the directory is
    except OSError as err:
        raise RuntimeError(f"cannot read {download}: {err}") from None
    if end is None:
        raise RuntimeError(f"{download} is not a zip file: give the LMS download as a .zip or as a folder")
    if end[zipfile._ECD_ENTRIES_TOTAL] > limits.entries * 4:
        raise RuntimeError(f"{download} lists {end[zipfile._ECD_ENTRIES_TOTAL]} entries, far more than the "
                           f"{limits.entries} collect reads: it is not an LMS download")
    try:
        zf = zipfile.ZipFile(download)
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise RuntimeError(f"{download} is not a readable zip file ({err})") from None
    stem = prefix + download.stem
    infos = zf.infolist()
    files = [i for i in infos if not i.is_dir()]
    if len(files) > limits.entries:
        report.unmatched.append((f"{stem}/{files[limits.entries].filename}", (
            f"and the {len(files) - limits.entries} entries after it: the download has {len(files)} files, "
            f"collect reads the first {limits.entries}")))
        files = files[:limits.entries]
    for info in files:
        shown = f"{stem}/{info.filename}"
        why = _entry_name_problem(info.filename)
        mode = info.external_attr >> 16
        if why is None and stat.S_ISLNK(mode):
            why = "symbolic link (never followed)"
        elif why is None and mode and stat.S_IFMT(mode) and not stat.S_ISREG(mode):
            why = "not a regular file"
        elif why is None and info.flag_bits & 0x1:
            why = "encrypted entry"
        if why:
            report.unmatched.append((shown, why))
            continue
        try:
            date = time.mktime((*info.date_time, 0, 0, -1))
        except (OverflowError, ValueError):
            date = 0.0
        yield _Entry(shown, date, lambda info=info: zf.open(info), info.file_size, source)
    zf.close()


def _folder_entries(download: Path, report: CollectReport, limits: CollectLimits, owner=lambda name: None):
    """The regular files below a folder; symbolic links (files or folders) are reported, never followed. A zip
    is read as one of the LMS's zips unless ``owner`` (its path in the folder -> a student id or None) says that
    a student handed it in."""
    import stat

    count = 0
    for folder, dirs, files in os.walk(download, followlinks=False):
        dirs.sort()
        for name in sorted(dirs):
            path = Path(folder) / name
            if path.is_symlink():
                report.unmatched.append((str(path.relative_to(download)), "symbolic link to a folder (never followed)"))
        for name in sorted(files):
            path = Path(folder) / name
            shown = str(path.relative_to(download))
            try:
                info = path.lstat()
            except OSError as err:
                report.unmatched.append((shown, f"cannot be read ({err.strerror})"))
                continue
            if stat.S_ISLNK(info.st_mode):
                report.unmatched.append((shown, "symbolic link (never followed)"))
                continue
            if not stat.S_ISREG(info.st_mode):
                report.unmatched.append((shown, "not a regular file"))
                continue
            count += 1
            if count > limits.entries:
                report.unmatched.append((shown, f"and every file after it: collect reads at most {limits.entries} files"))
                return
            if name.endswith(".zip"):  # a folder of LMS zips: each is read as a zip (not zips inside those)
                student = owner(shown)
                if student is not None:
                    # a student's own zip, kept as is by the LMS: its entries' names would choose the student ids,
                    # and its dates the newest notebook (red team 16, F1)
                    report.unmatched.append((shown, (
                        f"a zip that {student} handed in: not unpacked (the names inside a student's zip could name "
                        f"any student); unzip it and collect the notebook in it on its own if it is {student}'s")))
                    continue
                parent = str(path.parent.relative_to(download))
                try:
                    yield from _zip_entries(path, report, limits, "" if parent == "." else parent + "/", shown)
                except RuntimeError:
                    report.unmatched.append((shown, "not a readable zip file"))
                continue

            def opener(path=path):
                # O_NOFOLLOW: a file swapped for a link after the check is not followed either
                fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    os.close(fd)
                    raise OSError("not a regular file")
                return os.fdopen(fd, "rb")

            yield _Entry(shown, info.st_mtime, opener, info.st_size)


def _copy_bounded(entry: _Entry, target: Path, budget: dict, limits: CollectLimits) -> str | None:
    """Stream ``entry`` into ``target``; the reason it was refused (too large, unreadable), else None."""
    import zipfile
    import zlib

    if entry.size_hint is not None and entry.size_hint > limits.entry_bytes:
        return f"larger than {_mib(limits.entry_bytes)} once unpacked (the download says {entry.size_hint} bytes)"
    written = 0
    try:
        with entry.opener() as src, target.open("wb") as out:
            while True:
                room = min(limits.entry_bytes + 1 - written, budget["left"] + 1)
                chunk = src.read(min(2**20, max(room, 1)))
                if not chunk:
                    return None
                written += len(chunk)
                budget["left"] -= len(chunk)
                if written > limits.entry_bytes:
                    return f"larger than {_mib(limits.entry_bytes)} once unpacked (reading stopped there)"
                if budget["left"] < 0:
                    return f"the download holds more than {_mib(limits.total_bytes)} in all (reading stopped there)"
                out.write(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError) as err:
        return f"damaged entry ({err})"
    except (OSError, NotImplementedError, RuntimeError) as err:
        return f"cannot be read ({err})"


def collect(root: Path, chapter: str, download: Path, pattern: str = DEFAULT_PATTERN,
            limits: CollectLimits | None = None) -> CollectReport:
    """Import an LMS download (a zip, or a folder of files) into ``submitted/<student>/<chapter>/``.

    File names must carry the student id (``pattern``, a regular expression with groups ``student_id``
    and ``file_id``, matched against ``<course>/downloaded/<chapter>/extracted/<entry>``). Every entry
    that cannot be collected safely is skipped and listed with its reason in ``report.unmatched``:
    absolute paths, ``..``, symbolic links (never followed), bad student ids, entries or downloads
    beyond ``limits``, damaged entries, and a zip in a folder download whose own name carries a student id
    (a student's hand-in, not the LMS's zip). Of several versions of one notebook of one student (``x.ipynb``,
    ``x-1.ipynb``, ``x (1).ipynb``) the newest (zip date, or modification time in a folder) is kept; of
    notebooks of different names all are kept, the released notebook's name (``exercises.ipynb``) as the one
    to grade (:func:`_choose`). A student id that two parts of the download (two zips, a zip and the folder's
    files) both name gets a note. Nothing is written outside ``submitted/`` but a temporary folder, removed at
    the end."""
    import re
    import tempfile

    check_pattern(pattern)
    limits = limits or CollectLimits()
    root = Path(root)
    download = Path(download)
    if not download.exists():
        raise FileNotFoundError(f"no such file or folder: {download}")
    report = CollectReport()
    matcher = re.compile(pattern)
    extracted = root / "downloaded" / chapter / "extracted"  # only matched against, never written
    tempdirs.sweep("attnlab-collect-")  # what a killed collect left (student files)
    staging = Path(tempdirs.make("attnlab-collect-"))
    budget = {"left": limits.total_bytes}
    candidates: dict[str, list[tuple[float, int, _Entry, str, Path, str | None]]] = {}
    try:
        def owner(name: str) -> str | None:
            """The student id a zip's path in the folder carries, read as the notebook of that name would be."""
            found = matcher.match(f"{extracted}/{name[:-len('.zip')]}.ipynb")
            student = found.group("student_id") if found else None
            return student if student and student_id_problem(student) is None else None

        entries = (_folder_entries(download, report, limits, owner) if download.is_dir()
                   else _zip_entries(download, report, limits))
        for index, entry in enumerate(entries):
            base = entry.name.replace("\\", "/").rsplit("/", 1)[-1]
            if entry.name.replace("\\", "/").startswith("__MACOSX/") or "/__MACOSX/" in entry.name or base.startswith("._"):
                report.unmatched.append((entry.name, "macOS metadata, not a notebook"))
                continue
            found = matcher.match(f"{extracted}/{entry.name}")
            if not found or found.group("student_id") is None or found.group("file_id") is None:
                why = "not a notebook" if not entry.name.endswith(".ipynb") else "no student id in the name (see --pattern)"
                report.unmatched.append((entry.name, why))
                continue
            student = found.group("student_id")
            why = student_id_problem(student)
            file_id = found.group("file_id").replace("\\", "/").rsplit("/", 1)[-1]
            if why is None and (file_id in ("", ".", "..") or not file_id.endswith(".ipynb")):
                why = f"the file name {file_id!r} is not a notebook name"
            if why:
                report.unmatched.append((entry.name, why))
                continue
            if budget["left"] < 0:
                report.unmatched.append((entry.name, f"not read: the download holds more than "
                                         f"{_mib(limits.total_bytes)} in all"))
                continue
            staged = staging / f"{index}.ipynb"
            why = _copy_bounded(entry, staged, budget, limits)
            if why:
                staged.unlink(missing_ok=True)
                report.unmatched.append((entry.name, why))
                continue
            stamp = found.groupdict().get("timestamp")
            candidates.setdefault(student, []).append((entry.date, index, entry, file_id, staged, stamp))

        submitted = root / "submitted"
        submitted.mkdir(exist_ok=True)
        for student in sorted(candidates):
            own = [c for c in candidates[student] if not c[2].source]
            if own and len(own) < len(candidates[student]):
                # the folder's own files are the LMS's; a zip in the folder may be a student's hand-in, whose
                # entries and dates the student chose (red team 16, F1: a zip that named another student's notebook
                # with a later date replaced it): the folder's own notebook wins, the others are listed
                for c in candidates[student]:
                    if c[2].source:
                        report.unmatched.append((c[2].name, f"a notebook of {student} in zip {c[2].source}: kept "
                                                 "the one among the download folder's own files"))
            kept, older = _choose(own or candidates[student])
            for version, newest in older:
                report.unmatched.append((version[2].name, f"an older notebook of {student}: kept the newest, "
                                         f"{newest[2].name} ({_when(newest[0])})"))
            sources = sorted({c[2].source for c in candidates[student]})
            if len(sources) > 1:
                report.notes.append(
                    f"check {student}: notebooks of this student id came from {len(sources)} different parts of the "
                    "download (" + ", ".join(f"zip {src}" if src else "the folder's own files" for src in sources) +
                    "): " + ", ".join(c[2].name for c in sorted(candidates[student], key=lambda c: c[1])) +
                    "; only one of them can be the student's own hand-in")
            date, _, entry, file_id, staged, stamp = kept[0]
            home = submitted / student
            target = home / chapter
            if home.is_symlink() or target.is_symlink():
                report.unmatched.append((entry.name, f"submitted/{student} is a symbolic link: remove it and collect again"))
                continue
            if target.resolve().parent.parent != submitted.resolve():
                report.unmatched.append((entry.name, f"submitted/{student}/{chapter} is not inside submitted/"))
                continue
            if target.exists():
                shutil.rmtree(target)
                report.notes.append(f"replaced the earlier submission of {student}")
            target.mkdir(parents=True)
            names = []
            main = _exercises_like(file_id)
            for position, (_, _, item, name, path, _) in enumerate(kept):
                if position == 0 and main and len(kept) > 1:
                    name = NOTEBOOK  # what autograde grades when the folder holds other notebooks too
                elif position > 0 and name.lower() == NOTEBOOK:
                    name = f"{_version(NOTEBOOK)} (older, not graded).ipynb"  # a newer exercises notebook is graded
                shutil.move(path, target / name)
                names.append(name)
            if stamp:
                (target / "timestamp.txt").write_text(stamp, encoding="utf-8")
            report.collected[student] = names
            if len(kept) > 1:
                others = ", ".join(f"{name} ({c[2].name})" for name, c in zip(names[1:], kept[1:]))
                if main:
                    report.notes.append(f"{student} handed in other notebooks too: kept {others} beside {names[0]} "
                                        f"({entry.name}), which autograde grades")
                else:
                    report.notes.append(f"{student} handed in {len(kept)} notebooks, none named {NOTEBOOK}: kept "
                                        f"{names[0]} ({entry.name}), {others}; autograde grades none of them until "
                                        f"the one to grade is renamed submitted/{student}/{chapter}/{NOTEBOOK}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return report


def _version(file_id: str) -> str:
    """The name a notebook is a version of: ``Exercises-1.ipynb``, ``exercises (2).ipynb`` -> ``exercises``."""
    import re

    found = re.match(r"^(?P<base>.*?)(?:-\d+|\s*\(\d+\))*\.ipynb$", file_id, re.IGNORECASE)
    return (found.group("base") if found else file_id).lower()


def _choose(candidates: list[tuple]) -> tuple[list[tuple], list[tuple[tuple, tuple]]]:
    """Which of one student's notebooks ``(date, index, entry, file_id, staged, stamp)`` to keep: ``(kept,
    [(older version, the version kept instead)])``. The newest of each name is kept (a name's versions: ``x.ipynb``,
    ``x-1.ipynb``, ``x (1).ipynb``, any case); the released notebook's name comes first, newest of those (a
    scratch notebook saved later is kept beside it, not graded: red team 16, F10), else the newest."""
    by_name: dict[str, list[tuple]] = {}
    for c in candidates:
        by_name.setdefault(_version(c[3]), []).append(c)
    kept, older = [], []
    for versions in by_name.values():
        ranked = sorted(versions, key=lambda c: (c[0], c[1]))
        kept.append(ranked[-1])
        older += [(c, ranked[-1]) for c in ranked[:-1]]
    kept.sort(key=lambda c: (_exercises_like(c[3]), c[0], c[1]), reverse=True)
    return kept, older


def _exercises_like(file_id: str) -> bool:
    """A name that says it is the exercises (``exercises.ipynb``, ``exercises_final.ipynb``, ``Exercises v2.ipynb``),
    not Jupyter's checkpoint copy: the newest of these is graded (red team 16, F10: an early, empty
    ``exercises.ipynb`` beside the work in ``exercises_final.ipynb`` was graded 0)."""
    name = _version(file_id)
    return name.startswith(_version(NOTEBOOK)) and not name.endswith("-checkpoint")


def _when(seconds: float) -> str:
    import time

    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds)) if seconds else "no date"


# --------------------------------------------------------------------------- autograde

def submitted_students(root: Path, chapter: str) -> list[str]:
    return sorted(p.parent.name for p in (Path(root) / "submitted").glob(f"*/{chapter}") if p.is_dir())


def check_students(root: Path, chapter: str, students: list[str] | None) -> tuple[list[str], list[tuple[str, str]]]:
    """The students to grade (``students``, default every collected one) and the ids that cannot be
    graded, with the reason: ``(good ids, [(bad id, why)])``. Repeated ids count once."""
    known = submitted_students(root, chapter)
    if not students:
        return known, []
    good, bad = [], []
    for student in dict.fromkeys(students):
        why = student_id_problem(student)
        if why is None and student not in known:
            why = (f"nothing collected for this student (no submitted/{student}/{chapter}/): check the id, "
                   "or run `attnlab-course collect` first")
        if why:
            bad.append((student, why))
        else:
            good.append(student)
    return good, bad


def autograde(root: Path, chapter: str, db_url: str, students: list[str] | None = None, workers: int = 1,
              limits: Limits | None = None, progress=None, client=None, regrade: bool = False,
              stats: dict | None = None) -> list[Result]:
    """Grade ``submitted/<student>/<chapter>/`` for all (or the given) students into the gradebook;
    autograded notebooks go to ``autograded/``. Writes ``reports/autograde-<chapter>.csv``. Given ids
    that cannot be graded (:func:`check_students`) are left out; a ValueError if none is left.

    With ``client`` (a ``distributed.Client``) every notebook is a task on that Dask cluster
    (:func:`attnlab.instructor.distributed.grade_on_cluster`): students already in the gradebook from an
    earlier run (``reports/autograde-<chapter>.jsonl``) are skipped unless ``regrade``."""
    use_alembic_head()
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url, course_id(root)) as gb:
        try:
            gb.find_assignment(chapter)
        except MissingEntry:
            raise RuntimeError(f"the gradebook has no assignment {chapter}: run `attnlab-course release {chapter}` first") from None
    students, bad = check_students(root, chapter, students)
    if bad and not students:
        raise ValueError("; ".join(f"{s}: {why}" for s, why in bad))
    folders = {s: Path(root) / "submitted" / s / chapter for s in students}
    if client is None:
        results = grade(Path(root), chapter, folders, db_url, workers=workers, limits=limits,
                        out_dir=Path(root) / "autograded", progress=progress)
    else:
        from .distributed import grade_on_cluster

        results = grade_on_cluster(Path(root), chapter, folders, db_url, client, limits=limits,
                                   out_dir=Path(root) / "autograded", progress=progress, regrade=regrade,
                                   ledger=Path(root) / "reports" / f"autograde-{chapter}.jsonl",
                                   course_id=course_id(root), stats=stats)
    write_report(Path(root) / "reports" / f"autograde-{chapter}.csv", results)
    return results


REPORT_COLUMNS = ["student", "status", "score", "max_score", "reasons", "notes", "seconds"]


def write_report(report: Path, results: list[Result]) -> Path:
    """Merge ``results`` into the summary CSV by student: a student graded now gets the new row, every
    other student keeps the row of an earlier run (so ``--student X`` does not drop the others)."""
    rows: dict[str, dict] = {}
    if report.is_file():
        rows = _read_csv(report)
    for r in results:
        rows[r.student] = {"student": r.student, "status": r.status, "score": "" if r.score is None else r.score,
                           "max_score": "" if r.max_score is None else r.max_score,
                           "reasons": escape_controls("; ".join(r.reasons)),
                           "notes": escape_controls("; ".join(r.notes)), "seconds": r.seconds}
    report.parent.mkdir(parents=True, exist_ok=True)
    tmp = report.with_suffix(".csv.tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=REPORT_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for student in sorted(rows):
            writer.writerow({key: csv_cell(value) for key, value in rows[student].items()})
    tmp.replace(report)
    return report


def _read_csv(path: Path) -> dict[str, dict]:
    """The rows of a CSV that :func:`write_report` wrote, by student, each cell as it was before :func:`csv_cell`."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = [{key: csv_value(value) for key, value in row.items()} for row in csv.DictReader(f)]
    return {row["student"]: row for row in rows if row.get("student")}


# --------------------------------------------------------------------------- feedback and export

@dataclass
class FeedbackOutcome:
    """What ``feedback`` did for one student: the page written (or None, with ``problem``), and notes
    on what was left out of it."""

    path: Path | None = None
    problem: str = ""
    notes: list[str] = field(default_factory=list)


def feedback(root: Path, chapter: str, db_url: str, students: list[str] | None = None,
             student_outputs: bool = True) -> dict[str, FeedbackOutcome]:
    """nbgrader's HTML feedback for each autograded student (:class:`FeedbackOutcome` by student).

    Hidden tests are removed, the tracebacks of test cells reduced to the error and its visible line,
    and student outputs truncated, sanitised and scanned for hidden-test text
    (:mod:`attnlab.instructor.feedback`). nbgrader writes each page into a scratch folder of the course;
    the page is checked once more (:func:`~attnlab.instructor.feedback.leaks`,
    :func:`~attnlab.instructor.feedback.unsafe_html`) and only then moved to ``feedback/``.
    ``student_outputs=False`` leaves out everything student code printed, displayed or put into an
    error message: the pages then show the code, the scores and the name of each test's error."""
    import tempfile

    use_alembic_head()
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.apps import NbGraderAPI

    from . import feedback as fb

    root = Path(root)
    with Gradebook(db_url, course_id(root)) as gb:
        try:
            gb.find_assignment(chapter)
        except MissingEntry:
            raise RuntimeError(f"the gradebook has no assignment {chapter}: run `attnlab-course release {chapter}` "
                               "and `attnlab-course autograde` first") from None
    config = course_config(root, db_url)
    config.GenerateFeedback.preprocessors = fb.feedback_preprocessors()
    lines = fb.chapter_hidden_lines(root, chapter)
    config.SafeOutputs.hidden_lines = lines
    config.SafeOutputs.student_outputs = student_outputs
    config.SafeOutputs.trusted_markdown = fb.locked_markdown_ids(root, chapter)
    tempdirs.sweep(".feedback-staging-", root)
    staging = Path(tempdirs.make(".feedback-staging-", root))
    config.CourseDirectory.feedback_directory = staging.name
    api = NbGraderAPI(config=config)
    graded = sorted(p.parent.name for p in (root / "autograded").glob(f"*/{chapter}") if p.is_dir())
    out: dict[str, FeedbackOutcome] = {}
    try:
        for student in students or graded:
            if student not in graded:
                out[student] = FeedbackOutcome(problem=(
                    f"no autograded notebook: run `attnlab-course autograde {chapter} --student {student}` first"))
                continue
            fb.REMOVED.pop(student, None)
            outcome = api.generate_feedback(chapter, student)
            page = staging / student / chapter / "exercises.html"
            final = root / "feedback" / student / chapter / "exercises.html"
            result = FeedbackOutcome(notes=list(dict.fromkeys(fb.REMOVED.pop(student, []))))
            out[student] = result
            if not (outcome["success"] and page.is_file()):
                result.problem = "nbgrader could not write feedback: " + nbgrader_error(outcome)
                continue
            text = page.read_text(encoding="utf-8")
            nb = _autograded_notebook(root, student, chapter)
            own = fb.own_lines(nb) if nb is not None else ""
            leaked = [line for line in fb.leaks(text, lines) if line not in own]
            unsafe = fb.unsafe_html(text)
            if leaked or unsafe:
                final.unlink(missing_ok=True)
                result.problem = ("not written: the page would show " +
                                  (f"{len(leaked)} line(s) of a hidden test" if leaked else "") +
                                  (" and " if leaked and unsafe else "") + "; ".join(unsafe) +
                                  " (please report this as a bug of attnlab's feedback)")
                continue
            final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(page, final)
            result.path = final
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def _autograded_notebook(root: Path, student: str, chapter: str):
    import nbformat

    try:
        return nbformat.read(root / "autograded" / student / chapter / NOTEBOOK, as_version=4)
    except Exception:  # unreadable: no student-written lines are excused from the scan
        return None


EXPORT_COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email", "status",
                  "raw_score", "late_submission_penalty", "score", "max_score", "reasons"]
SCORED = ("graded", "flagged")


def read_report(root: Path, chapter: str) -> dict[str, dict]:
    """The rows of ``reports/autograde-<chapter>.csv`` by student (empty if there is none)."""
    report = Path(root) / "reports" / f"autograde-{chapter}.csv"
    if not report.is_file():
        return {}
    return _read_csv(report)


def export_status(submission, row: dict | None) -> str:
    """One student's status for one chapter: ``graded``, ``flagged`` (parts wait for manual grading),
    ``failed``/``invalid``/``missing`` (the latest autograde gave no score, see its reasons) or
    ``not submitted`` (nothing collected, nothing graded)."""
    if row and row.get("status") not in (None, "", *SCORED):
        return row["status"]
    if submission is None:
        return "not submitted"
    return "flagged" if submission.needs_manual_grade else "graded"


def export(root: Path, db_url: str, out: Path) -> tuple[Path, dict[str, int]]:
    """Every student and chapter of the gradebook, plus the students the autograde reports name, as CSV
    with a ``status`` column (:func:`export_status`); returns the file and the count of each status.

    The columns are those of nbgrader's CSV export plus ``status`` and ``reasons``. Only a graded or
    flagged student has a score; a student who failed, was invalid, missing or did not submit has an
    empty score, never 0. Written atomically."""
    use_alembic_head()
    from nbgrader.api import Gradebook, MissingEntry

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows, counts = [], {}
    with Gradebook(db_url, course_id(root)) as gb:
        students = {s.id: s for s in gb.students}
        for assignment in gb.assignments:
            report = read_report(root, assignment.name)
            for student_id in sorted(set(students) | set(report)):
                student = students.get(student_id)
                try:
                    submission = gb.find_submission(assignment.name, student_id) if student else None
                except MissingEntry:
                    submission = None
                row = report.get(student_id)
                status = export_status(submission, row)
                counts[status] = counts.get(status, 0) + 1
                scored = submission is not None and status in SCORED
                rows.append({
                    "assignment": assignment.name, "duedate": assignment.duedate or "",
                    "timestamp": (submission.timestamp or "") if submission is not None else "",
                    "student_id": student_id, "last_name": (student.last_name or "") if student else "",
                    "first_name": (student.first_name or "") if student else "",
                    "email": (student.email or "") if student else "", "status": status,
                    "raw_score": submission.score if scored else "",
                    "late_submission_penalty": (submission.late_submission_penalty or 0.0) if scored else "",
                    "score": max(0.0, submission.score - (submission.late_submission_penalty or 0.0)) if scored else "",
                    "max_score": assignment.max_score,
                    "reasons": "; ".join(x for x in ((row or {}).get("reasons", ""), (row or {}).get("notes", "")) if x),
                })
    tmp = out.with_suffix(out.suffix + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=EXPORT_COLUMNS)
        writer.writeheader()
        # every text cell: no formula (a student id "=HYPERLINK(...)"), no control characters (red team 16, F1, F5)
        writer.writerows({key: csv_cell(escape_controls(value) if isinstance(value, str) else value)
                          for key, value in row.items()} for row in rows)
    tmp.replace(out)
    return out, counts
