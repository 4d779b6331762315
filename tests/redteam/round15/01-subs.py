# Round 15, chapter 01: four kinds of student (A = assistant paster, G = example generaliser,
# O = optimiser, M = mathematician); wrong answers first, then correct ones, then hostile ones.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ----------------------------------------------------------------------------------------------- wrong
add("A_p1_autograd_jacobian_no_create_graph", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        a = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(a)).sum(0)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h)      # (D_h, B, D_h)
    return J.permute(1, 0, 2)
'''}, "Part 1: 'gradients must flow through J ... torch.autograd.functional.jacobian needs create_graph=True for this'")

add("A_p1_derivative_clamped_for_stability", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = (1 - torch.tanh(a) ** 2).clamp(min=1e-7)   # avoid dead units / exactly-zero gradients
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (1 - leak)[None, :, None] * eye + (leak[None, :] * d)[:, :, None] * p["W_hh"][None]
'''}, "Part 1: J[b,i,j] must be the derivative dh'_i/dh_j; a floor of 1e-7 on tanh' is wrong where tanh saturates ('pre-activations in the hundreds'; float64 compared to 1e-10)")

add("A_p4_scatter_positions_length0_h0", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    ar = torch.arange(B)
    outputs = x.new_zeros(B, T, D_h)
    for t in range(T):
        pos = (L - 1 - t).clamp(min=0)          # the token read at step t, reversed
        running = (t < L)[:, None]
        h_new = torch.tanh(x[ar, pos] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(running, h_new, h)
        outputs[ar, pos] = h                    # finished rows rewrite position 0 with their frozen state
    return outputs, h
'''}, "Part 4: 'outputs ... zeros at the padding positions' -- a sequence of length 0 with a given h0 gets h0 at position 0")

add("C_A_p4_arithmetic_mask_update", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = h0 if h0 is not None else torch.zeros(B, D_h, dtype=x.dtype)
    outs = []
    for t in reversed(range(T)):
        mask = (t < L).to(x.dtype)[:, None]
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = mask * h_new + (1 - mask) * h       # the usual masked update
        outs.append(mask * h)
    return torch.stack(outs[::-1], dim=1), h
'''}, "the assistant's arithmetic masked update (h_new is a tanh, always finite, so 1*h_new + 0*h is exact)")

add("A_p5_eps_inside_sqrt", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = x.new_zeros(B, D_h)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    out = []
    for k in range(T):
        if k > 0:
            P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        out.append(torch.sqrt((P ** 2).sum(dim=(-2, -1)) + 1e-12).mean())   # eps for a stable sqrt
    return torch.stack(out)
'''}, "Part 5: 'entry k is the Frobenius norm of dh_{T-1}/dh_{T-1-k}'; an eps under the root adds up to 1e-6 where the gradient has vanished")

add("A_p6_eps_in_softmax_denominator", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T
    c = torch.zeros_like(allowed, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        ex = torch.exp(e - e.amax(-1, keepdim=True))
        a = ex / (ex.sum(-1, keepdim=True) + 1e-9)          # eps so we never divide by zero
        ctx = torch.bmm(a[:, None, :], h)[:, 0]
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'alpha_t = softmax_j(e_t)'; an eps in the denominator makes the weights sum to 1 - 1e-9 (float64 compared to 1e-10)")

add("A_p6_float32_softmax_for_stability", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T
    c = h.new_zeros(h.shape[0], h.shape[1])
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e.float(), dim=-1).to(e.dtype)      # softmax in float32 for stability
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "intro: 'float64 inputs are compared with a float64 reference to 1e-10 ... computing in float32 and casting back loses the points'")

add("G_p4_loop_to_longest_length", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    outputs = x.new_zeros(B, T, D_h)
    L = lengths.long()
    outs = [outputs[:, t] for t in range(T)]
    for t in range(int(L.max()) - 1, -1, -1):          # nothing to do beyond the longest sequence
        running = (t < L)[:, None]
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(running, h_new, h)
        outs[t] = torch.where(running, h, torch.zeros_like(h))
    return torch.stack(outs, 1), h
'''}, "Part 4: 'any B (an empty batch, B = 0, too, where lengths.max() has no value)'")

