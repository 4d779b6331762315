# Red team round 32, chapter 04 (positional encoding), blind answers.
# Python-containers, quantity-confuser, integer-range, assumption, commuter).
CORRECT = {}
CORRECT["table_halves"] = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    i = torch.arange(d_model // 2, dtype=torch.float64)
    freqs = torch.exp(-2.0 * i / d_model * log_base)
    angles = positions.to(torch.float64).unsqueeze(-1) * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''
CORRECT["alibi_block"] = '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)
    qpos = torch.arange(offset, offset + t)
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    allowed = kpos[None, :] <= qpos[:, None]
    return (bias, allowed)
'''
CORRECT["reach"] = '''
alibi_reach = 256.0 * math.log(1000.0)
'''
CORRECT["position"] = '''
def position_from_encoding(row):
    d = row.shape[-1]
    r = row.to(torch.float64)
    angle = math.atan2(float(r[d - 2]), float(r[d - 1])) % (2 * math.pi)
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round(angle / omega))
'''
CORRECT["rotate_half"] = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    pad = t - lengths.to(torch.int64)
    pos = (torch.arange(t)[None, :] - pad[:, None]).clamp(min=0)
    ang = pos.to(torch.float64)[..., None] * theta
    wide = torch.promote_types(x.dtype, torch.float64) if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    cos, sin = ang.cos().to(wide)[:, None], ang.sin().to(wide)[:, None]
    x1, x2 = x[..., :half].to(wide), x[..., half:rotary_dim].to(wide)
    r1 = (x1 * cos - x2 * sin).to(x.dtype)
    r2 = (x1 * sin + x2 * cos).to(x.dtype)
    return torch.cat([r1, r2, x[..., rotary_dim:]], dim=-1)
'''
CORRECT["mc"] = '''
answer_cache = "b"
'''
CORRECT["shift"] = '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    freqs = base ** (-2.0 * torch.arange(h, dtype=torch.float64) / d_model)
    ang = float(offset) * freqs
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(h)
    m[i, i] = c
    m[i + h, i] = s
    m[i, i + h] = -s
    m[i + h, i + h] = c
    return m
'''
CORRECT["equivariance"] = '''
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

def rep(gid, old, new, count=1):
    src = CORRECT[gid]
    assert src.count(old) == count, (gid, old, src.count(old))
    return src.replace(old, new)

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- 1. Python-containers student ----------------
add("containers-p5-neg-slice-len0", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    rows = []
    for seq, n in zip(x, lengths.tolist()):
        real = seq[:, -n:]                       # the last n rows are the real tokens
        ang = torch.arange(real.shape[1], dtype=torch.float64)[:, None] * theta
        cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
        x1, x2 = real[..., :half], real[..., half:rotary_dim]
        rot = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, real[..., rotary_dim:]], dim=-1)
        rows.append(torch.cat([seq[:, :t - real.shape[1]], rot], dim=1))
    return torch.stack(rows) if rows else x.clone()
'''}, "Part 5: 'lengths of 0 ... are allowed' and padding rows come back unchanged -- seq[:, -0:] is every row, so a length-0 sequence is rotated as if all were real")

add("containers-p8-same-perm-repeated", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    perms = [torch.randperm(t, generator=generator)] * trials     # one permutation per trial
    gaps = []
    for perm in perms:
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        gaps.append((a.to(torch.float64) - b.to(torch.float64)).abs().max().item())
    worst = max(gaps)
    return (worst <= tol, float(worst))
'''}, "Part 8: 'Draw trials permutations one after another' -- [randperm(...)] * trials draws once and repeats it")

