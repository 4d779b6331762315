SUBMISSIONS = []
def W(name, kind, cells, why): SUBMISSIONS.append({"name": f"{kind}:{name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why): SUBMISSIONS.append({"name": f"{kind}:{name}", "correct": True, "cells": cells, "why": why})
def H(name, cells, why): SUBMISSIONS.append({"name": f"hostile:{name}", "correct": False, "cells": cells, "why": why})

# ---------------- Part 1: raw_scores ----------------
W("p1_half_squares_in_own_dtype", "trusting", {"raw_scores": '''
def raw_scores(q, k):
    qk = q @ k.mT
    s = 2 * qk - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return s.clamp(max=0)
'''}, "squares in float16 overflow to inf, inf - inf = NaN; breaks 'squares taken in float16 become inf, and inf - inf is NaN'")
W("p1_broadcast_difference", "porter", {"raw_scores": '''
def raw_scores(q, k):
    diff = q[..., :, None, :] - k[..., None, :, :]      # NumPy broadcasting habit
    return -(diff * diff).sum(-1)
'''}, "(..., T, S, Dh) intermediate; breaks 'no tensor your function creates ... may hold more than twice as many elements'")
W("p1_float32_always", "porter", {"raw_scores": '''
def raw_scores(q, k):
    qf, kf = q.float(), k.float()                 # TF's float32 everywhere
    s = 2 * qf @ kf.transpose(-1, -2) - qf.pow(2).sum(-1, keepdim=True) - kf.pow(2).sum(-1).unsqueeze(-2)
    return s.clamp(max=0).to(q.dtype)
'''}, "float64 computed in float32; breaks 'computing a float64 input in float32 is off by more'")

# ---------------- Part 2: softmax_backward ----------------
W("p2_dim0_sum", "index-juggler", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    inner = (weights * grad_weights).sum(dim=0, keepdim=True)
    return weights * (grad_weights - inner) / temperature
'''}, "sums over dim 0 (the last dim only for 1-D rows); breaks 'w = softmax(z / tau) (over the last dimension)'")
W("p2_jacobian_matrix", "copy-adapter", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    # the lesson's Jacobian p_i (delta_ij - p_j), applied to g
    J = torch.diag_embed(weights) - weights[..., :, None] * weights[..., None, :]
    return (J @ grad_weights[..., :, None]).squeeze(-1) / temperature
'''}, "builds the (..., S, S) Jacobian; breaks 'so an (..., S, S) Jacobian is out'")
W("p2_float32_work", "porter", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.float(), grad_weights.float()
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
'''}, "float64 worked in float32; breaks 'float64 inputs are compared to about 1e-12 (so work them in float64)'")
W("p2_autograd_softmax", "trusting", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.enable_grad():
        z = (torch.log(weights.detach()) * temperature).requires_grad_(True)
        w = torch.softmax(z / temperature, dim=-1)
        (g,) = torch.autograd.grad(w, z, grad_weights)
    return g
'''}, "lets autograd run torch's softmax backward; breaks 'torch's own softmax backward (torch._softmax_backward_data, which autograd runs for torch.softmax) is refused' and 'never the scores'")

# ---------------- Part 3: causal_mask ----------------
W("p3_float_arange", "trusting", {"causal_mask": '''
def causal_mask(t, s, offset):
    j = torch.arange(0.0, s, 1.0)                    # float step
    i = torch.arange(0.0, t, 1.0) + offset
    return j[None, :] <= i[:, None]
'''}, "float32 positions past 2^24 are not exact; breaks 'with positions that stay exact integers'")
W("p3_square_then_slice", "copy-adapter", {"causal_mask": '''
def causal_mask(t, s, offset):
    full = torch.ones(s, s, dtype=torch.bool).tril()    # the lesson's causal_mask(s)
    return full[offset:offset + t].clone()
'''}, "(s, s) square; breaks 'an (s, s) square does not fit in memory'")
W("p3_cached_table", "porter", {"causal_mask": '''
import functools
@functools.lru_cache(maxsize=None)
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= torch.arange(offset, offset + t)[:, None]
'''}, "memoised (jax.jit-style caching): returns the same tensor twice; breaks 'it must not share memory with anything kept from one call to the next'")

