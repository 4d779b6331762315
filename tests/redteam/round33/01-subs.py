# Round 33 blind submissions, chapter 01-rnn-motivation (helper 0102).
# Kinds: K1 global-statistics, K2 sign-convention, K3 late-binding, K4 equality, K5 side-effect.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: K1 global statistics
add("K1-p1-batch-mean-jacobian", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    # Jacobian of the whole batch, then averaged over the examples as "the" step Jacobian
    with torch.enable_grad():
        hh = h.detach().clone().requires_grad_(True) if not h.requires_grad else h
        def step(hv):
            pre = x @ p["W_ih"].T + p["b_ih"] + hv @ p["W_hh"].T + p["b_hh"]
            return (1 - leak) * hv + leak * torch.tanh(pre)
        pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(pre) ** 2
    J = (leak * d)[:, :, None] * p["W_hh"] + torch.diag_embed((1 - leak).expand_as(d))
    return J.mean(0, keepdim=True).expand_as(J).clone()
'''}, "K1: averages the Jacobian over the batch; breaks 'J[b, i, j] = dh'_{b,i}/dh_{b,j} ... (each example's new state depends on its own old state only)'. Visible hand case has B = 1.")

add("K1-p4-sorted-lengths-first", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    # like pack_padded_sequence(enforce_sorted=True): lengths sorted longest first, so lengths[0] is the longest
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, Dh, dtype=x.dtype) if h0 is None else h0
    outputs = torch.zeros(B, T, Dh, dtype=x.dtype)
    outs = [torch.zeros(B, Dh, dtype=x.dtype) for _ in range(T)]
    longest = int(L[0]) if B > 0 else 0
    for t in range(longest - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "K1: takes the number of steps from the first sequence; breaks 'with 0 <= lengths[b] <= T (the longest sequence need not fill the T columns)' and nothing says the batch is sorted.")

add("C-K1-p5-batch-wide-scale", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    h = torch.zeros(B, Dh, dtype=x.dtype)
    ds = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        ds.append(1 - h * h)
    def fro(P):
        m = P.abs().max()          # scale the product first, by its largest entry
        if m == 0:
            return torch.linalg.matrix_norm(P).mean()
        return (m * torch.linalg.matrix_norm(P / m)).mean()
    P = torch.eye(Dh, dtype=x.dtype).expand(B, Dh, Dh)
    out = [fro(P)]
    for k in range(1, T):
        P = P @ (ds[T - k].unsqueeze(-1) * W)
        out.append(fro(P))
    return torch.stack(out)
'''}, "K1-aware (judged correct before grading): one scale for the whole batch's products; an example whose product underflows after that scaling is 1e-162 below the largest one and so below any tolerance of the batch mean.")

