"""Round 26 class sweep, chapter 07: classes R (size-1 axis beside a longer one), S (views through
non-contiguous layouts), T (inputs that start inside their storage) and U (allowed answers too slow).
Each variant is the model answer with the smallest change that makes its class's mistake."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "07-hardware" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                        if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)


def entry(gid, *lines, fn=None):
    """The model answer with lines put at the start of a function's body (the first, or the one named fn)."""
    out, done = [], False
    for line in MODEL[gid].splitlines(True):
        out.append(line)
        if not done and line.startswith("def " + (fn or "")):
            out += ["    " + l + "\n" for l in lines]
            done = True
    assert done, (gid, fn)
    return "\n" + "".join(out)


def swap(gid, old, new, code=None):
    code = MODEL[gid] if code is None else code
    assert old in code, (gid, old)
    return ("\n" if code is MODEL[gid] else "") + code.replace(old, new)


def strided(name):
    # class T: a view rebuilt from the storage's start (storage_offset 0), right for every input that starts there
    return f"{name} = torch.as_strided({name}, {name}.shape, {name}.stride(), 0)"


def flat_view(*names):
    # class S: a .view that merges every axis (and back), right for every input whose axes merge in memory
    return ", ".join(names) + " = " + ", ".join(f"{n}.view(-1).view({n}.shape)" for n in names)


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


# ---- Part 2: merge_partials (o_a, o_b (T, Dv); lse_a, lse_b (T,))
add("R2-lse-squeezed", "merge_partials",
    swap("merge_partials", "    top = torch.maximum(lse_a, lse_b)",
         "    lse_a, lse_b = lse_a.squeeze(), lse_b.squeeze()\n    top = torch.maximum(lse_a, lse_b)").replace(
        "[:, None]", "[..., None]"),
    "R: lse squeezed with no dim: a () lse for T = 1")
add("R2-o-squeezed", "merge_partials",
    entry("merge_partials", "o_a, o_b = o_a.squeeze(), o_b.squeeze()"),
    "R: o squeezed with no dim: (T, 1) becomes (T,) and broadcasts against (T, 1) weights to (T, T)")
add("S2-flat-view", "merge_partials", entry("merge_partials", flat_view("o_a", "o_b", "lse_a", "lse_b")), "S")
for n in ("o_a", "lse_a", "o_b", "lse_b"):
    add(f"T2-{n}-from-storage-start", "merge_partials", entry("merge_partials", strided(n)), f"T: {n}")
