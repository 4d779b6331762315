"""Round 26 class sweep, chapter 05: classes R (size-1 axis beside a longer one), S (views through
non-contiguous layouts), T (inputs that start inside their storage) and U (allowed answers too slow).
Each variant is the model answer with the smallest change that makes its class's mistake."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "05-encoder-decoder" / "exercises.ipynb").read_text())
MODEL = {}
for _c in _NB["cells"]:
    _m = _c.get("metadata", {}).get("nbgrader", {})
    if _m.get("solution") and not _m.get("grade"):
        MODEL[_m["grade_id"]] = "".join(l for l in "".join(_c["source"]).splitlines(True)
                                        if "### BEGIN SOLUTION" not in l and "### END SOLUTION" not in l)


def entry(gid, *lines):
    """The model answer with lines put at the start of its function's body."""
    out, done = [], False
    for line in MODEL[gid].splitlines(True):
        out.append(line)
        if not done and line.startswith("def "):
            out += ["    " + l + "\n" for l in lines]
            done = True
    return "\n" + "".join(out)


def swap(gid, old, new):
    assert old in MODEL[gid], (gid, old)
    return "\n" + MODEL[gid].replace(old, new)


def strided(name):
    # class T: a view rebuilt from the storage's start (storage_offset 0), right for every input that starts there
    return f"{name} = torch.as_strided({name}, {name}.shape, {name}.stride(), 0)"


