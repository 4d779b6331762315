SUBMISSIONS = [
{"name": "p1 table_halves", "correct": True, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and >= 4, got {d_model}")
    base = base * scale ** (d_model / (d_model - 2))
    pos = positions.to(torch.float64)[..., None]
    freq = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angle = pos * freq
    table = torch.cat([angle.sin(), angle.cos()], dim=-1)
    return table.to(dtype)
'''}, "why": "copied from positional.py sinusoidal_encoding; changes: 5 lines (check, NTK base line derived by me, positions tensor, cat instead of stack+flatten, dtype)"},
{"name": "p2 alibi_block", "correct": True, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    s = offset + t
    start = 2.0 ** (-8.0 / num_heads)
    slopes = torch.tensor([start ** (i + 1) for i in range(num_heads)])
    distance = (torch.arange(t)[:, None] + offset - torch.arange(s)[None, :]).abs()
    allowed = torch.ones(t, s, dtype=torch.bool).tril(offset)
    return -slopes[:, None, None] * distance, allowed
'''}, "why": "copied from positional.py alibi_slopes (power_of_two) + alibi_bias; changes: 5 lines (s, slopes inlined, +offset in distance, tril(offset) mask, return pair)"},
{"name": "p5 rotate_half", "correct": True, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"bad rotary_dim {rotary_dim}")
    positions = (torch.arange(t)[None, :] - (t - lengths.long()[:, None])).clamp(min=0)[:, None, :]
    freq = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = positions.to(torch.float64)[..., None] * freq
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    cos, sin = torch.cat([cos, cos], dim=-1), torch.cat([sin, sin], dim=-1)
    xr = x[..., :rotary_dim]
    x1, x2 = xr.chunk(2, dim=-1)
    rotated = xr * cos + torch.cat([-x2, x1], dim=-1) * sin
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''}, "why": "copied from positional.py rope (pairing='half') + rope_angles + rotate_half inlined; changes: 5 lines (rotary_dim check, left-padded positions line, head_dim->rotary_dim, slice x, cat pass-through)"},
{"name": "p8 equivariance", "correct": True, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        out = layer(x)
        out_perm = layer(x[:, perm])
        gap = (out_perm - out[:, perm]).abs().max().item()
        worst = max(worst, gap)
    return worst <= tol, worst
'''}, "why": "copied from index.md first cell (layer(x), layer(x[:, perm]), gap = ...abs().max().item()); changes: 5 lines (loop, randperm with generator, worst, return)"},
]
