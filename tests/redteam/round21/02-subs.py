# Red team round 21, chapter 02 (blind). Kinds: order = order-of-operations, vec = vectorising,
# sig = signature-and-defaults, var = variant-confuser.
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
H = W

# ---------------- Part 1: raw_scores ----------------
W("p1_order_cast_after_reduction", {"raw_scores": '''
def raw_scores(q, k):
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    # norms and dot products in the input dtype, the subtraction in float64
    qn = (q * q).sum(-1).to(wd)
    kn = (k * k).sum(-1).to(wd)
    qk = (q @ k.transpose(-2, -1)).to(wd)
    return (2 * qk - qn[..., :, None] - kn[..., None, :]).clamp(max=0).to(q.dtype)
'''}, "order: the cast to a wider dtype moved after the reductions (squares taken in float16/float32 overflow to inf, "
      "inf - inf = NaN); breaks 'squares taken in float16 become inf ... so work float32 in float64'.")
W("p1_vec_broadcast_difference", {"raw_scores": '''
def raw_scores(q, k):
    d = q[..., :, None, :] - k[..., None, :, :]          # (..., T, S, Dh): exact and never positive
    return -(d * d).sum(-1)
'''}, "vec: the double loop turned into one broadcast (..., T, S, Dh) tensor; breaks 'no tensor your function creates "
      "... may hold more than twice as many elements as the largest of the result, q and k'.")
W("p1_sig_query_key_names", {"raw_scores": '''
def raw_scores(query, key):
    wd = torch.float64 if query.dtype in (torch.float32, torch.float64) else torch.float32
    a, b = query.to(wd), key.to(wd)
    s = 2 * (a @ b.transpose(-2, -1)) - (a * a).sum(-1)[..., :, None] - (b * b).sum(-1)[..., None, :]
    return s.clamp(max=0).to(query.dtype)
'''}, "sig: arguments renamed q, k -> query, key; breaks 'Keep the signatures of the stubs, argument names included'.")
W("p1_order_clamp_before_cast_float16", {"raw_scores": '''
def raw_scores(q, k):
    # half-precision inputs are worked in their own dtype (they are only for speed)
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else q.dtype
    a, b = q.to(wd), k.to(wd)
    s = 2 * (a @ b.transpose(-2, -1)) - (a * a).sum(-1)[..., :, None] - (b * b).sum(-1)[..., None, :]
    return s.clamp(max=0).to(q.dtype)
'''}, "order: float16 squares taken before any widening; entries near 80 overflow in float16; breaks 'float16 overflows "
      "past 65504 ... squares taken in float16 become inf, and inf - inf is NaN'.")

# ---------------- Part 2: softmax_backward ----------------
W("p2_vec_sum_whole_tensor", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(wd), grad_weights.to(wd)
    return (w * (g - (w * g).sum()) / temperature).to(weights.dtype)
'''}, "vec: the per-row dot product summed over the whole batch; breaks 'w = softmax(z / tau) (over the last dimension)' "
      "(each row's backward uses that row's sum_j w_j g_j).")
W("p2_order_cast_float32_first", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.float(), grad_weights.float()
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / temperature).to(weights.dtype)
'''}, "order: the float32 cast taken for every dtype (as the lesson's softmax in float32); breaks 'float64 inputs are "
      "compared to about 1e-12 (so work them in float64)'.")
W("p2_sig_tau_renamed", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, tau=1.0):
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(wd), grad_weights.to(wd)
    return (w * (g - (w * g).sum(-1, keepdim=True)) / tau).to(weights.dtype)
'''}, "sig: temperature renamed tau; breaks 'the hidden tests pass the optional arguments (temperature, ...) by position "
      "and by name'.")
W("p2_order_g_over_tau_first", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    g = grad_weights / temperature                      # d/dz of z / tau first, in the input dtype
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(wd), g.to(wd)
    return (w * (g - (w * g).sum(-1, keepdim=True))).to(weights.dtype)
'''}, "order: the division by the temperature moved before the widening cast: a float16 g / 1e-6 overflows to inf and "
      "a masked key (weight 0) gets 0 * inf = NaN; breaks 'a key with weight exactly 0 must get a gradient of exactly 0' "
      "and 'float16 ones may be worked in float32 and rounded back (... a float16 row worked in its own dtype does not "
      "overflow)' with 'the tests use a temperature of 1e-6'.")
