"""Chapter 2 (02-scaled-attention) submissions for tests/redteam_grade.py, built on attacks.py's chain.

    PATH=.venv/bin:$PATH timeout 600 .venv/bin/python tests/redteam_grade.py 02-scaled-attention \
        tests/redteam/round24/hostile/02-subs.py

J5: wrong multiple-choice letters; the collector's callback reads each staged test (kernel.get_parent() while the
stage request is evaluated) and sets the letter the hidden line compares with, right before the test cell.
J6: every answer computes nothing (returns None); the callback takes the hook's table of staged tests from the hook's
frame during a probe and rewrites each staged test to run no line, keeping the grader's token.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from attacks import J6_TEXT, chain  # noqa: E402

J5_TEXT = """
import weakref, functools, re
def arm():
    c = C(); c.me = c
    KEEP[:] = [weakref.proxy(c, CB2)]
__import__('g' + 'c').set_threshold(1)
CB2 = functools.partial(EXEC, compile('(lambda: run())()', '<x>', 'exec'), G)
def run():
    arm()
    req = getattr(SH.kernel, 'get_' + 'par' + 'ent')()
    text = str(req.get('content', {}).get('user_expressions', ''))
    if 'attnlab.stage' in text and text not in SEEN:
        SEEN.append(text)
        for name in ('answer_masking', 'answer_doubling'):
            m = re.findall(name + '[^=]{0,40}== *[^a-z]*([abcd])', text)
            if m:
                SH.user_ns[name] = m[0]
"""

NOTHING = {
    "softmax_backward": "def softmax_backward(weights, grad_weights, temperature=1.0):\n    return None\n",
    "causal_mask": "def causal_mask(t, s, offset):\n    return None\n",
    "padding_mask": "def padding_mask(lengths, s):\n    return None\n",
    "masked_attention": "def masked_attention(q, k, v, allowed):\n    return None\n",
    "variance_experiment": ("def dot_product_variance(d_k, n, scale=1.0, generator=None):\n    return None\n"
                            "predicted_variance_512 = 0\n"),
    "fixed_self_attention": "class FixedSelfAttention(SeedSelfAttention):\n    pass\n",
    "mc_answers": 'answer_masking = "a"\nanswer_doubling = "a"\n',
}

SUBMISSIONS = [
    {"name": "j5_mc_letters_from_the_stage_request", "correct": False,
     "cells": {"mc_answers": chain(J5_TEXT, 'answer_masking = "a"\nanswer_doubling = "a"\n', compiled=True)},
     "why": "wrong letters; the callback reads the staged hidden lines and sets the letters before the test"},
    {"name": "j6_every_answer_computes_nothing", "correct": False,
     "cells": {"raw_scores": chain(J6_TEXT, "def raw_scores(q, k):\n    return None\n"), **NOTHING},
     "why": "no answer computes anything; the callback rewrites each staged test to run no line"},
]
