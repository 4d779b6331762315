def R(name, correct, code, why):
    return {"name": name, "correct": correct, "cells": {"raw_scores": code}, "why": why}
def B(name, correct, code, why):
    return {"name": name, "correct": correct, "cells": {"softmax_backward": code}, "why": why}

SUBMISSIONS = [
# ================= Part 1 raw_scores: correct
R("rs_expanded_clamp", True, '''
def raw_scores(q, k):
    qq = (q * q).sum(-1)[..., :, None]
    kk = (k * k).sum(-1)[..., None, :]
    return -(qq + kk - 2 * (q @ k.mT)).clamp(min=0)
''', "expanded form, clamp so no score is positive"),
R("rs_loop_over_dims", True, '''
def raw_scores(q, k):
    out = None
    for d in range(q.shape[-1]):
        diff = q[..., :, d, None] - k[..., None, :, d]
        term = diff * diff
        out = term if out is None else out + term
    if out is None:
        out = q.new_zeros(q.shape[:-1] + (k.shape[-2],))
    return -out
''', "exact differences one coordinate at a time: each intermediate is (..., T, S)"),
R("rs_float64_inside", True, '''
def raw_scores(q, k):
    Q, K = q.double(), k.double()
    s = 2 * torch.einsum("...td,...sd->...ts", Q, K) - Q.pow(2).sum(-1).unsqueeze(-1) - K.pow(2).sum(-1).unsqueeze(-2)
    return torch.clamp(s, max=0).to(q.dtype)
''', "float64 inside (a copy in another dtype fits), clamp, cast back"),
R("rs_augmented_matmul", True, '''
def raw_scores(q, k):
    qq = (q * q).sum(-1, keepdim=True)
    kk = (k * k).sum(-1, keepdim=True)
    one_q, one_k = torch.ones_like(qq), torch.ones_like(kk)
    qa = torch.cat([2 * q, -qq, -one_q], dim=-1)
    ka = torch.cat([k, one_k, kk], dim=-1)
    return -torch.relu(-(qa @ ka.mT))
''', "one augmented product [2q,-|q|^2,-1].[k,1,|k|^2]; -relu(-s) keeps it <= 0"),
# ================= Part 1 wrong
R("rs_full_difference_tensor", False, '''
def raw_scores(q, k):
    return -((q[..., :, None, :] - k[..., None, :, :]) ** 2).sum(-1)
''', "Memory: (..., T, S, Dh) tensor is forbidden"),
R("rs_cdist", False, '''
def raw_scores(q, k):
    return -torch.cdist(q, k) ** 2
''', "Do not call torch.cdist"),
R("rs_float32_inside", False, '''
def raw_scores(q, k):
    Q, K = q.float(), k.float()
    s = (Q * Q).sum(-1)[..., :, None] + (K * K).sum(-1)[..., None, :] - 2 * Q @ K.mT
    return (-s.clamp(min=0)).to(q.dtype)
''', "Accuracy: computing a float64 input in float32 is off by more"),
R("rs_bf16_upcast_not_cast_back", False, '''
def raw_scores(q, k):
    if q.dtype in (torch.bfloat16, torch.float16):
        q, k = q.float(), k.float()
    s = (q * q).sum(-1)[..., :, None] + (k * k).sum(-1)[..., None, :] - 2 * q @ k.mT
    return -s.clamp(min=0)
''', "result must be in the input dtype; bf16 comes back float32"),
R("rs_minimum_with_float32_zero", False, '''
def raw_scores(q, k):
    s = 2 * q @ k.mT - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return torch.minimum(s, torch.zeros(1))
''', "dtype: a 1-element float32 tensor promotes bf16/float64? (bf16 -> float32)"),
R("rs_only_2d_or_3d", False, '''
def raw_scores(q, k):
    qq = (q * q).sum(-1).unsqueeze(-1)
    kk = (k * k).sum(-1).unsqueeze(-2)
    if q.dim() == 2:
        dots = q @ k.t()
    else:
        dots = torch.bmm(q, k.transpose(1, 2))
    return -(qq + kk - 2 * dots).clamp(min=0)
''', "'(..., T, Dh)' any leading dims: 4-D (B, H, T, Dh) fails in bmm"),
R("rs_no_clamp_diag_fix", False, '''
def raw_scores(q, k):
    s = 2 * q @ k.mT - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    if q.shape == k.shape and torch.equal(q, k):
        s = s - torch.diag_embed(torch.diagonal(s, dim1=-2, dim2=-1))
    return s
''', "Sign: no score may be positive even by rounding; only zeroes the diagonal when k equals q, near-equal or duplicated keys still go positive"),
R("rs_norms_via_gram_diagonal", False, '''
def raw_scores(q, k):
    qq = torch.diagonal(q @ q.mT, dim1=-2, dim2=-1)[..., :, None]
    kk = torch.diagonal(k @ k.mT, dim1=-2, dim2=-1)[..., None, :]
    return -(qq + kk - 2 * q @ k.mT).clamp(min=0)
''', "Memory: (T,T) and (S,S) Gram matrices exceed twice the largest of result/q/k when T >> S or S >> T"),
R("rs_detached_norms", False, '''
def raw_scores(q, k):
    with torch.no_grad():
        qq = (q * q).sum(-1)[..., :, None]
        kk = (k * k).sum(-1)[..., None, :]
    return -(qq + kk - 2 * q @ k.mT).clamp(min=0)
''', "Gradients must flow (no torch.no_grad on the way): norm terms' gradients lost"),
R("rs_flatten_view", False, '''
def raw_scores(q, k):
    T, S, D = q.shape[-2], k.shape[-2], q.shape[-1]
    Q = q.view(-1, T, D); K = k.view(-1, S, D)
    qq = (Q * Q).sum(-1)[..., :, None]; kk = (K * K).sum(-1)[..., None, :]
    s = -(qq + kk - 2 * torch.bmm(Q, K.transpose(1, 2))).clamp(min=0)
    return s.view(q.shape[:-2] + (T, S))
''', "intro: inputs need not be contiguous; .view of a transposed q fails"),
R("rs_clamp_in_place_no_grad", False, '''
def raw_scores(q, k):
    d2 = (q * q).sum(-1)[..., :, None] + (k * k).sum(-1)[..., None, :] - 2 * q @ k.mT
    d2 = d2.detach().clamp(min=0)
    return -d2
''', "Gradients must flow: .detach() cuts the gradient to q and k"),
# ================= Part 2 softmax_backward: correct
B("sb_formula", True, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = (weights * grad_weights).sum(-1, keepdim=True)
    return weights * (grad_weights - dot) / temperature
''', "w (g - <w,g>) / tau"),
B("sb_einsum", True, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = torch.einsum("...s,...s->...", weights, grad_weights).unsqueeze(-1)
    return (weights * grad_weights - weights * dot) * (1.0 / temperature)
''', "expanded form, einsum for the row dot product"),
B("sb_float64_inside", True, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.double(), grad_weights.double()
    wg = w * g
    out = (wg - w * wg.sum(dim=-1, keepdim=True)) / temperature
    return out.to(weights.dtype)
''', "float64 inside and cast back"),
B("sb_addcmul", True, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wg = torch.mul(weights, grad_weights)
    s = torch.sum(wg, dim=-1, keepdim=True)
    return torch.addcmul(wg, weights, s, value=-1.0).div(temperature)
''', "addcmul"),
# ================= Part 2 wrong
B("sb_sum_axis0", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = (weights * grad_weights).sum(0, keepdim=True)
    return weights * (grad_weights - dot) / temperature
''', "the row's dot product is over the last dimension (softmax over the last dimension)"),
B("sb_full_jacobian", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    J = torch.diag_embed(weights) - weights[..., :, None] * weights[..., None, :]
    return (J @ grad_weights[..., :, None]).squeeze(-1) / temperature
''', "an (..., S, S) Jacobian is out"),
B("sb_autograd_via_log", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.enable_grad():
        z = (torch.log(weights) * temperature).detach().requires_grad_(True)
        w = torch.softmax(z / temperature, dim=-1)
        return torch.autograd.grad(w, z, grad_weights)[0]
''', "never the scores; torch's softmax backward is refused; all-zero rows give NaN"),
B("sb_float32_inside", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.float(), grad_weights.float()
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
''', "float64 compared to 1e-12: work them in float64"),
B("sb_sum_dtype_float32", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = torch.sum(weights * grad_weights, dim=-1, keepdim=True, dtype=torch.float32).to(weights.dtype)
    return weights * (grad_weights - dot) / temperature
''', "float64 row sums in float32: off by far more than 1e-12"),
B("sb_temperature_tensor", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    tau = torch.tensor([temperature])
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True)) / tau
''', "result must have the dtype of weights: a float32 (1,) tensor turns bf16/f16 into float32"),
B("sb_renamed_temperature", False, '''
def softmax_backward(weights, grad_weights, temp=1.0):
    return weights * (grad_weights - (weights * grad_weights).sum(-1, keepdim=True)) / temp
''', "keep stub signatures: temperature passed by name"),
B("sb_renormalise_weights", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights / weights.sum(-1, keepdim=True)   # guard against rounding
    return w * (grad_weights - (w * grad_weights).sum(-1, keepdim=True)) / temperature
''', "a row whose weights are all 0 must give an all-zero row (0/0 = NaN here)"),
B("sb_in_place_grad", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    g = grad_weights
    g -= (weights * g).sum(-1, keepdim=True)
    return weights * g / temperature
''', "must not change the tensors they are given"),
B("sb_view_flatten", False, '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    S = weights.shape[-1]
    w, g = weights.view(-1, S), grad_weights.view(-1, S)
    out = w * (g - (w * g).sum(1, keepdim=True)) / temperature
    return out.view(weights.shape)
''', "inputs need not be contiguous: .view of a transposed view fails"),
R("rs_joint_gram", False, '''
def raw_scores(q, k):
    T = q.shape[-2]
    x = torch.cat([q, k], dim=-2)
    G = x @ x.mT                                  # all dot products at once
    n = torch.diagonal(G, dim1=-2, dim2=-1)
    s = 2 * G[..., :T, T:] - n[..., :T, None] - n[..., None, T:]
    return s.clamp(max=0)
''', "Memory: the (T+S) x (T+S) Gram matrix is 4x the result when T = S (limit is twice)"),
]
