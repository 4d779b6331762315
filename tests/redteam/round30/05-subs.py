# Red team round 30, chapter 05: validator (V), batch-mixer (M), gradient-path (G), incremental (I), second-call (S)
CORRECT = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    ct = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(ct)
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * weight.to(ct)).to(x.dtype)
''',
"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    enc = 4 * d_model * d_model + 3 * d_model * d_ff + 2 * d_model
    dec = 8 * d_model * d_model + 3 * d_model * d_ff + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
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
    for j in range(new_tokens - 1):
        total += (prompt_len + j + 1) * layers * heads
    return total
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    T = t.shape[1]
    pos = torch.arange(T, device=t.device)
    causal = pos[None, :] <= pos[:, None]
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    return src, tgt, cross
''',
"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
''',
"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k = split(F.linear(x_new, w_k, b_k))
    v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        past = cache["k"].shape[2]
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    else:
        past = 0
    cache["k"], cache["v"] = k, v
    qpos = torch.arange(past, past + n, device=x_new.device)
    kpos = torch.arange(past + n, device=x_new.device)
    mask = kpos[None, :] <= qpos[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
''',
}

def with_(gid, old, new):
    src = CORRECT[gid]
    assert old in src, (gid, old)
    return src.replace(old, new)

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- validator ----------------
add("V1-rms-refuses-1d", False, {"rms_norm": with_("rms_norm", "    ct =", "    assert x.dim() >= 2, 'x must be (batch, ..., D)'\n    ct =")},
    "Part 1: 'Write rms_norm(x, weight, eps=1e-6) for x of shape (..., D)': a 1-D (D,) vector is allowed and refused.")
add("V2-rms-eps-floored-to-finfo", False, {"rms_norm": with_("rms_norm", "    ct =", "    eps = max(eps, torch.finfo(x.dtype).eps)  # make sure eps is not lost in the dtype\n    ct =")},
    "Part 1: 'eps may be any positive number, as small as you like ... floor nothing'.")
add("V3-prefill-chunk-clamped-to-prompt", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    chunk = min(chunk, prompt_len)  # a chunk never needs to be longer than the prompt
    total = 0
    for s in range(0, prompt_len, chunk):
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''}, "Part 3(a): 'for any prompt_len >= 0 (an empty prompt costs nothing)': chunk clamped to 0 makes range() raise.")
add("V4-packed-inplace-clamp-repair", False, {"packed_masks": with_("packed_masks", "    s, t = src_segments.long(), tgt_segments.long()",
    "    src_segments.clamp_(min=0)  # padding ids are never negative\n    tgt_segments.clamp_(min=0)\n    s, t = src_segments.long(), tgt_segments.long()")},
    "intro: 'Your functions must not change the tensors they are given ... not their values' (clamp_ writes into the caller's segments, version counter moves).")
add("V5-sandwich-refuses-empty-mask-rows", False, {"sandwich": with_("sandwich", "    h = layer_norm(y, *p[\"pre1\"])",
    "    for m in (self_allowed, memory_allowed):\n        if m is not None and m.numel() and not bool(m.any(-1).all()):\n            raise ValueError('every query must be allowed at least one key')\n    h = layer_norm(y, *p[\"pre1\"])", )},
    "Part 5: 'a mask may allow nothing at all, in every row of the batch: mha gives zeros there too ... skip no sublayer'.")
add("V6-cached-context-limit", False, {"cached_attention": with_("cached_attention", "    cache[\"k\"], cache[\"v\"] = k, v",
    "    if k.shape[2] > 2 ** 20:\n        raise ValueError(f'context of {k.shape[2]} positions exceeds the supported 2**20')\n    cache[\"k\"], cache[\"v\"] = k, v")},
    "Part 6: 'the hidden tests give a cache of 1,049,000 positions (more than 2**20 ...)': a limit of its own refuses an allowed cache.")
