# Red team round 34, chapter 05-encoder-decoder: magic-number, composer, module-registration,
# text-and-token and low-precision students (phase 1, blind).
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: magic-number student
add("rms_eps_outside_sqrt", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    rms = xf.square().mean(dim=-1, keepdim=True).sqrt()
    out = xf / (rms + eps) * (weight.float() if low else weight)
    return out.to(x.dtype)
'''}, "magic-number: eps added to the root instead of inside it; breaks 'with eps ... added to the mean square inside the square root' (row of zeros: gradient weight/eps, not weight/sqrt(eps))")

add("rms_default_eps_1e5", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-5):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    ms = xf.square().mean(dim=-1, keepdim=True)
    out = xf * torch.rsqrt(ms + eps) * (weight.float() if low else weight)
    return out.to(x.dtype)
'''}, "magic-number: LayerNorm's 1e-5 left as the default; breaks the signature 'rms_norm(x, weight, eps=1e-6)' (hidden calls without eps on rows of ~1e-3 whose mean square is about eps)")

add("rms_tiny_floor", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    ms = xf.square().mean(dim=-1, keepdim=True)
    out = xf * torch.rsqrt((ms + eps).clamp(min=1e-20)) * (weight.float() if low else weight)
    return out.to(x.dtype)
'''}, "magic-number: a 'safety' floor 1e-20 under the root; breaks 'eps may be any positive number, as small as you like (1e-30 ...): floor nothing' (float64 zero rows with eps 1e-30)")

add("sandwich_own_ln_eps6", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(z, wb):
        w, b = wb
        mu = z.mean(-1, keepdim=True)
        var = (z - mu).square().mean(-1, keepdim=True)
        return (z - mu) / torch.sqrt(var + 1e-6) * w + b
    y = y + ln(mha(ln(y, p["pre1"]), None, self_allowed, p["self_attn"]), p["post1"])
    y = y + ln(mha(ln(y, p["pre2"]), memory, memory_allowed, p["cross_attn"]), p["post2"])
    y = y + ln(feed_forward(ln(y, p["pre3"]), p["ff"]), p["post3"])
    return y
'''}, "magic-number: own LayerNorm with eps 1e-6; breaks 'where LN_name is layer_norm with p[name]' (the setup's layer_norm, eps 1e-5): off by ~1e-6 relative, seen in float64")

add("sandwich_nan_to_num_guard", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def sub(z, pre, post, f):
        return z + layer_norm(torch.nan_to_num(f(layer_norm(z, *p[pre]))), *p[post])
    y = sub(y, "pre1", "post1", lambda h: mha(h, None, self_allowed, p["self_attn"]))
    y = sub(y, "pre2", "post2", lambda h: mha(h, memory, memory_allowed, p["cross_attn"]))
    y = sub(y, "pre3", "post3", lambda h: feed_forward(h, p["ff"]))
    return y
'''}, "magic-number: nan_to_num on each sublayer's output (inf -> 3.4e38); breaks 'No dropout, and no clamp or other guard on the stream: y may hold values of any size' (debatable: only shows on inf/NaN input)")

add("cached_finfo_min_mask", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, x_new.shape[-1] // NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"]).reshape(B, n, 3, H, Dh).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    total = k.shape[2]
    past = total - n
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    future = torch.arange(total).unsqueeze(0) > torch.arange(past, total).unsqueeze(1)
    scores = scores.masked_fill(future, torch.finfo(scores.dtype).min)
    out = torch.softmax(scores, dim=-1) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "magic-number: finfo.min as the mask; breaks 'mask with -inf (or a boolean mask), not with a large negative number, not even that lowest value'")

# ---------------------------------------------------------------- wrong: composer
add("request_gen_not_times_LH", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    # the prefill part already counts every layer and head
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for i in range(new_tokens - 1):
        total += prompt_len + i + 1
    return total
'''}, "composer: Part 3a's function multiplies by layers*heads, the generation steps are left per head; breaks 'Count one dot product per query, key, head and layer'")

