# Red team round 22, chapter 02: four kinds of student (sampling, rounding, counting, allocation)
SUBMISSIONS = []
def W(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"{kind}: {name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"{kind}: {name}", "correct": True, "cells": cells, "why": why})
def H(name, cells, why):
    SUBMISSIONS.append({"name": f"hostile: {name}", "correct": False, "cells": cells, "why": why})

VAR_TMPL = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    GEN
    q = QDRAW
    k = KDRAW
    s = SCORES
    return STAT

predicted_variance_512 = PRED
'''
def var(GEN="pass", QDRAW="torch.rand(n, d_k, generator=generator, dtype=torch.float64)",
        KDRAW="torch.randn(n, d_k, generator=generator, dtype=torch.float64)", SCORES="scale * (q * k).sum(-1)",
        STAT="s.var().item()", PRED="512 / 3"):
    return VAR_TMPL.replace("GEN", GEN).replace("QDRAW", QDRAW).replace("KDRAW", KDRAW).replace("SCORES", SCORES).replace("STAT", STAT).replace("PRED", PRED)

FSA_TMPL = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device).expand(B, T, T)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        real = None
        if lengths is not None:
            real = REAL
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(scores, -1).masked_fill(~allowed, 0.0)
        out = w @ v
        if real is not None:
            out = OUTZERO
        return out
'''
def fsa(REAL="torch.arange(T, device=x.device)[None, :] < lengths.to(torch.int64)[:, None]",
        OUTZERO="out.masked_fill(~real[:, :, None], 0.0)"):
    return FSA_TMPL.replace("REAL", REAL).replace("OUTZERO", OUTZERO)

MA_TMPL = '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / SCALE
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, -1)
    w = torch.softmax(scores, -1)
    w = torch.where(allowed, w, ZERO)
    return w @ v, lse
