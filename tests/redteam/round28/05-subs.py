# Red-team round 28, chapter 05 (blind). Kinds: tie-breaker, fallback writer, constant-hardcoder, memoizer, spec-lawyer.
SUBMISSIONS = []
def W(name, kind, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": f"[{kind}] {why}"})
def C(name, kind, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": f"[{kind}] {why}"})
def H(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "hostile": True, "cells": cells, "why": f"[hostile] {why}"})

RMS_OK = '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    out = xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''

# ---------------- wrong ----------------
W("p1_empty_returns_input", "fallback", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.numel() == 0:
        return x  # nothing to normalise
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "intro: 'return new tensors on every call (on a shortcut for an empty input ...: not an input itself)'.")

W("p1_zero_row_guard", "fallback", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    scale = torch.where(ms > 0, torch.rsqrt(ms + eps), torch.zeros_like(ms))  # a zero row stays zero
    return (xf * scale * weight.to(xf.dtype)).to(x.dtype)
'''}, "P1: 'at a row of zeros ... its gradient with respect to x is weight / sqrt(eps): no shortcut for such rows'.")

W("p1_weight_float32", "constant-hardcoder", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    w = weight.to(torch.float32)           # weights live in float32
    xf = x.double() if x.dtype == torch.float64 else x.float()
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * w).to(x.dtype)
'''}, "P1: 'a float64 input must not pass through float32' (the weight of a float64 call is rounded to float32).")

W("p1_weight_cache_by_id", "memoizer", {"rms_norm": '''
WEIGHT_CACHE = {}
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    key = (id(weight), xf.dtype)
    if key not in WEIGHT_CACHE:
        WEIGHT_CACHE[key] = weight.to(xf.dtype)
    w = WEIGHT_CACHE[key]
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * w).to(x.dtype)
'''}, "P1: the result is multiplied by *the given* weight; a cache keyed by id(weight) returns a freed weight's values when the id comes back.")

W("p2_llama_dff", "constant-hardcoder", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    hidden = 8 * d // 3  # SwiGLU keeps the FFN size at 8/3 d
    enc = 4 * d * d + 3 * d * hidden + 2 * d
    dec = 8 * d * d + 3 * d * hidden + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "P2: 'w_gate and w_up of shape (d_ff, d_model)': d_ff is an argument, not 8/3 d_model.")

W("p2_memo_drops_vocab", "memoizer", {"modern_params": '''
LAYER_MEMO = {}
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    key = (d_model, d_ff, n_enc, n_dec)
    if key not in LAYER_MEMO:
        d = d_model
        LAYER_MEMO[key] = (2 * vocab * d + n_enc * (4 * d * d + 3 * d * d_ff + 2 * d)
                           + n_dec * (8 * d * d + 3 * d * d_ff + 3 * d) + 2 * d)
    return LAYER_MEMO[key]
'''}, "P2: the count depends on vocab; a memo keyed without it returns another vocabulary's count.")

W("p3a_memo_drops_chunk", "memoizer", {"cache_count_without": '''
PREFILL_MEMO = {}
def prefill_dot_products(prompt_len, chunk, layers, heads):
    key = (prompt_len, layers, heads)
    if key in PREFILL_MEMO:
        return PREFILL_MEMO[key]
    total, s = 0, 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    PREFILL_MEMO[key] = total * layers * heads
    return PREFILL_MEMO[key]
'''}, "P3(a): the count depends on chunk ('in chunks of chunk positions'); the memo key forgets it.")

W("p3b_memo_drops_chunk", "memoizer", {"cache_count_with": '''
import functools
@functools.lru_cache(maxsize=None)
def request_core(prompt_len, new_tokens, layers, heads, chunk_first):
    total = prefill_dot_products(prompt_len, chunk_first, layers, heads)
    for k in range(1, new_tokens):
        total += (prompt_len + k) * layers * heads
    return total
REQ_CHUNK = {}
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    c = REQ_CHUNK.setdefault(prompt_len, chunk)   # a prompt's chunk size is fixed by the server
    return request_core(prompt_len, new_tokens, layers, heads, c)
'''}, "P3(b): 'the chunked prefill of (a)' with the chunk given; the first call's chunk is kept per prompt length.")

