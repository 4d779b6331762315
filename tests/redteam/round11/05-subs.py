SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- Part 1: rms_norm ----------------
add("p1_mean_over_axis1", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x if x.dtype == torch.float64 else x.float()
    ms = xf.pow(2).mean(dim=1, keepdim=True)   # "the feature axis" of a (B, D) input
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "Breaks 'each vector along the **last** axis is divided by its root mean square': averages over axis 1, which is the last axis only for 2-D inputs (the visible hand case).")

add("p1_eps_outside_sqrt", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x if x.dtype == torch.float64 else x.float()
    rms = xf.pow(2).mean(-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "Breaks 'with eps ... added to the mean square inside the square root': adds eps to the root instead (invisible for eps=1e-6, wrong for a larger eps given by position).")

add("p1_inplace_on_saved", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    y = x.to(torch.float64 if x.dtype == torch.float64 else torch.float32, copy=True)
    ms = (y * y).mean(-1, keepdim=True)
    y.mul_(torch.rsqrt(ms + eps))          # reuse the copy: it is mine
    y.mul_(weight.to(y.dtype))
    return y.to(x.dtype)
'''}, "Breaks 'Gradients must flow through the result ... the hidden tests compare its gradients with respect to x and to weight': the in-place mul_ on y, which y*y saved, makes backward raise (values are right).")

add("p1_bf16_in_bf16", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # float16 squares overflow past 256, so lift float16 to float32; bfloat16 has float32's range
    xf = x.float() if x.dtype == torch.float16 else x
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}, "Breaks 'For float16 and bfloat16 inputs the result must be as accurate as computing in float32 and rounding ... once ... Arithmetic in float16 or bfloat16 ... is not accurate enough': bfloat16 is computed in bfloat16 (has the range, not the precision).")

add("p1_weight_after_rounding", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x if x.dtype == torch.float64 else x.float()
    normed = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)
    return normed * weight
'''}, "Breaks 'or a second rounding before the weight is applied, is not accurate enough': rounds to half precision, then multiplies by the weight in half precision.")

add("p1_ok_F_rms_norm", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    return F.rms_norm(x.to(work), normalized_shape=(x.shape[-1],), weight=weight.to(work), eps=eps).to(x.dtype)
'''}, "torch's own F.rms_norm in float32 (float64 for float64), keywords, one rounding at the end.")

add("p1_ok_float64_everywhere_einsum", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.double()
    ms = torch.einsum("...d,...d->...", x64, x64) / x.shape[-1]
    out = x64 / torch.sqrt(ms + eps).unsqueeze(-1) * weight.double()
    return out.to(dtype=x.dtype)
'''}, "Works in float64 for every dtype ('working in float64 is allowed too'), einsum for the sum of squares, divide instead of rsqrt, one rounding.")

# ---------------- Part 2: modern_params ----------------
add("p2_ffn_two_matrices", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 2 * d_model * d_ff           # up and down projections
    enc = attn + ffn + 2 * d_model
    dec = 2 * attn + ffn + 3 * d_model
    return 2 * vocab * d_model + n_enc * enc + n_dec * dec + 2 * d_model
'''}, "Breaks 'every feed-forward network is **gated** (SwiGLU) ... w_gate and w_up of shape (d_ff, d_model) and w_down': counts two matrices, not three.")

add("p2_layers_swapped", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    enc_layer = 4 * d * d + 3 * d * d_ff + 2 * d
    dec_layer = 8 * d * d + 3 * d * d_ff + 3 * d
    return 2 * vocab * d + n_dec * enc_layer + n_enc * dec_layer + 2 * d
'''}, "Breaks 'An encoder layer has 2 of them, a decoder layer 3 ... an encoder layer has self-attention and a feed-forward network, a decoder layer self-attention, cross-attention': the layer counts are swapped (invisible when n_enc == n_dec).")

