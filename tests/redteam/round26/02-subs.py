# Red team round 26, chapter 02 (blind). Kinds: skimmer, squeeze-and-broadcast, stride-and-layout, remainder-and-boundary.
SUBMISSIONS = []
def S(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

ATT_OK = '''
def masked_attention(q, k, v, allowed):
    work = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    z = (qw @ kw.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    a = allowed.expand(z.shape)
    zm = z.masked_fill(~a, float("-inf"))
    m = zm.amax(-1, keepdim=True)
    has = a.any(-1, keepdim=True)
    m = torch.where(has, m, torch.zeros_like(m))
    e = torch.exp(zm - m)
    tot = e.sum(-1, keepdim=True)
    tot = torch.where(has, tot, torch.ones_like(tot))
    out = (e / tot) @ vw
    lse = torch.where(has, m + torch.log(tot), torch.full_like(m, float("-inf")))
    return %s
'''

# ---------------------------------------------------------------- wrong: the skimmer
S("skim_p1_float32_in_float32", False, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else q.dtype
    qw, kw = q.to(work), k.to(work)
    s = 2 * (qw @ kw.transpose(-2, -1)) - (qw * qw).sum(-1)[..., :, None] - (kw * kw).sum(-1)[..., None, :]
    return s.clamp(max=0).to(q.dtype)
'''}, "skimmer: 'The same holds for float32 past 3.4e38 ... so work float32 in float64': squares of entries near 1e19 overflow.")

S("skim_p2_divide_g_first", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w = weights.to(work)
    g = grad_weights / temperature                  # chain rule through z / tau first
    g = g.to(work)
    return (w * (g - (w * g).sum(-1, keepdim=True))).to(weights.dtype)
'''}, "skimmer: 'divide by the temperature after the product, not g first: g / 1e-6 in float16 is inf'.")

S("skim_p2_clamp_weights_inplace", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    weights.clamp_(0, 1)                            # guard against rounding outside [0, 1]
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
'''}, "skimmer: 'Leave weights and grad_weights as they are: do not write into them, not even the values they already hold (a weights.clamp_(0, 1) ...)'.")

S("skim_p4_positions_in_lengths_dtype", False, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, device=lengths.device)
    start = (s - lengths.long())[:, None]
    allowed = j[None, :] >= start
    positions = ((j[None, :] - start).clamp(min=0) * allowed).to(lengths.dtype)   # same integer type as lengths
    return allowed, positions
'''}, "skimmer: 'positions has dtype torch.int64 (whatever the integer dtype of lengths)'.")

S("skim_p5_returns_list", False, {"masked_attention": ATT_OK % "[out.to(q.dtype), lse[..., 0].to(q.dtype)]"},
  "skimmer: 'a part that returns a pair (a, b) returns a tuple, not a list'.")

S("skim_p5_bf16_lse_float32", False, {"masked_attention": ATT_OK % "out.to(q.dtype), lse[..., 0]"},
  "skimmer: 'both have the dtype of q': the bfloat16 lse comes back float32 (worked in float32, cast only the output).")

S("skim_p6_biased_variance", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    return dots.var(unbiased=False).item()          # the variance of the n numbers

predicted_variance_512 = 512 / 3
'''}, "skimmer: 'return their sample variance (Tensor.var(), which divides by n - 1)'.")

S("skim_p6_predicted_var_q_times_var_k", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 * (1 / 12) * 1     # d_k * Var(q_i) * Var(k_i)
'''}, "skimmer: 'Careful: the entries of q do not have mean 0': Var(q_i k_i) = E[q^2] E[k^2] = 1/3, not Var(q) Var(k).")

S("skim_p7_sets_self_scale", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        self.scale = self.query.out_features ** -0.5          # the queries' width, not embed_dim
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) * self.scale
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        has = allowed.any(-1, keepdim=True)
        w = torch.softmax(scores.masked_fill(~allowed, float("-inf")).masked_fill(~has, 0.0), -1).masked_fill(~allowed, 0.0)
        out = w @ v
        return out if real is None else out.masked_fill(~real[:, :, None], 0.0)