C("c_p2_g_over_tau_in_float32", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w = weights.to(wd)
    g = grad_weights.to(wd) / temperature
    return (w * (g - (w * g).sum(-1, keepdim=True))).to(weights.dtype)
'''}, "the temperature divided first, after widening: equal to dividing last.")

# ---------------- Part 3: causal_mask ----------------
W("p3_vec_square_then_slice", {"causal_mask": '''
def causal_mask(t, s, offset):
    full = torch.ones(s, s, dtype=torch.bool).tril()          # the lesson's mask of the whole cache
    return full[offset:offset + t].clone()
'''}, "vec: (s, s) square built and sliced; breaks 'built in memory proportional to the mask itself (t * s elements) "
      "... an (s, s) square does not fit in memory'.")
W("p3_sig_offset_default_and_float_positions", {"causal_mask": '''
def causal_mask(t, s, offset=0):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
'''}, "vec: positions as float32 aranges (the default float dtype), inexact past 2^24 slots; breaks 'with positions that "
      "stay exact integers' (caches of tens of millions of slots).")
C("c_p3_var_bottom_right_when_full", {"causal_mask": '''
def causal_mask(t, s, offset):
    # FlashAttention's causal convention aligns the block to the bottom right of the filled part of the cache
    filled = offset + t
    m = torch.ones(t, filled, dtype=torch.bool).tril(diagonal=filled - t)
    return torch.cat([m, torch.zeros(t, s - filled, dtype=torch.bool)], dim=1)
'''}, "a bottom-right aligned tril on the filled part, then the empty slots: equal to j <= offset + i.")

# ---------------- Part 4: padding_mask ----------------
W("p4_vec_start_in_lengths_dtype", {"padding_mask": '''
def padding_mask(lengths, s):
    start = (s - lengths)[:, None]                     # first real slot of each row
    j = torch.arange(s)[None, :]
    allowed = j >= start
    positions = torch.where(allowed, j - start, 0).long()
    return allowed, positions
'''}, "vec: s - lengths computed in lengths' dtype (uint8 / int8 / int16 wrap when s exceeds their range); breaks "
      "'lengths is a 1-D tensor of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)'.")
W("p4_sig_list_return", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    j = torch.arange(s)
    start = (s - L)[:, None]
    allowed = j >= start
    return [allowed, (j - start).clamp(min=0)]
'''}, "sig: a list where the pair is asked; breaks 'a part that returns a pair (a, b) returns a tuple, not a list'.")
W("p4_sig_positions_in_lengths_dtype", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.int64)
    start = s - lengths.long()
    allowed = j[None, :] >= start[:, None]
    positions = (allowed.to(lengths.dtype).cumsum(-1, dtype=lengths.dtype) - 1).clamp(min=0)
    return allowed, positions
'''}, "sig: positions returned in the dtype of lengths (and counted in it, wrapping past its range); breaks 'positions "
      "has dtype torch.int64 (whatever the integer dtype of lengths)'.")
C("c_p4_shared_ramp", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    j = torch.arange(s)
    start = (s - L)[:, None]
    allowed = j[None, :] >= start
    # positions count from the first real token: shift a shared ramp by the longest row
    longest = int(L.max()) if L.numel() else 0
    positions = (j[None, :] - (s - longest)) - (longest - L)[:, None]
    positions = torch.where(allowed, positions, torch.zeros_like(positions))
    return allowed, positions
'''}, "a shared ramp shifted per row: equal to j - (s - L).")

