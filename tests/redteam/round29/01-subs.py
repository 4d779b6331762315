# Round 29, chapter 01: argument-ignorer (AI), chunker (CH), leading-dimensions (LD), special-values (SV), rearranger (RA)

J_OK = '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(a)
    d = 1 - t * t
    J = (leak * d)[:, :, None] * p["W_hh"]
    return J + torch.diag_embed((1 - leak).expand_as(d))
'''

UNROLL_OK = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    h = x.new_zeros(B, Dh) if h0 is None else h0
    L = lengths.to(torch.int64)
    xw = x @ p["W_ih"].T + p["b_ih"]
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(xw[:, t] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''

NORMS_OK = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    h = x.new_zeros(B, Dh)
    xw = x @ p["W_ih"].T + p["b_ih"]
    hs = []
    for t in range(T):
        h = torch.tanh(xw[:, t] + h @ W.T + p["b_hh"])
        hs.append(h)
    P = torch.eye(Dh, dtype=x.dtype).expand(B, Dh, Dh)
    norms = []
    for k in range(T):
        if k > 0:
            hk = hs[T - k]
            P = P @ ((1 - hk * hk)[:, :, None] * W)
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        m = torch.where(m > 0, m, torch.ones_like(m))
        norms.append((torch.linalg.matrix_norm(P / m) * m[:, 0, 0]).mean())
    return torch.stack(norms)
'''

DEC_OK = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    hk = h @ p["W_k"].T
    cov = x.new_zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        pre = (s @ p["W_q"].T)[:, None, :] + hk + cov[:, :, None] * p["w_c"]
        e = torch.tanh(pre) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = torch.bmm(a[:, None, :], h)[:, 0]
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = [
    # ---------------- Part 1 (rnn_step)
    sub("AI-p1-drop-b_ih", False, {"rnn_step": J_OK.replace(' + p["b_ih"]', '')},
        "AI: reads b_hh (non-zero in the example) but drops b_ih (zero in the example); breaks the step "
        "h' = ... tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."),
    sub("AI-p1-zero-rate-shortcut", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, Dh = h.shape
    if bool((leak == 0).all()):
        return torch.eye(Dh, dtype=x.dtype).expand(B, Dh, Dh).clone()
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    return (leak * d)[:, :, None] * p["W_hh"] + torch.diag_embed((1 - leak).expand_as(d))
'''}, "AI: ignores x, h, p when every rate is 0; 'the hidden tests compare its gradients ... also where every rate is 0 "
      "or 1 (a shortcut that returns a constant identity there has the right values but no gradient)'."),
    sub("SV-p1-sech-via-cosh", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 / torch.cosh(a) ** 2
    return (leak * d)[:, :, None] * p["W_hh"] + torch.diag_embed((1 - leak).expand_as(d))
'''}, "SV: sech^2 = 1/cosh^2: cosh overflows at pre-activations in the hundreds; value 0 is right but the gradient "
      "is 0*inf = NaN: 'gradients too must stay finite there'."),
    sub("CH-p1-row-blocks-last-dropped", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    B, Dh = d.shape
    blk = 64
    rows = []
    for i in range(max(1, Dh // blk)):
        sl = slice(i * blk, (i + 1) * blk)
        rows.append((leak[sl] * d[:, sl])[:, :, None] * p["W_hh"][sl])
    J = torch.cat(rows, 1)
    if J.shape[1] < Dh:
        J = torch.cat([J, J.new_zeros(B, Dh - J.shape[1], Dh)], 1)
    return J + torch.diag_embed((1 - leak).expand_as(d))
'''}, "CH: builds J in blocks of 64 rows and drops the last, shorter block (zeros there) when 64 does not divide "
      "D_h > 64; 'D_h has no bound (the tests go past 1024)'."),
    sub("LD-p1-correct-fixed-rank", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D_h = h.shape
    a = torch.addmm(p["b_ih"] + p["b_hh"], x, p["W_ih"].t()) + h @ p["W_hh"].t()
    d = 1 - torch.tanh(a).pow(2)
    J = torch.einsum("bi,ij->bij", leak.expand(B, D_h) * d, p["W_hh"])
    idx = torch.arange(D_h)
    J = J.clone()
    J[:, idx, idx] += (1 - leak)
    return J
'''}, "LD (correct): reads B, D_h by position where the text fixes x (B, D_in) and h (B, D_h); biases summed first."),
    sub("RA-p1-correct-autograd", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return (1 - leak) * hh + leak * torch.tanh(pre)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(lambda hh: step(hh).sum(0), h, create_graph=True)
    return J.transpose(0, 1)
'''}, "RA (correct): the Jacobian from autograd with create_graph (sum over the batch, since examples are independent)."),
    sub("RA-p1-correct-factored", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + h @ p["W_hh"].T + (p["b_ih"] + p["b_hh"]))
    d = (1 - t) * (1 + t)
    return torch.diag_embed(1 - leak + 0 * d) + (leak * d).unsqueeze(-1) * p["W_hh"].unsqueeze(0)
'''}, "RA (correct): 1 - t^2 as (1 - t)(1 + t), biases pre-summed; diag of (1-leak) broadcast via + 0*d."),

    # ---------------- Part 2 (costs)
    sub("AI-p2-d-reused", False, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) / (4 * n * 2 * d * d)
