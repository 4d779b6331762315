# Round 31 blind submissions for 01-rnn-motivation.
# Kinds: HB hand-written-backward, SP scale-and-placement, PS Python-scalar, RS return-shape, SB sibling-part.

P1_OK = '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = leak * (1 - torch.tanh(a) ** 2)                    # (B, D_h)
    return torch.diag_embed(1 - leak) + d[:, :, None] * p["W_hh"]
'''

P4_HEAD = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    L = lengths.to(torch.long)
'''

P5_OK = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"].to(torch.float64)
    xs = x.to(torch.float64)
    Wih, bih, bhh = p["W_ih"].to(torch.float64), p["b_ih"].to(torch.float64), p["b_hh"].to(torch.float64)
    D = W.shape[0]
    with torch.no_grad():
        h = xs.new_zeros(B, D)
        states = []
        for t in range(T):
            h = torch.tanh(xs[:, t] @ Wih.T + bih + h @ W.T + bhh)
            states.append(h)
        P = torch.eye(D, dtype=torch.float64).expand(B, D, D).clone()
        logc = xs.new_zeros(B)
        out = [xs.new_full((B,), math.sqrt(D))]
        for k in range(1, T):
            u = 1 - states[T - k] ** 2
            P = (P * u[:, None, :]) @ W
            m = P.abs().amax(dim=(1, 2))
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]
            logc = logc + torch.log(m)
            out.append(torch.linalg.matrix_norm(P) * torch.exp(logc))
        return torch.stack(out, 1).mean(0).to(x.dtype)
'''

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- hand-written-backward student ----------------
add("hb-p4-step-fn-dWhh-from-buffer", False, {"rnn_unroll": '''
class ElmanStep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x_t, h, W_ih, b_ih, W_hh, b_hh):
        y = torch.tanh(x_t @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        ctx.save_for_backward(x_t, W_ih, W_hh, y)
        ctx.h = h            # kept as an attribute: no copy, "cheaper"
        return y

    @staticmethod
    def backward(ctx, g):
        x_t, W_ih, W_hh, y = ctx.saved_tensors
        da = g * (1 - y * y)
        return da @ W_ih, da @ W_hh, da.T @ x_t, da.sum(0), da.T @ ctx.h, da.sum(0)


def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = (h0 if h0 is not None else x.new_zeros(B, D)).clone()   # one state buffer, updated in place
    L = lengths.to(torch.long)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        new = ElmanStep.apply(x[:, t], h, p["W_ih"], p["b_ih"], p["W_hh"], p["b_hh"])
        outs[t] = torch.where(run, new, torch.zeros_like(new))
        h.copy_(torch.where(run, new, h))                        # the saved ctx.h changes with it
    return torch.stack(outs, 1), h.clone()
'''}, "Part 4: 'Gradients must flow through outputs and first ... the hidden tests compare their gradients with the "
      "reference's': the hand-written backward reads ctx.h, the state buffer that the loop overwrites in place, so the "
      "gradient of W_hh uses the state after the step, not before it (the forward is exact).")

add("hb-p6-softmax-fn-no-keepdim", False, {"additive": '''
class MaskedSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, e, allowed):
        e = e.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(e, dim=-1)
        ctx.save_for_backward(w)
        return w

    @staticmethod
    def backward(ctx, g):
        w, = ctx.saved_tensors
        return w * (g - (w * g).sum(-1)), None        # right for a batch of one


def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    hk = h @ p["W_k"].T                     # (B, S, A)
    s = s0
    c = h.new_zeros(h.shape[0], h.shape[1])
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + hk + c[:, :, None] * p["w_c"]) @ p["v"]
        a = MaskedSoftmax.apply(e, allowed)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'the hidden tests compare their gradients with the reference's': the hand-written softmax backward sums "
      "w*g without keepdim, so it is right only for a batch of one (crashes or mixes rows for B > 1).")

