# Red-team round 12, chapter 02-scaled-attention: submissions written blind from the student notebook.
P1 = '''
def raw_scores(q, k):
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k = q.float(), k.float()
    qq = (q * q).sum(-1)
    kk = (k * k).sum(-1)
    s = 2 * (q @ k.transpose(-2, -1)) - qq[..., :, None] - kk[..., None, :]
    return s.clamp(max=0).to(dt)
'''
P2 = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    w, g = weights, grad_weights
    if dt in (torch.float16, torch.bfloat16):
        w, g = w.float(), g.float()
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / temperature).to(dt)
'''
P3 = '''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (torch.arange(t) + offset)[:, None]
'''
P4 = '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    j = torch.arange(s)
    start = s - L
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], 0)
    return allowed, positions
'''
P5 = '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isfinite(lse), lse, torch.zeros_like(lse))
    w = torch.exp(z - safe[..., None])
    return w @ v, lse
'''
P6 = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''
P7 = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]
        scores = scores.masked_fill(~allowed, float("-inf"))
        scores = scores.masked_fill(~allowed.any(-1, keepdim=True), 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        return w @ v
'''
P8 = 'answer_masking = "d"\nanswer_doubling = "b"\n'
DEFAULT = {"raw_scores": P1, "softmax_backward": P2, "causal_mask": P3, "padding_mask": P4, "masked_attention": P5,
           "variance_experiment": P6, "fixed_self_attention": P7, "mc_answers": P8}

def W(name, cell, code, why):
    return {"name": name, "correct": False, "cells": {cell: code}, "why": why}
def C(name, cells, why):
    return {"name": name, "correct": True, "cells": cells, "why": why}

