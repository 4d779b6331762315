"""The instructor's side of issue 17, point 6: the course folder is named, never guessed; bad
``--student`` ids are reported and the rest graded; tampered nbgrader metadata gets a plain reason
and is repaired; ``export`` has a status column and no 0 for an ungraded student; ``doctor``.

Pure tests build notebooks from the committed chapter (grade ids taken from it, not written here);
the slow ones grade one small batch of chapter 2 once per module.
"""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import pytest

from attnlab.instructor.submission import metadata_problems, repair_file, repair_metadata, unrun_shell, unrun_shell_cells
from attnlab.instructor.workflow import check_students, export, write_report
from grading import ROOT, write_submission
from instructor_course import CHAPTER, cli, copy_course, summary_rows

RELEASED = ROOT / "chapters" / CHAPTER / "exercises.ipynb"


def _released() -> dict:
    return json.loads(RELEASED.read_text(encoding="utf-8"))


def _ids(nb) -> tuple[str, str, int, int]:
    """The first test cell's and the first answer cell's grade ids, and their indices."""
    test = next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade")
                and not c["metadata"]["nbgrader"].get("solution"))
    answer = next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("solution"))
    return (nb["cells"][test]["metadata"]["nbgrader"]["grade_id"], nb["cells"][answer]["metadata"]["nbgrader"]["grade_id"],
            test, answer)


def _submission(tmp_path, edit=None) -> dict:
    nb = json.loads(write_submission(CHAPTER, tmp_path / "s.ipynb").read_text(encoding="utf-8"))
    if edit:
        edit(nb)
    return nb


def _points(nb):
    test_id, _, test, _ = _ids(nb)
    nb["cells"][test]["metadata"]["nbgrader"]["points"] = 100


def _duplicate(nb):
    _, _, _, answer = _ids(nb)
    twin = copy.deepcopy(nb["cells"][answer])
    twin["id"] = "pasted-copy"
    twin["source"] = "# a copy of my answer\n" + "".join(twin["source"])
    nb["cells"].insert(answer + 1, twin)


def _no_grade_id(nb):
    _, _, _, answer = _ids(nb)
    del nb["cells"][answer]["metadata"]["nbgrader"]["grade_id"]


def _renamed(nb):
    _, _, test, _ = _ids(nb)
    nb["cells"][test]["metadata"]["nbgrader"]["grade_id"] = "my_own_name"


def _checksum(nb):
    _, _, test, _ = _ids(nb)
    nb["cells"][test]["metadata"]["nbgrader"]["checksum"] = "0" * 32


def _lost(nb):
    _, _, _, answer = _ids(nb)
    del nb["cells"][answer]["metadata"]["nbgrader"]


def _unlocked(nb):
    _, _, test, _ = _ids(nb)
    nb["cells"][test]["metadata"]["nbgrader"].update(locked=False, solution=True)


TAMPERING = {"points": _points, "duplicate": _duplicate, "nogradeid": _no_grade_id, "renamed": _renamed,
             "checksum": _checksum, "lost": _lost, "unlocked": _unlocked}


def _expected(kind: str) -> list[str]:
    test_id, answer_id, test, answer = _ids(_released())
    points = _released()["cells"][test]["metadata"]["nbgrader"]["points"]
    return {
        "points": [f"cell {test_id}: points changed from {points!r} to 100"],
        "duplicate": [f"2 cells (cells {answer + 1}, {answer + 2}) carry the grade id {answer_id!r} (a copied cell?)"],
        "nogradeid": [f"cell {answer_id} has no grade id"],
        "renamed": [f"cell {test_id} was renamed to 'my_own_name'"],
        "checksum": [f"cell {test_id}: its nbgrader checksum was changed"],
        "lost": [f"cell {answer_id} lost its nbgrader metadata (it is an answer cell of the assignment)"],
        "unlocked": [f"cell {test_id} is marked as a manually graded answer cell; the assignment has it as a test cell"],
    }[kind]


def test_an_untouched_submission_has_no_metadata_problem(tmp_path):
    assert metadata_problems(_submission(tmp_path), _released()) == []
    nb = _submission(tmp_path)
    assert repair_metadata(nb, _released()) == (nb, [])


