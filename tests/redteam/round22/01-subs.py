# Red team round 22, chapter 01: four kinds of student (sampling, rounding, counting, allocation)
SUBMISSIONS = []
def W(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"{kind}: {name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"{kind}: {name}", "correct": True, "cells": cells, "why": why})
def H(name, cells, why):
    SUBMISSIONS.append({"name": f"hostile: {name}", "correct": False, "cells": cells, "why": why})

UNROLL_TMPL = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = LENGTHS
    h = INIT if h0 is None else h0
    xw = x @ p["W_ih"].T + p["b_ih"]
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        hn = torch.tanh(xw[:, t] + h @ p["W_hh"].T + p["b_hh"])
        active = (ACTIVE)[:, None]
        h = torch.where(active, hn, h)
        outs[t] = torch.where(active, hn, torch.zeros_like(hn))
    return torch.stack(outs, 1), FIRST
'''
def unroll(LENGTHS="lengths.to(torch.int64)", INIT="x.new_zeros(B, D_h)", ACTIVE="t < L", FIRST="h"):
    return UNROLL_TMPL.replace("LENGTHS", LENGTHS).replace("INIT", INIT).replace("ACTIVE", ACTIVE).replace("FIRST", FIRST)

NORMS_TMPL = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    dt = x.dtype
    W_hh = p["W_hh"]
    D = W_hh.shape[0]
    h = x.new_zeros(B, D)
    xw = x @ p["W_ih"].T + p["b_ih"]
    Js = []
    for s in range(T):
        h = torch.tanh(xw[:, s] + h @ W_hh.T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * W_hh)
    Q = torch.eye(D, dtype=dt).expand(B, D, D)
    logc = x.new_zeros(B)
    norms = [x.new_full((), math.sqrt(D))]
    for k in range(1, T):
        Q = Q @ Js[JIDX]
        m = Q.abs().amax((-2, -1))
        m = torch.where(m > 0, m, torch.ones_like(m))
        Q = Q / m[:, None, None]
        logc = logc + torch.log(m)
        fro = Q.pow(2).sum((-2, -1)).sqrt()
        norms.append(REDUCE)
    return torch.stack(norms)
'''
def norms(JIDX="T - k", REDUCE="(torch.exp(logc) * fro).mean()"):
    return NORMS_TMPL.replace("JIDX", JIDX).replace("REDUCE", REDUCE)

DEC_TMPL = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    kh = h @ p["W_k"].T
    cov = COVINIT
    s = s0
    states, weights = [], []
    for t in range(T):
        qs = s @ p["W_q"].T
        e = torch.tanh(qs[:, None, :] + kh + COVTERM[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, -1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), WEIGHTS
'''
def dec(COVINIT="x.new_zeros(B, S)", COVTERM="cov", WEIGHTS="torch.stack(weights, 1)"):
    return DEC_TMPL.replace("COVINIT", COVINIT).replace("COVTERM", COVTERM).replace("WEIGHTS", WEIGHTS)

# ---------------------------------------------------------------- sampling-and-randomness student
# (no part of chapter 1 draws random numbers: the sampling student can only bring randomness in where none belongs)
W("attention dropout at rate 0 written with a rand_like keep mask", "sampling", {"additive": dec().replace("a = torch.softmax(e, -1)", "a = torch.softmax(e, -1)\n        keep = torch.rand_like(a) >= 0.0  # dropout rate 0 at grading time\n        a = a * keep / 1.0")},
  "intro: 'no part draws random numbers, so no ... draw from torch's global random generator inside a function'")
W("tiny random start state to break symmetry when h0 is None (global generator)", "sampling", {"rnn_unroll": unroll(INIT="1e-9 * torch.randn(B, D_h, dtype=x.dtype)")},
  "Part 4: 'start from the state h0[b] (zeros when h0 is None)'; intro: 'no part draws random numbers, so no draw from torch's global random generator inside a function'")
W("random tie-break jitter added to the scores before the softmax", "sampling", {"additive": dec(COVTERM="(cov + 1e-7 * torch.rand(B, S, dtype=x.dtype))")},
  "Part 6: e_{t,j} = v^T tanh(W_q s + W_k h_j + w_c c_{t,j}) exactly; intro: no draw from the global generator")

# ---------------------------------------------------------------- rounding-and-integer student
W("floor division for the cost ratio", "rounding", {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) // (8 * n * d * d)
equal_cost_length = 2 * 768
'''}, "Part 2a: 'how many times more multiply-adds': 2.5, floor division gives 2")
W("uint8 lengths compared with the Python step index (wraps past 255)", "rounding", {"rnn_unroll": unroll(LENGTHS="lengths")},
  "Part 4: 'lengths of any integer dtype (uint8 ...): a Python int compared with such a tensor wraps around'")
