# Round 29 class sweep, chapter 1 (classes AF, AG, AH, AI). Each variant is the model answer with the smallest change
# that makes the class's mistake; "correct": True marks probes the text allows.
# AG is closed in Part 6 and AH in Parts 4 and 6 (README.md); AI has no place here (no 4-D input, no mask but Part 6's
# (B, S) one for 3-D h).

STEP = '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    {body}
'''
STEP_OK = '''candidate = torch.tanh(pre)
    slope = leak * (1 - candidate ** 2)
    keep = torch.diag(1 - leak)
    return slope[:, :, None] * p["W_hh"] + keep'''

NORMS = '''
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    h = torch.zeros(b, d_h, dtype=x.dtype)
    states, pres = [], []
    for step in range(t):
        a = x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
        h = torch.tanh(a)
        states.append(h)
        pres.append(a)
    product = torch.eye(d_h, dtype=x.dtype).expand(b, d_h, d_h)

    def frobenius(m):
        top = m.abs().amax(dim=(1, 2))
        top = torch.where(top > 0, top, torch.ones_like(top))
        return torch.linalg.matrix_norm(m / top[:, None, None]) * top

    def batch_mean(v):
        {mean}

    norms = [batch_mean(frobenius(product))]
    for s in range(t - 1, 0, -1):
        {slope}
        step_jacobian = slope[:, :, None] * p["W_hh"]
        product = product @ step_jacobian
        norms.append(batch_mean(frobenius(product)))
    return torch.stack(norms)
'''
MEAN_OK = "return v.mean()"
SLOPE_OK = "slope = 1 - states[s] ** 2"
# tanh' differentiated by hand from tanh written as sign(a) (1 - e) / (1 + e), e = exp(-2|a|): d|a|/da = sign(a), so
# the slope is sign(a)^2 * 4e / (1 + e)^2, right everywhere but at a = 0, where it is 0 (tanh'(0) = 1)
SLOPE_SIGN = "e = torch.exp(-2 * pres[s].abs())\n        slope = torch.sign(pres[s]) ** 2 * 4 * e / (1 + e) ** 2"

UNROLL = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    # the input projections of every step at once, in chunks of {c} steps
    pieces = []
    for a in range(0, {stop}, {c}):
        pieces.append(x[:, a:a + {c}] @ p["W_ih"].T + p["b_ih"])
    xw = torch.cat(pieces, dim=1)
    if xw.shape[1] < t:  # pad to T steps
        xw = torch.cat([xw, torch.zeros(b, t - xw.shape[1], xw.shape[2], dtype=xw.dtype)], dim=1)
    outputs = [None] * t
    for step in reversed(range(t)):
        inside = (step < lengths)[:, None]
        h_new = torch.tanh(xw[:, step] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(inside, h_new, h)
        outputs[step] = h * inside
    return torch.stack(outputs, dim=1), h
'''

