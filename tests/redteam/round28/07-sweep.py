"""Round 28 class sweep, chapter 07: classes Z (an empty or degenerate input answered by a shortcut), AA (in-place
checks run only on contiguous inputs of the computing dtype), AB (subnormal values at a threshold), AC (a memo keyed
by less than every argument) and AD (a whole-batch shortcut). Class Y is closed in this chapter already. Each variant
is the model answer with the smallest change that makes its class's mistake, or a correct answer the text allows."""
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


def swap(gid, *pairs, code=None):
    code = MODEL[gid] if code is None else code
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new, 1)
    return "\n" + code


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


SIGNATURES = {
    "max_batch": ("max_batch", "memory_bytes, weight_bytes, layers, kv_heads, head_dim, length, bytes_per_value, window=None"),
    "compute_bound_batch": ("compute_bound_batch", "k, n, bytes_per_value, peak, bandwidth"),
    "merge_partials": ("merge_partials", "o_a, lse_a, o_b, lse_b"),
    "rms_norm_half": ("rms_norm_half", "x, eps=1e-6"),
    "quantize_asym": ("quantize_asym", "w, bits, group_size"),
    "dequantize_asym": ("dequantize_asym", "q, scale, zero"),
    "pack_bits": ("pack_bits", "q, bits"),
    "unpack_bits": ("unpack_bits", "packed, bits, cols"),
    "chunk_attention_backward": ("chunk_attention_backward",
                                 "q, k, v, sink, out, lse, d_out, offset, block, causal=True"),
}


def memo(gid, fname, drop):
    """AC: the model answer behind a memo keyed by the values of every argument but `drop` (tensors compared by
    dtype, shape and torch.equal; skipped where a tensor requires grad, so that only the dropped argument shows)."""
    _, sig = SIGNATURES[fname]
    names = [p.split("=")[0].strip() for p in sig.split(",")]
    given = ", ".join(f"{n!r}: {n}" for n in names)
    return "\n" + MODEL[gid] + f"""

fresh_{fname} = {fname}
memo_{fname} = []


def same_{fname}(a, b):
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dtype == b.dtype
                and a.shape == b.shape and bool(torch.equal(a, b)))
    return type(a) is type(b) and a == b


def copy_{fname}(result):
    if isinstance(result, tuple):
        return tuple(copy_{fname}(r) for r in result)
    return result.detach().clone() if isinstance(result, torch.Tensor) else result


def {fname}({sig}):
    given = {{{given}}}
    key = {{n: v for n, v in given.items() if n != {drop!r}}}
    if {fname!r} == "chunk_attention_backward":  # rule 1: read no key past the chunk's last position
        stop = offset + q.shape[0] if causal else k.shape[0]
        key = {{n: (v[:stop] if n in ("k", "v") else v) for n, v in key.items()}}
    tracked = any(isinstance(v, torch.Tensor) and v.requires_grad for v in given.values())
    if not tracked:
        for old, result in memo_{fname}:
            if all(same_{fname}(old[n], key[n]) for n in key):
                return copy_{fname}(result)
    result = fresh_{fname}(**given)
    if not tracked:
        memo_{fname}.append(({{n: copy_{fname}(v) for n, v in key.items()}}, copy_{fname}(result)))
        del memo_{fname}[:-6]
    return result
"""


def kept_inputs(gid, fname, how="t.contiguous()", code=None):
    """AA: every tensor argument replaced by a converted copy kept per id() (the tensor kept alive with it): for a
    contiguous input of the computing dtype the copy is the input itself, so its in-place change shows; for a strided
    or narrower one the copy is stale."""
    _, sig = SIGNATURES[fname]
    return "\n" + (MODEL[gid] if code is None else code) + f"""

fresh_{fname} = {fname}
kept_{fname} = {{}}


def convert_{fname}(t):
    if not isinstance(t, torch.Tensor) or t.requires_grad:
        return t
    if id(t) not in kept_{fname}:
        kept_{fname}[id(t)] = (t, {how})
    return kept_{fname}[id(t)][1]


def {fname}(*args, **kwargs):
    return fresh_{fname}(*[convert_{fname}(a) for a in args], **{{n: convert_{fname}(v) for n, v in kwargs.items()}})
"""


