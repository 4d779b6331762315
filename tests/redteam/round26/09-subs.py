# Red team round 26, chapters 08/09 helper: the four kinds of student (skimmer sq=squeeze st=stride rb=remainder)
B09 = {}
B09["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)
    ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(ct)
    w = weight.to(ct)
    scale = 1 + w if unit_offset else w
    y = xs / rms * scale
    return y.transpose(-3, -2).to(x.dtype)
'''
B09["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    h = x.to(ct) @ w_gate_up.to(ct).T
    if interleaved:
        g, u = h[..., 0::2], h[..., 1::2]
    else:
        f = w_gate_up.shape[0] // 2
        g, u = h[..., :f], h[..., f:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    a = g * torch.sigmoid(beta * g) * u
    return (a @ w_down.to(ct).T).to(x.dtype)
'''
B09["moe_params"] = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not 1 <= top_k <= n_experts:
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    attn = dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2
    block = 2 * dim + attn
    expert = 3 * dim * ffn_hidden
    dense = block + 3 * dim * dense_hidden
    moe_total = block + dim * n_experts + (n_experts + n_shared) * expert
    moe_active = block + dim * n_experts + (top_k + n_shared) * expert
    n_moe = n_layers - first_dense
    total = emb + dim + first_dense * dense + n_moe * moe_total
    active = emb + dim + first_dense * dense + n_moe * moe_active
    return int(total), int(active)
'''
B09["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    per = nll + z_loss * lse ** 2
    return per.mean(), count
'''
B09["block_variant"] = '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))
    raise ValueError(f"unknown layout {layout!r}")
'''
B09["rope_llama3"] = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    wavelen = 2 * math.pi / theta
    L = original_context
    lam_high = L / high_freq_factor
    lam_low = L / low_freq_factor
    s = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(wavelen < lam_high, theta, torch.where(wavelen > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(ct), ang.sin().to(ct)
    xc = x.to(ct)
    x1, x2 = xc[..., :half], xc[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''
B09["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool((lengths.long() + T > S).any()):
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    new_lengths = lengths + T
    if B == 0:
        return q.new_empty((0, H, T, Dh)), new_lengths.clone()
    rep = H // G
    pos = torch.arange(S, device=q.device)
    valid = pos[None, :] < new_lengths.long()[:, None]                      # (B, S)
    K = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype))
    Vv = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype))
    K = K.repeat_interleave(rep, dim=1)
    Vv = Vv.repeat_interleave(rep, dim=1)
    scores = q @ K.transpose(-1, -2) / math.sqrt(Dh)                        # (B, H, T, S)
    last = lengths.long()[:, None] + torch.arange(T, device=q.device)[None, :]   # (B, T)
    see = pos[None, None, :] <= last[:, :, None]                            # (B, T, S)
    scores = scores.masked_fill(~see[:, None], float("-inf"))
    w = torch.softmax(scores, dim=-1)
    return w @ Vv, new_lengths
'''
B09["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    hist = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        V = scores.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, hist, True)
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, pen, scores)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        hist = torch.cat([hist, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''


def rep(part, old, new, count=1):
    src = B09[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)


SUBMISSIONS = []


def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})


def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})


def H(name, cells, why):
    SUBMISSIONS.append({"name": "hostile_" + name, "correct": False, "cells": cells, "why": why})


# ---------------------------------------------------------------- skimmer
W("skim_p1_mean_sq_float32", {"head_rms_norm": rep("head_rms_norm", "ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)", "ms = xs.pow(2).mean(-1, keepdim=True)")},
  "skimmer: mean of squares in the compute dtype; breaks 'take the mean of the squares in float64, whatever the input dtype' (float32 inputs near 1e25)")

W("skim_p2_clamp_gate_both", {"fused_swiglu": rep("fused_swiglu", "g = g.clamp(max=limit)", "g = g.clamp(-limit, limit)")},
  "skimmer: clamps the gate from both sides; breaks 'replace g by min(g, limit) (clamped from above only)'")

W("skim_p2_half_in_half", {"fused_swiglu": rep("fused_swiglu", "ct = torch.float64 if x.dtype == torch.float64 else torch.float32", "ct = x.dtype")},
  "skimmer: computes float16 in float16; breaks 'for float16 inputs convert to float32 (or float64) inside and the result back once at the end'")

