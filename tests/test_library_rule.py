"""The exercises' library rule (attnlab.instructor.libraries): what it finds, and what it must not refuse.

The whole path through nbgrader (a NumPy answer loses its own part, an added cell's helper too) is
tested in test_instructor_hostile.py; here the static scan runs alone, on every chapter's notebook.
"""

from __future__ import annotations

import re
import sys

import nbformat
import pytest

from attnlab.instructor import libraries
from attnlab.instructor.execute import _gid, _kind
from grading import ROOT, solution_code

CHAPTERS = sorted(p.parent.name for p in (ROOT / "solutions").glob("*/exercises.ipynb"))
TORCH = libraries.allowed_modules(["import torch"])


def _source(chapter):
    return nbformat.read(ROOT / "solutions" / chapter / "exercises.ipynb", as_version=4)


def _locked(nb):
    return [c.source for c in nb.cells if c.cell_type == "code" and _kind(c) == "locked"]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_each_notebook_allows_what_its_introduction_names(chapter):
    nb = _source(chapter)
    intro = next(c.source for c in nb.cells if c.cell_type == "markdown" and "use only" in c.source)
    sentence = re.search(r"exercises use only (.*?)(\.|:)", intro.replace("\n", " ")).group(1)
    named = sorted(set(re.findall(r"`(\w+)`", sentence)) - set(sys.stdlib_module_names))  # `math` is an example
    assert libraries.notebook_libraries(_locked(nb)) == named, sentence


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_model_answers_and_correct_variants_keep_the_rule(chapter):
    import importlib

    allowed = libraries.allowed_modules(_locked(_source(chapter)))
    assert libraries.scan(list(solution_code(chapter).items()), allowed) == {}
    module = importlib.import_module("mutants_" + chapter.replace("-", "_"))
    for name, answers in module.CORRECT_VARIANTS.items():
        assert libraries.scan(list(answers.items()), allowed) == {}, name


def test_the_grading_helpers_numpy_import_allows_nothing():
    helpers = "def _helpers():\n    import numpy\n    return numpy\n"
    assert "numpy" not in libraries.allowed_modules(["import torch", helpers])
    assert "triton" in libraries.allowed_modules(["try:\n    import triton.language as tl\nexcept ImportError:\n    pass"])
    assert set(sys.stdlib_module_names) <= TORCH


BREAKS = {
    "import numpy as np\nx = np.zeros(3)": "line 1 imports numpy",
    "import numpy.linalg": "line 1 imports numpy",
    "from scipy.special import softmax": "line 1 imports from scipy",
    "def f(x):\n    import pandas\n    return x": "line 2 imports pandas",
    "np = __import__('numpy')": "line 1 imports numpy",
    "import importlib\nnp = importlib.import_module('numpy.random')": "line 2 imports numpy",
    "def f(x):\n    return torch.tensor(x.numpy() * 2)": "line 2 turns a tensor into a NumPy array (.numpy())",
    "def f(x):\n    return torch.Tensor.numpy(x)": "line 2 turns a tensor into a NumPy array (.numpy())",
    "%time y = x.numpy()": "line 1 turns a tensor into a NumPy array (.numpy())",
}


@pytest.mark.parametrize("code", list(BREAKS))
def test_what_breaks_the_rule(code):
    assert libraries.scan([("answer", code)], TORCH) == {"answer": [BREAKS[code]]}


KEEPS = [
    "import math, itertools, functools\nfrom collections import Counter\nimport torch.nn.functional as F\n",
    "def f(x):\n    return torch.tensor(x.tolist())",
    "try:\n    import attnlab\nexcept ImportError:\n    attnlab = None",  # the kernel's hook answers it
    "from fractions import Fraction\nnumbers = [Fraction(1, 3)]",
    "def numpy_free(x):\n    numpy = x + 1\n    return numpy",  # a name is not an import
]


@pytest.mark.parametrize("code", KEEPS)
def test_what_keeps_the_rule(code):
    assert libraries.scan([("answer", code)], TORCH) == {}


def test_names_from_a_cell_that_breaks_the_rule_carry_it_to_the_cells_that_use_them():
    cells = [
        ("added-1", "import numpy as np\n\ndef helper(x):\n    return x\nfor other in [np.exp]:\n    pass"),
        ("part1", "def one(x):\n    return helper(x) + other(x)"),  # the added cell's helpers: breaks it
        ("part2", "def two(x):\n    return np.exp(x)"),              # the added cell's import
        ("part3", "def three(x, helper=None):\n    return x"),      # its own name, not the helper
        ("part4", "def four(x):\n    return one(x)"),                 # an earlier answer: its tests call a reference
        ("part5", "def five(x):\n    return later(x)"),              # a helper of an added cell further down
        ("added-2", "import scipy\n\ndef later(x):\n    return x"),
    ]
    found = libraries.scan(cells, TORCH, added={"added-1", "added-2"})
    assert found["added-1"] == ["line 1 imports numpy"]
    assert found["part1"] == ["line 2 uses helper (defined in cell added-1, which uses libraries outside the rule)",
                              "line 2 uses other (defined in cell added-1, which uses libraries outside the rule)"]
    assert found["part2"] == ["line 2 uses np (numpy, imported in cell added-1)"]
    assert found["part5"] == ["line 2 uses later (defined in cell added-2, which uses libraries outside the rule)"]
    assert "part3" not in found and "part4" not in found


