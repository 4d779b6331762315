"""Red team round 16 (hostile): a student's own zip, inside a folder download, plants a notebook for
another student (class 3) and for a student id of its choosing (a spreadsheet formula in the export).

    timeout 1800 python tests/redteam/round16/hostile/collect_nested_zip.py [--grade] [--pattern=REGEX]

(With the lead's fix of 09:40, a zip whose own name matches the pattern is a student's and is not unpacked; a
pattern that fixes the file name, e.g. --pattern='.*/(?P<student_id>[^/_]+)_(?P<file_id>exercises\.ipynb)$', makes
`mallory_handin.zip` fail that test while the entries inside it still match.)

The LMS download unpacked into a folder (Safari does this by itself; the guide allows "a folder,
possibly of several such zips"), in which one student (mallory) handed in a zip instead of a notebook,
as LMSes allow and keep as is: `collect` opens every `.zip` of the folder as an LMS zip and matches
its entries' names with the pattern, so mallory chooses the student ids (and, through the zip's
dates, which notebook is "the newest").
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"
FORMULA_ID = '=HYPERLINK(CONCAT("https:",CHAR(47),CHAR(47),"evil.example"),"regrade request")'


def main(grade: bool):
    from grading import write_submission
    from instructor_course import cli, copy_course

    with tempfile.TemporaryDirectory(prefix="rt16h-collect-") as tmp:
        tmp = Path(tmp)
        root = copy_course(tmp / "course")
        os.environ["ATTNLAB_COURSE_ROOT"] = str(root)
        os.environ.pop("ATTNLAB_GRADEBOOK_URL", None)
        download = tmp / "download"          # the LMS zip, unpacked into a folder
        download.mkdir()
        write_submission(CHAPTER, download / "bob_exercises.ipynb", {})          # bob: the model answers
        blank = tmp / "blank.ipynb"
        write_submission(CHAPTER, blank, {"raw_scores": "raise NotImplementedError()"})
        mine = tmp / "mine.ipynb"
        write_submission(CHAPTER, mine, {})
        # mallory's hand-in: a zip whose entries name other students, dated 2107 (the newest zip date)
        with zipfile.ZipFile(download / "mallory_handin.zip", "w") as zf:
            for name, src in [("bob_exercises.ipynb", blank), (f"{FORMULA_ID}_exercises.ipynb", mine)]:  # noqa
                info = zipfile.ZipInfo(name, date_time=(2107, 12, 31, 23, 59, 58))
                zf.writestr(info, src.read_bytes())
        pattern = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--pattern=")), None)
        status, out, err = cli("collect", CHAPTER, str(download), *(["--pattern", pattern] if pattern else []))
        print("collect", status)
        print(out)
        same = (root / "submitted" / "bob" / CHAPTER / "exercises.ipynb").read_bytes() == blank.read_bytes()
        print("bob's submitted notebook is mallory's blank one:", same)
        print("submitted/:", sorted(p.name for p in (root / "submitted").iterdir()))
        if not grade:
            return
        assert cli("release")[0] == 0
        status, out, err = cli("autograde", CHAPTER, "--workers", "1")
        print("autograde", status)
        print(out[-3000:])
        status, out, err = cli("export", "--out", str(tmp / "grades.csv"))
        print("export", status, out)
        print((tmp / "grades.csv").read_text())


if __name__ == "__main__":
    main("--grade" in sys.argv)
