# Round 27, chapter 04-positional-encoding. Answers written as the epsilon-adder (E), the fixed-rank student (F),
# the from-memory student (M) and the mask-and-sentinel student (S); correct ones and hostile ones.
BASE = {}
BASE["table_halves"] = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    b = base * scale ** (d_model / (d_model - 2))
    freq = b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * freq
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''
BASE["alibi_block"] = '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs()
    bias = (-slopes[:, None, None] * dist).to(torch.float32)
    allowed = k[None, :] <= q[:, None]
    return (bias, allowed)
'''
BASE["reach"] = '''
alibi_reach = math.log(1000) * 256.0
'''
BASE["position"] = '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(row[d - 2]), float(row[d - 1])) % (2 * math.pi)
    return int(round(angle / omega))
'''
BASE["rotate_half"] = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1 = x[..., :half].to(torch.float64)
    x2 = x[..., half:rotary_dim].to(torch.float64)
    r1 = (x1 * cos - x2 * sin).to(x.dtype)
    r2 = (x1 * sin + x2 * cos).to(x.dtype)
    return torch.cat([r1, r2, x[..., rotary_dim:]], dim=-1)
'''
BASE["mc"] = '''
answer_cache = "b"
'''
BASE["shift"] = '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = (offset * freq).cos(), (offset * freq).sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i] = c
    m[i + half, i] = s
    m[i, i + half] = -s
    m[i + half, i + half] = c
    return m
'''
BASE["equivariance"] = '''
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
'''


def mut(part, old, new, count=1):
    src = BASE[part]
    assert src.count(old) == count, (part, old)
    return {part: src.replace(old, new)}


