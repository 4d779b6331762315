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
# ---------------- off-by-one student ----------------
add("obo-p7-lengths-minus-one", False, {"fixed_self_attention": R(MODEL["fixed_self_attention"],
    ("real = torch.arange(T, device=x.device)[None, :] < lengths.to(device=x.device, dtype=torch.long)[:, None]",
     "real = torch.arange(T, device=x.device)[None, :] <= (lengths - 1)[:, None]   # last real slot"))},
    "P7: 'lengths ... of any integer dtype (uint8 and int8 too ...) with 0 <= lengths[b] <= T': lengths - 1 wraps to 255 in uint8")
add("obo-p4-first-slot-in-dtype", False, {"padding_mask": R(MODEL["padding_mask"],
    ("    L = lengths.to(torch.int64)\n    j = torch.arange(s)\n    first = s - L\n",
     "    j = torch.arange(s)\n    first = (s - lengths).long()           # index of the first real slot\n"))},
    "P4: 'lengths is a 1-D tensor of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)'")
add("obo-p3-one-based-float-count", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    # positions counted from 1: key j is the (j+1)-th token, query i the (offset+i+1)-th
    key_pos = torch.arange(1, s + 1, dtype=torch.float32)
    query_pos = torch.arange(offset + 1, offset + t + 1, dtype=torch.float32)
    return key_pos[None, :] <= query_pos[:, None]
'''}, "P3: 'the mask must be right at every size, with positions that stay exact integers' (float32 counts past 2**24)")
add("obo-p5-any-by-count", False, {"masked_attention": R(MODEL["masked_attention"],
    ("    any_ = allowed.any(-1, keepdim=True)\n", "    any_ = allowed.sum(-1, keepdim=True, dtype=torch.uint8) > 0\n"))},
    "P5: 'a query with no allowed key gets lse = -inf exactly' -- counting allowed keys in uint8 wraps to 0 at 256 allowed keys (rows of thousands of keys)")

# ---------------- padding and reduction student ----------------
add("red-p2-dim0", False, {"softmax_backward": R(MODEL["softmax_backward"],
    ("    dot = (w * g).sum(-1, keepdim=True)", "    dot = (w * g).sum(0)"))},
    "P2: 'w = softmax(z / tau) (over the last dimension)' with '(..., S) any number of leading dimensions'")
add("red-p6-divide-by-n", False, {"variance_experiment": R(MODEL["variance_experiment"],
    ("    return x.var().item()", "    return ((x - x.mean()) ** 2).mean().item()"))},
    "P6: 'return their sample variance (Tensor.var(), which divides by n - 1)'")
add("red-p6-per-entry-variance", False, {"variance_experiment": R(MODEL["variance_experiment"],
    ("    x = scale * (q * k).sum(-1)\n    return x.var().item()",
     "    prod = scale * q * k                       # the d_k products are independent\n    return (d_k * prod.var()).item()"))},
    "P6: 'compute the n numbers scale * (q . k), and return their sample variance'")
add("red-p5-max-over-all-keys", False, {"masked_attention": R(MODEL["masked_attention"],
    ("    allowed = allowed.expand(z.shape)\n    z = z.masked_fill(~allowed, float(\"-inf\"))\n    m = z.amax(-1, keepdim=True)\n",
     "    allowed = allowed.expand(z.shape)\n    m = z.amax(-1, keepdim=True)            # row max for stability\n    z = z.masked_fill(~allowed, float(\"-inf\"))\n"))},
    "P5: 'a masked key counts for nothing however its score compares with the allowed ones ... masked keys scores tens of thousands above every allowed one'")

# ---------------- paper / reference-code reader ----------------
add("paper-p8-hf-comment", False, {"mc_answers": 'answer_masking = "b"   # HF: the -10000 masked positions become ~0\nanswer_doubling = "b"\n'},
    "P8a: float64 keeps scores in [-10, 10] when shifted by -1e9: the weights are those of the unmasked row")
add("paper-p7-annotated-1e9", False, {"fixed_self_attention": R(MODEL["fixed_self_attention"],
    ("scores.masked_fill(~allowed, float(\"-inf\"))", "scores.masked_fill(~allowed, -1e9)   # The Annotated Transformer"))},
    "P7: 'No query may attend to a padding key (weight exactly 0, also ... when allowed ones lie below -1e9)'")
add("paper-p5-hf-additive-finfo", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    # Hugging Face's extended attention mask: (1 - mask) * finfo.min added to the scores
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    bias = (~allowed).to(z.dtype) * torch.finfo(z.dtype).min
    z = z + bias
    lse = torch.logsumexp(z, dim=-1)
    none = ~allowed.expand(z.shape).any(-1)
    lse = lse.masked_fill(none, float("-inf"))
    w = torch.exp(z - lse[..., None]).nan_to_num(0.0).masked_fill(~allowed, 0.0)
    return w @ v, lse
'''}, "P5: 'a masked key counts for nothing however its score compares ... (a finite stand-in for -inf ... one added to the scores ...)'")
add("paper-p6-vaswani-footnote", False, {"variance_experiment": R(MODEL["variance_experiment"],
    ("predicted_variance_512 = 512 / 3", "predicted_variance_512 = 512 / 12 + 512 * 0.25 * 0  # Var(q_i) Var(k_i) per term, as in Vaswani et al.'s footnote"))},
    "P6: 'Careful: the entries of q do not have mean 0' (E[q^2]E[k^2] = 1/3 per term)")

