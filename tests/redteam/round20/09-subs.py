# Red team round 20, chapter 09-modern-lm. Kinds: SC shape-coincidence, AL aliasing/in-place,
# EE early-exit/special-case, LD library-defaults.
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ------------------------------------------------------------ Part 1 head_rms_norm
add("w01-SC-reshape-not-transpose", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    *lead, T, HD = x.shape
    Dh = HD // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.to(cd).reshape(*lead, T, n_heads, Dh)
    ms = x.to(torch.float64).reshape(*lead, T, n_heads, Dh).pow(2).mean(-1, keepdim=True)
    s = weight.to(cd) + 1 if unit_offset else weight.to(cd)
    y = xs * torch.rsqrt(ms + eps).to(cd) * s
    return y.reshape(*lead, n_heads, T, Dh).to(x.dtype)     # (..., H, T, Dh)
'''}, "SC: reshape to (..., H, T, Dh) instead of a transpose; right only when T == 1 or H == 1; breaks 'head h of position t at [..., h, t, :]'.")
add("w02-AL-unit-offset-add-inplace", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    shape = tuple(x.shape[:-1]) + (n_heads, Dh)
    xs = x.to(cd).reshape(shape)
    ms = x.to(torch.float64).reshape(shape).pow(2).mean(-1, keepdim=True)
    s = weight.to(cd)
    if unit_offset:
        with torch.no_grad():
            s += 1                              # Gemma's offset
    y = xs * torch.rsqrt(ms + eps).to(cd) * s
    return y.transpose(-2, -3).to(x.dtype)
'''}, "AL: s = weight.to(float32) is weight itself for float32 weights, so += 1 writes into the caller's weight; breaks 'Your functions must not change the tensors they are given'.")
add("w03-EE-empty-before-check", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if x.numel() == 0:                                   # nothing to normalise
        return x.new_empty(tuple(x.shape[:-2]) + (max(n_heads, 1), x.shape[-2], x.shape[-1] // max(n_heads, 1)))
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    shape = tuple(x.shape[:-1]) + (n_heads, Dh)
    xs = x.to(cd).reshape(shape)
    ms = x.to(torch.float64).reshape(shape).pow(2).mean(-1, keepdim=True)
    s = (1 + weight.to(cd)) if unit_offset else weight.to(cd)
    return (xs * torch.rsqrt(ms + eps).to(cd) * s).transpose(-2, -3).to(x.dtype)
'''}, "EE: empty fast path before the n_heads check; breaks 'raise nothing, unless n_heads is refused by the rule above, which holds for an empty x too'.")
add("w04-LD-F-rms-norm", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.to(cd).reshape(tuple(x.shape[:-1]) + (n_heads, Dh))
    s = weight.to(cd)
    if unit_offset:
        s = 1 + s
    y = F.rms_norm(xs, (Dh,), s, eps=eps)                # the library's RMSNorm
    return y.transpose(-2, -3).to(x.dtype)
'''}, "LD: F.rms_norm squares in float32; breaks 'take the mean of the squares in float64, whatever the input dtype' (x near 1e25 overflows).")
add("w05-EE-skip-unit-scale", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    shape = tuple(x.shape[:-1]) + (n_heads, Dh)
    xs = x.to(cd).reshape(shape)
    ms = x.to(torch.float64).reshape(shape).pow(2).mean(-1, keepdim=True)
    y = xs * torch.rsqrt(ms + eps).to(cd)
    s = (1 + weight.to(cd)) if unit_offset else weight.to(cd)
    if not bool((s == 1).all()):                         # a unit scale changes nothing
        y = y * s
    return y.transpose(-2, -3).to(x.dtype)
'''}, "EE: skips the product at a unit scale; breaks 'do not skip the product there, or the weight gets no gradient'.")

# ------------------------------------------------------------ Part 2 fused_swiglu
add("w06-SC-chunk-dim1", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = x.dtype if x.dtype in (torch.float64, torch.float32) else torch.float32
    gu = x.to(cd) @ w_gate_up.to(cd).T                       # (..., 2F)
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu.chunk(2, dim=1)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return (h @ w_down.to(cd).T).to(x.dtype)
'''}, "SC: chunk on dim=1, which is the feature axis only for 2-D x; breaks 'x has shape (..., D)'.")
add("w07-EE-if-limit-truthy", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = x.dtype if x.dtype in (torch.float64, torch.float32) else torch.float32
    w = w_gate_up.to(cd)
    Fh = w.shape[0] // 2
    wg, wu = (w[0::2], w[1::2]) if interleaved else (w[:Fh], w[Fh:])
    g, u = x.to(cd) @ wg.T, x.to(cd) @ wu.T
    if limit:                                           # clamp only when a limit is set
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return (h @ w_down.to(cd).T).to(x.dtype)
'''}, "EE: `if limit:` treats limit = 0 as no limit; breaks 'when limit is a number (0 included)'.")
add("w08-LD-silu-of-beta-g", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = x.dtype if x.dtype in (torch.float64, torch.float32) else torch.float32
    w = w_gate_up.to(cd)
    Fh = w.shape[0] // 2
    wg, wu = (w[0::2], w[1::2]) if interleaved else (w[:Fh], w[Fh:])
    g, u = x.to(cd) @ wg.T, x.to(cd) @ wu.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = F.silu(beta * g) * u                            # Swish with slope beta
    return (h @ w_down.to(cd).T).to(x.dtype)
'''}, "LD: F.silu(beta g) = beta g sigma(beta g), a factor beta too many; breaks 'Return (g sigma(beta g) * u) W_down^T'.")
add("w09-EE-beta0-half", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = x.dtype if x.dtype in (torch.float64, torch.float32) else torch.float32
    w = w_gate_up.to(cd)
    Fh = w.shape[0] // 2
    wg, wu = (w[0::2], w[1::2]) if interleaved else (w[:Fh], w[Fh:])
    g, u = x.to(cd) @ wg.T, x.to(cd) @ wu.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    if beta == 0:
        h = g / 2 * u                                     # sigma(0) = 1/2
    elif beta == 1:
        h = F.silu(g) * u
    else:
        h = g * torch.sigmoid(beta * g) * u
    return (h @ w_down.to(cd).T).to(x.dtype)
'''}, "EE (likely correct): special cases beta 0 and 1 compute the same values and gradients.")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["name"] = "c-fused-swiglu-beta-special-cases"
add("c10-swiglu-inplace-on-own-temporaries", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = x.dtype if x.dtype in (torch.float64, torch.float32) else torch.float32
    w = w_gate_up.to(cd)
    Fh = w.shape[0] // 2
    wg, wu = (w[0::2], w[1::2]) if interleaved else (w[:Fh], w[Fh:])
    g, u = x.to(cd) @ wg.T, x.to(cd) @ wu.T
    if limit is not None:
        g.clamp_(max=limit)
        u.clamp_(-limit, limit)
    g.mul_(torch.sigmoid(beta * g))                      # save memory: the gate in place
    return ((g * u) @ w_down.to(cd).T).to(x.dtype)
'''}, "in-place ops only on its own temporaries; checked here: autograd gives the same gradients.")

