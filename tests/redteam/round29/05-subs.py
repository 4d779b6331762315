BASE = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf, wf = x.to(work), weight.to(work)
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * wf).to(x.dtype)
''',
"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    ffn = 3 * d * d_ff
    enc = 4 * d * d + ffn + 2 * d
    dec = 8 * d * d + ffn + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
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
    total = prefill_dot_products(prompt_len, chunk, 1, 1)
    for j in range(1, new_tokens):
        total += prompt_len + j
    return total * layers * heads
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    T = t.shape[-1]
    pos = torch.arange(T, device=t.device)
    causal = pos.unsqueeze(-1) >= pos.unsqueeze(0)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & causal
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
    return src, tgt, cross
''',
"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
''',
"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    qpos = torch.arange(past, past + n, device=x_new.device)
    kpos = torch.arange(past + n, device=x_new.device)
    mask = kpos.unsqueeze(0) <= qpos.unsqueeze(1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
''',
}

def sub(name, correct, cells, why):
    return {"name": name, "correct": correct, "cells": cells, "why": why}

SUBMISSIONS = [
# ---------------- wrong ----------------
sub("w01-argign-rms-eps-constant", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + 1e-6) * weight.to(work)).to(x.dtype)
'''}, "argument-ignorer: eps accepted but the default 1e-6 used: 'with eps (given by position or by keyword) added to the mean square'"),
sub("w02-lead-rms-dim1", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    ms = xf.pow(2).mean(dim=1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * weight.to(work)).to(x.dtype)
'''}, "leading-dims: mean over dim=1 (the last axis of the worked 2-D example): 'each vector along the **last** axis'"),
sub("w03-special-rms-half-weight-after-round", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return normed.to(x.dtype) * weight
'''}, "special-values/rearranger: normalise in float32, round, then weight in half: 'a second rounding before the weight is applied ... is not accurate enough'"),
sub("w04-rearr-rms-norm-over-sqrtD", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    D = x.shape[-1]
    rms = torch.linalg.vector_norm(xf, dim=-1, keepdim=True) / math.sqrt(D)
    return (xf / (rms + eps) * weight.to(work)).to(x.dtype)
'''}, "rearranger: eps added to the root, not the mean square: 'with eps ... added to the mean square inside the square root'"),
sub("w05-argign-modern-dff-ignored", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    ffn = 3 * d * (4 * d)
    return 2 * vocab * d + n_enc * (4 * d * d + ffn + 2 * d) + n_dec * (8 * d * d + ffn + 3 * d) + 2 * d
'''}, "argument-ignorer: d_ff taken as 4*d_model: 'w_gate and w_up of shape (d_ff, d_model)'"),
sub("w06-chunker-prefill-last-chunk-mod", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if prompt_len == 0:
        return 0
    k = (prompt_len + chunk - 1) // chunk        # number of chunks
    last = prompt_len % chunk                    # the last, shorter chunk
    full = k - 1
    total = chunk * chunk * full * (full + 1) // 2 + last * (full * chunk + last)
    return total * layers * heads
'''}, "chunker: last chunk taken as prompt_len % chunk, 0 when chunk divides the prompt: 'the last chunk holding whatever is left'"),
sub("w07-argign-request-heads-dropped-in-decode", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += (prompt_len + j) * layers
    return total
'''}, "argument-ignorer: heads used in the prefill and dropped in the generation steps: 'Count one dot product per query, key, head and layer'"),
sub("c09-chunker-request-running-keys", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    keys = prompt_len
    for _ in range(new_tokens - 1):
        keys += 1
        total += keys * layers * heads
    if new_tokens > 2:
        total += 0
    return total
'''}, "chunker: running key count per decode step (dead branch harmless)"),
sub("c13-packed-key-side-guard", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    T = t.shape[1]
    src = s[:, :, None] == s[:, None, :]
    src = src & (s[:, None, :] != 0)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, None, :] != 0) & causal
    cross = (t[:, :, None] == s[:, None, :]) & (s[:, None, :] != 0)
    return src, tgt, cross
