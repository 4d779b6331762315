P1 = '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(work), k.to(work)
    s = None
    for d in range(q.shape[-1]):
        diff = qw[..., :, d, None] - kw[..., None, :, d]
        s = diff * diff if s is None else s + diff * diff
    if s is None:
        s = qw.new_zeros(q.shape[:-1] + (k.shape[-2],))
    return (-s).to(q.dtype)
'''
P2 = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / temperature).to(weights.dtype)
'''
P3 = '''
def causal_mask(t, s, offset):
    j = torch.arange(s)
    i = torch.arange(t) + offset
    return j[None, :] <= i[:, None]
'''
P4 = '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    j = torch.arange(s)
    first = s - L
    allowed = j[None, :] >= first[:, None]
    positions = torch.where(allowed, j[None, :] - first[:, None], torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''
P5 = '''
def masked_attention(q, k, v, allowed):
    work = q.dtype if q.dtype in (torch.float32, torch.float64) else torch.float32
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    z = qw @ kw.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(z.shape)
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    any_ = allowed.any(-1, keepdim=True)
    m = torch.where(any_, m, torch.zeros_like(m))
    e = torch.exp(z - m)
    tot = e.sum(-1, keepdim=True)
    safe = torch.where(any_, tot, torch.ones_like(tot))
    out = (e / safe) @ vw
    lse = torch.where(any_, m + torch.log(safe), torch.full_like(m, float("-inf"))).squeeze(-1)
    return out.to(q.dtype), lse.to(q.dtype)
'''
P6 = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    x = scale * (q * k).sum(-1)
    return x.var().item()

predicted_variance_512 = 512 / 3
'''
P7 = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(1, T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.to(device=x.device, dtype=torch.long)[:, None]
            allowed = allowed & real[:, None, :]
        any_ = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_, 0.0)
        if scores.dtype in (torch.float32, torch.float64):
            w = torch.softmax(scores, dim=-1)
        else:
            w = torch.softmax(scores.float(), dim=-1).to(scores.dtype)
        w = w.masked_fill(~any_, 0.0)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''
P8 = 'answer_masking = "d"\nanswer_doubling = "b"\n'
MODEL = {"raw_scores": P1, "softmax_backward": P2, "causal_mask": P3, "padding_mask": P4, "masked_attention": P5,
         "variance_experiment": P6, "fixed_self_attention": P7, "mc_answers": P8}

def R(src, *pairs):
    for a, b in pairs:
        assert a in src, a
        src = src.replace(a, b)
    return src

W = []
def add(name, correct, cells, why):
    W.append({"name": name, "correct": correct, "cells": cells, "why": why})
add("num-p6-moments-formula", True, {"variance_experiment": R(MODEL["variance_experiment"],
    ("    return x.var().item()", "    m = x.mean()\n    return ((x * x).mean() - m * m).mul(n / (n - 1)).item()     # E[x^2] - E[x]^2, unbiased"))},
    "correct? textbook variance formula; the mean of q.k is 0, so no cancellation")
add("ok-p4-float-cumsum", True, {"padding_mask": '''
def padding_mask(lengths, s):
    allowed = torch.arange(s)[None, :] >= (s - lengths.long())[:, None]
    positions = (allowed.float().cumsum(-1) - 1).clamp(min=0).long()     # exact below 2**24 slots
    return allowed, positions
'''}, "correct: float cumsum, exact below 2**24")
add("ok-p5-logsumexp-nan-to-num", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    lse = torch.logsumexp(z, dim=-1, keepdim=True)
    out = torch.nan_to_num(torch.exp(z - lse), nan=0.0) @ v
    return out, lse.squeeze(-1)
'''}, "correct: exp(z - lse), NaN rows (no key) set to 0")
add("red-p5-any-on-the-wrong-dim", True, {"masked_attention": R(MODEL["masked_attention"],
    ("    allowed = allowed.expand(z.shape)\n", ""),
    ("    any_ = allowed.any(-1, keepdim=True)\n", "    any_ = allowed.any(-1, keepdim=True)\n    allowed = allowed.expand(z.shape)\n"))},
    "control (correct): the any taken before the expand broadcasts back")
add("red-p2-mean-instead-of-weighted-sum", True, {"softmax_backward": R(MODEL["softmax_backward"],
    ("    dot = (w * g).sum(-1, keepdim=True)", "    dot = (w * g).sum(-1, keepdim=True) / (w > 0).sum(-1, keepdim=True).clamp(min=1) * (w > 0).sum(-1, keepdim=True).clamp(min=1)"))},
    "control (correct): divides and multiplies by the count of nonzero weights")
add("paper-p7-sdpa-layer", False, {"fixed_self_attention": '''
import torch.nn.functional as F
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        return torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
'''}, "P7: 'a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced by zeros afterwards' (lengths[b] = 0)")
add("obo-p7-bool-lengths-compare-uint8", False, {"fixed_self_attention": R(MODEL["fixed_self_attention"],
    ("real = torch.arange(T, device=x.device)[None, :] < lengths.to(device=x.device, dtype=torch.long)[:, None]",
     "real = torch.arange(T, device=x.device, dtype=lengths.dtype)[None, :] < lengths[:, None]"))},
    "P7: lengths of any integer dtype (uint8 and int8 too, whose range can be smaller than T): slot numbers in that dtype wrap")
SUBMISSIONS = W
