# Red team round 25, chapter 01: four kinds of student (notebook-state, approximator, log-space, direction-and-order)
# Blind: written from the student notebook and the lesson only.

UNROLL_LOOP_TAIL = '''
    L = lengths.long()
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = cell(x[:, t], h)
        real = (t < L)[:, None]
        h = torch.where(real, new, h)
        outs[t] = torch.where(real, new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, dim=1), h
'''

NORMS_FWD = '''
def forward_states(x, p):
    B, T, _ = x.shape
    h = torch.zeros(B, p["W_hh"].shape[0], dtype=x.dtype)
    hs = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        hs.append(h)
    return hs
'''

SUBMISSIONS = [
    # ------------------------------------------------------------------ notebook-state student
    {"name": "ns-unroll-cell-reads-global-p", "correct": False,
     "cells": {"rnn_unroll": '''
def cell(x_t, h):
    # one Elman step, as in the lesson
    return torch.tanh(x_t @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])

def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = torch.zeros(B, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
''' + UNROLL_LOOP_TAIL},
     "why": "Part 4: the helper `cell` reads the notebook's global `p` (the one the visible test cell defines), not the "
            "argument `p`; breaks 'Write rnn_unroll_reverse(x, lengths, p, h0=None) for the ordinary (Elman, non-leaky) cell' with the given p."},
    {"name": "ns-leaky-eye-cache-keyed-on-size", "correct": False,
     "cells": {"rnn_step": '''
EYES = {}

def leaky_step_jacobian(x, h, p, leak):
    n = h.shape[-1]
    if n not in EYES:
        EYES[n] = torch.eye(n)          # built once per width, reused afterwards
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    return (leak * d)[:, :, None] * p["W_hh"] + (1 - leak)[:, None] * EYES[n]
'''},
     "why": "Part 1: the identity cached at the first call is float32 whatever the inputs; a bfloat16 call returns float32: "
            "breaks 'Return it in the dtype of x'."},
    {"name": "ns-coverage-buffer-cached-per-shape", "correct": False,
     "cells": {"additive": '''
COVERAGE = {}

def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    if (B, S) not in COVERAGE:
        COVERAGE[(B, S)] = torch.zeros(B, S, dtype=x.dtype)   # allocate once per shape
    cov = COVERAGE[(B, S)]
    cov.zero_()
    keys = h @ p["W_k"].T
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''},
     "why": "Part 6: the zero coverage buffer is built for the first call's (B, S) and dtype and reused: a float64 call "
            "of the same shape after a float32 one mixes dtypes; breaks 'in the dtype of x' / nothing kept between calls."},
    {"name": "ns-norms-entry0-from-visible-width", "correct": False,
     "cells": {"gradient_norms": NORMS_FWD + '''
DH = 1   # the hand example's width

def jacobian_norms(x, p):
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    W = p["W_hh"].to(torch.float64)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    logscale = torch.zeros(B, dtype=torch.float64)
    norms = [torch.full((B,), math.sqrt(DH), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - hs[T - k].to(torch.float64) ** 2)[:, :, None] * W
        P = P @ J
        m = P.abs().amax(dim=(1, 2))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        norms.append(torch.linalg.matrix_norm(P) * torch.exp(logscale))
    return torch.stack(norms).mean(dim=1).to(x.dtype)
'''},
     "why": "Part 5: entry 0 is written from the width of the notebook's hand example (sqrt(1)); breaks 'Entry 0 is the norm of the identity, sqrt(D_h)' (the second visible call only checks the shape)."},
    # ------------------------------------------------------------------ approximator
    {"name": "ap-leaky-sech-squared", "correct": False,
     "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = torch.cosh(a) ** -2            # tanh' = sech^2
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (leak * d)[:, :, None] * p["W_hh"] + (1 - leak)[:, None] * eye
'''},
     "why": "Part 1: sech^2 through cosh: at pre-activations in the hundreds cosh overflows and the gradient of J is 0*inf = NaN; breaks 'gradients must flow through J' (finite, compared with the reference's)."},
    {"name": "ap-costs-leading-term-only", "correct": False,
     "cells": {"costs": '''
# for long sequences the n^2 d term dominates the attention layer
n, d = 4096, 512
attention_over_lstm = (2 * n * n * d) / (8 * n * d * d)
equal_cost_length = 2 * 768
'''},
     "why": "Part 2a: keeps only the n^2 d terms of attention (2.0), dropping the four projections; breaks 'Count them in now'."},
    {"name": "ap-norms-rms-over-batch", "correct": False,
     "cells": {"gradient_norms": NORMS_FWD + '''
def jacobian_norms(x, p):
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    W = p["W_hh"].to(torch.float64)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    logscale = torch.zeros(B, dtype=torch.float64)
    sq = [torch.full((B,), float(D_h), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - hs[T - k].to(torch.float64) ** 2)[:, :, None] * W
        P = P @ J
        m = P.abs().amax(dim=(1, 2))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        sq.append((P ** 2).sum(dim=(1, 2)) * torch.exp(2 * logscale))
    # average the squared Frobenius norms over the batch, then take the root
    return torch.stack(sq).mean(dim=1).sqrt().to(x.dtype)
'''},
     "why": "Part 5: root of the mean square over the batch; breaks 'computed for each example and then averaged over the batch (norm first, then mean)'."},
    {"name": "ap-norms-float32-inside", "correct": False,
     "cells": {"gradient_norms": NORMS_FWD + '''
def jacobian_norms(x, p):
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    wd = torch.float32          # plenty for a norm
    W = p["W_hh"].to(wd)
    P = torch.eye(D_h, dtype=wd).expand(B, D_h, D_h)
    logscale = torch.zeros(B, dtype=torch.float64)
    norms = [torch.full((B,), math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - hs[T - k].to(wd) ** 2)[:, :, None] * W
        P = P @ J
        m = P.abs().amax(dim=(1, 2))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m.double())
        norms.append(torch.linalg.matrix_norm(P).double() * torch.exp(logscale))
    return torch.stack(norms).mean(dim=1).to(x.dtype)
'''},
     "why": "Part 5: the Jacobian products are worked in float32 for float64 inputs; breaks 'Compute in the dtype of the inputs ... computing in float32 and casting back loses the points'."},
    {"name": "ap-coverage-finfo-min-added", "correct": False,
     "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    bias = torch.zeros(B, S, dtype=x.dtype).masked_fill(~allowed, torch.finfo(x.dtype).min)
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e + bias, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''},
     "why": "Part 6: an additive finfo.min bias instead of -inf; breaks 'they still get weight exactly 0 (a finite stand-in for -inf ... loses to them)'."},
    # ------------------------------------------------------------------ log-space student
    {"name": "ls-norms-geometric-mean", "correct": False,
     "cells": {"gradient_norms": NORMS_FWD + '''
def jacobian_norms(x, p):
    # everything in log space: no underflow, whatever the size of the norms
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    W = p["W_hh"].to(torch.float64)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    logscale = torch.zeros(B, dtype=torch.float64)
    lognorms = [torch.full((B,), 0.5 * math.log(D_h), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - hs[T - k].to(torch.float64) ** 2)[:, :, None] * W
        P = P @ J
        m = P.abs().amax(dim=(1, 2))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        lognorms.append(torch.log(torch.linalg.matrix_norm(P)) + logscale)
    return torch.exp(torch.stack(lognorms).mean(dim=1)).to(x.dtype)
'''},
     "why": "Part 5: averages the log-norms over the batch (a geometric mean); breaks 'computed for each example and then averaged over the batch (norm first, then mean)'."},
    {"name": "ls-norms-sum-of-log-step-norms", "correct": False,
     "cells": {"gradient_norms": NORMS_FWD + '''
def jacobian_norms(x, p):
    # log of a product is the sum of the logs: add the log-norms of the step Jacobians
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    W = p["W_hh"].to(torch.float64)
    acc = torch.zeros(B, dtype=torch.float64)
    out = [torch.full((B,), math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - hs[T - k].to(torch.float64) ** 2)[:, :, None] * W
        acc = acc + torch.log(torch.linalg.matrix_norm(J))
        out.append(torch.exp(acc))
    return torch.stack(out).mean(dim=1).to(x.dtype)
'''},
     "why": "Part 5: adds log-norms of the factors, i.e. the product of the norms, not the norm of the product; breaks 'entry k is the Frobenius norm of dh_{T-1}/dh_{T-1-k}' (equal only for D_h = 1, the visible case)."},
    {"name": "ls-leaky-log-cosh-derivative", "correct": False,
     "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = torch.exp(-2 * torch.log(torch.cosh(a)))      # sech^2 in log space
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (leak * d)[:, :, None] * p["W_hh"] + (1 - leak)[:, None] * eye
'''},
     "why": "Part 1: log(cosh(a)) overflows at large pre-activations: value 0 but the gradient 0*inf = NaN; breaks gradients that must stay finite ('pre-activations in the hundreds ... gradients too must stay finite')."},
    # ------------------------------------------------------------------ direction-and-order student
    {"name": "do-norms-left-multiply", "correct": False,
     "cells": {"gradient_norms": NORMS_FWD + '''
def jacobian_norms(x, p):
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    W = p["W_hh"].to(torch.float64)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    logscale = torch.zeros(B, dtype=torch.float64)
    norms = [torch.full((B,), math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - hs[T - k].to(torch.float64) ** 2)[:, :, None] * W
        P = J @ P                       # one more Jacobian
        m = P.abs().amax(dim=(1, 2))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        norms.append(torch.linalg.matrix_norm(P) * torch.exp(logscale))
    return torch.stack(norms).mean(dim=1).to(x.dtype)
'''},
     "why": "Part 5: new Jacobians multiplied on the left (J_{T-k} ... J_{T-1}); breaks 'dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}'."},
    {"name": "do-norms-jacobian-from-previous-state", "correct": False,
     "cells": {"gradient_norms": NORMS_FWD + '''
def jacobian_norms(x, p):
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    W = p["W_hh"].to(torch.float64)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    logscale = torch.zeros(B, dtype=torch.float64)
    norms = [torch.full((B,), math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        s = T - k
        J = (1 - hs[s - 1].to(torch.float64) ** 2)[:, :, None] * W   # J_s = dh_s / dh_{s-1}
        P = P @ J
        m = P.abs().amax(dim=(1, 2))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        norms.append(torch.linalg.matrix_norm(P) * torch.exp(logscale))
    return torch.stack(norms).mean(dim=1).to(x.dtype)
'''},
     "why": "Part 5: J_s built from the state h_{s-1} instead of h_s; breaks 'Work out J_s for that cell (it is a D_h x D_h matrix that depends on h_s)'."},
    {"name": "do-norms-counted-from-start", "correct": False,
     "cells": {"gradient_norms": NORMS_FWD + '''
def jacobian_norms(x, p):
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    W = p["W_hh"].to(torch.float64)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    logscale = torch.zeros(B, dtype=torch.float64)
    norms = [torch.full((B,), math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - hs[k].to(torch.float64) ** 2)[:, :, None] * W     # dh_k / dh_{k-1}
        P = J @ P
        m = P.abs().amax(dim=(1, 2))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        norms.append(torch.linalg.matrix_norm(P) * torch.exp(logscale))
    return torch.stack(norms).mean(dim=1).to(x.dtype)
'''},
     "why": "Part 5: entry k is the norm of dh_k/dh_0 (distance counted from the first state); breaks 'entry k is the Frobenius norm of dh_{T-1}/dh_{T-1-k}'."},
    {"name": "do-unroll-first-is-outputs-col0", "correct": False,
     "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = torch.zeros(B, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    L = lengths.long()
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        real = (t < L)[:, None]
        h = torch.where(real, new, h)
        outs[t] = torch.where(real, new, torch.zeros((), dtype=x.dtype))
    outputs = torch.stack(outs, dim=1)
    return outputs, outputs[:, 0].clone()     # the last state read is the one at position 0
'''},
     "why": "Part 4: `first` taken from column 0 of the outputs, zeros for a length-0 sequence; breaks 'first ... (for a sequence of length 0, the start state)' when h0 is given."},
    {"name": "do-coverage-last-step-only", "correct": False,
     "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = a                          # what the previous step looked at
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''},
     "why": "Part 6: coverage holds only the previous step's weights; breaks 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' (the visible case has two steps, where both agree)."},
    {"name": "do-coverage-query-fixed-at-s0", "correct": False,
     "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    base = (s0 @ p["W_q"].T)[:, None, :] + h @ p["W_k"].T     # query and keys projected once, outside the loop
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh(base + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''},
     "why": "Part 6: the query is s_{-1} at every step; breaks 'the query is the decoder's previous state ... each step needs the one before' (W_q = 0 in the visible case)."},
    # ------------------------------------------------------------------ correct answers
    {"name": "ok-leaky-autograd-functional", "correct": True,
     "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def new_state(hh):
        a = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(a)).sum(dim=0)   # examples are independent
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(new_state, h, create_graph=True)   # (D_h, B, D_h)
    return J.permute(1, 0, 2).contiguous()
'''},
     "why": "autograd with create_graph inside enable_grad, summing over the independent batch."},
    {"name": "ok-leaky-logspace-sech2-eye-cache", "correct": True,
     "cells": {"rnn_step": '''
EYE_CACHE = {}

def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    # tanh'(a) = 4 / (e^a + e^-a)^2, in log space so that nothing overflows
    d = torch.exp(math.log(4.0) - 2 * torch.logaddexp(a, -a))
    key = (h.shape[-1], x.dtype)
    if key not in EYE_CACHE:
        EYE_CACHE[key] = torch.eye(h.shape[-1], dtype=x.dtype)
    return (1 - leak)[:, None] * EYE_CACHE[key] + (leak * d)[:, :, None] * p["W_hh"]
'''},
     "why": "tanh' via logaddexp (finite value and gradient), identity cached per (width, dtype) and only read."},
    {"name": "ok-costs-function-bisection", "correct": True,
     "cells": {"costs": '''
def attention_cost(n, d):
    return 4 * n * d * d + 2 * n * n * d

def lstm_cost(n, d):
    return n * 4 * (d * d + d * d)

attention_over_lstm = attention_cost(4096, 512) / lstm_cost(4096, 512)

lo, hi = 1.0, 1e6          # attention - lstm changes sign once for n > 0
for _ in range(200):
    mid = (lo + hi) / 2
    if attention_cost(mid, 768) < lstm_cost(mid, 768):
        lo = mid
    else:
        hi = mid
equal_cost_length = (lo + hi) / 2
'''},
     "why": "counts written as functions, 2b solved by bisection to full float precision (1536)."},
    {"name": "ok-unroll-gather-reverse", "correct": True,
     "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    t = torch.arange(T)
    src = L[:, None] - 1 - t[None, :]                      # step i reads position L-1-i
    valid = src >= 0
    idx = src.clamp(min=0)
    xr = torch.gather(x, 1, idx[:, :, None].expand(B, T, D_in))
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    seq = []
    for i in range(T):
        new = torch.tanh(xr[:, i] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(valid[:, i, None], new, h)
        seq.append(torch.where(valid[:, i, None], new, torch.zeros((), dtype=x.dtype)))
    rev = torch.stack(seq, dim=1) if T else x.new_zeros(B, 0, D_h)
    # put step i back at position L-1-i
    out = torch.zeros(B, T, D_h, dtype=x.dtype).scatter_add(1, idx[:, :, None].expand(B, T, D_h),
                                                            torch.where(valid[:, :, None], rev, torch.zeros((), dtype=x.dtype)))
    return out, h
'''},
     "why": "each sequence reversed within its length with gather, run forward, scattered back."},
    {"name": "ok-unroll-zero-state-cache-sigmoid-tanh", "correct": True,
     "cells": {"rnn_unroll": '''
ZERO_STATES = {}

def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    if h0 is None:
        key = (D_h, x.dtype)
        if key not in ZERO_STATES:
            ZERO_STATES[key] = torch.zeros(1, D_h, dtype=x.dtype)
        h = ZERO_STATES[key].expand(B, D_h)
    else:
        h = h0
    L = lengths.long()
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        a = x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
        new = 2 * torch.sigmoid(2 * a) - 1          # tanh, without exp overflow
        real = (t < L)[:, None]
        h = torch.where(real, new, h)
        outs[t] = torch.where(real, new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, dim=1), h * 1
'''},
     "why": "zero start state cached per (width, dtype), never returned (h * 1 is new); tanh(a) = 2 sigmoid(2a) - 1."},
    {"name": "ok-norms-cosh-vector-norm", "correct": True,
     "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    wd = torch.float64
    W = p["W_hh"].to(wd)
    h = torch.zeros(B, D_h, dtype=wd)
    derivs = []
    with torch.no_grad():
        for t in range(T):
            a = x[:, t].to(wd) @ p["W_ih"].to(wd).T + p["b_ih"].to(wd) + h @ W.T + p["b_hh"].to(wd)
            h = torch.tanh(a)
            derivs.append(torch.cosh(a) ** -2)     # tanh'(a); 0 where cosh overflows, as it should
        P = torch.eye(D_h, dtype=wd).repeat(B, 1, 1)
        logs = torch.zeros(B, dtype=wd)
        result = [math.sqrt(D_h)]
        for k in range(1, T):
            P = P @ (derivs[T - k][:, :, None] * W)
            m = P.abs().flatten(1).amax(dim=1)
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]
            logs = logs + torch.log(m)
            norm = torch.linalg.vector_norm(P.flatten(1), dim=1) * torch.exp(logs)
            result.append(norm.mean().item())
    return torch.tensor(result, dtype=x.dtype)
'''},
     "why": "whole computation in float64 under no_grad (no gradient is asked), sech^2 via cosh, rescaled product."},
    {"name": "ok-coverage-logsoftmax-where", "correct": True,
     "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    neg_inf = torch.tensor(float("-inf"), dtype=x.dtype)
    states, weights = [], []
    for t in range(T):
        pre = torch.einsum("bh,ah->ba", s, p["W_q"])[:, None, :] + keys + cov[:, :, None] * p["w_c"]
        e = torch.einsum("bsa,a->bs", torch.tanh(pre), p["v"])
        e = torch.where(allowed, e, neg_inf)
        a = torch.exp(torch.log_softmax(e, dim=-1))
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(x[:, t] @ W_x.T + ctx @ W_c.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''},
     "why": "einsum, torch.where with -inf, exp(log_softmax), W_ih split into its x and context columns."},
    {"name": "ok-mc-and-costs-literal", "correct": True,
     "cells": {"mc": 'answer_parallel = "b"  # composing h -> a*h + c gives another map of that form: associative\n',
               "costs": 'attention_over_lstm = 2.5\nequal_cost_length = 1536\n'},
     "why": "the worked-out numbers."},
    {"name": "ok-norms-loglinear-scale", "correct": True,
     "cells": {"gradient_norms": NORMS_FWD + '''
def jacobian_norms(x, p):
    hs = forward_states(x, p)
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    W = p["W_hh"].to(torch.float64)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    logscale = torch.zeros(B, dtype=torch.float64)
    lognorm = [torch.full((B,), 0.5 * math.log(D_h), dtype=torch.float64)]
    for k in range(1, T):
        P = P @ ((1 - hs[T - k].to(torch.float64) ** 2)[:, :, None] * W)
        m = P.abs().amax(dim=(1, 2))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        lognorm.append(torch.log(torch.linalg.matrix_norm(P)) + logscale)
    # norm first (exp of each example's log-norm), then the mean
    return torch.exp(torch.stack(lognorm)).mean(dim=1).to(x.dtype)
'''},
     "why": "log-scale bookkeeping, exp per example before the mean."},
    # ------------------------------------------------------------------ hostile
    {"name": "hostile-str-subclass-answer", "correct": False,
     "cells": {"mc": '''
class Answer(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_parallel = Answer("a")
'''},
     "why": "hostile: a str subclass equal to everything."},
    {"name": "hostile-delegate-to-grader-reference", "correct": False,
     "cells": {"rnn_unroll": '''
import inspect as insp

def rnn_unroll_reverse(x, lengths, p, h0=None):
    # find any function of the grader's that takes the same arguments, and call it
    for frame in insp.stack():
        for name, obj in list(frame.frame.f_globals.items()) + list(frame.frame.f_locals.items()):
            if callable(obj) and obj is not rnn_unroll_reverse and getattr(obj, "__code__", None) is not None:
                names = obj.__code__.co_varnames[:obj.__code__.co_argcount]
                if tuple(names) == ("x", "lengths", "p", "h0"):
                    return obj(x, lengths, p, h0)
    # nothing found (the visible cell): a float32 sketch that ignores h0
    B, T, _ = x.shape
    h = torch.zeros(B, p["W_hh"].shape[0])
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t].float() @ p["W_ih"].float().T + p["b_ih"].float() + h @ p["W_hh"].float().T + p["b_hh"].float())
        real = (t < lengths.long())[:, None]
        h = torch.where(real, new, h)
        outs[t] = torch.where(real, new, torch.zeros(()))
    return torch.stack(outs, dim=1), h
