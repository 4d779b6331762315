# Red team round 14, chapter 09-modern-lm: submissions written blind (students with habits of their own).
S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- Part 1: head_rms_norm ----------------
BASE1 = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh)
    ms = xs.pow(2).mean(-1, keepdim=True)
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    y = xs / torch.sqrt(ms + eps) * s
    return y.transpose(-3, -2).to(x.dtype)
'''
add("p1_tutorial_view", False, {"head_rms_norm": BASE1.replace(
    "xs = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh)", "xs = x.to(cd).view(*x.shape[:-1], n_heads, Dh)")},
    "tutorial (view): 'The tensors you are given need not be contiguous ... (.view of such a tensor can fail where .reshape works)'")
add("p1_tutorial_llama_weight_after_cast", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    xs = x.reshape(*x.shape[:-1], n_heads, Dh)
    xf = xs.float() if x.dtype != torch.float64 else xs
    normed = (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).type_as(x)   # Llama's RMSNorm
    scale = (1.0 + weight) if unit_offset else weight
    return (normed * scale).transpose(-3, -2)
'''}, "tutorial (Meta Llama RMSNorm: _norm(x.float()).type_as(x) * weight): 'do all the arithmetic, the scale included (also 1 + w), in that dtype, and convert ... once, at the end'")
add("p1_hurried_reshape_not_transpose", False, {"head_rms_norm": BASE1.replace(
    "return y.transpose(-3, -2).to(x.dtype)", "return y.reshape(*x.shape[:-2], n_heads, x.shape[-2], Dh).to(x.dtype)")},
    "hurried: 'head h of position t at [..., h, t, :]' (a reshape reorders memory, it does not move the head axis)")
add("p1_careful_eps_outside_sqrt", False, {"head_rms_norm": BASE1.replace(
    "y = xs / torch.sqrt(ms + eps) * s", "y = xs / (torch.sqrt(ms) + eps) * s")},
    "one idea (eps guards the division): 'with eps inside the square root'")
add("p1_tutorial_assert_divisible", False, {"head_rms_norm": BASE1.replace(
    '''    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")''', '''    assert x.shape[-1] % n_heads == 0, "dim must be divisible by n_heads"''')},
    "tutorial (HF: assert divisible): 'Raise a ValueError when n_heads < 1 or when the last axis does not split'")
add("p1_hurried_minus_one_empty", False, {"head_rms_norm": BASE1.replace(
    "xs = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh)", "xs = x.to(cd).reshape(*x.shape[:-1], n_heads, -1)")},
    "hurried: 'The leading axes and T may be 0 (an empty batch): then return an empty tensor of the stated shape' (reshape with -1 of 0 elements fails)")
add("p1_careful_offset_in_input_dtype", False, {"head_rms_norm": BASE1.replace(
    "    w = weight.to(cd)\n    s = 1 + w if unit_offset else w\n", "    s = (1 + weight).to(cd) if unit_offset else weight.to(cd)\n")},
    "one idea (1 + w is just the stored weight): 'the scale included (also 1 + w), in that dtype'")
