# Round 28 class sweep, chapter 02 (classes Y-AD of tests/redteam/round28/BRIEF-SWEEP.md): the model answer of each part
# with one class's mistake put in; "correct": True only where the text allows the answer.
from grading import solution_code

MODEL = solution_code("02-scaled-attention")


def memo_by_id_and_version(code, name, params, tensors, others, clone):
    """``code`` with ``name`` renamed and wrapped in a cache keyed on id() and _version of ``tensors`` (an expression
    giving a list of the tensors) and on ``others``: a hit needs the very same objects at the same versions."""
    inner = code.replace(f"def {name}(", f"def plain_{name}(")
    return inner + f'''

memo_{name} = {{}}


def {name}({params}):
    keyed = {tensors}
    key = tuple((id(t), t._version) for t in keyed) + ({others})
    hit = memo_{name}.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], keyed)):
        out = hit[1]
    else:
        out = plain_{name}({params})
        memo_{name}[key] = (keyed, out)
    return {clone}
'''


def memo_by_id(code, name, params, arg, make):
    """``arg`` replaced, on the function's first line, by ``make`` of it kept per id(arg) (the AA class: a contiguous
    or int64 input comes back as itself, so the kept object sees the caller's writes; a strided or narrow one does not)."""
    head, sep, body = code.partition(f"def {name}(")
    signature, colon, body = body.partition("):\n")
    line = f"    {arg} = kept_{name}.setdefault(id({arg}), ({arg}, {make}))[1]\n"
    return f"kept_{name} = {{}}\n\n" + head + sep + signature + colon + line + body


def memo_leaving_out(code, name, params, left_out, clone):
    """``name`` memoized under a key of every argument but ``left_out`` (the AC class)."""
    inner = code.replace(f"def {name}(", f"def plain_{name}(")
    names = [p.split("=")[0].strip() for p in params.split(",")]
    key = ", ".join(n for n in names if n != left_out)
    return inner + f"""

memo_{name} = {{}}


def {name}({params}):
    key = ({key},)
    if key not in memo_{name}:
        memo_{name}[key] = plain_{name}({", ".join(names)})
    out = memo_{name}[key]
    return {clone}
"""


P1 = MODEL["raw_scores"]
P2 = MODEL["softmax_backward"]
P3 = MODEL["causal_mask"]
P4 = MODEL["padding_mask"]
P5 = MODEL["masked_attention"]
P6 = MODEL["variance_experiment"]
P7 = MODEL["fixed_self_attention"]


def first_line(code, name, line):
    head, sep, body = code.partition(f"def {name}(")
    signature, colon, body = body.partition("):\n")
    return f"kept_{name} = {{}}\n\n" + head + sep + signature + colon + line + body


def kept(name, arg, make, indent="    "):
    return f"{indent}{arg} = kept_{name}.setdefault(id({arg}), ({arg}, {make}))[1]\n"


