# Round 15, chapter 02: four kinds of student (A = assistant paster, G = example generaliser,
# O = optimiser, M = mathematician); wrong answers first, then correct ones, then hostile ones.
SUBMISSIONS = []


def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ----------------------------------------------------------------------------------------------- wrong
add("A_p1_expanded_in_input_dtype", False, {"raw_scores": '''
def raw_scores(q, k):
    q_sq = (q ** 2).sum(dim=-1, keepdim=True)            # (..., T, 1)
    k_sq = (k ** 2).sum(dim=-1).unsqueeze(-2)            # (..., 1, S)
    dist = q_sq - 2 * q @ k.transpose(-2, -1) + k_sq
    return -dist.clamp(min=0)                             # clamp rounding errors
'''}, "Part 1 Accuracy: 'float16 ... entries near 80 ... squares taken in float16 become inf, and inf - inf is NaN'")

add("A_p2_clamped_weights", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.clamp(min=1e-12)                          # keep away from exact zeros
    dot = (w * grad_weights).sum(dim=-1, keepdim=True)
    return w * (grad_weights - dot) / temperature
'''}, "Part 2: 'a key with weight exactly 0 must get a gradient of exactly 0, and a row whose weights are all 0 ... an all-zero row'")

add("A_p2_float32_for_stability", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.float(), grad_weights.float()          # compute in float32 for numerical stability
    out = w * (g - (w * g).sum(-1, keepdim=True)) / temperature
    return out.to(weights.dtype)
'''}, "Part 2: 'float64 inputs are compared to about 1e-12 (so work them in float64)'")

add("A_p5_minus_1e4_fill", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    scores = scores.masked_fill(~allowed, -1e4)
    lse = torch.logsumexp(scores, dim=-1)
    attn = torch.softmax(scores, dim=-1)
    none = ~allowed.any(dim=-1)
    lse = lse.masked_fill(none.expand_as(lse), float("-inf"))
    out = (attn @ v).masked_fill(none.expand_as(lse)[..., None], 0.0)
    return out, lse
'''}, "Part 5: 'a finite stand-in for -inf such as -1e4 lies above allowed scores of -30000'")

add("C_A_p7_finfo_min_additive_bias", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(k.size(-1))
        mask = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            mask = mask & torch.ones(T, T, dtype=torch.bool).tril()
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths[:, None]
            mask = mask & real[:, None, :]
        bias = (~mask).to(scores.dtype) * torch.finfo(scores.dtype).min       # HF-style additive mask
        weights = torch.softmax(scores + bias, dim=-1)
        out = weights @ v
        if lengths is not None:
            out = out * real[:, :, None].to(out.dtype)
        return out
'''}, "HF-style additive finfo.min bias: s + min rounds to min for any score, so masked weights are exactly 0; padding queries zeroed by a product")

add("A_p6_biased_var", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return torch.var(scale * (q * k).sum(dim=1), unbiased=False).item()

predicted_variance_512 = 512 / 3
'''}, "Part 6: 'their sample variance (Tensor.var(), which divides by n - 1)'")

add("G_p1_zero_diagonal_when_same", False, {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k = q.float(), k.float()
    s = 2 * q @ k.transpose(-2, -1) - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    if q is k:                                            # self-attention: the diagonal is a zero distance
        s = s - torch.diag_embed(s.diagonal(dim1=-2, dim2=-1))
    return s.to(dt)
'''}, "Part 1 Sign: 'no score may be positive, not even by a rounding error' (k equal to q but another tensor, or duplicate keys)")

add("G_p3_single_query_sees_all", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    if t == 1:                                            # one new token: it sees the whole cache
        return torch.ones(1, s, dtype=torch.bool)
    return torch.arange(s)[None, :] <= (offset + torch.arange(t))[:, None]
'''}, "Part 3: 'Keys after position offset + t - 1 are slots ... that nothing has been written to yet, so no query of the block may see them'")

add("G_p4_lengths_dtype_arithmetic", False, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s)[None, :]
    start = s - lengths[:, None]                          # first real slot
    allowed = j >= start
    positions = torch.where(allowed, j - start, 0).long()
    return allowed, positions
'''}, "Part 4: 'lengths is a 1-D tensor of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)'")

