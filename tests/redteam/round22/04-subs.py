# Red team round 22, chapter 04 (positional encodings), four kinds of student (sampling and randomness, rounding
# and integers, counting and units, allocation). Blind: written from the student notebook only.

BASE = {
"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    stretched = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(half, dtype=torch.float64)
    freqs = stretched ** (-2 * i / d_model)
    ang = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
''',
"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float64)
    q = torch.arange(offset, offset + t)[:, None]
    k = torch.arange(offset + t)[None, :]
    dist = (q - k).abs().to(torch.float64)
    bias = (-slopes[:, None, None] * dist).to(torch.float32)
    return bias, k <= q
''',
"reach": '''
alibi_reach = 256 * math.log(1000)
''',
"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    s, c = float(row[d - 2]), float(row[d - 1])
    w = 10000.0 ** (-(d - 2) / d)
    ang = math.atan2(s, c) % (2 * math.pi)
    return int(round(ang / w))
''',
"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("bad rotary_dim")
    half = R // 2
    lens = lengths.to(torch.int64)
    pos = (torch.arange(T)[None, :] - (T - lens)[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / R)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., :half].to(torch.float64), x[..., half:R].to(torch.float64)
    r1 = (x1 * cos - x2 * sin).to(x.dtype)
    r2 = (x1 * sin + x2 * cos).to(x.dtype)
    return torch.cat([r1, r2, x[..., R:]], dim=-1)
''',
"mc": '''
answer_cache = "b"
''',
"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freqs = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = float(offset) * freqs
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(half)
    m[idx, idx] = c
    m[idx + half, idx + half] = c
    m[idx, idx + half] = -s
    m[idx + half, idx] = s
    return m
''',
"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(T, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
''',
}

B = BASE
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


def equiv(loop_body, before=""):
    return ("\ndef check_equivariance(layer, x, trials, generator, tol=1e-5):\n    T = x.shape[1]\n" + before
            + "    worst = 0.0\n" + loop_body + "    return (worst <= tol, float(worst))\n")


GAP = "        gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()\n        worst = max(worst, gap)\n"

# ---------------------------------------------------------------- kind 1: sampling and randomness
add("s1-equiv-global-randperm", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T)\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP)},
    "P8: 'each with torch.randperm(T, generator=generator)'; intro: no draws from the global generator")
add("s2-equiv-one-perm-reused", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP,
    before="    perm = torch.randperm(T, generator=generator)  # one permutation, tested trials times\n")},
    "P8: 'Draw trials permutations one after another'")
add("s3-equiv-argsort-of-uniforms", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.argsort(torch.rand(T, generator=generator))\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP)},
    "P8: 'each with torch.randperm(T, generator=generator), and draw nothing else' (a uniformly random permutation, other draws)")
add("s4-equiv-redraw-identity", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=generator)\n"
    "        while T > 1 and torch.equal(perm, torch.arange(T)):  # the identity tests nothing: draw again\n"
    "            perm = torch.randperm(T, generator=generator)\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP)},
    "P8: 'Call the layer for every permutation drawn, the identity too'; 'draw nothing else from generator'")
add("s5-equiv-forked-generator", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=g)\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP,
    before="    seed = int(torch.randint(0, 2 ** 62, (1,), generator=generator))\n    g = torch.Generator().manual_seed(seed)  # a private stream\n")},
    "P8: 'each with torch.randperm(T, generator=generator), and draw nothing else from generator'")

# ---------------------------------------------------------------- kind 2: rounding and integers
add("r1-table-ntk-exponent-floor-div", False, {"table_halves": B["table_halves"].replace(
    "scale ** (d_model / (d_model - 2))", "scale ** (d_model // (d_model - 2))")},
    "P1: 'the slowest one is divided by scale' (the exponent D/(D-2) floored to 1 for D >= 6)")
add("r2-alibi-slopes-int-exponent", False, {"alibi_block": B["alibi_block"].replace(
    "2.0 ** (-8 * (h + 1) / num_heads)", "2.0 ** (-8 * (h + 1) // num_heads)")},
    "P2: 'the slopes m_h = 2^{-8(h+1)/H} ... Use this formula for every H' (floor division of the exponent for H = 3)")
