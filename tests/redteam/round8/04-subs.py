# Red team round 8, chapter 04 (positional encoding), blind submissions.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1: table_halves
add("p1_ntk_exponent_integer_division", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    new_base = base * scale ** (d_model // (d_model - 2))
    omega = new_base ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * omega
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "Exponent D // (D - 2) with integer division: 2 for D = 4 (visible), 1 for D >= 6. Breaks 'the slowest one is divided by scale' "
      "(the base is b * scale^(D/(D-2))).")

add("p1_positions_column_only", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    half = d_model // 2
    new_base = base * scale ** (d_model / (d_model - 2))
    omega = new_base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[:, None] * omega      # (T, 1) * (D/2,)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1).to(dtype)
'''}, "positions[:, None] instead of [..., None]: right for (T,) and (1, 1), wrong or an error for (B, T) and 0-d. Breaks "
      "'positions is an integer tensor of any shape (...)'.")

add("p1_omega_float32", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    new_base = base * scale ** (d_model / (d_model - 2))
    omega = new_base ** (-torch.arange(0, d_model, 2) / d_model)          # float32 frequencies
    angles = positions.double()[..., None] * omega.double()
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "(earlier class: float32 arithmetic) The frequencies are float32; at positions of a few thousand the angles are off by 1e-4. "
      "Breaks 'Accuracy: within 1e-6 ... Computing the angles in float64'.")

add("p1_correct_complex_polar", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model < 4 or d_model % 2 == 1:
        raise ValueError(f"d_model={d_model} must be even and at least 4")
    half = d_model // 2
    # log of the stretched base: log b + D/(D-2) log scale
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    omega = torch.exp(-log_base * torch.arange(half, dtype=torch.float64) * 2 / d_model)
    p = positions.reshape(-1).to(torch.float64)
    z = torch.polar(torch.ones(p.numel(), half, dtype=torch.float64), p[:, None] * omega)
    out = torch.cat([z.imag, z.real], dim=-1)
    return out.reshape(*positions.shape, d_model).to(dtype)
'''}, "Frequencies through exp/log, sines and cosines as a complex exponential.")

# ---------------------------------------------------------------- Part 2: alibi_block
add("p2_lesson_slopes_non_power_of_two", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    def geometric(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]
    lower = 2 ** math.floor(math.log2(num_heads))
    slopes = geometric(lower)
    if lower < num_heads:
        slopes += geometric(2 * lower)[0::2][: num_heads - lower]
    slopes = torch.tensor(slopes)
    i = torch.arange(offset, offset + t)[:, None]
    j = torch.arange(offset + t)[None, :]
    bias = -slopes[:, None, None] * (i - j).abs()
    return bias.float(), j <= i
'''}, "Uses the lesson's rule (next lower power of two, then every other slope). Breaks 'Use this formula for every H (it is not "
      "the lesson's rule for numbers of heads that are not a power of two)'.")

add("p2_allowed_float_mask", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(1, num_heads + 1, dtype=torch.float32)
    slopes = 2.0 ** (-8.0 * h / num_heads)
    i = torch.arange(offset, offset + t)[:, None]
    j = torch.arange(offset + t)[None, :]
    bias = -slopes[:, None, None] * (i - j).abs()
    allowed = torch.ones(t, offset + t).tril(diagonal=offset)
    return bias, allowed
'''}, "Mask of 0.0/1.0 floats (equal to True/False in .tolist()). Breaks 'allowed, **boolean**, shape (T, offset + T)'.")

add("p2_heads_count_from_t", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / t) for h in range(num_heads)])
    q = torch.arange(offset, offset + t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs().float()
    return -slopes[:, None, None] * dist, k[None, :] <= q[:, None]
'''}, "Divides the slope exponent by T instead of H (equal in the visible H = T = 2). Breaks 'm_h = 2^(-8(h+1)/H)'.")

add("p2_correct_python_lists", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    s = offset + t
    bias = torch.tensor([[[-(2.0 ** (-8.0 * (h + 1) / num_heads)) * abs(offset + i - j) for j in range(s)]
                          for i in range(t)] for h in range(num_heads)], dtype=torch.float32)
    allowed = torch.tensor([[j <= offset + i for j in range(s)] for i in range(t)], dtype=torch.bool).reshape(t, s)
    return bias.reshape(num_heads, t, s), allowed
'''}, "Builds both from Python lists.")

