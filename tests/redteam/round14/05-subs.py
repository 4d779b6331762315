BASE = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    low = x.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    wf = weight.to(xf.dtype)
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * wf
    return out.to(x.dtype)
''',
"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    D, Fd = d_model, d_ff
    enc = 4 * D * D + 3 * D * Fd + 2 * D
    dec = 8 * D * D + 3 * D * Fd + 3 * D
    return 2 * vocab * D + n_enc * enc + n_dec * dec + 2 * D
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
    n = max(new_tokens - 1, 0)
    total += layers * heads * (n * prompt_len + n * (n + 1) // 2)
    return total
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long(); t = tgt_segments.long()
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
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
    H = NUM_HEADS; Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    def split(t):
        return t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q)); k = split(F.linear(x_new, w_k, b_k)); v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    total = k.shape[2]; past = total - n
    allowed = torch.arange(total)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    out = out.transpose(1, 2).reshape(B, n, D)
    return F.linear(out, params["w_o"], params["b_o"])
''',
}

S = []
def W(name, kind, cells, why): S.append({"name": name, "correct": False, "kind": kind, "cells": cells, "why": why})
def C(name, kind, cells, why): S.append({"name": name, "correct": True, "kind": kind, "cells": cells, "why": why})
def X(name, cells, why): S.append({"name": name, "correct": False, "kind": "hostile", "hostile": True, "cells": cells, "why": why})

# ---------------- Part 1
W("p1_hf_llama_rmsnorm", "tutorial", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    input_dtype = x.dtype
    hidden_states = x.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + eps)
    return weight * hidden_states.to(input_dtype)
'''}, "'a float64 input must not pass through float32' and 'or a second rounding before the weight is applied, is not accurate enough' (HF LlamaRMSNorm)")
W("p1_meta_type_as_then_weight", "tutorial", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    def _norm(t):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + eps)
    if x.dtype == torch.float64:
        return _norm(x) * weight
    output = _norm(x.float()).type_as(x)
    return output * weight
'''}, "'or a second rounding before the weight is applied, is not accurate enough' (Meta llama RMSNorm: type_as then * weight)")
W("p1_own_dtype_half", "hurried", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    rms = torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps)
    return x / rms * weight
'''}, "'Arithmetic in float16 or bfloat16 (squares, the mean, the weight) ... is not accurate enough' / 'float16 values up to a few hundred, whose squares do not fit'")
W("p1_eps_outside_sqrt", "misconception", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.double()
    rms = xf.pow(2).mean(dim=-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight.double()).to(x.dtype)
'''}, "'with eps ... added to the mean square inside the square root'")
W("p1_axis_fixed_dim1", "tutorial", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(dim=1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "'each vector along the **last** axis is divided by its root mean square' (dim fixed for the 2-D/3-D input at hand)")
W("p1_eps_keyword_ignored", "hurried", {"rms_norm": '''
EPS = 1e-6
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "'with eps (given by position or by keyword) added to the mean square'")
# ---------------- Part 2
W("p2_decoder_two_norms", "misconception", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc_layer = attn + ffn + 2 * d_model
    dec_layer = 2 * attn + ffn + 2 * d_model
    return 2 * vocab * d_model + n_enc * enc_layer + n_dec * dec_layer + 2 * d_model
'''}, "'An encoder layer has 2 of them, a decoder layer 3'")
W("p2_ffn_two_matrices", "source", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model ** 2
    ffn = 2 * d_model * d_ff
    return 2 * vocab * d_model + n_enc * (attn + ffn + 2 * d_model) + n_dec * (2 * attn + ffn + 3 * d_model) + 2 * d_model
'''}, "'every feed-forward network is **gated** (SwiGLU) ... w_gate and w_up ... and w_down'")
W("p2_linear_biases", "tutorial", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    lin = lambda i, o: i * o + o   # nn.Linear(i, o)
    attn = 4 * lin(d_model, d_model)
    ffn = 2 * lin(d_model, d_ff) + lin(d_ff, d_model)
    return 2 * vocab * d_model + n_enc * (attn + ffn + 2 * d_model) + n_dec * (2 * attn + ffn + 3 * d_model) + 2 * d_model
'''}, "'no linear map anywhere has a bias'")
# ---------------- Part 3
W("p3a_float_ceil_chunks", "hurried", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n_chunks = math.ceil(prompt_len / chunk)
    total = 0
    for i in range(n_chunks):
        s = i * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''}, "'a float (any /) and an int64 tensor are no longer exact: ... use // where you divide'")