SUBMISSIONS = [
    # ---------------------------------------------------------------- epsilon-adder
    {"name": "E1-p1-round-6-decimals", "correct": False,
     "cells": mut("table_halves", "return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)",
                  "return torch.cat([angles.sin(), angles.cos()], dim=-1).round(decimals=6).to(dtype)  # tidy"),
     "why": "Part 1: 'within 1e-6 of the exact values for float32 and 1e-11 for float64': rounding to 6 decimals "
            "moves a float64 table by up to 5e-7."},
    {"name": "E2-p4-asin-clamped", "correct": False,
     "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    s = row[d - 2].to(torch.float64).clamp(-1 + 1e-12, 1 - 1e-12)  # keep asin's argument in range
    return int(round(torch.asin(s).item() / omega))
'''},
     "why": "Part 4: 'get its angle in [0, 2pi) from the sine and the cosine together: a formula that uses only one "
            "of them loses the sign': asin alone fails past a quarter turn (p > ~4967 at D = 16)."},
    {"name": "E3-p7-round-10-decimals", "correct": False,
     "cells": mut("shift", "    return m\n", "    return m.round(decimals=10)  # drop rounding noise such as 6e-17\n"),
     "why": "Part 7: 'the hidden tests check the matrix itself to 1e-12': rounding to 10 decimals moves entries by up to 5e-11."},
    {"name": "E4-p8-tol-slack", "correct": False,
     "cells": mut("equivariance", "return (bool(worst <= tol), float(worst))",
                  "return (bool(worst <= tol + 1e-12), float(worst))  # float slack"),
     "why": "Part 8: 'True exactly when worst <= tol (a gap equal to tol passes, one above it fails however little)'."},
    {"name": "E5-p8-nan-to-num", "correct": False,
     "cells": mut("equivariance", "gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()",
                  "gap = torch.nan_to_num((a.to(torch.float64) - b.to(torch.float64)).abs()).max().item()"),
     "why": "Part 8: 'the gap is inf; keep it (it is no number to clean up with nan_to_num)'."},
    {"name": "E6-p5-theta-clamp", "correct": False,
     "cells": mut("rotate_half", "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)",
                  "theta = (base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)).clamp(min=1e-9)"),
     "why": "Part 5: 'base any positive number: clamp and floor nothing'."},
    {"name": "E7-p3-int-rounded", "correct": False,
     "cells": {"reach": "alibi_reach = round(math.log(1000) * 2 ** 8)  # a whole number of positions, to be safe\n"},
     "why": "Part 3: 'a Python float, not an int nor a tensor'."},
    {"name": "E8-p1-freq-floor", "correct": False,
     "cells": mut("table_halves", "freq = b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)",
                  "freq = (b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)).clamp(min=1e-8)"),
     "why": "Part 1: the frequencies are b^(-2i/D) exactly; a floor changes the slow ones for large bases or scales "
            "(scale 1e6 at D = 64 gives a slowest frequency near 1e-10)."},
    # ---------------------------------------------------------------- fixed-rank
    {"name": "F1-p1-first-axis-batch", "correct": False,
     "cells": mut("table_halves", "angles = positions.to(torch.float64)[..., None] * freq",
                  "flat = positions.reshape(positions.shape[0], -1).to(torch.float64)   # (B, T)\n"
                  "    angles = (flat[..., None] * freq).reshape(*positions.shape, -1)"),
     "why": "Part 1: 'positions is an integer tensor of any shape (...) (one position, ...)': a 0-d position has no "
            "shape[0], and an empty one cannot reshape with -1."},
    {"name": "F2-p1-einsum-two-ranks", "correct": False,
     "cells": mut("table_halves", "angles = positions.to(torch.float64)[..., None] * freq",
                  "p = positions.to(torch.float64)\n"
                  "    angles = torch.einsum('t,f->tf', p, freq) if p.dim() == 1 else torch.einsum('bt,f->btf', p, freq)"),
     "why": "Part 1: 'of any shape (...)': fixed einsum letters cover (T,) and (B, T) only, not one position () or "
            "three axes."},
    {"name": "F3-p8-squeeze-batch", "correct": False,
     "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    base = layer(x)[0]                      # (T, D) outputs of the sentence
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        gap = (a.to(torch.float64) - base[perm].to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''},
     "why": "Part 8: the gap is between layer(x[:, perm]) and layer(x)[:, perm] over all entries: [0] compares every "
            "sentence with the first one's outputs (right for the example's batch of one)."},
    {"name": "F4-p5-view-flat-heads", "correct": False,
     "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    flat = x.view(b * h, t, dh)                                   # (B*H, T, Dh): one 3-D batch
    pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]
    pos = pos.clamp(min=0).to(torch.float64).repeat_interleave(h, dim=0)   # (B*H, T)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos[..., None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = flat[..., :half].double(), flat[..., half:rotary_dim].double()
    rot = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
    return torch.cat([rot, flat[..., rotary_dim:]], dim=-1).view(b, h, t, dh)
'''},
     "why": "the intro: 'The tensors they are given may be non-contiguous views (a transposed tensor, a slice with a "
            "step) ...: accept them as they are': view(B*H, T, Dh) of such an x raises."},
    # ---------------------------------------------------------------- from-memory
    {"name": "M1-p1-positions-float", "correct": False,
     "cells": mut("table_halves", "angles = positions.to(torch.float64)[..., None] * freq",
                  "angles = positions.float()[..., None] * freq   # positions as floats, as in the Annotated Transformer"),
     "why": "Part 1: 'do not pass the positions through float32 on their way to float64 either' (int64 positions "
            "past 2^24)."},
    {"name": "M2-p5-adjacent-pairs", "correct": False,
     "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1 = x[..., 0:rotary_dim:2].to(torch.float64)     # pairs (2i, 2i+1), as in the paper
    x2 = x[..., 1:rotary_dim:2].to(torch.float64)
    r = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2).to(x.dtype)
    return torch.cat([r, x[..., rotary_dim:]], dim=-1)
