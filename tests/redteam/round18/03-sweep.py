# Red team round 18, class sweep, chapter 03-multi-head: each class of BRIEF-SWEEP.md put into the model answer of
# every part where it applies, one variant at a time. A (requires_grad_) and B (id/lru caches) were closed in this
# chapter by its blind helper; D (a float32 sum of squares) applies to no part (none takes a norm or a variance).
import json
from pathlib import Path

_NB = json.loads((Path(__file__).resolve().parents[3] / "solutions/03-multi-head/exercises.ipynb").read_text())
MODEL = {}
for _cell in _NB["cells"]:
    _meta = _cell["metadata"].get("nbgrader", {})
    if _meta.get("solution") and _cell["cell_type"] == "code":
        _src = "".join(_cell["source"])
        MODEL[_meta["grade_id"]] = "\n".join(l for l in _src.splitlines() if "### " not in l) + "\n"


def variant(cell, old, new):
    src = MODEL[cell]
    assert src.count(old) == 1, (cell, old)
    return src.replace(old, new)


def sub(name, cell, old, new, why, correct=False):
    return {"name": name, "correct": correct, "cells": {cell: variant(cell, old, new)}, "why": why}


# C: a finite stand-in for -inf, in a softmax written out (the weights of masked keys zeroed after the softmax, so
# that a sentence of length 0 still gets zeros and masked keys get exactly 0 where the stand-in is below them)
_OWN_ATTN = '''
def masked_attention(q, k, v, allowed, fill, additive=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if additive:
        scores = scores + (~allowed).to(scores.dtype) * fill
    else:
        scores = scores.masked_fill(~allowed, fill)
    return (torch.softmax(scores, dim=-1) * allowed) @ v

'''

def own_attention(cell, call_old, call_new, fill, additive=False):
    src = variant(cell, call_old, call_new.replace("FILL", fill).replace("ADD", str(additive)))
    return _OWN_ATTN + src

