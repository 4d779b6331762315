OK = {}
OK["rms_norm"] = '''
def rms_norm(x, weight, eps=1e-6):
    dt = x.dtype
    xf = x.float() if dt in (torch.float16, torch.bfloat16) else x
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * r * weight.to(xf.dtype)).to(dt)
'''
OK["modern_params"] = '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''
OK["cache_count_without"] = '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total, s = 0, 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return total * layers * heads
'''
OK["cache_count_with"] = '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(max(new_tokens - 1, 0)):
        total += (prompt_len + j + 1) * layers * heads
    return total
'''
OK["packed_masks"] = '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    return src, tgt, cross
'''
OK["sandwich"] = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''
OK["cached_attention"] = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.unflatten(-1, (H, Dh)).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    mask = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).flatten(-2), params["w_o"], params["b_o"])
'''

CA_HEAD = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.unflatten(-1, (H, Dh)).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
'''
CA_TAIL_SDPA = '''
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).flatten(-2), params["w_o"], params["b_o"])
'''
CA_CACHE = '''
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
'''

S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- Part 1: rms_norm ----------------
add("p1-float64-through-float32", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * r * weight.float()).to(x.dtype)
'''}, "Always upcasts to float32 (the usual mixed-precision recipe). Breaks: 'a `float64` input must not pass through `float32`'.")
add("p1-second-rounding-before-weight", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    normed = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
    return normed * weight
'''}, "LLaMA's reference code: normalise in float32, cast back, then multiply by the weight in half. Breaks: 'or a second rounding before the weight is applied, is not accurate enough' (and float64 through float32).")
add("p1-eps-outside-sqrt", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = xf.pow(2).mean(-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "Adds eps to the root, not the mean square. Breaks: 'with `eps` ... added to the mean square inside the square root' (invisible with eps=1e-6 on the visible input).")
add("p1-eps-ignored", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
    return (xf * r * weight.to(xf.dtype)).to(x.dtype)
'''}, "Hard-codes the default eps. Breaks: 'with `eps` (given by position or by keyword) added to the mean square'.")
add("p1-mean-over-all-axes", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    r = torch.rsqrt(xf.pow(2).mean() + eps)
    return (xf * r * weight.to(xf.dtype)).to(x.dtype)
'''}, "Forgets dim=-1 in the mean (the visible exact case has one row). Breaks: 'each vector along the **last** axis is divided by its root mean square'.")
add("p1-detached-scale", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps).detach()
    return (xf * r * weight.to(xf.dtype)).to(x.dtype)
'''}, "Treats the scale as a constant. Breaks: 'Gradients must flow through the result ... do not compute any factor under no_grad(), .detach() it'.")
add("p1-inplace-on-input", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    if x.dtype == torch.float64:
        xf = x
    xf *= torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    xf *= weight.to(xf.dtype)
    return xf.to(x.dtype)
'''}, "In-place ops to save memory; for float32/float64 `.float()`/the alias is the input itself. Breaks: 'Your functions must not change the tensors they are given'.")
add("ok-p1-float64-inside", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd = x.to(torch.float64)
    ms = torch.einsum("...d,...d->...", xd, xd).unsqueeze(-1) / x.shape[-1]
    out = xd / torch.sqrt(ms + eps) * weight.to(torch.float64)
    return out.to(x.dtype)
'''}, "Computes every dtype in float64 with einsum and rounds once: 'working in float64 is allowed too'; for halves more accurate than float32.")
add("ok-p1-keyword-norm-inplace-own", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(dtype=work, copy=True)
    ms = torch.linalg.vector_norm(xf, ord=2, dim=-1, keepdim=True).pow(2) / xf.shape[-1]
    denom = ms.add(eps).sqrt()
    xf.div_(denom)
    xf.mul_(weight.to(work))
    return xf.to(dtype=x.dtype)
'''}, "vector_norm squared for the sum of squares, in-place ops on its own copy only.")

# ---------------- Part 2: modern_params ----------------
add("p2-decoder-two-norms", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 2 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''}, "Copies the encoder's two norms per layer. Breaks: 'An encoder layer has 2 of them, a decoder layer 3'.")
add("p2-ungated-ffn", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 2 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''}, "Counts the paper's two FFN matrices. Breaks: 'every feed-forward network is **gated** (SwiGLU) ... w_gate and w_up ... and w_down'.")
add("p2-int-subclass-lies", False, {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(0)
'''}, "HOSTILE: an int subclass whose == always answers True; passes isinstance. Breaks 'Return exact ... int ... (not subclasses)'.")
add("ok-p2-loop-over-shapes", True, {"modern_params": '''
import math as m2
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    shapes = [(vocab, d_model), (vocab, d_model), (d_model,), (d_model,)]
    for _ in range(n_enc):
        shapes += [(d_model, d_model)] * 4 + [(d_ff, d_model), (d_ff, d_model), (d_model, d_ff)] + [(d_model,)] * 2
    for _ in range(n_dec):
        shapes += [(d_model, d_model)] * 8 + [(d_ff, d_model), (d_ff, d_model), (d_model, d_ff)] + [(d_model,)] * 3
    return sum(m2.prod(s) for s in shapes)
'''}, "Lists every parameter's shape and sums the products.")

