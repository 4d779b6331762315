"""The plain-value helpers of every exercise notebook, and the static rule that hidden tests use them."""

from __future__ import annotations

import copy
import subprocess
import sys

import numpy as np
import pytest
import torch

from attnlab.instructor import plain
from grading import LIAR_PRELUDE, equal_to_anything


@pytest.fixture()
def ns():
    """A notebook namespace after the grading_helpers cell and a student cell full of lying objects."""
    namespace: dict = {}
    exec(plain.cell_source(), namespace)
    exec(LIAR_PRELUDE, namespace)
    return namespace


def test_a_tensor_subclass_that_lies_is_refused(ns):
    liar = ns["_liar"]()
    assert torch.equal(liar, torch.ones(3)) and torch.allclose(liar, torch.ones(7))  # it does lie
    with pytest.raises(AssertionError, match="must be a torch.Tensor \\(not a subclass\\), not an object of type _LiarTensor"):
        ns["_tensor"](liar, "raw_scores(q, k)")
    with pytest.raises(AssertionError, match="masked_attention\\(...\\)\\[1\\] must be a tensor, a number"):
        ns["_plain"]((torch.zeros(2), liar), "masked_attention(...)")


@pytest.mark.parametrize("value, helper", [
    ("_LiarStr('c')", "_text"), ("_LiarFloat(512.0)", "_number"), ("_LiarFloat(1.0)", "_float"),
    ("True", "_number"), ("True", "_integer"), ("3.0", "_integer"), ("1", "_float"), ("'0.5'", "_number"),
    ("1", "_flag"), ("_AlwaysEqual()", "_plain"), ("[1.0]", "_tensor"),
])
def test_scalars_must_have_their_exact_type(ns, value, helper):
    with pytest.raises(AssertionError, match="must be"):
        ns[helper](eval(value, ns), "the answer")


def test_plain_values_pass_and_come_back_as_copies(ns):
    x = torch.randn(3, 4, dtype=torch.float64)
    got = ns["_tensor"](x, "x", dtype=torch.float64, shape=(3, 4))
    x.add_(1)  # the student's object changes later: the copy does not
    assert type(got) is torch.Tensor and not torch.equal(got, x)
    assert type(ns["_tensor"](torch.nn.Parameter(torch.ones(2)))) is torch.Tensor
    assert ns["_number"](np.float32(2.5)) == 2.5 and ns["_number"](3) == 3.0 and ns["_integer"](7) == 7
    assert ns["_text"]("c") == "c" and ns["_flag"](False) is False
    assert ns["_items"]((torch.ones(1), 2, "a", None), 4)[1:] == (2, "a", None)
    assert ns["_plain"]({"a": [1, 2.0]}) == {"a": [1, 2.0]}


@pytest.mark.parametrize("kwargs, message", [({"dtype": torch.float32}, "must have dtype torch.float32"),
                                             ({"shape": (4, 3)}, "must have shape \\(4, 3\\)")])
def test_dtype_and_shape_are_checked_when_given(ns, kwargs, message):
    with pytest.raises(AssertionError, match=message):
        ns["_tensor"](torch.zeros(3, 4, dtype=torch.float64), "y", **kwargs)


def test_tensors_without_data_are_refused(ns):
    for x in (torch.empty(2, device="meta"), torch.eye(2).to_sparse()):
        with pytest.raises(AssertionError, match="dense tensor with data"):
            ns["_tensor"](x)


@pytest.mark.parametrize("helper", ["_tensor", "_scribble", "_plain"])
def test_an_inference_tensor_is_refused_and_a_no_grad_one_is_not(ns, helper):
    """Red team 17: a result made under torch.inference_mode() refuses the caller's in-place write (torch writes,
    then raises, so _scribble's own write looked done) and autograd; one made under torch.no_grad() is fine."""
    with torch.inference_mode():
        made = torch.ones(3) * 2
    with pytest.raises(AssertionError, match="inference tensor"):
        ns[helper](made, "the result")
    with torch.no_grad():
        fine = torch.ones(3) * 2
    ns[helper](fine, "the result")


