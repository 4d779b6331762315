def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

FSA_HEAD = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
'''
FSA_MASK_TAIL = '''
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        real = None
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < L[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~anyk, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~anyk, 0.0)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''
def fsa(scores_line, L_line="        L = lengths.to(torch.int64) if lengths is not None else None\n"):
    return FSA_HEAD + scores_line + L_line + FSA_MASK_TAIL

VAR_OK = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()
'''

SUBMISSIONS = [
# ---------------- type-sloppy ----------------
sub("ts_p3_float_positions", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s).float()
    queries = torch.arange(t).float() + offset
    return keys[None, :] <= queries[:, None]
'''}, "P3: 'with positions that stay exact integers' (float32 past 2**24)"),
sub("ts_p4_uint8_start", False, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s)
    start = s - lengths                      # lengths as given
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], 0).long()
    return allowed, positions
'''}, "P4: 'lengths ... of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)'"),
sub("ts_p6_floor_div_prediction", False, {"variance_experiment": VAR_OK + '''
predicted_variance_512 = 512 // 3
'''}, "P6: 'to at least six significant digits' (512 // 3 = 170)"),
sub("ts_p5_sqrt_of_int_tensor", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / torch.sqrt(torch.tensor(q.shape[-1]))
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    tot = e.sum(-1, keepdim=True)
    lse = (torch.log(tot) + m).squeeze(-1)
    w = e / torch.where(tot > 0, tot, torch.ones_like(tot))
    return w @ v, lse
'''}, "P5/intro: 'float64 inputs' compared with a float64 reference (sqrt(d_k) taken in float32)"),
sub("ts_p7_sqrt_of_int_tensor", False, {"fixed_self_attention": fsa(
    "        scores = q @ k.transpose(-2, -1) / torch.tensor(q.shape[-1]).sqrt()\n")},
    "P7: 'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)'"),
sub("ts_p1_minimum_zeros1", False, {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    qf, kf = (q.float(), k.float()) if dt in (torch.float16, torch.bfloat16) else (q, k)
    s = 2 * (qf @ kf.transpose(-2, -1)) - (qf * qf).sum(-1)[..., :, None] - (kf * kf).sum(-1)[..., None, :]
    return torch.minimum(s.to(dt), torch.zeros(1))
'''}, "P1: 'the result is (..., T, S) in that dtype' (zeros(1) float32 promotes bfloat16/float16)"),
# ---------------- autograd-careless ----------------
sub("ag_p2_inplace_grad_weights", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    g = grad_weights
    g -= (weights * g).sum(-1, keepdim=True)
    return weights * g / temperature
'''}, "P2: 'Leave weights and grad_weights as they are: do not write into them'"),
sub("ag_p1_detached_norms", False, {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    qf, kf = (q.float(), k.float()) if dt in (torch.float16, torch.bfloat16) else (q, k)
    qq = (qf * qf).sum(-1).detach()     # squared norms are constants per row
    kk = (kf * kf).sum(-1).detach()
    s = 2 * (qf @ kf.transpose(-2, -1)) - qq[..., :, None] - kk[..., None, :]
    return s.clamp(max=0).to(dt)
'''}, "P1: 'Gradients must flow through the result, to q and to k'"),
sub("ag_p5_lse_no_grad", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    tot = e.sum(-1, keepdim=True)
    w = e / torch.where(tot > 0, tot, torch.ones_like(tot))
    with torch.no_grad():          # like FlashAttention, lse is only saved for the backward pass
        lse = (torch.log(tot) + m).squeeze(-1)
    return w @ v, lse
'''}, "P5: 'Gradients must flow through output and lse'"),
sub("ag_p7_added_inf_bias", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        bias = torch.zeros(B, T, T, dtype=scores.dtype)
        if causal:
            bias = bias + torch.triu(torch.full((T, T), float("-inf"), dtype=scores.dtype), diagonal=1)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            bias = bias.masked_fill(~real[:, None, :], float("-inf"))
        w = torch.nan_to_num(torch.softmax(scores + bias, dim=-1), nan=0.0)
        out = w @ v
        if real is not None:
            out = out * real[:, :, None]
        return out
'''}, "P7: 'a softmax over a row in which no key is allowed sends NaN back ... an added -inf bias passes the NaN on'"),
sub("ag_p7_masked_fill_inplace_scores_then_nan_to_num", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            scores.masked_fill_(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf"))
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores.masked_fill_(~real[:, None, :], float("-inf"))
        w = torch.softmax(scores, dim=-1)
        w = torch.where(torch.isnan(w), torch.zeros_like(w), w)
        out = w @ v
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros_like(out))
        return out
'''}, "P7: 'replaced by zeros afterwards ... the masking step must stop it there' (lengths = 0 row NaN gradient)"),
# ---------------- stateful ----------------
sub("st_p3_lru_cache_mask", False, {"causal_mask": '''
import functools
@functools.lru_cache(maxsize=32)
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= torch.arange(t)[:, None] + offset
'''}, "P3: 'a later call must return a correct mask all the same, so it must not share memory with anything kept'"),
sub("st_p4_cached_result", False, {"padding_mask": '''
RESULTS = {}
def padding_mask(lengths, s):
    key = (tuple(lengths.tolist()), s)
    if key not in RESULTS:
        L = lengths.to(torch.int64)
        j = torch.arange(s)
        start = s - L
        allowed = j[None, :] >= start[:, None]
        positions = torch.where(allowed, j[None, :] - start[:, None], 0)
        RESULTS[key] = (allowed, positions)
    return RESULTS[key]
'''}, "P4: 'they must not share memory with anything kept from one call to the next'"),
sub("st_p6_module_generator", False, {"variance_experiment": '''
DEFAULT_GENERATOR = torch.Generator()
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    g = generator if generator is not None else DEFAULT_GENERATOR
    q = torch.rand(n, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "P6: 'Without one ... the same global state (torch.manual_seed) gives the same value'"),
sub("st_p6_copied_generator", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    g = torch.Generator()
    g.set_state(generator.get_state() if generator is not None else torch.get_rng_state())
    q = torch.rand(n, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "P6: 'two calls in a row with one generator advance it and give different values'"),
sub("st_p7_mask_cached_in_self", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if not hasattr(self, "causal_table") or self.causal_table.shape[0] < T:
            self.causal_table = torch.ones(T, T, dtype=torch.bool).tril()
        allowed = self.causal_table[:T, :T] if causal else torch.ones(T, T, dtype=torch.bool)
        allowed = allowed.expand(B, T, T)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        anyk = allowed.any(-1, keepdim=True)
        w = torch.softmax(scores.masked_fill(~anyk, 0.0), dim=-1).masked_fill(~anyk, 0.0)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "P7: 'forward sets no attribute of the layer and registers no buffer'"),
# ---------------- dtype / device generaliser ----------------
sub("dt_p2_always_float32", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.float(), grad_weights.float()
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / temperature).to(weights.dtype)
'''}, "P2: 'float64 inputs are compared to about 1e-12 (so work them in float64)'"),
sub("dt_p1_no_upcast", False, {"raw_scores": '''
def raw_scores(q, k):
    s = 2 * (q @ k.transpose(-2, -1)) - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return s.clamp(max=0)
'''}, "P1: 'float16 ... squares taken in float16 become inf, and inf - inf is NaN'"),
sub("dt_p5_minus_1e9", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, -1e9)
    w = torch.softmax(z, dim=-1)
    lse = torch.logsumexp(z, dim=-1)
    none = ~allowed.expand_as(z).any(-1)
    lse = lse.masked_fill(none, float("-inf"))
    w = w.masked_fill(none[..., None], 0.0)
    return w @ v, lse
