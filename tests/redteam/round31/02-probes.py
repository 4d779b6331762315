# Phase-2 probes (not blind): hand-written backwards right only for 3-D inputs.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

add("probe-w-p5-backward-transpose-1-2", False, {"masked_attention": '''
class MaskedAttn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, allowed):
        scale = 1 / math.sqrt(q.shape[-1])
        s = (q @ k.transpose(-2, -1)) * scale
        s = s.masked_fill(~allowed, float("-inf"))
        m = s.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(s - m)
        tot = e.sum(-1, keepdim=True)
        safe = torch.where(tot > 0, tot, torch.ones_like(tot))
        p = e / safe
        out = p @ v
        lse = torch.where(tot > 0, m + torch.log(safe), torch.full_like(m, float("-inf"))).squeeze(-1)
        ctx.save_for_backward(q, k, v, p, out)
        ctx.scale = scale
        return out, lse

    @staticmethod
    def backward(ctx, d_out, d_lse):
        q, k, v, p, out = ctx.saved_tensors
        dv = p.transpose(1, 2) @ d_out                       # (B, S, T) @ (B, T, Dv)
        dp = d_out @ v.transpose(1, 2)
        D = (d_out * out).sum(-1, keepdim=True)
        ds = p * (dp - D + d_lse[..., None]) * ctx.scale
        return ds @ k, ds.transpose(1, 2) @ q, dv, None


def masked_attention(q, k, v, allowed):
    return MaskedAttn.apply(q, k, v, allowed)
'''}, "Part 5: shapes (..., T, Dh) and 'Gradients must flow ... the hidden tests compare their gradients': the "
      "hand-written backward transposes dims 1 and 2, right for (B, T, Dh) inputs only (2-D or 4-D inputs break).")

add("probe-w-p1-backward-bmm", False, {"raw_scores": '''
def wide_of(t):
    return torch.float64 if t.dtype in (torch.float32, torch.float64) else torch.float32

class NegSqDist(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k):
        ctx.save_for_backward(q, k)
        qw, kw = q.to(wide_of(q)), k.to(wide_of(k))
        s = 2 * (qw @ kw.transpose(-2, -1)) - (qw * qw).sum(-1)[..., :, None] - (kw * kw).sum(-1)[..., None, :]
        return s.clamp(max=0).to(q.dtype)

    @staticmethod
    def backward(ctx, g):
        q, k = ctx.saved_tensors
        gq = -2 * (g.sum(-1, keepdim=True) * q - torch.bmm(g, k))
        gk = -2 * (g.sum(-2)[..., None] * k - torch.bmm(g.transpose(-2, -1), q))
        return gq, gk


def raw_scores(q, k):
    return NegSqDist.apply(q, k)
'''}, "Part 1: q (..., T, Dh) with any leading dims (possibly none) and gradients compared with the reference's: the "
      "backward uses torch.bmm, right for 3-D inputs only.")

add("probe-w-p5-lse-squeeze-all", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    tot = e.sum(-1, keepdim=True)
    safe = torch.where(tot > 0, tot, torch.ones_like(tot))
    lse = torch.where(tot > 0, m + torch.log(safe), torch.full_like(m, float("-inf"))).squeeze()
    return (e / safe) @ v, lse
'''}, "Part 5: 'lse has shape (..., T)': squeeze() without a dim also drops T = 1 and a batch of one.")
PRELUDE=[]
