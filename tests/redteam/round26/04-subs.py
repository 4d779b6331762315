"""Red team round 26, chapter 04: blind submissions (the skimmer, squeeze-and-broadcast, stride-and-layout, remainder-and-boundary)."""
BASE = {
"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    new_base = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    freq = new_base ** (-2 * i / d_model)
    angles = positions.to(torch.float64)[..., None] * freq
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
''',
"alibi_block": '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)
    qpos = torch.arange(t) + offset
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = (-(slopes[:, None, None] * dist.to(torch.float64))).to(torch.float32)
    allowed = kpos[None, :] <= qpos[:, None]
    return (bias, allowed)
''',
"reach": '''
alibi_reach = 256 * math.log(1000)
''',
"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    s = float(row[d - 2])
    c = float(row[d - 1])
    angle = math.atan2(s, c) % (2 * math.pi)
    return int(round(angle / omega))
''',
"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    pos = torch.arange(t, device=x.device)[None, :] - (t - lengths.to(torch.long))[:, None]
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64, device=x.device) / rotary_dim)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1 = x[..., :half].to(torch.float64)
    x2 = x[..., half:rotary_dim].to(torch.float64)
    o1 = (x1 * cos - x2 * sin).to(x.dtype)
    o2 = (x1 * sin + x2 * cos).to(x.dtype)
    return torch.cat([o1, o2, x[..., rotary_dim:]], dim=-1)
''',
"mc": '''
answer_cache = "b"
''',
"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    freq = torch.tensor(float(base), dtype=torch.float64) ** (-2 * i / d_model)
    ang = torch.tensor(offset, dtype=torch.float64) * freq
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(half)
    m[idx, idx] = c
    m[idx + half, idx] = s
    m[idx, idx + half] = -s
    m[idx + half, idx + half] = c
    return m
''',
"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
''',
}

B = BASE

def rep(cell, old, new, count=1):
    src = B[cell]
    assert src.count(old) >= 1, (cell, old)
    return src.replace(old, new, count)