DECODER = '''
def coverage_decoder(x, h, allowed, s0, p):
    b, t, _ = x.shape
    keys = h @ p["W_k"].T
    coverage = torch.zeros(b, h.shape[1], dtype=x.dtype)
    state, states, weights = s0, [], []
    for step in range(t):
        query = state @ p["W_q"].T
        hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])
        scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))
        {softmax}
        context = (alpha[:, :, None] * h).sum(dim=1)
        step_input = torch.cat([x[:, step], context], dim=-1)
        state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
        states.append(state)
        weights.append(alpha)
        coverage = coverage + alpha
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''
SHIFT0 = '''shift = scores.amax(dim=-1, keepdim=True).clamp(min=0)  # max(0, row max)
        e = torch.exp(scores - shift)
        alpha = e / e.sum(dim=-1, keepdim=True)'''
ONLINE = '''s_len = scores.shape[-1]
        m = torch.full((b, 1), {init}, dtype=scores.dtype)
        l = torch.zeros(b, 1, dtype=scores.dtype)
        for a in range(0, s_len, 8):  # the normaliser over blocks of 8 source positions
            piece = scores[:, a:a + 8]
            m_new = torch.maximum(m, piece.amax(dim=-1, keepdim=True))
            l = l * torch.exp(m - m_new) + torch.exp(piece - m_new).sum(dim=-1, keepdim=True)
            m = m_new
        alpha = torch.exp(scores - m) / l'''

SUBMISSIONS = [
    {"name": "AF-p6-shift-floored-at-0", "correct": False, "cells": {"additive": DECODER.format(softmax=SHIFT0)},
     "why": "real scores below -1e10: exp(score - 0) is 0 for every real key, 0/0"},
    {"name": "AF-p6-online-softmax-max-from-0", "correct": False,
     "cells": {"additive": DECODER.format(softmax=ONLINE.format(init="0.0"))},
     "why": "running maximum of the blocked normaliser started at 0"},
    {"name": "AF-p6-online-softmax-max-from-minus-inf", "correct": True,
     "cells": {"additive": DECODER.format(softmax=ONLINE.format(init='float("-inf")'))},
     "why": "the same blocked normaliser started at -inf: allowed (every row has a real key, so m is finite at the end)"},
    {"name": "AG-p4-projection-chunks-64-last-dropped", "correct": False,
     "cells": {"rnn_unroll": UNROLL.format(c=64, stop="max(t - t % 64, 1)")},
     "why": "input projections in chunks of 64 steps, the last shorter chunk left as zeros"},
    {"name": "AG-p4-projection-chunks-8-last-dropped", "correct": False,
     "cells": {"rnn_unroll": UNROLL.format(c=8, stop="max(t - t % 8, 1)")},
     "why": "input projections in chunks of 8 steps, the last shorter chunk left as zeros"},
    {"name": "AG-p4-projection-chunks-1024-last-dropped", "correct": False,
     "cells": {"rnn_unroll": UNROLL.format(c=1024, stop="max(t - t % 1024, 1)")},
     "why": "input projections in chunks of 1024 steps, the last shorter chunk left as zeros"},
    {"name": "AG-p4-projection-chunks-64-correct", "correct": True,
     "cells": {"rnn_unroll": UNROLL.format(c=64, stop="t")},
     "why": "every chunk read"},
    {"name": "AG-p1-column-blocks-64-last-zero", "correct": False,
     "cells": {"rnn_step": STEP.format(body='''slope = leak * (1 - torch.tanh(pre) ** 2)
    d = p["W_hh"].shape[0]
    stop = max(d - d % 64, 1)
    blocks = [slope[:, :, None] * p["W_hh"][:, a:a + 64] for a in range(0, stop, 64)]
    j = torch.cat(blocks, dim=2)
    if j.shape[2] < d:
        j = torch.cat([j, torch.zeros(j.shape[0], d, d - j.shape[2], dtype=j.dtype)], dim=2)
    return j + torch.diag(1 - leak)''')},
     "why": "J's columns built in blocks of 64, the last shorter block left as zeros (D_h past 1024)"},
    {"name": "AG-p5-batch-chunks-8-last-dropped", "correct": False,
     "cells": {"gradient_norms": NORMS.format(slope=SLOPE_OK,
        mean="n = v.shape[0]\n        return torch.cat([v[a:a + 8] for a in range(0, max(n - n % 8, 1), 8)]).mean()")},
     "why": "the batch mean over chunks of 8 examples, the last shorter chunk dropped"},
    {"name": "AG-p5-batch-chunks-8-correct", "correct": True,
     "cells": {"gradient_norms": NORMS.format(slope=SLOPE_OK,
        mean="n = v.shape[0]\n        return torch.cat([v[a:a + 8] for a in range(0, n, 8)]).mean()")},
     "why": "every chunk read"},
    {"name": "AH-p1-slope-from-sign-and-exp", "correct": False,
     "cells": {"rnn_step": STEP.format(body='''e = torch.exp(-2 * pre.abs())
    slope = leak * torch.sign(pre) ** 2 * 4 * e / (1 + e) ** 2  # d/da of sign(a) (1 - e) / (1 + e)
    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)''')},
     "why": "tanh' from tanh written with sign and exp: 0 at a pre-activation of exactly 0, where tanh' is 1"},
    {"name": "AH-p1-slope-from-exp-correct", "correct": True,
     "cells": {"rnn_step": STEP.format(body='''e = torch.exp(-2 * pre.abs())
    slope = leak * 4 * e / (1 + e) ** 2  # tanh'(a) = 4 e / (1 + e)^2, e = exp(-2|a|): no overflow
    return slope[:, :, None] * p["W_hh"] + torch.diag(1 - leak)''')},
     "why": "tanh' = 4e/(1+e)^2 with e = exp(-2|a|), exact at 0 too"},
    {"name": "AH-p5-slope-from-sign-and-exp", "correct": False,
     "cells": {"gradient_norms": NORMS.format(slope=SLOPE_SIGN, mean=MEAN_OK)},
     "why": "tanh' from tanh written with sign and exp: 0 at a pre-activation of exactly 0"},
    {"name": "AH-p5-slope-from-exp-correct", "correct": True,
     "cells": {"gradient_norms": NORMS.format(
        slope="e = torch.exp(-2 * pres[s].abs())\n        slope = 4 * e / (1 + e) ** 2", mean=MEAN_OK)},
     "why": "tanh' = 4e/(1+e)^2, exact at 0 too"},
]

# second pass: the batch in chunks (the first pass found Part 5's batch mean in chunks of 8 slipping)
SUBMISSIONS += [
    {"name": "AG-p1-batch-chunks-8-last-zero", "correct": False,
     "cells": {"rnn_step": STEP.format(body='''slope = leak * (1 - torch.tanh(pre) ** 2)
    n, d = pre.shape
    blocks = [slope[a:a + 8, :, None] * p["W_hh"] for a in range(0, max(n - n % 8, 1), 8)]
    j = torch.cat(blocks, dim=0)
    if j.shape[0] < n:
        j = torch.cat([j, torch.zeros(n - j.shape[0], d, d, dtype=j.dtype)], dim=0)
    return j + torch.diag(1 - leak)''')},
     "why": "J for the examples in chunks of 8, the last shorter chunk left as zeros"},
    {"name": "AG-p4-batch-chunks-8-last-zero", "correct": False,
     "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    h_all = torch.zeros(b, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    lengths = lengths.long()
    outs, firsts = [], []
    for a in range(0, max(b - b % 8, 1), 8):  # the batch in chunks of 8 sequences
        h = h_all[a:a + 8]
        xs, ls = x[a:a + 8], lengths[a:a + 8]
        outputs = [None] * t
        for step in reversed(range(t)):
            inside = (step < ls)[:, None]
            h_new = torch.tanh(xs[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            h = torch.where(inside, h_new, h)
            outputs[step] = h * inside
        outs.append(torch.stack(outputs, dim=1) if t else xs.new_zeros(xs.shape[0], 0, h.shape[1]))
        firsts.append(h)
    o, f = torch.cat(outs), torch.cat(firsts)
    if o.shape[0] < b:
        o = torch.cat([o, torch.zeros(b - o.shape[0], t, o.shape[2], dtype=o.dtype)])
        f = torch.cat([f, h_all[f.shape[0]:]])
    return o, f
'''},
     "why": "the batch unrolled in chunks of 8 sequences, the last shorter chunk's outputs left as zeros"},
]

