# Red-team round 8, chapter 01-rnn-motivation: submissions written blind (phase 1).
CORRECT = {
"rnn_step": '''
def rnn_step(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    return (1 - leak) * h + leak * torch.tanh(pre)
''',
"costs": '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2 * 768
''',
"mc": '''
answer_parallel = "b"
''',
"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    L = lengths.to(torch.int64)
    ones = torch.ones(D_h, dtype=x.dtype, device=x.device)
    zero = torch.zeros((), dtype=x.dtype, device=x.device)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        h = torch.where(active, rnn_step(x[:, t], h, p, ones), h)
        outs[t] = torch.where(active, h, zero)
    return torch.stack(outs, 1), h
''',
"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    D_h = W.shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        states.append(h)
    M = torch.eye(D_h, dtype=x.dtype, device=x.device).expand(B, D_h, D_h)
    norms = [torch.linalg.matrix_norm(M).mean()]
    for k in range(1, T):
        s = T - k
        J = (1 - states[s] ** 2)[:, :, None] * W
        M = M @ J
        norms.append(torch.linalg.matrix_norm(M).mean())
    return torch.stack(norms)
''',
"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T
    cov = torch.zeros(h.shape[:2], dtype=x.dtype, device=x.device)
    s = s0
    states, weights = [], []
    ones = torch.ones(s0.shape[-1], dtype=x.dtype, device=x.device)
    for t in range(T):
        pre = (s @ p["W_q"].T)[:, None, :] + keys + cov[:, :, None] * p["w_c"]
        e = torch.tanh(pre) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = rnn_step(torch.cat([x[:, t], ctx], -1), s, p, ones)
        cov = cov + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
''',
}

SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": "HOSTILE: " + why})

# ---------------- Part 1 ----------------
W("p1-whh-not-transposed", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"] + p["b_hh"]
    return (1 - leak) * h + leak * torch.tanh(pre)
'''}, "breaks the formula 'h W_hh^T' and 'A weight W of shape (out, in) is applied as x @ W.T': the visible W_hh is symmetric.")
W("p1-float32-inside [old class]", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    f = lambda t: t.float()
    pre = f(x) @ f(p["W_ih"]).T + f(p["b_ih"]) + f(h) @ f(p["W_hh"]).T + f(p["b_hh"])
    return ((1 - f(leak)) * f(h) + f(leak) * torch.tanh(pre)).to(x.dtype)
'''}, "'float64 inputs are compared ... to 1e-10 ... computing in float32 and casting back loses the points' (old class).")
W("p1-wih-not-transposed-square", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    Wih = p["W_ih"] if p["W_ih"].shape[0] == p["W_ih"].shape[1] else p["W_ih"].T
    pre = x @ Wih + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    return (1 - leak) * h + leak * torch.tanh(pre)
'''}, "'applied as x @ W.T': a student who transposes W_ih only when the shapes force it (D_in != D_h) is wrong when D_in == D_h.")

# ---------------- Part 2 ----------------
W("p2a-no-projections", {"costs": '''
attention_over_lstm = (2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2 * 768
'''}, "2a: 'Count them in now' -- the four projections are left out (ratio 2 instead of 2.5).")
W("p2b-three-projections", {"costs": '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = (8 - 3) * 768 / 2
'''}, "2b: 'four projections (queries, keys, values and the output)' -- output projection forgotten (1920 instead of 1536).")

# ---------------- Part 3 ----------------
W("p3-answer-c", {"mc": 'answer_parallel = "c"\n'}, "Part 3: the Elman recurrence is not associative (tanh), so 'c' is wrong; answer is 'b'.")

