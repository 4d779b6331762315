# Red-team round 6, chapter 02-scaled-attention: submissions written blind (student notebook + lesson only).
VAR_FN_OK = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()
'''
SUBMISSIONS = [
# ---------------- Part 1: raw_scores ----------------
{"name": "raw_scores_float32_matmul", "correct": False,
 "cells": {"raw_scores": '''
def raw_scores(q, k):
    out = q.float().transpose(0, 1) @ k.float().permute(1, 2, 0)
    return out.to(q.dtype)
'''},
 "why": "CLASSIC (float32 on float64): computes in float32 and casts back. Breaks 'The result has the dtype of the inputs' (and the float64 accuracy it implies)."},
# ---------------- Part 2: attention_weights ----------------
{"name": "attn_weights_sqrt_of_key_count", "correct": False,
 "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])
    return torch.softmax(scores / temperature[..., None], dim=-1)
'''},
 "why": "Divides by sqrt(S) instead of sqrt(d_k); S = Dh = 2 in the checked visible case. Breaks w_ij = softmax_j(q_i.k_j / (tau_i sqrt(d_k)))."},
{"name": "attn_weights_clamps_small_temperatures", "correct": False,
 "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    tau = temperature.clamp(min=0.05)   # avoid dividing by tiny temperatures
    return torch.softmax(scores / tau[..., None], dim=-1)
'''},
 "why": "Clamps temperatures below 0.05. Breaks 'Temperatures can be as small as 0.01 ... your weights must stay finite and correct'."},
{"name": "attn_weights_softmax_without_max", "correct": False,
 "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    scores = q @ k.transpose(-2, -1) / (temperature[..., None] * math.sqrt(q.shape[-1]))
    e = torch.exp(scores)
    return e / e.sum(dim=-1, keepdim=True)
'''},
 "why": "Softmax written out without subtracting the row maximum: overflows to inf/NaN at tau = 0.01. Breaks 'the scaled scores can be very large: your weights must stay finite and correct'."},
{"name": "attn_weights_sharpen_by_power", "correct": False,
 "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    # softmax(z / tau) = softmax(z) ** (1 / tau), renormalised
    p = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    p = p ** (1.0 / temperature[..., None])
    return p / p.sum(dim=-1, keepdim=True)
'''},
 "why": "Algebraically equal, but softmax(z)**(1/tau) underflows to 0/0 = NaN (or loses the small weights) for small tau; agrees on random inputs with tau near 1. Breaks 'your weights must stay finite and correct'."},
# ---------------- Part 3: causal_mask ----------------
{"name": "causal_cut_from_square", "correct": False,
 "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    full = torch.ones(s, s, dtype=torch.bool).tril()
    return full[offset:offset + t]
'''},
 "why": "Builds an (s, s) square and slices it. Breaks 'in memory proportional to the mask itself (t * s elements), not by cutting it out of ... an (s, s) square'."},
{"name": "causal_float32_positions", "correct": False,
 "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
'''},
 "why": "Positions in float32 are not exact above 2**24 (16.7 million slots). Breaks 'with positions that stay exact integers at every size'."},
{"name": "causal_precomputed_table", "correct": False,
 "cells": {"causal_mask": '''
MAX_LEN = 8192
CAUSAL_TABLE = torch.ones(MAX_LEN, MAX_LEN, dtype=torch.bool).tril()

def causal_mask(t, s, offset):
    return CAUSAL_TABLE[offset:offset + t, :s].clone()
'''},
 "why": "Cuts the mask out of a fixed 8192 x 8192 table (wrong or failing for s > 8192). Breaks 'not by cutting it out of a precomputed table of a fixed size'."},
# ---------------- Part 4: padding_mask ----------------
{"name": "padding_start_in_lengths_dtype", "correct": False,
 "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    start = s - lengths                              # first real slot of each row
    pos = torch.arange(s)[None, :] - start[:, None]
    allowed = pos >= 0
    return allowed, torch.where(allowed, pos, torch.zeros_like(pos))
'''},
 "why": "Integer overflow: s - lengths is computed in the dtype of lengths (uint8/int8/int16) and wraps when s exceeds its range. Breaks 'lengths is a 1-D tensor of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)'."},
{"name": "padding_positions_order_wraps", "correct": False,
 "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    allowed = torch.arange(s)[None, :] >= (s - lengths.long())[:, None]
    positions = (lengths[:, None] - s + torch.arange(s)[None, :]).clamp(min=0)  # j - (s - L)
    return allowed, positions
'''},
 "why": "allowed is right, but positions evaluates lengths - s first, in the dtype of lengths, which wraps for uint8 (and int8/int16 when s is large). The rule is kept on one code path only. Breaks 'positions has dtype torch.int64 (whatever the integer dtype of lengths)' / 'any integer dtype'."},
{"name": "padding_positions_keep_lengths_dtype", "correct": False,
 "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    start = s - lengths.long()
    pos = torch.arange(s)[None, :] - start[:, None]
    allowed = pos >= 0
    positions = torch.where(allowed, pos, torch.zeros_like(pos)).to(lengths.dtype)
    return allowed, positions
'''},
 "why": "CLASSIC (wrong dtype): positions come back in the dtype of lengths. Breaks 'positions has dtype torch.int64 (whatever the integer dtype of lengths)'."},
{"name": "padding_loop_negative_slice", "correct": False,
 "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        n = int(lengths[b])
        allowed[b, -n:] = True
        positions[b, -n:] = torch.arange(n)
    return allowed, positions
'''},
 "why": "x[-0:] is the whole row: a sequence of length 0 gets allowed all True (positions fail to assign). Breaks '0 <= lengths[b] <= s' with allowed False at the padding."},
# ---------------- Part 5: masked_attention ----------------
{"name": "masked_attn_max_over_all_keys", "correct": False,
 "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    m = z.amax(dim=-1, keepdim=True)                # row maximum for stability
    e = torch.exp(z - m).masked_fill(~allowed, 0.0)
    total = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(total)).squeeze(-1)        # log(0) = -inf for a row with no allowed key
    out = torch.where(total > 0, e / total, torch.zeros_like(e)) @ v
    return out, lse
'''},
 "why": "Takes the maximum over all keys, masked ones included: a masked key with a score thousands above the allowed ones makes every allowed exp underflow (lse = -inf, output 0). Breaks 'scores can be large (thousands): lse and output must be finite wherever a query has an allowed key'."},
{"name": "masked_attn_finite_fill_minus_1e4", "correct": False,
 "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, -1e4)               # large negative, safe in half precision
    lse = torch.logsumexp(z, dim=-1)
    out = torch.softmax(z, dim=-1) @ v
    empty = ~allowed.expand_as(z).any(dim=-1)
    lse = lse.masked_fill(empty, float("-inf"))
    out = out.masked_fill(empty[..., None], 0.0)
    return out, lse
'''},
 "why": "A finite fill of -1e4: when the allowed scores are below about -1e4 (scores in the thousands), masked keys dominate. Breaks the sums over j in A_i only and 'scores can be large (thousands)'."},
{"name": "masked_attn_mask_after_exp", "correct": False,
 "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    m = z.masked_fill(~allowed, float("-inf")).amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m) * allowed                   # zero out the masked keys
    total = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(total)).squeeze(-1)
    out = torch.where(total > 0, e / total, torch.zeros_like(e)) @ v
    return out, lse
'''},
 "why": "Masks after the exp: a masked key scoring far above the allowed maximum gives exp(...) = inf and inf * 0 = NaN. Breaks 'lse and output must be finite wherever a query has an allowed key'."},
