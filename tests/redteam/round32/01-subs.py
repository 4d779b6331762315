# Round 32 blind submissions for 01-rnn-motivation (five kinds: containers, quantity, integer-range, assumption, commuter)
REF = {}
REF["rnn_step"] = '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    eye = torch.eye(h.shape[-1], dtype=h.dtype, device=h.device)
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''
REF["costs"] = '''
attention_over_lstm = 2.5
equal_cost_length = 1536
'''
REF["mc"] = 'answer_parallel = "b"\n'
REF["rnn_unroll"] = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D, dtype=x.dtype, device=x.device) if h0 is None else h0
    outs = [None] * T
    zero = torch.zeros((), dtype=x.dtype)
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, h, zero)
    return torch.stack(outs, 1), h
'''
REF["gradient_norms"] = '''
def fro_norm(P):
    s = P.abs().amax(dim=(-2, -1))
    s = torch.where(s == 0, torch.ones_like(s), s)
    return (P / s[:, None, None]).square().sum(dim=(-2, -1)).sqrt() * s

def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    out = [fro_norm(P).mean()]
    for k in range(1, T):
        P = P @ Js[T - k]
        out.append(fro_norm(P).mean())
    return torch.stack(out)
'''
REF["additive"] = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=x.dtype))
        m = e.amax(-1, keepdim=True)
        ex = torch.where(allowed, torch.exp(e - m), torch.zeros((), dtype=x.dtype))
        a = ex / ex.sum(-1, keepdim=True)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

S = []
# ---------------- kind 1: Python containers ----------------
S.append(sub("k1-p4-dict-by-length", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    start = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    # one sequence per length: run each on its own real tokens only
    by_length = {int(L): b for b, L in enumerate(lengths.tolist())}
    outs = [torch.zeros(T, D, dtype=x.dtype) for _ in range(B)]
    firsts = [start[b] for b in range(B)]
    for L, b in by_length.items():
        h = start[b:b + 1]
        rows = [torch.zeros(1, D, dtype=x.dtype)] * T
        for t in range(L - 1, -1, -1):
            h = torch.tanh(x[b:b + 1, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            rows[t] = h
        outs[b] = torch.cat(rows, 0)
        firsts[b] = h[0]
    return torch.stack(outs, 0), torch.stack(firsts, 0) + 0
'''}, "dict keyed on the length merges two sequences of equal length: 'For each sequence b, start from the state h0[b]...'; the earlier one keeps zeros"))

S.append(sub("k1-p5-state-index-wraps", False, {"gradient_norms": REF["gradient_norms"].replace(
    '''        Js.append((1 - h * h)[:, :, None] * p["W_hh"])''',
    '''        hs.append(h)
    for s in range(T):
        hp = hs[s - 1]   # the state the step reads
        Js.append((1 - hp * hp)[:, :, None] * p["W_hh"])''').replace("    Js = []\n", "    Js = []\n    hs = []\n")},
    "J_s built from hs[s - 1] (the previous state; at s = 0 the index wraps to the last state): 'it is a D_h x D_h matrix that depends on h_s'"))

S.append(sub("k1-p6-coverage-last-slot", False, {"additive": REF["additive"].replace(
    "    states, weights = [], []\n",
    "    states, weights = [], []\n    W = torch.zeros(B, T, S, dtype=x.dtype)\n").replace(
    "        e = torch.tanh((s @ p[\"W_q\"].T)[:, None, :] + keys + cov[:, :, None] * p[\"w_c\"]) @ p[\"v\"]",
    "        cov = W[:, t - 1]   # attention received so far\n        e = torch.tanh((s @ p[\"W_q\"].T)[:, None, :] + keys + cov[:, :, None] * p[\"w_c\"]) @ p[\"v\"]").replace(
    "        cov = cov + a\n", "        W = W.clone(); W[:, t] = a\n")},
    "coverage read from the previous step's slot only (W[:, t-1], which at t = 0 wraps to the empty last slot): 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' sums every earlier step"))

