"""Fixtures shared by several test modules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from attnlab.instructor.sandbox import THREAD_ENV
from grading import ROOT, core_share


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


def pytest_configure(config):
    """Under pytest-xdist each process, and every process it starts (book kernels, training runs),
    gets its share of the cores: torch's default of one thread per core in every process makes the
    threads wait for each other, and small models then run many times slower."""
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
        share = core_share()
        os.environ.update({name: str(share) for name in THREAD_ENV})
        import torch

        torch.set_num_threads(share)
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # keep the order of pytest_collection_modifyitems below
    _alembic_head_once()


def _alembic_head_once():
    """nbgrader runs ``alembic heads`` in a subprocess for every new gradebook (2-5 s each; the suite
    makes dozens). The answer depends only on the installed nbgrader, so this process asks once."""
    import functools

    import nbgrader.api

    if not hasattr(nbgrader.api.get_alembic_version, "cache_info"):
        nbgrader.api.get_alembic_version = functools.cache(nbgrader.api.get_alembic_version)


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (the README's command): one test process more than the cores. Much of the suite waits
    without computing (a notebook asleep until its time limit, a cell at its timeout, a kernel starting);
    with one process per core, /proc/stat counted 113 idle core-seconds in a 2-core run of 890 s. On
    one core, one process."""
    cores = len(os.sched_getaffinity(0))
    return cores + 1 if cores > 1 else 1


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Groups for pytest-xdist's ``--dist loadgroup`` (the README's test command runs one process more than
    the cores: 3 on 2 cores).

    A group runs in one process, so an expensive fixture is built once: every test that reads the
    built book is in group ``book``; the mutant tests of one chapter share that chapter's graded
    submissions; any other test stays with its module (module-scoped fixtures).
    """
    groups = {}
    for item in items:
        params = item.callspec.params if hasattr(item, "callspec") else {}
        if "built_site" in item.fixturenames:
            group = "book"
        elif item.module.__name__ == "test_exercises" and "chapter" in params:
            group = "exercises-" + params["chapter"]
        else:
            group = item.module.__name__
        item.add_marker(pytest.mark.xdist_group(group))
        groups[id(item)] = group
    # the longest groups first, so that the processes finish together (see SLOWEST_GROUPS)
    size = {}
    for group in groups.values():
        size[group] = size.get(group, 0) + 1

    def rank(item):
        group = groups[id(item)]
        heavy = next((i for i, name in enumerate(SLOWEST_GROUPS) if group == name or
                      (name.endswith("-") and group.startswith(name))), len(SLOWEST_GROUPS))
        return heavy, -size[group], group

    items[:] = sorted(items, key=rank)


# Groups whose module fixture takes minutes, slowest first (setup times of a fresh-clone CI run's
# --durations list on 2 cores, 2026-12-04: book build 221 s, sandbox batches 108 s, instructor
# release/grading 87 s, hooks 55 s, Dask cluster 36 s, each chapter's graded submissions 21-68 s). pytest-xdist hands out groups in collection order
# (the conftest switches off its reordering by test count, which put the Dask cluster and the
# PostgreSQL workflow, groups of few tests, at the end), so a long group never starts last.
SLOWEST_GROUPS = ("book", "test_hostile_sandbox", "test_instructor_hostile", "test_distributed",
                  "test_hostile_hooks", "exercises-", "test_translate", "test_lm", "test_instructor_experience",
                  "test_hostile_feedback", "test_instructor_postgres", "test_course_cli", "test_feedback")
