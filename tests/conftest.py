"""Fixtures shared by several test modules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from grading import ROOT


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The whole book, built from clean with warnings as errors, once per test session."""
    out = tmp_path_factory.mktemp("book")
    jb = shutil.which("jupyter-book", path=os.path.dirname(sys.executable)) or "jupyter-book"
    proc = subprocess.run(
        [jb, "build", "--all", "-W", "--keep-going", "--path-output", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, f"book build failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    return out / "_build" / "html"