add("r3-position-truncates", False, {"position": B["position"].replace("int(round(ang / w))", "int(ang / w)")},
    "P4: 'Return p as a Python int; it must be exact' (int() truncates 41.99999 to 41)")
add("r4-position-fmod-keeps-sign", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    w = 10000.0 ** (-(d - 2) / d)
    ang = torch.fmod(torch.atan2(row[d - 2].double(), row[d - 1].double()), 2 * math.pi)
    return int(torch.round(ang / w))
'''}, "P4: 'get its angle in [0, 2 pi)': fmod keeps atan2's negative angles (p > 9934 at D = 16)")
add("r5-shift-int-offset-times-tensor", False, {"shift": B["shift"].replace("float(offset) * freqs", "offset * freqs")},
    "P7: 'Offsets may be of any size' (a Python int past int64 cannot multiply a tensor)")
add("r6-rope-positions-in-length-dtype", False, {"rotate_half": B["rotate_half"].replace(
    "lens = lengths.to(torch.int64)\n    pos = (torch.arange(T)[None, :] - (T - lens)[:, None])",
    "start = (T - lengths).to(torch.int64)\n    pos = (torch.arange(T)[None, :] - start[:, None])")},
    "P5: 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around'")
add("r7-equiv-rounds-worst", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=generator)\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP
    + "    worst = round(worst, 9)  # float noise\n")},
    "P8: 'the largest absolute difference ... exactly'; 'a gap equal to tol passes, one above it fails however little'")
add("r8-reach-log2-floored", False, {"reach": '''
alibi_reach = float(int(math.log2(1000)) * math.log(2) * 256)   # 2^10 ~ 1000: ten halvings
'''}, "P3: '1000 times less attention weight' (0.1 % accuracy): 2^9 is not 1000")

# ---------------------------------------------------------------- kind 3: counting and units
add("c1-rope-exponent-over-head-width", False, {"rotate_half": B["rotate_half"].replace(
    "/ R)", "/ Dh)")}, "P5: 'theta_i = base^{-2i/R} for i = 0..R/2-1 (R, not Dh, in the exponent)'")
add("c2-reach-slope-from-h", False, {"reach": '''
alibi_reach = math.log(1000) / 2 ** (-8 * 7 / 8)   # the last head, h = 7
'''}, "P3: 'the slopes of Part 2', m_h = 2^{-8(h+1)/H}: the flattest is 2^-8 (h = 7 gives h + 1 = 8)")
add("c3-equiv-mean-gap", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=generator)\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n"
    "        gap = (a.to(torch.float64) - b.to(torch.float64)).abs().sum().item() / a[0].numel()  # per sequence\n"
    "        worst = max(worst, gap)\n")},
    "P8: 'the gap is the largest absolute difference ... over all their entries'")
add("c4-rope-rotary-dim-strict", False, {"rotate_half": B["rotate_half"].replace("R > Dh", "R >= Dh")},
    "P5: 'Raise a ValueError unless rotary_dim is even and 2 <= rotary_dim <= Dh' (R = Dh is allowed)")
add("c5-alibi-power-of-two-slopes", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    n = 2 ** math.floor(math.log2(num_heads))      # closest power of two, then every other slope of 2n
    base = [2.0 ** (-8 * (h + 1) / n) for h in range(n)]
    extra = [2.0 ** (-8 * (h + 1) / (2 * n)) for h in range(2 * n)][0::2][: num_heads - n]
    slopes = torch.tensor(base + extra, dtype=torch.float64)
    q = torch.arange(offset, offset + t)[:, None]
    k = torch.arange(offset + t)[None, :]
    bias = (-slopes[:, None, None] * (q - k).abs().to(torch.float64)).to(torch.float32)
    return bias, k <= q
'''}, "P2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'")

