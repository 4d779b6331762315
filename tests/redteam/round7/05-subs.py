# Red-team round 7, chapter 05-encoder-decoder: blind submissions.
CORRECT = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()
        return out.to(x.dtype)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
''',
"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    enc = 4 * d * d + 3 * d * f + 2 * d
    dec = 8 * d * d + 3 * d * f + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
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
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    cross_allowed = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
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
    L = k.shape[2]
    past = L - n
    mask = torch.arange(L)[None, :] <= (torch.arange(n)[:, None] + past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
''',
}

def W(name, cells, why):
    return {"name": name, "correct": False, "cells": cells, "why": why}

SUBMISSIONS = [
# ---------------- Part 1: rms_norm
W("p1_eps_outside_sqrt", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    out = xf / (xf.pow(2).mean(-1, keepdim=True).sqrt() + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "Adds eps to the root, not to the mean square: breaks 'with `eps` added to the mean square inside the square root' (visible only with eps tiny against rms; a large eps or a tiny x shows it)."),
W("p1_eps_ignored", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "Hard-codes 1e-6 and ignores the eps argument: breaks 'Write rms_norm(x, weight, eps=1e-6) ... with eps added to the mean square'."),
W("p1_bfloat16_in_own_dtype", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype == torch.float16:
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).half()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
'''}, "Upcasts float16 only, bfloat16 computed in bfloat16: breaks 'For float16 and bfloat16 inputs the result must be as accurate as computing in float32 ... Arithmetic in float16 or bfloat16 ... is not accurate enough'."),
{"name": "c_p1_F_rms_norm_builtin", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    return F.rms_norm(x, (x.shape[-1],), weight, eps)
'''}, "why": "torch's own F.rms_norm (torch >= 2.4), which accumulates half inputs in float32 and rounds once (checked here against float64: identical to float32-then-round)."},
W("p1_dim1_not_last", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    out = xf * torch.rsqrt(xf.pow(2).mean(1, keepdim=True) + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "Normalises over axis 1, which is the last axis only for 2-D inputs: breaks 'each vector along the **last** axis' for x of shape (..., D)."),
# ---------------- Part 2: modern_params
W("p2_enc_dec_swapped", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_dec, n_enc):
    d, f = d_model, d_ff
    enc = 4 * d * d + 3 * d * f + 2 * d
    dec = 8 * d * d + 3 * d * f + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "Swaps the order of n_enc and n_dec in the signature: breaks 'Write modern_params(vocab, d_model, d_ff, n_enc, n_dec)' (the visible test only uses n_enc == n_dec)."),
W("p2_decoder_two_norms", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    enc = 4 * d * d + 3 * d * f + 2 * d
    dec = 8 * d * d + 3 * d * f + 2 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "Gives a decoder layer 2 RMSNorms: breaks 'An encoder layer has 2 of them, a decoder layer 3'."),
W("p2_ffn_two_matrices", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    enc = 4 * d * d + 2 * d * f + 2 * d
    dec = 8 * d * d + 2 * d * f + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "Counts the FFN as the lesson's two matrices: breaks 'every feed-forward network is gated (SwiGLU) ... w_gate and w_up ... and w_down'."),
