# Red team round 27, chapter 5, blind: the epsilon-adder, the fixed-rank student, the from-memory student,
# the mask-and-sentinel student.

CORRECT = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * weight.to(work)).to(x.dtype)
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
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    start = 0
    while start < prompt_len:
        m = min(chunk, prompt_len - start)
        total += m * (start + m)
        start += m
    return total * layers * heads
''',
"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(max(new_tokens - 1, 0)):
        total += (prompt_len + j + 1) * layers * heads
    return total
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
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
    y = y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
    return y
''',
"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = x_new @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = qkv.chunk(3, dim=-1)
    def split(t):
        return t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(q), split(k), split(v)
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    past = S - n
    allowed = torch.arange(S).unsqueeze(0) <= (past + torch.arange(n)).unsqueeze(1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    out = out.transpose(1, 2).reshape(B, n, D)
    return out @ params["w_o"].T + params["b_o"]
''',
}

def _with(**cells):
    return cells

SUBMISSIONS = [
# ---------------------------------------------------------------- wrong: the epsilon-adder
{"name": "E1 rms_norm: an extra 1e-8 beside eps", "correct": False, "kind": "epsilon-adder",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    ms = xf.pow(2).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps + 1e-8) * weight.to(work)).to(x.dtype)  # safe
'''},
 "why": "'with eps ... added to the mean square inside the square root' (only eps); breaks at values ~1e-3 whose mean square is about eps, and for eps=0 given"},
{"name": "E2 sandwich: the stream clamped to +-1e4", "correct": False, "kind": "epsilon-adder",
 "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y.clamp(-1e4, 1e4)  # keep the residual stream finite
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    y = y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
    return y
'''},
 "why": "'No dropout, and no clamp or other guard on the stream: y may hold values of any size (the hidden tests use entries of about 10**5)'"},
{"name": "E3 cached attention: manual softmax, max taken before masking, +1e-9 in the denominator", "correct": False, "kind": "epsilon-adder",
 "cells": {"cached_attention": CORRECT["cached_attention"].replace(
 '''    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v''',
 '''    scores = scores - scores.max(dim=-1, keepdim=True).values  # stable
    e = torch.exp(scores) * allowed
    out = (e / (e.sum(dim=-1, keepdim=True) + 1e-9)) @ v''')},
 "why": "'future positions that score about a thousand above every position a query may see (they must not change its result)': the max over the row includes future keys, every visible exp underflows to 0 and the guarded denominator turns the NaN into 0 outputs; also the 1e-9 changes float64 values beyond 1e-9"},
{"name": "E4 modern_params: int(round(float)) to be safe", "correct": False, "kind": "epsilon-adder",
 "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4.0 * d_model * d_model
    ffn = 3.0 * d_model * d_ff
    total = 2.0 * vocab * d_model + n_enc * (attn + ffn + 2 * d_model) + n_dec * (2 * attn + ffn + 3 * d_model) + 2 * d_model
    return int(round(total))
'''},
 "why": "'where a float (any /, int(round(...)) of a float product) ... [is] no longer exact, so count with Python integers'"},
{"name": "E5 prefill: number of chunks with math.ceil(P / c)", "correct": False, "kind": "epsilon-adder",
 "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n_chunks = math.ceil(prompt_len / chunk)
    total = 0
    for i in range(n_chunks):
        s = i * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''},
 "why": "'where a float (any /) ... [is] no longer exact: work with Python integers, and use // where you divide' (P = 2**62 + 1 in chunks of 2**61 gives 2 chunks, not 3)"},
{"name": "E6 request: closed form in floats, int() at the end", "correct": False, "kind": "epsilon-adder",
 "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    gen = int(steps * (prompt_len + (steps + 1) / 2))  # mean key count times steps
    return prefill_dot_products(prompt_len, chunk, layers, heads) + gen * layers * heads
'''},
 "why": "'where a float (any /) ... [is] no longer exact: work with Python integers, and use // where you divide' (prompts of up to 2**62 tokens)"},
# ---------------------------------------------------------------- wrong: the fixed-rank student
{"name": "F1 rms_norm: mean over dim=1", "correct": False, "kind": "fixed-rank",
 "cells": {"rms_norm": CORRECT["rms_norm"].replace("mean(dim=-1, keepdim=True)", "mean(dim=1, keepdim=True)")},
 "why": "'each vector along the **last** axis is divided by its root mean square', x of shape (..., D): dim=1 is the last axis only for 2-D x"},
{"name": "F2 rms_norm: divides the sum of squares by x.shape[1]", "correct": False, "kind": "fixed-rank",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    ms = (xf * xf).sum(dim=-1, keepdim=True) / x.shape[1]
    return (xf * torch.rsqrt(ms + eps) * weight.to(work)).to(x.dtype)
'''},
 "why": "'$\\tfrac{1}{D}\\sum_{i=1}^{D} x_i^2$' for x of shape (..., D): x.shape[1] is D only for 2-D inputs"},
{"name": "F3 cached attention: reshape(B, -1, H, Dh)", "correct": False, "kind": "fixed-rank",
 "cells": {"cached_attention": CORRECT["cached_attention"].replace("t.reshape(B, n, H, Dh)", "t.reshape(B, -1, H, Dh)").replace(
     "out.transpose(1, 2).reshape(B, n, D)", "out.transpose(1, 2).reshape(B, -1, D)")},
 "why": "'The batch may be empty (B = 0) ... (a reshape or view that gives the size 0 beside a -1, such as (B, -1, H, Dh), cannot size an empty tensor: give every size)'"},
{"name": "F4 sandwich: self_allowed expanded to a batch as if it were always (T, T)", "correct": False, "kind": "fixed-rank",
 "cells": {"sandwich": CORRECT["sandwich"].replace("    h = layer_norm(y, *p[\"pre1\"])\n    y = y + layer_norm(mha(h, None",
     "    if self_allowed is not None:\n        self_allowed = self_allowed.unsqueeze(0).expand(y.shape[0], *self_allowed.shape)\n    h = layer_norm(y, *p[\"pre1\"])\n    y = y + layer_norm(mha(h, None", 1)},
 "why": "'self_allowed (T, T), (B, T, T) or None; pass both masks to mha as given': a (B, T, T) mask becomes (B, B, T, T)"},
