# Red team round 25, chapter 05 (blind). Kinds: notebook-state (NS), approximator (AP), log-space (LS),
# direction-and-order (DO). Every answer keeps the stubs' signatures.

BASE = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    wf = weight.to(xf.dtype)
    ms = (xf * xf).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps) * wf).to(x.dtype)
''',
"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc = n_enc * (attn + ffn + 2 * d_model)
    dec = n_dec * (2 * attn + ffn + 3 * d_model)
    return 2 * vocab * d_model + enc + dec + 2 * d_model
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
    for i in range(1, new_tokens):
        total += (prompt_len + i) * layers * heads
    return total
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    sq, tq = (s != 0).unsqueeze(-1), (t != 0).unsqueeze(-1)
    src_allowed = (s.unsqueeze(-1) == s.unsqueeze(-2)) & sq
    pos = torch.arange(T, device=t.device)
    causal = pos.unsqueeze(0) <= pos.unsqueeze(1)
    tgt_allowed = (t.unsqueeze(-1) == t.unsqueeze(-2)) & tq & causal
    cross_allowed = (t.unsqueeze(-1) == s.unsqueeze(-2)) & tq
    return src_allowed, tgt_allowed, cross_allowed
''',
"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    y = y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
    return y
''',
"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    qpos = torch.arange(past, past + n, device=x_new.device).unsqueeze(-1)
    kpos = torch.arange(past + n, device=x_new.device)
    allowed = kpos <= qpos
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
''',
}

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- wrong answers
add("w01-AP-rms-eps-outside-sqrt", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = xf.pow(2).mean(-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "AP: eps added to the root, not to the mean square: breaks 'with eps ... added to the mean square inside the "
      "square root' (values ~1e-3 whose mean square is about eps; gradient at a zero row is w/eps, not w/sqrt(eps)).")

add("w02-AP-rms-round-before-weight", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # square in float32 so float16 does not overflow, then back to the input dtype
    ms = x.float().pow(2).mean(-1, keepdim=True)
    normed = (x.float() * torch.rsqrt(ms + eps)).to(x.dtype)
    return normed * weight
'''}, "AP: a float16/bfloat16 step (rounded before the weight, weight applied in half): breaks 'as accurate as "
      "computing in float32 and rounding ... once, at the end' (also sends float64 through float32).")

add("w03-LS-rms-logsumexp-meansquare", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # mean square in log space so that squares of large float16 values never overflow
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    log_ms = torch.logsumexp(2 * torch.log(xf.abs()), dim=-1, keepdim=True) - math.log(xf.shape[-1])
    return (xf / torch.sqrt(torch.exp(log_ms) + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "LS: log|x| is -inf at zeros: the value survives but the gradient at a zero entry / zero row is NaN: breaks "
      "'compared at a row of zeros too ... its gradient with respect to x is weight / sqrt(eps)'.")

add("w04-AP-params-fsum", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    terms = [2 * vocab * d_model,                              # shared embedding + own output matrix
             n_enc * (4 * d_model ** 2 + 3 * d_model * d_ff + 2 * d_model),
             n_dec * (8 * d_model ** 2 + 3 * d_model * d_ff + 3 * d_model),
             2 * d_model]
    return int(math.fsum(terms))  # fsum: an exactly rounded sum
'''}, "AP: math.fsum returns a float: breaks 'the count must be exact for any sizes ... past 2**53, where a float ... "
      "no longer exact, so count with Python integers'.")

add("w05-AP-prefill-closed-form-float", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    # causal triangle + the hidden upper triangle inside every chunk
    full, rest = divmod(prompt_len, chunk)
    total = prompt_len * (prompt_len + 1) / 2 + full * chunk * (chunk - 1) / 2 + rest * (rest - 1) / 2
    return int(total) * layers * heads
'''}, "AP: '/' makes floats: breaks 'counts pass 2**64 ... where a float (any /) ... no longer exact: ... use //'.")

add("w06-NS-request-chunk-of-example", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    prefill = prefill_dot_products(prompt_len, 2, layers, heads)   # as in the example above
    steps = sum(prompt_len + i for i in range(1, new_tokens))
    return prefill + steps * layers * heads
'''}, "NS: calls (a) with the visible example's chunk 2: breaks 'the chunked prefill of (a)' for the given chunk.")

