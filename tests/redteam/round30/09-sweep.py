"""Round 30 class sweep, chapter 09: classes AJ (an input written in place with the values it held), AK (the gradient
path cut for half precision only) and AN (a value at a limit the text includes refused). AL and AM are closed in this
chapter. Each variant is the model answer with the smallest change that makes its class's mistake."""
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
        code = code.replace(old, new, 1)
    return "\n" + code


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


HALF = "x.dtype in (torch.float16, torch.bfloat16)"

# ---- AJ: a validator's value-preserving in-place call on one argument
add("AJ1-weight-nan-to-num-in-place", "head_rms_norm",
    swap("head_rms_norm", "    work = torch.float64",
         "    with torch.no_grad():\n        weight.masked_fill_(weight.isnan(), 0.0)  # a weight loaded from disk may hold NaN\n    work = torch.float64"),
    "intro: functions must not change the tensors they are given")
add("AJ2-w-down-nan-masked-in-place", "fused_swiglu",
    swap("fused_swiglu", "    work = x.dtype",
         "    with torch.no_grad():\n        w_down.masked_fill_(w_down.isnan(), 0.0)\n    work = x.dtype"),
    "intro: functions must not change the tensors they are given")
add("AJ4-ids-clamped-in-place", "masked_lm_loss",
    swap("masked_lm_loss", "    work = torch.float64", "    ids.clamp_(0, logits.shape[-1] - 1)\n    work = torch.float64"),
    "intro: functions must not change the tensors they are given")
add("AJ4-mask-anded-in-place", "masked_lm_loss",
    swap("masked_lm_loss", "    work = torch.float64", "    target_mask &= ids >= 0  # negative ids are never targets\n    work = torch.float64"),
    "intro: functions must not change the tensors they are given")
add("AJ5-x-nan-masked-in-place", "block_variant",
    swap("block_variant", "    if layout == \"parallel\":",
         "    with torch.no_grad():\n        x.masked_fill_(x.isnan(), 0.0)\n    if layout == \"parallel\":"),
    "Part 5: 'Do not change x'")
add("AJ6-positions-clamped-in-place", "rope_llama3",
    swap("rope_llama3", "    theta = base", "    positions.clamp_(0, 131071)\n    theta = base"),
    "intro: functions must not change the tensors they are given")
add("AJ7-lengths-clamped-in-place", "ragged_cached_attention",
    swap("ragged_cached_attention", "    slots = lengths.long()", "    lengths.clamp_(min=0)\n    slots = lengths.long()"),
    "Part 7: 'Do not change lengths, q, k_new, v_new'")
add("AJ7-k-new-nan-masked-in-place", "ragged_cached_attention",
    swap("ragged_cached_attention", "    slots = lengths.long()",
         "    with torch.no_grad():\n        k_new.masked_fill_(k_new.isnan(), 0.0)\n    slots = lengths.long()"),
    "Part 7: 'Do not change lengths, q, k_new, v_new'")
add("AJ8-prompt-clamped-in-place", "generate_with_cache",
    swap("generate_with_cache", "    logits, cache = step(prompt, None)",
         "    prompt.clamp_(min=0)\n    logits, cache = step(prompt, None)"),
    "intro: functions must not change the tensors they are given")
add("AJ8-step-logits-nan-masked-in-place", "generate_with_cache",
    swap("generate_with_cache", "        scores = logits[:, -1].clone()",
         "        logits.masked_fill_(logits.isnan(), float('-inf'))\n        scores = logits[:, -1].clone()"),
    "Part 8: 'Do not change the logits tensors that step returns'")

# ---- AK: a term under no_grad / detached for float16 and bfloat16 inputs only
add("AK1-half-inv-rms-detached", "head_rms_norm",
    swap("head_rms_norm", "    scale = weight", "    if " + HALF + ":\n        inv_rms = inv_rms.detach()\n    scale = weight"),
    "Part 1: gradients must flow through the result (no factor detached)")
add("AK2-half-sigmoid-under-no-grad", "fused_swiglu",
    swap("fused_swiglu",
         "    return ((gate * torch.sigmoid(beta * gate) * up)",
         "    sig = torch.sigmoid(beta * gate)\n    if " + HALF + ":\n        sig = sig.detach()\n"
         "    return ((gate * sig * up)"),
    "Part 2: gradients must flow through the result")
add("AK4-half-zloss-log-z-detached", "masked_lm_loss",
    swap("masked_lm_loss", "    per_token = (log_z - picked) + z_loss * log_z.square()",
         "    zl = log_z.detach() if logits.dtype in (torch.float16, torch.bfloat16) else log_z\n"
         "    per_token = (log_z - picked) + z_loss * zl.square()"),
    "Part 4: loss.backward() must leave the exact gradient")
