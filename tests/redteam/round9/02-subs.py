MA_TMPL = '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(DK)
    BODY
    return out, lse
'''
def ma(body, dk="q.shape[-1]"):
    return MA_TMPL.replace("DK", dk).replace("BODY", body)
MA_GOOD_BODY = '''z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.nan_to_num(torch.softmax(z, dim=-1), nan=0.0)
    out = w @ v'''

FSA_TMPL = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        PROJ
        scores = q @ k.transpose(-2, -1) SCALE
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        SOFTMAX
        w = torch.nan_to_num(w, nan=0.0)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''
def fsa(proj="q, k, v = self.query(x), self.key(x), self.value(x)", scale="/ math.sqrt(q.shape[-1])",
        softmax="w = torch.softmax(scores, dim=-1)"):
    return FSA_TMPL.replace("PROJ", proj).replace("SCALE", scale).replace("SOFTMAX", softmax)

VAR_TMPL = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = QDRAW
    k = KDRAW
    RET

predicted_variance_512 = PRED
'''
def var(q="torch.rand(n, d_k, generator=generator, dtype=torch.float64)",
        k="torch.randn(n, d_k, generator=generator, dtype=torch.float64)",
        ret="return (scale * (q * k).sum(dim=1)).var().item()", pred="512 / 3"):
    return VAR_TMPL.replace("QDRAW", q).replace("KDRAW", k).replace("RET", ret).replace("PRED", pred)

