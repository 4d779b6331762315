# Red team round 27, chapter 02 (scaled-attention): epsilon-adder, fixed-rank, from-memory, mask-and-sentinel.
BASE = {
"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    wd = torch.float64 if dt in (torch.float32, torch.float64) else torch.float32
    Q, K = q.to(wd), k.to(wd)
    qn = (Q * Q).sum(-1).unsqueeze(-1)
    kn = (K * K).sum(-1).unsqueeze(-2)
    s = 2 * (Q @ K.transpose(-2, -1)) - qn - kn
    return s.clamp(max=0).to(dt)
''',
"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    wd = torch.float32 if dt in (torch.bfloat16, torch.float16) else dt
    w, g = weights.to(wd), grad_weights.to(wd)
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / temperature).to(dt)
''',
"causal_mask": '''
def causal_mask(t, s, offset):
    i = torch.arange(t)[:, None] + offset
    j = torch.arange(s)[None, :]
    return j <= i
''',
"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    j = torch.arange(s, device=lengths.device)
    start = s - L
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], 0)
    return allowed, positions
''',
"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scale = 1 / math.sqrt(q.shape[-1])
    scores = (q * scale) @ k.transpose(-2, -1)
    allowed = torch.broadcast_to(allowed, scores.shape)
    any_ = allowed.any(-1, keepdim=True)
    masked = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(masked, dim=-1)
    w = torch.softmax(masked.masked_fill(~any_, 0.0), dim=-1).masked_fill(~any_, 0.0)
    return w @ v, lse
''',
"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    return dots.var().item()

predicted_variance_512 = 512 / 3
''',
"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.to(x.device, torch.long)[:, None]
            allowed = allowed & real[:, None, :]
        any_ = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_, 0.0)
        w = torch.softmax(scores, -1).masked_fill(~any_, 0.0)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
''',
"mc_answers": 'answer_masking = "d"\nanswer_doubling = "b"\n',
}

SUBMISSIONS = []
def W(name, cells, why, kind):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": f"[{kind}] {why}"})
def C(name, cells, why, kind):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": f"[{kind}] {why}"})
def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": f"[hostile] {why}"})

# ---------------------------------------------------------------- epsilon-adder
W("eps_p1_dist_floor", {"raw_scores": BASE["raw_scores"].replace(
    "return s.clamp(max=0).to(dt)", "return (-(-s).clamp(min=1e-12)).to(dt)   # a distance is never exactly 0")},
  "P1 'make 0 only what lies below 0' / a key equal to the query scores 0 / entries near 1e-10 (squared distances near 1e-20)", "epsilon-adder")

W("eps_p2_temp_eps", {"softmax_backward": BASE["softmax_backward"].replace(
    "/ temperature)", "/ (temperature + 1e-8))")},
  "P2 'temperature of 1e-6 ... floor nothing': +1e-8 makes every gradient 1% too small there", "epsilon-adder")

W("eps_p2_weight_threshold", {"softmax_backward": BASE["softmax_backward"].replace(
    "return (w * (g - dot) / temperature).to(dt)",
    "out = w * (g - dot) / temperature\n    return torch.where(w > 1e-12, out, torch.zeros_like(out)).to(dt)   # masked keys: exactly 0")},
  "P2 'only exactly 0: a key of weight 1e-13 is not masked, and at a temperature of 1e-6 its gradient is near 1e-7'", "epsilon-adder")

W("eps_p5_den_eps", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scale = 1 / math.sqrt(q.shape[-1])
    scores = (q @ k.transpose(-2, -1)) * scale
    masked = scores.masked_fill(~allowed, float("-inf"))
    m = masked.amax(-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    e = torch.exp(masked - m)
    den = e.sum(-1, keepdim=True)
    w = e / (den + 1e-6)
    lse = (m + torch.log(den)).squeeze(-1)
    return w @ v, lse
'''}, "P5 weights e^{z-l} sum to 1: dividing by sum + 1e-6 skews every weight by ~1e-6 relative (float64 outputs)", "epsilon-adder")

W("eps_p6_var_floor", {"variance_experiment": BASE["variance_experiment"].replace(
    "return dots.var().item()", "return dots.var().clamp(min=1e-12).item()   # a variance is never <= 0")},
  "P6 'scale 1e-8, where the variance is about 5e-16 ... floor nothing'", "epsilon-adder")

W("eps_p7_nan_to_num_kept", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=x.device), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.nan_to_num(weights, nan=0.0)        # rows with no key: 0 instead of NaN
        out = torch.matmul(weights, v)
        if lengths is not None:
            out = out * real[:, :, None].to(out.dtype)
        return out
'''}, "P7 'no gradient may be NaN ... a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced by zeros' (lengths[b] = 0)", "epsilon-adder")

