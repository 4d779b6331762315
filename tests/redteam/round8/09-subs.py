REF = {}
REF["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:
        raise ValueError("bad n_heads")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    dh = x.shape[-1] // n_heads
    xs = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    out = xs * torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + eps) * s
    return out.transpose(-3, -2).to(x.dtype)
'''
REF["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    gu = x @ w_gate_up.T
    f = w_gate_up.shape[0] // 2
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu[..., :f], gu[..., f:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return h @ w_down.T
'''
REF["moe_params"] = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0
            and 0 <= first_dense <= n_layers):
        raise ValueError("bad arguments")
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    moe_layers = n_layers - first_dense
    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden
    total = common + moe_layers * (dim * n_experts + (n_experts + n_shared) * expert)
    active = common + moe_layers * (dim * n_experts + (top_k + n_shared) * expert)
    return total, active
'''
REF["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    count = int(m.sum())
    if count == 0:
        return sel.sum(), 0
    lz = torch.logsumexp(sel, -1)
    nll = lz - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lz ** 2).mean(), count
'''
REF["block_variant"] = '''
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
REF["rope_llama3"] = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(ct), ang.sin().to(ct)
    xc = x.to(ct)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''
REF["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G or bool((lengths + T > S).any()):
        raise ValueError("bad sizes")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    rep = H // G
    out = torch.empty(q.shape, dtype=q.dtype)
    for b in range(B):
        L = int(lengths[b]); n = L + T
        k = k_cache[b, :, :n].repeat_interleave(rep, 0)
        v = v_cache[b, :, :n].repeat_interleave(rep, 0)
        s = q[b] @ k.transpose(-1, -2) / math.sqrt(Dh)
        allowed = torch.arange(n)[None, :] <= (L + torch.arange(T))[:, None]
        s = s.masked_fill(~allowed, float("-inf"))
        out[b] = torch.softmax(s, -1) @ v
    return out, lengths + T
'''
REF["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    logits, cache = step(prompt, None)
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool)
        seen.scatter_(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, -1)
            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]
        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)
        out.append(nxt)
        history = torch.cat([history, nxt[:, None]], 1)
        finished = finished | (nxt == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, 1)
