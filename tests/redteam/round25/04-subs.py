# Round 25 red team, chapter 04, blind submissions (notebook-state, approximator, log-space, direction-and-order students)
BASE = {
"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    new_base = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(half, dtype=torch.float64)
    freqs = torch.tensor(new_base, dtype=torch.float64) ** (-2 * i / d_model)
    angles = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
''',
"alibi_block": '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)
    qpos = offset + torch.arange(t)
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    allowed = kpos[None, :] <= qpos[:, None]
    return (bias, allowed)
''',
"reach": '''
alibi_reach = 256 * math.log(1000)
''',
"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 1
    omega = 10000.0 ** (-2 * i / d)
    s, c = float(row[2 * i]), float(row[2 * i + 1])
    angle = math.atan2(s, c) % (2 * math.pi)
    return int(round(angle / omega))
''',
"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    theta = float(base) ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    m = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]
    m = m.clamp(min=0).to(torch.float64)
    ang = m[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    wide = torch.promote_types(x.dtype, torch.float64)
    x1 = x[..., :half].to(wide)
    x2 = x[..., half:rotary_dim].to(wide)
    r1 = x1 * cos - x2 * sin
    r2 = x1 * sin + x2 * cos
    return torch.cat([r1.to(x.dtype), r2.to(x.dtype), x[..., rotary_dim:]], dim=-1)
''',
"mc": '''
answer_cache = "b"
''',
"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    freqs = torch.tensor(float(base), dtype=torch.float64) ** (-2 * i / d_model)
    ang = float(offset) * freqs
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
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        gaps.append((a.detach().to(torch.float64) - b.detach().to(torch.float64)).abs().max())
    worst = torch.stack(gaps).max().item()
    return (bool(worst <= tol), float(worst))
''',
}
B = BASE
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

# ---------------- wrong: notebook-state student ----------------
W("state-p1-freqs-cached-by-width-and-scale", {"table_halves": '''
FREQ_CACHE = {}


def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    key = (d_model, scale)
    if key not in FREQ_CACHE:  # the frequencies depend only on the width and the stretch
        new_base = base * scale ** (d_model / (d_model - 2))
        FREQ_CACHE[key] = new_base ** (-2 * torch.arange(d_model // 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * FREQ_CACHE[key]
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "P1: 'omega_i = b^(-2i/D)' with the given base b; a frequency table kept per (d_model, scale) from the first call keeps that call's base (and the intro: 'A function may not keep anything from one call to the next')")

W("state-p8-own-seeded-generator", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    g = torch.Generator().manual_seed(0)   # reproducible, as in the example
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=g)
        a = layer(x[:, perm]).detach().double()
        b = layer(x)[:, perm].detach().double()
        worst = max(worst, (a - b).abs().max().item())
    return (worst <= tol, float(worst))
'''}, "P8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)': a fresh generator seeded like the visible test's ignores the caller's generator and its state")

W("state-p5-angle-table-cached", {"rotate_half": '''
ANGLES = {}


def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    if rotary_dim not in ANGLES:   # theta_i for this rotary width, built once
        ANGLES[rotary_dim] = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    theta = ANGLES[rotary_dim]
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[:, None, :, None] * theta
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    r1 = x1 * ang.cos() - x2 * ang.sin()
    r2 = x1 * ang.sin() + x2 * ang.cos()
    return torch.cat([r1.to(x.dtype), r2.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "P5: theta_i = base^(-2i/R) for the given base: frequencies cached per rotary_dim keep the first call's base")

W("state-p2-distance-table-per-t", {"alibi_block": '''
DIST = {}


def alibi_block(num_heads, t, offset):
    if t not in DIST:   # distances of a block of t queries, built once
        q = offset + torch.arange(t)
        k = torch.arange(offset + t)
        DIST[t] = (q[:, None] - k[None, :]).abs()
    dist = DIST[t]
    n = dist.shape[1]
    slopes = 2.0 ** (-8.0 * (torch.arange(num_heads, dtype=torch.float64) + 1) / num_heads)
    bias = (-slopes[:, None, None] * dist.double()).float()
    allowed = torch.arange(n)[None, :] <= (n - t + torch.arange(t))[:, None]
    return (bias, allowed)
'''}, "P2: bias of shape (H, T, offset + T) for the given offset: a distance table kept per t keeps the first call's offset")

# ---------------- wrong: approximator ----------------
W("approx-p3-ln1000-is-6.9", {"reach": '''
# weight ratio exp(-m d) = 1/1000 with m = 2^-8: d = 256 ln 1000, and ln 1000 is about 6.9
alibi_reach = 256 * 6.9
'''}, "P3: '0.1 % accuracy is enough': 6.9 for ln 1000 = 6.9078 is 0.11 % off")

W("approx-p1-fairseq-float32-freqs", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    new_base = base * scale ** (d_model / (d_model - 2))
    freqs = torch.exp(torch.arange(half, dtype=torch.float32) * -(2 * math.log(new_base) / d_model))
    angles = positions.to(torch.float64)[..., None] * freqs.double()
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "P1: 'within 1e-6 of the exact values for float32 and 1e-11 for float64 ... Computing the angles in float64': the frequencies themselves come from a float32 exp, off by 1e-7 relative, so angles at positions in the thousands are off by 1e-4")

W("approx-p5-float32-angles", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    theta = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float32) / rotary_dim))
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).float()
    ang = m[:, None, :, None] * theta
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:rotary_dim]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., rotary_dim:]], dim=-1)
'''}, "P5: 'Compute the positions, the angles, their sines and cosines in float64' / 'within 1e-12 ... for float64 inputs': the HF recipe in float32")

W("approx-p7-float32-angles", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    inv_freq = 1.0 / (base ** (torch.arange(0, d_model, 2).float() / d_model))
    ang = (offset * inv_freq).double()
    c, s = ang.cos(), ang.sin()
    top = torch.cat([torch.diag(c), torch.diag(-s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "P7: 'the hidden tests check the matrix itself to 1e-12': frequencies and angles in float32")

W("approx-p8-allclose-relative", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst, ok = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm]).detach().double()
        b = layer(x)[:, perm].detach().double()
        worst = max(worst, (a - b).abs().max().item())
        ok = ok and torch.allclose(a, b, atol=tol)
    return (bool(ok), float(worst))
'''}, "P8: 'equivariant a Python bool, True exactly when worst <= tol ... tol is absolute, not relative to the size of the outputs': allclose adds rtol=1e-5 * |b|")

