"""collect never aborts and never writes outside submitted/: every bad entry of an LMS download is
skipped with one line, every good one is collected (issue 17, point 5). No nbgrader run is needed."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from pathlib import Path

import pytest

from attnlab.instructor.workflow import CollectLimits, _copy_bounded, _Entry, collect, student_id_problem
from grading import ROOT
from instructor_course import CHAPTER, cli, copy_course

NOTEBOOK = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _zip(path: Path, entries: list[tuple], **kw) -> Path:
    """Write a zip of ``(name, data[, date_time[, unix mode]])`` entries, names kept exactly as given."""
    with zipfile.ZipFile(path, "w", **kw) as zf:
        for name, data, *rest in entries:
            info = zipfile.ZipInfo(name, date_time=rest[0] if rest else (2026, 1, 1, 12, 0, 0))
            if len(rest) > 1:
                info.external_attr = rest[1] << 16
            zf.writestr(info, data)
    return path


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    return root


def _why(report, name):
    return dict(report.unmatched)[name]


def test_bad_zip_entries_are_skipped_and_good_ones_collected(course, tmp_path):
    download = _zip(tmp_path / "lms.zip", [
        ("sub/alice_exercises.ipynb", NOTEBOOK),
        ("../x_exercises.ipynb", NOTEBOOK),
        ("sub/../../y_exercises.ipynb", NOTEBOOK),
        ("/abs_exercises.ipynb", NOTEBOOK),
        ("C:\\Users\\win_exercises.ipynb", NOTEBOOK),
        ("sub/link_exercises.ipynb", str(ROOT / "solutions" / CHAPTER / "exercises.ipynb"), (2026, 1, 1, 0, 0, 0), 0o120777),
        ("sub/.._exercises.ipynb", NOTEBOOK),
        ("__MACOSX/sub/._alice_exercises.ipynb", b"\0\5\26\7"),
        ("sub/bob_exercises.ipynb", NOTEBOOK),
    ])
    report = collect(course, CHAPTER, download)
    assert report.collected == {"alice": ["exercises.ipynb"], "bob": ["exercises.ipynb"]}
    assert _why(report, "lms/../x_exercises.ipynb") == "path leads outside the download (it contains '..')"
    assert _why(report, "lms/sub/../../y_exercises.ipynb") == "path leads outside the download (it contains '..')"
    assert _why(report, "lms//abs_exercises.ipynb") == "absolute path (an archive entry must be a relative path)"
    assert _why(report, "lms/C:\\Users\\win_exercises.ipynb") == "absolute path (an archive entry must be a relative path)"
    assert _why(report, "lms/sub/link_exercises.ipynb") == "symbolic link (never followed)"
    assert _why(report, "lms/sub/.._exercises.ipynb") == "the student id '..' is not a folder name"
    assert _why(report, "lms/__MACOSX/sub/._alice_exercises.ipynb") == "macOS metadata, not a notebook"
    assert len(report.unmatched) == 7
    assert _files(course) == {"submitted", "submitted/alice", f"submitted/alice/{CHAPTER}",
                              f"submitted/alice/{CHAPTER}/exercises.ipynb", "submitted/bob", f"submitted/bob/{CHAPTER}",
                              f"submitted/bob/{CHAPTER}/exercises.ipynb"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course", "lms.zip"]  # nothing beside the course either


@pytest.mark.parametrize("name, pattern, expected", [
    ("sub/.-exercises.ipynb", r".*/(?P<student_id>[^/]*)-(?P<file_id>[^/]+\.ipynb)$", "the student id '.' is not a folder name"),
    ("sub/..-exercises.ipynb", r".*/(?P<student_id>[^/]*)-(?P<file_id>[^/]+\.ipynb)$", "the student id '..' is not a folder name"),
    ("sub/-exercises.ipynb", r".*/(?P<student_id>[^/]*)-(?P<file_id>[^/]+\.ipynb)$", "the student id in the name is empty"),
    ("sub/a/b_exercises.ipynb", r".*?/sub/(?P<student_id>.+)_(?P<file_id>[^/_]+\.ipynb)$", "the student id 'a/b' contains a path separator"),
    ("sub/a\\b_exercises.ipynb", r".*?/sub/(?P<student_id>.+)_(?P<file_id>[^/_]+\.ipynb)$", "the student id 'a\\\\b' contains a path separator"),
    ("sub/.git_exercises.ipynb", r".*/(?P<student_id>[^/_]+)_(?P<file_id>[^/]+\.ipynb)$", "the student id '.git' starts with a dot (a hidden folder)"),
])
def test_unusable_student_ids_are_skipped(course, tmp_path, name, pattern, expected):
    download = _zip(tmp_path / "lms.zip", [(name, NOTEBOOK)])
    report = collect(course, CHAPTER, download, pattern)
    assert report.collected == {} and report.unmatched == [(f"lms/{name}", expected)]
    assert _files(course) == {"submitted"}  # nothing written, inside submitted/ or anywhere else
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course", "lms.zip"]


def test_student_id_rules():
    assert student_id_problem("jdoe") is None and student_id_problem("12345") is None
    assert student_id_problem("a\0b") == "the student id 'a\\x00b' contains control characters"
    assert student_id_problem("x" * 129) == "the student id is 129 characters long (at most 128)"


def test_a_repeated_student_keeps_the_newest_by_zip_date(course, tmp_path):
    download = _zip(tmp_path / "lms.zip", [
        ("sub/dave_exercises.ipynb", b'{"which": "new"}', (2026, 3, 2, 9, 0, 0)),
        ("sub/dave_exercises-1.ipynb", b'{"which": "old"}', (2026, 3, 1, 9, 0, 0)),
        ("sub/erin_exercises.ipynb", NOTEBOOK),
    ])
    report = collect(course, CHAPTER, download)
    assert report.collected == {"dave": ["exercises.ipynb"], "erin": ["exercises.ipynb"]}
    assert _why(report, "lms/sub/dave_exercises-1.ipynb") == (
        "an older notebook of dave: kept the newest, lms/sub/dave_exercises.ipynb (2026-03-02 09:00:00)")
    assert (course / "submitted" / "dave" / CHAPTER / "exercises.ipynb").read_bytes() == b'{"which": "new"}'
    assert sorted(p.name for p in (course / "submitted" / "dave" / CHAPTER).iterdir()) == ["exercises.ipynb"]
    # collecting again replaces the earlier submission and says so
    report = collect(course, CHAPTER, download)
    assert "replaced the earlier submission of dave" in report.notes


def test_oversized_entries_and_too_many_entries_are_skipped(course, tmp_path):
    download = _zip(tmp_path / "lms.zip", [(f"sub/s{i}_exercises.ipynb", NOTEBOOK) for i in range(5)]
                    + [("sub/big_exercises.ipynb", b"x" * 5000)])
    report = collect(course, CHAPTER, download, limits=CollectLimits(entry_bytes=1000, entries=100))
    assert _why(report, "lms/sub/big_exercises.ipynb") == "larger than 0.000953674 MiB once unpacked (the download says 5000 bytes)"
    assert sorted(report.collected) == [f"s{i}" for i in range(5)]
    report = collect(course, CHAPTER, download, limits=CollectLimits(entries=3))
    assert sorted(report.collected) == ["s0", "s1", "s2"]
    assert report.unmatched == [("lms/sub/s3_exercises.ipynb",
                                 "and the 3 entries after it: the download has 6 files, collect reads the first 3")]


def test_the_total_read_from_a_download_is_capped(course, tmp_path):
    download = _zip(tmp_path / "lms.zip", [(f"sub/s{i}_exercises.ipynb", b"y" * 1500) for i in range(3)])
    report = collect(course, CHAPTER, download, limits=CollectLimits(total_bytes=2000))
    assert list(report.collected) == ["s0"]
    assert _why(report, "lms/sub/s1_exercises.ipynb").startswith("the download holds more than")
    assert _why(report, "lms/sub/s2_exercises.ipynb").startswith("not read: the download holds more than")


class _Endless(io.RawIOBase):
    """A stream of zeros that never ends, whatever any header says."""

    def readable(self):
        return True

    def readinto(self, buffer):
        buffer[:] = bytes(len(buffer))
        return len(buffer)


def test_reading_is_bounded_by_the_bytes_read_not_by_a_size_field(tmp_path):
    entry = _Entry("endless", 0.0, lambda: io.BufferedReader(_Endless()), size_hint=10)  # the hint lies
    budget = {"left": 10**12}
    why = _copy_bounded(entry, tmp_path / "out", budget, CollectLimits(entry_bytes=3 * 2**20))
    assert why == "larger than 3 MiB once unpacked (reading stopped there)"
    assert (tmp_path / "out").stat().st_size <= 3 * 2**20


def _bomb(path: Path, name: str, claimed_size: int | None = None, chunks: int = 105) -> Path:
    """A zip with one deflated entry of ``chunks`` x 16 MiB of zeros (about 1.7 GB from 1.7 MB), built
    without compressing it all: after a full flush, each identical chunk deflates to identical bytes."""
    block = bytes(2**24)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    middle = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    last = comp.compress(block) + comp.flush()
    data = first + middle * (chunks - 2) + last
    crc = 0
    for _ in range(chunks):
        crc = zlib.crc32(block, crc)
    size = chunks * 2**24 if claimed_size is None else claimed_size
    raw = name.encode()
    dos_time, dos_date = 0, (2026 - 1980) << 9 | 1 << 5 | 1
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, dos_time, dos_date, crc, len(data), size, len(raw), 0) + raw
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, dos_time, dos_date, crc, len(data), size,
                          len(raw), 0, 0, 0, 0, 0, 0) + raw
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local) + len(data), 0)
    path.write_bytes(local + data + central + end)
    return path


MEASURE = """
import resource, sys, tracemalloc
from pathlib import Path
from attnlab.instructor.workflow import collect
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
report = collect(Path(sys.argv[1]), "ch", Path(sys.argv[2]))
peak = tracemalloc.get_traced_memory()[1]
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
print(peak, grown, report.collected, report.unmatched)
"""


@pytest.mark.parametrize("claimed, expected", [
    (None, "larger than 64 MiB once unpacked (the download says 1761607680 bytes)"),
    (1000, "damaged entry (Bad CRC-32 for file 'sub/bomb_exercises.ipynb')"),
])
def test_a_zip_bomb_takes_a_few_megabytes(tmp_path, claimed, expected):
    bomb = _bomb(tmp_path / "bomb.zip", "sub/bomb_exercises.ipynb", claimed)
    assert 1.5e6 < bomb.stat().st_size < 1.8e6
    with zipfile.ZipFile(bomb) as zf:
        assert zf.testzip() is None if claimed is None else True  # a valid zip when its sizes are true
    root = tmp_path / "course"
    root.mkdir()
    proc = subprocess.run([sys.executable, "-c", MEASURE, str(root), str(bomb)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    peak, grown, collected, unmatched = proc.stdout.split(" ", 3)
    assert int(peak) < 8 * 2**20, peak          # Python allocations during collect
    assert int(grown) < 32 * 2**20, grown       # growth of the process's peak resident memory
    assert collected == "{}" and expected in unmatched, unmatched


def test_a_folder_download_never_follows_links(course, tmp_path):
    download = tmp_path / "download"
    (download / "inner").mkdir(parents=True)
    (download / "frank_exercises.ipynb").write_bytes(NOTEBOOK)
    (download / "inner" / "gina_exercises.ipynb").write_bytes(NOTEBOOK)
    solutions = ROOT / "solutions" / CHAPTER / "exercises.ipynb"
    (download / "mallory_exercises.ipynb").symlink_to(solutions)
    (download / "linked").symlink_to(ROOT / "solutions" / CHAPTER)
    os.mkfifo(download / "pipe_exercises.ipynb")
    (download / "hank_exercises.ipynb").write_bytes(b'{"which": "old"}')
    (download / "inner" / "hank_exercises.ipynb").write_bytes(b'{"which": "new"}')
    old = time.time() - 3600
    os.utime(download / "hank_exercises.ipynb", (old, old))
    report = collect(course, CHAPTER, download)
    assert sorted(report.collected) == ["frank", "gina", "hank"]
    assert _why(report, "mallory_exercises.ipynb") == "symbolic link (never followed)"
    assert _why(report, "linked") == "symbolic link to a folder (never followed)"
    assert _why(report, "pipe_exercises.ipynb") == "not a regular file"
    assert _why(report, "hank_exercises.ipynb").startswith("an older notebook of hank: kept the newest, inner/hank_exercises.ipynb")
    assert (course / "submitted" / "hank" / CHAPTER / "exercises.ipynb").read_bytes() == b'{"which": "new"}'
    assert not (course / "submitted" / "mallory").exists()
    assert solutions.read_bytes() not in [p.read_bytes() for p in (course / "submitted").rglob("*.ipynb")]


def test_a_symlinked_student_folder_is_not_written_through(course, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (course / "submitted").mkdir()
    (course / "submitted" / "ivan").symlink_to(outside)
    report = collect(course, CHAPTER, _zip(tmp_path / "lms.zip", [("sub/ivan_exercises.ipynb", NOTEBOOK)]))
    assert report.collected == {}
    assert _why(report, "lms/sub/ivan_exercises.ipynb") == "submitted/ivan is a symbolic link: remove it and collect again"
    assert list(outside.iterdir()) == []


def test_the_command_reports_each_skipped_entry_and_succeeds(tmp_path, monkeypatch):
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    download = _zip(tmp_path / "lms.zip", [("sub/alice_exercises.ipynb", NOTEBOOK), ("../x_exercises.ipynb", NOTEBOOK),
                                           ("sub/.._exercises.ipynb", NOTEBOOK)])
    status, out, err = cli("collect", CHAPTER, str(download))
    assert status == 0, err
    assert "collected alice: exercises.ipynb" in out
    assert "not collected: lms/../x_exercises.ipynb: path leads outside the download (it contains '..')" in out
    assert "not collected: lms/sub/.._exercises.ipynb: the student id '..' is not a folder name" in out
    assert "1 student collected into submitted/, 2 files unmatched" in out
    assert not (root / CHAPTER).exists() and "Traceback" not in out + err
    (tmp_path / "notzip.zip").write_bytes(b"not a zip at all")
    status, _, err = cli("collect", CHAPTER, str(tmp_path / "notzip.zip"))
    assert status == 1 and "is not a zip file: give the LMS download as a .zip or as a folder" in err


def test_a_folder_of_zips_reads_each_zip(course, tmp_path):
    download = tmp_path / "download"
    (download / "week2").mkdir(parents=True)
    _zip(download / "week2" / "section-a.zip", [("alice_exercises.ipynb", NOTEBOOK), ("../x_exercises.ipynb", NOTEBOOK)])
    _zip(download / "section-b.zip", [("bob_exercises.ipynb", NOTEBOOK)])
    (download / "broken.zip").write_bytes(b"PK not really")
    report = collect(course, CHAPTER, download)
    assert sorted(report.collected) == ["alice", "bob"]
    assert _why(report, "week2/section-a/../x_exercises.ipynb") == "path leads outside the download (it contains '..')"
    assert _why(report, "broken.zip") == "not a readable zip file"


FORMULA_ID = '=HYPERLINK(CONCAT("https:",CHAR(47),CHAR(47),"evil.example"),"regrade request")'


def test_a_students_zip_in_a_folder_download_names_nobody(course, tmp_path):
    """Red team 16, F1: the LMS download unpacked into a folder, in which mallory handed in a zip (kept as is by
    the LMS) holding a blank bob_exercises.ipynb and a notebook for a formula id, dated 2107. Her zip is not
    unpacked (its name carries her id): bob keeps his own notebook, no formula id is collected."""
    download = tmp_path / "download"
    download.mkdir()
    (download / "bob_exercises.ipynb").write_bytes(b'{"which": "bob"}')
    _zip(download / "mallory_handin.zip", [("bob_exercises.ipynb", b'{"which": "blank"}', (2107, 12, 31, 23, 59, 58)),
                                           (f"{FORMULA_ID}_exercises.ipynb", NOTEBOOK, (2107, 12, 31, 23, 59, 58))])
    report = collect(course, CHAPTER, download)
    assert report.collected == {"bob": ["exercises.ipynb"]}
    assert (course / "submitted" / "bob" / CHAPTER / "exercises.ipynb").read_bytes() == b'{"which": "bob"}'
    assert _why(report, "mallory_handin.zip").startswith("a zip that mallory handed in: not unpacked")
    # the same under a Moodle-style folder that carries the id, with a pattern that reads the folder
    (download / "Mallory_42_file_").mkdir()
    _zip(download / "Mallory_42_file_" / "handin.zip", [("carol_exercises.ipynb", NOTEBOOK)])
    moodle = r".*/(?P<student_id>[^/_]+)_\d+_file_/(?P<file_id>[^/]+\.ipynb)$"
    report = collect(course, CHAPTER, download, moodle)
    assert report.collected == {} and _why(report, "Mallory_42_file_/handin.zip").startswith(
        "a zip that Mallory handed in: not unpacked")


def test_two_parts_of_a_download_naming_one_student_are_both_listed(course, tmp_path):
    """Two LMS zips of one folder (two sections) and the folder's own files: a student id that more than one of
    them names is a note that lists every file."""
    download = tmp_path / "download"
    download.mkdir()
    (download / "bob_exercises.ipynb").write_bytes(b'{"which": "folder"}')
    _zip(download / "section-a.zip", [("bob_exercises.ipynb", b'{"which": "zip"}', (2107, 1, 1, 0, 0, 0))])
    report = collect(course, CHAPTER, download)
    assert report.collected == {"bob": ["exercises.ipynb"]}
    # the folder's own file wins over a zip's, whatever the zip's dates say (a zip may be a student's hand-in)
    assert (course / "submitted" / "bob" / CHAPTER / "exercises.ipynb").read_bytes() == b'{"which": "folder"}'
    assert _why(report, "section-a/bob_exercises.ipynb").startswith("a notebook of bob in zip section-a.zip")
    note = next(n for n in report.notes if n.startswith("check bob:"))
    assert "2 different parts of the download (the folder's own files, zip section-a.zip)" in note
    assert "bob_exercises.ipynb, section-a/bob_exercises.ipynb" in note


def test_the_released_notebooks_name_wins_over_a_newer_scratch_notebook(course, tmp_path):
    """Red team 16, F10: exercises and a scratch notebook saved later: the exercises are kept to be graded (the
    newest of their versions, any case, -1 or (1) suffixes), the scratch notebook is kept beside them, not dropped."""
    download = _zip(tmp_path / "lms.zip", [
        ("sub/jdoe_Exercises (1).ipynb", b'{"which": "exercises new"}', (2026, 3, 2, 10, 0, 0)),
        ("sub/jdoe_exercises.ipynb", b'{"which": "exercises old"}', (2026, 3, 2, 9, 0, 0)),
        ("sub/jdoe_scratch.ipynb", b'{"which": "scratch"}', (2026, 3, 2, 11, 0, 0)),
        ("sub/jdoe_scratch-1.ipynb", b'{"which": "scratch old"}', (2026, 3, 2, 8, 0, 0)),
        ("sub/kim_notes.ipynb", b'{"which": "notes"}', (2026, 3, 2, 11, 0, 0)),
        ("sub/kim_scratch.ipynb", b'{"which": "scratch"}', (2026, 3, 2, 10, 0, 0)),
    ])
    report = collect(course, CHAPTER, download)
    assert report.collected == {"jdoe": ["exercises.ipynb", "scratch.ipynb"], "kim": ["notes.ipynb", "scratch.ipynb"]}
    folder = course / "submitted" / "jdoe" / CHAPTER
    assert (folder / "exercises.ipynb").read_bytes() == b'{"which": "exercises new"}'
    assert (folder / "scratch.ipynb").read_bytes() == b'{"which": "scratch"}'
    assert _why(report, "lms/sub/jdoe_exercises.ipynb").startswith("an older notebook of jdoe: kept the newest, "
                                                                    "lms/sub/jdoe_Exercises (1).ipynb")
    assert _why(report, "lms/sub/jdoe_scratch-1.ipynb").startswith("an older notebook of jdoe: kept the newest, "
                                                                    "lms/sub/jdoe_scratch.ipynb")
    assert ("jdoe handed in other notebooks too: kept scratch.ipynb (lms/sub/jdoe_scratch.ipynb) beside "
            "exercises.ipynb (lms/sub/jdoe_Exercises (1).ipynb), which autograde grades") in report.notes
    assert any(n.startswith("kim handed in 2 notebooks, none named exercises.ipynb: kept notes.ipynb") for n in report.notes)
    from attnlab.instructor.grading import find_notebook

    assert find_notebook(folder) == (folder / "exercises.ipynb", "")


def test_the_newest_notebook_named_as_the_exercises_is_graded(course, tmp_path):
    """Red team 16, F10 (second case): an early, empty exercises.ipynb beside the work saved later as
    exercises_final.ipynb: the newer one is graded (stored as exercises.ipynb), the older kept beside it."""
    download = _zip(tmp_path / "lms.zip", [
        ("sub/ann_exercises.ipynb", b'{"which": "early"}', (2026, 3, 2, 9, 0, 0)),
        ("sub/ann_exercises_final.ipynb", b'{"which": "final"}', (2026, 3, 2, 11, 0, 0)),
        ("sub/ann_scratch.ipynb", b'{"which": "scratch"}', (2026, 3, 2, 12, 0, 0)),
    ])
    report = collect(course, CHAPTER, download)
    folder = course / "submitted" / "ann" / CHAPTER
    assert (folder / "exercises.ipynb").read_bytes() == b'{"which": "final"}'
    assert (folder / "exercises (older, not graded).ipynb").read_bytes() == b'{"which": "early"}'
    assert (folder / "scratch.ipynb").read_bytes() == b'{"which": "scratch"}'
    assert any(n.startswith("ann handed in other notebooks too") and "lms/sub/ann_exercises_final.ipynb" in n
               for n in report.notes), report.notes


def test_what_a_student_named_is_printed_with_its_control_characters_escaped(tmp_path, monkeypatch):
    """Red team 16, F5: a file name with an ANSI sequence and a bidi override reaches the terminal escaped."""
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    download = tmp_path / "download"
    download.mkdir()
    (download / "eve_x\x1b[2K\x1b[1Gcollected alice\u202e.ipynb").write_bytes(NOTEBOOK)
    (download / "eve\x85_exercises.ipynb").write_bytes(NOTEBOOK)
    status, out, err = cli("collect", CHAPTER, str(download))
    assert status == 0, err
    assert "\x1b" not in out and "\u202e" not in out and "\x85" not in out
    assert "collected eve: x\\x1b[2K\\x1b[1Gcollected alice\\u202e.ipynb" in out
    assert "the student id 'eve\\x85' contains control characters" in out


def test_csv_cells_that_start_like_a_formula_are_text(tmp_path):
    """Red team 16, F1: a report or export cell starting with =, +, -, @, tab or CR gets a leading ' (one that
    starts with ' too), and the report reads back as written."""
    from attnlab.instructor.grading import Result
    from attnlab.instructor.workflow import csv_cell, read_report, write_report

    assert [csv_cell(v) for v in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "'x", "bob", 3.0)] == [
        "'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", "'\rx", "''x", "bob", 3.0]
    report = tmp_path / "reports" / f"autograde-{CHAPTER}.csv"
    write_report(report, [Result(FORMULA_ID, "graded", 3, 16, notes=["=cmd|' /C calc'!A0", "x\x1b[2Ky"]),
                          Result("bob", "invalid", reasons=["@bad"])])
    text = report.read_text(encoding="utf-8")
    assert not any(f"{sep}{quote}{start}" in text for sep in "\n," for quote in ('', '"') for start in "=@")
    assert "\x1b" not in text
    rows = read_report(tmp_path, CHAPTER)
    assert sorted(rows) == sorted(["bob", FORMULA_ID])
    assert rows[FORMULA_ID]["notes"] == "=cmd|' /C calc'!A0; x\\x1b[2Ky" and rows["bob"]["reasons"] == "@bad"
    write_report(report, [Result("bob", "graded", 16, 16)])  # merged again: the other row is kept as it was
    assert read_report(tmp_path, CHAPTER)[FORMULA_ID]["notes"] == "=cmd|' /C calc'!A0; x\\x1b[2Ky"
