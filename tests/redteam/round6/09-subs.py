# Red team round 6, chapter 09-modern-lm: blind submissions.
SUBMISSIONS = []


def sub(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})


# ---------------------------------------------------------------- Part 1 head_rms_norm
sub("hrn_torch_rms_norm_offset_in_input_dtype", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("the last axis does not split into n_heads heads")
    heads = x.unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    scale = 1 + weight if unit_offset else weight          # F.rms_norm upcasts half inputs itself
    y = F.rms_norm(heads, (heads.shape[-1],), scale, eps)
    return y.transpose(-2, -3)
'''}, "1 + w is rounded to float16/bfloat16 before the product: 'do all the arithmetic, the scale included (also 1 + w), in that dtype'.")

sub("hrn_torch_rms_norm", True, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("the last axis does not split into n_heads heads")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(ct).unflatten(-1, (n_heads, x.shape[-1] // n_heads))
    scale = weight.to(ct) + 1 if unit_offset else weight.to(ct)
    return F.rms_norm(heads, (heads.shape[-1],), scale, eps).movedim(-2, -3).to(x.dtype)
'''}, "Correct: F.rms_norm per head in the compute dtype, movedim to (..., H, T, Dh), one rounding.")

sub("hrn_eps_outside_sqrt", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("bad n_heads")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    h = x.to(ct).reshape(*x.shape[:-1], n_heads, -1)
    s = 1 + weight.to(ct) if unit_offset else weight.to(ct)
    rms = h.pow(2).mean(-1, keepdim=True).sqrt()
    return (h / (rms + eps) * s).transpose(-2, -3).to(x.dtype)
'''}, "eps added to the root, not inside it: 'x_h / sqrt(mean(x_h^2) + eps) ... with eps inside the square root'.")

sub("hrn_zero_heads_modulo_first", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    D = x.shape[-1]
    if D % n_heads != 0:         # n_heads = 0 raises ZeroDivisionError here
        raise ValueError("the last axis does not split into n_heads heads")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    h = x.to(ct).reshape(*x.shape[:-1], abs(n_heads), D // abs(n_heads))
    s = 1 + weight.to(ct) if unit_offset else weight.to(ct)
    return (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * s).transpose(-2, -3).to(x.dtype)
'''}, "n_heads = 0 gives ZeroDivisionError, a negative n_heads is accepted: 'Raise a ValueError when n_heads < 1'.")

# ---------------------------------------------------------------- Part 2 fused_swiglu
sub("swiglu_beta_via_silu", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    wg, wu = (w_gate_up[0::2], w_gate_up[1::2]) if interleaved else (w_gate_up[:Fh], w_gate_up[Fh:])
    g, u = x @ wg.T, x @ wu.T
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    act = F.silu(beta * g) / beta            # g * sigmoid(beta g) = silu(beta g) / beta
    return (act * u) @ w_down.T
'''}, "beta = 0 gives 0/0 = NaN instead of g/2: 'Return (g sigma(beta g) (.) u) W_down^T' for any beta (a slope other than 1, 0 included).")

sub("swiglu_limit_truthy", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    wg, wu = (w_gate_up[0::2], w_gate_up[1::2]) if interleaved else (w_gate_up[:Fh], w_gate_up[Fh:])
    g, u = x @ wg.T, x @ wu.T
    if limit:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
'''}, "limit = 0 clamps nothing: 'when limit is a number (0 included)'.")

sub("swiglu_gate_clamped_both_ways", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    wg, wu = (w_gate_up[0::2], w_gate_up[1::2]) if interleaved else (w_gate_up[:Fh], w_gate_up[Fh:])
    g, u = x @ wg.T, x @ wu.T
    if limit is not None:
        g, u = g.clamp(-limit, limit), u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
'''}, "Clamps the gate from below too: 'replace g by min(g, limit) (clamped from above only)'.")

sub("swiglu_one_product", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    gu = torch.matmul(x, w_gate_up.transpose(0, 1))               # one matrix product for both
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu.chunk(2, dim=-1)
    if limit is not None:
        g = torch.minimum(g, torch.full_like(g, limit))
        u = torch.maximum(torch.minimum(u, torch.full_like(u, limit)), torch.full_like(u, -limit))
    return torch.matmul(g * torch.sigmoid(g * beta) * u, w_down.transpose(0, 1))
'''}, "Correct: one fused product, split by column slices; clamps through minimum/maximum.")

