"""The suite runs in several processes (pytest-xdist, ``--dist loadgroup``); these tests check that
the groups and thread shares of tests/conftest.py really take effect, since breaking them fails
nothing else: the book would be built once per process, or the processes' threads would fight
over the cores, and the suite would run past its time budget."""

from __future__ import annotations

import os
import tomllib

import pytest

from grading import ROOT

under_xdist = pytest.mark.skipif("PYTEST_XDIST_WORKER" not in os.environ,
                                 reason="runs when the suite runs under pytest-xdist (README's command)")


@under_xdist
def test_this_module_is_one_group(request):
    assert request.node.nodeid.endswith("@test_suite_groups"), (
        f"{request.node.nodeid}: pytest-xdist did not group it; is pytest >= 9.2 installed "
        "(pytest-dev/pytest-xdist#1386)? pyproject.toml pins pytest < 9.2")


def test_book_readers_share_one_group(built_site_group):
    assert built_site_group == "book"


@pytest.fixture
def built_site_group(request):
    """The group that tests/conftest.py gives a test that reads the built book (without building it)."""
    from conftest import pytest_collection_modifyitems

    class Reader:
        fixturenames = ["built_site"]
        module = request.module

        def __init__(self):
            self.marks = []

        def add_marker(self, mark):
            self.marks.append(mark)

    reader = Reader()
    pytest_collection_modifyitems(request.config, [reader])
    return reader.marks[0].args[0]


@under_xdist
def test_each_process_takes_its_share_of_the_cores():
    import torch

    share = max(1, len(os.sched_getaffinity(0)) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    assert torch.get_num_threads() == share and os.environ["OMP_NUM_THREADS"] == str(share)


def test_auto_runs_one_process_more_than_the_cores():
    """``-n auto`` (pyproject's addopts) asks conftest.py: one process per core leaves cores idle while notebooks
    sleep to their limits, so there is one more, except on a single core."""
    from conftest import pytest_xdist_auto_num_workers

    cores = len(os.sched_getaffinity(0))
    assert pytest_xdist_auto_num_workers(None) == (cores + 1 if cores > 1 else 1)
    assert "-n auto" in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]


def test_the_slowest_groups_are_handed_out_first(request):
    """pytest-xdist gives out groups in collection order: the book and the Dask cluster (few tests,
    minutes of set-up) must come before groups of many quick tests, or one process runs them alone
    at the end while the other waits."""
    import types

    from conftest import pytest_collection_modifyitems

    class Item:
        def __init__(self, module, fixtures=()):
            self.module, self.fixturenames, self.marks = types.SimpleNamespace(__name__=module), list(fixtures), []

        def add_marker(self, mark):
            self.marks.append(mark)

    items = [Item("test_rnn"), Item("test_rnn"), Item("test_distributed"), Item("test_rnn"),
             Item("test_book", ["built_site"])]
    pytest_collection_modifyitems(request.config, items)
    assert [item.marks[0].args[0] for item in items] == ["book", "test_distributed"] + ["test_rnn"] * 3
    assert request.config.option.loadscopereorder is False or "PYTEST_XDIST_WORKER" not in os.environ


def test_grading_kernels_take_no_more_threads_than_the_environment_allows(monkeypatch):
    """Each grading kernel gets its share of the cores (cores // workers), capped by OMP_NUM_THREADS and the like
    where set: the suite sets them to each test process's share, so that a kernel graded with one worker on a
    machine of many cores does not run threads that only spin (benchmarks/kernel_threads.py)."""
    from attnlab.instructor.grading import kernel_threads
    from attnlab.instructor.sandbox import THREAD_ENV

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    for name in THREAD_ENV:
        monkeypatch.delenv(name, raising=False)
    assert [kernel_threads(w) for w in (1, 2, 3, 8, 16)] == [8, 4, 2, 1, 1]
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert [kernel_threads(w) for w in (1, 2, 8)] == [2, 2, 1]
    monkeypatch.setenv("MKL_NUM_THREADS", "1")
    assert kernel_threads(1) == 1
    for value in ("", "0", "two", "-3"):  # not a positive count: no cap
        monkeypatch.setenv("MKL_NUM_THREADS", value)
        monkeypatch.setenv("OMP_NUM_THREADS", value)
        assert kernel_threads(1) == 8