@pytest.mark.parametrize("kind", list(TAMPERING))
def test_tampered_metadata_gets_a_plain_reason_and_a_repair(tmp_path, kind):
    nb = _submission(tmp_path, TAMPERING[kind])
    assert metadata_problems(nb, _released()) == _expected(kind)
    repaired, notes = repair_metadata(nb, _released())
    assert metadata_problems(repaired, _released()) == []
    assert notes[:-1] == [f"changed nbgrader metadata: {p}" for p in _expected(kind)]
    assert notes[-1].startswith("the nbgrader metadata of every cell was restored from the released notebook")
    # every released nbgrader cell is there once, with its released metadata
    released = {c["metadata"]["nbgrader"]["grade_id"]: c["metadata"]["nbgrader"] for c in _released()["cells"]
                if c["metadata"].get("nbgrader")}
    got = [c["metadata"]["nbgrader"] for c in repaired["cells"] if c["metadata"].get("nbgrader")]
    assert sorted(m["grade_id"] for m in got) == sorted(released) and all(m == released[m["grade_id"]] for m in got)


def test_a_pasted_copy_of_an_answer_cell_is_graded_as_ordinary_code(tmp_path):
    repaired, notes = repair_metadata(_submission(tmp_path, _duplicate), _released())
    pasted = next(c for c in repaired["cells"] if c.get("id") == "pasted-copy")
    assert "nbgrader" not in pasted["metadata"]
    assert notes[-1].endswith("(1 extra cell graded as ordinary code)")


def test_repair_file_rewrites_only_a_tampered_copy(tmp_path):
    good = tmp_path / "good.ipynb"
    good.write_text(json.dumps(_submission(tmp_path)), encoding="utf-8")
    before = good.read_bytes()
    assert repair_file(good, tmp_path / "absent.ipynb", RELEASED) == [] and good.read_bytes() == before
    bad = tmp_path / "bad.ipynb"
    bad.write_text(json.dumps(_submission(tmp_path, _points)), encoding="utf-8")
    assert repair_file(bad, RELEASED) == [f"changed nbgrader metadata: {_expected('points')[0]}",
                                          "the nbgrader metadata of every cell was restored from the released notebook "
                                          "before grading"]
    assert metadata_problems(json.loads(bad.read_text(encoding="utf-8")), _released()) == []


SHELL = {  # source -> (what is graded, the lines not run)
    "!pip install torch\nimport torch\n": ("pass  # not run when graded: !pip install torch\nimport torch\n",
                                           ["!pip install torch"]),
    "%pip install -q numpy": ("pass  # not run when graded: %pip install -q numpy", ["%pip install -q numpy"]),
    "if True:\n    !nvidia-smi\nx = 1": ("if True:\n    pass  # not run when graded: !nvidia-smi\nx = 1", ["!nvidia-smi"]),
    "%%bash\nls\npwd": ("pass  # not run when graded: %%bash\n# ls\n# pwd\n", ["%%bash"]),
    "s = '!x'\n%conda install x": ("s = '!x'\npass  # not run when graded: %conda install x", ["%conda install x"]),
    "%load_ext autoreload\n%autoreload 2\n%config InlineBackend.figure_format = 'retina'\nimport torch": (
        "pass  # not run when graded: %load_ext autoreload\npass  # not run when graded: %autoreload 2\n"
        "pass  # not run when graded: %config InlineBackend.figure_format = 'retina'\nimport torch",
        ["%load_ext autoreload", "%autoreload 2", "%config InlineBackend.figure_format = 'retina'"]),
    "%%html\n<b>done</b>": ("pass  # not run when graded: %%html\n# <b>done</b>\n", ["%%html"]),
    "%debug\nx = 1": ("pass  # not run when graded: %debug\nx = 1", ["%debug"]),
    # shell output assigned to names: an empty list, as from a command that printed nothing
    "files = !ls\nprint(files)": ("files = []  # not run when graded: files = !ls\nprint(files)", ["files = !ls"]),
    "for _ in range(1):\n    out = %sx nvidia-smi -L": (
        "for _ in range(1):\n    out = []  # not run when graded: out = %sx nvidia-smi -L", ["out = %sx nvidia-smi -L"]),
    "gpu = !nvidia-smi  # é": ("gpu = []  # not run when graded: gpu = !nvidia-smi  # é", ["gpu = !nvidia-smi  # é"]),
    # left as they are: a string, other magics, a magic that runs Python
    'x = """\n!not a shell\n"""': ('x = """\n!not a shell\n"""', []),
    "%time y = 1\n%matplotlib inline": ("%time y = 1\n%matplotlib inline", []),
    "t = %timeit -o sum(range(3))": ("t = %timeit -o sum(range(3))", []),
    "def f(:\n    !ls": ("def f(:\n    !ls", []),
}


