# Red team round 26, chapter 01 (blind). Kinds: skimmer, squeeze-and-broadcast, stride-and-layout, remainder-and-boundary.
SUBMISSIONS = []
def S(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: the skimmer
S("skim_p1_eye_default_dtype", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(pre) ** 2
    eye = torch.eye(h.shape[-1])            # identity for the kept part
    return eye * (1 - leak)[:, None] + (leak * d)[:, :, None] * p["W_hh"]
'''}, "skimmer: 'Return it in the dtype of x (all the inputs share it)': a float32 torch.eye turns bfloat16 inputs into a float32 J.")

S("skim_p1_clamp_leak_inplace", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    leak = leak.clamp_(0, 1)                # rates must lie in [0, 1]
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(pre) ** 2
    eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
    return eye * (1 - leak)[:, None] + (leak * d)[:, :, None] * p["W_hh"]
'''}, "skimmer: 'do not write into leak, not even the values it already holds (a leak.clamp_(0, 1) of rates in [0, 1])'.")

S("skim_p2_three_projections", False, {"costs": '''
# attention: projections 3 n d^2 (queries, keys, values) + 2 n^2 d; LSTM: 8 n d^2
n, d = 4096, 512
attention_over_lstm = (3 * n * d * d + 2 * n * n * d) / (8 * n * d * d)
equal_cost_length = 2.5 * 768      # 2 n^2 d = 5 n d^2
'''}, "skimmer: 'a self-attention layer computes four projections (queries, keys, values and the output)': counts three.")

S("skim_p4_returns_list", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return [torch.stack(outs, 1), h]
'''}, "skimmer: 'a part that returns a pair (a, b) returns a tuple, not a list'.")

S("skim_p4_first_is_outputs0", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    outputs = torch.stack(outs, 1)
    return outputs, outputs[:, 0].clone()      # the state after reading x[b, 0]
'''}, "skimmer: '(for a sequence of length 0, the start state)': outputs[:, 0] is zeros there, not h0[b].")

S("skim_p5_mean_then_norm", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    W = p["W_hh"].double()
    out = [math.sqrt(D_h)]
    for k in range(1, T):
        P = P @ ((1 - states[T - k].double() ** 2)[:, :, None] * W)
        M = P.mean(0)                               # average gradient over the batch
        m = M.abs().max()
        out.append(float(torch.linalg.matrix_norm(M / m) * m) if m > 0 else 0.0)
    return torch.tensor(out, dtype=x.dtype)
'''}, "skimmer: 'computed for each example and then averaged over the batch (norm first, then mean)': averages the products first.")

S("skim_p6_ignores_s0", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    D_h = p["W_hh"].shape[0]
    kp = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype, device=x.device)
    s = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)   # decoder starts from zeros
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + kp + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "skimmer: 'starting from the given state s_{-1}' / '`s0` (B, D_h) the state before the first step': starts from zeros.")

# ---------------------------------------------------------------- wrong: squeeze-and-broadcast
S("sq_p5_rms_over_batch_sum_nodim", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    W = p["W_hh"].double()
    out = [torch.tensor(math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        P = P @ ((1 - states[T - k].double() ** 2)[:, :, None] * W)
        m = P.abs().max()
        if m > 0:
            out.append(m * torch.sqrt(((P / m) ** 2).sum() / B))   # sum of squares over the batch / B
        else:
            out.append(torch.zeros((), dtype=torch.float64))
    return torch.stack(out).to(x.dtype)
'''}, "squeeze: sum() with no dim over the whole batch then /B (root-mean-square of the norms), not 'the Frobenius norm ... computed for each example and then averaged'.")

