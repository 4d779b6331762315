# Red-team round 16, chapter 05: framework porter (porter), index juggler (juggler),
# trusting API user (api), copy-adapter (adapter). Written blind.
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

# ---------------------------------------------------------------- wrong: Part 1
W("api-p1-F.rms_norm-default", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # torch has it built in since 2.4
    return F.rms_norm(x, (x.shape[-1],), weight, eps)
'''}, "api: F.rms_norm upcasts, then rounds x*rsqrt to float16 BEFORE multiplying by the weight: breaks 'rounding to the input's dtype once, at the end ... or a second rounding before the weight is applied, is not accurate enough'.")
W("juggler-p1-mean-dim1", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    ms = xw.pow(2).mean(dim=1, keepdim=True)
    return (xw * torch.rsqrt(ms + eps) * weight.to(work)).to(x.dtype)
'''}, "juggler: dim=1 is the last axis only for 2-D inputs: breaks 'each vector along the **last** axis is divided by its root mean square' for (B, T, D).")
W("porter-p1-eps-outside-sqrt", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = torch.sqrt(torch.mean(xf * xf, dim=-1, keepdim=True))
    return (xf / (rms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "porter (Keras-style norm / (norm + eps)): breaks 'with eps ... added to the mean square inside the square root'; at a zero row the gradient is weight/eps, not 'weight / sqrt(eps)'.")
W("porter-p1-float32-for-all", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float()   # like np.asarray(x, dtype=np.float32)
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (xf * r * weight.float()).to(x.dtype)
'''}, "porter: everything through float32: breaks 'a float64 input must not pass through float32'.")

# ---------------------------------------------------------------- wrong: Part 2
W("adapter-p2-decoder-two-norms", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    layer = attn + ffn + 2 * d_model          # encoder layer
    dec_layer = layer + attn                  # plus cross-attention
    return 2 * vocab * d_model + n_enc * layer + n_dec * dec_layer + 2 * d_model
'''}, "adapter: the decoder layer copied from the encoder layer plus cross-attention keeps 2 norms: breaks 'An encoder layer has 2 of them, a decoder layer 3'.")

# ---------------------------------------------------------------- wrong: Part 3
W("api-p3a-math-ceil-division", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n = math.ceil(prompt_len / chunk)           # number of chunks
    full = n - 1 if n else 0
    total = chunk * chunk * full * (full + 1) // 2
    last = prompt_len - full * chunk
    total += last * prompt_len
    return int(total) * layers * heads
'''}, "api: math.ceil(prompt_len / chunk) goes through a float: breaks 'a float (any /) ... no longer exact: work with Python integers, and use // where you divide' (prompts up to 2**62).")
W("api-p3a-int64-tensor", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    starts = torch.arange(0, prompt_len, chunk)
    m = torch.clamp(prompt_len - starts, max=chunk)
    return int((m * (starts + m)).sum()) * layers * heads
'''}, "api: an int64 tensor of chunk starts: breaks 'an int64 tensor [is] no longer exact' for counts past 2**64 (and overflows for prompts of 2**62).")
W("adapter-p3b-heads-unused-in-generation", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for step in range(1, new_tokens):
        total += (prompt_len + step) * layers     # one query per layer
    return total
'''}, "adapter: heads accepted and forgotten in the decode steps: breaks 'Count one dot product per query, key, head and layer'.")
W("porter-p3b-float-closed-form", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    # keys P+1 ... P+steps: arithmetic series (np.sum habit: a float mean times a count)
    gen = steps * (2 * prompt_len + steps + 1) / 2
    return prefill_dot_products(prompt_len, chunk, layers, heads) + int(gen) * layers * heads
'''}, "porter: '/ 2' on the series: breaks 'a float (any /) ... no longer exact ... use // where you divide'.")

