# Red-team round 18, class sweep, chapter 05: each class of BRIEF-SWEEP.md put into the model answer of every part
# where it applies (classes A and B were closed in this chapter by its blind helper).
import json, pathlib

def _model_cells(ch):
    nb = json.load(open(pathlib.Path(__file__).resolve().parents[3] / "solutions" / ch / "exercises.ipynb"))
    out = {}
    for c in nb["cells"]:
        md = c.get("metadata", {}).get("nbgrader", {})
        if md.get("solution") and c["cell_type"] == "code":
            src = "".join(c["source"])
            out[md["grade_id"]] = "\n".join(l for l in src.split("\n") if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)
    return out

M = _model_cells("05-encoder-decoder")

def _v(gid, *pairs):
    src = M[gid]
    for old, new in pairs:
        assert src.count(old) == 1, (gid, old, src.count(old))
        src = src.replace(old, new)
    return {gid: src}

SUBMISSIONS = []
def wrong(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})

# C: a finite stand-in for -inf (Part 6: the only part that masks scores itself; Part 5 calls the given mha)
wrong("C-cached-minus-1e9", _v("cached_attention", ('float("-inf")', "-1e9")),
      "Part 6: a masked position must get weight exactly 0 whatever the scores; -1e9 loses to kept scores below it")
wrong("C-cached-finfo-min", _v("cached_attention", ('float("-inf")', "torch.finfo(scores.dtype).min")),
      "Part 6: finfo.min as -inf: a kept score at or below it (or an all-low row) weighs masked keys")
wrong("C-cached-minus-1e4", _v("cached_attention", ('float("-inf")', "-1e4")),
      "Part 6: -1e4 stand-in; scores of any size")

# D: a float32 sum of squares that overflows/underflows (Part 1). The model answer squares float32 inputs in float32
# (the text allows it); the variant below does the same for float64 inputs, the wrong direction of the class.
wrong("D-rms-float64-squares-in-float32", _v("rms_norm",
      ("inv_rms = torch.rsqrt(x32.pow(2).mean(dim=-1, keepdim=True) + eps)",
       "inv_rms = torch.rsqrt(x32.float().pow(2).mean(dim=-1, keepdim=True) + eps).to(x32.dtype)")),
      "Part 1: a float64 input must not pass through float32 (its squares overflow past 1e19)")

# E: a list where the text says tuple (Part 4 returns (src_allowed, tgt_allowed, cross_allowed))
wrong("E-packed-returns-list", _v("packed_masks",
      ("return same_src, same_tgt & causal, cross", "return [same_src, same_tgt & causal, cross]")),
      "Part 4: 'returning three boolean masks, (src_allowed, tgt_allowed, cross_allowed)': a tuple")

# F: .backward() inside a function whose gradient the test takes (Parts 1, 5, 6)
wrong("F-rms-backward-inside", _v("rms_norm",
      ("    return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)",
       "    out = (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)\n"
       "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)  # check the graph\n    return out")),
      "Part 1: gradients are the caller's: a backward() inside fills the caller's leaves' .grad")
wrong("F-sandwich-backward-inside", _v("sandwich",
      ("    return y + layer_norm(feed_forward(layer_norm(y, *p[\"pre3\"]), p[\"ff\"]), *p[\"post3\"])",
       "    out = y + layer_norm(feed_forward(layer_norm(y, *p[\"pre3\"]), p[\"ff\"]), *p[\"post3\"])\n"
       "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out")),
      "Part 5: backward() inside fills .grad of the caller's y, memory and parameters")
wrong("F-cached-backward-inside", _v("cached_attention",
      ("    return heads.transpose(1, 2).reshape(b, n, d) @ params[\"w_o\"].T + params[\"b_o\"]",
       "    out = heads.transpose(1, 2).reshape(b, n, d) @ params[\"w_o\"].T + params[\"b_o\"]\n"
       "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out")),
      "Part 6: backward() inside fills .grad of the caller's x_new and parameters")
