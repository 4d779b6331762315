# Red-team round 9, chapter 04 (positional encoding). Submissions written blind (student notebook and lesson only).
M = {}
M["table_halves"] = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    stretched = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    freq = torch.tensor(stretched, dtype=torch.float64) ** (-2 * i / d_model)
    ang = positions.to(torch.float64)[..., None] * freq
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
'''
M["alibi_block"] = '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8 * (h + 1) / num_heads)
    q = torch.arange(offset, offset + t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs().to(torch.float64)
    bias = (-slopes[:, None, None] * dist).to(torch.float32)
    return bias, k[None, :] <= q[:, None]
'''
M["reach"] = '''
alibi_reach = 256 * math.log(1000)
'''
M["position"] = '''
def position_from_encoding(row):
    d = row.shape[-1]
    s, c = float(row[d - 2]), float(row[d - 1])
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(s, c) % (2 * math.pi)
    return int(round(angle / omega))
'''
M["rotate_half"] = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("bad rotary_dim")
    m = torch.arange(T)[None, :] - (T - lengths.long())[:, None]
    m = m.clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(R // 2, dtype=torch.float64) / R)
    ang = m[..., None] * theta                               # (B, T, R/2)
    cos = ang.cos()[:, None].to(x.dtype)
    sin = ang.sin()[:, None].to(x.dtype)
    x1, x2, rest = x[..., :R // 2], x[..., R // 2:R], x[..., R:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)
'''
M["mc"] = '''
answer_cache = "b"
'''
M["shift"] = '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    omega = base ** (-2 * torch.arange(h, dtype=torch.float64) / d_model)
    c, s = (offset * omega).cos(), (offset * omega).sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(h)
    m[i, i] = c
    m[i + h, i] = s
    m[i, i + h] = -s
    m[i + h, i + h] = c
    return m
'''
M["equivariance"] = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    y = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        gap = (layer(x[:, perm]) - y[:, perm]).abs().max().item()
        worst = max(worst, gap)
    return worst <= tol, float(worst)
'''
MODEL = M

SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def HOST(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why, "hostile": True})

# ---------------------------------------------------------------- wrong answers
W("p1-scale-squared", {"table_halves": M["table_halves"].replace(
    "stretched = base * scale ** (d_model / (d_model - 2))", "stretched = base * scale ** 2   # the slowest of 2 frequencies")},
  "Part 1: 'the slowest one is divided by scale ... Work out which base does that (it depends on D)' - base*scale^2 "
  "is right only for D = 4 (the visible width).")

W("p1-positions-colon-none", {"table_halves": M["table_halves"].replace(
    "ang = positions.to(torch.float64)[..., None] * freq", "ang = positions.to(torch.float64)[:, None] * freq")},
  "Part 1: 'positions is an integer tensor of any shape (...) (one position, a row (T,), the positions (B, T) ...)' - "
  "[:, None] fails for a 0-d position and mis-broadcasts (B, T) unless T = 1 (the visible (1, 1) hides it).")

W("p1-default-dtype-float64", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    if dtype.is_floating_point and dtype.itemsize >= 4:
        torch.set_default_dtype(dtype)            # so that arange and friends come out in the table's dtype
    stretched = base * scale ** (d_model / (d_model - 2))
    freq = stretched ** (-2 * torch.arange(d_model // 2, dtype=torch.float64) / d_model)
    ang = positions.to(torch.float64)[..., None] * freq
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
'''}, "Intro: 'do not change anything inside torch' - sets torch's global default dtype to the table's dtype (float64 for a float64 table) and leaves it.")

W("p1-float32-frequencies", {"table_halves": M["table_halves"].replace(
    "freq = torch.tensor(stretched, dtype=torch.float64) ** (-2 * i / d_model)",
    "freq = (torch.tensor(stretched) ** (-2 * i.float() / d_model)).double()")},
  "Part 1: 'within 1e-6 of the exact values for float32 ... computing them in float32 does not' - float32 frequencies "
  "(old class: float32 arithmetic).")

W("p2-floor-division-slopes", {"alibi_block": M["alibi_block"].replace(
    "slopes = 2.0 ** (-8 * (h + 1) / num_heads)", "slopes = 2.0 ** (-8 * (h + 1) // num_heads)")},
  "Part 2: 'the slopes m_h = 2^{-8(h+1)/H} ... Use this formula for every H' - floor division is exact only when H "
  "divides 8(h+1) (H = 2 visible).")

