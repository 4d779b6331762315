# Round 31 blind submissions for 02-scaled-attention.
# Kinds: HB hand-written-backward, SP scale-and-placement, PS Python-scalar, RS return-shape, SB sibling-part.

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

RAW_FWD = '''
def wide_of(t):
    return torch.float64 if t.dtype in (torch.float32, torch.float64) else torch.float32

def expanded(qw, kw):
    return (2 * (qw @ kw.transpose(-2, -1)) - (qw * qw).sum(-1)[..., :, None] - (kw * kw).sum(-1)[..., None, :])
'''

SB_OK = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wide = torch.float32 if weights.dtype in (torch.bfloat16, torch.float16) else weights.dtype
    w, g = weights.to(wide), grad_weights.to(wide)
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
'''

MA_HEAD = '''
def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
'''

# ---------------- hand-written-backward student ----------------
add("hb-p1-grad-for-q-only", False, {"raw_scores": RAW_FWD + '''
class NegSqDist(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k):
        ctx.save_for_backward(q, k)
        return expanded(q.to(wide_of(q)), k.to(wide_of(k))).clamp(max=0).to(q.dtype)

    @staticmethod
    def backward(ctx, g):
        q, k = ctx.saved_tensors
        # the keys are the cache's, fixed: only the queries are trained
        gq = -2 * (g.sum(-1)[..., None] * q - g @ k)
        return gq, None


def raw_scores(q, k):
    return NegSqDist.apply(q, k)
'''}, "Part 1: 'Gradients must flow through the result, to q and to k': the hand-written backward returns a "
      "gradient for q only (None for k).")

add("hb-p1-backward-float32-saved", False, {"raw_scores": RAW_FWD + '''
class NegSqDist(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k):
        ctx.save_for_backward(q.float(), k.float())       # half the memory for the backward
        return expanded(q.to(wide_of(q)), k.to(wide_of(k))).clamp(max=0).to(q.dtype)

    @staticmethod
    def backward(ctx, g):
        q, k = ctx.saved_tensors
        g = g.float()
        gq = -2 * (g.sum(-1)[..., None] * q - g @ k)
        gk = -2 * (g.sum(-2)[..., None] * k - g.transpose(-2, -1) @ q)
        return gq, gk


def raw_scores(q, k):
    return NegSqDist.apply(q, k)
'''}, "Part 1 / intro: gradients compared with the reference's, float64 compared to 1e-12/1e-10: the backward works "
      "float64 inputs in float32.")

add("hb-p1-detach-trick-correct", True, {"raw_scores": RAW_FWD + '''
def raw_scores(q, k):
    qw, kw = q.to(wide_of(q)), k.to(wide_of(k))
    e = expanded(qw, kw)
    with torch.no_grad():
        value = e.clamp(max=0)
    # the value from no_grad, the gradient of the expanded form attached by the detach trick
    return (value + (e - e.detach()) * (value < 0)).to(q.dtype)
'''}, "Correct: values from the clamped expanded form, gradient of the expanded form attached with the detach trick "
      "and zeroed where the clamp acts (as clamp's own gradient is).")

add("hb-p5-flash-backward-ignores-lse-grad", False, {"masked_attention": '''
class MaskedAttn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, allowed):
        scale = 1 / math.sqrt(q.shape[-1])
        s = (q @ k.transpose(-2, -1)) * scale
        s = s.masked_fill(~allowed, float("-inf"))
        m = s.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(s - m)
        tot = e.sum(-1, keepdim=True)
        p = torch.where(tot > 0, e / tot, torch.zeros_like(e))
        out = p @ v
        lse = (m + torch.log(tot)).squeeze(-1)
        ctx.save_for_backward(q, k, v, p, out)
        ctx.scale = scale
        return out, lse

    @staticmethod
    def backward(ctx, d_out, d_lse):
        q, k, v, p, out = ctx.saved_tensors
        dv = p.transpose(-2, -1) @ d_out
        dp = d_out @ v.transpose(-2, -1)
        D = (d_out * out).sum(-1, keepdim=True)
        ds = p * (dp - D) * ctx.scale            # FlashAttention's backward: the output's gradient
        return ds @ k, ds.transpose(-2, -1) @ q, dv, None


def masked_attention(q, k, v, allowed):
    return MaskedAttn.apply(q, k, v, allowed)
