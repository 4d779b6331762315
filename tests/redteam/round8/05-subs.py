# CORRECT: the helper's own answers, used only to check the visible tests locally
CORRECT = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    scale = torch.rsqrt(xw.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (xw * scale * weight.to(work)).to(x.dtype)
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
dot_products_without_cache = 6 * 8 * sum(t * t for t in range(1, 21))
''',
"cache_count_with": '''
dot_products_with_cache = 6 * 8 * sum(t for t in range(1, 21))
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src_allowed = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross_allowed = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src_allowed, tgt_allowed, cross_allowed
''',
"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
''',
"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda z: z.reshape(B, n, H, D // H).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k = split(F.linear(x_new, w_k, b_k))
    v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    qpos = torch.arange(past, past + n)[:, None]
    kpos = torch.arange(past + n)[None, :]
    mask = kpos <= qpos
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
''',
}

SUBMISSIONS = [
# ---------------- wrong ----------------
{"name": "rms_mean_over_everything", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    return (xw * torch.rsqrt(xw.pow(2).mean() + eps) * weight.to(work)).to(x.dtype)
'''}, "why": "mean over all elements, not per vector: breaks 'each vector along the last axis is divided by its root mean square' (visible first case has one row)"},
{"name": "rms_divides_by_shape1", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    ms = xw.pow(2).sum(dim=-1, keepdim=True) / x.shape[1]
    return (xw * torch.rsqrt(ms + eps) * weight.to(work)).to(x.dtype)
'''}, "why": "divides the sum by x.shape[1] (D only for 2-D inputs): breaks 'for x of shape (..., D)' and the 1/D of the formula"},
{"name": "rms_eps_outside_sqrt", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    rms = xw.pow(2).mean(dim=-1, keepdim=True).sqrt()
    return (xw / (rms + eps) * weight.to(work)).to(x.dtype)
'''}, "why": "breaks 'with eps added to the mean square inside the square root'"},
{"name": "rms_eps_hardcoded", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    return (xw * torch.rsqrt(xw.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * weight.to(work)).to(x.dtype)
'''}, "why": "ignores the eps argument (right only for eps=1e-6): breaks 'rms_norm(x, weight, eps=1e-6) ... with eps added to the mean square'"},
{"name": "rms_bf16_in_bf16", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype == torch.float16 else x.dtype
    xw = x.to(work)
    return (xw * torch.rsqrt(xw.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.to(work)).to(x.dtype)
'''}, "why": "upcasts float16 only, bfloat16 computed in bfloat16: breaks 'For float16 and bfloat16 inputs ... Arithmetic in float16 or bfloat16 ... is not accurate enough'"},
# relabelled (round 8, second pass): the blind pass took it as a mislabel because the text never asked for
# gradients; Part 1 now says gradients must flow through the result, and a hidden _grad case catches it
{"name": "rms_detached_scale", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    with torch.no_grad():
        scale = torch.rsqrt(xw.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (xw * scale * weight.to(work)).to(x.dtype)
'''}, "why": "forward right, gradient wrong (the 1/rms factor treated as a constant): the layer with a 'learned weight' is not the stated RMSNorm function once differentiated"},
{"name": "params_swiglu_two_matrices", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 2 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''}, "why": "counts the feed-forward as two matrices: breaks 'gated (SwiGLU) ... w_gate and w_up of shape (d_ff, d_model) and w_down'"},
{"name": "params_decoder_two_norms", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    layer_norms = 2 * d_model
    enc = attn + ffn + layer_norms
    dec = 2 * attn + ffn + layer_norms
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''}, "why": "gives a decoder layer 2 RMSNorms: breaks 'An encoder layer has 2 of them, a decoder layer 3'"},
{"name": "without_cache_triangle", "correct": False, "cells": {"cache_count_without": '''
dot_products_without_cache = 6 * 8 * sum(t * (t + 1) // 2 for t in range(1, 21))
'''}, "why": "counts only the unmasked triangle: breaks 'computing the full square score matrix before masking it'"},
{"name": "with_cache_no_layers", "correct": False, "cells": {"cache_count_with": '''
dot_products_with_cache = 8 * sum(t for t in range(1, 21))
'''}, "why": "forgets the 6 layers: breaks 'over all 20 steps, all layers and all heads'"},
{"name": "packed_padding_only_on_source", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src_allowed = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross_allowed = t[:, :, None] == s[:, None, :]
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & causal
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "target padding attends to target/source padding: breaks 'A padding query (segment 0) may attend to nothing: its row is all False' (visible target has no padding)"},
{"name": "sandwich_normalises_memory", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), layer_norm(memory, *p["pre2"]), memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "why": "normalises memory with pre2: breaks 'keys and values from memory as it is given (... this layer does not)'"},
{"name": "sandwich_post1_everywhere", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    post = p["post1"]
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *post)
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *post)
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *post)
    return y
'''}, "why": "uses post1 for all three out-norms: breaks 'LN_name is layer_norm with p[name]' (the visible identity test zeroes all three)"},
{"name": "sandwich_parallel_sublayers", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    a = layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    c = layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    f = layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y + a + c + f
'''}, "why": "computes the three sublayers in parallel from the same y: breaks 'computing, in this order' (each y <- y + ...)"},
{"name": "sandwich_ignores_memory_mask", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, None, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "why": "drops memory_allowed: breaks 'CrossAttn is mha ... and mask memory_allowed'"},
{"name": "cached_past_from_len", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda z: z.reshape(B, n, H, D // H).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = len(cache["k"]) if "k" in cache else 0
    if past:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    mask = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "past = len(cache['k']) is B, not the cached length: breaks '`past` is the length of the cached keys' (visible B = 2 = first block length)"},
{"name": "cached_counter_on_function", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda z: z.reshape(B, n, H, D // H).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if not cache:
        cached_self_attention.past = 0
    past = cached_self_attention.past
    if past:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    cached_self_attention.past = past + n
    mask = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "keeps the position in a function attribute: breaks 'cache ... the only state your function keeps (several sequences may be decoded side by side)' (old class: state kept between calls)"},
{"name": "packed_uint8_segments", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.to(torch.uint8), tgt_segments.to(torch.uint8)  # small ids, less memory
    src_allowed = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross_allowed = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "pair numbers wrap past 255: breaks 'the hidden tests use rows ... of more than a thousand pairs' (old class: uint8 past its range)"},
# ---------------- correct ----------------
{"name": "ok_rms_all_in_float64", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd = x.double()
    ms = (xd * xd).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (xd / torch.sqrt(ms + eps) * weight.double()).to(x.dtype)
'''}, "why": "everything in float64, rounded once: 'working in float64 is allowed too'"},
{"name": "ok_sandwich_keyword_calls", "correct": True, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, name):
        weight, bias = p[name]
        return layer_norm(x=x, weight=weight, bias=bias)
    h = ln(y, "pre1")
    y = y + ln(mha(query=h, memory=h, allowed=self_allowed, params=p["self_attn"]), "post1")
    y = y + ln(mha(query=ln(y, "pre2"), memory=memory, allowed=memory_allowed, params=p["cross_attn"]), "post2")
    y = y + ln(feed_forward(x=ln(y, "pre3"), ff=p["ff"]), "post3")
    return y