# ============================== AB: subnormal values at a threshold ==============================
add("AB2-subnormal-weight-rows-left-out", "merge_partials", swap("merge_partials",
    "torch.where((w_a > 0)[:, None], o_a, 0.0)", "torch.where((w_a >= torch.finfo(w_a.dtype).tiny)[:, None], o_a, 0.0)",
    "torch.where((w_b > 0)[:, None], o_b, 0.0)", "torch.where((w_b >= torch.finfo(w_b.dtype).tiny)[:, None], o_b, 0.0)"),
    "AB: a piece whose weight is subnormal left out of o (text: only a weight of exactly 0 leaves it out)")
add("AB2-subnormal-weights-flushed", "merge_partials", swap("merge_partials",
    "    total = w_a + w_b\n",
    "    tiny = torch.finfo(w_a.dtype).tiny\n    w_a = torch.where(w_a < tiny, 0.0, w_a)\n"
    "    w_b = torch.where(w_b < tiny, 0.0, w_b)\n    total = w_a + w_b\n"),
    "AB: subnormal weights flushed to 0 (text: only a weight of exactly 0 leaves a piece out)")
add("AB4-subnormal-elements-flushed", "rms_norm_half", swap("rms_norm_half",
    "    root = math.sqrt(eps)\n",
    "    x = torch.where(x.abs() < torch.finfo(x.dtype).tiny, 0.0, x)\n    root = math.sqrt(eps)\n"),
    "AB: subnormal elements of x taken as 0 (text: small elements count as much as large ones)")
add("AB5-subnormal-scale-as-group-of-zeros", "quantize_asym", swap("quantize_asym",
    "torch.where(scale > 0, scale, torch.ones_like(scale))",
    "torch.where(scale >= torch.finfo(scale.dtype).tiny, scale, torch.ones_like(scale))"),
    "AB: a group whose scale is subnormal treated as a group of zeros (text: weights of any size; scale = 1 only for a group of zeros)")
add("AB5-subnormal-weights-flushed", "quantize_asym", swap("quantize_asym",
    "    groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)\n",
    "    groups = w.reshape(out_f, in_f // group_size, group_size)      # (out, G, g)\n"
    "    groups = torch.where(groups.abs() < torch.finfo(w.dtype).tiny, 0.0, groups)\n"),
    "AB: subnormal weights taken as 0 (text: weights of any size, clamp nothing)")
add("AB7-subnormal-probabilities-flushed", "chunk_attention", swap("chunk_attention",
    "        if causal:\n",
    "        p = torch.where(p >= torch.finfo(p.dtype).tiny, p, 0.0)\n        if causal:\n"),
    "AB: subnormal probabilities of seen keys taken as 0 (text: a key a query sees counts however small its probability)")
add("AB7-subnormal-tile-skipped", "chunk_attention", swap("chunk_attention",
    "        dv[j0:j1] = p.T @ d_out ",
    "        if not bool((p >= torch.finfo(p.dtype).tiny).any()):\n            continue\n        dv[j0:j1] = p.T @ d_out "),
    "AB: a tile whose probabilities are all subnormal skipped (text: skip no tile because its probabilities are small)")
add("AB7-subnormal-sink-share-flushed", "chunk_attention", swap("chunk_attention",
    "    dsink = -(torch.exp(sink - lse) * delta).sum()",
    "    p_sink = torch.exp(sink - lse)\n    p_sink = torch.where(p_sink >= torch.finfo(p_sink.dtype).tiny, p_sink, 0.0)\n"
    "    dsink = -(p_sink * delta).sum()"),
    "AB: a subnormal sink probability taken as 0 in dsink")
add("AB8-subnormal-x-flushed", "split_kv_kernel", swap("split_kv_kernel",
    "        x = tl.load(X + cols)                                                     # (BLOCK_K,)\n",
    "        x = tl.load(X + cols)                                                     # (BLOCK_K,)\n"
    "        x = tl.where(tl.abs(x) < 1.1754943508222875e-38, 0.0, x)\n"),
    "AB: subnormal entries of x taken as 0 (text: X holds values of any size, clamp nothing)")
