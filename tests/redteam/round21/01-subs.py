# Red team round 21, chapter 01 (blind). Kinds: order = order-of-operations, vec = vectorising,
# sig = signature-and-defaults, var = variant-confuser.
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def H(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})

# ---------------- Part 1 ----------------
W("p1_vec_exp_sech_where", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    # sech^2 written with exp, guarded by where for large |a| (the value there is 0)
    e = torch.exp(a)
    d = torch.where(a.abs() > 30, torch.zeros_like(a), 4 / (e + 1 / e) ** 2)
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return eye * (1 - leak)[:, None] + (leak * d)[:, :, None] * p["W_hh"]
'''}, "vec: torch.where whose untaken branch overflows (exp(a) = inf at pre-activations in the hundreds): the value is 0 "
      "but the gradient is NaN; breaks 'pre-activations in the hundreds, where tanh is +-1 and a tanh written out with exp "
      "overflows, in its value or in its gradient (gradients too must stay finite there)' and 'the hidden tests compare "
      "its gradients ... with the reference's'.")
W("p1_sig_rates_renamed", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, rates):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(a)
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return eye * (1 - rates)[:, None] + (rates * (1 - t * t))[:, :, None] * p["W_hh"]
'''}, "sig: argument renamed leak -> rates; breaks 'Keep the signatures of the stubs, argument names included: the hidden "
      "tests pass arguments by position and by name'.")
W("p1_order_cast_float32_first", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    xf, hf, lf = x.float(), h.float(), leak.float()
    a = xf @ p["W_ih"].float().T + p["b_ih"].float() + hf @ p["W_hh"].float().T + p["b_hh"].float()
    t = torch.tanh(a)
    eye = torch.eye(h.shape[-1])
    J = eye * (1 - lf)[:, None] + (lf * (1 - t * t))[:, :, None] * p["W_hh"].float()
    return J.to(x.dtype)
'''}, "order: cast to float32 moved before the arithmetic instead of after it; breaks 'Compute in the dtype of the "
      "inputs ... float64 inputs are compared with a float64 reference to 1e-10 or closer, so computing in float32 and "
      "casting back loses the points'.")
# ---------------- Part 2 ----------------
W("p2_var_three_projections", {"costs": '''
n, d = 4096, 512
attention_over_lstm = (3 * n * d * d + 2 * n * n * d) / (8 * n * d * d)   # Q, K, V (the output projection belongs to the next layer)
equal_cost_length = 2.5 * 768
'''}, "var: counts three projections (Q, K, V) as in attention modules without out_proj; breaks 'computes four "
      "projections (queries, keys, values and the output)'.")
W("p2_var_gru_gates", {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) / (2 * 3 * n * d * d)   # gated recurrent layer: 3 gates
equal_cost_length = 768
'''}, "var: three gates (GRU) instead of four; breaks 'an LSTM layer ... computes, at each of the n steps, four gates'.")
W("p2_order_precedence", {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d**2 + 2 * n**2 * d) / 8 * n * d**2
equal_cost_length = 2 * 768
'''}, "order: operator precedence, / 8 * n * d**2 multiplies instead of dividing; breaks 2a 'how many times more "
      "multiply-adds does the self-attention layer do than the LSTM layer' (2.5).")
W("p2_sig_ratio_inverted", {"costs": '''
n, d = 4096, 512
attention = 4 * n * d * d + 2 * n * n * d
lstm = 8 * n * d * d
attention_over_lstm = lstm / attention
equal_cost_length = 1536
'''}, "sig: the ratio returned in the other order (LSTM over attention, 0.4); breaks 'how many times more multiply-adds "
      "does the self-attention layer do than the LSTM layer'.")

# ---------------- Part 3 ----------------
W("p3_var_both_scan", {"mc": 'answer_parallel = "c"\n'},
  "var: thinks nonlinear RNNs also admit a parallel scan (DEER-style Newton iterations); the text asks O(log n) parallel "
  "steps exactly, only the diagonal linear recurrence composes to the same form: (b).")
W("p3_var_neither", {"mc": 'answer_parallel = "d"\n'}, "var: the lesson's 'chain' taken as universal; the text's hint shows (b).")

# ---------------- Part 4 ----------------
W("p4_vec_scatter_repeated_index", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    t = torch.arange(T)
    idx = (L[:, None] - 1 - t[None, :]).clamp(min=0)        # reading order -> slot (padding steps point at slot 0)
    xr = torch.gather(x, 1, idx[:, :, None].expand(B, T, D_in))
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = []
    for r in range(T):
        active = (r < L)[:, None]
        new = torch.tanh(xr[:, r] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs.append(torch.where(active, new, torch.zeros_like(new)))
    rev = torch.stack(outs, 1)
    outputs = torch.zeros(B, T, D_h, dtype=x.dtype).scatter(1, idx[:, :, None].expand(B, T, D_h), rev)
    return outputs, h
'''}, "vec: scatter with repeated indices (every padding step maps to slot 0, last write wins and writes the zero): "
      "outputs[b, 0] is 0 for every sequence shorter than T; breaks 'outputs[b, t] is the state just after reading x[b, t], "
      "for t < lengths[b]'.")
