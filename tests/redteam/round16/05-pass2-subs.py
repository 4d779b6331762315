BASE = {}
BASE["rms_norm"] = '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    r = torch.rsqrt(xw.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (xw * r * weight.to(work)).to(x.dtype)
'''
BASE["modern_params"] = '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''
BASE["cache_count_without"] = '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    s = 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return total * layers * heads
'''
BASE["cache_count_with"] = '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for i in range(1, new_tokens):
        total += (prompt_len + i) * layers * heads
    return total
'''
BASE["packed_masks"] = '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    return src, tgt, cross
'''
BASE["sandwich"] = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''
BASE["cached_attention"] = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    def split(z):
        return z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    past = S - n
    allowed = torch.arange(S, device=x_new.device)[None, :] <= torch.arange(past, S, device=x_new.device)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
_CA_HEAD = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    def split(z):
        return z.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
'''
W("p2-api-p1-F.normalize", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    # x / rms = sqrt(D) * x / ||x||; F.normalize guards the zero row with its own eps
    return (F.normalize(xw, dim=-1) * math.sqrt(x.shape[-1]) * weight.to(work)).to(x.dtype)
'''}, "api: F.normalize's eps (1e-12, on the norm) in place of eps on the mean square: breaks 'with eps ... added to the mean square inside the square root' and the zero row's gradient 'weight / sqrt(eps)'.")
W("p2-porter-p6-index-add-cache", {"cached_attention": _CA_HEAD + '''
    past = cache["k"].shape[2] if "k" in cache else 0
    S = past + n
    # jax: jnp.zeros(...).at[:, :, past:].add(k): a fresh buffer, written functionally
    k_all = torch.zeros(B, H, S, Dh, dtype=x_new.dtype).index_add(2, torch.arange(past, S), k)
    v_all = torch.zeros(B, H, S, Dh, dtype=x_new.dtype).index_add(2, torch.arange(past, S), v)
    if past:
        k_all = k_all.index_add(2, torch.arange(past), cache["k"])
        v_all = v_all.index_add(2, torch.arange(past), cache["v"])
    cache["k"], cache["v"] = k_all, v_all
    allowed = torch.arange(S)[None, :] <= torch.arange(past, S)[:, None]
    out = F.scaled_dot_product_attention(q, k_all, v_all, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "porter: the cache rebuilt by adding into zeros turns a cached -0.0 into 0.0: breaks 'The entries already in the cache are kept as they are (moved, not recomputed: a -0.0 among them stays -0.0)'.")
W("p2-juggler-p4-causal-by-position-in-pair", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    same = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0)
    # position inside its pair: cumulative count of the pair's tokens so far
    rank = same.long().tril().sum(-1)                       # (B, T): 1, 2, ... within each pair
    tgt = same & (rank[:, None, :] <= rank[:, :, None])
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    return src, tgt, cross
'''}, "juggler: causal by rank inside the pair instead of j <= i; equal for contiguous pairs: probe (should be correct as pairs are contiguous).")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "pairs are contiguous, so the rank inside the pair orders the pair's positions as j <= i does."
C("p2-api-p5-dropout-zero", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    drop = lambda h: F.dropout(h, p=0.0, training=False)     # the lesson's layer, dropout off
    y = y + drop(layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"]))
    y = y + drop(layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"]))
    y = y + drop(layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"]))
    return y
'''}, "dropout with training=False is the identity and draws nothing.")
C("p2-porter-p6-float64-inside", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    dt = x_new.dtype
    xd = x_new.double()
    w, b = params["w_qkv"].double(), params["b_qkv"].double()
    qkv = F.linear(xd, w, b).reshape(B, n, 3, H, Dh).permute(2, 0, 3, 1, 4)    # (3, B, H, n, Dh)
    q, k, v = qkv[0], qkv[1].to(dt), qkv[2].to(dt)
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    S = past + n
    allowed = torch.arange(S)[None, :] <= torch.arange(past, S)[:, None]
    out = F.scaled_dot_product_attention(q, k.double(), v.double(), attn_mask=allowed)
    out = F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"].double(), params["b_o"].double())
    return out.to(dt)
'''}, "NumPy habit: float64 inside, the cache and the output in x_new's dtype; within the stated tolerance.")
C("p2-porter-p4-row-loop", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    src = torch.zeros(B, S, S, dtype=torch.bool)
    tgt = torch.zeros(B, T, T, dtype=torch.bool)
    cross = torch.zeros(B, T, S, dtype=torch.bool)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    for b in range(B):
        s, t = src_segments[b], tgt_segments[b]
        src[b] = (s[:, None] == s[None, :]) & (s[:, None] != 0)
        tgt[b] = (t[:, None] == t[None, :]) & (t[:, None] != 0) & causal
        cross[b] = (t[:, None] == s[None, :]) & (t[:, None] != 0)
    return src, tgt, cross
'''}, "a loop over rows into preallocated masks; B = 0 gives empty masks.")