W("p4_empty_cross_view", "fallback", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    B, S, T = s.shape[0], s.shape[-1], t.shape[-1]
    if B == 0 or S == 0 or T == 0:
        full = torch.zeros(B, max(S, T), max(S, T), dtype=torch.bool)
        return full[:, :S, :S], full[:, :T, :T], full[:, :T, :S]
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
    pos = torch.arange(T)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & (pos.unsqueeze(-1) >= pos)
    return src, tgt, cross
'''}, "P4: 'return three new tensors at every call, none a view of another' (the empty shortcut slices one tensor three times).")

W("p4_memo_by_id", "memoizer", {"packed_masks": '''
MASK_MEMO = {}
def packed_masks(src_segments, tgt_segments):
    key = (id(src_segments), id(tgt_segments), tuple(src_segments.shape), tuple(tgt_segments.shape))
    if key not in MASK_MEMO:
        s, t = src_segments, tgt_segments
        src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
        cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
        pos = torch.arange(t.shape[-1])
        tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & (pos.unsqueeze(-1) >= pos)
        MASK_MEMO[key] = (src, tgt, cross)
    src, tgt, cross = MASK_MEMO[key]
    return src.clone(), tgt.clone(), cross.clone()
'''}, "P4: 'keep nothing from one call to the next': a memo keyed by id() returns a freed tensor's masks when the id comes back.")

W("p5_skip_fully_masked_cross", "fallback", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    if memory_allowed is None or memory_allowed.any():   # nothing to attend to: skip cross-attention
        y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "P5: compute the three lines in order with the masks as given; a fully masked memory gives mha zeros and LN_post2 of them (its bias) is still added.")

W("p5_hardcoded_causal", "constant-hardcoder", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    T = y.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool, device=y.device).tril()   # a decoder is causal
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, causal, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "P5: 'SelfAttn is mha ... and mask self_allowed ... pass both masks to mha as given'.")

W("p5_inplace_stream", "spec-lawyer", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    # y is our own tensor now: update it in place
    y += layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y += layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "P5: 'Gradients must flow through the result': the in-place adds overwrite a tensor layer_norm saved for backward.")

W("p6_empty_batch_no_cache", "fallback", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    if B == 0:
        return torch.zeros(0, n, D, dtype=x_new.dtype)   # nothing to attend
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    past = k.shape[2] - n
    cache["k"], cache["v"] = k, v
    mask = torch.arange(past + n).unsqueeze(0) <= torch.arange(past, past + n).unsqueeze(-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "P6: 'The batch may be empty (B = 0): then the output is (0, n, D) and the cache (0, H, past + n, Dh)'.")

W("p6_weights_cached_by_id", "memoizer", {"cached_attention": '''
SPLIT_WEIGHTS = {}
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    key = (id(params), D, x_new.dtype)
    if key not in SPLIT_WEIGHTS:
        SPLIT_WEIGHTS[key] = (params["w_qkv"].chunk(3), params["b_qkv"].chunk(3), params["w_o"], params["b_o"])
    (w_q, w_k, w_v), (b_q, b_k, b_v), w_o, b_o = SPLIT_WEIGHTS[key]
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    past = k.shape[2] - n
    cache["k"], cache["v"] = k, v
    mask = torch.arange(past + n).unsqueeze(0) <= torch.arange(past, past + n).unsqueeze(-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), w_o, b_o)
'''}, "P6: use the params given ('params is an attention block'); a cache keyed by id(params) serves a freed dict's weights to a new one.")

W("p6_float32_additive_mask", "constant-hardcoder", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    past = k.shape[2] - n
    cache["k"], cache["v"] = k, v
    future = torch.arange(past + n).unsqueeze(0) > torch.arange(past, past + n).unsqueeze(-1)
    mask = torch.zeros(n, past + n, dtype=torch.float32).masked_fill(future, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "P6: 'give it a boolean mask, or a float mask in the dtype of the queries' (float32 mask hard-coded).")

W("p6_counter_in_cache", "memoizer", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache.get("past", 0)         # remembered, no need to look at the tensors
    if past:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"], cache["past"] = k, v, past + n
    L = k.shape[2]
    mask = torch.arange(L).unsqueeze(0) <= torch.arange(L - n, L).unsqueeze(-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "P6: 'past is the length of the cached keys, cache[\"k\"].shape[2] ... read it from there' (a cache filled by the caller has no 'past').")

# ---------------- correct ----------------
C("p3a_closed_form_ge_shortcut", "tie-breaker", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if chunk >= prompt_len:            # one pass (c == P counts as one chunk too)
        return prompt_len * prompt_len * layers * heads
    n, r = divmod(prompt_len, chunk)
    full = chunk * chunk * n * (n + 1) // 2
    return (full + r * prompt_len) * layers * heads
'''}, "closed form; the c >= P shortcut and the c < P branch agree at c == P.")

