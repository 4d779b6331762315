# Round 26, chapter 05: skimmer (SK), squeeze-and-broadcast (SQ), stride-and-layout (ST), remainder-and-boundary (RB)
RMS_OK = '''
def rms_norm(x, weight, eps=1e-6):
    dt = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(dt)
    out = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.to(dt)
    return out.to(x.dtype)
'''
MP_OK = '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    enc = 4 * d * d + 3 * d * d_ff + 2 * d
    dec = 8 * d * d + 3 * d * d_ff + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''
SUBMISSIONS = [
 {"name": "W01-SQ-rms-squeeze-unsqueeze", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    dt = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(dt)
    ms = xf.pow(2).mean(dim=-1, keepdim=True).squeeze()   # one mean square per vector
    out = xf / torch.sqrt(ms + eps).unsqueeze(-1) * weight.to(dt)
    return out.to(x.dtype)
'''}, "why": "SQ: squeeze() with no dim drops T = 1 (and D-sized axes); (B,1,D) gives (B,B,D). 'for x of shape (..., D)' / 'each vector along the last axis'"},
 {"name": "W02-ST-rms-inplace-on-alias", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    dt = torch.float64 if x.dtype == torch.float64 else torch.float32
    y = x.to(dt)          # a fresh working copy (it is not: .to() of the same dtype returns x itself)
    r = torch.rsqrt(y.pow(2).mean(dim=-1, keepdim=True) + eps)
    y.mul_(r)
    y.mul_(weight.to(dt))
    return y.to(x.dtype)
'''}, "why": "ST: result shares memory with the input and the input is written: 'Your functions must not change the tensors they are given'; also returns x itself"},
 {"name": "W03-SK-rms-float64-through-float32", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    out = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.float()
    return out.to(x.dtype)
'''}, "why": "SK: 'a float64 input must not pass through float32'"},
 {"name": "W04-SK-rms-round-before-weight", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    dt = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(dt)
    normed = (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)).to(x.dtype)
    return normed * weight
'''}, "why": "SK: 'a second rounding before the weight is applied ... is not accurate enough' (and weight multiplied in float16)"},
 {"name": "W20-ST-rms-view-flat", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    D = x.shape[-1]
    dt = torch.float64 if x.dtype == torch.float64 else torch.float32
    flat = x.view(-1, D).to(dt)
    out = flat * torch.rsqrt(flat.pow(2).mean(dim=1, keepdim=True) + eps) * weight.to(dt)
    return out.view(x.shape).to(x.dtype)
'''}, "why": "ST: .view on an input that is not contiguous raises: intro 'views that are not contiguous, such as a transposed tensor'"},
 {"name": "W05-SK-modern-ffn-two-matrices", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    ffn = 2 * d * d_ff
    enc = 4 * d * d + ffn + 2 * d
    dec = 8 * d * d + ffn + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "why": "SK: 'every feed-forward network is gated (SwiGLU) ... w_gate and w_up of shape (d_ff, d_model) and w_down'"},
 {"name": "W06-SK-modern-decoder-two-norms", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    enc = 4 * d * d + 3 * d * d_ff + 2 * d
    dec = 8 * d * d + 3 * d * d_ff + 2 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "why": "SK: 'An encoder layer has 2 of them, a decoder layer 3'"},
 {"name": "W07-SK-prefill-float-half", "correct": False, "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n, r = divmod(prompt_len, chunk)
    full = int(chunk * chunk * n * (n + 1) / 2)
    return (full + r * (n * chunk + r)) * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    gen = steps * prompt_len + int(steps * (steps + 1) / 2)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + gen * layers * heads
'''}, "why": "SK: 'where a float (any /) ... are no longer exact: work with Python integers, and use // where you divide'"},
 {"name": "W08-RB-prefill-ceil-float-chunks", "correct": False, "cells": {"cache_count_without": '''
import math
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for k in range(math.ceil(prompt_len / chunk)):
        s = k * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += (prompt_len + j) * layers * heads
    return total
'''}, "why": "RB: number of chunks from math.ceil(P / c) in float loses the last partial chunk for P near 2**62: 'the last chunk holding whatever is left' / 'use // where you divide'"},
 {"name": "W09-SK-packed-right-padding-only", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    S, T = s.shape[1], t.shape[1]
    s_ok = torch.arange(S)[None, :] < (s != 0).sum(dim=1, keepdim=True)   # real tokens come first
    t_ok = torch.arange(T)[None, :] < (t != 0).sum(dim=1, keepdim=True)
    causal = torch.arange(T)[None, :] <= torch.arange(T)[:, None]
    src = (s[:, :, None] == s[:, None, :]) & s_ok[:, :, None]
    tgt = (t[:, :, None] == t[:, None, :]) & t_ok[:, :, None] & causal
    cross = (t[:, :, None] == s[:, None, :]) & t_ok[:, :, None]
    return src, tgt, cross
'''}, "why": "SK: 'padding, which may sit anywhere in a row (at its end, at its start, between pairs)'"},
 {"name": "W10-RB-packed-onehot-max", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    k = int(max(s.max(), t.max())) + 1
    so = F.one_hot(s, k)[..., 1:].float()   # column 0 (padding) dropped
    to = F.one_hot(t, k)[..., 1:].float()
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (so @ so.transpose(1, 2)) > 0
    tgt = ((to @ to.transpose(1, 2)) > 0) & causal
    cross = (to @ so.transpose(1, 2)) > 0
    return src, tgt, cross
'''}, "why": "RB: empty batch / empty rows: 'then return empty masks of the shapes above and raise nothing (an empty tensor has no maximum: size nothing from .max())'"},
 {"name": "W11-SQ-packed-valid-squeeze", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    s_q = (s != 0).squeeze().unsqueeze(-1)    # (B, S, 1) query is real
    t_q = (t != 0).squeeze().unsqueeze(-1)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & s_q
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & t_q & causal
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & t_q
    return src, tgt, cross
'''}, "why": "SQ: squeeze() with no dim: with S or T = 1 and B > 1 the query-validity (B,1) lines up as (1,B,1): shape (B,B,..) 'tgt_allowed (B, T, T)'"},
 {"name": "W21-ST-packed-view", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    sq, sk = src_segments.view(B, S, 1), src_segments.view(B, 1, S)
    tq, tk = tgt_segments.view(B, T, 1), tgt_segments.view(B, 1, T)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (sq == sk) & (sq != 0)
    tgt = (tq == tk) & (tq != 0) & causal
    cross = (tq == sk) & (tq != 0)
    return src, tgt, cross
'''}, "why": "ST: .view on segment tensors that are not contiguous (intro: 'views that are not contiguous, such as a transposed tensor') raises"},
 {"name": "W13-SK-sandwich-normalises-memory", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, layer_norm(memory, *p["pre2"]), memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''}, "why": "SK: 'keys and values from memory as it is given (the encoder has already normalised it; this layer does not)'"},
 {"name": "W14-SQ-sandwich-memory-mask-squeeze", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if memory_allowed is not None:
        memory_allowed = memory_allowed.squeeze()[:, None, :]   # (B, 1, S) again, whatever it was
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''}, "why": "SQ: squeeze() with no dim breaks a batch of one or S = 1: 'memory_allowed (B, 1, S) or None; pass both masks to mha as given'"},
 {"name": "W15-SK-sandwich-none-means-causal", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    T = y.shape[1]
    if self_allowed is None:   # a decoder is causal
        self_allowed = torch.ones(T, T, dtype=torch.bool, device=y.device).tril()
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''}, "why": "SK: 'self_allowed (T, T), (B, T, T) or None ...; pass both masks to mha as given'"},
 {"name": "W17-SK-cached-own-counter", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache.get("pos", 0)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"], cache["pos"] = k, v, past + n
    mask = torch.arange(k.shape[2])[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "SK: 'past is the length of the cached keys, cache[\"k\"].shape[2] ...: read it from there, because the caller may shorten cache[\"k\"]'"},
 {"name": "W18-SK-cached-float32-mask", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    hide = torch.arange(past + n)[None, :] > (past + torch.arange(n))[:, None]
    mask = torch.zeros(n, past + n).masked_fill(hide, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "SK: 'give it a boolean mask, or a float mask in the dtype of the queries: torch accepts a float32 mask with float64 queries and ... silently returns wrong values'"},
 {"name": "W19-SK-cached-recompute-from-inputs", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    xs = x_new if "x" not in cache else torch.cat([cache["x"], x_new], dim=1)
    cache["x"] = xs
    L = xs.shape[1]
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t, m: t.reshape(B, m, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q), n)
    k, v = split(F.linear(xs, w_k, b_k), L), split(F.linear(xs, w_v, b_v), L)
    cache["k"], cache["v"] = k, v
    past = L - n
    mask = torch.arange(L)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "SK: 'The entries already in the cache are kept as they are (moved, not recomputed)'; 'read it from there ... or hand you a cache it filled itself'"},
 # ---------------- correct ----------------
 {"name": "C01-rms-float64-inside", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd = x.to(torch.float64)
    ms = (xd * xd).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (xd / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(x.dtype)
'''}, "why": "float64 inside, one rounding at the end"},
 {"name": "C02-rms-keywords-reshape", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    shape = x.shape
    dt = torch.float64 if x.dtype == torch.float64 else torch.float32
    flat = x.reshape(-1, shape[-1]).to(dtype=dt)
    inv = torch.rsqrt(torch.mean(torch.square(flat), dim=1, keepdim=True) + eps)
    return torch.mul(flat * inv, weight.to(dtype=dt)).reshape(shape).to(dtype=x.dtype)
''', "modern_params": MP_OK}, "why": "reshape where view could fail, keyword dtypes"},
 {"name": "C03-modern-loop", "correct": True, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    total = vocab * d_model      # shared embedding
    total += vocab * d_model     # output layer
    attn = 4 * d_model * d_model
    ffn = 2 * d_ff * d_model + d_model * d_ff
    for _ in range(n_enc):
        total += attn + ffn + 2 * d_model
    total += d_model
    for _ in range(n_dec):
        total += 2 * attn + ffn + 3 * d_model
    total += d_model
    return total
'''}, "why": "loop over layers, Python ints"},
 {"name": "C04-cache-count-loops", "correct": True, "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for s in range(0, prompt_len, chunk):
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    pos = prompt_len
    for _ in range(new_tokens - 1):
        total += (pos + 1) * layers * heads
        pos += 1
    return total
'''}, "why": "loop over chunks (<200000) and generated tokens"},
 {"name": "C05-cache-count-closed-form-keywords", "correct": True, "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n, r = divmod(prompt_len, chunk)
    full = chunk * chunk * (n * (n + 1) // 2)
    return layers * heads * (full + r * (prompt_len))
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    pre = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    if new_tokens <= 1:
        return pre
    m = new_tokens - 1
    keys = m * prompt_len + m * (m + 1) // 2
    return pre + keys * layers * heads
'''}, "why": "closed form with //, earlier part by keyword"},
 {"name": "C06-packed-where-arange", "correct": True, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.to(torch.int64)
    t = tgt_segments.to(torch.int64)
    T = t.shape[-1]
    pos = torch.arange(T, device=t.device)
    causal = pos.unsqueeze(0) <= pos.unsqueeze(1)
    s_real = s.ne(0)
    t_real = t.ne(0)
    src = torch.where(s_real.unsqueeze(-1), s.unsqueeze(-1) == s.unsqueeze(-2), False)
    tgt = torch.where(t_real.unsqueeze(-1) & causal, t.unsqueeze(-1) == t.unsqueeze(-2), False)
    cross = torch.where(t_real.unsqueeze(-1), t.unsqueeze(-1) == s.unsqueeze(-2), False)
    return src, tgt, cross
'''}, "why": "torch.where against &, int64 cast"},
 {"name": "C07-sandwich-steps", "correct": True, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, name):
        w, b = p[name]
        return layer_norm(x, w, b)
    a = mha(ln(y, "pre1"), None, self_allowed, p["self_attn"])
    y = y + ln(a, "post1")
    c = mha(ln(y, "pre2"), memory, memory_allowed, p["cross_attn"])
    y = y + ln(c, "post2")
    f = feed_forward(ln(y, "pre3"), p["ff"])
    return y + ln(f, "post3")