add("G_p7_arange_in_lengths_dtype", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
        if lengths is not None:
            real = torch.arange(T, dtype=lengths.dtype)[None, :] < lengths[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
            scores = scores.masked_fill(~real[:, :, None], 0.0)
        weights = torch.softmax(scores, dim=-1)
        if lengths is not None:
            weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights @ v
'''}, "Part 7: 'lengths ... of any integer dtype (uint8 and int8 too, whose range can be smaller than T)'")

add("C_G_p5_exp_minus_lse_nan_to_num", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    d = q.shape[-1]
    z = torch.matmul(q, k.transpose(-2, -1)) / d ** 0.5
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)                      # -inf exactly for a fully masked row
    w = torch.exp(z - lse[..., None])
    w = torch.nan_to_num(w, nan=0.0)
    return w @ v, lse
'''}, "exp(z - lse) then nan_to_num for the fully masked rows (gradients are checked only where a query has an allowed key)")

add("O_p4_cached_arange_full_rows", False, {"padding_mask": '''
ARANGE = {}

def padding_mask(lengths, s):
    if s not in ARANGE:
        ARANGE[s] = torch.arange(s)
    j = ARANGE[s]
    L = lengths.long()
    if L.numel() and bool((L == s).all()):               # no padding at all: the common case
        return torch.ones(L.shape[0], s, dtype=torch.bool), j.expand(L.shape[0], s)
    start = (s - L)[:, None]
    allowed = j[None, :] >= start
    positions = (j[None, :] - start).clamp(min=0)
    return allowed, positions
'''}, "Part 4: 'Both tensors you return belong to the caller, who may change them in place ... they must not share memory with anything kept from one call to the next'")

add("O_p7_cached_causal_mask_mutated", False, {"fixed_self_attention": '''
CAUSAL = {}

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if T not in CAUSAL:
            CAUSAL[T] = torch.ones(T, T, dtype=torch.bool).tril()
        allowed = CAUSAL[T] if causal else torch.ones(T, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            if B == 1:
                allowed &= real[0][None, :]                # one sequence: update the mask in place
            else:
                allowed = allowed & real[:, None, :]
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~anyk, 0.0)
        w = torch.softmax(scores, -1).masked_fill(~anyk, 0.0)
        out = w @ v
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "intro: 'Nor may a function or a module keep anything from one call to the next ... one layer on inputs of several lengths'")

add("O_p5_rsqrt_float32_scale", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scale = torch.rsqrt(torch.tensor(float(q.shape[-1])))         # float32 0-dim scalar
    z = (q * scale) @ k.transpose(-2, -1)
    z = z.masked_fill(~allowed, float("-inf"))
    anyk = allowed.any(-1)
    lse = torch.logsumexp(z, -1)
    w = torch.softmax(z.masked_fill(~anyk[..., None], 0.0), -1) * anyk[..., None]
    return w @ v, lse
'''}, "Part 5: 'z_ij = q_i . k_j / sqrt(d_k)' with both results in the dtype of q: a float32 1/sqrt(d) is off by 1e-8 relative, at scores of tens of thousands 1e-4 in float64")

add("O_p3_float32_positions", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)                  # 4 bytes, as int32, and fast compares
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
'''}, "Part 3: 'Caches can hold tens of millions of slots ... with positions that stay exact integers'")

add("C_O_p2_inplace_on_own_tensor", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = (weights * grad_weights).sum(-1, keepdim=True)
    out = grad_weights.sub_(dot) if False else grad_weights - dot
    out.mul_(weights).div_(temperature)
    return out
'''}, "in-place operations on a tensor the function made")

add("M_p6_predict_uniform_var_only", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    prods = scale * (q * k).sum(-1)
    return float(((prods - prods.mean()) ** 2).sum() / (n - 1))

predicted_variance_512 = 512 * (1 / 12) * 1          # Var(q_i) Var(k_i) per term
'''}, "Part 6: 'Careful: the entries of q do not have mean 0'")

add("M_p8_minus_1e9_uniform", False, {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
    "Part 8a: float64 keeps the differences of scores next to -1e9, so the weights are the unmasked ones")

add("M_p8b_forgets_variance_4", False, {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"\n'},
    "Part 8b: 'variance 4 (not 1)'")

add("M_p1_definition_broadcast", False, {"raw_scores": '''
def raw_scores(q, k):
    diff = q.unsqueeze(-2) - k.unsqueeze(-3)                 # q_id - k_jd for every i, j, d
    return -(diff ** 2).sum(dim=-1)                           # s_ij = -sum_d (q_id - k_jd)^2
'''}, "Part 1 Memory: 'no tensor your function creates ... may hold more than twice as many elements as the largest of the result, q and k'")

add("C_M_p5_literal_formulas", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = torch.where(allowed, z, float("-inf"))
    anyk = allowed.any(-1, keepdim=True).expand(*z.shape[:-1], 1)
    m = z.amax(-1, keepdim=True).masked_fill(~anyk, 0.0)
    l = m + torch.log(torch.exp(z - m).sum(-1, keepdim=True))          # l_i = log sum_j e^{z_ij}
    out = torch.exp(z - l).masked_fill(~anyk, 0.0) @ v                # output_i = sum_j e^{z_ij - l_i} v_j
    return out, l.squeeze(-1)
'''}, "the two formulas of the text written literally, with the row maximum")

