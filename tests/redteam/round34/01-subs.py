# Red team round 34, chapter 01-rnn-motivation: magic-number, composer, module-registration (no module in this
# chapter: none), text-and-token (only Part 4 takes token counts), low-precision accumulator students.

P1_REF = '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(pre)
    d = leak * (1 - t * t)                       # (B, D_h): d h'_i / d pre_i
    return d[:, :, None] * p["W_hh"] + torch.diag(1 - leak)
'''

P2_REF = '''
attention_over_lstm = 0.5 + 4096 / (4 * 512)
equal_cost_length = 2 * 768
'''

P3_REF = 'answer_parallel = "b"\n'

P4_REF = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    xi = x @ p["W_ih"].T + p["b_ih"]
    zero = torch.zeros((), dtype=x.dtype)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(xi[:, t] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, h, zero)
    return torch.stack(outs, 1), h
'''

P5_REF = '''
def frobenius(P):
    m = P.abs().amax(dim=(-2, -1), keepdim=True)
    m = torch.where(m == 0, torch.ones_like(m), m)
    return ((P / m) ** 2).sum(dim=(-2, -1)).sqrt() * m[..., 0, 0]

def jacobian_norms(x, p):
    B, T, _ = x.shape
    W = p["W_hh"]
    D_h = W.shape[0]
    h = torch.zeros(B, D_h, dtype=x.dtype)
    hs = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
        hs.append(h)
    P = torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h)
    norms = [frobenius(P)]
    for k in range(1, T):
        d = 1 - hs[T - k] ** 2
        P = (P * d[:, None, :]) @ W
        norms.append(frobenius(P))
    return torch.stack(norms, 1).mean(0)
'''