add("AB8-subnormal-scale-flushed", "split_kv_kernel", swap("split_kv_kernel",
    "        w = (code.to(tl.float32) - zero) * scale\n",
    "        scale = tl.where(scale < 1.1754943508222875e-38, 0.0, scale)\n        w = (code.to(tl.float32) - zero) * scale\n"),
    "AB: subnormal scales taken as 0 (Part 5's scales of weights of any size)")

# ============================== Z: an empty or degenerate input answered by a shortcut ==============================
add("Z2-empty-T-handed-back", "merge_partials", swap("merge_partials",
    "    top = torch.maximum(lse_a, lse_b) ", "    if o_a.shape[0] == 0:\n        return o_a, lse_a\n    top = torch.maximum(lse_a, lse_b) "),
    "Z: T = 0 answered with the inputs themselves (text: return new tensors, never one of the inputs)")
add("Z2-empty-T-new-float32", "merge_partials", swap("merge_partials",
    "    top = torch.maximum(lse_a, lse_b) ",
    "    if o_a.shape[0] == 0:\n        return torch.empty(0, o_a.shape[1]), torch.empty(0)\n    top = torch.maximum(lse_a, lse_b) "),
    "Z: T = 0 answered with new float32 tensors (text: o in o_a's dtype, lse in lse_a's)")
add("Z4-empty-handed-back", "rms_norm_half", swap("rms_norm_half",
    "    root = math.sqrt(eps)\n", "    if x.numel() == 0:\n        return x\n    root = math.sqrt(eps)\n"),
    "Z: an empty x handed back (text: return new tensors)")
add("Z5-empty-quantize-float32-scale", "quantize_asym", swap("quantize_asym",
    "    top = 2 ** bits - 1\n",
    "    top = 2 ** bits - 1\n    if w.numel() == 0:\n        return (torch.zeros(out_f, in_f, dtype=torch.uint8), torch.ones(out_f, in_f // group_size),\n"
    "                torch.zeros(out_f, in_f // group_size, dtype=torch.uint8))\n"),
    "Z: an empty w answered with a float32 scale (text: scale in the dtype of w)")
add("Z5-empty-dequantize-handed-back", "quantize_asym", swap("quantize_asym",
    "    out_f, in_f = q.shape\n", "    out_f, in_f = q.shape\n    if q.numel() == 0:\n        return scale\n"),
    "Z: an empty q answered with scale itself (text: shape (out, in), new tensors)")
add("Z6-empty-rows-handed-back", "pack_bits", swap("pack_bits",
    "    rows, cols = q.shape\n", "    rows, cols = q.shape\n    if rows == 0:\n        return q\n"),
    "Z: rows = 0 answered with q itself (wrong shape unless bits = 8; shares memory)")
add("Z6-empty-rows-unpack-handed-back", "pack_bits", swap("pack_bits",
    "    rows = packed.shape[0]\n", "    rows = packed.shape[0]\n    if rows == 0:\n        return packed\n"),
    "Z: rows = 0 answered with packed itself")
add("Z7-empty-chunk-q-handed-back", "chunk_attention", swap("chunk_attention",
    "    T, Dh = q.shape\n",
    "    T, Dh = q.shape\n    if T == 0:\n        return q, torch.zeros_like(k), torch.zeros_like(v), torch.zeros_like(sink)\n"),
    "Z: T = 0 answered with q itself as dq")

# ============================== AD: a whole-batch shortcut ==============================
add("AD2-whole-piece-empty-detached", "merge_partials", swap("merge_partials",
    "    top = torch.maximum(lse_a, lse_b) ",
    "    if bool(torch.isneginf(lse_a).all()):\n        return o_b.detach().clone(), lse_b.detach().clone()\n"
    "    if bool(torch.isneginf(lse_b).all()):\n        return o_a.detach().clone(), lse_a.detach().clone()\n"
    "    top = torch.maximum(lse_a, lse_b) "),
    "AD: a piece that sees no key for any query answered by a copy of the other with no gradient (text: gradients must flow)")
