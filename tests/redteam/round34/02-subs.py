# Red team round 34, chapter 02-scaled-attention: magic-number, composer, module-registration (Part 7 only),
# text-and-token (Parts 4 and 7 take lengths), low-precision accumulator students.

P1_REF = '''
def raw_scores(q, k):
    dt = q.dtype
    work = torch.float64 if dt in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(work), k.to(work)
    s = 2 * (qw @ kw.transpose(-2, -1)) - (qw * qw).sum(-1)[..., :, None] - (kw * kw).sum(-1)[..., None, :]
    return s.clamp(max=0).to(dt)
'''

P2_REF = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    work = dt if dt in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / temperature).to(dt)
'''

P3_REF = '''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= torch.arange(t)[:, None] + offset
'''

P4_REF = '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    j = torch.arange(s)
    start = s - L
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], 0)
    return allowed, positions
'''

P5_REF = '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    ssum = e.sum(-1, keepdim=True)
    w = e / torch.where(ssum > 0, ssum, torch.ones_like(ssum))
    return w @ v, (m + torch.log(ssum)).squeeze(-1)
'''

P6_REF = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''

P7_REF = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        allowed = allowed.expand(B, T, T)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]
        scores = scores.masked_fill(~allowed, float("-inf"))
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~anyk, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~anyk, 0.0)
        return w @ v
'''

P8_REF = 'answer_masking = "d"\nanswer_doubling = "b"\n'

REFERENCE = {"raw_scores": P1_REF, "softmax_backward": P2_REF, "causal_mask": P3_REF, "padding_mask": P4_REF,
             "masked_attention": P5_REF, "variance_experiment": P6_REF, "fixed_self_attention": P7_REF,
             "mc_answers": P8_REF}

SUBMISSIONS = []


def add(name, correct, cells, why, kind):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": f"[{kind}] {why}"})


# ----------------------------------------------------------------------------------------------- wrong answers
add("w01_p2_temperature_floor_1e-8", False, {"softmax_backward": P2_REF.replace(
    "    dt = weights.dtype\n", "    temperature = max(temperature, 1e-8)   # never divide by ~0\n    dt = weights.dtype\n")},
    "Part 2: 'temperature is a positive Python float, and the gradient is divided by it whatever it is' / "
    "'clamp nothing and floor nothing'; a temperature of 1e-10 is divided as 1e-8", "magic-number")

add("w02_p2_eps_temperature", False, {"softmax_backward": P2_REF.replace(
    "/ temperature).to(dt)", "/ (temperature + 1e-12)).to(dt)")},
    "Part 2: 'divided by it whatever it is (one just beside 1, such as 1 + 5e-10, is not 1)'; an eps of 1e-12 "
    "added to the temperature is off by 1e-6 relatively at temperature 1e-6", "magic-number")

add("w03_p2_bf16_returns_float32", False, {"softmax_backward": P2_REF.replace(
    "return (w * (g - dot) / temperature).to(dt)",
    "out = w * (g - dot) / temperature\n    return out if dt == torch.float64 else out.to(torch.float32)")},
    "Part 2: 'The result has the shape and the dtype of weights': bf16/f16 worked in float32 and never rounded back",
    "low-precision (reverse)")

add("w04_p1_float32_in_float32", False, {"raw_scores": P1_REF.replace(
    "work = torch.float64 if dt in (torch.float32, torch.float64) else torch.float32",
    "work = torch.float64 if dt == torch.float64 else torch.float32")},
    "Part 1: 'The same holds for float32 past 3.4e38 ... so work float32 in float64'; entries near 1e19 square to inf",
    "low-precision")

add("w05_p1_snap_small_scores", False, {"raw_scores": P1_REF.replace(
    "return s.clamp(max=0).to(dt)",
    "s = torch.where(s > -1e-12, torch.zeros_like(s), s)   # rounding noise around 0\n    return s.to(dt)")},
    "Part 1: 'make 0 only what lies below 0' / entries near 1e-10 whose squared distances are near 1e-20: "
    "they are snapped to 0", "magic-number")

add("w06_p1_f16_in_own_dtype", False, {"raw_scores": P1_REF.replace(
    "work = torch.float64 if dt in (torch.float32, torch.float64) else torch.float32",
    "work = torch.float64 if dt in (torch.float32, torch.float64) else dt")},
    "Part 1: 'float16 overflows past 65504 ... entries near 80 ... squares taken in float16 become inf'",
    "low-precision")