@pytest.mark.parametrize("source", list(SHELL))
def test_shell_and_install_lines_are_not_run_when_graded(source):
    assert unrun_shell(source) == SHELL[source]


# --------------------------------------------------------------------------- the course folder

def test_a_folder_without_a_course_is_refused_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTNLAB_COURSE_ROOT", raising=False)
    monkeypatch.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    gradebook_before = (ROOT / "gradebook.db").stat().st_mtime_ns if (ROOT / "gradebook.db").exists() else None
    for command in (["export"], ["autograde", CHAPTER], ["feedback", CHAPTER], ["release"], ["check"]):
        status, out, err = cli(*command)
        assert status == 2, (command, out, err)
        assert f"{empty} (the current folder) is not an attnlab course folder: it has no nbgrader_config.py and no " \
               "solutions/ folder; run the command in the course folder, or name it with --course DIR" in err, err
    assert list(empty.iterdir()) == []
    assert ((ROOT / "gradebook.db").stat().st_mtime_ns if (ROOT / "gradebook.db").exists() else None) == gradebook_before


def test_a_subfolder_of_the_checkout_is_not_a_course(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTNLAB_COURSE_ROOT", raising=False)
    monkeypatch.chdir(ROOT / "chapters")
    status, _, err = cli("export")
    assert status == 2 and "(the current folder) is not an attnlab course folder" in err


def test_course_names_the_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTNLAB_COURSE_ROOT", raising=False)
    monkeypatch.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    root = copy_course(tmp_path / "course")
    monkeypatch.chdir(tmp_path)
    status, out, err = cli("export", "--course", str(root))
    assert status == 0, err
    assert (root / "grades.csv").is_file() and (root / "gradebook.db").is_file() and not (tmp_path / "grades.csv").exists()
    status, _, err = cli("export", "--course", str(tmp_path / "nowhere"))
    assert status == 2 and "(given with --course) is not an attnlab course folder" in err


def test_doctor_reports_versions_course_and_isolation(tmp_path, monkeypatch):
    monkeypatch.delenv("ATTNLAB_COURSE_ROOT", raising=False)
    root = copy_course(tmp_path / "course")
    status, out, err = cli("doctor", "--course", str(root))
    assert status == 0, out + err
    from importlib.metadata import version

    assert f"nbgrader {version('nbgrader')}" in out and f"nh3 {version('nh3')}" in out
    assert f"course folder: {root.resolve()} (valid: nbgrader_config.py and 1 chapter in solutions/)" in out
    assert "kernel isolation: " in out and "kernel limits: " in out
    status, out, _ = cli("doctor", "--course", str(tmp_path))
    assert status == 1 and "is not an attnlab course folder" in out


# --------------------------------------------------------------------------- students, export

def test_bad_student_ids_are_reported_and_the_rest_kept(tmp_path):
    for student in ("alice", "bob"):
        (tmp_path / "submitted" / student / CHAPTER).mkdir(parents=True)
    good, bad = check_students(tmp_path, CHAPTER, ["alice", "..", "nobody", "alice", "a/b"])
    assert good == ["alice"]
    assert bad == [("..", "the student id '..' is not a folder name"),
                   ("nobody", f"nothing collected for this student (no submitted/nobody/{CHAPTER}/): check the id, "
                              "or run `attnlab-course collect` first"),
                   ("a/b", "the student id 'a/b' contains a path separator")]
    assert check_students(tmp_path, CHAPTER, None) == (["alice", "bob"], [])


def test_autograde_with_only_bad_ids_grades_nothing_and_says_why(tmp_path, monkeypatch):
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    status, out, err = cli("autograde", CHAPTER, "--student", "..", "--student", "nobody")
    assert status == 1
    assert "not graded: ..: the student id '..' is not a folder name" in out
    assert "not graded: nobody: nothing collected for this student" in out
    assert "none of the students given with --student can be graded" in err


def test_export_has_a_status_column_and_no_zero_for_the_ungraded(tmp_path, monkeypatch):
    from nbgrader.api import Gradebook

    root = copy_course(tmp_path / "course")
    db = f"sqlite:///{root / 'gradebook.db'}"
    with Gradebook(db, "attnlab") as gb:
        gb.add_assignment(CHAPTER)
        for student in ("alice", "bob", "dave"):
            gb.add_student(student)
        gb.add_submission(CHAPTER, "alice")
        gb.add_submission(CHAPTER, "bob")  # nbgrader keeps a record for a notebook it could not grade
    from attnlab.instructor.grading import Result

    write_report(root / "reports" / f"autograde-{CHAPTER}.csv", [
        Result("alice", "graded", 0, 0), Result("bob", "failed", reasons=["nbgrader could not grade it: X"]),
        Result("carol", "invalid", reasons=["carol_exercises.ipynb is empty (0 bytes)"])])
    path, counts = export(root, db, root / "grades.csv")
    with path.open(encoding="utf-8") as f:
        rows = {r["student_id"]: r for r in csv.DictReader(f)}
    assert {s: (r["status"], r["score"]) for s, r in rows.items()} == {
        "alice": ("graded", "0.0"), "bob": ("failed", ""), "carol": ("invalid", ""), "dave": ("not submitted", "")}
    assert rows["carol"]["reasons"] == "carol_exercises.ipynb is empty (0 bytes)"
    assert counts == {"graded": 1, "failed": 1, "invalid": 1, "not submitted": 1}
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    status, out, _ = cli("export")
    assert status == 0 and "1 failed, 1 graded, 1 invalid, 1 not submitted" in out


# --------------------------------------------------------------------------- end to end (slow)

@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("experience")
    root = copy_course(tmp / "course")
    mp = pytest.MonkeyPatch()
    mp.setenv("ATTNLAB_COURSE_ROOT", str(root))
    mp.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    try:
        assert cli("release")[0] == 0
        for kind, edit in TAMPERING.items():
            nb = _submission(tmp, edit)
            (tmp / "download").mkdir(exist_ok=True)
            (tmp / "download" / f"{kind}_exercises.ipynb").write_text(json.dumps(nb), encoding="utf-8")
        (tmp / "download" / "empty_exercises.ipynb").write_bytes(b"")
        run = {"collect": cli("collect", CHAPTER, str(tmp / "download"))}
        asked = [a for kind in TAMPERING for a in ("--student", kind)] + ["--student", "..", "--student", "nobody",
                                                                            "--student", "empty"]
        run["autograde"] = cli("autograde", CHAPTER, "--workers", "2", *asked)
        run["export"] = cli("export")
        with (root / "grades.csv").open(encoding="utf-8") as f:
            grades = {r["student_id"]: r for r in csv.DictReader(f)}
        yield {"root": root, "run": run, "rows": summary_rows(root), "grades": grades}
    finally:
        mp.undo()


@pytest.mark.slow
def test_bad_ids_do_not_stop_the_others(graded):
    status, out, err = graded["run"]["autograde"]
    assert status == 0, out + err
    assert "not graded: ..: the student id '..' is not a folder name" in out
    assert "not graded: nobody: nothing collected for this student" in out
    assert sorted(graded["rows"]) == sorted([*TAMPERING, "empty"])


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(TAMPERING))
def test_tampered_metadata_is_graded_with_a_plain_note(graded, kind):
    row = graded["rows"][kind]
    assert (row["status"], float(row["score"])) == ("graded", 16.0), row
    for problem in _expected(kind):
        assert f"changed nbgrader metadata: {problem}" in row["notes"], row
    assert "Inconsistent checksums" not in row["reasons"] + row["notes"] and "KeyError" not in row["reasons"]