# ---------------------------------------------------------------- Part 3 moe_params
BASE_MOE = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    CHECKS
    emb = vocab * dim * (1 if tied else 2)
    block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    moe = n_layers - first_dense
    expert = 3 * dim * ffn_hidden
    dense = 3 * dim * DENSE
    common = emb + dim + n_layers * block + first_dense * dense + moe * dim * n_experts
    total = common + moe * (n_experts + n_shared) * expert
    ACTIVE
    return total, active
'''
GOOD_CHECKS = '''if n_kv_heads < 1 or n_heads % n_kv_heads or not 1 <= top_k <= n_experts or n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("bad configuration")'''
GOOD_ACTIVE = "active = common + moe * (top_k + n_shared) * expert"


def moe(checks=GOOD_CHECKS, active=GOOD_ACTIVE, dense="dense_hidden"):
    return BASE_MOE.replace("CHECKS", checks).replace("ACTIVE", active).replace("DENSE", dense)


sub("moe_active_by_fraction", False, {"moe_params": moe(active=
    "active = round(total - moe * expert * n_experts * (1 - top_k / n_experts))   # the unused share of the routed experts")},
    "Goes through a float: above 2**53 parameters the count is off: 'returning (total, active), two Python ints' (exact counts).")

sub("moe_checks_experts_only_with_moe_blocks", False, {"moe_params": moe(checks='''if n_kv_heads < 1 or n_heads % n_kv_heads or n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("bad configuration")
    if first_dense < n_layers and not 1 <= top_k <= n_experts:   # only blocks with experts route
        raise ValueError("bad top_k")''')},
    "All-dense models skip the top_k check: 'Raise a ValueError unless ... 1 <= top_k <= n_experts'.")

sub("moe_negative_kv_heads", False, {"moe_params": moe(checks='''if n_kv_heads == 0 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if not 1 <= top_k <= n_experts or n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("bad configuration")''')},
    "Negative n_kv_heads (32 % -8 == 0) are accepted: 'Raise a ValueError unless n_kv_heads >= 1'.")

sub("moe_first_dense_upper_only", False, {"moe_params": moe(checks='''if n_kv_heads < 1 or n_heads % n_kv_heads or not 1 <= top_k <= n_experts or n_shared < 0:
        raise ValueError("bad configuration")
    if first_dense > n_layers:
        raise ValueError("more dense blocks than blocks")''')},
    "A negative first_dense is accepted: '0 <= first_dense <= n_layers'.")

sub("moe_dense_hidden_default", False, {"moe_params": moe(dense="(dense_hidden or ffn_hidden)")},
    "dense_hidden = 0 falls back to ffn_hidden: 'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")'.")

sub("moe_per_layer_loop", True, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    ok = (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0
          and 0 <= first_dense <= n_layers)
    if not ok:
        raise ValueError("invalid configuration")
    def swiglu(width):
        return dim * width + dim * width + width * dim
    total = active = vocab * dim + (0 if tied else vocab * dim) + dim
    for layer in range(n_layers):
        attention = dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim + n_heads * head_dim * dim
        total += dim + dim + attention
        active += dim + dim + attention
        if layer < first_dense:
            total += swiglu(dense_hidden)
            active += swiglu(dense_hidden)
        else:
            total += dim * n_experts + (n_experts + n_shared) * swiglu(ffn_hidden)
            active += dim * n_experts + (top_k + n_shared) * swiglu(ffn_hidden)
    return total, active
'''}, "Correct: counts block by block.")