# correct answers that work one example at a time, timed on the new batch cases
SUBMISSIONS += [
    {"name": "AG-p1-autograd-jacobian-per-example-correct", "correct": True,
     "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(xb, hb):
        return (1 - leak) * hb + leak * torch.tanh(xb @ p["W_ih"].T + p["b_ih"] + hb @ p["W_hh"].T + p["b_hh"])
    with torch.enable_grad():
        return torch.stack([torch.autograd.functional.jacobian(lambda hb: step(x[i], hb), h[i], create_graph=True)
                            for i in range(x.shape[0])])
'''}, "why": "autograd's Jacobian one example at a time, as the text allows"},
    {"name": "AG-p4-per-example-loop-correct", "correct": True,
     "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    b, t, _ = x.shape
    d = p["W_hh"].shape[0]
    outs, firsts = [], []
    for i in range(b):
        h = torch.zeros(d, dtype=x.dtype) if h0 is None else h0[i]
        n = int(lengths[i])
        row = [torch.zeros(d, dtype=x.dtype) for _ in range(t)]
        for step in range(n - 1, -1, -1):
            h = torch.tanh(x[i, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            row[step] = h
        outs.append(torch.stack(row))
        firsts.append(h if h0 is None or n > 0 else h.clone())
    if b == 0:
        return x.new_zeros(0, t, d), x.new_zeros(0, d)
    return torch.stack(outs), torch.stack(firsts)
'''}, "why": "one sequence at a time"},
    {"name": "AG-p5-per-example-loop-correct", "correct": True,
     "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    b, t, _ = x.shape
    d_h = p["W_hh"].shape[0]
    total = torch.zeros(t, dtype=x.dtype)
    for i in range(b):
        h = torch.zeros(d_h, dtype=x.dtype)
        states = []
        for step in range(t):
            h = torch.tanh(x[i, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            states.append(h)
        product = torch.eye(d_h, dtype=x.dtype)
        def fro(m):
            top = m.abs().max()
            top = top if top > 0 else torch.ones((), dtype=m.dtype)
            return torch.linalg.matrix_norm(m / top) * top
        norms = [fro(product)]
        for s in range(t - 1, 0, -1):
            product = product @ ((1 - states[s] ** 2)[:, None] * p["W_hh"])
            norms.append(fro(product))
        total = total + torch.stack(norms)
    return total / b
'''}, "why": "one example at a time, norms summed then divided by B"},
]

# third pass: Part 6's batch in chunks (its closure in README.md covered source blocks only)
SUBMISSIONS += [
    {"name": "AG-p6-batch-chunks-8-last-zero", "correct": False,
     "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    b, t, _ = x.shape
    def one(x, h, allowed, s0):
        bb = x.shape[0]
        keys = h @ p["W_k"].T
        coverage = torch.zeros(bb, h.shape[1], dtype=x.dtype)
        state, states, weights = s0, [], []
        for step in range(t):
            query = state @ p["W_q"].T
            hidden = torch.tanh(query[:, None, :] + keys + coverage[:, :, None] * p["w_c"])
            scores = (hidden @ p["v"]).masked_fill(~allowed, float("-inf"))
            alpha = torch.softmax(scores, dim=-1)
            context = (alpha[:, :, None] * h).sum(dim=1)
            step_input = torch.cat([x[:, step], context], dim=-1)
            state = torch.tanh(step_input @ p["W_ih"].T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
            states.append(state)
            weights.append(alpha)
            coverage = coverage + alpha
        return torch.stack(states, dim=1), torch.stack(weights, dim=1)
    outs = [one(x[a:a + 8], h[a:a + 8], allowed[a:a + 8], s0[a:a + 8]) for a in range(0, max(b - b % 8, 1), 8)]
    st, wt = torch.cat([o[0] for o in outs]), torch.cat([o[1] for o in outs])
    if st.shape[0] < b:
        st = torch.cat([st, torch.zeros(b - st.shape[0], *st.shape[1:], dtype=st.dtype)])
        wt = torch.cat([wt, torch.zeros(b - wt.shape[0], *wt.shape[1:], dtype=wt.dtype)])
    return st, wt
'''}, "why": "the batch in chunks of 8, the last shorter chunk left as zeros"},
]

# fourth pass: Part 5's product taken in column blocks (D_h past one block only in a T = 1 case)
SUBMISSIONS += [
    {"name": "AG-p5-product-column-blocks-64-last-zero", "correct": False,
     "cells": {"gradient_norms": NORMS.format(mean=MEAN_OK, slope=SLOPE_OK).replace(
        "        product = product @ step_jacobian\n",
        "        d = step_jacobian.shape[-1]\n"
        "        cols = [product @ step_jacobian[:, :, a:a + 64] for a in range(0, max(d - d % 64, 1), 64)]\n"
        "        new = torch.cat(cols, dim=2)\n"
        "        if new.shape[2] < d:\n"
        "            new = torch.cat([new, torch.zeros(*new.shape[:2], d - new.shape[2], dtype=new.dtype)], dim=2)\n"
        "        product = new\n")},
     "why": "the product's columns in blocks of 64, the last shorter block left as zeros"},
]