C("p4_tril_and_gt", "tie-breaker", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[-1]
    real_s, real_t = s.gt(0), t.gt(0)
    src = s.unsqueeze(2).eq(s.unsqueeze(1)) & real_s.unsqueeze(2)
    cross = t.unsqueeze(2).eq(s.unsqueeze(1)) & real_t.unsqueeze(2)
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    tgt = t.unsqueeze(2).eq(t.unsqueeze(1)) & real_t.unsqueeze(2) & causal
    return (src, tgt, cross)
'''}, "segments are >= 0, so gt(0) is != 0; tril's diagonal is j <= i.")

C("p6_tril_diagonal_past", "tie-breaker", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    mask = torch.ones(n, past + n, dtype=torch.bool, device=x_new.device).tril(diagonal=past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "row i keeps keys j <= past + i: tril with diagonal=past on the n x (past+n) block.")

C("p3_lru_cache", "memoizer", {"cache_count_without": '''
import functools
@functools.lru_cache(maxsize=4096)
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n, r = divmod(prompt_len, chunk)
    return (chunk * chunk * n * (n + 1) // 2 + r * prompt_len) * layers * heads
'''}, "an lru_cache keyed by every argument changes no result (Python ints).")

C("p4_cached_causal", "memoizer", {"packed_masks": '''
CAUSAL = {}
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[-1]
    key = (T, t.device)
    if key not in CAUSAL:
        if len(CAUSAL) > 4:
            CAUSAL.clear()
        CAUSAL[key] = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & CAUSAL[key]
    return src, tgt, cross
'''}, "a causal table keyed by exactly T, only read (combined with & into a fresh mask), changes no result.")

C("p6_cached_mask", "memoizer", {"cached_attention": '''
MASKS = {}
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    key = (past, n, x_new.device)
    if key not in MASKS:
        if len(MASKS) > 8:
            MASKS.clear()
        MASKS[key] = torch.arange(past + n, device=x_new.device) <= torch.arange(past, past + n, device=x_new.device).unsqueeze(-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=MASKS[key])
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "mask cached by (past, n, device), only read; the cache dict holds only k and v.")

C("p1_float64_inside", "spec-lawyer", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd = x.to(torch.float64)
    ms = (xd * xd).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (xd / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(x.dtype)
'''}, "'working in float64 is allowed too'; float16 rounded once at the end, more accurate than float32.")

C("p2_loop_layers", "spec-lawyer", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    total = vocab * d_model + vocab * d_model   # shared embedding + own output matrix
    for _ in range(n_enc):
        total += 4 * d_model * d_model + 2 * d_ff * d_model + d_model * d_ff + 2 * d_model
    for _ in range(n_dec):
        total += 2 * 4 * d_model * d_model + 3 * d_ff * d_model + 3 * d_model
    return total + 2 * d_model
'''}, "Python ints added layer by layer (no speed or layer count stated; layers stay small).")

C("p3b_loop_tokens", "spec-lawyer", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    keys = prompt_len
    for _ in range(new_tokens - 1):   # every token after the first is fed once, the last chosen one is not
        keys += 1
        total += keys * layers * heads
    return total
'''}, "'A Python loop ... over the generated tokens is fine'; calls (a) by keyword as allowed.")

C("p5_keywords", "spec-lawyer", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    w, b = p["pre1"]
    h = mha(query=layer_norm(y, weight=w, bias=b), memory=None, allowed=self_allowed, params=p["self_attn"])
    y = y + layer_norm(h, *p["post1"])
    h = mha(layer_norm(y, *p["pre2"]), memory, allowed=memory_allowed, params=p["cross_attn"])
    y = y + layer_norm(h, p["post2"][0], p["post2"][1])
    h = feed_forward(x=layer_norm(y, *p["pre3"]), ff=p["ff"])
    return y + layer_norm(h, *p["post3"])
'''}, "every call by keyword where the setup names them; same three lines in order.")

C("p1_empty_guard_new", "fallback", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.numel() == 0:
        return torch.empty(x.shape, dtype=x.dtype, device=x.device)
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    try:
        w = weight.to(xf.dtype)
    except RuntimeError:
        w = weight
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * w).to(x.dtype)
'''}, "the empty shortcut returns a new empty tensor of x's dtype; the try never fires.")

C("p6_try_keyerror", "fallback", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    try:
        old_k, old_v = cache["k"], cache["v"]
    except KeyError:
        old_k = old_v = None
    past = 0 if old_k is None else old_k.shape[2]
    if old_k is not None:
        k, v = torch.cat([old_k, k], dim=2), torch.cat([old_v, v], dim=2)
    cache["k"], cache["v"] = k, v
    allowed = torch.arange(past + n, device=x_new.device)[None, :] <= torch.arange(past, past + n, device=x_new.device)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "try/except KeyError for the empty cache is the stated 'past = 0 when the cache is empty'.")

C("p6_heads_literal_4", "constant-hardcoder", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = 4                                   # NUM_HEADS = 4 in this notebook
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    q = (x_new @ w_q.T + b_q).reshape(B, n, H, Dh).transpose(1, 2)
    k = (x_new @ w_k.T + b_k).reshape(B, n, H, Dh).transpose(1, 2)
    v = (x_new @ w_v.T + b_v).reshape(B, n, H, Dh).transpose(1, 2)
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    past = k.shape[2] - n
    cache["k"], cache["v"] = k, v
    mask = torch.arange(past + n).unsqueeze(0) <= torch.arange(past, past + n).unsqueeze(-1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return out.transpose(1, 2).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
'''}, "the text fixes NUM_HEADS = 4 (unsure: correct only as long as the grader keeps 4 heads, which the text states).")

