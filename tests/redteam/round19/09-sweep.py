# Red team 19, class sweep of chapter 09 (modern LM): the classes A-H of BRIEF-SWEEP.md put one at a time into the
# model answer of every part where they apply (class letter in each name and "why"). The model answers are read from
# the solution notebook at import, so each variant is the smallest change of the current model answer.
import json as _json
import re as _re
from pathlib import Path as _Path

_NB = _json.loads((_Path(__file__).resolve().parents[3] / "solutions" / "09-modern-lm" / "exercises.ipynb").read_text())
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


# ---- Part 1, head_rms_norm -------------------------------------------------------------------------------------
W("A_p1_rms_in_half", _v("head_rms_norm", ("work = torch.float64 if x.dtype == torch.float64 else torch.float32", "work = x.dtype")),
  "A: the normalisation and the scale in float16/bfloat16 (the text: convert to float32, round once at the end)")
W("B_p1_mean_of_squares_in_work_dtype", _v("head_rms_norm", ("heads.double().square()", "heads.square()")),
  "B: the mean of the squares in float32 (inf past 1e19, 0 below 1e-20; the text: in float64)")
W("B_p1_norm_via_vector_norm_float32", _v("head_rms_norm", (
    "torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)",
    "torch.rsqrt(torch.linalg.vector_norm(heads, dim=-1, keepdim=True) ** 2 / heads.shape[-1] + eps)")),
  "B: the RMS as a float32 norm squared (the square of the norm overflows past 1e19)")
# G: RMSNorm subtracts no mean (n/a); C, D, E, F, H: no positions, counts, memory rule, mask or padding (n/a)

# ---- Part 2, fused_swiglu --------------------------------------------------------------------------------------
W("A_p2_half_products", _v("fused_swiglu", ("work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32", "work = x.dtype")),
  "A: the model answer as it was: g * sigmoid(g) * u formed in float16, inf past 65504 (gates and ups near 300) while "
  "the result (small w_down) is not")
C("A_p2_float64_inside", _v("fused_swiglu", ("work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32",
                                            "work = torch.float64")),
  "A: float64 inside for every input dtype, cast back once")
C("A_p2_bfloat16_in_bfloat16", _v("fused_swiglu", ("work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32",
                                                  "work = torch.float32 if x.dtype == torch.float16 else x.dtype")),
  "A: bfloat16 computed in bfloat16 (its range holds the products; the text allows it), float16 in float32")
# B, G: no norm or variance; C, D, E, F, H: n/a

# ---- Part 3, moe_params: Python ints only, every class n/a ------------------------------------------------------

# ---- Part 4, masked_lm_loss ------------------------------------------------------------------------------------
W("D_p4_count_in_uint8", _v("masked_lm_loss", ("count = int(chosen.sum())", "count = int(chosen.sum(dtype=torch.uint8))")),
  "D: the count in uint8 wraps at 256 predicted tokens")
W("D_p4_count_in_int8", _v("masked_lm_loss", ("count = int(chosen.sum())", "count = int(chosen.sum(dtype=torch.int8))")),
  "D: the count in int8 wraps at 128 predicted tokens")
W("A_p4_logsumexp_in_half", _v("masked_lm_loss", ("scores = logits[:, :-1][chosen].to(work)", "scores = logits[:, :-1][chosen]"),
                               ("per_token = (log_z - picked) + z_loss * log_z.square()", "per_token = ((log_z - picked) + z_loss * log_z.to(work).square()).to(work)")),
  "A: logsumexp and the pick in float16/bfloat16, only the square in float32 (the text: compute in float32)")
C("D_p4_count_in_float32", _v("masked_lm_loss", ("count = int(chosen.sum())", "count = int(chosen.float().sum())")),
  "D: a float32 count, exact to 2**24 predicted tokens (any batch these sizes allow)")
# B, G: no norm or variance; C: no positions; E: no memory rule; F: positions are left out, nothing added;
# H: positions given by the mask anywhere (B = 0 stated and tested)

# ---- Part 5, block_variant: calls the given functions, every class n/a -------------------------------------------

# ---- Part 6, rope_llama3 ---------------------------------------------------------------------------------------
W("C_p6_positions_through_x_dtype", _v("rope_llama3", ("positions.to(torch.float64)", "positions.to(x.dtype).to(torch.float64)")),
  "C: positions through float16/bfloat16 (exact to 2048/256 only)")
C("C_p6_positions_through_float32", _v("rope_llama3", ("positions.to(torch.float64)", "positions.to(torch.float32).to(torch.float64)")),
  "C: positions through float32, exact up to 2**24 > 131 071 (the largest position the text allows)")