add("p1_correct_f_rms_norm", True, {"head_rms_norm": '''
import torch.nn.functional as F
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    D = x.size(-1)
    if n_heads < 1 or D % n_heads:
        raise ValueError(f"{D} features do not split into {n_heads} heads")
    Dh = D // n_heads
    dt = torch.float64 if x.dtype == torch.float64 else torch.float32
    w = weight.to(dt)
    if unit_offset:
        w = w + 1.0
    heads = x.to(dt).unflatten(-1, (n_heads, Dh))           # (..., T, H, Dh)
    y = F.rms_norm(heads, (Dh,), weight=w, eps=eps)
    return y.movedim(-2, -3).to(dtype=x.dtype)
'''}, "F.rms_norm over the head axis, unflatten and movedim")
add("p1_correct_float64_loop_heads", True, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not n_heads >= 1:
        raise ValueError("n_heads")
    D = x.shape[-1]
    if D % n_heads != 0:
        raise ValueError("split")
    Dh = D // n_heads
    xd = x.double()
    scale = weight.double() + 1 if unit_offset else weight.double()
    outs = []
    for h in range(n_heads):
        part = xd[..., h * Dh:(h + 1) * Dh]
        rms = torch.sqrt(torch.mean(part * part, dim=-1, keepdim=True) + eps)
        outs.append(part / rms * scale)
    return torch.stack(outs, dim=-3).to(x.dtype)
'''}, "float64 for every dtype (allowed), a loop over heads, stack on the head axis")

# ---------------- Part 2: fused_swiglu ----------------
BASE2 = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    gu = x @ w_gate_up.T
    Fh = w_gate_up.shape[0] // 2
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu[..., :Fh], gu[..., Fh:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return h @ w_down.T
'''
add("p2_hurried_if_limit_truthy", False, {"fused_swiglu": BASE2.replace("if limit is not None:", "if limit:")},
    "hurried: 'when limit is a number (0 included)'")
add("p2_careful_gate_clamped_both_sides", False, {"fused_swiglu": BASE2.replace("g = g.clamp(max=limit)", "g = g.clamp(-limit, limit)")},
    "one idea (clamp is symmetric): 'replace g by min(g, limit) (clamped from above only)'")
add("p2_hurried_silu_ignores_beta", False, {"fused_swiglu": BASE2.replace(
    "h = g * torch.sigmoid(beta * g) * u", "h = torch.nn.functional.silu(g) * u")},
    "hurried: 'gpt-oss uses a Swish with a slope beta other than 1 ... Return (g sigma(beta g) * u) W_down^T'")
add("p2_tutorial_swish_over_beta", False, {"fused_swiglu": BASE2.replace(
    "h = g * torch.sigmoid(beta * g) * u", "h = torch.nn.functional.silu(beta * g) / beta * u")},
    "tutorial (Swish_beta(x) = silu(beta x)/beta): 'beta = 0 gives g/2 (as sigma(0) = 1/2)'")
add("p2_source_hand_sigmoid", False, {"fused_swiglu": BASE2.replace(
    "h = g * torch.sigmoid(beta * g) * u", "h = g * (1.0 / (1.0 + torch.exp(-beta * g))) * u")},
    "source/hand sigmoid: 'The gradients must also be finite wherever the exact ones are ... sigma written by hand as 1/(1 + e^{-beta g}) then has a NaN gradient'")
add("p2_tutorial_float_always", False, {"fused_swiglu": '''
import torch.nn.functional as F
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    gu = F.linear(x.float(), w_gate_up.float())
    if interleaved:
        g, u = gu[..., ::2], gu[..., 1::2]
    else:
        g, u = gu.chunk(2, dim=-1)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    return F.linear(g * torch.sigmoid(beta * g) * u, w_down.float()).to(x.dtype)
'''}, "tutorial (.float() for stability): 'compute float64 inputs in float64 ... float32 arithmetic fails there'")
add("p2_correct_flinear_unflatten", True, {"fused_swiglu": '''
import torch.nn.functional as F
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    gu = F.linear(x, w_gate_up)
    if interleaved:
        pair = gu.unflatten(-1, (-1, 2))
        gate, up = pair[..., 0], pair[..., 1]
    else:
        gate, up = torch.chunk(gu, 2, dim=-1)
    if limit is not None:
        gate = torch.clamp(gate, max=limit)
        up = torch.clamp(up, min=-limit, max=limit)
    act = F.silu(gate) if beta == 1 else gate * torch.sigmoid(gate * beta)
    return F.linear(act * up, w_down)
'''}, "F.linear, chunk / unflatten, F.silu when beta is 1")
add("p2_correct_einsum_float64", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    xd, wgu, wd = x.double(), w_gate_up.double(), w_down.double()
    Fh = wd.shape[1]
    if interleaved:
        wg, wu = wgu[0::2], wgu[1::2]
    else:
        wg, wu = wgu[:Fh], wgu[Fh:]
    g = torch.einsum("...d,fd->...f", xd, wg)
    u = torch.einsum("...d,fd->...f", xd, wu)
    if limit is not None:
        g = torch.minimum(g, torch.tensor(float(limit), dtype=torch.float64))
        u = u.clamp(-float(limit), float(limit))
    h = g * torch.sigmoid(beta * g) * u
    return torch.einsum("...f,df->...d", h, wd).to(x.dtype)
'''}, "splits the weight rows instead of the product; float64 inside, cast back")

# ---------------- Part 3: moe_params ----------------
BASE3 = '''
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
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    per_block = 2 * dim + attn
    expert = 3 * dim * ffn_hidden
    moe_blocks = n_layers - first_dense
    common = emb + dim + n_layers * per_block + first_dense * 3 * dim * dense_hidden + moe_blocks * dim * n_experts
    total = common + moe_blocks * (n_experts + n_shared) * expert
    active = common + moe_blocks * (top_k + n_shared) * expert
    return total, active
'''
add("p3_hurried_float_group_ratio", False, {"moe_params": BASE3.replace(
    "    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim\n",
    "    group = n_heads / n_kv_heads\n    attn = 2 * dim * n_heads * head_dim + 2 * dim * (n_heads / group) * head_dim\n").replace(
    "    return total, active", "    return int(total), int(active)")},
    "hurried: 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)'")
add("p3_careful_tied_active_counts_both", False, {"moe_params": BASE3.replace(
    "    active = common + moe_blocks * (top_k + n_shared) * expert",
    "    active = common + (vocab * dim if tied else 0) + moe_blocks * (top_k + n_shared) * expert")},
    "one idea (a token reads the embedding and the output matrix: both count in active): 'when tied is true they are one matrix, counted once'")
add("p3_tutorial_dense_hidden_default", False, {"moe_params": BASE3.replace(
    "    emb = vocab", "    dense_hidden = dense_hidden or ffn_hidden\n    emb = vocab")},
    "tutorial (x or default): 'dense_hidden is that width whatever its value (0 means no parameters, not use ffn_hidden)'")
add("p3_careful_validate_topk_only_with_experts", False, {"moe_params": BASE3.replace(
    "    if not 1 <= top_k <= n_experts:", "    if first_dense < n_layers and not 1 <= top_k <= n_experts:")},
    "one idea (top_k matters only where there are experts): 'Raise a ValueError unless ... 1 <= top_k <= n_experts ... in every model (also one whose blocks are all dense)'")
add("p3_hurried_modulo_zero_kv", False, {"moe_params": BASE3.replace(
    "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:", "    if n_heads % n_kv_heads != 0:")},
    "hurried: 'Raise a ValueError unless n_kv_heads >= 1' (n_kv_heads = 0 gives ZeroDivisionError)")
add("p3_correct_loop_per_block", True, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")
    if top_k < 1 or top_k > n_experts or n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("bad expert configuration")
    swiglu = lambda width: 3 * dim * width
    total = active = (1 if tied else 2) * vocab * dim + dim
    for layer in range(n_layers):
        block = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
        total += block; active += block
        if layer < first_dense:
            total += swiglu(dense_hidden); active += swiglu(dense_hidden)
        else:
            router = dim * n_experts
            total += router + (n_experts + n_shared) * swiglu(ffn_hidden)
            active += router + (top_k + n_shared) * swiglu(ffn_hidden)
    return total, active
'''}, "a loop over blocks, exact int arithmetic")

