"""Helpers for exercise-pipeline tests: build submissions from the sources, grade them with nbgrader."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def core_share() -> int:
    """This test process's share of the cores: all of them, or under pytest-xdist its part of them."""
    processes = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    return max(1, len(os.sched_getaffinity(0)) // processes)


SOLUTION_LINES = ("### BEGIN SOLUTION", "### END SOLUTION")


def load(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def answer_cells(nb: dict) -> dict[str, dict]:
    """The cells a student writes in, by nbgrader grade_id."""
    return {
        c["metadata"]["nbgrader"]["grade_id"]: c
        for c in nb["cells"]
        if c["metadata"].get("nbgrader", {}).get("solution")
    }


def solution_code(chapter: str) -> dict[str, str]:
    """Each answer cell of ``solutions/<chapter>`` with the marker lines removed: the model answer."""
    nb = load(ROOT / "solutions" / chapter / "exercises.ipynb")
    code = {}
    for gid, cell in answer_cells(nb).items():
        source = "".join(cell["source"])
        code[gid] = "\n".join(line for line in source.splitlines() if line.strip() not in SOLUTION_LINES)
    return code


def replaced(code: str, old: str, new: str, once: bool = False) -> str:
    """``code`` with ``old`` replaced by ``new``, for a mutant that changes one line of an answer; fails if
    ``code`` (a model answer or a correct variant) no longer holds ``old`` (with ``once``: holds it other than once)."""
    assert code.count(old) == 1 if once else old in code, f"the code no longer holds {old!r}{' once' if once else ''}"
    return code.replace(old, new)


def from_storage_start(code: str, name: str, *inputs: str) -> str:
    """``code`` (an answer that defines ``name``) with each of ``inputs`` rebuilt, on the function's first lines, as
    ``torch.as_strided(x, x.shape, x.stride(), 0)``: read from its storage's start, which is the input itself only
    when it starts there (round 26's class T: an input that starts inside a bigger tensor's storage)."""
    head, sep, body = code.partition(f"def {name}(")
    signature, colon, body = body.partition("):\n")
    assert sep and colon, f"no one-line signature of {name} in the answer"
    lines = "".join(f"    {n} = torch.as_strided({n}, {n}.shape, {n}.stride(), 0)\n" for n in inputs)
    return head + sep + signature + colon + lines + body


def place_mutant(mutants: dict, batches: list[list[str]], name: str, batch: int | str | None) -> None:
    """Put mutant ``name`` into ``batches[batch]``; with ``"free"`` into the first batch with room, with None into a
    batch of its own. A batch holds no two mutants of one graded test or of one answer cell."""
    test, cells = mutants[name]

    def room(members):
        return all(mutants[m][0] != test and not set(cells) & set(mutants[m][1]) for m in members)
    if batch is None:
        batches.append([])
        batch = -1
    elif batch == "free":
        batch = next(i for i, members in enumerate(batches) if room(members))
    assert room(batches[batch]), (name, batch)
    batches[batch].append(name)


def place_mutants(mutants: dict, batches: list[list[str]], names, otherwise: str) -> list[str]:
    """Put each of ``names``, in order, into the first batch with room (:func:`place_mutant` with ``"free"``). One that
    no batch has room for gets a batch of its own, which the next ones may join (``otherwise="new"``), or stays out of
    the batches and runs alone in a plain process (``otherwise="alone"``), or is taken out of ``mutants``
    (``otherwise="drop"``: a mutant already caught, kept only where it costs no notebook). Returns the names left
    alone or dropped."""
    assert otherwise in ("new", "alone", "drop"), otherwise
    alone = []
    for name in names:
        try:
            place_mutant(mutants, batches, name, "free")
        except StopIteration:
            if otherwise == "new":
                place_mutant(mutants, batches, name, None)
            else:
                alone.append(name)
                if otherwise == "drop":
                    del mutants[name]
    return alone


def equal_to_anything(ran: list) -> type:
    """A class whose instances say they equal anything (``==`` and ``!=`` both answer True) and note each comparison in
    ``ran``: an answer's object that code comparing settings or values must not consult."""
    class Lying:
        def __eq__(self, other):
            ran.append("eq")
            return True

        __ne__ = __eq__

        def __hash__(self):
            return 0

    return Lying


def around_body(code: str, before: str, after: str, prologue: str = "") -> str:
    """``code`` (a model answer: a ``def`` whose last line returns) with ``before`` as its first statement and ``after``
    just before it returns (its value kept in ``out`` meanwhile), ``prologue`` above the ``def``: the round-31 sweep's
    mutants that change one of torch's settings and put back the default, not what they found."""
    head, body = code.split("\n", 1)
    lines = body.rstrip("\n").split("\n")
    last = lines[-1]
    assert last.startswith("    return "), last
    return (prologue + head + "\n    " + before + "\n" + "\n".join(lines[:-1]) + "\n    out = " + last[len("    return "):]
            + "\n    " + after + "\n    return out\n")


def renamed_parameters(code: str, name: str, params: list[str]) -> str:
    """``code`` with every parameter of function ``name`` (whose ``def`` line lists exactly ``params``) renamed
    (``p`` becomes ``p_``) and bound back to the stub's names on the body's first line: the same values by position,
    a ``TypeError`` for a call that names an argument (the renamed-argument mutants of round 21)."""
    return replaced(code, f"def {name}({', '.join(params)}):\n",
                    f"def {name}({', '.join(p + '_' for p in params)}):\n"
                    f"    {', '.join(params)} = {', '.join(p + '_' for p in params)}\n", once=True)


def kept_output_buffer(code: str, name: str, params: str = "*args, **kwargs", args: str = "*args, **kwargs") -> str:
    """``code`` (an answer that defines ``name``) with ``name`` wrapped so that it copies each tensor it returns
    (also inside a returned tuple, list or dict) into a buffer kept per place, shape and dtype and returns that
    buffer: a mutant for round 15's class of results that the next call of the same shape overwrites while the
    caller still holds them."""
    return code + f"""
_general_{name} = {name}
_BUF = {{}}


def _kept(result, path):
    if isinstance(result, torch.Tensor):
        key = (path, tuple(result.shape), result.dtype)
        if key not in _BUF:
            _BUF[key] = torch.empty_like(result)
        _BUF[key].copy_(result)
        return _BUF[key]
    if isinstance(result, (tuple, list)):
        return type(result)(_kept(r, path + (n,)) for n, r in enumerate(result))
    if isinstance(result, dict):
        return {{k: _kept(r, path + (k,)) for k, r in result.items()}}
    return result


def {name}({params}):
    return _kept(_general_{name}({args}), ())
"""


def write_submission(chapter: str, path: Path, answers: dict[str, str] | None = None, *, base: str = "solution") -> Path:
    """Write a submission: the committed student notebook with its answer cells filled in.

    ``base="solution"`` starts from the model answers, ``base="student"`` from the stubs;
    ``answers`` then replaces individual cells by grade_id.
    """
    nb = load(ROOT / "chapters" / chapter / "exercises.ipynb")
    cells = answer_cells(nb)
    fill = solution_code(chapter) if base == "solution" else {}
    fill.update(answers or {})
    unknown = set(fill) - set(cells)
    if unknown:
        raise KeyError(f"no answer cells {sorted(unknown)} in {chapter}")
    for gid, code in fill.items():
        cells[gid]["source"] = code
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return path



# round 28 (the memoizer): source of a cache an answer keeps between calls, answered from its last call when every
# argument is the same object (tensors by id() and _version, the rest by value), and of a converted copy kept per
# id(); the mutants of chapters 8 and 9 wrap model answers in them
MEMO_BY_ID_AND_VERSION = '''
import weakref
LAST_CALL = {}
def keyof(a):
    if isinstance(a, torch.Tensor):
        return ("tensor", id(a), a._version, tuple(a.shape), a.dtype, a.stride())
    if isinstance(a, dict):
        return ("dict", id(a)) + tuple((k, keyof(v)) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return ("list", id(a)) + tuple(keyof(v) for v in a)
    if callable(a):
        return ("function", id(a))
    return ("value", repr(a))
def tensors_in(a):
    if isinstance(a, torch.Tensor):
        return [a]
    if isinstance(a, dict):
        return [t for v in a.values() for t in tensors_in(v)]
    if isinstance(a, (list, tuple)):
        return [t for v in a for t in tensors_in(v)]
    return []
def copied(r):
    if isinstance(r, torch.Tensor):
        return r.clone()
    if isinstance(r, dict):
        return {k: copied(v) for k, v in r.items()}
    if isinstance(r, (list, tuple)):
        return type(r)(copied(v) for v in r)
    return r
def remembered(fn, args):
    key = keyof(args)
    same = LAST_CALL.get("key") == key and all(r() is t for r, t in zip(LAST_CALL["refs"], tensors_in(args)))
    if not same:
        LAST_CALL.update(key=key, refs=[weakref.ref(t) for t in tensors_in(args)], value=fn(*args))
    return copied(LAST_CALL["value"])
'''
# a value kept per id() and _version of some tensors (chapters 3 and 4): `kept_by_version(tensors, make)`
KEPT_BY_VERSION = '''
BY_VERSION = {}


def kept_by_version(tensors, make):
    """make() kept per id() and _version of the tensors (held, so that their ids stay theirs)."""
    key = tuple((id(t), t._version) for t in tensors)
    hit = BY_VERSION.get(key)
    if hit is None or any(a is not b for a, b in zip(hit[0], tensors)):
        hit = BY_VERSION[key] = (list(tensors), make())
    return hit[1]

'''
KEPT_PER_ID = '''
import weakref
KEPT = {}
def kept(t, convert):
    entry = KEPT.get(id(t))
    if entry is None or entry[0]() is not t:
        entry = (weakref.ref(t), convert(t))
        KEPT[id(t)] = entry
    return entry[1]
'''


def cached_by_id_and_version(code: str, name: str, params: list[str]) -> str:
    """``code`` with ``name`` answered from its last call when every argument is the same object (tensors by id() and
    _version, the rest by value)"""
    bare = [p.split("=")[0] for p in params]
    return (replaced(code, f"def {name}(", f"def {name}_computed(", once=True) + MEMO_BY_ID_AND_VERSION
            + f"def {name}({', '.join(params)}):\n    return remembered({name}_computed, ({', '.join(bare)},))\n")


def chain(code: str, *pairs: str) -> str:
    """``code`` with each (old, new) pair replaced once, in order"""
    for old, new in zip(pairs[::2], pairs[1::2]):
        code = replaced(code, old, new, once=True)
    return code


def total(parts: dict) -> float:
    return sum(p.score for p in parts.values())


def maximum(parts: dict) -> float:
    return sum(p.max_score for p in parts.values())


def load_script(relative_path: str):
    """Import a script from the repository (e.g. ``experiments/pre_post_ln.py``) as a module."""
    import importlib.util

    path = ROOT / relative_path
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")
ANSWER = re.compile(r"^\w+=(\"\w\"|'\w'|[\d_.*+/()]+)$")


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def secret_lines(chapter: str) -> set[str]:
    """Lines of the model answers and hidden tests that appear nowhere a student may see them:
    not in the student notebook and not in the code the course publishes (package, experiments,
    benchmarks)."""
    source = load(ROOT / "solutions" / chapter / "exercises.ipynb")
    student = squash(json.dumps(load(ROOT / "chapters" / chapter / "exercises.ipynb")["cells"]))
    published = [*(ROOT / "src" / "attnlab").glob("*.py"), *(ROOT / "experiments").glob("*.py"), *(ROOT / "benchmarks").glob("*.py")]
    public = squash("".join(p.read_text() for p in published))
    secrets = set()
    for cell in source["cells"]:
        inside = None
        for line in "".join(cell["source"]).splitlines():
            stripped = line.strip()
            if stripped in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS"):
                inside = stripped
                continue
            if stripped in ("### END SOLUTION", "### END HIDDEN TESTS"):
                inside = None
                continue
            squashed = squash(line)
            # long lines, or short answers such as `answer_masking = "c"` / `crossover_length = 1536`;
            # short generic code (`with torch.no_grad():`) may appear anywhere and is not a leak
            distinctive = len(squashed) >= 24 or ANSWER.match(squashed)
            if inside and distinctive and not squashed.startswith("#"):
                if squashed not in public and json.dumps(line.strip())[1:-1].replace(" ", "") not in student:
                    secrets.add(squashed)
    return secrets


def found_in(lines, text: str, gram: int = 12) -> list[str]:
    """The members of ``lines`` that occur in ``text``: exactly ``[s for s in lines if s in text]``, sorted.

    The plain scan reads all of ``text`` once per line: the built book's 90 files against 9556 secret lines took
    6.6 s of CPU, 1.5 s this way. Here ``text``'s substrings of ``gram`` characters are collected once; a line at
    least that long is searched for only when its first, middle and last ``gram`` characters all occur
    (a necessary condition), so the exact search runs for a few candidates only."""
    grams = None
    found = []
    for line in lines:
        if len(line) >= gram:
            if grams is None:
                grams = {text[i:i + gram] for i in range(len(text) - gram + 1)}
            mid = (len(line) - gram) // 2
            if line[:gram] not in grams or line[mid:mid + gram] not in grams or line[-gram:] not in grams:
                continue
        if line in text:
            found.append(line)
    return sorted(found)


LIAR_PRELUDE = '''
import torch as _t


class _LiarTensor(_t.Tensor):
    """Answers every comparison with success: equal/allclose True, eq/isclose/isfinite all True."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("equal", "allclose", "__bool__", "is_nonzero"):
            return True
        with _t._C.DisableTorchFunctionSubclass():
            try:
                out = func(*args, **(kwargs or {}))
            except Exception:
                return _t.zeros(1, dtype=_t.bool).as_subclass(cls)
        if name in ("eq", "isclose", "isfinite", "lt", "le", "gt", "ge", "__eq__", "__lt__", "__le__", "__gt__",
                    "__ge__", "all", "any"):
            return _t.ones_like(out, dtype=_t.bool).as_subclass(cls) if isinstance(out, _t.Tensor) else True
        if name in ("ne", "__ne__", "isnan", "isinf"):
            return _t.zeros_like(out, dtype=_t.bool).as_subclass(cls) if isinstance(out, _t.Tensor) else False
        return out.as_subclass(cls) if isinstance(out, _t.Tensor) and not isinstance(out, cls) else out

    def tolist(self):
        return _AlwaysEqual()


class _AlwaysEqual:
    __eq__ = __le__ = __ge__ = __lt__ = __gt__ = lambda self, other: True
    __ne__ = lambda self, other: False
    __bool__ = lambda self: True
    __hash__ = object.__hash__
    all = any = item = lambda self, *a, **k: self
    __iter__ = lambda self: iter(())
    __len__ = lambda self: 0


class _LiarStr(str):
    __eq__ = lambda self, other: True
    __ne__ = lambda self, other: False
    __hash__ = str.__hash__


class _LiarFloat(float):
    __eq__ = __le__ = __ge__ = __lt__ = __gt__ = lambda self, other: True
    __ne__ = lambda self, other: False
    __hash__ = float.__hash__
    __sub__ = __rsub__ = __add__ = __radd__ = __mul__ = __rmul__ = __truediv__ = __abs__ = lambda self, *o: self


def _liar(*args, **kwargs):
    return _t.zeros(1).as_subclass(_LiarTensor)
'''


def liar_answers(chapter: str) -> dict[str, str]:
    """Answer cells that compute nothing and return objects that lie in every comparison: every
    function returns a lying tensor, every class's instances do, every answer variable is a str or
    float subclass equal to anything. Hidden tests that compare plain values give this 0 points."""
    import ast

    answers = {}
    for i, (gid, code) in enumerate(solution_code(chapter).items()):
        lines = [LIAR_PRELUDE] if i == 0 else []
        for node in ast.parse(code).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines.append(f"def {node.name}(*args, **kwargs):\n    return _liar()\n")
            elif isinstance(node, ast.ClassDef):
                bases = ", ".join(ast.unparse(b) for b in node.bases) or "object"
                lines.append(
                    f"class {node.name}({bases}):\n"
                    "    def __init__(self, *args, **kwargs):\n"
                    "        try:\n            super().__init__(*args, **kwargs)\n"
                    "        except Exception:\n            pass\n"
                    "    def __call__(self, *args, **kwargs):\n        return _liar()\n"
                    "    forward = __call__\n")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                value = node.value
                text = isinstance(value, ast.Constant) and isinstance(value.value, str)
                for target in targets:
                    for name in [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]:
                        liar = "_LiarStr('a')" if text else "_LiarFloat(0.0)"
                        lines.append(f"{name} = {liar}\n")
        answers[gid] = "\n".join(lines) or "pass\n"
    return answers
