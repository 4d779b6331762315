"""The kernel's own CPU time for a 31-cell notebook (torch loaded; 15 answer cells and 15 test cells with hidden
lines) under the hardened executor, to compare two checkouts of the grader on one machine:

    PYTHONPATH=<checkout>/src python tests/redteam/round23/kernel_cpu.py

prints the wall time of the run and KCPU, the kernel process's user + system seconds (getrusage in its last cell,
so the machine's other load changes it little)."""
import sys
import tempfile
import time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from test_hostile_hooks import run_notebook
SETUP = "import torch, os, sys, resource\n_REF = {'allclose': torch.allclose}\nx = 1"
cells = [(SETUP, "setup", "locked")]
for i in range(15):
    cells.append((f"y{i} = torch.ones(3) * {i}", f"a{i}", "student"))
    cells.append((f"assert y{i}.sum() == {3 * i}\n### BEGIN HIDDEN TESTS\nassert y{i}[0] == {i}\n### END HIDDEN TESTS", f"t{i}", "test"))
cells.append(("r = resource.getrusage(resource.RUSAGE_SELF)\nprint('KCPU', r.ru_utime + r.ru_stime)", "last", "student"))
t = time.time()
ctx, out = run_notebook(Path(tempfile.mkdtemp()), cells)
print("wall", round(time.time() - t, 2), "".join(o.get("text", "") for o in out["last"].outputs).strip(), "tampered", ctx.tampered[:2])
