"""Every chapter's exercises end to end through nbgrader's own API.

For each chapter with a source in solutions/, a spec module tests/mutants_<chapter>.py lists
common wrong answers (each must lose the points of a named graded test) and correct answers
written differently (each must keep full marks). A chapter's submissions are graded once per test
session: the model answer, the correct variants and one mutant batch by nbgrader in one scratch
course; the blank and lying notebooks and the other mutant batches in plain processes
(tests/cellrun.py), checked against nbgrader on the model answer and that batch.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
from functools import lru_cache

import pytest

from attnlab import course
import cellrun
from grading import ROOT, answer_cells, core_share, liar_answers, load, maximum, solution_code, total, write_submission

CHAPTERS = course.chapters(ROOT)


def spec(chapter: str):
    return importlib.import_module("mutants_" + chapter.replace("-", "_"))


# the mutant batch that every chapter also grades through nbgrader, to check tests/cellrun.py against it
CROSS_CHECKED = "batch_0"


@lru_cache(maxsize=None)
def grades(chapter: str, folder) -> dict:
    """Every submission of a chapter, graded: ``{submission: {graded cell: part}}``.

    The model answer, the correct variants and one mutant batch go through nbgrader with the grader's
    sandbox and checks (:func:`course.autograde_notebooks`). The blank and lying notebooks and the
    other mutant batches, the course's own wrong answers, run in plain processes (tests/cellrun.py),
    except a batch that kills its process (chapter 7's out-of-bounds Triton store), which goes to
    nbgrader too, whose crash isolation grades it. ``"cellrun:<name>"`` keys hold the plain run's
    points of the model answer and of the cross-checked batch.
    """
    s = spec(chapter)
    subs = {"model_answer": write_submission(chapter, folder / "model.ipynb")}
    for name, answers in s.CORRECT_VARIANTS.items():
        subs[f"variant_{name}"] = write_submission(chapter, folder / f"variant_{name}.ipynb", answers)
    mutated = {}
    for i, members in enumerate(getattr(s, "MUTANT_BATCHES", [])):
        answers = {}
        for name in members:
            overlap = set(answers) & set(s.MUTANTS[name][1])
            assert not overlap, f"mutants in one batch must change different cells: {overlap}"
            answers.update(s.MUTANTS[name][1])
        mutated[f"batch_{i}"] = answers
    for name, (_, answers) in s.MUTANTS.items():
        if submission_of(chapter, name) == f"mutant_{name}":
            mutated[f"mutant_{name}"] = answers
    source = ROOT / "solutions" / chapter / "exercises.ipynb"
    plain = {name: cellrun.notebook_cells(source, answers) for name, answers in mutated.items() if name != CROSS_CHECKED}
    plain["cellrun:model_answer"] = cellrun.notebook_cells(source, solution_code(chapter))
    # the blank and lying notebooks test the hidden tests and their helpers, which run the same in a plain process
    # (the grader's own handling of empty and hostile notebooks: test_instructor_hostile.py, test_distributed.py)
    stubs = {gid: "".join(c["source"]) for gid, c in answer_cells(load(ROOT / "chapters" / chapter / "exercises.ipynb")).items()}
    plain["blank"] = cellrun.notebook_cells(source, stubs)
    plain["liar"] = cellrun.notebook_cells(source, liar_answers(chapter))
    if CROSS_CHECKED in mutated:
        plain[f"cellrun:{CROSS_CHECKED}"] = cellrun.notebook_cells(source, mutated[CROSS_CHECKED])
        subs[CROSS_CHECKED] = write_submission(chapter, folder / f"{CROSS_CHECKED}.ipynb", mutated[CROSS_CHECKED])
    done, crashed = cellrun.run_notebooks(plain, processes=core_share())
    assert not any(name.startswith("cellrun:") for name in crashed), f"{chapter}: {crashed}"
    for name in crashed:  # a batch that kills its process: graded by nbgrader, whose crash isolation handles it
        subs[name] = write_submission(chapter, folder / f"{name}.ipynb", mutated[name])
    results = course.autograde_notebooks(chapter, subs, ROOT, workers=2)
    for name, parts in done.items():
        results[name] = {gid: course.GradedPart(gid, score, top) for gid, (score, top, _) in parts.items()}
    return results


def submission_of(chapter: str, mutant: str) -> str:
    """The submission that carries a mutant: its own, or a batch of mutants of independent parts.

    A spec may list ``MUTANT_BATCHES``: groups of mutants whose cells no other member's graded test
    uses, so each member's test sees only its own mistake; a batch costs one notebook run.
    """
    for i, members in enumerate(getattr(spec(chapter), "MUTANT_BATCHES", [])):
        if mutant in members:
            return f"batch_{i}"
    return f"mutant_{mutant}"


@pytest.fixture(scope="session")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("submissions")
    return lambda chapter: grades(chapter, root / chapter)


def test_every_chapter_has_a_mutant_spec():
    for chapter in CHAPTERS:
        s = spec(chapter)
        assert len(s.MUTANTS) >= 5 and s.CORRECT_VARIANTS, chapter
        batched = [m for members in getattr(s, "MUTANT_BATCHES", []) for m in members]
        assert len(batched) == len(set(batched)) and set(batched) <= set(s.MUTANTS), chapter
        for members in getattr(s, "MUTANT_BATCHES", []):
            tests = [s.MUTANTS[m][0] for m in members]
            assert len(tests) == len(set(tests)), f"{chapter}: a batch names one graded test twice: {tests}"


def test_place_mutants_fills_free_batches_and_then_opens_one_leaves_alone_or_drops():
    """A mutant goes into the first batch without another of its test or cell; the rest, by ``otherwise``."""
    from grading import place_mutants

    def spec():
        return {"a1": ("test_a", {"a": "x"}), "b1": ("test_b", {"b": "x"}), "a2": ("test_a", {"a": "y"}),
                "a3": ("test_a", {"a": "z"})}, [["a1"]]
    mutants, batches = spec()
    assert place_mutants(mutants, batches, ["b1", "a2", "a3"], "new") == []
    assert batches == [["a1", "b1"], ["a2"], ["a3"]] and len(mutants) == 4
    mutants, batches = spec()
    assert place_mutants(mutants, batches, ["b1", "a2", "a3"], "alone") == ["a2", "a3"]
    assert batches == [["a1", "b1"]] and set(mutants) == {"a1", "b1", "a2", "a3"}
    mutants, batches = spec()
    assert place_mutants(mutants, batches, ["b1", "a2", "a3"], "drop") == ["a2", "a3"]
    assert batches == [["a1", "b1"]] and list(mutants) == ["a1", "b1"]


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_model_answer_scores_full_marks(graded, chapter):
    parts = graded(chapter)["model_answer"]
    assert maximum(parts) == spec(chapter).FULL_MARKS
    assert {gid: p.score for gid, p in parts.items()} == {gid: p.max_score for gid, p in parts.items()}


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_mutant_batches_score_in_plain_processes_as_under_nbgrader(graded, chapter):
    """The mutant batches run outside nbgrader (tests/cellrun.py); the model answer and one batch
    run both ways and must get the same points in every graded cell."""
    results = graded(chapter)
    for name in ("model_answer", CROSS_CHECKED):
        by_nbgrader = {gid: (p.score, p.max_score) for gid, p in results[name].items()}
        plain = {gid: (p.score, p.max_score) for gid, p in results[f"cellrun:{name}"].items()}
        assert plain == by_nbgrader, f"{chapter} {name}: plain run {plain} != nbgrader {by_nbgrader}"


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_exercise_has_at_least_six_graded_parts(graded, chapter):
    assert len(graded(chapter)["model_answer"]) >= 6


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_blank_student_notebook_scores_zero(graded, chapter):
    parts = graded(chapter)["blank"]
    assert maximum(parts) == spec(chapter).FULL_MARKS
    assert total(parts) == 0


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_objects_that_lie_in_comparisons_score_zero(graded, chapter):
    """Functions that compute nothing and return a tensor subclass whose comparisons all succeed,
    answers that are str/float subclasses equal to anything: the hidden tests compare plain values."""
    parts = graded(chapter)["liar"]
    assert maximum(parts) == spec(chapter).FULL_MARKS
    assert {gid: p.score for gid, p in parts.items() if p.score} == {}


@pytest.mark.slow
@pytest.mark.parametrize(
    "chapter, variant", [(c, v) for c in CHAPTERS for v in spec(c).CORRECT_VARIANTS]
)
def test_different_but_correct_solution_keeps_full_marks(graded, chapter, variant):
    assert total(graded(chapter)[f"variant_{variant}"]) == spec(chapter).FULL_MARKS


@pytest.mark.slow
@pytest.mark.parametrize("chapter, mutant", [(c, m) for c in CHAPTERS for m in spec(c).MUTANTS])
def test_mutant_loses_points(graded, chapter, mutant):
    graded_test, _ = spec(chapter).MUTANTS[mutant]
    part = graded(chapter)[submission_of(chapter, mutant)][graded_test]
    assert part.score < part.max_score, f"{mutant} kept the points of {graded_test}"


@pytest.mark.slow
@pytest.mark.parametrize("chapter, mutant", [(c, m) for c in CHAPTERS for m in spec(c).MUTANTS])
def test_mutant_costs_only_its_own_part(graded, chapter, mutant):
    """Each part is graded on its own: a wrong answer loses the points of the part it is in, and no
    other part's (a batch loses exactly its members' parts)."""
    s = spec(chapter)
    submission = submission_of(chapter, mutant)
    members = next((m for m in getattr(s, "MUTANT_BATCHES", []) if mutant in m), [mutant])
    lost = {gid for gid, p in graded(chapter)[submission].items() if p.score < p.max_score}
    assert lost == {s.MUTANTS[m][0] for m in members}, f"{submission} lost {sorted(lost)}"


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_slip_in_the_first_part_costs_only_that_part(graded, chapter):
    """Every chapter has a wrong answer to its first graded part; later parts that build on it keep
    their points, because their hidden tests use the reference of the earlier function."""
    s = spec(chapter)
    source = load(ROOT / "solutions" / chapter / "exercises.ipynb")
    first = next(c["metadata"]["nbgrader"]["grade_id"] for c in source["cells"]
                 if c["metadata"].get("nbgrader", {}).get("grade") and not c["metadata"]["nbgrader"].get("solution"))
    slips = [m for m, (test, _) in s.MUTANTS.items() if test == first]
    assert slips, f"{chapter}: no mutant of the first graded part {first}"
    for mutant in slips:
        lost = {gid for gid, p in graded(chapter)[submission_of(chapter, mutant)].items() if p.score < p.max_score}
        members = next((m for m in getattr(s, "MUTANT_BATCHES", []) if mutant in m), [mutant])
        assert lost == {s.MUTANTS[m][0] for m in members}, f"{mutant} cost {sorted(lost)}"


def parameters_never_named(chapter: str) -> dict[str, list[str]]:
    """``{function: parameters}`` of the answer functions the graded cells call whose parameters no graded cell ever
    passes by name. A ``**mapping`` in a call counts the string keys of the cell's dict displays and ``dict(...)``
    calls, and the keywords given to a function of the cell that forwards ``**kwargs``."""
    fns, named, called = {}, {}, set()
    for cell in load(ROOT / "solutions" / chapter / "exercises.ipynb")["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] != "code" or not (meta.get("solution") or meta.get("grade")):
            continue
        tree = ast.parse("".join(cell["source"]))
        if meta.get("solution"):
            fns.update({fn.name: [p.arg for p in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
                        for fn in tree.body if isinstance(fn, ast.FunctionDef) and not fn.name.startswith("_")})
            continue
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        wrappers = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.args.kwarg}
        keys = {k.value for n in ast.walk(tree) if isinstance(n, ast.Dict) for k in n.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        keys |= {k.arg for n in calls if n.func.id == "dict" or n.func.id in wrappers for k in n.keywords if k.arg}
        for n in calls:
            called.add(n.func.id)
            got = {k.arg for k in n.keywords if k.arg}
            named.setdefault(n.func.id, set()).update(got | (keys if any(k.arg is None for k in n.keywords) else set()))
    return {name: sorted(set(params) - named.get(name, set())) for name, params in fns.items()
            if name in called and set(params) - named.get(name, set())}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_argument_of_a_part_is_passed_by_name_in_some_hidden_call(chapter):
    """Every notebook says to keep the stubs' signatures, argument names included, and that the hidden tests pass
    every argument by name in some calls: an answer that renames a parameter must lose its part (round 21's blind
    answers renamed arguments unnoticed in chapters 1-4, then tests/redteam/round21/rename_sweep.py --one, which
    renames one parameter at a time, found 41 more in chapters 5, 7 and 9; this check agrees with that sweep)."""
    assert parameters_never_named(chapter) == {}, "pass these arguments by name in some hidden call"


def test_the_by_name_check_sees_a_parameter_passed_only_by_position(tmp_path, monkeypatch):
    cells = [{"cell_type": "code", "metadata": {"nbgrader": {"solution": True, "grade_id": "f"}},
              "source": "def f(x, scale=1.0):\n    return x * scale\n"},
             {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "grade_id": "test_f"}},
              "source": "assert f(2, scale=3.0) == 6\n"}]
    (tmp_path / "solutions" / "ch").mkdir(parents=True)
    (tmp_path / "solutions" / "ch" / "exercises.ipynb").write_text(json.dumps({"cells": cells}))
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert parameters_never_named("ch") == {"f": ["x"]}
    cells[1]["source"] += "kw = {'x': 2}\nassert f(**kw) == 2\n"
    (tmp_path / "solutions" / "ch" / "exercises.ipynb").write_text(json.dumps({"cells": cells}))
    assert parameters_never_named("ch") == {}


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_hidden_tests_compare_only_plain_values(chapter):
    assert course.source_problems(chapter, ROOT) == []


@pytest.mark.slow
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_committed_student_notebook_equals_fresh_generation(chapter):
    committed = (ROOT / "chapters" / chapter / "exercises.ipynb").read_text(encoding="utf-8")
    assert committed == course.generated_student_notebook(chapter, ROOT), (
        f"run `attnlab-course generate {chapter}` and commit the result"
    )


def gradients_with_output_tensors(source: str) -> list[str]:
    """The calls in ``source`` that take a gradient with a tensor of output gradients: ``autograd.grad`` (under any
    name ending in ``grad``) with a third argument or ``grad_outputs``, ``.backward`` with an argument. The first such
    call in a process imports torch's symbolic shapes and sympy: about 0.4 s of CPU, 0.9 s under the grading kernel's
    audit hook, in every graded notebook that reaches it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        callee = ast.unparse(node.func)
        keywords = {k.arg for k in node.keywords}
        # torch.autograd.grad, or a reference to it: _REF["grad"], _REF["autograd_grad"] (not the helper _grad, whose
        # third argument names the value, and which weights a result into a scalar itself)
        autograd = callee.endswith("autograd.grad") or (
            isinstance(node.func, ast.Subscript) and isinstance(node.func.slice, ast.Constant)
            and str(node.func.slice.value).endswith("grad"))
        if autograd and (len(node.args) > 2 or "grad_outputs" in keywords):
            found.append(ast.unparse(node)[:120])
        elif callee.endswith(".backward") and (node.args or "gradient" in keywords):
            found.append(ast.unparse(node)[:120])
    return found


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_hidden_tests_take_gradients_of_scalars(chapter):
    """A hidden test takes the vector-Jacobian product it compares with as the gradient of a sum, ``(out * g).sum()``,
    which gives the same values, rather than with a tensor of output gradients (see gradients_with_output_tensors)."""
    nb = load(ROOT / "solutions" / chapter / "exercises.ipynb")
    calls = {}
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] == "code" and meta.get("grade"):
            found = gradients_with_output_tensors("".join(cell["source"]))
            if found:
                calls[meta["grade_id"]] = found
    assert calls == {}


def test_the_gradient_check_finds_output_tensors_under_any_name():
    assert gradients_with_output_tensors('_REF["autograd_grad"](y, x, g)\ntorch.autograd.grad(y, [x], grad_outputs=g)\n'
                                         'y.backward(g)\ny.backward(gradient=g)\n') == [
        "_REF['autograd_grad'](y, x, g)", "torch.autograd.grad(y, [x], grad_outputs=g)", "y.backward(g)",
        "y.backward(gradient=g)"]
    assert gradients_with_output_tensors('_REF["grad"]((y * g).sum(), x)\ny.sum().backward()\n_grad(y, x, "y", weights=g)\n') == []
