# Red-team round 18, class sweep, chapter 06: each class of BRIEF-SWEEP.md put into the model answer of every part
# where it applies (class A was closed in this chapter by its blind helper).
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

M = _model_cells("06-variants")

def _v(gid, *pairs, prefix=""):
    src = M[gid]
    for old, new in pairs:
        assert src.count(old) == 1, (gid, old, src.count(old))
        src = src.replace(old, new)
    return {gid: prefix + src}

SUBMISSIONS = []
def wrong(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})

# B: a result kept between calls keyed on id() of an input, on its shape, or through lru_cache
wrong("B-words-start-by-id", _v("whole_word_chosen",
      ("    word_start = torch.where(", "    key = id(starts)\n    if key in _WS:\n        word_start = _WS[key]\n    else:\n        word_start = _WS[key] = torch.where("),
      prefix="_WS = {}\n"),
      "Part 3: nothing kept between calls; the same starts written in place gives other words")
wrong("B-words-lru-cache", _v("whole_word_chosen",
      ("    positions = torch.arange(starts.shape[-1]).expand(starts.shape)\n", "    word_start = _word_start(starts)\n"),
      ("    word_start = torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values\n", ""),
      prefix="import functools\n@functools.lru_cache(maxsize=None)\ndef _word_start(starts):\n"
             "    positions = torch.arange(starts.shape[-1]).expand(starts.shape)\n"
             "    return torch.where(starts, positions, torch.full_like(positions, -1)).cummax(dim=-1).values\n\n"),
      "Part 3: lru_cache on the starts tensor (hashes by identity)")
wrong("B-minp-probs-by-id", _v("min_p_sample",
      ("    probs = logits.softmax(dim=-1)", "    probs = _P.get(id(logits))\n    if probs is None:\n        probs = _P[id(logits)] = logits.softmax(dim=-1)"),
      prefix="_P = {}\n"),
      "Part 4: probabilities kept per id(logits); the same logits changed in place")
wrong("B-spans-sentinels-by-id", _v("span_corrupt",
      ("    is_sentinel = set(sentinels.tolist())", "    if id(sentinels) not in _S:\n        _S[id(sentinels)] = set(sentinels.tolist())\n    is_sentinel = _S[id(sentinels)]"),
      prefix="_S = {}\n"),
      "Part 5: the sentinel set kept per id(sentinels)")
wrong("B-spans-rows-by-id", _v("span_corrupt",
      ("    for row_in, row_tg in zip(inputs.tolist(), targets.tolist()):",
       "    key = (id(inputs), id(targets))\n    if key not in _R:\n        _R[key] = (inputs.tolist(), targets.tolist())\n    for row_in, row_tg in zip(*_R[key]):"),
      prefix="_R = {}\n"),
      "Part 5: the rows read once per (id(inputs), id(targets))")
wrong("B-expert-order-by-id", _v("expert_choice",
      ("    order = probs.sort(dim=0, descending=True, stable=True).indices",
       "    if id(router_logits) not in _O:\n        _O[id(router_logits)] = probs.sort(dim=0, descending=True, stable=True).indices\n    order = _O[id(router_logits)]"),
      prefix="_O = {}\n"),
      "Part 6: the experts' choices kept per id(router_logits); logits stepped by an optimiser")
wrong("B-expert-order-lru", _v("expert_choice",
      ("    order = probs.sort(dim=0, descending=True, stable=True).indices", "    order = _order(router_logits)"),
      prefix="import functools\n@functools.lru_cache(maxsize=None)\ndef _order(logits):\n"
             "    return logits.detach().softmax(dim=-1).sort(dim=0, descending=True, stable=True).indices\n\n"),
      "Part 6: lru_cache on the logits tensor")
wrong("B-gqa-scores-by-id", _v("gqa_cached_attention",
      ("    scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, k) / math.sqrt(d)",
       "    key = (id(q), id(k))\n    if key not in _SC:\n        _SC[key] = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, k) / math.sqrt(d)\n    scores = _SC[key]"),
      prefix="_SC = {}\n"),
      "Part 7: scores kept per (id(q), id(k))")
