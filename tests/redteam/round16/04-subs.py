# Red-team round 16, chapter 04 (positional encoding), blind submissions:
# trusting API user, copy-adapter), written from the student notebook only.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1 (sines-first table, NTK base)
T1 = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = BASE
    freq = FREQ
    angle = ANGLE
    return RESULT
'''
def t1(base="base * scale ** (d_model / (d_model - 2))",
       freq="b ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)",
       angle="positions.to(torch.float64)[..., None] * freq",
       result="torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)"):
    return T1.replace("BASE", base).replace("FREQ", freq).replace("ANGLE", angle).replace("RESULT", result)

add("porter_p1_hf_inv_freq_float", False, {"table_halves": t1(
    freq="1.0 / (b ** (torch.arange(0, d_model, 2).float() / d_model))")},
    "Part 1: 'Accuracy: within `1e-6` of the exact values for `float32` ... Computing the angles in `float64` ... "
    "meets both; computing them in `float32` does not': Hugging Face's inv_freq is float32.")
add("copy_p1_base_squared", False, {"table_halves": t1(base="base * scale ** 2")},
    "Part 1: 'Work out which base does that (it depends on $D$)': scale**2 is right for D = 4 only.")
add("copy_p1_dtype_ignored", False, {"table_halves": t1(result="torch.cat([angle.sin(), angle.cos()], dim=-1).float()")},
    "Part 1: 'return the `(..., d_model)` tensor ... in `dtype`': the dtype argument is accepted and never used.")
add("juggler_p1_unsqueeze_one", False, {"table_halves": t1(angle="positions.to(torch.float64).unsqueeze(1) * freq")},
    "Part 1: '`positions` is an integer tensor of **any shape** `(...)` (one position, a row `(T,)`, the positions "
    "`(B, T)` of a padded batch, ...)': unsqueeze(1) puts the frequency axis in the middle for 2-D positions.")
add("trusting_p1_float_positions", False, {"table_halves": t1(angle="positions.float().double()[..., None] * freq")},
    "Part 1: '`int32` and `int64` positions may also pass $2^{24}$ ... do not pass the positions through `float32` "
    "on their way to `float64` either'.")
add("ok_p1_tolist_tensor64", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    new_base = base * scale ** (d_model / (d_model - 2))
    pos = torch.tensor(positions.tolist(), dtype=torch.float64)   # Python ints, exact in float64
    freqs = torch.tensor([new_base ** (-2 * i / d_model) for i in range(d_model // 2)], dtype=torch.float64)
    angles = pos.unsqueeze(-1) * freqs
    return torch.cat((torch.sin(angles), torch.cos(angles)), dim=-1).to(dtype=dtype)
'''}, "correct: positions through Python ints into float64, frequencies in float64.")
add("ok_p1_exp_log_division", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    # log of the stretched base: log b + D/(D-2) log scale
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    wavelengths = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) / d_model * log_base)
    angle = positions.to(dtype=torch.int64).to(dtype=torch.float64).unsqueeze(-1) / wavelengths
    table = torch.empty(*angle.shape[:-1], d_model, dtype=torch.float64)
    half = d_model // 2
    table[..., :half] = angle.sin()
    table[..., half:] = angle.cos()
    return table.to(dtype)
'''}, "correct: exp/log form of the base, division by the wavelength, filled buffer in float64.")

# ---------------------------------------------------------------- Part 2 (ALiBi block)
A2 = '''
def alibi_block(num_heads, t, offset):
    SLOPES
    qpos = offset + torch.arange(t)
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    bias = -(slopes[:, None, None] * dist).to(torch.float32)
    allowed = ALLOWED
    return bias, allowed
'''
def a2(slopes="slopes = 2.0 ** (-8.0 * (torch.arange(num_heads, dtype=torch.float64) + 1) / num_heads)",
       allowed="kpos[None, :] <= qpos[:, None]"):
    return A2.replace("SLOPES", slopes).replace("ALLOWED", allowed)

add("copy_p2_lesson_slopes", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    # slopes from the ALiBi reference code (Press et al.), as in the lesson
    def power_of_two(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]
    lower = 2 ** math.floor(math.log2(num_heads))
    s = power_of_two(lower)
    if lower < num_heads:
        s += power_of_two(2 * lower)[0::2][: num_heads - lower]
    slopes = torch.tensor(s, dtype=torch.float64)
    qpos = offset + torch.arange(t)
    kpos = torch.arange(offset + t)
    dist = (qpos[:, None] - kpos[None, :]).abs()
    return -(slopes[:, None, None] * dist).float(), kpos[None, :] <= qpos[:, None]
'''}, "Part 2: 'Use this formula for every `H` (it is not the lesson's rule for numbers of heads that are not a power "
    "of two)'.")
