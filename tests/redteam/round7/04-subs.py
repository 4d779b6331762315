# Red-team round 7, chapter 04 (positional encoding), blind submissions.
SUBMISSIONS = [
# ---------------- Part 1: table halves ----------------
{"name": "p1-base-times-scale-squared", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** 2          # slowest frequency b^-1/2 -> (b s^2)^-1/2 = b^-1/2 / s
    i = torch.arange(d_model // 2, dtype=torch.float64)
    angles = positions.to(torch.float64)[..., None] * b ** (-2 * i / d_model)
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "'Work out which base does that (it depends on D)': b * scale**2 is right for D = 4 only; it must be b * scale**(D/(D-2))"},
{"name": "p1-integer-division-exponent", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** (d_model // (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    angles = positions.to(torch.float64)[..., None] * b ** (-2 * i / d_model)
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "'the slowest one is divided by scale': D // (D - 2) is 1 for D >= 6 (the exponent must be D / (D - 2))"},
{"name": "p1-only-slowest-divided", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    i = torch.arange(d_model // 2, dtype=torch.float64)
    omega = base ** (-2 * i / d_model)
    omega[-1] = omega[-1] / scale          # the fastest stays, the slowest turns scale times slower
    angles = positions.to(torch.float64)[..., None] * omega
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "'keeps the frequencies geometric and changes only the base': only the last frequency is changed; same for D = 4 (two frequencies)"},
{"name": "p1-atleast-1d-scalar-position", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    p = torch.atleast_1d(positions).to(torch.float64)
    angles = p[..., None] * b ** (-2 * i / d_model)
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "'positions is an integer tensor of any shape (...) (one position, ...): return the (..., d_model) tensor': a 0-d position gives (1, D) instead of (D,)"},
{"name": "p1-positions-through-dtype", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    p = positions.to(dtype).to(torch.float64)       # positions as the table's dtype, angles in float64
    angles = p[..., None] * b ** (-2 * i / d_model)
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "'the sines-first encoding of each position, in dtype' / 'up to the largest value the dtype holds': bfloat16 rounds position 257 to 256 (and float16 2049 to 2048) before the angles"},
# ---------------- Part 2: alibi block ----------------
{"name": "p2-lesson-rule-non-power-of-two", "correct": False, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    def power_of_two(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]
    lower = 2 ** math.floor(math.log2(num_heads))
    slopes = power_of_two(lower)
    if lower < num_heads:
        slopes += power_of_two(2 * lower)[0::2][: num_heads - lower]
    slopes = torch.tensor(slopes)
    qpos = offset + torch.arange(t)
    kpos = torch.arange(offset + t)
    bias = -slopes[:, None, None] * (qpos[:, None] - kpos[None, :]).abs()
    return bias.float(), kpos[None, :] <= qpos[:, None]
'''}, "why": "'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'"},
{"name": "p2-slope-parenthesis", "correct": False, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2 ** (-8 / num_heads) * (h + 1) for h in range(num_heads)])
    qpos = offset + torch.arange(t)
    kpos = torch.arange(offset + t)
    bias = -slopes[:, None, None] * (qpos[:, None] - kpos[None, :]).abs()
    return bias.float(), kpos[None, :] <= qpos[:, None]
'''}, "why": "'m_h = 2^{-8(h+1)/H}': 2**(-8/H) * (h+1) multiplies instead of raising; head 0 (the only one checked) is right"},
{"name": "ok-p2-where-distance-square-tril", "correct": True, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)])
    s = offset + t
    # distance key-to-query: |offset + i - j| = offset + i - j below the diagonal, j - offset - i above
    i = torch.arange(t)[:, None]
    j = torch.arange(s)[None, :]
    dist = torch.where(j <= offset + i, offset + i - j, j - offset - i)
    allowed = (j <= offset + i) if offset > 0 else torch.ones(t, s, dtype=torch.bool).tril()
    return (-slopes[:, None, None] * dist).float(), allowed.clone()
'''}, "why": "distance from torch.where on the two sides of the diagonal; a square tril when offset = 0"},
# ---------------- Part 3: reach ----------------
{"name": "p3-log10", "correct": False, "cells": {"reach": '''
alibi_reach = math.log10(1000) / 2 ** -8
'''}, "why": "'1000 times less attention weight': the softmax weight ratio is exp(-m d), so d = ln(1000) / m, not log10"},
{"name": "p3-steepest-head", "correct": False, "cells": {"reach": '''
alibi_reach = math.log(1000) / 2 ** (-8 / 8)
'''}, "why": "'In the flattest head (the smallest slope)': uses head 0's slope 2^-1"},
# ---------------- Part 4: position ----------------
{"name": "p4-asin-only", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round(math.asin(float(row[d - 2])) / omega))
'''}, "why": "'get its angle in [0, 2pi) from the sine and the cosine together: a formula that uses only one of them loses the sign'"},
{"name": "p4-atan2-not-wrapped", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round(math.atan2(float(row[d - 2]), float(row[d - 1])) / omega))
'''}, "why": "'get its angle in [0, 2pi)': atan2 returns (-pi, pi]; for D = 16 the positions 9935..9999 have angles past pi and come back negative"},
{"name": "p4-returns-0d-tensor", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.atan2(row[d - 2].double(), row[d - 1].double()) % (2 * math.pi)
    return torch.round(angle / omega).long()
'''}, "why": "'Return p as a Python int': returns a 0-d int64 tensor (compares equal to the int in the visible test)"},
{"name": "p4-acos-float32", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    s, c = row[d - 2], row[d - 1]
    angle = torch.acos(c).item()
    if s < 0:
        angle = 2 * math.pi - angle
    return int(round(angle / omega))
'''}, "why": "'it must be exact for float32 rows too ... a formula that uses only one of them ... in float32, too many digits near some angles': acos of a float32 cosine near 1 rounds small positions to 0"},
# ---------------- Part 5: rope partial ----------------
{"name": "p5-head-dim-in-exponent", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / dh)
    ang = pos.double()[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., : r // 2].double(), x[..., r // 2: r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "'theta_i = base^{-2i/R} ... (R, not Dh, in the exponent)'"},
{"name": "p5-adjacent-pairs", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    ang = pos.double()[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., 0:r:2].double(), x[..., 1:r:2].double()
    y = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    return torch.cat([y.to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "'feature i is paired with feature i + R/2 (\"rotate half\")': pairs 2i and 2i+1 as the lesson does; same when R = 2"},
{"name": "p5-base-hardcoded", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    theta = 10000.0 ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    ang = pos.double()[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., : r // 2].double(), x[..., r // 2: r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "'theta_i = base^{-2i/R}': ignores the base argument"},
{"name": "p5-rotary-dim-zero-accepted", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 != 0 or r > dh:
        raise ValueError("rotary_dim must be even and at most Dh")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / max(r, 1))
    ang = pos.double()[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., : r // 2].double(), x[..., r // 2: r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "'Raise a ValueError unless rotary_dim is even and 2 <= rotary_dim <= Dh': 0 (and negative even values) are accepted"},
{"name": "p5-returns-x-when-nothing-rotates", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    if not bool((pos > 0).any()):
        return x                      # every row at position 0: the rotation is the identity
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    ang = pos.double()[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., : r // 2].double(), x[..., r // 2: r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "'Return a new tensor ..., never x itself or a view of it, even when no row is rotated'"},
{"name": "ok-p5-cumsum-positions", "correct": True, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    # position of row t: its index among the real tokens (count of real rows up to and including it, minus 1)
    real = torch.arange(t)[None, :] >= (t - lengths.long())[:, None]
    pos = (real.long().cumsum(dim=1) - 1).clamp(min=0)
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    ang = pos.double()[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., : r // 2].double(), x[..., r // 2: r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "positions as the running count of real tokens minus 1, clamped at 0"},
# ---------------- Part 6: mc ----------------
{"name": "p6-answer-a", "correct": False, "cells": {"mc": '''
answer_cache = "a"
'''}, "why": "'the keys of positions 0 .. P-1 were rotated when they were computed': the offset between a new query and a cached key changes by P, so (b)"},
# ---------------- Part 7: shift ----------------
{"name": "p7-interleaved-layout", "correct": False, "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        a = offset * base ** (-2 * i / d_model)
        m[2 * i, 2 * i] = math.cos(a)
        m[2 * i, 2 * i + 1] = -math.sin(a)
        m[2 * i + 1, 2 * i] = math.sin(a)
        m[2 * i + 1, 2 * i + 1] = math.cos(a)
    return m
'''}, "why": "'for the sines-first table of Part 1': the lesson's block-diagonal matrix for the interleaved table; the same for D = 2"},
{"name": "p7-base-ignored", "correct": False, "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    a = offset * 10000.0 ** (-2 * torch.arange(h, dtype=torch.float64) / d_model)
    c, s = a.cos().diag(), a.sin().diag()
    return torch.cat([torch.cat([c, -s], dim=1), torch.cat([s, c], dim=1)], dim=0)
'''}, "why": "'shift_matrix_halves(offset, d_model, base=10000.0)' ... 'sinusoidal_table_halves(torch.arange(n), d_model, base, ...)': the base argument is ignored"},
{"name": "p7-frequency-exponent-i-over-D", "correct": False, "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    a = offset * base ** (-torch.arange(0, h, dtype=torch.float64) / h / 2)
    c, s = a.cos().diag(), a.sin().diag()
    return torch.cat([torch.cat([c, -s], dim=1), torch.cat([s, c], dim=1)], dim=0)
'''}, "why": "'omega_i = b^{-2i/D}' (Part 1): uses b^{-i/D}; one frequency (D = 2) hides it"},
# ---------------- Part 8: equivariance ----------------
{"name": "p8-allclose-relative", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst, ok = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        got, want = layer(x[:, perm]), ref[:, perm]
        worst = max(worst, (got - want).abs().max().item())
        ok = ok and torch.allclose(got, want, atol=tol)
    return bool(ok), float(worst)
'''}, "why": "'tol is absolute, not relative to the size of the outputs': allclose adds rtol=1e-5 * |want|"},
{"name": "p8-strict-less", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]) - ref[:, perm]).abs().max().item())
    return worst < tol, float(worst)
'''}, "why": "'True exactly when worst <= tol (a gap equal to tol passes)'"},
{"name": "p8-signed-max", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]) - ref[:, perm]).max().item())
    return worst <= tol, float(worst)