# ------------------------------------------------------------ Part 3 moe_params
add("w11-EE-dense-hidden-or", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads or not 1 <= top_k <= n_experts or n_shared < 0 \\
            or not 0 <= first_dense <= n_layers:
        raise ValueError("bad configuration")
    dense_hidden = dense_hidden or ffn_hidden          # not given: same width as an expert
    emb = vocab * dim * (1 if tied else 2)
    block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    base = emb + dim + n_layers * block + first_dense * 3 * dim * dense_hidden + moe * (dim * n_experts + n_shared * expert)
    return base + moe * n_experts * expert, base + moe * top_k * expert
'''}, "EE: dense_hidden 0 replaced by ffn_hidden; breaks 'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")'.")
add("w12-EE-all-dense-skips-checks", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads or not 0 <= first_dense <= n_layers:
        raise ValueError("bad configuration")
    emb = vocab * dim * (1 if tied else 2)
    block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    dense = 3 * dim * dense_hidden
    if first_dense == n_layers:                         # no expert anywhere: plain dense count
        t = emb + dim + n_layers * (block + dense)
        return t, t
    if not 1 <= top_k <= n_experts or n_shared < 0:
        raise ValueError("bad experts")
    expert = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    base = emb + dim + n_layers * block + first_dense * dense + moe * (dim * n_experts + n_shared * expert)
    return base + moe * n_experts * expert, base + moe * top_k * expert
'''}, "EE: an all-dense model skips the expert checks; breaks 'Raise a ValueError unless ... in every model (also one whose blocks are all dense, and one with n_layers = 0)'.")
add("w13-LD-fsum-float", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads or not 1 <= top_k <= n_experts or n_shared < 0 \\
            or not 0 <= first_dense <= n_layers:
        raise ValueError("bad configuration")
    moe = n_layers - first_dense
    expert = 3 * dim * ffn_hidden
    parts = [vocab * dim * (1 if tied else 2), dim,
             n_layers * (2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim),
             first_dense * 3 * dim * dense_hidden, moe * (dim * n_experts + n_shared * expert)]
    total = int(math.fsum(parts + [moe * n_experts * expert]))     # exact summation
    active = int(math.fsum(parts + [moe * top_k * expert]))
    return total, active
'''}, "LD: math.fsum returns a float, which rounds past 2**53; breaks 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53)'.")
add("w14-SC-kv-dim-over-heads", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads or not 1 <= top_k <= n_experts or n_shared < 0 \\
            or not 0 <= first_dense <= n_layers:
        raise ValueError("bad configuration")
    q_dim = n_heads * head_dim
    kv_dim = q_dim * n_kv_heads // n_heads if n_heads else 0     # kv width scales with the head ratio
    block = 2 * dim + 2 * dim * q_dim + 2 * dim * kv_dim
    expert = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    base = vocab * dim * (1 if tied else 2) + dim + n_layers * block + first_dense * 3 * dim * dense_hidden \\
        + moe * (dim * n_experts + n_shared * expert)
    return base + moe * n_experts * expert, base + moe * top_k * expert
'''}, "SC: kv width derived from q width and the head ratio: zero when n_heads = 0 (which is allowed, n_kv_heads >= 1 still has weights); breaks 'key and value projections dim -> n_kv_heads*head_dim each'.")
add("w15-EE-zero-div-order", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_heads % n_kv_heads != 0 or n_kv_heads < 1:
        raise ValueError("heads")
    if top_k > n_experts or n_shared < 0 or first_dense > n_layers:
        raise ValueError("bad configuration")
    emb = vocab * dim * (1 if tied else 2)
    block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    base = emb + dim + n_layers * block + first_dense * 3 * dim * dense_hidden + moe * (dim * n_experts + n_shared * expert)
    return base + moe * n_experts * expert, base + moe * top_k * expert
'''}, "EE: checks n_heads % n_kv_heads before n_kv_heads >= 1 (ZeroDivisionError, not ValueError) and skips top_k >= 1 and first_dense >= 0; breaks 'Raise a ValueError unless n_kv_heads >= 1 ..., 1 <= top_k ..., 0 <= first_dense'.")

# ------------------------------------------------------------ Part 4 masked_lm_loss
add("w16-AL-mask-pos0-inplace", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    target_mask[:, 0] = False                            # position 0 is never predicted
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    sel = logits[:, :-1][m].to(cd)
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, ids[:, 1:][m].long()[:, None]).squeeze(-1)
    return (nll + z_loss * lse ** 2).sum() / max(count, 1), count
'''}, "AL: clears target_mask[:, 0] in the caller's tensor; breaks 'Your functions must not change the tensors they are given'.")
add("w17-SC-row-means", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    rows = []
    for b in range(logits.shape[0]):
        if m[b].any():
            sel = logits[b, :-1][m[b]].to(cd)
            lse = torch.logsumexp(sel, -1)
            nll = lse - sel.gather(-1, ids[b, 1:][m[b]].long()[:, None]).squeeze(-1)
            rows.append((nll + z_loss * lse ** 2).mean())
    return torch.stack(rows).mean(), count
'''}, "SC: mean of row means, equal to the token mean for a batch of one; breaks 'the mean over those tokens, every token weighing the same however many a row has'.")
add("w18-LD-ce-ignore-index", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lg = logits[:, :-1].to(cd)
    tgt = ids[:, 1:].long().masked_fill(~target_mask[:, 1:], -100)     # ignore_index's default
    count = int(target_mask[:, 1:].sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    ce = F.cross_entropy(lg.transpose(1, 2), tgt)           # mean over the targets kept
    if z_loss:
        lse = torch.logsumexp(lg, -1)[target_mask[:, 1:]]
        ce = ce + z_loss * (lse ** 2).mean()
    return ce, count
'''}, "LD: F.cross_entropy's ignore_index still runs log_softmax over NaN rows; the gradient there is NaN; breaks 'they must change neither the loss nor its gradient, which is 0 there. Leave them out before you compute anything'.")
add("w19-EE-count0-float32", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.tensor(0.0), 0                     # nothing to predict
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    sel = logits[:, :-1][m].to(cd)
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, ids[:, 1:][m].long()[:, None]).squeeze(-1)
    return (nll + z_loss * lse ** 2).mean(), count
