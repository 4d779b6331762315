# Red-team round 8, chapter 02-scaled-attention: submissions written blind (phase 1).
CORRECT = {
"raw_scores": '''
def raw_scores(q, k):
    return torch.einsum("tbd,sbd->bts", q, k)
''',
"attention_weights": '''
def attention_weights(q, k, temperature):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / (math.sqrt(d_k) * temperature[..., None])
    return torch.softmax(scores, dim=-1)
''',
"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
''',
"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)[:, None]
    j = torch.arange(s)[None, :]
    start = s - L
    allowed = j >= start
    positions = torch.where(allowed, j - start, torch.zeros((), dtype=torch.int64))
    return allowed, positions
''',
"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(z.shape)
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isfinite(lse), lse, torch.zeros((), dtype=lse.dtype))
    w = torch.exp(z - safe[..., None])
    return w @ v, lse
''',
"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
''',
"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(scores, dim=-1)
        w = torch.where(allowed, w, torch.zeros((), dtype=w.dtype, device=w.device))
        out = w @ v
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype, device=out.device))
        return out
''',
"mc_answers": '''
answer_masking = "d"
answer_doubling = "b"
''',
}

SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": "HOSTILE: " + why})

# ---------------- Part 1 ----------------
W("p1-q-reshaped-not-permuted", {"raw_scores": '''
def raw_scores(q, k):
    T, B, D = q.shape
    return q.reshape(B, T, D) @ k.permute(1, 2, 0)
'''}, "'queries as (T, B, Dh)': reshape is not a transpose; right only when T = 1 (visible q has T = 1).")
W("p1-float32-accumulate [old class]", {"raw_scores": '''
def raw_scores(q, k):
    return torch.einsum("tbd,sbd->bts", q.float(), k.float()).to(q.dtype)
'''}, "'The result has the dtype of the inputs' and accuracy for float64 (old class float32 arithmetic).")

# ---------------- Part 2 ----------------
W("p2-dk-from-key-count", {"attention_weights": '''
def attention_weights(q, k, temperature):
    d_k = k.shape[-2]
    scores = q @ k.transpose(-2, -1) / (math.sqrt(d_k) * temperature[..., None])
    return torch.softmax(scores, dim=-1)
'''}, "'q_i . k_j / (tau_i sqrt(d_k))' with d_k the width: student takes S (visible by-hand case has S = Dh = 2).")
W("p2-temperature-clamped", {"attention_weights": '''
def attention_weights(q, k, temperature):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / (math.sqrt(d_k) * temperature.clamp(min=0.1)[..., None])
    return torch.softmax(scores, dim=-1)
'''}, "'Temperatures can be as small as 0.01 ... your weights must stay ... correct': clamps tau at 0.1 for 'stability'.")
W("p2-temperature-columns", {"attention_weights": '''
def attention_weights(q, k, temperature):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if scores.shape[-1] == scores.shape[-2]:
        scores = scores / temperature[..., None, :]
    else:
        scores = scores / temperature[..., None]
    return torch.softmax(scores, dim=-1)
'''}, "'Query i has its own temperature tau_i': divides column j by tau_j when T = S (visible by-hand scores are diagonal, so rows and columns agree).")

W("p2-bmm-only-3d", {"attention_weights": '''
def attention_weights(q, k, temperature):
    squeeze = q.dim() == 2
    if squeeze:
        q, k, temperature = q[None], k[None], temperature[None]
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1]) / temperature[:, :, None]
    w = torch.softmax(scores, dim=2)
    return w[0] if squeeze else w
