P1 = '''
def leaky_step_jacobian(x, h, p, leak):
    z = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    with torch.enable_grad():
        t = torch.tanh(z)
        d = leak * (1 - t * t)                                   # (B, D_h)
        eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
        return eye * (1 - leak)[:, None] + d[:, :, None] * p["W_hh"]
'''
P2 = '''
def att(n, d): return 4 * n * d * d + 2 * n * n * d
def lstm(n, d): return 8 * n * d * d
attention_over_lstm = att(4096, 512) / lstm(4096, 512)
equal_cost_length = 2 * 768
'''
P3 = 'answer_parallel = "b"\n'
P4 = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    L = lengths.to(device=x.device, dtype=torch.long)
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        hn = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(run, hn, h)
        outs[t] = torch.where(run, hn, torch.zeros_like(hn))
    return torch.stack(outs, dim=1), h
'''
P5 = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    h = x.new_zeros(B, p["W_hh"].shape[0])
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    D = h.shape[-1]
    P = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)
    out = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out)
'''
P6 = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T                     # (B, S, A)
    c = torch.zeros(allowed.shape, dtype=x.dtype, device=x.device)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''
MODEL = {"rnn_step": P1, "costs": P2, "mc": P3, "rnn_unroll": P4, "gradient_norms": P5, "additive": P6}

def R(src, *pairs):
    for a, b in pairs:
        assert a in src, a
        src = src.replace(a, b)
    return src

W = []
def add(name, correct, cells, why):
    W.append({"name": name, "correct": correct, "cells": cells, "why": why})

add("num-p6-where-after-exp", False, {"additive": R(MODEL["additive"],
    ("        e = e.masked_fill(~allowed, float(\"-inf\"))\n        a = torch.softmax(e, dim=-1)\n",
     "        top = e.masked_fill(~allowed, float(\"-inf\")).amax(-1, keepdim=True)\n"
     "        w = torch.where(allowed, torch.exp(e - top), torch.zeros_like(e))\n        a = w / w.sum(-1, keepdim=True)\n"))},
    "P6: 'no gradient may become NaN through them' (exp of a padding score far above the top overflows; 0 * inf in the backward)")
add("num-p1-lerp-form", True, {"rnn_step": R(MODEL["rnn_step"],
    ("        return eye * (1 - leak)[:, None] + d[:, :, None] * p[\"W_hh\"]",
     "        D = (1 - t * t)[:, :, None] * p[\"W_hh\"]\n        return eye + leak[:, None] * (D - eye)"))},
    "correct? lerp between the identity and the Elman Jacobian: exact at rate 0; at rate 1 the diagonal D_ii - 1 + 1 loses digits below eps")
add("obo-p6-query-zeros-first-step", False, {"additive": R(MODEL["additive"],
    ("    s = s0\n", "    s = s0\n    q_state = torch.zeros_like(s0)           # no previous decoder state before the first step\n"),
    ("        e = torch.tanh((s @ p[\"W_q\"].T)[:, None, :]", "        e = torch.tanh((q_state @ p[\"W_q\"].T)[:, None, :]"),
    ("        c = c + a\n", "        c = c + a\n        q_state = s\n"))},
    "P6: 'the query is the decoder's previous state ... starting from the given state s_{-1}'")
add("paper-p5-gradient-vector-norm", False, {"gradient_norms": """
def jacobian_norms(x, p):
    # Pascanu et al.'s experiment: the norm of the gradient of the last state with respect to earlier states
    B, T, _ = x.shape
    with torch.enable_grad():
        h = x.new_zeros(B, p["W_hh"].shape[0])
        hs = []
        for t in range(T):
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            hs.append(h)
        out = []
        for k in range(T):
            g = torch.autograd.grad(hs[-1].sum(), hs[T - 1 - k], retain_graph=True, create_graph=True)[0]
            n = g.double().norm(dim=-1).mean()
            out.append(n.to(x.dtype) if k else torch.full((), hs[0].shape[-1] ** 0.5, dtype=x.dtype))
    return torch.stack(out)
"""}, "P5: 'the Frobenius norm of dh_{T-1}/dh_{T-1-k}' (a matrix), not the norm of a gradient vector")
add("red-p4-first-col0-or-start", True, {"rnn_unroll": R(MODEL["rnn_unroll"],
    ("    return torch.stack(outs, dim=1), h", "    out = torch.stack(outs, dim=1)\n    first = torch.where((L > 0)[:, None], out[:, 0], h)\n    return out, first"))},
    "correct: first from column 0 where the sequence is not empty, the start state otherwise")
SUBMISSIONS = W