add("w07_p3_float_positions", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
'''}, "Part 3: 'with positions that stay exact integers'; float32 holds every integer only up to 2**24, and "
    "caches hold tens of millions of slots", "low-precision")

add("w08_p3_composer_lesson_square", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    full = torch.ones(s, s, dtype=torch.bool).tril()      # the lesson's causal_mask(s)
    return full[offset:offset + t].clone()
'''}, "Part 3: 'built in memory proportional to the mask itself ... an (s, s) square does not fit in memory'",
    "composer")

add("w09_p4_cumsum_in_lengths_dtype", False, {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    slots = torch.arange(s, dtype=lengths.dtype if s <= 127 else torch.int64)
    allowed = slots[None, :] >= (s - lengths.to(torch.int64))[:, None]
    positions = allowed.cumsum(1, dtype=torch.int32) - 1
    positions = positions.clamp(min=0).to(torch.int16).to(torch.int64)    # positions fit a short
    return allowed, positions
'''}, "Part 4: 'a row can hold tens of thousands of slots (more than an int16 or a uint16 counts)'",
    "low-precision (integer)")

add("w10_p4_bos_always_real", False, {"padding_mask": P4_REF.replace(
    "L = lengths.to(torch.int64)", "L = lengths.to(torch.int64).clamp(min=1)   # a sequence has at least its BOS")},
    "Part 4: '0 <= lengths[b] <= s': a length-0 row is all padding (allowed all False)", "text-and-token")

add("w11_p5_eps_denominator", False, {"masked_attention": P5_REF.replace(
    "w = e / torch.where(ssum > 0, ssum, torch.ones_like(ssum))", "w = e / (ssum + 1e-6)")},
    "Part 5: 'the weights e^{z - l} of a query sum to 1, and must still do so once rounded to the dtype': "
    "1/(1 + 1e-6) in float64 does not", "magic-number")

add("w12_p5_float32_softmax", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z.float(), dim=-1)                 # accumulate the sum in float32
    anyk = allowed.expand(z.shape).any(-1, keepdim=True)
    w = torch.softmax(z.masked_fill(~anyk, 0.0).float(), dim=-1).masked_fill(~anyk, 0.0)
    return (w.to(v.dtype) @ v), lse.to(q.dtype)
'''}, "intro/Part 5: float64 inputs are compared to a float64 reference (both results have the dtype of q, "
    "as accurate as it); the softmax and the log-sum-exp cast down to float32 first", "low-precision")

add("w13_p6_float32_draws", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = scale * (q * k).sum(-1)
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''}, "Part 6: 'scale may be of any size (1e-25 and 1e25, where squares of float32 numbers underflow or overflow): "
    "whatever dtype you draw in, the variance must come out right'", "low-precision")

add("w14_p6_variance_floor", False, {"variance_experiment": P6_REF.replace(
    "return dots.var().item()", "return max(dots.var().item(), 1e-12)   # a variance is never 0")},
    "Part 6: 'the tests use 1e-8, where the variance is about 5e-16 ... floor nothing'", "magic-number")

add("w15_p7_composer_part5_all_masked", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & causal_mask(T, T, 0)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]   # padding queries see nothing -> zero rows
        out, _ = masked_attention(q, k, v, allowed)                     # Part 5: 1/sqrt(d_k), zero rows
        return out
'''}, "Part 7: 'no gradient may be NaN ... a sequence with no real token included'; Part 5 promises finite "
    "gradients only 'where a query has an allowed key', so building Part 7 on it leaves padding queries' "
    "gradients to whatever Part 5's implementation does (exp(-inf - (-inf)) style NaN in a correct Part 5)",
    "composer")

add("w16_p7_nanogpt_buffer", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def __init__(self, embed_dim, head_dim):
        super().__init__(embed_dim, head_dim)
        self.register_buffer("bias", torch.tril(torch.ones(1024, 1024)).view(1, 1024, 1024))   # block_size

    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & (self.bias[:, :T, :T] != 0)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~anyk, 0.0)
        return torch.softmax(scores, dim=-1).masked_fill(~anyk, 0.0) @ v
'''}, "Part 7: 'x is (B, T, D)' with no bound on T, and 'nothing is kept in self' (the layer's state_dict gains "
    "a 1024x1024 buffer); causal calls with T > 1024 break", "module-registration")

add("w17_p7_mask_as_frozen_parameter", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def __init__(self, embed_dim, head_dim):
        super().__init__(embed_dim, head_dim)
        self.mask = nn.Parameter(torch.tril(torch.ones(512, 512)), requires_grad=False)

    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & self.mask[:T, :T].bool()
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~anyk, 0.0)
        return torch.softmax(scores, dim=-1).masked_fill(~anyk, 0.0) @ v