W("approx-p4-truncate", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 1
    omega = 10000.0 ** (-2 * i / d)
    angle = math.atan2(float(row[2 * i]), float(row[2 * i + 1]))
    if angle < 0:
        angle += 2 * math.pi
    return int(angle / omega + 1e-6)
'''}, "P4: 'Return p as a Python int; it must be exact for float32 rows too': int() truncates an angle that float32 puts a hair below p*omega")

# ---------------- wrong: log-space student ----------------
W("log-p3-log2", {"reach": '''
# a thousand times less weight: log2(1000) ~ 10 halvings of the exponent at slope 2^-8
alibi_reach = 256 * math.log2(1000)
'''}, "P3: softmax weights are exp(score): the ratio exp(-m d) = 1/1000 needs ln 1000, not log2")

W("log-p3-log10", {"reach": '''
alibi_reach = float(2 ** 8 * math.log10(1000))
'''}, "P3: the softmax's exp needs the natural log: 10^-(m d) is not the weight ratio")

W("log-p8-nan-to-num-outputs", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        # outputs may be log-probabilities with -inf: make them comparable numbers first
        a = torch.nan_to_num(layer(x[:, perm]).detach().double())
        b = torch.nan_to_num(layer(x)[:, perm].detach().double())
        worst = max(worst, (a - b).abs().max().item())
    return (worst <= tol, float(worst))
'''}, "P8: 'the gap is the largest absolute difference between layer(x[:, perm]) and layer(x)[:, perm] ... exactly': nan_to_num turns an inf gap into 1.8e308 and a NaN into 0")