W("p3a_closed_form_half", "hurried", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    k, r = divmod(prompt_len, chunk)
    full = int(chunk * chunk * k * (k + 1) / 2)
    return (full + r * (k * chunk + r)) * layers * heads
'''}, "'where a float (any /) ... no longer exact: work with Python integers, and use //'")
W("p3b_closed_form_float", "hurried", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    n = max(new_tokens - 1, 0)
    gen = n * prompt_len + n * (n + 1) / 2
    return prefill_dot_products(prompt_len, chunk, layers, heads) + int(gen) * layers * heads
'''}, "'use // where you divide' (counts past 2**64)")
# ---------------- Part 4
W("p4_one_hot_max", "tutorial", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    n = int(max(src_segments.max(), tgt_segments.max())) + 1
    s = F.one_hot(src_segments.long(), n)[..., 1:].float()
    t = F.one_hot(tgt_segments.long(), n)[..., 1:].float()
    src = (s @ s.transpose(1, 2)) > 0
    cross = (t @ s.transpose(1, 2)) > 0
    T = t.shape[1]
    tgt = ((t @ t.transpose(1, 2)) > 0) & torch.tril(torch.ones(T, T)).bool()
    return src, tgt, cross
'''}, "'The batch may also be empty (B = 0 ...) ... (an empty tensor has no maximum: size nothing from .max())'")
W("p4_one_hot_no_long", "hurried", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    if B == 0:
        return torch.zeros(0, S, S, dtype=torch.bool), torch.zeros(0, T, T, dtype=torch.bool), torch.zeros(0, T, S, dtype=torch.bool)
    n = int(max(src_segments.max(), tgt_segments.max())) + 1
    s = F.one_hot(src_segments, n)[..., 1:]
    t = F.one_hot(tgt_segments, n)[..., 1:]
    src = torch.einsum('bik,bjk->bij', s, s) > 0
    cross = torch.einsum('bik,bjk->bij', t, s) > 0
    tgt = (torch.einsum('bik,bjk->bij', t, t) > 0) & torch.ones(T, T, dtype=torch.bool).tril()
    return src, tgt, cross
'''}, "'integer tensors (int64 or int32)' (F.one_hot takes only int64)")
W("p4_tgt_pad_not_excluded", "hurried", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    pad_s = src_segments != 0
    src = (src_segments.unsqueeze(2) == src_segments.unsqueeze(1)) & pad_s.unsqueeze(2)
    cross = (tgt_segments.unsqueeze(2) == src_segments.unsqueeze(1)) & pad_s.unsqueeze(1)
    T = tgt_segments.size(-1)
    tgt = (tgt_segments.unsqueeze(2) == tgt_segments.unsqueeze(1)) & torch.ones(T, T, dtype=torch.bool).tril()
    return src, tgt, cross
'''}, "'A padding query (segment 0) may attend to nothing: its row is all False' (padded targets)")
# ---------------- Part 5
W("p5_memory_normalised", "misconception", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    mem = layer_norm(memory, *p["pre2"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), mem, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "'keys and values from memory **as it is given** (the encoder has already normalised it; this layer does not)'")
W("p5_pre1_everywhere", "hurried", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    w, b = p["pre1"]
    y = y + layer_norm(mha(layer_norm(y, w, b), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, w, b), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, w, b), p["ff"]), *p["post3"])
    return y
'''}, "'where LN_name is layer_norm with p[name]' (pre2, pre3)")
W("p5_causal_and_in_place", "misconception", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    T = y.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    if self_allowed is None:
        self_allowed = causal
    else:
        self_allowed &= causal
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "'Do not write into y, memory or the masks either, not even values they already hold (self_allowed &= causal ...)' and self_allowed None means no mask")
W("p5_ffn_before_cross", "hurried", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return y
'''}, "'computing, in this order' (self, cross, FFN)")
# ---------------- Part 6
CA_HEAD = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
'''
W("p6_counter_in_cache", "hurried", {"cached_attention": CA_HEAD + '''
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q)); k = split(F.linear(x_new, w_k, b_k)); v = split(F.linear(x_new, w_v, b_v))
    past = cache.get("pos", 0)
    if past:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"], cache["pos"] = k, v, past + n
    total = k.shape[2]
    allowed = torch.arange(total)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "'past is the length of the cached keys, cache[\"k\"].shape[2] ...: read it from there, because the caller may shorten'")
W("p6_recompute_from_inputs", "misconception", {"cached_attention": CA_HEAD + '''
    xs = x_new if "x" not in cache else torch.cat([cache["x"], x_new], dim=1)
    cache["x"] = xs
    L = xs.shape[1]; past = L - n
    split = lambda t, l: t.reshape(B, l, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q), n)
    k = split(F.linear(xs, w_k, b_k), L); v = split(F.linear(xs, w_v, b_v), L)
    cache["k"], cache["v"] = k, v
    allowed = torch.arange(L)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "'The entries already in the cache are kept as they are (moved, not recomputed' / 'hand you a cache it filled itself'")
W("p6_full_square_mask_sliced", "tutorial", {"cached_attention": CA_HEAD + '''
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q)); k = split(F.linear(x_new, w_k, b_k)); v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]
    mask = torch.tril(torch.ones(L, L, dtype=torch.bool))[L - n:]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "'(a (past + n) x (past + n) mask, even one sliced to the block's rows afterwards, needs a terabyte there)'")
W("p6_source_view_minus_one", "source", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    batch_size = x_new.size(0)
    d_model = x_new.size(-1); h = NUM_HEADS; d_k = d_model // h
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    Q = F.linear(x_new, w_q, b_q).view(batch_size, -1, h, d_k).transpose(1, 2)
    K = F.linear(x_new, w_k, b_k).view(batch_size, -1, h, d_k).transpose(1, 2)
    V = F.linear(x_new, w_v, b_v).view(batch_size, -1, h, d_k).transpose(1, 2)
    if "k" in cache:
        K = torch.cat([cache["k"], K], dim=2); V = torch.cat([cache["v"], V], dim=2)
    cache["k"], cache["v"] = K, V
    n, L = Q.size(2), K.size(2)
    mask = torch.arange(L)[None, :] <= (L - n + torch.arange(n))[:, None]
    scores = torch.matmul(Q, K.transpose(-2, -1)) / math.sqrt(d_k)
    scores = scores.masked_fill(mask == 0, -1e9)
    attn = torch.softmax(scores, dim=-1)
    output = torch.matmul(attn, V)
    output = output.transpose(1, 2).contiguous().view(batch_size, -1, h * d_k)
    return F.linear(output, params["w_o"], params["b_o"])
'''}, "'The batch may be empty (B = 0) ... (a reshape or view with a -1 cannot size an empty tensor: give every size)'")
C("c_p6_float_mask_float32", "source", {"cached_attention": CA_HEAD + '''
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q)); k = split(F.linear(x_new, w_k, b_k)); v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]; past = L - n
    mask = (torch.arange(L)[None, :] <= (past + torch.arange(n))[:, None]).float()
    mask = mask.masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "float additive mask (generate_square_subsequent_mask style); sdpa casts it to the query's dtype, so float64 stays float64")
W("p6_detached_cache", "tutorial", {"cached_attention": CA_HEAD + '''
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q)); k = split(F.linear(x_new, w_k, b_k)); v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"].detach(), k], dim=2); v = torch.cat([cache["v"].detach(), v], dim=2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]; past = L - n
    allowed = torch.arange(L)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "'the hidden tests compare its gradients with respect to ... the keys and values the caller put in the cache ... do not ... .detach() it'")