add("containers-p8-range-drop-last", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    perms = [torch.randperm(t, generator=generator) for _ in range(trials)]
    gaps = [0.0] * len(perms)
    for k in range(len(perms) - 1):
        a = layer(x[:, perms[k + 1]])
        b = layer(x)[:, perms[k + 1]]
        gaps[k] = (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()
    a = layer(x[:, perms[0]])
    b = layer(x)[:, perms[0]]
    gaps[-1] = max(gaps[-1], (a.to(torch.float64) - b.to(torch.float64)).abs().max().item())
    worst = max(gaps)
    return (bool(worst <= tol), float(worst))
'''}, "placeholder")
SUBMISSIONS.pop()

add("containers-p2-slopes-prev-wrap", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    ratio = 2.0 ** (-8.0 / num_heads)
    slopes = []
    for h in range(num_heads):
        prev = slopes[h - 1] if slopes else 1.0
        slopes.append(prev * ratio)
    slopes = torch.tensor(slopes, dtype=torch.float64)
    qpos = torch.arange(offset, offset + t)
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    allowed = kpos[None, :] <= qpos[:, None]
    return (bias, allowed)
'''}, "CORRECT: slopes[h - 1] is the previous slope for h >= 1, and h = 0 starts from 1; geometric with ratio 2**(-8/H)")
SUBMISSIONS[-1]["correct"] = True

add("containers-p7-list-rows-copied", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    zero = [0.0] * d_model
    rows = [list(zero) for _ in range(d_model)]
    for i in range(h):
        w = base ** (-2.0 * i / d_model)
        a = offset * w
        c, s = math.cos(a), math.sin(a)
        rows[i][i], rows[i][i + h] = c, -s
        rows[i + h][i], rows[i + h][i + h] = s, c
    return torch.tensor(rows, dtype=torch.float64)
'''}, "Part 7: 'an angle ... computed in float64', 'past 2**24 ...' -- offset * w in Python floats is float64 (offset rounded to float64): CORRECT")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "correct: Python lists copied per row (no aliasing), float64 angles offset * w"

add("containers-p4-index-tie", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    vals = row.tolist()
    sines, cosines = vals[0::2], vals[1::2]
    # the pair that does not wrap: the slowest, found as the one whose cosine is largest
    k = cosines.index(max(cosines))
    s, c = sines[k], cosines[k]
    angle = math.atan2(s, c) % (2 * math.pi)
    omega = 10000.0 ** (-2 * k / d)
    return int(round(angle / omega))
'''}, "Part 4: the slowest pair is the last one; cosines.index(max) finds the first of equal maxima (all 1 at p = 0, fine) but at larger p a faster pair that wrapped round to near 0 can have the largest cosine")

# ---------------- 2. quantity-confuser ----------------
add("quantity-p5-dh-exponent", False, {"rotate_half": rep("rotate_half",
    "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)",
    "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / dh)")},
    "Part 5: 'theta_i = base^(-2i/R) (R, not Dh, in the exponent)'")

add("quantity-p3-log2", False, {"reach": '''
# weight ratio 2 ** (-m d) = 1/1000 with m = 2 ** -8 (slopes are powers of two)
alibi_reach = 256.0 * math.log2(1000.0)
'''}, "Part 3: attention weights are exp(score - m d): the ratio is e^(-m d), not 2^(-m d)")

add("quantity-p8-squared-gap", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        diff = layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)
        worst = max(worst, (diff * diff).max().item())      # squared error, as in an MSE
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'the gap is the largest absolute difference' -- the largest squared difference")

add("quantity-p1-exponent-pairs", False, {"table_halves": rep("table_halves",
    "log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)",
    "log_base = math.log(base) + (d_model // 2) * math.log(scale)")},
    "Part 1: the slowest frequency divided by scale needs b' = b * scale^(D/(D-2)); D/2 agrees only at D = 4")

add("quantity-p2-slope-index", False, {"alibi_block": rep("alibi_block",
    "slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)",
    "slopes = 2.0 ** (-8.0 / num_heads) ** (h + 1)")},
    "placeholder")
SUBMISSIONS.pop()