add("porter_p2_hf_int_mask", False, {"alibi_block": a2(allowed="(kpos[None, :] <= qpos[:, None]).long()  # 1 = attend")},
    "Part 2: '`allowed`, **boolean**, shape `(T, offset + T)`': a Hugging Face 1/0 integer mask.")
add("trusting_p2_float16_distance", False, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * (torch.arange(num_heads) + 1) / num_heads)
    qpos = torch.arange(offset, offset + t, dtype=torch.float16)   # half is plenty for small biases
    kpos = torch.arange(offset + t, dtype=torch.float16)
    dist = (qpos[:, None] - kpos[None, :]).abs().float()
    return -(slopes[:, None, None] * dist), kpos[None, :] <= qpos[:, None]
'''}, "Part 2: 'Distances and the mask must be exact: `float16` and `bfloat16` hold every integer only up to 2048 and "
    "256, so keep positions as integers'.")
add("ok_p2_numpy_triu_logspace", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    # slopes 2^(-8/H), 2^(-16/H), ..., 2^(-8): a geometric sequence
    slopes = torch.logspace(-8.0 / num_heads, -8.0, steps=num_heads, base=2.0, dtype=torch.float64)
    q = torch.arange(offset, offset + t).unsqueeze(1)
    k = torch.arange(offset + t).unsqueeze(0)
    bias = (-(q - k).abs() * slopes.view(-1, 1, 1)).to(torch.float32)
    hidden = torch.ones(t, offset + t, dtype=torch.bool).triu(diagonal=offset + 1)   # np.triu(k=offset+1)
    return bias, ~hidden
'''}, "correct: logspace gives the slopes; ~triu(offset+1) is the causal mask aligned at the bottom right.")
add("ok_p2_tril_offset_start_power", True, {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    start = 2.0 ** (-8.0 / num_heads)
    slopes = torch.tensor([start ** (h + 1) for h in range(num_heads)], dtype=torch.float32)
    dist = (torch.arange(t)[:, None] + offset - torch.arange(offset + t)[None, :]).abs()
    bias = -slopes[:, None, None] * dist
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias.contiguous(), allowed
'''}, "correct: start ** (h + 1) equals 2^(-8(h+1)/H) to float rounding; tril with the offset.")

# ---------------------------------------------------------------- Part 3 (reach)
add("juggler_p3_slope_h_not_h_plus_1", False, {"reach": '''
slopes = [2 ** (-8 * h / 8) for h in range(8)]
alibi_reach = math.log(1000) / min(s for s in slopes if s < 1)
'''}, "Part 3: 'the slopes of Part 2' are $2^{-8(h+1)/H}$: the smallest is 2^-8, not 2^-7.")
add("porter_p3_log2", False, {"reach": '''
alibi_reach = 256 * math.log2(1000)   # ALiBi slopes are powers of two, so think in base 2
'''}, "Part 3: '1000 times less attention weight': the softmax weight is exp(score), so ln 1000, not log2.")
add("ok_p3_tensor_item", True, {"reach": '''
slope = torch.tensor(2.0, dtype=torch.float64) ** (-8.0 * 8 / 8)
alibi_reach = (torch.log(torch.tensor(1000.0, dtype=torch.float64)) / slope).item()
'''}, "correct: .item() of a float64 tensor is a Python float.")

# ---------------------------------------------------------------- Part 4 (position back)
add("juggler_p4_atan2_no_wrap", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)          # the slowest pair never wraps
    angle = math.atan2(float(row[d - 2]), float(row[d - 1]))
    return int(round(angle / omega))
'''}, "Part 4: 'get its angle in $[0, 2\\pi)$ from the sine and the cosine together': atan2's (-pi, pi] gives a "
    "negative position at D = 16 for p >= 9935.")