# ---------------- Part 5: masked_attention ----------------
W("p5_order_mask_after_softmax", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    w = torch.softmax(z, dim=-1) * allowed                 # softmax, then drop the masked keys and renormalise
    tot = w.sum(-1, keepdim=True)
    has = tot > 0
    w = w / torch.where(has, tot, torch.ones_like(tot))
    m = z.amax(-1, keepdim=True)
    lse = torch.where(has, m + torch.log(torch.exp(z - m).sum(-1, keepdim=True) * tot), torch.full_like(tot, float("-inf")))
    return w @ v, lse.squeeze(-1)
'''}, "order: mask after the softmax with renormalisation; masked scores far above the allowed ones make the allowed "
      "weights underflow; breaks 'a masked key counts for nothing however its score compares with the allowed ones'.")
W("p5_order_max_before_mask", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    m = z.amax(-1, keepdim=True)                           # shift by the row maximum
    e = torch.exp(z - m).masked_fill(~allowed, 0.0)
    tot = e.sum(-1, keepdim=True)
    lse = (torch.log(tot) + m).squeeze(-1)
    out = (e @ v) / torch.where(tot > 0, tot, torch.ones_like(tot))
    return out, lse
'''}, "order: the row maximum taken over the not-yet-masked scores; a masked key far above the allowed ones makes every "
      "allowed exp underflow (lse = -inf, output 0); breaks 'a masked key counts for nothing however its score compares'.")
W("p5_vec_where_exp_inf", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    zm = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    m = zm.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.where(allowed, torch.exp(z - m), torch.zeros_like(z))     # exp of masked scores is never used
    tot = e.sum(-1, keepdim=True)
    lse = (torch.log(tot) + m).squeeze(-1)
    out = (e @ v) / torch.where(tot > 0, tot, torch.ones_like(tot))
    return out, lse
'''}, "vec: torch.where whose untaken branch is exp(masked score - max) = inf: value right, gradient NaN; breaks "
      "'... a masked key counts for nothing ... in the results and in their gradients'.")
W("p5_vec_global_max", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = allowed.expand_as(z)
    m = z[allowed].max() if allowed.any() else z.new_zeros(())      # one shift for the whole batch
    e = torch.exp(z - m).masked_fill(~allowed, 0.0)
    tot = e.sum(-1, keepdim=True)
    lse = (torch.log(tot) + m).squeeze(-1)
    out = (e @ v) / torch.where(tot > 0, tot, torch.ones_like(tot))
    return out, lse
'''}, "vec: a max over the whole batch where each row needs its own; rows far below the batch's largest allowed score "
      "underflow; breaks 'lse and output must be finite wherever a query has an allowed key'.")
W("p5_sig_list_return", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.exp(z - lse[..., None].masked_fill(torch.isinf(lse[..., None]), 0.0))
    return [w @ v, lse]
'''}, "sig: a list where the pair is asked; breaks 'a part that returns a pair (a, b) returns a tuple, not a list'.")
C("c_p5_scale_q_first", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    wd = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    vv = v.to(wd)
    scale = q.shape[-1] ** -0.5
    z = (q.to(wd) * scale) @ k.to(wd).transpose(-2, -1)                  # scale the queries first (as nn.MultiheadAttention does)
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    tot = e.sum(-1, keepdim=True)
    lse = (torch.log(tot) + m).squeeze(-1)
    out = (e @ vv) / torch.where(tot > 0, tot, torch.ones_like(tot))
    return out.to(q.dtype), lse.to(q.dtype)
'''}, "the scale applied to q before the product (as nn.MultiheadAttention does), float32 inside for bfloat16.")

# ---------------- Part 6: dot_product_variance ----------------
W("p6_order_scale_after_var", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (q * k).sum(-1).var().item() * scale           # scale the statistic at the end

predicted_variance_512 = 512 / 3
'''}, "order: scale applied after the variance (var(s X) = s^2 var X); breaks 'compute the n numbers scale * (q . k), "
      "and return their sample variance'.")
W("p6_order_float32_scale_first", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator) * scale
    k = torch.randn(n, d_k, generator=generator)
    return (q * k).sum(-1).var().item()

predicted_variance_512 = 512 / 3
'''}, "order: scale applied to q in float32 before the dot product; with scale 1e25 the variance overflows float32 (and "
      "1e-25 underflows); breaks 'whatever dtype you draw in, the variance must come out right'.")