def test_an_active_torch_function_mode_is_refused(ns):
    class Everything(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Everything(), pytest.raises(AssertionError, match="mode is active"):
        ns["_tensor"](torch.zeros(1))


def test_comparisons_refuse_unconverted_values_and_compare_dtype_and_shape(ns):
    with pytest.raises(AssertionError, match="converted with _tensor"):
        ns["_close"](ns["_liar"](), torch.zeros(1))
    with pytest.raises(AssertionError, match="has dtype"):
        ns["_close"](torch.zeros(2), torch.zeros(2, dtype=torch.float64))
    with pytest.raises(AssertionError, match="has shape"):
        ns["_close"](torch.zeros(2), torch.zeros(1, 2))
    with pytest.raises(AssertionError, match="not close"):
        ns["_close"](torch.zeros(2), torch.ones(2), "w", rtol=0, atol=0.5)
    ns["_close"](torch.zeros(2), torch.full((2,), 0.4), "w", rtol=0, atol=0.5)
    with pytest.raises(AssertionError, match="differs"):
        ns["_equal"](torch.zeros(2), torch.zeros(2, dtype=torch.float64))


def _passes(check, *args, **kwargs) -> bool:
    try:
        check(*args, **kwargs)
        return True
    except AssertionError:
        return False


def test_close_agrees_with_torch_testing_assert_close(ns):
    """`_close` decides with torch's compiled `isclose` (red team 18: `assert_close` is Python code an answer can
    patch); on every dtype, NaN, infinities, empty tensors and given or default tolerances it passes exactly what
    `torch.testing.assert_close` passes, and its message names the count and the largest difference."""
    g = torch.Generator().manual_seed(18)
    cases = 0
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.int64,
                  torch.uint8, torch.bool):
        for shape in ((0,), (3,), (2, 3)):
            for trial in range(12):
                if dtype == torch.bool:
                    a = torch.rand(shape, generator=g) > 0.5
                    b = a.clone() if trial % 2 else torch.rand(shape, generator=g) > 0.5
                elif dtype.is_floating_point or dtype.is_complex:
                    a = torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)
                    wide = torch.complex128 if dtype.is_complex else torch.float64
                    scale = (0, 1e-8, 1e-6, 1e-5, 1e-3, 1e-1)[trial % 6]
                    b = (a.to(wide) + scale * torch.randn(shape, generator=g, dtype=torch.float64)).to(dtype)
                    if trial % 4 == 0 and a.numel():
                        a.view(-1)[0] = float("nan") if trial % 8 == 0 else float("inf")
                        if trial % 3 == 0:
                            b.view(-1)[0] = a.view(-1)[0]
                else:
                    a = torch.randint(0, 5, shape, generator=g).to(dtype)
                    b = a.clone()
                    if trial % 2 and a.numel():
                        b.view(-1)[0] += 1
                for tolerances in ({}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 1e-3, "atol": 1e-3}, {"rtol": 0.0, "atol": 0.5}):
                    cases += 1
                    expected = _passes(torch.testing.assert_close, a, b, **tolerances)
                    assert _passes(ns["_close"], a, b, "x", **tolerances) == expected, (dtype, a, b, tolerances)
    assert cases == 8 * 3 * 12 * 4
    with pytest.raises(AssertionError, match=r"y is not close to the expected value: 5 of 6 elements differ; the "
                                             r"largest difference is 5 at index \(1, 2\)"):
        ns["_close"](torch.zeros(2, 3), torch.arange(6.0).view(2, 3), "y", rtol=0, atol=0.5)
    with pytest.raises(ValueError, match="both rtol and atol"):
        ns["_close"](torch.zeros(2), torch.zeros(2), "y", rtol=0.1)


def test_close_calls_no_python_code_an_answer_could_patch():
    """What `torch.testing.assert_close` decides with (its module's functions) and the operators of the Tensor class
    can be replaced by an answer: `_close` uses neither. (In a process of its own: a dunder set on torch.Tensor
    changes the class's slots for good, and 0-d tensors would then pass for sequences in the tests after it.)"""
    script = "\n".join([
        "import torch, torch.testing._comparison as comparison",
        "from attnlab.instructor import plain",
        "ns = {}",
        "exec(plain.cell_source(), ns)",
        "comparison.not_close_error_metas = lambda *a, **k: []",
        "torch.testing.assert_close = lambda *a, **k: None",
        "for name in ('__sub__', '__eq__', '__getitem__', '__invert__', 'abs', 'to'):",
        "    setattr(torch.Tensor, name, lambda *a, **k: torch.zeros(()))",
        "try:",
        "    ns['_close'](torch.zeros(2), torch.ones(2), 'w')",
        "    print('passed')",
        "except AssertionError as err:",
        "    print(err)"])
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "w is not close to the expected value: 2 of 2 elements differ" in proc.stdout, proc.stdout


