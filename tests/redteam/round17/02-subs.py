# Round 17, chapter 02: defensive programmer (D), high-level library user (H), production engineer (P),
# test-driven student (T); correct variants (C); hostile (X).

RAW_OK = '''
def raw_scores(q, k):
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k = q.float(), k.float()
    qn = (q * q).sum(-1)
    kn = (k * k).sum(-1)
    d = qn[..., :, None] + kn[..., None, :] - 2 * (q @ k.transpose(-2, -1))
    return (-d.clamp(min=0)).to(dt)
'''

SMB_OK = '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    w, g = weights, grad_weights
    if dt in (torch.float16, torch.bfloat16):
        w, g = w.float(), g.float()
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / temperature).to(dt)
'''

CAUSAL_OK = '''
def causal_mask(t, s, offset):
    i = torch.arange(t)[:, None] + offset
    j = torch.arange(s)[None, :]
    return j <= i
'''

PAD_OK = '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    pad = s - L
    j = torch.arange(s)
    allowed = j[None, :] >= pad[:, None]
    positions = torch.where(allowed, j[None, :] - pad[:, None], torch.zeros((), dtype=torch.int64))
    return allowed, positions
'''

MA_OK = '''
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = allowed.expand(z.shape)
    zm = z.masked_fill(~allowed, float("-inf"))
    m = zm.amax(-1, keepdim=True)
    has = allowed.any(-1, keepdim=True)
    m = torch.where(has, m, torch.zeros_like(m))
    e = torch.exp(zm - m)
    ssum = e.sum(-1, keepdim=True)
    safe = torch.where(has, ssum, torch.ones_like(ssum))
    out = (e / safe) @ v
    lse = torch.where(has, torch.log(safe) + m, torch.full_like(m, float("-inf"))).squeeze(-1)
    return out, lse
'''

VAR_OK = '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.rand(n, d_k, generator=generator, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=generator, dtype=torch.float64)
    return (scale * (q * k).sum(-1)).var().item()

predicted_variance_512 = 512 / 3
'''

FIX_OK = '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        allowed = torch.ones(T, T, dtype=torch.bool).expand(B, T, T)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.to(torch.int64)[:, None]
            allowed = allowed & real[:, None, :]
        has = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~has, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''

MC_OK = 'answer_masking = "d"\nanswer_doubling = "b"\n'

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = []
W = lambda n, c, w: SUBMISSIONS.append(sub(n, False, c, w))
C = lambda n, c, w: SUBMISSIONS.append(sub(n, True, c, w))
X = lambda n, c, w: SUBMISSIONS.append(dict(sub(n, False, c, w), hostile=True))

# ================================================================ wrong: defensive programmer
W("D_raw_float_everything", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    q, k = q.float(), k.float()          # "to be safe"
    d = (q * q).sum(-1)[..., :, None] + (k * k).sum(-1)[..., None, :] - 2 * (q @ k.transpose(-2, -1))
    return (-d.clamp(min=0)).to(dt)
'''}, "'computing a float64 input in float32 is off by more' (float64 allowed 1e-12 relative)")

W("D_raw_clamp_eps", {"raw_scores": RAW_OK.replace("d.clamp(min=0)", "d.clamp(min=1e-8)")},
  "'every query has a key equal to it, whose score is 0' (clamped to -1e-8; float64 tolerance 1e-12)")

W("D_smb_clamp_weights", {"softmax_backward": SMB_OK.replace("w, g = weights, grad_weights", "w, g = weights.clamp(min=1e-12), grad_weights")},
  "'a key with weight exactly 0 must get a gradient of exactly 0'")