W("p6_var_biased", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var(unbiased=False).item()   # population variance, as np.var

predicted_variance_512 = 512 / 3
'''}, "var: biased variance (divides by n); breaks 'their sample variance (Tensor.var(), which divides by n - 1)'.")
W("p6_sig_args_swapped", {"variance_experiment": '''
def dot_product_variance(d_k, n, generator=None, scale=1.0):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "sig: scale and generator in another order; breaks the stub's signature "
      "'dot_product_variance(d_k, n, scale=1.0, generator=None)' (the tests pass optional arguments by position).")
W("p6_var_uniform_variance_only", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 * (1 / 12) * 1.0       # d_k * Var(q_i) * Var(k_i)
'''}, "var: Var(q)Var(k) (the zero-mean formula) instead of E[q^2]E[k^2]; breaks 'Careful: the entries of q do not "
      "have mean 0' (512/3).")
W("p6_var_scale_divides", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return ((q * k).sum(-1) / scale).var().item()       # scaled dot product: divide by the scale

predicted_variance_512 = 512 / 3
'''}, "var: scale used as a divisor (the sqrt(d_k) of scaled attention); breaks 'compute the n numbers scale * (q . k)'.")

# ---------------- Part 7: FixedSelfAttention ----------------
C("c_p7_nan_to_num_after_masked_fill", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.nan_to_num(weights, nan=0.0)         # rows with no key at all
        out = torch.matmul(weights, v)
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "masked_fill(-inf) of every key of an empty row, softmax, nan_to_num: the text says masked_fill gives the positions it "
      "fills a zero gradient, so the NaN stops there; padding queries zeroed at the end.")
W("p7_order_additive_bias_then_nan_to_num", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        bias = torch.zeros(B, T, T, dtype=scores.dtype).masked_fill(~allowed, float("-inf"))   # additive mask
        weights = torch.softmax(scores + bias, dim=-1)
        weights = torch.nan_to_num(weights, nan=0.0)       # rows with no key (lengths[b] = 0)
        out = torch.matmul(weights, v)
        return out * real[:, :, None].to(out.dtype)
'''}, "order: the empty rows' NaN replaced after the softmax while the mask is an added -inf bias, which passes the NaN "
      "gradient on to x; breaks 'an added -inf bias passes the NaN on ... no gradient may be NaN' (lengths[b] = 0).")
W("p7_order_float32_softmax_kept", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        scores = scores.masked_fill(~allowed.any(-1, keepdim=True), 0.0)
        weights = torch.softmax(scores.float(), dim=-1).type_as(scores)    # softmax in float32 for stability
        weights = weights.masked_fill(~allowed, 0.0)
        out = torch.matmul(weights, v)
        return out.masked_fill(~real[:, :, None], 0.0)
'''}, "order: the float32 cast around the softmax kept from the seed; breaks 'in the dtype of x and as accurate as that "
      "dtype allows (... float64 inputs, and compare to about 1e-9)'.")
W("p7_sig_mask_argument", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, key_lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if key_lengths is not None:
            real = torch.arange(T)[None, :] < key_lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        scores = scores.masked_fill(~allowed.any(-1, keepdim=True), 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = torch.matmul(weights, v)
        return out.masked_fill(~real[:, :, None], 0.0)
'''}, "sig: lengths renamed key_lengths; breaks 'the hidden tests pass the optional arguments (..., lengths, causal) by "
      "position and by name'.")
W("p7_vec_arange_lengths_dtype", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T, dtype=lengths.dtype)[None, :] < lengths[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        scores = scores.masked_fill(~allowed.any(-1, keepdim=True), 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = torch.matmul(weights, v)
        return out.masked_fill(~real[:, :, None], 0.0)
'''}, "vec: the slot numbers made in lengths' dtype (an int8/uint8 arange wraps past its range); breaks 'lengths ... of "
      "any integer dtype (uint8 and int8 too, whose range can be smaller than T)'.")

# ---------------- Part 8 ----------------
W("p8_var_float32_reasoning", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
  "var: float32 reasoning (-1e9 + s rounds to one value) where the text says float64: (d).")
