# the helper's own correct answers, used as the starting point of some submissions
BASE = {}
BASE["raw_scores"] = '''
def raw_scores(q, k):
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qq, kk = q.to(wd), k.to(wd)
    d = (qq * qq).sum(-1)[..., :, None] + (kk * kk).sum(-1)[..., None, :] - 2 * (qq @ kk.transpose(-2, -1))
    return (-d.clamp(min=0)).to(q.dtype)
'''
BASE["softmax_backward"] = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wd = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(wd), grad_weights.to(wd)
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / temperature).to(weights.dtype)
'''
BASE["causal_mask"] = '''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (torch.arange(t) + offset)[:, None]
'''
BASE["padding_mask"] = '''
def padding_mask(lengths, s):
    L = lengths.long()
    idx = torch.arange(s)
    start = s - L
    allowed = idx[None, :] >= start[:, None]
    positions = torch.where(allowed, idx[None, :] - start[:, None], 0)
    return allowed, positions
'''
BASE["masked_attention"] = '''
def masked_attention(q, k, v, allowed):
    wd = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    qq, kk, vv = q.to(wd), k.to(wd), v.to(wd)
    z = qq @ kk.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros((), dtype=wd))
    e = torch.exp(z - m)
    ssum = e.sum(-1, keepdim=True)
    lse = (torch.log(ssum) + m).squeeze(-1)
    w = e / torch.where(ssum > 0, ssum, torch.ones((), dtype=wd))
    return (w @ vv).to(q.dtype), lse.to(q.dtype)
'''
BASE["variance_experiment"] = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = (q * k).sum(-1) * scale
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''
BASE["fixed_self_attention"] = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        any_ = allowed.any(-1, keepdim=True)
        allowed = allowed | ~any_
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = weights @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0)
        return out
'''
BASE["mc_answers"] = '''
answer_masking = "d"
answer_doubling = "b"
'''

B = BASE

def sub(src, old, new, count=1):
    assert old in src, (old, src)
    return src.replace(old, new, count)