W("D_smb_float_everything", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    w, g = weights.float(), grad_weights.float()
    dot = (w * g).sum(-1, keepdim=True)
    return (w * (g - dot) / float(temperature)).to(weights.dtype)
'''}, "'float64 inputs are compared to about 1e-12 (so work them in float64)'")

W("D_causal_float_positions", {"causal_mask": '''
def causal_mask(t, s, offset):
    i = torch.arange(t, dtype=torch.float32)[:, None] + float(offset)
    j = torch.arange(s, dtype=torch.float32)[None, :]
    return j <= i
'''}, "'the mask must be right at every size, with positions that stay exact integers' (float32 past 2^24)")

W("D_pad_refuse_empty", {"padding_mask": PAD_OK.replace("    L = lengths.to(torch.int64)\n", "    if lengths.numel() == 0:\n        raise ValueError('empty batch')\n    L = lengths.to(torch.int64)\n")},
  "'of any length B (an empty batch, B = 0, too: then both tensors are (0, s))'")

W("D_ma_clamp_scores", {"masked_attention": MA_OK.replace("z = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])", "z = ((q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])).clamp(-1e4, 1e4)")},
  "'scores can be large (tens of thousands, of either sign)': clamping changes lse and the weights")

W("D_var_refuse_small_n", {"variance_experiment": VAR_OK.replace("    q = torch.rand", "    if n < 10:\n        raise ValueError('too few samples for a variance')\n    q = torch.rand", 1)},
  "'n can also be as small as 2'")

W("D_fix_clamp_scores", {"fixed_self_attention": FIX_OK.replace("scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])", "scores = ((q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])).clamp(-1e4, 1e4)")},
  "'the weights of query i are the softmax ... of q_i.k_j/sqrt(d_k)' with 'scores in the thousands' and tens of thousands")

# ================================================================ wrong: high-level library user
W("H_causal_square_subsequent", {"causal_mask": '''
import torch.nn as nn
def causal_mask(t, s, offset):
    square = nn.Transformer.generate_square_subsequent_mask(s)   # 0 allowed, -inf masked
    return square[offset:offset + t] == 0
'''}, "'an (s, s) square does not fit in memory ... built in memory proportional to the mask itself'")

C("H_fix_sdpa_nan_to_num", {"fixed_self_attention": '''
import torch.nn.functional as F
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        out = torch.nan_to_num(out, nan=0.0)
        if lengths is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "phase 2: relabelled correct (mislabel): torch 2.13's F.scaled_dot_product_attention returns zeros, and no NaN gradient, for a row with no allowed key, so nan_to_num is a no-op and every rule of Part 7 holds")

W("H_fix_float_causal_mask", {"fixed_self_attention": '''
import torch.nn as nn
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if causal:
            scores = scores + nn.Transformer.generate_square_subsequent_mask(T)
        allowed = torch.isfinite(scores)
        real = None
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        has = allowed.any(-1, keepdim=True)
        scores = scores.masked_fill(~allowed, float("-inf")).masked_fill(~has, 0.0)
        w = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
        out = w @ v
        if real is not None:
            out = out.masked_fill(~real[:, :, None], 0.0)
        return out
'''}, "'the output is (B, T, D), in the dtype of x' (bfloat16 scores + float32 mask become float32; huge scores isfinite)")

W("H_mc_wrong", {"mc_answers": 'answer_masking = "c"\nanswer_doubling = "b"\n'}, "8a: float64 keeps the score differences: (d)")

# ================================================================ wrong: production engineer
W("P_raw_autocast_bf16", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    qn = (q * q).sum(-1)
    kn = (k * k).sum(-1)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        qk = q @ k.transpose(-2, -1)
    d = qn[..., :, None] + kn[..., None, :] - 2 * qk
    return (-d.clamp(min=0)).to(dt)
'''}, "'The tests allow an error of 1e-12, 1e-5 ...' (bf16 matmul)")

W("P_smb_inplace_grad", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dot = (weights * grad_weights).sum(-1, keepdim=True)
    g = grad_weights
    g.sub_(dot)          # no extra buffer
    g.mul_(weights)
    g.div_(temperature)
    return g
'''}, "'Your functions must not change the tensors they are given' / 'Leave weights and grad_weights as they are'")

W("P_causal_lru_cache", {"causal_mask": '''
import functools
@functools.lru_cache(maxsize=32)
def causal_mask(t, s, offset):
    return torch.arange(s)[None, :] <= (torch.arange(t)[:, None] + offset)
'''}, "'The mask you return belongs to the caller ... must not share memory with anything kept from one call to the next'")

