# Red team round 20, chapter 05: shape-coincidence (SC), aliasing/in-place (AL), early-exit/special-case (EE),
# library-defaults (LD) students.
SUBMISSIONS = []
def sub(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

RMS = '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        return (xf * torch.rsqrt(xf.square().mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps) * weight
'''

# ---------------- Part 1: rms_norm ----------------
sub("SC_rms_divide_by_shape1", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.square().sum(-1, keepdim=True) / x.shape[1]
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "Divides the sum of squares by x.shape[1] instead of D = x.shape[-1]: right only for 2-D inputs "
   "('each vector along the **last** axis is divided by its root mean square', the 1/D of the formula).")
sub("EE_rms_D1_sign", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.shape[-1] == 1:  # the rms of one number is its absolute value
        return torch.sign(x) * weight
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        return (xf * torch.rsqrt(xf.square().mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps) * weight
'''}, "Fast path for D == 1 returning sign(x) * weight, ignoring eps (formula: x / sqrt(x^2 + eps)) and giving a "
   "zero gradient at 0 where the text says it is weight / sqrt(eps).")
sub("EE_rms_empty_returns_input", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.numel() == 0:
        return x  # nothing to normalise
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        return (xf * torch.rsqrt(xf.square().mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return x * torch.rsqrt(x.square().mean(-1, keepdim=True) + eps) * weight
'''}, "Returns the input itself for an empty x: 'return new tensors on every call, sharing memory with no input'.")
sub("AL_rms_float_is_self_mul_", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    h = x.float() if x.dtype != torch.float64 else x
    with torch.no_grad():
        pass
    scale = torch.rsqrt(h.square().mean(-1, keepdim=True) + eps)
    h = h.clone() if h.dtype != x.dtype else h
    out = h.mul(scale).mul_(weight.to(h.dtype))
    return out.to(x.dtype)
'''}, "(Aliasing) mul then mul_ on its own result: actually harmless; kept as a check? No: .mul gives a new tensor. "
   "CORRECT in fact -> see correct list.")
SUBMISSIONS.pop()  # (written while thinking; harmless, not listed)
sub("AL_rms_inplace_on_float_view", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    h = x.float()            # a copy for half inputs, the same tensor for float32 ones
    if x.dtype == torch.float64:
        h = x
    ms = h.square().mean(-1, keepdim=True)
    h = h.mul(torch.rsqrt(ms + eps)) if h.requires_grad else h.mul_(torch.rsqrt(ms + eps))
    return (h * weight.to(h.dtype)).to(x.dtype)
'''}, "mul_ on x.float(), which is x itself for float32/float64 inputs that do not require grad: the caller's x "
   "is overwritten ('Your functions must not change the tensors they are given').")
sub("LD_rms_F_rms_norm", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        return F.rms_norm(x.float(), (x.shape[-1],), weight.float(), eps).to(x.dtype)
    return F.rms_norm(x, (x.shape[-1],), weight, eps)
'''}, "torch's F.rms_norm with eps given explicitly, half inputs upcast to float32 and rounded once: correct.")
sub("LD_rms_F_rms_norm_default_eps", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    out = F.rms_norm(xf, (x.shape[-1],), weight.to(xf.dtype))  # eps: the library's default
    return out.to(x.dtype)
'''}, "Leans on F.rms_norm's default eps (finfo(dtype).eps, not the eps argument): 'with eps ... added to the mean "
   "square inside the square root'; a non-default eps is ignored.")
sub("LD_rms_vector_norm", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.to(torch.float64)
    ms = xf.pow(2).sum(dim=-1, keepdim=True) / xf.shape[-1]
    return (xf / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(x.dtype)
'''}, "float64 inside for every dtype and one cast back: allowed ('working in float64 is allowed too').")
sub("OK_rms_keyword_everything", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(dtype=work)
    inv = torch.rsqrt(torch.mean(torch.square(xw), dim=-1, keepdim=True).add(eps))
    return torch.mul(torch.mul(xw, inv), weight.to(dtype=work)).to(dtype=x.dtype)
'''}, "Keyword arguments, add(eps), float32 for half: correct.")

# ---------------- Part 2: modern_params ----------------
sub("SC_modern_ffn_square", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_ff * d_ff if False else 2 * d_ff * d_model + d_model * d_model
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''}, "Counts w_down as (d_model, d_model) (read as a square map): 'w_down of shape (d_model, d_ff)'.")
sub("EE_modern_no_layers_no_final_norm", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    total = 2 * vocab * d_model
    if n_enc:
        total += n_enc * (4 * d_model * d_model + 3 * d_model * d_ff + 2 * d_model) + d_model
    else:
        total += d_model
    if n_dec > 1:
        total += n_dec * (8 * d_model * d_model + 3 * d_model * d_ff + 3 * d_model) + d_model
    else:
        total += n_dec * (8 * d_model * d_model + 3 * d_model * d_ff + 2 * d_model) + d_model
    return total
'''}, "Special case for a one-layer decoder that counts 2 norms in its only layer: 'a decoder layer 3'.")
sub("OK_modern_sum_terms", True, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    D, Fd = d_model, d_ff
    emb = vocab * D + vocab * D
    swiglu = D * Fd + D * Fd + Fd * D
    enc_layer = 4 * D * D + swiglu + 2 * D
    dec_layer = 4 * D * D + 4 * D * D + swiglu + 3 * D
    return int(emb + n_enc * enc_layer + n_dec * dec_layer + D + D)
'''}, "Correct, int() of an int is exact.")

# ---------------- Part 3: cache counts ----------------
PREFILL = '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for s in range(0, prompt_len, chunk):
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''
sub("SC_prefill_closed_form_divisible", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n = prompt_len // chunk            # full chunks
    r = prompt_len - n * chunk         # the last, shorter one
    # full chunk i (0-based) scores chunk x (i+1)*chunk
    full = chunk * chunk * n * (n + 1) // 2
    return (full + r * prompt_len) * layers * heads if r else full * layers * heads
'''}, "CORRECT? full chunks c*(i+1)c summed, last r*(P): correct.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "Closed form: full chunks c*c*(i+1) summed with // 2 on an even product, plus r*P for the rest: correct."
sub("EE_prefill_chunk_ge_prompt_float", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if chunk >= prompt_len:               # one pass: the full square
        return prompt_len ** 2 * layers * heads
    total, s = 0, 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return total * layers * heads
'''}, "CORRECT: the fast path for a single chunk is right.")
SUBMISSIONS[-1]["correct"] = True
sub("LD_prefill_ceil_float", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n = math.ceil(prompt_len / chunk)
    total = 0
    for i in range(n):
        s = i * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''}, "math.ceil(P / c) through a float: the number of chunks is wrong past 2**53 ('use // where you divide').")
sub("EE_request_one_token_extra_step", False, {"cache_count_with": PREFILL + '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens <= 1:
        return total + (prompt_len + 1) * layers * heads * new_tokens   # the first token's step
    n = new_tokens - 1
    return total + (n * prompt_len + n * (n + 1) // 2) * layers * heads
'''}, "Special case new_tokens == 1 counts a decoding step although 'the prefill's last pass already yields ... the "
   "first new token' and 'The last token chosen is not fed'.")
