"""Round 26 class sweep, chapter 09: classes R (size-1 axis beside a longer one), S (views through
non-contiguous layouts), T (inputs that start inside their storage) and U (allowed answers too slow).
Each variant is the model answer with the smallest change that makes its class's mistake."""
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
    # ---- Part 1: head_rms_norm
    {"name": "R1-rms-inv-rms-squeezed", "correct": False, "cells": {"head_rms_norm": swap(
        "head_rms_norm", ".mean(dim=-1, keepdim=True) + eps).to(work)", ".mean(dim=-1).squeeze() + eps).to(work)[..., None]")},
     "why": "R: the (..., T, H) mean squeezed with no dim, then unsqueezed: T = 1 or H = 1 beside B > 1 lines up wrong"},
    {"name": "R1-rms-x-squeezed-then-transposed", "correct": False, "cells": {"head_rms_norm": swap(
        "head_rms_norm", "heads = x.to(work).unflatten(", "heads = x.to(work).squeeze().unflatten(",
        "return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)",
        "return (heads * inv_rms * scale).transpose(-3, -2).reshape(*x.shape[:-2], n_heads, x.shape[-2], -1).to(x.dtype)")},
     "why": "R: x.squeeze() drops T = 1 (or a batch of one); the transpose then swaps the batch with the heads"},
    {"name": "S1-rms-view-leading", "correct": False, "cells": {"head_rms_norm": swap(
        "head_rms_norm", "heads = x.to(work).unflatten(", "heads = x.to(work).view(-1, *x.shape[-2:]).unflatten(",
        "return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)",
        "return (heads * inv_rms * scale).transpose(-3, -2).reshape(*x.shape[:-2], n_heads, x.shape[-2], -1).to(x.dtype)")},
     "why": "S: view(-1, T, H*Dh) merges the leading axes (fails where they cannot merge)"},
    {"name": "S1-rms-view-split-last", "correct": True, "cells": {"head_rms_norm": swap(
        "head_rms_norm", "heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))",
        "heads = x.to(work).view(*x.shape[:-1], n_heads, x.shape[-1] // n_heads)")},
     "why": "S probe (allowed): view splitting only the last axis works at any strides"},
    {"name": "T1-rms-x-from-storage-start", "correct": False, "cells": {"head_rms_norm": entry("head_rms_norm", strided("x"))},
     "why": "T: x rebuilt with as_strided from its storage's start"},
    {"name": "T1-rms-weight-from-storage-start", "correct": False,
     "cells": {"head_rms_norm": entry("head_rms_norm", strided("weight"))},
     "why": "T: weight rebuilt with as_strided from its storage's start (a row of a table of weights)"},
    {"name": "U1-rms-loop-over-heads", "correct": True, "cells": {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:
        raise ValueError("bad heads")
    dh = x.shape[-1] // n_heads
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    outs = []
    for h in range(n_heads):
        xh = x[..., h * dh:(h + 1) * dh]
        inv = torch.rsqrt(xh.double().square().mean(dim=-1, keepdim=True) + eps).to(work)
        outs.append(xh.to(work) * inv * scale)
    return torch.stack(outs, dim=-3).to(x.dtype)
'''}, "why": "U: a Python loop over the heads (allowed)"},
    {"name": "U1-rms-loop-over-rows", "correct": True, "cells": {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:
        raise ValueError("bad heads")
    dh = x.shape[-1] // n_heads
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    flat = x.reshape(-1, n_heads, dh)
    rows = []
    for r in range(flat.shape[0]):
        xr = flat[r]
        inv = torch.rsqrt(xr.double().square().mean(dim=-1, keepdim=True) + eps).to(work)
        rows.append(xr.to(work) * inv * scale)
    out = torch.stack(rows) if rows else flat.to(work) * scale
    return out.reshape(*x.shape[:-1], n_heads, dh).transpose(-3, -2).to(x.dtype)
'''}, "why": "U: a Python loop over every (batch, position) row (allowed)"},
    # ---- Part 2: fused_swiglu
    {"name": "R2-swiglu-weights-squeezed", "correct": False, "cells": {"fused_swiglu": entry(
        "fused_swiglu", "w_gate_up, w_down = w_gate_up.squeeze(), w_down.squeeze()")},
     "why": "R: squeeze() of the weights: F = 1 (w_down (D, 1)) or D = 1 beside a longer axis breaks the products"},
    {"name": "R2-swiglu-x-squeezed", "correct": False, "cells": {"fused_swiglu": swap(
        "fused_swiglu", "both = x.to(work) @", "both = x.to(work).squeeze() @",
        "@ w_down.to(work).T).to(x.dtype)", "@ w_down.to(work).T).to(x.dtype).unsqueeze(-2) if x.dim() > 2 and x.shape[-2] == 1 else ((gate * torch.sigmoid(beta * gate) * up) @ w_down.to(work).T).to(x.dtype)")},
     "why": "R: x.squeeze() then the T axis put back: a batch of one, or (B, 1, D) with ... more axes, drops an axis"},
    {"name": "S2-swiglu-view-flat", "correct": False, "cells": {"fused_swiglu": swap(
        "fused_swiglu", "both = x.to(work) @", "both = x.to(work).view(-1, x.shape[-1]) @",
        "@ w_down.to(work).T).to(x.dtype)", "@ w_down.to(work).T).to(x.dtype).view(x.shape)")},
     "why": "S: x.view(-1, D) (fails where the leading axes cannot merge)"},
    {"name": "S2-swiglu-weight-view-split", "correct": True, "cells": {"fused_swiglu": swap(
        "fused_swiglu", "gate, up = both[..., 0::2], both[..., 1::2]",
        "pair = (x.to(work) @ w_gate_up.to(work).view(-1, 2, w_gate_up.shape[-1])[:, 0].T, x.to(work) @ w_gate_up.to(work).view(-1, 2, w_gate_up.shape[-1])[:, 1].T)\n        gate, up = pair")},
     "why": "S probe (allowed): w_gate_up.view(F, 2, D) splits one axis, which view does at any strides"},
    {"name": "T2-swiglu-x-from-storage-start", "correct": False, "cells": {"fused_swiglu": entry("fused_swiglu", strided("x"))},
     "why": "T: x rebuilt from its storage's start"},
    {"name": "T2-swiglu-wgu-from-storage-start", "correct": False,
     "cells": {"fused_swiglu": entry("fused_swiglu", strided("w_gate_up"))}, "why": "T: w_gate_up from its storage's start"},
    {"name": "T2-swiglu-wdown-from-storage-start", "correct": False,
     "cells": {"fused_swiglu": entry("fused_swiglu", strided("w_down"))}, "why": "T: w_down from its storage's start"},
    {"name": "U2-swiglu-loop-over-hidden-units", "correct": True, "cells": {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    xw, wgu, wd = x.to(work), w_gate_up.to(work), w_down.to(work)
    f = wgu.shape[0] // 2
    out = None
    for j in range(f):
        gi, ui = (2 * j, 2 * j + 1) if interleaved else (j, f + j)
        g = xw @ wgu[gi]
        u = xw @ wgu[ui]
        if limit is not None:
            g = g.clamp(max=limit)
            u = u.clamp(min=-limit, max=limit)
        term = (g * torch.sigmoid(beta * g) * u)[..., None] * wd[:, j]
        out = term if out is None else out + term
    if out is None:
        out = (xw @ wgu.T)[..., :0] @ wd.T
    return out.to(x.dtype)
'''}, "why": "U: a Python loop over the hidden units (allowed)"},
    # ---- Part 4: masked_lm_loss
    {"name": "R4-loss-rows-squeezed", "correct": False, "cells": {"masked_lm_loss": swap(
        "masked_lm_loss", "scores = logits[:, :-1][chosen].to(work)",
        "scores = logits[:, :-1].squeeze()[chosen.squeeze()].to(work)")},
     "why": "R: squeeze() of the (B, T-1, V) scores and the mask: V = 1 drops the vocabulary axis"},
    {"name": "R4-loss-picked-squeezed", "correct": False, "cells": {"masked_lm_loss": swap(
        "masked_lm_loss", "picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)",
        "picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze()")},
     "why": "R probe: squeeze() of (count, 1): a 0-d tensor at count = 1, which broadcasts right (expected allowed)"},
    {"name": "S4-loss-view-flat", "correct": False, "cells": {"masked_lm_loss": swap(
        "masked_lm_loss", "scores = logits[:, :-1][chosen].to(work)",
        "scores = logits.view(-1, logits.shape[-1])[torch.cat([chosen, torch.zeros_like(chosen[:, :1])], 1).view(-1)].to(work)")},
     "why": "S: logits.view(-1, V) (fails where (B, T) cannot merge)"},
    {"name": "T4-loss-logits-from-storage-start", "correct": False,
     "cells": {"masked_lm_loss": entry("masked_lm_loss", strided("logits"))}, "why": "T: logits from the storage's start"},
    {"name": "T4-loss-ids-from-storage-start", "correct": False,
     "cells": {"masked_lm_loss": entry("masked_lm_loss", strided("ids"))}, "why": "T: ids from the storage's start"},
    {"name": "T4-loss-mask-from-storage-start", "correct": False,
     "cells": {"masked_lm_loss": entry("masked_lm_loss", strided("target_mask"))}, "why": "T: target_mask from the storage's start"},
    {"name": "U4-loss-loop-over-tokens", "correct": True, "cells": {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    total, count = None, 0
    for b in range(logits.shape[0]):
        for t in range(1, logits.shape[1]):
            if bool(target_mask[b, t]):
                row = logits[b, t - 1].to(work)
                log_z = torch.logsumexp(row, dim=-1)
                term = log_z - row[int(ids[b, t])] + z_loss * log_z * log_z
                total = term if total is None else total + term
                count += 1
    if count == 0:
        return torch.zeros((), dtype=work), 0
    return total / count, count
'''}, "why": "U: a Python loop over every predicted token (allowed)"},
    # ---- Part 6: rope_llama3
    {"name": "R6-rope-positions-squeezed", "correct": False, "cells": {"rope_llama3": swap(
        "rope_llama3", "angle = positions.to(torch.float64)[:, None, :, None] * theta",
        "angle = positions.squeeze().to(torch.float64)[..., None, :, None] * theta")},
     "why": "R: positions.squeeze(): T = 1 with B > 1 turns (B, 1) into (B,), broadcast to (B, H, B, Dh)"},
    {"name": "R6-rope-x-squeezed", "correct": False, "cells": {"rope_llama3": swap(
        "rope_llama3", "first, second = x.to(torch.float64).chunk(2, dim=-1)",
        "first, second = x.to(torch.float64).squeeze().chunk(2, dim=-1)",
        "return out.to(x.dtype)", "return out.reshape(x.shape).to(x.dtype)")},
     "why": "R: x.squeeze() (one head, T = 1) then broadcast with the angles and reshaped back"},
    {"name": "S6-rope-view-bh", "correct": False, "cells": {"rope_llama3": swap(
        "rope_llama3", "first, second = x.to(torch.float64).chunk(2, dim=-1)",
        "first, second = x.to(torch.float64).view(b, -1, t, dh).chunk(2, dim=-1)",
        "return out.to(x.dtype)", "return out.view(x.shape).to(x.dtype)")},
     "why": "S probe: view(b, -1, t, dh) keeps the rank (works); expected allowed"},
    {"name": "S6-rope-view-merged", "correct": False, "cells": {"rope_llama3": swap(
        "rope_llama3", "first, second = x.to(torch.float64).chunk(2, dim=-1)",
        "first, second = x.to(torch.float64).view(-1, t, dh).unflatten(0, (b, -1)).chunk(2, dim=-1)")},
     "why": "S: view(-1, T, Dh) merges B and H (fails for x made as split_heads makes it)"},
    {"name": "T6-rope-x-from-storage-start", "correct": False, "cells": {"rope_llama3": entry("rope_llama3", strided("x"))},
     "why": "T: x from its storage's start"},
    {"name": "T6-rope-positions-from-storage-start", "correct": False,
     "cells": {"rope_llama3": entry("rope_llama3", strided("positions"))}, "why": "T: positions from the storage's start"},
    {"name": "U6-rope-loop-over-rows-and-positions", "correct": True, "cells": {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    b, h, t, dh = x.shape
    if dh % 2 or tuple(positions.shape) != (b, t):
        raise ValueError("bad shapes")
    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    wavelength = 2 * math.pi / theta
    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mixed = (1 - s) * theta / factor + s * theta
    theta = torch.where(wavelength < original_context / high_freq_factor, theta,
                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))
    xd = x.to(torch.float64)
    rows = []
    for i in range(b):
        cols = []
        for j in range(t):
            angle = int(positions[i, j]) * theta
            first, second = xd[i, :, j].chunk(2, dim=-1)
            cols.append(torch.cat([first * angle.cos() - second * angle.sin(), second * angle.cos() + first * angle.sin()], -1))
        rows.append(torch.stack(cols, dim=1) if cols else xd[i])
    out = torch.stack(rows) if rows else xd.clone()
    return out.to(x.dtype)
'''}, "why": "U: a Python loop over every row and position (allowed)"},
    # ---- Part 7: ragged_cached_attention
    {"name": "R7-ragged-mask-squeezed", "correct": False, "cells": {"ragged_cached_attention": swap(
        "ragged_cached_attention", "scores = scores.masked_fill(~allowed[:, None, None], float(\"-inf\"))",
        "allowed = allowed.squeeze()\n    scores = scores.masked_fill(~allowed[..., None, None, :, :] if allowed.dim() == 3 else ~allowed[:, None, None, None], float(\"-inf\"))")},
     "why": "R: squeeze() of the (B, T, S_max) mask: T = 1 with B > 1 taken as one row of T"},
    {"name": "R7-ragged-q-squeezed", "correct": False, "cells": {"ragged_cached_attention": swap(
        "ragged_cached_attention", "qg = q.reshape(b, g, h // g, t, dh)",
        "qg = q.squeeze().reshape(b, g, h // g, t, dh) if q.squeeze().dim() == 4 else q.squeeze()[:, None, None, None].expand(b, g, h // g, t, dh) if q.squeeze().dim() == 2 else q.reshape(b, g, h // g, t, dh)")},
     "why": "R: q.squeeze() (one head, T = 1), a 2-D rest taken as (B, Dh) and broadcast"},
    {"name": "S7-ragged-cache-view-write", "correct": False, "cells": {"ragged_cached_attention": swap(
        "ragged_cached_attention", "    k_cache.scatter_(2, index, k_new)\n    v_cache.scatter_(2, index, v_new)\n",
        "    k_cache.view(b * g, s_max, dh).scatter_(1, index.reshape(b * g, t, dh), k_new.reshape(b * g, t, dh))\n"
        "    v_cache.view(b * g, s_max, dh).scatter_(1, index.reshape(b * g, t, dh), v_new.reshape(b * g, t, dh))\n")},
     "why": "S: the write through a view merging (B, G) of the caches"},
    {"name": "S7-ragged-q-view-split", "correct": True, "cells": {"ragged_cached_attention": swap(
        "ragged_cached_attention", "qg = q.reshape(b, g, h // g, t, dh)", "qg = q.view(b, g, h // g, t, dh)")},
     "why": "S probe (allowed): view splitting the head axis works at any strides"},
    {"name": "T7-ragged-q-from-storage-start", "correct": False,
     "cells": {"ragged_cached_attention": entry("ragged_cached_attention", strided("q"))}, "why": "T: q from its storage's start"},
    {"name": "T7-ragged-knew-from-storage-start", "correct": False,
     "cells": {"ragged_cached_attention": entry("ragged_cached_attention", strided("k_new"), strided("v_new"))},
     "why": "T: k_new and v_new from their storages' start"},
    {"name": "T7-ragged-cache-from-storage-start", "correct": False,
     "cells": {"ragged_cached_attention": entry("ragged_cached_attention", strided("k_cache"), strided("v_cache"))},
     "why": "T: the caches from their storages' start (written at the wrong place)"},
    {"name": "T7-ragged-lengths-from-storage-start", "correct": False,
     "cells": {"ragged_cached_attention": entry("ragged_cached_attention", strided("lengths"))},
     "why": "T: lengths from its storage's start"},
    {"name": "U7-ragged-loop-over-rows", "correct": True, "cells": {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, t, dh = q.shape
    g, s_max = k_cache.shape[1], k_cache.shape[2]
    if h % g:
        raise ValueError("heads")
    if bool((lengths.long() + t > s_max).any()):
        raise ValueError("too long")
    lens = [int(n) for n in lengths]
    for i, n in enumerate(lens):
        k_cache[i, :, n:n + t] = k_new[i]
        v_cache[i, :, n:n + t] = v_new[i]
    outs = []
    for i, n in enumerate(lens):
        keys = k_cache[i, :, :n + t].repeat_interleave(h // g, dim=0)
        values = v_cache[i, :, :n + t].repeat_interleave(h // g, dim=0)
        scores = q[i] @ keys.transpose(-2, -1) / math.sqrt(dh)
        allowed = torch.ones(t, n + t, dtype=torch.bool).tril(diagonal=n)
        outs.append(scores.masked_fill(~allowed, float("-inf")).softmax(-1) @ values)
    out = torch.stack(outs) if outs else q.new_zeros(q.shape)
    return out.to(q.dtype), lengths + t
'''}, "why": "U: a Python loop over the rows (allowed: 'a loop over rows or heads is fine')"},
    {"name": "U7-ragged-mask-loop-over-keys", "correct": False, "cells": {"ragged_cached_attention": swap(
        "ragged_cached_attention", "    written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]  # (B, S_max)\n",
        "    written = torch.zeros(b, s_max, dtype=torch.bool)\n"
        "    for i in range(b):\n"
        "        for j in range(int(lengths[i]) + t):\n"
        "            written[i, j] = True\n")},
     "why": "U: a torch operation per cache position ('no Python loop over the cache's positions')"},
    # ---- Part 8: generate_with_cache
    {"name": "R8-gen-logits-squeezed", "correct": False, "cells": {"generate_with_cache": swap(
        "generate_with_cache", "scores = logits[:, -1].clone()  # (B, V)",
        "scores = (logits.squeeze() if logits.shape[1] == 1 else logits[:, -1]).clone()  # (B, V)")},
     "why": "R: squeeze() of the (B, 1, V) logits: a batch of one or V = 1 loses an axis"},
    {"name": "R8-gen-token-squeezed", "correct": False, "cells": {"generate_with_cache": swap(
        "generate_with_cache", "generator=generator)[:, 0]", "generator=generator).squeeze()")},
     "why": "R: the (B, 1) draw squeezed with no dim: a batch of one gives a 0-d token"},
    {"name": "S8-gen-logits-view", "correct": False, "cells": {"generate_with_cache": swap(
        "generate_with_cache", "scores = logits[:, -1].clone()  # (B, V)",
        "scores = logits.view(-1, logits.shape[-1])[logits.shape[1] - 1::logits.shape[1]].clone()  # (B, V)")},
     "why": "S: logits.view(-1, V) (fails where the model's logits are a non-contiguous view)"},
    {"name": "T8-gen-prompt-from-storage-start", "correct": False,
     "cells": {"generate_with_cache": swap("generate_with_cache", "seen = prompt.clone()",
                                            "seen = torch.as_strided(prompt, prompt.shape, prompt.stride(), 0).clone()")},
     "why": "T: the penalty history read from the prompt's storage start"},
    {"name": "T8-gen-logits-from-storage-start", "correct": False,
     "cells": {"generate_with_cache": swap("generate_with_cache", "scores = logits[:, -1].clone()",
                                            "scores = torch.as_strided(logits, logits.shape, logits.stride(), 0)[:, -1].clone()")},
     "why": "T: the logits read from their storage's start"},
    {"name": "U8-gen-penalty-loop", "correct": True, "cells": {"generate_with_cache": swap(
        "generate_with_cache",
        "        occurs = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seen, True)\n",
        "        occurs = torch.zeros_like(scores, dtype=torch.bool)\n"
        "        for r in range(seen.shape[0]):\n"
        "            for tok in set(seen[r].tolist()):\n"
        "                occurs[r, tok] = True\n")},
     "why": "U: the penalty set written id by id in a Python loop over each row's distinct tokens (allowed)"},
]
