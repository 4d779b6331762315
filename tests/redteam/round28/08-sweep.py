"""Round 28 class sweep, chapter 08: classes Y (a cache keyed on id() and the version counter), Z (an empty or
degenerate input answered by a shortcut), AA (in-place checks run only on contiguous int64 inputs), AB (subnormal
values at a threshold), AC (a memo keyed by less than every argument) and AD (a whole-batch shortcut). Each variant is
the model answer with the smallest change that makes its class's mistake, or a correct answer the text allows."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "08-capstone" / "exercises.ipynb").read_text())
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
    default), each tensor by id() and _version (unless drop_version)"""
    code = swap(gid, f"def {fname}(", f"def {fname}_uncached(")
    keep = params if keep is None else keep
    sig = ", ".join(params)
    names = ", ".join(f"{p}={p}" for p in params)
    key = " + ".join(f"(keyof({p}, {drop_version}),)" for p in keep) or "()"
    return code + MEMO + f'''
def {fname}({sig}):
    return memo_call({fname}_uncached, {key}, (), dict({names}))
'''


# ---------------------------------------------------------------- Y: a cache keyed on id() and _version
add("Y1-decoder-io-by-id-version", "decoder_io", memo("decoder_io", "decoder_io", ["targets"]),
    "Y: (tgt_in, tgt_out) kept per (id, _version) of targets; the caller's write through .data leaves _version")
add("Y4-loss-by-id-version", "sentence_loss",
    memo("sentence_loss", "sentence_smoothed_loss", ["logits", "targets", "eps"]),
    "Y: the loss kept per (id, _version) of logits and targets and eps")
add("Y5-average-by-id-version", "average", memo("average", "average_checkpoints", ["states"]),
    "Y: the average kept per id() of the list, its dicts and (id, _version) of every tensor")

# ---------------------------------------------------------------- AA: converted copies kept per id()
add("AA1-contiguous-long-kept-per-id", "decoder_io", '''
import weakref
KEPT = {}
def decoder_io(targets):
    entry = KEPT.get(id(targets))
    if entry is None or entry[0]() is not targets:
        entry = (weakref.ref(targets), targets.contiguous().long())
        KEPT.clear()
        KEPT[id(targets)] = entry
    work = entry[1]
    tgt_in = torch.full_like(work, PAD)
    tgt_in[:, :1] = BOS
    tgt_in[:, 1:] = work[:, :-1]
    tgt_in = tgt_in.masked_fill(tgt_in == EOS, PAD)
    return tgt_in.to(targets.dtype), targets
''', "AA: targets.contiguous().long() kept per id(targets): the input itself for contiguous int64 targets, a stale "
     "copy for int32 or strided ones changed in place")
add("AA4-contiguous-kept-per-id", "sentence_loss", swap("sentence_loss",
    "def sentence_smoothed_loss(logits, targets, eps):\n",
    "import weakref\nKEPT = {}\ndef kept(t, convert):\n"
    "    entry = KEPT.get(id(t))\n"
    "    if entry is None or entry[0]() is not t:\n"
    "        entry = (weakref.ref(t), convert(t))\n"
    "        KEPT[id(t)] = entry\n"
    "    return entry[1]\n"
    "def sentence_smoothed_loss(logits, targets, eps):\n"
    "    targets = kept(targets, lambda t: t.contiguous().long())\n"),
    "AA: targets.contiguous().long() kept per id(targets): the input itself for contiguous int64 targets")
add("AA5-double-kept-per-id", "average", swap("average", "total = sum(s[k].double() for s in states)",
    "total = sum(kept(s[k]) for s in states)", "def average_checkpoints(states):\n",
    "import weakref\nKEPT = {}\ndef kept(t):\n"
    "    entry = KEPT.get(id(t))\n"
    "    if entry is None or entry[0]() is not t:\n"
    "        entry = (weakref.ref(t), t.contiguous().double())\n"
    "        KEPT[id(t)] = entry\n"
    "    return entry[1]\n"
    "def average_checkpoints(states):\n"),
    "AA: each entry's .contiguous().double() kept per id(): the entry itself for contiguous float64 entries")