add("w07-NS-masks-tril-table", False, {"packed_masks": '''
CAUSAL_TABLE = torch.ones(2048, 2048, dtype=torch.bool).tril()   # built once, sliced per call

def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    same_src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    same_tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None]
    tgt_allowed = same_tgt & CAUSAL_TABLE[:T, :T]
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    return same_src, tgt_allowed, cross
'''}, "NS: a table built once for the sizes the student expected: breaks 'rows ... of more than a thousand pairs, and "
      "pairs of more than two thousand positions' (T > 2048 raises).")

add("w08-AP-masks-half-positions", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    pos = torch.arange(T, dtype=torch.float16)           # half is plenty for positions
    causal = pos[None, :] <= pos[:, None]
    same = lambda a, b: a[:, :, None] == b[:, None, :]
    return (same(s, s) & (s != 0)[:, :, None], same(t, t) & (t != 0)[:, :, None] & causal,
            same(t, s) & (t != 0)[:, :, None])
'''}, "AP: positions in float16: breaks 'compare positions as integers: float16 holds every integer only up to 2048'.")

add("w09-NS-sandwich-global-p", False, {"sandwich": '''
def sub_ln(x, name):
    w, b = p[name]
    return layer_norm(x, w, b)

def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + sub_ln(mha(sub_ln(y, "pre1"), None, self_allowed, p["self_attn"]), "post1")
    y = y + sub_ln(mha(sub_ln(y, "pre2"), memory, memory_allowed, p["cross_attn"]), "post2")
    y = y + sub_ln(feed_forward(sub_ln(y, "pre3"), p["ff"]), "post3")
    return y
'''}, "NS: the helper reads the notebook's global p (the visible test's), not the argument: breaks 'LN_name is "
      "layer_norm with p[name]' for any other parameters.")

add("w10-DO-sandwich-ffn-before-cross", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def block(x, pre, post, f):
        return x + layer_norm(f(layer_norm(x, *p[pre])), *p[post])
    y = block(y, "pre1", "post1", lambda h: mha(h, None, self_allowed, p["self_attn"]))
    y = block(y, "pre3", "post3", lambda h: feed_forward(h, p["ff"]))
    y = block(y, "pre2", "post2", lambda h: mha(h, memory, memory_allowed, p["cross_attn"]))
    return y
'''}, "DO: FFN sublayer before cross-attention: breaks 'computing, in this order' (self, cross, FFN).")

add("w11-AP-sandwich-eps-1e-6", False, {"sandwich": '''
def ln(x, wb):
    w, b = wb
    return F.layer_norm(x, x.shape[-1:], w, b, eps=1e-6)   # same eps as the RMSNorm of Part 1

def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + ln(mha(ln(y, p["pre1"]), None, self_allowed, p["self_attn"]), p["post1"])
    y = y + ln(mha(ln(y, p["pre2"]), memory, memory_allowed, p["cross_attn"]), p["post2"])
    y = y + ln(feed_forward(ln(y, p["pre3"]), p["ff"]), p["post3"])
    return y
'''}, "AP: LayerNorm with eps 1e-6: breaks 'LN_name is layer_norm with p[name]' (the lesson's LayerNorm, eps 1e-5).")

add("w12-NS-cache-global-position", False, {"cached_attention": '''
STATE = {"past": 0}

def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    if not cache:
        STATE["past"] = 0
    past = STATE["past"]
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = heads(x_new @ w_q.T + b_q), heads(x_new @ w_k.T + b_k), heads(x_new @ w_v.T + b_v)
    if cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    STATE["past"] = past + n
    mask = torch.arange(k.shape[2])[None, :] <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return out.transpose(1, 2).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
'''}, "NS: past kept in a notebook global: breaks 'past is the length of the cached keys, cache[\"k\"].shape[2] ... "
      "read it from there, because the caller may shorten' (and several caches side by side).")

