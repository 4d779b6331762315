# Round 15 red team, chapter 04 (positional encodings), four kinds of student (assistant paster, example
# generaliser, optimiser, mathematician). MODEL holds my own correct answers (used by /tmp/rt15/check.py only).

MODEL = {
"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64).unsqueeze(-1) * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
''',
"alibi_block": '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8.0 * (h + 1) / num_heads)
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs()
    bias = (-slopes[:, None, None] * dist).to(torch.float32)
    return bias, k[None, :] <= q[:, None]
''',
"reach": '''
alibi_reach = 256 * math.log(1000)
''',
"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    s, c = float(row[d - 2]), float(row[d - 1])
    angle = math.atan2(s, c)
    if angle < 0:
        angle += 2 * math.pi
    return int(round(angle / 10000.0 ** (-(d - 2) / d)))
''',
"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("bad rotary_dim")
    half = R // 2
    pos = (torch.arange(T)[None, :] - (T - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / R)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:R].double()
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
    ang = offset * base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    c, s = ang.cos(), ang.sin()
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
    t = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).to(torch.float64) - ref[:, perm].to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return worst <= tol, float(worst)
''',
}

SUBMISSIONS = []
def sub(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ----------------------------------------------------------------------------------------------- Part 1
sub("gen-p1-base-times-scale-squared", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** 2          # base 100, scale 3 -> 900: slowest 900^-1/2 = 1/30, as in the example
    freqs = b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1).to(dtype)
'''}, "[generaliser] the base of the worked example D = 4 (scale^2): breaks 'Work out which base does that (it depends on D)'")

sub("gen-p1-positions-1d", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError("bad d_model")
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.double()[:, None] * freqs       # (T, 1) * (D/2,)
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "[generaliser] positions[:, None] works for (T,) and (1, 1) only: breaks 'positions is an integer tensor of any shape (...) (..., the positions (B, T) of a padded batch, ...)'")

sub("opt-p1-empty-early-exit", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if positions.numel() == 0:          # nothing to compute
        return torch.zeros(*positions.shape, d_model, dtype=dtype)
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** (d_model / (d_model - 2))
    freqs = b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.double().unsqueeze(-1) * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "[optimiser] early exit before the check: breaks 'with such a d_model an empty positions raises too'")

sub("asst-p1-float32-div-term", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model must be even and >= 4, got {d_model}")
    base = base * scale ** (d_model / (d_model - 2))
    position = positions.float().unsqueeze(-1)
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model))
    pe = torch.cat([torch.sin(position * div_term), torch.cos(position * div_term)], dim=-1)
    return pe.to(dtype)
'''}, "[assistant] the tutorial's float32 div_term and positions: breaks 'Computing the angles in float64 and converting at the end meets both; computing them in float32 does not'")

# ----------------------------------------------------------------------------------------------- Part 2
sub("asst-p2-float-mask", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)])
    q_pos = torch.arange(offset, offset + t)
    k_pos = torch.arange(offset + t)
    distance = (q_pos[:, None] - k_pos[None, :]).abs()
    bias = -slopes[:, None, None] * distance
    allowed = torch.ones(t, offset + t).tril(diagonal=offset)     # 1 = attend, 0 = masked
    return bias, allowed
'''}, "[assistant] a 0/1 float causal mask: breaks 'allowed, boolean, shape (T, offset + T)'")

sub("asst-p2-lesson-slopes", False, {"alibi_block": '''
def get_slopes(n):
    def power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + get_slopes(2 * closest)[0::2][: n - closest]

def alibi_block(num_heads, t, offset):
    slopes = torch.tensor(get_slopes(num_heads), dtype=torch.float32)
    q = torch.arange(offset, offset + t)
    k = torch.arange(offset + t)
    bias = -slopes[:, None, None] * (q[:, None] - k[None, :]).abs()
    return bias, k[None, :] <= q[:, None]
