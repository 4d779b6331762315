# Red team round 25, class sweep, chapter 02 (scaled-attention): classes K-P put into the model answer of every part
# where they apply, one variant at a time (tests/redteam/round25/BRIEF-SWEEP.md).

RAW = '''
def raw_scores(q, k):
    a, b = q.to(torch.float64), k.to(torch.float64)
    q_norms = {qn}
    k_norms = {kn}
{rest}
'''
RAW_TAIL_MODEL = '''    dots = a @ b.transpose(-2, -1)
    return (-(q_norms + k_norms - 2 * dots).clamp(min=0)).to(q.dtype)'''

SMB = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
{body}
'''

PAD = '''
SLOTS = torch.arange(1 << {bits})  # slot numbers, made once

def padding_mask(lengths, s):
    start = s - lengths.long()[:, None]
    slots = SLOTS[None, :s]
    allowed = slots >= start
    positions = (slots - start).clamp(min=0)
    return allowed, positions
'''

MA = '''
def masked_attention(q, k, v, allowed):
{scores}
{rest}
'''
# the model answer after the sweep's fix (weights divided by their sum); 02-sweep.txt graded the O-p5 variants with
# the model answer's earlier exp(scores - lse), which the new hidden case refuses for its own reason
MA_REST_MODEL = '''    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    top = scores.amax(dim=-1, keepdim=True)
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)
    e = torch.exp(scores - top)
    total = e.sum(dim=-1, keepdim=True)
    weights = e / torch.where(total > 0, total, torch.ones_like(total))
    return weights @ v, lse'''
MA_SCORES_MODEL = '''    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])'''

VAR = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
{body}

predicted_variance_512 = 512 / 3
'''

FIXED = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        t = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
{scores}
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()
        if lengths is None:
            return torch.softmax(scores.masked_fill(~allowed, {fill}), dim=-1) @ v
        real = torch.arange(t, device=x.device)[None, :] < lengths[:, None]
        allowed = allowed & real[:, None, :]
        weights = torch.softmax(scores.masked_fill(~allowed, {fill}), dim=-1)
        weights = weights.masked_fill(~real[:, :, None], 0.0)
        return weights @ v
'''
FIXED_SCORES_MODEL = '''        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])'''

SUBMISSIONS = [
    # ---------------------------------------------------------------- K: finfo(dtype).min filled in (Parts 5 and 7)
    {"name": "K-p5-fill-finfo-min", "correct": False,
     "cells": {"masked_attention": MA.format(scores=MA_SCORES_MODEL, rest='''    full = allowed.expand(scores.shape)
    scores = scores.masked_fill(~full, torch.finfo(q.dtype).min)
    lse = torch.logsumexp(scores, dim=-1)
    none = ~full.any(dim=-1)
    lse = lse.masked_fill(none, float("-inf"))
    weights = torch.softmax(scores, dim=-1).masked_fill(none[..., None], 0.0)
    return weights @ v, lse''')},
     "why": "K, Part 5 (closed there in round 25): finfo.min filled in ties with an allowed score at exactly finfo.min."},
    {"name": "K-p7-fill-finfo-min", "correct": False,
     "cells": {"fixed_self_attention": FIXED.format(scores=FIXED_SCORES_MODEL, fill="torch.finfo(scores.dtype).min")},
     "why": "K, Part 7 (closed there in round 25): the same fill in the fixed layer."},
    # ---------------------------------------------------------------- L: a table made once, sliced per call
    {"name": "L-p3-key-table-2-to-20", "correct": False,
     "cells": {"causal_mask": '''
POSITIONS = torch.arange(1 << 20)  # made once

def causal_mask(t, s, offset):
    return POSITIONS[None, :s] <= offset + POSITIONS[:t, None]
