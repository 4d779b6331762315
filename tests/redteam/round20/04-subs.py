# Red team round 20, chapter 4 (blind). Kinds: SC shape-coincidence, AL aliasing/in-place,
# EE early-exit/special-case, LD library defaults.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


CHECK1 = '''
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
'''
ROT_CHECK = '''
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim={rotary_dim} must be even and between 2 and {dh}")
    half = rotary_dim // 2
'''
ROT_TAIL = '''
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    wide = torch.promote_types(x.dtype, torch.float64)
    x1, x2 = x[..., :half].to(wide), x[..., half:rotary_dim].to(wide)
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., rotary_dim:]], -1)
'''
POS_OK = '''
    pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]
'''
EQ_HEAD = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
'''

# ---------------------------------------------------------------- wrong: shape-coincidence (SC)
add("SC-p1-positions-colon-none", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):''' + CHECK1 + '''
    half = d_model // 2
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[:, None] * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "SC: positions[:, None] is right for (T,) and for (1, 1) (the visible cases); for (B, T) it broadcasts "
   "(B, 1, T) against the frequencies. Breaks 'positions is an integer tensor of any shape (...) ... return the "
   "(..., d_model) tensor'.")

add("SC-p1-base-times-scale-squared", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):''' + CHECK1 + '''
    half = d_model // 2
    b = base * scale ** 2  # worked out on the example: base 100, scale 3 -> 900
    freqs = b ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "SC: base * scale**2 is base * scale**(D/(D-2)) only for D = 4 (the visible case). Breaks 'the slowest one "
   "is divided by scale ... Work out which base does that (it depends on D)'.")

add("SC-p5-pair-with-Dh-half", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):''' + ROT_CHECK + POS_OK + '''
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    mid = dh // 2  # rotate half: feature i pairs with i + Dh/2
    x1, x2 = x[..., :half], x[..., mid:mid + half]
    out = x.clone()
    out[..., :half] = x1 * cos - x2 * sin
    out[..., mid:mid + half] = x1 * sin + x2 * cos
    return out
'''}, "SC: pairs feature i with i + Dh//2; in the visible case Dh // 2 = R / 2 = 1. Breaks 'feature i is paired "
   "with feature i + R/2' and 'features R .. Dh-1 pass through unchanged'.")

add("SC-p5-T-from-longest", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):''' + ROT_CHECK + '''
    lengths = lengths.to(torch.int64)
    longest = int(lengths.max()) if lengths.numel() else t
    pos = torch.arange(t)[None, :] - (longest - lengths)[:, None]
''' + ROT_TAIL}, "SC: takes the padded length from the longest sentence; the visible batch has one of length T. "
   "Breaks 'Row t of sequence b has the position m = t - (T - lengths[b])'.")

add("SC-p7-lesson-block-diagonal", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        a = offset * base ** (-2 * i / d_model)
        c, s = math.cos(a), math.sin(a)
        m[2 * i, 2 * i], m[2 * i, 2 * i + 1] = c, -s
        m[2 * i + 1, 2 * i], m[2 * i + 1, 2 * i + 1] = s, c
    return m
'''}, "SC: the lesson's interleaved 2x2 blocks, the same as sines-first only for D = 2 (the visible case). Breaks "
   "'for the sines-first table of Part 1'.")

add("SC-p8-first-sequence-only", False, {"equivariance": EQ_HEAD + '''
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])[0]
        b = layer(x)[0][perm]  # (T, D) of the sequence
        worst = max(worst, (a.double() - b.double()).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}, "SC: measures the first sequence of the batch only; the visible x has B = 1. Breaks 'the gap is the largest "
   "absolute difference between layer(x[:, perm]) and layer(x)[:, perm] over all their entries'.")

add("SC-p3-first-head-slope", False, {"reach": '''
num_heads = 8
slope = 2.0 ** (-8 / num_heads)  # m_h for the flattest head
alibi_reach = math.log(1000) / slope
'''}, "SC: uses h = 0 (the steepest slope, 2^-1) instead of h = H - 1. Breaks 'In the flattest head (the smallest "
   "slope)'.")

# ---------------------------------------------------------------- wrong: aliasing and in-place (AL)
add("AL-p1-kept-table-slice", False, {"table_halves": '''
TABLES = {}


def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):''' + CHECK1 + '''
    n = positions.numel()
    key = (d_model, base, scale, dtype)
    if positions.dim() == 1 and n and key in TABLES and TABLES[key].shape[0] >= n \\
            and torch.equal(positions, torch.arange(n, dtype=positions.dtype)):
        return TABLES[key][:n]  # 0 .. n-1: a slice of the table built before
    half = d_model // 2
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * freqs
    table = torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
    if positions.dim() == 1 and n and torch.equal(positions, torch.arange(n, dtype=positions.dtype)):
        TABLES[key] = table
    return table
'''}, "AL: returns a slice of a table kept from an earlier call. Breaks 'The caller may change the returned table "
   "in place: it must have memory of its own, not be a slice of a table kept from an earlier call'.")

add("AL-p5-to-float64-is-self", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):''' + ROT_CHECK + POS_OK + '''
    pos = pos.clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    y = x.to(torch.float64)  # a float64 copy to rotate in place
    x1 = y[..., :half].clone()
    x2 = y[..., half:rotary_dim]
    y[..., :half] = x1 * cos - x2 * sin
    y[..., half:rotary_dim] = x1 * sin + x2 * cos
    return y.to(x.dtype)
'''}, "AL: x.to(float64) is x itself for a float64 input, so the rotation is written into the caller's x and x "
   "is returned. Breaks 'Your functions must not change the tensors they are given' and 'Return a new tensor ..., "
   "never x itself'.")

