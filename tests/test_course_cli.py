"""The `attnlab-course` command that regenerates student notebooks."""

from __future__ import annotations

import json
import shutil

import pytest

from attnlab import course
from grading import ROOT


def _copy_course(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name in ("nbgrader_config.py", "solutions", "chapters"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, tmp_path / name)
    return tmp_path


def test_unknown_chapter_is_a_clear_error(capsys, monkeypatch):
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(ROOT))
    assert course.main(["generate", "99-nothing"]) == 2
    err = capsys.readouterr().err
    assert "no exercise source" in err and "02-scaled-attention" in err


def test_outside_a_checkout_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(tmp_path))
    assert course.main(["check"]) == 2
    assert "ATTNLAB_COURSE_ROOT" in capsys.readouterr().err


@pytest.mark.slow
def test_check_flags_a_stale_notebook_and_generate_refreshes_it(tmp_path, monkeypatch, capsys):
    root = _copy_course(tmp_path)
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    source = root / "solutions/02-scaled-attention/exercises.ipynb"
    nb = json.loads(source.read_text())
    nb["cells"][0]["source"] = "# Changed title\n\nNew introduction."
    source.write_text(json.dumps(nb))

    assert course.main(["check", "02-scaled-attention"]) == 1
    assert "out of date" in capsys.readouterr().out
    assert course.main(["generate", "02-scaled-attention"]) == 0
    student = json.loads((root / "chapters/02-scaled-attention/exercises.ipynb").read_text())
    assert "".join(student["cells"][0]["source"]).startswith("# Changed title")
    assert "02-scaled-attention" in course.chapters(root)


@pytest.mark.slow
def test_bundle_holds_every_student_notebook_and_no_solution(tmp_path, monkeypatch, capsys):
    import zipfile

    from grading import MARKERS, found_in, secret_lines, squash

    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(ROOT))
    out = tmp_path / "bundle.zip"
    assert course.main(["bundle", "--out", str(out)]) == 0
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        chapters = course.chapters(ROOT)
        assert sorted(names) == sorted(["attnlab-exercises/README.txt"] + [f"attnlab-exercises/{c}/exercises.ipynb" for c in chapters])
        assert "pip install triton" in zf.read("attnlab-exercises/README.txt").decode()  # chapter 7, Part 8
        secrets = set().union(*(secret_lines(c) for c in chapters))
        for name in names:
            text = zf.read(name).decode("utf-8")
            assert not any(m in text for m in MARKERS), name
            flat = squash(text.replace("\\n", "\n").replace('\\"', '"'))
            assert not found_in(secrets, flat), name
    assert "wrote" in capsys.readouterr().out


@pytest.mark.slow
def test_bundle_refuses_a_stale_student_notebook(tmp_path, monkeypatch, capsys):
    root = _copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    stale = root / "chapters/02-scaled-attention/exercises.ipynb"
    stale.write_text(stale.read_text().replace("Part 1", "Part one", 1))
    assert course.main(["bundle", "--out", str(tmp_path / "b.zip")]) == 1
    assert "out of date" in capsys.readouterr().err
    assert not (tmp_path / "b.zip").exists()


def test_autograde_rejects_zero_workers():
    with pytest.raises(ValueError, match="workers"):
        course.autograde_notebooks("02-scaled-attention", {}, ROOT, workers=0)


@pytest.mark.slow
def test_bundle_writes_at_the_course_root_by_default(tmp_path, monkeypatch, capsys):
    import zipfile

    from instructor_course import CHAPTER, copy_course

    root = copy_course(tmp_path / "course")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    monkeypatch.chdir(elsewhere)
    assert course.main(["bundle"]) == 0
    assert "(1 notebook)" in capsys.readouterr().out
    with zipfile.ZipFile(root / "dist" / "attnlab-exercises.zip") as zf:
        assert f"attnlab-exercises/{CHAPTER}/exercises.ipynb" in zf.namelist()
    assert not (elsewhere / "dist").exists()
    assert course.main(["bundle", "--out", "here.zip"]) == 0  # an explicit --out is relative to the current folder
    assert (elsewhere / "here.zip").is_file()


def test_the_instructor_tools_start_without_importing_torch_or_a_grammar():
    """Every grading process, ``attnlab-course`` call and nbgrader run imports these modules. Neither
    torch nor rfc3987-syntax's grammar is used there, and each costs about two seconds of CPU to import
    (``attnlab/__init__`` loads its torch-based names on first use; jsonschema is kept below 4.24)."""
    import subprocess
    import sys

    modules = ["attnlab", "attnlab.course"] + [
        f"attnlab.instructor.{m.stem}" for m in sorted((ROOT / "src/attnlab/instructor").glob("*.py"))
    ]
    heavy = ("torch", "rfc3987_syntax")  # the second: jsonschema >= 4.24's format checker (pyproject.toml)
    code = (f"import sys\nfor m in {modules!r}:\n    __import__(m)\n"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", f"importing the instructor tools imported {proc.stdout[:300]}"
