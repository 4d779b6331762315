# Red-team round 9, chapter 05: submissions written blind from the student notebook.
SUBMISSIONS = [
# ---------------------------------------------------------------- wrong: Part 1
{"name": "p1_bf16_left_in_bf16", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype == torch.float16:          # only float16 overflows, so only it is upcast
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
'''}, "why": "'For float16 and bfloat16 inputs the result must be as accurate as computing in float32 ... Arithmetic in float16 or bfloat16 (squares, the mean, the weight) ... is not accurate enough': bfloat16 is computed in bfloat16."},
{"name": "p1_eps_outside_sqrt", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = xf.pow(2).mean(-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "why": "'with eps ... added to the mean square inside the square root': eps is added to the root instead."},
{"name": "p1_default_eps_1e5", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-5):   # the lesson's LayerNorm eps
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "why": "'Write rms_norm(x, weight, eps=1e-6)': the default eps is changed to 1e-5 (visible tests never use the default at a scale where it shows)."},
{"name": "p1_hf_style_double_rounding", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # as in Hugging Face's LlamaRMSNorm: normalise in float32, back to the input dtype, then the weight
    xf = x.to(torch.float32) if x.dtype in (torch.float16, torch.bfloat16) else x
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return weight * normed.to(x.dtype)
'''}, "why": "'or a second rounding before the weight is applied, is not accurate enough': rounds to half before multiplying by the weight in half."},
{"name": "p1_mean_over_dim1", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(dim=1, keepdim=True)   # (B, D): the features are axis 1
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "why": "'for x of shape (..., D) ... each vector along the **last** axis': averages over axis 1, right only for 2-D inputs (the 3-D visible test checks only the shape)."},
# ---------------------------------------------------------------- wrong: Part 2
{"name": "p2_no_cross_attention", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    attn, ffn = 4 * d * d, 3 * d * d_ff
    enc = attn + ffn + 2 * d
    dec = attn + ffn + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "why": "'a decoder layer self-attention, cross-attention and a feed-forward network': the decoder's cross-attention is not counted."},
{"name": "p2_ffn_two_matrices", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    ffn = 2 * d * d_ff          # up and down
    enc = 4 * d * d + ffn + 2 * d
    dec = 8 * d * d + ffn + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "why": "'every feed-forward network is gated (SwiGLU) ... w_gate and w_up of shape (d_ff, d_model) and w_down': counts two matrices, not three."},
{"name": "p2_decoder_two_norms", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    layer_norms = 2 * d                          # one per residual block... of the encoder
    enc = 4 * d * d + 3 * d * d_ff + layer_norms
    dec = 8 * d * d + 3 * d * d_ff + layer_norms
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "why": "'An encoder layer has 2 of them, a decoder layer 3': the decoder layer gets 2."},
# ---------------------------------------------------------------- wrong: Part 3
{"name": "p3_without_counts_triangle", "correct": False, "cells": {"cache_count_without": '''
# the causal mask leaves t(t+1)/2 pairs at step t
dot_products_without_cache = 6 * 8 * sum(t * (t + 1) // 2 for t in range(1, 21))
'''}, "why": "'computing the full square score matrix before masking it': counts only the unmasked triangle."},
{"name": "p3_with_counts_new_row_and_column", "correct": False, "cells": {"cache_count_with": '''
# step t adds one new query row (t keys) and one new key column (t - 1 older queries)
dot_products_with_cache = 6 * 8 * sum(2 * t - 1 for t in range(1, 21))
'''}, "why": "'With the lesson's key/value cache, every step feeds only the newest position': only one query per step, the older queries are not rerun."},
# ---------------------------------------------------------------- wrong: Part 4
{"name": "p4_one_hot_needs_int64", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    k = int(max(src_segments.max(), tgt_segments.max())) + 1
    s = F.one_hot(src_segments, k)[..., 1:].float()     # (B, S, K), padding is the dropped column 0
    t = F.one_hot(tgt_segments, k)[..., 1:].float()
    T = tgt_segments.shape[1]
    src_allowed = s @ s.transpose(1, 2) > 0
    tgt_allowed = (t @ t.transpose(1, 2) > 0) & torch.ones(T, T, dtype=torch.bool).tril()
    cross_allowed = t @ s.transpose(1, 2) > 0
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "'src_segments (B, S) and tgt_segments (B, T) are integer tensors (int64 or int32)': F.one_hot refuses int32."},
{"name": "p4_target_padding_forgotten", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src_valid = s != 0
    src_allowed = (s[:, :, None] == s[:, None, :]) & src_valid[:, :, None] & src_valid[:, None, :]
    T = t.shape[1]
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & torch.ones(T, T, dtype=torch.bool).tril()
    cross_allowed = t[:, :, None] == s[:, None, :]
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "'A padding query (segment 0) may attend to nothing: its row is all False': target padding rows attend to target (and source) padding."},
{"name": "p4_transpose_trick_batch_of_one", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[-1]
    src_allowed = ((s.T == s) & (s.T != 0)).unsqueeze(0)     # (S, 1) == (1, S) -> (S, S)
    tgt_allowed = ((t.T == t) & (t.T != 0) & torch.ones(T, T, dtype=torch.bool).tril()).unsqueeze(0)
    cross_allowed = ((t.T == s) & (t.T != 0)).unsqueeze(0)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "'src_allowed (B, S, S) ...': the .T broadcast only works because the visible batch has B = 1."},
{"name": "p4_loop_over_pairs", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    src_allowed = torch.zeros(B, S, S, dtype=torch.bool)
    tgt_allowed = torch.zeros(B, T, T, dtype=torch.bool)
    cross_allowed = torch.zeros(B, T, S, dtype=torch.bool)
    n_pairs = int(max(src_segments.max(), tgt_segments.max()))
    for k in range(1, n_pairs + 1):
        sk, tk = src_segments == k, tgt_segments == k
        src_allowed |= sk[:, :, None] & sk[:, None, :]
        tgt_allowed |= tk[:, :, None] & tk[:, None, :]
        cross_allowed |= tk[:, :, None] & sk[:, None, :]
    return src_allowed, tgt_allowed & torch.ones(T, T, dtype=torch.bool).tril(), cross_allowed
'''}, "why": "'Rows may be long: the hidden tests use rows of more than a thousand positions, and of more than a thousand pairs': O(pairs * S^2) work, a billion operations on those rows."},
# ---------------------------------------------------------------- wrong: Part 5
{"name": "p5_memory_normalised", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), layer_norm(memory, *p["pre2"]), memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "why": "'keys and values from memory **as it is given** (the encoder has already normalised it; this layer does not)'."},
{"name": "p5_always_causal", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    T = y.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()     # a decoder is always causal
    mask = causal if self_allowed is None else self_allowed & causal
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, mask, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "why": "'SelfAttn is mha with p[\"self_attn\"] and mask self_allowed' (None = no mask): adds its own causal mask."},
{"name": "p5_parallel_sublayers", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    a = layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    c = layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    f = layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y + a + c + f
'''}, "why": "'computing, in this order, y <- y + ...': each sublayer reads the layer's input, not the updated y."},
# ---------------------------------------------------------------- wrong: Part 6
{"name": "p6_softmax_without_max", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = x_new @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (z.reshape(B, n, H, Dh).transpose(1, 2) for z in qkv.chunk(3, dim=-1))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]
    allowed = torch.arange(L)[None, :] <= torch.arange(L - n, L)[:, None]
    e = torch.exp(q @ k.transpose(-2, -1) / math.sqrt(Dh)) * allowed
    w = e / e.sum(-1, keepdim=True)
    out = (w @ v).transpose(1, 2).reshape(B, n, D)
    return out @ params["w_o"].T + params["b_o"]
