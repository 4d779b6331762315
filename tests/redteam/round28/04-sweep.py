# Round 28 class sweep, chapter 04 (classes Y-AD of tests/redteam/round28/BRIEF-SWEEP.md): the model answer of each part
# with one class's mistake put in; "correct": True only where the text allows the answer.
from grading import solution_code

MODEL = solution_code("04-positional-encoding")


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


P1 = MODEL["table_halves"]
P4 = MODEL["position"]
P5 = MODEL["rotate_half"]
P8 = MODEL["equivariance"]
P2 = MODEL["alibi_block"]
P7 = MODEL["shift"]


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


SUBMISSIONS = [
    {"name": "sw_p1_Y_cached_by_id_and_version", "correct": False,
     "cells": {"table_halves": memo_by_id_and_version(P1, "sinusoidal_table_halves",
                                                      "positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32",
                                                      "[positions]", "d_model, base, scale, dtype",
                                                      "out.clone()").replace(
         "out = plain_sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32)",
         "out = plain_sinusoidal_table_halves(positions, d_model, base, scale, dtype)")},
     "why": "Y: the table kept per id() and _version of positions; the text: keep nothing per id()"},
    {"name": "sw_p1_AA_positions_long_kept_per_id", "correct": False,
     "cells": {"table_halves": memo_by_id(P1, "sinusoidal_table_halves", "", "positions", "positions.long()")},
     "why": "AA: positions.long() kept per id(positions): int64 positions come back as themselves, int32 as a stale copy"},
    {"name": "sw_p1_Z_empty_positions_default_dtype", "correct": False,
     "cells": {"table_halves": P1.replace("    stretched = ", "    if positions.numel() == 0:\n"
                                          "        return torch.zeros(*positions.shape, d_model)\n    stretched = ")},
     "why": "Z: an empty positions answered with a float32 constant whatever dtype asks"},
    {"name": "sw_p4_Y_cached_by_id_and_version", "correct": False,
     "cells": {"position": memo_by_id_and_version(P4, "position_from_encoding", "row", "[row]", "", "out")},
     "why": "Y: the position kept per id(row) and row._version"},
    {"name": "sw_p4_AA_row_double_kept_per_id", "correct": False,
     "cells": {"position": memo_by_id(P4, "position_from_encoding", "", "row", "row.double()")},
     "why": "AA: row.double() kept per id(row): a float64 row is itself, a float32 one a stale copy"},
    {"name": "sw_p5_Y_cached_by_id_and_version", "correct": False,
     "cells": {"rotate_half": memo_by_id_and_version(P5, "rope_partial_left_padded",
                                                     "x, lengths, rotary_dim, base=10000.0", "[x, lengths]",
                                                     "rotary_dim, base", "out.clone()").replace(
         "out = plain_rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0)",
         "out = plain_rope_partial_left_padded(x, lengths, rotary_dim, base)")},
     "why": "Y: the result kept per id() and _version of x and lengths"},
    {"name": "sw_p5_AD_all_padding_returns_clone", "correct": True,
     "cells": {"rotate_half": P5.replace("    half = rotary_dim // 2\n",
                                         "    half = rotary_dim // 2\n    if bool((lengths == 0).all()):\n"
                                         "        return x.clone()\n")},
     "why": "AD, allowed: every row padding, every row at position 0, comes back equal (a new tensor with a gradient)"},
    {"name": "sw_p8_Y_reference_cached_by_id_and_version", "correct": False,
     "cells": {"equivariance": P8.replace("        reference = layer(x)\n",
                                          "        key = (id(layer), id(x), x._version)\n"
                                          "        hit = kept_outputs.get(key)\n"
                                          "        if hit is None or hit[0] is not x or hit[1] is not layer:\n"
                                          "            hit = kept_outputs[key] = (x, layer, layer(x))\n"
                                          "        reference = hit[2]\n").replace("def check_equivariance",
                                                                           "kept_outputs = {}\n\n\ndef check_equivariance")},
     "why": "Y: layer(x) kept per id(layer), id(x) and x._version"},
]
for name, code, params, clone in [("alibi_block", P2, "num_heads, t, offset", "tuple(r.clone() for r in out)"),
                                  ("shift_matrix_halves", P7, "offset, d_model, base=10000.0", "out.clone()")]:
    part = "p2" if name == "alibi_block" else "p7"
    cell = "alibi_block" if name == "alibi_block" else "shift"
    for arg in [p.split("=")[0].strip() for p in params.split(",")]:
        SUBMISSIONS.append({"name": f"sw_{part}_AC_memo_without_{arg}", "correct": False,
                            "cells": {cell: memo_leaving_out(code, name, params, arg, clone).replace(
                                f"plain_{name}(offset, d_model, base=10000.0)", f"plain_{name}(offset, d_model, base)")},
                            "why": f"AC: results memoized under a key without {arg}"})
SUBMISSIONS.append(
    {"name": "sw_p8_AB_subnormal_gap_as_zero", "correct": False,
     "cells": {"equivariance": P8.replace("    worst = max(gaps)\n",
                                          "    worst = max(gaps)\n    if worst < torch.finfo(torch.float64).tiny:  # below"
                                          " the smallest normal number: rounding noise\n        worst = 0.0\n")},
     "why": "AB: a gap of 1e-310 (subnormal) taken as 0, so tol = 0 passes it; the text: one above tol fails however little"})
