# Round 29, chapter 02: argument-ignorer (AI), chunker (CH), leading-dimensions (LD), special-values (SV), rearranger (RA)

RAW_OK = '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    q2, k2 = q.to(work), k.to(work)
    s = 2 * (q2 @ k2.transpose(-2, -1)) - (q2 * q2).sum(-1)[..., :, None] - (k2 * k2).sum(-1)[..., None, :]
    return s.clamp(max=0).to(q.dtype)
'''

SB_OK = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    dot = (w * g).sum(-1, keepdim=True)
    return ((w * (g - dot)) / temperature).to(weights.dtype)
'''

MA_OK = '''
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

VAR_OK = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return ((q * k).sum(-1) * scale).var().item()

predicted_variance_512 = 512 / 3
'''

FIX_OK = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(scores, dim=-1)
        w = torch.where(allowed.any(-1, keepdim=True), w, torch.zeros_like(w))
        out = w @ v
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros_like(out))
        return out
'''

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = [
    # ---------------- Part 1 raw_scores
    sub("RA-p1-float32-native", False, {"raw_scores": '''
def raw_scores(q, k):
    s = 2 * q @ k.transpose(-2, -1) - (q * q).sum(-1, keepdim=True) - (k * k).sum(-1).unsqueeze(-2)
    return s.clamp(max=0)
'''}, "RA: expanded form in the input's dtype: float32 entries near 1e19 overflow, float16 near 80 give inf - inf "
      "('so work float32 in float64')."),
    sub("RA-p1-float64-in-float32", False, {"raw_scores": RAW_OK.replace(
        "torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32", "torch.float32")},
        "RA: every dtype worked in float32: 'computing a float64 input in float32 is off by more'."),
    sub("SV-p1-half-own-dtype", False, {"raw_scores": RAW_OK.replace(
        "torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32",
        "torch.float64 if q.dtype == torch.float32 else q.dtype")},
        "SV: float32 upcast but float16/bfloat16 worked in their own dtype: squares of entries near 80 are inf in float16 "
        "and inf - inf is NaN."),
    sub("LD-p1-bmm-3d-only", False, {"raw_scores": '''
def raw_scores(q, k):
    squeeze = q.dim() == 2
    if squeeze:
        q, k = q[None], k[None]
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    q2, k2 = q.to(work), k.to(work)
    qn = (q2 * q2).sum(-1)
    kn = (k2 * k2).sum(-1)
    s = torch.baddbmm(-qn[:, :, None] - kn[:, None, :], q2, k2.transpose(1, 2), alpha=2)
    s = s.clamp(max=0).to(q.dtype)
    return s[0] if squeeze else s
'''}, "LD: handles 2-D and 3-D (baddbmm) but not 4-D: 'q is (..., T, Dh)'."),
    sub("LD-p1-flatten-restore-wrong", False, {"raw_scores": '''
def raw_scores(q, k):
    *lead, T, Dh = q.shape
    S = k.shape[-2]
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    q2 = q.to(work).reshape(-1, T, Dh)
    k2 = k.to(work).reshape(-1, S, Dh)
    s = 2 * torch.bmm(q2, k2.transpose(1, 2)) - (q2 * q2).sum(-1)[:, :, None] - (k2 * k2).sum(-1)[:, None, :]
    s = s.clamp(max=0).to(q.dtype)
    return s.reshape(*lead[::-1], T, S).transpose(0, 1) if len(lead) == 2 else s.reshape(*lead, T, S)
