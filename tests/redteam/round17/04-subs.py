# Red-team round 17, chapter 04 (positional encoding), blind submissions written as four kinds of student:
# the defensive programmer, the high-level library user, the production engineer, the test-driven student.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


TABLE_BODY = '''
    b = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    omega = b ** (-2 * i / d_model)
    ang = positions.to(torch.float64)[..., None] * omega
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
'''

# ================================================================= WRONG: defensive programmer
add("def_p1_empty_default_dtype", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    if positions.numel() == 0:  # nothing to encode
        return torch.zeros(*positions.shape, d_model)
''' + TABLE_BODY}, "Part 1: 'an empty positions gives an empty table' 'in dtype': the early return is float32 whatever "
                   "dtype asks for.")

add("def_p1_refuses_small_int_dtypes", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    if positions.dtype not in (torch.int32, torch.int64):
        raise ValueError("positions must be int32 or int64")  # small dtypes overflow
''' + TABLE_BODY}, "Part 1: 'any integer dtype (uint8, int8 and int16 too ...)' and 'Raise a ValueError ... in no other "
                   "case': a stricter dtype guard.")

add("def_p2_bias_clamped", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    qpos = torch.arange(offset, offset + t)
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).clamp(min=-1e4).to(torch.float32)  # keep scores finite
    allowed = kpos[None, :] <= qpos[:, None]
    return bias, allowed
'''}, "Part 2: 'key j get -m_h |offset + i - j|' within a relative 1e-6: the clamp at -1e4 changes every entry "
      "past distance 1e4/m_h (offsets in the millions).")

add("def_p3_int_distance", False, {"reach": '''
alibi_reach = int(round(math.log(1000) / 2 ** -8))
'''}, "Part 3: 'a Python float, not an int nor a tensor'.")

add("def_p4_truncate", False, {"position": '''
def position_from_encoding(row):
    row = row.double()
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    ang = math.atan2(row[-2].item(), row[-1].item()) % (2 * math.pi)
    return int(ang / omega + 1e-9)  # int() of a position
'''}, "Part 4: 'Return p ... it must be exact for float32 rows too': int() truncates, so an angle a hair below "
      "the exact one (float32 rows) gives p - 1.")

add("def_p5_check_after_empty_return", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    if x.numel() == 0:
        return x.clone()  # empty batch or no rows: nothing to rotate
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., : r // 2].double(), x[..., r // 2 : r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "Part 5: 'the rule on rotary_dim still holds there: an empty batch or T = 0 with rotary_dim = 0 raises'.")

add("def_p5_float32_everything", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    xf = x.contiguous().float()  # one dtype to reason about
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None].float(), ang.sin()[:, None].float()
    x1, x2 = xf[..., : r // 2], xf[..., r // 2 : r]
    out = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, xf[..., r:]], dim=-1)
    return out.to(x.dtype)
'''}, "Part 5: 'within 1e-12 of the exact values for float64 inputs' / 'rotate in the dtype of x or wider': "
      "the float32 rotation loses float64's digits.")

add("def_p7_identity_float32", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    if offset == 0:
        return torch.eye(d_model)  # no shift: identity
    h = d_model // 2
    i = torch.arange(h, dtype=torch.float64)
    ang = offset * base ** (-2 * i / d_model)
    c, s = ang.cos(), ang.sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    idx = torch.arange(h)
    m[idx, idx] = c
    m[idx + h, idx + h] = c
    m[idx + h, idx] = s
    m[idx, idx + h] = -s
    return m
'''}, "Part 7: 'the (d_model, d_model) float64 matrix M_k ... (offset 0 included)': the identity shortcut is "
      "float32.")

add("def_p8_rounded_worst", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    base = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - base[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    worst = round(worst, 10)  # drop float noise
    return bool(worst <= tol), float(worst)
'''}, "Part 8: 'a gap equal to tol passes, one above it fails however little' and the gap 'exactly': rounding "
      "to 10 decimals passes tol + 1e-12 and changes worst.")