add("hb-p1-jac-fn-grads-for-W-and-leak-only", False, {"rnn_step": '''
class LeakyJacobian(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, h, W_ih, b_ih, W_hh, b_hh, leak):
        a = x @ W_ih.T + b_ih + h @ W_hh.T + b_hh
        d = 1 - torch.tanh(a) ** 2
        ctx.save_for_backward(d, W_hh, leak)
        return torch.diag_embed(1 - leak).expand(x.shape[0], -1, -1) + (leak * d)[:, :, None] * W_hh

    @staticmethod
    def backward(ctx, G):
        d, W_hh, leak = ctx.saved_tensors
        # dJ/dW_hh and dJ/dleak; x and h only move d, which is small where it matters: left out
        gW = ((leak * d)[:, :, None] * G).sum(0)
        gl = -torch.diagonal(G, dim1=1, dim2=2).sum(0) + (d * (G * W_hh).sum(-1)).sum(0)
        return None, None, None, None, gW, None, gl


def leaky_step_jacobian(x, h, p, leak):
    with torch.enable_grad():
        return LeakyJacobian.apply(x, h, p["W_ih"], p["b_ih"], p["W_hh"], p["b_hh"], leak)
'''}, "Part 1: 'the hidden tests compare its gradients with respect to every input (x, h, each tensor of p and leak)': "
      "the Function's backward gives gradients for W_hh and leak only.")

add("hb-p1-tanh-fn-once-differentiable", False, {"rnn_step": '''
from torch.autograd.function import once_differentiable

class StableTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        y = torch.tanh(a)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * (1 - y * y)


def leaky_step_jacobian(x, h, p, leak):
    with torch.enable_grad():
        a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
        a_leaf = a.detach().requires_grad_(True)
        y = StableTanh.apply(a_leaf)
        d, = torch.autograd.grad(y.sum(), a_leaf)           # tanh'(a), from the hand-written backward
        d = d + (a - a.detach()) * 0                          # keep a in the graph
        return torch.diag_embed(1 - leak) + (leak * d)[:, :, None] * p["W_hh"]
'''}, "Part 1: 'gradients must flow through J ... compare its gradients with respect to every input': tanh' comes "
      "from a once-differentiable hand-written backward, so J's gradients through tanh' (to x, h, W_ih, biases) are lost; "
      "the detach trick only reconnects a with a zero gradient.")

add("hb-p4-step-fn-bias-not-summed-ok", True, {"rnn_unroll": '''
class ElmanStep(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x_t, h, W_ih, b_ih, W_hh, b_hh):
        y = torch.tanh(x_t @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        ctx.save_for_backward(x_t, h, W_ih, W_hh, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x_t, h, W_ih, W_hh, y = ctx.saved_tensors
        da = g * (1 - y * y)
        # needs_input_grad ignored, and the bias gradients left (B, D_h): autograd sums them to (D_h,)
        return da @ W_ih, da @ W_hh, da.T @ x_t, da, da.T @ h, da


def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    L = lengths.to(torch.long)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        new = ElmanStep.apply(x[:, t], h, p["W_ih"], p["b_ih"], p["W_hh"], p["b_hh"])
        outs[t] = torch.where(run, new, torch.zeros_like(new))
        h = torch.where(run, new, h)
    if T == 0:
        return x.new_zeros(B, 0, D), h.clone()
    return torch.stack(outs, 1), (h + 0)
'''}, "Correct: the hand-written backward is exact; autograd reduces the (B, D_h) bias gradients to the bias shape "
      "and drops gradients of inputs that need none.")

add("hb-p5-no-grad-correct", True, {"gradient_norms": P5_OK},
    "Correct: Part 5 asks for values only ('You may use the chain rule directly or autograd; the tests check the "
    "values'), so computing under torch.no_grad() is allowed.")

