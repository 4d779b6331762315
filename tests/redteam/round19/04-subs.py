def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = []
W = lambda n, c, w: SUBMISSIONS.append(sub(n, False, c, w))
C = lambda n, c, w: SUBMISSIONS.append(sub(n, True, c, w))

# ---------------- off-by-one student ----------------
W("O1-position-second-slowest-pair", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 2                       # the last pair index ... counted one too far from the end
    omega = 10000.0 ** (-2 * i / d)
    angle = math.atan2(float(row[2 * i]), float(row[2 * i + 1])) % (2 * math.pi)
    return int(round(angle / omega))
'''}, "Part 4: 'which pair does not wrap around within this range?' (the second-slowest pair wraps for D = 16 past p ~ 6283)")
W("O2-position-atan2-no-wrap", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(row[-2]), float(row[-1]))     # in (-pi, pi]
    return round(angle / omega)
'''}, "Part 4: 'get its angle in [0, 2 pi)': atan2 gives (-pi, pi], and at D = 16 the slowest angle passes pi for p > 9935")
W("O3-rope-rotary-dim-strictly-below-Dh", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim >= dh:
        raise ValueError("rotary_dim must be even, at least 2 and leave some features unrotated")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    ang = pos[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    x1, x2 = x[..., :half].to(torch.float64), x[..., half:rotary_dim].to(torch.float64)
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'Raise a ValueError unless rotary_dim is even and 2 <= rotary_dim <= Dh' (R = Dh refused)")
W("O4-reach-slope-index-from-0", {"reach": '''
H = 8
h = H - 1                                    # the flattest head
slope = 2.0 ** (-8.0 * h / H)
alibi_reach = math.log(1000.0) / slope
'''}, "Part 3: slopes m_h = 2^{-8(h+1)/H}: the flattest is 2^-8, not 2^-7")
W("O5-equivariance-strict-tol", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (worst < tol, float(worst))
'''}, "Part 8: 'True exactly when worst <= tol (a gap equal to tol passes...)'")
W("O6-equivariance-identity-first", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    perms = [torch.arange(t)]                                    # trial 0: the identity, as a sanity check
    perms += [torch.randperm(t, generator=generator) for _ in range(1, trials)]
    worst = 0.0
    for perm in perms:
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "Part 8: 'Draw trials permutations one after another, each with torch.randperm(T, generator=generator)' (one drawn fewer)")
# ---------------- padding and reduction student ----------------
W("R1-equivariance-mean-over-trials", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gaps.append((layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max())
    worst = torch.stack(gaps).mean().item()               # the typical gap over the trials
    return (worst <= tol, float(worst))
'''}, "Part 8: 'worst is the largest gap over all trials'")
W("R2-equivariance-signed-max", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).max().item()
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "Part 8: 'the gap is the largest absolute difference'")
W("R3-equivariance-mean-of-per-example-max", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        diff = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs()
        gap = diff.amax(dim=(1, 2)).mean().item()            # per example, then over the batch
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "Part 8: the gap is the largest absolute difference 'over all their entries' (not the batch mean of per-example maxima)")
W("R4-table-positions-assumed-1d", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[:, None] * freqs               # (T, 1) * (D/2,)
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'positions is an integer tensor of any shape (...) ... return the (..., d_model) tensor' (broadcasts the wrong axis for (B, T))")
W("R5-equivariance-allclose-rtol", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst, ok = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a, b = layer(x[:, perm]).double(), layer(x)[:, perm].double()
        worst = max(worst, (a - b).abs().max().item())
        ok = ok and torch.allclose(a, b, atol=tol)          # rtol left at its default
    return (bool(ok), float(worst))
'''}, "Part 8: 'tol is absolute, not relative to the size of the outputs'")

# ---------------- paper and reference-code reader ----------------
W("P1-alibi-paper-slopes-non-power-of-two", {"alibi_block": '''
def alibi_slopes(n):
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def alibi_block(num_heads, t, offset):
    slopes = torch.tensor(alibi_slopes(num_heads), dtype=torch.float64)
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs().to(torch.float64)
    return ((-slopes[:, None, None] * dist).float(), k[None, :] <= q[:, None])
'''}, "Part 2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'")
W("P2-table-annotated-div-term-float32", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    b = base * scale ** (d_model / (d_model - 2))
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(b) / d_model))   # Annotated Transformer
    angles = positions.to(torch.float64)[..., None] * div_term.to(torch.float64)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1).to(dtype)
'''}, "Part 1: 'within 1e-6 ... for float32 and 1e-11 for float64 ... Computing the angles in float64' (the frequencies rounded to float32 first)")
W("P3-rope-gptj-interleaved-pairs", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    pos = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    ang = pos[:, None, :, None] * theta
    cos, sin = ang.cos(), ang.sin()
    xr = x[..., :rotary_dim].to(torch.float64)
    x1, x2 = xr[..., 0::2], xr[..., 1::2]                      # GPT-J's rotate_every_two
    rot = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    return torch.cat([rot.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'feature i is paired with feature i + R/2 (rotate half)'")
W("P4-rope-hf-float32-inv-freq", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("bad rotary_dim")
    b, h, t, _ = x.shape
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.int64).float() / rotary_dim))
    position_ids = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0)
    freqs = position_ids[:, :, None].float() * inv_freq                  # as in transformers' LlamaRotaryEmbedding
    emb = torch.cat((freqs, freqs), dim=-1)[:, None]
    cos, sin = emb.cos().to(x.dtype), emb.sin().to(x.dtype)
    xr = x[..., :rotary_dim]
    half = rotary_dim // 2
    rotated = torch.cat((-xr[..., half:], xr[..., :half]), dim=-1)
    return torch.cat([xr * cos + rotated * sin, x[..., rotary_dim:]], dim=-1)