add("def_p8_float32_differences", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    base = layer(x).float()
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).float() - base[:, perm]).abs().max().item()
        worst = max(worst, gap)
    return bool(worst <= tol), float(worst)
'''}, "Part 8: 'take the differences in float64': float32 rounds differences of float64 outputs (and of "
      "float16 values far apart in size).")

# ================================================================= WRONG: high-level library user
add("lib_p2_cdist", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float32) / num_heads)
    qpos = torch.arange(offset, offset + t, dtype=torch.float32)[:, None]
    kpos = torch.arange(offset + t, dtype=torch.float32)[:, None]
    dist = torch.cdist(qpos, kpos)  # |i - j| for 1-D points
    bias = -slopes[:, None, None] * dist
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias, allowed
'''}, "Part 2: 'Distances and the mask must be exact': torch.cdist's matrix-product shortcut (over 25 points) "
      "computes sqrt(a^2 + b^2 - 2ab), far off at large positions.")

add("lib_p8_allclose_default_rtol", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    base = layer(x)
    worst = 0.0
    equivariant = True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        out = layer(x[:, perm])
        ref = base[:, perm]
        worst = max(worst, (out.double() - ref.double()).abs().max().item())
        equivariant = equivariant and torch.allclose(out.double(), ref.double(), atol=tol)
    return bool(equivariant), float(worst)
'''}, "Part 8: 'True exactly when worst <= tol ... tol is absolute, not relative to the size of the outputs': "
      "allclose's default rtol=1e-5 adds a relative tolerance.")

add("lib_p5_view_as_complex_pairs", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    rot = torch.polar(torch.ones_like(pos[..., None] * theta), pos[..., None] * theta)[:, None]
    pairs = torch.view_as_complex(x[..., :r].double().reshape(b, h, t, r // 2, 2).contiguous())
    turned = torch.view_as_real(pairs * rot).reshape(b, h, t, r).to(x.dtype)
    return torch.cat([turned, x[..., r:]], dim=-1)
'''}, "Part 5: 'feature i is paired with feature i + R/2 (\"rotate half\")': view_as_complex pairs adjacent "
      "features (the same when R = 2, as in the visible case).")

add("lib_p4_atan2_no_wrap", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    ang = torch.atan2(row[-2].double(), row[-1].double())
    return int(torch.round(ang / omega))
'''}, "Part 4: 'get its angle in [0, 2 pi)': atan2 returns (-pi, pi], so for D = 16 positions past ~9935 "
      "(angle > pi) come back negative.")

add("lib_p7_block_diag", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    i = torch.arange(d_model // 2, dtype=torch.float64)
    ang = offset * base ** (-2 * i / d_model)
    blocks = [torch.stack([torch.stack([a.cos(), -a.sin()]), torch.stack([a.sin(), a.cos()])]) for a in ang]
    return torch.block_diag(*blocks)
'''}, "Part 7: 'for the sines-first table of Part 1': block_diag puts each rotation on neighbouring rows/columns "
      "(the interleaved table's matrix); the same for d_model = 2.")

# ================================================================= WRONG: production engineer
add("prod_p5_trig_cache_by_shape", False, {"rotate_half": '''
TRIG = {}


def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    key = (t, r)
    if key not in TRIG:  # cos/sin of positions 0..T-1 computed once per shape
        theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
        ang = torch.arange(t, dtype=torch.float64)[:, None] * theta
        TRIG[key] = (ang.cos(), ang.sin())
    cos_t, sin_t = TRIG[key]
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    cos, sin = cos_t[pos][:, None], sin_t[pos][:, None]
    x1, x2 = x[..., : r // 2].double(), x[..., r // 2 : r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "Part 5 / intro: 'A function may not keep anything from one call to the next (a table built at the first call "
      "...)': the cache key leaves out base, so a second call with another base reuses the first base's angles.")

add("prod_p7_empty_unfilled", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    i = torch.arange(h, dtype=torch.float64)
    ang = offset * base ** (-2 * i / d_model)
    c, s = ang.cos(), ang.sin()
    m = torch.empty(d_model, d_model, dtype=torch.float64)
    m[:h, :h] = torch.diag(c)
    m[h:, h:] = torch.diag(c)
    idx = torch.arange(h)
    m[idx + h, idx] = s  # the off-diagonal blocks only need their diagonals
    m[idx, idx + h] = -s
    return m
'''}, "Part 7: the matrix itself to 1e-12: torch.empty leaves garbage in the off-diagonal entries of the two "
      "off-diagonal blocks (they must be 0).")