'''}, "[assistant] ofir press's get_slopes: breaks 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'")

sub("opt-p2-outer-difference-float32", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    q = torch.arange(offset, offset + t)
    k = torch.arange(offset + t)
    allowed = k[None, :] <= q[:, None]
    # -m |q - k| = m k - m q on the allowed keys and m q - m k after them: two scaled position
    # vectors and one broadcast subtraction, no (T, S) integer distance table
    mq = slopes[:, None, None] * q.float()[None, :, None]
    mk = slopes[:, None, None] * k.float()[None, None, :]
    bias = torch.where(allowed, mk - mq, mq - mk)
    return bias, allowed
'''}, "[optimiser] m*k - m*q in float32 cancels at large offsets: breaks 'bias is within the rounding of float32 of the exact values (a relative 1e-6)' and 'Distances ... must be exact'")

# ----------------------------------------------------------------------------------------------- Part 3
sub("asst-p3-log2", False, {"reach": '''
# weight ratio 2^(-m d) = 1/1000 with m = 2^-8 (the slopes are powers of two)
alibi_reach = math.log2(1000) / 2 ** -8
'''}, "[assistant] log base 2 instead of the softmax's natural exp: breaks 'at what distance d does the far key get 1000 times less attention weight'")

sub("math-p3-steepest", False, {"reach": '''
# smallest slope: h = 0 in m_h = 2^(-8(h+1)/H)
m = 2 ** (-8 * (0 + 1) / 8)
alibi_reach = math.log(1000) / m
'''}, "[mathematician] the first head's slope (the largest), not the smallest: breaks 'In the flattest head (the smallest slope)'")

# ----------------------------------------------------------------------------------------------- Part 4
sub("asst-p4-acos", False, {"position": '''
def position_from_encoding(row):
    d = row.numel()
    omega = 10000 ** (-(d - 2) / d)        # the slowest pair does not wrap within 0 .. 9999
    angle = torch.acos(row[-1].clamp(-1, 1)).item()
    return round(angle / omega)
'''}, "[assistant] acos of the cosine only: breaks 'get its angle in [0, 2 pi) from the sine and the cosine together: a formula that uses only one of them loses the sign or, in float32, too many digits'")

sub("opt-p4-int-truncates", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[0]
    s, c = row[d - 2].item(), row[d - 1].item()
    angle = math.atan2(s, c) % (2 * math.pi)
    return int(angle * 10000 ** ((d - 2) / d))      # one multiplication, no division
'''}, "[optimiser] int() truncates p - epsilon to p - 1: breaks 'Return p as a Python int; it must be exact for float32 rows too'")

sub("math-p4-atan2-no-wrap", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    i = d // 2 - 1                                   # the slowest pair, omega_i = 10000^(-2i/D)
    theta = math.atan2(float(row[2 * i]), float(row[2 * i + 1]))
    return round(theta / 10000 ** (-2 * i / d))
'''}, "[mathematician] atan2 in (-pi, pi] taken as the angle: breaks 'get its angle in [0, 2 pi)' for D = 16 and p above pi / omega ~ 9934")

# ----------------------------------------------------------------------------------------------- Part 5
sub("asst-p5-adjacent-pairs", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    if rotary_dim % 2 != 0 or not 2 <= rotary_dim <= Dh:
        raise ValueError("rotary_dim must be even and in [2, head_dim]")
    inv_freq = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    pos = torch.arange(T)[None, :] - (T - lengths.long())[:, None]
    pos = pos.clamp(min=0).double()
    freqs = pos[..., None] * inv_freq                     # (B, T, R/2)
    cos, sin = freqs.cos()[:, None].to(x.dtype), freqs.sin()[:, None].to(x.dtype)
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    x1, x2 = x_rot[..., 0::2], x_rot[..., 1::2]
    out = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    return torch.cat([out, x_pass], dim=-1)
'''}, "[assistant] GPT-J / lesson pairing of adjacent features: breaks 'feature i is paired with feature i + R/2 (\"rotate half\")'")

sub("math-p5-dh-in-exponent", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("rotary_dim")
    m = (torch.arange(T)[None, :] - (T - lengths.long())[:, None]).clamp(min=0).double()
    theta = base ** (-2 * torch.arange(R // 2, dtype=torch.float64) / Dh)    # theta_i = base^(-2i/d)
    ang = m[:, None, :, None] * theta
    c, s = ang.cos(), ang.sin()
    a, b = x[..., :R // 2].double(), x[..., R // 2:R].double()
    return torch.cat([(a * c - b * s).to(x.dtype), (a * s + b * c).to(x.dtype), x[..., R:]], dim=-1)
'''}, "[mathematician] the paper's theta_i = base^(-2i/d) with d the head width: breaks 'with the frequencies theta_i = base^(-2i/R) ... (R, not Dh, in the exponent)'")