'''},
     "why": "Part 5: 'feature i is paired with feature i + R/2 (\"rotate half\")': the paper's adjacent pairs agree only at R = 2."},
    {"name": "M3-p5-theta-over-Dh", "correct": False,
     "cells": mut("rotate_half", "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)",
                  "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / dh)"),
     "why": "Part 5: 'theta_i = base^(-2i/R) ... (R, not Dh, in the exponent)'."},
    {"name": "M4-p4-atan2-no-wrap", "correct": False,
     "cells": mut("position", "angle = math.atan2(float(row[d - 2]), float(row[d - 1])) % (2 * math.pi)",
                  "angle = math.atan2(float(row[d - 2]), float(row[d - 1]))   # atan2 gives the angle"),
     "why": "Part 4: 'get its angle in [0, 2pi)': atan2 returns (-pi, pi], negative for p > ~9935 at D = 16."},
    {"name": "M5-p3-log2", "correct": False,
     "cells": {"reach": "alibi_reach = 256.0 * math.log2(1000)  # weight ratio 2^(-m d)\n"},
     "why": "Part 3: the attention weight is exp(score - m d), so exp(m d) = 1000 (natural log)."},
    {"name": "M6-p6-relative", "correct": False,
     "cells": {"mc": "answer_cache = 'a'  # RoPE only sees relative positions\n"},
     "why": "Part 6: the cached keys were rotated with their true positions, so the query's numbering matters: (b)."},
    {"name": "M7-p7-interleaved-blocks", "correct": False,
     "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = (offset * freq).cos(), (offset * freq).sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(0, d_model, 2)
    m[i, i], m[i, i + 1], m[i + 1, i], m[i + 1, i + 1] = c, -s, s, c
    return m
'''},
     "why": "Part 7: 'for the sines-first table of Part 1': the lesson's block-diagonal matrix is the interleaved one; "
            "the same only at d_model = 2."},
    {"name": "M8-p8-allclose", "correct": False,
     "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst, ok = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm]).to(torch.float64)
        b = layer(x)[:, perm].to(torch.float64)
        worst = max(worst, (a - b).abs().max().item())
        ok = ok and torch.allclose(a, b, atol=tol)
    return (bool(ok), float(worst))
'''},
     "why": "Part 8: 'tol is absolute, not relative to the size of the outputs': allclose adds rtol=1e-5 * |b|."},
    {"name": "M9-p2-paper-slopes", "correct": False,
     "cells": mut("alibi_block", "slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)",
                  '''def get_slopes(n):
        def power_of_2(n):
            start = 2 ** (-2 ** -(math.log2(n) - 3))
            return [start * start ** i for i in range(n)]
        if math.log2(n).is_integer():
            return power_of_2(n)
        closest = 2 ** math.floor(math.log2(n))
        return power_of_2(closest) + get_slopes(2 * closest)[0::2][:n - closest]
    slopes = torch.tensor(get_slopes(num_heads), dtype=torch.float64)'''),
     "why": "Part 2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a "
            "power of two)': the paper's get_slopes from memory."},
    # ---------------------------------------------------------------- mask-and-sentinel
    {"name": "S1-p2-float-mask", "correct": False,
     "cells": mut("alibi_block", "allowed = k[None, :] <= q[:, None]",
                  "allowed = torch.ones(t, offset + t).tril(diagonal=offset)  # 1 = attend"),
     "why": "Part 2: 'allowed, boolean': a 0/1 float mask (it also compares equal to True/False in tolist)."},
    {"name": "S2-p2-full-mask-sliced", "correct": False,
     "cells": mut("alibi_block", "allowed = k[None, :] <= q[:, None]",
                  "allowed = torch.ones(offset + t, offset + t, dtype=torch.bool).tril()[offset:].clone()"),
     "why": "Part 2: 'no (offset + T, offset + T) table of the whole sequence sliced down to its last T rows'."},
    {"name": "S3-p5-mask-in-lengths-dtype", "correct": False,
     "cells": mut("rotate_half", "pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]",
                  "pad = torch.arange(t)[None, :] < (t - lengths)[:, None]      # True = padding row\n"
                  "    pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]\n"
                  "    pos = pos.masked_fill(pad, 0)"),
     "why": "Part 5: 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around': the "
            "padding mask t - lengths in uint8 wraps for T > 255, and marks no row or the wrong rows as padding."},
    {"name": "S4-p8-drop-infinite", "correct": False,
     "cells": mut("equivariance", "gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()",
                  "diff = (a.to(torch.float64) - b.to(torch.float64)).abs()\n"
                  "        finite = torch.isfinite(diff)                 # -inf marks masked entries: skip them\n"
                  "        gap = diff[finite].max().item() if finite.any() else 0.0"),
     "why": "Part 8: 'against a finite entry ... it differs by inf, so the gap is inf; keep it'."},
    {"name": "S5-p5-zero-length-sentinel", "correct": False,
     "cells": mut("rotate_half", "pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]",
                  "n = lengths.to(torch.int64)\n"
                  "    n = torch.where(n == 0, t, n)          # 0 = length not given: the whole row is real\n"
                  "    pos = torch.arange(t)[None, :] - (t - n)[:, None]"),
     "why": "Part 5: 'lengths of 0 or T are allowed': a length of 0 means every row is padding (all at position 0, "
            "unchanged), not 'no padding'."},
    {"name": "S6-p2-minus-inf-future", "correct": False,
     "cells": mut("alibi_block", "bias = (-slopes[:, None, None] * dist).to(torch.float32)",
                  "bias = (-slopes[:, None, None] * dist).to(torch.float32)\n"
                  "    bias = bias.masked_fill(k[None, None, :] > q[None, :, None], float('-inf')) if t > 1 and offset == 0 else bias"),
     "why": "Part 2: every key gets -m|offset + i - j| in bias; the mask is separate (`allowed`)."},
    # ---------------------------------------------------------------- correct
    {"name": "C1-p1-exp-log-freq", "correct": True,
     "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model must be even and >= 4, got {d_model}")
    new_base = base * scale ** (d_model / (d_model - 2))
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(new_base) / d_model))
    angles = positions.to(torch.float64).unsqueeze(-1) * div_term
    pe = torch.empty(*positions.shape, d_model, dtype=torch.float64)
    pe[..., : d_model // 2] = torch.sin(angles)
    pe[..., d_model // 2:] = torch.cos(angles)
    return pe.to(dtype)
'''},
     "why": "the Annotated Transformer's exp/log frequencies, float64 inside."},
    {"name": "C2-p1-outer-flat", "correct": True,
     "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("bad d_model")
    half = d_model // 2
    slowest = base ** (-(d_model - 2) / d_model) / scale
    freq = torch.logspace(0.0, math.log10(slowest), half, dtype=torch.float64) if half > 1 else torch.ones(1, dtype=torch.float64)
    ang = torch.outer(positions.reshape(-1).to(torch.float64), freq)
    return torch.cat([ang.sin(), ang.cos()], dim=1).reshape(*positions.shape, d_model).to(dtype=dtype)
'''},
     "why": "geometric from 1 to the slowest frequency / scale (logspace), the same frequencies."},
    {"name": "C3-p2-loop-heads", "correct": True,
     "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    keys = torch.arange(offset + t, dtype=torch.int64)
    queries = torch.arange(offset, offset + t, dtype=torch.int64)
    rel = queries[:, None] - keys[None, :]          # >= 0 for the keys a query may see
    allowed = rel >= 0
    start = 2 ** (-2 ** -(math.log2(num_heads) - 3))  # = 2^(-8/H)
    bias = torch.empty(num_heads, t, offset + t, dtype=torch.float32)
    for h in range(num_heads):
        bias[h] = -(start ** (h + 1)) * rel.abs().to(torch.float64)
    return bias, allowed
'''},
     "why": "a loop over the heads; slopes start^(h+1) with start = 2^(-8/H) for every H; a signed distance >= 0 as the mask."},
    {"name": "C4-p3-rounded-float", "correct": True,
     "cells": {"reach": "alibi_reach = float(round(math.log(1000) / 2 ** -8))  # 1768, well within 0.1 %\n"},
     "why": "rounding to a whole number of positions stays within 0.1 %."},
    {"name": "C5-p4-torch-remainder", "correct": True,
     "cells": {"position": '''
def position_from_encoding(row):
    row = row.to(torch.float64)
    d = row.numel()
    pairs = row.reshape(d // 2, 2)                 # (sin, cos) of each frequency
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.remainder(torch.atan2(pairs[-1, 0], pairs[-1, 1]), 2 * math.pi)
    return int(torch.round(angle / omega).item())
'''},
     "why": "the slowest pair in float64, remainder into [0, 2pi)."},
    {"name": "C6-p5-where-padding", "correct": True,
     "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > x.shape[-1]:
        raise ValueError(f"rotary_dim={rotary_dim} must be even and in [2, {x.shape[-1]}]")
    t = x.shape[2]
    half = rotary_dim // 2
    start = t - lengths.long()                       # first real row of each sequence
    rows = torch.arange(t)
    pad = rows[None, :] <= start[:, None]           # padding and the first real token: both at position 0
    pos = torch.where(pad, torch.zeros((), dtype=torch.long), rows[None, :] - start[:, None]).double()
    inv = 1.0 / base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    ang = pos[:, None, :, None] * inv
    cos, sin = torch.cos(ang), torch.sin(ang)
    a, b = x[..., :half], x[..., half:rotary_dim]
    rot = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)
    rot = torch.where(pad[:, None, :, None], x[..., :rotary_dim], rot)   # unchanged rows
    return torch.cat([rot, x[..., rotary_dim:]], dim=-1)