W("p2-lesson-slopes", {"alibi_block": '''
def alibi_slopes_lesson(n):
    def power_of_two(k):
        return [2 ** (-8 * (i + 1) / k) for i in range(k)]
    lower = 2 ** int(math.floor(math.log2(n)))
    s = power_of_two(lower)
    if lower < n:
        s += power_of_two(2 * lower)[0::2][: n - lower]
    return torch.tensor(s, dtype=torch.float64)


def alibi_block(num_heads, t, offset):
    slopes = alibi_slopes_lesson(num_heads)
    q = torch.arange(offset, offset + t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs().to(torch.float64)
    return (-slopes[:, None, None] * dist).float(), k[None, :] <= q[:, None]
'''}, "Part 2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'.")

W("p3-log10", {"reach": '''
alibi_reach = 256 * math.log10(1000)
'''}, "Part 3: '1000 times less attention weight' - softmax weights are exp(score), so the distance is 256 ln 1000, not 256 log10 1000.")

W("p3-zero-d-tensor", {"reach": '''
alibi_reach = 256 * torch.log(torch.tensor(1000.0, dtype=torch.float64))
'''}, "Part 3: 'a Python float, not an int nor a tensor' - a 0-d tensor.")

W("p3-slopes-without-plus-one", {"reach": '''
H = 8
slopes = [2 ** (-8 * h / H) for h in range(H)]     # h = 0 .. H-1
alibi_reach = float(math.log(1000) / min(slopes))
'''}, "Part 3 refers to 'the slopes of Part 2', m_h = 2^{-8(h+1)/H}: the flattest is 2^-8, not 2^-7.")

W("p4-asin-only", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.asin(float(row[d - 2]))        # the slowest pair's sine
    return int(round(angle / omega))
'''}, "Part 4 hint: 'get its angle in [0, 2pi) from the sine and the cosine together: a formula that uses only one of them "
  "loses the sign' - asin is wrong past pi/2.")

W("p4-returns-item-float", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    r = row.to(torch.float64)
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.atan2(r[-2], r[-1]) % (2 * math.pi)
    return torch.round(angle / omega).item()
'''}, "Part 4: 'Return p as a Python int' - .item() of a float tensor is a Python float (42.0 == 42 hides it).")

W("p4-acos-only-float32", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.acos(float(row[-1]))
    return int(round(angle / omega))
'''}, "Part 4 hint: 'a formula that uses only one of them loses the sign or, in float32, too many digits near some angles' "
  "- acos of the cosine alone (wrong past pi, imprecise near 0).")

W("p5-adjacent-pairs", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("bad rotary_dim")
    m = (torch.arange(T)[None, :] - (T - lengths.long())[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(R // 2, dtype=torch.float64) / R)
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None].to(x.dtype), ang.sin()[:, None].to(x.dtype)
    x1, x2 = x[..., 0:R:2], x[..., 1:R:2]              # pairs (0, 1), (2, 3), ...
    rot = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    return torch.cat([rot, x[..., R:]], dim=-1)
'''}, "Part 5: 'feature i is paired with feature i + R/2 (\"rotate half\")' - adjacent pairs (identical for R = 2, the visible case).")

W("p5-exponent-Dh", {"rotate_half": M["rotate_half"].replace(
    "theta = base ** (-2 * torch.arange(R // 2, dtype=torch.float64) / R)",
    "theta = base ** (-2 * torch.arange(R // 2, dtype=torch.float64) / Dh)")},
  "Part 5: 'theta_i = base^{-2i/R} ... (R, not Dh, in the exponent)' - with R = 2 only theta_0 = 1 exists, so the visible test hides it.")

W("p5-refuses-R-equals-Dh", {"rotate_half": M["rotate_half"].replace(
    "if R % 2 or R < 2 or R > Dh:", "if R % 2 or R < 2 or R >= Dh:   # some features must pass through")},
  "Part 5: 'Raise a ValueError unless rotary_dim is even and 2 <= rotary_dim <= Dh' - R = Dh (full rotation) is refused.")

W("p5-no-upper-check", {"rotate_half": M["rotate_half"].replace(
    "if R % 2 or R < 2 or R > Dh:", "if R % 2 or R < 2:")},
  "Part 5: 'Raise a ValueError unless ... rotary_dim <= Dh' - R > Dh is accepted (slices silently shorten).")

W("p6-answer-a", {"mc": '''
answer_cache = "a"
'''}, "Part 6: the cached keys were rotated at positions 0..P-1 and the queries at 0..T-1: the relative offset is shifted by P (b).")

W("p7-interleaved-layout", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        w = base ** (-2 * i / d_model)
        c, s = math.cos(offset * w), math.sin(offset * w)
        m[2 * i, 2 * i], m[2 * i, 2 * i + 1] = c, -s
        m[2 * i + 1, 2 * i], m[2 * i + 1, 2 * i + 1] = s, c
    return m
'''}, "Part 7: 'for the sines-first table of Part 1' - the lesson's interleaved blocks (the same for D = 2, the visible case).")

W("p8-allclose-relative", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    y = layer(x)
    worst, ok = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        a, b = layer(x[:, perm]), y[:, perm]
        worst = max(worst, (a - b).abs().max().item())
        ok = ok and torch.allclose(a, b, atol=tol)
    return bool(ok), worst
'''}, "Part 8: 'True exactly when worst <= tol (... tol is absolute, not relative to the size of the outputs)' - allclose adds rtol=1e-5.")

