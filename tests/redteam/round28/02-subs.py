# Round 28, chapter 02: five kinds of student (tie-breaker, fallback writer, constant-hardcoder, memoizer, spec-lawyer)
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

MA_BODY = '''
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    anyk = allowed.any(-1, keepdim=True)
    zs = torch.where(anyk, z, torch.zeros((), dtype=z.dtype))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.where(allowed, torch.softmax(zs, dim=-1), torch.zeros((), dtype=z.dtype))
'''

# ---------------------------------------------------------------- tie-breaker
add("tie_p1_zero_within_rounding", False, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(work), k.to(work)
    qq = (qw * qw).sum(-1)[..., :, None]
    kk = (kw * kw).sum(-1)[..., None, :]
    d2 = qq + kk - 2 * (qw @ kw.transpose(-2, -1))
    # what lies within the rounding error of the expanded form counts as a tie with 0
    tol = torch.finfo(work).eps * 8 * (qq + kk)
    d2 = torch.where(d2 <= tol, torch.zeros((), dtype=work), d2)
    return (-d2).to(q.dtype)
'''}, "Part 1: 'clamp nothing, and make 0 only what lies below 0': squared distances up to 8 eps (|q|^2+|k|^2) are set to 0 (and lose their gradient).")
add("tie_p2_denormal_weight_counts_as_masked", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    r = w * (g - (w * g).sum(-1, keepdim=True)) / temperature
    masked = w <= torch.finfo(weights.dtype).tiny            # underflowed weights are masked keys too
    return torch.where(masked, torch.zeros((), dtype=work), r).to(weights.dtype)
'''}, "Part 2: 'a key with weight exactly 0 must get a gradient of exactly 0 (only exactly 0: a key of weight 1e-13 is not masked ...)': weights at or below the dtype's tiny are zeroed too.")
add("tie_p5_exp_minus_lse", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(z.shape)
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
    w = torch.exp(z - safe[..., None])
    return w @ v, lse
'''}, "Part 5: 'divide the exponentials by their sum (or take exp of a log_softmax)': exp(z - lse) gives tied huge scores weights of 1 each.")
add("ok_tie_p4_first_real_by_argmin_of_flip", True, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    j = torch.arange(s)
    allowed = j[None, :] >= (s - L)[:, None]
    # first real slot: the last False seen from the right, i.e. argmax of the flipped mask
    start = s - allowed.flip(1).to(torch.int64).argmin(dim=1)
    start = torch.where(L == s, torch.zeros_like(start), start)
    positions = torch.where(allowed, j[None, :] - start[:, None], torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''}, "Part 4: argmin over the flipped mask finds the first False from the right (argmin takes the first of equal values, documented); full rows fixed by the where, empty rows have no allowed slot.")

# ---------------------------------------------------------------- fallback writer
add("fallback_p3_single_query_sees_all", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    if t == 1:      # one new token while decoding: it may look at the whole cache
        return torch.ones(1, s, dtype=torch.bool)
    return torch.arange(s)[None, :] <= torch.arange(t)[:, None] + offset
'''}, "Part 3: 'Keys after position offset + t - 1 are slots ... nothing has been written to yet, so no query of the block may see them': the t = 1 shortcut lets the query see empty slots.")
add("fallback_p7_single_token_is_value", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        v = self.value(x)
        if T == 1:            # a single token can only attend to itself
            return v
        q, k = self.query(x), self.key(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~anyk, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = torch.matmul(w, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "Part 7: 'the output row of every query at a padding position is all zeros': with T = 1 and lengths = [0] the single padding token returns its value.")
add("fallback_p7_empty_sequence_gets_one_token", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        if lengths is not None:
            lengths = lengths.to(torch.int64).clamp(min=1)     # an empty sequence would give a NaN softmax
            real = torch.arange(T)[None, :] < lengths[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "Part 7: 'a sequence with no real token (lengths[b] = 0)': every output row must be 0, but the clamp keeps query 0 as a real token.")
add("fallback_p2_empty_returns_input", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    if weights.numel() == 0:       # nothing to do
        return weights
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
'''}, "intro: 'return new tensors on every call' -- an empty input is returned as the very input object (only for empty tensors; see verdicts).")

# ---------------------------------------------------------------- constant-hardcoder
add("hard_p3_float32_positions", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
'''}, "Part 3: 'Caches can hold tens of millions of slots ... with positions that stay exact integers': float32 positions past 2^24 round.")
add("hard_p6_rounded_prediction", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return ((q * k).sum(-1) * scale).var().item()

predicted_variance_512 = 170.7
'''}, "Part 6: 'Store the number ... to at least six significant digits': 170.7 has four.")
add("hard_p7_bf16_slot_numbers", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        slots = torch.arange(T, dtype=x.dtype)
        allowed = (slots[None, :] <= slots[:, None]) if causal else torch.ones(T, T, dtype=torch.bool)
        allowed = allowed.expand(B, T, T)
        if lengths is not None:
            real = slots[None, :] < lengths.to(x.dtype)[:, None]
            allowed = allowed & real[:, None, :]
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~anyk, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = torch.matmul(w, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "Part 7: 'a bfloat16 layer's dtype holds them exactly only up to 256 ... slot numbers compared in it go wrong from 256 on'.")
add("hard_p6_float32_draws_and_var", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return ((q * k).sum(-1) * scale).var().item()

predicted_variance_512 = 512 / 3
'''}, "Part 6: 'the tests use 1e-8 ..., and 1e-25 and 1e25, where squares of float32 numbers underflow to 0 or overflow to inf: whatever dtype you draw in, the variance must come out right'.")
add("hard_p5_float32_finfo_fill", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(z.shape)
    anyk = allowed.any(-1, keepdim=True)
    z = z.masked_fill(~allowed, torch.finfo(torch.float32).min)
    lse = torch.logsumexp(z, dim=-1).masked_fill(~anyk[..., 0], float("-inf"))
    w = torch.softmax(z, dim=-1).masked_fill(~allowed, 0.0)
    return w @ v, lse
'''}, "Part 5: 'a finite stand-in for -inf ... loses' -- float32's min filled in lies above float64 allowed scores below it.")

# ---------------------------------------------------------------- memoizer
add("memo_p1_norms_by_id_version", False, {"raw_scores": '''
NORMS = {}
def sqnorm(x, work):
    key = (id(x), x._version, tuple(x.shape), x.dtype)
    if key not in NORMS:
        if len(NORMS) > 8:
            NORMS.clear()
        xw = x.to(work)
        NORMS[key] = (xw * xw).sum(-1)
    return NORMS[key]

def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(work), k.to(work)
    d2 = sqnorm(q, work)[..., :, None] + sqnorm(k, work)[..., None, :] - 2 * (qw @ kw.transpose(-2, -1))
    return (-d2).clamp(max=0).to(q.dtype)
'''}, "intro: 'key no cache on a tensor's id() or on its shape': squared norms cached by id and version go stale after a freed tensor's id comes back, and they carry an old graph.")
add("memo_p7_real_mask_by_id", False, {"fixed_self_attention": '''
REAL = {}
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        if lengths is not None:
            key = (id(lengths), lengths._version, T)
            if key not in REAL:
                REAL[key] = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            real = REAL[key]
            allowed = allowed & real[:, None, :]
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~anyk, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = torch.matmul(w, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "intro: 'key no cache on a tensor's id() or on its shape': the padding mask cached by id(lengths) goes stale when a new lengths tensor gets a freed one's id.")
add("memo_p4_positions_buffer", False, {"padding_mask": '''
BUFFERS = {}
def padding_mask(lengths, s):
    B = lengths.shape[0]
    L = lengths.to(torch.int64)[:, None]
    j = torch.arange(s)[None, :]
    allowed = j >= s - L
    if (B, s) not in BUFFERS:
        BUFFERS[(B, s)] = torch.zeros(B, s, dtype=torch.int64)
    positions = BUFFERS[(B, s)]
    torch.where(allowed, j - (s - L), torch.zeros((), dtype=torch.int64), out=positions)
    return allowed, positions
'''}, "Part 4: 'they must not share memory with anything kept from one call to the next': the positions buffer is reused per shape.")
add("memo_p3_lru_cache_same_object", False, {"causal_mask": '''
import functools
@functools.lru_cache(maxsize=32)
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= torch.arange(t)[:, None] + offset
'''}, "Part 3: 'a later call must return a correct mask all the same, so it must not share memory with anything kept': lru_cache returns the same tensor object.")

# ---------------------------------------------------------------- spec-lawyer (wrong)
add("lawyer_p5_float32_scale_after", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])   # the dtype of q, as the text says
''' + MA_BODY + '''
    return w @ v, lse
'''}, "Part 5: 'scores of float64 and float32 near the ends of their ranges': q @ k^T before the division overflows to inf where the scaled score does not.")
add("lawyer_p7_keeps_seed_float_softmax", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths[:, None]
            allowed = allowed & real[:, None, :]
        anyk = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~anyk, 0.0)
        # the spec asks weights that sum to 1: float32 is enough for a probability
        w = torch.softmax(scores.float(), dim=-1).type_as(scores).masked_fill(~allowed, 0.0)
        out = torch.matmul(w, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "Part 7: 'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)': weights in float32.")

# ---------------------------------------------------------------- correct
add("ok_lawyer_p3_tril_offset", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "Part 3: tril keeps (i, j) with j - i <= offset, i.e. j <= offset + i; t*s elements.")
add("ok_tie_p3_lt_plus_one", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.arange(s).unsqueeze(0) < torch.arange(offset + 1, offset + t + 1).unsqueeze(1)
'''}, "Part 3: j < offset + i + 1 is the same threshold.")
add("ok_memo_p3_difference_table_cached", True, {"causal_mask": '''
import functools
@functools.lru_cache(maxsize=4)
def key_minus_query(t, s):
    return torch.arange(s)[None, :] - torch.arange(t)[:, None]     # read only

def causal_mask(t, s, offset):
    return key_minus_query(t, s) <= offset      # a new bool tensor every call
'''}, "A cache keyed by (t, s) that never leaves the function: the comparison makes a new mask each call (memory t*s int64 per cached size).")
add("ok_hard_p4_float32_slots", True, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.float32)[:, None]
    j = torch.arange(s, dtype=torch.float32)[None, :]
    allowed = j >= s - L
    positions = torch.where(allowed, j - (s - L), torch.zeros(())).to(torch.int64)
    return allowed, positions
