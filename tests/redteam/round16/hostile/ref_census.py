"""Red team round 16 (hostile): what of the hidden tests' own helpers an answer finds in the notebook's namespace
while a test calls it (names counted, nothing printed but counts).

    timeout 1800 python tests/redteam/round16/hostile/ref_census.py [CHAPTER GRADE_ID FUNCTION_STUB_FILE]

Default: chapter 2, Part 3, a correct `causal_mask` that, at each call, counts the namespace's names starting with
`_ref`, `_check`, `_hidden` (the guide: the hidden tests' globals start so), those whose name mentions the part,
and how many of those are callable; reached through 02-attacks.py's alias route (`vars(s_alias)["modules"]`).
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

PROBE = '''import sys
import torch
s_alias = sys
def back(t):
    return t[::-1]
def census(tag):
    m = vars(s_alias)["modules"][back("__niam__")]
    ns = vars(m)
    names = [k for k in list(ns) if k.startswith(("_ref", "_check", "_hidden"))]
    mine = [k for k in names if "causal" in k or "mask" in k]
    print("CENSUS", tag, len(names), "related:", len(mine), "callable related:", sum(callable(ns[k]) for k in mine))
def causal_mask(t, s, offset):
    census("visible" if (t, s, offset) == (2, 5, 2) else "hidden")
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''


def main():
    from attnlab import course
    from attnlab.instructor.grading import grade
    from grading import write_submission

    with tempfile.TemporaryDirectory(prefix="rt16h-census-") as tmp:
        tmp = Path(tmp)
        path = write_submission(CHAPTER, tmp / "census.ipynb", {"causal_mask": PROBE})
        with course.scratch_course(CHAPTER, ROOT) as (_api, scratch):
            r = grade(ROOT, CHAPTER, {"census": path}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1,
                      out_dir=tmp / "out")[0]
        print(r.status, r.score, "; ".join(r.reasons)[:200])
        nb = json.loads(next((tmp / "out").rglob("*.ipynb")).read_text())
        seen = {}
        for c in nb["cells"]:
            gid = c["metadata"].get("nbgrader", {}).get("grade_id")
            for o in c.get("outputs", []):
                text = "".join(o.get("text", "")) if o.get("output_type") == "stream" else ""
                for line in text.splitlines():
                    if line.startswith("CENSUS"):
                        seen[(gid, line)] = seen.get((gid, line), 0) + 1
        for (gid, line), n in seen.items():
            print(f"{gid}: {line}  (x{n})")


if __name__ == "__main__":
    main()
