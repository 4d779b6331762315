# Round 26 class sweep, chapter 02 (classes R, S, T, U of tests/redteam/round26/BRIEF-SWEEP.md): the model answer of
# each part with one class's mistake put in; "correct": True only where the text allows the answer.
P1 = '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    q_norms = a.square().sum(dim=-1, keepdim=True)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)
    dots = a @ b.transpose(-2, -1)
    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)
'''
P1_R_Q = P1.replace("q_norms = a.square().sum(dim=-1, keepdim=True)", "q_norms = a.square().sum(dim=-1).squeeze().unsqueeze(-1)")
P1_R_K = P1.replace("k_norms = b.square().sum(dim=-1).unsqueeze(-2)", "k_norms = b.square().sum(dim=-1).squeeze().unsqueeze(-2)")
P1_S = P1.replace("dots = a @ b.transpose(-2, -1)",
                  "dots = (a.reshape(-1, a.shape[-2], a.shape[-1]) @ b.view(-1, b.shape[-2], b.shape[-1]).transpose(1, 2))"
                  ".view(*a.shape[:-1], b.shape[-2])")
P1_S_BOTH = P1.replace("dots = a @ b.transpose(-2, -1)",
                       "dots = (a.view(-1, a.shape[-2], a.shape[-1]) @ b.view(-1, b.shape[-2], b.shape[-1]).transpose(1, 2))"
                       ".view(*a.shape[:-1], b.shape[-2])")
P1_T = P1.replace("dots = a @ b.transpose(-2, -1)",
                  "dots = a @ torch.as_strided(b, (*b.shape[:-2], b.shape[-1], b.shape[-2]), "
                  "(*b.stride()[:-2], b.stride(-1), b.stride(-2)), 0)")
P1_U = '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    rows = []
    for i in range(a.shape[-2]):  # one query at a time: a (..., S, Dh) difference, no bigger than k
        d = a[..., i:i + 1, :] - b
        rows.append(-(d * d).sum(dim=-1))
    if not rows:
        return torch.zeros(*a.shape[:-1], b.shape[-2], dtype=q.dtype)
    return torch.stack(rows, dim=-2).to(q.dtype)
'''
P2 = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)
    return weights * (grad_weights - inner) / temperature
'''
P2_R = P2.replace("inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
                  "inner = (weights * grad_weights).sum(dim=-1).squeeze().unsqueeze(-1)")
P2_S = P2.replace("inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
                  "s = weights.shape[-1]\n    inner = torch.bmm(weights.reshape(-1, 1, s), grad_weights.view(-1, s, 1)).reshape(*weights.shape[:-1], 1)")
P2_S_PRODUCT = P2.replace("inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
                          "inner = (weights * grad_weights).view(-1, weights.shape[-1]).sum(dim=-1).view(*weights.shape[:-1], 1)")
P2_T = P2.replace("inner = (weights * grad_weights).sum(dim=-1, keepdim=True)",
                  "column = torch.as_strided(grad_weights, (*grad_weights.shape, 1), (*grad_weights.stride(), 1), 0)\n"
                  "    inner = (weights.unsqueeze(-2) @ column)[..., 0]")
P2_U = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    s = weights.shape[-1]
    flat_w, flat_g = weights.reshape(-1, s), grad_weights.reshape(-1, s)
    rows = [w * (g - (w * g).sum()) / temperature for w, g in zip(flat_w, flat_g)]
    if not rows:
        return weights * grad_weights
    return torch.stack(rows).reshape(weights.shape)
'''
P3_U = '''
def causal_mask(t, s, offset):
    keys = torch.arange(s)
    return torch.stack([keys <= offset + i for i in range(t)])
'''
P4 = '''
def padding_mask(lengths, s):
    start = s - lengths.long()[:, None]
    slots = torch.arange(s)[None, :]
    allowed = slots >= start
    positions = (slots - start).clamp(min=0)
    return allowed, positions
'''
P4_R = P4.replace("    return allowed, positions",
                  "    positions = positions.squeeze()\n    positions = positions if positions.dim() == 2 else positions.reshape(1, -1)\n"
                  "    return allowed, positions")
P4_T = P4.replace("start = s - lengths.long()[:, None]",
                  "start = s - torch.as_strided(lengths, (lengths.shape[0], 1), (lengths.stride(0), 1), 0).long()")
P4_U = '''
def padding_mask(lengths, s):
    slots = torch.arange(s)
    rows_a, rows_p = [], []
    for n in lengths.tolist():  # a loop over the batch, a few operations per row
        start = s - n
        rows_a.append(slots >= start)
        rows_p.append((slots - start).clamp(min=0))
    if not rows_a:
        return torch.zeros(0, s, dtype=torch.bool), torch.zeros(0, s, dtype=torch.int64)
    return torch.stack(rows_a), torch.stack(rows_p)
'''
P5 = '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = torch.exp(scores - top)
    total = e.sum(dim=-1, keepdim=True)
    weights = e / torch.where(total > 0, total, torch.ones_like(total))
    return weights @ v, lse