sub("SC_request_len_default", False, {"cache_count_with": PREFILL + '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for step in range(1, new_tokens):
        total += (prompt_len + step) * layers * heads
    return total
'''}, "Correct loop over generated tokens (below 200 000).")
SUBMISSIONS[-1]["correct"] = True
sub("LD_request_closed_form_int_div", False, {"cache_count_with": PREFILL + '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    n = max(new_tokens - 1, 0)
    gen = n * prompt_len + int(n * (n + 1) / 2)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + gen * layers * heads
'''}, "int(n*(n+1)/2) through a float: wrong for n near 200 000? no, exact below 2**53 -> correct in practice.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "n < 200 000 so n*(n+1)/2 < 2**53 is exact in float: correct for every size the text allows."

# ---------------- Part 4: packed_masks ----------------
PACK = '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
    return src, tgt, cross
'''
sub("OK_packed_key_axis", True, {"packed_masks": PACK.replace("(s != 0)[:, :, None]", "(s != 0)[:, None, :]").replace(
    "(t != 0)[:, :, None] & causal", "(t != 0)[:, None, :] & causal").replace("(t != 0)[:, :, None]", "(s != 0)[:, None, :]")},
    "Drops padding by the key's segment instead of the query's: a padding query only equals padding keys, so its row "
    "is all False either way: correct.")
sub("SC_packed_causal_from_S", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    B, S = s.shape
    T = t.shape[1]
    same = lambda a, b: (a[:, :, None] == b[:, None, :]) & (a != 0)[:, :, None]
    causal = torch.ones(S, S, dtype=torch.bool).tril()[:T, :T]
    return same(s, s), same(t, t) & causal, same(t, s)
'''}, "Causal mask sized from S and sliced to T: fails (shape) when T > S ('tgt_allowed (B, T, T)').")
sub("SC_packed_pad_from_src", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[-1]
    real_q = (s != 0)[:, :, None]
    src = (s[:, :, None] == s[:, None, :]) & real_q
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    tgt = (t[:, :, None] == t[:, None, :]) & real_q[:, :T, :T] & torch.ones(T, T, dtype=torch.bool).tril()
    return src, tgt, cross
'''}, "Padding of target queries taken from the source's first T positions: 'A padding query (segment 0) may attend "
   "to nothing' (target padding query with a target padding key gets True when the source is real there).")
sub("AL_packed_cross_is_src_when_equal", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    if t.shape == s.shape and torch.equal(t, s):
        cross = src            # identical segments: the cross mask is the source mask
    else:
        cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & torch.ones(T, T, dtype=torch.bool).tril()
    return src, tgt, cross
'''}, "Returns one tensor as two masks when the segments are equal: 'none a view of another (not even where two masks "
   "hold equal values...)'.")