SUBMISSIONS = [
 # ---------------- Part 1
 W("p1_broadcast_difference", "raw_scores", '''
def raw_scores(q, k):
    return -((q[..., :, None, :] - k[..., None, :, :]) ** 2).sum(-1)
''', "P1 Memory: 'no tensor your function creates ... may hold more than twice as many elements'"),
 W("p1_cdist", "raw_scores", '''
def raw_scores(q, k):
    return -torch.cdist(q, k) ** 2
''', "P1: 'Do not call torch.cdist ... (the tests refuse it)'"),
 W("p1_no_upcast_half", "raw_scores", '''
def raw_scores(q, k):
    s = 2 * (q @ k.transpose(-2, -1)) - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return s.clamp(max=0)
''', "P1 Accuracy: 'float16 overflows ... squares taken in float16 become inf, and inf - inf is NaN'"),
 W("p1_float32_always", "raw_scores", P1.replace("if dt in (torch.float16, torch.bfloat16):\n        q, k = q.float(), k.float()", "q, k = q.float(), k.float()"),
   "P1 Accuracy: 'computing a float64 input in float32 is off by more'"),
 W("p1_sqrt_then_square", "raw_scores", P1.replace("return s.clamp(max=0).to(dt)", "d = torch.sqrt((-s).clamp(min=0))\n    return (-(d * d)).to(dt)"),
   "P1 Sign: 'raw_scores(x, x) ... whose score is 0 ..., also in their gradients': sqrt at 0 sends NaN back"),
 W("p1_bmm_or_mm", "raw_scores", '''
def raw_scores(q, k):
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k = q.float(), k.float()
    qk = q @ k.T if q.dim() == 2 else torch.bmm(q, k.transpose(1, 2))
    s = 2 * qk - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return s.clamp(max=0).to(dt)
''', "P1: 'q is (..., T, Dh) ... with the same leading dimensions ... (possibly none)': only none or one"),
 # ---------------- Part 2
 W("p2_jacobian_matrix", "softmax_backward", '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    J = torch.diag_embed(weights) - weights[..., :, None] * weights[..., None, :]
    return (J @ grad_weights[..., :, None])[..., 0] / temperature
''', "P2: 'no tensor your function creates may hold more than twice as many elements as weights, so an (..., S, S) Jacobian is out'"),
 W("p2_autograd_recompute", "softmax_backward", '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.enable_grad():
        z = (torch.log(weights) * temperature).detach().requires_grad_()
        w = torch.softmax(z / temperature, dim=-1)
        return torch.autograd.grad(w, z, grad_weights)[0]
''', "P2: 'never the scores ... torch's own softmax backward (torch._softmax_backward_data ...) is refused'"),
 W("p2_float32_always", "softmax_backward", P2.replace("if dt in (torch.float16, torch.bfloat16):\n        w, g = w.float(), g.float()", "w, g = w.float(), g.float()"),
   "P2: 'float64 inputs are compared to about 1e-12 (so work them in float64)'"),
 W("p2_half_not_cast_back", "softmax_backward", P2.replace("return (w * (g - dot) / temperature).to(dt)", "return w * (g - dot) / temperature"),
   "P2: 'The result has the shape and the dtype of weights'"),
 # ---------------- Part 3
 W("p3_float_positions", "causal_mask", '''
def causal_mask(t, s, offset):
    j = torch.arange(s, dtype=torch.float32)
    i = torch.arange(t, dtype=torch.float32) + offset
    return j[None, :] <= i[:, None]
''', "P3: 'with positions that stay exact integers' (float32 past 2**24, tens of millions of slots)"),
 W("p3_square_then_slice", "causal_mask", '''
def causal_mask(t, s, offset):
    return torch.tril(torch.ones(s, s, dtype=torch.bool))[offset:offset + t].clone()
''', "P3: 'built in memory proportional to the mask itself ... an (s, s) square does not fit in memory'"),
 W("p3_lru_cache", "causal_mask", '''
import functools
@functools.lru_cache(maxsize=None)
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (torch.arange(t) + offset)[:, None]
''', "P3: 'a later call must return a correct mask ..., so it must not share memory with anything kept from one call to the next'"),
 # ---------------- Part 4
 W("p4_arith_in_lengths_dtype", "padding_mask", '''
def padding_mask(lengths, s):
    j = torch.arange(s)
    start = (s - lengths).long()
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], 0)
    return allowed, positions
''', "P4: 'lengths ... of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)': s - lengths wraps"),
 W("p4_per_slot_loop", "padding_mask", '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        n = int(lengths[b])
        for i in range(n):
            allowed[b, s - n + i] = True
            positions[b, s - n + i] = i
    return allowed, positions
''', "P4: 'a loop that runs a torch operation for every slot ... is too slow ... allow a few dozen per row'"),
 W("p4_result_cache", "padding_mask", '''
RESULTS = {}
def padding_mask(lengths, s):
    key = (tuple(int(v) for v in lengths), s)
    if key not in RESULTS:
        L = lengths.to(torch.int64)
        j = torch.arange(s)
        start = s - L
        allowed = j[None, :] >= start[:, None]
        RESULTS[key] = (allowed, torch.where(allowed, j[None, :] - start[:, None], 0))
    return RESULTS[key]
''', "P4: 'they must not share memory with anything kept from one call to the next'"),
 W("p4_positions_int32", "padding_mask", P4.replace("return allowed, positions", "return allowed, positions.to(torch.int32).long() if s < 2**15 else positions.to(torch.int16).long()"),
   "P4: 'a row can hold tens of thousands of slots (more than an int16 ... counts)' (a student narrowing to save memory)"),
 # ---------------- Part 5
 W("p5_fill_minus_1e4", "masked_attention", '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, -1e4)
    lse = torch.logsumexp(z, dim=-1)
    w = torch.softmax(z, dim=-1)
    none = ~allowed.any(-1).expand(lse.shape)
    lse = lse.masked_fill(none, float("-inf"))
    return (w @ v).masked_fill(none[..., None], 0.0), lse
''', "P5: 'a finite stand-in for -inf such as -1e4 lies above allowed scores of -30000'"),
 W("p5_max_over_all_keys", "masked_attention", '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    m = z.amax(-1, keepdim=True)
    e = torch.exp(z - m) * allowed
    s = e.sum(-1, keepdim=True)
    lse = (m + torch.log(s))[..., 0]
    out = (e / torch.where(s > 0, s, torch.ones_like(s))) @ v
    return out, lse
''', "P5: 'a masked key counts for nothing however its score compares with the allowed ones (... masked keys scores tens of thousands above every allowed one)'"),
 W("p5_boolean_index_assign", "masked_attention", '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z[~allowed] = float("-inf")
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isfinite(lse), lse, torch.zeros_like(lse))
    return torch.exp(z - safe[..., None]) @ v, lse
''', "P5: 'allowed ... broadcasts to the shape of the scores: ... a (T, S) causal mask shared by the batch, a (B, 1, S) padding mask'"),
 W("p5_no_max_subtraction", "masked_attention", '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    e = torch.exp(z.masked_fill(~allowed, float("-inf")))
    s = e.sum(-1, keepdim=True)
    out = (e / torch.where(s > 0, s, torch.ones_like(s))) @ v
    return out, torch.log(s)[..., 0]
''', "P5: 'scores can be large (tens of thousands ...): lse and output must be finite'"),
 # ---------------- Part 6
 W("p6_global_seed_from_generator", "variance_experiment", '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is not None:
        torch.manual_seed(generator.initial_seed())
    q = torch.rand(n, d_k, dtype=torch.float64)
    k = torch.randn(n, d_k, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
''', "P6: 'Draw every random number from generator ... not even one seeded from generator.initial_seed() ... nothing may come from (or reseed) torch's global generator'"),
 W("p6_own_generator_from_seed", "variance_experiment", '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    g = torch.Generator().manual_seed(generator.initial_seed() if generator is not None else 0)
    q = torch.rand(n, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
''', "P6: 'none from a generator of your own ... a fresh torch.Generator() of your own would return the same value at every call'"),
 W("p6_biased_variance", "variance_experiment", P6.replace(".var().item()", ".var(correction=0).item()"),
   "P6: 'return their sample variance (Tensor.var(), which divides by n - 1)'"),
 W("p6_mean_of_squares", "variance_experiment", P6.replace("return (scale * (q * k).sum(-1)).var().item()", "return (scale * (q * k).sum(-1)).pow(2).mean().item()"),
   "P6: 'any other statistic with the right mean (the mean of the squares, say) shows'"),
 W("p6_normal_q", "variance_experiment", P6.replace("q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)", "q = 0.5 + torch.randn(n, d_k, generator=generator, dtype=torch.float64) / math.sqrt(12)"),
   "P6: 'normal entries with the uniform's mean and variance give the same variance of q.k but not these inputs'"),
 W("p6_one_q_for_all", "variance_experiment", P6.replace("q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)", "q = torch.rand(d_k, generator=generator, dtype=torch.float64)"),
   "P6: 'draw n independent pairs (q, k) ... at least n * d_k numbers must come from each'"),
 W("p6_scale_on_variance", "variance_experiment", P6.replace("return (scale * (q * k).sum(-1)).var().item()", "return scale * (q * k).sum(-1).var().item()"),
   "P6: 'compute the n numbers scale . (q . k), and return their sample variance'"),
 W("p6_predicted_ignores_mean", "variance_experiment", P6.replace("predicted_variance_512 = 512 / 3", "predicted_variance_512 = 512 / 12"),
   "P6: 'Careful: the entries of q do not have mean 0'"),
 # ---------------- Part 7
 W("p7_softmax_in_float32", "fixed_self_attention", P7.replace("w = torch.softmax(scores, dim=-1)", "w = torch.softmax(scores.float(), dim=-1).type_as(scores)"),
   "P7: 'as accurate as that dtype allows (... layers converted with .double() ... compare to about 1e-9)'"),
 W("p7_nan_to_num_padding_queries", "fixed_self_attention", '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
            scores = scores.masked_fill(~real[:, :, None], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.nan_to_num(weights, nan=0.0)
        return torch.matmul(weights, v)
''', "P7: 'a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced by zeros afterwards'"),
 W("p7_fill_minus_1e4", "fixed_self_attention", P7.replace('scores = scores.masked_fill(~allowed, float("-inf"))', 'scores = scores.masked_fill(~allowed, -1e4)'),
   "P7: 'No query may attend to a padding key (weight exactly 0, also when the scores are in the tens of thousands)'"),
 W("p7_zero_rows_by_multiply", "fixed_self_attention", '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        out = torch.matmul(weights, v)
        if real is not None:
            out = out * real[:, :, None]
        return out
''', "P7: 'a sequence with no real token (lengths[b] = 0) ... no gradient may be NaN' (the seed's nan_to_num kept)"),
 # ---------------- Part 8
 W("p8_masking_uniform", "mc_answers", 'answer_masking = "c"\nanswer_doubling = "b"\n', "8a: float64 keeps the scores next to -1e9 (float32 would not)"),
 W("p8_doubling_a", "mc_answers", 'answer_masking = "d"\nanswer_doubling = "d"\n', "8b: variance 4 per entry: 128 * 16 / 64 = 32, std 5.66"),
 # ---------------- correct variants
 C("c1_einsum_f64_inside", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    Q = q.to(torch.float64) if dt != torch.float64 else q
    K = k.to(torch.float64) if dt != torch.float64 else k
    s = torch.einsum("...td,...sd->...ts", Q, K).mul_(2)
    s.sub_(torch.einsum("...td,...td->...t", Q, Q).unsqueeze(-1))
    s.sub_(torch.einsum("...sd,...sd->...s", K, K).unsqueeze(-2))
    return torch.where(s > 0, torch.zeros_like(s), s).to(dt)
'''}, "P1 with einsum, float64 inside for every dtype (a copy in another dtype counts, and fits), in-place ops on own intermediates, torch.where for the sign"),
 C("c2_p2_expanded_f64", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.double(); g = grad_weights.double()
    wg = w * g
    return ((wg - w * wg.sum(dim=-1, keepdim=True)) / temperature).to(weights.dtype)
'''}, "P2 expanded form, float64 inside for every dtype"),
 C("c3_tril_diagonal", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "P3: tril with a diagonal offset, t*s memory"),
 C("c4_cumsum_positions", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.int64)
    allowed = j >= (s - lengths.long()).unsqueeze(1)
    positions = (allowed.long().cumsum(dim=1) - 1).clamp(min=0)
    return allowed, positions
'''}, "P4 positions by cumsum of the mask"),
 C("c5_logsumexp_softmax_nan_to_num", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.einsum("...td,...sd->...ts", q, k) * (1.0 / math.sqrt(q.shape[-1]))
    z = torch.where(allowed, z, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.nan_to_num(torch.softmax(z, dim=-1), nan=0.0)
    return torch.einsum("...ts,...sd->...td", w, v), lse
'''}, "P5 with torch.where, logsumexp and a softmax whose NaN rows (no allowed key) are zeroed"),
 C("c6_uniform_normal_methods", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(generator=generator)
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
    return float(torch.einsum("nd,nd->n", q, k).mul(scale).var())

predicted_variance_512 = 512 * (1 / 12 + 1 / 4)
'''}, "P6: Tensor.normal_/uniform_ allowed, k drawn first (order is up to you)"),
 C("c7_p7_calls_causal_and_masked_attention", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = causal_mask(t=T, s=T, offset=0) if causal else torch.ones(T, T, dtype=torch.bool)
        if lengths is None:
            out, _ = masked_attention(q, k, v, allowed)
            return out
        real = torch.arange(T)[None, :] < lengths.long()[:, None]
        ok = allowed & real[:, None, :]
        ok = ok | ~real[:, :, None]
        out, _ = masked_attention(q, k, v, ok)
        return torch.where(real[:, :, None], out, torch.zeros_like(out))
'''}, "P7 may call Part 3 (by keyword) and Part 5 (with a (T, T) broadcast mask, and a (B, T, T) one where padding queries attend freely and are zeroed after)"),
 C("c8_p7_uses_left_padding_mask", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.einsum("btd,bsd->bts", q, k) / q.shape[-1] ** 0.5
        ok = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            ok = ok & causal_mask(T, T, 0)
        if lengths is not None:
            real = padding_mask(lengths=lengths, s=T)[0].flip(-1)
            ok = ok & real[:, None, :] & real[:, :, None]
        scores = torch.where(ok, scores, torch.full_like(scores, float("-inf")))
        has = ok.any(-1, keepdim=True)
        scores = torch.where(has, scores, torch.zeros_like(scores))
        w = torch.where(ok, torch.softmax(scores, -1), torch.zeros_like(scores))
        return torch.einsum("bts,bsd->btd", w, v)
'''}, "P7 calls Part 4 by keyword with lengths of any integer dtype (the left-padded mask flipped is the right-padded one) and Part 3 positionally"),
 C("c9_p5_f64_inside", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    Q, K, V = q.double(), k.double(), v.double()
    z = Q @ K.mT / math.sqrt(Q.shape[-1])
    z = z.masked_fill(allowed.logical_not(), float("-inf"))
    m = z.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m)).detach()
    e = torch.exp(z - m)
    s = e.sum(-1, keepdim=True)
    out = (e @ V) / torch.where(s > 0, s, torch.ones_like(s))
    lse = (m + torch.log(s)).squeeze(-1)
    return out.to(dt), lse.to(dt)