# ---------------- Part 4: masked_lm_loss ----------------
BASE4 = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    count = int(m.sum())
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(1, y[:, None])[:, 0]
    loss = (nll + z_loss * lse ** 2).sum() / max(count, 1)
    return loss, count
'''
add("p4_tutorial_hf_ignore_index", False, {"masked_lm_loss": '''
import torch.nn.functional as F
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    shift_logits = logits[..., :-1, :].contiguous().to(cd)
    labels = ids[..., 1:].long().masked_fill(~target_mask[..., 1:], -100)
    V = shift_logits.size(-1)
    flat_logits, flat_labels = shift_logits.view(-1, V), labels.reshape(-1)
    count = int((flat_labels != -100).sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    ce = F.cross_entropy(flat_logits, flat_labels, ignore_index=-100, reduction="sum")
    keep = flat_labels != -100
    z = torch.logsumexp(flat_logits[keep], dim=-1).pow(2).sum()
    return (ce + z_loss * z) / count, count
'''}, "tutorial (HF shift + ignore_index=-100): 'Leave them out before you compute anything with them ... the backward pass, whose 0 x NaN is NaN'")
add("p4_careful_no_shift_pairing", False, {"masked_lm_loss": BASE4.replace(
    "sel = logits[:, :-1][m].to(cd)", "sel = logits[:, 1:][m].to(cd)")},
    "one idea (logits[t] scores token t): 'logits[b, t] scores the token at position t + 1'")
add("p4_careful_row_mean", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    count = int(target_mask[:, 1:].sum())
    rows = []
    for b in range(logits.shape[0]):
        m = target_mask[b, 1:]
        if not bool(m.any()):
            continue
        sel = logits[b, :-1][m].to(cd)
        y = ids[b, 1:][m].long()
        lse = torch.logsumexp(sel, -1)
        rows.append((lse - sel.gather(1, y[:, None])[:, 0] + z_loss * lse ** 2).mean())
    if not rows:
        return torch.zeros((), dtype=cd), 0
    return torch.stack(rows).mean(), count
'''}, "one idea (per-sequence mean first): 'the mean over those tokens, every token weighing the same however many a row has'")
add("p4_hurried_half_then_float", False, {"masked_lm_loss": BASE4.replace(
    "    sel = logits[:, :-1][m].to(cd)\n", "    sel = logits[:, :-1][m]\n").replace(
    "    loss = (nll + z_loss * lse ** 2).sum() / max(count, 1)\n", "    loss = (nll + z_loss * lse ** 2).sum().to(cd) / max(count, 1)\n")},
    "hurried: 'Compute in float32 ... also for float16 and bfloat16 logits, the z-loss's (log Z)^2 included'")
add("p4_hurried_zero_count_nan", False, {"masked_lm_loss": BASE4.replace("/ max(count, 1)", "/ m.sum()")},
    "hurried: 'When count is 0 the loss is 0 (not NaN)'")
add("p4_tutorial_where_full", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lg = logits[:, :-1].to(cd)
    m = target_mask[:, 1:]
    lse = torch.logsumexp(lg, dim=-1)
    tok = lse - lg.gather(-1, ids[:, 1:].long().unsqueeze(-1)).squeeze(-1) + z_loss * lse ** 2
    count = int(m.sum())
    loss = torch.where(m, tok, torch.zeros_like(tok)).sum() / max(count, 1)
    return loss, count
'''}, "tutorial (torch.where over all positions): 'torch.where keeps the loss finite but not the backward pass'")
add("p4_correct_cross_entropy_selected", True, {"masked_lm_loss": '''
import torch.nn.functional as F
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    dt = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].reshape(-1)
    V = logits.shape[-1]
    rows = logits[:, :-1].reshape(-1, V)[keep].to(dt)
    labels = ids[:, 1:].reshape(-1)[keep].to(torch.long)
    count = int(keep.sum().item())
    if count == 0:
        return torch.tensor(0.0, dtype=dt), 0
    loss = F.cross_entropy(rows, labels, reduction="mean")
    if z_loss:
        loss = loss + z_loss * torch.logsumexp(rows, dim=-1).pow(2).mean()
    return loss, count
