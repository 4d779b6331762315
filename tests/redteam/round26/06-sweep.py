"""Round 26 class sweep, chapter 06: classes R (size-1 axis beside a longer one), S (views through
non-contiguous layouts), T (inputs that start inside their storage) and U (allowed answers too slow).
Each variant is the model answer with the smallest change that makes its class's mistake."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "06-variants" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                        if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)


def entry(gid, *lines):
    """The model answer with lines put at the start of its function's body."""
    out, done = [], False
    for line in MODEL[gid].splitlines(True):
        out.append(line)
        if not done and line.startswith("def "):
            out += ["    " + l + "\n" for l in lines]
            done = True
    return "\n" + "".join(out)


def swap(gid, old, new):
    assert old in MODEL[gid], (gid, old)
    return "\n" + MODEL[gid].replace(old, new)


def strided(name):
    # class T: a view rebuilt from the storage's start (storage_offset 0), right for every input that starts there
    return f"{name} = torch.as_strided({name}, {name}.shape, {name}.stride(), 0)"


SUBMISSIONS = [
    # ---- Part 3: whole_word_chosen
    {"name": "T3-starts-from-storage-start", "correct": False,
     "cells": {"whole_word_chosen": entry("whole_word_chosen", strided("starts"))}, "why": "T: starts"},
    {"name": "T3-pick-from-storage-start", "correct": False,
     "cells": {"whole_word_chosen": entry("whole_word_chosen", strided("pick"))}, "why": "T: pick"},
    # allowed before this sweep (graded OK in 06-sweep.txt); the text now rules it out by the sizes (class U, option a)
    {"name": "U3-element-loop", "correct": False, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    out = torch.zeros(B, T, dtype=torch.bool)
    for b in range(B):
        cur = False
        for t in range(T):
            if starts[b, t]:
                cur = bool(pick[b, t])
            out[b, t] = cur
    return out
'''}, "why": "U: round 16's r16-p3-porter-p3-element-loop (a torch indexing per position): 5.3 s of CPU; now ruled out"},
    {"name": "U3-list-loop", "correct": True, "cells": {"whole_word_chosen": '''
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    rows = []
    for s_row, p_row in zip(starts.tolist(), pick.tolist()):
        cur, row = False, []
        for s, p in zip(s_row, p_row):
            if s:
                cur = p
            row.append(cur)
        rows.append(row)
    return torch.tensor(rows, dtype=torch.bool).reshape(B, T)
'''}, "why": "U: a Python loop over the positions of lists"},
    # ---- Part 4: min_p_sample
    {"name": "R4-draws-squeezed", "correct": False, "cells": {"min_p_sample": swap(
        "min_p_sample", ".squeeze(-1)", ".squeeze()")},
     "why": "R: the draws (B, 1) squeezed with no dim: a batch of one gives a 0-d tensor"},
    {"name": "S4-probs-flat-view", "correct": False, "cells": {"min_p_sample": swap(
        "min_p_sample", "    probs = logits.softmax(dim=-1)",
        "    probs = logits.view(-1).view(logits.shape).softmax(dim=-1)")},
     "why": "S: logits flattened with view"},
    {"name": "T4-logits-from-storage-start", "correct": False,
     "cells": {"min_p_sample": entry("min_p_sample", strided("logits"))}, "why": "T: logits"},
    {"name": "U4-row-loop", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    out = torch.zeros(logits.shape[0], dtype=torch.int64)
    for b in range(logits.shape[0]):
        probs = torch.softmax(logits[b], dim=-1)
        kept = torch.where(probs >= min_p * probs.max(), probs, torch.zeros_like(probs))
        out[b] = torch.multinomial(kept, 1, generator=generator)[0]
    return out
'''}, "why": "U: a Python loop over the rows, one draw per row"},
    {"name": "U4-row-loop-nonzero", "correct": True, "cells": {"min_p_sample": '''
def min_p_sample(logits, min_p, generator):
    out = torch.zeros(logits.shape[0], dtype=torch.int64)
    for b in range(logits.shape[0]):
        p = torch.softmax(logits[b], dim=-1)
        idx = torch.nonzero(p >= min_p * p.max()).flatten()
        w = p[idx] / p[idx].sum()
        out[b] = idx[torch.multinomial(w, 1, generator=generator)][0]
    return out
'''}, "why": "U: a loop over the rows that draws among the kept ids only"},
    # ---- Part 5: restore_spans
    {"name": "R5-rows-squeezed", "correct": False, "cells": {"span_corrupt": swap(
        "span_corrupt", "zip(inputs.tolist(), targets.tolist())",
        "zip(*[[r] if r and not isinstance(r[0], list) else r for r in (inputs.squeeze().tolist(), targets.squeeze().tolist())])")},
     "why": "R: inputs and targets squeezed with no dim (a 1-D list read as one row): Li = 1 or Lt = 1 with B > 1"},
    {"name": "T5-inputs-from-storage-start", "correct": False,
     "cells": {"span_corrupt": entry("span_corrupt", strided("inputs"))}, "why": "T: inputs"},
    {"name": "T5-targets-from-storage-start", "correct": False,
     "cells": {"span_corrupt": entry("span_corrupt", strided("targets"))}, "why": "T: targets"},
    {"name": "T5-sentinels-from-storage-start", "correct": False,
     "cells": {"span_corrupt": entry("span_corrupt", strided("sentinels"))}, "why": "T: sentinels"},
    # ---- Part 6: expert_choice
    {"name": "S6-logits-flat-view", "correct": False, "cells": {"expert_choice": swap(
        "expert_choice", "probs = router_logits.softmax(dim=-1)",
        "probs = router_logits.view(-1).view(router_logits.shape).softmax(dim=-1)")},
     "why": "S: logits flattened with view"},
    {"name": "T6-logits-from-storage-start", "correct": False,
     "cells": {"expert_choice": entry("expert_choice", strided("router_logits"))}, "why": "T: router_logits"},
    {"name": "U6-expert-loop", "correct": True, "cells": {"expert_choice": '''
def expert_choice(router_logits, capacity):
    probs = torch.softmax(router_logits, dim=-1)
    N, E = probs.shape
    chosen = torch.zeros(N, E, dtype=torch.bool)
    for e in range(E):
        idx = torch.sort(probs[:, e], descending=True, stable=True).indices[:capacity]
        chosen[idx, e] = True
    return chosen, torch.where(chosen, probs, torch.zeros_like(probs))
'''}, "why": "U: a loop over the experts"},
    # ---- Part 7: gqa_cached_attention
    {"name": "R7-one-group-squeezed", "correct": False, "cells": {"gqa_cached_attention": swap(
        "gqa_cached_attention", '    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)',
        '    if g == 1 and k.squeeze().dim() == 2:  # one key/value head: (S, Dh), shared by every query head\n'
        '        k, v = k.squeeze()[None, None], v.squeeze()[None, None]\n'
        '    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)')},
     "why": "R: one key/value head squeezed with no dim and read as (S, Dh): right for a batch of one only"},
    {"name": "S7-out-view", "correct": False, "cells": {"gqa_cached_attention": swap(
        "gqa_cached_attention", "return out.reshape(b, h, t, d).to(dtype)", "return out.view(b, h, t, d).to(dtype)")},
     "why": "S: the output merged with view"},
    {"name": "S7-q-merge-view", "correct": False, "cells": {"gqa_cached_attention": swap(
        "gqa_cached_attention", "qg = q.reshape(b, g, h // g, t, d)",
        "qg = q.view(b * h, t, d).view(b, g, h // g, t, d)")},
     "why": "S: q's batch and head axes merged with view (raises on split_heads' layout)"},
    {"name": "T7-q-from-storage-start", "correct": False,
     "cells": {"gqa_cached_attention": entry("gqa_cached_attention", strided("q"))}, "why": "T: q"},
    {"name": "T7-k-from-storage-start", "correct": False,
     "cells": {"gqa_cached_attention": entry("gqa_cached_attention", strided("k"))}, "why": "T: k"},
    {"name": "T7-v-from-storage-start", "correct": False,
     "cells": {"gqa_cached_attention": entry("gqa_cached_attention", strided("v"))}, "why": "T: v"},
    {"name": "U7-head-loop", "correct": True, "cells": {"gqa_cached_attention": '''
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    allowed = torch.arange(s)[None, :] <= torch.arange(s - t, s)[:, None]
    outs = []
    for head in range(h):
        kv = head // (h // g)
        scores = q[:, head].to(work) @ k[:, kv].to(work).transpose(-2, -1) / math.sqrt(d)
        weights = scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1)
        outs.append(weights @ v[:, kv].to(work))
    return torch.stack(outs, dim=1).to(dtype)
'''}, "why": "U: a loop over the query heads"},
    # ---- Part 8: decayed_linear_attention
    {"name": "T8-q-from-storage-start", "correct": False,
     "cells": {"decayed_linear_attention": entry("decayed_linear_attention", strided("q"))}, "why": "T: q"},
    {"name": "T8-k-from-storage-start", "correct": False,
     "cells": {"decayed_linear_attention": entry("decayed_linear_attention", strided("k"))}, "why": "T: k"},
    {"name": "T8-v-from-storage-start", "correct": False,
     "cells": {"decayed_linear_attention": entry("decayed_linear_attention", strided("v"))}, "why": "T: v"},
]

# The blind helpers' class sweep of 8f6962a (R and S, 06-sweep-subs.py, all caught there), regraded with these
# variants after the fixes (06-sweep-after.txt); 06-sweep.txt graded this file's own variants only
import importlib.util as _util  # noqa: E402

_spec = _util.spec_from_file_location("_blind_sweep", Path(__file__).with_name("06-sweep-subs.py"))
_blind = _util.module_from_spec(_spec)
_spec.loader.exec_module(_blind)
SUBMISSIONS += _blind.SUBMISSIONS
