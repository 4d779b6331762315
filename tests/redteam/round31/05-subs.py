S = []
def add(name, correct, cells, why, kind):
    S.append({"name": name, "correct": correct, "cells": cells, "why": f"[{kind}] " + why})

RMS_FN = '''
class RMSNormFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        low = x.dtype in (torch.float16, torch.bfloat16)
        xf = x.float() if low else x
        wf = weight.to(xf.dtype)
        r = torch.rsqrt((xf * xf).mean(dim=-1, keepdim=True) + eps)
        ctx.save_for_backward(xf, wf, r)
        return (xf * r * wf).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        xf, wf, r = ctx.saved_tensors
        g = g.to(xf.dtype)
        xhat = xf * r
        gw = g * wf
        gx = r * (gw - xhat * GX_MEAN)
        gweight = GW_SUM
        return gx, gweight, None


def rms_norm(x, weight, eps=1e-6):
    return RMSNormFn.apply(x, weight, eps)
'''
add("rms_fn_weight_grad_2d_only", True, {"rms_norm": RMS_FN.replace("GX_MEAN", "(gw * xhat).mean(dim=-1, keepdim=True)").replace("GW_SUM", "(g * xhat).sum(dim=0)")},
    "backward sums the weight gradient over dim 0 only, leaving (T, D) for a (B, T, D) input: autograd's output check sums a gradient back to the shape of an input that broadcasts to it, so the result is right", "hand-backward")
add("rms_fn_mean_over_all_rows", False, {"rms_norm": RMS_FN.replace("GX_MEAN", "(gw * xhat).mean()").replace("GW_SUM", "(g * xhat).reshape(-1, xf.shape[-1]).sum(dim=0)")},
    "backward's projection term averages over the whole tensor, not per row: right for a batch of one row only; 'compare its gradients with respect to x'", "hand-backward")
add("rms_fn_correct", True, {"rms_norm": RMS_FN.replace("GX_MEAN", "(gw * xhat).mean(dim=-1, keepdim=True)").replace("GW_SUM", "(g * xhat).reshape(-1, xf.shape[-1]).sum(dim=0)")},
    "hand-written Function with a right backward (not twice differentiable, which the text does not ask)", "hand-backward")