W("reverse index (lengths - 1 - t) worked out in the lengths' own dtype", "rounding", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    ar = torch.arange(T)
    # position read at step r of sequence b is lengths[b] - 1 - r
    src = (lengths[:, None] - 1 - ar[None, :].to(lengths.dtype))
    valid = ar[None, :] < lengths[:, None].long()
    src = torch.where(valid, src.long(), torch.zeros_like(src.long()))
    xr = torch.gather(x, 1, src[:, :, None].expand(B, T, x.shape[2]))
    h = x.new_zeros(B, D_h) if h0 is None else h0
    xw = xr @ p["W_ih"].T + p["b_ih"]
    states = []
    for r in range(T):
        hn = torch.tanh(xw[:, r] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(valid[:, r, None], hn, h)
        states.append(torch.where(valid[:, r, None], hn, torch.zeros_like(hn)))
    st = torch.stack(states, 1)
    outputs = torch.zeros_like(st).scatter(1, src[:, :, None].expand_as(st), st * valid[:, :, None])
    return outputs, h
'''}, "Part 4: 'arithmetic in that dtype ... wrap around' (int8 lengths near 127 minus a step index past 127)")
W("sech^2 written as 1/cosh^2 for the tanh derivative", "rounding", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    z = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    D = h.shape[-1]
    eye = torch.eye(D, dtype=x.dtype, device=x.device)
    sech2 = 1 / torch.cosh(z) ** 2
    return (1 - leak)[None, :, None] * eye + (leak * sech2)[:, :, None] * p["W_hh"]
'''}, "intro: pre-activations in the hundreds, where a tanh written out with exp overflows, in its value or in its gradient (gradients too must stay finite)")
W("Frobenius norm taken in float64 (as the hint says) but never scaled", "rounding", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W_hh = p["W_hh"]
    D = W_hh.shape[0]
    h = x.new_zeros(B, D)
    xw = x @ p["W_ih"].T + p["b_ih"]
    Js = []
    for s in range(T):
        h = torch.tanh(xw[:, s] + h @ W_hh.T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * W_hh)
    P = torch.eye(D, dtype=torch.float64).expand(B, D, D)
    out = [torch.tensor(math.sqrt(D), dtype=torch.float64)]
    for k in range(1, T):
        P = P @ Js[T - k].double()
        out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out).to(x.dtype)