W("p6_manual_softmax_no_max", "tutorial", {"cached_attention": CA_HEAD + '''
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q)); k = split(F.linear(x_new, w_k, b_k)); v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]; past = L - n
    allowed = torch.arange(L)[None, :] <= (past + torch.arange(n))[:, None]
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(Dh)) * allowed
    attn = e / e.sum(-1, keepdim=True)
    return F.linear((attn @ v).transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "'The gradient checks include scores in the thousands ..., where no gradient may be NaN or infinite' (softmax without the row maximum)")
W("p6_is_causal_float_scale", "source", {"cached_attention": CA_HEAD + '''
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q)); k = split(F.linear(x_new, w_k, b_k)); v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]; past = L - n
    allowed = torch.arange(L)[None, :] <= (past + torch.arange(n))[:, None]
    scores = torch.matmul(q, k.transpose(-2, -1)) / torch.sqrt(torch.tensor(Dh, dtype=torch.float))
    scores = scores.masked_fill(~allowed, -1e9)
    attn = torch.softmax(scores, dim=-1)
    return F.linear((attn @ v).transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "'compare with a tolerance of ... about 1e-9 in float64' (scale as a float32 tensor, seed 004's torch.sqrt(torch.tensor(head_dim, dtype=torch.float)))")

# ---------------- correct
C("c_p1_float64_inside", "tutorial", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.to(torch.float64)
    ms = (x64 * x64).mean(dim=-1, keepdim=True)
    return (x64 / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(dtype=x.dtype)
'''}, "float64 inside, one cast back: allowed ('working in float64 is allowed too')")
C("c_p1_F_rms_norm", "tutorial", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    return F.rms_norm(x, normalized_shape=(x.size(-1),), weight=weight, eps=eps)
'''}, "torch's nn.functional.rms_norm (opmath float32 for halves, rounded once)")
C("c_p2_loop_layers", "hurried", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    total = vocab * d_model + vocab * d_model
    for _ in range(n_enc):
        total += 4 * d_model * d_model + 3 * d_ff * d_model + 2 * d_model
    for _ in range(n_dec):
        total += 2 * 4 * d_model * d_model + 3 * d_ff * d_model + 3 * d_model
    total += d_model + d_model
    return int(total)
'''}, "loop over layers")
C("c_p3a_closed_form_floordiv", "source", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    k, r = divmod(prompt_len, chunk)
    full = chunk * chunk * (k * (k + 1) // 2)
    return (full + r * (k * chunk + r)) * layers * heads
'''}, "closed form with //")
C("c_p3b_loop_calls_prefill", "tutorial", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    for pos in range(prompt_len, prompt_len + new_tokens - 1):
        total += (pos + 1) * layers * heads
    return total
'''}, "calls Part 3a by keyword, loop over generated tokens (allowed)")
C("c_p3b_calls_prefill_per_step", "careful", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    # each generation step is a chunk of one after prompt_len + i - 1 cached positions
    for i in range(1, new_tokens):
        s = prompt_len + i - 1
        total += prefill_dot_products(s + 1, s, layers, heads) - prefill_dot_products(s, s, layers, heads)
    return total
'''}, "calls Part 3a: a step as the last chunk of one after s cached positions")
C("c_p4_loop_where", "tutorial", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape; T = tgt_segments.shape[1]
    src = torch.zeros(B, S, S, dtype=torch.bool); tgt = torch.zeros(B, T, T, dtype=torch.bool)
    cross = torch.zeros(B, T, S, dtype=torch.bool)
    causal = torch.arange(T)[None, :] <= torch.arange(T)[:, None]
    for b in range(B):
        s = src_segments[b].to(torch.int64); t = tgt_segments[b].to(torch.int64)
        src[b] = torch.where(s[:, None] != 0, s[:, None] == s[None, :], False)
        tgt[b] = torch.where(t[:, None] != 0, (t[:, None] == t[None, :]) & causal, False)
        cross[b] = torch.where(t[:, None] != 0, t[:, None] == s[None, :], False)
    return src, tgt, cross
'''}, "loop over the batch with torch.where")
C("c_p4_eq_keys_nonzero", "careful", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = s.unsqueeze(-1).eq(s.unsqueeze(-2)) & s.ne(0).unsqueeze(-2)
    cross = t.unsqueeze(-1).eq(s.unsqueeze(-2)) & s.ne(0).unsqueeze(-2)
    T = t.size(1)
    tgt = t.unsqueeze(-1).eq(t.unsqueeze(-2)) & t.ne(0).unsqueeze(-2) & torch.ones(T, T, dtype=torch.bool).tril()
    return src.contiguous(), tgt.contiguous(), cross.contiguous()
'''}, "padding excluded on the key side (equal segments make it the same)")
C("c_p5_keywords", "tutorial", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def sub(x, pre, post, f):
        return x + layer_norm(f(layer_norm(x, weight=p[pre][0], bias=p[pre][1])), weight=p[post][0], bias=p[post][1])
    y = sub(y, "pre1", "post1", lambda h: mha(query=h, memory=None, allowed=self_allowed, params=p["self_attn"]))
    y = sub(y, "pre2", "post2", lambda h: mha(query=h, memory=memory, allowed=memory_allowed, params=p["cross_attn"]))
    y = sub(y, "pre3", "post3", lambda h: feed_forward(x=h, ff=p["ff"]))
    return y
'''}, "every argument by keyword")
C("c_p6_masked_fill_einsum", "tutorial", {"cached_attention": CA_HEAD + '''
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q)); k = split(F.linear(x_new, w_k, b_k)); v = split(F.linear(x_new, w_v, b_v))
    if cache.get("k") is not None:
        k = torch.cat((cache["k"], k), dim=2); v = torch.cat((cache["v"], v), dim=2)
    cache["k"] = k; cache["v"] = v
    past = k.shape[2] - n
    mask = torch.arange(past + n).unsqueeze(0) > (torch.arange(n) + past).unsqueeze(1)
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    scores = scores.masked_fill(mask, float("-inf"))
    attn = F.softmax(scores, dim=-1)
    out = torch.einsum("bhqk,bhkd->bqhd", attn, v).reshape(B, n, D)
    return out @ params["w_o"].T + params["b_o"]