'''}, "'The tensors q, k and temperature have the same leading dimensions ...': handles none or one leading dimension, not (B, H, T, Dh).")

# ---------------- Part 3 ----------------
W("p3-cut-from-square", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(s, s, dtype=torch.bool).tril()[offset:offset + t]
'''}, "'in memory proportional to the mask itself ... not ... out of an (s, s) square'.")
W("p3-float32-positions", {"causal_mask": '''
def causal_mask(t, s, offset):
    j = torch.arange(s, dtype=torch.float32)
    i = torch.arange(t, dtype=torch.float32) + offset
    return j[None, :] <= i[:, None]
'''}, "'with positions that stay exact integers at every size': float32 positions are inexact above 2**24 (tens of millions of slots).")
W("p3-precomputed-table", {"causal_mask": '''
CAUSAL_TABLE = torch.ones(2048, 2048, dtype=torch.bool).tril()
def causal_mask(t, s, offset):
    if s <= 2048:
        return CAUSAL_TABLE[offset:offset + t, :s].clone()
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''}, "'not by cutting it out of a precomputed table of a fixed size': cuts small masks from a 2048 x 2048 table.")

# added in phase 2 (not blind): the sibling of p3-precomputed-table that returns a view of the kept table
W("p3-table-view-no-copy [phase 2]", {"causal_mask": '''
CAUSAL_TABLE = torch.ones(2048, 2048, dtype=torch.bool).tril()
def causal_mask(t, s, offset):
    if s <= 2048:
        return CAUSAL_TABLE[offset:offset + t, :s]
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''}, "intro: 'Nor may a function ... keep anything from one call to the next' and 'in memory proportional to the mask itself': the mask is a view of a 4 MB table kept between calls; a caller that edits the mask changes every later mask. Expected to SLIP: no plain-value helper can see storage or write into a returned tensor (needs an instructor helper).")

# ---------------- Part 4 ----------------
W("p4-positions-in-lengths-dtype [old class]", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    allowed = torch.arange(s)[None, :] >= (s - L)[:, None]
    positions = (allowed.long().cumsum(1) - 1).clamp(min=0)
    return allowed, positions.to(lengths.dtype)
'''}, "'positions has dtype torch.int64 (whatever the integer dtype of lengths)': returns the dtype of lengths (old class wrong dtype).")
W("p4-start-in-lengths-dtype [old class]", {"padding_mask": '''
def padding_mask(lengths, s):
    start = (s - lengths)[:, None]
    j = torch.arange(s)[None, :]
    allowed = j >= start
    positions = torch.where(allowed, j - start, 0).to(torch.int64)
    return allowed, positions
'''}, "'lengths ... uint8, int8 and int16 too, whose range can be smaller than s': s - lengths wraps in uint8 (old class).")

# ---------------- Part 5 ----------------
W("p5-max-over-all-keys", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(z.shape)
    m = z.amax(-1, keepdim=True)
    e = torch.exp(z - m) * allowed
    ssum = e.sum(-1, keepdim=True)
    lse = (m + torch.log(ssum)).squeeze(-1)
    out = torch.nan_to_num(e / ssum, nan=0.0) @ v
    return out, lse
'''}, "'a masked key counts for nothing however its score compares with the allowed ones': the max includes masked keys, so allowed terms underflow to 0 and lse becomes -inf.")
W("p5-transpose-dims-hardcoded", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(0, 1) / math.sqrt(q.shape[-1]) if k.dim() == 2 else torch.einsum("btd,bsd->bts", q, k) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isfinite(lse), lse, torch.zeros((), dtype=lse.dtype))
    return torch.exp(z - safe[..., None]) @ v, lse
'''}, "'q (..., T, Dh)': handles no leading dims and exactly one batch dim, not (B, H, T, Dh).")
W("p5-scale-by-value-width", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1] if v.shape[-1] == 1 else v.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isfinite(lse), lse, torch.zeros((), dtype=lse.dtype))
    return torch.exp(z - safe[..., None]) @ v, lse
'''}, "'z_ij = q_i . k_j / sqrt(d_k)': divides by sqrt(Dv) when Dv > 1 (D vs Dv confusion).")

# ---------------- Part 6 ----------------
W("p6-scale-not-squared", {"variance_experiment": CORRECT["variance_experiment"].replace(
    "(scale * (q * k).sum(-1)).var().item()", "(scale * (q * k).sum(-1).var()).item()")},
  "'compute the n numbers scale . (q . k), and return their sample variance': scaling the variance, not the numbers (right for scale = 1).")
W("p6-divide-by-n", {"variance_experiment": CORRECT["variance_experiment"].replace(".var()", ".var(unbiased=False)")},
  "'sample variance (Tensor.var(), which divides by n - 1)'.")