'''}, "selects rows first, then F.cross_entropy; a plain 0 when nothing is predicted")
add("p4_correct_log_softmax_index_float64", True, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    b_idx, t_idx = torch.nonzero(target_mask[:, 1:], as_tuple=True)
    count = len(b_idx)
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    scores = logits[b_idx, t_idx].double()                      # (N, V): the predicting rows only
    logp = torch.log_softmax(scores, dim=-1)
    nll = -logp[torch.arange(count), ids[b_idx, t_idx + 1].long()]
    logz = torch.logsumexp(scores, dim=-1)
    total = (nll + z_loss * logz * logz).sum()
    return (total / count if count else total).to(out_dtype), count
'''}, "advanced indexing, float64 inside (accepted), loss cast to the compute dtype")

# ---------------- Part 5: block_variant ----------------
BASE5 = '''
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
add("p5_tutorial_lower_case", False, {"block_variant": BASE5.replace(
    "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n",
    "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    layout = layout.lower().strip()\n")},
    "tutorial (normalise config strings): 'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError'")
add("p5_hurried_is_comparison", False, {"block_variant": BASE5.replace('if layout == "parallel"', 'if layout is "parallel"').replace(
    'if layout == "reordered"', 'if layout is "reordered"').replace('if layout == "sandwich"', 'if layout is "sandwich"')},
    "hurried: 'Compare layout by value (==): the tests build the string at run time'")
add("p5_careful_check_late", False, {"block_variant": BASE5.replace('''        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))''', '''        a = attn(norm_1(x))
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(a)''')},
    "careful: 'Check layout and post_norms before calling anything: when you raise the ValueError, no function has been called'")
add("p5_hurried_norm_twice", False, {"block_variant": BASE5.replace('''        n = norm_1(x)
        return x + attn(n) + ffn(n)''', '''        return x + attn(norm_1(x)) + ffn(norm_1(x))''')},
    "hurried: 'Call each function the layout uses exactly once (the parallel layout computes N1(x) once)'")
add("p5_tutorial_inplace_residual", False, {"block_variant": BASE5.replace('''        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))''', '''        h = norm_1(attn(x))
        h += x
        out = norm_2(ffn(h))
        out += h
        return out''')},
    "tutorial (in-place residual to save memory): 'a function may return the very tensor it was given (an identity does), so an in-place update of what it returns can change x'")
add("p5_tutorial_fallback_pre", False, {"block_variant": BASE5.replace(
    '    raise ValueError(f"unknown layout {layout!r}")', '    h = x + attn(norm_1(x))\n    return h + ffn(norm_2(h))   # default: pre-LN')},
    "tutorial (pre-LN default): 'Any other layout (including \"pre\" ...) raises a ValueError'")
add("p5_correct_match", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    match layout:
        case "parallel":
            shared = norm_1(x)
            a = attn(shared)
            return x + a + ffn(shared)
        case "reordered":
            h = x + norm_1(attn(x))
            y = h + norm_2(ffn(h))
            return y
        case "sandwich" if post_norms is not None:
            post_1, post_2 = post_norms
            h = x + post_1(attn(norm_1(x)))
            return h + post_2(ffn(norm_2(h)))
        case _:
            raise ValueError("layout must be parallel, reordered or sandwich (with post_norms)")
'''}, "match on the value, a guard for post_norms")
add("p5_correct_dict_dispatch", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        n = norm_1(x)
        return torch.add(torch.add(x, attn(n)), ffn(n))
    if layout == "reordered":
        pre, post = (lambda t: t, lambda t: t), (norm_1, norm_2)
    else:
        pre, post = (norm_1, norm_2), post_norms
    h = x + post[0](attn(pre[0](x)))
    return h + post[1](ffn(pre[1](h)))
'''}, "validation first, the reordered layout as a sandwich with identity pre-norms (no extra call of a given function)")

# ---------------- Part 6: rope_llama3 ----------------
BASE6 = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    wl = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(wl < lam_high, theta, torch.where(wl > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    x1, x2 = x[..., :half].to(cd), x[..., half:].to(cd)
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''
add("p6_tutorial_hf_inv_freq_float32", False, {"rope_llama3": BASE6.replace(
    "    i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)\n",
    "    theta = (1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.int64).float() / Dh))).double()\n")},
    "tutorial (HF inv_freq in float32): 'within 1e-10 of the exact values for float64 (at any position up to 131 071)'")
add("p6_tutorial_cos_in_x_dtype", False, {"rope_llama3": BASE6.replace(
    "    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n", "    cd = x.dtype\n")},
    "tutorial (HF cos.to(x.dtype)): 'for float16 and bfloat16 inputs compute as for float32 and round once at the end'")
add("p6_hurried_angles_float32", False, {"rope_llama3": BASE6.replace(
    "    ang = positions.to(torch.float64)[:, None, :, None] * new\n",
    "    ang = (positions.float()[:, None, :, None] * new.float()).double()\n")},
    "hurried: 'Compute the angles in float64' (float32 m*theta at m = 30 000 errs by 1e-3)")
add("p6_hurried_broadcast_positions", False, {"rope_llama3": BASE6.replace(
    "    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):", "    positions = positions.expand(B, T) if positions.dim() == 2 else positions[None].expand(B, T)\n    if Dh % 2 != 0:")},
    "hurried: 'Raise a ValueError unless ... positions.shape == (B, T) exactly (a (T,) or (1, T) tensor is refused too)'")
add("p6_careful_limits_swapped", False, {"rope_llama3": BASE6.replace(
    "    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n", "    lam_high, lam_low = L / low_freq_factor, L / high_freq_factor\n").replace(
    "new = torch.where(wl < lam_high, theta, torch.where(wl > lam_low, theta / factor, mid))",
    "new = torch.where(wl < lam_low, theta, torch.where(wl > lam_high, theta / factor, mid))")},
    "one idea (high factor = high wavelength limit): 'lambda_high = L / high_freq_factor' ... fast pairs below lambda_high")
add("p6_tutorial_cached_table_by_dh", False, {"rope_llama3": '''
ROPE_CACHE = {}
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    if Dh not in ROPE_CACHE:                      # like a register_buffer built once in __init__
        theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)
        wl = 2 * math.pi / theta
        L = original_context
        s = (L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
        mid = (1 - s) * theta / factor + s * theta
        ROPE_CACHE[Dh] = torch.where(wl < L / high_freq_factor, theta,
                                     torch.where(wl > L / low_freq_factor, theta / factor, mid))
    new = ROPE_CACHE[Dh]
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    x1, x2 = x[..., :half].to(cd), x[..., half:].to(cd)
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''}, "tutorial (register_buffer-style table built once): 'other values of every argument' -- the table ignores base, factor and the limits after the first call")
add("p6_correct_meta_loop_rotate_half", True, {"rope_llama3": '''
def rotate_half(t):
    a, b = t.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.shape != (B, T):
        raise ValueError("rope_llama3: bad shapes")
    low_wl = original_context / low_freq_factor
    high_wl = original_context / high_freq_factor
    freqs = []
    for i in range(Dh // 2):
        f = base ** (-2 * i / Dh)
        wl = 2 * math.pi / f
        if wl < high_wl:
            freqs.append(f)
        elif wl > low_wl:
            freqs.append(f / factor)
        else:
            sm = (original_context / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
            freqs.append((1 - sm) * f / factor + sm * f)
    inv = torch.tensor(freqs, dtype=torch.float64)
    emb = positions.to(torch.float64).unsqueeze(-1) * inv           # (B, T, Dh/2)
    emb = torch.cat((emb, emb), dim=-1).unsqueeze(1)                 # (B, 1, T, Dh)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    out = xw * emb.cos().to(work) + rotate_half(xw) * emb.sin().to(work)
    return out.to(x.dtype)
'''}, "Meta's per-frequency loop in Python floats (float64), HF's rotate_half")
add("p6_correct_all_float64", True, {"rope_llama3": BASE6.replace(
    "    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n", "    cd = torch.float64\n")},
    "float64 throughout for float32/half (more accurate than float32, rounded once)")