add("p2_dff_hardcoded_4d", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    ffn = 3 * d * (4 * d)   # the usual width
    return 2 * vocab * d + n_enc * (4 * d * d + ffn + 2 * d) + n_dec * (8 * d * d + ffn + 3 * d) + 2 * d
'''}, "Breaks 'w_gate and w_up of shape (d_ff, d_model)': uses 4*d_model instead of the d_ff argument (the visible test has no layers).")

add("p2_ok_dict_sum_keywords", True, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    shapes = {"embed": (vocab, d_model), "out": (vocab, d_model), "final_norms": (2, d_model)}
    for i in range(n_enc):
        shapes[f"e{i}a"] = (4, d_model, d_model); shapes[f"e{i}f"] = (3, d_ff, d_model); shapes[f"e{i}n"] = (2, d_model)
    for i in range(n_dec):
        shapes[f"d{i}a"] = (8, d_model, d_model); shapes[f"d{i}f"] = (3, d_ff, d_model); shapes[f"d{i}n"] = (3, d_model)
    return sum(math.prod(s) for s in shapes.values())
'''}, "Counts by listing every shape and summing products (math.prod gives int).")

add("p2_hostile_int_eq", False, {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(0)
'''}, "HOSTILE: an int subclass that claims equality with everything; returns 0.")

# ---------------- Part 3: prefill / request ----------------
add("p3a_float_closed_form", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    k = int(prompt_len / chunk)          # full chunks
    r = prompt_len - k * chunk
    return (chunk * chunk * k * (k + 1) // 2 + r * prompt_len) * layers * heads
'''}, "Breaks 'where a float (any /) ... [is] no longer exact: ... use // where you divide' (closed class: int through float).")

add("p3b_times_layers_heads_twice", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += prompt_len + j
    return total * layers * heads
'''}, "Breaks 'Count one dot product per query, key, head and layer': the prefill part, already multiplied by layers*heads in (a), is multiplied again (invisible with layers = heads = 1).")

add("p3a_ok_closed_form", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    # full chunk j (0-based) scores chunk x (j+1)*chunk; the rest scores rest x prompt_len
    return (chunk * chunk * full * (full + 1) // 2 + rest * prompt_len) * layers * heads
'''}, "Closed form with divmod, no loop.")

add("p3b_ok_keywords_unit_model", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    per_head = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=1, heads=1)
    steps = max(new_tokens - 1, 0)
    per_head += steps * prompt_len + steps * (steps + 1) // 2
    return per_head * layers * heads
'''}, "Calls (a) by keyword for one layer and one head, closed form for the decode steps, multiplies at the end.")

add("p3b_ok_steps_as_prefills", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for s in range(prompt_len, prompt_len + new_tokens - 1):
        # a step at position s is the last chunk (of 1) of a prompt of s + 1 read in chunks of s
        total += prefill_dot_products(s + 1, s, layers, heads) - prefill_dot_products(s, s, layers, heads)
    return total
'''}, "Counts each decode step through (a): a one-position chunk after s cached ones (two chunks per call, allowed sizes).")

add("p3b_ok_keywords_reordered", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    prefill = prefill_dot_products(heads=heads, layers=layers, chunk=chunk, prompt_len=prompt_len)
    keys = range(prompt_len + 1, prompt_len + new_tokens)
    return prefill + sum(keys) * layers * heads
'''}, "Calls (a) with every argument by keyword in another order; sum over a range (Python ints).")

# ---------------- Part 4: packed_masks ----------------
add("p4_cross_forgets_padding", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
    cross = t[:, :, None] == s[:, None, :]
    return src, tgt, cross
'''}, "Breaks 'A padding query (segment 0) may attend to nothing: its row is all False' for cross_allowed: a padded target query may attend to padded source keys (the visible target has no padding).")

add("p4_one_hot_int64_only", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    k = int(max(src_segments.max(), tgt_segments.max())) + 1
    os = F.one_hot(src_segments, k)[..., 1:].float()     # drop segment 0 (padding)
    ot = F.one_hot(tgt_segments, k)[..., 1:].float()
    T = tgt_segments.shape[1]
    src = (os @ os.transpose(1, 2)) > 0
    tgt = ((ot @ ot.transpose(1, 2)) > 0) & torch.ones(T, T, dtype=torch.bool).tril()
    cross = (ot @ os.transpose(1, 2)) > 0
    return src, tgt, cross
'''}, "Breaks 'integer tensors (int64 or int32)': F.one_hot accepts only int64, so an int32 batch raises.")

add("p4_ok_onehot_long_einsum", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    k = int(max(s.max(), t.max())) + 1
    os, ot = F.one_hot(s, k)[..., 1:].to(torch.float64), F.one_hot(t, k)[..., 1:].to(torch.float64)
    T = t.shape[1]
    causal = torch.arange(T)[:, None] >= torch.arange(T)[None, :]
    return (torch.einsum("bik,bjk->bij", os, os) > 0.5,
            (torch.einsum("bik,bjk->bij", ot, ot) > 0.5) & causal,
            torch.einsum("bik,bjk->bij", ot, os) > 0.5)
'''}, "One-hot per pair and einsum, long conversion first, float64 counts.")

