# Round 19 class sweep, chapter 01 (01-rnn-motivation): one variant of the model answer per class and part where
# the class applies (tests/redteam/round19/BRIEF-SWEEP.md). Classes that cannot apply: 01-sweep-verdicts.md.

P4_TEMPLATE = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    LENGTHS
    outputs = [None] * t
    for step in reversed(range(t)):
        inside = INSIDE
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h
'''


def p4(lengths_line, inside):
    return P4_TEMPLATE.replace("LENGTHS", lengths_line).replace("INSIDE", inside)


P5_TEMPLATE = '''
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
        FROBENIUS

    norms = [frobenius(product).mean()]
    for s in range(t - 1, 0, -1):
        step_jacobian = (1 - states[s] ** 2)[:, :, None] * p["W_hh"]
        product = product @ step_jacobian
        norms.append(frobenius(product).mean())
    return torch.stack(norms)
'''


def p5(body):
    return P5_TEMPLATE.replace("FROBENIUS", body)


P6_TEMPLATE = '''
def coverage_decoder(x, h, allowed, s0, p):
    b, t, _ = x.shape
    keys = h @ p["W_k"].T
    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)
    state, states, weights = s0, [], []
    for step in range(t):
        query = state @ p["W_q"].T
        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])
        e = hidden @ p["v"]
        SCORES
        context = (alpha[:, :, None] * h).sum(dim=1)
        step_input = torch.cat([x[:, step], context], dim=-1)
        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
        states.append(state)
        weights.append(alpha)
        coverage = coverage + alpha
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''


def p6(scores):
    return P6_TEMPLATE.replace("SCORES", scores)


SUBMISSIONS = [
    # ---------------- Part 4: rnn_unroll_reverse ----------------
    {"name": "p4-C-one-based-steps-in-x-dtype", "correct": False, "cells": {"rnn_unroll": p4(
        "lengths = lengths.to(x.dtype)",
        "(torch.tensor(step + 1, dtype=x.dtype) <= lengths)[:, None]")},
     "why": "C: steps counted from 1 and compared in the dtype of x: bfloat16 rounds 257 and 261 so that the 1-based count "
            "agrees, where the 0-based one (the case written for it) does not (text: 257 becomes 256)"},
    {"name": "p4-C-zero-based-steps-in-x-dtype", "correct": False, "cells": {"rnn_unroll": p4(
        "lengths = lengths.to(x.dtype)",
        "(torch.tensor(step, dtype=x.dtype) < lengths)[:, None]")},
     "why": "C: 0-based steps in the dtype of x (the existing case)"},
    {"name": "p4-C-remaining-in-x-dtype", "correct": False, "cells": {"rnn_unroll": p4(
        "lengths = lengths.to(x.dtype)",
        "(lengths - step > 0)[:, None]")},
     "why": "C: steps left to read, lengths - step, in the dtype of x"},
    {"name": "p4-D-lengths-to-uint8", "correct": False, "cells": {"rnn_unroll": p4(
        "lengths = lengths.to(torch.uint8).long()",
        "(step < lengths)[:, None]")},
     "why": "D: lengths narrowed to uint8 (257 wraps to 1)"},
    {"name": "p4-H-loop-to-the-longest", "correct": False, "cells": {"rnn_unroll": p4(
        "lengths = lengths.long(); longest = int(lengths.max())",
        "(step < lengths)[:, None]")},
     "why": "H: .max() of an empty batch (text: B = 0 too, lengths.max() has no value)"},
    # ---------------- Part 5: jacobian_norms ----------------
    {"name": "p5-B-norm-in-float64-unscaled", "correct": False, "cells": {"gradient_norms": p5(
        "return torch.linalg.matrix_norm(m.double()).to(m.dtype)")},
     "why": "B: Frobenius norm through squares in float64, as the text suggests for float32: float64 products with entries "
            "below 1e-162 (norms of any size) lose their digits"},
    {"name": "p5-B-top-through-squares", "correct": False, "cells": {"gradient_norms": p5(
        "top = (m * m).amax(dim=(1, 2)).sqrt()\n"
        "        top = torch.where(top > 0, top, torch.ones_like(top))\n"
        "        return torch.linalg.matrix_norm(m / top[:, None, None]) * top")},
     "why": "B: the largest entry taken as sqrt(max(m^2)), which underflows where the norm does"},
    {"name": "p5-B-vector-norm-scaled", "correct": True, "cells": {"gradient_norms": p5(
        "top = m.abs().amax(dim=(1, 2), keepdim=True)\n"
        "        top = torch.where(top > 0, top, torch.ones_like(top))\n"
        "        return (m / top).square().sum(dim=(1, 2)).sqrt() * top[:, 0, 0]")},
     "why": "B control (correct): divided by the largest entry first"},
    # ---------------- Part 6: coverage_decoder ----------------
    {"name": "p6-F-hf-additive-finfo-min", "correct": False, "cells": {"additive": p6(
        "scores = e + (~allowed).to(e.dtype) * torch.finfo(e.dtype).min\n"
        "        alpha = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)")},
     "why": "F: finfo(dtype).min added to the scores: a padding score near |lowest|/2 stays above real ones near lowest/2 "
            "(text: padding positions get weight 0 however far above their scores lie)"},
    {"name": "p6-F-finfo-min-filled", "correct": True, "cells": {"additive": p6(
        "scores = e.masked_fill(~allowed, torch.finfo(e.dtype).min)\n"
        "        alpha = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)")},
     "why": "F control (correct): finfo(dtype).min filled in, below every finite score of that dtype"},
    {"name": "p6-H-padding-at-the-end", "correct": False, "cells": {"additive": p6(
        "real = torch.arange(allowed.shape[1])[None, :] < allowed.sum(dim=-1, keepdim=True)\n"
        "        alpha = torch.softmax(e.masked_fill(~real, float('-inf')), dim=-1)")},
     "why": "H: padding assumed at the end of each row, rebuilt from the count of real tokens (text: a boolean (B, S) "
            "mask, nowhere says where padding sits)"},
]