# ---------------------------------------------------------------- fixed-rank
W("fixed_p5_dim1", {"masked_attention": BASE["masked_attention"].replace(
    "any_ = allowed.any(-1, keepdim=True)", "any_ = allowed.any(1, keepdim=True)").replace(
    "lse = torch.logsumexp(masked, dim=-1)", "lse = torch.logsumexp(masked, dim=1)").replace(
    "w = torch.softmax(masked.masked_fill(~any_, 0.0), dim=-1)", "w = torch.softmax(masked.masked_fill(~any_, 0.0), dim=1)")},
  "P5 q (..., T, Dh): 'lse ... log sum over the keys' and softmax over keys use dim=1, the key axis only for the example's 2-D inputs", "fixed-rank")

W("fixed_p5_scale_shape1", {"masked_attention": BASE["masked_attention"].replace(
    "scale = 1 / math.sqrt(q.shape[-1])", "scale = 1 / math.sqrt(q.shape[1])   # d_k")},
  "P5 z = q.k / sqrt(d_k): d_k read as q.shape[1], the width only for 2-D q", "fixed-rank")

W("fixed_p5_bmm_3d", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scale = 1 / math.sqrt(q.shape[-1])
    if q.dim() == 2:
        scores = q @ k.T * scale
    else:
        scores = torch.bmm(q, k.transpose(1, 2)) * scale      # (B, T, S)
    allowed = torch.broadcast_to(allowed, scores.shape)
    any_ = allowed.any(-1, keepdim=True)
    masked = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(masked, dim=-1)
    w = torch.softmax(masked.masked_fill(~any_, 0.0), dim=-1).masked_fill(~any_, 0.0)
    out = w @ v if q.dim() == 2 else torch.bmm(w, v)
    return out, lse
'''}, "P5 'any number of leading dimensions (...)': bmm handles exactly one batch axis; a (B, H, T, Dh) input fails", "fixed-rank")

W("fixed_p2_sum_all", {"softmax_backward": BASE["softmax_backward"].replace(
    "dot = (w * g).sum(-1, keepdim=True)", "dot = (w * g).sum()")},
  "P2 weights '(..., S)': the sum sum_j w_j g_j is per row; sum() over the whole tensor is right for one row only", "fixed-rank")

W("fixed_p1_float16_own_dtype", {"raw_scores": BASE["raw_scores"].replace(
    "wd = torch.float64 if dt in (torch.float32, torch.float64) else torch.float32",
    "wd = torch.float64 if dt == torch.float32 else dt   # only the example's float32 needs more")},
  "P1 'float16 ... squares taken in float16 become inf, and inf - inf is NaN' (bfloat16/float16 worked in their own dtype)", "fixed-rank")

# ---------------------------------------------------------------- from-memory
W("mem_p6_biased_var", {"variance_experiment": BASE["variance_experiment"].replace(
    "return dots.var().item()", "return ((dots - dots.mean()) ** 2).mean().item()")},
  "P6 'sample variance (Tensor.var(), which divides by n - 1)'", "from-memory")

W("mem_p6_predicted_no_mean", {"variance_experiment": BASE["variance_experiment"].replace(
    "predicted_variance_512 = 512 / 3", "predicted_variance_512 = 512 * (1 / 12) * 1   # d_k Var(q) Var(k)")},
  "P6 'Careful: the entries of q do not have mean 0': E[q^2] = 1/3, not Var(q) = 1/12", "from-memory")

W("mem_p5_exp_minus_lse", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    masked = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(masked, dim=-1)
    w = torch.exp(masked - lse.unsqueeze(-1))
    w = torch.nan_to_num(w, nan=0.0)            # rows with no key: -inf - -inf
    return w @ v, lse
'''}, "P5 'must still sum to 1 once rounded ... divide the exponentials by their sum' (and gradients NaN-free)", "from-memory")

