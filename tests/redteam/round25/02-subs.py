# Red team round 25, chapter 02: four kinds of student (notebook-state, approximator, log-space, direction-and-order)
# Blind: written from the student notebook and the lesson only.

MA_HEAD = '''
def masked_attention(q, k, v, allowed):
    wd = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
'''

FIXED_HEAD = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        wd = torch.float32 if x.dtype in (torch.bfloat16, torch.float16) else x.dtype
'''

SUBMISSIONS = [
    # ------------------------------------------------------------------ notebook-state student
    {"name": "ns-variance-none-seeded-like-setup", "correct": False,
     "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    if generator is None:
        # reproducible, like the notebook's torch.manual_seed at the top
        generator = torch.Generator().manual_seed(torch.initial_seed())
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return ((q * k).sum(-1) * scale).var().item()

predicted_variance_512 = 512 / 3
'''},
     "why": "Part 6: without a generator it draws from a fresh one seeded from the notebook's seed; breaks 'Without one ... two calls in a row give different values ... a fresh torch.Generator() of your own would return the same value at every call'."},
    {"name": "ns-predicted-by-experiment", "correct": False,
     "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return ((q * k).sum(-1) * scale).var().item()

# the notebook is seeded (torch.manual_seed(0)), so this number is reproducible
predicted_variance_512 = dot_product_variance(512, 5000)
'''},
     "why": "Part 6: the 512 value is measured, not derived; breaks 'work it out on paper, not by experiment ... to at least six significant digits'."},
    {"name": "ns-causal-position-table-built-once", "correct": False,
     "cells": {"causal_mask": '''
POSITIONS = torch.arange(1 << 22)     # positions table, built once for the notebook

def causal_mask(t, s, offset):
    keys = POSITIONS[:s]
    queries = POSITIONS[offset:offset + t]
    return keys[None, :] <= queries[:, None]
'''},
     "why": "Part 3: a positions table of a fixed size made in advance; breaks 'Caches can hold tens of millions of slots ... A table of a fixed size made in advance cannot hold the largest sizes'."},
    {"name": "ns-fixed-attn-mask-cache-mutated", "correct": False,
     "cells": {"fixed_self_attention": '''
MASKS = {}   # one (1, T, T) mask per length and causal flag, built once

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        wd = torch.float32 if x.dtype in (torch.bfloat16, torch.float16) else x.dtype
        scores = (q.to(wd) @ k.to(wd).transpose(-2, -1)) / math.sqrt(q.shape[-1])
        key = (T, causal)
        if key not in MASKS:
            m = torch.ones(1, T, T, dtype=torch.bool)
            MASKS[key] = torch.tril(m) if causal else m
        allowed = MASKS[key]
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed &= real[:, None, :]
        allowed = allowed.expand(B, T, T)
        any_ = allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = (w @ v.to(wd)).masked_fill(~real[:, :, None], 0.0)
        return out.to(x.dtype)
'''},
     "why": "Part 7: the mask table kept at module level is and-ed with the padding in place, so later calls of the same length see the old padding; breaks 'nothing is kept ... from one call to the next' and the padding rule for later batches."},
    # ------------------------------------------------------------------ approximator
    {"name": "ap-predicted-rounded-third", "correct": False,
     "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return ((q * k).sum(-1) * scale).var().item()

predicted_variance_512 = 512 * 0.333   # E[q^2] E[k^2] = 1/3 per coordinate
'''},
     "why": "Part 6: 1/3 rounded to 0.333 (170.496 against 170.667); breaks 'Store the number ... to at least six significant digits'."},
    {"name": "ap-raw-half-in-own-dtype", "correct": False,
     "cells": {"raw_scores": '''
def raw_scores(q, k):
    # float32 is worked in float64 as the text asks; the 16-bit types are rounded anyway
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else q.dtype
    qw, kw = q.to(wd), k.to(wd)
    s = 2 * (qw @ kw.transpose(-1, -2)) - (qw * qw).sum(-1)[..., :, None] - (kw * kw).sum(-1)[..., None, :]
    return s.clamp(max=0).to(q.dtype)
'''},
     "why": "Part 1: float16 squares taken in float16 overflow (entries near 80) and give NaN; breaks 'squares taken in float16 become inf, and inf - inf is NaN'."},
    {"name": "ap-fixed-attn-seed-float-softmax", "correct": False,
     "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        any_ = allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_, 0.0)
        weights = torch.softmax(scores.float(), dim=-1).type_as(scores)   # kept from the seed: stable softmax
        weights = weights.masked_fill(~allowed, 0.0)
        return torch.matmul(weights, v).masked_fill(~real[:, :, None], 0.0)
'''},
     "why": "Part 7: keeps the seed's float32 softmax for float64 layers; breaks 'in the dtype of x and as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)'."},
    {"name": "ap-masked-attention-finfo-min-fill", "correct": False,
     "cells": {"masked_attention": MA_HEAD + '''
    z = (q.to(wd) @ k.to(wd).transpose(-1, -2)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, torch.finfo(wd).min)   # large negative instead of -inf: no NaN
    lse = torch.logsumexp(z, dim=-1)
    w = torch.softmax(z, dim=-1)
    any_ = allowed.expand(z.shape).any(dim=-1)
    lse = torch.where(any_, lse, torch.tensor(float("-inf"), dtype=wd))
    out = torch.where(any_[..., None], w @ v.to(wd), torch.zeros((), dtype=wd))
    return out.to(q.dtype), lse.to(q.dtype)
'''},
     "why": "Part 5: finfo.min filled in place of -inf; breaks 'a masked key counts for nothing however its score compares with the allowed ones' (allowed scores near -1e308 / -3.4e38)."},
    {"name": "ap-mc-minus-1e9-is-zero", "correct": False,
     "cells": {"mc_answers": 'answer_masking = "b"   # exp(-1e9) is 0\nanswer_doubling = "b"\n'},
     "why": "Part 8a: treats -1e9 as an exact -inf; the softmax subtracts the row maximum, so the weights are those of the unmasked row (d)."},
    # ------------------------------------------------------------------ log-space student
    {"name": "ls-lse-shift-by-unmasked-max", "correct": False,
     "cells": {"masked_attention": MA_HEAD + '''
    z = (q.to(wd) @ k.to(wd).transpose(-1, -2)) / math.sqrt(q.shape[-1])
    m = z.amax(dim=-1, keepdim=True)          # shift by the row max before exponentiating
    e = torch.where(allowed, torch.exp(z - m), torch.zeros((), dtype=wd))
    ssum = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(ssum)).squeeze(-1)
    w = e / torch.where(ssum > 0, ssum, torch.ones((), dtype=wd))
    return (w @ v.to(wd)).to(q.dtype), lse.to(q.dtype)
