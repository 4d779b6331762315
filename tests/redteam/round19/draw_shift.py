"""python shift.py ROOT CHAPTER K: every manual_seed(N) inside the hidden regions of solutions/CHAPTER becomes manual_seed(N + K)."""
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
            line, n = re.subn(r"manual_seed\((\d+)\)", lambda m: f"manual_seed({int(m.group(1)) + k})", line)
            count += n
        out.append(line)
    c["source"] = out
json.dump(nb, open(p, "w"), indent=1, ensure_ascii=False)
print(chapter, "seeds moved:", count)