sub("opt-p5-cos-one-sin-zero", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or not 2 <= R <= Dh:
        raise ValueError("rotary_dim must be even, 2 <= R <= Dh")
    half = R // 2
    m = (torch.arange(T)[None, :] - (T - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[..., None] * base ** (-2 * torch.arange(half, dtype=torch.float64) / R)
    # one fused multiply-add over the whole head: cos = 1 and sin = 0 on the features that pass through
    cos = torch.cat([ang.cos(), ang.cos(), torch.ones(B, T, Dh - R, dtype=torch.float64)], -1)[:, None]
    sin = torch.cat([ang.sin(), ang.sin(), torch.zeros(B, T, Dh - R, dtype=torch.float64)], -1)[:, None]
    rot = torch.cat([-x[..., half:R], x[..., :half], torch.zeros_like(x[..., R:])], dim=-1)
    return (x * cos.to(x.dtype) + rot * sin.to(x.dtype))
'''}, "[optimiser] cos = 1, sin = 0 on the pass-through features: breaks 'they are only moved, so every value, inf, -inf and -0.0 included, arrives as it was (no arithmetic on them: x * 1 + 0 turns -0.0 into 0.0)'")

sub("gen-p5-lengths-own-dtype", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("bad rotary_dim")
    pad = T - lengths                                  # padding rows at the start of each sequence
    m = (torch.arange(T)[None, :] - pad[:, None]).clamp(min=0).double()
    ang = m[..., None] * base ** (-2 * torch.arange(R // 2, dtype=torch.float64) / R)
    c, s = ang.cos()[:, None], ang.sin()[:, None]
    a, b = x[..., :R // 2].double(), x[..., R // 2:R].double()
    return torch.cat([(a * c - b * s).to(x.dtype), (a * s + b * c).to(x.dtype), x[..., R:]], dim=-1)
'''}, "[generaliser] T - lengths in the lengths' dtype: breaks 'arithmetic in that dtype, and a Python int combined with such a tensor, wrap around: in uint8, 300 - 17 is 27'")

sub("asst-p5-float32-inv-freq", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= Dh:
        raise ValueError("invalid rotary_dim")
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
    position_ids = (torch.arange(T)[None, :] - (T - lengths.long())[:, None]).clamp(min=0)
    freqs = position_ids.float()[..., None] * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None].to(x.dtype), emb.sin()[:, None].to(x.dtype)
    def rotate_half(t):
        t1, t2 = t[..., : t.shape[-1] // 2], t[..., t.shape[-1] // 2:]
        return torch.cat((-t2, t1), dim=-1)
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    return torch.cat([x_rot * cos + rotate_half(x_rot) * sin, x_pass], dim=-1)
'''}, "[assistant] Hugging Face's float32 inv_freq and positions: breaks 'Compute the positions, the angles, their sines and cosines in float64'")

sub("opt-p5-no-rotation-returns-x", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("bad rotary_dim")
    if T == 0 or B == 0 or int(lengths.max()) <= 1:     # every row at position 0: nothing to rotate
        return x
    m = (torch.arange(T)[None, :] - (T - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[..., None] * base ** (-2 * torch.arange(R // 2, dtype=torch.float64) / R)
    c, s = ang.cos()[:, None], ang.sin()[:, None]
    a, b = x[..., :R // 2].double(), x[..., R // 2:R].double()
    return torch.cat([(a * c - b * s).to(x.dtype), (a * s + b * c).to(x.dtype), x[..., R:]], dim=-1)
'''}, "[optimiser] early exit returns x: breaks 'Return a new tensor in the dtype of x, never x itself or a view of it, even when no row is rotated'")

# ----------------------------------------------------------------------------------------------- Part 6
sub("asst-p6-relative", False, {"mc": '''
answer_cache = "a"
'''}, "[assistant] 'RoPE is relative' taken literally: breaks '(b) the score of a new query with a cached key now sees the offset shifted by P'")