@pytest.mark.slow
def test_export_after_grading_names_each_status(graded):
    grades = graded["grades"]
    assert (grades["points"]["status"], float(grades["points"]["score"])) == ("graded", 16.0)
    assert (grades["empty"]["status"], grades["empty"]["score"]) == ("invalid", "")
    assert "wrote " in graded["run"]["export"][1] and "1 invalid" in graded["run"]["export"][1]


def test_only_the_students_cells_lose_their_shell_lines():
    """Answer cells and cells the student added; a locked or test cell of the course is graded as released."""
    answer = {"nbgrader": {"solution": True, "grade": False, "grade_id": "part"}}
    test = {"nbgrader": {"locked": True, "grade": True, "grade_id": "test_part", "points": 1}}
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": "!pip install torch\nx = 1"},
                    {"cell_type": "code", "metadata": answer, "source": ["torch.topk?\n", "%pip install numpy\n"]},
                    {"cell_type": "code", "metadata": test, "source": "!ls"},
                    {"cell_type": "markdown", "metadata": {}, "source": "!not code"}]}
    before = copy.deepcopy(nb)
    out, notes = unrun_shell_cells(nb)
    assert nb == before  # a copy: the submitted notebook is not changed
    assert [c["source"] for c in out["cells"]] == [
        "pass  # not run when graded: !pip install torch\nx = 1",
        "torch.topk?\npass  # not run when graded: %pip install numpy\n", "!ls", "!not code"]
    assert notes == [
        "a cell the student added ('!pip install torch'): '!pip install torch' was not run: the grader runs the "
        "answers with the course's packages, without shell commands or IPython set-up",
        "answer cell part: '%pip install numpy' was not run: the grader runs the answers with the course's "
        "packages, without shell commands or IPython set-up"]


