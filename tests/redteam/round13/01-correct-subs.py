P1A = '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    xd, hd, ld = x.to(torch.float64), h.to(torch.float64), leak.to(torch.float64)
    W_ih, b_ih, W_hh, b_hh = (p[k].to(torch.float64) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    pre = torch.matmul(xd, W_ih.t()) + b_ih + torch.matmul(hd, W_hh.t()) + b_hh
    d = ld * (1 - torch.tanh(pre) ** 2)                      # (B, D_h)
    J = torch.diag_embed((1 - ld).expand_as(d)) + d.unsqueeze(-1) * W_hh.unsqueeze(0)
    return J.to(dt)
'''
P1B = '''
def leaky_step_jacobian(x, h, p, leak):
    def one(x_b, h_b):
        def f(hh):
            pre = x_b @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
            return (1 - leak) * hh + leak * torch.tanh(pre)
        return torch.autograd.functional.jacobian(f, h_b, create_graph=True)
    with torch.enable_grad():
        rows = []
        for b in range(x.shape[0]):
            rows.append(one(x[b], h[b]))
        return torch.stack(rows, dim=0)
'''
P1C = '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.addmm(p["b_ih"], x, p["W_ih"].T) + torch.addmm(p["b_hh"], h, p["W_hh"].T)
    t = torch.tanh(pre)
    B, D = h.shape
    eye = torch.eye(D, dtype=x.dtype, device=x.device)
    keep = torch.einsum("ij,j->ij", eye, 1 - leak)
    J = keep.unsqueeze(0).repeat(B, 1, 1)
    J = J + torch.einsum("bi,ij->bij", leak * (1 - t * t), p["W_hh"])
    return J
'''
P4A = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    dt = x.dtype
    xd = x.to(torch.float64)
    W_ih, b_ih, W_hh, b_hh = (p[k].to(torch.float64) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    B, T, _ = x.shape
    L = lengths.to(torch.int64)
    h = torch.zeros(B, W_hh.shape[0], dtype=torch.float64, device=x.device) if h0 is None else h0.to(torch.float64)
    outs = [None] * T
    for t in range(T - 1, -1, -1):
        active = (L > t).unsqueeze(-1)
        new = torch.tanh(xd[:, t] @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        h = torch.where(active, new, h)
        outs[t] = torch.where(active, h, torch.zeros_like(h))
    return torch.stack(outs, dim=1).to(dt), h.to(dt)
'''
P4B = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, D_in = x.shape
    D_h = p["W_hh"].shape[0]
    L = lengths.long()
    t_idx = torch.arange(T, device=x.device)
    src = L.unsqueeze(1) - 1 - t_idx.unsqueeze(0)             # reversed order: position read at step t
    valid = src >= 0
    src_c = src.clamp(min=0)
    xr = torch.gather(x, 1, src_c.unsqueeze(-1).expand(B, T, D_in))
    h = x.new_zeros(B, D_h) if h0 is None else h0
    states = []
    for t in range(T):
        m = valid[:, t].unsqueeze(-1)
        cand = torch.tanh(xr[:, t] @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
        h = torch.where(m, cand, h)
        states.append(h)
    sr = torch.stack(states, dim=1) if T else x.new_zeros(B, 0, D_h)
    # output at original position t was produced at reversed step L-1-t
    back = (L.unsqueeze(1) - 1 - t_idx.unsqueeze(0))
    ok = back >= 0
    out = torch.gather(sr, 1, back.clamp(min=0).unsqueeze(-1).expand(B, T, D_h))
    out = torch.where(ok.unsqueeze(-1), out, torch.zeros((), dtype=x.dtype, device=x.device))
    return out, h
'''
P5A = '''
def jacobian_norms(x, p):
    dt = x.dtype
    xd = x.to(torch.float64)
    W_ih, b_ih, W_hh, b_hh = (p[k].to(torch.float64) for k in ("W_ih", "b_ih", "W_hh", "b_hh"))
    B, T, _ = x.shape
    D = W_hh.shape[0]
    h = xd.new_zeros(B, D)
    hs = []
    for t in range(T):
        h = torch.tanh(xd[:, t] @ W_ih.T + b_ih + h @ W_hh.T + b_hh)
        hs.append(h)
    P = torch.eye(D, dtype=torch.float64).expand(B, D, D)
    norms = [P.pow(2).sum(dim=(1, 2)).sqrt().mean()]
    for k in range(1, T):
        s = T - k
        # P_k = P_{k-1} @ diag(1 - h_s^2) @ W_hh
        P = torch.matmul(P * (1 - hs[s] ** 2).unsqueeze(1), W_hh)
        norms.append(P.pow(2).sum(dim=(1, 2)).sqrt().mean())
    return torch.stack(norms).to(dt)
'''
P5B = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    D = p["W_hh"].shape[0]
    h = torch.zeros(B, D, dtype=x.dtype)
    states = []
    for t in range(T):
        h = torch.tanh(torch.einsum("bi,hi->bh", x[:, t], p["W_ih"]) + p["b_ih"]
                       + torch.einsum("bi,hi->bh", h, p["W_hh"]) + p["b_hh"])
        states.append(h)
    out = torch.empty(T, dtype=x.dtype)
    P = torch.eye(D, dtype=x.dtype).repeat(B, 1, 1)
    out[0] = torch.linalg.matrix_norm(P).mean()
    for k in range(1, T):
        J = torch.einsum("bi,ij->bij", 1 - states[T - k] * states[T - k], p["W_hh"])
        P = torch.bmm(P, J)
        out[k] = torch.linalg.matrix_norm(P, ord="fro").mean()
    return out
'''
P6A = '''
def coverage_decoder(x, h, allowed, s0, p):
    dt = x.dtype
    f = lambda t: t.to(torch.float64)
    xd, hd, s = f(x), f(h), f(s0)
    W_ih, b_ih, W_hh, b_hh = f(p["W_ih"]), f(p["b_ih"]), f(p["W_hh"]), f(p["b_hh"])
    W_q, W_k, w_c, v = f(p["W_q"]), f(p["W_k"]), f(p["w_c"]), f(p["v"])
    B, T, D_in = x.shape
    S = h.shape[1]
    keys = hd @ W_k.T                                    # (B, S, A)
    cov = xd.new_zeros(B, S)
    states, weights = [], []
    for t in range(T):
        q = s @ W_q.T                                    # (B, A)
        e = torch.tanh(q.unsqueeze(1) + keys + cov.unsqueeze(-1) * w_c) @ v  # (B, S)
        e = torch.where(allowed, e, torch.full_like(e, float("-inf")))
        a = torch.softmax(e, dim=-1)
        ctx = torch.bmm(a.unsqueeze(1), hd).squeeze(1)
        s = torch.tanh(torch.cat([xd[:, t], ctx], dim=-1) @ W_ih.T + b_ih + s @ W_hh.T + b_hh)
        cov = cov + a
        states.append(s)
        weights.append(a)
    return torch.stack(states, 1).to(dt), torch.stack(weights, 1).to(dt)
'''
P6B = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    W_x = p["W_ih"][:, :D_in]
    W_c = p["W_ih"][:, D_in:]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros(B, h.shape[1], dtype=x.dtype)
    s = s0
    S_out = torch.zeros(B, T, s0.shape[-1], dtype=x.dtype)
    A_out = torch.zeros(B, T, h.shape[1], dtype=x.dtype)
    S_list, A_list = [], []
    for t in range(T):
        pre = keys + torch.einsum("bh,ah->ba", s, p["W_q"]).unsqueeze(1) + cov.unsqueeze(-1) * p["w_c"]
        e = torch.einsum("bsa,a->bs", torch.tanh(pre), p["v"])
        m = torch.where(allowed, e, torch.zeros((), dtype=e.dtype)).amax(dim=-1, keepdim=True)
        ex = torch.where(allowed, torch.exp(torch.where(allowed, e - m, torch.zeros((), dtype=e.dtype))),
                         torch.zeros((), dtype=e.dtype))
        a = ex / ex.sum(dim=-1, keepdim=True)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(x[:, t] @ W_x.T + ctx @ W_c.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        S_list.append(s)
        A_list.append(a)
    return torch.stack(S_list, dim=1), torch.stack(A_list, dim=1)
'''
P6C = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    W_x = p["W_ih"][:, :D_in]
    W_c = p["W_ih"][:, D_in:]
    keys = torch.einsum("bsk,ak->bsa", h, p["W_k"])
    cov = torch.zeros(B, h.shape[1], dtype=x.dtype)
    s = s0
    S_out = torch.zeros(B, T, s0.shape[-1], dtype=x.dtype)
    A_out = torch.zeros(B, T, h.shape[1], dtype=x.dtype)
    S_list, A_list = [], []
    for t in range(T):
        pre = keys + torch.einsum("bh,ah->ba", s, p["W_q"]).unsqueeze(1) + cov.unsqueeze(-1) * p["w_c"]
        e = torch.einsum("bsa,a->bs", torch.tanh(pre), p["v"])
        m = torch.where(allowed, e, torch.tensor(float("-inf"), dtype=e.dtype)).amax(dim=-1, keepdim=True)
        ex = torch.where(allowed, torch.exp(torch.where(allowed, e - m, torch.zeros((), dtype=e.dtype))),
                         torch.zeros((), dtype=e.dtype))
        a = ex / ex.sum(dim=-1, keepdim=True)
        ctx = torch.einsum("bs,bsk->bk", a, h)
        s = torch.tanh(x[:, t] @ W_x.T + ctx @ W_c.T + p["b_ih"] + s @ p["W_hh"].T + p["b_hh"])
        cov = cov + a
        S_list.append(s)
        A_list.append(a)
    return torch.stack(S_list, dim=1), torch.stack(A_list, dim=1)
'''
SUBMISSIONS = [
    {"name": "c01_p1_float64_by_hand", "correct": True, "cells": {"rnn_step": P1A}, "why": "closed form in float64, cast back"},
    {"name": "c01_p1_autograd_loop", "correct": True, "cells": {"rnn_step": P1B}, "why": "autograd.functional.jacobian per example, create_graph"},
    {"name": "c01_p1_addmm_einsum", "correct": True, "cells": {"rnn_step": P1C}, "why": "addmm + einsum diag"},
    {"name": "c01_p4_float64_where", "correct": True, "cells": {"rnn_unroll": P4A}, "why": "float64 inside, torch.where masking"},
    {"name": "c01_p4_gather_reverse", "correct": True, "cells": {"rnn_unroll": P4B}, "why": "gather-reverse each sequence, forward loop, gather back"},
    {"name": "c01_p5_float64_diag_scale", "correct": True, "cells": {"gradient_norms": P5A}, "why": "float64 inside, diag as column scaling"},
    {"name": "c01_p5_einsum_bmm", "correct": True, "cells": {"gradient_norms": P5B}, "why": "einsum J, bmm, matrix_norm, out tensor filled"},
    {"name": "c01_p6_float64_where_inf", "correct": True, "cells": {"additive": P6A}, "why": "float64 inside, where(-inf), softmax"},
    {"name": "c01_p6_manual_softmax_split_W", "correct": True, "cells": {"additive": P6B}, "why": "manual masked softmax, W_ih split into views (REFUSED: my slip, the row max took 0 at padding, so all-negative rows underflow to 0/0)"},
    {"name": "c01_p6_manual_softmax_split_W_fixed", "correct": True, "cells": {"additive": P6C}, "why": "the same with the row max over the allowed positions only (-inf fill)"},
]

P1D = '''
def leaky_step_jacobian(x, h, p, leak):
    W_ih, b_ih, W_hh, b_hh = p["W_ih"], p["b_ih"], p["W_hh"], p["b_hh"]

    def new_state(x_b, h_b):
        return (1 - leak) * h_b + leak * torch.tanh(x_b @ W_ih.T + b_ih + h_b @ W_hh.T + b_hh)

    with torch.enable_grad():
        return torch.func.vmap(torch.func.jacrev(new_state, argnums=1))(x, h)
'''
P4C = '''
def rnn_unroll_reverse(x, lengths, p, h0=None):
    B, T, _ = x.shape
    D_h = p["W_hh"].shape[0]
    step = lambda x_t, hh: torch.tanh(x_t @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"])
    outs, firsts = [], []
    for b in range(B):
        n = int(lengths[b])
        hb = x.new_zeros(D_h) if h0 is None else h0[b]
        rows = [None] * T
        for t in reversed(range(n)):
            hb = step(x[b, t], hb)
            rows[t] = hb
        zero = x.new_zeros(D_h)
        outs.append(torch.stack([r if r is not None else zero for r in rows]))
        firsts.append(hb)
    if B == 0:
        return x.new_zeros(0, T, D_h), x.new_zeros(0, D_h)
    return torch.stack(outs), torch.stack(firsts)
'''
P5C = '''
def jacobian_norms(x, p):
    B, T, _ = x.shape
    W_hh = p["W_hh"]
    D = W_hh.shape[0]
    h = x.new_zeros(B, D)
    states = []
    for t in range(T):
        h = torch.tanh(x[:, t] @ p["W_ih"].T + p["b_ih"] + h @ W_hh.T + p["b_hh"])
        states.append(h)
    # Q_k = P_k^T = J_{T-k}^T Q_{k-1} = W_hh^T (d_{T-k} * Q_{k-1}) (rows scaled): same Frobenius norm
    Q = torch.eye(D, dtype=x.dtype).unsqueeze(0).expand(B, D, D)
    norms = [torch.linalg.norm(Q, dim=(1, 2)).mean()]
    for k in range(1, T):
        d = 1 - states[T - k].square()
        Q = W_hh.T @ (d.unsqueeze(-1) * Q)
        norms.append(torch.linalg.norm(Q, dim=(1, 2)).mean())
    return torch.stack(norms)
'''
P6D = '''
def coverage_decoder(x, h, allowed, s0, p):
    B, T, D_in = x.shape
    keys = h @ p["W_k"].T
    blocked = allowed.logical_not()
    past = []
    states = []
    s = s0
    for t in range(T):
        cov = torch.stack(past, 0).sum(0) if past else torch.zeros_like(h[..., 0])
        e = (torch.tanh((s @ p["W_q"].T)[:, None] + keys + cov[..., None] * p["w_c"]) * p["v"]).sum(-1)
        e = e.masked_fill(blocked, float("-inf"))
        a = torch.nn.functional.softmax(e, dim=-1)
        ctx = (a[..., None] * h).sum(1)
        inp = torch.cat((x[:, t], ctx), -1)
        s = torch.tanh(torch.nn.functional.linear(inp, p["W_ih"], p["b_ih"])
                       + torch.nn.functional.linear(s, p["W_hh"], p["b_hh"]))
        past.append(a)
        states.append(s)
    return torch.stack(states, 1), torch.stack(past, 1)
'''
SUBMISSIONS += [
    {"name": "c01_p1_func_vmap_jacrev", "correct": True, "cells": {"rnn_step": P1D}, "why": "torch.func.vmap(jacrev) inside enable_grad"},
    {"name": "c01_p4_per_sequence_loop", "correct": True, "cells": {"rnn_unroll": P4C}, "why": "one Python loop per sequence, int(lengths[b]), stack with zero rows"},
    {"name": "c01_p5_transposed_product", "correct": True, "cells": {"gradient_norms": P5C}, "why": "accumulate P^T = W^T (d * Q), linalg.norm"},
    {"name": "c01_p6_masked_fill_cov_stack", "correct": True, "cells": {"additive": P6D}, "why": "coverage as a sum of past weights, masked_fill on own scores, F.linear"},
]

P1E = '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(pre)).sum(0)   # each example depends on its own state only
    with torch.enable_grad():
        J = torch.autograd.functional.jacobian(f, h, create_graph=True, vectorize=True)   # (D_h, B, D_h)
    return J.transpose(0, 1)
'''
SUBMISSIONS += [
    {"name": "c01_p1_jacobian_vectorize", "correct": True, "cells": {"rnn_step": P1E}, "why": "autograd.functional.jacobian(vectorize=True) of the batch sum"},
]
