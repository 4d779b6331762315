# Round 32 blind submissions for 02-scaled-attention (five kinds: containers, quantity, integer-range, assumption, commuter)
REF = {}
REF["raw_scores"] = '''
def raw_scores(q, k):
    work = torch.float64
    qq, kk = q.to(work), k.to(work)
    d2 = (qq * qq).sum(-1)[..., :, None] + (kk * kk).sum(-1)[..., None, :] - 2 * (qq @ kk.transpose(-2, -1))
    return (-d2).clamp(max=0).to(q.dtype)
'''
REF["softmax_backward"] = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    s = (w * g).sum(-1, keepdim=True)
    return (w * (g - s) / temperature).to(weights.dtype)
'''
REF["causal_mask"] = '''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (torch.arange(t)[:, None] + offset)
'''
REF["padding_mask"] = '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    slot = torch.arange(s)[None, :]
    start = (s - L)[:, None]
    allowed = slot >= start
    positions = torch.where(allowed, slot - start, torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''
REF["masked_attention"] = '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(z.shape)
    zf = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    m = zf.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.where(allowed, torch.exp(torch.where(allowed, z, m) - m), torch.zeros((), dtype=z.dtype))
    tot = e.sum(-1, keepdim=True)
    safe = torch.where(tot > 0, tot, torch.ones_like(tot))
    w = e / safe
    lse = torch.where(tot > 0, m + torch.log(safe), torch.tensor(float("-inf"), dtype=z.dtype)).squeeze(-1)
    return w @ v, lse
'''
REF["variance_experiment"] = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''
REF["fixed_self_attention"] = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]
        zf = scores.masked_fill(~allowed, float("-inf"))
        m = zf.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp((scores - m).masked_fill(~allowed, 0.0)).masked_fill(~allowed, 0.0)
        tot = e.sum(-1, keepdim=True)
        w = e / torch.where(tot > 0, tot, torch.ones_like(tot))
        return torch.matmul(w, v).masked_fill(~allowed.any(-1, keepdim=True), 0.0)
'''
REF["mc_answers"] = 'answer_masking = "d"\nanswer_doubling = "b"\n'

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

S = []
# ---------------- kind 1: Python containers ----------------
S.append(sub("k1-p4-negative-slice-per-row", False, {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    for b, L in enumerate(lengths.tolist()):
        allowed[b, -L:] = True          # the last L slots
    start = s - lengths.long()
    positions = (torch.arange(s)[None, :] - start[:, None]).clamp(min=0) * allowed
    return allowed, positions
'''}, "allowed[b, -L:] at L = 0 is the whole row: 'Sequence b has lengths[b] real tokens, in the last lengths[b] of the s slots'"))

S.append(sub("k1-p2-stack-of-rows", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    S = weights.shape[-1]
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    rows = []
    for w, g in zip(weights.reshape(-1, S).to(work), grad_weights.reshape(-1, S).to(work)):
        rows.append(w * (g - (w * g).sum()) / temperature)
    return torch.stack(rows).reshape(weights.shape).to(weights.dtype)
'''}, "torch.stack of an empty list for an empty batch: 'any number of leading dimensions ... of any size, 0 too: an empty batch gets an empty result'"))

S.append(sub("k1-p6-chunks-drop-remainder", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    chunk = 1024
    dots = []
    for c in range(max(n // chunk, 1)):        # draw the pairs a chunk at a time
        m = min(chunk, n)
        q = torch.rand(m, d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(m, d_k, generator=generator, dtype=torch.float64)
        dots.append(scale * (q * k).sum(-1))
    return torch.cat(dots).var().item()

predicted_variance_512 = 512 / 3
'''}, "n // chunk chunks drop the last n % chunk pairs: 'draw n independent pairs ... of all n dot products, the last one too'"))

S.append(sub("k1-p7-negative-tail-slice", False, {"fixed_self_attention": REF["fixed_self_attention"].replace(
    "        return torch.matmul(w, v).masked_fill(~allowed.any(-1, keepdim=True), 0.0)",
    """        out = torch.matmul(w, v)
        if lengths is not None:
            keep_q = torch.ones(B, T, 1, dtype=out.dtype)
            for b, L in enumerate(lengths.tolist()):
                keep_q[b, -(T - L):] = 0          # the T - L padding queries at the end
            out = out * keep_q
        return out""")},
    "keep_q[b, -(T - L):] at L = T is the whole row (-0 slices from the start): 'the output row of every query at a padding position is all zeros' (and only those)"))

# ---------------- kind 2: quantity confuser ----------------
S.append(sub("k2-p6-population-variance", False, {"variance_experiment": REF["variance_experiment"].replace(
    "dots.var().item()", "dots.var(unbiased=False).item()")},
    "divides by n: 'return their sample variance (Tensor.var(), which divides by n - 1)'"))