'''},
     "why": "mask-and-sentinel student right: <= marks the first real token too (position 0 either way); padding rows "
            "kept with where; 1 / base^(2i/R)."},
    {"name": "C7-p5-loop-batch-xdtype", "correct": True,
     "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("rotary_dim")
    half = rotary_dim // 2
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64), -torch.arange(half, dtype=torch.float64) * 2 / rotary_dim)
    wide = torch.promote_types(x.dtype, torch.float32)
    out = []
    for i in range(b):
        n = int(lengths[i])
        m = (torch.arange(t, dtype=torch.int64) - (t - n)).clamp_min(0).to(torch.float64)
        ang = m[:, None] * theta
        c, s = ang.cos().to(wide), ang.sin().to(wide)
        xi = x[i].to(wide)
        x1, x2 = xi[..., :half], xi[..., half:rotary_dim]
        rot = torch.cat([x1 * c - x2 * s, x1 * s + x2 * c], dim=-1).to(x.dtype)
        out.append(torch.cat([rot, x[i, ..., rotary_dim:]], dim=-1))
    if not out:
        return x.clone()
    return torch.stack(out)
'''},
     "why": "a loop over the batch (allowed); rotation in the dtype of x or float32 (allowed)."},
    {"name": "C8-p6-b", "correct": True,
     "cells": {"mc": "answer_cache = 'B'.lower()\n"},
     "why": "(b)."},
    {"name": "C9-p7-exp-log-freq", "correct": True,
     "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(base) / d_model))
    angle = offset * div_term
    c, s = torch.cos(angle), torch.sin(angle)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(half)
    m[idx, idx] = c                   # sin(a) cos(b) into the sine column
    m[idx + half, idx] = s            # cos(a) sin(b) into the sine column
    m[idx, idx + half] = -s           # -sin(a) sin(b) into the cosine column
    m[idx + half, idx + half] = c     # cos(a) cos(b) into the cosine column
    return m
'''},
     "why": "the Annotated Transformer's exp/log frequencies (the text allows any correct formula)."},
    {"name": "C10-p7-block-build", "correct": True,
     "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = 1.0 / base ** (torch.arange(half, dtype=torch.float64) * 2 / d_model)
    ang = torch.tensor(offset, dtype=torch.float64) * freq
    c, s = torch.diag(torch.cos(ang)), torch.diag(torch.sin(ang))
    return torch.cat([torch.cat([c, -s], dim=1), torch.cat([s, c], dim=1)], dim=0)
'''},
     "why": "four diagonal blocks [[C, -S], [S, C]]; frequencies 1 / base^(2i/D)."},
    {"name": "C11-p8-perms-first-one-base", "correct": True,
     "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.size(1)
    perms = [torch.randperm(t, generator=generator) for _ in range(trials)]
    worst = float("-inf")
    for perm in perms:
        expected = layer(x).index_select(1, perm).double()
        got = layer(x.index_select(1, perm)).double()
        worst = max(worst, torch.amax(torch.abs(got - expected)).item())
    return worst <= tol, float(worst)
'''},
     "why": "draws all the permutations first (nothing else from the generator), index_select, amax in float64."},
    {"name": "C12-p8-base-once", "correct": True,
     "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    reference = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[-2], generator=generator)
        permuted = layer(x[:, perm])
        gap = torch.max(torch.abs(permuted.to(torch.float64) - reference[:, perm].to(torch.float64)))
        worst = max(worst, float(gap))
    equivariant = True if worst <= tol else False
    return equivariant, worst
'''},
     "why": "layer(x) once, then layer(x[:, perm]) for every permutation drawn, identity included."},
    {"name": "C13-p2-float32-slopes-mask-triu", "correct": True,
     "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.pow(torch.tensor(2.0), -8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    q = torch.arange(t, dtype=torch.int64) + offset
    k = torch.arange(offset + t, dtype=torch.int64)
    dist = (q.unsqueeze(1) - k.unsqueeze(0)).abs()
    bias = -slopes.view(-1, 1, 1) * dist.to(torch.float32).unsqueeze(0)
    allowed = ~torch.ones(t, offset + t, dtype=torch.bool).triu(diagonal=offset + 1)
    return bias, allowed
'''},
     "why": "slopes in float32 (allowed); triu(k = offset + 1) marks the hidden keys, negated."},
    # ---------------------------------------------------------------- hostile
    {"name": "X1-p6-str-equal-all", "correct": False,
     "cells": {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_cache = Letter("a")
'''},
     "why": "hostile: a str subclass equal to every letter."},
    {"name": "X2-p4-int-equal-all", "correct": False,
     "cells": {"position": '''
class Anything(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def position_from_encoding(row):
    return Anything(0)
'''},
     "why": "hostile: an int subclass equal to everything."},
    {"name": "X3-p3-float-subclass", "correct": False,
     "cells": {"reach": '''
class Reach(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    __hash__ = float.__hash__

alibi_reach = Reach(1.0)
'''},
     "why": "hostile: a float subclass equal to everything, whose differences are 0."},
]

