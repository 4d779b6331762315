# red team round 20, chapters 01/02 helper: blind submissions
BASE = {}
BASE["raw_scores"] = '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float64, torch.float32) else torch.float32
    qw, kw = q.to(work), k.to(work)
    s = 2 * (qw @ kw.transpose(-2, -1)) - (qw * qw).sum(-1)[..., :, None] - (kw * kw).sum(-1)[..., None, :]
    return s.clamp(max=0).to(q.dtype)
'''
BASE["softmax_backward"] = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float64, torch.float32) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    dot = (w * g).sum(dim=-1, keepdim=True)
    return (w * (g - dot) / temperature).to(weights.dtype)
'''
BASE["causal_mask"] = '''
def causal_mask(t, s, offset):
    rows = torch.arange(t)[:, None] + offset
    cols = torch.arange(s)[None, :]
    return cols <= rows
'''
BASE["padding_mask"] = '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    start = s - L                                   # (B,)
    j = torch.arange(s, device=lengths.device)
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''
BASE["masked_attention"] = '''
def masked_attention(q, k, v, allowed):
    work = torch.float64 if q.dtype == torch.float64 else (torch.float64 if q.dtype == torch.float32 else torch.float32)
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    z = (qw / math.sqrt(q.shape[-1])) @ kw.transpose(-2, -1)
    z = torch.where(allowed, z, float("-inf"))
    m = z.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    tot = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(tot)).squeeze(-1)
    out = (e @ vw) / torch.where(tot > 0, tot, torch.ones_like(tot))
    return out.to(q.dtype), lse.to(q.dtype)
'''
BASE["variance_experiment"] = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=-1)).var().item()

predicted_variance_512 = 512 / 3
'''
BASE["fixed_self_attention"] = '''
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
            real = torch.arange(T, device=x.device)[None, :] < lengths.to(device=x.device, dtype=torch.long)[:, None]
            allowed = allowed & real[:, None, :]
        any_ok = allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_ok, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~any_ok, 0.0)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''
BASE["mc_answers"] = 'answer_masking = "d"\nanswer_doubling = "b"\n'

SUBMISSIONS = []
def W(name, kind, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "kind": kind, "cells": cells, "why": why})
def C(name, kind, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "kind": kind, "cells": cells, "why": why})
def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "kind": "hostile", "cells": cells, "why": why})

# ---------------- shape-coincidence ----------------
W("shape_p2_sum_over_dim0", "shape", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float64, torch.float32) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    dot = (w * g).sum(dim=0)          # sum over the row
    return (w * (g - dot) / temperature).to(weights.dtype)
'''}, "'(over the last dimension)', weights '(..., S)': dim=0 is the row only for 1-D input; for a batch of one row its broadcast still zeroes a one-hot row (the visible 2-D case).")

W("shape_p5_scale_from_axis1", "shape", {"masked_attention": BASE["masked_attention"].replace(
    "math.sqrt(q.shape[-1])", "math.sqrt(q.shape[1])")},
  "'z_ij = q_i . k_j / sqrt(d_k)': q.shape[1] is d_k only for 2-D (T, Dh) inputs (the visible case); for (B, T, Dh) it is T.")

W("shape_p5_lse_squeeze", "shape", {"masked_attention": BASE["masked_attention"].replace(
    "lse = (m + torch.log(tot)).squeeze(-1)", "lse = (m + torch.log(tot)).squeeze()")},
  "'lse has shape (..., T)': squeeze() without a dim also drops T = 1 and a batch of one.")

W("shape_p7_padding_mask_batch_axis", "shape", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "allowed = allowed & real[:, None, :]", "allowed = allowed & real[None, :, :].transpose(0, 1).reshape(1, -1, T) if B == 1 else allowed & real[None]")},
  "placeholder")
SUBMISSIONS.pop()

W("shape_p1_transpose_01", "shape", {"raw_scores": BASE["raw_scores"].replace(
    "s = 2 * (qw @ kw.transpose(-2, -1))", "s = 2 * (qw @ (kw.transpose(0, 1) if kw.dim() == 2 else kw.transpose(1, 2)))")},
  "placeholder")
SUBMISSIONS.pop()

W("shape_p7_keys_mask_square_broadcast", "shape", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        real = torch.ones(B, T, dtype=torch.bool, device=x.device)
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
        allowed = allowed & real[None, :, :].transpose(0, 1)   # (B, 1, T): keys
        allowed = allowed & real.unsqueeze(-1).any(-1, keepdim=True).transpose(-1, -2).transpose(-1, -2) if False else allowed
        any_ok = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_ok, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~any_ok, 0.0)
        out = w @ v
        return out * real[..., None].to(out.dtype)
'''}, "placeholder")
SUBMISSIONS.pop()

