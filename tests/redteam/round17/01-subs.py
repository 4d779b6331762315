# Round 17, chapter 01: defensive programmer (D), high-level library user (H), production engineer (P),
# test-driven student (T); correct variants (C); hostile (X).

# ---------------------------------------------------------------- correct building blocks
STEP_OK = '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(pre)
    J = torch.diag_embed((1 - leak).expand(h.shape[0], -1)) + (leak * (1 - t * t))[:, :, None] * p["W_hh"][None]
    return J
'''

UNROLL_OK = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    L = lengths.to(torch.long)
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    outs = []
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        h_new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, h_new, h)
        outs.append(torch.where(active, h_new, torch.zeros_like(h_new)))
    outs.reverse()
    return torch.stack(outs, dim=1), h
'''

NORMS_OK = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        hs = states[T - k]
        J = (1 - hs * hs)[:, :, None] * p["W_hh"][None]
        P = P @ J
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''

DEC_OK = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    s = s0
    c = torch.zeros_like(h[:, :, 0])
    states, weights = [], []
    for t in range(T):
        pre = (s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]
        e = torch.tanh(pre) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = []
W = lambda n, c, w: SUBMISSIONS.append(sub(n, False, c, w))
C = lambda n, c, w: SUBMISSIONS.append(sub(n, True, c, w))
X = lambda n, c, w: SUBMISSIONS.append(dict(sub(n, False, c, w), hostile=True))

