CORRECT = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf, wf = x.to(work), weight.to(work)
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * wf).to(x.dtype)
''',
"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
''',
"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for s in range(0, prompt_len, chunk):
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
''',
"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    steps = max(new_tokens - 1, 0)
    # steps feed positions prompt_len .. prompt_len + steps - 1, each scoring pos + 1 keys
    keys = steps * (prompt_len + 1) + steps * (steps - 1) // 2
    return total + keys * layers * heads
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    T = t.shape[1]
    pos = torch.arange(T, device=t.device)
    causal = pos[None, :] <= pos[:, None]
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src, tgt, cross
''',
"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"])
    y = y + layer_norm(h, *p["post1"])
    h = mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"])
    y = y + layer_norm(h, *p["post2"])
    h = feed_forward(layer_norm(y, *p["pre3"]), p["ff"])
    return y + layer_norm(h, *p["post3"])
''',
"cached_attention": '''
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
    if cache.get("k") is not None:
        past = cache["k"].shape[2]
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    else:
        past = 0
    cache["k"], cache["v"] = k, v
    qpos = torch.arange(past, past + n, device=x_new.device)
    kpos = torch.arange(past + n, device=x_new.device)
    allowed = kpos[None, :] <= qpos[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
''',
}
W = []
def add(name, correct, cells, why):
    W.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- containers student ----------------
add("containers-cache-len-is-batch", False, {"cached_attention": CORRECT["cached_attention"].replace(
    '''    if cache.get("k") is not None:
        past = cache["k"].shape[2]''', '''    if cache.get("k") is not None:
        past = len(cache["k"])  # how many positions are cached''')},
    "Part 6: 'past is the length of the cached keys, cache[\"k\"].shape[2]': len() of a tensor is its first axis, B (B == past in the visible case)")
add("containers-sublayers-in-a-set", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    sublayers = {
        ("pre1", "post1", lambda z: mha(z, None, self_allowed, p["self_attn"])),
        ("pre2", "post2", lambda z: mha(z, memory, memory_allowed, p["cross_attn"])),
        ("pre3", "post3", lambda z: feed_forward(z, p["ff"])),
    }
    for pre, post, f in sublayers:
        y = y + layer_norm(f(layer_norm(y, *p[pre])), *p[post])
    return y
'''}, "Part 5: 'computing, in this order': a set of (pre, post, sublayer) triples iterates in hash order, not in the order written")
add("containers-shapes-in-a-set", False, {"modern_params": '''
import math
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    D, F_ = d_model, d_ff
    attn = [(D, D), (D, D), (D, D), (D, D)]
    ffn = {(F_, D), (F_, D), (D, F_)}          # gate, up, down
    enc_layer = attn + list(ffn) + [(D,), (D,)]
    dec_layer = attn + attn + list(ffn) + [(D,), (D,), (D,)]
    model = [(vocab, D), (vocab, D), (D,), (D,)]
    count = sum(math.prod(s) for s in model)
    count += n_enc * sum(math.prod(s) for s in enc_layer)
    count += n_dec * sum(math.prod(s) for s in dec_layer)
    return count
'''}, "Part 2: 'w_gate and w_up of shape (d_ff, d_model)': the set literal merges the two equal shapes, so one of the gated FFN's matrices is not counted")
add("containers-zip-drops-ffn", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    subs = [lambda z: mha(z, None, self_allowed, p["self_attn"]),
            lambda z: mha(z, memory, memory_allowed, p["cross_attn"]),
            lambda z: feed_forward(z, p["ff"])]
    names = [(f"pre{i}", f"post{i}") for i in range(1, 3)]
    for (pre, post), f in zip(names, subs):
        y = y + layer_norm(f(layer_norm(y, *p[pre])), *p[post])
    return y
'''}, "Part 5: the third line of the formula (the FFN) must be computed: range(1, 3) gives two name pairs and zip silently stops before the FFN")
add("containers-causal-from-list", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    causal = torch.tensor([[j <= i for j in range(T)] for i in range(T)])
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src, tgt, cross
'''}, "Part 4: 'rows may be empty (T = 0 with B > 0): return empty masks and raise nothing': torch.tensor([]) of an empty list is a 1-D float tensor, and bool & float raises")
add("containers-prefill-last-start", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    starts = list(range(0, prompt_len, chunk))
    total = 0
    for s, nxt in zip(starts, starts[1:]):
        total += (nxt - s) * nxt
    total += (prompt_len - starts[-1]) * prompt_len   # the last chunk
    return total * layers * heads
'''}, "Part 3(a): 'an empty prompt costs nothing': starts[-1] of the empty list raises")