'''}, "why": "intro: 'scores large enough that a softmax which does not subtract the row maximum overflows'; Part 6 must give what mha gives: exp without the max overflows to inf/NaN."},
{"name": "p6_heads_from_wrong_columns", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])
    q, k, v = (z.reshape(B, n, H, Dh).transpose(1, 2) for z in qkv.chunk(3, dim=-1))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]
    if n == 1:
        out = F.scaled_dot_product_attention(q, k, v)
    else:
        mask = torch.ones(n, L, dtype=torch.bool).tril(diagonal=L - n)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "a single new query takes a path without a mask (it may see every key); reshape instead of view."},
]
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "c6_single_query_fast_path"
SUBMISSIONS += [
{"name": "p6_prescaled_cached_keys", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, Dh).transpose(1, 2)
    q = heads(F.linear(x_new, w_q, b_q))
    k = heads(F.linear(x_new, w_k, b_k)) / math.sqrt(Dh)   # fold the 1/sqrt(Dh) into the cached keys once
    v = heads(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]
    mask = torch.ones(n, L, dtype=torch.bool).tril(diagonal=L - n)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=1.0)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "'cache[\"k\"] and cache[\"v\"] hold the keys and values ... (keys x @ w_k.T + b_k ...)': the cached keys are scaled by 1/sqrt(Dh)."},
# ---------------------------------------------------------------- hostile
{"name": "h_p3_int_that_equals_everything", "correct": False, "cells": {"cache_count_with": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
dot_products_with_cache = Count(0)
'''}, "why": "hostile: an int subclass that compares equal to anything."},
{"name": "h_p6_rebuild_unblocked_mha", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    # keep the inputs too, and let a fresh (unblocked) copy of mha do the work
    g = globals()
    fresh_mha = g["_make_functions"](F.linear, F.scaled_dot_product_attention, NUM_HEADS, F.layer_norm, torch.relu, [])[0]
    xs = torch.cat([cache["x"], x_new], 1) if "x" in cache else x_new
    cache["x"] = xs
    L, n, D = xs.shape[1], x_new.shape[1], x_new.shape[2]
    H = NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    cache["k"] = F.linear(xs, w_k, b_k).unflatten(-1, (H, D // H)).transpose(1, 2)
    cache["v"] = F.linear(xs, w_v, b_v).unflatten(-1, (H, D // H)).transpose(1, 2)
    out = fresh_mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)
    return out[:, L - n:]
'''}, "why": "hostile: 'Do not call mha, not even on a cache of inputs that you keep yourself' and '_ names belong to the grader': rebuilds an unblocked mha from _make_functions."},
{"name": "h_p1_patch_assert_close", "correct": False, "cells": {"rms_norm": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def rms_norm(x, weight, eps=1e-6):
    return x.clone()
'''}, "why": "hostile: disables torch.testing.assert_close and returns the input."},
# ---------------------------------------------------------------- correct variants
{"name": "c1_functional_rms_norm", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    return F.rms_norm(x, (x.shape[-1],), weight, eps)
'''}, "why": "torch's own F.rms_norm (accumulates half in float32, rounds once)."},
{"name": "c2_float64_inside_einsum", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd, wd = x.to(torch.float64), weight.to(torch.float64)
    mean_square = torch.einsum("...d,...d->...", xd, xd) / x.shape[-1]
    return (xd / torch.sqrt(mean_square + eps).unsqueeze(-1) * wd).to(x.dtype)
'''}, "why": "float64 inside for every dtype (allowed), einsum for the mean square, one cast back."},
{"name": "c3_param_list_loop", "correct": True, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    shapes = [(vocab, d_model), (vocab, d_model), (d_model,), (d_model,)]
    attention = [(d_model, d_model)] * 4
    ffn = [(d_ff, d_model), (d_ff, d_model), (d_model, d_ff)]
    for _ in range(n_enc):
        shapes += attention + ffn + [(d_model,)] * 2
    for _ in range(n_dec):
        shapes += attention + attention + ffn + [(d_model,)] * 3
    return sum(math.prod(s) for s in shapes)
'''}, "why": "lists every matrix's shape and multiplies them out."},
{"name": "c4_closed_forms_as_floats", "correct": True, "cells": {
    "cache_count_without": '''
n, L, H = 20, 6, 8
dot_products_without_cache = L * H * n * (n + 1) * (2 * n + 1) / 6
''',
    "cache_count_with": '''
n, L, H = 20, 6, 8
dot_products_with_cache = float(L * H * n * (n + 1) / 2)
'''}, "why": "closed forms stored as floats (the text allows an int or a float)."},
{"name": "c5_cummax_key_side_only", "correct": True, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long()
    t = tgt_segments.long()
    src_key = torch.where(s == 0, torch.full_like(s, -1), s)          # padding keys match no query
    tgt_key = torch.where(t == 0, torch.full_like(t, -1), t)
    src_allowed = torch.eq(s.unsqueeze(2), src_key.unsqueeze(1))
    T = t.shape[1]
    pos = torch.arange(T)
    tgt_allowed = torch.eq(t.unsqueeze(2), tgt_key.unsqueeze(1)) & (pos.unsqueeze(1) >= pos.unsqueeze(0))
    cross_allowed = torch.eq(t.unsqueeze(2), src_key.unsqueeze(1))
    return (src_allowed, tgt_allowed, cross_allowed)
'''}, "why": "padding handled on the key side only (a padding query then matches nothing), causal via arange."},
{"name": "c6b_layer_norm_from_rms_norm", "correct": True, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, name):
        w, b = p[name]
        # LayerNorm = RMSNorm of the centred vector (biased variance), plus the bias; eps by position
        return rms_norm(x - x.mean(-1, keepdim=True), w, 1e-5) + b
    y = y + ln(mha(ln(y, "pre1"), None, self_allowed, p["self_attn"]), "post1")
    y = y + ln(mha(ln(y, "pre2"), memory, memory_allowed, p["cross_attn"]), "post2")
    y = y + ln(feed_forward(ln(y, "pre3"), p["ff"]), "post3")
    return y