# ---------------- kind 2: quantity confuser ----------------
S.append(sub("k2-p2-lstm-one-product-per-gate", False, {"costs": '''
n, d = 4096, 512
attention = 4 * n * d * d + 2 * n * n * d
lstm = n * 4 * d * d          # four gates, a d x d product each
attention_over_lstm = attention / lstm
d = 768
equal_cost_length = 2 * d
'''}, "LSTM counted with one d x d product per gate: 'four gates, each from one d x d product with the input and one with the previous hidden state'"))

S.append(sub("k2-p2-one-nn-product", False, {"costs": '''
attention_over_lstm = (4 * 4096 * 512 ** 2 + 2 * 4096 ** 2 * 512) / (8 * 4096 * 512 ** 2)
# 4 n d^2 + n^2 d = 8 n d^2  ->  n = 4 d
equal_cost_length = 4 * 768
'''}, "2b counts only QK^T as n^2 d: 'the two n x n products QK^T and (weights).V, each n^2 d multiply-adds'"))

S.append(sub("k2-p5-rms-of-norms", False, {"gradient_norms": REF["gradient_norms"].replace(
    "fro_norm(P).mean()", "fro_norm(P).square().mean().sqrt()")},
    "root-mean-square of the norms instead of their mean: 'computed for each example and then averaged over the batch (norm first, then mean)'"))

S.append(sub("k2-p4-first-from-outputs", False, {"rnn_unroll": REF["rnn_unroll"].replace(
    "    return torch.stack(outs, 1), h", "    outputs = torch.stack(outs, 1)\n    return outputs, outputs[:, 0].clone()")},
    "first taken as outputs[:, 0], which is zero for a sequence of length 0: 'first ... the state after reading x[b, 0] ... (for a sequence of length 0, the start state)'"))

S.append(sub("k2-p1-mean-over-batch-axis", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        a = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return (1 - leak) * hh + leak * torch.tanh(a)
    with torch.enable_grad():
        full = torch.autograd.functional.jacobian(step, h, create_graph=True)  # (B, D, B, D)
    # each example depends on its own state only: collapse the other example's axis
    return full.mean(dim=2)
'''}, "the zero cross-example blocks averaged instead of summed (J divided by B): 'J[b, i, j] = dh'_{b,i}/dh_{b,j}'"))

# ---------------- kind 3: integer range ----------------
S.append(sub("k3-p4-last-index-in-lengths-dtype", False, {"rnn_unroll": REF["rnn_unroll"].replace(
    "    L = lengths.to(torch.int64)\n", "    last = lengths - 1   # index of the last real token\n").replace(
    "        active = (L > t)[:, None]", "        active = (last >= t).reshape(-1, 1)")},
    "lengths - 1 computed in the lengths' dtype wraps for a uint8 length 0 (255) and t compared with it: 'lengths is a tensor (B,) of any integer dtype (uint8 ...: arithmetic in that dtype ... wrap around)'"))

S.append(sub("k3-p1-sech-squared", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    sech2 = 1.0 / torch.cosh(a) ** 2      # d tanh / da
    eye = torch.eye(h.shape[-1], dtype=h.dtype, device=h.device)
    return (1 - leak)[:, None] * eye + (leak * sech2)[:, :, None] * p["W_hh"]
'''}, "sech^2 = 1/cosh^2: cosh overflows to inf for pre-activations in the hundreds, value 0 but gradient inf/inf = NaN: 'gradients must flow through J ... the hidden tests compare its gradients' and 'pre-activations in the hundreds ... gradients too must stay finite'"))

S.append(sub("k3-p5-unscaled-norm", False, {"gradient_norms": REF["gradient_norms"].replace(
    "return (P / s[:, None, None]).square().sum(dim=(-2, -1)).sqrt() * s",
    "return torch.linalg.matrix_norm(P)")},
    "Frobenius norm squared in the input dtype: squares of entries below 1e-19 in float32 underflow: 'scale the product first ... or take the norm in float64'"))