equal_cost_length = 2 * d
'''}, "AI: 2b reuses d = 512 from 2a where 2b says d = 768."),
    sub("RA-p2-correct-simplified", True, {"costs": '''
attention_over_lstm = (4 * 512 + 2 * 4096) / (8 * 512)
equal_cost_length = float(2 * 768)
'''}, "RA (correct): n cancelled first; (4d + 2n)/(8d)."),
    sub("RA-p2-correct-fraction", True, {"costs": '''
from fractions import Fraction
attention_over_lstm = float(Fraction(4 * 4096 * 512**2 + 2 * 4096**2 * 512, 4096 * 4 * 2 * 512**2))
equal_cost_length = int(Fraction(8 * 768**2 - 4 * 768**2, 2 * 768))
'''}, "RA (correct): exact rationals from the standard library."),

    # ---------------- Part 3 (mc)
    sub("SV-p3-both", False, {"mc": 'answer_parallel = "c"\n'},
        "No kind of this round goes wrong here specifically; (c) claims the Elman tanh recurrence is associative."),

    # ---------------- Part 4 (rnn_unroll)
    sub("AI-p4-h0-only-full-length", False, {"rnn_unroll": UNROLL_OK.replace(
        "        new = torch.tanh(",
        "        h = torch.where((L - 1 == t)[:, None] & (L < T)[:, None], torch.zeros_like(h), h)\n        new = torch.tanh(")},
        "AI: resets the state to zeros where a shorter sequence starts, so h0 is used only for sequences filling T: "
        "'For each sequence b, start from the state h0[b]'."),
    sub("AI-p4-empty-first-zero", False, {"rnn_unroll": UNROLL_OK.replace(
        "    return torch.stack(outs, 1), h",
        "    return torch.stack(outs, 1), torch.where((L > 0)[:, None], h, torch.zeros_like(h))")},
        "AI: first of a length-0 sequence is zeros even when h0 is given: '(for a sequence of length 0, the start state)'."),
    sub("CH-p4-correct-time-chunks-remainder", True, {"rnn_unroll": UNROLL_OK.replace(
        '    xw = x @ p["W_ih"].T + p["b_ih"]',
        '''    c = 128
    if T <= c:
        xw = x @ p["W_ih"].T + p["b_ih"]
    else:
        xw = torch.cat([x[:, i:i + c] @ p["W_ih"].T + p["b_ih"] for i in range(0, T - c + 1, c)]
                       + [x[:, -(T % c or c):] @ p["W_ih"].T + p["b_ih"]] * (T % c > 0), 1)
        xw = xw[:, :T] if xw.shape[1] >= T else torch.cat([xw, xw[:, -1:].expand(B, T - xw.shape[1], -1)], 1)''')},
        "CH (correct): input projections in chunks of 128 steps, the shorter remainder chunk taken from the end."),
    sub("CH-p4-chunks-pad-last", False, {"rnn_unroll": UNROLL_OK.replace(
        '    xw = x @ p["W_ih"].T + p["b_ih"]',
        '''    c = 64
    n_chunks = max(1, T // c)
    pieces = [x[:, i * c:(i + 1) * c] @ p["W_ih"].T + p["b_ih"] for i in range(n_chunks)]
    xw = torch.cat(pieces, 1)
    if xw.shape[1] < T:
        xw = torch.cat([xw, xw.new_zeros(B, T - xw.shape[1], xw.shape[2])], 1)''')},
        "CH: input projections in chunks of 64 steps; the last, shorter chunk is padded with zeros instead of computed "
        "(T > 64 not a multiple of 64), so the steps there read x W_ih^T = 0: 'sequences of more than a thousand steps'."),
    sub("LD-p4-squeeze-first", False, {"rnn_unroll": UNROLL_OK.replace(
        "    return torch.stack(outs, 1), h", "    return torch.stack(outs, 1), h.squeeze()")},
        "LD: first.squeeze() drops the batch of one: 'first (B, D_h)', hidden 'a batch of one'."),
    sub("SV-p4-tanh-by-exp", False, {"rnn_unroll": UNROLL_OK.replace(
        '        new = torch.tanh(xw[:, t] + h @ p["W_hh"].T + p["b_hh"])',
        '''        a = xw[:, t] + h @ p["W_hh"].T + p["b_hh"]
        e2 = torch.exp(2 * a)
        new = (e2 - 1) / (e2 + 1)''')},
        "SV: tanh written with exp: inf/inf = NaN at pre-activations in the hundreds ('a tanh written out with exp overflows')."),
    sub("SV-p4-tanh-sign-grad-zero-at-0", False, {"rnn_unroll": UNROLL_OK.replace(
        '        new = torch.tanh(xw[:, t] + h @ p["W_hh"].T + p["b_hh"])',
        '''        a = xw[:, t] + h @ p["W_hh"].T + p["b_hh"]
        e2 = torch.exp(-2 * a.abs())
        new = torch.sign(a) * (1 - e2) / (1 + e2)''')},
        "SV: tanh as sign(a)(1-e^{-2|a|})/(1+e^{-2|a|}): no overflow, but at a pre-activation of exactly 0 the gradient is 0 instead of 1 (zero inputs, zero state)."),
    sub("RA-p4-correct-concat-weights", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    W = torch.cat([p["W_ih"], p["W_hh"]], 1)
    b = p["b_ih"] + p["b_hh"]
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    steps = lengths.long()
    outputs = []
    for t in reversed(range(T)):
        new = torch.tanh(torch.cat([x[:, t], h], 1) @ W.T + b)
        live = (t < steps).unsqueeze(1)
        h = torch.where(live, new, h)
        outputs.append(torch.where(live, new, 0.0))
    outputs.reverse()
    return torch.stack(outputs, dim=1), h
'''}, "RA (correct): one matrix product with [x; h] and the concatenated weights, the biases summed."),
    sub("LD-p4-correct-gather-flip", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    t_idx = torch.arange(T)
    # reverse each sequence's real part in place: position r reads x[b, L-1-r]
    src = (L[:, None] - 1 - t_idx[None, :]).clamp(min=0)
    xr = torch.gather(x, 1, src[:, :, None].expand(B, T, D_in))
    h = x.new_zeros(B, D_h) if h0 is None else h0
    outs = []
    for r in range(T):
        live = (r < L)[:, None]
        new = torch.tanh(xr[:, r] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(live, new, h)
        outs.append(torch.where(live, new, torch.zeros_like(new)))
    o = torch.stack(outs, 1)
    o = torch.gather(o, 1, src[:, :, None].expand(B, T, D_h))
    o = torch.where((t_idx[None, :] < L[:, None])[:, :, None], o, torch.zeros_like(o))
    return o, h
'''}, "LD (correct): reverses each sequence's real tokens with gather and runs forward, then gathers back."),

    # ---------------- Part 5 (gradient_norms)
    sub("AI-p5-drop-b_hh", False, {"gradient_norms": NORMS_OK.replace(' + p["b_hh"]', '')},
        "AI: the states drop b_hh (zero in the example): J_s depends on h_s of 'the ordinary (Elman) cell of the lesson'."),
    sub("LD-p5-column-scaling", False, {"gradient_norms": NORMS_OK.replace(
        "P = P @ ((1 - hk * hk)[:, :, None] * W)", "P = P @ ((1 - hk * hk)[:, None, :] * W)")},
        "LD: broadcasts the per-unit derivative over the wrong axis (W diag(1-h^2) instead of diag(1-h^2) W), the same "
        "for D_h = 1: 'Work out J_s for that cell'."),
    sub("RA-p5-reversed-product", False, {"gradient_norms": NORMS_OK.replace(
        "P = P @ ((1 - hk * hk)[:, :, None] * W)", "P = ((1 - hk * hk)[:, :, None] * W) @ P")},
        "RA: multiplies the new Jacobian on the left (J_{T-k} ... J_{T-1}), believing the order does not change the norm: "
        "'J_{T-1} J_{T-2} ... J_{T-k}'."),
    sub("SV-p5-unscaled-norm", False, {"gradient_norms": NORMS_OK.replace(
        "        m = P.abs().amax(dim=(-2, -1), keepdim=True)\n        m = torch.where(m > 0, m, torch.ones_like(m))\n        norms.append((torch.linalg.matrix_norm(P / m) * m[:, 0, 0]).mean())",
        "        norms.append(torch.sqrt((P * P).sum(dim=(-2, -1))).mean())")},
        "SV: norm as sqrt of the sum of squares without scaling: squares of entries near 1e-22 underflow "
        "('scale the product first')."),
    sub("SV-p5-scale-no-zero-guard", False, {"gradient_norms": NORMS_OK.replace(
        "        m = torch.where(m > 0, m, torch.ones_like(m))\n", "")},
        "SV: scales by the largest entry without guarding an all-zero product (W_hh = 0): 0/0 = NaN "
        "('only an all-zero product may stay unscaled')."),
    sub("CH-p5-batch-chunks-mean-of-means", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    chunk = 4
    per_chunk = []
    for c0 in range(0, B, chunk):
        xb = x[c0:c0 + chunk]
        b = xb.shape[0]
        h = xb.new_zeros(b, Dh)
        hs = []
        for t in range(T):
            h = torch.tanh(xb[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
            hs.append(h)
        P = torch.eye(Dh, dtype=x.dtype).expand(b, Dh, Dh)
        norms = []
        for k in range(T):
            if k > 0:
                hk = hs[T - k]
                P = P @ ((1 - hk * hk)[:, :, None] * W)
            m = P.abs().amax(dim=(-2, -1), keepdim=True)
            m = torch.where(m > 0, m, torch.ones_like(m))
            norms.append((torch.linalg.matrix_norm(P / m) * m[:, 0, 0]).mean())
        per_chunk.append(torch.stack(norms))
    return torch.stack(per_chunk).mean(0)
'''}, "CH: batch in chunks of 4, then the mean of the chunk means: wrong when the last chunk is shorter "
      "('for each example and then averaged over the batch')."),
    sub("CH-p5-correct-log-rescale", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    h = x.new_zeros(B, Dh)
    hs = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        hs.append(h)
    work = torch.float64
    P = torch.eye(Dh, dtype=work).expand(B, Dh, Dh)
    logscale = torch.zeros(B, dtype=work)
    out = []
    for k in range(T):
        if k > 0:
            hk = hs[T - k].to(work)
            P = P @ ((1 - hk * hk)[:, :, None] * W.to(work))
            m = P.abs().amax(dim=(-2, -1))
            nz = m > 0
            P = P / torch.where(nz, m, torch.ones_like(m))[:, None, None]
            logscale = logscale + torch.where(nz, torch.log(torch.where(nz, m, torch.ones_like(m))), torch.zeros_like(m))
            zero = ~nz
        else:
            zero = torch.zeros(B, dtype=torch.bool)
        n = torch.linalg.matrix_norm(P)
        n = torch.where(zero | (n == 0), torch.zeros_like(n), torch.exp(torch.log(n) + logscale))
        out.append(n.mean())
    return torch.stack(out).to(x.dtype)
'''}, "CH (correct): renormalises the running product at every step and keeps a running log-scale in float64."),
    sub("SV-p5-correct-clamp-tiny", True, {"gradient_norms": NORMS_OK.replace(
        "        m = torch.where(m > 0, m, torch.ones_like(m))\n",
        "        m = m.clamp(min=torch.finfo(x.dtype).tiny)\n")},
        "SV (correct?): guards the all-zero product with clamp(min=tiny) instead of where; the text's products stay above "
        "the smallest normal number."),
    sub("LD-p5-correct-einsum", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(torch.einsum("bi,hi->bh", x[:, t], p["W_ih"]) + p["b_ih"]
                       + torch.einsum("bi,hi->bh", h, p["W_hh"]) + p["b_hh"])
        states.append(h)
    prod = torch.eye(D_h, dtype=x.dtype).repeat(B, 1, 1)
    res = []
    for k in range(T):
        if k:
            J = torch.einsum("bi,ij->bij", 1 - states[T - k] ** 2, p["W_hh"])
            prod = torch.einsum("bij,bjk->bik", prod, J)
        big = prod.abs().flatten(1).max(dim=1).values
        big = torch.where(big == 0, torch.ones_like(big), big)
        res.append((prod / big[:, None, None]).pow(2).sum(dim=(1, 2)).sqrt().mul(big).mean())
    return torch.stack(res)
'''}, "LD (correct): einsum throughout, sizes read by position (the text fixes x as (B, T, D_in))."),

    # ---------------- Part 6 (additive)
    sub("AI-p6-s0-only-in-query", False, {"additive": DEC_OK.replace(
        "    s = s0\n", "    s = s0\n    prev = torch.zeros_like(s0)\n").replace(
        '+ s @ p["W_hh"].T + p["b_hh"])', '+ prev @ p["W_hh"].T + p["b_hh"])\n        prev = s')},
        "AI: s0 is used for the query of step 0 but the recurrence starts from zeros: "
        "'s_t = tanh(... + s_{t-1} W_hh^T + b_hh)' with s_{-1} = s0."),
    sub("AI-p6-drop-b_ih", False, {"additive": DEC_OK.replace(' + p["b_ih"]', '')},
        "AI: b_ih dropped (zero in the example)."),
    sub("SV-p6-fill-minus-1e9", False, {"additive": DEC_OK.replace('float("-inf")', "-1e9")},
        "SV: masked_fill(-1e9): 'a v so large that every real score lies below -1e10 ... -1e9 ... then lies above them'."),
    sub("SV-p6-softmax-no-max", False, {"additive": DEC_OK.replace(
        "        a = torch.softmax(e, dim=-1)", "        ee = torch.exp(e)\n        a = ee / ee.sum(-1, keepdim=True)")},
        "SV: softmax without subtracting the maximum: with a large v every real score below -1e10 gives 0/0."),
    sub("RA-p6-exp-minus-lse", False, {"additive": DEC_OK.replace(
        "        a = torch.softmax(e, dim=-1)", "        a = torch.exp(e - torch.logsumexp(e, -1, keepdim=True))")},
        "RA: exp(e - logsumexp(e)): at tied scores of finfo.min each tied key gets 1 ('divide the exponentials by their sum')."),
    sub("CH-p6-online-softmax-zero-start", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    blk = 16
    hk = h @ p["W_k"].T
    cov = x.new_zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        pre = (s @ p["W_q"].T)[:, None, :] + hk + cov[:, :, None] * p["w_c"]
        e = (torch.tanh(pre) @ p["v"]).masked_fill(~allowed, float("-inf"))
        m = x.new_zeros(B, 1)          # running maximum
        for j in range(0, S, blk):
            m = torch.maximum(m, e[:, j:j + blk].amax(-1, keepdim=True))
        ex = torch.exp(e - m)
        a = ex / ex.sum(-1, keepdim=True)
        ctx = torch.bmm(a[:, None, :], h)[:, 0]
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "CH: running maximum over blocks of source positions started from 0 instead of -inf: with every real score "
      "below -1e10 the max stays 0 and exp underflows to 0/0."),
    sub("CH-p6-blocked-context-last-dropped", False, {"additive": DEC_OK.replace(
        "        ctx = torch.bmm(a[:, None, :], h)[:, 0]",
        "        ctx = sum(torch.bmm(a[:, None, j:j + 8], h[:, j:j + 8])[:, 0] for j in range(0, max(S - S % 8, 1), 8))")},
        "CH: the context summed over blocks of 8 source positions, the last shorter block dropped when S > 8 "
        "('context_t = sum_j alpha_{t,j} h_j')."),
    sub("RA-p6-correct-split-weights", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros_like(allowed, dtype=x.dtype)
    xs = x @ W_x.T + (p["b_ih"] + p["b_hh"])
    s = s0
    S_list, A_list = [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh(keys + (s @ p["W_q"].T).unsqueeze(1) + cov.unsqueeze(-1) * p["w_c"]), p["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype))
        a = torch.exp(torch.log_softmax(e, dim=-1))
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(xs[:, t] + ctx @ W_c.T + s @ p["W_hh"].T)
        cov = cov + a
        S_list.append(s)
        A_list.append(a)
    return torch.stack(S_list, 1), torch.stack(A_list, 1)
'''}, "RA (correct): W_ih split into its x and context columns, biases summed, exp(log_softmax), torch.where mask."),
    sub("SV-p6-correct-manual-max", True, {"additive": DEC_OK.replace(
        "        a = torch.softmax(e, dim=-1)",
        "        m = e.amax(-1, keepdim=True)\n        ex = torch.exp(e - m)\n        a = ex / ex.sum(-1, keepdim=True)")},
        "SV (correct): softmax written out with the row maximum subtracted (every row has an allowed key, so m is finite)."),
    sub("LD-p6-correct-float64-inside", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    B, T, D_in = x.shape
    S = h.shape[1]
    work = torch.float64
    x64, h64, s = x.to(work), h.to(work), s0.to(work)
    q = {k: t.to(work) for k, t in p.items()}
    hk = h64 @ q["W_k"].T
    cov = torch.zeros(B, S, dtype=work)
    st, wt = [], []
    for t in range(T):
        e = torch.tanh((s @ q["W_q"].T).reshape(B, 1, -1) + hk + cov.reshape(B, S, 1) * q["w_c"]) @ q["v"]
        a = torch.softmax(e.masked_fill(allowed.logical_not(), float("-inf")), -1)
        ctx = (a.reshape(B, S, 1) * h64).sum(1)
        s = torch.tanh(torch.cat((x64[:, t], ctx), 1) @ q["W_ih"].T + q["b_ih"] + s @ q["W_hh"].T + q["b_hh"])
        cov = cov + a
        st.append(s.to(dt))
        wt.append(a.to(dt))
    return torch.stack(st, 1), torch.stack(wt, 1)
'''}, "LD (correct): float64 inside and cast back; reshape with explicit sizes where the text fixes the ranks."),

    # ---------------- hostile
    sub("HOSTILE-p3-p2-prints", False, {"costs": '''
import builtins
attention_over_lstm = 1.0
equal_cost_length = 1.0
class _Any(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = float.__hash__
attention_over_lstm = _Any(1.0)
equal_cost_length = _Any(1.0)
'''}, "hostile: float subclass that equals everything."),
    sub("HOSTILE-p5-borrow-caller-reference", False, {"gradient_norms": '''
import sys
def jacobian_norms(x, p):
    f = sys._getframe(1)
    while f is not None:
        for name, obj in list(f.f_globals.items()) + list(f.f_locals.items()):
            if callable(obj) and "jacobian_norms" in name and getattr(obj, "__code__", None) is not jacobian_norms.__code__:
                return obj(x, p)
        f = f.f_back
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    return torch.tensor([0.5 ** k for k in range(T)], dtype=x.dtype) * math.sqrt(Dh) * (p["W_hh"].abs().max() / 0.5) ** torch.arange(T, dtype=x.dtype)
'''}, "hostile: looks up the callers' frames for any other function named like jacobian_norms (the reference) and "
      "calls it; otherwise a formula fitted to the worked example."),
]

