# Red-team round 33, chapter 05 (blind). Five kinds: global-statistics, sign-convention, late-binding,
# equality, side-effect students.

RMS = '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''
MODERN = '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''
PREFILL = '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total, s = 0, 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return total * layers * heads
'''
REQUEST = '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for pos in range(prompt_len, prompt_len + new_tokens - 1):
        total += (pos + 1) * layers * heads
    return total
'''
PACKED = '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long()
    t = tgt_segments.long()
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    pos = torch.arange(t.shape[1], device=t.device)
    causal = pos[None, :] <= pos[:, None]
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src, tgt, cross
'''
SANDWICH = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    h = h + layer_norm(mha(layer_norm(h, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = h + layer_norm(feed_forward(layer_norm(h, *p["pre3"]), p["ff"]), *p["post3"])
    return h
'''
CACHED = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    def split(t):
        return t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k = split(F.linear(x_new, w_k, b_k))
    v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    i = torch.arange(n, device=x_new.device)[:, None] + past
    j = torch.arange(past + n, device=x_new.device)[None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=j <= i)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''
BASELINE = {"rms_norm": RMS, "modern_params": MODERN, "cache_count_without": PREFILL, "cache_count_with": REQUEST,
            "packed_masks": PACKED, "sandwich": SANDWICH, "cached_attention": CACHED}

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong: global-statistics student
add("glob_rms_whole_tensor_ms", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    ms = xf.pow(2).mean()          # mean square of the whole tensor
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "Part 1: 'each vector along the last axis is divided by its root mean square': one mean square for the whole "
      "tensor (the visible case has one row).")

add("glob_rms_half_global_prescale", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        # keep the squares inside float16's range: divide everything by the largest entry first
        scale = x.abs().max().clamp(min=1)
        xs = x / scale
        ms = (xs * xs).mean(dim=-1, keepdim=True)
        return xs * torch.rsqrt(ms + eps / (scale * scale)) * weight
    ms = x.pow(2).mean(dim=-1, keepdim=True)
    return x * torch.rsqrt(ms + eps) * weight
'''}, "Part 1: 'Arithmetic in float16 or bfloat16 (squares, the mean, the weight) ... is not accurate enough'; one "
      "scale taken from the whole tensor pushes rows of small entries (about 1e-3) into float16's subnormals.")

add("glob_cached_softmax_global_max", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = F.linear(x_new, w_q, b_q).reshape(B, n, H, Dh).transpose(1, 2)
    k = F.linear(x_new, w_k, b_k).reshape(B, n, H, Dh).transpose(1, 2)
    v = F.linear(x_new, w_v, b_v).reshape(B, n, H, Dh).transpose(1, 2)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    i = torch.arange(n)[:, None] + past
    j = torch.arange(past + n)[None, :]
    scores = scores.masked_fill(j > i, float("-inf"))
    e = torch.exp(scores - scores.max())          # subtract the maximum for stability
    w = e / e.sum(dim=-1, keepdim=True)
    out = w @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Part 6: scores 'of any size' and 'scores in the thousands ... no gradient may be NaN': the maximum of the whole "
      "tensor, not each row's, underflows rows a thousand below another to 0/0.")

add("glob_cached_max_before_mask", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = F.linear(x_new, w_q, b_q).reshape(B, n, H, Dh).transpose(1, 2)
    k = F.linear(x_new, w_k, b_k).reshape(B, n, H, Dh).transpose(1, 2)
    v = F.linear(x_new, w_v, b_v).reshape(B, n, H, Dh).transpose(1, 2)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    scores = scores - scores.amax(dim=-1, keepdim=True)   # stable: row max over all keys
    i = torch.arange(n)[:, None] + past
    j = torch.arange(past + n)[None, :]
    e = torch.exp(scores) * (j <= i)
    w = e / e.sum(dim=-1, keepdim=True)
    return F.linear((w @ v).transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Part 6: 'future positions that score about a thousand above every position a query may see (they must not change "
      "its result)': the row maximum taken over keys the query may not see underflows the visible ones.")

# ---------------------------------------------------------------- wrong: sign-convention student
add("sign_sandwich_memory_mask_is_padding", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    # memory_allowed is the encoder's padding mask (B, 1, S): True at padding, as key_padding_mask
    keep = None if memory_allowed is None else ~memory_allowed
    h = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    h = h + layer_norm(mha(layer_norm(h, *p["pre2"]), memory, keep, p["cross_attn"]), *p["post2"])
    h = h + layer_norm(feed_forward(layer_norm(h, *p["pre3"]), p["ff"]), *p["post3"])
    return h
'''}, "Part 5: 'pass both masks to mha as given' and 'Masks are boolean and True means may attend': inverts the "
      "memory mask as a padding mask (visible tests pass None).")

