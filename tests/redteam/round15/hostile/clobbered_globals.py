"""Red team round 15 (hostile): which ordinary global names the hidden tests rebind (class 4, and 2: names).

    timeout 1800 python tests/redteam/round15/hostile/clobbered_globals.py 02-scaled-attention [...]

A student's answer that reads a global of its own (a constant such as `eps`, `scale`, `n_heads`) finds, when
graded, whatever a hidden test cell assigned to that name at the top level, and behaves differently from the
student's own runs of the visible tests. The model answers plus two cells the student added: one after the
setup that gives each of ~150 ordinary names a sentinel value, one at the end that prints the names whose value
changed. Names assigned by the released notebook's own cells (the visible tests: `q`, `k`, `x` ...) are left out:
the student sees those rebound locally too.
"""
from __future__ import annotations

import ast
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(HERE))

NAMES = sorted(set("""
a b c d e f g h i j k l m n o p r s t u v w x y z
A B C D E F G H I J K L M N O P Q R S T U V W X Y Z
eps EPS epsilon tol atol rtol scale SCALE temperature temp beta alpha gamma lam
n_heads heads num_heads n_layers layers d_model d_k d_v dk dv dim hidden vocab seq_len max_len block chunk window
batch size shape dtype device seed generator gen rng
mask allowed causal lengths length positions pos offset start end step steps
inf NEG_INF neg_inf big BIG
q k v x y z out res result results expected got want ref reference target targets logits probs weights scores
data inputs outputs inp sample samples tokens ids ids_ prompt cache state params param model layer module
check checks test tests case cases trial trials count counts total value values val item items
one two three first last prev cur nxt new old tmp buf acc
""".split()) - {"F", "nn", "np", "math", "torch", "numpy"})


def sentinel_cell(names):
    return "".join(f"{n} = 'sentinel-{n}'\n" for n in names)


def report_cell(names):
    body = "".join(f"    ('{n}', {n}),\n" for n in names)
    return ("_rt15_pairs = [\n" + body + "]\n"
            "print('CLOBBERED', sorted(n for n, v in _rt15_pairs if v != 'sentinel-' + n))\n")


def released_targets(chapter):
    nb = json.loads((ROOT / "chapters" / chapter / "exercises.ipynb").read_text())
    names = set()
    for c in nb["cells"]:
        if c["cell_type"] != "code":
            continue
        try:
            tree = ast.parse("".join(c["source"]))
        except SyntaxError:
            continue
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        names |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        names |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return names


def main(argv):
    from added_cells import build
    from attnlab import course
    from attnlab.instructor.grading import grade

    for chapter in argv:
        visible = released_targets(chapter)
        names = [n for n in NAMES if n not in visible]
        nb = json.loads((ROOT / "chapters" / chapter / "exercises.ipynb").read_text())
        last = [c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id")][-1]
        with tempfile.TemporaryDirectory(prefix="rt15h-clob-") as tmp:
            tmp = Path(tmp)
            path = build(chapter, tmp / "clobber.ipynb", [("setup", sentinel_cell(names)), (last, report_cell(names))])
            with course.scratch_course(chapter, ROOT) as (_api, scratch):
                (r,) = grade(ROOT, chapter, {"clobber": path}, f"sqlite:///{scratch / 'gradebook.db'}", out_dir=tmp / "out")
            got = sum(p.score for p in r.parts.values())
            top = sum(p.max_score for p in r.parts.values())
            printed = ""
            for nbp in (tmp / "out").rglob("*.ipynb"):
                for c in json.loads(nbp.read_text())["cells"]:
                    for o in c.get("outputs", []):
                        text = "".join(o.get("text", "")) if isinstance(o.get("text"), (list, str)) else ""
                        if "CLOBBERED" in text:
                            printed = text.strip()
            print(f"{chapter}: {r.status} {got:g}/{top:g} {printed or 'no report (reasons: ' + '; '.join(r.reasons)[:300] + ')'}")


if __name__ == "__main__":
    main(sys.argv[1:])