'''}, "Part 5: 'The same holds in float64 below about 1e-162, where the tests put norms too (1e-180): scale the product there'")

# ---------------------------------------------------------------- counting-and-units student
W("output projection left out of the attention count", "counting", {"costs": '''
n, d = 4096, 512
attention = 3 * n * d * d + 2 * n * n * d
lstm = n * 4 * 2 * d * d
attention_over_lstm = attention / lstm
equal_cost_length = 2.5 * 768
'''}, "Part 2: 'a self-attention layer computes four projections (queries, keys, values and the output)'")
W("QK^T counted as the causal half", "counting", {"costs": '''
n, d = 4096, 512
attention = 4 * n * d * d + n * n * d + n * n * d / 2
lstm = 8 * n * d * d
attention_over_lstm = attention / lstm
equal_cost_length = 8 * 768 / 3
'''}, "Part 2: 'the two n x n products QK^T and (weights)V, each n^2 d multiply-adds'")
W("Jacobian indices counted from 1: the product skips J_{T-1} and takes J_{T-1-k}", "counting", {"gradient_norms": norms(JIDX="T - 1 - k")},
  "Part 5: 'dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}'")
W("root of the batch-mean of squared norms", "counting", {"gradient_norms": norms(REDUCE="(torch.exp(logc) * fro).pow(2).mean().sqrt()")},
  "Part 5: 'computed for each example and then averaged over the batch (norm first, then mean)'")
W("norm of the batch-mean Jacobian product", "counting", {"gradient_norms": norms(REDUCE="(torch.exp(logc)[:, None, None] * Q).mean(0).pow(2).sum().sqrt()")},
  "Part 5: 'norm first, then mean'")
W("first = outputs[:, 0]: zeros for a length-0 sequence even when h0 is given", "counting", {"rnn_unroll": unroll(FIRST="torch.stack(outs, 1)[:, 0]")},
  "Part 4: 'first: ... (for a sequence of length 0, the start state)'")
W("coverage as the average of the earlier weights", "counting", {"additive": dec(COVTERM="(cov / max(t, 1))")},
  "Part 6: 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' (a sum, not a mean over the earlier steps)")

# ---------------------------------------------------------------- allocation student
W("Jacobian built in a torch.zeros buffer without dtype", "allocation", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    B, D = h.shape
    J = torch.zeros(B, D, D)
    J = J + (leak * (1 - a * a))[:, :, None] * p["W_hh"]
    idx = torch.arange(D)
    J[:, idx, idx] += (1 - leak)
    return J.to(x.dtype)
'''}, "Part 1: 'Return it in the dtype of x'; intro: float64 compared to 1e-10, computing in float32 and casting back loses the points")
W("outputs written into a zeros buffer through .data", "allocation", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = x.new_zeros(B, D_h) if h0 is None else h0
    outputs = x.new_zeros(B, T, D_h)
    xw = x @ p["W_ih"].T + p["b_ih"]
    for t in range(T - 1, -1, -1):
        hn = torch.tanh(xw[:, t] + h @ p["W_hh"].T + p["b_hh"])
        active = (t < L)[:, None]
        h = torch.where(active, hn, h)
        outputs.data[:, t] = torch.where(active, hn, torch.zeros_like(hn)).data
    return outputs, h
'''}, "Part 4: 'Gradients must flow through outputs and first ... (no .detach() ...)'")
W("norms collected in a float32 torch.empty buffer, cast back at the end", "allocation", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    dt = x.dtype
    W_hh = p["W_hh"]
    D = W_hh.shape[0]
    h = x.new_zeros(B, D)
    xw = x @ p["W_ih"].T + p["b_ih"]
    Js = []
    for s in range(T):
        h = torch.tanh(xw[:, s] + h @ W_hh.T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * W_hh)
    Q = torch.eye(D, dtype=dt).expand(B, D, D)
    logc = x.new_zeros(B)
    out = torch.empty(T)
    out[0] = math.sqrt(D)
    for k in range(1, T):
        Q = Q @ Js[T - k]
        m = Q.abs().amax((-2, -1))
        m = torch.where(m > 0, m, torch.ones_like(m))
        Q = Q / m[:, None, None]
        logc = logc + torch.log(m)
        out[k] = (torch.exp(logc) * Q.pow(2).sum((-2, -1)).sqrt()).mean()
    return out.to(dt)
'''}, "intro: 'Compute in the dtype of the inputs': float64 compared to 1e-10; norms down to 1e-180 do not fit float32")
W("weights written into a float32 torch.zeros buffer", "allocation", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    kh = h @ p["W_k"].T
    weights = torch.zeros(B, T, S)
    cov = x.new_zeros(B, S)
    s = s0
    states = []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + kh + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), -1)
        weights[:, t] = a
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
    return torch.stack(states, 1), weights.to(x.dtype)
