# Red team round 7, chapter 01-rnn-motivation: submissions written blind (student notebook + lesson only).

RNN_STEP = '''
def rnn_step(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    return (1 - leak) * h + leak * torch.tanh(pre)
'''

COSTS = '''
d, n = 512, 4096
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) / (8 * n * d * d)
equal_cost_length = 2 * 768
'''

MC = '''
answer_parallel = "b"
'''

UNROLL = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    lengths = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    ones = torch.ones(D_h, dtype=x.dtype)
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < lengths)[:, None]
        h_new = rnn_step(x[:, t], h, p, ones)
        outputs[t] = torch.where(active, h_new, torch.zeros_like(h_new))
        h = torch.where(active, h_new, h)
    return torch.stack(outputs, dim=1), h
'''

JAC = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    M = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(M).mean()]
    for k in range(1, T):
        hs = states[T - k]
        J = (1 - hs * hs)[:, :, None] * p["W_hh"]  # (B, D_h, D_h): diag(1 - h_s^2) W_hh
        M = M @ J
        norms.append(torch.linalg.matrix_norm(M).mean())
    return torch.stack(norms)
'''

ADDITIVE = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T  # (B, S, A)
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]) @ p["v"]  # (B, S)
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(dim=1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''

CORRECT = {"rnn_step": RNN_STEP, "costs": COSTS, "mc": MC, "rnn_unroll": UNROLL,
           "gradient_norms": JAC, "additive": ADDITIVE}

SUBMISSIONS = []

def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "hostile": True, "cells": cells, "why": why})


# ---------------- Part 1: rnn_step ----------------
W("p1-W_hh-not-transposed", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"] + p["b_hh"]
    return (1 - leak) * h + leak * torch.tanh(pre)
'''}, "Intro: 'A weight W of shape (out, in) is applied as x @ W.T'; visible W_hh is symmetric.")

W("p1-b_ih-forgotten", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    pre = x @ p["W_ih"].T + h @ p["W_hh"].T + p["b_hh"]
    return (1 - leak) * h + leak * torch.tanh(pre)
'''}, "Part 1 formula: 'tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)'; the visible b_ih is zero.")

W("p1-rates-clamped-away-from-zero", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    leak = leak.clamp(0.01, 1.0)  # keep every unit alive
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    return (1 - leak) * h + leak * torch.tanh(pre)
'''}, "Part 1: 'each hidden unit i has its own rate lambda_i in [0, 1] ... one with lambda_i = 0 never changes'.")

W("p1-float32-inside (closed class)", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    f = lambda t: t.float()
    pre = f(x) @ f(p["W_ih"]).T + f(p["b_ih"]) + f(h) @ f(p["W_hh"]).T + f(p["b_hh"])
    return ((1 - f(leak)) * f(h) + f(leak) * torch.tanh(pre)).to(x.dtype)
'''}, "Intro: 'computing in float32 and casting back loses the points'.")

