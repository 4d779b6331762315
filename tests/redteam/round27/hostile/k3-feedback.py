"""K3 on the real chapter-2 grading, with the autograded notebook kept (out_dir): the status, the score and what the
answer cell after causal_mask printed into it.  PATH=.venv/bin:$PATH timeout 600 .venv/bin/python \
    tests/redteam/round27/hostile/k3-feedback.py"""
import sys, json, tempfile
from pathlib import Path
ROOT = Path("/work/main")
sys.path.insert(0, str(ROOT / "tests")); sys.path.insert(0, str(ROOT / "tests/redteam/round27/hostile"))
from attnlab import course
from grading import write_submission
from attnlab.instructor.grading import grade
import importlib.util
spec = importlib.util.spec_from_file_location("subs", ROOT / "tests/redteam/round27/hostile/02-subs.py")
subs = importlib.util.module_from_spec(spec); spec.loader.exec_module(subs)
def main():
    sub = [s for s in subs.SUBMISSIONS if s["name"].startswith("k3")][0]
    tmp = Path(tempfile.mkdtemp(prefix="rt27h-k3"))
    path = write_submission("02-scaled-attention", tmp / "k3.ipynb", sub["cells"])
    with course.scratch_course("02-scaled-attention", ROOT) as (_api, scratch):
        res = grade(ROOT, "02-scaled-attention", {"k3": path}, f"sqlite:///{scratch / 'gradebook.db'}", workers=1, out_dir=tmp / "out")
    r = res[0]
    print(r.status, r.reasons, r.score, r.max_score)
    for f in (tmp / "out").rglob("*.ipynb"):
        nb = json.loads(f.read_text())
        for c in nb["cells"]:
            if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "padding_mask":
                print("".join(o.get("text", "") if isinstance(o.get("text"), str) else "".join(o.get("text", [])) for o in c.get("outputs", []))[:500])

if __name__ == '__main__':
    main()
