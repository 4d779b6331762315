# Round 11 red-team submissions for 02-scaled-attention (written blind, from the student notebook only).
CORRECT = {}
CORRECT["raw_scores"] = '''
def raw_scores(q, k):
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k = q.float(), k.float()
    s = 2 * (q @ k.transpose(-2, -1)) - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return s.clamp(max=0).to(dt)
'''
CORRECT["softmax_backward"] = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    w, g = weights, grad_weights
    if dt in (torch.float16, torch.bfloat16):
        w, g = w.float(), g.float()
    out = w * (g - (w * g).sum(-1, keepdim=True)) / temperature
    return out.to(dt)
'''
CORRECT["causal_mask"] = '''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (torch.arange(t) + offset)[:, None]
'''
CORRECT["padding_mask"] = '''
def padding_mask(lengths, s):
    start = s - lengths.to(torch.int64)[:, None]
    j = torch.arange(s)[None, :]
    allowed = j >= start
    positions = torch.where(allowed, j - start, torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''
CORRECT["masked_attention"] = '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros((), dtype=z.dtype))
    e = torch.exp(z - m)
    tot = e.sum(-1, keepdim=True)
    lse = (m + torch.log(tot)).squeeze(-1)
    safe = torch.where(tot > 0, tot, torch.ones((), dtype=z.dtype))
    out = (e / safe) @ v
    return out, lse
'''
CORRECT["variance_experiment"] = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''
CORRECT["fixed_self_attention"] = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        block = torch.zeros(T, T, dtype=torch.bool)
        if causal:
            block = block | torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        block = block.expand(x.shape[0], T, T)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            block = block | ~real[:, None, :]
        scores = scores.masked_fill(block, float("-inf"))
        dead = block.all(-1, keepdim=True)
        scores = scores.masked_fill(dead, 0.0)
        sdt = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else scores.dtype
        weights = torch.softmax(scores.to(sdt), dim=-1).to(scores.dtype)
        out = torch.matmul(weights, v)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        out = out.masked_fill(dead, 0.0)
        return out
'''
CORRECT["mc_answers"] = 'answer_masking = "d"\nanswer_doubling = "b"\n'

def sub(name, correct, why, **cells):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = []
S = SUBMISSIONS.append

# ------------------------------------------------------------------ wrong answers
S(sub("w_p1_float16_squares_overflow", False,
      "Part 1 Accuracy: errors of 2^-5 (|q|^2 + |k|^2) for bfloat16/float16; only bfloat16 is upcast here, so float16 squares "
      "overflow past 65504 (q = k = 200 gives inf - inf = NaN where the score is 0).",
      raw_scores='''
def raw_scores(q, k):
    dt = q.dtype
    if dt == torch.bfloat16:
        q, k = q.float(), k.float()
    s = 2 * (q @ k.transpose(-2, -1)) - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return s.clamp(max=0).to(dt)
'''))
S(sub("w_p1_exact_subtraction_for_low_precision", False,
      "Part 1 Memory: 'no tensor your function creates ... may hold more than twice as many elements as the largest of the "
      "result, q and k'; this builds the (..., T, S, Dh) difference on the bfloat16/float16 path only, for accuracy.",
      raw_scores='''
def raw_scores(q, k):
    if q.dtype in (torch.float16, torch.bfloat16):
        d = q.float()[..., :, None, :] - k.float()[..., None, :, :]
        return (-(d * d).sum(-1)).to(q.dtype)
    s = 2 * (q @ k.transpose(-2, -1)) - (q * q).sum(-1)[..., :, None] - (k * k).sum(-1)[..., None, :]
    return s.clamp(max=0)
'''))
S(sub("w_p1_distance_then_square", False,
      "Part 1 Gradients 'must flow ... the hidden tests compare their gradients'; -(sqrt(d2))^2 has the right values but a NaN "
      "gradient (0 * inf) where a key equals its query, as in raw_scores(x, x).",
      raw_scores='''
def raw_scores(q, k):
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k = q.float(), k.float()
    d2 = (q * q).sum(-1)[..., :, None] + (k * k).sum(-1)[..., None, :] - 2 * (q @ k.transpose(-2, -1))
    dist = torch.sqrt(d2.clamp(min=0))
    return (-dist * dist).to(dt)
'''))
S(sub("w_p2_replay_scores_autograd", False,
      "Part 2: 'the answer needs only weights, grad_weights and temperature, never the scores' and 'a row whose weights are all "
      "0 ... an all-zero row'; rebuilding z = tau log w and replaying a hand-written softmax through autograd gives NaN there.",
      softmax_backward='''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.enable_grad():
        z = (torch.log(weights.detach()) * temperature).requires_grad_(True)
        y = z / temperature
        m = y.amax(-1, keepdim=True)
        e = torch.exp(y - m)
        w = e / e.sum(-1, keepdim=True)
        (g,) = torch.autograd.grad(w, z, grad_weights)
    return g
'''))
S(sub("w_p2_sum_over_first_dim", False,
      "Part 2: 'w = softmax(z / tau) (over the last dimension)'; the inner product sums over dim 0 (the visible rows have one "
      "row or are 1-D). [closed class: axes confused]",
      softmax_backward='''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    w, g = weights.double(), grad_weights.double()
    return (w * (g - (w * g).sum(0, keepdim=True)) / temperature).to(dt)
'''))
S(sub("w_p3_float32_positions", False,
      "Part 3: 'positions that stay exact integers' with caches of tens of millions of slots; float32 arange is inexact past "
      "2^24. [closed class: exact counts through float]",
      causal_mask='''
def causal_mask(t, s, offset):
    j = torch.arange(s, dtype=torch.float32)
    i = torch.arange(t, dtype=torch.float32) + offset
    return j[None, :] <= i[:, None]
'''))
S(sub("w_p3_square_then_slice", False,
      "Part 3: 'an (s, s) square does not fit in memory'; this slices the lesson's square mask.",
      causal_mask='''
def causal_mask(t, s, offset):
    return torch.tril(torch.ones(s, s, dtype=torch.bool))[offset:offset + t].clone()
'''))
S(sub("w_p4_uint8_start", False,
      "Part 4: lengths of uint8 with range smaller than s; s - lengths computed in uint8 wraps. [closed class: narrow ints]",
      padding_mask='''
def padding_mask(lengths, s):
    start = (s - lengths)[:, None].to(torch.int64)
    j = torch.arange(s)[None, :]
    allowed = j >= start
    positions = torch.where(allowed, j - start, torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''))
S(sub("w_p4_loop_over_slots", False,
      "Part 4: 'a row can hold tens of thousands of slots'; intro 'a call should take a fraction of a second': a Python loop "
      "over every slot of every row (the text allows a loop over the batch only).",
      padding_mask='''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        L = int(lengths[b])
        for j in range(s - L, s):
            allowed[b, j] = True
            positions[b, j] = j - (s - L)
    return allowed, positions
'''))
S(sub("w_p5_exp_masked_in_place", False,
      "Part 5: 'Gradients must flow through output and lse'; zeroing exp's saved output in place (masked_fill_) keeps the "
      "values but backward() raises.",
      masked_attention='''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros((), dtype=z.dtype))
    e = torch.exp(z - m)
    e.masked_fill_(~allowed, 0.0)
    tot = e.sum(-1, keepdim=True)
    lse = (m + torch.log(tot)).squeeze(-1)
    out = (e / torch.where(tot > 0, tot, torch.ones((), dtype=z.dtype))) @ v
    return out, lse
'''))
S(sub("w_p5_max_before_masking", False,
      "Part 5: 'a masked key counts for nothing however its score compares with the allowed ones'; the row maximum is taken "
      "before masking, so a masked score far above the allowed ones underflows them to 0 (lse = -inf, output 0).",
      masked_attention='''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    m = z.amax(-1, keepdim=True)
    e = torch.exp(z - m) * allowed
    tot = e.sum(-1, keepdim=True)
    lse = (m + torch.log(tot)).squeeze(-1)
    out = (e / torch.where(tot > 0, tot, torch.ones((), dtype=z.dtype))) @ v
    return out, lse
'''))
S(sub("w_p6_one_q_for_all_pairs", False,
      "Part 6: 'draw n independent pairs (q, k)'; one q is drawn and reused with every k (mean of the variance is still "
      "d_k/3, but the values spread as |q|^2 chi^2 instead).",
      variance_experiment='''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (k @ q)).var().item()

predicted_variance_512 = 512 / 3
'''))
S(sub("w_p6_gaussian_q_matched_moments", False,
      "Part 6: 'the entries of q are independent and uniform on [0, 1) (torch.rand)'; normal entries with the uniform's mean "
      "and variance give the same mean variance but another distribution of q.k.",
      variance_experiment='''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = 0.5 + torch.randn(n, d_k, generator=generator, dtype=torch.float64) / math.sqrt(12)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''))
