"""Round 30 class sweep, chapter 08: classes AJ (an input written in place with the values it held), AK (the gradient
path cut for half precision only: no part here takes half-precision inputs and asks for gradients), AM (another
exception type for a refused value of another type). AL is closed in this chapter, AN was closed here by the blind
round. Each variant is the model answer with the smallest change that makes its class's mistake."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "08-capstone" / "exercises.ipynb").read_text())
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


# AJ: a validator's value-preserving in-place call on one argument
add("AJ1-targets-clamped-in-place", "decoder_io",
    swap("decoder_io", "    tgt_in = torch.full_like", "    targets.clamp_(min=0)  # ids are never negative\n    tgt_in = torch.full_like"),
    "Part 1: 'targets itself must not change' (its version counter moves)")
add("AJ1-targets-masked-fill-in-place", "decoder_io",
    swap("decoder_io", "    tgt_in = torch.full_like", "    targets.masked_fill_(targets < 0, PAD)\n    tgt_in = torch.full_like"),
    "Part 1: 'targets itself must not change'")
add("AJ4-targets-clamped-in-place", "sentence_loss",
    swap("sentence_loss", "    logp = torch.log_softmax", "    targets.clamp_(0, logits.shape[-1] - 1)\n    logp = torch.log_softmax"),
    "intro: functions must not change the tensors they are given")
add("AJ4-logits-nan-to-num-in-place", "sentence_loss",
    swap("sentence_loss", "    logp = torch.log_softmax",
         "    with torch.no_grad():\n        logits.masked_fill_(logits.isnan(), float('-inf'))\n    logp = torch.log_softmax"),
    "Part 4: 'do not change logits'")
add("AJ5-entries-nan-masked-in-place", "average",
    swap("average", "    out = {}\n",
         "    for s in states:\n        for t in s.values():\n            if t.is_floating_point():\n"
         "                t.masked_fill_(t.isnan(), 0.0)\n    out = {}\n"),
    "Part 5: 'do not change the given tensors'")
add("AJ6-logprobs-masked-fill-in-place", "sample",
    swap("sample", "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature",
         "        lp = next_logprobs([[starts[i]] + outs[i] for i in live])\n"
         "        lp.masked_fill_(lp.isnan(), float('-inf'))\n        scores = lp / temperature"),
    "Part 6: 'Do not change that tensor'")
add("AJ7-logprobs-clamped-in-place", "beam_search",
    swap("beam_search", "        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])",
         "        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])\n        logprobs.clamp_(max=0.0)"),
    "Part 7: 'Do not change the tensor next_logprobs returns'")

# AK: the gradient path cut for half precision only -- Part 4 (the one part with gradients) takes float32 and float64
# logits only; Part 5 takes half precision and asks no gradient: no variant.

# AM: another exception type for a refused value of another type (Part 5 is the one part whose text names ValueError)
add("AM5-missing-key-keyerror", "average",
    swap("average", "    keys = set(states[0])\n",
         "    for s in states[1:]:\n        for k in states[0]:\n            if s[k].shape != states[0][k].shape:\n"
         "                raise ValueError('shapes differ')\n    keys = set(states[0])\n"),
    "Part 5: states whose keys differ raise ValueError (here KeyError for a missing key)")
add("AM5-empty-indexerror", "average",
    swap("average", "    if not states:\n        raise ValueError(\"nothing to average\")\n    keys = set(states[0])\n",
         "    keys = set(states[0])\n"),
    "Part 5: an empty list raises ValueError (here IndexError)")
add("AM5-shape-by-broadcast-runtimeerror", "average",
    swap("average", "        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):",
         "        for k in keys & set(s):\n            torch.broadcast_shapes(s[k].shape, states[0][k].shape)\n"
         "        if set(s) != keys or any(s[k].shape != states[0][k].shape for k in keys):"),
    "Part 5: shapes that differ raise ValueError (here RuntimeError when they do not broadcast)")

# correct answers the new version checks must keep (written after the first grading; graded in 08-sweep-after.txt)
add("OK6-decoder-asked-under-inference-mode", "sample",
    swap("sample", "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature",
         "        with torch.inference_mode():  # no gradient is needed to decode\n"
         "            lp = next_logprobs([[starts[i]] + outs[i] for i in live])\n"
         "        scores = lp.clone() / temperature"),
    "the log-probabilities are inference tensors, which keep no version counter: allowed (lists are returned)", correct=True)
add("OK7-decoder-asked-under-inference-mode", "beam_search",
    swap("beam_search", "        logprobs = next_logprobs([[start] + tokens for tokens, _ in live])",
         "        with torch.inference_mode():\n            logprobs = next_logprobs([[start] + tokens for tokens, _ in live]).clone()"),
    "as above, for Part 7", correct=True)
add("OK5-entries-read-through-detach", "average",
    swap("average", "            total = sum(s[k].double() for s in states)",
         "            total = sum(s[k].detach().to(torch.float64, copy=True) for s in states)"),
    "reads only: no version counter moves", correct=True)