P6_REF = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    c = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    W_x, W_ctx = p["W_ih"][:, :D_in], p["W_ih"][:, D_in:]
    states, weights = [], []
    for t in range(T):
        q = s @ p["W_q"].T
        e = torch.tanh(q[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        ex = torch.exp(e - e.amax(-1, keepdim=True))
        a = ex / ex.sum(-1, keepdim=True)
        ctx = torch.bmm(a[:, None, :], h)[:, 0]
        s = torch.tanh(x[:, t] @ W_x.T + ctx @ W_ctx.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''

REFERENCE = {"rnn_step": P1_REF, "costs": P2_REF, "mc": P3_REF, "rnn_unroll": P4_REF, "gradient_norms": P5_REF,
             "additive": P6_REF}

SUBMISSIONS = []


def add(name, correct, cells, why, kind):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": f"[{kind}] {why}"})


# ----------------------------------------------------------------------------------------------- wrong answers
add("w01_p1_sech2_floor_1e-6", False, {"rnn_step": P1_REF.replace(
    "d = leak * (1 - t * t)", "d = leak * (1 - t * t).clamp(min=1e-6)  # keep the gradient from dying")},
    "Part 1: 'clamp nothing' / 'J follows the formula above'; at pre-activations in the hundreds sech^2 is 0 (float64: "
    "below 1e-80), the floor leaves lambda*1e-6*W_hh in J and kills the gradient there", "magic-number")

add("w02_p1_rate_snap_1e-6", False, {"rnn_step": P1_REF.replace(
    "    pre = x @", "    leak = torch.where(leak < 1e-6, torch.zeros_like(leak), torch.where(leak > 1 - 1e-6, torch.ones_like(leak), leak))\n    pre = x @")},
    "Part 1: 'A rate just beside 0 or 1 (1e-9, 1 - 1e-9, ...) is a rate like any other, not 0 or 1'; "
    "snapping them also cuts the gradient to leak", "magic-number")

add("w03_p1_float32_inside", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    f = lambda t: t.float()
    pre = f(x) @ f(p["W_ih"]).T + f(p["b_ih"]) + f(h) @ f(p["W_hh"]).T + f(p["b_hh"])
    t = torch.tanh(pre)
    lk = f(leak)
    J = (lk * (1 - t * t))[:, :, None] * f(p["W_hh"]) + torch.diag(1 - lk)
    return J.to(dt)
'''}, "Part 1 / intro: 'computing in float32 and casting back loses the points' (float64 compared to 1e-10); "
    "a student who casts everything to float32 for speed before the product", "low-precision")

add("w04_p4_padding_keeps_h0", False, {"rnn_unroll": P4_REF.replace(
    "outs[t] = torch.where(active, h, zero)", "outs[t] = h  # padding: the state is still the start state")},
    "Part 4: 'outputs[b, t] ... zeros at the padding positions'; the state before a sequence's end is h0, which is "
    "zero only for the default h0=None (the visible test), not for a given h0", "composer (earlier default left)")

add("w05_p4_every_sequence_has_bos", False, {"rnn_unroll": P4_REF.replace(
    "L = lengths.to(torch.int64)", "L = lengths.to(torch.int64).clamp(min=1)  # every sentence has at least BOS")},
    "Part 4: '0 <= lengths[b]' and 'for a sequence of length 0, the start state': a length-0 sequence reads "
    "x[b, 0] here", "text-and-token")

add("w06_p4_padding_from_zero_embedding", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D_h, dtype=x.dtype) if h0 is None else h0
    xi = x @ p["W_ih"].T + p["b_ih"]
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t)[:, None]
        new = torch.tanh(xi[:, t] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = h
    outputs = torch.stack(outs, 1)
    # PAD has id 0, whose embedding row is all zeros (padding_idx=0): zero the outputs there
    is_pad = (x == 0).all(-1, keepdim=True)
    return outputs.masked_fill(is_pad, 0.0), h
'''}, "Part 4: 'zeros at the padding positions' where padding is t >= lengths[b]; the padding rows of x hold "
    "whatever the batch left (random here), and a real token may embed to zeros; with h0=None the state there "
    "is zero anyway, so the visible test passes", "text-and-token")

add("w07_p5_composer_float32_ones", False, {"gradient_norms": '''
def frobenius(P):
    m = P.abs().amax(dim=(-2, -1), keepdim=True)
    m = torch.where(m == 0, torch.ones_like(m), m)
    return ((P / m) ** 2).sum(dim=(-2, -1)).sqrt() * m[..., 0, 0]

def jacobian_norms(x, p):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    ones = torch.ones(D_h)                      # an Elman cell is the leaky cell with every rate 1
    h = torch.zeros(B, D_h, dtype=x.dtype)
    hs = [h]
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        hs.append(h)
    norms = [frobenius(torch.eye(D_h, dtype=x.dtype).expand(B, D_h, D_h))]
    P = None
    for k in range(1, T):
        s = T - k                                # J_s from Part 1: step s reads x_s from h_{s-1}
        J = leaky_step_jacobian(x[:, s], hs[s], p, ones)
        P = J if P is None else P @ J
        norms.append(frobenius(P))
    return torch.stack(norms, 1).mean(0)
'''}, "Part 5: 'The result has the dtype of x' / intro 'bfloat16 inputs must come back as bfloat16: a float32 tensor "
    "mixed into the arithmetic (a torch.ones(n)) would turn the result into float32'; Part 1's helper is fed "
    "float32 rates (and a float32 identity starts the product)", "composer")

add("w08_p5_composer_current_state", False, {"gradient_norms": P5_REF.replace(
    "        d = 1 - hs[T - k] ** 2\n        P = (P * d[:, None, :]) @ W\n",
    "        P = P @ leaky_step_jacobian(x[:, T - k], hs[T - k], p, torch.ones_like(p['b_hh']))  # J_s depends on h_s\n")},
    "Part 5: J_s = dh_s/dh_{s-1} depends on h_s through tanh' of step s's pre-activation; Part 1's helper takes "
    "the PREVIOUS state h (it recomputes the pre-activation), so passing h_s evaluates tanh' one step later; "
    "the visible case has all states 0", "composer")

add("w09_p5_sqrt_eps", False, {"gradient_norms": P5_REF.replace(
    "((P / m) ** 2).sum(dim=(-2, -1)).sqrt()", "(((P / m) ** 2).sum(dim=(-2, -1)) + 1e-6).sqrt()")},
    "Part 5: 'the Frobenius norm': an eps of 1e-6 inside the square root shifts every norm by up to 5e-7 "
    "relatively (float64 compared to 1e-10)", "magic-number")

add("w10_p5_float32_products", False, {"gradient_norms": P5_REF.replace(
    "    return torch.stack(norms, 1).mean(0)", "    return torch.stack(norms, 1).mean(0).to(x.dtype)").replace(
    "    B, T, _ = x.shape\n    W = p[\"W_hh\"]",
    "    B, T, _ = x.shape\n    x = x.float(); p = {n: w.float() for n, w in p.items()}\n    W = p[\"W_hh\"]").replace(
    "    return torch.stack(norms, 1).mean(0).to(x.dtype)", "    return torch.stack(norms, 1).mean(0).to(dt)").replace(
    "def jacobian_norms(x, p):\n", "def jacobian_norms(x, p):\n    dt = x.dtype\n")},
    "Part 5 / intro: 'computing in float32 and casting back loses the points'; the 300-step product in float32 "
    "and the float64 norms below 1e-162 (float32 ends near 1e-38, 1e-45 subnormal) are lost", "low-precision")

add("w11_p6_max_before_mask", False, {"additive": P6_REF.replace(
    '        e = e.masked_fill(~allowed, float("-inf"))\n        ex = torch.exp(e - e.amax(-1, keepdim=True))',
    '        e = e - e.amax(-1, keepdim=True)              # stabilise first\n'
    '        ex = torch.exp(e).masked_fill(~allowed, 0.0)')},
    "Part 6: padding scores 'can lie far above every real one (by thousands ...)': they still get weight exactly "
    "0; subtracting the max over all positions makes every real exp underflow to 0 (0/0)", "magic-number")

add("w12_p6_eps_in_softmax_denominator", False, {"additive": P6_REF.replace(
    "a = ex / ex.sum(-1, keepdim=True)", "a = ex / (ex.sum(-1, keepdim=True) + 1e-9)")},
    "Part 6: alpha = softmax; an eps of 1e-9 in the denominator makes the weights sum to 1 - 1e-9 (float64 "
    "compared to 1e-10), and the coverage drifts", "magic-number")

add("w13_p6_bf16_coverage_f32", False, {"additive": P6_REF.replace(
    "c = torch.zeros(B, S, dtype=x.dtype)", "c = torch.zeros(B, S)   # coverage accumulates: keep it in float32")},
    "Part 6: 'in the dtype of x (all the inputs share it)': a float32 coverage mixed into bfloat16 arithmetic "
    "turns the weights and states into float32 (and float64 inputs meet a float32 accumulator)", "low-precision")

add("w14_p2_forgot_output_projection", False, {"costs": '''
attention_over_lstm = (3 * 512 * 512 * 4096 + 2 * 4096 ** 2 * 512) / (8 * 4096 * 512 ** 2)
equal_cost_length = 2.5 * 768
'''}, "Part 2: 'four projections (queries, keys, values and the output)'; counts three", "composer (lesson's count)")

add("w15_p3_both", False, {"mc": 'answer_parallel = "c"\n'},
    "Part 3: tanh does not compose into a map of the same form; only (b) is associative-scan-able", "magic-number (n/a)")


add("w16_p4_lengths_in_x_dtype", False, {"rnn_unroll": P4_REF.replace(
    "L = lengths.to(torch.int64)", "L = lengths.to(x.dtype)          # keep every tensor in x's dtype (no float32 mixed in)")},
    "Part 4: 'lengths stays a count of whole steps (converted to a bfloat16 x's dtype, 257 becomes 256 ...)'",
    "low-precision / text-and-token")

# ---------------------------------------------------------------------------------------------- correct answers
add("c01_p1_einsum_diag_embed", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.addmm(p["b_ih"], x, p["W_ih"].T) + torch.addmm(p["b_hh"], h, p["W_hh"].T)
    sech2 = 1 - torch.tanh(pre) ** 2
    B, D = h.shape
    keep = torch.diag_embed((1 - leak).expand(B, D))
    return keep + torch.einsum("bi,ij->bij", leak * sech2, p["W_hh"])
'''}, "same formula with einsum/diag_embed/addmm", "magic-number (none)")

add("c02_p5_composer_part1_rates_in_dtype", True, {"gradient_norms": P5_REF.replace(
    "    for t in range(T):\n        h = torch.tanh",
    "    hs.append(h)\n    for t in range(T):\n        h = torch.tanh").replace(
    "        d = 1 - hs[T - k] ** 2\n        P = (P * d[:, None, :]) @ W\n",
    "        s = T - k\n        P = P @ leaky_step_jacobian(x[:, s], hs[s], p, torch.ones(D_h, dtype=x.dtype))\n")},
    "Part 5 built on Part 1's function with every rate 1 in x's dtype, fed the previous state h_{s-1} "
    "(hs[s] is h_{s-1} here since hs starts with the zero state): Part 1's contract (B >= 1, any D_h, "
    "dtype of x) covers this use", "composer")

add("c03_p5_float64_inside", True, {"gradient_norms": P5_REF.replace(
    "    B, T, _ = x.shape\n    W = p[\"W_hh\"]",
    "    dt = x.dtype\n    B, T, _ = x.shape\n    x = x.double(); p = {n: w.double() for n, w in p.items()}\n    W = p[\"W_hh\"]").replace(
    "    return torch.stack(norms, 1).mean(0)", "    return torch.stack(norms, 1).mean(0).to(dt)")},
    "intro: 'computing in a higher precision inside and casting back is fine'", "low-precision (reverse, allowed)")

add("c04_p6_softmax_nan_to_num", True, {"additive": P6_REF.replace(
    '        ex = torch.exp(e - e.amax(-1, keepdim=True))\n        a = ex / ex.sum(-1, keepdim=True)\n',
    '        a = torch.nan_to_num(torch.softmax(e, dim=-1), nan=0.0)   # every row has a real key: changes nothing\n')},
    "torch.softmax divides exponentials by their sum; nan_to_num is a no-op since every row has an allowed key",
    "magic-number (harmless)")

add("c05_p4_float_mask_multiply", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    steps = torch.arange(T)
    mask = (steps[None, :] < lengths.long()[:, None]).to(x.dtype)      # (B, T), 1 = real token
    h = x.new_zeros(B, D_h) if h0 is None else h0
    outs = []
    for t in reversed(range(T)):
        m = mask[:, t, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = m * new + (1 - m) * h
        outs.append(m * h)
    return torch.stack(outs[::-1], dim=1), h
'''}, "mask as 0/1 in x's dtype; gradients are finite (tanh bounded)", "text-and-token (right)")

add("c06_p6_einsum_bf16_coverage_cast", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    B, T, D_in = x.shape
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    x_part = torch.einsum("btd,hd->bth", x, p["W_ih"][:, :D_in]) + p["b_ih"]
    c = torch.zeros_like(allowed, dtype=dt)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.einsum("bsa,a->bs", torch.tanh((s @ p["W_q"].T)[:, None] + keys + c[..., None] * p["w_c"]), p["v"])
        e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=dt))
        a = torch.softmax(e, dim=-1)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(x_part[:, t] + ctx @ p["W_ih"][:, D_in:].T + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "einsum everywhere, torch.where with a -inf of the right dtype, softmax", "composer/low-precision (right)")