'''}, "why": "'the gap is the largest absolute difference': takes the largest signed difference, missing gaps where the permuted output is smaller"},
{"name": "p8-stop-at-first-failure", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]) - ref[:, perm]).abs().max().item())
        if worst > tol:
            return False, float(worst)      # no need to go on
    return True, float(worst)
'''}, "why": "'Draw trials permutations' and 'worst is the largest gap over all trials': stops at the first failing trial"},
{"name": "p8-mean-gap", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]) - ref[:, perm]).abs().amax(dim=(-2, -1)).mean().item()   # per sample, then averaged
        worst = max(worst, gap)
    return worst <= tol, float(worst)
'''}, "why": "'the largest absolute difference ... over all their entries': averages the per-sample maxima over the batch (same for B = 1)"},
# ---------------- hostile ----------------
{"name": "hostile-float-that-equals-everything", "correct": False, "cells": {"reach": '''
class Reach(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return Reach(0.0)
    def __rsub__(self, other):
        return Reach(0.0)
    def __abs__(self):
        return Reach(0.0)
    def __lt__(self, other):
        return True
    def __le__(self, other):
        return True
    __hash__ = float.__hash__

alibi_reach = Reach(1.0)
'''}, "why": "hostile: a float subclass that is equal to and within any tolerance of anything"},
{"name": "hostile-patch-torch-testing", "correct": False, "cells": {"shift": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None
torch.equal = lambda *args, **kwargs: True

def shift_matrix_halves(offset, d_model, base=10000.0):
    return torch.zeros(d_model, d_model, dtype=torch.float64)
'''}, "why": "hostile: replaces torch.testing.assert_close and torch.equal with no-ops"},
{"name": "hostile-frame-peek-position", "correct": False, "cells": {"position": '''
import sys as system

def position_from_encoding(row):
    frame = system._getframe(1)
    while frame is not None:
        for name in ("p", "position", "expected", "pos"):
            value = frame.f_locals.get(name)
            if type(value) is int:
                return value
        frame = frame.f_back
    d = row.shape[-1]
    return int(round(math.atan2(float(row[d - 2]), float(row[d - 1])) / 10000.0 ** (-(d - 2) / d)))
'''}, "why": "hostile: returns the caller's loop variable instead of decoding the row"},
# ---------------- correct, written differently ----------------
{"name": "ok-p1-complex-polar", "correct": True, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    half = d_model // 2
    new_base = math.exp(math.log(base) + math.log(scale) * d_model / (d_model - 2))
    log_omega = -math.log(new_base) * torch.arange(half, dtype=torch.float64) * 2 / d_model
    angles = positions.double().unsqueeze(-1) * log_omega.exp()
    z = torch.polar(torch.ones_like(angles), angles)
    return torch.cat([z.imag, z.real], dim=-1).to(dtype)
'''}, "why": "base via logs, sines and cosines as the imaginary and real parts of complex128 unit numbers"},
{"name": "ok-p4-nearest-row", "correct": True, "cells": {"position": '''
def position_from_encoding(row):
    d = row.numel()
    p = torch.arange(10000, dtype=torch.float64)[:, None]
    omega = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    table = torch.stack([(p * omega).sin(), (p * omega).cos()], dim=-1).reshape(10000, d)
    return int((table - row.double()).abs().sum(dim=1).argmin())
'''}, "why": "brute force: the nearest row of the whole table"},
{"name": "ok-p7-permuted-interleaved", "correct": True, "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        a = offset * base ** (-2 * i / d_model)
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = torch.tensor([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]],
                                                          dtype=torch.float64)
    order = torch.cat([torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)])  # halves column c = interleaved order[c]
    return m[order][:, order]
'''}, "why": "interleaved block-diagonal matrix conjugated by the halves permutation"},
{"name": "ok-p8-batched-stack", "correct": True, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    n = x.shape[-2]
    perms = [torch.randperm(n, generator=generator) for _ in range(trials)]
    base_out = layer(x)
    gaps = torch.stack([(layer(x[:, p]) - base_out[:, p]).abs().max() for p in perms])
    worst = float(gaps.max())
    return bool(worst <= tol), worst
'''}, "why": "all permutations drawn first, gaps stacked"},

{"name": "p2-floor-division-exponent", "correct": False, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8 * (h + 1) // num_heads) for h in range(num_heads)])
    qpos = offset + torch.arange(t)
    kpos = torch.arange(offset + t)
    bias = -slopes[:, None, None] * (qpos[:, None] - kpos[None, :]).abs()
    return bias.float(), kpos[None, :] <= qpos[:, None]
'''}, "why": "'m_h = 2^{-8(h+1)/H} ... Use this formula for every H': // floors the exponent, wrong whenever H does not divide 8(h+1)"},
{"name": "p4-floor-not-round", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(row[d - 2]), float(row[d - 1])) % (2 * math.pi)
    return int(angle / omega)