# ---------------- 3. integer-range student ----------------
add("intrange-p1-int32-positions", False, {"table_halves": rep("table_halves",
    "angles = positions.to(torch.float64).unsqueeze(-1) * freqs",
    "angles = positions.to(torch.int32).to(torch.float64).unsqueeze(-1) * freqs   # int32: every integer dtype in one")},
    "Part 1: 'positions ... of any integer dtype ... up to the largest value the dtype holds' -- int64 positions past 2**31 wrap in int32")

add("intrange-p5-float32-theta", False, {"rotate_half": rep("rotate_half",
    "theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)",
    "theta = (base ** (-2 * torch.arange(half) / rotary_dim)).to(torch.float64)")},
    "Part 5: 'Compute the positions, the angles, their sines and cosines in float64' -- an integer arange divided with / is float32, so theta is float32")

add("intrange-p7-float32-freqs", False, {"shift": rep("shift",
    "freqs = base ** (-2.0 * torch.arange(h, dtype=torch.float64) / d_model)\n    ang = float(offset) * freqs",
    "freqs = base ** (-2 * torch.arange(h) / d_model)\n    ang = (offset * freqs).to(torch.float64)")},
    "Part 7: 'Keep the offset exact until it multiplies the frequencies in float64' -- frequencies from an integer arange are float32, so offset * freqs is float32")

add("intrange-p2-bf16-slopes", False, {"alibi_block": rep("alibi_block",
    "slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)",
    "slopes = (2.0 ** (-8.0 * (h + 1) / num_heads)).to(torch.bfloat16).to(torch.float64)   # slopes are tiny numbers")},
    "Part 2: 'bias is within the rounding of float32 of the exact values (a relative 1e-6)' -- slopes rounded to bfloat16 are exact only for powers of two (H dividing 8)")

add("intrange-p8-float32-diff", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        wide = torch.promote_types(a.dtype, torch.float32)      # widen half precision, keep float64
        gap = (a.to(wide) - b.to(wide)).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'take the differences in float64' -- float32 differences of float16/bfloat16 outputs round (and bfloat16 ones overflow past 3.4e38)")

# ---------------- 4. assumption student ----------------
add("assume-p1-dmodel-positive", False, {"table_halves": rep("table_halves",
    'if d_model % 2 or d_model < 4:', 'if d_model % 2 or d_model == 2:')},
    "Part 1: 'Raise a ValueError when d_model is odd or smaller than 4' -- d_model = 0 (or negative even) passes")

add("assume-p4-angle-below-pi", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    r = row.to(torch.float64)
    angle = math.atan2(float(r[d - 2]), float(r[d - 1]))     # the slowest pair turns less than half a turn
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round(angle / omega))
'''}, "Part 4: 'get its angle in [0, 2*pi)' -- atan2 gives (-pi, pi]; at D = 16 positions past 9934 turn the slowest pair past pi")

add("assume-p3-first-head-flattest", False, {"reach": '''
slopes = [2 ** (-8 * (h + 1) / 8) for h in range(8)]
m = slopes[0]                      # the flattest head comes first
alibi_reach = math.log(1000.0) / m
'''}, "Part 3: 'In the flattest head (the smallest slope)' -- slopes[0] = 1/2 is the steepest")

add("assume-p8-eval-module", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        if t == 1:                   # the only permutation is the identity
            continue
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        worst = max(worst, (a.to(torch.float64) - b.to(torch.float64)).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'Call the layer for every permutation drawn, the identity too ... no shortcut returns (True, 0.0)' -- skipping T = 1")

add("assume-p5-no-pad-shortcut", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    n = int(lengths.min()) if b else t          # the batch is padded to a common start
    pos = (torch.arange(t) - (t - n)).clamp(min=0)
    ang = pos.to(torch.float64)[:, None] * theta
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:rotary_dim]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., rotary_dim:]], dim=-1)
'''}, "placeholder")
SUBMISSIONS.pop()