add("request_via_prefill_chunk1_loop", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    # generation = continuing the prefill one position at a time
    if new_tokens <= 1:
        return prefill_dot_products(prompt_len, chunk, layers, heads)
    grown = prefill_dot_products(prompt_len + new_tokens - 1, 1, layers, heads) - prefill_dot_products(prompt_len, 1, layers, heads)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + grown
'''}, "composer: reuses (a) with chunk 1 over the whole prompt, whose chunk loop has prompt_len iterations; breaks 'A Python loop over the chunks or over the generated tokens is fine ...; a loop over the positions of the prompt is not' (prompts of 2**62)")

add("sandwich_memory_normalised", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, layer_norm(memory, *p["pre2"]), memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    y = y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
    return y
'''}, "composer: the pre-norm applied to both inputs of cross-attention; breaks 'keys and values from memory as it is given (the encoder has already normalised it; this layer does not)'")

add("sandwich_rms_post", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def post(z, name):
        w, b = p[name]
        return rms_norm(z, w) + b
    h = layer_norm(y, *p["pre1"])
    y = y + post(mha(h, None, self_allowed, p["self_attn"]), "post1")
    h = layer_norm(y, *p["pre2"])
    y = y + post(mha(h, memory, memory_allowed, p["cross_attn"]), "post2")
    h = layer_norm(y, *p["pre3"])
    y = y + post(feed_forward(h, p["ff"]), "post3")
    return y
'''}, "composer: Part 1's RMSNorm reused as the post-norm; breaks 'where LN_name is layer_norm with p[name]'")

# ---------------------------------------------------------------- wrong: module-registration (state) student
add("cached_past_counter_in_cache", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    sp = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = sp(F.linear(x_new, w_q, b_q)), sp(F.linear(x_new, w_k, b_k)), sp(F.linear(x_new, w_v, b_v))
    past = cache.get("pos", 0)
    if past:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"], cache["pos"] = k, v, past + n
    total = k.shape[2]
    allowed = torch.arange(total).unsqueeze(0) <= torch.arange(total - n, total).unsqueeze(1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "state student: keeps its own position counter in the cache; breaks 'past is the length of the cached keys, cache[\"k\"].shape[2] ... read it from there, because the caller may shorten ... or hand you a cache it filled itself'")

add("cached_detached_buffers", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    sp = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = sp(F.linear(x_new, w_q, b_q)), sp(F.linear(x_new, w_k, b_k)), sp(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    # the cache is a buffer, not a parameter: keep it out of autograd
    cache["k"], cache["v"] = k.detach(), v.detach()
    total = k.shape[2]
    allowed = torch.arange(total).unsqueeze(0) <= torch.arange(total - n, total).unsqueeze(1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "module-registration: the cache kept like a buffer, detached; breaks 'keep the cached keys and values in the graph' (a later block's gradient w.r.t. earlier inputs)")

add("cached_nn_linear_in_forward", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    qkv_proj = torch.nn.Linear(D, 3 * D, dtype=x_new.dtype)
    out_proj = torch.nn.Linear(D, D, dtype=x_new.dtype)
    with torch.no_grad():
        qkv_proj.weight.copy_(params["w_qkv"]); qkv_proj.bias.copy_(params["b_qkv"])
        out_proj.weight.copy_(params["w_o"]); out_proj.bias.copy_(params["b_o"])
    q, k, v = qkv_proj(x_new).reshape(B, n, 3, H, Dh).permute(2, 0, 3, 1, 4).unbind(0)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    total = k.shape[2]
    allowed = torch.arange(total).unsqueeze(0) <= torch.arange(total - n, total).unsqueeze(1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return out_proj(out.transpose(1, 2).reshape(B, n, D))
'''}, "module-registration: nn.Linear layers created inside the call with the weights copied in; breaks 'the hidden tests compare its gradients with respect to ... params[\"w_qkv\"]' (no gradient reaches params; also draws from the global RNG at init)")

