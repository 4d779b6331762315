# Round 26 class sweep, chapter 4 (classes R, S, U; T closed in b7316cc). Each variant is the model answer (or a correct
# variant) with the smallest change that makes the class's mistake.
ROPE_HEAD = '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")
    half = rotary_dim // 2
    first_real = t - lengths.long()
'''
ROPE_TAIL = '''
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = pos.to(torch.float64)[:, None, :, None] * theta
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)
    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''
SUBMISSIONS = [
 # ---- class R: a size-1 axis beside a longer one
 {"name": "R-p1-positions-squeezed", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    stretched = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    pos = positions.to(torch.float64).squeeze()  # (B, 1) or (1, T) -> a row
    if pos.dim() == 1 and positions.dim() == 2:
        pos = pos.unsqueeze(0)
    angle = pos.unsqueeze(-1) * stretched ** -exponents
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype).reshape(*positions.shape, d_model) if angle.numel() * 2 == positions.numel() * d_model else torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''}, "why": "R: positions (B, 1) squeeze to (B,) and come back as (1, B): same entries, reshaped back (probe: correct)", "correct": True},
 {"name": "R-p1-positions-squeezed-broadcast", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    stretched = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    pos = positions.to(torch.float64).squeeze()
    while pos.dim() < positions.dim():  # put back the axes of one in front
        pos = pos.unsqueeze(0)
    angle = pos.unsqueeze(-1) * stretched ** -exponents
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)
'''}, "why": "R: positions (B, 1) with B > 1 come back as (1, B, D), not (B, 1, D)"},
 {"name": "R-p5-positions-squeezed", "correct": False, "cells": {"rotate_half": ROPE_HEAD + '''
    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0).squeeze()  # (B, T)
    while pos.dim() < 2:
        pos = pos.unsqueeze(0)
''' + ROPE_TAIL}, "why": "R: T = 1 with B > 1: positions (B, 1) squeeze to (B,), put back as (1, B): one row of B positions"},
 {"name": "R-p5-lengths-squeezed", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")
    half = rotary_dim // 2
    first_real = (t - lengths.long()).squeeze()
    pos = (torch.arange(t)[None, :] - first_real.reshape(-1)[:, None]).clamp(min=0)
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = (pos.to(torch.float64)[:, :, None] * theta).squeeze()  # (B, T, R/2)
    while angle.dim() < 3:
        angle = angle.unsqueeze(0)
    angle = angle[:, None]
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)
    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
'''}, "why": "R: rotary_dim = 2 (one frequency) or T = 1 with B > 1: the angles (B, T, 1) squeeze, and come back with the batch misplaced"},
 # ---- class S: a non-contiguous layout that still lets .view through
 {"name": "S-p1-positions-flat-view", "correct": False, "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError(f"d_model must be even and at least 4, got {d_model}")
    stretched = base * scale ** (d_model / (d_model - 2))
    exponents = torch.arange(0, d_model, 2, dtype=torch.float64) / d_model
    angle = positions.view(-1).to(torch.float64)[:, None] * stretched ** -exponents
    return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype).view(*positions.shape, d_model)
'''}, "why": "S: positions.view(-1) fails on 2-D positions transposed (or a stepped slice)"},
 {"name": "S-p4-row-view-pairs", "correct": False, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    slowest = 10000.0 ** (-(d - 2) / d)
    pairs = row.view(d // 2, 2)
    sin, cos = float(pairs[-1, 0]), float(pairs[-1, 1])
    angle = math.atan2(sin, cos) % (2 * math.pi)
    return round(angle / slowest)
'''}, "why": "S: row.view(D/2, 2) fails on a stepped row"},
 {"name": "S-p5-view-merges-batch-and-heads", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    bsz, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")
    half = rotary_dim // 2
    first_real = t - lengths.long()
    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = (pos.to(torch.float64)[:, None, :, None] * theta).expand(bsz, h, t, half).reshape(bsz * h, t, half)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    flat = x.view(bsz * h, t, dh)
    a, b = flat[..., :half].to(work), flat[..., half:rotary_dim].to(work)
    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, flat[..., rotary_dim:]], dim=-1).view(bsz, h, t, dh)
'''}, "why": "S: x.view(B * H, T, Dh) fails on an x made as split_heads makes it ((B, T, H, Dh) transposed)"},
 {"name": "S-p8-gap-view", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    with torch.no_grad():
        reference = layer(x)
        gaps = []
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            diff = layer(x[:, perm]).double() - reference[:, perm].double()
            gaps.append(diff.view(-1).abs().max().item())
    worst = max(gaps)
    return worst <= tol, float(worst)
'''}, "why": "S: the difference of two outputs in a non-contiguous layout refuses view(-1) (a layer that returns a transposed view)"},
 {"name": "S-p8-x-view", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    b, t, d = x.shape
    with torch.no_grad():
        reference = layer(x)
        gaps = []
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            shuffled = x.view(b, t, d)[:, perm]
            gaps.append((layer(shuffled).double() - reference[:, perm].double()).abs().max().item())
    worst = max(gaps)
    return worst <= tol, float(worst)
'''}, "why": "S probe: x.view(b, t, d) keeps the shape: always allowed (correct)", "correct": True},
 # ---- class U: a loop the text allows, timed on the hidden cases
 {"name": "U-p5-loop-over-rows", "correct": False, "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")
    half = rotary_dim // 2
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    rows = []
    for i in range(t):  # one row at a time: its position in each sequence
        pos = (i - (t - lengths.long())).clamp(min=0).double()  # (B,)
        angle = pos[:, None, None] * theta  # (B, 1, R/2)
        cos, sin = angle.cos().to(work), angle.sin().to(work)
        a, bb = x[:, :, i, :half].to(work), x[:, :, i, half:rotary_dim].to(work)
        rows.append(torch.cat([(a * cos - bb * sin).to(x.dtype), (a * sin + bb * cos).to(x.dtype), x[:, :, i, rotary_dim:]], dim=-1))
    return torch.stack(rows, dim=2) if rows else x.clone()
'''}, "why": "U: a loop over the T rows: T = 2**20 + 3 in a hidden case (ruled out by the text since this sweep: correct before it)"},
]
