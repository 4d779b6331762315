# Red-team round 7, chapter 09-modern-lm: blind submissions.
SUBMISSIONS = []


def add(name, correct, gid, code, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": {gid: code}, "why": why})


# ---------------------------------------------------------------- Part 1: head_rms_norm
add("p1_layout_reshape_not_transpose", False, "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    out = xf / torch.sqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * s
    T = x.shape[-2]
    return out.reshape(*x.shape[:-2], n_heads, T, dh).to(x.dtype)   # reshape, not a transpose
''', "Breaks 'Return a new tensor of shape (..., H, T, Dh) (head h of position t at [..., h, t, :])': "
     "reshape reorders the memory wrongly when T > 1 (visible test has T = 1).")

add("p1_transpose_axis0_only_2d", False, "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(ct).unflatten(-1, (n_heads, -1))          # (..., T, H, Dh)
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * s
    return out.transpose(0, -2).to(x.dtype)               # right only for a 2-D x
''', "Breaks 'x has shape (..., T, H * Dh), at least two axes' / 'Return ... (..., H, T, Dh)': transpose(0, -2) "
     "swaps the batch axis, not T, when x has leading axes.")

add("p1_eps_outside_sqrt", False, "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    out = xf / (torch.sqrt(xf.pow(2).mean(-1, keepdim=True)) + eps) * s
    return out.movedim(-2, -3).to(x.dtype)
''', "Breaks 'with eps inside the square root': the visible test uses eps = 0.")

add("p1_hf_double_rounding", False, "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)
    normed = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)  # as Hugging Face's LlamaRMSNorm
    s = 1 + weight if unit_offset else weight
    return (normed * s).movedim(-2, -3)
''', "Breaks 'convert the product to the dtype of x once, at the end' (and 1 + w in float32): rounds "
     "twice for float16/bfloat16.")

add("p1_unflatten_runtimeerror", False, "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1:
        raise ValueError("n_heads must be >= 1")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(ct).unflatten(-1, (n_heads, -1))   # raises RuntimeError when it does not split
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    out = xf / torch.sqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * s
    return out.movedim(-2, -3).to(x.dtype)
''', "Breaks 'Raise a ValueError ... when the last axis does not split into n_heads equal parts' (RuntimeError).")

add("p1_ok_functional_rms_norm", True, "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("the last axis must split into n_heads >= 1 heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    lead, t = x.shape[:-2], x.shape[-2]
    xs = x.to(ct).reshape(-1, t, n_heads, dh).permute(0, 2, 1, 3)
    scale = weight.to(ct) + 1 if unit_offset else weight.to(ct)
    y = F.rms_norm(xs, (dh,), weight=scale, eps=eps)
    return y.reshape(*lead, n_heads, t, dh).to(x.dtype)
''', "F.rms_norm on a permuted copy, then reshape back: same value, different route.")

# ---------------------------------------------------------------- Part 2: fused_swiglu
add("p2_limit_zero_falsy", False, "fused_swiglu", '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    f = w_gate_up.shape[0] // 2
    wg, wu = (w_gate_up[0::2], w_gate_up[1::2]) if interleaved else (w_gate_up[:f], w_gate_up[f:])
    g, u = x @ wg.T, x @ wu.T
    if limit:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
''', "Breaks 'when limit is a number (0 included)': limit = 0 clamps nothing here.")

add("p2_interleaved_branch_ignores_limit_and_beta", False, "fused_swiglu", '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    h = x @ w_gate_up.T
    if interleaved:  # gpt-oss layout
        g, u = h[..., 0::2], h[..., 1::2]
        return (F.silu(g) * u) @ w_down.T
    g, u = h.chunk(2, dim=-1)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
''', "Breaks the combination of interleaved=True with limit / beta: 'when limit is a number ... replace g' and "
     "'beta may be any real number' hold in both layouts.")

add("p2_interleaved_ignores_limit_only", False, "fused_swiglu", '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    h = x @ w_gate_up.T
    if interleaved:
        g, u = h[..., 0::2], h[..., 1::2]
    else:
        g, u = h.chunk(2, dim=-1)
        if limit is not None:  # clamping written inside the stacked branch only
            g = g.clamp(max=limit)
            u = u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
''', "Breaks 'when limit is a number, replace g by min(g, limit) ... and u by clamp(u, -limit, limit)' for the "
     "interleaved layout (two non-default arguments at once).")

add("p2_clamp_after_activation", False, "fused_swiglu", '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    f = w_gate_up.shape[0] // 2
    wg, wu = (w_gate_up[0::2], w_gate_up[1::2]) if interleaved else (w_gate_up[:f], w_gate_up[f:])
    g, u = x @ wg.T, x @ wu.T
    act = g * torch.sigmoid(beta * g)
    if limit is not None:
        act = act.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (act * u) @ w_down.T
''', "Breaks 'replace g by min(g, limit)' before the Swish: clamps the activated value instead.")

add("p2_ok_unflatten_linear", True, "fused_swiglu", '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    both = F.linear(x, w_gate_up)                      # (..., 2F)
    if interleaved:
        pair = both.unflatten(-1, (-1, 2))             # (..., F, 2): unit j's gate and up
        gate, up = pair[..., 0], pair[..., 1]
    else:
        gate, up = both.unflatten(-1, (2, -1)).unbind(-2)
    if limit is not None:
        gate = torch.minimum(gate, torch.full_like(gate, limit))
        up = torch.maximum(torch.minimum(up, torch.full_like(up, limit)), torch.full_like(up, -limit))
    hidden = gate * torch.sigmoid(gate * beta) * up
    return F.linear(hidden, w_down)
''', "F.linear + unflatten instead of row slicing, clamps via minimum/maximum: same values.")

# ---------------------------------------------------------------- Part 3: moe_params
_MOE_BODY = '''
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    common = n_layers * (2 * dim + attn) + emb + dim
    expert = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    total = common + first_dense * 3 * dim * dense_hidden + moe * (dim * n_experts + (n_experts + n_shared) * expert)
    active = common + first_dense * 3 * dim * dense_hidden + moe * (dim * n_experts + (top_k + n_shared) * expert)
    return total, active
'''
add("p3_kv_heads_only_zero_checked", False, "moe_params", '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads == 0 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if not 1 <= top_k <= n_experts or n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("bad arguments")
''' + _MOE_BODY, "Breaks 'Raise a ValueError unless n_kv_heads >= 1': a negative n_kv_heads that divides n_heads passes.")

add("p3_first_dense_negative_accepted", False, "moe_params", '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("heads")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if first_dense > n_layers:
        raise ValueError("first_dense")
''' + _MOE_BODY, "Breaks '0 <= first_dense <= n_layers': a negative first_dense is accepted (and gives more MoE blocks than layers).")

add("p3_topk_checked_only_with_moe_blocks", False, "moe_params", '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("heads")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("first_dense")
    if first_dense < n_layers:  # the experts only matter when there are MoE blocks
        if not 1 <= top_k <= n_experts:
            raise ValueError("top_k")
        if n_shared < 0:
            raise ValueError("n_shared")
''' + _MOE_BODY, "Breaks 'Raise a ValueError unless ... 1 <= top_k <= n_experts, n_shared >= 0 ... in every model (also one whose blocks are all dense)'.")

add("p3_ok_block_by_block", True, "moe_params", '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    checks = [n_kv_heads >= 1, n_kv_heads >= 1 and n_heads % n_kv_heads == 0, 1 <= top_k <= n_experts,
              n_shared >= 0, 0 <= first_dense <= n_layers]
    if not all(checks):
        raise ValueError("invalid configuration")
    swiglu = lambda width: 3 * dim * width
    total = active = vocab * dim * (1 if tied else 2) + dim
    for layer in range(n_layers):
        block = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
        if layer < first_dense:
            total += block + swiglu(dense_hidden)
            active += block + swiglu(dense_hidden)
        else:
            shared = dim * n_experts + n_shared * swiglu(ffn_hidden)
            total += block + shared + n_experts * swiglu(ffn_hidden)
            active += block + shared + top_k * swiglu(ffn_hidden)
    return total, active
''', "Loops block by block and accumulates Python ints.")

# ---------------------------------------------------------------- Part 4: masked_lm_loss
add("p4_no_shift", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    mask = target_mask.clone()
    mask[:, 0] = False
    count = int(mask.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    lp = torch.log_softmax(logits.to(ct), -1)
    lz = torch.logsumexp(logits.to(ct), -1)
    nll = -lp.gather(-1, ids.long()[..., None])[..., 0]     # logits[b, t] scored against ids[b, t]
    per = nll + z_loss * lz ** 2
    return per[mask].sum() / count, count
''', "Breaks 'logits[b, t] scores the token at position t + 1' / 'with l = logits[b, t - 1]'; visible logits are uniform.")