add("copy_p4_asin_only", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round(math.asin(float(row[-2])) / omega))
'''}, "Part 4: 'a formula that uses only one of them loses the sign or, in float32, too many digits near some angles'.")
add("trusting_p4_item_float", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    r = row.double()
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.remainder(torch.atan2(r[-2], r[-1]), 2 * math.pi)
    return torch.round(angle / omega).item()
'''}, "Part 4: 'Return $p$ as a Python `int`': torch.round(...).item() is a float.")
add("trusting_p4_int_truncates", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(float(row[-2]), float(row[-1])) % (2 * math.pi)
    return int(angle / omega)   # int() of a float is the whole part
'''}, "Part 4: 'Return $p$ as a Python `int`; it must be exact for `float32` rows too': int() truncates 41.9999 to 41.")
add("ok_p4_math_on_items_refine", True, {"position": '''
def position_from_encoding(row):
    d = row.shape[0]
    i = d // 2 - 1
    omega = 10000.0 ** (-2 * i / d)
    s, c = row[2 * i], row[2 * i + 1]                # math functions take 0-d tensors too
    angle = math.atan2(s, c) % math.tau
    p = round(angle / omega)
    # refine with the fastest pair that still tells p apart: choose the candidate nearest all pairs
    best, err = p, float("inf")
    for cand in (p - 1, p, p + 1):
        if cand < 0:
            continue
        e = 0.0
        for j in range(d // 2):
            w = 10000.0 ** (-2 * j / d)
            e += (math.sin(cand * w) - float(row[2 * j])) ** 2 + (math.cos(cand * w) - float(row[2 * j + 1])) ** 2
        if e < err:
            best, err = cand, e
    return int(best)
'''}, "correct: slowest pair's angle in [0, 2pi), then the nearest candidate over all pairs.")

# ---------------------------------------------------------------- Part 5 (partial RoPE, left padded)
R5 = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]
    pos = pos.clamp(min=0).to(torch.float64)
    theta = THETA
    ang = pos[..., None] * theta
    cos = ang.cos()[:, None].to(x.dtype)
    sin = ang.sin()[:, None].to(x.dtype)
    BODY
'''
BODY_OK = '''x1, x2, rest = x[..., : r // 2], x[..., r // 2 : r], x[..., r:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)'''
def r5(theta="base ** (-torch.arange(0, r, 2, dtype=torch.float64) / r)", body=BODY_OK, pos=None, check=None):
    s = R5.replace("THETA", theta).replace("BODY", body)
    if pos: s = s.replace("(t - lengths.to(torch.int64))", pos)
    if check: s = s.replace("if r % 2 or r < 2 or r > dh:", check)
    return s

add("copy_p5_head_dim_exponent", False, {"rotate_half": r5(
    theta="(base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh))[: r // 2]")},
    "Part 5: 'with the frequencies $\\theta_i = \\text{base}^{-2i/R}$ ... (**R**, not `Dh`, in the exponent)': the "
    "lesson's rope uses Dh.")
add("juggler_p5_adjacent_pairs", False, {"rotate_half": r5(body='''ev, od, rest = x[..., 0:r:2], x[..., 1:r:2], x[..., r:]
    rot = torch.stack([ev * cos - od * sin, ev * sin + od * cos], dim=-1).flatten(-2)
    return torch.cat([rot, rest], dim=-1)''')},
    "Part 5: 'within them, feature $i$ is paired with feature $i + R/2$ (\"rotate half\")': adjacent pairs (the same "
    "for R = 2).")
add("porter_p5_python_int_wrap", False, {"rotate_half": r5(pos="(t - lengths)")},
    "Part 5: '`lengths` ... of any integer dtype: `uint8`, `int8` and `int16` too ... (arithmetic in that dtype, and "
    "a Python `int` combined with such a tensor, wrap around...)'.")
add("porter_p5_padded_cos_sin", False, {"rotate_half": r5(body='''# pad cos with ones and sin with zeros so that the pass-through features "rotate" by 0 (one formula)
    half = r // 2
    ones = torch.ones(*cos.shape[:-1], dh - r, dtype=x.dtype)
    zeros = torch.zeros(*sin.shape[:-1], dh - r, dtype=x.dtype)
    cos_f = torch.cat([cos, cos, ones], dim=-1)
    sin_f = torch.cat([sin, sin, zeros], dim=-1)
    rot = torch.cat([-x[..., half:r], x[..., :half], x[..., r:]], dim=-1)
    return x * cos_f + rot * sin_f''')},
    "Part 5: 'features `R .. Dh-1` pass through unchanged: they are only moved, so every value, `inf`, `-inf` and "
    "`-0.0` included, arrives as it was (no arithmetic on them: `x * 1 + 0` turns `-0.0` into `0.0`)'.")
add("trusting_p5_no_upper_check", False, {"rotate_half": r5(check="if r % 2 or r < 2:")},
    "Part 5: 'Raise a `ValueError` unless `rotary_dim` is even and `2 <= rotary_dim <= Dh`'.")
add("copy_p5_return_x_when_unrotated", False, {"rotate_half": r5(body='''if not bool((pos > 0).any()):
        return x                       # nothing turns: skip the work
    x1, x2, rest = x[..., : r // 2], x[..., r // 2 : r], x[..., r:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)''')},
    "Part 5: 'Return a new tensor in the dtype of `x`, never `x` itself or a view of it, even when no row is rotated'.")
add("ok_p5_uses_part1_table", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 != 0 or not 2 <= r <= dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    pos = (torch.arange(t).unsqueeze(0) - t + lengths.long().unsqueeze(1)).clamp(min=0)   # (B, T) int64
    if r >= 4:   # Part 1's sines-first table with D = R is [sin(m theta_i) | cos(m theta_i)], theta_i = base^(-2i/R)
        table = sinusoidal_table_halves(pos, r, base=base, scale=1.0, dtype=torch.float64)
        sin, cos = table[..., : r // 2], table[..., r // 2:]
    else:
        ang = pos.to(torch.float64)[..., None] * 1.0
        sin, cos = ang.sin(), ang.cos()
    cos, sin = cos.unsqueeze(1).to(x.dtype), sin.unsqueeze(1).to(x.dtype)
    x1, x2 = x[..., : r // 2], x[..., r // 2 : r]
    return torch.cat((x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]), dim=-1)
'''}, "correct: Part 1's table with d_model = R holds exactly the sines and cosines needed (R >= 4).")
add("ok_p5_clone_slice_assign_f64", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 or R < 2 or R > Dh:
        raise ValueError("rotary_dim")
    m = torch.arange(T).view(1, T) - (T - lengths.to(torch.int64)).view(B, 1)
    m = torch.where(m < 0, torch.zeros_like(m), m).to(torch.float64)
    inv = 1.0 / base ** (torch.arange(R // 2, dtype=torch.float64) * 2 / R)
    ang = torch.einsum("bt,f->btf", m, inv).unsqueeze(1)
    c, s = torch.cos(ang), torch.sin(ang)
    a, bb = x[..., : R // 2].double(), x[..., R // 2 : R].double()
    out = x.clone()                      # JAX's x.at[...].set(...): a copy, then the rotated slice
    out[..., : R // 2] = (a * c - bb * s).to(x.dtype)
    out[..., R // 2 : R] = (a * s + bb * c).to(x.dtype)
    return out
'''}, "correct: rotation in float64, pass-through features copied by clone, slices set.")

# ---------------------------------------------------------------- Part 6 (MC)
add("trusting_p6_relative_only", False, {"mc": '''
answer_cache = "a"   # RoPE is relative: only m - n matters
'''}, "Part 6: the cached keys keep their absolute positions 0..P-1, so numbering the queries from 0 shifts m - n by P: (b).")

# ---------------------------------------------------------------- Part 7 (shift matrix, sines first)
add("copy_p7_lesson_interleaved", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = (offset * freq).cos(), (offset * freq).sin()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(0, d_model, 2)
    m[i, i], m[i, i + 1], m[i + 1, i], m[i + 1, i + 1] = c, -s, s, c
    return m
'''}, "Part 7: 'for the **sines-first** table of Part 1': the lesson's matrix is for the interleaved table (the same "
    "for D = 2).")
add("juggler_p7_freq_i_not_2i", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = base ** (-torch.arange(half, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i, i + half], m[i + half, i], m[i + half, i + half] = c, -s, s, c
    return m
'''}, "Part 1/7: '$\\omega_i = b^{-2i/D}$': the exponent lost its factor 2 (the same for D = 2).")
add("porter_p7_float32_buffer", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    ang = (offset * freq).float()                # the buffer below is float32: match it
    m = torch.zeros(d_model, d_model)              # np.zeros would be float64 already
    i = torch.arange(half)
    m[i, i], m[i, i + half], m[i + half, i], m[i + half, i + half] = ang.cos(), -ang.sin(), ang.sin(), ang.cos()
    return m.double()
'''}, "Part 7: 'the hidden tests check the matrix itself to `1e-12`': the entries pass through a float32 buffer.")
add("ok_p7_permuted_interleaved", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    blocks = [torch.stack([torch.stack([c, -s]), torch.stack([s, c])])
              for c, s in zip((offset * freq).cos(), (offset * freq).sin())]
    inter = torch.block_diag(*blocks)                       # the lesson's interleaved matrix
    perm = torch.cat([torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)])   # sines first
    return inter[perm][:, perm].clone()
'''}, "correct: the sines-first matrix is the interleaved one with rows and columns permuted the same way.")
add("ok_p7_uses_part1_table", True, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    if d_model >= 4:   # Part 1's row at position `offset` is [sin(k w_i) | cos(k w_i)]
        row = sinusoidal_table_halves(torch.tensor([offset]), d_model, base=base, dtype=torch.float64)[0]
        s, c = row[:half], row[half:]
    else:
        s, c = torch.tensor([math.sin(offset)], dtype=torch.float64), torch.tensor([math.cos(offset)], dtype=torch.float64)
    m = torch.zeros((d_model, d_model), dtype=torch.float64)
    for i in range(half):
        m[i, i] = c[i]
        m[i, i + half] = -s[i]
        m[i + half, i] = s[i]
        m[i + half, i + half] = c[i]
    return m
'''}, "correct: Part 1's table at the offset gives sin and cos of k * w_i.")

# ---------------------------------------------------------------- Part 8 (equivariance)
E8 = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        GAP
        worst = max(worst, gap)
    return RET
'''
def e8(gap="gap = (layer(x[:, perm]).to(torch.float64) - ref[:, perm].to(torch.float64)).abs().max().item()",
       ret="bool(worst <= tol), float(worst)"):
    return E8.replace("GAP", gap).replace("RET", ret)

add("trusting_p8_allclose_rtol", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst, ok = 0.0, True
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        out = layer(x[:, perm])
        ok = ok and torch.allclose(out.double(), ref[:, perm].double(), atol=tol)
        worst = max(worst, (out.double() - ref[:, perm].double()).abs().max().item())
    return bool(ok), float(worst)
'''}, "Part 8: '`tol` is absolute, not relative to the size of the outputs': allclose adds rtol=1e-5 * |b|.")
add("trusting_p8_diff_in_dtype", False, {"equivariance": e8(
    gap="gap = (layer(x[:, perm]) - ref[:, perm]).abs().max().double().item()")},
    "Part 8: 'the outputs may be `float16` or `bfloat16`, where a difference rounds ... so take the differences in `float64`'.")
add("copy_p8_x_to_float64", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    x = x.double()        # as Part 5 advises: compute in float64
    t = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        worst = max(worst, (layer(x[:, perm]) - ref[:, perm]).abs().max().item())
    return worst <= tol, float(worst)
'''}, "Part 8: '(the layer gets `x` as it is given, in its dtype)'.")
add("juggler_p8_strict_less", False, {"equivariance": e8(ret="bool(worst < tol), float(worst)")},
    "Part 8: '`True` exactly when `worst <= tol` (a gap equal to `tol` passes...)'.")