S.append(sub("k3-p4-python-int-vs-small-dtype", False, {"rnn_unroll": REF["rnn_unroll"].replace(
    "    L = lengths.to(torch.int64)\n", "    L = lengths\n")},
    "Python int t compared with a uint8/int8/int16 lengths tensor: 'a Python int compared with such a tensor, wrap around'"))

# ---------------- kind 4: assumption ----------------
S.append(sub("k4-p4-sorted-lengths-packed", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    # like pack_padded_sequence: the batch is sorted by length, longest first,
    # so the sequences still active at step t are the first n_t of them
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        n_t = int((L > t).sum())
        new = torch.tanh(x[:n_t, t] @ p["W_ih"].T + p["b_ih"] + h[:n_t] @ p["W_hh"].T + p["b_hh"])
        h = torch.cat([new, h[n_t:]], 0)
        outs[t] = torch.cat([new, torch.zeros(B - n_t, D, dtype=x.dtype)], 0)
    return torch.stack(outs, 1), h
'''}, "assumes lengths sorted longest first: 'lengths is a tensor (B,) ... with 0 <= lengths[b] <= T' promises no order"))

S.append(sub("k4-p6-mask-is-prefix", False, {"additive": REF["additive"].replace(
    "    cov = torch.zeros(B, S, dtype=x.dtype)\n",
    "    cov = torch.zeros(B, S, dtype=x.dtype)\n    n_real = allowed.sum(-1, keepdim=True)\n    allowed = torch.arange(S)[None, :] < n_real   # real tokens come first\n")},
    "allowed turned into a length and rebuilt as a prefix: 'allowed a boolean (B, S) mask (True = a real source token ...)' is any mask"))

S.append(sub("k4-p1-unit-rates-shortcut", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    # only units whose rate is not 1 keep part of their state
    keep = torch.diag_embed((1 - leak).expand_as(h))
    J = (leak * d)[:, :, None] * p["W_hh"]
    return J + keep if bool((leak < 1).any()) else J
'''}, "with every rate 1 the identity term is skipped: fine in value, but assumes leak carries no gradient there: 'the hidden tests compare its gradients with respect to every input (... leak) ..., also where every rate is 0 or 1'"))

# ---------------- kind 5: commuter ----------------
S.append(sub("k5-p5-left-multiplied-product", False, {"gradient_norms": REF["gradient_norms"].replace(
    "        P = P @ Js[T - k]", "        P = Js[T - k] @ P")},
    "each new Jacobian multiplied on the left: 'J_{T-1} J_{T-2} ... J_{T-k}' puts it on the right"))

S.append(sub("k5-p5-norm-of-mean", False, {"gradient_norms": REF["gradient_norms"].replace(
    "fro_norm(P).mean()", "fro_norm(P.mean(0, keepdim=True))[0]")},
    "mean of the products, then the norm: 'computed for each example and then averaged over the batch (norm first, then mean)'"))

S.append(sub("k5-p6-tanh-after-v", False, {"additive": REF["additive"].replace(
    "        e = torch.tanh((s @ p[\"W_q\"].T)[:, None, :] + keys + cov[:, :, None] * p[\"w_c\"]) @ p[\"v\"]",
    "        e = torch.tanh(((s @ p[\"W_q\"].T)[:, None, :] + keys + cov[:, :, None] * p[\"w_c\"]) @ p[\"v\"])")},
    "v applied before the tanh: 'e_{t,j} = v^T tanh(W_q s_{t-1} + W_k h_j + w_c c_{t,j})'"))

S.append(sub("k5-p6-coverage-scaled-before-sum", False, {"additive": REF["additive"].replace(
    "cov[:, :, None] * p[\"w_c\"]", "(cov / max(t, 1))[:, :, None] * p[\"w_c\"]")},
    "average of the earlier weights in place of their sum: 'c_{t+1,j} = c_{t,j} + alpha_{t,j}'"))