def test_saved_outputs_are_neither_validated_nor_kept_for_grading(tmp_path):
    """White-box 9: 400,000 saved outputs cost minutes of nbformat validation outside the kernel's limits.
    Outputs are never graded: the check does not parse them, and the grader's copy goes without them."""
    from attnlab.instructor.grading import check_notebook

    def many(nb):
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        code[0]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x"}] * 50_000
        code[1]["outputs"] = [{"output_type": "not a kind of output"}]  # invalid, but never graded either
    path = tmp_path / "outputs.ipynb"
    path.write_text(json.dumps(_submission(tmp_path, many)), encoding="utf-8")
    assert check_notebook(path) is None
    assert repair_file(path, RELEASED) == []
    assert all(not c.get("outputs") for c in json.loads(path.read_text(encoding="utf-8"))["cells"])


def test_a_byte_order_mark_is_removed_before_grading(tmp_path):
    """Windows editors may save a notebook with a UTF-8 byte-order mark, which nbformat refuses."""
    from attnlab.instructor.grading import check_notebook

    path = tmp_path / "bom.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_submission(tmp_path)).encode("utf-8"))
    assert check_notebook(path) is None
    assert repair_file(path, RELEASED) == ["the notebook began with a byte-order mark; it was removed before grading"]
    assert not path.read_bytes().startswith(b"\xef\xbb\xbf") and check_notebook(path) is None


def test_a_new_gradebook_gets_nbgraders_schema_revision_without_an_alembic_process(tmp_path, monkeypatch):
    """nbgrader stamps every new gradebook with its schema's alembic revision, which it asks of `alembic heads` in a new
    Python process (about 2 s of CPU each time: a release, every Dask worker's scratch gradebook, every scratch course
    of the test suite). The course's API reads the revision from nbgrader's migration scripts instead."""
    import os
    import sqlite3
    import subprocess
    import sys

    import nbgrader.api as api

    from attnlab.instructor import grading, workflow

    # the revision read from the scripts is the one alembic reports
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    proc = subprocess.run([sys.executable, "-c", "from nbgrader.api import get_alembic_version\nprint(get_alembic_version())"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert grading._alembic_head() == proc.stdout.strip() != ""
    # an `alembic` on PATH that records its call and fails, and nbgrader's own way of asking it: the course's API
    # puts the scripts' answer in its place, and a new gradebook runs no alembic
    calls = tmp_path / "alembic-calls"
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "alembic").write_text(f"#!/bin/sh\necho called >> {calls}\nexit 1\n")
    (fake / "alembic").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake) + os.pathsep + os.environ["PATH"])

    def nbgraders_way() -> str:
        return subprocess.check_output(["alembic", "heads"]).decode().split()[0]

    monkeypatch.setattr(api, "get_alembic_version", nbgraders_way)
    with pytest.raises(subprocess.CalledProcessError):
        api.Gradebook(f"sqlite:///{tmp_path / 'before.db'}").close()  # the fake alembic is the one asked
    assert calls.exists()
    calls.unlink()
    workflow.course_api(ROOT, f"sqlite:///{tmp_path / 'gradebook.db'}")
    api.Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}").close()
    assert not calls.exists(), "a new gradebook ran alembic"
    with sqlite3.connect(tmp_path / "gradebook.db") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(grading._alembic_head(),)]
