"""Red team round 16 (hostile, F13): the notebook that computes nothing, through the instructor's whole workflow.

    timeout 1800 python tests/redteam/round16/hostile/nothing_workflow.py

Scratch course: release, collect (students `honest`: model answers; `nothing`: 02-attacks.py's
`computes_nothing_all`), autograde, export. Prints the summary lines and the exported rows.
"""
from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"


def main():
    from grading import write_submission
    from instructor_course import cli, copy_course

    spec = importlib.util.spec_from_file_location("attacks", HERE / "02-attacks.py")
    attacks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(attacks)
    cells = next(s for s in attacks.SUBMISSIONS if s["name"] == "computes_nothing_all")["cells"]
    with tempfile.TemporaryDirectory(prefix="rt16h-nothing-") as tmp:
        tmp = Path(tmp)
        root = copy_course(tmp / "course")
        os.environ["ATTNLAB_COURSE_ROOT"] = str(root)
        os.environ.pop("ATTNLAB_GRADEBOOK_URL", None)
        assert cli("release")[0] == 0
        write_submission(CHAPTER, tmp / "download" / "honest_exercises.ipynb", {})
        write_submission(CHAPTER, tmp / "download" / "nothing_exercises.ipynb", cells)
        print("collect", cli("collect", CHAPTER, str(tmp / "download"))[0])
        status, out, err = cli("autograde", CHAPTER, "--workers", "1")
        print("autograde", status)
        print("\n".join(l for l in out.splitlines() if l.startswith(("student", "honest", "nothing")) or "graded (" in l))
        status, out, err = cli("export", "--out", str(tmp / "grades.csv"))
        print((tmp / "grades.csv").read_text())


if __name__ == "__main__":
    main()