S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ======================= wrong =======================
# --- loop writer ---
add("w01-loop-rows-stack-empty", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    S = weights.shape[-1]
    wd = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    rows = []
    for w, g in zip(weights.reshape(-1, S).to(wd), grad_weights.reshape(-1, S).to(wd)):
        rows.append(w * (g - (w * g).sum()) / temperature)
    return torch.stack(rows).reshape(weights.shape).to(weights.dtype)
'''}, "loop writer: torch.stack of no rows fails on an empty batch ('possibly none, of any size, 0 too: an empty batch gets an empty result')")
add("w02-loop-negative-slice", False, {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        L = int(lengths[b])
        allowed[b, -L:] = True
        positions[b, -L:] = torch.arange(L) if L > 0 else 0
    return allowed, positions
'''}, "loop writer: x[-L:] with L = 0 selects the whole row, so a sequence of length 0 is all real ('0 <= lengths[b] <= s')")
add("w03-loop-float32-accumulator-scale", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    dots = torch.zeros(n)
    for j in range(d_k):
        qj = torch.rand(n, generator=generator, dtype=torch.float64)
        kj = torch.randn(n, generator=generator, dtype=torch.float64)
        dots += qj * kj
    return (dots * scale).var().item()

predicted_variance_512 = 512 / 3
'''}, "loop writer + constructor: float32 accumulator; squares at scale 1e25/1e-25 overflow/underflow ('whatever dtype you draw in, the variance must come out right')")
add("w04-loop-queries-float32-buffer", False, {"raw_scores": '''
def raw_scores(q, k):
    T, S = q.shape[-2], k.shape[-2]
    out = torch.empty(q.shape[:-2] + (T, S))
    for i in range(T):
        qi = q[..., i:i + 1, :].double()
        out[..., i, :] = -((qi - k.double()) ** 2).sum(-1)
    return out
'''}, "loop writer + constructor: float32 result buffer; float64 inputs rounded, bf16 returned float32 ('the result is (..., T, S) in that dtype')")
# --- tie and order ---
add("w05-tie-lse-first", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isfinite(lse), lse, torch.zeros((), dtype=z.dtype))
    w = torch.exp(z - safe[..., None])
    return w @ v, lse
'''}, "tie: weights exp(z - lse) from a rounded lse; tied keys at -30000 get 0.4999 ('divide the exponentials by their sum')")
add("w06-tie-finfo-min-fill", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    zm = z.masked_fill(~allowed, torch.finfo(z.dtype).min)
    w = torch.softmax(zm, dim=-1)
    lse = torch.logsumexp(zm, dim=-1)
    has = allowed.expand(z.shape).any(-1)
    w = w * has[..., None]
    lse = torch.where(has, lse, torch.full_like(lse, float("-inf")))
    return w @ v, lse
'''}, "tie: finfo.min fill ties with an allowed score of exactly that value ('a masked score filled with torch.finfo(dtype).min ties with an allowed score of exactly that value')")
add("w07-tie-finfo-min-layer", False, {"fixed_self_attention": sub(B["fixed_self_attention"],
    'weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)',
    'weights = torch.softmax(scores.masked_fill(~allowed, torch.finfo(scores.dtype).min), dim=-1)')},
    "tie: finfo.min fill ties with an allowed key scoring exactly finfo.min ('when an allowed key scores exactly torch.finfo(dtype).min')")
# --- exception path ---
add("w08-exception-assert-dtype", False, {"raw_scores": sub(B["raw_scores"],
    'def raw_scores(q, k):\n', 'def raw_scores(q, k):\n    assert q.dtype in (torch.float32, torch.float64), "use float32 or float64"\n')},
    "exception path: asserts a dtype precondition the text denies (bfloat16/float16 inputs are valid)")
add("w09-exception-empty-returns-input", False, {"softmax_backward": sub(B["softmax_backward"],
    'def softmax_backward(weights, grad_weights, temperature=1.0):\n',
    'def softmax_backward(weights, grad_weights, temperature=1.0):\n    if weights.numel() == 0:\n        return weights\n')},
    "exception path: empty batch returns the input itself ('an empty batch gets an empty result, a new tensor like every result')")
add("w10-exception-assert-mask-dims", False, {"masked_attention": sub(B["masked_attention"],
    'def masked_attention(q, k, v, allowed):\n',
    'def masked_attention(q, k, v, allowed):\n    assert allowed.dim() == q.dim(), "mask must have one entry per query"\n')},
    "exception path: refuses a (T, S) mask shared by a batch ('it may be a (T, S) causal mask shared by the batch')")
add("w11-exception-empty-positions-float", False, {"padding_mask": sub(B["padding_mask"],
    'def padding_mask(lengths, s):\n',
    'def padding_mask(lengths, s):\n    if lengths.numel() == 0:\n        return torch.zeros(0, s, dtype=torch.bool), torch.zeros(0, s)\n')},
    "exception path + constructor: empty batch returns float32 positions ('positions has dtype torch.int64')")
add("w12-exception-default-generator", False, {"variance_experiment": sub(B["variance_experiment"],
    'def dot_product_variance(d_k, n, scale=1.0, generator=None):\n',
    'def dot_product_variance(d_k, n, scale=1.0, generator=None):\n    if generator is None:\n        generator = torch.Generator()\n')},
    "exception path: falls back to a fresh generator ('a fresh torch.Generator() of your own would return the same value at every call')")
add("w13-exception-nan-to-num-layer", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        out = weights @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0)
        return out
'''}, "exception path: NaN rows replaced after the softmax; a length-0 sequence sends NaN gradients ('a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced')")
add("w14-exception-assert-cache-size", False, {"causal_mask": sub(B["causal_mask"],
    'def causal_mask(t, s, offset):\n', 'def causal_mask(t, s, offset):\n    assert s <= 1 << 24, "cache too large for a mask"\n')},
    "exception path: refuses caches the text allows ('Caches can hold tens of millions of slots')")
