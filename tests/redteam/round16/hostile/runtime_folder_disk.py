"""Red team round 16 (hostile, limits): the kernel's runtime folder (its connection file and sockets) is bound
writable into the sandbox and is not measured by the disk limit.

    timeout 1800 python tests/redteam/round16/hostile/runtime_folder_disk.py [MB]

Part 3's answer cell writes MB megabytes (default 1200, past the 1 GiB `disk_bytes`) in 50 MiB files into the folder
of the kernel's connection file (`-f` in `sys.argv`), prints the folder and how much it wrote; afterwards the script
says whether the notebook was stopped and whether the files are still on the grader's disk.
"""
from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"


def main(mb: int):
    from attnlab import course
    from attnlab.instructor.grading import grade
    from grading import write_submission

    code = (f"import os, sys\nwhere = os.path.dirname(sys.argv[sys.argv.index('-f') + 1])\n"
            f"block = b'x' * (50 * 2**20)\nwritten = 0\n"
            f"for i in range({mb} // 50):\n"
            f"    with open(os.path.join(where, f'fill{{i}}.bin'), 'wb') as f:\n        f.write(block)\n"
            f"    written += 50\n"
            f"print('RUNTIME', where, written, 'MB')\n")
    with tempfile.TemporaryDirectory(prefix="rt16h-rt-") as tmp:
        tmp = Path(tmp)
        path = write_submission(CHAPTER, tmp / "rt.ipynb", {"causal_mask": code})
        with course.scratch_course(CHAPTER, ROOT) as (_api, scratch):
            r = grade(ROOT, CHAPTER, {"rt": path}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1, out_dir=tmp / "out")[0]
        print(r.status, r.score, "notes:", "; ".join(r.notes)[:200])
        nb = json.loads(next((tmp / "out").rglob("*.ipynb")).read_text())
        where = None
        for c in nb["cells"]:
            for o in c.get("outputs", []):
                text = "".join(o.get("text", "")) if o.get("output_type") == "stream" else ""
                m = re.search(r"RUNTIME (\S+) (\d+) MB", text)
                if m:
                    where = m.group(1)
                    print("the kernel wrote", m.group(2), "MB into its runtime folder")
                if o.get("output_type") == "error":
                    print("error:", o.get("ename"), str(o.get("evalue"))[:150])
        if where:
            left = list(Path(where).glob("fill*.bin")) if Path(where).exists() else []
            print("after grading: folder exists:", Path(where).exists(), "| fill files left:", len(left))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1200)