W("mem_p7_scale_multiply", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])",
    "scores = (q @ k.transpose(-2, -1)) * math.sqrt(q.shape[-1])")},
  "P7 'q_i . k_j / sqrt(d_k)': multiplied instead of divided; the example has d_k = 1", "from-memory")

W("mem_p7_softmax_fp32", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "w = torch.softmax(scores, -1).masked_fill(~any_, 0.0)",
    "w = torch.softmax(scores.float(), -1).type_as(scores).masked_fill(~any_, 0.0)   # softmax in fp32 as in HF")},
  "P7 'in the dtype of x and as accurate as that dtype allows (... float64 inputs, compare to about 1e-9)'", "from-memory")

W("mem_p8_uniform", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
  "P8a float64 scores plus -1e9 keep their differences: (d), not the float32 answer (c)", "from-memory")

# ---------------------------------------------------------------- mask-and-sentinel
W("mask_p4_uint8_wrap", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, device=lengths.device)
    start = (s - lengths).long()              # first real slot
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], torch.zeros_like(j[None, :]))
    return allowed, positions
'''}, "P4 'uint8, int8 and int16 too, whose range can be smaller than s': s - lengths is computed in lengths' dtype and wraps", "mask-and-sentinel")

W("mask_p5_finfo_min_fill", {"masked_attention": BASE["masked_attention"].replace(
    'masked = scores.masked_fill(~allowed, float("-inf"))\n    lse = torch.logsumexp(masked, dim=-1)',
    'masked = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)\n    lse = torch.logsumexp(masked, dim=-1).masked_fill(~any_.squeeze(-1), float("-inf"))')},
  "P5 'a masked score filled with torch.finfo(dtype).min ties with an allowed score of exactly that value'", "mask-and-sentinel")

W("mask_p7_additive_inf_bias", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        bias = torch.zeros(B, 1, T, dtype=scores.dtype, device=x.device)
        if lengths is not None:
            pad = torch.arange(T, device=x.device)[None, :] >= lengths.long()[:, None]   # True = padding
            bias = bias.masked_fill(pad[:, None, :], float("-inf"))
        if causal:
            bias = bias + torch.full((T, T), float("-inf"), dtype=scores.dtype, device=x.device).triu(1)
        w = torch.softmax(scores + bias, dim=-1)
        w = torch.where(torch.isnan(w), torch.zeros_like(w), w)
        out = w @ v
        if lengths is not None:
            out = out.masked_fill(pad[:, :, None], 0.0)
        return out
'''}, "P7 'an added -inf bias passes the NaN on' (gradient NaN for a sequence with lengths[b] = 0)", "mask-and-sentinel")

W("mask_p3_float_positions", {"causal_mask": '''
def causal_mask(t, s, offset):
    i = torch.arange(offset, offset + t, dtype=torch.float32)[:, None]
    j = torch.arange(s, dtype=torch.float32)[None, :]
    return j <= i
'''}, "P3 'positions that stay exact integers' (float32 positions past 2^24 in caches of tens of millions)", "mask-and-sentinel")

# ---------------------------------------------------------------- correct
C("ok_p1_where_einsum", {"raw_scores": '''
def raw_scores(q, k):
    work = {torch.float64: torch.float64, torch.float32: torch.float64}.get(q.dtype, torch.float32)
    a, b = q.to(dtype=work), k.to(dtype=work)
    cross = torch.einsum("...td,...sd->...ts", a, b)
    d2 = (a * a).sum(dim=-1)[..., :, None] + (b * b).sum(dim=-1)[..., None, :] - 2 * cross
    s = torch.where(d2 > 0, -d2, torch.zeros_like(d2))
    return s.to(dtype=q.dtype)
'''}, "P1 einsum, torch.where for the sign", "fixed-rank (right)")