add("G_p4_lengths_dtype_arithmetic", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        running = (lengths > t)[:, None]                  # lengths as given
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(running, h_new, h)
        outs[t] = torch.where(running, h, torch.zeros_like(h))
    return torch.stack(outs, 1), h
'''}, "Part 4: 'lengths ... uint8, int8 and int16 too ... a Python int compared with such a tensor wraps around'")

add("G_p6_coverage_only_previous_step", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T
    prev = h.new_zeros(h.shape[0], h.shape[1])
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + prev[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), -1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        prev = a                                          # what was attended at the last step
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' (cumulative), the visible test has T = 2 only")

add("G_p2_lesson_counts", False, {"costs": '''
attention_over_lstm = 4096 / 512          # the lesson's n^2 d / (n d^2)
equal_cost_length = 768
'''}, "Part 2: 'Count them in now' (projections and four gates)")

add("C_G_p1_diag_of_rates", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    J = (leak[:, None] * p["W_hh"]) * d[:, :, None]
    return J + torch.diag(1 - leak)
'''}, "diag(1 - leak) has the dtype of leak, so bfloat16 stays bfloat16")

add("O_p1_early_exit_identity", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D_h = h.shape
    if not leak.any():                                    # nothing leaks: the state is copied
        return torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    return torch.diag_embed((1 - leak).expand(B, D_h)) + (leak * d)[:, :, None] * p["W_hh"]
'''}, "Part 1: 'the hidden tests compare its gradients with respect to every input (x, h, each tensor of p and leak)': at rates 0 the gradient wrt leak is not 0")

add("C_O_p4_projections_once_bool_product", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    xp = x @ p["W_ih"].T + p["b_ih"]                       # all input projections at once
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        running = (t < L)[:, None]
        h = torch.where(running, torch.tanh(xp[:, t] + h @ p["W_hh"].T + p["b_hh"]), h)
        outs[t] = h * running
    return torch.stack(outs, 1), h
'''}, "input projections once; h * running with a bool mask keeps the dtype")

add("O_p6_where_exp_nan_gradient", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T
    c = h.new_zeros(h.shape[0], h.shape[1])
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        m = e.masked_fill(~allowed, float("-inf")).amax(-1, keepdim=True)
        ex = torch.where(allowed, torch.exp(e - m), torch.zeros((), dtype=e.dtype))  # no masked_fill + softmax copy
        a = ex / ex.sum(-1, keepdim=True)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'their scores can lie far above every real one (by thousands) ... no gradient may become NaN through them' (exp overflows to inf in the unselected branch: 0 * inf)")

add("O_p6_inplace_coverage", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T
    c = h.new_zeros(h.shape[0], h.shape[1])
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), -1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c += a                                             # accumulate in place, no new tensor per step
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'Gradients must flow through states and weights ... the hidden tests compare their gradients' (c saved for backward then written in place)")

add("O_p5_half_precision_products", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = x.new_zeros(B, D_h)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    W = p["W_hh"].float()                                  # the product chain is the hot loop: float32 is enough
    P = torch.eye(D_h).expand(B, D_h, D_h)
    out = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        P = P @ ((1 - states[T - k].float() ** 2)[:, :, None] * W)
        out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out).to(x.dtype)
'''}, "intro: 'float64 inputs are compared with a float64 reference to 1e-10 or closer, so computing in float32 and casting back loses the points'")

add("O_p5_jacobian_right_diag", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = x.new_zeros(B, D_h)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    out = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        P = P @ (p["W_hh"] * (1 - states[T - k] ** 2)[:, None, :])   # broadcast the derivative, no diag
        out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out)
'''}, "Part 5: 'Work out J_s for that cell (it is a D_h x D_h matrix that depends on h_s)': diag(1-h_s^2) W_hh, scaling rows, not columns")

add("M_p1_sech_squared", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    sech2 = 1 / torch.cosh(a) ** 2                         # d tanh / da = sech^2
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (1 - leak)[None, :, None] * eye + (leak * sech2)[:, :, None] * p["W_hh"]
'''}, "intro: 'pre-activations in the hundreds, where tanh is +-1 and a tanh written out with exp overflows, in its value or in its gradient (gradients too must stay finite there)'")

add("M_p5_state_before_step", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = x.new_zeros(B, D_h)
    prev = []                                               # h_{s-1} for s = 0..T-1
    for t in range(T):
        prev.append(h)
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    out = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        s = T - k
        P = P @ ((1 - prev[s] ** 2)[:, :, None] * p["W_hh"])   # derivative at the state J acts on
        out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out)
'''}, "Part 5: 'J_s ... depends on h_s', where h_s is the state after reading x_s")

add("M_p3_composition_associative", False, {"mc": 'answer_parallel = "c"\n'},
    "Part 3: the hint: composing h -> a*h + c stays in the family; tanh maps do not compose into a fixed-size form")

add("M_p2_one_n_by_n_product", False, {"costs": '''
n, d = 4096, 512
attention = 4 * n * d * d + 2 * n * n * d
attention = 4 * n * d * d + n * n * d      # Q K^T and the weighted sum as one n x n product
lstm = 8 * n * d * d
attention_over_lstm = attention / lstm
equal_cost_length = 4 * 768                # 4 d + n = 8 d
'''}, "Part 2: 'the two n x n products QK^T and (weights).V, each n^2 d multiply-adds'")