'''
P5_R = P5.replace("top = scores.amax(dim=-1, keepdim=True)", "top = scores.amax(dim=-1).squeeze().unsqueeze(-1)")
P5_R_TOTAL = P5.replace("total = e.sum(dim=-1, keepdim=True)", "total = e.sum(dim=-1).squeeze().unsqueeze(-1)")
P5_S = P5.replace("return weights @ v, lse",
                  "t, s = weights.shape[-2], weights.shape[-1]\n"
                  "    out = torch.bmm(weights.reshape(-1, t, s), v.view(-1, s, v.shape[-1])).view(*weights.shape[:-1], v.shape[-1])\n"
                  "    return out, lse")
P5_T = P5.replace("scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])",
                  "kt = torch.as_strided(k, (*k.shape[:-2], k.shape[-1], k.shape[-2]), (*k.stride()[:-2], k.stride(-1), k.stride(-2)), 0)\n"
                  "    scores = q @ kt / math.sqrt(q.shape[-1])")
P5_U = '''
def masked_attention(q, k, v, allowed):
    t = q.shape[-2]
    full = torch.broadcast_to(allowed, (*q.shape[:-1], k.shape[-2]))
    outs, lses = [], []
    for i in range(t):  # one query at a time
        scores = q[..., i:i + 1, :] @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(~full[..., i:i + 1, :], float("-inf"))
        lses.append(torch.logsumexp(scores, dim=-1))
        top = scores.amax(dim=-1, keepdim=True)
        top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
        e = torch.exp(scores - top)
        total = e.sum(dim=-1, keepdim=True)
        outs.append((e / torch.where(total > 0, total, torch.ones_like(total))) @ v)
    return torch.cat(outs, dim=-2), torch.cat(lses, dim=-1)
'''
P6_U = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    dots = torch.zeros(n, dtype=torch.float64)
    for j in range(d_k):  # one coordinate at a time: a few operations per unit of d_k
        dots = dots + torch.rand(n, generator=generator, dtype=torch.float64) * torch.randn(n, generator=generator, dtype=torch.float64)
    return (scale * dots).var().item()

predicted_variance_512 = 512 / 3
'''
P7 = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights @ v
'''
P7_R = P7.replace("        allowed = allowed & real[:, None, :]\n",
                  "        real = real.squeeze()\n        real = real if real.dim() == 2 else real.reshape(1, -1)  # a batch of one\n"
                  "        allowed = allowed & real[:, None, :]\n")
P7_S = P7.replace("        q, k, v = self.query(x), self.key(x), self.value(x)\n",
                  "        b, d = x.shape[0], x.shape[2]\n        flat = x.view(b * t, d)\n"
                  "        q, k, v = (self.query(flat).view(b, t, -1), self.key(flat).view(b, t, -1), self.value(flat).view(b, t, -1))\n")
P7_T = P7.replace("real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]",
                  "real = torch.arange(t, device=x.device)[None, :] < torch.as_strided(lengths, (lengths.shape[0], 1), (lengths.stride(0), 1), 0)")
P7_U = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        b, t, _ = x.shape
        rows = []
        for i in range(b):  # one sequence at a time
            q, k, v = self.query(x[i]), self.key(x[i]), self.value(x[i])
            scores = q @ k.T / math.sqrt(q.shape[-1])
            allowed = torch.ones(t, t, dtype=torch.bool)
            if causal:
                allowed = allowed.tril()
            n = t if lengths is None else int(lengths[i])
            allowed[:, n:] = False
            w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
            w = w.masked_fill((torch.arange(t) >= n)[:, None], 0.0)
            rows.append(w @ v)
        if b == 0:
            return self.value(x)
        return torch.stack(rows)
'''
for variant, base in ((P1_R_Q, P1), (P1_R_K, P1), (P1_S, P1), (P1_S_BOTH, P1), (P1_T, P1), (P2_R, P2), (P2_S, P2),
                      (P2_S_PRODUCT, P2), (P2_T, P2), (P4_R, P4), (P4_T, P4), (P5_R, P5), (P5_R_TOTAL, P5), (P5_S, P5),
                      (P5_T, P5), (P7_R, P7), (P7_S, P7), (P7_T, P7)):
    assert variant != base

