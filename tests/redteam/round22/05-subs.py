REFERENCE = {
"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()).to(x.dtype)
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
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    s = 0
    while s < prompt_len:
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
        s += m
    return total * layers * heads
''',
"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += (prompt_len + j) * layers * heads
    return total
''',
"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool, device=t.device).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src, tgt, cross
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
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k = split(F.linear(x_new, w_k, b_k))
    v = split(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        past = cache["k"].shape[2]
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    else:
        past = 0
    cache["k"], cache["v"] = k, v
    qpos = torch.arange(past, past + n, device=x_new.device)
    kpos = torch.arange(past + n, device=x_new.device)
    mask = kpos[None, :] <= qpos[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
''',
}

SUBMISSIONS = [
# ---------------- wrong: sampling-and-randomness student ----------------
{"name": "W01-sandwich-tiny-dropout-global-rng", "correct": False, "kind": "sampling",
 "why": "P5 'No dropout' and intro 'your functions may not seed or draw from torch's global random number generator': a residual dropout kept at p=1e-12 draws from the global generator (never drops anything in practice).",
 "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    drop = lambda t: F.dropout(t, p=1e-12, training=True)  # "tiny" residual dropout from the lesson's layer
    y = y + drop(layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"]))
    y = y + drop(layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"]))
    y = y + drop(layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"]))
    return y
'''}},
{"name": "W02-cached-attn-sdpa-dropout-default", "correct": False, "kind": "sampling",
 "why": "P6 'must give what mha gives on the whole sequence' and intro 'may not ... draw from torch's global random number generator': attention dropout 1e-9 in sdpa draws from the global generator each call.",
 "cells": {"cached_attention": REFERENCE["cached_attention"].replace("attn_mask=mask)", "attn_mask=mask, dropout_p=1e-9)")}},
# ---------------- wrong: rounding-and-integer student ----------------
{"name": "W03-prefill-ceil-float-chunks", "correct": False, "kind": "rounding",
 "why": "P3 'use // where you divide ... a float (any /) ... no longer exact': math.ceil(P / c) in floats loses the last short chunk for prompts near 2**62.",
 "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n_chunks = math.ceil(prompt_len / chunk)
    total = 0
    for i in range(n_chunks):
        s = i * chunk
        m = min(chunk, prompt_len - s)
        total += m * (s + m)
    return total * layers * heads
'''}},
{"name": "W04-request-float-series", "correct": False, "kind": "rounding",
 "why": "P3 'work with Python integers, and use // where you divide': the arithmetic series of the generation steps summed as int(n*(a+b)/2) goes through a float.",
 "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    n = max(new_tokens - 1, 0)
    first, last = prompt_len + 1, prompt_len + n
    total += int(n * (first + last) / 2) * layers * heads
    return total
'''}},
{"name": "W05-params-fsum", "correct": False, "kind": "rounding",
 "why": "P2 'every term of it past 2**53, where a float ... [is] no longer exact, so count with Python integers': math.fsum of the terms then int().",
 "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    terms = [2 * vocab * d_model,
             n_enc * (4 * d_model * d_model + 3 * d_model * d_ff + 2 * d_model),
             n_dec * (8 * d_model * d_model + 3 * d_model * d_ff + 3 * d_model),
             2 * d_model]
    return int(math.fsum(terms))   # fsum: exact rounding of the sum
