# Red-team round 12, chapter 04 (positional encoding), written blind from the student notebook.
BASE = {
"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
''',
"alibi_block": '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8 * (h + 1) / num_heads)
    q = torch.arange(t)[:, None] + offset
    k = torch.arange(offset + t)[None, :]
    dist = (q - k).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    return bias, k <= q
''',
"reach": "alibi_reach = math.log(1000) / 2 ** -8\n",
"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    s, c = float(row[-2]), float(row[-1])
    ang = math.atan2(s, c) % (2 * math.pi)
    return int(round(ang / omega))
''',
"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("bad rotary_dim")
    half = R // 2
    pos = (torch.arange(T)[None, :] - (T - lengths.long())[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / R)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1 = x[..., :half].to(torch.float64)
    x2 = x[..., half:R].to(torch.float64)
    r1, r2 = x1 * cos - x2 * sin, x1 * sin + x2 * cos
    return torch.cat([r1.to(x.dtype), r2.to(x.dtype), x[..., R:]], dim=-1)
''',
"mc": 'answer_cache = "b"\n',
"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    w = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    a = offset * w
    c, s = a.cos(), a.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i] = c
    m[i + half, i] = s
    m[i, i + half] = -s
    m[i + half, i + half] = c
    return m
''',
"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(T, generator=generator)
        gap = (layer(x[:, perm]).to(torch.float64) - ref[:, perm].to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return bool(worst <= tol), float(worst)
''',
}

def R(gid, old, new):
    s = BASE[gid]
    assert old in s, (gid, old)
    return s.replace(old, new)

