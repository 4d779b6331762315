SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- wrong: tutorial reader ----------------
add("t_p1_functional_jacobian_no_create_graph", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return ((1 - leak) * hh + leak * a).sum(0)
    J = torch.autograd.functional.jacobian(step, h)   # (D, B, D)
    return J.permute(1, 0, 2)
'''}, "tutorial: 'torch.autograd.functional.jacobian needs create_graph=True for this' / 'gradients must flow through J'")
add("t_p4_view_slices", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.size(0), x.size(1), x.size(2)
    D = p["W_hh"].size(0)
    L = lengths.long()
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    xs = x.view(B * T, D_in).view(B, T, D_in)
    for t in reversed(range(T)):
        active = (L > t).view(B, 1)
        new = torch.tanh(xs[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = new * active
    return torch.stack(outs, 1), h
'''}, "tutorial view: 'The tensors you are given need not be contiguous ... .view of such a tensor can fail'")
add("t_p6_softmax_then_mask_renormalize", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    c = torch.zeros(h.shape[:2], dtype=x.dtype)
    s = s0
    states, weights = [], []
    m = allowed.to(x.dtype)
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.nn.functional.softmax(e, dim=-1) * m
        a = a / a.sum(-1, keepdim=True)
        ctx = torch.bmm(a[:, None, :], h)[:, 0]
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "tutorial (mask after softmax, renormalize): 'their scores can lie far above every real one (by thousands) ... still get weight exactly 0, and no gradient may become NaN'")
add("t_p6_additive_float_mask", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    bias = (1.0 - allowed.float()) * -1e9          # HF-style additive mask
    c = torch.zeros(h.shape[:2], dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e + bias, dim=-1).to(x.dtype)
        ctx = torch.einsum("bs,bsd->bd", a, h)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "tutorial float mask (float32 bias): 'padding positions get weight 0' (bf16 scores in float32, -1e9 in float32 rounding the float64 scores? and exact 0 when scores differ by thousands?) / 'in the dtype of x'")
add("t_p5_item_loop", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    Js = []
    for s in range(T):
        h = torch.tanh(x[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"][None])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    out = [math.sqrt(D)]
    for k in range(1, T):
        P = P @ Js[T - k]
        out.append(torch.linalg.norm(P, dim=(-2, -1)).mean().item())
    return torch.tensor(out, dtype=x.dtype)
'''}, "tutorial .item() in a loop: entry 0 from math.sqrt and .item() values rebuilt with torch.tensor(dtype=x.dtype): bfloat16? 'The result has the dtype of x' -- .item() of float64 is exact; wrong? (expected mislabel risk: maybe correct)")

# ---------------- wrong: source reader ----------------
add("s_p2_no_projections", False, {"costs": '''
# the articles: self-attention O(n^2 d) per layer, RNN O(n d^2)
attention_over_lstm = 4096 ** 2 * 512 / (4096 * 512 ** 2)
equal_cost_length = 768
'''}, "source: 'Count them in now' (projections and gates)")
add("s_p2_three_projections", False, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (3 * n * d * d + 2 * n * n * d) / (8 * n * d * d)   # Q, K, V projections
equal_cost_length = 2.5 * 768
'''}, "source (Q,K,V only): 'four projections (queries, keys, values and the output)'")
add("s_p3_neither", False, {"mc": 'answer_parallel = "d"\n'}, "source: RNN '每一步的计算都依赖于上一步' -> every recurrence sequential; breaks the hint on composing affine maps")
add("s_p3_both", False, {"mc": 'answer_parallel = "c"\n'}, "source reader thinking attention-era 'parallel' covers all: 'only the diagonal linear recurrence composes'")
add("s_p6_query_is_context_free_no_coverage_for_padding_h", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    c = torch.zeros(h.shape[:2], dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(allowed == 0, -1e9)
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "source mask (masked_fill(mask == 0, -1e9)) in bfloat16: exp(-1e9 - m) is 0, so maybe correct; listed wrong in case padding h inf*0; expected mislabel")
add("s_p5_norm_of_mean", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    Js = []
    for s in range(T):
        h = torch.tanh(x[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"][None])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [P.mean(0).norm()]
    for k in range(1, T):
        P = P @ Js[T - k]
        norms.append(P.mean(0).norm())
    return torch.stack(norms)
'''}, "source/misconception: 'computed for each example and then averaged over the batch (norm first, then mean)'")

# ---------------- wrong: hurried ----------------
add("h_p1_eye_default_dtype", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    D = h.shape[1]
    a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    J = (leak * (1 - a ** 2))[:, :, None] * p["W_hh"]
    return J + torch.eye(D) * (1 - leak)[:, None]
'''}, "hurried: 'Return it in the dtype of x' (eye float32 promotes bfloat16)")
add("h_p4_first_from_outputs", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    outputs = torch.stack(outs, 1)
    return outputs, outputs[:, 0]
'''}, "hurried: 'first ... (for a sequence of length 0, the start state)'")
add("h_p4_python_int_compare_native_dtype", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (lengths > t).unsqueeze(1)
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "hurried: 'a Python int compared with such a tensor, wrap around' (uint8 lengths, T > 255)")
add("h_p4_loop_to_max_length", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outputs = torch.zeros(B, T, D, dtype=x.dtype)
    outs = []
    for t in range(int(L.max()) - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs.append(torch.where(active, new, torch.zeros_like(new)))
    if outs:
        outputs = torch.cat([torch.stack(outs[::-1], 1), outputs[:, len(outs):]], 1)
    return outputs, h
'''}, "hurried: 'an empty batch, B = 0, too, where lengths.max() has no value'")
add("h_p2_lstm_one_product_per_gate", False, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) / (4 * n * d * d)
equal_cost_length = 2 * 768
'''}, "hurried: 'four gates, each from one d x d product with the input and one with the previous hidden state' (2a only)")
add("h_p6_coverage_after_update", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    c = torch.zeros(h.shape[:2], dtype=x.dtype)
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
'''}, "hurried: 'The encoder states at padding positions are whatever the encoder left there' (inf/NaN there: 0 * inf = NaN in the context); expected caught only if hidden h has inf")