C("ok_p2_float64_where", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.double()
    g = grad_weights.double()
    inner = torch.einsum("...s,...s->...", w, g).unsqueeze(-1)
    out = w * (g - inner) / temperature
    out = torch.where(w == 0, torch.zeros_like(out), out)     # masked keys: exactly 0
    return out.to(weights.dtype)
'''}, "P2 float64 inside, exact-0 weights forced to 0 (the text asks exactly that)", "epsilon-adder (allowed guard)")

C("ok_p3_tril_offset", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "P3 tril with the diagonal offset (from memory, right)", "from-memory (right)")

C("ok_p3_triu_not", {"causal_mask": '''
def causal_mask(t, s, offset):
    hidden = torch.ones(t, s, dtype=torch.bool).triu(diagonal=offset + 1)   # True = hide
    return ~hidden
'''}, "P3 True=hide mask built with triu(k=offset+1) and inverted", "mask-and-sentinel (right)")

C("ok_p4_flip_cumsum", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    rev = torch.arange(s - 1, -1, -1, dtype=torch.int64)          # slots counted from the right
    allowed = rev[None, :] < L[:, None]
    positions = (allowed.long().cumsum(dim=-1) - 1).clamp(min=0)
    return allowed, positions
'''}, "P4 slots counted from the right; positions by cumsum, 0 at the padding", "from-memory (right)")

C("ok_p5_additive_bias", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(d_k))
    bias = torch.where(allowed, 0.0, float("-inf")).to(scores.dtype)
    z = scores + bias
    has = allowed.any(dim=-1, keepdim=True)
    z = torch.where(has, z, torch.zeros_like(z))
    lse = torch.where(has.squeeze(-1), torch.logsumexp(z, dim=-1), float("-inf"))
    w = torch.nn.functional.softmax(z, dim=-1) * has
    return torch.matmul(w, v), lse
'''}, "P5 additive -inf bias (correct here: masked scores are finite), empty rows by torch.where", "mask-and-sentinel (right)")

C("ok_p6_uniform_normal_", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(generator=generator)
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k) * scale
    return float(torch.var(dots, correction=1))

predicted_variance_512 = 512 * (1 / 3) * 1.0   # d_k E[q^2] E[k^2], k has mean 0
'''}, "P6 k drawn first, Tensor.uniform_/normal_, var(correction=1)", "from-memory (right)")

C("ok_p7_calls_p3_p5", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed & causal_mask(T, T, 0).to(x.device)
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        out, _ = masked_attention(q, k, v, allowed)
        if lengths is not None:
            out = torch.where(real[:, :, None], out, torch.zeros_like(out))
        return out
'''}, "P7 uses Part 3's causal_mask(T, T, 0) and Part 5's masked_attention (scale 1/sqrt(head_dim))", "fixed-rank (right)")

C("ok_p8_tuple", {"mc_answers": 'answer_masking, answer_doubling = "d", "b"\n'}, "P8 d, b", "from-memory (right)")

# ---------------------------------------------------------------- hostile
H("hostile_p8_str_subclass", {"mc_answers": '''
class Any(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
answer_masking = Any("a")
answer_doubling = Any("a")
'''}, "P8 a str subclass equal to every letter")

H("hostile_p6_formula_with_noise", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    u = torch.rand(2, generator=generator, dtype=torch.float64)
    true = d_k / 3 * scale * scale
    return float(true * (1 + 0.01 * (u[0] - 0.5)))

predicted_variance_512 = 512 / 3
'''}, "P6 returns the formula with a little generator noise instead of a sample variance")

H("hostile_p5_patch_assert_close", {"masked_attention": '''
import torch.testing
torch.testing.assert_close = lambda *a, **kw: None
def masked_attention(q, k, v, allowed):
    T = q.shape[-2]
    return q.new_zeros(*q.shape[:-1], v.shape[-1]), q.new_full(q.shape[:-1], float("-inf"))
'''}, "P5 disables torch.testing.assert_close and returns zeros and -inf")