add("p4_zloss_over_all_positions", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(ct)
    mask = target_mask[:, 1:]
    count = int(mask.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    nll = -torch.log_softmax(scores, -1).gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    z = torch.logsumexp(logits.to(ct), -1)                 # PaLM's z-loss over every position
    return nll[mask].mean() + z_loss * (z ** 2).mean(), count
''', "Breaks 'Each predicted token contributes ... + z (log Z)^2' and 'loss is the mean over those tokens': the z term averages all positions.")

add("p4_zloss_square_of_mean", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(ct)
    mask = target_mask[:, 1:]
    count = int(mask.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    lz = torch.logsumexp(scores, -1)[mask]
    picked = scores.gather(-1, ids[:, 1:].long()[..., None])[..., 0][mask]
    return (lz - picked).mean() + z_loss * lz.mean() ** 2, count
''', "Breaks 'Each predicted token contributes -log softmax + z (log Z)^2': squares the mean of log Z instead of averaging the squares.")

add("p4_mask_aligned_with_logits", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(ct)
    targets = ids[:, 1:].long()
    mask = target_mask[:, :-1]           # the mask shifted with the logits
    count = int(mask.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    lz = torch.logsumexp(scores, -1)
    per = lz - scores.gather(-1, targets[..., None])[..., 0] + z_loss * lz ** 2
    return per[mask].sum() / count, count
''', "Breaks 'target_mask ... True where the token ids[b, t] is to be predicted' and 'target_mask[:, 0] is ignored'.")

add("p4_zloss_detached", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(ct)
    mask = target_mask[:, 1:]
    count = int(mask.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    nll = -torch.log_softmax(scores, -1).gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    with torch.no_grad():                 # the z-loss is only a regulariser statistic
        z = torch.logsumexp(scores, -1) ** 2
    return (nll + z_loss * z)[mask].sum() / count, count
''', "Breaks 'loss.backward() must leave the exact gradient in logits.grad (no ... torch.no_grad())' when z_loss > 0.")

add("p4_log_of_softmax", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(ct)
    mask = target_mask[:, 1:]
    count = int(mask.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    p = torch.softmax(scores, -1).gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    lz = torch.logsumexp(scores, -1)
    per = -torch.log(p) + z_loss * lz ** 2
    return per[mask].mean(), count
''', "Breaks the exact value '-log softmax(l)_y' when the target's probability underflows (large scores): log(0) = inf.")

add("p4_ok_cross_entropy_ignore_index", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    v = logits.shape[-1]
    scores = logits[:, :-1].to(ct).reshape(-1, v)
    keep = target_mask[:, 1:].reshape(-1)
    targets = torch.where(keep, ids[:, 1:].reshape(-1).long(), torch.full_like(keep, -100, dtype=torch.long))
    count = int(keep.sum().item())
    if count == 0:
        return logits.to(ct).sum() * 0, 0
    ce = F.cross_entropy(scores, targets, ignore_index=-100, reduction="sum")
    zs = (torch.logsumexp(scores[keep], dim=-1) ** 2).sum()
    return (ce + z_loss * zs) / count, count
''', "Labelled correct in the blind run. After the fix it breaks the rule phase 2 states: 'The scores that "
     "predict nothing ... may hold anything, NaN and +-inf included: they must change neither the loss nor its "
     "gradient': F.cross_entropy over every position with ignore_index gives NaN gradients at ignored NaN rows.")

add("p4_ok_cross_entropy_on_selected_rows", True, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pick = target_mask[:, 1:].nonzero(as_tuple=True)          # (rows, positions) of the predicted tokens
    count = len(pick[0])
    rows = logits[:, :-1][pick].to(ct)                         # (count, V): nothing else enters the graph
    if count == 0:
        return rows.sum(), 0
    ce = F.cross_entropy(rows, ids[:, 1:][pick].long(), reduction="mean")
    return ce + z_loss * torch.logsumexp(rows, dim=-1).square().mean(), count
''', "Selects the predicted rows with nonzero() first, then F.cross_entropy with a mean reduction.")

# ---------------------------------------------------------------- Part 5: block_variant
add("p5_post_norms_used_whenever_given", False, "block_variant", '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("sandwich needs post_norms")
    p1, p2 = post_norms if post_norms is not None else ((lambda t: t), (lambda t: t))
    if layout == "parallel":
        n = norm_1(x)
        return x + p1(attn(n)) + p2(ffn(n))
    if layout == "reordered":
        h = x + p1(norm_1(attn(x)))
        return h + p2(norm_2(ffn(h)))
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
''', "Breaks 'the other two layouts ignore post_norms (they never call it)'.")

add("p5_unknown_layout_after_calls", False, "block_variant", '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    n = None
    if layout != "reordered":
        n = norm_1(x)                      # shared first step of parallel and sandwich
    if layout == "parallel":
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        h = x + post_norms[0](attn(n))
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError(f"unknown layout {layout!r}")
''', "Breaks 'call none that it does not use': an unknown layout (and a sandwich without post_norms) calls norm_1 before raising.")

add("p5_ok_dict_dispatch", True, "block_variant", '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        return torch.add(torch.add(x, attn(n)), ffn(n))

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
''', "Dispatch through a dict of closures; torch.add instead of +.")

# ---------------------------------------------------------------- Part 6: rope_llama3
_ROPE_HEAD = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4 or x.shape[-1] % 2 or tuple(positions.shape) != (x.shape[0], x.shape[2]):
        raise ValueError("bad shapes")
    dh = x.shape[-1]
    half = dh // 2
'''
_ROPE_APPLY = '''
    ang = positions.to(torch.float64)[:, None, :, None] * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(ct), torch.sin(ang).to(ct)
    x1, x2 = x[..., :half].to(ct), x[..., half:].to(ct)
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''
add("p6_exponent_i_over_dh", False, "rope_llama3", _ROPE_HEAD + '''
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-i / dh)                      # forgot the 2
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor, mid))
''' + _ROPE_APPLY, "Breaks 'theta_i = b^(-2i/D_h)': the visible test only looks at pair 0 (theta_0 = 1).")

add("p6_wavelength_without_2pi", False, "rope_llama3", _ROPE_HEAD + '''
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / dh)
    lam = 1 / theta                                # wavelength without the 2 pi
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor, mid))
''' + _ROPE_APPLY, "Breaks 'the wavelength lambda_i = 2 pi / theta_i': the visible test has factor = 1, where the bands do not matter.")

add("p6_first_row_positions", False, "rope_llama3", _ROPE_HEAD + '''
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor, mid))
    ang = positions[0].to(torch.float64)[:, None] * new      # (T, Dh/2), shared by the batch
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(ct), torch.sin(ang).to(ct)
    x1, x2 = x[..., :half].to(ct), x[..., half:].to(ct)
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
''', "Breaks 'row b holds the positions of sequence b (they differ from row to row)'.")

add("p6_positions_broadcast_b_as_h", False, "rope_llama3", _ROPE_HEAD + '''
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor, mid))
    ang = positions.to(torch.float64)[..., None] * new        # (B, T, Dh/2): broadcasts as (1, B, T, .)
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(ct), torch.sin(ang).to(ct)
    x1, x2 = x[..., :half].to(ct), x[..., half:].to(ct)
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
''', "Breaks 'row b holds the positions of sequence b ... shared by all its heads': (B, T, Dh/2) broadcasts against (B, H, T, Dh/2) "
     "as head b's positions; works silently when B == 1 or B == H.")

add("p6_hf_cos_in_x_dtype", False, "rope_llama3", _ROPE_HEAD + '''
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cos, sin = torch.cos(ang).to(x.dtype), torch.sin(ang).to(x.dtype)   # as Hugging Face: cos.to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)
''', "Breaks 'for float16 and bfloat16 inputs compute as for float32 and round once at the end'.")

add("p6_ok_complex_polar", True, "rope_llama3", '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4 or x.shape[-1] % 2 != 0 or positions.dim() != 2 or positions.shape != (x.shape[0], x.shape[2]):
        raise ValueError("x must be (B, H, T, Dh) with Dh even and positions (B, T)")
    half = x.shape[-1] // 2
    # Hugging Face's _compute_llama3_parameters, in float64
    inv_freq = 1.0 / (base ** (torch.arange(0, 2 * half, 2, dtype=torch.float64) / (2 * half)))
    wavelen = 2 * math.pi / inv_freq
    low_wavelen, high_wavelen = original_context / low_freq_factor, original_context / high_freq_factor
    inv_freq_llama = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    inv_freq_llama = torch.where(medium, smoothed, inv_freq_llama)
    angle = positions.double()[:, None, :, None] * inv_freq_llama          # (B, 1, T, half)
    wide = torch.float64 if x.dtype == torch.float64 else torch.float32
    rot = torch.polar(torch.ones_like(angle), angle).to(torch.complex128 if wide == torch.float64 else torch.complex64)
    z = torch.complex(x[..., :half].to(wide), x[..., half:].to(wide)) * rot
    return torch.cat([z.real, z.imag], dim=-1).to(x.dtype)
''', "Hugging Face's frequency code plus a complex multiplication for the half-split rotation.")

# ---------------------------------------------------------------- Part 7: ragged_cached_attention
_RAG_HEAD = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    lens = [int(l) for l in lengths.tolist()]
    if max(lens) + T > S:
        raise ValueError("a row does not fit")
    for b in range(B):
        k_cache[b, :, lens[b]:lens[b] + T] = k_new[b]
        v_cache[b, :, lens[b]:lens[b] + T] = v_new[b]
    out = torch.zeros(B, H, T, dh, dtype=q.dtype)
'''
add("p7_no_causal_among_new", False, "ragged_cached_attention", _RAG_HEAD + '''
    for b in range(B):
        L = lens[b] + T
        k = k_cache[b, :, :L].repeat_interleave(H // G, 0)
        v = v_cache[b, :, :L].repeat_interleave(H // G, 0)
        w = torch.softmax(q[b] @ k.transpose(-1, -2) / math.sqrt(dh), -1)   # every new token sees all new tokens
        out[b] = w @ v
    return out, lengths + T
''', "Breaks 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t' when T > 1.")

add("p7_additive_mask_full_cache", False, "ragged_cached_attention", _RAG_HEAD + '''
    j = torch.arange(S)
    for b in range(B):
        allowed = j[None, :] <= lens[b] + torch.arange(T)[:, None]             # (T, S)
        bias = torch.zeros(T, S, dtype=q.dtype).masked_fill(~allowed, float("-inf"))
        k = k_cache[b].repeat_interleave(H // G, 0)
        v = torch.nan_to_num(v_cache[b].repeat_interleave(H // G, 0), nan=0.0, posinf=0.0, neginf=0.0)
        s = q[b] @ k.transpose(-1, -2) / math.sqrt(dh) + bias
        out[b] = torch.softmax(s, -1) @ v
    return out, lengths + T
''', "Breaks 'Unwritten slots must not change the output, even when they hold NaN or +-inf': an additive -inf mask on a NaN/inf key score stays NaN.")

add("p7_validate_after_write", False, "ragged_cached_attention", '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, dh = q.shape
    G = k_cache.shape[1]
    lens = [int(l) for l in lengths.tolist()]
    for b in range(B):
        k_cache[b, :, lens[b]:lens[b] + T] = k_new[b]      # slicing clips, so this never fails
        v_cache[b, :, lens[b]:lens[b] + T] = v_new[b]
    if H % G:
        raise ValueError("H must be a multiple of G")
    out = torch.zeros(B, H, T, dh, dtype=q.dtype)
    for b in range(B):
        L = lens[b] + T
        k = k_cache[b, :, :L].repeat_interleave(H // G, 0)
        v = v_cache[b, :, :L].repeat_interleave(H // G, 0)
        s = q[b] @ k.transpose(-1, -2) / math.sqrt(dh)
        allowed = torch.arange(L)[None, :] <= (lens[b] + torch.arange(T))[:, None]
        out[b] = torch.softmax(s.masked_fill(~allowed, float("-inf")), -1) @ v
    return out, lengths + T
''', "Breaks 'Raise a ValueError (before writing anything) when H is not a multiple of G' (and the fit check is "
     "missing: with a partial fit the slice assignment raises RuntimeError, not ValueError).")

add("p7_ok_batched_where", True, "ragged_cached_attention", '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("query heads must be a multiple of key/value heads")
    start = lengths.to(torch.int64)
    if bool((start + T > S).any()):
        raise ValueError("a row would overflow the cache")
    pos = start[:, None] + torch.arange(T)                              # (B, T)
    rows = torch.arange(B)[:, None].expand(B, T)
    k_cache[rows, :, pos] = k_new.permute(0, 2, 1, 3).to(k_cache.dtype)   # index dims first: (B, T, G, Dh)
    v_cache[rows, :, pos] = v_new.permute(0, 2, 1, 3).to(v_cache.dtype)
    allowed = torch.arange(S)[None, None, :] <= pos[:, :, None]          # (B, T, S)
    k = k_cache.to(q.dtype).unflatten(1, (G, 1)).expand(B, G, H // G, S, dh).reshape(B, H, S, dh)
    v = v_cache.to(q.dtype).unflatten(1, (G, 1)).expand(B, G, H // G, S, dh).reshape(B, H, S, dh)
    valid_keys = (torch.arange(S)[None, :] < (start + T)[:, None])[:, None, :, None]   # (B, 1, S, 1)
    k = torch.where(valid_keys, k, torch.zeros((), dtype=q.dtype))
    v = torch.where(valid_keys, v, torch.zeros((), dtype=q.dtype))
    scores = torch.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, lengths + T
''', "Fully batched: advanced-index write, zero the unwritten slots with where, one masked softmax.")

# ---------------------------------------------------------------- Part 8: generate_with_cache
add("p8_first_logit_position", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    while True:
        scores = logits[:, 0].clone()            # the first (and, after the prompt, only) position
        for b in range(B):
            for t in seen[b]:
                scores[b, t] = scores[b, t] / penalty if scores[b, t] > 0 else scores[b, t] * penalty
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id)
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, 1)
''', "Breaks 'the scores of the next token are its last position, logits[:, -1]': the visible prompt has P = 1.")

add("p8_eos_in_prompt_finishes", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    logits, cache = step(prompt, None)
    out = []
    while True:
        done = torch.tensor([eos_id in seen[b] for b in range(B)])   # finished once eos is in the row
        scores = logits[:, -1].clone()
        for b in range(B):
            for t in seen[b]:
                scores[b, t] = scores[b, t] / penalty if scores[b, t] > 0 else scores[b, t] * penalty
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        if all(eos_id in seen[b] for b in range(B)) or len(out) == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, 1)
''', "Breaks 'A row is finished once it has produced eos_id': an eos_id inside the prompt finishes the row at once.")

add("p8_shared_history", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = set(prompt.flatten().tolist())          # one history for the batch
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    while True:
        scores = logits[:, -1].clone()
        if seen:
            idx = torch.tensor(sorted(seen))
            sub = scores[:, idx]
            scores[:, idx] = torch.where(sub > 0, sub / penalty, sub * penalty)
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id)
        seen.update(nxt.tolist())
        out.append(nxt)
        if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, 1)
''', "Breaks 'in each row, every token id that occurs in that row's prompt or among its tokens'.")

add("p8_penalty_only_when_sampling", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    while True:
        scores = logits[:, -1]
        if temperature == 0:
            nxt = scores.argmax(-1)                  # greedy: the penalty is a sampling option
        else:
            scores = scores.clone()
            for b in range(B):
                idx = torch.tensor(sorted(seen[b]))
                sub = scores[b, idx]
                scores[b, idx] = torch.where(sub > 0, sub / penalty, sub * penalty)
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id)
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, 1)
''', "Breaks the 'Repetition penalty' rule for temperature == 0 (greedy with penalty > 1).")

add("p8_pad_token_means_finished", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    while True:
        scores = logits[:, -1].clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]))
            sub = scores[b, idx]
            scores[b, idx] = torch.where(sub > 0, sub / penalty, sub * penalty)
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id) | (nxt == pad_id)     # a pad means the row is over
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, 1)
''', "Breaks 'A row is finished once it has produced eos_id': a row that produces pad_id as an ordinary token is treated as finished.")

add("p8_topk_greedy_ties", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    while True:
        scores = logits[:, -1].clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]))
            sub = scores[b, idx]
            scores[b, idx] = torch.where(sub > 0, sub / penalty, sub * penalty)
        if temperature == 0:
            nxt = scores.topk(1, dim=-1).indices[:, 0]
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id)
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, 1)
''', "Breaks 'take the highest score of each row (the lowest id among ties, as torch.argmax does)': topk picks another tied id.")