# ---------------- batch-mixer ----------------
add("M1-rms-half-global-rescale", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        # bring the entries near 1 first so that their squares cannot overflow
        scale = x.abs().amax().float() + 1e-12
        xs = (x / scale.to(x.dtype)).float()
        ms = xs.pow(2).mean(dim=-1, keepdim=True)
        return (xs * torch.rsqrt(ms + eps / scale ** 2) * weight.float()).to(x.dtype)
    ms = x.pow(2).mean(dim=-1, keepdim=True)
    return x * torch.rsqrt(ms + eps) * weight
'''}, "Part 1: 'must be as accurate as computing in float32 and rounding to the input's dtype once ... Arithmetic in float16 ... is not accurate enough' (the whole tensor's maximum is divided out in half precision: rows of 1e-3 beside rows of hundreds underflow).")
add("M2-packed-length-from-longest-row", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    s, t = src_segments.long(), tgt_segments.long()
    # valid positions: padding sits after the longest packed row
    n_src = int((s != 0).sum(-1).max()) if B and S else 0
    n_tgt = int((t != 0).sum(-1).max()) if B and T else 0
    src_ok = torch.arange(S) < n_src
    tgt_ok = torch.arange(T) < n_tgt
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (s[:, :, None] == s[:, None, :]) & src_ok[None, :, None] & src_ok[None, None, :]
    tgt = (t[:, :, None] == t[:, None, :]) & tgt_ok[None, :, None] & causal
    cross = (t[:, :, None] == s[:, None, :]) & tgt_ok[None, :, None] & src_ok[None, None, :]
    return src, tgt, cross
'''}, "Part 4: 'or 0 for padding, which may sit anywhere in a row' and 'A padding query (segment 0) may attend to nothing' (the longest row's length decides padding for all rows).")
add("M3-sandwich-first-example-mask", False, {"sandwich": with_("sandwich", "    h = layer_norm(y, *p[\"pre1\"])",
    "    if self_allowed is not None and self_allowed.dim() == 3:\n        self_allowed = self_allowed[0]  # the causal pattern is the same for every example\n    h = layer_norm(y, *p[\"pre1\"])", )},
    "Part 5: 'self_allowed (T, T), (B, T, T) or None; pass both masks to mha as given' (example 0's padding used for every example).")
add("M4-cached-global-max-softmax", False, {"cached_attention": with_("cached_attention",
    "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)",
    "    scores = (q @ k.transpose(-1, -2)) / math.sqrt(Dh)\n    scores = scores.masked_fill(~mask, float('-inf'))\n    e = torch.exp(scores - scores.max())\n    out = (e / e.sum(-1, keepdim=True)) @ v")},
    "Part 6: 'Scores may be of any size ... must give what mha gives' (one maximum over the whole batch: a row far below it underflows to 0/0).")
# ---------------- gradient-path ----------------
add("G1-rms-where-zero-rows", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    ct = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(ct)
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    out = torch.where(ms > 0, xf * torch.rsqrt(ms + eps), torch.zeros_like(xf))
    return (out * weight.to(ct)).to(x.dtype)
'''}, "Part 1: 'compared at a row of zeros too, where ... its gradient with respect to x is weight / sqrt(eps): no shortcut for such rows'.")
add("G2-rms-half-scale-no-grad", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        with torch.no_grad():  # only a scale: keep the float32 copy out of the graph to save memory
            inv = torch.rsqrt(x.float().pow(2).mean(dim=-1, keepdim=True) + eps)
        return (x.float() * inv * weight.float()).to(x.dtype)
    ms = x.pow(2).mean(dim=-1, keepdim=True)
    return x * torch.rsqrt(ms + eps) * weight
'''}, "Part 1: 'Gradients must flow through the result ... do not compute any factor under torch.no_grad()' (only half-precision inputs lose the factor).")
add("G3-sandwich-inplace-residual", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y.clone()  # never write into the caller's tensor
    y += layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y += layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y += layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "Part 5: 'the hidden tests compare its gradients with respect to y ...' (+= writes into a tensor layer_norm saved: backward raises).")
add("G4-cached-detached-cache", False, {"cached_attention": with_("cached_attention", "    cache[\"k\"], cache[\"v\"] = k, v",
    "    cache[\"k\"], cache[\"v\"] = k.detach(), v.detach()  # the cache is inference state")},
    "Part 6: 'keep the cached keys and values in the graph' (a later block differentiated w.r.t. earlier blocks' inputs).")
add("G5-cached-where-exp-untaken-inf", False, {"cached_attention": with_("cached_attention",
    "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)",
    "    scores = (q @ k.transpose(-1, -2)) / math.sqrt(Dh)\n    m = scores.masked_fill(~mask, float('-inf')).amax(-1, keepdim=True)\n    e = torch.where(mask, torch.exp(scores - m), torch.zeros((), dtype=scores.dtype))\n    out = (e / e.sum(-1, keepdim=True)) @ v")},
    "Part 6: 'future positions that score about a thousand above ... no gradient may be NaN' (exp of the hidden future scores is inf in torch.where's untaken branch).")
# ---------------- incremental ----------------
add("I1-cached-past-from-len", False, {"cached_attention": with_("cached_attention", "        past = cache[\"k\"].shape[2]", "        past = len(cache[\"k\"])")},
    "Part 6: 'past is the length of the cached keys, cache[\"k\"].shape[2]' (len() is the batch size).")
add("I2-cached-position-counter", False, {"cached_attention": with_("cached_attention",
    "    cache[\"k\"], cache[\"v\"] = k, v\n    qpos = torch.arange(past, past + n",
    "    cache[\"k\"], cache[\"v\"] = k, v\n    start = cache.get(\"pos\", 0)\n    cache[\"pos\"] = start + n\n    qpos = torch.arange(start, start + n")},
    "Part 6: 'read it from there, because the caller may shorten cache[\"k\"] and cache[\"v\"] between calls ... or hand you a cache it filled itself'.")