# ---------------------------------------------------------------- Z: empty or degenerate inputs
add("Z1-empty-tgt-in-is-targets", "decoder_io", swap("decoder_io", "    tgt_in = torch.full_like(targets, PAD)\n",
    "    if targets.numel() == 0:\n        return targets, targets\n    tgt_in = torch.full_like(targets, PAD)\n"),
    "Z: an empty batch answered with targets itself as tgt_in (text: tgt_in a new one there too)")
add("Z1-empty-int64-zeros", "decoder_io", swap("decoder_io", "    tgt_in = torch.full_like(targets, PAD)\n",
    "    if targets.shape[0] == 0:\n        return torch.zeros(targets.shape, dtype=torch.long), targets\n"
    "    tgt_in = torch.full_like(targets, PAD)\n"),
    "Z: an empty batch answered with an int64 constant (text: the dtype of targets)")
add("Z5-empty-entries-handed-back", "average", swap("average",
    "        if states[-1][k].is_floating_point():\n",
    "        if states[-1][k].numel() == 0:\n            out[k] = states[-1][k]\n"
    "        elif states[-1][k].is_floating_point():\n"),
    "Z: a floating entry of no elements handed back as the given tensor (text: averaged entries in new tensors)")
add("Z6-max-len-0-shortcut", "sample", swap("sample", "    outs = [[] for _ in starts]\n",
    "    if max_len == 0 or len(starts) == 0:\n        return [[] for _ in starts]\n    outs = [[] for _ in starts]\n"),
    "correct: nothing asked, nothing drawn at max_len 0 or no starts", correct=True)

# ---------------------------------------------------------------- AB: subnormal values at a threshold
add("AB6-probs-below-tiny-zeroed", "sample", swap("sample",
    "        probs = torch.softmax(scores.double(), dim=-1)\n",
    "        probs = torch.softmax(scores.double(), dim=-1)\n"
    "        probs = probs.masked_fill(probs < torch.finfo(probs.dtype).tiny, 0.0)\n"),
    "AB: probabilities below finfo.tiny zeroed before the draw (text: those probabilities as they are)")
add("AB4-eps-below-tiny-is-zero", "sentence_loss", swap("sentence_loss", "    per_token = (1 - eps) * nll + eps * spread\n",
    "    if eps < torch.finfo(logits.dtype).tiny:\n        eps = 0.0\n    per_token = (1 - eps) * nll + eps * spread\n"),
    "AB: an eps below finfo.tiny taken as 0 (changes the loss by eps * spread, far below any tolerance: judged below)")

# ---------------------------------------------------------------- AC: memo keyed by less than every argument
LR = ["step", "peak", "warmup", "total", "floor"]
for dropped in ("peak", "warmup", "total", "floor"):
    add(f"AC2-lr-memo-drops-{dropped}", "lr_at", memo("lr_at", "lr_at", LR, keep=[p for p in LR if p != dropped]),
        f"AC: lr_at memoized on every argument but {dropped}")
add("AC4-loss-memo-drops-eps", "sentence_loss",
    memo("sentence_loss", "sentence_smoothed_loss", ["logits", "targets", "eps"], keep=["logits", "targets"]),
    "AC: the loss memoized on (id, _version) of logits and targets, not eps")
SD = ["next_logprobs", "starts", "max_len", "temperature", "top_k", "generator"]
for dropped in ("temperature", "top_k", "max_len", "next_logprobs"):
    add(f"AC6-rows-memo-drops-{dropped}", "sample", swap("sample",
        "        scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature\n"
        "        if top_k is not None and top_k < scores.shape[-1]:\n"
        "            kept = scores.topk(top_k, dim=-1).indices\n"
        "            scores = torch.full_like(scores, float(\"-inf\")).scatter(-1, kept, scores.gather(-1, kept))\n"
        "        probs = torch.softmax(scores.double(), dim=-1)\n",
        "        prefixes = [[starts[i]] + outs[i] for i in live]\n"
        f"        key = (tuple(map(tuple, prefixes)), {', '.join('id(next_logprobs)' if a == 'next_logprobs' else a for a in SD[2:5] + ['next_logprobs'] if a != dropped)})\n"
        "        if key not in PROBS:\n"
        "            scores = next_logprobs(prefixes) / temperature\n"
        "            if top_k is not None and top_k < scores.shape[-1]:\n"
        "                kept = scores.topk(top_k, dim=-1).indices\n"
        "                scores = torch.full_like(scores, float(\"-inf\")).scatter(-1, kept, scores.gather(-1, kept))\n"
        "            PROBS[key] = torch.softmax(scores.double(), dim=-1)\n"
        "        probs = PROBS[key].clone()\n",
        "def sample_decode(", "PROBS = {}\ndef sample_decode("),
        f"AC: the probabilities of each step memoized per prefixes and every argument but {dropped}")
