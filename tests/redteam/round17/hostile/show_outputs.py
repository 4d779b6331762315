"""Grade submissions (file in the redteam_grade format) and print, for the cells named, the student cells' outputs and
for test cells the error, its frames and the line the feedback page names (feedback.redacted_traceback).

    timeout 1800 python tests/redteam/round17/hostile/show_outputs.py CHAPTER SUBMISSIONS.py GID,GID,...
"""
import sys, json, importlib.util, tempfile
from pathlib import Path
ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "tests"))
from attnlab import course
from grading import write_submission
from attnlab.instructor.grading import grade

def main():
    chapter, spec_path = sys.argv[1], sys.argv[2]
    show = sys.argv[3].split(",") if len(sys.argv) > 3 else []
    spec = importlib.util.spec_from_file_location("subs", spec_path); mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    subs = [s for s in mod.SUBMISSIONS if s.get("chapter", chapter) == chapter]
    with tempfile.TemporaryDirectory(prefix="rt17h-") as tmp:
        tmp = Path(tmp)
        paths = {s["name"]: write_submission(chapter, tmp / f"{s['name']}.ipynb", s["cells"]) for s in subs}
        with course.scratch_course(chapter, ROOT) as (_api, scratch):
            results = grade(ROOT, chapter, paths, f"sqlite:///{scratch / 'gradebook.db'}", workers=1, out_dir=tmp / "out")
            for r in results:
                print("=====", r.student, r.status, r.reasons, r.notes)
                print("  parts:", {k: f"{p.score:g}/{p.max_score:g}" for k, p in r.parts.items()})
                nbp = tmp / "out" / r.student / chapter / "exercises.ipynb"
                if not nbp.exists():
                    print("  no graded nb", list((scratch / "autograded").rglob("*"))[:5]); continue
                nb = json.load(open(nbp))
                for c in nb["cells"]:
                    m = c["metadata"].get("nbgrader", {})
                    gid = m.get("grade_id")
                    if gid in show or (not m and c["cell_type"] == "code"):
                        for o in c.get("outputs", []):
                            if o["output_type"] == "error":
                                print(f"  [{gid}] ERROR {o['ename']}: {o['evalue'][:400]}")
                                import re
                                from attnlab.instructor.feedback import redacted_traceback
                                for line in o.get("traceback", []):
                                    for l in re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", line).splitlines():
                                        if "Cell In" in l or "File " in l or "attnlab" in l:
                                            print("      tb:", l[:160])
                                print("      feedback says:", redacted_traceback("".join(c["source"]), o)[1:])
                            elif m.get("solution") or not m:
                                print(f"  [{gid}]", (o.get("text") or json.dumps(o.get("data", {}))[:400])[:800])
    
if __name__ == '__main__':
    main()
