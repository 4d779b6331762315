P1 = '''
def leaky_step_jacobian(x, h, p, leak):
    z = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    with torch.enable_grad():
        t = torch.tanh(z)
        d = leak * (1 - t * t)                                   # (B, D_h)
        eye = torch.eye(h.shape[-1], dtype=x.dtype, device=x.device)
        return eye * (1 - leak)[:, None] + d[:, :, None] * p["W_hh"]
'''
P2 = '''
def att(n, d): return 4 * n * d * d + 2 * n * n * d
def lstm(n, d): return 8 * n * d * d
attention_over_lstm = att(4096, 512) / lstm(4096, 512)
equal_cost_length = 2 * 768
'''
P3 = 'answer_parallel = "b"\n'
P4 = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    L = lengths.to(device=x.device, dtype=torch.long)
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        hn = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(run, hn, h)
        outs[t] = torch.where(run, hn, torch.zeros_like(hn))
    return torch.stack(outs, dim=1), h
'''
P5 = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    h = x.new_zeros(B, p["W_hh"].shape[0])
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    D = h.shape[-1]
    P = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)
    out = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out)
'''
P6 = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T                     # (B, S, A)
    c = torch.zeros(allowed.shape, dtype=x.dtype, device=x.device)
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
'''
MODEL = {"rnn_step": P1, "costs": P2, "mc": P3, "rnn_unroll": P4, "gradient_norms": P5, "additive": P6}

def R(src, *pairs):
    for a, b in pairs:
        assert a in src, a
        src = src.replace(a, b)
    return src

W = []
def add(name, correct, cells, why):
    W.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- off-by-one student ----------------
add("obo-p2-lstm-first-step-no-hh", False, {"costs": '''
# the first step starts from h_{-1} = 0, so its hidden-state product is skipped: n - 1 products with h
def att(n, d): return 4 * n * d * d + 2 * n * n * d
def lstm(n, d): return 4 * n * d * d + 4 * (n - 1) * d * d
attention_over_lstm = att(4096, 512) / lstm(4096, 512)
import math
d = 768
# 2 n^2 d + 4 n d^2 = 8 n d^2 - 4 d^2  ->  n^2 - 2 d n + 2 d = 0
equal_cost_length = d + math.sqrt(d * d - 2 * d)
'''}, "P2: 'an LSTM layer ... computes, at each of the n steps, four gates, each from one d x d product with the input and one with the previous hidden state'")

add("obo-p4-first-from-outputs-col0", False, {"rnn_unroll": R(MODEL["rnn_unroll"],
    ("    return torch.stack(outs, dim=1), h", "    out = torch.stack(outs, dim=1)\n    return out, out[:, 0]"))},
    "P4: 'first (B, D_h): the state after reading x[b, 0], the last one read (for a sequence of length 0, the start state)'")

add("obo-p5-state-index-shift", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    hs = [x.new_zeros(B, p["W_hh"].shape[0])]            # hs[0] = h_{-1}
    for t in range(T):
        hs.append(torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + hs[-1] @ p["W_hh"].T + p["b_hh"]))
    D = hs[0].shape[-1]
    P = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)
    out = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        s = T - k                                         # J_s uses the state h_s ... counted from hs[0]
        J = (1 - hs[s] * hs[s])[:, :, None] * p["W_hh"]
        P = P @ J
        out.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(out)
'''}, "P5: 'J_s = dh_s/dh_{s-1}, where h_s is the state after reading x_s' (hs[s] is h_{s-1}: one step early)")

add("obo-p6-shift-targets", False, {"additive": R(MODEL["additive"],
    ("    B, T, D_in = x.shape\n", "    B, T, D_in = x.shape\n    x = torch.cat([torch.zeros_like(x[:, :1]), x[:, :-1]], 1)   # teacher forcing: previous target\n"))},
    "P6: 'x (B, T, D_in) are the decoder's inputs (the embeddings of the previous target tokens, as in training)' and s_t uses x_t")

add("obo-p4-lengths-minus-one-le", False, {"rnn_unroll": R(MODEL["rnn_unroll"],
    ("    L = lengths.to(device=x.device, dtype=torch.long)\n", "    last = lengths - 1                      # index of the last real token\n"),
    ("        run = (t < L)[:, None]", "        run = (last >= t)[:, None]"))},
    "P4: 'lengths ... of any integer dtype (uint8 ...: arithmetic in that dtype ... wrap around)' with lengths[b] = 0: lengths - 1 wraps to 255 in uint8")