BS = ["next_logprobs", "start", "k", "max_len", "alpha"]
for dropped in ("alpha", "k", "max_len", "start"):
    add(f"AC7-beam-memo-drops-{dropped}", "beam_search",
        memo("beam_search", "beam_search", BS, keep=[p for p in BS if p != dropped]),
        f"AC: the beam search memoized on every argument but {dropped}")
add("AC8-bleu-memo-drops-references", "bleu", swap("bleu", "def corpus_bleu(hypotheses, references):\n",
    "MEMO = {}\ndef corpus_bleu(hypotheses, references):\n"
    "    key = tuple(map(tuple, hypotheses))\n"
    "    if key not in MEMO:\n"
    "        MEMO[key] = corpus_bleu_uncached(hypotheses, references)\n"
    "    return MEMO[key]\n"
    "def corpus_bleu_uncached(hypotheses, references):\n"),
    "AC: BLEU memoized on the hypotheses' tokens only, not the references")
add("AC8-bleu-memo-drops-hypotheses", "bleu", swap("bleu", "def corpus_bleu(hypotheses, references):\n",
    "MEMO = {}\ndef corpus_bleu(hypotheses, references):\n"
    "    key = tuple(map(tuple, references))\n"
    "    if key not in MEMO:\n"
    "        MEMO[key] = corpus_bleu_uncached(hypotheses, references)\n"
    "    return MEMO[key]\n"
    "def corpus_bleu_uncached(hypotheses, references):\n"),
    "AC: BLEU memoized on the references' tokens only, not the hypotheses")

# ---------------------------------------------------------------- AD: whole-batch shortcuts
add("AD6-all-rows-certain-no-draw", "sample", swap("sample",
    "        drawn = torch.multinomial(probs, 1, generator=generator).flatten().tolist()\n",
    "        if bool((probs == 1).any(dim=-1).all()):\n"
    "            drawn = probs.argmax(dim=-1).tolist()\n"
    "        else:\n"
    "            drawn = torch.multinomial(probs, 1, generator=generator).flatten().tolist()\n"),
    "AD: a step where every row's draw is certain answered by argmax without drawing (the generator not moved)")
add("AD8-identical-corpus-100", "bleu", swap("bleu", "    matches, totals = [0] * 4, [0] * 4\n",
    "    if list(map(list, hypotheses)) == list(map(list, references)):\n        return 100.0\n"
    "    matches, totals = [0] * 4, [0] * 4\n"),
    "AD: a corpus whose every hypothesis equals its reference answered 100 (0 when every sentence has < 4 tokens)")
add("AD5-all-integer-states-last-dict", "average", swap("average", "    out = {}\n",
    "    if not any(t.is_floating_point() for t in states[-1].values()):\n        return states[-1]\n    out = {}\n"),
    "AD: states with no floating entry answered with the last dict itself (text: a new dict)")
add("AC4-loss-memo-by-values-drops-eps", "sentence_loss", swap("sentence_loss",
    "def sentence_smoothed_loss(logits, targets, eps):\n",
    "MEMO = {}\ndef sentence_smoothed_loss(logits, targets, eps):\n"
    "    key = (tuple(logits.shape), float(logits.detach().double().sum()), float(logits.detach().double().square().sum()),\n"
    "           tuple(targets.flatten().tolist()))\n"
    "    if key not in MEMO or MEMO[key][0]() is not logits:\n"
    "        import weakref\n"
    "        MEMO.clear()\n"
    "        MEMO[key] = (weakref.ref(logits), sentence_smoothed_loss_computed(logits, targets, eps))\n"
    "    return MEMO[key][1].clone()\n"
    "def sentence_smoothed_loss_computed(logits, targets, eps):\n"),
    "AC: the loss memoized on the values of logits and targets (the same logits object), not eps")
