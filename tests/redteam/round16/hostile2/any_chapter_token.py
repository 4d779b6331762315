"""Red team round 16, hostile 2: a notebook that computes nothing, for any chapter, against HEAD (fe64193).

    timeout 900 python tests/redteam/round16/hostile2/any_chapter_token.py 02-scaled-attention [CHAPTER ...] [--sticky | --events] [--why]

Built from the released notebook alone (no solution, no hidden test read). Every function stub's
`raise NotImplementedError()` becomes `forge()` (forge_token.py: the test cell's reply, with the test cell's
secret read from ipykernel's `execute_request` frame, and the real reply dropped). A value answer (a multiple
choice, a number) becomes an object of a `str`/`int`/`float` subclass whose comparisons and arithmetic call
`forge()` first: the test cell that compares it is answered "ok" with the secret. Prints status, score, lost
parts and the grader's reasons.
"""
from __future__ import annotations

import ast
import builtins
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))

spec = importlib.util.spec_from_file_location("forge_token", HERE / "forge_token.py")
forge_token = importlib.util.module_from_spec(spec)
spec.loader.exec_module(forge_token)
spec = importlib.util.spec_from_file_location("kernel_says_ok", HERE / "kernel_says_ok.py")
kernel_says_ok = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kernel_says_ok)
# --sticky: no forged reply; the failed test cell's own reply says "ok" (kernel_says_ok.py), `forge` is `cheat`
# --events: the same through a post_run_cell callback, without frames (kernel_says_ok.py's EVENTS)
HELPERS = ((kernel_says_ok.STICKY + "forge = cheat\n") if "--sticky" in sys.argv else
           (kernel_says_ok.EVENTS + "forge = cheat\n") if "--events" in sys.argv else forge_token.FORGE_T)

ANY = '''def _any(base, value):
    def wrap(name):
        plain = getattr(base, name)
        def method(self, *a):
            forge()
            return plain(self, *a)
        return method
    names = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__sub__", "__rsub__", "__add__",
             "__radd__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__abs__", "__neg__", "__float__",
             "__int__", "__round__", "__contains__", "strip", "lower", "upper", "casefold", "encode")
    class Kind(type):  # `type(x) in (int, float)` compares the class: its metaclass's __eq__ is asked first
        def __eq__(cls, other):
            forge()
            return True
        def __ne__(cls, other):
            forge()
            return False
        def __hash__(cls):  # `type(x) in {int, float}` hashes the class
            forge()
            return type.__hash__(cls)
    kind = Kind("Answer", (base,), {n: wrap(n) for n in names if hasattr(base, n)} | {"__hash__": base.__hash__})
    return kind(value)
def _like(base, value):
    # not a subclass: isinstance() reads __class__, and math.isclose/float() call __float__, which forges
    def forging(name):
        def method(self, *a):
            forge()
            return getattr(value, name)(*[getattr(x, "value", x) for x in a])
        return method
    names = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__sub__", "__rsub__", "__add__",
             "__radd__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__abs__", "__neg__", "__float__",
             "__int__", "__round__", "__index__", "__format__")
    body = {n: forging(n) for n in names if hasattr(value, n)}
    body["__class__"] = property(lambda self: base)
    body["__hash__"] = lambda self: hash(value)
    body["__repr__"] = lambda self: repr(value)
    return type("Answer", (), body)()
'''


def value_names(cells, start):
    """The names the graded cells after the value answer cell at `start` read, with a guessed type."""
    names = {}
    for cell in cells[start + 1:]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            break
        if not meta.get("grade") or cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not hasattr(builtins, node.id):
                kind = "str" if '"a", "b"' in src else "int" if "int)" in src or ", int" in src else "float"
                names.setdefault(node.id, kind)
    return names


def build(chapter: str, path: Path) -> Path:
    nb = json.loads((ROOT / "chapters" / chapter / "exercises.ipynb").read_text())
    first = True
    for index, cell in enumerate(nb["cells"]):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] != "code" or not meta.get("solution"):
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if "def " in src or "class " in src:
            stub = src.replace("raise NotImplementedError()", "forge()")
        else:
            values = {"str": '"a"', "int": "7", "float": "7.0"}
            make = "_like" if "--like" in sys.argv else "_any"
            stub = "".join(f"{n} = {make}({k}, {values[k]})\n" for n, k in value_names(nb["cells"], index).items())
        cell["source"] = (HELPERS + ANY + stub) if first else stub
        first = False
    path.write_text(json.dumps(nb, indent=1))
    return path


def main(chapters):
    from attnlab import course
    from attnlab.instructor.grading import grade

    with tempfile.TemporaryDirectory(prefix="rt16h2-any-") as tmp:
        tmp = Path(tmp)
        for chapter in chapters:
            path = build(chapter, tmp / f"{chapter}.ipynb")
            with course.scratch_course(chapter, ROOT) as (_api, scratch):
                r = grade(ROOT, chapter, {"nothing": path}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1,
                          out_dir=tmp / "out")[0]
                lost = [k for k, p in r.parts.items() if p.score < p.max_score]
                if "--why" in sys.argv:  # the lost parts' error names (no hidden text printed)
                    for graded in (tmp / "out").rglob("*.ipynb"):
                        for c in json.loads(graded.read_text())["cells"]:
                            if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") in lost:
                                print("   ", c["metadata"]["nbgrader"]["grade_id"],
                                      [(o.get("ename"), str(o.get("evalue"))[:80]) for o in c.get("outputs", [])])
            print(f"{chapter:24} {r.status:8} {r.score}/{r.max_score} lost={lost} {'; '.join(r.reasons + r.notes)[:300]}",
                  flush=True)


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if not a.startswith("--")] or ["02-scaled-attention"])