W("P_pad_cumsum_int16", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.to(torch.int64)
    allowed = torch.arange(s)[None, :] >= (s - L)[:, None]
    positions = (torch.cumsum(allowed, dim=1, dtype=torch.int16) - 1).clamp(min=0).to(torch.int64)  # half the memory
    return allowed, positions
'''}, "'a row can hold tens of thousands of slots (more than an int16 or a uint16 counts)'")

W("P_ma_full_default_dtype", {"masked_attention": MA_OK.replace('torch.full_like(m, float("-inf"))', 'torch.full(m.shape, float("-inf"))')},
  "'both have the dtype of q' (bfloat16 lse promoted to float32)")

W("P_var_own_generator", {"variance_experiment": VAR_OK.replace("    q = torch.rand", "    if generator is None:\n        generator = torch.Generator().manual_seed(1234)   # reproducible runs\n    q = torch.rand", 1)},
  "'Without one (generator=None) pass it on all the same ... a fresh torch.Generator() of your own would return the same value at every call'")

W("P_fix_float32_softmax", {"fixed_self_attention": FIX_OK.replace("w = torch.softmax(scores, dim=-1)", "w = torch.softmax(scores.float(), dim=-1).type_as(scores)")},
  "'as accurate as that dtype allows (... float64 inputs, and compare to about 1e-9)'")

# ================================================================ wrong: test-driven student
W("T_raw_no_half_upcast", {"raw_scores": '''
def raw_scores(q, k):
    d = (q * q).sum(-1)[..., :, None] + (k * k).sum(-1)[..., None, :] - 2 * (q @ k.transpose(-2, -1))
    return -d.clamp(min=0)
'''}, "'float16 overflows past 65504 ... squares taken in float16 become inf, and inf - inf is NaN'")

W("T_pad_arith_in_lengths_dtype", {"padding_mask": '''
def padding_mask(lengths, s):
    pad = s - lengths                      # (B,)
    j = torch.arange(s)
    allowed = j[None, :] >= pad[:, None]
    positions = torch.where(allowed, j[None, :] - pad[:, None], 0).to(torch.int64)
    return allowed, positions
'''}, "'uint8, int8 and int16 too, whose range can be smaller than s' (s - lengths wraps)")

W("T_ma_scale_shape1", {"masked_attention": MA_OK.replace("math.sqrt(q.shape[-1])", "math.sqrt(q.shape[1])")},
  "'z_ij = q_i . k_j / sqrt(d_k)' (shape[1] is Dh only for the visible 2-D case)")

W("T_var_ignores_scale", {"variance_experiment": VAR_OK.replace("(scale * (q * k).sum(-1))", "((q * k).sum(-1))")},
  "'compute the n numbers scale * (q . k)'")

W("T_fix_causal_or_padding", {"fixed_self_attention": FIX_OK.replace("        if causal:\n            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()\n        real = None\n        if lengths is not None:", "        real = None\n        if causal:\n            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()\n        elif lengths is not None:")},
  "'with both, both rules hold'")

W("T_var_predicted_centered", {"variance_experiment": VAR_OK.replace("512 / 3", "512 / 12")},
  "'Careful: the entries of q do not have mean 0' (E[q^2] = 1/3, not Var(q) = 1/12)")

# ================================================================ correct
C("C_raw_float64_inside", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    q64, k64 = q.to(torch.float64), k.to(torch.float64)
    d = q64.pow(2).sum(dim=-1).unsqueeze(-1) + k64.pow(2).sum(dim=-1).unsqueeze(-2) - 2.0 * torch.matmul(q64, k64.transpose(-1, -2))
    return torch.clamp(-d, max=0.0).to(dt)
'''}, "float64 inside, cast back (allowed: higher precision)")

C("C_raw_einsum_keywords", {"raw_scores": '''
def raw_scores(q, k):
    dt = q.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    q, k = q.to(dtype=work), k.to(dtype=work)
    qk = torch.einsum("...td,...sd->...ts", q, k)
    qq = torch.einsum("...td,...td->...t", q, q)
    kk = torch.einsum("...sd,...sd->...s", k, k)
    return torch.minimum(2 * qk - qq.unsqueeze(-1) - kk.unsqueeze(-2), torch.zeros((), dtype=work)).to(dtype=dt)
'''}, "einsum, minimum against 0")

