# Chapter 09 red-team round 19 submissions (off-by-one, padding/reduction, paper reader, numerically naive)
S = []
def add(name, correct, cells, why):
    S.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------------------------------------------------------- Part 1 head_rms_norm
P1_OK = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    *lead, T, D = x.shape
    Dh = D // n_heads
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.reshape(*lead, T, n_heads, Dh).transpose(-3, -2)          # (..., H, T, Dh)
    ms = xh.to(torch.float64).pow(2).mean(dim=-1, keepdim=True)
    inv = torch.rsqrt(ms + eps).to(work)
    w = weight.to(work)
    scale = 1 + w if unit_offset else w
    return (xh.to(work) * inv * scale).to(x.dtype)
'''
add("p1_ok_model_like", True, {"head_rms_norm": P1_OK}, "correct")
add("p1_paper_eps_outside_sqrt", False, {"head_rms_norm": P1_OK.replace("inv = torch.rsqrt(ms + eps).to(work)", "inv = (1.0 / (torch.sqrt(ms) + eps)).to(work)")},
    "'with eps inside the square root' (visible eps = 0)")
add("p1_paper_llama_cast_then_weight", False, {"head_rms_norm": P1_OK.replace("return (xh.to(work) * inv * scale).to(x.dtype)", "return (xh.to(work) * inv).to(x.dtype) * scale.to(x.dtype)")},
    "Llama's reference: normalise, cast to the input dtype, then multiply by the weight: 'convert the product to the dtype of x once, at the end'")
add("p1_offby1_heads_le_1", False, {"head_rms_norm": P1_OK.replace("if n_heads < 1 or", "if n_heads <= 1 or")},
    "'Raise a ValueError when n_heads < 1' (n_heads = 1 is allowed)")
add("p1_numeric_norm_float32", False, {"head_rms_norm": P1_OK.replace("ms = xh.to(torch.float64).pow(2).mean(dim=-1, keepdim=True)", "ms = (torch.linalg.vector_norm(xh.to(work), dim=-1, keepdim=True) ** 2 / Dh).to(torch.float64)")},
    "'take the mean of the squares in float64': norm in float32 then squared overflows for 1e25")
add("p1_ok_norm_float64", True, {"head_rms_norm": P1_OK.replace("ms = xh.to(torch.float64).pow(2).mean(dim=-1, keepdim=True)", "ms = torch.linalg.vector_norm(xh.to(torch.float64), dim=-1, keepdim=True) ** 2 / Dh")},
    "norm in float64, squared, divided by Dh")
add("p1_ok_loop_heads_view_float64", True, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not n_heads >= 1:
        raise ValueError("n_heads must be at least 1")
    D = x.shape[-1]
    if D % n_heads:
        raise ValueError("last axis does not split")
    Dh = D // n_heads
    w = weight.double()
    s = (1.0 + w) if unit_offset else w
    outs = []
    for h in range(n_heads):
        xs = x[..., h * Dh:(h + 1) * Dh].double()
        r = torch.sqrt(torch.mean(xs * xs, dim=-1, keepdim=True) + eps)
        outs.append(xs / r * s)
    return torch.stack(outs, dim=-3).to(x.dtype)
'''}, "float64 throughout ('float64 for every input dtype is accepted too'), loop over heads, division by sqrt")
add("p1_padding_mean_sum_over_D", True, {"head_rms_norm": P1_OK.replace("ms = xh.to(torch.float64).pow(2).mean(dim=-1, keepdim=True)", "ms = xh.to(torch.float64).pow(2).sum(dim=-1, keepdim=True) / D * n_heads if n_heads > 1 else xh.to(torch.float64).pow(2).sum(dim=-1, keepdim=True) / Dh")},
    "algebraically the per-head mean (sum / (D / H)): correct")

# ---------------------------------------------------------------- Part 2 fused_swiglu
P2_OK = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    F2 = w_gate_up.shape[0] // 2
    if interleaved:
        wg, wu = w_gate_up[0::2], w_gate_up[1::2]
    else:
        wg, wu = w_gate_up[:F2], w_gate_up[F2:]
    g = x @ wg.T
    u = x @ wu.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    h = g * torch.sigmoid(beta * g) * u
    return h @ w_down.T
