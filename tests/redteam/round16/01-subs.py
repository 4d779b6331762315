
SUBMISSIONS = []
def W(name, kind, cells, why): SUBMISSIONS.append({"name": f"{kind}:{name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why): SUBMISSIONS.append({"name": f"{kind}:{name}", "correct": True, "cells": cells, "why": why})
def H(name, cells, why): SUBMISSIONS.append({"name": f"hostile:{name}", "correct": False, "cells": cells, "why": why})

# ---------------- Part 1: leaky_step_jacobian ----------------
W("p1_eye_default_dtype", "porter", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    eye = torch.eye(h.shape[1])          # np.eye habit: the default dtype
    return eye * (1 - leak)[:, None] + (leak * (1 - a ** 2))[:, :, None] * p["W_hh"]
'''}, "NumPy's np.eye habit: torch.eye defaults to float32, so a bfloat16 x gives a float32 J; breaks 'Return it in the dtype of `x` (all the inputs share it).'")
W("p1_jacobian_no_create_graph", "trusting", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return ((1 - leak) * hh + leak * a).sum(0)
    J = torch.autograd.functional.jacobian(step, h)      # (D_h, B, D_h), default create_graph=False
    return J.permute(1, 0, 2).contiguous()
'''}, "trusts jacobian's defaults (create_graph=False): J carries no gradient; breaks 'so gradients must flow through `J` ... `torch.autograd.functional.jacobian` needs `create_graph=True` for this'")
W("p1_no_b_ih", "copy-adapter", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    # adapted from a one-bias RNN cell (nn.RNNCell(bias) folded into b_hh)
    a = torch.tanh(x @ p["W_ih"].T + h @ p["W_hh"].T + p["b_hh"])
    d = leak * (1 - a * a)
    return torch.diag_embed((1 - leak).expand_as(a)) + d[:, :, None] * p["W_hh"]
'''}, "one bias kept from the source cell (b_ih left out); visible b_ih is zero; breaks the formula 'tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)'")
W("p1_leak_rate_on_columns_of_derivative", "index-juggler", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    B, D = h.shape
    eye = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    # rates scale rows; the tanh' factor broadcast with a view of a 1-row batch
    return eye * (1 - leak)[:, None] + leak[:, None] * (1 - a * a).reshape(B, D, 1) * p["W_hh"] if B == 1 else \
        eye * (1 - leak)[:, None] + leak[:, None] * (1 - a * a).reshape(D, B, 1).permute(1, 0, 2).reshape(B, D, 1) * p["W_hh"]
'''}, "reshape (D,B,1) of a (B,D) tensor mixes examples when B>1 (the same when B is 1); breaks 'each example's new state depends on its own old state only'")

# ---------------- Part 2: costs ----------------
W("p2_floor_division", "trusting", {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) // (8 * n * d * d)
d = 768
equal_cost_length = (8 * d * d - 4 * d * d) // (2 * d) * 1
'''}, "integer // truncates 2.5 to 2; breaks 'how many times more multiply-adds ... Numbers may be int or float'")
W("p2_stale_d", "copy-adapter", {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) / (8 * n * d * d)
# 2b: attention = lstm  <=>  2 n^2 d = 4 n d^2  <=>  n = 2 d
d_b = 768
equal_cost_length = 2 * d
'''}, "2b's formula reuses 2a's d (512) instead of 768: 1024; breaks '**2b.** For d = 768, at which sequence length n'")
W("p2_one_product_per_gate", "copy-adapter", {"costs": '''
def attention(n, d): return 4 * n * d * d + 2 * n * n * d
def lstm(n, d): return 4 * n * d * d          # lesson's n d^2 times four gates
attention_over_lstm = attention(4096, 512) / lstm(4096, 512)
equal_cost_length = 0.0 + 1536
'''}, "LSTM counted as lesson's n d^2 per gate, forgetting the product with the previous hidden state; breaks 'four gates, each from one d x d product with the input and one with the previous hidden state'")

# ---------------- Part 3 ----------------
W("p3_both", "porter", {"mc": 'answer_parallel = "c"  # jax.lax.associative_scan works on any scan\n'},
  "breaks the hint 'what do you get when you compose two maps h -> a*h + c?' (tanh maps do not compose into the same family)")