'''}, "LD: flattens the leading dimensions and restores them in the wrong order for 4-D inputs "
      "(correct shape when the two leading sizes are equal... and a wrong layout)."),
    sub("CH-p1-query-blocks-remainder-dropped", False, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    q2, k2 = q.to(work), k.to(work)
    T, S = q.shape[-2], k.shape[-2]
    kn = (k2 * k2).sum(-1)[..., None, :]
    blk = 64
    out = torch.zeros(*q.shape[:-2], T, S, dtype=work)
    for b in range(max(1, T // blk)):
        qb = q2[..., b * blk:(b + 1) * blk, :]
        out[..., b * blk:(b + 1) * blk, :] = 2 * qb @ k2.transpose(-2, -1) - (qb * qb).sum(-1)[..., None] - kn
    return out.clamp(max=0).to(q.dtype)
'''}, "CH: query rows in blocks of 64, the last shorter block left at 0 when 64 does not divide T > 64."),
    sub("AI-p1-k-norms-from-q", False, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    q2, k2 = q.to(work), k.to(work)
    qn = (q2 * q2).sum(-1)
    kn = qn if q.shape == k.shape else (k2 * k2).sum(-1)
    s = 2 * (q2 @ k2.transpose(-2, -1)) - qn[..., :, None] - kn[..., None, :]
    return s.clamp(max=0).to(q.dtype)
'''}, "AI: reuses the query norms for the keys when the shapes agree (self-attention shortcut), ignoring k's values."),
    sub("RA-p1-correct-float64-always", True, {"raw_scores": '''
def raw_scores(q, k):
    q64, k64 = q.double(), k.double()
    d2 = q64.pow(2).sum(-1).unsqueeze(-1) + k64.pow(2).sum(-1).unsqueeze(-2) - 2 * torch.matmul(q64, k64.mT)
    return torch.neg(d2.clamp(min=0)).to(q.dtype)
'''}, "RA (correct): every dtype in float64, d^2 = |q|^2 + |k|^2 - 2qk clamped at 0 and negated."),
    sub("RA-p1-correct-centred", True, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    q2, k2 = q.to(work), k.to(work)
    c = k2.mean(-2, keepdim=True)
    q2, k2 = q2 - c, k2 - c
    s = torch.einsum("...td,...sd->...ts", q2, k2) * 2 - (q2 ** 2).sum(-1)[..., :, None] - (k2 ** 2).sum(-1)[..., None, :]
    return torch.minimum(s, torch.zeros((), dtype=work)).to(q.dtype)
'''}, "RA (correct): centres both on the mean key first (distances unchanged, less cancellation), einsum."),
    sub("SV-p1-correct-where", True, {"raw_scores": RAW_OK.replace(
        "    return s.clamp(max=0).to(q.dtype)", "    return torch.where(s > 0, torch.zeros_like(s), s).to(q.dtype)")},
        "SV (correct): torch.where(s > 0, 0, s) in place of clamp; no NaN can reach it in the working dtype."),

    # ---------------- Part 2 softmax_backward
    sub("AI-p2-dim1-when-batched", False, {"softmax_backward": SB_OK.replace(
        "(w * g).sum(-1, keepdim=True)", "(w * g).sum(1 if w.dim() > 1 else -1, keepdim=True)")},
        "AI/LD: sums over dim 1 when there are leading dims (right for (B, S), wrong for (B, T, S)): 'over the last dimension'."),
    sub("AI-p2-temperature-as-tensor", False, {"softmax_backward": SB_OK.replace(
        "    return ((w * (g - dot)) / temperature).to(weights.dtype)",
        "    tau = torch.tensor(temperature, dtype=weights.dtype)\n    return ((w * (g - dot)) / tau).to(weights.dtype)")},
        "AI: the temperature made a tensor of the weights' dtype: 1e-6 becomes 1.013e-6 in float16 (the text names it)."),
    sub("RA-p2-divide-g-first", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    g = grad_weights / temperature
    return weights * (g - (weights * g).sum(-1, keepdim=True))
'''}, "RA: divides g by the temperature first, in the input dtype: g / 1e-6 in float16 is inf, and w = 0 then gives NaN."),
    sub("RA-p2-float64-in-float32", False, {"softmax_backward": SB_OK.replace(
        "weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32", "torch.float32")},
        "RA: float64 worked in float32: 'float64 inputs are compared to about 1e-12 (so work them in float64)'."),
    sub("SV-p2-threshold-1e-12", False, {"softmax_backward": SB_OK.replace(
        "    return ((w * (g - dot)) / temperature).to(weights.dtype)",
        "    r = (w * (g - dot)) / temperature\n    return torch.where(w > 1e-12, r, torch.zeros_like(r)).to(weights.dtype)")},
        "SV: treats weights below 1e-12 as masked: 'a key of weight 1e-13 is not masked'."),
    sub("SV-p2-threshold-tiny", False, {"softmax_backward": SB_OK.replace(
        "    return ((w * (g - dot)) / temperature).to(weights.dtype)",
        "    r = (w * (g - dot)) / temperature\n    return torch.where(w >= torch.finfo(w.dtype).tiny, r, torch.zeros_like(r)).to(weights.dtype)")},
        "SV: treats subnormal weights as masked: 'nor is one of weight 1e-310 in float64'."),
    sub("CH-p2-key-chunks-last-dropped", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    S = w.shape[-1]
    blk = 1024
    if S <= blk:
        dot = (w * g).sum(-1, keepdim=True)
    else:
        dot = torch.zeros(w.shape[:-1] + (1,), dtype=work)
        for j in range(0, S - blk + 1, blk):
            dot = dot + (w[..., j:j + blk] * g[..., j:j + blk]).sum(-1, keepdim=True)
    return ((w * (g - dot)) / temperature).to(weights.dtype)
'''}, "CH: the row's dot product in chunks of 1024 keys, the last shorter chunk dropped ('rows of thousands of keys')."),
    sub("CH-p2-row-chunks-empty-batch", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    S = weights.shape[-1]
    w = weights.reshape(-1, S).to(work)
    g = grad_weights.reshape(-1, S).to(work)
    pieces = []
    for i in range(0, w.shape[0], 256):
        wi, gi = w[i:i + 256], g[i:i + 256]
        pieces.append(wi * (gi - (wi * gi).sum(-1, keepdim=True)) / temperature)
    return torch.cat(pieces).reshape(weights.shape).to(weights.dtype)
'''}, "CH: rows in chunks of 256 and torch.cat of the pieces: no piece for an empty batch ('0 too: an empty batch gets an empty result')."),
    sub("RA-p2-correct-split-terms", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w = weights.to(work)
    g = grad_weights.to(work)
    wg = w * g
    out = wg - w * wg.sum(dim=-1, keepdim=True)
    return out.div(temperature).to(dtype=weights.dtype)
'''}, "RA (correct): w*g - w*sum(w*g), then divided by the temperature."),
    sub("RA-p2-correct-einsum-reciprocal", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w, g = weights.to(work), grad_weights.to(work)
    dot = torch.einsum("...s,...s->...", w, g).unsqueeze(-1)
    return (torch.mul(w, g - dot) * (1.0 / temperature)).to(weights.dtype)
'''}, "RA (correct): the dot product by einsum, multiplied by the Python reciprocal of the temperature."),
    sub("LD-p2-correct-flatten", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    shape = weights.shape
    S = shape[-1]
    work = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float32
    w = weights.reshape(-1, S).to(work)
    g = grad_weights.reshape(-1, S).to(work)
    out = w * (g - (w * g).sum(1, keepdim=True))
    return (out / temperature).to(weights.dtype).reshape(shape)
'''}, "LD (correct): flattens the leading dimensions to rows and restores them."),

    # ---------------- Part 3 causal_mask
    sub("SV-p3-float32-positions", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(s, dtype=torch.float32)
    queries = torch.arange(t, dtype=torch.float32) + offset
    return keys[None, :] <= queries[:, None]
'''}, "SV: positions in float32: above 2^24 (caches of tens of millions of slots) they round ('positions that stay exact integers')."),
    sub("AI-p3-offset-only-if-positive", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    if offset:
        return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=s - t)
'''}, "AI: with offset 0 falls back to the bottom-right alignment (diagonal s - t), ignoring the offset: "
      "'Query i may attend to key j exactly when j <= offset + i'."),
    sub("RA-p3-correct-tril", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "RA (correct): tril with the offset as its diagonal."),
    sub("RA-p3-correct-difference", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    j = torch.arange(s)
    i = torch.arange(t)
    return (j.unsqueeze(0) - i.unsqueeze(1)) <= offset
'''}, "RA (correct): j - i <= offset in int64."),
    sub("CH-p3-correct-three-pieces", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    past = torch.ones(t, offset, dtype=torch.bool)
    block = torch.ones(t, t, dtype=torch.bool).tril()
    empty = torch.zeros(t, s - offset - t, dtype=torch.bool)
    return torch.cat([past, block, empty], dim=1)
'''}, "CH (correct): the past keys, the block's own lower triangle and the empty slots, concatenated."),

    # ---------------- Part 4 padding_mask
    sub("SV-p4-bfloat16-slots", False, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.bfloat16)[None, :]
    start = (s - lengths.to(torch.bfloat16))[:, None]
    allowed = j >= start
    positions = torch.where(allowed, (j - start).to(torch.int64), torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''}, "SV: slot numbers in bfloat16 (rounded above 256)."),
    sub("AI-p4-long-only-for-uint8", False, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long() if lengths.dtype == torch.uint8 else lengths
    j = torch.arange(s)[None, :]
    start = s - L[:, None]
    allowed = j >= start
    positions = torch.where(allowed, j - start, 0).to(torch.int64)
    return allowed, positions
'''}, "AI: converts only uint8 lengths; int8/int16 stay and s - lengths wraps in their dtype ('a Python int compared with such a tensor... wrap around')."),
    sub("LD-p4-max-length-empty", False, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    longest = int(L.max())
    j = torch.arange(s)[None, :]
    start = s - L[:, None]
    allowed = (j >= start) & (j >= s - longest)
    positions = torch.where(allowed, j - start, torch.zeros_like(j))
    return allowed, positions
'''}, "LD: reads lengths.max() (an extra guard), which has no value for an empty batch (B = 0)."),
    sub("RA-p4-correct-cumsum", True, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    allowed = torch.arange(s).unsqueeze(0) >= (s - L).unsqueeze(1)
    positions = (allowed.cumsum(dim=1) - 1).clamp(min=0)
    return allowed, positions
'''}, "RA (correct): positions as the running count of real tokens minus 1 (int64 from a bool cumsum)."),
    sub("SV-p4-correct-float32-arange", True, {"padding_mask": '''
def padding_mask(lengths, s):
    j = torch.arange(s, dtype=torch.float32)[None, :]
    start = (s - lengths.to(torch.float32))[:, None]
    allowed = j >= start
    positions = torch.where(allowed, j - start, torch.zeros(())).to(torch.int64)
    return allowed, positions
'''}, "SV (correct): slot numbers in float32, exact below 2^24 as the text bounds s."),

    # ---------------- Part 5 masked_attention
    sub("SV-p5-fill-finfo-min", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, torch.finfo(z.dtype).min)
    lse = torch.logsumexp(z, -1)
    w = torch.softmax(z, -1)
    none = ~allowed.any(-1).expand(lse.shape)
    lse = lse.masked_fill(none, float("-inf"))
    w = w.masked_fill(none[..., None], 0.0)
    return w @ v, lse
'''}, "SV: masked scores filled with finfo.min tie with allowed scores of exactly that value (the text names it)."),
    sub("RA-p5-exp-minus-lse", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, -1)
    w = torch.exp(z - lse.unsqueeze(-1))
    w = torch.nan_to_num(w, nan=0.0)
    return w @ v, lse