# ---------------- numerically naive ----------------
add("num-p1-expanded-in-dtype", False, {"raw_scores": '''
def raw_scores(q, k):
    qq = (q * q).sum(-1)[..., :, None]
    kk = (k * k).sum(-1)[..., None, :]
    return (2 * q @ k.transpose(-2, -1) - qq - kk).clamp(max=0)
'''}, "P1: 'Accuracy ... float32 entries near 1e19 ... work float32 in float64'")
add("num-p5-exp-no-max", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = torch.where(allowed, torch.exp(z), torch.zeros_like(z))
    tot = e.sum(-1, keepdim=True)
    out = torch.where(tot > 0, e / tot, torch.zeros_like(e)) @ v
    return out, torch.log(tot.squeeze(-1))
'''}, "P5: 'scores can be large (tens of thousands ...): lse and output must be finite'")
add("num-p6-float32-scale", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "P6: 'scale ... 1e-25 and 1e25, where squares of float32 numbers underflow to 0 or overflow to inf: whatever dtype you draw in, the variance must come out right'")
add("num-p7-keep-float-softmax", False, {"fixed_self_attention": R(MODEL["fixed_self_attention"],
    ("        if scores.dtype in (torch.float32, torch.float64):\n            w = torch.softmax(scores, dim=-1)\n        else:\n            w = torch.softmax(scores.float(), dim=-1).to(scores.dtype)\n",
     "        w = torch.softmax(scores.float(), dim=-1).type_as(scores)   # softmax in float32, as the seed does\n"))},
    "P7: 'the output is (B, T, D), in the dtype of x and as accurate as that dtype allows (... float64 inputs, compare to about 1e-9)'")
add("num-p8-uniform", False, {"mc_answers": 'answer_masking = "c"   # every score becomes -1e9: uniform\nanswer_doubling = "b"\n'},
    "P8a: float64 holds -1e9 + s to about 1e-7, so the row keeps its weights")
add("num-p2-logspace", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    # dz = w * (g - <w, g>) / tau, with the product w * (...) taken in log space for stability
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    c = g - (w * g).sum(-1, keepdim=True)
    return (torch.sign(c) * torch.exp(torch.log(w) + torch.log(c.abs()) - math.log(temperature))).to(weights.dtype)
'''}, "correct? numerically naive but harmless: log(0) = -inf gives exp(-inf) = 0 and sign(0) = 0 where w or c is 0; the log-space product loses only |log| * eps relative")

