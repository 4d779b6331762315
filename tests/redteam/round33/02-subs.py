# Round 33 blind submissions, chapter 02-scaled-attention (helper 0102).
# Kinds: K1 global-statistics, K2 sign-convention, K3 late-binding, K4 equality, K5 side-effect.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

FSA_HEAD = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
'''

# ---------------------------------------------------------------- wrong: K1 global statistics
add("K1-p1-one-global-scale", False, {"raw_scores": '''
def raw_scores(q, k):
    # scale everything by the largest entry so that the squares cannot overflow, work in the input's dtype
    c = torch.maximum(q.abs().amax(), k.abs().amax())
    c = torch.where(c > 0, c, torch.ones_like(c))
    if q.dtype in (torch.bfloat16, torch.float16):
        qs, ks, c = (q / c).float(), (k / c).float(), c.float()
    elif q.dtype == torch.float32:
        qs, ks, c = (q / c).double(), (k / c).double(), c.double()
    else:
        qs, ks = q / c, k / c
    s = 2 * qs @ ks.transpose(-2, -1) - (qs * qs).sum(-1, keepdim=True) - (ks * ks).sum(-1).unsqueeze(-2)
    return (s.clamp(max=0) * c * c).to(q.dtype)
'''}, "K1: one scale for the whole tensor; breaks 'The tests allow an error of 1e-12 ... times ||q_i||^2 + ||k_j||^2' for rows far smaller than the largest (entries near 1e-10 next to ones near 1e5 in one batch: their squared norms vanish below the scale's rounding).")

add("K1-p2-whole-tensor-dot", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    w = weights.double() if dt == torch.float64 else weights.float()
    g = grad_weights.to(w.dtype)
    wg = w * g
    return ((wg - w * wg.sum()) / temperature).to(dt)
'''}, "K1: sum of w*g over the whole tensor, not each row; breaks 'w = softmax(z / tau) (over the last dimension)', whose Jacobian mixes keys of one row only. Visible multi-row case checks the shape only.")

add("K1-p5-global-max", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    if dt == torch.bfloat16:
        q, k, v = q.float(), k.float(), v.float()
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    M = z.max()                                   # stabilise with the maximum
    if not torch.isfinite(M):
        M = torch.zeros((), dtype=z.dtype)
    e = torch.exp(z - M)
    total = e.sum(-1, keepdim=True)
    w = e / total.clamp(min=torch.finfo(z.dtype).tiny)
    lse = M + torch.log(total.squeeze(-1))
    return (w @ v).to(dt), lse.to(dt)
'''}, "K1: the maximum of the whole tensor is subtracted; breaks 'lse and output must be finite wherever a query has an allowed key': a row a thousand below another underflows to log(0) = -inf and an all-zero output.")

add("K1-p6-all-products", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    # the d_k terms of a dot product are independent: Var(q.k) = d_k * Var(q_i k_i), estimated on every product
    prods = scale * q * k
    return (d_k * prods.var()).item()

predicted_variance_512 = 512 / 3
'''}, "K1: variance over all n*d_k products times d_k; breaks 'compute the n numbers scale * (q . k), and return their sample variance (Tensor.var(), which divides by n - 1)'.")

add("K1-p7-global-max", False, {"fixed_self_attention": FSA_HEAD + '''
        s = scores.double() if scores.dtype == torch.float64 else scores.float()
        s = s.masked_fill(~allowed, float("-inf"))
        top = s.max()
        top = top if torch.isfinite(top) else torch.zeros_like(top)
        e = torch.exp(s - top)
        den = e.sum(-1, keepdim=True)
        w = torch.where(den > 0, e / torch.where(den > 0, den, torch.ones_like(den)), torch.zeros_like(e))
        out = torch.matmul(w.to(v.dtype), v)
        if real is not None:
            out = out.masked_fill(~real[..., None], 0)
        return out
'''}, "K1: subtracts the maximum score of the whole batch; breaks 'the weights of query i are the softmax, over the keys it may attend to' once rows differ by thousands (a row far below underflows to zero weights).")