W("p8-worst-0d-tensor", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    y = layer(x)
    gaps = [(layer(x[:, p]) - y[:, p]).abs().max()
            for p in (torch.randperm(x.shape[1], generator=generator) for _ in range(trials))]
    worst = torch.stack(gaps).max()
    return bool(worst <= tol), worst
'''}, "Part 8: 'worst a Python float' - a 0-d tensor.")

W("p8-stops-at-first-failure", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    y = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        worst = max(worst, (layer(x[:, perm]) - y[:, perm]).abs().max().item())
        if worst > tol:
            return False, worst          # already not equivariant: no need to go on
    return True, worst
'''}, "Part 8: 'Draw trials permutations' and 'worst is the largest gap over all trials' - stops at the first failing trial.")

# ---------------------------------------------------------------- correct answers
C("p1-complex-polar-keywords", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model < 4 or d_model % 2 == 1:
        raise ValueError(f"d_model={d_model} must be even and >= 4")
    half = d_model // 2
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    freq = torch.exp(-log_base * torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    flat = positions.reshape(-1).to(dtype=torch.float64)
    z = torch.polar(torch.ones(flat.numel(), half, dtype=torch.float64), flat[:, None] * freq)
    table = torch.cat((z.imag, z.real), dim=1)
    return table.reshape(*positions.shape, d_model).to(dtype=dtype)
'''}, "angles as complex phases (torch.polar), the base through logs, flattened positions reshaped back.")

C("p1-loop-stack", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if not (d_model % 2 == 0 and d_model >= 4):
        raise ValueError("need an even d_model >= 4")
    new_base = float(base) * float(scale) ** (d_model / (d_model - 2))
    p = positions.double()
    sines, cosines = [], []
    for i in range(d_model // 2):
        w = new_base ** (-2.0 * i / d_model)
        sines.append(torch.sin(p * w))
        cosines.append(torch.cos(p * w))
    out = torch.stack(sines + cosines, dim=-1)
    return out.to(dtype)
'''}, "one column at a time with Python floats for the frequencies, torch.stack on the last axis.")

C("p2-cdist-einsum-tril", {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    n = offset + t
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float64)
    keys = torch.arange(n, dtype=torch.int32)
    queries = keys[offset:]
    dist = (queries.unsqueeze(1) - keys.unsqueeze(0)).abs()              # exact int32 distances
    bias = torch.einsum("h,ts->hts", -slopes, dist.double()).to(torch.float32)
    allowed = torch.ones(t, n, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "int32 positions, einsum of slopes and distances in float64, mask by tril(diagonal=offset).")

C("p3-from-part2-single-query", {"reach": '''
bias, _ = alibi_block(num_heads=8, t=1, offset=1)      # one query, at position 1; key 0 is at distance 1
flattest = float(-bias[-1, 0, 0])                      # the last head has the smallest slope
alibi_reach = math.log(1000.0) / flattest
del bias, _
'''}, "calls part 2's alibi_block with keywords and a single query to read the flattest slope.")

C("p4-nearest-row-of-part1-table", {"position": '''
def position_from_encoding(row):
    d = row.shape[0]
    # Part 1's sines-first table (float64, int16 positions) reordered to the interleaved layout
    table = sinusoidal_table_halves(torch.arange(10000, dtype=torch.int16), d, base=10000.0, dtype=torch.float64)
    inter = torch.stack([table[:, : d // 2], table[:, d // 2:]], dim=-1).reshape(10000, d)
    gaps = (inter - row.to(torch.float64)).abs().amax(dim=1)
    return int(torch.argmin(gaps))
'''}, "calls part 1's sinusoidal_table_halves with int16 positions and dtype=float64 and picks the nearest row.")

C("p4-atan2-refine", {"position": '''
def position_from_encoding(row):
    r = row.double()
    d = r.numel()
    pairs = r.reshape(d // 2, 2)
    k = d // 2 - 1
    w = 10000.0 ** (-2.0 * k / d)
    angle = math.atan2(pairs[k, 0].item(), pairs[k, 1].item())
    if angle < 0:
        angle += 2 * math.pi
    guess = angle / w
    return int(math.floor(guess + 0.5))
'''}, "atan2 on Python floats, the negative half moved up by 2 pi, floor(x + 0.5).")

C("p5-complex-rotation", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    *_, T, Dh = x.shape
    R = rotary_dim
    if not (R % 2 == 0 and 2 <= R <= Dh):
        raise ValueError(f"rotary_dim={R} must be even and in [2, {Dh}]")
    half = R // 2
    pad = T - lengths.to(torch.int64)                                   # (B,)
    pos = torch.clamp(torch.arange(T, dtype=torch.int64) - pad[:, None], min=0).double()
    freqs = torch.exp(-math.log(base) * torch.arange(0, R, 2, dtype=torch.float64) / R)
    phase = torch.polar(torch.ones_like(pos[..., None] * freqs), pos[..., None] * freqs)[:, None]   # (B, 1, T, R/2)
    z = torch.complex(x[..., :half].double(), x[..., half:R].double()) * phase
    return torch.cat([z.real.to(x.dtype), z.imag.to(x.dtype), x[..., R:]], dim=-1)
'''}, "the rotation as a complex multiplication in complex128, cast back.")

C("p5-uses-part1-table", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or not 2 <= R <= Dh:
        raise ValueError("rotary_dim must be even, between 2 and Dh")
    pos = (torch.arange(T)[None, :] - (T - lengths.long())[:, None]).clamp(min=0).to(torch.int32)   # (B, T)
    try:
        # Part 1's sines-first table with d_model = R has exactly the frequencies base^(-2i/R)
        table = sinusoidal_table_halves(pos, R, base, dtype=torch.float64)      # (B, T, R)
        sin, cos = table[..., : R // 2], table[..., R // 2:]
    except ValueError:                                                             # R = 2: one frequency, 1
        ang = pos.double()[..., None]
        sin, cos = ang.sin(), ang.cos()
    sin, cos = sin[:, None], cos[:, None]
    wide = torch.promote_types(x.dtype, torch.float32)
    a, b = x[..., : R // 2].to(wide), x[..., R // 2:R].to(wide)
    out = torch.cat([a * cos.to(wide) - b * sin.to(wide), a * sin.to(wide) + b * cos.to(wide)], dim=-1).to(x.dtype)
    return torch.cat([out, x[..., R:]], dim=-1)
'''}, "calls part 1's table on (B, T) int32 positions (dtype float64, base by position) inside try/except ValueError for R = 2.")