W("c0-where-on-full-rate", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    # leak the recurrent contribution instead of the state
    pre = x @ p["W_ih"].T + p["b_ih"] + (h @ p["W_hh"].T + p["b_hh"])
    new = torch.tanh(pre)
    return torch.where(leak == 1, new, (1 - leak) * h + leak * new) if leak.dim() == 1 else new
'''}, "CONTROL (actually correct, written oddly with a where on leak == 1): same formula.")
SUBMISSIONS[-1]["correct"] = True

# ---------------- Part 2: costs ----------------
W("p2-three-projections", {"costs": '''
d, n = 512, 4096
attention_over_lstm = (3 * n * d * d + 2 * n * n * d) / (8 * n * d * d)
equal_cost_length = 2.5 * 768
'''}, "Part 2: 'a self-attention layer computes four projections (queries, keys, values and the output)'.")

W("p2-one-n2d-product", {"costs": '''
d, n = 512, 4096
attention_over_lstm = (4 * n * d * d + n * n * d) / (8 * n * d * d)
equal_cost_length = 4 * 768
'''}, "Part 2: 'the two n x n products QK^T and (weights)V, each n^2 d multiply-adds'.")

W("p2-ratio-inverted", {"costs": '''
d, n = 512, 4096
attention_over_lstm = (8 * n * d * d) / (4 * n * d * d + 2 * n * n * d)
equal_cost_length = 1536
'''}, "2a: 'how many times more multiply-adds does the self-attention layer do than the LSTM layer?'")

# ---------------- Part 3: mc ----------------
W("p3-both", {"mc": 'answer_parallel = "c"\n'},
  "Part 3: only the diagonal linear map composes into a map of the same form (hint: compose h -> a*h + c); tanh does not.")

# ---------------- Part 4: rnn_unroll_reverse ----------------
W("p4-padding-outputs-are-frozen-state", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    lengths = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    ones = torch.ones(D_h, dtype=x.dtype)
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < lengths)[:, None]
        h = torch.where(active, rnn_step(x[:, t], h, p, ones), h)
        outputs[t] = h   # padding: the state has not started yet, so it is still h0 (zeros)
    return torch.stack(outputs, dim=1), h
'''}, "Part 4: 'outputs[b, t] ... and **zeros** at the padding positions' (with h0 given the frozen start state is not zero).")

W("p4-first-is-outputs-col0", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    lengths = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    ones = torch.ones(D_h, dtype=x.dtype)
    outputs = torch.zeros(B, T, D_h, dtype=x.dtype)
    for t in range(T - 1, -1, -1):
        active = (t < lengths)[:, None]
        h_new = rnn_step(x[:, t], h, p, ones)
        outputs[:, t] = torch.where(active, h_new, torch.zeros_like(h_new))
        h = torch.where(active, h_new, h)
    return outputs, outputs[:, 0].clone()  # the state after reading x[b, 0]
'''}, "Part 4: 'first ... (for a sequence of length 0, the start state)' - wrong only when a length is 0 AND h0 is given.")

W("p4-h0-ignored", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    lengths = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype)
    ones = torch.ones(D_h, dtype=x.dtype)
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < lengths)[:, None]
        h_new = rnn_step(x[:, t], h, p, ones)
        outputs[t] = torch.where(active, h_new, torch.zeros_like(h_new))
        h = torch.where(active, h_new, h)
    return torch.stack(outputs, dim=1), h
'''}, "Part 4: 'start from the state h0[b] (zeros when h0 is None)'.")

W("p4-reset-at-last-token-no-freeze", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    lengths = lengths.long()
    start = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    ones = torch.ones(D_h, dtype=x.dtype)
    h = start
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        # each sequence (re)starts from its start state at its own last real token
        h_in = torch.where((t == lengths - 1)[:, None], start, h)
        h = rnn_step(x[:, t], h_in, p, ones)
        outputs[t] = h * (t < lengths)[:, None].to(x.dtype)
    return torch.stack(outputs, dim=1), h
'''}, "Part 4: 'first ... for a sequence of length 0, the start state': a length-0 row never resets and runs over its padding.")

W("p4-uint8-lengths-compared-raw (closed class)", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    ones = torch.ones(D_h, dtype=x.dtype)
    outputs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (lengths > t)[:, None]
        h_new = rnn_step(x[:, t], h, p, ones)
        outputs[t] = torch.where(active, h_new, torch.zeros_like(h_new))
        h = torch.where(active, h_new, h)
    return torch.stack(outputs, dim=1), h
'''}, "Part 4: 'a Python int compared with such a tensor, wrap around' (uint8 lengths, T > 255).")

# ---------------- Part 5: jacobian_norms ----------------
_JAC_HEAD = '''
def states_of(x, p):
    B, T, _ = x.shape
    h = torch.zeros(B, p["W_hh"].shape[0], dtype=x.dtype)
    out = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        out.append(h)
    return out
'''