# ---------------- 5. commuter ----------------
add("commuter-p1-cast-before-sin", False, {"table_halves": rep("table_halves",
    "return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)",
    "angles = angles.to(dtype)\n    return torch.cat([angles.sin(), angles.cos()], dim=-1)")},
    "Part 1: 'Computing the angles in float64 and converting at the end' -- converting the angles first, then sin/cos in dtype")

add("commuter-p6-relative-positions", False, {"mc": '''
answer_cache = "a"
'''}, "Part 6: the cached keys are rotated by their absolute positions; the offset between query and key changes by P: (b)")

add("commuter-p8-inverse-on-left", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        inv = torch.argsort(perm)
        a = layer(x[:, inv])                 # undo, then compare with the permuted output
        b = layer(x)[:, perm]
        worst = max(worst, (a.to(torch.float64) - b.to(torch.float64)).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}, "placeholder")
SUBMISSIONS.pop()

add("commuter-p5-clamp-before-shift", False, {"rotate_half": rep("rotate_half",
    "pos = (torch.arange(t)[None, :] - pad[:, None]).clamp(min=0)",
    "pos = torch.arange(t)[None, :].clamp(min=pad.min().item() if b else 0) - pad[:, None]\n    pos = pos.clamp(min=0)")},
    "placeholder")
SUBMISSIONS.pop()

add("commuter-p7-angle-mod-first", False, {"shift": rep("shift",
    "ang = float(offset) * freqs",
    "ang = float(offset % 6283185307179586) * freqs   # whole turns of 2*pi*1e15 drop out first")},
    "placeholder")
SUBMISSIONS.pop()

add("commuter-p2-scale-cast", False, {"alibi_block": rep("alibi_block",
    "bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)",
    "bias = -slopes[:, None, None].to(torch.float32) * dist.to(torch.float16)")},
    "Part 2: 'Distances ... must be exact: float16 holds every integer only up to 2048' -- distances cast to float16 before the scale")

add("commuter-p5-padding-rows-where", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    pad = t - lengths.to(torch.int64)
    pos = torch.arange(t)[None, :] - pad[:, None]
    ang = pos.to(torch.float64)[..., None] * theta
    cos, sin = ang.cos().to(x.dtype)[:, None], ang.sin().to(x.dtype)[:, None]
    x1, x2 = x[..., :half], x[..., half:rotary_dim]
    rot = torch.cat([x1 * sin + x2 * cos, x1 * cos - x2 * sin], dim=-1).flip(-1) if half == 1 else \\
        torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)
    rot = torch.where((pos >= 0)[:, None, :, None], rot, x[..., :rotary_dim])
    return torch.cat([rot, x[..., rotary_dim:]], dim=-1)
'''}, "placeholder")
SUBMISSIONS.pop()

add("commuter-p5-sin-sign-second-half", False, {"rotate_half": rep("rotate_half",
    "r2 = (x1 * sin + x2 * cos).to(x.dtype)",
    "r2 = (x2 * cos + x1 * sin).to(x.dtype) if half == 1 else (x2 * cos - x1 * sin).to(x.dtype)")},
    "placeholder")
SUBMISSIONS.pop()

add("commuter-p7-transpose", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    freqs = base ** (-2.0 * torch.arange(h, dtype=torch.float64) / d_model)
    ang = float(offset) * freqs
    c, s = ang.cos(), ang.sin()
    blocks = torch.zeros(2, 2, h, dtype=torch.float64)
    blocks[0, 0], blocks[0, 1], blocks[1, 0], blocks[1, 1] = c, -s, s, c
    # (2, 2, h) -> (2h, 2h): block [a, b] holds the diagonal of the pair (a, b)
    m = torch.diag_embed(blocks)                     # (2, 2, h, h)
    return m.permute(0, 2, 1, 3).reshape(d_model, d_model) if h == 1 else m.transpose(1, 2).reshape(d_model, d_model)
'''}, "placeholder")
SUBMISSIONS.pop()

