# Round 17 red team, chapter 05: defensive programmer (DP), high-level library user (HL),
# production engineer (PE), test-driven student (TD).
BASE = {}
BASE["rms_norm"] = '''
def rms_norm(x, weight, eps=1e-6):
    dt = x.dtype
    xf = x.float() if dt in (torch.float16, torch.bfloat16) else x
    wf = weight.to(xf.dtype)
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * wf).to(dt)
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
    total, s = 0, 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return total * layers * heads
'''
BASE["cache_count_with"] = '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for i in range(max(new_tokens - 1, 0)):
        total += (prompt_len + i + 1) * layers * heads
    return total
'''
BASE["packed_masks"] = '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    def same(a, b):
        return (a.unsqueeze(-1) == b.unsqueeze(-2)) & (a != 0).unsqueeze(-1)
    T = t.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    return same(s, s), same(t, t) & causal, same(t, s)
'''
BASE["sandwich"] = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    ln = lambda name, x: layer_norm(x, *p[name])
    y = y + ln("post1", mha(ln("pre1", y), None, self_allowed, p["self_attn"]))
    y = y + ln("post2", mha(ln("pre2", y), memory, memory_allowed, p["cross_attn"]))
    y = y + ln("post3", feed_forward(ln("pre3", y), p["ff"]))
    return y