'''}, "P5 float64 inside with a detached row maximum (gradient-invariant)"),
 # ---------------- hostile
 {"name": "h1_lying_str", "correct": False, "cells": {"mc_answers": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_masking = Letter("a")
answer_doubling = Letter("a")
'''}, "why": "hostile: a str subclass equal to everything"},
 {"name": "h2_patch_assert_close", "correct": False, "cells": {"masked_attention": '''
torch.testing.assert_close = lambda *a, **k: None
def masked_attention(q, k, v, allowed):
    shape = torch.broadcast_shapes(allowed.shape, q.shape[:-1] + k.shape[-2:-1])
    return torch.zeros(shape[:-1] + v.shape[-1:], dtype=q.dtype), torch.full(shape[:-1], float("-inf"), dtype=q.dtype)
'''}, "why": "hostile: monkey-patches torch.testing.assert_close, returns constants"},
 {"name": "h3_numpy_via_importlib", "correct": False, "cells": {"raw_scores": '''
import importlib
def raw_scores(q, k):
    np = importlib.import_module("nu" + "mpy")
    Q = np.array(q.detach().double().tolist()); K = np.array(k.detach().double().tolist())
    d = -((Q[..., :, None, :] - K[..., None, :, :]) ** 2).sum(-1)
    return torch.tensor(d.tolist(), dtype=q.dtype)
'''}, "why": "hostile: NumPy through importlib (no gradients either)"},
 # ---------------- second blind batch (written after the first grading, before reading solutions/ or tests/)

 W("p1_sign_fix_only_for_self", "raw_scores", '''
def raw_scores(q, k):
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k = q.float(), k.float()
    s = 2 * (q @ k.transpose(-2, -1)) - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    if s.shape[-1] == s.shape[-2] and torch.equal(q, k):
        s = s.clone()
        s.diagonal(dim1=-2, dim2=-1).zero_()
        s = s.clamp(max=0)
    return s.to(dt)
''', "P1 Sign: 'no score may be positive, not even by a rounding error' (fixed only for raw_scores(x, x))"),
 W("p1_norms_via_gram_diagonal", "raw_scores", P1.replace("qq = (q * q).sum(-1)", "qq = (q @ q.transpose(-2, -1)).diagonal(dim1=-2, dim2=-1)").replace("kk = (k * k).sum(-1)", "kk = (k @ k.transpose(-2, -1)).diagonal(dim1=-2, dim2=-1)"),
   "P1 Memory: 'no tensor ... more than twice as many elements as the largest of the result, q and k' (a (T, T) Gram matrix when T >> S)"),
 W("p4_max_length_shortcut", "padding_mask", '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    B = L.shape[0]
    m = int(L.max())
    j = torch.arange(m)
    start = m - L
    tail = j[None, :] >= start[:, None]
    pos = torch.where(tail, j[None, :] - start[:, None], 0)
    allowed = torch.cat([torch.zeros(B, s - m, dtype=torch.bool), tail], 1)
    positions = torch.cat([torch.zeros(B, s - m, dtype=torch.int64), pos], 1)
    return allowed, positions
''', "P4: 'lengths is a 1-D tensor' (an empty batch: max of an empty tensor raises)"),
 W("p6_restore_generator_state", "variance_experiment", '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    saved = generator.get_state() if generator is not None else torch.get_rng_state()
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    if generator is not None:
        generator.set_state(saved)
    else:
        torch.set_rng_state(saved)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
''', "P6: 'two calls in a row with one generator advance it and give different values' / 'without one ... two calls in a row give different values'"),
 W("p7_arange_in_lengths_dtype", "fixed_self_attention", P7.replace("real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]", "real = torch.arange(T, dtype=lengths.dtype)[None, :] < lengths[:, None]"),
   "P7: 'lengths ... of any integer dtype (uint8 and int8 too, whose range can be smaller than T)'"),
 C("c10_p1_norm_squared", {"raw_scores": '''
def raw_scores(q, k):
    out_dtype = q.dtype
    work = torch.float32 if out_dtype in (torch.float16, torch.bfloat16) else out_dtype
    q = q.to(work); k = k.to(work)
    s = torch.matmul(q, k.mT) * 2
    s = s - torch.linalg.vector_norm(q, dim=-1).square().unsqueeze(-1)
    s = s - torch.linalg.vector_norm(k, dim=-1).square().unsqueeze(-2)
    return torch.clamp(s, max=0.0).to(out_dtype)
'''}, "P1 with vector_norm squared, .mT"),
 C("c11_p6_global_by_keyword", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    total = []
    q = torch.rand((n, d_k), generator=generator)
    k = torch.randn((n, d_k), generator=generator)
    x = torch.einsum("nd,nd->n", q.double(), k.double()) * scale
    return x.var(correction=1).item()

predicted_variance_512 = 170.666666667
'''}, "P6 drawn in float32 (dtype up to you), var(correction=1), a decimal prediction to more than six digits"),
]