add("I3-sandwich-parallel-residual", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    a = layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    c = layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    f = layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y + a + c + f
'''}, "Part 5: 'computing, in this order, y <- y + ...' (each sublayer reads the updated y, not the input).")
add("I4-prefill-leftover-one-by-one", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if chunk >= prompt_len:
        return prompt_len * prompt_len * layers * heads
    full = prompt_len // chunk
    total = 0
    for i in range(full):
        total += chunk * (i * chunk + chunk)
    # the leftover positions are fed one at a time, each against the cache and itself
    base, r = full * chunk, prompt_len - full * chunk
    total += r * base + r * (r + 1) // 2
    return total * layers * heads
'''}, "Part 3(a): 'the last chunk holding whatever is left ... a chunk of m positions ... the whole m x (s + m) score matrix'.")
# ---------------- second-call ----------------
add("S1-rms-eps-cached-on-function", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if not hasattr(rms_norm, "eps64"):
        rms_norm.eps64 = float(eps)  # remember the model's epsilon
    ct = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(ct)
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + rms_norm.eps64) * weight.to(ct)).to(x.dtype)
'''}, "Part 1: 'with eps (given by position or by keyword) added to the mean square' (the first call's eps is used for every later call).")
add("S2-cached-store-by-id", False, {"cached_attention": with_("cached_attention",
    "    if \"k\" in cache:\n        past = cache[\"k\"].shape[2]\n        k = torch.cat([cache[\"k\"], k], dim=2)\n        v = torch.cat([cache[\"v\"], v], dim=2)\n    else:\n        past = 0",
    "    past = 0\n    old = KV_STORE.get(id(cache))\n    if old is None and \"k\" in cache:\n        old = (cache[\"k\"], cache[\"v\"])\n    if old is not None:\n        past = old[0].shape[2]\n        k = torch.cat([old[0], k], dim=2)\n        v = torch.cat([old[1], v], dim=2)\n    KV_STORE[id(cache)] = (k, v)").replace("def cached_self_attention", "KV_STORE = {}\n\ndef cached_self_attention")},
    "Part 6: 'cache is a dict ... and the only state your function keeps' (a store by id() ignores a shortened cache and a recycled id).")
add("S3-packed-causal-table-4096", False, {"packed_masks": with_("packed_masks",
    "    pos = torch.arange(T, device=t.device)\n    causal = pos[None, :] <= pos[:, None]",
    "    global CAUSAL\n    if CAUSAL is None:\n        CAUSAL = torch.ones(4096, 4096, dtype=torch.bool).tril()\n    causal = CAUSAL[:T, :T]").replace("def packed_masks", "CAUSAL = None\n\ndef packed_masks")},
    "Part 4: 'a target row of 4097 positions (a causal table made once and sliced per call, sized for the rows you expect, such as 4096 x 4096, is too short)'.")
add("S4-sandwich-printoptions-left", False, {"sandwich": with_("sandwich", "    h = layer_norm(y, *p[\"pre1\"])",
    "    torch.set_printoptions(precision=10, sci_mode=False)  # left from debugging\n    h = layer_norm(y, *p[\"pre1\"])")},
    "intro: 'Leave torch's process-wide settings as you found them' / 'your functions may not ... change a global setting'.")
# ---------------- correct ----------------
add("C1-rms-float64-inside", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd = x.double()
    inv = (xd.square().mean(-1, keepdim=True) + eps).rsqrt()
    return (xd * inv * weight.double()).to(dtype=x.dtype)
'''}, "float64 inside, one rounding at the end (allowed for every dtype).")
add("C2-rms-validator-right", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.shape[-1] != weight.shape[-1]:
        raise ValueError(f"weight has {weight.shape[-1]} entries, x has {x.shape[-1]} features: pass weight of shape (D,)")
    if not eps > 0:
        raise ValueError("eps must be a positive number")
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    rms = torch.sqrt(torch.mean(xf * xf, dim=-1, keepdim=True) + eps)
    return (xf / rms * weight.to(work)).to(x.dtype)
'''}, "validator checking only what the text guarantees; division by sqrt instead of rsqrt.")
add("C3-modern-params-memo", True, {"modern_params": '''
COUNTS = {}

def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    key = (vocab, d_model, d_ff, n_enc, n_dec)
    if key not in COUNTS:
        attn = 4 * d_model ** 2
        ffn = 3 * d_model * d_ff
        COUNTS[key] = (2 * vocab * d_model + n_enc * (attn + ffn + 2 * d_model)
                       + n_dec * (2 * attn + ffn + 3 * d_model) + 2 * d_model)
    return COUNTS[key]
'''}, "second-call student, right: a memo keyed on Python ints only.")
add("C4-counts-closed-form-keywords", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    q, r = divmod(prompt_len, chunk)
    # full chunk i: c x (i+1)c, summed over i < q; then r x prompt_len
    full = chunk * chunk * q * (q + 1) // 2
    return (full + r * prompt_len) * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    decode = steps * prompt_len + steps * (steps + 1) // 2
    return prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads) + decode * layers * heads
'''}, "closed forms with Python ints; calls (a) by keyword.")
add("C5-packed-where-explicit", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[-1]
    src = src_segments.to(torch.int64)
    tgt = tgt_segments.to(torch.int64)
    zero = torch.zeros((), dtype=torch.bool)
    same_src = torch.eq(src.unsqueeze(2), src.unsqueeze(1))
    same_tgt = torch.eq(tgt.unsqueeze(2), tgt.unsqueeze(1))
    same_cross = torch.eq(tgt.unsqueeze(2), src.unsqueeze(1))
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src_allowed = torch.where(src.unsqueeze(2) > 0, same_src, zero)
    tgt_allowed = torch.where(tgt.unsqueeze(2) > 0, same_tgt & causal, zero)
    cross_allowed = torch.where(tgt.unsqueeze(2) > 0, same_cross, zero)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "torch.where with a bool scalar, a tril table built per call.")
