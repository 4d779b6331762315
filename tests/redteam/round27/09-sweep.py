"""Round 27 class sweep, chapter 09: classes V (a floor below every value the hidden cases reach), W (a share as one
minus the others) and X (a rule applied on one of two paths that must be scored alike). Each variant is the model
answer with the smallest change that makes its class's mistake, or a correct answer the text allows."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "09-modern-lm" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                        if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)


def swap(gid, *pairs):
    code = MODEL[gid]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new)
    return "\n" + code


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


TH = "    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)  # (Dh/2,)\n"
# ---- Part 6: rope_llama3 (V)
add("V6-theta-clamp-1e-8", "rope_llama3",
    swap("rope_llama3", TH, TH + "    theta = theta.clamp(min=1e-8)  # no frequency of 0\n"),
    "V: the geometric frequencies floored at 1e-8: the slowest is 2.4e-6 at base 5e5 and Dh = 128")
add("V6-theta-clamp-1e-12", "rope_llama3",
    swap("rope_llama3", TH, TH + "    theta = theta.clamp(min=1e-12)\n"),
    "V: the geometric frequencies floored at 1e-12")
add("V6-new-theta-clamp-1e-9", "rope_llama3",
    swap("rope_llama3", "    angle = positions", "    theta = theta.clamp(min=1e-9)\n    angle = positions"),
    "V: the new frequencies floored at 1e-9 (the slowest divided one is 3e-7 at base 5e5)")
add("V6-wavelength-eps", "rope_llama3",
    swap("rope_llama3", "wavelength = 2 * math.pi / theta", "wavelength = 2 * math.pi / (theta + 1e-12)"),
    "V: an eps in the wavelength's denominator")
add("V6-wavelength-floor", "rope_llama3",
    swap("rope_llama3", "wavelength = 2 * math.pi / theta", "wavelength = 2 * math.pi / theta.clamp(min=1e-10)"),
    "V: the frequency floored in the wavelength only")
add("V6-band-eps", "rope_llama3",
    swap("rope_llama3", "(high_freq_factor - low_freq_factor)", "(high_freq_factor - low_freq_factor + 1e-9)"),
    "V: an eps in s's denominator (high - low may be as close to 0 as you like)")
add("V6-angle-floor", "rope_llama3",
    swap("rope_llama3", "    cos, sin = angle.cos()", "    angle = angle.clamp(min=1e-12)\n    cos, sin = angle.cos()"),
    "V: angles floored at 1e-12")
add("C6-theta-exp-log", "rope_llama3",
    swap("rope_llama3", TH, "    theta = torch.exp(-torch.arange(0, dh, 2, dtype=torch.float64) / dh * math.log(base))\n"),
    "correct: frequencies as exp(-2i/D log b)", correct=True)
add("C6-theta-reciprocal", "rope_llama3",
    swap("rope_llama3", TH, "    theta = 1.0 / base ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh)\n",
         "wavelength = 2 * math.pi / theta", "wavelength = 2 * math.pi * base ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh)"),
    "correct: 1 / b^(2i/D), the wavelength as 2 pi b^(2i/D)", correct=True)
add("C6-s-from-theta", "rope_llama3",
    swap("rope_llama3", "(original_context / wavelength - low_freq_factor)",
         "(original_context * theta / (2 * math.pi) - low_freq_factor)"),
    "correct: L / lambda as L theta / (2 pi)", correct=True)

add("V6-theta-clamp-1e-20", "rope_llama3",
    swap("rope_llama3", TH, TH + "    theta = theta.clamp(min=1e-20)\n"),
    "V: the geometric frequencies floored at 1e-20 (after the sweep: the base-1e30 case has 3.2e-23)")
add("C6-complex-rotation", "rope_llama3",
    swap("rope_llama3", "    first, second = x.to(torch.float64).chunk(2, dim=-1)\n"
         "    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)\n",
         "    first, second = x.to(torch.float64).chunk(2, dim=-1)\n"
         "    turned = torch.complex(first, second) * torch.polar(torch.ones_like(angle), angle)\n"
         "    out = torch.cat([turned.real, turned.imag], dim=-1)\n"),
    "correct: the half-split pairs as complex numbers times polar(1, angle)", correct=True)

# ---- Part 1: head_rms_norm (V; the text already says eps may be 0, x near 1e-25)
add("V1-mean-square-floor", "head_rms_norm",
    swap("head_rms_norm", ".mean(dim=-1, keepdim=True) + eps)", ".mean(dim=-1, keepdim=True).clamp(min=1e-30) + eps)"),
    "V: the mean of the squares floored at 1e-30")
# ---- Part 4: masked_lm_loss (V)
add("V4-prob-floor", "masked_lm_loss",
    swap("masked_lm_loss", "per_token = (log_z - picked)",
         "per_token = -torch.log(torch.exp(picked - log_z).clamp(min=1e-30))"),
    "V: the target's probability floored at 1e-30 before its log")
add("V4-count-eps", "masked_lm_loss",
    swap("masked_lm_loss", "per_token.sum() / max(count, 1)", "per_token.sum() / (count + 1e-12)"),
    "V: an eps added to the count")
# ---- Part 7: ragged_cached_attention (V)
add("V7-softmax-eps", "ragged_cached_attention",
    swap("ragged_cached_attention", "scores.softmax(dim=-1)",
         "(scores - scores.amax(-1, keepdim=True)).exp() / ((scores - scores.amax(-1, keepdim=True)).exp().sum(-1, keepdim=True) + 1e-9)"),
    "V: an eps in the softmax's denominator (the sum is at least 1)")
# ---- Part 8: generate_with_cache (X, V)
add("X8-penalty-first-step-only", "generate_with_cache",
    swap("generate_with_cache", "scores = torch.where(occurs, penalised, scores)",
         "scores = torch.where(occurs, penalised, scores) if i == 0 else scores"),
    "X: the repetition penalty at the prompt step only")
add("X8-penalty-prompt-tokens-only", "generate_with_cache",
    swap("generate_with_cache", "scatter_(1, seen, True)", "scatter_(1, prompt, True)"),
    "X: the penalty for the prompt's tokens only, not the generated ones")
add("X8-penalty-later-steps-only", "generate_with_cache",
    swap("generate_with_cache", "scores = torch.where(occurs, penalised, scores)",
         "scores = torch.where(occurs, penalised, scores) if i > 0 else scores"),
    "X: the repetition penalty at later steps only")
add("X8-temperature-first-step-only", "generate_with_cache",
    swap("generate_with_cache", "torch.softmax(scores / temperature, dim=-1)",
         "torch.softmax(scores / (temperature if i == 0 else 1.0), dim=-1)"),
    "X: the temperature at the prompt step only")
add("X8-penalty-live-rows-only", "generate_with_cache",
    swap("generate_with_cache", "scores = torch.where(occurs, penalised, scores)",
         "scores = torch.where(occurs & ~finished[:, None], penalised, scores)"),
    "X: the penalty on live rows only (the text: a finished row's history grows like any other, probabilities compared)")
add("V8-temperature-floor", "generate_with_cache",
    swap("generate_with_cache", "scores / temperature", "scores / max(temperature, 1e-4)"),
    "V: the temperature floored at 1e-4")
add("V8-probs-eps", "generate_with_cache",
    swap("generate_with_cache", "torch.softmax(scores / temperature, dim=-1)", "torch.softmax(scores / temperature, dim=-1) + 1e-12"),
    "V: an eps added to the probabilities")

# ---- Part 2: fused_swiglu (X: the two checkpoint layouts must be scored alike)
add("X2-limit-in-the-split-layout-only", "fused_swiglu", swap("fused_swiglu", "    if limit is not None:",
    "    if limit is not None and not interleaved:"),
    "X: the clamp applied in the split layout only, not the interleaved one")
add("X2-limit-in-the-interleaved-layout-only", "fused_swiglu", swap("fused_swiglu", "    if limit is not None:",
    "    if limit is not None and interleaved:"),
    "X: the clamp applied in the interleaved layout only")
# ---- Part 7: ragged_cached_attention (X: keys and values read alike)
add("X7-values-not-cleared", "ragged_cached_attention", swap("ragged_cached_attention",
    "values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))",
    "values = v_cache"),
    "X: the unwritten slots cleared in the keys only, not in the values")