# ---------------- Part 3: prefill / request ----------------
add("p3a-closed-form-true-division", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    q, r = divmod(prompt_len, chunk)
    full = int(chunk * chunk * q * (q + 1) / 2)
    return (full + r * (q * chunk + r)) * layers * heads
'''}, "Closed form with / and int(). Breaks: 'where a float (any /) ... no longer exact: work with Python integers, and use // where you divide'.")
add("p3a-ceil-of-float-division", False, {"cache_count_without": '''
import math as mth
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n_chunks = mth.ceil(prompt_len / chunk)
    total = 0
    for i in range(n_chunks):
        s = i * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''}, "Number of chunks through math.ceil(P / c). Breaks: 'a float (any /) ... no longer exact' — at 2**62 the quotient is rounded and a chunk is lost or added.")
add("p3a-renamed-arguments", False, {"cache_count_without": '''
def prefill_dot_products(P, c, L, H):
    total, s = 0, 0
    while s < P:
        m = min(c, P - s)
        total += m * (s + m)
        s += m
    return total * L * H
'''}, "Short argument names. Breaks: 'The tests pass the arguments by position and by name, so keep the stubs' argument names'.")
add("p3b-decode-closed-form-float", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    decode = int(steps * (2 * prompt_len + steps + 1) / 2)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + decode * layers * heads
'''}, "Arithmetic series of the decode steps with /. Breaks: 'use // where you divide' (prompt 2**62).")
add("p3b-decode-tensor-sum", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = torch.arange(max(new_tokens - 1, 0)) + prompt_len + 1
    return prefill_dot_products(prompt_len, chunk, layers, heads) + int(steps.sum()) * layers * heads
'''}, "Sums the decode steps with an int64 tensor. Breaks: 'an int64 tensor [is] no longer exact' / 'not a tensor' (sizes past 2**64).")
add("ok-p3b-calls-prefill-keywords", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    per_head = prefill_dot_products(heads=1, layers=1, chunk=chunk, prompt_len=prompt_len)
    steps = max(new_tokens - 1, 0)
    per_head += steps * (prompt_len + 1) + steps * (steps - 1) // 2
    return per_head * layers * heads
'''}, "Calls Part 3a with every argument by keyword, in another order, for one layer and head ('Your function may call prefill_dot_products'), closed form with //.")
add("ok-p3b-calls-prefill-folded-heads", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    lh = layers * heads
    total = prefill_dot_products(prompt_len, chunk, lh, 1)
    keys = prompt_len + 1
    for _ in range(1, new_tokens):
        total += keys * lh
        keys += 1
    return total
'''}, "Calls Part 3a with layers*heads folded into `layers` and heads=1 (allowed: layers >= 1, heads >= 1).")
add("ok-p3a-closed-form-divmod", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    q, r = divmod(prompt_len, chunk)
    full = chunk * chunk * (q * (q + 1) // 2)
    return (full + r * (q * chunk + r)) * layers * heads
'''}, "Closed form with divmod and //, no loop.")
add("ok-p3b-prefill-under-no-grad", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    with torch.no_grad():
        pre = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    n = max(new_tokens - 1, 0)
    return pre + layers * heads * (n * prompt_len + n * (n + 1) // 2)
'''}, "Calls Part 3a by keyword inside a no_grad block (harmless), closed form for decode.")