# ---------------- padding and reduction student ----------------
add("red-p5-rms-over-batch", False, {"gradient_norms": R(MODEL["gradient_norms"],
    ("    out = [torch.linalg.matrix_norm(P).mean()]", "    out = [torch.linalg.vector_norm(P) / B ** 0.5]"),
    ("        out.append(torch.linalg.matrix_norm(P).mean())", "        out.append(torch.linalg.vector_norm(P) / B ** 0.5)   # norm over the batch, per example"))},
    "P5: 'computed for each example and then averaged over the batch (norm first, then mean)'")

add("red-p6-coverage-mean", False, {"additive": R(MODEL["additive"],
    ("        c = c + a\n", "        c = (c * t + a) / (t + 1)           # coverage: the average attention so far\n"))},
    "P6: 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' (a sum, not a mean)")

add("red-p1-batch-mean-derivative", False, {"rnn_step": R(MODEL["rnn_step"],
    ("        d = leak * (1 - t * t)                                   # (B, D_h)",
     "        d = (leak * (1 - t * t)).mean(0, keepdim=True).expand_as(t)  # tanh' of the batch"))},
    "P1: 'J[b, i, j] = dh'_{b,i}/dh_{b,j} ... (each example's new state depends on its own old state only)'")

add("red-p6-renormalise-after-softmax", False, {"additive": R(MODEL["additive"],
    ("        e = e.masked_fill(~allowed, float(\"-inf\"))\n        a = torch.softmax(e, dim=-1)\n",
     "        a = torch.exp(e - e.max(-1, keepdim=True).values) * allowed\n        a = a / a.sum(-1, keepdim=True)\n"))},
    "P6: 'padding scores can lie far above every real one (by over a hundred thousand) ... they still get weight exactly 0, and no gradient may become NaN' (the row max is taken over padding too)")


# ---------------- paper / reference-code reader ----------------
add("paper-p5-pascanu-diag-right", False, {"gradient_norms": R(MODEL["gradient_norms"],
    ("        Js.append((1 - h * h)[:, :, None] * p[\"W_hh\"])", "        Js.append(p[\"W_hh\"] * (1 - h * h)[:, None, :])   # Pascanu et al.: W_rec diag(sigma')"))},
    "P5: 'Work out J_s for that cell (it is a D_h x D_h matrix that depends on h_s)' for h_s = tanh(... + h_{s-1} W_hh^T ...)")

add("paper-p2-vaswani-three-proj", False, {"costs": '''
# Vaswani et al. Table 1: Q, K, V projections (the output projection belongs to the next sub-layer)
def att(n, d): return 3 * n * d * d + 2 * n * n * d
def lstm(n, d): return 8 * n * d * d
attention_over_lstm = att(4096, 512) / lstm(4096, 512)
equal_cost_length = 5 * 768 / 2
'''}, "P2: 'a self-attention layer computes four projections (queries, keys, values and the output)'")

add("paper-p3-deer", False, {"mc": 'answer_parallel = "c"   # DEER (Lim et al. 2024) parallelises nonlinear RNNs too\n'},
    "P3: only the diagonal linear recurrence composes into maps of the same form")

add("paper-p6-fairseq-neg-inf-fill", False, {"additive": R(MODEL["additive"],
    ("e.masked_fill(~allowed, float(\"-inf\"))", "e.masked_fill(~allowed, torch.finfo(e.dtype).min)"))},
    "P6: '(a finite stand-in for -inf ... loses to them)': finfo(dtype).min, fairseq's fill_with_neg_inf in float32; scores below -1e10 in float64 even below float32's min")