add("w13-LS-cache-max-before-mask", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = heads(x_new @ w_q.T + b_q), heads(x_new @ w_k.T + b_k), heads(x_new @ w_v.T + b_v)
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    s = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    s = s - s.amax(dim=-1, keepdim=True)                  # stable softmax: shift by the row max
    allowed = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    w = torch.exp(s) * allowed
    w = w / w.sum(-1, keepdim=True)
    return (w @ v).transpose(1, 2).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
'''}, "LS: shifts by the max over all keys, the hidden future ones too: with future scores ~1000 above, every visible "
      "weight underflows, 0/0: breaks 'future positions that score about a thousand above ... must not change its result'.")

add("w14-DO-cache-newest-first", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    # newest keys first, like a stack: the latest block is always at index 0
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = heads(F.linear(x_new, w_q, b_q)), heads(F.linear(x_new, w_k, b_k)), heads(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([k, cache["k"]], 2), torch.cat([v, cache["v"]], 2)
    cache["k"], cache["v"] = k, v
    kpos = torch.cat([torch.arange(past, past + n), torch.arange(past)])
    allowed = kpos[None, :] <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "DO: cache appended at the front (positions out of order; output right on one sequence): breaks 'cache[\"k\"] ... "
      "hold the keys and values of all positions so far' in position order, and shortened caches drop the wrong keys.")

add("w15-AP-cache-minus-1e9", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = heads(F.linear(x_new, w_q, b_q)), heads(F.linear(x_new, w_k, b_k)), heads(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    future = torch.arange(past + n)[None, :] > torch.arange(past, past + n)[:, None]
    scores = scores.masked_fill(future, -1e9)
    out = torch.softmax(scores, dim=-1) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "AP: -1e9 where -inf is meant: breaks 'Scores may be of any size, down to torch.finfo(dtype).min ... mask with -inf'.")

add("w16-DO-cache-bottom-left-diag", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = heads(F.linear(x_new, w_q, b_q)), heads(F.linear(x_new, w_k, b_k)), heads(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    # align the causal triangle with the bottom-right corner: diagonal S - n
    allowed = torch.ones(n, S, dtype=torch.bool).tril(diagonal=S - n)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "correct? bottom-right alignment with S = past + n is exactly the text's causality (position past+i sees keys <= "
      "past+i); listed as a DO probe, labelled correct below.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "c-DO-cache-tril-diagonal"
SUBMISSIONS[-1]["why"] = "DO student done right: tril(diagonal=S - n) aligns the triangle bottom-right, the text's rule."

# ---------------------------------------------------------------- correct answers
add("c01-NS-rms-default-from-global-rsqrt", True, {"rms_norm": '''
EPS = 1e-6

def rms_norm(x, weight, eps=EPS):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    inv = torch.rsqrt(xf.square().mean(dim=-1, keepdim=True) + eps)
    return (xf * inv * weight.to(work)).to(x.dtype)
'''}, "default bound from a global of the same value 1e-6; rsqrt in float32 for half inputs is allowed.")

add("c02-F-rms-norm-float64", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # float64 inside is allowed; F.rms_norm puts eps inside the root
    out = F.rms_norm(x.double(), (x.shape[-1],), weight.double(), eps)
    return out.to(x.dtype)
'''}, "float64 inside and a cast back, the library function with eps inside the square root.")

add("c03-LS-rms-via-exp-log", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.double()
    ms = xf.pow(2).mean(-1, keepdim=True)
    inv = torch.exp(-0.5 * torch.log(ms + eps))     # (ms + eps) ** -0.5; ms + eps > 0 so log is safe
    return (xf * inv * weight.double()).to(x.dtype)
'''}, "log-space student done right: ms + eps >= eps > 0, so log is finite; float64 inside.")

add("c04-params-itemised", True, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    attention = 4 * d * d
    swiglu = d_ff * d + d_ff * d + d * d_ff
    rms = d
    encoder_layer = attention + swiglu + 2 * rms
    decoder_layer = 2 * attention + swiglu + 3 * rms
    count = vocab * d + vocab * d            # shared embedding, separate output matrix
    count += n_enc * encoder_layer + n_dec * decoder_layer
    count += 2 * rms                          # one final norm per stack
    return int(count)
'''}, "Python integers throughout, itemised.")

