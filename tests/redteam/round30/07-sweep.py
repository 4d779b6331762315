# Round 30 class sweep, chapter 07 (classes AJ, AL, AK, AN; AM n/a: no part names a raised exception).
# Each variant is the model answer with the smallest change that makes the class's mistake.
import json as _json, os as _os
_NB = _json.load(open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "..", "..", "solutions",
                                    "07-hardware", "exercises.ipynb")))
_CELLS = {c["metadata"].get("nbgrader", {}).get("grade_id"): "".join(c["source"]) for c in _NB["cells"]}


def _model(cell):
    code = _CELLS[cell]
    out, skip = [], False
    for line in code.split("\n"):
        if "### BEGIN SOLUTION" in line or "### END SOLUTION" in line:
            continue
        out.append(line)
    return "\n".join(out)


def swap(code, old, new):
    assert old in code, old
    return code.replace(old, new, 1)


MERGE, RMS, QUANT, PACK, CHUNK = (_model(c) for c in ("merge_partials", "rms_norm_half", "quantize_asym", "pack_bits",
                                                      "chunk_attention"))
MAXB, CBB = _model("max_batch"), _model("compute_bound_batch")
KEEP = '''
KEPT = {}
def kept(t, make):
    entry = KEPT.get(id(t))
    if entry is None or entry[0] is not t:  # the original kept alive beside its copy: its id() is never reused
        entry = KEPT[id(t)] = (t, make(t))
    return entry[1]
'''
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---- AJ: an input written in place with the values it held
add("AJ-p2-lse-clamped-in-place", False, {"merge_partials": swap(MERGE, "    top = torch.maximum",
    "    with torch.no_grad():\n        lse_a.clamp_(max=float('inf'))\n        lse_b.clamp_(max=float('inf'))\n    top = torch.maximum")},
    "AJ: lse_a, lse_b clamped in place at +inf (values kept), under no_grad so a leaf accepts it")
add("AJ-p4-x-clamped-in-place", False, {"rms_norm_half": swap(RMS, "    root = math.sqrt(eps)",
    "    with torch.no_grad():\n        x.clamp_(min=-float('inf'))\n    root = math.sqrt(eps)")},
    "AJ: x clamped in place at -inf (values kept)")
add("AJ-p5-w-clamped-in-place", False, {"quantize_asym": swap(QUANT, "    out_f, in_f = w.shape\n    top",
    "    out_f, in_f = w.shape\n    w.clamp_(min=-float('inf'))\n    top")},
    "AJ: w clamped in place (values kept)")
add("AJ-p5-zero-clamped-in-place", False, {"quantize_asym": swap(QUANT, "    out_f, in_f = q.shape",
    "    out_f, in_f = q.shape\n    zero.clamp_(max=255)\n    q.clamp_(max=255)")},
    "AJ: dequantize_asym's uint8 zero and q clamped in place at 255 (values kept)")
add("AJ-p6-q-anded-in-place", False, {"pack_bits": swap(PACK, "    rows, cols = q.shape\n    n_bytes",
    "    rows, cols = q.shape\n    q &= (1 << bits) - 1\n    n_bytes")},
    "AJ: pack_bits's codes masked in place to their bits (values below 2**bits: kept)")
add("AJ-p6-packed-anded-in-place", False, {"pack_bits": swap(PACK, "    rows = packed.shape[0]",
    "    rows = packed.shape[0]\n    packed &= 255")},
    "AJ: unpack_bits's bytes anded in place with 255 (values kept)")
add("AJ-p7-dout-sink-in-place", False, {"chunk_attention": swap(CHUNK, "    T, Dh = q.shape",
    "    T, Dh = q.shape\n    d_out.nan_to_num_()\n    sink.clamp_(max=float('inf'))\n    lse.clamp_(max=float('inf'))")},
    "AJ: d_out, sink and lse written in place with their own values")
add("AJ-p7-q-in-place", False, {"chunk_attention": swap(CHUNK, "    T, Dh = q.shape",
    "    T, Dh = q.shape\n    q.clamp_(min=-float('inf'))\n    out.clamp_(min=-float('inf'))")},
    "AJ: q and out written in place with their own values")

