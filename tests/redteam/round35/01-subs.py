import re as _re
# the helper's own correct answers, used as the starting point of some submissions
BASE = {}
BASE["rnn_step"] = '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    y = torch.tanh(a)
    d = leak * (1 - y * y)                       # (B, D_h)
    J = d[:, :, None] * p["W_hh"][None, :, :]    # (B, D_h, D_h)
    eye = torch.diag_embed((1 - leak).expand(x.shape[0], -1))
    return J + eye
'''
BASE["costs"] = '''
attention_over_lstm = (4 * 4096 * 512**2 + 2 * 4096**2 * 512) / (8 * 4096 * 512**2)
equal_cost_length = 2 * 768
'''
BASE["mc"] = '''
answer_parallel = "b"
'''
BASE["rnn_unroll"] = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype, device=x.device) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, h, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, dim=1), h
'''
BASE["gradient_norms"] = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    D_h = W.shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [torch.full((), math.sqrt(D_h), dtype=x.dtype)]
    for k in range(1, T):
        s = states[T - k]
        J = (1 - s * s)[:, :, None] * W
        P = P @ J
        m = P.abs().amax(dim=(-2, -1))
        m1 = torch.where(m > 0, m, torch.ones((), dtype=x.dtype))
        n = torch.linalg.matrix_norm(P / m1[:, None, None]) * m1
        norms.append(n.mean())
    return torch.stack(norms)
'''
BASE["additive"] = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T                       # (B, S, A)
    c = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        pre = (s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]
        e = torch.tanh(pre) @ p["v"]            # (B, S)
        e = e.masked_fill(~allowed, float("-inf"))
        alpha = torch.softmax(e, dim=-1)
        context = (alpha[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], context], dim=-1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + alpha
        states.append(s)
        weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''
B = BASE


def sub(src, old, new, count=1):
    assert old in src, (old, src)
    return src.replace(old, new, count)

S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- wrong: rnn_step ----------------
add("w01-constructor-eye-float32", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    y = torch.tanh(a)
    d = leak * (1 - y * y)
    eye = torch.eye(h.shape[1]) * (1 - leak)      # float32 identity
    return d[:, :, None] * p["W_hh"] + eye
'''}, "constructor: torch.eye without dtype; bf16 inputs come back float32 ('Return it in the dtype of x')")
add("w02-exception-identity-shortcut", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    if bool((leak == 0).all()):
        return torch.eye(D, dtype=x.dtype).expand(B, D, D).clone()
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    y = torch.tanh(a)
    return (leak * (1 - y * y))[:, :, None] * p["W_hh"] + torch.diag_embed((1 - leak).expand(B, -1))
'''}, "exception path: early return for all-zero rates has no gradient ('a shortcut that returns a constant identity there has the right values but no gradient')")
add("w03-exception-assert-contiguous", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    assert x.is_contiguous() and h.is_contiguous(), "expects contiguous batches"
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    y = torch.tanh(a)
    return (leak * (1 - y * y))[:, :, None] * p["W_hh"] + torch.diag_embed((1 - leak).expand(x.shape[0], -1))
'''}, "exception path: asserts a precondition the text denies ('The tensors you are given need not be contiguous')")

# ---------------- wrong: costs / mc ----------------
add("w04-loop-search-off-by-one", False, {"costs": '''
def att(n, d): return 4 * n * d * d + 2 * n * n * d
def lstm(n, d): return n * 4 * 2 * d * d
attention_over_lstm = att(4096, 512) / lstm(4096, 512)
n = 1
while att(n, 768) <= lstm(n, 768):
    n += 1
equal_cost_length = n
'''}, "loop writer: search loop with <= stops one past the equal length (1537, not 1536)")
add("w05-mc-wrong", False, {"mc": 'answer_parallel = "c"\n'}, "Elman tanh recurrence is not associative; (b) is right")