add("U2-row-loop", "merge_partials", '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    o_rows, l_rows = [], []
    for i in range(lse_a.shape[0]):  # one query at a time
        top = torch.maximum(lse_a[i], lse_b[i])
        w_a, w_b = torch.exp(lse_a[i] - top), torch.exp(lse_b[i] - top)
        total = w_a + w_b
        wide = torch.promote_types(o_a.dtype, lse_a.dtype)  # a 0-d weight would not widen a float16 row
        part_a = torch.where(w_a > 0, o_a[i].to(wide), 0.0) * (w_a / total)
        part_b = torch.where(w_b > 0, o_b[i].to(wide), 0.0) * (w_b / total)
        o_rows.append((part_a + part_b).to(o_a.dtype))
        l_rows.append((top + torch.log(total)).to(lse_a.dtype))
    return torch.stack(o_rows), torch.stack(l_rows)
''', "U: a loop over the queries (the text allows loops)", correct=True)

# ---- Part 4: rms_norm_half (x (..., D))
add("R4-row-max-squeezed", "rms_norm_half",
    swap("rms_norm_half", "c = x.abs().amax(dim=-1, keepdim=True).clamp(min=root).detach()",
         "c = x.abs().amax(dim=-1).squeeze()[..., None].clamp(min=root).detach()"),
    "R: the row maxima squeezed with no dim: (3, 1, D) gets (3, 1) maxima that broadcast to (3, 3, D)")
add("S4-flat-view", "rms_norm_half", entry("rms_norm_half", "x = x.view(-1, x.shape[-1]).view(x.shape)"),
    "S: rows merged with .view")
add("T4-x-from-storage-start", "rms_norm_half", entry("rms_norm_half", strided("x")), "T: x")
add("U4-row-loop", "rms_norm_half", swap("rms_norm_half", "def rms_norm_half(x, eps=1e-6):\n",
    "def rms_norm_half(x, eps=1e-6):\n    if x.dim() > 1:\n        rows = x.reshape(-1, x.shape[-1])\n"
    "        return torch.stack([rms_norm_half(r, eps) for r in rows]).reshape(x.shape)\n"),
    "U: one row at a time (the text allows loops)", correct=True)

# ---- Part 5: quantize_asym (w), dequantize_asym (q, scale, zero)
add("R5-lo-hi-squeezed", "quantize_asym",
    swap("quantize_asym", "groups.amin(dim=-1).clamp(max=0)", "groups.amin(dim=-1).squeeze().clamp(max=0)").replace(
        "groups.amax(dim=-1).clamp(min=0)", "groups.amax(dim=-1).squeeze().clamp(min=0)"),
    "R: per-group ranges squeezed with no dim (one row, or one group a row)")
add("R5-dequant-squeezed", "quantize_asym",
    swap("quantize_asym", "    out_f, in_f = q.shape\n    groups = q.reshape(out_f, scale.shape[1], -1)",
         "    out_f, in_f = q.shape\n    n_groups = scale.shape[1]\n    scale, zero = scale.squeeze(), zero.squeeze()\n"
         "    scale, zero = scale.reshape(out_f, n_groups), zero.reshape(out_f, n_groups)\n"
         "    groups = q.reshape(out_f, scale.shape[1], -1)"),
    "R (probe, allowed): squeezed and put back with reshape", correct=True)
add("S5-quantize-view", "quantize_asym",
    swap("quantize_asym", "groups = w.reshape(out_f", "groups = w.view(out_f").replace(
        "return q.reshape(out_f, in_f)", "return q.view(out_f, in_f)"),
    "S (probe): .view that splits the last axis and merges it back (always a view)", correct=True)
add("S5-dequantize-view", "quantize_asym", swap("quantize_asym",
    "    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)  # (out, G, g)\n"
    "    return ((groups - zero.to(scale.dtype)[..., None]) * scale[..., None]).reshape(out_f, in_f)",
    "    groups = q.view(out_f, scale.shape[1], -1).to(scale.dtype)\n"
    "    return (scale[..., None] * (groups - zero.to(scale.dtype)[..., None])).view(out_f, in_f)"),
    "S: dequantize's product viewed back (the blind helper's slip, closed)")
add("T5-w-from-storage-start", "quantize_asym", entry("quantize_asym", strided("w")), "T: w")
for n in ("q", "scale", "zero"):
    add(f"T5-{n}-from-storage-start", "quantize_asym", entry("quantize_asym", strided(n), fn="dequantize_asym"),
        f"T: {n} of dequantize_asym")

# ---- Part 6: pack_bits (q), unpack_bits (packed)
add("R6-codes-squeezed", "pack_bits",
    swap("pack_bits", "stream = (q.to(torch.int32)[:, :, None]", "stream = (q.squeeze().to(torch.int32)[..., None]"),
    "R (probe, allowed): q squeezed, then reshaped to (rows, cols * bits) in order", correct=True)
add("S6-pack-view", "pack_bits", swap("pack_bits", "stream = stream.reshape(rows, cols * bits)",
                                      "stream = stream.view(rows, cols * bits)"), "S: pack's stream merged with .view")
add("S6-unpack-view", "pack_bits", swap("pack_bits", "stream = stream.reshape(rows, -1)[:, :cols * bits]",
                                        "stream = stream.view(rows, -1)[:, :cols * bits]"),
    "S: unpack's stream merged with .view")
import sys as _sys
_sys.path.insert(0, str(_ROOT / "tests"))
import mutants_07_hardware as _M  # noqa: E402
add("U6-column-loop", "pack_bits", _M.PACK_COLUMN_LOOP,
    "U: the correct variant's column loop (5 s CPU); now ruled out by the text (a torch operation per code)")
add("U6-row-as-one-integer", "pack_bits", _M.PACK_ROW_AS_ONE_INTEGER,
    "U: the correct variant's Python integer built code by code (17 s CPU); now ruled out by the text")
add("U6-index-add", "pack_bits", _M.VARIANT_A_PACK, "U: the new variant A, on whole tensors", correct=True)
add("U6-bit-planes", "pack_bits", _M.VARIANT_B_PACK, "U: the new variant B, a loop over the bits", correct=True)
add("T6-q-from-storage-start", "pack_bits", entry("pack_bits", strided("q")), "T: q")
add("T6-packed-from-storage-start", "pack_bits", entry("pack_bits", strided("packed"), fn="unpack_bits"), "T: packed")

# ---- Part 7: chunk_attention_backward
add("R7-probabilities-squeezed", "chunk_attention",
    swap("chunk_attention", "        dv[j0:j1] = p.T @ d_out", "        p = p.squeeze()\n        dv[j0:j1] = p.T @ d_out"),
    "R: a (T, 1) tile squeezed to (T,) (block = 1)")
add("S7-flat-view", "chunk_attention",
    entry("chunk_attention", flat_view("q", "k", "v", "out", "d_out", "lse")), "S")
for n in ("q", "k", "v", "out", "lse", "d_out", "sink"):
    add(f"T7-{n}-from-storage-start", "chunk_attention", entry("chunk_attention", strided(n)), f"T: {n}")