# ---- second blind batch (written after the first blind grading, before reading any test)
SUBMISSIONS += [
    {"name": "E9-p8-round-worst", "correct": False,
     "cells": mut("equivariance", "return (bool(worst <= tol), float(worst))",
                  "worst = round(worst, 12)                     # drop float noise\n"
                  "    return (bool(worst <= tol), float(worst))"),
     "why": "Part 8: 'a gap equal to tol passes, one above it fails however little' and worst is the largest gap: "
            "rounding to 12 decimals passes gaps just above tol and zeroes gaps below 5e-13."},
    {"name": "E10-p7-freq-floor", "correct": False,
     "cells": mut("shift", "freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)",
                  "freq = (base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)).clamp(min=1e-12)"),
     "why": "Part 7: 'bases (above 1, as in Part 1) as large as you like: clamp no angle and floor no frequency'."},
    {"name": "E11-p5-lengths-in-own-dtype-after", "correct": False,
     "cells": mut("rotate_half", "pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]",
                  "pos = torch.arange(t)[None, :] - (t - lengths).to(torch.int64)[:, None]   # padding count"),
     "why": "Part 5: 'a Python int combined with such a tensor, wrap around': t - lengths in uint8 wraps before the cast."},
    {"name": "C14-p1-scale-guard", "correct": True,
     "cells": mut("table_halves", "b = base * scale ** (d_model / (d_model - 2))",
                  "scale = max(float(scale), 1.0)   # scale >= 1 by the text\n"
                  "    b = base * scale ** (d_model / (d_model - 2))"),
     "why": "a guard the text allows (scale >= 1)."},
    {"name": "C15-p2-slope-clamp", "correct": True,
     "cells": mut("alibi_block", "q = offset + torch.arange(t)",
                  "slopes = slopes.clamp(min=2.0 ** -8)   # the flattest slope is 2^-8: no change\n"
                  "    q = offset + torch.arange(t)"),
     "why": "a clamp that changes no value (every slope is at least 2^-8)."},
    {"name": "C16-p8-inf-norm", "correct": True,
     "cells": mut("equivariance", "gap = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()",
                  "gap = torch.dist(a.to(torch.float64), b.to(torch.float64), p=float('inf')).item()"),
     "why": "the infinity norm of the difference is the largest absolute difference."},
]
