# Round 22 second pass, chapter 02, class H: a Python number made a tensor in the input's half dtype
SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": f"H: {name}", "correct": False, "cells": cells, "why": why})

W("p2 temperature made a tensor in the weights' dtype, float32 work", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    tau = torch.tensor(temperature, dtype=weights.dtype)
    work = torch.float32 if weights.dtype in (torch.float16, torch.bfloat16) else weights.dtype
    w, g = weights.to(work), grad_weights.to(work)
    inner = (w * g).sum(dim=-1, keepdim=True)
    return (w * (g - inner) / tau.to(work)).to(weights.dtype)
'''}, "temperature is a Python float; float16 of 1e-6 is 1.013e-6, so every gradient is 1.3% small")

W("p5 scale 1/sqrt(Dh) made a tensor in q's dtype, float32 work", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scale = torch.tensor(1 / math.sqrt(q.shape[-1]), dtype=q.dtype)
    work = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    scores = (q.to(work) @ k.to(work).transpose(-2, -1)) * scale.to(work)
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    weights = torch.exp(scores - shift.unsqueeze(-1))
    return (weights @ v.to(work)).to(q.dtype), lse.to(q.dtype)
'''}, "scale 1/sqrt(Dh) rounded to bfloat16 before float32 work")

W("p7 scale 1/sqrt(Dh) made a tensor in x's dtype, float32 work", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scale = torch.tensor(1 / math.sqrt(q.shape[-1]), dtype=x.dtype)
        work = torch.float32 if x.dtype == torch.bfloat16 else x.dtype
        scores = (q.to(work) @ k.to(work).transpose(-2, -1)) * scale.to(work)
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return (torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v.to(work)).to(x.dtype)
        real = torch.arange(t, device=x.device)[None, :] < lengths.long()[:, None]
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        weights = weights.masked_fill(~real[:, :, None], 0.0)
        return (weights @ v.to(work)).to(x.dtype)
'''}, "scale 1/sqrt(d_k) rounded to bfloat16 before float32 work")