'''},
     "why": "Part 5: shifts by the maximum over all keys, masked ones included: allowed terms underflow when a masked score is far above; breaks 'a masked key counts for nothing however its score compares with the allowed ones' (lse finite wherever a query has an allowed key)."},
    {"name": "ls-fixed-attn-exp-log-softmax", "correct": False,
     "cells": {"fixed_self_attention": FIXED_HEAD + '''
        scores = (q.to(wd) @ k.to(wd).transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        logw = torch.log_softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        w = torch.exp(logw).masked_fill(~allowed, 0.0)        # NaN rows (no key) become 0
        out = (w @ v.to(wd)).masked_fill(~real[:, :, None], 0.0)
        return out.to(x.dtype)
'''},
     "why": "Part 7: a row with no allowed key gives NaN from log_softmax; replaced by 0 afterwards, but exp's backward sends 0*NaN = NaN; breaks 'no gradient may be NaN ... the masking step must stop it there' (lengths[b] = 0)."},
    {"name": "ls-backward-temperature-on-weights", "correct": False,
     "cells": {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(wd), grad_weights.to(wd)
    # the temperature acts on the log-weights: w_tau = softmax(log(w) / tau)
    w_tau = torch.softmax(torch.log(w) / temperature, dim=-1).nan_to_num(0.0)
    dot = (w_tau * g).sum(dim=-1, keepdim=True)
    return (w_tau * (g - dot) / temperature).to(weights.dtype)
'''},
     "why": "Part 2: applies the temperature again to the given weights, which already are softmax(z / tau); breaks 'w = softmax(z / tau) ... grad_weights holds g = dL/dw' (equal at tau = 1 and for uniform rows, the visible cases)."},
    # ------------------------------------------------------------------ direction-and-order student
    {"name": "do-backward-sum-over-dim0", "correct": False,
     "cells": {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(wd), grad_weights.to(wd)
    dot = (w * g).sum(dim=0, keepdim=True)    # sum over the keys
    return (w * (g - dot) / temperature).to(weights.dtype)
'''},
     "why": "Part 2: sums over the first dimension, not the last; breaks 'w = softmax(z / tau) (over the last dimension)' (the visible cases are 1-D or one row)."},
    {"name": "do-masked-attention-2d-mask-as-key-mask", "correct": False,
     "cells": {"masked_attention": MA_HEAD + '''
    z = (q.to(wd) @ k.to(wd).transpose(-1, -2)) / math.sqrt(q.shape[-1])
    if allowed.dim() == z.dim() - 1:
        allowed = allowed[..., None, :]        # a (B, S) key mask: the same for every query
    zm = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=wd))
    m = zm.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros((), dtype=wd))
    e = torch.exp(zm - m)
    ssum = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(ssum)).squeeze(-1)
    w = e / torch.where(ssum > 0, ssum, torch.ones((), dtype=wd))
    return (w @ v.to(wd)).to(q.dtype), lse.to(q.dtype)