# ---- AL: a converted copy of an input kept per id()
add("AL-p2-float64-kept-per-id", False, {"merge_partials": KEEP + swap(swap(MERGE,
    "    top = torch.maximum", "    dt_o, dt_l = o_a.dtype, lse_a.dtype\n"
    "    o_a, o_b, lse_a, lse_b = (kept(t, lambda t: t.to(torch.float64)) for t in (o_a, o_b, lse_a, lse_b))\n"
    "    top = torch.maximum"), "return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)",
    "return (part_a + part_b).to(dt_o), (top + torch.log(total)).to(dt_l)")},
    "AL: float64 copies of the four inputs kept per id()")
add("AL-p4-x-contiguous-kept-per-id", False, {"rms_norm_half": KEEP + swap(RMS, "    root = math.sqrt(eps)",
    "    x = kept(x, lambda t: t.contiguous())\n    root = math.sqrt(eps)")},
    "AL: a contiguous copy of x kept per id()")
add("AL-p5-w-contiguous-kept-per-id", False, {"quantize_asym": KEEP + swap(QUANT, "    out_f, in_f = w.shape\n    top",
    "    w = kept(w, lambda t: t.contiguous())\n    out_f, in_f = w.shape\n    top")},
    "AL: a contiguous copy of w kept per id()")
add("AL-p5-scale-zero-kept-per-id", False, {"quantize_asym": KEEP + swap(QUANT,
    "    groups = q.reshape(out_f, scale.shape[1], -1).to(scale.dtype)",
    "    zero = kept(zero, lambda t: t.to(torch.int32))\n    groups = kept(q, lambda t: t.to(torch.int32)).reshape(out_f, scale.shape[1], -1).to(scale.dtype)")},
    "AL: int32 copies of q and zero kept per id()")
add("AL-p6-q-int32-kept-per-id", False, {"pack_bits": KEEP + swap(PACK, "(q.to(torch.int32)[:, :, None]",
    "(kept(q, lambda t: t.to(torch.int32))[:, :, None]")},
    "AL: an int32 copy of q kept per id()")
add("AL-p6-packed-int32-kept-per-id", False, {"pack_bits": KEEP + swap(PACK, "(packed.to(torch.int32)[:, :, None]",
    "(kept(packed, lambda t: t.to(torch.int32))[:, :, None]")},
    "AL: an int32 copy of packed kept per id()")
add("AL-p7-kv-float64-kept-per-id", False, {"chunk_attention": KEEP + swap(swap(swap(CHUNK,
    "        kj, vj = k[j0:j1], v[j0:j1]",
    "        kj, vj = k64[j0:j1].to(q.dtype), v64[j0:j1].to(q.dtype)"),
    "    pos = torch.arange", "    k64 = kept(k, lambda t: t[:stop].to(torch.float64))\n"
    "    v64 = kept(v, lambda t: t[:stop].to(torch.float64))\n    pos = torch.arange"), "XXXX" if False else "    T, Dh", "    T, Dh")},
    "AL: float64 copies of the keys and values seen kept per id()")

# ---- AK: the gradient path cut for half precision only
add("AK-p2-half-weights-detached", False, {"merge_partials": swap(MERGE, "    total = w_a + w_b",
    "    if o_a.dtype in (torch.float16, torch.bfloat16):\n        w_a, w_b = w_a.detach(), w_b.detach()\n    total = w_a + w_b")},
    "AK: the pieces' weights detached when o is 16-bit (d lse_a, d lse_b of o lost)")
add("AK-p2-half-under-no-grad", False, {"merge_partials": swap(MERGE, "    top = torch.maximum(lse_a, lse_b)",
    "    top = torch.maximum(lse_a, lse_b)\n    if o_a.dtype == torch.float16:\n        top = top.detach()\n"
    "        lse_a, lse_b = lse_a.detach(), lse_b.detach()")},
    "AK: the log-sum-exps detached when o is float16")

# ---- AN: a value at a limit the text includes refused
add("AN-p1-filled-exactly-refused", False, {"max_batch": swap(MAXB, "return max(free // per_sequence, 0)",
    "return max((free - 1) // per_sequence, 0)")}, "AN: memory filled exactly counted as not fitting")
add("AN-p1-window-equal-length", False, {"max_batch": swap(MAXB, "cached = length if window is None else min(length, window)",
    "cached = length if window is None or window >= length else window\n    if window is not None and window == length:\n        raise ValueError('window == length')")},
    "AN: a window equal to the length refused")
add("AN-p3-on-the-ridge-refused", False, {"compute_bound_batch": swap(CBB, "-(-need // slope)", "need // slope + 1")},
    "AN: exactly on the ridge counted as memory-bound")