SUBMISSIONS = [
    # ---- Part 1: rms_norm
    {"name": "T1-rms-x-from-storage-start", "correct": False, "cells": {"rms_norm": entry("rms_norm", strided("x"))},
     "why": "T: x rebuilt with as_strided from its storage's start"},
    {"name": "T1-rms-weight-from-storage-start", "correct": False,
     "cells": {"rms_norm": entry("rms_norm", strided("weight"))},
     "why": "T: weight rebuilt with as_strided from its storage's start (a row of a table of weights)"},
    {"name": "S1-rms-view-flat", "correct": False, "cells": {"rms_norm": swap(
        "rms_norm", "    x32 = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x\n",
        "    x32 = (x.float() if x.dtype in (torch.float16, torch.bfloat16) else x).view(-1, x.shape[-1])\n").replace(
        "return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype)",
        "return (x32 * inv_rms * weight.to(x32.dtype)).to(x.dtype).view(x.shape)")},
     "why": "S: view(-1, D) of x (raises where the leading axes cannot merge)"},
    {"name": "U1-rms-row-loop", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    flat = x.to(work).reshape(-1, x.shape[-1])
    w = weight.to(work)
    rows = [row * torch.rsqrt((row * row).mean() + eps) * w for row in flat]
    out = torch.stack(rows) if rows else flat * w
    return out.reshape(x.shape).to(x.dtype)
'''}, "why": "U: a Python loop over the rows (the text does not forbid one)"},
    # ---- Part 2: modern_params
    {"name": "U2-params-layer-loop", "correct": True, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    total = 2 * vocab * d_model
    for _ in range(n_enc):
        total += 4 * d_model * d_model + 3 * d_model * d_ff + 2 * d_model
    for _ in range(n_dec):
        total += 8 * d_model * d_model + 3 * d_model * d_ff + 3 * d_model
    return total + 2 * d_model
'''}, "why": "U: a loop over the layers"},
    # ---- Part 3: cache counts
    {"name": "U3-prefill-chunk-loop", "correct": True, "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total, start = 0, 0
    while start < prompt_len:
        m = min(chunk, prompt_len - start)
        total += m * (start + m)
        start += m
    return total * layers * heads
'''}, "why": "U: a loop over the chunks (allowed by the text)"},
    {"name": "U3-request-token-loop", "correct": True, "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += layers * heads * (prompt_len + j)
    return total
'''}, "why": "U: a loop over the generated tokens (allowed by the text)"},
    # ---- Part 4: packed_masks
    {"name": "T4-src-from-storage-start", "correct": False,
     "cells": {"packed_masks": entry("packed_masks", strided("src_segments"))}, "why": "T: src_segments"},
    {"name": "T4-tgt-from-storage-start", "correct": False,
     "cells": {"packed_masks": entry("packed_masks", strided("tgt_segments"))}, "why": "T: tgt_segments"},
    {"name": "S4-segments-flat-view", "correct": False, "cells": {"packed_masks": entry(
        "packed_masks", "src_segments = src_segments.view(-1).view(src_segments.shape)",
        "tgt_segments = tgt_segments.view(-1).view(tgt_segments.shape)")},
     "why": "S: both segment tensors flattened with view (raises on a transposed layout)"},
    {"name": "U4-pair-block-loop", "correct": True, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    src_allowed = torch.zeros(B, S, S, dtype=torch.bool)
    tgt_allowed = torch.zeros(B, T, T, dtype=torch.bool)
    cross_allowed = torch.zeros(B, T, S, dtype=torch.bool)
    for b in range(B):
        spans = []
        for row in (src_segments[b].tolist(), tgt_segments[b].tolist()):
            span = {}
            for i, k in enumerate(row):
                if k != 0:
                    span[k] = (span[k][0], i + 1) if k in span else (i, i + 1)
            spans.append(span)
        src_span, tgt_span = spans
        for k, (lo, hi) in src_span.items():
            src_allowed[b, lo:hi, lo:hi] = True
            if k in tgt_span:
                tlo, thi = tgt_span[k]
                cross_allowed[b, tlo:thi, lo:hi] = True
        for k, (lo, hi) in tgt_span.items():
            tgt_allowed[b, lo:hi, lo:hi] = torch.ones(hi - lo, hi - lo, dtype=torch.bool).tril()
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "U: a loop over rows and pairs, filling each pair's block (pairs are contiguous)"},
    # ---- Part 5: sandwich
    {"name": "T5-y-from-storage-start", "correct": False, "cells": {"sandwich": entry("sandwich", strided("y"))},
     "why": "T: y"},
    {"name": "T5-memory-from-storage-start", "correct": False,
     "cells": {"sandwich": entry("sandwich", strided("memory"))}, "why": "T: memory"},
    {"name": "T5-self-mask-from-storage-start", "correct": False, "cells": {"sandwich": entry(
        "sandwich", "self_allowed = None if self_allowed is None else torch.as_strided(self_allowed, self_allowed.shape, self_allowed.stride(), 0)")},
     "why": "T: self_allowed"},
    {"name": "T5-memory-mask-from-storage-start", "correct": False, "cells": {"sandwich": entry(
        "sandwich", "memory_allowed = None if memory_allowed is None else torch.as_strided(memory_allowed, memory_allowed.shape, memory_allowed.stride(), 0)")},
     "why": "T: memory_allowed"},
    {"name": "S5-memory-flat-view", "correct": False, "cells": {"sandwich": entry(
        "sandwich", "memory = memory.view(-1, memory.shape[-1]).view(memory.shape)")},
     "why": "S: memory flattened with view"},
    # ---- Part 6: cached attention
    {"name": "T6-x-new-from-storage-start", "correct": False,
     "cells": {"cached_attention": entry("cached_attention", strided("x_new"))}, "why": "T: x_new"},
    {"name": "T6-cache-from-storage-start", "correct": False, "cells": {"cached_attention": swap(
        "cached_attention", '        k, v = torch.cat([cache["k"], k], dim=2)',
        '        ck, cv = cache["k"], cache["v"]\n'
        '        ck, cv = torch.as_strided(ck, ck.shape, ck.stride(), 0), torch.as_strided(cv, cv.shape, cv.stride(), 0)\n'
        '        k, v = torch.cat([ck, k], dim=2)').replace('torch.cat([cache["v"], v], dim=2)', 'torch.cat([cv, v], dim=2)')},
     "why": "T: the caller's cached keys and values rebuilt from their storage's start"},
    {"name": "T6-w-qkv-from-storage-start", "correct": False, "cells": {"cached_attention": swap(
        "cached_attention", '(w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)',
        'wqkv = torch.as_strided(params["w_qkv"], params["w_qkv"].shape, params["w_qkv"].stride(), 0)\n'
        '    (w_q, w_k, w_v), (b_q, b_k, b_v) = wqkv.chunk(3), params["b_qkv"].chunk(3)')},
     "why": "T: the weight from its storage's start"},
    {"name": "U6-query-loop", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    b, n, d = x_new.shape
    dh = d // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.reshape(b, n, NUM_HEADS, dh).transpose(1, 2)
    q, k, v = split(x_new @ w_q.T + b_q), split(x_new @ w_k.T + b_k), split(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    outs = []
    for i in range(n):
        seen = past + i + 1
        scores = q[:, :, i:i + 1] @ k[:, :, :seen].transpose(-2, -1) / math.sqrt(dh)
        outs.append(torch.softmax(scores, dim=-1) @ v[:, :, :seen])
    heads = torch.cat(outs, dim=2) if outs else q * 0
    return heads.transpose(1, 2).reshape(b, n, d) @ params["w_o"].T + params["b_o"]
'''}, "why": "U: a Python loop over the new positions, each against its own prefix"},
]

# The blind helpers' class sweep of 8f6962a (R and S, 05-sweep-subs.py, all caught there), regraded with these
# variants after the fixes (05-sweep-after.txt); 05-sweep.txt graded this file's own variants only
import importlib.util as _util  # noqa: E402

_spec = _util.spec_from_file_location("_blind_sweep", Path(__file__).with_name("05-sweep-subs.py"))
_blind = _util.module_from_spec(_spec)
_spec.loader.exec_module(_blind)
SUBMISSIONS += _blind.SUBMISSIONS