SUBMISSIONS = [
# ---------------- wrong answers ----------------
{"name": "p1-angles-float32", "correct": False,
 "cells": {"table_halves": R("table_halves", "ang = positions.to(torch.float64)[..., None] * freqs", "ang = positions.float()[..., None] * freqs.float()")},
 "why": "P1: 'Computing the angles in float64 and converting at the end meets both; computing them in float32 does not, even for a float32 table'."},
{"name": "p1-freqs-float32", "correct": False,
 "cells": {"table_halves": R("table_halves", "torch.arange(half, dtype=torch.float64)", "torch.arange(half)")},
 "why": "P1: 'Accuracy: within 1e-6 ... and 1e-11 for float64' (float32 frequencies times positions in the thousands miss both)."},
{"name": "p1-positions-to-dtype", "correct": False,
 "cells": {"table_halves": R("table_halves", "ang = positions.to(torch.float64)[..., None] * freqs", "ang = positions.to(dtype).to(torch.float64)[..., None] * freqs")},
 "why": "P1: 'those dtypes do not hold every integer past 2048 and 256, so convert the positions to float64, not to dtype'."},
{"name": "p1-scale-squared", "correct": False,
 "cells": {"table_halves": R("table_halves", "scale ** (d_model / (d_model - 2))", "scale ** 2")},
 "why": "P1: 'the slowest one is divided by scale ... Work out which base does that (it depends on D)'."},
{"name": "p1-table-then-index", "correct": False,
 "cells": {"table_halves": R("table_halves", "ang = positions.to(torch.float64)[..., None] * freqs", "ang = torch.arange(int(positions.max()) + 1, dtype=torch.float64)[:, None] * freqs\n    ang = ang[positions.long()]")},
 "why": "P1: 'and in no other case (an empty positions gives an empty table)'."},
{"name": "p1-cached-table", "correct": False,
 "cells": {"table_halves": '''
import functools

@functools.lru_cache(maxsize=None)
def full_table(d_model, base, scale, dtype, n=8192):
    half = d_model // 2
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = torch.arange(n, dtype=torch.float64)[:, None] * freqs
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)


def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    p = positions.long()
    if p.dim() == 1 and p.numel() and bool((p == torch.arange(p[0], p[0] + len(p))).all()):
        return full_table(d_model, float(base), float(scale), dtype)[int(p[0]):int(p[0]) + len(p)]
    return full_table(d_model, float(base), float(scale), dtype)[p]
'''},
 "why": "P1: 'The caller may change the returned table in place: it must have memory of its own, not be a slice of a table kept from an earlier call'."},
{"name": "p1-ignores-dtype", "correct": False,
 "cells": {"table_halves": R("table_halves", ".to(dtype)", ".float()")},
 "why": "P1: 'return the (..., d_model) tensor ... in dtype'."},
{"name": "p2-lesson-slopes-non-pow2", "correct": False,
 "cells": {"alibi_block": '''
def lesson_slopes(n):
    def pow2(n):
        start = 2 ** (-8 / n)
        return [start ** (i + 1) for i in range(n)]
    if math.log2(n).is_integer():
        return pow2(n)
    closest = 2 ** math.floor(math.log2(n))
    return pow2(closest) + lesson_slopes(2 * closest)[0::2][: n - closest]


def alibi_block(num_heads, t, offset):
    slopes = torch.tensor(lesson_slopes(num_heads), dtype=torch.float64)
    q = torch.arange(t)[:, None] + offset
    k = torch.arange(offset + t)[None, :]
    dist = (q - k).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    return bias, k <= q
'''},
 "why": "P2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'."},
{"name": "p2-full-tril-sliced", "correct": False,
 "cells": {"alibi_block": R("alibi_block", "return bias, k <= q", "return bias, torch.ones(offset + t, offset + t, dtype=torch.bool).tril()[offset:].clone()")},
 "why": "P2: 'build nothing much larger than the results, so no (offset + T, offset + T) table ... sliced down to its last T rows'."},
{"name": "p2-float-mask", "correct": False,
 "cells": {"alibi_block": R("alibi_block", "return bias, k <= q", "return bias, torch.ones(t, offset + t).tril(diagonal=offset)")},
 "why": "P2: 'allowed, boolean'."},
{"name": "p2-half-positions", "correct": False,
 "cells": {"alibi_block": R("alibi_block", "dist = (q - k).abs()", "dist = (q.to(torch.bfloat16) - k.to(torch.bfloat16)).abs()")},
 "why": "P2: 'Distances and the mask must be exact: float16 and bfloat16 hold every integer only up to 2048 and 256, so keep positions as integers'."},
{"name": "p3-log10", "correct": False,
 "cells": {"reach": "alibi_reach = math.log10(1000) / 2 ** -8\n"},
 "why": "P3: 'gets 1000 times less attention weight' (weights are exp of the score: ln, not log10)."},
{"name": "p3-int", "correct": False,
 "cells": {"reach": "alibi_reach = round(math.log(1000) * 256)\n"},
 "why": "P3: 'a Python float, not an int nor a tensor'."},
{"name": "p3-steepest-head", "correct": False,
 "cells": {"reach": "alibi_reach = math.log(1000) / 2 ** (-8 / 8)\n"},
 "why": "P3: 'In the flattest head (the smallest slope)'."},
{"name": "p3-tensor", "correct": False,
 "cells": {"reach": "alibi_reach = torch.log(torch.tensor(1000.0, dtype=torch.float64)) * 256\n"},
 "why": "P3: 'a Python float, not an int nor a tensor'."},
{"name": "p4-asin-only", "correct": False,
 "cells": {"position": R("position", "ang = math.atan2(s, c) % (2 * math.pi)", "ang = math.asin(s)")},
 "why": "P4: 'get its angle in [0, 2pi) from the sine and the cosine together: a formula that uses only one of them loses the sign'."},
{"name": "p4-acos-only", "correct": False,
 "cells": {"position": R("position", "ang = math.atan2(s, c) % (2 * math.pi)", "ang = math.acos(max(-1.0, min(1.0, c)))")},
 "why": "P4: '... or, in float32, too many digits near some angles'."},
{"name": "p4-no-mod-2pi", "correct": False,
 "cells": {"position": R("position", "ang = math.atan2(s, c) % (2 * math.pi)", "ang = math.atan2(s, c)")},
 "why": "P4: 'get its angle in [0, 2pi)' (atan2 returns (-pi, pi]; D = 16 positions near 10000 pass pi)."},
{"name": "p4-truncate", "correct": False,
 "cells": {"position": R("position", "int(round(ang / omega))", "int(ang / omega)")},
 "why": "P4: 'Return p ... it must be exact for float32 rows too' (truncation of 1233.9996 gives 1233)."},
{"name": "p4-tensor-result", "correct": False,
 "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    ang = torch.remainder(torch.atan2(row[-2].double(), row[-1].double()), 2 * math.pi)
    return torch.round(ang / omega).long()
'''},
 "why": "P4: 'Return p as a Python int'."},
{"name": "p5-uint8-wraps", "correct": False,
 "cells": {"rotate_half": R("rotate_half", "(T - lengths.long())", "(T - lengths).long()")},
 "why": "P5: 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around: in uint8, 300 - 17 is 27'."},
{"name": "p5-cos-padded-with-ones", "correct": False,
 "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("bad rotary_dim")
    half = R // 2
    pos = (torch.arange(T)[None, :] - (T - lengths.long())[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / R)
    ang = pos[..., None] * theta
    ones, zeros = torch.ones(B, T, Dh - R, dtype=torch.float64), torch.zeros(B, T, Dh - R, dtype=torch.float64)
    cos = torch.cat([ang.cos(), ang.cos(), ones], -1)[:, None]
    sin = torch.cat([ang.sin(), ang.sin(), zeros], -1)[:, None]
    xd = x.to(torch.float64)
    rot = torch.cat([-xd[..., half:R], xd[..., :half], torch.zeros_like(xd[..., R:])], -1)
    return (xd * cos + rot * sin).to(x.dtype)
'''},
 "why": "P5: 'features R .. Dh-1 pass through unchanged: they are only moved ... (no arithmetic on them: x * 1 + 0 turns -0.0 into 0.0)'."},
{"name": "p5-Dh-in-exponent", "correct": False,
 "cells": {"rotate_half": R("rotate_half", "dtype=torch.float64) / R)", "dtype=torch.float64) / Dh)")},
 "why": "P5: 'theta_i = base^{-2i/R} (R, not Dh, in the exponent)'."},
{"name": "p5-interleaved-pairs", "correct": False,
 "cells": {"rotate_half": R("rotate_half", "x1 = x[..., :half].to(torch.float64)\n    x2 = x[..., half:R].to(torch.float64)", "x1 = x[..., 0:R:2].to(torch.float64)\n    x2 = x[..., 1:R:2].to(torch.float64)").replace("torch.cat([r1.to(x.dtype), r2.to(x.dtype), x[..., R:]], dim=-1)", "torch.cat([torch.stack([r1, r2], -1).flatten(-2).to(x.dtype), x[..., R:]], dim=-1)")},
 "why": "P5: 'within them, feature i is paired with feature i + R/2 (rotate half)'."},
{"name": "p5-returns-x-when-nothing-rotates", "correct": False,
 "cells": {"rotate_half": R("rotate_half", "    half = R // 2\n", "    if T == 0 or bool((lengths.long() <= 1).all()):\n        return x  # every row is at position 0: nothing to rotate\n    half = R // 2\n")},
 "why": "P5: 'Return a new tensor in the dtype of x, never x itself or a view of it, even when no row is rotated'."},
{"name": "p5-angles-float32", "correct": False,
 "cells": {"rotate_half": R("rotate_half", "ang = pos[..., None] * theta", "ang = (pos.float()[..., None] * theta.float()).double()")},
 "why": "P5: 'Compute the positions, the angles, their sines and cosines in float64'."},
{"name": "p5-upcast-float32", "correct": False,
 "cells": {"rotate_half": R("rotate_half", "x1 = x[..., :half].to(torch.float64)\n    x2 = x[..., half:R].to(torch.float64)", "cos, sin = cos.float(), sin.float()\n    x1 = x[..., :half].float()\n    x2 = x[..., half:R].float()")},
 "why": "P5: 'then rotate in the dtype of x or wider' / 'within 1e-12 for float64 inputs'."},
{"name": "p5-no-raise-R0", "correct": False,
 "cells": {"rotate_half": R("rotate_half", "if R % 2 or R < 2 or R > Dh:", "if R % 2 or R > Dh:")},
 "why": "P5: 'Raise a ValueError unless rotary_dim is even and 2 <= rotary_dim <= Dh'."},
{"name": "p6-answer-a", "correct": False,
 "cells": {"mc": 'answer_cache = "a"\n'},
 "why": "P6: relative positions only hold when both sides use the true positions."},
{"name": "p7-freq-missing-2", "correct": False,
 "cells": {"shift": R("shift", "(-2 * torch.arange(half, dtype=torch.float64) / d_model)", "(-torch.arange(half, dtype=torch.float64) / d_model)")},
 "why": "P7: 'for the sines-first table of Part 1' (omega_i = b^{-2i/D})."},
{"name": "p7-float32-angles", "correct": False,
 "cells": {"shift": R("shift", "w = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)\n    a = offset * w", "w = base ** (-2 * torch.arange(half) / d_model)\n    a = (offset * w).double()")},
 "why": "P7: 'the hidden tests check the matrix itself to 1e-12'."},
{"name": "p7-cached-matrix", "correct": False,
 "cells": {"shift": '''
import functools

@functools.lru_cache(maxsize=None)
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    w = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    a = offset * w
    c, s = a.cos(), a.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i] = c
    m[i + half, i] = s
    m[i, i + half] = -s
    m[i + half, i + half] = c
    return m
'''},
 "why": "P7: 'it must have memory of its own, not be a matrix kept from an earlier call'."},
{"name": "p8-diff-in-output-dtype", "correct": False,
 "cells": {"equivariance": R("equivariance", "(layer(x[:, perm]).to(torch.float64) - ref[:, perm].to(torch.float64)).abs().max().item()", "(layer(x[:, perm]) - ref[:, perm]).abs().max().item()")},
 "why": "P8: 'the outputs may be float16 or bfloat16, where a difference rounds ... so take the differences in float64'."},
{"name": "p8-strict-less", "correct": False,
 "cells": {"equivariance": R("equivariance", "worst <= tol", "worst < tol")},
 "why": "P8: 'a gap equal to tol passes'."},
{"name": "p8-allclose", "correct": False,
 "cells": {"equivariance": R("equivariance", "return bool(worst <= tol), float(worst)", "return all(torch.allclose(layer(x[:, p]), ref[:, p], atol=tol) for p in perms), float(worst)").replace("        worst = max(worst, gap)\n", "        worst = max(worst, gap)\n        perms.append(perm)\n").replace("    worst = 0.0\n", "    worst = 0.0\n    perms = []\n")},
 "why": "P8: 'tol is absolute, not relative to the size of the outputs' (allclose adds rtol * |b|)."},
{"name": "p8-global-rng", "correct": False,
 "cells": {"equivariance": R("equivariance", "torch.randperm(T, generator=generator)", "torch.randperm(T)")},
 "why": "P8: 'each with torch.randperm(T, generator=generator)'; intro: 'may not ... draw from torch's global random number generator'."},
{"name": "p8-redraw-identity", "correct": False,
 "cells": {"equivariance": R("equivariance", "        perm = torch.randperm(T, generator=generator)\n", "        perm = torch.randperm(T, generator=generator)\n        while T > 1 and bool((perm == torch.arange(T)).all()):\n            perm = torch.randperm(T, generator=generator)  # the identity tests nothing\n")},
 "why": "P8: 'Draw trials permutations ... and draw nothing else from generator'."},
{"name": "p8-worst-tensor", "correct": False,
 "cells": {"equivariance": R("equivariance", ".abs().max().item()", ".abs().max()").replace("worst = 0.0", "worst = torch.tensor(0.0, dtype=torch.float64)").replace("float(worst)", "worst")},
 "why": "P8: 'worst a Python float'."},
{"name": "p8-l2-gap", "correct": False,
 "cells": {"equivariance": R("equivariance", "(layer(x[:, perm]).to(torch.float64) - ref[:, perm].to(torch.float64)).abs().max().item()", "torch.dist(layer(x[:, perm]).to(torch.float64), ref[:, perm].to(torch.float64)).item()")},
 "why": "P8: 'the gap is the largest absolute difference ... over all their entries'."},