S(sub("w_p6_scale_not_squared", False,
      "Part 6: 'compute the n numbers scale * (q . k), and return their sample variance'; this multiplies the variance by "
      "scale instead of scale^2.",
      variance_experiment='''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return scale * (q * k).sum(-1).var().item()

predicted_variance_512 = 512 / 3
'''))
S(sub("w_p6_predicted_centered_q", False,
      "Part 6: 'Careful: the entries of q do not have mean 0'; this uses Var(q) = 1/12 in place of E[q^2] = 1/3.",
      variance_experiment='''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 12
'''))

FSA = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) SCALE
        block = torch.zeros(T, T, dtype=torch.bool)
        if causal:
            block = block | torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        block = block.expand(x.shape[0], T, T)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            block = block | ~real[:, None, :]
        dead = block.all(-1, keepdim=True)
        SOFTMAX
        out = torch.matmul(weights, v)
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''
FSM = '''scores = scores.masked_fill(block, float("-inf")).masked_fill(dead, 0.0)
        sdt = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else scores.dtype
        weights = torch.softmax(scores.to(sdt), dim=-1).to(scores.dtype).masked_fill(dead, 0.0)'''
def fsa(scale="/ math.sqrt(q.shape[-1])", softmax=FSM):
    return FSA.replace("SCALE", scale).replace("SOFTMAX", softmax)