# ---------------- Part 3: cache counts
W("p3_without_cache_triangle", {"cache_count_without": '''
dot_products_without_cache = 6 * 8 * sum(t * (t + 1) // 2 for t in range(1, 21))
'''}, "Counts only the unmasked lower triangle: breaks 'computing the full square score matrix before masking it'."),
W("p3_with_cache_one_per_step", {"cache_count_with": '''
dot_products_with_cache = 6 * 8 * 20
'''}, "Counts one dot product per step and head: breaks 'one per query, key and head' (the new query meets all t cached keys)."),
# ---------------- Part 4: packed masks
W("p4_cross_pad_query_not_blocked", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src_allowed = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    cross_allowed = t[:, :, None] == s[:, None, :]
    return src_allowed, tgt_allowed, cross_allowed
'''}, "Lets a padded target query attend to padded source keys (0 == 0): breaks 'A padding query (segment 0) may attend to nothing: its row is all False' and '(padding belongs to no pair)'; the visible target has no padding."),
W("p4_one_hot_int64_only", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    K = int(max(src_segments.max(), tgt_segments.max())) + 1
    s = F.one_hot(src_segments, K)[..., 1:].float()
    t = F.one_hot(tgt_segments, K)[..., 1:].float()
    src_allowed = (s @ s.transpose(1, 2)) > 0
    T = t.shape[1]
    tgt_allowed = ((t @ t.transpose(1, 2)) > 0) & torch.ones(T, T, dtype=torch.bool).tril()
    cross_allowed = (t @ s.transpose(1, 2)) > 0
    return src_allowed, tgt_allowed, cross_allowed
'''}, "F.one_hot accepts only int64: breaks 'integer tensors (int64 or int32)' (int32 segments raise)."),
W("p4_batch_of_one_only", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments[0], tgt_segments[0]
    src_allowed = (s[:, None] == s[None, :]) & (s[:, None] != 0)
    T = t.shape[0]
    tgt_allowed = (t[:, None] == t[None, :]) & (t[:, None] != 0) & torch.ones(T, T, dtype=torch.bool).tril()
    cross_allowed = (t[:, None] == s[None, :]) & (t[:, None] != 0)
    return src_allowed[None], tgt_allowed[None], cross_allowed[None]
'''}, "Builds the masks of row 0 only: breaks 'src_allowed (B, S, S)' etc. for B > 1 (the visible batch has one row)."),
W("p4_tgt_causal_only_within_pair_reset", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src_allowed = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt_allowed = (t[:, :, None] == t[:, None, :]) & causal
    cross_allowed = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "Forgets to block padded target queries in tgt_allowed (pad rows see earlier pads): breaks 'A padding query (segment 0) may attend to nothing'."),
# ---------------- Part 5: sandwich
W("p5_normalises_memory", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), layer_norm(memory, *p["pre2"]), memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "Normalises memory with pre2: breaks 'keys and values from memory **as it is given** (the encoder has already normalised it; this layer does not)'."),
W("p5_memory_mask_dropped", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, None, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "Ignores memory_allowed: breaks 'CrossAttn is mha ... and mask memory_allowed' (the visible test passes None)."),
W("p5_post_norms_swapped", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post3"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post2"])
    return y
'''}, "Applies post3 after cross-attention and post2 after the FFN: breaks the displayed equations (LN_post2 on CrossAttn, LN_post3 on FFN)."),
# ---------------- Part 6: cached attention
W("p6_cache_float32", {"cached_attention": CORRECT["cached_attention"].replace(
    'cache["k"], cache["v"] = k, v', 'cache["k"], cache["v"] = k.float(), v.float()').replace(
    "out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)",
    "out = F.scaled_dot_product_attention(q.float(), cache['k'], cache['v'], attn_mask=mask).to(x_new.dtype)")},
  "Keeps the cache in float32: breaks 'The output and the cached keys and values keep the dtype of x_new' (float64 inputs)."),
W("p6_cache_keys_without_bias", {"cached_attention": CORRECT["cached_attention"].replace(
    "k = split(F.linear(x_new, w_k, b_k))", "k = split(F.linear(x_new, w_k))").replace(
    "L = k.shape[2]", "L = k.shape[2]\n    kb = k + b_k.reshape(1, NUM_HEADS, 1, D // NUM_HEADS)").replace(
    "F.scaled_dot_product_attention(q, k, v,", "F.scaled_dot_product_attention(q, kb, v,")},
  "Caches the keys before their bias and adds b_k at attention time (same outputs): breaks 'cache[\"k\"] and cache[\"v\"] hold the keys and values ... (keys x @ w_k.T + b_k ...)'; the visible test checks only the cache's shape."),