add("c05-prefill-closed-form-int", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    # causal triangle plus the hidden strictly-upper triangle of every chunk
    total = prompt_len * (prompt_len + 1) // 2 + full * (chunk * (chunk - 1) // 2) + rest * (rest - 1) // 2
    return total * layers * heads
'''}, "closed form with // only (chunk order does not matter: each chunk adds m(m-1)/2 hidden pairs).")

add("c06-DO-prefill-remainder-first", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    # walk the chunks from the end of the prompt backwards
    total, end = 0, prompt_len
    while end > 0:
        start = max(0, ((end - 1) // chunk) * chunk)
        m = end - start
        total += m * end
        end = start
    return total * heads * layers
'''}, "walks chunks backwards; same chunks, same count.")

add("c07-request-series", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    per_head = prefill_dot_products(prompt_len, chunk, 1, 1)
    k = max(new_tokens - 1, 0)                    # steps that feed a token
    per_head += k * prompt_len + k * (k + 1) // 2  # step i meets prompt_len + i keys
    return per_head * layers * heads
'''}, "calls (a) with layers=heads=1 (allowed) and multiplies; arithmetic series with //.")

add("c08-masks-where-keyside", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    s = src_segments.long()
    t = tgt_segments.long()
    real_s, real_t = s.ne(0), t.ne(0)
    src = torch.where(real_s[:, None, :], s[:, :, None] == s[:, None, :], False)      # key side
    i = torch.arange(T).view(T, 1)
    j = torch.arange(T).view(1, T)
    tgt = torch.where(real_t[:, :, None] & (j <= i), t[:, :, None] == t[:, None, :], False)
    cross = torch.where(real_s[:, None, :], t[:, :, None] == s[:, None, :], False)
    return src.clone(), tgt.clone(), cross.clone()
'''}, "padding checked on the key side (same segment => query padding too); torch.where; int64 cast.")

add("c09-masks-loop-rows", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    src = torch.zeros(B, S, S, dtype=torch.bool)
    tgt = torch.zeros(B, T, T, dtype=torch.bool)
    cross = torch.zeros(B, T, S, dtype=torch.bool)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    for b in range(B):
        s, t = src_segments[b], tgt_segments[b]
        src[b] = (s[:, None] == s[None, :]) & (s[:, None] > 0)
        tgt[b] = (t[:, None] == t[None, :]) & (t[:, None] > 0) & causal
        cross[b] = (t[:, None] == s[None, :]) & (t[:, None] > 0)
    return (src, tgt, cross)
'''}, "a loop over rows, masks filled into new tensors.")

add("c10-sandwich-keywords-helper", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, name):
        weight, bias = p[name]
        return layer_norm(x, weight=weight, bias=bias)
    a = mha(query=ln(y, "pre1"), memory=None, allowed=self_allowed, params=p["self_attn"])
    y = y + ln(a, "post1")
    c = mha(query=ln(y, "pre2"), memory=memory, allowed=memory_allowed, params=p["cross_attn"])
    y = y + ln(c, "post2")
    f = feed_forward(x=ln(y, "pre3"), ff=p["ff"])
    return y + ln(f, "post3")
'''}, "helper closed over the argument p; keyword arguments.")

