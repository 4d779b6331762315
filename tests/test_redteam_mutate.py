"""tests/redteam_mutate.py, the mutation sweep of the model answers: which changes it makes, and that it
tells a mutant the visible tests catch from one only the hidden tests catch and from one nothing catches."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import redteam_mutate as rm

ROOT = Path(__file__).resolve().parents[1]

ANSWER = '''def f(x):
    """Returns |x| + 1; raises for a string."""
    if isinstance(x, str):
        raise TypeError("f takes a number, not a str like 'abc'")
    if x < 0:
        x = -x
    return x + 1
'''


def _changes(code):
    return {what.split(" ", 1)[1]: change for what, _text, change in rm.mutants(code)}


def test_every_kind_of_change_is_made_once_and_text_is_left_alone():
    found = _changes(ANSWER)
    assert "Lt -> LtE" in found and found["Lt -> LtE"] == "if x < 0:  ->  if x <= 0:"
    assert "Add -> Sub" in found and found["Add -> Sub"] == "return x + 1  ->  return x - 1"
    assert "drop USub" in found and found["drop USub"] == "x = -x  ->  x = x"
    assert "0 -> 1" in found and "1 -> 2" in found
    assert any(k.startswith("drop the statement at line 5") for k in found)  # the `if x < 0` block
    texts = [text for _what, text, _change in rm.mutants(ANSWER)]
    assert len(texts) == len(set(texts))  # no mutant twice
    # nothing inside a docstring or an error message is changed (only dropped, with the statement that raises it)
    kept = [text for what, text, _change in rm.mutants(ANSWER) if "drop the statement at line 3" not in what]
    assert len(kept) == len(texts) - 1
    assert all("Returns |x| + 1; raises for a string." in t and "not a str like 'abc'" in t for t in kept)


def test_calls_lose_a_keyword_or_a_method_or_swap_arguments_and_twins_are_swapped():
    found = _changes("def g(x, y):\n    z = torch.amax(x.clone(), dim=-1, keepdim=True)\n"
                     "    return torch.where(z > 0, x, y).to(torch.float64)\n")
    assert found["drop keyword keepdim="] == \
        "z = torch.amax(x.clone(), dim=-1, keepdim=True)  ->  z = torch.amax(x.clone(), dim=-1)"
    assert found["drop .clone(...)"].endswith("z = torch.amax(x, dim=-1, keepdim=True)")
    assert found[".amax -> .amin"].endswith("torch.amin(x.clone(), dim=-1, keepdim=True)")
    assert found[".float64 -> .float32"].endswith(".to(torch.float32)")
    assert found["swap positional arguments 1 and 2"].endswith("torch.where(z > 0, y, x).to(torch.float64)")
    # a symmetric function's arguments are not swapped, and -(-1) is not made from -1
    assert not any("swap" in k for k in _changes("m = max(a, b)\nt = x.transpose(1, 2)\n"))
    assert "-1 -> 1" not in " ".join(_changes("y = x.sum(dim=-1)\n"))


def test_the_second_family_swaps_parameters_moves_bounds_by_one_reorders_tuples_and_works_in_place():
    code = "def h(q, k, n):\n    s = q[:n] * k\n    out = torch.arange(n)\n    return s, out\n"
    second = [(what.split(" ", 1)[1], change) for what, _text, change in rm.mutants(code, ("second",))]
    assert ("parameter k where q is", "s = q[:n] * k  ->  s = k[:n] * k") in second
    assert ("parameter q where k is", "s = q[:n] * k  ->  s = q[:n] * q") in second
    for sign in "+-":  # in a slice bound and in a size
        assert (f"n -> n {sign} 1", f"s = q[:n] * k  ->  s = q[:n {sign} 1] * k") in second
        assert (f"n -> n {sign} 1", f"out = torch.arange(n)  ->  out = torch.arange(n {sign} 1)") in second
    assert ("items 0 and 1 of the tuple in the other order", "return (s, out)  ->  return (out, s)") in second
    assert not any("changed in place" in w for w, _c in second)  # q[:n] * k: the left operand is not a parameter
    in_place = rm.mutants("def f(x, s):\n    return x * s\n", ("second",))
    assert any(change == "return x * s  ->  return x.mul_(s)" for _w, _t, change in in_place)
    # the families are disjoint, and the default makes all of them
    first = {text for _w, text, _c in rm.mutants(code, ("first",))}
    assert not first & {text for _w, text, _c in rm.mutants(code, ("second",))}
    assert len(rm.mutants(code, ("first", "second"))) == len(first) + len(second)
    assert len(rm.mutants(code)) == len(rm.mutants(code, ("first", "second"))) + len(rm.mutants(code, ("third",))) \
        + len(rm.mutants(code, ("fourth",)))


def test_the_third_family_swaps_locals_leaves_out_early_exits_and_moves_compared_bounds():
    code = ("def k(xs, n):\n    total = 0\n    best = None\n    for x in xs:\n        if x > n:\n            break\n"
            "        total = total + x\n    if total == 0:\n        return best\n    return total\n")
    third = [(what.split(" ", 1)[1], change) for what, _text, change in rm.mutants(code, ("third",))]
    assert ("local best where total is", "total = total + x  ->  total = best + x") in third
    assert ("local total where best is", "return best  ->  return total") in third
    assert ("leave out the break at line 6", "break  ->  pass") in third
    assert ("leave out the return at line 9", "return best  ->  pass") in third
    assert not any("return at line 10" in w for w, _c in third)  # the function's own last return stays
    assert ("n -> n + 1", "if x > n:  ->  if x > n + 1:") in third
    # a local is only swapped for one bound before the line that uses it
    chain = [w for w, _t, _c in rm.mutants("def f(a):\n    y = a * 2\n    z = y + 1\n    w = z * 3\n    return w\n",
                                            ("third",))]
    assert sorted(w.split(" ", 1)[1] for w in chain) == ["local y where w is", "local y where z is", "local z where w is"]


def test_the_fourth_family_makes_tensor_level_slips():
    code = ("def f(x, mask, w):\n"
            "    s = torch.einsum('bqd,bkd->bqk', x, x) / math.sqrt(x.shape[-1])\n"
            "    s = s.masked_fill(mask, float('-inf'))\n"
            "    y = torch.zeros_like(x) + x.mul(2)[:, None]\n"
            "    for i in range(1, 4):\n"
            "        y = torch.tanh(y).to(x.dtype)\n"
            "    return (torch.softmax(s, -1) @ w.T).sum(-1)\n")
    fourth = [(what.split(" ", 1)[1], change) for what, _text, change in rm.mutants(code, ("fourth",))]
    found = dict(fourth)
    assert len(found) == len(fourth)  # every description once here
    assert found["the mask of masked_fill inverted"].endswith("s = s.masked_fill(~mask, float('-inf'))")
    assert found["float('-inf') -> 0.0"].endswith("s = s.masked_fill(mask, 0.0)")
    assert found["float('-inf') -> -1000000000.0"].endswith("s.masked_fill(mask, -1000000000.0)")
    assert found["sqrt(x) -> x"].endswith("torch.einsum('bqd,bkd->bqk', x, x) / x.shape[-1]")
    assert found["einsum output letters 1 and 2 in the other order"].startswith("s = torch.einsum('bqd,bkd->bqk'")
    assert "'bqd,bkd->bkq'" in found["einsum output letters 1 and 2 in the other order"]
    assert found["zeros_like(x) -> zeros(x.shape) (float32, the input's dtype lost)"].endswith(
        "y = torch.zeros(x.shape) + x.mul(2)[:, None]")
    assert found[".mul(...) -> .mul_(...) on a parameter"].endswith("y = torch.zeros_like(x) + x.mul_(2)[:, None]")
    assert found["a new axis moved (index items 0 and 1 in the other order)"].endswith("x.mul(2)[None, :]")
    assert found["range(a, b) -> range(b)"] == "for i in range(1, 4):  ->  for i in range(4):"
    assert found["tanh -> sigmoid"].endswith("y = torch.sigmoid(y).to(x.dtype)")
    assert found["tanh(x) -> x"].endswith("y = y.to(x.dtype)")
    assert found["x.dtype -> torch.float64"].endswith("y = torch.tanh(y).to(torch.float64)")
    assert found["softmax over every dimension (its dim left out)"].endswith("(torch.softmax(s) @ w.T).sum(-1)")
    assert found["sum over every dimension (its dim left out)"].endswith("(torch.softmax(s, -1) @ w.T).sum()")
    assert found["drop .T"].endswith("(torch.softmax(s, -1) @ w).sum(-1)")
    assert found["f returns its result detached"].endswith(".sum(-1).detach()")
    assert found["f returns its result as float32"].endswith(".sum(-1).float()")
    assert found["x made double on entry to f (and never cast back)"] == "  ->  x = x.double()"
    assert found["mask made float on entry to f (and never cast back)"] == "  ->  mask = mask.float()"
    # in place only on a parameter: a local's method stays out of place
    assert not any("_(...)" in w for w, _t, _c in rm.mutants("def g(a):\n    b = a + 1\n    return b.mul(2)\n",
                                                            ("fourth",)))
    # torch.where's condition is its first argument; torch.masked_fill's mask its second
    assert dict((w.split(" ", 1)[1], c) for w, _t, c in rm.mutants(
        "def h(m, a, b):\n    return torch.where(m, a, b) + torch.masked_fill(a, m, 0)\n", ("fourth",))
    )["the mask of where inverted"].endswith("torch.where(~m, a, b) + torch.masked_fill(a, m, 0)")


def test_a_correct_variant_takes_the_place_of_the_model_answer_in_the_cells_it_fills():
    import mutants_02_scaled_attention as spec
    name = "loops_and_torch"
    model = {gid: code for gid, code, answer, _p in rm.notebook_cells("02-scaled-attention") if answer}
    cells = rm.notebook_cells("02-scaled-attention", name)
    swapped = {gid: code for gid, code, answer, _p in cells if answer}
    filled = spec.CORRECT_VARIANTS[name]
    assert set(filled) <= set(swapped) and filled
    for gid in swapped:  # the variant's code where it has some (as notebook_cells joins lines), the model answer elsewhere
        assert swapped[gid] == ("\n".join(filled[gid].splitlines()) if gid in filled else model[gid]), gid
    assert any(swapped[gid] != model[gid] for gid in filled)
    # the other cells (setup, hidden tests) are the source notebook's
    assert [c for c in cells if not c[2]] == [c for c in rm.notebook_cells("02-scaled-attention") if not c[2]]
    with pytest.raises(SystemExit, match="no correct variant 'nonesuch'"):
        rm.notebook_cells("02-scaled-attention", "nonesuch")


def _notebook(tmp_path):
    def cell(gid, code, **meta):
        return {"cell_type": "code", "execution_count": None, "metadata": {"nbgrader": {"grade_id": gid, **meta}},
                "outputs": [], "source": code}
    nb = {"cells": [cell("setup", "import math\nimport time\n", locked=True),
                    cell("answer", "### BEGIN SOLUTION\n" + ANSWER + "### END SOLUTION\n", solution=True),
                    cell("test_f", "assert f(2) == 3\n### BEGIN HIDDEN TESTS\nassert f(-2) == 3\nassert f(0) == 1\n"
                                   "### END HIDDEN TESTS\n", grade=True, points=2),
                    # the same answer again, whose hidden test waits for g(-3) == 4: for ever on the mutant `x = x`
                    # (asleep, so that the 10 s it waits take no core from the rest of the suite)
                    cell("answer_g", ANSWER.replace("def f", "def g"), solution=True),
                    cell("test_g", "assert g(2) == 3\n### BEGIN HIDDEN TESTS\nwhile g(-3) != 4:\n    time.sleep(0.05)\n"
                                   "### END HIDDEN TESTS\n", grade=True, points=1)],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "exercises.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_the_sweep_tells_visible_from_hidden_from_surviving_mutants_and_stops_one_that_hangs(tmp_path):
    run = subprocess.run([sys.executable, str(ROOT / "tests" / "redteam_mutate.py"), str(_notebook(tmp_path)),
                          # 10 s a mutant: under a load of several times the cores (CI beside other work) mutants
                          # that end at once took more than 3 s and were listed as hanging
                          "--processes", "2", "--timeout", "10"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout
    blocks = {}  # each part's lines, from its "== grade_id: ..." line on (parts finish in any order)
    for line in out.splitlines():
        if line.startswith("== "):
            name = line[3:].split(":")[0]
        if line.startswith(("== ", "  ")):
            blocks[name] = blocks.get(name, "") + line + "\n"
    part_f, part_g = blocks["answer"], blocks["answer_g"]
    summary = part_f.splitlines()[0]
    total = len(rm.mutants(ANSWER))
    counts = {part.split()[0]: int(part.split()[1]) for part in summary.split(": ", 2)[2].split(", ")}
    assert sum(counts.values()) == total, summary
    assert counts["visible"] >= 3 and counts["caught"] >= 2 and counts["SURVIVED"] >= 2, summary
    # `x <= 0` negates 0, which changes nothing: it survives; `x = x` returns -1 for -2: only a hidden test sees it
    assert "if x < 0:  ->  if x <= 0:" in part_f, out
    assert "x = -x  ->  x = x" not in part_f, out
    # the same mutant of g hangs in its hidden test: stopped after 10 s and listed
    assert "timeout answer_g" in part_g and "x = -x  ->  x = x" in part_g, out
