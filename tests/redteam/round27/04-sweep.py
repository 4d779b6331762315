# Round 27 class sweep, chapter 4 (classes V, W, X). Each variant is the model answer with the smallest change that
# makes the class's mistake; "correct": True marks probes the text allows.
SUBMISSIONS = [
 # ---- class V: a floor below every value the hidden cases reach
 {"name": "V-p2-distance-floored", "correct": False, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    query_pos = torch.arange(offset, offset + t)[:, None]
    key_pos = torch.arange(offset + t)[None, :]
    distance = (query_pos - key_pos).abs().double().clamp(min=1e-6)  # "no zero distance"
    bias = (-slopes[:, None, None] * distance).to(torch.float32)
    return bias, key_pos <= query_pos
'''}, "why": "V: a distance floored at 1e-6: the diagonal's bias is -m 1e-6, not 0; hidden atol=1e-6 hides it (text: a relative 1e-6 of the exact values)"},
 {"name": "V-p2-bias-minus-eps", "correct": False, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = 2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)
    query_pos = torch.arange(offset, offset + t)[:, None]
    key_pos = torch.arange(offset + t)[None, :]
    distance = (query_pos - key_pos).abs()
    bias = (-slopes[:, None, None] * (distance + 1e-7)).to(torch.float32)  # eps so that no bias is exactly 0
    return bias, key_pos <= query_pos
'''}, "why": "V: 1e-7 added to every distance: the diagonal's bias is not 0; hidden atol hides it"},
 {"name": "V-p2-slopes-floored", "correct": True, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    slopes = (2.0 ** (-8.0 * torch.arange(1, num_heads + 1, dtype=torch.float64) / num_heads)).clamp(min=1e-8)
    query_pos = torch.arange(offset, offset + t)[:, None]
    key_pos = torch.arange(offset + t)[None, :]
    distance = (query_pos - key_pos).abs()
    bias = (-slopes[:, None, None] * distance).to(torch.float32)
    return bias, key_pos <= query_pos
'''}, "why": "V probe, allowed: slopes are at least 2^-8 by definition, a floor at 1e-8 changes nothing"},
 {"name": "V-p2-float32-slopes-log", "correct": True, "cells": {"alibi_block": '''
def alibi_block(num_heads, t, offset):
    h = torch.arange(1, num_heads + 1, dtype=torch.float32)
    log_slopes = -8.0 * h / num_heads * math.log(2.0)
    query_pos = torch.arange(offset, offset + t)[:, None]
    key_pos = torch.arange(offset + t)[None, :]
    distance = (query_pos - key_pos).abs().to(torch.float32)
    bias = -(log_slopes.exp()[:, None, None] * distance)
    return bias, key_pos <= query_pos
'''}, "why": "correct: slopes through exp of a float32 log, float32 throughout (offset + T < 2**24): must pass an atol=0 check"},
 {"name": "V-p8-worst-floored", "correct": False, "cells": {"equivariance": '''
def check_equivariance(layer, x, trials, generator, tol=1e-5):
    t = x.shape[1]
    with torch.no_grad():
        reference = layer(x)
        gaps = []
        for _ in range(trials):
            perm = torch.randperm(t, generator=generator)
            gaps.append((layer(x[:, perm]).double() - reference[:, perm].double()).abs().max().item())
    worst = max(max(gaps), 1e-300)
    return worst <= tol, float(worst)
'''}, "why": "V: the gap floored at 1e-300 (a T = 1 eval-mode case must give exactly 0.0)"},
 {"name": "V-p4-slowest-floored", "correct": True, "cells": {"position": '''
def position_from_encoding(row):
    d = row.shape[-1]
    slowest = max(10000.0 ** (-(d - 2) / d), 1e-8)
    sin, cos = float(row[-2]), float(row[-1])
    angle = math.atan2(sin, cos) % (2 * math.pi)
    return round(angle / slowest)
'''}, "why": "V probe, allowed: base fixed at 10000, the slowest frequency is at least 1e-4"},
 # ---- added after the first grading: X in Part 5 (a rule on one of two half dtypes)
 {"name": "X-p5-float32-work-for-float16-only", "correct": False, "cells": {"rotate_half": """
def rope_partial_left_padded(x, lengths, rotary_dim, base=10000.0):
    t, dh = x.shape[-2:]
    if rotary_dim % 2 or not 2 <= rotary_dim <= dh:
        raise ValueError(f"rotary_dim must be even and between 2 and Dh={dh}, got {rotary_dim}")
    half = rotary_dim // 2
    first_real = t - lengths.long()
    pos = (torch.arange(t)[None, :] - first_real[:, None]).clamp(min=0)
    theta = base ** (-torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim)
    angle = pos.to(torch.float64)[:, None, :, None] * theta
    work = torch.float32 if x.dtype == torch.float16 else x.dtype  # bfloat16 left in its own dtype
    cos, sin = angle.cos().to(work), angle.sin().to(work)
    a, b = x[..., :half].to(work), x[..., half:rotary_dim].to(work)
    rotated = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1).to(x.dtype)
    return torch.cat([rotated, x[..., rotary_dim:]], dim=-1)
"""}, "why": "X: float32 arithmetic for float16 inputs only; bfloat16 computed in bfloat16 (two roundings)"},
]
