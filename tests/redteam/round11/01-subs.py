# Round 11 red-team submissions for 01-rnn-motivation (written blind, from the student notebook only).
CORRECT = {}
CORRECT["rnn_step"] = '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(pre) ** 2                      # (B, D_h)
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (1 - leak)[:, None] * eye + (leak[None, :, None] * d[:, :, None]) * p["W_hh"][None]
'''
CORRECT["costs"] = '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2 * 768
'''
CORRECT["mc"] = 'answer_parallel = "b"\n'
CORRECT["rnn_unroll"] = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, 1), h
'''
CORRECT["gradient_norms"] = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [P.square().sum((-2, -1)).sqrt().mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        norms.append(P.square().sum((-2, -1)).sqrt().mean())
    return torch.stack(norms)
'''
CORRECT["additive"] = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T                       # (B, S, A)
    cov = torch.zeros(h.shape[:2], dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''

def sub(name, correct, why, **cells):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = []
S = SUBMISSIONS.append

# ------------------------------------------------------------------ wrong answers
S(sub("w_p1_no_b_ih", False,
      "Part 1 text: the step is tanh(x W_ih^T + b_ih + h W_hh^T + b_hh); this drops b_ih (the visible case has b_ih = 0).",
      rnn_step='''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(pre) ** 2
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (1 - leak)[:, None] * eye + (leak[None, :, None] * d[:, :, None]) * p["W_hh"][None]
'''))
S(sub("w_p1_inplace_on_saved_tanh", False,
      "Part 1: 'gradients must flow through J ... the hidden tests compare its gradients'; squaring tanh's saved output in place "
      "(t.mul_(t)) gives the right values but backward() raises (a variable needed for gradient computation was modified in place).",
      rnn_step='''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    d = 1 - t.mul_(t)
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (1 - leak)[:, None] * eye + (leak[None, :, None] * d[:, :, None]) * p["W_hh"][None]
'''))
S(sub("w_p1_autograd_sees_x_through_h", False,
      "Part 1: J[b,i,j] = dh'_{b,i}/dh_{b,j} with each example depending on its own state; this autograd answer takes the "
      "Jacobian of the batch SUM with respect to the first example's state only and broadcasts it to every example.",
      rnn_step='''
def leaky_step_jacobian(x, h, p, leak):
    with torch.enable_grad():
        h1 = h[:1].clone().requires_grad_(True) if not h.requires_grad else h[:1]
        def f(hh):
            return (1 - leak) * hh + leak * torch.tanh(x[:1] @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        J = torch.autograd.functional.jacobian(f, h1, create_graph=True)[0, :, 0, :]
    return J.expand(h.shape[0], -1, -1).clone()
'''))
S(sub("w_p2_one_nxn_product", False,
      "Part 2 text: 'the two n x n products QK^T and (weights)V, each n^2 d multiply-adds'; this counts only one of them.",
      costs='''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + n * n * d) / (8 * n * d * d)
equal_cost_length = 4 * 768
'''))
S(sub("w_p2_three_projections", False,
      "Part 2 text: 'a self-attention layer computes four projections (queries, keys, values and the output)'; this counts three.",
      costs='''
n, d = 4096, 512
attention_over_lstm = (3 * n * d * d + 2 * n * n * d) / (8 * n * d * d)
equal_cost_length = 2.5 * 768
'''))
S(sub("w_p3_both", False, "Part 3: the Elman recurrence's tanh does not compose into a map of the same form, so (c) is wrong.",
      mc='answer_parallel = "c"\n'))
S(sub("w_p4_first_is_outputs0", False,
      "Part 4: 'first ... (for a sequence of length 0, the start state)'; outputs[:, 0] is zero there, not h0[b].",
      rnn_unroll='''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros((), dtype=x.dtype))
    outputs = torch.stack(outs, 1)
    return outputs, outputs[:, 0]
'''))
S(sub("w_p4_inplace_on_saved_tanh", False,
      "Part 4: 'Gradients must flow through outputs and first ... the hidden tests compare their gradients'; zeroing the padding "
      "rows of tanh's saved output in place keeps the values but makes backward() raise.",
      rnn_unroll='''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        new.masked_fill_(~active, 0.0)
        outs[t] = new
    return torch.stack(outs, 1), h
'''))
S(sub("w_p4_width_of_longest", False,
      "Part 4: 'outputs (B, T, D_h)' and 'the longest sequence need not fill the T columns'; this returns max(lengths) columns.",
      rnn_unroll='''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    Tm = int(L.max())
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * Tm
    for t in range(Tm - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, 1) if outs else x.new_zeros(B, 0, D_h), h
'''))
S(sub("w_p5_derivative_at_previous_state", False,
      "Part 5: 'Work out J_s for that cell (it is a D_h x D_h matrix that depends on h_s)'; this uses 1 - h_{s-1}^2.",
      gradient_norms='''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    Js = []
    for t in range(T):
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [P.square().sum((-2, -1)).sqrt().mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        norms.append(P.square().sum((-2, -1)).sqrt().mean())
    return torch.stack(norms)
'''))
S(sub("w_p5_rms_over_batch", False,
      "Part 5: 'computed for each example and then averaged over the batch (norm first, then mean)'; this is the norm of the "
      "whole (B, D_h, D_h) stack over sqrt(B), the root mean square.",
      gradient_norms='''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [torch.linalg.norm(P) / math.sqrt(B)]
    for k in range(1, T):
        P = P @ Js[T - k]
        norms.append(torch.linalg.norm(P) / math.sqrt(B))
    return torch.stack(norms)
'''))
S(sub("w_p5_product_reversed", False,
      "Part 5: dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}; this multiplies them in the opposite order.",
      gradient_norms='''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [P.square().sum((-2, -1)).sqrt().mean()]
    for k in range(1, T):
        P = Js[T - k] @ P
        norms.append(P.square().sum((-2, -1)).sqrt().mean())
    return torch.stack(norms)
'''))
S(sub("w_p5_quadratic_recompute", False,
      "Intro: 'sequences of more than a thousand steps' and 'a call should take a fraction of a second'; this rebuilds every "
      "product from scratch, T^2/2 matrix products per call.",
      gradient_norms='''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    eye = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = []
    for k in range(T):
        P = eye
        for s in range(T - 1, T - 1 - k, -1):
            P = P @ Js[s]
        norms.append(P.square().sum((-2, -1)).sqrt().mean())
    return torch.stack(norms)
'''))
S(sub("w_p5_spectral_norm", False,
      "Part 5: 'the Frobenius norm of dh_{T-1}/dh_{T-1-k}' and 'Entry 0 is the norm of the identity, sqrt(D_h)'; this uses the "
      "spectral norm (the visible case has D_h = 1, where they agree).",
      gradient_norms='''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(P, ord=2).mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        norms.append(torch.linalg.matrix_norm(P, ord=2).mean())
    return torch.stack(norms)
'''))

DEC = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T
    cov = torch.zeros(h.shape[:2], dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((QUERY @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        SOFTMAX
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        COVERAGE
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''
SM = '''e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)'''
def dec(query="s", softmax=SM, coverage="cov = cov + a"):
    return DEC.replace("QUERY", query).replace("SOFTMAX", softmax).replace("COVERAGE", coverage)

S(sub("w_p6_coverage_last_step_only", False,
      "Part 6: c_{t+1,j} = c_{t,j} + alpha_{t,j}, 'the attention j has received so far'; this keeps only the last step's weights "
      "(equal to the sum at T = 2, the visible case).",
      additive=dec(coverage="cov = a")))
S(sub("w_p6_coverage_mean", False,
      "Part 6: coverage is the SUM c_{t+1} = c_t + alpha_t; this divides it by the number of earlier steps (same at T = 2).",
      additive=dec(coverage="cov = (cov * t + a) / (t + 1)")))
S(sub("w_p6_softmax_then_renormalise", False,
      "Part 6: 'The softmax runs over the source positions j, and padding positions get weight 0'; a softmax over all positions "
      "then renormalised over the real ones underflows to 0/0 = NaN when a padding score exceeds the real ones by ~90+ "
      "(intro: 'weights large enough that a softmax ... overflows').",
      additive=dec(softmax='''a = torch.softmax(e, dim=-1) * allowed
        a = a / a.sum(-1, keepdim=True)''')))
S(sub("w_p6_query_is_start_state", False,
      "Part 6: 'the query is the decoder's previous state' s_{t-1}; this always uses s_{-1} (the visible case has W_q = 0).",
      additive=dec(query="s0")))
S(sub("w_p6_coverage_added_in_place", False,
      "Part 6: 'Gradients must flow through states and weights ... the hidden tests compare their gradients'; cov += a in place "
      "modifies a tensor that the previous step's product cov * w_c saved, so backward() raises (values are right).",
      additive=dec(coverage="cov += a")))

# ------------------------------------------------------------------ correct answers
S(sub("c_p1_func_jacrev_vmap", True,
      "Part 1 allows autograd; torch.func.jacrev under vmap is a function transform, differentiable and indifferent to an outer no_grad.",
      rnn_step='''
def leaky_step_jacobian(x, h, p, leak):
    def step(xb, hb):
        return (1 - leak) * hb + leak * torch.tanh(xb @ p["W_ih"].T + p["b_ih"] + hb @ p["W_hh"].T + p["b_hh"])
    with torch.enable_grad():
        return torch.func.vmap(torch.func.jacrev(step, argnums=1))(x, h)
'''))
S(sub("c_p1_autograd_rows", True,
      "Part 1 allows autograd with create_graph; one backward per row, batch summed since examples are independent.",
      rnn_step='''
def leaky_step_jacobian(x, h, p, leak):
    D = h.shape[-1]
    with torch.enable_grad():
        hh = h if h.requires_grad else h.clone().requires_grad_(True)
        out = (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        rows = [torch.autograd.grad(out[:, i].sum(), hh, create_graph=True)[0] for i in range(D)]
    J = torch.stack(rows, dim=1)
    if not any(t.requires_grad for t in (x, h, leak, *p.values())):
        J = J.detach()
    return J
'''))
S(sub("c_p1_sech2_float64_einsum", True,
      "Part 1 by hand: (1-t)(1+t) for the derivative, float64 inside and cast back, einsum with a diag_embed; still identity "
      "exactly at rate 0.",
      rnn_step='''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    X, H, L = x.double(), h.double(), leak.double()
    P = {k: v.double() for k, v in p.items()}
    t = torch.tanh(torch.einsum("bi,hi->bh", X, P["W_ih"]) + P["b_ih"] + torch.einsum("bi,hi->bh", H, P["W_hh"]) + P["b_hh"])
    d = (1 - t) * (1 + t)
    J = torch.diag_embed((1 - L).expand_as(H)) + torch.einsum("h,bh,hj->bhj", L, d, P["W_hh"])
    return J.to(dt)
'''))
S(sub("c_p2_exact_ints", True, "Part 2: numbers may be int or float; 5/2 and the integer 1536.",
      costs='attention_over_lstm = 5 / 2\nequal_cost_length = 1536\n'))
S(sub("c_p4_per_sequence_loop", True,
      "Part 4 allows any method; one Python loop per sequence, h0 sliced per row, results stacked (zeros at padding).",
      rnn_unroll='''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    outs, firsts = [], []
    for b in range(B):
        n = int(lengths[b])
        hb = x.new_zeros(D_h) if h0 is None else h0[b]
        rows = [x.new_zeros(D_h)] * T
        for t in range(n - 1, -1, -1):
            hb = torch.tanh(x[b, t] @ p["W_ih"].T + p["b_ih"] + hb @ p["W_hh"].T + p["b_hh"])
            rows[t] = hb
        outs.append(torch.stack(rows))
        firsts.append(hb)
    return torch.stack(outs), torch.stack(firsts)
'''))
S(sub("c_p5_calls_part1_no_grad_kwargs", True,
      "Part 5: J_s is Part 1's Jacobian with every rate 1 (an Elman unit), from x_s and h_{s-1}; called by keyword, with an "
      "expanded (stride-0) rate vector and under torch.no_grad() (Part 5 asks only for values).",
      gradient_norms='''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    ones = torch.ones((), dtype=x.dtype).expand(D_h)
    with torch.no_grad():
        h = torch.zeros(B, D_h, dtype=x.dtype)
        Js = []
        for t in range(T):
            Js.append(leaky_step_jacobian(h=h, leak=ones, p=p, x=x[:, t]))
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
        norms = [torch.linalg.matrix_norm(P).mean()]
        for k in range(1, T):
            P = P @ Js[T - k]
            norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''))
S(sub("c_p5_calls_part1_float64_single", True,
      "Part 5 via Part 1 one example at a time ((1, D_in) and (1, D_h) inputs) in float64 with a cast back at the end.",
      gradient_norms='''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    P64 = {k: v.double() for k, v in p.items()}
    X = x.double()
    leak = torch.ones(D_h, dtype=torch.float64)
    total = torch.zeros(T, dtype=torch.float64)
    for b in range(B):
        h = torch.zeros(1, D_h, dtype=torch.float64)
        Js = []
        for t in range(T):
            Js.append(leaky_step_jacobian(X[b:b + 1, t], h, P64, leak)[0])
            h = torch.tanh(X[b:b + 1, t] @ P64["W_ih"].T + P64["b_ih"] + h @ P64["W_hh"].T + P64["b_hh"])
        M = torch.eye(D_h, dtype=torch.float64)
        col = [M.norm()]
        for k in range(1, T):
            M = M @ Js[T - k]
            col.append(M.norm())
        total = total + torch.stack(col)
    return (total / B).to(x.dtype)
'''))
S(sub("c_p6_calls_part4_single_step", True,
      "Part 6: the state update is Part 4's Elman cell on input [x_t; context_t]: one call of rnn_unroll_reverse on a length-1 "
      "sequence, uint8 lengths, h0 by keyword, p with its extra keys; torch.where for the mask, einsum for the context, states "
      "written into a preallocated buffer.",
      additive='''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S_ = h.shape[1]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = x.new_zeros(B, S_)
    one = torch.ones(B, dtype=torch.uint8)
    s = s0
    states = x.new_zeros(B, T, s0.shape[-1])
    weights = []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh(torch.einsum("bd,ad->ba", s, p["W_q"])[:, None] + keys
                                                  + cov[..., None] * p["w_c"]), p["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype))
        a = torch.softmax(e, dim=-1)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        inp = torch.cat([x[:, t], ctx], -1)[:, None]
        outs, s = rnn_unroll_reverse(inp, one, p, h0=s)
        states[:, t] = s
        cov = cov + a
        weights.append(a)
    return states, torch.stack(weights, 1)
'''))
S(sub("c_p6_calls_part4_float64_positional", True,
      "Part 6 with the state step through Part 4 in float64 (higher precision inside, cast back), positional arguments, "
      "int8 lengths, a 4-key dict.",
      additive='''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    X, H, S0 = x.double(), h.double(), s0.double()
    P = {k: v.double() for k, v in p.items()}
    cell = {k: P[k] for k in ("W_ih", "b_ih", "W_hh", "b_hh")}
    B, T, _ = X.shape
    keys = H @ P["W_k"].T
    cov = torch.zeros(H.shape[:2], dtype=torch.float64)
    s = S0
    states, weights = [], []
    lens = torch.ones(B, dtype=torch.int8)
    for t in range(T):
        e = torch.tanh((s @ P["W_q"].T)[:, None, :] + keys + cov[:, :, None] * P["w_c"]) @ P["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * H).sum(1)
        outs, s = rnn_unroll_reverse(torch.cat([X[:, t], ctx], -1)[:, None], lens, cell, s)
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1).to(dt), torch.stack(weights, 1).to(dt)
'''))

# ------------------------------------------------------------------ hostile answers
S(sub("h_p2_float_that_lies", False,
      "Hostile: a float subclass whose comparisons always succeed, with wrong values.",
      costs='''
class Agreeable(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    __hash__ = float.__hash__
attention_over_lstm = Agreeable(1.0)
equal_cost_length = Agreeable(1.0)
'''))
S(sub("h_p1_patch_checkers", False,
      "Hostile: a wrong Jacobian plus no-op replacements of the grader's _close/_equal and of torch's checkers.",
      rnn_step='''
def leaky_step_jacobian(x, h, p, leak):
    return torch.eye(h.shape[-1], dtype=x.dtype).repeat(h.shape[0], 1, 1)
_g = globals()
for _n in ("_" + "close", "_" + "equal"):
    _g[_n] = lambda *a, **k: None
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
'''))
S(sub("h_p5_numpy_via_importlib", False,
      "Hostile: right values computed in NumPy brought in through importlib (intro: another library scores 0).",
      gradient_norms='''
import importlib
def jacobian_norms(x, p):
    np_ = importlib.import_module("num" + "py")
    X = x.double().tolist(); W = {k: np_.array(v.double().tolist()) for k, v in p.items()}
    X = np_.array(X); B, T, _ = X.shape; D = W["W_hh"].shape[0]
    out = np_.zeros(T)
    for b in range(B):
        h = np_.zeros(D); Js = []
        for t in range(T):
            h = np_.tanh(X[b, t] @ W["W_ih"].T + W["b_ih"] + h @ W["W_hh"].T + W["b_hh"])
            Js.append((1 - h * h)[:, None] * W["W_hh"])
        M = np_.eye(D); out[0] += np_.linalg.norm(M)
        for k in range(1, T):
            M = M @ Js[T - k]; out[k] += np_.linalg.norm(M)
    return torch.tensor((out / B).tolist(), dtype=x.dtype)
'''))