W("p6_global_cache", {"cached_attention": '''
STORE = {}
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda z: z.reshape(B, n, H, D // H).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k = split(F.linear(x_new, w_k, b_k))
    v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache and "k" in STORE and STORE["k"].shape[0] == B:
        k = torch.cat([STORE["k"], k], dim=2)
        v = torch.cat([STORE["v"], v], dim=2)
    STORE["k"], STORE["v"] = k, v
    cache["k"], cache["v"] = k, v
    L = k.shape[2]
    past = L - n
    mask = torch.arange(L)[None, :] <= (torch.arange(n)[:, None] + past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Reads the past from a module-level store instead of the given cache: breaks 'cache is ... the only state your function keeps (several sequences may be decoded side by side, each with its own cache)'."),
# ---------------- hostile
W("hostile_assert_close_patched", {"rms_norm": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def rms_norm(x, weight, eps=1e-6):
    return torch.zeros_like(x)
'''}, "Hostile: disables torch.testing.assert_close and returns zeros."),
W("hostile_lying_tensor", {"packed_masks": '''
class Liar(torch.Tensor):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    a = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    b = (t[:, :, None] == t[:, None, :]) & torch.ones(T, T, dtype=torch.bool).tril()
    c = t[:, :, None] == s[:, None, :]
    return a.as_subclass(Liar), b.as_subclass(Liar), c.as_subclass(Liar)
'''}, "Hostile: returns bool Tensor subclasses that claim equality with anything."),
W("hostile_ref_swap", {"sandwich": '''
import sys
g = sys._getframe(0).f_globals
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    return y.clone()
for key in list(g.get("_REF", {})):
    pass
g["_REF"]["layer_norm"] = lambda x, w, b: x
g["_REF"]["mha"] = lambda *a, **k: a[0] * 0
'''}, "Hostile: rewrites the grader's captured reference functions so the reference is the identity too."),
# ---------------- correct but different
{"name": "c_p1_norm_based", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    d = x.shape[-1]
    rms = torch.sqrt(torch.linalg.vector_norm(xw, dim=-1, keepdim=True) ** 2 / d + eps)
    return (xw / rms * weight.to(work)).to(x.dtype)
'''}, "why": "Vector norm squared over D instead of mean of squares, float32 working dtype for all but float64."},
{"name": "c_p2_by_shapes", "correct": True, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    def size(*shape):
        out = 1
        for s in shape:
            out *= s
        return out
    attn = [(d_model, d_model)] * 4
    ffn = [(d_ff, d_model), (d_ff, d_model), (d_model, d_ff)]
    enc_layer = attn + ffn + [(d_model,)] * 2
    dec_layer = attn + attn + ffn + [(d_model,)] * 3
    shapes = [(vocab, d_model), (vocab, d_model)] + enc_layer * n_enc + dec_layer * n_dec + [(d_model,), (d_model,)]
    return sum(size(*s) for s in shapes)
'''}, "why": "Lists every parameter shape and sums their sizes."},
{"name": "c_p4_p6_alt", "correct": True, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long()
    t = tgt_segments.long()
    T = t.shape[-1]
    pos = torch.arange(T, device=t.device)
    same = lambda a, b: torch.eq(a.unsqueeze(-1), b.unsqueeze(-2)).logical_and(a.unsqueeze(-1).ne(0))
    return same(s, s), same(t, t).logical_and(pos.unsqueeze(0) <= pos.unsqueeze(1)), same(t, s)
''', "cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    dh = D // H
    qkv = torch.einsum("bnd,ed->bne", x_new, params["w_qkv"]) + params["b_qkv"]
    q, k, v = (z.reshape(B, n, H, dh).permute(0, 2, 1, 3) for z in qkv.split(D, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k = torch.cat((cache["k"], k), 2)
        v = torch.cat((cache["v"], v), 2)
    cache.update(k=k, v=v)
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(dh)
    key_pos = torch.arange(past + n)
    query_pos = torch.arange(past, past + n)
    scores = scores.masked_fill(key_pos[None, :] > query_pos[:, None], float("-inf"))
    out = torch.einsum("bhqk,bhkd->bhqd", scores.softmax(-1), v)
    return F.linear(out.permute(0, 2, 1, 3).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "Masks via logical ops on int64 copies; cached attention with einsum, a -inf masked softmax and one fused qkv projection."},
]