S.append(sub("k2-p6-predicted-variance-of-q", False, {"variance_experiment": REF["variance_experiment"].replace(
    "predicted_variance_512 = 512 / 3", "predicted_variance_512 = 512 * (1 / 12) * 1.0   # Var(q) Var(k) per coordinate")},
    "Var(q_i) Var(k_i) in place of E[q_i^2] E[k_i^2]: 'Careful: the entries of q do not have mean 0'"))

S.append(sub("k2-p8-variance-not-squared", False, {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"\n'},
    "variance of a product taken as 4 not 16 (2 sqrt 2): 8b"))

S.append(sub("k5-p7-value-after-average", False, {"fixed_self_attention": REF["fixed_self_attention"].replace(
    "        return torch.matmul(w, v).masked_fill(~allowed.any(-1, keepdim=True), 0.0)",
    "        return self.value(torch.matmul(w, x))   # average x first, then project: the same, rows of w sum to 1").replace(
    "        q, k, v = self.query(x), self.key(x), self.value(x)", "        q, k = self.query(x), self.key(x)")},
    "value projection moved after the weighted average: a padding query's zero weights then give the value bias, not 0: 'the output row of every query at a padding position is all zeros'"))

# ---------------- kind 3: integer range ----------------
S.append(sub("k3-p3-float32-positions", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    last = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= last[:, None]
'''}, "positions in float32 lose whole numbers past 2^24 ~ 16.7 M: 'Caches can hold tens of millions of slots ... with positions that stay exact integers'"))

S.append(sub("k3-p4-start-in-lengths-dtype", False, {"padding_mask": '''
def padding_mask(lengths, s):
    start = s - lengths                     # first real slot of each row
    slot = torch.arange(s)
    allowed = slot[None, :] >= start[:, None]
    positions = torch.where(allowed, slot[None, :] - start[:, None], 0).to(torch.int64)
    return allowed, positions
'''}, "s - lengths in a uint8/int8/int16 dtype wraps: 'lengths ... of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)'"))

S.append(sub("k3-p4-int16-cumsum", False, {"padding_mask": '''
def padding_mask(lengths, s):
    slot = torch.arange(s)
    allowed = slot[None, :] >= (s - lengths.long())[:, None]
    positions = (allowed.to(torch.int16).cumsum(-1, dtype=torch.int16) - 1).clamp(min=0).to(torch.int64)
    return allowed, positions
'''}, "positions counted in int16 wrap past 32767: 'a row can hold tens of thousands of slots (more than an int16 ... counts)'"))

S.append(sub("k3-p7-bf16-slots", False, {"fixed_self_attention": REF["fixed_self_attention"].replace(
    "            real = torch.arange(T)[None, :] < lengths.long()[:, None]",
    "            real = torch.arange(T, dtype=x.dtype)[None, :] < lengths.to(x.dtype)[:, None]")},
    "slot numbers compared in the layer's dtype: 'a bfloat16 layer's dtype holds them exactly only up to 256'"))

S.append(sub("k3-p6-float32-scaled-dots", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = scale * (q * k).sum(-1)
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''}, "variance of scaled float32 dots: squares of 1e25-scaled dots overflow to inf, of 1e-25-scaled ones underflow to 0: 'whatever dtype you draw in, the variance must come out right'"))

S.append(sub("k3-p1-float16-own-dtype", False, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float64, torch.float32) else q.dtype
    qq, kk = q.to(work), k.to(work)
    d2 = (qq * qq).sum(-1)[..., :, None] + (kk * kk).sum(-1)[..., None, :] - 2 * (qq @ kk.transpose(-2, -1))
    return (-d2).clamp(max=0).to(q.dtype)
'''}, "half-precision inputs squared in their own dtype overflow past 65504: 'squares taken in float16 become inf, and inf - inf is NaN'"))

# ---------------- kind 4: assumption ----------------
S.append(sub("k4-p5-3d-mask-is-batch", False, {"masked_attention": REF["masked_attention"].replace(
    "    allowed = allowed.expand(z.shape)",
    "    if allowed.dim() == 3 and z.dim() == 4:\n        allowed = allowed[:, None]          # (B, T, S) shared by the heads\n    allowed = allowed.expand(z.shape)")},
    "a 3-D mask for 4-D inputs read as (B, T, S): 'for inputs (B, H, T, Dh) a 3-D mask is (H, T, S) ... not a (B, T, S) mask missing its head axis'"))