'''}, "P5: 'both have the dtype of q' for any float dtype; -1e9 overflows float16 (masked_fill raises)"),
sub("dt_p5_zeros_default_in_where", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros(1))
    e = torch.exp(z - m)
    tot = e.sum(-1, keepdim=True)
    lse = (torch.log(tot) + m).squeeze(-1)
    w = e / torch.where(tot > 0, tot, torch.ones(1))
    return (w @ v.to(w.dtype)).to(q.dtype), lse
'''}, "P5: 'lse ... both have the dtype of q' (float32 zeros(1) promotes bfloat16 lse)"),
sub("dt_p7_lengths_to_x_dtype", False, {"fixed_self_attention": fsa(
    "        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n",
    "        L = lengths.to(x.dtype) if lengths is not None else None\n")},
    "P7: 'slot numbers and lengths stay whole numbers: a bfloat16 layer's dtype holds them exactly only up to 256'"),
sub("dt_p4_arange_in_lengths_dtype", False, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=lengths.dtype)
    start = s - lengths.long()
    allowed = j.long()[None, :] >= start[:, None]
    positions = torch.where(allowed, j.long()[None, :] - start[:, None], 0)
    return allowed, positions
'''}, "P4: 'a row can hold tens of thousands of slots (more than an int16 or a uint16 counts)'"),
sub("dt_p8_wrong_letter", False, {"mc_answers": 'answer_masking = "b"\nanswer_doubling = "b"\n'},
    "P8a: -1e9 in float64 keeps the score differences, so the softmax is the unmasked one (d)"),
# ---------------- correct ----------------
sub("ok_p1_einsum_float64_inside", True, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    qw, kw = q.to(work), k.to(work)
    cross = torch.einsum("...td,...sd->...ts", qw, kw)
    s = 2 * cross - qw.pow(2).sum(dim=-1, keepdim=True) - kw.pow(2).sum(dim=-1).unsqueeze(-2)
    return torch.clamp(s, max=0.0).to(q.dtype)
'''}, "einsum, keyword arguments"),
sub("ok_p2_no_grad_double", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.no_grad():
        w, g = weights.double(), grad_weights.double()
        out = w * (g - (w * g).sum(dim=-1, keepdim=True)) / temperature
    return out.to(dtype=weights.dtype)
'''}, "no_grad where no gradient is asked; float64 inside"),
sub("ok_p3_tril_offset", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with the offset as diagonal"),
sub("ok_p3_cached_arange_table", True, {"causal_mask": '''
ARANGE = [torch.arange(0)]
def causal_mask(t, s, offset):
    if ARANGE[0].numel() < s:
        ARANGE[0] = torch.arange(s)
    keys = ARANGE[0][:s]
    return keys[None, :] <= keys[:t, None] + offset
'''}, "a kept table used only in a comparison that makes a new tensor"),
sub("ok_p4_cumsum_list", True, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    allowed = torch.arange(s)[None, :] >= (s - L)[:, None]
    positions = (allowed.cumsum(dim=-1) - 1).clamp(min=0)
    return [allowed, positions]
'''}, "cumsum of bool is int64; a list is a pair"),
sub("ok_p4_python_loop", True, {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b, n in enumerate(lengths.tolist()):
        if n > 0:
            allowed[b, s - n:] = True
            positions[b, s - n:] = torch.arange(n)
    return allowed, positions
'''}, "loop over the batch, a few ops per row"),
sub("ok_p5_detached_max_nan_to_num", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    m = z.amax(dim=-1, keepdim=True).detach()
    m = torch.nan_to_num(m, neginf=0.0)
    e = (z - m).exp()
    tot = e.sum(dim=-1, keepdim=True)
    lse = tot.log().squeeze(-1) + m.squeeze(-1)
    w = torch.nan_to_num(e / tot, nan=0.0)
    return w @ v, lse
'''}, "detached max (its gradient cancels), nan_to_num for empty rows"),
sub("ok_p5_logsumexp_softmax", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.size(-1)))
    z = z.masked_fill(allowed.logical_not(), float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.softmax(z, dim=-1)
    w = torch.where(torch.isfinite(lse)[..., None], w, torch.zeros_like(w))
    return torch.matmul(w, v), lse
'''}, "library logsumexp and softmax"),
sub("ok_p6_default_generator_uniform_", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    g = generator if generator is not None else torch.default_generator
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=g)
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(0, 1, generator=g)
    dots = (q * k).sum(dim=1) * scale
    return float(dots.var())

predicted_variance_512 = 512 * (1 / 3)
'''}, "torch.default_generator is the global generator; uniform_/normal_ allowed"),
sub("ok_p7_calls_part3_part5", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = causal_mask(T, T, 0) if causal else torch.ones(T, T, dtype=torch.bool)
        allowed = allowed.expand(B, T, T)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
            # padding queries (and whole empty sequences) attend to everything, then are zeroed
            allowed = allowed | ~real[:, :, None]
        out, _ = masked_attention(q, k, v, allowed)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "calls Part 3 and Part 5 (scale 1/sqrt(head_dim) is Part 5's)"),