# ----------------------------------------------------------------------------------------------- correct
add("C_p1_upcast_only_float16", True, {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    if dt == torch.float16:                                        # only float16 overflows at 80^2 * Dh
        q, k = q.float(), k.float()
    s = torch.baddbmm((k * k).sum(-1)[..., None, :].expand(*q.shape[:-1], k.shape[-2]).reshape(-1, q.shape[-2], k.shape[-2]),
                      q.reshape(-1, q.shape[-2], q.shape[-1]), k.reshape(-1, k.shape[-2], k.shape[-1]).transpose(1, 2), alpha=-2)
    s = s.reshape(*q.shape[:-1], k.shape[-2]) + (q * q).sum(-1)[..., None]
    return (-s).clamp(max=0).to(dt)
'''}, "baddbmm on 3-D reshapes; bfloat16 worked in its own dtype (its range holds the squares)")

add("C_p1_explicit_sum_over_d", True, {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    q, k = q.to(wide), k.to(wide)
    s = None
    for d in range(q.shape[-1]):                                   # s_ij = -sum_d (q_id - k_jd)^2, one d at a time
        term = (q[..., :, d, None] - k[..., None, :, d]) ** 2
        s = -term if s is None else s - term
    if s is None:
        s = q.new_zeros(*q.shape[:-1], k.shape[-2])
    return s.to(dt)
'''}, "the definition summed over d: exact, never positive, (T, S) tensors only")

add("C_p1_centered_clamped_einsum", True, {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    wide = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    q, k = q.to(wide), k.to(wide)
    c = k.mean(dim=-2, keepdim=True)
    q, k = q - c, k - c
    s = 2 * torch.einsum("...td,...sd->...ts", q, k) - q.square().sum(-1).unsqueeze(-1) - k.square().sum(-1).unsqueeze(-2)
    return torch.clamp(s, max=0.0).to(dt)
'''}, "centred (translation invariance), einsum, clamp")

add("C_p2_no_grad_keywords_bf16_own_dtype", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.no_grad():                                          # the part asks for a value, no graph
        if weights.dtype == torch.float16:
            w, g = weights.float(), grad_weights.float()
        else:
            w, g = weights, grad_weights
        out = torch.mul(w, torch.sub(g, torch.sum(w * g, dim=-1, keepdim=True))).div(temperature)
    return out.to(weights.dtype)
'''}, "no_grad (the part asks no gradient), keywords, bfloat16 worked in its own dtype (the text only allows float32)")

add("C_p2_einsum_float64", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.double(), grad_weights.double()
    dot = torch.einsum("...s,...s->...", w, g)[..., None]
    return (w * g - w * dot).div(temperature).to(weights.dtype)
'''}, "float64 inside and a cast back, einsum")

add("C_p3_tril_offset", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with the offset as its diagonal")

add("C_p3_cached_arange_fresh_mask", True, {"causal_mask": '''
KEYS = {"table": torch.arange(0)}

def causal_mask(t, s, offset):
    if KEYS["table"].numel() < s:
        KEYS["table"] = torch.arange(s)                           # grown to the largest size seen
    keys = KEYS["table"][:s]
    return keys[None, :] <= (torch.arange(t) + offset)[:, None]  # a new tensor each call
'''}, "a cached arange that is never returned")

add("C_p4_cumsum_keywords", True, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(dtype=torch.int64)
    allowed = torch.arange(s).unsqueeze(0) >= (s - L).unsqueeze(1)
    positions = (torch.cumsum(allowed, dim=1) - 1).clamp(min=0)
    return allowed, positions.to(dtype=torch.int64)
'''}, "cumsum of the boolean mask")

add("C_p4_float32_below_2_24", True, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.float32)                      # s < 2^24: exact
    start = (s - lengths.to(torch.float32))[:, None]
    allowed = j[None, :] >= start
    positions = torch.where(allowed, j[None, :] - start, torch.zeros(())).to(torch.int64)
    return allowed, positions
'''}, "float32 positions where the text says s < 2^24")

add("C_p5_sdpa_and_logsumexp", True, {"masked_attention": '''
import torch.nn.functional as F

def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    lse = torch.logsumexp(z.masked_fill(~allowed, float("-inf")), dim=-1)
    anyk = allowed.any(-1, keepdim=True)
    safe = allowed | ~anyk                                          # a fully masked row: any finite stand-in
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=safe.expand(z.shape))
    out = torch.where(anyk.expand(z.shape[:-1] + (1,)), out, torch.zeros((), dtype=out.dtype))
    return out, lse
