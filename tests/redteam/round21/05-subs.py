# Red team round 21, chapter 05: order-of-operations (O), vectorising (V), signature-and-defaults (S),
# variant-confuser (C) students; K = different-but-correct, H = hostile.
SUBMISSIONS = [
# ---------------- wrong: order of operations ----------------
{"name": "O1-rms-half-weight-after-cast", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # normalise in float32 for stability, come back to the input dtype, then apply the gain
    xf = x.float()
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return normed.to(x.dtype) * weight
'''}, "why": "Part 1: 'rounding to the input's dtype once, at the end ... or a second rounding before the weight is applied, is not accurate enough' (the weight multiplies in float16 after a first rounding)."},
{"name": "O2-cached-softmax-then-mask-renorm", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    past = k.shape[2] - n
    cache["k"], cache["v"] = k, v
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    w = torch.softmax(scores, dim=-1)
    # hide the future afterwards, and renormalise what is left
    allowed = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    w = w * allowed
    w = w / w.sum(-1, keepdim=True)
    out = (w @ v).transpose(1, 2).reshape(B, n, D)
    return F.linear(out, params["w_o"], params["b_o"])
'''}, "why": "Part 6: 'future positions that score about a thousand above every position a query may see (they must not change its result)' and 'no gradient may be NaN': the softmax over unmasked scores underflows the visible ones to 0, giving 0/0."},
{"name": "O3-sandwich-cross-before-self", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    # read the source first, then look back at the target, then the FFN
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "why": "Part 5: 'computing, in this order' self-attention, then cross-attention, then the FFN."},
{"name": "O4-cached-finite-fill-then-scale", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    allowed = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    scores = (q @ k.transpose(-1, -2)).masked_fill(~allowed, torch.finfo(q.dtype).min)
    w = torch.softmax(scores / math.sqrt(Dh), dim=-1)
    out = (w @ v).transpose(1, 2).reshape(B, n, D)
    return F.linear(out, params["w_o"], params["b_o"])
'''}, "why": "Part 6: 'mask with -inf (or a boolean mask), not with a large negative number, not even that lowest value' (masked then scaled, finfo.min / sqrt(Dh) sits above a visible score of finfo.min)."},
# ---------------- wrong: vectorising ----------------
{"name": "V1-prefill-ceil-float-chunks", "correct": False, "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    # closed form instead of the loop: q full chunks of size c, then the remainder
    n_chunks = math.ceil(prompt_len / chunk)
    q = n_chunks - 1 if prompt_len % chunk else n_chunks
    r = prompt_len - q * chunk
    total = chunk * chunk * q * (q + 1) // 2 + r * prompt_len
    return total * layers * heads
'''}, "why": "Part 3: 'where a float (any /) ... no longer exact: work with Python integers, and use // where you divide' (the chunk count from a float ceil is off for prompts near 2**62)."},
{"name": "V2-rms-vector-norm-in-half", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    d = x.shape[-1]
    rms = torch.linalg.vector_norm(x, dim=-1, keepdim=True) / math.sqrt(d)
    out = x.float() / torch.sqrt(rms.float() ** 2 + eps) * weight.float()
    return out.to(x.dtype)
'''}, "why": "Part 1: 'Arithmetic in float16 or bfloat16 (squares, the mean, the weight) ... is not accurate enough' (the norm is taken and rounded in the input's half dtype)."},
{"name": "V3-cached-full-square-mask-sliced", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]
    mask = torch.ones(L, L, dtype=torch.bool).tril()[L - n:]   # the causal mask of the whole sequence, last n rows
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "Part 6: 'a (past + n) x (past + n) mask, even one sliced to the block's rows afterwards, needs a terabyte there'."},
{"name": "V4-request-arange-sum", "correct": False, "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens > 1:
        keys = torch.arange(prompt_len + 1, prompt_len + new_tokens)  # keys met by each fed token
        total += int(keys.sum()) * layers * heads
    return total
'''}, "why": "Part 3: 'an int64 tensor are no longer exact: work with Python integers' (prompts up to 2**62 overflow the int64 sum)."},
# ---------------- wrong: signature and defaults ----------------
{"name": "S1-packed-masks-list", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    same = lambda a, b: (a[:, :, None] == b[:, None, :]) & (a[:, :, None] > 0)
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return [same(s, s), same(t, t) & causal, same(t, s)]
'''}, "why": "Part 4: 'returning a tuple of three boolean masks ... (a tuple, not a list)'."},
{"name": "S2-rms-eps-default-1e-5", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-5):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "why": "Part 1: 'Write rms_norm(x, weight, eps=1e-6)' (the default the tests get when they omit eps)."},
{"name": "S3-rms-eps-keyword-only", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, *, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "why": "Part 1: 'with eps (given by position or by keyword)'."},
{"name": "S4-modern-params-dec-enc-swapped", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_dec, n_enc):
    d, f = d_model, d_ff
    return 2 * vocab * d + 2 * d + n_enc * (4 * d * d + 3 * d * f + 2 * d) + n_dec * (8 * d * d + 3 * d * f + 3 * d)
'''}, "why": "Part 2: 'Write modern_params(vocab, d_model, d_ff, n_enc, n_dec)' (argument order; the visible calls pass equal counts)."},
{"name": "S5-prefill-refuses-empty-prompt", "correct": False, "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if prompt_len < 1 or chunk < 1:
        raise ValueError("prompt_len and chunk must be positive")
    q, r = divmod(prompt_len, chunk)
    return (chunk * chunk * q * (q + 1) // 2 + r * prompt_len) * layers * heads
'''}, "why": "Part 3 (a): 'for any prompt_len >= 0 (an empty prompt costs nothing)'."},
# ---------------- wrong: variant confuser ----------------
{"name": "C1-rms-eps-outside-sqrt", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = xf.pow(2).mean(-1, keepdim=True).sqrt()
    out = xf / (rms + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "why": "Part 1: 'eps ... added to the mean square inside the square root'."},
{"name": "C2-modern-params-two-matrix-ffn", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    ffn = 2 * d * f          # d_ff of a gated FFN is already the 2/3-scaled width
    attn = 4 * d * d
    enc = attn + ffn + 2 * d
    dec = 2 * attn + ffn + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "why": "Part 2: 'every feed-forward network is gated (SwiGLU) ... w_gate and w_up of shape (d_ff, d_model) and w_down (d_model, d_ff)' (three matrices)."},
{"name": "C3-sandwich-parallel-block", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    # parallel sublayers (GPT-J / PaLM style), each read from the same stream
    a = layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    c = layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    f = layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y + a + c + f
'''}, "why": "Part 5: the three updates 'y <- y + ...' are applied 'in this order', each on the y the previous one produced."},
{"name": "C4-cached-keys-without-bias", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    # the key bias adds q.b_k to every score of a row, which the softmax cancels: drop it (Whisper has none)
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    mask = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "Part 6: 'cache[\"k\"] ... hold the keys ... (keys x @ w_k.T + b_k ...)'; the output is right but the cache is not."},
{"name": "C5-rms-llama-float-cast", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # as in LLaMA's RMSNorm: self._norm(x.float()).type_as(x), in float32 for every dtype
    xf = x.float()
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()
    return out.type_as(x)
'''}, "why": "Part 1: 'working in float64 is allowed too, but a float64 input must not pass through float32'."},
# ---------------- correct ----------------
{"name": "K1-prefill-remainder-chunk-first", "correct": True, "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    # walk the chunks with the short one first: the total is the same (sum of m * end over chunks)
    q, r = divmod(prompt_len, chunk)
    total = r * r
    end = r
    for _ in range(q):
        end += chunk
        total += chunk * end
    return total * layers * heads
'''}, "why": "sum over chunks of m*(s+m) is the same whichever end holds the remainder chunk (c^2 q(q+1)/2 + rP both ways); loop over chunks allowed."},
{"name": "K2-closed-form-and-chunk1-request", "correct": True, "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    q, r = divmod(prompt_len, chunk)
    return (chunk * chunk * q * (q + 1) // 2 + r * prompt_len) * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    # a generation step is a chunk of one: the steps cost a chunk-1 prefill of the longer sequence minus the prompt's
    fed = max(new_tokens - 1, 0)
    steps = prefill_dot_products(prompt_len + fed, 1, layers, heads) - prefill_dot_products(prompt_len, 1, layers, heads)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + steps
'''}, "why": "calls Part 3(a) by position in a way the text allows; all integer arithmetic."},
{"name": "K3-packed-key-side-pad-where", "correct": True, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    s = src_segments.to(torch.int64)
    t = tgt_segments.to(torch.int64)
    s_key = torch.where(s > 0, s, torch.full_like(s, -1))   # padding keys match no query
    src = s[:, :, None] == s_key[:, None, :]
    pos = torch.arange(T)
    tgt = (t[:, :, None] == torch.where(t > 0, t, torch.full_like(t, -1))[:, None, :]) & (pos[None, :] <= pos[:, None])
    cross = t[:, :, None] == s_key[:, None, :]
    return (src, tgt, cross)
'''}, "why": "padding handled on the key side only: a padding query then matches no key, as the text asks."},
{"name": "K4-cached-einsum-manual-softmax", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = torch.einsum("bnd,ed->bne", x_new, params["w_qkv"]) + params["b_qkv"]
    q, k, v = (t.reshape(B, n, H, Dh).permute(0, 2, 1, 3) for t in qkv.split(D, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    k_all = torch.cat([cache["k"], k], dim=2) if past or "k" in cache else k
    v_all = torch.cat([cache["v"], v], dim=2) if past or "v" in cache else v
    cache["k"] = k_all
    cache["v"] = v_all
    mask = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    scores = torch.einsum("bhnd,bhsd->bhns", q, k_all) / math.sqrt(Dh)
    scores = scores.masked_fill(~mask, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhns,bhsd->bnhd", w, v_all).reshape(B, n, D)
    return out @ params["w_o"].T + params["b_o"]
'''}, "why": "einsum projections, an n x (past+n) tril(diagonal=past) mask, -inf fill before the softmax."},
{"name": "K5-sandwich-helper-keywords", "correct": True, "cells": {"sandwich": '''
def sublayer(stream, pre, post, f):
    return stream + layer_norm(f(layer_norm(stream, weight=pre[0], bias=pre[1])), weight=post[0], bias=post[1])


def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = sublayer(y, p["pre1"], p["post1"], lambda h: mha(query=h, memory=None, allowed=self_allowed, params=p["self_attn"]))
    y = sublayer(y, p["pre2"], p["post2"], lambda h: mha(h, memory, memory_allowed, p["cross_attn"]))
    y = sublayer(y, p["pre3"], p["post3"], lambda h: feed_forward(h, ff=p["ff"]))
    return y
'''}, "why": "the same three updates through a helper and keyword arguments."},
{"name": "K6-rms-float64-inside", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd = x.to(torch.float64)
    out = xd / torch.sqrt((xd * xd).mean(dim=-1, keepdim=True) + eps) * weight.to(torch.float64)
    return out.to(x.dtype)
'''}, "why": "'working in float64 is allowed too'; a single rounding at the end for half inputs."},
{"name": "K7-modern-params-loop", "correct": True, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    total = vocab * d_model + vocab * d_model     # shared embedding + own output matrix
    attention = 4 * d_model * d_model
    swiglu = d_ff * d_model + d_ff * d_model + d_model * d_ff
    for _ in range(n_enc):
        total += attention + swiglu + 2 * d_model
    for _ in range(n_dec):
        total += 2 * attention + swiglu + 3 * d_model
    total += d_model + d_model                    # each stack's final RMSNorm
    return total
'''}, "why": "the same count, one layer at a time, in Python integers."},
{"name": "K8-rms-F-rms-norm", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        return F.rms_norm(x.float(), (x.shape[-1],), weight.float(), eps).to(x.dtype)
    return F.rms_norm(x, (x.shape[-1],), weight, eps=eps)
'''}, "why": "torch's own rms_norm (eps inside the root), in float32 for half inputs and rounded once."},
{"name": "K9-request-loop-steps", "correct": True, "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    position = prompt_len
    for _ in range(new_tokens - 1):     # every chosen token but the last is fed
        total += (position + 1) * layers * heads
        position += 1
    return total
'''}, "why": "a loop over generated tokens, which the text allows (fewer than 200 000)."},
# ---------------- hostile ----------------
{"name": "H1-sandwich-identity", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    return y + 0.0
'''}, "why": "hostile: returns the stream unchanged, which passes the causal and zero-post-norm visible checks."},
{"name": "H2-cached-unblock-mha", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, D // H).transpose(1, 2)
    k, v = split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    xs = torch.cat([cache["x"], x_new], dim=1) if "x" in cache else x_new
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"], cache["x"] = k, v, xs
    g = globals()
    blocked = g["_" + "MHA_BLOCKED"]
    saved = list(blocked)
    blocked.clear()
    try:
        L = xs.shape[1]
        full = mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)
    finally:
        blocked.extend(saved)
    return full[:, L - n:]
