"""Red team round 16 (hostile, limits): the output limit does not count error outputs.

    timeout 1800 python tests/redteam/round16/hostile/error_output_size.py [MB] [--every-test]

One notebook, the model answers except Part 3's answer cell, which raises a ValueError whose message is MB
megabytes (default 100), and, for comparison, one that prints the same amount. Prints the autograded notebook's
size, the largest output kept, and the grader's peak memory (this process and its children).
"""
from __future__ import annotations

import json
import resource
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

    n = mb * 2**20
    cases = {"raises": {"causal_mask": f"raise ValueError('A' * {n})\n"},
             "prints": {"causal_mask": f"print('A' * {n})\n"}}
    if "--every-test" in sys.argv:  # each answer raises it when a test calls it: one such error per test cell
        cases = {"raises_in_tests": {gid: f"def {gid}(*args, **kwargs):\n    raise ValueError('A' * {n})\n"
                                     for gid in ("raw_scores", "softmax_backward", "causal_mask", "padding_mask",
                                                 "masked_attention")}}
    with tempfile.TemporaryDirectory(prefix="rt16h-err-") as tmp:
        tmp = Path(tmp)
        paths = {name: write_submission(CHAPTER, tmp / f"{name}.ipynb", cells) for name, cells in cases.items()}
        with course.scratch_course(CHAPTER, ROOT) as (_api, scratch):
            results = grade(ROOT, CHAPTER, paths, f"sqlite:///{scratch / 'gradebook.db'}", workers=1, out_dir=tmp / "out")
        for r in results:
            nbp = next((tmp / "out" / r.student).rglob("*.ipynb"))
            nb = json.loads(nbp.read_text())
            biggest = max((len(json.dumps(o)) for c in nb["cells"] for o in c.get("outputs", [])), default=0)
            print(f"{r.student:8} {r.status:8} {r.score}/{r.max_score} autograded notebook {nbp.stat().st_size / 2**20:.1f} MiB, "
                  f"largest output {biggest / 2**20:.1f} MiB | {'; '.join(r.notes)[:160]}")
    print(f"peak RSS: grader {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MiB, "
          f"children {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**10:.0f} MiB")


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    main(int(numbers[0]) if numbers else 100)
