"""The answers of 05-subs.py left out of its graded set (its KEEP list), graded apart as 05-blind-extra.txt: the same
submissions file, the complementary filter (loaded by path, so that the answers stand in one place)."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("subs_05", Path(__file__).with_name("05-subs.py"))
_main = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_main)
S, KEEP = _main.S, _main.KEEP
SUBMISSIONS = [s for s in S if s['name'] not in KEEP]