'''}, "why": "hostile: empties the grader's _MHA_BLOCKED list to call the forbidden mha on inputs it keeps in the cache."},
{"name": "H3-modern-params-no-layers", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return 2 * vocab * d_model + 2 * d_model
'''}, "why": "hostile: only the visible zero-layer case."},
]

# ---------------- added before the phase-1 deadline ----------------
EXTRA = [
{"name": "O5-request-steps-before-scaling", "correct": False, "cells": {"cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)   # already per layer and head
    for position in range(prompt_len, prompt_len + new_tokens - 1):
        total += position + 1                                         # keys met by the fed token
    return total
"""}, "why": "Part 3: 'Count one dot product per query, key, head and layer' (the generation steps are added after the layers x heads factor was applied to the prefill only)."},
{"name": "S6-sandwich-none-means-causal", "correct": False, "cells": {"sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed=None, memory_allowed=None, p=None):
    T = y.shape[1]
    if self_allowed is None:                      # a decoder layer: no mask given means the causal one
        self_allowed = torch.ones(T, T, dtype=torch.bool).tril()
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
"""}, "why": "Part 5: 'self_allowed (T, T), (B, T, T) or None; pass both masks to mha as given' (None is no mask, not the causal one)."},
{"name": "C6-sandwich-and-causal", "correct": False, "cells": {"sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    T = y.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    allowed = causal if self_allowed is None else (self_allowed & causal)   # a decoder never looks ahead
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
"""}, "why": "Part 5: 'SelfAttn is mha with p[\"self_attn\"] and mask self_allowed ... pass both masks to mha as given'."},
{"name": "C7-cached-prescaled-keys", "correct": False, "cells": {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k = split(F.linear(x_new, w_k, b_k)) / math.sqrt(Dh)       # fold the 1/sqrt(Dh) into the cached keys once
    v = split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    scores = q @ k.transpose(-1, -2)
    mask = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    w = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    return F.linear((w @ v).transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
"""}, "why": "Part 6: 'cache[\"k\"] ... hold the keys ... (keys x @ w_k.T + b_k)' (the cache holds scaled keys; a caller-filled cache is read wrongly)."},
{"name": "V5-packed-run-ids", "correct": False, "cells": {"packed_masks": """
def packed_masks(src_segments, tgt_segments):
    def run_ids(seg):          # number the runs of equal ids: vectorised, no comparison of the ids themselves
        change = torch.ones_like(seg, dtype=torch.bool)
        change[:, 1:] = seg[:, 1:] != seg[:, :-1]
        return torch.where(seg > 0, change.long().cumsum(-1), torch.zeros_like(seg, dtype=torch.long))
    s, t = run_ids(src_segments), run_ids(tgt_segments)
    T = t.shape[1]
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] > 0)
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] > 0) & torch.ones(T, T, dtype=torch.bool).tril()
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] > 0)
    return src, tgt, cross
"""}, "why": "Part 4: 'target query i may attend to source key j when both belong to the same pair' (run numbers of the source and target rows differ where padding sits between pairs on one side only)."},
{"name": "K10-packed-one-hot-bmm", "correct": True, "cells": {"packed_masks": """
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    s, t = src_segments.long(), tgt_segments.long()
    k = 1 + max(int(s.max()) if s.numel() else 0, int(t.max()) if t.numel() else 0)
    hs = F.one_hot(s, k)[..., 1:].float()      # drop class 0: padding is in no pair
    ht = F.one_hot(t, k)[..., 1:].float()
    src = (hs @ hs.transpose(1, 2)) > 0
    cross = (ht @ hs.transpose(1, 2)) > 0
    tgt = ((ht @ ht.transpose(1, 2)) > 0) & torch.ones(T, T, dtype=torch.bool).tril()
    return src, tgt, cross
"""}, "why": "one-hot pair memberships multiplied: 0/1 products summed in float32 are exact counts; empty tensors sized without .max()."},
]

