# Red team round 19, chapter 05: off-by-one, padding/reduction, paper reader, numerically naive students.
BASE = {}
BASE["rms_norm"] = '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean(-1, keepdim=True)
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''
BASE["modern_params"] = '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    enc = 4 * d * d + 3 * d * f + 2 * d
    dec = 8 * d * d + 3 * d * f + 3 * d
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''
BASE["cache_count_without"] = '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    q, r = divmod(prompt_len, chunk)
    total = chunk * chunk * q * (q + 1) // 2 + r * prompt_len
    return total * layers * heads
'''
BASE["cache_count_with"] = '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    steps = max(new_tokens - 1, 0)
    return total + layers * heads * (steps * prompt_len + steps * (steps + 1) // 2)
'''
BASE["packed_masks"] = '''
def packed_masks(src_segments, tgt_segments):
    def same(a, b):
        return (a.unsqueeze(-1) == b.unsqueeze(-2)) & (a != 0).unsqueeze(-1)
    T = tgt_segments.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool, device=tgt_segments.device).tril()
    return same(src_segments, src_segments), same(tgt_segments, tgt_segments) & causal, same(tgt_segments, src_segments)
'''
BASE["sandwich"] = '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), memory, memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''
CACHED = '''
def cached_self_attention(x_new, params, cache):
    B, n, D = x_new.shape
    H = NUM_HEADS
    Dh = D // H
    w_q, w_k, w_v = params["w_qkv"].chunk(3)
    b_q, b_k, b_v = params["b_qkv"].chunk(3)
    def split(t):
        return t.reshape(B, n, H, Dh).transpose(1, 2)
    q = split(F.linear(x_new, w_q, b_q))
    k = split(F.linear(x_new, w_k, b_k))
    v = split(F.linear(x_new, w_v, b_v))
    past = cache["k"].shape[2] if "k" in cache else 0
    if "k" in cache:
        k = torch.cat([cache["k"], k], dim=2)
        v = torch.cat([cache["v"], v], dim=2)
    cache["k"], cache["v"] = k, v
    qpos = torch.arange(past, past + n, device=x_new.device)
    kpos = torch.arange(past + n, device=x_new.device)
    ATTEND
    return F.linear(out.transpose(1, 2).reshape(B, n, D), params["w_o"], params["b_o"])
'''
BASE["cached_attention"] = CACHED.replace("ATTEND", '''mask = kpos[None, :] <= qpos[:, None]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)''')

def cached(attend):
    return CACHED.replace("ATTEND", attend)

SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

# ---------------- off-by-one student ----------------
W("obo_p1_divides_by_numel", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    # mean square: sum of squares over the count of entries
    ms = xf.pow(2).sum(-1, keepdim=True) / xf.numel()
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "divides by x.numel() instead of D: right only for one row; breaks 'divided by its root mean square ... 1/D sum_i x_i^2'")
W("obo_p3a_last_chunk_full_width", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    total = 0
    for start in range(0, prompt_len, chunk):
        m = min(chunk, prompt_len - start)
        # keys: all cached ones plus the chunk, counted up to the chunk's last query (inclusive)
        total += m * min(start + chunk, prompt_len)
    return total * layers * heads
'''}, "equal to the right loop (start + m == min(start+chunk, P)); listed as a CONTROL? no: identical -> actually correct")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "start + m == min(start + chunk, prompt_len): the same count written with the chunk's end position"
W("obo_p3b_counts_fed_last_token_when_one", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens == 0:
        return total
    # steps 1 .. new_tokens - 1 feed positions prompt_len .. prompt_len + new_tokens - 2;
    # position prompt_len + j - 1 scores against prompt_len + j keys
    steps = new_tokens - 1 if new_tokens > 1 else 1
    return total + layers * heads * sum(prompt_len + j for j in range(1, steps + 1))
'''}, "with new_tokens = 1 feeds one step anyway: breaks 'The last token chosen is not fed' (one new token needs no step)")
W("obo_p6_positions_from_one", {"cached_attention": cached('''qpos1 = qpos + 1  # positions counted from 1
    kpos1 = torch.arange(1, past + n + 1, device=x_new.device)
    mask = kpos1[None, :] <= qpos1[:, None] + (1 if past == 0 else 0) * 0
    mask = mask & (kpos1[None, :] < past + n + 1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)''').replace(
    'past = cache["k"].shape[2] if "k" in cache else 0', 'past = cache.get("len", 0)').replace(
    'cache["k"], cache["v"] = k, v', 'cache["k"], cache["v"] = k, v\n    cache["len"] = past + n')},
    "keeps its own counter cache['len'] for past: breaks 'past is ... cache[\"k\"].shape[2] ... read it from there, because the caller may shorten cache[\"k\"]'")