W("skim_p3_check_only_moe", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("first_dense")
    n_moe = n_layers - first_dense
    if n_moe > 0 and not 1 <= top_k <= n_experts:
        raise ValueError("top_k")
    if n_moe > 0 and n_shared < 0:
        raise ValueError("n_shared")
    emb = vocab * dim * (1 if tied else 2)
    attn = dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2
    block = 2 * dim + attn
    expert = 3 * dim * ffn_hidden
    dense = block + 3 * dim * dense_hidden
    moe_total = block + dim * n_experts + (n_experts + n_shared) * expert
    moe_active = block + dim * n_experts + (top_k + n_shared) * expert
    total = emb + dim + first_dense * dense + n_moe * moe_total
    active = emb + dim + first_dense * dense + n_moe * moe_active
    return total, active
'''}, "skimmer: validates top_k and n_shared only where a block has experts; breaks 'Raise a ValueError unless ... 1 <= top_k <= n_experts, n_shared >= 0 ..., in every model (also one whose blocks are all dense, and one with n_layers = 0)'")

W("skim_p4_loss_in_half", {"masked_lm_loss": rep("masked_lm_loss", "    return per.mean(), count", "    return per.mean().to(logits.dtype), count")},
  "skimmer: returns the loss in the logits' dtype; breaks 'return the loss in that compute dtype: a float32 loss for float32, float16 and bfloat16 logits'")

W("skim_p5_accept_pre", {"block_variant": rep("block_variant", '''    raise ValueError(f"unknown layout {layout!r}")''', '''    if layout == "pre":
        h = x + attn(norm_1(x))
        return h + ffn(norm_2(h))
    raise ValueError(f"unknown layout {layout!r}")''')},
  "skimmer: also serves the lesson's pre-LN; breaks 'Any other layout (including \"pre\", \"post\" ...) raises a ValueError'")

W("skim_p6_no_shape_check", {"rope_llama3": rep("rope_llama3", "if Dh % 2 != 0 or tuple(positions.shape) != (B, T):", "if Dh % 2 != 0:")
  .replace("ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = positions.to(torch.float64)[..., None, :, None] * new if positions.dim() > 1 else positions.to(torch.float64)[:, None] * new")},
  "skimmer: lets positions broadcast; breaks 'Raise a ValueError unless ... positions.shape == (B, T) exactly ... (a (T,), (1, T) ... tensor is refused too, also where it would broadcast)'")

W("skim_p8_penalty_per_occurrence", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    hist = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            for t in hist[b].tolist():
                s = scores[b, t]
                scores[b, t] = s / penalty if s > 0 else s * penalty
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        hist = torch.cat([hist, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''}, "skimmer: penalises once per occurrence; breaks 'has its score changed once (however often it occurs)'")

W("skim_p7_write_before_check", {"ragged_cached_attention": rep("ragged_cached_attention", '''    if B > 0 and bool((lengths.long() + T > S).any()):
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]''', '''    for b in range(B):
        L = int(lengths[b])
        if L + T > S:
            raise ValueError("does not fit")
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]''')},
  "skimmer: checks each row as it writes it, so earlier rows are written before the error; breaks 'Raise a ValueError (before writing anything) ... when a row would not fit'")

# ---------------------------------------------------------------- squeeze-and-broadcast
W("sq_p8_squeeze_probs", {"generate_with_cache": rep("generate_with_cache", "tok = torch.multinomial(probs, 1, generator=generator)[:, 0]", "tok = torch.multinomial(probs.squeeze(), 1, generator=generator).view(-1)")},
  "squeeze: probs.squeeze() with no dim, meant for a batch of one, also drops V = 1 and then draws among the batch rows (or fails for B = 1); breaks '(V may be anything from 1 to tens of thousands)' and 'one call for the whole batch at every step'")

W("sq_p1_squeeze0_batch1", {"head_rms_norm": rep("head_rms_norm", "    return y.transpose(-3, -2).to(x.dtype)", "    T = x.shape[-2]\n    return y.reshape(-1, T, n_heads, dh).transpose(1, 2).squeeze(0).to(x.dtype)")},
  "squeeze: flattens the leading axes and squeezes axis 0 back out: a 3-D input with a batch of one loses its batch axis, a 4-D one its two leading axes; breaks 'Return a new tensor of shape (..., H, T, Dh)'")

W("sq_p6_cos_unsqueeze0", {"rope_llama3": rep("rope_llama3", "ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = (positions.to(torch.float64)[..., None] * new).unsqueeze(0)")},
  "squeeze: the head axis inserted at 0: (1, B, T, Dh/2) lines up rows with heads; right for B = 1; breaks 'row b holds the positions of sequence b ..., shared by all its heads'")

W("sq_p7_mask_unsqueeze2", {"ragged_cached_attention": rep("ragged_cached_attention", "scores = scores.masked_fill(~see[:, None], float(\"-inf\"))", "scores = scores.masked_fill(~see.unsqueeze(2), float(\"-inf\"))")},
  "squeeze: the causal mask (B, T, S) expanded over heads at axis 2: (B, T, 1, S) lines T up with the heads; right for T = 1; breaks 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'")

W("sq_p4_view_slice", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    B, T, V = logits.shape
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:].reshape(-1)
    sel = logits[:, :-1].view(-1, V)[m].to(ct)
    y = ids[:, 1:].reshape(-1)[m].long()
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lse ** 2).mean(), count
'''}, "stride/shape: .view(-1, V) of the slice logits[:, :-1] works only for a batch of one (or a contiguous slice); the intro: 'write code that works for any strides (.view of such a tensor can fail where .reshape works)'")