S(sub("w_p7_scale_one_over_dk", False,
      "Part 7: 'the softmax ... of q_i . k_j / sqrt(d_k)'; this divides by d_k (the visible by-hand layer has d_k = 1).",
      fixed_self_attention=fsa(scale="/ q.shape[-1]")))
S(sub("w_p7_softmax_output_zeroed_in_place", False,
      "Part 7: gradients 'must flow through the output ... the hidden tests compare its gradients'; zeroing rows of softmax's "
      "saved output in place keeps the values but backward() raises.",
      fixed_self_attention=fsa(softmax='''scores = scores.masked_fill(block, float("-inf")).masked_fill(dead, 0.0)
        weights = torch.softmax(scores, dim=-1)
        weights.masked_fill_(dead, 0.0)''')))
S(sub("w_p7_renormalised_softmax", False,
      "Part 7: 'No query may attend to a padding key (weight exactly 0, also when the scores are in the tens of thousands)' and "
      "'no output contains NaN'; a softmax over all keys renormalised over the allowed ones underflows to 0/0 when a masked "
      "score is far above the allowed ones.",
      fixed_self_attention=fsa(softmax='''w = torch.softmax(scores, dim=-1) * ~block
        tot = w.sum(-1, keepdim=True)
        weights = w / torch.where(tot > 0, tot, torch.ones((), dtype=w.dtype))''')))