# --- mask polarity ---
add("w15-mask-3d-as-batch", False, {"masked_attention": sub(B["masked_attention"],
    'def masked_attention(q, k, v, allowed):\n',
    'def masked_attention(q, k, v, allowed):\n    if allowed.dim() == 3 and q.dim() == 4:\n        allowed = allowed[:, None]   # (B, T, S) -> (B, 1, T, S)\n')},
    "mask axis: a 3-D mask with 4-D inputs taken as (B, T, S) ('for inputs (B, H, T, Dh) a 3-D mask is (H, T, S) ... not a (B, T, S) mask missing its head axis')")
add("w16-mask-additive-float", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    bias = torch.where(allowed, 0.0, -1e30)
    z = z + bias
    w = torch.softmax(z, dim=-1)
    lse = torch.logsumexp(z, dim=-1)
    has = allowed.expand(z.shape).any(-1)
    w = torch.where(has[..., None], w, 0.0)
    lse = torch.where(has, lse, float("-inf"))
    return w @ v, lse
'''}, "mask polarity: additive float mask where a boolean one is asked; bf16 promoted to float32 by the float32 bias, and masked scores near +1e308 stay above ('one added to the scores ... leaves a masked score above')")
add("w17-mask-and-not-or", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        pad = None
        if lengths is not None:
            pad = torch.arange(T)[None, :] >= lengths.long()[:, None]     # True = padding (key_padding_mask style)
        if causal and pad is not None:
            hide = future[None] & pad[:, None, :]
        elif causal:
            hide = future[None].expand(B, T, T)
        elif pad is not None:
            hide = pad[:, None, :].expand(B, T, T)
        else:
            hide = torch.zeros(B, T, T, dtype=torch.bool)
        none = hide.all(-1, keepdim=True)
        hide = hide & ~none
        out = torch.softmax(scores.masked_fill(hide, float("-inf")), dim=-1) @ v
        if pad is not None:
            out = out.masked_fill(pad[:, :, None], 0)
        return out
'''}, "mask polarity (De Morgan): hidden = future & padding where it must be future | padding ('with both, both rules hold')")
add("w18-mask-sdpa-float-bias-layer", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        allowed = allowed | ~allowed.any(-1, keepdim=True)
        bias = torch.zeros(B, T, T).masked_fill(~allowed, float("-inf"))
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + bias
        out = torch.softmax(scores, dim=-1) @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0)
        return out
'''}, "mask polarity/constructor: float32 additive bias turns a bf16 layer's output float32 ('the output is (B, T, D), in the dtype of x')")
# --- constructor ---
add("w19-constructor-float-arange", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(0, s, 1.0)
    queries = torch.arange(offset, offset + t, 1.0)
    return keys[None, :] <= queries[:, None]
'''}, "constructor: float32 arange is not exact past 2**24 ('with positions that stay exact integers'; tens of millions of slots)")
add("w20-constructor-temperature-tensor", False, {"softmax_backward": sub(B["softmax_backward"],
    'return (w * (g - dot) / temperature).to(weights.dtype)',
    'tau = torch.tensor(temperature)\n    return (w * (g - dot) / tau).to(weights.dtype)')},
    "constructor: torch.tensor(temperature) is float32, 1 + 5e-10 rounds to 1 ('one just beside 1, such as 1 + 5e-10, is not 1'; float64 to 1e-12)")