SUBMISSIONS = [
# ---------------- the skimmer ----------------
{"name": "skim-p1-positions-to-dtype", "correct": False, "cells": {"table_halves": rep("table_halves",
    "angles = positions.to(torch.float64)[..., None] * freq",
    "angles = positions.to(dtype).to(torch.float64)[..., None] * freq")},
 "why": "skimmer: 'convert the positions to float64, not to dtype' (bfloat16 tables lose positions past 256)"},
{"name": "skim-p2-allowed-uint8", "correct": False, "cells": {"alibi_block": rep("alibi_block",
    "allowed = kpos[None, :] <= qpos[:, None]", "allowed = (kpos[None, :] <= qpos[:, None]).to(torch.uint8)")},
 "why": "skimmer: 'allowed, **boolean**' - a 0/1 uint8 mask (tolist() == [[True, ...]] still holds)"},
{"name": "skim-p3-int", "correct": False, "cells": {"reach": "alibi_reach = round(256 * math.log(1000))\n"},
 "why": "skimmer: 'a Python float, not an int nor a tensor'"},
{"name": "skim-p4-float-return", "correct": False, "cells": {"position": rep("position",
    "return int(round(angle / omega))", "return round(angle / omega, 0)")},
 "why": "skimmer: 'Return p as a Python int' - round(x, 0) gives a float equal to the position"},
{"name": "skim-p5-dh-exponent", "correct": False, "cells": {"rotate_half": rep("rotate_half",
    "/ rotary_dim)\n    ang", "/ dh)\n    ang")},
 "why": "skimmer: 'theta_i = base^{-2i/R} ... (**R**, not Dh, in the exponent)'"},
{"name": "skim-p8-strict-tol", "correct": False, "cells": {"equivariance": rep("equivariance",
    "return (bool(worst <= tol), float(worst))", "return (bool(worst < tol), float(worst))")},
 "why": "skimmer: 'True exactly when worst <= tol (a gap equal to tol passes)'"},
{"name": "skim-p8-eval-mode", "correct": False, "cells": {"equivariance": rep("equivariance",
    "    t = x.shape[1]\n", "    t = x.shape[1]\n    if isinstance(layer, torch.nn.Module):\n        layer.eval()\n")},
 "why": "skimmer: 'do not switch it to eval() or train()'"},
# ---------------- squeeze-and-broadcast ----------------
{"name": "sq-p8-float-of-batch", "correct": False, "cells": {"equivariance": rep("equivariance",
    "gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()",
    "gap = float((a.to(torch.float64) - b.to(torch.float64)).abs().amax(dim=(-2, -1)))")},
 "why": "squeeze: per-example maxima turned into a float only work for a batch of one; 'the largest absolute difference ... over all their entries'"},
{"name": "sq-p7-block-broadcast", "correct": False, "cells": {"shift": rep("shift",
    '''    m[idx, idx] = c
    m[idx + half, idx] = s
    m[idx, idx + half] = -s
    m[idx + half, idx + half] = c''', '''    m[idx[:, None], idx] = c
    m[(idx + half)[:, None], idx] = s
    m[idx[:, None], idx + half] = -s
    m[(idx + half)[:, None], idx + half] = c''')},
 "why": "squeeze: idx[:, None] broadcasts each rotation over a whole (D/2, D/2) block; right for D = 2 only; 'Work out where the entries of each rotation go'"},
{"name": "ok-sq-p5-reshape-angles", "correct": True, "cells": {"rotate_half": rep("rotate_half",
    "cos, sin = ang.cos()[:, None], ang.sin()[:, None]",
    "cos, sin = ang.cos().reshape(b, -1, t, half), ang.sin().reshape(b, -1, t, half)")},
 "why": "(B, T, R/2) angles reshaped to (B, 1, T, R/2): the same as an unsqueeze (correct)"},
# ---------------- stride-and-layout ----------------
{"name": "st-p5-view-pairs", "correct": False, "cells": {"rotate_half": rep("rotate_half",
    '''    x1 = x[..., :half].to(torch.float64)
    x2 = x[..., half:rotary_dim].to(torch.float64)''', '''    pairs = x.view(b, h, t, dh)[..., :rotary_dim].view(b, h, t, 2, half).to(torch.float64)
    x1, x2 = pairs[..., 0, :], pairs[..., 1, :]''')},
 "why": "stride: x.view(...) on a transposed x raises; 'The tensors they are given may be non-contiguous views ... accept them as they are'"},
{"name": "st-p5-return-x-when-unrotated", "correct": False, "cells": {"rotate_half": rep("rotate_half",
    "    half = rotary_dim // 2\n", "    half = rotary_dim // 2\n    if t == 0 or bool((lengths.to(torch.long) <= 1).all()):\n        return x  # every row at position 0: nothing turns\n")},
 "why": "stride/aliasing: returns x itself; 'Return a new tensor in the dtype of x, never x itself or a view of it, even when no row is rotated'"},
{"name": "st-p2-expanded-allowed", "correct": False, "cells": {"alibi_block": rep("alibi_block",
    "    allowed = kpos[None, :] <= qpos[:, None]\n",
    "    allowed = (kpos[None, :] <= qpos[:, None]) if t > 1 else torch.ones(1, dtype=torch.bool).expand(1, offset + t)\n")},
 "why": "stride: for one new token every key is allowed: a stride-0 expand of one True; 'The caller may change bias and allowed in place: each must have memory of its own'"},
# ---------------- remainder-and-boundary ----------------
{"name": "rb-p1-table-to-max", "correct": False, "cells": {"table_halves": rep("table_halves",
    "angles = positions.to(torch.float64)[..., None] * freq",
    "table_pos = torch.arange(int(positions.max()) + 1, dtype=torch.float64)\n    angles = (table_pos[:, None] * freq)[positions.long()]")},
 "why": "boundary: a table up to the largest position, gathered; 'an empty positions gives an empty table' (max of nothing raises)"},
{"name": "rb-p4-no-wrap", "correct": False, "cells": {"position": rep("position",
    "angle = math.atan2(s, c) % (2 * math.pi)", "angle = math.atan2(s, c)")},
 "why": "boundary: atan2 gives (-pi, pi]; for D = 16 positions past pi/omega (about 9935) come back negative; 'get its angle in [0, 2pi)'"},
{"name": "rb-p5-minus-zero-slice", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    rows = []
    for i in range(b):
        n = int(lengths[i])
        ang = torch.arange(n, dtype=torch.float64)[:, None] * theta
        xi = x[i, :, -n:]
        x1, x2 = xi[..., :half].double(), xi[..., half:rotary_dim].double()
        c, s = ang.cos(), ang.sin()
        turned = torch.cat([(x1 * c - x2 * s).to(x.dtype), (x1 * s + x2 * c).to(x.dtype), xi[..., rotary_dim:]], dim=-1)
        rows.append(torch.cat([x[i, :, :t - n], turned], dim=1))
    return torch.stack(rows) if rows else x.clone()
'''}, "why": "boundary: x[i, :, -n:] with n = 0 is the whole sequence, not nothing; 'lengths of 0 or T are allowed'"},
{"name": "rb-p8-one-short", "correct": False, "cells": {"equivariance": rep("equivariance",
    "for _ in range(trials):", "for _ in range(1, trials):")},
 "why": "boundary: draws trials - 1 permutations; 'Draw trials permutations one after another' (trials = 1 draws none and returns (True, 0.0))"},
{"name": "rb-p2-remainder-heads", "correct": False, "cells": {"alibi_block": rep("alibi_block",
    "    slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)\n",
    """    lower = 2 ** int(math.floor(math.log2(num_heads)))
    first = [2.0 ** (-8.0 * (i + 1) / lower) for i in range(lower)]
    rest = [2.0 ** (-8.0 * (i + 1) / (2 * lower)) for i in range(2 * lower)][0::2][: num_heads - lower]
    slopes = torch.tensor(first + rest, dtype=torch.float64)
""")},
 "why": "remainder: heads past the last power of two get the lesson's filled-up slopes; 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'"},
{"name": "rb-p1-reshape-minus-one", "correct": False, "cells": {"table_halves": rep("table_halves",
    """    angles = positions.to(torch.float64)[..., None] * freq
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)""",
    """    flat = positions.reshape(-1, 1).to(torch.float64)
    angles = flat * freq
    table = torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
    return table.reshape(*positions.shape[:-1], -1, d_model) if positions.dim() else table.reshape(d_model)""")},
 "why": "boundary: reshape(..., -1, D) cannot infer the size of an empty table; 'an empty positions gives an empty table'"},
{"name": "sq-p8-squeeze-batch", "correct": False, "cells": {"equivariance": rep("equivariance",
    """        a = layer(x[:, perm])
        b = layer(x)[:, perm]""",
    """        a = layer(x.squeeze(0)[perm].unsqueeze(0) if x.shape[0] == 1 else x[:, perm])
        b = layer(x).squeeze(0)[perm]""")},
 "why": "squeeze: the layer output squeezed on the batch and permuted along its first axis: for B > 1 that is the batch axis; 'layer(x)[:, perm]'"},
{"name": "ok-p5-rotate-in-dtype", "correct": True, "cells": {"rotate_half": rep("rotate_half",
    """    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1 = x[..., :half].to(torch.float64)
    x2 = x[..., half:rotary_dim].to(torch.float64)""",
    """    cos, sin = ang.cos()[:, None].to(x.dtype), ang.sin()[:, None].to(x.dtype)
    x1 = x[..., :half]
    x2 = x[..., half:rotary_dim]""")},
 "why": "angles, sines and cosines in float64, then rotate in the dtype of x ('then rotate in the dtype of x or wider')"},
# ---------------- correct ----------------
{"name": "ok-p1-stack-flatten", "correct": True, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 == 1 or d_model < 4:
        raise ValueError(f"d_model={d_model} must be even and at least 4")
    half = d_model // 2
    stretched = base * scale ** (d_model / (d_model - 2))
    freq = torch.exp(-math.log(stretched) * torch.arange(half, dtype=torch.float64) * 2 / d_model)
    angles = torch.einsum("...,f->...f", positions.long().to(torch.float64), freq)
    return torch.stack([angles.sin(), angles.cos()], dim=-2).flatten(-2).to(dtype=dtype)
'''}, "why": "sines then cosines via stack on dim -2 and flatten; exp/log frequencies"},
{"name": "ok-p2-tril-f32-slopes", "correct": True, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float32)
    rows = torch.arange(offset, offset + t).unsqueeze(1)
    cols = torch.arange(offset + t).unsqueeze(0)
    bias = -slopes.view(-1, 1, 1) * (rows - cols).abs().to(torch.float32)
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "why": "float32 slopes, tril(offset) mask"},
{"name": "ok-p3-division", "correct": True, "cells": {"reach": "alibi_reach = float(math.log(1000.0) / 2.0 ** -8)\n"},
 "why": "ln(1000) / (1/256)"},
{"name": "ok-p4-torch-atan2", "correct": True, "cells": {"position": '''
def position_from_encoding(row):
    r = row.to(torch.float64)
    d = r.numel()
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.atan2(r[-2], r[-1])
    if angle < 0:
        angle = angle + 2 * math.pi
    return int(torch.round(angle / omega).item())
'''}, "why": "torch.atan2 in float64, wrapped into [0, 2pi), rounded"},
{"name": "ok-p5-clone-inplace", "correct": True, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 != 0 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    half = rotary_dim // 2
    start = t - lengths.long()
    pos = torch.arange(t).unsqueeze(0) - start.unsqueeze(1)
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos).double()
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64), -torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    ang = pos.unsqueeze(-1) * theta
    wide = torch.promote_types(x.dtype, torch.float32)
    cos = ang.cos().unsqueeze(1).to(wide)
    sin = ang.sin().unsqueeze(1).to(wide)
    x1 = x[..., :half].to(wide)
    x2 = x[..., half:rotary_dim].to(wide)
    out = x.clone()
    out[..., :half] = (x1 * cos - x2 * sin).to(x.dtype)
    out[..., half:rotary_dim] = (x1 * sin + x2 * cos).to(x.dtype)
    return out