add("K1-p6-global-max", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    coverage = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T).unsqueeze(1) + keys + coverage.unsqueeze(-1) * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        ex = torch.exp(e - e.max())          # subtract the maximum for stability
        alpha = ex / ex.sum(-1, keepdim=True)
        context = torch.einsum("bs,bsk->bk", alpha, h)
        s = torch.tanh(torch.cat([x[:, t], context], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        coverage = coverage + alpha
        states.append(s); weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "K1: subtracts the maximum of the whole batch, not each row's; breaks 'x and the weights may hold values of any size (... a v so large that every real score lies below -1e10)': a row whose scores lie far below another row's underflows to 0/0.")

# ---------------------------------------------------------------- wrong: K2 sign / direction
add("K2-p5-product-order-reversed", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    h = torch.zeros(B, Dh, dtype=x.dtype)
    ds = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        ds.append(1 - h ** 2)
    def fro(P):
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        m = torch.where(m > 0, m, torch.ones_like(m))
        return (m[:, 0, 0] * torch.linalg.matrix_norm(P / m)).mean()
    P = torch.eye(Dh, dtype=x.dtype).expand(B, Dh, Dh)
    norms = [fro(P)]
    for k in range(1, T):
        J = ds[T - k].unsqueeze(-1) * W
        P = J @ P          # accumulate the chain from the back
        norms.append(fro(P))
    return torch.stack(norms)
'''}, "K2: multiplies the new Jacobian on the left, giving J_{T-k} ... J_{T-1}; breaks 'dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}'. Visible case has D_h = 1, where order does not matter.")

add("K2-p5-denominator-layout", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    # row-vector convention: h_s = tanh(h_{s-1} W^T + ...), so dh_s/dh_{s-1} = W^T diag(1 - h_s^2)
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    h = torch.zeros(B, Dh, dtype=x.dtype)
    ds = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        ds.append(1 - h ** 2)
    def fro(P):
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        m = torch.where(m > 0, m, torch.ones_like(m))
        return (m[:, 0, 0] * torch.linalg.matrix_norm(P / m)).mean()
    P = torch.eye(Dh, dtype=x.dtype).expand(B, Dh, Dh)
    norms = [fro(P)]
    for k in range(1, T):
        P = P @ (W.T * ds[T - k].unsqueeze(1))
        norms.append(fro(P))
    return torch.stack(norms)
'''}, "K2: uses the transposed (denominator-layout) step Jacobian W^T diag(d) in the numerator-layout product; breaks 'J_s = dh_s/dh_{s-1}' and the product order J_{T-1} ... J_{T-k}.")

add("K2-p2-ratio-inverted", False, {"costs": '''
n, d = 4096, 512
attention = 4 * n * d * d + 2 * n * n * d
lstm = n * 4 * 2 * d * d
attention_over_lstm = lstm / attention     # "attention over LSTM": LSTM cost measured in attention units
equal_cost_length = 2 * 768
'''}, "K2: the ratio the other way round (0.4); breaks 'how many times more multiply-adds does the self-attention layer do than the LSTM layer?'.")

# ---------------------------------------------------------------- wrong: K3 late binding
add("K3-p1-eye-cache-default", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak, eyes={}):
    n = h.shape[-1]
    if n not in eyes:
        eyes[n] = torch.eye(n, dtype=x.dtype)
    eye = eyes[n]
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(pre) ** 2
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''}, "K3: the default dict is made once and keeps the identity in the dtype of the first call; breaks 'Return it in the dtype of x' (a bfloat16 call after a float32 one of the same D_h comes back float32) and 'Nor may they keep anything from one call to the next'.")

add("K3-p2-lambda-reads-d-late", False, {"costs": '''
d = 512
attention = lambda n: 4 * n * d ** 2 + 2 * n ** 2 * d
lstm = lambda n: 4 * 2 * n * d ** 2
d = 768
# equal when 4 n d^2 + 2 n^2 d = 8 n d^2, i.e. n = 2 d
equal_cost_length = 2 * d
attention_over_lstm = attention(4096) / lstm(4096)
'''}, "K3: the lambdas read the global d when called, after it became 768; breaks '2a. For n = 4096 and d = 512'.")

add("K3-p5-closures-in-loop", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    h = torch.zeros(B, Dh, dtype=x.dtype)
    steps = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        d = 1 - h ** 2
        steps.append(lambda P: P @ (d.unsqueeze(-1) * W))     # right-multiply by J_t
    def fro(P):
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        m = torch.where(m > 0, m, torch.ones_like(m))
        return (m[:, 0, 0] * torch.linalg.matrix_norm(P / m)).mean()
    P = torch.eye(Dh, dtype=x.dtype).expand(B, Dh, Dh)
    norms = [fro(P)]
    for k in range(1, T):
        P = steps[T - k](P)
        norms.append(fro(P))
    return torch.stack(norms)
'''}, "K3: every lambda reads d after the loop ended, so every step uses the last state's derivative; breaks 'J_s ... depends on h_s'. Visible case has a constant Jacobian.")

add("K3-p6-coverage-inplace", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    coverage = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + coverage[..., None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        alpha = torch.softmax(e, dim=-1)
        context = (alpha[..., None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], context], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        coverage += alpha            # c_{t+1} = c_t + alpha_t
        states.append(s); weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "K3: coverage updated in place while autograd keeps it for the w_c product of earlier steps; breaks 'Gradients must flow through states and weights' (backward raises).")

add("K3-p4-global-p-helper", False, {"rnn_unroll": '''
def cell(x_t, h):
    return torch.tanh(x_t @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])

