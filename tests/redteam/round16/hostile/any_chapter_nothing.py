"""Red team round 16 (hostile, F13): a notebook that computes nothing, for any chapter.

    timeout 1800 python tests/redteam/round16/hostile/any_chapter_nothing.py 03-multi-head [CHAPTER ...] [--automagic]

Default (since 09:53): the first answer cell is ordinary code (02-attacks.py's FORGE3 + _TICK4: the kernel through
`vars(alias of sys)`, the forge that hides the real reply, a light 5 ms timer); `--automagic` is the first version,
through F8's one-line cell (closed in the lead's tree at 09:52).

Built from the released notebook alone: every answer cell's stub has its `raise NotImplementedError()` replaced by
`forge()` (02-attacks.py's F13: send the kernel's own "ok" execute_reply and idle for the running request); the
first answer cell is one line (F8: `time exec("...")`) that defines `forge`, starts a 1 ms SIGALRM timer that
forges every later non-silent request (the test cells that call no student code), and the first stub.
Prints status, score and the parts lost. No solution or hidden test is read.
"""
from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))

spec = importlib.util.spec_from_file_location("attacks", HERE / "02-attacks.py")
attacks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(attacks)


def build(chapter: str, path: Path) -> Path:
    nb = json.loads((ROOT / "chapters" / chapter / "exercises.ipynb").read_text())
    first = True
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] != "code" or not meta.get("solution"):
            continue
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        stub = src.replace("raise NotImplementedError()", "forge()")
        if first and "--automagic" in sys.argv:
            code = attacks.FORGE + attacks._TICK + stub
            cell["source"] = "time exec(" + attacks._one_line(code) + ")"
            first = False
        elif first:  # ordinary code: the alias route, the quiet forge, the light timer (02-attacks.py)
            cell["source"] = attacks.FORGE3 + attacks._TICK4 + stub
            first = False
        else:
            cell["source"] = stub
    path.write_text(json.dumps(nb, indent=1))
    return path


def main(chapters):
    from attnlab import course
    from attnlab.instructor.grading import grade

    with tempfile.TemporaryDirectory(prefix="rt16h-any-") as tmp:
        tmp = Path(tmp)
        for chapter in chapters:
            path = build(chapter, tmp / f"{chapter}.ipynb")
            with course.scratch_course(chapter, ROOT) as (_api, scratch):
                r = grade(ROOT, chapter, {"nothing": path}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1)[0]
            lost = [k for k, p in r.parts.items() if p.score < p.max_score]
            print(f"{chapter:24} {r.status:8} {r.score}/{r.max_score} lost={lost} {'; '.join(r.reasons)[:200]}", flush=True)


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if not a.startswith("--")] or ["03-multi-head"])
