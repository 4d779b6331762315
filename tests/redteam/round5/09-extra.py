# Red-team round 5, chapter 09: second (still blind) probe, written after the blind grading caught everything.
# Judged after grading: x1_view_noncontiguous and x4_mask_by_multiplication are MISLABELS (correct answers):
# .view that splits one axis into two works for any strides, and masking by multiplication gives the same value
# and gradient for every finite logit (the part never says logits may be infinite). x1_float64_in_float32 was a real
# slip: the float64 cases of test_head_rms_norm now compare at 1e-12 (mutant rms_float64_in_float32).
exec(open(__file__.rsplit("/", 1)[0] + "/09-subs.py").read())
SUBMISSIONS = []
W("x1_float64_in_float32", mut("head_rms_norm", "    ct = torch.float64 if x.dtype == torch.float64 else torch.float32\n", "    ct = torch.float32\n"),
  "'convert x and weight to float32 (to float64 when x is float64)'")
W("x1_view_noncontiguous", mut("head_rms_norm", "xs = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)", "xs = x.to(ct).view(*x.shape[:-1], n_heads, dh)"),
  "intro: 'the hidden tests also pass transposed views ... (.view of such a tensor can fail where .reshape works)' (float32 x: .to is a no-op, so the view stays non-contiguous)")
W("x2_up_clamped_above_only", mut("fused_swiglu", "u = u.clamp(-limit, limit)", "u = u.clamp(max=limit)"),
  "'u by clamp(u, -limit, limit)'")
W("x2_bf16_returns_float32", {"fused_swiglu": C["fused_swiglu"].replace("    g = x @ wg.T\n    u = x @ wu.T\n",
  "    x, wg, wu, w_down = x.float(), wg.float(), wu.float(), w_down.float()\n    g = x @ wg.T\n    u = x @ wu.T\n")},
  "'Return ..., in the dtype of x' (converts to float32 and forgets to convert back)")
W("x2_view_flatten", mut("fused_swiglu", "    g = x @ wg.T\n    u = x @ wu.T\n",
  "    shape = x.shape\n    x = x.view(-1, shape[-1])\n    g = x @ wg.T\n    u = x @ wu.T\n"),
  "intro: non-contiguous inputs ('.view of such a tensor can fail'); also returns (N, D) instead of (..., D)")
W("x3_kv_zero_division", mut("moe_params", "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:\n", "    if n_heads % n_kv_heads != 0 or n_kv_heads < 1:\n"),
  "'Raise a ValueError unless n_kv_heads >= 1' (n_kv_heads = 0 raises ZeroDivisionError first)")
W("x3_negative_first_dense", mut("moe_params", "    if not 0 <= first_dense <= n_layers:\n", "    if first_dense > n_layers:\n"),
  "'0 <= first_dense <= n_layers'")
W("x3_negative_shared", mut("moe_params", "    if n_shared < 0:\n        raise ValueError(\"n_shared\")\n", ""),
  "'n_shared >= 0'")