add("AK5-half-ffn-under-no-grad", "block_variant",
    swap("block_variant", "        return x + attn(n) + ffn(n)",
         "        if " + HALF + ":\n            with torch.no_grad():\n                f = ffn(n)\n            return x + attn(n) + f\n"
         "        return x + attn(n) + ffn(n)"),
    "Part 5: gradients must flow through the result")
add("AK6-half-rotated-term-under-no-grad", "rope_llama3",
    swap("rope_llama3", "    out = torch.cat(",
         "    if " + HALF + ":\n        second = second.detach()\n    out = torch.cat("),
    "Part 6: gradients must flow through the result")

# ---- AN: a value at a limit the text includes refused
add("AN1-eps-0-refused", "head_rms_norm",
    swap("head_rms_norm", "    work = torch.float64", "    if eps <= 0:\n        raise ValueError('eps must be positive')\n    work = torch.float64"),
    "Part 1: 'eps may be 0'")
add("AN2-limit-0-refused", "fused_swiglu",
    swap("fused_swiglu", "    work = x.dtype", "    if limit is not None and limit <= 0:\n        raise ValueError('limit must be positive')\n    work = x.dtype"),
    "Part 2: 'when limit is a number (0 included)'")
add("AN3-top-k-equal-n-experts-refused", "moe_params",
    swap("moe_params", "if not 1 <= top_k <= n_experts:", "if not 1 <= top_k < n_experts:"),
    "Part 3: '1 <= top_k <= n_experts'")
add("AN3-first-dense-equal-n-layers-refused", "moe_params",
    swap("moe_params", "not 0 <= first_dense <= n_layers", "not (0 <= first_dense < n_layers or first_dense == n_layers == 0)"),
    "Part 3: '0 <= first_dense <= n_layers'")
add("AN3-one-kv-head-refused", "moe_params",
    swap("moe_params", "if n_kv_heads < 1 or", "if n_kv_heads <= 1 and n_heads != n_kv_heads or n_kv_heads < 1 or"),
    "Part 3: 'n_kv_heads >= 1'")
add("AN3-top-k-1-refused", "moe_params",
    swap("moe_params", "if not 1 <= top_k <= n_experts:", "if not 1 < top_k <= n_experts and n_experts > 1 or top_k < 1:"),
    "Part 3: '1 <= top_k'")
add("AN6-last-position-refused", "rope_llama3",
    swap("rope_llama3", "    theta = base", "    if bool((positions >= 131071).any()) or bool((positions < 0).any()):\n"
         "        raise ValueError('positions must lie in the 128K context')\n    theta = base"),
    "Part 6: positions 'each between 0 and 131 071'")
add("AN7-exact-fill-refused", "ragged_cached_attention",
    swap("ragged_cached_attention", "(lengths.long() + t > s_max).any()", "(lengths.long() + t >= s_max).any()"),
    "Part 7: 'filling the cache exactly is fine'")
add("AN8-penalty-1-refused", "generate_with_cache",
    swap("generate_with_cache", "    logits, cache = step(prompt, None)",
         "    if penalty <= 1:\n        raise ValueError('penalty must exceed 1')\n    logits, cache = step(prompt, None)"),
    "Part 8: 'penalty >= 1; 1 changes nothing'")
add("AN8-one-new-token-refused", "generate_with_cache",
    swap("generate_with_cache", "    logits, cache = step(prompt, None)",
         "    if max_new_tokens < 2:\n        raise ValueError('need at least two new tokens')\n    logits, cache = step(prompt, None)"),
    "Part 8: 'max_new_tokens is at least 1'")

# correct answers the new checks must keep (written after the first grading; graded in 09-sweep-after.txt)
add("OK1-float64-inside", "head_rms_norm",
    swap("head_rms_norm", "work = torch.float64 if x.dtype == torch.float64 else torch.float32", "work = torch.float64"),
    "Part 1: float64 for every input dtype is accepted", correct=True)
add("OK2-bfloat16-in-its-own-dtype", "fused_swiglu",
    swap("fused_swiglu", "work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32",
         "work = x.dtype if x.dtype != torch.float16 else torch.float32"),
    "Part 2: bfloat16 inputs may be computed in bfloat16", correct=True)
add("OK4-float64-inside", "masked_lm_loss",
    swap("masked_lm_loss", "    work = torch.float64 if logits.dtype == torch.float64 else torch.float32",
         "    work = torch.float64",
         "    return per_token.sum() / max(count, 1), count",
         "    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32\n"
         "    return (per_token.sum() / max(count, 1)).to(out_dtype), count"),
    "Part 4: float64 inside for every dtype is accepted, the loss returned in float32", correct=True)
add("OK8-step-logits-copied-first", "generate_with_cache",
    swap("generate_with_cache", "        scores = logits[:, -1].clone()", "        scores = logits.clone()[:, -1].contiguous()"),
    "Part 8: copy before penalising", correct=True)
