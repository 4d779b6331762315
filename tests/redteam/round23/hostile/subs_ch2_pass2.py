"""Second pass: G6 (TransformerManager.transform_cell set on the *instance*, whose __dict__ the probe does not
fingerprint) on real chapter 2: every answer returns None.

    cd /work/main && timeout 600 .venv/bin/python tests/redteam_grade.py 02-scaled-attention \
        tests/redteam/round23/hostile/subs_ch2_pass2.py
"""
INSTANCE_TRANSFORMER = r'''
import re
_sh, _m = getattr(exit, '_ip'), 'input_transformer' + '_manager'
_tm = getattr(_sh, _m)
_name = 'transform' + '_cell'
_orig = getattr(_tm, _name)
def _mine(cell):
    out = _orig(cell)
    if "'attnlab.done'" in out:
        return "\n".join(l for l in out.splitlines() if "'attnlab.done'" in l) + "\n"
    found = re.search(r"box=\[\('attnlab\.test', '([0-9a-f]+)',.*'([0-9a-f]+)'\)\]: box\)", out)
    if found:
        return ("(lambda f: (f.__code__, f())[1])(lambda box=[('attnlab.test', %r, ((False, 'pass', 1),), %r)]: box)"
                " and None\n" % found.groups())
    return out
setattr(_tm, _name, _mine)

def raw_scores(q, k):
    return None
'''
_NOTHING = {
    "softmax_backward": "def softmax_backward(weights, grad_weights, temperature=1.0):\n    return None\n",
    "causal_mask": "def causal_mask(t, s, offset):\n    return None\n",
    "padding_mask": "def padding_mask(lengths, s):\n    return None\n",
    "masked_attention": "def masked_attention(q, k, v, allowed):\n    return None\n",
    "variance_experiment": "def dot_product_variance(d_k, n, scale=1.0, generator=None):\n    return None\n",
    "fixed_self_attention": "class FixedSelfAttention(SeedSelfAttention):\n    pass\n",
    "mc_answers": "nothing = None\n",
}
SUBMISSIONS = [{"name": "g6_whole_notebook_computes_nothing", "correct": False,
                "cells": {"raw_scores": INSTANCE_TRANSFORMER, **_NOTHING},
                "why": "every answer returns None; transform_cell on the manager instance empties every test cell"}]