'''}, "Part 4: 's < 2^24, where float32 stops holding every integer': float32 slot numbers are exact here.")
add("ok_fallback_p4_empty_batch", True, {"padding_mask": '''
def padding_mask(lengths, s):
    if lengths.numel() == 0:
        return torch.zeros(0, s, dtype=torch.bool), torch.zeros(0, s, dtype=torch.int64)
    L = lengths.long()
    start = (s - L).unsqueeze(1)
    j = torch.arange(s).unsqueeze(0)
    allowed = j >= start
    return allowed, (j - start).clamp(min=0) * allowed
'''}, "Part 4: an explicit empty-batch branch returning the (0, s) tensors the text asks for.")
add("ok_lawyer_p6_float32_draw_float64_var", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.randn(d_k, n, generator=generator)        # order and dtype are free
    q = torch.rand(d_k, n, generator=generator)
    dots = (q * k).sum(0).double() * scale
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''}, "Part 6: 'In which order you draw the numbers, and in which floating-point dtype, is up to you'; the scale and the variance in float64.")
add("ok_lawyer_p2_half_in_own_dtype", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = (weights * grad_weights).sum(-1, keepdim=True)
    return weights * (grad_weights - dot) / temperature
'''}, "Part 2: all dtypes worked in their own dtype (the text says float16 rows 'worked in its own dtype' do not overflow); unsure whether bfloat16 sums of thousands of keys stay inside the tolerance.")
add("ok_hard_p1_float64_everything", True, {"raw_scores": '''
def raw_scores(q, k):
    qd, kd = q.to(torch.float64), k.to(torch.float64)
    d2 = (qd ** 2).sum(-1).unsqueeze(-1) + (kd ** 2).sum(-1).unsqueeze(-2) - 2 * torch.matmul(qd, kd.transpose(-1, -2))
    return torch.clamp(-d2, max=0.0).to(q.dtype)
'''}, "Part 1: float64 inside for every dtype (a copy of an input in another dtype fits the memory rule).")
add("ok_fallback_p1_self_exact_diagonal", True, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(work), k.to(work)
    d2 = (qw * qw).sum(-1)[..., :, None] + (kw * kw).sum(-1)[..., None, :] - 2 * (qw @ kw.transpose(-2, -1))
    s = torch.minimum(-d2, torch.zeros((), dtype=work))
    if q is k and q.shape[-2] > 0:   # self-attention: each query's own key is at distance 0 exactly
        eye = torch.eye(q.shape[-2], dtype=torch.bool)
        s = s.masked_fill(eye, 0.0)
    return s.to(q.dtype)
'''}, "Part 1: when k is q, the diagonal is exactly 0 (a true value); masked_fill gives it the true zero gradient.")
add("ok_lawyer_p7_loop_over_batch", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scale = 1.0 / math.sqrt(self.query.out_features)
        rows = []
        for b in range(B):
            n = T if lengths is None else int(lengths[b])
            out_b = torch.zeros(T, v.shape[-1], dtype=x.dtype)
            if n > 0:
                sc = (q[b, :n] @ k[b, :n].T) * scale
                if causal:
                    sc = sc.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
                out_b = torch.cat([torch.softmax(sc, -1) @ v[b, :n], out_b[n:]], 0)
            rows.append(out_b)
        return torch.stack(rows)
'''}, "Part 7: a loop over the batch on the real tokens only; padding rows constant zeros.")
add("ok_lawyer_p5_log_softmax", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    work = torch.float64 if q.dtype == torch.float64 else torch.float32
    z = (q.to(work) / math.sqrt(q.shape[-1])) @ k.to(work).transpose(-2, -1)
    allowed = allowed.expand(z.shape)
    anyk = allowed.any(-1, keepdim=True)
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, -1)
    w = torch.exp(torch.log_softmax(z.masked_fill(~anyk, 0.0), -1)).masked_fill(~allowed, 0.0)
    return (w @ v.to(work)).to(q.dtype), lse.to(q.dtype)
'''}, "Part 5: exp of a log_softmax is allowed by the text.")

# ---------------------------------------------------------------- hostile
add("hostile_p5_frame_peek_reference", False, {"masked_attention": '''
import sys as sys_mod
def masked_attention(q, k, v, allowed):
    f = sys_mod._getframe(1)
    while f is not None:
        for name, obj in list(f.f_globals.items()) + list(f.f_locals.items()):
            if callable(obj) and "masked_attention" in name and obj is not masked_attention:
                return obj(q, k, v, allowed)
        f = f.f_back
    return torch.zeros(q.shape[:-1] + v.shape[-1:], dtype=q.dtype), torch.zeros(q.shape[:-1], dtype=q.dtype)
'''}, "hostile: calls whatever reference it finds in the calling frames.")
add("hostile_p8_str_subclass", False, {"mc_answers": '''
class Any(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
answer_masking = Any("a")
answer_doubling = Any("a")
'''}, "hostile: a str subclass equal to every letter.")