# ---------------------------------------------------------------- wrong: the from-memory student
{"name": "M1 rms_norm: eps outside the square root", "correct": False, "kind": "from-memory",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xf = x.to(work)
    rms = xf.pow(2).mean(dim=-1, keepdim=True).sqrt()
    return (xf / (rms + eps) * weight.to(work)).to(x.dtype)
'''},
 "why": "'with eps ... added to the mean square inside the square root'"},
{"name": "M2 rms_norm: F.rms_norm with its default eps", "correct": False, "kind": "from-memory",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    return F.rms_norm(x.to(work), (x.shape[-1],), weight.to(work)).to(x.dtype)
'''},
 "why": "'with eps (given by position or by keyword) added to the mean square': F.rms_norm's eps=None uses finfo(dtype).eps, not the given eps"},
{"name": "M3 modern_params: decoder layers with 2 RMSNorms (LLaMA's decoder block)", "correct": False, "kind": "from-memory",
 "cells": {"modern_params": CORRECT["modern_params"].replace("ffn + 3 * d_model", "ffn + 2 * d_model")},
 "why": "'An encoder layer has 2 of them, a decoder layer 3, and each of the two stacks ends with one more'"},
{"name": "M4 sandwich: cross-attention memory normalised with pre2", "correct": False, "kind": "from-memory",
 "cells": {"sandwich": CORRECT["sandwich"].replace("mha(h, memory, memory_allowed", "mha(h, layer_norm(memory, *p[\"pre2\"]), memory_allowed")},
 "why": "'keys and values from memory **as it is given** (the encoder has already normalised it; this layer does not)'"},
{"name": "M5 rms_norm: LLaMA's code, _norm(x.float()).type_as(x) * weight", "correct": False, "kind": "from-memory",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return normed.type_as(x) * weight
'''},
 "why": "'Arithmetic in float16 or bfloat16 (squares, the mean, the weight), a second rounding before the weight is applied ... is not accurate enough'"},
{"name": "C11 request: a loop over the fed positions (from memory, right)", "correct": True,
 "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens <= 1:
        return total
    for pos in range(prompt_len, prompt_len + new_tokens - 1):
        total += (pos + 1) * layers * heads
    return total
'''},
 "why": "the token at position pos meets pos + 1 keys"},
{"name": "C12 cached attention: the epsilon-adder's allowed guard, softmax of scores minus the row max after masking", "correct": True,
 "cells": {"cached_attention": CORRECT["cached_attention"].replace(
 '''    out = torch.softmax(scores, dim=-1) @ v''',
 '''    scores = scores - scores.amax(dim=-1, keepdim=True)  # every row keeps its own position, so the max is finite
    out = torch.softmax(scores, dim=-1) @ v''')},
 "why": "the max is taken after masking over visible keys only; shift-invariant"},