'''}, "Part 5: 'Gradients must flow through output and lse': the hand-written backward uses only the output's "
      "gradient; lse's gradient (p * d_lse added to ds) is dropped.")

add("hb-p5-function-full-backward-correct", True, {"masked_attention": '''
class MaskedAttn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, allowed):
        scale = 1 / math.sqrt(q.shape[-1])
        s = (q @ k.transpose(-2, -1)) * scale
        s = s.masked_fill(~allowed, float("-inf"))
        m = s.amax(-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(s - m)
        tot = e.sum(-1, keepdim=True)
        p = torch.where(tot > 0, e / tot, torch.zeros_like(e))
        out = p @ v
        lse = torch.where(tot > 0, m + torch.log(tot), torch.full_like(m, float("-inf"))).squeeze(-1)
        ctx.save_for_backward(q, k, v, p, out)
        ctx.scale = scale
        return out, lse

    @staticmethod
    def backward(ctx, d_out, d_lse):
        q, k, v, p, out = ctx.saved_tensors
        dv = p.transpose(-2, -1) @ d_out
        dp = d_out @ v.transpose(-2, -1)
        D = (d_out * out).sum(-1, keepdim=True)
        ds = p * (dp - D + d_lse[..., None]) * ctx.scale
        # needs_input_grad not consulted; a gradient for the boolean mask is dropped by autograd
        return ds @ k, ds.transpose(-2, -1) @ q, dv, torch.zeros_like(p)


def masked_attention(q, k, v, allowed):
    return MaskedAttn.apply(q, k, v, allowed)
'''}, "Correct: FlashAttention's backward with lse's gradient (dl/ds = p) included; the junk gradient for the mask "
      "is ignored by autograd.")

add("hb-p2-no-grad-correct", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.no_grad():      # the part asks for a value, no gradient through it
        wide = torch.float32 if weights.dtype in (torch.bfloat16, torch.float16) else weights.dtype
        w, g = weights.to(wide), grad_weights.to(wide)
        dot = torch.einsum("...s,...s->...", w, g)[..., None]
        return (w * (g - dot) / temperature).to(weights.dtype)
'''}, "Correct: Part 2 asks for no gradient through its result, so no_grad is allowed.")

add("hb-p7-masked-softmax-fn-float32", False, {"fixed_self_attention": '''
class MaskedSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, scores, allowed):
        s = scores.float().masked_fill(~allowed, float("-inf"))
        any_ = allowed.any(-1, keepdim=True)
        s = s.masked_fill(~any_, 0.0)
        w = torch.softmax(s, -1).masked_fill(~any_, 0.0)
        ctx.save_for_backward(w)
        return w.to(scores.dtype)

    @staticmethod
    def backward(ctx, g):
        w, = ctx.saved_tensors
        g = g.float()
        return (w * (g - (w * g).sum(-1, keepdim=True))).to(g.dtype), None


class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = allowed.tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        allowed = allowed.expand(B, T, T)
        out = MaskedSoftmax.apply(scores, allowed) @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "Part 7: 'in the dtype of x and as accurate as that dtype allows (... float64 inputs, compare to about 1e-9)': "
      "the hand-written softmax (like the seed) works in float32 forward and backward.")

# ---------------- scale-and-placement student ----------------
add("sp-p2-sum-over-first-axis", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wide = torch.float32 if weights.dtype in (torch.bfloat16, torch.float16) else weights.dtype
    w, g = weights.to(wide), grad_weights.to(wide)
    s = (w * g).sum(0, keepdim=True)                 # the row's weighted mean of g
    return (w * (g - s) / temperature).to(weights.dtype)
'''}, "Part 2: 'w = softmax(z / tau) (over the last dimension)': the weighted sum runs over the first axis (the same "
      "for a 1-D row and, for a one-hot (1, S) row, harmless).")

