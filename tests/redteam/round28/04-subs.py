# Round 28, chapter 04: five kinds of student (tie-breaker, fallback writer, constant-hardcoder, memoizer, spec-lawyer)

TABLE_BODY = '''
    half = d_model // 2
    i = torch.arange(half, dtype=torch.float64)
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    omega = torch.exp(-2 * i / d_model * log_base)
    angles = positions.to(torch.float64)[..., None] * omega
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''

ROPE_TAIL = '''
    ang = m.to(torch.float64)[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    x1, x2 = x[..., :half].to(wide), x[..., half:rotary_dim].to(wide)
    cos, sin = cos.to(wide), sin.to(wide)
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''

SUBMISSIONS = [
# ---------------------------------------------------------------- wrong: tie-breaker
{"name": "tie_p8_strict_below_tol", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return (worst < tol, float(worst))
'''}, "why": "tie-breaker: `<` at the threshold. Breaks 'True exactly when worst <= tol (a gap equal to tol passes ...)'."},
{"name": "tie_p4_truncate", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    s, c = float(row[-2]), float(row[-1])
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(s, c)
    if angle < 0:
        angle += 2 * math.pi
    return int(angle / omega + 1e-6)
'''}, "why": "tie-breaker: rounds the estimate down (int() with a tiny nudge) instead of to the nearest integer; a float32 row lands just below p. Breaks 'Return p as a Python int; it must be exact for float32 rows too'."},
{"name": "ok_tie_p2_max_of_signs", "correct": True, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = [2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)]
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    rel = q[:, None] - k[None, :]
    dist = torch.maximum(rel, -rel)
    bias = torch.stack([-(s * dist.to(torch.float64)) for s in slopes]).to(torch.float32) if num_heads else torch.zeros(0, t, offset + t)
    allowed = rel >= 0
    return (bias, allowed)
'''}, "why": "tie-breaker, correct: |d| as max(d, -d), the mask as offset + i - j >= 0, slopes as Python floats; H = 0 gives an empty (0, T, offset + T) table (UNSURE: the text does not name H = 0)."},
# ---------------------------------------------------------------- wrong: fallback writer
{"name": "fb_p1_empty_first_default_dtype", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if positions.numel() == 0:
        return torch.zeros(*positions.shape, d_model)  # nothing to encode
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
''' + TABLE_BODY}, "why": "fallback: an empty positions returns float32 zeros before the d_model check. Breaks 'in dtype' and '(with such a d_model an empty positions raises too)'."},
{"name": "fb_p2_no_queries_square", "correct": False, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    if t == 0:
        return (torch.zeros(num_heads, 0, 0), torch.zeros(0, 0, dtype=torch.bool))
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs()
    bias = (-(slopes[:, None, None] * dist.to(torch.float64))).to(torch.float32)
    return (bias, k[None, :] <= q[:, None])
'''}, "why": "fallback: T = 0 returns (H, 0, 0) and (0, 0) instead of (H, 0, offset) and (0, offset). Breaks 'bias ... shape (H, T, offset + T)', 'allowed ... shape (T, offset + T)'."},
{"name": "fb_p8_nan_to_num", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        diff = layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)
        gap = torch.nan_to_num(diff.abs()).max().item()  # guard against inf/nan blowing up the report
        worst = max(worst, gap)
    return (worst <= tol, float(worst))
'''}, "why": "fallback: nan_to_num turns an infinite gap into 1.8e308. Breaks 'so the gap is inf; keep it (it is no number to clean up with nan_to_num)'."},
{"name": "fb_p5_all_padding_returns_x", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("bad rotary_dim")
    if t == 0 or b == 0:
        return x  # nothing to rotate
    half = rotary_dim // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    m = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0)
''' + ROPE_TAIL}, "why": "fallback: an empty x (T = 0 or B = 0) comes back as x itself. Breaks 'Return a new tensor in the dtype of x, never x itself or a view of it'."},
{"name": "ok_fb_p4_try_default_zero", "correct": True, "cells": {"position": '''
def position_from_encoding(row):
    try:
        d = row.shape[-1]
        s, c = row[-2].item(), row[-1].item()
        omega = 10000.0 ** (-(d - 2) / d)
        angle = math.atan2(s, c) % (2 * math.pi)
        p = round(angle / omega)
        return p if p < 10000 else 0  # out of range: wrap to the start
    except Exception:
        return 0
'''}, "why": "fallback writer, correct: the guards never fire for rows the text allows (p < 10000 estimates within 1e-2 of p; no exception on a 1-D row of even width >= 16); UNSURE only if a hidden case passes rows outside that range."},
# ---------------------------------------------------------------- wrong: constant-hardcoder
{"name": "const_p1_scale_squared", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    new_base = base * scale ** 2  # the slowest frequency divided by scale
    half = d_model // 2
    omega = new_base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    angles = positions.to(torch.float64)[..., None] * omega
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "constant-hardcoder: the NTK exponent worked out at the example's D = 4 (scale^2) kept for every D. Breaks 'Work out which base does that (it depends on D)'."},
{"name": "const_p5_base_10000", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    theta = 10000.0 ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    m = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0)
''' + ROPE_TAIL}, "why": "constant-hardcoder: the lesson's base 10000 written in place of `base`. Breaks 'with the frequencies theta_i = base^{-2i/R}'."},
{"name": "const_p8_tol_default", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return (worst <= 1e-5, float(worst))
'''}, "why": "constant-hardcoder: 1e-5 written in place of tol. Breaks 'True exactly when worst <= tol'."},
{"name": "const_p2_int16_positions", "correct": False, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = (offset + torch.arange(t)).to(torch.int16)
    k = torch.arange(offset + t).to(torch.int16)
    dist = (q[:, None].int() - k[None, :].int()).abs()
    bias = (-(slopes[:, None, None] * dist.to(torch.float64))).to(torch.float32)
    return (bias, k[None, :] <= q[:, None])
'''}, "why": "constant-hardcoder: positions stored in int16 (enough for the lesson's 512-token contexts). Breaks 'offset may be in the millions' / 'Distances and the mask must be exact'."},
{"name": "const_p3_log2", "correct": False, "cells": {"reach": '''
alibi_reach = float(256 * math.log2(1000))
'''}, "why": "constant-hardcoder: slope 2^-8 right, but 1000 times less in powers of two. Breaks 'at what distance does the far key get 1000 times less attention weight' (softmax uses e)."},
# ---------------------------------------------------------------- wrong: memoizer
{"name": "memo_p1_omega_by_width", "correct": False, "cells": {"table_halves": '''
OMEGA = {}

def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    if (d_model, scale) not in OMEGA:
        half = d_model // 2
        log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
        OMEGA[(d_model, scale)] = torch.exp(-2 * torch.arange(half, dtype=torch.float64) / d_model * log_base)
    angles = positions.to(torch.float64)[..., None] * OMEGA[(d_model, scale)]
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "memoizer: the frequencies cached by (d_model, scale), not by base; a later call with another base uses the first call's. Breaks 'A function may not keep anything from one call to the next'."},
{"name": "memo_p5_table_by_rows", "correct": False, "cells": {"rotate_half": '''
TABLES = {}

def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not (2 <= rotary_dim <= dh):
        raise ValueError("bad rotary_dim")
    half = rotary_dim // 2
    if (t, rotary_dim) not in TABLES:
        theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
        ang = torch.arange(t, dtype=torch.float64)[:, None] * theta
        TABLES[(t, rotary_dim)] = (ang.cos(), ang.sin())
    cos_t, sin_t = TABLES[(t, rotary_dim)]
    m = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0)
    cos, sin = cos_t[m][:, None], sin_t[m][:, None]
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    x1, x2 = x[..., :half].to(wide), x[..., half:rotary_dim].to(wide)
    cos, sin = cos.to(wide), sin.to(wide)
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., rotary_dim:]], dim=-1)
'''}, "why": "memoizer: cos/sin tables cached by (T, rotary_dim), not by base. Breaks 'keep nothing from one call to the next' (another base reuses the first call's angles)."},
{"name": "memo_p7_omega_by_width", "correct": False, "cells": {"shift": '''
OMEGA = {}