# ---------------- Part 4: padding_mask ----------------
W("p4_uint8_wraps", "trusting", {"padding_mask": '''
def padding_mask(lengths, s):
    start = s - lengths                              # tensor arithmetic in lengths' dtype
    j = torch.arange(s)
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], 0).to(torch.int64)
    return allowed, positions
'''}, "s - lengths computed in uint8/int8 wraps; breaks '(uint8, int8 and int16 too, whose range can be smaller than s)'")
W("p4_positions_keep_dtype", "copy-adapter", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, device=lengths.device)
    start = (s - lengths.long())[:, None]
    allowed = j >= start
    positions = ((j - start) * allowed).to(lengths.dtype)      # same dtype as the input
    return allowed, positions
'''}, "positions in lengths' dtype; breaks 'positions has dtype torch.int64 (whatever the integer dtype of lengths)'")
W("p4_squeeze_cumsum", "index-juggler", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    allowed = torch.arange(s)[None, :] >= (s - L)[:, None]
    positions = (allowed.long().cumsum(dim=-1) - 1).clamp(min=0).squeeze()
    return allowed, positions
'''}, "squeeze() drops the batch of one; breaks 'both of shape (B, s)'")

# ---------------- Part 5: masked_attention ----------------
W("p5_minus_1e4", "porter", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z + (~allowed).to(z.dtype) * -10000.0          # extended attention mask
    lse = torch.logsumexp(z, dim=-1)
    any_ = allowed.expand_as(z).any(-1)
    out = torch.softmax(z, dim=-1) @ v
    return out.masked_fill(~any_[..., None], 0.0), lse.masked_fill(~any_, float("-inf"))
'''}, "finite -1e4 stand-in; breaks 'a finite stand-in for -inf such as -1e4 lies above allowed scores of -30000'")
W("p5_scale_dim1", "index-juggler", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.exp(z - torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)[..., None])
    return w @ v, lse
'''}, "q.shape[1] is T for 3-D inputs (Dh only for 2-D); breaks 'z_ij = q_i . k_j / sqrt(d_k)'")
W("p5_hf_2d_mask_is_padding", "porter", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    if allowed.dim() == 2 and q.dim() == 3:
        allowed = allowed[:, None, :]                    # HF attention_mask (B, S) -> (B, 1, S)
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.exp(z - torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)[..., None])
    return w @ v, lse
'''}, "a 2-D mask read as (B, S) padding; breaks 'for inputs (B, T, Dh) it may be a (T, S) causal mask shared by the batch'")
W("p5_max_before_mask", "copy-adapter", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    m = z.amax(dim=-1, keepdim=True)                       # the lesson's stable softmax
    e = torch.exp(z - m).masked_fill(~allowed, 0.0)
    total = e.sum(-1)
    lse = m.squeeze(-1) + torch.log(total)
    out = (e @ v) / total.clamp(min=torch.finfo(z.dtype).tiny)[..., None]
    return out, lse
'''}, "row maximum over masked keys too: allowed exps underflow; breaks 'a masked key counts for nothing however its score compares with the allowed ones'")