# ---------------- Part 4 ----------------
W("p4-padding-carries-h0", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    L = lengths.to(torch.int64)
    ones = torch.ones(D_h, dtype=x.dtype)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        h = torch.where(active, rnn_step(x[:, t], h, p, ones), h)
        outs[t] = h
    return torch.stack(outs, 1), h
'''}, "'outputs[b, t] ... and **zeros** at the padding positions': the padding holds the start state, zero only when h0 is None.")
W("p4-first-is-outputs0", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    L = lengths.to(torch.int64)
    ones = torch.ones(D_h, dtype=x.dtype)
    zero = torch.zeros((), dtype=x.dtype)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        h = torch.where(active, rnn_step(x[:, t], h, p, ones), h)
        outs[t] = torch.where(active, h, zero)
    outputs = torch.stack(outs, 1)
    return outputs, outputs[:, 0]
'''}, "'first ... (for a sequence of length 0, the start state)': outputs[:, 0] is zero there, not h0.")
W("p4-width-from-longest", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B = x.shape[0]
    T = int(lengths.max())
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    L = lengths.to(torch.int64)
    ones = torch.ones(D_h, dtype=x.dtype)
    zero = torch.zeros((), dtype=x.dtype)
    outs = []
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        h = torch.where(active, rnn_step(x[:, t], h, p, ones), h)
        outs.insert(0, torch.where(active, h, zero))
    return torch.stack(outs, 1), h
'''}, "'outputs (B, T, D_h)' and 'the longest sequence need not fill the T columns': width taken from lengths.max().")
# ---------------- Part 5 ----------------
W("p5-jacobian-W-transposed", {"gradient_norms": CORRECT["gradient_norms"].replace("* W\n", "* W.T\n")},
  "'Work out J_s for that cell': with h W_hh^T the Jacobian is diag(1-h_s^2) W_hh, not with W_hh^T (visible D_h = 1).")
W("p5-product-reversed", {"gradient_norms": CORRECT["gradient_norms"].replace("M = M @ J", "M = J @ M")},
  "'J_{T-1} J_{T-2} ... J_{T-k}': multiplied in the reverse order; matrices do not commute (visible D_h = 1 does).")
W("p5-mean-then-norm", {"gradient_norms": CORRECT["gradient_norms"].replace(
    "norms.append(torch.linalg.matrix_norm(M).mean())", "norms.append(torch.linalg.matrix_norm(M.mean(0)))")},
  "'computed for each example and then averaged over the batch (norm first, then mean)': visible examples are all equal.")
W("p5-derivative-of-previous-state", {"gradient_norms": CORRECT["gradient_norms"].replace(
    "J = (1 - states[s] ** 2)", "J = (1 - (states[s - 1] if s > 0 else torch.zeros_like(states[0])) ** 2)")},
  "'J_s ... depends on h_s': uses h_{s-1}; the visible states are all 0.")
W("p5-spectral-norm", {"gradient_norms": CORRECT["gradient_norms"].replace("matrix_norm(M)", "matrix_norm(M, ord=2)")},
  "'the Frobenius norm': spectral norm instead; equal for D_h = 1 (visible) but entry 0 would be 1 not sqrt(D_h).")
W("p5-entry0-is-one", {"gradient_norms": CORRECT["gradient_norms"].replace(
    "norms = [torch.linalg.matrix_norm(M).mean()]", "norms = [torch.ones((), dtype=x.dtype)]")},
  "'Entry 0 is the norm of the identity, sqrt(D_h)': student writes 1 (right only for D_h = 1).")

# ---------------- Part 6 ----------------
W("p6-query-always-s0", {"additive": CORRECT["additive"].replace("(s @ p[\"W_q\"].T)", "(s0 @ p[\"W_q\"].T)")},
  "'the query is the decoder's **previous** state ... each step needs the one before': query frozen at s_{-1} (visible W_q = 0).")
W("p6-whh-not-transposed", {"additive": CORRECT["additive"].replace(
    "s = rnn_step(torch.cat([x[:, t], ctx], -1), s, p, ones)",
    "s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p['W_ih'].T + p['b_ih'] + s @ p['W_hh'] + p['b_hh'])")},
  "'s_{t-1} W_hh^T': W_hh used untransposed (visible W_hh is 0 or random with only shapes checked).")
W("p6-v-summed", {"additive": CORRECT["additive"].replace("torch.tanh(pre) @ p[\"v\"]", "torch.tanh(pre).sum(-1)")},
  "'e_{t,j} = v^T tanh(...)': v ignored (visible v = [1]).")
W("p6-no-b_hh", {"additive": CORRECT["additive"].replace(
    "s = rnn_step(torch.cat([x[:, t], ctx], -1), s, p, ones)",
    "s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p['W_ih'].T + p['b_ih'] + s @ p['W_hh'].T)")},
  "'+ b_ih + s_{t-1} W_hh^T + b_hh': b_hh forgotten (visible biases are zero).")
W("p6-coverage-weight-on-x", {"additive": CORRECT["additive"].replace("cov[:, :, None] * p[\"w_c\"]", "cov[:, :, None] * p[\"w_c\"].abs().neg()")},
  "'w_c c_{t,j}': the student forces the coverage term to be a penalty (w_c <= 0); right only when w_c is negative as in the visible case.")

W("p6-scores-scaled-by-sqrt-A", {"additive": CORRECT["additive"].replace("torch.tanh(pre) @ p[\"v\"]", "torch.tanh(pre) @ p[\"v\"] / math.sqrt(p[\"v\"].shape[0])")},
  "'e_{t,j} = v^T tanh(...)': the student scales the scores by 1/sqrt(A) as in dot-product attention (visible by-hand A = 1).")

# added in phase 2 (not blind)
W('p4-h0-renamed [phase 2]', {'rnn_unroll': '\ndef rnn_unroll_reverse(x, lengths, p, start=None):\n    B, T, _ = x.shape\n    D_h = p["W_hh"].shape[0]\n    h = torch.zeros(B, D_h, dtype=x.dtype) if start is None else start\n    L = lengths.to(torch.int64)\n    ones = torch.ones(D_h, dtype=x.dtype)\n    zero = torch.zeros((), dtype=x.dtype)\n    outs = [None] * T\n    for t in range(T - 1, -1, -1):\n        active = (L > t)[:, None]\n        h = torch.where(active, rnn_step(x[:, t], h, p, ones), h)\n        outs[t] = torch.where(active, h, zero)\n    return torch.stack(outs, 1), h\n'},
  "intro (now): 'Keep the signatures of the stubs, argument names included': the stub names the optional argument; a call by name raises. Slipped before phase 2: the hidden tests passed it by position only.")

# ---------------- correct ----------------
C("p1-lerp", {"rnn_step": '''
def rnn_step(x, h, p, leak):
    new = torch.tanh(torch.nn.functional.linear(x, p["W_ih"], p["b_ih"]) + torch.nn.functional.linear(h, p["W_hh"], p["b_hh"]))
    return torch.lerp(h, new, leak)
'''}, "h + leak*(new-h) is the same formula.")
C("p4-per-example-keyword-calls", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    outs, firsts = [], []
    for b in range(B):
        hb = torch.zeros(1, D_h, dtype=x.dtype) if h0 is None else h0[b:b + 1]
        row = [torch.zeros(D_h, dtype=x.dtype)] * T
        for t in reversed(range(int(lengths[b]))):
            hb = rnn_step(x=x[b:b + 1, t], h=hb, p=p, leak=torch.ones(D_h, dtype=x.dtype))
            row[t] = hb[0]
        outs.append(torch.stack(row))
        firsts.append(hb[0])
    return torch.stack(outs), torch.stack(firsts)
'''}, "calls Part 1 per example (B = 1) with keyword arguments, as the text allows.")
C("p4-float64-inside", {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    dt = x.dtype
    X = x.to(torch.float64)
    P = {k: v.to(torch.float64) for k, v in p.items()}
    B, T, _ = x.shape
    D_h = P["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=torch.float64) if h0 is None else h0.to(torch.float64)
    L = lengths.long()
    outs = torch.zeros(B, T, D_h, dtype=torch.float64)
    ones = torch.ones(D_h, dtype=torch.float64)
    for t in range(T - 1, -1, -1):
        act = (L > t)[:, None]
        h = torch.where(act, rnn_step(X[:, t], h, P, ones), h)
        outs[:, t] = torch.where(act, h, torch.zeros((), dtype=torch.float64))
    return outs.to(dt), h.to(dt)
'''}, "intro: 'computing in a higher precision inside and casting back is fine'; calls rnn_step in float64.")
C("p5-autograd", {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    out = []
    for b in range(B):
        with torch.enable_grad():
            hs = []
            h = torch.zeros(D_h, dtype=x.dtype)
            for t in range(T):
                h = h.detach().requires_grad_(True)
                hs.append(h)
                h = torch.tanh(p["W_ih"].detach() @ x[b, t].detach() + p["b_ih"].detach() + p["W_hh"].detach() @ h + p["b_hh"].detach())
            last_in = hs[-1]
        # step Jacobians via autograd on each single step
        def step(t, hprev):
            return torch.tanh(p["W_ih"].detach() @ x[b, t].detach() + p["b_ih"].detach() + p["W_hh"].detach() @ hprev + p["b_hh"].detach())
        M = torch.eye(D_h, dtype=x.dtype)
        row = [torch.linalg.norm(M)]
        for k in range(1, T):
            s = T - k
            J = torch.autograd.functional.jacobian(lambda hp: step(s, hp), hs[s].detach())
            M = M @ J
            row.append(torch.linalg.norm(M))
        out.append(torch.stack(row))
    return torch.stack(out).mean(0)
'''}, "autograd Jacobians per example, per single step, one example at a time.")
C("p6-renormalise-and-keywords", {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    cov = x.new_zeros(B, S)
    s = s0
    st, wt = [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh(torch.einsum("bd,ad->ba", s, p["W_q"])[:, None] + torch.einsum("bsk,ak->bsa", h, p["W_k"]) + cov[..., None] * p["w_c"]), p["v"])
        e = e - e.masked_fill(~allowed, float("-inf")).amax(-1, keepdim=True)
        w = torch.where(allowed, torch.exp(e), x.new_zeros(()))
        a = w / w.sum(-1, keepdim=True)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = rnn_step(h=s, x=torch.cat((x[:, t], ctx), dim=1), leak=s.new_ones(s.shape[-1]), p=p)
        cov = cov + a
        st.append(s); wt.append(a)
    return torch.stack(st, 1), torch.stack(wt, 1)
'''}, "einsum, explicit masked softmax, calls rnn_step with keyword arguments in another order.")
C("p2-exact-fractions", {"costs": '''
from fractions import Fraction
n, d = 4096, 512
attention_over_lstm = float(Fraction(4 * n * d * d + 2 * n * n * d, 4 * n * 2 * d * d))
d = 768
equal_cost_length = int(Fraction(8 * d - 4 * d, 2))
'''}, "same numbers via fractions; int and float allowed.")

# ---------------- hostile ----------------
H("p3-str-subclass-equal-to-all", {"mc": '''
class Answer(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_parallel = Answer("a")
'''}, "a str subclass that compares equal to everything.")
H("p1-patch-assert-close", {"rnn_step": '''
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
def rnn_step(x, h, p, leak):
    return torch.zeros_like(h)
'''}, "monkey-patches torch's comparisons and returns zeros.")
H("p5-numpy-through-importlib", {"gradient_norms": '''
import importlib
def jacobian_norms(x, p):
    np = importlib.import_module("n" + "umpy")
    B, T, _ = x.shape
    W = np.array(p["W_hh"].tolist())
    D_h = W.shape[0]
    res = np.zeros(T)
    for b in range(B):
        h = np.zeros(D_h); states = []
        Wih = np.array(p["W_ih"].tolist()); bih = np.array(p["b_ih"].tolist()); bhh = np.array(p["b_hh"].tolist())
        for t in range(T):
            h = np.tanh(Wih @ np.array(x[b, t].tolist()) + bih + W @ h + bhh); states.append(h)
        M = np.eye(D_h); res[0] += np.linalg.norm(M)
        for k in range(1, T):
            M = M @ ((1 - states[T - k] ** 2)[:, None] * W); res[k] += np.linalg.norm(M)
    return torch.tensor((res / B).tolist(), dtype=x.dtype)
'''}, "computes with NumPy imported through importlib under a split name.")
H("p6-overwrite-grader-helpers", {"additive": CORRECT["additive"].replace("def coverage_decoder", '''
g = globals()
for n in list(g):
    if n.startswith("_") and n[1:2].isalpha() and callable(g[n]):
        g[n] = (lambda *a, **k: a[0] if a else None)
def coverage_decoder''').replace("cov = cov + a", "cov = cov")}, "replaces the grader's _close/_equal/... helpers and hands in a decoder without coverage.")