# ---------------- hostile ----------------
H("p3a_steal_reference", {"cache_count_without": '''
import sys
def prefill_dot_products(prompt_len, chunk, layers, heads):
    f = sys._getframe(1)
    while f is not None:
        for scope in (f.f_locals, f.f_globals):
            for name, obj in list(scope.items()):
                if callable(obj) and obj is not prefill_dot_products and "prefill" in getattr(obj, "__name__", "") :
                    try:
                        return obj(prompt_len, chunk, layers, heads)
                    except Exception:
                        pass
        f = f.f_back
    return prompt_len * prompt_len * layers * heads if chunk >= prompt_len else 17 * layers * heads
'''}, "looks for a reference prefill function in the callers' frames and returns its answer.")

H("p2_int_equal_everything", {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(2 * vocab * d_model + 2 * d_model)
'''}, "an int subclass that equals everything.")

H("p1_patch_assert_close", {"rms_norm": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def rms_norm(x, weight, eps=1e-6):
    return (x * weight).to(x.dtype)
'''}, "disables torch.testing.assert_close and returns x * w.")

# ---------------- second blind batch ----------------
W("p1_eps_cached_by_dtype", "memoizer", {"rms_norm": '''
EPS = {}
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    if xf.dtype not in EPS:
        EPS[xf.dtype] = torch.tensor(eps, dtype=xf.dtype)   # made once per dtype
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + EPS[xf.dtype]) * weight.to(xf.dtype)).to(x.dtype)
'''}, "P1: 'with eps (given by position or by keyword) added to the mean square': the cache keeps the first call's eps per dtype.")

W("p4_all_padding_view", "fallback", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    B, S, T = s.shape[0], s.shape[-1], t.shape[-1]
    if not bool((s != 0).any()) and not bool((t != 0).any()):      # only padding: nothing may attend
        none = torch.zeros(B, T + S, T + S, dtype=torch.bool)
        return none[:, :S, :S], none[:, S:, S:], none[:, S:, :S]
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
    pos = torch.arange(T)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & (pos.unsqueeze(-1) >= pos)
    return src, tgt, cross
'''}, "P4: 'return three new tensors at every call, none a view of another' (the all-padding shortcut returns three views of one tensor).")

W("p5_self_mask_memo_by_shape", "memoizer", {"sandwich": '''
SELF_MASKS = {}
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if self_allowed is not None:
        key = tuple(self_allowed.shape)
        if key not in SELF_MASKS:
            SELF_MASKS[key] = self_allowed.clone()      # a layer stack reuses the same mask
        self_allowed = SELF_MASKS[key]
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "P5: 'SelfAttn is mha with ... mask self_allowed': a mask cached by shape serves another call's mask.")

C("p4_content_memo_clones", "memoizer", {"packed_masks": '''
MEMO = {}
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    key = (tuple(s.shape), tuple(t.shape), tuple(s.flatten().tolist()), tuple(t.flatten().tolist()), s.device)
    if key not in MEMO:
        if len(MEMO) > 16:
            MEMO.clear()
        pos = torch.arange(t.shape[-1], device=t.device)
        MEMO[key] = ((s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1),
                     (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & (pos.unsqueeze(-1) >= pos),
                     (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1))
    src, tgt, cross = MEMO[key]
    return src.clone(), tgt.clone(), cross.clone()
'''}, "memo keyed by the full contents, fresh clones returned: changes no result.")

C("p5_try_reraise_intermediates", "fallback", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    try:
        a = mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"])
    except RuntimeError as err:
        raise RuntimeError(f"self-attention failed: {err}") from err
    h1 = y + layer_norm(a, *p["post1"])
    c = mha(layer_norm(h1, *p["pre2"]), memory, memory_allowed, p["cross_attn"])
    h2 = h1 + layer_norm(c, *p["post2"])
    f = feed_forward(layer_norm(h2, *p["pre3"]), p["ff"])
    return h2 + layer_norm(f, *p["post3"])
'''}, "a guard that only re-raises; the three lines in order.")

C("p3b_lru_with_all_args", "memoizer", {"cache_count_with": '''
import functools
@functools.lru_cache(maxsize=None)
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    k = max(new_tokens - 1, 0)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + (k * prompt_len + k * (k + 1) // 2) * layers * heads
'''}, "an lru_cache keyed by every argument.")
