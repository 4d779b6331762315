# Round 27 class sweep, chapter 01 (classes V, W, X of tests/redteam/round27/BRIEF-SWEEP.md): the model answer of
# each part with one class's mistake put in; "correct": True only where the text allows the answer.
P1_V_LEAK_FLOOR = '''
def leaky_step_jacobian(x, h, p, leak):
    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    rate = leak.clamp(min=1e-12)  # a rate of 0 would make the unit a constant
    slope = rate * (1 - candidate ** 2)
    keep = torch.diag(1 - leak)
    return slope[:, :, None] * p["W_hh"] + keep
'''
P5_V_TOP_FLOOR = '''
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    h = torch.zeros(b, d_h, dtype=x.dtype)
    states = []
    for step in range(t):
        h = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)

    def frobenius(m):
        top = m.abs().amax(dim=(1, 2)).clamp_min(torch.finfo(m.dtype).tiny)  # 0 / tiny is 0, and 0 * tiny is 0
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top

    norms = [frobenius(product).mean()]
    for s in range(t - 1, 0, -1):
        product = product @ ((1 - states[s] ** 2)[:, :, None] * p["W_hh"])
        norms.append(frobenius(product).mean())
    return torch.stack(norms)
'''
P6_BODY = '''
def coverage_decoder(x, h, allowed, s0, p):
    b, t, _ = x.shape
    keys = h @ p["W_k"].T
    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)
    state, states, weights = s0, [], []
    for step in range(t):
        query = state @ p["W_q"].T
        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])
        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))
        ALPHA
        context = (CTX[:, :, None] * h).sum(dim=1)
        step_input = torch.cat([x[:, step], context], dim=-1)
        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
        states.append(state)
        weights.append(alpha)
        coverage = coverage + COV
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''
def p6(alpha, ctx="alpha", cov="alpha"):
    return P6_BODY.replace("ALPHA", alpha).replace("CTX", ctx).replace("COV", cov)

P6_V_WEIGHT_FLOOR = p6("alpha = torch.softmax(scores, dim=-1).clamp_min(1e-30).masked_fill(~allowed, 0.0)  # no weight of 0 at a real word")
P6_V_WEIGHT_FLOOR_TINY = p6("alpha = torch.where(allowed, torch.softmax(scores, dim=-1).clamp_min(torch.finfo(x.dtype).tiny), 0.0)")
P6_V_DENOM_EPS = p6("e = torch.exp(scores - scores.amax(dim=-1, keepdim=True)); alpha = e / (e.sum(dim=-1, keepdim=True) + 1e-30)")
P6_W_LAST_AS_REST = p6("alpha = torch.softmax(scores, dim=-1); alpha = torch.cat([alpha[:, :-1], (1 - alpha[:, :-1].sum(dim=-1, keepdim=True)) * allowed[:, -1:]], dim=-1)")
P6_X_COVERAGE_UNMASKED = p6("alpha = torch.softmax(scores, dim=-1)",
                            cov="torch.softmax(hidden @ p['v'], dim=-1) * allowed")
P6_X_MASK_FIRST_STEP = p6("alpha = torch.softmax(scores if step == 0 else (hidden @ p['v']).masked_fill(~allowed, -1e9), dim=-1)")
P4_X_WAIT_OUTPUTS_ONLY = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    outputs = [None] * t
    first = h
    for step in reversed(range(t)):
        inside = (step < lengths)[:, None]
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h if h0 is None else torch.where((lengths > 0)[:, None], h, h0)
'''
SUBMISSIONS = [
    {"name": "sw_p1_V_leak_floored", "correct": False, "cells": {"rnn_step": P1_V_LEAK_FLOOR},
     "why": "V: the rates floored at 1e-12; a rate of 0 is in [0, 1] ('clamp nothing')"},
    {"name": "sw_p5_V_top_floored_at_tiny", "correct": True, "cells": {"gradient_norms": P5_V_TOP_FLOOR},
     "why": "V, equivalent: the scale floored at tiny only where the product is all zero (0 / tiny * tiny = 0)"},
    {"name": "sw_p6_V_real_weights_floored", "correct": False, "cells": {"additive": P6_V_WEIGHT_FLOOR},
     "why": "V: real weights floored at 1e-30 ('clamp nothing'); a real weight that underflows is exactly 0"},
    {"name": "sw_p6_V_real_weights_floored_tiny", "correct": False, "cells": {"additive": P6_V_WEIGHT_FLOOR_TINY},
     "why": "V: real weights floored at finfo.tiny"},
    {"name": "sw_p6_V_denominator_eps", "correct": True, "cells": {"additive": P6_V_DENOM_EPS},
     "why": "V, equivalent: the max-shifted sum is at least 1, so + 1e-30 changes no bit"},
    {"name": "sw_p6_W_last_weight_as_rest", "correct": False, "cells": {"additive": P6_W_LAST_AS_REST},
     "why": "W: the last source word's weight as 1 - sum of the others (a tiny last weight is lost)"},
    {"name": "sw_p6_X_coverage_from_unmasked", "correct": False, "cells": {"additive": P6_X_COVERAGE_UNMASKED},
     "why": "X: the mask on the returned weights but not on the coverage path"},
    {"name": "sw_p6_X_inf_mask_first_step_only", "correct": False, "cells": {"additive": P6_X_MASK_FIRST_STEP},
     "why": "X: -inf at the first step, -1e9 at later ones"},
    {"name": "sw_p4_X_first_h0_path", "correct": True, "cells": {"rnn_unroll": P4_X_WAIT_OUTPUTS_ONLY},
     "why": "X, equivalent: first taken from h0 where a sequence is empty (h waited there anyway)"},
]

# other formulas the text allows for Part 6's weights, checked against the new case (log space, float64 inside,
# logsumexp, a torch.where fill written out)
SUBMISSIONS += [
    {"name": "alt_p6_log_softmax", "correct": True, "cells": {"additive": p6("alpha = torch.log_softmax(scores, dim=-1).exp()")},
     "why": "allowed: exp of a log_softmax"},
    {"name": "alt_p6_float64_inside", "correct": True,
     "cells": {"additive": p6("alpha = torch.softmax(scores.double(), dim=-1).to(x.dtype)")}, "why": "allowed: float64 inside"},
    {"name": "alt_p6_where_written_out", "correct": True, "cells": {"additive": p6(
        "top = scores.amax(-1, keepdim=True); e = torch.exp(torch.where(allowed, scores - top, float('-inf'))); "
        "alpha = e / e.sum(-1, keepdim=True)")}, "why": "allowed: the softmax written out"},
]