def test_helpers_keep_what_they_captured_when_the_notebook_rebinds_it(ns, monkeypatch):
    exec("type = lambda x: __import__('torch').Tensor\nisinstance = lambda *a: True", ns)
    monkeypatch.setattr(torch.testing, "assert_close", lambda *a, **k: None)
    monkeypatch.setattr(torch, "equal", lambda *a, **k: True)
    with pytest.raises(AssertionError, match="not a subclass"):
        ns["_tensor"](ns["_liar"]())
    with pytest.raises(AssertionError, match="not close"):
        ns["_close"](torch.zeros(2), torch.ones(2))
    with pytest.raises(AssertionError, match="differs"):
        ns["_equal"](torch.zeros(2), torch.ones(2))


def test_use_references_binds_notebook_names(ns):
    ns["raw_scores"] = lambda q, k: "the student's"
    ns["_use_references"](raw_scores=lambda q, k: "the reference")
    assert ns["raw_scores"](1, 2) == "the reference"


# --------------------------------------------------------------------------- the static rule

def _nb(answer: str, test: str) -> dict:
    def cell(source, **meta):
        return {"cell_type": "code", "id": meta["grade_id"], "metadata": {"nbgrader": meta}, "source": source,
                "outputs": [], "execution_count": None}
    nb = {"cells": [cell("import torch\n", grade_id="setup", locked=True),
                    cell(answer, grade_id="answer", solution=True),
                    cell(test, grade_id="test_answer", grade=True, points=1)]}
    plain.sync_helper_cell(nb)
    return nb


def _problems(nb: dict) -> list[str]:
    """What the plain-value rule finds; the toy tests here use short global names, which the naming rule (tested
    apart, below) would add to every list."""
    return [p for p in plain.hidden_test_problems(nb) if "its hidden tests bind the global" not in p]


def _hidden(code: str) -> str:
    return "### BEGIN HIDDEN TESTS\n" + code + "\n### END HIDDEN TESTS\n"


ANSWER = "def f(x):\n    return x * 2\n\nanswer = 'c'\n"


@pytest.mark.parametrize("test", [
    "_got = _tensor(f(_x.clone()), 'f(x)')\n_close(_got, _x * 2, 'f(x)')",
    "_a = _x.clone()\n_g = _tensor(f(_a))\n_equal(_tensor(_a), _x)",
    "assert _text(answer, 'answer') == 'c'",
    "_use_references(g=lambda x: x)\n_out, _w = _items(f(_x.clone()), 2, 'f(x)')\nassert _out.shape == _w.shape",
    "def _check(n):\n    _y = _tensor(f(_REF(n)), 'f')\n    assert _y.sum() > 0\n_check(3)",
])
def test_hidden_tests_that_convert_first_pass_the_rule(test):
    assert _problems(_nb(ANSWER, _hidden("_x = _REF(3)\n" + test))) == []


@pytest.mark.parametrize("code, names", [
    ("_beam = _REF(1)\ndef _ngrams(n):\n    return n\nclass _Model:\n    pass", ["_beam", "_ngrams", "_Model"]),
    ("for _check in (1, 2):\n    pass\ntry:\n    import math as _m\nexcept ImportError:\n    _n = 1", ["_check", "_m", "_n"]),
    ("_check_beam = _REF(1)\ndef _ref_ngrams(n):\n    _local = n\n    return _local\nwith open('f') as _hidden_f:\n    pass", []),
])
def test_the_hidden_tests_globals_have_names_no_student_helper_takes(code, names):
    """Red team 15: hidden helpers named `_beam`, `_ngrams`, `_check`, names an honest student gives a helper of
    their own, made the tamper guard refuse that helper (and name the hidden one); only reserved prefixes pass."""
    problems = [p for p in plain.hidden_test_problems(_nb(ANSWER, _hidden(code + "\n_close(_tensor(f(_REF(1))), _REF(2))")))
                if "bind the global" in p]
    assert [p.split("the global ")[1].split(",")[0] for p in problems] == names