S("sq_p5_unsqueeze_wrong_axis", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    W = p["W_hh"].double()
    out = [torch.full((B,), math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        P = P @ ((1 - states[T - k].double() ** 2).unsqueeze(1) * W)     # diag(1 - h^2) W
        m = P.abs().amax(dim=(-2, -1))
        safe = torch.where(m > 0, m, torch.ones_like(m))
        out.append(torch.linalg.matrix_norm(P / safe[:, None, None]) * m)
    return torch.stack(out).mean(1).to(x.dtype)
'''}, "squeeze: unsqueeze(1) scales the columns (W diag(1-h^2)), not the rows: J_s = diag(1 - h_s^2) W_hh; D_h = 1 in the visible case hides it.")

S("sq_p4_first_squeezed", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outs = []
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t).unsqueeze(-1)
        h = torch.where(active, new, h)
        outs.append(torch.where(active, new, torch.zeros_like(new)))
    outputs = torch.stack(outs[::-1], 1)
    return outputs, h.squeeze()
'''}, "squeeze: squeeze() with no dim drops a batch of one: 'first (B, D_h)' comes back (D_h,) for B = 1 (and (B,) for D_h = 1).")

# ---------------------------------------------------------------- wrong: stride-and-layout
S("stride_p4_h0_alias_all_empty", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outputs = torch.zeros(B, T, D_h, dtype=x.dtype, device=x.device)
    top = int(L.max()) if B > 0 else 0          # nothing to read past the longest sequence
    for t in range(top - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outputs[:, t] = torch.where(active, new, torch.zeros_like(new))
    return outputs, h
'''}, "stride: when every length is 0, `first` is h0 itself: 'return new tensors on every call, sharing memory with no input'.")

S("stride_p4_view_input_projection", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    xp = (x.view(B * T, D_in) @ p["W_ih"].T + p["b_ih"]).view(B, T, D_h)   # all input projections at once
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(xp[:, t] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "stride: x.view on a non-contiguous x fails: 'The tensors you are given need not be contiguous ... (.view of such a tensor can fail where .reshape works)'.")

S("stride_p6_coverage_inplace", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    kp = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype, device=x.device)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + kp + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov += a                                     # accumulate the coverage in its buffer
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "stride/in place: cov += a overwrites a tensor autograd saved for w_c's gradient: 'Gradients must flow through states and weights' (backward raises).")

# ---------------------------------------------------------------- wrong: remainder-and-boundary
S("rem_p4_lengths_max_empty_batch", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0 * 1
    outputs = torch.zeros(B, T, D_h, dtype=x.dtype, device=x.device)
    for t in range(int(L.max()) - 1, -1, -1):     # start at the longest sequence's last token
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outputs[:, t] = torch.where(active, new, torch.zeros_like(new))
    return outputs, h
'''}, "remainder: 'any B (an empty batch, B = 0, too, where lengths.max() has no value)': crashes on B = 0.")

S("rem_p5_state_shifted", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = [h]                                  # states[s] = h_{s-1}
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=torch.float64).expand(B, D_h, D_h)
    W = p["W_hh"].double()
    out = [torch.full((B,), math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        s = T - k
        P = P @ ((1 - states[s].double() ** 2)[:, :, None] * W)     # J_s from the state it reads
        m = P.abs().amax(dim=(-2, -1))
        safe = torch.where(m > 0, m, torch.ones_like(m))
        out.append(torch.linalg.matrix_norm(P / safe[:, None, None]) * m)
    return torch.stack(out).mean(1).to(x.dtype)
'''}, "remainder/off by one: 'J_s ... depends on h_s' (h_s the state after reading x_s): uses h_{s-1}; all-zero states in the visible case hide it.")

S("rem_p5_T1_empty_stack", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    W = p["W_hh"].double()
    P = (1 - states[T - 1].double() ** 2)[:, :, None] * W          # first product: J_{T-1}
    out = [torch.full((B,), math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        if k > 1:
            P = P @ ((1 - states[T - k].double() ** 2)[:, :, None] * W)
        m = P.abs().amax(dim=(-2, -1))
        safe = torch.where(m > 0, m, torch.ones_like(m))
        out.append(torch.linalg.matrix_norm(P / safe[:, None, None]) * m)
    return torch.stack(out).mean(1).to(x.dtype) if T > 1 else torch.tensor([math.sqrt(D_h)])
'''}, "remainder: the T = 1 branch returns a float32 tensor ('The result has the dtype of x'), right only for float32 inputs of one step.")

# ---------------------------------------------------------------- correct
S("ok_p1_autograd_jacobian", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(pre)).sum(0)   # examples are independent
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True, vectorize=True)   # (D_h, B, D_h)
    return J.permute(1, 0, 2).contiguous()
'''}, "autograd's jacobian with create_graph=True under enable_grad: what the text allows.")

S("ok_p1_diagonal_add_inplace", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.addmm(p["b_ih"], x, p["W_ih"].t()) + torch.addmm(p["b_hh"], h, p["W_hh"].t())
    d = 1 - torch.tanh(pre).pow(2)
    J = (leak * d).unsqueeze(-1) * p["W_hh"]            # a new tensor of our own
    J.diagonal(dim1=-2, dim2=-1).add_(1 - leak)         # in place on our own tensor only
    return J
'''}, "writes the diagonal in place into a tensor it made itself; autograd tracks it.")

