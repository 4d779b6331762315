STEP_OK = '''
def rnn_step(x, h, p, leak):
    new = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    return (1 - leak) * h + leak * new
'''
COSTS = lambda a, b: f"attention_over_lstm = {a}\nequal_cost_length = {b}\n"
UNROLL_TMPL = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    lengths = lengths.to(torch.int64)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        real = (lengths > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        HUPDATE
        outs[t] = torch.where(real, new, torch.zeros_like(new))
    outputs = torch.stack(outs, dim=1)
    FIRST
'''
def unroll(hupdate="h = torch.where(real, new, h)", first="return outputs, h"):
    return UNROLL_TMPL.replace("HUPDATE", hupdate).replace("FIRST", first)

JAC_TMPL = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    Js = []
    for t in range(T):
        h_prev = h
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append(JAC)
    prod = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [REDUCE]
    for k in range(1, T):
        prod = PROD
        norms.append(REDUCE)
    return torch.stack(norms)
'''
def jac(J="(1 - h * h)[:, :, None] * p['W_hh']", prod="prod @ Js[T - k]", reduce="torch.linalg.matrix_norm(prod).mean()"):
    return JAC_TMPL.replace("JAC", J).replace("PROD", prod).replace("REDUCE", reduce)

DEC_TMPL = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    keys = h @ p["W_k"].T
    cov = torch.zeros(h.shape[:2], dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        QUERY
        e = torch.tanh(query[:, None] + keys + cov[..., None] * p["w_c"]) @ p["v"]
        SOFTMAX
        ctx = (a[..., None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + RECUR)
        weights.append(a)
        COV
        states.append(s)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''
def dec(query='query = s @ p["W_q"].T', softmax='a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)',
        recur='s @ p["W_hh"].T + p["b_hh"]', cov="cov = cov + a"):
    return DEC_TMPL.replace("QUERY", query).replace("SOFTMAX", softmax).replace("RECUR", recur).replace("COV", cov)

SUBMISSIONS = [
# ---------------- Part 1 wrong
{"name": "p1_forgets_b_ih", "correct": False, "cells": {"rnn_step": STEP_OK.replace(' + p["b_ih"]', '')},
 "why": "the formula h' = ... tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) has b_ih; the visible b_ih is zero"},
{"name": "p1_W_hh_untransposed", "correct": False, "cells": {"rnn_step": STEP_OK.replace('h @ p["W_hh"].T', 'h @ p["W_hh"]')},
 "why": "'A weight W of shape (out, in) is applied as x @ W.T' / formula h W_hh^T; the visible W_hh is symmetric (old class)"},
{"name": "p1_tanh_by_exp", "correct": False, "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    e = torch.exp(2 * a)
    return (1 - leak) * h + leak * (e - 1) / (e + 1)
'''}, "why": "tanh written as (e^2a-1)/(e^2a+1) overflows to inf/inf = NaN for pre-activations above ~44 (float32); the formula asks tanh, and the intro says weights can be large"},
{"name": "p1_sets_default_dtype", "correct": False, "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    torch.set_default_dtype(x.dtype)
    one = torch.tensor(1.0)
    return (one - leak) * h + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
'''}, "why": "changes torch's default dtype as a side effect: 'do not change anything inside torch'; a float64 call leaves every later torch.zeros/randn float64"},
{"name": "p1_reseeds_global", "correct": False, "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    torch.manual_seed(0)  # left over from debugging
    return (1 - leak) * h + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
'''}, "why": "reseeds torch's global generator at every step: 'do not change anything inside torch' (a model trained through this step would get the same dropout masks every step)"},
# ---------------- Part 2 wrong
{"name": "p2a_no_output_projection", "correct": False, "cells": {"costs": COSTS("(3 * 512 + 2 * 4096) / (8 * 512)", "1536")},
 "why": "'a self-attention layer computes four projections (queries, keys, values and the output)'"},
{"name": "p2a_lstm_one_product_per_gate", "correct": False, "cells": {"costs": COSTS("(4 * 512 + 2 * 4096) / (4 * 512)", "1536")},
 "why": "'four gates, each from one d x d product with the input and one with the previous hidden state'"},
{"name": "p2a_inverted_ratio", "correct": False, "cells": {"costs": COSTS("(8 * 512) / (4 * 512 + 2 * 4096)", "1536")},
 "why": "'how many times more multiply-adds does the self-attention layer do than the LSTM layer'"},
{"name": "p2b_one_nn_product", "correct": False, "cells": {"costs": COSTS("2.5", "4 * 768")},
 "why": "'the two n x n products QK^T and (weights).V, each n^2 d multiply-adds'"},
{"name": "p2b_no_projections_lesson_count", "correct": False, "cells": {"costs": COSTS("2.5", "768")},
 "why": "the lesson's n d^2 = n^2 d crossover; 'Count them in now' (projections and gates)"},
# ---------------- Part 3 wrong
{"name": "p3_answer_c", "correct": False, "cells": {"mc": 'answer_parallel = "c"\n'},
 "why": "the Elman recurrence's tanh is not affine, compositions do not stay in a fixed family: only (b)"},
# ---------------- Part 4 wrong
{"name": "p4_padding_resets_state", "correct": False, "cells": {"rnn_unroll": unroll(hupdate="h = torch.where(real, new, torch.zeros_like(new))")},
 "why": "'For each sequence b, start from the state h0[b]': zeroing the state on padding steps loses h0 for every sequence shorter than T"},
{"name": "p4_first_is_outputs_col0", "correct": False, "cells": {"rnn_unroll": unroll(first="return outputs, outputs[:, 0]")},
 "why": "'first ... (for a sequence of length 0, the start state)': outputs[:, 0] is zero there, not h0[b] (old class: boundary/two non-default together)"},
{"name": "p4_truncates_to_longest", "correct": False, "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B = x.shape[0]
    T = int(lengths.max())
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    lengths = lengths.to(torch.int64)
    outs = []
    for t in range(T - 1, -1, -1):
        real = (lengths > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(real, new, h)
        outs.insert(0, torch.where(real, new, torch.zeros_like(new)))
    return torch.stack(outs, dim=1), h
'''}, "why": "'outputs (B, T, D_h)' and 'the longest sequence need not fill the T columns': this returns (B, max(lengths), D_h)"},
{"name": "p4_recursive", "correct": False, "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)[:, None]
    def go(t, h):
        # reads column t, then recurses to t - 1; returns the list of outputs from column 0 to t, and first
        if t < 0:
            return [], h
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        real = L > t
        outs, first = go(t - 1, torch.where(real, new, h))
        return outs + [torch.where(real, new, torch.zeros_like(new))], first
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs, first = go(T - 1, h)
    return torch.stack(outs, 1), first
'''}, "why": "recursion one level per column: 'x is (B, T, D_in) with T >= 1' sets no bound on T, and T of a few hundred to a thousand overflows Python's recursion limit"},
# ---------------- Part 5 wrong
{"name": "p5_mean_then_norm", "correct": False, "cells": {"gradient_norms": jac(reduce="torch.linalg.matrix_norm(prod.mean(0))")},
 "why": "'computed for each example and then averaged over the batch (norm first, then mean)'; the visible examples are all identical"},
{"name": "p5_rms_of_norms", "correct": False, "cells": {"gradient_norms": jac(reduce="torch.linalg.matrix_norm(prod).pow(2).mean().sqrt()")},
 "why": "'averaged over the batch': root-mean-square is not the mean; the visible examples are identical"},
{"name": "p5_derivative_at_previous_state", "correct": False, "cells": {"gradient_norms": jac(J="(1 - h_prev * h_prev)[:, :, None] * p['W_hh']")},
 "why": "'J_s ... is a D_h x D_h matrix that depends on h_s' (the tanh' of the new state, not h_{s-1}); visible states are all 0"},
{"name": "p5_spectral_norm", "correct": False, "cells": {"gradient_norms": jac(reduce="torch.linalg.matrix_norm(prod, ord=2).mean()")},
 "why": "'entry k is the Frobenius norm'; with D_h = 1 visible, spectral = Frobenius"},
{"name": "p5_product_reversed", "correct": False, "cells": {"gradient_norms": jac(prod="Js[T - k] @ prod")},
 "why": "'dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}': this builds J_{T-k} ... J_{T-1}; D_h = 1 visible commutes"},
{"name": "p5_jacobian_W_hh_transposed", "correct": False, "cells": {"gradient_norms": jac(J="(1 - h * h)[:, :, None] * p['W_hh'].T")},
 "why": "'J_s = dh_s/dh_{s-1}' is diag(1-h_s^2) W_hh (h W_hh^T convention), not diag(1-h_s^2) W_hh^T; D_h = 1 visible"},
# ---------------- Part 6 wrong
{"name": "p6_query_always_s0", "correct": False, "cells": {"additive": dec(query='query = s0 @ p["W_q"].T')},
 "why": "'the query is the decoder's previous state' (e uses W_q s_{t-1}); visible W_q = 0 and the random case checks shapes only"},
{"name": "p6_W_hh_untransposed", "correct": False, "cells": {"additive": dec(recur='s @ p["W_hh"] + p["b_hh"]')},
 "why": "'s_{t-1} W_hh^T'; the hand case has W_hh = 0, the random case checks shapes only (square W_hh)"},
{"name": "p6_forgets_b_hh", "correct": False, "cells": {"additive": dec(recur='s @ p["W_hh"].T')},
 "why": "'s_t = tanh([x_t; context_t] W_ih^T + b_ih + s_{t-1} W_hh^T + b_hh)'"},
{"name": "p6_softmax_without_max", "correct": False, "cells": {"additive": dec(softmax='ex = torch.exp(e) * allowed\n        a = ex / ex.sum(-1, keepdim=True)')},
 "why": "alpha_t = softmax_j(e_t): exp without the row maximum overflows to inf/inf = NaN for scores above ~88 (large v); the intro names such weights"},
{"name": "p6_coverage_is_mean", "correct": False, "cells": {"additive": dec(cov="cov = torch.stack(weights).mean(0)")},
 "why": "'c_{t+1,j} = c_{t,j} + alpha_{t,j}' is a sum, not the mean of the earlier weights; the visible hand case has T = 2 where they agree"},
# ---------------- correct variants
{"name": "c_p1_lerp", "correct": True, "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    return torch.lerp(h, torch.tanh(torch.addmm(p["b_ih"] + p["b_hh"], x, p["W_ih"].t()) + h @ p["W_hh"].mT), leak)
'''}, "why": "lerp(h, new, leak) = h + leak (new - h)"},
{"name": "c_p1_einsum_float64", "correct": True, "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    d = lambda t: t.to(torch.float64)
    pre = torch.einsum("bi,hi->bh", d(x), d(p["W_ih"])) + d(p["b_ih"]) + torch.einsum("bj,hj->bh", d(h), d(p["W_hh"])) + d(p["b_hh"])
    out = d(h) + d(leak) * (torch.tanh(pre) - d(h))
    return out.to(x.dtype)
'''}, "why": "float64 inside, cast back (allowed)"},
{"name": "c_p1_noncontiguous_result", "correct": True, "cells": {"rnn_step": '''
def rnn_step(x, h, p, leak):
    # computed as (D_h, B) and transposed back: a non-contiguous result
    pre = p["W_ih"] @ x.T + p["W_hh"] @ h.T + (p["b_ih"] + p["b_hh"])[:, None]
    hT = h.T
    out = torch.addcmul(hT * (1 - leak)[:, None], leak[:, None], torch.tanh(pre))
    return out.T
'''}, "why": "non-contiguous results are not forbidden"},
{"name": "c_p2_computed", "correct": True, "cells": {"costs": '''
def attention_cost(n, d):
    return 4 * n * d * d + 2 * n * n * d
def lstm_cost(n, d):
    return n * 4 * 2 * d * d
attention_over_lstm = attention_cost(4096, 512) / lstm_cost(4096, 512)
equal_cost_length = next(n for n in range(1, 10**5) if attention_cost(n, 768) == lstm_cost(n, 768))
'''}, "why": "computed by search; int"},
{"name": "c_p4_rnn_step_per_example_kw", "correct": True, "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    ones = torch.ones(D_h, dtype=x.dtype)
    rows, firsts = [], []
    for b in range(B):
        n = int(lengths[b])
        h = (h0[b:b + 1] if h0 is not None else torch.zeros(1, D_h, dtype=x.dtype))
        cols = [None] * T
        for t in range(T - 1, -1, -1):
            if t < n:
                h = rnn_step(x=x[b:b + 1, t], h=h, p=p, leak=ones)
                cols[t] = h[0]
            else:
                cols[t] = torch.zeros(D_h, dtype=x.dtype)
        rows.append(torch.stack(cols))
        firsts.append(h[0])
    return torch.stack(rows), torch.stack(firsts)
'''}, "why": "calls Part 1's rnn_step on a batch of one, every argument by keyword, rates 1 (allowed)"},
{"name": "c_p4_gather_float64_step", "correct": True, "cells": {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    t = torch.arange(T)
    # reversed[b, s] = x[b, L[b] - 1 - s] for s < L[b]
    src = (L[:, None] - 1 - t[None, :]).clamp(min=0)
    xr = torch.gather(x, 1, src[:, :, None].expand(B, T, x.shape[2]))
    p64 = {k: v.double() for k, v in p.items()}
    h = torch.zeros(B, D_h, dtype=torch.float64) if h0 is None else h0.double()
    ones = torch.ones(D_h, dtype=torch.float64)
    states = []
    for s in range(T):
        new = rnn_step(xr[:, s].double(), h, p64, ones)
        h = torch.where((s < L)[:, None], new, h)
        states.append(new)
    st = torch.stack(states, 1)  # st[b, s] = state after reading x[b, L-1-s]
    back = torch.gather(st, 1, src[:, :, None].expand(B, T, D_h))
    outputs = torch.where((t[None, :] < L[:, None])[:, :, None], back, torch.zeros((), dtype=torch.float64))
    return outputs.to(x.dtype), h.to(x.dtype)
'''}, "why": "reverse each sequence with gather, run forward with Part 1's rnn_step in float64, gather back, cast back"},
{"name": "c_p5_autograd_rnn_step_single", "correct": True, "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    ones = torch.ones(D_h, dtype=x.dtype)
    out = torch.zeros(T, dtype=x.dtype)
    for b in range(B):
        h = torch.zeros(1, D_h, dtype=x.dtype)
        Js = []
        for t in range(T):
            xt = x[b:b + 1, t]
            Js.append(torch.autograd.functional.jacobian(lambda hh: rnn_step(xt, hh, p, ones), h).reshape(D_h, D_h))
            h = rnn_step(xt, h, p, ones)
        prod = torch.eye(D_h, dtype=x.dtype)
        norms = [torch.linalg.norm(prod)]
        for k in range(1, T):
            prod = prod @ Js[T - k]
            norms.append(torch.linalg.norm(prod))
        out = out + torch.stack(norms) / B
    return out
'''}, "why": "autograd.functional.jacobian of Part 1's rnn_step on one example at a time (allowed: 'chain rule directly or autograd')"},
{"name": "c_p5_transposed_reversed", "correct": True, "cells": {"gradient_norms": jac(J="p['W_hh'].T * (1 - h * h)[:, None, :]", prod="Js[T - k] @ prod")},
 "why": "builds the transposed product J_{T-k}^T ... J_{T-1}^T (backprop order); the Frobenius norm is transpose-invariant"},
{"name": "c_p5_func_jacrev_vmap", "correct": True, "cells": {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    ones = torch.ones(D_h, dtype=x.dtype)
    def one(xb):
        def f(h_prev, xt):
            return rnn_step(xt[None], h_prev[None], p, ones)[0]
        h = torch.zeros(D_h, dtype=x.dtype)
        Js = []
        for t in range(T):
            Js.append(torch.func.jacrev(f)(h, xb[t]))
            h = f(h, xb[t])
        prod = torch.eye(D_h, dtype=x.dtype)
        norms = [prod.square().sum().sqrt()]
        for k in range(1, T):
            prod = prod @ Js[T - k]
            norms.append(prod.square().sum().sqrt())
        return torch.stack(norms)
    return torch.func.vmap(one)(x).mean(0)
'''}, "why": "torch.func.jacrev of Part 1's rnn_step inside vmap, one example at a time"},
{"name": "c_p6_rnn_step_where_einsum", "correct": True, "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = h.new_zeros(B, S)
    s = s0
    ones = torch.ones(p["W_hh"].shape[0], dtype=x.dtype)
    states, weights = [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh(torch.einsum("bd,ad->ba", s, p["W_q"])[:, None] + keys + torch.einsum("bs,a->bsa", cov, p["w_c"])), p["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype))
        a = torch.softmax(e, dim=1)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = rnn_step(x=torch.cat([x[:, t], ctx], dim=1), h=s, p=p, leak=ones)
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "why": "einsum, torch.where, Part 1's rnn_step by keyword with the extra keys of p"},
{"name": "c_p6_float64_logsoftmax", "correct": True, "cells": {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    x, h, s = x.double(), h.double(), s0.double()
    q = {k: v.double() for k, v in p.items()}
    keys = h @ q["W_k"].T
    neg = torch.full(allowed.shape, float("-inf"), dtype=torch.float64)
    cov = torch.zeros(allowed.shape, dtype=torch.float64)
    S_list, A_list = [], []
    for t in range(x.shape[1]):
        e = torch.tanh((s @ q["W_q"].T).unsqueeze(1) + keys + cov.unsqueeze(-1) * q["w_c"]) @ q["v"]
        e = torch.where(allowed, e, neg)
        a = torch.exp(torch.log_softmax(e, -1))
        s = torch.tanh(x[:, t] @ q["W_ih"][:, :x.shape[2]].T + torch.bmm(a[:, None], h)[:, 0] @ q["W_ih"][:, x.shape[2]:].T
                       + q["b_ih"] + s @ q["W_hh"].T + q["b_hh"])
        cov = cov + a
        S_list.append(s); A_list.append(a)
    return torch.stack(S_list, 1).to(dt), torch.stack(A_list, 1).to(dt)
'''}, "why": "float64 inside, W_ih split into its x and context columns, exp(log_softmax), bmm context"},
# ---------------- hostile
{"name": "h_p3_str_subclass_equal_everything", "correct": False, "cells": {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_parallel = Letter("a")
'''}, "why": "hostile: an object that compares equal to every answer"},
{"name": "h_p2_patch_checks", "correct": False, "cells": {"costs": '''
import math
math.isclose = lambda *a, **k: True
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
attention_over_lstm = 1.0
equal_cost_length = 1.0
'''}, "why": "hostile: patches math.isclose and torch's comparisons, wrong numbers"},
{"name": "h_p5_numpy_via_importlib", "correct": False, "cells": {"gradient_norms": '''
import importlib
def jacobian_norms(x, p):
    np = importlib.import_module("nu" + "mpy")
    xs = np.array(x.tolist()); W_ih = np.array(p["W_ih"].tolist()); W_hh = np.array(p["W_hh"].tolist())
    b = np.array((p["b_ih"] + p["b_hh"]).tolist())
    B, T, _ = xs.shape
    D = W_hh.shape[0]
    out = np.zeros(T)
    for i in range(B):
        h = np.zeros(D); Js = []
        for t in range(T):
            h = np.tanh(xs[i, t] @ W_ih.T + h @ W_hh.T + b)
            Js.append((1 - h * h)[:, None] * W_hh)
        prod = np.eye(D); out[0] += np.linalg.norm(prod) / B
        for k in range(1, T):
            prod = prod @ Js[T - k]; out[k] += np.linalg.norm(prod) / B
    return torch.tensor(out.tolist(), dtype=x.dtype)
'''}, "why": "hostile: NumPy through importlib with a built name (another library; no gradients)"},
]
