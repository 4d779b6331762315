"""Round 32, chapter 07: the answers written in phase 1 but left out of the first grading (fewer, better answers);
graded after it, still unchanged from phase 1."""
import importlib.util as _u
import os as _os
_spec = _u.spec_from_file_location("_subs07", _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "07-subs.py"))
_m = _u.module_from_spec(_spec)
_spec.loader.exec_module(_m)
SUBMISSIONS = [s for s in _m.ALL_SUBMISSIONS if s["name"] not in _m.KEEP]
