SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

FIXED_HEAD = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
'''

# ================= wrong: tutorial reader =================
add("t_p3_float_arange", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    rows = torch.arange(t, dtype=torch.float).unsqueeze(1) + offset
    cols = torch.arange(s, dtype=torch.float).unsqueeze(0)
    return cols <= rows
'''}, "tutorial dtype=torch.float: 'with positions that stay exact integers' (tens of millions of slots)")
add("t_p5_minus_1e4_hf_style", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    scores = scores.masked_fill(allowed == 0, -1e4)
    lse = torch.logsumexp(scores, dim=-1)
    attn = torch.softmax(scores, dim=-1)
    none = ~allowed.any(-1)
    lse = lse.masked_fill(none, float("-inf"))
    out = torch.matmul(attn, v).masked_fill(none.unsqueeze(-1), 0.0)
    return out, lse
'''}, "tutorial -1e4: 'a finite stand-in for -inf such as -1e4 lies above allowed scores of -30000'")
add("t_p6_population_variance", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    scores = scale * torch.einsum("nd,nd->n", q, k)
    return scores.var(unbiased=False).item()

predicted_variance_512 = 512 / 3
'''}, "tutorial np.var habit: 'their sample variance (Tensor.var(), which divides by n - 1)'")
add("t_p7_scale_attr_written_in_forward", False, {"fixed_self_attention": FIXED_HEAD + '''
        self.scale = q.size(-1) ** -0.5
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        mask = torch.ones(T, T, dtype=torch.bool)
        if causal:
            mask = torch.tril(mask)
        mask = mask.expand(B, T, T)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            mask = mask & real[:, None, :]
        scores = scores.masked_fill(mask == 0, float("-inf"))
        w = torch.softmax(scores, dim=-1)
        w = w.masked_fill(~mask.any(-1, keepdim=True), 0.0)
        out = torch.matmul(w, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "tutorial fixes self.scale in place: 'the layer stays as it is ... nothing is kept in self from one call to the next'")
add("t_p1_view_flatten_batch", False, {"raw_scores": '''
def raw_scores(q, k):
    *lead, T, Dh = q.shape
    S = k.size(-2)
    dt = q.dtype
    qf = q.view(-1, T, Dh).to(torch.float32) if dt in (torch.float16, torch.bfloat16) else q.view(-1, T, Dh)
    kf = k.view(-1, S, Dh).to(qf.dtype)
    s = torch.bmm(qf, kf.transpose(1, 2)) * 2 - (qf ** 2).sum(-1).unsqueeze(2) - (kf ** 2).sum(-1).unsqueeze(1)
    return s.clamp(max=0).to(dt).view(*lead, T, S)
'''}, "tutorial view: 'a transposed view or a slice with a step is as valid an input as any other'")

# ================= wrong: source reader =================
add("s_p3_square_subsequent_mask", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    # generate_square_subsequent_mask from the article, then the block's rows
    mask = (torch.triu(torch.ones(s, s)) == 1).transpose(0, 1)
    return mask[offset:offset + t].clone()
'''}, "source: 'an (s, s) square does not fit in memory'; 'built in memory proportional to the mask itself'")
add("s_p7_float32_sqrt_tensor", False, {"fixed_self_attention": FIXED_HEAD + '''
        head_dim = q.shape[-1]
        scores = torch.matmul(q, k.transpose(-2, -1)) / torch.sqrt(torch.tensor(head_dim, dtype=torch.float))
        mask = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            mask = mask & (torch.triu(torch.ones(T, T)) == 1).transpose(0, 1)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            mask = mask & real[:, None, :]
        scores = scores.masked_fill(mask == 0, float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        attn = attn.masked_fill(mask.sum(-1, keepdim=True) == 0, 0.0)
        out = torch.matmul(attn, v)
        if real is not None:
            out = out * real[:, :, None]
        return out
'''}, "source's torch.sqrt(torch.tensor(self.head_dim, dtype=torch.float)): 'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)' (float32 sqrt of a non-square head_dim)")
add("s_p6_predict_dk", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512.0   # the article: the dot product's variance is d_k
'''}, "source ('QK^T 的点积值方差' = d_k): 'Careful: the entries of q do not have mean 0' / 'for this distribution'")
add("s_p8_masked_rows_zero", False, {"mc_answers": 'answer_masking = "b"\nanswer_doubling = "b"\n'},
    "source ('该掩码将未来位置的注意力分数设置为负无穷，经过Softmax后变为0'): 8a with float64 scores")
add("s_p8_scaling_restores_unit", False, {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"\n'},
    "source/misconception (variance of a product = sigma^2 d_k, '缩放因子使点积的方差回归到1'): 8b variance 4 per entry")

# ================= wrong: hurried =================
add("h_p1_half_in_own_dtype", False, {"raw_scores": '''
def raw_scores(q, k):
    qq = (q * q).sum(-1, keepdim=True)
    kk = (k * k).sum(-1).unsqueeze(-2)
    return (2 * q @ k.transpose(-2, -1) - qq - kk).clamp(max=0)
'''}, "hurried: 'float16 overflows past 65504 ... squares taken in float16 become inf, and inf - inf is NaN'; float64 fine, bf16 accuracy")
add("h_p2_bf16_returns_float32", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights, grad_weights
    if w.dtype in (torch.float16, torch.bfloat16):
        w, g = w.float(), g.float()
    return w * (g - (w * g).sum(-1, keepdim=True)) / temperature
'''}, "hurried: 'The result has the shape and the dtype of weights'")
add("h_p4_native_dtype_arithmetic", False, {"padding_mask": '''
def padding_mask(lengths, s):
    start = (s - lengths).unsqueeze(1)
    j = torch.arange(s).unsqueeze(0)
    allowed = j >= start
    positions = (j - start).clamp(min=0)
    return allowed, positions.long()
'''}, "hurried: 'lengths ... uint8, int8 and int16 too, whose range can be smaller than s'")
add("h_p4_max_length_loop", False, {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    L = lengths.long()
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    m = int(L.max())
    ar = torch.arange(m)
    for b in range(B):
        n = int(L[b])
        if n:
            allowed[b, s - n:] = True
            positions[b, s - n:] = ar[:n]
    return allowed, positions
'''}, "hurried: 'an empty batch, B = 0, too: ... lengths.max() has no value'")
add("h_p6_scale_not_squared", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return ((q * k).sum(-1).var() * scale).item()

predicted_variance_512 = 512 / 3
'''}, "hurried: 'compute the n numbers scale * (q . k), and return their sample variance'")
add("h_p5_no_max_subtraction", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    e = torch.where(allowed, torch.exp(z), torch.zeros_like(z))
    tot = e.sum(-1)
    lse = torch.log(tot)
    out = (e / tot.unsqueeze(-1).clamp_min(1e-30)) @ v
    return out, lse
'''}, "hurried: 'scores can be large (tens of thousands, of either sign): lse and output must be finite'")
add("h_p7_keeps_float_softmax", False, {"fixed_self_attention": FIXED_HEAD + '''
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(k.shape[-1])
        mask = torch.ones(T, T, dtype=torch.bool)
        if causal:
            mask = torch.tril(mask)
        mask = mask.expand(B, T, T)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths[:, None]
            mask = mask & real[:, None, :]
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores.float(), dim=-1).type_as(scores)
        weights = torch.nan_to_num(weights, nan=0.0)
        out = torch.matmul(weights, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "hurried, fixed three bugs: 'in the dtype of x and as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)'")