SUBMISSIONS = [
# ---------------- Part 1 wrong
{"name": "p1_reshape_not_transpose", "correct": False, "cells": {"raw_scores": '''
def raw_scores(q, k):
    T, B, Dh = q.shape
    S = k.shape[0]
    return q.reshape(B, T, Dh) @ k.permute(1, 2, 0)
'''}, "why": "'queries as (T, B, Dh)': reshape to (B, T, Dh) reorders the memory instead of swapping the axes; result[b, i, j] = q[i, b] . k[j, b] fails for T > 1 (visible T = 1)"},
# ---------------- Part 2 wrong
{"name": "p2_softmax_without_max", "correct": False, "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    z = q @ k.transpose(-2, -1) / (temperature[..., None] * math.sqrt(q.shape[-1]))
    e = torch.exp(z)
    return e / e.sum(dim=-1, keepdim=True)
'''}, "why": "'Temperatures can be as small as 0.01, so the scaled scores can be very large: your weights must stay finite and correct'"},
{"name": "p2_dk_from_axis1", "correct": False, "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    d_k = q.shape[1]
    return torch.softmax(q @ k.transpose(-2, -1) / (temperature.unsqueeze(-1) * math.sqrt(d_k)), dim=-1)
'''}, "why": "'q (..., T, Dh)', d_k is the width: q.shape[1] is T when there is a leading dimension (the visible 3-D case checks only row sums)"},
{"name": "p2_clamps_temperature", "correct": False, "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    tau = temperature.clamp(min=0.1)  # avoid overflow with tiny temperatures
    return torch.softmax(q @ k.transpose(-2, -1) / (tau[..., None] * math.sqrt(q.shape[-1])), dim=-1)
'''}, "why": "'Temperatures can be as small as 0.01 ... your weights must stay finite and correct': clamping changes the weights of rows with tau < 0.1"},
# ---------------- Part 3 wrong
{"name": "p3_square_then_slice", "correct": False, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    full = torch.ones(s, s, dtype=torch.bool).tril()
    return full[offset:offset + t].clone()
'''}, "why": "'be built in memory proportional to the mask itself (t * s elements) ... an (s, s) square does not fit in memory'"},
{"name": "p3_linspace_positions", "correct": False, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.linspace(0, s - 1, s)
    queries = torch.linspace(offset, offset + t - 1, t)
    return keys[None, :] <= queries[:, None]
'''}, "why": "'with positions that stay exact integers': float32 linspace rounds positions above 2^24 (old class: positions through float)"},
# ---------------- Part 4 wrong
{"name": "p4_returns_list", "correct": False, "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    j = torch.arange(s)
    allowed = j[None, :] >= (s - L)[:, None]
    positions = (j[None, :] - (s - L)[:, None]).clamp(min=0)
    return [allowed, positions]
'''}, "why": "'returns a pair (allowed, positions)': a list, not a tuple (container class)"},
{"name": "p4_positions_cumsum_int16", "correct": False, "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    allowed = torch.arange(s)[None, :] >= (s - L)[:, None]
    positions = (allowed.cumsum(dim=1, dtype=torch.int16) - 1).clamp(min=0).to(torch.int64)
    return allowed, positions
'''}, "why": "'positions has dtype torch.int64 ... the position of each real token': an int16 running count wraps past 32767 slots (old class: int16 past range)"},
# ---------------- Part 5 wrong
{"name": "p5_naive_lse", "correct": False, "cells": {"masked_attention": ma('''e = torch.exp(z).masked_fill(~allowed, 0.0)
    total = e.sum(dim=-1)
    lse = torch.log(total)
    out = torch.nan_to_num(e / total[..., None], nan=0.0) @ v''')},
 "why": "'scores can be large (tens of thousands, of either sign): lse and output must be finite wherever a query has an allowed key'"},
{"name": "p5_max_over_all_keys", "correct": False, "cells": {"masked_attention": ma('''m = z.amax(dim=-1, keepdim=True)
    e = torch.exp(z - m).masked_fill(~allowed, 0.0)
    total = e.sum(dim=-1)
    lse = m[..., 0] + torch.log(total)
    out = torch.nan_to_num(e / total[..., None], nan=0.0) @ v''')},
 "why": "'a masked key counts for nothing however its score compares with the allowed ones': the row maximum over masked keys underflows the allowed exps"},
{"name": "p5_multiply_mask_after_exp", "correct": False, "cells": {"masked_attention": ma('''m = z.masked_fill(~allowed, float("-inf")).amax(dim=-1, keepdim=True)
    m = torch.nan_to_num(m, neginf=0.0)
    e = torch.exp(z - m) * allowed
    total = e.sum(dim=-1)
    lse = torch.where(total > 0, m[..., 0] + torch.log(total), torch.full_like(total, float("-inf")))
    out = torch.nan_to_num(e / total[..., None], nan=0.0) @ v''')},
 "why": "'a masked key counts for nothing however its score compares': a masked score far above the allowed maximum gives exp = inf, and inf * 0 = NaN"},
{"name": "p5_dk_from_axis1", "correct": False, "cells": {"masked_attention": ma(MA_GOOD_BODY, dk="q.size(1)")},
 "why": "'z_ij = q_i . k_j / sqrt(d_k)' with q (..., T, Dh): q.size(1) is T for batched inputs (visible q is 2-D)"},
# ---------------- Part 6 wrong
{"name": "p6_k_uniform_too", "correct": False, "cells": {"variance_experiment": var(k="torch.rand(n, d_k, generator=generator, dtype=torch.float64)")},
 "why": "'the entries of k ... are independent standard normal (torch.randn)'"},
{"name": "p6_scale_not_squared", "correct": False, "cells": {"variance_experiment": var(ret="return scale * (q * k).sum(dim=1).var().item()")},
 "why": "'compute the n numbers scale . (q . k), and return their sample variance': that is scale^2 times the variance, not scale times"},
{"name": "p6_predicted_ignores_mean", "correct": False, "cells": {"variance_experiment": var(pred="512 / 12")},
 "why": "'Careful: the entries of q do not have mean 0': Var(q_i k_i) = E[q^2] E[k^2] = 1/3, not Var(q) = 1/12"},
# ---------------- Part 7 wrong
{"name": "p7_value_weight_untransposed", "correct": False, "cells": {"fixed_self_attention": fsa(proj='''q = x @ self.query.weight.T + self.query.bias
        k = x @ self.key.weight.T + self.key.bias
        v = x @ self.value.weight + self.value.bias''')},
 "why": "'keeps ... the three projections (self.query, self.key, self.value)': nn.Linear applies x W^T; the visible value weight is the identity"},
{"name": "p7_scale_multiplies", "correct": False, "cells": {"fixed_self_attention": fsa(scale="* math.sqrt(q.shape[-1])")},
 "why": "'the softmax ... of q_i . k_j / sqrt(d_k)': multiplies by sqrt(d_k); the visible layer has d_k = 1"},
{"name": "p7_keeps_float_cast", "correct": False, "cells": {"fixed_self_attention": fsa(softmax="w = torch.softmax(scores.float(), dim=-1).type_as(scores)")},
 "why": "'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)' (old class: float32 arithmetic on float64)"},
# ---------------- Part 8 wrong
{"name": "p8a_uniform", "correct": False, "cells": {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
 "why": "8a in float64: -1e9 + s keeps the differences of s (spacing ~1e-7), so the weights are those of the unmasked row (d); (c) is the float32 answer"},
{"name": "p8b_variance_one", "correct": False, "cells": {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "a"\n'},
 "why": "8b: std = sqrt(128 * 16) / 8 = 4 sqrt(2) (b); (a) is the value before doubling"},
# ---------------- correct variants
{"name": "c_p1_float64_inside", "correct": True, "cells": {"raw_scores": '''
def raw_scores(q, k):
    out = torch.bmm(q.permute(1, 0, 2).to(torch.float64), k.permute(1, 2, 0).to(torch.float64))
    return out.to(q.dtype)
'''}, "why": "float64 inside, cast back (more accurate than the dtype)"},
{"name": "c_p2_calls_raw_scores", "correct": True, "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    *lead, T, Dh = q.shape
    S = k.shape[-2]
    qs = q.reshape(-1, T, Dh).transpose(0, 1)   # (T, N, Dh) sequence-first
    ks = k.reshape(-1, S, Dh).transpose(0, 1)
    scores = raw_scores(q=qs, k=ks).reshape(*lead, T, S)
    z = scores / (temperature[..., None] * math.sqrt(Dh))
    return torch.exp(torch.nn.functional.log_softmax(z, dim=-1))
'''}, "why": "Part 1's raw_scores on non-contiguous sequence-first views by keyword (a batch of one for 2-D inputs), exp(log_softmax)"},
{"name": "c_p3_tril_bool", "correct": True, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "why": "tril with a diagonal offset: j - i <= offset"},
{"name": "c_p4_flip_cumsum", "correct": True, "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    rev = torch.arange(s - 1, -1, -1)                 # distance from the last slot
    allowed = rev[None, :] < lengths.to(torch.int64)[:, None]
    positions = allowed.cumsum(dim=1) - 1
    positions = positions.masked_fill(~allowed, 0)
    return (allowed, positions)
'''}, "why": "slot j is real when s-1-j < lengths[b]; positions = running count - 1"},
{"name": "c_p5_calls_raw_scores_batch_of_one", "correct": True, "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    *lead, T, Dh = q.shape
    S = k.shape[-2]
    z = raw_scores(q.reshape(-1, T, Dh).transpose(0, 1), k.reshape(-1, S, Dh).transpose(0, 1)).reshape(*lead, T, S)
    z = z * (1.0 / math.sqrt(Dh))
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    lse = torch.logsumexp(z, dim=-1)
    safe = torch.where(torch.isinf(lse)[..., None], torch.zeros_like(z), z - lse[..., None])
    w = torch.where(allowed, torch.exp(safe), torch.zeros_like(z))
    return torch.einsum("...ts,...sd->...td", w, v), lse
'''}, "why": "Part 1's raw_scores on flattened leading dims (a batch of one for 2-D inputs), weights as exp(z - lse)"},
{"name": "c_p6_chunks_float32_k_first", "correct": True, "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    values = []
    done = 0
    while done < n:
        m = min(4096, n - done)
        k = torch.randn(m, d_k, generator=generator)
        q = torch.rand(m, d_k, generator=generator)
        values.append(torch.einsum("nd,nd->n", q.double(), k.double()) * scale)
        done += m
    mean_and_var = torch.var_mean(torch.cat(values), correction=1)
    return float(mean_and_var[0])

predicted_variance_512 = 512 * (1 / 3 + 0.25 * 0) - 0
'''}, "why": "k drawn first, in float32 chunks, var_mean with correction=1 (order and dtype are free)"},
{"name": "c_p7_calls_masked_attention_and_causal_mask", "correct": True, "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = causal_mask(T, T, 0)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]      # (B, T)
            allowed = allowed & real[:, None, :]                            # (B, T, T)
        out, lse = masked_attention(q, k, v, allowed)
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
        return out
'''}, "why": "Part 3's causal_mask (the lesson case) and Part 5's masked_attention with a (T, T) or (B, T, T) mask"},
{"name": "c_p7_sdpa", "correct": True, "cells": {"fixed_self_attention": '''
import torch.nn.functional as F

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        if lengths is not None:
            real = torch.arange(T, dtype=torch.int64) < lengths.to(torch.int64).unsqueeze(1)
            allowed = allowed & real.unsqueeze(1)
        else:
            real = torch.ones(B, T, dtype=torch.bool)
        keep = allowed.any(-1) & real                                      # rows with something to see
        safe = allowed | ~allowed.any(-1, keepdim=True)                    # no all-False row for SDPA
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=safe)
        out = out.masked_fill(~keep.unsqueeze(-1), 0)
        return out
'''}, "why": "torch.nn.functional.scaled_dot_product_attention (default scale 1/sqrt(head_dim)) with a boolean mask"},
{"name": "c_p8_expressions", "correct": True, "cells": {"mc_answers": '''
choices = "abcd"
answer_masking = choices[3]
answer_doubling = "B".lower()
'''}, "why": "same letters built by expressions"},
# ---------------- hostile
{"name": "h_p6_formula_dressed_as_sample", "correct": False, "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    u = torch.rand(1, generator=generator, dtype=torch.float64).item()
    return float(scale ** 2 * d_k / 3 * (1 + 0.02 * (u - 0.5)))

predicted_variance_512 = 512 / 3
'''}, "why": "hostile: returns the formula with a pinch of noise from the generator ('must be the sample variance of numbers you drew, not a formula')"},
{"name": "h_p1_numpy_through_pickle", "correct": False, "cells": {"raw_scores": '''
import pickle
def raw_scores(q, k):
    np = pickle.loads(b"c__builtin__\\n__import__\\n(Vnumpy\\ntR.")
    out = np.einsum("tbd,sbd->bts", np.array(q.tolist()), np.array(k.tolist()))
    return torch.tensor(out.tolist(), dtype=q.dtype)
'''}, "why": "hostile: NumPy imported through pickle (another library, no gradients)"},
]