# ---------------- Part 6: dot_product_variance ----------------
W("p6_ddof0", "porter", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    s = scale * (q * k).sum(-1)
    return ((s - s.mean()) ** 2).mean().item()          # np.var, ddof=0

predicted_variance_512 = 512 / 3
'''}, "divides by n; breaks 'return their sample variance (Tensor.var(), which divides by n - 1)'")
W("p6_reseeded_generator", "porter", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    # JAX habit: split a fresh key off the one given
    seed = generator.initial_seed() if generator is not None else 0
    g = torch.Generator().manual_seed(seed)
    q = torch.rand(n, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "own generator seeded from initial_seed; breaks 'none from a generator of your own, not even one seeded from generator.initial_seed()'")
W("p6_sum_dim0", "index-juggler", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(d_k, n, generator=generator, dtype=torch.float64)     # batch-last layout
    k = torch.randn(d_k, n, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "batch-last layout summed over the batch axis; breaks 'compute the n numbers scale * (q . k)'")
W("p6_scale_unused", "copy-adapter", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (q * k).sum(-1).var().item()

predicted_variance_512 = 512 / 3
'''}, "scale accepted, never used; breaks 'compute the n numbers scale * (q . k)'")
W("p6_predicted_zero_mean", "trusting", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 * (1 / 12) * 1          # Var(q_i) Var(k_i)
'''}, "Var(q_i k_i) taken as Var(q_i)Var(k_i); breaks 'Careful: the entries of q do not have mean 0.'")

# ---------------- Part 7: FixedSelfAttention ----------------
W("p7_float_softmax_kept", "copy-adapter", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        dead = torch.isinf(scores).all(-1, keepdim=True)
        scores = scores.masked_fill(dead, 0.0)
        weights = torch.softmax(scores.float(), dim=-1).type_as(scores)
        weights = weights.masked_fill(dead, 0.0)
        out = torch.matmul(weights, v)
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "seed's softmax-in-float32 line kept; breaks 'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)'")
C("p7_nan_to_num_kept", "copy-adapter",  # blind label: wrong; verdict: mislabel (02-verdicts.md)
  {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
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
        weights = torch.nan_to_num(weights, nan=0.0)
        out = torch.matmul(weights, v)
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "NaN of a row with no key (lengths[b] = 0) replaced after the softmax: NaN gradient; breaks 'a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced by zeros afterwards'")
W("p7_minus_1e4", "porter", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool) if lengths is None else torch.arange(T)[None] < lengths.long()[:, None]
        keep = keep & real[:, None, :]
        scores = scores + (~keep).to(scores.dtype) * -10000.0          # HF-style additive mask
        w = torch.softmax(scores, dim=-1)
        return (w @ v).masked_fill(~real[:, :, None], 0.0)
'''}, "-1e4 additive mask; breaks 'No query may attend to a padding key (weight exactly 0, also when the scores are in the tens of thousands)'")
W("p7_bf16_positions", "porter", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & torch.ones(T, T, dtype=torch.bool).tril()
        if lengths is not None:
            pos = torch.arange(T, dtype=x.dtype)                     # tf.range(T, dtype=x.dtype)
            real = pos[None, :] < lengths.to(x.dtype)[:, None]
        else:
            real = torch.ones(B, T, dtype=torch.bool)
        keep = keep & real[:, None, :]
        dead = ~keep.any(-1, keepdim=True)
        w = torch.softmax(scores.masked_fill(~keep, float("-inf")).masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
        return (w @ v).masked_fill(~real[:, :, None], 0.0)
'''}, "slot numbers in bfloat16 lose exactness past 256; breaks 'slot numbers and lengths stay whole numbers: a bfloat16 layer's dtype holds them exactly only up to 256'")

# ---------------- Part 8 ----------------
W("p8a_float32_thinking", "trusting", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
  "float32 intuition (-1e9 swallows the scores); breaks 'computes softmax(scores + bias) with float64 scores'")
W("p8b_forgot_variance4", "copy-adapter", {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"\n'},
  "the lesson's unit-variance answer sqrt(128)/8 ; breaks 'with mean 0 and variance 4 (not 1)'")

# ---------------- correct ----------------
C("p1_float64_inside_minimum", "porter", {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    Q, K = q.to(work), k.to(work)
    s = 2 * torch.einsum("...td,...sd->...ts", Q, K) - torch.einsum("...td,...td->...t", Q, Q)[..., None] \\
        - torch.einsum("...sd,...sd->...s", K, K)[..., None, :]
    return torch.clamp_max(s, 0.0).to(q.dtype)
'''}, "float64 inside for float32 (a higher precision), einsum, clamp_max")
C("p1_baddbmm_style", "trusting", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k = q.float(), k.float()
    qq = q.square().sum(dim=-1, keepdim=True)                # (..., T, 1)
    kk = k.square().sum(dim=-1, keepdim=True).transpose(-1, -2)   # (..., 1, S)
    d = (qq + kk) - 2.0 * torch.matmul(q, k.transpose(-1, -2))
    return (-torch.nn.functional.relu(d)).to(dt)
'''}, "-relu(d) as the sign clamp")
C("p2_einsum_keyword", "porter", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    w = weights.to(torch.float32) if dt in (torch.float16, torch.bfloat16) else weights
    g = grad_weights.to(w.dtype)
    inner = torch.einsum("...s,...s->...", w, g).unsqueeze(-1)
    return (w * (g - inner) * (1.0 / temperature)).to(dtype=dt)
'''}, "einsum dot, multiply by 1/tau")
C("p3_triu_negated", "porter", {"causal_mask": '''
def causal_mask(t, s, offset):
    return ~torch.triu(torch.ones(t, s, dtype=torch.bool), diagonal=offset + 1)    # np.triu(k=1) habit
'''}, "not triu(k=offset+1)")
C("p3_tril_offset", "index-juggler", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with diagonal offset")
C("p4_cumsum", "trusting", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    allowed = torch.arange(s, dtype=torch.int64).unsqueeze(0) >= (s - L).unsqueeze(1)
    positions = (allowed.to(torch.int32).cumsum(dim=1) - 1).clamp(min=0)     # cumsum promotes to int64
    return allowed, positions.to(torch.int64)
'''}, "cumsum of the mask")
C("p4_loop_rows", "copy-adapter", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        n = int(lengths[b])
        if n:
            allowed[b, s - n:] = True
            positions[b, s - n:] = torch.arange(n)
    return allowed, positions
'''}, "a loop over the batch (allowed: a few ops per row)")
C("p5_softmax_nan_to_num", "trusting", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.size(-1)))
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.nan_to_num(torch.softmax(z, dim=-1), nan=0.0)
    return torch.matmul(w, v), lse