W("log-p8-python-max-drops-nan", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        gap = (a.detach().to(torch.float64) - b.detach().to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "P8: 'worst is the largest gap over all trials' and 'True exactly when worst <= tol': Python's max(0.0, nan) keeps 0.0, so a layer whose outputs hold -inf (log-probabilities; -inf - -inf is NaN) or NaN passes as equivariant with worst 0.0")

# ---------------- wrong: direction-and-order ----------------
W("dir-p5-adjacent-pairs", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., 0:rotary_dim:2].double(), x[..., 1:rotary_dim:2].double()   # the lesson's pairs
    r = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    return torch.cat([r.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "P5: 'within them, feature i is paired with feature i + R/2 (\\\"rotate half\\\")': adjacent pairs (the lesson's layout)")

W("dir-p7-interleaved-placement", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freqs = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = offset * freqs
    blocks = [torch.tensor([[a.cos(), -a.sin()], [a.sin(), a.cos()]], dtype=torch.float64) for a in ang]
    return torch.block_diag(*blocks)   # the lesson's M_k, one 2x2 rotation per pair
'''}, "P7: 'for the sines-first table of Part 1': the rotation of pair i acts on columns i and i + D/2, not 2i and 2i+1")

W("dir-p3-steepest-head", {"reach": '''
# the first head, h = 0
m = 2 ** (-8 * (0 + 1) / 8)
alibi_reach = math.log(1000) / m
'''}, "P3: 'In the flattest head (the smallest slope)': h = 0 has the largest slope, 1/2")

W("dir-p4-second-slowest-pair", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 2          # pairs counted from the end: the last one before the final pair
    omega = 10000.0 ** (-2 * i / d)
    angle = math.atan2(float(row[2 * i]), float(row[2 * i + 1])) % (2 * math.pi)
    return int(round(angle / omega))
'''}, "P4: 'which pair does not wrap around within this range?': the second-slowest pair wraps for p > 2*pi/omega (6283 at D = 16)")

W("copy-p5-exponent-over-head-width", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / dh)   # as in the lesson's rope
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[:, None, :, None] * theta
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    r1 = x1 * ang.cos() - x2 * ang.sin()
    r2 = x1 * ang.sin() + x2 * ang.cos()
    return torch.cat([r1.to(x.dtype), r2.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "P5: 'theta_i = base^(-2i/R) (R, not Dh, in the exponent)'")

W("p6-answer-a", {"mc": '''
answer_cache = "a"
'''}, "P6: the cached keys were rotated at their true positions, so the relative offset is shifted by P: (b)")

# ---------------- correct ----------------
C("base-all-parts", dict(B), "the answers as I wrote them")

C("p1-outer-exp-log", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model < 4 or d_model % 2 == 1:
        raise ValueError(f"d_model = {d_model}: need an even width of at least 4")
    half = d_model // 2
    log_base = math.log(base) + math.log(scale) * d_model / (d_model - 2)   # log of the stretched base
    freqs = torch.exp(-torch.arange(half, dtype=torch.float64) * (2.0 * log_base / d_model))
    p = positions.to(dtype=torch.float64)
    angles = torch.outer(p.reshape(-1), freqs).reshape(*positions.shape, half)
    table = torch.empty(*positions.shape, d_model, dtype=torch.float64)
    table[..., :half] = torch.sin(angles)
    table[..., half:] = torch.cos(angles)
    return table.to(dtype=dtype)
'''}, "P1 in log space for the stretched base, float64 throughout")

C("p2-positions-from-end", {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    n = offset + t
    # positions counted from the end of the sequence: query i is t-1-i from the end, key j is n-1-j
    q_from_end = (t - 1 - torch.arange(t, dtype=torch.int64))[:, None]
    k_from_end = (n - 1 - torch.arange(n, dtype=torch.int64))[None, :]
    dist = (k_from_end - q_from_end).abs()
    slopes = torch.exp2(-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    bias = -(slopes.view(-1, 1, 1) * dist.to(torch.float64))
    allowed = k_from_end >= q_from_end
    return bias.to(torch.float32), allowed.clone()
'''}, "P2 with positions counted from the end (distances and the mask are the same)")

C("p8-unpermute-stacked-gaps", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    perms = [torch.randperm(x.shape[1], generator=generator) for _ in range(trials)]
    gaps = []
    with torch.no_grad():
        for perm in perms:
            inverse = torch.argsort(perm)
            # un-permute the permuted output and compare with the plain one: the same set of differences
            out_perm = layer(x[:, perm])[:, inverse].to(torch.float64)
            out = layer(x).to(torch.float64)
            gaps.append(torch.amax(torch.abs(out_perm - out)))
    worst = float(torch.stack(gaps).max())
    return worst <= tol, worst
'''}, "P8 drawing all permutations first, comparing after undoing the permutation, under no_grad")

C("p3-rounded", {"reach": '''
alibi_reach = 1768.0   # 256 * ln(1000) = 1768.37, rounded
'''}, "P3 rounded within 0.1 %")

C("p7-diag-blocks-float64", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    angles = torch.tensor(offset, dtype=torch.float64) * torch.pow(torch.tensor(base, dtype=torch.float64), -2.0 * i / d_model)
    c, s = torch.cos(angles), torch.sin(angles)
    top = torch.cat([torch.diag(c), -torch.diag(s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "P7 from diagonal blocks")

C("p4-tensor-atan2-remainder", {"position": '''
def position_from_encoding(row):
    r = row.to(torch.float64).reshape(-1, 2)        # (D/2, 2): sine, cosine of each pair
    d = row.numel()
    slow = d // 2 - 1
    omega = 10000.0 ** (-2.0 * slow / d)
    angle = torch.remainder(torch.atan2(r[slow, 0], r[slow, 1]), 2 * math.pi)
    return round(angle.item() / omega)
'''}, "P4 with tensor atan2 and remainder; round() of a float returns an int")

C("p5-calls-part1-and-where", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError(f"rotary_dim = {rotary_dim} must be even and between 2 and Dh = {dh}")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    pos = torch.arange(t, dtype=torch.int64)[None, :] + lengths.to(torch.int64)[:, None] - t
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos)        # padding rows: position 0
    if rotary_dim >= 4:
        # Part 1's sines-first table with D = R has exactly sin(m theta_i), cos(m theta_i)
        table = sinusoidal_table_halves(pos, rotary_dim, base=base, dtype=torch.float64)
        sin, cos = table[..., :half], table[..., half:]
    else:
        ang = pos.to(torch.float64)[..., None]
        sin, cos = ang.sin(), ang.cos()
    sin, cos = sin[:, None], cos[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    rotated = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''}, "P5 calling Part 1's table for the angles (D = R gives theta_i = base^(-2i/R)), torch.where for the padding")

C("p7-calls-part1-row", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    if d_model >= 4:
        # row `offset` of Part 1's table holds sin(k w_i) and cos(k w_i)
        row = sinusoidal_table_halves(torch.tensor([offset], dtype=torch.int64), d_model, base, dtype=torch.float64)[0]
        s, c = row[:half], row[half:]
    else:
        ang = torch.tensor([float(offset)], dtype=torch.float64)
        s, c = ang.sin(), ang.cos()
    idx = torch.arange(half)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    m[idx, idx] = c
    m[idx, idx + half] = -s
    m[idx + half, idx] = s
    m[idx + half, idx + half] = c
    return m
'''}, "P7 reading sin/cos of the offset from Part 1's table (scale 1)")