def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    if d_model not in OMEGA:
        OMEGA[d_model] = [base ** (-2 * i / d_model) for i in range(half)]
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i, w in enumerate(OMEGA[d_model]):
        c, s = math.cos(offset * w), math.sin(offset * w)
        m[i, i] = m[i + half, i + half] = c
        m[i + half, i] = s
        m[i, i + half] = -s
    return m
'''}, "why": "memoizer: frequencies cached per d_model, ignoring base. Breaks 'A function may not keep anything from one call to the next'."},
{"name": "ok_memo_p2_slopes_rebuilt_when_heads_change", "correct": True, "cells": {"alibi_block": '''
SLOPES = []

def alibi_block(num_heads, t, offset):
    if len(SLOPES) != num_heads:
        SLOPES[:] = [2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)]
    slopes = torch.tensor(SLOPES, dtype=torch.float64)
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs()
    bias = (-(slopes.reshape(-1, 1, 1) * dist.to(torch.float64))).to(torch.float32)
    return (bias, k[None, :] <= q[:, None])
'''}, "why": "memoizer, correct: a module-level list of slopes rebuilt whenever H changes (they depend on H only) and copied into a new tensor each call: it changes no result (UNSURE: the text says keep nothing from one call to the next)."},
# ---------------------------------------------------------------- wrong: spec-lawyer
{"name": "law_p4_asin_only", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.asin(max(-1.0, min(1.0, float(row[-2]))))
    if float(row[-1]) < 0:
        angle = math.pi - angle
    return int(round(angle / omega))
'''}, "why": "spec-lawyer: the sine alone, with the cosine's sign only to pick the half; past pi (D = 16, p >= 9935) the angle's sine is negative and the branch gives pi - (negative), wrong. Breaks 'get its angle in [0, 2pi)'."},
{"name": "law_p8_float32_diff", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        a, b = layer(x[:, perm]), layer(x)[:, perm]
        worst = max(worst, float((a - b).abs().max()))
    return (worst <= tol, worst)
'''}, "why": "spec-lawyer: differences in the outputs' own dtype. Breaks 'take the differences in float64' (float16 rounds and overflows)."},
# ---------------------------------------------------------------- correct
{"name": "ok_tie_p1_le_two", "correct": True, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 == 1 or d_model <= 2:
        raise ValueError(f"d_model={d_model}: need an even width of at least 4")
    half = d_model // 2
    exponent = torch.arange(half, dtype=torch.float64) * 2 / d_model
    omega = base ** (-exponent) * scale ** (-exponent * d_model / (d_model - 2))
    angles = positions.double().unsqueeze(-1) * omega
    table = torch.empty(*positions.shape, d_model, dtype=torch.float64)
    table[..., :half] = angles.sin()
    table[..., half:] = angles.cos()
    return table.to(dtype)
'''}, "why": "tie-breaker, correct: `<= 2` is `< 4` for even widths; base and scale raised separately (no overflow of base * scale^(D/(D-2)))."},
{"name": "ok_memo_p1_lru_freqs", "correct": True, "cells": {"table_halves": '''
import functools

@functools.lru_cache(maxsize=64)
def halves_frequencies(d_model, base, scale):
    log_base = math.log(base) + d_model / (d_model - 2) * math.log(scale)
    return tuple(math.exp(-2 * i / d_model * log_base) for i in range(d_model // 2))


def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    omega = torch.tensor(halves_frequencies(d_model, float(base), float(scale)), dtype=torch.float64)
    angles = positions.to(torch.float64)[..., None] * omega
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1).to(dtype=dtype)
'''}, "why": "memoizer, correct: frequencies cached as Python floats keyed by every value they depend on; a new tensor per call."},
{"name": "ok_law_p2_float32_slopes_loop", "correct": True, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    k = torch.arange(offset + t, dtype=torch.int64)
    q = torch.arange(offset, offset + t, dtype=torch.int64)
    dist = (q.unsqueeze(1) - k.unsqueeze(0)).abs().to(torch.float32)
    rows = []
    for h in range(num_heads):
        slope = torch.tensor(2.0, dtype=torch.float32) ** (-8.0 * (h + 1) / num_heads)
        rows.append(-slope * dist)
    bias = torch.stack(rows) if rows else torch.zeros(0, t, offset + t)
    allowed = k.unsqueeze(0) <= q.unsqueeze(1)
    return (bias, allowed)
'''}, "why": "spec-lawyer, correct: slopes and distances in float32 ('compute the slopes in float32 or float64, as you like'; float32 holds distances below 2^24), a loop over heads."},
{"name": "ok_const_p2_int32_positions", "correct": True, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    q = torch.arange(t, dtype=torch.int32) + offset
    k = torch.arange(offset + t, dtype=torch.int32)
    rel = q[:, None] - k[None, :]
    slopes = torch.pow(2.0, -8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    bias = -(slopes.view(-1, 1, 1) * rel.abs().double())
    return (bias.float(), rel >= 0)
'''}, "why": "constant-hardcoder, correct: int32 positions (offset + T < 2^24 fits)."},
{"name": "ok_memo_p4_lru_by_values", "correct": True, "cells": {"position": '''
import functools

@functools.lru_cache(maxsize=1024)
def position_of_pair(d, s, c):
    omega = 10000.0 ** (-(d - 2) / d)
    angle = math.atan2(s, c)
    if angle < 0:
        angle += 2 * math.pi
    return int(round(angle / omega))


def position_from_encoding(row):
    return position_of_pair(int(row.shape[-1]), float(row[-2]), float(row[-1]))
'''}, "why": "memoizer, correct: cached by the values read (not by the tensor), so in-place changes are seen."},
{"name": "ok_fb_p5_nothing_to_turn_clone", "correct": True, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > dh:
        raise ValueError("rotary_dim must be even and in [2, Dh]")
    if x.numel() == 0 or bool((lengths.to(torch.int64) <= 1).all()):
        return x.clone()  # every row is at position 0: nothing turns
    half = rotary_dim // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / rotary_dim)
    m = torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]
    m = torch.where(m > 0, m, torch.zeros_like(m))