# ---------------------------------------------------------------- kind 4: allocation
add("a1-table-float32-buffer", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    stretched = base * scale ** (d_model / (d_model - 2))
    freqs = stretched ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = positions.to(torch.float64)[..., None] * freqs
    pe = torch.zeros(*positions.shape, d_model)
    pe[..., :half] = ang.sin()
    pe[..., half:] = ang.cos()
    return pe.to(dtype)
'''}, "P1: 'within 1e-11 of the exact values for float64' (the float32 buffer rounds them)")
add("a2-alibi-float-mask", False, {"alibi_block": B["alibi_block"].replace(
    "return bias, k <= q", "allowed = torch.ones(t, offset + t).tril(diagonal=offset)\n    return bias, allowed")},
    "P2: 'allowed, boolean, shape (T, offset + T)'")
add("a3-rope-float32-out-buffer", False, {"rotate_half": B["rotate_half"].replace(
    "    return torch.cat([r1, r2, x[..., R:]], dim=-1)",
    "    out = torch.zeros(x.shape)\n    out[..., :half], out[..., half:R], out[..., R:] = r1, r2, x[..., R:]\n    return out")},
    "P5: 'Return a new tensor in the dtype of x'")
add("a4-shift-cached-identity", False, {"shift": '''
IDENTITY = {}


def shift_matrix_halves(offset, d_model, base=10000.0):
    if offset == 0:
        if d_model not in IDENTITY:
            IDENTITY[d_model] = torch.eye(d_model, dtype=torch.float64)
        return IDENTITY[d_model]
''' + B["shift"].split("\n", 2)[2]}, "P7: 'it must have memory of its own, not be a matrix kept from an earlier call (offset 0 included)'")
add("a5-shift-eye-float32", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    m = torch.eye(d_model)
    for i in range(half):
        w = base ** (-2 * i / d_model)
        c, s = math.cos(offset * w), math.sin(offset * w)
        m[i, i], m[i + half, i + half], m[i, i + half], m[i + half, i] = c, c, -s, s
    return m.to(torch.float64)
'''}, "P7: 'the (d_model, d_model) float64 matrix ... checks the matrix itself to 1e-12' (filled in float32)")
add("a6-equiv-float32-gap-buffer", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.shape[1]
    gaps = torch.zeros(trials)
    for n in range(trials):
        perm = torch.randperm(T, generator=generator)
        a, b = layer(x[:, perm]), layer(x)[:, perm]
        gaps[n] = (a.to(torch.float64) - b.to(torch.float64)).abs().max()
    worst = gaps.max().item()
    return (worst <= tol, worst)
'''}, "P8: 'the largest absolute difference ... exactly ... take the differences in float64' (stored in a float32 buffer)")
add("a7-rope-arange-int-angles", False, {"rotate_half": B["rotate_half"].replace(
    ".clamp(min=0).to(torch.float64)", ".clamp(min=0).to(torch.float32)").replace(
    "ang = pos[..., None] * theta", "ang = (pos[..., None] * theta.to(torch.float32)).to(torch.float64)")},
    "P5: 'Compute the positions, the angles, their sines and cosines in float64'")

# ---------------------------------------------------------------- different but correct
add("k1-table-two-factor-frequencies", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model={d_model} must be even and >= 4")
    half = d_model // 2
    freqs = torch.tensor([base ** (-2 * i / d_model) * scale ** (-2 * i / (d_model - 2)) for i in range(half)],
                         dtype=torch.float64)
    angles = positions.double().unsqueeze(-1) * freqs
    out = torch.empty(*positions.shape, d_model, dtype=torch.float64)
    out[..., :half] = torch.sin(angles)
    out[..., half:] = torch.cos(angles)
    return out.to(dtype=dtype)
'''}, "omega_i = b^{-2i/D} scale^{-2i/(D-2)} (fastest 1, slowest / scale); a float64 buffer made per call")
add("k2-table-log-space", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("bad d_model")
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    i = torch.arange(0, d_model, 2, dtype=torch.float64)
    freqs = torch.exp(-i / d_model * log_base)
    ang = positions.to(dtype=torch.float64).reshape(*positions.shape, 1) * freqs
    return torch.cat((torch.sin(ang), torch.cos(ang)), dim=-1).to(dtype)
'''}, "the stretched base in log space, exp of float64 exponents")
add("k3-alibi-float32-positions", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)  # h + 1 = 1..H
    rows = torch.arange(offset, offset + t, dtype=torch.float32)     # exact below 2^24
    cols = torch.arange(0, offset + t, dtype=torch.float32)
    dist = (rows[:, None] - cols[None, :]).abs()
    bias = torch.zeros(num_heads, t, offset + t)
    for h in range(num_heads):
        bias[h] = -slopes[h] * dist.double()
    allowed = cols[None, :] <= rows[:, None]
    return bias, allowed
'''}, "float32 positions are exact integers below 2^24 (the text's bound); heads counted 1..H; a float32 buffer per call")
add("k4-alibi-where-mask", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    i = torch.arange(t, dtype=torch.long).view(t, 1)
    j = torch.arange(offset + t, dtype=torch.long).view(1, offset + t)
    rel = offset + i - j
    slopes = torch.tensor([2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)])
    bias = -slopes.view(-1, 1, 1) * rel.abs()
    allowed = torch.where(rel >= 0, True, False)
    return bias.to(torch.float32), allowed