def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    L = lengths.long()
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    outs = []
    for t in reversed(range(T)):
        new = cell(x[:, t], h)
        keep = (t < L).unsqueeze(1)
        h = torch.where(keep, new, h)
        outs.append(torch.where(keep, new, torch.zeros_like(new)))
    return torch.stack(outs[::-1], dim=1), h
'''}, "K3: the helper cell reads the notebook's global p at call time, not the argument; breaks 'Write rnn_unroll_reverse(x, lengths, p, h0=None) for the ordinary (Elman, non-leaky) cell' with the weights p given.")

# ---------------------------------------------------------------- wrong: K4 equality
add("K4-p2-search-inclusive", False, {"costs": '''
def attention_cost(n, d):
    return 4 * n * d * d + 2 * n * n * d
def lstm_cost(n, d):
    return n * 4 * (d * d + d * d)
attention_over_lstm = attention_cost(4096, 512) / lstm_cost(4096, 512)
n = 1
while attention_cost(n, 768) <= lstm_cost(n, 768):
    n += 1
equal_cost_length = n
'''}, "K4: the search stops at the first length where attention costs more, one past the equality (1537); breaks '2b. at which sequence length n do the two layers cost the same?'.")

add("K4-p1-isclose-snap", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    # rates that are (close to) 0 must give exactly the identity: snap them
    lam = torch.where(torch.isclose(leak, torch.zeros_like(leak)), torch.zeros_like(leak), leak)
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(pre) ** 2
    J = torch.einsum("bi,ij->bij", lam * d, p["W_hh"])
    return J + torch.diag_embed((1 - lam).expand_as(d))
'''}, "K4: rates compared with isclose are replaced by a constant 0; breaks 'the hidden tests compare its gradients with respect to every input (x, h, each tensor of p and leak) ... also where every rate is 0' (and rates below 1e-8 lose their value).")