SUBMISSIONS = [
    # ---- C: finite stand-ins for -inf (Parts 6, 7)
    {"name": "C-p6-masked-fill-neg1e9", "correct": False, "cells": {"left_padded": own_attention(
        "left_padded", "attention(q, k, v, real[:, None, None, :])", "masked_attention(q, k, v, real[:, None, None, :], FILL)",
        "-1e9")}, "why": "Part 6: real keys may score down to finfo(dtype).min: leave the padding out, no large negative."},
    {"name": "C-p6-masked-fill-float32-min", "correct": False, "cells": {"left_padded": own_attention(
        "left_padded", "attention(q, k, v, real[:, None, None, :])", "masked_attention(q, k, v, real[:, None, None, :], FILL)",
        "torch.finfo(torch.float32).min")}, "why": "Part 6: float64 real keys below -3.4e38."},
    {"name": "C-p6-additive-neg1e4", "correct": False, "cells": {"left_padded": own_attention(
        "left_padded", "attention(q, k, v, real[:, None, None, :])",
        "masked_attention(q, k, v, real[:, None, None, :], FILL, additive=ADD)", "-1e4", True)},
        "why": "Part 6: padding may score a thousand above; real keys of any size."},
    {"name": "C-p7-masked-fill-neg1e9", "correct": False, "cells": {"cache": own_attention(
        "cache", "attention(q, k, v, allowed)", "masked_attention(q, k, v, allowed, FILL)", "-1e9")},
        "why": "Part 7: scores down to finfo(dtype).min: no large negative."},
    {"name": "C-p7-masked-fill-finfo-min", "correct": False, "cells": {"cache": own_attention(
        "cache", "attention(q, k, v, allowed)", "masked_attention(q, k, v, allowed, FILL)", "torch.finfo(q.dtype).min")},
        "why": "Part 7: scores of finfo(dtype).min itself tie with the stand-in."},
    {"name": "C-p7-additive-neg1e4", "correct": False, "cells": {"cache": own_attention(
        "cache", "attention(q, k, v, allowed)", "masked_attention(q, k, v, allowed, FILL, additive=ADD)", "-1e4", True)},
        "why": "Part 7: a later key a thousand above, scores of any size."},
    # the same stand-ins kept within the dtype's range (a -1e9 overflows float16 and is caught there alone)
    {"name": "C-p6-neg1e9-within-dtype", "correct": False, "cells": {"left_padded": own_attention(
        "left_padded", "attention(q, k, v, real[:, None, None, :])", "masked_attention(q, k, v, real[:, None, None, :], FILL)",
        "max(-1e9, torch.finfo(q.dtype).min)")}, "why": "Part 6: real keys below -1e9."},
    {"name": "C-p6-finfo-min-own-dtype", "correct": False, "cells": {"left_padded": own_attention(
        "left_padded", "attention(q, k, v, real[:, None, None, :])", "masked_attention(q, k, v, real[:, None, None, :], FILL)",
        "torch.finfo(q.dtype).min")}, "why": "Part 6: real keys at finfo(dtype).min tie with the stand-in."},
    {"name": "C-p6-float32-min-for-wide-dtypes", "correct": False, "cells": {"left_padded": own_attention(
        "left_padded", "attention(q, k, v, real[:, None, None, :])", "masked_attention(q, k, v, real[:, None, None, :], FILL)",
        "max(torch.finfo(torch.float32).min, torch.finfo(q.dtype).min)")}, "why": "Part 6: float64 real keys below -3.4e38."},
    {"name": "C-p7-neg1e9-within-dtype", "correct": False, "cells": {"cache": own_attention(
        "cache", "attention(q, k, v, allowed)", "masked_attention(q, k, v, allowed, FILL)",
        "max(-1e9, torch.finfo(q.dtype).min)")}, "why": "Part 7: scores below -1e9."},
    {"name": "C-p7-float32-min-for-wide-dtypes", "correct": False, "cells": {"cache": own_attention(
        "cache", "attention(q, k, v, allowed)", "masked_attention(q, k, v, allowed, FILL)",
        "max(torch.finfo(torch.float32).min, torch.finfo(q.dtype).min)")}, "why": "Part 7: float64 scores below -3.4e38."},
    # ---- E: a list where the text gives a tuple (Parts 2, 4, 7)
    sub("E-p2-list", "scrambled", "return head, source_position, feature", "return [head, source_position, feature]",
        "Part 2: 'Return its (head, source_position, feature)'."),
    sub("E-p4-list", "cost", "return parameters, macs, 2 * kv_width * keys", "return [parameters, macs, 2 * kv_width * keys]",
        "Part 4: 'returning (parameters, macs, cached)'."),
    sub("E-p7-list", "cache", "return out, k, v", "return [out, k, v]", "Part 7: 'Return (out, k, v)'."),
    # ---- F: backward() run inside (Parts 1, 5, 6, 7: the gradient parts)
    sub("F-p1-backward-in-split", "interleaved",
        "    return x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)",
        "    out = x.reshape(b, t, d // num_heads, num_heads).permute(0, 3, 1, 2)\n"
        "    if out.requires_grad:  # make sure the gradient flows\n"
        "        out.sum().backward(retain_graph=True)\n    return out",
        "Part 1: gradients compared with the reference's; the caller runs backward."),
    sub("F-p1-backward-in-merge", "interleaved",
        "    return x.permute(0, 2, 3, 1).reshape(b, t, dh * h)",
        "    out = x.permute(0, 2, 3, 1).reshape(b, t, dh * h)\n"
        "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out",
        "Part 1: the same, in merge."),
    sub("F-p5-backward", "contributions",
        '    return torch.einsum("bhtk,ehk->bhte", heads, w_o)',
        '    out = torch.einsum("bhtk,ehk->bhte", heads, w_o)\n'
        "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out",
        "Part 5: gradients flow to x and the parameters; the caller runs backward."),
    sub("F-p6-backward", "left_padded",
        '    return merge_heads(heads) @ params["w_o"].T + params["b_o"]',
        '    out = merge_heads(heads) @ params["w_o"].T + params["b_o"]\n'
        "    if out.requires_grad:\n        out.sum().backward(retain_graph=True)\n    return out",
        "Part 6: gradients compared; the caller runs backward."),
    sub("F-p7-backward", "cache", "    return out, k, v",
        "    if out.requires_grad:\n        (out.sum() + k.sum() + v.sum()).backward(retain_graph=True)\n    return out, k, v",
        "Part 7: gradients through all three; the caller runs backward."),
]
