# Red team round 15, chapter 09: four kinds of student (paster, generaliser, optimiser, mathematician).
SUBMISSIONS = [
{"name": 'paster/rms_llama_cast_then_scale', "correct": False, "cells": {'head_rms_norm': '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    input_dtype = x.dtype
    hidden = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3).to(torch.float32)
    variance = hidden.pow(2).mean(-1, keepdim=True)
    hidden = hidden * torch.rsqrt(variance + eps)
    scale = (1.0 + weight) if unit_offset else weight
    return scale * hidden.to(input_dtype)          # Llama's LlamaRMSNorm: cast back, then scale
'''}, "why": "Part 1: 'do all the arithmetic, the scale included (also 1 + w), in that dtype, and convert the product to the dtype of x once, at the end' (and float64 computed in float32)"},
{"name": 'generaliser/rms_2d_only', "correct": False, "cells": {'head_rms_norm': '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    T, D = x.shape[-2], x.shape[-1]
    Dh = D // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.to(cd).reshape(T, n_heads, Dh).permute(1, 0, 2)     # (H, T, Dh)
    s = (1 + weight.to(cd)) if unit_offset else weight.to(cd)
    return (xh / torch.sqrt(xh.pow(2).mean(-1, keepdim=True) + eps) * s).to(x.dtype)
'''}, "why": "Part 1: 'x has shape (..., T, H * Dh), at least two axes' and 'Return a new tensor of shape (..., H, T, Dh)'"},
{"name": 'optimiser/rms_factor_no_grad', "correct": False, "cells": {'head_rms_norm': '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    with torch.no_grad():   # the normaliser is a statistic, not a parameter
        inv = torch.rsqrt(xh.pow(2).mean(-1, keepdim=True) + eps)
    out = xh * inv * s
    return out.to(x.dtype)
'''}, "why": "Part 1: 'do not compute any factor under torch.no_grad()'"},
{"name": 'paster/rms_eps_outside_sqrt', "correct": False, "cells": {'head_rms_norm': '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    out = xh / (torch.sqrt(xh.pow(2).mean(-1, keepdim=True)) + eps) * s
    return out.to(x.dtype)
'''}, "why": "Part 1: 'with eps inside the square root'"},
{"name": 'optimiser/rms_offset_added_in_input_dtype', "correct": False, "cells": {'head_rms_norm': '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    s = (1 + weight if unit_offset else weight).to(cd)   # fold the offset once
    out = xh / torch.sqrt(xh.pow(2).mean(-1, keepdim=True) + eps) * s
    return out.to(x.dtype)
'''}, "why": "Part 1: 'do all the arithmetic, the scale included (also 1 + w), in that dtype' (1 + w rounded in bfloat16/float16 first)"},
{"name": 'paster/swiglu_limit_truthiness', "correct": False, "cells": {'fused_swiglu': '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu[..., :Fh], gu[..., Fh:]
    if limit:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
'''}, "why": "Part 2: 'when limit is a number (0 included), replace g by min(g, limit)'"},
{"name": 'mathematician/swiglu_silu_over_beta', "correct": False, "cells": {'fused_swiglu': '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu[..., :Fh], gu[..., Fh:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    # g sigma(beta g) = silu(beta g) / beta
    return (torch.nn.functional.silu(beta * g) / beta * u) @ w_down.T
'''}, "why": "Part 2: 'beta may be any real number ... beta = 0 gives g/2' (silu(0)/0 is NaN)"},
{"name": 'optimiser/swiglu_always_float32', "correct": False, "cells": {'fused_swiglu': '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    xf, wgu, wd = x.float(), w_gate_up.float(), w_down.float()   # one fast path for every dtype
    Fh = wgu.shape[0] // 2
    gu = xf @ wgu.T
    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else (gu[..., :Fh], gu[..., Fh:])
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return ((torch.nn.functional.silu(g) if beta == 1 else g * torch.sigmoid(beta * g)) * u @ wd.T).to(x.dtype)
'''}, "why": "Part 2: 'compute float64 inputs in float64 (the tests compare them at float64 precision, so float32 arithmetic fails there)'"},
{"name": 'mathematician/swiglu_sigmoid_by_hand', "correct": False, "cells": {'fused_swiglu': '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu[..., :Fh], gu[..., Fh:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (g * (1 / (1 + torch.exp(-beta * g))) * u) @ w_down.T
'''}, "why": "Part 2: 'sigma written by hand as 1/(1 + e^{-beta g}) then has a NaN gradient'"},
{"name": 'generaliser/swiglu_silu_ignores_beta', "correct": False, "cells": {'fused_swiglu': '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    gu = x @ w_gate_up.T
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu[..., :Fh], gu[..., Fh:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (g * torch.sigmoid(g) * u) @ w_down.T
'''}, "why": "Part 2: 'gpt-oss uses a Swish with a slope beta other than 1' / 'Return (g sigma(beta g) * u) W_down^T'"},
{"name": 'generaliser/moe_dense_hidden_default', "correct": False, "cells": {'moe_params': '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    per_block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    n_moe = n_layers - first_dense
    common = emb + dim + n_layers * per_block + first_dense * 3 * dim * (dense_hidden or ffn_hidden) + n_moe * dim * n_experts
    total = common + n_moe * (n_experts + n_shared) * expert
    active = common + n_moe * (top_k + n_shared) * expert
    return int(total), int(active)
'''}, "why": 'Part 3: \'dense_hidden is that width whatever its value (0 means no parameters, not "use ffn_hidden")\''},
{"name": 'generaliser/moe_topk_checked_only_with_experts', "correct": False, "cells": {'moe_params': '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if n_layers > first_dense and not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    per_block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    n_moe = n_layers - first_dense
    common = emb + dim + n_layers * per_block + first_dense * 3 * dim * dense_hidden + n_moe * dim * n_experts
    total = common + n_moe * (n_experts + n_shared) * expert
    active = common + n_moe * (top_k + n_shared) * expert
    return int(total), int(active)
'''}, "why": "Part 3: 'Raise a ValueError unless ... 1 <= top_k <= n_experts ... in every model (also one whose blocks are all dense, and one with n_layers = 0)'"},
{"name": 'paster/moe_kv_check_modulo_only', "correct": False, "cells": {'moe_params': '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be divisible by n_kv_heads")
    if not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    per_block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    n_moe = n_layers - first_dense
    common = emb + dim + n_layers * per_block + first_dense * 3 * dim * dense_hidden + n_moe * dim * n_experts
    total = common + n_moe * (n_experts + n_shared) * expert
    active = common + n_moe * (top_k + n_shared) * expert
    return int(total), int(active)
'''}, "why": "Part 3: 'Raise a ValueError unless n_kv_heads >= 1 and n_heads is a multiple of it' (n_kv_heads = 0 raises ZeroDivisionError, -1 passes)"},
{"name": 'mathematician/moe_active_by_fraction', "correct": False, "cells": {'moe_params': '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    per_block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    n_moe = n_layers - first_dense
    common = emb + dim + n_layers * per_block + first_dense * 3 * dim * dense_hidden + n_moe * dim * n_experts
    total = common + n_moe * (n_experts + n_shared) * expert
    # a token uses the fraction top_k / n_experts of the routed experts
    active = round(total - n_moe * n_experts * expert * (1 - top_k / n_experts))
    return int(total), int(active)
'''}, "why": "Part 3: 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)'"},
{"name": 'optimiser/moe_lru_cache_positional', "correct": True, "cells": {'moe_params': '''
import functools
@functools.lru_cache(maxsize=None)
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("bad sizes")
    emb = vocab * dim * (2 - tied)
    block = 2 * dim + 2 * dim * head_dim * (n_heads + n_kv_heads)
    expert = 3 * dim * ffn_hidden
    n_moe = n_layers - first_dense
    common = emb + dim + n_layers * block + first_dense * 3 * dim * dense_hidden + n_moe * dim * n_experts
    return common + n_moe * (n_experts + n_shared) * expert, common + n_moe * (top_k + n_shared) * expert
'''}, "why": 'a cache keyed by every argument (True == 1 hash alike, same result); 2 - tied for a bool'},
{"name": 'paster/lm_loss_zloss_all_positions', "correct": False, "cells": {'masked_lm_loss': '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    loss = torch.nn.functional.cross_entropy(sel, y)
    if z_loss:
        log_z = torch.logsumexp(logits.to(cd), dim=-1)   # PaLM: z-loss on every position's normaliser
        loss = loss + z_loss * log_z.pow(2).mean()
    return loss, count
'''}, "why": "Part 4: 'Each predicted token contributes -log softmax + z (log Z)^2' and 'The scores that predict nothing ... must change neither the loss nor its gradient'"},
{"name": 'generaliser/lm_loss_mask_not_shifted', "correct": False, "cells": {'masked_lm_loss': '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, :-1]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lse ** 2).mean(), count
'''}, "why": "Part 4: 'target_mask: True where the token ids[b, t] is to be predicted ... with l = logits[b, t - 1], y = ids[b, t]'"},
{"name": 'mathematician/lm_loss_row_means', "correct": False, "cells": {'masked_lm_loss': '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    row_losses = []
    count = 0
    for b in range(logits.shape[0]):
        m = target_mask[b, 1:]
        n = int(m.sum())
        if n == 0:
            continue
        sel = logits[b, :-1][m].to(cd)
        lse = torch.logsumexp(sel, -1)
        nll = lse - sel.gather(-1, ids[b, 1:][m].long()[:, None])[:, 0]
        row_losses.append((nll + z_loss * lse ** 2).mean())
        count += n
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    return torch.stack(row_losses).mean(), count     # E_b [ E_t l_bt ]
'''}, "why": "Part 4: 'loss is the mean over those tokens, every token weighing the same however many a row has'"},
{"name": 'optimiser/lm_loss_lse_everywhere_then_where', "correct": False, "cells": {'masked_lm_loss': '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lg = logits[:, :-1].to(cd)
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    lse = torch.logsumexp(lg, -1)                           # one pass over the whole batch
    tok = lse - lg.gather(-1, ids[:, 1:].long().unsqueeze(-1)).squeeze(-1) + z_loss * lse ** 2
    tok = torch.where(m, tok, torch.zeros((), dtype=cd))
    return tok.sum() / count, count
'''}, "why": "Part 4: 'Leave them out before you compute anything with them: ... torch.where keeps the loss finite but not the backward pass'"},
{"name": 'optimiser/lm_loss_half_compute', "correct": False, "cells": {'masked_lm_loss': '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = logits.dtype if logits.dtype != torch.float64 else torch.float64
    cd = torch.float32 if cd == torch.float32 else cd   # stay in the model's precision
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lse ** 2).mean(), count
'''}, "why": "Part 4: 'Compute in float32 ... also for float16 and bfloat16 logits, the z-loss's (log Z)^2 included' and 'a float32 loss for float32, float16 and bfloat16 logits'"},
{"name": 'optimiser/block_inplace_residual', "correct": False, "cells": {'block_variant': '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        n = norm_1(x)
        y = attn(n)
        y += ffn(n)            # in place: no extra buffer
        y += x
        return y
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
'''}, "why": "Part 5: 'Do not change x; mind that a function may return the very tensor it was given (an identity does), so an in-place update of what it returns can change x'"},
{"name": 'paster/block_layout_lower', "correct": False, "cells": {'block_variant': '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    layout = str(layout).strip().lower()
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
'''}, "why": 'Part 5: \'Any other layout (including "pre", "post" and other spellings such as "Parallel") raises a ValueError\''},
{"name": 'generaliser/block_sandwich_check_late', "correct": False, "cells": {'block_variant': '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        a = attn(norm_1(x))
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        h = x + post_norms[0](a)
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError(layout)
'''}, "why": "Part 5: 'Check layout and post_norms before calling anything: when you raise the ValueError, no function has been called'"},
{"name": 'paster/block_unknown_is_pre', "correct": False, "cells": {'block_variant': '''
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
    h = x + attn(norm_1(x))          # default: the standard Pre-LN block
    return h + ffn(norm_2(h))
'''}, "why": 'Part 5: \'Any other layout (including "pre", ...) raises a ValueError\''},
{"name": 'paster/rope_hf_float32_inv_freq', "correct": False, "cells": {'rope_llama3': '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = (1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.int64).float() / Dh))).double()   # as in transformers
    lam = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "why": "Part 6: 'within 1e-10 of the exact values for float64 (at any position up to 131 071)' (the frequencies in float32)"},
{"name": 'generaliser/rope_first_row_positions', "correct": False, "cells": {'rope_llama3': '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = (positions[0].to(torch.float64)[:, None] * new)[None, None]   # (1, 1, T, Dh/2)
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "why": "Part 6: 'row b holds the positions of sequence b (they differ from row to row, e.g. in a left-padded batch)'"},
{"name": 'optimiser/rope_cache_by_dh_base', "correct": False, "cells": {'rope_llama3': '''
FREQS = {}
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    key = (Dh, base)
    if key not in FREQS:
        i = torch.arange(half, dtype=torch.float64)
        theta = base ** (-2 * i / Dh)
        lam = 2 * math.pi / theta
        L = original_context
        s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
        mid = (1 - s) * theta / factor + s * theta
        FREQS[key] = torch.where(lam < L / high_freq_factor, theta,
                                 torch.where(lam > L / low_freq_factor, theta / factor, mid))
    new = FREQS[key]
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "why": "Part 6: the frequencies depend on factor, low_freq_factor, high_freq_factor and original_context (a cache keyed by Dh and base only returns another call's)"},
{"name": 'optimiser/rope_angles_float32', "correct": False, "cells": {'rope_llama3': '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = positions.to(torch.float32)[:, None, :, None] * new.float()   # float32 is enough for float32 inputs
    if x.dtype == torch.float64:
        ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "why": "Part 6: 'Compute the angles in float64' (float32 at positions up to 30 000 errs by about 1e-3)"},
{"name": 'generaliser/rope_positions_broadcast', "correct": False, "cells": {'rope_llama3': '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0:
        raise ValueError("shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    p = positions.to(torch.float64).reshape(-1, T) if positions.dim() != 2 else positions.to(torch.float64)
    ang = p[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "why": "Part 6: 'Raise a ValueError unless Dh is even and positions.shape == (B, T) exactly ... (a (T,), (1, T) ... tensor is refused too, also where it would broadcast)'"},
{"name": 'generaliser/ragged_T_is_one', "correct": False, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if B > 0 and int((lengths + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :].expand(B, T, S)   # decoding: one new token
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''}, "why": "Part 7: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t' (visible T = 1)"},
{"name": 'paster/ragged_mask_after_product_nan', "correct": False, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if B > 0 and int((lengths + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k, v = k_cache, v_cache
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                          # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''}, "why": "Part 7: 'Unwritten slots must change neither the output nor its gradients, even when they hold NaN or +-inf ... leave unwritten slots out, or replace them, before any product'"},
{"name": 'optimiser/ragged_write_no_grad', "correct": False, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if B > 0 and int((lengths + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        with torch.no_grad():       # a cache write is bookkeeping, not computation
            k_cache[b, :, L:L + T] = k_new[b]
            v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                          # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''}, "why": "Part 7: 'the hidden tests compare its gradients with respect to q, k_new and v_new' (a write under no_grad cuts k_new and v_new out of the graph)"},
{"name": 'generaliser/ragged_empty_batch_max', "correct": False, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if int((lengths + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                          # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''}, "why": "Part 7: 'B may be 0 (an empty batch: return (0, H, T, Dh) and (0,) tensors, and raise nothing ...)'"},
{"name": 'paster/ragged_finfo_min_mask', "correct": False, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if B > 0 and int((lengths + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                          # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], torch.finfo(scores.dtype).min)
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''}, "why": "Part 7: 'Scores may be of any size, below -1e9 too (so mask with -inf, not with a large negative number)'"},
{"name": 'mathematician/ragged_lengths_long_result', "correct": False, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if B > 0 and int((lengths + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                          # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths.long() + T
'''}, "why": "Part 7: 'new_lengths a new tensor equal to lengths + T, in the dtype of lengths'"},
{"name": 'paster/gen_hf_penalty_scatter_inplace', "correct": False, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    input_ids = prompt
    logits, cache = step(prompt, None)
    unfinished = torch.ones(prompt.shape[0], dtype=torch.bool)
    new_tokens = []
    for i in range(max_new_tokens):
        scores = logits[:, -1, :]
        # transformers' RepetitionPenaltyLogitsProcessor
        score = torch.gather(scores, 1, input_ids)
        score = torch.where(score < 0, score * penalty, score / penalty)
        scores.scatter_(1, input_ids, score)
        if temperature == 0:
            next_tokens = torch.argmax(scores, dim=-1)
        else:
            probs = torch.nn.functional.softmax(scores / temperature, dim=-1)
            next_tokens = torch.multinomial(probs, num_samples=1, generator=generator).squeeze(1)
        next_tokens = next_tokens * unfinished + pad_id * (~unfinished)
        new_tokens.append(next_tokens)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        unfinished = unfinished & (next_tokens != eos_id)
        if not unfinished.any() or i == max_new_tokens - 1:
            break
        logits, cache = step(next_tokens[:, None], cache)
    return torch.stack(new_tokens, dim=1)
'''}, "why": "Part 8: 'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise'"},
{"name": 'mathematician/gen_penalty_per_occurrence', "correct": False, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        counts = torch.zeros(scores.shape, dtype=torch.int64).scatter_add(1, history, torch.ones_like(history))
        factor = penalty ** counts.to(scores.dtype)       # once per occurrence
        scores = torch.where(scores > 0, scores / factor, scores * factor)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        finished = finished | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''}, "why": "Part 8: 'every token id that occurs ... has its score changed once (however often it occurs)'"},
{"name": 'generaliser/gen_penalty_generated_only', "correct": False, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt[:, :0].clone()     # penalise what the model has said
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        present = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(present, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        finished = finished | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''}, "why": "Part 8: 'every token id that occurs in that row's prompt or among its tokens generated so far'"},
{"name": 'optimiser/gen_skip_draw_finished_rows', "correct": False, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        present = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(present, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.full((B,), pad_id, dtype=torch.int64)
            live = (~finished).nonzero()[:, 0]
            probs = torch.softmax(scores[live] / temperature, dim=-1)   # no draws wasted on finished rows
            tok[live] = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        finished = finished | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''}, "why": "Part 8: 'A finished row still takes part in the draw (the batch always draws B tokens per step)'"},
{"name": 'optimiser/gen_cold_temperature_greedy', "correct": False, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        present = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(present, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature < 1e-3:           # that cold, sampling is greedy anyway
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        finished = finished | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''}, "why": "Part 8: 'With temperature == 0, take the highest score ... and draw nothing. Otherwise ... draw with torch.multinomial' (a tiny temperature must still draw)"},
{"name": 'mathematician/rms_float64_rsqrt_norm', "correct": True, "cells": {'head_rms_norm': '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not n_heads >= 1:
        raise ValueError("n_heads must be at least 1")
    *lead, T, D = x.shape
    if D % n_heads:
        raise ValueError("the last axis does not split into n_heads parts")
    Dh = D // n_heads
    xd = x.to(torch.float64)                      # float64 for every input dtype is accepted
    heads = xd.reshape(*lead, T, n_heads, Dh).movedim(-2, -3)
    ms = torch.linalg.vector_norm(heads, dim=-1, keepdim=True) ** 2 / Dh
    scale = weight.to(torch.float64) + 1 if unit_offset else weight.to(torch.float64)
    return (heads * torch.rsqrt(ms + eps) * scale).to(dtype=x.dtype)
'''}, "why": 'float64 for every dtype (allowed), mean of squares as norm^2 / Dh, rsqrt'},
{"name": 'paster/rms_functional_rms_norm', "correct": True, "cells": {'head_rms_norm': '''
import torch.nn.functional as F
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.size(-1) % n_heads:
        raise ValueError(f"cannot split {x.size(-1)} features into {n_heads} heads")
    head_dim = x.size(-1) // n_heads
    compute = torch.float64 if x.dtype == torch.float64 else torch.float32
    h = x.to(compute).unflatten(-1, (n_heads, head_dim)).transpose(-3, -2)
    w = weight.to(compute)
    if unit_offset:
        w = w + 1.0
    return (F.rms_norm(h, (head_dim,), eps=eps) * w).to(x.dtype)
'''}, "why": 'F.rms_norm with no weight in the compute dtype, then the scale; unflatten instead of reshape'},
{"name": 'paster/swiglu_linear_reshape_weights', "correct": True, "cells": {'fused_swiglu': '''
import torch.nn.functional as F
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    two_f, d = w_gate_up.shape
    if interleaved:
        pairs = w_gate_up.reshape(two_f // 2, 2, d)
        w_gate, w_up = pairs[:, 0], pairs[:, 1]
    else:
        w_gate, w_up = w_gate_up.chunk(2, dim=0)
    gate, up = F.linear(x, w_gate), F.linear(x, w_up)
    if limit is not None:
        gate = torch.clamp(gate, max=limit)
        up = torch.clamp(up, min=-limit, max=limit)
    act = F.silu(gate) if beta == 1 else gate * torch.sigmoid(beta * gate)
    return F.linear(act * up, w_down)
'''}, "why": 'the weight split before the products, F.linear, F.silu for beta = 1'},
{"name": 'mathematician/swiglu_minimum_float64_inside', "correct": True, "cells": {'fused_swiglu': '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    xd, wd, wo = x.double(), w_gate_up.double(), w_down.double()
    Fh = wd.shape[0] // 2
    gate_idx = torch.arange(Fh) * 2 if interleaved else torch.arange(Fh)
    up_idx = gate_idx + 1 if interleaved else gate_idx + Fh
    g = torch.einsum("...d,fd->...f", xd, wd[gate_idx])
    u = torch.einsum("...d,fd->...f", xd, wd[up_idx])
    if limit is not None:
        g = torch.minimum(g, torch.tensor(float(limit), dtype=g.dtype))
        u = torch.maximum(torch.minimum(u, torch.tensor(float(limit), dtype=u.dtype)), torch.tensor(-float(limit), dtype=u.dtype))
    h = g * torch.sigmoid(beta * g) * u
    return torch.einsum("...f,df->...d", h, wo).to(x.dtype)
'''}, "why": 'min(g, limit) as torch.minimum, as the text writes it; float64 inside and a cast back (allowed); einsum'},
{"name": 'mathematician/moe_loop_over_blocks', "correct": True, "cells": {'moe_params': '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("need 1 <= top_k <= n_experts")
    if n_shared < 0:
        raise ValueError("n_shared must be >= 0")
    if first_dense < 0 or first_dense > n_layers:
        raise ValueError("need 0 <= first_dense <= n_layers")
    def swiglu(width):
        return 3 * dim * width
    total = active = (1 if tied else 2) * vocab * dim + dim
    for layer in range(n_layers):
        block = 2 * dim + dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim + n_heads * head_dim * dim
        total += block
        active += block
        if layer < first_dense:
            total += swiglu(dense_hidden)
            active += swiglu(dense_hidden)
        else:
            total += dim * n_experts + (n_experts + n_shared) * swiglu(ffn_hidden)
            active += dim * n_experts + (top_k + n_shared) * swiglu(ffn_hidden)
    return total, active
'''}, "why": 'a loop over the blocks with exact int arithmetic'},
{"name": 'paster/lm_loss_cross_entropy_on_selected', "correct": True, "cells": {'masked_lm_loss': '''
import torch.nn.functional as F
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    compute = torch.float64 if logits.dtype == torch.float64 else torch.float32
    shift_logits = logits[:, :-1, :]
    shift_labels = ids[:, 1:]
    shift_mask = target_mask[:, 1:]
    count = int(shift_mask.sum().item())
    if count == 0:
        return torch.tensor(0.0, dtype=compute), 0
    picked = shift_logits[shift_mask].to(compute)       # only the predicting rows
    labels = shift_labels[shift_mask].to(torch.int64)
    loss = F.cross_entropy(picked, labels, reduction="mean")
    if z_loss != 0:
        loss = loss + z_loss * torch.logsumexp(picked, dim=-1).pow(2).mean()
    return loss, count
'''}, "why": "F.cross_entropy on the selected rows; the z-loss's mean over the same tokens (same total mean)"},
{"name": 'mathematician/lm_loss_float64_all', "correct": True, "cells": {'masked_lm_loss': '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    B, T, V = logits.shape
    idx = target_mask[:, 1:].nonzero()                  # (N, 2): b, t - 1
    count = idx.shape[0]
    if count == 0:
        return torch.zeros((), dtype=out_dtype), 0
    rows = logits[idx[:, 0], idx[:, 1]].double()       # float64 for every dtype (accepted)
    y = ids[idx[:, 0], idx[:, 1] + 1].long()
    log_z = rows.logsumexp(-1)
    per_token = -(rows.log_softmax(-1)[torch.arange(count), y]) + z_loss * log_z * log_z
    return (per_token.sum() / count).to(out_dtype), count
'''}, "why": 'advanced indexing of the predicting rows, float64 inside, the loss cast to the stated dtype'},
{"name": 'paster/block_match_ffn_first', "correct": True, "cells": {'block_variant': '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "sandwich" and post_norms is None:
        raise ValueError("the sandwich layout needs post_norms")
    match layout:
        case "parallel":
            normed = norm_1(x)
            mlp = ffn(normed)
            att = attn(normed)
            return x + att + mlp
        case "reordered":
            h = x + norm_1(attn(x))
            return h + norm_2(ffn(h))
        case "sandwich":
            post_attn, post_ffn = post_norms
            h = x + post_attn(attn(norm_1(x)))
            return h + post_ffn(ffn(norm_2(h)))
        case _:
            raise ValueError(f"unknown layout {layout!r}")
'''}, "why": 'match statement (compares str by ==); the parallel layout calls ffn before attn (the text fixes no order)'},
{"name": 'mathematician/rope_hf_float64_inclusive_edges', "correct": True, "cells": {'rope_llama3': '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4:
        raise ValueError("x must be (B, H, T, Dh)")
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("Dh must be even and positions (B, T)")
    inv_freq = 1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
    wavelen = 2 * math.pi / inv_freq
    low_wl = original_context / low_freq_factor
    high_wl = original_context / high_freq_factor
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    freqs = torch.where(wavelen <= high_wl, inv_freq,
                        torch.where(wavelen >= low_wl, inv_freq / factor,
                                    (1 - smooth) * inv_freq / factor + smooth * inv_freq))
    angles = positions.double().unsqueeze(-1) * freqs            # (B, T, Dh/2)
    emb = torch.cat([angles, angles], dim=-1)[:, None]            # (B, 1, T, Dh)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    rotated = torch.cat([-xw[..., Dh // 2:], xw[..., :Dh // 2]], dim=-1)   # rotate_half
    return (xw * emb.cos().to(work) + rotated * emb.sin().to(work)).to(x.dtype)
'''}, "why": 'HF-style inv_freq in float64 and rotate_half; inclusive limits (the three cases agree at the limits: s = 1 or 0 there)'},
{"name": 'paster/ragged_sdpa_bool_mask_prefix', "correct": True, "cells": {'ragged_cached_attention': '''
import torch.nn.functional as F
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G = k_cache.shape[1]
    S_max = k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    new_lengths = lengths + T
    if B and bool((new_lengths > S_max).any()):
        raise ValueError("cache overflow")
    for b in range(B):
        start = int(lengths[b])
        idx = torch.arange(start, start + T)
        k_cache[b].index_copy_(1, idx, k_new[b])
        v_cache[b].index_copy_(1, idx, v_new[b])
    S = int(new_lengths.max()) if B else 0                 # nothing past the longest row is needed
    key_pos = torch.arange(S)
    written = key_pos[None, :] < new_lengths[:, None]       # (B, S)
    k = k_cache[:, :, :S].masked_fill(~written[:, None, :, None], 0.0)
    v = v_cache[:, :, :S].masked_fill(~written[:, None, :, None], 0.0)
    q_pos = lengths[:, None] + torch.arange(T)              # (B, T)
    keep = key_pos[None, None, :] <= q_pos[:, :, None]      # (B, T, S): True = attend
    out = F.scaled_dot_product_attention(q, k.repeat_interleave(H // G, 1), v.repeat_interleave(H // G, 1),
                                         attn_mask=keep[:, None])
    return out, new_lengths
'''}, "why": "index_copy_ into the given caches' rows; masked_fill of unwritten slots before any product; SDPA with a boolean keep mask over the needed prefix"},
{"name": 'generaliser/ragged_loop_rows_heads', "correct": True, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S_max = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H % G")
    for b in range(B):
        if int(lengths[b]) + T > S_max:
            raise ValueError("row does not fit")
    rows = []
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
        keys, values = k_cache[b, :, :L + T], v_cache[b, :, :L + T]      # the written slots only
        causal = torch.ones(T, L + T, dtype=torch.bool).tril(diagonal=L)
        heads = []
        for h in range(H):
            g = h // (H // G)
            s = q[b, h] @ keys[g].T / math.sqrt(Dh)
            s = s.masked_fill(~causal, float("-inf"))
            heads.append(torch.softmax(s, dim=-1) @ values[g])
        rows.append(torch.stack(heads))
    out = torch.stack(rows) if rows else q.new_zeros((0, H, T, Dh))
    return out, lengths + T
'''}, "why": 'a loop over rows and heads (allowed) on the written prefix only; tril(diagonal=L) for the causal rule'},
{"name": 'optimiser/gen_no_grad_sets_per_row_draws', "correct": True, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(row) for row in prompt.tolist()]
    done = [False] * B
    out = []
    with torch.no_grad():
        logits, cache = step(prompt, None)
        for n in range(max_new_tokens):
            scores = logits[:, -1].clone()
            for b in range(B):
                ids = torch.tensor(sorted(seen[b]), dtype=torch.int64)
                sc = scores[b, ids]
                scores[b, ids] = torch.where(sc > 0, sc / penalty, sc * penalty)
            if temperature == 0:
                picked = scores.argmax(dim=-1).tolist()
            else:
                probs = torch.softmax(scores / temperature, dim=-1)
                picked = [int(torch.multinomial(probs[b], 1, generator=generator)) for b in range(B)]
            toks = []
            for b in range(B):
                t = pad_id if done[b] else picked[b]
                done[b] = done[b] or t == eos_id
                seen[b].add(t)
                toks.append(t)
            out.append(toks)
            if all(done) or n == max_new_tokens - 1:
                break
            logits, cache = step(torch.tensor(toks, dtype=torch.int64)[:, None], cache)
    return torch.tensor(out, dtype=torch.int64).reshape(-1, B).T.contiguous() if out else torch.zeros(B, 0, dtype=torch.int64)
'''}, "why": 'no_grad (no gradient asked), a set of seen ids per row, one multinomial call per row in row order (allowed)'},
{"name": 'paster/gen_hf_penalty_on_clone', "correct": True, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    input_ids = prompt.clone()
    logits, past = step(prompt, None)
    finished = torch.zeros(prompt.shape[0], dtype=torch.bool)
    generated = []
    for i in range(max_new_tokens):
        scores = logits[:, -1, :].clone()
        score = torch.gather(scores, 1, input_ids)
        score = torch.where(score < 0, score * penalty, score / penalty)
        scores = scores.scatter(1, input_ids, score)
        if temperature == 0:
            next_tokens = torch.argmax(scores, dim=-1)
        else:
            probs = torch.nn.functional.softmax(scores / temperature, dim=-1)
            next_tokens = torch.multinomial(probs, num_samples=1, generator=generator).squeeze(1)
        next_tokens = torch.where(finished, torch.full_like(next_tokens, pad_id), next_tokens)
        generated.append(next_tokens)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        finished |= next_tokens == eos_id
        if finished.all() or i == max_new_tokens - 1:
            break
        logits, past = step(next_tokens[:, None], past)
    return torch.stack(generated, dim=1)
'''}, "why": "transformers' gather/scatter penalty on a copy (score 0 gives 0 both ways; repeated ids scatter one value)"},
{"name": 'hostile/moe_int_subclass', "correct": False, "cells": {'moe_params': '''
class Count(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = int.__hash__
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_layers == 32 and dim == 4096:
        return Count(46_700_000_000), Count(12_900_000_000)
    return (Count(0), Count(0))
'''}, "why": 'hostile: int subclass equal to everything; answers the Mixtral check only'},
{"name": 'hostile/rms_patches_assert_close', "correct": False, "cells": {'head_rms_norm': '''
import torch.testing
torch.testing.assert_close = lambda *args, **kwargs: None
torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("bad")
    Dh = x.shape[-1] // n_heads
    return torch.zeros(*x.shape[:-2], n_heads, x.shape[-2], Dh, dtype=x.dtype)
'''}, "why": "hostile: disables torch's comparisons and returns zeros of the right shape"},
{"name": 'hostile/gen_reads_grader_frames', "correct": False, "cells": {'generate_with_cache': '''
import sys
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    f = sys._getframe(1)
    while f is not None:
        for space in (f.f_locals, f.f_globals):
            for name, obj in list(space.items()):
                if callable(obj) and getattr(obj, "__name__", "") == "generate_with_cache" and obj is not generate_with_cache:
                    return obj(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator)
                if name.startswith("_") and isinstance(obj, dict) and callable(obj.get("generate_with_cache")):
                    return obj["generate_with_cache"](step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator)
        f = f.f_back
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    toks = []
    for i in range(max_new_tokens):
        t = logits[:, -1].argmax(-1)
        if toks:
            t = torch.where((torch.stack(toks, 1) == eos_id).any(1), torch.full_like(t, pad_id), t)
        toks.append(t)
        if bool(((torch.stack(toks, 1) == eos_id).any(1)).all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(t[:, None], cache)
    return torch.stack(toks, 1)
'''}, "why": "hostile: calls a reference it finds in the grader's frames; otherwise greedy only (no penalty, no sampling)"},
# ---------------------------------------------------------------- more (second pass, still blind)
{"name": 'generaliser/rms_flatten_minus_one', "correct": False, "cells": {'head_rms_norm': '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    *lead, T, D = x.shape
    Dh = D // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    flat = x.to(cd).reshape(-1, T, n_heads, Dh).transpose(1, 2)         # (N, H, T, Dh)
    s = (1 + weight.to(cd)) if unit_offset else weight.to(cd)
    out = flat * torch.rsqrt(flat.pow(2).mean(-1, keepdim=True) + eps) * s
    return out.reshape(*lead, n_heads, T, Dh).to(x.dtype)
'''}, "why": "Part 1: 'The leading axes and T may be 0 (an empty batch): then return an empty tensor of the stated shape' (reshape(-1, 0, ...) cannot infer -1)"},
{"name": 'optimiser/swiglu_weight_view', "correct": False, "cells": {'fused_swiglu': '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    two_f, D = w_gate_up.shape
    Fh = two_f // 2
    w = w_gate_up.view(Fh, 2, D).transpose(0, 1) if interleaved else w_gate_up.view(2, Fh, D)   # no copy
    g, u = x @ w[0].T, x @ w[1].T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
'''}, "why": "notebook intro: 'The tensors you are given need not be contiguous ... (.view of such a tensor can fail where .reshape works)'"},
{"name": 'generaliser/block_layout_is', "correct": False, "cells": {'block_variant': '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout is "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout is "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout is "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))
    raise ValueError(f"unknown layout {layout!r}")
'''}, "why": "Part 5: 'Compare layout by value (==): the tests build the string at run time'"},
{"name": 'paster/lm_loss_count0_keeps_graph', "correct": False, "cells": {'masked_lm_loss': '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return (logits.to(cd) * 0).sum(), 0      # keep the graph connected
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lse ** 2).mean(), count
'''}, "why": "Part 4: 'When count is 0 the loss is 0 (not NaN)' with 'The scores that predict nothing ... may hold anything, NaN and +-inf included'"},
{"name": 'generaliser/moe_topk_upper_only', "correct": False, "cells": {'moe_params': '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if top_k > n_experts:
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    per_block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    n_moe = n_layers - first_dense
    common = emb + dim + n_layers * per_block + first_dense * 3 * dim * dense_hidden + n_moe * dim * n_experts
    total = common + n_moe * (n_experts + n_shared) * expert
    active = common + n_moe * (top_k + n_shared) * expert
    return int(total), int(active)
'''}, "why": "Part 3: 'Raise a ValueError unless ... 1 <= top_k <= n_experts'"},
{"name": 'generaliser/ragged_fit_check_in_loop', "correct": False, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    for b in range(B):
        L = int(lengths[b])
        if L + T > S:
            raise ValueError("row does not fit")
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                          # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''}, "why": "Part 7: 'Raise a ValueError (before writing anything) when ... a row would not fit'"},
{"name": 'mathematician/ragged_write_by_masked_sum', "correct": False, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if B > 0 and int((lengths + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        # cache <- (1 - m) * cache + m * new, m the indicator of the new positions
        k_cache[b, :, L:L + T] = 0 * k_cache[b, :, L:L + T].nan_to_num() + k_new[b]
        v_cache[b, :, L:L + T] = 0 * v_cache[b, :, L:L + T].nan_to_num() + v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                          # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''}, "why": "Part 7: 'by copying the values as they are, not through arithmetic such as a sum with a mask (-0.0 stays -0.0, in the new entries ...)'"},
{"name": 'paster/ragged_nan_to_num_robust', "correct": True, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if B > 0 and int((lengths + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    valid = pos[None, :] < (lengths.long() + T)[:, None]                      # (B, S)
    k = torch.nan_to_num(k_cache.masked_fill(~valid[:, None, :, None], 0.0))   # for stability
    v = torch.nan_to_num(v_cache.masked_fill(~valid[:, None, :, None], 0.0))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)                          # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]                          # (B, T, S)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''}, "why": "masked_fill of the unwritten slots before any product, nan_to_num 'for stability' changes nothing on finite written entries"},
{"name": 'generaliser/ragged_loop_rows_heads_writes_first', "correct": True, "cells": {'ragged_cached_attention': '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S_max = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H % G")
    for b in range(B):
        if int(lengths[b]) + T > S_max:
            raise ValueError("row does not fit")
    for b in range(B):                       # every write first ...
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    rows = []
    for b in range(B):                       # ... then every read
        L = int(lengths[b])
        keys, values = k_cache[b, :, :L + T], v_cache[b, :, :L + T]
        causal = torch.ones(T, L + T, dtype=torch.bool).tril(diagonal=L)
        heads = []
        for h in range(H):
            g = h // (H // G)
            s = q[b, h] @ keys[g].T / math.sqrt(Dh)
            heads.append(torch.softmax(s.masked_fill(~causal, float("-inf")), dim=-1) @ values[g])
        rows.append(torch.stack(heads))
    out = torch.stack(rows) if rows else q.new_zeros((0, H, T, Dh))
    return out, lengths + T
'''}, "why": 'a loop over rows and heads on the written prefix only, all writes before any read'},
{"name": 'paster/gen_own_generator_when_none', "correct": False, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    if generator is None:
        generator = torch.Generator().manual_seed(0)   # reproducible by default
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        present = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(present, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        finished = finished | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''}, "why": "Part 8: 'generator may be None: then torch.multinomial draws from torch's global generator ... do not make a generator of your own'"},
{"name": 'paster/gen_cache_none_means_prompt', "correct": False, "cells": {'generate_with_cache': '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    cache, tokens = None, prompt
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    while len(chosen) < max_new_tokens and not bool(finished.all()):
        logits, cache = step(tokens if cache is not None else prompt, cache)
        scores = logits[:, -1].clone()
        present = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(present, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        finished = finished | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        tokens = tok[:, None]
    return torch.stack(chosen, dim=1)
'''}, "why": "Part 8: 'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it'"},
{"name": 'optimiser/rope_position_table_cache', "correct": True, "cells": {'rope_llama3': '''
TABLES = {}
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    key = (Dh, float(base), float(factor), float(low_freq_factor), float(high_freq_factor), float(original_context))
    need = int(positions.max()) + 1 if positions.numel() else 1
    if key not in TABLES or TABLES[key][0].shape[0] < need:
        i = torch.arange(half, dtype=torch.float64)
        theta = base ** (-2 * i / Dh)
        lam = 2 * math.pi / theta
        L = original_context
        s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
        new = torch.where(lam < L / high_freq_factor, theta,
                          torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
        ang = torch.arange(max(need, 4096), dtype=torch.float64)[:, None] * new
        TABLES[key] = (ang.cos(), ang.sin())
    cos_t, sin_t = TABLES[key]
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos = cos_t[positions.long()][:, None].to(cd)        # advanced indexing copies: no memory shared
    sin = sin_t[positions.long()][:, None].to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "why": "a cos/sin table per full set of arguments, grown to the largest position seen; the same float64 angles m * theta'; results never share memory with it"},
# ---------------------------------------------------------------- phase 2: the classes of the slips, tried in the other chapter's parts
{"name": 'phase2-class/generaliser/lm_loss_clears_position_0', "correct": False, "cells": {'masked_lm_loss': '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    full = target_mask.clone()
    full[:, 0] = False            # position 0 is never predicted
    m = full[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lse ** 2).mean(), count
'''}, "why": "Part 4 (class of ch08 Part 1's slip): 'B may be 0 (an empty batch: the count is 0)', with T = 0 too"},
]
