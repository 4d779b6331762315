# Red team round 30, chapter 02 (blind). Kinds: validator, batch-mixer, gradient-path, incremental, second-call.
SUBMISSIONS = []
def W(name, kind, cells, why): SUBMISSIONS.append({"name": f"{kind}:{name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why): SUBMISSIONS.append({"name": f"{kind}:{name}", "correct": True, "cells": cells, "why": why})
def H(name, cells, why): SUBMISSIONS.append({"name": f"hostile:{name}", "correct": False, "cells": cells, "why": why})
def sub(src, old, new):
    assert src.count(old) == 1, (old, src.count(old))
    return src.replace(old, new)

RAW = r'''
def raw_scores(q, k):
    dt = q.dtype
    work = torch.float64 if dt in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(work), k.to(work)
    qq = (qw * qw).sum(-1)
    kk = (kw * kw).sum(-1)
    s = 2 * (qw @ kw.transpose(-2, -1)) - qq[..., :, None] - kk[..., None, :]
    return s.clamp(max=0).to(dt)
'''
SMB = r'''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    work = dt if dt in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    inner = (w * g).sum(-1, keepdim=True)
    return (w * (g - inner) / temperature).to(dt)
'''
CM = r'''
def causal_mask(t, s, offset):
    i = torch.arange(t)[:, None]
    j = torch.arange(s)[None, :]
    return j <= i + offset
'''
PM = r'''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    j = torch.arange(s)[None, :]
    start = (s - L)[:, None]
    allowed = j >= start
    positions = torch.where(allowed, j - start, torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''
MA = r'''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    work = torch.float32 if dt == torch.bfloat16 else dt
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    z = (qw / math.sqrt(q.shape[-1])) @ kw.transpose(-2, -1)
    allowed = allowed.expand(z.shape)
    neg = torch.tensor(float("-inf"), dtype=work)
    zm = torch.where(allowed, z, neg)
    m = zm.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(torch.where(allowed, z - m, neg))
    tot = e.sum(-1, keepdim=True)
    w = e / torch.where(tot > 0, tot, torch.ones_like(tot))
    out = w @ vw
    lse = (m + torch.log(tot)).squeeze(-1)
    return out.to(dt), lse.to(dt)
'''
VAR = r'''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''
FSA = r'''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        dt = q.dtype
        work = torch.float32 if dt == torch.bfloat16 else dt
        q, k, v = q.to(work), k.to(work), v.to(work)
        scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device).expand(B, T, T)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        real = torch.ones(B, T, dtype=torch.bool, device=x.device)
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.to(torch.long)[:, None]
            allowed = allowed & real[:, None, :]
        neg = torch.tensor(float("-inf"), dtype=work)
        zm = torch.where(allowed, scores, neg)
        m = zm.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(torch.where(allowed, scores - m, neg))
        tot = e.sum(-1, keepdim=True)
        w = e / torch.where(tot > 0, tot, torch.ones_like(tot))
        out = w @ v
        out = torch.where(real[:, :, None], out, torch.zeros((), dtype=work))
        return out.to(dt)
'''

# ================================================================ WRONG: the validator
W("P3 requires the block to end before the last slot", "validator", {"causal_mask": sub(CM,
    '    i = torch.arange(t)[:, None]\n',
    '    if not (t >= 1 and 0 <= offset and offset + t < s):\n'
    '        raise ValueError("the block must lie inside the cache")\n'
    '    i = torch.arange(t)[:, None]\n')},
  "Part 3: '0 <= offset <= s - t' (and 'The lesson's causal_mask(t) is the case s = t, offset = 0'): offset = s - t, "
  "a block that fills the cache to its end, is refused.")
W("P4 refuses lengths > s compared in the lengths' own dtype", "validator", {"padding_mask": sub(PM,
    '    L = lengths.to(torch.int64)\n',
    '    if lengths.numel() and ((lengths < 0).any() or (lengths > s).any()):\n'
    '        raise ValueError("lengths must lie in [0, s]")\n'
    '    L = lengths.to(torch.int64)\n')},
  "Part 4: 'lengths is a 1-D tensor of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)': "
  "uint8 lengths compared with s = 300 compare with 44 and valid lengths are refused.")
W("P2 refuses weights whose rows do not sum to 1", "validator", {"softmax_backward": sub(SMB,
    '    dt = weights.dtype\n',
    '    dt = weights.dtype\n'
    '    if weights.numel() and not ((weights.float().sum(-1) - 1).abs() < 1e-2).all():\n'
    '        raise ValueError("weights must be the output of a softmax (rows summing to 1)")\n')},
  "Part 2: 'a row whose weights are all 0 (a query with no allowed key, as in Part 5) [gets] an all-zero row': such "
  "rows are valid inputs and are refused.")
W("P5 reads a 3-D mask of 4-D inputs as (B, T, S)", "validator", {"masked_attention": sub(MA,
    '    allowed = allowed.expand(z.shape)\n',
    '    if allowed.dim() == 3 and z.dim() == 4:\n'
    '        allowed = allowed[:, None]          # (B, T, S) -> (B, 1, T, S): the same mask for every head\n'
    '    allowed = allowed.expand(z.shape)\n')},
  "Part 5: 'for inputs (B, H, T, Dh) a 3-D mask is (H, T, S) (or has size 1 there), one per head, not a (B, T, S) mask "
  "missing its head axis'.")
W("P6 refuses scales outside [1e-6, 1e6]", "validator", {"variance_experiment": sub(VAR,
    '    q = torch.rand(',
    '    if not (1e-6 <= abs(scale) <= 1e6):\n'
    '        raise ValueError("scale out of a sensible range")\n'
    '    q = torch.rand(')},
  "Part 6: 'scale may be of any size (the tests use 1e-8 ... and 1e-25 and 1e25)'.")
W("P7 clamps lengths to [0, T] in their own dtype", "validator", {"fixed_self_attention": sub(FSA,
    '            real = torch.arange(T, device=x.device)[None, :] < lengths.to(torch.long)[:, None]\n',
    '            lengths = lengths.clamp(0, T)     # defensive\n'
    '            real = torch.arange(T, device=x.device)[None, :] < lengths.to(torch.long)[:, None]\n')},
  "Part 7: 'lengths ... of any integer dtype (uint8 and int8 too, whose range can be smaller than T)': uint8.clamp(0, 300) "
  "raises.")

W("P1 accepts only (T, Dh) or (B, T, Dh)", "validator", {"raw_scores": sub(RAW,
    '    dt = q.dtype\n',
    '    if q.dim() not in (2, 3) or k.dim() != q.dim():\n'
    '        raise ValueError("q and k must be (T, Dh) or (B, T, Dh)")\n'
    '    dt = q.dtype\n')},
  "Part 1: 'q is (..., T, Dh), k is (..., S, Dh), both with the same leading dimensions ... (possibly none)': a (B, H, T, Dh) "
  "input is refused.")

# ================================================================ WRONG: the batch-mixer
W("P2 inner product summed over the whole tensor", "batch-mixer", {"softmax_backward": sub(SMB,
    '    inner = (w * g).sum(-1, keepdim=True)\n', '    inner = (w * g).sum()\n')},
  "Part 2: 'w = softmax(z / tau) (over the last dimension)': the Jacobian couples keys of one row only; the sum over "
  "every row mixes rows (right for a single row only).")
W("P5 one maximum for the whole tensor", "batch-mixer", {"masked_attention": sub(MA,
    '    m = zm.amax(-1, keepdim=True)\n', '    m = zm.amax()                          # one shift for all rows\n')},
  "Part 5: 'scores can be large (tens of thousands, of either sign ...): lse and output must be finite wherever a query "
  "has an allowed key': a row tens of thousands below the global maximum underflows to lse = -inf, output 0.")
W("P7 the padding of the first sequence used for all", "batch-mixer", {"fixed_self_attention": sub(FSA,
    '            real = torch.arange(T, device=x.device)[None, :] < lengths.to(torch.long)[:, None]\n',
    '            real = (torch.arange(T, device=x.device) < lengths.to(torch.long)[0])[None, :].expand(B, T)\n')},
  "Part 7: 'sequence b has lengths[b] real tokens in its first slots'.")
W("P5 one maximum per example, shared by its queries", "batch-mixer", {"masked_attention": sub(MA,
    '    m = zm.amax(-1, keepdim=True)\n', '    m = zm.amax(dim=tuple(range(zm.dim() - 2, zm.dim())), keepdim=True).expand(zm.shape[:-1] + (1,))\n')},
  "Part 5: the log-sum-exp and the weights are per query: a shift shared by all queries of an example underflows a "
  "query whose scores lie tens of thousands below another query's.")

# ================================================================ WRONG: the gradient-path student
W("P1 squared distance through sqrt", "gradient-path", {"raw_scores": sub(RAW,
    '    return s.clamp(max=0).to(dt)\n',
    '    dist = torch.sqrt((-s).clamp(min=0))        # the L2 distance, as cdist gives it\n'
    '    return (-(dist * dist)).to(dt)\n')},
  "Part 1: 'every query has a key equal to it, whose score is 0 (the tests call raw_scores(x, x)), also in their "
  "gradients': sqrt's gradient at 0 is inf, times 0 gives NaN.")
W("P5 exp of unmasked scores, masked by where afterwards", "gradient-path", {"masked_attention": sub(MA,
    '    e = torch.exp(torch.where(allowed, z - m, neg))\n',
    '    e = torch.where(allowed, torch.exp(z - m), torch.zeros_like(z))\n')},
  "Part 5: 'a masked key counts for nothing however its score compares with the allowed ones, in the results and in their "
  "gradients (... where exp of a masked score overflows to inf)': where's backward sends 0 * inf = NaN.")
W("P5 max detached in the exponent only", "gradient-path", {"masked_attention": sub(MA,
    '    e = torch.exp(torch.where(allowed, z - m, neg))\n',
    '    e = torch.exp(torch.where(allowed, z - m.detach(), neg))   # the usual stability trick\n')},
  "Part 5: 'Gradients must flow through output and lse ... the hidden tests compare their gradients with the reference's': "
  "lse = m + log(sum exp(z - m.detach())) has the gradient softmax + d m / d z, one extra one-hot per row.")
W("P7 additive -inf bias, NaN rows replaced by where after the softmax", "gradient-path", {"fixed_self_attention": r'''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        real = torch.ones(B, T, dtype=torch.bool, device=x.device)
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        bias = torch.zeros_like(scores).masked_fill(~allowed, float("-inf"))   # additive mask, as in HF
        scores = scores + bias
        weights = torch.softmax(scores, dim=-1)
        weights = torch.where(allowed.any(-1, keepdim=True), weights, torch.zeros_like(weights))
        out = weights @ v
        return torch.where(real[:, :, None], out, torch.zeros_like(out))
'''}, "Part 7: 'a softmax over a row in which no key is allowed sends NaN back even when its NaN outputs are replaced by "
      "zeros afterwards ... (an added -inf bias passes the NaN on)': lengths[b] = 0 gives NaN gradients.")

# ================================================================ WRONG: the incremental student
W("P5 online softmax over key blocks, first block fully masked", "incremental", {"masked_attention": r'''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    work = torch.float32 if dt == torch.bfloat16 else dt
    qw, kw, vw = q.to(work), k.to(work), v.to(work)
    z = (qw / math.sqrt(q.shape[-1])) @ kw.transpose(-2, -1)
    allowed = allowed.expand(z.shape)
    S = z.shape[-1]
    neg = torch.tensor(float("-inf"), dtype=work)
    m = torch.full(z.shape[:-1] + (1,), float("-inf"), dtype=work)
    l = torch.zeros(z.shape[:-1] + (1,), dtype=work)
    acc = torch.zeros(z.shape[:-1] + (v.shape[-1],), dtype=work)
    for a in range(0, S, 64):                    # FlashAttention's loop over key blocks
        zc = torch.where(allowed[..., a:a + 64], z[..., a:a + 64], neg)
        m_new = torch.maximum(m, zc.amax(-1, keepdim=True))
        corr = torch.exp(m - m_new)
        pc = torch.exp(zc - m_new)
        l = l * corr + pc.sum(-1, keepdim=True)
        acc = acc * corr + pc @ vw[..., a:a + 64, :]
        m = m_new
    has = torch.isfinite(m)
    out = torch.where(has, acc / torch.where(has, l, torch.ones_like(l)), torch.zeros_like(acc))
    lse = torch.where(has, m + torch.log(torch.where(has, l, torch.ones_like(l))), neg).squeeze(-1)
    return out.to(dt), lse.to(dt)
'''}, "Part 5: 'lse and output must be finite wherever a query has an allowed key': when a query's first 64 keys are all "
      "masked (left padding, S > 64), exp(-inf - (-inf)) = NaN enters the running sums and stays.")
W("P3 the square causal mask of the cache so far, sliced", "incremental", {"causal_mask": r'''
def causal_mask(t, s, offset):
    n = offset + t                                          # positions written so far
    square = torch.ones(n, n, dtype=torch.bool).tril()      # the lesson's causal_mask(n)
    block = square[offset:]                                 # the rows of the new queries
    empty = torch.zeros(t, s - n, dtype=torch.bool)         # slots not written yet
    return torch.cat([block, empty], dim=1)
'''}, "Part 3: 'be built in memory proportional to the mask itself (t * s elements) ... an (s, s) square does not fit': "
      "with offset near s (tens of millions) the (offset + t)^2 square cannot be built.")
W("P6 running variance over blocks, the mean updated before the merge reads it", "incremental", {"variance_experiment": r"""
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    block = 4096                                   # bounded memory for any n
    count, mean, m2 = 0, 0.0, 0.0
    for a in range(0, n, block):
        size = min(block, n - a)
        q = torch.rand(size, d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(size, d_k, generator=generator, dtype=torch.float64)
        dots = scale * (q * k).sum(-1)
        b_mean = dots.mean().item()
        b_m2 = ((dots - b_mean) ** 2).sum().item()
        total = count + size
        mean = mean + (b_mean - mean) * size / total
        m2 = m2 + b_m2 + (b_mean - mean) ** 2 * count * size / total    # Chan et al.'s merge
        count = total
    return m2 / (count - 1)

predicted_variance_512 = 512 / 3
"""}, "Part 6: 'return their sample variance (Tensor.var(), which divides by n - 1)' of the numbers drawn ('the tests also "
      "check it against the very numbers your draws returned'): the merge term reads the running mean after it moved, so "
      "past the first block of 4096 pairs the between-block part of the variance is undercounted (by about 1e-4 relative).")
W("P4 positions from a cumulative sum kept in int16", "incremental", {"padding_mask": r'''
def padding_mask(lengths, s):
    L = lengths.long()
    allowed = torch.arange(s)[None, :] >= (s - L)[:, None]
    positions = allowed.to(torch.int16).cumsum(dim=-1, dtype=torch.int16) - 1     # running count of real tokens
    positions = positions.clamp(min=0).to(torch.int64)
    return allowed, positions
'''}, "Part 4: 'a row can hold tens of thousands of slots (more than an int16 or a uint16 counts)': the running count "
      "wraps past 32767.")

# ================================================================ WRONG: the second-call student
W("P7 causal mask cached per length and cut in place", "second-call", {"fixed_self_attention": "MASKS = {}\n" + sub(FSA,
    '        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device).expand(B, T, T)\n        if causal:\n'
    '            allowed = allowed & torch.ones(T, T, dtype=torch.bool, device=x.device).tril()\n',
    '        base = MASKS.setdefault(T, torch.ones(T, T, dtype=torch.bool))\n        if causal:\n'
    '            base.tril_()\n'
    '        allowed = base.expand(B, T, T)\n')},
  "Part 7 / intro: 'Nor may a function or a module keep anything from one call to the next': after a causal call, every "
  "later non-causal call of the same length is causal.")
W("P3 caches the mask per arguments and returns it", "second-call", {"causal_mask": "CAUSAL_CACHE = {}\n" + r'''
def causal_mask(t, s, offset):
    key = (t, s, offset)
    if key not in CAUSAL_CACHE:
        CAUSAL_CACHE[key] = torch.arange(s)[None, :] <= torch.arange(t)[:, None] + offset
    return CAUSAL_CACHE[key]
'''}, "Part 3: 'The mask you return belongs to the caller, who may change it in place ... a later call must return a "
      "correct mask all the same'.")
W("P2 subtracts the row sum from grad_weights in place", "second-call", {"softmax_backward": r'''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    work = dt if dt in (torch.float32, torch.float64) else torch.float32
    w = weights.to(work)
    g = grad_weights.to(work)                       # a copy only when the dtype changes
    g -= (w * g).sum(-1, keepdim=True)              # saves a (..., S) buffer
    return (w * g / temperature).to(dt)
'''}, "Part 2: 'Leave weights and grad_weights as they are: do not write into them': float32 and float64 grad_weights "
      "are changed in place, so the caller's second call gets a different answer.")
W("P6 default dtype switched to float64 and put back", "second-call", {"variance_experiment": r'''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)          # draws in float64 without repeating dtype=
    try:
        q = torch.rand(n, d_k, generator=generator)
        k = torch.randn(n, d_k, generator=generator)
        return (scale * (q * k).sum(-1)).var().item()
    finally:
        torch.set_default_dtype(old)

predicted_variance_512 = 512 / 3
'''}, "Intro: 'Nor may they change torch's global state ... and none calls torch.set_default_dtype'. (The value is "
      "right and the default is restored: wrong by the letter of the text only.)")
W("P4 returns positions written into a kept buffer", "second-call", {"padding_mask": "POS_BUFFERS = {}\n" + r'''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    B = L.shape[0]
    j = torch.arange(s)[None, :]
    start = (s - L)[:, None]
    allowed = j >= start
    buf = POS_BUFFERS.setdefault((B, s), torch.empty(B, s, dtype=torch.int64))
    torch.sub(j, start, out=buf)
    buf.masked_fill_(~allowed, 0)
    return allowed, buf
'''}, "Part 4: 'Both tensors you return belong to the caller ... they must not share memory with anything kept from one "
      "call to the next'.")

# ================================================================ WRONG: part 8 (no kind can go wrong in it but the answer)
W("P8 additive mask: NaN", "none", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'},
  "Part 8a: in float64 -1e9 + scores keeps the differences of the scores, so the softmax is unchanged: (d).")

# ================================================================ CORRECT
C("P1 shifted by one batch-wide mean before the expanded form", "batch-mixer", {"raw_scores": r'''
def raw_scores(q, k):
    dt = q.dtype
    work = torch.float64 if dt in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(work), k.to(work)
    mu = (qw.sum(dim=tuple(range(qw.dim() - 1))) + kw.sum(dim=tuple(range(kw.dim() - 1)))) / (qw[..., 0].numel() + kw[..., 0].numel())
    qw, kw = qw - mu, kw - mu                   # one shift for both: distances do not change
    s = 2 * (qw @ kw.transpose(-2, -1)) - (qw * qw).sum(-1)[..., :, None] - (kw * kw).sum(-1)[..., None, :]
    return torch.clamp(s, max=0.0).to(dt)
'''}, "A shift shared by every query and key leaves the distances unchanged (and reduces cancellation).")
C("P1 torch.minimum with zero", "gradient-path", {"raw_scores": sub(RAW,
    '    return s.clamp(max=0).to(dt)\n', '    return torch.minimum(s, torch.zeros_like(s)).to(dt)\n')},
  "minimum's tie at 0 halves the gradient of an entry whose own gradient is 0 (q_i = k_j).")
C("P2 no_grad and float64 inside for every dtype", "gradient-path", {"softmax_backward": r'''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.no_grad():                          # no gradient asked of this part
        w = weights.double()
        g = grad_weights.double()
        dz = w * (g - torch.einsum("...s,...s->...", w, g).unsqueeze(-1))
        return (dz / temperature).to(weights.dtype)
'''}, "Higher precision inside and a cast back is allowed; the part asks no gradient.")
C("P3 tril with the offset as diagonal", "incremental", {"causal_mask": r'''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril(diagonal=offset) keeps j - i <= offset.")
C("P3 cache prefix, block triangle, empty slots", "incremental", {"causal_mask": r'''
def causal_mask(t, s, offset):
    seen = torch.ones(t, offset, dtype=torch.bool)
    block = torch.ones(t, t, dtype=torch.bool).tril()
    empty = torch.zeros(t, s - offset - t, dtype=torch.bool)
    return torch.cat([seen, block, empty], dim=1)
'''}, "Every key before the block, the block's own causal triangle, nothing after it: t * s elements.")
C("P4 cumulative count, validator after the cast to int64", "validator", {"padding_mask": r'''
def padding_mask(lengths, s):
    if lengths.dim() != 1 or lengths.dtype.is_floating_point:
        raise TypeError("lengths must be a 1-D integer tensor")
    L = lengths.long()
    if ((L < 0) | (L > s)).any():
        raise ValueError("lengths must lie in [0, s]")
    allowed = torch.arange(s).unsqueeze(0) >= (s - L).unsqueeze(1)
    positions = (allowed.long().cumsum(dim=1) - 1).clamp(min=0)
    return allowed, positions
'''}, "cumsum in int64; the range check made after the cast, and .any() of an empty tensor is False.")
C("P5 max detached in both places", "gradient-path", {"masked_attention": sub(MA,
    '    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))\n',
    '    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m)).detach()   # a constant shift: no gradient needed\n')},
  "With the shift detached everywhere, d lse / dz is the softmax, as it should be.")
C("P6 Tensor.uniform_ / normal_ in float32, products in float64", "second-call", {"variance_experiment": r'''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.empty(n, d_k).uniform_(0, 1, generator=generator)
    k = torch.empty(n, d_k).normal_(0, 1, generator=generator)
    dots = (q.double() * k.double()).sum(dim=1) * scale
    return float(dots.var(unbiased=True))

predicted_variance_512 = 512 * (1 / 3)
'''}, "Draws from the generator (the global one when None) without touching global state; float64 for the squares.")
C("P7 constructor extended to set the right scale", "second-call", {"fixed_self_attention": r'''
class FixedSelfAttention(SeedSelfAttention):
    def __init__(self, embed_dim, head_dim):
        super().__init__(embed_dim, head_dim)
        self.scale = head_dim ** -0.5               # set once, never changed by forward

    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q * self.scale, k.transpose(-2, -1))
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        real = torch.ones(B, T, dtype=torch.bool, device=x.device)
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        dt = scores.dtype
        work = torch.float32 if dt == torch.bfloat16 else dt
        s = scores.to(work)
        m = torch.where(allowed, s, torch.tensor(float("-inf"), dtype=work)).amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(torch.where(allowed, s - m, torch.tensor(float("-inf"), dtype=work)))
        tot = e.sum(-1, keepdim=True)
        w = (e / torch.where(tot > 0, tot, torch.ones_like(tot))).to(dt)
        out = torch.matmul(w, v)
        return torch.where(real[:, :, None], out, torch.zeros_like(out))
'''}, "The constructor keeps its signature and projections; the scale is fixed once at construction, forward sets nothing.")
C("P8 and P6's number as expressions", "none", {"mc_answers": "answer_masking = 'd'\nanswer_doubling = str('b')\n"},
  "8a: float64 keeps the score differences under -1e9; 8b: sqrt(128 * 16) / 8 = 4 sqrt 2.")

C("P7 masked_fill with -inf, NaN rows replaced by where after the softmax", "gradient-path", {"fixed_self_attention": r'''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        real = torch.ones(B, T, dtype=torch.bool, device=x.device)
        if lengths is not None:
            real = torch.arange(T, device=x.device)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.where(allowed.any(-1, keepdim=True), weights, torch.zeros_like(weights))
        out = weights @ v
        return torch.where(real[:, :, None], out, torch.zeros_like(out))
'''}, "masked_fill gives the filled positions a zero gradient, so the NaN of an all-masked row stops there (the text says so); "
      "the where afterwards only clears the NaN values.")

# ================================================================ HOSTILE
H("P6 the closed form, dressed up with the draws", {"variance_experiment": r'''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    noise = (dots.var() / (scale * scale * d_k / 3) - 1).item()
    return float(scale * scale * d_k / 3 * (1 + 0.999 * noise))

predicted_variance_512 = 512 / 3
'''}, "Points without solving exactly: returns the formula nudged toward the sample variance, not the sample variance.")
H("P8 a str that equals every letter", {"mc_answers": r'''
class Any(str):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = str.__hash__
answer_masking = Any("d")
answer_doubling = Any("b")
'''}, "Points without solving: a str subclass equal to any answer.")