W("A_p6_rotation_in_half", _v("rope_llama3", ("cos, sin = angle.cos(), angle.sin()", "cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)"),
                               ("first, second = x.to(torch.float64).chunk(2, dim=-1)", "first, second = x.chunk(2, dim=-1)")),
  "A: the rotation's products and sums in float16/bfloat16 (the text: compute as float32, round once)")
W("H_p6_table_to_the_largest_position", _v("rope_llama3", ("angle = positions.to(torch.float64)[:, None, :, None] * theta",
    "table = torch.arange(int(positions.max()) + 1, dtype=torch.float64)[:, None] * theta\n    angle = table[positions.long()][:, None]")),
  "H: a table up to positions.max(): an empty batch (or T = 0) has no maximum")
# B, G: no norm; D: no count; E: no memory rule; F: no mask

# ---- Part 7, ragged_cached_attention ---------------------------------------------------------------------------
C("C_p7_float32_positions", _v("ragged_cached_attention",
    ("written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]",
     "written = torch.arange(s_max, dtype=torch.float32)[None, :] < (lengths.long() + t).float()[:, None]"),
    ("allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]",
     "allowed = torch.arange(s_max, dtype=torch.float32)[None, None, :] <= slots.float()[:, :, None]")),
  "C: positions compared in float32: exact, since the text now bounds S_max at 2**24 (it slipped before, as a wrong "
  "answer: S_max was only 'in the millions', and a case past 2**24 costs far more than a tenth of a second)")
W("D_p7_lengths_in_int16", _v("ragged_cached_attention", ("slots = lengths.long()[:, None]", "slots = lengths.to(torch.int16).long()[:, None]"),
                               ("written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]", "written = torch.arange(s_max)[None, :] < (lengths.to(torch.int16).long() + t)[:, None]")),
  "D: lengths narrowed to int16 (wraps past 32 767)")
W("D_p7_lengths_in_uint8", _v("ragged_cached_attention", ("slots = lengths.long()[:, None]", "slots = lengths.to(torch.uint8).long()[:, None]"),
                               ("written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]", "written = torch.arange(s_max)[None, :] < (lengths.to(torch.uint8).long() + t)[:, None]")),
  "D: lengths narrowed to uint8 (wraps past 255)")
W("E_p7_causal_table_rows_to_longest", _v("ragged_cached_attention", (
    "allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]  # (B, T, S_max)",
    "rows = int((lengths.long() + t).max()) if b else 0\n    table = torch.ones(rows, s_max, dtype=torch.bool).tril()\n    allowed = table[slots]  # (B, T, S_max)")),
  "E: a (longest row, S_max) causal table sliced to the new tokens' rows: fits when the rows are short, "
  "S_max**2 when a long prompt fills the cache")
W("F_p7_finfo_min_added", _v("ragged_cached_attention", (
    "scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))",
    "scores = scores + torch.where(allowed[:, None, None], 0.0, torch.finfo(scores.dtype).min)")),
  "F: the Hugging Face mask: finfo.min added to the scores")
W("F_p7_minus_1e9_added", _v("ragged_cached_attention", (
    "scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))",
    "scores = scores + torch.where(allowed[:, None, None], 0.0, -1e9)")),
  "F: -1e9 added to the masked scores")
W("H_p7_fit_from_max", _v("ragged_cached_attention", (
    "if bool((lengths.long() + t > s_max).any()):", "if int((lengths.long() + t).max()) > s_max:")),
  "H: the fit checked on .max() of lengths, which an empty batch does not have")
# A: float32/float64 only (n/a); B, G: no norm or variance

# ---- Part 8, generate_with_cache -------------------------------------------------------------------------------
W("D_p8_occurrences_counted_in_uint8", _v("generate_with_cache", (
    "occurs = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)",
    "occurs = torch.zeros_like(scores, dtype=torch.uint8).scatter_add_(1, seen, torch.ones_like(seen, dtype=torch.uint8)) > 0")),
  "D: occurrences counted in uint8: an id seen exactly 256 times counts as unseen")
W("D_p8_occurrences_counted_in_int8", _v("generate_with_cache", (
    "occurs = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)",
    "occurs = torch.zeros_like(scores, dtype=torch.int8).scatter_add_(1, seen, torch.ones_like(seen, dtype=torch.int8)) > 0")),
  "D: occurrences counted in int8: an id seen exactly 128 times counts as unseen")
C("D_p8_occurrences_counted_in_int64", _v("generate_with_cache", (
    "occurs = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)",
    "occurs = torch.zeros_like(scores, dtype=torch.long).scatter_add_(1, seen, torch.ones_like(seen)) > 0")),
  "D: occurrences counted in int64")
# A: float32 logits (n/a); B, G: no norm; C: no positions; E: no memory rule; F: no mask; H: prompts have no padding