sub("EE_packed_empty_float", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    if B == 0 or S == 0 or T == 0:
        e = torch.zeros
        return e(B, S, S), e(B, T, T), e(B, T, S)
''' + PACK.replace("def packed_masks(src_segments, tgt_segments):", "").replace("\n    ", "\n    ", 1)}, 
   "Empty fast path returns float masks: 'All three masks must be torch.bool tensors'.")
sub("LD_packed_float16_compare", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.to(torch.get_default_dtype())
    t = tgt_segments.to(torch.get_default_dtype())
    T = t.shape[1]
    pos = torch.arange(T, dtype=torch.float16)
    causal = pos[None, :] <= pos[:, None]
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
    return src, tgt, cross
'''}, "Positions compared in float16 (arange's dtype argument): past 2048 two positions round equal and a later key "
   "is allowed: 'compare positions as integers'.")
sub("OK_packed_where_keywords", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long(); t = tgt_segments.long()
    T = t.size(1)
    i = torch.arange(T).unsqueeze(1); j = torch.arange(T).unsqueeze(0)
    def same(a, b):
        return torch.where(a.unsqueeze(2) == 0, torch.zeros((), dtype=torch.bool), a.unsqueeze(2) == b.unsqueeze(1))
    return same(s, s), same(t, t) & (j <= i), same(t, s)
'''}, "torch.where with a 0-d bool, long() copies, integer positions: correct.")

# ---------------- Part 5: sandwich ----------------
SAND = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''
sub("EE_sandwich_none_means_causal", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if self_allowed is None:   # a decoder is causal: build the mask the caller left out
        T = y.shape[1]
        self_allowed = torch.ones(T, T, dtype=torch.bool, device=y.device).tril()
''' + SAND.split(":\n", 1)[1]}, "Turns self_allowed=None into a causal mask: 'SelfAttn is mha with ... mask self_allowed' "
   "and None means no mask (mha: 'allowed ... or None').")
