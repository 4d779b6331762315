# Red team round 30, chapter 01 (blind). Kinds: validator, batch-mixer, gradient-path, incremental, second-call.
SUBMISSIONS = []
def W(name, kind, cells, why): SUBMISSIONS.append({"name": f"{kind}:{name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why): SUBMISSIONS.append({"name": f"{kind}:{name}", "correct": True, "cells": cells, "why": why})
def H(name, cells, why): SUBMISSIONS.append({"name": f"hostile:{name}", "correct": False, "cells": cells, "why": why})

# ---------------------------------------------------------------- reference pieces (correct)
STEP = r'''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(pre)
    d = (1 - t) * (1 + t)
    eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
    return (1 - leak)[:, None] * eye + (leak[None, :] * d)[:, :, None] * p["W_hh"]
'''
UNROLL = r'''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    lengths = lengths.to(torch.long)
    outs = [None] * T
    for step in range(T - 1, -1, -1):
        running = (step < lengths)[:, None]
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(running, h_new, h)
        outs[step] = torch.where(running, h_new, torch.zeros_like(h_new))
    return torch.stack(outs, dim=1), h
'''
NORMS = r'''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    work = torch.float64
    W_ih, b_ih, W_hh, b_hh = (p[k].to(work) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    xw = x.to(work)
    D = W_hh.shape[0]
    h = xw.new_zeros(B, D)
    states = []
    for s in range(T):
        h = torch.tanh(xw[:, s] @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        states.append(h)
    P = torch.eye(D, dtype=work).expand(B, D, D)
    norms = []
    for k in range(T):
        if k > 0:
            d = 1 - states[T - k] ** 2
            P = (P * d[:, None, :]) @ W_hh
        m = P.abs().amax(dim=(-2, -1))
        safe = torch.where(m > 0, m, torch.ones_like(m))
        n = (P / safe[:, None, None]).pow(2).sum(dim=(-2, -1)).sqrt() * m
        norms.append(n.mean())
    return torch.stack(norms).to(x.dtype)
'''
DEC = r'''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]
    s = s0
    c = x.new_zeros(B, S)
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        alpha = torch.softmax(e, dim=-1)
        context = (alpha[:, :, None] * h).sum(dim=1)
        s = torch.tanh(x[:, t] @ W_x.T + context @ W_c.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + alpha
        states.append(s)
        weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''
def sub(src, old, new, count=1):
    assert src.count(old) == count, (old, src.count(old))
    return src.replace(old, new)

# ================================================================ WRONG: the validator
W("P4 refuses lengths > T compared in the lengths' own dtype", "validator", {"rnn_unroll": sub(UNROLL,
    '    lengths = lengths.to(torch.long)\n',
    '    if (lengths < 0).any() or (lengths > T).any():\n'
    '        raise ValueError("lengths must lie in [0, T]")\n'
    '    lengths = lengths.to(torch.long)\n')},
  "Part 4: 'lengths is a tensor (B,) of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than T: "
  "... a Python int compared with such a tensor, wrap around)': the check `lengths > T` on a uint8 tensor with T = 300 "
  "compares with 44 and refuses valid lengths such as 100.")
W("P4 clamps lengths to [0, T] in their own dtype", "validator", {"rnn_unroll": sub(UNROLL,
    '    lengths = lengths.to(torch.long)\n',
    '    lengths = lengths.clamp(0, T).to(torch.long)   # defensive: never read past the end\n')},
  "Part 4: lengths 'of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than T)': "
  "`uint8.clamp(0, 300)` raises (300 cannot be converted to uint8), int8 with T = 200 too.")
W("P5 refuses a sequence of one step", "validator", {"gradient_norms": sub(NORMS,
    '    B, T, _ = x.shape\n',
    '    B, T, _ = x.shape\n    if T < 2:\n        raise ValueError("need at least two steps to form a Jacobian product")\n')},
  "Part 5: 'return a (T,) tensor whose entry k ... Entry 0 is the norm of the identity' (and the intro's edge cases: "
  "'a sequence of length 1'): T = 1 is valid, the answer is [sqrt(D_h)].")
W("P6 asserts s0 is a tanh state in [-1, 1]", "validator", {"additive": sub(DEC,
    '    B, T, D_in = x.shape\n',
    '    B, T, D_in = x.shape\n    assert (s0.abs() <= 1).all(), "s0 must be a decoder state (a tanh output)"\n')},
  "Part 6: 's0 (B, D_h) the state before the first step': nothing bounds it (an initial state can come from a "
  "projection of the encoder); an s0 of randn refuses.")
W("P1 repairs the rates in place with clamp_", "validator", {"rnn_step": sub(STEP,
    '    pre = x',
    '    leak.clamp_(0, 1)   # rates must be probabilities\n    pre = x')},
  "Part 1: 'do not write into leak, not even the values it already holds (a leak.clamp_(0, 1) of rates in [0, 1])'.")

# ================================================================ WRONG: the batch-mixer
W("P4 sorts the batch by length (pack_padded habit), unsorts outputs but not first", "batch-mixer", {"rnn_unroll": r'''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.long)
    order = torch.argsort(L, descending=True, stable=True)
    back = torch.argsort(order)
    xs, Ls = x[order], L[order]
    h = h0[order] if h0 is not None else x.new_zeros(B, D_h)
    outs = [None] * T
    for step in range(T - 1, -1, -1):
        running = (step < Ls)[:, None]
        h_new = torch.tanh(xs[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(running, h_new, h)
        outs[step] = torch.where(running, h_new, torch.zeros_like(h_new))
    outputs = torch.stack(outs, dim=1)[back]
    return outputs, h
'''}, "Part 4: 'first (B, D_h): the state after reading x[b, 0]' for each sequence b: first stays in sorted order, so "
     "example b gets another example's state whenever the lengths are not already descending.")
W("P5 root-mean-square of the per-example norms", "batch-mixer", {"gradient_norms": sub(NORMS,
    '        n = (P / safe[:, None, None]).pow(2).sum(dim=(-2, -1)).sqrt() * m\n        norms.append(n.mean())\n',
    '        sq = (P / safe[:, None, None]).pow(2).sum(dim=(-2, -1)) * m * m\n        norms.append(sq.mean().sqrt())\n')},
  "Part 5: 'computed for each example and then averaged over the batch (norm first, then mean)': this takes the mean of "
  "the squared norms and then the root.")
W("P6 coverage kept as one (S,) vector shared by the batch", "batch-mixer", {"additive": sub(DEC,
    '        c = c + alpha\n', '        c = c + alpha.mean(dim=0, keepdim=True)\n')},
  "Part 6: 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' per example: one example's attention leaks into every other example's coverage.")
W("P6 subtracts the maximum of the whole batch before exp", "batch-mixer", {"additive": sub(DEC,
    '        alpha = torch.softmax(e, dim=-1)\n',
    '        ex = torch.exp(e - e.max())                  # stable softmax\n'
    '        alpha = ex / ex.sum(dim=-1, keepdim=True)\n')},
  "Part 6: 'alpha_t = softmax_j(e_t)' per example; 'x and the weights may hold values of any size': one example whose "
  "scores lie thousands below another's underflows to 0/0 = NaN.")
W("P1 autograd of the batch sum, reshaped instead of permuted", "batch-mixer", {"rnn_step": r'''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(pre)).sum(0)     # (D_h,): examples are independent
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True)   # (D_h, B, D_h)
    B, D = h.shape
    return J.reshape(B, D, D)
'''}, "Part 1: 'J[b, i, j] = d h'_{b,i} / d h_{b,j}': the jacobian of the sum is (D_h, B, D_h), indexed [i, b, j]; "
      "a reshape instead of a permute mixes rows of different examples (right only for B = 1).")

W("P4 loop bound from the longest sequence of the batch", "batch-mixer", {"rnn_unroll": r"""
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.long)
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    outputs = x.new_zeros(B, T, D_h)
    longest = int(L.max())                          # columns past the longest sequence are all padding
    for step in range(longest - 1, -1, -1):
        running = (step < L)[:, None]
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(running, h_new, h)
        outputs[:, step] = torch.where(running, h_new, torch.zeros_like(h_new))
    return outputs, h + 0
"""}, "Part 4: 'any B (an empty batch, B = 0, too, where lengths.max() has no value)': the batch-wide maximum raises there.")

# ================================================================ WRONG: the gradient-path student
W("P1 identity by torch.where where a rate is 0", "gradient-path", {"rnn_step": r'''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(pre)
    d = (1 - t) * (1 + t)
    eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
    full = (1 - leak)[:, None] * eye + (leak[None, :] * d)[:, :, None] * p["W_hh"]
    frozen = (leak == 0)[:, None]                     # a unit with rate 0 never changes: its row is exactly e_i
    return torch.where(frozen, eye, full)
'''}, "Part 1: 'the hidden tests compare its gradients with respect to every input (... and leak) ... also where every rate "
      "is 0 or 1 (a shortcut that returns a constant identity there has the right values but no gradient)'.")
W("P1 tanh' as 1/cosh^2", "gradient-path", {"rnn_step": sub(STEP,
    '    t = torch.tanh(pre)\n    d = (1 - t) * (1 + t)\n', '    d = 1 / torch.cosh(pre) ** 2\n')},
  "Part 1: 'x, h and the weights may hold values of any size (inputs near 1e6 ...)': cosh overflows at pre-activations "
  "past ~89 (float32): the value 1/inf = 0 is right but its gradient is NaN (intro: 'gradients too must stay finite there').")
W("P4 tanh written as 1 - 2/(exp(2a) + 1)", "gradient-path", {"rnn_unroll": sub(UNROLL,
    '        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])\n',
    '        a = x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]\n'
    '        h_new = 1 - 2 / (torch.exp(2 * a) + 1)\n')},
  "Part 4 / intro: 'pre-activations in the hundreds, where tanh is +-1 and a tanh written out with exp overflows, in its "
  "value or in its gradient (gradients too must stay finite there)': the value is right, the gradient is 0 * inf = NaN.")
W("P6 exp of the unmasked scores, masked with where afterwards", "gradient-path", {"additive": sub(DEC,
    '        e = e.masked_fill(~allowed, float("-inf"))\n        alpha = torch.softmax(e, dim=-1)\n',
    '        m = e.masked_fill(~allowed, float("-inf")).amax(dim=-1, keepdim=True)\n'
    '        ex = torch.where(allowed, torch.exp(e - m), torch.zeros_like(e))\n'
    '        alpha = ex / ex.sum(dim=-1, keepdim=True)\n')},
  "Part 6: 'padding scores can lie far above every real one (by thousands ...): they still get weight exactly 0 ... and no "
  "gradient may become NaN through them': exp(e - m) overflows to inf in where's untaken branch, whose backward is 0 * inf.")
W("P6 coverage accumulated detached", "gradient-path", {"additive": sub(DEC,
    '        c = c + alpha\n', '        c = c + alpha.detach()   # coverage is bookkeeping, not a model output\n')},
  "Part 6: 'Gradients must flow through states and weights ... compute them with autograd-tracked operations (no .detach() ...)': "
  "the coverage term's path from earlier weights to later scores is cut.")

# ================================================================ WRONG: the incremental student
W("P4 the state is reset to zero at padding steps", "incremental", {"rnn_unroll": sub(UNROLL,
    '        h = torch.where(running, h_new, h)\n        outs[step] = torch.where(running, h_new, torch.zeros_like(h_new))\n',
    '        h = torch.where(running, h_new, torch.zeros_like(h_new))\n        outs[step] = h\n')},
  "Part 4: 'For each sequence b, start from the state h0[b]': with an h0 given, the padding steps read before the real "
  "ones replace h0 by zeros, so the first real token is read from 0.")
W("P4 first taken from outputs[:, 0]", "incremental", {"rnn_unroll": sub(UNROLL,
    '    return torch.stack(outs, dim=1), h\n', '    outputs = torch.stack(outs, dim=1)\n    return outputs, outputs[:, 0].clone()\n')},
  "Part 4: 'first: the state after reading x[b, 0] (for a sequence of length 0, the start state)': gives zeros for an "
  "empty sequence with an h0 given.")
W("P5 J_s from the state before the step", "incremental", {"gradient_norms": sub(NORMS,
    '            d = 1 - states[T - k] ** 2\n', '            d = 1 - (states[T - k - 1] if T - k - 1 >= 0 else torch.zeros_like(states[0])) ** 2\n')},
  "Part 5: 'Work out J_s for that cell (it is a D_h x D_h matrix that depends on h_s)', h_s the state after reading x_s.")
W("P6 the query stays s0 at every step", "incremental", {"additive": sub(DEC,
    '        e = torch.tanh((s @ p["W_q"].T)', '        e = torch.tanh((s0 @ p["W_q"].T)')},
  "Part 6: 'e_{t,j} = v^T tanh(W_q s_{t-1} + ...)': the query is the decoder's previous state, not s_{-1} at every step.")
W("P6 recurrent term reads s0 at every step", "incremental", {"additive": sub(DEC,
    ' + s @ p["W_hh"].T + p["b_hh"])', ' + s0 @ p["W_hh"].T + p["b_hh"])')},
  "Part 6: 's_t = tanh([x_t; context_t] W_ih^T + b_ih + s_{t-1} W_hh^T + b_hh)'.")

# ================================================================ WRONG: the second-call student
W("P4 writes the new state into h in place (h0 aliased)", "second-call", {"rnn_unroll": r'''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    L = lengths.to(torch.long)
    outputs = x.new_zeros(B, T, D_h)
    for step in range(T - 1, -1, -1):
        running = step < L
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = h.clone() if step == T - 1 and h0 is not None and h.requires_grad else h
        h[running] = h_new[running]
        outputs[:, step] = torch.where(running[:, None], h_new, torch.zeros_like(h_new))
    return outputs, h
'''}, "Intro: 'Your functions must not change the tensors they are given': an h0 without requires_grad is overwritten in "
      "place, so the caller's second call starts from the first call's final state.")
W("P6 caches the key projection on the function, keyed by id(h)", "second-call", {"additive": sub(DEC,
    '    keys = h @ p["W_k"].T\n',
    '    cache = coverage_decoder.__dict__.setdefault("cache", {})\n'
    '    key = (id(h), id(p["W_k"]), tuple(h.shape))\n'
    '    if key not in cache:\n'
    '        cache.clear()\n'
    '        cache[key] = h @ p["W_k"].T\n'
    '    keys = cache[key]\n')},
  "Intro: 'Nor may they keep anything from one call to the next (a cache ... by id())': a second call on the same h "
  "whose values changed in place (or a new h at a recycled id) reuses stale keys.")
W("P1 leaves autograd anomaly detection on (debugging)", "second-call", {"rnn_step": "torch.autograd.set_detect_anomaly(True)\n" + STEP},
  "Intro: 'Leave torch's process-wide settings as you found them ... anomaly detection'.")
W("P5 keeps the states of the last call of the same shape in a module list", "second-call", {"gradient_norms": "STATES = []\n" + sub(NORMS,
    '    states = []\n',
    '    global STATES\n'
    '    if not STATES or STATES[0].shape != (B, D) or STATES[0].dtype != work:\n'
    '        STATES = []                       # new shape: start over\n'
    '    states = STATES\n')},
  "Intro: 'Nor may they keep anything from one call to the next ... the hidden tests call each function on several problems "
  "in turn': a second call of the same shape appends its states after the first call's and reads the first call's.")

# ================================================================ WRONG: parts 2 and 3 (constants; no kind can go wrong in them other than the count)
W("P2 counts QK^T and weights.V as one n^2 d product", "none", {"costs":
    "n, d = 4096, 512\nattention_over_lstm = (4 * n * d * d + n * n * d) / (8 * n * d * d)\nequal_cost_length = 4 * 768\n"},
  "Part 2: 'the two n x n products QK^T and (weights).V, each n^2 d multiply-adds'.")
W("P3 both recurrences parallel", "none", {"mc": 'answer_parallel = "c"\n'},
  "Part 3: the Elman recurrence composes tanh maps, which do not close under composition: only (b).")

# ================================================================ CORRECT
C("P1 autograd of the batch sum, permuted", "batch-mixer", {"rnn_step": r'''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(pre)).sum(0)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True)   # (D_h, B, D_h)
    return J.permute(1, 0, 2).contiguous()