# ---------------- correct ----------------
S.append(sub("ok-p1-autograd-jacobian", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def step(hh):
        a = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(a)).sum(0)
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(step, h, create_graph=True)  # (D, B, D)
    return J.permute(1, 0, 2).contiguous()
'''}, "autograd of the batch sum (examples independent), enable_grad inside"))

S.append(sub("ok-p1-diag-embed-einsum", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.addmm(p["b_ih"], x, p["W_ih"].t()) + torch.addmm(p["b_hh"], h, p["W_hh"].t())
    t = torch.tanh(pre)
    rate = leak.expand_as(t)
    return torch.diag_embed(1 - rate) + torch.einsum("bi,ij->bij", rate * (1 - t) * (1 + t), p["W_hh"])
'''}, "diag_embed plus einsum, (1 - t)(1 + t)"))

S.append(sub("ok-p2-expressions", True, {"costs": '''
def attention_cost(n, d):
    return 4 * n * d * d + 2 * n * n * d

def lstm_cost(n, d):
    return n * 4 * (d * d + d * d)

attention_over_lstm = attention_cost(4096, 512) / lstm_cost(4096, 512)
equal_cost_length = int(2 * 768)
'''}, "counts as functions"))

S.append(sub("ok-p4-preallocated-float64", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    xp = x.double() @ p["W_ih"].double().T + p["b_ih"].double()
    h = torch.zeros(B, D, dtype=torch.float64) if h0 is None else h0.double()
    outputs = torch.zeros(B, T, D, dtype=torch.float64)
    for t in reversed(range(T)):
        active = (t < L).unsqueeze(1)
        h = torch.where(active, torch.tanh(xp[:, t] + h @ p["W_hh"].double().T + p["b_hh"].double()), h)
        outputs[:, t] = torch.where(active, h, torch.zeros_like(h))
    return outputs.to(x.dtype), h.to(x.dtype).clone()
'''}, "float64 inside, a preallocated output written by slices, cast back"))

S.append(sub("ok-p5-float64-renormalised", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"].double()
    h = torch.zeros(B, W.shape[0], dtype=torch.float64)
    pre_in = x.double() @ p["W_ih"].double().T + p["b_ih"].double()
    derivs = []
    for t in range(T):
        h = torch.tanh(pre_in[:, t] + h @ W.T + p["b_hh"].double())
        derivs.append(1 - h ** 2)
    P = torch.eye(W.shape[0], dtype=torch.float64).repeat(B, 1, 1)
    logs = torch.zeros(B, dtype=torch.float64)  # P_true = P * exp(logs)
    norms = [torch.full((B,), float(W.shape[0]) ** 0.5, dtype=torch.float64).mean()]
    for k in range(1, T):
        P = torch.bmm(P, derivs[T - k][:, :, None] * W)
        m = P.abs().flatten(1).amax(1)
        m = torch.where(m > 0, m, torch.ones_like(m))
        P = P / m[:, None, None]
        logs = logs + torch.log(m)
        fro = P.square().sum((1, 2)).sqrt()
        norms.append((fro * torch.exp(logs)).mean())
    return torch.stack(norms).to(x.dtype)
'''}, "float64, renormalised product with a log scale"))