# ---------------------------------------------------------------- wrong: K2 sign / convention
add("K2-p6-scale-divides", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    scores = (q * k).sum(-1) / scale          # scaled scores: q.k / scale, as sqrt(d_k) in the lesson
    return scores.var().item()

predicted_variance_512 = 512 / 3
'''}, "K2: divides by scale (the lesson's divisor convention) instead of multiplying; breaks 'compute the n numbers scale * (q . k)'. Visible test uses the default scale 1.")


add("K2-p8-float32-thinking", False, {"mc_answers": '''
answer_masking = "c"
answer_doubling = "b"
'''}, "K2/K4: reasons as if -1e9 swallowed the scores (float32 rounding), answering 1/S; breaks '8a ... with float64 scores between -10 and 10', where -1e9 + s keeps s to about 1e-7.")

# ---------------------------------------------------------------- wrong: K3 late binding
add("K3-p3-cache-default", False, {"causal_mask": '''
def causal_mask(t, s, offset, cache={}):
    key = (t, s, offset)
    if key not in cache:
        cache[key] = torch.arange(s)[None, :] <= torch.arange(offset, offset + t)[:, None]
    return cache[key]
'''}, "K3: a default dict made once returns the same mask object at a repeated call; breaks 'a later call must return a correct mask all the same, so it must not share memory with anything kept from one call to the next'.")

add("K3-p3-table-default", False, {"causal_mask": '''
def causal_mask(t, s, offset, slots=torch.arange(1 << 20)):
    j = slots[:s]
    i = slots[offset:offset + t]
    return j[None, :] <= i[:, None]
'''}, "K3: a default argument evaluated once at definition, a fixed table; breaks 'Caches can hold tens of millions of slots ... A table of a fixed size made in advance cannot hold the largest sizes'.")

add("K3-p7-bias-cache", False, {"fixed_self_attention": '''
causal_bias = {}

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            if T not in causal_bias:   # built once per length, reused
                causal_bias[T] = torch.zeros(T, T, dtype=scores.dtype).masked_fill(
                    torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
            scores = scores + causal_bias[T]
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        dead = torch.isinf(scores).all(-1, keepdim=True)
        scores = torch.where(dead, torch.zeros_like(scores), scores)
        work = scores.double() if scores.dtype == torch.float64 else scores.float()
        w = torch.softmax(work, dim=-1).to(scores.dtype)
        w = torch.where(dead, torch.zeros_like(w), w)
        out = torch.matmul(w, v)
        if real is not None:
            out = out.masked_fill(~real[..., None], 0)
        return out
'''}, "K3: a causal bias cached per length in the dtype of the first call; breaks 'in the dtype of x' (a bfloat16 layer after a float32 call of the same length returns float32) and the intro's 'key no cache ... on its shape'.")

# ---------------------------------------------------------------- wrong: K4 equality
add("K4-p1-snap-near-zero", False, {"raw_scores": '''
def raw_scores(q, k):
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    a, b = q.to(wd), k.to(wd)
    s = 2 * a @ b.transpose(-2, -1) - a.pow(2).sum(-1)[..., None] - b.pow(2).sum(-1)[..., None, :]
    # a key equal to the query must score exactly 0: snap what is 0 up to rounding
    s = torch.where(torch.isclose(s, torch.zeros_like(s)) | (s > 0), torch.zeros_like(s), s)
    return s.to(q.dtype)
'''}, "K4: isclose with its default atol 1e-8 snaps to 0 every score within 1e-8 of it; breaks 'q and k may hold values of any size (... near 1e-10, whose squared distances are near 1e-20) ... make 0 only what lies below 0'.")

add("K4-p2-isclose-masked", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.double() if weights.dtype == torch.float64 else weights.float()
    g = grad_weights.to(w.dtype)
    grad = w * (g - (w * g).sum(-1, keepdim=True)) / temperature
    masked = torch.isclose(w, torch.zeros_like(w))       # masked keys get exactly 0
    return torch.where(masked, torch.zeros_like(grad), grad).to(weights.dtype)
'''}, "K4: isclose's default atol treats weights below 1e-8 as masked; breaks 'only exactly 0: a key of weight 1e-13 is not masked, and at a temperature of 1e-6 its gradient is near 1e-7'.")