@pytest.mark.parametrize("test, where", [
    ("assert f(_x).allclose(_x * 2)", "`f(_x).allclose(_x * 2)` comes from student code and is asserted"),
    ("_REF['assert_close'](f(_x), _x * 2)", "`f(_x)` comes from student code and is passed to _REF['assert_close']"),
    ("assert answer == 'c'", "`answer` comes from student code"),
    ("_y = f(_x)\nassert _y.shape == (3,)", "`_y.shape` comes from student code"),
    ("_g = _tensor(f(_x))\n_close(_g, _x * 2)", "`_x` comes from student code and is used in an expression"),
    ("_y = _tensor(f(_x.clone()))\nassert _y.sum() > 0, f'got {f(_x)}'", "`f(_x)` comes from student code"),
    ("_y = [f(_x.clone()) for _ in range(2)]\n_close(_y[0], _x)", "`_y[0]` comes from student code"),
    ("for _y in f(_x.clone()):\n    assert _y > 0", "`_y` comes from student code"),
    ("try:\n    _tensor(f(_x.clone()))\nexcept Exception as _e:\n    assert 'x' in str(_e)", "`_e` comes from student code"),
])
def test_hidden_tests_that_compare_student_values_break_the_rule(test, where):
    problems = _problems(_nb(ANSWER, _hidden("_x = _REF(3)\n" + test)))
    assert any(where in p for p in problems), problems


def test_visible_tests_may_compare_student_values_directly():
    test = "assert f(2) == 4\n" + _hidden("_x = _REF(3)\n_close(_tensor(f(_x.clone())), _x * 2)")
    assert _problems(_nb(ANSWER, test)) == []


def test_a_hidden_region_that_converts_nothing_breaks_the_rule():
    problems = _problems(_nb(ANSWER, _hidden("assert 1 + 1 == 2")))
    assert problems == ["test_answer: its hidden tests convert no student value with a helper"]


@pytest.mark.parametrize("source", [
    "_close(_tensor(f(_REF(1))), _REF(2))", "_close (\n _tensor(f(1)), 2)", "x = 'é'; _equal(a.b\\\n  (1), 2)",
    "y = 1\r\n_float\r(g(2))", "(_close)(1, 2)", "h(g(1))(2)\n\x0c_same_object(a, b)"])
def test_the_callees_are_read_as_ast_reads_source_segments(source):
    import ast
    tree = ast.parse(source)
    expected = [(ast.get_source_segment(source, n) or "").split("(")[0].strip() for n in ast.walk(tree)
                if isinstance(n, ast.Call)]
    assert plain._callees(source, tree) == expected


def test_the_helper_cell_is_inserted_once_after_the_first_code_cell_and_kept_fresh():
    nb = _nb(ANSWER, _hidden("_close(_tensor(f(_REF(1))), _REF(2))"))
    assert [c["id"] for c in nb["cells"]] == ["setup", plain.HELPER_GRADE_ID, "answer", "test_answer"]
    assert plain.sync_helper_cell(nb) is False
    stale = copy.deepcopy(nb)
    stale["cells"][1]["source"] = ["# edited\n"]
    assert _problems(stale)[0].startswith(f"the `{plain.HELPER_GRADE_ID}` cell is stale")
    assert plain.sync_helper_cell(stale) is True and stale == nb
    del stale["cells"][1]
    assert _problems(stale)[0].startswith(f"no `{plain.HELPER_GRADE_ID}` cell")


def test_grad_differentiates_an_exact_tensor_and_refuses_what_cannot_train(ns):
    leaf = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    got = ns["_grad"]((leaf.square().sum(), 7), leaf, "loss", index=0)
    assert type(got) is torch.Tensor and not got.requires_grad and torch.equal(got, 2 * leaf.detach())
    assert torch.equal(ns["_grad"](leaf.sum(), leaf, "loss"), torch.ones(3, dtype=torch.float64))
    with pytest.raises(AssertionError, match="cannot be differentiated"):
        ns["_grad"](torch.tensor(float(leaf.sum())), leaf, "a loss through a Python float")
    with pytest.raises(AssertionError, match="cannot be differentiated"):
        ns["_grad"](leaf.sum().detach(), leaf, "a detached loss")
    other = torch.ones(1, requires_grad=True)
    with pytest.raises(AssertionError, match="does not depend on its input"):
        ns["_grad"](other.sum(), leaf, "a loss of something else")
    with pytest.raises(AssertionError, match="not a subclass"):
        ns["_grad"](ns["_liar"](), leaf, "a lying loss")
    with pytest.raises(AssertionError, match="0-dimensional"):
        ns["_grad"](leaf * 2, leaf, "a vector")
    with pytest.raises(AssertionError, match="must be a tuple"):
        ns["_grad"](leaf.sum(), leaf, "loss", index=0)
    with pytest.raises(AssertionError, match="must have an item 2"):
        ns["_grad"]((leaf.sum(), 1), leaf, "loss", index=2)