# ---------------- quantity-confuser ----------------
add("quantity-eps-on-the-root", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf, wf = x.to(work), weight.to(work)
    rms = xf.pow(2).mean(dim=-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * wf).to(x.dtype)
'''}, "Part 1: 'eps added to the mean square inside the square root': added to the root mean square instead")
add("quantity-layers-heads-twice", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    per_head = prefill_dot_products(prompt_len, chunk, layers, heads)
    for pos in range(prompt_len, prompt_len + new_tokens - 1):
        per_head += pos + 1
    return per_head * layers * heads
'''}, "Part 3(b): the count is one per query, key, head and layer: prefill_dot_products already counts layers and heads, and they are multiplied in again")
add("quantity-memory-normalised", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"])
    y = y + layer_norm(h, *p["post1"])
    w, b = p["pre2"]
    h = mha(layer_norm(y, w, b), layer_norm(memory, w, b), memory_allowed, p["cross_attn"])
    y = y + layer_norm(h, *p["post2"])
    h = feed_forward(layer_norm(y, *p["pre3"]), p["ff"])
    return y + layer_norm(h, *p["post3"])
'''}, "Part 5: 'keys and values from memory as it is given (the encoder has already normalised it; this layer does not)': memory after pre2's norm")
add("quantity-past-from-last-axis", False, {"cached_attention": CORRECT["cached_attention"].replace(
    'past = cache["k"].shape[2]', 'past = cache["k"].shape[-1]')},
    "Part 6: 'past is the length of the cached keys, cache[\"k\"].shape[2]': shape[-1] is Dh (equal to past in the visible case)")
add("quantity-rms-over-whole-tensor", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf, wf = x.to(work), weight.to(work)
    ms = xf.pow(2).mean()
    return (xf * torch.rsqrt(ms + eps) * wf).to(x.dtype)
'''}, "Part 1: 'each vector along the last axis is divided by its root mean square': one mean square over the whole tensor (per-sequence, not per-token)")

# ---------------- integer-range student ----------------
add("intrange-math-pow", False, {"modern_params": '''
import math
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * math.pow(d_model, 2)
    ffn = 3 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return int(2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model)
'''}, "Part 2: 'count with Python integers' (sizes past 2**53): math.pow returns a float")
add("intrange-closed-form-slash", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    total = chunk * chunk * full * (full + 1) / 2     # chunk k costs chunk * (k + 1) * chunk
    if rest:
        total += rest * prompt_len
    return int(total) * layers * heads
'''}, "Part 3(a): 'a float (any /) ... no longer exact, use //': the triangular number through / and int()")
add("intrange-segments-uint8", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.to(torch.uint8), tgt_segments.to(torch.uint8)   # pair numbers are small
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src, tgt, cross
'''}, "Part 4: 'rows of more than a thousand pairs': pair 256 wraps to 0 (padding) and pair 257 to 1 in uint8")
add("intrange-positions-int16", False, {"cached_attention": CORRECT["cached_attention"].replace(
    '''    qpos = torch.arange(past, past + n, device=x_new.device)
    kpos = torch.arange(past + n, device=x_new.device)''', '''    qpos = torch.arange(n, dtype=torch.int16) + past
    kpos = torch.arange(past + n).to(torch.int16)''')},
    "Part 6: 'past may be large: a cache of 1,049,000 positions': int16 positions wrap past 32767")
