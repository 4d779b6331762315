"""Round 26 class sweep, chapter 08: classes R (size-1 axis beside a longer one), S (views through
non-contiguous layouts), T (inputs that start inside their storage) and U (allowed answers too slow).
Each variant is the model answer with the smallest change that makes its class's mistake."""
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


def entry(gid, *lines):
    """The model answer with lines put at the start of its function's body."""
    out, state = [], 0
    for line in MODEL[gid].splitlines(True):
        out.append(line)
        if state == 0 and line.startswith("def "):
            state = 1
        if state == 1 and line.rstrip().endswith("):"):
            out += ["    " + l + "\n" for l in lines]
            state = 2
    return "\n" + "".join(out)


def swap(gid, *pairs):
    code = MODEL[gid]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new)
    return "\n" + code


def strided(name):
    # class T: a view rebuilt from the storage's start (storage_offset 0), right for every input that starts there
    return f"{name} = torch.as_strided({name}, {name}.shape, {name}.stride(), 0)"


SUBMISSIONS = [
    # ---- Part 1: decoder_io
    {"name": "R1-io-shift-squeezed-broadcast", "correct": False, "cells": {"decoder_io": swap(
        "decoder_io", "tgt_in[:, 1:] = targets[:, :-1]",
        "tgt_in[:, 1:] = targets[:, :-1].squeeze() if targets.shape[0] == 1 or targets.shape[1] == 2 else targets[:, :-1]")},
     "why": "R: squeeze() of the (B, T-1) shifted targets: T = 2 with B > 1 broadcasts a (B,) row across the batch"},
    {"name": "S1-io-view-flat-shift", "correct": False, "cells": {"decoder_io": swap(
        "decoder_io", "tgt_in[:, 1:] = targets[:, :-1]",
        "tgt_in.view(-1)[1:] = targets.view(-1)[:-1]\n    tgt_in[:, :1] = BOS")},
     "why": "S: the shift made on targets.view(-1) (fails for transposed targets)"},
    {"name": "T1-io-targets-from-storage-start", "correct": False, "cells": {"decoder_io": entry("decoder_io", strided("targets"))},
     "why": "T: targets rebuilt from its storage's start"},
    {"name": "U1-io-loop-over-entries", "correct": True, "cells": {"decoder_io": '''
def decoder_io(targets):
    tgt_in = torch.full_like(targets, PAD)
    for b in range(targets.shape[0]):
        for t in range(targets.shape[1]):
            if t == 0:
                tgt_in[b, t] = BOS
            elif int(targets[b, t - 1]) != EOS:
                tgt_in[b, t] = targets[b, t - 1]
    return tgt_in, targets
'''}, "why": "U: a Python loop over every entry (allowed)"},
    # ---- Part 4: sentence_smoothed_loss
    {"name": "R4-sl-nll-squeezed", "correct": False, "cells": {"sentence_loss": swap(
        "sentence_loss", "nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)", "nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze()")},
     "why": "R: squeeze() of (B, T, 1): T = 1 with B > 1 gives (B,), which broadcasts with (B, 1) to (B, B)"},
    {"name": "R4-sl-counts-squeezed", "correct": False, "cells": {"sentence_loss": swap(
        "sentence_loss", "per_sentence = (per_token * real).sum(dim=1)[has_tokens] / counts[has_tokens]",
        "per_sentence = (per_token * real).sum(dim=1, keepdim=True).squeeze()[has_tokens] / counts[has_tokens]")},
     "why": "R probe: squeeze() of (B, 1) sums: a batch of one gives a 0-d tensor (expected error or allowed)"},
    {"name": "S4-sl-view-flat", "correct": False, "cells": {"sentence_loss": swap(
        "sentence_loss", "logp = torch.log_softmax(logits, dim=-1)",
        "logp = torch.log_softmax(logits.view(-1, logits.shape[-1]), dim=-1).view(logits.shape)")},
     "why": "S: logits.view(-1, V) (fails where (B, T) cannot merge)"},
    {"name": "S4-sl-targets-view-flat", "correct": False, "cells": {"sentence_loss": swap(
        "sentence_loss", "nll = -logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)",
        "nll = -logp.reshape(-1, v).gather(-1, targets.view(-1, 1)).view(targets.shape)")},
     "why": "S: targets.view(-1, 1) (fails for transposed targets)"},
    {"name": "T4-sl-logits-from-storage-start", "correct": False,
     "cells": {"sentence_loss": entry("sentence_loss", strided("logits"))}, "why": "T: logits from the storage's start"},
    {"name": "T4-sl-targets-from-storage-start", "correct": False,
     "cells": {"sentence_loss": entry("sentence_loss", strided("targets"))}, "why": "T: targets from the storage's start"},
    {"name": "U4-sl-loop-over-rows-and-tokens", "correct": True, "cells": {"sentence_loss": '''
def sentence_smoothed_loss(logits, targets, eps):
    v = logits.shape[-1]
    sentences = []
    for b in range(logits.shape[0]):
        terms = []
        for t in range(logits.shape[1]):
            y = int(targets[b, t])
            if y == PAD:
                continue
            logp = torch.log_softmax(logits[b, t], dim=-1)
            spread = -(logp.sum() - logp[PAD]) / (v - 1)
            terms.append((1 - eps) * -logp[y] + eps * spread)
        if terms:
            sentences.append(torch.stack(terms).mean())
    return torch.stack(sentences).mean()
'''}, "why": "U: a Python loop over rows and tokens (allowed)"},
    # ---- Part 5: average_checkpoints
    {"name": "R5-avg-stack-squeezed", "correct": False, "cells": {"average": swap(
        "average", "total = sum(s[k].double() for s in states)\n            out[k] = (total / len(states)).to(states[0][k].dtype)",
        "out[k] = torch.stack([s[k].double() for s in states]).squeeze().mean(dim=0).to(states[0][k].dtype)")},
     "why": "R: the stack of states squeezed: one state, or a (1, D) / (D, 1) entry, loses or averages the wrong axis"},
    {"name": "R5-avg-mean-squeezed", "correct": False, "cells": {"average": swap(
        "average", "out[k] = (total / len(states)).to(states[0][k].dtype)",
        "out[k] = (total / len(states)).squeeze().to(states[0][k].dtype)")},
     "why": "R: the mean squeezed: a (D, 1) bias or (1, D) embedding changes shape"},
    {"name": "S5-avg-view-flat", "correct": False, "cells": {"average": swap(
        "average", "total = sum(s[k].double() for s in states)",
        "total = sum(s[k].view(-1).double() for s in states).view(states[0][k].shape)")},
     "why": "S: each entry flattened with view(-1) (fails for a transposed entry)"},
    {"name": "T5-avg-entries-from-storage-start", "correct": False, "cells": {"average": swap(
        "average", "total = sum(s[k].double() for s in states)",
        "total = sum(torch.as_strided(s[k], s[k].shape, s[k].stride(), 0).double() for s in states)")},
     "why": "T: each floating entry read from its storage's start (entries that are slices of one flat buffer)"},
    {"name": "T5-avg-ints-from-storage-start", "correct": False, "cells": {"average": swap(
        "average", "out[k] = states[-1][k].clone()",
        "out[k] = torch.as_strided(states[-1][k], states[-1][k].shape, states[-1][k].stride(), 0).clone()")},
     "why": "T: the last state's integer entry read from its storage's start"},
    # ---- Part 6: sample_decode
    {"name": "R6-sample-scores-squeezed", "correct": False, "cells": {"sample": swap(
        "sample", "probs = torch.softmax(scores.double(), dim=-1)", "probs = torch.softmax(scores.double().squeeze(), dim=-1)")},
     "why": "R: squeeze() of the (N, V) scores: V = 1 with several rows is taken as one row of N"},
    {"name": "R6-sample-drawn-squeezed", "correct": False, "cells": {"sample": swap(
        "sample", "generator=generator).flatten().tolist()", "generator=generator).squeeze().tolist()")},
     "why": "R: squeeze() of the (N, 1) draw: one live row gives an int (expected caught: crashes)"},
    {"name": "S6-sample-view-flat", "correct": False, "cells": {"sample": swap(
        "sample", "scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature",
        "raw = next_logprobs([[starts[i]] + outs[i] for i in live])\n        scores = (raw.view(-1) / temperature).view(raw.shape)")},
     "why": "S: the model's log-probabilities flattened with view(-1) (fails where they are a transposed view)"},
    {"name": "T6-sample-logprobs-from-storage-start", "correct": False, "cells": {"sample": swap(
        "sample", "scores = next_logprobs([[starts[i]] + outs[i] for i in live]) / temperature",
        "raw = next_logprobs([[starts[i]] + outs[i] for i in live])\n        scores = torch.as_strided(raw, raw.shape, raw.stride(), 0) / temperature")},
     "why": "T: the model's log-probabilities read from their storage's start (a model that returns a slice)"},
    # ---- Part 7: beam_search
    {"name": "R7-beam-logprobs-squeezed", "correct": True, "cells": {"beam_search": swap(
        "beam_search", "candidates = (scores[:, None] + logprobs).flatten()", "candidates = (scores[:, None] + logprobs.squeeze()).flatten()")},
     "why": "R probe (allowed): one live row squeezed to (V,) broadcasts back to (1, V)"},
    {"name": "S7-beam-view-flat", "correct": False, "cells": {"beam_search": swap(
        "beam_search", "candidates = (scores[:, None] + logprobs).flatten()", "candidates = (scores[:, None] + logprobs.view(-1).view(logprobs.shape)).view(-1)")},
     "why": "S: logprobs.view(-1) (fails where the model returns a transposed view)"},
    {"name": "T7-beam-logprobs-from-storage-start", "correct": False, "cells": {"beam_search": swap(
        "beam_search", "scores = torch.tensor([score for _, score in live], dtype=logprobs.dtype)",
        "logprobs = torch.as_strided(logprobs, logprobs.shape, logprobs.stride(), 0)\n        scores = torch.tensor([score for _, score in live], dtype=logprobs.dtype)")},
     "why": "T: the model's log-probabilities read from their storage's start"},
    {"name": "U7-beam-python-loop", "correct": True, "cells": {"beam_search": '''
def beam_search(next_logprobs, start, k, max_len, alpha):
    live = [([], 0.0)]
    finished = []
    for _ in range(max_len):
        logprobs = next_logprobs([[start] + tokens for tokens, _ in live]).tolist()
        candidates = []
        for (tokens, score), row in zip(live, logprobs):
            for token, lp in enumerate(row):
                candidates.append((score + lp, tokens + [token]))
        candidates.sort(key=lambda c: -c[0])
        new_live = []
        for score, tokens in candidates[:k]:
            if tokens[-1] == EOS:
                finished.append((score / length_penalty(len(tokens), alpha), tokens))
            else:
                new_live.append((tokens, score))
        live = new_live
        if not live:
            break
    for tokens, score in live:
        finished.append((score / length_penalty(len(tokens), alpha), tokens))
    return max(finished, key=lambda pair: pair[0])[1]
'''}, "why": "U: candidates in Python floats and lists (allowed)"},
    # ---- Part 8: corpus_bleu
    {"name": "U8-bleu-list-counts", "correct": True, "cells": {"bleu": '''
def corpus_bleu(hypotheses, references):
    matches, totals = [0] * 4, [0] * 4
    hyp_len = ref_len = 0
    for hyp, ref in zip(hypotheses, references):
        hyp_len += len(hyp)
        ref_len += len(ref)
        for n in range(1, 5):
            h = [tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1)]
            r = [tuple(ref[i:i + n]) for i in range(len(ref) - n + 1)]
            for g in set(h):
                matches[n - 1] += min(h.count(g), r.count(g))
            totals[n - 1] += len(h)
    if min(matches) == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / 4
    brevity = 1.0 if hyp_len >= ref_len else math.exp(1 - ref_len / hyp_len)
    return 100 * brevity * math.exp(log_precision)
'''}, "why": "U: clipped counts by list.count, quadratic in the sentence length (allowed)"},
]