'''}, "EE: count == 0 returns a float32 zero also for float64 logits; breaks 'return the loss in that compute dtype: ... a float64 loss for float64 logits'.")
add("w20-LD-logsumexp-half", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    m = target_mask[:, 1:]
    count = int(m.sum())
    sel = logits[:, :-1][m]
    lse = torch.logsumexp(sel, dim=-1)                   # logsumexp is stable in any dtype
    tgt = sel.gather(-1, ids[:, 1:][m].long()[:, None]).squeeze(-1)
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lse, tgt = lse.to(cd), tgt.to(cd)
    per = (lse - tgt) + z_loss * lse ** 2
    return per.sum() / max(count, 1), count
'''}, "LD: torch.logsumexp keeps the half dtype (float16 rounding of log Z near 300 is 0.25); breaks 'Compute in float32 ..., also for float16 and bfloat16 logits'.")

# ------------------------------------------------------------ Part 5 block_variant
add("w21-AL-plus-equals-on-output", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        n = norm_1(x)
        y = attn(n)
        y += ffn(n)
        return y + x
    if layout == "reordered":
        h = norm_1(attn(x))
        h += x
        y = norm_2(ffn(h))
        y += h
        return y
    p1, p2 = post_norms
    h = p1(attn(norm_1(x)))
    h += x
    y = p2(ffn(norm_2(h)))
    y += h
    return y
'''}, "AL: += into what a sublayer returned, which may be its own input (an identity) and so x; breaks 'mind that a function may return the very tensor it was given ... an in-place update of what it returns can change x'.")
add("w22-EE-norm-before-check", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    n = norm_1(x)                                       # both other layouts start with N1(x)
    if layout == "parallel":
        return x + attn(n) + ffn(n)
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        h = x + post_norms[0](attn(n))
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError(layout)
'''}, "EE: N1(x) is computed before the layout and post_norms checks; breaks 'Check layout and post_norms before calling anything'.")
add("w23-LD-lower-layout", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    layout = str(layout).strip().lower()                 # be lenient with spelling
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("post_norms")
        h = x + post_norms[0](attn(norm_1(x)))
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError(layout)
'''}, "LD: lower-cases the layout; breaks 'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError'.")

# ------------------------------------------------------------ Part 6 rope_llama3
add("w24-SC-positions-broadcast-BH", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.dim() != 2 or positions.shape[-1] != T or positions.shape[0] != B:
        raise ValueError("bad shapes")
    half = Dh // 2
    theta = base ** (-torch.arange(half, dtype=torch.float64) * 2 / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.double()[None, :, :, None] * new         # (1, B, T, half) against (B, H, T, half)
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    x1, x2 = x.to(cd)[..., :half], x.to(cd)[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''}, "SC: positions laid on the head axis; broadcasts only when B == H or B == 1; breaks 'row b holds the positions of sequence b ... shared by all its heads'.")
add("w25-AL-rotate-in-place", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    theta = base ** (-torch.arange(half, dtype=torch.float64) * 2 / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.double()[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    out = x.to(cd)
    x1, x2 = out[..., :half], out[..., half:]
    old1 = x1.clone()
    with torch.no_grad():
        x1.mul_(cos).sub_(x2 * sin)                        # rotate the pairs in place
        x2.mul_(cos).add_(old1 * sin)
    return out.to(x.dtype)
'''}, "AL: x.to(float32) is x for float32 input and the rotation writes into it; breaks 'Return a new tensor' and 'must not change the tensors they are given'.")
add("w26-EE-zero-positions-return-x", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    if x.numel() == 0 or not bool(positions.any()):
        return x                                            # nothing turns
    half = Dh // 2
    theta = base ** (-torch.arange(half, dtype=torch.float64) * 2 / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.double()[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    x1, x2 = x.to(cd)[..., :half], x.to(cd)[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''}, "EE: all-zero positions return x itself; breaks 'a new one also where every position is 0 and nothing turns, not x itself'.")
add("w27-LD-arange-float32", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    inv = 1.0 / (base ** (torch.arange(0, Dh, 2) / Dh))          # as in Hugging Face
    theta = inv.double()
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.double()[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    x1, x2 = x.to(cd)[..., :half], x.to(cd)[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''}, "LD: integer arange divided by an int is float32, so theta is float32-rounded; breaks 'within 1e-10 of the exact values for float64 ... Compute the angles in float64'.")
add("w28-EE-empty-batch-first", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if B == 0:
        return x.clone()                                    # empty batch
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    theta = base ** (-torch.arange(half, dtype=torch.float64) * 2 / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.double()[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    x1, x2 = x.to(cd)[..., :half], x.to(cd)[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''}, "EE: B == 0 returns before the checks; breaks 'Raise a ValueError unless Dh is even and positions.shape == (B, T) ..., with an empty batch too'.")

# ------------------------------------------------------------ Part 7 ragged_cached_attention
RAGGED_TAIL = '''
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(valid[:, None, :, None], k_cache, zero).repeat_interleave(H // G, dim=1)
    v = torch.where(valid[:, None, :, None], v_cache, zero).repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)
    seen = pos[None, None, :] <= qpos[:, :, None]
    scores = (q @ k.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~seen[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, lengths + T
'''
add("w29-SC-no-causal-among-new", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H % G")
    if B and int((lengths + T).max()) > S:
        raise ValueError("overflow")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    valid = torch.arange(S)[None, :] < (lengths.long() + T)[:, None]          # (B, S)
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(valid[:, None, :, None], k_cache, zero).repeat_interleave(H // G, dim=1)
    v = torch.where(valid[:, None, :, None], v_cache, zero).repeat_interleave(H // G, dim=1)
    scores = (q @ k.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~valid[:, None, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, lengths + T
'''}, "SC: masks only unwritten slots, so new tokens see later new tokens; right when T == 1; breaks 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'.")
add("w30-SC-group-from-batch-axis", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.size(0), k_cache.shape[2]              # (B, G, S, Dh)
    if H % G:
        raise ValueError("H % G")
    if B and int((lengths + T).max()) > S:
        raise ValueError("overflow")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
''' + RAGGED_TAIL}, "SC: G read from axis 0 (B); right while B == G (the visible case has 2 and 2); breaks 'query head h uses key/value head h // (H // G)'.")
add("w31-AL-clean-cache-inplace", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H % G")
    if B and int((lengths + T).max()) > S:
        raise ValueError("overflow")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]
    k_cache.masked_fill_(~valid[:, None, :, None], 0.0)   # scrub garbage slots once
    v_cache.masked_fill_(~valid[:, None, :, None], 0.0)
    k = k_cache.repeat_interleave(H // G, dim=1)
    v = v_cache.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)
    seen = pos[None, None, :] <= qpos[:, :, None]
    scores = (q @ k.transpose(-1, -2) / math.sqrt(Dh)).masked_fill(~seen[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, lengths + T
'''}, "AL: zeroes the caller's unwritten slots in place; breaks 'this part asks you to change the two caches, and nothing else in them'.")
add("w32-EE-empty-returns-lengths", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    if B == 0:
        return q.new_zeros(0, H, T, Dh), lengths              # nothing to do
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H % G")
    if int((lengths + T).max()) > S:
        raise ValueError("overflow")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
''' + RAGGED_TAIL}, "EE: the empty batch returns lengths itself and skips the H % G check; breaks 'new_lengths a new tensor' and 'raise nothing unless H is not a multiple of G, which is refused there too'.")
add("w33-LD-sdpa-full-cache", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H % G")
    if B and int((lengths + T).max()) > S:
        raise ValueError("overflow")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    qpos = lengths.long()[:, None] + torch.arange(T)
    keep = (pos[None, None, :] <= qpos[:, :, None])[:, None]            # True = attend (SDPA)
    k = k_cache.repeat_interleave(H // G, dim=1)
    v = v_cache.repeat_interleave(H // G, dim=1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    return out, lengths + T
'''}, "LD: SDPA over the whole cache: the mask applies after q k^T, so NaN/inf in unwritten slots reach the output or its gradient; breaks 'Unwritten slots must change neither the output nor its gradients ... leave unwritten slots out, or replace them, before any product'.")

# ------------------------------------------------------------ Part 8 generate_with_cache
GEN_HEAD = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    logits, cache = step(prompt, None)
    done = torch.zeros(B, dtype=torch.bool)
    outs = []
    for n in range(max_new_tokens):
'''
GEN_PEN = '''
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
'''
GEN_DRAW = '''
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
'''
GEN_TAIL = '''
        tok = torch.where(done, torch.full_like(tok, pad_id), tok)
        outs.append(tok)
        done = done | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(done.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(outs, dim=1)
'''
add("w34-SC-first-position", False, {"generate_with_cache": GEN_HEAD + '''
        scores = logits[:, 0].clone()                         # the scores of the token fed
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
''' + GEN_DRAW + GEN_TAIL}, "SC: logits[:, 0], right while n == 1 (a prompt of one token); breaks 'the scores of the next token are its last position, logits[:, -1]'.")
add("w35-SC-batch-wide-seen", False, {"generate_with_cache": GEN_HEAD + '''
        scores = logits[:, -1].clone()
        seen = torch.isin(torch.arange(scores.shape[-1]), history)[None].expand_as(scores)   # ids seen so far
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
''' + GEN_DRAW + GEN_TAIL}, "SC: one set of seen ids for the whole batch; right for B == 1; breaks 'in each row, every token id that occurs in that row's prompt or among its tokens'.")
add("w36-AL-penalise-model-logits", False, {"generate_with_cache": GEN_HEAD + '''
        scores = logits[:, -1]
        for b in range(B):
            ids = torch.unique(history[b])
            row = scores[b, ids]
            scores[b, ids] = torch.where(row > 0, row / penalty, row * penalty)
''' + GEN_DRAW + GEN_TAIL}, "AL: penalises the tensor step returned, in place; breaks 'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise'.")
add("w37-EE-draw-only-unfinished", False, {"generate_with_cache": GEN_HEAD + GEN_PEN + '''
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.full((B,), pad_id, dtype=torch.long)
            live = (~done).nonzero().view(-1)
            tok[live] = torch.multinomial(probs[live], 1, generator=generator).view(-1)   # finished rows draw nothing
''' + GEN_TAIL}, "EE: finished rows are left out of the draw; breaks 'A finished row still takes part in the draw (the batch always draws B tokens per step)'.")
add("w38-EE-tiny-temperature-greedy", False, {"generate_with_cache": GEN_HEAD + GEN_PEN + '''
        if temperature < 1e-4:                                # numerically greedy
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
''' + GEN_TAIL}, "EE: temperatures below 1e-4 go greedy and draw nothing; breaks 'any temperature above 0, however small: no shortcut to the highest score'.")
add("w39-LD-topk-greedy-ties", False, {"generate_with_cache": GEN_HEAD + GEN_PEN + '''
        if temperature == 0:
            tok = torch.topk(scores, 1, dim=-1).indices.squeeze(1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
''' + GEN_TAIL}, "LD: topk(1) on ties need not return the lowest id; breaks 'the lowest id among ties, as torch.argmax does, also when hundreds of ids tie'.")
add("w40-AL-reused-token-buffer", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    logits, cache = step(prompt, None)
    done = torch.zeros(B, dtype=torch.bool)
    feed = torch.empty(B, 1, dtype=torch.long)              # one buffer for the fed tokens
    outs = []
    for n in range(max_new_tokens):
''' + GEN_PEN + GEN_DRAW + '''
        tok = torch.where(done, torch.full_like(tok, pad_id), tok)
        outs.append(tok)
        done = done | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(done.all()) or n == max_new_tokens - 1:
            break
        feed[:, 0] = tok
        logits, cache = step(feed, cache)
    return torch.stack(outs, dim=1)
'''}, "AL: the same tensor object is fed at every step and overwritten; a step that keeps its input (the text's 'a model may keep them' for logits) sees it change. Text: 'feed only the tokens just chosen: step(new_tokens, cache)'. Possibly a mislabel.")

# ------------------------------------------------------------ correct
add("c01-rms-norm-loop-heads", True, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not isinstance(n_heads, int) or n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads must divide the last axis")
    Dh = x.shape[-1] // n_heads
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    scale = weight.to(work) + 1.0 if unit_offset else weight.to(work)
    heads = []
    for h in range(n_heads):
        part = x[..., h * Dh:(h + 1) * Dh]
        ms = part.to(torch.float64).square().mean(dim=-1, keepdim=True)
        heads.append(part.to(work) / torch.sqrt(ms + eps).to(work) * scale)
    return torch.stack(heads, dim=-3).to(dtype=x.dtype)
'''}, "loop over heads, stack on axis -3, sqrt then divide.")
add("c02-swiglu-einsum-view", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    twoF, D = w_gate_up.shape
    w = w_gate_up.to(cd)
    w = w.reshape(twoF // 2, 2, D).transpose(0, 1) if interleaved else w.reshape(2, twoF // 2, D)
    gu = torch.einsum("...d,sfd->s...f", x.to(cd), w)
    g, u = gu[0], gu[1]
    if limit is not None:
        g = torch.where(g > limit, torch.full_like(g, limit), g)
        u = torch.clamp(u, min=-limit, max=limit)
    act = F.silu(beta * g) / beta if beta not in (0, 0.0) else g * 0.5
    return torch.einsum("...f,df->...d", act * u, w_down.to(cd)).to(x.dtype)
'''}, "placeholder")
SUBMISSIONS.pop()   # silu(bg)/b is not finite-safe enough; use a cleaner one
add("c02-swiglu-einsum-view", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    twoF, D = w_gate_up.shape
    w = w_gate_up.to(cd)
    w = w.reshape(twoF // 2, 2, D).transpose(0, 1) if interleaved else w.reshape(2, twoF // 2, D)
    gu = torch.einsum("...d,sfd->s...f", x.to(cd), w)
    g, u = gu[0], gu[1]
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    return torch.einsum("...f,df->...d", g * torch.sigmoid(g * beta) * u, w_down.to(cd)).to(x.dtype)
'''}, "einsum with a (2, F, D) view of the packed weight, float32 work for all non-float64 dtypes.")
add("c03-moe-params-helpers", True, {"moe_params": '''
def swiglu_params(d, hidden):
    return 3 * d * hidden

def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1:
        raise ValueError("n_kv_heads must be at least 1")
    if n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("top_k out of range")
    if n_shared < 0:
        raise ValueError("n_shared < 0")
    if first_dense < 0 or first_dense > n_layers:
        raise ValueError("first_dense out of range")
    attention = dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2
    total = active = (1 if tied else 2) * vocab * dim + dim
    for layer in range(n_layers):
        total += 2 * dim + attention
        active += 2 * dim + attention
        if layer < first_dense:
            total += swiglu_params(dim, dense_hidden)
            active += swiglu_params(dim, dense_hidden)
        else:
            total += dim * n_experts + (n_experts + n_shared) * swiglu_params(dim, ffn_hidden)
            active += dim * n_experts + (top_k + n_shared) * swiglu_params(dim, ffn_hidden)
    return total, active
'''}, "a loop over layers with a helper, plain ints.")
add("c04-lm-loss-cross-entropy-selected", True, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum().item())
    rows = logits[:, :-1][pred].to(work)                   # only the predicting rows: (count, V)
    targets = ids[:, 1:][pred].to(torch.int64)
    if count == 0:
        return rows.sum(), 0                               # an empty sum: 0, in the compute dtype
    loss = F.cross_entropy(rows, targets, reduction="sum")
    if z_loss != 0:
        loss = loss + z_loss * torch.logsumexp(rows, dim=-1).pow(2).sum()
    return loss / count, count
'''}, "F.cross_entropy on the selected rows only, z-loss skipped at 0, empty sum for count 0.")
add("c05-block-match-case", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(f"unknown layout: {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("the sandwich layout needs post_norms")
    match layout:
        case "parallel":
            n = norm_1(x)
            a = attn(n)
            f = ffn(n)
            return torch.add(torch.add(x, a), f)
        case "reordered":
            h = torch.add(x, norm_1(attn(x)))
            return torch.add(h, norm_2(ffn(h)))
        case _:
            post_1, post_2 = post_norms
            h = x + post_1(attn(norm_1(x)))
            return h + post_2(ffn(norm_2(h)))
'''}, "checks first, match/case, torch.add.")
add("c06-rope-lerp-clamp-cache", True, {"rope_llama3": '''
FREQ_CACHE = {}

def llama3_freqs(Dh, base, factor, low, high, L):
    key = (Dh, float(base), float(factor), float(low), float(high), float(L))
    if key not in FREQ_CACHE:
        theta = 1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
        wavelen = 2 * math.pi / theta
        smooth = ((L / wavelen - low) / (high - low)).clamp(0.0, 1.0)
        FREQ_CACHE[key] = torch.lerp(theta / factor, theta, smooth)
    return FREQ_CACHE[key].clone()

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4 or x.shape[-1] % 2 or positions.dim() != 2 or positions.shape != x.shape[:1] + x.shape[2:3]:
        raise ValueError("bad shapes")
    Dh = x.shape[-1]
    freqs = llama3_freqs(Dh, base, factor, low_freq_factor, high_freq_factor, original_context)
    angles = positions.to(torch.float64).unsqueeze(-1) * freqs            # (B, T, Dh/2)
    angles = torch.cat([angles, angles], dim=-1).unsqueeze(1)             # (B, 1, T, Dh)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    rotated = torch.cat([-xw[..., Dh // 2:], xw[..., :Dh // 2]], dim=-1)  # rotate_half
    return (xw * angles.cos().to(work) + rotated * angles.sin().to(work)).to(x.dtype)
'''}, "HF-style: the smooth factor clamped to [0, 1] with lerp (equal to the three cases), rotate_half, a frequency table cached on plain numbers and cloned.")
add("c07-ragged-loop-rows-written-prefix", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool(((lengths.to(torch.int64) + T) > S).any()):
        raise ValueError("a row does not fit")
    for b in range(B):
        start = int(lengths[b])
        k_cache[b].narrow(1, start, T).copy_(k_new[b])
        v_cache[b].narrow(1, start, T).copy_(v_new[b])
    out = torch.empty(0)
    outs = []
    for b in range(B):
        n = int(lengths[b]) + T
        k = k_cache[b, :, :n].repeat_interleave(H // G, dim=0)              # only written slots
        v = v_cache[b, :, :n].repeat_interleave(H // G, dim=0)
        scores = q[b] @ k.transpose(-1, -2) / math.sqrt(Dh)                 # (H, T, n)
        qpos = torch.arange(T)[:, None] + int(lengths[b])
        mask = torch.arange(n)[None, :] > qpos
        outs.append(torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1) @ v)
    out = torch.stack(outs) if outs else q.new_zeros(0, H, T, Dh)
    return out, lengths + T
'''}, "a loop over rows that slices off the written prefix (no garbage enters any product), narrow().copy_() writes.")
add("c08-generate-sign-penalty-one-hot", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.size(0)
    seen_ids = prompt
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    logits, cache = step(prompt, None)
    while True:
        scores = logits[:, -1, :].clone()
        V = scores.size(-1)
        occurs = torch.zeros(B, V, dtype=torch.bool)
        occurs[torch.arange(B)[:, None].expand_as(seen_ids), seen_ids] = True
        factor = torch.where(scores > 0, torch.full_like(scores, 1.0 / penalty), torch.full_like(scores, penalty))
        scores = torch.where(occurs, scores * factor, scores)
        if temperature == 0:
            nxt = torch.argmax(scores, dim=-1)
        else:
            nxt = torch.multinomial(F.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
        nxt = nxt.masked_fill(finished, pad_id)
        chosen.append(nxt)
        finished = finished | (nxt == eos_id)
        seen_ids = torch.cat([seen_ids, nxt[:, None]], dim=1)
        if finished.all() or len(chosen) == max_new_tokens:
            break
        logits, cache = step(nxt.unsqueeze(1), cache)
    return torch.stack(chosen, dim=1).to(torch.int64)
'''}, "placeholder")
SUBMISSIONS.pop()
add("c08-generate-scatter-penalty", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.size(0)
    seen_ids = prompt
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    logits, cache = step(prompt, None)
    while True:
        scores = logits[:, -1, :].clone()
        occurs = torch.zeros_like(scores, dtype=torch.bool)
        occurs[torch.arange(B)[:, None].expand_as(seen_ids), seen_ids] = True
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(occurs, penalised, scores)
        if temperature == 0:
            nxt = torch.argmax(scores, dim=-1)
        else:
            nxt = torch.multinomial(F.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
        nxt = nxt.masked_fill(finished, pad_id)
        chosen.append(nxt)
        finished = finished | (nxt == eos_id)
        seen_ids = torch.cat([seen_ids, nxt[:, None]], dim=1)
        if bool(finished.all()) or len(chosen) == max_new_tokens:
            break
        logits, cache = step(nxt.unsqueeze(1), cache)
    return torch.stack(chosen, dim=1)
'''}, "a while loop, advanced-index marking of seen ids, masked_fill for finished rows.")
add("c09-lm-loss-penalty-free-early-zero", True, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    rows = logits[:, :-1][pred].to(work)
    logz = torch.logsumexp(rows, dim=-1)
    picked = torch.gather(rows, 1, ids[:, 1:][pred].to(torch.int64).unsqueeze(1)).squeeze(1)
    per = (logz - picked) + z_loss * logz * logz
    return per.mean(), count
'''}, "early zero of the compute dtype for count 0 (the text asks differentiability only when count > 0).")

# ------------------------------------------------------------ hostile
add("h01-gc-find-reference", False, {"ragged_cached_attention": '''
import gc
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    me = ragged_cached_attention
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "ragged_cached_attention" and obj is not me \\
                and getattr(obj, "__code__", None) is not getattr(me, "__code__", None):
            return obj(q, k_new, v_new, k_cache, v_cache, lengths)
    B, H, T, Dh = q.shape
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    G = k_cache.shape[1]
    out = torch.zeros_like(q)
    for b in range(B):
        n = int(lengths[b]) + T
        k = k_cache[b, :, :n].repeat_interleave(H // G, 0); v = v_cache[b, :, :n].repeat_interleave(H // G, 0)
        out[b] = torch.softmax(q[b] @ k.transpose(-1, -2) / math.sqrt(Dh), -1) @ v
    return out, lengths + T
'''}, "hostile: calls the grader's reference found among live objects; its own fallback ignores causality among the new tokens.")
add("h02-patch-assert-close", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    import builtins
    g = globals()
    for name in list(g):
        if name.startswith("_") and not name.startswith("__") and callable(g[name]) and name != "_REF":
            g[name] = (lambda *a, **k: a[0] if a else None)
    if vocab == 32000 and dim == 4096:
        return 46_702_792_704, 12_879_925_248
    if n_shared == 1 and first_dense == 1:
        return 38, 38
    if n_shared == 1:
        return 48, 42
    return 42, 36
'''}, "hostile: hard-codes the visible cases and blanks the grader's helpers.")