SUBMISSIONS = [
    {"name": "sw_p1_R_query_norms_squeezed", "correct": False, "cells": {"raw_scores": P1_R_Q},
     "why": "R: squeeze() then unsqueeze(-1): T = 1 beside a batch of several lines the norms up on the batch"},
    {"name": "sw_p1_R_key_norms_squeezed", "correct": False, "cells": {"raw_scores": P1_R_K},
     "why": "R: squeeze() then unsqueeze(-2): S = 1 beside a batch of several"},
    {"name": "sw_p1_S_view_of_k", "correct": False, "cells": {"raw_scores": P1_S},
     "why": "S: k flattened with .view (q with reshape): fails on a transposed k"},
    {"name": "sw_p1_S_view_of_both", "correct": False, "cells": {"raw_scores": P1_S_BOTH},
     "why": "S: q and k flattened with .view: fails on transposed inputs"},
    {"name": "sw_p1_T_transpose_at_offset_0", "correct": False, "cells": {"raw_scores": P1_T},
     "why": "T: k transposed with as_strided at storage offset 0"},
    {"name": "sw_p1_U_loop_over_queries", "correct": True, "cells": {"raw_scores": P1_U},
     "why": "U: one query at a time, (..., S, Dh) differences (within the memory rule)"},
    {"name": "sw_p2_R_inner_squeezed", "correct": False, "cells": {"softmax_backward": P2_R},
     "why": "R: squeeze() then unsqueeze(-1): a leading axis of size 1 beside a longer one"},
    {"name": "sw_p2_S_view_of_grad_weights", "correct": False, "cells": {"softmax_backward": P2_S},
     "why": "S: grad_weights.view(-1, S, 1): fails on a transposed grad_weights"},
    {"name": "sw_p2_S_view_of_the_product", "correct": False, "cells": {"softmax_backward": P2_S_PRODUCT},
     "why": "S: (weights * grad_weights).view(-1, S): fails when both are transposed alike"},
    {"name": "sw_p2_T_column_at_offset_0", "correct": False, "cells": {"softmax_backward": P2_T},
     "why": "T: grad_weights read through as_strided at storage offset 0"},
    {"name": "sw_p2_U_loop_over_rows", "correct": True, "cells": {"softmax_backward": P2_U},
     "why": "U: a Python loop over the rows (the text forbids none)"},
    {"name": "sw_p3_U_loop_over_queries", "correct": True, "cells": {"causal_mask": P3_U},
     "why": "U: one row per query, stacked (memory t * s)"},
    {"name": "sw_p4_R_positions_squeezed", "correct": False, "cells": {"padding_mask": P4_R},
     "why": "R: squeeze() then a batch of one put back: s = 1 beside a batch of several"},
    {"name": "sw_p4_T_lengths_at_offset_0", "correct": False, "cells": {"padding_mask": P4_T},
     "why": "T: lengths as a (B, 1) as_strided view at storage offset 0"},
    {"name": "sw_p4_U_loop_over_batch", "correct": True, "cells": {"padding_mask": P4_U},
     "why": "U: a loop over the batch, a few operations per row (the text allows it)"},
    {"name": "sw_p5_R_top_squeezed", "correct": False, "cells": {"masked_attention": P5_R},
     "why": "R: squeeze() then unsqueeze(-1): T = 1 beside a batch of several"},
    {"name": "sw_p5_R_total_squeezed", "correct": False, "cells": {"masked_attention": P5_R_TOTAL},
     "why": "R: squeeze() then unsqueeze(-1) on the row sums: T = 1 beside a batch of several"},
    {"name": "sw_p5_S_view_of_v", "correct": False, "cells": {"masked_attention": P5_S},
     "why": "S: v.view(-1, S, Dv) in a bmm: fails on a transposed v"},
    {"name": "sw_p5_T_transpose_at_offset_0", "correct": False, "cells": {"masked_attention": P5_T},
     "why": "T: k transposed with as_strided at storage offset 0"},
    {"name": "sw_p5_U_loop_over_queries", "correct": True, "cells": {"masked_attention": P5_U},
     "why": "U: one query at a time (the text forbids no loop)"},
    {"name": "sw_p6_U_loop_over_coordinates", "correct": True, "cells": {"variance_experiment": P6_U},
     "why": "U: one coordinate at a time, (n,) draws per unit of d_k (a few operations per unit of d_k, allowed)"},
    {"name": "sw_p7_R_real_squeezed", "correct": False, "cells": {"fixed_self_attention": P7_R},
     "why": "R: squeeze() then a batch of one put back: T = 1 beside a batch of several"},
    {"name": "sw_p7_S_view_of_x", "correct": False, "cells": {"fixed_self_attention": P7_S},
     "why": "S: x.view(B * T, D): fails on a transposed x"},
    {"name": "sw_p7_T_lengths_at_offset_0", "correct": False, "cells": {"fixed_self_attention": P7_T},
     "why": "T: lengths as a (B, 1) as_strided view at storage offset 0"},
    {"name": "sw_p7_U_loop_over_batch", "correct": True, "cells": {"fixed_self_attention": P7_U},
     "why": "U: one sequence at a time (allowed)"},
]
