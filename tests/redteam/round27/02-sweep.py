# Round 27 class sweep, chapter 02 (classes V, W, X of tests/redteam/round27/BRIEF-SWEEP.md): the model answer of
# each part with one class's mistake put in; "correct": True only where the text allows the answer.
P1 = '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    q_norms = a.square().sum(dim=-1, keepdim=True)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)
    dots = a @ b.transpose(-2, -1)
    return (-(q_norms + k_norms - 2 * dots).clamp(min=FLOOR)).to(q.dtype)
'''
P2 = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    TAU
    w = WEIGHTS
    inner = (w * grad_weights).sum(dim=-1, keepdim=True)
    return w * (grad_weights - inner) / temperature
'''
P2_DIAG = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    # w_j g_j (1 - w_j) - w_j sum_{i != j} w_i g_i, the diagonal of the Jacobian through its complement
    wg = weights * grad_weights
    others = wg.sum(dim=-1, keepdim=True) - wg
    return (wg * (1 - weights) - weights * others) / temperature
'''
P5 = '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = EXP
    total = e.sum(dim=-1, keepdim=True)
    weights = WEIGHTS
    return weights @ v, lse
'''
def p5(exp="torch.exp(scores - top)", weights="e / torch.where(total > 0, total, torch.ones_like(total))"):
    return P5.replace("EXP", exp).replace("WEIGHTS", weights)
P6 = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(dim=-1)
    return RET

predicted_variance_512 = 512 / 3
'''
P6_SQ = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (q * k).sum(dim=-1).var().item() * scale ** 2

predicted_variance_512 = 512 / 3
'''
P7 = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return NOLEN
        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]
        allowed = LENALLOWED & real[:, None, :]
        weights = WEIGHTS
        weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights @ v