wrong("B-gqa-keys-by-id", _v("gqa_cached_attention",
      ("    scores = torch.einsum(\"bgrtd,bgsd->bgrts\", qg, k) / math.sqrt(d)",
       "    if id(k) not in _KT:\n        _KT[id(k)] = k.transpose(-2, -1).contiguous()\n"
       "    scores = torch.einsum(\"bgrtd,bgds->bgrts\", qg, _KT[id(k)]) / math.sqrt(d)"),
      prefix="_KT = {}\n"),
      "Part 7: the transposed keys kept per id(k) (a 'cache' of the cache)")
wrong("B-decay-phik-by-id", _v("decayed_linear_attention",
      ("    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1",
       "    if id(k) not in _PK:\n        _PK[id(k)] = F.elu(k) + 1\n    phi_q, phi_k = F.elu(q) + 1, _PK[id(k)]"),
      prefix="_PK = {}\n"),
      "Part 8: phi(k) kept per id(k)")

# C: a finite stand-in for -inf
wrong("C-minp-logits-minus-1e9", _v("min_p_sample",
      ("    kept = torch.where(keep, probs, torch.zeros_like(probs))\n    return torch.multinomial(kept, 1,",
       "    kept = logits.masked_fill(~keep, -1e9).softmax(dim=-1)\n    return torch.multinomial(kept, 1,")),
      "Part 4: 'do not mask them with a large negative number such as -1e9'")
wrong("C-minp-logits-finfo-min", _v("min_p_sample",
      ("    kept = torch.where(keep, probs, torch.zeros_like(probs))\n    return torch.multinomial(kept, 1,",
       "    kept = logits.masked_fill(~keep, torch.finfo(logits.dtype).min).softmax(dim=-1)\n    return torch.multinomial(kept, 1,")),
      "Part 4: a dropped token gets probability exactly 0 whatever the logits")
wrong("C-gqa-minus-1e9", _v("gqa_cached_attention", ('float("-inf")', "-1e9")),
      "Part 7: 'mask with -inf, not with a large negative number'")
wrong("C-gqa-finfo-min", _v("gqa_cached_attention", ('float("-inf")', "torch.finfo(scores.dtype).min")),
      "Part 7: 'not even the dtype's lowest finite value'")
wrong("C-gqa-minus-1e4", _v("gqa_cached_attention", ('float("-inf")', "-1e4")),
      "Part 7: -1e4 stand-in")

# E: a list where the text says returns (a, b)
wrong("E-spans-returns-list", _v("span_corrupt", ("    return tokens, noise", "    return [tokens, noise]")),
      "Part 5: 'Return (tokens, noise)'")
wrong("E-expert-returns-list", _v("expert_choice",
      ("    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))",
       "    return [chosen, torch.where(chosen, probs, torch.zeros_like(probs))]")),
      "Part 6: 'return (chosen, gate)'")

# F: backward() inside a function whose gradient the test takes (Parts 6, 7, 8)
wrong("F-expert-backward-inside", _v("expert_choice",
      ("    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))",
       "    gate = torch.where(chosen, probs, torch.zeros_like(probs))\n"
       "    if gate.requires_grad:\n        gate.sum().backward(retain_graph=True)\n    return chosen, gate")),
      "Part 6: backward() inside fills router_logits.grad")
wrong("F-gqa-backward-inside", _v("gqa_cached_attention",
      ("    return out.reshape(b, h, t, d)",
       "    out = out.reshape(b, h, t, d)\n    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out")),
      "Part 7: backward() inside fills q.grad, k.grad, v.grad")
wrong("F-decay-backward-inside", _v("decayed_linear_attention",
      ("    return torch.stack(outs, dim=-2).to(q.dtype)",
       "    out = torch.stack(outs, dim=-2).to(q.dtype)\n    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out")),
      "Part 8: backward() inside fills q.grad, k.grad, v.grad")