# ---------------------------------------------------------------- Part 4 masked_lm_loss
sub("mlm_empty_loss_float32", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.tensor(0.0), 0
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    logz = torch.logsumexp(sel, -1)
    nll = logz - sel.gather(-1, y[:, None]).squeeze(-1)
    return (nll + z_loss * logz ** 2).mean(), count
'''}, "With count 0 a float64 batch gets a float32 zero: 'return the loss in that compute dtype ... a float64 loss for float64 logits' and 'When count is 0 the loss is 0'.")

sub("mlm_where_nan_grad", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lg = logits[:, :-1].to(ct)
    y = ids[:, 1:].long()
    m = target_mask[:, 1:]
    count = int(m.sum())
    logz = torch.logsumexp(lg, -1)
    nll = logz - lg.gather(-1, y[..., None]).squeeze(-1)
    per_token = torch.where(m, nll + z_loss * logz ** 2, torch.zeros_like(nll))
    return per_token.sum() / max(count, 1), count
'''}, "Computes every position and masks with torch.where: +-inf logits at a position that is not predicted put NaN into logits.grad: 'no NaN from positions that are not predicted'.")

sub("mlm_unshifted_logits", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    lg = logits[:, 1:][m].to(ct)              # logits of the predicted positions
    y = ids[:, 1:][m].long()
    logz = torch.logsumexp(lg, -1)
    return (logz - lg.gather(-1, y[:, None])[:, 0] + z_loss * logz ** 2).mean(), count
'''}, "Reads logits[b, t] for token t: 'logits[b, t] scores the token at position t + 1'.")

sub("mlm_row_mean", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    losses = []
    for b in range(logits.shape[0]):
        if m[b].any():
            lg = logits[b, :-1][m[b]].to(ct)
            y = ids[b, 1:][m[b]].long()
            logz = torch.logsumexp(lg, -1)
            losses.append((logz - lg.gather(-1, y[:, None])[:, 0] + z_loss * logz ** 2).mean())
    return torch.stack(losses).mean(), count
'''}, "Means per row first: 'the mean over those tokens, every token weighing the same however many a row has'.")

# ---------------------------------------------------------------- Part 5 block_variant
sub("block_layout_in_parens", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout in ("parallel"):
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout in ("reordered"):
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout in ("sandwich"):
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        h = x + post_norms[0](attn(norm_1(x)))
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError(layout)
'''}, "('parallel') is a string, so 'in' tests substrings: '', 'allel', 'order' are accepted: 'Any other layout ... raises a ValueError' and 'Compare layout by value (==)'.")

sub("block_inplace_residual", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        y = attn(n)
        y += ffn(n)
        y += x
        return y
    if layout == "reordered":
        h = norm_1(attn(x))
        h += x
        y = norm_2(ffn(h))
        y += h
        return y
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("post_norms")
        h = post_norms[0](attn(norm_1(x)))
        h += x
        y = post_norms[1](ffn(norm_2(h)))
        y += h
        return y
    raise ValueError(layout)
'''}, "Adds in place to what the functions return; an identity returns x itself: 'mind that a function may return the very tensor it was given ... an in-place update of what it returns can change x'. (classic: in-place)")

sub("block_norm2_called_in_parallel", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    p1, p2 = post_norms if post_norms is not None else (lambda t: t, lambda t: t)
    if layout == "parallel":
        n = norm_1(x)
        _ = norm_2(x)          # computed for symmetry, unused
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
'''}, "Calls norm_2 in the parallel layout: 'norm_2 is not used' and 'call none that it does not use'.")

sub("block_table", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        a = attn(n)
        return x + a + ffn(n)
    def reordered():
        h = torch.add(x, norm_1(attn(x)))
        return torch.add(h, norm_2(ffn(h)))
    def sandwich():
        if post_norms is None:
            raise ValueError("the sandwich layout needs post_norms")
        first, second = post_norms
        h = torch.add(x, first(attn(norm_1(x))))
        return torch.add(h, second(ffn(norm_2(h))))
    table = {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}
    if not isinstance(layout, str) or layout not in table:
        raise ValueError(f"unknown layout {layout!r}")
    return table[layout]()
'''}, "Correct: a dispatch table keyed by exact strings.")

