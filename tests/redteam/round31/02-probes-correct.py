SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

add("probe-c-p5-one-buffer-two-views", True, {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    m = scores.amax(-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(scores - m)
    tot = e.sum(-1, keepdim=True)
    safe = torch.where(tot > 0, tot, torch.ones_like(tot))
    lse = torch.where(tot > 0, m + torch.log(safe), torch.full_like(m, float("-inf")))
    buf = torch.cat([(e / safe) @ v, lse], -1)        # (..., T, Dv + 1)
    return buf[..., :-1], buf[..., -1]
'''}, "Correct: output and lse are two non-overlapping views of one buffer made in this call.")

add("probe-c-p6-statistics-variance", True, {"variance_experiment": '''
import statistics

def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    dots = ((q * k).sum(-1) * scale).tolist()
    return statistics.variance(dots)

predicted_variance_512 = 512 / 3
'''}, "Correct: the standard library's sample variance (n - 1) of the n numbers drawn.")

add("probe-c-p7-F-sdpa", True, {"fixed_self_attention": '''
import torch.nn.functional as F

class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        some = allowed.any(-1, keepdim=True)
        allowed = allowed | ~some                         # rows with no key: anything finite, zeroed below
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)   # True = may attend; scale 1/sqrt(q width)
        keep = some & real[:, :, None]
        return torch.where(keep, out, torch.zeros_like(out))
'''}, "Correct: torch's own scaled_dot_product_attention with a boolean mask (True = kept), empty rows zeroed.")
add("probe-c-p2-native-dtype", True, {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights, grad_weights                      # every dtype worked in its own precision
    return w * (g - (w * g).sum(-1, keepdim=True)) / temperature
'''}, "Correct by the text? bfloat16/float16 'may be worked in float32' (allowed, not required); the text discusses a "
      "float16 row worked in its own dtype; the temperature divides after the product.")
PRELUDE=[]