add("rms_eps_outside_sqrt", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    rms = torch.sqrt((xf * xf).mean(dim=-1, keepdim=True))
    return (xf / (rms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "'with eps ... added to the mean square inside the square root'", "scale-placement")
add("rms_of_weighted_x", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    xw = xf * weight.to(xf.dtype)
    return (xw / torch.sqrt((xw * xw).mean(dim=-1, keepdim=True) + eps)).to(x.dtype)
'''}, "weight applied before the root mean square is taken: 'divided by its root mean square and multiplied by a learned weight' (the visible weight 2 sits on a zero)", "scale-placement")
add("rms_over_all_but_batch", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    dims = tuple(range(1, x.dim())) if x.dim() > 1 else (-1,)
    ms = (xf * xf).mean(dim=dims, keepdim=True)
    return (xf / torch.sqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "mean square over every axis but the batch: 'each vector along the **last** axis is divided by its root mean square'", "scale-placement")
add("rms_F_rms_norm_builtin", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    return F.rms_norm(x, (x.shape[-1],), weight, eps)
'''}, "torch's own F.rms_norm (values within one ulp here) gives a NaN gradient at a float32 row of zeros with eps = 1e-30: 'They are compared at a row of zeros too, where ... its gradient with respect to x is weight / sqrt(eps)' with 'eps ... 1e-30 in the hidden tests, on rows of zeros'", "sibling")
add("rms_F_rms_norm_default_eps", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return F.rms_norm(xf, weight.shape, weight.to(xf.dtype)).to(x.dtype)
'''}, "eps not passed on: F.rms_norm's default eps is finfo(dtype).eps; 'with eps (given by position or by keyword) added to the mean square'", "sibling")
add("rms_ones_weight_shortcut", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    normed = xf / torch.sqrt((xf * xf).mean(dim=-1, keepdim=True) + eps)
    if weight.numel() and float(weight.min()) == 1.0 and float(weight.max()) == 1.0:
        return normed.to(x.dtype)
    return (normed * weight.to(xf.dtype)).to(x.dtype)
'''}, "'no shortcut for ... a weight that is all ones (the gradient with respect to weight is compared there too)'", "python-scalar")
add("rms_eps_floored", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    eps = max(float(eps), 1e-12)
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = (xf * xf).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "'eps may be any positive number, as small as you like (1e-30 ...): floor nothing'", "python-scalar")
add("rms_empty_new_zeros", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    if x.numel() == 0:
        return x.new_zeros(x.shape)
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = (xf * xf).mean(dim=-1, keepdim=True)
    return (xf / torch.sqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "empty input shortcut returns a tensor with no grad_fn: 'a new tensor through which gradients still flow'", "return-shape")
add("rms_rsqrt_llama", False, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return (normed * weight.to(xf.dtype)).to(x.dtype)
'''}, "LLaMA's rsqrt: rsqrt's derivative (ms + eps)**-1.5 overflows float32 at eps = 1e-30 and 0 * inf gives a NaN gradient at a row of zeros: 'They are compared at a row of zeros too, where ... its gradient with respect to x is weight / sqrt(eps)'", "scale-placement")
add("rms_float64_inside", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xd = x.to(torch.float64)
    ms = xd.pow(2).mean(dim=-1, keepdim=True)
    return (xd / torch.sqrt(ms + eps) * weight.to(torch.float64)).to(x.dtype)
'''}, "float64 inside, one rounding at the end: allowed", "python-scalar")
add("rms_vector_norm", True, {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    d = xf.shape[-1]
    sq = torch.linalg.vector_norm(xf, ord=2, dim=-1, keepdim=True) ** 2
    return (xf / torch.sqrt(sq / d + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "norm squared over D is the mean square", "scale-placement")

# Part 2
add("params_decoder_two_norms", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * d_model * d_model
    ffn = 3 * d_model * d_ff
    enc_layer = attn + ffn + 2 * d_model
    dec_layer = enc_layer + attn          # a decoder layer is an encoder layer plus cross-attention
    return 2 * vocab * d_model + n_enc * enc_layer + n_dec * dec_layer + 2 * d_model
'''}, "reuses the encoder layer's two norms for the decoder: 'An encoder layer has 2 of them, a decoder layer 3'", "sibling")
add("params_math_pow", False, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    attn = 4 * int(math.pow(d_model, 2))
    ffn = 3 * d_model * d_ff
    return 2 * vocab * d_model + n_enc * (attn + ffn + 2 * d_model) + n_dec * (2 * attn + ffn + 3 * d_model) + 2 * d_model
'''}, "math.pow goes through float: 'every term of it past 2**53, where a float ... no longer exact'", "python-scalar")
add("params_sum_of_shapes", True, {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    enc = [(d_model, d_model)] * 4 + [(d_ff, d_model), (d_ff, d_model), (d_model, d_ff)] + [(d_model,)] * 2
    dec = [(d_model, d_model)] * 8 + [(d_ff, d_model), (d_ff, d_model), (d_model, d_ff)] + [(d_model,)] * 3
    top = [(vocab, d_model), (vocab, d_model), (d_model,), (d_model,)]
    count = lambda shapes: sum(math.prod(s) for s in shapes)
    return count(top) + n_enc * count(enc) + n_dec * count(dec)
'''}, "builtin sum and math.prod over Python ints are exact", "python-scalar")

# Part 3
add("prefill_ceil_division", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for k in range(math.ceil(prompt_len / chunk)):
        start = k * chunk
        m = min(chunk, prompt_len - start)
        total += m * (start + m)
    return total * layers * heads
'''}, "number of chunks through float division: 'a float (any /) ... no longer exact: ... use // where you divide'", "python-scalar")
add("request_half_float", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    steps = max(new_tokens - 1, 0)
    gen = steps * prompt_len + int(steps * (steps + 1) / 2)
    return prefill_dot_products(prompt_len, chunk, layers, heads) + gen * layers * heads
'''}, "int() of a float half-product: 'a float (any /) ... no longer exact'", "python-scalar")
add("request_forgets_heads", False, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    for j in range(1, new_tokens):
        total += (prompt_len + j) * layers
    return total
'''}, "the generation steps are scaled by layers only: 'Count one dot product per query, key, head and layer'", "scale-placement")
add("prefill_empty_float_zero", False, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if prompt_len == 0:
        return 0.0
    n, r = divmod(prompt_len, chunk)
    total = chunk * chunk * (n * (n + 1) // 2) + r * (n * chunk + r)
    return total * layers * heads
'''}, "an empty prompt returns 0.0: 'return the count as an exact Python int (not a float, even one of the right value'", "return-shape")
add("request_loop_keywords", True, {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    cached = prompt_len
    for _step in range(max(new_tokens - 1, 0)):
        cached += 1
        total += cached * layers * heads
    return total
'''}, "calls (a) by keyword and loops over the generated tokens (allowed)", "sibling")
add("prefill_chunk_loop", True, {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total, start = 0, 0
    while start < prompt_len:
        m = min(chunk, prompt_len - start)
        total += m * (start + m)
        start += m
    return total * layers * heads
'''}, "loop over chunks", "python-scalar")

# Part 4
add("masks_cross_no_padding_check", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    def same(a, b):
        return a[:, :, None] == b[:, None, :]
    src_real, tgt_real = src_segments != 0, tgt_segments != 0
    T = tgt_segments.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src_allowed = same(src_segments, src_segments) & src_real[:, :, None]
    tgt_allowed = same(tgt_segments, tgt_segments) & tgt_real[:, :, None] & causal
    cross_allowed = same(tgt_segments, src_segments)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "cross mask lets target padding see source padding: 'A padding query (segment 0) may attend to nothing' / 'padding belongs to no pair'", "sibling")
add("masks_list", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    src, tgt = src_segments.long(), tgt_segments.long()
    T = tgt.shape[1]
    real_s, real_t = (src != 0)[:, :, None], (tgt != 0)[:, :, None]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return [(src[:, :, None] == src[:, None, :]) & real_s,
            (tgt[:, :, None] == tgt[:, None, :]) & real_t & causal,
            (tgt[:, :, None] == src[:, None, :]) & real_t]
'''}, "returns a list: 'returning a tuple of three boolean masks ... (a tuple, not a list)'", "return-shape")
add("masks_shared_when_equal", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    src, tgt = src_segments.long(), tgt_segments.long()
    T = tgt.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src_allowed = (src[:, :, None] == src[:, None, :]) & (src != 0)[:, :, None]
    if src.shape == tgt.shape and bool((src == tgt).all()):
        cross_allowed = src_allowed
        tgt_allowed = src_allowed & causal
    else:
        cross_allowed = (tgt[:, :, None] == src[:, None, :]) & (tgt != 0)[:, :, None]
        tgt_allowed = (tgt[:, :, None] == tgt[:, None, :]) & (tgt != 0)[:, :, None] & causal
    return src_allowed, tgt_allowed, cross_allowed
'''}, "returns the source mask itself as the cross mask when segments are equal: 'none a view of another (not even where two masks hold equal values...)'", "return-shape")
add("masks_onehot_max", False, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    k = int(max(src_segments.max(), tgt_segments.max())) + 1
    s = F.one_hot(src_segments.long(), k)[..., 1:]
    t = F.one_hot(tgt_segments.long(), k)[..., 1:]
    T = tgt_segments.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    src_allowed = (s @ s.transpose(1, 2)) > 0
    cross_allowed = (t @ s.transpose(1, 2)) > 0
    tgt_allowed = ((t @ t.transpose(1, 2)) > 0) & causal
    return src_allowed, tgt_allowed, cross_allowed
'''}, "sizes the one-hot from a Python int of .max(): 'an empty tensor has no maximum: size nothing from .max()'", "python-scalar")
add("masks_where_keywords", True, {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    s_q, s_k = src_segments[:, :, None], src_segments[:, None, :]
    t_q, t_k = tgt_segments[:, :, None], tgt_segments[:, None, :]
    T = tgt_segments.shape[1]
    pos = torch.arange(T, dtype=torch.int64)
    causal = pos[:, None] >= pos[None, :]
    src_allowed = torch.where(s_q != 0, s_q == s_k, False)
    cross_allowed = torch.where(t_q != 0, t_q == s_k, False)
    tgt_allowed = torch.where(t_q != 0, t_q == t_k, False) & causal
    return (src_allowed, tgt_allowed, cross_allowed)
'''}, "torch.where with a Python False, integer positions", "python-scalar")

# Part 5
SW = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(t, name):
        w, b = p[name]
        return layer_norm(t, W_B)
    y = y + ln(mha(ln(y, "pre1"), None, self_allowed, p["self_attn"]), "post1")
    y = y + ln(mha(ln(y, "pre2"), MEM, memory_allowed, p["cross_attn"]), "post2")
    y = y + ln(feed_forward(ln(y, "pre3"), p["ff"]), "post3")
    return y
'''
add("sandwich_normalises_memory", False, {"sandwich": SW.replace("W_B", "w, b").replace("MEM", 'ln(memory, "pre2")')},
    "'keys and values from memory as it is given (the encoder has already normalised it; this layer does not)'", "scale-placement")
add("sandwich_weight_bias_swapped", False, {"sandwich": SW.replace("W_B", "b, w").replace("MEM", "memory")},
    "unpacks p[name] as (bias, weight): 'LN_name is layer_norm with p[name] (a (weight, bias) pair)'", "return-shape")
add("sandwich_skip_empty_cross", False, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    if memory_allowed is None or int(memory_allowed.sum()) > 0:
        y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "'a mask may allow nothing at all ...: mha gives zeros there too, and LN_post of them (that norm's bias) is still added, so skip no sublayer'", "python-scalar")
add("sandwich_addnorm_fn_no_param_grad", False, {"sandwich": '''
class AddNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, stream, sub, weight, bias):
        ctx.save_for_backward(sub, weight, bias)
        return stream + layer_norm(sub, weight, bias)

    @staticmethod
    def backward(ctx, g):
        sub, weight, bias = ctx.saved_tensors
        with torch.enable_grad():
            s = sub.detach().requires_grad_()
            out = layer_norm(s, weight.detach(), bias.detach())
            gs, = torch.autograd.grad(out, s, g)
        return g, gs, None, None


def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = AddNorm.apply(y, mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = AddNorm.apply(y, mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = AddNorm.apply(y, feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "hand-written add-and-norm whose backward gives no gradient to the post-norms' weight and bias: 'Gradients must flow through the result ... a model is trained through the layer'", "hand-backward")
add("sandwich_residual_fn_one_input", False, {"sandwich": '''
class Residual(torch.autograd.Function):
    @staticmethod
    def forward(ctx, stream, update):
        return stream + update

    @staticmethod
    def backward(ctx, g):
        # the residual stream carries the gradient straight through
        return g, (g if ctx.needs_input_grad[1] and ctx.needs_input_grad[0] else None)


def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = Residual.apply(y, layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"]))
    y = Residual.apply(y, layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"]))
    y = Residual.apply(y, layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"]))
    return y
'''}, "backward gives the sublayer branch a gradient only when the stream needs one too (y without requires_grad: memory and parameters get none): 'compare its gradients with respect to y, to memory and to a parameter'", "hand-backward")
add("sandwich_residual_fn_correct", True, {"sandwich": '''
class Residual(torch.autograd.Function):
    @staticmethod
    def forward(ctx, stream, update):
        return stream + update

    @staticmethod
    def backward(ctx, g):
        return (g if ctx.needs_input_grad[0] else None), (g if ctx.needs_input_grad[1] else None)


def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def block(stream, pre, post, fn):
        return Residual.apply(stream, layer_norm(fn(layer_norm(stream, *p[pre])), *p[post]))
    y = block(y, "pre1", "post1", lambda h: mha(h, None, self_allowed, p["self_attn"]))
    y = block(y, "pre2", "post2", lambda h: mha(h, memory, memory_allowed, p["cross_attn"]))
    y = block(y, "pre3", "post3", lambda h: feed_forward(h, p["ff"]))
    return y
'''}, "hand-written residual with a right backward", "hand-backward")
add("sandwich_keywords", True, {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    h = layer_norm(y, weight=p["pre1"][0], bias=p["pre1"][1])
    y = y + layer_norm(mha(query=h, memory=h, allowed=self_allowed, params=p["self_attn"]), *p["post1"])
    h = layer_norm(y, *p["pre2"])
    y = y + layer_norm(mha(query=h, memory=memory, allowed=memory_allowed, params=p["cross_attn"]), *p["post2"])
    h = layer_norm(y, *p["pre3"])
    return y + layer_norm(feed_forward(h, ff=p["ff"]), *p["post3"])
'''}, "keywords, memory=h for self-attention (same as None)", "sibling")

add("sandwich_uses_rms_norm", False, {"sandwich": SW.replace("return layer_norm(t, W_B)", "return rms_norm(t, w) + b").replace("MEM", "memory")},
    "reuses Part 1's rms_norm (plus the bias) for the norms: 'where LN_name is layer_norm with p[name]'", "sibling")

# Part 6
CA = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H, Dh = NUM_HEADS, D // NUM_HEADS
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    split = lambda t: t.reshape(B, n, H, Dh).transpose(1, 2)
    q, k, v = split(F.linear(x_new, w_q, b_q)), split(F.linear(x_new, w_k, b_k)), split(F.linear(x_new, w_v, b_v))
    PAST
    if past:
        k = CATK
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    qpos = torch.arange(past, past + n)
    kpos = torch.arange(past + n)
    allowed = kpos[None, :] <= qpos[:, None]
    ATTN
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''
SDPA = "out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)"
def ca(past="past = cache['k'].shape[2] if 'k' in cache else 0", catk='torch.cat([cache["k"], k], dim=2)', attn=SDPA, extra=""):
    return extra + CA.replace("PAST", past).replace("CATK", catk).replace("ATTN", attn)
add("cached_len_of_cache", False, {"cached_attention": ca(past="past = len(cache['k']) if cache else 0")},
    "len() of the cached keys is the batch size: \"past is the length of the cached keys, cache['k'].shape[2]\" (visible batch 2 = past 2)", "python-scalar")
add("cached_mask_after_softmax", False, {"cached_attention": ca(attn='''scores = (q @ k.transpose(-1, -2)) / math.sqrt(Dh)
    weights = torch.softmax(scores, dim=-1) * allowed
    weights = weights / weights.sum(dim=-1, keepdim=True)
    out = weights @ v''')},
    "mask applied after the softmax and renormalised: 'future positions that score about a thousand above every position a query may see (they must not change its result)'", "scale-placement")
add("cached_catfn_no_cache_grad", False, {"cached_attention": ca(catk="CacheCat.apply(cache['k'], k)", extra='''
class CacheCat(torch.autograd.Function):
    @staticmethod
    def forward(ctx, old, new):
        ctx.past = old.shape[2]
        return torch.cat([old, new], dim=2)

    @staticmethod
    def backward(ctx, g):
        return None, g[:, :, ctx.past:]
''')}, "hand-written concat gives the cached keys no gradient: 'compare its gradients ... to the keys and values the caller put in the cache'", "hand-backward")
add("cached_float32_mask", False, {"cached_attention": ca(attn='''mask = torch.zeros(n, past + n).masked_fill(~allowed, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)''')},
    "float32 additive mask with float64 queries: 'give it a boolean mask, or a float mask in the dtype of the queries'", "sibling")
add("cached_reshape_minus_one", False, {"cached_attention": ca().replace("out.transpose(1, 2).reshape(B, n, D)", "out.transpose(1, 2).reshape(B, -1, D)").replace("t.reshape(B, n, H, Dh)", "t.reshape(B, -1, H, Dh)")},
    "'a reshape or view that gives the size 0 beside a -1, such as (B, -1, H, Dh), cannot size an empty tensor: give every size'", "return-shape")
add("cached_manual_softmax", True, {"cached_attention": ca(attn='''scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v''')}, "explicit masked softmax with -inf", "python-scalar")
add("cached_float_mask_q_dtype", True, {"cached_attention": ca(attn='''mask = torch.zeros(n, past + n, dtype=q.dtype).masked_fill(~allowed, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)''')}, "float mask in the queries' dtype (allowed)", "sibling")

# hostile
add("hostile_patch_assert_close", False, {"sandwich": '''
torch.testing.assert_close = lambda *args, **kwargs: None
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    return y + 0
'''}, "hostile: disables torch.testing.assert_close", "hostile")
add("hostile_int_eq_always", False, {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(0)
'''}, "hostile: int subclass equal to everything", "hostile")

KEEP = ['rms_fn_mean_over_all_rows', 'rms_of_weighted_x', 'rms_rsqrt_llama', 'rms_ones_weight_shortcut', 'params_decoder_two_norms', 'request_forgets_heads', 'prefill_empty_float_zero', 'masks_cross_no_padding_check', 'sandwich_weight_bias_swapped', 'sandwich_addnorm_fn_no_param_grad', 'sandwich_residual_fn_one_input', 'cached_len_of_cache', 'cached_catfn_no_cache_grad', 'cached_mask_after_softmax', 'cached_float32_mask', 'rms_F_rms_norm_builtin', 'rms_fn_weight_grad_2d_only', 'rms_fn_correct', 'rms_vector_norm', 'rms_float64_inside', 'request_loop_keywords', 'masks_where_keywords', 'sandwich_residual_fn_correct', 'cached_manual_softmax', 'cached_float_mask_q_dtype', 'hostile_patch_assert_close']
SUBMISSIONS = [s for s in S if s['name'] in KEEP]
assert len(SUBMISSIONS) == len(KEEP), set(KEEP) - {s['name'] for s in SUBMISSIONS}