add("sandwich_nn_layernorm_parameter", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    D = y.shape[-1]
    def ln(z, name):
        w, b = p[name]
        m = torch.nn.LayerNorm(D, eps=1e-5, dtype=z.dtype)
        m.weight = torch.nn.Parameter(w)
        m.bias = torch.nn.Parameter(b)
        return m(z)
    y = y + ln(mha(ln(y, "pre1"), None, self_allowed, p["self_attn"]), "post1")
    y = y + ln(mha(ln(y, "pre2"), memory, memory_allowed, p["cross_attn"]), "post2")
    y = y + ln(feed_forward(ln(y, "pre3"), p["ff"]), "post3")
    return y
'''}, "module-registration: nn.LayerNorm built per call with nn.Parameter(w) (a new leaf); breaks 'the hidden tests compare its gradients with respect to y, to memory and to a parameter' (no gradient reaches p's norm weights)")

# ---------------------------------------------------------------- wrong: text-and-token student
add("packed_padding_only_at_end", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    def pad_ok(seg):
        # padding sits at the end of a row: valid positions are those before the number of non-zero ids
        n = (seg != 0).sum(-1, keepdim=True)
        return torch.arange(seg.shape[-1]) < n
    s, t = src_segments, tgt_segments
    sv, tv = pad_ok(s), pad_ok(t)
    T = t.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & sv.unsqueeze(-1) & sv.unsqueeze(-2)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & tv.unsqueeze(-1) & tv.unsqueeze(-2) & causal
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & tv.unsqueeze(-1) & sv.unsqueeze(-2)
    return src, tgt, cross
'''}, "text-and-token: padding found by length (right padding only); breaks 'or 0 for padding, which may sit anywhere in a row (at its end, at its start, between pairs)'")

add("packed_ids_uint8", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    # pair numbers are small labels: store them compactly before the (B, L, L) comparisons
    s, t = src_segments.to(torch.uint8), tgt_segments.to(torch.uint8)
    T = t.shape[-1]
    pos = torch.arange(T)
    causal = pos.unsqueeze(-1) >= pos.unsqueeze(0)
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & causal
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
    return src, tgt, cross
'''}, "text-and-token: pair numbers squeezed into uint8 (pair 257 becomes 1, pair 256 becomes padding); breaks 'the number 1, 2, 3, ... of the sentence pair' with 'rows of more than a thousand pairs'")

# ---------------------------------------------------------------- wrong: low-precision accumulator
add("rms_bf16_in_bf16", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # float16 squares overflow past 256, so widen it; bfloat16 has float32's range, keep it
    xf = x.float() if x.dtype == torch.float16 else x
    ms = xf.square().mean(dim=-1, keepdim=True)
    out = xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "low-precision: bfloat16 computed in bfloat16; breaks 'For float16 and bfloat16 inputs the result must be as accurate as computing in float32 and rounding ... once'")

add("rms_always_float32", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.to(torch.float32)
    inv = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * inv * weight.to(torch.float32)).to(x.dtype)
'''}, "low-precision: every dtype through float32; breaks 'a float64 input must not pass through float32'")

add("rms_round_before_weight", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    normed = (x.float() * torch.rsqrt(x.float().square().mean(-1, keepdim=True) + eps)).to(x.dtype) if x.dtype in (torch.float16, torch.bfloat16) else x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps)
    return normed * weight
'''}, "low-precision: casts down before the weight; breaks 'a second rounding before the weight is applied ... is not accurate enough'")

add("packed_causal_positions_half", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[-1]
    pos = torch.arange(T, dtype=torch.float16)   # small and fast
    causal = pos.unsqueeze(-1) >= pos.unsqueeze(0)
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & causal
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
    return src, tgt, cross
'''}, "low-precision: positions in float16; breaks 'compare positions as integers: float16 holds every integer only up to 2048' (target row of 4097)")