'''
add("p2_ok_model_like", True, {"fused_swiglu": P2_OK}, "correct")
add("p2_offby1_limit_truthy", False, {"fused_swiglu": P2_OK.replace("if limit is not None:", "if limit:")},
    "'when limit is a number (0 included)'")
add("p2_paper_gate_clamped_both_sides", False, {"fused_swiglu": P2_OK.replace("g = g.clamp(max=limit)", "g = g.clamp(min=-limit, max=limit)")},
    "'replace g by min(g, limit) (clamped from above only)'")
add("p2_numeric_silu_over_beta", False, {"fused_swiglu": P2_OK.replace("h = g * torch.sigmoid(beta * g) * u", "h = torch.nn.functional.silu(beta * g) / beta * u")},
    "'beta = 0 gives g/2': silu(beta g)/beta is 0/0 at beta = 0")
add("p2_ok_one_matmul_view", True, {"fused_swiglu": '''
import torch.nn.functional as F
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    gu = F.linear(x, w_gate_up)                      # one matrix product, (..., 2F)
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu.chunk(2, dim=-1)
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, -limit, limit)
    return F.linear(g * torch.sigmoid(g * beta) * u, w_down)
'''}, "fused product then split")
add("p2_numeric_sigmoid_by_exp_neg_abs", True, {"fused_swiglu": P2_OK.replace("h = g * torch.sigmoid(beta * g) * u", "z = beta * g\n    e = torch.exp(-z.abs())\n    sig = torch.where(z >= 0, 1 / (1 + e), e / (1 + e))\n    h = g * sig * u")},
    "stable sigmoid written by hand (exp of -|z| never overflows)")

# ---------------------------------------------------------------- Part 3 moe_params
P3_OK = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not 1 <= top_k <= n_experts:
        raise ValueError("top_k")
    if n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("blocks")
    emb = vocab * dim * (1 if tied else 2)
    attn = dim * n_heads * head_dim * 2 + 2 * dim * n_kv_heads * head_dim
    norms = 2 * dim
    expert = 3 * dim * ffn_hidden
    dense = first_dense * (attn + norms + 3 * dim * dense_hidden)
    moe_blocks = n_layers - first_dense
    router = dim * n_experts
    total = emb + dim + dense + moe_blocks * (attn + norms + router + (n_experts + n_shared) * expert)
    active = emb + dim + dense + moe_blocks * (attn + norms + router + (top_k + n_shared) * expert)
    return total, active
'''
add("p3_ok_model_like", True, {"moe_params": P3_OK}, "correct")
add("p3_offby1_topk_lt_E", False, {"moe_params": P3_OK.replace("if not 1 <= top_k <= n_experts:", "if not 1 <= top_k < n_experts:")},
    "'1 <= top_k <= n_experts' (top_k = n_experts is allowed)")
add("p3_paper_tied_counts_twice_active", False, {"moe_params": P3_OK.replace("active = emb + dim", "active = vocab * dim * 2 + dim")},
    "'when tied is true they are one matrix, counted once' (also in active)")
add("p3_numeric_float_fraction", False, {"moe_params": P3_OK.replace("active = emb + dim + dense + moe_blocks * (attn + norms + router + (top_k + n_shared) * expert)",
    "active = int(total - moe_blocks * expert * n_experts * (1 - top_k / n_experts))")},
    "'two exact Python ints (the hidden tests include sizes whose counts pass 2**53)'")
add("p3_offby1_dense_hidden_or", False, {"moe_params": P3_OK.replace("3 * dim * dense_hidden", "3 * dim * (dense_hidden or ffn_hidden)")},
    "'dense_hidden is that width whatever its value (0 means no parameters, not use ffn_hidden)'")