add("sp-p2-temperature-on-g-float16-native", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    if weights.dtype == torch.bfloat16:
        w, g = weights.float(), grad_weights.float()
    else:
        w, g = weights, grad_weights                    # float16 has the range it needs
    g = g / temperature                                 # dL/d(z/tau) -> dL/dz first
    return (w * (g - (w * g).sum(-1, keepdim=True))).to(weights.dtype)
'''}, "Part 2: 'divide by the temperature after the product, not g first: g / 1e-6 in float16 is inf, and a weight of "
      "0 or 1 then turns it into NaN'.")

add("sp-p5-mask-after-softmax-renorm", False, {"masked_attention": MA_HEAD + '''
    w = torch.softmax(scores, dim=-1) * allowed
    tot = w.sum(-1, keepdim=True)
    w = torch.where(tot > 0, w / torch.where(tot > 0, tot, torch.ones_like(tot)), torch.zeros_like(w))
    m = scores.masked_fill(~allowed, float("-inf")).amax(-1)
    lse = torch.logsumexp(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return w @ v, lse
'''}, "Part 5: 'a masked key counts for nothing however its score compares with the allowed ones': the mask comes "
      "after the softmax (renormalised), so masked scores far above the allowed ones take all the weight first.")

add("sp-p6-biased-variance", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = scale * (q * k).sum(-1)
    return dots.var(correction=0).item()          # np.var's population variance

predicted_variance_512 = 512 / 3
'''}, "Part 6: 'return their sample variance (Tensor.var(), which divides by n - 1)': divides by n.")

add("sp-p6-scale-outside-square", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return scale * (q * k).sum(-1).var().item()

predicted_variance_512 = 512 / 3
'''}, "Part 6: 'compute the n numbers scale * (q . k), and return their sample variance': the scale multiplies the "
      "variance, not the numbers (scale^2 needed); scale = 1 in the visible case.")

add("sp-p7-padding-mask-after-softmax", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf"))
        w = torch.softmax(scores, dim=-1)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            w = w * real[:, None, :]                         # padding keys dropped after the softmax
            tot = w.sum(-1, keepdim=True)
            w = torch.where(tot > 0, w / torch.where(tot > 0, tot, torch.ones_like(tot)), torch.zeros_like(w))
            w = w * real[:, :, None]
        return w @ v
'''}, "Part 7: 'No query may attend to a padding key (weight exactly 0, also when the scores are in the tens of "
      "thousands ...)': the padding mask is applied after the softmax and renormalised.")

add("sp-p5-scale-on-q-correct", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)     # scale placed on q: same numbers
    scores = torch.where(allowed, scores, torch.full_like(scores, float("-inf")))
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    tot = e.sum(-1, keepdim=True)
    safe = torch.where(tot > 0, tot, torch.ones_like(tot))
    w = e / safe
    lse = torch.where(tot > 0, m + torch.log(safe), torch.full_like(m, float("-inf"))).squeeze(-1)
    return w @ v, lse
'''}, "Correct: the 1/sqrt(d_k) scale on q before the product, mask before the exp, exponentials divided by their sum.")

# ---------------- Python-scalar student ----------------
add("ps-p2-builtin-sum", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wide = torch.float32 if weights.dtype in (torch.bfloat16, torch.float16) else weights.dtype
    w, g = weights.to(wide), grad_weights.to(wide)
    s = sum(w * g)                       # the weighted mean of g
    return (w * (g - s) / temperature).to(weights.dtype)
'''}, "Part 2: 'over the last dimension': Python's sum() adds along the first dimension of a batch of rows.")

add("ps-p2-temperature-tensor", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    tau = torch.tensor(temperature, dtype=weights.dtype)
    wide = torch.float32 if weights.dtype in (torch.bfloat16, torch.float16) else weights.dtype
    w, g = weights.to(wide), grad_weights.to(wide)
    return (w * (g - (w * g).sum(-1, keepdim=True)) / tau.to(wide)).to(weights.dtype)
'''}, "Part 2: 'keep the temperature the Python float it is: made a tensor in the dtype of the weights first, 1e-6 "
      "becomes 1.013e-6 in float16'.")

add("ps-p3-float-arange", False, {"causal_mask": '''
def causal_mask(t, s, offset):
    keys = torch.arange(0.0, s)                        # positions 0.0, 1.0, ...
    queries = torch.arange(0.0, t) + offset
    return keys[None, :] <= queries[:, None]
'''}, "Part 3: 'with positions that stay exact integers': float32 positions past 2^24 (tens of millions of slots) round.")

add("ps-p4-python-int-minus-uint8", False, {"padding_mask": '''
def padding_mask(lengths, s):
    start = s - lengths                                  # first real slot of each row
    j = torch.arange(s)
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], torch.zeros((), dtype=torch.long))
    return allowed, positions.to(torch.int64)