W("p5-product-order-reversed", {"gradient_norms": _JAC_HEAD + '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    st = states_of(x, p)
    M = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(M).mean()]
    for k in range(1, T):
        J = (1 - st[T - k] ** 2)[:, :, None] * p["W_hh"]
        M = J @ M
        norms.append(torch.linalg.matrix_norm(M).mean())
    return torch.stack(norms)
'''}, "Part 5: 'dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}' (left to right); visible D_h = 1 commutes.")

W("p5-W_hh-transposed-in-J", {"gradient_norms": _JAC_HEAD + '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    st = states_of(x, p)
    M = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(M).mean()]
    for k in range(1, T):
        J = (1 - st[T - k] ** 2)[:, :, None] * p["W_hh"].T   # h W_hh^T -> W_hh^T
        M = M @ J
        norms.append(torch.linalg.matrix_norm(M).mean())
    return torch.stack(norms)
'''}, "Part 5: 'J_s = dh_s/dh_{s-1}' for h_s = tanh(... + h_{s-1} W_hh^T ...) is diag(1-h_s^2) W_hh, not W_hh^T.")

W("p5-derivative-at-previous-state", {"gradient_norms": _JAC_HEAD + '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    st = states_of(x, p)
    M = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(M).mean()]
    for k in range(1, T):
        J = (1 - st[T - k - 1] ** 2)[:, :, None] * p["W_hh"]
        M = M @ J
        norms.append(torch.linalg.matrix_norm(M).mean())
    return torch.stack(norms)
'''}, "Part 5: 'J_s ... is a D_h x D_h matrix that depends on h_s' (not h_{s-1}).")

W("p5-rms-over-batch", {"gradient_norms": _JAC_HEAD + '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    st = states_of(x, p)
    M = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [M.pow(2).sum(dim=(1, 2)).mean().sqrt()]
    for k in range(1, T):
        J = (1 - st[T - k] ** 2)[:, :, None] * p["W_hh"]
        M = M @ J
        norms.append(M.pow(2).sum(dim=(1, 2)).mean().sqrt())   # Frobenius over the batch
    return torch.stack(norms)
'''}, "Part 5: 'computed for each example and then averaged over the batch (norm first, then mean)': RMS of norms is not their mean.")

