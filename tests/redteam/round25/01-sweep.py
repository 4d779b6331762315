# Red team round 25, class sweep, chapter 01 (rnn-motivation): classes K-P put into the model answer of every part
# where they apply, one variant at a time (tests/redteam/round25/BRIEF-SWEEP.md).

LEAKY = '''
def leaky_step_jacobian(x, h, p, leak):
    candidate = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    slope = {slope} * (1 - candidate ** 2)
    keep = {keep}
    return slope[:, :, None] * p["W_hh"] + keep
'''

UNROLL = '''
STEPS = torch.arange(1 << 10)  # step numbers, made once

def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    inside_all = STEPS[None, :t] < lengths[:, None]   # (B, T): real tokens
    outputs = [None] * t
    for step in reversed(range(t)):
        inside = inside_all[:, step, None]
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h
'''

NORMS = '''
{prelude}
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    h = torch.zeros(b, d_h, dtype=x.dtype)
    states = []
    for step in range(t):
        h = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    product = {identity}

    def frobenius(m):
{frobenius}

    norms = [frobenius(product).mean()]
    for s in range(t - 1, 0, -1):
        step_jacobian = (1 - states[s] ** 2)[:, :, None] * p["W_hh"]
        product = product @ step_jacobian
        norms.append(frobenius(product).mean())
    return torch.stack(norms)
'''
EYE_EXPAND = 'torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)'
FROB_MODEL = '''        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 0, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top'''