add("p3_ok_loop_blocks", True, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    ok = (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0
          and 0 <= first_dense <= n_layers)
    if not ok:
        raise ValueError("invalid configuration")
    total = active = vocab * dim + (0 if tied else vocab * dim) + dim
    for layer in range(n_layers):
        common = 2 * dim + dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim + n_heads * head_dim * dim
        if layer < first_dense:
            ffn = 3 * dim * dense_hidden
            total += common + ffn
            active += common + ffn
        else:
            swiglu = 2 * dim * ffn_hidden + ffn_hidden * dim
            total += common + dim * n_experts + (n_experts + n_shared) * swiglu
            active += common + dim * n_experts + (top_k + n_shared) * swiglu
    return int(total), int(active)
'''}, "a loop over the blocks")
# ---------------------------------------------------------------- Part 4 masked_lm_loss
P4_OK = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    sel = logits[:, :-1][pred].to(work)               # (count, V): only the predicting rows
    y = ids[:, 1:][pred].long()
    lz = torch.logsumexp(sel, dim=-1)
    nll = lz - sel.gather(-1, y[:, None])[:, 0]
    per = nll + z_loss * lz * lz
    return per.sum() / count, count
'''
add("p4_ok_model_like", True, {"masked_lm_loss": P4_OK}, "correct")
add("p4_offby1_mask_not_shifted", False, {"masked_lm_loss": P4_OK.replace("pred = target_mask[:, 1:]", "pred = target_mask[:, :-1]")},
    "'target_mask[b, t]: True where the token ids[b, t] is to be predicted ... Position 0 has no prediction'")
add("p4_padding_mean_of_row_means", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    rows = []
    for b in range(ids.shape[0]):
        m = pred[b]
        if m.any():
            sel = logits[b, :-1][m].to(work)
            y = ids[b, 1:][m].long()
            lz = torch.logsumexp(sel, -1)
            rows.append((lz - sel.gather(-1, y[:, None])[:, 0] + z_loss * lz ** 2).mean())
    return torch.stack(rows).mean(), count
'''}, "'the mean over those tokens, every token weighing the same however many a row has'")
add("p4_paper_hf_cross_entropy_ignore", False, {"masked_lm_loss": '''
import torch.nn.functional as F
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    labels = ids[:, 1:].long().masked_fill(~target_mask[:, 1:], -100)
    count = int((labels != -100).sum())
    if count == 0:
        return torch.zeros((), dtype=work), 0
    shift = logits[:, :-1].to(work)
    V = shift.shape[-1]
    ce = F.cross_entropy(shift.reshape(-1, V), labels.reshape(-1), ignore_index=-100, reduction="sum")
    lz = torch.logsumexp(shift, dim=-1)[labels != -100]
    return (ce + z_loss * (lz ** 2).sum()) / count, count
'''}, "Hugging Face's shifted cross-entropy with ignore_index: 'Leave them out before you compute anything with them' (NaN scores give NaN gradients)")
add("p4_numeric_log_softmax_textbook", False, {"masked_lm_loss": P4_OK.replace("lz = torch.logsumexp(sel, dim=-1)", "lz = torch.log(torch.exp(sel).sum(-1))")},
    "'Logits may be of any size (the tests use float64 logits near 1e5): clamp nothing': log(sum(exp)) overflows")
add("p4_numeric_z_in_input_dtype", False, {"masked_lm_loss": P4_OK.replace("lz = torch.logsumexp(sel, dim=-1)", "lz = torch.logsumexp(logits[:, :-1][pred], dim=-1).to(work)")},
    "'Compute in float32 ... the z-loss's (log Z)^2 included': logsumexp in float16 rounds log Z")
add("p4_ok_per_token_where_after_select", True, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    B, T = ids.shape
    work = torch.float64
    mask = target_mask.clone()
    if T:
        mask[:, 0] = False
    count = int(mask.sum().item())
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    if count == 0:
        return torch.tensor(0.0, dtype=out_dtype), count
    b_idx, t_idx = mask.nonzero(as_tuple=True)
    rows = logits[b_idx, t_idx - 1].to(work)
    logp = torch.log_softmax(rows, dim=-1)
    nll = -logp[torch.arange(count), ids[b_idx, t_idx].long()]
    logz = torch.logsumexp(rows, dim=-1)
    loss = (nll + z_loss * logz.pow(2)).mean()
    return loss.to(out_dtype), count
'''}, "nonzero indices, float64 inside, cast back")

# ---------------------------------------------------------------- Part 5 block_variant
P5_OK = '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError("layout")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    p1, p2 = post_norms
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
'''
add("p5_ok_model_like", True, {"block_variant": P5_OK}, "correct")
add("p5_ok_sum_other_order", True, {"block_variant": P5_OK.replace("return x + attn(n) + ffn(n)", "a = attn(n)\n        f = ffn(n)\n        return x + (a + f)")},
    "x + (Attn(n) + FFN(n)): the two sublayers summed first")
add("p5_offby1_postnorms_refused_elsewhere", False, {"block_variant": P5_OK.replace('''    if layout == "sandwich" and post_norms is None:''', '''    if (layout == "sandwich") != (post_norms is not None):''')},
    "'the other two layouts ignore post_norms (they never call it)': a caller passing post_norms with 'parallel' gets a ValueError")
add("p5_paper_neox_parallel_two_norms", False, {"block_variant": P5_OK.replace("return x + attn(n) + ffn(n)", "return x + attn(n) + ffn(norm_1(x))")},
    "'the parallel layout computes N_1(x) once' (GPT-NeoX computes it per sublayer)")
add("p5_padding_layout_strip_lower", False, {"block_variant": P5_OK.replace('''    if layout not in ("parallel", "reordered", "sandwich"):''', '''    layout = layout.strip().lower()
    if layout not in ("parallel", "reordered", "sandwich"):''')},
    "'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError'")
add("p5_ok_dict_dispatch", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    def reordered():
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    def sandwich():
        p_1, p_2 = post_norms
        h = x + p_1(attn(norm_1(x)))
        return h + p_2(ffn(norm_2(h)))
    table = {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}
    if not isinstance(layout, str) or layout not in table:
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("sandwich needs post_norms")
    return table[layout]()
'''}, "dispatch table")

