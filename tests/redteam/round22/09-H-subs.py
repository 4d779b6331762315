P1 = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:
        raise ValueError("bad heads")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    eps_t = torch.tensor(eps, dtype=x.dtype)  # eps in the input's dtype
    heads = x.to(work).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    inv_rms = torch.rsqrt(heads.double().square().mean(dim=-1, keepdim=True) + eps_t.double()).to(work)
    scale = weight.to(work) + 1 if unit_offset else weight.to(work)
    return (heads * inv_rms * scale).transpose(-3, -2).to(x.dtype)
'''
P2 = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    both = x.to(work) @ w_gate_up.to(work).T
    if interleaved:
        gate, up = both[..., 0::2], both[..., 1::2]
    else:
        gate, up = both.chunk(2, dim=-1)
    b = {BETA}
    if limit is not None:
        lim = {LIM}
        gate = torch.minimum(gate, lim.to(work))
        up = torch.maximum(torch.minimum(up, lim.to(work)), -lim.to(work))
    return ((gate * torch.sigmoid(b * gate) * up) @ w_down.to(work).T).to(x.dtype)
'''
P4 = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    z = torch.tensor(z_loss, dtype=logits.dtype)  # the coefficient in the logits' dtype
    chosen = target_mask[:, 1:]
    count = int(chosen.sum())
    scores = logits[:, :-1][chosen].to(work)
    targets = ids[:, 1:][chosen].long()
    log_z = torch.logsumexp(scores, dim=-1)
    picked = scores.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    per_token = (log_z - picked) + z.to(work) * log_z.square()
    return per_token.sum() / max(count, 1), count
'''
P6 = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    b, _, t, dh = x.shape
    if dh % 2 or tuple(positions.shape) != (b, t):
        raise ValueError("bad shapes")
    {CONV}
    theta = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    wavelength = 2 * math.pi / theta
    s = (original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mixed = (1 - s) * theta / factor + s * theta
    theta = torch.where(wavelength < original_context / high_freq_factor, theta,
                        torch.where(wavelength > original_context / low_freq_factor, theta / factor, mixed))
    angle = positions.to(torch.float64)[:, None, :, None] * theta
    cos, sin = angle.cos(), angle.sin()
    first, second = x.to(torch.float64).chunk(2, dim=-1)
    out = torch.cat([first * cos - second * sin, second * cos + first * sin], dim=-1)
    return out.to(x.dtype)
'''
H = "torch.tensor({0}, dtype=x.dtype).double()"
SUBMISSIONS = [
    {"name": "p1_eps_in_input_dtype", "correct": False, "cells": {"head_rms_norm": P1},
     "why": "eps rounded to float16/bfloat16 before the float64 mean of squares"},
    {"name": "p2_limit_in_input_dtype", "correct": False,
     "cells": {"fused_swiglu": P2.replace("{BETA}", "beta").replace("{LIM}", "torch.tensor(limit, dtype=x.dtype)")},
     "why": "limit made a tensor of x's dtype (float16: 1e5 is inf)"},
    {"name": "p2_beta_in_input_dtype", "correct": False,
     "cells": {"fused_swiglu": P2.replace("{BETA}", "torch.tensor(beta, dtype=x.dtype).to(work)").replace("{LIM}", "torch.tensor(limit, dtype=torch.float64)")},
     "why": "beta made a tensor of x's dtype"},
    {"name": "p4_zloss_in_logits_dtype", "correct": False, "cells": {"masked_lm_loss": P4},
     "why": "z_loss made a tensor of the logits' dtype (bfloat16 rounds 1e-4)"},
    {"name": "p6_base_in_input_dtype", "correct": False,
     "cells": {"rope_llama3": P6.replace("{CONV}", "base = " + H.format("base"))}, "why": "base rounded to x's dtype"},
    {"name": "p6_factor_in_input_dtype", "correct": False,
     "cells": {"rope_llama3": P6.replace("{CONV}", "factor = " + H.format("factor"))}, "why": "factor rounded to x's dtype"},
    {"name": "p6_freq_factors_in_input_dtype", "correct": False,
     "cells": {"rope_llama3": P6.replace("{CONV}", "low_freq_factor, high_freq_factor = " + H.format("low_freq_factor") + ", " + H.format("high_freq_factor"))},
     "why": "low/high freq factors rounded to x's dtype"},
    {"name": "p6_context_in_input_dtype", "correct": False,
     "cells": {"rope_llama3": P6.replace("{CONV}", "original_context = " + H.format("original_context"))},
     "why": "original_context rounded to x's dtype"},
]
SUBMISSIONS.append({"name": "model", "correct": True, "cells": {}, "why": "model answer"})