# ----------------------------------------------------------------------------------------------- Part 7
sub("gen-p7-lesson-blocks", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        w = base ** (-2 * i / d_model)
        c, s = math.cos(offset * w), math.sin(offset * w)
        j = 2 * i                                     # one 2x2 rotation per pair of columns
        m[j, j], m[j, j + 1], m[j + 1, j], m[j + 1, j + 1] = c, -s, s, c
    return m
'''}, "[generaliser] the lesson's 2x2 blocks on the diagonal, right for the visible D = 2: breaks 'for the sines-first table of Part 1 ... Work out where the entries of each rotation go'")

sub("math-p7-omega-i-over-d", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    i = torch.arange(h, dtype=torch.float64)
    omega = base ** (-i / d_model)               # omega_i = b^(-i/D), column i of the sines
    c, s = torch.cos(offset * omega), torch.sin(offset * omega)
    top = torch.cat([torch.diag(c), torch.diag(-s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "[mathematician] the exponent i/D instead of 2i/D: breaks 'with omega_i = b^(-2i/D)' (Part 1, which Part 7's table is)")

sub("opt-p7-matrix-power", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    w = base ** (-2 * torch.arange(h, dtype=torch.float64) / d_model)
    c, s = w.cos(), w.sin()
    one = torch.cat([torch.cat([torch.diag(c), torch.diag(-s)], 1), torch.cat([torch.diag(s), torch.diag(c)], 1)], 0)
    return torch.linalg.matrix_power(one, offset)     # M_k = M_1^k, k shifts of one step
'''}, "[optimiser] M_1 ** k by repeated squaring accumulates rounding: breaks 'the hidden tests check the matrix itself to 1e-12'")

# ----------------------------------------------------------------------------------------------- Part 8
sub("asst-p8-allclose-rtol", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.shape[1]
    out = layer(x)
    equivariant, worst = True, 0.0
    for _ in range(trials):
        perm = torch.randperm(T, generator=generator)
        a, b = layer(x[:, perm]).double(), out[:, perm].double()
        worst = max(worst, (a - b).abs().max().item())
        equivariant = equivariant and torch.allclose(a, b, atol=tol)
    return bool(equivariant), float(worst)
'''}, "[assistant] torch.allclose with its default rtol: breaks 'tol is absolute, not relative to the size of the outputs'")

sub("math-p8-strict", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    y = layer(x).double()
    gaps = []
    for _ in range(trials):
        p = torch.randperm(t, generator=generator)
        gaps.append((layer(x[:, p]).double() - y[:, p]).abs().max().item())
    worst = max(gaps)
    return worst < tol, worst          # strictly below the tolerance
'''}, "[mathematician] strict inequality: breaks 'True exactly when worst <= tol (a gap equal to tol passes ...)'")

sub("opt-p8-stop-at-first-failure", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    y = layer(x).double()
    worst = 0.0
    for _ in range(trials):
        p = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, p]).double() - y[:, p]).abs().max().item())
        if worst > tol:          # already not equivariant: no need to run the other trials
            break
    return worst <= tol, worst
'''}, "[optimiser] stops at the first failing trial: breaks 'Draw trials permutations one after another' and 'worst is the largest gap over all trials'")

sub("gen-p8-diff-in-output-dtype", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    y = layer(x)
    worst = 0.0
    for _ in range(trials):
        p = torch.randperm(t, generator=generator)
        worst = max(worst, float((layer(x[:, p]) - y[:, p]).abs().max()))
    return worst <= tol, worst
'''}, "[generaliser] the difference in the output's dtype (float32 in the examples): breaks 'the outputs may be float16 or bfloat16 ... so take the differences in float64'")