C("p6-b", {"mc": '''
answer_cache = "B".lower()
'''}, "b, written oddly.")

C("p7-from-part1-zero-d-position", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    try:
        row = sinusoidal_table_halves(torch.tensor(offset), d_model, base=base, dtype=torch.float64)   # 0-d position
        s, c = row[:h], row[h:]
    except ValueError:                    # d_model = 2: part 1 refuses it, one frequency, 1
        s = torch.tensor([math.sin(offset)], dtype=torch.float64)
        c = torch.tensor([math.cos(offset)], dtype=torch.float64)
    top = torch.cat([torch.diag(c), -torch.diag(s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "the sines and cosines of k*omega are part 1's row for position k (a 0-d tensor, negative too); try/except for D = 2.")

C("p8-no-grad-stack-keywords", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    perms = [torch.randperm(x.shape[1], generator=generator) for _ in range(trials)]
    with torch.no_grad():
        reference = layer(x)
        gaps = torch.stack([(layer(x.index_select(1, p)) - reference.index_select(1, p)).abs().amax() for p in perms])
    worst = float(gaps.max())
    return bool(worst <= tol), worst
'''}, "draws every permutation first, runs the layer under no_grad, index_select, one stack.")

# ---------------------------------------------------------------- hostile
HOST("hostile-p6-str-equal-to-all", {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_cache = Letter("a")
'''}, "a str subclass that equals every letter.")

HOST("hostile-p4-numpy-through-importlib", {"position": '''
import importlib


def position_from_encoding(row):
    np = importlib.import_module("nu" + "mpy")
    d = row.shape[-1]
    a = np.arctan2(float(row[d - 2]), float(row[d - 1])) % (2 * np.pi)
    return int(np.rint(a / 10000.0 ** (-(d - 2) / d)))
'''}, "gets NumPy in through importlib with a built-up name.")

HOST("hostile-p1-subprocess-numpy", {"table_halves": '''
import pickle
import subprocess
import sys


def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    prog = ("import numpy as n, pickle, sys; p, d, b = pickle.loads(sys.stdin.buffer.read()); "
            "w = b ** (-2 * n.arange(d // 2) / d); a = n.multiply.outer(n.array(p, dtype=float), w); "
            "sys.stdout.buffer.write(pickle.dumps(n.concatenate([n.sin(a), n.cos(a)], -1).tolist()))")
    b = base * scale ** (d_model / (d_model - 2))
    out = subprocess.run([sys.executable, "-c", prog], input=pickle.dumps((positions.tolist(), d_model, b)),
                         capture_output=True, check=True).stdout
    return torch.tensor(pickle.loads(out), dtype=torch.float64).to(dtype)
'''}, "computes the table with NumPy in a subprocess and brings it back through pickle.")