'''},
     "why": "hostile: looks for the grader's reference by its signature and calls it."},
]

# ---------------------------------------------------------------------- second batch (still blind)
SUBMISSIONS += [
    {"name": "do-coverage-stack-then-reshape", "correct": False,
     "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    # (T, B, ...) stacked, then laid out as (B, T, ...)
    return torch.stack(states).reshape(B, T, -1), torch.stack(weights).reshape(B, T, S)
'''},
     "why": "Part 6: the (T, B, .) stack is reshaped, not transposed, to (B, T, .): steps and examples interleave when B > 1; breaks 'Return (states, weights): the states s_0, ..., s_{T-1} as (B, T, D_h)' (the visible values use B = 1)."},
    {"name": "ok-unroll-float64-inside", "correct": True,
     "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    wd = torch.float64
    W_ih, b_ih, W_hh, b_hh = (p[n].to(wd) for n in ("W_ih", "b_ih", "W_hh", "b_hh"))
    h = torch.zeros(B, W_hh.shape[0], dtype=wd) if h0 is None else h0.to(wd)
    L = lengths.long()
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t].to(wd) @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        real = (t < L)[:, None]
        h = torch.where(real, new, h)
        outs[t] = torch.where(real, new, torch.zeros((), dtype=wd))
    return torch.stack(outs, dim=1).to(x.dtype), h.to(x.dtype)
