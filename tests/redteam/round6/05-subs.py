SUBMISSIONS = [
# ---------------- Part 1: rms_norm ----------------
{"name": "p1_eps_as_floor_clamp", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(dim=-1, keepdim=True).clamp(min=eps)   # eps as a floor, like some libraries
    return (xf * torch.rsqrt(ms) * weight.to(xf.dtype)).to(x.dtype)
'''}, "why": "'with eps added to the mean square inside the square root' - clamping at eps only agrees when ms >> eps (value-at-threshold class: small-scale inputs or a large eps differ)"},
{"name": "p1_eps_argument_ignored", "correct": False, "cells": {"rms_norm": '''
EPS = 1e-6
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + EPS) * weight.to(xf.dtype)).to(x.dtype)
'''}, "why": "'Write rms_norm(x, weight, eps=1e-6) ... with eps added to the mean square' - a non-default eps is ignored (argument whose non-default value may never be tried)"},
{"name": "p1_bf16_computed_in_bf16", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype == torch.float16:   # float16 squares overflow; bfloat16 has float32's range so it is fine as is
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.float()).half()
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight
'''}, "why": "'For float16 and bfloat16 inputs the result must be as accurate as computing in float32 and rounding ... once' - the rule is followed on the float16 path only"},
{"name": "p1_eps_outside_sqrt", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = xf.pow(2).mean(dim=-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "why": "'with eps added to the mean square inside the square root' - eps added to the root instead"},
{"name": "p1_second_rounding_before_weight", "correct": False, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    normed = (xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps)).to(x.dtype)
    return normed * weight
'''}, "why": "'or a second rounding before the weight is applied, is not accurate enough' (also float64 passes through float32: classic)"},
# ---------------- Part 2 ----------------
{"name": "p2_cross_attention_two_projections", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    attn = 4 * d * d
    cross = 2 * d * d          # keys and values of the memory; the query side is the decoder's
    ffn = 3 * d * d_ff
    return 2 * vocab * d + n_enc * (attn + ffn + 2 * d) + n_dec * (attn + cross + ffn + 3 * d) + 2 * d
'''}, "why": "'every attention block has four d_model x d_model projections'"},
{"name": "p2_decoder_two_norms", "correct": False, "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    layer = 4 * d * d + 3 * d * d_ff + 2 * d
    return 2 * vocab * d + n_enc * layer + n_dec * (layer + 4 * d * d) + 2 * d
'''}, "why": "'An encoder layer has 2 of them, a decoder layer 3'"},
# ---------------- Part 3 ----------------
{"name": "p3a_lower_triangle_only", "correct": False, "cells": {"cache_count_without": '''
dot_products_without_cache = sum(t * (t + 1) // 2 for t in range(1, 21)) * 6 * 8
'''}, "why": "'computing the full square score matrix before masking it'"},
{"name": "p3b_one_dot_product_per_step", "correct": False, "cells": {"cache_count_with": '''
dot_products_with_cache = 20 * 6 * 8   # one new query per step
'''}, "why": "'one per query, key and head' - the new query meets all t cached keys"},
# ---------------- Part 4 ----------------
{"name": "p4_target_padding_not_excluded", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] > 0)
    causal = torch.ones(t.shape[1], t.shape[1], dtype=torch.bool).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & causal          # targets are packed to the end, no padding check
    cross = (t[:, :, None] == s[:, None, :]) & (s[:, None, :] > 0)
    return src, tgt, cross
'''}, "why": "'A padding query (segment 0) may attend to nothing: its row is all False' - checked for the source only (rule on one code path)"},
{"name": "p4_cross_no_padding_check", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    same = lambda a, b: (a[:, :, None] == b[:, None, :]) & (a[:, :, None] != 0)
    causal = torch.ones(t.shape[1], t.shape[1], dtype=torch.bool).tril()
    return same(s, s), same(t, t) & causal, t[:, :, None] == s[:, None, :]
'''}, "why": "'cross_allowed ... when both belong to the same pair' and 'padding belongs to no pair' - padded target query meets padded source key"},
{"name": "p4_segments_as_uint8", "correct": False, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.to(torch.uint8), tgt_segments.to(torch.uint8)   # small ids, 8x less memory
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] > 0)
    causal = torch.ones(t.shape[1], t.shape[1], dtype=torch.bool).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] > 0) & causal
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] > 0)
    return src, tgt, cross
'''}, "why": "'the hidden tests use rows ... of more than a thousand pairs' - pair 256 wraps to padding, 257 to pair 1 (integer overflow)"},
# ---------------- Part 5 ----------------
{"name": "p5_memory_mask_ignored", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, None, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "why": "'CrossAttn is mha with p[\"cross_attn\"] ... and mask memory_allowed' - the visible test only passes None"},
{"name": "p5_cross_queries_unnormalised", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(y, layer_norm(memory, *p["pre2"]), memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "why": "'queries from the normalised y, keys and values from memory as it is given' - pre2 applied to the memory instead"},
{"name": "p5_ffn_reads_stream_before_cross", "correct": False, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre3"])    # computed early to reuse y
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
    return y
'''}, "why": "'computing, in this order' - the FFN must read y after the cross-attention update (order of operations)"},
# ---------------- Part 6 ----------------
{"name": "p6_past_in_global_counter", "correct": False, "cells": {"cached_attention": '''
STEP = {"past": 0}
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    if not cache:
        STEP["past"] = 0
    past = STEP["past"]
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda z: z.unflatten(-1, (H, D // H)).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if cache:
        k, v = torch.cat([cache["k"], k], -2), torch.cat([cache["v"], v], -2)
    cache["k"], cache["v"] = k, v
    STEP["past"] = past + n
    mask = torch.ones(n, k.shape[-2], dtype=torch.bool).tril(diagonal=past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).flatten(-2), params["w_o"], params["b_o"])
'''}, "why": "'cache is a dict ... and the only state your function keeps (several sequences may be decoded side by side, each with its own cache)' and 'past is the length of the cached keys' - state kept between calls"},
{"name": "p6_cache_in_float32", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    x = x_new.float()
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].float().chunk(3), params["b_qkv"].float().chunk(3)
    split = lambda z: z.unflatten(-1, (H, D // H)).transpose(1, 2)
    q, k, v = split(F.linear(x, w_q, b_q)), split(F.linear(x, w_k, b_k)), split(F.linear(x, w_v, b_v))
    past = cache["k"].shape[-2] if "k" in cache else 0
    if past:
        k, v = torch.cat([cache["k"].float(), k], -2), torch.cat([cache["v"].float(), v], -2)
    cache["k"], cache["v"] = k.to(x_new.dtype), v.to(x_new.dtype)
    mask = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).flatten(-2), params["w_o"].float(), params["b_o"].float()).to(x_new.dtype)
'''}, "why": "'compare with a tolerance of ... about 1e-9 in float64' (classic: float32 arithmetic on float64 inputs)"},
{"name": "ok_p6_three_paths_is_causal", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda z: z.unflatten(-1, (H, D // H)).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], -2), torch.cat([cache["v"], v], -2)
    cache["k"], cache["v"] = k, v
    if n == 1:   # decoding one token: it sees everything, no mask needed
        out = F.scaled_dot_product_attention(q, k, v)
    elif k.shape[-2] == n:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    else:
        past = k.shape[-2] - n
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(n, past + n, dtype=torch.bool).tril(past))
    return F.linear(out.transpose(1, 2).flatten(-2), params["w_o"], params["b_o"])
'''}, "why": "correct: a single new position sees every key (no mask), is_causal only when there is no past (then it is top-left aligned = right), an explicit offset mask otherwise"},

# ---------------- more wrong answers ----------------
{"name": "p1_mean_over_axis_1", "correct": False, "cells": {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(dim=1, keepdim=True)        # (B, D): the features are axis 1
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
"""}, "why": "'each vector along the **last** axis is divided by its root mean square' - axis 1 is the last axis only for 2-D inputs; the visible 3-D case checks shape and dtype only"},
{"name": "p2_layer_counts_swapped", "correct": False, "cells": {"modern_params": """
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    enc = 4 * d * d + 3 * d * d_ff + 2 * d
    dec = 8 * d * d + 3 * d * d_ff + 3 * d
    return 2 * vocab * d + n_dec * enc + n_enc * dec + 2 * d
"""}, "why": "'An encoder layer has 2 of them, a decoder layer 3' / 'a decoder layer self-attention, cross-attention' - n_enc and n_dec swapped; equal only when n_enc == n_dec (coinciding sizes)"},
{"name": "p3b_prefix_before_new_token", "correct": False, "cells": {"cache_count_with": """
dot_products_with_cache = sum(t for t in range(0, 20)) * 6 * 8   # keys already cached before the step
"""}, "why": "'At step t ... the decoder's input prefix holds t tokens' - the newest position attends to itself too (classic off-by-one)"},
{"name": "p5_none_self_mask_means_causal", "correct": False, "cells": {"sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if self_allowed is None:   # a decoder is always causal
        T = y.shape[1]
        self_allowed = torch.ones(T, T, dtype=torch.bool, device=y.device).tril()
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
"""}, "why": "'SelfAttn is mha with p[\"self_attn\"] and mask self_allowed' with self_allowed '(T, T), (B, T, T) or None' - None means no mask, as in mha; the visible test always passes a causal mask"},
# ---------------- hostile ----------------
{"name": "hostile_p6_clear_mha_block", "correct": False, "cells": {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    _MHA_BLOCKED.clear()
    xs = torch.cat([cache["x"], x_new], 1) if "x" in cache else x_new
    cache["x"] = xs
    T, n = xs.shape[1], x_new.shape[1]
    D = xs.shape[-1]
    k = F.linear(xs, params["w_qkv"][D:2 * D], params["b_qkv"][D:2 * D]).unflatten(-1, (NUM_HEADS, -1)).transpose(1, 2)
    v = F.linear(xs, params["w_qkv"][2 * D:], params["b_qkv"][2 * D:]).unflatten(-1, (NUM_HEADS, -1)).transpose(1, 2)
    cache["k"], cache["v"] = k, v
    return mha(xs, None, torch.ones(T, T, dtype=torch.bool).tril(), params)[:, T - n:]
"""}, "why": "hostile: empties the grader's block list so that mha runs again (uses a grader name, calls mha)"},
{"name": "hostile_p6_rebuild_unblocked_mha", "correct": False, "cells": {"cached_attention": """
free_mha = _make_functions(F.linear, F.scaled_dot_product_attention, NUM_HEADS, F.layer_norm, torch.relu, [])[0]
def cached_self_attention(x_new, params, cache):
    xs = torch.cat([cache["x"], x_new], 1) if "x" in cache else x_new
    cache["x"] = xs
    T, n = xs.shape[1], x_new.shape[1]
    D = xs.shape[-1]
    k = F.linear(xs, params["w_qkv"][D:2 * D], params["b_qkv"][D:2 * D]).unflatten(-1, (NUM_HEADS, -1)).transpose(1, 2)
    v = F.linear(xs, params["w_qkv"][2 * D:], params["b_qkv"][2 * D:]).unflatten(-1, (NUM_HEADS, -1)).transpose(1, 2)
    cache["k"], cache["v"] = k, v
    return free_mha(xs, None, torch.ones(T, T, dtype=torch.bool).tril(), params)[:, T - n:]
"""}, "why": "hostile: rebuilds an unblocked mha from the grader's _make_functions"},
{"name": "hostile_p3_float_that_equals_anything", "correct": False, "cells": {"cache_count_without": """
class Number(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return 0.0
    def __rsub__(self, other): return 0.0
    __hash__ = float.__hash__
dot_products_without_cache = Number(1.0)
"""}, "why": "hostile: a float subclass that says it equals every number"},
{"name": "hostile_p2_patch_builtin_isinstance_int", "correct": False, "cells": {"modern_params": """
import builtins
class Count(int):
    def __eq__(self, other): return True
    __hash__ = int.__hash__
builtins.type = (lambda real: (lambda *a: int if len(a) == 1 and isinstance(a[0], Count) else real(*a)))(builtins.type)
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(0)
"""}, "why": "hostile: an int subclass that equals everything, plus a patched builtins.type to hide the subclass"},
# ---------------- different but correct ----------------
{"name": "ok_p1_torch_rms_norm", "correct": True, "cells": {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        return F.rms_norm(x.float(), (x.shape[-1],), weight.float(), eps).to(x.dtype)
    return F.rms_norm(x, (x.shape[-1],), weight, eps)
"""}, "why": "correct: torch's own RMSNorm, float32 for half inputs, one rounding at the end"},
{"name": "ok_p1_everything_in_float64_vector_norm", "correct": True, "cells": {"rms_norm": """
def rms_norm(x, weight, eps=1e-6):
    d = x.shape[-1]
    x64 = x.to(torch.float64)
    rms = torch.sqrt(torch.linalg.vector_norm(x64, dim=-1, keepdim=True) ** 2 / d + eps)
    return (x64 / rms * weight.to(torch.float64)).to(x.dtype)
"""}, "why": "correct: float64 throughout ('working in float64 is allowed too'), the mean square as a squared norm over D"},
{"name": "ok_p4_one_hot_products", "correct": True, "cells": {"packed_masks": """
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    k = int(max(s.max(), t.max())) + 1 if s.numel() + t.numel() else 1
    hs, ht = F.one_hot(s, k)[..., 1:].float(), F.one_hot(t, k)[..., 1:].float()   # drop pair 0 = padding
    T = t.shape[1]
    causal = torch.arange(T)[None, :] <= torch.arange(T)[:, None]
    return (hs @ hs.transpose(1, 2)) > 0, ((ht @ ht.transpose(1, 2)) > 0) & causal, (ht @ hs.transpose(1, 2)) > 0
"""}, "why": "correct: one-hot pair memberships, same pair = positive dot product"},
{"name": "ok_p6_raw_inputs_einsum", "correct": True, "cells": {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    qkv = x_new @ params["w_qkv"].T + params["b_qkv"]                    # (B, n, 3D)
    q, k, v = (part.reshape(B, n, H, Dh).permute(0, 2, 1, 3) for part in qkv.split(D, dim=-1))
    past = 0 if "k" not in cache else cache["k"].shape[2]
    cache["k"] = k if past == 0 else torch.cat((cache["k"], k), dim=2)
    cache["v"] = v if past == 0 else torch.cat((cache["v"], v), dim=2)
    scores = torch.einsum("bhid,bhjd->bhij", q, cache["k"]) / math.sqrt(Dh)
    qpos = torch.arange(past, past + n)[:, None]
    kpos = torch.arange(past + n)[None, :]
    scores = scores.masked_fill(kpos > qpos, float("-inf"))
    out = torch.einsum("bhij,bhjd->bhid", scores.softmax(-1), cache["v"])
    return out.permute(0, 2, 1, 3).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
"""}, "why": "correct: one fused projection, explicit einsum softmax attention with absolute positions"},
]
