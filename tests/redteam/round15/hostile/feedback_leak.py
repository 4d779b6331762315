"""Red team round 15 (hostile): the hidden tests of chapter 2 reach the feedback page (F1, class 2).

    timeout 1800 python tests/redteam/round15/hostile/feedback_leak.py

The instructor's workflow in a scratch course (release, collect, autograde, feedback) with two students:
`honest` (the model answers) and `spy`, whose answers are the model answers plus code loaded as in
02-forged.py (F1b; the first version wrote a module to disk, as 02-attacks.py does) that, when a test calls `raw_scores`, prints, once per code object of the calling test
(the cell and its functions), the names it uses and its string constants.

Prints only counts: the disassembly lines and string constants of the test code found in each student's
feedback page, how many of those constants (>= 8 characters) are in no line of the released notebook (so come
from the hidden tests), and whether the page carries the leak notice. Nothing of the hidden tests is printed.
"""
from __future__ import annotations

import ast
import json
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"

SPY = r'''
import sys, dis
_done = set()
def spy():
    # the test's frames (cell code), innermost first; each code object's constants are printed once
    f = sys._getframe(2)
    while f is not None and "ipykernel_" in f.f_code.co_filename:
        stack = [f.f_code]
        while stack:
            c = stack.pop()
            if id(c) in _done:
                continue
            _done.add(id(c))
            print("CODE", c.co_name, "names:", " ".join(c.co_names))
            for k in c.co_consts:
                if isinstance(k, str):
                    print("CONST", k)
                elif hasattr(k, "co_consts"):
                    stack.append(k)
        f = f.f_back
'''


def main():
    from grading import solution_code, write_submission
    from instructor_course import cli, copy_course
    from attnlab.instructor import feedback as fb

    model = solution_code(CHAPTER)
    spy_cell = model["raw_scores"] + (
        "\nimport codeop, sysconfig, os, types\n"
        f"SPY = {SPY!r}\n"
        "spy = {'__name__': 'nntplib'}\n"
        "types.FunctionType(codeop.Compile()(SPY, os.path.join(sysconfig.get_paths()['stdlib'], 'nntplib.py'), "
        "'exec'), spy)()\n"
        "spy = types.SimpleNamespace(**spy)\n"
        "_model_raw_scores = raw_scores\n"
        "def raw_scores(q, k):\n    spy.spy()\n    return _model_raw_scores(q, k)\n")
    with tempfile.TemporaryDirectory(prefix="rt15h-fb-") as tmp:
        tmp = Path(tmp)
        root = copy_course(tmp / "course")
        os.environ["ATTNLAB_COURSE_ROOT"] = str(root)
        os.environ.pop("ATTNLAB_GRADEBOOK_URL", None)
        assert cli("release")[0] == 0
        write_submission(CHAPTER, tmp / "download" / "honest_exercises.ipynb", {})
        write_submission(CHAPTER, tmp / "download" / "spy_exercises.ipynb", {"raw_scores": spy_cell})
        print("collect", cli("collect", CHAPTER, str(tmp / "download"))[0])
        status, out, err = cli("autograde", CHAPTER, "--workers", "2")
        print("autograde", status)
        for line in out.splitlines():
            if line.startswith(("honest", "spy")) or "flag" in line:
                print("   ", line[:200])
        status, out, err = cli("feedback", CHAPTER)
        print("feedback", status, "| leak notes:", sum("quoted a hidden test" in l for l in out.splitlines()))
        released = json.loads((ROOT / "chapters" / CHAPTER / "exercises.ipynb").read_text(encoding="utf-8"))
        visible = "\n".join("".join(c["source"]) for c in released["cells"])
        import html as _html
        for student in ("honest", "spy"):
            page = (root / "feedback" / student / CHAPTER / "exercises.html").read_text(encoding="utf-8")
            text = _html.unescape(re.sub(r"<[^>]*>", "", page))
            consts = {l[6:].strip() for l in text.splitlines() if l.startswith("CONST ")}
            unseen = {c for c in consts if len(c) >= 8 and c not in visible}
            ops = sum(1 for l in text.splitlines() if l.startswith("CODE "))
            print(f"{student}: page {len(page)} chars; {ops} code objects of the test named; {len(consts)} string constants of "
                  f"the test code, {len(unseen)} of them (>= 8 chars) in no line of the released notebook; "
                  f"leak notice: {fb.LEAK_NOTICE in page}")


def _parses(line: str) -> bool:
    try:
        ast.parse(line.strip())
        return True
    except SyntaxError:
        return False


if __name__ == "__main__":
    main()