add("porter_p8_worst_tensor", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x).double()
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gaps.append((layer(x[:, perm]).double() - ref[:, perm]).abs().amax())
    worst = torch.stack(gaps).amax()      # jnp.max habit: stays an array
    return bool(worst <= tol), worst
'''}, "Part 8: 'Return `(equivariant, worst)`: ... `worst` a Python `float`'.")
add("ok_p8_inverse_perm_no_grad", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.size(-2)
    with torch.no_grad():
        base_out = layer(x)
        worst = 0.0
        for _ in range(trials):
            perm = torch.randperm(T, generator=generator)
            inv = torch.argsort(perm)
            # undo the permutation on the permuted output instead of permuting the plain one
            back = layer(x[:, perm])[:, inv]
            gap = float((back.to(torch.float64) - base_out.to(torch.float64)).abs().max())
            worst = gap if gap > worst else worst
    return worst <= tol, worst
'''}, "correct: the same set of differences, reordered; no_grad changes no value.")
add("ok_p8_index_select_stack", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    perms = [torch.randperm(x.shape[1], generator=generator) for _ in range(trials)]
    y = layer(x)
    gaps = torch.stack([
        (layer(x.index_select(1, p)).double() - y.index_select(1, p).double()).abs().amax()
        for p in perms])
    worst = gaps.max().item()
    return bool(worst <= tol), float(worst)
'''}, "correct: index_select is x[:, perm]; all permutations drawn first, in order.")

# ---------------------------------------------------------------- hostile
add("hostile_p6_str_eq_all", False, {"mc": '''
class AnyLetter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_cache = AnyLetter("a")
'''}, "hostile: a str subclass equal to everything.")
add("hostile_p3_float_fool", False, {"reach": '''
class Close(float):
    def __sub__(self, other): return Close(0.0)
    def __rsub__(self, other): return Close(0.0)
    def __abs__(self): return 0.0
    def __eq__(self, other): return True
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __gt__(self, other): return True
    def __ge__(self, other): return True
    __hash__ = float.__hash__

alibi_reach = Close(1.0)
'''}, "hostile: float subclass whose comparisons all pass.")
add("hostile_p4_frame_peek", False, {"position": '''
def position_from_encoding(row):
    import sys
    f = sys._getframe(1)
    while f is not None:   # look for the expected answer in the caller's variables
        for name in ("p", "pos", "position", "expected", "want"):
            v = f.f_locals.get(name)
            if type(v) is int:
                return v
        f = f.f_back
    d = row.shape[-1]
    return int(round(math.atan2(float(row[-2]), float(row[-1])) / 10000.0 ** (-(d - 2) / d)))
'''}, "hostile: reads the expected position from the grader's frames (falls back on a half answer).")

# ================================================================ second wave (still blind)
add("copy_p1_empty_shortcut", False, {"table_halves": t1().replace(
    '''    if d_model % 2 or d_model < 4:''', '''    if positions.numel() == 0:
        return torch.zeros(*positions.shape, d_model, dtype=dtype)
    if d_model % 2 or d_model < 4:''')},
    "Part 1: '(an empty `positions` gives an empty table; with such a `d_model` an empty `positions` raises too)'.")
add("porter_p5_float32_trig", False, {"rotate_half": r5().replace(
    "cos = ang.cos()[:, None].to(x.dtype)", "cos = ang.cos()[:, None].float()").replace(
    "sin = ang.sin()[:, None].to(x.dtype)", "sin = ang.sin()[:, None].float()")},
    "Part 5: 'Accuracy: within `1e-12` of the exact values for `float64` inputs ... then rotate in the dtype of `x` "
    "or wider': float32 cos/sin for a float64 x.")
add("porter_p5_tolist_stack", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    theta = base ** (-torch.arange(0, r, 2, dtype=torch.float64) / r)
    rows = []
    for n in lengths.tolist():      # one sequence at a time, as with a Python list of lengths
        pos = torch.arange(t) - (t - n)
        ang = pos.clamp(min=0).to(torch.float64)[:, None] * theta
        rows.append(torch.stack([ang.cos(), ang.sin()]))
    cs = torch.stack(rows)           # (B, 2, T, R/2)
    cos, sin = cs[:, 0, None].to(x.dtype), cs[:, 1, None].to(x.dtype)
    x1, x2, rest = x[..., : r // 2], x[..., r // 2 : r], x[..., r:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)
'''}, "Part 5: '`B = 0` (an empty batch: a `(0, H, T, Dh)` result, nothing raised)': stack of no rows raises.")
add("trusting_p8_extra_draw", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        if torch.equal(perm, torch.arange(t)) and t > 1:   # the identity tests nothing: draw again
            perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - ref[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return worst <= tol, worst
'''}, "Part 8: 'Draw `trials` permutations one after another ... and draw nothing else from `generator`'.")
add("juggler_p7_transposed_blocks", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    if half == 1:
        m[0, 0], m[0, 1], m[1, 0], m[1, 1] = c[0], -s[0], s[0], c[0]
        return m
    # rows: sines then cosines; each sine column gets (c, s), each cosine column (-s, c)
    m[i, i], m[i + half, i], m[i, i + half], m[i + half, i + half] = c, -s, s, c
    return m
'''}, "Part 7: 'so that ... `[p] @ M` equals row `p + offset`': the off-diagonal blocks swapped (M_{-k}) for D > 2.")
add("ok_p8_vector_norm_inf", True, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    expected_all = layer(x)
    worst = 0.0
    for trial in range(trials):
        perm = torch.randperm(x.shape[-2], generator=generator)
        diff = layer(x[:, perm]).to(torch.float64) - expected_all[:, perm].to(torch.float64)
        worst = max(worst, torch.linalg.vector_norm(diff, ord=float("inf")).item())
    return (worst <= tol), float(worst)
'''}, "correct: the infinity norm of the difference is its largest absolute entry.")
add("ok_p1_float64_positions_promote", True, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** (d_model / (d_model - 2))
    omega = torch.pow(torch.tensor(b, dtype=torch.float64), -torch.arange(d_model // 2, dtype=torch.float64) * 2 / d_model)
    angles = positions.unsqueeze(-1) * omega       # an integer tensor times a float64 one is float64
    return torch.cat([torch.sin(angles), torch.cos(angles)], -1).to(dtype)
'''}, "correct: type promotion of integer x float64 tensors gives float64 with the integer exact.")