# ================================================================ wrong: defensive programmer
W("D_step_float_everything", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    x, h, leak = x.float(), h.float(), leak.float()
    W_ih, b_ih, W_hh, b_hh = (p[k].float() for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    t = torch.tanh(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
    return torch.diag_embed((1 - leak).expand(h.shape[0], -1)) + (leak * (1 - t * t))[:, :, None] * W_hh[None]
'''}, "'Return it in the dtype of x' (float64/bfloat16 come back float32)")

W("D_step_detach_weights", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    W_hh = p["W_hh"].detach().clone()   # a Jacobian "needs no gradient through the weight"
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ W_hh.T + p["b_hh"])
    return torch.diag_embed((1 - leak).expand(h.shape[0], -1)) + (leak * (1 - t * t))[:, :, None] * W_hh[None]
'''}, "'gradients must flow through J ... compare its gradients with respect to every input (x, h, each tensor of p and leak)'")

W("D_costs_int", {"costs": '''
n, d = 4096, 512
attention_over_lstm = int((4 * n * d * d + 2 * n * n * d) / (8 * n * d * d))   # a count is a whole number
d = 768
equal_cost_length = int(2 * d)
'''}, "2a asks 'how many times more': 2.5, int() gives 2")

W("D_unroll_clamp_lengths", {"rnn_unroll": UNROLL_OK.replace("L = lengths.to(torch.long)", "L = lengths.to(torch.long).clamp(min=1)  # no empty sequence")},
  "'for a sequence of length 0, the start state' and zeros at padding positions")

W("D_norms_clamp_eps", {"gradient_norms": NORMS_OK.replace("return torch.stack(norms)", "return torch.stack(norms).clamp(min=1e-6)  # keep away from 0 for a log plot")},
  "entry k is the Frobenius norm: vanishing norms fall below 1e-6 and must not be clamped")

W("D_norms_refuse_batch_of_one", {"gradient_norms": NORMS_OK.replace("    B, T, _ = x.shape\n", "    B, T, _ = x.shape\n    if B < 2:\n        raise ValueError('need at least two examples to average')\n", 1)},
  "'with B >= 1' : a batch of one is allowed")

W("D_dec_clamp_coverage", {"additive": DEC_OK.replace("c = c + a", "c = (c + a).clamp(max=1.0)  # coverage is a fraction")},
  "'c_{t+1,j} = c_{t,j} + alpha_{t,j}' : coverage sums over steps and can exceed 1")

W("D_dec_detach_coverage", {"additive": DEC_OK.replace("c = c + a", "c = c + a.detach()  # bookkeeping, no gradient needed")},
  "'Gradients must flow through states and weights ... compare their gradients with the reference's' (coverage path)")

# ================================================================ wrong: high-level library user
W("H_step_functional_jacobian_no_graph", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return ((1 - leak) * hh + leak * t).sum(0)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(f, h)   # (D_h, B, D_h)
    return J.permute(1, 0, 2).contiguous()
'''}, "'gradients must flow through J ... jacobian needs create_graph=True for this'")

W("H_unroll_pad_sequence_maxlen", {"rnn_unroll": '''
from torch.nn.utils.rnn import pad_sequence
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B = x.shape[0]
    D = p["W_hh"].shape[0]
    outs, firsts = [], []
    for b in range(B):
        L = int(lengths[b])
        h = h0[b] if h0 is not None else x.new_zeros(D)
        seq = [None] * L
        for t in range(L - 1, -1, -1):
            h = torch.tanh(x[b, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            seq[t] = h
        outs.append(torch.stack(seq) if L else x.new_zeros(0, D))
        firsts.append(h)
    return pad_sequence(outs, batch_first=True), torch.stack(firsts)
'''}, "'outputs (B, T, D_h)' and 'the longest sequence need not fill the T columns'; also 'any B (an empty batch too)'")

W("H_unroll_nn_rnncell_copy", {"rnn_unroll": '''
import torch.nn as nn
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D = p["W_hh"].shape[0]
    cell = nn.RNNCell(D_in, D, dtype=x.dtype)
    with torch.no_grad():
        cell.weight_ih.copy_(p["W_ih"]); cell.bias_ih.copy_(p["b_ih"])
        cell.weight_hh.copy_(p["W_hh"]); cell.bias_hh.copy_(p["b_hh"])
    L = lengths.long()
    h = h0 if h0 is not None else x.new_zeros(B, D)
    outs = []
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        h_new = cell(x[:, t], h)
        h = torch.where(active, h_new, h)
        outs.append(torch.where(active, h_new, torch.zeros_like(h_new)))
    return torch.stack(outs[::-1], 1), h
'''}, "'Gradients must flow through outputs and first ... compare their gradients' (to the weights in p, lost by copy_ under no_grad)")

W("H_norms_mean_then_norm", {"gradient_norms": NORMS_OK.replace("torch.linalg.matrix_norm(P).mean()", "torch.linalg.matrix_norm(P.mean(0))")},
  "'computed for each example and then averaged over the batch (norm first, then mean)'")

W("H_dec_rnncell_copy", {"additive": DEC_OK.replace('''    s = s0
''', '''    import torch.nn as nn
    cell = nn.RNNCell(p["W_ih"].shape[1], p["W_hh"].shape[0], dtype=x.dtype)
    with torch.no_grad():
        cell.weight_ih.copy_(p["W_ih"]); cell.bias_ih.copy_(p["b_ih"])
        cell.weight_hh.copy_(p["W_hh"]); cell.bias_hh.copy_(p["b_hh"])
    s = s0
''').replace('''s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])''',
             '''s = cell(torch.cat([x[:, t], ctx], -1), s)''')},
  "'Gradients must flow through states and weights' (no gradient reaches W_ih, W_hh, biases)")

# ================================================================ wrong: production engineer
W("P_step_eye_default_dtype", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    D = h.shape[1]
    I = torch.eye(D, device=x.device)       # device from the input, dtype default
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    return (1 - leak)[:, None] * I + (leak * (1 - t * t))[:, :, None] * p["W_hh"]
'''}, "'Return it in the dtype of x' (bfloat16 + float32 eye gives float32)")

W("P_norms_inference_mode", {"gradient_norms": '''
def jacobian_norms(x, p):
    with torch.inference_mode():
''' + "\n".join("    " + l for l in NORMS_OK.split("\n")[2:])}, "'Every tensor they return belongs to the caller, who may keep it and change it in place' (an inference tensor refuses in-place updates outside inference mode)")

W("P_norms_cache_weights_by_shape", {"gradient_norms": '''
WCACHE = {}
''' + NORMS_OK.replace('''    D = p["W_hh"].shape[0]
''', '''    D = p["W_hh"].shape[0]
    key = (D, x.dtype)
    if key not in WCACHE:
        WCACHE[key] = (p["W_ih"].T.contiguous(), p["W_hh"].contiguous())
    WihT, Whh = WCACHE[key]
''').replace('x[:, t] @ p["W_ih"].T', 'x[:, t] @ WihT').replace('* p["W_hh"][None]', '* Whh[None]')},
  "'Nor may they keep anything from one call to the next ... also with the same dict whose tensors were given new values'")

