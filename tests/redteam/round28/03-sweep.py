# Round 28 class sweep, chapter 03 (classes Y-AD of tests/redteam/round28/BRIEF-SWEEP.md): the model answer of each part
# with one class's mistake put in; "correct": True only where the text allows the answer.
from grading import solution_code

MODEL = solution_code("03-multi-head")


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


P1 = MODEL["interleaved"]
P5 = MODEL["contributions"]
P6 = MODEL["left_padded"]
P7 = MODEL["cache"]
P1_SPLIT = P1.split("\n\ndef merge_heads_interleaved")[0]
P1_MERGE = "def merge_heads_interleaved" + P1.split("\n\ndef merge_heads_interleaved")[1]
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


SORTED = "[params[n] for n in sorted(params)]"

SUBMISSIONS = [
    {"name": "sw_p1_Y_split_cached_by_id_and_version", "correct": True,
     "cells": {"interleaved": memo_by_id_and_version(P1_SPLIT, "split_heads_interleaved", "x, num_heads", "[x]",
                                                     "num_heads,", "out.clone()") + "\n\n" + P1_MERGE},
     "why": "[allowed, equivalent: the split is a view of x, so the cached result reads x's current values] Y: the split kept per id(x) and x._version; the text: keep nothing, not even per id()"},
    {"name": "sw_p1_Y_merge_cached_by_id_and_version", "correct": False,
     "cells": {"interleaved": P1_SPLIT + "\n\n" + memo_by_id_and_version(P1_MERGE, "merge_heads_interleaved", "x", "[x]",
                                                                         "", "out.clone()")},
     "why": "Y: the merge kept per id(x) and x._version"},
    {"name": "sw_p1_AA_split_contiguous_kept_per_id", "correct": False,
     "cells": {"interleaved": memo_by_id(P1_SPLIT, "split_heads_interleaved", "x, num_heads", "x", "x.contiguous()")
               + "\n\n" + P1_MERGE},
     "why": "AA: x.contiguous() kept per id(x): x itself for a contiguous x, a stale copy for a strided one"},
    {"name": "sw_p5_Y_cached_by_id_and_version", "correct": False,
     "cells": {"contributions": memo_by_id_and_version(P5, "head_contributions", "x, params, num_heads",
                                                       f"[x] + {SORTED}", "num_heads,", "out.clone()")},
     "why": "Y: the result kept per id() and _version of x and the parameters"},
    {"name": "sw_p6_Y_cached_by_id_and_version", "correct": False,
     "cells": {"left_padded": memo_by_id_and_version(P6, "cross_attention_left_padded",
                                                     "x, memory, memory_lengths, params, num_heads",
                                                     f"[x, memory, memory_lengths] + {SORTED}", "num_heads,",
                                                     "out.clone()")},
     "why": "Y: the result kept per id() and _version of every tensor"},
    {"name": "sw_p7_Y_cached_by_id_and_version", "correct": False,
     "cells": {"cache": memo_by_id_and_version(P7, "causal_attention_with_cache", "x, past_k, past_v, params, num_heads",
                                               f"[x, past_k, past_v] + {SORTED}", "num_heads,",
                                               "tuple(r.clone() for r in out)")},
     "why": "Y: the result kept per id() and _version of every tensor"},
    {"name": "sw_p7_Z_empty_cache_returns_new_block", "correct": True,
     "cells": {"cache": P7.replace("    k = torch.cat(", "    if p == 0:\n        k, v = k_new, v_new\n    else:\n"
                                                          "        k = torch.cat(").replace(
                                   "    v = torch.cat(", "        v = torch.cat(")},
     "why": "Z, allowed: with P = 0 the new block's keys and values are returned (new tensors of this call)"},
]

for name, cell, params in [("scrambled_source", "scrambled", "num_heads, length, head_dim, position, column"),
                           ("decode_step_cost", "cost", "past, d_model, num_heads, num_kv_heads, head_dim, bias=True")]:
    part = "p2" if cell == "scrambled" else "p4"
    for arg in [p.split("=")[0].strip() for p in params.split(",")]:
        SUBMISSIONS.append({"name": f"sw_{part}_AC_memo_without_{arg}", "correct": False,
                            "cells": {cell: memo_leaving_out(MODEL[cell], name, params, arg, "out")},
                            "why": f"AC: results memoized under a key without {arg}"})
SUBMISSIONS += [
    {"name": "sw_p6_AD_all_empty_sources_bias", "correct": True,
     "cells": {"left_padded": P6.replace("    d, s = x.shape[-1], memory.shape[1]\n",
                                         "    d, s = x.shape[-1], memory.shape[1]\n"
                                         "    if x.shape[0] > 0 and not bool((memory_lengths != 0).any()):  # no source anywhere\n"
                                         "        return params['b_o'].expand(x.shape[0], x.shape[1], d).clone()\n")},
     "why": "AD, allowed? every source of length 0: the rows are b_o, with b_o's gradient (none to x or memory)"},
    {"name": "sw_p6_AD_all_empty_sources_detached_bias", "correct": False,
     "cells": {"left_padded": P6.replace("    d, s = x.shape[-1], memory.shape[1]\n",
                                         "    d, s = x.shape[-1], memory.shape[1]\n"
                                         "    if x.shape[0] > 0 and not bool((memory_lengths != 0).any()):\n"
                                         "        return params['b_o'].detach().expand(x.shape[0], x.shape[1], d).clone()\n")},
     "why": "AD: every source of length 0 answered with a constant (no gradient to b_o)"},
]
