# Red team round 25, class sweep, chapter 07 (hardware): classes K, L, M, O and P put into the model answer of every
# part where they apply, one variant at a time (tests/redteam/round25/BRIEF-SWEEP.md). Class Q was closed in Parts 7
# and 8 before this sweep. Each variant is the model answer (read from solutions/07-hardware/exercises.ipynb) with
# the smallest change that makes the class's mistake; the replaced text must be found exactly once.
import json
from pathlib import Path

_NB = json.loads((Path(__file__).resolve().parents[3] / "solutions" / "07-hardware" / "exercises.ipynb").read_text())


def _model(grade_id):
    for cell in _NB["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            lines = "".join(cell["source"]).splitlines()
            return "\n".join(l for l in lines if l.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")) + "\n"
    raise KeyError(grade_id)


def _variant(grade_id, *pairs, prelude=""):
    code = _model(grade_id)
    for old, new in pairs:
        assert code.count(old) == 1, (grade_id, old)
        code = code.replace(old, new)
    return prelude + code


SUBMISSIONS = []


def add(name, correct, grade_id, why, *pairs, prelude=""):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {grade_id: _variant(grade_id, *pairs, prelude=prelude)},
                        "why": why})


# ---------------------------------------------------------------- Part 2: merge_partials
add("K-merge-neginf-filled-with-finfo-min", False, "merge_partials",
    "K: an empty piece's -inf log-sum-exp replaced by torch.finfo(dtype).min; ties with a piece whose lse is exactly "
    "that number ('torch.finfo(dtype).min itself is one of the tests' log-sum-exps, next to a piece that sees no key')",
    ("    top = torch.maximum(lse_a, lse_b)",
     "    low = torch.finfo(lse_a.dtype).min\n"
     "    lse_a = lse_a.masked_fill(lse_a == float('-inf'), low)\n"
     "    lse_b = lse_b.masked_fill(lse_b == float('-inf'), low)\n"
     "    top = torch.maximum(lse_a, lse_b)"))
add("M-merge-weight-slack-1e-12", False, "merge_partials",
    "M: a piece counts only where its weight exceeds 1e-12 (an absolute slack under a share that may be tiny): "
    "'no value is too small to count'; a piece with a share of 1e-13 and outputs a million times larger moves o by 1e-7",
    ("part_a = torch.where((w_a > 0)[:, None]", "part_a = torch.where((w_a > 1e-12)[:, None]"),
    ("part_b = torch.where((w_b > 0)[:, None]", "part_b = torch.where((w_b > 1e-12)[:, None]"))
add("O-merge-times-reciprocal-of-total", True, "merge_partials",
    "O: the shares as w * (1 / total) rather than w / total; the text fixes no formula, float32 or float64 inside",
    ("* (w_a / total)[:, None]", "* (w_a * (1 / total))[:, None]"),
    ("* (w_b / total)[:, None]", "* (w_b * (1 / total))[:, None]"))
add("O-merge-shares-exp-lse-difference", True, "merge_partials",
    "O: the shares as exp(lse_x - lse) with lse = top + log(total) (exp of a log-space difference), same dtype",
    ("    total = w_a + w_b\n",
     "    total = w_a + w_b\n    lse = top + torch.log(total)\n"),
    ("* (w_a / total)[:, None]", "* torch.exp(lse_a - lse)[:, None]"),
    ("* (w_b / total)[:, None]", "* torch.exp(lse_b - lse)[:, None]"))
add("P-merge-outputs-cleaned-with-nan-to-num", False, "merge_partials",
    "P: the pieces' outputs cleaned with torch.nan_to_num (NaN -> 0, inf -> the largest finite) in every row, not only "
    "where a piece sees no key: a piece that sees keys and whose float16 output overflowed to inf gives a finite o",
    ("torch.where((w_a > 0)[:, None], o_a, 0.0)", "torch.where((w_a > 0)[:, None], torch.nan_to_num(o_a), 0.0)"),
    ("torch.where((w_b > 0)[:, None], o_b, 0.0)", "torch.where((w_b > 0)[:, None], torch.nan_to_num(o_b), 0.0)"))

# ---------------------------------------------------------------- Part 4: rms_norm_half
add("M-rms-eps-floor-1e-10", False, "rms_norm_half",
    "M: eps floored at 1e-10 (an absolute slack under an argument that may be tiny): 'eps from 1e-12 to 1'",
    ("    root = math.sqrt(eps)", "    root = math.sqrt(max(eps, 1e-10))"))
add("O-rms-times-reciprocal", True, "rms_norm_half",
    "O: x * (1 / rms) and s * (1 / r): two roundings in 16 bits, well inside the 6 ulp the text allows",
    ("x / rms, s / r)", "x * (1 / rms), s * (1 / r))"))

# ---------------------------------------------------------------- Part 5: quantize_asym
add("M-quant-zero-group-slack-1e-12", False, "quantize_asym",
    "M: 'a group of zeros' decided as scale <= 1e-12 (an absolute slack): a group of weights of about 1e-13 gets "
    "scale 1 and codes of zero ('weights of any size: clamp nothing'; 'scale = 1 for a group of zeros')",
    ("torch.where(scale > 0, scale", "torch.where(scale > 1e-12, scale"))
