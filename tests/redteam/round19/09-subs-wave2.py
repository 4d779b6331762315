# Chapter 09, round 19, second wave (still blind: no hidden test of chapter 9 read)
import importlib.util as _u
_spec = _u.spec_from_file_location("w1", __file__.replace("-wave2", ""))
_w1 = _u.module_from_spec(_spec); _spec.loader.exec_module(_w1)
P1_OK, P2_OK, P3_OK, P4_OK, P5_OK, P6_OK, P7_OK, P8_OK = (_w1.P1_OK, _w1.P2_OK, _w1.P3_OK, _w1.P4_OK, _w1.P5_OK,
                                                          _w1.P6_OK, _w1.P7_OK, _w1.P8_OK)
S = []
def add(name, correct, cells, why):
    S.append({"name": "w2_" + name, "correct": correct, "cells": cells, "why": why})

add("p1_ok_divide_by_sqrt_float32", True, {"head_rms_norm": P1_OK.replace("    inv = torch.rsqrt(ms + eps).to(work)\n", "").replace(
    "return (xh.to(work) * inv * scale).to(x.dtype)", "rms = torch.sqrt(ms + eps).to(work)\n    return (xh.to(work) / rms * scale).to(x.dtype)")},
    "x / sqrt(mean + eps), the root taken in float64 and converted, the division in float32")
add("p1_numeric_scale_in_bf16", False, {"head_rms_norm": P1_OK.replace("w = weight.to(work)\n    scale = 1 + w if unit_offset else w",
    "scale = (1 + weight).to(work) if unit_offset else weight.to(work)")},
    "'do all the arithmetic, the scale included (also 1 + w), in that dtype': 1 + w rounded in bfloat16/float16")
add("p2_ok_where_min", True, {"fused_swiglu": P2_OK.replace("g = g.clamp(max=limit)", "g = torch.where(g > limit, torch.full_like(g, limit), g)")},
    "min(g, limit) written with torch.where (gradient 1 below and at the limit, like clamp)")
add("p3_offby1_heads_ge_kv", False, {"moe_params": P3_OK.replace("if n_kv_heads < 1 or n_heads % n_kv_heads != 0:", "if n_kv_heads < 1 or n_heads < n_kv_heads or n_heads % n_kv_heads != 0:")},
    "'Raise a ValueError unless n_kv_heads >= 1 and n_heads is a multiple of it': 0 query heads is a multiple of every count")
add("p3_ok_math_prod_terms", True, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")
    if not (1 <= top_k <= n_experts and n_shared >= 0 and 0 <= first_dense <= n_layers):
        raise ValueError("bad expert or block counts")
    prod = math.prod
    per_block = 2 * dim + prod((dim, head_dim, 2 * n_heads + 2 * n_kv_heads))
    routed = 3 * dim * ffn_hidden
    embed = vocab * dim if tied else 2 * vocab * dim
    n_moe = n_layers - first_dense
    total = embed + dim + n_layers * per_block + first_dense * 3 * dim * dense_hidden \
        + n_moe * (dim * n_experts + (n_experts + n_shared) * routed)
    active = total - n_moe * (n_experts - top_k) * routed
    return total, active
'''}, "active = total minus the unused routed experts, exact integers")
add("p4_offby1_prompt_position0_counted", True, {"masked_lm_loss": P4_OK.replace("count = int(pred.sum())", "count = int(target_mask.sum()) - int(target_mask[:, 0].sum()) if target_mask.shape[1] else 0").replace("return per.sum() / count, count", "return per.sum() / count, count")},
    "equivalent count: correct")
add("p4_ok_logsoftmax_gather_float64", True, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    B, T = ids.shape
    if T < 2:
        return torch.zeros((), dtype=out_dtype), 0
    keep = target_mask[:, 1:].reshape(-1)
    count = int(keep.sum())
    if count == 0:
        return torch.zeros((), dtype=out_dtype), 0
    rows = logits[:, :-1].reshape(-1, logits.shape[-1])[keep].double()
    y = ids[:, 1:].reshape(-1)[keep].long()
    logp = torch.log_softmax(rows, dim=-1)
    lz = torch.logsumexp(rows, dim=-1)
    loss = -logp.gather(1, y[:, None]).sum() + z_loss * (lz ** 2).sum()
    return (loss / count).to(out_dtype), count
'''}, "flattened selection, float64 inside, sum divided by count")
add("p5_ok_ffn_before_attn", True, {"block_variant": P5_OK.replace("return x + attn(n) + ffn(n)", "f = ffn(n)\n        a = attn(n)\n        return x + a + f")},
    "parallel layout: the text fixes no order between the two sublayers' calls")