add("AD2-whole-piece-empty-clone", "merge_partials", swap("merge_partials",
    "    top = torch.maximum(lse_a, lse_b) ",
    "    if bool(torch.isneginf(lse_a).all()):\n        return o_b.clone(), lse_b.clone()\n"
    "    if bool(torch.isneginf(lse_b).all()):\n        return o_a.clone(), lse_a.clone()\n"
    "    top = torch.maximum(lse_a, lse_b) "),
    "AD: the same shortcut with clone(): right values and gradients", correct=True)
add("AD4-all-zero-input-zeros-like", "rms_norm_half", swap("rms_norm_half",
    "    root = math.sqrt(eps)\n", "    if not bool(x.any()):\n        return torch.zeros_like(x)\n    root = math.sqrt(eps)\n"),
    "AD: an all-zero x answered by a zero tensor (text: the gradient there is the incoming one / sqrt(eps))")
add("AD5-all-zero-w-one-zero-tensor", "quantize_asym", swap("quantize_asym",
    "    top = 2 ** bits - 1\n",
    "    top = 2 ** bits - 1\n    if not bool(w.any()):\n        none = torch.zeros(out_f, in_f // group_size, dtype=torch.uint8)\n"
    "        q0 = none if group_size == 1 else torch.zeros(out_f, in_f, dtype=torch.uint8)\n"
    "        return q0, torch.ones(out_f, in_f // group_size, dtype=w.dtype), none\n"),
    "AD: an all-zero w answered by one zero tensor for q and zero when group_size = 1 (they share memory)")
add("AD5-all-zero-w-shortcut", "quantize_asym", swap("quantize_asym",
    "    top = 2 ** bits - 1\n",
    "    top = 2 ** bits - 1\n    if not bool(w.any()):\n"
    "        return (torch.zeros(out_f, in_f, dtype=torch.uint8), torch.ones(out_f, in_f // group_size, dtype=w.dtype),\n"
    "                torch.zeros(out_f, in_f // group_size, dtype=torch.uint8))\n"),
    "AD: an all-zero w answered by new constants (right: q = zero = 0, scale = 1)", correct=True)
add("AD6-all-zero-unpack-shortcut", "pack_bits", swap("pack_bits",
    "    rows = packed.shape[0]\n",
    "    rows = packed.shape[0]\n    if not bool(packed.any()):\n        return torch.zeros(rows, cols, dtype=torch.uint8)\n"),
    "AD: an all-zero stream answered by new zeros (right)", correct=True)

# ============================== AC: a memo keyed by less than every argument ==============================
for _p in ["memory_bytes", "weight_bytes", "layers", "kv_heads", "head_dim", "length", "bytes_per_value", "window"]:
    add(f"AC1-memo-drops-{_p}", "max_batch", memo("max_batch", "max_batch", _p), f"AC: a memo keyed without {_p}")
for _p in ["k", "n", "bytes_per_value", "peak", "bandwidth"]:
    add(f"AC3-memo-drops-{_p}", "compute_bound_batch", memo("compute_bound_batch", "compute_bound_batch", _p),
        f"AC: a memo keyed without {_p}")
for _p in ["o_a", "lse_a", "o_b", "lse_b"]:
    add(f"AC2-memo-drops-{_p}", "merge_partials", memo("merge_partials", "merge_partials", _p), f"AC: a memo keyed without {_p}")
for _p in ["x", "eps"]:
    add(f"AC4-memo-drops-{_p}", "rms_norm_half", memo("rms_norm_half", "rms_norm_half", _p), f"AC: a memo keyed without {_p}")
for _p in ["w", "bits", "group_size"]:
    add(f"AC5-memo-drops-{_p}", "quantize_asym", memo("quantize_asym", "quantize_asym", _p), f"AC: a memo keyed without {_p}")
for _p in ["q", "scale", "zero"]:
    add(f"AC5-dequantize-memo-drops-{_p}", "quantize_asym", memo("quantize_asym", "dequantize_asym", _p),
        f"AC: dequantize_asym's memo keyed without {_p}")
for _p in ["q", "bits"]:
    add(f"AC6-pack-memo-drops-{_p}", "pack_bits", memo("pack_bits", "pack_bits", _p), f"AC: pack_bits's memo keyed without {_p}")