add("K4-p5-exp-minus-lse", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    wd = torch.float32 if dt == torch.bfloat16 else dt
    z = (q.to(wd) @ k.to(wd).transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.exp(z - lse.unsqueeze(-1))
    w = torch.nan_to_num(w, nan=0.0)
    return (w @ v.to(wd)).to(dt), lse.to(dt)
'''}, "K4: weights exp(z - lse) with lse rounded first; breaks 'the weights of a query sum to 1, and must still do so once rounded to the dtype ... divide the exponentials by their sum'.")

add("C-K4-p4-float32-exact", True, {"padding_mask": '''
def padding_mask(lengths, s):
    slots = torch.arange(s, dtype=torch.float32)
    first = (s - lengths.to(torch.float32))[:, None]      # first real slot of each row
    allowed = slots[None, :] >= first
    positions = (slots[None, :] - first).clamp(min=0) * allowed
    return allowed, positions.to(torch.int64)
'''}, "K4-aware: float32 arithmetic on slot numbers is exact because rows hold 'fewer than 2**24' slots; results cast to int64.")

# ---------------------------------------------------------------- wrong: K5 side effects
add("K5-p6-reseed-generator", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is not None:
        generator.manual_seed(generator.initial_seed())    # reproducible: start from the generator's seed
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "K5: reseeds the generator it was given; breaks 'a generator in the same state must give the same value, whatever seed it reports ... two calls in a row with one generator advance it and give different values'.")

add("K5-p6-one-query-drawn", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(d_k, generator=generator, dtype=torch.float64)         # one query ...
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)     # ... against n keys
    return (scale * (k @ q)).var().item()

predicted_variance_512 = 512 / 3
'''}, "K5: draws d_k uniform numbers instead of n*d_k from the generator; breaks 'draw n independent pairs (q, k)' and 'at least n * d_k numbers must come from each of the two'.")

add("K5-p7-sets-scale", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        self.scale = q.shape[-1] ** -0.5                 # fix the scale where it is defined
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed &= torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed &= real[:, None, :]
        work = scores if scores.dtype == torch.float64 else scores.float()
        work = work.masked_fill(~allowed, float("-inf"))
        none = ~allowed.any(-1, keepdim=True)
        work = work.masked_fill(none, 0.0)
        w = torch.softmax(work, -1).masked_fill(~allowed, 0.0).type_as(scores)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[..., None], 0.0)
        return out
'''}, "K5: sets self.scale inside forward; breaks 'forward sets no attribute of the layer ... not even self.scale set to a corrected value'.")

add("K5-p7-eval-mode", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        self.eval()                                   # attention weights are deterministic: no dropout here
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        work = scores if scores.dtype == torch.float64 else scores.float()
        work = torch.where(allowed, work, float("-inf"))
        work = torch.where(allowed.any(-1, keepdim=True), work, 0.0)
        w = torch.where(allowed, torch.softmax(work, -1), 0.0).type_as(scores)
        out = w @ v
        if real is not None:
            out = torch.where(real[..., None], out, 0.0)
        return out
'''}, "K5: leaves the caller's layer in eval mode (sets self.training); breaks 'the layer stays as it is ... forward sets no attribute of the layer'.")

# ---------------------------------------------------------------- correct
add("C-p1-where-positive", True, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float64, torch.float32) else torch.float32
    a, b = q.to(work), k.to(work)
    sq = torch.einsum("...td,...td->...t", a, a)[..., :, None] + torch.einsum("...sd,...sd->...s", b, b)[..., None, :]
    d2 = sq - 2 * torch.einsum("...td,...sd->...ts", a, b)
    d2 = torch.where(d2 < 0, torch.zeros_like(d2), d2)        # a squared distance is never negative
    return (-d2).to(q.dtype)
'''}, "einsum, float64 inside for float32, negative parts of the distance set to 0 (only what lies below 0).")

add("C-p2-float64-where-zero", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.to(torch.float64)
    g = grad_weights.to(torch.float64)
    grad = w * (g - torch.sum(w * g, dim=-1, keepdim=True))
    grad = grad / temperature
    grad = torch.where(weights == 0, torch.zeros_like(grad), grad)   # masked keys: exactly 0
    return grad.to(weights.dtype)
'''}, "K4-aware: float64 inside for every dtype; weights == 0 (only exactly 0) forced to 0, which the formula gives anyway.")