# ---------------- wrong: rnn_unroll ----------------
add("w06-loop-bound-from-max", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    zero = torch.zeros(B, D_h, dtype=x.dtype)
    outs = [zero] * T
    for t in range(int(L.max()) - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, h, zero)
    return torch.stack(outs, dim=1), h
'''}, "loop writer: bound from lengths.max() fails on an empty batch ('an empty batch, B = 0, too, where lengths.max() has no value')")
add("w07-exception-empty-batch-float32", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    if B == 0:
        return torch.zeros(0, T, D_h), torch.zeros(0, D_h)
    L = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, h, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, dim=1), h
'''}, "exception path + constructor: empty batch returns float32 ('Everything else has the dtype of x, and so do the results'); also ignores h0's dtype")
add("w08-constructor-float32-buffer", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outputs = torch.zeros(B, T, D_h)
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outputs[:, t] = torch.where(active, h, torch.zeros((), dtype=x.dtype))
    return outputs, h
'''}, "constructor: float32 output buffer; float64/bf16 outputs rounded/wrong dtype ('so do the results')")
add("w09-int-compare-python-int", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (lengths > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, h, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, dim=1), h
'''}, "loop writer: Python int step compared with uint8/int8 lengths wraps ('a Python int compared with such a tensor, wrap around')")
add("w10-mask-float-blend", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        act = (L > t).float()[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = act * new + (1 - act) * h
        outs[t] = act * h
    return torch.stack(outs, dim=1), h
'''}, "mask polarity/float mask: mask.float() blend turns bf16 into float32 (intro: 'a mask.float() would turn the result into float32')")

# ---------------- wrong: gradient_norms ----------------
add("w11-exception-T1-float32", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    D_h = W.shape[0]
    if T == 1:
        return torch.tensor([math.sqrt(D_h)])
    h = torch.zeros(B, D_h, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [torch.full((), math.sqrt(D_h), dtype=x.dtype)]
    for k in range(1, T):
        s = states[T - k]
        P = P @ ((1 - s * s)[:, :, None] * W)
        m = P.abs().amax(dim=(-2, -1))
        m1 = torch.where(m > 0, m, torch.ones((), dtype=x.dtype))
        norms.append((torch.linalg.matrix_norm(P / m1[:, None, None]) * m1).mean())
    return torch.stack(norms)
'''}, "exception path + constructor: T = 1 early return in float32 ('The result has the dtype of x'; a sequence of length 1 is an edge case)")
add("w12-constructor-zeros-buffer", False, {"gradient_norms": sub(sub(B["gradient_norms"],
    'norms = [torch.full((), math.sqrt(D_h), dtype=x.dtype)]', 'norms = torch.zeros(T)\n    norms[0] = math.sqrt(D_h)'),
    'norms.append(n.mean())', 'norms[k] = n.mean()').replace('return torch.stack(norms)', 'return norms')},
    "constructor: float32 result buffer for float64 inputs ('The result has the dtype of x')")
add("w13-python-float-accumulator", False, {"gradient_norms": sub(sub(B["gradient_norms"],
    'norms = [torch.full((), math.sqrt(D_h), dtype=x.dtype)]', 'norms = [math.sqrt(D_h)]'),
    'norms.append(n.mean())', 'norms.append(n.mean().item())').replace('return torch.stack(norms)', 'return torch.tensor(norms)')},
    "loop writer: Python float list then torch.tensor -> float32 ('The result has the dtype of x')")
add("w14-constructor-sqrt-float32", False, {"gradient_norms": sub(B["gradient_norms"],
    'norms = [torch.full((), math.sqrt(D_h), dtype=x.dtype)]', 'norms = [torch.tensor(D_h, dtype=torch.float32).sqrt().to(x.dtype)]')},
    "constructor: sqrt(D_h) taken in float32 then cast; float64 entry 0 off by ~1e-8 relative ('Entry 0 is the norm of the identity')")