add("AL-p8-mutable-default-perms", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5, perms=[]):
    t = x.shape[1]
    for _ in range(trials):
        perms.append(torch.randperm(t, generator=generator))
    worst = 0.0
    for perm in perms:
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        worst = max(worst, (a.double() - b.double()).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}, "AL: a mutable default list keeps every earlier call's permutations (and of other T). Breaks 'A function may "
   "not keep anything from one call to the next' and '`worst` is the largest gap over all trials'.")

add("AL-p4-normalise-pair-in-place", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    pair = row[d - 2:]
    pair /= torch.linalg.vector_norm(pair)  # put (sin, cos) back on the unit circle
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(pair[0]), float(pair[1])) % (2 * math.pi)
    return int(round(angle / omega))
'''}, "AL: divides a view of the caller's row in place. Breaks 'Your functions must not change the tensors they "
   "are given'.")

add("AL-p7-cached-matrices", False, {"shift": '''
MATRICES = {}


def shift_matrix_halves(offset, d_model, base=10000.0):
    key = (offset, d_model, base)
    if key in MATRICES:
        return MATRICES[key]
    half = d_model // 2
    ang = offset * base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i + half], m[i + half, i], m[i, i + half] = c, c, s, -s
    MATRICES[key] = m
    return m
'''}, "AL: returns the same kept matrix for repeated arguments. Breaks 'The caller may change the returned matrix "
   "in place: it must have memory of its own, not be a matrix kept from an earlier call'.")

# ---------------------------------------------------------------- wrong: early exit (EE)
add("EE-p1-empty-fast-path", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if positions.numel() == 0:  # nothing to encode
        return torch.zeros(*positions.shape, d_model)
''' + CHECK1 + '''
    half = d_model // 2
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "EE: the empty fast path skips the ValueError and the dtype. Breaks 'with such a d_model an empty positions "
   "raises too' and 'in dtype'.")

add("EE-p4-cos-one-is-zero", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    s, c = float(row[d - 2]), float(row[d - 1])
    if c == 1.0:  # slowest pair at angle 0: position 0
        return 0
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round((math.atan2(s, c) % (2 * math.pi)) / omega))
'''}, "EE: in float32 the slowest cosine rounds to 1 for small positions at large D. Breaks 'it must be exact for "
   "float32 rows too'.")

add("EE-p5-nothing-to-rotate", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):''' + ROT_CHECK + '''
    if x.numel() == 0 or bool((lengths <= 1).all()):  # every row at position 0: nothing turns
        return x.contiguous()
''' + POS_OK + ROT_TAIL}, "EE: the no-rotation fast path returns x itself (contiguous() of a contiguous tensor). "
   "Breaks 'Return a new tensor in the dtype of x, never x itself or a view of it, even when no row is rotated'.")

add("EE-p8-one-position", False, {"equivariance": EQ_HEAD + '''
    if t == 1:  # the only permutation is the identity
        return (True, 0.0)
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        worst = max(worst, (a.double() - b.double()).abs().max().item())
    return (bool(worst <= tol), float(worst))
'''}, "EE: T = 1 returns without drawing or calling the layer (a layer in training mode with dropout differs "
   "between calls). Breaks 'Draw trials permutations one after another, each with torch.randperm(T, "
   "generator=generator)' and 'a module in training mode is measured in training mode, dropout and all'.")

add("EE-p8-stop-at-first-failure", False, {"equivariance": EQ_HEAD + '''
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm])
        b = layer(x)[:, perm]
        worst = max(worst, (a.double() - b.double()).abs().max().item())
        if worst > tol:  # already not equivariant: no need to go on
            break
    return (bool(worst <= tol), float(worst))
