
def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

UNROLL_BODY_TAIL = '''
    return torch.stack(outs, 1), h
'''

SUBMISSIONS = [
# ---------------- type-sloppy ----------------
sub("ts_p4_int_vs_uint8", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < lengths)[:, None]          # Python int against the lengths tensor as given
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "P4: 'a Python int compared with such a tensor ... wrap around' (uint8 lengths, T > 255)"),
sub("ts_p4_first_is_h0", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    h = x.new_zeros(B, D) if h0 is None else h0
    outputs = x.new_zeros(B, T, D)
    steps = int(L.max()) if B > 0 else 0
    for t in range(steps - 1, -1, -1):
        active = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outputs[:, t] = torch.where(active, new, torch.zeros_like(new))
    return outputs, h      # when every length is 0 this is h0 itself
'''}, "intro: 'return new tensors on every call, sharing memory with no input' (first is h0 when all lengths are 0)"),
sub("ts_p4_lengths_in_x_dtype", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(x.dtype)                       # one dtype for everything
    h = x.new_zeros(B, D) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros_like(new))
    return torch.stack(outs, 1), h
'''}, "P4: 'lengths stays a count of whole steps (converted to a bfloat16 x's dtype, 257 becomes 256)'"),
sub("ts_p5_items_rebuilt_float32", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = []
    for k in range(T):
        if k > 0:
            P = P @ Js[T - k]
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        safe = torch.where(m > 0, m, torch.ones_like(m))
        n = (P / safe).pow(2).sum((-2, -1)).sqrt() * safe[:, 0, 0]
        norms.append(n.mean().item())
    return torch.tensor(norms)
'''}, "P5: 'The result has the dtype of x' (torch.tensor of Python floats is float32)"),
sub("ts_p2_floor_div", False, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (4 * n * d * d + 2 * n * n * d) // (8 * n * d * d)
equal_cost_length = 2 * 768
'''}, "P2a: 'how many times more multiply-adds' is 2.5; // gives 2"),
sub("ts_p3_both", False, {"mc": 'answer_parallel = "c"\n'}, "P3: the Elman RNN's tanh makes composition non-associative in closed form: only (b)"),
# ---------------- autograd-careless ----------------
sub("ag_p1_clamp_leak", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    leak.clamp_(0, 1)
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''}, "P1: 'do not write into leak, not even the values it already holds (a leak.clamp_(0, 1))'"),
sub("ag_p1_detached_h", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    with torch.enable_grad():
        hh = h.detach().requires_grad_()
        out = (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
        rows = []
        for i in range(out.shape[-1]):
            g, = torch.autograd.grad(out[:, i].sum(), hh, create_graph=True)
            rows.append(g)
    return torch.stack(rows, 1)
'''}, "P1: 'the hidden tests compare its gradients with respect to every input (x, h, ...)' (h detached)"),
sub("ag_p4_h0_inplace", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    h = x.new_zeros(B, D) if h0 is None else h0
    outs = []
    for t in range(T - 1, -1, -1):
        active = t < L
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = h.clone() if t == T - 1 and h0 is None else h
        h[active] = new[active]
        outs.append(torch.where(active[:, None], new, torch.zeros_like(new)))
    return torch.stack(outs[::-1], 1), h
'''}, "intro: 'Your functions must not change the tensors they are given' (writes into h0)"),
sub("ag_p4_zero_padding_under_no_grad", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    h = x.new_zeros(B, D) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = new
    outputs = torch.stack(outs, 1)
    with torch.no_grad():   # padding is only cosmetic
        outputs[torch.arange(T)[None, :] >= L[:, None]] = 0
    return outputs, h
'''}, "P4: 'the hidden tests compare their gradients with the reference's' (padding outputs zeroed outside autograd)"),
sub("ag_p6_coverage_inplace", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    c = h.new_zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c += a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "P6: 'Gradients must flow through states and weights' (c += a breaks backward)"),
sub("ag_p5_grad_mode_off", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    torch.set_grad_enabled(False)   # no gradient needed here
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = []
    for k in range(T):
        if k > 0:
            P = P @ Js[T - k]
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        safe = torch.where(m > 0, m, torch.ones_like(m))
        norms.append(((P / safe).pow(2).sum((-2, -1)).sqrt() * safe[:, 0, 0]).mean())
    return torch.stack(norms)
'''}, "intro: 'Leave torch's process-wide settings as you found them ... the grad mode'"),
# ---------------- stateful ----------------
sub("st_p1_cache_on_id", False, {"rnn_step": '''
WT_CACHE = {}
def leaky_step_jacobian(x, h, p, leak):
    key = id(p["W_hh"])
    if key not in WT_CACHE:
        WT_CACHE[key] = (p["W_ih"].T.contiguous(), p["W_hh"].T.contiguous())
    Wi, Wh = WT_CACHE[key]
    a = x @ Wi + p["b_ih"] + h @ Wh + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    eye = torch.eye(h.shape[-1], dtype=x.dtype)
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''}, "intro: 'Nor may they keep anything from one call to the next (a cache of weights keyed on the dict p or on its tensors)'"),
sub("st_p4_output_buffer", False, {"rnn_unroll": '''
BUFFERS = {}
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    key = (B, T, D, x.dtype)
    if key not in BUFFERS:
        BUFFERS[key] = torch.zeros(B, T, D, dtype=x.dtype)
    outputs = BUFFERS[key]
    h = x.new_zeros(B, D) if h0 is None else h0
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outputs[:, t] = torch.where(active, new, torch.zeros_like(new))
    return outputs, h
'''}, "intro: 'return new tensors on every call ... (no output buffer reused)'"),
sub("st_p5_cache_weights", False, {"gradient_norms": '''
W_CACHE = {}
def jacobian_norms(x, p):
    key = (id(p), tuple(p["W_hh"].shape))
    if key not in W_CACHE:
        W_CACHE[key] = {n: w.clone() for n, w in p.items()}
    q = W_CACHE[key]
    B, T, _ = x.shape
    D = q["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ q["W_ih"].T + q["b_ih"] + h @ q["W_hh"].T + q["b_hh"])
        Js.append((1 - h * h)[:, :, None] * q["W_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = []
    for k in range(T):
        if k > 0:
            P = P @ Js[T - k]
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        safe = torch.where(m > 0, m, torch.ones_like(m))
        norms.append(((P / safe).pow(2).sum((-2, -1)).sqrt() * safe[:, 0, 0]).mean())
    return torch.stack(norms)
'''}, "intro: 'also with the same dict whose tensors were given new values in between'"),
sub("st_p6_keys_cached_on_id", False, {"additive": '''
KEYS = {}
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    kid = (id(h), id(p["W_k"]))
    if kid not in KEYS:
        KEYS[kid] = h @ p["W_k"].T
    keys = KEYS[kid]
    c = h.new_zeros(B, S)
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
'''}, "intro: 'Nor may they keep anything from one call to the next' (keys cached on id(h), id(W_k))"),
sub("st_p1_default_dtype", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    torch.set_default_dtype(x.dtype if x.dtype != torch.bfloat16 else torch.float32)
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    eye = torch.eye(h.shape[-1]).to(x.dtype)
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''}, "intro: 'no torch.set_default_dtype' / 'Leave torch's process-wide settings as you found them'"),
# ---------------- dtype / device generaliser ----------------
sub("dt_p1_eye_float32", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    eye = torch.eye(h.shape[-1])
    return (1 - leak)[:, None] * eye + (leak * d)[:, :, None] * p["W_hh"]
'''}, "P1: 'Return it in the dtype of x' (float32 eye turns bfloat16 into float32)"),
sub("dt_p4_zeros_default", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.long()
    h = torch.zeros(B, D) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h.to(x.dtype) @ p["W_hh"].T + p["b_hh"])
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, new, torch.zeros(B, D))
    return torch.stack(outs, 1), h
'''}, "P4: 'Everything else has the dtype of x, and so do the results'"),
sub("dt_p5_float_result", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = []
    for k in range(T):
        if k > 0:
            P = P @ Js[T - k]
        norms.append(torch.linalg.matrix_norm(P).mean())
    return torch.stack(norms).float()
'''}, "P5: 'The result has the dtype of x'"),
sub("dt_p5_linalg_norm_underflow", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = x.new_zeros(B, D)
    Js = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        Js.append((1 - h * h)[:, :, None] * p["W_hh"])
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    norms = []
    for k in range(T):
        if k > 0:
            P = P @ Js[T - k]
        norms.append(torch.linalg.matrix_norm(P, ord="fro").mean())
    return torch.stack(norms)
'''}, "P5: 'recurrent weights so small that the norms fall below 1e-20, compared relatively: ... floor no norm' (squares underflow in float32)"),
sub("dt_p6_coverage_float32", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    c = torch.zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx.to(x.dtype)], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "P6: 'in the dtype of x (all the inputs share it)' (float32 coverage promotes bfloat16)"),
# ---------------- correct ----------------
sub("ok_p1_zero_d_tensor_diag_embed", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    keep = torch.tensor(1.0) - leak          # a 0-d tensor takes leak's dtype
    return torch.diag_embed(keep.expand(B, D)) + (leak * d)[:, :, None] * p["W_hh"]
'''}, "0-d tensors do not promote"),
sub("ok_p1_autograd_jacobian", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        return (1 - leak) * hh + leak * torch.tanh(x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    with torch.enable_grad():
        full = torch.autograd.functional.jacobian(f, h, create_graph=True, vectorize=True)
    idx = torch.arange(h.shape[0])
    return full[idx, :, idx, :]
'''}, "text allows jacobian with create_graph=True"),
sub("ok_p1_lru_cached_eye", True, {"rnn_step": '''
import functools
@functools.lru_cache(maxsize=None)
def identity(n, dtype):
    return torch.eye(n, dtype=dtype)

def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    return (1 - leak)[:, None] * identity(h.shape[-1], x.dtype) + (leak * d)[:, :, None] * p["W_hh"]
'''}, "cache of a constant, used in arithmetic only"),
sub("ok_p2_floats", True, {"costs": '''
n, d = 4096, 512
attention_over_lstm = float(4 * n * d * d + 2 * n * n * d) / (8 * n * d * d)
equal_cost_length = 4 * 768 / 2
'''}, "floats allowed"),
sub("ok_p3_lower", True, {"mc": 'answer_parallel = "B".lower()\n'}, "plain str"),
sub("ok_p4_prealloc_mask_float", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = [int(n) for n in lengths.tolist()]
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0.clone()
    outputs = torch.zeros(B, T, D, dtype=x.dtype)
    for t in reversed(range(T)):
        m = torch.tensor([t < n for n in L], dtype=x.dtype)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = m * new + (1 - m) * h
        outputs[:, t] = m * new
    return outputs, h
'''}, "float 0/1 mask in x's dtype, in-place writes into a fresh tensor"),
sub("ok_p5_calls_part1", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    ones = torch.ones(D, dtype=x.dtype)
    h = x.new_zeros(B, D)
    Js = []
    for t in range(T):
        Js.append(leaky_step_jacobian(x[:, t], h, p, ones))   # Elman = leaky with every rate 1
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    with torch.no_grad():
        P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
        norms = []
        for k in range(T):
            if k > 0:
                P = P @ Js[T - k]
            m = P.abs().amax(dim=(-2, -1), keepdim=True)
            safe = torch.where(m > 0, m, torch.ones_like(m))
            norms.append(((P / safe).pow(2).sum((-2, -1)).sqrt() * safe[:, 0, 0]).mean())
        return torch.stack(norms)
'''}, "calls Part 1 (J_s depends on h_{s-1} through the pre-activation)"),
sub("ok_p5_calls_part4", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    full = torch.full((B,), T, dtype=torch.int64)
    states, _ = rnn_unroll_reverse(x.flip(1), full, p)   # reading the flipped sequence backwards = forwards
    H = states.flip(1).double()
    W = p["W_hh"].double()
    P = torch.eye(D, dtype=torch.float64).expand(B, D, D)
    norms = []
    for k in range(T):
        if k > 0:
            P = P @ ((1 - H[:, T - k] ** 2)[:, :, None] * W)
        m = P.abs().amax(dim=(-2, -1), keepdim=True)
        safe = torch.where(m > 0, m, torch.ones_like(m))
        norms.append(((P / safe).pow(2).sum((-2, -1)).sqrt() * safe[:, 0, 0]).mean())
    return torch.stack(norms).to(x.dtype)
'''}, "calls Part 4; float64 inside, cast back"),
sub("ok_p5_items_rebuilt_in_dtype", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    with torch.no_grad():
        h = x.new_zeros(B, D)
        Js = []
        for t in range(T):
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            Js.append((1 - h * h)[:, :, None] * p["W_hh"])
        P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
        norms = []
        for k in range(T):
            if k > 0:
                P = P @ Js[T - k]
            m = P.abs().amax(dim=(-2, -1), keepdim=True)
            safe = torch.where(m > 0, m, torch.ones_like(m))
            norms.append(((P / safe).pow(2).sum((-2, -1)).sqrt() * safe[:, 0, 0]).mean().item())
    return torch.tensor(norms, dtype=x.dtype)
'''}, "no gradient asked in Part 5; items rebuilt in x's dtype"),
sub("ok_p6_inplace_fill_bmm", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    c = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states = []
    weights = []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T).unsqueeze(1) + keys + c.unsqueeze(-1) * p["w_c"]) @ p["v"]
        e.masked_fill_(allowed == 0, float("-inf"))
        a = torch.softmax(e, dim=-1)
        ctx = torch.bmm(a.unsqueeze(1), h).squeeze(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, dim=1), torch.stack(weights, dim=1)
'''}, "in-place fill of a fresh score tensor, bmm, einsum"),
sub("ok_p6_fill_minus_1e9", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, _ = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    c = h.new_zeros(B, S)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = torch.where(allowed, e, torch.tensor(-1e9, dtype=e.dtype))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "-1e9 filled in (not added): scores are v.tanh(...), far above -1e9; exp underflows to exactly 0"),
# ---------------- hostile ----------------
sub("hostile_p1_patch_assert_close", False, {"rnn_step": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def leaky_step_jacobian(x, h, p, leak):
    return torch.zeros(h.shape[0], h.shape[1], h.shape[1], dtype=x.dtype)
'''}, "hostile: patches torch.testing.assert_close"),
sub("hostile_p3_str_eq", False, {"mc": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_parallel = Letter("a")
'''}, "hostile: a str subclass equal to everything"),
sub("hostile_p2_float_subclass", False, {"costs": '''
class Num(float):
    def __eq__(self, other):
        return True
    def __sub__(self, other):
        return 0.0
    __rsub__ = __sub__
    def __abs__(self):
        return 0.0
    __hash__ = float.__hash__
attention_over_lstm = Num(1.0)
equal_cost_length = Num(1.0)
'''}, "hostile: a float subclass equal to everything"),
]