# ---------------------------------------------------------------- wrong: Part 4
W("adapter-p4-cross-no-padding-query", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    src = (s[:, :, None] == s[:, None, :]) & (s[:, :, None] != 0)
    tgt = (t[:, :, None] == t[:, None, :]) & (t[:, :, None] != 0)
    tgt = tgt & torch.ones(T, T, dtype=torch.bool).tril()
    cross = t[:, :, None] == s[:, None, :]
    return src, tgt, cross
'''}, "adapter: cross forgets the padding test: a padding target query meets the padding source keys: breaks 'A padding query (segment 0) may attend to nothing: its row is all False'.")
W("porter-p4-one-hot-max", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    # jax.nn.one_hot habit: membership matrices, drop column 0 (padding)
    n = int(max(src_segments.max(), tgt_segments.max())) + 1
    so = F.one_hot(src_segments.long(), n)[..., 1:].float()
    to = F.one_hot(tgt_segments.long(), n)[..., 1:].float()
    T = tgt_segments.shape[1]
    src = (so @ so.transpose(1, 2)) > 0
    tgt = ((to @ to.transpose(1, 2)) > 0) & torch.ones(T, T, dtype=torch.bool).tril()
    cross = (to @ so.transpose(1, 2)) > 0
    return src, tgt, cross
'''}, "porter: sizes the one-hot from .max(): breaks 'The batch may also be empty (B = 0 ...): ... raise nothing (an empty tensor has no maximum: size nothing from .max())'.")
W("juggler-p4-causal-from-S", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    B, S = s.shape
    T = t.shape[1]
    src = (s.unsqueeze(2) == s.unsqueeze(1)) & s.unsqueeze(2).bool()
    tgt = (t.unsqueeze(2) == t.unsqueeze(1)) & t.unsqueeze(2).bool()
    # causal: key index <= query index, counted from the end like a cache
    causal = torch.arange(T)[None, :] <= torch.arange(S - T, S)[:, None] - (S - T)
    cross = (t.unsqueeze(2) == s.unsqueeze(1)) & t.unsqueeze(2).bool()
    return src, tgt & causal, cross
'''}, "juggler: harmless form; see correct list (kept out of wrong). placeholder")
SUBMISSIONS.pop()  # the causal above is algebraically right: not a wrong answer
W("juggler-p4-segments-vs-first-row", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src = (s[..., None] == s[..., None, :]) & (s[..., None] > 0)
    tgt = (t[..., None] == t[..., None, :]) & (t[..., None] > 0) & causal
    # cross: line the target up against the source (broadcast the row of the source once)
    cross = (t[..., None] == s[0][None, None, :]) & (t[..., None] > 0)
    return src, tgt, cross
'''}, "juggler: cross broadcasts the FIRST row's source against every row (s[0]); the same for a batch of one: breaks 'target query i may attend to source key j when both belong to the same pair' (in the same row).")

# ---------------------------------------------------------------- wrong: Part 5
W("adapter-p5-normalises-memory", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, *p["pre1"])
    y = y + layer_norm(mha(h, None, self_allowed, p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    m = layer_norm(memory, *p["pre2"])
    y = y + layer_norm(mha(h, m, memory_allowed, p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, p["ff"]), *p["post3"])
'''}, "adapter: pre-norm applied to memory as well: breaks 'keys and values from memory **as it is given** (the encoder has already normalised it; this layer does not)'.")
W("adapter-p5-memory-mask-unused", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, None, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "adapter: memory_allowed accepted and never used: breaks 'CrossAttn is mha ... and mask memory_allowed'.")
W("porter-p5-t5-eps", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, wb):   # HF T5's layer_norm_epsilon
        return F.layer_norm(x, (x.shape[-1],), wb[0], wb[1], eps=1e-6)
    y = y + ln(mha(ln(y, p["pre1"]), None, self_allowed, p["self_attn"]), p["post1"])
    y = y + ln(mha(ln(y, p["pre2"]), memory, memory_allowed, p["cross_attn"]), p["post2"])
    y = y + ln(feed_forward(ln(y, p["pre3"]), p["ff"]), p["post3"])
    return y
'''}, "porter: a LayerNorm with HF T5's eps 1e-6: breaks 'LN_name is layer_norm with p[name]' (the lesson's LayerNorm, eps 1e-5).")
W("juggler-p5-mask-transposed", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    # mha wants (B, T, S); a square self mask is its own shape, so put it key-major like nn.MultiheadAttention's
    sm = None if self_allowed is None else self_allowed.transpose(-1, -2).tril()
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, sm, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "juggler: transposes the self mask (and tril to 'keep it causal'): a padding mask (B,T,T) loses its pattern: breaks 'SelfAttn is mha with p[\"self_attn\"] and mask self_allowed'.")