add("hb-p6-softmax-fn-keepdim-ok", True, {"additive": '''
class MaskedSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, e, allowed):
        e = e.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(e, dim=-1)
        ctx.save_for_backward(w)
        return w

    @staticmethod
    def backward(ctx, g):
        w, = ctx.saved_tensors
        return w * (g - (w * g).sum(-1, keepdim=True)), torch.zeros_like(w)   # a gradient for the mask: ignored


def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    hk = h @ p["W_k"].T
    s = s0
    c = h.new_zeros(h.shape[0], h.shape[1])
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + hk + c[:, :, None] * p["w_c"]) @ p["v"]
        a = MaskedSoftmax.apply(e, allowed)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Correct: exact softmax backward (masked keys have w = 0 so get 0); the gradient returned for the boolean mask is "
      "dropped by autograd.")

# ---------------- scale-and-placement student ----------------
add("sp-p5-product-reversed", False, {"gradient_norms": P5_OK.replace(
    "P = (P * u[:, None, :]) @ W", "P = u[:, :, None] * (W @ P)")},
    "Part 5: 'dh_{T-1}/dh_{T-1-k} = J_{T-1} J_{T-2} ... J_{T-k}': the new Jacobian is multiplied on the left "
    "(J_{T-k} ... J_{T-1}); with D_h = 1 both orders agree.")

add("sp-p5-jacobian-at-previous-state", False, {"gradient_norms": P5_OK.replace(
    "u = 1 - states[T - k] ** 2", "u = 1 - (states[T - k - 1] if T - k - 1 >= 0 else torch.zeros_like(states[0])) ** 2")},
    "Part 5: 'J_s ... depends on h_s' (the state after reading x_s): tanh' is taken at h_{s-1}; with zero states "
    "(the visible case) both are 1.")

add("sp-p6-scaled-by-sqrt-A", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    A = p["v"].shape[0]
    hk = h @ p["W_k"].T
    s = s0
    c = h.new_zeros(h.shape[0], h.shape[1])
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + hk + c[:, :, None] * p["w_c"]) @ p["v"] / math.sqrt(A)
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'e_{t,j} = v^T tanh(W_q s_{t-1} + W_k h_j + w_c c_{t,j})' has no scale: the score is divided by "
      "sqrt(A) as in scaled dot-product attention (A = 1 in the visible case).")

add("sp-p6-mask-after-exp", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    hk = h @ p["W_k"].T
    s = s0
    c = h.new_zeros(h.shape[0], h.shape[1])
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + hk + c[:, :, None] * p["w_c"]) @ p["v"]
        m = e.masked_fill(~allowed, float("-inf")).amax(-1, keepdim=True)   # max over the real keys
        ex = torch.exp(e - m).masked_fill(~allowed, 0.0)                    # mask after the exp
        a = ex / ex.sum(-1, keepdim=True)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'padding scores can lie far above every real one ... no gradient may become NaN through them': the mask "
      "comes after the exp, so exp overflows at padding scores far above the real max and its backward is 0 * inf = NaN.")

add("sp-p6-query-is-new-state", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    hk = h @ p["W_k"].T
    s = s0
    c = h.new_zeros(h.shape[0], h.shape[1])
    q = s0 @ p["W_q"].T
    states, weights = [], []
    for t in range(T):
        e = torch.tanh(q[:, None, :] + hk + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        q = s0 @ p["W_q"].T            # query projection placed outside the recurrence: stays s_{-1}
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'the query is the decoder's previous state' (W_q s_{t-1}): the query stays s_{-1} at every step; the "
      "visible case has W_q = 0.")

add("sp-p6-exp-div-sum-correct", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    hk = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    s = s0
    c = torch.zeros_like(h[..., 0])
    states, weights = [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh((s @ p["W_q"].T)[:, None, :] + hk + c[:, :, None] * p["w_c"]), p["v"])
        e = torch.where(allowed, e, torch.full_like(e, float("-inf")))      # mask before the exp
        m = e.amax(-1, keepdim=True)
        ex = torch.exp(e - m)
        a = ex / ex.sum(-1, keepdim=True)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Correct: the mask is placed before the exp (torch.where with -inf), exponentials divided by their sum.")

# ---------------- Python-scalar student ----------------
add("ps-p2-floor-division", False, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) // (8 * n * d * d)
d = 768
equal_cost_length = 2 * d
'''}, "Part 2a: 'how many times more multiply-adds': the ratio is 2.5; integer // gives 2.")

add("ps-p2-round-half-even", False, {"costs": '''
ratio = (4 * 4096 * 512 ** 2 + 2 * 4096 ** 2 * 512) / (8 * 4096 * 512 ** 2)
attention_over_lstm = round(ratio, 0)
equal_cost_length = int(2 * 768)
'''}, "Part 2a: the ratio is 2.5; Python's round() (half to even) stores 2.0.")