def test_grad_with_weights_is_a_vector_jacobian_product(ns):
    leaf = torch.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=torch.float64, requires_grad=True)
    weights = torch.tensor([[1.0, 2.0], [-1.0, 0.5]], dtype=torch.float64)
    got = ns["_grad"](leaf.square(), leaf, "x squared", weights=weights)
    assert type(got) is torch.Tensor and torch.equal(got, 2 * leaf.detach() * weights)
    with pytest.raises(AssertionError, match=r"must have shape \(2, 2\), not \(4,\)"):
        ns["_grad"](leaf.square().reshape(4), leaf, "x squared", weights=weights)
    with pytest.raises(AssertionError, match="cannot be differentiated"):
        with torch.no_grad():
            ns["_grad"](leaf.square(), leaf, "a result computed under no_grad", weights=weights)
    with pytest.raises(AssertionError, match="not a subclass"):
        ns["_grad"](ns["_liar"](), leaf, "a lying result", weights=weights)


def test_scribble_writes_into_a_result_as_its_owner_may(ns):
    mask, counts = torch.tensor([True, False]), torch.tensor([[1, 2]], dtype=torch.int16)
    assert ns["_scribble"](mask, "mask") is None and torch.equal(mask, torch.tensor([False, True]))
    ns["_scribble"](counts, "counts")
    assert torch.equal(counts, torch.tensor([[2, 3]], dtype=torch.int16))
    table = torch.zeros(8, 8)
    ns["_scribble"](table[:2, :3], "a slice of a kept table")  # the table kept between calls sees the write
    assert table[:2, :3].eq(1).all() and table[2:].eq(0).all()
    leaf = torch.ones(3, requires_grad=True)
    ns["_scribble"](leaf, "a parameter")
    assert torch.equal(leaf.detach(), torch.full((3,), 2.0))
    # red team 20 (the aliasing student): a broadcast view cannot be written in place, so it is not a result its
    # caller owns: it fails, and says how to make one (it used to be left as it was, and passed)
    for view in (torch.ones(1).expand(4), torch.zeros(()).expand(3, 2), torch.ones(2, 1, dtype=torch.bool).expand(2, 5)):
        with pytest.raises(AssertionError, match=r"a broadcast view cannot be changed in place by its caller .*\.clone\(\)"):
            ns["_scribble"](view, "a broadcast view")
    ns["_scribble"](torch.empty(0, 3), "an empty tensor")
    with pytest.raises(AssertionError, match="not a subclass"):
        ns["_scribble"](ns["_liar"](), "a lying result")


def test_scribble_appends_to_every_list_of_a_list_result_and_refuses_shared_rows(ns):
    """Red team 33 (the late-binding student): a list made once and returned again for an empty input is seen at the
    next call through the item the caller appended; rows that are one list fail at once."""
    kept = []  # a module-level [] an answer hands out for an empty batch
    assert ns["_scribble"](kept, "an empty result") is None and kept == [None]
    rows = [[1, 2], [], [3, [4]]]
    ns["_scribble"](rows, "token lists")
    assert rows == [[1, 2, None], [None], [3, [4, None], None], None]
    for shared, what in (([[]] * 3, "rows made with [[]] * n"), ((lambda r: [r, [5], r])([7]), "one row twice")):
        with pytest.raises(AssertionError, match="holds one list in two places"):
            ns["_scribble"](shared, what)
    cyclic = [1]
    cyclic.append(cyclic)
    with pytest.raises(AssertionError, match="holds one list in two places"):
        ns["_scribble"](cyclic, "a list that holds itself")

    class Rows(list):  # a subclass is not a list the helper writes into: it goes the tensor way, and fails
        pass

    with pytest.raises(AssertionError, match="must be a torch.Tensor"):
        ns["_scribble"](Rows([[1]]), "a list subclass")


