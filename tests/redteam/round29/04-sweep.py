"""Round 29 class sweep, chapter 04: classes AF (a running maximum started at 0 where -inf is needed), AG (the last,
shorter piece dropped), AH (a derivative wrong only at exactly 0) and AI (a mask of lower rank lined up from the
front). Each variant is the model answer with the smallest change that makes its class's mistake, or a correct
answer the text allows (its counterpart with the right edge)."""
import json
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
_NB = json.loads((_ROOT / "solutions" / "04-positional-encoding" / "exercises.ipynb").read_text())
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


# ============================== AF: a running maximum started at 0 ==============================
add("AF8-running-max-of-gaps-from-0", "equivariance", """
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    with torch.no_grad():
        reference = layer(x)
        worst = 0.0
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            gap = (layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item()
            worst = max(worst, gap)
    return worst <= tol, float(worst)
""", "AF: a running maximum of absolute differences started at 0: every gap is >= 0 (no NaN in the tests), so "
    "it is correct", correct=True)

# ============================== AG: the last, shorter piece dropped ==============================
TABLE_POS_PIECES = """
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    stretched = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    freq = stretched ** -exponents
    flat = positions.reshape(-1).to(torch.float64)
    n = flat.shape[0]
    out = torch.zeros(n, d_model, dtype=torch.float64)
    for s in range(0, STOP, PIECE):
        e = min(s + PIECE, n)
        angle = flat[s:e, None] * freq
        out[s:e] = torch.cat([angle.sin(), angle.cos()], dim=-1)
    return out.reshape(*positions.shape, d_model).to(dtype)
"""
for piece in (8, 64, 1024, 4096, 65536):
    add(f"AG1-positions-in-pieces-of-{piece}-last-dropped", "table_halves",
        TABLE_POS_PIECES.replace("STOP", f"max(n - {piece} + 1, 1)").replace("PIECE", str(piece)),
        "AG: positions (flattened) in pieces, the last shorter piece left at zero")
add("AG1-positions-in-pieces-of-64-last-overlaps", "table_halves",
    TABLE_POS_PIECES.replace("for s in range(0, STOP, PIECE):", "for s in sorted({*range(0, n - 64 + 1, 64), max(n - 64, 0)}):")
    .replace("PIECE", "64"), "AG counterpart: the last piece is the last 64 positions (overlapping): correct", correct=True)
TABLE_FREQ_PIECES = """
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    stretched = base * scale ** (d_model / (d_model - 2))
    half = d_model // 2
    p = positions.to(torch.float64).unsqueeze(-1)
    out = torch.zeros(*positions.shape, d_model, dtype=torch.float64)
    for s in range(0, max(half - PIECE + 1, 1), PIECE):
        e = min(s + PIECE, half)
        freq = stretched ** -(torch.arange(2 * s, 2 * e, 2, dtype=torch.float64) / d_model)
        out[..., s:e] = (p * freq).sin()
        out[..., half + s:half + e] = (p * freq).cos()
    return out.to(dtype)
"""
for piece in (8, 32, 128, 512):
    add(f"AG1-frequencies-in-pieces-of-{piece}-last-dropped", "table_halves", TABLE_FREQ_PIECES.replace("PIECE", str(piece)),
        "AG: the frequency columns in pieces, the last shorter piece left at zero")

ALIBI_KEY_PIECES = """
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    s_len = offset + t
    query_pos = torch.arange(offset, offset + t)[:, None]
    bias = torch.zeros(num_heads, t, s_len, dtype=torch.float32)
    allowed = torch.zeros(t, s_len, dtype=torch.bool)
    for j0 in range(0, max(s_len - PIECE + 1, 1), PIECE):
        j1 = min(j0 + PIECE, s_len)
        key_pos = torch.arange(j0, j1)[None, :]
        bias[:, :, j0:j1] = (-slopes[:, None, None] * (query_pos - key_pos).abs()).to(torch.float32)
        allowed[:, j0:j1] = key_pos <= query_pos
    return bias, allowed
"""
for piece in (64, 1024, 4096, 65536):
    add(f"AG2-keys-in-pieces-of-{piece}-last-dropped", "alibi_block", ALIBI_KEY_PIECES.replace("PIECE", str(piece)),
        "AG: keys in pieces, the last shorter piece left at zero (bias 0, not allowed)")