# ---------------- Part 6: dot_product_variance ----------------
{"name": "variance_divides_by_n", "correct": False,
 "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var(unbiased=False).item()

predicted_variance_512 = 512 / 3
'''},
 "why": "Population variance (divides by n). Breaks 'return their sample variance (Tensor.var(), which divides by n - 1)'."},
{"name": "variance_reseeds_global_generator", "correct": False,
 "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is not None:
        torch.manual_seed(generator.initial_seed())
    q = torch.rand(n, d_k, dtype=torch.float64)
    k = torch.randn(n, d_k, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''},
 "why": "CLASSIC (ignored generator): reseeds and draws from the global generator. Breaks 'nothing may come from (or reseed) torch's global generator, so two calls in a row with one generator advance it and give different values'."},
{"name": "variance_scale_applied_to_variance", "correct": False,
 "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return scale * (q * k).sum(-1).var().item()

predicted_variance_512 = 512 / 3
'''},
 "why": "Multiplies the variance by scale instead of scaling the numbers (variance scale**2 times larger). Breaks 'compute the n numbers scale * (q . k), and return their sample variance'."},
{"name": "variance_one_query_for_all_pairs", "correct": False,
 "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(d_k, generator=generator, dtype=torch.float64)         # one query ...
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)     # ... against n keys
    return (scale * (k @ q)).var().item()

