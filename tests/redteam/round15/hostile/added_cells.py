"""Red team round 15 (hostile): honest lines in a cell the student added, graded with the model answers.

    timeout 1800 python tests/redteam/round15/hostile/added_cells.py 02-scaled-attention [NAME ...]

Each case is the committed notebook with the model answers (tests/grading.py's write_submission; their text
is not printed) plus cells the student added (no nbgrader metadata) after the named cells. An honest case
that loses points, or is flagged, is a finding of class 4 (an honest student loses points).
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "tests"))

CASES = {
    # the usual device-agnostic preamble of PyTorch 2 notebooks
    "default_device": [("setup", 'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
                                 "torch.set_default_device(device)\n")],
    "num_threads": [("setup", "torch.set_num_threads(1)\n")],
    "compile_answer": [("raw_scores", "raw_scores = torch.compile(raw_scores)\n")],
    "ignore_warnings": [("setup", "import warnings\nwarnings.filterwarnings('ignore')\n")],
    "print_options": [("setup", "torch.set_printoptions(precision=3, sci_mode=False)\n")],
    # older tutorials' way to work in float64
    "default_tensor_type": [("setup", "torch.set_default_tensor_type(torch.DoubleTensor)\n")],
    "recursion_limit": [("setup", "import sys\nsys.setrecursionlimit(10_000)\n")],
    "device_context": [("setup", 'torch.device("cpu").__enter__()\n')],
    # a plot of the variance experiment (Part 6), as a student exploring it would draw one
    "plot": [("variance_experiment", "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
                                     "ds = [2, 8, 32, 128]\n"
                                     "plt.plot(ds, [dot_product_variance(d, 500) for d in ds], marker='o')\n"
                                     "plt.xlabel('d_k'); plt.ylabel('variance'); plt.show()\n")],
}


def build(chapter: str, path: Path, added: list[tuple[str, str]], answers: dict[str, str] | None = None) -> Path:
    from grading import write_submission

    write_submission(chapter, path, answers)
    nb = json.loads(path.read_text())
    for n, (after, code) in enumerate(added):
        at = next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == after
                  or c.get("id") == after)
        nb["cells"].insert(at + 1, {"cell_type": "code", "execution_count": None, "id": f"added-{n}",
                                    "metadata": {}, "outputs": [], "source": code})
    path.write_text(json.dumps(nb, indent=1))
    return path


def main(argv):
    from attnlab import course
    from attnlab.instructor.grading import grade

    chapter, names = argv[0], argv[1:] or list(CASES)
    with tempfile.TemporaryDirectory(prefix="rt15h-added-") as tmp:
        tmp = Path(tmp)
        paths = {name: build(chapter, tmp / f"{name}.ipynb", CASES[name]) for name in names}
        paths["baseline"] = build(chapter, tmp / "baseline.ipynb", [])
        with course.scratch_course(chapter, ROOT) as (_api, scratch):
            results = grade(ROOT, chapter, paths, f"sqlite:///{scratch / 'gradebook.db'}", workers=2, out_dir=tmp / 'out')
        errors = {}
        for nbp in (tmp / 'out').rglob('*.ipynb'):
            student = nbp.relative_to(tmp / 'out').parts[0]
            for c in json.loads(nbp.read_text())['cells']:
                gid = c['metadata'].get('nbgrader', {}).get('grade_id')
                for o in c.get('outputs', []):
                    if o.get('output_type') == 'error':
                        errors.setdefault(student, []).append(f"{gid}: {o.get('ename')}: {str(o.get('evalue'))[-1500:]}")
    for r in results:
        got = sum(p.score for p in r.parts.values())
        top = sum(p.max_score for p in r.parts.values())
        lost = [k for k, p in r.parts.items() if p.score < p.max_score]
        print(f"{r.student:16} {r.status:8} {got:g}/{top:g} lost={lost} reasons={'; '.join(r.reasons)[:300]}")
        if lost:
            for line in errors.get(r.student, [])[:3]:
                print("    ", line)


if __name__ == "__main__":
    main(sys.argv[1:])