# ---------------- wrong: careful with one misconception ----------------
add("m_p5_product_order_reversed", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    Js = []
    for s in range(T):
        h = torch.tanh(x[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"][None])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        P = Js[T - k] @ P
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''}, "misconception (order of the chain rule): 'J_{T-1} J_{T-2} ... J_{T-k}'")
add("m_p5_jacobian_uses_previous_state", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    Js = []
    for s in range(T):
        Js.append((1 - h * h)[:, :, None] * p["W_hh"][None])
        h = torch.tanh(x[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''}, "misconception: 'it is a D_h x D_h matrix that depends on h_s' (used h_{s-1})")
add("m_p4_padding_reads_state_not_zero", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = h * active     # zero at padding
    return torch.stack(outs, 1), h
'''}, "misconception? h*active: NaN/inf-free so same; maybe correct -> 0*h fine. (bf16: active bool * bf16 stays bf16). Expected mislabel")
add("m_p6_coverage_counts_current_weights_via_w_c_sign", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    c = torch.zeros(h.shape[:2], dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h.masked_fill(~allowed[:, :, None], 0)).sum(1)
        s_new = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s0 @ p["W_hh"].T + p["b_hh"])
        c = c + a
        s = s_new
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "misconception (teacher forcing also for the state): 's_t = tanh(... + s_{t-1} W_hh^T ...)' uses s0 at every step")

add("m_p1_grad_mode_set_and_reset", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    torch.set_grad_enabled(True)
    hh = h if h.requires_grad else h.clone().requires_grad_(True)
    a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    new = (1 - leak) * hh + leak * a
    rows = [torch.autograd.grad(new[:, i].sum(), hh, create_graph=True)[0] for i in range(h.shape[1])]
    J = torch.stack(rows, 1)
    torch.set_grad_enabled(False)
    return J
'''}, "misconception about the grad mode: 'leave the grad mode off as it found it (use with torch.enable_grad() ... not torch.set_grad_enabled(True))'")
add("c_p1_jacrev_diagonal", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        return (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    with torch.enable_grad():
        full = torch.func.jacrev(step)(h)          # (B, D, B, D)
    return full.diagonal(dim1=0, dim2=2).permute(2, 0, 1)
'''}, "torch.func.jacrev, then the per-example blocks")

# ---------------- correct ----------------
add("c_p1_functional_jacobian_create_graph", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return ((1 - leak) * hh + leak * a).sum(0)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True)   # (D, B, D)
    return J.permute(1, 0, 2)
'''}, "autograd with create_graph=True, allowed by the text")
add("c_p1_einsum_float64_inside", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    W_hh = p["W_hh"].double()
    pre = x.double() @ p["W_ih"].double().T + p["b_ih"].double() + h.double() @ W_hh.T + p["b_hh"].double()
    lam = leak.double()
    d = lam * (1 - torch.tanh(pre) ** 2)
    eye = torch.eye(h.shape[1], dtype=torch.float64)
    J = torch.einsum("bi,ij->bij", d, W_hh) + torch.einsum("i,ij->ij", 1 - lam, eye)
    return J.to(dt)
'''}, "float64 inside and cast back: text allows")
add("c_p2_ints_expression", True, {"costs": '''
n, d = 4096, 512
attention = 4 * n * d ** 2 + 2 * n ** 2 * d
lstm = n * 4 * (d * d + d * d)
attention_over_lstm = attention / lstm
equal_cost_length = 1536
'''}, "plain arithmetic")
add("c_p4_where_float64_loop", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = h0 if h0 is not None else x.new_zeros(B, D)
    outputs = []
    for t in reversed(range(T)):
        active = (t < L).unsqueeze(-1)
        new = torch.tanh(torch.nn.functional.linear(x[:, t], p["W_ih"], p["b_ih"]) + torch.nn.functional.linear(h, p["W_hh"], p["b_hh"]))
        h = torch.where(active, new, h)
        outputs.append(new.masked_fill(~active, 0.0))
    outputs.reverse()
    return torch.stack(outputs, dim=1), h
'''}, "F.linear, masked_fill, new_zeros")
add("c_p5_calls_part1", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = torch.ones(D, dtype=x.dtype)
    h = torch.zeros(B, D, dtype=x.dtype)
    Js = []
    for s in range(T):
        Js.append(leaky_step_jacobian(x[:, s], h, p, ones))   # rate 1: the Elman cell
        h = torch.tanh(x[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    P = torch.eye(D, dtype=x.dtype).repeat(B, 1, 1)
    norms = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        P = torch.bmm(P, Js[T - k])
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''}, "calls Part 1 with every rate 1 (an ordinary Elman unit, as Part 1's text says)")
add("c_p5_calls_part4_for_states", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    full = torch.full((B,), T, dtype=torch.int64)
    outs, _ = rnn_unroll_reverse(x.flip(1), full, p)   # reads x[0] first
    states = outs.flip(1)                                # states[:, s] = h_s
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        hs = states[:, T - k]
        P = P @ ((1 - hs * hs)[:, :, None] * p["W_hh"])
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''}, "calls Part 4 on the flipped sequence for the forward states")
add("c_p6_minus_1e9_masked_fill_einsum", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = x.new_zeros(B, h.shape[1])
    s = s0
    states, weights = [], []
    for t in range(T):
        q = torch.einsum("bh,ah->ba", s, p["W_q"])
        e = torch.einsum("bsa,a->bs", torch.tanh(q[:, None] + keys + cov[..., None] * p["w_c"]), p["v"])
        e = e.masked_fill(allowed == 0, -1e9)
        a = torch.nn.functional.softmax(e, dim=-1)
        a = torch.where(allowed, a, torch.zeros_like(a))
        ctx = torch.einsum("bs,bsk->bk", a, torch.where(allowed[..., None], h, torch.zeros_like(h)))
        s = torch.tanh(torch.nn.functional.linear(torch.cat((x[:, t], ctx), dim=-1), p["W_ih"], p["b_ih"])
                       + torch.nn.functional.linear(s, p["W_hh"], p["b_hh"]))
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "tutorial -1e9 with masked_fill plus torch.where to exact zero")
add("c_p6_split_W_ih", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]
    keys = h @ p["W_k"].T
    xin = x @ W_x.T + p["b_ih"]          # (B, T, D_h), teacher forcing
    hz = torch.where(allowed[..., None], h, 0.0)
    cov = torch.zeros_like(allowed, dtype=x.dtype)
    s = s0
    S_, A_ = [], []
    for t in range(T):
        e = (torch.tanh((s @ p["W_q"].T).unsqueeze(1) + keys + cov.unsqueeze(-1) * p["w_c"]) * p["v"]).sum(-1)
        e = torch.where(allowed, e, float("-inf"))
        a = e.softmax(-1)
        ctx = torch.bmm(a.unsqueeze(1), hz).squeeze(1)
        s = torch.tanh(xin[:, t] + ctx @ W_c.T + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        S_.append(s); A_.append(a)
    return torch.stack(S_, 1), torch.stack(A_, 1)
'''}, "splits W_ih into its x and context columns, as the text describes")

# ---------------- hostile ----------------
add("x_p3_str_subclass", False, {"mc": '''
class Ans(str):
    def __eq__(self, other): return True
    def __hash__(self): return 0
answer_parallel = Ans("a")
'''}, "hostile: a str equal to every letter")
add("x_p2_float_subclass", False, {"costs": '''
class Num(float):
    def __eq__(self, o): return True
    def __sub__(self, o): return Num(0.0)
    def __rsub__(self, o): return Num(0.0)
    def __abs__(self): return Num(0.0)
    def __lt__(self, o): return True
    def __le__(self, o): return True
    def __gt__(self, o): return True
attention_over_lstm = Num(1.0)
equal_cost_length = Num(1.0)
'''}, "hostile: a float equal to everything")
add("x_p5_patch_assert_close", False, {"gradient_norms": '''
import torch.testing
def jacobian_norms(x, p):
    torch.testing.assert_close = lambda *a, **k: None
    torch.testing.assert_close.__name__ = "assert_close"
    return torch.tensor([1.0, 0.5, 0.25, 0.125][: x.shape[1]] + [0.0] * max(0, x.shape[1] - 4), dtype=x.dtype)
'''}, "hostile: disables assert_close and returns the visible answer")