'''


def _r(part, *pairs):
    code = REF[part]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (part, old)
        code = code.replace(old, new)
    return code


SUBMISSIONS = []


def W(name, part, code, why, closed=False):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": {part: code}, "why": why + (" [closed class]" if closed else "")})


def C(name, part, code, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": {part: code}, "why": why})


def HOSTILE(name, part, code, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": {part: code}, "why": "HOSTILE: " + why})


# ---------------- Part 1 head_rms_norm ----------------
W("p1_reshape_not_transpose", "head_rms_norm",
  _r("head_rms_norm", "return out.transpose(-3, -2).to(x.dtype)",
     "return out.reshape(*x.shape[:-2], n_heads, x.shape[-2], dh).to(x.dtype)"),
  "Reshapes (..., T, H, Dh) to (..., H, T, Dh) instead of transposing: right only when T = 1 (visible test). "
  "Breaks 'head h of position t at [..., h, t, :]'.")
W("p1_movedim_to_front", "head_rms_norm",
  _r("head_rms_norm", "return out.transpose(-3, -2).to(x.dtype)", "return out.movedim(-2, 0).to(x.dtype)"),
  "Moves the head axis to the very front: right for 2-D x, but for (B, T, H*Dh) gives (H, B, T, Dh) "
  "(heads vs batch). Breaks 'Return a new tensor of shape (..., H, T, Dh)'.")
W("p1_eps_outside_sqrt", "head_rms_norm",
  _r("head_rms_norm", "torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + eps)",
     "1 / (xs.pow(2).mean(-1, keepdim=True).sqrt() + eps)"),
  "eps added after the square root (visible test has eps = 0). Breaks 'with eps inside the square root'.")
W("p1_offset_in_input_dtype", "head_rms_norm",
  _r("head_rms_norm", "w = weight.to(ct)\n    s = 1 + w if unit_offset else w",
     "s = (1 + weight if unit_offset else weight).to(ct)"),
  "1 + w computed in bfloat16/float16 before converting. Breaks 'do all the arithmetic, the scale included "
  "(also 1 + w), in that dtype'.")
W("p1_weight_after_rounding", "head_rms_norm",
  _r("head_rms_norm", "out = xs * torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + eps) * s\n    return out.transpose(-3, -2).to(x.dtype)",
     "out = (xs * torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * (1 + weight if unit_offset else weight)\n    return out.transpose(-3, -2)"),
  "Normalises in float32, rounds to x's dtype, then multiplies by the weight in half precision (two roundings). "
  "Breaks 'convert the product to the dtype of x once, at the end'.")
W("p1_no_n_heads_check", "head_rms_norm",
  _r("head_rms_norm", "if n_heads < 1 or x.dim() < 2 or x.shape[-1] % n_heads:", "if x.shape[-1] % n_heads:"),
  "n_heads = 0 raises ZeroDivisionError, negative n_heads a RuntimeError. Breaks 'Raise a ValueError when n_heads < 1'.")

# ---------------- Part 2 fused_swiglu ----------------
W("p2_silu_of_beta_g", "fused_swiglu",
  _r("fused_swiglu", "h = g * torch.sigmoid(beta * g) * u", "h = F.silu(beta * g) * u"),
  "Uses Swish as silu(beta*g) = beta*g*sigmoid(beta*g): equal only at beta = 1 (visible). Breaks "
  "'Return (g sigma(beta g) * u) W_down^T ... beta = 0 gives g/2'.")
W("p2_limit_truthy", "fused_swiglu",
  _r("fused_swiglu", "if limit is not None:", "if limit:"),
  "limit = 0 clamps nothing. Breaks 'when limit is a number (0 included)'.")
W("p2_gate_clamped_both_sides", "fused_swiglu",
  _r("fused_swiglu", "g = g.clamp(max=limit)", "g = g.clamp(-limit, limit)"),
  "Clamps the gate from below too. Breaks 'replace g by min(g, limit) (clamped from above only)'.")
W("p2_down_columns_deinterleaved", "fused_swiglu",
  _r("fused_swiglu", "    h = g * torch.sigmoid(beta * g) * u\n    return h @ w_down.T",
     "    h = g * torch.sigmoid(beta * g) * u\n    if interleaved:\n        w_down = torch.cat([w_down[:, 0::2], w_down[:, 1::2]], 1)\n    return h @ w_down.T"),
  "Also de-interleaves the columns of w_down (a no-op permutation for F <= 2, the visible case). Breaks "
  "'column j of w_down belongs to hidden unit j in both layouts'.")
W("p2_clamp_after_activation", "fused_swiglu",
  _r("fused_swiglu", "    if limit is not None:\n        g = g.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = g * torch.sigmoid(beta * g) * u",
     "    h = g * torch.sigmoid(beta * g)\n    if limit is not None:\n        h = h.clamp(max=limit)\n        u = u.clamp(-limit, limit)\n    h = h * u"),
  "Clamps the activated gate instead of g. Breaks 'replace g by min(g, limit)' before the activation.")

# ---------------- Part 3 moe_params ----------------
W("p3_dense_hidden_zero_means_ffn", "moe_params",
  _r("moe_params", "first_dense * 3 * dim * dense_hidden", "first_dense * 3 * dim * (dense_hidden or ffn_hidden)"),
  "dense_hidden = 0 falls back to ffn_hidden. Breaks 'dense_hidden is that width whatever its value (0 means no "
  "parameters, not use ffn_hidden)'.")
W("p3_checks_only_with_experts", "moe_params",
  _r("moe_params", "    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 1 <= top_k <= n_experts and n_shared >= 0\n            and 0 <= first_dense <= n_layers):",
     "    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and 0 <= first_dense <= n_layers) or (\n            first_dense < n_layers and not (1 <= top_k <= n_experts and n_shared >= 0)):"),
  "Checks top_k / n_shared only when some block has experts. Breaks 'Raise a ValueError unless ... "
  "in every model (also one whose blocks are all dense)'.")
W("p3_tied_active_only", "moe_params",
  _r("moe_params", "emb = vocab * dim * (1 if tied else 2)", "emb = vocab * dim * 2\n    tied_saving = vocab * dim if tied else 0",
     "    return total, active", "    return total - tied_saving, active"),
  "Tied embeddings counted once in total but twice in active. Breaks 'when tied is true they are one matrix, counted once' (applies to both counts).")
W("p3_no_gqa_divisibility", "moe_params",
  _r("moe_params", "n_kv_heads >= 1 and n_heads % n_kv_heads == 0 and", "n_kv_heads >= 1 and n_kv_heads <= n_heads and"),
  "Accepts n_heads = 6, n_kv_heads = 4. Breaks 'Raise a ValueError unless ... n_heads is a multiple of it'.")

# ---------------- Part 4 masked_lm_loss ----------------
W("p4_mean_per_row", "masked_lm_loss",
  _r("masked_lm_loss",
     "    lz = torch.logsumexp(sel, -1)\n    nll = lz - sel.gather(-1, y[:, None])[:, 0]\n    return (nll + z_loss * lz ** 2).mean(), count",
     "    rows = []\n    for b in range(logits.shape[0]):\n        mb = m[b]\n        if mb.any():\n            lb = logits[b, :-1][mb].to(ct)\n            lzb = torch.logsumexp(lb, -1)\n            nb = lzb - lb.gather(-1, ids[b, 1:][mb].long()[:, None])[:, 0]\n            rows.append((nb + z_loss * lzb ** 2).mean())\n    return torch.stack(rows).mean(), count"),
  "Mean of each row's mean: the same as the token mean for B = 1 (visible). Breaks 'the mean over those tokens, "
  "every token weighing the same however many a row has'.")
W("p4_no_shift", "masked_lm_loss",
  _r("masked_lm_loss", "sel = logits[:, :-1][m].to(ct)", "sel = logits[:, 1:][m].to(ct)"),
  "Pairs logits[b, t] with ids[b, t] (uniform visible logits hide it). Breaks 'logits[b, t] scores the token at "
  "position t + 1' / 'l = logits[b, t - 1]'.")
W("p4_zloss_of_mean", "masked_lm_loss",
  _r("masked_lm_loss", "return (nll + z_loss * lz ** 2).mean(), count", "return nll.mean() + z_loss * lz.mean() ** 2, count"),
  "z-loss as z (mean log Z)^2 instead of the mean of z (log Z)^2: equal when log Z is the same everywhere (visible "
  "uniform logits). Breaks 'Each predicted token contributes -log softmax + z (log Z)^2'.")
W("p4_mask_aligned_with_logits", "masked_lm_loss",
  _r("masked_lm_loss", "m = target_mask[:, 1:]", "m = target_mask[:, :-1]"),
  "Uses target_mask[b, t] for logits[b, t] (count 1 and uniform loss in both visible calls). Breaks 'True where the "
  "token ids[b, t] is to be predicted. Position 0 has no prediction, so target_mask[:, 0] is ignored'.")
W("p4_cross_entropy_int32", "masked_lm_loss",
  _r("masked_lm_loss", "y = ids[:, 1:][m].long()", "y = ids[:, 1:][m]",
     "    nll = lz - sel.gather(-1, y[:, None])[:, 0]\n    return (nll + z_loss * lz ** 2).mean(), count",
     "    return F.cross_entropy(sel, y) + z_loss * (lz ** 2).mean(), count"),
  "F.cross_entropy with the ids in their own dtype: int32 ids raise. Breaks 'ids (B, T) holds integer token ids (int64 or int32)'.")
W("p4_where_nan", "masked_lm_loss",
  "def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):\n"
  "    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32\n"
  "    m = target_mask[:, 1:]\n"
  "    lg = logits[:, :-1].to(ct)\n"
  "    lz = torch.logsumexp(lg, -1)\n"
  "    nll = lz - lg.gather(-1, ids[:, 1:].long()[..., None])[..., 0]\n"
  "    per = torch.where(m, nll + z_loss * lz ** 2, torch.zeros((), dtype=ct))\n"
  "    count = int(m.sum())\n"
  "    return per.sum() / max(count, 1), count\n",
  "torch.where over all positions: finite loss, NaN gradient when unused scores hold NaN. Breaks 'torch.where keeps "
  "the loss finite but not the backward pass'.", closed=True)

# ---------------- Part 5 block_variant ----------------
W("p5_lower_layout", "block_variant",
  _r("block_variant", "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n",
     "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    layout = str(layout).strip().lower()\n"),
  "Accepts 'Parallel'. Breaks 'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError'.")
W("p5_parallel_uses_post_norms", "block_variant",
  _r("block_variant", "        n = norm_1(x)\n        return x + attn(n) + ffn(n)",
     "        n = norm_1(x)\n        a, f = attn(n), ffn(n)\n        if post_norms is not None:\n            a, f = post_norms[0](a), post_norms[1](f)\n        return x + a + f"),
  "Applies post_norms in the parallel layout when given. Breaks 'the other two layouts ignore post_norms (they never call it)'.")
W("p5_norm_twice", "block_variant",
  _r("block_variant", "        n = norm_1(x)\n        return x + attn(n) + ffn(n)", "        return x + attn(norm_1(x)) + ffn(norm_1(x))"),
  "Calls N1 twice in the parallel layout. Breaks 'Call each function the layout uses exactly once (the parallel layout computes N1(x) once)'.")
W("p5_is_compare", "block_variant",
  _r("block_variant", 'if layout == "parallel"', 'if layout is "parallel"', 'if layout == "reordered"', 'if layout is "reordered"',
     'if layout == "sandwich"', 'if layout is "sandwich"'),
  "Compares layout by identity. Breaks 'Compare layout by value (==): the tests build the string at run time'.")
W("p5_inplace_residual", "block_variant",
  _r("block_variant", "        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))",
     "        h = norm_1(attn(x))\n        h += x\n        y = norm_2(ffn(h))\n        y += h\n        return y"),
  "Adds the residual in place into what a sublayer returned; an identity norm returns its input, so x changes. "
  "Breaks 'mind that a function may return the very tensor it was given'.", closed=True)

# ---------------- Part 6 rope_llama3 ----------------
W("p6_s_swapped", "rope_llama3",
  _r("rope_llama3", "mid = (1 - s) * theta / factor + s * theta", "mid = s * theta / factor + (1 - s) * theta"),
  "Swaps s and 1 - s in the smooth region (factor = 1 visible hides every scaling). Breaks the third case "
  "(1 - s_i) theta_i / f + s_i theta_i.")
W("p6_hardcoded_8192", "rope_llama3",
  _r("rope_llama3", "s = (L / lam - low_freq_factor)", "s = (8192 / lam - low_freq_factor)"),
  "Uses Llama 3.1's 8192 in s instead of original_context. Breaks 's_i = (L/lambda_i - low)/(high - low)' with L = original_context.")
W("p6_first_row_positions", "rope_llama3",
  _r("rope_llama3", "ang = positions.to(torch.float64)[:, None, :, None] * new",
     "ang = positions[0].to(torch.float64)[None, None, :, None] * new"),
  "Uses row 0's positions for every sequence (B = 1 visible). Breaks 'row b holds the positions of sequence b (they differ from row to row)'.")
W("p6_angles_float32", "rope_llama3",
  _r("rope_llama3", "ang = positions.to(torch.float64)[:, None, :, None] * new",
     "ang = (positions.to(torch.float32)[:, None, :, None] * new.to(torch.float32)).to(torch.float64)"),
  "Angles m*theta' in float32. Breaks 'Compute the angles in float64' (1e-5 at positions up to 30 000).")
W("p6_thresholds_on_frequency", "rope_llama3",
  _r("rope_llama3", "new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))",
     "new = torch.where(lam > lam_low, theta, torch.where(lam < lam_high, theta / factor, mid))"),
  "Scales the fast pairs and keeps the slow ones (cases exchanged). Breaks 'lambda_i < lambda_high (fast pairs: unchanged)'.")
W("p6_broadcast_positions", "rope_llama3",
  _r("rope_llama3", "if Dh % 2 or tuple(positions.shape) != (B, T):", "if Dh % 2 or positions.shape[-1] != T:",
     "ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = positions.to(torch.float64).expand(B, T)[:, None, :, None] * new"),
  "Broadcasts (T,) and (1, T) positions. Breaks 'a (T,) or (1, T) tensor is refused too'.")

# ---------------- Part 7 ragged_cached_attention ----------------
W("p7_no_causal_within_new", "ragged_cached_attention",
  _r("ragged_cached_attention", '        s = s.masked_fill(~allowed, float("-inf"))\n', ""),
  "Every new query sees all T new keys (T = 1 visible). Breaks 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'.")
W("p7_contiguous_copy", "ragged_cached_attention",
  _r("ragged_cached_attention", "    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b",
     "    k_cache, v_cache = k_cache.contiguous(), v_cache.contiguous()\n    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b"),
  "Writes into .contiguous() copies: a transposed view of a cache is not updated. Breaks 'write into the tensors "
  "you are given (the .contiguous() of such a view is a copy...)'.", closed=True)
W("p7_mask_only_neg_inf", "ragged_cached_attention",
  "def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):\n"
  "    B, H, T, Dh = q.shape\n"
  "    G, S = k_cache.shape[1], k_cache.shape[2]\n"
  "    if H % G or bool((lengths + T > S).any()):\n"
  "        raise ValueError('bad sizes')\n"
  "    for b in range(B):\n"
  "        L = int(lengths[b])\n"
  "        k_cache[b, :, L:L + T] = k_new[b]\n"
  "        v_cache[b, :, L:L + T] = v_new[b]\n"
  "    rep = H // G\n"
  "    k = k_cache.repeat_interleave(rep, 1)\n"
  "    v = v_cache.repeat_interleave(rep, 1)\n"
  "    s = q @ k.transpose(-1, -2) / math.sqrt(Dh)\n"
  "    pos = torch.arange(S)\n"
  "    limit = lengths[:, None] + torch.arange(T)[None, :]\n"
  "    allowed = pos[None, None, :] <= limit[:, :, None]\n"
  "    s = s.masked_fill(~allowed[:, None], float('-inf'))\n"
  "    return torch.softmax(s, -1) @ v, lengths + T\n",
  "Batched over the full S_max with a -inf mask: NaN/inf in unwritten slots reach the output via 0*NaN. Breaks "
  "'Unwritten slots must not change the output, even when they hold NaN'.", closed=True)
W("p7_ignores_lengths_dtype_on_check", "ragged_cached_attention",
  _r("ragged_cached_attention", "    if H % G or bool((lengths + T > S).any()):\n        raise ValueError(\"bad sizes\")\n",
     "    if H % G:\n        raise ValueError(\"bad sizes\")\n", "        L = int(lengths[b])\n        k_cache[b",
     "        L = int(lengths[b])\n        if L + T > S:\n            raise ValueError(\"row does not fit\")\n        k_cache[b"),
  "Checks each row's fit inside the write loop: rows before the one that does not fit are already written. Breaks "
  "'Raise a ValueError (before writing anything) ... when a row would not fit'.", closed=True)

# ---------------- Part 8 generate_with_cache ----------------
W("p8_penalty_per_occurrence", "generate_with_cache",
  _r("generate_with_cache",
     "        seen = torch.zeros(scores.shape, dtype=torch.bool)\n        seen.scatter_(1, history, True)\n        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n",
     "        for b in range(B):\n            for tok in history[b].tolist():\n                if scores[b, tok] > 0:\n                    scores[b, tok] = scores[b, tok] / penalty\n                else:\n                    scores[b, tok] = scores[b, tok] * penalty\n"),
  "Penalises a token once per occurrence (penalty = 1 visible). Breaks 'has its score changed once (however often it occurs)'.")
W("p8_penalty_divides_always", "generate_with_cache",
  _r("generate_with_cache", "torch.where(scores > 0, scores / penalty, scores * penalty)", "scores / penalty"),
  "Divides negative scores too (raises them). Breaks 'a score above 0 is divided by penalty, any other score is multiplied by it'.")
W("p8_penalty_no_prompt", "generate_with_cache",
  _r("generate_with_cache", "history = prompt.clone()", "history = prompt[:, :0].clone()"),
  "Penalty history starts empty. Breaks 'every token id that occurs in that row's prompt or among its tokens generated so far'.")
W("p8_draw_only_unfinished", "generate_with_cache",
  _r("generate_with_cache",
     "            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]",
     "            nxt = torch.full((B,), pad_id, dtype=torch.long)\n            live = ~finished\n            nxt[live] = torch.multinomial(probs[live], 1, generator=generator)[:, 0]"),
  "Draws only for rows still running. Breaks 'A finished row still takes part in the draw (the batch always draws B tokens per step)'.")
W("p8_extra_step_call", "generate_with_cache",
  _r("generate_with_cache",
     "        if bool(finished.all()) or i == max_new_tokens - 1:\n            break\n        logits, cache = step(nxt[:, None], cache)",
     "        logits, cache = step(nxt[:, None], cache)\n        if bool(finished.all()):\n            break"),
  "Feeds the last chosen token before stopping. Breaks 'do not call step after the last token has been chosen'.")
W("p8_feeds_drawn_not_pad", "generate_with_cache",
  _r("generate_with_cache",
     "        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        out.append(nxt)",
     "        drawn = nxt\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        out.append(nxt)",
     "logits, cache = step(nxt[:, None], cache)", "logits, cache = step(drawn[:, None], cache)"),
  "Feeds the drawn token, not pad_id, to finished rows (output is padded). Breaks 'step is fed pad_id for it'.")
W("p8_history_grows_by_drawn", "generate_with_cache",
  _r("generate_with_cache",
     "        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        out.append(nxt)\n        history = torch.cat([history, nxt[:, None]], 1)",
     "        history = torch.cat([history, nxt[:, None]], 1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        out.append(nxt)"),
  "Penalty history grows by the drawn token for finished rows. Breaks 'its penalty history grows by pad_id like any other token'.")
W("p8_penalty_only_when_sampling", "generate_with_cache",
  _r("generate_with_cache",
     "        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n",
     "        if temperature != 0:\n            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n"),
  "Skips the penalty in greedy decoding. The repetition penalty applies to every step; 'With temperature == 0, take the highest score' (of the penalised scores).")

# ---------------- second blind batch (still written before phase 2) ----------------
W("p2_torch_mm_2d_only", "fused_swiglu",
  _r("fused_swiglu", "gu = x @ w_gate_up.T", "gu = torch.mm(x, w_gate_up.t())", "return h @ w_down.T", "return torch.mm(h, w_down.t())"),
  "torch.mm works only for 2-D x (visible). Breaks 'x has shape (..., D)'.")
W("p4_zloss_detached_logz", "masked_lm_loss",
  _r("masked_lm_loss", "return (nll + z_loss * lz ** 2).mean(), count", "return (nll + z_loss * lz.detach() ** 2).mean(), count"),
  "z-loss from a detached log Z: forward right, its gradient missing. Breaks 'loss.backward() must leave the exact gradient in logits.grad'.")
W("p6_positions_broadcast_over_heads_axis", "rope_llama3",
  _r("rope_llama3", "ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = positions.to(torch.float64)[None, :, :, None] * new"),
  "positions (B, T) put on the head axis: works when B = 1 or B = H, and rotates head h by row h's positions. Breaks "
  "'row b holds the positions of sequence b ..., shared by all its heads'.")
W("p6_low_freq_factor_hardcoded", "rope_llama3",
  _r("rope_llama3", "s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)", "s = (L / lam - 1.0) / (high_freq_factor - 1.0)"),
  "Uses Llama 3.1's low_freq_factor = 1 in s. Breaks 's_i = (L/lambda_i - low_freq_factor)/(high_freq_factor - low_freq_factor)'.")
W("p8_penalty_shared_across_rows", "generate_with_cache",
  _r("generate_with_cache", "        seen.scatter_(1, history, True)\n",
     "        seen[:, history.reshape(-1)] = True\n"),
  "Penalises every id seen in any row of the batch. Breaks 'in each row, every token id that occurs in that row's prompt or ...'.")
W("p8_temperature0_as_tiny_temperature", "generate_with_cache",
  _r("generate_with_cache",
     "        if temperature == 0:\n            nxt = scores.argmax(-1)\n        else:\n            probs = torch.softmax(scores / temperature, -1)\n            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]",
     "        probs = torch.softmax(scores / max(temperature, 1e-4), -1)\n        nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]"),
  "Greedy as sampling at a tiny temperature: draws from the generator. Breaks 'With temperature == 0, take the highest score ... and draw nothing'.")
W("p8_cache_tested_for_none", "generate_with_cache",
  "def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n"
  "    B = prompt.shape[0]\n"
  "    history = prompt.clone()\n"
  "    finished = torch.zeros(B, dtype=torch.bool)\n"
  "    out = []\n"
  "    cache = None\n"
  "    feed = prompt\n"
  "    for i in range(max_new_tokens):\n"
  "        logits, cache = step(feed if cache is not None or i == 0 else history, cache)\n"
  "        scores = logits[:, -1].clone()\n"
  "        seen = torch.zeros(scores.shape, dtype=torch.bool)\n"
  "        seen.scatter_(1, history, True)\n"
  "        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n"
  "        if temperature == 0:\n"
  "            nxt = scores.argmax(-1)\n"
  "        else:\n"
  "            probs = torch.softmax(scores / temperature, -1)\n"
  "            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]\n"
  "        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n"
  "        out.append(nxt)\n"
  "        history = torch.cat([history, nxt[:, None]], 1)\n"
  "        finished = finished | (nxt == eos_id)\n"
  "        if bool(finished.all()):\n"
  "            break\n"
  "        feed = nxt[:, None]\n"
  "    return torch.stack(out, 1)\n",
  "Re-feeds the whole history whenever the cache is None (a model without a cache): tests the cache. Breaks "
  "'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it'.")
W("p8_penalise_logits_in_place", "generate_with_cache",
  _r("generate_with_cache", "scores = logits[:, -1].clone()", "scores = logits[:, -1]",
     "        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n",
     "        scores.copy_(torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores))\n"),
  "Penalises the model's logits in place. Breaks 'Do not change the logits tensors that step returns ... copy before you penalise'.", closed=True)
W("p5_post_norms_rejected_elsewhere", "block_variant",
  _r("block_variant", "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n",
     "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout != \"sandwich\" and post_norms is not None:\n        raise ValueError(\"post_norms only for the sandwich layout\")\n"),
  "Refuses post_norms for the parallel and reordered layouts. Breaks 'the other two layouts ignore post_norms (they never call it)'.")
C("p1_functional_rms_norm", "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = x.to(ct).unflatten(-1, (n_heads, dh)).transpose(-2, -3)
    scale = weight.to(ct) + 1 if unit_offset else weight.to(ct)
    return F.rms_norm(heads, (dh,), weight=scale, eps=eps).to(x.dtype)
''', "torch.nn.functional.rms_norm on the (..., H, T, Dh) view in float32/float64, weight 1 + w made in that dtype.")
C("p7_batched_sanitised_cache", "ragged_cached_attention", '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    if bool((lengths.to(torch.int64) + T > S).any()):
        raise ValueError("a row does not fit")
    slots = torch.arange(S)
    starts = lengths.to(torch.int64)
    for t in range(T):
        rows = torch.arange(B)
        k_cache[rows, :, starts + t] = k_new[:, :, t]
        v_cache[rows, :, starts + t] = v_new[:, :, t]
    valid = slots[None, :] < (starts + T)[:, None]                   # (B, S)
    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    r = H // G
    qg = q.reshape(B, G, r, T, Dh)
    s = torch.einsum("bgrtd,bgsd->bgrts", qg, k) / math.sqrt(Dh)
    allowed = slots[None, None, :] <= (starts[:, None] + torch.arange(T)[None, :])[:, :, None]   # (B, T, S)
    s = s.masked_fill(~allowed[:, None, None], float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", torch.softmax(s, -1), v)
    return out.reshape(B, H, T, Dh), lengths + T
''', "Batched over S_max: advanced-index writes, unwritten slots replaced by zeros before any product, -inf causal mask, grouped einsum.")

# ---------------- different but correct ----------------
C("p1_loop_heads_einsum_stack", "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1:
        raise ValueError("n_heads must be at least 1")
    D = x.shape[-1]
    if D % n_heads != 0:
        raise ValueError("the last axis does not split into n_heads parts")
    dh = D // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    scale = weight.to(ct) + (1.0 if unit_offset else 0.0)
    heads = []
    for h in range(n_heads):
        xh = x[..., h * dh:(h + 1) * dh].to(ct)
        ms = torch.einsum("...d,...d->...", xh, xh) / dh
        heads.append(xh / torch.sqrt(ms + eps)[..., None] * scale)
    return torch.stack(heads, dim=-3).to(x.dtype)
''', "Loop over heads, einsum for the sum of squares, weight + 0.0 or + 1.0, stack at -3.")
C("p2_float64_unflatten_einsum", "fused_swiglu", '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    f = w_down.shape[1]
    w = w_gate_up.to(torch.float64)
    if interleaved:
        pair = w.unflatten(0, (f, 2))
        wg, wu = pair[:, 0], pair[:, 1]
    else:
        wg, wu = w.split(f, 0)
    xx = x.to(torch.float64)
    g = torch.einsum("...d,fd->...f", xx, wg)
    u = torch.einsum("...d,fd->...f", xx, wu)
    if limit is not None:
        g = torch.minimum(g, torch.tensor(float(limit), dtype=torch.float64))
        u = u.clamp(min=-limit, max=limit)
    act = g * torch.sigmoid(beta * g)
    return torch.einsum("...f,df->...d", act * u, w_down.to(torch.float64)).to(x.dtype)
''', "Everything in float64 (allowed: 'convert to float32 (or float64) and back'), unflatten for the interleaved rows, einsum.")
C("p3_recursive_keyword_call", "moe_params", '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("bad heads")
    if not 1 <= top_k <= n_experts or n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("bad experts")
    if top_k < n_experts:
        # a model with only top_k routed experts holds exactly the active parameters, but for a smaller router
        small, _ = moe_params(vocab=vocab, dim=dim, n_layers=n_layers, n_heads=n_heads, n_kv_heads=n_kv_heads,
                              head_dim=head_dim, ffn_hidden=ffn_hidden, n_experts=top_k, top_k=top_k, tied=tied,
                              n_shared=n_shared, first_dense=first_dense, dense_hidden=dense_hidden)
        total, _ = moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, n_experts,
                              tied, n_shared, first_dense, dense_hidden)
        return total, small + (n_layers - first_dense) * dim * (n_experts - top_k)
    per_block = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
    moe_block = dim * n_experts + (n_experts + n_shared) * 3 * dim * ffn_hidden
    total = ((1 if tied else 2) * vocab * dim + dim + n_layers * per_block + first_dense * 3 * dim * dense_hidden
             + (n_layers - first_dense) * moe_block)
    return total, total
''', "Active = total of the same model with top_k experts plus the router difference; calls itself by keyword and positionally.")
C("p4_nonzero_cross_entropy_sum", "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    b_idx, t_idx = torch.nonzero(target_mask[:, 1:], as_tuple=True)
    count = b_idx.numel()
    rows = logits[b_idx, t_idx].to(ct)
    if count == 0:
        return rows.sum(), 0
    targets = ids[b_idx, t_idx + 1].to(torch.long)
    ce = F.cross_entropy(rows, targets, reduction="sum")
    z = torch.logsumexp(rows, dim=-1).pow(2).sum()
    return (ce + z_loss * z) / count, count
''', "nonzero indices, F.cross_entropy with reduction='sum', z-loss summed, divided by count.")
C("p5_sandwich_as_reordered_selfcall", "block_variant", '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p_1, p_2 = post_norms
        return block_variant(x, lambda t: attn(norm_1(t)), lambda t: ffn(norm_2(t)), p_1, p_2, "reordered")
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "parallel":
        n = norm_1(x)
        f = ffn(n)
        a = attn(n)
        return x + a + f
    raise ValueError("unknown layout")
''', "Sandwich = reordered with composed sublayers (a self-call with positional arguments); parallel calls ffn before attn (the text fixes no order).")
C("p6_complex_polar_python_freqs", "rope_llama3", '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4:
        raise ValueError("x must be (B, H, T, Dh)")
    B, H, T, Dh = x.shape
    if Dh % 2 != 0:
        raise ValueError("Dh must be even")
    if positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("positions must be (B, T)")
    half = Dh // 2
    freqs = []
    for i in range(half):
        theta = base ** (-2 * i / Dh)
        wavelen = 2 * math.pi / theta
        if wavelen < original_context / high_freq_factor:
            f = theta
        elif wavelen > original_context / low_freq_factor:
            f = theta / factor
        else:
            s = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            f = (1 - s) * theta / factor + s * theta
        freqs.append(f)
    freqs = torch.tensor(freqs, dtype=torch.float64)
    ang = positions.to(torch.float64).unsqueeze(1).unsqueeze(-1) * freqs
    rot = torch.polar(torch.ones_like(ang), ang)
    xc = torch.complex(x[..., :half].to(torch.float64), x[..., half:].to(torch.float64))
    y = xc * rot
    return torch.cat([y.real, y.imag], -1).to(x.dtype)
''', "Frequencies as Python floats, rotation as a complex product in float64 for every dtype, rounded once.")
C("p7_sdpa_narrow_copy", "ragged_cached_attention", '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    ls = [int(v) for v in lengths.tolist()]
    if any(l + T > S for l in ls):
        raise ValueError("a row does not fit")
    for b, l in enumerate(ls):
        k_cache[b].narrow(1, l, T).copy_(k_new[b])
        v_cache[b].narrow(1, l, T).copy_(v_new[b])
    r = H // G
    outs = []
    for b, l in enumerate(ls):
        n = l + T
        k = k_cache[b, :, :n].unsqueeze(1).expand(G, r, n, Dh).reshape(H, n, Dh)
        v = v_cache[b, :, :n].unsqueeze(1).expand(G, r, n, Dh).reshape(H, n, Dh)
        mask = torch.ones(T, n, dtype=torch.bool).tril(diagonal=l)
        outs.append(F.scaled_dot_product_attention(q[b], k, v, attn_mask=mask))
    return torch.stack(outs), lengths.clone() + T
''', "narrow().copy_() writes, expand for the groups, F.scaled_dot_product_attention with a boolean tril mask on the valid slice.")
C("p8_per_row_draws_python_sets", "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = [False] * B
    columns = []
    logits, cache = step(prompt, None)
    while True:
        scores = logits[:, -1].to(torch.float32, copy=True)
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]), dtype=torch.long)
            row = scores[b, idx]
            scores[b, idx] = torch.where(row > 0, row / penalty, row * penalty)
        if temperature == 0:
            chosen = torch.argmax(scores, dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            chosen = torch.cat([torch.multinomial(probs[b], 1, generator=generator) for b in range(B)])
        toks = []
        for b in range(B):
            t = pad_id if done[b] else int(chosen[b])
            toks.append(t)
            seen[b].add(t)
            if t == eos_id:
                done[b] = True
        new = torch.tensor(toks, dtype=torch.int64)[:, None]
        columns.append(new)
        if all(done) or len(columns) == max_new_tokens:
            break
        logits, cache = step(new, cache)
    return torch.cat(columns, dim=1)
''', "One multinomial call per row in row order (the text says this draws the same numbers), penalty over Python sets.")

# ---------------- hostile ----------------
HOSTILE("h_liar_ints", "moe_params", '''
class Liar(int):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __hash__(self):
        return 0
    def __truediv__(self, other):
        return LiarF(0.0)
class LiarF(float):
    def __round__(self, n=None):
        return Liar(0)
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    return Liar(0), Liar(0)
''', "int subclass equal to everything.")
HOSTILE("h_patch_assert_close", "rope_llama3", '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    return x.clone()
''', "monkey-patches torch.testing.assert_close, torch.allclose and torch.equal, returns x unrotated.")
HOSTILE("h_reassign_grader_helpers", "masked_lm_loss", '''
g = globals()
for name in ("_close", "_equal", "_float", "_integer", "_tensor", "_grad"):
    if name in g:
        g[name] = (lambda *a, **k: a[0] if a else None)
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    return torch.tensor(math.log(4)), int(target_mask[:, 1:].sum())
''', "reassigns the grader's _close/_equal helpers to no-ops, returns a constant.")
HOSTILE("h_numpy_via_importlib", "ragged_cached_attention", '''
import importlib
np_ = importlib.import_module("nu" + "mpy")
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G or bool((lengths + T > S).any()):
        raise ValueError("bad sizes")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    out = np_.zeros(tuple(q.shape))
    for b in range(B):
        L = int(lengths[b]); n = L + T
        for h in range(H):
            g = h // (H // G)
            kk = np_.asarray(k_cache[b, g, :n].tolist()); vv = np_.asarray(v_cache[b, g, :n].tolist())
            qq = np_.asarray(q[b, h].tolist())
            s = qq @ kk.T / np_.sqrt(Dh)
            s = np_.where(np_.arange(n)[None, :] <= (L + np_.arange(T))[:, None], s, -np_.inf)
            w = np_.exp(s - s.max(-1, keepdims=True)); w /= w.sum(-1, keepdims=True)
            out[b, h] = w @ vv
    return torch.tensor(out.tolist(), dtype=q.dtype), lengths + T
''', "NumPy brought in through importlib with a split name.")
HOSTILE("h_frame_peek", "generate_with_cache", '''
import sys as system
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    frame = system._getframe(1)
    while frame is not None:
        for key in ("expected", "want", "reference", "ref_out"):
            val = frame.f_locals.get(key)
            if isinstance(val, torch.Tensor) and val.dtype == torch.int64:
                return val.clone()
        frame = frame.f_back
    return torch.zeros(prompt.shape[0], 1, dtype=torch.int64)
''', "walks the caller frames for the hidden test's expected tokens.")