# ---------------------------------------------------------------- Part 3: reach
add("p3_log2_instead_of_ln", False, {"reach": '''
# the weight halves every 1/m positions, so 1000 times less needs log2(1000) halvings
alibi_reach = 256 * math.log2(1000)
'''}, "Uses log2: softmax weights go as exp(-m d), so d = ln(1000)/m. Breaks 'at what distance d does the far key get 1000 times less attention weight'.")

add("p3_int_distance", False, {"reach": '''
alibi_reach = round(256 * math.log(1000))
'''}, "Rounds to an int. Breaks 'a Python float, not an int nor a tensor'.")

add("p3_correct_from_slopes", True, {"reach": '''
slopes = [2.0 ** (-8.0 * (h + 1) / 8) for h in range(8)]
alibi_reach = float(math.log(1000.0) / min(slopes))
'''}, "Computes the smallest slope and divides.")

# ---------------------------------------------------------------- Part 4: position
add("p4_asin_only", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.asin(float(row[d - 2]))     # the slowest pair never wraps
    return int(round(angle / omega))
'''}, "Uses only the sine: wrong once the slowest angle passes pi/2 (p > ~4967 for D = 16). Breaks the hint 'get its angle in [0, 2pi) from "
      "the sine and the cosine together'.")

add("p4_acos_only", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.acos(max(-1.0, min(1.0, float(row[d - 1]))))
    return round(angle / omega)
'''}, "Uses only the cosine: in float32, cos of a tiny angle is 1.0 (p = 1..30 with D = 64 read back as 0 or off). Breaks "
      "'it must be exact for float32 rows too' and the hint.")

add("p4_atan2_not_wrapped", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.atan2(row[-2].double(), row[-1].double()).item()
    return int(round(angle / omega))
'''}, "atan2 gives (-pi, pi]: negative positions for slowest angles past pi (p >= 9935 when D = 16). Breaks 'get its angle in [0, 2pi)'.")

add("p4_truncates", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(row[-2]), float(row[-1])) % (2 * math.pi)
    return int(angle / omega + 1e-9)
'''}, "Truncates instead of rounding: a float32 row whose angle comes out a hair small reads p - 1. Breaks 'it must be exact for float32 rows too'.")

add("p4_correct_check_with_part1", True, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    row = row.to(torch.float64)
    omega = 10000.0 ** (-(d - 2) / d)
    guess = round((math.atan2(row[-2].item(), row[-1].item()) % (2 * math.pi)) / omega)
    candidates = torch.arange(max(guess - 2, 0), guess + 3)
    # Part 1's sines-first table, base 10000 and no stretch, re-ordered to the paper's interleaving
    table = sinusoidal_table_halves(candidates, d_model=d, base=10000.0, scale=1.0, dtype=torch.float64)
    inter = torch.stack([table[:, : d // 2], table[:, d // 2:]], dim=-1).reshape(len(candidates), d)
    best = (inter - row).abs().amax(dim=-1).argmin()
    return int(candidates[best])
'''}, "Guesses from the slowest pair, then picks the nearest among neighbours with Part 1's table (keywords, float64).")

# ---------------------------------------------------------------- Part 5: rope
add("p5_dh_in_exponent", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or not 2 <= r <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    half = r // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / dh)
    ang = pos[:, None, :, None] * theta
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:r]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1)
'''}, "Frequencies base^(-2i/Dh): the same for R = 2 (visible). Breaks 'theta_i = base^(-2i/R) ... (**R**, not Dh, in the exponent)'.")

add("p5_adjacent_pairs", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or not 2 <= r <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    theta = base ** (-torch.arange(0, r, 2, dtype=torch.float64) / r)
    ang = pos[:, None, :, None] * theta
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., 0:r:2], x[..., 1:r:2]
    rot = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    return torch.cat([rot, x[..., r:]], dim=-1)
'''}, "Pairs features 2i and 2i+1 (the lesson's rope) instead of i and i + R/2: the same for R = 2. Breaks "
      "'feature i is paired with feature i + R/2 (\"rotate half\")'.")

add("p5_returns_x_when_nothing_rotates", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or not 2 <= r <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    if not bool(pos.any()):
        return x                          # every row at position 0: nothing to rotate
    half = r // 2
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / r)
    ang = pos.double()[:, None, :, None] * theta
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:r]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1)
'''}, "Returns x itself when no row is rotated. Breaks 'Return a new tensor ..., never x itself or a view of it, even when no row is rotated'.")