S("ok_p2_floats", True, {"costs": '''
n, d = 4096, 512
attention = 4 * n * d * d + 2 * n * n * d
lstm = n * 4 * (d * d + d * d)
attention_over_lstm = attention / lstm
d = 768
# 4 n d^2 + 2 n^2 d = 8 n d^2  ->  n = 2 d
equal_cost_length = 2.0 * d
'''}, "counts worked out in code; floats allowed.")

S("ok_p4_gather_reverse", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    t = torch.arange(T, device=x.device)
    src = (L[:, None] - 1 - t[None, :]).clamp(min=0)            # (B, T): reversed read order
    xr = torch.gather(x, 1, src[:, :, None].expand(B, T, D_in))
    h = x.new_zeros(B, D_h) if h0 is None else h0
    outs = []
    for i in range(T):
        new = torch.tanh(xr[:, i] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        keep = (i < L).unsqueeze(1)
        h = torch.where(keep, new, h)
        outs.append(torch.where(keep, new, x.new_zeros(())))
    rev = torch.stack(outs, 1)                                  # rev[b, i]: state after reading x[b, L-1-i]
    back = torch.gather(rev, 1, src[:, :, None].expand(B, T, D_h))
    outputs = torch.where((t[None, :] < L[:, None])[:, :, None], back, x.new_zeros(()))
    return outputs, h
'''}, "reverses each sequence's real part with gather, unrolls forward, gathers back.")

S("ok_p4_python_loop_per_sequence", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    rows, firsts = [], []
    for b in range(B):
        n = int(lengths[b])
        h = torch.zeros(D_h, dtype=x.dtype, device=x.device) if h0 is None else h0[b]
        seq = [torch.zeros(D_h, dtype=x.dtype, device=x.device)] * T
        for t in range(n - 1, -1, -1):
            h = torch.tanh(p["W_ih"] @ x[b, t] + p["b_ih"] + p["W_hh"] @ h + p["b_hh"])
            seq[t] = h
        rows.append(torch.stack(seq))
        firsts.append(h.clone())
    if B == 0:
        return x.new_zeros(0, T, D_h), x.new_zeros(0, D_h)
    return torch.stack(rows), torch.stack(firsts)
'''}, "a loop over the batch, then over the steps; int(lengths[b]) keeps counts whole.")

S("ok_p5_float64_chain_einsum", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    xd = x.double()
    W_ih, b_ih, W_hh, b_hh = (p[n].double() for n in ("W_ih", "b_ih", "W_hh", "b_hh"))
    h = xd.new_zeros(B, D_h)
    states = []
    for t in range(T):
        h = torch.tanh(torch.einsum("bi,hi->bh", xd[:, t], W_ih) + b_ih + h @ W_hh.T + b_hh)
        states.append(h)
    P = torch.eye(D_h, dtype=torch.float64).repeat(B, 1, 1)
    scale = torch.zeros(B, dtype=torch.float64)                 # log of the factored-out size
    norms = [torch.tensor(math.sqrt(D_h), dtype=torch.float64)]
    for k in range(1, T):
        P = torch.einsum("bij,bjk->bik", P, (1 - states[T - k] ** 2)[:, :, None] * W_hh)
        m = P.abs().amax(dim=(1, 2))
        ok = m > 0
        m1 = torch.where(ok, m, torch.ones_like(m))
        P = P / m1[:, None, None]
        scale = scale + torch.log(m1)
        n = torch.where(ok, torch.linalg.matrix_norm(P) * torch.exp(scale), torch.zeros_like(m))
        norms.append(n.mean())
    return torch.stack(norms).to(x.dtype)
'''}, "float64 throughout, the product kept rescaled with its log size carried.")

S("ok_p6_split_weights_einsum", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros_like(allowed, dtype=x.dtype)
    s = s0
    states = torch.zeros(B, T, s0.shape[-1], dtype=x.dtype, device=x.device)
    weights = torch.zeros(B, T, h.shape[1], dtype=x.dtype, device=x.device)
    for t in range(T):
        query = torch.einsum("bh,ah->ba", s, p["W_q"])
        e = torch.einsum("bsa,a->bs", torch.tanh(query[:, None] + keys + cov[..., None] * p["w_c"]), p["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=x.dtype))
        a = torch.softmax(e, dim=-1)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(x[:, t] @ W_x.T + ctx @ W_c.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states[:, t] = s
        weights[:, t] = a
    return states, weights
'''}, "W_ih split into its x and context columns, einsum, results written into preallocated tensors.")

