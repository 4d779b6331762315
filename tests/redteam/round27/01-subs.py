# Red team round 27, chapter 01 (rnn-motivation): epsilon-adder, fixed-rank, from-memory, mask-and-sentinel.
BASE = {
"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
''',
"costs": '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2 * 768
''',
"mc": 'answer_parallel = "b"\n',
"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    L = lengths.to(device=x.device, dtype=torch.long)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        run = (t < L)[:, None]
        h = torch.where(run, new, h)
        outs[t] = torch.where(run, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
''',
"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    def fro(P):
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        safe = torch.where(m > 0, m, torch.ones_like(m))
        return (P / safe).pow(2).sum((-2, -1)).sqrt() * safe[..., 0, 0]
    P = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)
    norms = [fro(P).mean()]
    for k in range(1, T):
        J = (1 - states[T - k] ** 2)[:, :, None] * p["W_hh"]
        P = P @ J
        norms.append(fro(P).mean())
    return torch.stack(norms)
''',
"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = x.new_zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, None, :] @ h)[:, 0]
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
''',
}

SUBMISSIONS = []
def W(name, cells, why, kind):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": f"[{kind}] {why}"})
def C(name, cells, why, kind):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": f"[{kind}] {why}"})
def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": f"[hostile] {why}"})

# ---------------------------------------------------------------- epsilon-adder
W("eps_p1_tanh_clamped", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(a).clamp(-1 + 1e-7, 1 - 1e-7)  # keep the derivative away from 0
    d = 1 - t * t
    eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''}, "P1 'clamp nothing' / pre-activations in the hundreds where tanh is +-1: the clamp gives 1-tanh^2 ~2e-7 instead of 0", "epsilon-adder")

W("eps_p5_scale_plus_eps", {"gradient_norms": BASE["gradient_norms"].replace(
    '''        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        safe = torch.where(m > 0, m, torch.ones_like(m))''',
    '''        safe = P.abs().amax(dim=(-2, -1), keepdim=True) + torch.finfo(P.dtype).eps  # no division by 0''')},
  "P5 'scale the product first ... however small it is': eps added to the scale dominates a product near 1e-180 whose scaled squares then underflow to 0", "epsilon-adder")

W("eps_p5_sqrt_eps", {"gradient_norms": BASE["gradient_norms"].replace(
    "return (P / safe).pow(2).sum((-2, -1)).sqrt() * safe[..., 0, 0]",
    "return ((P / safe).pow(2).sum((-2, -1)) + 1e-12).sqrt() * safe[..., 0, 0]  # safe sqrt")},
  "P5 'floor no norm': +1e-12 inside the sqrt of the scaled sum changes every norm by ~1e-12 relative (float64 compared to 1e-10 or closer) and gives an all-zero product a norm of 1e-6*scale", "epsilon-adder")

W("eps_p6_maxall_eps_den", {"additive": BASE["additive"].replace(
    '''        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)''',
    '''        ex = torch.exp(e - e.max(dim=-1, keepdim=True).values) * allowed.to(e.dtype)
        a = ex / (ex.sum(-1, keepdim=True) + 1e-9)''')},
  "P6 padding scores far above every real one still give weight exactly 0 and real ones sum to 1: max over padding underflows the real exps, and +1e-9 skews the weights", "epsilon-adder")

W("eps_p4_len_clamp1", {"rnn_unroll": BASE["rnn_unroll"].replace(
    "L = lengths.to(device=x.device, dtype=torch.long)",
    "L = lengths.to(device=x.device, dtype=torch.long).clamp(min=1)  # at least one step, no empty sequence")},
  "P4 'for a sequence of length 0, the start state' and zeros at padding: clamp(min=1) reads x[b,0] for length-0 sequences", "epsilon-adder")

# ---------------------------------------------------------------- fixed-rank
W("fixed_p5_norm_of_mean", {"gradient_norms": BASE["gradient_norms"].replace(
    "norms = [fro(P).mean()]", "norms = [fro(P.mean(0, keepdim=True))[0]]").replace(
    "norms.append(fro(P).mean())", "norms.append(fro(P.mean(0, keepdim=True))[0])")},
  "P5 'computed for each example and then averaged over the batch (norm first, then mean)': averages the (B,D,D) products over dim 0 first; the visible example has identical examples", "fixed-rank")

W("fixed_p5_column_scaling", {"gradient_norms": BASE["gradient_norms"].replace(
    "J = (1 - states[T - k] ** 2)[:, :, None] * p[\"W_hh\"]",
    "J = (1 - states[T - k] ** 2)[:, None, :] * p[\"W_hh\"]")},
  "P5 J_s = d h_s / d h_{s-1} = diag(1-h_s^2) W_hh: the derivative broadcast along the wrong axis (W_hh diag(.)) gives another product; the example has D_h = 1", "fixed-rank")

W("fixed_p6_squeeze_all", {"additive": BASE["additive"].replace(
    '''        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]''',
    '''        e = (torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"][:, None]).squeeze()
        e = e.unsqueeze(0) if e.dim() == 1 else (e.reshape(1, 1) if e.dim() == 0 else e)  # a batch of one''')},
  "P6 x (B,T,D_in), h (B,S,D_k) for any B and S: squeeze() with no dim, patched for the example's batch of one only; a one-token source (S=1) with B>1 is taken for a batch of one", "fixed-rank")

W("fixed_p4_loop_to_max", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    L = lengths.to(device=x.device, dtype=torch.long)
    outs = [x.new_zeros(B, p["W_hh"].shape[0])] * T
    for t in range(int(L.max()) - 1, -1, -1):   # nothing to do after the longest sequence
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        run = (t < L)[:, None]
        h = torch.where(run, new, h)
        outs[t] = torch.where(run, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "P4 'any B (an empty batch, B = 0, too, where lengths.max() has no value)' and 'return new tensors' (length-0-only batch returns h0 itself)", "fixed-rank")

# ---------------------------------------------------------------- from-memory
W("mem_p2_three_projections", {"costs": '''
# self-attention from memory: Q, K, V projections (3 n d^2) + QK^T and AV (2 n^2 d); LSTM 8 n d^2
attention_over_lstm = (3 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2.5 * 768
'''}, "P2 'computes four projections (queries, keys, values and the output)': the output projection forgotten", "from-memory")

W("mem_p5_prev_state_derivative", {"gradient_norms": BASE["gradient_norms"].replace(
    "J = (1 - states[T - k] ** 2)[:, :, None] * p[\"W_hh\"]",
    "prev = states[T - k - 1] if T - k - 1 >= 0 else torch.zeros_like(states[0])\n        J = (1 - prev ** 2)[:, :, None] * p[\"W_hh\"]")},
  "P5 'J_s ... depends on h_s': the tanh derivative evaluated at the previous state h_{s-1}; visible example has all states 0", "from-memory")

W("mem_p4_first_is_outputs0", {"rnn_unroll": BASE["rnn_unroll"].replace(
    "return torch.stack(outs, 1), h", "outputs = torch.stack(outs, 1)\n    return outputs, outputs[:, 0].clone()")},
  "P4 'first ... (for a sequence of length 0, the start state)': outputs[:, 0] is zeros there (h0 given or not... zero only differs when h0 given)", "from-memory")

W("mem_p1_autograd_no_create_graph", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        return (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    with torch.enable_grad():
        full = torch.autograd.functional.jacobian(f, h)   # (B, D, B, D)
    B = h.shape[0]
    idx = torch.arange(B)
    return full[idx, :, idx, :]
'''}, "P1 'gradients must flow through J ... jacobian needs create_graph=True'", "from-memory")

# ---------------------------------------------------------------- mask-and-sentinel
W("mask_p4_multiply_state", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    L = lengths.to(device=x.device, dtype=torch.long)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        m = (t < L).to(x.dtype)[:, None]          # 1 = real token, 0 = padding
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = new * m                               # padding: state and output 0
        outs[t] = h
    return torch.stack(outs, 1), h
'''}, "P4 'start from the state h0[b]': multiplying the mask into the state resets it to 0 on the padding, which is read first, so h0 is lost", "mask-and-sentinel")

W("mask_p4_uint8_wrap", {"rnn_unroll": BASE["rnn_unroll"].replace(
    "L = lengths.to(device=x.device, dtype=torch.long)", "L = lengths.to(device=x.device)")},
  "P4 'a Python int compared with such a tensor wraps around': t < uint8 lengths for T > 255", "mask-and-sentinel")

W("mask_p6_finfo_min_fill", {"additive": BASE["additive"].replace(
    'e = e.masked_fill(~allowed, float("-inf"))', 'e = e.masked_fill(~allowed, torch.finfo(e.dtype).min)')},
  "P6 'real scores of exactly torch.finfo(dtype).min, which that value filled in at the padding ties with'", "mask-and-sentinel")

W("mask_p6_additive_minus_1e9", {"additive": BASE["additive"].replace(
    'e = e.masked_fill(~allowed, float("-inf"))', 'e = e + (~allowed).to(e.dtype) * -1e9')},
  "P6 padding weight exactly 0: an additive -1e9 loses to padding scores thousands+ above and to real scores below -1e10", "mask-and-sentinel")

W("mask_p6_post_softmax_renorm", {"additive": BASE["additive"].replace(
    '''        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)''',
    '''        a = torch.softmax(e, dim=-1) * allowed          # zero the padding, then renormalise
        a = a / a.sum(-1, keepdim=True)''')},
  "P6 padding scores far above the real ones: softmax over all positions underflows the real weights to 0 and 0/0 gives NaN", "mask-and-sentinel")

# ---------------------------------------------------------------- correct
C("ok_p1_diag_embed_float64", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    X, Hs, lk = x.double(), h.double(), leak.double()
    W = {k: v.double() for k, v in p.items()}
    a = X @ W["W_ih"].T + W["b_ih"] + Hs @ W["W_hh"].T + W["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    J = torch.diag_embed((1 - lk).expand(X.shape[0], -1)) + (lk * d).unsqueeze(-1) * W["W_hh"]
    return J.to(dt)
'''}, "P1 analytic Jacobian in float64 inside, cast back; diag_embed identity part", "epsilon-adder (allowed: higher precision)")

C("ok_p1_autograd_create_graph", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    with torch.enable_grad():
        rows = []
        for b in range(x.shape[0]):
            def f(hb, b=b):
                return (1 - leak) * hb + leak * torch.tanh(x[b] @ p["W_ih"].T + p["b_ih"] + hb @ p["W_hh"].T + p["b_hh"])
            rows.append(torch.autograd.functional.jacobian(f, h[b], create_graph=True))
        return torch.stack(rows)
'''}, "P1 autograd per example with create_graph=True, enable_grad inside", "from-memory (right)")

C("ok_p2_exprs", {"costs": '''
n, d = 4096, 512
attention = 4 * n * d * d + 2 * n * n * d
lstm = n * 4 * (d * d + d * d)
attention_over_lstm = attention / lstm
d = 768
equal_cost_length = 2 * d      # 4 n d^2 + 2 n^2 d = 8 n d^2  <=>  n = 2 d
'''}, "P2 counts written as expressions", "from-memory (right)")

C("ok_p3_b_kw", {"mc": 'answer_parallel = "B".lower()\n'}, "P3 b", "from-memory (right)")

C("ok_p4_float_mask_multiply", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    h = h0 if h0 is not None else torch.zeros(B, p["W_hh"].shape[0], dtype=x.dtype, device=x.device)
    L = lengths.long()
    outs = []
    for t in reversed(range(T)):
        m = (L > t).to(x.dtype).unsqueeze(-1)       # 1 while inside the sequence
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = m * new + (1 - m) * h
        outs.append(m * new)
    return torch.stack(outs[::-1], dim=1), h
'''}, "P4 0/1 mask in x's dtype multiplied in, state kept as m*new + (1-m)*h (exact for m in {0,1})", "mask-and-sentinel (right)")

C("ok_p5_calls_p1", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = torch.ones(D, dtype=x.dtype, device=x.device)
    h = torch.zeros(B, D, dtype=x.dtype, device=x.device)
    Js = []
    for t in range(T):
        Js.append(leaky_step_jacobian(x[:, t], h, p, ones))   # J_t = d h_t / d h_{t-1}, rate 1 = Elman
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    out = []
    P = None
    for k in range(T):
        if k > 0:
            P = Js[T - k] if P is None else P @ Js[T - k]
        if P is None:
            out.append(torch.full((), math.sqrt(D), dtype=x.dtype))
            continue
        m = P.abs().flatten(1).amax(1).clamp(min=torch.finfo(P.dtype).tiny)[:, None, None]
        out.append((torch.linalg.matrix_norm(P / m) * m[:, 0, 0]).mean())
    return torch.stack(out)
'''}, "P5 calls Part 1 with every rate 1 (the Elman cell); scale clamped to finfo.tiny (only changes an all-zero product)", "epsilon-adder (allowed guard)")

C("ok_p5_float64_norm", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, D_in = x.shape
    W_hh = p["W_hh"]
    D = W_hh.shape[0]
    hs = []
    h = x.new_zeros(B, D)
    for t in range(T):
        h = torch.tanh(torch.einsum("bi,hi->bh", x[:, t], p["W_ih"]) + p["b_ih"] + torch.einsum("bi,hi->bh", h, W_hh) + p["b_hh"])
        hs.append(h)
    P = torch.eye(D, dtype=x.dtype, device=x.device).repeat(B, 1, 1)
    res = []
    for k in range(T):
        if k:
            P = torch.matmul(P, (1 - hs[T - k] * hs[T - k]).unsqueeze(-1) * W_hh)
        Pd = P.double()
        m = Pd.abs().amax(dim=(-2, -1))
        m = torch.where(m == 0, torch.ones_like(m), m)
        res.append((torch.linalg.matrix_norm(Pd / m[:, None, None]) * m).mean().to(x.dtype))
    return torch.stack(res)
'''}, "P5 norms taken in float64 after scaling, einsum steps", "fixed-rank (right)")

C("ok_p6_where_float64", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    X, Hk, s = x.double(), h.double(), s0.double()
    P = {k: v.double() for k, v in p.items()}
    B, T, D_in = X.shape
    Wx, Wc = P["W_ih"][:, :D_in], P["W_ih"][:, D_in:]
    keys = torch.einsum("bsk,ak->bsa", Hk, P["W_k"])
    cov = torch.zeros(B, Hk.shape[1], dtype=X.dtype)
    st, wt = [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh((s @ P["W_q"].T).unsqueeze(1) + keys + cov.unsqueeze(-1) * P["w_c"]), P["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype))
        a = torch.nn.functional.softmax(e, dim=-1)
        ctx = torch.einsum("bs,bsk->bk", a, Hk)
        s = torch.tanh(X[:, t] @ Wx.T + ctx @ Wc.T + P["b_ih"] + s @ P["W_hh"].T + P["b_hh"])
        cov = cov + a
        st.append(s); wt.append(a)
    return torch.stack(st, 1).to(dt), torch.stack(wt, 1).to(dt)
'''}, "P6 float64 inside, torch.where with -inf, F.softmax, W_ih split into its x and context columns", "mask-and-sentinel (right)")