add("ps-p2-ints-correct", True, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d ** 2 + 2 * n ** 2 * d) / (8 * n * d ** 2)
equal_cost_length = int(4 * 768 ** 2 / (2 * 768))
'''}, "Correct: 2.5 and 1536 ('Numbers may be int or float').")

add("ps-p4-builtin-max-steps", False, {"rnn_unroll": P4_HEAD + '''
    steps = int(max(L)) if B else 0     # builtin max: a Python int
    outs = [x.new_zeros(B, D)] * T
    for t in range(steps - 1, -1, -1):
        run = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outs[t] = torch.where(run, new, torch.zeros_like(new))
        h = torch.where(run, new, h)
    return torch.stack(outs, 1), h + 0 if steps else h.clone()
'''}, "Part 4: the start state for a sequence of length 0 is h0; this one returns h0 .clone() only when every "
      "sequence is empty and h + 0 otherwise - correct - BUT the zero rows of outs are one shared tensor (harmless after "
      "stack). Expected wrong point: none; labelled wrong for `first` aliasing? no: see why2") if False else None

SUBMISSIONS[:] = [s for s in SUBMISSIONS if s]

add("ps-p4-uint8-wrap", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (lengths > t)[:, None]             # Python int against the lengths tensor as given
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outs[t] = torch.where(run, new, torch.zeros_like(new))
        h = torch.where(run, new, h)
    return torch.stack(outs, 1), h.clone()
'''}, "Part 4: 'a Python int compared with such a tensor wraps around': t > 255 compared with uint8 lengths wraps.")

add("ps-p5-torch-tensor-default-dtype", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"].double()
    xs = x.double()
    D = W.shape[0]
    with torch.no_grad():
        h = xs.new_zeros(B, D)
        states = []
        for t in range(T):
            h = torch.tanh(xs[:, t] @ p["W_ih"].double().T + p["b_ih"].double() + h @ W.T + p["b_hh"].double())
            states.append(h)
        P = torch.eye(D, dtype=torch.float64).expand(B, D, D).clone()
        logc = xs.new_zeros(B)
        result = [math.sqrt(D)]
        for k in range(1, T):
            P = (P * (1 - states[T - k] ** 2)[:, None, :]) @ W
            m = P.abs().amax(dim=(1, 2))
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]
            logc = logc + torch.log(m)
            result.append((torch.linalg.matrix_norm(P) * torch.exp(logc)).mean().item())
    return torch.tensor(result)
'''}, "Part 5: 'The result has the dtype of x': torch.tensor(list of Python floats) is float32 whatever x is (float64 "
      "inputs lose their dtype and their digits).")

add("ps-p5-python-floats-correct", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"].double()
    xs = x.double()
    D = W.shape[0]
    with torch.no_grad():
        h = xs.new_zeros(B, D)
        states = []
        for t in range(T):
            h = torch.tanh(xs[:, t] @ p["W_ih"].double().T + p["b_ih"].double() + h @ W.T + p["b_hh"].double())
            states.append(h)
        P = torch.eye(D, dtype=torch.float64).expand(B, D, D).clone()
        logc = xs.new_zeros(B)
        result = [math.sqrt(D)]
        for k in range(1, T):
            P = (P * (1 - states[T - k] ** 2)[:, None, :]) @ W
            m = P.abs().amax(dim=(1, 2))
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]
            logc = logc + torch.log(m)
            result.append(sum((torch.linalg.matrix_norm(P) * torch.exp(logc)).tolist()) / B)   # Python float64 mean
    return torch.tensor(result, dtype=x.dtype)
'''}, "Correct: Python floats (float64) for the batch mean of float64 norms, converted to x's dtype at the end.")

# ---------------- return-shape student ----------------
P4_BODY_OK = P4_HEAD + '''
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outs[t] = torch.where(run, new, torch.zeros_like(new))
        h = torch.where(run, new, h)
    outputs = torch.stack(outs, 1)
'''
add("rs-p4-list-not-tuple", False, {"rnn_unroll": P4_BODY_OK + '''
    return [outputs, h.clone()]
'''}, "Intro: 'a part that returns a pair (a, b) returns a tuple, not a list'.")

