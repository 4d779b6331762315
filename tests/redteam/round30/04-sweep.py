# Round 30 class sweep, chapter 04 (classes AJ, AL, AK, AM, AN). Each variant is the model answer with the smallest
# change that makes the class's mistake; "correct": True marks probes the text allows.
TABLE = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    stretched = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    angle = positions.to(torch.float64).unsqueeze(-1) * stretched ** -exponents
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''
ALIBI = '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    query_pos = torch.arange(offset, offset + t)[:, None]
    key_pos = torch.arange(offset + t)[None, :]
    distance = (query_pos - key_pos).abs()
    bias = (-slopes[:, None, None] * distance).to(torch.float32)
    return bias, key_pos <= query_pos
'''
POSITION = '''
def position_from_encoding(row):
    d = row.shape[-1]
    slowest = 10000.0 ** (-(d - 2) / d)
    sin, cos = float(row[-2]), float(row[-1])
    angle = math.atan2(sin, cos) % (2 * math.pi)
    return round(angle / slowest)
'''
ROPE = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")
    half = rotary_dim // 2
    first_real = t - lengths.long()
    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = pos.to(torch.float64)[:, None, :, None] * theta
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)
    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''
SHIFT = '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i] = c, s
    m[i, i + half], m[i + half, i + half] = -s, c
    return m
'''
EQUI = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    with torch.no_grad():
        reference = layer(x)
        gaps = []
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            gaps.append((layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item())
    worst = max(gaps)
    return worst <= tol, float(worst)
'''
KEEP = '''
CONVERTED = {}
def converted(t, dtype=torch.float64):
    kept = CONVERTED.get((id(t), dtype))
    if kept is None or kept[0] is not t:  # the original is kept alive beside its copy: its id() is never reused
        kept = CONVERTED[(id(t), dtype)] = (t, t.to(dtype))
    return kept[1]
'''


def swap(code, old, new):
    assert old in code, old
    return code.replace(old, new, 1)

SUBMISSIONS = [
 # ---- class AJ: an input written in place with the values it held
 {"name": "AJ-p1-positions-clamped-in-place", "correct": False, "cells": {"table_halves": swap(TABLE,
     "    stretched =", "    positions.clamp_(min=torch.iinfo(positions.dtype).min)\n    stretched =")},
  "why": "AJ: positions clamped in place to their dtype's lowest value (values unchanged)"},
 {"name": "AJ-p4-row-nan-to-num-in-place", "correct": False, "cells": {"position": swap(POSITION,
     "    d = row.shape[-1]", "    d = row.shape[-1]\n    with torch.no_grad():\n        row.nan_to_num_()")},
  "why": "AJ: row NaN-cleaned in place (finite: values unchanged)"},
 {"name": "AJ-p5-lengths-clamped-in-place", "correct": False, "cells": {"rotate_half": swap(ROPE,
     "    half = rotary_dim // 2", "    lengths.clamp_(min=0)\n    half = rotary_dim // 2")},
  "why": "AJ: lengths clamped in place to >= 0 (they are: values unchanged)"},
 {"name": "AJ-p5-x-nan-masked-in-place", "correct": False, "cells": {"rotate_half": swap(ROPE,
     "    half = rotary_dim // 2", "    with torch.no_grad():\n        x.masked_fill_(x != x, float('nan'))\n    half = rotary_dim // 2")},
  "why": "AJ: x NaN-masked in place under no_grad (values unchanged)"},
 {"name": "AJ-p8-x-nan-masked-in-place", "correct": False, "cells": {"equivariance": swap(EQUI,
     "    with torch.no_grad():\n", "    with torch.no_grad():\n        x.masked_fill_(x != x, float('nan'))\n")},
  "why": "AJ: x NaN-masked in place under no_grad (values unchanged)"},
 # ---- class AL: a converted copy of an input kept per id()
 {"name": "AL-p1-positions-float64-kept-per-id", "correct": False, "cells": {"table_halves": KEEP + swap(TABLE,
     "positions.to(torch.float64)", "converted(positions)")},
  "why": "AL: float64 copy of the positions kept per id()"},
 {"name": "AL-p4-row-float64-kept-per-id", "correct": False, "cells": {"position": KEEP + swap(POSITION,
     "    sin, cos = float(row[-2]), float(row[-1])", "    r = converted(row)\n    sin, cos = float(r[-2]), float(r[-1])")},
  "why": "AL: float64 copy of the row kept per id()"},
 {"name": "AL-p5-lengths-long-kept-per-id", "correct": False, "cells": {"rotate_half": KEEP + swap(ROPE,
     "lengths.long()", "converted(lengths, torch.int64)")},
  "why": "AL: int64 copy of the lengths kept per id()"},
 {"name": "AL-p5-x-work-kept-per-id", "correct": False, "cells": {"rotate_half": KEEP + swap(ROPE,
     "    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)", "    xw = converted(x, work)\n    a, b = xw[..., :half], xw[..., half:rotary_dim]")},
  "why": "AL: the work-dtype copy of x kept per id() (float16/bfloat16/float32 x)"},
 # ---- class AK: the gradient path cut for half precision only
 {"name": "AK-p5-half-rotated-detached", "correct": False, "cells": {"rotate_half": swap(ROPE,
     "    a, b = x[..., :half].to(work)", "    if x.dtype in (torch.float16, torch.bfloat16):\n        b = x[..., half:rotary_dim].detach().to(work)\n    else:\n        b = x[..., half:rotary_dim].to(work)\n    a, _ = x[..., :half].to(work)")
     .replace("    a, _ = x[..., :half].to(work), x[..., half:rotary_dim].to(work)", "    a = x[..., :half].to(work)")},
  "why": "AK: the partner half detached for half inputs only"},
 # ---- class AN: a value at a limit the text includes refused
 {"name": "AN-p1-d4-refused", "correct": False, "cells": {"table_halves": swap(TABLE, "d_model < 4", "d_model <= 4")},
  "why": "AN: d_model = 4 is allowed"},
 {"name": "AN-p1-scale-1-wrong", "correct": False, "cells": {"table_halves": swap(TABLE,
     "    stretched =", "    if scale <= 1:\n        raise ValueError('scale')\n    stretched =")},
  "why": "AN: scale = 1 (the plain table) is allowed"},
 {"name": "AN-p2-offset-0-refused", "correct": False, "cells": {"alibi_block": swap(ALIBI,
     "    slopes =", "    if offset < 1:\n        raise ValueError('offset')\n    slopes =")},
  "why": "AN: offset 0 (no cache)"},
 {"name": "AN-p2-t0-refused", "correct": False, "cells": {"alibi_block": swap(ALIBI,
     "    slopes =", "    if t < 1:\n        raise ValueError('t')\n    slopes =")},
  "why": "AN: T = 0 allowed"},
 {"name": "AN-p4-p0-wrong", "correct": False, "cells": {"position": swap(POSITION,
     "    return round(angle / slowest)", "    return max(1, round(angle / slowest))")},
  "why": "AN: position 0 is in range"},
 {"name": "AN-p4-p9999-wrong", "correct": False, "cells": {"position": swap(POSITION,
     "    return round(angle / slowest)", "    return min(9998, round(angle / slowest))")},
  "why": "AN: position 9999 is in range"},
 {"name": "AN-p4-d16-refused", "correct": False, "cells": {"position": swap(POSITION,
     "    slowest =", "    if d <= 16:\n        raise ValueError('d')\n    slowest =")},
  "why": "AN: D = 16 is allowed"},
 {"name": "AN-p5-rotary-2-refused", "correct": False, "cells": {"rotate_half": swap(ROPE, "not 2 <= rotary_dim", "not 4 <= rotary_dim")},
  "why": "AN: rotary_dim = 2 allowed"},
 {"name": "AN-p5-rotary-dh-refused", "correct": False, "cells": {"rotate_half": swap(ROPE, "rotary_dim <= dh", "rotary_dim < dh")},
  "why": "AN: rotary_dim = Dh allowed"},
 {"name": "AN-p5-length-T-wrong", "correct": False, "cells": {"rotate_half": swap(ROPE, "first_real = t - lengths.long()", "first_real = t - lengths.long().clamp(max=max(t - 1, 0))")},
  "why": "AN: lengths = T (no padding) cut to T - 1"},
 {"name": "AN-p7-offset-0-wrong", "correct": False, "cells": {"shift": swap(SHIFT,
     "    half = d_model // 2", "    if offset == 0:\n        raise ValueError('offset')\n    half = d_model // 2")},
  "why": "AN: offset 0 (the identity) allowed"},
 {"name": "AN-p7-d2-refused", "correct": False, "cells": {"shift": swap(SHIFT,
     "    half = d_model // 2", "    if d_model < 4:\n        raise ValueError('d_model')\n    half = d_model // 2")},
  "why": "AN: the matrix exists for d_model = 2"},
 {"name": "AN-p8-tol-equal-fails", "correct": False, "cells": {"equivariance": swap(EQUI, "worst <= tol", "worst < tol")},
  "why": "AN: a gap equal to tol passes"},
 {"name": "AN-p8-one-trial-refused", "correct": False, "cells": {"equivariance": swap(EQUI,
     "    t = x.shape[1]", "    if trials < 2:\n        raise ValueError('trials')\n    t = x.shape[1]")},
  "why": "AN: trials = 1 allowed"},
]
