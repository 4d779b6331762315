SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})
add("ps-p7-base-through-float32", False, {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    freq = torch.tensor(base) ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    c, s = torch.cos(offset * freq), torch.sin(offset * freq)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i] = c, s
    m[i, i + half], m[i + half, i + half] = -s, c
    return m
'''}, "base in float32")
add("ps-p5-base-through-float32", False, {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    dh = x.shape[-1]
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("rotary_dim must be even and 2 <= rotary_dim <= Dh")
    B, H, T, _ = x.shape
    half = r // 2
    m = (torch.arange(T)[None, :] - (T - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    theta = torch.tensor(base) ** (-2 * torch.arange(half, dtype=torch.float64) / r)
    ang = m[..., None] * theta
    wide = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    cos, sin = ang.cos().to(wide)[:, None], ang.sin().to(wide)[:, None]
    x1, x2 = x[..., :half].to(wide), x[..., half:r].to(wide)
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "base in float32")
add("ps-p1-base-scale-through-float32", False, {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("bad d_model")
    b = torch.tensor(base) * torch.tensor(scale) ** (d_model / (d_model - 2))
    freqs = b.double() ** (-2 * torch.arange(d_model // 2, dtype=torch.float64) / d_model)
    ang = positions.to(torch.float64)[..., None] * freqs
    return torch.cat([ang.sin(), ang.cos()], dim=-1).to(dtype)
'''}, "base/scale in float32")
add("ps-p8-tol-through-float32", False, {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = torch.zeros((), dtype=torch.float64)
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        d = layer(x[:, perm]).double() - layer(x)[:, perm].double()
        worst = torch.maximum(worst, d.abs().max())
    return (bool(worst <= torch.tensor(tol)), worst.item())
'''}, "tol in float32")