for _p in ["packed", "bits", "cols"]:
    add(f"AC6-unpack-memo-drops-{_p}", "pack_bits", memo("pack_bits", "unpack_bits", _p),
        f"AC: unpack_bits's memo keyed without {_p}")
for _p in ["q", "k", "v", "sink", "out", "lse", "d_out", "offset", "causal"]:
    add(f"AC7-memo-drops-{_p}", "chunk_attention", memo("chunk_attention", "chunk_attention_backward", _p),
        f"AC: a memo keyed without {_p}")
add("AC7-memo-drops-block", "chunk_attention", memo("chunk_attention", "chunk_attention_backward", "block"),
    "AC: a memo keyed without block (block changes no result beyond rounding: allowed?)", correct=True)
add("AC-all-arguments-memo", "max_batch", memo("max_batch", "max_batch", "none-dropped"),
    "AC: a memo keyed by every argument (right)", correct=True)

# ============================== AA: in-place checks only on contiguous inputs of the computing dtype ==============
add("AA2-contiguous-kept-per-id", "merge_partials", kept_inputs("merge_partials", "merge_partials"),
    "AA: each input's .contiguous() kept per id()")
add("AA2-widened-kept-per-id", "merge_partials", kept_inputs("merge_partials", "merge_partials", "t.to(torch.float64)",
    code=swap("merge_partials", "return (part_a + part_b).to(o_a.dtype), (top + torch.log(total)).to(lse_a.dtype)",
              "return (part_a + part_b).to(dtypes[0]), (top + torch.log(total)).to(dtypes[1])",
              "def merge_partials(o_a, lse_a, o_b, lse_b):\n",
              "def merge_partials(o_a, lse_a, o_b, lse_b, dtypes=None):\n")
    + """

inner_merge_partials = merge_partials


def merge_partials(o_a, lse_a, o_b, lse_b):
    return inner_merge_partials(o_a, lse_a, o_b, lse_b, dtypes=(o_a.dtype, lse_a.dtype))
"""),
    "AA: each input widened to float64 (computing in float64 is allowed) and the copy kept per id()")
add("AA4-contiguous-kept-per-id", "rms_norm_half", kept_inputs("rms_norm_half", "rms_norm_half"),
    "AA: x.contiguous() kept per id()")
add("AA5-contiguous-kept-per-id", "quantize_asym", kept_inputs("quantize_asym", "quantize_asym"),
    "AA: w.contiguous() kept per id()")
add("AA5-dequantize-contiguous-kept-per-id", "quantize_asym", kept_inputs("quantize_asym", "dequantize_asym"),
    "AA: q, scale, zero .contiguous() kept per id()")
add("AA5-dequantize-int32-kept-per-id", "quantize_asym", kept_inputs("quantize_asym", "dequantize_asym",
    "t if t.is_floating_point() else t.to(torch.int32)"),
    "AA: q and zero widened to int32 (a copy always) kept per id()")
add("AA6-pack-contiguous-kept-per-id", "pack_bits", kept_inputs("pack_bits", "pack_bits"),
    "AA: q.contiguous() kept per id()")
add("AA6-unpack-contiguous-kept-per-id", "pack_bits", kept_inputs("pack_bits", "unpack_bits"),
    "AA: packed.contiguous() kept per id()")
add("AA7-contiguous-kept-per-id", "chunk_attention", "\n" + MODEL["chunk_attention"] + """

fresh_backward = chunk_attention_backward
kept_backward = {}


def convert_backward(t):
    if t.requires_grad:
        return t
    if id(t) not in kept_backward:
        kept_backward[id(t)] = (t, t.contiguous())
    return kept_backward[id(t)][1]


def chunk_attention_backward(q, k, v, sink, out, lse, d_out, offset, block, causal=True):
    q, sink, out, lse, d_out = (convert_backward(t) for t in (q, sink, out, lse, d_out))
    return fresh_backward(q, k, v, sink, out, lse, d_out, offset, block, causal)
""",
    "AA: each input but k and v .contiguous() kept per id() (k, v left as they are: rule 1)")


# the model answer of every part, as a correct answer (it must keep full marks after the sweep's new cases)
for _gid in MODEL:
    add(f"MODEL-{_gid}", _gid, "\n" + MODEL[_gid], "the model answer", correct=True)