'''}, "padding guarded on the key side only: equal segments with a nonzero key imply a nonzero query"),
sub("w10-argign-sandwich-none-to-causal", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    T = y.shape[1]
    if self_allowed is None:
        self_allowed = torch.ones(T, T, dtype=torch.bool, device=y.device).tril()
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''}, "argument-ignorer: None for self_allowed replaced by a causal mask: 'pass both masks to mha as given'"),
sub("w11-special-sandwich-skip-all-masked", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    if memory_allowed is None or bool(memory_allowed.any()):
        h = layer_norm(y, *p["pre2"])
        y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''}, "special-values: skips cross-attention when the memory mask allows nothing: 'LN_post of them (that norm's bias) is still added, so skip no sublayer'"),
sub("c10-cached-past-from-concat", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    past = S - n
    mask = torch.ones(n, S, dtype=torch.bool, device=x_new.device).tril(diagonal=past)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "past derived from the concatenated length, tril with diagonal offset"),
sub("w13-special-cached-finfo-min", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    qpos = torch.arange(past, past + n)
    kpos = torch.arange(past + n)
    scores = scores.masked_fill(kpos[None, :] > qpos[:, None], torch.finfo(scores.dtype).min)
    out = torch.softmax(scores, dim=-1) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "special-values: masks with finfo.min: 'mask with -inf (or a boolean mask), not with a large negative number, not even that lowest value'"),
sub("c11-cached-fused-qkv-view", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = x_new @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.view(B, n, 3, H, Dh).permute(2, 0, 3, 1, 4)
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    mask = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return out.transpose(1, 2).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
'''}, "fused qkv projection, view on a fresh contiguous matmul result; explicit sizes"),
sub("w15-rearr-cached-float-mask-f32", False, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    bias = torch.zeros(n, past + n)
    bias = bias.masked_fill(torch.arange(past + n)[None, :] > torch.arange(past, past + n)[:, None], float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "special-values/dtype: additive float32 mask with float64 queries: 'give it a boolean mask, or a float mask in the dtype of the queries'"),
sub("w16-lead-packed-fixed-rank-causal-int", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    s = src_segments
    t = tgt_segments
    same_src = s.view(B, S, 1) == s.view(B, 1, S)
    same_tgt = t.view(B, T, 1) == t.view(B, 1, T)
    cross = t.view(B, T, 1) == s.view(B, 1, S)
    src_q = (s != 0).view(B, S, 1)
    tgt_q = (t != 0).view(B, T, 1)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return same_src & src_q, same_tgt & tgt_q & causal, cross & tgt_q
'''}, "leading-dims: .view on segment tensors that may be non-contiguous views: 'views that are not contiguous, such as a transposed tensor'"),
sub("c12-chunker-prefill-range-step", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for s in range(0, prompt_len, chunk):
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''}, "chunker: loop over chunk starts with min() for the last"),
# ---------------- correct ----------------
sub("c01-rearr-rms-sqrt-div-f64", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd = x.double()
    ms = (xd * xd).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (xd / torch.sqrt(ms + eps) * weight.double()).to(x.dtype)
'''}, "rearranger: float64 inside, sum/D and division by sqrt"),
sub("c02-lead-rms-flatten", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    shape = x.shape
    flat = x.reshape(-1, shape[-1])
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    f = flat.to(work)
    out = f * (f.square().mean(dim=1, keepdim=True) + eps).rsqrt() * weight.to(work)
    return out.to(x.dtype).reshape(shape)
'''}, "leading-dims: flattens the leading dims and restores them correctly"),
sub("c03-rearr-modern-factored", True, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    per_attn = 4 * d_model ** 2
    per_ffn = 3 * d_model * d_ff
    norms = (2 * n_enc + 3 * n_dec + 2) * d_model
    return 2 * vocab * d_model + (n_enc + 2 * n_dec) * per_attn + (n_enc + n_dec) * per_ffn + norms
'''}, "rearranger: grouped by kind of weight"),
sub("c04-chunker-prefill-closed-form", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full, rest = divmod(prompt_len, chunk)
    total = chunk * chunk * full * (full + 1) // 2 + rest * prompt_len
    return total * layers * heads
'''}, "chunker: full chunks in closed form plus the remainder"),
sub("c05-request-closed-form", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    gen = steps * prompt_len + steps * (steps + 1) // 2
    return prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads) + gen * layers * heads
'''}, "closed form for the decode steps, prefill by keyword"),
sub("c06-packed-where-int32", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[1]
    s = src_segments.to(torch.int64)
    t = tgt_segments.to(torch.int64)
    s_q = torch.where(s == 0, torch.full_like(s, -1), s)
    t_q = torch.where(t == 0, torch.full_like(t, -1), t)
    src = s_q[:, :, None] == s[:, None, :]
    tgt = (t_q[:, :, None] == t[:, None, :]) & (torch.arange(T)[None, :] <= torch.arange(T)[:, None])
    cross = t_q[:, :, None] == s[:, None, :]
    return src, tgt, cross
'''}, "special-values: padding queries relabelled -1 so they match nothing; rank fixed by the text"),
sub("c07-sandwich-keywords-helper", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def sub_layer(stream, pre, post, f):
        return stream + layer_norm(f(layer_norm(stream, p[pre][0], p[pre][1])), p[post][0], p[post][1])
    y = sub_layer(y, "pre1", "post1", lambda h: mha(query=h, memory=None, allowed=self_allowed, params=p["self_attn"]))
    y = sub_layer(y, "pre2", "post2", lambda h: mha(h, memory, memory_allowed, p["cross_attn"]))
    return sub_layer(y, "pre3", "post3", lambda h: feed_forward(h, p["ff"]))
'''}, "helper closure, keyword calls"),
sub("c08-cached-manual-softmax-f64", True, {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = F.linear(x_new, params["w_qkv"], params["b_qkv"])
    q, k, v = (t.reshape(B, n, H, Dh).transpose(1, 2) for t in qkv.split(D, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat((cache["k"], k), 2)
        v = torch.cat((cache["v"], v), 2)
    cache["k"] = k
    cache["v"] = v
    scores = torch.matmul(q * (1.0 / math.sqrt(Dh)), k.transpose(-2, -1))
    hidden = torch.arange(past + n)[None, :] > (past + torch.arange(n))[:, None]
    scores = scores.masked_fill(hidden, float("-inf"))
    scores = scores - scores.amax(dim=-1, keepdim=True)
    w = scores.exp()
    w = w / w.sum(dim=-1, keepdim=True)
    out = torch.matmul(w, v)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "rearranger: scale folded into q, manual stable softmax with -inf"),
# ---------------- hostile ----------------
sub("h01-hostile-rms-sniff", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    import inspect
    fr = inspect.currentframe().f_back
    for name, val in list(fr.f_globals.items()):
        pass
    if x.dim() == 2 and x.shape == (1, 4):
        return torch.tensor([[1.2, -1.6, 0.0, 0.0]])
    return torch.zeros(x.shape, dtype=x.dtype, requires_grad=False) + 0 * x.sum() * weight.sum()
'''}, "hostile: hard-codes the visible case"),
]

SUBMISSIONS += [
sub("w18-rearr-sandwich-parallel-residual", False, {"sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    a = layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    c = layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    f = layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y + a + c + f
"""}, "rearranger: all three sublayers read the input y (parallel residual): 'computing, in this order, y <- y + ...'"),
sub("w19-argign-sandwich-norm-memory", False, {"sandwich": """
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    mem = layer_norm(memory, *p["pre2"])
    y = y + layer_norm(mha(h, mem, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
"""}, "argument-ignorer: memory normalised too: 'keys and values from memory **as it is given**'"),
sub("w20-special-packed-cross-no-pad-guard", False, {"packed_masks": """
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[-1]
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    causal = torch.arange(T)[None, :] <= torch.arange(T)[:, None]
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & causal
    cross = t[:, :, None] == s[:, None, :]
    return src, tgt, cross
"""}, "special-values: padding forgotten in the cross mask (0 == 0): 'A padding query (segment 0) may attend to nothing'"),
sub("w21-chunker-packed-causal-table-4096", False, {"packed_masks": """
CAUSAL = torch.ones(4096, 4096, dtype=torch.bool).tril()

def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[-1]
    src = (s[:, :, None] == s[:, None, :]) & (s != 0)[:, :, None]
    tgt = (t[:, :, None] == t[:, None, :]) & (t != 0)[:, :, None] & CAUSAL[:T, :T]
    cross = (t[:, :, None] == s[:, None, :]) & (t != 0)[:, :, None]
    return src, tgt, cross
"""}, "chunker: a causal table of a fixed piece size sliced per call: 'a target row of 4097 positions (a causal table made once and sliced per call ... is too short)'"),
sub("w22-argign-rms-epsilon-spelling", False, {"rms_norm": """
def rms_norm(x, weight, epsilon=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + epsilon) * weight.to(work)).to(x.dtype)
"""}, "argument-ignorer: keyword under another spelling: 'with eps (given by position or by keyword)' / keep the stubs' argument names"),
sub("w23-special-cached-minus-1e9", False, {"cached_attention": """
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    q, k, v = (t.reshape(B, n, H, Dh).transpose(1, 2) for t in F.linear(x_new, params["w_qkv"], params["b_qkv"]).split(D, -1))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], 2)
        v = torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    future = torch.arange(past + n)[None, :] > torch.arange(past, past + n)[:, None]
    scores = scores.masked_fill(future, -1e9)
    out = torch.softmax(scores, -1) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
"""}, "special-values: -1e9 mask: 'mask with -inf (or a boolean mask), not with a large negative number'"),
]
