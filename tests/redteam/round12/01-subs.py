# Red-team round 12, chapter 01-rnn-motivation: submissions written blind from the student notebook.
P1 = '''
def leaky_step_jacobian(x, h, p, leak):
    a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    d = leak * (1 - a * a)
    return d[:, :, None] * p["W_hh"] + torch.diag_embed((1 - leak).expand_as(a))
'''
P2 = '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2 * 768
'''
P3 = 'answer_parallel = "b"\n'
P4 = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    L = lengths.to(torch.int64)
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        act = (L > t)[:, None]
        h = torch.where(act, new, h)
        outs[t] = torch.where(act, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''
P5 = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    h = x.new_zeros(B, Dh)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(Dh, dtype=x.dtype).expand(B, Dh, Dh)
    norms = [torch.linalg.vector_norm(P, dim=(-2, -1)).mean()]
    for k in range(1, T):
        s = states[T - k]
        P = P @ ((1 - s * s)[:, :, None] * p["W_hh"])
        norms.append(torch.linalg.vector_norm(P, dim=(-2, -1)).mean())
    return torch.stack(norms)
'''
P6 = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    cov = x.new_zeros(h.shape[0], h.shape[1])
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''
DEFAULT = {"rnn_step": P1, "costs": P2, "mc": P3, "rnn_unroll": P4, "gradient_norms": P5, "additive": P6}

def W(name, cell, code, why):
    return {"name": name, "correct": False, "cells": {cell: code}, "why": why}
def C(name, cells, why):
    return {"name": name, "correct": True, "cells": cells, "why": why}