add("prod_p8_one_batched_call", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    b, t, d = x.shape
    perms = [torch.randperm(t, generator=generator) for _ in range(trials)]
    # one big batch instead of `trials` small calls
    stacked = torch.cat([x] + [x[:, p] for p in perms], dim=0)
    out = layer(stacked)
    base = out[:b]
    worst = 0.0
    for n, p in enumerate(perms):
        got = out[(n + 1) * b:(n + 2) * b]
        worst = max(worst, (got.double() - base[:, p].double()).abs().max().item())
    return bool(worst <= tol), float(worst)
'''}, "Part 8: 'the gap is the largest absolute difference between layer(x[:, perm]) and layer(x)[:, perm]': "
      "the layer is called on a batch of trials + 1 copies, so a layer that mixes the batch (or checks B) differs.")

add("prod_p2_inference_mode", False, {"alibi_block": '''
@torch.inference_mode()
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    qpos = torch.arange(offset, offset + t)
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    allowed = kpos[None, :] <= qpos[:, None]
    return bias, allowed
'''}, "Part 2: 'The caller may change bias and allowed in place': inference tensors cannot be changed in place "
      "outside inference mode (nor be used by autograd).")

add("prod_p1_half_angles_float32", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else torch.float64  # halves need no float64
    b = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    omega = (b ** (-2 * i / d_model)).to(work)
    ang = positions.to(torch.float64).to(work)[..., None] * omega
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'nor work out the angles of a float16 or bfloat16 table in float32: there too it is within the "
      "rounding of its dtype' (positions like 1e8 in float32 lose the angle).")

# ================================================================= WRONG: test-driven student
add("tdd_p1_scale_squared", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** 2  # scale 3 on base 100 gives the slowest frequency 1/30
    i = torch.arange(d_model // 2, dtype=torch.float64)
    omega = b ** (-2 * i / d_model)
    ang = positions.to(torch.float64)[..., None] * omega
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'the slowest one is divided by scale ... (it depends on D)': base * scale**2 is right only for D = 4.")

add("tdd_p5_dh_in_exponent", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / dh)
    ang = pos[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., : r // 2].double(), x[..., r // 2 : r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "Part 5: 'theta_i = base^(-2i/R) ... (R, not Dh, in the exponent)' (theta_0 = 1 either way, the visible case).")

add("tdd_p6_relative", False, {"mc": '''
answer_cache = "a"
'''}, "Part 6: the offset is shifted by P (answer b).")

add("tdd_p8_strict_less", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    base = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]).double() - base[:, perm].double()).abs().max().item())
    return worst < tol, float(worst)
'''}, "Part 8: 'True exactly when worst <= tol (a gap equal to tol passes)'.")

add("tdd_p2_lesson_slopes", False, {"alibi_block": '''
def alibi_slopes(n):
    def power_of_two(k):
        start = 2 ** (-(2 ** -(math.log2(k) - 3)))
        return [start * start ** i for i in range(k)]
    if math.log2(n).is_integer():
        return power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_two(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def alibi_block(num_heads, t, offset):
    slopes = torch.tensor(alibi_slopes(num_heads), dtype=torch.float64)
    qpos = torch.arange(offset, offset + t)
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    allowed = kpos[None, :] <= qpos[:, None]
    return bias, allowed
'''}, "Part 2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a "
      "power of two)'.")

