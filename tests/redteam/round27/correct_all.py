"""The correct answers of red-team rounds 16-27 of one chapter, as one SUBMISSIONS file for tests/redteam_grade.py.

    python tests/redteam/round27/correct_all.py NN OUT.py

Reads `tests/redteam/roundRR/NN-subs.py` and `NN-pass2-subs.py` and keeps the entries labelled correct, their names
prefixed with the round (`r25-...`): graded on two checkouts, the refusals show whether a change refused an answer
that an earlier round judged correct."""
import glob
import importlib.util
import pathlib
import pprint
import sys

REDTEAM = pathlib.Path(__file__).parents[1]


def main(n, out):
    subs = []
    for r in range(16, 28):
        for f in sorted(glob.glob(str(REDTEAM / f"round{r}" / f"{n}-*subs.py"))):
            if not f.endswith((f"{n}-subs.py", f"{n}-pass2-subs.py")):
                continue
            spec = importlib.util.spec_from_file_location(f"round{r}_{pathlib.Path(f).stem}", f)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            subs += [dict(s, name=f"r{r}-{s['name']}") for s in module.SUBMISSIONS if s.get("correct")]
    pathlib.Path(out).write_text("SUBMISSIONS = " + pprint.pformat(subs, width=120) + "\n")
    print(n, len(subs))


if __name__ == "__main__":
    main(*sys.argv[1:3])