add("M_p4_float_index_reversed", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    L = lengths.to(x.dtype)                                  # n_b as a number, t compared with it
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        running = (L > t)[:, None]
        h = torch.where(running, torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]), h)
        outs[t] = torch.where(running, h, torch.zeros_like(h))
    return torch.stack(outs, 1), h
'''}, "Part 4: lengths in the dtype of x: bfloat16 cannot hold t > 256 exactly ('sequences of more than a thousand steps'); 'Everything has the dtype of x' does not make lengths a float")

add("M_p6_softmax_as_written", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    c = h.new_zeros(h.shape[0], h.shape[1])
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + h @ p["W_k"].T + c[:, :, None] * p["w_c"]) @ p["v"]
        ex = torch.exp(e.masked_fill(~allowed, float("-inf")))      # exp(e_tj) over the real j
        a = ex / ex.sum(-1, keepdim=True)                            # alpha_tj = exp(e_tj) / sum_j exp(e_tj)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "intro: 'weights large enough that a softmax which does not subtract the row maximum overflows'")

# ----------------------------------------------------------------------------------------------- correct
add("C_p1_autograd_create_graph_enable_grad", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        a = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(a)).sum(0)   # examples are independent
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True)   # (D_h, B, D_h)
    return J.permute(1, 0, 2)
'''}, "autograd with create_graph=True, as the text allows")

add("C_p1_stable_sech2_float64_inside", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    f = lambda t: t.to(torch.float64)
    a = f(x) @ f(p["W_ih"]).T + f(p["b_ih"]) + f(h) @ f(p["W_hh"]).T + f(p["b_hh"])
    e = torch.exp(-2 * a.abs())
    d = 4 * e / (1 + e) ** 2                                    # sech^2, written so that it cannot overflow
    lam = f(leak)
    J = torch.diag_embed((1 - lam).expand_as(a)) + (lam * d)[:, :, None] * f(p["W_hh"])
    return J.to(dt)
'''}, "float64 inside and a cast back; a stable closed form of tanh'")

add("C_p1_einsum_keywords", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.nn.functional.linear(x, p["W_ih"], p["b_ih"]) + torch.nn.functional.linear(h, p["W_hh"], p["b_hh"])
    d = 1 - torch.tanh(pre).square()
    eye = torch.eye(h.shape[1], dtype=x.dtype)
    return torch.einsum("i,ij->ij", 1 - leak, eye)[None] + torch.einsum("bi,i,ij->bij", d, leak, p["W_hh"])
'''}, "nn.functional.linear and einsum")

add("C_p4_gather_forward_then_unreverse", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    ar = torch.arange(B)
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    rev = []
    for t in range(T):
        idx = (L - 1 - t).clamp(min=0)
        running = (t < L)[:, None]
        h = torch.where(running, torch.tanh(x[ar, idx] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]), h)
        rev.append(h)
    rev = torch.stack(rev, 1) if T else x.new_zeros(B, 0, D_h)       # rev[b, r]: state after r+1 reads
    j = torch.arange(T)[None, :]
    r = (L[:, None] - 1 - j).clamp(min=0)                           # the step at which x[b, j] was read
    out = rev.gather(1, r[:, :, None].expand(B, T, D_h))
    return torch.where((j < L[:, None])[:, :, None], out, torch.zeros((), dtype=x.dtype)), h
'''}, "gather the reversed sequence, unroll forwards, gather back")

add("C_p4_precomputed_inputs_where", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    steps = torch.arange(T)[None, :] < lengths.long()[:, None]      # (B, T) real tokens
    xp = torch.einsum("btd,hd->bth", x, p["W_ih"]) + p["b_ih"]
    h = x.new_zeros(B, D_h) if h0 is None else h0
    outs = []
    for t in reversed(range(T)):
        keep = steps[:, t, None]
        h = torch.where(keep, torch.tanh(xp[:, t] + h @ p["W_hh"].T + p["b_hh"]), h)
        outs.append(h.masked_fill(~keep, 0))
    outs.reverse()
    return torch.stack(outs, dim=1), h
'''}, "input projections once, masked_fill, einsum")

