# Round 19 class sweep, chapter 02 (02-scaled-attention): one variant of the model answer per class and part
# where the class applies (tests/redteam/round19/BRIEF-SWEEP.md). Classes that cannot apply: 02-sweep-verdicts.md.

P1_MODEL = '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    q_norms = a.square().sum(dim=-1, keepdim=True)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)
    dots = a @ b.transpose(-2, -1)
    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)
'''

P5_MODEL = '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    shift = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    weights = torch.exp(scores - shift.unsqueeze(-1))
    return weights @ v, lse
'''

P7_HEAD = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
'''

SUBMISSIONS = [
    # ---------------- Part 1: raw_scores ----------------
    {"name": "p1-A-dots-in-half", "correct": False, "cells": {"raw_scores": '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    q_norms = a.square().sum(dim=-1, keepdim=True)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)
    dots = (q @ k.transpose(-2, -1)).to(torch.float64)   # the product in the input's dtype
    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)
'''}, "why": "A: q . k formed in float16 (entries near 80, products past 65504: inf). Text: float16 overflows past 65504 ... squares taken in float16 become inf"},
    {"name": "p1-A-scaled-half-dots", "correct": False, "cells": {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else torch.float64
    a, b = q.to(work), k.to(work)
    q_norms = a.square().sum(dim=-1, keepdim=True)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)
    dots = ((2 * q) @ k.transpose(-2, -1)).to(work)     # 2 q.k in the half dtype
    return (-(q_norms + k_norms - dots).clamp(min=0)).to(q.dtype)
'''}, "why": "A: 2 q . k formed in the half dtype (past 65504 at entries near 80)"},
    {"name": "p1-B-float32-in-float32", "correct": False, "cells": {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    a, b = q.to(work), k.to(work)
    q_norms = a.square().sum(dim=-1, keepdim=True)
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)
    dots = a @ b.transpose(-2, -1)
    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)
'''}, "why": "B: squared norms of float32 entries near 1e19 overflow (text: work float32 in float64)"},
    {"name": "p1-E-q-norms-from-a-TxT-gram", "correct": False, "cells": {"raw_scores": '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    q_norms = (a @ a.transpose(-2, -1)).diagonal(dim1=-2, dim2=-1).unsqueeze(-1)   # (..., T, T) Gram
    k_norms = b.square().sum(dim=-1).unsqueeze(-2)
    dots = a @ b.transpose(-2, -1)
    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)
'''}, "why": "E: a (T, T) intermediate that fits twice the (T, S) result only while T is close to S"},
    # ---------------- Part 2: softmax_backward ----------------
    {"name": "p2-A-float16-in-its-own-dtype", "correct": True, "cells": {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)
    return weights * (grad_weights - inner) / temperature
'''}, "why": "A (allowed): the model answer works float16 rows in float16; the text bounds grad_weights of half inputs to a few units"},
    {"name": "p2-E-jacobian", "correct": False, "cells": {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    jac = torch.diag_embed(weights) - weights[..., :, None] * weights[..., None, :]
    return (jac @ grad_weights[..., :, None]).squeeze(-1) / temperature
'''}, "why": "E: an (..., S, S) Jacobian fits 2 x numel(weights) only when S <= 2 (text: no (..., S, S) Jacobian)"},
    # ---------------- Part 3: causal_mask ----------------
    {"name": "p3-C-zero-based-float32", "correct": False, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    key = torch.arange(s, dtype=torch.float32)
    query = torch.arange(offset, offset + t, dtype=torch.float32)
    return key[None, :] <= query[:, None]
'''}, "why": "C: float32 positions, 0-based (text: positions that stay exact integers)"},
    {"name": "p3-C-one-based-float32", "correct": False, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    key = torch.arange(1, s + 1, dtype=torch.float32)
    query = torch.arange(offset + 1, offset + t + 1, dtype=torch.float32)
    return key[None, :] <= query[:, None]
'''}, "why": "C: float32 positions shifted by one (the alignment the one-query case missed)"},
    {"name": "p3-C-key-relative-float32", "correct": False, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    rel = torch.arange(s, dtype=torch.float32) - offset      # key position relative to the block's first query
    return rel[None, :] <= torch.arange(t, dtype=torch.float32)[:, None]
'''}, "why": "C: float32 key positions made relative to the offset after rounding"},
    {"name": "p3-C-two-based-float32", "correct": False, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    key = torch.arange(2, s + 2, dtype=torch.float32)
    query = torch.arange(offset + 2, offset + t + 2, dtype=torch.float32)
    return key[None, :] <= query[:, None]
'''}, "why": "C: float32 positions shifted by two"},
    {"name": "p3-C-float64-positions", "correct": True, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    key = torch.arange(s, dtype=torch.float64)
    query = torch.arange(offset, offset + t, dtype=torch.float64)
    return key[None, :] <= query[:, None]
'''}, "why": "C (allowed): float64 holds every integer up to 2**53, far past any cache that fits in memory"},
    {"name": "p3-E-square-of-the-last-position", "correct": False, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    n = offset + t
    square = torch.ones(n, n, dtype=torch.bool).tril()[offset:]
    return torch.cat([square, torch.zeros(t, s - n, dtype=torch.bool)], dim=1)
'''}, "why": "E: an (offset + t)^2 square, which fits t * s only while offset is small (text: memory proportional to t * s)"},
    # ---------------- Part 4: padding_mask ----------------
    {"name": "p4-D-positions-cumsum-int16", "correct": False, "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    start = s - lengths.long()[:, None]
    slots = torch.arange(s)[None, :]
    allowed = slots >= start
    positions = (allowed.cumsum(-1, dtype=torch.int16) - 1).clamp(min=0).long()
    return allowed, positions
'''}, "why": "D: a running count kept in int16 wraps past 32767 (text: rows of tens of thousands of slots)"},
    {"name": "p4-D-lengths-to-uint8", "correct": False, "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    start = s - lengths.to(torch.uint8).long()[:, None]
    slots = torch.arange(s)[None, :]
    allowed = slots >= start
    positions = (slots - start).clamp(min=0)
    return allowed, positions
'''}, "why": "D: lengths narrowed to uint8 (wraps at 256)"},
    {"name": "p4-C-positions-in-float32", "correct": True, "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    start = (s - lengths.long()[:, None]).to(torch.float32)
    slots = torch.arange(s, dtype=torch.float32)[None, :]
    allowed = slots >= start
    positions = (slots - start).clamp(min=0).long()
    return allowed, positions
'''}, "why": "C (allowed): the text bounds s below 2**24, where float32 holds every integer"},
    {"name": "p4-H-size-from-the-longest", "correct": False, "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    longest = int(lengths.max())
    start = s - lengths.long()[:, None]
    slots = torch.arange(s)[None, :]
    allowed = slots >= start
    positions = (slots - start).clamp(min=0, max=longest)
    return allowed, positions
'''}, "why": "H: .max() of an empty batch (text: B = 0 too, lengths.max() has no value)"},
    # ---------------- Part 5: masked_attention ----------------
    {"name": "p5-A-model-answer-in-float16", "correct": True, "cells": {"masked_attention": P5_MODEL},
     "why": "A: the model answer forms q . k in float16 before the scaling; allowed only if the text takes no float16 q"},
    {"name": "p5-D-count-in-int8", "correct": False, "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    has_key = allowed.expand(scores.shape).sum(-1, dtype=torch.int8) > 0
    lse = torch.where(has_key, torch.logsumexp(scores, dim=-1), torch.full((), float("-inf"), dtype=scores.dtype))
    shift = torch.where(has_key, lse, torch.zeros_like(lse))
    weights = torch.exp(scores - shift.unsqueeze(-1))
    return weights @ v, lse
'''}, "why": "D: a count of allowed keys in int8 (wraps at 128) (text: only a query with no allowed key gets -inf)"},
    {"name": "p5-F-hf-additive-finfo-min", "correct": False, "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores + (~allowed).to(scores.dtype) * torch.finfo(scores.dtype).min
    has_key = allowed.expand(scores.shape).any(-1)
    lse = torch.logsumexp(scores, dim=-1).masked_fill(~has_key, float("-inf"))
    weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0).masked_fill(~has_key[..., None], 0.0)
    return weights @ v, lse