add("p5_offby1_post_norms_swapped_order_calls", True, {"block_variant": P5_OK.replace('''    p1, p2 = post_norms
    h = x + p1(attn(norm_1(x)))''', '''    p1 = post_norms[0]
    p2 = post_norms[1]
    h = x + p1(attn(norm_1(x)))''')}, "indexing the pair")
add("p6_offby1_integer_limits", False, {"rope_llama3": P6_OK.replace("lam_high = original_context / high_freq_factor\n    lam_low = original_context / low_freq_factor",
    "lam_high = original_context // high_freq_factor\n    lam_low = original_context // low_freq_factor")},
    "'the factors need not divide L, so these limits need not be whole numbers'")
add("p6_paper_linear_in_wavelength", False, {"rope_llama3": P6_OK.replace("s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)",
    "s = (lam_low - lam) / (lam_low - lam_high)")},
    "'s_i = (L/lambda_i - low_freq_factor)/(high_freq_factor - low_freq_factor)' (not linear in the wavelength)")
add("p7_ok_loop_rows_slices", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    starts = [int(v) for v in lengths.tolist()]
    if any(s + T > S for s in starts):
        raise ValueError("row does not fit")
    for b, s in enumerate(starts):
        k_cache[b, :, s:s + T].copy_(k_new[b])
        v_cache[b, :, s:s + T].copy_(v_new[b])
    outs = []
    rep = H // G
    for b, s in enumerate(starts):
        k = k_cache[b, :, :s + T].repeat_interleave(rep, dim=0)           # (H, s + T, Dh): written slots only
        v = v_cache[b, :, :s + T].repeat_interleave(rep, dim=0)
        sc = torch.matmul(q[b], k.transpose(-1, -2)) / math.sqrt(Dh)      # (H, T, s + T)
        cols = torch.arange(s + T)
        rows = s + torch.arange(T)
        sc = sc.masked_fill(cols[None, :] > rows[:, None], float("-inf"))
        outs.append(torch.softmax(sc, dim=-1) @ v)
    out = torch.stack(outs) if outs else q.new_zeros((0, H, T, Dh))
    return out, lengths + T
'''}, "loop over rows, each slicing only its written slots")
add("p7_offby1_capacity_max_only", True, {"ragged_cached_attention": P7_OK.replace("if B and bool(((lengths.long() + T) > S).any()):", "if B and int(lengths.max()) + T > S:")},
    "the largest length decides: same rule")
add("p8_ok_float64_probs", True, {"generate_with_cache": P8_OK.replace("probs = torch.softmax(scores / temperature, dim=-1)", "probs = torch.softmax(scores.double() / temperature, dim=-1)")},
    "probabilities of the same scores computed in float64 (the text fixes no dtype for them)")
add("p8_offby1_prompt_skip_first", False, {"generate_with_cache": P8_OK.replace("history = [set(prompt[b].tolist()) for b in range(B)]", "history = [set(prompt[b, 1:].tolist()) for b in range(B)]")},
    "'every token id that occurs in that row's prompt' (the first prompt token skipped, as if it were BOS)")
add("p8_paper_hf_gather_scatter", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    # Hugging Face's RepetitionPenaltyLogitsProcessor: gather the scores of every id in the history, change them,
    # scatter them back (an id seen twice is written twice with the same value: changed once)
    input_ids = prompt.clone()
    B = prompt.shape[0]
    finished = torch.zeros(B, dtype=torch.bool)
    logits, cache = step(prompt, None)
    new = []
    for i in range(max_new_tokens):
        scores = logits[:, -1, :].clone()
        s = torch.gather(scores, 1, input_ids)
        s = torch.where(s < 0, s * penalty, s / penalty)
        scores = scores.scatter(1, input_ids, s)
        if temperature == 0:
            nxt = torch.argmax(scores, dim=-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, dim=-1), num_samples=1, generator=generator).squeeze(1)
        nxt = nxt.masked_fill(finished, pad_id)
        new.append(nxt)
        input_ids = torch.cat([input_ids, nxt[:, None]], dim=-1)
        finished = finished | (nxt == eos_id)
        if finished.all() or i + 1 == max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(new, dim=1)
'''}, "HF's gather/scatter penalty, s < 0 multiplied (0 is unchanged either way)")
add("p8_numeric_log_probs_gumbel_free", False, {"generate_with_cache": P8_OK.replace("probs = torch.softmax(scores / temperature, dim=-1)", "probs = torch.exp(torch.log_softmax(scores / temperature, dim=-1)).clamp(min=1e-12)")},
    "'no clamp or eps added to them: an id whose probability is 0 is never drawn'")
SUBMISSIONS = S