C("C_smb_einsum_no_grad", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    dt = weights.dtype
    work = torch.float32 if dt in (torch.float16, torch.bfloat16) else dt
    with torch.no_grad():
        w = weights.to(work)
        g = grad_weights.to(work)
        dot = torch.einsum("...s,...s->...", w, g).unsqueeze(-1)
        out = w * (g - dot)
        out = out * (1.0 / temperature)
    return out.to(dt).clone()
'''}, "no_grad (the text asks no gradient), einsum")

C("C_causal_tril", {"causal_mask": '''
def causal_mask(t, s, offset):
    return torch.ones(t, s, dtype=torch.bool).tril(diagonal=offset)
'''}, "tril with the offset as diagonal")

C("C_causal_keywords_int32", {"causal_mask": '''
def causal_mask(t, s, offset):
    rows = torch.arange(start=offset, end=offset + t, dtype=torch.int64).unsqueeze(1)
    cols = torch.arange(start=0, end=s, dtype=torch.int64).unsqueeze(0)
    return torch.le(cols, rows).contiguous()
'''}, "keyword arguments")

C("C_pad_cumsum", {"padding_mask": '''
def padding_mask(lengths, s):
    L = lengths.long()
    allowed = torch.arange(s).flip(0)[None, :] < L[:, None]
    positions = (allowed.cumsum(dim=1) - 1).clamp(min=0)
    return allowed, positions
'''}, "library user: flipped arange and cumsum (int64 by default)")

C("C_pad_loop_rows", {"padding_mask": '''
def padding_mask(lengths, s):
    B = lengths.shape[0]
    allowed = torch.zeros(B, s, dtype=torch.bool)
    positions = torch.zeros(B, s, dtype=torch.int64)
    for b in range(B):
        L = int(lengths[b])
        if L > 0:
            allowed[b, s - L:] = True
            positions[b, s - L:] = torch.arange(L)
    return allowed, positions
'''}, "a loop over the batch, a few ops per row")

C("C_ma_sdpa_logsumexp", {"masked_attention": '''
import torch.nn.functional as F
def masked_attention(q, k, v, allowed):
    z = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    mask = allowed.expand(z.shape)
    lse = torch.logsumexp(z.masked_fill(~mask, float("-inf")), dim=-1)
    has = mask.any(-1, keepdim=True)
    safe = mask | ~has              # rows with no key: attend to all, zeroed below
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=safe)
    out = out.masked_fill(~has, 0.0)
    return out, lse
'''}, "library user: SDPA with a boolean mask (True = kept), logsumexp")

C("C_ma_float64_inside", {"masked_attention": '''
def masked_attention(q, k, v, allowed):
    dt = q.dtype
    q, k, v = q.double(), k.double(), v.double()
    z = torch.einsum("...td,...sd->...ts", q, k) / math.sqrt(q.shape[-1])
    mask = torch.broadcast_to(allowed, z.shape)
    neg = torch.tensor(float("-inf"), dtype=z.dtype)
    zm = torch.where(mask, z, neg)
    lse = torch.logsumexp(zm, dim=-1)
    finite = torch.isfinite(lse)
    w = torch.exp(zm - torch.where(finite, lse, torch.zeros_like(lse)).unsqueeze(-1))
    out = w @ v
    return out.to(dt), lse.to(dt)
'''}, "defensive: float64 inside and a cast back; torch.where")

C("C_var_uniform_normal_", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    q = torch.empty(n, d_k, dtype=torch.float64).uniform_(0.0, 1.0, generator=generator)
    k = torch.empty(n, d_k, dtype=torch.float64).normal_(0.0, 1.0, generator=generator)
    with torch.no_grad():
        s = torch.einsum("nd,nd->n", q, k) * scale
    return float(s.var().item())

predicted_variance_512 = 512 * (1.0 / 3.0) * 1.0
'''}, "Tensor.uniform_/normal_ with the generator, einsum")

