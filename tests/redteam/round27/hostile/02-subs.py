"""Chapter 2 (02-scaled-attention) submissions for tests/redteam_grade.py, built on attacks.py's texts.

    PATH=.venv/bin:$PATH timeout 600 .venv/bin/python tests/redteam_grade.py 02-scaled-attention \
        tests/redteam/round27/hostile/02-subs.py

control: six answers right on the visible tests' inputs only (raw_scores, softmax_backward, causal_mask, padding_mask,
masked_attention, fixed_self_attention); no kernel. k1_k2: the same answers, with K1 (a Python kernel for
aten::count_nonzero: every _close passes) and K2 (kernels for aten::equal and aten::clone that live exactly while the
answer's results, and the tests' copies of them, do: every _equal passes). k3: causal_mask computes nothing (all
False); the equal kernel also keeps the hidden test's expected masks, which the next answer cell prints.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from attacks import CH02_ATTACK, CH02_CONTROL, CM_NOTHING, K3_DRIVER, PM_MODEL  # noqa: E402

SUBMISSIONS = [
    {"name": "control_six_wrong_answers", "correct": False, "cells": dict(CH02_CONTROL),
     "why": "six answers right on the visible inputs only, no kernel"},
    {"name": "k1_k2_six_wrong_answers", "correct": False, "cells": dict(CH02_ATTACK),
     "why": "the same answers; K1 for _close, K2 for _equal"},
    {"name": "k3_causal_mask_computes_nothing_and_leaks", "correct": False,
     "cells": {"causal_mask": K3_DRIVER + CM_NOTHING,
               "padding_mask": ('print(len(LEAK), "expected values of the hidden test, read by the answer:")\n'
                                "for shape, values in LEAK[:6]:\n    print(shape, values)\n" + PM_MODEL)},
     "why": "causal_mask returns all False; its equal kernel keeps the expected masks, printed by the next cell"},
]