add("O-quant-torch-div", True, "quantize_asym",
    "O: torch.div / true_divide spelled out; the text fixes w / scale, which these are",
    ("torch.round(groups / scale[..., None])", "torch.round(torch.true_divide(groups, scale[..., None]))"),
    ("torch.round(-lo / scale)", "torch.round(torch.div(-lo, scale))"))

# ---------------------------------------------------------------- Part 6: pack_bits / unpack_bits
_PACK_TABLE = '''
BIT_POSITIONS = torch.arange(1 << {e})   # stream bit numbers, made once


def pack_bits(q, bits):
    rows, cols = q.shape
    n_bytes = (cols * bits + 7) // 8
    stream = (q.to(torch.int32)[:, :, None] >> torch.arange(bits, dtype=torch.int32)) & 1  # (rows, cols, bits)
    stream = stream.reshape(rows, cols * bits)
    n = BIT_POSITIONS[:cols * bits]
    out = torch.zeros(rows, n_bytes, dtype=torch.int32)
    out.index_add_(1, n // 8, stream << (n % 8).to(torch.int32))
    return out.to(torch.uint8)


def unpack_bits(packed, bits, cols):
    rows = packed.shape[0]
    n = BIT_POSITIONS[:cols * bits]
    stream = (packed.to(torch.int32)[:, n // 8] >> (n % 8).to(torch.int32)) & 1     # (rows, cols * bits)
    stream = stream.reshape(rows, cols, bits)
    return (stream << torch.arange(bits, dtype=torch.int32)).sum(dim=-1).to(torch.uint8)
'''
for e in (16, 20):
    SUBMISSIONS.append({"name": f"L-pack-bit-positions-table-2-to-{e}", "correct": False,
                        "cells": {"pack_bits": _PACK_TABLE.format(e=e)},
                        "why": f"L: stream bit numbers from torch.arange(1 << {e}) made once and sliced per call; "
                               "'any cols >= 1 and any codes' (no limit): a row longer than the table fails"})

# ---------------------------------------------------------------- Part 7: chunk_attention_backward
add("K-chunk-masked-scores-filled-with-finfo-min", False, "chunk_attention",
    "K: masked scores filled with torch.finfo(dtype).min before exp(s - lse): a query whose lse is that number gives "
    "the masked key probability 1 ('a key a query may not see must get probability exactly 0')",
    ("        p = torch.exp(q @ kj.T * scale - lse[:, None])          # (T, b)\n"
     "        if causal:\n"
     "            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n",
     "        s = q @ kj.T * scale\n"
     "        if causal:\n"
     "            s = s.masked_fill(torch.arange(j0, j1)[None, :] > pos, torch.finfo(s.dtype).min)\n"
     "        p = torch.exp(s - lse[:, None])\n"))
for e in (16, 20):
    add(f"L-chunk-positions-table-2-to-{e}", False, "chunk_attention",
        f"L: query and key positions from torch.arange(1 << {e}) made once and sliced per call; 'S stays below 2**24'",
        ("    pos = torch.arange(offset, offset + T)[:, None]", "    pos = POSITIONS[offset:offset + T][:, None]"),
        ("torch.arange(j0, j1)[None, :]", "POSITIONS[j0:j1][None, :]"),
        prelude=f"POSITIONS = torch.arange(1 << {e})   # positions, made once\n\n")
add("M-chunk-skip-tiles-below-1e-12", False, "chunk_attention",
    "M: a tile whose largest probability is below 1e-12 is skipped (an absolute slack under a probability that may be "
    "tiny): its keys get dk = dv = 0, and dq loses their share; 'the gradients ... checked against torch.autograd', "
    "d_out of any size",
    ("        if causal:\n            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n",
     "        if causal:\n            p = p.masked_fill(torch.arange(j0, j1)[None, :] > pos, 0.0)\n"
     "        if bool((p < 1e-12).all()):\n            continue\n"))
add("O-chunk-divide-by-sqrt", True, "chunk_attention",
    "O: scores q @ k.T / sqrt(Dh) and the gradients divided by sqrt(Dh), rather than times 1 / sqrt(Dh)",
    ("        p = torch.exp(q @ kj.T * scale - lse[:, None])", "        p = torch.exp(q @ kj.T / math.sqrt(Dh) - lse[:, None])"),
    ("        dq += ds @ kj * scale", "        dq += ds @ kj / math.sqrt(Dh)"),
    ("        dk[j0:j1] = ds.T @ q * scale", "        dk[j0:j1] = ds.T @ q / math.sqrt(Dh)"))
add("O-chunk-scale-folded-into-q", True, "chunk_attention",
    "O: the scale folded into q once ((q * scale) @ k.T), and into ds for the gradients",
    ("        p = torch.exp(q @ kj.T * scale - lse[:, None])", "        p = torch.exp((q * scale) @ kj.T - lse[:, None])"),
    ("        dq += ds @ kj * scale", "        dq += (ds * scale) @ kj"),
    ("        dk[j0:j1] = ds.T @ q * scale", "        dk[j0:j1] = (ds * scale).T @ q"))

# ---------------------------------------------------------------- Part 8: dequant_matvec_kernel
add("O-kernel-scale-times-code-minus-zero-times-scale", True, "split_kv_kernel",
    "O: the weight as code * scale - zero * scale (the scale distributed), float32; Y is compared at 1e-4",
    ("        w = (code.to(tl.float32) - zero) * scale", "        w = code.to(tl.float32) * scale - zero * scale"))