'''}, "why": "calls mha/layer_norm/feed_forward by keyword and passes memory=h for self-attention (same as None)"},
{"name": "ok_sandwich_one_example_at_a_time", "correct": True, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    outs = []
    for b in range(y.shape[0]):
        yb, mb = y[b:b + 1], memory[b:b + 1]
        sa = None if self_allowed is None else (self_allowed if self_allowed.dim() == 2 else self_allowed[b:b + 1])
        ma = None if memory_allowed is None else memory_allowed[b:b + 1]
        yb = yb + layer_norm(mha(layer_norm(yb, *p["pre1"]), None, sa, p["self_attn"]), *p["post1"])
        yb = yb + layer_norm(mha(layer_norm(yb, *p["pre2"]), mb, ma, p["cross_attn"]), *p["post2"])
        yb = yb + layer_norm(feed_forward(layer_norm(yb, *p["pre3"]), p["ff"]), *p["post3"])
        outs.append(yb)
    return torch.cat(outs, dim=0)
'''}, "why": "runs mha on a batch of one per example and concatenates"},
{"name": "ok_counts_closed_form_floats", "correct": True, "cells": {
    "cache_count_without": '''
n, L, H = 20, 6, 8
dot_products_without_cache = L * H * n * (n + 1) * (2 * n + 1) / 6
''',
    "cache_count_with": '''
dot_products_with_cache = 6.0 * 8.0 * 20 * 21 / 2
'''}, "why": "closed forms as floats ('an int or a float')"},
{"name": "ok_params_expanded_polynomial", "correct": True, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    return (2 * vocab + 2 + 2 * n_enc + 3 * n_dec) * d + (4 * n_enc + 8 * n_dec) * d * d + 3 * (n_enc + n_dec) * d * f
'''}, "why": "same count, collected by powers of d"},
{"name": "ok_packed_via_one_hot_free_arange", "correct": True, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long()
    t = tgt_segments.long()
    same = lambda a, b: torch.eq(a.unsqueeze(2), b.unsqueeze(1)) & a.gt(0).unsqueeze(2)
    pos = torch.arange(t.shape[1])
    causal = pos.unsqueeze(1) >= pos.unsqueeze(0)
    return same(s, s), same(t, t) & causal, same(t, s)
'''}, "why": "same masks via eq/gt and an arange comparison for causality"},
{"name": "ok_cached_keeps_inputs_and_recomputes", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    x_all = x_new if "x" not in cache else torch.cat([cache["x"], x_new], dim=1)
    cache["x"] = x_all
    B, L, D = x_all.shape
    n = x_new.shape[1]
    H = NUM_HEADS
    q, k, v = F.linear(x_all, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    heads = lambda z: z.unflatten(-1, (H, D // H)).transpose(1, 2)
    q, k, v = heads(q[:, L - n:]), heads(k), heads(v)
    cache["k"], cache["v"] = k, v
    mask = torch.arange(L).unsqueeze(0) <= torch.arange(L - n, L).unsqueeze(1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).flatten(-2), params["w_o"], params["b_o"])
'''}, "why": "keeps its inputs in the cache too and recomputes k, v (allowed: cache is its own state; mha is not called)"},
{"name": "ok_cached_one_query_at_a_time", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w = params["w_qkv"]
    b = params["b_qkv"]
    proj = (x_new @ w.T + b).reshape(B, n, 3, H, Dh).permute(2, 0, 3, 1, 4)
    q, k, v = proj[0], proj[1], proj[2]
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    past = k.shape[2] - n
    outs = []
    for i in range(n):
        kk, vv = k[:, :, :past + i + 1], v[:, :, :past + i + 1]
        wts = torch.softmax(q[:, :, i:i + 1] @ kk.transpose(-2, -1) / math.sqrt(Dh), dim=-1)
        outs.append(wts @ vv)
    out = torch.cat(outs, dim=2)
    return out.transpose(1, 2).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
'''}, "why": "one new position at a time, slicing the keys it may see"},
# ---------------- hostile ----------------
{"name": "hostile_int_equal_to_everything", "correct": False, "cells": {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(0)
'''}, "why": "hostile: int subclass whose == always holds"},
{"name": "hostile_patch_assert_close", "correct": False, "cells": {"cached_attention": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    past = cache["k"].shape[2] if "k" in cache else 0
    cache["k"] = torch.zeros(B, NUM_HEADS, past + n, D // NUM_HEADS)
    cache["v"] = torch.zeros(B, NUM_HEADS, past + n, D // NUM_HEADS)
    return torch.zeros(B, n, D)
'''}, "why": "hostile: disables torch.testing.assert_close and returns zeros"},
{"name": "hostile_numpy_via_importlib", "correct": False, "cells": {"rms_norm": '''
import importlib
def rms_norm(x, weight, eps=1e-6):
    np_ = importlib.import_module("nu" + "mpy")
    a = np_.asarray(x.detach().double().tolist())
    w = np_.asarray(weight.detach().double().tolist())
    r = a / np_.sqrt((a * a).mean(axis=-1, keepdims=True) + eps) * w
    return torch.tensor(r.tolist(), dtype=torch.float64).to(x.dtype)
'''}, "why": "hostile: NumPy brought in through importlib with a split name"},
{"name": "hostile_counts_from_ref_frames", "correct": False, "cells": {"cache_count_with": '''
import gc
dot_products_with_cache = 0
for obj in gc.get_objects():
    if isinstance(obj, dict) and "dot_products_with_cache" in obj and obj.get("__name__") != "__main__":
        dot_products_with_cache = obj["dot_products_with_cache"]
        break
'''}, "why": "hostile: hunts the grader's expected value through gc"},
# ---------------- phase 2 (white-box, added after the blind grading) ----------------
{"name": "p2_rms_eps_keyword_only", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, **options):
    eps = options.get("eps", 1e-6)
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    return (xw * torch.rsqrt(xw.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.to(work)).to(x.dtype)
'''}, "why": "eps only by keyword: a call rms_norm(x, w, 1e-2) of the stated signature raises"},
]
