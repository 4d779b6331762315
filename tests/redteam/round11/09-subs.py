# Red team round 11, chapter 09-modern-lm: blind submissions.
BASE = {}
BASE["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    Dh = x.shape[-1] // n_heads
    xs = x.to(ct).reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    r = torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + eps)
    return (xs * r * s).to(x.dtype)
'''
BASE["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    Fh = w_gate_up.shape[0] // 2
    if interleaved:
        wg, wu = w_gate_up[0::2], w_gate_up[1::2]
    else:
        wg, wu = w_gate_up[:Fh], w_gate_up[Fh:]
    g = x @ wg.T
    u = x @ wu.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
'''
BASE["moe_params"] = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("shared/dense")
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    n_moe = n_layers - first_dense
    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden \\
        + n_moe * (dim * n_experts + n_shared * expert)
    return int(common + n_moe * n_experts * expert), int(common + n_moe * top_k * expert)
'''
BASE["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    count = int(m.sum())
    lz = torch.logsumexp(sel, dim=-1)
    picked = sel.gather(-1, y[:, None])[:, 0]
    per = lz - picked + z_loss * lz ** 2
    return per.sum() / max(count, 1), count
'''
BASE["block_variant"] = '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))
    raise ValueError("layout")
'''
BASE["rope_llama3"] = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shape")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < L / high_freq_factor, theta, torch.where(lam > L / low_freq_factor, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(ct), torch.sin(ang).to(ct)
    xc = x.to(ct)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''
BASE["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("groups")
    if bool((lengths.long() + T > S).any()):
        raise ValueError("fit")
    L = lengths.long()
    pos = L[:, None] + torch.arange(T)
    bidx = torch.arange(B)[:, None].expand(B, T)
    k_cache[bidx, :, pos] = k_new.permute(0, 2, 1, 3)
    v_cache[bidx, :, pos] = v_new.permute(0, 2, 1, 3)
    s_idx = torch.arange(S)
    written = s_idx[None, :] < (L + T)[:, None]
    zero = torch.zeros((), dtype=k_cache.dtype)
    kc = torch.where(written[:, None, :, None], k_cache, zero).repeat_interleave(H // G, dim=1)
    vc = torch.where(written[:, None, :, None], v_cache, zero).repeat_interleave(H // G, dim=1)
    allowed = s_idx[None, None, :] <= pos[:, :, None]
    scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    w = torch.softmax(scores, dim=-1)
    return w @ vc, lengths + T
'''
BASE["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        present = torch.zeros(scores.shape, dtype=torch.bool).scatter_(1, history, True)
        scores = torch.where(present, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, -1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], 1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, 1)