# ================= wrong: careful with one misconception =================
add("m_p2_sum_over_first_axis", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    w, g = weights.double() if dt != torch.float64 else weights, grad_weights.double() if dt != torch.float64 else grad_weights
    dot = (w * g).sum(0, keepdim=True)
    return (w * (g - dot) / temperature).to(dt)
'''}, "misconception (axis): 'w = softmax(z / tau) (over the last dimension)'")
add("m_p6_predict_var_q_times_var_k", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 * (1 / 12) * 1.0   # Var(q_i) Var(k_i) per term
'''}, "misconception: 'Careful: the entries of q do not have mean 0' (Var(qk) = E[q^2] E[k^2], not Var q Var k)")
add("m_p5_bf16_result_float32", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    if q.dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    w = torch.exp(z - safe.unsqueeze(-1))
    return w @ v, lse
'''}, "misconception whose dtype wins: 'both have the dtype of q'")
add("m_p7_zero_rows_only_by_nan", True, {"fixed_self_attention": FIXED_HEAD + '''
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            # padding: mask the padding keys, and the padding queries' rows entirely
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
            scores = scores.masked_fill(~real[:, :, None], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.nan_to_num(weights, nan=0.0)
        return weights @ v
'''}, "misconception: NaN rows replaced by zeros stop the gradient ('a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced by zeros afterwards'); here masked_fill stops it, so maybe correct")
add("m_p3_offset_from_end", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    # the block's last query sits at offset + t - 1; count back from it
    i = torch.arange(t).unsqueeze(1)
    j = torch.arange(s).unsqueeze(0)
    return (j - offset) <= i
'''}, "careful, same as reference algebraically? (j - offset <= i); in int64 exact. Expected correct -> mislabel check")

