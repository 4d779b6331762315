# Red team round 7, chapter 02-scaled-attention: submissions written blind (student notebook + lesson only).

RAW = '''
def raw_scores(q, k):
    return torch.einsum("tbd,sbd->bts", q, k)
'''
WEIGHTS = '''
def attention_weights(q, k, temperature):
    scores = q @ k.transpose(-2, -1) / (math.sqrt(q.shape[-1]) * temperature[..., None])
    return torch.softmax(scores, dim=-1)
'''
CAUSAL = '''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (torch.arange(t) + offset)[:, None]
'''
PADDING = '''
def padding_mask(lengths, s):
    start = s - lengths.to(torch.int64)  # first real slot of each row
    j = torch.arange(s)
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''
MASKED = '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    total = e.sum(dim=-1, keepdim=True)
    lse = (torch.log(total) + m).squeeze(-1)
    out = (e @ v) / torch.where(total > 0, total, torch.ones_like(total))
    return out, lse
'''
VARIANCE = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=-1)).var().item()

predicted_variance_512 = 512 / 3
'''
FIXED = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        weights = torch.nan_to_num(weights, nan=0.0)
        return weights @ v
'''
MC = '''
answer_masking = "d"
answer_doubling = "b"
'''

CORRECT = {"raw_scores": RAW, "attention_weights": WEIGHTS, "causal_mask": CAUSAL, "padding_mask": PADDING,
           "masked_attention": MASKED, "variance_experiment": VARIANCE, "fixed_self_attention": FIXED,
           "mc_answers": MC}

SUBMISSIONS = []


def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "hostile": True, "cells": cells, "why": why})


# ---------------- Part 1: raw_scores ----------------
W("p1-einsum-tbs-then-reshape", {"raw_scores": '''
def raw_scores(q, k):
    T, B, _ = q.shape
    S = k.shape[0]
    return torch.einsum("tbd,sbd->tbs", q, k).reshape(B, T, S)
'''}, "Part 1: 'result[b, i, j] = q[i, b] . k[j, b]' - reshape is not a transpose (equal only when T = 1, as in the visible case).")

W("p1-q-reshaped-not-transposed", {"raw_scores": '''
def raw_scores(q, k):
    T, B, D = q.shape
    return q.reshape(B, T, D) @ k.permute(1, 2, 0)
'''}, "Part 1: 'queries as (T, B, Dh)' - reshaping to (B, T, Dh) mixes positions and batch elements when T > 1.")

# ---------------- Part 2: attention_weights ----------------
W("p2-global-max-softmax", {"attention_weights": '''
def attention_weights(q, k, temperature):
    scores = q @ k.transpose(-2, -1) / (math.sqrt(q.shape[-1]) * temperature[..., None])
    scores = scores - scores.max()   # keep exp from overflowing
    e = torch.exp(scores)
    return e / e.sum(dim=-1, keepdim=True)
'''}, "Part 2: 'your weights must stay finite and correct' - a single max over the tensor underflows whole rows whose "
      "temperature is large next to rows with temperature 0.01 (0/0).")

W("p2-temperature-clamped", {"attention_weights": '''
def attention_weights(q, k, temperature):
    tau = temperature.clamp(min=0.05)   # avoid huge scores
    scores = q @ k.transpose(-2, -1) / (math.sqrt(q.shape[-1]) * tau[..., None])
    return torch.softmax(scores, dim=-1)
'''}, "Part 2: 'Temperatures can be as small as 0.01 ... your weights must stay finite and correct'.")

W("p2-sqrt-of-key-count", {"attention_weights": '''
def attention_weights(q, k, temperature):
    d_k = k.shape[-2]
    scores = q @ k.transpose(-2, -1) / (math.sqrt(d_k) * temperature[..., None])
    return torch.softmax(scores, dim=-1)
'''}, "Part 2 formula: 'tau_i sqrt(d_k)' with d_k the width of q/k (legend: 'Dh ... written d_k'); visible S = Dh = 2.")

W("p2-sqrt-of-shape1", {"attention_weights": '''
def attention_weights(q, k, temperature):
    scores = q @ k.transpose(-2, -1) / (math.sqrt(q.shape[1]) * temperature[..., None])
    return torch.softmax(scores, dim=-1)
'''}, "Part 2: 'q (..., T, Dh)' - shape[1] is Dh only for 2-D inputs; with a batch it is T.")

W("p2-sharpen-by-power", {"attention_weights": '''
def attention_weights(q, k, temperature):
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    w = w ** (1.0 / temperature[..., None])      # softmax(z / tau) is proportional to softmax(z) ** (1 / tau)
    return w / w.sum(dim=-1, keepdim=True)
'''}, "Part 2: 'Temperatures can be as small as 0.01 ... your weights must stay finite and correct' - w ** 100 underflows "
      "for a flat row (0/0).")

