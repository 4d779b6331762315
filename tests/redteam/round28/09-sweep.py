"""Round 28 class sweep, chapter 09: classes Y (a cache keyed on id() and the version counter), Z (an empty or
degenerate input answered by a shortcut), AA (in-place checks run only on contiguous int64 inputs), AB (subnormal
values at a threshold), AC (a memo keyed by less than every argument) and AD (a whole-batch shortcut). Each variant is
the model answer with the smallest change that makes its class's mistake, or a correct answer the text allows."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "09-modern-lm" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                        if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)


def swap(gid, *pairs):
    code = MODEL[gid]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new)
    return "\n" + code


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


# A memo of the whole call, keyed on what keyof() keeps of every argument; a weak reference makes sure that a hit is
# the very same object (an id() reused by a new tensor is no hit), so the only stale case is the same object whose
# values changed without moving what the key holds. One entry, cleared on every miss.
MEMO = '''
import weakref
MEMO_ENTRY = {}
def keyof(a, drop_version=False):
    if isinstance(a, torch.Tensor):
        return ("t", id(a), None if drop_version else a._version, tuple(a.shape), a.dtype, a.stride())
    if isinstance(a, dict):
        return ("d", id(a)) + tuple((k, keyof(v, drop_version)) for k, v in a.items())
    if isinstance(a, (list, tuple)):
        return ("l", id(a)) + tuple(keyof(v, drop_version) for v in a)
    if callable(a):
        return ("f", id(a))
    return ("v", repr(a))
def alive(a):
    refs = []
    def walk(v):
        if isinstance(v, torch.Tensor):
            refs.append((weakref.ref(v), id(v)))
        elif isinstance(v, dict):
            for w in v.values():
                walk(w)
        elif isinstance(v, (list, tuple)):
            for w in v:
                walk(w)
    walk(a)
    return refs
def copyout(r):
    if isinstance(r, torch.Tensor):
        return r.clone()
    if isinstance(r, dict):
        return {k: copyout(v) for k, v in r.items()}
    if isinstance(r, tuple):
        return tuple(copyout(v) for v in r)
    if isinstance(r, list):
        return [copyout(v) for v in r]
    return r
def memo_call(fn, key, args, kwargs):
    hit = MEMO_ENTRY.get("key") == key and all(r() is not None and id(r()) == i for r, i in MEMO_ENTRY["refs"])
    if not hit:
        MEMO_ENTRY.clear()
        MEMO_ENTRY["key"] = key
        MEMO_ENTRY["refs"] = alive((args, kwargs))
        MEMO_ENTRY["value"] = fn(*args, **kwargs)
    return copyout(MEMO_ENTRY["value"])
'''


def memo(gid, fname, params, keep=None, drop_version=False):
    """the model answer renamed, called through a one-entry memo keyed on the arguments named in keep (all by
    default), each tensor by id() and _version (unless drop_version); params may carry defaults ("eps=1e-6")"""
    code = swap(gid, f"def {fname}(", f"def {fname}_uncached(")
    bare = [p.split("=")[0] for p in params]
    keep = bare if keep is None else keep
    sig = ", ".join(params)
    names = ", ".join(f"{p}={p}" for p in bare)
    key = " + ".join(f"(keyof({p}, {drop_version}),)" for p in keep) or "()"
    return code + MEMO + f'''
def {fname}({sig}):
    return memo_call({fname}_uncached, {key}, (), dict({names}))
'''


def without(params, dropped):
    return [p.split("=")[0] for p in params if p.split("=")[0] != dropped]


P1 = ["x", "n_heads", "weight", "eps=1e-6", "unit_offset=False"]
P2 = ["x", "w_gate_up", "w_down", "beta=1.0", "limit=None", "interleaved=False"]
P4 = ["logits", "ids", "target_mask", "z_loss=0.0"]
P6 = ["x", "positions", "base=500000.0", "factor=8.0", "low_freq_factor=1.0", "high_freq_factor=4.0",
      "original_context=8192"]
P8 = ["step", "prompt", "max_new_tokens", "eos_id", "pad_id", "temperature", "penalty", "generator"]
P3 = ["vocab", "dim", "n_layers", "n_heads", "n_kv_heads", "head_dim", "ffn_hidden", "n_experts", "top_k", "tied=False",
      "n_shared=0", "first_dense=0", "dense_hidden=0"]

# ---------------------------------------------------------------- Y: a cache keyed on id() and _version
add("Y1-rms-norm-by-id-version", "head_rms_norm", memo("head_rms_norm", "head_rms_norm", P1),
    "Y: the result kept per (id, _version) of x and weight and the other arguments")
add("Y2-swiglu-by-id-version", "fused_swiglu", memo("fused_swiglu", "fused_swiglu", P2),
    "Y: the result kept per (id, _version) of x and both weights and the other arguments")
add("Y4-loss-by-id-version", "masked_lm_loss", memo("masked_lm_loss", "masked_lm_loss", P4),
    "Y: (loss, count) kept per (id, _version) of logits, ids and target_mask and z_loss")
add("Y6-rope-by-id-version", "rope_llama3", memo("rope_llama3", "rope_llama3", P6),
    "Y: the result kept per (id, _version) of x and positions and the scalars")
add("Y8-generate-by-id-version", "generate_with_cache", memo("generate_with_cache", "generate_with_cache", P8),
    "Y: the tokens kept per id(step), (id, _version) of prompt and the scalars")
RC_KEYS = ("    keys = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n"
           "    values = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n")
add("Y7-cache-mirror-by-id-version", "ragged_cached_attention", swap("ragged_cached_attention",
    "def ragged_cached_attention(", "import weakref\nMIRROR = {}\ndef ragged_cached_attention(",
    "    k_cache.scatter_(2, index, k_new)\n",
    "    entry = MIRROR.get(\"entry\")\n"
    "    reuse = (entry is not None and entry[0]() is k_cache and entry[1]() is v_cache\n"
    "             and entry[2] == (k_cache._version, v_cache._version))\n"
    "    k_cache.scatter_(2, index, k_new)\n",
    RC_KEYS,
    "    if reuse:  # the caches are as this function left them: the mirror of the last call plus the new tokens\n"
    "        keys = torch.where(written[:, None, :, None], entry[3].scatter(2, index, k_new), torch.zeros((), dtype=k_cache.dtype))\n"
    "        values = torch.where(written[:, None, :, None], entry[4].scatter(2, index, v_new), torch.zeros((), dtype=v_cache.dtype))\n"
    "    else:\n"
    "    " + RC_KEYS.replace("\n    ", "\n        ")
    + "    MIRROR[\"entry\"] = (weakref.ref(k_cache), weakref.ref(v_cache), (k_cache._version, v_cache._version),\n"
    "                       keys.detach().clone(), values.detach().clone())\n"),
    "Y: a masked mirror of the caches kept per (id, _version) after this call's own writes, reused when the caches are "
    "met again unchanged (a caller's write through .data, such as a beam reorder, leaves _version)")

# ---------------------------------------------------------------- AA: converted copies kept per id()
KEPT = ("import weakref\nKEPT = {}\ndef kept(t, convert):\n"
        "    entry = KEPT.get(id(t))\n"
        "    if entry is None or entry[0]() is not t:\n"
        "        entry = (weakref.ref(t), convert(t))\n"
        "        KEPT[id(t)] = entry\n"
        "    return entry[1]\n")
add("AA4-ids-long-kept-per-id", "masked_lm_loss", swap("masked_lm_loss",
    "def masked_lm_loss(", KEPT + "def masked_lm_loss(",
    "    chosen = target_mask[:, 1:]", "    ids = kept(ids, lambda t: t.contiguous().long())\n"
    "    target_mask = kept(target_mask, lambda t: t.contiguous())\n    chosen = target_mask[:, 1:]"),
    "AA: ids.contiguous().long() and target_mask.contiguous() kept per id(): the inputs themselves when contiguous int64")
add("AA6-positions-long-kept-per-id", "rope_llama3", swap("rope_llama3",
    "def rope_llama3(", KEPT + "def rope_llama3(",
    "    angle = positions.to(torch.float64)", "    positions = kept(positions, lambda t: t.contiguous().long())\n"
    "    angle = positions.to(torch.float64)"),
    "AA: positions.contiguous().long() kept per id(): the input itself for contiguous int64 positions")
add("AA1-x-contiguous-kept-per-id", "head_rms_norm", swap("head_rms_norm",
    "def head_rms_norm(", KEPT + "def head_rms_norm(",
    "    work = torch.float64 if", "    x = kept(x, lambda t: t.contiguous())\n    work = torch.float64 if"),
    "AA: x.contiguous() kept per id(): the input itself for a contiguous x")

# ---------------------------------------------------------------- Z: empty or degenerate inputs
add("Z1-empty-new-empty", "head_rms_norm", swap("head_rms_norm", "    work = torch.float64 if",
    "    if x.numel() == 0:\n        d = x.shape[-1] // n_heads\n"
    "        return x.new_empty(*x.shape[:-2], n_heads, x.shape[-2], d)\n    work = torch.float64 if"),
    "Z: an empty x answered by a new constant with no gradient")
add("Z2-empty-new-zeros", "fused_swiglu", swap("fused_swiglu", "    work = x.dtype if",
    "    if x.numel() == 0:\n        return x.new_zeros(x.shape)\n    work = x.dtype if"),
    "Z: an empty x answered by a new constant with no gradient")
add("Z4-empty-float32-zero", "masked_lm_loss", swap("masked_lm_loss", "    work = torch.float64 if",
    "    if logits.shape[0] == 0:\n        return torch.zeros(()), 0\n    work = torch.float64 if"),
    "Z: an empty batch answered with a float32 zero, whatever the dtype of logits")
add("Z6-empty-x-back", "rope_llama3", swap("rope_llama3", "    theta = base **",
    "    if b == 0:\n        return x\n    theta = base **"),
    "Z: an empty batch answered with x itself (text: a new tensor)")
add("Z6-empty-new-empty", "rope_llama3", swap("rope_llama3", "    theta = base **",
    "    if b == 0:\n        return torch.empty(x.shape, dtype=x.dtype)\n    theta = base **"),
    "Z: an empty batch answered by a new constant with no gradient")
add("Z7-empty-q-lengths-back", "ragged_cached_attention", swap("ragged_cached_attention", "    slots = lengths.long()",
    "    if b == 0:\n        return q, lengths\n    slots = lengths.long()"),
    "Z: an empty batch answered with q and lengths themselves (text: new tensors)")
add("Z7-empty-int64-lengths", "ragged_cached_attention", swap("ragged_cached_attention", "    slots = lengths.long()",
    "    if b == 0:\n        return q.new_zeros(q.shape), torch.zeros(0, dtype=torch.long)\n    slots = lengths.long()"),
    "Z: an empty batch answered with int64 lengths whatever their dtype, and no gradient")

# ---------------------------------------------------------------- AB: subnormal values at a threshold
add("AB8-probs-below-tiny-zeroed", "generate_with_cache", swap("generate_with_cache",
    "            token = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]\n",
    "            probs = torch.softmax(scores / temperature, dim=-1)\n"
    "            probs = probs.masked_fill(probs < torch.finfo(probs.dtype).tiny, 0.0)\n"
    "            token = torch.multinomial(probs, 1, generator=generator)[:, 0]\n"),
    "AB: probabilities below finfo.tiny zeroed before the draw (text: those probabilities as they are)")

# ---------------------------------------------------------------- AC: memo keyed by less than every argument
for dropped in ("unit_offset", "eps", "n_heads"):
    add(f"AC1-memo-drops-{dropped}", "head_rms_norm", memo("head_rms_norm", "head_rms_norm", P1, keep=without(P1, dropped)),
        f"AC: the result memoized on every argument but {dropped}")
for dropped in ("interleaved", "beta", "limit"):
    add(f"AC2-memo-drops-{dropped}", "fused_swiglu", memo("fused_swiglu", "fused_swiglu", P2, keep=without(P2, dropped)),
        f"AC: the result memoized on every argument but {dropped}")
for dropped in ("tied", "n_shared", "first_dense", "dense_hidden", "top_k", "head_dim"):
    add(f"AC3-memo-drops-{dropped}", "moe_params", memo("moe_params", "moe_params", P3, keep=without(P3, dropped)),
        f"AC: the counts memoized on every argument but {dropped}")
add("AC4-memo-drops-z-loss", "masked_lm_loss", memo("masked_lm_loss", "masked_lm_loss", P4, keep=without(P4, "z_loss")),
    "AC: (loss, count) memoized on every argument but z_loss")
for dropped in ("base", "factor", "low_freq_factor", "high_freq_factor", "original_context"):
    add(f"AC6-memo-drops-{dropped}", "rope_llama3", memo("rope_llama3", "rope_llama3", P6, keep=without(P6, dropped)),
        f"AC: the result memoized on every argument but {dropped}")
for dropped in ("penalty", "temperature", "eos_id", "pad_id", "max_new_tokens"):
    add(f"AC8-memo-drops-{dropped}", "generate_with_cache",
        memo("generate_with_cache", "generate_with_cache", P8, keep=without(P8, dropped)),
        f"AC: the tokens memoized on every argument but {dropped}")

# ---------------------------------------------------------------- AD: whole-batch shortcuts
add("AD8-all-rows-certain-no-draw", "generate_with_cache", swap("generate_with_cache",
    "            token = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]\n",
    "            probs = torch.softmax(scores / temperature, dim=-1)\n"
    "            if bool((probs == 1).any(dim=-1).all()):\n"
    "                token = probs.argmax(dim=-1)\n"
    "            else:\n"
    "                token = torch.multinomial(probs, 1, generator=generator)[:, 0]\n"),
    "AD: a step where every row's draw is certain answered by argmax without drawing (the generator not moved)")
add("AD8-all-finished-no-draw", "generate_with_cache", swap("generate_with_cache",
    "        if temperature == 0:\n",
    "        if temperature == 0 or bool(finished.all()):\n"),
    "AD: no draw once every row is finished (unreachable: the loop stops then); judged below", correct=True)
add("AD4-no-target-constant-zero", "masked_lm_loss", swap("masked_lm_loss", "    scores = logits[:, :-1][chosen]",
    "    if count == 0:\n        return torch.zeros((), dtype=work), 0\n    scores = logits[:, :-1][chosen]"),
    "correct: count 0 answered by a zero of the compute dtype (the text asks a gradient only when count > 0)",
    correct=True)
add("AD7-all-empty-rows-shortcut", "ragged_cached_attention", swap("ragged_cached_attention",
    "    written = torch.arange(s_max)",
    "    if b and bool((lengths == 0).all()):\n"
    "        kg = k_new.repeat_interleave(h // g, dim=1)\n        vg = v_new.repeat_interleave(h // g, dim=1)\n"
    "        sc = (q @ kg.transpose(-2, -1)) / math.sqrt(dh)\n"
    "        causal = torch.ones(t, t, dtype=torch.bool).triu(1)\n"
    "        return torch.softmax(sc.masked_fill(causal, float('-inf')), -1) @ vg, lengths + t\n"
    "    written = torch.arange(s_max)"),
    "correct: a batch whose rows are all empty attends only to its new tokens (the same values)", correct=True)