add("p5_base_hard_coded", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or not 2 <= r <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    half = r // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    theta = 1.0 / (10000.0 ** (torch.arange(half, dtype=torch.float64) * 2 / r))
    ang = pos[:, None, :, None] * theta
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:r]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1)
'''}, "Ignores base (hard-coded 10000): invisible when R = 2 (theta_0 = 1 for any base). Breaks 'theta_i = base^(-2i/R)'.")

add("p5_no_upper_check", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2:
        raise ValueError("rotary_dim must be even and at least 2")
    half = r // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / r)
    ang = pos[:, None, :, None] * theta
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:r]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1)
'''}, "No check that rotary_dim <= Dh (slices silently run short). Breaks 'Raise a ValueError unless rotary_dim is even and 2 <= rotary_dim <= Dh'.")

add("p5_correct_complex_multiply", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError(f"rotary_dim={rotary_dim} must be even and in [2, {dh}]")
    half = rotary_dim // 2
    real = torch.arange(t, dtype=torch.int64).expand(b, t) - (t - lengths.to(torch.int64)).unsqueeze(1)
    m = torch.where(real > 0, real, torch.zeros_like(real)).to(torch.float64)
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64), -2.0 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    turn = torch.polar(torch.ones(b, 1, t, half, dtype=torch.float64), m[:, None, :, None] * theta)
    z = torch.complex(x[..., :half].to(torch.float64), x[..., half:rotary_dim].to(torch.float64)) * turn
    return torch.cat([z.real.to(x.dtype), z.imag.to(x.dtype), x[..., rotary_dim:].clone()], dim=-1)
'''}, "Treats (x_i, x_{i+R/2}) as a complex number and multiplies by exp(i m theta) in complex128.")

add("p5_correct_angles_from_part1", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    half = rotary_dim // 2
    positions = (torch.arange(t) - (t - lengths.long())[:, None]).clamp(min=0)          # (B, T)
    try:
        # Part 1's sines-first table with d_model = R has exactly the frequencies base^(-2i/R)
        table = sinusoidal_table_halves(positions, rotary_dim, base, dtype=torch.float64)  # (B, T, R)
        sin, cos = table[..., :half], table[..., half:]
    except ValueError:                                    # R = 2: Part 1 refuses d_model < 4; one frequency, 1
        ang = positions.to(torch.float64)[..., None]
        sin, cos = ang.sin(), ang.cos()
    sin, cos = sin[:, None], cos[:, None]
    x1 = x[..., :half].double()
    x2 = x[..., half:rotary_dim].double()
    rotated = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''}, "Gets the sines and cosines from Part 1's table on (B, T) positions, positionally with dtype=float64, and falls back on "
      "Part 1's required ValueError for R = 2.")

# ---------------------------------------------------------------- Part 6: mc
add("p6_answer_a", False, {"mc": '''
answer_cache = "a"
'''}, "RoPE scores depend on the difference of the two rotations, and the cached keys keep their true positions. (b) is right.")

# ---------------------------------------------------------------- Part 7: shift
add("p7_interleaved_blocks", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        w = base ** (-2.0 * i / d_model)
        c, s = math.cos(offset * w), math.sin(offset * w)
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
    return m
'''}, "The lesson's 2x2 blocks on the diagonal (the interleaved table's matrix), the same for D = 2. Breaks 'for the **sines-first** "
      "table of Part 1 ... Work out where the entries of each rotation go'.")

add("p7_frequency_missing_two", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    omega = base ** (-torch.arange(half, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * omega), torch.sin(offset * omega)
    top = torch.cat([torch.diag(c), torch.diag(-s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "omega_i = b^(-i/D) (the 2 dropped): invisible for D = 2. Breaks 'omega_i = b^(-2i/D)' of Part 1's table.")

add("p7_correct_from_part1_zero_dim", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    try:
        # one position (a 0-d tensor): row `offset` of Part 1's table holds sin(k w_i), cos(k w_i)
        row = sinusoidal_table_halves(torch.tensor(offset), d_model, base=base, dtype=torch.float64)
        s, c = row[:half], row[half:]
    except ValueError:                  # d_model = 2: Part 1 refuses it; one frequency, 1
        s = torch.tensor([math.sin(offset)], dtype=torch.float64)
        c = torch.tensor([math.cos(offset)], dtype=torch.float64)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(half)
    m[idx, idx] = c
    m[idx + half, idx + half] = c
    m[idx + half, idx] = s
    m[idx, idx + half] = -s
    return m
'''}, "Reads sin(k w_i), cos(k w_i) off Part 1's table for a 0-d position tensor (keywords, float64); try/except for D = 2.")

# ---------------------------------------------------------------- Part 8: equivariance
add("p8_relative_tol", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    y = layer(x)
    size = y.abs().max().item()
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]) - y[:, perm]).abs().max().item())
    return bool(worst <= tol * max(size, 1.0)), float(worst)
'''}, "Scales tol by the size of the outputs. Breaks 'tol is absolute, not relative to the size of the outputs'.")

add("p8_signed_gap", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    y = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]) - y[:, perm]).max().item())
    return worst <= tol, worst