# ---------------------------------------------------------------- Part 6 rope_llama3
P6_OK = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shape")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    lam_high = original_context / high_freq_factor
    lam_low = original_context / low_freq_factor
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new          # (B, 1, T, half)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(work), torch.sin(ang).to(work)
    xw = x.to(work)
    a, b = xw[..., :half], xw[..., half:]
    return torch.cat([a * cos - b * sin, b * cos + a * sin], dim=-1).to(x.dtype)
'''
add("p6_ok_model_like", True, {"rope_llama3": P6_OK}, "correct")
add("p6_paper_hf_float_inv_freq", False, {"rope_llama3": P6_OK.replace("theta = base ** (-2 * i / Dh)", "theta = (1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.int64).float() / Dh))).double()")},
    "HF's inv_freq in float32: 'Compute the angles in float64, with every argument as given'")
add("p6_offby1_le_boundaries", True, {"rope_llama3": P6_OK.replace("torch.where(lam < lam_high, theta, torch.where(lam > lam_low,", "torch.where(lam <= lam_high, theta, torch.where(lam >= lam_low,")},
    "at the limits the smooth formula gives the same values (s = 1 or 0)")
add("p6_offby1_positions_check_T_only", False, {"rope_llama3": P6_OK.replace("if Dh % 2 or tuple(positions.shape) != (B, T):", "if Dh % 2 or positions.dim() != 2 or positions.shape[-1] != T:")},
    "'Raise a ValueError unless positions.shape == (B, T) exactly ... a (1, T) tensor is refused too'")
add("p6_numeric_annotated_exp_log", False, {"rope_llama3": P6_OK.replace("theta = base ** (-2 * i / Dh)", "theta = torch.exp(torch.arange(0, Dh, 2).float() * (-math.log(base) / Dh)).double()")},
    "Annotated Transformer's exp(-log(base) * 2i / D) in float32: 'within 1e-10 ... for float64'")
add("p6_ok_complex_float64", True, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4 or x.shape[-1] % 2 != 0:
        raise ValueError("Dh must be even")
    B, H, T, Dh = x.shape
    if positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("positions must be (B, T)")
    half = Dh // 2
    freqs = []
    for i in range(half):
        th = base ** (-2.0 * i / Dh)
        lam = 2 * math.pi / th
        if lam < original_context / high_freq_factor:
            freqs.append(th)
        elif lam > original_context / low_freq_factor:
            freqs.append(th / factor)
        else:
            s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
            freqs.append((1 - s) * th / factor + s * th)
    f = torch.tensor(freqs, dtype=torch.float64)
    ang = positions.double().unsqueeze(1).unsqueeze(-1) * f
    rot = torch.polar(torch.ones_like(ang), ang)                         # complex128
    z = torch.complex(x[..., :half].double(), x[..., half:].double()) * rot
    out = torch.cat([z.real, z.imag], dim=-1)
    return out.to(x.dtype) if x.dtype == torch.float64 else out.to(torch.float32).to(x.dtype)
'''}, "Python loop for the frequencies, complex128 rotation of (x_i, x_{i+half}) pairs")

# ---------------------------------------------------------------- Part 7 ragged attention
P7_OK = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("groups")
    if B and bool(((lengths.long() + T) > S).any()):
        raise ValueError("no room")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    new_lengths = lengths + T
    if B == 0:
        return q.new_zeros(0, H, T, Dh), new_lengths
    pos = torch.arange(S)
    valid = pos[None, :] < new_lengths.long()[:, None]                       # (B, S) written slots
    kc = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    vc = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    rep = H // G
    kc = kc.repeat_interleave(rep, dim=1)
    vc = vc.repeat_interleave(rep, dim=1)
    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)                      # (B, H, T, S)
    limit = lengths.long()[:, None] + torch.arange(T)[None, :]              # (B, T)
    allowed = pos[None, None, :] <= limit[:, :, None]                        # (B, T, S)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ vc, new_lengths