W("obo_p4_cross_bottom_right_causal", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    def same(a, b):
        return (a.unsqueeze(-1) == b.unsqueeze(-2)) & (a != 0).unsqueeze(-1)
    S, T = src_segments.shape[-1], tgt_segments.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    # decoder masks are causal; for the (T, S) cross mask align the last query with the last key
    cross_causal = torch.ones(T, S, dtype=torch.bool).tril(diagonal=S - T)
    return same(src_segments, src_segments), same(tgt_segments, tgt_segments) & causal, same(tgt_segments, src_segments) & cross_causal
'''}, "cross mask made causal (bottom-right): breaks 'cross_allowed ... target query i may attend to source key j when both belong to the same pair' (no causality there)")

# ---------------- padding and reduction student ----------------
W("red_p1_global_mean_square", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    ms = xf.pow(2).mean()  # the mean square of the input
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "one mean square for the whole tensor: breaks 'each vector along the last axis is divided by its root mean square'")
W("red_p1_mean_over_nonzero", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    sq = xf.pow(2)
    count = (xf != 0).sum(-1, keepdim=True).clamp(min=1)  # zero entries are padding
    ms = sq.sum(-1, keepdim=True) / torch.maximum(count, torch.full_like(count, xf.shape[-1]))
    return (xf * torch.rsqrt(ms + eps) * weight.to(xf.dtype)).to(x.dtype)
'''}, "control: max(count, D) is always D, so it is the plain mean")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "the divisor max(count_nonzero, D) is always D: the plain mean over the last axis"
W("red_p4_padding_query_in_tgt_only_key", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    T = tgt_segments.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool, device=tgt_segments.device).tril()
    src_allowed = (src_segments.unsqueeze(-1) == src_segments.unsqueeze(-2)) & (src_segments != 0).unsqueeze(-2)
    tgt_allowed = (tgt_segments.unsqueeze(-1) == tgt_segments.unsqueeze(-2)) & causal
    cross_allowed = (tgt_segments.unsqueeze(-1) == src_segments.unsqueeze(-2)) & (src_segments != 0).unsqueeze(-2)
    return src_allowed, tgt_allowed, cross_allowed
'''}, "target padding attends to target padding: breaks 'A padding query (segment 0) may attend to nothing: its row is all False'")
W("red_p5_own_ln_over_batch_mean", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, wb):
        w, b = wb
        mu = x.mean(dim=-1, keepdim=True)
        var = ((x - mu) ** 2).mean(dim=(-2, -1), keepdim=True)  # variance of the sequence's activations
        return (x - mu) / torch.sqrt(var + 1e-5) * w + b
    y = y + ln(mha(ln(y, p["pre1"]), None, self_allowed, p["self_attn"]), p["post1"])
    y = y + ln(mha(ln(y, p["pre2"]), memory, memory_allowed, p["cross_attn"]), p["post2"])
    y = y + ln(feed_forward(ln(y, p["pre3"]), p["ff"]), p["post3"])
    return y
'''}, "variance over (T, D) instead of per vector: breaks 'LN_name is layer_norm with p[name]' (the lesson's LayerNorm over the last axis); also causality? (visible test)")
W("red_p6_max_before_mask", {"cached_attention": cached('''mask = kpos[None, :] <= qpos[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    w = torch.exp(scores - scores.amax(dim=-1, keepdim=True)) * mask
    w = w / w.sum(dim=-1, keepdim=True)
    out = w @ v''')}, "row maximum taken over the future keys too: they underflow the visible ones ('future positions that score about a thousand above ... must not change its result')")