add("rs-p4-first-is-view-of-outputs", False, {"rnn_unroll": P4_BODY_OK + '''
    return outputs, outputs[:, 0]          # the state after reading x[b, 0] is stored there already
'''}, "Part 4: 'first ... for a sequence of length 0, the start state': outputs[:, 0] is 0 there, not h0[b]; and "
      "first is a view into outputs.")

add("rs-p6-list-not-tuple", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    hk = h @ p["W_k"].T
    s = s0
    c = h.new_zeros(h.shape[0], h.shape[1])
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + hk + c[:, :, None] * p["w_c"]) @ p["v"]
        a = torch.softmax(e.masked_fill(~allowed, float("-inf")), dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return [torch.stack(states, 1), torch.stack(weights, 1)]
'''}, "Intro: 'a part that returns a pair (a, b) returns a tuple, not a list'.")

add("rs-p4-preallocated-buffer-correct", True, {"rnn_unroll": P4_HEAD + '''
    outputs = x.new_zeros(B, T, D)
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outputs[:, t] = torch.where(run, new, torch.zeros_like(new))
        h = torch.where(run, new, h)
    return (outputs, h.clone())
'''}, "Correct: a fresh zeros buffer filled by index writes (autograd tracks them), returned with a tuple.")

add("rs-p1-bmm-of-diag-correct", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = torch.addmm(p["b_ih"], x, p["W_ih"].T) + torch.addmm(p["b_hh"], h, p["W_hh"].T)
    t = torch.tanh(a)
    D = h.shape[-1]
    eye = torch.eye(D, dtype=x.dtype)
    scale = leak * (1 - t * t)                                # (B, D)
    return torch.diag_embed(scale) @ p["W_hh"] + (1 - leak)[:, None] * eye
'''}, "Correct: diag(leak*tanh') W_hh + diag(1 - leak), (B, D, D), new tensor.")

# ---------------- sibling-part student ----------------
add("sb-p5-p1-at-new-state", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = torch.ones(D, dtype=x.dtype)
    with torch.no_grad():
        h = x.new_zeros(B, D)
        states = []
        for t in range(T):
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            states.append(h)
        P = torch.eye(D, dtype=torch.float64).expand(B, D, D).clone()
        logc = torch.zeros(B, dtype=torch.float64)
        out = [torch.full((B,), math.sqrt(D), dtype=torch.float64)]
        for k in range(1, T):
            s = T - k
            J = leaky_step_jacobian(x[:, s], states[s], p, ones).double()     # J_s "depends on h_s"
            P = P @ J
            m = P.abs().amax(dim=(1, 2))
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]
            logc = logc + torch.log(m)
            out.append(torch.linalg.matrix_norm(P) * torch.exp(logc))
        return torch.stack(out, 1).mean(0).to(x.dtype)
'''}, "Part 5: J_s = dh_s/dh_{s-1}; Part 1's function takes the previous state h and rebuilds the pre-activation from "
      "it, so it must be given h_{s-1}: given h_s it evaluates tanh' at the wrong pre-activation (zero states, visible, agree).")

add("sb-p5-p1-at-previous-state-correct", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = torch.ones(D, dtype=x.dtype)
    with torch.no_grad():
        prev = [x.new_zeros(B, D)]
        for t in range(T - 1):
            prev.append(torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + prev[-1] @ p["W_hh"].T + p["b_hh"]))
        P = torch.eye(D, dtype=torch.float64).expand(B, D, D).clone()
        logc = torch.zeros(B, dtype=torch.float64)
        out = [torch.full((B,), math.sqrt(D), dtype=torch.float64)]
        for k in range(1, T):
            s = T - k
            J = leaky_step_jacobian(x[:, s], prev[s], p, ones).double()    # dh_s/dh_{s-1}, from Part 1
            P = P @ J
            m = P.abs().amax(dim=(1, 2))
            m = torch.where(m > 0, m, torch.ones_like(m))
            P = P / m[:, None, None]
            logc = logc + torch.log(m)
            out.append(torch.linalg.matrix_norm(P) * torch.exp(logc))
        return torch.stack(out, 1).mean(0).to(x.dtype)
'''}, "Correct: calls Part 1 with every rate 1 (the Elman cell) at the state before step s, as the text allows.")

