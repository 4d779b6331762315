"""The grader's temporary folders: a killed run's are removed by the next run, nobody else's are."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from attnlab.instructor import tempdirs

# make folders, then die by SIGKILL: nothing of Python's own clean-up runs
KILLED = """
import os, signal, sys
from attnlab.instructor import tempdirs
for prefix in sys.argv[2:]:
    path = tempdirs.make(prefix, sys.argv[1])
    open(os.path.join(path, "exercises.ipynb"), "w").write("hidden tests")
    print(path, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""

PREFIXES = ("attnlab-grade-", "attnlab-ipc-", "attnlab-probe-", "attnlab-course-", "attnlab-collect-",
            ".feedback-staging-")


def _killed_run(where: Path, *prefixes: str) -> list[Path]:
    proc = subprocess.run([sys.executable, "-c", KILLED, str(where), *prefixes], capture_output=True, text=True)
    assert proc.returncode == -9, proc.stderr
    made = [Path(line) for line in proc.stdout.split()]
    assert len(made) == len(prefixes) and all(p.is_dir() for p in made)
    return made


def test_a_killed_runs_folders_are_swept_and_a_live_runs_are_kept(tmp_path):
    dead = _killed_run(tmp_path, *PREFIXES)
    live = [Path(tempdirs.make(prefix, tmp_path)) for prefix in PREFIXES]  # this process: alive
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:  # another live process's folder, named as make() names it
        namespace = tempdirs._namespace()
        other = tmp_path / f"attnlab-grade-{namespace}.{sleeper.pid}-abc"
        other.mkdir()
        foreign = tmp_path / "attnlab-grade-1.2-abc"  # made in another PID namespace: cannot tell, so kept
        foreign.mkdir()
        unnamed = tmp_path / "attnlab-grade-xyz"  # not made by make(): kept
        unnamed.mkdir()
        removed = []
        for prefix in PREFIXES:
            removed += tempdirs.sweep(prefix, tmp_path)
        assert sorted(removed) == sorted(dead)
        assert not any(p.exists() for p in dead)
        assert all(p.is_dir() for p in (*live, other, foreign, unnamed))
    finally:
        sleeper.kill()
        sleeper.wait()
    # once the sleeper has ended, its folder goes too
    assert tempdirs.sweep("attnlab-grade-", tmp_path) == [other]


def test_a_symlink_or_a_file_with_a_swept_name_is_left_alone(tmp_path):
    target = tmp_path / "keep"
    target.mkdir()
    (target / "data").write_text("x")
    dead_pid = _dead_pid()
    link = tmp_path / f"attnlab-grade-{tempdirs._namespace()}.{dead_pid}-lnk"
    link.symlink_to(target)
    plain = tmp_path / f"attnlab-ipc-{tempdirs._namespace()}.{dead_pid}-file"
    plain.write_text("not a folder")
    assert tempdirs.sweep("attnlab-grade-", tmp_path) == []
    assert tempdirs.sweep("attnlab-ipc-", tmp_path) == []
    assert (target / "data").read_text() == "x" and link.is_symlink() and plain.is_file()


def test_folder_sweeps_first_and_removes_its_own_on_exit(tmp_path):
    dead = _killed_run(tmp_path, "attnlab-grade-")
    with tempdirs.folder("attnlab-grade-", tmp_path) as path:
        assert Path(path).is_dir() and not dead[0].exists()
        assert Path(path).name.startswith(f"attnlab-grade-{tempdirs._namespace()}.{os.getpid()}-")
    assert not Path(path).exists()


def test_every_grader_folder_is_made_by_tempdirs():
    """The grading batch, the Dask worker, the sandbox probe, the scratch course and both staging
    folders name their folders with tempdirs (and sweep), so none is left behind for good."""
    src = Path(__file__).resolve().parents[1] / "src" / "attnlab"
    for path in [*src.joinpath("instructor").glob("*.py"), src / "course.py"]:
        text = path.read_text(encoding="utf-8")
        assert "TemporaryDirectory(" not in text and "mkdtemp(prefix=\"attnlab" not in text, path
        for prefix in PREFIXES:
            if f'"{prefix}"' in text:
                assert f'tempdirs.folder("{prefix}"' in text or f'tempdirs.make("{prefix}"' in text, (path, prefix)


def test_the_scratch_course_removes_what_a_killed_one_left(tmp_path, monkeypatch):
    from attnlab import course

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = _killed_run(tmp_path, "attnlab-course-")
    with course.scratch_course("01-rnn-motivation") as (_api, scratch):
        assert not dead[0].exists() and Path(scratch).parent == tmp_path
    assert not Path(scratch).exists()


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(proc.stdout)
