# Red-team round 5, chapter 09-modern-lm: blind submissions (written from the student notebook only).
C = {}
C["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    y = xs / torch.sqrt(xs.pow(2).mean(-1, keepdim=True) + eps) * s
    return y.transpose(-3, -2).to(x.dtype)
'''
C["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    F_ = w_gate_up.shape[0] // 2
    if interleaved:
        wg, wu = w_gate_up[0::2], w_gate_up[1::2]
    else:
        wg, wu = w_gate_up[:F_], w_gate_up[F_:]
    g = x @ wg.T
    u = x @ wu.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return h @ w_down.T
'''
C["moe_params"] = '''
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
    norms = 2 * dim
    expert = 3 * dim * ffn_hidden
    dense = 3 * dim * dense_hidden
    router = dim * n_experts
    moe_layers = n_layers - first_dense
    common = emb + dim + n_layers * (attn + norms) + first_dense * dense + moe_layers * (router + n_shared * expert)
    total = common + moe_layers * n_experts * expert
    active = common + moe_layers * top_k * expert
    return int(total), int(active)
'''
C["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lg = logits[:, :-1].to(ct)
    y = ids[:, 1:].long()
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return (logits.sum() * 0).to(ct), 0
    lz = torch.logsumexp(lg, dim=-1)
    ly = lg.gather(-1, y.unsqueeze(-1)).squeeze(-1)
    per = (lz - ly) + z_loss * lz ** 2
    per = torch.where(m, per, torch.zeros((), dtype=ct))
    return per.sum() / count, count
'''
C["block_variant"] = '''
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
    raise ValueError(f"unknown layout {layout!r}")
'''
C["rope_llama3"] = '''
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
    lam_high = L / high_freq_factor
    lam_low = L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new  # (B, 1, T, half)
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(ct), torch.sin(ang).to(ct)
    xc = x.to(ct)
    x1, x2 = xc[..., :half], xc[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''
C["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G = k_cache.shape[1]
    S = k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H % G")
    lens = [int(l) for l in lengths]
    if any(l + T > S for l in lens):
        raise ValueError("overflow")
    for b, l in enumerate(lens):
        k_cache[b, :, l:l + T] = k_new[b]
        v_cache[b, :, l:l + T] = v_new[b]
    rep = H // G
    out = torch.empty_like(q)
    for b, l in enumerate(lens):
        n = l + T
        k = k_cache[b, :, :n].repeat_interleave(rep, dim=0)  # (H, n, Dh)
        v = v_cache[b, :, :n].repeat_interleave(rep, dim=0)
        s = q[b] @ k.transpose(-1, -2) / math.sqrt(Dh)      # (H, T, n)
        allowed = torch.arange(n)[None, :] <= (l + torch.arange(T))[:, None]
        s = s.masked_fill(~allowed, float("-inf"))
        out[b] = torch.softmax(s, dim=-1) @ v
    return out, lengths + T
'''
C["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        if penalty != 1:
            seen = torch.zeros_like(scores, dtype=torch.bool)
            seen.scatter_(1, history, True)
            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        finished = finished | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1).to(torch.int64)
'''

def mut(cell, old, new, count=1):
    src = C[cell]
    assert src.count(old) >= 1, (cell, old)
    return {cell: src.replace(old, new, count)}

SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def OK(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})

# ---------------- Part 1
W("p1_offset_added_in_input_dtype", mut("head_rms_norm", "    w = weight.to(ct)\n    s = 1 + w if unit_offset else w\n",
  "    s = (1 + weight if unit_offset else weight).to(ct)\n"),
  "'do all the arithmetic, the scale included (also 1 + w), in that dtype' (1 + w rounded in float16/bfloat16 first; 'also with weights that are small offsets from 1')")
W("p1_transpose_0_1", mut("head_rms_norm", "y.transpose(-3, -2)", "y.transpose(0, 1)"),
  "'Return a new tensor of shape (..., H, T, Dh)' (transpose(0, 1) is right only for a 2-D x)")
W("p1_eps_outside_sqrt", mut("head_rms_norm", "torch.sqrt(xs.pow(2).mean(-1, keepdim=True) + eps)", "(torch.sqrt(xs.pow(2).mean(-1, keepdim=True)) + eps)"),
  "'with eps inside the square root' (visible test uses eps=0)")
W("p1_no_value_error_zero_heads", mut("head_rms_norm", "    if n_heads < 1 or x.shape[-1] % n_heads != 0:\n", "    if x.shape[-1] % n_heads != 0:\n"),
  "'Raise a ValueError when n_heads < 1' (n_heads = 0 raises ZeroDivisionError; n_heads=-1 passes the modulo test)")
# ---------------- Part 2
W("p2_limit_zero_is_none", mut("fused_swiglu", "    if limit is not None:\n", "    if limit:\n"),
  "'when limit is a number (0 included)'")
W("p2_gate_clamped_both_sides", mut("fused_swiglu", "g = g.clamp(max=limit)", "g = g.clamp(-limit, limit)"),
  "'replace g by min(g, limit) (clamped from above only)'")
W("p2_beta_ignored", mut("fused_swiglu", "torch.sigmoid(beta * g)", "torch.sigmoid(g)"),
  "'Return (g σ(βg) ⊙ u) W_down^T' (beta used only with its default 1)")
# ---------------- Part 3
W("p3_dense_hidden_zero_means_ffn", mut("moe_params", "    dense = 3 * dim * dense_hidden\n", "    dense = 3 * dim * (dense_hidden or ffn_hidden)\n"),
  "'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")'")
W("p3_tied_only_in_total", mut("moe_params", "    active = common + moe_layers * top_k * expert\n",
  "    active = common + moe_layers * top_k * expert + (vocab * dim if tied else 0)\n"),
  "'when tied is true they are one matrix, counted once' ... 'the embedding and output matrices count in full' (active counts the tied matrix twice)")
W("p3_top_k_equal_experts_refused", mut("moe_params", "    if not 1 <= top_k <= n_experts:\n", "    if not 1 <= top_k < n_experts:\n"),
  "'Raise a ValueError unless ... 1 <= top_k <= n_experts' (top_k == n_experts is valid)")
W("p3_no_first_dense_check", mut("moe_params", "    if not 0 <= first_dense <= n_layers:\n        raise ValueError(\"first_dense\")\n", ""),
  "'Raise a ValueError unless ... 0 <= first_dense <= n_layers'")
# ---------------- Part 4
W("p4_mask_off_by_one", mut("masked_lm_loss", "    m = target_mask[:, 1:]\n", "    m = target_mask[:, :-1]\n"),
  "'target_mask is True where the token ids[b, t] is to be predicted ... target_mask[:, 0] is ignored' (uses the mask of the position that predicts)")
W("p4_zloss_over_all_positions", {"masked_lm_loss": C["masked_lm_loss"].replace(
    "    per = (lz - ly) + z_loss * lz ** 2\n    per = torch.where(m, per, torch.zeros((), dtype=ct))\n    return per.sum() / count, count\n",
    "    nll = torch.where(m, lz - ly, torch.zeros((), dtype=ct)).sum() / count\n    return nll + z_loss * (lz ** 2).mean(), count\n")},
  "'Each predicted token contributes -log softmax + z (log Z)^2' (z-loss averaged over every position, predicted or not)")
W("p4_row_mean", {"masked_lm_loss": C["masked_lm_loss"].replace(
    "    return per.sum() / count, count\n",
    "    rows = m.sum(1)\n    keep = rows > 0\n    return (per.sum(1)[keep] / rows[keep]).mean(), count\n")},
  "'loss is the mean over those tokens, every token weighing the same however many a row has'")
W("p4_count_zero_nan", mut("masked_lm_loss", "    if count == 0:\n        return (logits.sum() * 0).to(ct), 0\n", ""),
  "'When count is 0 the loss is 0 (not NaN)'")
W("p4_half_compute", mut("masked_lm_loss", "    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32\n", "    ct = logits.dtype\n"),
  "'Compute in float32 ... also for float16 and bfloat16 logits, and return the loss in that compute dtype'")
# ---------------- Part 5
W("p5_parallel_norm_twice", mut("block_variant", "        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n", "        return x + attn(norm_1(x)) + ffn(norm_1(x))\n"),
  "'Call each function the layout uses exactly once (the parallel layout computes N_1(x) once)'")
W("p5_inplace_accumulate", mut("block_variant", "        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n", "        n = norm_1(x)\n        y = attn(n)\n        y += ffn(n)\n        y += x\n        return y\n"),
  "'Do not change x; mind that a function may return the very tensor it was given (an identity does), so an in-place update of what it returns can change x'")
W("p5_layout_lowercased", mut("block_variant", "    if layout == \"parallel\":\n", "    layout = layout.lower()\n    if layout == \"parallel\":\n"),
  "'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError'")
W("p5_sandwich_none_typeerror", mut("block_variant", "        if post_norms is None:\n            raise ValueError(\"post_norms\")\n", ""),
  "'Raise a ValueError when post_norms is None for this layout' (unpacking None raises TypeError)")
# ---------------- Part 6
W("p6_angles_float32", mut("rope_llama3", "ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = positions.to(torch.float32)[:, None, :, None] * new.float()"),
  "'Compute the angles in float64' / 'within 1e-5 for float32 (at positions up to 30 000)'")
W("p6_positions_broadcast", mut("rope_llama3", "    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n", "    if Dh % 2 != 0 or positions.shape[-1] != T:\n"),
  "'Raise a ValueError unless ... positions.shape == (B, T) exactly (a (T,) or (1, T) tensor is refused too)'")
W("p6_s_uses_wavelength", mut("rope_llama3", "    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)\n", "    s = (lam / L - low_freq_factor) / (high_freq_factor - low_freq_factor)\n"),
  "'s_i = (L/λ_i - low_freq_factor) / (high_freq_factor - low_freq_factor)' (visible test uses factor 1 where s does not matter)")
W("p6_half_compute", mut("rope_llama3", "    ct = torch.float64 if x.dtype == torch.float64 else torch.float32\n", "    ct = x.dtype\n"),
  "'for float16 and bfloat16 inputs compute as for float32 and round once at the end'")
# ---------------- Part 7
W("p7_nan_slots_leak", {"ragged_cached_attention": C["ragged_cached_attention"].replace(
    "        n = l + T\n        k = k_cache[b, :, :n].repeat_interleave(rep, dim=0)  # (H, n, Dh)\n        v = v_cache[b, :, :n].repeat_interleave(rep, dim=0)\n",
    "        n = S\n        k = k_cache[b].repeat_interleave(rep, dim=0)\n        v = v_cache[b].repeat_interleave(rep, dim=0)\n")},
  "'Unwritten slots must not change the output, even when they hold NaN or ±inf'")
W("p7_no_causal_within_new", mut("ragged_cached_attention", "        s = s.masked_fill(~allowed, float(\"-inf\"))\n", ""),
  "'query t of row b attends causally to its row's keys 0 .. lengths[b] + t' (with T > 1 every query sees all new tokens)")
W("p7_lengths_int64", mut("ragged_cached_attention", "    return out, lengths + T\n", "    return out, torch.tensor([l + T for l in lens])\n"),
  "'new_lengths a new tensor equal to lengths + T, in the dtype of lengths' (int32 lengths give int64)")
W("p7_writes_before_check", {"ragged_cached_attention": C["ragged_cached_attention"].replace(
    "    if any(l + T > S for l in lens):\n        raise ValueError(\"overflow\")\n    for b, l in enumerate(lens):\n        k_cache[b, :, l:l + T] = k_new[b]\n        v_cache[b, :, l:l + T] = v_new[b]\n",
    "    for b, l in enumerate(lens):\n        if l + T > S:\n            raise ValueError(\"overflow\")\n        k_cache[b, :, l:l + T] = k_new[b]\n        v_cache[b, :, l:l + T] = v_new[b]\n")},
  "'Raise a ValueError (before writing anything) ... when a row would not fit' (rows before the failing one are already written)")
# ---------------- Part 8
W("p8_penalty_per_occurrence", {"generate_with_cache": C["generate_with_cache"].replace(
    "            seen = torch.zeros_like(scores, dtype=torch.bool)\n            seen.scatter_(1, history, True)\n            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n",
    "            for b in range(B):\n                for t in history[b].tolist():\n                    scores[b, t] = scores[b, t] / penalty if scores[b, t] > 0 else scores[b, t] * penalty\n")},
  "'has its score changed once (however often it occurs)'")
W("p8_penalty_divides_all", mut("generate_with_cache", "torch.where(scores > 0, scores / penalty, scores * penalty)", "scores / penalty"),
  "'a score above 0 is divided by penalty, any other score is multiplied by it'")
W("p8_prompt_not_penalised", mut("generate_with_cache", "    history = prompt.clone()\n", "    history = prompt[:, :0].clone()\n"),
  "'every token id that occurs in that row's prompt or among its tokens generated so far'")
W("p8_draw_only_unfinished", {"generate_with_cache": C["generate_with_cache"].replace(
    "            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n",
    "            tok = torch.full((B,), pad_id, dtype=torch.int64)\n            live = ~finished\n            if live.any():\n                tok[live] = torch.multinomial(probs[live], 1, generator=generator)[:, 0]\n")},
  "'A finished row still takes part in the draw (the batch always draws B tokens per step)'")
W("p8_extra_step_call", {"generate_with_cache": C["generate_with_cache"].replace(
    "        if bool(finished.all()) or n == max_new_tokens - 1:\n            break\n        logits, cache = step(tok[:, None], cache)\n",
    "        logits, cache = step(tok[:, None], cache)\n        if bool(finished.all()):\n            break\n")},
  "'do not call step after the last token has been chosen'")
W("p8_greedy_still_draws", mut("generate_with_cache", "        if temperature == 0:\n            tok = scores.argmax(-1)\n",
  "        if temperature == 0:\n            if generator is not None:\n                torch.rand(1, generator=generator)\n            tok = scores.argmax(-1)\n"),
  "'With temperature == 0, take the highest score of each row ... and draw nothing'")

# ---------------- hostile
SUBMISSIONS.append({"name": "h_patch_testing_and_equal", "correct": False, "cells": {"ragged_cached_attention": '''
torch.testing.assert_close = lambda *a, **k: None
torch.equal = lambda *a, **k: True
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    return torch.zeros_like(q), lengths + q.shape[2]
'''}, "why": "hostile: disables the comparison functions and returns zeros"})
SUBMISSIONS.append({"name": "h_ref_dict_overwrite", "correct": False, "cells": {"rope_llama3": '''
g = globals()
g["_REF"]["cos"] = lambda t: t * 0 + 1
g["_REF"]["sin"] = lambda t: t * 0
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.shape[-1] % 2 or tuple(positions.shape) != (x.shape[0], x.shape[2]):
        raise ValueError
    return x.clone()
'''}, "why": "hostile: rewrites the grader's captured cos/sin so that a reference would be the identity"})
SUBMISSIONS.append({"name": "h_int_subclass_moe", "correct": False, "cells": {"moe_params": '''
class Whatever(int):
    def __eq__(self, other): return True
    def __hash__(self): return 0
class Pair(tuple):
    def __eq__(self, other): return True
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    return Pair((Whatever(46.7e9), Whatever(12.9e9)))
'''}, "why": "hostile: int and tuple subclasses that compare equal to anything"})

# ---------------- different but correct
OK("c1_rms_einsum_rsqrt", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not isinstance(n_heads, int) or n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.to(ct).unflatten(-1, (n_heads, dh)).movedim(-2, -3)  # (..., H, T, Dh)
    w = weight.to(ct)
    if unit_offset:
        w = w + 1.0
    r = torch.rsqrt(torch.einsum("...d,...d->...", xs, xs)[..., None] / dh + eps)
    return (xs * r * w).to(x.dtype)
'''}, "unflatten/movedim, einsum sum of squares, rsqrt")
OK("c2_moe_per_layer_loop", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads or top_k < 1 or top_k > n_experts or n_shared < 0 \\
            or first_dense < 0 or first_dense > n_layers:
        raise ValueError("bad configuration")
    total = active = vocab * dim + (0 if tied else vocab * dim) + dim
    for layer in range(n_layers):
        base = 2 * dim + (n_heads + n_kv_heads) * head_dim * dim * 2 // 1 - 0
        base = 2 * dim + 2 * n_heads * head_dim * dim + 2 * n_kv_heads * head_dim * dim
        if layer < first_dense:
            total += base + 3 * dim * dense_hidden
            active += base + 3 * dim * dense_hidden
        else:
            total += base + dim * n_experts + (n_experts + n_shared) * 3 * dim * ffn_hidden
            active += base + dim * n_experts + (top_k + n_shared) * 3 * dim * ffn_hidden
    return total, active
'''}, "a loop over the layers")
OK("c3_loss_cross_entropy", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    import torch.nn.functional as F
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lg = logits[:, :-1].to(ct)
    m = target_mask[:, 1:]
    y = ids[:, 1:].long().masked_fill(~m, -100)
    count = int(m.sum().item())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    V = lg.shape[-1]
    ce = F.cross_entropy(lg.reshape(-1, V), y.reshape(-1), ignore_index=-100, reduction="sum")
    lz = torch.logsumexp(lg, dim=-1)[m]
    return (ce + z_loss * (lz * lz).sum()) / count, count
'''}, "cross_entropy with ignore_index, z-loss on the selected positions")
OK("c4_generate_per_row_draws", {"generate_with_cache": C["generate_with_cache"].replace(
    "            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]\n",
    "            tok = torch.cat([torch.multinomial(probs[b:b + 1], 1, generator=generator)[:, 0] for b in range(B)])\n")},
  "'one call per row, in row order, draws the same numbers'")
OK("c5_block_dict_dispatch", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        a = attn(n)
        f = ffn(n)
        return torch.add(torch.add(x, a), f)
    def reordered():
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    def sandwich():
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        h = x + post_norms[0](attn(norm_1(x)))
        return h + post_norms[1](ffn(norm_2(h)))
    table = {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}
    if not isinstance(layout, str) or layout not in table:
        raise ValueError(layout)
    return table[layout]()
'''}, "dispatch through a dict (str hashing compares by value)")