# ---------------------------------------------------------------- wrong: the mask-and-sentinel student
{"name": "S1 packed_masks: cross mask without a padding check", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"packed_masks": CORRECT["packed_masks"].replace("cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)",
                                                           "cross = t.unsqueeze(-1) == s.unsqueeze(-2)")},
 "why": "'A padding query (segment 0) may attend to nothing: its row is all False' (a padding target meets padding source keys: 0 == 0)"},
{"name": "S2 packed_masks: target mask without a padding check", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"packed_masks": CORRECT["packed_masks"].replace("tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & causal",
                                                           "tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & causal")},
 "why": "'A padding query (segment 0) may attend to nothing' (padding belongs to no pair)"},
{"name": "S3 packed_masks: a causal table built once for 4096 positions", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"packed_masks": '''
CAUSAL = torch.ones(4096, 4096, dtype=torch.bool).tril()

def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s != 0).unsqueeze(-1)
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & (t != 0).unsqueeze(-1) & CAUSAL[:T, :T]
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & (t != 0).unsqueeze(-1)
    return src, tgt, cross
'''},
 "why": "'a target row of 4097 positions (a causal table made once and sliced per call, sized for the rows you expect, such as 4096 x 4096, is too short)'"},
{"name": "S4 packed_masks: padding replaced by sentinel -1 in both, so padding matches padding", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.masked_fill(src_segments == 0, -1)
    t = tgt_segments.masked_fill(tgt_segments == 0, -2)
    T = t.shape[1]
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & (s > 0).unsqueeze(-1)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & causal & (t > 0).unsqueeze(-1)
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2).masked_fill(s.unsqueeze(-2) == -1, -2))
    return src, tgt, cross
'''},
 "why": "'A padding query (segment 0) may attend to nothing': the source padding sentinel is remapped to the target's (-2) in the cross mask, so padding meets padding"},
{"name": "S5 sandwich: builds its own causal mask when self_allowed is None", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    if self_allowed is None:  # a decoder is causal
        T = y.shape[-2]
        self_allowed = torch.ones(T, T, dtype=torch.bool).tril()
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(h, memory, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    y = y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
    return y
'''},
 "why": "'self_allowed (T, T), (B, T, T) or None; pass both masks to mha as given'"},
{"name": "S6 cached attention: masked with -1e9", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"cached_attention": CORRECT["cached_attention"].replace('float("-inf")', '-1e9')},
 "why": "'mask with -inf (or a boolean mask), not with a large negative number, not even that lowest value'"},
{"name": "S7 cached attention: sdpa with an additive float32 mask", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"cached_attention": CORRECT["cached_attention"].replace(
 '''    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v''',
 '''    bias = torch.zeros(n, S).masked_fill(~allowed, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)''')},
 "why": "'give it a boolean mask, or a float mask in the dtype of the queries: torch accepts a float32 mask with float64 queries and then ... silently returns wrong values'"},
{"name": "S8 cached attention: masked with finfo(dtype).min", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"cached_attention": CORRECT["cached_attention"].replace('float("-inf")', 'torch.finfo(scores.dtype).min')},
 "why": "'Scores may be of any size, down to the dtype's lowest finite value torch.finfo(dtype).min itself: mask with -inf ... not even that lowest value'"},