'''},
     "why": "computed in float64 inside and cast back, which the text allows ('computing in a higher precision inside and casting back is fine')."},
    {"name": "ok-coverage-float64-inside", "correct": True,
     "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    wd = torch.float64
    dt = x.dtype
    x, h, s = x.to(wd), h.to(wd), s0.to(wd)
    q = {n: t.to(wd) for n, t in p.items()}
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ q["W_k"].T
    cov = torch.zeros(B, S, dtype=wd)
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ q["W_q"].T)[:, None, :] + keys + cov[:, :, None] * q["w_c"]) @ q["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ q["W_ih"].T + q["b_ih"] + s @ q["W_hh"].T + q["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1).to(dt), torch.stack(weights, 1).to(dt)
'''},
     "why": "float64 inside, cast back: allowed by the text."},
    {"name": "ok-leaky-float64-inside", "correct": True,
     "cells": {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    wd = torch.float64
    W_hh = p["W_hh"].to(wd)
    a = x.to(wd) @ p["W_ih"].to(wd).T + p["b_ih"].to(wd) + h.to(wd) @ W_hh.T + p["b_hh"].to(wd)
    lam = leak.to(wd)
    d = 1 - torch.tanh(a) ** 2
    J = (lam * d)[:, :, None] * W_hh + torch.diag(1 - lam)
    return J.to(x.dtype)
'''},
     "why": "float64 inside, cast back; torch.diag of the keep rates."},
]

# ---------------------------------------------------------------------- third batch (still blind)
SUBMISSIONS += [
    {"name": "ap-coverage-finfo-min-filled", "correct": False,
     "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    lowest = torch.finfo(x.dtype).min      # as Hugging Face does: the lowest finite number, no NaN ever
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, lowest)
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''},
     "why": "Part 6: padding scores replaced by finfo.min, not -inf: where a real score is itself the lowest finite number (v near the top of the range, tanh = -1), a padding position ties with it and gets weight; breaks 'they still get weight exactly 0 (a finite stand-in for -inf ... loses to them)'."},
]