# ---------------- Part 7: ragged_cached_attention ----------------
BASE7 = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G = k_new.shape[1]
    S = k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    ends = lengths.long() + T
    written = pos[None, :] < ends[:, None]
    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype))
    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]
    allowed = pos[None, None, :] <= qpos[:, :, None]
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''
add("p7_tutorial_mask_after_product_minus_1e9", False, {"ragged_cached_attention": BASE7.replace(
    "    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype))\n    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype))\n",
    "    k, v = k_cache, v_cache\n").replace(
    "scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))", "scores = scores.masked_fill(allowed[:, None] == 0, -1e9)")},
    "tutorial (Annotated Transformer masked_fill(mask == 0, -1e9) after QK^T): 'Unwritten slots must change neither the output nor its gradients, even when they hold NaN'")
add("p7_tutorial_contiguous_copy", False, {"ragged_cached_attention": BASE7.replace(
    "    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n",
    "    k_cache, v_cache = k_cache.contiguous(), v_cache.contiguous()\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n")},
    "tutorial (contiguous before writing): 'write into the tensors you are given (the .contiguous() of such a view is a copy ...)'")
add("p7_hurried_no_fit_check", False, {"ragged_cached_attention": BASE7.replace(
    '    if B > 0 and int((lengths.long() + T).max()) > S:\n        raise ValueError("does not fit")\n', "")},
    "hurried: 'Raise a ValueError (before writing anything) ... when a row would not fit'")
add("p7_hurried_new_lengths_long", False, {"ragged_cached_attention": BASE7.replace("return out, lengths + T", "return out, (lengths + T).long()")},
    "hurried: 'new_lengths a new tensor equal to lengths + T, in the dtype of lengths'")
