# Round 14, third wave for 04-positional-encoding (after the blind grade).
import importlib.util as _u
_s = _u.spec_from_file_location("b", "tests/redteam/round14/04-subs.py"); _m = _u.module_from_spec(_s); _s.loader.exec_module(_m)
BASE = _m.BASE
SUBMISSIONS = [
{"name": "Q_worst_starts_as_int_zero", "correct": False, "kind": "hurried", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    out = layer(x)
    worst = 0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        gap = (layer(x[:, perm]).double() - out[:, perm].double()).abs().max().item()
        worst = max(worst, gap)
    return worst <= tol, worst
'''}, "why": "P8: 'worst a Python float' (an exactly equivariant layer leaves worst the int 0: max(0, 0.0) is 0)"},
{"name": "Q_tol_with_fuzz", "correct": False, "kind": "careful", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    out = layer(x).double()
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        worst = max(worst, float((layer(x[:, perm]).double() - out[:, perm]).abs().max()))
    return worst <= tol + 1e-12, worst      # a little slack for rounding
'''}, "why": "P8: 'one above it fails however little'"},
{"name": "Q_rope_clone_and_assign", "correct": True, "kind": "tutorial", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 != 0 or r < 2 or r > dh:
        raise ValueError("rotary_dim must be even and between 2 and Dh")
    half = r // 2
    inv_freq = 1.0 / base ** (torch.arange(half, dtype=torch.float64) * 2 / r)
    pos = torch.arange(t).unsqueeze(0) - (t - lengths.to(torch.int64)).unsqueeze(1)
    pos = torch.where(pos < 0, torch.zeros_like(pos), pos).to(torch.float64)
    ang = torch.einsum("bt,f->btf", pos, inv_freq).unsqueeze(1)
    x1, x2 = x[..., :half].to(torch.float64), x[..., half:r].to(torch.float64)
    out = x.clone()
    out[..., :half] = x1 * ang.cos() - x2 * ang.sin()
    out[..., half:r] = x1 * ang.sin() + x2 * ang.cos()
    return out
'''}, "why": "P5 on a clone with slice assignment (autograd follows copy_)"},
{"name": "Q_rope_float32_for_halves", "correct": True, "kind": "tutorial", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or not 2 <= r <= dh:
        raise ValueError("bad rotary_dim")
    half = r // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / r)
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).to(torch.float64)
    ang = (m[..., None] * theta)[:, None]
    wide = torch.promote_types(x.dtype, torch.float32)
    cos, sin = ang.cos().to(wide), ang.sin().to(wide)
    x1, x2 = x[..., :half].to(wide), x[..., half:r].to(wide)
    rot = torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).to(x.dtype)
    return torch.cat([rot, x[..., r:]], dim=-1)
'''}, "why": "P5 rotating in float32 for half inputs, float64 for float64 ('the dtype of x or wider')"},
{"name": "Q_table_float16_via_float32_angles_only_for_halves", "correct": False, "kind": "misconception", "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    b = base * scale ** (d_model / (d_model - 2))
    work = torch.float64 if dtype in (torch.float32, torch.float64) else torch.float32  # halves round anyway
    omega = b ** (-2 * torch.arange(d_model // 2, dtype=work) / d_model)
    angles = positions.to(work)[..., None] * omega
    return torch.cat([angles.sin(), angles.cos()], dim=-1).to(dtype)
'''}, "why": "P1: 'convert the positions to float64, not to dtype' / 'do not pass the positions through float32' (int32 positions past 2^24 in a float16 table)"},
{"name": "Q_alibi_slopes_pow_int", "correct": True, "kind": "hurried", "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.pow(2.0, -8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    rel = torch.arange(offset, offset + t).view(t, 1) - torch.arange(offset + t).view(1, -1)
    return (slopes.view(-1, 1, 1) * -rel.abs()).to(torch.float32), rel >= 0
'''}, "why": "P2 compact"},
]
