# Round 28, chapter 01: five kinds of student (tie-breaker, fallback writer, constant-hardcoder, memoizer, spec-lawyer)
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- tie-breaker
add("tie_p1_where_leak_pos_identity", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    D = h.shape[-1]
    eye = torch.eye(D, dtype=x.dtype)
    J = (1 - leak)[:, None] * eye + (leak[None, :] * d)[:, :, None] * p["W_hh"][None]
    # a unit whose rate is 0 (not > 0) never changes: its row is the identity row, exactly
    frozen = (leak > 0)[None, :, None]
    return torch.where(frozen, J, eye.expand_as(J))
'''}, "Part 1: 'the hidden tests compare its gradients with respect to every input (... and leak) ..., also where every rate is 0 or 1 (a shortcut that returns a constant identity there has the right values but no gradient)': rows with rate exactly 0 are replaced by a constant identity row (threshold `> 0`), so dJ/dleak is lost there.")
add("tie_p4_lengths_minus_one_ge", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    last = lengths - 1          # index of the last real token of each sequence
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        act = (last >= t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(act, new, h)
        outs[t] = torch.where(act, new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, 1), h
'''}, "Part 4: 'lengths is a tensor (B,) of any integer dtype (uint8 ...: arithmetic in that dtype ... wrap around)': `lengths - 1 >= t` in uint8 makes a length-0 sequence's last index 255, so it reads padding.")
add("tie_p6_exp_minus_logsumexp", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, Din = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    c = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
        e = e.masked_fill(~allowed, float("-inf"))
        a = torch.exp(e - torch.logsumexp(e, dim=-1, keepdim=True))
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'At those tied scores exp(e - logsumexp(e)) gives each tied key a weight of 1 ...: divide the exponentials by their sum': tied huge scores get weight 1 each.")

# ---------------------------------------------------------------- fallback writer
add("fallback_p4_first_is_outputs0", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        act = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(act, new, h)
        outs[t] = torch.where(act, new, torch.zeros((), dtype=x.dtype))
    outputs = torch.stack(outs, 1)
    # the last state read is the one after x[b, 0]; an empty sequence has read nothing, so it gives zeros
    return outputs, outputs[:, 0].clone()
'''}, "Part 4: 'first (B, D_h): the state after reading x[b, 0] ... (for a sequence of length 0, the start state)': with h0 given, an empty sequence returns zeros instead of h0[b].")
add("fallback_p4_all_empty_returns_h0", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    if B == 0 or int(L.max()) == 0:   # nothing to read: the start state is the answer
        return x.new_zeros(B, T, D), (h0 if h0 is not None else x.new_zeros(B, D))
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        act = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(act, new, h)
        outs[t] = torch.where(act, new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, 1), h
'''}, "intro: 'return new tensors on every call, sharing memory with no input': when every length is 0 it returns the caller's h0 object itself as `first` (the caller's in-place change of `first` changes h0).")
add("fallback_p5_T1_shortcut", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    if T == 1:   # only the identity: nothing to multiply
        return torch.tensor([math.sqrt(D)])
    h = torch.zeros(B, D, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    def nrm(P):
        m = P.abs().amax(dim=(-2, -1))
        s = torch.where(m > 0, m, torch.ones((), dtype=m.dtype))
        return (s * torch.linalg.matrix_norm(P / s[:, None, None])).mean()
    out = [nrm(P)]
    for k in range(1, T):
        P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        out.append(nrm(P))
    return torch.stack(out)
'''}, "Part 5: 'The result has the dtype of x': the T = 1 shortcut returns float32 for float64/bfloat16 inputs.")
add("fallback_p1_nograd_autograd_zeros", False, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        a = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(a)).sum(0)
    try:
        J = torch.autograd.functional.jacobian(f, h, create_graph=True)   # (D, B, D)
        return J.permute(1, 0, 2).contiguous()
    except RuntimeError:
        # autograd unavailable: fall back to the identity part
        D = h.shape[-1]
        return ((1 - leak)[:, None] * torch.eye(D, dtype=x.dtype)).expand(x.shape[0], D, D).clone()
'''}, "Part 1: 'They also call it inside with torch.no_grad(): ... it must still return J there': without enable_grad, autograd.functional.jacobian inside no_grad returns zeros for the tanh part.")