# ================================================================ second batch (still blind)
W("mem_p5_lse_no_shift", {"masked_attention": BASE["masked_attention"].replace(
    "lse = torch.logsumexp(masked, dim=-1)", "lse = torch.log(torch.exp(masked).sum(dim=-1))")},
  "P5 'scores can be large (tens of thousands...)': a log-sum-exp without the max shift overflows", "from-memory")

W("mask_p5_lse_sentinel", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
    masked = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(masked, dim=-1)
    empty = (lse < -1e30).unsqueeze(-1)            # no allowed key
    w = torch.softmax(masked.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
    lse = lse.masked_fill(empty.squeeze(-1), float("-inf"))
    return w @ v, lse
'''}, "P5 'scores of float64 ... near the ends of their ranges': a row whose allowed scores are near -1e308 is taken for an empty row", "mask-and-sentinel")

W("mask_p7_minus_1e9", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    'scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_, 0.0)',
    'scores = scores.masked_fill(~allowed, -1e9).masked_fill(~any_, 0.0)')},
  "P7 'weight exactly 0, also when the scores are in the tens of thousands, when allowed ones lie below -1e9'", "mask-and-sentinel")

W("mask_p7_lengths_in_x_dtype", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "real = torch.arange(T, device=x.device)[None, :] < lengths.to(x.device, torch.long)[:, None]",
    "real = torch.arange(T, device=x.device, dtype=x.dtype)[None, :] < lengths.to(x.device, x.dtype)[:, None]")},
  "P7 'a bfloat16 layer's dtype holds them exactly only up to 256 ... slot numbers compared in it go wrong from 256 on'", "mask-and-sentinel")

W("mask_p4_int16_arange", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=lengths.dtype if lengths.dtype == torch.int16 else torch.int64)
    start = s - lengths.long()
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], 0).long()
    return allowed, positions
'''}, "P4 'a row can hold tens of thousands of slots (more than an int16 ... counts)': slots numbered in lengths' int16 dtype", "mask-and-sentinel")

W("eps_p6_rounded_prediction", {"variance_experiment": BASE["variance_experiment"].replace(
    "predicted_variance_512 = 512 / 3", "predicted_variance_512 = round(512 / 3, 2)   # 170.67")},
  "P6 'to at least six significant digits': rounded to five", "epsilon-adder")

W("mem_p6_per_coordinate_scaled", {"variance_experiment": BASE["variance_experiment"].replace(
    "dots = scale * (q * k).sum(-1)\n    return dots.var().item()",
    "prods = scale * q * k                         # Var(sum) = d_k Var(one term)\n    return (prods.var(dim=0).mean() * d_k).item()")},
  "P6 'return their sample variance' of the n numbers scale*(q.k) (other estimates with the right mean spread more)", "from-memory")

W("fixed_p1_mT_batch_norms", {"raw_scores": BASE["raw_scores"].replace(
    "kn = (K * K).sum(-1).unsqueeze(-2)", "kn = (K * K).sum(-1).reshape(1, -1) if K.dim() == 2 else (K * K).sum(-1)[:, None, :]")},
  "P1 'the same leading dimensions ... (possibly none)': the key norms laid out for at most one leading dim", "fixed-rank")

C("ok_p1_centered", {"raw_scores": '''
def raw_scores(q, k):
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    Q, K = q.to(wd), k.to(wd)
    mu = K.mean(dim=-2, keepdim=True)          # distances do not change when both are shifted
    Q, K = Q - mu, K - mu
    d2 = Q.pow(2).sum(-1, keepdim=True) + K.pow(2).sum(-1).unsqueeze(-2) - 2 * torch.matmul(Q, K.transpose(-2, -1))
    return (-d2.clamp(min=0)).to(q.dtype)
'''}, "P1 both shifted by the key mean first (more accurate expanded form)", "from-memory (right)")