C("ok_p6_max_over_allowed", {"additive": BASE["additive"].replace(
    '''        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)''',
    '''        e = e.masked_fill(~allowed, float("-inf"))
        ex = torch.exp(e - e.amax(dim=-1, keepdim=True))   # max over the real positions only
        a = ex / ex.sum(-1, keepdim=True)''')},
  "P6 softmax written out with the max over allowed positions (padding -inf first)", "epsilon-adder (right)")

# ---------------------------------------------------------------- hostile
H("hostile_p4_patch_assert_close", {"rnn_unroll": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    return x.new_zeros(B, T, p["W_hh"].shape[0]), x.new_zeros(B, p["W_hh"].shape[0])
'''}, "P4 disables torch.testing.assert_close and returns zeros")

H("hostile_p2_float_subclass", {"costs": '''
class Anything(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return Anything(0.0)
    def __rsub__(self, other): return Anything(0.0)
    def __abs__(self): return Anything(0.0)
    __hash__ = float.__hash__
attention_over_lstm = Anything(1.0)
equal_cost_length = Anything(1.0)
'''}, "P2 a float subclass equal to everything")

H("hostile_p6_steal_reference", {"additive": '''
import gc, types
def coverage_decoder(x, h, allowed, s0, p):
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and "coverage" in obj.__name__ and obj.__code__ is not coverage_decoder.__code__:
            try:
                return obj(x, h, allowed, s0, p)
            except Exception:
                pass
    B, T, _ = x.shape
    return x.new_zeros(B, T, s0.shape[-1]), x.new_zeros(B, T, h.shape[1])
'''}, "P6 hunts the hidden reference through gc and calls it (no visible pass needed beyond shapes)")

# ================================================================ second batch (still blind)
W("mem_p1_sech2", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = torch.cosh(a) ** -2            # tanh' = sech^2
    eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''}, "P1 gradients must flow (and stay finite) at pre-activations in the hundreds: sech^2 = cosh^-2 overflows, its gradient is inf*0 = NaN", "from-memory")

W("mask_p1_rate0_sentinel", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    if bool((leak == 0).all()):           # rate 0 everywhere: the state never changes
        return torch.eye(D, dtype=x.dtype, device=x.device).repeat(B, 1, 1)
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    eye = torch.eye(D, dtype=x.dtype, device=x.device)
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''}, "P1 'also where every rate is 0 or 1 (a shortcut that returns a constant identity there has the right values but no gradient)'", "mask-and-sentinel")

W("mask_p4_h0_or", {"rnn_unroll": BASE["rnn_unroll"].replace(
    'h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])',
    'h = h0 or x.new_zeros(B, p["W_hh"].shape[0])')},
  "P4 'h0, when given, is (B, D_h)': `h0 or zeros` uses None as the sentinel and raises (or ignores a zero h0 of one element) for a real tensor", "mask-and-sentinel")

W("mask_p4_lengths_in_x_dtype", {"rnn_unroll": BASE["rnn_unroll"].replace(
    "L = lengths.to(device=x.device, dtype=torch.long)", "L = lengths.to(device=x.device, dtype=x.dtype)   # compare in one dtype")},
  "P4 'lengths stays a count of whole steps (converted to a bfloat16 x's dtype, 257 becomes 256...)'", "mask-and-sentinel")

W("mem_p5_spectral_norm", {"gradient_norms": BASE["gradient_norms"].replace(
    "return (P / safe).pow(2).sum((-2, -1)).sqrt() * safe[..., 0, 0]",
    "return torch.linalg.matrix_norm(P / safe, ord=2) * safe[..., 0, 0]")},
  "P5 'the Frobenius norm': the matrix norm remembered as the spectral norm; the same for D_h = 1", "from-memory")

W("mem_p5_product_order", {"gradient_norms": BASE["gradient_norms"].replace("P = P @ J", "P = J @ P")},
  "P5 'J_{T-1} J_{T-2} ... J_{T-k}': new Jacobian multiplied on the left; the same for D_h = 1", "from-memory")

W("mem_p6_keras_whh", {"additive": BASE["additive"].replace('s @ p["W_hh"].T', 's @ p["W_hh"]')},
  "P6 'A weight W of shape (out, in) is applied as x @ W.T': W_hh applied Keras-style; the example has W_hh = 0", "from-memory")

W("eps_p6_coverage_clamp", {"additive": BASE["additive"].replace("cov = cov + a", "cov = (cov + a).clamp(max=1.0)   # coverage is a fraction")},
  "P6 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' / clamp nothing: coverage may exceed 1 after several steps", "epsilon-adder")

W("mem_p2_lesson_crossover", {"costs": '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 768        # n = d, as in the lesson
'''}, "P2b projections and gates included: n = 2d, not the lesson's n = d", "from-memory")

C("ok_p4_output_multiply", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    L = lengths.to(torch.int64)
    outs = []
    for t in range(T - 1, -1, -1):
        run = (L > t).unsqueeze(1)
        new = torch.tanh(torch.nn.functional.linear(x[:, t], p["W_ih"], p["b_ih"]) + torch.nn.functional.linear(h, p["W_hh"], p["b_hh"]))
        outs.insert(0, new * run)
        h = torch.where(run, new, h)
    return torch.stack(outs, dim=1), h + 0
'''}, "P4 F.linear, outputs as new * bool mask (new is finite), h + 0 for a fresh tensor", "mask-and-sentinel (right)")

C("ok_p6_additive_inf_bias", {"additive": BASE["additive"].replace(
    'e = e.masked_fill(~allowed, float("-inf"))',
    'e = e + torch.where(allowed, 0.0, float("-inf")).to(e.dtype)   # padding scores are finite')},
  "P6 additive -inf bias (padding scores finite, every row has a real token)", "mask-and-sentinel (right)")

C("ok_p2_floats", {"costs": 'attention_over_lstm = 2.5\nequal_cost_length = 1536.0\n'}, "P2 floats", "from-memory (right)")

# ================================================================ third batch (still blind)
W("mask_p1_rowwise_rate0", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
    J = (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
    frozen = (leak == 0)[:, None]                  # rate 0: the unit is frozen, its row is the identity
    return torch.where(frozen, eye, J)
'''}, "P1 gradients compared also where every rate is 0: rows of rate-0 units replaced by a constant identity row lose d J / d leak", "mask-and-sentinel")