add("sb-p4-inplace-helper-on-h0", False, {"rnn_unroll": '''
def write_state(dst, src):
    dst.copy_(src)          # helper from my training loop: the state buffer is reused between batches
    return dst


def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    L = lengths.to(torch.long)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outs[t] = torch.where(run, new, torch.zeros_like(new))
        h = torch.where(run, new, h)
    start = h0 if h0 is not None else x.new_zeros(B, D)
    return torch.stack(outs, 1), write_state(start, h)
'''}, "Intro: 'Your functions must not change the tensors they are given' and 'return new tensors ... sharing memory "
      "with no input': the reused helper writes the last state into the caller's h0 and returns h0 itself.")

add("sb-p4-lesson-run-rnn-on-flipped-correct", True, {"rnn_unroll": '''
def run_rnn_fwd(step, x, lengths, h0):
    B, T, _ = x.shape
    h = h0
    outputs = []
    for t in range(T):
        h_new = step(x[:, t], h)
        running = (t < lengths)[:, None]
        h_new = torch.where(running, h_new, h)
        outputs.append(h_new * running)
        h = h_new
    return torch.stack(outputs, dim=1), h


def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.long)
    idx = (L[:, None] - 1 - torch.arange(T)[None, :]) % T              # reverse each sequence's own prefix
    xr = torch.gather(x, 1, idx[:, :, None].expand(B, T, x.shape[2]))
    step = lambda xt, h: torch.tanh(xt @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    out_r, first = run_rnn_fwd(step, xr, L, h0 if h0 is not None else x.new_zeros(B, D))
    outputs = torch.gather(out_r, 1, idx[:, :, None].expand(B, T, D))
    real = (torch.arange(T)[None, :] < L[:, None])[:, :, None]
    return torch.where(real, outputs, torch.zeros_like(outputs)), first.clone()
'''}, "Correct: the lesson's run_rnn (copied) over each sequence's reversed prefix, positions mapped back; the "
      "padding slots are zeroed.")

# ---------------- hostile ----------------
add("hostile-p2-float-subclass", False, {"costs": '''
class Anything(float):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = float.__hash__
    def __sub__(self, other):
        return Anything(0.0)
    __rsub__ = __sub__
    def __abs__(self):
        return Anything(0.0)
attention_over_lstm = Anything(1.0)
equal_cost_length = Anything(1.0)
'''}, "Hostile: float subclasses that compare equal to everything.")

add("hostile-p3-str-subclass", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_parallel = Letter("a")
'''}, "Hostile: a str subclass equal to every letter.")
PRELUDE = [P1_OK]

add("rs-p4-first-is-h0-when-nothing-read", False, {"rnn_unroll": P4_HEAD + '''
    outputs = x.new_zeros(B, T, D)
    steps = int(L.max()) if B else 0              # nothing to read past the longest sequence
    for t in range(steps - 1, -1, -1):
        run = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outputs[:, t] = torch.where(run, new, torch.zeros_like(new))
        h = torch.where(run, new, h)
    return outputs, h                             # h is h0 itself when no step ran
'''}, "Intro: 'return new tensors on every call, sharing memory with no input': when every sequence is empty (or "
      "B = 0) no step runs and `first` is the caller's h0 object.")

add("ps-p4-last-index-uint8-wraps", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = h0 if h0 is not None else x.new_zeros(B, D)
    last = lengths - 1                            # index of each sequence's last real token
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        run = (torch.full_like(last, t) <= last)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        outs[t] = torch.where(run, new, torch.zeros_like(new))
        h = torch.where(run, new, h)
    return torch.stack(outs, 1), h.clone()
'''}, "Part 4: 'lengths ... of any integer dtype (uint8 ...: arithmetic in that dtype ... wraps around)': lengths - 1 "
      "of an empty uint8 sequence is 255, so it is read as a full one.")