sub("math-p8-frobenius", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    y = layer(x).double()
    worst = 0.0
    for _ in range(trials):
        p = torch.randperm(t, generator=generator)
        worst = max(worst, torch.linalg.vector_norm(layer(x[:, p]).double() - y[:, p]).item())   # ||f(Px) - P f(x)||
    return worst <= tol, worst
'''}, "[mathematician] the norm of the difference: breaks 'the gap is the largest absolute difference ... over all their entries'")

# =============================================================================================== correct
sub("ok-math-p1-frequencies-direct", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    # omega_i = b'^(-2i/D) with b'^((D-2)/D) = b^((D-2)/D) * scale, i.e. omega_i = b^(-2i/D) scale^(-2i/(D-2))
    log_omega = -2 * i / d_model * math.log(base) - 2 * i / (d_model - 2) * math.log(scale)
    angles = positions.to(torch.float64)[..., None] * torch.exp(log_omega)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1).to(dtype=dtype)
'''}, "[mathematician] frequencies from their logarithm, the scale applied to each exponent")

sub("ok-opt-p1-lru-frequencies", True, {"table_halves": '''
import functools

@functools.lru_cache(maxsize=None)
def halves_frequencies(d_model, base, scale):
    b = base * scale ** (d_model / (d_model - 2))
    return tuple(b ** (-2 * i / d_model) for i in range(d_model // 2))

def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    freqs = torch.tensor(halves_frequencies(d_model, float(base), float(scale)), dtype=torch.float64)
    angles = positions.to(torch.float64).unsqueeze(-1) * freqs
    return torch.cat((angles.sin(), angles.cos()), -1).to(dtype)
'''}, "[optimiser] frequencies cached as a tuple of floats (the table is rebuilt per call)")

sub("ok-asst-p2-where", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.pow(2.0, -8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    query_pos = torch.arange(offset, offset + t, dtype=torch.long).unsqueeze(1)
    key_pos = torch.arange(0, offset + t, dtype=torch.long).unsqueeze(0)
    rel = key_pos - query_pos
    distance = torch.where(rel > 0, rel, -rel)
    bias = (slopes.view(-1, 1, 1) * distance.to(torch.float64)).neg().to(torch.float32)
    allowed = torch.where(rel <= 0, True, False)
    return bias, allowed
'''}, "[assistant] torch.where for |.| and the mask, slopes in float64")

sub("ok-opt-p2-tril-bool", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    s = offset + t
    slopes = torch.exp2(-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    dist = (torch.arange(offset, s)[:, None] - torch.arange(s)[None, :]).abs().float()   # exact below 2^24
    bias = dist.expand(num_heads, t, s) * -slopes[:, None, None]     # new memory
    allowed = torch.ones(t, s, dtype=torch.bool).tril_(offset)
    return bias, allowed
'''}, "[optimiser] float32 slopes by exp2, expand-ed distances times slopes, tril_ on a fresh bool tensor")

sub("ok-math-p3-float", True, {"reach": '''
# exp(-m d) = 1/1000 with m = 2^(-8 * 8 / 8) = 1/256
alibi_reach = float(math.log(1000) * 2 ** 8)
'''}, "[mathematician] ln(1000) / m as a float")

sub("ok-asst-p4-atan2-mod", True, {"position": '''
def position_from_encoding(row):
    d_model = row.shape[-1]
    row = row.to(torch.float64)
    sin_val, cos_val = row[-2], row[-1]
    angle = torch.remainder(torch.atan2(sin_val, cos_val), 2 * math.pi)
    omega = 10000.0 ** (-(d_model - 2) / d_model)
    return int(torch.round(angle / omega).item())
'''}, "[assistant] torch.atan2 and torch.remainder in float64, .item()")

sub("ok-gen-p4-float32", True, {"position": '''
def position_from_encoding(row):
    d = row.shape[0]
    angle = torch.atan2(row[d - 2], row[d - 1])          # in the row's dtype
    if angle < 0:
        angle = angle + 2 * math.pi
    return round(float(angle) * 10000.0 ** ((d - 2) / d))
'''}, "[generaliser] atan2 in the row's own dtype (float32 rounding is far below half a position)")

