"""python draw_shift.py ROOT CHAPTER K: every manual_seed(...) inside the hidden regions of solutions/CHAPTER becomes
manual_seed(K + (...)).

Every call moves, a literal seed or a name (``manual_seed(seed)``, ``manual_seed(draw_seed + offset)``), so that a
generator handed to the answer and the one its reference draws from stay equally seeded. (The first version moved
literal seeds only: in chapter 8 the answer's generator moved while ``_ref_sample``'s, seeded from the same number
passed as an argument, did not, and the model answer was "refused" by the tool, not by the test.)
"""
import json, re, sys
root, chapter, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = f"{root}/solutions/{chapter}/exercises.ipynb"
nb = json.load(open(p))
count = 0
for c in nb["cells"]:
    src = "".join(c["source"])
    if "### BEGIN HIDDEN TESTS" not in src:
        continue
    out, inside = [], False
    for line in src.splitlines(keepends=True):
        if line.strip() == "### BEGIN HIDDEN TESTS":
            inside = True
        elif line.strip() == "### END HIDDEN TESTS":
            inside = False
        elif inside:
            line, n = re.subn(r"manual_seed\(", f"manual_seed({k} + ", line)
            count += n
        out.append(line)
    c["source"] = out
json.dump(nb, open(p, "w"), indent=1, ensure_ascii=False)
print(chapter, "seeds moved:", count)