'''}, "Part 5: 'Compute the positions, the angles, their sines and cosines in float64' (1e-12 for float64 inputs)")
W("P5-shift-matrix-interleaved-blocks", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        w = base ** (-2 * i / d_model)
        c, s = math.cos(offset * w), math.sin(offset * w)
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = torch.tensor([[c, -s], [s, c]], dtype=torch.float64)   # the lesson's M_k
    return m
'''}, "Part 7: for the sines-first table, column i pairs with column i + D/2, not 2i with 2i+1")
W("P6-cache-answer-relative", {"mc": '''
answer_cache = "a"   # RoPE is relative (Su et al.): q_m . k_n depends on m - n only
'''}, "Part 6: the queries are rotated by 0.. while the keys keep P.., so m - n shifts by P: (b)")
C("C14-table-ntk-reciprocal-pow", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    # NTK-aware scaling as posted for LLaMA: base * alpha ** (dim / (dim - 2)) with dim the rotary width,
    # written out with the frequencies of the pairs 0, 2, 4, ... of the width
    b = base * scale ** (d_model / (d_model - 2))
    freqs = 1.0 / (b ** (torch.arange(0, d_model, 2, dtype=torch.float64) / d_model))
    angles = positions.to(torch.float64).unsqueeze(-1) * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "the same base and frequencies, 1 / b ** (2i/D)")

