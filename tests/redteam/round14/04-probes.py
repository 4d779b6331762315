# Round 14, second wave for 04-positional-encoding (written after the blind grade; not blind for Part 5's strides).
import importlib.util as _u
_s = _u.spec_from_file_location("b", "tests/redteam/round14/04-subs.py"); _m = _u.module_from_spec(_s); _s.loader.exec_module(_m)
BASE = _m.BASE
SUBMISSIONS = [
{"name": "P_rope_view_feature_axis", "correct": False, "kind": "tutorial", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or r < 2 or r > dh:
        raise ValueError("bad rotary_dim")
    half = r // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / r)
    m = (torch.arange(t)[None, :] - (t - lengths.long())[:, None]).clamp(min=0).double()
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]
    x1, x2 = x.view(b, h, t, dh)[..., :r].view(b, h, t, 2, half).unbind(-2)
    x1, x2 = x1.double(), x2.double()
    return torch.cat([(x1 * cos - x2 * sin).to(x.dtype), (x1 * sin + x2 * cos).to(x.dtype), x[..., r:]], dim=-1)
'''}, "why": "intro: 'The tensors they are given may be non-contiguous views': a view that splits the feature axis fails when the features are strided"},
{"name": "P_rope_rotate_in_half_dtype", "correct": True, "kind": "careful", "cells": {"rotate_half": '''
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    b, h, t, dh = x.shape
    r = rotary_dim
    if r % 2 or not 2 <= r <= dh:
        raise ValueError("bad rotary_dim")
    half = r // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / r)
    m = (torch.arange(t)[None, :] - (t - lengths.to(torch.int64))[:, None]).clamp(min=0).to(torch.float64)
    ang = m[..., None] * theta
    cos, sin = ang.cos()[:, None].to(x.dtype), ang.sin()[:, None].to(x.dtype)   # rotate in the dtype of x
    x1, x2 = x[..., :half], x[..., half:r]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[..., r:]], dim=-1)
'''}, "why": "P5: 'then rotate in the dtype of x or wider' -- rotating in float16/bfloat16 is allowed"},
{"name": "P_equivariance_layer_each_trial", "correct": True, "kind": "hurried", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    worst = 0.0
    for _ in range(trials):
        perm = torch.randperm(x.shape[1], generator=generator)
        gap = (layer(x[:, perm]).to(torch.float64) - layer(x)[:, perm].to(torch.float64)).abs().max()
        worst = max(worst, gap.item())
    return worst <= tol, worst
'''}, "why": "P8 calling layer(x) again in every trial (nothing in the text limits the calls)"},
{"name": "P_equivariance_perms_first", "correct": True, "kind": "careful", "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    perms = [torch.randperm(x.size(1), generator=generator) for _ in range(trials)]
    base = layer(x).double()
    worst = max(float((layer(x[:, p]).double() - base[:, p]).abs().max()) for p in perms)
    return bool(worst <= tol), worst
'''}, "why": "P8 drawing every permutation first"},
{"name": "P_alibi_tril_float64_cast", "correct": True, "kind": "tutorial", "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / num_heads) for h in range(num_heads)], dtype=torch.float64)
    q = torch.arange(offset, offset + t, dtype=torch.int64).unsqueeze(-1)
    k = torch.arange(offset + t, dtype=torch.int64).unsqueeze(0)
    bias = -(slopes.view(-1, 1, 1) * (q - k).abs().to(torch.float64).unsqueeze(0))
    allowed = torch.ones(t, offset + t, dtype=torch.bool).tril(diagonal=offset)
    return bias.to(torch.float32), allowed
'''}, "why": "P2 with tril(diagonal=offset) for the mask"},
{"name": "P_table_positions_long_first", "correct": True, "kind": "hurried", "cells": {"table_halves": '''
def sinusoidal_table_halves(positions, d_model, base=10000.0, scale=1.0, dtype=torch.float32):
    if d_model % 2 or d_model < 4:
        raise ValueError("d_model must be even and >= 4")
    new_base = base * scale ** (d_model / (d_model - 2))
    freqs = [new_base ** (-2 * i / d_model) for i in range(d_model // 2)]
    angles = positions.long().unsqueeze(-1).double() * torch.tensor(freqs, dtype=torch.float64)
    return torch.cat((torch.sin(angles), torch.cos(angles)), dim=-1).to(dtype=dtype)
'''}, "why": "P1 with Python-float frequencies"},
{"name": "P_shift_offset_tensor_of_omega_float32", "correct": False, "kind": "hurried", "cells": {"shift": '''
def shift_matrix_halves(offset, d_model, base=10000.0):
    half = d_model // 2
    omega = base ** (-2 * torch.arange(half) / d_model)     # default dtype
    ang = (offset * omega).double()
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    i = torch.arange(half)
    m[i, i], m[i + half, i], m[i, i + half], m[i + half, i + half] = ang.cos(), ang.sin(), -ang.sin(), ang.cos()
    return m
'''}, "why": "P7: 'the hidden tests check the matrix itself to 1e-12' (frequencies and angles in float32)"},
{"name": "P_position_float32_all_the_way", "correct": True, "kind": "hurried", "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    angle = torch.atan2(row[d - 2], row[d - 1])
    if angle < 0:
        angle = angle + 2 * math.pi
    return int(torch.round(angle / 10000.0 ** (-(d - 2) / d)))
'''}, "why": "P4 in the row's dtype: is float32 arithmetic enough? (labelled correct: error well below 0.5 for p < 10000)"},
]