'''}, "float32 slopes times int64 distances (torch promotes to float32): relative 1e-6")
add("k5-reach-rounded-float", True, {"reach": '''
flattest = 2 ** (-8 * 8 / 8)
alibi_reach = float(round(math.log(1000) / flattest))   # 1768.0, 0.02 % from 1768.4
'''}, "within 0.1 % ('it need not be a whole number', but may be one); a Python float")
add("k6-position-torch-remainder", True, {"position": '''
def position_from_encoding(row):
    d = row.numel()
    pair = row.reshape(d // 2, 2)[-1].to(torch.float64)   # the slowest pair does not wrap
    omega = 10000.0 ** (-2 * (d // 2 - 1) / d)
    angle = torch.remainder(torch.atan2(pair[0], pair[1]), 2 * math.pi)
    return int(torch.round(angle / omega).item())
'''}, "torch.remainder gives [0, 2pi); torch.round of a value near an integer")
add("k7-rope-empty-like-buffer", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    if rotary_dim % 2 != 0 or not 2 <= rotary_dim <= Dh:
        raise ValueError("rotary_dim must be even, between 2 and Dh")
    half = rotary_dim // 2
    start = T - lengths.long()
    pos = torch.arange(T, dtype=torch.long).unsqueeze(0) - start.unsqueeze(1)
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos).double()
    theta = torch.tensor([base ** (-2 * i / rotary_dim) for i in range(half)], dtype=torch.float64)
    ang = pos.unsqueeze(-1) * theta                           # (B, T, half)
    cos, sin = torch.cos(ang).unsqueeze(1), torch.sin(ang).unsqueeze(1)
    a, b = x[..., :half].double(), x[..., half:rotary_dim].double()
    out = torch.empty_like(x)
    out[..., :half] = a * cos - b * sin
    out[..., half:rotary_dim] = a * sin + b * cos
    out[..., rotary_dim:] = x[..., rotary_dim:]
    return out
'''}, "empty_like buffer (x's dtype) filled by copy; pass-through copied; float64 angles")
add("k8-rope-float32-positions-exact", True, {"rotate_half": B["rotate_half"].replace(
    ".clamp(min=0).to(torch.float64)", ".clamp(min=0).to(torch.float32).to(torch.float64)")},
    "positions below several thousand are exact in float32, and the angles are still float64")
add("k9-mc-b", True, {"mc": '''
answer_cache = "b"  # the offset between query and cached key is shifted by P
'''}, "the answer")
add("k10-shift-loop-math", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    m = torch.zeros((d_model, d_model), dtype=torch.float64)
    for i in range(half):
        w = base ** (-2 * i / d_model)
        a = offset * w
        m[i, i] = math.cos(a)
        m[i + half, i + half] = math.cos(a)
        m[i, i + half] = -math.sin(a)
        m[i + half, i] = math.sin(a)
    return m
'''}, "a float64 zeros buffer per call, entries from Python floats")
add("k11-equiv-t1-no-draw", True, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=generator) if T > 1 else torch.zeros(1, dtype=torch.long)\n"
    "        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP)},
    "T = 1: the only permutation; randperm(1) draws nothing from the generator, so the stream is the same")
add("k12-equiv-unpermuted-first", True, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=generator)\n        b = layer(x)[:, perm]\n        a = layer(x[:, perm])\n" + GAP)},
    "the text fixes no order between the two calls")
add("k13-equiv-perms-first-tensor-max", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    perms = [torch.randperm(x.shape[1], generator=generator) for _ in range(trials)]
    gaps = []
    for perm in perms:
        diff = layer(x[:, perm]).double() - layer(x)[:, perm].double()
        gaps.append(diff.abs().amax())
    worst = torch.stack(gaps).max().item()
    return bool(worst <= tol), float(worst)
'''}, "all permutations drawn first, one after another; float64 differences; gaps stacked in float64")
add("k14-equiv-reference-output-once", True, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=generator)\n        a = layer(x[:, perm])\n        b = ref[:, perm]\n" + GAP,
    before="    ref = layer(x)\n")},
    "layer(x)[:, perm] with layer(x) computed once: the layer is still called for every permutation drawn")