'''}, "EE: stops after the first failing trial, so worst is not the maximum over all trials and fewer permutations "
   "are drawn. Breaks 'Draw trials permutations' and 'worst is the largest gap over all trials'.")

add("EE-p7-identity-float32", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    if offset == 0:  # no shift
        return torch.eye(d_model)
    half = d_model // 2
    ang = offset * base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i + half], m[i + half, i], m[i, i + half] = c, c, s, -s
    return m
'''}, "EE: the offset-0 fast path returns a float32 identity. Breaks 'the (d_model, d_model) float64 matrix M_k'.")

# ---------------------------------------------------------------- wrong: library defaults (LD)
add("LD-p1-int-arange-division-float32", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):''' + CHECK1 + '''
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-torch.arange(0, d_model, 2) / d_model)   # arange is int64; / gives a float tensor
    angles = positions.double()[..., None] * freqs.double()
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1).to(dtype)
'''}, "LD: int64 arange / int is float32 (the default dtype), so the frequencies are float32 before the cast. "
   "Breaks 'within 1e-6 ... for float32 and 1e-11 for float64, at positions up to a few thousand'.")

add("LD-p2-cdist-default-p2", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = torch.arange(offset, offset + t)
    k = torch.arange(offset + t)
    dist = torch.cdist(q[:, None].float(), k[:, None].float())  # |i - j| for every pair
    bias = (-slopes[:, None, None] * dist.double()).float()
    allowed = k[None, :] <= q[:, None]
    return (bias, allowed)
'''}, "LD: torch.cdist's default p=2 computes through a matrix product for more than 25 rows or columns, "
   "sqrt(a^2 + b^2 - 2ab) in float32, far off at large offsets. Breaks 'bias is within the rounding of float32 "
   "of the exact values (a relative 1e-6), however far the key' and 'Distances ... must be exact'.")

add("LD-p8-allclose-default-rtol", False, {"equivariance": EQ_HEAD + '''
    ok = True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a = layer(x[:, perm]).double()
        b = layer(x)[:, perm].double()
        ok = ok and torch.allclose(a, b, atol=tol)
        worst = max(worst, (a - b).abs().max().item())
    return (bool(ok), float(worst))
'''}, "LD: allclose adds rtol=1e-5 * |b|, so gaps above tol pass for large outputs. Breaks 'True exactly when "
   "worst <= tol ... tol is absolute, not relative to the size of the outputs'.")

add("LD-p5-hf-inv-freq-float32", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):''' + ROT_CHECK + POS_OK + '''
    pos = pos.clamp(min=0)
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
    ang = pos[..., None].double() * inv_freq.double()
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., rotary_dim:]], -1)
'''}, "LD: the usual inv_freq line computes the frequencies in float32 (.float()). Breaks 'Compute the positions, "
   "the angles, their sines and cosines in float64' (1e-12 for float64 inputs).")

add("LD-p4-int-truncates", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.atan2(row[d - 2], row[d - 1]).item() % (2 * math.pi)
    return int(angle / omega)
'''}, "LD: int() truncates, so 1233.9999 becomes 1233. Breaks 'Return p as a Python int; it must be exact'.")

add("LD-p4-atan2-range", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(row[-2]), float(row[-1]))
    return round(angle / omega)
'''}, "LD: atan2 returns (-pi, pi], so slowest angles past pi (p > ~9934 at D = 16) come out negative. Breaks 'get "
   "its angle in [0, 2pi) from the sine and the cosine together'.")

add("LD-p7-int-arange-division-float32", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freqs = torch.pow(base, -torch.arange(0, d_model, 2) / d_model).double()
    ang = offset * freqs
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i + half] = ang.cos(), ang.cos()
    m[i + half, i], m[i, i + half] = ang.sin(), -ang.sin()
    return m
'''}, "LD: torch.pow(float, float32 tensor) gives float32 frequencies; the matrix is off by ~1e-4 at offset "
   "10 000. Breaks 'the hidden tests check the matrix itself to 1e-12 ... for offsets up to 10 000'.")

add("P6-relative-only", False, {"mc": '''
answer_cache = "a"
'''}, "Breaks the question: the cached keys were rotated at 0..P-1, the queries now at 0..T-1, so the relative "
   "offset is shifted by P (b).")