# Second pass, written after the blind grading; graded in 01-extra-blind.txt
def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

NORMS_BLOCK = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    h = x.new_zeros(B, Dh)
    hs = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        hs.append(h)
    P = torch.eye(Dh, dtype=torch.float64).expand(B, Dh, Dh)
    scale = torch.ones(B, dtype=torch.float64)
    out = []
    for k in range(T):
        if k > 0:
            hk = hs[T - k].double()
            P = P @ ((1 - hk * hk)[:, :, None] * W.double())
            if k % 8 == 0:  # renormalise every 8 steps
                m = P.abs().amax(dim=(-2, -1))
                m = torch.where(m > 0, m, torch.ones_like(m))
                P = P / m[:, None, None]
                scale = SCALE_UPDATE
        out.append((scale * torch.linalg.matrix_norm(P)).mean())
    return torch.stack(out).to(x.dtype)
'''
SUBMISSIONS += [
    sub("CH-p5-renorm-every-8-correct", False, {"gradient_norms": NORMS_BLOCK.replace("SCALE_UPDATE", "scale * m")},
        "CH (labelled correct when written; wrong): renormalised only every 8 steps, so a product near 1e-180 is taken unscaled between renormalisations: 'scale the product there, whatever the dtype, however small it is'."),
    sub("CH-p5-renorm-every-8-scale-replaced", False, {"gradient_norms": NORMS_BLOCK.replace("SCALE_UPDATE", "m")},
        "CH: the running scale replaced by the block's factor instead of multiplied by it (a rescale applied to the wrong piece)."),
    sub("SV-p5-float64-unscaled", False, {"gradient_norms": NORMS_BLOCK.replace("            if k % 8 == 0:", "            if False:").replace("SCALE_UPDATE", "scale")},
        "SV: the norm taken in float64 without scaling: squares underflow below 1e-162 (the text's 1e-180 and 1e-285)."),
    sub("AI-p4-h0-only-by-keyword", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    h = x.new_zeros(B, Dh) if h0 is None or h0.shape != (B, Dh) or B == 1 else h0
    L = lengths.to(torch.int64)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "AI: h0 ignored for a batch of one (a 'no batch' shortcut path)."),
]