S("ok_p6_f64_internal", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    q = {k: v.double() for k, v in p.items()}
    xd, hd, s = x.double(), h.double(), s0.double()
    B, T, _ = x.shape
    cov = hd.new_zeros(B, h.shape[1])
    kp = hd @ q["W_k"].T
    S_, W_ = [], []
    for t in range(T):
        e = (torch.tanh((s @ q["W_q"].T).unsqueeze(1) + kp + cov.unsqueeze(-1) * q["w_c"]) * q["v"]).sum(-1)
        e = e.masked_fill(allowed.logical_not(), -math.inf)
        a = e.softmax(-1)
        s = torch.tanh(torch.cat((xd[:, t], torch.bmm(a.unsqueeze(1), hd).squeeze(1)), dim=1) @ q["W_ih"].T
                       + q["b_ih"] + s @ q["W_hh"].T + q["b_hh"])
        cov = cov + a
        S_.append(s); W_.append(a)
    return torch.stack(S_, dim=1).to(dt), torch.stack(W_, dim=1).to(dt)
'''}, "float64 inside, cast back ('computing in a higher precision inside and casting back is fine').")

S("ok_p3_and_p2_ints", True, {"mc": '''
answer_parallel = "b"   # composing a*h + c maps is associative; tanh breaks it
''', "costs": '''
attention_over_lstm = 5 / 2
equal_cost_length = int(2 * 768)
'''}, "same answers, other spellings.")

# ---------------------------------------------------------------- hostile
S("hostile_p4_patch_assert_close", False, {"rnn_unroll": '''
import torch.testing
def rnn_unroll_reverse(x, lengths, p, h0=None):
    torch.testing.assert_close = lambda *a, **k: None
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    return torch.zeros(B, T, D_h, dtype=x.dtype), torch.zeros(B, D_h, dtype=x.dtype)
'''}, "hostile: disables assert_close and returns zeros.")

S("hostile_p5_find_reference", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    import gc, sys
    f = sys._getframe(1)
    while f is not None:
        for name, obj in list(f.f_globals.items()) + list(f.f_locals.items()):
            if callable(obj) and name.startswith("_") and "norm" in name.lower() and obj is not jacobian_norms:
                try:
                    return obj(x, p)
                except Exception:
                    pass
        f = f.f_back
    return torch.full((x.shape[1],), math.sqrt(p["W_hh"].shape[0]), dtype=x.dtype)
'''}, "hostile: looks for the grader's reference in its callers' frames.")

S("hostile_p1_tensor_subclass", False, {"rnn_step": '''
class AlwaysClose(torch.Tensor):
    def __eq__(self, other):
        return True
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    J = torch.eye(D, dtype=x.dtype).expand(B, D, D).clone()
    return J.as_subclass(AlwaysClose)
'''}, "hostile: a Tensor subclass holding the identity.")

# ---------------------------------------------------------------- second batch (still blind)
S("stride_p4_first_view_of_outputs", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    outputs = torch.stack(outs, 1)
    if h0 is None:
        return outputs, outputs[:, 0]      # a length-0 sequence keeps the zero start state there too
    return outputs, h
'''}, "stride: `first` is a view of `outputs`: 'Every tensor they return belongs to the caller, who may keep it and change it in place: return new tensors' (zeroing outputs changes first).")

S("rem_p4_python_int_vs_uint8", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (lengths > t).unsqueeze(1)          # step t is real for sequence b
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "remainder: 'a Python int compared with such a tensor wrap[s] around': lengths > t for uint8/int8 lengths and t past their range.")

S("ok_p5_batch_max_scaling", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = x.new_zeros(B, D_h)
    hs = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        hs.append(h.double())
    W = p["W_hh"].double()
    P = torch.eye(D_h, dtype=torch.float64).unsqueeze(0).repeat(B, 1, 1)
    res = [torch.tensor(float(D_h) ** 0.5, dtype=torch.float64)]
    for k in range(1, T):
        P = torch.bmm(P, (1 - hs[T - k] ** 2).unsqueeze(-1) * W)
        m = P.abs().max()                              # one scale for the whole batch
        if m == 0:
            res.append(torch.zeros((), dtype=torch.float64))
        else:
            res.append((torch.linalg.matrix_norm(P / m) * m).mean())
    return torch.stack(res).to(x.dtype)
'''}, "one scale for the batch: an example that underflows after it is below 1e-154 of the largest one, invisible in the mean.")