W("x4_ce_int32_target", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    import torch.nn.functional as F
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    lg = logits[:, :-1].to(ct)
    m = target_mask[:, 1:]
    y = ids[:, 1:].masked_fill(~m, -100)
    count = int(m.sum().item())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    V = lg.shape[-1]
    ce = F.cross_entropy(lg.reshape(-1, V), y.reshape(-1), ignore_index=-100, reduction="sum")
    lz = torch.logsumexp(lg, dim=-1)[m]
    return (ce + z_loss * (lz * lz).sum()) / count, count
'''}, "'ids (B, T) holds integer token ids (int64 or int32)' (cross_entropy needs int64 targets)")
W("x4_zero_count_float32", mut("masked_lm_loss", "        return (logits.sum() * 0).to(ct), 0\n", "        return torch.tensor(0.0), 0\n"),
  "'return the loss in that compute dtype ... a float64 loss for float64 logits' (the count-0 path returns float32)")
W("x4_mask_by_multiplication", mut("masked_lm_loss", "    per = torch.where(m, per, torch.zeros((), dtype=ct))\n", "    per = per * m\n"),
  "'no NaN from positions that are not predicted' (an inf/NaN score at an unpredicted position times 0)")
W("x5_parallel_uses_post_norms", mut("block_variant", "        n = norm_1(x)\n        return x + attn(n) + ffn(n)\n",
  "        n = norm_1(x)\n        a, f = attn(n), ffn(n)\n        if post_norms is not None:\n            a, f = post_norms[0](a), post_norms[1](f)\n        return x + a + f\n"),
  "'the other two layouts ignore post_norms (they never call it)'")
W("x5_reordered_inplace", mut("block_variant", "        h = x + norm_1(attn(x))\n", "        h = norm_1(attn(x))\n        h += x\n"),
  "'an in-place update of what it returns can change x'")
W("x6_no_even_check", mut("rope_llama3", "    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):\n", "    if tuple(positions.shape) != (B, T):\n"),
  "'Raise a ValueError unless Dh is even'")
W("x7_exact_fill_refused", mut("ragged_cached_attention", "    if any(l + T > S for l in lens):\n", "    if any(l + T >= S for l in lens):\n"),
  "'lengths[b] + T > S_max ... (filling the cache exactly is fine)'")
W("x7_half_out_float32", mut("ragged_cached_attention", "    out = torch.empty_like(q)\n", "    out = torch.empty(q.shape)\n"),
  "'out (B, H, T, Dh) in the dtype of q'")
W("x8_feeds_pad_not_eos", mut("generate_with_cache", "        logits, cache = step(tok[:, None], cache)\n", "        logits, cache = step(torch.where(finished, torch.full_like(tok, pad_id), tok)[:, None], cache)\n"),
  "'the call after a row produces eos_id feeds it that eos_id'")
W("x8_first_position_logits", mut("generate_with_cache", "        scores = logits[:, -1].clone()\n", "        scores = logits[:, 0].clone()\n"),
  "'the scores of the next token are its last position, logits[:, -1]' (same when P = 1)")
W("x8_penalty_inplace_on_logits", mut("generate_with_cache", "        scores = logits[:, -1].clone()\n", "        scores = logits[:, -1]\n"),
  "'Do not change the logits tensors that step returns ... copy before you penalise' (only matters with penalty != 1 via scatter? no: where() makes a new tensor)")
SUBMISSIONS.pop()  # the where() path makes a new tensor: not a wrong answer
W("x8_penalty_inplace", {"generate_with_cache": C["generate_with_cache"].replace(
    "        scores = logits[:, -1].clone()\n        if penalty != 1:\n            seen = torch.zeros_like(scores, dtype=torch.bool)\n            seen.scatter_(1, history, True)\n            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n",
    "        scores = logits[:, -1]\n        if penalty != 1:\n            for b in range(B):\n                idx = history[b].unique()\n                s = scores[b, idx]\n                scores[b, idx] = torch.where(s > 0, s / penalty, s * penalty)\n")},
  "'Do not change the logits tensors that step returns (a model may keep them); copy before you penalise'")
OK("y8_fancy_index_once", {"generate_with_cache": C["generate_with_cache"].replace(
    "        scores = logits[:, -1].clone()\n        if penalty != 1:\n            seen = torch.zeros_like(scores, dtype=torch.bool)\n            seen.scatter_(1, history, True)\n            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)\n",
    "        scores = logits[:, -1].clone()\n        for b in range(B):\n            idx = history[b]\n            s = scores[b, idx]\n            scores[b, idx] = torch.where(s > 0, s / penalty, s * penalty)\n")},
  "duplicate indices all assign the same once-penalised value")
OK("y6_all_float64", {"rope_llama3": C["rope_llama3"].replace("    ct = torch.float64 if x.dtype == torch.float64 else torch.float32\n", "    ct = torch.float64\n")},
  "computes everything in float64 and rounds once to x's dtype (at least as accurate)")