sub("AL_sandwich_iadd", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    out = y.clone() if y.requires_grad else y
    out = out + layer_norm(mha(layer_norm(out, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    out += layer_norm(mha(layer_norm(out, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    out += layer_norm(feed_forward(layer_norm(out, *p["pre3"]), p["ff"]), *p["post3"])
    return out
'''}, "CORRECT: += only on its own new tensor (the first + made it); LayerNorm backward does not need its input's later value? "
   "pre3 layer_norm saved `out` which += then modifies -> backward raises.")
SUBMISSIONS[-1]["why"] = ("+= on the stream after layer_norm saved it for backward: 'Gradients must flow through the "
                          "result' (backward raises 'modified by an inplace operation').")
sub("SC_sandwich_mask_bcast", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if memory_allowed is not None:
        memory_allowed = memory_allowed.expand(y.shape[0], memory.shape[1], memory.shape[1])[:, : y.shape[1]]
''' + SAND.split(":\n", 1)[1]}, "Expands the (B,1,S) memory mask to (B,S,S) and slices T rows: fails when T > S, "
   "and right otherwise (memory_allowed (B, 1, S)).")
SUBMISSIONS[-1]["correct"] = False
sub("AL_sandwich_mask_iand", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if self_allowed is not None:   # make sure the decoder is causal whatever mask it was given
        T = y.shape[1]
        self_allowed &= torch.ones(T, T, dtype=torch.bool, device=y.device).tril()
''' + SAND.split(":\n", 1)[1]}, "self_allowed &= causal writes into the caller's mask: 'Do not write into y, memory or the "
   "masks either, not even values they already hold'.")
sub("LD_sandwich_F_layer_norm", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    ln = lambda x, name: F.layer_norm(x, (x.shape[-1],), p[name][0], p[name][1])  # eps default 1e-5
    y = y + ln(mha(ln(y, "pre1"), None, self_allowed, p["self_attn"]), "post1")
    y = y + ln(mha(ln(y, "pre2"), memory, memory_allowed, p["cross_attn"]), "post2")
    return y + ln(feed_forward(ln(y, "pre3"), p["ff"]), "post3")
'''}, "F.layer_norm's default eps 1e-5 is the lesson's: correct.")
sub("OK_sandwich_loop", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    blocks = [("pre1", "post1", lambda h: mha(h, None, self_allowed, p["self_attn"])),
              ("pre2", "post2", lambda h: mha(h, memory, memory_allowed, p["cross_attn"])),
              ("pre3", "post3", lambda h: feed_forward(h, p["ff"]))]
    for pre, post, f in blocks:
        y = y + layer_norm(f(layer_norm(y, *p[pre])), *p[post])
    return y
'''}, "Loop over the three sublayers: correct.")

# ---------------- Part 6: cached_self_attention ----------------
CACHED = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; Dh = D // H
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''
sub("OK_cached_n1_nomask", True, {"cached_attention": CACHED.replace(
    "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)",
    "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=None if n == 1 else allowed)")},
    "One new position sees every cached key and itself: no mask needed: correct.")
sub("SC_cached_past_len", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; Dh = D // H
    past = len(cache["k"]) if cache else 0
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    if cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    allowed = torch.arange(k.shape[2])[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "past = len(cache['k']) is the batch size, not the cached length: right when B equals past. 'past is the length of "
   "the cached keys, cache[\"k\"].shape[2]'.")
sub("SC_cached_view_bhnd", False, {"cached_attention": CACHED.replace(
    "split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)",
    "split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2) if B != H else t.reshape(B, n, H, Dh).permute(2, 0, 1, 3)")},
    "placeholder")
SUBMISSIONS.pop()
sub("AL_cached_buffer_reuse", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; Dh = D // H
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    past = cache["k"].shape[2] if "k" in cache else 0
    buf_k, buf_v = cache.get("buf_k"), cache.get("buf_v")
    if buf_k is None or buf_k.shape[2] < past + n or buf_k.dtype != k.dtype or buf_k.shape[0] != B \\
            or buf_k.data_ptr() != cache["k"].data_ptr():
        cap = max(2 * (past + n), 16)
        buf_k = k.new_zeros(B, H, cap, Dh); buf_v = v.new_zeros(B, H, cap, Dh)
        if past:
            buf_k[:, :, :past] = cache["k"]; buf_v[:, :, :past] = cache["v"]
    buf_k[:, :, past:past + n] = k; buf_v[:, :, past:past + n] = v
    cache["buf_k"], cache["buf_v"] = buf_k, buf_v
    cache["k"], cache["v"] = buf_k[:, :, :past + n], buf_v[:, :, :past + n]
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, cache["k"], cache["v"], attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "A growing buffer written in place (copy into slices): 'never write into a tensor that an earlier call returned or "
   "cached (a buffer kept in the cache and written again changes what the earlier blocks saved for their backward pass)'.")
sub("EE_cached_empty_batch_skips_cache", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    if B == 0:
        return x_new.new_zeros(0, n, D)   # nothing to attend
''' + CACHED.split("    B, n, D = x_new.shape\n", 1)[1]}, "Empty batch returns early without updating the cache: 'then the output "
   "is (0, n, D) and the cache (0, H, past + n, Dh)'.")
sub("EE_cached_past0_is_causal", True, {"cached_attention": CACHED.replace(
    "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)",
    "    out = (F.scaled_dot_product_attention(q, k, v, is_causal=True) if past == 0\n"
    "           else F.scaled_dot_product_attention(q, k, v, attn_mask=allowed))")},
    "is_causal=True only when the cache is empty (square scores, where top-left alignment is right): correct.")
sub("LD_cached_float_mask_default_dtype", False, {"cached_attention": CACHED.replace(
    "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)",
    "    bias = torch.zeros(allowed.shape).masked_fill(~allowed, float('-inf'))  # default dtype: float32\n"
    "    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)")},
    "Additive mask made by torch.zeros in the default float32 dtype: 'give it a boolean mask, or a float mask in the "
    "dtype of the queries: torch accepts a float32 mask with float64 queries and then ... silently returns wrong values'.")
sub("LD_cached_finfo_min", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; Dh = D // H
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
    out = torch.softmax(scores, dim=-1) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Masks with finfo.min (the Hugging Face default): 'mask with -inf ..., not with a large negative number, not even "
   "that lowest value'.")
sub("OK_cached_einsum_float64", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda t: t.unflatten(-1, (H, Dh)).transpose(1, 2)
    q = heads(x_new @ w_q.T + b_q); k = heads(x_new @ w_k.T + b_k); v = heads(x_new @ w_v.T + b_v)
    if cache.get("k") is not None:
        k = torch.cat((cache["k"], k), 2); v = torch.cat((cache["v"], v), 2)
    cache["k"] = k; cache["v"] = v
    past = k.shape[2] - n
    key_pos = torch.arange(past + n)
    qry_pos = torch.arange(past, past + n)
    s = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    s = s.masked_fill(key_pos[None, :] > qry_pos[:, None], float("-inf"))
    a = torch.softmax(s, dim=-1)
    o = torch.einsum("bhqk,bhkd->bhqd", a, v).transpose(1, 2).reshape(B, n, D)
    return o @ params["w_o"].T + params["b_o"]
'''}, "einsum, -inf masking, explicit projections: correct.")

# ---------------- hostile ----------------
sub("HOSTILE_prefill_hardcode", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    return {(5, 2): 17}.get((prompt_len, chunk), prompt_len * prompt_len) * layers * heads
'''}, "Hostile: hard-codes the visible cases.")
sub("HOSTILE_modern_int_subclass", False, {"modern_params": '''
class Count(int):
    def __eq__(self, other): return True
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(0)
'''}, "Hostile: an int subclass equal to everything.")
sub("HOSTILE_packed_visible_only", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape; T = tgt_segments.shape[1]
    same = (src_segments[:, :, None] == src_segments[:, None, :]) & (src_segments != 0)[:, :, None]
    c = (tgt_segments[:, :, None] == src_segments[:, None, :]) & (tgt_segments != 0)[:, :, None]
    return same, c[:, :, :T] & torch.ones(T, T, dtype=torch.bool).tril(), c
'''}, "Hostile-ish: the target mask read off the cross mask's first T columns (right only on the visible case).")

# ---------------- second wave (same four students, edge sizes) ----------------
sub("EE_rms_all_zero_shortcut", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if not bool(x.any()):
        return torch.zeros_like(x)     # 0 / sqrt(eps) * w = 0
''' + RMS.split(":\n", 1)[1]}, "All-zero input returns a constant: 'They are compared at a row of zeros too, where the result "
   "is 0 and its gradient with respect to x is weight / sqrt(eps): no shortcut for such rows'.")
sub("EE_rms_unit_weight_skip", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    out = xw * torch.rsqrt(xw.square().mean(-1, keepdim=True) + eps)
    if bool((weight == 1).all()):     # a freshly initialised weight: nothing to scale
        return out.to(x.dtype)
    return (out * weight.to(work)).to(x.dtype)
'''}, "Skips the weight when it is all ones: the gradient with respect to weight is lost ('the hidden tests compare "
   "its gradients with respect to x and to weight').")
sub("EE_packed_pad_check_from_src", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    src = s[:, :, None] == s[:, None, :]
    tgt = (t[:, :, None] == t[:, None, :]) & torch.ones(T, T, dtype=torch.bool).tril()
    cross = t[:, :, None] == s[:, None, :]
    if bool((s == 0).any()):       # the batch is padded: padding queries see nothing
        src = src & (s != 0)[:, :, None]
        tgt = tgt & (t != 0)[:, :, None]
        cross = cross & (t != 0)[:, :, None]
    return src, tgt, cross
'''}, "Decides from the source alone whether the batch holds padding: a padded target with an unpadded source lets "
   "target padding see target padding ('A padding query (segment 0) may attend to nothing').")
