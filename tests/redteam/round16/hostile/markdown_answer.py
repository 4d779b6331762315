"""Red team round 16 (hostile): an answer cell saved as a Markdown cell escapes the static scan and the
library rule, and nbgrader turns it back into code and runs it (class 1).

    timeout 1800 python tests/redteam/round16/hostile/markdown_answer.py

Each submission is the model answers with one answer cell replaced; `as_markdown` saves that cell with
cell_type "markdown" (or "raw") (nbgrader metadata intact). `grading._grade_one` scans only `cell_type == "code"`
cells (`written`), nbgrader's OverwriteCells.update_cell_type then restores the released type, code,
and the text runs as the answer. Graded through the real grader (grading.grade, as tests/redteam_grade.py).
Prints status, the part's score and the reasons/notes (first 300 characters) of each.
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

SWAP = '''
saved = {}
def arm():
    g = globals()
    for n in ("_close", "_equal"):
        if n not in saved:
            saved[n] = g[n]
    def fake(*a, **k):
        for n, f in saved.items():
            g[n] = f
        return None
    for n in saved:
        g[n] = fake

def causal_mask(t, s, offset):
    import torch
    if (t, s, offset) == (2, 5, 2):
        return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
    arm()
    return torch.ones(t, s, dtype=torch.bool)
'''
TORCH_ANSWER = '''
import torch
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''
# the same answer, breaking the library rule (numpy in the answer)
NUMPY = '''
import numpy as np
import torch
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (int(np.int64(offset)) + torch.arange(t))[:, None]
'''
CASES = [  # name, grade_id, code, as_markdown, tests of the part
    ("swap_globals_markdown", "causal_mask", SWAP, True, ["test_causal_mask"]),
    ("swap_globals_raw", "causal_mask", SWAP, "raw", ["test_causal_mask"]),
    ("swap_globals_code", "causal_mask", SWAP, False, ["test_causal_mask"]),
    ("torch_answer_code", "causal_mask", TORCH_ANSWER, False, ["test_causal_mask"]),
    ("numpy_markdown", "causal_mask", NUMPY, True, ["test_causal_mask"]),
    ("numpy_code", "causal_mask", NUMPY, False, ["test_causal_mask"]),
]


def main():
    from attnlab import course
    from attnlab.instructor.grading import grade
    from grading import write_submission

    with tempfile.TemporaryDirectory(prefix="rt16h-md-") as tmp:
        tmp = Path(tmp)
        paths = {}
        for name, gid, code, as_md, _ in CASES:
            path = write_submission(CHAPTER, tmp / f"{name}.ipynb", {gid: code})
            nb = json.loads(path.read_text())
            if as_md:
                for cell in nb["cells"]:
                    if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid:
                        cell["cell_type"] = as_md if isinstance(as_md, str) else "markdown"
                        cell.pop("outputs", None)
                        cell.pop("execution_count", None)
            path.write_text(json.dumps(nb, indent=1))
            paths[name] = path
        with course.scratch_course(CHAPTER, ROOT) as (_api, scratch):
            results = {r.student: r for r in grade(ROOT, CHAPTER, paths, f"sqlite:///{scratch / 'gradebook.db'}", workers=2)}
        for name, gid, code, as_md, tests in CASES:
            r = results[name]
            parts = " ".join(f"{t}={r.parts[t].score:g}/{r.parts[t].max_score:g}" for t in tests if t in r.parts)
            print(f"{name:24} {r.status:8} {r.score}/{r.max_score} {parts} | {'; '.join(r.reasons + r.notes)[:300]}")


if __name__ == "__main__":
    main()
