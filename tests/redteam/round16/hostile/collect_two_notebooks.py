"""Red team round 16 (hostile, class 4): a student who hands in two notebooks (the exercises and a scratch
or lesson notebook, as Canvas or Moodle allow in one submission) is graded on the newest, whatever its name.

    timeout 1800 python tests/redteam/round16/hostile/collect_two_notebooks.py [--final]

--final: the other way round (against the lead's fix of 09:40, which grades exercises.ipynb whenever there is
one): `jdoe_exercises.ipynb` is the released notebook saved early, nothing done; `jdoe_exercises_final.ipynb` the
finished work, saved later.

Folder download (the LMS zip unpacked): `jdoe_exercises.ipynb` (the model answers, saved 10:00) and
`jdoe_scratch.ipynb` (a copy of the released notebook the student played in, saved 10:05). `collect` keeps the
newest; `autograde` grades it "as exercises.ipynb (the notebook was renamed)".
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"


def main():
    from grading import write_submission
    from instructor_course import cli, copy_course

    with tempfile.TemporaryDirectory(prefix="rt16h-two-") as tmp:
        tmp = Path(tmp)
        root = copy_course(tmp / "course")
        os.environ["ATTNLAB_COURSE_ROOT"] = str(root)
        os.environ.pop("ATTNLAB_GRADEBOOK_URL", None)
        assert cli("release")[0] == 0
        download = tmp / "download"
        download.mkdir()
        if "--final" in sys.argv:
            # the other way round: an early exercises.ipynb (the released notebook, nothing done) and the finished
            # work saved later under another name
            scratch = download / "jdoe_exercises.ipynb"
            shutil.copy(root / "release" / CHAPTER / "exercises.ipynb", scratch)
            real = write_submission(CHAPTER, download / "jdoe_exercises_final.ipynb", {})
            now = time.time()
            os.utime(scratch, (now - 600, now - 600))
            os.utime(real, (now - 300, now - 300))
        else:
            real = write_submission(CHAPTER, download / "jdoe_exercises.ipynb", {})
            scratch = download / "jdoe_scratch.ipynb"
            shutil.copy(root / "release" / CHAPTER / "exercises.ipynb", scratch)
            now = time.time()
            os.utime(real, (now - 600, now - 600))
            os.utime(scratch, (now - 300, now - 300))
        status, out, err = cli("collect", CHAPTER, str(download))
        print("collect", status)
        print(out)
        status, out, err = cli("autograde", CHAPTER, "--workers", "1")
        print("\n".join(l for l in out.splitlines() if l.startswith(("jdoe", "student"))))


if __name__ == "__main__":
    main()