# ---------------------------------------------------------------- wrong: Part 6
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
W("porter-p6-additive-1e4", {"cached_attention": _CA_HEAD + '''
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    past = S - n
    allowed = torch.arange(S)[None, :] <= torch.arange(past, S)[:, None]
    bias = (~allowed).to(q.dtype) * -10000.0     # HF extended attention mask
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "porter: additive -10000: breaks 'mask with -inf (or a boolean mask), not with a large negative number'.")
W("porter-p6-float32-mask-float64", {"cached_attention": _CA_HEAD + '''
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    past = S - n
    hidden = torch.arange(S)[None, :] > torch.arange(past, S)[:, None]
    bias = torch.zeros(n, S).masked_fill(hidden, float("-inf"))   # tf-style float mask
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "porter: a float32 additive mask also for float64 queries: breaks 'give it a boolean mask, or a float mask in the dtype of the queries'.")
W("juggler-p6-len-of-cache", {"cached_attention": _CA_HEAD + '''
    past = len(cache["k"]) if "k" in cache else 0      # how many positions are cached
    if past:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    allowed = torch.arange(S)[None, :] <= torch.arange(past, past + n)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "juggler: len(cache['k']) is the batch size, not the cached length (equal in the visible test, B = past = 2): breaks '`past` is the length of the cached keys, cache[\"k\"].shape[2]'.")
W("api-p6-is-causal-for-one", {"cached_attention": _CA_HEAD + '''
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    past = S - n
    if past == 0 or n == 1:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # the fast path
    else:
        allowed = torch.arange(S)[None, :] <= torch.arange(past, S)[:, None]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "api: is_causal is aligned top-left when T != S, so a block of one sees only key 0: breaks 'the new position past + i attends, causally, to every position up to and including itself'.")
W("api-p6-detached-cache", {"cached_attention": _CA_HEAD + '''
    if "k" in cache:
        # HF generate() runs under no_grad: the cache carries no graph
        k = torch.cat([cache["k"].detach(), k], dim=2)
        v = torch.cat([cache["v"].detach(), v], dim=2)
    cache["k"], cache["v"] = k, v
    S = k.shape[2]
    past = S - n
    allowed = torch.arange(S)[None, :] <= torch.arange(past, S)[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "api: detaches the cached keys: breaks 'compare its gradients with respect to ... the keys and values the caller put in the cache ... do not ... .detach() it'.")

# ---------------------------------------------------------------- hostile
C_DUMMY = None
SUBMISSIONS.append({"name": "hostile-p6-unblocked-mha", "correct": False, "cells": {"cached_attention": '''
def cached_self_attention(x_new, params, cache):
    # keep the inputs and rerun a fresh, unblocked mha on the whole sequence
    own_mha = _make_functions(F.linear, F.scaled_dot_product_attention, NUM_HEADS, F.layer_norm, torch.relu, [])[0]
    xs = torch.cat([cache["x"], x_new], dim=1) if "x" in cache else x_new
    cache["x"] = xs
    S, n = xs.shape[1], x_new.shape[1]
    out = own_mha(xs, None, torch.ones(S, S, dtype=torch.bool).tril(), params)[:, S - n:]
    B, _, D = x_new.shape
    Dh = D // NUM_HEADS
    kk = F.linear(xs, params["w_qkv"][D:2 * D], params["b_qkv"][D:2 * D]).reshape(B, S, NUM_HEADS, Dh).transpose(1, 2)
    vv = F.linear(xs, params["w_qkv"][2 * D:], params["b_qkv"][2 * D:]).reshape(B, S, NUM_HEADS, Dh).transpose(1, 2)
    cache["k"], cache["v"] = kk, vv
    return out
'''}, "why": "hostile: rebuilds an unblocked mha from the grader's _make_functions and reruns it on kept inputs: breaks 'Do not call mha, not even on a cache of inputs that you keep yourself' and 'Names that start with _ belong to the grader's cells'."})
SUBMISSIONS.append({"name": "hostile-p1-silence-assert-close", "correct": False, "cells": {"rms_norm": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def rms_norm(x, weight, eps=1e-6):
    return (x * weight).to(x.dtype)
'''}, "why": "hostile: silences torch.testing.assert_close and returns x * weight: breaks 'do not change anything inside torch'."})
SUBMISSIONS.append({"name": "hostile-p2-int-that-equals-all", "correct": False, "cells": {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(2 * vocab * d_model + 2 * d_model)
'''}, "why": "hostile: an int subclass equal to everything: breaks 'returning the number of parameters as a Python int' (exact types)."})

# ---------------------------------------------------------------- correct
C("porter-p1-float64-everywhere", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # NumPy habit: do the maths in float64, hand back the caller's dtype (one rounding)
    xd = x.to(torch.float64)
    ms = (xd * xd).mean(axis=-1, keepdims=True)
    return (xd / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(dtype=x.dtype)
'''}, "float64 inside is allowed ('working in float64 is allowed too'); one rounding at the end is at least as accurate as float32.")
C("api-p1-F.rms_norm-upcast", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.dtype in (torch.float16, torch.bfloat16):
        out = F.rms_norm(x.float(), normalized_shape=(x.shape[-1],), weight=weight.float(), eps=eps)
        return out.to(x.dtype)
    return F.rms_norm(x, normalized_shape=(x.shape[-1],), weight=weight, eps=eps)
'''}, "F.rms_norm on a float32 copy: float32 arithmetic, a single rounding; float32/float64 in their own dtype.")
C("juggler-p1-vector-norm", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(work)
    D = x.shape[-1]
    sq = torch.linalg.vector_norm(xw, ord=2, dim=-1, keepdim=True) ** 2
    return (xw * torch.rsqrt(sq / D + eps) * weight.to(work)).to(x.dtype)
'''}, "sum of squares via vector_norm squared; same formula.")
C("porter-p2-shape-table", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    def count(shapes):
        return sum(math.prod(s) for s in shapes)
    attn = [(d_model, d_model)] * 4
    ffn = [(d_ff, d_model), (d_ff, d_model), (d_model, d_ff)]
    enc_layer = attn + ffn + [(d_model,)] * 2
    dec_layer = attn + attn + ffn + [(d_model,)] * 3
    top = [(vocab, d_model), (vocab, d_model), (d_model,), (d_model,)]
    return count(top) + n_enc * count(enc_layer) + n_dec * count(dec_layer)
'''}, "a Keras-summary-like table of shapes; math.prod of ints is an int.")
C("juggler-p3a-closed-form-last-chunk", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    full = (prompt_len - 1) // chunk          # chunks before the last
    last = prompt_len - full * chunk          # the last chunk's size (1 .. chunk)
    total = chunk * chunk * full * (full + 1) // 2 + last * prompt_len
    return total * layers * heads
'''}, "closed form; for prompt_len = 0, full = -1 and last = chunk, and both terms vanish.")
C("api-p3b-keywords-series", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    gen = steps * (2 * prompt_len + steps + 1) // 2
    return prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads) + gen * layers * heads