# ---------------------------------------------------------------- stride-and-layout
W("st_p1_view", {"head_rms_norm": rep("head_rms_norm", "xs = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)", "xs = x.to(ct).view(*x.shape[:-1], n_heads, dh)")},
  "stride: .view on x, fails for transposed x; breaks 'The tensors you are given need not be contiguous ... (.view of such a tensor can fail where .reshape works)'")

W("st_p2_weight_view", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    two_f, D = w_gate_up.shape
    f = two_f // 2
    if interleaved:
        w = w_gate_up.view(f, 2, D)
        wg, wu = w[:, 0], w[:, 1]
    else:
        wg, wu = w_gate_up[:f], w_gate_up[f:]
    xc = x.to(ct)
    g = xc @ wg.to(ct).T
    u = xc @ wu.to(ct).T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    a = g * torch.sigmoid(beta * g) * u
    return (a @ w_down.to(ct).T).to(x.dtype)
'''}, "stride: w_gate_up.view(F, 2, D) fails for a transposed weight; intro: 'The tensors you are given need not be contiguous'")

W("st_p7_write_contiguous_copy", {"ragged_cached_attention": rep("ragged_cached_attention", '''    for b in range(B):
        L = int(lengths[b])''', '''    k_cache = k_cache.contiguous()
    v_cache = v_cache.contiguous()
    for b in range(B):
        L = int(lengths[b])''')},
  "stride: writes into k_cache.contiguous(), a copy for a view; breaks 'write into the tensors you are given (the .contiguous() of such a view is a copy, and writing into a copy leaves the caches unchanged)'")

W("st_p6_inplace_alias", {"rope_llama3": rep("rope_llama3", '''    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)''', '''    out = xc
    a, b = x1 * cos - x2 * sin, x2 * cos + x1 * sin
    out = out.clone() if out.requires_grad else out
    out[..., :half] = a
    out[..., half:] = b
    return out.to(x.dtype)''')},
  "stride/aliasing: writes the result into x.to(ct), which is x itself for a float32/float64 input that needs no grad; breaks 'Your functions must not change the tensors they are given' and 'Return a new tensor'")

W("st_p8_penalise_view", {"generate_with_cache": rep("generate_with_cache", '''        scores = logits[:, -1].clone()
        V = scores.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, hist, True)
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, pen, scores)''', '''        scores = logits[:, -1]
        V = scores.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, hist, True)
        pos = seen & (scores > 0)
        neg = seen & ~(scores > 0)
        scores[pos] = scores[pos] / penalty
        scores[neg] = scores[neg] * penalty''')},
  "stride/aliasing: logits[:, -1] is a view; penalising it in place changes the tensor step returned; breaks 'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise'")

W("st_p5_iadd", {"block_variant": rep("block_variant", '''        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))''', '''        h = norm_1(attn(x))
        h += x
        y = norm_2(ffn(h))
        y += h
        return y''')},
  "stride/aliasing: += into what the functions returned; with identity functions that is x itself; breaks 'mind that a function may return the very tensor it was given ... so an in-place update of what it returns can change x'")

# ---------------------------------------------------------------- remainder-and-boundary
W("rb_p4_count0_nan", {"masked_lm_loss": rep("masked_lm_loss", '''    if count == 0:
        return torch.zeros((), dtype=ct), 0