W("p8_var_variance_once", {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"\n'},
  "var: the product's variance taken as 4 (not 4 * 4) per term: std sqrt(128 * 4) / 8 = 2.83; the answer is (b).")

# ---------------- correct ----------------
C("c_p1_chunked_exact_difference", {"raw_scores": '''
def raw_scores(q, k):
    T, S, D = q.shape[-2], k.shape[-2], q.shape[-1]
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qq, kk = q.to(wd), k.to(wd)
    step = max(1, T // max(D, 1) // 2)       # a chunk (..., step, S, D) holds at most half the result's elements
    parts = []
    for i in range(0, T, step):
        d = qq[..., i:i + step, None, :] - kk[..., None, :, :]
        parts.append(-(d * d).sum(-1))
    return torch.cat(parts, dim=-2).to(q.dtype)
'''}, "the direct difference in chunks small enough for the memory rule; exact, never positive, 0 on the diagonal.")
C("c_p1_einsum_keywords", {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else torch.float64
    a = q.to(dtype=work)
    b = k.to(dtype=work)
    cross = torch.einsum("...td,...sd->...ts", a, b)
    s = 2.0 * cross - a.pow(2).sum(dim=-1, keepdim=True) - b.pow(2).sum(dim=-1).unsqueeze(-2)
    return torch.clamp(s, max=0.0).to(dtype=q.dtype)
'''}, "einsum, keyword arguments, clamp at 0 (the sign rule).")
C("c_p2_distributed", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w = weights.to(wd)
    wg = w * grad_weights.to(wd)
    return ((wg - w * wg.sum(dim=-1, keepdim=True)) / temperature).to(weights.dtype)
'''}, "the product distributed (w g - w sum(w g)); a zero weight still gives exactly 0.")
C("c_p3_tril_offset", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with the offset as diagonal.")
C("c_p4_cumsum_positions", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    L = lengths.to(torch.int64)
    allowed = torch.arange(s).expand(B, s) >= (s - L).unsqueeze(1)
    positions = (allowed.cumsum(dim=-1) - 1).clamp(min=0)
    return allowed.clone(), positions
'''}, "cumsum of the boolean mask (int64), clamp at 0 for the padding.")
C("c_p4_python_loop", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b, n in enumerate(lengths.tolist()):
        if n:
            allowed[b, s - n:] = True
            positions[b, s - n:] = torch.arange(n)
    return allowed, positions
'''}, "a Python loop over the batch (the text allows it), a few operations per row.")
C("c_p5_logsumexp", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    wd = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    z = torch.einsum("...td,...sd->...ts", q.to(wd), k.to(wd)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    has = torch.isfinite(lse)[..., None]
    w = torch.exp(z - torch.where(has, lse[..., None], torch.zeros_like(lse[..., None])))
    w = torch.where(has, w, torch.zeros_like(w))
    return (w @ v.to(wd)).to(q.dtype), lse.to(q.dtype)
'''}, "logsumexp, weights as exp(z - lse), float32 inside for bfloat16.")
C("c_p6_scale_squared_k_first", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k)
    return float(dots.var() * scale * scale)

predicted_variance_512 = 512 * (1 / 3)   # E[q^2] E[k^2] - (E[q] E[k])^2 = 1/3 per term
'''}, "k drawn first (the text leaves the order free), uniform_, variance then times scale^2 in float64.")
C("c_p7_calls_part5", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        # a padding query may look at everything (its row is zeroed below), so no row is empty
        out, _ = masked_attention(q, k, v, allowed | ~real[:, :, None])
        return torch.where(real[:, :, None], out, torch.zeros_like(out))
'''}, "calls Part 5 (an earlier part) with a mask in which no row is empty, then zeroes the padding queries.")
C("c_p8", {"mc_answers": 'answer_doubling = "b"\nanswer_masking = "d"\n'}, "right letters, other order.")

# ---------------- hostile ----------------
H("h_p8_str_subclass", {"mc_answers": '''
class Letter(str):
    def __eq__(self, other): return True
    def __hash__(self): return 0
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "hostile: str subclass equal to any letter.")
H("h_p6_formula_plus_one_draw", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    u = torch.rand(1, generator=generator, dtype=torch.float64).item()
    return float(scale * scale * d_k / 3 * (1 + 1e-3 * (u - 0.5)))

predicted_variance_512 = 512 / 3
'''}, "hostile: the true variance with a little noise from one draw; no experiment.")