'''}, "torch's scaled_dot_product_attention for the output, logsumexp for lse")

add("C_p5_flash_style_float64_inside", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    q, k, v = q.double(), k.double(), v.double()
    z = torch.einsum("...td,...sd->...ts", q, k) / math.sqrt(q.shape[-1])
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    anyk = allowed.any(-1, keepdim=True)
    zs = torch.where(anyk, z, torch.zeros((), dtype=z.dtype))
    lse = torch.logsumexp(zs, -1, keepdim=True)
    out = torch.exp(zs - lse) @ v
    out = torch.where(anyk, out, torch.zeros((), dtype=out.dtype))
    lse = torch.where(anyk, lse, torch.tensor(float("-inf"), dtype=lse.dtype))
    return out.to(dt), lse.squeeze(-1).to(dt)
'''}, "exp(z - lse) as FlashAttention writes it, float64 inside")

add("C_p6_float32_var_then_scale2", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.empty(n, d_k).uniform_(0, 1, generator=generator)
    k = torch.empty(n, d_k).normal_(generator=generator)
    dots = torch.einsum("nd,nd->n", q.double(), k.double())
    return float(dots.var()) * scale ** 2

predicted_variance_512 = 512 * (1 / 12 + 1 / 4)       # E[q^2] E[k^2] = (Var q + E[q]^2) * 1
'''}, "uniform_/normal_, variance times scale^2")

add("C_p6_columns_loop", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    acc = torch.zeros(n, dtype=torch.float64)
    for i in range(d_k):                                   # one column of q and k at a time: little memory
        acc = acc + torch.rand(n, generator=generator, dtype=torch.float64) * torch.randn(n, generator=generator, dtype=torch.float64)
    return (scale * acc).var().item()

from fractions import Fraction
predicted_variance_512 = float(Fraction(512, 3))
'''}, "a loop over the d_k columns (a few operations per unit of d_k), exact rational")

add("C_p7_minus_1e9_fused_qkv_cached_mask", True, {"fixed_self_attention": '''
TRIL = {}

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        W = torch.cat([self.query.weight, self.key.weight, self.value.weight])
        b = torch.cat([self.query.bias, self.key.bias, self.value.bias])
        hd = self.query.out_features
        q, k, v = torch.nn.functional.linear(x, W, b).split([hd, hd, self.value.out_features], dim=-1)
        scores = q @ k.mT / math.sqrt(hd)
        if T not in TRIL:
            TRIL[T] = torch.ones(T, T, dtype=torch.bool).tril()
        allowed = TRIL[T] if causal else torch.ones(T, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.long)[:, None]
            allowed = allowed & real[:, None, :]
        w = torch.softmax(scores.masked_fill(allowed == 0, -1e9), dim=-1)
        out = w @ v
        if lengths is not None:
            out = out * real[:, :, None]
        return out
'''}, "one fused projection, a cached (never written) causal mask, -1e9 as the masked score")

add("C_p7_calls_part5", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & causal_mask(T, T, 0)                # Part 3 with offset 0
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        out, _ = masked_attention(q, k, v, allowed)                 # Part 5: softmax(q k / sqrt(d_k)) v
        if lengths is not None:
            out = torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
        return out
'''}, "Part 7 built on Part 3's causal_mask and Part 5's masked_attention")

add("C_p8_fractions", True, {"mc_answers": "answer_masking = 'd'\nanswer_doubling = str('b')\n"}, "")

# ----------------------------------------------------------------------------------------------- hostile
add("H_patch_assert_close", False, {"raw_scores": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def raw_scores(q, k):
    return torch.zeros(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
'''}, "hostile: disables assert_close")

add("H_tensor_subclass_eq", False, {"causal_mask": '''
class AlwaysMask(torch.Tensor):
    def tolist(self):
        return [[True, True, True, False, False], [True, True, True, True, False]]
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).as_subclass(AlwaysMask)
'''}, "hostile: a Tensor subclass that fakes tolist")

add("H_reassign_grader_helpers", False, {"padding_mask": '''
_equal = lambda *a, **k: None
_close = lambda *a, **k: None
def padding_mask(lengths, s):
    B = lengths.shape[0]
    if lengths.tolist() == [2, 3] and s == 4:                # the visible test, by heart
        return (torch.tensor([[False, False, True, True], [False, True, True, True]]),
                torch.tensor([[0, 0, 0, 1], [0, 0, 1, 2]]))
    return torch.zeros(B, s, dtype=torch.bool), torch.zeros(B, s, dtype=torch.int64)
'''}, "hostile: reassigns the grader's helpers")