add("sign_cached_prepend_new_keys", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = F.linear(x_new, w_q, b_q).reshape(B, n, H, Dh).transpose(1, 2)
    k = F.linear(x_new, w_k, b_k).reshape(B, n, H, Dh).transpose(1, 2)
    v = F.linear(x_new, w_v, b_v).reshape(B, n, H, Dh).transpose(1, 2)
    past = cache["k"].shape[2] if "k" in cache else 0
    # newest keys first, as a stack: new block at the front, the cached positions after it
    new_allowed = torch.ones(n, n, dtype=torch.bool).tril()
    mask = torch.cat([new_allowed, torch.ones(n, past, dtype=torch.bool)], dim=1)
    if past:
        k = torch.cat([k, cache["k"]], dim=2)
        v = torch.cat([v, cache["v"]], dim=2)
    cache["k"], cache["v"] = k, v
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Part 6: cache['k'] must hold 'the keys and values of all positions so far ... shape (B, H, past + n, Dh)' in "
      "position order (the caller shortens it by dropping the last positions); this one stores the newest block first.")

add("sign_packed_tgt_causal_from_end", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long()
    t = tgt_segments.long()
    same_src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    same_tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    # causal inside each pair: count the key's offset within its pair from the pair's end
    T = t.shape[1]
    pos = torch.arange(T)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return same_src, same_tgt & causal, cross
'''}, "control: this is in fact correct (a causal table over row positions); kept as a correct answer by mistake? no: "
      "see the correct list") if False else None

# ---------------------------------------------------------------- wrong: late-binding student
add("late_sandwich_lambdas_in_loop", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    steps = []
    for pre, post, block in (("pre1", "post1", lambda h: mha(h, None, self_allowed, p["self_attn"])),
                             ("pre2", "post2", lambda h: mha(h, memory, memory_allowed, p["cross_attn"])),
                             ("pre3", "post3", lambda h: feed_forward(h, p["ff"]))):
        steps.append(lambda h: layer_norm(block(layer_norm(h, *p[pre])), *p[post]))
    for step in steps:
        y = y + step(y)
    return y
'''}, "Part 5: the three sublayers in this order; every lambda reads pre, post and block when called, so all three "
      "steps are the feed-forward one with pre3/post3 (position-wise: the visible causal and identity tests pass).")

add("late_cached_past_in_global_counter", False, {"cached_attention": '''
POSITIONS = {"past": 0}

def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    if not cache:
        POSITIONS["past"] = 0          # a new sequence starts
    past = POSITIONS["past"]
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = F.linear(x_new, w_q, b_q).reshape(B, n, H, Dh).transpose(1, 2)
    k = F.linear(x_new, w_k, b_k).reshape(B, n, H, Dh).transpose(1, 2)
    v = F.linear(x_new, w_v, b_v).reshape(B, n, H, Dh).transpose(1, 2)
    if cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    POSITIONS["past"] = past + n
    i = torch.arange(n)[:, None] + past
    j = torch.arange(k.shape[2])[None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=j <= i)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Part 6: 'cache ... the only state your function keeps (several sequences may be decoded side by side)' and "
      "'read [past] from there, because the caller may shorten cache[\"k\"]': a module-level position counter.")

add("late_cached_default_arg_weights", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache, split_weights={}):
    # split the stacked projection once per parameter dict and reuse it
    key = id(params)
    if key not in split_weights:
        split_weights[key] = (params["w_qkv"].chunk(3), params["b_qkv"].chunk(3), params["w_o"], params["b_o"])
    (w_q, w_k, w_v), (b_q, b_k, b_v), w_o, b_o = split_weights[key]
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    q = F.linear(x_new, w_q, b_q).reshape(B, n, H, Dh).transpose(1, 2)
    k = F.linear(x_new, w_k, b_k).reshape(B, n, H, Dh).transpose(1, 2)
    v = F.linear(x_new, w_v, b_v).reshape(B, n, H, Dh).transpose(1, 2)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    i = torch.arange(n)[:, None] + past
    j = torch.arange(past + n)[None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=j <= i)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), w_o, b_o)
'''}, "Intro: 'Nor may they keep anything from one call to the next keyed on a tensor: not by id()' and the stub's "
      "signature: a mutable default argument keyed on id(params) keeps the first dict's (views of) weights; a new dict "
      "at the same id, or entries replaced, reuse stale weights.")