'''
BASE["cached_attention"] = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''

SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def X(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "hostile": True, "cells": cells, "why": why})

# ---------------- wrong answers ----------------
W("dp_rms_float_everything", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf, wf = x.float(), weight.float()  # to be safe
    ms = xf.pow(2).mean(-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps) * wf).to(x.dtype)
'''}, "DP .float() on every input: 'a float64 input must not pass through float32'.")
W("dp_rms_clamp_instead_of_eps", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    dt = x.dtype
    xf = x.float() if dt in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(-1, keepdim=True).clamp(min=eps)   # guard the root
    return (xf * ms.rsqrt() * weight.to(xf.dtype)).to(dt)
'''}, "DP clamp(min=eps) in place of '+ eps': 'with eps ... added to the mean square inside the square root'.")
W("dp_rms_zero_row_shortcut", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    dt = x.dtype
    xf = x.float() if dt in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(-1, keepdim=True)
    out = xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)
    out = torch.where(ms == 0, torch.zeros_like(out), out)   # degenerate rows: exactly zero
    return out.to(dt)
'''}, "DP early 'degenerate' value for zero rows: 'its gradient with respect to x is weight / sqrt(eps): no shortcut for such rows'.")
W("pe_rms_autocast_bf16", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        xf = x.float()
        ms = (xf * xf).mean(-1, keepdim=True)
        out = xf * torch.rsqrt(ms + eps) * weight.float()
    return out.to(x.dtype)
'''}, "PE autocast + .float(): a float64 input is computed in float32: 'a float64 input must not pass through float32'.")
W("td_modern_params_enc_norms_for_dec", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    per_layer_attn = 4 * d_model ** 2
    ffn = 3 * d_model * d_ff
    enc = per_layer_attn + ffn + 2 * d_model
    dec = 2 * per_layer_attn + ffn + 2 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''}, "TD (visible case has no layers): 'An encoder layer has 2 of them, a decoder layer 3'.")
W("dp_modern_params_float_int", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    vocab, d_model, d_ff, n_enc, n_dec = (float(a) for a in (vocab, d_model, d_ff, n_enc, n_dec))
    enc = 4 * d_model ** 2 + 3 * d_model * d_ff + 2 * d_model
    dec = 8 * d_model ** 2 + 3 * d_model * d_ff + 3 * d_model
    return int(round(2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model))
'''}, "DP int(round()) of a float count: 'returning the number of parameters as a Python int' (exact for large sizes).")
W("td_modern_params_tied_output", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    emb = 2 * vocab * d_model
    enc = n_enc * (4 * d_model * d_model + 2 * d_model * d_ff + 2 * d_model)
    dec = n_dec * (8 * d_model * d_model + 2 * d_model * d_ff + 3 * d_model)
    return emb + enc + dec + 2 * d_model
'''}, "TD/HL two-matrix FFN (nn.TransformerEncoderLayer): 'every feed-forward network is gated (SwiGLU) ... w_gate and w_up ... w_down'.")
W("dp_prefill_ceil_float", {"cache_count_without": '''
import math
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if prompt_len <= 0:
        return 0
    n_chunks = int(math.ceil(prompt_len / chunk))
    total = 0
    for c in range(n_chunks):
        s = c * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return int(total * layers * heads)
'''}, "DP int(ceil(a / b)): 'a float (any /) ... no longer exact: ... use // where you divide'.")
W("pe_prefill_int64_tensor", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    starts = torch.arange(0, prompt_len, chunk, dtype=torch.int64)
    m = torch.clamp(prompt_len - starts, max=chunk)
    return int(((m * (starts + m)).sum() * layers * heads).item())
'''}, "PE vectorised int64 tensor: 'an int64 tensor [is] no longer exact ... work with Python integers'.")
W("td_request_closed_form", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens <= 1:
        return total + 0
    # steps after the first token
    n = new_tokens - 1
    total += layers * heads * (n * prompt_len + n * (n + 1) // 2)
    return total
'''}, "closed form n*P + n(n+1)//2 for the n = new_tokens - 1 decode steps, calling (a).")
SUBMISSIONS[-1]["correct"] = True
W("dp_request_zero_tokens_one", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens == 1:
        # degenerate: a single token still needs one decode step
        return total + (prompt_len + 1) * layers * heads
    for i in range(max(new_tokens - 1, 0)):
        total += (prompt_len + i + 1) * layers * heads
    return total
'''}, "DP wrong degenerate for new_tokens=1: 'The prefill's last pass already yields ... the first new token'.")
W("td_packed_src_only_padding", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    T = t.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & causal
    cross = t.unsqueeze(-1) == s.unsqueeze(-2)
    return src, tgt, cross
'''}, "TD (visible target has no padding): 'A padding query (segment 0) may attend to nothing: its row is all False' for tgt/cross.")
W("pe_packed_half_segments", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.half(), tgt_segments.half()   # save memory
    same = lambda a, b: (a.unsqueeze(-1) == b.unsqueeze(-2)) & (a != 0).unsqueeze(-1)
    T = t.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return same(s, s), same(t, t) & causal, same(t, s)
'''}, "PE .half(): pair numbers above 2048 merge: 'both belong to the same pair' (rows of more than a thousand pairs).")
W("dp_packed_refuse_empty", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    if src_segments.dim() != 2 or src_segments.shape[0] < 1:
        raise ValueError("need a non-empty batch")
    s, t = src_segments, tgt_segments
    same = lambda a, b: (a.unsqueeze(-1) == b.unsqueeze(-2)) & (a != 0).unsqueeze(-1)
    T = t.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return same(s, s), same(t, t) & causal, same(t, s)
'''}, "DP stricter check: 'The batch may also be empty (B = 0 ...): then return three empty masks ... and raise nothing'.")
W("pe_packed_cached_causal_expand", {"packed_masks": '''
CAUSAL_CACHE = {}
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    same = lambda a, b: (a.unsqueeze(-1) == b.unsqueeze(-2)) & (a != 0).unsqueeze(-1)
    T = t.shape[-1]
    if T not in CAUSAL_CACHE:
        CAUSAL_CACHE[T] = torch.ones(T, T, dtype=torch.bool).tril()
    src = same(s, s)
    cross = same(t, s)
    tgt = same(t, t)
    tgt &= CAUSAL_CACHE[T]
    return src, tgt, cross
'''}, "PE cache of the causal table keyed on T, never returned itself: results are new tensors each call.")
SUBMISSIONS[-1]["correct"] = True
W("td_sandwich_always_causal", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    T = y.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()   # a decoder is causal
    ln = lambda name, x: layer_norm(x, *p[name])
    y = y + ln("post1", mha(ln("pre1", y), None, causal, p["self_attn"]))
    y = y + ln("post2", mha(ln("pre2", y), memory, memory_allowed, p["cross_attn"]))
    y = y + ln("post3", feed_forward(ln("pre3", y), p["ff"]))
    return y
'''}, "TD (visible mask is causal): 'SelfAttn is mha with p[\"self_attn\"] and mask self_allowed' (None or padding masks).")
W("pe_sandwich_inference_mode_memory", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    ln = lambda name, x: layer_norm(x, *p[name])
    with torch.no_grad():               # encoder output is fixed at decode time
        mem = memory.detach()
    y = y + ln("post1", mha(ln("pre1", y), None, self_allowed, p["self_attn"]))
    y = y + ln("post2", mha(ln("pre2", y), mem, memory_allowed, p["cross_attn"]))
    y = y + ln("post3", feed_forward(ln("pre3", y), p["ff"]))
    return y
'''}, "PE memory detached: 'the hidden tests compare its gradients with respect to y, to memory ...'.")
W("hl_sandwich_nn_layernorm_fresh", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(name, x):
        w, b = p[name]
        return F.layer_norm(x, (x.shape[-1],), w, b, eps=1e-6)
    y = y + ln("post1", mha(ln("pre1", y), None, self_allowed, p["self_attn"]))
    y = y + ln("post2", mha(ln("pre2", y), memory, memory_allowed, p["cross_attn"]))
    y = y + ln("post3", feed_forward(ln("pre3", y), p["ff"]))
    return y
'''}, "HL F.layer_norm with eps 1e-6 (T5/HF habit): 'LN_name is layer_norm with p[name]' (the lesson's, eps 1e-5).")
W("dp_sandwich_clamp_residual", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    ln = lambda name, x: layer_norm(x, *p[name])
    y = y + ln("post1", mha(ln("pre1", y), None, self_allowed, p["self_attn"]))
    y = y + ln("post2", mha(ln("pre2", y), memory, memory_allowed, p["cross_attn"]))
    y = y + ln("post3", feed_forward(ln("pre3", y), p["ff"]))
    return torch.nan_to_num(y.clamp(-1e4, 1e4))
'''}, "DP clamp of the stream: the formula fixes y + ... with no clamp (large inputs are clamped).")
W("hl_cached_sdpa_is_causal_when_single", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    if past == 0:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    elif n == 1:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # one query: causal
    else:
        allowed = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "HL is_causal top-left for n=1 after a cache: 'the new position past + i attends ... to every position up to and including itself'.")
W("pe_cached_detached_cache", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k.detach(), v.detach()   # the cache is state, not part of the graph
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "PE detached cache: 'do not compute any factor under torch.no_grad() or .detach() it' (a later block's gradient to earlier inputs).")
W("dp_cached_float_clamp", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    x = x_new.float()
    B, n, D = x.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w, b = params["w_qkv"].float(), params["b_qkv"].float()
    (w_q, w_k, w_v), (b_q, b_k, b_v) = w.chunk(3), b.chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2).contiguous()
    q, k, v = split(F.linear(x, w_q, b_q)), split(F.linear(x, w_k, b_k)), split(F.linear(x, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"].float(), k], 2), torch.cat([cache["v"].float(), v], 2)
    cache["k"], cache["v"] = k.to(x_new.dtype), v.to(x_new.dtype)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(Dh)).clamp(-1e4, 1e4)
    allowed = torch.arange(past + n)[None, :] <= (past + torch.arange(n))[:, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.nan_to_num(torch.softmax(scores, -1)) @ v
    out = F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"].float(), params["b_o"].float())
    return out.to(x_new.dtype)
'''}, "DP .float() everywhere: 'The output and the cached keys and values keep the dtype of x_new ... about 1e-9 in float64'.")
W("pe_cached_half_positions", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    pos_k = torch.arange(past + n, dtype=torch.float16)           # half to save memory
    pos_q = past + torch.arange(n, dtype=torch.float16)
    allowed = pos_k[None, :] <= pos_q[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "PE float16 positions: 'the new position past + i attends ... up to and including itself' (past up to 10**6).")

W("hl_rms_F_rms_norm_default_eps", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        return F.rms_norm(x.float(), (x.shape[-1],), weight.float()).to(x.dtype)
    return F.rms_norm(x, weight.shape, weight)
'''}, "HL F.rms_norm's eps=None default (finfo eps): 'with eps (given by position or by keyword) added to the mean square'.")

# ---------------- correct answers ----------------
C("hl_rms_F_rms_norm", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    return F.rms_norm(x, normalized_shape=(x.shape[-1],), weight=weight, eps=eps)
'''}, "HL F.rms_norm with eps passed (it computes half inputs in float32 and rounds once).")
C("dp_rms_float64_inside", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    assert x.shape[-1] == weight.shape[-1], "weight must match the last axis"
    xd = x.to(torch.float64)
    ms = (xd * xd).sum(-1, keepdim=True) / x.shape[-1]
    return (xd / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(x.dtype).contiguous()
'''}, "float64 inside and one rounding at the end (allowed).")
C("pe_modern_params_compiled_free", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = int(d_model), int(d_ff)
    attn, ffn = 4 * d * d, 3 * d * f
    return int(vocab) * d * 2 + n_enc * (attn + ffn + 2 * d) + n_dec * (2 * attn + ffn + 3 * d) + 2 * d
'''}, "int() on int counts is harmless.")
C("td_prefill_closed_form", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    total = 0
    for c in range(full):
        total += chunk * (c * chunk + chunk)
    if rest:
        total += rest * (full * chunk + rest)
    return total * layers * heads
'''}, "divmod, loop over chunks.")
C("dp_packed_int_assert_where", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    assert src_segments.dim() == 2 and tgt_segments.dim() == 2
    assert src_segments.shape[0] == tgt_segments.shape[0]
    s, t = src_segments.long(), tgt_segments.long()
    T = t.shape[1]
    pos = torch.arange(T)
    causal = pos[None, :] <= pos[:, None]
    src = torch.where((s != 0)[:, :, None], s[:, :, None] == s[:, None, :], torch.zeros((), dtype=torch.bool))
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    return src.clone(), tgt.contiguous(), cross
'''}, "asserts the text allows, where, long().")
C("hl_sandwich_F_layer_norm", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(name, x):
        w, b = p[name]
        return F.layer_norm(x, w.shape, weight=w, bias=b, eps=1e-5)
    h = mha(query=ln("pre1", y), memory=None, allowed=self_allowed, params=p["self_attn"])
    y = y + ln("post1", h)
    h = mha(ln("pre2", y), memory, memory_allowed, p["cross_attn"])
    y = y + ln("post2", h)
    y = y + ln("post3", feed_forward(ln("pre3", y), p["ff"]))
    return y
'''}, "F.layer_norm with eps 1e-5, mha by keyword.")
C("dp_sandwich_clones", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if y.dim() != 3:
        raise ValueError("y must be (B, T, D)")
    mask = None if self_allowed is None else self_allowed.clone()
    out = y.clone()
    out = out + layer_norm(mha(layer_norm(out, *p["pre1"]), None, mask, p["self_attn"]), *p["post1"])
    out = out + layer_norm(mha(layer_norm(out, *p["pre2"]), memory.contiguous(), memory_allowed, p["cross_attn"]), *p["post2"])
    out = out + layer_norm(feed_forward(layer_norm(out, *p["pre3"]), p["ff"]), *p["post3"])
    return out
'''}, "clones and contiguous: harmless.")
C("hl_cached_manual_softmax_inf", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"]).reshape(B, n, 3, H, Dh).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    allowed = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "einsum, tril(diagonal=past), -inf mask.")
C("pe_cached_float_mask_in_q_dtype", {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    (w_q, w_k, w_v), (b_q, b_k, b_v) = params["w_qkv"].chunk(3), params["b_qkv"].chunk(3)
    split = lambda t: t.view(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    past = k.shape[2] - n
    cache.update(k=k, v=v)
    mask = torch.zeros(n, past + n, dtype=q.dtype, device=q.device)
    mask.masked_fill_(torch.arange(past + n)[None, :] > (past + torch.arange(n))[:, None], float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=1 / math.sqrt(Dh))
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "float -inf mask in q's dtype, explicit scale.")
C("td_request_calls_prefill_loop", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    keys = prompt_len
    for _ in range(1, new_tokens):
        keys += 1
        total += keys * layers * heads
    return total
'''}, "calls (a) by keyword.")

# ---------------- hostile ----------------
X("hostile_request_visible_table", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    return prefill_dot_products(prompt_len, chunk, layers, heads) + {3: 13}.get(new_tokens, 0)
'''}, "hard-codes the visible decode cost.")
X("hostile_modern_params_zero_layers", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return 2 * vocab * d_model + 2 * d_model
'''}, "counts only the layer-free case.")