add("c11-LS-cache-log-mask", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])           # (B, n, 3D)
    q, k, v = (z.reshape(B, n, H, Dh).permute(0, 2, 1, 3) for z in qkv.split(D, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat((cache["k"], k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache["k"] = k
    cache["v"] = v
    allowed = torch.arange(past + n).unsqueeze(0) <= (past + torch.arange(n)).unsqueeze(1)
    logmask = torch.log(allowed.to(q.dtype))                           # 0 where allowed, -inf elsewhere
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh) + logmask
    weights = torch.exp(torch.log_softmax(scores, dim=-1))
    out = (weights @ v).permute(0, 2, 1, 3).reshape(B, n, D)
    return F.linear(out, params["w_o"], params["b_o"])
'''}, "log of a 0/1 mask in q's dtype is an exact 0/-inf additive mask; exp(log_softmax) is the softmax.")

add("c12-cache-einsum-float-where", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w = params["w_qkv"].reshape(3, H, Dh, D)
    b = params["b_qkv"].reshape(3, H, Dh)
    proj = torch.einsum("bnd,chkd->cbhnk", x_new, w) + b[:, None, :, None, :]
    q, k, v = proj[0], proj[1], proj[2]
    past = 0
    if cache.get("k") is not None:
        past = cache["k"].shape[2]
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache.update(k=k, v=v)
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * (1.0 / math.sqrt(Dh))
    hidden = torch.arange(past + n)[None, :] > torch.arange(past, past + n)[:, None]
    scores = torch.where(hidden, float("-inf"), scores)
    out = torch.einsum("bhqk,bhkd->bqhd", torch.softmax(scores, -1), v).reshape(B, n, D)
    return out @ params["w_o"].T + params["b_o"]
'''}, "einsum everywhere, torch.where with -inf, cache.update.")

# ---------------------------------------------------------------- hostile
add("h01-int-subclass-equal-to-everything", False, {"cache_count_without": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def prefill_dot_products(prompt_len, chunk, layers, heads):
    return Count(0)
'''}, "hostile: an int subclass whose == is always True.")

add("h02-sandwich-patches-assert-close", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    import torch.testing
    torch.testing.assert_close = lambda *a, **k: None
    return y.clone()
'''}, "hostile: switches off torch.testing.assert_close and returns y.")

# ---------------------------------------------------------------- second batch (still blind)
add("w16-NS-cache-position-table-2p20", False, {"cached_attention": '''
POSITIONS = torch.arange(1 << 20)      # built once: a million positions is plenty for a decoder

def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = heads(F.linear(x_new, w_q, b_q)), heads(F.linear(x_new, w_k, b_k)), heads(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    allowed = POSITIONS[:past + n][None, :] <= POSITIONS[past:past + n][:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "NS: a position table built once for the sizes the student expected (2**20): breaks '`past + n` stays below 2^24' "
      "(a cache of more than 2**20 positions gets a short table and raises).")

add("w17-cache-past-from-len", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = heads(F.linear(x_new, w_q, b_q)), heads(F.linear(x_new, w_k, b_k)), heads(F.linear(x_new, w_v, b_v))
    past = len(cache.get("k", []))                     # how many positions are cached
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    allowed = torch.arange(k.shape[2])[None, :] <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "len() of the cached keys is the batch size, not past (equal in the visible test, B = past = 2): breaks 'past is "
      "the length of the cached keys, cache[\"k\"].shape[2]'.")

add("c13-NS-masks-growing-table", True, {"packed_masks": '''
TRIL = {"table": torch.ones(0, 0, dtype=torch.bool)}

def packed_masks(src_segments, tgt_segments):
    T = tgt_segments.shape[1]
    if TRIL["table"].shape[0] < T:                           # grow the kept table when a longer row comes
        TRIL["table"] = torch.ones(T, T, dtype=torch.bool).tril()
    causal = TRIL["table"][:T, :T]
    s, t = src_segments, tgt_segments
    src_allowed = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    cross_allowed = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "a kept table that grows with T and is never returned nor written: changes no result.")

add("c14-AP-rms-via-norm", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    rms2 = xf.norm(dim=-1, keepdim=True) ** 2 / xf.shape[-1]
    return (xf / (rms2 + eps).sqrt() * weight.to(work)).to(x.dtype)
'''}, "the mean square as the squared norm over D, in float32 for half inputs (within float32's rounding).")

add("c15-NS-cache-head-default", True, {"cached_attention": '''
def to_heads(z, heads=NUM_HEADS):
    B, L, D = z.shape
    return z.reshape(B, L, heads, D // heads).transpose(1, 2)

def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    q, k, v = (to_heads(F.linear(x_new, w, b)) for w, b in zip(params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)))
    past = 0
    if "k" in cache:
        past = cache["k"].shape[-2]
        k = torch.cat([cache["k"], k], dim=-2)
        v = torch.cat([cache["v"], v], dim=-2)
    cache["k"], cache["v"] = k, v
    S = past + n
    allowed = torch.ones(n, S, dtype=torch.bool).tril(diagonal=past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "a helper whose default heads=NUM_HEADS is bound at definition (the setup's constant, which the text fixes).")