'''}},
{"name": "W06-packed-uint8-segments", "correct": False, "kind": "rounding",
 "why": "P4 'rows of more than a thousand pairs ... compare positions as integers': segments narrowed to uint8 to save memory wrap at 256, so pair 1 and pair 257 see each other.",
 "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.to(torch.uint8), tgt_segments.to(torch.uint8)   # small ids: 1 byte each
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & causal
    return src, tgt, cross
'''}},
{"name": "W07-cached-past-from-numel", "correct": False, "kind": "rounding",
 "why": "P6 'The batch may be empty (B = 0) ... nothing raises' / 'past is ... cache[\"k\"].shape[2]': past = numel // (B*H*Dh) divides by zero for B = 0.",
 "cells": {"cached_attention": REFERENCE["cached_attention"].replace('past = cache["k"].shape[2]', 'past = cache["k"].numel() // (B * H * Dh)')}},
{"name": "W08-rms-half-round-before-weight", "correct": False, "kind": "rounding",
 "why": "P1 'a second rounding before the weight is applied, is not accurate enough': normalises in float32, rounds to half, then multiplies the weight in half.",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return normed.to(x.dtype) * weight
'''}},
# ---------------- wrong: counting-and-units student ----------------
{"name": "W09-rms-mean-over-sentence", "correct": False, "kind": "counting",
 "why": "P1 'each vector along the **last** axis is divided by its root mean square': the mean square is taken per sentence (all axes but the batch).",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    dims = tuple(range(1, x.dim())) if x.dim() > 1 else (-1,)
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    out = xf * torch.rsqrt(xf.pow(2).mean(dim=dims, keepdim=True) + eps) * weight.to(xf.dtype)
    return out.to(x.dtype)
'''}},
{"name": "W10-params-cross-kv-once", "correct": False, "kind": "counting",
 "why": "P2 'every attention block has four d_model x d_model projections': the cross-attention's key/value projections are counted once for the whole decoder (the memory is shared).",
 "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    attn = 4 * d * d
    ffn = 3 * d * f
    enc_layer = attn + ffn + 2 * d
    dec_layer = attn + 2 * d * d + ffn + 3 * d   # cross-attention: q and o per layer
    shared_kv = 2 * d * d if n_dec > 0 else 0    # k, v of the memory: computed once
    return 2 * vocab * d + n_enc * enc_layer + n_dec * dec_layer + shared_kv + 2 * d
'''}},
{"name": "W11-params-decoder-two-norms", "correct": False, "kind": "counting",
 "why": "P2 'An encoder layer has 2 of them, a decoder layer 3': the decoder layer counted with 2 RMSNorms like the encoder's.",
 "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    norm = d
    enc = 4 * d * d + 3 * d * f + 2 * norm
    dec = 2 * 4 * d * d + 3 * d * f + 2 * norm
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * norm
'''}},
{"name": "W12-request-generation-per-model", "correct": False, "kind": "counting",
 "why": "P3 'Count one dot product per query, key, head and layer': the generation steps are counted once for the model, not per layer and head.",
 "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += prompt_len + j
    return total
'''}},
{"name": "W13-cached-own-length-counter", "correct": False, "kind": "counting",
 "why": "P6 'past is the length of the cached keys, cache[\"k\"].shape[2] ... read it from there, because the caller may shorten': keeps its own position counter in the cache.",
 "cells": {"cached_attention": REFERENCE["cached_attention"].replace('past = cache["k"].shape[2]', 'past = cache.get("length", cache["k"].shape[2])').replace('cache["k"], cache["v"] = k, v', 'cache["k"], cache["v"] = k, v\n    cache["length"] = past + n')}},
# ---------------- wrong: allocation student ----------------
{"name": "W14-rms-float32-buffer", "correct": False, "kind": "allocation",
 "why": "P1 'a float64 input must not pass through float32': the result is built in a torch.empty buffer without dtype= (float32) and cast back.",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    out = torch.empty(x.shape)
    xf = x.float()
    out[...] = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight.float()
    return out.to(x.dtype)
'''}},
{"name": "W15-cached-preallocated-buffer", "correct": False, "kind": "allocation",
 "why": "P6 'never write into a tensor that an earlier call returned or cached' and 'keep the dtype of x_new': a preallocated zeros buffer (float32, 1024 positions) written in place, the cache a slice of it.",
 "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k = split(F.linear(x_new, w_k, b_k))
    v = split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "kbuf" not in cache or cache["kbuf"].shape[2] < past + n:
        size = max(1024, 2 * (past + n))
        kbuf, vbuf = torch.zeros(B, H, size, Dh), torch.zeros(B, H, size, Dh)
        if past:
            kbuf[:, :, :past] = cache["k"]
            vbuf[:, :, :past] = cache["v"]
        cache["kbuf"], cache["vbuf"] = kbuf, vbuf
    cache["kbuf"][:, :, past:past + n] = k
    cache["vbuf"][:, :, past:past + n] = v
    cache["k"], cache["v"] = cache["kbuf"][:, :, :past + n], cache["vbuf"][:, :, :past + n]
    mask = torch.arange(past + n)[None, :] <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, cache["k"], cache["v"], attn_mask=mask)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}},
{"name": "W16-packed-cross-aliases-src", "correct": False, "kind": "allocation",
 "why": "P4 'return three new tensors at every call, none a view of another (not even where two masks hold equal values, as the source and cross masks do when the source and target segments are equal)'.",
 "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    if s.shape == t.shape and torch.equal(s, t.to(s.dtype)):
        cross = src   # same segments: the cross mask is the source mask, no need for another buffer
    else:
        cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    T = t.shape[1]
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & torch.ones(T, T, dtype=torch.bool).tril()
    return src, tgt, cross
'''}},
{"name": "W17-sandwich-data-accumulate", "correct": False, "kind": "allocation",
 "why": "P5 'Gradients must flow through the result ... do not compute any factor under torch.no_grad() or .detach() it': the residual stream is accumulated in a cloned buffer through .data, so the sublayers carry no gradient.",
 "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    out = y.clone()
    out.data += layer_norm(mha(layer_norm(out, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"]).data
    out.data += layer_norm(mha(layer_norm(out, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"]).data
    out.data += layer_norm(feed_forward(layer_norm(out, *p["pre3"]), p["ff"]), *p["post3"]).data
    return out
'''}},
{"name": "W18-packed-module-causal-table", "correct": False, "kind": "allocation",
 "why": "P4 'Rows may be long: ... pairs of more than two thousand positions': a module-level causal table of 2048 x 2048 (a max_len buffer) sliced per call cannot cover longer rows.",
 "cells": {"packed_masks": '''
CAUSAL_TABLE = torch.ones(2048, 2048, dtype=torch.bool).tril()   # built once, sliced per call

def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    T = t.shape[1]
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & CAUSAL_TABLE[:T, :T]
    return src, tgt, cross
'''}},
# ---------------- correct ----------------
{"name": "C01-rms-float64-inside", "correct": True, "kind": "rounding",
 "why": "P1 allows working in float64 and rounding once at the end.",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd, wd = x.to(torch.float64), weight.to(torch.float64)
    ms = (xd * xd).sum(dim=-1, keepdim=True) / x.shape[-1]
    return (xd / torch.sqrt(ms + eps) * wd).to(x.dtype)
'''}},
{"name": "C02-params-prod-of-shapes", "correct": True, "kind": "counting",
 "why": "P2: every matrix listed by shape, counted with math.prod in Python ints.",
 "cells": {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = [(d_model, d_model)] * 4
    ffn = [(d_ff, d_model), (d_ff, d_model), (d_model, d_ff)]
    enc_layer = attn + ffn + [(d_model,)] * 2
    dec_layer = attn + attn + ffn + [(d_model,)] * 3
    model = [(vocab, d_model), (vocab, d_model), (d_model,), (d_model,)]
    count = lambda shapes: sum(math.prod(s) for s in shapes)
    return count(model) + n_enc * count(enc_layer) + n_dec * count(dec_layer)
'''}},
{"name": "C03-prefill-divmod-closed-form", "correct": True, "kind": "rounding",
 "why": "P3: k full chunks and a remainder r, sums in Python ints with //.",
 "cells": {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    k, r = divmod(prompt_len, chunk)
    full = chunk * chunk * k * (k + 1) // 2
    return (full + r * prompt_len) * layers * heads
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    n = max(new_tokens - 1, 0)
    steps = n * prompt_len + n * (n + 1) // 2
    return prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads) + steps * layers * heads
'''}},
{"name": "C04-packed-where-and-tril", "correct": True, "kind": "allocation",
 "why": "P4 with torch.where, int64 widening and logical_and; three separately allocated masks.",
 "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s = src_segments.to(torch.int64)
    t = tgt_segments.to(torch.int64)
    B, S = s.shape
    T = t.shape[1]
    s_real = s != 0
    t_real = t != 0
    src = torch.where(s_real[:, :, None], s[:, :, None] == s[:, None, :], torch.zeros((), dtype=torch.bool))
    cross = torch.logical_and(t[:, :, None] == s[:, None, :], t_real[:, :, None])
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=0)
    tgt = (t[:, :, None] == t[:, None, :]).logical_and(t_real.unsqueeze(-1)).logical_and(causal)
    return src.clone(), tgt, cross
'''}},
{"name": "C05-sandwich-helper", "correct": True, "kind": "allocation",
 "why": "P5 with a sublayer helper and keyword arguments, p=0 dropout (a no-op, draws nothing).",
 "cells": {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def sublayer(stream, name, f):
        return stream + F.dropout(layer_norm(f(layer_norm(stream, *p["pre" + name])), *p["post" + name]), p=0.0)
    y = sublayer(y, "1", lambda h: mha(query=h, memory=None, allowed=self_allowed, params=p["self_attn"]))
    y = sublayer(y, "2", lambda h: mha(h, memory, memory_allowed, p["cross_attn"]))
    y = sublayer(y, "3", lambda h: feed_forward(h, p["ff"]))
    return y
'''}},
{"name": "C06-cached-manual-softmax-einsum", "correct": True, "kind": "counting",
 "why": "P6 with einsum scores, a -inf masked_fill and an n x (past+n) mask from tril(diagonal=past).",
 "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    qkv = x_new @ params["w_qkv"].T + params["b_qkv"]
    q, k, v = (t.reshape(B, n, H, Dh).permute(0, 2, 1, 3) for t in qkv.split(D, dim=-1))
    past = cache["k"].shape[2] if "k" in cache else 0
    if past or "k" in cache:
        k = torch.cat((cache["k"], k), dim=2)
        v = torch.cat((cache["v"], v), dim=2)
    cache["k"] = k
    cache["v"] = v
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    allowed = torch.ones(n, past + n, dtype=torch.bool).tril(diagonal=past)
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    out = torch.einsum("bhqk,bhkd->bhqd", weights, v)
    return out.permute(0, 2, 1, 3).reshape(B, n, D) @ params["w_o"].T + params["b_o"]
'''}},
{"name": "C07-cached-empty-start-new-zeros", "correct": True, "kind": "allocation",
 "why": "P6: an empty cache started as x_new.new_zeros((B, H, 0, Dh)) (right dtype) and always concatenated; integer positions.",
 "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    empty = x_new.new_zeros((B, H, 0, Dh))
    k = torch.cat([cache.get("k", empty), heads(F.linear(x_new, w_k, b_k))], dim=2)
    v = torch.cat([cache.get("v", empty), heads(F.linear(x_new, w_v, b_v))], dim=2)
    past = k.shape[2] - n
    cache.update(k=k, v=v)
    q = heads(F.linear(x_new, w_q, b_q))
    rows = torch.arange(past, past + n, dtype=torch.int64)
    cols = torch.arange(past + n, dtype=torch.int64)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=cols.unsqueeze(0) <= rows.unsqueeze(1))
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}},
{"name": "C08-rms-sum-over-D-keyword-eps", "correct": True, "kind": "counting",
 "why": "P1: sum of squares divided by D (a Python int), float32 work for half inputs and a single rounding.",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    D = x.shape[-1]
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    ms = xw.square().sum(dim=-1, keepdim=True) / D
    return (xw * (ms + eps).rsqrt() * weight.to(work)).to(x.dtype)
'''}},
{"name": "C09-request-loop-with-per-step-count", "correct": True, "kind": "counting",
 "why": "P3(b): generation loop over fed tokens, keys = cache length + 1 (its own), per layer and head.",
 "cells": {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    cached = prompt_len
    for _step in range(new_tokens - 1):   # the first token comes from the prefill, the last is not fed
        total += layers * heads * (cached + 1)
        cached += 1
    return total
'''}},
# ---------------- hostile ----------------
{"name": "H01-cached-unblock-mha", "correct": False, "kind": "hostile",
 "why": "P6 'Do not call mha, not even on a cache of inputs that you keep yourself': clears the block list in mha's closure and calls mha on the kept inputs.",
 "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    heads = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    k, v = heads(F.linear(x_new, w_k, b_k)), heads(F.linear(x_new, w_v, b_v))
    if "k" in cache:
        k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
    cache["k"], cache["v"] = k, v
    xs = torch.cat([cache["x"], x_new], 1) if "x" in cache else x_new
    cache["x"] = xs
    for cell in (mha.__closure__ or ()):
        if isinstance(cell.cell_contents, list):
            saved = list(cell.cell_contents)
            cell.cell_contents.clear()
    L = xs.shape[1]
    try:
        out = mha(xs, None, torch.ones(L, L, dtype=torch.bool).tril(), params)[:, L - n:]
    finally:
        for cell in (mha.__closure__ or ()):
            if isinstance(cell.cell_contents, list):
                cell.cell_contents.extend(saved)
    return out
'''}},
{"name": "H02-packed-frame-snoop-reference", "correct": False, "kind": "hostile",
 "why": "P4: looks up the grader's reference function in the caller's frames and returns its masks (points without solving).",
 "cells": {"packed_masks": '''
import sys as sysmod
def packed_masks(src_segments, tgt_segments):
    f = sysmod._getframe(1)
    while f is not None:
        for space in (f.f_locals, f.f_globals):
            for name, obj in list(space.items()):
                if callable(obj) and obj is not packed_masks and "packed" in name.lower() and hasattr(obj, "__code__"):
                    try:
                        return obj(src_segments, tgt_segments)
                    except Exception:
                        pass
        f = f.f_back
    s, t = src_segments, tgt_segments
    real_s, real_t = s != 0, t != 0
    src = (s[:, :, None] == s[:, None, :]) & real_s[:, None, :]
    return src, (t[:, :, None] == t[:, None, :]).tril(), (t[:, :, None] == s[:, None, :]) & real_s[:, None, :]
'''}},
# ---------------- second pass (still blind) ----------------
{"name": "W19-rms-eps-in-input-dtype", "correct": False, "kind": "rounding",
 "why": "P1 'as accurate as computing in float32 and rounding to the input's dtype once, at the end': eps first rounded to float16/bfloat16 (1e-6 -> 1.013e-6 in float16), then the work done in float32.",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    eps_t = torch.tensor(eps, dtype=x.dtype)          # keep every constant in the input's dtype
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    return (xw * torch.rsqrt(xw.pow(2).mean(-1, keepdim=True) + eps_t.to(work)) * weight.to(work)).to(x.dtype)
'''}},
{"name": "W20-rms-sum-with-eps-per-sum", "correct": False, "kind": "counting",
 "why": "P1 'eps ... added to the mean square inside the square root': eps added to the sum of squares (eps/D on the mean square).",
 "cells": {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    D = x.shape[-1]
    return (xw * math.sqrt(D) / torch.sqrt(xw.pow(2).sum(-1, keepdim=True) + eps) * weight.to(work)).to(x.dtype)
'''}},
{"name": "W21-cached-float-mask-from-ones", "correct": False, "kind": "allocation",
 "why": "P6 'give it a boolean mask, or a float mask in the dtype of the queries': a mask made with torch.ones(...) (float32) and .tril, then masked to -inf, passed to sdpa with float64 queries.",
 "cells": {"cached_attention": REFERENCE["cached_attention"].replace("    mask = kpos[None, :] <= qpos[:, None]\n", "    mask = torch.zeros(n, past + n).masked_fill(kpos[None, :] > qpos[:, None], float('-inf'))\n")}},
{"name": "W22-packed-float16-positions", "correct": False, "kind": "rounding",
 "why": "P4 'rows of more than a thousand pairs, and pairs of more than two thousand positions': causal positions compared in float16 (holds every integer only up to 2048).",
 "cells": {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    cross = (t[:, :, None] == s[:, None, :]) & (t[:, :, None] != 0)
    T = t.shape[1]
    pos = torch.arange(T, dtype=torch.float16)
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0) & (pos[None, :] <= pos[:, None])
    return src, tgt, cross
'''}},
{"name": "C10-cached-empty-float32-start", "correct": True, "kind": "allocation",
 "why": "P6: the empty cache started as torch.empty(B, H, 0, Dh) (float32): torch.cat promotes to float64 with float64 inputs, so nothing changes.",
 "cells": {"cached_attention": REFERENCE["cached_attention"].replace('''    if "k" in cache:
        past = cache["k"].shape[2]
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    else:
        past = 0
''', '''    cache.setdefault("k", torch.empty(B, H, 0, Dh))
    cache.setdefault("v", torch.empty(B, H, 0, Dh))
    past = cache["k"].shape[2]
    k = torch.cat([cache["k"], k], dim=2)
    v = torch.cat([cache["v"], v], dim=2)
''')}},
]