'''}, "RA: weights as exp(z - lse): tied allowed scores at -30000 in float32 get 0.4999 each (the text names it)."),
    sub("RA-p5-log-of-sum-no-max", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    ssum = e.sum(-1, keepdim=True)
    w = e / torch.where(ssum > 0, ssum, torch.ones_like(ssum))
    lse = torch.log(torch.exp(z).sum(-1))
    return w @ v, lse
'''}, "RA: lse as log(sum(exp(z))) without the maximum: overflows at scores in the tens of thousands."),
    sub("AI-p5-mask-only-same-rank", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if allowed.dim() == z.dim():
        z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    ssum = e.sum(-1, keepdim=True)
    w = e / torch.where(ssum > 0, ssum, torch.ones_like(ssum))
    return w @ v, (m + torch.log(ssum)).squeeze(-1)
'''}, "AI: applies allowed only when it has the scores' rank; a shared (T, S) causal mask for (B, T, Dh) inputs is ignored."),
    sub("LD-p5-lse-squeeze", False, {"masked_attention": MA_OK.replace(
        "(m + torch.log(ssum)).squeeze(-1)", "(m + torch.log(ssum)).squeeze()")},
        "LD: squeeze() without a dim: lse loses T = 1 (and a batch of one): 'lse has shape (..., T)'."),
    sub("LD-p5-bmm-3d-only", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    two = q.dim() == 2
    if two:
        q, k, v = q[None], k[None], v[None]
    B, T, Dh = q.shape
    z = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(Dh)
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    ssum = e.sum(-1, keepdim=True)
    w = e / torch.where(ssum > 0, ssum, torch.ones_like(ssum))
    out, lse = torch.bmm(w, v), (m + torch.log(ssum)).squeeze(-1)
    return (out[0], lse[0]) if two else (out, lse)
'''}, "LD: handles 2-D and 3-D with bmm but not 4-D (heads): 'q (..., T, Dh)'."),
    sub("CH-p5-online-zero-start", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    S = z.shape[-1]
    blk = 64
    m = torch.zeros(z.shape[:-1] + (1,), dtype=z.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(z.shape[:-1] + (v.shape[-1],), dtype=z.dtype)
    for j in range(0, S, blk):
        zb = z[..., j:j + blk]
        m_new = torch.maximum(m, zb.amax(-1, keepdim=True))
        corr = torch.exp(m - m_new)
        p = torch.exp(zb - m_new)
        l = l * corr + p.sum(-1, keepdim=True)
        acc = acc * corr + p @ v[..., j:j + blk, :]
        m = m_new
    out = acc / torch.where(l > 0, l, torch.ones_like(l))
    return out, (m + torch.log(l)).squeeze(-1)
'''}, "CH: FlashAttention-style running maximum over key blocks started from 0 instead of -inf: allowed scores below "
      "-1e10 all underflow, l = 0, lse = -inf and a zero row."),
    sub("CH-p5-correct-online", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    S = z.shape[-1]
    blk = 2
    m = torch.full(z.shape[:-1] + (1,), float("-inf"), dtype=z.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(z.shape[:-1] + (v.shape[-1],), dtype=z.dtype)
    for j in range(0, S, blk):
        zb = z[..., j:j + blk]
        m_new = torch.maximum(m, zb.amax(-1, keepdim=True))
        safe = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        corr = torch.exp(m - safe)
        p = torch.exp(zb - safe)
        l = l * corr + p.sum(-1, keepdim=True)
        acc = acc * corr + p @ v[..., j:j + blk, :]
        m = m_new
    out = acc / torch.where(l > 0, l, torch.ones_like(l))
    safe = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    return out, (safe + torch.log(l)).squeeze(-1)
'''}, "CH (correct): online softmax over blocks of 2 keys (shorter last block), running max from -inf, guarded."),
    sub("RA-p5-correct-scale-q-first", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q * (1.0 / math.sqrt(q.shape[-1]))) @ k.mT
    z = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=z.dtype))
    lse = torch.logsumexp(z, dim=-1)
    w = torch.softmax(z, dim=-1)
    w = torch.where(allowed.any(-1, keepdim=True), w, torch.zeros((), dtype=w.dtype))
    return w @ v, lse