'''}, "The batch sum is allowed because each example's state depends on its own old state only; J[i, b, j] permuted.")
C("P1 rates repaired with an out-of-place clamp and a dtype check", "validator", {"rnn_step": sub(STEP,
    '    pre = x',
    '    if leak.dim() != 1 or leak.shape[0] != h.shape[-1]:\n        raise ValueError("leak must have shape (D_h,)")\n'
    '    leak = leak.clamp(0, 1).to(x.dtype)\n    pre = x')},
  "Rates already lie in [0, 1]; clamp passes the gradient at its bounds 0 and 1 (x >= min and x <= max).")
C("P4 reading order, flipped at the end, validator after the cast to int64", "validator", {"rnn_unroll": r'''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    if ((L < 0) | (L > T)).any():
        raise ValueError("lengths must lie in [0, T]")
    h = x.new_zeros(B, D_h) if h0 is None else h0
    outs = []
    for step in reversed(range(T)):
        running = (step < L).to(x.dtype)[:, None]
        h_new = torch.tanh(x[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outs.append(h_new * running)
        h = torch.where(running.bool(), h_new, h)
    return torch.flip(torch.stack(outs, dim=1), dims=[1]), h
'''}, "Check made on int64 lengths; padding outputs by a multiplication in x's dtype (finite values).")
C("P5 no_grad, one scale for the whole batch", "gradient-path", {"gradient_norms": r'''
def jacobian_norms(x, p):
    with torch.no_grad():                       # the part checks values only
        B, T, _ = x.shape
        work = torch.float64
        W_ih, b_ih, W_hh, b_hh = (p[k].to(work) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
        xw = x.to(work)
        D = W_hh.shape[0]
        h = xw.new_zeros(B, D)
        states = []
        for s in range(T):
            h = torch.tanh(xw[:, s] @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
            states.append(h)
        P = torch.eye(D, dtype=work).repeat(B, 1, 1)
        norms = []
        for k in range(T):
            if k > 0:
                P = (P * (1 - states[T - k] ** 2)[:, None, :]) @ W_hh
            m = P.abs().max()                   # one scale for the whole batch: the mean is dominated by the largest
            if m > 0:
                norms.append(torch.linalg.matrix_norm(P / m).mean() * m)
            else:
                norms.append(torch.zeros((), dtype=work))
        return torch.stack(norms).to(x.dtype)
'''}, "Part 5 asks values only ('the tests check the values'); a batch-wide scale changes only examples whose norms are "
      "1e-16 of the largest, which do not move the mean.")
C("P6 log of the mask added, manual softmax with a detached max", "gradient-path", {"additive": sub(DEC,
    '        e = e.masked_fill(~allowed, float("-inf"))\n        alpha = torch.softmax(e, dim=-1)\n',
    '        e = e + torch.log(allowed.to(e.dtype))           # log 1 = 0, log 0 = -inf\n'
    '        m = e.amax(dim=-1, keepdim=True).detach()        # the shift does not change the softmax or its gradient\n'
    '        ex = torch.exp(e - m)\n'
    '        alpha = ex / ex.sum(dim=-1, keepdim=True)\n')},
  "-inf (not a finite stand-in) added; a detached maximum leaves the softmax's gradient unchanged.")
C("P6 concatenation as in the formula, coverage by cumulative list", "incremental", {"additive": r'''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    s, cov = s0, torch.zeros_like(h[..., 0])
    states, weights = [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh((s @ p["W_q"].T).unsqueeze(1) + keys + cov.unsqueeze(-1) * p["w_c"]), p["v"])
        alpha = torch.softmax(torch.where(allowed, e, torch.full_like(e, float("-inf"))), dim=-1)
        context = torch.einsum("bs,bsk->bk", alpha, h)
        s = torch.tanh(torch.cat([x[:, t], context], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        states.append(s)
        weights.append(alpha)
        cov = cov + alpha                       # read at step t+1 only
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''}, "The formula as written: cat([x_t, context]), einsum, where with a -inf fill.")
C("P2/P3 closed forms as floats", "validator", {"costs": "attention_over_lstm = (4 * 512 + 2 * 4096) / (8 * 512)\nequal_cost_length = 2.0 * 768\n",
    "mc": "answer_parallel = 'b'\n"}, "(4nd^2 + 2n^2 d)/(8nd^2) = (4d + 2n)/(8d) = 2.5; n = 2d = 1536.")
C("P1 set_grad_enabled saved and restored (second-call safe)", "second-call", {"rnn_step": r'''
def leaky_step_jacobian(x, h, p, leak):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    try:
        pre = torch.addmm(p["b_ih"], x, p["W_ih"].T) + torch.addmm(p["b_hh"], h, p["W_hh"].T)
        d = 1 - torch.tanh(pre).pow(2)
        J = torch.diag_embed((1 - leak).expand_as(d)) + (leak * d).unsqueeze(-1) * p["W_hh"]
    finally:
        torch.set_grad_enabled(prev)
    return J
'''}, "The grad mode is put back even on an exception; no autograd is needed for the hand formula anyway.")

# ================================================================ HOSTILE
H("P6 replaces the grader's comparison helpers", {"additive": r'''
_close = lambda *a, **k: None
_equal = lambda *a, **k: None
torch.testing.assert_close = lambda *a, **k: None
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    w = allowed.to(x.dtype) / allowed.sum(-1, keepdim=True)
    return (x.sum() * 0 + s0.sum() * 0 + torch.zeros(B, T, p["W_hh"].shape[0], dtype=x.dtype)), w[:, None].expand(B, T, S).clone()
'''}, "Points without solving: reassigns the grader's _close and _equal and torch.testing.assert_close.")
H("P5 returns the expected tensor read from the caller's frame", {"gradient_norms": r'''
import sys
def jacobian_norms(x, p):
    f = sys._getframe(1)
    for name in ("expected", "ref", "want", "reference"):
        if name in f.f_locals and isinstance(f.f_locals[name], torch.Tensor):
            return f.f_locals[name].clone()
    T = x.shape[1]
    D = p["W_hh"].shape[0]
    return (math.sqrt(D) * p["W_hh"].norm().clamp(max=1) ** torch.arange(T, dtype=x.dtype)) * (D ** 0.5 / D ** 0.5)
'''}, "Points without solving: looks up the test's expected value, else a geometric guess.")