'''}, "why": "F: finfo(dtype).min added to the scores: a masked key scoring far above the allowed ones (near |lowest|/2) stays above them (text: a masked key counts for nothing however its score compares)"},
    {"name": "p5-F-hf-additive-finfo-fill-correct", "correct": True, "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    has_key = allowed.expand(scores.shape).any(-1)
    lse = torch.logsumexp(scores, dim=-1).masked_fill(~has_key, float("-inf"))
    weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0).masked_fill(~has_key[..., None], 0.0)
    return weights @ v, lse
'''}, "why": "F control (correct): finfo(dtype).min filled in, not added: lies below every finite score of that dtype"},
    {"name": "p5-H-amax-of-no-keys", "correct": True, "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float("-inf"))
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    e = torch.exp(scores - top)
    total = e.sum(dim=-1, keepdim=True)
    lse = (torch.log(total) + top).squeeze(-1)
    return (e / torch.where(total > 0, total, torch.ones_like(total))) @ v, lse
'''}, "why": "H: amax over the keys raises for S = 0; allowed if the text takes S >= 1 only"},
    # ---------------- Part 6: dot_product_variance ----------------
    {"name": "p6-G-raw-moments", "correct": True, "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(dim=-1)
    return ((dots ** 2).mean() - dots.mean() ** 2).item() * n / (n - 1)

predicted_variance_512 = 512 / 3
'''}, "why": "G (allowed): E[x^2] - E[x]^2 cancels only under a large common offset; these dots have mean 0 by construction"},
    {"name": "p6-G-raw-moments-float32", "correct": True, "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q * k).sum(dim=-1).double() * scale
    return ((dots ** 2).mean() - dots.mean() ** 2).item() * n / (n - 1)

predicted_variance_512 = 512 / 3
'''}, "why": "G (allowed): drawn in float32, moments in float64 after the scale; mean 0, no cancellation"},
    # ---------------- Part 7: FixedSelfAttention ----------------
    {"name": "p7-C-one-based-slots-in-x-dtype", "correct": False, "cells": {"fixed_self_attention": P7_HEAD + '''
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(1, t + 1, dtype=x.dtype)[None, :] <= lengths.to(x.dtype)[:, None]  # slot j is token j + 1
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        return weights.masked_fill(~real[:, :, None], 0.0) @ v
'''}, "why": "C: slot numbers counted from 1 in the dtype of x: bfloat16 holds 257 as 256, which the single case (lengths 257) cannot tell from the 0-based rounding (text: slot numbers and lengths stay whole numbers)"},
    {"name": "p7-C-zero-based-slots-in-x-dtype", "correct": False, "cells": {"fixed_self_attention": P7_HEAD + '''
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(t, dtype=x.dtype)[None, :] < lengths.to(x.dtype)[:, None]
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        return weights.masked_fill(~real[:, :, None], 0.0) @ v
'''}, "why": "C: 0-based slot numbers in the dtype of x (the existing 257 case)"},
    {"name": "p7-C-causal-one-based-in-x-dtype", "correct": False, "cells": {"fixed_self_attention": P7_HEAD + '''
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        pos = torch.arange(1, t + 1, dtype=x.dtype)
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = pos[None, :] <= pos[:, None]
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(t)[None, :] < lengths.long()[:, None]
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        return weights.masked_fill(~real[:, :, None], 0.0) @ v
'''}, "why": "C: causal positions counted from 1 in the dtype of x"},
    {"name": "p7-D-count-in-uint8", "correct": False, "cells": {"fixed_self_attention": P7_HEAD + '''
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is not None:
            allowed = allowed & (torch.arange(t)[None, :] < lengths.long()[:, None])[:, None, :]
        allowed = allowed.expand(x.shape[0], t, t)
        has_key = allowed.sum(-1, keepdim=True, dtype=torch.uint8) > 0
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        weights = weights.masked_fill(~has_key, 0.0)
        if lengths is not None:
            weights = weights.masked_fill(~(torch.arange(t)[None, :] < lengths.long()[:, None])[:, :, None], 0.0)
        return weights @ v
'''}, "why": "D: allowed keys counted in uint8 (wraps at 256)"},
    {"name": "p7-F-hf-additive-finfo-min", "correct": False, "cells": {"fixed_self_attention": P7_HEAD + '''
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        real = torch.ones(x.shape[0], t, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(t)[None, :] < lengths.long()[:, None]
        allowed = allowed & real[:, None, :]
        bias = (~allowed).to(scores.dtype) * torch.finfo(scores.dtype).min
        weights = torch.softmax(scores + bias, dim=-1)
        weights = weights.masked_fill(~allowed, 0.0).masked_fill(~real[:, :, None], 0.0)
        return weights @ v
'''}, "why": "F: finfo(dtype).min added to the scores (Hugging Face's extended mask): a masked key scoring near |lowest| stays above allowed ones near lowest/2 (text: no query may attend to a padding key; causal: j <= i)"},
    {"name": "p7-A-float16-layer-unscaled-first", "correct": True, "cells": {"fixed_self_attention": P7_HEAD + '''
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(t, t, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
        real = torch.arange(t)[None, :] < lengths.long()[:, None]
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        return weights.masked_fill(~real[:, :, None], 0.0) @ v
'''}, "why": "A: the model answer's order (q . k, then the divide) in the layer's dtype; allowed only if the text takes no float16 layer"},
]