'''},
     "why": "L, Part 3: positions from a table of 2**20 made once ('a table of a fixed size made in advance cannot hold "
            "the largest sizes')."},
    {"name": "L-p4-slot-table-2-to-16", "correct": False,
     "cells": {"padding_mask": PAD.format(bits=16)},
     "why": "L, Part 4: slot numbers from a table of 2**16 made once; the text allows rows of up to 2**24 slots."},
    {"name": "L-p4-slot-table-2-to-20", "correct": False,
     "cells": {"padding_mask": PAD.format(bits=20)},
     "why": "L, Part 4: slot numbers from a table of 2**20 made once; the text allows rows of up to 2**24 slots."},
    # ---------------------------------------------------------------- M: an absolute slack under a tiny threshold
    {"name": "M-p1-distances-below-1e-12-zeroed", "correct": False,
     "cells": {"raw_scores": RAW.format(qn="a.square().sum(dim=-1, keepdim=True)", kn="b.square().sum(dim=-1).unsqueeze(-2)",
                                        rest='''    dots = a @ b.transpose(-2, -1)
    d = q_norms + k_norms - 2 * dots
    d = torch.where(d > 1e-12, d, torch.zeros_like(d))  # rounding noise around 0 made 0
    return (-d).to(q.dtype)''')},
     "why": "M, Part 1: squared distances below 1e-12 zeroed (to make the self-score exactly 0); with entries near "
            "1e-7 every distance is below the slack ('values of any size')."},
    {"name": "M-p2-weights-below-1e-12-count-as-masked", "correct": False,
     "cells": {"softmax_backward": SMB.format(body='''    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)
    result = weights * (grad_weights - inner) / temperature
    return torch.where(weights > 1e-12, result, torch.zeros_like(result))  # masked keys: exactly 0''')},
     "why": "M, Part 2: a key of weight below 1e-12 treated as masked (gradient 0); the rule is for weight exactly 0, and "
            "at temperature 1e-6 a weight of 1e-13 has a gradient of about 1e-7 ('floor nothing')."},
    {"name": "M-p5-empty-row-if-lse-below-1e-30", "correct": False,
     "cells": {"masked_attention": MA.format(scores=MA_SCORES_MODEL, rest='''    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    shift = torch.where(lse > -1e30, lse, torch.zeros_like(lse))   # no allowed key
    weights = torch.exp(scores - shift.unsqueeze(-1))
    return weights @ v, lse''')},
     "why": "M, Part 5: an empty row detected as lse below -1e30; allowed scores below -1e30 then lose their weights."},
    # ---------------------------------------------------------------- O: other formulas the text allows
    {"name": "O-p1-two-folded-into-q", "correct": True,
     "cells": {"raw_scores": RAW.format(qn="a.square().sum(dim=-1, keepdim=True)", kn="b.square().sum(dim=-1).unsqueeze(-2)",
                                        rest='''    dots = (-2.0 * a) @ b.transpose(-2, -1)
    return torch.clamp(-(q_norms + k_norms + dots), max=0.0).to(q.dtype)''')},
     "why": "O, Part 1: the factor -2 folded into q, clamp(max=0) after the sign."},
    {"name": "O-p1-norms-through-vector-norm", "correct": True,
     "cells": {"raw_scores": RAW.format(qn="torch.linalg.vector_norm(a, dim=-1, keepdim=True) ** 2",
                                        kn="(torch.linalg.vector_norm(b, dim=-1) ** 2).unsqueeze(-2)", rest=RAW_TAIL_MODEL)},
     "why": "O, Part 1: squared norms through a square root and a square."},
    {"name": "O-p2-times-reciprocal-temperature", "correct": True,
     "cells": {"softmax_backward": SMB.format(body='''    inner = (weights * grad_weights).sum(dim=-1, keepdim=True)
    return weights * (grad_weights - inner) * (1.0 / temperature)''')},
     "why": "O, Part 2: multiplied by the reciprocal of the temperature, after the product."},
    {"name": "O-p2-float32-for-halves-torch-div", "correct": True,
     "cells": {"softmax_backward": SMB.format(body='''    work = torch.float32 if weights.dtype in (torch.float16, torch.bfloat16) else weights.dtype
    w, g = weights.to(work), grad_weights.to(work)
    inner = torch.einsum("...s,...s->...", w, g)[..., None]
    return torch.div(w * g - w * inner, temperature).to(weights.dtype)''')},
     "why": "O, Part 2: halves in float32, w g - w inner, torch.div by the temperature."},
    {"name": "O-p5-scale-folded-into-q", "correct": True,
     "cells": {"masked_attention": MA.format(scores='''    scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)''', rest=MA_REST_MODEL)},
     "why": "O, Part 5: 1/sqrt(d_k) folded into q."},
    {"name": "O-p5-times-inverse-sqrt-into-k", "correct": True,
     "cells": {"masked_attention": MA.format(scores='''    scores = q @ (k * q.shape[-1] ** -0.5).transpose(-2, -1)''', rest=MA_REST_MODEL)},
     "why": "O, Part 5: d_k ** -0.5 multiplied into k."},
    {"name": "O-p5-exp-minus-lse-rsqrt", "correct": False,
     "cells": {"masked_attention": MA.format(scores='''    scale = torch.rsqrt(torch.tensor(float(q.shape[-1]), dtype=torch.float64)).item()
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale''', rest='''    scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    lse = torch.logsumexp(scores, dim=-1, keepdim=True)
    weights = torch.exp(scores - lse).nan_to_num(nan=0.0)
    return weights @ v, lse.squeeze(-1)''')},
     "why": "O, Part 5: scale as a multiplication by rsqrt, weights as exp(z - lse), NaN of empty rows made 0. Graded "
            "correct in 02-sweep.txt (kept); relabelled wrong after the sweep found that exp(z - lse) loses log n where "
            "lse rounds to the top score (the model answer had the same formula; text and model answer now fixed)."},
    {"name": "O-p5-exp-of-log-softmax", "correct": True,
     "cells": {"masked_attention": MA.format(scores=MA_SCORES_MODEL, rest='''    scores = scores.masked_fill(~allowed, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    weights = torch.exp(torch.log_softmax(scores, dim=-1)).nan_to_num(nan=0.0)
    return weights @ v, lse''')},
     "why": "O, Part 5 (added after the model answer's fix): exp of a log_softmax, exact at tied large scores."},
    {"name": "O-p6-scale-squared-on-variance", "correct": True,
     "cells": {"variance_experiment": VAR.format(body='''    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (q * k).sum(dim=-1).var().item() * scale ** 2''')},
     "why": "O, Part 6: the variance of the dots times scale**2."},
    {"name": "O-p6-scale-folded-into-q", "correct": True,
     "cells": {"variance_experiment": VAR.format(body='''    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64) * scale
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return torch.var((q * k).sum(dim=-1)).item()''')},
     "why": "O, Part 6: the scale folded into q before the dot products."},
    {"name": "O-p7-scale-folded-into-q", "correct": True,
     "cells": {"fixed_self_attention": FIXED.format(scores='''        scores = (q / math.sqrt(q.shape[-1])) @ k.transpose(-2, -1)''', fill='float("-inf")')},
     "why": "O, Part 7: 1/sqrt(d_k) folded into q."},
    {"name": "O-p7-times-inverse-sqrt", "correct": True,
     "cells": {"fixed_self_attention": FIXED.format(scores='''        scores = torch.matmul(q, k.transpose(-2, -1)) * q.shape[-1] ** -0.5''', fill='float("-inf")')},
     "why": "O, Part 7: multiplied by d_k ** -0.5."},
]