add("paper-p4-pack-padded", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    # reverse each sequence within its own length (as torch's bidirectional nn.RNN does with packed sequences)
    B, T, _ = x.shape
    L = lengths.to(device=x.device, dtype=torch.long)
    t = torch.arange(T, device=x.device)
    idx = torch.where(t[None, :] < L[:, None], L[:, None] - 1 - t[None, :], t[None, :])   # (B, T)
    xr = torch.gather(x, 1, idx[:, :, None].expand(B, T, x.shape[2]))
    h = h0 if h0 is not None else x.new_zeros(B, p["W_hh"].shape[0])
    outs = []
    for s in range(T):
        run = (s < L)[:, None]
        hn = torch.tanh(xr[:, s] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(run, hn, h)
        outs.append(torch.where(run, hn, torch.zeros_like(hn)))
    o = torch.stack(outs, 1)
    o = torch.gather(o, 1, idx[:, :, None].expand(B, T, o.shape[2]))
    return o, h
'''}, "correct: reverse within each length, run forward, reverse back")

# ---------------- numerically naive ----------------
add("num-p5-sqrt-sum-squares", False, {"gradient_norms": R(MODEL["gradient_norms"],
    ("torch.linalg.matrix_norm(P).mean()]", "(P * P).sum((-2, -1)).sqrt().mean()]"),
    ("torch.linalg.matrix_norm(P).mean())", "(P * P).sum((-2, -1)).sqrt().mean())"))},
    "P5: 'recurrent weights so small that the norms fall below 1e-20, in float32 as in float64, compared relatively: floor no norm'")

add("num-p1-sech-squared-exp", False, {"rnn_step": R(MODEL["rnn_step"],
    ("        t = torch.tanh(z)\n        d = leak * (1 - t * t)", "        d = leak * 4 / (torch.exp(z) + torch.exp(-z)) ** 2     # sech^2"))},
    "P1: 'pre-activations in the hundreds, where tanh is +-1 and a tanh written out with exp overflows, in its value or in its gradient'")

add("num-p6-exp-no-max", False, {"additive": R(MODEL["additive"],
    ("        e = e.masked_fill(~allowed, float(\"-inf\"))\n        a = torch.softmax(e, dim=-1)\n",
     "        w = torch.exp(e) * allowed\n        a = w / w.sum(-1, keepdim=True)\n"))},
    "P6: 'a v so large that every real score lies below -1e10' (exp underflows: 0/0)")

add("num-p4-tanh-exp", False, {"rnn_unroll": R(MODEL["rnn_unroll"],
    ("        hn = torch.tanh(x[:, t] @ p[\"W_ih\"].T + p[\"b_ih\"] + h @ p[\"W_hh\"].T + p[\"b_hh\"])",
     "        z = x[:, t] @ p[\"W_ih\"].T + p[\"b_ih\"] + h @ p[\"W_hh\"].T + p[\"b_hh\"]\n        hn = 1 - 2 / (torch.exp(2 * z) + 1)"))},
    "P4: intro 'pre-activations in the hundreds ... a tanh written out with exp overflows, in its value or in its gradient'")

add("num-p5-log-sum-of-logs", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    # the product fades fast: keep it as log-scale + a unit-norm matrix, return exp(log norm)
    B, T, _ = x.shape
    h = x.new_zeros(B, p["W_hh"].shape[0])
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    D = h.shape[-1]
    P = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)
    logn = torch.zeros(B, dtype=x.dtype, device=x.device)
    out = [torch.exp(logn + torch.log(torch.linalg.matrix_norm(P))).mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        n = torch.linalg.matrix_norm(P)
        logn = logn + torch.log(n)
        P = P / n[:, None, None]
        out.append(torch.exp(logn).mean())
    return torch.stack(out)
'''}, "P5: inputs near 1e6 saturate tanh to exactly +-1, so J_s = 0 and a norm 0 is allowed (floor no norm): P / 0 gives NaN where the norm is 0")

add("ok-p1-autograd-jacobian", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        z = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(z)).sum(0)   # examples are independent
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True)   # (D_h, B, D_h)
    return J.permute(1, 0, 2).contiguous()
'''}, "correct: autograd jacobian with create_graph, summed over the batch")
add("ok-p1-diag-embed-einsum", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    with torch.enable_grad():
        z = torch.einsum("bi,hi->bh", x, p["W_ih"]) + p["b_ih"] + torch.einsum("bj,hj->bh", h, p["W_hh"]) + p["b_hh"]
        dt = 1 - torch.tanh(z) ** 2
        return torch.diag_embed((1 - leak).expand_as(h)) + torch.einsum("h,bh,hj->bhj", leak, dt, p["W_hh"])
'''}, "correct: einsum and diag_embed")
add("ok-p2-float-formula", True, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d**2 + 2 * n**2 * d) / (n * 4 * (d * d + d * d))
d = 768
equal_cost_length = float(2 * d)
'''}, "correct: floats")
add("ok-p3-upper-strip", True, {"mc": 'answer_parallel = " B ".strip().lower()\n'}, "correct: b")
add("ok-p4-float64-inside", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    dt = torch.float64
    L = lengths.long()
    W_ih, b_ih, W_hh, b_hh = (p[k].to(dt) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    h = torch.zeros(B, D_h, dtype=dt, device=x.device) if h0 is None else h0.to(dt)
    xs = x.to(dt)
    outs = []
    for t in reversed(range(T)):
        keep = (L > t).unsqueeze(-1)
        new = torch.tanh(torch.addmm(b_ih, xs[:, t], W_ih.T) + torch.addmm(b_hh, h, W_hh.T))
        h = torch.where(keep, new, h)
        outs.append(torch.where(keep, new, 0.0))
    outs.reverse()
    return torch.stack(outs, 1).to(x.dtype), h.to(x.dtype)
'''}, "correct: float64 inside, cast back")
add("ok-p4-h-times-run", True, {"rnn_unroll": R(MODEL["rnn_unroll"],
    ("        outs[t] = torch.where(run, hn, torch.zeros_like(hn))", "        outs[t] = h * run"))},
    "correct: h*run equals hn where running, 0 elsewhere")