''' + ROPE_TAIL}, "why": "fallback writer, correct: when no row sits past position 0 (lengths <= 1) the result is a copy of x (angle 0: equal values, gradient identity); tie rule `m > 0` against clamp(min=0) gives the same positions."},
{"name": "ok_law_p5_float64_rotation", "correct": True, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    if rotary_dim % 2 or not 2 <= rotary_dim <= x.shape[-1]:
        raise ValueError("bad rotary_dim")
    b, h, t, dh = x.shape
    half = rotary_dim // 2
    inv = torch.pow(torch.tensor(float(base), dtype=torch.float64), -torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    start = t - lengths.long()
    m = (torch.arange(t).unsqueeze(0) - start.unsqueeze(1)).clamp_min(0).double()
    ang = torch.einsum("bt,f->btf", m, inv).unsqueeze(1)
    xr = x[..., :rotary_dim].double()
    a, c = xr[..., :half], xr[..., half:]
    rotated = torch.cat([a * ang.cos() - c * ang.sin(), a * ang.sin() + c * ang.cos()], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''}, "why": "spec-lawyer, correct: rotation in float64 for every dtype, then the cast ('rotate in the dtype of x or wider')."},
{"name": "ok_fb_p7_offset_zero_eye_loop", "correct": True, "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    if offset == 0:
        return torch.eye(d_model, dtype=torch.float64)
    half = d_model // 2
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        w = float(base) ** (-2.0 * i / d_model)
        a = float(offset) * w
        m[i, i] = math.cos(a)
        m[i + half, i + half] = math.cos(a)
        m[i + half, i] = math.sin(a)
        m[i, i + half] = -math.sin(a)
    return m
'''}, "why": "fallback writer, correct: offset 0 gives a new identity; a Python loop with math.sin/cos in float64 otherwise."},
{"name": "ok_memo_p8_layer_x_once", "correct": True, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    reference = layer(x)  # the unpermuted output, once
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        gap = (layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return (bool(worst <= tol), float(worst))
'''}, "why": "memoizer (UNSURE): layer(x) computed once per call and reused for each permutation; the text defines the gap from 'layer(x)[:, perm]' and asks the layer to be called 'for every permutation drawn', which this does (layer(x[:, perm]) each time)."},
{"name": "ok_law_p8_order_and_draw_first", "correct": True, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    perms = [torch.randperm(x.shape[1], generator=generator) for _ in range(trials)]
    gaps = []
    for perm in perms:
        plain = layer(x)[:, perm].to(torch.float64)
        permuted = layer(x[:, perm]).to(torch.float64)
        gaps.append(torch.max(torch.abs(permuted - plain)).item())
    worst = max(gaps)
    return (worst <= tol, float(worst))
'''}, "why": "spec-lawyer, correct: all permutations drawn first (nothing else drawn from the generator), layer(x) called before layer(x[:, perm]) (the text fixes no order)."},
{"name": "ok_law_p3_expression", "correct": True, "cells": {"reach": '''
flattest_slope = 2 ** (-8 * 8 / 8)
alibi_reach = math.log(1000) / flattest_slope
'''}, "why": "spec-lawyer, correct: ln(1000) / 2^-8 = 1768.4 as a float."},
{"name": "ok_tie_p4_second_slowest_check", "correct": True, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    r = row.to(torch.float64)
    omega = 10000.0 ** (-(d - 2) / d)
    angle = torch.atan2(r[-2], r[-1]).item()
    if angle < 0:
        angle = angle + 2 * math.pi
    estimate = angle / omega
    return int(math.floor(estimate + 0.5))
'''}, "why": "tie-breaker, correct: floor(x + 0.5) rounds half up where round() rounds half to even; estimates are never near a half (UNSURE only if the float32 error reached 0.5)."},
# ---------------------------------------------------------------- hostile
{"name": "hostile_p6_str_equal_to_anything", "correct": False, "cells": {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__

answer_cache = Letter("a")
'''}, "why": "hostile: a str subclass equal to anything."},
{"name": "hostile_p3_float_no_distance", "correct": False, "cells": {"reach": '''
class Reach(float):
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __abs__(self):
        return Reach(0.0)
    __hash__ = float.__hash__

alibi_reach = Reach(1.0)
'''}, "why": "hostile: a float subclass whose difference from anything is 0."},
]