S.append(sub("ok-p6-softmax-every-row-has-one", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    coverage = torch.zeros_like(h[..., 0])
    s_prev = s0
    states, alphas = [], []
    for t in range(T):
        feat = torch.tanh(keys + (s_prev @ p["W_q"].T).unsqueeze(1) + coverage.unsqueeze(-1) * p["w_c"])
        e = (feat * p["v"]).sum(-1)
        # every row has at least one real token, so a row never is all -inf
        alpha = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        context = torch.bmm(alpha.unsqueeze(1), h).squeeze(1)
        W_x, W_c = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]
        s_prev = torch.tanh(x[:, t] @ W_x.T + context @ W_c.T + p["b_ih"] + s_prev @ p["W_hh"].T + p["b_hh"])
        coverage = coverage + alpha
        states.append(s_prev)
        alphas.append(alpha)
    return torch.stack(states, dim=1), torch.stack(alphas, dim=1)
'''}, "relies on the promised allowed key per row; W_ih split in two"))

S.append(sub("ok-p3-letter", True, {"mc": 'answer_parallel = "B".lower()\n'}, "b, diagonal linear recurrence"))

S.append(sub("k2-p5-spectral-norm", False, {"gradient_norms": REF["gradient_norms"].replace(
    "return (P / s[:, None, None]).square().sum(dim=(-2, -1)).sqrt() * s",
    "return torch.linalg.matrix_norm(P / s[:, None, None], ord=2) * s")},
    "the matrix 2-norm (largest singular value) in place of the Frobenius norm: 'the Frobenius norm of dh_{T-1}/dh_{T-1-k}' ('Entry 0 is ... sqrt(D_h)')"))

S.append(sub("k5-p3-both-associate", False, {"mc": 'answer_parallel = "c"\n'},
    "believes the tanh map composes like the linear one: (b) only"))

S.append(sub("ok-p4-flip-then-forward", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    t = torch.arange(T)
    # idx[b, t] = L[b] - 1 - t inside the sequence, t at the padding: reverses each sequence in place
    idx = torch.where(t[None, :] < L[:, None], L[:, None] - 1 - t[None, :], t[None, :])
    xr = torch.gather(x, 1, idx[:, :, None].expand(B, T, D_in))
    h = x.new_zeros(B, D) if h0 is None else h0
    outs = []
    for step in range(T):
        act = (step < L)[:, None]
        h = torch.where(act, torch.tanh(xr[:, step] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]), h)
        outs.append(torch.where(act, h, torch.zeros_like(h)))
    out_r = torch.stack(outs, 1)
    outputs = torch.gather(out_r, 1, idx[:, :, None].expand(B, T, D))
    return outputs, h
'''}, "reverse each sequence with gather, run forward, gather back (the index map is its own inverse)"))

S.append(sub("ok-p1-rates-clamped-out-of-place", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    rate = leak.clamp(0.0, 1.0)        # rates are promised in [0, 1]: a no-op, out of place
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    slope = 1 - torch.tanh(pre).square()
    eye = torch.eye(h.shape[1], dtype=h.dtype)
    return eye * (1 - rate)[:, None] + p["W_hh"] * (rate * slope)[..., None]
'''}, "an out-of-place clamp of promised [0, 1] rates changes neither values nor gradients (clamp passes the gradient at its bounds)"))

S.append(sub("k2-p5-jacobians-shifted-by-one", False, {"gradient_norms": REF["gradient_norms"].replace(
    "        P = P @ Js[T - k]", "        P = P @ Js[T - 1 - k]")},
    "product J_{T-2} ... J_{T-1-k}, one step early: 'J_{T-1} J_{T-2} ... J_{T-k}'"))

S.append(sub("k3-p4-lengths-in-x-dtype", False, {"rnn_unroll": REF["rnn_unroll"].replace(
    "    L = lengths.to(torch.int64)\n", "    L = lengths.to(x.dtype)\n")},
    "lengths compared in x's dtype (bfloat16 rounds 257 to 256): 'lengths stays a count of whole steps'"))

# ---------------- hostile ----------------
S.append(sub("hostile-p2-float-subclass", False, {"costs": '''
class Anything(float):
    def __eq__(self, other):
        return True
    __hash__ = float.__hash__
    def __sub__(self, other):
        return Anything(0.0)
    __rsub__ = __sub__
    def __abs__(self):
        return Anything(0.0)
    def __lt__(self, other):
        return True
    def __le__(self, other):
        return True
attention_over_lstm = Anything(1.0)
equal_cost_length = Anything(1.0)
'''}, "float subclass that compares equal and close to anything"))

SUBMISSIONS = S