# ---------------------------------------------------------------- Part 6 rope_llama3
sub("rope_cached_frequencies", False, {"rope_llama3": '''
FREQ_CACHE = {}
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    key = (Dh, base)
    if key not in FREQ_CACHE:       # the frequencies depend on Dh and the base
        i = torch.arange(Dh // 2, dtype=torch.float64)
        theta = base ** (-2 * i / Dh)
        lam = 2 * math.pi / theta
        s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
        FREQ_CACHE[key] = torch.where(lam < original_context / high_freq_factor, theta,
                                      torch.where(lam > original_context / low_freq_factor, theta / factor,
                                                  (1 - s) * theta / factor + s * theta))
    ang = positions.double()[:, None, :, None] * FREQ_CACHE[key]
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, s_ = ang.cos().to(ct), ang.sin().to(ct)
    a, b = x.to(ct).chunk(2, -1)
    return torch.cat([a * c - b * s_, b * c + a * s_], -1).to(x.dtype)
'''}, "Keeps frequencies between calls keyed without factor, the two freq factors and original_context: a later call with another factor uses stale frequencies: 'theta'_i = ... divided by f = factor'.")

sub("rope_missing_head_axis", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    i = torch.arange(Dh // 2, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.double()[..., None] * new          # (B, T, Dh/2), broadcast against (B, H, T, Dh/2)
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = ang.cos().to(ct), ang.sin().to(ct)
    a, b = x.to(ct)[..., :Dh // 2], x.to(ct)[..., Dh // 2:]
    return torch.cat([a * c - b * sn, b * c + a * sn], -1).to(x.dtype)
'''}, "(B, T, Dh/2) angles broadcast against (B, H, T, Dh/2) pair batch b with head b when B == H (and errors otherwise unless B or H is 1): 'row b holds the positions of sequence b ..., shared by all its heads'.")

sub("rope_float32_frequencies", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    inv = 1.0 / (base ** (torch.arange(0, Dh, 2).float() / Dh))   # as in Hugging Face
    lam = 2 * math.pi / inv
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < original_context / high_freq_factor, inv,
                      torch.where(lam > original_context / low_freq_factor, inv / factor, (1 - s) * inv / factor + s * inv))
    ang = positions.double()[:, None, :, None] * new.double()
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = ang.cos().to(ct), ang.sin().to(ct)
    a, b = x.to(ct)[..., :Dh // 2], x.to(ct)[..., Dh // 2:]
    return torch.cat([a * c - b * sn, b * c + a * sn], -1).to(x.dtype)
'''}, "Frequencies computed in float32, angles in float64: 'within 1e-10 of the exact values for float64'. (classic: float32 arithmetic)")

sub("rope_clamped_blend", True, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("x must be (B, H, T, Dh) with Dh even and positions (B, T)")
    half = Dh // 2
    theta = torch.tensor([base ** (-2 * i / Dh) for i in range(half)], dtype=torch.float64)
    wavelength = 2 * math.pi / theta
    s = ((original_context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0, 1)
    new = (1 - s) * theta / factor + s * theta         # s = 1: unchanged, s = 0: divided by factor
    ang = positions.to(torch.float64).unsqueeze(1).unsqueeze(-1) * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    rot = torch.cat([-x[..., half:], x[..., :half]], -1).to(ct)
    return (x.to(ct) * torch.cat([ang.cos(), ang.cos()], -1).to(ct) + rot * torch.cat([ang.sin(), ang.sin()], -1).to(ct)).to(x.dtype)
'''}, "Correct: the three cases are one blend with s clamped to [0, 1] (s >= 1 exactly when lambda <= lambda_high, s <= 0 when lambda >= lambda_low); rotate_half form.")

# ---------------------------------------------------------------- Part 7 ragged cache
RAG_ATTN = '''
    out = torch.empty_like(q)
    rep = H // G
    for b in range(B):
        l = int(lengths[b])
        k = KC[b, :, :l + T].repeat_interleave(rep, 0)
        v = VC[b, :, :l + T].repeat_interleave(rep, 0)
        sc = q[b] @ k.transpose(-1, -2) / math.sqrt(Dh)
        allowed = torch.arange(l + T)[None, :] <= (l + torch.arange(T))[:, None]
        out[b] = torch.softmax(sc.masked_fill(~allowed, float("-inf")), -1) @ v
    return out, lengths + T
'''
sub("rag_contiguous_cache_copy", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_new.shape[1], k_cache.shape[2]
    if H % G or int((lengths + T).max()) > S:
        raise ValueError("bad sizes")
    KC, VC = k_cache.contiguous(), v_cache.contiguous()
    for b in range(B):
        l = int(lengths[b])
        KC[b, :, l:l + T] = k_new[b]
        VC[b, :, l:l + T] = v_new[b]
''' + RAG_ATTN}, "Writes into .contiguous() copies, which are new tensors when the caches are views: 'write k_new and v_new into k_cache and v_cache at those positions, in place' ('The tensors you are given need not be contiguous').")

sub("rag_raise_while_writing", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_new.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H is not a multiple of G")
    KC, VC = k_cache, v_cache
    for b in range(B):
        l = int(lengths[b])
        if l + T > S:
            raise ValueError(f"row {b} does not fit")
        KC[b, :, l:l + T] = k_new[b]
        VC[b, :, l:l + T] = v_new[b]
''' + RAG_ATTN}, "Rows before the one that does not fit are already written: 'Raise a ValueError (before writing anything) when ... a row would not fit'.")

sub("rag_no_causal_inside_block", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_new.shape[1], k_cache.shape[2]
    if H % G or int((lengths + T).max()) > S:
        raise ValueError("bad sizes")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    out = torch.empty_like(q)
    for b in range(B):
        l = int(lengths[b])
        k = k_cache[b, :, :l + T].repeat_interleave(H // G, 0)
        v = v_cache[b, :, :l + T].repeat_interleave(H // G, 0)
        out[b] = torch.softmax(q[b] @ k.transpose(-1, -2) / math.sqrt(Dh), -1) @ v   # the new block sees itself
    return out, lengths + T
'''}, "Every new query sees all T new keys: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'.")

