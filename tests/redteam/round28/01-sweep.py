# Round 28 class sweep, chapter 01 (classes Y-AD of tests/redteam/round28/BRIEF-SWEEP.md): the model answer of each part
# with one class's mistake put in; "correct": True only where the text allows the answer.
from grading import solution_code

MODEL = solution_code("01-rnn-motivation")


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


P1 = MODEL["rnn_step"]
P4 = MODEL["rnn_unroll"]
P5 = MODEL["gradient_norms"]
P6 = MODEL["additive"]


def first_line(code, name, line):
    """``line`` put before the body of ``name`` (one-line signature), and a dict ``kept_<name>`` defined before it."""
    head, sep, body = code.partition(f"def {name}(")
    signature, colon, body = body.partition("):\n")
    return f"kept_{name} = {{}}\n\n" + head + sep + signature + colon + line + body


def kept(name, arg, make):
    return f"    {arg} = kept_{name}.setdefault(id({arg}), ({arg}, {make}))[1]\n"


SUBMISSIONS = [
    {"name": "sw_p4_Z_empty_batch_new_zeros", "correct": True,
     "cells": {"rnn_unroll": P4.replace("    b, t, _ = x.shape\n", "    b, t, _ = x.shape\n    if b == 0:\n"
                                        "        return x.new_zeros(0, t, p['W_hh'].shape[0]), x.new_zeros(0, p['W_hh'].shape[0])\n")},
     "why": "[allowed after review: the course's correct variant addmm_loops_autograd writes states into a new zeros tensor, which has no history when B = 0] Z: an empty batch answered with new constants (no autograd history): gradients must flow"},
    {"name": "sw_p4_Z_empty_batch_h0_clone", "correct": True,
     "cells": {"rnn_unroll": P4.replace("    b, t, _ = x.shape\n", "    b, t, _ = x.shape\n    if b == 0 and h0 is not None:\n"
                                        "        return x.new_zeros(0, t, h0.shape[1]) + h0[:, None, :], h0.clone()\n")},
     "why": "Z, allowed: an empty batch answered from h0 (a clone: a new tensor with h0's gradient)"},
    {"name": "sw_p4_Z_empty_batch_float32", "correct": False,
     "cells": {"rnn_unroll": P4.replace("    b, t, _ = x.shape\n", "    b, t, _ = x.shape\n    if b == 0:\n"
                                        "        return torch.zeros(0, t, p['W_hh'].shape[0]) * x.sum(), torch.zeros(0, p['W_hh'].shape[0]) * x.sum()\n")},
     "why": "Z: an empty batch answered in float32 whatever the dtype of x"},
    {"name": "sw_p4_AA_lengths_long_kept_per_id", "correct": False,
     "cells": {"rnn_unroll": first_line(P4, "rnn_unroll_reverse", kept("rnn_unroll_reverse", "lengths", "lengths.long()"))},
     "why": "AA: lengths.long() kept per id(lengths): the same lengths object with new values is read stale"},
    {"name": "sw_p4_AA_x_contiguous_kept_per_id", "correct": False,
     "cells": {"rnn_unroll": first_line(P4, "rnn_unroll_reverse", kept("rnn_unroll_reverse", "x", "x.contiguous()"))},
     "why": "AA: x.contiguous() kept per id(x): x itself when contiguous, a stale copy when strided"},
    {"name": "sw_p1_AA_x_contiguous_kept_per_id", "correct": False,
     "cells": {"rnn_step": first_line(P1, "leaky_step_jacobian", kept("leaky_step_jacobian", "x", "x.contiguous()"))},
     "why": "AA: x.contiguous() kept per id(x)"},
    {"name": "sw_p1_AA_w_hh_contiguous_kept_per_id", "correct": False,
     "cells": {"rnn_step": first_line(P1, "leaky_step_jacobian",
                                      "    w_hh = kept_leaky_step_jacobian.setdefault(id(p['W_hh']), (p['W_hh'], p['W_hh'].contiguous()))[1]\n").replace(
         "slope[:, :, None] * p[\"W_hh\"]", "slope[:, :, None] * w_hh")},
     "why": "AA: W_hh made contiguous and kept per id()"},
    {"name": "sw_p5_AA_x_contiguous_kept_per_id", "correct": False,
     "cells": {"gradient_norms": first_line(P5, "jacobian_norms", kept("jacobian_norms", "x", "x.contiguous()"))},
     "why": "AA: x.contiguous() kept per id(x)"},
    {"name": "sw_p6_AA_h_contiguous_kept_per_id", "correct": False,
     "cells": {"additive": first_line(P6, "coverage_decoder", kept("coverage_decoder", "h", "h.contiguous()"))},
     "why": "AA: h.contiguous() kept per id(h)"},
    {"name": "sw_p6_AA_allowed_kept_per_id", "correct": False,
     "cells": {"additive": first_line(P6, "coverage_decoder", kept("coverage_decoder", "allowed", "allowed.contiguous()"))},
     "why": "AA: allowed.contiguous() kept per id(allowed)"},
    {"name": "sw_p6_Z_empty_batch_new_zeros", "correct": True,
     "cells": {"additive": P6.replace("    b, t, _ = x.shape\n", "    b, t, _ = x.shape\n    if b == 0:\n"
                                      "        return x.new_zeros(0, t, s0.shape[1]), x.new_zeros(0, t, h.shape[1])\n")},
     "why": "[allowed: Part 6 promises no empty batch, B = 0 is not a hidden case] Z (if B = 0 were allowed): an empty batch answered with constants"},
]
SUBMISSIONS.append(
    {"name": "sw_p4_AD_all_lengths_zero_constants", "correct": True,
     "cells": {"rnn_unroll": P4.replace("    lengths = lengths.long()", "    lengths = lengths.long()\n"
                                        "    if b > 0 and not bool((lengths > 0).any()):  # nothing to read anywhere\n"
                                        "        return x.new_zeros(b, t, p['W_hh'].shape[0]), h.clone()")},
     "why": "[allowed after review: as addmm_loops_autograd, whose outputs of a batch of empty sequences are a zeros tensor nothing was written into] AD: a batch whose every sequence has length 0 answered with one zero tensor (no autograd history)"})