def test_an_answer_defined_again_by_an_added_cell_that_breaks_the_rule_breaks_it_too():
    """Red team 9: the answer cell in torch, then a cell below defines the same function with NumPy; the tests
    call the last definition, so the part breaks the rule (an added cell redefining it with torch does not)."""
    cells = [("part1", "def one(x):\n    return x"),
             ("added-1", "import numpy as np\ndef one(x):\n    return torch.from_numpy(np.exp(x.numpy()))"),
             ("part2", "def two(x):\n    return x"),
             ("added-2", "def two(x):\n    return torch.exp(x)"),
             ("part3", "def three(x):\n    return x"),
             ("added-3", "import numpy as np\ndef three(x):\n    return x"),
             ("part3b", "def three(x):\n    return x")]  # bound again after the added cell: the answer's own
    found = libraries.scan(cells, TORCH, added={"added-1", "added-2", "added-3"})
    assert found["part1"] == ["one is defined again in cell added-1, which uses libraries outside the rule"]
    assert "part2" not in found and "part3" not in found and "part3b" not in found


def test_the_last_binding_of_a_name_wins():
    cells = [("added-1", "import numpy as np\ndef helper(x):\n    return np.exp(x)"),
             ("part1", "def one(x):\n    return helper(x)"),
             ("added-2", "def helper(x):\n    return torch.exp(x)"),  # rewritten with torch before the tests run
             ("part2", "np = None\ndef two(x):\n    return x"),
             ("part3", "def three(x):\n    return np")]
    found = libraries.scan(cells, TORCH, added={"added-1", "added-2"})
    assert set(found) == {"added-1"}


EVASIONS = {
    "np = sys.modules['numpy']": "line 1 reads numpy from sys.modules",
    "y = x.__array__()": "line 1 turns a tensor into a NumPy array (__array__)",
    "y = getattr(x, 'numpy')()": "line 1 reaches NumPy through getattr(..., 'numpy')",
    "y = F.np.einsum('i,i', a, b)": "line 1 uses NumPy through torch (F.np)",
    "from torch.nn.functional import np": "line 1 imports NumPy through torch.nn.functional (np)",
    "exec('import numpy as np')": "line 1 imports numpy",
    "import pkgutil\nf = pkgutil.resolve_name('numpy.exp')": "line 2 imports numpy",
    # modules reached by a name built at run time, or loaded by hand
    "np = sys.modules.get('numpy')": "line 1 reads numpy from sys.modules",
    "name = 'num' + 'py'\nnp = sys.modules[name]": "line 2 reads sys.modules by a name this check cannot read",
    "np = [m for k, m in sys.modules.items() if k.startswith('nu')][0]":
        "line 1 reads sys.modules by a name this check cannot read",
    "import sys as s\nnp = s.modules[k]": "line 2 reads sys.modules by a name this check cannot read",
    "from sys import modules": "line 1 imports sys.modules, which reaches modules by names this check cannot read",
    "import importlib.util\nspec = importlib.util.find_spec('nu' + 'mpy')":
        "line 2 loads a module by hand (find_spec), which this check cannot read",
    "import runpy\nns = runpy.run_module(name)": "line 2 loads a module by hand (run_module), which this check cannot read",
    # code in strings that library code runs (red team 16): a timeit statement, an annotation evaluated
    "import timeit\nt = timeit.timeit('import numpy', number=1)": "line 1 imports numpy",
    "def f(x: \"__import__('numpy')\"): pass": "line 1 imports numpy",
}


@pytest.mark.parametrize("code", list(EVASIONS))
def test_ways_around_a_plain_import_break_the_rule_too(code):
    assert EVASIONS[code] in libraries.scan([("answer", code)], TORCH)["answer"]


@pytest.mark.parametrize("code", [
    "from IPython.display import display, Markdown\ndisplay(Markdown('**done**'))",
    "class Config:\n    numpy = False\nuse = Config().numpy",
    "ok = hasattr(x, 'numpy')",
    "version = sys.modules['torch'].__version__\nhave_triton = 'triton' in sys.modules",
    "for m in model.modules():\n    m.eval()",
    "from IPython import display\ndisplay.display(display.Markdown('**done**'))",
    "def f(x: 'torch.Tensor') -> 'torch.Tensor':\n    return x\nnote = 'x.mean(); import this later'",
])
def test_torch_only_answers_keep_the_rule(code):
    assert libraries.scan([("answer", code)], TORCH) == {}


def test_each_answer_cell_owns_the_graded_cells_up_to_the_next_answer():
    nb = _source("02-scaled-attention")
    parts = libraries.part_tests([(_kind(c), _gid(c), bool(c.metadata.get("nbgrader", {}).get("grade")))
                                  for c in nb.cells if c.cell_type == "code"])
    assert parts["raw_scores"] == ["test_raw_scores"]
    assert parts["mc_answers"] == ["test_answer_masking", "test_answer_doubling"]
    assert sorted(t for tests in parts.values() for t in tests) == sorted(
        c.metadata.nbgrader.grade_id for c in nb.cells if c.cell_type == "code" and _kind(c) == "test")


def test_a_cell_the_student_added_is_the_students_code():
    added = nbformat.v4.new_code_cell("x = 1")
    assert _kind(added) == "student" and _gid(added).startswith("added-")
    locked = nbformat.v4.new_code_cell("import torch", metadata={"nbgrader": {"locked": True, "grade_id": "setup"}})
    assert _kind(locked) == "locked"


def test_the_message_names_the_libraries_and_the_part():
    text = libraries.message("causal_mask", ["line 1 imports numpy"], ["torch", "triton"])
    assert text.startswith("answer cell causal_mask line 1 imports numpy: the exercises use only `torch` and `triton`")
    assert text.endswith("so this part scores 0")