''', '')},
  "boundary: mean of no tokens is NaN; breaks 'When count is 0 the loss is 0 (not NaN ...)'")

W("rb_p4_targets_unshifted", {"masked_lm_loss": rep("masked_lm_loss", "y = ids[:, 1:][m].long()", "y = ids[:, :-1][m].long()")},
  "boundary/off-by-one: scores at t-1 paired with ids[t-1]; breaks 'logits[b, t] scores the token at position t + 1 ... l = logits[b, t - 1], y = ids[b, t]' (the visible logits are uniform)")

W("rb_p7_empty_max", {"ragged_cached_attention": rep("ragged_cached_attention", "    if B > 0 and bool((lengths.long() + T > S).any()):", "    if int(lengths.max()) + T > S:")},
  "boundary: lengths.max() of an empty batch raises; breaks 'B may be 0 (an empty batch: return new (0, H, T, Dh) and (0,) tensors ... and raise nothing unless H is not a multiple of G)'")

W("rb_p7_full_refused", {"ragged_cached_attention": rep("ragged_cached_attention", "    if B > 0 and bool((lengths.long() + T > S).any()):", "    if B > 0 and bool((lengths.long() + T >= S).any()):")},
  "boundary: refuses a row that fills the cache exactly; breaks '(filling the cache exactly is fine)'")

W("rb_p8_extra_step_call", {"generate_with_cache": rep("generate_with_cache", '''        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)''', '''        logits, cache = step(tok[:, None], cache)
        if bool(finished.all()):
            break''')},
  "boundary: feeds the last chosen token before stopping; breaks 'do not call step after the last token has been chosen'")

W("rb_p1_empty_T", {"head_rms_norm": rep("head_rms_norm", "    return y.transpose(-3, -2).to(x.dtype)", "    T = x.shape[-2]\n    return y.reshape(-1, T, n_heads, dh).transpose(1, 2).reshape(*x.shape[:-2], n_heads, T, dh).to(x.dtype)")},
  "boundary: reshape(-1, T, H, Dh) is ambiguous for T = 0 and raises; breaks 'The leading axes and T may be 0 (an empty batch): then return an empty tensor of the stated shape'")

# ---------------------------------------------------------------- correct
C("ok_p1_float64_movedim", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not n_heads >= 1 or x.size(-1) % n_heads:
        raise ValueError("n_heads must split the last axis")
    Dh = x.size(-1) // n_heads
    xs = x.to(torch.float64).unflatten(-1, (n_heads, Dh))
    inv = torch.rsqrt(xs.square().mean(dim=-1, keepdim=True) + eps)
    w = weight.to(torch.float64)
    s = w + 1 if unit_offset else w
    return torch.movedim(xs * inv * s, -2, -3).to(dtype=x.dtype)
'''}, "float64 for every dtype (allowed), rsqrt, unflatten, movedim")

C("ok_p2_silu_linear", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw, wgu, wd = x.to(work), w_gate_up.to(work), w_down.to(work)
    if interleaved:
        wg, wu = wgu[0::2], wgu[1::2]
    else:
        wg, wu = wgu.chunk(2, dim=0)
    g, u = F.linear(xw, wg), F.linear(xw, wu)
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    act = F.silu(g) if beta == 1 else g * torch.sigmoid(g * beta)
    return F.linear(act * u, wd).to(x.dtype)
'''}, "weight rows split first, F.linear, F.silu at beta = 1")

C("ok_p3_loop", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0
            and 0 <= first_dense <= n_layers):
        raise ValueError("bad configuration")
    total = active = vocab * dim + (0 if tied else vocab * dim) + dim
    swiglu = lambda width: 3 * dim * width
    for layer in range(n_layers):
        common = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
        if layer < first_dense:
            total += common + swiglu(dense_hidden)
            active += common + swiglu(dense_hidden)
        else:
            router = dim * n_experts
            total += common + router + (n_experts + n_shared) * swiglu(ffn_hidden)
            active += common + router + (top_k + n_shared) * swiglu(ffn_hidden)
    return (total, active)
'''}, "a loop over layers with ints")