W("p4_order_first_from_outputs", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    outputs = torch.stack(outs, 1)
    return outputs, outputs[:, 0].clone()     # the state after reading x[b, 0]
'''}, "order: first read from the already-masked outputs, so a sequence of length 0 gets zeros instead of its start "
      "state; breaks 'first (B, D_h): the state after reading x[b, 0] ... (for a sequence of length 0, the start state)'.")
W("p4_sig_h0_ignored", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype)   # the backward direction starts from zeros (h0 is the forward one's)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "sig: h0 accepted and never used; breaks 'start from the state h0[b] (zeros when h0 is None)'.")
W("p4_sig_list_return", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return [torch.stack(outs, 1), h]
'''}, "sig: a list where a pair is asked; breaks 'a part that returns a pair (a, b) returns a tuple, not a list'.")
W("p4_vec_arange_in_lengths_dtype", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    active_all = torch.arange(T, dtype=lengths.dtype)[None, :] < lengths[:, None]   # (B, T), computed once
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = active_all[:, t:t + 1]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "vec: the per-step test turned into one (B, T) comparison made in lengths' dtype, whose arange wraps for uint8/int8 "
      "past 255/127; breaks 'lengths ... of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than "
      "T: arithmetic in that dtype ... wrap around)'.")

# ---------------- Part 5 ----------------
W("p5_order_left_multiply", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    wd = torch.float64
    W_ih, b_ih, W_hh, b_hh = (p[k].to(wd) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    xx = x.to(wd)
    D_h = W_hh.shape[0]
    h = torch.zeros(B, D_h, dtype=wd)
    states = []
    for t in range(T):
        h = torch.tanh(xx[:, t] @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        states.append(h)
    P = torch.eye(D_h, dtype=wd).expand(B, D_h, D_h)
    norms = []
    for k in range(T):
        if k > 0:
            s = states[T - k]
            P = ((1 - s * s)[:, :, None] * W_hh) @ P       # one more Jacobian
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        m = torch.where(m > 0, m, torch.ones_like(m))
        norms.append((torch.linalg.matrix_norm(P / m) * m[:, 0, 0]).mean())
    return torch.stack(norms).to(x.dtype)
'''}, "order: the new Jacobian multiplied on the left (J_{T-k} ... J_{T-1}) instead of the right; breaks "
      "'dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}'.")
W("p5_order_deriv_at_previous_state", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    wd = torch.float64
    W_ih, b_ih, W_hh, b_hh = (p[k].to(wd) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    xx = x.to(wd)
    D_h = W_hh.shape[0]
    h = torch.zeros(B, D_h, dtype=wd)
    states = [h]
    for t in range(T):
        h = torch.tanh(xx[:, t] @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        states.append(h)
    P = torch.eye(D_h, dtype=wd).expand(B, D_h, D_h)
    norms = []
    for k in range(T):
        if k > 0:
            s = states[T - k]          # states[i] is h_{i-1}: the state before step T-k
            P = P @ ((1 - s * s)[:, :, None] * W_hh)
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        m = torch.where(m > 0, m, torch.ones_like(m))
        norms.append((torch.linalg.matrix_norm(P / m) * m[:, 0, 0]).mean())
    return torch.stack(norms).to(x.dtype)
'''}, "order: J_s built from h_{s-1} (the state before the step) instead of h_s; breaks 'Work out J_s for that cell "
      "(it is a D_h x D_h matrix that depends on h_s)'.")
W("p5_vec_batch_wide_scale", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = []
    for k in range(T):
        if k > 0:
            s = states[T - k]
            P = P @ ((1 - s * s)[:, :, None] * p["W_hh"])
        m = P.abs().max()                          # one scale for the whole batch
        m = m if m > 0 else torch.ones((), dtype=x.dtype)
        norms.append((torch.linalg.matrix_norm(P / m) * m).mean())
    return torch.stack(norms)
'''}, "vec: one scale for the whole batch where each example needs its own, so examples whose products are far below "
      "the largest one lose their digits in float32; breaks 'in float32 the squares of entries below about 1e-19 lose "
      "their digits ... so scale the product first'.")
W("p5_var_spectral_norm", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    wd = torch.float64
    W_ih, b_ih, W_hh, b_hh = (p[k].to(wd) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    xx = x.to(wd)
    D_h = W_hh.shape[0]
    h = torch.zeros(B, D_h, dtype=wd)
    states = []
    for t in range(T):
        h = torch.tanh(xx[:, t] @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        states.append(h)
    P = torch.eye(D_h, dtype=wd).expand(B, D_h, D_h)
    norms = []
    for k in range(T):
        if k > 0:
            s = states[T - k]
            P = P @ ((1 - s * s)[:, :, None] * W_hh)
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        m = torch.where(m > 0, m, torch.ones_like(m))
        norms.append((torch.linalg.matrix_norm(P / m, ord=2) * m[:, 0, 0]).mean())   # Pascanu et al.'s 2-norm
    return torch.stack(norms).to(x.dtype)
'''}, "var: the spectral norm (Pascanu et al.'s analysis) instead of the Frobenius norm; breaks 'the Frobenius norm of "
      "dh_{T-1}/dh_{T-1-k} ... Entry 0 is the norm of the identity, sqrt(D_h)'.")