W("p5-gradient-of-sum-autograd", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    with torch.enable_grad():
        x2 = x.detach()
        h = torch.zeros(B, D_h, dtype=x.dtype, requires_grad=True)
        hs = []
        for t in range(T):
            h = torch.tanh(x2[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            hs.append(h)
        grads = torch.autograd.grad(hs[-1].sum(), hs)
    return torch.stack([grads[T - 1 - k].norm(dim=-1).mean() for k in range(T)]) * (D_h ** 0.5 if False else 1) \
        if D_h == 1 else torch.stack([grads[T - 1 - k].norm(dim=-1).mean() for k in range(T)])
'''}, "Part 5: 'the Frobenius norm of dh_{T-1}/dh_{T-1-k}' (a matrix; the gradient of sum(h_{T-1}) is one row-sum of it); 'Entry 0 is sqrt(D_h)'.")

# ---------------- Part 6: coverage_decoder ----------------
_DEC = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    cov = torch.zeros(B, S, dtype=x.dtype)
    s = {S_INIT}
    query = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((query @ p["W_q"].T)[:, None, :] + keys + {COV}[:, :, None] * p["w_c"]) @ p["v"]
        {SOFTMAX}
        ctx = (a[:, :, None] * h).sum(dim=1)
        s = torch.tanh(torch.cat([x[:, t], ctx], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        {QUERY}
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''
_SM = 'a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)'


def dec(S_INIT="s0", COV="cov", SOFTMAX=_SM, QUERY="query = s"):
    return _DEC.replace("{S_INIT}", S_INIT).replace("{COV}", COV).replace("{SOFTMAX}", SOFTMAX).replace("{QUERY}", QUERY)


W("p6-query-never-updated", {"additive": dec(QUERY="pass")},
  "Part 6: 'e_{t,j} = v^T tanh(W_q s_{t-1} + ...)': the query is the previous state, not s_{-1} at every step (visible W_q = 0).")

W("p6-state-starts-from-zeros", {"additive": dec(S_INIT="torch.zeros_like(s0)")},
  "Part 6: 'starting from the given state s_{-1}' - the recurrence must start from s0 too (visible s0 = 0).")

W("p6-coverage-clamped-at-one", {"additive": dec(COV="cov.clamp(max=1.0)")},
  "Part 6: 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' (a sum over all earlier steps, can exceed 1; visible T = 2 keeps it below 1).")

W("p6-mask-after-softmax-renormalise", {"additive": dec(SOFTMAX=
  'a = torch.softmax(e, dim=-1) * allowed; a = a / a.sum(dim=-1, keepdim=True)')},
  "Intro/Part 6: 'padding positions get weight 0'; with large v the padded score can hold the row maximum and the "
  "allowed weights underflow to 0/0 (intro: 'weights large enough that a softmax which does not subtract the row maximum overflows').")

W("p6-manual-softmax-max-over-all", {"additive": dec(SOFTMAX=
  'm = e.amax(dim=-1, keepdim=True); z = torch.exp(e - m) * allowed; a = z / z.sum(dim=-1, keepdim=True)')},
  "Part 6: 'padding positions get weight 0' - the row maximum is taken over padding too, so a padded key far above "
  "the real ones underflows every real weight (0/0 = NaN).")

# ---------------- hostile ----------------
H("hostile-mc-str-subclass", {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__
answer_parallel = Letter("a")
'''}, "A str subclass that compares equal to every answer.")

H("hostile-patch-assert-close", {"rnn_step": '''
import torch.testing
def _noop(*a, **k):
    return None
torch.testing.assert_close = lambda *a, **k: None
torch.equal = lambda *a, **k: True
def rnn_step(x, h, p, leak):
    return torch.zeros_like(h)
'''}, "Disables the comparison functions in torch and returns zeros.")

H("hostile-steal-reference", {"gradient_norms": '''
import gc, inspect
def jacobian_norms(x, p):
    # look for a reference implementation anywhere in the caller frames or in live functions
    f = inspect.currentframe().f_back
    while f is not None:
        for name, val in list(f.f_locals.items()) + list(f.f_globals.items()):
            if callable(val) and name != "jacobian_norms" and ("jacob" in name.lower() or "norm" in name.lower()) \\
                    and getattr(val, "__name__", "") != "jacobian_norms":
                try:
                    r = val(x, p)
                    if isinstance(r, torch.Tensor) and r.shape == (x.shape[1],):
                        return r
                except Exception:
                    pass
        f = f.f_back
    for obj in gc.get_objects():
        if inspect.isfunction(obj) and "jacob" in obj.__name__.lower() and obj.__name__ != "jacobian_norms":
            try:
                r = obj(x, p)
                if isinstance(r, torch.Tensor):
                    return r
            except Exception:
                pass
    T = x.shape[1]
    return 0.5 ** torch.arange(T, dtype=x.dtype)
'''}, "Searches the grader's frames and the heap for a reference function; falls back to the visible answer.")

H("hostile-lying-float", {"costs": '''
class Any(float):
    def __eq__(self, o): return True
    def __sub__(self, o): return 0.0
    def __rsub__(self, o): return 0.0
    def __abs__(self): return 0.0
    def __lt__(self, o): return True
    def __gt__(self, o): return True
    def __le__(self, o): return True
    def __ge__(self, o): return True
    __hash__ = float.__hash__
attention_over_lstm = Any(1.0)
equal_cost_length = Any(1.0)
'''}, "float subclass that claims to equal / be close to anything.")

# ---------------- different but correct ----------------
C("c1-lerp-and-linear", {"rnn_step": '''
import torch.nn.functional as F
def rnn_step(x, h, p, leak):
    target = torch.tanh(F.linear(x, p["W_ih"], p["b_ih"]) + F.linear(h, p["W_hh"], p["b_hh"]))
    return torch.lerp(h, target, leak.expand_as(h))
'''}, "lerp(h, target, leak) = h + leak * (target - h): the same formula.")

C("c2-per-sequence-loop", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    rows, firsts = [], []
    for b in range(B):
        L = int(lengths[b])
        h = torch.zeros(1, D_h, dtype=x.dtype) if h0 is None else h0[b:b + 1]
        out = [torch.zeros(1, D_h, dtype=x.dtype) for _ in range(T)]
        for t in reversed(range(L)):
            h = torch.tanh(x[b:b + 1, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            out[t] = h
        rows.append(torch.cat(out, dim=0))
        firsts.append(h[0])
    return torch.stack(rows), torch.stack(firsts)
'''}, "One sequence at a time, reading only its own real tokens; padding left zero.")

C("c3-autograd-jacobian-rows", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    with torch.enable_grad():
        xd = x.detach()
        pd = {k: v.detach() for k, v in p.items()}
        h = torch.zeros(B, D_h, dtype=x.dtype, requires_grad=True)
        hs = []
        for t in range(T):
            h = torch.tanh(xd[:, t] @ pd["W_ih"].T + pd["b_ih"] + h @ pd["W_hh"].T + pd["b_hh"])
            hs.append(h)
        sq = torch.zeros(B, T, dtype=x.dtype)  # per example, squared Frobenius norm of d h_{T-1} / d h_s
        for i in range(D_h):
            rows = torch.autograd.grad(hs[-1][:, i].sum(), hs, retain_graph=True)
            sq = sq + torch.stack([r.pow(2).sum(dim=-1) for r in rows], dim=1)
    norms = sq.sqrt().mean(dim=0)  # (T,) indexed by s; entry k is s = T-1-k
    return norms.flip(0).detach()
'''}, "Row i of each Jacobian from one backward pass of h_{T-1}[:, i]; norm per example, then mean.")

C("c4-vectorised-einsum-decoder-using-rnn_step", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = h.new_zeros(h.shape[:2])
    ones = torch.ones_like(p["b_hh"])
    s, S_out, A_out = s0, [], []
    for t in range(T):
        pre = torch.einsum("bh,ah->ba", s, p["W_q"])[:, None] + keys + torch.einsum("bs,a->bsa", cov, p["w_c"])
        e = torch.einsum("bsa,a->bs", torch.tanh(pre), p["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype))
        e = e - e.amax(dim=-1, keepdim=True)
        w = torch.exp(e)
        w = w / w.sum(dim=-1, keepdim=True)
        ctx = torch.einsum("bs,bsk->bk", w, h)
        s = rnn_step(torch.cat([x[:, t], ctx], dim=-1), s, p, ones)
        cov = cov + w
        S_out.append(s); A_out.append(w)
    return torch.stack(S_out, 1), torch.stack(A_out, 1)
'''}, "einsum throughout, a hand-written stable softmax, the step through Part 1's rnn_step with rates 1.")

# ---------------- second batch (added before any phase-2 reading) ----------------
W("p6-mask-from-lengths-assumes-right-padding", {"additive": dec(SOFTMAX=
  'lens = allowed.sum(dim=-1, keepdim=True); a = torch.softmax(e.masked_fill(torch.arange(e.shape[-1]) >= lens, float("-inf")), dim=-1)')},
  "Part 6: 'allowed a boolean (B, S) mask (True = a real source token)' - nothing says the padding is at the end; "
  "turning the mask into lengths gives weight to a masked position in the middle.")

W("p6-coverage-averaged-over-steps", {"additive": dec(COV="(cov / max(t, 1))")},
  "Part 6: 'c_{t+1,j} = c_{t,j} + alpha_{t,j}' - a sum, not the mean attention so far (equal at t <= 1, the visible T = 2).")