'''
def p7(nolen='torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v', lenallowed="allowed",
       weights='torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)'):
    return P7.replace("NOLEN", nolen).replace("LENALLOWED", lenallowed).replace("WEIGHTS", weights)

SUBMISSIONS = [
    {"name": "sw_p1_V_distance_floored_at_tiny", "correct": False,
     "cells": {"raw_scores": P1.replace("FLOOR", "torch.finfo(torch.float64).tiny")},
     "why": "V: squared distances floored at float64's tiny ('make 0 only what lies below 0'); off by more than the "
            "allowance where the entries are near 1e-150"},
    {"name": "sw_p1_V_distance_floored_at_1e-300", "correct": False,
     "cells": {"raw_scores": P1.replace("FLOOR", "1e-300")}, "why": "V: squared distances floored at 1e-300"},
    {"name": "sw_p2_V_temperature_floored", "correct": False,
     "cells": {"softmax_backward": P2.replace("TAU", "temperature = max(temperature, 1e-9)").replace("WEIGHTS", "weights")},
     "why": "V: the temperature floored at 1e-9 ('of any size ... floor nothing')"},
    {"name": "sw_p2_V_temperature_floored_1e-30", "correct": False,
     "cells": {"softmax_backward": P2.replace("TAU", "temperature = max(temperature, 1e-30)").replace("WEIGHTS", "weights")},
     "why": "V: the temperature floored at 1e-30"},
    {"name": "sw_p2_V_weights_floored", "correct": False,
     "cells": {"softmax_backward": P2.replace("TAU", "pass").replace("WEIGHTS", "weights.clamp_min(1e-300)")},
     "why": "V: weights floored at 1e-300 (a weight exactly 0 must get exactly 0)"},
    {"name": "sw_p2_W_complement_diagonal", "correct": True, "cells": {"softmax_backward": P2_DIAG},
     "why": "W, allowed: the Jacobian's diagonal w(1 - w) through the complement; the text allows any formula from "
            "the Jacobian, and 1 - w_j multiplies w_j g_j (where 1 - w_j rounds to 0, w_j * others carries the rest)"},
    {"name": "sw_p5_V_total_eps", "correct": True,
     "cells": {"masked_attention": p5(weights="e / (total + 1e-30)")},
     "why": "V, equivalent: the shifted sum is at least 1 where a key is allowed; 0/1e-30 = 0 where none is"},
    {"name": "sw_p5_V_allowed_exp_floored", "correct": False,
     "cells": {"masked_attention": p5(exp="torch.where(allowed, torch.exp(scores - top).clamp_min(torch.finfo(q.dtype).tiny), 0.0)")},
     "why": "V: allowed keys' exponentials floored at tiny ('clamp nothing'): a weight that is exactly 0 becomes tiny"},
    {"name": "sw_p5_X_exp_minus_lse_for_shared_mask", "correct": False,
     "cells": {"masked_attention": p5(weights="torch.exp(scores - lse[..., None]) if allowed.dim() == 2 else e / torch.where(total > 0, total, torch.ones_like(total))")},
     "why": "X: the divide-by-the-sum rule only on the per-example mask path, exp(scores - lse) for a shared (T, S) mask"},
    {"name": "sw_p6_V_variance_floored_tiny", "correct": False,
     "cells": {"variance_experiment": P6.replace("RET", "max(dots.var().item(), torch.finfo(torch.float64).tiny)")},
     "why": "V: the variance floored at float64's tiny ('floor nothing')"},
    {"name": "sw_p6_V_variance_floored_1e-300", "correct": False,
     "cells": {"variance_experiment": P6.replace("RET", "max(dots.var().item(), 1e-300)")},
     "why": "V: the variance floored at 1e-300"},
    {"name": "sw_p6_scale_squared_after", "correct": True, "cells": {"variance_experiment": P6_SQ},
     "why": "scale**2 times the variance of the unscaled dots: allowed (float64 Python arithmetic)"},
    {"name": "sw_p7_X_seed_scale_without_lengths", "correct": False,
     "cells": {"fixed_self_attention": p7(nolen='torch.softmax((q @ k.transpose(-2, -1) * self.scale).masked_fill(~allowed, float("-inf")), dim=-1) @ v')},
     "why": "X: the scale fixed on the padded path only"},
    {"name": "sw_p7_X_causal_only_without_lengths", "correct": False,
     "cells": {"fixed_self_attention": p7(lenallowed="torch.ones(t, t, dtype=torch.bool)")},
     "why": "X: the causal mask on the unpadded path only"},
    {"name": "sw_p7_X_finite_fill_with_lengths", "correct": False,
     "cells": {"fixed_self_attention": p7(weights="torch.softmax(scores.masked_fill(~allowed, -1e9), dim=-1)")},
     "why": "X: -inf on the unpadded path, -1e9 on the padded one"},
    {"name": "sw_p7_V_denominator_eps", "correct": True,
     "cells": {"fixed_self_attention": p7(weights='(lambda s: (lambda e: e / (e.sum(-1, keepdim=True) + 1e-30))(torch.exp(s - torch.where(torch.isinf(s.amax(-1, keepdim=True)), 0.0, s.amax(-1, keepdim=True)))))(scores.masked_fill(~allowed, float("-inf")))')},
     "why": "V, equivalent: + 1e-30 to a shifted sum of at least 1 (0 where no key is allowed) changes no bit"},
]

# other formulas the text allows, checked against the new cases, and one more V variant
P1_LOOP = '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    rows = [-((a[..., i:i + 1, :] - b) ** 2).sum(dim=-1) for i in range(a.shape[-2])]
    return torch.stack(rows, dim=-2).to(q.dtype)
'''
P1_SCALED = '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    m = torch.maximum(a.abs().amax(), b.abs().amax())
    m = torch.where(m > 0, m, torch.ones_like(m))
    a, b = a / m, b / m
    d = a.square().sum(-1, keepdim=True) + b.square().sum(-1).unsqueeze(-2) - 2 * a @ b.transpose(-2, -1)
    return (-(d.clamp(min=0)) * m * m).to(q.dtype)
'''
P1_INPUT_TINY = P1.replace("FLOOR", "torch.finfo(q.dtype).tiny")
P2_SPLIT = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    inner = torch.einsum("...s,...s->...", weights, grad_weights)[..., None]
    return (weights * grad_weights - weights * inner) * (1.0 / temperature)
'''
SUBMISSIONS += [
    {"name": "alt_p1_loop", "correct": True, "cells": {"raw_scores": P1_LOOP}},
    {"name": "alt_p1_scaled", "correct": True, "cells": {"raw_scores": P1_SCALED}},
    {"name": "sw_p1_V_floor_input_tiny", "correct": False, "cells": {"raw_scores": P1_INPUT_TINY}},
    {"name": "alt_p2_split", "correct": True, "cells": {"softmax_backward": P2_SPLIT}},
    {"name": "alt_p5_log_softmax", "correct": True, "cells": {"masked_attention": p5(weights="torch.where(total > 0, torch.log_softmax(scores, dim=-1).exp(), 0.0)")}},
    {"name": "alt_p5_float64_inside", "correct": True, "cells": {"masked_attention": p5(weights="(e.double() / torch.where(total > 0, total, torch.ones_like(total)).double()).to(q.dtype)")}},
    {"name": "alt_p5_divide_after", "correct": True, "cells": {"masked_attention": p5(weights="e").replace("return weights @ v, lse", "return (weights @ v) / torch.where(total > 0, total, torch.ones_like(total)), lse")}},
]