W("eps_p5_norm_floor_tiny", {"gradient_norms": BASE["gradient_norms"].replace(
    "return (P / safe).pow(2).sum((-2, -1)).sqrt() * safe[..., 0, 0]",
    "return ((P / safe).pow(2).sum((-2, -1)).sqrt() * safe[..., 0, 0]).clamp(min=torch.finfo(P.dtype).tiny)")},
  "P5 'floor no norm' / 'only an all-zero product may stay unscaled': an all-zero product's norm is floored to finfo.tiny", "epsilon-adder")

W("eps_p6_global_max", {"additive": BASE["additive"].replace(
    '''        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)''',
    '''        e = e.masked_fill(~allowed, float("-inf"))
        ex = torch.exp(e - e.max())                   # stable softmax
        a = ex / ex.sum(-1, keepdim=True)''')},
  "P6 softmax_j over the source positions of each example: the max is taken over the whole batch, so a row far below the batch max underflows to 0/0", "epsilon-adder")

C("ok_p5_log_space", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=torch.float64).repeat(B, 1, 1)
    logscale = torch.zeros(B, dtype=torch.float64)      # P_true = exp(logscale) * P
    out = [torch.tensor(math.sqrt(D), dtype=torch.float64)]
    for k in range(1, T):
        J = (1 - states[T - k].double() ** 2)[:, :, None] * p["W_hh"].double()
        P = P @ J
        m = P.abs().amax(dim=(-2, -1))
        nz = m > 0
        m = torch.where(nz, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m)
        fro = torch.linalg.matrix_norm(P)
        norm = torch.where(nz & (fro > 0), torch.exp(logscale + torch.log(fro)), torch.zeros_like(fro))
        if k > 1:
            norm = torch.where(dead, torch.zeros_like(norm), norm)
        dead = (~nz) if k == 1 else (dead | ~nz)
        out.append(norm.mean())
    return torch.stack(out).to(x.dtype)
'''}, "P5 product kept normalised every step in float64, its scale tracked in log space (dead products stay 0)", "epsilon-adder (right)")