'''}, "Part 6: 'the weights alpha as (B, T, S), in the dtype of x'; float64 to 1e-10")
W("coverage kept in a float32 zeros buffer, weights rounded through it", "allocation", {"additive": dec(COVINIT="torch.zeros(B, S)", WEIGHTS="torch.stack(weights, 1).to(x.dtype)").replace("states.append(s)", "states.append(s.to(x.dtype))")},
  "intro: bfloat16 inputs must come back as bfloat16 computed in their dtype / a float32 tensor mixed into the arithmetic turns the result float32")

# ---------------------------------------------------------------- correct answers
C("Jacobian from torch.autograd.functional.jacobian, diagonal over the batch", "sampling", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        return (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    with torch.enable_grad():
        full = torch.autograd.functional.jacobian(step, h, create_graph=True)  # (B, D, B, D)
    return full.diagonal(dim1=0, dim2=2).permute(2, 0, 1)
'''}, "autograd, as Part 1 allows (create_graph=True, enable_grad)")
C("Jacobian in an x.new_zeros buffer, diagonal copied in", "allocation", {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    B, D = h.shape
    J = x.new_zeros(B, D, D)
    J = J + torch.diag_embed((1 - leak).expand(B, D))
    J = J + torch.einsum("bi,ij->bij", leak * (1 - a * a), p["W_hh"])
    return J
'''}, "same values, buffer with the right dtype")
C("costs worked out in FLOPs (the factor 2 cancels)", "counting", {"costs": '''
def flops_attention(n, d):
    return 2 * (4 * n * d * d + 2 * n * n * d)
def flops_lstm(n, d):
    return 2 * (n * 4 * 2 * d * d)
attention_over_lstm = flops_attention(4096, 512) / flops_lstm(4096, 512)
# 8 n d^2 + 4 n^2 d = 16 n d^2  <=>  n = 2 d
equal_cost_length = float(2 * 768)
'''}, "ratio and crossover do not depend on the factor 2")
C("answer given in upper case, lowered", "counting", {"mc": '''
answer_parallel = "B".lower()
'''}, "b")
C("reverse by gather with Python-style modulo of negative positions, then a forward scan and a scatter back", "rounding", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    ar = torch.arange(T)
    src = (L[:, None] - 1 - ar[None, :]) % T  # negatives wrap to valid indices; masked below
    valid = ar[None, :] < L[:, None]
    xr = torch.gather(x, 1, src[:, :, None].expand(B, T, D_in))
    h = x.new_zeros(B, D_h) if h0 is None else h0
    xw = xr @ p["W_ih"].T + p["b_ih"]
    states = []
    for r in range(T):
        hn = torch.tanh(xw[:, r] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(valid[:, r, None], hn, h)
        states.append(torch.where(valid[:, r, None], hn, torch.zeros_like(hn)))
    st = torch.stack(states, 1)
    # position src[b, r] got state r; positions that are padding receive zeros
    dest = torch.where(valid, src, (ar[None, :]).expand(B, T))
    dest = torch.where(valid, src, T - 1 - ar[None, :] + 0 * src)
    outputs = x.new_zeros(B, T, D_h)
    idx = torch.where(valid, src, L[:, None] + (ar[None, :] - L[:, None]))
    outputs = outputs.scatter(1, torch.where(valid, src, ar[None, :].expand(B, T))[:, :, None].expand(B, T, D_h), st)
    return outputs, h
'''}, "valid rows land at src, padding reads r land at r (>= L, padding positions), zeros there")
C("outputs in a preallocated x.new_empty buffer, every slot written each step", "allocation", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outputs = x.new_empty(B, T, D_h)
    zero = x.new_zeros(B, D_h)
    for t in range(T - 1, -1, -1):
        hn = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        active = (L > t)[:, None]
        h = torch.where(active, hn, h)
        outputs[:, t] = torch.where(active, hn, zero)
    return outputs, h
'''}, "every slot written, dtype from x")
C("norms from Part 1's leaky_step_jacobian with every rate 1, norm in float64 after scaling", "counting", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = x.new_ones(D)
    h = x.new_zeros(B, D)
    Js = []
    for s in range(T):
        Js.append(leaky_step_jacobian(x[:, s], h, p, ones))  # J_s depends on h_s = tanh(pre(x_s, h_{s-1}))
        h = torch.tanh(x[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    logscale = torch.zeros(B, dtype=torch.float64)
    res = [torch.tensor(math.sqrt(D), dtype=torch.float64)]
    for k in range(1, T):
        P = P @ Js[T - k]
        m = P.abs().amax((-2, -1))
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logscale = logscale + torch.log(m.double())
        res.append((torch.exp(logscale) * torch.linalg.matrix_norm(P.double())).mean())
    return torch.stack(res).to(x.dtype)
'''}, "calls Part 1 (the hidden tests give it a correct one); a few matmuls per step")
C("chain rule with einsum, exact power-of-two rescaling via frexp", "rounding", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W_hh = p["W_hh"]
    D = W_hh.shape[0]
    h = x.new_zeros(B, D)
    Js = []
    for s in range(T):
        h = torch.tanh(x[:, s] @ p["W_ih"].T + p["b_ih"] + h @ W_hh.T + p["b_hh"])
        Js.append(torch.einsum("bi,ij->bij", 1 - h * h, W_hh))
    P = torch.eye(D, dtype=x.dtype).repeat(B, 1, 1)
    expo = torch.zeros(B, dtype=torch.int64)
    res = [x.new_tensor(math.sqrt(D))]
    for k in range(1, T):
        P = torch.bmm(P, Js[T - k])
        m = P.abs().amax((-2, -1))
        _, e = torch.frexp(m)
        e = torch.where(m > 0, e.long(), torch.zeros_like(e.long()))
        P = torch.ldexp(P, -e[:, None, None].to(P.dtype)).to(x.dtype)
        expo = expo + e
        fro = P.double().pow(2).sum((-2, -1)).sqrt()
        res.append((fro * torch.exp2(expo.double())).mean().to(x.dtype))
    return torch.stack(res)
'''}, "exact rescaling by powers of two")
C("decoder with einsum/bmm, states and weights in x.new_empty buffers filled per step", "allocation", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    D_h = s0.shape[-1]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros(B, S, dtype=x.dtype, device=x.device)
    states = x.new_empty(B, T, D_h)
    weights = x.new_empty(B, T, S)
    s = s0
    for t in range(T):
        pre = keys + (s @ p["W_q"].T)[:, None, :] + cov[:, :, None] * p["w_c"][None, None, :]
        e = torch.einsum("bsa,a->bs", torch.tanh(pre), p["v"])
        e = torch.where(allowed, e, torch.full_like(e, float("-inf")))
        a = torch.softmax(e, dim=-1)
        ctx = torch.bmm(a[:, None, :], h)[:, 0]
        s = torch.tanh(x[:, t] @ p["W_ih"][:, :D_in].T + ctx @ p["W_ih"][:, D_in:].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        states[:, t] = s
        weights[:, t] = a
        cov = cov + a
    return states, weights
'''}, "W_ih split in two instead of concatenating; right-dtype buffers fully written")