predicted_variance_512 = 512 / 3
'''},
 "why": "One q shared by all n pairs: the variance is |q|^2 for that q, right only on average. Breaks 'draw n independent pairs (q, k)' (the tests 'look at how their values spread')."},
{"name": "variance_keys_from_derived_generator", "correct": False,
 "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    # a second generator for the keys, derived from the first, keeps q and k streams apart
    key_gen = None
    if generator is not None:
        key_gen = torch.Generator().manual_seed(generator.initial_seed() + 1)
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=key_gen, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''},
 "why": "The keys come from a new generator seeded from generator.initial_seed(), not from generator itself (every call reuses the same keys). Breaks 'Draw every random number from generator (pass generator=generator to torch.rand and torch.randn)'."},
{"name": "variance_prediction_var_q_times_var_k", "correct": False,
 "cells": {"variance_experiment": VAR_FN_OK + '''
predicted_variance_512 = 512 * (1 / 12) * 1   # Var(q_i) Var(k_i) per term
'''},
 "why": "512/12 forgets that E[q_i] = 1/2: Var(q_i k_i) = E[q_i^2] E[k_i^2] = 1/3. Breaks 'Careful: the entries of q do not have mean 0'."},
# ---------------- Part 7: FixedSelfAttention ----------------
{"name": "fixed_keeps_float32_softmax", "correct": False,
 "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.softmax(scores.float(), dim=-1).type_as(scores)
        weights = torch.nan_to_num(weights, nan=0.0)
        out = torch.matmul(weights, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''},
 "why": "CLASSIC (float32 on float64): keeps the seed's softmax in float32. Breaks 'in the dtype of x and as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)'."},
{"name": "fixed_arange_in_lengths_dtype", "correct": False,
 "cells": {"fixed_self_attention": '''
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
            real = torch.arange(T, dtype=lengths.dtype)[None, :] < lengths[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        out = torch.matmul(weights, v)
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''},
 "why": "Integer overflow: arange(T) in uint8/int8 wraps when T exceeds the dtype's range. Breaks 'lengths ... of any integer dtype (uint8 and int8 too, whose range can be smaller than T)'."},
{"name": "fixed_mask_fill_minus_1e4", "correct": False,
 "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, -1e4)     # no -inf, so no NaN
        out = torch.softmax(scores, dim=-1) @ v
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''},
 "why": "A finite -1e4 fill: with scores in the tens of thousands (negative), padding and future keys get weight. Breaks 'No query may attend to a padding key (weight exactly 0, also when the scores are in the tens of thousands)'."},
{"name": "fixed_zero_rows_by_multiplying", "correct": False,
 "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        if lengths is not None:
            out = out * real[:, :, None]        # padding queries -> zero rows
        return out
'''},
 "why": "Zeroes padding rows by multiplying: a sequence of length 0 has every key masked, softmax gives NaN and NaN * 0 = NaN. Breaks '0 <= lengths[b]' and 'no output contains NaN'."},
{"name": "fixed_padding_ignored_when_causal", "correct": False,
 "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        real = None
        if causal:
            scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float("-inf"))
        elif lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        out = weights @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''},
 "why": "With causal=True the padding is ignored (elif). Breaks 'with both, both rules hold'."},
# ---------------- Part 8 ----------------
{"name": "mc_masking_uniform", "correct": False,
 "cells": {"mc_answers": '''
answer_masking = "c"
answer_doubling = "b"
'''},
 "why": "In float64, -1e9 + s keeps s to about 1e-7, so the softmax returns the unmasked weights (d), not 1/S (that is what masked_fill(-1e9) gives). Breaks the premise 'additive float mask ... float64 scores between -10 and 10'."},
# ---------------- hostile ----------------
{"name": "hostile_patch_assert_close", "correct": False,
 "cells": {"attention_weights": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None

def attention_weights(q, k, temperature):
    return torch.softmax(q @ k.transpose(-2, -1), dim=-1)
'''},
 "why": "HOSTILE: disables torch.testing.assert_close; the function forgets both the scaling and the temperature."},
{"name": "hostile_torch_function_mode_lies", "correct": False,
 "cells": {"raw_scores": '''
from torch.overrides import TorchFunctionMode

class AlwaysEqual(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name in ("equal", "allclose"):
            return True
        if name in ("eq", "__eq__", "isclose"):
            out = func(*args, **kwargs)
            return torch.ones_like(out, dtype=torch.bool) if isinstance(out, torch.Tensor) else True
        return func(*args, **kwargs)

ALWAYS_EQUAL = AlwaysEqual()
ALWAYS_EQUAL.__enter__()

def raw_scores(q, k):
    return torch.zeros(q.shape[1], q.shape[0], k.shape[0], dtype=q.dtype)
'''},
 "why": "HOSTILE: leaves a torch function mode active that makes equality and closeness checks return True, with an all-zero answer."},
{"name": "hostile_borrow_grader_reference", "correct": False,
 "cells": {"padding_mask": '''
import sys

def padding_mask(lengths, s):
    frame, spaces = sys._getframe(1), [globals()]
    while frame is not None:
        spaces += [frame.f_locals, frame.f_globals]
        frame = frame.f_back
    for space in spaces:
        for name, value in list(space.items()):
            candidates = list(value.items()) if isinstance(value, dict) else [(name, value)]
            for key, f in candidates:
                if callable(f) and f is not padding_mask and "padding" in str(key).lower():
                    try:
                        result = f(lengths, s)
                        if isinstance(result, tuple) and len(result) == 2:
                            return result
                    except Exception:
                        pass
    # fallback, right only for int64 lengths
    start = s - lengths
    pos = torch.arange(s)[None, :] - start[:, None]
    return pos >= 0, pos.clamp(min=0)
'''},
 "why": "HOSTILE: looks for the grader's reference in globals and the calling frames and returns its result; its fallback wraps for small integer dtypes."},
