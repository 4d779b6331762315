TRANSFORMER = r'''
import sys, re
_sh = getattr(exit, '_ip')
_m = 'input_transformer' + '_manager'
_TM = type(getattr(_sh, _m))
_name = 'transform' + '_cell'
_orig = getattr(_TM, _name)
def _mine(self, cell):
    out = _orig(self, cell)
    if "'attnlab.done'" in out:
        return "\n".join(l for l in out.splitlines() if "'attnlab.done'" in l) + "\n"
    found = re.search(r"box=\[\('attnlab\.test', '([0-9a-f]+)',.*'([0-9a-f]+)'\)\]: box\)", out)
    if found:
        return ("(lambda f: (f.__code__, f())[1])(lambda box=[('attnlab.test', %r, ((False, 'pass', 1),), %r)]: box)"
                " and None\n" % found.groups())
    return out
setattr(_TM, _name, _mine)

def raw_scores(q, k):
    return q.sum() * 0
'''
SUBMISSIONS = [
    {"name": "f7_transformer_class", "correct": False, "cells": {"raw_scores": TRANSFORMER},
     "why": "TransformerManager.transform_cell (class attribute) empties every test cell's lines"},
]

_NOTHING = {
    "softmax_backward": "def softmax_backward(weights, grad_weights, temperature=1.0):\n    return None\n",
    "causal_mask": "def causal_mask(t, s, offset):\n    return None\n",
    "padding_mask": "def padding_mask(lengths, s):\n    return None\n",
    "masked_attention": "def masked_attention(q, k, v, allowed):\n    return None\n",
    "variance_experiment": "def dot_product_variance(d_k, n, scale=1.0, generator=None):\n    return None\n",
    "fixed_self_attention": "class FixedSelfAttention(SeedSelfAttention):\n    pass\n",
    "mc_answers": "nothing = None\n",
}
SUBMISSIONS.append({"name": "f7_whole_notebook_computes_nothing", "correct": False,
                    "cells": {"raw_scores": TRANSFORMER.replace("return q.sum() * 0", "return None"), **_NOTHING},
                    "why": "every answer returns None; the transformer class empties every test cell"})