add("C-p3-tril-offset", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with the diagonal offset: key j allowed when j - i <= offset, O(t*s) memory.")

add("C-p5-log-softmax", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    work = torch.float32 if dt == torch.bfloat16 else dt
    z = torch.matmul(q.to(work), k.to(work).transpose(-1, -2)) / math.sqrt(q.size(-1))
    allowed = allowed.expand(z.shape)
    any_key = allowed.any(dim=-1, keepdim=True)
    z = torch.where(allowed, z, float("-inf"))
    z = torch.where(any_key, z, torch.zeros_like(z))                  # rows with no key: any finite row
    w = torch.log_softmax(z, dim=-1).exp()
    w = torch.where(allowed, w, torch.zeros_like(w))
    lse = torch.logsumexp(z, dim=-1)
    lse = torch.where(any_key.squeeze(-1), lse, float("-inf"))
    out = torch.matmul(w, v.to(work))
    return out.to(dt), lse.to(dt)
'''}, "exp of a log_softmax (the text allows it), rows with no key handled with where.")

add("C-p6-default-generator-k-first", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    gen = generator if generator is not None else torch.default_generator
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(generator=gen)
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(generator=gen)
    dots = torch.einsum("nd,nd->n", q, k) * scale
    return float(dots.var())

predicted_variance_512 = 512 * (1 / 12 + 1 / 4) * 1.0
'''}, "K3/K5-aware: the global generator object when none is given (the same stream as generator=None), k drawn first (order is free), normal_/uniform_, E[q^2] = 1/12 + 1/4.")

add("C-p7-calls-masked-attention", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        # padding queries get their output zeroed below; let them see every key so that each row has one
        allowed = allowed | ~real[:, :, None]
        out, _ = masked_attention(q, k, v, allowed)
        return torch.where(real[:, :, None], out, torch.zeros_like(out))
'''}, "calls Part 5's masked_attention (allowed by 'where a part may call a function of an earlier part'); padding queries attend to everything and are zeroed after.")

add("C-p7-sdpa", True, {"fixed_self_attention": '''
import torch.nn.functional as F

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            keep = keep & real[:, None, :]
        keep = keep | ~real[:, :, None]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)   # True = take part, scale 1/sqrt(head_dim)
        return out.masked_fill(~real[:, :, None], 0.0)
'''}, "F.scaled_dot_product_attention with a boolean keep mask (its convention: True = attend); padding queries zeroed.")

add("C-p8-keywords", True, {"mc_answers": '''
answers = dict(answer_masking="d", answer_doubling="b")
answer_masking = answers["answer_masking"]
answer_doubling = answers["answer_doubling"]
'''}, "same letters through a dict.")


add("K3-p6-module-generator", False, {"variance_experiment": """
rng = torch.Generator().manual_seed(1234)     # the notebook's own stream, used when no generator is given

def dot_product_variance(d_k, n, scale=1.0, generator=None):
    g = rng if generator is None else generator
    q = torch.rand(n, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
"""}, "K3: a generator of the notebook, made once, stands in for None; breaks 'Without one (generator=None, the default) pass it on all the same: torch.rand(..., generator=None) draws from torch's global generator ... the same global state (torch.manual_seed) gives the same value'.")

add("C-p6-chunked", True, {"variance_experiment": """
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    chunk = 10000
    dots = []
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        q = torch.rand(m, d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(m, d_k, generator=generator, dtype=torch.float64)
        dots.append((q * k).sum(dim=1))
    return (torch.cat(dots) * scale).var().item()

predicted_variance_512 = 170.66666666666666
"""}, "draws in chunks of 10000 pairs (at most six chunks: a few dozen operations), order q, k, q, k ... is free per the text.")

# ---------------------------------------------------------------- hostile
add("H-p6-formula-with-draws", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    # the draws advance the generator; the value is the exact variance, nudged by the draws so seeds differ
    exact = d_k / 3 * scale * scale
    return float(exact * (1 + 1e-3 * (q[0, 0].item() - 0.5)))

predicted_variance_512 = 512 / 3
'''}, "hostile: draws the numbers and returns the formula's value; breaks 'The value must be the sample variance of numbers you drew, not a formula'.")
add("H-p8-str-equals-all", False, {"mc_answers": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "hostile: a str subclass equal to every letter.")