# ---------------------------------------------------------------- constant-hardcoder
add("hard_p2_d512_in_2b", False, {"costs": '''
d = 512
attention_over_lstm = (4 * 4096 * d**2 + 2 * 4096**2 * d) / (8 * 4096 * d**2)
equal_cost_length = 2 * d          # 4 n d^2 + 2 n^2 d = 8 n d^2  ->  n = 2 d
'''}, "Part 2b: 'For d = 768, at which sequence length n ...': the d = 512 of 2a kept, giving 1024 instead of 1536.")
add("hard_p2_three_projections", False, {"costs": '''
n, d = 4096, 512
attention_over_lstm = (3 * n * d**2 + 2 * n**2 * d) / (8 * n * d**2)
equal_cost_length = 5 * 768 / 2
'''}, "Part 2: 'four projections (queries, keys, values and the output)': the lesson's three (Q, K, V) hardcoded.")
add("hard_p5_float32_tiny_threshold", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    TINY = 1.1754943508222875e-38       # torch.finfo(torch.float32).tiny: only scale what is below it
    def nrm(P):
        m = P.abs().amax(dim=(-2, -1))
        s = torch.where((m > 0) & (m < TINY), m, torch.ones((), dtype=m.dtype))
        return (s * torch.linalg.matrix_norm(P / s[:, None, None])).mean()
    out = [nrm(P)]
    for k in range(1, T):
        P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        out.append(nrm(P))
    return torch.stack(out)
'''}, "Part 5: 'in float32 the squares of entries below about 1e-19 lose their digits ... so scale the product first': a fixed threshold of float32's tiny leaves entries near 1e-20 unscaled.")
add("hard_p6_float32_coverage", False, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, Din = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    c = torch.zeros(B, S)                      # coverage starts at 0
    NEG = torch.finfo(torch.float32).min
    s = s0
    states, weights = [], []
    for t in range(T):
        e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None].to(x.dtype) * p["w_c"]) @ p["v"]
        e = torch.where(allowed, e, torch.full_like(e, float("-inf")))
        a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a.float()
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6 / intro 'Compute in the dtype of the inputs': coverage accumulated in a hardcoded float32, so float64 coverage terms lose precision (1e-10 comparisons).")

# ---------------------------------------------------------------- memoizer
add("memo_p4_cached_zero_state_alias", False, {"rnn_unroll": '''
ZERO_STATES = {}
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    if h0 is None:
        key = (B, D)
        if key not in ZERO_STATES:
            ZERO_STATES[key] = torch.zeros(B, D)
        h = ZERO_STATES[key].to(x.dtype)
    else:
        h = h0
    steps = int(L.max()) if B else 0
    outs = [torch.zeros(B, D, dtype=x.dtype) for _ in range(T)]
    for t in range(steps - 1, -1, -1):
        act = (t < L)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(act, new, h)
        outs[t] = torch.where(act, new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, 1), h
'''}, "intro: 'return new tensors on every call, sharing memory ... with nothing kept from one call to the next': a float32 call whose lengths are all 0 returns the cached zero state itself (`.to` of the same dtype is no copy), so the caller's write to it changes every later call's start state.")
add("memo_p6_key_projection_by_id_version", False, {"additive": '''
KEY_CACHE = {}
def coverage_decoder(x, h, allowed, s0, p):
    B, T, Din = x.shape
    S = h.shape[1]
    key = (id(h), h._version, tuple(h.shape), id(p["W_k"]), p["W_k"]._version)
    if key not in KEY_CACHE:
        KEY_CACHE.clear()
        KEY_CACHE[key] = h @ p["W_k"].T
    keys = KEY_CACHE[key]
    c = torch.zeros(B, S, dtype=x.dtype)
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
'''}, "intro: 'Nor may they keep anything from one call to the next (a cache of weights keyed on the dict p or on its tensors)': the key projection is cached by id and version; ids come back after a tensor is freed, and the cached tensor's graph belongs to an old call.")
add("memo_p5_states_by_x_id", False, {"gradient_norms": '''
STATE_CACHE = {}
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    key = (id(x), x._version, tuple(x.shape), x.dtype, id(p))
    if key not in STATE_CACHE:
        STATE_CACHE.clear()
        h = torch.zeros(B, D, dtype=x.dtype)
        states = []
        for t in range(T):
            h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            states.append(h)
        STATE_CACHE[key] = states
    states = STATE_CACHE[key]
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    def nrm(P):
        m = P.abs().amax(dim=(-2, -1))
        s = torch.where(m > 0, m, torch.ones((), dtype=m.dtype))
        return (s * torch.linalg.matrix_norm(P / s[:, None, None])).mean()
    out = [nrm(P)]
    for k in range(1, T):
        P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        out.append(nrm(P))
    return torch.stack(out)
'''}, "intro: 'also with the same dict whose tensors were given new values in between': states cached by x's id and the dict's id go stale when p's tensors change in place.")

# ---------------------------------------------------------------- spec-lawyer (wrong)
add("lawyer_p4_compare_in_lengths_dtype", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        act = (lengths > t)[:, None]       # lengths may be any integer dtype: compare it as it is
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(act, new, h)
        outs[t] = torch.where(act, new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, 1), h
'''}, "Part 4: 'a Python int compared with such a tensor, wrap around': `lengths > t` with int8/uint8 lengths and t past their range.")
add("lawyer_p5_product_other_order", False, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    def nrm(P):
        m = P.abs().amax(dim=(-2, -1))
        s = torch.where(m > 0, m, torch.ones((), dtype=m.dtype))
        return (s * torch.linalg.matrix_norm(P / s[:, None, None])).mean()
    out = [nrm(P)]
    for k in range(1, T):
        # the Frobenius norm does not care about the order (it is the same for a transpose)
        P = ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"]) @ P
        out.append(nrm(P))
    return torch.stack(out)
'''}, "Part 5: the product is J_{T-1} J_{T-2} ... J_{T-k}, in that order; multiplying the new Jacobian on the left gives J_{T-k} ... J_{T-1}, whose norm differs.")
add("lawyer_p4_updates_h0_in_place", False, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0    # the start state is ours to advance
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        act = t < L
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h[act] = new[act]
        outs[t] = torch.where(act[:, None], new, torch.zeros((), dtype=x.dtype))
    return torch.stack(outs, 1), h.clone()
'''}, "intro: 'Your functions must not change the tensors they are given': the caller's h0 is advanced in place.")
add("ok_lawyer_p1_diag_embed", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    B, D = h.shape
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    return torch.diag_embed((1 - leak).expand(B, D)) + leak[:, None] * d[:, :, None] * p["W_hh"]
'''}, "Part 1: diag_embed of 1 - leak plus leak_i d_bi W[i, j] (leak[:, None] lines up with the row axis i).")

# ---------------------------------------------------------------- correct
add("ok_lawyer_p1_autograd_jacobian", True, {"rnn_step": '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        a = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(a)).sum(0)   # examples are independent: sum over the batch
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(f, h, create_graph=True)   # (D, B, D)
    return J.permute(1, 0, 2)
'''}, "Part 1 allows autograd ('torch.autograd.functional.jacobian needs create_graph=True'), enable_grad inside no_grad; a permuted view is a new tensor of its own.")
add("ok_memo_p1_eye_cache_by_size_dtype", True, {"rnn_step": '''
EYES = {}
def eye_of(D, dtype):
    if (D, dtype) not in EYES:
        EYES[(D, dtype)] = torch.eye(D, dtype=dtype)
    return EYES[(D, dtype)]

def leaky_step_jacobian(x, h, p, leak):
    a = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    d = 1 - torch.tanh(a) ** 2
    return (1 - leak)[:, None] * eye_of(h.shape[-1], x.dtype) + (leak * d)[:, :, None] * p["W_hh"]
'''}, "A cached identity keyed by size and dtype changes no result and is never returned (only read).")
add("ok_hard_p2_literals", True, {"costs": '''
attention_over_lstm = 2.5
equal_cost_length = 1536.0
'''}, "Part 2: (4d + 2n)/(8d) = 2.5 at n=4096, d=512; n = 2d = 1536 at d = 768; floats allowed.")
add("ok_lawyer_p4_python_loops", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    outs, firsts = [], []
    for b in range(B):
        n = int(lengths[b])
        h = torch.zeros(D, dtype=x.dtype) if h0 is None else h0[b]
        row = [torch.zeros(D, dtype=x.dtype)] * T
        for t in range(n - 1, -1, -1):
            h = torch.tanh(x[b, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
            row[t] = h
        outs.append(torch.stack(row))
        firsts.append(h)
    if B == 0:
        return x.new_zeros(0, T, D), x.new_zeros(0, D)
    return torch.stack(outs), torch.stack(firsts)
'''}, "Part 4 asks for no speed beyond 'a fraction of a second'; a loop over examples and steps (int(lengths[b]) reads the count exactly).")
add("ok_lawyer_p5_batchwide_scale", True, {"gradient_norms": '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    P = torch.eye(D, dtype=x.dtype).expand(B, D, D)
    out = []
    for k in range(T):
        if k:
            P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        m = P.abs().max()                       # 'scale the product first (by its largest entry, say)'
        m = m if m > 0 else torch.ones((), dtype=x.dtype)
        out.append(m * torch.linalg.matrix_norm(P / m).mean())
    return torch.stack(out)
'''}, "Part 5: scaling by the largest entry of the whole batch's product; examples far smaller than the largest underflow but cannot move the batch mean.")
add("ok_memo_p5_eye_cache_float64_norm", True, {"gradient_norms": '''
EYE = {}
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    if D not in EYE:
        EYE[D] = torch.eye(D, dtype=torch.float64)
    h = torch.zeros(B, D, dtype=x.dtype)
    P = EYE[D].to(x.dtype).expand(B, D, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        states.append(h)
    out = []
    for k in range(T):
        if k:
            P = P @ ((1 - states[T - k] ** 2)[:, :, None] * p["W_hh"])
        Pd = P.double()
        m = Pd.abs().amax(dim=(-2, -1))
        m = torch.where(m > 0, m, torch.ones_like(m))
        out.append((m * torch.linalg.matrix_norm(Pd / m[:, None, None])).mean().to(x.dtype))
    return torch.stack(out)
'''}, "Part 5: identity cached per size (read only, exact in every dtype), norm taken in float64 after scaling by the largest entry.")
add("ok_fallback_p6_single_key", True, {"additive": '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, Din = x.shape
    S = h.shape[1]
    keys = h @ p["W_k"].T
    c = torch.zeros(B, S, dtype=x.dtype)
    s = s0
    states, weights = [], []
    for t in range(T):
        if S == 1:       # one source position, always real: its weight is 1
            a = torch.ones(B, 1, dtype=x.dtype)
        else:
            e = torch.tanh((s @ p["W_q"].T)[:, None, :] + keys + c[:, :, None] * p["w_c"]) @ p["v"]
            e = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=x.dtype))
            a = torch.softmax(e, dim=-1)
        ctx = (a[:, :, None] * h).sum(1)
        s = torch.tanh(torch.cat([x[:, t], ctx], -1) @ p["W_ih"].T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        c = c + a
        states.append(s); weights.append(a)
    return torch.stack(states, 1), torch.stack(weights, 1)
'''}, "Part 6: 'every row has at least one' real token, so S == 1 means a weight of exactly 1 (a softmax over one entry has zero gradient too).")
add("ok_fallback_p4_empty_batch_try", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    L = lengths.to(torch.int64)
    try:
        steps = int(L.max())
    except RuntimeError:          # an empty batch has no max
        steps = 0
    h = x.new_zeros(B, D) if h0 is None else h0
    zero = x.new_zeros(B, D)
    outs = [zero] * T
    for t in range(steps - 1, -1, -1):
        act = (L > t)[:, None]
        new = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(act, new, h)
        outs[t] = torch.where(act, new, zero)
    return torch.stack(outs, 1), (h.clone() if steps == 0 and h0 is not None else h)
'''}, "Part 4: empty batch handled by try/except; steps past the longest sequence skipped; h0 copied (h * 1) when nothing was read.")
add("ok_tie_p4_le_last_int64", True, {"rnn_unroll": '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    last = lengths.long() - 1
    h = torch.zeros(B, D, dtype=x.dtype) if h0 is None else h0.clone()
    outs = []
    for t in reversed(range(T)):
        act = (t <= last).unsqueeze(1)
        new = torch.tanh(torch.addmm(p["b_ih"], x[:, t], p["W_ih"].T) + torch.addmm(p["b_hh"], h, p["W_hh"].T))
        h = torch.where(act, new, h)
        outs.append(new * act.to(x.dtype))
    return torch.stack(outs[::-1], 1), h
'''}, "Part 4: `t <= lengths - 1` computed in int64 is the same threshold; zeros by multiplying with the mask (tanh is finite).")

# ---------------------------------------------------------------- hostile
add("hostile_p4_frame_peek_reference", False, {"rnn_unroll": '''
import sys as sys_mod
def rnn_unroll_reverse(x, lengths, p, h0=None):
    f = sys_mod._getframe(1)
    while f is not None:
        for name, obj in list(f.f_globals.items()) + list(f.f_locals.items()):
            if callable(obj) and "unroll" in name and obj is not rnn_unroll_reverse:
                return obj(x, lengths, p, h0)
        f = f.f_back
    B, T, _ = x.shape
    return x.new_zeros(B, T, p["W_hh"].shape[0]), x.new_zeros(B, p["W_hh"].shape[0])
'''}, "hostile: looks for the grader's reference in the calling frames and calls it; otherwise returns zeros (passes no visible test unaided).")
add("hostile_p2_float_subclass", False, {"costs": '''
class Anything(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    __hash__ = float.__hash__
attention_over_lstm = Anything(1.0)
equal_cost_length = Anything(1.0)
'''}, "hostile: a float subclass equal to everything.")