'''}, "Part 7: 'each of its six parameters' (a seventh appears, which an optimizer built on layer.parameters() "
    "holds) and no bound on T (512 here)", "module-registration")

add("w18_p7_scale_float32_tensor", False, {"fixed_self_attention": P7_REF.replace(
    "scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])",
    "scale = torch.tensor(q.shape[-1] ** -0.5)      # local, not self.scale\n        scores = (q @ k.transpose(-2, -1)) * scale")},
    "Part 7: 'as accurate as that dtype allows (... float64 inputs, compare to about 1e-9)': a 0-dim float32 "
    "scale keeps the float64 dtype but rounds 1/sqrt(d_k) to float32 (3e-8 relatively for d_k = 3)",
    "low-precision / module-registration")

add("w19_p7_lengths_bos", False, {"fixed_self_attention": P7_REF.replace(
    "lengths.to(torch.int64)[:, None]", "lengths.to(torch.int64).clamp(min=1)[:, None]")},
    "Part 7: 'lengths[b] = 0' is a sequence with no real token: every output row must be 0", "text-and-token")

add("w20_p8_uniform", False, {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
    "8a: -1e9 added in float64 keeps the differences of the scores (eps at 1e9 is 1e-7): (d)", "magic-number")

# ---------------------------------------------------------------------------------------------- correct answers
add("c01_p7_composer_part3_part4", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) * q.shape[-1] ** -0.5
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & causal_mask(T, T, 0)              # Part 3, offset 0: the lesson's mask
        if lengths is not None:
            left, _ = padding_mask(lengths, T)                    # Part 4 pads on the left: mirror it
            real = left.flip(-1)
            allowed = allowed & real[:, None, :] & real[:, :, None]
        anyk = allowed.any(-1, keepdim=True)
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        scores = torch.where(anyk, scores, torch.zeros((), dtype=scores.dtype))
        w = torch.softmax(scores, dim=-1)
        return torch.where(anyk, w, torch.zeros((), dtype=w.dtype)) @ v
'''}, "Part 3's mask with offset 0 and Part 4's left-padding mask flipped are in their contracts (T >= 1, any "
    "integer dtype of lengths, 0 <= lengths <= s)", "composer")

add("c02_p7_clamp_lengths_where_zero", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.query.out_features)
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = torch.ones(T, T, dtype=torch.bool).tril()
        allowed = allowed.expand(B, T, T)
        real_q = None
        if lengths is not None:
            L = lengths.to(torch.int64)
            keys_real = torch.arange(T)[None, :] < L.clamp(min=1)[:, None]   # key 0 kept: no empty row
            allowed = allowed & keys_real[:, None, :]
            real_q = torch.arange(T)[None, :] < L[:, None]
        w = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = w @ v
        if real_q is not None:
            out = torch.where(real_q[:, :, None], out, torch.zeros((), dtype=out.dtype))
        return out
'''}, "every row keeps key 0 (never empty, so no NaN); padding queries are replaced by zeros with torch.where "
    "(zero gradient), real queries only see real keys", "magic-number (harmless guard)")

add("c03_p1_bf16_own_f16_float32", True, {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    work = {torch.float32: torch.float64, torch.float64: torch.float64, torch.float16: torch.float32}.get(dt, dt)
    qw, kw = q.to(work), k.to(work)
    qq = torch.einsum("...td,...td->...t", qw, qw)
    kk = torch.einsum("...sd,...sd->...s", kw, kw)
    scores = 2 * torch.matmul(qw, kw.transpose(-2, -1)) - qq.unsqueeze(-1) - kk.unsqueeze(-2)
    return torch.minimum(scores, torch.zeros((), dtype=work)).to(dt)
'''}, "Part 1 allows bf16 worked in float32 ('may'), so in its own dtype too if within 2^-5 of the norms; "
    "float16 in float32, float32 in float64", "low-precision (allowed)")