'''}, "why": "helper closure, same order"},
 {"name": "C08-cached-manual-softmax", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = x_new @ params["w_qkv"].T + params["b_qkv"]          # (B, n, 3D)
    q, k, v = qkv.split(D, dim=-1)
    q = q.reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    k = k.reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    v = v.reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat((cache["k"], k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache["k"] = k
    cache["v"] = v
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    keep = torch.arange(past + n).unsqueeze(0) <= torch.arange(past, past + n).unsqueeze(1)
    scores = scores.masked_fill(~keep, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    out = out.permute(0, 2, 1, 3).reshape(B, n, D)
    return out @ params["w_o"].T + params["b_o"]
'''}, "why": "explicit softmax with -inf mask, split of fused projection"},
 {"name": "C09-cached-sdpa-tril-no-mask-for-one", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    heads = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = heads(F.linear(x_new, w_q, b_q))
    k_new, v_new = heads(F.linear(x_new, w_k, b_k)), heads(F.linear(x_new, w_v, b_v))
    old_k, old_v = cache.get("k"), cache.get("v")
    past = 0 if old_k is None else old_k.shape[2]
    k = k_new if old_k is None else torch.cat([old_k, k_new], dim=2)
    v = v_new if old_v is None else torch.cat([old_v, v_new], dim=2)
    cache.update(k=k, v=v)
    if n == 1:
        out = F.scaled_dot_product_attention(q, k, v)     # the one new position sees everything
    else:
        mask = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "n = 1 needs no mask; tril(diagonal=past) for blocks"},
 {"name": "C10-rms-F-rms-norm", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    dt = torch.float64 if x.dtype == torch.float64 else torch.float32
    return F.rms_norm(x.to(dt), (x.shape[-1],), weight=weight.to(dt), eps=eps).to(x.dtype)
'''}, "why": "torch's own RMSNorm in float32/float64, one rounding"},
 # ---------------- hostile ----------------
 {"name": "H01-modern-int-subclass", "correct": False, "cells": {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(2 * vocab * d_model + 2 * d_model)
'''}, "why": "hostile: an int subclass equal to everything"},
 {"name": "H02-cached-rebuilt-mha", "correct": False, "cells": {"cached_attention": '''
full_mha = _make_functions(F.linear, F.scaled_dot_product_attention, NUM_HEADS, F.layer_norm, torch.relu, [])[0]
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    xs = x_new if "x" not in cache else torch.cat([cache["x"], x_new], dim=1)
    cache["x"] = xs
    L = xs.shape[1]
    out = full_mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)
    w_k, w_v = params["w_qkv"].chunk(3)[1:]
    b_k, b_v = params["b_qkv"].chunk(3)[1:]
    cache["k"] = F.linear(xs, w_k, b_k).reshape(B, L, NUM_HEADS, D // NUM_HEADS).transpose(1, 2)
    cache["v"] = F.linear(xs, w_v, b_v).reshape(B, L, NUM_HEADS, D // NUM_HEADS).transpose(1, 2)
    return out[:, L - n:]
'''}, "why": "hostile: rebuilds an unblocked mha from the grader's _make_functions and reruns it on kept inputs"},
]
