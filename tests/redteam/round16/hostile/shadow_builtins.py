"""Red team round 16 (hostile): builtins shadowed invisibly (F8's one-line cell) are what the hidden tests call.

    timeout 1800 python tests/redteam/round16/hostile/shadow_builtins.py

The model answers, plus a one-line added cell after `setup` (F8: `time exec("...")`, which the scan cannot
read) that binds the notebook globals `abs`, `all`, `any`, `len`, `isinstance`, `max`, `min`, `sum`, `round`,
`float` to wrappers that count their calls and then call the real builtin, and an added cell after Part 7's answer
that prints the counts. The hidden tests run in the notebook's namespace, so every call they make to one of these
goes to the student's wrapper (which could return anything: `abs(...) < tol` with `abs` returning 0). Prints the
notebook's status and score and the counts (calls made while Parts 1-6's test cells ran; no test text).
The shadowing defence ("put aside while each test cell runs", guide) is decided from the scan only.
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"

NAMES = ("abs", "all", "any", "len", "isinstance", "max", "min", "sum", "round", "float")
CODE = ("import builtins\ncalls = {}\n"
        "def wrap(name):\n    real = getattr(builtins, name)\n"
        "    def w(*a, **k):\n        calls[name] = calls.get(name, 0) + 1\n        return real(*a, **k)\n    return w\n"
        f"for n in {NAMES!r}:\n    globals()[n] = wrap(n)\n")


def one_line(code):
    return '"' + code.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace(" ", "\\x20") + '"'


def main():
    from attnlab import course
    from attnlab.instructor.grading import grade
    from grading import write_submission

    with tempfile.TemporaryDirectory(prefix="rt16h-shadow-") as tmp:
        tmp = Path(tmp)
        path = write_submission(CHAPTER, tmp / "shadow.ipynb", {})
        nb = json.loads(path.read_text())
        def at(gid):
            return next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == gid)
        nb["cells"].insert(at("fixed_self_attention") + 1, {"cell_type": "code", "execution_count": None, "id": "counts",
                           "metadata": {}, "outputs": [], "source": "print('COUNTS', sorted(calls.items()))"})
        nb["cells"].insert(at("setup") + 1, {"cell_type": "code", "execution_count": None, "id": "shadow",
                           "metadata": {}, "outputs": [], "source": "time exec(" + one_line(CODE) + ")"})
        path.write_text(json.dumps(nb, indent=1))
        with course.scratch_course(CHAPTER, ROOT) as (_api, scratch):
            results = grade(ROOT, CHAPTER, {"shadow": path}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1,
                            out_dir=tmp / "out")
        r = results[0]
        print(f"{r.student} {r.status} {r.score}/{r.max_score} reasons={'; '.join(r.reasons)[:200]} notes={'; '.join(r.notes)[:200]}")
        graded = json.loads(next((tmp / "out").rglob("*.ipynb")).read_text())
        for c in graded["cells"]:
            for o in c.get("outputs", []):
                text = "".join(o.get("text", "")) if isinstance(o.get("text"), (list, str)) else ""
                if "COUNTS" in text or o.get("output_type") == "error" and c.get("id") in ("counts", "shadow"):
                    print(c.get("id"), text.strip()[:400] or o.get("ename"))


if __name__ == "__main__":
    main()