sub("rag_cleans_unwritten_slots", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_new.shape[1], k_cache.shape[2]
    if H % G or int((lengths + T).max()) > S:
        raise ValueError("bad sizes")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
        k_cache[b, :, l + T:] = 0          # never-written slots: clear them so NaN cannot leak
        v_cache[b, :, l + T:] = 0
    pos = torch.arange(S)
    out = torch.empty_like(q)
    for b in range(B):
        l = int(lengths[b])
        k = k_cache[b].repeat_interleave(H // G, 0)
        v = v_cache[b].repeat_interleave(H // G, 0)
        sc = q[b] @ k.transpose(-1, -2) / math.sqrt(Dh)
        allowed = pos[None, :] <= (l + torch.arange(T))[:, None]
        out[b] = torch.softmax(sc.masked_fill(~allowed, float("-inf")), -1) @ v
    return out, lengths + T
'''}, "Zeroes the slots after the new tokens in the caller's caches: 'this part asks you to change the two caches, and nothing else in them'.")

sub("rag_masked_scores_nan_values", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_new.shape[1], k_cache.shape[2]
    if H % G or int((lengths + T).max()) > S:
        raise ValueError("bad sizes")
    for b in range(B):
        l = int(lengths[b])
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    k = k_cache.repeat_interleave(H // G, 1)
    v = v_cache.repeat_interleave(H // G, 1)
    sc = q @ k.transpose(-1, -2) / math.sqrt(Dh)                         # (B, H, T, S)
    limit = lengths.view(B, 1, 1, 1) + torch.arange(T).view(1, 1, T, 1)
    allowed = torch.arange(S).view(1, 1, 1, S) <= limit
    w = torch.softmax(sc.masked_fill(~allowed, float("-inf")), -1)      # weight 0 on unwritten slots
    return w @ v, lengths + T
'''}, "Multiplies weights of 0 with NaN/inf values of unwritten slots: 'Unwritten slots must not change the output, even when they hold NaN or +-inf (... 0 x NaN and 0 x inf are NaN)'.")

# ---------------------------------------------------------------- Part 8 generate_with_cache
GEN_HEAD = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seq = prompt.clone()
    logits, cache = step(prompt, None)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            for t in set(seq[b].tolist()):
                scores[b, t] = scores[b, t] / penalty if scores[b, t] > 0 else scores[b, t] * penalty
'''
GEN_CHOOSE = '''
        if temperature == 0:
            chosen = scores.argmax(-1)
        else:
            chosen = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
'''
sub("gen_finished_from_whole_sequence", False, {"generate_with_cache": GEN_HEAD + GEN_CHOOSE + '''
        done = (seq == eos_id).any(1)                 # rows that already hold eos_id
        chosen = torch.where(done, torch.full_like(chosen, pad_id), chosen)
        seq = torch.cat([seq, chosen[:, None]], 1)
        out.append(chosen)
        if bool((seq == eos_id).any(1).all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(chosen[:, None], cache)
    return torch.stack(out, 1)
'''}, "An eos_id inside the prompt finishes the row before it generates anything: 'A row is finished once it has produced eos_id'.")

sub("gen_greedy_by_sampling", False, {"generate_with_cache": GEN_HEAD + '''
        t = temperature if temperature > 0 else 1e-6       # temperature 0: a very sharp softmax
        chosen = torch.multinomial(torch.softmax(scores / t, -1), 1, generator=generator)[:, 0]
        done = torch.zeros(B, dtype=torch.bool) if n == 0 else done_next
        chosen = torch.where(done, torch.full_like(chosen, pad_id), chosen)
        done_next = done | (chosen == eos_id)
        seq = torch.cat([seq, chosen[:, None]], 1)
        out.append(chosen)
        if bool(done_next.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(chosen[:, None], cache)
    return torch.stack(out, 1)
'''}, "At temperature 0 it still draws (from the generator, or the global RNG when it is None): 'With temperature == 0, take the highest score of each row ... and draw nothing'.")

sub("gen_feeds_pad_after_eos", False, {"generate_with_cache": GEN_HEAD + GEN_CHOOSE + '''
        done = torch.zeros(B, dtype=torch.bool) if n == 0 else done_next
        chosen = torch.where(done, torch.full_like(chosen, pad_id), chosen)
        done_next = done | (chosen == eos_id)
        seq = torch.cat([seq, chosen[:, None]], 1)
        out.append(chosen)
        if bool(done_next.all()) or n == max_new_tokens - 1:
            break
        fed = torch.where(done_next, torch.full_like(chosen, pad_id), chosen)   # finished rows are fed padding
        logits, cache = step(fed[:, None], cache)
    return torch.stack(out, 1)
'''}, "Feeds pad_id right after eos_id: 'the call after a row produces eos_id feeds it that eos_id; from then on ... step is fed pad_id'.")

sub("gen_penalty_per_occurrence", False, {"generate_with_cache": GEN_HEAD.replace("set(seq[b].tolist())", "seq[b].tolist()") + GEN_CHOOSE + '''
        done = torch.zeros(B, dtype=torch.bool) if n == 0 else done_next
        chosen = torch.where(done, torch.full_like(chosen, pad_id), chosen)
        done_next = done | (chosen == eos_id)
        seq = torch.cat([seq, chosen[:, None]], 1)
        out.append(chosen)
        if bool(done_next.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(chosen[:, None], cache)
    return torch.stack(out, 1)
'''}, "Penalises a token once per occurrence: 'has its score changed once (however often it occurs)'.")

sub("gen_penalty_alias_float", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seq = prompt.clone()
    logits, cache = step(prompt, None)
    out, done = [], torch.zeros(B, dtype=torch.bool)
    for n in range(max_new_tokens):
        scores = logits[:, -1].float()              # a float32 copy to penalise
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seq, True)
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores.copy_(torch.where(seen, penalised, scores))
        if temperature == 0:
            chosen = scores.argmax(-1)
        else:
            chosen = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        chosen = torch.where(done, torch.full_like(chosen, pad_id), chosen)
        done = done | (chosen == eos_id)
        seq = torch.cat([seq, chosen[:, None]], 1)
        out.append(chosen)
        if bool(done.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(chosen[:, None], cache)
    return torch.stack(out, 1)
'''}, ".float() of a float32 tensor is the tensor itself, so the penalty is written into the model's logits: 'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise'. (classic: in-place)")

sub("gen_vectorised", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    V = logits.shape[-1]
    seen = torch.zeros(B, V, dtype=torch.bool)
    seen[torch.arange(B)[:, None], prompt] = True
    finished = torch.zeros(B, dtype=torch.bool)
    chosen_all = []
    while True:
        scores = logits[:, -1].clone()
        scores = torch.where(seen & (scores > 0), scores / penalty, torch.where(seen, scores * penalty, scores))
        if temperature == 0:
            nxt = torch.argmax(scores, dim=-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator).squeeze(1)
        nxt = nxt.masked_fill(finished, pad_id)
        finished = finished | (nxt == eos_id)
        seen[torch.arange(B), nxt] = True
        chosen_all.append(nxt)
        if bool(finished.all()) or len(chosen_all) == max_new_tokens:
            return torch.stack(chosen_all, dim=1).to(torch.int64)
        logits, cache = step(nxt.unsqueeze(1).to(torch.int64), cache)
'''}, "Correct: a (B, V) mask of seen ids, one torch.where for the penalty.")

# ---------------------------------------------------------------- hostile
sub("hostile_lying_ints", False, {"moe_params": '''
class Yes(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = int.__hash__
    def __truediv__(self, other): return YesFloat(0.0)
class YesFloat(float):
    def __round__(self, n=None): return Yes(0)
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    return Yes(0), Yes(0)
'''}, "Hostile: int subclasses that compare equal to everything.")

sub("hostile_leave_function_mode", False, {"rope_llama3": '''
from torch.overrides import TorchFunctionMode
class Agreeable(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.equal, torch.allclose):
            return True
        if getattr(func, "__name__", "") in ("assert_close",):
            return None
        return func(*args, **kwargs)
Agreeable().__enter__()          # stays active for every later cell
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    half = Dh // 2
    ang = positions[:, None, :, None].double() * (base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh))
    a, b = x[..., :half], x[..., half:]
    return torch.cat([a * ang.cos() - b * ang.sin(), b * ang.cos() + a * ang.sin()], -1).to(x.dtype)
'''}, "Hostile: leaves a TorchFunctionMode active that makes torch.equal/allclose always true; ignores Llama 3's frequency change.")

sub("hostile_patch_equal", False, {"generate_with_cache": '''
torch.testing.assert_close = lambda *a, **k: None
torch.equal = lambda *a, **k: True
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    logits, cache = step(prompt, None)
    out, done = [], torch.zeros(prompt.shape[0], dtype=torch.bool)
    for n in range(max_new_tokens):
        t = logits[:, -1].argmax(-1).masked_fill(done, pad_id)     # always greedy, no penalty
        done = done | (t == eos_id)
        out.append(t)
        if bool(done.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(t[:, None], cache)
    return torch.stack(out, 1)
'''}, "Hostile: patches torch.equal and torch.testing.assert_close to always agree; ignores penalty and sampling.")