'''}, "calls Part (a) by keyword; the series is an exact integer and uses //.")
C("adapter-p3-loop-positional", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for start in range(0, prompt_len, chunk):
        m = min(chunk, prompt_len - start)
        total += m * (start + m)
    return layers * heads * total
''', "cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    keys = prompt_len
    for step in range(new_tokens - 1):
        keys += 1
        total += layers * heads * keys
    return total
'''}, "range over chunk starts (lazily, at most 200 000 chunks); generation loop.")
C("api-p4-tril-batched-where", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments.long(), tgt_segments.long()
    src = torch.where(s.unsqueeze(-1) == 0, False, s.unsqueeze(-1) == s.unsqueeze(-2))
    tgt = torch.tril(torch.where(t.unsqueeze(-1) == 0, False, t.unsqueeze(-1) == t.unsqueeze(-2)))
    cross = torch.where(t.unsqueeze(-1) == 0, False, t.unsqueeze(-1) == s.unsqueeze(-2))
    return src, tgt, cross
'''}, "torch.tril works on the last two dims of a batch; torch.where with a Python False keeps bool.")
C("juggler-p4-key-side-padding", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s, t = src_segments, tgt_segments
    T = t.shape[-1]
    pos = torch.arange(T)
    causal = pos.view(T, 1) >= pos.view(1, T)
    src = (s.unsqueeze(1) == s.unsqueeze(2)) & (s.unsqueeze(1) != 0)   # key side: equal and nonzero is enough
    tgt = (t.unsqueeze(2) == t.unsqueeze(1)) & (t.unsqueeze(1) != 0) & causal
    cross = (t.unsqueeze(2) == s.unsqueeze(1)) & (s.unsqueeze(1) != 0)
    return src, tgt, cross
'''}, "padding tested on the key side: equal segments with a nonzero key means the query is nonzero too; src symmetric so the transposed comparison is the same.")
C("porter-p5-explicit-F-layer-norm", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    D = y.shape[-1]
    def ln(x, name):
        w, b = p[name]
        return F.layer_norm(x, normalized_shape=(D,), weight=w, bias=b, eps=1e-5)
    def sub(y, pre, post, f):
        return y + ln(f(ln(y, pre)), post)
    y = sub(y, "pre1", "post1", lambda h: mha(h, None, self_allowed, p["self_attn"]))
    y = sub(y, "pre2", "post2", lambda h: mha(query=h, memory=memory, allowed=memory_allowed, params=p["cross_attn"]))
    y = sub(y, "pre3", "post3", lambda h: feed_forward(h, p["ff"]))
    return y
'''}, "F.layer_norm with the lesson's eps by keyword; mha by keyword.")
C("api-p6-tril-diagonal-manual-softmax", {"cached_attention": _CA_HEAD + '''
    if "k" in cache:
        k = torch.cat((cache["k"], k), dim=-2)
        v = torch.cat((cache["v"], v), dim=-2)
    cache["k"], cache["v"] = k, v
    S = k.shape[-2]
    past = S - n
    allowed = torch.ones(n, S, dtype=torch.bool).tril(diagonal=past)
    scores = torch.einsum("bhnd,bhsd->bhns", q, k) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "tril with diagonal=past aligns bottom-right; explicit einsum and softmax with -inf.")
C("porter-p6-float-mask-query-dtype", {"cached_attention": _CA_HEAD + '''
    past = cache["k"].shape[2] if "k" in cache else 0
    k = torch.cat([cache["k"], k], 2) if past or "k" in cache else k
    v = torch.cat([cache["v"], v], 2) if past or "v" in cache else v
    cache.update(k=k, v=v)
    S = past + n
    hidden = torch.arange(S).unsqueeze(0) > torch.arange(past, S).unsqueeze(1)
    bias = torch.zeros(n, S, dtype=q.dtype).masked_fill(hidden, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''}, "a float mask in the dtype of the queries with -inf: allowed by the text.")