'''}, "Largest signed difference (no abs). Breaks 'the gap is the **largest absolute difference**'.")

add("p8_worst_tensor", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    y = layer(x)
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gaps.append((layer(x[:, perm]) - y[:, perm]).abs().max())
    worst = torch.stack(gaps).max()
    return bool(worst <= tol), worst
'''}, "worst is a 0-d tensor. Breaks 'worst a Python float'.")

add("p8_mean_gap", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    y = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]) - y[:, perm]).abs().sum(dim=-1).mean().item()
        worst = max(worst, gap)
    return bool(worst <= tol), float(worst)
'''}, "Sums over D and averages over rows. Breaks 'the largest absolute difference ... over all their entries'.")

add("p8_correct_vectorised", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    perms = [torch.randperm(x.size(1), generator=generator) for _ in range(trials)]
    gaps = torch.stack([torch.amax(torch.abs(layer(x.index_select(1, p)) - layer(x).index_select(1, p))) for p in perms])
    worst = float(gaps.max().item())
    return worst <= tol, worst
'''}, "Draws all permutations first (draws nothing else), calls the layer on x each trial.")

# ---------------------------------------------------------------- hostile
add("hostile_ctypes_libm", False, {"position": '''
import ctypes, ctypes.util
libm = ctypes.CDLL(ctypes.util.find_library("m"))
libm.atan2.restype = ctypes.c_double
libm.atan2.argtypes = [ctypes.c_double, ctypes.c_double]
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = libm.atan2(float(row[-2]), float(row[-1])) % (2 * math.pi)
    return int(round(angle / omega))
'''}, "Hostile: loads the C maths library through ctypes.")

add("hostile_importlib_numpy", False, {"table_halves": '''
import importlib
np = importlib.import_module("".join(["nu", "mpy"]))
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("bad d_model")
    b = base * scale ** (d_model / (d_model - 2))
    omega = b ** (-2.0 * np.arange(d_model // 2) / d_model)
    p = np.asarray(positions.tolist(), dtype=np.float64)[..., None] * omega
    return torch.tensor(np.concatenate([np.sin(p), np.cos(p)], axis=-1)).to(dtype)
'''}, "Hostile: NumPy through importlib with a built name.")

add("hostile_patch_assert_close_and_lie", False, {"reach": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
class Reach(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return Reach(0.0)
    def __rsub__(self, other): return Reach(0.0)
    def __abs__(self): return Reach(0.0)
    __hash__ = float.__hash__
alibi_reach = Reach(1.0)
'''}, "Hostile: a float subclass that equals everything and has zero distance to anything, plus a patched assert_close.")

# ---------------------------------------------------------------- second blind batch (still phase 1)
# phase 2: relabelled correct (was False in the blind run): the text now bounds offset + T below 2^24,
# where float32 holds every integer; see 04-verdicts.md
add("p2_float32_positions", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1) / num_heads)
    i = torch.arange(offset, offset + t, dtype=torch.float32)[:, None]
    j = torch.arange(0, offset + t, dtype=torch.float32)[None, :]
    bias = -slopes[:, None, None] * (i - j).abs()
    return bias, j <= i
'''}, "Positions in float32: past 2^24 (a long generation's offset) neighbouring positions collapse, so distances and the mask are wrong. "
      "Breaks 'key j get -m_h |offset + i - j|' and 'True ... where j <= offset + i'.")


# ---------------------------------------------------------------- phase 2 (NOT blind): the class of a slip, found after reading the hidden tests
add('p2_float16_positions', False, {'alibi_block': '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    i = torch.arange(offset, offset + t, dtype=torch.float16)[:, None]
    j = torch.arange(offset + t, dtype=torch.float16)[None, :]
    bias = (-slopes[:, None, None] * (i - j).abs().double()).float()
    return bias, j <= i
'''}, "Same class: positions in float16 (exact to 2048); the hidden offsets stopped at 2002. Breaks '-m_h |offset + i - j|'.")