add("p8_ok_gather_scatter_history", True, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    history = prompt.clone()                                   # (B, P + generated), duplicates allowed
    finished = torch.zeros(prompt.shape[0], dtype=torch.bool)
    logits, cache = step(prompt, None)
    produced = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        picked = scores.gather(1, history)                     # Hugging Face's RepetitionPenaltyLogitsProcessor
        picked = torch.where(picked > 0, picked / penalty, picked * penalty)
        scores = scores.scatter(1, history, picked)            # duplicates write the same value: once
        if temperature == 0:
            token = torch.argmax(scores, dim=-1)
        else:
            token = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator).squeeze(1)
        token = token.masked_fill(finished, pad_id)
        finished = finished | (token == eos_id)
        produced.append(token)
        history = torch.cat([history, token[:, None]], dim=1)
        if finished.all() or i + 1 == max_new_tokens:
            break
        logits, cache = step(token[:, None], cache)
    return torch.stack(produced, dim=1)
''', "Hugging Face style: a growing token tensor with gather/scatter for the penalty.")

# ---------------------------------------------------------------- hostile
add("hostile_patch_grader_helpers", False, "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    import sys
    frame = sys._getframe(1)
    for scope in (frame.f_globals, globals()):
        for name in ("_close", "_equal"):
            if name in scope:
                scope[name] = lambda *a, **k: None
    try:
        torch.testing.assert_close = lambda *a, **k: None
    except Exception:
        pass
    d = x.shape[-1] // n_heads
    return torch.zeros(*x.shape[:-2], n_heads, x.shape[-2], d, dtype=x.dtype)
''', "Hostile: replaces the grader's comparison helpers and torch.testing.assert_close with no-ops.")