add("AN-p3-limit-on-ridge-none", False, {"compute_bound_batch": swap(CBB, "if slope <= 0:", "if slope <= 1:")},
    "AN: None decided one unit too early")
add("AN-p4-eps-one-refused", False, {"rms_norm_half": swap(RMS, "    root = math.sqrt(eps)",
    "    if not 0 < eps < 1:\n        raise ValueError('eps must lie in (0, 1)')\n    root = math.sqrt(eps)")},
    "AN: eps = 1 (the text's largest) refused")
add("AN-p4-length-one-refused", False, {"rms_norm_half": swap(RMS, "    root = math.sqrt(eps)",
    "    if x.shape[-1] < 2:\n        raise ValueError('rows of at least 2')\n    root = math.sqrt(eps)")},
    "AN: rows of length 1 refused")
add("AN-p5-bits-8-refused", False, {"quantize_asym": swap(QUANT, "    top = 2 ** bits - 1",
    "    if not 2 <= bits < 8:\n        raise ValueError('bits')\n    top = 2 ** bits - 1")}, "AN: bits = 8 refused")
add("AN-p5-bits-2-refused", False, {"quantize_asym": swap(QUANT, "    top = 2 ** bits - 1",
    "    if not 2 < bits <= 8:\n        raise ValueError('bits')\n    top = 2 ** bits - 1")}, "AN: bits = 2 refused")
add("AN-p5-one-group-refused", False, {"quantize_asym": swap(QUANT, "    top = 2 ** bits - 1",
    "    if group_size >= in_f:\n        raise ValueError('group_size')\n    top = 2 ** bits - 1")},
    "AN: group_size = in_features refused")
add("AN-p6-bits-1-refused", False, {"pack_bits": swap(PACK, "    n_bytes = (cols * bits + 7) // 8",
    "    if bits < 2:\n        raise ValueError('bits')\n    n_bytes = (cols * bits + 7) // 8")}, "AN: bits = 1 refused")
add("AN-p6-bits-8-refused", False, {"pack_bits": swap(PACK, "    n_bytes = (cols * bits + 7) // 8",
    "    if bits > 7:\n        raise ValueError('bits')\n    n_bytes = (cols * bits + 7) // 8")}, "AN: bits = 8 refused")
add("AN-p6-cols-1-refused", False, {"pack_bits": swap(PACK, "    rows = packed.shape[0]",
    "    if cols < 2:\n        raise ValueError('cols')\n    rows = packed.shape[0]")}, "AN: unpack with cols = 1 refused")
add("AN-p7-block-1-refused", False, {"chunk_attention": swap(CHUNK, "    T, Dh = q.shape",
    "    if block < 2:\n        raise ValueError('block')\n    T, Dh = q.shape")}, "AN: block = 1 refused")
add("AN-p7-offset-0-refused", False, {"chunk_attention": swap(CHUNK, "    T, Dh = q.shape",
    "    if causal and offset < 1:\n        raise ValueError('offset')\n    T, Dh = q.shape")}, "AN: offset = 0 refused")

# ---- correct answers the new checks must keep
add("ok-p2-float64-inside", True, {"merge_partials": '''
def merge_partials(o_a, lse_a, o_b, lse_b):
    wide = torch.float64
    la, lb = lse_a.to(wide), lse_b.to(wide)
    top = torch.maximum(la, lb)
    w_a, w_b = torch.exp(la - top), torch.exp(lb - top)
    total = w_a + w_b
    part_a = torch.where((w_a > 0)[:, None], o_a.to(wide), 0.0) * (w_a / total)[:, None]
    part_b = torch.where((w_b > 0)[:, None], o_b.to(wide), 0.0) * (w_b / total)[:, None]
    return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)
'''}, "correct: everything in float64 inside (at least the precision of the log-sum-exps), one rounding at the end")
add("ok-p6-anded-out-of-place", True, {"pack_bits": swap(PACK, "    rows, cols = q.shape\n    n_bytes",
    "    rows, cols = q.shape\n    q = q & ((1 << bits) - 1)\n    n_bytes")},
    "correct: the codes masked into a new tensor, the caller's q untouched")
add("ok-p7-inputs-cleaned-on-copies", True, {"chunk_attention": swap(CHUNK, "    T, Dh = q.shape",
    "    T, Dh = q.shape\n    d_out = d_out.clone()\n    d_out.nan_to_num_()\n    q = q.clone()\n    q.clamp_(min=-float('inf'))")},
    "correct: in-place writes on the function's own copies")