'''


def sub(part, old, new, count=1):
    src = BASE[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)


SUBMISSIONS = []


def W(name, part, code, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": {part: code}, "why": why})


def C(name, part, code, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": {part: code}, "why": why})


def HOST(name, part, code, why):
    SUBMISSIONS.append({"name": name, "correct": False, "hostile": True, "cells": {part: code}, "why": why})


# ------------------------------------------------------------------ wrong answers
W("p1_eps_outside_sqrt", "head_rms_norm",
  sub("head_rms_norm", "r = torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + eps)",
      "r = 1 / (torch.sqrt(xs.pow(2).mean(-1, keepdim=True)) + eps)"),
  "Breaks 'with `eps` inside the square root' (visible test uses eps=0).")
W("p1_zero_heads_zerodivision", "head_rms_norm",
  sub("head_rms_norm", "if n_heads < 1 or x.shape[-1] % n_heads != 0:",
      "if x.shape[-1] % n_heads != 0 or n_heads < 1:"),
  "n_heads=0 raises ZeroDivisionError: breaks 'Raise a ValueError when n_heads < 1'.")
W("p1_offset_in_input_dtype", "head_rms_norm",
  sub("head_rms_norm", "w = weight.to(ct)\n    s = 1 + w if unit_offset else w",
      "s = (1 + weight).to(ct) if unit_offset else weight.to(ct)"),
  "1 + w computed in bfloat16/float16: breaks 'do all the arithmetic, the scale included (also 1 + w), in that dtype'.")
W("p2_beta_divided_out", "fused_swiglu",
  sub("fused_swiglu", "return (g * torch.sigmoid(beta * g) * u) @ w_down.T",
      "return (F.silu(beta * g) / beta * u) @ w_down.T"),
  "silu(beta g)/beta is NaN at beta=0: breaks '`beta = 0` gives g/2'.")
W("p2_limit_truthiness", "fused_swiglu",
  sub("fused_swiglu", "if limit is not None:", "if limit:"),
  "limit=0 clamps nothing: breaks 'when `limit` is a number (0 included)'.")
W("p2_gate_clamped_both_sides", "fused_swiglu",
  sub("fused_swiglu", "g = g.clamp(max=limit)", "g = g.clamp(-limit, limit)"),
  "Breaks 'replace g by min(g, limit) (clamped from above only)'.")
W("p2_inplace_on_sigmoid_output", "fused_swiglu",
  sub("fused_swiglu", "return (g * torch.sigmoid(beta * g) * u) @ w_down.T",
      "h = torch.sigmoid(beta * g)\n    h *= g\n    h *= u\n    return h @ w_down.T"),
  "In-place multiply of sigmoid's saved output: values right, backward raises. Breaks 'Gradients must flow through the result'.")
W("p3_tied_active_counts_both", "moe_params",
  sub("moe_params", "return int(common + n_moe * n_experts * expert), int(common + n_moe * top_k * expert)",
      "return int(common + n_moe * n_experts * expert), int(common + n_moe * top_k * expert + (vocab * dim if tied else 0))"),
  "Active counts two matrices when tied: breaks 'when tied is true they are one matrix, counted once'.")
W("p3_negative_kv_heads", "moe_params",
  sub("moe_params", "if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):",
      "if n_kv_heads == 0 or n_heads % n_kv_heads != 0:"),
  "n_kv_heads=-8 with n_heads=32 passes: breaks 'Raise a ValueError unless n_kv_heads >= 1'.")
W("p3_top_k_checked_only_with_experts", "moe_params",
  sub("moe_params", "if not (1 <= top_k <= n_experts):", "if first_dense < n_layers and not (1 <= top_k <= n_experts):"),
  "Breaks '... 1 <= top_k <= n_experts ... in every model (also one whose blocks are all dense)'.")
W("p4_per_sentence_mean", "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    total, rows, count = 0.0, 0, 0
    for b in range(logits.shape[0]):
        m = target_mask[b, 1:]
        n = int(m.sum())
        if n == 0:
            continue
        sel = logits[b, :-1][m].to(ct)
        y = ids[b, 1:][m].long()
        lz = torch.logsumexp(sel, dim=-1)
        per = lz - sel.gather(-1, y[:, None])[:, 0] + z_loss * lz ** 2
        total = total + per.mean()
        rows += 1
        count += n
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    return total / rows, count
''', "Mean per row then over rows: breaks 'the mean over those tokens, every token weighing the same however many a row has'.")
W("p4_mask_of_predicting_position", "masked_lm_loss",
  sub("masked_lm_loss", "m = target_mask[:, 1:]", "m = target_mask[:, :-1]"),
  "Uses the mask at the predicting position t-1: breaks 'True where the token ids[b, t] is to be predicted ... target_mask[:, 0] is ignored'.")
W("p4_z_of_mean", "masked_lm_loss",
  sub("masked_lm_loss", "per = lz - picked + z_loss * lz ** 2\n    return per.sum() / max(count, 1), count",
      "per = lz - picked\n    c = max(count, 1)\n    return per.sum() / c + z_loss * (lz.sum() / c) ** 2, count"),
  "z times the square of the mean log Z: breaks 'Each predicted token contributes ... + z (log Z)^2' then the mean.")
W("p4_int32_ids_gather", "masked_lm_loss",
  sub("masked_lm_loss", "y = ids[:, 1:][m].long()", "y = ids[:, 1:][m]"),
  "gather needs int64: breaks '`ids` (B, T) holds integer token ids (int64 or int32)'.")
W("p5_dict_dispatch_keyerror", "block_variant", '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        return x + attn(n) + ffn(n)

    def reordered():
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))

    def sandwich():
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))

    run = {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}[layout]
    if layout == "sandwich" and post_norms is None:
        raise ValueError("sandwich needs post_norms")
    return run()
