"""Grade the model answers of the chapters named (through attnlab.instructor.grading.grade) and print what they lose.

    timeout 900 python tests/redteam/round18/hostile/model_answers.py 01-rnn-motivation [02-scaled-attention ...]

(With another guard: put a copy of src/ with that guard.py first on PYTHONPATH.)
"""
import sys, tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "tests"))
from attnlab import course
from grading import write_submission
from attnlab.instructor.grading import grade
def main():
  for chapter in sys.argv[1:]:
      with tempfile.TemporaryDirectory(prefix="rt18h-") as tmp:
          p = write_submission(chapter, Path(tmp) / "model.ipynb", {})
          with course.scratch_course(chapter, ROOT) as (_api, scratch):
              r = grade(ROOT, chapter, {"model": p}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1)[0]
          lost = {k: f"{v.score:g}/{v.max_score:g}" for k, v in r.parts.items() if v.score < v.max_score}
          print(chapter, r.status, r.reasons, r.notes, "lost:", lost, flush=True)

if __name__ == "__main__":
    main()