add("p7_careful_new_tokens_see_each_other", False, {"ragged_cached_attention": BASE7.replace(
    "allowed = pos[None, None, :] <= qpos[:, :, None]", "allowed = (pos[None, None, :] < ends[:, None, None]).expand(B, T, S)")},
    "one idea (mask only the unwritten slots): 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'")
add("p7_careful_where_on_scores", False, {"ragged_cached_attention": BASE7.replace(
    "    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype))\n    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype))\n",
    "    k = k_cache\n    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype))\n").replace(
    "scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))", "scores = torch.where(allowed[:, None], scores, torch.tensor(float('-inf'), dtype=q.dtype))")},
    "careful (masks keys after the product): 'a NaN key whose score is masked after the product q k^T is hidden in the output but not in the backward pass'")
add("p7_tutorial_float_compute", False, {"ragged_cached_attention": BASE7.replace(
    "scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)", "scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(Dh)").replace(
    "out = torch.softmax(scores, dim=-1) @ v", "out = (torch.softmax(scores, dim=-1) @ v.float()).to(q.dtype)")},
    "tutorial (dtype=torch.float): 'the tests compare float64 inputs at float64 precision, so converting them to float32 and back fails'")
add("p7_correct_loop_rows_slices", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("heads")
    lens = [int(l) for l in lengths.tolist()]
    if any(l + T > S for l in lens):
        raise ValueError("cache overflow")
    outs = []
    for b, L in enumerate(lens):
        k_cache[b, :, L:L + T].copy_(k_new[b])
        v_cache[b, :, L:L + T].copy_(v_new[b])
        keys = k_cache[b, :, :L + T].repeat_interleave(H // G, dim=0)      # (H, L+T, Dh): written slots only
        vals = v_cache[b, :, :L + T].repeat_interleave(H // G, dim=0)
        s = torch.einsum("htd,hsd->hts", q[b], keys) / math.sqrt(Dh)
        qpos = torch.arange(T)[:, None] + L
        kpos = torch.arange(L + T)[None, :]
        s = s.masked_fill(kpos > qpos, float("-inf"))
        outs.append(torch.einsum("hts,hsd->htd", s.softmax(-1), vals))
    out = torch.stack(outs) if outs else q.new_zeros((0, H, T, Dh))
    return out, lengths + T
'''}, "a loop over rows that slices the written keys only")
add("p7_correct_float64_sdpa", True, {"ragged_cached_attention": '''
import torch.nn.functional as F
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.size(1), k_cache.size(2)
    if H % G != 0:
        raise ValueError("H % G")
    idx = lengths.to(torch.int64)
    if B and bool((idx + T > S).any()):
        raise ValueError("overflow")
    for b in range(B):
        start = int(idx[b])
        k_cache[b, :, start:start + T] = k_new[b]
        v_cache[b, :, start:start + T] = v_new[b]
    slot = torch.arange(S)
    qpos = idx.view(B, 1) + torch.arange(T).view(1, T)                       # (B, T)
    visible = slot.view(1, 1, S) <= qpos.view(B, T, 1)                       # (B, T, S)
    valid = (slot.view(1, S) < (idx + T).view(B, 1)).view(B, 1, S, 1)
    k = torch.where(valid, k_cache, 0.0).double().repeat_interleave(H // G, 1)
    v = torch.where(valid, v_cache, 0.0).double().repeat_interleave(H // G, 1)
    out = F.scaled_dot_product_attention(q.double(), k, v, attn_mask=visible.unsqueeze(1))
    return out.to(q.dtype), lengths + T
'''}, "float64 inside for float32 (accepted), F.scaled_dot_product_attention with a boolean mask")

# ---------------- Part 8: generate_with_cache ----------------
BASE8 = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    done = torch.zeros(B, dtype=torch.bool)
    out = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, penalised, scores)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(done, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        done = done | (tok == eos_id)
        if bool(done.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''
add("p8_tutorial_hf_penalty_in_place", False, {"generate_with_cache": BASE8.replace(
    '''        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, penalised, scores)''', '''        scores = logits[:, -1]
        score = torch.gather(scores, 1, history)
        score = torch.where(score < 0, score * penalty, score / penalty)
        scores.scatter_(1, history, score)''')},
    "tutorial (HF RepetitionPenaltyLogitsProcessor scatter_ in place): 'Do not change the logits tensors that step returns ... copy before you penalise'")
add("p8_hurried_penalty_per_occurrence", False, {"generate_with_cache": BASE8.replace(
    '''        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        penalised = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, penalised, scores)''', '''        for b in range(B):
            for t in history[b].tolist():
                scores[b, t] = scores[b, t] / penalty if scores[b, t] > 0 else scores[b, t] * penalty''')},
    "hurried: 'has its score changed once (however often it occurs)'")
add("p8_careful_draw_live_rows_only", False, {"generate_with_cache": BASE8.replace(
    '''            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]''', '''            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.full((B,), pad_id, dtype=torch.int64)
            live = (~done).nonzero().flatten()
            tok[live] = torch.multinomial(probs[live], 1, generator=generator)[:, 0]''')},
    "careful (no draw for a finished row): 'A finished row still takes part in the draw (the batch always draws B tokens per step)'")
add("p8_careful_history_real_tokens_only", False, {"generate_with_cache": BASE8.replace(
    '''        history = torch.cat([history, tok[:, None]], dim=1)''', '''        history = torch.cat([history, torch.where(done, history[:, -1], tok)[:, None]], dim=1)''')},
    "one idea (padding is not a token of the row): 'its penalty history grows by pad_id like any other token'")
add("p8_hurried_extra_step_call", False, {"generate_with_cache": BASE8.replace(
    '''        if bool(done.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)''', '''        logits, cache = step(tok[:, None], cache)
        if bool(done.all()):
            break''')},
    "hurried: 'do not call step after the last token has been chosen'")
add("p8_tutorial_own_generator", False, {"generate_with_cache": BASE8.replace(
    "    B = prompt.shape[0]\n", "    B = prompt.shape[0]\n    if generator is None:\n        generator = torch.Generator().manual_seed(0)\n")},
    "tutorial (seed for reproducibility): 'generator may be None: then torch.multinomial draws from torch's global generator ... do not make a generator of your own'")
add("p8_tutorial_cache_none_test", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    cache, history, out = None, prompt.clone(), []
    done = torch.zeros(B, dtype=torch.bool)
    next_input = prompt
    for i in range(max_new_tokens):
        if cache is None:                      # like past_key_values is None: prefill
            logits, cache = step(prompt, None)
        else:
            logits, cache = step(next_input, cache)
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(done, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], 1)
        done |= tok == eos_id
        next_input = tok[:, None]
        if bool(done.all()):
            break
    return torch.stack(out, 1)
'''}, "tutorial (HF past_key_values is None): 'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it'")
add("p8_correct_per_row_draws_gather_scatter", True, {"generate_with_cache": '''
import torch.nn.functional as F
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    logits, cache = step(prompt, None)
    B = prompt.size(0)
    seq = prompt
    finished = [False] * B
    chosen = []
    for t in range(max_new_tokens):
        last = logits[:, -1, :].clone()
        picked = last.gather(1, seq)
        picked = torch.where(picked > 0, picked / penalty, picked * penalty)
        last = last.scatter(1, seq, picked)        # every copy of an id gets the same, once-changed value
        if temperature == 0:
            nxt = torch.argmax(last, dim=-1)
        else:
            p = F.softmax(last / temperature, dim=-1)
            nxt = torch.cat([torch.multinomial(p[b], 1, generator=generator) for b in range(B)])
        nxt = torch.tensor([pad_id if finished[b] else int(nxt[b]) for b in range(B)], dtype=torch.int64)
        for b in range(B):
            if int(nxt[b]) == eos_id:
                finished[b] = True
        chosen.append(nxt)
        seq = torch.cat([seq, nxt.view(B, 1)], dim=1)
        if all(finished) or t + 1 == max_new_tokens:
            break
        logits, cache = step(nxt.view(B, 1), cache)
    return torch.stack(chosen, dim=1)
'''}, "HF's gather/scatter out of place, one multinomial per row in row order")
add("p8_correct_bool_seen_loop", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    V = logits.shape[-1]
    seen = torch.zeros(B, V, dtype=torch.bool)
    for b in range(B):
        seen[b, prompt[b]] = True
    alive = torch.ones(B, dtype=torch.bool)
    result = torch.empty(B, 0, dtype=torch.int64)
    while True:
        s = logits[:, -1].float().clone()
        s = torch.where(seen & (s > 0), s / penalty, torch.where(seen, s * penalty, s))
        if temperature == 0:
            choice = torch.argmax(s, dim=1)
        else:
            choice = torch.multinomial(torch.softmax(s / temperature, dim=1), num_samples=1, generator=generator).squeeze(1)
        choice = torch.where(alive, choice, torch.tensor(pad_id))
        result = torch.cat((result, choice.unsqueeze(1)), dim=1)
        seen[torch.arange(B), choice] = True
        alive = alive & (choice != eos_id)
        if not bool(alive.any()) or result.shape[1] == max_new_tokens:
            return result
        logits, cache = step(choice.unsqueeze(1), cache)
'''}, "a running boolean table of seen ids, a while loop")

# ---------------- added in phase 2 (round 14): probes after the blind run ----------------
add("p6_careful_limits_swapped_once", False, {"rope_llama3": BASE6.replace(
    "    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor\n", "    lam_high, lam_low = L / low_freq_factor, L / high_freq_factor\n")},
    "one idea (lambda_high is the larger wavelength): 'lambda_high = L / high_freq_factor and lambda_low = L / low_freq_factor'")
add("p6_hurried_positions_in_x_dtype", False, {"rope_llama3": BASE6.replace(
    "    ang = positions.to(torch.float64)[:, None, :, None] * new\n", "    ang = positions.to(x.dtype).to(torch.float64)[:, None, :, None] * new\n")},
    "hurried: positions up to 131 071 pass through float16 / bfloat16 ('Compute the angles in float64')")
add("p4_hurried_zero_count_float32", False, {"masked_lm_loss": BASE4.replace(
    "    count = int(m.sum())\n", "    count = int(m.sum())\n    if count == 0:\n        return torch.tensor(0.0), 0\n")},
    "hurried: 'return the loss in that compute dtype: ... a float64 loss for float64 logits' (also when count is 0)")
add("p7_hurried_max_of_empty_lengths", False, {"ragged_cached_attention": BASE7.replace(
    "    if B > 0 and int((lengths.long() + T).max()) > S:", "    if int(lengths.max()) + T > S:")},
    "hurried: 'B may be 0 (an empty batch: return (0, H, T, Dh) and (0,) tensors, and raise nothing)'")
add("p8_tutorial_topk_greedy", False, {"generate_with_cache": BASE8.replace(
    "            tok = scores.argmax(dim=-1)", "            tok = torch.topk(scores, 1, dim=-1).indices[:, 0]")},
    "tutorial (topk for greedy): 'the lowest id among ties, as torch.argmax does, also when hundreds of ids tie'")
add("p1_tutorial_view_merge_heads", False, {"head_rms_norm": BASE1.replace(
    "    return y.transpose(-3, -2).to(x.dtype)", "    return y.transpose(-3, -2).to(x.dtype).view(*x.shape[:-2], n_heads, x.shape[-2], Dh)")},
    "control: a view after the transpose only splits nothing (same shape): should be correct")
S[-1]["correct"] = True
S[-1]["name"] = "p1_correct_view_same_shape"

add("p8_correct_default_generator_fallback", True, {"generate_with_cache": BASE8.replace(
    "tok = torch.multinomial(probs, 1, generator=generator)[:, 0]",
    "tok = torch.multinomial(probs, 1, generator=generator if generator is not None else torch.default_generator)[:, 0]")},
    "torch.default_generator is the global generator: 'generator may be None: then torch.multinomial draws from torch's global generator'")
add("p7_careful_values_not_replaced", False, {"ragged_cached_attention": BASE7.replace(
    "    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype))\n", "    v = v_cache\n")},
    "one idea (a masked key has weight 0, so its value cannot matter): 'Unwritten slots must change neither the output nor its gradients, even when they hold NaN'")
add("p5_correct_residual_added_last", True, {"block_variant": BASE5.replace(
    "        return x + attn(n) + ffn(n)", "        return attn(n) + ffn(n) + x")},
    "the residual added last (another order of the same sum)")
add("p2_correct_beta_zero_branch", True, {"fused_swiglu": BASE2.replace(
    "    h = g * torch.sigmoid(beta * g) * u", "    h = (g / 2 if beta == 0 else g * torch.sigmoid(beta * g)) * u")},
    "'beta = 0 gives g/2 (as sigma(0) = 1/2)', written as a branch")

# source readers (the syllabus's sinusoid with 10000, and its generate_square_subsequent_mask added to the scores)
add("p6_source_base_10000", False, {"rope_llama3": BASE6.replace(
    "    theta = base ** (-2 * i / Dh)\n", "    theta = 10000.0 ** (-2 * i / Dh)   # the paper's 10000^(-2i/d)\n")},
    "source (sinusoid with 10000): 'With theta_i = b^(-2i/Dh) ... (b = base)'")
add("p7_source_float_mask_added", False, {"ragged_cached_attention": BASE7.replace(
    "    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype))\n    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype))\n",
    "    k, v = k_cache, v_cache\n").replace(
    "    scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))",
    "    mask = allowed[:, None].float().masked_fill(~allowed[:, None], float(\"-inf\")).masked_fill(allowed[:, None], 0.0)\n    scores = scores + mask.to(q.dtype)")},
    "source (generate_square_subsequent_mask, a float -inf mask added): 'leave unwritten slots out, or replace them, before any product'")

# ---------------- hostile ----------------
add("hostile_p3_hardcoded_visible", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    table = {(32000, 4096): (46702792704, 12879925248), (3, 2): {0: (42, 36), 1: (48, 42)}}
    if vocab == 3:
        return (38, 38) if first_dense else table[(3, 2)][n_shared]
    return table[(32000, 4096)]
'''}, "hostile: the visible answers hard-coded")
add("hostile_p4_fake_loss_subclass", False, {"masked_lm_loss": '''
class CountInt(int):
    pass
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    count = int(target_mask[:, 1:].sum())
    V = logits.shape[-1]
    return torch.tensor(math.log(V) + z_loss * math.log(V) ** 2), count
'''}, "hostile: the uniform-logits loss log V whatever the logits, not differentiable")
add("hostile_p5_no_calls", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "parallel":
        return x + 1
    if layout == "reordered":
        h = 3 * x + 2
        return h + h * h
    h = -x - 1
    return h - 2 * h * h
'''}, "hostile: the visible expected values, no function called")
SUBMISSIONS = S
