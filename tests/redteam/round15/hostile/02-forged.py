"""Red team round 15 (hostile): F1 without a file: code compiled under the file name of an installed module.

    timeout 1800 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round15/hostile/02-forged.py

The same payload as 02-attacks.py (F2's helper swap, with its watcher thread), but nothing is written to disk
and `sys.path` is not touched: `codeop.Compile()` (not the builtin `compile`, which the static scan reads)
compiles the payload's text under the file name of a module of the Python installation, and
`types.FunctionType(code, namespace)()` runs it (no `exec`, so no "exec" audit event). Every frame of the
payload then claims to be library code, which the audit hook leaves alone whatever it does.
"""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("attacks02", Path(__file__).resolve().parent / "02-attacks.py")
_m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_m)

LOADER = (
    "import codeop, sysconfig, os, types\n"
    f"PAYLOAD = {_m.CHEAT!r}\n"
    "code = codeop.Compile()(PAYLOAD, os.path.join(sysconfig.get_paths()['stdlib'], 'nntplib.py'), 'exec')\n"
    "payload = {'__name__': 'nntplib'}\n"
    "types.FunctionType(code, payload)()\n"
    "helper = types.SimpleNamespace(**payload)\n\n"
)

SUBMISSIONS = []
for name, sub in [(s["name"], s) for s in _m.SUBMISSIONS if s["name"].startswith("module_from_disk")]:
    cells = dict(sub["cells"])
    cells["raw_scores"] = cells["raw_scores"].replace(_m.LOADER, LOADER)
    assert LOADER in cells["raw_scores"]
    SUBMISSIONS.append({"name": name.replace("module_from_disk", "forged_filename"), "correct": False, "cells": cells,
                        "why": "as " + name + ", the payload compiled under an installed file's name, never on disk"})