S(sub("w_p7_float32_softmax_kept", False,
      "Part 7: 'as accurate as that dtype allows ... float64 inputs, and compare to about 1e-9'; keeps the seed's "
      "scores.float(). [closed class: float32 arithmetic on float64 inputs]",
      fixed_self_attention=fsa(softmax='''scores = scores.masked_fill(block, float("-inf")).masked_fill(dead, 0.0)
        weights = torch.softmax(scores.float(), dim=-1).type_as(scores).masked_fill(dead, 0.0)''')))
S(sub("w_p8_masking_uniform", False, "8a: float64 keeps the -10..10 differences at -1e9 (ulp ~1e-7), so not (c).",
      mc_answers='answer_masking = "c"\nanswer_doubling = "b"\n'))
S(sub("w_p8_doubling_sqrt2", False, "8b: variance per term is 16, 128 terms / 64 = 32, std 4 sqrt 2: not (d).",
      mc_answers='answer_masking = "d"\nanswer_doubling = "d"\n'))

# ------------------------------------------------------------------ correct answers
S(sub("c_p1_einsum_float64_inplace_transposed", True,
      "Part 1: float64 inside and cast back, einsum, in-place ops on own intermediates, a transposed (non-contiguous) result.",
      raw_scores='''
def raw_scores(q, k):
    Q, K = q.double(), k.double()
    st = torch.einsum("...sd,...td->...st", K, Q)           # (..., S, T)
    st.mul_(2).sub_(Q.square().sum(-1).unsqueeze(-2)).sub_(K.square().sum(-1).unsqueeze(-1)).clamp_(max=0)
    return st.to(q.dtype).transpose(-2, -1)
'''))
S(sub("c_p2_addcmul_keywords", True,
      "Part 2 from the Jacobian: torch.addcmul in float64, result divided by temperature; int temperature fine.",
      softmax_backward='''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.to(torch.float64)
    g = grad_weights.to(torch.float64)
    inner = torch.einsum("...s,...s->...", w, g).unsqueeze(-1)
    out = torch.addcmul(torch.zeros_like(w), w, g - inner, value=1.0 / float(temperature))
    return out.to(weights.dtype)
'''))
S(sub("c_p3_row_loop", True,
      "Part 3: a loop over the t rows writing slices into a fresh bool tensor (t*s elements, exact ints).",
      causal_mask='''
def causal_mask(t, s, offset):
    m = torch.zeros(t, s, dtype=torch.bool)
    for i in range(t):
        m[i, :offset + i + 1] = True
    return m
'''))
S(sub("c_p4_calls_part3_per_row", True,
      "Part 4 via Part 3: row b's allowed slots are NOT(causal_mask(1, s, s - L - 1)), a single query with a Python int offset "
      "in 0..s-1 (L = s handled apart); positions from a cumulative sum.",
      padding_mask='''
def padding_mask(lengths, s):
    rows = []
    for L in lengths.tolist():
        if L == s:
            rows.append(torch.ones(s, dtype=torch.bool))
        else:
            rows.append(~causal_mask(1, s, s - L - 1)[0])
    allowed = torch.stack(rows) if rows else torch.zeros(0, s, dtype=torch.bool)
    positions = (allowed.cumsum(-1) - 1).clamp(min=0)
    return allowed, positions
'''))
S(sub("c_p5_logsumexp_softmax_nan_to_num_detached_max", True,
      "Part 5 with torch.logsumexp and torch.softmax, NaN rows replaced with torch.where; the gradient of log-sum-exp does not "
      "depend on the shift, so detaching the shift gives the same gradients.",
      masked_attention='''
def masked_attention(q, k, v, allowed):
    z = torch.einsum("...td,...sd->...ts", q, k) * (1.0 / math.sqrt(q.shape[-1]))
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    m = z.amax(-1, keepdim=True).detach()
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    tot = e.sum(-1, keepdim=True)
    lse = (torch.log(tot) + m).squeeze(-1)
    any_ = allowed.expand(z.shape).any(-1, keepdim=True)
    w = torch.where(any_, e / torch.where(any_, tot, torch.ones_like(tot)), torch.zeros_like(e))
    return w @ v, lse
'''))
S(sub("c_p6_k_first_float32", True,
      "Part 6: 'In which order you draw the numbers, and in which floating-point dtype, is up to you': k first, float32 draws, "
      "float64 sums; scale given as an int is fine.",
      variance_experiment='''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.randn(n, d_k, generator=generator)
    q = torch.rand(n, d_k, generator=generator)
    d = torch.einsum("nd,nd->n", q.double(), k.double()) * scale
    return float(d.var())

predicted_variance_512 = 512 * (1 / 3)
'''))
S(sub("c_p7_calls_part5_and_part3", True,
      "Part 7 via Part 5 (masked_attention, which scales by sqrt(q.shape[-1]) = sqrt(d_k)) with Part 3's causal_mask(T, T, 0) "
      "by keyword and a (B, 1, T) padding mask; a row with no allowed key is given every key and zeroed after.",
      fixed_self_attention='''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(1, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & causal_mask(t=T, s=T, offset=0)
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
        allowed = allowed & real[:, None, :]
        dead = ~allowed.any(-1, keepdim=True)
        out, lse = masked_attention(q, k, v, allowed | dead)
        return out.masked_fill(dead | ~real[:, :, None], 0.0)
'''))
S(sub("c_p7_calls_part5_float64_2d_mask", True,
      "Part 7 via Part 5 in float64 (higher precision inside, cast back) one sequence at a time with a 2-D (T, S) mask: "
      "causal_mask(T, L, 0) for the L real keys (positional), padding queries zero.",
      fixed_self_attention='''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x).double(), self.key(x).double(), self.value(x).double()
        rows = []
        for b in range(B):
            L = T if lengths is None else int(lengths[b])
            ob = torch.zeros(T, v.shape[-1], dtype=torch.float64)
            if L > 0:
                if causal:
                    mask = causal_mask(L, L, 0)
                else:
                    mask = torch.ones(L, L, dtype=torch.bool)
                o, _ = masked_attention(q[b, :L], k[b, :L], v[b, :L], mask)
                ob = torch.cat([o, ob[L:]], 0)
            rows.append(ob)
        return torch.stack(rows).to(x.dtype)
'''))
S(sub("c_p8_plain", True, "Part 8: the two answers, written with str().",
      mc_answers='answer_masking = str("d")\nanswer_doubling = "b".lower()\n'))

