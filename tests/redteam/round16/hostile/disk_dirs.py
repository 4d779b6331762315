"""Red team round 16 (hostile, limits): the kernel folder's disk limit counts the blocks of regular files only:
directories (a 4 KiB block each) and inodes (empty files) are free.

    timeout 1800 python tests/redteam/round16/hostile/disk_dirs.py [N]

The model answers, except Part 3's answer cell, which creates N directories and N empty files (default 100,000
each) in the kernel's folder and prints what the file system lost (statvfs, before and after) and how long it took.
The grader's `_watch_disk` (1 GiB per notebook, `HardenedExecute.disk_bytes`) is expected to stop a notebook that
takes more than that.
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


def main(n: int):
    from attnlab import course
    from attnlab.instructor.grading import grade
    from grading import write_submission

    code = (f"import os, time\nt = time.time()\nst = os.statvfs('.')\n"
            f"for i in range({n}):\n    os.mkdir(f'd{{i}}')\n"
            f"for i in range({n}):\n    open(f'f{{i}}', 'w').close()\n"
            "st2 = os.statvfs('.')\n"
            "print('DISK', (st.f_bfree - st2.f_bfree) * st.f_frsize // 2**20, 'MiB', st.f_ffree - st2.f_ffree, 'inodes',"
            " round(time.time() - t, 1), 's')\n")
    with tempfile.TemporaryDirectory(prefix="rt16h-disk-") as tmp:
        tmp = Path(tmp)
        path = write_submission(CHAPTER, tmp / "dirs.ipynb", {"causal_mask": code})
        with course.scratch_course(CHAPTER, ROOT) as (_api, scratch):
            results = grade(ROOT, CHAPTER, {"dirs": path}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1,
                            out_dir=tmp / "out")
        r = results[0]
        print(f"{r.student} {r.status} {r.score}/{r.max_score} notes={'; '.join(r.notes)[:300]} reasons={'; '.join(r.reasons)[:200]}")
        graded = json.loads(next((tmp / "out").rglob("*.ipynb")).read_text())
        for c in graded["cells"]:
            if c["metadata"].get("nbgrader", {}).get("grade_id") == "causal_mask":
                for o in c.get("outputs", []):
                    print("causal_mask output:", ("".join(o.get("text", "")) or o.get("ename", "")).strip()[:300])


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
