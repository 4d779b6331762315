"""Red team round 16, hostile 2: honest cells near the new checks (the test cell's secret, the second reply),
graded with the model answers (round 15's added_cells.py harness).

    timeout 900 python tests/redteam/round16/hostile2/honest_new_checks.py 02-scaled-attention [NAME ...]
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("added_cells", HERE.parents[1] / "round15" / "hostile" / "added_cells.py")
added_cells = importlib.util.module_from_spec(spec)
spec.loader.exec_module(added_cells)

added_cells.CASES.clear()
added_cells.CASES.update({
    # IPython's pretty printing off (the test cell's secret comes back as text/plain)
    "pprint_toggle": [("setup", "%pprint\n")],
    # the root logger at DEBUG, as one does to see what a library does
    "debug_logging": [("setup", "import logging\nlogging.basicConfig(level=logging.DEBUG)\n")],
    # every warning an error, to catch a numerical warning where it happens
    "warnings_error": [("setup", "import warnings\nwarnings.simplefilter('error')\n")],
    # an asyncio cell (top-level await): IPython runs it through run_cell_async
    "top_level_await": [("setup", "import asyncio\nawait asyncio.sleep(0)\nprint('ok')\n")],
})

if __name__ == "__main__":
    added_cells.main(sys.argv[1:])