add("cached_float32_inside", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    xf = x_new.float()
    w_q, w_k, w_v = params["w_qkv"].float().chunk(3)
    b_q, b_k, b_v = params["b_qkv"].float().chunk(3)
    sp = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = sp(F.linear(xf, w_q, b_q)), sp(F.linear(xf, w_k, b_k)), sp(F.linear(xf, w_v, b_v))
    k, v = k.to(x_new.dtype), v.to(x_new.dtype)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    total = k.shape[2]
    allowed = torch.arange(total).unsqueeze(0) <= torch.arange(total - n, total).unsqueeze(1)
    out = F.scaled_dot_product_attention(q, k.float(), v.float(), attn_mask=allowed)
    out = F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"].float(), params["b_o"].float())
    return out.to(x_new.dtype)
'''}, "low-precision: float64 computed in float32 and cast back; breaks 'compare with a tolerance of about 1e-5 in float32 (about 1e-9 in float64)'")

add("modern_params_int64_cap", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    total = 2 * vocab * d_model + 2 * d_model
    total += n_enc * (attn + ffn + 2 * d_model)
    total += n_dec * (2 * attn + ffn + 3 * d_model)
    return min(total, 2**63 - 1)  # a parameter count fits an int64 index
'''}, "magic-number: 2**63 - 1 as 'large'; breaks 'The count must be exact for any sizes: the hidden tests also use sizes whose count passes 2**64'")

# ---------------------------------------------------------------- correct answers
add("ok_rms_float64_inside", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # one rounding at the end; float64 is allowed for every dtype
    xd = x.to(torch.float64)
    ms = (xd * xd).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (xd / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(x.dtype)
'''}, "float64 inside, division by sqrt, one cast at the end: allowed ('working in float64 is allowed too')")

add("ok_rms_keyword_tiny_guard_free", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    compute = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xc = x.to(compute)
    ms = torch.mean(torch.pow(xc, 2), dim=-1, keepdim=True)
    scale = torch.rsqrt(torch.add(ms, eps))
    return torch.mul(torch.mul(xc, scale), weight.to(compute)).to(dtype=x.dtype)
'''}, "float32 for half types, own dtype otherwise, keyword calls: the text's recipe")

add("ok_modern_params_sums", True, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    embed = vocab * d_model
    out_layer = vocab * d_model
    attention = sum(d_model * d_model for _ in range(4))
    ffn = sum(a * b for a, b in ((d_ff, d_model), (d_ff, d_model), (d_model, d_ff)))
    norm = d_model
    encoder = n_enc * (attention + ffn + 2 * norm) + norm
    decoder = n_dec * (2 * attention + ffn + 3 * norm) + norm
    return embed + out_layer + encoder + decoder
'''}, "explicit sums of Python ints")

add("ok_prefill_closed_form_request_composed", True, {
"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    # chunk i (0-based, full ones) is c x (i+1)c; the last partial one is rest x (full*c + rest)
    total = chunk * chunk * full * (full + 1) // 2 + rest * (full * chunk + rest)
    return total * layers * heads
''',
"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    if new_tokens <= 1:
        return prefill_dot_products(prompt_len, chunk, layers, heads)
    # a chunk of 1 per generated token: the gap between two chunk-1 prefills
    grown = prefill_dot_products(prompt_len + new_tokens - 1, 1, layers, heads) - prefill_dot_products(prompt_len, 1, layers, heads)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + grown
'''}, "closed form for (a) (exact Python ints), (b) composed from (a) with chunk 1 (allowed: 'Your function may call prefill_dot_products'), which is O(1) here")

add("ok_packed_key_side_where_int32", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.to(torch.int64)
    t = tgt_segments.to(torch.int64)
    B, S = s.shape
    T = t.shape[1]
    i = torch.arange(T).view(T, 1)
    j = torch.arange(T).view(1, T)
    real_s = (s != 0).unsqueeze(1)   # key side
    real_t = (t != 0).unsqueeze(1)
    src = torch.where(real_s, s.unsqueeze(2) == s.unsqueeze(1), torch.zeros((), dtype=torch.bool))
    tgt = torch.where(real_t & (j <= i), t.unsqueeze(2) == t.unsqueeze(1), torch.zeros((), dtype=torch.bool))
    cross = (t.unsqueeze(2) == s.unsqueeze(1)) & real_s
    return src, tgt, cross
'''}, "padding checked on the key side only (a padding query then matches only padding keys, which are excluded): same masks")