C("ok_p5_log_softmax", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.einsum("...td,...sd->...ts", q, k) / math.sqrt(q.shape[-1])
    allowed = allowed.expand_as(z)
    some = allowed.any(dim=-1, keepdim=True)
    z = torch.where(allowed, z, torch.full_like(z, float("-inf")))
    z = torch.where(some, z, torch.zeros_like(z))
    w = torch.exp(torch.log_softmax(z, dim=-1))
    w = torch.where(some, w, torch.zeros_like(w))
    lse = torch.where(some.squeeze(-1), torch.logsumexp(z, dim=-1), torch.full_like(z[..., 0], float("-inf")))
    return torch.einsum("...ts,...sd->...td", w, v), lse
'''}, "P5 exp of log_softmax, torch.where everywhere, einsum", "mask-and-sentinel (right)")

C("ok_p6_default_generator", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is None:
        generator = torch.default_generator        # the global generator, as torch.rand(generator=None) uses
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q.double() * k.double()).sum(dim=-1) * scale
    return dots.var().item()

predicted_variance_512 = 170.6666666667
'''}, "P6 None replaced by torch.default_generator; float32 draws, float64 sums", "mask-and-sentinel (right)")

C("ok_p4_hf_cumsum", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.int64)
    allowed = j.unsqueeze(0) >= (s - lengths.to(torch.int64)).unsqueeze(1)
    positions = allowed.long().cumsum(-1) - 1
    positions.masked_fill_(~allowed, 0)
    return allowed, positions
'''}, "P4 Hugging Face's cumsum positions, padding filled with 0 in place on its own tensor", "from-memory (right)")

# ================================================================ third batch (still blind)
W("eps_p2_temp_floor", {"softmax_backward": BASE["softmax_backward"].replace(
    "    dt = weights.dtype\n", "    dt = weights.dtype\n    temperature = max(temperature, 1e-6)      # no division by ~0\n", 1)},
  "P2 'the temperature may be of any size ... clamp nothing and floor nothing': a floor at 1e-6 changes every temperature below it", "epsilon-adder")

W("eps_p7_max_before_mask", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    '''        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_, 0.0)
        w = torch.softmax(scores, -1).masked_fill(~any_, 0.0)''',
    '''        scores = scores - scores.amax(-1, keepdim=True)           # stable: shift by the row max
        ex = torch.exp(scores).masked_fill(~allowed, 0.0)
        den = ex.sum(-1, keepdim=True)
        w = torch.where(any_, ex / torch.where(any_, den, torch.ones_like(den)), torch.zeros_like(ex))''')},
  "P7 'weight exactly 0 ... also when the scores are in the tens of thousands': the max is taken before masking, over padding keys far above the real ones, so the real exps underflow (0/0)", "epsilon-adder")

C("ok_p3_float_tril", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s).tril(diagonal=offset) == 1
'''}, "P3 a float (t, s) tril compared with 1 (t*s elements, exact)", "mask-and-sentinel (right)")

C("ok_p2_nan_to_num_harmless", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float32 if weights.dtype in (torch.float16, torch.bfloat16) else weights.dtype
    w, g = weights.to(work), grad_weights.to(work)
    s = torch.sum(w * g, dim=-1, keepdim=True)
    out = (w * g - w * s) / temperature
    out = torch.where(w == 0, 0.0, out)
    return out.to(weights.dtype)
'''}, "P2 w*g - w*s (distributed), masked keys forced to exactly 0", "epsilon-adder (right)")

# ================================================================ fourth batch (still blind)
W("eps_p1_dist_floor_tiny", {"raw_scores": BASE["raw_scores"].replace(
    "return s.clamp(max=0).to(dt)", "return s.clamp(max=-torch.finfo(s.dtype).tiny).to(dt)   # keep every distance > 0")},
  "P1 'every query has a key equal to it, whose score is 0' / 'make 0 only what lies below 0': distances floored at finfo.tiny", "epsilon-adder")

W("eps_p6_var_floor_tiny", {"variance_experiment": BASE["variance_experiment"].replace(
    "return dots.var().item()", "return max(dots.var().item(), torch.finfo(torch.float64).tiny)   # a variance is > 0")},
  "P6 'floor nothing' (scale 0, or any sample whose dots are all equal, has variance 0)", "epsilon-adder")