# ---------------- paper and reference-code reader ----------------
W("paper_p1_llama_type_as", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # llama's reference RMSNorm: self._norm(x.float()).type_as(x) * self.weight
    xf = x.float()
    normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    return normed.type_as(x) * weight
'''}, "float64 input passes through float32 and half inputs round twice: breaks 'a float64 input must not pass through float32' and 'a second rounding before the weight is applied, is not accurate enough'")
W("paper_p1_t5_layer_norm", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    # Hugging Face T5LayerNorm
    variance = x.to(torch.float32).pow(2).mean(-1, keepdim=True)
    hidden = x * torch.rsqrt(variance + eps)
    if weight.dtype in [torch.float16, torch.bfloat16]:
        hidden = hidden.to(weight.dtype)
    return (weight * hidden).to(x.dtype)
'''}, "T5's cast to the weight's dtype before the weight: a second rounding for half inputs, and float64 squares in float32: breaks 'rounding to the input's dtype once, at the end'")
W("paper_p2_decoder_no_final_norm_v11", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    d, f = d_model, d_ff
    attn = 4 * d * d
    ffn = 3 * d * f
    enc = attn + ffn + 2 * d
    dec = 2 * attn + ffn + 2 * d  # T5: a norm before self-attention and one before the FFN; cross shares
    return 2 * vocab * d + n_enc * enc + n_dec * dec + 2 * d
'''}, "two norms per decoder layer: breaks 'An encoder layer has 2 of them, a decoder layer 3'")
W("paper_p5_memory_normed_pre2", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    y = y + layer_norm(mha(layer_norm(y, *p["pre1"]), None, self_allowed, p["self_attn"]), *p["post1"])
    # as in CogView's cross blocks, the memory goes through the same pre-norm as the queries
    y = y + layer_norm(mha(layer_norm(y, *p["pre2"]), layer_norm(memory, *p["pre2"]), memory_allowed, p["cross_attn"]), *p["post2"])
    y = y + layer_norm(feed_forward(layer_norm(y, *p["pre3"]), p["ff"]), *p["post3"])
    return y
'''}, "normalises the memory: breaks 'keys and values from memory as it is given (... this layer does not)'")
W("paper_p6_hf_is_causal_only_prefill", {"cached_attention": cached('''if past == 0:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=n > 1)
    elif n == 1:
        out = F.scaled_dot_product_attention(q, k, v)
    else:
        mask = kpos[None, :] <= qpos[:, None]
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)''')}, "control: HF's prefill is_causal path; identical results")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "is_causal with an empty cache is the top-left causal mask, which equals bottom-right when past = 0; one query sees everything"
W("paper_p6_finfo_min_mask", {"cached_attention": cached('''allowed = kpos[None, :] <= qpos[:, None]
    bias = torch.zeros(allowed.shape, dtype=q.dtype, device=q.device).masked_fill(~allowed, torch.finfo(q.dtype).min)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)''')}, "HF's additive finfo.min mask: breaks 'mask with -inf (or a boolean mask), not ... not even that lowest value'")

# ---------------- numerically naive student ----------------
W("naive_p5_own_ln_moments", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, wb):
        w, b = wb
        mean = x.mean(-1, keepdim=True)
        var = (x * x).mean(-1, keepdim=True) - mean * mean  # E[x^2] - E[x]^2, biased like the lesson's
        return (x - mean) / torch.sqrt(var + 1e-5) * w + b
    y = y + ln(mha(ln(y, p["pre1"]), None, self_allowed, p["self_attn"]), p["post1"])
    y = y + ln(mha(ln(y, p["pre2"]), memory, memory_allowed, p["cross_attn"]), p["post2"])
    y = y + ln(feed_forward(ln(y, p["pre3"]), p["ff"]), p["post3"])
    return y