DECODER = '''
def coverage_decoder(x, h, allowed, s0, p):
    b, t, _ = x.shape
    keys = h @ p["W_k"].T
    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)
    state, states, weights = s0, [], []
    for step in range(t):
        query = state @ p["W_q"].T
        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])
        scores = hidden @ p["v"]
{weights}
        context = (alpha[:, :, None] * h).sum(dim=1)
        step_input = torch.cat([x[:, step], context], dim=-1)
        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
        states.append(state)
        weights.append(alpha)
        coverage = coverage + alpha
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''

SUBMISSIONS = [
    # ---------------------------------------------------------------- K: finfo(dtype).min filled in (Part 6 only)
    {"name": "K-p6-fill-finfo-min", "correct": False,
     "cells": {"additive": DECODER.format(weights='''        alpha = torch.softmax(scores.masked_fill(~allowed, torch.finfo(x.dtype).min), dim=-1)''')},
     "why": "K, Part 6 (closed there in round 25): finfo.min filled at the padding ties with a real score at exactly that value."},
    # ---------------------------------------------------------------- L: a table made once, sliced per call
    {"name": "L-p1-identity-table-1024", "correct": False,
     "cells": {"rnn_step": "EYE = torch.eye(1 << 10)  # made once\n" + LEAKY.format(
         slope="leak", keep="EYE[: h.shape[-1], : h.shape[-1]].to(x.dtype) * (1 - leak)[:, None]")},
     "why": "L, Part 1: an identity table of 1024 rows made once; the text bounds no D_h (fails past D_h = 1024)."},
    {"name": "L-p4-step-table-1024", "correct": False,
     "cells": {"rnn_unroll": UNROLL},
     "why": "L, Part 4: step numbers from a table of 1024 made once; the text asks sequences of more than a thousand steps "
            "and bounds no T."},
    {"name": "L-p5-identity-table-1024", "correct": False,
     "cells": {"gradient_norms": NORMS.format(prelude="EYE = torch.eye(1 << 10)  # made once",
                                             identity="EYE[:d_h, :d_h].to(x.dtype).expand(b, d_h, d_h)",
                                             frobenius=FROB_MODEL)},
     "why": "L, Part 5: an identity table of 1024 rows made once; the text bounds no D_h."},
    # ---------------------------------------------------------------- M: an absolute slack under a tiny threshold
    {"name": "M-p1-rates-below-1e-12-snapped-to-0", "correct": False,
     "cells": {"rnn_step": LEAKY.format(slope="torch.where(leak > 1e-12, leak, torch.zeros_like(leak))",
                                        keep="torch.diag(torch.where(leak > 1e-12, 1 - leak, torch.ones_like(leak)))")},
     "why": "M, Part 1: rates below 1e-12 snapped to 0 (so that 'every rate 0 gives exactly the identity'); a rate of "
            "1e-13 then has no gradient and a J off by 1e-13 W: 'rates in [0, 1]', gradients w.r.t. leak."},
    {"name": "M-p5-top-guard-slack-1e-30", "correct": False,
     "cells": {"gradient_norms": NORMS.format(prelude="", identity=EYE_EXPAND, frobenius='''        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 1e-30, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top''')},
     "why": "M, Part 5: the guard for an all-zero product given a slack (top > 1e-30): products below 1e-30 are not "
            "scaled and their squares underflow ('floor no norm', norms of 1e-180)."},
    {"name": "M-p5-top-guard-slack-1e-200", "correct": False,
     "cells": {"gradient_norms": NORMS.format(prelude="", identity=EYE_EXPAND, frobenius='''        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 1e-200, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top''')},
     "why": "M, Part 5: the same with a slack of 1e-200: products whose largest entry is below 1e-200 are not scaled "
            "(norms of any size: 'scale the product there, whatever the dtype')."},
    # ---------------------------------------------------------------- O: other formulas the text allows
    {"name": "O-p2-ratio-as-sum-of-terms", "correct": True,
     "cells": {"costs": "n, d = 4096, 512\nattention_over_lstm = 4 / 8 + 2 * n / (8 * d)\n"
                        "equal_cost_length = (8 - 4) * 768 / 2  # 4 n d^2 + 2 n^2 d = 8 n d^2: 2 n = 4 d, solved via a division\n"},
     "why": "O, Part 2: the ratio as a sum of two quotients. (Graded first with equal_cost_length = 768 * 8 / 4 - 768 = "
            "768, an algebra slip of the sweep's own: corrected after 01-sweep.txt.)"},
    {"name": "O-p5-frobenius-times-reciprocal", "correct": True,
     "cells": {"gradient_norms": NORMS.format(prelude="", identity=EYE_EXPAND, frobenius='''        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 0, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m * (1.0 / top.to(torch.float64)).to(m.dtype)[:, None, None]) * top''')},
     "why": "O, Part 5: scaled by the reciprocal of the largest entry (taken in float64 so it cannot overflow) instead of "
            "a division."},
    {"name": "O-p5-frobenius-power-of-two-scale", "correct": True,
     "cells": {"gradient_norms": NORMS.format(prelude="", identity=EYE_EXPAND, frobenius='''        top = m.abs().amax(dim=(1, 2))
        _, exponent = torch.frexp(torch.where(top > 0, top, torch.ones_like(top)))
        scale = torch.ldexp(torch.ones_like(top), -exponent)  # an exact power of two near 1 / top
        return (m * scale[:, None, None]).square().sum(dim=(1, 2)).sqrt() / scale''')},
     "why": "O, Part 5: an exact power-of-two scale (frexp/ldexp), sqrt of the sum of squares, divided back."},
    {"name": "O-p5-frobenius-vector-norm-of-rows", "correct": True,
     "cells": {"gradient_norms": NORMS.format(prelude="", identity=EYE_EXPAND, frobenius='''        top = m.abs().amax(dim=(1, 2), keepdim=True)
        top = torch.where(top > 0, top, torch.ones_like(top))
        return torch.linalg.vector_norm(m / top, dim=(1, 2)) * top[:, 0, 0]''')},
     "why": "O, Part 5: vector_norm over both axes of the scaled product."},
    {"name": "O-p6-softmax-times-reciprocal-of-sum", "correct": True,
     "cells": {"additive": DECODER.format(weights='''        scores = scores.masked_fill(~allowed, float("-inf"))
        e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
        alpha = e * (1.0 / e.sum(dim=-1, keepdim=True))''')},
     "why": "O, Part 6: the softmax written out, multiplied by the reciprocal of the sum."},
    {"name": "O-p6-softmax-exp-minus-logsumexp", "correct": True,
     "cells": {"additive": DECODER.format(weights='''        scores = scores.masked_fill(~allowed, float("-inf"))
        alpha = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))''')},
     "why": "O, Part 6: exp(e - logsumexp(e))."},
    {"name": "O-p6-softmax-float64-division", "correct": True,
     "cells": {"additive": DECODER.format(weights='''        z = scores.to(torch.float64).masked_fill(~allowed, float("-inf"))
        e = torch.exp(z - z.amax(dim=-1, keepdim=True))
        alpha = (e / e.sum(dim=-1, keepdim=True)).to(x.dtype)''')},
     "why": "O, Part 6: the softmax in float64 and cast back (allowed by the introduction)."},
]
