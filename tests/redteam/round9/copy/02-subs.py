SUBMISSIONS = [
{"name": "p1 raw_scores", "correct": True, "cells": {"raw_scores": '''
def raw_scores(q, k):
    q, k = q.transpose(0, 1), k.transpose(0, 1)
    scale = 1.0
    return (q @ k.transpose(-2, -1)) * scale
'''}, "why": "copied from attention.py attention_scores (scale=1.0); changes: 2 lines (transpose to batch-first, scale=1.0)"},
{"name": "p2 attention_weights", "correct": True, "cells": {"attention_weights": '''
def attention_weights(q, k, temperature):
    scale = 1.0 / math.sqrt(q.shape[-1])
    scores = (q @ k.transpose(-2, -1)) * scale
    scores = scores / temperature[..., None]
    return torch.softmax(scores, dim=-1)
'''}, "why": "copied from attention_scores + scaled_dot_product_attention softmax; changes: 2 lines (divide by temperature[...,None], return weights)"},
{"name": "p3 causal_mask", "correct": True, "cells": {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(offset)
'''}, "why": "copied from attention.py causal_mask; changes: 1 line (tril(offset))"},
{"name": "p4 padding_mask", "correct": True, "cells": {"padding_mask": '''
def padding_mask(lengths, s):
    lengths = lengths.long()
    positions = torch.arange(s, device=lengths.device)
    allowed = positions[None, :] >= s - lengths[:, None]
    pos = (positions[None, :] - (s - lengths[:, None])).clamp(min=0)
    return allowed, pos
'''}, "why": "copied from attention.py padding_mask; changes: 4 lines (.long(), >= s - lengths for left padding, new positions line, return pair)"},
{"name": "p5 masked_attention", "correct": True, "cells": {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scale = 1.0 / math.sqrt(q.shape[-1])
    scores = (q @ k.transpose(-2, -1)) * scale
    scores = scores.masked_fill(~allowed, float("-inf"))
    any_allowed = allowed.any(dim=-1, keepdim=True)
    scores = scores.masked_fill(~any_allowed, 0.0)
    weights = torch.softmax(scores, dim=-1).masked_fill(~any_allowed, 0.0)
    output = weights @ v
    lse = torch.logsumexp(scores, dim=-1).masked_fill(~any_allowed[..., 0], float("-inf"))
    return output, lse
'''}, "why": "copied from attention.py scaled_dot_product_attention (+attention_scores inlined); changes: 2 lines (lse line, return)"},
{"name": "p6 variance_experiment", "correct": True, "cells": {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    qs, ks = torch.rand(n, d_k, generator=generator), torch.randn(n, d_k, generator=generator)
    dots = (qs * ks).sum(-1)
    return (dots * scale).var().item()

predicted_variance_512 = 512
'''}, "why": "copied from index.md variance cell; changes: 3 lines (rand/generator, scale, return); predicted value copied from page's Var = d_k (page formula, wrong for these inputs)"},
{"name": "p7 fixed_self_attention", "correct": True, "cells": {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if causal:
            allowed = allowed.tril()
        if lengths is not None:
            pad = torch.arange(T, device=x.device)[None, :] < lengths[:, None]
            allowed = pad[:, None, :] & allowed
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
        scores = scores.masked_fill(~allowed, float("-inf"))
        any_allowed = allowed.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~any_allowed, 0.0)
        weights = torch.softmax(scores, dim=-1).masked_fill(~any_allowed, 0.0)
        output = weights @ v
        if lengths is not None:
            output = output.masked_fill(~pad[:, :, None], 0.0)
        return output
'''}, "why": "copied from index.md masks cell (padding_mask, causal_mask, combine_masks bodies) + scaled_dot_product_attention body; changes: 5 lines (ones init, if-guards, zeroing padding query rows is new)"},
{"name": "p8 mc (8a only)", "correct": True, "cells": {"mc_answers": '''
answer_masking = "c"
'''}, "why": "8a copied from the page's -1e9 check-the-claim box (uniform); 8b: nothing on the page, no answer"},
]