def test_grads_kept_refuses_a_grad_cleared_replaced_changed_or_set(ns):
    """Round 33, class BB: the .grad a caller's tensor holds stays that very tensor with its values; none stays none."""
    def leaves():
        held, bare = torch.ones(3, requires_grad=True), torch.zeros(2, requires_grad=True)
        held.grad = torch.full((3,), 0.5)
        return {"held": held, "bare": bare}

    honest = leaves()
    check = ns["_grads_kept"](honest, "f(x)")
    honest["held"].grad.detach()  # reading it changes nothing
    assert check() is None
    for change, message in ((lambda t: setattr(t["held"], "grad", None), "is not the object"),
                            (lambda t: setattr(t["held"], "grad", torch.full((3,), 0.5)), "is not the object"),
                            (lambda t: t["held"].grad.zero_(), "the .grad of held after f"),
                            (lambda t: setattr(t["bare"], "grad", torch.ones(2)), "bare got a .grad during the call")):
        tensors = leaves()
        check = ns["_grads_kept"](tensors, "f(x)")
        change(tensors)
        with pytest.raises(AssertionError, match=message):
            check()


def test_owned_refuses_an_input_handed_back_a_view_of_one_and_a_broadcast_view(ns):
    x, w = torch.zeros(0, 3), torch.ones(4)
    with pytest.raises(AssertionError, match="one of the tensors the caller passed in, returned as it is"):
        ns["_owned"](x, [x, w], "rms_norm of an empty batch")  # an empty input: no write could show it
    with pytest.raises(AssertionError, match="input 1 after the caller wrote into a view"):
        shared = torch.ones(4)
        ns["_owned"](shared[:2], [x, shared], "a view")  # shares memory with the input: the caller's write changes it
    with pytest.raises(AssertionError, match="cannot be changed in place by its caller"):
        ns["_owned"](torch.ones(1).expand(4), [x, w], "a broadcast view")
    fresh = torch.tensor([True, False])
    before = ns["_owned"](fresh, [x, w], "a new mask")
    assert torch.equal(before, torch.tensor([True, False])) and torch.equal(fresh, torch.tensor([False, True]))
    assert torch.equal(w, torch.ones(4))


def test_same_object_tells_the_callers_tensor_from_an_equal_one_in_its_place(ns):
    weight = torch.arange(6.0).reshape(2, 3)
    params = {"w": weight}
    assert ns["_same_object"](params["w"], weight, 'params["w"]') is None
    # what red team 12 handed in: the entry reshaped in the caller's dict and back, a view of the same memory
    # that every value check (and a write through the caller's tensor) agrees with
    for other in (weight.reshape(3, 2).reshape(2, 3), weight.view(2, 3), weight[:], weight.clone(),
                  weight.contiguous().clone(), torch.nn.Parameter(weight)):
        params["w"] = other
        assert torch.equal(other, weight)
        with pytest.raises(AssertionError, match=r'params\["w"\] is not the object the caller put there'):
            ns["_same_object"](params["w"], weight, 'params["w"]')
    with pytest.raises(AssertionError, match="not the object"):
        ns["_same_object"](ns["_liar"](), weight, "a lying result")  # no comparison of its own is asked


def test_hidden_tests_may_ask_for_the_callers_own_tensors():
    test = _hidden("_x = _REF(3)\n_p = {'w': _x.clone()}\n_kept = dict(_p)\n_r = f(_p['w'])\n"
                   "_same_object(_p['w'], _kept['w'], 'p[w] after the call')")
    assert _problems(_nb(ANSWER, test)) == []


def test_hidden_tests_may_compare_two_student_objects_by_identity_only():
    # a module's parameter before and after its call: both come from student code; `is` needs no conversion
    allowed = _hidden("_x = _REF(3)\n_before = (f(_x.clone()), answer)\n_after = (f(_x.clone()), answer)\n"
                      "for _i in range(2):\n    _same_object(_after[_i], _before[_i], 'entry after the call')")
    assert _problems(_nb(ANSWER, allowed)) == []
    # the message stays the test's own, and a third argument from student code is still refused
    refused = _hidden("_x = _REF(3)\n_a = f(_x.clone())\n_same_object(_a, _a, answer)")
    problems = _problems(_nb(ANSWER, refused))
    assert any("`answer` comes from student code and is passed to a helper" in p for p in problems), problems
    # other helpers still take a student value as their first argument only
    refused = _hidden("_x = _REF(3)\n_a = f(_x.clone())\n_tensor(_a, answer)")
    assert any("`answer` comes from student code" in p for p in _problems(_nb(ANSWER, refused)))