'''}, "skimmer: 'forward sets no attribute of the layer ..., not even self.scale set to a corrected value'.")

# ---------------------------------------------------------------- wrong: squeeze-and-broadcast
S("sq_p2_sum_no_dim", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    s = (w * g).sum()                               # <w, g>
    return (w * (g - s) / temperature).to(weights.dtype)
'''}, "squeeze: sum() with no dim adds every row's <w, g> together: 'w = softmax(z / tau) (over the last dimension)', rows of '(..., S)'.")

S("sq_p5_lse_squeeze_nodim", False, {"masked_attention": ATT_OK % "out.to(q.dtype), lse.squeeze().to(q.dtype)"},
  "squeeze: lse.squeeze() drops a batch of one or T = 1: 'lse has shape (..., T)'.")

S("sq_p7_key_mask_unsqueeze0", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]    # (B, T)
            allowed = allowed & real.unsqueeze(0)                                     # keys: last axis
        has = allowed.any(-1, keepdim=True)
        w = torch.softmax(scores.masked_fill(~allowed, float("-inf")).masked_fill(~has, 0.0), -1).masked_fill(~allowed, 0.0)
        out = w @ v
        return out if real is None else out.masked_fill(~real[:, :, None], 0.0)
'''}, "squeeze: real.unsqueeze(0) is (1, B, T), right for a batch of one only (B == T silently pairs queries with sequences): 'No query may attend to a padding key' of its own sequence.")

S("sq_p4_lengths_squeeze", False, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long().squeeze()                 # (B,)
    j = torch.arange(s)
    start = (s - L).unsqueeze(-1)
    allowed = j >= start
    positions = torch.where(allowed, j - start, 0)
    return allowed, positions
'''}, "squeeze: squeeze() turns a batch of one into a 0-d length: both results come back (s,) instead of '(B, s)'.")

# ---------------------------------------------------------------- wrong: stride-and-layout
S("stride_p1_view_flatten", False, {"raw_scores": '''
def raw_scores(q, k):
    *lead, T, Dh = q.shape
    S = k.shape[-2]
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qf = q.view(-1, T, Dh).to(work)                 # flatten the leading dims into one batch
    kf = k.view(-1, S, Dh).to(work)
    s = 2 * torch.bmm(qf, kf.transpose(1, 2)) - (qf * qf).sum(-1)[:, :, None] - (kf * kf).sum(-1)[:, None, :]
    return s.clamp(max=0).to(q.dtype).view(*lead, T, S)
'''}, "stride: q.view on a transposed or stepped input fails: 'a transposed view or a slice with a step is as valid an input as any other'.")

S("stride_p2_inplace_view_of_grad", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    if weights.dtype in (torch.float16, torch.bfloat16):
        w, g = weights.float(), grad_weights.float()
    else:
        w, g = weights, grad_weights.view(grad_weights.shape)    # no copy needed
    g = g.sub_((w * g).sum(-1, keepdim=True)) if g is not grad_weights else g - (w * g).sum(-1, keepdim=True)
    out = w * g
    out /= temperature
    return out.to(weights.dtype)
'''}, "stride/in place: the float16 path writes into its own copy, but for float32 a .view shares grad_weights' memory and sub_ writes into it: 'do not write into them'.")

S("stride_p7_view_flatten", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        flat = x.view(B * T, D)                       # one big matmul per projection
        q = self.query(flat).view(B, T, -1)
        k = self.key(flat).view(B, T, -1)
        v = self.value(flat).view(B, T, -1)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        has = allowed.any(-1, keepdim=True)
        w = torch.softmax(scores.masked_fill(~allowed, float("-inf")).masked_fill(~has, 0.0), -1).masked_fill(~allowed, 0.0)
        out = w @ v
        return out if real is None else out.masked_fill(~real[:, :, None], 0.0)
'''}, "stride: x.view(B * T, D) fails on a non-contiguous x: 'The tensors you are given need not be contiguous'.")

