# Red team round 25, class sweep (K-P) of chapter 09-modern-lm: each variant is the model answer with one class's
# change (or a correct other formula, class O). Built from the solution notebook's model answers by replacement.
import json
from pathlib import Path

_NB = json.loads((Path(__file__).resolve().parents[3] / "solutions" / "09-modern-lm" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and _c["cell_type"] == "code":
        MODEL[_m["grade_id"]] = "\n".join(l for l in "".join(_c["source"]).splitlines() if "### " not in l) + "\n"

SUBMISSIONS = []


def V(name, part, pairs, correct, why, prefix=""):
    code = MODEL[part]
    for old, new in pairs:
        assert old in code, (name, old)
        code = code.replace(old, new, 1)
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {part: prefix + code}, "why": why})


# Part 1 head_rms_norm -- O: 1 / sqrt for rsqrt, a division by the RMS, the scale folded first
V("O-rms-divide-by-sqrt", "head_rms_norm",
  [("inv_rms = torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)",
    "rms = torch.sqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)"),
   ("(heads * inv_rms * scale)", "(heads / rms * scale)")],
  True, "class O: x / sqrt(mean + eps) for x * rsqrt(mean + eps)")
V("O-rms-scale-folded-into-inverse", "head_rms_norm",
  [("(heads * inv_rms * scale)", "(heads * (inv_rms * scale))")],
  True, "class O: the scale folded into the inverse RMS before the product")

# Part 2 fused_swiglu -- O: products in another order
V("O-swiglu-gate-times-up-first", "fused_swiglu",
  [("(gate * torch.sigmoid(beta * gate) * up)", "((gate * up) * torch.sigmoid(gate * beta))")],
  True, "class O: the gate times the up projection first, then the sigmoid")

# Part 4 masked_lm_loss -- O: the mean as a product or torch.mean; P: the scores cleaned of infinities
V("O-masked-loss-times-reciprocal-count", "masked_lm_loss",
  [("per_token.sum() / max(count, 1)", "per_token.sum() * (1.0 / max(count, 1))")],
  True, "class O: the mean as the sum times the reciprocal of the count")
V("O-masked-loss-log-softmax-gather", "masked_lm_loss",
  [("per_token = (log_z - picked)", "per_token = -(scores - log_z[:, None]).gather(-1, targets.unsqueeze(-1)).squeeze(-1)")],
  True, "class O: -log_softmax picked as (score - log Z) gathered")
V("P-masked-loss-predicting-scores-nan-to-num", "masked_lm_loss",
  [("scores = logits[:, :-1][chosen].to(work)", "scores = logits[:, :-1][chosen].to(work).nan_to_num()")],
  False, "class P: a predicting score of -inf at the target (or +inf elsewhere: float16 overflow) gives an infinite "
         "loss; nan_to_num makes it finite (1e38-ish)")

# Part 6 rope_llama3 -- L: a table of positions (angles) built once and indexed; O: other formulas
V("L-rope-position-table-of-2-to-16", "rope_llama3",
  [("angle = positions.to(torch.float64)[:, None, :, None] * theta",
    "angle = POSITION_TABLE[positions.long()][:, None, :, None] * theta")],
  False, "class L: a table of 2**16 positions made once, where the text allows positions up to 131 071",
  prefix="POSITION_TABLE = torch.arange(1 << 16, dtype=torch.float64)\n")
V("L-rope-position-table-of-2-to-17", "rope_llama3",
  [("angle = positions.to(torch.float64)[:, None, :, None] * theta",
    "angle = POSITION_TABLE[positions.long()][:, None, :, None] * theta")],
  True, "class L (control): a table of 2**17 positions made once covers the stated limit 131 071 (indexing copies)",
  prefix="POSITION_TABLE = torch.arange(1 << 17, dtype=torch.float64)\n")
V("O-rope-reciprocal-factor-and-exp-log-theta", "rope_llama3",
  [("theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)",
    "theta = torch.exp(-math.log(base) * torch.arange(0, dh, 2, dtype=torch.float64) / dh)"),
   ("mixed = (1 - s) * theta / factor + s * theta", "mixed = (1 - s) * theta * (1.0 / factor) + s * theta"),
   ("theta / factor, mixed", "theta * (1.0 / factor), mixed")],
  True, "class O: theta through exp(log), and theta times 1 / factor")
V("O-rope-compare-frequencies", "rope_llama3",
  [("torch.where(wavelength < original_context / high_freq_factor, theta,\n"
    "                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))",
    "torch.where(theta * original_context > 2 * math.pi * high_freq_factor, theta,\n"
    "                        torch.where(theta * original_context < 2 * math.pi * low_freq_factor, theta / factor, mixed))"),
   ("s = (original_context / wavelength - low_freq_factor)", "s = (original_context * theta / (2 * math.pi) - low_freq_factor)")],
  True, "class O: the bands decided on the frequencies (theta L against 2 pi factor), s from theta L / 2 pi")

# Part 7 ragged_cached_attention -- K: finfo.min mask; L: a position table made once; O: the scale moved
V("K-ragged-mask-finfo-min", "ragged_cached_attention",
  [('scores.masked_fill(~allowed[:, None, None], float("-inf"))', "scores.masked_fill(~allowed[:, None, None], torch.finfo(scores.dtype).min)")],
  False, "class K: 'not even the dtype's lowest finite value'")
V("L-ragged-positions-from-a-table-of-2-to-20", "ragged_cached_attention",
  [("written = torch.arange(s_max)[None, :]", "written = POSITIONS[:s_max][None, :]"),
   ("allowed = torch.arange(s_max)[None, None, :]", "allowed = POSITIONS[:s_max][None, None, :]")],
  False, "class L: positions from arange(1 << 20) made once and sliced, where S_max may reach 2**24",
  prefix="POSITIONS = torch.arange(1 << 20)\n")
V("O-ragged-queries-scaled-by-inverse-sqrt", "ragged_cached_attention",
  [("qg = q.reshape(b, g, h // g, t, dh)", "qg = q.reshape(b, g, h // g, t, dh) * dh ** -0.5"),
   ('keys) / math.sqrt(dh)', 'keys)')],
  True, "class O: the queries times dh ** -0.5 before the product")

# Part 8 generate_with_cache -- O: penalty and temperature as products with reciprocals, exp(log_softmax)
V("O-generate-penalty-times-reciprocal", "generate_with_cache",
  [("scores / penalty", "scores * (1.0 / penalty)")],
  True, "class O: a positive score times 1 / penalty")
V("O-generate-temperature-times-reciprocal", "generate_with_cache",
  [("torch.softmax(scores / temperature, dim=-1)", "torch.softmax(scores * (1.0 / temperature), dim=-1)")],
  True, "class O: the scores times 1 / temperature")
V("O-generate-exp-log-softmax", "generate_with_cache",
  [("torch.softmax(scores / temperature, dim=-1)", "torch.log_softmax(scores / temperature, dim=-1).exp()")],
  True, "class O: probabilities as exp(log_softmax)")