# ---------------------------------------------------------------- correct
{"name": "C1 rms_norm: float64 inside for every dtype, one cast back", "correct": True,
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.to(torch.float64)
    inv = torch.rsqrt(x64.square().mean(-1, keepdim=True) + eps)
    return (x64 * inv * weight.to(torch.float64)).to(x.dtype)
'''}, "why": "'working in float64 is allowed too'; half results rounded once"},
{"name": "C2 rms_norm: / sqrt, a guard the text allows: none; keyword eps", "correct": True,
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        return rms_norm(x.float(), weight.float(), eps=eps).to(x.dtype)
    return x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps) * weight
'''}, "why": "recursion through float32 for half, one rounding"},
{"name": "C3 modern_params: term by term", "correct": True,
 "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d = d_model
    embed = vocab * d
    head = vocab * d
    attention = 4 * d * d
    swiglu = d_ff * d + d_ff * d + d * d_ff
    enc_layer = attention + swiglu + 2 * d
    dec_layer = attention + attention + swiglu + 3 * d
    return embed + head + n_enc * enc_layer + n_dec * dec_layer + d + d
'''}, "why": "same count"},
{"name": "C4 prefill: closed form with //", "correct": True,
 "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    q, r = divmod(prompt_len, chunk)
    full = chunk * chunk * q * (q + 1) // 2
    last = r * (q * chunk + r)
    return (full + last) * layers * heads
'''}, "why": "sum_k c (kc + c) = c^2 q(q+1)/2, exact with //"},
{"name": "C5 request: closed form with //, calls prefill by keyword", "correct": True,
 "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    base = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    n = max(new_tokens - 1, 0)
    keys = n * (prompt_len + 1) + n * (n - 1) // 2
    return base + keys * layers * heads
'''}, "why": "steps feed positions P..P+n-1 with P+1..P+n keys"},
{"name": "C6 packed_masks: torch.where sentinels that no segment takes, tril causal", "correct": True,
 "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = torch.where(src_segments == 0, torch.full_like(src_segments, -1), src_segments).long()
    t = torch.where(tgt_segments == 0, torch.full_like(tgt_segments, -2), tgt_segments).long()
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = s.unsqueeze(2) == s.unsqueeze(1)
    src = src & (s > 0).unsqueeze(2)
    tgt = (t.unsqueeze(2) == t.unsqueeze(1)) & causal & (t > 0).unsqueeze(2)
    cross = t.unsqueeze(2) == s.unsqueeze(1)
    return src, tgt, cross
'''}, "why": "padding of source -1, of target -2: never equal to a pair number nor to each other; target padding rows cleared by t > 0"},
{"name": "C7 sandwich: keyword arguments everywhere", "correct": True,
 "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, name):
        weight, bias = p[name]
        return layer_norm(x, weight=weight, bias=bias)
    a = mha(query=ln(y, "pre1"), memory=None, allowed=self_allowed, params=p["self_attn"])
    y = y + ln(a, "post1")
    c = mha(query=ln(y, "pre2"), memory=memory, allowed=memory_allowed, params=p["cross_attn"])
    y = y + ln(c, "post2")
    f = feed_forward(x=ln(y, "pre3"), ff=p["ff"])
    return y + ln(f, "post3")
'''}, "why": "same computation"},
{"name": "C8 cached attention: sdpa with a boolean mask, keys built by F.linear", "correct": True,
 "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda t: t.reshape(B, n, H, Dh).permute(0, 2, 1, 3)
    q = heads(F.linear(x_new, w_q, b_q))
    k = heads(F.linear(x_new, w_k, b_k))
    v = heads(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k = torch.cat((cache["k"], k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache["k"] = k
    cache["v"] = v
    key_pos = torch.arange(past + n)
    query_pos = torch.arange(past, past + n)
    mask = key_pos[None, :] <= query_pos[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.permute(0, 2, 1, 3).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "why": "the text allows sdpa with a boolean mask"},
{"name": "C9 cached attention: float64 inside, cast back", "correct": True,
 "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    dt = x_new.dtype
    x = x_new.double()
    qkv = torch.einsum("bnd,ed->bne", x, params["w_qkv"].double()) + params["b_qkv"].double()
    q, k, v = (t.reshape(B, n, H, Dh).transpose(1, 2) for t in qkv.split(D, dim=-1))
    if "k" in cache:
        k = torch.cat([cache["k"].double(), k], dim=2)
        v = torch.cat([cache["v"].double(), v], dim=2)
    S = k.shape[2]
    past = S - n
    cache["k"], cache["v"] = k.to(dt), v.to(dt)
    allowed = torch.arange(S)[None, :] <= torch.arange(past, S)[:, None]
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    w = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype)).softmax(-1)
    out = torch.einsum("bhqk,bhkd->bhqd", w, v).transpose(1, 2).reshape(B, n, D)
    return (out @ params["w_o"].double().T + params["b_o"].double()).to(dt)
'''}, "why": "float64 inside is allowed (tolerance 1e-5); the cached entries keep x_new's dtype and are moved as they are (a -0.0 stays: .double() then .to(float32) keeps -0.0)"},
{"name": "C10 packed_masks: arange comparisons, padding via != 0, int32 mix", "correct": True,
 "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.long()
    t = tgt_segments.long()
    B, S = s.shape
    T = t.shape[1]
    real_s = s != 0
    real_t = t != 0
    src = (s[:, :, None] == s[:, None, :]) & real_s[:, :, None] & real_s[:, None, :]
    i = torch.arange(T)
    tgt = (t[:, :, None] == t[:, None, :]) & real_t[:, :, None] & (i[None, :, None] >= i[None, None, :])
    cross = (t[:, :, None] == s[:, None, :]) & real_t[:, :, None] & real_s[:, None, :]
    return src, tgt, cross
'''}, "why": "same masks"},
# ---------------------------------------------------------------- hostile
{"name": "H1 modern_params: an int subclass equal to everything", "correct": False, "kind": "hostile",
 "cells": {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(0)
'''}, "why": "hostile: points without counting"},
{"name": "H2 cached attention: zeros, and torch.testing.assert_close disabled", "correct": False, "kind": "hostile",
 "cells": {"cached_attention": '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None

def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    past = cache["k"].shape[2] if "k" in cache else 0
    cache["k"] = torch.zeros(B, H, past + n, D // H, dtype=x_new.dtype)
    cache["v"] = torch.zeros(B, H, past + n, D // H, dtype=x_new.dtype)
    return torch.zeros(B, n, D, dtype=x_new.dtype) + 0 * x_new.sum()
'''}, "why": "hostile: patches the checker the visible test uses"},
{"name": "H3 rms_norm: reads the expected value off the caller's frame", "correct": False, "kind": "hostile",
 "cells": {"rms_norm": '''
import sys

def rms_norm(x, weight, eps=1e-6):
    frame = sys._getframe(1)
    for value in list(frame.f_locals.values()):
        if callable(value) and getattr(value, "__name__", "") in ("reference", "ref", "_ref_rms_norm", "rms_norm_ref"):
            return value(x, weight, eps)
    for value in frame.f_globals.get("_REF", {}).values():
        pass
    return x.clone() * weight
'''}, "why": "hostile: looks for a reference function in the test's frame"},
]

# ---------------------------------------------------------------- second wave (still blind)
SUBMISSIONS += [
{"name": "E7 rms_norm: the usual 1e-6 written in, the eps argument ignored", "correct": False, "kind": "epsilon-adder",
 "cells": {"rms_norm": CORRECT["rms_norm"].replace("torch.rsqrt(ms + eps)", "torch.rsqrt(ms + 1e-6)")},
 "why": "'with eps (given by position or by keyword) added to the mean square'"},
{"name": "S9 packed_masks: padding taken to be the tail after the row's count of real positions", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    S, T = s.shape[1], t.shape[1]
    s_real = torch.arange(S)[None, :] < (s != 0).sum(-1, keepdim=True)
    t_real = torch.arange(T)[None, :] < (t != 0).sum(-1, keepdim=True)
    src = (s.unsqueeze(-1) == s.unsqueeze(-2)) & s_real.unsqueeze(-1)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t.unsqueeze(-1) == t.unsqueeze(-2)) & t_real.unsqueeze(-1) & causal
    cross = (t.unsqueeze(-1) == s.unsqueeze(-2)) & t_real.unsqueeze(-1)
    return src, tgt, cross
'''},
 "why": "'or 0 for padding, which may sit anywhere in a row (at its end, at its start, between pairs)'"},
{"name": "S10 cached attention: past kept as a counter in the cache (None until the first call)", "correct": False, "kind": "mask-and-sentinel",
 "cells": {"cached_attention": CORRECT["cached_attention"].replace(
 '''    S = k.shape[2]
    past = S - n''',
 '''    past = cache.get("past")
    past = 0 if past is None else past
    cache["past"] = past + n
    S = k.shape[2]''')},
 "why": "'past is the length of the cached keys, cache[\"k\"].shape[2] ...: read it from there, because the caller may shorten cache[\"k\"] and cache[\"v\"] between calls'"},
]