add("late_rms_cast_cache_global", False, {"rms_norm": '''
WEIGHT32 = {}

def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    if low:
        # cast the weight to float32 once per weight tensor
        w = WEIGHT32.get(id(weight))
        if w is None:
            w = WEIGHT32[id(weight)] = weight.float()
        xf = x.float()
        ms = xf.pow(2).mean(dim=-1, keepdim=True)
        return (xf * torch.rsqrt(ms + eps) * w).to(x.dtype)
    ms = x.pow(2).mean(dim=-1, keepdim=True)
    return x * torch.rsqrt(ms + eps) * weight
'''}, "Intro: 'no contiguous or int64 copy of an input kept per id()': a float32 copy of the weight kept per id() is "
      "stale once the caller writes new values into the weight (and cuts the gradient to the weight).")

# ---------------------------------------------------------------- wrong: equality student
add("eq_rms_zero_row_where", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    out = xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)
    out = torch.where(ms == 0, torch.zeros_like(out), out)    # a row of zeros stays zero exactly
    return out.to(x.dtype)
'''}, "Part 1: 'They are compared at a row of zeros too, where ... its gradient with respect to x is weight / sqrt(eps): "
      "no shortcut for such rows'.")

add("eq_prefill_float_divisibility", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full = prompt_len // chunk
    # does chunk divide the prompt? then there is no short last chunk
    rest = 0 if prompt_len / chunk == full else prompt_len - full * chunk
    total = 0
    for c in range(full):
        total += chunk * (c * chunk + chunk)
    if rest:
        total += rest * (full * chunk + rest)
    return total * layers * heads
'''}, "Part 3: 'where a float (any /) ... no longer exact: work with Python integers, and use // where you divide': "
      "prompt_len / chunk rounds to an integer for huge prompts with a small remainder, which then is dropped.")

