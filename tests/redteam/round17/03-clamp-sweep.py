"""Round 17 clamp sweep, chapter 03: the model answer with a defensive clamp on a value the text does not bound."""
_CH = "03"
import json as _json, glob as _glob

_NB = _json.load(open(_glob.glob("solutions/%s-*/exercises.ipynb" % _CH)[0]))
_MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        _MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                         if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)
SUBMISSIONS = []


def V(name, gid, edits, why):
    """the model answer of `gid` with each (old, new) replaced once."""
    code = _MODEL[gid]
    for old, new in edits:
        assert code.count(old) == 1, (name, old)
        code = code.replace(old, new)
    SUBMISSIONS.append({"name": name, "correct": False, "cells": {gid: code}, "why": why})


V("split_x_clamped", "interleaved", [("b, t, d = x.shape", "b, t, d = x.shape\n    x = x.clamp(-1e4, 1e4)")],
  "x clamped at +-1e4 in the split")
V("split_x_nan_to_num", "interleaved", [("b, t, d = x.shape", "b, t, d = x.shape\n    x = torch.nan_to_num(x)")],
  "nan_to_num on x in the split")
V("contrib_x_clamped", "contributions", [("qkv = x @ params[\"w_qkv\"].T", "qkv = x.clamp(-1e4, 1e4) @ params[\"w_qkv\"].T")],
  "x clamped at +-1e4")
V("contrib_qkv_clamped", "contributions", [("qkv = x @ params[\"w_qkv\"].T + params[\"b_qkv\"]", "qkv = (x @ params[\"w_qkv\"].T + params[\"b_qkv\"]).clamp(-1e4, 1e4)")],
  "projections clamped at +-1e4")
V("contrib_heads_nan_to_num", "contributions", [("heads = attention(q, k, v)", "heads = torch.nan_to_num(attention(q, k, v))")],
  "nan_to_num on the heads")
V("padded_inputs_clamped", "left_padded", [("d, s = x.shape[-1], memory.shape[1]", "d, s = x.shape[-1], memory.shape[1]\n    x, memory = x.clamp(-1e4, 1e4), memory.clamp(-1e4, 1e4)")],
  "x and memory clamped at +-1e4")
V("padded_qk_clamped", "left_padded", [("heads = attention(q, k, v, real", "q, k = q.clamp(-1e4, 1e4), k.clamp(-1e4, 1e4)\n    heads = attention(q, k, v, real")],
  "q and k clamped at +-1e4")
V("padded_heads_nan_to_num", "left_padded", [("heads = attention(q, k, v, real[:, None, None, :])", "heads = torch.nan_to_num(attention(q, k, v, real[:, None, None, :]))")],
  "nan_to_num on the heads")
V("cache_x_clamped", "cache", [("qkv = x @ params[\"w_qkv\"].T", "qkv = x.clamp(-1e4, 1e4) @ params[\"w_qkv\"].T")],
  "x clamped at +-1e4")
V("cache_past_clamped", "cache", [("k = torch.cat([past_k, k_new], dim=2)", "k = torch.cat([past_k.clamp(-1e4, 1e4), k_new], dim=2)")],
  "cached keys clamped at +-1e4")
V("cache_q_clamped", "cache", [("allowed = torch.ones(", "q = q.clamp(-1e4, 1e4)\n    allowed = torch.ones(")],
  "queries clamped at +-1e4")
V("cache_heads_nan_to_num", "cache", [("out = merge_heads(attention(q, k, v, allowed))", "out = merge_heads(torch.nan_to_num(attention(q, k, v, allowed)))")],
  "nan_to_num on the heads")
