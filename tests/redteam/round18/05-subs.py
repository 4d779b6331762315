# Red-team round 18, chapter 05: type-sloppy (T), autograd-careless (A), stateful (S), dtype/device generaliser (D)
BASE = {}
BASE["rms_norm"] = r'''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        xf, wf = x.float(), weight.float()
    else:
        xf, wf = x, weight
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * r * wf).to(x.dtype)
'''
BASE["modern_params"] = r'''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''
BASE["cache_count_without"] = r'''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n, r = divmod(prompt_len, chunk)
    total = chunk * chunk * (n * (n + 1) // 2) + r * (n * chunk + r)
    return total * layers * heads
'''
BASE["cache_count_with"] = r'''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    gen = steps * prompt_len + steps * (steps + 1) // 2
    return prefill_dot_products(prompt_len, chunk, layers, heads) + gen * layers * heads
'''
BASE["packed_masks"] = r'''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
    return src, tgt, cross
'''
BASE["sandwich"] = r'''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"])
    y = y + layer_norm(h, *p["post1"])
    h = mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"])
    y = y + layer_norm(h, *p["post2"])
    h = feed_forward(layer_norm(y, *p["pre3"]), p["ff"])
    return y + layer_norm(h, *p["post3"])
'''
BASE["cached_attention"] = r'''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    def split(t):
        return t.reshape(B, n, H, dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        past = cache["k"].shape[2]
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    else:
        past = 0
    cache["k"], cache["v"] = k, v
    keys = torch.arange(past + n, device=x_new.device)
    queries = past + torch.arange(n, device=x_new.device)
    allowed = keys[None, :] <= queries[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''

# A manual-attention version of Part 6 used by several variants below; {SCALE}, {SUB}, {STORE} are filled in.
MANUAL6 = r'''
import math
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = F.linear(x_new, w_q, b_q).reshape(B, n, H, dh).transpose(1, 2)
    k = F.linear(x_new, w_k, b_k).reshape(B, n, H, dh).transpose(1, 2)
    v = F.linear(x_new, w_v, b_v).reshape(B, n, H, dh).transpose(1, 2)
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
{STORE}
    scores = q @ k.transpose(-2, -1) / {SCALE}
    pos_q = torch.arange(past, past + n, device=x_new.device)
    pos_k = torch.arange(past + n, device=x_new.device)
    scores = scores.masked_fill(pos_k[None, :] > pos_q[:, None], float("-inf"))
{SUB}
    out = torch.softmax(scores, dim=-1) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''
def manual6(scale="math.sqrt(dh)", sub="", store='    cache["k"], cache["v"] = k, v'):
    return MANUAL6.replace("{SCALE}", scale).replace("{SUB}", sub).replace("{STORE}", store)

SUBMISSIONS = []
def W(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"{kind}-{name}", "correct": False, "cells": cells, "why": why})
def C(name, kind, cells, why):
    SUBMISSIONS.append({"name": f"ok-{kind}-{name}", "correct": True, "cells": cells, "why": why})
def X(name, cells, why):
    SUBMISSIONS.append({"name": f"hostile-{name}", "correct": False, "cells": cells, "why": why})

# ---------------- type-sloppy ----------------
W("params-float-power", "type", {"modern_params": r'''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model ** 2.0
    ffn = 3 * d_model * d_ff
    total = 2 * vocab * d_model + n_enc * (attn + ffn + 2 * d_model) + n_dec * (2 * attn + ffn + 3 * d_model) + 2 * d_model
    return int(total)
'''}, "Part 2: 'count with Python integers' / a float is not exact past 2**53 (d_model ** 2.0 is a float)")
W("prefill-ceil-div", "type", {"cache_count_without": r'''
import math
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for i in range(math.ceil(prompt_len / chunk)):
        s = i * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''}, "Part 3: 'where a float (any /) ... no longer exact: use // where you divide': ceil(P / c) drops the last chunk when P = k*c + small at 2**62")
W("request-arange-sum", "type", {"cache_count_with": r'''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    keys = torch.arange(prompt_len + 1, prompt_len + max(new_tokens, 1))
    return prefill_dot_products(prompt_len, chunk, layers, heads) + int(keys.sum()) * layers * heads
'''}, "Part 3: 'an int64 tensor [is] no longer exact: work with Python integers'")
W("packed-cross-is-src", "type", {"packed_masks": r'''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    if s.shape == t.shape and torch.equal(s, t):
        cross = src          # same segments: the cross mask is the source mask
    else:
        cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
    return src, tgt, cross
'''}, "Part 4: 'The three masks belong to the caller, who may write into them: return new tensors' (cross and src are one tensor when the segments are equal)")
W("cached-len-of-tensor", "type", {"cached_attention": BASE["cached_attention"].replace(
    'past = cache["k"].shape[2]', 'past = len(cache["k"])')}, "Part 6: '`past` is the length of the cached keys, cache[\"k\"].shape[2]' (len() is the batch size)")
W("rms-weight-before-cast", "type", {"rms_norm": r'''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return normed.type_as(x) * weight
'''}, "Part 1: 'a second rounding before the weight is applied, is not accurate enough'")

# ---------------- autograd-careless ----------------
W("rms-inplace-mul", "autograd", {"rms_norm": r'''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    out = xf.mul_(r)          # no need for another buffer
    return (out * weight.to(out.dtype)).to(x.dtype)
'''}, "Part 1: 'Your functions must not change the tensors they are given' / gradients must flow (mul_ on the input, which pow saved)")
W("sandwich-requires-grad", "autograd", {"sandwich": r'''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if not y.requires_grad:
        y.requires_grad_()      # make sure gradients can flow through the layer
    h = mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"])
    y = y + layer_norm(h, *p["post1"])
    h = mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"])
    y = y + layer_norm(h, *p["post2"])
    h = feed_forward(layer_norm(y, *p["pre3"]), p["ff"])
    return y + layer_norm(h, *p["post3"])
'''}, "Part 5: 'Do not write into y ...' / intro 'Your functions must not change the tensors they are given' (requires_grad_ on the caller's y)")
W("sandwich-inplace-stream", "autograd", {"sandwich": r'''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y.clone()
    y += layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y += layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y += layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "Part 5: 'Gradients must flow through the result ... the hidden tests compare its gradients' (+= on the clone that pre-LN saved)")
W("cached-detached-cache", "autograd", {"cached_attention": manual6(
    store='    cache["k"], cache["v"] = k.detach(), v.detach()   # the cache needs no graph')},
  "Part 6: 'Gradients must flow through the result ... to the keys and values the caller put in the cache' (later blocks lose the gradient through earlier ones)")
W("cached-inplace-max", "autograd", {"cached_attention": manual6(
    sub='    scores.sub_(scores.amax(dim=-1, keepdim=True))')},
  "Part 6: 'Gradients must flow through the result' (sub_ on scores that amax saved)")
W("rms-item-eps", "autograd", {"rms_norm": r'''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(-1, keepdim=True)
    if ms.numel() == 1:
        scale = 1.0 / math.sqrt(ms.item() + eps)   # one vector: plain Python is faster
    else:
        scale = torch.rsqrt(ms + eps)
    return (xf * scale * weight.to(xf.dtype)).to(x.dtype)
'''}, "Part 1: 'do not ... round-trip it through .item()' (a single vector loses the gradient through the norm)")

# ---------------- stateful ----------------
W("rms-weight-cache-id", "state", {"rms_norm": r'''
WEIGHTS = {}
def rms_norm(x, weight, eps=1e-6):
    key = (id(weight), x.dtype)
    if key not in WEIGHTS:
        WEIGHTS[key] = weight.to(torch.float64 if x.dtype == torch.float64 else torch.float32)
    w = WEIGHTS[key]
    xf = x.to(w.dtype)
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w).to(x.dtype)
'''}, "Intro: 'nothing kept from one call to the next' (a weight cached by id: a new weight at a reused address gets the old one)")
W("packed-causal-cache-written", "state", {"packed_masks": r'''
CAUSAL = {}
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    if T not in CAUSAL:
        CAUSAL[T] = torch.ones(T, T, dtype=torch.bool).tril()
    causal = CAUSAL[T]
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None]
    tgt &= causal
    return src, tgt, cross
'''.replace("tgt &= causal", "tgt &= causal\n    if tgt.shape[0] == 1:\n        causal &= tgt[0]   # reuse the buffer for the next call of this size")},
  "Part 4: 'keep nothing from one call to the next (a mask kept between calls and written into ... changes what a later call returns)'")
W("cached-own-counter", "state", {"cached_attention": BASE["cached_attention"].replace(
    'past = cache["k"].shape[2]', 'past = cache.get("n", 0)').replace(
    'cache["k"], cache["v"] = k, v', 'cache["k"], cache["v"] = k, v\n    cache["n"] = past + n')},
  "Part 6: 'read it from there, because the caller may shorten cache[\"k\"] and cache[\"v\"] between calls'")
W("cached-split-by-id", "state", {"cached_attention": r'''
SPLITS = {}
def cached_self_attention(x_new, params, cache):
    if id(params) not in SPLITS:     # split the stacked weights once per block
        SPLITS[id(params)] = (params["w_qkv"].chunk(3), params["b_qkv"].chunk(3))
    (w_q, w_k, w_v), (b_q, b_k, b_v) = SPLITS[id(params)]
    B, n, D = x_new.shape
    H = NUM_HEADS
    dh = D // H
    def split(t):
        return t.reshape(B, n, H, dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Intro: 'nothing kept from one call to the next'; Part 6: 'the only state your function keeps' is the cache (splits keyed by id(params) go stale)")
W("cached-growing-buffer", "state", {"cached_attention": r'''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    def split(t):
        return t.reshape(B, n, H, dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    buf = cache.get("buf")
    if buf is None or buf[0].shape[2] < past + n or buf[0].shape[0] != B or buf[0].dtype != x_new.dtype:
        size = max(2 * (past + n), 16)    # grow by doubling, like a list
        new = (x_new.new_zeros(B, H, size, dh), x_new.new_zeros(B, H, size, dh))
        if past:
            new[0][:, :, :past] = cache["k"]
            new[1][:, :, :past] = cache["v"]
        buf = cache["buf"] = new
    elif past:
        buf[0][:, :, :past] = cache["k"]
        buf[1][:, :, :past] = cache["v"]
    buf[0][:, :, past:past + n] = k
    buf[1][:, :, past:past + n] = v
    cache["k"], cache["v"] = buf[0][:, :, :past + n], buf[1][:, :, :past + n]
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, cache["k"], cache["v"], attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Part 6: 'The entries already in the cache are kept as they are'; gradients must flow; intro 'nothing kept ... no output buffer reused and written again'")

# ---------------- dtype / device generaliser ----------------
W("rms-always-float32", "dtype", {"rms_norm": r'''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()
    return out.to(x.dtype)
'''}, "Part 1: 'a float64 input must not pass through float32'")
W("cached-scale-tensor", "dtype", {"cached_attention": manual6(scale="torch.tensor(math.sqrt(dh))")},
  "Part 6: float64 compared within about 1e-9 (a float32 0-d scale tensor rounds sqrt(Dh) to float32)")
W("cached-float-mask", "dtype", {"cached_attention": BASE["cached_attention"].replace(
    'allowed = keys[None, :] <= queries[:, None]',
    'allowed = torch.zeros(n, past + n).masked_fill(keys[None, :] > queries[:, None], float("-inf"))')},
  "Part 6: 'give it a boolean mask, or a float mask in the dtype of the queries'")
W("cached-finfo32-mask", "dtype", {"cached_attention": manual6().replace('float("-inf")', 'torch.finfo(torch.float32).min')},
  "Part 6: 'mask with -inf (or a boolean mask), not with a large negative number, not even that lowest value'")
W("sandwich-float32-norms", "dtype", {"sandwich": r'''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, name):
        w, b = p[name]
        return F.layer_norm(x.float(), w.shape, w.float(), b.float(), 1e-5).to(x.dtype)  # stable norms
    y = y + ln(mha(ln(y, "pre1"), None, self_allowed, p["self_attn"]), "post1")
    y = y + ln(mha(ln(y, "pre2"), memory, memory_allowed, p["cross_attn"]), "post2")
    return y + ln(feed_forward(ln(y, "pre3"), p["ff"]), "post3")
'''}, "Part 5: 'LN_name is layer_norm with p[name]' (float64 inputs normalised in float32 lose precision)")
W("packed-half-segments", "dtype", {"packed_masks": r'''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.half(), tgt_segments.half()     # small ids: half is plenty and saves memory
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    T = t.shape[1]
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & torch.ones(T, T, dtype=torch.bool).tril()
    return src, tgt, cross
'''}, "Part 4: 'more than a thousand pairs' (float16 holds every integer only up to 2048)")

# ---------------- correct ----------------
C("rms-float64-inside", "dtype", {"rms_norm": r'''
def rms_norm(x, weight, eps=1e-6):
    xd, wd = x.double(), weight.double()
    return (xd * torch.rsqrt(xd.pow(2).mean(dim=-1, keepdim=True) + eps) * wd).to(x.dtype)
'''}, "float64 inside, one rounding at the end: allowed by Part 1")
C("rms-F-rms_norm", "type", {"rms_norm": r'''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        return F.rms_norm(x.float(), (x.shape[-1],), weight.float(), eps).to(x.dtype)
    return F.rms_norm(x, normalized_shape=(x.shape[-1],), weight=weight, eps=eps)
'''}, "torch's own rms_norm with the given eps")
C("rms-inplace-on-own", "autograd", {"rms_norm": r'''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(-1, keepdim=True)
    ms.add_(eps)                       # in place on our own intermediate: mean saves nothing
    out = xf * ms.rsqrt() * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "in-place only on an intermediate nobody saved")
C("params-lru-cache", "state", {"modern_params": r'''
import functools
@functools.lru_cache(maxsize=None)
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    norms = (2 * n_enc + 3 * n_dec + 2) * d_model
    attention = (n_enc + 2 * n_dec) * 4 * d_model * d_model
    ffn = (n_enc + n_dec) * 3 * d_model * d_ff
    return 2 * vocab * d_model + norms + attention + ffn
'''}, "lru_cache on a pure int function changes no result")
C("prefill-loop", "type", {"cache_count_without": r'''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for start in range(0, prompt_len, chunk):
        m = min(chunk, prompt_len - start)
        total += m * (start + m)
    return total * layers * heads
'''}, "loop over chunks with Python ints")
C("request-range-sum", "type", {"cache_count_with": r'''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    return prefill_dot_products(prompt_len, chunk, layers, heads) + sum(range(prompt_len + 1, prompt_len + new_tokens)) * layers * heads
'''}, "sum of a range of Python ints: each later step scores P+j keys")
C("request-via-prefill-chunk1", "state", {"cache_count_with": r'''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(0, new_tokens - 1)
    one_by_one = prefill_dot_products(prompt_len + steps, 1, layers, heads) - prefill_dot_products(prompt_len, 1, layers, heads)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + one_by_one
'''}, "calls Part 3(a) with chunk 1: a decode step is a chunk of one")
C("packed-cached-causal", "state", {"packed_masks": r'''
import functools
@functools.lru_cache(maxsize=8)
def causal_of(T):
    return torch.ones(T, T, dtype=torch.bool).tril()
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    src = torch.where((s != 0)[:, :, None], s[:, :, None] == s[:, None, :], False)
    cross = torch.where((t != 0)[:, :, None], t[:, :, None] == s[:, None, :], False)
    tgt = torch.logical_and(torch.where((t != 0)[:, :, None], t[:, :, None] == t[:, None, :], False), causal_of(t.shape[1]))
    return src, tgt, cross
'''}, "cached causal table read only; torch.where with a scalar")
C("packed-float32-ids", "dtype", {"packed_masks": r'''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.to(torch.float32), tgt_segments.to(torch.float32)   # ids below 2**24 are exact
    src = (s.unsqueeze(2) == s.unsqueeze(1)) & (s > 0).unsqueeze(2)
    cross = (t.unsqueeze(2) == s.unsqueeze(1)) & (t > 0).unsqueeze(2)
    T = t.shape[1]
    pos = torch.arange(T)
    tgt = (t.unsqueeze(2) == t.unsqueeze(1)) & (t > 0).unsqueeze(2) & (pos[None, :] <= pos[:, None])
    return src, tgt, cross
'''}, "float32 comparison of segment ids: exact below 2**24")
C("sandwich-keywords", "type", {"sandwich": r'''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    w, b = p["pre1"]
    a = mha(query=layer_norm(y, w, b), memory=None, allowed=self_allowed, params=p["self_attn"])
    y = torch.add(y, layer_norm(a, p["post1"][0], p["post1"][1]))
    a = mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"])
    y = y + layer_norm(a, *p["post2"])
    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), ff=p["ff"]), *p["post3"])
'''}, "keywords and torch.add")
C("cached-manual-detached-max", "autograd", {"cached_attention": manual6(
    sub='    scores = scores - scores.amax(dim=-1, keepdim=True).detach()')},
  "subtracting a detached row max leaves softmax and its gradient unchanged")
C("cached-float64-inside", "dtype", {"cached_attention": r'''
import functools
@functools.lru_cache(maxsize=16)
def block_mask(n, past):
    return torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, dh = NUM_HEADS, D // NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])
    q, k, v = (t.reshape(B, n, H, dh).permute(0, 2, 1, 3) for t in qkv.chunk(3, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat((cache["k"], k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache["k"], cache["v"] = k, v
    scores = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(dh)
    scores = scores.masked_fill(~block_mask(n, past), float("-inf"))
    out = (torch.softmax(scores, dim=-1) @ v.double()).to(x_new.dtype)
    return F.linear(out.permute(0, 2, 1, 3).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "float64 inside and a cast back; a cached (read-only) mask; one stacked projection")

# ---------------- hostile ----------------
X("params-find-reference", {"modern_params": r'''
import gc
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    me = modern_params
    for f in gc.get_objects():
        if type(f) is type(me) and f is not me and f.__code__.co_argcount == 5 and f.__name__ != "request_dot_products":
            try:
                r = f(vocab, d_model, d_ff, n_enc, n_dec)
            except Exception:
                continue
            if type(r) is int:
                return r
    return 2 * vocab * d_model + 2 * d_model
'''}, "hostile: finds another 5-argument function (a hidden reference) and returns its answer")
X("cached-unblock-mha", {"cached_attention": r'''
def cached_self_attention(x_new, params, cache):
    g = globals()
    blocked = [v for k, v in g.items() if k.startswith("_MHA") and isinstance(v, list)]
    for b in blocked:
        b.clear()
    xs = torch.cat([cache["x"], x_new], dim=1) if "x" in cache else x_new
    cache["x"] = xs
    L = xs.shape[1]
    full = g["mha"](xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)
    B, n, D = x_new.shape
    kv = F.linear(xs, params["w_qkv"][D:], params["b_qkv"][D:]).reshape(B, L, 2, NUM_HEADS, D // NUM_HEADS)
    cache["k"], cache["v"] = kv[:, :, 0].transpose(1, 2), kv[:, :, 1].transpose(1, 2)
    return full[:, -n:]
'''}, "hostile: empties the grader's _MHA_BLOCKED list and calls mha on inputs it keeps (and ignores a shortened cache)")
X("rms-stack-peek", {"rms_norm": r'''
import sys
def rms_norm(x, weight, eps=1e-6):
    f = sys._getframe(1)
    for name, val in list(f.f_locals.items()) + list(f.f_globals.items()):
        if callable(val) and getattr(val, "__name__", "") != "rms_norm" and "rms" in getattr(val, "__name__", "").lower():
            try:
                return val(x, weight, eps)
            except Exception:
                pass
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + eps).to(x.dtype) * weight
'''}, "hostile: calls any rms function it finds in the caller's frame")