# ================================================================= CORRECT
add("ok_prod_p1_empty_filled_outer", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model={d_model} must be even and at least 4")
    half = d_model // 2
    stretched = base * scale ** (d_model / (d_model - 2))
    omega = stretched ** (-2.0 * torch.arange(half, dtype=torch.float64) / d_model)
    ang = torch.outer(positions.reshape(-1).to(torch.float64), omega)
    out = torch.empty(ang.shape[0], d_model, dtype=torch.float64)
    out[:, :half] = ang.sin()
    out[:, half:] = ang.cos()
    return out.reshape(*positions.shape, d_model).to(dtype=dtype)
'''}, "torch.outer on flattened float64 positions into a fresh buffer, every entry filled.")

add("ok_def_p1_long_mod_2pi", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    d_model = int(d_model)
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    assert scale >= 1, "scale must be >= 1"
    b = float(base) * float(scale) ** (d_model / (d_model - 2))
    i = torch.arange(0, d_model, 2, dtype=torch.float64)
    omega = torch.pow(torch.tensor(b, dtype=torch.float64), -i / d_model)
    ang = torch.remainder(positions.long().to(torch.float64).unsqueeze(-1) * omega, 2 * math.pi)
    return torch.cat((torch.sin(ang), torch.cos(ang)), dim=-1).to(dtype).contiguous()
'''}, "Positions through int64 to float64, angles reduced mod 2 pi in float64 (error ~1e-13 at thousands).")

add("ok_p2_tril_float32_slopes", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float32)
    qpos = torch.arange(offset, offset + t, dtype=torch.int64)
    kpos = torch.arange(0, offset + t, dtype=torch.int64)
    dist = (qpos.view(-1, 1) - kpos.view(1, -1)).abs().to(torch.float32)  # exact below 2**24
    bias = -(slopes.view(-1, 1, 1) * dist)
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias.contiguous(), allowed
'''}, "float32 slopes and distances (exact below 2**24), mask from tril(diagonal=offset).")

add("ok_p3_rounded_float", True, {"reach": '''
smallest_slope = 2.0 ** (-8 * 8 / 8)
alibi_reach = float(round(math.log(1000.0) / smallest_slope, 1))
'''}, "1768.4, within 0.1 %.")

add("ok_p4_tensor_atan2_remainder", True, {"position": '''
def position_from_encoding(row):
    row = row.to(torch.float64)
    d = row.shape[-1]
    omega = torch.tensor(10000.0, dtype=torch.float64) ** (-(d - 2) / d)
    ang = torch.remainder(torch.atan2(row[-2], row[-1]), 2 * math.pi)
    p = int(torch.round(ang / omega).item())
    return max(0, min(p, 9999))
'''}, "atan2 in float64, remainder into [0, 2 pi), rounded, clamped into the allowed range.")

add("ok_p5_calls_part1_table", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("rotary_dim must be even with 2 <= rotary_dim <= Dh")
    half = r // 2
    pos = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0)
    if r >= 4:  # Part 1's table with d_model = R holds sin(m theta_i) then cos(m theta_i)
        table = sinusoidal_table_halves(pos, r, base, dtype=torch.float64)
        sin, cos = table[..., :half], table[..., half:]
    else:
        ang = pos.to(torch.float64)[..., None]
        sin, cos = ang.sin(), ang.cos()
    sin, cos = sin[:, None], cos[:, None]
    x1, x2 = x[..., :half].to(torch.float64), x[..., half:r].to(torch.float64)
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "Reuses Part 1's table (frequencies base^(-2i/R) for d_model = R, scale 1); R = 2 by hand.")

add("ok_lib_p5_polar_complex", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if not (r % 2 == 0 and 2 <= r <= dh):
        raise ValueError("bad rotary_dim")
    half = r // 2
    lengths = lengths.to(torch.int64).clamp(0, t)
    pos = (torch.arange(t)[None, :] - (t - lengths)[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / r)
    ang = pos[..., None] * theta
    rot = torch.polar(torch.ones_like(ang), ang)[:, None]
    z = torch.complex(x[..., :half].to(torch.float64), x[..., half:r].to(torch.float64)) * rot
    return torch.cat([z.real.to(x.dtype), z.imag.to(x.dtype), x[..., r:]], dim=-1)
'''}, "Rotate-half as complex multiplication in complex128.")