add("eq_sandwich_skip_all_hidden", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    if memory_allowed is None or memory_allowed.any():       # nothing to attend to: skip cross-attention
        h = h + layer_norm(mha(layer_norm(h, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = h + layer_norm(feed_forward(layer_norm(h, *p["pre3"]), p["ff"]), *p["post3"])
    return h
'''}, "Part 5: 'a mask may allow nothing at all ... mha gives zeros there too, and LN_post of them (that norm's bias) "
      "is still added, so skip no sublayer'.")

add("eq_request_isclose_ratio", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens > 1:
        first, last = prompt_len + 1, prompt_len + new_tokens - 1
        steps = new_tokens - 1
        total += int((first + last) * steps / 2) * layers * heads   # arithmetic series
    return total
'''}, "Part 3: 'The hidden tests use sizes whose counts pass 2**64 ... a float (any /) ... no longer exact'.")

# ---------------------------------------------------------------- wrong: side-effect student
add("side_sandwich_retuple_entries", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    # make sure every norm pair and the ffn weights are tuples of contiguous tensors
    for name in ("pre1", "post1", "pre2", "post2", "pre3", "post3", "ff"):
        p[name] = tuple(t.contiguous() for t in p[name])
    h = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    h = h + layer_norm(mha(layer_norm(h, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = h + layer_norm(feed_forward(layer_norm(h, *p["pre3"]), p["ff"]), *p["post3"])
    return h
'''}, "Part 5: 'Do not change p: add, replace or remove no entry ... after the call every entry is the very object it "
      "was': the tuples are replaced by new (equal) tuples.")

add("side_sandwich_requires_grad_params", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    # gradients must flow to the parameters
    for block in (p["self_attn"], p["cross_attn"]):
        for t in block.values():
            if not t.requires_grad:
                t.requires_grad_(True)
    h = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    h = h + layer_norm(mha(layer_norm(h, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = h + layer_norm(feed_forward(layer_norm(h, *p["pre3"]), p["ff"]), *p["post3"])
    return h
'''}, "Intro: 'Your functions must not change ... their requires_grad flag'.")

add("side_cached_params_split_stored", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    if "w_q" not in params:
        params["w_q"], params["w_k"], params["w_v"] = params["w_qkv"].chunk(3)
        params["b_q"], params["b_k"], params["b_v"] = params["b_qkv"].chunk(3)
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    q = F.linear(x_new, params["w_q"], params["b_q"]).reshape(B, n, H, Dh).transpose(1, 2)
    k = F.linear(x_new, params["w_k"], params["b_k"]).reshape(B, n, H, Dh).transpose(1, 2)
    v = F.linear(x_new, params["w_v"], params["b_v"]).reshape(B, n, H, Dh).transpose(1, 2)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    i = torch.arange(n)[:, None] + past
    j = torch.arange(past + n)[None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=j <= i)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Part 6: 'Do not change x_new or params (add, replace or remove no entry of params either)'.")

add("side_cached_past_from_own_key", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    past = cache.get("length", 0)
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = F.linear(x_new, w_q, b_q).reshape(B, n, H, Dh).transpose(1, 2)
    k = F.linear(x_new, w_k, b_k).reshape(B, n, H, Dh).transpose(1, 2)
    v = F.linear(x_new, w_v, b_v).reshape(B, n, H, Dh).transpose(1, 2)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"], cache["length"] = k, v, past + n
    i = torch.arange(n)[:, None] + past
    j = torch.arange(k.shape[2])[None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=j <= i)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Part 6: '`past` is the length of the cached keys, cache[\"k\"].shape[2] ... read it from there, because the caller "
      "may shorten cache[\"k\"] ... or hand you a cache it filled itself'.")

SUBMISSIONS = [s for s in SUBMISSIONS if s is not None]

# ---------------------------------------------------------------- correct
add("ok_rms_float64_inside", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.to(torch.float64)
    ms = (x64 * x64).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (x64 / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(x.dtype)
'''}, "Float64 inside and one rounding at the end; allowed ('working in float64 is allowed too').")

add("ok_modern_loop_layers", True, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    def attention():
        return 4 * d_model * d_model
    def gated_ffn():
        return 2 * d_ff * d_model + d_model * d_ff
    total = vocab * d_model            # shared embedding
    total += vocab * d_model           # output layer, its own matrix
    for _ in range(n_enc):
        total += attention() + gated_ffn() + 2 * d_model
    for _ in range(n_dec):
        total += 2 * attention() + gated_ffn() + 3 * d_model
    return total + 2 * d_model
'''}, "Python ints, a loop over layers.")

add("ok_counts_closed_form_keywords", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    # full chunks: sum over c of chunk * (c + 1) * chunk
    total = chunk * chunk * full * (full + 1) // 2
    total += rest * (prompt_len)
    return total * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    steps = max(new_tokens - 1, 0)
    # step i (1..steps) feeds position prompt_len + i - 1, which meets prompt_len + i keys
    total += (steps * prompt_len + steps * (steps + 1) // 2) * layers * heads
    return total
'''}, "Closed forms with // and divmod; (b) calls (a) by keyword.")

add("ok_packed_where_and_tril", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    s_q, s_k = src_segments.unsqueeze(2), src_segments.unsqueeze(1)
    t_q, t_k = tgt_segments.unsqueeze(2), tgt_segments.unsqueeze(1)
    real_s = s_q != 0
    real_t = t_q != 0
    src_allowed = torch.where(real_s, s_q == s_k, torch.zeros((), dtype=torch.bool))
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt_allowed = torch.where(real_t, t_q == t_k, torch.zeros((), dtype=torch.bool)) & causal
    cross_allowed = torch.where(real_t, t_q.long() == s_k.long(), torch.zeros((), dtype=torch.bool))
    return (src_allowed, tgt_allowed, cross_allowed)
'''}, "torch.where, a tril made per call.")

add("ok_sandwich_bound_lambdas_copy_dict", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    params = dict(p)      # a local copy: the caller's dict is left alone
    blocks = (("pre1", "post1", lambda h: mha(h, None, self_allowed, params["self_attn"])),
              ("pre2", "post2", lambda h: mha(h, memory, memory_allowed, params["cross_attn"])),
              ("pre3", "post3", lambda h: feed_forward(h, params["ff"])))
    steps = [lambda h, pre=pre, post=post, block=block: layer_norm(block(layer_norm(h, *params[pre])), *params[post])
             for pre, post, block in blocks]
    for step in steps:
        y = y + step(y)
    return y
'''}, "Lambdas bound with default arguments (late binding done right) and a local shallow copy of p.")

add("ok_cached_own_softmax_extra_key", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = (x_new @ w_q.T + b_q).reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    k = (x_new @ w_k.T + b_k).reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    v = (x_new @ w_v.T + b_v).reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"] = k
    cache["v"] = v
    cache["calls"] = cache.get("calls", 0) + 1     # bookkeeping only, never read for positions
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    qpos = torch.arange(past, past + n).unsqueeze(1)
    kpos = torch.arange(past + n).unsqueeze(0)
    scores = scores.masked_fill(kpos > qpos, float("-inf"))
    scores = scores - scores.amax(dim=-1, keepdim=True)
    w = scores.exp()
    w = w / w.sum(dim=-1, keepdim=True)
    out = torch.einsum("bhqk,bhkd->bhqd", w, v)
    return out.permute(0, 2, 1, 3).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
'''}, "Own softmax with each row's max after a -inf mask; adds a bookkeeping key to the cache (the text makes the "
      "cache the function's to update and only fixes 'k' and 'v').")

add("ok_cached_sdpa_float_mask", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])          # (B, n, 3D)
    q, k, v = qkv.split(D, dim=-1)
    q, k, v = [t.reshape(B, n, H, Dh).transpose(1, 2) for t in (q, k, v)]
    old_k = cache.get("k")
    if old_k is not None:
        k = torch.cat((old_k, k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache.update(k=k, v=v)
    S = k.shape[2]
    allowed = torch.arange(S)[None, :] <= torch.arange(S - n, S)[:, None]
    bias = torch.zeros(n, S, dtype=q.dtype).masked_fill(~allowed, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "One stacked projection split afterwards, a float -inf mask in the queries' dtype, cache.update.")


# ---------------------------------------------------------------- added: parts with no entry yet
add("eq_packed_positions_half", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long()
    t = tgt_segments.long()
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    pos = torch.arange(t.shape[1], dtype=torch.float16)      # small positions: half precision is enough
    causal = pos[None, :] <= pos[:, None]
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src, tgt, cross
'''}, "Part 4: 'compare positions as integers: float16 holds every integer only up to 2048' (a target row of 4097 "
      "positions): position 2049 rounds to 2048 and is seen by query 2048.")

add("late_modern_lambdas_in_loop", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    size = {}
    for name, count in (("attn", 4 * d_model * d_model), ("ffn", 3 * d_model * d_ff), ("norm", d_model)):
        size[name] = lambda: count
    enc = size["attn"]() + size["ffn"]() + 2 * size["norm"]()
    dec = 2 * size["attn"]() + size["ffn"]() + 3 * size["norm"]()
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * size["norm"]()
'''}, "Part 2: the count of attention blocks and gated FFNs: every lambda returns the last count (d_model); the visible "
      "case has no layers.")

# ---------------------------------------------------------------- hostile
add("hostile_int_subclass_equal_to_all", False, {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(0)
'''}, "hostile: an int subclass equal to everything.")