W("shape_p7_head_dim_from_value", "shape", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "/ math.sqrt(q.shape[-1])", "/ math.sqrt(self.value.out_features // (self.value.out_features // self.query.out_features))")},
  "'d_k is the width of the queries and keys': out_features of value // (value // query) equals head_dim only when head_dim divides embed_dim (8/4 and 2/1 in the visible cases).")

# ---------------- aliasing / in-place ----------------
W("alias_p2_subtract_into_grad", "alias", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float64, torch.float32) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)   # a copy for bfloat16/float16
    g -= (w * g).sum(dim=-1, keepdim=True)
    return (w * g / temperature).to(weights.dtype)
'''}, "'Leave weights and grad_weights as they are: do not write into them': .to() of float32/float64 returns the same tensor, so -= writes into the caller's grad_weights.")

W("alias_p3_lru_cache", "alias", {"causal_mask": '''
import functools
@functools.lru_cache(maxsize=64)
def causal_mask(t, s, offset):
    rows = torch.arange(t)[:, None] + offset
    return torch.arange(s)[None, :] <= rows
'''}, "'The mask you return belongs to the caller, who may change it in place ... must not share memory with anything kept from one call to the next': lru_cache returns the same tensor again.")

W("alias_p4_full_rows_expand", "alias", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    if B > 0 and bool((lengths == s).all()):   # no padding anywhere
        return (torch.ones(1, s, dtype=torch.bool).expand(B, s),
                torch.arange(s).expand(B, s))
''' + BASE["padding_mask"].split("def padding_mask(lengths, s):\n", 1)[1]},
  "'Both tensors you return belong to the caller, who may change them in place': expand returns views in which every row is the same memory.")

W("alias_p5_masked_fill_exp_output", "alias", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    z = (qw / math.sqrt(q.shape[-1])) @ kw.transpose(-2, -1)
    z = torch.where(allowed, z, float("-inf"))
    m = z.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    e.masked_fill_(~allowed, 0.0)          # make sure masked keys are exactly 0
    tot = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(tot)).squeeze(-1)
    out = (e @ vw) / torch.where(tot > 0, tot, torch.ones_like(tot))
    return out.to(q.dtype), lse.to(q.dtype)
'''}, "'Gradients must flow through output and lse ... the hidden tests compare their gradients': exp's backward needs its output, overwritten by masked_fill_, so backward raises.")

W("alias_p7_inplace_on_softmax", "alias", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "w = torch.softmax(scores, dim=-1).masked_fill(~any_ok, 0.0)", "w = torch.softmax(scores, dim=-1)\n        w.masked_fill_(~any_ok, 0.0)")},
  "'gradients must flow through the output ... the hidden tests compare its gradients': softmax's backward needs its output, which masked_fill_ bumps, so backward raises.")

# ---------------- early exit ----------------
W("early_p2_all_zero_returns_input", "early", {"softmax_backward": BASE["softmax_backward"].replace(
    "    work = ", "    if not bool(weights.any()):   # nothing attended: nothing passes back\n        return weights\n    work = ", 1)},
  "'Every tensor they return belongs to the caller ... return new tensors on every call': an all-zero weights tensor is returned as the very input object.")

W("early_p3_single_query", "early", {"causal_mask": '''
def causal_mask(t, s, offset):
    if t == 1:        # a single new token sees the whole cache
        return torch.ones(1, s, dtype=torch.bool)
    rows = torch.arange(t)[:, None] + offset
    return torch.arange(s)[None, :] <= rows
'''}, "'Keys after position offset + t - 1 are slots ... nothing has been written to yet, so no query of the block may see them': a single query at offset < s - 1 sees empty slots.")

W("early_p4_empty_batch_float", "early", {"padding_mask": '''
def padding_mask(lengths, s):
    if lengths.numel() == 0:
        return torch.zeros(0, s), torch.zeros(0, s)