# ---------------------------------------------------------------- wrong: remainder-and-boundary
S("rem_p4_uint8_wraps", False, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s)
    start = s - lengths[:, None]                  # first real slot of each row
    allowed = j[None, :] >= start
    positions = torch.where(allowed, j[None, :] - start, 0).long()
    return allowed, positions
'''}, "remainder: s - lengths in uint8/int8/int16 wraps: 'lengths is a 1-D tensor of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)'.")

S("rem_p6_chunks_drop_rest", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    chunk = 512                                     # pairs per draw, keeps memory small
    dots = []
    for i in range(n // chunk):
        q = torch.rand(chunk, d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(chunk, d_k, generator=generator, dtype=torch.float64)
        dots.append((q * k).sum(-1))
    if n % chunk and not dots:
        q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
        dots.append((q * k).sum(-1))
    return (scale * torch.cat(dots)).var().item()

predicted_variance_512 = 512 / 3
'''}, "remainder: the last partial chunk is dropped: 'draw n independent pairs ..., compute the n numbers'.")

S("rem_p7_nan_to_num_empty_row", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=x.device), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        w = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)    # a sequence with no real token
        out = w @ v
        return out if real is None else out * real[:, :, None].to(out.dtype)
'''}, "remainder: lengths[b] = 0 leaves a row with no allowed key: 'a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced by zeros afterwards'.")

S("rem_p3_float_positions", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(offset, offset + t, dtype=torch.float32)
    return keys[None, :] <= queries[:, None]
'''}, "remainder/boundary: float32 positions round past 2**24: 'with positions that stay exact integers' (caches of tens of millions of slots).")

# ---------------------------------------------------------------- correct
S("ok_p1_einsum_f64", True, {"raw_scores": '''
def raw_scores(q, k):
    hi = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    a, b = q.to(hi), k.to(hi)
    qq = torch.einsum("...td,...td->...t", a, a).unsqueeze(-1)
    kk = torch.einsum("...sd,...sd->...s", b, b).unsqueeze(-2)
    qk = torch.einsum("...td,...sd->...ts", a, b)
    return torch.clamp(-(qq + kk - 2 * qk), max=0.0).to(q.dtype)
'''}, "einsum in float64 (float32 in float32 for half types), clamp at 0.")

S("ok_p2_einsum_keepdim", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    hi = torch.float64                                  # higher precision inside is allowed
    w = weights.to(hi)
    g = grad_weights.to(hi)
    dot = torch.einsum("...s,...s->...", w, g)[..., None]
    return ((w * g - w * dot) / temperature).to(weights.dtype)
'''}, "einsum of the row dot product, float64 inside.")

S("ok_p3_tril_offset", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with diagonal=offset: key j <= i + offset.")

S("ok_p4_cumsum_positions", True, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    allowed = torch.arange(s).expand(L.shape[0], s) >= (s - L).unsqueeze(1)
    positions = (allowed.cumsum(dim=1) - 1).clamp(min=0)
    return allowed, positions
'''}, "positions as a cumulative count of real tokens (cumsum of bool is int64).")

S("ok_p4_loop_over_batch", True, {"padding_mask": '''
def padding_mask(lengths, s):
    rows_a, rows_p = [], []
    for b in range(lengths.shape[0]):
        n = int(lengths[b])
        a = torch.zeros(s, dtype=torch.bool)
        a[s - n:] = True
        pos = torch.zeros(s, dtype=torch.int64)
        pos[s - n:] = torch.arange(n)
        rows_a.append(a); rows_p.append(pos)
    if not rows_a:
        return torch.zeros(0, s, dtype=torch.bool), torch.zeros(0, s, dtype=torch.int64)
    return torch.stack(rows_a), torch.stack(rows_p)
'''}, "a Python loop over the batch with a few ops per row (allowed).")