'''
def ma(SCALE="math.sqrt(q.shape[-1])", ZERO="torch.zeros((), dtype=w.dtype)"):
    return MA_TMPL.replace("SCALE", SCALE).replace("ZERO", ZERO)

# ---------------------------------------------------------------- sampling-and-randomness student
W("the global generator reseeded from generator.initial_seed()", "sampling", {"variance_experiment": var(
    GEN="if generator is not None:\n        torch.manual_seed(generator.initial_seed())",
    QDRAW="torch.rand(n, d_k, dtype=torch.float64)", KDRAW="torch.randn(n, d_k, dtype=torch.float64)")},
  "Part 6: 'not even one seeded from generator.initial_seed() ... nothing may come from (or reseed) torch's global generator'")
W("one key vector drawn per call, shared by all n pairs", "sampling", {"variance_experiment": var(
    KDRAW="torch.randn(d_k, generator=generator, dtype=torch.float64).expand(n, d_k)")},
  "Part 6: 'draw n independent pairs (q, k)'")
W("a fresh torch.Generator() when none is given", "sampling", {"variance_experiment": var(
    GEN="generator = generator or torch.Generator()")},
  "Part 6: 'Without one ... a fresh torch.Generator() of your own would return the same value at every call'")
W("normal keys built from two uniforms (Box-Muller) instead of torch.randn", "sampling", {"variance_experiment": var(
    KDRAW="torch.sqrt(-2 * torch.log1p(-torch.rand(n, d_k, generator=generator, dtype=torch.float64))) * torch.cos(2 * math.pi * torch.rand(n, d_k, generator=generator, dtype=torch.float64))")},
  "Part 6: 'Draw ... those of k with torch.randn (or Tensor.normal_)'")
W("queries uniform on [-1, 1) (2 * rand - 1)", "sampling", {"variance_experiment": var(
    QDRAW="2 * torch.rand(n, d_k, generator=generator, dtype=torch.float64) - 1")},
  "Part 6: 'the entries of q are independent and uniform on [0, 1) (torch.rand)'. NB the variance of q.k (and its whole distribution, k being symmetric) is the same")

# ---------------------------------------------------------------- rounding-and-integer student
W("float32 positions from torch.arange(s, dtype=float32)", "rounding", {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
'''}, "Part 3: 'with positions that stay exact integers' (tens of millions of slots)")
W("start of the real tokens computed as s - lengths in the lengths' dtype", "rounding", {"padding_mask": '''
def padding_mask(lengths, s):
    start = s - lengths
    j = torch.arange(s)
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None].long(), 0)
    return allowed, positions
'''}, "Part 4: 'lengths of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)'")
W("positions counted in an int16 cumsum", "rounding", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    allowed = torch.arange(s)[None, :] >= (s - L)[:, None]
    positions = (allowed.cumsum(-1, dtype=torch.int16) - 1).clamp(min=0).to(torch.int64)
    return allowed, positions
'''}, "Part 4: 'a row can hold tens of thousands of slots (more than an int16 or a uint16 counts)'")
W("d_k scaling through an integer tensor (torch.sqrt(torch.tensor(d)) is float32)", "rounding", {"masked_attention": ma(SCALE="torch.sqrt(torch.tensor(q.shape[-1]))")},
  "Part 5: z = q.k/sqrt(d_k) 'both have the dtype of q' (float64 compared closely: the float32 root is off by 1e-8)")
W("predicted variance floored by integer division", "rounding", {"variance_experiment": var(PRED="512 // 3")},
  "Part 6: 'Store the number in predicted_variance_512, to at least six significant digits'")
W("predicted variance rounded to two decimals (five significant digits)", "rounding", {"variance_experiment": var(PRED="round(512 / 3, 2)")},
  "Part 6: 'to at least six significant digits'")
W("bfloat16 slot numbers: arange in the layer's dtype", "rounding", {"fixed_self_attention": fsa(
    REAL="torch.arange(T, dtype=x.dtype, device=x.device)[None, :] < lengths.to(x.dtype)[:, None]")},
  "Part 7: 'slot numbers compared in it go wrong from 256 on'")
W("g divided by the temperature first (float16 overflows)", "rounding", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    g = grad_weights / temperature
    dot = (weights * g).sum(-1, keepdim=True)
    return weights * (g - dot)
'''}, "Part 2: 'divide by the temperature after the product, not g first: g / 1e-6 in float16 is inf'")
W("float32 inputs worked in float32 (expanded form)", "rounding", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    work = dt if dt in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(work), k.to(work)
    d2 = (qw * qw).sum(-1)[..., :, None] + (kw * kw).sum(-1)[..., None, :] - 2 * qw @ kw.transpose(-2, -1)
    return (-d2.clamp(min=0)).to(dt)
'''}, "Part 1: 'the tests give it entries near 1e19 ... so work float32 in float64'")

# ---------------------------------------------------------------- counting-and-units student
W("sample variance divided by n", "counting", {"variance_experiment": var(STAT="s.var(unbiased=False).item()")},
  "Part 6: 'their sample variance (Tensor.var(), which divides by n - 1)'")
W("n * d_k products counted as the samples, variance summed over coordinates", "counting", {"variance_experiment": var(
    SCORES="scale * q * k", STAT="s.var(0).sum().item()")},
  "Part 6: 'compute the n numbers scale (q.k), and return their sample variance' ('any other statistic with the right mean shows')")
W("predicted variance with Var(q) counted where E[q^2] belongs", "counting", {"variance_experiment": var(PRED="512 / 12")},
  "Part 6: 'Careful: the entries of q do not have mean 0'")
W("d_k read as q.size(1)", "counting", {"masked_attention": ma(SCALE="math.sqrt(q.size(1))")},
  "Part 5: z = q.k/sqrt(d_k), d_k the width of a query (q is (..., T, Dh): size(1) is T for 3-D inputs)")
W("softmax-backward dot product summed over the whole tensor", "counting", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    work = dt if dt in (torch.float64, torch.float32) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    dot = (w * g).sum()
    return (w * (g - dot) / temperature).to(dt)
'''}, "Part 2: w = softmax(z / tau) over the last dimension: each row's own sum_j w_j g_j")
W("padding rows counted from the end with negative slices (-0 is the whole row)", "counting", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        n = int(lengths[b])
        allowed[b, -n:] = True
        positions[b, -n:] = torch.arange(n)
    return allowed, positions
'''}, "Part 4: 'lengths[b] real tokens, in the last lengths[b] of the s slots' (0 <= lengths[b]: a length 0 row has no real token)")
C("positions counted from 1 on both sides", "counting", {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(1, s + 1)             # positions counted from 1
    queries = torch.arange(t) + offset + 1
    m = keys[None, :] <= queries[:, None]
    return m[:, : s]
'''}, "keys and queries both shifted by one: the same comparison")