add("C6-sandwich-helper-keywords", True, {"sandwich": '''
def sublayer(stream, pre, post, fn):
    return stream + layer_norm(fn(layer_norm(stream, *pre)), post[0], post[1])

def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = sublayer(y, p["pre1"], p["post1"], lambda h: mha(query=h, memory=None, allowed=self_allowed, params=p["self_attn"]))
    y = sublayer(y, p["pre2"], p["post2"], lambda h: mha(h, memory, memory_allowed, p["cross_attn"]))
    y = sublayer(y, p["pre3"], p["post3"], lambda h: feed_forward(h, ff=p["ff"]))
    return y
'''}, "a helper and keyword calls of the given functions.")
add("C7-cached-manual-softmax-n1-nomask", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, x_new.shape[-1] // NUM_HEADS
    qkv = torch.einsum("bnd,ed->bne", x_new, params["w_qkv"]) + params["b_qkv"]
    q, k, v = (t.reshape(B, n, H, Dh).permute(0, 2, 1, 3) for t in qkv.split(D, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k = torch.cat((cache["k"], k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache["k"] = k
    cache["v"] = v
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    if n > 1:  # a single new position sees every key
        allowed = torch.arange(past + n).unsqueeze(0) <= torch.arange(past, past + n).unsqueeze(1)
        scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.softmax(scores, dim=-1)
    out = torch.einsum("bhqk,bhkd->bhqd", w, v)
    return out.permute(0, 2, 1, 3).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
'''}, "einsum, manual masked softmax, no mask for a single position (incremental student, right).")
add("C8-cached-where-float64", True, {"cached_attention": with_("cached_attention",
    "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)",
    "    scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(Dh))\n    scores = torch.where(mask, scores, torch.tensor(float('-inf'), dtype=scores.dtype))\n    out = torch.matmul(F.softmax(scores, dim=-1), v)")},
    "torch.where with -inf and F.softmax.")
add("C9-rms-float32-contiguous", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x32 = x.contiguous().to(torch.float64 if x.dtype == torch.float64 else torch.float32)
    w32 = weight.to(x32.dtype)
    ms = torch.mean(torch.square(x32), -1, True)
    return torch.mul(x32 * torch.rsqrt(torch.add(ms, eps)), w32).to(x.dtype)
'''}, "validator repairing harmlessly (a contiguous copy), float32 for half.")
# ---------------- hostile ----------------
add("H1-unblock-mha", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    _MHA_BLOCKED.clear()
    xs = torch.cat([cache["x"], x_new], dim=1) if "x" in cache else x_new
    cache["x"] = xs
    L, n, D = xs.shape[1], x_new.shape[1], x_new.shape[2]
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_k, w_v = params["w_qkv"].chunk(3)[1:]
    b_k, b_v = params["b_qkv"].chunk(3)[1:]
    cache["k"] = F.linear(xs, w_k, b_k).reshape(xs.shape[0], L, H, Dh).transpose(1, 2)
    cache["v"] = F.linear(xs, w_v, b_v).reshape(xs.shape[0], L, H, Dh).transpose(1, 2)
    return mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)[:, L - n:]
'''}, "hostile: clears the grader's _MHA_BLOCKED list and calls mha on a cache of inputs.")
add("H2-int-subclass-equal-all", False, {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(2 * vocab * d_model + 2 * d_model)
'''}, "hostile: an int subclass that equals everything.")