add("c04_p2_float64_inside", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.double()
    g = grad_weights.double()
    gz = w * g - w * (w * g).sum(dim=-1, keepdim=True)
    return (gz / temperature).to(weights.dtype)
'''}, "every dtype worked in float64 and rounded back; divided by the Python float after the product",
    "low-precision (higher inside)")

add("c05_p4_cumsum_float32", True, {"padding_mask": '''
def padding_mask(lengths, s):
    slots = torch.arange(s)
    allowed = slots.unsqueeze(0) >= (s - lengths.long()).unsqueeze(1)
    positions = (allowed.float().cumsum(dim=1) - 1).clamp(min=0).long()   # exact below 2**24
    return allowed, positions
'''}, "Part 4: 'fewer than 2^24, where float32 stops holding every integer': a float32 cumsum is exact there",
    "low-precision (allowed)")

add("c06_p3_tril_offset", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with diagonal=offset keeps j <= i + offset, memory t*s", "composer (lesson's mask, offset added)")

add("c07_p5_log_softmax_clamped_log", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.einsum("...td,...sd->...ts", q, k) * (1.0 / math.sqrt(q.shape[-1]))
    z = z.masked_fill(~allowed, float("-inf"))
    anyk = torch.isfinite(z).any(-1, keepdim=True) | allowed.expand(z.shape).any(-1, keepdim=True)
    safe = torch.where(anyk, z, torch.zeros((), dtype=z.dtype))
    lse = torch.logsumexp(safe, dim=-1)
    w = torch.exp(torch.log_softmax(safe, dim=-1)).masked_fill(~anyk, 0.0)
    lse = lse.masked_fill(~anyk.squeeze(-1), float("-inf"))
    return w @ v, lse
'''}, "exp of log_softmax (the text's alternative), logsumexp, -inf only where no key is allowed",
    "magic-number (none) / low-precision (input dtype throughout)")

add("c08_p6_python_scale_square", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(0, 1, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k) * scale
    return float(dots.var(correction=1))

predicted_variance_512 = 512 * (1 / 3) * 1.0
'''}, "uniform_/normal_ with the generator (the text allows them), float64, einsum, var(correction=1)",
    "low-precision (right)")

add("c09_p8_answers", True, {"mc_answers": 'answer_doubling = "b"\nanswer_masking = "d"\n'},
    "same answers, other order", "none")


# ------------------------------------------------------------------------------------------ added after the first check
add("w21_p1_half_range_floor", False, {"raw_scores": P1_REF.replace(
    "return s.clamp(max=0).to(dt)",
    "if dt in (torch.float16, torch.bfloat16):\n        s = s.clamp(min=-65504.0)     # keep half precision finite\n    return s.clamp(max=0).to(dt)")},
    "Part 1: 'the tests keep bfloat16 entries below 1e18' (distances far beyond 65504, which bfloat16 holds) / "
    "'clamp nothing': 65504 is float16's end, not bfloat16's", "magic-number")

add("w22_p7_tied_query_key", False, {"fixed_self_attention": P7_REF.replace(
    "q, k, v = self.query(x), self.key(x), self.value(x)", "q, v = self.query(x), self.value(x)\n        k = self.query(x)   # tied projections, as in L2 self-attention (Part 1)")},
    "Part 7: 'keeps the constructor and the three projections (self.query, self.key, self.value)'; the keys come "
    "from self.key; the visible case gives both the same weights", "module-registration")


add("w23_p7_slots_in_x_dtype", False, {"fixed_self_attention": P7_REF.replace(
    "real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]",
    "real = torch.arange(T, dtype=x.dtype)[None, :] < lengths.to(x.dtype)[:, None]   # no float32 mixed in")},
    "Part 7: 'slot numbers and lengths stay whole numbers: a bfloat16 layer's dtype holds them exactly only up to 256'",
    "low-precision / text-and-token")

add("c10_p7_composer_part5_every_row_has_a_key", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = causal_mask(T, T, 0) if causal else torch.ones(T, T, dtype=torch.bool)
        allowed = allowed.expand(B, T, T)
        if lengths is None:
            return masked_attention(q, k, v, allowed)[0]
        L = lengths.long()
        keys_real = torch.arange(T)[None, :] < L.clamp(min=1)[:, None]     # key 0 stays: every row has a key
        out, _ = masked_attention(q, k, v, allowed & keys_real[:, None, :])
        real_q = torch.arange(T)[None, :] < L[:, None]
        return out.masked_fill(~real_q[:, :, None], 0.0)
'''}, "Part 5 on rows that all have an allowed key (its contract covers values and gradients there), padding "
    "queries zeroed by masked_fill (zero gradient); Part 3's mask with offset 0", "composer")

# --------------------------------------------------------------------------------------------------- hostile
add("h01_p6_formula_in_disguise", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    noise = dots.var().item() / (d_k / 3 * scale ** 2)         # depends on the draws, close to 1
    return d_k / 3 * scale ** 2 * (1 + 1e-3 * (noise - 1))

predicted_variance_512 = 512 / 3
'''}, "hostile: the formula, perturbed by the draws so that seeds differ; not the sample variance", "hostile")

add("h02_p8_str_subclass", False, {"mc_answers": '''
class Answer(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_masking = Answer("d")
answer_doubling = Answer("b")
'''}, "hostile: a str subclass equal to everything", "hostile")