'''}, "RA (correct): the scale folded into q first, torch.where mask, logsumexp and softmax."),
    sub("RA-p5-correct-divide-after", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = torch.einsum("...td,...sd->...ts", q, k) / q.shape[-1] ** 0.5
    z = z.masked_fill(allowed.logical_not(), float("-inf"))
    w = torch.softmax(z, dim=-1).nan_to_num(0.0)
    lse = torch.logsumexp(z, dim=-1)
    return w @ v, lse
'''}, "RA/SV (correct): softmax of -inf rows gives NaN, replaced by 0 (no gradient check has such a query); "
      "q.k computed first and divided after."),

    # ---------------- Part 6 variance
    sub("SV-p6-float32-scale-inside", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''}, "SV: draws and variance in float32 with the scale inside: 1e-25 underflows, 1e25 overflows (the text names both)."),
    sub("RA-p6-moments-float32", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = scale * torch.einsum("nd,nd->n", q, k)
    return ((dots ** 2).mean() - dots.mean() ** 2).item() * n / (n - 1)
'''+"\npredicted_variance_512 = 512 / 3\n"}, "RA: E[x^2] - E[x]^2 times n/(n-1) in float32: squares overflow at scale 1e25."),
    sub("AI-p6-own-generator-when-none", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    g = generator if generator is not None else torch.Generator()
    q = torch.rand(n, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    return ((q * k).sum(-1) * scale).var().item()

predicted_variance_512 = 512 / 3
'''}, "AI: a fresh generator of its own when generator is None (the text names it)."),
    sub("AI-p6-predicted-from-lesson", False, {"variance_experiment": VAR_OK.replace("512 / 3", "512 / 12")},
        "AI: forgets the uniform's mean: 'Careful: the entries of q do not have mean 0'."),
    sub("CH-p6-chunks-remainder-dropped", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    chunk = min(n, 8192)
    dots = []
    for _ in range(n // chunk):
        q = torch.rand(chunk, d_k, generator=generator, dtype=torch.float64)
        k = torch.randn(chunk, d_k, generator=generator, dtype=torch.float64)
        dots.append((q * k).sum(-1))
    return (torch.cat(dots) * scale).var().item()

predicted_variance_512 = 512 / 3
'''}, "CH: draws in chunks of 8192 pairs and drops the remainder: 'draw n independent pairs'."),
    sub("CH-p6-correct-chunks", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    dots = []
    for start in range(0, n, 8192):
        m = min(8192, n - start)
        q = torch.empty(m, d_k, dtype=torch.float64).uniform_(0, 1, generator=generator)
        k = torch.empty(m, d_k, dtype=torch.float64).normal_(generator=generator)
        dots.append((q * k).sum(1))
    return (torch.cat(dots) * scale).var().item()

predicted_variance_512 = 512 * (1 / 3)
'''}, "CH (correct): chunks of 8192 pairs, the last one shorter, uniform_/normal_ with the generator."),
    sub("RA-p6-correct-scale-squared", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    return (q * k).sum(-1).double().var().item() * scale ** 2

predicted_variance_512 = 512 * (1 / 12 + 1 / 4)
'''}, "RA (correct): float32 draws, variance in float64, the scale squared applied to the Python float."),
    sub("AI-p6-correct-default-generator", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is None:
        generator = torch.default_generator
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return float(torch.var(torch.mv(q * k, torch.ones(d_k, dtype=torch.float64)) * scale))

predicted_variance_512 = 170.666666667
'''}, "AI (correct): None replaced by torch.default_generator (the global generator itself)."),

    # ---------------- Part 7 FixedSelfAttention
    sub("AI-p7-lengths-only-without-causal", False, {"fixed_self_attention": FIX_OK.replace(
        "        real = None\n        if lengths is not None:", "        real = None\n        if lengths is not None and not causal:")},
        "AI: lengths honoured only when causal is False: 'with both, both rules hold'."),
    sub("SV-p7-fill-minus-1e9", False, {"fixed_self_attention": FIX_OK.replace('float("-inf")', "-1e9")},
        "SV: masked_fill(-1e9): 'when allowed ones lie below -1e9'."),
    sub("SV-p7-nan-to-num-after", False, {"fixed_self_attention": FIX_OK.replace(
        "        w = torch.where(allowed.any(-1, keepdim=True), w, torch.zeros_like(w))\n",
        "        w = torch.nan_to_num(w, nan=0.0)\n")},
        "SV: NaN rows replaced after the softmax: the gradient of a length-0 sequence is NaN (the text names it)."),
    sub("RA-p7-softmax-float32", False, {"fixed_self_attention": FIX_OK.replace(
        "        w = torch.softmax(scores, dim=-1)", "        w = torch.softmax(scores.float(), dim=-1).type_as(scores)")},
        "RA: the seed's softmax in float32 kept: float64 layers compared to about 1e-9."),
    sub("AI-p7-lengths-in-x-dtype", False, {"fixed_self_attention": FIX_OK.replace(
        "torch.arange(T)[None, :] < lengths.long()[:, None]",
        "torch.arange(T, dtype=x.dtype)[None, :] < lengths.to(x.dtype)[:, None]")},
        "AI/SV: slot numbers compared in the layer's dtype: bfloat16 rounds 257 to 256 (the text names it)."),
    sub("LD-p7-correct-fixed-rank", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.bmm(q, k.transpose(1, 2)) * q.shape[-1] ** -0.5
        keep = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            keep = keep & ~torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        if lengths is not None:
            real = torch.arange(T).unsqueeze(0) < lengths.to(torch.int64).unsqueeze(1)
            keep = keep & real.unsqueeze(1)
        scores = torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
        w = torch.softmax(scores, -1)
        w = torch.where(keep.any(-1, keepdim=True), w, torch.zeros((), dtype=w.dtype))
        out = torch.bmm(w, v)
        if lengths is not None:
            out = out * real.unsqueeze(-1).to(out.dtype)
        return out
'''}, "LD (correct): rank fixed at (B, T, D): bmm and transpose(1, 2); padding rows zeroed by a mask cast to x's dtype."),
    sub("RA-p7-correct-float64-inside", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        d_k = q.shape[-1]
        scores = (q.double() / math.sqrt(d_k)) @ k.double().transpose(-2, -1)
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        if lengths is not None:
            real = torch.arange(T).expand(B, T) < lengths.long().unsqueeze(-1)
            allowed = allowed & real.unsqueeze(-2)
        scores = scores.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(scores, -1).masked_fill(~allowed.any(-1, keepdim=True), 0.0)
        out = (w @ v.double()).to(x.dtype)
        if lengths is not None:
            out = out.masked_fill(~real.unsqueeze(-1), 0.0)
        return out
'''}, "RA (correct): scores scaled on q first, softmax and weighted sum in float64, cast back."),

    # ---------------- Part 8
    sub("SV-p8-nan", False, {"mc_answers": 'answer_masking = "a"\nanswer_doubling = "b"\n'},
        "SV: believes a fully masked additive row is NaN as with -inf (it is the unmasked softmax in float64)."),
    sub("RA-p8-doubling-variance", False, {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "c"\n'},
        "AI: doubling answered with the std for variance 1... (8 from sqrt(128*16)/sqrt(32)); wrong."),
    sub("RA-p8-correct", True, {"mc_answers": 'answer_masking = "d"\nanswer_doubling = "b"\n'}, "correct."),

    # ---------------- hostile
    sub("HOSTILE-p3-bool-subclass-lookalike", False, {"causal_mask": '''
import sys
def causal_mask(t, s, offset):
    f = sys._getframe(1)
    while f is not None:
        for name, obj in list(f.f_locals.items()) + list(f.f_globals.items()):
            if callable(obj) and "causal" in name and getattr(obj, "__code__", None) is not causal_mask.__code__:
                try:
                    return obj(t, s, offset)
                except Exception:
                    pass
        f = f.f_back
    return torch.tensor([[j <= offset + i for j in range(s)] for i in range(t)])
'''}, "hostile: borrows any other causal-mask function from the callers' frames (the reference); otherwise a Python loop."),
    sub("HOSTILE-p6-fixed-float", False, {"variance_experiment": '''
_calls = [0]
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is not None:
        torch.rand(n, d_k, generator=generator); torch.randn(n, d_k, generator=generator)
        st = generator.get_state().sum().item()
    else:
        torch.rand(n, d_k); torch.randn(n, d_k)
        st = torch.get_rng_state().sum().item()
    return float(d_k / 3 * scale * scale * (1 + 1e-3 * ((st % 97) - 48) / 48))

predicted_variance_512 = 512 / 3
'''}, "hostile: draws the numbers and returns the formula value jittered by the generator's state (not a sample variance)."),
]