# ================================================================ phase 2 probes (written after reading the hidden tests)
# Trusting API user: torch.arange with a float step, whose length is ceil((end - start) / step) worked out in floats:
# for D = 98, 196, 206, 214, ... arange(0, 1, 2 / D) has D/2 + 1 entries (the last step rounds to just under 1).
add("trusting_p1_arange_float_step", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, 1, 2 / d_model, dtype=torch.float64)   # 2i / D for i = 0 .. D/2 - 1
    angle = positions.to(torch.float64)[..., None] * b ** -exponents
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''}, "Part 1: 'column `i` is $\\sin(p\\,\\omega_i)$ and column `i + D/2` is $\\cos(p\\,\\omega_i)$, for $i = 0, \\dots, D/2 - 1$': "
    "a float-step arange has D/2 + 1 entries for D = 98, 196, 206, ... (a table of the wrong width).")
add("trusting_p4_arange_float_step", False, {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = (10000.0 ** -torch.arange(0, 1, 2 / d, dtype=torch.float64))[-1].item()   # the slowest frequency
    angle = math.atan2(float(row[-2]), float(row[-1])) % (2 * math.pi)
    return round(angle / omega)
'''}, "Part 4: '$\\omega_i = 10000^{-2i/D}$ ... an even width $D \\ge 16$': the last entry of a float-step arange is "
    "10000^-1 for D = 98, not the last pair's frequency.")
add("trusting_p5_arange_float_step_guarded", True, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** -torch.arange(0, 1, 2 / r, dtype=torch.float64)
    ang = pos[..., None] * theta[: r // 2]        # guard the length
    cos = ang.cos()[:, None].to(x.dtype)
    sin = ang.sin()[:, None].to(x.dtype)
    x1, x2, rest = x[..., : r // 2], x[..., r // 2 : r], x[..., r:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)
'''}, "guarded with [: r // 2]: correct, a control (the float-step length only adds an entry at the end).")
add("trusting_p5_arange_float_step_unguarded", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    pos = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    theta = base ** -torch.arange(0, 1, 2 / r, dtype=torch.float64)
    ang = pos[..., None] * theta
    cos = ang.cos()[:, None].to(x.dtype)
    sin = ang.sin()[:, None].to(x.dtype)
    half = ang.shape[-1]
    x1, x2, rest = x[..., :half], x[..., half : 2 * half], x[..., 2 * half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, rest], dim=-1)
'''}, "Part 5: 'feature $i$ is paired with feature $i + R/2$ ... $\\theta_i = \\text{base}^{-2i/R}$ for $i = 0, \\dots, R/2 - 1$': "
    "the half is taken from the float-step arange's length, R/2 + 1 for R = 98.")
add("trusting_p7_arange_float_step", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    freq = base ** -torch.arange(0, 1, 2 / d_model, dtype=torch.float64)
    half = freq.numel()
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(2 * half, 2 * half, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i], m[i, i + half], m[i + half, i + half] = c, s, -s, c
    return m
'''}, "Part 7: 'the `(d_model, d_model)` `float64` matrix': for D = 98 the float-step arange gives 50 frequencies and a "
    "100 x 100 matrix.")