SUBMISSIONS = [
 # ---------------- Part 1
 W("p1_sech2_via_cosh", "rnn_step", '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = leak / torch.cosh(pre) ** 2
    return d[:, :, None] * p["W_hh"] + torch.diag_embed((1 - leak).expand_as(pre))
''', "intro: 'pre-activations in the hundreds ... overflows, in its value or in its gradient (gradients too must stay finite there)': cosh overflows to inf, value 0 but gradient NaN"),
 W("p1_set_grad_enabled", "rnn_step", '''
def leaky_step_jacobian(x, h, p, leak):
    torch.set_grad_enabled(True)
    hh = h if h.requires_grad else h.clone().requires_grad_()
    out = (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    rows = [torch.autograd.grad(out[:, i].sum(), hh, create_graph=True)[0] for i in range(out.shape[1])]
    return torch.stack(rows, 1)
''', "P1: 'leave the grad mode off as it found it (use with torch.enable_grad(): ..., not torch.set_grad_enabled(True))'"),
 W("p1_jacobian_no_create_graph", "rnn_step", '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        return (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    full = torch.autograd.functional.jacobian(step, h)          # (B, Dh, B, Dh)
    B = h.shape[0]
    return torch.stack([full[b, :, b, :] for b in range(B)])
''', "P1: 'gradients must flow through J ... torch.autograd.functional.jacobian needs create_graph=True for this'"),
 W("p1_finite_difference_f64", "rnn_step", '''
def leaky_step_jacobian(x, h, p, leak):
    xd, hd, ld = x.double(), h.double(), leak.double()
    pd = {k: v.double() for k, v in p.items()}
    def step(hh):
        return (1 - ld) * hh + ld * torch.tanh(xd @ pd["W_ih"].T + pd["b_ih"] + hh @ pd["W_hh"].T + pd["b_hh"])
    eps = 1e-6
    cols = []
    for j in range(h.shape[1]):
        e = torch.zeros_like(hd); e[:, j] = eps
        cols.append((step(hd + e) - step(hd - e)) / (2 * eps))
    return torch.stack(cols, 2).to(x.dtype)
''', "P1: 'With every rate 0, J must be exactly the identity matrix' and the 1e-10 float64 tolerance: central differences are close but not exact"),
 W("p1_cache_on_p", "rnn_step", '''
WT_CACHE = {}
def leaky_step_jacobian(x, h, p, leak):
    key = id(p)
    if key not in WT_CACHE:
        WT_CACHE[key] = (p["W_ih"].T, p["W_hh"].T)
    Wi, Wh = WT_CACHE[key]
    a = torch.tanh(x @ Wi + p["b_ih"] + h @ Wh + p["b_hh"])
    d = leak * (1 - a * a)
    return d[:, :, None] * Wh.T + torch.diag_embed((1 - leak).expand_as(a))
''', "intro: 'Nor may they keep anything from one call to the next (a cache of weights keyed on the dict p ...)' (transposes share storage, so this one may actually survive value updates; see verdict)"),
 # ---------------- Part 2
 W("p2_one_n2d_product", "costs", '''
attention_over_lstm = (4 * 4096 * 512**2 + 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 4 * 768
''', "P2: 'the two n x n products QK^T and (weights).V, each n^2 d multiply-adds': counts them once"),
 W("p2_lstm_one_product_per_gate", "costs", '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (4 * 4096 * 512**2)
equal_cost_length = 0.5 + 768 * 0
''', "P2: 'four gates, each from one d x d product with the input and one with the previous hidden state': LSTM counted 4nd^2; 2b then has no positive solution, student writes a guess"),
 W("p2_no_output_projection", "costs", '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2.5 * 768
''', "P2: 'four projections (queries, keys, values and the output)': 2b drops the output projection, n = 2.5 d"),
 # ---------------- Part 3
 W("p3_both", "mc", 'answer_parallel = "c"\n', "P3: only the diagonal linear map composes into a map of the same form (hint sentence)"),
 # ---------------- Part 4
 W("p4_ignores_h0", "rnn_unroll", P4.replace('h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])', 'h = x.new_zeros(B, p["W_hh"].shape[0])'),
   "P4: 'start from the state h0[b] (zeros when h0 is None)'"),
 W("p4_first_is_outputs0", "rnn_unroll", P4.replace("return torch.stack(outs, 1), h", "out = torch.stack(outs, 1)\n    return out, out[:, 0]"),
   "P4: 'first ... (for a sequence of length 0, the start state)': outputs[:, 0] is zeros for a length-0 sequence even when h0 is given"),
 W("p4_python_int_compare", "rnn_unroll", P4.replace("L = lengths.to(torch.int64)", "L = lengths"),
   "P4: 'a Python int compared with such a tensor wrap around': t < uint8 lengths for t >= 256"),
 W("p4_recursive", "rnn_unroll", '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    L = lengths.to(torch.int64)
    outs = [None] * T
    def go(t, h):
        if t < 0:
            return h
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        act = (L > t)[:, None]
        outs[t] = torch.where(act, new, torch.zeros_like(new))
        return go(t - 1, torch.where(act, new, h))
    first = go(T - 1, h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0]))
    return torch.stack(outs, 1), first
''', "intro: 'sequences of more than a thousand steps, too long for a recursion with one call per step'"),
 W("p4_inplace_h0", "rnn_unroll", '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    L = lengths.to(torch.int64)
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    outputs = x.new_zeros(B, T, p["W_hh"].shape[0])
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        act = L > t
        h = h.clone() if t == T - 1 and h0 is not None and h0.requires_grad else h
        h[act] = new[act]
        outputs[act, t] = new[act]
    return outputs, h
''', "intro: 'Your functions must not change the tensors they are given': h[act] = ... writes into the caller's h0"),
 W("p4_zeros_float32", "rnn_unroll", P4.replace('x.new_zeros(B, p["W_hh"].shape[0])', 'torch.zeros(B, p["W_hh"].shape[0])').replace("torch.where(act, new, h)", "torch.where(act, new, h.to(new.dtype))"),
   "P4: 'Everything has the dtype of x' / intro bfloat16 rule: start state float32 turns a bf16 h0=None result into float32 (where promotes)"),
 W("p4_h0_renamed", "rnn_unroll", P4.replace("def rnn_unroll_reverse(x, lengths, p, h0=None):", "def rnn_unroll_reverse(x, lengths, p, h_init=None):\n    h0 = h_init"),
   "intro: 'Keep the signatures of the stubs, argument names included: ... by name (the optional h0 too)'"),
 # ---------------- Part 5
 W("p5_jacobian_uses_previous_state", "gradient_norms", P5.replace("s = states[T - k]", "s = states[T - k - 1] if T - k - 1 >= 0 else torch.zeros_like(states[0])"),
   "P5: 'J_s ... depends on h_s' where h_s is the state after reading x_s: uses h_{s-1}"),
 W("p5_mean_then_norm", "gradient_norms", P5.replace("torch.linalg.vector_norm(P, dim=(-2, -1)).mean()", "torch.linalg.vector_norm(P.mean(0))"),
   "P5: 'computed for each example and then averaged over the batch (norm first, then mean)'"),
 W("p5_rms_over_batch", "gradient_norms", P5.replace("torch.linalg.vector_norm(P, dim=(-2, -1)).mean()", "(P * P).sum((-2, -1)).mean().sqrt()"),
   "P5: 'norm first, then mean': root of the mean squared norm"),
 W("p5_left_multiply", "gradient_norms", P5.replace("P = P @ ((1 - s * s)[:, :, None] * p[\"W_hh\"])", "P = ((1 - s * s)[:, :, None] * p[\"W_hh\"]) @ P"),
   "P5: the product is J_{T-1} J_{T-2} ... J_{T-k}: multiplying the new Jacobian on the left reverses the order"),
 W("p5_spectral_norm", "gradient_norms", P5.replace("torch.linalg.vector_norm(P, dim=(-2, -1))", "torch.linalg.matrix_norm(P, ord=2)"),
   "P5: 'the Frobenius norm': spectral norm agrees for D_h = 1"),
 W("p5_rebuild_each_product", "gradient_norms", '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    h = x.new_zeros(B, Dh)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    out = []
    for k in range(T):
        P = torch.eye(Dh, dtype=x.dtype).expand(B, Dh, Dh)
        for s in range(T - 1, T - 1 - k, -1):
            P = P @ Js[s]
        out.append(torch.linalg.vector_norm(P, dim=(-2, -1)).mean())
    return torch.stack(out)
''', "P5 cost: 'more than 20 per step is refused, as an answer that rebuilds every product from scratch'"),
 W("p5_entry0_float32", "gradient_norms", P5.replace("norms = [torch.linalg.vector_norm(P, dim=(-2, -1)).mean()]", "norms = [torch.tensor(math.sqrt(Dh))]"),
   "intro 'Compute in the dtype of the inputs': entry 0 as a float32 tensor; cat promotes bf16 to float32 and float64 gets sqrt(D_h) rounded to float32"),
 # ---------------- Part 6
 W("p6_query_is_s0", "additive", P6.replace("e = torch.tanh((s @ p[\"W_q\"].T)", "e = torch.tanh((s0 @ p[\"W_q\"].T)"),
   "P6: 'the query is the decoder's previous state': uses s_{-1} at every step"),
 W("p6_coverage_detached", "additive", P6.replace("cov = cov + a", "cov = cov + a.detach()"),
   "P6: 'Gradients must flow through states and weights ... (no .detach())': coverage treated as bookkeeping"),
 W("p6_mask_after_softmax", "additive", P6.replace('a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)',
   'a = torch.softmax(e, dim=-1) * allowed\n        a = a / a.sum(-1, keepdim=True)'),
   "P6: 'their scores can lie far above every real one (by thousands) ... they still get weight exactly 0, and no gradient may become NaN'"),
 W("p6_exp_without_max", "additive", P6.replace('a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)',
   'ex = torch.exp(e).masked_fill(~allowed, 0.0)\n        a = ex / ex.sum(-1, keepdim=True)'),
   "intro: 'weights large enough that a softmax which does not subtract the row maximum overflows'"),
 W("p6_view_on_h", "additive", P6.replace('keys = h @ p["W_k"].T', 'keys = (h.view(-1, h.shape[-1]) @ p["W_k"].T).view(h.shape[0], h.shape[1], -1)'),
   "intro: 'The tensors you are given need not be contiguous ... .view of such a tensor can fail'"),
 # ---------------- correct variants
 C("c1_autograd_rows_enable_grad", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    with torch.enable_grad():
        hh = h.clone()
        if not hh.requires_grad:
            hh.requires_grad_()
        out = (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        rows = [torch.autograd.grad(out[:, i].sum(), hh, create_graph=True)[0] for i in range(out.shape[1])]
    return torch.stack(rows, 1)
'''}, "P1: 'You may ... get it from autograd'; rows by summing over the batch (examples independent), enable_grad as the text says. Under no_grad the result carries a graph, which the text does not forbid"),
 C("c2_einsum_inplace_diag_f64", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    X, H, L = x.double(), h.double(), leak.double()
    P = {k: v.double() for k, v in p.items()}
    a = torch.tanh(torch.einsum("bi,hi->bh", X, P["W_ih"]) + P["b_ih"] + torch.einsum("bj,hj->bh", H, P["W_hh"]) + P["b_hh"])
    J = torch.einsum("bi,ij->bij", L * (1 - a) * (1 + a), P["W_hh"])
    J.diagonal(dim1=1, dim2=2).add_(1 - L)
    return J.to(dt)
'''}, "P1 closed form with einsum, float64 inside and cast back (intro allows), in-place on own intermediate"),
 C("c3_costs_floats", {"costs": "attention_over_lstm = 2.5\nequal_cost_length = 1536.0\n", "mc": "answer_parallel = 'B'.lower()\n"}, "P2 'Numbers may be int or float'; P3 a str built at run time"),
 {"name": "c4_prealloc_inplace_loop_to_max", "correct": False, "why": "relabelled in phase 2 (was correct=True, kept OK blind): the loop from int(L.max()) raises on an empty batch, which the text allowed (B unrestricted) and now names; the red-team 12 empty-batch class", "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    L = lengths.long()
    outputs = torch.zeros(B, T, Dh, dtype=x.dtype)
    h = torch.zeros(B, Dh, dtype=x.dtype) if h0 is None else h0
    for t in range(int(L.max()) - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        act = (L > t).unsqueeze(1)
        outputs[:, t] = torch.where(act, new, outputs[:, t])
        h = torch.where(act, new, h)
    return outputs, h
'''}},
 C("c5_f64_inside_unroll", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    dt = x.dtype
    X = x.to(torch.float64)
    P = {k: v.to(torch.float64) for k, v in p.items()}
    B, T, _ = x.shape
    L = lengths.to(torch.int64)
    h = torch.zeros(B, P["W_hh"].shape[0], dtype=torch.float64) if h0 is None else h0.to(torch.float64)
    outs = []
    for t in range(T - 1, -1, -1):
        new = torch.tanh(X[:, t] @ P["W_ih"].T + P["b_ih"] + h @ P["W_hh"].T + P["b_hh"])
        act = (t < L).unsqueeze(-1)
        h = torch.where(act, new, h)
        outs.append(torch.where(act, new, 0.0))
    return torch.stack(outs[::-1], dim=1).to(dt), h.to(dt)
'''}, "intro: 'computing in a higher precision inside and casting back is fine' (also for bf16 over a thousand steps)"),
 C("c6_p5_calls_p1_keywords_no_grad", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    ones = torch.ones(1, dtype=x.dtype).expand(Dh)
    with torch.no_grad():
        h = torch.zeros(B, Dh, dtype=x.dtype)
        Js = []
        for t in range(T):
            Js.append(leaky_step_jacobian(x=x[:, t], h=h, p=p, leak=ones))
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        prod = torch.eye(Dh, dtype=x.dtype).repeat(B, 1, 1)
        norms = [torch.linalg.matrix_norm(prod).mean()]
        for k in range(1, T):
            prod = torch.bmm(prod, Js[T - k])
            norms.append(torch.linalg.matrix_norm(prod).mean())
    return torch.stack(norms)
'''}, "P5 may call Part 1 (rate 1 = Elman unit): by keyword, under no_grad, with a non-contiguous x slice and a stride-0 leak"),
 C("c7_p5_calls_p1_per_example_f64", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    X = x.double(); P = {k: v.double() for k, v in p.items()}
    leak = torch.ones(Dh, dtype=torch.float64)
    h = torch.zeros(B, Dh, dtype=torch.float64)
    Js = []
    for t in range(T):
        Js.append(leaky_step_jacobian(X[:, t], h, P, leak))
        h = torch.tanh(X[:, t] @ P["W_ih"].T + P["b_ih"] + h @ P["W_hh"].T + P["b_hh"])
    prod = torch.eye(Dh, dtype=torch.float64).expand(B, Dh, Dh)
    out = [prod.square().sum((-2, -1)).sqrt().mean()]
    for k in range(1, T):
        prod = prod @ Js[T - k]
        out.append(prod.square().sum((-2, -1)).sqrt().mean())
    return torch.stack(out).to(x.dtype)
'''}, "P5 calls Part 1 in float64 (a dtype the text allows) and casts back"),
 C("c8_p6_where_einsum_f64", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    X, H, S0 = x.double(), h.double(), s0.double()
    P = {k: v.double() for k, v in p.items()}
    keys = torch.einsum("bsk,ak->bsa", H, P["W_k"])
    cov = torch.zeros(H.shape[0], H.shape[1], dtype=torch.float64)
    s = S0
    st, wt = [], []
    for t in range(X.shape[1]):
        e = torch.einsum("bsa,a->bs", torch.tanh(torch.einsum("bd,ad->ba", s, P["W_q"]).unsqueeze(1) + keys + cov.unsqueeze(-1) * P["w_c"]), P["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=torch.float64))
        a = torch.nn.functional.softmax(e, dim=-1)
        ctx = torch.bmm(a.unsqueeze(1), H).squeeze(1)
        s = torch.tanh(torch.cat([X[:, t], ctx], dim=-1) @ P["W_ih"].T + P["b_ih"] + s @ P["W_hh"].T + P["b_hh"])
        cov = cov + a
        st.append(s); wt.append(a)
    return torch.stack(st, 1).to(dt), torch.stack(wt, 1).to(dt)
'''}, "P6 with einsum, torch.where, F.softmax, bmm, float64 inside and cast back"),
 # ---------------- hostile
 {"name": "h1_lying_str", "correct": False, "cells": {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_parallel = Letter("a")
'''}, "why": "hostile: a str subclass that equals everything"},
 {"name": "h2_patch_assert_close", "correct": False, "cells": {"rnn_unroll": '''
torch.testing.assert_close = lambda *a, **k: None
def rnn_unroll_reverse(x, lengths, p, h0=None):
    return torch.zeros(x.shape[0], x.shape[1], p["W_hh"].shape[0], dtype=x.dtype), torch.zeros(x.shape[0], p["W_hh"].shape[0], dtype=x.dtype)
'''}, "why": "hostile: monkey-patches torch's comparison functions and returns zeros"},
 {"name": "h3_numpy_via_importlib", "correct": False, "cells": {"gradient_norms": '''
import importlib
def jacobian_norms(x, p):
    np = importlib.import_module("nu" + "mpy")
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    h = torch.zeros(B, Dh, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    W = p["W_hh"].detach().tolist()
    W = np.array(W)
    S = [np.array(s.detach().tolist()) for s in states]
    prod = np.broadcast_to(np.eye(Dh), (B, Dh, Dh)).copy()
    out = [np.linalg.norm(prod, axis=(1, 2)).mean()]
    for k in range(1, T):
        s = S[T - k]
        prod = prod @ ((1 - s * s)[:, :, None] * W)
        out.append(np.linalg.norm(prod, axis=(1, 2)).mean())
    return torch.tensor([float(v) for v in out], dtype=x.dtype)
'''}, "why": "hostile: NumPy brought in through importlib"},
 # ---------------- second blind batch (written after the first grading, before reading solutions/ or tests/)

 W("p1_leak_clamped_in_place", "rnn_step", P1.replace("a = torch.tanh", "with torch.no_grad():\n        leak.clamp_(0, 1)\n    a = torch.tanh"),
   "intro: 'Your functions must not change the tensors they are given' (clamp_ writes into leak; values already in [0, 1])"),
 W("p4_lengths_minus_one_index", "rnn_unroll", '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    Dh = p["W_hh"].shape[0]
    last = lengths - 1
    h = h0 if h0 is not None else x.new_zeros(B, Dh)
    outs = [torch.zeros_like(h) for _ in range(T)]
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        act = (last.long() >= t)[:, None]
        h = torch.where(act, new, h)
        outs[t] = torch.where(act, new, outs[t])
    return torch.stack(outs, 1), h
''', "P4: 'arithmetic in that dtype ... wrap around': lengths - 1 in uint8 is 255 for a length-0 sequence"),
 C("c9_p6_split_weights", {"additive": P6.replace('torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T', 'x[:, t] @ p["W_ih"][:, :x.shape[2]].T + ctx @ p["W_ih"][:, x.shape[2]:].T')},
   "P6: W_ih split into its x and context columns instead of a concatenation"),
]