'''}, "why": "'Return p ... it must be exact for float32 rows too': truncates angle / omega, so a quotient just below p gives p - 1"},
{"name": "p5-loop-negative-slice-zero-length", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    out = x.clone()
    for i in range(b):
        n = int(lengths[i])
        real = x[i, :, -n:]                              # the last n rows are the real tokens
        ang = torch.arange(real.shape[1], dtype=torch.float64)[:, None] * theta
        cos, sin = ang.cos(), ang.sin()
        x1, x2 = real[..., : r // 2].double(), real[..., r // 2: r].double()
        out[i, :, -n:, : r // 2] = (x1 * cos - x2 * sin).to(x.dtype)
        out[i, :, -n:, r // 2: r] = (x1 * sin + x2 * cos).to(x.dtype)
    return out
'''}, "why": "'0 <= lengths[b]' and 'Padding rows ... come back unchanged': for lengths[b] = 0, [-0:] is every row, so an all-padding sequence is rotated as positions 0..T-1"},
{"name": "p8-gaps-in-default-float-tensor", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gaps.append((layer(x[:, perm]) - ref[:, perm]).abs().max().item())
    worst = torch.tensor(gaps).max()
    return bool(worst <= tol), worst.item()
'''}, "why": "'worst a Python float' and 'True exactly when worst <= tol (a gap equal to tol passes)': torch.tensor(list of floats) is float32, so a float64 gap just above tol rounds onto it and passes, and worst is rounded"},
{"name": "ok-p7-negative-offset-transpose", "correct": True, "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    if offset < 0:
        return shift_matrix_halves(-offset, d_model, base).T.contiguous()   # rotations: M_{-k} = M_k^-1 = M_k^T
    h = d_model // 2
    m = torch.eye(d_model, dtype=torch.float64)
    for i in range(h):
        a = offset * base ** (-2 * i / d_model)
        c, s = math.cos(a), math.sin(a)
        m[i, i], m[i, i + h], m[i + h, i], m[i + h, i + h] = c, -s, s, c
    return m
'''}, "why": "negative offsets as the transpose of the positive shift; Python math per frequency"},

{"name": "p8-int-zero-worst-for-exact-layer", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst = 0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]) - ref[:, perm]).abs().max().item())
    return worst <= tol, worst
'''}, "why": "'worst a Python float': when every gap is exactly 0.0 (an exactly equivariant layer such as the identity), max(0, 0.0) keeps the int 0"},
]