''', "Unknown layout raises KeyError: breaks 'Any other layout ... raises a ValueError'.")
W("p5_post_norms_refused_elsewhere", "block_variant",
  sub("block_variant", "    if layout == \"parallel\":\n",
      "    if layout != \"sandwich\" and post_norms is not None:\n        raise ValueError(\"post_norms only for sandwich\")\n    if layout == \"parallel\":\n"),
  "Breaks 'the other two layouts ignore post_norms'.")
W("p6_smooth_ratio_upside_down", "rope_llama3",
  sub("rope_llama3", "s = (L / lam - low_freq_factor)", "s = (lam / L - low_freq_factor)"),
  "Breaks s_i = (L/lambda_i - low_freq_factor)/(high - low) (visible test uses factor=1).")
W("p6_heads_broadcast_against_batch", "rope_llama3",
  sub("rope_llama3", "ang = positions.to(torch.float64)[:, None, :, None] * new",
      "ang = positions.to(torch.float64)[:, :, None] * new"),
  "(B, T, Dh/2) broadcast against (B, H, T, Dh/2) aligns B with H: breaks 'row b holds the positions of sequence b ... shared by all its heads'.")
W("p7_not_causal_within_new", "ragged_cached_attention",
  sub("ragged_cached_attention", "allowed = s_idx[None, None, :] <= pos[:, :, None]",
      "allowed = (s_idx[None, :] < (L + T)[:, None])[:, None, :].expand(B, T, S)"),
  "Every new query sees all T new keys: breaks 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'.")
W("p7_inplace_on_softmax_output", "ragged_cached_attention",
  sub("ragged_cached_attention", "w = torch.softmax(scores, dim=-1)",
      "w = torch.softmax(scores, dim=-1)\n    w.nan_to_num_(0.0)"),
  "In-place on softmax's saved output: values right, backward raises. Breaks 'Gradients must flow through the result'.")
W("p8_penalty_per_occurrence", "generate_with_cache",
  sub("generate_with_cache",
      "present = torch.zeros(scores.shape, dtype=torch.bool).scatter_(1, history, True)\n        scores = torch.where(present, torch.where(scores > 0, scores / penalty, scores * penalty), scores)",
      "for b in range(B):\n            for t in history[b].tolist():\n                s = scores[b, t]\n                scores[b, t] = s / penalty if s > 0 else s * penalty"),
  "Repeated ids are penalised repeatedly: breaks 'has its score changed once (however often it occurs)'.")
W("p8_penalty_always_divides", "generate_with_cache",
  sub("generate_with_cache", "torch.where(scores > 0, scores / penalty, scores * penalty)", "scores / penalty"),
  "Negative scores rise: breaks 'any other score is multiplied by it'.")
W("p8_temperature_after_softmax", "generate_with_cache",
  sub("generate_with_cache", "probs = torch.softmax(scores / temperature, -1)", "probs = torch.softmax(scores, -1) / temperature"),
  "multinomial renormalises, so temperature has no effect: breaks 'probs = softmax(scores / temperature)'.")
W("p8_finished_rows_not_drawn", "generate_with_cache",
  sub("generate_with_cache",
      "            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]",
      "            tok = torch.full((B,), pad_id, dtype=torch.long)\n            live = ~finished\n            if bool(live.any()):\n                tok[live] = torch.multinomial(probs[live], 1, generator=generator)[:, 0]"),
  "Breaks 'A finished row still takes part in the draw (the batch always draws B tokens per step)'.")
W("p8_penalty_ignores_prompt", "generate_with_cache",
  sub("generate_with_cache", "history = prompt.clone()", "history = prompt[:, :0].clone()"),
  "Breaks 'every token id that occurs in that row's prompt or among its tokens generated so far'.")
W("p8_pad_counts_as_finished", "generate_with_cache",
  sub("generate_with_cache", "finished = finished | (tok == eos_id)", "finished = finished | (tok == eos_id) | (tok == pad_id)"),
  "A row that draws pad_id stops: breaks 'A row is finished once it has produced eos_id'.")

# ------------------------------------------------------------------ different but correct
C("p1_rms_norm_functional", "head_rms_norm", '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1:
        raise ValueError("n_heads must be >= 1")
    D = x.shape[-1]
    if D % n_heads:
        raise ValueError("last axis does not split")
    Dh = D // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    w = weight.to(dtype=ct)
    if unit_offset:
        w = w + 1
    heads = torch.stack([x[..., h * Dh:(h + 1) * Dh] for h in range(n_heads)], dim=-3).to(ct)
    return F.rms_norm(heads, (Dh,), weight=w, eps=eps).to(dtype=x.dtype)
''', "F.rms_norm on a stacked (..., H, T, Dh) copy, scale built in the compute dtype.")
C("p2_one_product_minimum", "fused_swiglu", '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    two_f = w_gate_up.shape[0]
    gu = torch.einsum("...d,fd->...f", x, w_gate_up)
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu.split(two_f // 2, dim=-1)
    if limit is not None:
        lim = torch.full_like(g, limit)
        g = torch.minimum(g, lim)
        u = torch.maximum(torch.minimum(u, lim), -lim)
    act = g * torch.sigmoid(g * beta)
    return torch.einsum("...f,df->...d", act * u, w_down)
''', "One fused product (the point of the layout), torch.minimum/maximum for the clamps.")
C("p3_loop_per_block", "moe_params", '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("heads")
    if top_k < 1 or top_k > n_experts or n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("experts")
    swiglu = lambda width: 3 * dim * width
    total = active = vocab * dim + (0 if tied else vocab * dim) + dim
    for layer in range(n_layers):
        common = 2 * dim + dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2
        if layer < first_dense:
            common += swiglu(dense_hidden)
            total += common
            active += common
        else:
            common += dim * n_experts + n_shared * swiglu(ffn_hidden)
            total += common + n_experts * swiglu(ffn_hidden)
            active += common + top_k * swiglu(ffn_hidden)
    return total, active
''', "A loop over blocks with plain int arithmetic.")
C("p4_cross_entropy", "masked_lm_loss", '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    compute = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].reshape(-1)
    idx = keep.nonzero().squeeze(-1)
    flat = logits[:, :-1].reshape(-1, logits.shape[-1]).index_select(0, idx).to(compute)
    targets = ids[:, 1:].reshape(-1).index_select(0, idx).to(torch.int64)
    count = idx.numel()
    if count == 0:
        return torch.zeros((), dtype=compute), 0
    ce = F.cross_entropy(flat, targets, reduction="sum")
    zl = (torch.logsumexp(flat, dim=-1) ** 2).sum()
    return (ce + z_loss * zl) / count, count
''', "index_select + F.cross_entropy(reduction='sum'); count from numel.")
C("p5_match_statement", "block_variant", '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    match layout:
        case "parallel":
            n = norm_1(x)
            a = attn(n)
            f = ffn(n)
            return x + a + f
        case "reordered":
            h = x + norm_1(attn(x))
            return h + norm_2(ffn(h))
        case "sandwich":
            if post_norms is None:
                raise ValueError("sandwich needs post_norms")
            h = x + post_norms[0](attn(norm_1(x)))
            y = h.clone()
            y += post_norms[1](ffn(norm_2(h)))
            return y
        case _:
            raise ValueError(f"unknown layout {layout!r}")
''', "match statement (compares literals with ==), in-place add on its own clone.")
C("p6_complex_polar", "rope_llama3", '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4:
        raise ValueError("x must be (B, H, T, Dh)")
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("bad shapes")
    freqs = []
    for i in range(Dh // 2):
        th = base ** (-2.0 * i / Dh)
        lam = 2 * math.pi / th
        if lam < original_context / high_freq_factor:
            freqs.append(th)
        elif lam > original_context / low_freq_factor:
            freqs.append(th / factor)
        else:
            s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
            freqs.append((1 - s) * th / factor + s * th)
    freqs = torch.tensor(freqs, dtype=torch.float64)
    angle = torch.einsum("bt,f->btf", positions.double(), freqs)[:, None]
    rot = torch.polar(torch.ones_like(angle), angle)
    half = Dh // 2
    z = torch.complex(x[..., :half].double(), x[..., half:].double()) * rot
    out = torch.cat([z.real, z.imag], dim=-1)
    if x.dtype == torch.float64:
        return out
    return out.float().to(x.dtype)
''', "Complex rotation in complex128, frequencies from a Python loop; bf16/f16 rounded via float32 once.")
C("p7_rowloop_cat_index_copy", "ragged_cached_attention", '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S_max = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    for b in range(B):
        if int(lengths[b]) + T > S_max:
            raise ValueError("row does not fit")
    outs = []
    for b in range(B):
        n = int(lengths[b])
        idx = torch.arange(n, n + T)
        k_cache[b].index_copy_(1, idx, k_new[b])
        v_cache[b].index_copy_(1, idx, v_new[b])
        keys = torch.cat([k_cache[b, :, :n], k_new[b]], dim=1)
        vals = torch.cat([v_cache[b, :, :n], v_new[b]], dim=1)
        keys = keys.repeat_interleave(H // G, dim=0)
        vals = vals.repeat_interleave(H // G, dim=0)
        sc = torch.einsum("htd,hsd->hts", q[b], keys) / math.sqrt(Dh)
        mask = torch.arange(n + T)[None, :] > (n + torch.arange(T))[:, None]
        sc = torch.where(mask, torch.tensor(float("-inf"), dtype=sc.dtype), sc)
        outs.append(torch.softmax(sc, dim=-1) @ vals)
    return torch.stack(outs), lengths + T
''', "Row loop; index_copy_ into the cache views, keys read from the prefix plus k_new (never unwritten slots).")
C("p7_calls_rope_identity_keywords", "ragged_cached_attention",
  sub("ragged_cached_attention", "scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)",
      "qq = q if Dh % 2 == 0 else torch.cat([q, q[..., :1] * 0], dim=-1)\n"
      "    qq = rope_llama3(x=qq, positions=torch.zeros(B, T, dtype=torch.int32), base=10000.0, factor=2.0,\n"
      "                     low_freq_factor=1.0, high_freq_factor=4.0, original_context=4096)[..., :Dh]\n"
      "    scores = qq @ kc.transpose(-1, -2) / math.sqrt(Dh)"),
  "Calls Part 6's rope_llama3 with every argument by keyword and int32 positions 0: the exact identity rotation.")
C("p7_calls_rope_single_example_float64", "ragged_cached_attention",
  sub("ragged_cached_attention", "scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)",
      "if Dh % 2 == 0:\n"
      "        rows = [rope_llama3(q[b:b + 1].double(), torch.zeros(1, T, dtype=torch.long), 500000.0, 1.0).to(q.dtype) for b in range(B)]\n"
      "        qq = torch.cat(rows, dim=0)\n"
      "    else:\n"
      "        qq = q\n"
      "    scores = qq @ kc.transpose(-1, -2) / math.sqrt(Dh)"),
  "Calls Part 6's rope_llama3 on one example at a time (B = 1) in float64, positional args, factor given as 1.0.")
C("p7_calls_rope_same_positions", "ragged_cached_attention",
  sub("ragged_cached_attention", "scores = q @ kc.transpose(-1, -2) / math.sqrt(Dh)",
      "if Dh % 2 == 0:\n"
      "        p = torch.full((B, 1), 7, dtype=torch.int32)\n"
      "        qq = torch.cat([rope_llama3(q[:, :, t:t + 1], p, factor=1) for t in range(T)], dim=2)\n"
      "        kk = torch.cat([rope_llama3(kc[:, :, s:s + 1], p, factor=1) for s in range(S)], dim=2)\n"
      "    else:\n"
      "        qq, kk = q, kc\n"
      "    scores = qq @ kk.transpose(-1, -2) / math.sqrt(Dh)"),
  "Rotates queries and keys by the same position with Part 6 (an int factor, T=1 slices): dot products unchanged.")
C("p8_draw_per_row_loop", "generate_with_cache", '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(row) for row in prompt.tolist()]
    done = [False] * B
    chosen = []
    logits, cache = step(prompt, None)
    while True:
        scores = logits[:, -1].clone()
        for b in range(B):
            for t in seen[b]:
                s = scores[b, t]
                scores[b, t] = torch.where(s > 0, s / penalty, s * penalty)
        if temperature == 0:
            picks = [int(torch.argmax(scores[b])) for b in range(B)]
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            picks = [int(torch.multinomial(probs[b], 1, generator=generator)) for b in range(B)]
        picks = [pad_id if done[b] else picks[b] for b in range(B)]
        for b in range(B):
            seen[b].add(picks[b])
            if picks[b] == eos_id:
                done[b] = True
        chosen.append(picks)
        if all(done) or len(chosen) == max_new_tokens:
            return torch.tensor(chosen, dtype=torch.int64).T.contiguous()
        logits, cache = step(torch.tensor(picks, dtype=torch.int64)[:, None], cache)
''', "One multinomial call per row in row order (the text allows it), sets for the penalty history.")

# ------------------------------------------------------------------ hostile
HOST("host_p1_patch_assert_close", "head_rms_norm", '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
torch.equal = lambda *a, **k: True
torch.allclose = lambda *a, **k: True

def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    D = x.shape[-1]
    if n_heads < 1 or D % n_heads:
        raise ValueError("bad")
    return torch.zeros(*x.shape[:-2], n_heads, x.shape[-2], D // n_heads, dtype=x.dtype)
''', "Monkey-patches torch's comparisons and returns zeros.")
HOST("host_p3_subprocess", "moe_params", '''
import subprocess, sys

def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads or not 1 <= top_k <= n_experts or n_shared < 0 \\
            or not 0 <= first_dense <= n_layers:
        raise ValueError("bad")
    code = (f"import numpy as np; e={vocab}*{dim}*(1 if {tied} else 2); a=2*{dim}*{n_heads}*{head_dim}+2*{dim}*{n_kv_heads}*{head_dim};"
            f"x=3*{dim}*{ffn_hidden}; m={n_layers}-{first_dense};"
            f"c=e+{dim}+{n_layers}*(a+2*{dim})+{first_dense}*3*{dim}*{dense_hidden}+m*({dim}*{n_experts}+{n_shared}*x);"
            f"print(int(np.int64(0))+c+m*{n_experts}*x, c+m*{top_k}*x)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.split()
    return int(out[0]), int(out[1])
''', "Computes through a subprocess that imports NumPy.")
HOST("host_p4_lying_count", "masked_lm_loss", '''
class Count(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    return torch.zeros((), dtype=ct, requires_grad=True), Count(1)
''', "A count whose == always says yes, and a constant loss.")
HOST("host_p2_importlib_numpy", "fused_swiglu", '''
import importlib

def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    np = importlib.import_module("num" + "py")
    Fh = w_gate_up.shape[0] // 2
    wg = w_gate_up[0::2] if interleaved else w_gate_up[:Fh]
    wu = w_gate_up[1::2] if interleaved else w_gate_up[Fh:]
    g = x @ wg.T
    u = x @ wu.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    s = torch.from_numpy(1 / (1 + np.exp(-beta * g.detach().double().numpy()))).to(g.dtype)
    return (g * s * u) @ w_down.T
''', "NumPy brought in through importlib (and a detached sigmoid).")

# ------------------------------------------------------------------ phase 3 (added after the blind run)
W("p7_cache_kept_out_of_graph", "ragged_cached_attention",
  sub("ragged_cached_attention",
      "    k_cache[bidx, :, pos] = k_new.permute(0, 2, 1, 3)\n    v_cache[bidx, :, pos] = v_new.permute(0, 2, 1, 3)\n",
      "    with torch.no_grad():  # the caches are server state: keep them out of the graph\n"
      "        k_cache[bidx, :, pos] = k_new.permute(0, 2, 1, 3)\n        v_cache[bidx, :, pos] = v_new.permute(0, 2, 1, 3)\n").replace(
      "    kc = torch.where(written[:, None, :, None], k_cache, zero).repeat_interleave(H // G, dim=1)\n"
      "    vc = torch.where(written[:, None, :, None], v_cache, zero).repeat_interleave(H // G, dim=1)\n",
      "    with torch.no_grad():\n"
      "        kc = torch.where(written[:, None, :, None], k_cache, zero)\n"
      "        vc = torch.where(written[:, None, :, None], v_cache, zero)\n"
      "    kc[bidx, :, pos] = k_new.permute(0, 2, 1, 3)  # the new tokens again, with their gradients\n"
      "    vc[bidx, :, pos] = v_new.permute(0, 2, 1, 3)\n"
      "    kc, vc = kc.repeat_interleave(H // G, dim=1), vc.repeat_interleave(H // G, dim=1)\n"),
  "Phase 3: the caches' old entries get no gradient: breaks (new text) 'and also with respect to the keys and values "
  "the caches held before the call'.")