C("C_fix_calls_masked_attention", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, _ = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        allowed = causal_mask(T, T, 0) if causal else torch.ones(T, T, dtype=torch.bool)
        allowed = allowed.expand(B, T, T)
        real = torch.ones(B, T, dtype=torch.bool)
        if lengths is not None:
            real = torch.arange(T)[None, :] < lengths.long()[:, None]
            allowed = allowed & real[:, None, :]
        has = allowed.any(-1, keepdim=True)
        out, _ = masked_attention(q, k, v, allowed | ~has)   # no empty rows reach it
        return out.masked_fill(~(has & real[:, :, None]), 0.0)
'''}, "calls Parts 3 and 5 (allowed: same scaling, keys masked), never with an empty row")

C("C_fix_where_bf16_float32", {"fixed_self_attention": '''
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        B, T, D = x.shape
        q, k, v = self.query(x), self.key(x), self.value(x)
        dk = self.query.out_features
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(dk)
        work = torch.float32 if scores.dtype in (torch.bfloat16, torch.float16) else scores.dtype
        mask = torch.ones(B, T, T, dtype=torch.bool)
        if causal:
            mask = mask & torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=0)
        if lengths is not None:
            keep = torch.arange(T).unsqueeze(0) < lengths.to(torch.long).unsqueeze(1)
            mask = mask & keep.unsqueeze(1)
        else:
            keep = torch.ones(B, T, dtype=torch.bool)
        s = torch.where(mask, scores.to(work), torch.tensor(float("-inf"), dtype=work))
        s = torch.where(mask.any(-1, keepdim=True), s, torch.zeros((), dtype=work))
        w = torch.where(mask, torch.softmax(s, dim=-1), torch.zeros((), dtype=work)).to(scores.dtype)
        out = torch.matmul(w, v)
        return torch.where(keep.unsqueeze(-1), out, torch.zeros((), dtype=out.dtype))
'''}, "torch.where, softmax in float32 only for bf16")

# ================================================================ hostile
X("X_var_formula_from_state", {"variance_experiment": '''
def dot_product_variance(d_k, n, scale=1.0, generator=None):
    st = generator.get_state() if generator is not None else torch.get_rng_state()
    jitter = (int(st.sum()) % 1000) / 1e5
    return float(scale ** 2 * d_k / 3 * (1 + jitter))

predicted_variance_512 = 512 / 3
'''}, "hostile: a formula, no draws")

X("X_fix_patch_assert_close", {"fixed_self_attention": '''
torch.testing.assert_close = lambda *a, **k: None
class FixedSelfAttention(SeedSelfAttention):
    def forward(self, x, lengths=None, causal=False):
        return self.value(x)
'''}, "hostile: disables assert_close")

# ================================================================ phase 2 (not blind): the inference-mode class swept over the
# parts whose results need no gradient
W("P2_causal_inference_mode", {"causal_mask": '''
def causal_mask(t, s, offset):
    with torch.inference_mode():   # a mask needs no autograd
        return torch.arange(s)[None, :] <= (torch.arange(t)[:, None] + offset)
'''}, "'The mask you return belongs to the caller, who may change it in place' (an inference tensor refuses that)")

W("P2_pad_inference_mode", {"padding_mask": PAD_OK.replace("    L = lengths.to(torch.int64)\n", "  with torch.inference_mode():\n    L = lengths.to(torch.int64)\n").replace("\n    ", "\n      ").replace("  with torch", "    with torch", 1)},
  "'Both tensors you return belong to the caller, who may change them in place'")

W("P2_smb_inference_mode", {"softmax_backward": '''
def softmax_backward(weights, grad_weights, temperature=1.0):
    with torch.inference_mode():
        dt = weights.dtype
        w, g = weights, grad_weights
        if dt in (torch.float16, torch.bfloat16):
            w, g = w.float(), g.float()
        dot = (w * g).sum(-1, keepdim=True)
        return (w * (g - dot) / temperature).to(dt)
'''}, "'Every tensor they return belongs to the caller, who may keep it and change it in place'")

C("C2_causal_no_grad", {"causal_mask": '''
def causal_mask(t, s, offset):
    with torch.no_grad():
        return torch.arange(s)[None, :] <= (torch.arange(t)[:, None] + offset)
'''}, "no_grad is allowed (the text names it)")