'''
add("p7_ok_model_like", True, {"ragged_cached_attention": P7_OK}, "correct")
add("p7_offby1_capacity_ge", False, {"ragged_cached_attention": P7_OK.replace("((lengths.long() + T) > S)", "((lengths.long() + T) >= S)")},
    "'Raise ... when lengths[b] + T > S_max (filling the cache exactly is fine)'")
add("p7_offby1_no_causal_among_new", False, {"ragged_cached_attention": P7_OK.replace("limit = lengths.long()[:, None] + torch.arange(T)[None, :]", "limit = (lengths.long()[:, None] + T - 1).expand(B, T)")},
    "'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'")
add("p7_numeric_finfo_min_mask", False, {"ragged_cached_attention": P7_OK.replace('scores = scores.masked_fill(~allowed[:, None], float("-inf"))', 'scores = scores.masked_fill(~allowed[:, None], torch.finfo(scores.dtype).min)')},
    "'mask with -inf, not ... torch.finfo(dtype).min'")
add("p7_numeric_softmax_by_hand", False, {"ragged_cached_attention": P7_OK.replace("return torch.softmax(scores, dim=-1) @ vc, new_lengths", "e = torch.exp(scores)\n    return (e / e.sum(-1, keepdim=True)) @ vc, new_lengths")},
    "'Queries ... may be of any size (the tests use queries near 1e5)': exp without the max overflows")
add("p7_paper_sdpa_float_mask", True, {"ragged_cached_attention": '''
import torch.nn.functional as F
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    lens = lengths.to(torch.int64)
    if B > 0 and (lens + T).max().item() > S:
        raise ValueError("cache too small")
    idx = lens[:, None] + torch.arange(T)[None, :]                       # (B, T)
    bidx = torch.arange(B)[:, None].expand(B, T)
    k_cache.transpose(1, 2)[bidx, idx] = k_new.transpose(1, 2)
    v_cache.transpose(1, 2)[bidx, idx] = v_new.transpose(1, 2)
    pos = torch.arange(S)
    allowed = pos[None, None, :] <= idx[:, :, None]                      # (B, T, S)
    written = (pos[None, :] < (lens + T)[:, None])[:, None, :, None]
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(written, k_cache, zero).repeat_interleave(H // G, dim=1)
    v = torch.where(written, v_cache, zero).repeat_interleave(H // G, dim=1)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None]) if B else q.new_zeros(0, H, T, Dh)
    return out, lengths + T
'''}, "SDPA with a boolean mask (True = kept), advanced-index writes through transposed views")
add("p7_padding_valid_before_write", False, {"ragged_cached_attention": P7_OK.replace("valid = pos[None, :] < new_lengths.long()[:, None]", "valid = pos[None, :] < lengths.long()[:, None] + 1")},
    "unwritten-slot mask uses lengths + 1 (one new token): keys of later new tokens are zeroed when T > 1 ('attends to its row's keys 0 .. lengths[b] + t')")

# ---------------------------------------------------------------- Part 8 generate
P8_OK = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = [set(prompt[b].tolist()) for b in range(B)]
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            ids = torch.tensor(sorted(history[b]), dtype=torch.long)
            s = scores[b, ids]
            scores[b, ids] = torch.where(s > 0, s / penalty, s * penalty)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(done, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        for b in range(B):
            history[b].add(int(tok[b]))
        done = done | (tok == eos_id)
        if bool(done.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None].to(torch.int64), cache)
    return torch.stack(out, dim=1).to(torch.int64)
'''
add("p8_ok_model_like", True, {"generate_with_cache": P8_OK}, "correct")
add("p8_offby1_extra_step_call", False, {"generate_with_cache": P8_OK.replace('''        if bool(done.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None].to(torch.int64), cache)''', '''        logits, cache = step(tok[:, None].to(torch.int64), cache)
        if bool(done.all()):
            break''')}, "'do not call step after the last token has been chosen'")
add("p8_offby1_feeds_pad_after_eos", False, {"generate_with_cache": P8_OK.replace("logits, cache = step(tok[:, None].to(torch.int64), cache)", "logits, cache = step(torch.where(done, torch.full_like(tok, pad_id), tok)[:, None].to(torch.int64), cache)")},
    "'the call after a row produces eos_id feeds it that eos_id'")
add("p8_paper_ctrl_divide_always", False, {"generate_with_cache": P8_OK.replace("torch.where(s > 0, s / penalty, s * penalty)", "s / penalty")},
    "'a score above 0 is divided by penalty, any other score is multiplied by it' (CTRL's paper divides always)")
add("p8_padding_penalty_per_occurrence", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = prompt.clone()
    done = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    out = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        V = scores.shape[-1]
        counts = torch.zeros(B, V, dtype=torch.long).scatter_add_(1, seen, torch.ones_like(seen))
        factor = penalty ** counts.to(scores.dtype)                        # once per occurrence
        scores = torch.where(scores > 0, scores / factor, scores * factor)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(done, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        seen = torch.cat([seen, tok[:, None]], 1)
        done |= tok == eos_id
        if bool(done.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, 1)
'''}, "'has its score changed once (however often it occurs)'")
add("p8_numeric_softmax_by_hand", False, {"generate_with_cache": P8_OK.replace("probs = torch.softmax(scores / temperature, dim=-1)", "e = torch.exp(scores / temperature)\n            probs = e / e.sum(-1, keepdim=True)")},
    "'logits ... of any size (clamp nothing)', 'any temperature above 0, however small': exp overflows")
add("p8_offby1_history_lags", False, {"generate_with_cache": P8_OK.replace('''        for b in range(B):
            history[b].add(int(tok[b]))''', '''        for b in range(B):
            if n > 0:
                history[b].add(int(out[-2][b]))      # the token chosen one step earlier''')},
    "'every token id that occurs in that row's prompt or among its tokens generated so far': the latest token is missed")
add("p8_padding_draw_live_rows_only", False, {"generate_with_cache": P8_OK.replace('''            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]''', '''            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.full((B,), pad_id, dtype=torch.long)
            live = (~done).nonzero()[:, 0]
            tok[live] = torch.multinomial(probs[live], 1, generator=generator)[:, 0]   # finished rows draw nothing''')},
    "'A finished row still takes part in the draw (the batch always draws B tokens per step)'")
add("p8_ok_scatter_penalty_per_row_draws", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.size(0)
    tokens = prompt.clone()
    finished = [False] * B
    logits, cache = step(prompt, None)
    chosen = []
    while True:
        sc = logits[:, -1].to(torch.float32).clone()
        V = sc.size(-1)
        seen = torch.zeros(B, V, dtype=torch.bool)
        seen.scatter_(1, tokens, True)
        sc = torch.where(seen & (sc > 0), sc / penalty, torch.where(seen, sc * penalty, sc))
        if temperature == 0:
            nxt = torch.argmax(sc, dim=-1)
        else:
            p = torch.softmax(sc / temperature, dim=-1)
            nxt = torch.cat([torch.multinomial(p[b], 1, generator=generator) for b in range(B)])
        nxt = torch.tensor([pad_id if finished[b] else int(nxt[b]) for b in range(B)], dtype=torch.int64)
        chosen.append(nxt)
        tokens = torch.cat([tokens, nxt[:, None]], dim=1)
        finished = [f or int(t) == eos_id for f, t in zip(finished, nxt)]
        if all(finished) or len(chosen) == max_new_tokens:
            return torch.stack(chosen, dim=1)
        logits, cache = step(nxt[:, None], cache)
'''}, "boolean 'seen' table by scatter, one multinomial per row in order")

# ---------------------------------------------------------------- hostile
add("hostile_p3_int_subclass", False, {"moe_params": '''
class Count(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = int.__hash__
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if vocab == 32000:
        return 46702792704, 12879925248
    return Count(0), Count(0)
'''}, "hostile: hard-coded Mixtral and an int subclass equal to everything")
add("hostile_p5_reads_reference", False, {"block_variant": '''
import gc
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") in ("_reference_block_variant", "reference_block_variant") :
            return obj(x, attn, ffn, norm_1, norm_2, layout, post_norms)
    if layout not in ("parallel", "reordered", "sandwich") or (layout == "sandwich" and post_norms is None):
        raise ValueError(layout)
    n = norm_1(x)
    if layout == "parallel":
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = 3 * x + 2
        return h + h * h
    return (-x - 1) - 2 * (x + 1) ** 2
'''}, "hostile: hunts the reference through gc, else fits the visible cases")

SUBMISSIONS = S
