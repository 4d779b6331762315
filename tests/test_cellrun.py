"""tests/cellrun.py, which runs the mutant batches outside nbgrader: a graded cell scores its points
only when it raises nothing, cells share one namespace in order, the course package is not
importable, and a notebook that kills its process is reported, not scored."""

from __future__ import annotations

import cellrun


def test_cells_run_in_order_and_graded_cells_score_when_they_raise_nothing():
    cells = [("setup", "x = 2", 0.0), ("answer", "def f():\n    return x + 1", 0.0),
             ("test_ok", "assert f() == 3", 2.0), ("test_wrong", "assert f() == 4", 1.0),
             ("later", "print('output is discarded')", 0.0), ("test_exit", "raise SystemExit(0)", 3.0),
             ("test_import", "import attnlab", 1.0)]
    done, crashed = cellrun.run_notebooks({"nb": cells})
    assert crashed == {}
    parts = done["nb"]
    assert {gid: p[:2] for gid, p in parts.items()} == {
        "test_ok": (2.0, 2.0), "test_wrong": (0.0, 1.0), "test_exit": (0.0, 3.0), "test_import": (0.0, 1.0)}
    assert "AssertionError" in parts["test_wrong"][2] and "not available while grading" in parts["test_import"][2]


def test_a_notebook_that_kills_its_process_is_reported_and_the_others_still_run():
    notebooks = {"abort": [("test_a", "import os\nos.abort()", 1.0)], "fine": [("test_b", "pass", 1.0)]}
    done, crashed = cellrun.run_notebooks(notebooks, processes=2)
    assert set(crashed) == {"abort"} and "exit code -6" in crashed["abort"]
    assert done == {"fine": {"test_b": (1.0, 1.0, "")}}


def test_answer_cells_are_replaced_and_the_rest_keep_their_hidden_tests():
    from grading import ROOT

    source = ROOT / "solutions" / "02-scaled-attention" / "exercises.ipynb"
    cells = cellrun.notebook_cells(source, {"raw_scores": "def raw_scores(q, k):\n    return None"})
    by_id = {gid: (code, points) for gid, code, points in cells}
    assert by_id["raw_scores"] == ("def raw_scores(q, k):\n    return None", 0.0)
    assert "### BEGIN SOLUTION" not in by_id["causal_mask"][0] and "def causal_mask" in by_id["causal_mask"][0]
    assert "### BEGIN HIDDEN TESTS" in by_id["test_raw_scores"][0] and by_id["test_raw_scores"][1] == 1.0


def test_a_part_whose_answer_breaks_the_library_rule_scores_0_as_under_the_grader():
    # the grader reads the rule from the cells (attnlab.instructor.libraries), not at run time: a hidden test's own
    # watch of NumPy calls never fires under it, so the plain runs apply the same rule, part by part
    from grading import ROOT

    source = ROOT / "solutions" / "02-scaled-attention" / "exercises.ipynb"
    model = {gid: code for gid, code, _ in cellrun.notebook_cells(source, {})}
    numpy_mask = "import numpy as np\n" + model["causal_mask"]
    cells = cellrun.notebook_cells(source, {"causal_mask": numpy_mask})
    done, crashed = cellrun.run_notebooks({"model": cellrun.notebook_cells(source, {}), "numpy": cells}, processes=2)
    assert crashed == {}
    lost = {gid for gid, (score, top, _) in done["numpy"].items() if score < top}
    assert lost == {"test_causal_mask"}, lost
    assert all(score == top for score, top, _ in done["model"].values())
    assert "imports numpy" in done["numpy"]["test_causal_mask"][2]


def test_notebook_processes_start_with_torch_already_imported():
    # the fork server's preload is what makes a batch cheap; Python 3.11 ignores a preload it
    # cannot import without a word, so a broken path would only show as a slower suite
    cells = [("test_preloaded", "import sys\nassert 'cellrun_preload' in sys.modules and 'torch' in sys.modules", 1.0)]
    done, crashed = cellrun.run_notebooks({"nb": cells})
    assert done["nb"]["test_preloaded"][:2] == (1.0, 1.0), done["nb"]["test_preloaded"][2]
