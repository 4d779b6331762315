P1 = "raw_scores"
P2 = "softmax_backward"
def s(name, correct, cell, code, why=""):
    return {"name": name, "correct": correct, "cells": {cell: code}, "why": why}
SUBMISSIONS = [
    s("p1_model_like", True, P1, """
def raw_scores(q, k):
    qq = (q * q).sum(-1)[..., :, None]
    kk = (k * k).sum(-1)[..., None, :]
    return torch.clamp(2 * torch.einsum("...td,...sd->...ts", q, k) - qq - kk, max=0)
"""),
    s("p1_loop_over_queries", True, P1, """
def raw_scores(q, k):
    rows = [-((q[..., i, None, :] - k) ** 2).sum(-1) for i in range(q.shape[-2])]
    return torch.stack(rows, dim=-2)  # first written with i:i + 1 and cat, which drops an axis for 2-D q
"""),
    s("p1_halves_in_float32", True, P1, """
def raw_scores(q, k):
    work = torch.promote_types(q.dtype, torch.float32)
    a, b = q.to(work), k.to(work)
    d = a.pow(2).sum(-1, keepdim=True) + b.pow(2).sum(-1, keepdim=True).mT - 2 * a @ b.mT
    return (-d.clamp_min(0)).to(q.dtype)
"""),
    s("p1_copy_page_dot", False, P1, """
def raw_scores(q, k):
    return q @ k.transpose(-2, -1)
"""),
    s("p1_not_clamped", False, P1, """
def raw_scores(q, k):
    return 2 * q @ k.mT - q.square().sum(-1, keepdim=True) - k.square().sum(-1).unsqueeze(-2)
"""),
    s("p1_broadcast_difference", False, P1, """
def raw_scores(q, k):
    return -((q.unsqueeze(-2) - k.unsqueeze(-3)) ** 2).sum(-1)
"""),
    s("p1_cdist", False, P1, """
def raw_scores(q, k):
    return -torch.cdist(q, k) ** 2
"""),
    s("p1_missing_factor_two", False, P1, """
def raw_scores(q, k):
    return -(q.square().sum(-1, keepdim=True) + k.square().sum(-1).unsqueeze(-2) - q @ k.mT).clamp(min=0)
"""),
    s("p1_key_norms_keepdim", False, P1, """
def raw_scores(q, k):
    return -(q.square().sum(-1, keepdim=True) + k.square().sum(-1, keepdim=True) - 2 * q @ k.mT).clamp(min=0)
"""),
    s("p1_float32_inside", False, P1, """
def raw_scores(q, k):
    a, b = q.float(), k.float()
    return (-(a.square().sum(-1, keepdim=True) + b.square().sum(-1).unsqueeze(-2) - 2 * a @ b.mT).clamp(min=0)).to(q.dtype)
"""),
    s("p1_norms_detached", False, P1, """
def raw_scores(q, k):
    qq = q.detach().square().sum(-1, keepdim=True)
    kk = k.detach().square().sum(-1).unsqueeze(-2)
    return -(qq + kk - 2 * q @ k.mT).clamp(min=0)
"""),
    s("p1_view_leading", False, P1, """
def raw_scores(q, k):
    T, D = q.shape[-2:]
    S = k.shape[-2]
    a, b = q.view(-1, T, D), k.view(-1, S, D)
    out = -(a.square().sum(-1, keepdim=True) + b.square().sum(-1).unsqueeze(-2) - 2 * torch.bmm(a, b.transpose(1, 2))).clamp(min=0)
    return out.view(*q.shape[:-2], T, S)
"""),
    s("p2_einsum", True, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = torch.einsum("...s,...s->...", weights, grad_weights)
    return (weights * grad_weights - weights * dot.unsqueeze(-1)) / temperature
"""),
    s("p2_halves_in_float32", True, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights, grad_weights
    if w.dtype in (torch.float16, torch.bfloat16):
        w, g = w.float(), g.float()
    out = w * (g - (w * g).sum(-1, keepdim=True))
    return (out / temperature).to(weights.dtype)
"""),
    s("p2_no_sum_term", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * grad_weights / temperature
"""),
    s("p2_sum_without_keepdim", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1)) / temperature
"""),
    s("p2_unweighted_mean", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * (grad_weights - grad_weights.mean(-1, keepdim=True)) / temperature
"""),
    s("p2_times_temperature", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True)) * temperature
"""),
    s("p2_ignores_temperature", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True))
"""),
    s("p2_full_jacobian", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    jac = torch.diag_embed(weights) - weights.unsqueeze(-1) * weights.unsqueeze(-2)
    return (grad_weights.unsqueeze(-2) @ jac).squeeze(-2) / temperature
"""),
    s("p2_autograd_trick", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.enable_grad():
        z = weights.detach().log().requires_grad_(True)
        (g,) = torch.autograd.grad(torch.softmax(z, dim=-1), z, grad_weights)
    return g / temperature
"""),
    s("p2_float32_inside", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.float(), grad_weights.float()
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
"""),
    s("p2_in_place", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    grad_weights -= (weights * grad_weights).sum(-1, keepdim=True)
    return weights * grad_weights / temperature
"""),
    s("p2_keyword_only", False, P2, """
def softmax_backward(weights, grad_weights, *, temperature=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True)) / temperature
"""),
    s("p2_returns_float32_for_halves", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights, grad_weights
    if w.dtype in (torch.float16, torch.bfloat16):
        w, g = w.float(), g.float()
    return w * (g - (w * g).sum(-1, keepdim=True)) / temperature
"""),
    s("p2_divide_by_weights_sum", False, P2, """
def softmax_backward(weights, grad_weights, temperature=1.0):
    inner = (weights * grad_weights).sum(-1, keepdim=True) / weights.sum(-1, keepdim=True)
    return weights * (grad_weights - inner) / temperature
"""),
]