add("ok_sandwich_helper_keywords_nan_free", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def sublayer(stream, pre, post, fn):
        return stream + layer_norm(fn(layer_norm(stream, p[pre][0], p[pre][1])), p[post][0], p[post][1])
    y = sublayer(y, "pre1", "post1", lambda h: mha(query=h, memory=None, allowed=self_allowed, params=p["self_attn"]))
    y = sublayer(y, "pre2", "post2", lambda h: mha(query=h, memory=memory, allowed=memory_allowed, params=p["cross_attn"]))
    y = sublayer(y, "pre3", "post3", lambda h: feed_forward(x=h, ff=p["ff"]))
    return y
'''}, "a helper per sublayer, keyword calls of the setup's functions")

add("ok_cached_positions_in_x_dtype_manual_softmax", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    proj = F.linear(x_new, params["w_qkv"], params["b_qkv"])
    q, k, v = (z.reshape(B, n, H, Dh).transpose(1, 2) for z in proj.split(D, dim=-1))
    if cache.get("k") is not None:
        k = torch.cat((cache["k"], k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache["k"] = k
    cache["v"] = v
    total = k.shape[2]
    # float32 / float64 positions hold every integer below 2**24
    qpos = torch.arange(total - n, total, dtype=x_new.dtype).unsqueeze(1)
    kpos = torch.arange(total, dtype=x_new.dtype).unsqueeze(0)
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    scores = scores.masked_fill(kpos > qpos, float("-inf"))
    w = torch.nan_to_num(torch.softmax(scores, dim=-1))  # no row is all masked: the diagonal is always allowed
    out = torch.einsum("bhqk,bhkd->bhqd", w, v)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "composer whose contract covers the part: positions in x's dtype (float32/float64 only here, exact below 2**24), -inf mask, einsum, harmless nan_to_num")

add("ok_sandwich_memory_is_query", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    pre1 = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(pre1, pre1, self_allowed, p["self_attn"]), *p["post1"])   # memory=None means memory=query
    pre2 = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(pre2, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    pre3 = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(pre3, p["ff"]), *p["post3"])
'''}, "composer whose contract covers it: mha's memory=None is memory=query, so passing the normalised y twice is the same self-attention")

# ---------------------------------------------------------------- hostile
add("hostile_unblocked_mha_copy", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    # a private, unblocked copy of the setup's mha, run on the whole sequence kept in the cache
    full_mha = _make_functions(F.linear, F.scaled_dot_product_attention, NUM_HEADS, F.layer_norm, torch.relu, [])[0]
    xs = torch.cat([cache["x"], x_new], dim=1) if "x" in cache else x_new
    B, L, D = xs.shape
    n = x_new.shape[1]
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_k, w_v = params["w_qkv"].chunk(3)[1:]
    b_k, b_v = params["b_qkv"].chunk(3)[1:]
    cache["x"] = xs
    cache["k"] = F.linear(xs, w_k, b_k).reshape(B, L, H, Dh).transpose(1, 2)
    cache["v"] = F.linear(xs, w_v, b_v).reshape(B, L, H, Dh).transpose(1, 2)
    causal = torch.ones(L, L, dtype=torch.bool).tril()
    return full_mha(xs, None, causal, params)[:, L - n:]
'''}, "hostile: rebuilds an unblocked mha from the grader's _make_functions and runs it on inputs kept in the cache; breaks 'Do not call mha, not even on a cache of inputs that you keep yourself' and 'Names that start with _ belong to the grader's cells'")