# ---------------- Part 4: rnn_unroll_reverse ----------------
W("p4_no_long_lengths", "trusting", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    outs = []
    for t in reversed(range(T)):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        run = (t < lengths)[:, None]          # Python int against the lengths tensor
        h = torch.where(run, new, h)
        outs.append(torch.where(run, new, torch.zeros_like(new)))
    return torch.stack(outs[::-1], dim=1), h
'''}, "compares a Python int with a uint8/int8 lengths tensor, which wraps past its range; breaks '(uint8, int8 and int16 too ...: arithmetic in that dtype, and a Python int compared with such a tensor, wrap around)'")
W("p4_h0_ignored", "copy-adapter", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = x.new_zeros(B, p["W_hh"].shape[0])         # h0 accepted, never used
    L = lengths.long()
    outs = []
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        run = (t < L)[:, None]
        h = torch.where(run, new, h)
        outs.insert(0, torch.where(run, new, torch.zeros_like(new)))
    return torch.stack(outs, dim=1), h
'''}, "new argument accepted and never used; breaks 'start from the state h0[b] (zeros when h0 is None)'")
W("p4_mask_float", "porter", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    mask = (torch.arange(T)[None, :] < lengths.long()[:, None]).float()   # tf.sequence_mask(..., dtype=float32)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        m = mask[:, t, None]
        h = m * new + (1 - m) * h
        outs[t] = new * m
    return torch.stack(outs, dim=1), h
'''}, "float32 mask mixed into bfloat16 arithmetic; breaks 'Everything else has the dtype of x, and so do the results' / intro's 'a mask.float() would turn the result into float32'")
W("p4_first_from_outputs", "index-juggler", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    L = lengths.to(torch.int64)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        run = (t < L)[:, None]
        h = torch.where(run, new, h)
        outs[t] = torch.where(run, new, torch.zeros_like(new))
    outputs = torch.stack(outs, dim=1)
    return outputs, outputs[:, 0].clone()
'''}, "first taken from column 0 of outputs, which is zero (not h0) for a length-0 sequence; breaks '(for a sequence of length 0, the start state)'")
W("p4_max_length_loop", "trusting", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    L = lengths.long()
    outs = [x.new_zeros(B, D_h) for _ in range(T)]
    for t in range(int(L.max()) - 1, -1, -1):        # skip the all-padding columns
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        run = (t < L)[:, None]
        h = torch.where(run, new, h)
        outs[t] = torch.where(run, new, torch.zeros_like(new))
    return torch.stack(outs, dim=1), h
'''}, "lengths.max() of an empty batch raises; breaks 'and any B (an empty batch, B = 0, too, where lengths.max() has no value)'")

# ---------------- Part 5: jacobian_norms ----------------
W("p5_product_order", "index-juggler", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).repeat(B, 1, 1)
    out = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        J = (1 - states[T - k] ** 2)[:, :, None] * p["W_hh"]
        P = J @ P                                   # multiplies on the wrong side
        out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out)
'''}, "J_{T-k}...J_{T-1} instead of J_{T-1}...J_{T-k} (the same for D_h = 1); breaks 'the product of the step Jacobians, J_{T-1} J_{T-2} ... J_{T-k}'")
W("p5_column_scaling", "index-juggler", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    out = [P.norm(dim=(-2, -1)).mean()]
    for k in range(1, T):
        J = p["W_hh"] * (1 - states[T - k] ** 2)[:, None, :]    # broadcast on the wrong axis
        P = P @ J
        out.append(P.norm(dim=(-2, -1)).mean())
    return torch.stack(out)
'''}, "scales columns instead of rows of W_hh (the same for D_h = 1); breaks 'Work out J_s for that cell' (J_s = diag(1-h_s^2) W_hh)")
W("p5_previous_state", "index-juggler", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = [h]
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    # states[s] is the state before reading x_s
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    out = [P.norm(dim=(-2, -1)).mean()]
    for k in range(1, T):
        J = (1 - states[T - k] ** 2)[:, :, None] * p["W_hh"]
        P = P @ J
        out.append(P.norm(dim=(-2, -1)).mean())
    return torch.stack(out)
'''}, "off by one: J_s built from h_{s-1}; breaks 'it is a D_h x D_h matrix that depends on h_s' with 'h_s the state after reading x_s'")
W("p5_mean_then_norm", "copy-adapter", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    out = [P.mean(0).norm()]
    for k in range(1, T):
        P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        out.append(P.mean(0).norm())                      # average Jacobian, then its norm
    return torch.stack(out)
'''}, "averages the matrices first; breaks 'computed for each example and then averaged over the batch (norm first, then mean)'")
W("p5_tensor_of_items", "porter", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    out = [math.sqrt(D)]
    for k in range(1, T):
        P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        out.append(P.norm(dim=(-2, -1)).mean().item())
    return torch.tensor(out)                               # np.array(list) habit
'''}, "torch.tensor(list of floats) is float32 whatever x is; breaks 'The result has the dtype of x.'")