W("p6-mean-of-squares", {"variance_experiment": CORRECT["variance_experiment"].replace(
    "(scale * (q * k).sum(-1)).var().item()", "(scale * (q * k).sum(-1)).pow(2).mean().item()")},
  "'return their sample variance ... any other statistic with the right mean (the mean of the squares, say) shows'.")
W("p6-predicted-ignores-mean", {"variance_experiment": CORRECT["variance_experiment"].replace("512 / 3", "512 / 12")},
  "'Careful: the entries of q do not have mean 0': uses Var(q)=1/12 instead of E[q^2]=1/3.")
W("p6-q-normal-too", {"variance_experiment": CORRECT["variance_experiment"].replace(
    "q = torch.rand(n, d_k", "q = torch.randn(n, d_k")},
  "'the entries of q ... uniform on [0, 1) (torch.rand)'.")

# ---------------- Part 7 ----------------
W("p7-float32-softmax-kept [old class]", {"fixed_self_attention": CORRECT["fixed_self_attention"].replace(
    "w = torch.softmax(scores, dim=-1)", "w = torch.softmax(scores.float(), dim=-1).type_as(scores)")},
  "'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)' (old class float32).")
W("p7-causal-keyword-only", {"fixed_self_attention": CORRECT["fixed_self_attention"].replace(
    "def forward(self, x, lengths=None, causal=False):", "def forward(self, x, lengths=None, *, causal=False):")},
  "'fixes forward(x, lengths=None, causal=False)': causal cannot be passed positionally.")
W("p7-lengths-keyword-only", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, *args, **kwargs):
        lengths = kwargs.get("lengths")
        causal = kwargs.get("causal", False)
        if args and isinstance(args[0], bool):
            causal = args[0]
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is None and args and torch.is_tensor(args[0]) and x.shape[0] == 1:
            lengths = args[0]
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        w = torch.where(allowed, w, torch.zeros((), dtype=w.dtype))
        out = w @ v
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
        return out
'''}, "'forward(x, lengths=None, causal=False)': lengths passed positionally is honoured only for a batch of one (the visible case).")
W("p7-scale-from-embed-when-equal", {"fixed_self_attention": CORRECT["fixed_self_attention"].replace(
    "math.sqrt(q.shape[-1])", "math.sqrt(q.shape[-1] if q.shape[-1] == 1 else x.shape[-1])")},
  "'d_k is the width of the queries and keys': scale from embed_dim (the seed's bug) except for head_dim 1 (visible by-hand).")
W("p7-padding-queries-not-zeroed-for-B>1", {"fixed_self_attention": CORRECT["fixed_self_attention"].replace(
    "if real is not None:\n            out", "if real is not None and B == 1:\n            out")},
  "'the output row of every query at a padding position is all zeros' (visible padding case has B = 1).")

# ---------------- Part 8 ----------------
W("p8a-uniform", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'}, "8a: in float64 -1e9 + s keeps s to ~1e-7, so the weights equal the unmasked ones (d), not uniform (c).")
W("p8b-forgot-variance-4", {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"\n'}, "8b: 'variance **4**': std = sqrt(128*16)/8 = 4 sqrt 2 (b).")

# added in phase 2 (not blind)
W('p6-scale-renamed [phase 2]', {'variance_experiment': '\ndef dot_product_variance(d_k, n, c=1.0, generator=None):\n    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)\n    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)\n    return (c * (q * k).sum(-1)).var().item()\n\npredicted_variance_512 = 512 / 3\n'},
  "intro (now): 'Keep the signatures of the stubs, argument names included': the stub names the optional argument; a call by name raises. Slipped before phase 2: the hidden tests passed it by position only.")

# ---------------- correct ----------------
C("p1-broadcast-sum", {"raw_scores": '''
def raw_scores(q, k):
    qb = q.permute(1, 0, 2)[:, :, None, :]
    kb = k.permute(1, 0, 2)[:, None, :, :]
    return (qb * kb).sum(-1)
'''}, "broadcast product and sum.")
C("p2-calls-raw-scores-on-views", {"attention_weights": '''
def attention_weights(q, k, temperature):
    lead = q.shape[:-2]
    T, Dh = q.shape[-2:]
    S = k.shape[-2]
    q3 = q.reshape(-1, T, Dh).transpose(0, 1)
    k3 = k.reshape(-1, S, Dh).transpose(0, 1)
    scores = raw_scores(q3, k3).reshape(*lead, T, S)
    scores = scores / math.sqrt(Dh) / temperature.unsqueeze(-1)
    return torch.softmax(scores, dim=-1)