# ---------------- correct answers ----------------
{"name": "ok-p1-polar-log", "correct": True,
 "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model < 4 or d_model % 2 == 1:
        raise ValueError("need an even d_model >= 4")
    half = d_model // 2
    log_b = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    freqs = torch.exp(-log_b * torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    flat = positions.reshape(-1).to(torch.float64)
    ang = torch.outer(flat, freqs)
    z = torch.polar(torch.ones_like(ang), ang)
    out = torch.cat([z.imag, z.real], dim=1).to(dtype=dtype)
    return out.reshape(*positions.shape, d_model)
'''},
 "why": "log-space base, outer product on flattened positions, torch.polar for sin/cos."},
{"name": "ok-p2-float32-positions-tril", "correct": True,
 "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float32)
    qpos = torch.arange(offset, offset + t, dtype=torch.float32)   # below 2^24: exact in float32
    kpos = torch.arange(0, offset + t, dtype=torch.float32)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = -(slopes.view(-1, 1, 1) * dist)
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''},
 "why": "float32 positions (the text promises offset + T < 2^24), tril with a diagonal on the (T, offset+T) mask only."},
{"name": "ok-p3-via-p2", "correct": True,
 "cells": {"reach": '''
bias, _ = alibi_block(num_heads=8, t=1, offset=1)
flattest = float(-bias[:, 0, 0].max())   # distance 1: bias = -slope; the flattest head has the smallest slope
alibi_reach = math.log(1000.0) / flattest
'''},
 "why": "reads the slope from Part 2's alibi_block, called by keyword with t = 1 and offset = 1."},
{"name": "ok-p4-torch-atan2", "correct": True,
 "cells": {"position": '''
def position_from_encoding(row):
    r = row.to(torch.float64).reshape(-1, 2)        # (D/2, 2): (sin, cos) pairs
    d = row.numel()
    i = r.shape[0] - 1
    omega = math.exp(-math.log(10000.0) * 2 * i / d)
    ang = torch.remainder(torch.atan2(r[i, 0], r[i, 1]), 2 * math.pi)
    return int(torch.round(ang / omega).item())
'''},
 "why": "torch.atan2 in float64 + torch.remainder, reshape into pairs."},
{"name": "ok-p5-via-p1-table", "correct": True,
 "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if not (R % 2 == 0 and 2 <= R <= Dh):
        raise ValueError("rotary_dim must be even with 2 <= rotary_dim <= Dh")
    half = R // 2
    pos = torch.arange(T).expand(B, T) - (T - lengths.to(torch.int64)).unsqueeze(1)
    pos = pos.clamp(min=0)                                   # (B, T) integer positions
    with torch.no_grad():
        if R >= 4:   # Part 1's sines-first table has exactly the rotate-half layout (scale 1)
            table = sinusoidal_table_halves(pos, R, base=base, dtype=torch.float64)
            sin, cos = table[..., :half], table[..., half:]
        else:
            ang = pos.to(torch.float64)[..., None]
            sin, cos = ang.sin(), ang.cos()
    sin, cos = sin[:, None], cos[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:R].double()
    rotated = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., R:]], dim=-1)
'''},
 "why": "calls Part 1 with (B, T) positions, base by keyword, dtype=float64, under torch.no_grad (only the table)."},
{"name": "ok-p5-complex", "correct": True,
 "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    *_, T, Dh = x.shape
    R = rotary_dim
    if R < 2 or R > Dh or R % 2:
        raise ValueError("bad rotary_dim")
    half = R // 2
    L = lengths.long()
    m = torch.clamp(torch.arange(T)[None, :] - T + L[:, None], min=0).double()
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64), -torch.arange(half, dtype=torch.float64) * 2 / R)
    rot = torch.polar(torch.ones(m.shape + (half,), dtype=torch.float64), m[..., None] * theta)[:, None]
    z = torch.complex(x[..., :half].double(), x[..., half:R].double()) * rot
    return torch.cat((z.real.to(x.dtype), z.imag.to(x.dtype), x[..., R:]), dim=-1)