''' + BASE["padding_mask"].split("def padding_mask(lengths, s):\n", 1)[1]},
  "'allowed is boolean ... positions has dtype torch.int64 ... an empty batch, B = 0, too: then both tensors are (0, s)': the shortcut returns float32.")

W("early_p5_all_masked_zeros_like_v", "early", {"masked_attention": BASE["masked_attention"].replace(
    "    work = ", "    if not bool(allowed.any()):\n        return torch.zeros_like(v), torch.full(q.shape[:-1], float('-inf'), dtype=q.dtype)\n    work = ", 1)},
  "'output has shape (..., T, Dv)': zeros_like(v) is (..., S, Dv), and the lse shape ignores the broadcast batch.")

W("early_p6_width_one_global_rng", "early", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if d_k == 1:   # scalars: no need for matrices
        q = torch.rand(n, dtype=torch.float64)
        k = torch.randn(n, dtype=torch.float64)
        return (scale * q * k).var().item()
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "'Draw every random number from generator': the d_k = 1 fast path draws from the global generator.")

W("early_p7_single_token", "early", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "        B, T, _ = x.shape\n", "        B, T, _ = x.shape\n        if T == 1:   # one token attends to itself with weight 1\n            return self.value(x)\n", 1)},
  "'the output row of every query at a padding position is all zeros': with T = 1 and lengths = [0] the token is padding.")

# ---------------- library defaults ----------------
W("lib_p4_start_in_lengths_dtype", "library", {"padding_mask": '''
def padding_mask(lengths, s):
    start = (s - lengths).to(torch.int64)           # first real slot
    j = torch.arange(s)
    allowed = j[None, :] >= start[:, None]
    positions = (j[None, :] - start[:, None]).clamp(min=0)
    return allowed, positions
'''}, "'lengths ... of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)': s - lengths is computed in lengths' dtype and wraps.")

W("lib_p3_linspace_positions", "library", {"causal_mask": '''
def causal_mask(t, s, offset):
    rows = torch.linspace(offset, offset + t - 1, t)[:, None]     # absolute positions of the queries
    cols = torch.linspace(0, s - 1, s)[None, :]
    return cols <= rows
'''}, "'with positions that stay exact integers': linspace is float32 by default, exact only up to 2^24.")

W("lib_p5_softmax_dtype_float32", "library", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z.float(), dim=-1).to(q.dtype)
    w = torch.softmax(z, dim=-1, dtype=torch.float32).nan_to_num(0.0).to(q.dtype)
    return w @ v, lse
'''}, "'float64 ... compare': softmax(dtype=torch.float32) and logsumexp in float32 lose float64 precision.")

W("lib_p6_float32_draws", "library", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return (scale * (q * k).sum(dim=-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "'scale ... 1e-25 and 1e25, where squares of float32 numbers underflow to 0 or overflow to inf: whatever dtype you draw in, the variance must come out right': torch.rand's default float32.")

W("lib_p7_seed_float_softmax_kept", "library", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "w = torch.softmax(scores, dim=-1).masked_fill(~any_ok, 0.0)", "w = torch.softmax(scores.float(), dim=-1).type_as(scores).masked_fill(~any_ok, 0.0)")},
  "'as accurate as that dtype allows (... float64 inputs, compare to about 1e-9)': the seed's softmax in float32 kept.")

W("lib_p7_arange_in_lengths_dtype", "library", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "real = torch.arange(T, device=x.device)[None, :] < lengths.to(device=x.device, dtype=torch.long)[:, None]",
    "real = torch.arange(T, device=x.device, dtype=lengths.dtype)[None, :] < lengths[:, None]")},
  "'lengths ... of any integer dtype (uint8 and int8 too, whose range can be smaller than T)': arange in uint8 wraps past 255.")

# ---------------- correct ----------------
C("ok_p1_einsum_minimum", "library", {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qq, kk = q.to(work), k.to(work)
    cross = torch.einsum("...td,...sd->...ts", qq, kk)
    sq = torch.einsum("...td,...td->...t", qq, qq)
    sk = torch.einsum("...sd,...sd->...s", kk, kk)
    s = torch.minimum(2 * cross - sq[..., :, None] - sk[..., None, :], torch.zeros((), dtype=work))
    return s.to(dtype=q.dtype)
'''}, "einsum, torch.minimum with a 0-d zero.")

C("ok_p2_temperature_first", "shape", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w = weights.to(dtype=work)
    g = grad_weights.to(dtype=work)
    dot = torch.einsum("...s,...s->...", w, g)[..., None]
    return (w * (g - dot)).div(temperature).to(dtype=weights.dtype)
'''}, "einsum row dot; every argument by keyword.")