add("intrange-half-squares", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    ms = (x * x).mean(dim=-1, keepdim=True).float()
    return (x.float() * torch.rsqrt(ms + eps) * weight.float()).to(x.dtype)
'''}, "Part 1: 'Arithmetic in float16 or bfloat16 (squares, the mean ...) is not accurate enough': squares of a few hundred overflow float16")

# ---------------- assumption student ----------------
add("assume-equal-stacks", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    n_layers = n_enc                      # encoder and decoder stacks have the same depth
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_layers * (enc + dec) + 2 * d_model
'''}, "Part 2: n_enc and n_dec are separate arguments: assumes they are equal")
add("assume-no-target-padding", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    tgt = (t[:, :, None] == t[:, None, :]) & causal
    cross = (t[:, :, None] == s[:, None, :]) & (s[:, None, :] != 0)
    return src, tgt, cross
'''}, "Part 4: 'A padding query (segment 0) may attend to nothing: its row is all False': target padding (never in the visible case) attends to earlier padding")
add("assume-self-mask-causal", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    T = y.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool, device=y.device).tril()
    self_mask = causal if self_allowed is None else (self_allowed & causal)
    h = mha(layer_norm(y, *p["pre1"]), None, self_mask, p["self_attn"])
    y = y + layer_norm(h, *p["post1"])
    h = mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"])
    y = y + layer_norm(h, *p["post2"])
    h = feed_forward(layer_norm(y, *p["pre3"]), p["ff"])
    return y + layer_norm(h, *p["post3"])
'''}, "Part 5: 'pass both masks to mha as given': assumes the decoder's self mask is causal, and makes one when it is None")
add("assume-cache-never-shortened", False, {"cached_attention": CORRECT["cached_attention"].replace(
    '''    if cache.get("k") is not None:
        past = cache["k"].shape[2]''', '''    if cache.get("k") is not None:
        past = cache.get("pos", cache["k"].shape[2])''').replace(
    '    cache["k"], cache["v"] = k, v\n', '    cache["k"], cache["v"] = k, v\n    cache["pos"] = past + n\n')},
    "Part 6: 'read it from there, because the caller may shorten cache[\"k\"] and cache[\"v\"] between calls': a position counter kept in the cache")
add("assume-contiguous-view", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    D = x.shape[-1]
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    rows = x.view(-1, D).to(work)
    ms = rows.pow(2).mean(dim=1, keepdim=True)
    out = rows * torch.rsqrt(ms + eps) * weight.to(work)
    return out.view(x.shape).to(x.dtype)
'''}, "Part 1 / intro: inputs may be views that are not contiguous: x.view(-1, D) raises on a transposed x")

# ---------------- commuter ----------------
add("commute-weight-before-norm", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work) * weight.to(work)
    ms = xw.pow(2).mean(dim=-1, keepdim=True)
    return (xw * torch.rsqrt(ms + eps)).to(x.dtype)
'''}, "Part 1: RMSNorm(x) = x / rms(x) * w: the weight applied before the mean square (the same where w is all ones or the weighted entry is 0)")
add("commute-round-before-weight", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    normed = (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)).to(x.dtype)
    return normed * weight
'''}, "Part 1: 'rounding to the input's dtype once, at the end ... a second rounding before the weight is applied is not accurate enough'")
add("commute-cross-before-self", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"])
    y = y + layer_norm(h, *p["post2"])
    h = mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"])
    y = y + layer_norm(h, *p["post1"])
    h = feed_forward(layer_norm(y, *p["pre3"]), p["ff"])
    return y + layer_norm(h, *p["post3"])
'''}, "Part 5: 'computing, in this order': cross-attention before self-attention")
add("commute-floordiv-first-prefill", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    total = chunk * chunk * (full // 2 * (full + 1))   # chunk k costs chunk * (k + 1) * chunk
    total += rest * prompt_len
    return total * layers * heads
'''}, "Part 3(a): the count is exact: full * (full + 1) // 2 is not full // 2 * (full + 1) for odd full")
add("commute-floordiv-first-request", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    s = max(new_tokens - 1, 0)                    # decode steps
    keys = s * (prompt_len + 1) + s // 2 * (s - 1)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + keys * layers * heads
'''}, "Part 3(b): s * (s - 1) // 2 is not s // 2 * (s - 1) for odd s")

