"""Red team round 16 (hostile): grade one submission of 02-attacks.py and print the lines its code printed that
start with a given marker (counts only are printed by the submissions themselves).

    timeout 1800 python tests/redteam/round16/hostile/outputs_of.py caller_locals FRAME-HITS
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
CHAPTER = "02-scaled-attention"


def main(name: str, marker: str):
    from attnlab import course
    from attnlab.instructor.grading import grade
    from grading import write_submission

    spec = importlib.util.spec_from_file_location("attacks", HERE / "02-attacks.py")
    attacks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(attacks)
    cells = next(s for s in attacks.SUBMISSIONS if s["name"] == name)["cells"]
    with tempfile.TemporaryDirectory(prefix="rt16h-out-") as tmp:
        tmp = Path(tmp)
        path = write_submission(CHAPTER, tmp / f"{name}.ipynb", cells)
        with course.scratch_course(CHAPTER, ROOT) as (_api, scratch):
            r = grade(ROOT, CHAPTER, {name: path}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1, out_dir=tmp / "out")[0]
        print(r.status, r.score, "; ".join(r.reasons)[:300])
        nb = json.loads(next((tmp / "out").rglob("*.ipynb")).read_text())
        counts = {}
        for c in nb["cells"]:
            gid = c["metadata"].get("nbgrader", {}).get("grade_id")
            for o in c.get("outputs", []):
                if o.get("output_type") == "error":
                    counts[(gid, "error " + str(o.get("ename")))] = counts.get((gid, "error " + str(o.get("ename"))), 0) + 1
                text = "".join(o.get("text", "")) if o.get("output_type") == "stream" else ""
                for line in text.splitlines():
                    if line.startswith(marker):
                        counts[(gid, line)] = counts.get((gid, line), 0) + 1
        for (gid, line), n in counts.items():
            print(f"{gid}: {line} (x{n})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