C("ok_p3_tril_offset", "library", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with diagonal=offset: kept where j - i <= offset.")

C("ok_p4_cumsum_positions", "library", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    allowed = torch.arange(s, device=lengths.device) >= (s - L)[:, None]
    positions = allowed.cumsum(dim=-1) - 1          # bool cumsum is int64
    positions = positions.clamp(min=0)
    return allowed, positions
'''}, "cumsum of the bool mask (int64 by promotion), clamped at the padding.")

C("ok_p5_logsumexp_softmax", "library", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    z = torch.matmul(q.to(work) / math.sqrt(q.shape[-1]), k.to(work).transpose(-2, -1))
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.softmax(z, dim=-1)
    w = torch.where(torch.isfinite(lse)[..., None], w, torch.zeros_like(w))
    return torch.matmul(w, v.to(work)).to(q.dtype), lse.to(q.dtype)
'''}, "logsumexp and softmax on -inf-filled scores; all-masked rows replaced by zeros with where.")

C("ok_p6_cov_uniform_normal", "library", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(generator=generator)
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    vals = scale * torch.einsum("nd,nd->n", q, k)
    return float(torch.cov(vals))

predicted_variance_512 = 512 * (1 / 3)
'''}, "k first then q (order is free), normal_/uniform_, torch.cov (correction=1).")

C("ok_p6_float32_draw_float64_math", "library", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator).double()
    k = torch.randn(n, d_k, generator=generator).double()
    vals = (q * k).sum(-1) * scale
    return vals.var(correction=1).item()

predicted_variance_512 = 170.66666666666666
'''}, "draws float32, computes in float64 (the dtype of the draw is free).")

C("ok_p7_calls_parts_3_and_4", "early", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
        allowed = causal_mask(T, T, 0).to(x.device) if causal else torch.ones(T, T, dtype=torch.bool, device=x.device)
        allowed = allowed.expand(B, T, T)
        real = None
        if lengths is not None:
            left, _ = padding_mask(lengths, T)      # left-padded mask of Part 4, flipped: right padding
            real = left.flip(-1).to(x.device)
            allowed = allowed & real[:, None, :]
        rows = allowed.any(-1, keepdim=True)
        scores = torch.where(allowed, scores, float("-inf"))
        scores = torch.where(rows, scores, torch.zeros_like(scores))
        w = torch.where(rows, torch.softmax(scores, dim=-1), torch.zeros_like(scores))
        out = torch.matmul(w, v)
        if real is not None:
            out = torch.where(real[..., None], out, torch.zeros_like(out))
        return out
'''}, "causal_mask(T, T, 0) of Part 3 and Part 4's left-padding mask flipped into right padding; torch.where masking.")

C("ok_p1_self_attention_fast_path", "early", {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qw = q.to(work)
    kw = qw if k is q else k.to(work)
    nq = (qw * qw).sum(-1)
    nk = nq if k is q else (kw * kw).sum(-1)
    s = (2 * (qw @ kw.mT) - nq.unsqueeze(-1) - nk.unsqueeze(-2)).clamp(max=0.0)
    return s.to(q.dtype)
'''}, "reuses the norms when k is q (same values).")