'''},
     "why": "Part 5: a (T, S) mask given with batched inputs is read as a (B, S) key mask (rows as batch); breaks 'for inputs (B, T, Dh) it may be a (T, S) causal mask shared by the batch'."},
    {"name": "do-causal-block-start-from-t", "correct": False,
     "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    # the block's queries are the t tokens just written: absolute positions t-1+1 .. , i.e. start at t
    i = torch.arange(t)[:, None]
    j = torch.arange(s)[None, :]
    return j <= i + t
'''},
     "why": "Part 3: positions of the block start at t instead of offset; breaks 'Query i of the block is the token at absolute position offset + i' (visible t = offset = 2)."},
    # ------------------------------------------------------------------ correct answers
    {"name": "ok-fixed-attn-via-parts-3-and-5", "correct": True,
     "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = causal_mask(T, T, 0) if causal else torch.ones(T, T, dtype=torch.bool)
        allowed = allowed.expand(B, T, T)
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        out, _ = masked_attention(q, k, v, allowed)     # Part 5 scales by sqrt(d_k), d_k = head_dim
        return torch.where(real[:, :, None], out, torch.zeros((), dtype=out.dtype))
'''},
     "why": "reuses Part 3's causal_mask and Part 5's masked_attention, which the text allows."},
    {"name": "ok-fixed-attn-flipped-left-padding", "correct": True,
     "cells": {"fixed_self_attention": FIXED_HEAD + '''
        scores = torch.einsum("btd,bsd->bts", q.to(wd), k.to(wd)) / math.sqrt(self.key.out_features)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & ~torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            left, _ = padding_mask(lengths, T)          # Part 4: real tokens in the last slots
            real = left.flip(-1)                        # mirrored: real tokens in the first slots
            allowed = allowed & real[:, None, :]
        neg = torch.tensor(float("-inf"), dtype=wd)
        scores = torch.where(allowed, scores, neg)
        scores = torch.where(allowed.any(-1, keepdim=True), scores, torch.zeros((), dtype=wd))
        w = torch.where(allowed, torch.softmax(scores, dim=-1), torch.zeros((), dtype=wd))
        out = torch.where(real[:, :, None], w @ v.to(wd), torch.zeros((), dtype=wd))
        return out.to(x.dtype)
'''},
     "why": "Part 4's left-padding mask mirrored gives the right-padding one; einsum, torch.where."},
    {"name": "ok-masked-attention-literal-formula", "correct": True,
     "cells": {"masked_attention": MA_HEAD + '''
    z = torch.einsum("...td,...sd->...ts", q.to(wd), k.to(wd)) / math.sqrt(q.shape[-1])
    z = z.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(z, dim=-1)                       # -inf for a query with no key
    w = torch.exp(z - lse[..., None])                      # e^{z - l}, as in the formula
    w = torch.where(torch.isnan(w), torch.zeros((), dtype=wd), w)
    out = w @ v.to(wd)
    return out.to(q.dtype), lse.to(q.dtype)
'''},
     "why": "lse first with logsumexp, then the output exactly as the text's formula e^{z - l} v."},
    {"name": "ok-masked-attention-softmax-nan-to-num", "correct": True,
     "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    wd = torch.float64 if dt == torch.float64 else torch.float32
    scores = torch.matmul(q.to(wd), k.to(wd).transpose(-2, -1)) * (1.0 / math.sqrt(k.shape[-1]))
    scores = scores.masked_fill(torch.logical_not(allowed), float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    weights = torch.nn.functional.softmax(scores, dim=-1).nan_to_num(nan=0.0)
    return torch.matmul(weights, v.to(wd)).to(dt), lse.to(dt)
'''},
     "why": "F.softmax, NaN rows (no key) set to 0: the text's gradient checks give every query a key."},
    {"name": "ok-variance-float32-swapped-roles", "correct": True,
     "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    k = torch.randn(n, d_k, generator=generator)        # normal keys first, then uniform queries
    q = torch.rand(n, d_k, generator=generator)
    dots = torch.einsum("nd,nd->n", q, k).double()
    return float(dots.var().item() * scale ** 2)       # scale applied in Python's float64

predicted_variance_512 = 512 * (1 / 3) * 1.0    # E[q^2] = 1/3, E[k^2] = 1, E[k] = 0
'''},
     "why": "drawn in float32 (dtype and order are free), scale^2 applied to the variance in Python float."},
    {"name": "ok-causal-tril-offset", "correct": True,
     "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
''', "padding_mask": '''
ARANGE = {}

def padding_mask(lengths, s):
    if s not in ARANGE:
        ARANGE[s] = torch.arange(s)          # kept, but never returned
    j = ARANGE[s]
    L = lengths.to(torch.int64)
    allowed = j[None, :] >= (s - L)[:, None]
    positions = (torch.cumsum(allowed.to(torch.int64), dim=1) - 1).clamp(min=0)
    return allowed, positions
'''},
     "why": "tril with the offset as the diagonal; left padding with a cumsum of the mask; arange cached, not returned."},
    {"name": "ok-backward-global-default-exp-log", "correct": True,
     "cells": {"softmax_backward": '''
TEMPERATURE = 1.0

def softmax_backward(weights, grad_weights, temperature=TEMPERATURE):
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w = torch.exp(torch.log(weights.to(wd)))            # weights kept as given; exp(log 0) = 0
    g = grad_weights.to(wd)
    inner = torch.einsum("...s,...s->...", w, g)[..., None]
    return ((w * g - w * inner) / temperature).to(weights.dtype)
''', "raw_scores": '''
def raw_scores(q, k):
    wd = torch.float32 if q.dtype in (torch.float16, torch.bfloat16) else torch.float64
    c = q.to(wd).mean(dim=-2, keepdim=True)            # centre both on the queries' mean
    a, b = q.to(wd) - c, k.to(wd) - c
    cross = torch.einsum("...td,...sd->...ts", a, b)
    s = 2 * cross - (a ** 2).sum(-1).unsqueeze(-1) - (b ** 2).sum(-1).unsqueeze(-2)
    return torch.clamp(s, max=0.0).to(q.dtype)
'''},
     "why": "default temperature bound from a notebook constant with the same value; exp(log w) = w; centred expanded distances."},
    {"name": "ok-all-baseline", "correct": True,
     "cells": {},
     "why": "placeholder, replaced below by the baseline of every part"},
    # ------------------------------------------------------------------ hostile
    {"name": "hostile-variance-formula-no-draws", "correct": False,
     "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    return float(d_k * scale * scale / 3)

predicted_variance_512 = 512 / 3
'''},
     "why": "hostile: returns the true variance without drawing anything."},
    {"name": "hostile-mc-str-subclass", "correct": False,
     "cells": {"mc_answers": '''
class Letter(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__

answer_masking = Letter("a")
answer_doubling = Letter("a")
'''},
     "why": "hostile: str subclass equal to every letter."},
]

# the baseline of every part (written independently, blind), used by ok-all-baseline
_BASE = {}
_BASE["raw_scores"] = '''
def raw_scores(q, k):
    wd = torch.float64 if q.dtype in (torch.float32, torch.float64) else torch.float32
    qw, kw = q.to(wd), k.to(wd)
    c = kw.mean(dim=-2, keepdim=True)
    qw, kw = qw - c, kw - c
    s = 2 * (qw @ kw.transpose(-1, -2)) - (qw * qw).sum(-1)[..., :, None] - (kw * kw).sum(-1)[..., None, :]
    return s.clamp(max=0).to(q.dtype)
'''
_BASE["softmax_backward"] = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    wd = torch.float64 if weights.dtype == torch.float64 else torch.float32
    w, g = weights.to(wd), grad_weights.to(wd)
    dot = (w * g).sum(dim=-1, keepdim=True)
    return (w * (g - dot) / temperature).to(weights.dtype)
'''
_BASE["causal_mask"] = '''
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= torch.arange(t)[:, None] + offset
'''
_BASE["padding_mask"] = '''
def padding_mask(lengths, s):
    L = lengths.long()
    start = s - L
    j = torch.arange(s)
    allowed = j[None, :] >= start[:, None]
    positions = torch.where(allowed, j[None, :] - start[:, None], torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''
_BASE["masked_attention"] = '''
def masked_attention(q, k, v, allowed):
    wd = torch.float32 if q.dtype == torch.bfloat16 else q.dtype
    z = (q.to(wd) / math.sqrt(q.shape[-1])) @ k.to(wd).transpose(-1, -2)
    zm = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=wd))
    m = zm.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros((), dtype=wd))
    e = torch.exp(zm - m)
    ssum = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(ssum)).squeeze(-1)
    w = e / torch.where(ssum > 0, ssum, torch.ones((), dtype=wd))
    out = w @ v.to(wd)
    return out.to(q.dtype), lse.to(q.dtype)