# ---------------------------------------------------------------- allocation student
W("masks kept in a module-level dict and handed out again", "allocation", {"causal_mask": '''
MASKS = {}
def causal_mask(t, s, offset):
    key = (t, s, offset)
    if key not in MASKS:
        MASKS[key] = torch.arange(s)[None, :] <= (torch.arange(t)[:, None] + offset)
    return MASKS[key]
'''}, "Part 3: 'it must not share memory with anything kept from one call to the next'")
W("where with a 1-element float32 zeros tensor (bfloat16 becomes float32)", "allocation", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, -1)
    w = torch.where(allowed, torch.softmax(scores, -1), torch.zeros(1))
    return w @ v.to(w.dtype), lse
'''}, "Part 5: 'output ... both have the dtype of q'")
W("additive float32 bias buffer, cast back at the end", "allocation", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        bias = torch.zeros(B, T, T, dtype=scores.dtype)
        if causal:
            bias = bias.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            bias = bias.masked_fill(~real[:, None, :], float("-inf"))
        w = torch.nan_to_num(torch.softmax(scores + bias, -1), nan=0.0)
        out = w @ v
        if real is not None:
            out = out * real[:, :, None]
        return out
'''}, "Part 7: 'an added -inf bias passes the NaN on' (lengths[b] = 0 gradients)")
W("output rows zeroed in a float32 torch.zeros buffer", "allocation", {"fixed_self_attention": fsa(
    OUTZERO="torch.zeros(B, T, out.shape[-1]).index_put((real,), out[real]).to(out.dtype)")},
  "Part 7: 'in the dtype of x and as accurate as that dtype allows' (float64 to 1e-9)")
W("dot product kept in a float32 zeros buffer", "allocation", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = torch.zeros(weights.shape[:-1] + (1,))
    dot += (weights * grad_weights).sum(-1, keepdim=True)
    return (weights * (grad_weights - dot.to(weights.dtype)) / temperature)
'''}, "Part 2: 'float64 inputs are compared to about 1e-12 (so work them in float64)'")
W("scores accumulated into a float32 torch.zeros buffer", "allocation", {"variance_experiment": var(
    SCORES="torch.zeros(n) + scale * (q * k).sum(-1)")},
  "Part 6: scale 1e25 / 1e-25: 'whatever dtype you draw in, the variance must come out right'")
C("result preallocated as torch.zeros without dtype (promotion makes it float64), cast back", "allocation", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    qw, kw = q.double(), k.double()
    out = torch.zeros(q.shape[:-1] + (k.shape[-2],))
    out = out - ((qw * qw).sum(-1)[..., :, None] + (kw * kw).sum(-1)[..., None, :] - 2 * qw @ kw.transpose(-2, -1)).clamp(min=0)
    return out.to(dt)
'''}, "float32 zeros minus float64 is float64; cast back to the input dtype")

# ---------------------------------------------------------------- correct answers
C("einsum distances, all worked in float64 and cast back", "rounding", {"raw_scores": '''
def raw_scores(q, k):
    qw, kw = q.to(torch.float64), k.to(torch.float64)
    cross = torch.einsum("...td,...sd->...ts", qw, kw)
    d2 = qw.pow(2).sum(-1).unsqueeze(-1) + kw.pow(2).sum(-1).unsqueeze(-2) - 2 * cross
    return torch.where(d2 > 0, -d2, torch.zeros_like(d2)).to(q.dtype)
'''}, "higher precision inside")
C("softmax backward in float64 always, keyword temperature", "rounding", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.double()
    g = grad_weights.double()
    out = w * (g - torch.sum(w * g, dim=-1, keepdim=True))
    return (out / temperature).to(dtype=weights.dtype)
'''}, "allowed: higher precision, divide after the product")
C("tril of a ones mask", "allocation", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "j - i <= offset")
C("per-row loop into bool/int64 zeros buffers, slices from s - L", "allocation", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        n = int(lengths[b])
        allowed[b, s - n:] = True
        positions[b, s - n:] = torch.arange(n)
    return allowed, positions
'''}, "a loop over the batch is allowed")
C("positions from a cumsum of the mask, float32 arange cast to int64", "rounding", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.float32).long()
    allowed = j[None, :] >= (s - lengths.to(torch.int64))[:, None]
    positions = (allowed.cumsum(dim=-1) - 1).clamp(min=0)
    return allowed, positions
