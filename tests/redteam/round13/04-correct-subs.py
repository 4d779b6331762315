P1A = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 != 0 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    half = d_model // 2
    # slowest: b'^(-(D-2)/D) = b^(-(D-2)/D) / scale  ->  b' = b * scale^(D/(D-2))
    log_base = math.log(base) + math.log(scale) * d_model / (d_model - 2)
    i = torch.arange(half, dtype=torch.float64)
    omega = torch.exp(-(2.0 * i / d_model) * log_base)
    angles = positions.to(torch.float64).unsqueeze(-1) * omega
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1).to(dtype)
'''
P1B = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if not (d_model % 2 == 0 and d_model >= 4):
        raise ValueError("bad d_model")
    D = d_model
    half = D // 2
    pos = positions.double()
    out = torch.empty(tuple(positions.shape) + (D,), dtype=torch.float64)
    for i in range(half):
        # the base's own frequency times the stretch: scale^(-2i/(D-2)), 1 at i = 0 and 1/scale at i = D/2 - 1
        w = math.pow(base, -2.0 * i / D) * math.pow(scale, -2.0 * i / (D - 2))
        a = pos * w
        out[..., i] = torch.sin(a)
        out[..., i + half] = torch.cos(a)
    return out.to(dtype=dtype)
'''
P5A = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    R = rotary_dim
    if R % 2 != 0 or R < 2 or R > Dh:
        raise ValueError(f"rotary_dim {R} must be even with 2 <= rotary_dim <= {Dh}")
    half = R // 2
    L = lengths.to(torch.int64)
    m = torch.arange(T, dtype=torch.int64).unsqueeze(0) - (T - L).unsqueeze(1)     # (B, T)
    m = torch.clamp(m, min=0).to(torch.float64)
    theta = base ** (-2.0 * torch.arange(half, dtype=torch.float64) / R)
    ang = m[:, None, :, None] * theta                                               # (B, 1, T, half)
    c, s = torch.cos(ang), torch.sin(ang)
    x1 = x[..., :half].to(torch.float64)
    x2 = x[..., half:R].to(torch.float64)
    r1 = (x1 * c - x2 * s).to(x.dtype)
    r2 = (x1 * s + x2 * c).to(x.dtype)
    return torch.cat([r1, r2, x[..., R:]], dim=-1)
'''
P5B = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    Dh = x.shape[-1]
    T = x.shape[-2]
    if not (rotary_dim % 2 == 0 and 2 <= rotary_dim <= Dh):
        raise ValueError("rotary_dim")
    R, h = rotary_dim, rotary_dim // 2
    start = T - lengths.long()                                    # first real row
    rows = torch.arange(T).view(1, T)
    real = rows >= start.view(-1, 1)                              # (B, T)
    m = torch.where(real, rows - start.view(-1, 1), torch.zeros((), dtype=torch.long)).double()
    inv = torch.pow(torch.tensor(float(base), dtype=torch.float64), -torch.arange(0, R, 2, dtype=torch.float64) / R)
    ang = torch.einsum("bt,i->bti", m, inv).unsqueeze(1)
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    a, b = x[..., :h], x[..., h:R]
    out = x.clone()
    out[..., :h] = a * cos - b * sin
    out[..., h:R] = a * sin + b * cos
    return out
'''
P8A = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.shape[1]
    base = layer(x)
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(T, generator=generator)
        gap = (layer(x[:, perm]).to(torch.float64) - base[:, perm].to(torch.float64)).abs().max().item()
        worst = max(worst, gap)
    return bool(worst <= tol), float(worst)
'''
P8B = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.size(1)
    perms = [torch.randperm(T, generator=generator) for _ in range(trials)]
    gaps = []
    for perm in perms:
        moved = layer(torch.index_select(x, 1, perm))
        ref = torch.index_select(layer(x), 1, perm)
        gaps.append(torch.amax(torch.abs(moved.double() - ref.double())))
    worst = float(torch.stack(gaps).max())
    equivariant = not (worst > tol)
    return equivariant, worst
'''
SUBMISSIONS = [
    {"name": "c04_p1_logbase_exp", "correct": True, "cells": {"table_halves": P1A}, "why": "log of the stretched base, exp of float64 exponents"},
    {"name": "c04_p1_column_loop_two_powers", "correct": True, "cells": {"table_halves": P1B}, "why": "per-column loop, omega as a product of two Python powers"},
    {"name": "c04_p5_float64_rotate_cat", "correct": True, "cells": {"rotate_half": P5A}, "why": "rotate in float64, cast, cat with the untouched tail"},
    {"name": "c04_p5_clone_slice_assign", "correct": True, "cells": {"rotate_half": P5B}, "why": "clone then slice-assign, rotation in x's dtype, where for padding"},
    {"name": "c04_p8_item_loop", "correct": True, "cells": {"equivariance": P8A}, "why": "layer(x) once, .item() gaps, Python max"},
    {"name": "c04_p8_perms_first_index_select", "correct": True, "cells": {"equivariance": P8B}, "why": "all perms drawn first, index_select, layer(x) per trial"},
]

P1C = '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    half = d_model // 2
    new_base = torch.tensor(base, dtype=torch.float64) * torch.tensor(scale, dtype=torch.float64) ** (d_model / (d_model - 2))
    omega = new_base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    flat = positions.reshape(-1).to(dtype=torch.float64)
    ang = torch.outer(flat, omega)
    table = torch.empty(flat.shape[0], d_model, dtype=dtype)
    table[:, :half] = torch.sin(ang)
    table[:, half:] = torch.cos(ang)
    return table.reshape(*positions.shape, d_model)
'''
P5C = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    B, H, T, Dh = x.shape
    if rotary_dim % 2 == 1 or not 2 <= rotary_dim <= Dh:
        raise ValueError("rotary_dim must be even, 2 <= rotary_dim <= Dh")
    R = rotary_dim
    h = R // 2
    pad = T - lengths.to(torch.int64)
    m = (torch.arange(T).unsqueeze(0) - pad.unsqueeze(1)).clamp_min(0).to(torch.float64)
    theta = torch.exp(-math.log(base) * torch.arange(h, dtype=torch.float64) * 2 / R)
    rot = torch.polar(torch.ones(B, 1, T, h, dtype=torch.float64), m[:, None, :, None] * theta)
    z = torch.complex(x[..., :h].to(torch.float64), x[..., h:R].to(torch.float64)) * rot
    return torch.cat([z.real.to(x.dtype), z.imag.to(x.dtype), x[..., R:]], dim=-1)
'''
P8C = '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    T = x.shape[1]
    out = layer(x).double()
    gaps = torch.zeros(trials, dtype=torch.float64)
    for i in range(trials):
        perm = torch.randperm(n=T, generator=generator)
        gaps[i] = torch.max(torch.abs(torch.sub(layer(x[:, perm]).double(), out[:, perm])))
    worst = gaps.max().tolist()
    return worst <= tol, worst
'''
SUBMISSIONS += [
    {"name": "c04_p1_outer_tensor_pow_fill", "correct": True, "cells": {"table_halves": P1C}, "why": "tensor pow for the base, torch.outer on flattened positions, filled table"},
    {"name": "c04_p5_complex_polar", "correct": True, "cells": {"rotate_half": P5C}, "why": "rotation as a complex product (torch.polar), float64"},
    {"name": "c04_p8_keyword_randperm_tolist", "correct": True, "cells": {"equivariance": P8C}, "why": "randperm(n=...), gaps into a float64 buffer, tolist"},
]