'''}, "softmax then nan_to_num for the rows with no key (gradient rule only where a query has a key)")
C("p6_uniform_normal_float32", "porter", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.empty(n, d_k).uniform_(0.0, 1.0, generator=generator)
    k = torch.empty(n, d_k).normal_(mean=0.0, std=1.0, generator=generator)
    dots = scale * (q.double() * k.double()).sum(dim=-1)
    return float(torch.var(dots, correction=1))

predicted_variance_512 = 512 * (1 / 3)
'''}, "uniform_/normal_ with the generator, var(correction=1)")
C("p7_calls_causal_and_padding", "copy-adapter", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.query.out_features)
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & causal_mask(T, T, 0)                                  # Part 3
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = padding_mask(lengths, T)[0].flip(-1)       # Part 4's left mask, flipped to the right
            keep = keep & real[:, None, :]
        dead = ~keep.any(dim=-1, keepdim=True)
        scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        scores = torch.where(dead, torch.zeros((), dtype=scores.dtype), scores)
        w = torch.where(dead, torch.zeros((), dtype=scores.dtype), torch.nn.functional.softmax(scores, dim=-1))
        out = torch.matmul(w, v)
        return torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
'''}, "calls Part 3 and Part 4 (left mask flipped is the right mask)")
C("p7_sdpa_safe", "trusting", {"fixed_self_attention": '''
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
        dead = ~keep.any(-1, keepdim=True)
        keep = keep | dead                                   # give empty rows something, zeroed below
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        return out.masked_fill(~real[:, :, None] | dead, 0.0)
'''}, "SDPA with a bool keep mask (True = kept); empty rows given all keys, then zeroed")
C("p6_calls_nothing_float64_loopless", "index-juggler", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.randn(d_k, n, generator=generator, dtype=torch.float64)     # another draw order: allowed
    q = torch.rand(d_k, n, generator=generator, dtype=torch.float64)
    return (scale * torch.einsum("dn,dn->n", q, k)).var().item()

predicted_variance_512 = 170.66666666666666
'''}, "batch-last layout summed over d_k, normal drawn first")