SUBMISSIONS = [
    {"name": "sw_p1_AA_q_float64_kept_per_id", "correct": False,
     "cells": {"raw_scores": P1.replace("a, b = q.to(torch.float64), k.to(torch.float64)",
                                        "a = kept_raw_scores.setdefault(id(q), (q, q.to(torch.float64).contiguous()))[1]\n"
                                        "    b = k.to(torch.float64)").replace("def raw_scores", "kept_raw_scores = {}\n\n\ndef raw_scores")},
     "why": "AA: q in float64, contiguous, kept per id(q): q itself for a contiguous float64 q, a stale copy otherwise"},
    {"name": "sw_p2_AA_weights_kept_per_id", "correct": False,
     "cells": {"softmax_backward": first_line(P2, "softmax_backward", kept("softmax_backward", "weights", "weights.contiguous()"))},
     "why": "AA: weights.contiguous() kept per id(weights)"},
    {"name": "sw_p4_AA_lengths_long_kept_per_id", "correct": False,
     "cells": {"padding_mask": first_line(P4, "padding_mask", kept("padding_mask", "lengths", "lengths.long()"))},
     "why": "AA: lengths.long() kept per id(lengths): int64 lengths are themselves, narrow ones a stale copy"},
    {"name": "sw_p4_Z_empty_batch_float_positions", "correct": False,
     "cells": {"padding_mask": P4.replace("    start = ", "    if lengths.numel() == 0:\n        return torch.zeros(0, s, dtype=torch.bool), torch.zeros(0, s)\n    start = ")},
     "why": "Z: an empty batch answered with float positions (the text: int64)"},
    {"name": "sw_p4_Z_empty_batch_constants", "correct": True,
     "cells": {"padding_mask": P4.replace("    start = ", "    if lengths.numel() == 0:\n        return torch.zeros(0, s, dtype=torch.bool), torch.zeros(0, s, dtype=torch.long)\n    start = ")},
     "why": "Z, allowed: new empty tensors of the right shapes and dtypes (no gradient asked)"},
    {"name": "sw_p5_AA_allowed_kept_per_id", "correct": False,
     "cells": {"masked_attention": first_line(P5, "masked_attention", kept("masked_attention", "allowed", "allowed.contiguous()"))},
     "why": "AA: allowed.contiguous() kept per id(allowed)"},
    {"name": "sw_p5_AA_k_kept_per_id", "correct": False,
     "cells": {"masked_attention": first_line(P5, "masked_attention", kept("masked_attention", "k", "k.contiguous()"))},
     "why": "AA: k.contiguous() kept per id(k)"},
    {"name": "sw_p5_AD_nothing_allowed_constants", "correct": True,
     "cells": {"masked_attention": P5.replace("    scores = q @", "    if not bool(allowed.any()):\n"
                                              "        shape = torch.broadcast_shapes(q.shape[:-1], k.shape[:-2] + (q.shape[-2],))\n"
                                              "        return q.new_zeros(*shape, v.shape[-1]), q.new_full(shape, float('-inf'))\n    scores = q @")},
     "why": "[allowed: the text promises gradients only where a query has an allowed key] AD: a mask that allows nothing in the whole batch answered with constants (no gradient)"},
    {"name": "sw_p7_AA_lengths_long_kept_per_id", "correct": False,
     "cells": {"fixed_self_attention": P7.replace("        t = x.shape[1]\n", "        t = x.shape[1]\n        if lengths is not None:\n"
                                                  "            lengths = KEPT.setdefault(id(lengths), (lengths, lengths.long()))[1]\n").replace(
         "class FixedSelfAttention", "KEPT = {}\n\n\nclass FixedSelfAttention")},
     "why": "AA: lengths.long() kept per id(lengths)"},
    {"name": "sw_p7_AA_x_contiguous_kept_per_id", "correct": False,
     "cells": {"fixed_self_attention": P7.replace("        t = x.shape[1]\n", "        t = x.shape[1]\n"
                                                  "        x = KEPT.setdefault(id(x), (x, x.contiguous()))[1]\n").replace(
         "class FixedSelfAttention", "KEPT = {}\n\n\nclass FixedSelfAttention")},
     "why": "AA: x.contiguous() kept per id(x)"},
    {"name": "sw_p7_AD_all_padding_zeros", "correct": True,
     "cells": {"fixed_self_attention": P7.replace("        t = x.shape[1]\n", "        t = x.shape[1]\n"
                                                  "        if lengths is not None and bool((lengths == 0).all()):\n"
                                                  "            return torch.zeros_like(x)\n")},
     "why": "[allowed after review: padding rows are 'the constant 0'; round 28's correct ok_lawyer_p7_loop_over_batch builds them so] AD: a batch of padding only answered with one zero tensor (no gradient)"},
]
for name, cell, params, clone in [("causal_mask", "causal_mask", "t, s, offset", "out.clone()")]:
    for arg in [p.split("=")[0].strip() for p in params.split(",")]:
        SUBMISSIONS.append({"name": f"sw_p3_AC_memo_without_{arg}", "correct": False,
                            "cells": {cell: memo_leaving_out(MODEL[cell], name, params, arg, clone)},
                            "why": f"AC: results memoized under a key without {arg}"})