# ---------------------------------------------------------------- hostile
add("h1-mc-str-equal-to-all", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_cache = Letter("a")
'''}, "hostile: a str subclass equal to every answer")
add("h2-reach-float-equal-to-all", False, {"reach": '''
class Reach(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    __rsub__ = __sub__
    def __abs__(self):
        return 0.0
    __hash__ = float.__hash__
alibi_reach = Reach(1.0)
'''}, "hostile: a float subclass whose differences are 0")
add("h3-position-reads-caller-frame", False, {"position": '''
import sys
def position_from_encoding(row):
    frame = sys._getframe(1)
    for name in ("p", "position", "expected", "want"):
        if name in frame.f_locals and isinstance(frame.f_locals[name], int):
            return frame.f_locals[name]
    return 42 if row.shape[-1] == 16 and float(row[1]) < 0.99 else (1234 if row.shape[-1] == 64 else 0)
'''}, "hostile: reads the expected value from the caller's frame, else answers the visible cases")

# ---------------------------------------------------------------- second blind batch (graded separately, appended)
EXTRA_START = len(SUBMISSIONS)
add("s6-equiv-restores-generator", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=generator)\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP
    + "    generator.set_state(saved)  # leave the caller's generator as it was\n",
    before="    saved = generator.get_state()\n")},
    "P8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)': the caller's generator advances (two calls in a row test other permutations)")
add("s7-equiv-copy-of-generator", False, {"equivariance": equiv(
    "    for _ in range(trials):\n        perm = torch.randperm(T, generator=g)\n        a = layer(x[:, perm])\n        b = layer(x)[:, perm]\n" + GAP,
    before="    g = torch.Generator()\n    g.set_state(generator.get_state())  # draw from a copy\n")},
    "P8: 'each with torch.randperm(T, generator=generator)': draws from a copy leave the caller's generator behind")
add("a8-alibi-bias-expanded-heads-share", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    q = torch.arange(offset, offset + t)[:, None]
    k = torch.arange(offset + t)[None, :]
    dist = (q - k).abs().to(torch.float64)
    if num_heads == 1:
        bias = (-2.0 ** -8 * dist).to(torch.float32)[None]
    else:
        slopes = torch.tensor([2.0 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float64)
        bias = (-slopes[:, None, None] * dist).to(torch.float32)
    allowed = (k <= q).expand(t, offset + t)
    return bias, allowed
'''}, "sanity: correct (expand to its own shape is a view of a new tensor)")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "k15-alibi-one-head-branch"
add("k16-table-empty-dtype-buffer", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 == 1 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    new_base = base * scale ** (d_model / (d_model - 2))
    freqs = 1.0 / new_base ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64).unsqueeze(-1) * freqs
    table = torch.empty(positions.shape + (d_model,), dtype=dtype)
    table[..., :half] = angles.sin()     # cast from float64 once, on the write
    table[..., half:] = angles.cos()
    return table
'''}, "a buffer in the requested dtype, written from float64 (one rounding)")
add("a9-rope-return-x-when-nothing-turns", False, {"rotate_half": B["rotate_half"].replace(
    "    half = R // 2\n", "    half = R // 2\n    if bool((lengths.to(torch.int64) <= 1).all()):\n        return x.clone() if x.requires_grad else x   # every row at position 0: nothing turns\n", 1)},
    "P5: 'Return a new tensor in the dtype of x, never x itself or a view of it, even when no row is rotated'")
EXTRA = SUBMISSIONS[EXTRA_START:]