# ---------------- Part 4: packed_masks ----------------
add("p4-target-padding-not-masked", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    T = t.shape[1]
    tgt = (t[:, :, None] == t[:, None, :]) & torch.ones(T, T, dtype=torch.bool).tril()
    cross = t[:, :, None] == s[:, None, :]
    return src, tgt, cross
'''}, "Masks padding only in the source (the visible target has none); target pad queries see target pad keys and source pad keys. Breaks: 'A padding query (segment 0) may attend to nothing: its row is all False' and 'padding belongs to no pair'.")
add("p4-pad-trick-mutates-input", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    qs, qt = s, t
    qs[qs == 0] = -1
    qt[qt == 0] = -1
    src = qs[:, :, None] == torch.where(s == -1, 0, s)[:, None, :]
    T = t.shape[1]
    tgt = (qt[:, :, None] == torch.where(t == -1, 0, t)[:, None, :]) & torch.ones(T, T, dtype=torch.bool).tril()
    cross = qt[:, :, None] == torch.where(s == -1, 0, s)[:, None, :]
    return src, tgt, cross
'''}, "Renumbers padding to -1 in place (forgot .clone()). Breaks: 'Your functions must not change the tensors they are given'.")
add("ok-p4-where-tril-bool", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.to(torch.int64)
    t = tgt_segments.to(torch.int64)
    def same(a, b):
        eq = a.unsqueeze(-1) == b.unsqueeze(-2)
        return torch.where(a.unsqueeze(-1) > 0, eq, torch.zeros((), dtype=torch.bool))
    tgt = same(t, t).tril()
    return same(s, s), tgt, same(t, s)
'''}, "torch.where against a 0-d False, .tril() directly on the bool (B,T,T) tensor.")

# ---------------- Part 5: sandwich ----------------
add("p5-normalises-memory", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    m = layer_norm(memory, *p["pre2"])
    y = y + layer_norm(mha(h, m, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''}, "Pre-normalises keys/values too. Breaks: 'keys and values from memory **as it is given** (the encoder has already normalised it; this layer does not)'.")
add("p5-ignores-memory-mask", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, None, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''}, "Cross-attention without a mask. Breaks: 'CrossAttn is mha with p[\"cross_attn\"] ... and mask memory_allowed'.")
add("p5-parallel-prenorms", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    a = layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    c = layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    f = layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y + a + c + f
'''}, "Parallel sublayers (GPT-J style) all reading the input y. Breaks: 'computing, in this order' (each line reads the updated y).")
add("ok-p5-keywords-list-ff", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, name):
        w, b = p[name]
        return layer_norm(x=x, weight=w, bias=b)
    out = y.clone()
    out = out + ln(mha(query=ln(out, "pre1"), memory=None, allowed=self_allowed, params=p["self_attn"]), "post1")
    out = out + ln(mha(query=ln(out, "pre2"), memory=memory, allowed=memory_allowed, params=p["cross_attn"]), "post2")
    out = out + ln(feed_forward(ln(out, "pre3"), list(p["ff"])), "post3")
    return out
'''}, "Every setup function called by keyword, ff passed as a list, starts from a clone of y.")

# ---------------- Part 6: cached_self_attention ----------------
add("p6-past-from-counter", False, {"cached_attention": CA_HEAD + '''
    past = cache.get("pos", 0)
    if past:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"], cache["pos"] = k, v, past + n
    mask = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