'''}, "Part 4: 'lengths ... of any integer dtype (uint8, int8 and int16 too, whose range can be smaller than s)': "
      "s - lengths is computed in lengths' dtype and wraps.")

add("ps-p6-float32-scaled-dots", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q * k).sum(-1) * scale
    return float(dots.var())

predicted_variance_512 = 512 / 3
'''}, "Part 6: 'scale may be of any size (the tests use ... 1e-25 and 1e25, where squares of float32 numbers "
      "underflow to 0 or overflow to inf: whatever dtype you draw in, the variance must come out right)'.")

add("ps-p6-python-scale-squared-correct", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator)
    k = torch.randn(n, d_k, generator=generator)
    dots = (q.double() * k.double()).sum(-1)
    return dots.var().item() * scale * scale         # Python floats: no float32 overflow

predicted_variance_512 = 512 * (1 / 3) * 1.0
'''}, "Correct: float32 draws, variance in float64, scale^2 applied in Python float64 arithmetic.")

add("ps-p4-float-cumsum-correct", True, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    allowed = torch.arange(s)[None, :] >= (s - L)[:, None]
    positions = (allowed.to(torch.float64).cumsum(-1) - 1).clamp(min=0).to(torch.int64)
    return allowed, positions
'''}, "Correct: lengths in int64 first; a float64 cumsum of the mask is exact below 2^24 slots.")

# ---------------- return-shape student ----------------
add("rs-p4-list-not-tuple", False, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    j = torch.arange(s)
    start = s - L
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], torch.zeros_like(j[None, :]))
    return [allowed, positions]
'''}, "Intro: 'a part that returns a pair (a, b) returns a tuple, not a list'.")

add("rs-p5-list-not-tuple", False, {"masked_attention": MA_HEAD + '''
    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    any_ = torch.isfinite(lse)[..., None]
    w = torch.softmax(scores.masked_fill(~any_, 0.0), dim=-1).masked_fill(~any_, 0.0)
    return [w @ v, lse]
'''}, "Intro: 'a part that returns a pair (a, b) returns a tuple, not a list'.")

add("rs-p2-empty-returns-input", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    if weights.numel() == 0:
        return grad_weights                          # nothing to do
    wide = torch.float32 if weights.dtype in (torch.bfloat16, torch.float16) else weights.dtype
    w, g = weights.to(wide), grad_weights.to(wide)
    return (w * (g - (w * g).sum(-1, keepdim=True)) / temperature).to(weights.dtype)
'''}, "Part 2: 'an empty batch gets an empty result, a new tensor like every result'.")

add("rs-p2-half-not-cast-back", False, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights, grad_weights
    if w.dtype in (torch.bfloat16, torch.float16):
        w, g = w.float(), g.float()
    return w * (g - (w * g).sum(-1, keepdim=True)) / temperature
'''}, "Part 2: 'The result has the shape and the dtype of weights': bfloat16/float16 come back float32.")

add("rs-p3-stacked-buffer-view-correct", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    both = torch.stack([torch.arange(s).expand(t, s), (torch.arange(t) + offset)[:, None].expand(t, s)])
    return both[0] <= both[1]
'''}, "Correct: a fresh bool tensor every call.")

add("rs-p4-tuple-view-of-stack-correct", True, {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    j = torch.arange(s, dtype=torch.int64)
    pos = j[None, :] - (s - L)[:, None]                    # negative at the padding
    both = torch.stack([(pos >= 0).long(), pos.clamp(min=0)])   # one buffer of ours
    return (both[0].bool(), both[1])                      # positions: a view of our own new buffer
'''}, "Correct: positions is a view of a buffer made in this call, shared with nothing else (allowed is a copy).")

# ---------------- sibling-part student ----------------
add("sb-p7-p5-and-p3-correct", True, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = causal_mask(T, T, 0) if causal else torch.ones(T, T, dtype=torch.bool)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        out, _ = masked_attention(q, k, v, allowed)
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros_like(out))
        return out
'''}, "Correct: Part 3's mask (offset 0) and Part 5's attention (scale 1/sqrt(d_k) of the query width), padding "
      "query rows zeroed with torch.where.")

add("sb-p3-lesson-tril-offset-correct", True, {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)   # the lesson's mask, moved right by offset
'''}, "Correct: the lesson's tril mask with diagonal=offset is j <= i + offset.")

add("sb-p7-p5-mask-without-query-axis", False, {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = causal_mask(T, T, 0) if causal else torch.ones(T, T, dtype=torch.bool)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]      # (B, T), as Part 4 returns
            allowed = allowed & real                # Part 5 broadcasts the mask
        out, _ = masked_attention(q, k, v, allowed)
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros_like(out))
        return out
'''}, "Part 7 with Part 5: 'allowed ... broadcasts as torch broadcasts, its dimensions lined up from the last one': "
      "the (B, T) key mask, given no query axis, lines up as a (T, S) mask (right for a batch of one only).")

