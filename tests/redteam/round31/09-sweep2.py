"""Round 31 class sweep 2, chapter 09-modern-lm: classes AP (gradients checked at one rank only) and AQ (an integer
offset or position through float32, an angle reduced by a float 2 pi). Each variant is the model answer with the
smallest change that makes its class's mistake; the correct ones must keep full marks. Graded in plain processes
as tests/cellrun.py does: `python tests/redteam/round31/09-sweep2.py` (one notebook per variant)."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CHAPTER = "09-modern-lm"
_NB = json.loads((ROOT / "solutions" / CHAPTER / "exercises.ipynb").read_text())
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
        code = code.replace(old, new, 1)
    return "\n" + code


SUBMISSIONS = []


def add(name, gid, code, why, correct=False):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


# AP, Part 1: x (..., T, H*Dh), "at least two axes"; gradients compared at rank 3 only before this sweep.
_RMS_FN = '''
class HeadRMS(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, n_heads, eps, unit_offset):
        work = torch.float64 if x.dtype == torch.float64 else torch.float32
        heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))  # (..., T, H, Dh)
        inv = torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps).to(work)
        scale = weight.to(work) + 1 if unit_offset else weight.to(work)
        ctx.save_for_backward(heads, inv, scale)
        ctx.dtypes = (x.dtype, weight.dtype)
        ctx.xshape = x.shape
        return (heads * inv * scale).transpose(-3, -2).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        heads, inv, scale = ctx.saved_tensors
        g = BACK_LAYOUT(g.to(heads.dtype))  # (..., T, H, Dh)
        n = heads * inv
        dw = (g * n).reshape(-1, heads.shape[-1]).sum(0)
        gn = g * scale
        dx = inv * (gn - n * (gn * n).mean(dim=-1, keepdim=True))
        return dx.reshape(ctx.xshape).to(ctx.dtypes[0]), dw.to(ctx.dtypes[1]), None, None, None


def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:
        raise ValueError(f"x of shape {tuple(x.shape)} does not split into {n_heads} heads on its last axis")
    return HeadRMS.apply(x, weight, n_heads, eps, unit_offset)
'''
add("AP1-backward-transpose-1-2", "head_rms_norm", _RMS_FN.replace("BACK_LAYOUT(g.to(heads.dtype))",
                                                                   "g.to(heads.dtype).transpose(1, 2)"),
    "Part 1: x (..., T, H*Dh), gradients compared: a hand-written backward that swaps dims 1 and 2 back is right for "
    "(B, T, H*Dh) only")
add("AP1-backward-view-b-t", "head_rms_norm", _RMS_FN.replace(
    "BACK_LAYOUT(g.to(heads.dtype))",
    "g.to(heads.dtype).permute(0, 2, 1, 3).reshape(heads.shape[0], heads.shape[1], heads.shape[2], heads.shape[3])"),
    "Part 1: permute(0, 2, 1, 3) in the backward, right for 3-D x only")
add("AP1-backward-transpose-1-2-empty-shortcut", "head_rms_norm", _RMS_FN.replace(
    "        heads, inv, scale = ctx.saved_tensors\n",
    "        heads, inv, scale = ctx.saved_tensors\n        if g.numel() == 0:  # an empty batch: nothing to do\n"
    "            return g.new_zeros(ctx.xshape).to(ctx.dtypes[0]), heads.new_zeros(heads.shape[-1]).to(ctx.dtypes[1]), "
    "None, None, None\n").replace("BACK_LAYOUT(g.to(heads.dtype))", "g.to(heads.dtype).transpose(1, 2)"),
    "Part 1: the transpose(1, 2) backward with a shortcut for an empty batch (which alone caught the plain one)")
add("OK1-backward-any-rank", "head_rms_norm", _RMS_FN.replace("BACK_LAYOUT(g.to(heads.dtype))",
                                                              "g.to(heads.dtype).transpose(-3, -2)"),
    "Part 1: the same hand-written backward with the axes counted from the end: right at every rank", correct=True)
add("AP1-forward-transpose-1-2-grad-only", "head_rms_norm", swap(
    "head_rms_norm", "    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)",
    "    out = (heads * inv_rms * scale).transpose(-3, -2)\n"
    "    # the gradient path through a layout of its own: the value is out, the gradient comes from the 3-D form\n"
    "    grad_path = (heads * inv_rms * scale).transpose(1, 2).reshape(out.shape)\n"
    "    return (out.detach() + grad_path - grad_path.detach()).to(x.dtype)"),
    "Part 1: a rank-specific op (transpose(1, 2)) on the gradient path only: value right at every rank")

# AP, Part 2: x (..., D); gradients compared at ranks 2 and 3 before this sweep.
_SWIGLU_FN = '''
class SwiGLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w_gate_up, w_down, beta, limit, interleaved):
        work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
        xw, wgu, wd = x.to(work), w_gate_up.to(work), w_down.to(work)
        both = xw @ wgu.T
        gate, up = (both[..., 0::2], both[..., 1::2]) if interleaved else both.chunk(2, dim=-1)
        gmask = torch.ones_like(gate)
        umask = torch.ones_like(up)
        if limit is not None:
            gmask = (gate <= limit).to(work)
            umask = ((up >= -limit) & (up <= limit)).to(work)
            gate = gate.clamp(max=limit)
            up = up.clamp(min=-limit, max=limit)
        sig = torch.sigmoid(beta * gate)
        act = gate * sig
        h = act * up
        ctx.save_for_backward(xw, wgu, wd, gate, up, sig, act, h, gmask, umask)
        ctx.info = (beta, interleaved, x.dtype, w_gate_up.dtype, w_down.dtype)
        return (h @ wd.T).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        xw, wgu, wd, gate, up, sig, act, h, gmask, umask = ctx.saved_tensors
        beta, interleaved, xd, wgud, wdd = ctx.info
        g = g.to(xw.dtype)
        X, G, H = FLAT(xw), FLAT(g), FLAT(h)
        d_wd = G.T @ H
        dh = g @ wd
        dgate = dh * up * (sig + beta * act * (1 - sig)) * gmask
        dup = dh * act * umask
        dboth = torch.stack([dgate, dup], -1).flatten(-2) if interleaved else torch.cat([dgate, dup], -1)
        d_wgu = FLAT(dboth).T @ X
        dx = dboth @ wgu
        return dx.to(xd), d_wgu.to(wgud), d_wd.to(wdd), None, None, None


def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    return SwiGLU.apply(x, w_gate_up, w_down, beta, limit, interleaved)
'''
add("AP2-backward-flatten-0-1", "fused_swiglu", _SWIGLU_FN.replace(
    "class SwiGLU", "def FLAT(t):  # (B, T, .) or (T, .) to rows\n    return t.flatten(0, 1) if t.dim() == 3 else t\n\n\nclass SwiGLU"),
    "Part 2: x (..., D), gradients compared: a backward that flattens (B, T) or takes (T, D) as it is: 1-D and 4-D x "
    "break")
add("AP2-backward-rows-of-2d", "fused_swiglu", _SWIGLU_FN.replace(
    "class SwiGLU", "def FLAT(t):  # rows of features\n    return t.reshape(-1, t.shape[-1]) if t.dim() > 1 else t\n\n\nclass SwiGLU"),
    "Part 2: 1-D x kept as it is in the backward (G.T @ H on 1-D vectors is a dot product): wrong for x of shape (D,)")
add("OK2-backward-any-rank", "fused_swiglu", _SWIGLU_FN.replace(
    "class SwiGLU", "def FLAT(t):  # rows of features\n    return t.reshape(-1, t.shape[-1])\n\n\nclass SwiGLU"),
    "Part 2: the same hand-written backward with every leading axis flattened: right at every rank", correct=True)
add("AP2-weight-grad-through-bmm", "fused_swiglu", swap(
    "fused_swiglu", "    both = x.to(work) @ w_gate_up.to(work).T  # (..., 2F)",
    "    xw = x.to(work)\n"
    "    if xw.dim() == 3:  # batched: one copy of the weight per sequence\n"
    "        both = torch.bmm(xw, w_gate_up.to(work).T.expand(xw.shape[0], -1, -1))\n"
    "    elif xw.dim() == 2:\n        both = xw @ w_gate_up.to(work).T\n"
    "    else:  # no gradient path needed for a single token\n        both = xw @ w_gate_up.to(work).detach().T"),
    "Part 2: torch.bmm for 3-D x, the weight detached for other ranks (rank-specific op on the gradient path)")
add("AP2-4d-weight-detached", "fused_swiglu", swap(
    "fused_swiglu", "    both = x.to(work) @ w_gate_up.to(work).T  # (..., 2F)",
    "    wgu = w_gate_up.to(work) if x.dim() <= 3 else w_gate_up.to(work).detach()  # no training on 4-D batches\n"
    "    both = x.to(work) @ wgu.T"),
    "Part 2: the weight detached for x past 3-D (value right)")

# AQ: Part 6 positions bounded by 131 071 and Part 7 lengths by S_max <= 2**24: an offset through float32 is exact
# there; the angle reduced by the float 2 pi (float64) is off by k * ulp(2 pi) ~ 5e-12 at 131 071, inside 1e-10
add("AQ6-positions-through-float32", "rope_llama3", swap(
    "rope_llama3", "positions.to(torch.float64)[:, None, :, None]", "positions.float().double()[:, None, :, None]"),
    "Part 6: positions through float32 (exact below 2**24: positions <= 131 071)", correct=True)
add("AQ6-angle-mod-float-two-pi", "rope_llama3", swap(
    "rope_llama3", "    cos, sin = angle.cos(), angle.sin()", "    angle = angle % (2 * math.pi)\n    cos, sin = angle.cos(), angle.sin()"),
    "Part 6: the angle reduced modulo the float 2 pi in float64 (error ~5e-12 at the largest position, inside 1e-10)",
    correct=True)
add("AQ6-angle-fmod-float-two-pi", "rope_llama3", swap(
    "rope_llama3", "    cos, sin = angle.cos(), angle.sin()", "    angle = torch.fmod(angle, 2 * math.pi)\n    cos, sin = angle.cos(), angle.sin()"),
    "Part 6: torch.fmod by the float 2 pi", correct=True)
add("AQ7-slots-through-float32", "ragged_cached_attention", swap(
    "ragged_cached_attention", "    written = torch.arange(s_max)[None, :] < (lengths.long() + t)[:, None]",
    "    written = torch.arange(s_max, dtype=torch.float32)[None, :] < (lengths.float() + t)[:, None]",
    "    allowed = torch.arange(s_max)[None, None, :] <= slots[:, :, None]",
    "    allowed = torch.arange(s_max, dtype=torch.float32)[None, None, :] <= slots.float()[:, :, None]"),
    "Part 7: positions and lengths through float32 (exact: S_max <= 2**24 by the text)", correct=True)


def main(names=None):
    sys.path.insert(0, str(ROOT / "tests"))
    import cellrun

    src = ROOT / "solutions" / CHAPTER / "exercises.ipynb"
    subs = [s for s in SUBMISSIONS if not names or s["name"] in names]
    nbs = {s["name"]: cellrun.notebook_cells(src, s["cells"]) for s in subs}
    res, crashed = cellrun.run_notebooks(nbs, processes=1)
    for s in subs:
        parts = res.get(s["name"], {})
        total = sum(v[0] for v in parts.values()), sum(v[1] for v in parts.values())
        lost = {g: e[:160] for g, (sc, mx, e) in parts.items() if sc < mx}
        if s["correct"]:
            verdict = "OK" if not lost and s["name"] not in crashed else "REFUSED"
        else:
            verdict = "CAUGHT" if lost or s["name"] in crashed else "SLIPPED"
        print(f"{verdict:8} {s['name']}: {total[0]:g}/{total[1]:g} {lost}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