S("ok_p5_logsumexp_softmax", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    work = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    z = torch.matmul(q.to(work), k.to(work).transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    z = z.masked_fill(torch.logical_not(allowed), float("-inf"))
    lse = torch.logsumexp(z, dim=-1)                      # -inf on a row with no allowed key
    w = torch.nan_to_num(torch.softmax(z, dim=-1), nan=0.0)
    out = torch.matmul(w, v.to(work))
    return out.to(q.dtype), lse.to(q.dtype)
'''}, "logsumexp and softmax: torch's own handle the max; NaN rows (no allowed key) zeroed; gradients are only checked where every query has a key.")

S("ok_p5_exp_log_softmax", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    hi = torch.float64 if dt == torch.float64 else torch.float32
    z = (q.to(hi) @ k.to(hi).mT) / q.shape[-1] ** 0.5
    full = torch.broadcast_to(allowed, z.shape)
    any_key = full.any(dim=-1, keepdim=True)
    z = torch.where(full, z, torch.tensor(float("-inf"), dtype=hi))
    z = torch.where(any_key, z, torch.zeros((), dtype=hi))       # rows with no key: harmless zeros
    w = torch.exp(torch.log_softmax(z, dim=-1))
    w = torch.where(full, w, torch.zeros((), dtype=hi))
    lse = torch.where(any_key[..., 0], torch.logsumexp(z, -1), torch.tensor(float("-inf"), dtype=hi))
    return (w @ v.to(hi)).to(dt), lse.to(dt)
'''}, "exp of a log_softmax ('or take exp of a log_softmax'), torch.where masking.")

S("ok_p6_uniform_normal_inplace_kfirst", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(generator=generator)
    q = torch.empty(d_k, n, dtype=torch.float64).uniform_(generator=generator).T     # any layout
    dots = torch.einsum("nd,nd->n", q, k)
    return float(torch.var(dots, correction=1)) * scale * scale

predicted_variance_512 = 512 * (1 / 3 * 1 - (0.5 * 0) ** 2)
'''}, "uniform_/normal_ with the generator, k drawn first, the scale applied to the variance (scale^2) in Python floats.")

S("ok_p7_calls_part5", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()
        if lengths is not None:
            real = torch.arange(T, device=x.device) < lengths.long().unsqueeze(-1)
            allowed = allowed & real.unsqueeze(-2)
        empty = ~allowed.any(-1, keepdim=True)
        out, _ = masked_attention(q, k, v, allowed | empty)      # Part 5; rows with no key get a dummy
        if lengths is not None:
            out = torch.where((real.unsqueeze(-1)) & ~empty, out, torch.zeros((), dtype=out.dtype))
        return out
'''}, "calls Part 5's masked_attention (scale 1/sqrt(head_dim)), never hands it a row with no allowed key.")

S("ok_p7_einsum_where_f64", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        d_k = q.shape[-1]
        hi = torch.float32 if x.dtype == torch.bfloat16 else x.dtype
        scores = torch.einsum("btd,bsd->bts", q.to(hi), k.to(hi)) / math.sqrt(d_k)
        i = torch.arange(T, device=x.device)
        keep = torch.ones(1, T, T, dtype=torch.bool, device=x.device)
        if causal:
            keep = keep & (i[None, :, None] >= i[None, None, :])
        qreal = torch.ones(B, T, 1, dtype=torch.bool, device=x.device)
        if lengths is not None:
            kreal = i[None, :] < lengths.to(torch.int64)[:, None]
            keep = keep & kreal[:, None, :]
            qreal = kreal[:, :, None]
        keep = keep.expand(B, T, T)
        rowok = keep.any(-1, keepdim=True)
        scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=hi))
        scores = torch.where(rowok, scores, torch.zeros((), dtype=hi))
        w = torch.where(keep, torch.softmax(scores, -1), torch.zeros((), dtype=hi))
        out = torch.einsum("bts,bsd->btd", w, v.to(hi))
        out = torch.where(qreal & rowok, out, torch.zeros((), dtype=hi))
        return out.to(x.dtype)
