SUBMISSIONS = [
{"name": "p1 rms_norm", "correct": True, "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    y = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    var = (y * y).mean(dim=-1, keepdim=True)
    return (y / torch.sqrt(var + eps) * weight.to(y.dtype)).to(x.dtype)
'''}, "why": "copied from layers.py LayerNorm.forward unfused formula; changes: 3 lines (upcast of half inputs, mean of squares instead of var, no mean/bias + cast back)"},
{"name": "p3 cache counts", "correct": True, "cells": {
 "cache_count_without": '''
dot_products_without_cache = 6 * 8 * sum(t * t for t in range(1, 21))
''',
 "cache_count_with": '''
dot_products_with_cache = 6 * 8 * sum(t for t in range(1, 21))
'''}, "why": "copied from index.md score_products cell (sum t*t / sum t); changes: 1 line each (n=20, times L*H)"},
{"name": "p4 packed_masks", "correct": True, "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    same = lambda a, b: (a[:, :, None] == b[:, None, :]) & (a != 0)[:, :, None]
    src_allowed = same(src_segments, src_segments)
    tgt_allowed = same(tgt_segments, tgt_segments) & torch.ones(tgt_segments.shape[1], tgt_segments.shape[1], dtype=torch.bool).tril()
    cross_allowed = same(tgt_segments, src_segments)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "why": "adapted from transformer.py Seq2SeqTransformer.masks ((src != pad)[:, None, :], pad & causal_mask); changes: 5 lines, the segment-equality comparison is my own (not on the page)"},
{"name": "p5 sandwich", "correct": True, "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    return y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
'''}, "why": "copied from layers.py DecoderLayer.forward norm_first branch; changes: 3 lines (wrap each sublayer in the post norm, notebook's mha/layer_norm/feed_forward)"},
{"name": "p6 cached_attention", "correct": True, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    d = x_new.shape[-1]
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda x: x.unflatten(-1, (NUM_HEADS, d // NUM_HEADS)).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], dim=2), torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    n, total = x_new.shape[1], k.shape[2]
    mask = torch.ones(n, total, dtype=torch.bool).tril(total - n)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).flatten(-2), params["w_o"], params["b_o"])
'''}, "why": "copied from the notebook's mha helper + MultiHeadAttention.forward cache branch (cat cached k,v); changes: 4 lines (cat on dim 2, n/total, tril(total-n) mask, drop empty-row fill)"},
]