def test_hidden_tests_may_scribble_on_student_results():
    test = _hidden("_x = _REF(3)\n_first = f(_x.clone())\n_scribble(_first, 'f(x)')\n"
                   "_close(_tensor(f(_x.clone()), 'f(x) again'), _x * 2)")
    assert _problems(_nb(ANSWER, test)) == []


def _state():
    opts = torch._tensor_str.PRINT_OPTS
    return (torch.is_grad_enabled(), torch.get_default_dtype(), torch.is_anomaly_enabled(),
            torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
            torch.get_float32_matmul_precision(), torch.get_num_threads(),
            (opts.precision, opts.threshold, opts.edgeitems, opts.linewidth, opts.sci_mode))


def _restorer(kind):
    """A function that changes one setting and then puts back the default instead of what it found."""
    def answer(x):
        if kind == "grad":
            torch.set_grad_enabled(False)
            y = x * 2
            torch.set_grad_enabled(True)
        elif kind == "dtype":
            torch.set_default_dtype(torch.float64)
            y = x * 2
            torch.set_default_dtype(torch.float32)
        elif kind == "anomaly":
            torch.autograd.set_detect_anomaly(False)
            y = x * 2
        elif kind == "deterministic":
            torch.use_deterministic_algorithms(False)
            y = x * 2
        elif kind == "flush":
            torch.set_flush_denormal(True)
            y = x * 2
            torch.set_flush_denormal(False)
        elif kind == "matmul":
            torch.set_float32_matmul_precision("highest")
            y = x * 2
        elif kind == "threads":
            torch.set_num_threads(4)
            y = x * 2
        else:
            torch.set_printoptions(profile="default")
            y = x * 2
        return y
    return answer


@pytest.mark.parametrize("kind, named", [("grad", "the grad mode"), ("dtype", "the default dtype"),
                                         ("anomaly", "anomaly detection"), ("deterministic", "deterministic algorithms"),
                                         ("flush", "the flush-denormal mode"),
                                         ("matmul", "the float32 matmul precision"), ("threads", "the number of threads"),
                                         ("print", "the print options")])
def test_settings_kept_catches_a_function_that_puts_back_the_default_not_what_it_found(ns, kind, named):
    before = _state()
    # called with the defaults on, as every other test calls it, the function leaves nothing changed
    _restorer(kind)(torch.ones(3))
    if kind != "threads":
        assert _state() == before
    torch.set_num_threads(before[6])
    with pytest.raises(AssertionError, match=f"left changed: {named}") as err:
        ns["_settings_kept"](_restorer(kind), (torch.ones(3),), what="f")
    assert err.value.args[0].count(";") == 0 or kind == "threads"  # only the setting it touched is named
    assert _state() == before  # every setting back as the helper found it


def test_settings_kept_passes_with_blocks_and_restoring_functions_and_ignores_errors(ns):
    before = _state()

    def with_blocks(x, scale=1.0):
        with torch.no_grad(), torch.autograd.set_detect_anomaly(False):
            y = x * scale
        prev = torch.get_default_dtype()
        torch.set_default_dtype(torch.float32)
        try:
            z = torch.zeros(3)
        finally:
            torch.set_default_dtype(prev)
        return y + z

    assert ns["_settings_kept"](with_blocks, (torch.ones(3),), {"scale": 2.0}, "g") is None
    called = []

    def raises(x):
        called.append(x)
        raise RuntimeError("needs gradients")

    assert ns["_settings_kept"](raises, (torch.ones(2),)) is None  # an error is not looked at
    assert len(called) == 1
    assert _state() == before


def test_hidden_tests_may_hand_a_student_function_to_settings_kept():
    allowed = _hidden("_x = _REF(3)\n_settings_kept(f, (_x.clone(),), {'n': 2}, 'f')")
    assert _problems(_nb(ANSWER, allowed)) == []
    refused = _hidden("_x = _REF(3)\n_settings_kept(f, (answer,), None, 'f')")
    assert any("`(answer,)` comes from student code" in p for p in _problems(_nb(ANSWER, refused)))