# ------------------------------------------------------------------ hostile answers
S(sub("h_p8_lying_str", False, "Hostile: str subclass equal to everything.",
      mc_answers='''
class Any(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
answer_masking = Any("a")
answer_doubling = Any("a")
'''))
S(sub("h_p8_read_solution_notebook", False, "Hostile: reads the solution notebook from disk for the answers.",
      mc_answers='''
import glob, json, re
answer_masking, answer_doubling = "a", "a"
import os
here = os.path.abspath(os.getcwd())
found = []
for _ in range(6):
    found += glob.glob(os.path.join(here, "solutions", "02-*", "exercises.ipynb")) + glob.glob(os.path.join(here, "*", "solutions", "02-*", "exercises.ipynb"))
    here = os.path.dirname(here)
for path in found[:1]:
    text = "".join("".join(c["source"]) for c in json.load(open(path))["cells"])
    m1 = re.search(r'answer_masking\\s*=\\s*"(\\w)"', text); m2 = re.search(r'answer_doubling\\s*=\\s*"(\\w)"', text)
    if m1: answer_masking = m1.group(1)
    if m2: answer_doubling = m2.group(1)
'''))
S(sub("h_p1_hide_from_dispatch_watch", False,
      "Hostile: builds the (..., T, S, Dh) difference with torch's dispatch modes switched off so the memory watch cannot see it.",
      raw_scores='''
from torch.utils._python_dispatch import _disable_current_modes
def raw_scores(q, k):
    with _disable_current_modes():
        d = q[..., :, None, :] - k[..., None, :, :]
        return -(d * d).sum(-1)
'''))