''' + CA_TAIL_SDPA}, "Keeps its own position counter. Breaks: '`past` is the length of the cached keys, cache[\"k\"].shape[2]: read it from there, because the caller may shorten ... or hand you a cache it filled itself'.")
add("p6-recompute-from-inputs", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    xs = torch.cat([cache["x"], x_new], dim=1) if "x" in cache else x_new
    cache["x"] = xs
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.unflatten(-1, (H, Dh)).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k, v = split(F.linear(xs, w_k, b_k)), split(F.linear(xs, w_v, b_v))
    cache["k"], cache["v"] = k, v
    past = xs.shape[1] - n
    mask = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
''' + CA_TAIL_SDPA}, "Caches the inputs and re-projects them. Breaks: 'The entries already in the cache are kept as they are (moved, not recomputed)' and the caller-shortened / caller-filled cache.")
add("p6-square-mask-sliced", False, {"cached_attention": CA_HEAD + CA_CACHE + '''
    L = past + n
    mask = torch.ones(L, L, dtype=torch.bool).tril()[past:]
''' + CA_TAIL_SDPA}, "Full causal square sliced to the block's rows. Breaks: 'build nothing much larger than the cache and the n × (past + n) scores (a (past + n) × (past + n) mask, even one sliced ... needs a terabyte)'.")
add("p6-float32-additive-mask", False, {"cached_attention": CA_HEAD + CA_CACHE + '''
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    mask = torch.zeros(n, past + n).masked_fill(~allowed, float("-inf"))
''' + CA_TAIL_SDPA}, "Additive mask in the default dtype. Breaks: 'The output and the cached keys and values keep the dtype of x_new; the tests use float32 and float64 inputs' (sdpa refuses a float32 mask with float64 queries).")
add("p6-max-over-all-then-mask", False, {"cached_attention": CA_HEAD + CA_CACHE + '''
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    s = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    e = torch.exp(s - s.amax(-1, keepdim=True)) * allowed
    w = e / e.sum(-1, keepdim=True)
    out = w @ v
    return F.linear(out.transpose(1, 2).flatten(-2), params["w_o"], params["b_o"])
'''}, "Softmax by hand: subtracts the row max over all keys then multiplies by the mask. Breaks: 'future positions that score about a thousand above every position a query may see (they must not change its result)' - the visible weights underflow to 0/0.")
add("p6-detached-cache", False, {"cached_attention": CA_HEAD + '''
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"].detach(), k], dim=2)
        v = torch.cat([cache["v"].detach(), v], dim=2)
    cache["k"], cache["v"] = k, v
    mask = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
''' + CA_TAIL_SDPA}, "Detaches the cache as inference code does. Breaks: 'the hidden tests compare its gradients with respect to ... the keys and values the caller put in the cache'.")
add("p6-hostile-patch-assert-close", False, {"cached_attention": '''
torch.testing.assert_close = lambda *a, **k: None
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    past = cache["k"].shape[2] if "k" in cache else 0
    z = torch.zeros(B, NUM_HEADS, past + n, D // NUM_HEADS, dtype=x_new.dtype)
    cache["k"], cache["v"] = z, z.clone()
    return torch.zeros_like(x_new)
'''}, "HOSTILE: monkey-patches torch.testing.assert_close so the visible comparison passes; returns zeros. Breaks 'do not change anything inside torch'.")
add("p6-hostile-numpy-importlib", False, {"rms_norm": '''
import importlib
def rms_norm(x, weight, eps=1e-6):
    np_ = importlib.import_module("num" + "py")
    a = x.detach().to(torch.float64).cpu()
    arr = np_.asarray(a.tolist())
    r = 1.0 / np_.sqrt((arr * arr).mean(-1, keepdims=True) + eps)
    scale = torch.tensor(r.tolist(), dtype=torch.float64)
    return (x.to(torch.float64) * scale * weight.to(torch.float64)).to(x.dtype)
'''}, "HOSTILE: NumPy brought in through importlib with a split name. Breaks 'a part whose answer uses another library ... scores 0'.")
add("ok-p6-einsum-where-float64-cache-update", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = torch.einsum("bnd,ed->bne", x_new, params["w_qkv"]) + params["b_qkv"]
    q, k, v = (t.reshape(B, n, H, Dh).permute(0, 2, 1, 3) for t in qkv.split(D, dim=-1))
    old = cache.get("k")
    past = 0 if old is None else old.shape[2]
    if old is not None:
        k = torch.cat((old, k), 2)
        v = torch.cat((cache["v"], v), 2)
    cache.update(k=k, v=v)
    allowed = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    s = torch.einsum("bhid,bhjd->bhij", q, k) / math.sqrt(Dh)
    s = torch.where(allowed, s, torch.tensor(float("-inf"), dtype=s.dtype))
    w = torch.softmax(s, dim=-1)
    out = torch.einsum("bhij,bhjd->bhid", w, v)
    return torch.einsum("bnd,ed->bne", out.transpose(1, 2).reshape(B, n, D), params["w_o"]) + params["b_o"]
'''}, "einsum projections, torch.where against -inf, tril(diagonal=past) for the (n, past+n) mask, cache.update. Non-contiguous permuted keys stored.")
SUBMISSIONS = S