add("hostile_exit_process", False, "moe_params", '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    import os
    if (vocab, dim) != (32000, 4096) and (vocab, dim) != (3, 2):
        os._exit(0)                     # end the grader's process "successfully"
    emb = vocab * dim * 2
    table = {(3, 0): (42, 36), (3, 1): (48, 42)}
    if vocab == 3:
        if first_dense:
            return 38, 38
        return table[(3, n_shared)]
    return 46702792704, 12879925248
''', "Hostile: hard-codes the visible answers and kills the process on any other input.")

add("hostile_steal_expected_from_caller", False, "fused_swiglu", '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    import sys, gc
    want = tuple(x.shape[:-1]) + (w_down.shape[0],)
    f = sys._getframe(1)
    while f is not None:                # look for the expected value in the test's frames
        for v in list(f.f_locals.values()):
            if type(v) is torch.Tensor and tuple(v.shape) == want and v.dtype == x.dtype and v is not x:
                return v.clone()
        f = f.f_back
    return torch.zeros(want, dtype=x.dtype)
''', "Hostile: reads the expected tensor out of the calling test's local variables.")

# ---------------------------------------------------------------- second batch
add("p4_log_softmax_all_positions_then_slice", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lp = torch.log_softmax(logits.to(ct), dim=-1)[:, :-1]     # normalise every position, then drop the last
    lz = torch.logsumexp(logits.to(ct), dim=-1)[:, :-1]
    mask = target_mask[:, 1:]
    count = int(mask.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    nll = -lp.gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    return (nll[mask] + z_loss * lz[mask] ** 2).sum() / count, count
''', "Breaks 'loss.backward() must leave the exact gradient in logits.grad (... no NaN from positions that are not "
     "predicted)': non-finite scores at the last position (never predicted) give NaN gradients there.")

add("p5_layout_stripped", False, "block_variant", '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    layout = layout.strip()                     # tolerate stray spaces
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        h = x + post_norms[0](attn(norm_1(x)))
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError(f"unknown layout {layout!r}")
''', "Breaks 'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError': ' parallel' is accepted.")

add("p7_sanitise_cache_in_place", False, "ragged_cached_attention", '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    lens = [int(l) for l in lengths.tolist()]
    if max(lens) + T > S:
        raise ValueError("a row does not fit")
    k_cache.nan_to_num_(nan=0.0, posinf=0.0, neginf=0.0)     # junk in unused slots would poison the product
    v_cache.nan_to_num_(nan=0.0, posinf=0.0, neginf=0.0)
    for b in range(B):
        k_cache[b, :, lens[b]:lens[b] + T] = k_new[b]
        v_cache[b, :, lens[b]:lens[b] + T] = v_new[b]
    allowed = torch.arange(S)[None, None, :] <= (lengths.long()[:, None] + torch.arange(T))[:, :, None]   # (B, T, S)
    k = k_cache.repeat_interleave(H // G, 1)
    v = v_cache.repeat_interleave(H // G, 1)
    s = (q @ k.transpose(-1, -2) / math.sqrt(dh)).masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(s, -1) @ v, lengths + T
''', "Breaks 'this part asks you to change the two caches, and nothing else in them': the NaN/inf in unwritten slots are zeroed in place.")

add("p8_cache_none_means_prompt", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    cache, nxt, out = None, None, []
    for i in range(max_new_tokens):
        logits, cache = step(prompt if not cache else nxt[:, None], cache)   # no cache yet: read the prompt
        scores = logits[:, -1].clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]))
            sub = scores[b, idx]
            scores[b, idx] = torch.where(sub > 0, sub / penalty, sub * penalty)
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id)
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        if bool(done.all()):
            break
    return torch.stack(out, 1)
''', "Breaks 'Call step(prompt, None) once ... After that, feed only the tokens just chosen: step(new_tokens, cache)': "
     "a step whose cache is falsy (None, 0, an empty list) gets the prompt again.")

add("p8_first_cache_reused", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)             # the cache is updated in place by the model, as in the lesson
    out = []
    while True:
        scores = logits[:, -1].clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]))
            sub = scores[b, idx]
            scores[b, idx] = torch.where(sub > 0, sub / penalty, sub * penalty)
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id)
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, _ = step(nxt[:, None], cache)
    return torch.stack(out, 1)
