# Phase-2 probes (not blind): correct answers whose form might be refused.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

add("probe-c-p1-vmap-jacrev", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(x1, h1):
        a = x1 @ p["W_ih"].T + p["b_ih"] + h1 @ p["W_hh"].T + p["b_hh"]
        return (1 - leak) * h1 + leak * torch.tanh(a)
    return torch.func.vmap(torch.func.jacrev(step, argnums=1))(x, h)
'''}, "Correct: torch.func's jacrev per example (vmap over the batch); composes with autograd for J's gradients.")

add("probe-c-p4-one-buffer-two-views", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    L = lengths.to(torch.long)
    cols = []
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        cols.append(torch.where(run, new, torch.zeros_like(new)))
        h = torch.where(run, new, h)
    buf = torch.stack(cols[::-1] + [h], 1)          # (B, T + 1, D): outputs, then first
    return buf[:, :T], buf[:, T]
'''}, "Correct: outputs and first are two non-overlapping views of one buffer made in this call.")

add("probe-c-p6-one-buffer-two-views", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    D = s0.shape[-1]
    hk = h @ p["W_k"].T
    s = s0
    c = h.new_zeros(h.shape[0], h.shape[1])
    rows = []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + hk + c[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        rows.append(torch.cat([s, a], -1))
    buf = torch.stack(rows, 1)                        # (B, T, D_h + S)
    return buf[..., :D], buf[..., D:]
'''}, "Correct: states and weights are two non-overlapping views of one buffer made in this call.")
add("probe-c-p5-own-dtype-renormalised", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    W = p["W_hh"]
    with torch.no_grad():
        states = []
        h = x.new_zeros(B, D)
        for t in range(T):
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
            states.append(h)
        P = torch.eye(D, dtype=x.dtype).expand(B, D, D).clone()
        logc = torch.zeros(B, dtype=torch.float64)           # the scale kept as a float64 log
        out = [torch.full((B,), math.sqrt(D), dtype=torch.float64)]
        for k in range(1, T):
            P = (P * (1 - states[T - k] ** 2)[:, None, :]) @ W     # in x's own dtype, renormalised every step
            m = P.abs().amax(dim=(1, 2))
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]
            logc = logc + torch.log(m.double())
            out.append(torch.linalg.matrix_norm(P).double() * torch.exp(logc))
        return torch.stack(out, 1).mean(0).to(x.dtype)
'''}, "Correct: the product kept in x's dtype but renormalised by its largest entry at every step (the text: scale the "
      "product first), the scale carried as a float64 log.")
PRELUDE=[]