'''},
 "why": "complex128 rotation, then cast back (wider than x)."},
{"name": "ok-p7-via-p1-table", "correct": True,
 "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    k = abs(int(offset))
    if d_model >= 4 and k < 2 ** 62:
        row = sinusoidal_table_halves(torch.tensor(k), d_model, base=base, dtype=torch.float64)  # 0-d position
        s, c = row[:half], row[half:]
    else:
        a = k * base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
        s, c = a.sin(), a.cos()
    if offset < 0:
        s = -s
    eye = torch.eye(half, dtype=torch.float64)
    return torch.cat([torch.cat([eye * c, eye * -s], 1), torch.cat([eye * s, eye * c], 1)], 0)
'''},
 "why": "calls Part 1 on a 0-d position tensor, base and dtype by keyword; block matrix from diagonals."},
{"name": "ok-p8-float64-amax-keywords", "correct": True,
 "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.size(1)
    perms = [torch.randperm(T, generator=generator) for _ in range(trials)]
    gaps = []
    for perm in perms:
        a = layer(x[:, perm]).double()
        b = layer(x).double()[:, perm]
        gaps.append(torch.amax((a - b).abs()))
    worst = float(torch.stack(gaps).max())
    return worst <= tol, worst
'''},
 "why": "all permutations drawn first (same sequence), layer(x) recomputed per trial, float64 amax."},
{"name": "ok-p8-no-grad-loop", "correct": True,
 "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    with torch.no_grad():
        out = layer(x).to(torch.float64)
        for t in range(trials):
            perm = torch.randperm(x.shape[1], generator=generator)
            moved = layer(x.index_select(1, perm)).to(torch.float64)
            gap = (moved - out.index_select(1, perm)).abs().max()
            worst = max(worst, gap.item())
    equivariant = True if worst <= tol else False
    return equivariant, worst
'''},
 "why": "under torch.no_grad, index_select instead of advanced indexing."},
# ---------------- hostile ----------------
{"name": "hostile-str-equal-to-all", "correct": False,
 "cells": {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_cache = Letter("z")
'''},
 "why": "hostile: a str subclass that compares equal to every answer."},
{"name": "hostile-numpy-dunder-import", "correct": False,
 "cells": {"position": '''
np = __import__("nu" + "mpy")
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    ang = np.mod(np.arctan2(float(row[-2]), float(row[-1])), 2 * np.pi)
    return int(np.rint(ang / omega))
'''},
 "why": "hostile: NumPy brought in through __import__."},
{"name": "hostile-patch-assert-close-p7", "correct": False,
 "cells": {"shift": """
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
def shift_matrix_halves(offset, d_model, base=10000.0):
    return torch.eye(d_model, dtype=torch.float64)
"""},
 "why": "hostile: patches torch's comparison functions and returns the identity matrix."},
]