'''}, "why": "clone then write the rotated features in place; rotate in float32 (or float64) for half inputs"},
{"name": "ok-p6", "correct": True, "cells": {"mc": "answer_cache = 'b'\n"}, "why": "b"},
{"name": "ok-p7-block-diag", "correct": True, "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freqs = [float(base) ** (-2.0 * i / d_model) for i in range(half)]
    angles = torch.tensor([offset * f for f in freqs], dtype=torch.float64)
    c = torch.diag(torch.cos(angles))
    s = torch.diag(torch.sin(angles))
    return torch.cat([torch.cat([c, -s], dim=1), torch.cat([s, c], dim=1)], dim=0)
'''}, "why": "[[C, -S], [S, C]] from diagonal blocks; Python-float frequencies"},
{"name": "ok-p8-reference-once", "correct": True, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    reference = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        gap = torch.sub(layer(x[:, perm]).double(), reference[:, perm].double()).abs().amax().item()
        worst = gap if gap > worst else worst
    return worst <= tol, float(worst)
'''}, "why": "layer(x) once, layer(x[:, perm]) for every permutation drawn"},
{"name": "ok-p8-no-grad-index-select", "correct": True, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    with torch.no_grad():
        for trial in range(trials):
            perm = torch.randperm(x.size(1), generator=generator)
            left = layer(x.index_select(1, perm)).to(torch.float64)
            right = layer(x).index_select(1, perm).to(torch.float64)
            worst = max(worst, (left - right).abs().max().item())
    return (worst <= tol, worst)
'''}, "why": "no_grad, index_select"},
# ---------------- hostile ----------------
{"name": "hostile-p3-float-subclass", "correct": False, "cells": {"reach": '''
class Close(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return Close(0.0)
    def __rsub__(self, other):
        return Close(0.0)
    def __abs__(self):
        return Close(0.0)
    def __lt__(self, other):
        return True
    def __le__(self, other):
        return True
    def __gt__(self, other):
        return True
    __hash__ = float.__hash__
alibi_reach = Close(1.0)
'''}, "why": "hostile: a float subclass close to everything"},
{"name": "hostile-p6-str-subclass", "correct": False, "cells": {"mc": '''
class Every(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__
answer_cache = Every("a")
'''}, "why": "hostile: a str equal to every letter"},
]

# Phase 2 (written after the blind grading, from the hidden tests' inputs): the stride-and-layout student's
# as_strided with an offset counted from the wrong place; see NN-verdicts.md
SUBMISSIONS += [
{"name": "p2-st-p4-as-strided-last-pair", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    step = row.stride(0)
    last = torch.as_strided(row, (2,), (step,), (d - 2) * step)  # the slowest pair: sin, cos
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(last[0]), float(last[1])) % (2 * math.pi)
    return int(round(angle / omega))
'''}, "why": "stride: as_strided's storage_offset is absolute: (d - 2) * step ignores where the row starts in its storage (a row of a bigger table)"},
]