W("P_unroll_reused_first_buffer", {"rnn_unroll": '''
FIRST = {}
''' + UNROLL_OK.replace("    return torch.stack(outs, dim=1), h", '''    key = (B, h.shape[1], x.dtype)
    if key not in FIRST:
        FIRST[key] = x.new_zeros(B, h.shape[1])
    buf = FIRST[key]
    buf.copy_(h)
    return torch.stack(outs, dim=1), buf''')},
  "'return new tensors on every call ... (no output buffer reused)'")

# ================================================================ wrong: test-driven student
W("T_unroll_python_int_compare", {"rnn_unroll": UNROLL_OK.replace("L = lengths.to(torch.long)", "L = lengths")},
  "'a Python int compared with such a tensor wrap around' (uint8/int8 lengths with T past their range)")

W("T_unroll_ignores_h0", {"rnn_unroll": UNROLL_OK.replace('h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])', 'h = x.new_zeros(B, p["W_hh"].shape[0])')},
  "'start from the state h0[b] (zeros when h0 is None)'")

W("T_norms_python_list", {"gradient_norms": NORMS_OK.replace("return torch.stack(norms)", "return torch.tensor([n.item() for n in norms])")},
  "'The result has the dtype of x'")

W("T_norms_prev_state", {"gradient_norms": NORMS_OK.replace("hs = states[T - k]", "hs = states[T - k - 1]")},
  "'J_s = dh_s/dh_{s-1} ... a matrix that depends on h_s' (uses h_{s-1}; the visible case has all states 0)")

W("T_dec_ignores_s0", {"additive": DEC_OK.replace("s = s0\n", "s = torch.zeros_like(s0)\n")},
  "'starting from the given state s_{-1}'")

W("T_mc_both", {"mc": 'answer_parallel = "c"'}, "only the diagonal linear recurrence composes associatively: (b)")

# ================================================================ correct
C("C_step_func_vmap_jacrev", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(xb, hb):
        t = torch.tanh(xb @ p["W_ih"].T + p["b_ih"] + hb @ p["W_hh"].T + p["b_hh"])
        return (1 - leak) * hb + leak * t
    return torch.func.vmap(torch.func.jacrev(step, argnums=1))(x, h)
'''}, "library user: torch.func jacobians are differentiable")

C("C_step_functional_jacobian_create_graph", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        return ((1 - leak) * hh + leak * t).sum(0)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(f, h, create_graph=True)
    return J.permute(1, 0, 2)
'''}, "sum over the batch: each example depends on its own state only")

C("C_step_float64_inplace_diag", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    x64, h64, l64 = x.to(torch.float64), h.to(torch.float64), leak.to(torch.float64)
    q = {k: v.to(torch.float64) for k, v in p.items()}
    t = torch.tanh(torch.addmm(q["b_ih"], x64, q["W_ih"].T) + torch.addmm(q["b_hh"], h64, q["W_hh"].T))
    J = (l64 * (1 - t.pow(2)))[:, :, None] * q["W_hh"]
    J = J.clone()
    J.diagonal(dim1=-2, dim2=-1).add_(1 - l64)
    return J.to(dt)
'''}, "defensive/production: float64 inside, cast back; in-place diagonal add on a fresh tensor")

C("C_costs_float", {"costs": '''
def attn(n, d):
    return 4 * n * d * d + 2 * n * n * d
def lstm(n, d):
    return n * 4 * 2 * d * d
attention_over_lstm = attn(4096, 512) / lstm(4096, 512)
equal_cost_length = 2.0 * 768
'''}, "formulas")

C("C_unroll_defensive_clone", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    if x.dim() != 3:
        raise ValueError("x must be (B, T, D_in)")
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.detach().clone().to(dtype=torch.int64)
    h = h0.clone() if h0 is not None else torch.zeros(B, D, dtype=x.dtype, device=x.device)
    outs = [None] * T
    for t in reversed(range(T)):
        active = (L > t).unsqueeze(-1)
        pre = torch.nn.functional.linear(x[:, t].contiguous(), p["W_ih"], p["b_ih"]) + torch.nn.functional.linear(h, p["W_hh"], p["b_hh"])
        h_new = torch.tanh(pre)
        outs[t] = h_new.masked_fill(~active, 0.0)
        h = torch.where(active, h_new, h)
    return torch.stack(outs, dim=1), h
'''}, "clones, F.linear, masked_fill")