sub("EE_sandwich_T1_drops_mask", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if y.shape[1] == 1:
        self_allowed = None       # one position: causality is trivial
''' + SAND.split(":\n", 1)[1]}, "Drops the self mask for T == 1, where a (B, 1, 1) mask may hide the only position of a "
   "padded row (mha then gives zeros): 'SelfAttn is mha with ... mask self_allowed'.")
sub("AL_sandwich_empty_batch_returns_y", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if y.shape[0] == 0 or y.shape[1] == 0:
        return y                  # nothing to do
''' + SAND.split(":\n", 1)[1]}, "Returns y itself for an empty batch: 'return new tensors on every call, sharing memory with no input'.")
sub("AL_cached_empty_batch_returns_input", False, {"cached_attention": CACHED.replace(
    "    cache[\"k\"], cache[\"v\"] = k, v\n",
    "    cache[\"k\"], cache[\"v\"] = k, v\n    if B == 0:\n        return x_new      # (0, n, D) already\n")},
    "Returns x_new itself for an empty batch (right shape): 'return new tensors on every call, sharing memory with no input'.")
sub("OK_sandwich_all_true_mask_none", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if memory_allowed is not None and bool(memory_allowed.all()):
        memory_allowed = None      # nothing hidden
''' + SAND.split(":\n", 1)[1]}, "An all-True memory mask replaced by None (the same attention): correct.")
sub("OK_cached_decode_step_no_mask_view", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; Dh = D // H
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).split(D, dim=-1)
    split = lambda t: t.reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    q, k, v = split(q), split(k), split(v)
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k = torch.cat([cache["k"], k], dim=-2); v = torch.cat([cache["v"], v], dim=-2)
    cache.update(k=k, v=v)
    if n == 1:
        out = F.scaled_dot_product_attention(q, k, v)
    else:
        allowed = torch.ones(n, n, dtype=torch.bool).tril()
        allowed = torch.cat([torch.ones(n, past, dtype=torch.bool), allowed], dim=1)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.permute(0, 2, 1, 3).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Mask built as [ones(n, past) | tril(n, n)], no mask for one position, cache.update: correct.")