add("p4_ok_where_expand_views", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    sq = torch.where(src_segments == 0, -1, src_segments).unsqueeze(-1)   # padding queries match nothing
    tq = torch.where(tgt_segments == 0, -1, tgt_segments).unsqueeze(-1)
    src = sq == src_segments.unsqueeze(1).expand(B, S, S)
    later = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    tgt = (tq == tgt_segments.unsqueeze(1)).masked_fill(later, False)
    cross = tq == src_segments.unsqueeze(-2)
    return src, tgt, cross
'''}, "Padding queries renumbered -1 with torch.where so that no key matches; masked_fill for causality.")

# ---------------- Part 5: sandwich ----------------
add("p5_clone_then_inplace", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y.clone()   # so that the caller's y is not changed
    y += layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y += layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y += layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "Breaks 'Gradients must flow through the result ... the hidden tests compare its gradients with respect to y, to memory and to a parameter': y += changes a tensor layer_norm saved, so backward raises (values right).")

add("p5_memory_normalised", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), layer_norm(memory, *p["pre2"]), memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "Breaks 'keys and values from memory **as it is given** (the encoder has already normalised it; this layer does not)'.")

add("p5_memory_mask_head_axis", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if memory_allowed is not None:
        memory_allowed = memory_allowed.unsqueeze(1)       # (B, 1, 1, S): one mask for all heads
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "Breaks 'allowed is broadcastable to (B, T, S)' (mha adds the head axis itself) and 'memory_allowed (B, 1, S)': adds a second head axis (visible test passes None).")

add("p5_ok_explicit_memory_keywords", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(x=y, weight=p["pre1"][0], bias=p["pre1"][1])
    y = y + layer_norm(mha(query=h, memory=h, allowed=self_allowed, params=p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, list(p["ff"])), *p["post3"])
'''}, "Self-attention with memory given explicitly (= None), setup functions called by keyword, ff passed as a list.")

add("p5_ok_loop_no_grad_free", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    subs = [("pre1", "post1", lambda h: mha(h, None, self_allowed, p["self_attn"])),
            ("pre2", "post2", lambda h: mha(h, memory, memory_allowed, p["cross_attn"])),
            ("pre3", "post3", lambda h: feed_forward(h, p["ff"]))]
    out = y
    for pre, post, f in subs:
        out = out + layer_norm(f(layer_norm(out, *p[pre])), *p[post])
    return out
'''}, "Loop over the three sublayers.")

# ---------------- Part 6: cached_self_attention ----------------
add("p6_past_from_counter", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    split = lambda z: z.reshape(B, n, H, D // H).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    past = cache.get("past", 0)
    if past:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"], cache["past"] = k, v, past + n
    allowed = torch.arange(k.shape[2]) <= torch.arange(k.shape[2] - n, k.shape[2])[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Breaks 'past is the length of the cached keys, cache[\"k\"].shape[2] ... read it from there, because the caller may shorten': keeps its own counter, so after a shortened cache the 'if past' branch reads a stale count (and an emptied cache with a counter > 0 crashes).")

add("p6_detached_cache", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    split = lambda z: z.reshape(B, n, H, D // H).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k.detach(), v.detach()     # a cache holds values, not graphs
    allowed = torch.arange(past + n) <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Breaks 'Gradients must flow through the result ... with respect to x_new and to params[\"w_qkv\"]': the cached keys and values of earlier blocks carry no gradient to w_qkv (closed class: detach).")

add("p6_max_over_masked", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; dh = D // H
    q, k, v = F.linear(x_new, params["w_qkv"], params["b_qkv"]).chunk(3, dim=-1)
    split = lambda z: z.reshape(B, n, H, dh).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    past = cache["k"].shape[2] if "k" in cache else 0
    if past:
        k = torch.cat([cache["k"], k], dim=2); v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    allowed = torch.arange(past + n) <= torch.arange(past, past + n)[:, None]
    scores = q @ k.transpose(-1, -2) / math.sqrt(dh)
    e = torch.exp(scores - scores.amax(-1, keepdim=True)) * allowed    # stable softmax, then mask
    w = e / e.sum(-1, keepdim=True)
    out = w @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "Breaks 'The gradient checks include scores in the thousands ... where no gradient may be NaN or infinite' (and the value): the row maximum includes masked future keys, so every allowed exp can underflow to 0 and the row becomes 0/0.")

add("p6_ok_einsum_float64_update", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS; dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda z: z.unflatten(-1, (H, dh)).permute(0, 2, 1, 3)
    q = heads(torch.einsum("bnd,ed->bne", x_new, w_q) + b_q)
    k_new = heads(torch.einsum("bnd,ed->bne", x_new, w_k) + b_k)
    v_new = heads(torch.einsum("bnd,ed->bne", x_new, w_v) + b_v)
    old_k = cache.get("k", k_new[:, :, :0]); old_v = cache.get("v", v_new[:, :, :0])
    k = torch.cat([old_k, k_new], dim=2); v = torch.cat([old_v, v_new], dim=2)
    cache.update(k=k, v=v)
    past = old_k.shape[2]
    s = torch.einsum("bhid,bhjd->bhij", q.double(), k.double()) / math.sqrt(dh)
    future = torch.arange(past + n)[None, :] > torch.arange(past, past + n)[:, None]
    w = torch.softmax(torch.where(future, float("-inf"), s), dim=-1)
    out = torch.einsum("bhij,bhjd->bhid", w, v.double()).to(x_new.dtype)
    out = out.permute(0, 2, 1, 3).flatten(2)
    return out @ params["w_o"].T + params["b_o"]
'''}, "einsum projections, softmax in float64 with torch.where(-inf), cast back once; zero-length slice as the empty cache; cache.update.")