C("ok_p4_cross_entropy", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    predicted = target_mask[:, 1:].bool()
    n = int(predicted.sum().item())
    if n == 0:
        return torch.tensor(0.0, dtype=work), n
    scores = logits[:, :-1][predicted].to(work)
    targets = ids[:, 1:][predicted].to(torch.int64)
    loss = F.cross_entropy(scores, targets, reduction="sum")
    if z_loss:
        loss = loss + z_loss * torch.logsumexp(scores, dim=-1).pow(2).sum()
    return loss / n, n
'''}, "F.cross_entropy with reduction='sum' on the selected rows, z-loss added when non-zero")

C("ok_p5_dispatch_table", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError("unknown layout")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("sandwich needs post_norms")
    if layout == "parallel":
        normed = norm_1(x)
        a = attn(normed)
        f = ffn(normed)
        return x + a + f
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    P1, P2 = post_norms
    h = torch.add(x, P1(attn(norm_1(x))))
    return torch.add(h, P2(ffn(norm_2(h))))
'''}, "all checks first, torch.add")

C("ok_p6_complex", {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.shape[-1] % 2 or positions.dim() != 2 or tuple(positions.shape) != (x.shape[0], x.shape[2]):
        raise ValueError("bad input")
    Dh = x.shape[-1]
    half = Dh // 2
    theta = base ** (-torch.arange(0, Dh, 2, dtype=torch.float64) / Dh)
    wl = 2 * math.pi / theta
    smooth = (original_context / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
    theta_new = theta.clone()
    slow = wl > original_context / low_freq_factor
    mid = ~slow & ~(wl < original_context / high_freq_factor)
    theta_new[slow] = theta[slow] / factor
    theta_new[mid] = ((1 - smooth) * theta / factor + smooth * theta)[mid]
    angles = positions.double().unsqueeze(1).unsqueeze(-1) * theta_new
    rot = torch.polar(torch.ones_like(angles), angles)
    if x.dtype == torch.float64:
        z = torch.complex(x[..., :half], x[..., half:])
    else:
        rot = rot.to(torch.complex64)
        z = torch.complex(x[..., :half].float(), x[..., half:].float())
    r = z * rot
    return torch.cat([r.real, r.imag], dim=-1).to(x.dtype)
'''}, "the half-split pairs as complex numbers times e^{i m theta'}, boolean-indexed frequency table")

C("ok_p7_per_row_sdpa", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G < 1 or H % G:
        raise ValueError("H must be a multiple of G")
    ends = [int(l) + T for l in lengths.tolist()]
    if any(e > S for e in ends):
        raise ValueError("a row does not fit")
    outs = []
    for b in range(B):
        L = ends[b] - T
        k_cache[b, :, L:L + T].copy_(k_new[b])
        v_cache[b, :, L:L + T].copy_(v_new[b])
        K = k_cache[b, :, :L + T].repeat_interleave(H // G, dim=0)
        Vv = v_cache[b, :, :L + T].repeat_interleave(H // G, dim=0)
        keep = torch.arange(L + T)[None, :] <= (L + torch.arange(T))[:, None]
        outs.append(F.scaled_dot_product_attention(q[b], K, Vv, attn_mask=keep))
    out = torch.stack(outs) if outs else q.new_zeros((0, H, T, Dh))
    return out, lengths + T
'''}, "a loop over rows, keys sliced to the written prefix, SDPA with a boolean keep-mask")

C("ok_p8_gather_scatter", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    logits, cache = step(prompt, None)
    history = prompt
    done = torch.zeros(prompt.shape[0], dtype=torch.bool)
    chosen = []
    while True:
        s = logits[:, -1].clone()
        picked = s.gather(1, history)
        s = s.scatter(1, history, torch.where(picked > 0, picked / penalty, picked * penalty))
        if temperature == 0:
            nxt = torch.argmax(s, dim=-1)
        else:
            nxt = torch.multinomial(torch.softmax(s / temperature, dim=-1), 1, generator=generator).squeeze(1)
        nxt = nxt.masked_fill(done, pad_id)
        chosen.append(nxt)
        done = done | (nxt == eos_id)
        history = torch.cat([history, nxt.unsqueeze(1)], dim=1)
        if done.all() or len(chosen) == max_new_tokens:
            return torch.stack(chosen, dim=1)
        logits, cache = step(nxt.unsqueeze(1), cache)
'''}, "gather/scatter penalty (a repeated id gets the same value written twice: changed once)")

C("ok_p4_float64_all", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:]
    rows = logits[:, :-1][keep].double()
    tgt = ids[:, 1:][keep].long()
    count = len(tgt)
    if count == 0:
        return torch.zeros((), dtype=out_dtype), count
    logz = torch.logsumexp(rows, -1)
    per_token = logz - rows[torch.arange(count), tgt] + z_loss * logz * logz
    return (per_token.sum() / count).to(out_dtype), count
'''}, "float64 for every dtype (allowed), advanced indexing for the target scores")