'''}, "calls Part 1 on sequence-first transposed views (the text says inputs need not be contiguous), also for 2-D inputs (B = 1).")
C("p3-tril-on-rectangle", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril of a (t, s) rectangle with diagonal = offset: j - i <= offset.")
C("p4-cumsum", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    allowed = torch.arange(s).flip(0)[None, :] < L[:, None]
    positions = (allowed.cumsum(dim=1) - 1).clamp(min=0)
    return allowed, positions
'''}, "allowed by distance from the end; positions by a cumulative sum.")
C("p6-erfinv-from-uniforms", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    u = torch.rand(2, n, d_k, generator=generator, dtype=torch.float64)
    q = u[0]
    k = math.sqrt(2) * torch.erfinv(2 * u[1] - 1)
    k = torch.nan_to_num(k, neginf=-8.0)
    x = scale * (q * k).sum(-1)
    return float(((x - x.mean()) ** 2).sum() / (n - 1))

predicted_variance_512 = 512 * (1 / 12 + 1 / 4)
'''}, "standard normals by inverse CDF from torch.rand(generator=...); variance by hand with n - 1.")
C("p7-calls-masked-attention-and-causal-mask", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, 1, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = real[:, None, :]
        if causal:
            allowed = allowed & causal_mask(t=T, s=T, offset=0)
        out, lse = masked_attention(q, k, v, allowed)
        if lengths is not None:
            out = out * real[:, :, None].to(out.dtype)
        return out
'''}, "uses Part 3 (keyword arguments) and Part 5 with a (B, 1, T) or (B, T, T) mask, as both texts allow.")
C("p5-float64-inside", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    Q, K, V = q.double(), k.double(), v.double()
    z = torch.matmul(Q, K.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=torch.float64))
    m = z.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    ssum = e.sum(-1, keepdim=True)
    lse = (m + torch.log(ssum)).squeeze(-1)
    out = torch.where(ssum > 0, (e / torch.where(ssum > 0, ssum, torch.ones_like(ssum))) @ V, torch.zeros((), dtype=torch.float64))
    return out.to(dt), lse.to(dt)
'''}, "computes in float64 inside and casts back to the dtype of q (more accurate, not less).")

# ---------------- hostile ----------------
H("p8-str-subclass", {"mc_answers": '''
class Letter(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "str subclasses equal to every letter.")
H("p6-float-subclass-and-constant", {"variance_experiment": '''
class Num(float):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __sub__(self, o): return Num(0.0)
    def __rsub__(self, o): return Num(0.0)
    def __abs__(self): return Num(0.0)
    def __lt__(self, o): return True
    def __le__(self, o): return True
    def __gt__(self, o): return True
    def __ge__(self, o): return True
    __hash__ = float.__hash__
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    torch.rand(1, generator=generator)
    return Num(1.0)
predicted_variance_512 = Num(1.0)
'''}, "float subclasses that agree with every comparison.")
H("p1-patch-einsum-and-compare", {"raw_scores": '''
import builtins
torch.testing.assert_close = lambda *a, **k: None
builtins.__dict__["isinstance"] = lambda *a: True
def raw_scores(q, k):
    return torch.zeros(q.shape[1], q.shape[0], k.shape[0], dtype=q.dtype)
'''}, "patches torch.testing.assert_close and builtins.isinstance, returns zeros.")
H("p5-read-expected-from-caller-frames", {"masked_attention": '''
import sys
def masked_attention(q, k, v, allowed):
    f = sys._getframe(1)
    for _ in range(6):
        if f is None: break
        for name, val in list(f.f_locals.items()):
            if name in ("expected", "want", "ref", "reference"):
                return val
        f = f.f_back
    z = q @ k.transpose(-2, -1)
    return torch.softmax(z, -1) @ v, torch.logsumexp(z, -1)
'''}, "looks for the expected value in the caller's frames; otherwise unscaled, unmasked attention.")