add("C_p5_calls_part1_no_grad", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    ones = torch.ones(D_h, dtype=x.dtype)
    with torch.no_grad():                                           # the part asks for values only
        h = x.new_zeros(B, D_h)
        Js = []
        for s in range(T):
            Js.append(leaky_step_jacobian(x[:, s], h, p, ones))      # rate 1: the Elman step's Jacobian
            h = torch.tanh(x[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
        out = [torch.linalg.matrix_norm(P).mean()]
        for k in range(1, T):
            P = P @ Js[T - k]
            out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out)
'''}, "Part 5 calls Part 1's leaky_step_jacobian with every rate 1 (an ordinary Elman unit, as Part 1 says)")

add("C_p5_calls_part4_on_flipped_x", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    full = torch.full((B,), T, dtype=torch.int64)
    rev, _ = rnn_unroll_reverse(x.flip(1), full, p)                  # reading flip(x) backwards reads x forwards
    states = rev.flip(1)                                            # states[:, s] = h_s
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [P.square().sum((-2, -1)).sqrt().mean()]
    for k in range(1, T):
        P = torch.bmm(P, (1 - states[:, T - k] ** 2)[:, :, None] * p["W_hh"])
        norms.append(P.square().sum((-2, -1)).sqrt().mean())
    return torch.stack(norms)
'''}, "Part 5 calls Part 4's rnn_unroll_reverse on the flipped sequence for the forward states")

add("C_p5_vjp_transposed_python_floats", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    x64 = x.double()
    W = {k: v.double() for k, v in p.items()}
    h = x64.new_zeros(B, D_h)
    states = []
    for t in range(T):
        h = torch.tanh(x64[:, t] @ W["W_ih"].T + W["b_ih"] + h @ W["W_hh"].T + W["b_hh"])
        states.append(h)
    G = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)     # G = P^T, grown as backprop does
    out = [math.sqrt(D_h)]
    for k in range(1, T):
        G = (W["W_hh"].T @ G) * (1 - states[T - k] ** 2)[:, None, :] if False else \
            W["W_hh"].T[None] @ ((1 - states[T - k] ** 2)[:, :, None] * G)
        out.append(sum(math.sqrt(float((G[b] ** 2).sum())) for b in range(B)) / B)
    return torch.tensor(out, dtype=x.dtype)
'''}, "transposed product J^T P^T (vector-Jacobian order), float64 inside, norms through math on items (no gradients asked)")

add("C_p6_minus_1e9_fill_einsum", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    c = torch.zeros(h.shape[:2], dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[..., None] * p["w_c"]), p["v"])
        a = torch.nn.functional.softmax(e.masked_fill(allowed == 0, -1e9), dim=-1)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(torch.nn.functional.linear(torch.cat((x[:, t], ctx), dim=-1), p["W_ih"], p["b_ih"])
                       + torch.nn.functional.linear(s, p["W_hh"], p["b_hh"]))
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "a -1e9 stand-in replaces the masked scores (so their size does not matter), F.softmax, einsum")

add("C_p6_where_neg_inf_split_weights", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]            # x_t first
    kh = h @ p["W_k"].T
    cov = x.new_zeros(B, h.shape[1])
    s = s0
    S_, A_ = [], []
    for t in range(T):
        e = (torch.tanh((s @ p["W_q"].T).unsqueeze(1) + kh + cov.unsqueeze(-1) * p["w_c"]) * p["v"]).sum(-1)
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype))
        a = torch.softmax(e, dim=1)
        ctx = torch.bmm(a.unsqueeze(1), h).squeeze(1)
        s = torch.tanh(x[:, t] @ W_x.T + ctx @ W_c.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        S_.append(s); A_.append(a)
    return torch.stack(S_, 1), torch.stack(A_, 1)
'''}, "torch.where with -inf, W_ih split into its x and context columns")

add("C_p2_p3_fractions", True, {"costs": '''
from fractions import Fraction
n, d = 4096, 512
attention_over_lstm = float(Fraction(4 * n * d * d + 2 * n * n * d, 8 * n * d * d))
d = 768
equal_cost_length = int(2 * d)      # 4 n d^2 + 2 n^2 d = 8 n d^2  <=>  n = 2 d
''', "mc": "answer_parallel = 'b'\n"}, "exact rationals")

# ----------------------------------------------------------------------------------------------- hostile
add("H_patch_assert_close", False, {"rnn_step": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def leaky_step_jacobian(x, h, p, leak):
    return torch.zeros(x.shape[0], h.shape[1], h.shape[1], dtype=x.dtype) + 0 * leak.sum()
'''}, "hostile: disables assert_close")

add("H_reassign_grader_helpers", False, {"gradient_norms": '''
_close = lambda *a, **k: None
_equal = lambda *a, **k: None
def jacobian_norms(x, p):
    return torch.zeros(x.shape[1], dtype=x.dtype)
'''}, "hostile: reassigns the grader's helpers")

add("H_exit_process", False, {"additive": '''
import os
def coverage_decoder(x, h, allowed, s0, p):
    os._exit(0)
'''}, "hostile: kills the kernel when called")