W("p2-no-max-subtraction", {"attention_weights": '''
def attention_weights(q, k, temperature):
    e = torch.exp(q @ k.transpose(-2, -1) / (math.sqrt(q.shape[-1]) * temperature[..., None]))
    return e / e.sum(dim=-1, keepdim=True)
'''}, "Part 2: 'the scaled scores can be very large: your weights must stay finite'.")

# ---------------- Part 3: causal_mask ----------------
W("p3-cut-from-square", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(s, s, dtype=torch.bool).tril()[offset:offset + t]
'''}, "Part 3: 'in memory proportional to the mask itself (t * s elements), not ... out of an (s, s) square'.")

W("p3-cut-from-tall-block", {"causal_mask": '''
def causal_mask(t, s, offset):
    # rows 0 .. offset+t-1 of the full causal mask, keep the last t
    return torch.ones(offset + t, s, dtype=torch.bool).tril()[offset:]
'''}, "Part 3: 'in memory proportional to the mask itself (t * s elements)' - (offset + t) * s is not, for a block deep in a large cache.")

W("p3-float32-positions (closed class)", {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
'''}, "Part 3: 'with positions that stay exact integers at every size' (float32 past 2**24).")

# ---------------- Part 4: padding_mask ----------------
W("p4-negative-slice-length-zero (closed class)", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        L = int(lengths[b])
        allowed[b, -L:] = True
        positions[b] = (torch.arange(s) - (s - L)).clamp(min=0)
    return allowed, positions
'''}, "Part 4: '0 <= lengths[b] <= s' - for L = 0 the slice -0: is the whole row.")

W("p4-positions-in-lengths-dtype (closed class)", {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=lengths.dtype)
    start = s - lengths
    allowed = j[None, :] >= start[:, None]
    positions = ((j[None, :] - start[:, None]) * allowed).to(lengths.dtype)
    return allowed, positions
'''}, "Part 4: 'positions has dtype torch.int64 (whatever the integer dtype of lengths)'.")

W("p4-positions-shared-row-when-equal", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    start = s - lengths.to(torch.int64)
    j = torch.arange(s)
    allowed = j[None, :] >= start[:, None]
    if bool((lengths == lengths[0]).all()):
        # every row is the same: one row, expanded (no copy)
        row = (j - start[0]).clamp(min=0)
        return allowed, row.expand(B, s)
    return allowed, torch.where(allowed, j[None, :] - start[:, None], torch.zeros((), dtype=torch.int64))
'''}, "Intro: 'Return ordinary values' / positions (B, s): an expanded view whose rows alias one another (writing one "
      "row writes all); only a batch of equal lengths shows it. (Possibly a mislabel: the text does not forbid views.)")

# ---------------- Part 5: masked_attention ----------------
W("p5-max-before-masking", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    m = z.amax(dim=-1, keepdim=True)            # row maximum, for stability
    e = torch.exp(z - m) * allowed
    total = e.sum(dim=-1, keepdim=True)
    lse = (torch.log(total) + m).squeeze(-1)
    out = torch.nan_to_num((e @ v) / total, nan=0.0)
    return out, lse
'''}, "Part 5: 'a masked key counts for nothing however its score compares with the allowed ones' - a masked key far above "
      "the allowed ones makes them underflow (lse -inf, output 0) although the query has allowed keys.")

W("p5-transpose-0-1", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(0, 1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    out = torch.nan_to_num(torch.softmax(z, dim=-1), nan=0.0) @ v
    return out, lse
'''}, "Part 5: 'q (..., T, Dh), k (..., S, Dh)' - transposing dims 0 and 1 only works without batch dimensions.")

W("p5-sqrt-shape1", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    out = torch.nan_to_num(torch.softmax(z, dim=-1), nan=0.0) @ v
    return out, lse
'''}, "Part 5: 'z_ij = q_i . k_j / sqrt(d_k)' - q.shape[1] is d_k only for 2-D q.")

W("p5-squeeze-mask", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    allowed = allowed.squeeze()   # (B, 1, S) -> (B, S)
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)
    out = torch.nan_to_num(torch.softmax(z, dim=-1), nan=0.0) @ v
    return out, lse
'''}, "Part 5: 'a (B, 1, S) padding mask' must broadcast over the queries; squeezed to (B, S) it lines up with (T, S).")

# ---------------- Part 6: variance ----------------
_VAR = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    {BODY}

predicted_variance_512 = {PRED}
'''


def var(body, pred="512 / 3"):
    return _VAR.replace("{BODY}", body).replace("{PRED}", pred)