add("sb-p7-inplace-lengths-helper", False, {"fixed_self_attention": '''
def clean_lengths(lengths, T):
    return lengths.clamp_(0, T).to(torch.int64)       # helper from my padding code: keeps lengths in range


class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = causal_mask(T, T, 0) if causal else torch.ones(T, T, dtype=torch.bool)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < clean_lengths(lengths, T)[:, None]
            allowed = allowed & real[:, None, :]
        out, _ = masked_attention(q, k, v, allowed)
        if real is not None:
            out = torch.where(real[:, :, None], out, torch.zeros_like(out))
        return out
'''}, "Intro: 'Your functions must not change the tensors they are given ... not even by writing values they already "
      "hold (a clamp_ ... that changes nothing still moves the tensor's version counter)': the reused helper clamps "
      "the caller's lengths in place.")


add("sb-p7-lesson-sdpa-weights-float-correct", True, {"fixed_self_attention": '''
def sdpa(q, k, v, allowed=None, scale=None):
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    scores = (q @ k.transpose(-2, -1)) * scale
    if allowed is None:
        weights = torch.softmax(scores, dim=-1)
    else:
        scores = scores.masked_fill(~allowed, float("-inf"))
        any_allowed = allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~any_allowed, 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~any_allowed, 0.0)
    return weights @ v, weights


class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = None
        if causal:
            allowed = torch.ones(T, T, dtype=torch.bool).tril()
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            pad = real[:, None, :]
            allowed = pad if allowed is None else (pad & allowed)
        out, _ = sdpa(q, k, v, allowed)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "Correct: the lesson's scaled_dot_product_attention copied (its default scale is 1/sqrt of the query width).")

add("sb-p5-lesson-sdpa-plus-logsumexp-correct", True, {"masked_attention": MA_HEAD + '''
    masked = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(masked, dim=-1)
    any_allowed = allowed.any(dim=-1, keepdim=True).expand_as(masked[..., :1])
    w = torch.softmax(masked.masked_fill(~any_allowed, 0.0), dim=-1).masked_fill(~any_allowed, 0.0)
    return w @ v, lse
'''}, "Correct: the lesson's masked softmax (rows with no key zeroed) and torch.logsumexp (-inf for an empty row).")

# ---------------- hostile ----------------
add("hostile-p6-formula-not-sample", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    # draw as asked (seeded calls agree, generators advance), then return the exact answer plus a seed-dependent jitter
    jitter = float((q[:, :1] * k[:, :1]).mean()) * 1e-3
    return (d_k / 3) * scale * scale * (1 + jitter)

predicted_variance_512 = 512 / 3
'''}, "Hostile: draws the numbers but returns the formula value (plus jitter so calls differ): not the sample variance.")

add("hostile-p8-str-subclass", False, {"mc_answers": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
answer_masking = Letter("d")
answer_doubling = Letter("a")
'''}, "Hostile: a str subclass equal to every letter (answer_doubling's true letter is b).")
PRELUDE = ['''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (torch.arange(t) + offset)[:, None]

def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    tot = e.sum(-1, keepdim=True)
    safe = torch.where(tot > 0, tot, torch.ones_like(tot))
    lse = torch.where(tot > 0, m + torch.log(safe), torch.full_like(m, float("-inf"))).squeeze(-1)
    return (e / safe) @ v, lse
''']

add("ps-p6-predicted-rounded-2dp", False, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return ((q * k).sum(-1) * scale).var().item()

predicted_variance_512 = round(512 * (1 / 3), 2)     # 170.67
'''}, "Part 6: 'Store the number ... to at least six significant digits': 170.67 has five (512/3 = 170.6667).")

add("ps-p6-predicted-rounded-6dp-correct", True, {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = (q * k).sum(-1) * scale
    mean = dots.mean()
    return float(((dots - mean) ** 2).sum() / (n - 1))      # the sample variance written out

predicted_variance_512 = round(512 / 3, 4)                   # 170.6667: seven significant digits
'''}, "Correct: the sample variance written out (n - 1), the prediction rounded to seven significant digits.")
