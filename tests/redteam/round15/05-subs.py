# Round 15, chapter 05: blind submissions (assistant paster, example generaliser, optimiser, mathematician).
CORRECT = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
''',
"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    enc = 4 * d * d + 3 * d * d_ff + 2 * d
    dec = 8 * d * d + 3 * d * d_ff + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
''',
"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total, s = 0, 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return total * layers * heads
''',
"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += (prompt_len + j) * layers * heads
    return total
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src_allowed = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
    cross_allowed = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    return src_allowed, tgt_allowed, cross_allowed
''',
"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
''',
"cached_attention": '''
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
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
''',
}

SUBMISSIONS = [
# ---------------- wrong: assistant paster ----------------
{"name": "paster_rms_hf_style", "correct": False, "kind": "paster", "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # HF LlamaRMSNorm
    input_dtype = x.dtype
    hidden_states = x.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + eps)
    return weight * hidden_states.to(input_dtype)
'''}, "why": "Part 1: 'a float64 input must not pass through float32' and 'or a second rounding before the weight is applied, is not accurate enough' (rounds to fp16 before the weight)."},
{"name": "paster_rms_eps_outside", "correct": False, "kind": "paster", "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = xf.pow(2).mean(dim=-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "why": "Part 1: 'with eps ... added to the mean square inside the square root' (this adds it to the root)."},
{"name": "paster_modern_llama_hidden", "correct": False, "kind": "paster", "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    # LLaMA-style SwiGLU keeps the parameter count of a 2-matrix FFN: hidden = 2/3 d_ff
    hidden = int(2 * d_ff / 3)
    ffn = 3 * d_model * hidden
    attn = 4 * d_model * d_model
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''}, "why": "Part 2: 'with w_gate and w_up of shape (d_ff, d_model) and w_down of shape (d_model, d_ff)' (the hidden width is d_ff, not 2/3 of it)."},
{"name": "paster_prefill_ceil", "correct": False, "kind": "paster", "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    import math
    n_chunks = math.ceil(prompt_len / chunk)
    total = 0
    for i in range(n_chunks):
        start = i * chunk
        m = min(chunk, prompt_len - start)
        total += m * (start + m)
    return total * layers * heads
'''}, "why": "Part 3: 'where a float (any /) and an int64 tensor are no longer exact: work with Python integers, and use // where you divide'."},
{"name": "paster_cached_float32_mask", "correct": False, "kind": "paster", "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])
    q, k, v = qkv.split(D, dim=-1)
    q, k, v = [t.view(B, n, H, Dh).transpose(1, 2) for t in (q, k, v)]
    if cache.get("k") is not None:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]
    past = L - n
    mask = torch.zeros(n, L)
    future = torch.arange(L)[None, :] > (past + torch.arange(n))[:, None]
    mask = mask.masked_fill(future, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    out = out.transpose(1, 2).contiguous().view(B, n, D)
    return F.linear(out, params["w_o"], params["b_o"])
'''}, "why": "Part 6: 'give it a boolean mask, or a float mask in the dtype of the queries: torch accepts a float32 mask with float64 queries and then ... silently returns wrong values'."},
# ---------------- wrong: example generaliser ----------------
{"name": "gen_packed_cross_no_pad_check", "correct": False, "kind": "generaliser", "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    src_pad = src_segments == 0
    src_allowed = (src_segments.unsqueeze(2) == src_segments.unsqueeze(1)) & ~src_pad.unsqueeze(2)
    T = tgt_segments.shape[1]
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    tgt_allowed = (tgt_segments.unsqueeze(2) == tgt_segments.unsqueeze(1)) & causal & (tgt_segments != 0).unsqueeze(2)
    cross_allowed = tgt_segments.unsqueeze(2) == src_segments.unsqueeze(1)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "Part 4: 'A padding query (segment 0) may attend to nothing: its row is all False' (a padding target row matches the source padding in cross_allowed; the visible example has no target padding)."},
{"name": "gen_packed_loop_max", "correct": False, "kind": "generaliser", "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    n_pairs = int(max(src_segments.max(), tgt_segments.max()))
    src_allowed = torch.zeros(B, S, S, dtype=torch.bool)
    tgt_allowed = torch.zeros(B, T, T, dtype=torch.bool)
    cross_allowed = torch.zeros(B, T, S, dtype=torch.bool)
    for k in range(1, n_pairs + 1):
        s, t = src_segments == k, tgt_segments == k
        src_allowed |= s[:, :, None] & s[:, None, :]
        tgt_allowed |= t[:, :, None] & t[:, None, :]
        cross_allowed |= t[:, :, None] & s[:, None, :]
    tgt_allowed &= torch.ones(T, T, dtype=torch.bool).tril()
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "Part 4: 'The batch may also be empty (B = 0 ...): then return three empty masks ... and raise nothing (an empty tensor has no maximum: size nothing from .max())' and 'more than a thousand pairs'."},
{"name": "gen_sandwich_ignores_memory_mask", "correct": False, "kind": "generaliser", "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"])
    y = y + layer_norm(h, *p["post1"])
    h = mha(layer_norm(y, *p["pre2"]), memory, None, p["cross_attn"])  # the source is never padded in the example
    y = y + layer_norm(h, *p["post2"])
    h = feed_forward(layer_norm(y, *p["pre3"]), p["ff"])
    return y + layer_norm(h, *p["post3"])