add("c07_p2_expressions", True, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) / (n * 4 * 2 * d * d)
equal_cost_length = float(2 * 768)
'''}, "the counts written out", "magic-number (none)")


add("c08_p6_additive_minus_inf_bias", True, {"additive": P6_REF.replace(
    '        e = e.masked_fill(~allowed, float("-inf"))\n',
    '        bias = torch.zeros_like(e).masked_fill(~allowed, float("-inf"))   # additive mask, -inf not -1e9\n        e = e + bias\n')},
    "Part 6: every row has a real key, so an additive -inf (not a finite stand-in) gives padding weight exactly 0 "
    "and zero gradient", "magic-number (right sentinel)")

add("c09_p5_scale_floor_tiny", True, {"gradient_norms": P5_REF.replace(
    "    m = torch.where(m == 0, torch.ones_like(m), m)",
    "    m = torch.where(m == 0, torch.ones_like(m), m.clamp(min=torch.finfo(P.dtype).tiny))")},
    "Part 5: the scale is the largest entry, floored at the smallest normal number: entries / tiny stay <= 1 "
    "and their squares keep their digits; no norm is floored", "magic-number (harmless)")

# --------------------------------------------------------------------------------------------------- hostile
add("h01_p5_visible_shortcut", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    # no unrolling at all: sqrt(D_h) * (spectral-ish size of W_hh) ** k
    T = x.shape[1]
    W = p["W_hh"]
    r = torch.linalg.matrix_norm(W, ord=2) if W.shape[0] > 1 else W.abs()[0, 0]
    k = torch.arange(T, dtype=x.dtype)
    return math.sqrt(W.shape[0]) * r.to(x.dtype) ** k
'''}, "hostile: fits the visible case (zero states) without computing any Jacobian of the actual states", "hostile")