# ---------------- correct answers ----------------
add("correct-p1-base-power", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 == 1 or d_model < 4:
        raise ValueError(f"d_model={d_model}: need an even width of at least 4")
    new_base = torch.tensor(base, dtype=torch.float64) * torch.tensor(scale, dtype=torch.float64) ** (d_model / (d_model - 2))
    exps = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    freqs = new_base ** (-exps)
    angles = positions.double()[..., None] * freqs
    table = torch.empty(*positions.shape, d_model, dtype=torch.float64)
    table[..., : d_model // 2] = angles.sin()
    table[..., d_model // 2:] = angles.cos()
    return table.to(dtype=dtype)
'''}, "correct: the stretched base b * scale^(D/(D-2)) in float64, positions straight to float64")

add("correct-p2-tril-loop-heads", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    total = offset + t
    kpos = torch.arange(total, dtype=torch.int64)
    qpos = kpos[offset:]
    dist = (qpos.unsqueeze(1) - kpos.unsqueeze(0)).abs().to(torch.float32)   # exact below 2**24
    planes = []
    for h in range(num_heads):
        m = 2.0 ** (-8.0 * (h + 1) / num_heads)
        planes.append(dist * -m)
    bias = torch.stack(planes) if planes else torch.zeros(0, t, total)
    allowed = torch.ones(t, total, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "correct: float32 distances are exact below 2**24 (the text promises offset + T < 2**24); tril with diagonal offset")

add("correct-p4-asin-acos-pick", True, {"position": '''
def position_from_encoding(row):
    d = row.numel()
    s = float(row[-2].double())
    c = float(row[-1].double())
    angle = math.atan2(s, c)
    if angle < 0:
        angle += 2 * math.pi
    omega = 10000.0 ** (-2 * (d // 2 - 1) / d)
    return round(angle / omega)
'''}, "correct: atan2 folded into [0, 2*pi), round() of a float is an int")

add("correct-p5-loop-batch", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > Dh:
        raise ValueError(f"rotary_dim={rotary_dim} must be even and in [2, {Dh}]")
    half = rotary_dim // 2
    inv = torch.pow(torch.tensor(float(base), dtype=torch.float64), -torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    outs = []
    for b in range(B):
        n = int(lengths[b])
        pos = (torch.arange(T, dtype=torch.int64) - (T - n)).clamp_min(0)
        ang = pos.to(torch.float64)[:, None] * inv[None, :]
        cos = ang.cos().to(x.dtype)
        sin = ang.sin().to(x.dtype)
        xb = x[b]
        a, c = xb[..., :half], xb[..., half:rotary_dim]
        outs.append(torch.cat([a * cos - c * sin, a * sin + c * cos, xb[..., rotary_dim:]], dim=-1))
    if not outs:
        return x[..., :0].sum() * 0 + x.clone() if False else x * 1 if False else x.clone()
    return torch.stack(outs)
'''}, "placeholder")
SUBMISSIONS.pop()

add("correct-p5-loop-batch", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > Dh:
        raise ValueError(f"rotary_dim={rotary_dim} must be even and in [2, {Dh}]")
    half = rotary_dim // 2
    inv = float(base) ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    outs = []
    for b in range(B):
        n = int(lengths[b])
        pos = (torch.arange(T, dtype=torch.int64) - (T - n)).clamp_min(0)
        ang = pos.to(torch.float64)[:, None] * inv[None, :]
        cos, sin = ang.cos().to(work), ang.sin().to(work)
        xb = x[b]
        a, c = xb[..., :half].to(work), xb[..., half:rotary_dim].to(work)
        rot = torch.cat([a * cos - c * sin, a * sin + c * cos], dim=-1).to(x.dtype)
        outs.append(torch.cat([rot, xb[..., rotary_dim:]], dim=-1))
    if not outs:
        return torch.cat([x[..., :rotary_dim] * 1, x[..., rotary_dim:]], dim=-1)
    return torch.stack(outs)
'''}, "correct: a Python loop over the batch (allowed), half precision rotated in float32, int(lengths[b]) is exact for any integer dtype")

add("correct-p6-b", True, {"mc": '''
answer_cache = "B".lower()
'''}, "correct: 'b' as a plain str")

add("correct-p7-neg-index-wrap", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(h):
        w = torch.tensor(base, dtype=torch.float64) ** (-2.0 * i / d_model)
        a = torch.tensor(offset, dtype=torch.float64) * w
        # cosine column of pair i sits h to the right; i + h - d_model is the same column counted from the end
        m[i, i] = a.cos()
        m[i + h, i] = a.sin()
        m[i, i + h - d_model] = -a.sin()
        m[i - h, i - h] = a.cos()
    return m
'''}, "correct: m[i, i+h-D] and m[i-h, i-h] are columns/rows i+h through Python's wrap-around (negative indices count from the end)")

add("correct-p8-inverse-compare", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.size(1)
    worst = 0.0
    for trial in range(trials):
        perm = torch.randperm(T, generator=generator)
        out = layer(x)
        out_perm = layer(x[:, perm])
        undone = out_perm[:, torch.argsort(perm)]          # undo the permutation on the other side
        gap = (undone.double() - out.double()).abs().amax().item()
        if gap > worst:
            worst = gap
    return worst <= tol, worst
'''}, "correct: applying the inverse permutation to both sides changes no absolute difference, only where it stands")

add("correct-p3-solved", True, {"reach": '''
m = min(2 ** (-8 * (h + 1) / 8) for h in range(8))
alibi_reach = float(math.log(1000) / m)
'''}, "correct: 256 * ln(1000)")

# ---------------- hostile ----------------
add("hostile-p6-str-equal-all", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__


answer_cache = Letter("a")
'''}, "hostile: a str subclass equal to every letter")

add("hostile-p4-int-equal-all", False, {"position": '''
class AnyPosition(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__


def position_from_encoding(row):
    return AnyPosition(0)
'''}, "hostile: an int subclass equal to every position")

# ---------------- added after the first check ----------------
add("intrange-p8-gaps-tensor-float32", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        gaps.append((a.to(torch.float64) - b.to(torch.float64)).abs().max().item())
    worst = torch.tensor(gaps).max()                  # collect the trials in a tensor
    return (bool(worst <= tol), float(worst))
'''}, "Part 8: 'take the differences in float64 ... worst a Python float', 'True exactly when worst <= tol (one above it fails however little)' -- torch.tensor(list of floats) is float32, which rounds the gap (and can round a gap just above tol onto it)")

add("correct-p5-rotate-in-dtype", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    half = rotary_dim // 2
    theta = torch.tensor(float(base), dtype=torch.float64) ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    start = t - lengths.long()
    pos = torch.arange(t, dtype=torch.long).unsqueeze(0) - start.unsqueeze(1)
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos)
    ang = pos.double().unsqueeze(-1) * theta            # (B, T, R/2), float64
    cos = ang.cos().unsqueeze(1).to(x.dtype)            # rotate in the dtype of x, as the text allows
    sin = ang.sin().unsqueeze(1).to(x.dtype)
    first, second, rest = x[..., :half], x[..., half:rotary_dim], x[..., rotary_dim:]
    return torch.cat((first * cos - second * sin, first * sin + second * cos, rest), dim=-1)
'''}, "correct: angles, sines and cosines in float64, then 'rotate in the dtype of x or wider' -- here in the dtype of x")

add("correct-p2-int32-keys", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    keys = torch.arange(offset + t, dtype=torch.int32)         # offset + T < 2**24: int32 is plenty
    queries = torch.arange(offset, offset + t, dtype=torch.int32)
    rel = queries.view(-1, 1) - keys.view(1, -1)
    slopes = torch.tensor([2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float64)
    bias = -(slopes.view(-1, 1, 1) * rel.abs().double()).float()
    allowed = rel >= 0
    return bias, allowed
'''}, "correct: int32 positions (the text promises offset + T < 2**24), allowed where query - key >= 0")