'''}, "s < 2^24: float32 holds every slot number; cumsum of bool is int64")
C("log-sum-exp by hand with the allowed maximum, where() for the masked entries", "counting", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    d_k = q.shape[-1]
    z = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(d_k))
    neg = torch.full_like(z, float("-inf"))
    z = torch.where(allowed, z, neg)
    m = z.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.where(allowed, torch.exp(z - m), torch.zeros_like(z))
    total = e.sum(-1, keepdim=True)
    lse = (torch.log(total) + m).squeeze(-1)
    w = e / torch.where(total > 0, total, torch.ones_like(total))
    return torch.matmul(w, v), lse
'''}, "same maths")
C("draws via uniform_/normal_, k drawn transposed, variance of q.k times scale**2 in Python", "sampling", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is None:
        generator = torch.default_generator
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    k = torch.empty(d_k, n, dtype=torch.float64).normal_(generator=generator).T
    s = (q * k).sum(dim=1)
    return float(s.var().item()) * scale ** 2

predicted_variance_512 = 512 * (1 / 3 * 1 - (1 / 2 * 0) ** 2)
'''}, "default_generator is the global one; scale^2 var(s) equals var(scale s)")
C("float32 draws, variance in float64 with scale applied in float64", "sampling", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    s = (q.double() * k.double()).sum(-1) * scale
    return torch.var(s).item()

predicted_variance_512 = 170.6666667
'''}, "dtype of the draws is free")
C("Part 7 from Part 3's causal_mask and Part 5's masked_attention (padding queries given all keys, then zeroed)", "counting", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & causal_mask(T, T, 0)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
            allowed = allowed | ~real[:, :, None]   # padding queries: any keys, zeroed below
        out, _ = masked_attention(q, k, v, allowed)
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
        return out
'''}, "earlier parts called within their contracts (every query row has an allowed key)")
C("Part 7 with torch.where masks, out_features as d_k, softmax in float32 for bfloat16 only", "rounding", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        d_k = self.query.out_features
        scores = torch.matmul(q, k.transpose(1, 2)) * d_k ** -0.5
        pos = torch.arange(T, device=x.device)
        allowed = torch.ones(B, T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed & (pos[None, :] <= pos[:, None])
        if lengths is not None:
            real = pos[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        work = torch.float32 if scores.dtype == torch.bfloat16 else scores.dtype
        w = torch.softmax(scores.to(work), dim=-1)
        w = torch.where(allowed, w, torch.zeros((), dtype=work)).to(scores.dtype)
        out = w @ v
        if lengths is not None:
            out = torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
        return out
'''}, "d_k ** -0.5 differs from 1/sqrt by an ulp at most")
C("answers as lower-cased constants", "counting", {"mc_answers": '''
answer_masking = "D".lower()
answer_doubling = "b"
'''}, "d and b")

# ---------------------------------------------------------------- hostile
H("str subclass equal to every letter", {"mc_answers": '''
class AnyLetter(str):
    def __eq__(self, other): return True
    __hash__ = str.__hash__
answer_masking = AnyLetter("a")
answer_doubling = AnyLetter("a")
'''}, "points for Part 8 without answers")
H("formula dressed as a sample: the draws are made, the value is d_k/3 scale^2 times the sample's relative spread", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    z = k.sum(-1) / math.sqrt(d_k)             # an honest N(0,1) sample, used only for its noise
    return (d_k / 3) * scale ** 2 * z.var().item()

predicted_variance_512 = 512 / 3
'''}, "returns a formula times the variance of another statistic (has the right mean and a spread)")
H("patch torch.testing.assert_close, return zeros and -inf", {"masked_attention": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def masked_attention(q, k, v, allowed):
    return q.new_zeros(q.shape[:-1] + (v.shape[-1],)), q.new_full(q.shape[:-1], float("-inf"))
'''}, "points for Part 5 without attention")

W("8a: -1e9 added in float64 swamps scores of size 10 (all weights equal)", "rounding", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
  "Part 8a: float64 keeps about 16 digits: -1e9 + s still carries s to 1e-7, and softmax is shift invariant (d)")
W("8b: variance 4 counted once per product instead of 4 * 4", "counting", {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"\n'},
  "Part 8b: Var(q_i k_i) = 4 * 4 = 16, so std = sqrt(128 * 16) / 8 (b)")