sub("ok-math-p5-explicit", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 != 0 or R < 2 or R > Dh:
        raise ValueError(f"rotary_dim={R} must be even and in 2..{Dh}")
    n = lengths.to(torch.int64)
    m = torch.arange(T, dtype=torch.int64).unsqueeze(0) - (T - n).unsqueeze(1)
    m = torch.where(m < 0, torch.zeros_like(m), m).to(torch.float64)
    i = torch.arange(R // 2, dtype=torch.float64)
    theta = torch.exp(-2 * i / R * math.log(base))
    angle = m[:, None, :, None] * theta                      # (B, 1, T, R/2)
    cos, sin = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)
    first, second = x[..., : R // 2], x[..., R // 2 : R]
    return torch.cat([first * cos - second * sin, first * sin + second * cos, x[..., R:]], dim=-1)
'''}, "[mathematician] the two rotation formulas, angles in float64, rotation in the dtype of x")

sub("ok-p5-via-part1-table", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("rotary_dim must be even and 2 <= rotary_dim <= Dh")
    half = R // 2
    m = (torch.arange(T) - (T - lengths.long())[:, None]).clamp(min=0)        # (B, T) integer positions
    if R >= 4:   # Part 1's table with D = R is exactly [sin(m theta_i) | cos(m theta_i)]
        table = sinusoidal_table_halves(m, R, base, dtype=torch.float64)
        sin, cos = table[..., :half], table[..., half:]
    else:        # R = 2: one frequency, theta_0 = 1
        sin, cos = m.double().sin()[..., None], m.double().cos()[..., None]
    sin, cos = sin[:, None], cos[:, None]
    a, b = x[..., :half], x[..., half:R]
    return torch.cat([(a * cos - b * sin).to(x.dtype), (a * sin + b * cos).to(x.dtype), x[..., R:]], dim=-1)
'''}, "[earlier part] Part 1's sines-first table with D = R gives the sines and cosines; rotation in float64 when x is narrower")

sub("ok-p6-b", True, {"mc": '''
answer_cache = "b"
'''}, "the right letter")

sub("ok-p7-via-part1-table", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    if d_model >= 4:     # Part 1's row of position `offset` holds sin(k w_i) and cos(k w_i)
        row = sinusoidal_table_halves(torch.tensor(offset), d_model, base, dtype=torch.float64)
        s, c = row[:h], row[h:]
    else:
        s = torch.tensor([math.sin(offset)], dtype=torch.float64)
        c = torch.tensor([math.cos(offset)], dtype=torch.float64)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    m[:h, :h] = torch.diag(c)
    m[h:, :h] = torch.diag(s)
    m[:h, h:] = torch.diag(-s)
    m[h:, h:] = torch.diag(c)
    return m
'''}, "[earlier part] the rotations' sines and cosines read from Part 1's table at position offset")

sub("ok-opt-p7-block-matrix", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    w = torch.pow(base, -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * w), torch.sin(offset * w)
    return torch.cat([torch.cat([torch.diag(c), -torch.diag(s)], dim=1),
                      torch.cat([torch.diag(s), torch.diag(c)], dim=1)], dim=0)
'''}, "[optimiser] four diagonal blocks concatenated")

sub("ok-asst-p8-no-grad", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    seq_len = x.shape[1]
    with torch.no_grad():
        reference = layer(x).to(torch.float64)
        worst = 0.0
        for _ in range(trials):
            perm = torch.randperm(seq_len, generator=generator)
            permuted_out = layer(x[:, perm]).to(torch.float64)
            gap = torch.max(torch.abs(permuted_out - reference[:, perm])).item()
            worst = max(worst, gap)
    return bool(worst <= tol), float(worst)
'''}, "[assistant] no_grad (no gradient asked), float64 differences, torch.max(torch.abs(...))")

sub("ok-math-p8-perms-first", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.shape[1]
    perms = [torch.randperm(T, generator=generator) for _ in range(trials)]
    gaps = []
    for perm in perms:
        diff = layer(x[:, perm]).double() - layer(x).double()[:, perm]
        gaps.append(diff.abs().amax().item())
    worst = max(gaps)
    return worst <= tol, worst
'''}, "[mathematician] every permutation drawn first, layer(x) per trial, amax")

# =============================================================================================== hostile
sub("hostile-p6-str-eq", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_cache = Letter("a")
'''}, "[hostile] str subclass equal to everything")

sub("hostile-p3-float-eq", False, {"reach": '''
class Reach(float):
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    def __eq__(self, other):
        return True
    def __lt__(self, other):
        return True
    def __le__(self, other):
        return True
    __hash__ = float.__hash__
alibi_reach = Reach(1.0)
'''}, "[hostile] float subclass whose differences are 0 and comparisons true")