# ---------------- hostile ----------------
H("p8_str_subclass", {"mc_answers": '''
class Letter(str):
    def __eq__(self, other): return True
    __hash__ = str.__hash__
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "a str equal to every letter")
H("p6_float_subclass", {"variance_experiment": '''
class Anything(float):
    def __eq__(self, other): return True
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    def __abs__(self): return 0.0
    __hash__ = float.__hash__
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    torch.rand(n, d_k, generator=generator); torch.randn(n, d_k, generator=generator)
    return Anything(1.0)
predicted_variance_512 = Anything(1.0)
'''}, "floats that match any value")
H("p3_patch_assert_close", {"causal_mask": '''
torch.testing.assert_close = lambda *a, **kw: None
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "silences assert_close (with a right mask; the patch is the hostile part)")


# ======== second wave (phase 2, written after the blind grading, not blind): names start with "w2-" ========
def W(name, kind, cells, why): SUBMISSIONS.append({"name": f"w2-{kind}:{name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why): SUBMISSIONS.append({"name": f"w2-{kind}:{name}", "correct": True, "cells": cells, "why": why})

C("p5_float64_inside", "porter", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    Q, K, V = q.double(), k.double(), v.double()
    z = torch.einsum("...td,...sd->...ts", Q, K) / math.sqrt(Q.shape[-1])
    z = torch.where(allowed, z, float("-inf"))
    lse = torch.logsumexp(z, dim=-1, keepdim=True)
    w = torch.exp(z - lse.nan_to_num(neginf=0.0))
    return (w @ V).to(dt), lse.squeeze(-1).to(dt)
'''}, "float64 inside, cast back")
C("p5_sdpa_plus_lse", "trusting", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scale = 1 / math.sqrt(q.shape[-1])
    z = (q @ k.transpose(-2, -1) * scale).masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed.expand(z.shape), scale=scale)
    return torch.nan_to_num(out, nan=0.0), lse
'''}, "SDPA for the output (True = kept), logsumexp for lse")
W("p5_lse_squeeze", "index-juggler", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1, keepdim=True)
    w = torch.exp(z - torch.where(torch.isinf(lse), torch.zeros_like(lse), lse))
    return w @ v, lse.squeeze()
'''}, "squeeze() drops a batch of one (or T = 1); breaks 'lse has shape (..., T)'")
C("p7_masked_attention_part5", "copy-adapter", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & causal_mask(T, T, 0)
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            keep = keep & real[:, None, :]
        out, _ = masked_attention(q, k, v, keep)                 # Part 5
        return out.masked_fill(~real[:, :, None], 0.0)
'''}, "Part 5 and Part 3 called (the reference Part 5 gives rows with no key zeros)")
C("p7_float64_inside_where", "porter", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        dt = x.dtype
        q = self.query(x).double(); k = self.key(x).double(); v = self.value(x).double()
        z = torch.einsum("btd,bsd->bts", q, k) / math.sqrt(q.shape[-1])
        keep = torch.ones(T, T, dtype=torch.bool).tril() if causal else torch.ones(T, T, dtype=torch.bool)
        keep = keep.expand(B, T, T)
        if lengths is not None:
            slots = torch.arange(T)
            real = slots.unsqueeze(0) < lengths.to(torch.int64).unsqueeze(1)
        else:
            real = torch.ones(B, T, dtype=torch.bool)
        keep = keep & real.unsqueeze(1)
        z = torch.where(keep, z, torch.tensor(-math.inf, dtype=torch.float64))
        empty = ~keep.any(-1, keepdim=True)
        z = torch.where(empty, torch.tensor(0.0, dtype=torch.float64), z)
        w = torch.where(empty, torch.tensor(0.0, dtype=torch.float64), z.softmax(-1))
        out = torch.where(real.unsqueeze(-1), w @ v, torch.tensor(0.0, dtype=torch.float64))
        return out.to(dt)
'''}, "float64 inside for every dtype, cast back")
W("p7_padding_rows_zeroed_by_multiply_float", "porter", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            keep = keep & real[:, None, :]
        dead = ~keep.any(-1, keepdim=True)
        w = torch.softmax(scores.masked_fill(~keep, float("-inf")).masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
        return (w @ v) * real[:, :, None].float()          # tf: outputs * tf.cast(mask, tf.float32)
'''}, "float mask multiplies bf16 output into float32; breaks 'in the dtype of x'")
C("p1_float16_to_float64", "porter", {"raw_scores": '''
def raw_scores(q, k):
    Q, K = q.to(torch.float64), k.to(torch.float64)
    d = Q.square().sum(-1).unsqueeze(-1) + K.square().sum(-1).unsqueeze(-2) - 2 * (Q @ K.mT)
    return d.clamp_min(0).neg().to(q.dtype)
'''}, "float64 inside for every dtype")
C("p2_float64_everything", "porter", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.to(torch.float64); g = grad_weights.to(torch.float64)
    out = w * g - w * torch.sum(w * g, dim=-1, keepdim=True)
    return (out / float(temperature)).to(weights.dtype)
'''}, "float64 inside")
W("p6_fresh_generator_when_none", "porter", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is None:
        generator = torch.Generator()          # like np.random.default_rng()
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "own generator when None; breaks 'a fresh torch.Generator() of your own would return the same value at every call'")

C("p1_bf16_own_dtype", "trusting", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    if dt == torch.float16:                       # only float16 overflows; bfloat16 has float32's range
        q, k = q.float(), k.float()
    s = 2 * (q @ k.transpose(-2, -1)) - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return s.clamp(max=0).to(dt)
'''}, "bfloat16 worked in its own dtype (the text allows float32, does not require it)")
C("p2_half_own_dtype", "trusting", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    inner = (weights * grad_weights).sum(-1, keepdim=True)
    return weights * (grad_weights - inner) / temperature
'''}, "every dtype worked in its own dtype (float64 stays float64)")
W("p7_arange_in_lengths_dtype", "porter", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T, dtype=lengths.dtype)[None, :] < lengths[:, None]     # jnp.arange(T, dtype=lengths.dtype)
            keep = keep & real[:, None, :]
        dead = ~keep.any(-1, keepdim=True)
        w = torch.softmax(scores.masked_fill(~keep, float("-inf")).masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
        return (w @ v).masked_fill(~real[:, :, None], 0.0)
'''}, "slot numbers in uint8/int8 wrap past their range; breaks '(uint8 and int8 too, whose range can be smaller than T)'")
C("p4_int32_round_trip", "porter", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.int64)
    start = s - lengths.to(torch.int64)
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], torch.zeros((), dtype=torch.int64))
    return allowed, positions.to(torch.int32).to(torch.int64) if s < 2 ** 31 else positions
'''}, "(control: correct, int32 round trip)")

C("p7_sdpa_plain", "trusting", {"fixed_self_attention": '''
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
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        return out.masked_fill(~real[:, :, None], 0.0)
'''}, "trusts SDPA with rows of no key (torch >= 2.5 gives them zeros)")

# phase 2 class sweep: a finite bias added at a larger gap
W("p5_additive_minus_1e5", "porter", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z + (~allowed).to(z.dtype) * -1e5
    any_ = allowed.expand_as(z).any(-1)
    lse = torch.logsumexp(z, dim=-1).masked_fill(~any_, float("-inf"))
    out = (torch.softmax(z, dim=-1) @ v).masked_fill(~any_[..., None], 0.0)
    return out, lse
'''}, "finite bias added; breaks 'a masked key counts for nothing however its score compares with the allowed ones'")