add("w21-constructor-draw-float32", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return ((q * k).sum(-1) * scale).var().item()

predicted_variance_512 = 512 / 3
'''}, "constructor: default float32 draws and scale inside the squares ('1e-25 and 1e25, where squares of float32 numbers underflow to 0 or overflow to inf')")
add("w22-constructor-rsqrt-tensor", False, {"masked_attention": sub(B["masked_attention"],
    'z = qq @ kk.transpose(-2, -1) / math.sqrt(q.shape[-1])',
    'z = qq @ kk.transpose(-2, -1) * torch.tensor(q.shape[-1]).rsqrt()')},
    "constructor: 1/sqrt(Dh) as a float32 0-d tensor; float64 scores scaled by a rounded constant")
add("w23-constructor-arange-dtype", False, {"padding_mask": '''
def padding_mask(lengths, s):
    idx = torch.arange(s, dtype=lengths.dtype)
    start = s - lengths
    allowed = idx[None, :] >= start[:, None]
    positions = torch.where(allowed, (idx[None, :] - start[:, None]).long(), 0)
    return allowed, positions
'''}, "constructor/int range: arange in the dtype of lengths and s - lengths in uint8 wrap ('whose range can be smaller than s')")
add("w24-constructor-arange-xdtype-layer", False, {"fixed_self_attention": sub(B["fixed_self_attention"],
    'real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]',
    'real = torch.arange(T, dtype=x.dtype)[None, :] < lengths.to(x.dtype)[:, None]')},
    "constructor: slot numbers in the layer's dtype; bfloat16 rounds them from 256 on ('slot numbers compared in it go wrong from 256 on')")
add("w25-constructor-half-two-float32", False, {"raw_scores": '''
def raw_scores(q, k):
    if q.dtype == torch.float32:
        return raw_scores(q.double(), k.double()).float()
    two = torch.full((1,), 2.0)
    d = (q * q).sum(-1)[..., :, None] + (k * k).sum(-1)[..., None, :] - two * (q @ k.transpose(-2, -1))
    return -d.clamp(min=0)
'''}, "constructor: a float32 1-D constant turns bfloat16/float16 results into float32 ('the result is (..., T, S) in that dtype')")
add("w26-mc-wrong", False, {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
    "8a: in float64, -1e9 keeps the scores' differences, so the weights are those of the unmasked row (d)")

# ======================= correct =======================
add("c01-raw-loop-exact-diff", True, {"raw_scores": '''
def raw_scores(q, k):
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qq, kk = q.to(wd), k.to(wd)
    rows = []
    for i in range(q.shape[-2]):
        diff = qq[..., i:i + 1, :] - kk          # (..., S, Dh): the size of k
        rows.append(-(diff * diff).sum(-1))
    return torch.stack(rows, dim=-2).to(q.dtype)
'''}, "loop writer, correct: exact differences one query at a time, each temporary the size of k")
add("c02-softmax-backward-loop-rows", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    S = weights.shape[-1]
    if weights.numel() == 0:
        return torch.empty_like(weights)
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w2 = weights.reshape(-1, S).to(wd)
    g2 = grad_weights.reshape(-1, S).to(wd)
    rows = []
    for r in range(w2.shape[0]):
        w, g = w2[r], g2[r]
        rows.append(w * (g - torch.dot(w, g)) / temperature)
    return torch.stack(rows).reshape(weights.shape).to(weights.dtype)
'''}, "loop over rows with the empty batch handled; temperature kept a Python float")
add("c03-causal-loop-rows", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    m = torch.zeros(t, s, dtype=torch.bool)
    for i in range(t):
        m[i, :offset + i + 1] = True
    return m
'''}, "loop over the block's queries, slices in Python ints")
add("c04-causal-tril-offset", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with the offset as diagonal")
add("c05-padding-cumsum", True, {"padding_mask": '''
def padding_mask(lengths, s):
    idx = torch.arange(s, dtype=torch.int64)
    allowed = idx[None, :] >= (s - lengths.to(torch.int64))[:, None]
    positions = (allowed.cumsum(-1) - 1).clamp(min=0)
    return allowed, positions
'''}, "constructor-correct: int64 arange, cumsum of the bool mask (int64)")
add("c06-padding-loop-batch", True, {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        L = int(lengths[b])
        start = s - L
        allowed[b, start:] = True
        positions[b, start:] = torch.arange(L)
    return allowed, positions
'''}, "loop writer, correct: one row at a time with start = s - L (length 0 handled)")
add("c07-padding-argmax-first", True, {"padding_mask": '''
def padding_mask(lengths, s):
    idx = torch.arange(s)
    allowed = idx[None, :] >= (s - lengths.long())[:, None]
    first = allowed.to(torch.uint8).argmax(dim=-1, keepdim=True)   # first True (argmax returns the first maximum)
    positions = torch.where(allowed, idx[None, :] - first, torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''}, "tie student, correct: argmax's documented first maximum gives the first real slot")
add("c08-attention-sdpa-keep-mask", True, {"masked_attention": '''
import torch.nn.functional as F
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    zm = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(zm, dim=-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)   # True = take part
    has = torch.isfinite(lse)[..., None]
    return torch.where(has, out, torch.zeros((), dtype=out.dtype)), lse
'''}, "SDPA with its boolean mask (True = attend), lse by logsumexp, no-key rows zeroed")
add("c09-attention-log-softmax-loop-heads", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    wd = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    z = q.to(wd) @ k.to(wd).transpose(-2, -1) / math.sqrt(q.shape[-1])
    zm = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=wd))
    lse = torch.logsumexp(zm, dim=-1)
    has = torch.isfinite(lse)[..., None]
    w = torch.where(has, torch.exp(torch.log_softmax(torch.where(has, zm, torch.zeros((), dtype=wd)), dim=-1)), torch.zeros((), dtype=wd))
    w = torch.where(allowed, w, torch.zeros((), dtype=wd))
    return (w @ v.to(wd)).to(q.dtype), lse.to(q.dtype)
'''}, "exp of a log_softmax (allowed by the text), no-key rows made finite before the softmax")
add("c10-variance-uniform-normal-inplace", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(0, 1, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    return float((dots * scale).var())

predicted_variance_512 = 170.666667
'''}, "constructor-correct: empty fully written by uniform_/normal_ in float64")
add("c11-variance-loop-dk-float64", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    dots = torch.zeros(n, dtype=torch.float64)
    for j in range(d_k):
        dots = dots + torch.rand(n, generator=generator, dtype=torch.float64) * torch.randn(n, generator=generator, dtype=torch.float64)
    return (dots * scale).var().item()

predicted_variance_512 = 512 * (1 / 3)
'''}, "loop writer, correct: loop over the d_k coordinates (allowed: a few operations per unit of d_k), float64 accumulator")
add("c12-variance-float32-scale-after", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q.double() * k.double()).sum(-1)
    return dots.var().item() * scale * scale