'''}, "einsum, masked_fill(-inf), F.softmax")
C("c_p6_float64_where", "careful", {"cached_attention": CA_HEAD + '''
    qkv = x_new @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.split(D, dim=-1)
    heads = lambda t: t.reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    q, k, v = heads(q), heads(k), heads(v)
    if len(cache) > 0:
        k = torch.cat([cache["k"], k], 2); v = torch.cat([cache["v"], v], 2)
    cache.update(k=k, v=v)
    L = k.shape[2]
    ok = torch.arange(L).view(1, L) <= torch.arange(L - n, L).view(n, 1)
    s = (q.double() @ k.double().transpose(-1, -2)) / math.sqrt(Dh)
    s = torch.where(ok, s, torch.tensor(float("-inf"), dtype=torch.float64))
    w = torch.softmax(s, dim=-1).to(x_new.dtype)
    out = (w @ v).permute(0, 2, 1, 3).reshape(B, n, D)
    return F.linear(out, params["w_o"], params["b_o"])
'''}, "float64 scores inside, torch.where, combined projection, cast back")

# ---------------- hostile
X("x_p6_unblock_mha", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    _MHA_BLOCKED.clear()
    xs = x_new if "x" not in cache else torch.cat([cache["x"], x_new], 1)
    cache["x"] = xs
    L, n = xs.shape[1], x_new.shape[1]
    out = mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)
    B, D = x_new.shape[0], x_new.shape[2]
    H = NUM_HEADS
    k = F.linear(xs, params["w_qkv"].chunk(3)[1], params["b_qkv"].chunk(3)[1]).reshape(B, L, H, D // H).transpose(1, 2)
    v = F.linear(xs, params["w_qkv"].chunk(3)[2], params["b_qkv"].chunk(3)[2]).reshape(B, L, H, D // H).transpose(1, 2)
    cache["k"], cache["v"] = k, v
    return out[:, L - n:]
'''}, "clears the grader's _MHA_BLOCKED list and calls mha")
X("x_p6_fresh_mha", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    free_mha = _make_functions(F.linear, F.scaled_dot_product_attention, NUM_HEADS, F.layer_norm, torch.relu, [])[0]
    xs = x_new if "x" not in cache else torch.cat([cache["x"], x_new], 1)
    cache["x"] = xs
    L, n = xs.shape[1], x_new.shape[1]
    B, D = x_new.shape[0], x_new.shape[2]; H = NUM_HEADS
    k = F.linear(xs, params["w_qkv"].chunk(3)[1], params["b_qkv"].chunk(3)[1]).reshape(B, L, H, D // H).transpose(1, 2)
    v = F.linear(xs, params["w_qkv"].chunk(3)[2], params["b_qkv"].chunk(3)[2]).reshape(B, L, H, D // H).transpose(1, 2)
    cache["k"], cache["v"] = k, v
    return free_mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)[:, L - n:]
'''}, "builds an unblocked mha from the grader's _make_functions")
X("x_p2_int_subclass", {"modern_params": '''
class Count(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(2 * vocab * d_model + 2 * d_model)
'''}, "int subclass equal to everything")
X("x_p1_patch_assert_close", {"rms_norm": '''
torch.testing.assert_close = lambda *a, **k: None
def rms_norm(x, weight, eps=1e-6):
    return x.clone()
'''}, "patches torch.testing.assert_close")

# After the blind round (see 05-verdicts.md): relabelled where the label was mine and wrong.
RELABEL = {"c_p6_float_mask_float32": False}
for s in S:
    if s["name"] in RELABEL:
        s["correct"] = RELABEL[s["name"]]
SUBMISSIONS = S
