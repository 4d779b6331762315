G = "rnn_step"

def S(name, correct, code, why):
    return {"name": name, "correct": correct, "cells": {G: code}, "why": why}

SUBMISSIONS = [
S("closed_form", True, '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    t = torch.tanh(pre)
    d = leak * (1 - t * t)                      # (B, D_h)
    D = h.shape[-1]
    eye = torch.eye(D, dtype=x.dtype)
    return eye * (1 - leak)[:, None] + d[:, :, None] * p["W_hh"]
''', "J = diag(1-λ) + (λ(1-t²))_i W_hh[i,j]"),
S("einsum_diag_embed", True, '''
def leaky_step_jacobian(x, h, p, leak):
    pre = torch.einsum("bi,hi->bh", x, p["W_ih"]) + p["b_ih"] + torch.einsum("bj,hj->bh", h, p["W_hh"]) + p["b_hh"]
    s = 1 - torch.tanh(pre) ** 2
    B, D = h.shape
    keep = torch.diag_embed((1 - leak).expand(B, D))
    return keep + torch.einsum("bi,ij->bij", leak * s, p["W_hh"])
''', "same formula with einsum and diag_embed"),
S("autograd_functional_create_graph", True, '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(pre)).sum(0)   # examples are independent
    J = torch.autograd.functional.jacobian(f, h, create_graph=True)  # (D, B, D)
    return J.permute(1, 0, 2)
''', "autograd with create_graph=True, as the text allows"),
S("float64_inside", True, '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    X, Hh, L = x.double(), h.double(), leak.double()
    W = {k: v.double() for k, v in p.items()}
    t = torch.tanh(X @ W["W_ih"].T + W["b_ih"] + Hh @ W["W_hh"].T + W["b_hh"])
    J = torch.diag_embed((1 - L).expand_as(Hh)) + (L * (1 - t * t)).unsqueeze(-1) * W["W_hh"]
    return J.to(dt)
''', "higher precision inside, cast back: allowed"),
S("loop_over_rows", True, '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    s = leak * (1 - t * t)
    rows = []
    for i in range(h.shape[1]):
        r = s[:, i:i + 1] * p["W_hh"][i]
        r = r + torch.nn.functional.one_hot(torch.tensor(i), h.shape[1]).to(x.dtype) * (1 - leak[i])
        rows.append(r)
    return torch.stack(rows, dim=1)
''', "row-by-row"),
# ---------------- wrong
S("missing_b_ih", False, '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + h @ p["W_hh"].T + p["b_hh"])
    return torch.diag_embed((1 - leak).expand_as(h)) + (leak * (1 - t * t))[:, :, None] * p["W_hh"]
''', "formula has + b_ih; visible test has b_ih = 0"),
S("eye_default_dtype", False, '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    return torch.eye(h.shape[1]) * (1 - leak)[:, None] + (leak * (1 - t * t))[:, :, None] * p["W_hh"]
''', "torch.eye float32 mixed in: bfloat16 input returns float32 ('Return it in the dtype of x'; intro: a float32 tensor mixed in)"),
S("tanh_via_exp", False, '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    e = torch.exp(2 * pre)
    t = (e - 1) / (e + 1)
    return torch.diag_embed((1 - leak).expand_as(h)) + (leak * (1 - t * t))[:, :, None] * p["W_hh"]
''', "intro: pre-activations in the hundreds, a tanh written with exp overflows (inf/inf = NaN)"),
S("sech_via_cosh", False, '''
def leaky_step_jacobian(x, h, p, leak):
    pre = x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"]
    sech2 = 1 / torch.cosh(pre) ** 2
    return torch.diag_embed((1 - leak).expand_as(h)) + (leak * sech2)[:, :, None] * p["W_hh"]
''', "value ok (1/inf=0) but gradient is 0*inf = NaN at pre in the hundreds: 'gradients too must stay finite there'"),
S("float32_inside", False, '''
def leaky_step_jacobian(x, h, p, leak):
    dt = x.dtype
    x, h, leak = x.float(), h.float(), leak.float()
    W = {k: v.float() for k, v in p.items()}
    t = torch.tanh(x @ W["W_ih"].T + W["b_ih"] + h @ W["W_hh"].T + W["b_hh"])
    J = torch.diag_embed((1 - leak).expand_as(h)) + (leak * (1 - t * t))[:, :, None] * W["W_hh"]
    return J.to(dt)
''', "intro: computing float64 in float32 and casting back loses the points"),
S("jacobian_no_create_graph", False, '''
def leaky_step_jacobian(x, h, p, leak):
    def f(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(pre)).sum(0)
    return torch.autograd.functional.jacobian(f, h).permute(1, 0, 2)
''', "text: jacobian needs create_graph=True, gradients must flow through J"),
S("detached_h_autograd", False, '''
def leaky_step_jacobian(x, h, p, leak):
    hh = h.detach().requires_grad_(True)
    with torch.enable_grad():
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        out = ((1 - leak) * hh + leak * torch.tanh(pre))
        rows = [torch.autograd.grad(out[:, i].sum(), hh, create_graph=True)[0] for i in range(h.shape[1])]
    return torch.stack(rows, dim=1)
''', "no .detach() on the way: gradient of J w.r.t. h is lost"),
S("scales_W_hh_in_place", False, '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    W = p["W_hh"]
    W *= leak[:, None]            # rows of unit i scaled by its rate
    return torch.diag_embed((1 - leak).expand_as(h)) + (1 - t * t)[:, :, None] * W
''', "intro: functions must not change the tensors they are given"),
S("sets_grad_enabled", False, '''
def leaky_step_jacobian(x, h, p, leak):
    torch.set_grad_enabled(True)
    def f(hh):
        pre = x @ p["W_ih"].T + p["b_ih"] + hh @ p["W_hh"].T + p["b_hh"]
        return ((1 - leak) * hh + leak * torch.tanh(pre)).sum(0)
    return torch.autograd.functional.jacobian(f, h, create_graph=True).permute(1, 0, 2)
''', "intro: leave grad mode as found (set_grad_enabled left changed)"),
S("view_flatten", False, '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    B, D = h.shape
    W = p["W_hh"].view(1, D * D)
    s = (leak * (1 - t * t)).repeat_interleave(D, dim=1)     # (B, D*D), s[b, i*D+j] = s_i
    return (s * W).view(B, D, D) + torch.diag_embed((1 - leak).expand(B, D))
''', "intro: inputs need not be contiguous (.view of a transposed W_hh fails)"),
S("leak_zero_not_identity", False, '''
def leaky_step_jacobian(x, h, p, leak):
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ p["W_hh"].T + p["b_hh"])
    D = h.shape[1]
    eye = torch.eye(D, dtype=x.dtype)
    # J = I - λ (I - (1 - t²) W), via the log of the rates for stability
    lam = torch.exp(torch.log(leak + 1e-12))
    return eye - lam[:, None] * (eye - (1 - t * t)[:, :, None] * p["W_hh"])
''', "text: with every rate 0, J must be exactly the identity (1e-12 leaks through)"),
S("cache_keyed_on_p", False, '''
JAC_CACHE = {}
def leaky_step_jacobian(x, h, p, leak):
    key = id(p)
    if key not in JAC_CACHE:                     # W_hh does not change between steps: copy it once
        JAC_CACHE[key] = p["W_hh"].clone()
    W = JAC_CACHE[key]
    t = torch.tanh(x @ p["W_ih"].T + p["b_ih"] + h @ W.T + p["b_hh"])
    return torch.diag_embed((1 - leak).expand_as(h)) + (leak * (1 - t * t))[:, :, None] * W
''', "intro: nor may they keep anything from one call to the next (a cache keyed on the dict p): stale W_hh once its tensors get new values"),
]