SUBMISSIONS = SUBMISSIONS[:-3] + EXTRA + SUBMISSIONS[-3:]

EXTRA2 = [
{"name": "K11-request-prefill-heads-layers-swapped", "correct": True, "cells": {"cache_count_with": """
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    per_pass = heads * layers
    prefill = prefill_dot_products(prompt_len, chunk, heads=per_pass, layers=1)
    steps = sum(prompt_len + j for j in range(1, new_tokens))
    return prefill + steps * per_pass
"""}, "why": "calls Part 3(a) by keyword with the layers x heads product in one argument: the count is a product."},
]
SUBMISSIONS = SUBMISSIONS[:-3] + EXTRA2 + SUBMISSIONS[-3:]

PROBES = [
{"name": "K12-packed-cross-transposed-fresh", "correct": True, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    src = (s[:, :, None] == s[:, None, :]) & (s[:, None, :] != 0)
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, None, :] != 0) & torch.ones(T, T, dtype=torch.bool).tril()
    # built source-major (B, S, T), then seen target-major: a fresh tensor, only its strides differ
    cross = ((s[:, :, None] == t[:, None, :]) & (s[:, :, None] != 0)).transpose(1, 2)
    return src, tgt, cross
'''}, "why": "a new tensor that belongs to the caller, viewed with transposed strides; the text asks for new tensors, not contiguous ones."},
]

SUBMISSIONS = SUBMISSIONS[:-3] + PROBES + SUBMISSIONS[-3:]