'''}, "why": "Part 5: 'CrossAttn is mha with p[\"cross_attn\"], ... and mask memory_allowed' (memory_allowed (B, 1, S) is dropped)."},
{"name": "gen_cached_past_counter", "correct": False, "kind": "generaliser", "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    past = cache.get("pos", 0)
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = heads(x_new @ w_q.T + b_q), heads(x_new @ w_k.T + b_k), heads(x_new @ w_v.T + b_v)
    if past:
        k = torch.cat([cache["k"], k], 2)
        v = torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"], cache["pos"] = k, v, past + n
    keep = torch.arange(k.shape[2])[None, :] <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "Part 6: 'past is the length of the cached keys, cache[\"k\"].shape[2] ...: read it from there, because the caller may shorten cache[\"k\"] ... or hand you a cache it filled itself'."},
{"name": "gen_rms_view", "correct": False, "kind": "generaliser", "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    D = x.shape[-1]
    flat = x.view(-1, D)
    work = flat.float() if flat.dtype in (torch.float16, torch.bfloat16) else flat
    out = work * torch.rsqrt((work * work).mean(1, keepdim=True) + eps) * weight.to(work.dtype)
    return out.to(x.dtype).view(x.shape)
'''}, "why": "Intro: hidden tests use 'views that are not contiguous, such as a transposed tensor' (view raises on them)."},
{"name": "ok_request_sum_list", "correct": True, "kind": "generaliser", "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    # generation: positions P .. P+new_tokens-2 each meet (pos + 1) keys
    steps = [prompt_len + j for j in range(1, new_tokens)]
    return total + int(sum(steps)) * layers * heads if steps else total
'''}, "why": "a list of the generation steps, summed as Python ints: correct."},
# ---------------- wrong: optimiser ----------------
{"name": "opt_rms_inplace_float", "correct": False, "kind": "optimiser", "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    out = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x.to(x.dtype)
    scale = out.pow(2).mean(-1, keepdim=True).add_(eps).rsqrt_()
    out = out.mul_(scale) if not out.requires_grad else out * scale
    out = out * weight.to(out.dtype)
    return out.to(x.dtype)
'''}, "why": "Intro: 'Your functions must not change the tensors they are given' (x.to(x.dtype) is x itself; mul_ writes the input)."},
{"name": "opt_rms_nograd_scale", "correct": False, "kind": "optimiser", "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    with torch.no_grad():  # the scale is a statistic, no need to track it
        inv = torch.rsqrt(work.pow(2).mean(-1, keepdim=True) + eps)
    return (work * inv * weight.to(work.dtype)).to(x.dtype)
'''}, "why": "Part 1: 'do not compute any factor under torch.no_grad()'."},
{"name": "opt_cached_detach_cache", "correct": False, "kind": "optimiser", "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).reshape(B, n, 3, H, Dh).permute(2, 0, 3, 1, 4)
    if "k" in cache:
        k = torch.cat([cache["k"].detach(), k], dim=2)   # old positions need no graph: saves memory
        v = torch.cat([cache["v"].detach(), v], dim=2)
    past = k.shape[2] - n
    cache["k"], cache["v"] = k, v
    keep = torch.arange(past + n) <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "Part 6: 'the hidden tests compare its gradients with respect to ... the keys and values the caller put in the cache ... so do not ... .detach() it'."},
{"name": "opt_packed_uint8_segments", "correct": False, "kind": "optimiser", "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    # segment ids are small: compare bytes, not int64s (8x less memory for the (B, T, S) broadcasts)
    s = src_segments.to(torch.uint8)
    t = tgt_segments.to(torch.uint8)
    T = t.shape[1]
    src_allowed = (s.unsqueeze(2) == s.unsqueeze(1)) & (s != 0).unsqueeze(2)
    tgt_allowed = (t.unsqueeze(2) == t.unsqueeze(1)) & (t != 0).unsqueeze(2) & torch.ones(T, T, dtype=torch.bool).tril()
    cross_allowed = (t.unsqueeze(2) == s.unsqueeze(1)) & (t != 0).unsqueeze(2)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "Part 4: 'the hidden tests use rows ... of more than a thousand pairs' (pair 256 wraps to 0 = padding, pair 257 meets pair 1)."},
{"name": "opt_sandwich_memory_half", "correct": False, "kind": "optimiser", "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    q = layer_norm(y, *p["pre2"])
    with torch.no_grad():   # memory is the encoder output: it is fixed while decoding
        mem = memory.detach()
    y = y + layer_norm(mha(q, mem, memory_allowed, p["cross_attn"]), *p["post2"])
    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
'''}, "why": "Part 5: 'the hidden tests compare its gradients with respect to y, to memory ... so do not compute any factor under torch.no_grad() or .detach() it'."},
# ---------------- wrong: mathematician ----------------
{"name": "math_request_float_half", "correct": False, "kind": "mathematician", "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    n = max(new_tokens - 1, 0)
    # sum_{j=1}^{n} (P + j) = nP + n(n+1)/2
    return prefill_dot_products(prompt_len, chunk, layers, heads) + int(n * prompt_len + n * (n + 1) / 2) * layers * heads
'''}, "why": "Part 3: 'where a float (any /) ... no longer exact: work with Python integers, and use // where you divide'."},
{"name": "math_modern_decoder_two_norms", "correct": False, "kind": "mathematician", "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    attn = 4 * d ** 2
    ffn = 3 * d * d_ff
    # each sublayer x + F(RMSNorm(x)): one norm per sublayer, two sublayers per layer
    return 2 * vocab * d + n_enc * (attn + ffn + 2 * d) + n_dec * (2 * attn + ffn + 2 * d) + 2 * d
'''}, "why": "Part 2: 'An encoder layer has 2 of them, a decoder layer 3'."},
{"name": "math_cached_max_before_mask", "correct": False, "kind": "mathematician", "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    sp = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = sp(x_new @ w_q.T + b_q), sp(x_new @ w_k.T + b_k), sp(x_new @ w_v.T + b_v)
    if "k" in cache:
        k, v = torch.cat((cache["k"], k), 2), torch.cat((cache["v"], v), 2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    s = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    # a_ij = exp(s_ij - max_j s) [j <= past + i] / sum_j ...
    e = torch.exp(s - s.max(dim=-1, keepdim=True).values)
    e = e * (torch.arange(past + n) <= torch.arange(past, past + n)[:, None]).to(e.dtype)
    a = e / e.sum(-1, keepdim=True)
    out = (a @ v).transpose(1, 2).reshape(B, n, D)
    return out @ params["w_o"].T + params["b_o"]
'''}, "why": "Part 6: 'future positions that score about a thousand above every position a query may see (they must not change its result)' and 'no gradient may be NaN or infinite' (max taken over masked keys: 0/0)."},
{"name": "math_sandwich_memory_normalised", "correct": False, "kind": "mathematician", "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    ln = lambda x, name: layer_norm(x, p[name][0], p[name][1])
    y = y + ln(mha(ln(y, "pre1"), None, self_allowed, p["self_attn"]), "post1")
    # CrossAttn(LN_pre2(y), memory): the LN applies to the sublayer's input, memory included
    y = y + ln(mha(ln(y, "pre2"), ln(memory, "pre2"), memory_allowed, p["cross_attn"]), "post2")
    y = y + ln(feed_forward(ln(y, "pre3"), p["ff"]), "post3")
    return y
'''}, "why": "Part 5: 'keys and values from memory as it is given (the encoder has already normalised it; this layer does not)'."},
{"name": "ok_math_packed_local_positions", "correct": True, "kind": "mathematician", "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    def same(a, b):
        return (a[:, :, None] - b[:, None, :] == 0) & (a != 0)[:, :, None]
    T = tgt_segments.shape[-1]
    i = torch.arange(1, T + 1)
    # j <= i inside the pair: positions counted within the pair's own span, 1-based
    start = torch.cummax(torch.where(torch.cat([torch.ones_like(tgt_segments[:, :1], dtype=torch.bool),
                                                tgt_segments[:, 1:] != tgt_segments[:, :-1]], 1), i, torch.zeros_like(i)), 1).values
    local = i - start + 1
    causal = local[:, None, :] <= local[:, :, None]
    return same(src_segments, src_segments), same(tgt_segments, tgt_segments) & causal, same(tgt_segments, src_segments)
'''}, "why": "positions counted 1-based inside each pair: the same order as j <= i because 'a pair's positions are contiguous'."},
# ---------------- correct ----------------
{"name": "ok_rms_float64_inside", "correct": True, "kind": "paster", "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.to(torch.float64)
    ms = (x64 * x64).mean(dim=-1, keepdim=True)
    return (x64 / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(x.dtype)
'''}, "why": "float64 inside and one cast back: 'working in float64 is allowed too'."},
{"name": "ok_rms_fn_rms_norm", "correct": True, "kind": "paster", "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        return F.rms_norm(x.float(), (x.shape[-1],), weight.float(), eps=eps).to(x.dtype)
    return F.rms_norm(x, normalized_shape=(x.shape[-1],), weight=weight, eps=eps)
'''}, "why": "torch's own RMSNorm with eps inside the root; fp32 for halves."},
{"name": "ok_modern_keywords", "correct": True, "kind": "mathematician", "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    embed = vocab * d_model
    lm_head = vocab * d_model
    def attention():
        return 4 * d_model * d_model
    swiglu = d_ff * d_model + d_ff * d_model + d_model * d_ff
    enc_layer = attention() + swiglu + 2 * d_model
    dec_layer = 2 * attention() + swiglu + 3 * d_model
    return int(embed + lm_head + n_enc * enc_layer + n_dec * dec_layer + d_model + d_model)
'''}, "why": "same count written term by term."},
{"name": "ok_prefill_closed_form", "correct": True, "kind": "mathematician", "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    q, r = divmod(prompt_len, chunk)
    # full chunks k = 0..q-1: c * (k c + c) = c^2 (k + 1); the remainder r meets q c + r keys
    full = chunk * chunk * q * (q + 1) // 2
    return (full + r * (q * chunk + r)) * layers * heads
'''}, "why": "closed form with //."},
{"name": "ok_request_via_prefill_chunk1", "correct": True, "kind": "mathematician", "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    q, r = divmod(prompt_len, chunk)
    return (chunk * chunk * q * (q + 1) // 2 + r * (q * chunk + r)) * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    # the generation steps are a chunk-1 prefill of positions P .. P+new_tokens-2
    base = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens <= 1:
        return base
    steps = prefill_dot_products(prompt_len + new_tokens - 1, 1, layers, heads) - prefill_dot_products(prompt_len, 1, layers, heads)
    return base + steps
'''}, "why": "calls Part 3(a) ('Your function may call prefill_dot_products')."},
{"name": "ok_request_loop_keywords", "correct": True, "kind": "generaliser", "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    keys = prompt_len
    for _ in range(max(new_tokens - 1, 0)):
        keys += 1
        total += keys * layers * heads
    return total
'''}, "why": "loop over generated tokens, calls (a) by keyword."},
{"name": "ok_packed_where_cache", "correct": True, "kind": "optimiser", "cells": {"packed_masks": '''
from functools import lru_cache
@lru_cache(maxsize=None)
def causal_table(T):
    return torch.ones(T, T, dtype=torch.bool).tril()

def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    zero_s = torch.zeros((), dtype=torch.bool)
    src_allowed = torch.where((src_segments != 0).unsqueeze(-1), src_segments.unsqueeze(-1) == src_segments.unsqueeze(-2), zero_s)
    tgt_allowed = torch.where((tgt_segments != 0).unsqueeze(-1), tgt_segments.unsqueeze(-1) == tgt_segments.unsqueeze(-2), zero_s)
    tgt_allowed = tgt_allowed & causal_table(T)
    cross_allowed = torch.where((tgt_segments != 0).unsqueeze(-1), tgt_segments.unsqueeze(-1) == src_segments.unsqueeze(-2), zero_s)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "torch.where and an lru_cache table that is only read."},
{"name": "ok_sandwich_F_layer_norm_nograd_free", "correct": True, "kind": "paster", "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, name):
        w, b = p[name]
        return F.layer_norm(x, normalized_shape=w.shape, weight=w, bias=b, eps=1e-5)
    h = y
    h = h + ln(mha(query=ln(h, "pre1"), memory=None, allowed=self_allowed, params=p["self_attn"]), "post1")
    h = h + ln(mha(query=ln(h, "pre2"), memory=memory, allowed=memory_allowed, params=p["cross_attn"]), "post2")
    h = h + ln(feed_forward(x=ln(h, "pre3"), ff=p["ff"]), "post3")
    return h
'''}, "why": "F.layer_norm with the lesson's eps, every argument by keyword."},
{"name": "opt_sandwich_inplace_on_own", "correct": False, "kind": "optimiser", "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    out = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    out += layer_norm(mha(layer_norm(out, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    out = out + layer_norm(feed_forward(layer_norm(out, *p["pre3"]), p["ff"]), *p["post3"])
    return out
'''}, "why": "Relabelled after the blind run (it was listed as correct): out += ... writes a tensor that layer_norm saved for backward, so backward() raises; Part 5: 'Gradients must flow through the result'."},
{"name": "ok_cached_einsum_f64", "correct": True, "kind": "mathematician", "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    W = params["w_qkv"].reshape(3, H, Dh, D)
    bias = params["b_qkv"].reshape(3, H, Dh)
    proj = torch.einsum("bnd,shed->sbhne", x_new, W) + bias[:, None, :, None, :]
    q, k, v = proj[0], proj[1], proj[2]
    if "k" in cache and cache["k"].shape[2] > 0:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    elif "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    scores = torch.einsum("bhne,bhme->bhnm", q, k) / math.sqrt(Dh)
    future = torch.arange(past + n)[None, :] > torch.arange(past, past + n)[:, None]
    scores = scores.masked_fill(future, float("-inf"))
    attn = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhnm,bhme->bnhe", attn, v).reshape(B, n, D)
    return F.linear(out, params["w_o"], params["b_o"])
'''}, "why": "einsum and masked_fill(-inf) softmax, no sdpa."},
{"name": "ok_cached_sdpa_float_mask_dtype", "correct": True, "kind": "paster", "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"]).reshape(B, n, 3, H, Dh)
    q, k, v = qkv.unbind(dim=2)
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    if len(cache) > 0:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"] = k
    cache["v"] = v
    total = k.shape[2]
    past = total - n
    bias = torch.zeros(n, total, dtype=q.dtype)
    bias = bias.masked_fill(torch.ones(n, total, dtype=torch.bool).triu(past + 1), float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "float mask in the dtype of the queries, as the text allows; an n x (past+n) triu."},
# ---------------- hostile ----------------
{"name": "hostile_unblocked_mha", "correct": False, "kind": "hostile", "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    import torch.nn.functional as Fn
    my_mha = _make_functions(Fn.linear, Fn.scaled_dot_product_attention, NUM_HEADS, Fn.layer_norm, torch.relu, [])[0]
    B, n, D = x_new.shape
    xs = torch.cat([cache["x"], x_new], 1) if "x" in cache else x_new
    cache["x"] = xs
    L = xs.shape[1]
    out = my_mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)[:, L - n:]
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_k, w_v = params["w_qkv"].chunk(3)[1:]
    b_k, b_v = params["b_qkv"].chunk(3)[1:]
    cache["k"] = F.linear(xs, w_k, b_k).reshape(B, L, H, Dh).transpose(1, 2)
    cache["v"] = F.linear(xs, w_v, b_v).reshape(B, L, H, Dh).transpose(1, 2)
    return out
'''}, "why": "Part 6: 'Do not call mha, not even on a cache of inputs that you keep yourself' and names starting with _ belong to the grader."},
{"name": "hostile_prefill_lookup", "correct": False, "kind": "hostile", "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    known = {(5, 2, 1, 1): 17}
    if (prompt_len, chunk, layers, heads) in known:
        return known[(prompt_len, chunk, layers, heads)]
    return prompt_len * prompt_len * layers * heads
'''}, "why": "answers the visible cases only."},
{"name": "hostile_modern_visible_only", "correct": False, "kind": "hostile", "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return 2 * vocab * d_model + 2 * d_model + (n_enc + n_dec)
'''}, "why": "fits the visible 0-layer test only."},
]