S.append(sub("k4-p4-max-length-width", False, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    width = int(L.max())                       # only the last `width` slots can hold tokens
    slot = torch.arange(width)[None, :]
    start = (width - L)[:, None]
    inner = slot >= start
    allowed = torch.cat([torch.zeros(L.shape[0], s - width, dtype=torch.bool), inner], 1)
    positions = torch.cat([torch.zeros(L.shape[0], s - width, dtype=torch.int64),
                           torch.where(inner, slot - start, 0)], 1)
    return allowed, positions
'''}, "lengths.max() of an empty batch: 'an empty batch, B = 0, too: then both tensors are (0, s), and lengths.max() has no value'"))

S.append(sub("k4-p7-every-row-has-a-key", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        out = torch.matmul(weights, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "softmax of an all -inf row (a padding query when lengths[b] = 0) gives NaN weights and NaN gradients: 'no output contains NaN ... a sequence with no real token (lengths[b] = 0) included'"))

S.append(sub("k4-p2-rows-sum-to-one", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    # the weights of a row sum to 1, so the mean of g under them is (w * g).sum / 1; centre g by it
    centred = g - (w * g).sum(-1, keepdim=True) / w.sum(-1, keepdim=True)
    return (w * centred / temperature).to(weights.dtype)
'''}, "dividing by w.sum() gives 0/0 = NaN for an all-zero (fully masked) row: 'a row whose weights are all 0 ... an all-zero row'"))

# ---------------- kind 5: commuter ----------------
S.append(sub("k5-p1-cross-term-before-cast", False, {"raw_scores": '''
def raw_scores(q, k):
    cross = q @ k.transpose(-2, -1)             # the big product in the input dtype
    work = torch.float64
    qq, kk = q.to(work), k.to(work)
    d2 = (qq * qq).sum(-1)[..., :, None] + (kk * kk).sum(-1)[..., None, :] - 2 * cross.to(work)
    return (-d2).clamp(max=0).to(q.dtype)
'''}, "cross term computed before the cast to float64: 'work float32 in float64' (entries near 1e19 overflow, cancellation error)"))

S.append(sub("k5-p2-temperature-first-f16", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    g = grad_weights / temperature                 # gradient w.r.t. z / tau, then chain rule
    if weights.dtype == torch.float64:
        w, g = weights, g
    else:
        w = weights
    return w * (g - (w * g).sum(-1, keepdim=True))
'''}, "g divided by tau before the product, in the input dtype: 'divide by the temperature after the product, not g first: g / 1e-6 in float16 is inf'"))

S.append(sub("k5-p5-mask-after-max", False, {"masked_attention": REF["masked_attention"].replace(
    "    m = zf.amax(-1, keepdim=True)", "    m = z.amax(-1, keepdim=True)   # row max, then mask")},
    "maximum over all keys taken before masking: a masked score far above the allowed ones makes every allowed exp underflow: 'a masked key counts for nothing however its score compares with the allowed ones'"))

S.append(sub("k5-p7-softmax-float-then-cast", False, {"fixed_self_attention": REF["fixed_self_attention"].replace(
    "        w = e / torch.where(tot > 0, tot, torch.ones_like(tot))",
    "        w = (e.float() / torch.where(tot > 0, tot, torch.ones_like(tot)).float()).type_as(e)")},
    "normalisation in float32 then cast back: 'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)'"))

# ---------------- correct ----------------
S.append(sub("ok-p1-einsum-f64", True, {"raw_scores": '''
def raw_scores(q, k):
    wd = torch.float64
    a, b = q.double(), k.to(dtype=wd)
    cross = torch.einsum("...td,...sd->...ts", a, b)
    sq = a.pow(2).sum(dim=-1).unsqueeze(-1) + b.pow(2).sum(dim=-1).unsqueeze(-2)
    d2 = torch.clamp(sq - 2.0 * cross, min=0.0)
    return (-d2).to(q.dtype)
'''}, "einsum in float64, clamp the distance at 0 then negate"))

S.append(sub("ok-p2-float64-everything", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.to(torch.float64)
    g = grad_weights.to(torch.float64)
    inner = torch.einsum("...s,...s->...", w, g).unsqueeze(-1)
    return torch.mul(w, g - inner).div(temperature).to(dtype=weights.dtype)
'''}, "float64 for every dtype, einsum"))