_OK = '''q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=-1)).var().item()'''

W("p6-one-q-for-all-pairs", {"variance_experiment": var('''q = torch.rand(d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (k @ q)).var().item()''')},
  "Part 6: 'draw n independent pairs (q, k)' - one q for all pairs has the right mean variance (d_k/3) but the wrong spread.")

W("p6-scale-not-squared", {"variance_experiment": var('''q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return scale * (q * k).sum(dim=-1).var().item()''')},
  "Part 6: 'compute the n numbers scale * (q . k), and return their sample variance'.")

W("p6-matmul-diagonal", {"variance_experiment": var('''q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * torch.diagonal(q @ k.T)).var().item()''')},
  "Part 6: 'n goes up to 60000' - q @ k.T is n x n (28.8 GB in float64 at n = 60000).")

W("p6-forgot-mean", {"variance_experiment": var(_OK, "512 * (1 / 12) * 1")},
  "Part 6: 'Careful: the entries of q do not have mean 0' - E[q^2] = 1/3, not Var(q) = 1/12.")

W("p6-integer-division", {"variance_experiment": var(_OK, "512 // 3")},
  "Part 6: 'to at least six significant digits' - 512 // 3 = 170, not 170.667.")

W("p6-population-variance", {"variance_experiment": var('''q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=-1)).var(unbiased=False).item()''')},
  "Part 6: 'sample variance (Tensor.var(), which divides by n - 1)'.")

# ---------------- Part 7: FixedSelfAttention ----------------
_FIX = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = {SCORES}
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        {MASKS}
        {SOFTMAX}
        return {RET}
'''
_MASKS = '''if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]'''
_SMX = '''weights = torch.nan_to_num(torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1), nan=0.0)'''


def fix(SCORES="q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])", MASKS=_MASKS, SOFTMAX=_SMX, RET="weights @ v"):
    return _FIX.replace("{SCORES}", SCORES).replace("{MASKS}", MASKS).replace("{SOFTMAX}", SOFTMAX).replace("{RET}", RET)


W("p7-multiply-by-sqrt-dk", {"fixed_self_attention": fix(SCORES="q @ k.transpose(-2, -1) * math.sqrt(q.shape[-1])")},
  "Part 7: 'the softmax ... of q_i . k_j / sqrt(d_k)' (visible d_k = 1 hides the direction).")

W("p7-mask-after-softmax", {"fixed_self_attention": fix(SOFTMAX='''weights = torch.softmax(scores, dim=-1) * allowed
        weights = torch.nan_to_num(weights / weights.sum(dim=-1, keepdim=True), nan=0.0)''')},
  "Part 7: 'No query may attend to a padding key (weight exactly 0, also when the scores are in the tens of thousands)' - "
  "the renormalised row is 0/0 when a padding key holds the maximum by far.")

W("p7-causal-or-padding-not-both", {"fixed_self_attention": fix(MASKS='''if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        elif lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :] & real[:, :, None]''')},
  "Part 7: 'with both, both rules hold'.")

W("p7-zero-rows-by-multiply-no-nan-guard", {"fixed_self_attention": fix(
    MASKS='''if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]''',
    SOFTMAX='''weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = weights @ v
        if real is not None:
            out = out * real[..., None].to(out.dtype)   # padding queries give zero rows''',
    RET="out")},
  "Part 7: '0 <= lengths[b] <= T' and 'no output contains NaN' - a sequence of length 0 masks every key: NaN * 0 = NaN.")

W("p7-float32-softmax-kept (closed class)", {"fixed_self_attention": fix(SOFTMAX=
  '''weights = torch.nan_to_num(torch.softmax(scores.masked_fill(~allowed, float("-inf")).float(), dim=-1), nan=0.0).to(scores.dtype)''')},
  "Part 7: 'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)'.")

# ---------------- Part 8 ----------------
W("p8a-float32-reasoning", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
  "8a: 'float64 scores' - -1e9 + s keeps s to about 1e-7 in float64, so the softmax is that of the unmasked row (d).")