# ---------------- numerically naive student ----------------
W("N1-position-acos", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.acos(max(-1.0, min(1.0, float(row[-1]))))       # the cosine gives the angle
    return int(round(angle / omega))
'''}, "Part 4: 'a formula that uses only one of them loses the sign or ... too many digits'")
W("N2-position-atan-ratio", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    s, c = row[-2].double(), row[-1].double()
    angle = torch.atan(s / c).item()                     # tan = sin / cos
    if angle < 0:
        angle += math.pi
    return int(round(angle / omega))
'''}, "Part 4: 'get its angle in [0, 2 pi) from the sine and the cosine together' (atan of the ratio loses the quadrant)")
W("N3-alibi-expanded-product-float32", {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    q = (offset + torch.arange(t)).to(torch.float32)
    k = torch.arange(offset + t).to(torch.float32)
    # m |q - k| = |m q - m k|: scale the positions first
    bias = -(slopes[:, None, None] * q[None, :, None] - slopes[:, None, None] * k[None, None, :]).abs()
    allowed = torch.arange(offset + t)[None, :] <= (offset + torch.arange(t))[:, None]
    return (bias, allowed)
'''}, "Part 2: 'bias is within the rounding of float32 of the exact values (a relative 1e-6), however far the key' (m*q - m*k cancels)")
W("N4-equivariance-diff-in-output-dtype", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = float((layer(x[:, perm]) - layer(x)[:, perm]).abs().max())
        worst = max(worst, gap)
    return (worst <= tol, worst)
'''}, "Part 8: 'take the differences in float64'")
W("N5-equivariance-root-of-largest-square", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a, b = layer(x[:, perm]).to(torch.float64), layer(x)[:, perm].to(torch.float64)
        gap = torch.sqrt(((a - b) ** 2).amax()).item()          # the largest |difference|
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "Part 8: 'values of any size ... exactly': squaring overflows float64 past 1e154 (and underflows below 1e-162)")
W("N6-table-positions-via-float32", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.float().double()[..., None] * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'do not pass the positions through float32 on their way to float64'")
C("C15-shift-reciprocal-pow", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    freqs = 1.0 / torch.tensor(base, dtype=torch.float64) ** (2 * torch.arange(h, dtype=torch.float64) / d_model)
    ang = torch.tensor(float(offset), dtype=torch.float64) * freqs
    c, s = torch.cos(ang), torch.sin(ang)
    top = torch.cat([torch.diag(c), torch.diag(-s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "the same matrix; 1 / base ** x stays finite for any finite base")

# ---------------- correct ----------------
C("C1-table-reshape-flat", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model={d_model} must be even and >= 4")
    half = d_model // 2
    new_base = base * scale ** (2 * half / (2 * half - 2))
    freqs = torch.exp(-math.log(new_base) * torch.arange(half, dtype=torch.float64) * 2 / d_model)
    flat = positions.reshape(-1).to(torch.float64)
    angles = flat[:, None] * freqs[None, :]
    table = torch.cat([torch.sin(angles), torch.cos(angles)], dim=1)
    return table.reshape(*positions.shape, d_model).to(dtype=dtype)
'''}, "flattened positions, exp/log frequencies in float64")
C("C2-alibi-tril-where", {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = torch.pow(2.0, -8.0 * (h + 1) / num_heads)
    rows = torch.arange(offset, offset + t, dtype=torch.int64)
    cols = torch.arange(0, offset + t, dtype=torch.int64)
    dist = torch.abs(rows.unsqueeze(1) - cols.unsqueeze(0))
    bias = torch.neg(slopes.view(-1, 1, 1) * dist.unsqueeze(0)).to(torch.float32)
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "tril(diagonal=offset) mask")
C("C3-reach-closed-form", {"reach": '''
H = 8
smallest_slope = 2.0 ** (-8.0 * H / H)
alibi_reach = float(math.log(1000) / smallest_slope)
'''}, "ln(1000) * 256")
C("C4-reach-via-part2", {"reach": '''
bias, _ = alibi_block(8, 1, 1)
flattest = -float(bias[:, 0, 0].max())          # distance 1 in every head: the bias is minus the slope
alibi_reach = math.log(1000.0) / flattest
'''}, "calls Part 2 for the slopes")
C("C5-position-atan2-float64", {"position": '''
def position_from_encoding(row):
    r = row.to(torch.float64)
    d = r.shape[-1]
    omega = 10000.0 ** (-2 * (d // 2 - 1) / d)
    angle = torch.atan2(r[d - 2], r[d - 1]).item()
    if angle < 0:
        angle += 2 * math.pi
    return int(torch.round(torch.tensor(angle / omega, dtype=torch.float64)).item())
'''}, "atan2 in float64, wrapped to [0, 2pi)")
C("C6-position-nearest-row-via-part1", {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    table = sinusoidal_table_halves(torch.arange(10000), d, dtype=torch.float64)    # sines first
    half = d // 2
    interleaved = torch.stack([table[:, :half], table[:, half:]], dim=-1).reshape(10000, d)
    dist = ((interleaved - row.to(torch.float64)) ** 2).sum(dim=-1)
    return int(dist.argmin())
'''}, "nearest row of Part 1's table, reordered to the paper's layout")
C("C7-rope-complex", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    if rotary_dim % 2 == 1 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("rotary_dim must be even with 2 <= rotary_dim <= Dh")
    b, h, t, _ = x.shape
    half = rotary_dim // 2
    lengths = lengths.to(torch.int64)
    pos = torch.arange(t, dtype=torch.int64)[None, :] - (t - lengths)[:, None]
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos).to(torch.float64)
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64), -2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    angles = pos[:, None, :, None] * theta
    z = torch.complex(x[..., :half].to(torch.float64), x[..., half:rotary_dim].to(torch.float64))
    z = z * torch.polar(torch.ones_like(angles), angles)
    return torch.cat([z.real.to(x.dtype), z.imag.to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "complex multiplication")
C("C8-rope-loop-over-batch", {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    rows = []
    for i in range(b):
        pad = t - int(lengths[i])
        pos = torch.clamp(torch.arange(t) - pad, min=0).to(torch.float64)
        ang = pos[:, None] * theta                                 # (T, R/2)
        xi = x[i]
        a, c = xi[..., :half].double(), xi[..., half:rotary_dim].double()
        rows.append(torch.cat([(a * ang.cos() - c * ang.sin()).to(x.dtype),
                               (a * ang.sin() + c * ang.cos()).to(x.dtype), xi[..., rotary_dim:]], dim=-1))
    if not rows:
        return torch.empty_like(x, memory_format=torch.contiguous_format)
    return torch.stack(rows)
'''}, "a loop over the batch")
C("C9-mc-b", {"mc": '''
answer_cache = "b"
'''}, "b")
C("C10-shift-block-cat", {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    freqs = torch.exp(-2.0 * i / d_model * math.log(base))
    angles = offset * freqs
    c, s = torch.diag(torch.cos(angles)), torch.diag(torch.sin(angles))
    return torch.cat([torch.cat([c, -s], dim=1), torch.cat([s, c], dim=1)], dim=0)
'''}, "block matrix from diagonals")
C("C11-equivariance-ref-once", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        moved_then_layer = layer(x[:, perm]).to(torch.float64)
        layer_then_moved = layer(x).to(torch.float64)[:, perm]
        worst = max(worst, torch.max(torch.abs(moved_then_layer - layer_then_moved)).item())
    return (bool(worst <= tol), float(worst))
'''}, "per trial, float64, torch.max")
C("C12-equivariance-no-grad-stack", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    perms = [torch.randperm(t, generator=generator) for _ in range(trials)]
    gaps = []
    with torch.no_grad():
        for perm in perms:
            diff = layer(x[:, perm]).double() - layer(x)[:, perm].double()
            gaps.append(diff.abs().amax())
    worst = torch.stack(gaps).amax().item()
    return (worst <= tol, worst)
'''}, "permutations drawn first, no_grad")
C("C13-table-calls-polar", {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    exponent = d_model / (d_model - 2)
    b = base * scale ** exponent
    freqs = torch.tensor([b ** (-2.0 * i / d_model) for i in range(d_model // 2)], dtype=torch.float64)
    angles = torch.einsum("...,f->...f", positions.to(torch.float64), freqs)
    return torch.cat([torch.sin(angles), torch.cos(angles)], -1).to(dtype)
'''}, "einsum, Python-float frequencies")

# ---------------- hostile ----------------
W("X1-mc-always-equal", {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_cache = Letter("a")
'''}, "hostile: str subclass equal to everything")
W("X2-reach-always-equal", {"reach": '''
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
'''}, "hostile: float subclass whose differences are 0")

# ---------------- phase 2 additions ----------------
C("C16-equivariance-vector-norm-inf", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        diff = layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)
        worst = max(worst, torch.linalg.vector_norm(diff, ord=float("inf")).item())   # the largest |entry|
    return (worst <= tol, float(worst))
'''}, "phase 2: the infinity norm is the largest absolute difference, exact at any size")
W("N8-equivariance-hypot-style-scaled-norm", {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        diff = (layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)).abs()
        gap = torch.sqrt(torch.amax(diff * diff, dim=(1, 2))).max().item()    # per example, then over the batch
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "phase 2, N5's class again: the root of a largest square overflows past 1e154 and underflows below 1e-162 (Part 8)")