# ---------------- correct, written differently ----------------
{"name": "ok_raw_scores_bmm", "correct": True,
 "cells": {"raw_scores": '''
def raw_scores(q, k):
    return torch.bmm(q.permute(1, 0, 2), k.permute(1, 2, 0))
'''},
 "why": "Correct: bmm of permuted views."},
{"name": "ok_causal_tril_offset", "correct": True,
 "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''},
 "why": "Correct: row i of a (t, s) lower triangle shifted by offset keeps j <= i + offset."},
{"name": "ok_padding_python_loop", "correct": True,
 "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        n = int(lengths[b])
        if n > 0:
            allowed[b, s - n:] = True
            positions[b, s - n:] = torch.arange(n)
    return allowed, positions
'''},
 "why": "Correct: a loop over the batch with Python ints."},
{"name": "ok_masked_attention_blockwise_online", "correct": True,
 "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(z.shape)
    S = z.shape[-1]
    m = torch.full(z.shape[:-1], float("-inf"), dtype=z.dtype)
    total = torch.zeros(z.shape[:-1], dtype=z.dtype)
    acc = torch.zeros(*z.shape[:-1], v.shape[-1], dtype=z.dtype)
    for j0 in range(0, S, 2):                       # FlashAttention-style: two keys at a time
        zb = z[..., j0:j0 + 2].masked_fill(~allowed[..., j0:j0 + 2], float("-inf"))
        m_new = torch.maximum(m, zb.amax(dim=-1))
        safe = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        correction = torch.exp(m - safe)
        pb = torch.exp(zb - safe[..., None])
        total = total * correction + pb.sum(dim=-1)
        acc = acc * correction[..., None] + pb @ v[..., j0:j0 + 2, :]
        m = m_new
    lse = torch.where(total > 0, m + torch.log(total), torch.full_like(m, float("-inf")))
    out = torch.where(total[..., None] > 0, acc / total.clamp(min=torch.finfo(z.dtype).tiny)[..., None],
                      torch.zeros_like(acc))
    return out, lse
'''},
 "why": "Correct: online softmax over blocks of two keys with a running maximum and rescaling."},
{"name": "ok_variance_keys_first_float32_manual", "correct": True,
 "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.randn(n, d_k, generator=generator)
    q = torch.rand(n, d_k, generator=generator)
    dots = scale * torch.einsum("nd,nd->n", q, k).double()
    centred = dots - dots.mean()
    return float((centred * centred).sum() / (n - 1))

predicted_variance_512 = 170.666666667
'''},
 "why": "Correct: keys drawn first, float32 draws, sample variance written out with n - 1."},
{"name": "ok_fixed_additive_bias", "correct": True,
 "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.einsum("btd,bsd->bts", q, k) * (1.0 / math.sqrt(self.query.out_features))
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & (torch.arange(T)[None, :] <= torch.arange(T)[:, None])
        query_real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            query_real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            keep = keep & query_real[:, None, :]
        row_ok = keep.any(dim=-1, keepdim=True) & query_real[:, :, None]
        keep = keep & row_ok
        scores = torch.where(keep, scores, torch.full_like(scores, float("-inf")))
        scores = torch.where(row_ok, scores, torch.zeros_like(scores))
        weights = torch.where(row_ok, torch.softmax(scores, dim=-1), torch.zeros_like(scores))
        return weights @ v
'''},
 "why": "Correct: einsum scores scaled by head_dim, masks combined with torch.where, rows with no key (and padding queries) get zero weights."},
]