# ================= correct =================
add("c_p1_float64_einsum", True, {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    q64, k64 = q.to(torch.float64), k.to(torch.float64)
    cross = torch.einsum("...td,...sd->...ts", q64, k64)
    s = 2 * cross - torch.einsum("...td,...td->...t", q64, q64)[..., :, None] - torch.einsum("...sd,...sd->...s", k64, k64)[..., None, :]
    return torch.clamp(s, max=0.0).to(dt)
'''}, "float64 inside (a copy in another dtype fits), einsum, cast back")
add("c_p2_float64_inside", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.to(torch.float64)
    g = grad_weights.to(torch.float64)
    inner = torch.einsum("...s,...s->...", w, g).unsqueeze(-1)
    return (w * (g - inner)).div(temperature).to(weights.dtype)
'''}, "float64 inside, einsum")
add("c_p3_tril_bool", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.tril(torch.ones(t, s, dtype=torch.bool), diagonal=offset)
'''}, "torch.tril of a (t, s) block with diagonal=offset: j <= i + offset")
add("c_p4_cumsum", True, {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.numel()
    ar = torch.arange(s).expand(B, s)
    allowed = ar >= (s - lengths.to(torch.int64)).unsqueeze(1)
    positions = (allowed.long().cumsum(dim=1) - 1).masked_fill(~allowed, 0)
    return allowed, positions
'''}, "cumsum of the mask")
add("c_p5_source_minus_1e9_fixed", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    d_k = q.size(-1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
    scores = scores.masked_fill(allowed == 0, -1e9)
    lse = torch.logsumexp(scores, dim=-1)
    attn = torch.softmax(scores, dim=-1)
    none = ~allowed.any(dim=-1)
    lse = lse.masked_fill(none, float("-inf"))
    out = torch.matmul(attn, v).masked_fill(none.unsqueeze(-1), 0.0)
    return out, lse
'''}, "article's masked_fill(mask == 0, -1e9), then the empty rows handled (-1e9 lies far below -30000)")
add("c_p5_nan_to_num", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = torch.einsum("...td,...sd->...ts", q, k) / math.sqrt(q.shape[-1])
    scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    lse = torch.logsumexp(scores, dim=-1)
    attn = torch.nn.functional.softmax(scores, dim=-1).nan_to_num(0.0)
    return attn @ v, lse
'''}, "torch.where + F.softmax + nan_to_num; logsumexp of an all -inf row is -inf")
add("c_p6_uniform_normal_", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(0, 1, generator=generator)
    vals = scale * torch.einsum("nd,nd->n", q, k)
    return float(vals.var())

predicted_variance_512 = 512 * (1 / 3)
'''}, "uniform_/normal_ with the generator, as the text allows")
add("c_p7_calls_parts_3_4_5", True, {"fixed_self_attention": FIXED_HEAD + '''
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = causal_mask(T, T, 0)
        real = None
        if lengths is not None:
            left, _ = padding_mask(lengths, T)
            real = left.flip(-1)          # right padding: the first lengths[b] slots
            allowed = allowed & real[:, None, :]
        out, _ = masked_attention(q, k, v, allowed)
        if real is not None:
            out = out.masked_fill(~real.unsqueeze(-1), 0.0)
        return out
'''}, "calls Part 3 (causal_mask(T, T, 0) is the lesson's mask), Part 4 (flipped left padding is right padding) and Part 5 (scale 1/sqrt(d_k) with d_k the query width)")
add("c_p7_minus_1e9_tutorial", True, {"fixed_self_attention": FIXED_HEAD + '''
        d_k = self.query.out_features
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
        mask = torch.ones(B, 1, T, dtype=torch.bool)
        if lengths is not None:
            mask = (torch.arange(T)[None, :] < lengths.to(torch.long)[:, None]).unsqueeze(1)
        if causal:
            mask = mask & torch.tril(torch.ones(T, T, dtype=torch.bool)).unsqueeze(0)
        scores = scores.masked_fill(mask == 0, -1e9)
        p_attn = scores.softmax(dim=-1)
        out = torch.matmul(p_attn, v)
        if lengths is not None:
            out = out * (torch.arange(T)[None, :] < lengths.to(torch.long)[:, None]).unsqueeze(-1).to(out.dtype)
        return out
'''}, "Annotated Transformer's masked_fill(mask == 0, -1e9); every real query has a real key, so -1e9 rows only at padding queries, zeroed")

# ================= hostile =================
add("x_p1_cdist_alias", False, {"raw_scores": '''
def raw_scores(q, k):
    f = getattr(torch, "cd" + "ist")
    return -(f(q, k) ** 2)
'''}, "hostile: torch.cdist through an alias")
add("x_p8_str_subclass", False, {"mc_answers": '''
class Letter(str):
    def __eq__(self, o): return True
    def __hash__(self): return 1
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "hostile: letters equal to everything")
add("x_p6_float_subclass", False, {"variance_experiment": '''
class F(float):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __sub__(self, o): return F(0.0)
    def __rsub__(self, o): return F(0.0)
    def __abs__(self): return F(0.0)
    def __lt__(self, o): return True
    def __le__(self, o): return True
    def __gt__(self, o): return True
    def __ge__(self, o): return True
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    torch.rand(n, d_k, generator=generator); torch.randn(n, d_k, generator=generator)
    return F(1.0)
predicted_variance_512 = F(1.0)
'''}, "hostile: a float subclass equal to everything")