add("ok_def_p5_noop_shortcut_half_upcast", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    if not bool((pos > 0).any()):
        return x.clone()  # every row at position 0: nothing turns
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    theta = base ** (-2 * torch.arange(r // 2, dtype=torch.float64) / r)
    ang = pos.to(torch.float64)[..., None] * theta
    cos, sin = ang.cos().to(work)[:, None], ang.sin().to(work)[:, None]
    x1, x2 = x[..., : r // 2].to(work), x[..., r // 2 : r].to(work)
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "Angles in float64, rotation in float32 for half inputs (dtype of x or wider), x.clone() when nothing turns.")

add("ok_p6_lower", True, {"mc": '''
answer_cache = " B ".strip().lower()
'''}, "'b'.")

add("ok_p7_tutorial_div_term", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(base) / d_model))
    ang = offset * div_term
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(h):
        m[i, i] = torch.cos(ang[i])
        m[i + h, i + h] = torch.cos(ang[i])
        m[i + h, i] = torch.sin(ang[i])
        m[i, i + h] = -torch.sin(ang[i])
    return m
'''}, "The PyTorch tutorial's div_term (exp of -log(base) 2i/D): measured within ~1e-12 of exact at offset 1e4.")

add("ok_p7_calls_part1", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    h = d_model // 2
    if d_model >= 4:  # row `offset` of Part 1's table holds sin(k w_i) then cos(k w_i)
        row = sinusoidal_table_halves(torch.tensor([offset]), d_model, base, dtype=torch.float64)[0]
        s, c = row[:h], row[h:]
    else:
        s = torch.tensor([math.sin(offset)], dtype=torch.float64)
        c = torch.tensor([math.cos(offset)], dtype=torch.float64)
    top = torch.cat([torch.diag(c), -torch.diag(s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0)
'''}, "Row `offset` of Part 1's float64 table gives the sines and cosines (d_model = 2 by hand).")

add("ok_p8_inverse_perm_no_grad", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    with torch.no_grad():
        reference = layer(x).to(torch.float64)
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            inverse = torch.argsort(perm)
            moved_back = layer(x[:, perm]).to(torch.float64)[:, inverse]
            worst = max(worst, float((moved_back - reference).abs().amax()))
    return worst <= tol, float(worst)
'''}, "Moves the permuted output back instead (same pairs of entries), no gradient needed.")

add("ok_p8_keyword_loop", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    gaps = []
    for _ in range(int(trials)):
        perm = torch.randperm(x.shape[1], generator=generator)
        a = layer(x[:, perm]).to(dtype=torch.float64)
        b = layer(x)[:, perm].to(dtype=torch.float64)
        gaps.append(torch.max(torch.abs(a - b)).item())
    worst = max(gaps)
    return bool(worst <= tol), float(worst)
'''}, "layer(x) recomputed each trial; differences in float64.")

# ================================================================= HOSTILE
add("hostile_str_equal_everything", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


answer_cache = Letter("a")
'''}, "Hostile: a str subclass equal to every letter.")

add("hostile_find_reference_by_name", False, {"equivariance": '''
import gc


def find_other(name, me):
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", None) == name and obj is not me:
            if getattr(obj, "__code__", None) is not None:
                return obj
    return None


def check_equivariance(layer, x, trials, generator, tol=1e-5):
    other = find_other("check_equivariance", check_equivariance)
    if other is not None:
        return other(layer, x, trials, generator, tol)
    perm = torch.randperm(x.shape[1], generator=generator)
    for _ in range(trials - 1):
        torch.randperm(x.shape[1], generator=generator)
    worst = (layer(x[:, perm]).double() - layer(x)[:, perm].double()).abs().max().item()  # first trial only
    return bool(worst <= tol), float(worst)
'''}, "Hostile: calls any other function named check_equivariance (the hidden reference); fallback checks one trial.")

add("hostile_float_subclass", False, {"reach": '''
class Reach(float):
    def __sub__(self, other):
        return 0.0

    def __rsub__(self, other):
        return 0.0


alibi_reach = Reach(1.0)
'''}, "Hostile: a float subclass whose differences are 0.")