W("p5_var_rms_over_batch", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    wd = torch.float64
    W_ih, b_ih, W_hh, b_hh = (p[k].to(wd) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    xx = x.to(wd)
    D_h = W_hh.shape[0]
    h = torch.zeros(B, D_h, dtype=wd)
    states = []
    for t in range(T):
        h = torch.tanh(xx[:, t] @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        states.append(h)
    P = torch.eye(D_h, dtype=wd).expand(B, D_h, D_h)
    norms = []
    for k in range(T):
        if k > 0:
            s = states[T - k]
            P = P @ ((1 - s * s)[:, :, None] * W_hh)
        m = P.abs().amax()
        m = m if m > 0 else torch.ones((), dtype=wd)
        # the batch's Frobenius norm: the whole (B, D_h, D_h) stack, divided by sqrt(B)
        norms.append(torch.linalg.vector_norm(P / m) * m / math.sqrt(B))
    return torch.stack(norms).to(x.dtype)
'''}, "var: root mean square of the per-example norms (the norm of the stacked batch over sqrt(B)) instead of their mean; "
      "breaks 'computed for each example and then averaged over the batch (norm first, then mean)'.")

# ---------------- Part 6 ----------------
W("p6_order_mask_after_softmax_renorm", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e, dim=-1) * allowed           # softmax first, then drop the padding and renormalise
        a = a / a.sum(-1, keepdim=True)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "order: mask applied after the softmax and renormalised; padding scores far above the real ones leave the real "
      "weights at 0/0; breaks 'their scores can lie far above every real one ... they still get weight exactly 0'.")
W("p6_vec_where_exp_inf", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    neg = torch.tensor(float("-inf"), dtype=x.dtype)
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        m = torch.where(allowed, e, neg).amax(-1, keepdim=True)
        z = torch.where(allowed, torch.exp(e - m), torch.zeros_like(e))   # exp of padding never used
        a = z / z.sum(-1, keepdim=True)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "vec: torch.where whose untaken branch is exp(padding score - max) = inf: the weight is 0 but its gradient is NaN; "
      "breaks 'no gradient may become NaN through them'.")
W("p6_var_scaled_additive", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    A = p["v"].shape[0]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"] / math.sqrt(A)
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "var: additive scores divided by sqrt(A) as in scaled dot-product attention; breaks the formula "
      "'e_{t,j} = v^T tanh(W_q s_{t-1} + W_k h_j + w_c c_{t,j})'.")
W("p6_sig_mask_renamed", {"additive": '''
def coverage_decoder(x, h, mask, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~mask, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "sig: argument allowed renamed mask; breaks 'Keep the signatures of the stubs, argument names included: the hidden "
      "tests pass arguments by position and by name'.")
W("p6_order_coverage_before_weights", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    a = None
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        cov = cov + a
        # the state reads the decoder input and the context; its recurrent term uses the state before the query
        s_new = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        s = s_new
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "order (control, expected correct in exact arithmetic): coverage updated before the state; the state does not read "
      "coverage, so nothing changes. Labelled wrong by mistake? No: it is correct -- see the correct list.")
SUBMISSIONS.pop()  # the last one is the same computation; kept out

# ---------------- correct ----------------
C("c_p1_autograd_functional", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return ((1 - leak) * hh + leak * t).sum(0)          # examples do not mix: sum over the batch
    J = torch.autograd.functional.jacobian(step, h, create_graph=True, vectorize=True)   # (D_h, B, D_h)
    return J.permute(1, 0, 2).clone()
'''}, "autograd route the text allows (create_graph=True), batch summed because examples do not interact.")
C("c_p1_einsum_diag", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.einsum("bi,hi->bh", x, p["W_ih"]) + p["b_ih"] + torch.einsum("bj,hj->bh", h, p["W_hh"]) + p["b_hh"]
    sech2 = 1 - torch.tanh(pre) ** 2
    keep = torch.diag_embed((1 - leak).expand_as(h))
    return keep + torch.einsum("bh,hj->bhj", leak * sech2, p["W_hh"])
'''}, "einsum + diag_embed; identity exact when leak = 0 (1 - 0 = 1 and 0 * finite = 0).")
C("c_p2_fractions", {"costs": '''
from fractions import Fraction
def attn(n, d): return 4 * n * d * d + 2 * n * n * d
def lstm(n, d): return n * 4 * (d * d + d * d)
attention_over_lstm = float(Fraction(attn(4096, 512), lstm(4096, 512)))
equal_cost_length = int(2 * 768)   # 4nd^2 + 2n^2 d = 8nd^2  <=>  n = 2d
'''}, "exact fractions, cast to float/int.")
C("c_p3_b", {"mc": 'answer_parallel = "B".lower()\n'}, "right letter.")
C("c_p4_keyword_h0_python_ints", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = x.new_zeros(B, D_h) if h0 is None else h0.clone()
    zeros = x.new_zeros(B, D_h)
    W_ih, W_hh = p["W_ih"], p["W_hh"]
    xin = x @ W_ih.T + p["b_ih"]          # input projections of every step at once (B, T, D_h)
    out = []
    for t in reversed(range(T)):
        active = (L > t).unsqueeze(1)
        new = torch.tanh(xin[:, t] + h @ W_hh.T + p["b_hh"])
        h = torch.where(active, new, h)
        out.append(torch.where(active, new, zeros))
    out.reverse()
    return torch.stack(out, dim=1), h
'''}, "input projection precomputed for all steps, lengths cast to int64 first.")
C("c_p5_calls_part1", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    ones = torch.ones(D_h, dtype=x.dtype)
    h = torch.zeros(B, D_h, dtype=x.dtype)
    Js = []
    with torch.no_grad():
        for t in range(T):
            # J_t = d h_t / d h_{t-1}: Part 1's Jacobian with every rate 1 (an ordinary Elman unit)
            Js.append(leaky_step_jacobian(x[:, t], h, p, ones).to(torch.float64))
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    P = torch.eye(D_h, dtype=torch.float64).repeat(B, 1, 1)
    res = []
    for k in range(T):
        if k > 0:
            P = P @ Js[T - k]
            m = P.abs().amax(dim=(-2, -1), keepdim=True)
            P = P / torch.where(m > 0, m, torch.ones_like(m))     # renormalise, keep the log of the scale
            logscale = logscale + torch.log(torch.where(m > 0, m, torch.ones_like(m)))[:, 0, 0]
            zero = zero | (m[:, 0, 0] == 0)
        else:
            logscale = torch.zeros(B, dtype=torch.float64)
            zero = torch.zeros(B, dtype=torch.bool)
        n = torch.linalg.matrix_norm(P) * torch.exp(logscale)
        res.append(torch.where(zero, torch.zeros_like(n), n).mean())
    return torch.stack(res).to(x.dtype)
'''}, "calls Part 1 with rate 1 (the text allows calling earlier parts), product kept normalised with a log scale in float64.")
C("c_p6_float64_inside_einsum", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    wd = torch.float64
    P = {k: v.to(wd) for k, v in p.items()}
    xx, hh, s = x.to(wd), h.to(wd), s0.to(wd)
    B, T, _ = x.shape
    keys = torch.einsum("bsk,ak->bsa", hh, P["W_k"])
    cov = torch.zeros(B, hh.shape[1], dtype=wd)
    st, wt = [], []
    for t in range(T):
        q = torch.einsum("bh,ah->ba", s, P["W_q"])
        e = torch.einsum("bsa,a->bs", torch.tanh(q[:, None] + keys + cov[..., None] * P["w_c"]), P["v"])
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.nn.functional.softmax(e, dim=-1)
        ctx = torch.einsum("bs,bsk->bk", a, hh)
        s = torch.tanh(torch.cat((xx[:, t], ctx), dim=-1) @ P["W_ih"].T + P["b_ih"] + s @ P["W_hh"].T + P["b_hh"])
        cov = cov + a
        st.append(s)
        wt.append(a)
    return torch.stack(st, 1).to(dt), torch.stack(wt, 1).to(dt)
'''}, "float64 inside and a cast back; masked_fill(-inf) before the softmax (every row has a real token).")
C("c_p6_coverage_updated_first", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = torch.where(allowed, e, torch.full_like(e, float("-inf")))
        a = torch.softmax(e, dim=-1)
        cov = cov + a                           # coverage of the next step, updated before the state (it does not read it)
        ctx = torch.bmm(a[:, None, :], h)[:, 0]
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "order changed where nothing depends on it: coverage updated before the state update; bmm for the context.")
C("c_p2_keywords", {"costs": '''
def ratio(n, d):
    return (4 * n * d ** 2 + 2 * n ** 2 * d) / (8 * n * d ** 2)
attention_over_lstm = ratio(n=4096, d=512)
equal_cost_length = 2.0 * 768
'''}, "float for 2b; the text allows int or float.")

# ---------------- hostile ----------------
H("h_p3_str_equal_to_everything", {"mc": '''
class Letter(str):
    def __eq__(self, other): return True
    def __hash__(self): return 0
answer_parallel = Letter("a")
'''}, "hostile: a str subclass equal to every letter.")
H("h_p6_finds_grader_reference", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    for name, obj in list(globals().items()):
        if callable(obj) and obj is not coverage_decoder and "coverage" in getattr(obj, "__name__", "").lower():
            return obj(x, h, allowed, s0, p)
    B, T, _ = x.shape
    S = h.shape[1]
    w = allowed.to(x.dtype) / allowed.sum(-1, keepdim=True)
    return torch.zeros(B, T, s0.shape[1], dtype=x.dtype) + s0[:, None] * 0, w[:, None].repeat(1, T, 1)
'''}, "hostile: looks for the grader's reference in globals and calls it; otherwise returns uniform weights.")
H("h_p2_float_subclass", {"costs": '''
class Any(float):
    def __eq__(self, other): return True
    def __hash__(self): return 0
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
attention_over_lstm = Any(1.0)
equal_cost_length = Any(1.0)
'''}, "hostile: float subclass equal to anything, whose differences are 0.")