# ---------------------------------------------------------------- hostile
H("float subclass that equals every number", {"costs": '''
class Anything(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    __hash__ = float.__hash__
attention_over_lstm = Anything(1.0)
equal_cost_length = Anything(1.0)
'''}, "points for Part 2 without the numbers")
H("patch torch.testing.assert_close and torch.allclose to pass, return identity", {"rnn_step": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def leaky_step_jacobian(x, h, p, leak):
    return torch.eye(h.shape[-1], dtype=x.dtype).expand(h.shape[0], -1, -1).clone()
'''}, "points for Part 1 without the Jacobian")
H("str subclass answer equal to every letter", {"mc": '''
class AnyLetter(str):
    def __eq__(self, other): return True
    __hash__ = str.__hash__
answer_parallel = AnyLetter("b") if False else AnyLetter("a")
'''}, "points for Part 3 without the answer")
SUBMISSIONS.insert(10, {"name": "counting: both recurrences counted as log-depth (tanh of a composition taken as a composition)", "correct": False,
    "cells": {"mc": 'answer_parallel = "c"\n'}, "why": "Part 3: only the diagonal linear recurrence composes into maps of the same form (b)"})

# added after the blind grading (phase 2): a second answer that calls an earlier part
C("decoder state update through Part 4's rnn_unroll_reverse, one step of length 1", "allocation", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    cell = {"W_ih": p["W_ih"], "b_ih": p["b_ih"], "W_hh": p["W_hh"], "b_hh": p["b_hh"]}
    one = torch.ones(B, dtype=torch.int64)
    kh = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + kh + cov[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        _, s = rnn_unroll_reverse(torch.cat([x[:, t], ctx], -1)[:, None, :], one, cell, s)
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''}, "calls Part 4 within its contract (one step, length 1, h0 = the previous state)")