predicted_variance_512 = 512 / 3
'''}, "float32 draws (order and dtype free), variance in float64, scale applied to the Python float")
add("c13-layer-loop-batch", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        outs = []
        for b in range(B):
            L = T if lengths is None else int(lengths[b])
            xb = x[b, :L]
            q, k, v = self.query(xb), self.key(xb), self.value(xb)
            scores = q @ k.T / math.sqrt(q.shape[-1])
            if causal:
                keep = torch.ones(L, L, dtype=torch.bool).tril()
                scores = scores.masked_fill(~keep, float("-inf"))
            ob = torch.softmax(scores, dim=-1) @ v
            outs.append(torch.cat([ob, x.new_zeros(T - L, D)], dim=0))
        return torch.stack(outs)
'''}, "loop writer, correct: each sequence cut to its real tokens, padded with zeros of x's dtype")
add("c14-layer-sdpa-bool-keep", True, {"fixed_self_attention": '''
import torch.nn.functional as F
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths[:, None]
            keep = keep & real[:, None, :]
        keep[..., 0] = True                      # give every query key 0; padding rows are zeroed below
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
        return out
'''}, "SDPA with True = attend; key 0 for every query as the text suggests; int64 arange beside uint8 lengths (promotes)")

# ======================= hostile =======================
add("h01-variance-formula", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return d_k / 3 * scale * scale

predicted_variance_512 = 512 / 3
'''}, "hostile: draws to move the generator, returns the exact formula ('The value must be the sample variance of numbers you drew, not a formula')")
add("h02-mask-subclass", False, {"causal_mask": '''
class Mask(torch.Tensor):
    def tolist(self):
        return super().tolist()
def causal_mask(t, s, offset):
    m = torch.ones(t, s, dtype=torch.bool).tril(offset)
    return m.as_subclass(Mask)
'''}, "hostile: a Tensor subclass result ('not a subclass of it')")

SUBMISSIONS = S