add("K4-p6-exp-minus-lse", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    coverage = x.new_zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + coverage[..., None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        alpha = torch.exp(e - torch.logsumexp(e, dim=-1, keepdim=True))
        context = torch.bmm(alpha[:, None], h)[:, 0]
        s = torch.tanh(torch.cat([x[:, t], context], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        coverage = coverage + alpha
        states.append(s); weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "K4: exp(e - logsumexp(e)) where tied huge scores round the log-sum-exp back to the score; breaks 'At those tied scores exp(e - logsumexp(e)) gives each tied key a weight of 1 ... divide the exponentials by their sum'.")

# ---------------------------------------------------------------- wrong: K5 side effects
add("K5-p1-fused-weight-in-p", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    # fuse the two products as cuDNN does: [x ; h] @ [W_ih ; W_hh]^T
    p["W_cat"] = torch.cat([p["W_ih"], p["W_hh"]], dim=1)
    p["b"] = p["b_ih"] + p["b_hh"]
    pre = torch.cat([x, h], dim=-1) @ p["W_cat"].T + p["b"]
    d = 1 - torch.tanh(pre) ** 2
    return torch.diag_embed((1 - leak).expand_as(d)) + (leak * d).unsqueeze(-1) * p["W_hh"]
'''}, "K5: adds keys to the caller's dict; breaks 'That includes the dict p: after a call it holds the same entries ... (store nothing in it)'.")

add("K5-p6-split-weights-in-p", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    d_in = x.shape[-1]
    if "W_x" not in p:
        p["W_x"], p["W_c"] = p["W_ih"][:, :d_in], p["W_ih"][:, d_in:]
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    coverage = x.new_zeros(B, h.shape[1])
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + coverage[..., None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        m = e.amax(-1, keepdim=True)
        ex = torch.exp(e - m)
        alpha = ex / ex.sum(-1, keepdim=True)
        context = (alpha[..., None] * h).sum(1)
        s = torch.tanh(x[:, t] @ p["W_x"].T + context @ p["W_c"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        coverage = coverage + alpha
        states.append(s); weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "K5: stores split views of W_ih in the caller's dict and reuses them when its W_ih is replaced; breaks the intro's 'That includes the dict p: after a call it holds the same entries ... Nor may they keep anything from one call to the next'.")

# ---------------------------------------------------------------- correct
add("C-p1-einsum-noop-to", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    # make sure the weights have the inputs' dtype (all inputs share it, so .to returns the very same tensor)
    for name in ("W_ih", "b_ih", "W_hh", "b_hh"):
        p[name] = p[name].to(x.dtype)
    a = torch.tanh(torch.addmm(p["b_ih"], x, p["W_ih"].T) + torch.addmm(p["b_hh"], h, p["W_hh"].T))
    deriv = 1 - a * a
    J = torch.einsum("bi,ij->bij", leak * deriv, p["W_hh"])
    eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
    return J + eye * (1 - leak)[:, None]
'''}, "K5-aware: p[name] = p[name].to(x.dtype) puts back the very same object (all inputs share a dtype), so p holds the same entries.")

add("C-p2-solved", True, {"costs": '''
def costs(n, d):
    attention = 4 * n * d ** 2 + 2 * n ** 2 * d
    lstm = n * 4 * (2 * d ** 2)
    return attention, lstm
a, l = costs(n=4096, d=512)
attention_over_lstm = a / l
# 4 n d^2 + 2 n^2 d = 8 n d^2  <=>  n = 2 d
equal_cost_length = float(2 * 768)
'''}, "explicit arguments, float result allowed ('Numbers may be int or float').")

add("C-p4-default-arg-lambdas", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, Din = x.shape
    Dh = p["W_hh"].shape[0]
    lengths = lengths.long()
    state = torch.zeros(B, Dh, dtype=x.dtype, device=x.device) if h0 is None else h0
    inp = torch.einsum("btd,hd->bth", x, p["W_ih"]) + p["b_ih"]
    # one step function per position, the position bound now (default argument)
    steps = [lambda h, t=t: torch.tanh(inp[:, t] + h @ p["W_hh"].T + p["b_hh"]) for t in range(T)]
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        new = steps[t](state)
        live = (lengths > t).unsqueeze(-1)
        state = torch.where(live, new, state)
        outputs[t] = torch.where(live, new, new.new_zeros(()))
    return torch.stack(outputs, dim=1), state
'''}, "K3-aware: loop lambdas bind t through a default argument; int64 lengths; where keeps h0 for length 0.")

add("C-p5-renormalised-log-scale", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    Dh = W.shape[0]
    h = x.new_zeros(B, Dh)
    ds = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        ds.append(1 - h.pow(2))
    P = torch.eye(Dh, dtype=x.dtype, device=x.device).repeat(B, 1, 1)
    logscale = x.new_zeros(B, dtype=torch.float64)   # P_true = exp(logscale) * P, per example
    zero = torch.zeros(B, dtype=torch.bool, device=x.device)
    norms = [torch.full((), math.sqrt(Dh), dtype=x.dtype)]
    for k in range(1, T):
        P = P @ (ds[T - k].unsqueeze(-1) * W)
        m = P.abs().amax(dim=(-2, -1))
        zero = zero | (m == 0)
        safe = torch.where(m > 0, m, torch.ones_like(m))
        P = P / safe[:, None, None]
        logscale = logscale + torch.log(safe.double())
        n = torch.linalg.matrix_norm(P.double()) * torch.exp(logscale)
        n = torch.where(zero, torch.zeros_like(n), n)
        norms.append(n.mean().to(x.dtype))
    return torch.stack(norms)
'''}, "renormalises each example's product every step and keeps its log-scale (float64 inside); per-example norms then mean.")

add("C-p6-where-max-is-one", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    coverage = torch.zeros_like(allowed, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + coverage[..., None] * p["w_c"]) @ p["v"]
        e = torch.where(allowed, e, float("-inf"))
        m = e.max(dim=-1, keepdim=True).values
        # the maximum's exponential is exactly 1
        ex = torch.where(e == m, torch.ones_like(e), torch.exp(e - m))
        alpha = ex / ex.sum(-1, keepdim=True)
        context = torch.einsum("bs,bsk->bk", alpha, h)
        s = torch.tanh(torch.cat([x[:, t], context], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        coverage = coverage + alpha
        states.append(s); weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "K4-aware: e == max given weight exp(0) = 1 exactly (same value, same gradient since the softmax does not depend on the shift).")

add("C-p6-log-softmax", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, Din = x.shape
    W_x, W_c = p["W_ih"][:, :Din], p["W_ih"][:, Din:]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    coverage = torch.zeros(B, h.shape[1], dtype=x.dtype, device=x.device)
    state = s0
    states, weights = [], []
    for t in range(T):
        q = torch.einsum("bh,ah->ba", state, p["W_q"])
        e = torch.einsum("bsa,a->bs", torch.tanh(q[:, None, :] + keys + coverage[..., None] * p["w_c"]), p["v"])
        alpha = torch.log_softmax(e.masked_fill(~allowed, float("-inf")), dim=-1).exp()
        context = torch.einsum("bs,bsk->bk", alpha, h)
        state = torch.tanh(x[:, t] @ W_x.T + context @ W_c.T + p["b_ih"] + state @ p["W_hh"].T + p["b_hh"])
        coverage = coverage + alpha
        states.append(state); weights.append(alpha)
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''}, "exp of a log_softmax (allowed by the text), W_ih split into local views, einsum.")

add("C-p1-float64-inside", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    wd = torch.float64
    W_hh = p["W_hh"].to(wd)
    pre = (x.to(wd) @ p["W_ih"].to(wd).T + p["b_ih"].to(wd)) + (h.to(wd) @ W_hh.T + p["b_hh"].to(wd))
    lam = leak.to(wd)
    d = 1 - torch.tanh(pre) ** 2
    n = h.shape[-1]
    J = (lam * d).unsqueeze(-1) * W_hh + torch.diag(1 - lam)
    return J.to(x.dtype)
'''}, "float64 inside and a cast back (allowed: 'computing in a higher precision inside and casting back is fine').")

add("C-p3-upper", True, {"mc": '''
answer_parallel = "B".lower()
'''}, "a str built by a method call, same value 'b'.")


add("C-K1-p1-autograd-batch-sum", True, {"rnn_step": """
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return (1 - leak) * hh + leak * torch.tanh(pre)
    # each example's new state depends on its own old state only, so the Jacobian of the batch sum
    # holds every example's Jacobian: out (D_h,) by h (B, D_h) -> (D_h, B, D_h)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(lambda hh: step(hh).sum(0), h, create_graph=True, vectorize=True)
    return J.permute(1, 0, 2)
"""}, "K1-aware: autograd Jacobian of the sum over the batch (examples are independent), create_graph=True as the text says, enable_grad inside.")

# ---------------------------------------------------------------- hostile
add("H-p3-str-equals-all", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_parallel = Letter("a")
'''}, "hostile: a str subclass equal to every letter.")
add("H-p2-float-equals-all", False, {"costs": '''
class Num(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return Num(0.0)
    def __rsub__(self, other):
        return Num(0.0)
    def __abs__(self):
        return Num(0.0)
    def __lt__(self, other):
        return True
    def __le__(self, other):
        return True
    __hash__ = float.__hash__
attention_over_lstm = Num(1.0)
equal_cost_length = Num(1.0)
'''}, "hostile: a float subclass that compares equal/close to anything.")