add("p6_ok_per_query_loop_sdpa", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"]).view(B, n, 3, H, D // H)
    q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
    if "k" in cache and cache["k"].shape[2] > 0:
        k = torch.cat((cache["k"], k), 2); v = torch.cat((cache["v"], v), 2)
    cache["k"] = k; cache["v"] = v
    past = k.shape[2] - n
    if n == 1 or past == 0:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=(n > 1))
    else:
        outs = [F.scaled_dot_product_attention(q[:, :, i:i + 1], k[:, :, :past + i + 1], v[:, :, :past + i + 1])
                for i in range(n)]
        out = torch.cat(outs, dim=2)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "is_causal when the cache is empty, a loop over the block's queries otherwise (non-contiguous views of qkv as the cached keys).")

add("p6_hostile_private_mha", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    my_mha = _make_functions(F.linear, F.scaled_dot_product_attention, NUM_HEADS, F.layer_norm, torch.relu, [])[0]
    B, n, D = x_new.shape
    H = NUM_HEADS
    past = cache["k"].shape[2] if "k" in cache else 0
    xs = torch.cat([cache["x"][:, :past], x_new], 1) if past else x_new
    cache["x"] = xs
    L = xs.shape[1]
    out = my_mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)[:, past:]
    _, k, v = F.linear(xs, params["w_qkv"], params["b_qkv"]).chunk(3, -1)
    cache["k"] = k.reshape(B, L, H, D // H).transpose(1, 2); cache["v"] = v.reshape(B, L, H, D // H).transpose(1, 2)
    return out
'''}, "HOSTILE: builds an unblocked mha from the grader's private _make_functions and recomputes the whole sequence from stored inputs ('Do not call mha, not even on a cache of inputs that you keep yourself'; names with _ belong to the grader).")

add("p4_hostile_numpy_importlib", False, {"packed_masks": '''
import importlib

def packed_masks(src_segments, tgt_segments):
    np = importlib.import_module("nu" + "mpy")
    s, t = np.asarray(src_segments.tolist()), np.asarray(tgt_segments.tolist())
    T = t.shape[1]
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & np.tril(np.ones((T, T), dtype=bool))
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    return tuple(torch.tensor(m.tolist(), dtype=torch.bool) for m in (src, tgt, cross))
'''}, "HOSTILE: brings NumPy in through importlib with an obfuscated name ('a part whose answer uses another library ... scores 0').")