'''
_BASE["variance_experiment"] = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = (q * k).sum(dim=-1) * scale
    return dots.var().item()

predicted_variance_512 = 512 / 3
'''
_BASE["fixed_self_attention"] = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        wd = torch.float32 if x.dtype in (torch.bfloat16, torch.float16) else x.dtype
        scores = (q.to(wd) @ k.to(wd).transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool)
        if causal:
            allowed = torch.tril(allowed)
        allowed = allowed.expand(B, T, T)
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        any_ = allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = w @ v.to(wd)
        out = out.masked_fill(~real[:, :, None], 0.0)
        return out.to(x.dtype)
'''
_BASE["mc_answers"] = 'answer_masking = "d"\nanswer_doubling = "b"\n'

for _s in SUBMISSIONS:
    if _s["name"] == "ok-all-baseline":
        _s["cells"] = dict(_BASE)
        _s["why"] = "an independent full solution of every part"

# ---------------------------------------------------------------------- second batch (still blind)
SUBMISSIONS += [
    {"name": "do-fixed-attn-keys-times-queries", "correct": False,
     "cells": {"fixed_self_attention": FIXED_HEAD + '''
        # score matrix laid out keys x queries, as K Q^T
        scores = (k.to(wd) @ q.to(wd).transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        any_ = allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~any_, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = (w @ v.to(wd)).masked_fill(~real[:, :, None], 0.0)
        return out.to(x.dtype)
'''},
     "why": "Part 7: scores computed as K Q^T (row i holds key i against every query); breaks 'the weights of query i are the softmax ... of q_i . k_j / sqrt(d_k)' (the visible layer ties query and key projections, so its scores are symmetric)."},
    {"name": "do-masked-attention-keys-times-queries", "correct": False,
     "cells": {"masked_attention": MA_HEAD + '''
    z = (k.to(wd) @ q.to(wd).transpose(-1, -2)) / math.sqrt(q.shape[-1])
    zm = torch.where(allowed, z, torch.tensor(float("-inf"), dtype=wd))
    m = zm.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros((), dtype=wd))
    e = torch.exp(zm - m)
    ssum = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(ssum)).squeeze(-1)
    w = e / torch.where(ssum > 0, ssum, torch.ones((), dtype=wd))
    return (w @ v.to(wd)).to(q.dtype), lse.to(q.dtype)