add("ok-p5-calls-part1", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = torch.ones(D, dtype=x.dtype, device=x.device)
    hs = [x.new_zeros(B, D)]
    for t in range(T):
        hs.append(torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + hs[-1] @ p["W_hh"].T + p["b_hh"]))
    P = torch.eye(D, dtype=x.dtype, device=x.device).repeat(B, 1, 1)
    norms = [torch.linalg.matrix_norm(P).mean()]
    for k in range(1, T):
        s = T - k
        J = leaky_step_jacobian(x=x[:, s], h=hs[s], p=p, leak=ones)    # J_s = dh_s/dh_{s-1}, hs[s] = h_{s-1}
        P = torch.bmm(P, J)
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms)
'''}, "correct: part 1 with every rate 1 gives J_s")
add("ok-p5-transposed-product", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    # denominator layout: Q_k = J_{T-k}^T ... J_{T-1}^T = (J_{T-1} ... J_{T-k})^T, same Frobenius norm
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    JT = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        JT.append(p["W_hh"].T[None] * (1 - h * h)[:, None, :])
    Q = torch.eye(D, dtype=x.dtype, device=x.device).expand(B, D, D)
    res = [torch.linalg.norm(Q, dim=(-2, -1)).mean(0)]
    for k in range(1, T):
        Q = JT[T - k] @ Q
        res.append(torch.linalg.norm(Q, dim=(-2, -1)).mean(0))
    return torch.stack(res)
'''}, "correct: transposed products, same Frobenius norms")
add("ok-p6-where-logsoftmax", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    T = x.shape[1]
    Wx, Wc = p["W_ih"][:, :x.shape[-1]], p["W_ih"][:, x.shape[-1]:]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros_like(keys[..., 0])
    s, S_, A_ = s0, [], []
    for t in range(T):
        q = torch.einsum("bd,ad->ba", s, p["W_q"])
        e = torch.einsum("bsa,a->bs", torch.tanh(q[:, None] + keys + cov[..., None] * p["w_c"]), p["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype, device=e.device))
        a = torch.log_softmax(e, dim=-1).exp()
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(x[:, t] @ Wx.T + ctx @ Wc.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        S_.append(s); A_.append(a)
    return torch.stack(S_, 1), torch.stack(A_, 1)
'''}, "correct: torch.where with -inf, log_softmax.exp, split W_ih")
add("ok-p6-bmm-context", True, {"additive": R(MODEL["additive"],
    ("        ctx = (a[:, :, None] * h).sum(1)", "        ctx = torch.bmm(a.unsqueeze(1), h).squeeze(1)"))},
    "correct: bmm context")

# ---------------- hostile ----------------
add("hostile-p3-str-eq", False, {"mc": '''
class Letter(str):
    def __eq__(self, other): return True
    def __hash__(self): return 0
answer_parallel = Letter("a")
'''}, "hostile: str subclass equal to everything")
add("hostile-p4-find-reference", False, {"rnn_unroll": '''
import sys, gc
def rnn_unroll_reverse(x, lengths, p, h0=None):
    f = sys._getframe(1)
    while f is not None:
        for k, v in list(f.f_globals.items()) + list(f.f_locals.items()):
            if callable(v) and getattr(v, "__name__", "") == "rnn_unroll_reverse" and v is not rnn_unroll_reverse:
                return v(x, lengths, p, h0)
        f = f.f_back
    for o in gc.get_objects():
        if callable(o) and getattr(o, "__name__", "") == "rnn_unroll_reverse" and o is not rnn_unroll_reverse:
            return o(x, lengths, p, h0)
    return torch.zeros(x.shape[0], x.shape[1], p["W_hh"].shape[0], dtype=x.dtype), torch.zeros(x.shape[0], p["W_hh"].shape[0], dtype=x.dtype)
'''}, "hostile: finds the reference function in the caller's frames or the gc")

SUBMISSIONS = W