# ---------------- Part 6: coverage_decoder ----------------
W("p6_additive_minus_1e4", "porter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    bias = (~allowed).to(x.dtype) * -10000.0          # Hugging Face extended attention mask
    keys = h @ p["W_k"].T
    cov = torch.zeros_like(bias)
    s, states, weights = s0, [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + cov[..., None] * p["w_c"]) @ p["v"] + bias
        a = torch.softmax(e, dim=-1)
        ctx = torch.einsum("bs,bsd->bd", a, h)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "finite -1e4 mask; breaks 'their scores can lie far above every real one (by thousands ...): they still get weight exactly 0'")
W("p6_query_stays_s0", "copy-adapter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    query = s0 @ p["W_q"].T                     # from AdditiveAttention(query, keys): one query
    keys = h @ p["W_k"].T
    cov = torch.zeros_like(allowed, dtype=x.dtype)
    s, states, weights = s0, [], []
    for t in range(T):
        e = (torch.tanh(query[:, None] + keys + cov[..., None] * p["w_c"]) @ p["v"]).masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[..., None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "query computed once from s0 as in the lesson's one-query AdditiveAttention; breaks 'the query is the decoder's previous state ... each step needs the one before'")
W("p6_float_mask_1e9", "porter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    bias = (1.0 - allowed.float()) * -1e9            # attention_mask convention: 1 = attend
    keys = h @ p["W_k"].T
    cov = x.new_zeros(B, h.shape[1])
    s, states, weights = s0, [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + cov[..., None] * p["w_c"]) @ p["v"] + bias
        a = torch.softmax(e, dim=-1)
        ctx = (a[..., None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx.to(x.dtype)], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "allowed.float() turns bfloat16 weights into float32; breaks 'in the dtype of x (all the inputs share it)'")
W("p6_max_over_all", "copy-adapter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    cov = x.new_zeros(B, h.shape[1])
    s, states, weights = s0, [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + cov[..., None] * p["w_c"]) @ p["v"]
        ex = torch.exp(e - e.max(dim=-1, keepdim=True).values)       # safe softmax from the lesson
        ex = torch.where(allowed, ex, torch.zeros_like(ex))
        a = ex / ex.sum(-1, keepdim=True)
        ctx = (a[..., None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "row maximum taken over padding too: real scores underflow, 0/0; breaks 'their scores can lie far above every real one ... and no gradient may become NaN through them'")

# ---------------- correct ----------------
C("p1_autograd_create_graph", "trusting", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return ((1 - leak) * hh + leak * a).sum(dim=0)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True)   # (D_h, B, D_h)
    return J.permute(1, 0, 2)
'''}, "autograd Jacobian with create_graph=True, batch summed out (examples independent)")
C("p1_einsum_diag_embed", "porter", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.einsum("bi,hi->bh", x, p["W_ih"]) + p["b_ih"] + torch.einsum("bj,hj->bh", h, p["W_hh"]) + p["b_hh"]
    a = torch.tanh(pre)
    keep = torch.diag_embed((1 - leak).expand(h.shape[0], -1))
    return keep + torch.einsum("bi,ij->bij", leak * (1 - a * a), p["W_hh"])
'''}, "einsum + diag_embed")
C("p1_float64_inside", "porter", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    X, Hh, L = x.double(), h.double(), leak.double()
    P = {k: v.double() for k, v in p.items()}
    a = torch.tanh(X @ P["W_ih"].T + P["b_ih"] + Hh @ P["W_hh"].T + P["b_hh"])
    D = Hh.shape[1]
    J = torch.eye(D, dtype=torch.float64) * (1 - L)[:, None] + (L * (1 - a.square()))[:, :, None] * P["W_hh"]
    return J.to(dt)
'''}, "float64 inside and a cast back (p untouched: a new dict)")
C("p2_floats", "porter", {"costs": '''
attention_over_lstm = 2.5
equal_cost_length = 1536.0
'''}, "numbers worked out by hand")
C("p4_keywords_where", "copy-adapter", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = h0 if h0 is not None else torch.zeros(B, p["W_hh"].shape[0], dtype=x.dtype, device=x.device)
    L = lengths.to(dtype=torch.int64)
    outs = []
    for step in reversed(range(T)):
        h_new = torch.tanh(torch.nn.functional.linear(x[:, step], weight=p["W_ih"], bias=p["b_ih"])
                           + torch.nn.functional.linear(h, weight=p["W_hh"], bias=p["b_hh"]))
        running = (step < L)[:, None]
        h = torch.where(running, h_new, h)
        outs.append(h_new.masked_fill(~running, 0.0))
    outs.reverse()
    return torch.stack(outs, dim=1), h
'''}, "the lesson's run_rnn adapted: reversed range, F.linear, masked_fill")
C("p4_gather_reverse", "index-juggler", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    t = torch.arange(T)[None, :]
    idx = (L[:, None] - 1 - t).clamp(min=0)                       # (B, T): reversed position
    xr = torch.gather(x, 1, idx[:, :, None].expand(B, T, D_in))   # each sequence reversed in place
    h = h0 if h0 is not None else x.new_zeros(B, D_h)
    outs = []
    for s in range(T):
        new = torch.tanh(xr[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        run = (s < L)[:, None]
        h = torch.where(run, new, h)
        outs.append(torch.where(run, new, torch.zeros_like(new)))
    rev = torch.stack(outs, dim=1) if T else x.new_zeros(B, 0, D_h)
    back = torch.gather(rev, 1, idx[:, :, None].expand(B, T, D_h))  # undo the reversal
    back = torch.where((t < L[:, None])[:, :, None], back, torch.zeros_like(back))
    return back, h
'''}, "reverse each sequence with gather, read forward, gather back")
C("p5_calls_part1", "copy-adapter", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = torch.ones(D, dtype=x.dtype)
    h = x.new_zeros(B, D)
    Js = []
    for t in range(T):
        Js.append(leaky_step_jacobian(x[:, t], h, p, ones))    # rate 1: the Elman step's Jacobian
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [torch.linalg.matrix_norm(P, ord="fro").mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        norms.append(torch.linalg.matrix_norm(P, ord="fro").mean())
    return torch.stack(norms)
'''}, "Part 1 with every rate 1 is the Elman Jacobian (call allowed)")
C("p5_calls_part1_batched", "index-juggler", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, D_in = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    prev = []
    for t in range(T):
        prev.append(h)
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    H = torch.stack(prev, dim=1)                                   # (B, T, D): state before step t
    J = leaky_step_jacobian(x.reshape(B * T, D_in), H.reshape(B * T, D), p, torch.ones(D, dtype=x.dtype))
    J = J.reshape(B, T, D, D)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [P.pow(2).sum((-2, -1)).sqrt().mean(0)]
    for k in range(1, T):
        P = torch.bmm(P, J[:, T - k])
        norms.append(P.pow(2).sum((-2, -1)).sqrt().mean(0))
    return torch.stack(norms)
'''}, "one batched call of Part 1 over all B*T steps")
C("p6_where_einsum_float64", "porter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    X, Hs, S0 = x.double(), h.double(), s0.double()
    P = {k: v.double() for k, v in p.items()}
    B, T, _ = X.shape
    keys = torch.einsum("bsd,ad->bsa", Hs, P["W_k"])
    cov = torch.zeros(B, Hs.shape[1], dtype=torch.float64)
    s, states, weights = S0, [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh(torch.einsum("bd,ad->ba", s, P["W_q"])[:, None] + keys
                                                 + torch.einsum("bs,a->bsa", cov, P["w_c"])), P["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=torch.float64))
        a = torch.nn.functional.softmax(e, dim=-1)
        ctx = torch.einsum("bs,bsd->bd", a, Hs)
        s = torch.tanh(torch.cat([X[:, t], ctx], dim=-1) @ P["W_ih"].T + P["b_ih"] + s @ P["W_hh"].T + P["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1).to(dt), torch.stack(weights, 1).to(dt)
'''}, "float64 inside, torch.where, einsum, F.softmax, cast back")
C("p6_split_weights", "copy-adapter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]      # the concatenation split in two
    keys = torch.nn.functional.linear(h, p["W_k"])
    cov = torch.zeros(B, h.shape[1], dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        q = torch.nn.functional.linear(s, p["W_q"])
        e = torch.tanh(q.unsqueeze(1) + keys + cov.unsqueeze(-1) * p["w_c"]).matmul(p["v"])
        a = e.masked_fill(allowed.logical_not(), float("-inf")).softmax(dim=-1)
        ctx = torch.bmm(a.unsqueeze(1), h).squeeze(1)
        s = torch.tanh(x[:, t] @ W_x.T + ctx @ W_c.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''}, "W_ih split into its x and context columns; bmm + squeeze(1)")

# ---------------- hostile ----------------
H("p3_str_subclass", {"mc": '''
class Letter(str):
    def __eq__(self, other): return True
    __hash__ = str.__hash__
answer_parallel = Letter("a")
'''}, "a str that equals every letter")
H("p2_float_subclass", {"costs": '''
class Num(float):
    def __eq__(self, other): return True
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    __hash__ = float.__hash__
attention_over_lstm = Num(1.0)
equal_cost_length = Num(1.0)
'''}, "floats that compare equal to anything")
H("p5_patch_assert_close", {"gradient_norms": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def jacobian_norms(x, p):
    return torch.full((x.shape[1],), math.sqrt(p["W_hh"].shape[0]), dtype=x.dtype)
'''}, "silences torch.testing.assert_close and returns a constant")


# ======== second wave (phase 2, written after the blind grading, not blind): names start with "w2-" ========
def W(name, kind, cells, why): SUBMISSIONS.append({"name": f"w2-{kind}:{name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why): SUBMISSIONS.append({"name": f"w2-{kind}:{name}", "correct": True, "cells": cells, "why": why})

W("p1_sech_squared_cosh", "porter", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    sech2 = torch.cosh(pre) ** -2                       # d tanh = sech^2, as in the maths notes
    eye = torch.eye(h.shape[1], dtype=x.dtype)
    return eye * (1 - leak)[:, None] + (leak * sech2)[:, :, None] * p["W_hh"]
'''}, "cosh overflows at pre-activations in the hundreds: value 0 but NaN gradient; breaks 'gradients too must stay finite there'")
C("p1_jacobian_vectorize_diagonal", "trusting", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        return (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    with torch.enable_grad():
        full = torch.autograd.functional.jacobian(step, h, create_graph=True, vectorize=True)   # (B, D, B, D)
    return torch.diagonal(full, dim1=0, dim2=2).permute(2, 0, 1)
'''}, "full (B, D, B, D) Jacobian, diagonal blocks taken")
C("p4_rnn_tanh_cell", "porter", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = torch.zeros(B, p["W_hh"].shape[0], dtype=x.dtype) if h0 is None else h0
    L = lengths.long()
    outs = [None] * T
    for t in reversed(range(T)):
        new = torch.rnn_tanh_cell(x[:, t], h, p["W_ih"], p["W_hh"], p["b_ih"], p["b_hh"])   # nn.RNNCell's kernel
        run = (L > t).unsqueeze(1)
        h = torch.where(run, new, h)
        outs[t] = new * run
    return torch.stack(outs, dim=1), h
'''}, "torch's fused RNN cell op, mask multiply (bool keeps dtype)")
C("p4_float64_inside", "porter", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    dt = x.dtype
    X = x.double()
    P = {k: v.double() for k, v in p.items()}
    B, T, _ = X.shape
    h = torch.zeros(B, P["W_hh"].shape[0], dtype=torch.float64) if h0 is None else h0.double()
    L = lengths.to(torch.int64)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(torch.addmm(P["b_ih"], X[:, t], P["W_ih"].T) + torch.addmm(P["b_hh"], h, P["W_hh"].T))
        run = (t < L)[:, None]
        h = torch.where(run, new, h)
        outs[t] = torch.where(run, new, 0.0)
    return torch.stack(outs, dim=1).to(dt), h.to(dt)
'''}, "float64 inside (allowed by the introduction), addmm, cast back")
C("p5_float64_inside_vector_norm", "porter", {"gradient_norms": '''
def jacobian_norms(x, p):
    dt = x.dtype
    X = x.double(); P = {k: v.double() for k, v in p.items()}
    B, T, _ = X.shape
    D = P["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=torch.float64)
    hs = []
    for t in range(T):
        h = torch.tanh(X[:, t] @ P["W_ih"].T + P["b_ih"] + h @ P["W_hh"].T + P["b_hh"]); hs.append(h)
    prod = torch.eye(D, dtype=torch.float64).repeat(B, 1, 1)
    out = torch.empty(T, dtype=torch.float64)
    out[0] = math.sqrt(D)
    for k in range(1, T):
        prod = torch.einsum("bij,bjk->bik", prod, (1 - hs[T - k] ** 2).unsqueeze(-1) * P["W_hh"])
        out[k] = torch.linalg.vector_norm(prod.flatten(1), dim=1).mean()
    return out.to(dt)
'''}, "float64 inside, vector_norm of the flattened product, written into a fresh tensor")
C("p6_softmax_float64_dtype_arg", "trusting", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros_like(allowed, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh(torch.einsum("bh,ah->ba", s, p["W_q"]).unsqueeze(1) + keys + cov.unsqueeze(-1) * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1, dtype=torch.float64).to(x.dtype)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(torch.cat((x[:, t], ctx), dim=1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "softmax with dtype=float64 and a cast back")
W("p6_coverage_detached", "copy-adapter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, h.shape[1], dtype=x.dtype)
    s, states, weights = s0, [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + cov[..., None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[..., None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a.detach()                 # as in a coverage-loss codebase: the running sum is a statistic
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "coverage detached: values right, gradients wrong; breaks 'Gradients must flow through states and weights ... compare their gradients'")

W("p5_entry0_tensor_float", "porter", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    out = [torch.tensor(math.sqrt(D))]                      # np.array(np.sqrt(D)) habit: float32 here
    for k in range(1, T):
        P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        out.append(P.norm(dim=(-2, -1)).mean())
    return torch.stack(out).to(x.dtype)
'''}, "entry 0 rounded through float32; breaks 'The result has the dtype of x' (float64 compared closely)")
C("p4_preallocated_inplace", "porter", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    out = torch.zeros(B, T, D, dtype=x.dtype)
    h = x.new_zeros(B, D) if h0 is None else h0
    L = lengths.long()
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        run = (t < L)[:, None]
        h = torch.where(run, new, h)
        out[:, t] = torch.where(run, new, 0.0)              # written in place into a fresh buffer
    return out, h
'''}, "fresh output buffer filled in place (autograd records it)")

# phase 2 class sweep: the additive-bias class at a larger gap, and a finfo.min fill (correct: always below every real score)
W("p6_additive_minus_1e5", "porter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    bias = (~allowed).to(x.dtype) * -1e5
    keys = h @ p["W_k"].T
    cov = x.new_zeros(B, h.shape[1])
    s, states, weights = s0, [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + cov[..., None] * p["w_c"]) @ p["v"] + bias
        a = torch.softmax(e, dim=-1)
        ctx = torch.einsum("bs,bsd->bd", a, h)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "finite bias added; breaks '(a finite stand-in for -inf such as -1e4, filled in or added to the scores, loses to them)'")
C("p6_finfo_min_fill", "porter", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    cov = x.new_zeros(B, h.shape[1])
    s, states, weights = s0, [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None] + keys + cov[..., None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, torch.finfo(e.dtype).min), dim=-1)   # the dtype's lowest value
        ctx = torch.einsum("bs,bsd->bd", a, h)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "a fill with finfo(dtype).min lies below every score the dtype holds: exp gives exactly 0")