add("w15-loop-over-batch-products", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    D_h = W.shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        states.append(h)
    total = torch.zeros(T, dtype=x.dtype)
    for b in range(B):
        P = torch.eye(D_h, dtype=x.dtype)
        col = [torch.full((), math.sqrt(D_h), dtype=x.dtype)]
        for k in range(1, T):
            s = states[T - k][b]
            P = P @ ((1 - s * s)[:, None] * W)
            m = P.abs().max()
            m1 = m if m > 0 else torch.ones((), dtype=x.dtype)
            col.append(torch.linalg.matrix_norm(P / m1) * m1)
        total = total + torch.stack(col)
    return total / B
'''}, "loop writer: one matrix product per example per step ('more than 20 per step is refused'; batch of over a thousand)")

# ---------------- wrong: additive ----------------
add("w16-additive-mask-1e9", False, {"additive": sub(B["additive"],
    'e = e.masked_fill(~allowed, float("-inf"))', 'e = e + (~allowed).to(e.dtype) * -1e9')},
    "mask polarity: additive finite mask where padding scores lie far above ('a finite stand-in ... loses to them')")
add("w17-mask-after-softmax", False, {"additive": sub(sub(B["additive"],
    'e = e.masked_fill(~allowed, float("-inf"))', 'e = e + 0'),
    'alpha = torch.softmax(e, dim=-1)', 'alpha = torch.softmax(e, dim=-1) * allowed\n        alpha = alpha / alpha.sum(-1, keepdim=True)')},
    "mask polarity: masks after the softmax and renormalises; padding scores far above underflow the real ones to 0/0")
add("w18-constructor-coverage-float32", False, {"additive": sub(B["additive"],
    'c = torch.zeros(B, S, dtype=x.dtype)', 'c = torch.zeros(B, S)')},
    "constructor: float32 coverage promotes bf16 inputs to float32 ('in the dtype of x')")
add("w19-tie-lse-exp", False, {"additive": sub(B["additive"],
    'alpha = torch.softmax(e, dim=-1)', 'alpha = torch.exp(e - torch.logsumexp(e, dim=-1, keepdim=True))')},
    "tie: exp(e - logsumexp) gives tied keys weight 1 each at finfo.min ('divide the exponentials by their sum')")
add("c09-manual-softmax-clamped-sum", True, {"additive": sub(B["additive"],
    'alpha = torch.softmax(e, dim=-1)', 'mx = e.max(dim=-1, keepdim=True).values\n        ex = torch.exp(e - mx)\n        alpha = ex / ex.sum(-1, keepdim=True).clamp(min=1e-30)')},
    "manual softmax with max subtracted; the clamp on the sum never acts (every row has an allowed key, so the sum is >= 1)")

# ---------------- correct ----------------
add("c01-loop-over-units", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    y = torch.tanh(a)
    rows = []
    for i in range(D):
        onehot = torch.zeros(D, dtype=x.dtype)
        onehot[i] = 1
        rows.append((1 - leak[i]) * onehot + (leak[i] * (1 - y[:, i:i + 1] ** 2)) * p["W_hh"][i])
    return torch.stack(rows, dim=1)
'''}, "loop over units, each row built with dtype-aware one-hot")
add("c02-costs-loops", True, {"costs": '''
def att(n, d):
    return 4 * n * d * d + 2 * n * n * d
def lstm(n, d):
    total = 0
    for step in range(n):
        for gate in range(4):
            total += 2 * d * d
    return total
attention_over_lstm = att(4096, 512) / lstm(4096, 512)
n = 1
while att(n, 768) < lstm(n, 768):
    n += 1
equal_cost_length = n
'''}, "loop-counted costs, search with <")
add("c03-unroll-arange-masks", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    act = torch.arange(T)[None, :] < lengths[:, None]     # int64 vs any int dtype: promoted to int64
    h = torch.zeros(B, D_h).to(x) if h0 is None else h0
    outs = []
    for t in reversed(range(T)):
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        a = act[:, t, None]
        h = torch.where(a, new, h)
        outs.append(h.masked_fill(~a, 0))
    outs.reverse()
    return torch.stack(outs, dim=1), h
'''}, "constructor-correct: zeros(...).to(x), int64 arange beside uint8 lengths (promotes), masked_fill")
add("c04-unroll-per-sequence-loop", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    outs, firsts = [], []
    for b in range(B):
        L = int(lengths[b])
        h = torch.zeros(D_h, dtype=x.dtype) if h0 is None else h0[b]
        rows = [None] * T
        for t in range(L - 1, -1, -1):
            h = torch.tanh(x[b, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            rows[t] = h
        for t in range(L, T):
            rows[t] = torch.zeros(D_h, dtype=x.dtype)
        outs.append(torch.stack(rows))
        firsts.append(h)
    if B == 0:
        return torch.zeros(0, T, D_h, dtype=x.dtype), torch.zeros(0, D_h, dtype=x.dtype)
    return torch.stack(outs), torch.stack(firsts)
'''}, "loop writer, correct and slow: one sequence at a time (empty batch handled in x's dtype)")
add("c05-norms-float64-vector-norm", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    D_h = W.shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        states.append(h)
    P = torch.eye(D_h, dtype=x.dtype).repeat(B, 1, 1)
    out = torch.empty(T, dtype=x.dtype)
    out[0] = math.sqrt(D_h)
    for k in range(1, T):
        s = states[T - k]
        P = torch.bmm(P, (1 - s * s).unsqueeze(-1) * W)
        flat = P.flatten(1)
        m = flat.abs().amax(dim=1, keepdim=True)
        m = torch.where(m > 0, m, torch.ones_like(m))
        out[k] = (torch.linalg.vector_norm(flat / m, dim=1) * m.squeeze(1)).mean()
    return out
'''}, "constructor-correct: empty(T, dtype) fully written, repeat/bmm, vector_norm")
add("c06-additive-where-loop-context", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = torch.einsum("bsd,ad->bsa", h, p["W_k"])
    c = x.new_zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        pre = torch.einsum("bh,ah->ba", s, p["W_q"])[:, None, :] + keys + c[:, :, None] * p["w_c"]
        e = torch.einsum("bsa,a->bs", torch.tanh(pre), p["v"])
        e = torch.where(allowed, e, torch.full_like(e, float("-inf")))
        alpha = torch.softmax(e, dim=-1)
        context = 0.0
        for j in range(S):
            context = context + alpha[:, j, None] * h[:, j]
        s = torch.tanh(x[:, t] @ p["W_ih"][:, :D_in].T + context @ p["W_ih"][:, D_in:].T + p["b_ih"]
                       + s @ p["W_hh"].T + p["b_hh"])
        c = c + alpha
        states.append(s)
        weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "loop over source positions for the context, torch.where with full_like, split W_ih")
add("c07-additive-float64-inside", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    c = torch.zeros((), dtype=dt).expand(B, S)
    s = s0
    neg = torch.tensor(float("-inf"))          # 0-d: no promotion
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = torch.where(allowed, e, neg)
        alpha = torch.softmax(e, dim=-1)
        context = torch.bmm(alpha[:, None, :], h)[:, 0]
        s = torch.tanh(torch.cat([x[:, t], context], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + alpha
        states.append(s)
        weights.append(alpha)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "constructor-correct: 0-d float32 -inf in torch.where keeps the dtype; bmm context")
add("c08-mc-and-costs-exact", True, {"costs": 'attention_over_lstm = 2.5\nequal_cost_length = 1536.0\n', "mc": "answer_parallel = 'b'\n"},
    "plain numbers")

# ---------------- hostile ----------------
add("h01-float-subclass", False, {"costs": '''
class AnyNumber(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return False
    def __gt__(self, other): return True
    def __le__(self, other): return True
    def __ge__(self, other): return True
    def __sub__(self, other): return AnyNumber(0.0)
    def __rsub__(self, other): return AnyNumber(0.0)
    def __abs__(self): return AnyNumber(0.0)
    __hash__ = float.__hash__
attention_over_lstm = AnyNumber(1.0)
equal_cost_length = AnyNumber(1.0)
'''}, "hostile: float subclass equal to everything")
add("h02-str-subclass", False, {"mc": '''
class AnyLetter(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
answer_parallel = AnyLetter("a")
'''}, "hostile: str subclass equal to any letter")

# ---------------- added before grading a second time (still blind) ----------------
add("w20-tie-finfo-min-fill", False, {"additive": sub(B["additive"],
    'e = e.masked_fill(~allowed, float("-inf"))', 'e = e.masked_fill(~allowed, torch.finfo(e.dtype).min)')},
    "tie: padding filled with finfo.min ties with real scores of exactly finfo.min ('which that value, filled in at the padding, would tie with')")
add("w21-exception-assert-positive-lengths", False, {"rnn_unroll": sub(B["rnn_unroll"],
    'def rnn_unroll_reverse(x, lengths, p, h0=None):\n',
    'def rnn_unroll_reverse(x, lengths, p, h0=None):\n    assert bool((lengths > 0).all()), "every sequence needs a token"\n')},
    "exception path: refuses a sequence of length 0 ('for a sequence of length 0, the start state')")
add("w22-loop-batch-buffer-float32", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    J = torch.empty(B, D, D)
    for b in range(B):
        a = x[b] @ p["W_ih"].T + p["b_ih"] + h[b] @ p["W_hh"].T + p["b_hh"]
        y = torch.tanh(a)
        J[b] = torch.diag(1 - leak) + (leak * (1 - y * y))[:, None] * p["W_hh"]
    return J
'''}, "loop writer + constructor: per-example rows written into a float32 buffer (float64 rounded, bf16 float32)")

SUBMISSIONS = S