'''}, "why": "calls Part 1's rms_norm (eps by position, also on half inputs) to build the LayerNorm."},
{"name": "c7_keyword_calls", "correct": True, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    steps = [("pre1", "post1", lambda h: mha(query=h, memory=None, allowed=self_allowed, params=p["self_attn"])),
             ("pre2", "post2", lambda h: mha(query=h, memory=memory, allowed=memory_allowed, params=p["cross_attn"])),
             ("pre3", "post3", lambda h: feed_forward(x=h, ff=p["ff"]))]
    for pre, post, sublayer in steps:
        w, b = p[post]
        y = y + layer_norm(x=sublayer(layer_norm(y, *p[pre])), weight=w, bias=b)
    return y
'''}, "why": "a loop over the three sublayers, every helper called by keyword."},
{"name": "c8_mask_from_packed_masks_int32", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda z: z.reshape(B, n, H, D // H).permute(0, 2, 1, 3)
    q = heads(x_new @ w_q.T + b_q)
    k, v = heads(x_new @ w_k.T + b_k), heads(x_new @ w_v.T + b_v)
    if cache:
        k = torch.cat((cache["k"], k), dim=-2)
        v = torch.cat((cache["v"], v), dim=-2)
    cache.update(k=k, v=v)
    L = k.shape[-2]
    one_pair = torch.ones(1, L, dtype=torch.int32)       # the whole sequence is one pair of Part 4
    _unused_src, causal, _unused_cross = packed_masks(one_pair, one_pair)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=causal[0, L - n:])
    return (out.permute(0, 2, 1, 3).reshape(B, n, D)) @ params["w_o"].T + params["b_o"]
'''}, "why": "the causal mask comes from Part 4's packed_masks on int32 segments of one pair."},
{"name": "c9_float64_manual_softmax_noncontiguous_cache", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, x_new.shape[-1] // NUM_HEADS
    qkv = torch.einsum("bnd,ed->bne", x_new, params["w_qkv"]) + params["b_qkv"]
    q, k, v = qkv.split(D, dim=-1)
    kv = torch.stack([k, v]).unflatten(-1, (H, Dh))        # (2, B, n, H, Dh)
    if "k" in cache:
        old = torch.stack([cache["k"], cache["v"]]).transpose(2, 3)   # (2, B, past, H, Dh)
        kv = torch.cat([old, kv], dim=2)
    cache["k"], cache["v"] = kv[0].transpose(1, 2), kv[1].transpose(1, 2)   # non-contiguous views
    L = kv.shape[2]
    qd = q.unflatten(-1, (H, Dh)).to(torch.float64)
    kd, vd = kv[0].to(torch.float64), kv[1].to(torch.float64)
    s = torch.einsum("bnhe,blhe->bhnl", qd, kd) / math.sqrt(Dh)
    allowed = torch.arange(L).unsqueeze(0) <= torch.arange(L - n, L).unsqueeze(1)
    s = torch.where(allowed, s, torch.tensor(float("-inf"), dtype=torch.float64))
    s = s - s.amax(-1, keepdim=True)
    e = s.exp()
    w = e / e.sum(-1, keepdim=True)
    out = torch.einsum("bhnl,blhe->bnhe", w, vd).flatten(-2).to(x_new.dtype)
    return torch.einsum("bne,de->bnd", out, params["w_o"]) + params["b_o"]
'''}, "why": "einsum everywhere, softmax in float64 with torch.where and the max subtracted, cast back; cached keys are non-contiguous views."},
{"name": "c10_packed_masks_under_no_grad_keywords", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    proj = F.linear(x_new, params["w_qkv"], params["b_qkv"]).unflatten(-1, (3, H, D // H))
    q, k, v = proj.unbind(dim=2)                                   # (B, n, H, Dh) each
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    past = cache["k"].shape[2] if "k" in cache else 0
    cache["k"] = k if past == 0 else torch.cat([cache["k"], k], 2)
    cache["v"] = v if past == 0 else torch.cat([cache["v"], v], 2)
    with torch.no_grad():                                          # a mask needs no gradient
        seg = torch.ones(B, past + n, dtype=torch.int64)
        tgt_allowed = packed_masks(src_segments=seg[:, :1], tgt_segments=seg)[1]
    mask = tgt_allowed[:, past:].unsqueeze(1)                      # (B, 1, n, past + n)
    out = F.scaled_dot_product_attention(q, cache["k"], cache["v"], attn_mask=mask)
    return F.linear(out.transpose(1, 2).flatten(2), params["w_o"], params["b_o"])
'''}, "why": "mask from Part 4 per batch row, called with keywords under torch.no_grad(); q, k, v from one unflatten."},
]
SUBMISSIONS += [
{"name": "p6_split_weights_stored_in_params", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    if "w_q" not in params:                   # split the stacked projection once and keep it with the weights
        (params["w_q"], params["w_k"], params["w_v"]) = params["w_qkv"].chunk(3)
        (params["b_q"], params["b_k"], params["b_v"]) = params["b_qkv"].chunk(3)
    B, n, D = x_new.shape
    H = NUM_HEADS
    heads = lambda z: z.reshape(B, n, H, D // H).transpose(1, 2)
    q = heads(F.linear(x_new, params["w_q"], params["b_q"]))
    k = heads(F.linear(x_new, params["w_k"], params["b_k"]))
    v = heads(F.linear(x_new, params["w_v"], params["b_v"]))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    L = k.shape[2]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(n, L, dtype=torch.bool).tril(L - n))
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "'Do not change x_new or params': adds split weights to the params dict (and keeps using them if params['w_qkv'] is later replaced)."},
{"name": "p6_position_counter_in_cache", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    past = cache.get("pos", 0)                # how many positions this cache has seen
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"]).reshape(B, n, 3, H, D // H).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if past:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"], cache["pos"] = k, v, past + n
    mask = torch.ones(n, past + n, dtype=torch.bool).tril(past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "'past is the length of the cached keys (0 when the cache is empty)': keeps its own counter, wrong for a cache whose keys were set or trimmed by the caller (speculative decoding rolls back rejected drafts)."},
]