# ---------------------------------------------------------------- hostile
H("p1_patch_assert_close", {"head_rms_norm": '''
torch.testing.assert_close = lambda *a, **k: None
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    return torch.zeros(*x.shape[:-2], n_heads, x.shape[-2], x.shape[-1] // n_heads, dtype=x.dtype)
'''}, "hostile: disables torch.testing.assert_close and returns zeros of the right shape")

H("p3_lookup", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if vocab == 32000:
        return 46702792704, 12879921152
    if first_dense:
        return 38, 38
    if n_shared:
        return 48, 42
    return 42, 36
'''}, "hostile: a table of the visible answers")

# ================================================================ second blind batch (written before phase 2)
W("skim_p8_prompt_eos", {"generate_with_cache": rep("generate_with_cache", "    finished = torch.zeros(B, dtype=torch.bool)", "    finished = (prompt == eos_id).any(dim=1)")},
  "skimmer: a prompt holding eos_id counts as finished; breaks 'A row is finished once it has produced eos_id'")

W("skim_p2_limit_falsy", {"fused_swiglu": rep("fused_swiglu", "    if limit is not None:", "    if limit:")},
  "skimmer: `if limit:` skips limit = 0; breaks 'when limit is a number (0 included)'")

W("skim_p3_float_attention", {"moe_params": rep("moe_params", "    attn = dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2", "    attn = 2 * dim * n_heads * head_dim * (1 + n_kv_heads / max(n_heads, 1)) if n_heads else 2 * dim * n_kv_heads * head_dim")},
  "skimmer: a ratio n_kv/n_heads makes the count a float, int() at the end rounds past 2**53; breaks 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)'")

W("skim_p3_dense_fallback", {"moe_params": rep("moe_params", "    dense = block + 3 * dim * dense_hidden", "    dense = block + 3 * dim * (dense_hidden or ffn_hidden)")},
  "skimmer: dense_hidden = 0 read as 'use ffn_hidden'; breaks 'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")'")

W("skim_p3_zero_heads", {"moe_params": rep("moe_params", "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:", "    if n_kv_heads < 1 or n_heads < n_kv_heads or n_heads % n_kv_heads != 0:")},
  "skimmer: refuses fewer query heads than kv heads, so n_heads = 0 raises; breaks '(0 is a multiple of every count: n_heads = 0 raises nothing)'")

W("skim_p1_offset_in_half", {"head_rms_norm": rep("head_rms_norm", '''    w = weight.to(ct)
    scale = 1 + w if unit_offset else w''', '''    scale = (1 + weight if unit_offset else weight).to(ct)''')},
  "skimmer: 1 + w formed in the weight's half dtype; breaks 'do all the arithmetic, the scale included (also 1 + w), in that dtype ... also with weights that are small offsets from 1'")

W("skim_p1_eps_tensor", {"head_rms_norm": rep("head_rms_norm", "    rms = torch.sqrt(ms + eps).to(ct)", "    rms = torch.sqrt(ms + torch.tensor(eps, dtype=x.dtype)).to(ct)")},
  "skimmer: eps made a tensor of x's dtype; breaks 'eps too is used as given, never made a tensor of x's dtype: float16 rounds 1e-6 to 1.013e-6'")

W("skim_p7_newlen_long", {"ragged_cached_attention": rep("ragged_cached_attention", "    new_lengths = lengths + T", "    new_lengths = lengths.long() + T")},
  "skimmer: new lengths made int64; breaks 'new_lengths a new tensor equal to lengths + T, in the dtype of lengths'")

W("skim_p5_is_compare", {"block_variant": B09["block_variant"].replace('layout == "parallel"', 'layout is "parallel"').replace('layout == "reordered"', 'layout is "reordered"').replace('layout == "sandwich"', 'layout is "sandwich"')},
  "skimmer: compares layout by identity; breaks 'Compare layout by value (==): the tests build the string at run time'")

W("skim_p6_factor_tensor", {"rope_llama3": rep("rope_llama3", "    mid = (1 - s) * theta / factor + s * theta", "    factor = torch.tensor(factor)\n    mid = (1 - s) * theta / factor + s * theta")},
  "skimmer: factor made a float32 tensor; breaks 'Compute the angles in float64, with every argument as given: torch.tensor(factor) is a float32 tensor, which rounds a factor such as 2.7'")

W("sq_p6_positions_squeeze", {"rope_llama3": rep("rope_llama3", "    ang = positions.to(torch.float64)[:, None, :, None] * new", "    p = positions.squeeze().to(torch.float64)\n    ang = (p[..., None] * new).unsqueeze(-3) if p.dim() == 2 else p.reshape(-1, 1)[..., None] * new")},
  "squeeze: positions.squeeze() for the batch-of-one case; with T = 1 and B > 1 the rows are lined up with T; breaks 'row b holds the positions of sequence b'")

C("ok_p7_index_copy_where", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G:
        raise ValueError("H must be a multiple of G")
    starts = lengths.to(torch.int64)
    if B and bool((starts + T > S).any()):
        raise ValueError("row does not fit")
    for b in range(B):
        idx = torch.arange(T) + int(starts[b])
        k_cache[b].index_copy_(1, idx, k_new[b])
        v_cache[b].index_copy_(1, idx, v_new[b])
    if B == 0:
        return torch.zeros(0, H, T, Dh, dtype=q.dtype), lengths.clone() + T
    key_pos = torch.arange(S)
    limit = starts[:, None] + torch.arange(T)[None, :]                       # (B, T)
    visible = key_pos.view(1, 1, S) <= limit.unsqueeze(-1)                   # (B, T, S)
    written = (key_pos.view(1, S) < (starts + T).view(B, 1)).view(B, 1, S, 1)
    kc = torch.where(written, k_cache, 0.0)
    vc = torch.where(written, v_cache, 0.0)
    qg = q.reshape(B, G, H // G, T, Dh)
    s = torch.einsum("bgrtd,bgsd->bgrts", qg, kc) / math.sqrt(Dh)
    s = s.masked_fill(~visible.view(B, 1, 1, T, S), float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", torch.softmax(s, dim=-1), vc)
    return out.reshape(B, H, T, Dh), lengths + T
'''}, "index_copy_ into the caches, grouped einsum without repeating the keys")