C("C_unroll_preallocated_filled", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    h = x.new_zeros(B, D) if h0 is None else h0
    outputs = x.new_zeros(B, T, D)
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        h_new = torch.tanh(torch.addmm(p["b_ih"], x[:, t], p["W_ih"].T) + torch.addmm(p["b_hh"], h, p["W_hh"].T))
        outputs[:, t] = h_new * active.to(x.dtype)
        h = torch.where(active, h_new, h)
    return outputs, h
'''}, "production: zeros buffer made per call and filled in place, addmm")

C("C_norms_float64_einsum", {"gradient_norms": '''
def jacobian_norms(x, p):
    dt = x.dtype
    x = x.to(torch.float64)
    q = {k: v.to(torch.float64) for k, v in p.items()}
    B, T, _ = x.shape
    D = q["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    hs = []
    for t in range(T):
        h = torch.tanh(torch.einsum("bi,hi->bh", x[:, t], q["W_ih"]) + q["b_ih"] + torch.einsum("bi,hi->bh", h, q["W_hh"]) + q["b_hh"])
        hs.append(h)
    P = torch.eye(D, dtype=torch.float64).repeat(B, 1, 1)
    out = [P.pow(2).sum((1, 2)).sqrt().mean()]
    for k in range(1, T):
        J = torch.einsum("bi,ij->bij", 1 - hs[T - k] ** 2, q["W_hh"])
        P = torch.einsum("bij,bjk->bik", P, J)
        out.append(P.pow(2).sum((1, 2)).sqrt().mean())
    return torch.stack(out).to(dt)
'''}, "float64 inside, einsum")

C("C_norms_no_grad", {"gradient_norms": '''
def jacobian_norms(x, p):
    with torch.no_grad():
''' + "\n".join("    " + l for l in NORMS_OK.split("\n")[2:])}, "values only: no_grad allowed")

C("C_norms_calls_leaky_step", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = x.new_ones(D)
    h = x.new_zeros(B, D)
    prev = []
    for t in range(T):
        prev.append(h)
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        s = T - k
        J = leaky_step_jacobian(x[:, s], prev[s], p, ones)   # rate 1: the Elman step's Jacobian
        P = P @ J
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''}, "calls Part 1 with every rate 1 (the Elman cell), allowed")

C("C_norms_calls_unroll_reverse", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    full = torch.full((B,), T, dtype=torch.long)
    rev, _ = rnn_unroll_reverse(x.flip(1), full, p)
    states = rev.flip(1)          # states[:, s] = state after reading x[:, s], from zeros
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        hs = states[:, T - k]
        P = P @ ((1 - hs * hs)[:, :, None] * p["W_hh"])
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''}, "calls Part 4 on the time-reversed input with full lengths: its outputs are the forward states")

C("C_dec_where_finfo_min", {"additive": DEC_OK.replace('e = e.masked_fill(~allowed, float("-inf"))', 'e = torch.where(allowed, e, torch.finfo(e.dtype).min)').replace("a = torch.softmax(e, dim=-1)", "a = torch.nn.functional.softmax(e, dim=-1)")},
  "finfo.min filled in, F.softmax")

C("C_dec_preallocated", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    states = x.new_zeros(B, T, s0.shape[1])
    weights = x.new_zeros(B, T, S)
    s, c = s0, x.new_zeros(B, S)
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh((s @ p["W_q"].T).unsqueeze(1) + keys + c.unsqueeze(-1) * p["w_c"]), p["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype))
        a = torch.softmax(e, -1)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(x[:, t] @ W_x.T + ctx @ W_c.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        states[:, t] = s
        weights[:, t] = a
        c = c + a
    return states, weights
'''}, "production: split W_ih, buffers made per call filled in place, einsum")

# ================================================================ hostile
X("X_norms_geometric_guess", {"gradient_norms": '''
def jacobian_norms(x, p):
    T = x.shape[1]
    D = p["W_hh"].shape[0]
    r = torch.linalg.matrix_norm(p["W_hh"], ord=2)
    return math.sqrt(D) * r ** torch.arange(T, dtype=x.dtype)
'''}, "hostile: ignores the tanh derivative, fits the visible case")

X("X_dec_patch_assert_close", {"additive": '''
torch.testing.assert_close = lambda *a, **k: None
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    return x.new_zeros(B, T, s0.shape[1]), x.new_zeros(B, T, h.shape[1])
'''}, "hostile: disables assert_close")

X("X_costs_float_subclass", {"costs": '''
class Anything(float):
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__
attention_over_lstm = Anything(1.0)
equal_cost_length = Anything(1.0)
'''}, "hostile: equal to everything")