ALIBI_QUERY_PIECES = """
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    key_pos = torch.arange(offset + t)[None, :]
    bias = torch.zeros(num_heads, t, offset + t, dtype=torch.float32)
    allowed = torch.zeros(t, offset + t, dtype=torch.bool)
    for i0 in range(0, max(t - PIECE + 1, 1), PIECE):
        i1 = min(i0 + PIECE, t)
        query_pos = torch.arange(offset + i0, offset + i1)[:, None]
        bias[:, i0:i1] = (-slopes[:, None, None] * (query_pos - key_pos).abs()).to(torch.float32)
        allowed[i0:i1] = key_pos <= query_pos
    return bias, allowed
"""
for piece in (8, 64, 1024, 4096):
    add(f"AG2-queries-in-pieces-of-{piece}-last-dropped", "alibi_block", ALIBI_QUERY_PIECES.replace("PIECE", str(piece)),
        "AG: query rows in pieces, the last shorter piece left at zero")

ROPE_ROW_PIECES = swap("rotate_half",
    "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
    "    rotated = torch.cat([a, b], dim=-1).to(x.dtype).clone()\n"
    "    for r0 in range(0, max(t - PIECE + 1, 1), PIECE):\n"
    "        r1 = min(r0 + PIECE, t)\n"
    "        c, s_ = cos[:, :, r0:r1], sin[:, :, r0:r1]\n"
    "        aa, bb = a[:, :, r0:r1], b[:, :, r0:r1]\n"
    "        rotated[:, :, r0:r1] = torch.cat([aa * c - bb * s_, aa * s_ + bb * c], dim=-1).to(x.dtype)\n")
for piece in (64, 1024, 4096, 65536, 2 ** 20):
    add(f"AG5-rows-in-pieces-of-{piece}-last-dropped", "rotate_half", ROPE_ROW_PIECES.replace("PIECE", str(piece)),
        "AG: rows in pieces, the last shorter piece left unrotated")
ROPE_PAIR_PIECES = swap("rotate_half",
    "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
    "    rotated = torch.cat([a, b], dim=-1).to(x.dtype).clone()\n"
    "    for f0 in range(0, max(half - PIECE + 1, 1), PIECE):\n"
    "        f1 = min(f0 + PIECE, half)\n"
    "        c, s_ = cos[..., f0:f1], sin[..., f0:f1]\n"
    "        aa, bb = a[..., f0:f1], b[..., f0:f1]\n"
    "        rotated[..., f0:f1] = (aa * c - bb * s_).to(x.dtype)\n"
    "        rotated[..., half + f0:half + f1] = (aa * s_ + bb * c).to(x.dtype)\n")
for piece in (4, 8, 32, 64, 1024):
    add(f"AG5-pairs-in-pieces-of-{piece}-last-dropped", "rotate_half", ROPE_PAIR_PIECES.replace("PIECE", str(piece)),
        "AG: the rotated pairs in pieces, the last shorter piece left unrotated")

SHIFT_PIECES = swap("shift",
    "    i = torch.arange(half)\n",
    "    keep = half if half < PIECE else half - half % PIECE  # whole pieces of pairs (one short piece when fewer)\n"
    "    i = torch.arange(keep)\n    c, s = c[:keep], s[:keep]\n")
for piece in (4, 8, 32, 128, 512):
    add(f"AG7-pairs-in-pieces-of-{piece}-last-dropped", "shift", SHIFT_PIECES.replace("PIECE", str(piece)),
        "AG: the rotation blocks written only for whole pieces of pairs, the last shorter piece left at zero")

# ============================== AH: a derivative wrong only at exactly 0 ==============================
add("AH5-zero-pairs-passed-through-by-where", "rotate_half", swap("rotate_half",
    "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
    "    zero = (a == 0) & (b == 0)  # a pair of zeros turns into zeros: pass it through\n"
    "    rotated = torch.cat([torch.where(zero, a, a * cos - b * sin), torch.where(zero, b, a * sin + b * cos)],"
    " dim=-1).to(x.dtype)\n"),
    "AH: a pair of exact zeros passed through by torch.where: values right, the gradient there the identity, not "
    "the rotation")