def test_settings_kept_reads_print_options_without_running_an_answers_code(ns):
    """An answer that sets a print option to an object of its own (whose == says equal to anything) and leaves it: the
    helper reads the options' own dict and compares by type, so the change is named and none of its code runs."""
    ran = []
    Lying = equal_to_anything(ran)

    def answer(x):
        torch.set_printoptions(precision=Lying())
        return x

    try:
        with pytest.raises(AssertionError, match="left changed: the print options"):
            ns["_settings_kept"](answer, (torch.ones(2),), what="f")
    finally:
        torch.set_printoptions(profile="default")
    assert ran == [] and torch._tensor_str.PRINT_OPTS.precision == 4


def _sweep(ns, function, **options):
    """_dtype_sweep on a two-argument function whose reference is x * w + x (one result), float64, float32 and bfloat16
    inputs, gradients with respect to both arguments in bfloat16, the same objects called again in float32."""
    def make(g, dtype):
        return {"x": torch.randn(3, 4, generator=g, dtype=torch.float64).to(dtype),
                "w": torch.randn(3, 4, generator=g, dtype=torch.float64).to(dtype)}

    settings = dict(dtypes={torch.float64: 1e-12, torch.float32: 1e-5, torch.bfloat16: 5e-2},
                    grads={torch.bfloat16: 5e-2}, labels=("x", "w"), same_objects={torch.float32: 1e-5})
    settings.update(options)
    return ns["_dtype_sweep"](function, "f", lambda a: (a["x"], a["w"]), make, lambda v: [v["x"] * v["w"] + v["x"]],
                              lambda dtype: [((3, 4), dtype)], **settings)


def test_dtype_sweep_passes_an_honest_function_and_catches_each_of_round_30s_classes(ns):
    assert _sweep(ns, lambda x, w: x * w + x) is None
    assert _sweep(ns, lambda x, w: torch.addcmul(x, x, w)) is None  # written differently, the same values

    def writes_back(x, w):  # AJ: an input written in place with the values it held
        x.clamp_(min=-1e30)
        return x * w + x
    with pytest.raises(AssertionError, match="f for torch.float64 inputs .* wrote into x, even if only values it already held"):
        _sweep(ns, writes_back)

    def detached_in_half(x, w):  # AK: the gradient path cut for half precision only
        out = x * w + x
        return out.detach().clone() if x.dtype == torch.bfloat16 else out
    with pytest.raises(AssertionError, match="cannot be differentiated|does not depend on its input"):
        _sweep(ns, detached_in_half)
    assert _sweep(ns, detached_in_half, grads={}) is None  # only the gradient sweep sees it

    kept = {}

    def kept_per_id(x, w):  # AL: a converted copy kept per id(), stale once the values change in place
        wide = kept.setdefault(id(x), x.to(torch.float64))
        return (wide * w.to(torch.float64) + wide).to(x.dtype)
    with pytest.raises(AssertionError, match=r"f called again \(call 2\) on the same torch.float32 objects"):
        _sweep(ns, kept_per_id, dtypes={}, grads={})


def test_dtype_sweep_checks_the_form_of_each_result(ns):
    with pytest.raises(AssertionError, match="f for torch.float32 inputs .*, result 0 must have dtype torch.float32"):
        _sweep(ns, lambda x, w: (x * w + x).double())
    with pytest.raises(AssertionError, match="must be a torch.Tensor"):
        _sweep(ns, lambda x, w: (x * w + x).tolist())


def test_hidden_tests_may_hand_a_student_function_to_dtype_sweep():
    allowed = _hidden("_dtype_sweep(f, 'f', lambda a: (a['x'],), lambda g, d: {'x': _REF(3)}, lambda v: [v['x']],"
                      " lambda d: [((3,), d)], {1: 0.0})")
    assert _problems(_nb(ANSWER, allowed)) == []
    refused = _hidden("_dtype_sweep(f, 'f', lambda a: (answer,), lambda g, d: {'x': _REF(3)}, lambda v: [v['x']],"
                      " lambda d: [((3,), d)], {1: 0.0})")
    assert any("comes from student code" in p for p in _problems(_nb(ANSWER, refused)))