C("ok_p8", "library", {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "b"\n'}, "d, b")

# ---------------- hostile ----------------
H("hostile_p8_str_subclass", {"mc_answers": '''
class Letter(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __hash__(self): return 0
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "str subclass equal to everything")
H("hostile_p6_float_subclass", {"variance_experiment": '''
class Anything(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __gt__(self, other): return True
    def __ge__(self, other): return True
    def __sub__(self, other): return Anything(0.0)
    def __rsub__(self, other): return Anything(0.0)
    def __abs__(self): return Anything(0.0)
    __hash__ = float.__hash__
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    return Anything(1.0)
predicted_variance_512 = Anything(1.0)
'''}, "float subclass that compares equal/close to everything, no drawing")
H("hostile_p2_patch_assert_close", {"softmax_backward": '''
torch.testing.assert_close = lambda *a, **k: None
def softmax_backward(weights, grad_weights, temperature=1.0):
    return torch.zeros_like(weights)
'''}, "patches torch.testing.assert_close and returns zeros")

# ---------------- second wave ----------------
W("early_p2_zero_grad_returns_input", "early", {"softmax_backward": BASE["softmax_backward"].replace(
    "    work = ", "    if not bool(grad_weights.any()):   # no gradient in, none out\n        return grad_weights\n    work = ", 1)},
  "'return new tensors on every call': an all-zero grad_weights is handed back as the very object (and in its own dtype, which is the weights' one only by luck).")

W("early_p2_onehot_rows_alias_weights", "early", {"softmax_backward": BASE["softmax_backward"].replace(
    "    work = ", "    if bool(((weights == 0) | (weights == 1)).all()):   # one-hot rows pass nothing back\n        return weights * 0\n    work = ", 1)},
  "placeholder")
SUBMISSIONS.pop()

W("early_p4_equal_lengths_unclamped", "early", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    j = torch.arange(s)
    if L.numel() > 0 and bool((L == L[0]).all()):      # every row alike: one row, repeated
        start = s - int(L[0])
        return (j >= start).repeat(len(L), 1), (j - start).repeat(len(L), 1)
    start = s - L
    allowed = j[None, :] >= start[:, None]
    return allowed, torch.where(allowed, j[None, :] - start[:, None], 0)
'''}, "'positions ... 0 at the padding': the equal-lengths shortcut leaves negative positions at the padding.")

W("early_p5_single_query_softmax", "early", {"masked_attention": BASE["masked_attention"].replace(
    "    work = ", "    if q.shape[-2] == 1:   # one query: a plain softmax row\n"
    "        z = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float('-inf'))\n"
    "        return torch.softmax(z, dim=-1) @ v, torch.logsumexp(z, dim=-1)\n    work = ", 1)},
  "'a query with no allowed key gets lse = -inf exactly and an all-zero output row (no NaN)': the T = 1 shortcut returns NaN for such a query.")

W("early_p6_scale_zero_no_draw", "early", {"variance_experiment": BASE["variance_experiment"].replace(
    "    q = torch.rand(", "    if scale == 0:\n        return 0.0\n    q = torch.rand(", 1)},
  "'draw n independent pairs ... The value must be the sample variance of numbers you drew, not a formula' / 'at least n * d_k numbers must come from each': scale 0 skips the draws and leaves the generator where it was.")

W("lib_p5_softmax_implicit_dim", "library", {"masked_attention": '''
import torch.nn.functional as F
def masked_attention(q, k, v, allowed):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    z = (q.to(work) / math.sqrt(q.shape[-1])) @ k.to(work).transpose(-2, -1)
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = F.softmax(z).nan_to_num(0.0)
    return (w @ v.to(work)).to(q.dtype), lse.to(q.dtype)
'''}, "'the log-sum-exp of that query's scores over the keys': F.softmax without dim picks dim 1 for 2-D scores (right, the visible case) and dim 0 for 3-D ones.")

W("alias_p2_nan_to_num_out", "alias", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float64, torch.float32) else torch.float32
    w = weights.to(work)
    torch.nan_to_num(w, nan=0.0, out=w)      # masked rows may hold NaN
    g = grad_weights.to(work)
    dot = (w * g).sum(dim=-1, keepdim=True)
    return (w * (g - dot) / temperature).to(weights.dtype)
'''}, "'do not write into them, not even the values they already hold': out=w writes into the caller's weights for float32/float64 (.to is a no-op there).")

W("lib_p7_sdpa_bool_mask", "library", {"fixed_self_attention": '''
import torch.nn.functional as F
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()
        real = torch.ones(B, T, dtype=torch.bool, device=x.device)
        if lengths is not None:
            real = torch.arange(T, device=x.device) < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)   # True = take part
        return out.nan_to_num(0.0).masked_fill(~real[..., None], 0.0)
'''}, "'no gradient may be NaN: a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced by zeros afterwards': SDPA's boolean mask leaves the all-masked rows of a lengths = 0 sequence to the softmax.")

C("ok_p7_sdpa_fast_path", "library", {"fixed_self_attention": BASE["fixed_self_attention"].replace(
    "        q, k, v = self.query(x), self.key(x), self.value(x)\n",
    "        q, k, v = self.query(x), self.key(x), self.value(x)\n        if lengths is None and not causal:   # nothing to mask\n            return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n", 1)},
  "SDPA's default scale is 1/sqrt(q.size(-1)) = 1/sqrt(head_dim); values may be wider.")

C("ok_p6_default_generator", "early", {"variance_experiment": BASE["variance_experiment"].replace(
    "    q = torch.rand(", "    if generator is None:\n        generator = torch.default_generator   # the global one\n    q = torch.rand(", 1)},
  "torch.default_generator is the global generator, so None behaves as the text asks.")

C("ok_p2_onehot_fast_path", "early", {"softmax_backward": BASE["softmax_backward"].replace(
    "    work = ", "    if bool(((weights == 0) | (weights == 1)).all()):   # one-hot or empty rows pass nothing back\n        return torch.zeros_like(weights)\n    work = ", 1)},
  "one-hot/empty rows: the result is exactly zero; a new tensor.")