C("p6-upper", {"mc": '''
answer_cache = "B".lower()
'''}, "P6 (b) via lower()")

C("p8-float64-per-trial-tensor", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = torch.zeros((), dtype=torch.float64)
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max()
        worst = torch.maximum(worst, gap.detach())
    worst = worst.item()
    return (True if worst <= tol else False), worst
'''}, "P8 keeping the worst gap as a float64 tensor")

# ---------------- hostile ----------------
SUBMISSIONS.append({"name": "hostile-p6-always-equal-str", "correct": False, "cells": {"mc": '''
class Answer(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_cache = Answer("a")
'''}, "why": "hostile: str subclass equal to every letter"})

SUBMISSIONS.append({"name": "hostile-p7-steal-reference", "correct": False, "cells": {"shift": '''
import gc


def shift_matrix_halves(offset, d_model, base=10000.0):
    me = shift_matrix_halves
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "shift_matrix_halves" and obj is not me and getattr(obj, "__code__", None) is not me.__code__:
            return obj(offset, d_model, base)
    c, s = math.cos(offset), math.sin(offset)
    m = torch.eye(d_model, dtype=torch.float64)
    m[0, 0], m[0, -1], m[-1, 0], m[-1, -1] = c, -s, s, c
    return m
'''}, "why": "hostile: calls the reference if it can find it, else only the D = 2 case"})

SUBMISSIONS.append({"name": "hostile-p3-float-subclass", "correct": False, "cells": {"reach": '''
class Reach(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    def __truediv__(self, other):
        return 1.0
    __hash__ = float.__hash__

alibi_reach = Reach(1.0)
'''}, "why": "hostile: float subclass that equals anything"})