'''}, "einsum and torch.where, float32 inside for bfloat16 only.")

S("ok_p8_same_answers", True, {"mc_answers": '''
answer_masking = "d"    # the shift by -1e9 cancels in the softmax
answer_doubling = "b"   # sqrt(128 * 16) / 8 = 4 sqrt(2)
'''}, "same answers with comments.")

# ---------------------------------------------------------------- hostile
S("hostile_p6_formula_plus_noise", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    u = torch.rand(1, generator=generator, dtype=torch.float64).item()
    return (d_k / 3) * scale * scale * (1 + 0.01 * (u - 0.5))

predicted_variance_512 = 512 / 3
'''}, "hostile: the formula with a little noise, draws one number.")

S("hostile_p8_str_equals_all", False, {"mc_answers": '''
class Letter(str):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = str.__hash__
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "hostile: a str subclass equal to every letter.")

S("hostile_p1_cdist_disguised", False, {"raw_scores": '''
def raw_scores(q, k):
    f = getattr(torch, "cd" + "ist")
    hi = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    return (-(f(q.to(hi), k.to(hi)) ** 2)).to(q.dtype)
'''}, "hostile: torch.cdist reached through getattr.")

# ---------------------------------------------------------------- second batch (still blind)
S("sq_p1_baddbmm_squeeze", False, {"raw_scores": '''
def raw_scores(q, k):
    T, Dh = q.shape[-2:]
    S = k.shape[-2]
    hi = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qf = q.reshape(-1, T, Dh).to(hi)
    kf = k.reshape(-1, S, Dh).to(hi)
    sq = (qf * qf).sum(-1)[:, :, None] + (kf * kf).sum(-1)[:, None, :]
    s = torch.baddbmm(sq, qf, kf.transpose(1, 2), alpha=-2)        # squared distances
    return (-s).clamp(max=0).reshape(*q.shape[:-2], T, S).squeeze().to(q.dtype)
'''}, "squeeze: a trailing squeeze() drops a batch of one or T = 1: 'the result is (..., T, S)'.")

S("stride_p5_k_dot_T", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    work = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    z = (q.to(work) @ k.to(work).T) / math.sqrt(q.shape[-1])          # q k^T
    a = allowed.expand(z.shape)
    zm = z.masked_fill(~a, float("-inf"))
    has = a.any(-1, keepdim=True)
    m = torch.where(has, zm.amax(-1, keepdim=True), torch.zeros((), dtype=work))
    e = torch.exp(zm - m)
    tot = torch.where(has, e.sum(-1, keepdim=True), torch.ones((), dtype=work))
    out = (e / tot) @ v.to(work)
    lse = torch.where(has, m + torch.log(tot), torch.tensor(float("-inf"), dtype=work))[..., 0]
    return out.to(q.dtype), lse.to(q.dtype)
'''}, "stride/layout: k.T reverses every dimension of a batched k: 'q (..., T, Dh), k (..., S, Dh)' with leading dimensions.")

S("ok_p1_loop_over_dims", True, {"raw_scores": '''
def raw_scores(q, k):
    out = None
    for d in range(q.shape[-1]):                 # one (..., T, S) slice of differences at a time
        diff = q[..., :, None, d] - k[..., None, :, d]
        sq = diff * diff
        out = sq if out is None else out + sq
    if out is None:
        return torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
    return -out
'''}, "the definition, one coordinate at a time: no (..., T, S, Dh) tensor, exact differences, never positive.")

S("ok_p3_expand_compare", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s).expand(t, s)
    last = torch.arange(offset, offset + t).unsqueeze(1)
    return keys < last + 1
'''}, "j < offset + i + 1 on an expanded row of key positions (the comparison makes a new tensor).")

S("ok_p6_float32_draws", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q * k).sum(dim=1).double() * scale        # float32 draws, float64 from the dots on
    return dots.var().item()

predicted_variance_512 = 170.666667
'''}, "float32 draws (the dtype is free), float64 before the scale.")
