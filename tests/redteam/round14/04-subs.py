# Round 14 red-team submissions for 04-positional-encoding (blind, phase 1).
BASE = {
"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** (d_model / (d_model - 2))
    i = torch.arange(d_model // 2, dtype=torch.float64)
    omega = b ** (-2 * i / d_model)
    angles = positions.to(torch.float64)[..., None] * omega
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
''',
"alibi_block": '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(num_heads, dtype=torch.float64)
    slopes = 2.0 ** (-8 * (h + 1) / num_heads)
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs()
    bias = (-slopes[:, None, None] * dist.to(torch.float64)).to(torch.float32)
    allowed = k[None, :] <= q[:, None]
    return bias, allowed
''',
"reach": '''
alibi_reach = 256 * math.log(1000)
''',
"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    s, c = float(row[d - 2]), float(row[d - 1])
    angle = math.atan2(s, c) % (2 * math.pi)
    omega = 10000.0 ** (-(d - 2) / d)
    return int(round(angle / omega))
''',
"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    half = r // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / r)
    pad = t - lengths.to(torch.long)
    m = (torch.arange(t)[None, :] - pad[:, None]).clamp(min=0).to(torch.float64)
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:r].double()
    out1 = (x1 * cos - x2 * sin).to(x.dtype)
    out2 = (x1 * sin + x2 * cos).to(x.dtype)
    return torch.cat([out1, out2, x[..., r:]], dim=-1)
''',
"mc": '''
answer_cache = "b"
''',
"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    omega = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * omega), torch.sin(offset * omega)
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
    base = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(t, generator=generator)
        gap = (layer(x[:, perm]).double() - base[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return worst <= tol, float(worst)
''',
}

SUBMISSIONS = [
# ---------------- wrong: tutorial reader ----------------
{"name": "t_div_term_float32", "correct": False, "kind": "tutorial", "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    base = base * scale ** (d_model / (d_model - 2))
    position = positions.unsqueeze(-1).float()
    div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(base) / d_model))
    pe = torch.cat([torch.sin(position * div_term), torch.cos(position * div_term)], dim=-1)
    return pe.to(dtype)
'''}, "why": "P1: 'Computing the angles in float64 ... meets both; computing them in float32 does not, even for a float32 table'"},
{"name": "t_view_positions", "correct": False, "kind": "tutorial", "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError("d_model must be even and at least 4")
    base = base * scale ** (d_model / (d_model - 2))
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(base) / d_model))
    flat = positions.view(-1, 1).to(torch.float64)
    pe = torch.cat([torch.sin(flat * div_term), torch.cos(flat * div_term)], dim=-1)
    return pe.view(*positions.shape, d_model).to(dtype)
'''}, "why": "intro: 'The tensors they are given may be non-contiguous views (a transposed tensor, a slice with a step): accept them as they are' (positions.view(-1, 1) fails on a transposed (B, T))"},
{"name": "t_allclose_equivariance", "correct": False, "kind": "tutorial", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    out = layer(x)
    ok, worst = True, 0.0
    for _ in range(trials):
        perm = torch.randperm(x.size(1), generator=generator)
        a, b = layer(x[:, perm]).double(), out[:, perm].double()
        worst = max(worst, (a - b).abs().max().item())
        ok = ok and torch.allclose(a, b, atol=tol)
    return bool(ok), float(worst)
'''}, "why": "P8: 'True exactly when worst <= tol ... tol is absolute, not relative to the size of the outputs' (allclose adds rtol=1e-5 * |b|)"},
{"name": "t_rope_cached_cos_sin_float32", "correct": False, "kind": "tutorial", "cells": {"rotate_half": '''
def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)

def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError("rotary_dim must be even and in 2..Dh")
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2).float() / rotary_dim))
    position_ids = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0)
    freqs = position_ids[..., None].float() * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None].to(x.dtype), emb.sin()[:, None].to(x.dtype)
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    x_rot = x_rot * cos + rotate_half(x_rot) * sin
    return torch.cat((x_rot, x_pass), dim=-1)
'''}, "why": "P5: 'Compute the positions, the angles, their sines and cosines in float64' (HF's inv_freq in float32)"},
{"name": "t_alibi_slopes_lesson_rule", "correct": False, "kind": "tutorial", "cells": {"alibi_block": '''
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
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    rel = (k[None, :] - q[:, None]).abs()
    bias = -slopes[:, None, None] * rel[None].float()
    return bias, k[None, :] <= q[:, None]
'''}, "why": "P2: 'Use this formula for every H (it is not the lesson's rule for numbers of heads that are not a power of two)'"},
# ---------------- wrong: source reader ----------------
{"name": "s_interleaved_shift_matrix", "correct": False, "kind": "source", "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(d_model // 2):
        w = 1.0 / base ** (2 * i / d_model)
        c, s = math.cos(offset * w), math.sin(offset * w)
        # PE(pos, 2i) = sin, PE(pos, 2i+1) = cos
        m[2 * i, 2 * i], m[2 * i + 1, 2 * i] = c, s
        m[2 * i, 2 * i + 1], m[2 * i + 1, 2 * i + 1] = -s, c
    return m
'''}, "why": "P7: 'for the sines-first table of Part 1' (the article's PE(pos, 2i)/PE(pos, 2i+1) layout is the same only for D = 2)"},
{"name": "s_rope_adjacent_pairs", "correct": False, "kind": "source", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    theta = base ** (-torch.arange(0, r, 2, dtype=torch.float64) / r)
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    even, odd = x[..., 0:r:2].double(), x[..., 1:r:2].double()
    rot = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)
    return torch.cat([rot.to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "P5: 'within them, feature i is paired with feature i + R/2 (\"rotate half\")' (the lesson's/article's adjacent pairs agree only for R = 2)"},
{"name": "s_relative_only_answer", "correct": False, "kind": "source", "cells": {"mc": '''
answer_cache = "a"
'''}, "why": "P6: the cached keys were rotated with their absolute positions 0..P-1, so the relative offset is off by P: (b)"},
{"name": "s_dh_in_exponent", "correct": False, "kind": "source", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    half = r // 2
    theta = 1.0 / base ** (torch.arange(0, 2 * half, 2, dtype=torch.float64) / dh)
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "P5: 'theta_i = base^(-2i/R) for i = 0..R/2-1 (R, not Dh, in the exponent)'"},
# ---------------- wrong: hurried ----------------
{"name": "h_strict_less_than_tol", "correct": False, "kind": "hurried", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        worst = max(worst, (layer(x[:, perm]).double() - ref[:, perm].double()).abs().max().item())
    return worst < tol, worst
'''}, "why": "P8: 'a gap equal to tol passes'"},
{"name": "h_truncate_position", "correct": False, "kind": "hurried", "cells": {"position": '''
def position_from_encoding(row):
    d = row.numel()
    angle = torch.atan2(row[-2].double(), row[-1].double()) % (2 * math.pi)
    return int(angle / 10000.0 ** (-(d - 2) / d))
'''}, "why": "P4: 'Return p as a Python int; it must be exact' (int() truncates 41.99999 to 41)"},
{"name": "h_scale_only_slowest", "correct": False, "kind": "hurried", "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    omega = base ** (-2 * torch.arange(d_model // 2, dtype=torch.float64) / d_model)
    omega[-1] = omega[-1] / scale      # the slowest one is divided by scale, the fastest stays 1
    angles = positions.to(torch.float64)[..., None] * omega
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "P1: 'keeps the frequencies geometric and changes only the base b' (D = 4 has only the two end frequencies)"},
{"name": "h_rope_no_raise_zero", "correct": False, "kind": "hurried", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r > dh:
        raise ValueError("bad rotary_dim")
    half = r // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / max(r, 1))
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x[..., :half].double(), x[..., half:r].double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "P5: 'Raise a ValueError unless rotary_dim is even and 2 <= rotary_dim <= Dh' (0 and negatives)"},
{"name": "h_alibi_dist_float16_free", "correct": True, "kind": "hurried", "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1) / num_heads)
    q = torch.arange(offset, offset + t)
    k = torch.arange(offset + t)
    bias = -slopes[:, None, None] * (q[:, None] - k[None, :]).abs()
    allowed = (q[:, None] - k[None, :]) >= 0
    return bias.float(), allowed
'''}, "why": "P2 float32 slopes times int64 distances, exact below 2^24 (correct)"},
# ---------------- wrong: careful, one misconception ----------------
{"name": "m_atan2_without_wrap", "correct": False, "kind": "misconception", "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[0]
    angle = math.atan2(row[d - 2].item(), row[d - 1].item())    # (-pi, pi]
    return round(angle * 10000.0 ** ((d - 2) / d))
'''}, "why": "P4: 'get its angle in [0, 2 pi)' (for D = 16 the slowest angle passes pi near p = 9935)"},
{"name": "m_reach_log10", "correct": False, "kind": "misconception", "cells": {"reach": '''
alibi_reach = float(256 * math.log10(1000))
'''}, "why": "P3: softmax weights are exp of scores: 1000 times less means m d = ln 1000"},
{"name": "m_shift_transposed_blocks", "correct": True, "kind": "misconception", "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    omega = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * omega), torch.sin(offset * omega)
    top = torch.cat([torch.diag(c), torch.diag(-s)], dim=1)
    bottom = torch.cat([torch.diag(s), torch.diag(c)], dim=1)
    return torch.cat([top, bottom], dim=0) if d_model > 2 else torch.cat([top, bottom], dim=0)
'''}, "why": "P7 from diag blocks (correct)"},
{"name": "m_equivariance_cast_x", "correct": False, "kind": "misconception", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    x = x.double()    # compare in float64
    ref = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        worst = max(worst, (layer(x[:, perm]) - ref[:, perm]).abs().max().item())
    return bool(worst <= tol), float(worst)
'''}, "why": "P8: 'the layer gets x as it is given, in its dtype'"},
{"name": "m_positions_from_one", "correct": True, "kind": "misconception", "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    q = offset + torch.arange(t)
    k = torch.arange(offset + t)
    dist = (q[:, None] - k[None, :]).abs()
    bias = (-slopes[:, None, None] * dist).float()
    allowed = k[None, :] < q[:, None] + 1
    return bias, allowed.expand(t, offset + t)
'''}, "why": "P2 with h+1 = 1..H and an expand of the mask to its own shape (correct)"},
{"name": "m_shift_exponent_column_index", "correct": False, "kind": "misconception", "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    # in the sines-first table column i holds frequency i, so the exponent is i / D
    omega = base ** (-torch.arange(half, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * omega), torch.sin(offset * omega)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i] = c
    m[i + half, i] = s
    m[i, i + half] = -s
    m[i + half, i + half] = c
    return m
'''}, "why": "P7: 'for the sines-first table of Part 1' whose omega_i = b^(-2i/D); the 2i is not the column index"},
# ---------------- correct ----------------
{"name": "C_table_exp_log_float64", "correct": True, "kind": "tutorial", "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model must be even and >= 4, got {d_model}")
    ntk_base = base * scale ** (d_model / (d_model - 2))
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(ntk_base) / d_model))
    position = positions.to(dtype=torch.float64).unsqueeze(-1)
    pe = torch.zeros(*positions.shape, d_model, dtype=torch.float64)
    pe[..., : d_model // 2] = torch.sin(position * div_term)
    pe[..., d_model // 2:] = torch.cos(position * div_term)
    return pe.to(dtype=dtype)
'''}, "why": "P1 the Annotated Transformer's div_term, in float64"},
{"name": "C_alibi_float32_positions", "correct": True, "kind": "tutorial", "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2 ** (-8 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float32)
    q_pos = torch.arange(offset, offset + t, dtype=torch.long)
    k_pos = torch.arange(0, offset + t, dtype=torch.long)
    rel = q_pos.view(-1, 1) - k_pos.view(1, -1)
    bias = slopes.view(-1, 1, 1) * -rel.abs().to(torch.float32)
    allowed = rel >= 0
    return bias, allowed
'''}, "why": "P2 in float32 with integer positions (exact below 2^24)"},
{"name": "C_reach_from_alibi_block", "correct": True, "kind": "careful", "cells": {"reach": '''
bias, _ = alibi_block(8, 1, 1)
flattest_slope = -float(bias[-1, 0, 0])     # query at 1, key at 0: -m * 1; the last head is the flattest
alibi_reach = math.log(1000.0) / flattest_slope
'''}, "why": "P3 via Part 2's alibi_block"},
{"name": "C_shift_from_table_halves", "correct": True, "kind": "careful", "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    if d_model >= 4:
        row = sinusoidal_table_halves(torch.tensor([offset]), d_model, base=base, dtype=torch.float64)[0]
        s, c = row[:half], row[half:]
    else:
        w = base ** (-2 * torch.arange(half, dtype=torch.float64) / d_model)
        s, c = torch.sin(offset * w), torch.cos(offset * w)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i in range(half):
        m[i, i] = c[i]
        m[i + half, i] = s[i]
        m[i, i + half] = -s[i]
        m[i + half, i + half] = c[i]
    return m
'''}, "why": "P7 built from Part 1's table at position `offset` (scale 1)"},
{"name": "C_shift_exp_log", "correct": True, "kind": "tutorial", "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(base) / d_model))
    ang = offset * div_term
    c, s = torch.diag(torch.cos(ang)), torch.diag(torch.sin(ang))
    return torch.cat([torch.cat([c, -s], dim=1), torch.cat([s, c], dim=1)], dim=0).contiguous()
'''}, "why": "P7 with the exp-log frequencies and diag blocks"},
{"name": "C_rope_hf_float64_inv_freq", "correct": True, "kind": "tutorial", "cells": {"rotate_half": '''
def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)

def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    bsz, heads, seq_len, head_dim = x.shape
    if rotary_dim % 2 != 0 or rotary_dim < 2 or rotary_dim > head_dim:
        raise ValueError(f"rotary_dim={rotary_dim} must be even and in [2, {head_dim}]")
    inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.int64).to(torch.float64) / rotary_dim))
    position_ids = torch.arange(seq_len, dtype=torch.long)[None, :] - (seq_len - lengths.to(torch.long))[:, None]
    position_ids = position_ids.clamp(min=0)
    freqs = position_ids[..., None].to(torch.float64) * inv_freq
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos().unsqueeze(1), emb.sin().unsqueeze(1)
    x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    x_rot = (x_rot.to(torch.float64) * cos + rotate_half(x_rot.to(torch.float64)) * sin).to(x.dtype)
    return torch.cat((x_rot, x_pass), dim=-1)
'''}, "why": "P5 GPT-NeoX/HF style with inv_freq and cos/sin in float64"},
{"name": "C_position_torch_atan2_float64", "correct": True, "kind": "hurried", "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    r = row.to(torch.float64)
    angle = torch.remainder(torch.atan2(r[-2], r[-1]), 2 * math.pi)
    omega = math.exp(-math.log(10000.0) * (d - 2) / d)
    return int(torch.round(angle / omega).item())
'''}, "why": "P4 with torch.atan2 and remainder"},
{"name": "C_equivariance_inverse_perm_keywords", "correct": True, "kind": "careful", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    n = x.size(1)
    reference = layer(x)
    gaps = []
    for _ in range(trials):
        perm = torch.randperm(n, generator=generator)
        inverse = torch.argsort(perm)
        moved = layer(x.index_select(1, perm))
        gaps.append((moved.index_select(1, inverse).to(torch.float64) - reference.to(torch.float64)).abs().amax())
    worst = torch.stack(gaps).max().item()
    return bool(worst <= tol), float(worst)
'''}, "why": "P8 undoing the permutation (same set of differences) with index_select"},
{"name": "C_mc_upper", "correct": True, "kind": "hurried", "cells": {"mc": '''
answer_cache = "B".lower()
'''}, "why": "P6"},
# ---------------- hostile ----------------
{"name": "X_call_reference_via_gc", "correct": False, "kind": "hostile", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    import gc
    for obj in gc.get_objects():
        if type(obj).__name__ == "function" and obj.__name__ == "rope_partial_left_padded" \\
                and obj.__code__ is not rope_partial_left_padded.__code__:
            return obj(x, lengths, rotary_dim, base)
    r = rotary_dim
    if r % 2 or r < 2 or r > x.shape[-1]:
        raise ValueError("bad rotary_dim")
    t = x.shape[2]
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).float()
    c, s = m.cos()[:, None], m.sin()[:, None]
    out = x.clone()
    out[..., 0] = x[..., 0] * c - x[..., 1] * s
    out[..., 1] = x[..., 0] * s + x[..., 1] * c
    return out
'''}, "why": "hostile: calls any other function named rope_partial_left_padded (the grader's reference); otherwise only the visible case R = 2"},
{"name": "X_float_subclass_reach", "correct": False, "kind": "hostile", "cells": {"reach": '''
class Near(float):
    def __gt__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    def __rsub__(self, other):
        return 0.0
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__

alibi_reach = Near(1.0)
'''}, "why": "hostile: a float subclass equal/close to everything"},
{"name": "X_disable_checks_equivariance", "correct": False, "kind": "hostile", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    g = globals()
    for name in list(g):
        if name.startswith("_") and callable(g[name]) and not name.startswith("__"):
            g[name] = lambda *a, **k: None
    gaps = [0.0]
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        gaps.append(float((layer(x[:, perm]) - layer(x)[:, perm]).abs().max()))
    return max(gaps) < tol, max(gaps)
'''}, "why": "hostile: replaces every grader helper with a no-op; the check itself uses < and float32 differences"},
]
