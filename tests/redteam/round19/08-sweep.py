# Red team 19, class sweep of chapter 08 (capstone): the classes A-H of BRIEF-SWEEP.md put one at a time into the
# model answer of every part where they apply (class letter in each name and "why"). The model answers are read from
# the solution notebook at import, so each variant is the smallest change of the current model answer.
import json as _json
import re as _re
from pathlib import Path as _Path

_NB = _json.loads((_Path(__file__).resolve().parents[3] / "solutions" / "08-capstone" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _g = _c.get("metadata", {}).get("nbgrader", {})
    if _g.get("solution"):
        _src = "".join(_c["source"])
        MODEL[_g["grade_id"]] = _re.sub(r"\n *### (BEGIN|END) SOLUTION", "", _src)

SUBMISSIONS = []


def _v(part, *pairs):
    code = MODEL[part]
    for old, new in pairs:
        assert old in code, (part, old)
        code = code.replace(old, new)
    return {part: code}


def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


# Parts 1-3 (decoder_io, lr_at, min_loss): ids moved, Python floats, a constant: every class n/a
# Part 1, H: the text puts EOS then the PADs at the end of every row (n/a); B = 0 / T = 0 are stated and tested

# ---- Part 4, sentence_smoothed_loss ---------------------------------------------------------------------------
W("D_p4_counts_in_uint8", _v("sentence_loss", ("counts = real.sum(dim=1)", "counts = real.sum(dim=1, dtype=torch.uint8)")),
  "D: each row's count of real positions in uint8: a row of 256 counts as empty, 257 as 1")
W("D_p4_counts_in_int8", _v("sentence_loss", ("counts = real.sum(dim=1)", "counts = real.sum(dim=1, dtype=torch.int8)")),
  "D: each row's count in int8: 128 real positions count as -128")
C("D_p4_counts_in_float32", _v("sentence_loss", ("counts = real.sum(dim=1)", "counts = real.sum(dim=1, dtype=torch.float32)")),
  "D: a float32 count (exact to 2**24 positions)")
W("H_p4_padding_at_the_end", _v("sentence_loss", ("real = targets != PAD", "real = torch.arange(targets.shape[1])[None, :] < (targets != PAD).sum(dim=1, keepdim=True)")),
  "H: real positions taken as each row's first count-of-non-PAD positions (PAD assumed at the end; the text: a PAD may stand inside a row)")
W("H_p4_length_to_first_pad", _v("sentence_loss", ("real = targets != PAD", "real = (targets != PAD).long().cumprod(dim=1).bool()")),
  "H: a sentence taken to end at its first PAD (the text: a PAD may stand inside a row)")
# A: float32/float64 logits only (n/a); B, G: no norm or variance; C: no positions; E: no memory rule;
# F: a mask multiplies finite losses, nothing added to scores

# ---- Part 5, average_checkpoints -------------------------------------------------------------------------------
W("A_p5_sum_in_own_dtype", _v("average", ("total = sum(s[k].double() for s in states)", "total = sum(s[k] for s in states)")),
  "A: the sum in float16 (inf past 65504; the text: as accurate as float32, the hidden tests sum past it)")
W("A_p5_terms_divided_in_half", _v("average", ("total = sum(s[k].double() for s in states)\n            out[k] = (total / len(states)).to(states[0][k].dtype)",
                                              "out[k] = sum((s[k] / len(states)).float() for s in states).to(states[0][k].dtype)")),
  "A: each term divided in its own dtype (rounded in float16) before a float32 sum: rounds twice")
C("A_p5_sum_in_float32", _v("average", ("total = sum(s[k].double() for s in states)", "total = sum(s[k].float() if s[k].dtype in (torch.float16, torch.bfloat16) else s[k].double() for s in states)")),
  "A: half tensors summed in float32, rounded once")
# B, G: no norm or variance (a mean of values, no squares); C: no positions; D: integers are not averaged;
# E: no memory rule; F: no mask; H: no padding

# ---- Part 6, sample_decode -------------------------------------------------------------------------------------
W("F_p6_cut_to_finfo_min", _v("sample", ('scores = torch.full_like(scores, float("-inf"))', 'scores = torch.full_like(scores, torch.finfo(scores.dtype).min)')),
  "F: the entries top_k cut set to finfo.min (the text: -inf)")
W("F_p6_minus_1e9_added", _v("sample", ('scores = torch.full_like(scores, float("-inf")).scatter(-1, kept, scores.gather(-1, kept))',
                                         'scores = scores + torch.full_like(scores, -1e9).scatter(-1, kept, 0.0)')),
  "F: -1e9 added to the entries top_k cut")
C("F_p6_finfo_min_added", _v("sample", ('scores = torch.full_like(scores, float("-inf")).scatter(-1, kept, scores.gather(-1, kept))',
                                         'scores = scores + torch.full_like(scores, torch.finfo(scores.dtype).min).scatter(-1, kept, 0.0)')),
  "F: finfo.min added to the entries top_k cut (the Hugging Face way): allowed, since top_k cuts only scores at or "
  "below every kept one, so the sum lies at or below finfo.min + the row maximum (or is -inf) and softmax gives exactly 0")
C("A_p6_probs_in_input_dtype_then_double", _v("sample", ("probs = torch.softmax(scores.double(), dim=-1)", "probs = torch.softmax(scores, dim=-1).double()")),
  "A: the softmax in the model's dtype, cast to float64 after: allowed, the text now says next_logprobs returns "
  "float64 (every model of the tests does), so it is the float64 softmax")
# B, G: no norm; C: no positions; D: no count; E: no memory rule; H: starts may be empty and max_len 0 (stated, tested)

# Part 7 (beam_search): float64 scores kept in Python; ids from divmod of a flat index (Python ints): every class n/a
# Part 8 (corpus_bleu): Python counters and ints: every class n/a