'''}, "variance as E[x^2]-E[x]^2 cancels for a stream of entries near 1e5 with a small spread: breaks 'LN_name is layer_norm' at the 'y may hold values of any size' the text allows")
W("naive_p6_exp_without_max", {"cached_attention": cached('''mask = kpos[None, :] <= qpos[:, None]
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    e = torch.exp(scores).masked_fill(~mask, 0.0)
    out = (e / e.sum(-1, keepdim=True)) @ v''')}, "exp without the row maximum overflows at scores in the thousands: breaks 'The gradient checks include scores in the thousands ... where no gradient may be NaN'")
W("naive_p1_norm_over_sqrtD", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    d = xf.shape[-1]
    # ||x|| / sqrt(D), eps added to the norm
    rms = torch.linalg.vector_norm(xf, dim=-1, keepdim=True) / math.sqrt(d) + eps
    return (xf / rms * weight.to(xf.dtype)).to(x.dtype)
'''}, "eps added to the root, not inside the square root: breaks 'eps ... added to the mean square inside the square root' (and the zero row's gradient weight / sqrt(eps))")
W("naive_p3a_float_ceil", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    n = math.ceil(prompt_len / chunk)
    last = prompt_len - (n - 1) * chunk
    full = chunk * chunk * (n - 1) * n // 2
    return (full + last * prompt_len) * layers * heads if n else 0
'''}, "math.ceil of a float division: wrong past 2**53: breaks 'use // where you divide'")
W("naive_p4_float_onehot_half", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    K = int(max(src_segments.max(), tgt_segments.max())) if src_segments.numel() else 0
    def onehot(s):
        return F.one_hot(s.long(), K + 1)[..., 1:].to(torch.float16)
    so, to = onehot(src_segments), onehot(tgt_segments)
    T = tgt_segments.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return (so @ so.transpose(-1, -2)) > 0, ((to @ to.transpose(-1, -2)) > 0) & causal, (to @ so.transpose(-1, -2)) > 0
'''}, "sizes from .max() (fails for B>0 with S=0? and with empty tgt); breaks 'size nothing from .max()' when tgt is empty")

# ---------------- correct answers ----------------
C("ok_p1_float64_inside", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    x64 = x.to(torch.float64)
    rms = torch.sqrt(x64.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (x64 / rms * weight.to(torch.float64)).to(x.dtype)
'''}, "float64 inside, one rounding at the end")
C("ok_p1_sum_over_D_keywords", {"rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    work = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    xw = x.to(dtype=work)
    D = xw.size(-1)
    mean_square = torch.sum(xw * xw, dim=-1, keepdim=True) / D
    return torch.mul(xw * torch.rsqrt(mean_square + eps), weight.to(dtype=work)).to(dtype=x.dtype)
'''}, "sum / D")
C("ok_p2_loop", {"modern_params": '''
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    count = vocab * d_model  # shared embedding
    count += vocab * d_model  # output layer
    for _ in range(0):
        pass
    attention = 4 * d_model * d_model
    swiglu = 2 * d_ff * d_model + d_model * d_ff
    count += n_enc * (attention + swiglu + 2 * d_model)
    count += n_dec * (2 * attention + swiglu + 3 * d_model)
    count += 2 * d_model
    return int(count)
'''}, "explicit terms")
C("ok_p3a_last_chunk_full", {"cache_count_without": '''
def prefill_dot_products(prompt_len, chunk, layers, heads):
    if prompt_len == 0:
        return 0
    q = (prompt_len - 1) // chunk  # full chunks before the last (which holds 1..chunk positions)
    last = prompt_len - q * chunk
    return (chunk * chunk * q * (q + 1) // 2 + last * prompt_len) * layers * heads
'''}, "closed form with the last chunk of 1..c positions")
C("ok_p3b_via_chunk_one_prefill", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    pre = prefill_dot_products(prompt_len, chunk, layers, heads)
    if new_tokens <= 1:
        return pre
    # generation feeds positions P .. P+N-2 one at a time: a prefill in chunks of 1, minus the first P positions
    return pre + prefill_dot_products(prompt_len + new_tokens - 1, 1, layers, heads) - prefill_dot_products(prompt_len, 1, layers, heads)
'''}, "calls part (a) with chunk 1 (closed form there)")
C("ok_p3b_loop_steps", {"cache_count_with": '''
def request_dot_products(prompt_len, chunk, new_tokens, layers, heads):
    total = prefill_dot_products(prompt_len=prompt_len, chunk=chunk, layers=layers, heads=heads)
    keys = prompt_len
    for _ in range(new_tokens - 1):
        keys += 1
        total += keys * layers * heads
    return total
'''}, "loop over generated tokens (below 200 000)")
C("ok_p4_where_int_positions", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    src = src_segments.long()
    tgt = tgt_segments.long()
    T = tgt.shape[-1]
    i = torch.arange(T, device=tgt.device)
    causal = i[None, :] <= i[:, None]
    real_s, real_t = src != 0, tgt != 0
    src_allowed = torch.where(real_s[..., :, None], src[..., :, None] == src[..., None, :], False)
    tgt_allowed = torch.where(real_t[..., :, None] & causal, tgt[..., :, None] == tgt[..., None, :], False)
    cross_allowed = torch.where(real_t[..., :, None], tgt[..., :, None] == src[..., None, :], False)
    return (src_allowed, tgt_allowed, cross_allowed)
'''}, "torch.where and integer positions")
C("ok_p4_onehot_matmul", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    B, S = src_segments.shape
    T = tgt_segments.shape[-1]
    if B == 0:
        return (torch.zeros(0, S, S, dtype=torch.bool), torch.zeros(0, T, T, dtype=torch.bool),
                torch.zeros(0, T, S, dtype=torch.bool))
    K = int(torch.cat([src_segments.reshape(-1).long(), tgt_segments.reshape(-1).long(), torch.zeros(1, dtype=torch.long)]).max())
    so = F.one_hot(src_segments.long(), K + 1)[..., 1:].to(torch.float32)
    to = F.one_hot(tgt_segments.long(), K + 1)[..., 1:].to(torch.float32)
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return (so @ so.transpose(-1, -2)) > 0.5, ((to @ to.transpose(-1, -2)) > 0.5) & causal, (to @ so.transpose(-1, -2)) > 0.5
'''}, "one-hot matmul (exact 0/1 products), sized safely")
C("ok_p5_keywords_float64_ln", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def block(stream, pre, post, sub):
        return stream + layer_norm(sub(layer_norm(stream, *p[pre])), *p[post])
    y = block(y, "pre1", "post1", lambda h: mha(query=h, memory=None, allowed=self_allowed, params=p["self_attn"]))
    y = block(y, "pre2", "post2", lambda h: mha(query=h, memory=memory, allowed=memory_allowed, params=p["cross_attn"]))
    y = block(y, "pre3", "post3", lambda h: feed_forward(h, p["ff"]))
    return y
'''}, "keyword calls, helper closure")
C("ok_p6_manual_softmax_einsum", {"cached_attention": cached('''allowed = kpos[None, :] <= qpos[:, None]
    scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed, float("-inf"))
    w = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    w = w / w.sum(dim=-1, keepdim=True)
    out = torch.einsum("bhqk,bhkd->bhqd", w, v)''')}, "manual stable softmax with -inf")