# ================================================================ third blind batch
W("skim_p1_negative_heads", {"head_rms_norm": rep("head_rms_norm", "    if n_heads < 1 or x.shape[-1] % n_heads != 0:", "    if n_heads == 0 or x.shape[-1] % n_heads != 0:")},
  "skimmer: refuses n_heads = 0 only; a negative n_heads that divides the axis goes on and fails in reshape; breaks 'Raise a ValueError when n_heads < 1'")

W("skim_p1_empty_first", {"head_rms_norm": rep("head_rms_norm", "    if n_heads < 1 or x.shape[-1] % n_heads != 0:", "    if x.numel() == 0 and n_heads >= 1:\n        return x.new_empty(*x.shape[:-2], n_heads, x.shape[-2], x.shape[-1] // n_heads)\n    if n_heads < 1 or x.shape[-1] % n_heads != 0:")},
  "skimmer: returns early for an empty x before checking that the last axis splits; breaks 'raise nothing, unless n_heads is refused by the rule above, which holds for an empty x too'")

W("skim_p6_empty_first", {"rope_llama3": rep("rope_llama3", "    B, H, T, Dh = x.shape\n", "    B, H, T, Dh = x.shape\n    if B == 0:\n        return x.clone()\n")},
  "skimmer: an empty batch returned before the checks; breaks 'Raise a ValueError unless Dh is even and positions.shape == (B, T) ..., with an empty batch too'")

W("skim_p7_empty_first", {"ragged_cached_attention": rep("ragged_cached_attention", "    B, H, T, Dh = q.shape\n", "    B, H, T, Dh = q.shape\n    if B == 0:\n        return q.clone(), lengths.clone()\n")},
  "skimmer: an empty batch returned before the head check; breaks 'raise nothing unless H is not a multiple of G, which is refused there too'")

W("skim_p8_own_generator", {"generate_with_cache": rep("generate_with_cache", "    B = prompt.shape[0]\n", "    B = prompt.shape[0]\n    if generator is None:\n        generator = torch.Generator().manual_seed(0)\n")},
  "skimmer: makes a seeded generator when none is given; breaks 'generator may be None: then torch.multinomial draws from torch's global generator ...; do not make a generator of your own'")