'''},
     "why": "Part 5: scores as k q^T; breaks 'z_ij = q_i . k_j / sqrt(d_k)' (the visible q and k are equal, so the scores are symmetric)."},
    {"name": "ap-variance-mean-of-chunk-variances", "correct": False,
     "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = (q * k).sum(-1) * scale
    # average the variances of blocks of 1000 (each unbiased), a steadier number for large n
    chunks = [c for c in dots.split(1000) if c.numel() > 1]
    return (sum(c.var() for c in chunks) / len(chunks)).item()

predicted_variance_512 = 512 / 3
'''},
     "why": "Part 6: the mean of the variances of blocks of 1000, not the sample variance of the n numbers; breaks 'return their sample variance (Tensor.var(), which divides by n - 1)' (same for n <= 1000)."},
    {"name": "ok-masked-attention-float64-inside-clamped-denominator", "correct": True,
     "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    wd = torch.float64
    z = (q.to(wd) @ k.to(wd).transpose(-1, -2)) / math.sqrt(q.shape[-1])
    zm = z.masked_fill(~allowed, float("-inf"))
    m = zm.amax(dim=-1, keepdim=True)
    m = m.masked_fill(m == float("-inf"), 0.0)
    e = torch.exp(zm - m)
    ssum = e.sum(dim=-1, keepdim=True)
    lse = (m + torch.log(ssum)).squeeze(-1)
    w = e / ssum.clamp(min=1e-30)          # >= 1 wherever a key is allowed; 0 / 1e-30 = 0 elsewhere
    return (w @ v.to(wd)).to(q.dtype), lse.to(q.dtype)
'''},
     "why": "float64 inside for every dtype and cast back; the denominator's clamp changes nothing (it is >= 1 where a key is allowed)."},
    {"name": "ok-fixed-attn-float64-inside-causal-cache", "correct": True,
     "cells": {"fixed_self_attention": '''
CAUSAL = {}

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        wd = torch.float64
        scores = (q.to(wd) @ k.to(wd).transpose(-2, -1)) * (q.shape[-1] ** -0.5)
        if T not in CAUSAL:
            CAUSAL[T] = torch.tril(torch.ones(T, T, dtype=torch.bool))     # read only
        allowed = (CAUSAL[T] if causal else torch.ones(T, T, dtype=torch.bool)).expand(B, T, T)
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T - 1, -1, -1)[None, :] >= T - lengths.long()[:, None]   # counted from the end
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, float("-inf"))
        scores = scores.masked_fill(~allowed.any(-1, keepdim=True), 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = (w @ v.to(wd)).masked_fill(~real[:, :, None], 0.0)
        return out.to(x.dtype)
'''},
     "why": "float64 inside, a read-only causal table per length, real slots found by counting from the end (T-1-j >= T-L iff j < L)."},
    {"name": "ok-backward-float64-always", "correct": True,
     "cells": {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w = weights.double()
    g = grad_weights.double()
    out = w * (g - (w * g).sum(-1, keepdim=True))
    return (out / temperature).to(weights.dtype)
'''},
     "why": "every dtype worked in float64 and cast back."},
]

# ---------------------------------------------------------------------- third batch (still blind)
SUBMISSIONS += [
    {"name": "ap-fixed-attn-finfo-min-filled", "correct": False,
     "cells": {"fixed_self_attention": FIXED_HEAD + '''
        scores = (q.to(wd) @ k.to(wd).transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool))
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        scores = scores.masked_fill(~allowed, torch.finfo(wd).min)      # lowest finite value: never NaN
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = (w @ v.to(wd)).masked_fill(~real[:, :, None], 0.0)
        return out.to(x.dtype)
'''},
     "why": "Part 7: masked scores replaced by finfo.min: an allowed score at the lowest finite value ties with them; breaks 'No query may attend to a padding key (weight exactly 0 ...)'."},
]