add("AH5-polar-hypot-atan2", "rotate_half", swap("rotate_half",
    "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
    "    r, phi = torch.hypot(a, b), torch.atan2(b, a)\n"
    "    ang = torch.atan2(sin, cos)\n"
    "    rotated = torch.cat([r * torch.cos(phi + ang), r * torch.sin(phi + ang)], dim=-1).to(x.dtype)\n"),
    "AH: the rotation in polar form (hypot, atan2): the slope of the length at a zero pair is nan")
add("AH5-position-0-rows-by-where", "rotate_half", swap("rotate_half",
    "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
    "    still = (pos == 0)[:, None, :, None]\n"
    "    rotated = torch.cat([torch.where(still, a, a * cos - b * sin), torch.where(still, b, a * sin + b * cos)],"
    " dim=-1).to(x.dtype)\n"),
    "AH counterpart: rows at position 0 passed through by where (the angle 0: identity value and slope): correct",
    correct=True)

# ============================== AI: lower-rank lined up from the front ==============================
add("AI5-angles-(B,T,R/2)-lined-up-from-the-back", "rotate_half", swap("rotate_half",
    "    angle = pos.to(torch.float64)[:, None, :, None] * theta",
    "    angle = pos.to(torch.float64)[:, :, None] * theta  # (B, T, R/2): broadcast lines B up with H"),
    "AI: the per-sequence angles (B, T, R/2) broadcast against (B, H, T, R/2) from the last dimension: B is read as H")

# ============================== correct counterparts (written with the fixes) ==============================
add("AG2-queries-in-pieces-of-64-every-piece", "alibi_block", ALIBI_QUERY_PIECES.replace(
    "range(0, max(t - PIECE + 1, 1), PIECE)", "range(0, t, PIECE)").replace("PIECE", "64"),
    "AG counterpart: query rows in pieces of 64, the last shorter one included: correct", correct=True)
add("AG5-pairs-in-pieces-of-64-every-piece", "rotate_half", ROPE_PAIR_PIECES.replace(
    "range(0, max(half - PIECE + 1, 1), PIECE)", "range(0, half, PIECE)").replace("PIECE", "64"),
    "AG counterpart: pairs in pieces of 64, the last shorter one included: correct", correct=True)
add("AG7-shift-loop-over-pairs", "shift", swap("shift",
    "    i = torch.arange(half)\n", "",
    "    m[i, i], m[i + half, i] = c, s\n    m[i, i + half], m[i + half, i + half] = -s, c\n",
    "    for i in range(half):\n        m[i, i], m[i + half, i] = c[i], s[i]\n        m[i, i + half], m[i + half, i + half] = -s[i], c[i]\n"),
    "AG counterpart: a Python loop over the pairs: correct", correct=True)
add("AH5-rotation-as-complex-product", "rotate_half", swap("rotate_half",
    "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
    "    z = torch.complex(a, b) * torch.complex(cos, sin)\n"
    "    rotated = torch.cat([z.real, z.imag], dim=-1).to(x.dtype)\n"),
    "AH counterpart: the rotation as a complex product (a + ib) e^(i m theta): correct, slope right at 0", correct=True)
add("AH5-rotation-as-matrix-product", "rotate_half", swap("rotate_half",
    "    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)\n",
    "    rot = torch.stack([torch.stack([cos, sin], -1), torch.stack([-sin, cos], -1)], -2)  # (..., R/2, 2, 2)\n"
    "    pair = torch.stack([a, b], -1).expand(*rot.shape[:-1]).unsqueeze(-2) if False else torch.stack([a, b], -1)\n"
    "    out = (pair.unsqueeze(-2) @ rot).squeeze(-2)  # (..., R/2, 2): (a c - b s, a s + b c)\n"
    "    rotated = torch.cat([out[..., 0], out[..., 1]], dim=-1).to(x.dtype)\n"),
    "AH counterpart: each pair times its 2 x 2 rotation matrix: correct", correct=True)
