SUBMISSIONS = [
 {"name": "S1-p4-cut-on-logits-plus-log-minp", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    keep = logits >= logits.amax(dim=-1, keepdim=True) + math.log(min_p)
    probs = torch.where(keep, logits.softmax(dim=-1), torch.zeros_like(logits))
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
"""}, "why": "cut on the logits rather than the probabilities (p_i >= min_p * max p)"},
 {"name": "S1-p4-cut-on-log-softmax", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    logp = torch.log_softmax(logits, dim=-1)
    keep = logp >= logp.amax(dim=-1, keepdim=True) + math.log(min_p)
    probs = torch.where(keep, logp.exp(), torch.zeros_like(logp))
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
"""}, "why": "cut on log-probabilities (another monotone copy)"},
 {"name": "S1-p4-cut-on-ratio", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs / probs.amax(dim=-1, keepdim=True) >= min_p
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
"""}, "why": "cut on p / max p (another copy)"},
 {"name": "S1-p4-cut-on-float32-probs-of-float64", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.float().softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    probs = torch.where(keep, probs, torch.zeros_like(probs))
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
"""}, "why": "cut on float32 probabilities of float64 logits"},
 {"name": "S3-p4-percent-uniform", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    cdf = (w / w.sum(-1, keepdim=True)).cumsum(-1)
    u = torch.randint(0, 100, (logits.shape[0], 1), generator=generator).to(cdf.dtype) / 100
    return (cdf <= u).sum(-1).clamp(max=logits.shape[-1] - 1)
"""}, "why": "draws a uniform on a grid of 1/100: every row's distribution moved by up to 1e-2"},
 {"name": "S3-p4-stratified-rows", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs, torch.zeros_like(probs))
    cdf = (w / w.sum(-1, keepdim=True)).cumsum(-1)
    B = logits.shape[0]
    u0 = torch.rand(1, generator=generator, dtype=cdf.dtype)
    u = (u0 + torch.arange(B, dtype=cdf.dtype) * 0.6180339887498949) % 1.0
    return (cdf <= u[:, None]).sum(-1).clamp(max=logits.shape[-1] - 1)
"""}, "why": "one uniform shifted by the golden ratio per row: each row's marginal is right, the rows are not independent draws"},
 {"name": "S3-p4-uniform-race", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    u = torch.rand(probs.shape, generator=generator, dtype=probs.dtype)
    score = torch.where(keep, probs * u, torch.full_like(probs, -1.0))
    return score.argmax(dim=-1)
"""}, "why": "argmax of p * u is not a draw from p"},
 {"name": "S3-p4-tempered-kept", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs.sqrt(), torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
"""}, "why": "draws from sqrt of the kept probabilities"},
 {"name": "S3-p4-tempered-0.9", "correct": False, "cells": {"min_p_sample": """
def min_p_sample(logits, min_p, generator):
    probs = logits.softmax(dim=-1)
    keep = probs >= min_p * probs.amax(dim=-1, keepdim=True)
    w = torch.where(keep, probs ** 0.9, torch.zeros_like(probs))
    return torch.multinomial(w, 1, generator=generator).squeeze(-1)
"""}, "why": "draws from the kept probabilities to the power 0.9"},
 {"name": "T-p7-broadcast-product", "correct": False, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    B, H, T, D = q.shape
    G, S = k.shape[1], k.shape[2]
    kk = k.repeat_interleave(H // G, dim=1)
    vv = v.repeat_interleave(H // G, dim=1)
    scores = (q[:, :, :, None, :] * kk[:, :, None, :, :]).sum(-1) / math.sqrt(D)
    allowed = torch.arange(S)[None, :] <= torch.arange(S - T, S)[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = scores.softmax(-1)
    out = (w[..., None] * vv[:, :, None, :, :]).sum(-2)
    return out.to(dtype)
"""}, "why": "builds (B, H, T, S, Dh) products: Dh times the scores"},
 {"name": "H-p8-decay-float16-only", "correct": False, "cells": {"decayed_linear_attention": """
def decayed_linear_attention(q, k, v, decay):
    dtype = q.dtype
    if dtype == torch.float16:
        decay = torch.tensor(decay, dtype=torch.float16)
    work = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    q, k, v = q.to(work), k.to(work), v.to(work)
    decay = torch.as_tensor(decay).to(work) if isinstance(decay, torch.Tensor) else decay
    phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
    state = torch.zeros(*q.shape[:-2], q.shape[-1], v.shape[-1], dtype=work)
    norm = torch.zeros(*q.shape[:-2], q.shape[-1], dtype=work)
    outs = []
    for i in range(q.shape[-2]):
        state = decay * state + phi_k[..., i, :, None] * v[..., i, None, :]
        norm = decay * norm + phi_k[..., i, :]
        num = torch.einsum("...d,...dv->...v", phi_q[..., i, :], state)
        den = (phi_q[..., i, :] * norm).sum(-1, keepdim=True)
        outs.append(num / den)
    if not outs:
        return torch.zeros(*v.shape, dtype=dtype)
    return torch.stack(outs, dim=-2).to(dtype)
"""}, "why": "decay rounded to float16 before the float32 work (float16 only)"},
 {"name": "H-p7-scale-bfloat16", "correct": False, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    scale = torch.tensor(1 / math.sqrt(q.shape[-1]), dtype=dtype).float()
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) * scale.to(q.dtype) if dtype in (torch.float16, torch.bfloat16) else torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(d)
    allowed = torch.arange(s)[None, :] <= torch.arange(s - t, s)[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d).to(dtype)
"""}, "why": "scale rounded to the half dtype (closed in float16 only)"},
 {"name": "H-p7-sqrt-divisor-half", "correct": False, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    denom = torch.tensor(math.sqrt(q.shape[-1]), dtype=dtype)
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / denom.to(q.dtype)
    allowed = torch.arange(s)[None, :] <= torch.arange(s - t, s)[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d).to(dtype)
"""}, "why": "sqrt(Dh) made a tensor in the half dtype, then divided"},
 {"name": "S2-p3-carry-across-rows-flat", "correct": False, "cells": {"whole_word_chosen": """
def whole_word_chosen(starts, pick):
    B, T = starts.shape
    flat_s, flat_p = starts.reshape(-1), pick.reshape(-1)
    word = torch.cumsum(flat_s.long(), 0)
    chosen_word = torch.zeros(int(word[-1]) + 1 if word.numel() else 1, dtype=torch.bool)
    chosen_word[word[flat_s]] = flat_p[flat_s]
    return chosen_word[word].reshape(B, T).clone()
"""}, "why": "word ids counted over the flattened batch: a row's positions before its first start join the previous row's last word"},
 {"name": "H-p7-scale-bfloat16-only", "correct": False, "cells": {"gqa_cached_attention": """
def gqa_cached_attention(q, k, v):
    dtype = q.dtype
    scale = torch.tensor(1 / math.sqrt(q.shape[-1]), dtype=dtype).float() if dtype == torch.bfloat16 else 1 / math.sqrt(q.shape[-1])
    if dtype in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    b, h, t, d = q.shape
    g, s = k.shape[1], k.shape[2]
    qg = q.reshape(b, g, h // g, t, d)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) * scale
    allowed = torch.arange(s)[None, :] <= torch.arange(s - t, s)[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(b, h, t, d).to(dtype)
"""}, "why": "scale rounded to bfloat16 (the dtype the first pass left open)"},
]
