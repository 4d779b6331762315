"""The instructor workflow on a PostgreSQL gradebook.

The server comes from ``$ATTNLAB_POSTGRES_URL`` (``.ci/run`` starts one with ``.ci/postgres.sh`` and
sets it). Without a reachable server these tests skip, unless ``ATTNLAB_REQUIRE_POSTGRES=1`` (set by
CI), which turns the skip into a failure. Each run works in a database of its own, dropped after.
"""

from __future__ import annotations

import csv
import os
import uuid
import zipfile

import pytest

from grading import write_submission
from instructor_course import CHAPTER, cli, copy_course, part_grades, summary_rows


def _server_url() -> str:
    url = os.environ.get("ATTNLAB_POSTGRES_URL", "")
    problem = None
    if not url:
        problem = "ATTNLAB_POSTGRES_URL is not set (bash .ci/postgres.sh starts a server and prints it)"
    else:
        try:
            import psycopg

            psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=5).close()
        except Exception as err:  # no driver, no server, wrong password
            problem = f"cannot reach PostgreSQL at ATTNLAB_POSTGRES_URL: {type(err).__name__}: {err}"
    if problem:
        if os.environ.get("ATTNLAB_REQUIRE_POSTGRES") == "1":
            pytest.fail(problem + " (ATTNLAB_REQUIRE_POSTGRES=1)")
        pytest.skip(problem)
    return url


@pytest.fixture(scope="module")
def postgres_gradebook():
    """The URL of a fresh, empty database on the server; dropped afterwards."""
    import psycopg
    from sqlalchemy.engine import make_url

    server = make_url(_server_url())
    name = f"attnlab_test_{uuid.uuid4().hex[:10]}"
    admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.slow
def test_release_collect_autograde_feedback_export_on_postgresql(postgres_gradebook, tmp_path, monkeypatch):
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    monkeypatch.delenv("ATTNLAB_GRADEBOOK_URL", raising=False)
    db = ["--db", postgres_gradebook]

    status, out, err = cli("release", CHAPTER, "--out", str(tmp_path / "students.zip"), *db)
    assert status == 0, err
    assert "postgresql://attnlab:***@" in out or ":***@" in out  # the password is not printed

    download = tmp_path / "download"
    write_submission(CHAPTER, download / "alice_exercises.ipynb")
    write_submission(CHAPTER, download / "bob_exercises.ipynb", base="student")
    write_submission(CHAPTER, download / "mallory_exercises.ipynb",
                     {"raw_scores": "torch.allclose = lambda *a, **k: True\ndef raw_scores(q, k):\n    return q @ k.mT"})
    status, out, _ = cli("collect", CHAPTER, str(download))
    assert status == 0 and "3 students collected" in out

    status, out, err = cli("autograde", CHAPTER, "--workers", "2", "--cell-timeout", "10", *db)
    assert status == 0, err
    rows = summary_rows(root)
    assert {s: (r["status"], float(r["score"])) for s, r in rows.items()} == {
        "alice": ("graded", 16.0), "bob": ("graded", 0.0), "mallory": ("flagged", 0.0)}
    parts = part_grades(postgres_gradebook)
    assert sum(score for score, _ in parts["alice"].values()) == 16
    assert all(manual for _, manual in parts["mallory"].values())
    assert not (root / "gradebook.db").exists(), "grades went to SQLite instead of PostgreSQL"

    status, out, _ = cli("feedback", CHAPTER, *db)
    assert status == 0
    assert sorted(p.parent.parent.name for p in (root / "feedback").glob(f"*/{CHAPTER}/exercises.html")) == [
        "alice", "bob", "mallory"]

    status, _, _ = cli("export", "--out", str(tmp_path / "grades.csv"), *db)
    assert status == 0
    with (tmp_path / "grades.csv").open(encoding="utf-8") as f:
        exported = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    assert exported == {"alice": 16.0, "bob": 0.0, "mallory": 0.0}
    with zipfile.ZipFile(tmp_path / "students.zip") as zf:
        assert f"attnlab-exercises/{CHAPTER}/exercises.ipynb" in zf.namelist()


def test_a_wrong_password_is_a_clear_error(tmp_path, monkeypatch):
    from sqlalchemy.engine import make_url

    url = make_url(_server_url()).set(password="not-the-password").render_as_string(hide_password=False)
    root = copy_course(tmp_path / "course")
    monkeypatch.setenv("ATTNLAB_COURSE_ROOT", str(root))
    status, _, err = cli("export", "--db", url)
    assert status == 1
    assert "cannot use the gradebook postgresql://" in err and "***" in err and "not-the-password" not in err