# ---------------- correct ----------------
add("ok-p1-expanded-float64", True, {"raw_scores": '''
def raw_scores(q, k):
    qd = q.double() if q.dtype != torch.float64 else q
    kd = k.double() if k.dtype != torch.float64 else k
    sq = (qd * qd).sum(-1).unsqueeze(-1) + (kd * kd).sum(-1).unsqueeze(-2) - 2 * qd @ kd.transpose(-1, -2)
    return (-sq.clamp(min=0)).to(q.dtype)
'''}, "correct? expanded in float64 with clamp; error within 1e-12 of the norms")
add("ok-p2-float64-keyword", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.to(dtype=torch.float64)
    g = grad_weights.to(dtype=torch.float64)
    inner = torch.einsum("...s,...s->...", w, g).unsqueeze(-1)
    return torch.mul(w, g - inner).div(temperature).to(dtype=weights.dtype)
'''}, "correct: float64 throughout, einsum")
add("ok-p3-llama-cat", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    # llama style: the cache before the block, a lower triangle for the block, the empty slots after it
    return torch.cat([torch.ones(t, offset, dtype=torch.bool),
                      torch.ones(t, t, dtype=torch.bool).tril(),
                      torch.zeros(t, s - offset - t, dtype=torch.bool)], dim=1)
'''}, "correct: llama-style concatenation")
add("ok-p3-tril-diagonal", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "correct: tril with diagonal=offset")
add("ok-p4-cumsum", True, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.int64)
    allowed = j.flip(0)[None, :] < lengths.long()[:, None]      # s - 1 - j < L
    positions = (allowed.long().cumsum(-1) - 1).clamp(min=0)
    return allowed, positions
'''}, "correct: flipped right-padded mask, cumsum positions")
add("ok-p5-logsumexp-softmax", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.size(-1)))
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.softmax(z, dim=-1).nan_to_num(nan=0.0)
    return torch.matmul(w, v), lse
'''}, "correct: logsumexp and softmax of -inf filled scores, NaN rows (no allowed key) zeroed")
add("ok-p5-sdpa", True, {"masked_attention": '''
import torch.nn.functional as F
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    lse = torch.logsumexp(z.masked_fill(~allowed, float("-inf")), dim=-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed.expand(z.shape))   # True = take part
    none = ~allowed.expand(z.shape).any(-1, keepdim=True)
    return torch.where(none, torch.zeros_like(out), out), lse
'''}, "correct: SDPA with a boolean mask (True = attend), rows without keys zeroed")
add("ok-p6-normal-uniform-methods", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(0, 1, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    return float(dots.var() * scale * scale)

predicted_variance_512 = 512 * (1 / 3)
'''}, "correct: uniform_/normal_ with the generator, var scaled after (scale^2 in float64: 1e50 fine)")
add("ok-p7-one-based-calls-part3", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(k.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & causal_mask(T, T, 0)
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(1, T + 1)[None, :] <= lengths.long()[:, None]     # slot numbers from 1
            allowed = allowed & real[:, None, :]
        ok = allowed.any(-1, keepdim=True)
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        scores = torch.where(ok, scores, torch.zeros((), dtype=scores.dtype))
        w = torch.softmax(scores, dim=-1, dtype=torch.float32 if scores.dtype == torch.bfloat16 else scores.dtype)
        w = torch.where(ok, w.to(scores.dtype), torch.zeros((), dtype=scores.dtype))
        return torch.where(real[:, :, None], w @ v, torch.zeros((), dtype=v.dtype))
'''}, "correct: part 3's causal_mask(T, T, 0), slot numbers from 1")
add("ok-p7-calls-part5", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed[None]
        if lengths is None:
            out, _ = masked_attention(q, k, v, allowed)
            return out
        real = torch.arange(T, device=x.device)[None, :] < lengths.to(torch.int64)[:, None]
        allowed = (allowed & real[:, None, :]) | ~real[:, :, None]     # padding queries see all: zeroed below
        out, _ = masked_attention(q, k, v, allowed)
        return out.masked_fill(~real[:, :, None], 0.0)
'''}, "correct: part 5's masked_attention; padding queries zeroed after")
add("ok-p8-strip", True, {"mc_answers": 'answer_masking = "D".lower()\nanswer_doubling = "b ".strip()\n'}, "correct")

# ---------------- hostile ----------------
add("hostile-p6-formula-with-noise", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    noise = (q.mean() - 0.5) + k.mean()                   # depends on the draw, so seeds differ
    return float(scale * scale * d_k / 3 * (1 + noise * (2.0 / max(n - 1, 1)) ** 0.5))

predicted_variance_512 = 512 / 3
'''}, "hostile: formula, not the sample variance ('The value must be the sample variance of numbers you drew, not a formula')")
add("hostile-p1-cdist-getattr", False, {"raw_scores": '''
def raw_scores(q, k):
    f = getattr(torch, "cd" + "ist")
    d = f(q.double(), k.double())
    return (-(d * d)).to(q.dtype)
'''}, "hostile: torch.cdist through getattr ('Do not call torch.cdist')")
SUBMISSIONS = W