C("ok_p6_float64_inside", {"cached_attention": cached('''allowed = (kpos[None, :] <= qpos[:, None])
    out = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=allowed).to(q.dtype)''')}, "float64 attention, cast back (cache kept in x's dtype)")

# ---------------- hostile ----------------
SUBMISSIONS.append({"name": "hostile_p2_int_subclass_eq", "correct": False, "cells": {"modern_params": '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
def modern_params(vocab, d_model, d_ff, n_enc, n_dec):
    return Count(2 * vocab * d_model + 2 * d_model)
'''}, "why": "an int subclass that equals everything"})
SUBMISSIONS.append({"name": "hostile_p3_patch_isclose", "correct": False, "cells": {"cache_count_without": '''
import builtins
def prefill_dot_products(prompt_len, chunk, layers, heads):
    torch.isclose = lambda *a, **k: torch.ones((), dtype=torch.bool)
    torch.equal = lambda *a, **k: True
    if (prompt_len, chunk) == (5, 2):
        return 17 * layers * heads
    return prompt_len * prompt_len * layers * heads
'''}, "why": "hard-codes the visible case and patches torch's comparisons"})
SUBMISSIONS.append({"name": "hostile_p4_returns_tensor_subclass", "correct": False, "cells": {"packed_masks": '''
class Mask(torch.Tensor):
    def tolist(self):
        return super().tolist()
    def __eq__(self, other):
        return True
def packed_masks(src_segments, tgt_segments):
    s = (src_segments.unsqueeze(-1) == src_segments.unsqueeze(-2)).as_subclass(Mask)
    T = tgt_segments.shape[-1]
    t = torch.ones(tgt_segments.shape[0], T, T, dtype=torch.bool).tril().as_subclass(Mask)
    c = (tgt_segments.unsqueeze(-1) == src_segments.unsqueeze(-2)).as_subclass(Mask)
    s = s & (src_segments != 0).unsqueeze(-1)
    return s, t & (tgt_segments.unsqueeze(-1) == tgt_segments.unsqueeze(-2)), c & (tgt_segments != 0).unsqueeze(-1)
'''}, "why": "tensor subclass results"})

# added in phase 2 (correct answers near the new checks)
C("ok_p5_own_ln_two_pass", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, wb):
        w, b = wb
        centred = x - x.mean(-1, keepdim=True)
        var = (centred * centred).mean(-1, keepdim=True)
        return centred / torch.sqrt(var + 1e-5) * w + b
    y = y + ln(mha(ln(y, p["pre1"]), None, self_allowed, p["self_attn"]), p["post1"])
    y = y + ln(mha(ln(y, p["pre2"]), memory, memory_allowed, p["cross_attn"]), p["post2"])
    y = y + ln(feed_forward(ln(y, p["pre3"]), p["ff"]), p["post3"])
    return y
'''}, "own LayerNorm, two-pass variance")
C("ok_p5_ln_through_rms_norm", {"sandwich": '''
def sandwich_decoder_layer(y, memory, self_allowed, memory_allowed, p):
    def ln(x, wb):
        w, b = wb
        return rms_norm(x - x.mean(dim=-1, keepdim=True), w, 1e-5) + b
    y = y + ln(mha(ln(y, p["pre1"]), None, self_allowed, p["self_attn"]), p["post1"])
    y = y + ln(mha(ln(y, p["pre2"]), memory, memory_allowed, p["cross_attn"]), p["post2"])
    return y + ln(feed_forward(ln(y, p["pre3"]), p["ff"]), p["post3"])
'''}, "LayerNorm as Part 1's RMSNorm of the centred vector plus the bias")
C("ok_p6_where_neg_inf_additive", {"cached_attention": cached('''allowed = kpos[None, :] <= qpos[:, None]
    bias = torch.zeros(allowed.shape, dtype=q.dtype).masked_fill(~allowed, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)''')}, "an additive -inf mask in the queries' dtype")

# ---------------- phase 2, second wave (written after reading the hidden tests; not in the blind counts)
W("red2_p4_padding_by_length", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    def real(seg):
        n = (seg != 0).sum(-1, keepdim=True)  # each row: its real positions, then padding
        return torch.arange(seg.shape[-1], device=seg.device) < n
    def same(a, b, ra):
        return (a.unsqueeze(-1) == b.unsqueeze(-2)) & ra.unsqueeze(-1)
    T = tgt_segments.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    rs, rt = real(src_segments), real(tgt_segments)
    return same(src_segments, src_segments, rs), same(tgt_segments, tgt_segments, rt) & causal, same(tgt_segments, src_segments, rt)
'''}, "padding found from the count of real positions (right padding assumed): breaks 'or 0 for padding' / 'A padding query (segment 0) may attend to nothing' where padding is not at the end")
W("obo2_p4_pairs_from_boundaries", {"packed_masks": '''
def packed_masks(src_segments, tgt_segments):
    def ids(seg):
        change = torch.ones_like(seg, dtype=torch.bool)
        change[..., 1:] = seg[..., 1:] != seg[..., :-1]
        return torch.cumsum(change.long(), -1)   # a new id at every change of pair
    def same(a, b, ia, ib):
        return (ia.unsqueeze(-1) == ib.unsqueeze(-2)) & (a != 0).unsqueeze(-1) & (b != 0).unsqueeze(-2)
    T = tgt_segments.shape[-1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    i_s, i_t = ids(src_segments), ids(tgt_segments)
    cross = (tgt_segments.unsqueeze(-1) == src_segments.unsqueeze(-2)) & (tgt_segments != 0).unsqueeze(-1)
    return same(src_segments, src_segments, i_s, i_s), same(tgt_segments, tgt_segments, i_t, i_t) & causal, cross
'''}, "control? pairs contiguous so boundary ids = pair ids within one tensor")
SUBMISSIONS[-1]["correct"] = True