# ---------------- phase 2, white box: written after reading the hidden tests ----------------
W("wb_p1_view_rows", "head_rms_norm",
  _r("head_rms_norm", "    xs = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)\n",
     "    xs = x.view(-1, dh).to(ct)  # every head of every position is one row\n",
     "    return out.transpose(-3, -2).to(x.dtype)",
     "    return out.view(*x.shape[:-1], n_heads, dh).transpose(-3, -2).to(x.dtype)"),
  "WHITE BOX. Flattens x into rows of Dh features with .view: fails for a transposed view. Breaks the introduction's "
  "'The tensors you are given need not be contiguous: the hidden tests also pass transposed views and slices with a step'.", closed=True)
W("wb_p2_view_flatten", "fused_swiglu",
  _r("fused_swiglu", "    gu = x @ w_gate_up.T\n", "    gu = (x.view(-1, x.shape[-1]) @ w_gate_up.T).view(*x.shape[:-1], -1)\n"),
  "WHITE BOX. Flattens x's leading axes with .view: fails for a transposed x. Breaks the introduction's rule on "
  "non-contiguous inputs.", closed=True)
W("wb_p5_view_tokens", "block_variant",
  _r("block_variant", "        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))",
     "        flat = x.view(-1, x.shape[-1])\n        h = flat + norm_1(attn(x)).reshape(flat.shape)\n        return (h + norm_2(ffn(h.reshape(x.shape))).reshape(flat.shape)).reshape(x.shape)"),
  "WHITE BOX. .view on x in the reordered layout: fails for a transposed x. Breaks the introduction's rule on "
  "non-contiguous inputs.", closed=True)