S.append(sub("ok-p3-tril", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with the offset as its diagonal"))

S.append(sub("ok-p4-float32-slots-promised", True, {"padding_mask": '''
def padding_mask(lengths, s):
    # rows are shorter than 2^24, so float32 slot numbers are exact
    slot = torch.arange(s, dtype=torch.float32)
    first = (s - lengths.to(torch.float64)).to(torch.float32)
    allowed = slot.unsqueeze(0) >= first.unsqueeze(1)
    positions = torch.where(allowed, slot.unsqueeze(0) - first.unsqueeze(1), torch.zeros(())).to(torch.int64)
    return allowed, positions
'''}, "float32 slot numbers, exact below 2^24 which the text promises"))

S.append(sub("ok-p5-log-softmax", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.size(-1)))
    allowed = torch.broadcast_to(allowed, scores.shape)
    any_key = allowed.any(dim=-1, keepdim=True)
    filled = scores.masked_fill(~allowed, float("-inf"))
    filled = filled.masked_fill(~any_key, 0.0)        # rows with no key: a harmless finite row
    logw = torch.log_softmax(filled, dim=-1)
    w = torch.exp(logw).masked_fill(~any_key, 0.0)
    lse = torch.logsumexp(filled, dim=-1).masked_fill(~any_key.squeeze(-1), float("-inf"))
    return torch.matmul(w, v), lse
'''}, "log_softmax, rows with no key filled finite and zeroed after"))

S.append(sub("ok-p6-scale-after-var", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    dots = torch.einsum("nd,nd->n", q, k)
    return float(dots.var()) * scale * scale

predicted_variance_512 = 512 * (1 / 3)
'''}, "variance of the unscaled dots times scale^2 (exact algebra), k drawn first"))

S.append(sub("ok-p7-where-softmax", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        dk = self.query.out_features
        scores = torch.einsum("btd,bsd->bts", q, k) / dk ** 0.5
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & ~torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        if lengths is not None:
            real = torch.arange(T).unsqueeze(0) < lengths.to(torch.int64).unsqueeze(1)
            keep = keep & real.unsqueeze(1)
        row_ok = keep.any(-1, keepdim=True)
        if lengths is not None:
            row_ok = row_ok & real.unsqueeze(-1)
        masked = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        masked = torch.where(row_ok, masked, torch.zeros((), dtype=scores.dtype))
        w = torch.softmax(masked, dim=-1)
        w = torch.where(row_ok & keep, w, torch.zeros((), dtype=w.dtype))
        return torch.where(row_ok, w @ v, torch.zeros((), dtype=v.dtype))
'''}, "torch.where, softmax on rows with a key, padding queries zeroed"))

S.append(sub("ok-p8-letters", True, {"mc_answers": 'answer_masking = str("d")\nanswer_doubling = "b"\n'}, "d and b"))

S.append(sub("ok-p3-int32-positions", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.int32)                 # s < 2^31
    queries = torch.arange(offset, offset + t, dtype=torch.int32)
    return keys.unsqueeze(0) <= queries.unsqueeze(1)
'''}, "int32 positions: tens of millions fit"))

S.append(sub("ok-p2-tau-first-in-float32", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w = weights.to(work)
    g = grad_weights.to(work) / temperature        # dL/d(z/tau) times 1/tau, in a wide dtype
    return (w * (g - (w * g).sum(dim=-1, keepdim=True))).to(weights.dtype)
'''}, "temperature divided first, but in float32/float64, where 1e6 times g fits"))

S.append(sub("ok-p6-transposed-draws", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(d_k, n, generator=generator, dtype=torch.float64)     # one column per pair
    k = torch.randn(d_k, n, generator=generator, dtype=torch.float64)
    dots = (q * k).sum(dim=0) * scale
    return dots.var().item()

predicted_variance_512 = 512.0 / 3.0
'''}, "draws laid out (d_k, n), a column per pair: order and layout are up to the student"))

S.append(sub("k4-p1-square-means-self", False, {"raw_scores": REF["raw_scores"].replace(
    "    return (-d2).clamp(max=0).to(q.dtype)",
    "    out = (-d2).clamp(max=0)\n    if q.shape == k.shape:                # self-attention: each query is its own key\n        out = out - torch.diag_embed(torch.diagonal(out, dim1=-2, dim2=-1))\n    return out.to(q.dtype)")},
    "assumes equal shapes mean k is q and zeroes the diagonal: 'In self-attention k can be q itself' (can, not must)"))

S.append(sub("k3-p7-arange-in-lengths-dtype", False, {"fixed_self_attention": REF["fixed_self_attention"].replace(
    "            real = torch.arange(T)[None, :] < lengths.long()[:, None]",
    "            real = torch.arange(T, dtype=lengths.dtype)[None, :] < lengths[:, None]")},
    "slot numbers made in the lengths' dtype wrap past 255 for uint8: 'of any integer dtype (uint8 and int8 too, whose range can be smaller than T)'"))

S.append(sub("k3-p8-float32-reasoning", False, {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
    "8a answered as for float32 scores, where -1e9 swallows them: the question says float64"))

S.append(sub("ok-p6-default-generator", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    gen = generator if generator is not None else torch.default_generator
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=gen)
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(generator=gen)
    return (scale * torch.einsum("nd,nd->n", q, k)).var().item()

predicted_variance_512 = 170.6666667
'''}, "torch.default_generator is the global generator; uniform_/normal_ allowed by the text"))

# ---------------- hostile ----------------
S.append(sub("hostile-p8-str-subclass", False, {"mc_answers": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "str subclass equal to everything"))

SUBMISSIONS = S