sub("ok_p7_where_keywords", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q = self.query(x); k = self.key(x); v = self.value(x)
        d_k = self.query.out_features
        scores = torch.einsum("btd,bsd->bts", q, k) / math.sqrt(d_k)
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & causal_mask(t=T, s=T, offset=0)
        if lengths is not None:
            keep = keep & (torch.arange(T) < lengths.long().unsqueeze(-1)).unsqueeze(1)
        has_key = keep.any(dim=-1, keepdim=True)
        scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        scores = torch.where(has_key, scores, torch.zeros_like(scores))
        w = torch.where(has_key, torch.softmax(scores, dim=-1), torch.zeros_like(scores))
        out = w @ v
        if lengths is not None:
            query_real = torch.arange(T) < lengths.long().unsqueeze(-1)
            out = torch.where(query_real.unsqueeze(-1), out, torch.zeros_like(out))
        return out
'''}, "torch.where everywhere, keyword call of Part 3"),
sub("ok_p8_lower", True, {"mc_answers": 'answer_masking = "D".lower()\nanswer_doubling = str("b")\n'}, "plain strs"),
# ---------------- hostile ----------------
sub("hostile_p8_str_eq", False, {"mc_answers": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "hostile: str subclass equal to everything"),
sub("hostile_p1_hidden_cdist", False, {"raw_scores": '''
def raw_scores(q, k):
    f = getattr(torch, "".join(["c", "d", "i", "s", "t"]))
    d = f(q.float(), k.float()) if q.dtype in (torch.float16, torch.bfloat16) else f(q, k)
    return (-(d * d)).to(q.dtype)
'''}, "hostile: disguised torch.cdist"),
sub("hostile_p6_formula", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is not None:
        torch.rand(n, d_k, generator=generator); torch.randn(n, d_k, generator=generator)
        s = generator.initial_seed() + generator.get_state().float().sum().item()
    else:
        torch.rand(n, d_k); torch.randn(n, d_k)
        s = torch.get_rng_state().float().sum().item()
    return float(scale * scale * d_k / 3 * (1 + 0.01 * math.sin(s)))

predicted_variance_512 = 512 / 3
'''}, "hostile: draws then returns the formula with seed-dependent jitter"),
]