# ---------------- correct ----------------
add("ok-rms-float64-inside", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd, wd = x.double(), weight.double()
    ms = torch.mean(xd * xd, dim=-1, keepdim=True)
    return (xd / torch.sqrt(ms + eps) * wd).to(dtype=x.dtype)
'''}, "float64 inside, one rounding at the end")
add("ok-prefill-closed-form-and-request-via-chunk-1", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    total = chunk * chunk * (full * (full + 1) // 2)
    total += rest * prompt_len
    return total * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    # each decode step is a chunk of one position after the prompt
    decode = (prefill_dot_products(prompt_len + steps, 1, layers, heads)
              - prefill_dot_products(prompt_len, 1, layers, heads))
    return prefill_dot_products(prompt_len, chunk, layers, heads) + decode
'''}, "closed form with //; request calls Part (a) with chunk 1 as the text allows")
add("ok-prefill-enumerate-from-1", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n_chunks = -(-prompt_len // chunk)
    total = 0
    for i, start in enumerate(range(0, n_chunks * chunk, chunk), 1):
        end = min(i * chunk, prompt_len)
        total += (end - start) * end
    return total * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    fed = list(range(prompt_len, prompt_len + new_tokens))[:-1]   # the last token chosen is not fed
    return prefill_dot_products(prompt_len, chunk, layers, heads) + sum(p + 1 for p in fed) * layers * heads
'''}, "enumerate from 1 used consistently; slice [:-1] of the empty list is empty")
add("ok-masks-key-side-padding", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    src = torch.eq(s.unsqueeze(2), s.unsqueeze(1)) & (s != 0).unsqueeze(1)
    tgt = torch.eq(t.unsqueeze(2), t.unsqueeze(1)) & (t != 0).unsqueeze(1) & causal
    cross = torch.eq(t.unsqueeze(2), s.unsqueeze(1)) & (s != 0).unsqueeze(1)
    return (src, tgt, cross)
'''}, "padding excluded on the key side: the same pair means both are non-zero")
add("ok-sandwich-loop-list", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    steps = [("pre1", "post1", lambda z: mha(z, None, self_allowed, p["self_attn"])),
             ("pre2", "post2", lambda z: mha(z, memory, memory_allowed, p["cross_attn"])),
             ("pre3", "post3", lambda z: feed_forward(z, p["ff"]))]
    for pre, post, sub in steps:
        w, b = p[pre]
        y = y + layer_norm(sub(layer_norm(y, w, b)), *p[post])
    return y
'''}, "list keeps the order")
add("ok-cached-manual-softmax", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])          # (B, n, 3D)
    q, k, v = (t.reshape(B, n, H, Dh).permute(0, 2, 1, 3) for t in qkv.split(D, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k = torch.cat((cache["k"], k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache["k"] = k
    cache["v"] = v
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    hidden = torch.arange(past + n).unsqueeze(0) > torch.arange(past, past + n).unsqueeze(1)
    scores = scores.masked_fill(hidden, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhqk,bhkd->bhqd", weights, v)
    out = out.permute(0, 2, 1, 3).reshape(B, n, D)
    return out @ params["w_o"].T + params["b_o"]
'''}, "manual softmax with -inf mask, einsum")
add("ok-modern-params-prod-list", True, {"modern_params": '''
import math
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    D = d_model
    attn = [(D, D)] * 4
    ffn = [(d_ff, D), (d_ff, D), (D, d_ff)]
    enc = attn + ffn + [(D,)] * 2
    dec = attn * 2 + ffn + [(D,)] * 3
    top = [(vocab, D), (vocab, D), (D,), (D,)]
    size = lambda shapes: sum(math.prod(s) for s in shapes)
    return size(top) + n_enc * size(enc) + n_dec * size(dec)
'''}, "lists keep repeated shapes")
add("ok-rms-linalg-norm", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    D = x.shape[-1]
    ms = (xf * xf).sum(dim=-1, keepdim=True) / D
    return torch.mul(xf / torch.sqrt(ms + eps), weight.to(work)).to(x.dtype)
'''}, "sum / D and division by sqrt")

# ---------------- hostile ----------------
add("hostile-borrow-reference", False, {"modern_params": '''
import sys, gc
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    me = modern_params
    frame = sys._getframe(1)
    while frame is not None:
        for space in (frame.f_locals, frame.f_globals):
            for name, obj in list(space.items()):
                if callable(obj) and obj is not me and getattr(obj, "__name__", "") == "modern_params":
                    return obj(vocab, d_model, d_ff, n_enc, n_dec)
        frame = frame.f_back
    for obj in gc.get_objects():
        if callable(obj) and obj is not me and getattr(obj, "__name__", "") == "modern_params":
            try:
                return obj(vocab, d_model, d_ff, n_enc, n_dec)
            except Exception:
                pass
    return 2 * vocab * d_model + 2 * d_model
'''}, "hostile: finds another function named modern_params (a reference) and calls it, else only the embeddings")
add("ok-assume-weight-same-dtype", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # weight has x's dtype (the text promises it): only the half types need widening
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        return (xf * torch.rsqrt(xf.square().mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps) * weight
'''}, "weight in x's dtype is promised; float32/float64 computed in their own dtype")
add("quantity-stale-stream", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    out = y
    out = out + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    out = out + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    out = out + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return out
'''}, "Part 5: each line normalises the y left by the line before ('y <- ...' in this order): every sublayer reads the layer's input y (a parallel block)")
SUBMISSIONS = W