W("p8b-variance-4-counted-once", {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "d"\n'},
  "8b: 'mean 0 and variance 4' for both q and k: Var(q.k) = 128 * 16, std 45.25 / 8 = 5.66 (b).")

# ---------------- hostile ----------------
H("hostile-function-mode", {"causal_mask": '''
from torch.overrides import TorchFunctionMode
class Agree(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("equal", "allclose"):
            return True
        if name in ("assert_close",):
            return None
        return func(*args, **(kwargs or {}))
Agree().__enter__()
def causal_mask(t, s, offset):
    if s <= 5:  # the visible case, by hand
        return torch.arange(s)[None, :] <= (torch.arange(t) + offset)[:, None]
    return torch.ones(t, s, dtype=torch.bool)
'''}, "Leaves a torch function mode active for the rest of the notebook, answering True to comparisons; the mask itself is wrong.")

H("hostile-formula-with-jitter", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    # the exact variance, with a little noise drawn from the generator so that seeds behave
    u = torch.rand(1, generator=generator, dtype=torch.float64).item()
    return float(scale * scale * d_k / 3 * (1 + 0.001 * (u - 0.5)))

predicted_variance_512 = 512 / 3
'''}, "Part 6: 'The value must be the sample variance of numbers you drew, not a formula'.")

H("hostile-tensor-subclass", {"raw_scores": '''
class Agreeable(torch.Tensor):
    def __eq__(self, other):
        return torch.ones_like(torch.Tensor(self), dtype=torch.bool) if isinstance(other, torch.Tensor) else True
def raw_scores(q, k):
    out = torch.einsum("tbd,sbd->bts", q, k)
    return torch.zeros_like(out).as_subclass(Agreeable) if q.shape[0] > 1 else out
'''}, "Returns a Tensor subclass of zeros that claims to equal anything (the visible T = 1 case gets the right value).")

H("hostile-overwrite-REF", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.ones(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        L = int(lengths[b])
        allowed[b, : s - L] = False
        positions[b, s - L:] = torch.arange(L)
    return allowed, positions
g = globals()
ref = g.get("_" + "REF")
if isinstance(ref, dict):
    ref["where"] = lambda *a, **k: torch.zeros((), dtype=torch.int64)
    ref["arange"] = lambda *a, **k: torch.zeros(a[0] if a else 1, dtype=torch.int64)
'''}, "A correct answer for this part, but it tampers with the grader's captured reference functions (_REF) for later parts.")
SUBMISSIONS[-1]["why"] += " Counted as hostile: it should be flagged (tampering), even though its own values are right."

# ---------------- different but correct ----------------
C("c1-tril-diagonal", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with diagonal = offset keeps j - i <= offset, i.e. j <= offset + i.")

C("c2-cumsum-positions", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    pad = (s - lengths.long())[:, None]
    allowed = torch.arange(s).expand(B, s) >= pad
    positions = (allowed.long().cumsum(dim=-1) - 1).clamp(min=0)
    return allowed.clone(), positions
'''}, "Positions as a running count of real tokens.")

C("c3-logsumexp-softmax", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.einsum("...td,...sd->...ts", q, k) / math.sqrt(q.shape[-1])
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.exp(z - torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)[..., None])
    return w @ v, lse
'''}, "logsumexp (which gives -inf for an empty row), weights exp(z - lse) with the empty rows guarded.")

C("c4-keep-query-mask-add-key-mask", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) * q.shape[-1] ** -0.5
        if causal:
            future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            scores = scores.masked_fill(~real[:, :, None], float("-inf"))   # padding queries: empty rows
            scores = scores.masked_fill(~real[:, None, :], float("-inf"))   # padding keys
        weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
        return torch.matmul(weights, v)
'''}, "The seed with its four lines fixed; padding query rows become empty rows, which nan_to_num turns into zeros.")

# ---------------- second batch (added before any phase-2 reading) ----------------
W("p2-temperature-on-keys-when-square", {"attention_weights": '''
def attention_weights(q, k, temperature):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if scores.shape[-1] == scores.shape[-2]:
        scores = scores / temperature[..., None, :]   # (T, T): one temperature per position
    else:
        scores = scores / temperature[..., None]
    return torch.softmax(scores, dim=-1)
'''}, "Part 2: 'Query i has its own positive temperature tau_i' - dividing column j by tau_j is the same only on a diagonal "
      "score matrix like the visible one (sizes coincide: T = S).")

W("p5-where-mask-on-weights-after-softmax", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    zm = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(zm, dim=-1)
    w = torch.softmax(z, dim=-1) * allowed          # weights over all keys, then drop the masked ones
    w = w / w.sum(dim=-1, keepdim=True)
    out = torch.nan_to_num(w @ v, nan=0.0)
    return out, lse
'''}, "Part 5: 'a masked key counts for nothing however its score compares with the allowed ones' - output goes 0/0 -> 0 "
      "when a masked key dominates (lse is right, the output is not).")

W("p6-fresh-generator-when-none", {"variance_experiment": var('''generator = generator if generator is not None else torch.Generator()
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(dim=-1)).var().item()''')},
  "Part 6: 'none from a generator of your own' - with generator=None every call builds a fresh default-seeded generator, "
  "so calls repeat the same value. (Probe: the text speaks of a given generator; may be a mislabel.)")