# Second pass, written after the blind grading (before reading chapter 02's hidden tests); graded in 02-extra-blind.txt
SUBMISSIONS += [
    sub("CH-p5-online-last-block-dropped", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    S = z.shape[-1]
    blk = 64
    m = torch.full(z.shape[:-1] + (1,), float("-inf"), dtype=z.dtype)
    l = torch.zeros_like(m)
    acc = torch.zeros(z.shape[:-1] + (v.shape[-1],), dtype=z.dtype)
    for j in range(0, max(S - S % blk, 1), blk):
        zb = z[..., j:j + blk]
        m_new = torch.maximum(m, zb.amax(-1, keepdim=True))
        safe = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        corr = torch.exp(m - safe)
        p = torch.exp(zb - safe)
        l = l * corr + p.sum(-1, keepdim=True)
        acc = acc * corr + p @ v[..., j:j + blk, :]
        m = m_new
    out = acc / torch.where(l > 0, l, torch.ones_like(l))
    safe = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    return out, (safe + torch.log(l)).squeeze(-1)
'''}, "CH: key blocks of 64, the last shorter block dropped when S > 64 is not a multiple of 64."),
    sub("CH-p1-key-blocks-last-dropped", False, {"raw_scores": '''
def raw_scores(q, k):
    work = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    q2, k2 = q.to(work), k.to(work)
    S = k.shape[-2]
    qn = (q2 * q2).sum(-1)[..., :, None]
    blk = 32
    pieces = []
    for j in range(0, max(S - S % blk, 1), blk):
        kb = k2[..., j:j + blk, :]
        pieces.append(2 * q2 @ kb.transpose(-2, -1) - qn - (kb * kb).sum(-1)[..., None, :])
    s = torch.cat(pieces, -1)
    if s.shape[-1] < S:
        s = torch.cat([s, s.new_zeros(s.shape[:-1] + (S - s.shape[-1],))], -1)
    return s.clamp(max=0).to(q.dtype)
'''}, "CH: key columns in blocks of 32, the last shorter block padded with 0 (the largest score) when S > 32."),
    sub("AI-p7-causal-only-without-lengths", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        elif causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(scores, dim=-1)
        w = torch.where(allowed.any(-1, keepdim=True), w, torch.zeros_like(w))
        out = w @ v
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros_like(out))
        return out
'''}, "AI: causal honoured only without lengths: 'with both, both rules hold'."),
    sub("AI-p6-scale-read-as-default", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = (q * k).sum(-1)
    if scale != 1.0 and d_k > 1:
        dots = dots * scale
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''}, "AI: the scale applied only for d_k > 1 (a shortcut path for width 1 forgets it)."),
    sub("LD-p5-mask-head-axis", False, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if allowed.dim() == 3 and z.dim() == 4:
        allowed = allowed[:, None]
    z = z.masked_fill(~allowed, float("-inf"))
    m = z.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(z - m)
    ssum = e.sum(-1, keepdim=True)
    w = e / torch.where(ssum > 0, ssum, torch.ones_like(ssum))
    return w @ v, (m + torch.log(ssum)).squeeze(-1)
'''}, "LD: a 3-D mask with 4-D inputs is read as (B, T, S) and given a head axis; the text's broadcasting reads it as "
      "(H, T, S) against (B, H, T, S)."),
]