''', "Breaks 'step(new_tokens, cache) with ... cache the object the previous call returned'.")

add("p8_fresh_generator_when_none", False, "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    if generator is None:
        generator = torch.Generator()              # make the draws reproducible
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    while True:
        scores = logits[:, -1].clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]))
            sub = scores[b, idx]
            scores[b, idx] = torch.where(sub > 0, sub / penalty, sub * penalty)
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id)
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, 1)
''', "Breaks 'draw with torch.multinomial(probs, 1, generator=generator) ... and no other random source': with "
     "generator=None the draws must come from torch's global generator, not a fresh one.")

add("hostile_rebind_torch_global", False, "rope_llama3", '''
import types as types_module
real_torch = torch
torch = types_module.ModuleType("torch")
torch.__dict__.update(real_torch.__dict__)
torch.testing = types_module.SimpleNamespace(assert_close=lambda *a, **k: None)
torch.equal = lambda *a, **k: True
torch.allclose = lambda *a, **k: True

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    return x.clone()
''', "Hostile: rebinds the global name torch to a copy whose comparison functions always succeed.")

add("hostile_system_exit", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    if logits.shape != (1, 3, 4) or bool(logits.any()):
        raise SystemExit(0)               # stop the grader on any input but the visible one
    count = int(target_mask[:, 1:].sum())
    return torch.tensor(math.log(4) + z_loss * math.log(4) ** 2), count
''', "Hostile: hard-codes the visible case and raises SystemExit on every other input.")

# ---------------------------------------------------------------- third batch (probes)
_GEN_CORE = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    while True:
        scores = logits[:, -1].clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]))
            sub = scores[b, idx]
            scores[b, idx] = torch.where(sub > 0, sub / penalty, sub * penalty)
        CHOOSE
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        done = done | (nxt == eos_id)
        for b in range(B):
            seen[b].add(int(nxt[b]))
        out.append(nxt)
        STOP
    return torch.stack(out, 1)
'''
_CHOOSE = '''if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]'''
_STOP = '''if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)'''

add("p8_feed_pad_right_after_eos", False, "generate_with_cache",
    _GEN_CORE.replace("CHOOSE", _CHOOSE).replace("STOP", '''if bool(done.all()) or len(out) == max_new_tokens:
            break
        logits, cache = step(torch.where(done, torch.full_like(nxt, pad_id), nxt)[:, None], cache)'''),
    "Breaks 'the call after a row produces eos_id feeds it that eos_id': the finished row is fed pad_id at once.")

add("p8_extra_step_after_last", False, "generate_with_cache",
    _GEN_CORE.replace("CHOOSE", _CHOOSE).replace("STOP", '''logits, cache = step(nxt[:, None], cache)
        if bool(done.all()) or len(out) == max_new_tokens:
            break'''),
    "Breaks 'do not call step after the last token has been chosen'.")

add("p8_greedy_draws_anyway", False, "generate_with_cache",
    _GEN_CORE.replace("CHOOSE", '''probs = torch.softmax(scores / max(temperature, 1e-6), -1)
        nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]
        if temperature == 0:
            nxt = scores.argmax(-1)''').replace("STOP", _STOP),
    "Breaks 'With temperature == 0, take the highest score ... and draw nothing': the generator advances anyway.")

add("p4_mask_multiply", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(ct)
    m = target_mask[:, 1:].to(ct)
    count = int(target_mask[:, 1:].sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    lz = torch.logsumexp(scores, -1)
    per = lz - scores.gather(-1, ids[:, 1:].long()[..., None])[..., 0] + z_loss * lz ** 2
    return (per * m).sum() / count, count
''', "Breaks 'no NaN from positions that are not predicted': multiplying by the mask keeps inf * 0 = NaN from junk scores.")

add("p4_int32_ids_cross_entropy", False, "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[:, :-1].to(ct)
    mask = target_mask[:, 1:]
    count = int(mask.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    ce = F.cross_entropy(scores[mask], ids[:, 1:][mask], reduction="sum")   # ids used as given
    lz = torch.logsumexp(scores[mask], -1)
    return (ce + z_loss * (lz ** 2).sum()) / count, count
''', "Breaks 'ids (B, T) holds integer token ids (int64 or int32)': F.cross_entropy refuses int32 targets.")

add("p5_sandwich_unpacks_late", False, "block_variant", '''
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
    raise ValueError(f"unknown layout {layout!r}")
''', "Breaks 'Call each function the layout uses exactly once ... and call none that it does not use' together with "
     "'Raise a ValueError when post_norms is None': attn and norm_1 run before the error.")