# ---------------------------------------------------------------- correct
add("OK-p1-exp-log-flat", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 == 1 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    freqs = torch.exp(-log_base * torch.arange(half, dtype=torch.float64) * 2.0 / d_model)
    flat = positions.reshape(-1).to(torch.float64)
    angles = torch.outer(flat, freqs)
    table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
    return table.reshape(*positions.shape, d_model).to(dtype=dtype)
'''}, "log-space base, flattened positions, outer product, float64 until the end.")

add("OK-p2-tril-exp2", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.exp2(-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    rows = torch.arange(t)[:, None] + offset
    cols = torch.arange(offset + t)[None, :]
    bias = -slopes[:, None, None] * (rows - cols).abs().to(torch.float32)
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "float32 slopes via exp2 (the text allows float32); tril aligned at offset.")

add("OK-p3-from-part2", True, {"reach": '''
bias, _ = alibi_block(8, 1, 1)                 # key 0 is at distance 1 from the query at position 1
flattest = min(float(-bias[h, 0, 0]) for h in range(8))
alibi_reach = math.log(1000.0) / flattest
'''}, "reads the smallest slope off Part 2's bias.")

add("OK-p3-rounded", True, {"reach": '''
alibi_reach = round(2 ** 8 * math.log(1000), 3)  # exp(-d / 256) = 1 / 1000
'''}, "round(x, 3) is a float within 0.1 %.")

add("OK-p4-torch-remainder", True, {"position": '''
def position_from_encoding(row):
    d = row.numel()
    pair = row[d - 2:].to(torch.float64)
    angle = torch.remainder(torch.atan2(pair[0], pair[1]), 2 * math.pi)
    omega = math.pow(10000.0, -(d - 2) / d)
    return int(torch.round(angle / omega).item())
'''}, "float64 atan2 and remainder; torch.round on a value near an integer.")

add("OK-p5-from-part1-table", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):''' + ROT_CHECK + POS_OK + '''
    pos = pos.clamp(min=0)
    if rotary_dim >= 4:  # Part 1's sines-first table holds sin(m theta_i), then cos(m theta_i)
        table = sinusoidal_table_halves(pos, rotary_dim, base=base, dtype=torch.float64)
        sin, cos = table[..., :half][:, None], table[..., half:][:, None]
    else:
        ang = pos.to(torch.float64)[..., None]  # theta_0 = 1
        sin, cos = ang.sin()[:, None], ang.cos()[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:rotary_dim].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., rotary_dim:]], -1)
'''}, "Part 1's table with d_model = R has exactly the frequencies base^(-2i/R); R = 2 by hand.")

add("OK-p5-where-and-clone-fast-path", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):''' + ROT_CHECK + '''
    if x.numel() == 0 or bool((lengths.to(torch.int64) <= 1).all()):
        return x.clone()  # every row at position 0: equal values, new memory, gradient flows
    lengths = lengths.to(torch.int64)
    pos = torch.arange(t)[None, :] - (t - lengths)[:, None]
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos)
''' + ROT_TAIL}, "a clone when nothing turns; torch.where for the padding rows.")

add("OK-p7-loop-entries", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    if offset == 0:
        return torch.eye(d_model, dtype=torch.float64)
    half = d_model // 2
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        angle = offset * base ** (-2.0 * i / d_model)
        c, s = math.cos(angle), math.sin(angle)
        m[i, i] = c                # sin(p + k) = sin p cos a + cos p sin a
        m[i + half, i] = s
        m[i, i + half] = -s        # cos(p + k) = cos p cos a - sin p sin a
        m[i + half, i + half] = c
    return m
'''}, "entry by entry with math.sin/cos on float64 angles; a new identity at offset 0.")

add("OK-p8-no-grad-once-norm", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.size(1)
    gaps = []
    with torch.no_grad():
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            moved = layer(x[:, perm]).to(torch.float64)
            target = layer(x).to(torch.float64)[:, perm]
            gaps.append(torch.linalg.vector_norm(moved - target, ord=float("inf")).item())
    worst = max(gaps)
    return worst <= tol, float(worst)
'''}, "no_grad (no gradient asked), inf-norm of the float64 difference.")

# ---------------------------------------------------------------- hostile
add("HOSTILE-p6-str-equal-to-everything", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


answer_cache = Letter("a")
'''}, "hostile: a str subclass equal to any letter.")

add("HOSTILE-p4-steal-reference", False, {"position": '''
import sys


def position_from_encoding(row):
    me = position_from_encoding
    frame = sys._getframe(1)
    while frame is not None:
        for scope in (frame.f_locals, frame.f_globals):
            for value in list(scope.values()):
                found = [value] + (list(value.values()) if isinstance(value, dict) else [])
                for f in found:
                    if callable(f) and getattr(f, "__name__", "") == "position_from_encoding" and f is not me:
                        return f(row)
        frame = frame.f_back
    return int(round(math.atan2(float(row[1]), float(row[0] * 0 + row[1])) * 0)) + {16: 0, 64: 1234}.get(
        row.numel(), 0) + (42 if row.numel() == 16 and abs(float(row[0])) > 0.5 else 0)
'''}, "hostile: walks the caller's frames for a reference of the same name; else guesses the visible values.")
