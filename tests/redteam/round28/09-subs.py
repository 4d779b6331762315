# the base (correct) answers each submission edits
BASE = {}
BASE["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1:
        raise ValueError("n_heads must be at least 1")
    D = x.shape[-1]
    if D % n_heads != 0:
        raise ValueError("the last axis does not split into n_heads parts")
    Dh = D // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(cd)
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    return (xs.to(cd) / rms * s).to(x.dtype)
'''
BASE["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = x.dtype if x.dtype in (torch.float64, torch.float32) else torch.float32
    xc, wgu, wd = x.to(cd), w_gate_up.to(cd), w_down.to(cd)
    F_ = wgu.shape[0] // 2
    if interleaved:
        wg, wu = wgu[0::2], wgu[1::2]
    else:
        wg, wu = wgu[:F_], wgu[F_:]
    g = xc @ wg.T
    u = xc @ wu.T
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return (h @ wd.T).to(x.dtype)
'''
BASE["moe_params"] = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    per_block = 2 * dim + attn
    expert = 3 * dim * ffn_hidden
    dense = 3 * dim * dense_hidden
    router = dim * n_experts
    moe_blocks = n_layers - first_dense
    base = emb + dim + n_layers * per_block + first_dense * dense + moe_blocks * (router + n_shared * expert)
    total = base + moe_blocks * n_experts * expert
    active = base + moe_blocks * top_k * expert
    return int(total), int(active)
'''
BASE["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    sel = logits[:, :-1][pred].to(cd)
    y = ids[:, 1:][pred].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lse ** 2).mean(), count
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
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))
    raise ValueError(f"unknown layout {layout!r}")
'''
BASE["rope_llama3"] = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
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
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(cd), torch.sin(ang).to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''
BASE["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("a row does not fit")
    new_lengths = lengths + T
    if B == 0:
        return torch.empty((0, H, T, Dh), dtype=q.dtype), new_lengths
    Ls = [int(v) for v in lengths.tolist()]
    for b in range(B):
        k_cache[b, :, Ls[b]:Ls[b] + T] = k_new[b]
        v_cache[b, :, Ls[b]:Ls[b] + T] = v_new[b]
    rep = H // G
    outs = []
    for b in range(B):
        n = Ls[b] + T
        K = k_cache[b, :, :n].repeat_interleave(rep, dim=0)
        V = v_cache[b, :, :n].repeat_interleave(rep, dim=0)
        sc = q[b] @ K.transpose(-1, -2) / math.sqrt(Dh)
        allowed = torch.arange(n)[None, :] <= (Ls[b] + torch.arange(T))[:, None]
        sc = sc.masked_fill(~allowed, float("-inf"))
        outs.append(torch.softmax(sc, dim=-1) @ V)
    return torch.stack(outs), new_lengths
'''
BASE["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    seen = [set(prompt[b].tolist()) for b in range(B)]
    finished = torch.zeros(B, dtype=torch.bool)
    outs = []
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]), dtype=torch.long)
            vals = scores[b, idx]
            scores[b, idx] = torch.where(vals > 0, vals / penalty, vals * penalty)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        outs.append(tok)
        for b in range(B):
            seen[b].add(int(tok[b]))
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(outs, dim=1)
'''


def R(gid, old, new):
    s = BASE[gid]
    assert old in s, (gid, old)
    return s.replace(old, new)

SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

# ---------------- wrong: tie-breaker ----------------
add("tie_p8_highest_id_among_ties", False, {"generate_with_cache": R("generate_with_cache",
    "            tok = scores.argmax(dim=-1)",
    "            tok = scores.shape[-1] - 1 - scores.flip(-1).argmax(dim=-1)   # the last of equal maxima")},
    "Part 8 'Choosing': 'take the highest score of each row (the lowest id among ties, as torch.argmax does)'.")
add("tie_p8_argmax_of_probabilities", False, {"generate_with_cache": R("generate_with_cache",
    "            tok = scores.argmax(dim=-1)",
    "            tok = torch.softmax(scores, dim=-1).argmax(dim=-1)")},
    "Part 8: 'compare the scores themselves, not their probabilities: two scores a unit in the last place apart can have equal probabilities in float32'.")
add("tie_p3_top_k_strictly_below_n_experts", False, {"moe_params": R("moe_params",
    "    if not (1 <= top_k <= n_experts):", "    if not (1 <= top_k < n_experts):")},
    "Part 3: 'Raise a ValueError unless ... 1 <= top_k <= n_experts': top_k == n_experts (every expert used) is allowed.")

# ---------------- wrong: fallback writer ----------------
add("fallback_p4_count0_float32_zero", False, {"masked_lm_loss": R("masked_lm_loss",
    "        return torch.zeros((), dtype=cd), 0", "        return torch.tensor(0.0), 0")},
    "Part 4: 'return the loss in that compute dtype: ... a float64 loss for float64 logits' also when count is 0.")
add("fallback_p7_empty_batch_returns_inputs", False, {"ragged_cached_attention": R("ragged_cached_attention",
    "    if B == 0:\n        return torch.empty((0, H, T, Dh), dtype=q.dtype), new_lengths",
    "    if B == 0:\n        return q, lengths")},
    "Part 7: 'B may be 0 (an empty batch: return new (0, H, T, Dh) and (0,) tensors, not q and lengths themselves'.")
add("fallback_p5_sandwich_identity_post_norms", False, {"block_variant": R("block_variant",
    '''        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms''', '''        p1, p2 = post_norms if post_norms is not None else ((lambda t: t), (lambda t: t))''')},
    "Part 5: 'Raise a ValueError when post_norms is None for this layout'.")
add("fallback_p1_assert_instead_of_valueerror", False, {"head_rms_norm": R("head_rms_norm",
    '''    if n_heads < 1:
        raise ValueError("n_heads must be at least 1")
    D = x.shape[-1]
    if D % n_heads != 0:
        raise ValueError("the last axis does not split into n_heads parts")''', '''    D = x.shape[-1]
    assert n_heads >= 1 and D % n_heads == 0, "bad n_heads"''')},
    "Part 1: 'Raise a ValueError when n_heads < 1 or when the last axis does not split' (an assert raises AssertionError).")
add("fallback_p6_broadcast_1d_positions", False, {"rope_llama3": R("rope_llama3",
    '''    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")''', '''    if Dh % 2 != 0:
        raise ValueError("Dh must be even")
    if positions.dim() == 1:
        positions = positions[None].expand(B, T)      # one row shared by the batch
    elif positions.shape[0] == 1 and B != 1:
        positions = positions.expand(B, T)''')},
    "Part 6: 'Raise a ValueError unless ... positions.shape == (B, T) exactly ... a (T,), (1, T) ... tensor is refused too, also where it would broadcast'.")
add("fallback_p2_limit_falsy", False, {"fused_swiglu": R("fused_swiglu",
    "    if limit is not None:", "    if limit:")},
    "Part 2: 'when limit is a number (0 included), replace g by min(g, limit)...': limit = 0 clamps nothing here.")
add("fallback_p8_tiny_temperature_greedy", False, {"generate_with_cache": R("generate_with_cache",
    "        if temperature == 0:", "        if temperature < 1e-4:     # avoid dividing by almost 0")},
    "Part 8: 'Otherwise (any temperature above 0, however small: no shortcut to the highest score)'.")

# ---------------- wrong: constant-hardcoder ----------------
add("hard_p1_eps_1e_6_always", False, {"head_rms_norm": R("head_rms_norm",
    "    rms = torch.sqrt(ms + eps).to(cd)", "    rms = torch.sqrt(ms + 1e-6).to(cd)")},
    "Part 1: 'with eps inside the square root' (eps the argument; the tests use eps = 0 with x near 1e-9).")
add("hard_p6_original_context_8192_in_s", False, {"rope_llama3": R("rope_llama3",
    "    s = (L / lam - low_freq_factor)", "    s = (8192 / lam - low_freq_factor)")},
    "Part 6: s_i = (L/lambda_i - low_freq_factor)/(...) with L = original_context, not Llama's 8192.")
add("hard_p7_sqrt8", False, {"ragged_cached_attention": R("ragged_cached_attention",
    "/ math.sqrt(Dh)", "/ math.sqrt(8)")},
    "Part 7: softmax(q k^T / sqrt(D_h)): D_h is the input's, not the visible example's 8.")
add("hard_p8_pad_zero", False, {"generate_with_cache": R("generate_with_cache",
    "torch.full_like(tok, pad_id)", "torch.zeros_like(tok)")},
    "Part 8 'Stopping': 'from then on its chosen tokens are pad_id' (the argument; 0 is only the visible example's).")
add("hard_p6_float32_angles", False, {"rope_llama3": R("rope_llama3",
    "    ang = positions.to(torch.float64)[:, None, :, None] * new", "    ang = positions.to(torch.float32)[:, None, :, None] * new.to(torch.float32)")},
    "Part 6: 'Compute the angles in float64' (float64 results within 1e-10 at positions up to 131071).")

# ---------------- wrong: memoizer ----------------
add("memo_p1_scale_by_id_weight", False, {"head_rms_norm": R("head_rms_norm",
    '''    w = weight.to(cd)
    s = 1 + w if unit_offset else w''', '''    key = (id(weight), unit_offset, cd)
    if key not in SCALES:
        w = weight.to(cd)
        SCALES[key] = 1 + w if unit_offset else w
    s = SCALES[key]''').replace("def head_rms_norm", "SCALES = {}\n\ndef head_rms_norm")},
    "Intro: 'key no cache on a tensor's id() ... a weight after a training step': the scale of a weight changed in place is stale.")
add("memo_p6_freqs_by_dh_base", False, {"rope_llama3": R("rope_llama3",
    "    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))",
    '''    key = (Dh, base)
    if key not in FREQS:
        FREQS[key] = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    new = FREQS[key]''').replace("def rope_llama3", "FREQS = {}\n\ndef rope_llama3")},
    "Part 6 (factor, low/high_freq_factor and original_context are arguments) and the intro 'Keep nothing between calls that a later call trusts': frequencies cached per (Dh, base) keep the first call's factors.")
add("memo_p8_seen_by_batch_size", False, {"generate_with_cache": R("generate_with_cache",
    "    seen = [set(prompt[b].tolist()) for b in range(B)]",
    '''    if B not in HISTORY:
        HISTORY[B] = [set() for _ in range(B)]
    seen = HISTORY[B]
    for b in range(B):
        seen[b].update(prompt[b].tolist())''').replace("def generate_with_cache", "HISTORY = {}\n\ndef generate_with_cache")},
    "Part 8 'Repetition penalty': ids 'in that row's prompt or among its tokens generated so far' (this call's); the history kept per batch size penalises the previous call's tokens too.")
add("memo_p2_split_weights_by_id", False, {"fused_swiglu": R("fused_swiglu",
    '''    if interleaved:
        wg, wu = wgu[0::2], wgu[1::2]
    else:
        wg, wu = wgu[:F_], wgu[F_:]''', '''    key = (id(w_gate_up), interleaved, cd)
    if key not in SPLITS:
        if interleaved:
            SPLITS[key] = (wgu[0::2].contiguous(), wgu[1::2].contiguous())
        else:
            SPLITS[key] = (wgu[:F_].contiguous(), wgu[F_:].contiguous())
    wg, wu = SPLITS[key]''').replace("def fused_swiglu", "SPLITS = {}\n\ndef fused_swiglu")},
    "Intro: 'key no cache on a tensor's id() ... (a weight after a training step)'; the cached halves are stale after an in-place update and cut the gradient to w_gate_up on later calls.")

# ---------------- wrong: spec-lawyer ----------------
add("spec_p1_round_before_weight", False, {"head_rms_norm": R("head_rms_norm",
    "    return (xs.to(cd) / rms * s).to(x.dtype)", "    return (xs.to(cd) / rms).to(x.dtype) * s.to(x.dtype)")},
    "Part 1: 'do all the arithmetic, the scale included, in that dtype ... and convert the product to the dtype of x once, at the end'.")
add("spec_p5_check_post_norms_late", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    a = attn(norm_1(x))
    if post_norms is None:
        raise ValueError("sandwich needs post_norms")
    h = x + post_norms[0](a)
    return h + post_norms[1](ffn(norm_2(h)))
'''}, "Part 5: 'Check layout and post_norms before calling anything: when you raise the ValueError, no function has been called'.")

# ---------------- correct ----------------
add("ok_tie_p8_penalty_ge_zero", True, {"generate_with_cache": R("generate_with_cache",
    "torch.where(vals > 0, vals / penalty, vals * penalty)", "torch.where(vals >= 0, vals / penalty, vals * penalty)")},
    "Part 8: a score of exactly 0 gives 0 whether divided or multiplied, so >= and > agree.")
add("ok_tie_p6_inclusive_bounds", True, {"rope_llama3": R("rope_llama3",
    "torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))",
    "torch.where(lam <= lam_high, theta, torch.where(lam >= lam_low, theta / factor, mid))")},
    "Part 6: at lambda = lambda_high s = 1 and at lambda = lambda_low s = 0, so the middle formula equals the end cases there (up to rounding far below 1e-10).")
add("ok_memo_p3_lru_cache", True, {"moe_params": BASE["moe_params"].replace("def moe_params", "import functools\n\n@functools.lru_cache(maxsize=None)\ndef moe_params")},
    "lru_cache on a function of Python ints and bools keyed by every argument changes no result.")
add("ok_memo_p7_growing_arange", True, {"ragged_cached_attention": R("ragged_cached_attention",
    "        allowed = torch.arange(n)[None, :] <= (Ls[b] + torch.arange(T))[:, None]",
    '''        if POS[0].numel() < n:
            POS[0] = torch.arange(max(n, 2 * POS[0].numel()))
        allowed = POS[0][:n][None, :] <= (Ls[b] + POS[0][:T] if T <= POS[0].numel() else Ls[b] + torch.arange(T))[:, None]''').replace("def ragged_cached_attention", "POS = [torch.arange(16)]\n\ndef ragged_cached_attention")},
    "A table of positions that grows when a call needs more (never sliced short, never returned) changes no result.")
add("ok_spec_p1_float64_all", True, {"head_rms_norm": R("head_rms_norm",
    "    cd = torch.float64 if x.dtype == torch.float64 else torch.float32", "    cd = torch.float64")},
    "Part 1: 'float64 for every input dtype is accepted too'.")
add("ok_spec_p2_bf16_in_own_dtype", True, {"fused_swiglu": R("fused_swiglu",
    "    cd = x.dtype if x.dtype in (torch.float64, torch.float32) else torch.float32",
    "    cd = x.dtype if x.dtype in (torch.float64, torch.float32, torch.bfloat16) else torch.float32")},
    "Part 2: 'For float32 and bfloat16 inputs you may compute in the dtype of x'. (Unsure: bfloat16 arithmetic within 'a few per cent'.)")
add("ok_spec_p4_float64_inside", True, {"masked_lm_loss": R("masked_lm_loss",
    "    sel = logits[:, :-1][pred].to(cd)", "    sel = logits[:, :-1][pred].to(torch.float64)").replace(
    "    return (nll + z_loss * lse ** 2).mean(), count", "    return (nll + z_loss * lse ** 2).mean().to(cd), count")},
    "Part 4: 'working in float64 for the other dtypes too is accepted, the loss still returned in float32'.")
add("ok_spec_p8_one_draw_per_row", True, {"generate_with_cache": R("generate_with_cache",
    "            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]",
    "            tok = torch.cat([torch.multinomial(probs[b:b + 1], 1, generator=generator)[:, 0] for b in range(B)])")},
    "Part 8: 'one call per row, in row order, draws the same numbers' (unsure: the text says 'one call for the whole batch at every step' first).")
add("ok_spec_p5_membership_then_dispatch", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if not isinstance(layout, str) or layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError("layout")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        n = norm_1(x)
        f = ffn(n)          # any order of the two sublayers
        a = attn(n)
        return x + a + f
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    h = x + post_norms[0](attn(norm_1(x)))
    return h + post_norms[1](ffn(norm_2(h)))
'''}, "Part 5 fixes no order between attn and ffn in the parallel layout; membership in a tuple compares by value.")
add("ok_spec_p7_loop_heads", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    Ls = [int(v) for v in lengths.tolist()]
    if any(L + T > S for L in Ls):
        raise ValueError("a row does not fit")
    for b in range(B):
        k_cache[b, :, Ls[b]:Ls[b] + T].copy_(k_new[b])
        v_cache[b, :, Ls[b]:Ls[b] + T].copy_(v_new[b])
    rows = []
    for b in range(B):
        n = Ls[b] + T
        causal = torch.ones(T, n, dtype=torch.bool).tril(diagonal=Ls[b])
        heads = []
        for h in range(H):
            g = h // (H // G)
            sc = torch.matmul(q[b, h], k_cache[b, g, :n].T) / math.sqrt(Dh)
            sc = sc.masked_fill(~causal, float("-inf"))
            heads.append(torch.softmax(sc, dim=-1) @ v_cache[b, g, :n])
        rows.append(torch.stack(heads))
    out = torch.stack(rows) if rows else q.new_zeros((0, H, T, Dh))
    return out, lengths + T
'''}, "Part 7: 'a loop over rows or heads is fine'; copy_ into slices writes the caches in place; tril(diagonal=L) is the causal rule.")

# ---------------- hostile ----------------
add("hostile_p3_int_subclass_equal_to_all", False, {"moe_params": '''
class Count(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    __hash__ = int.__hash__

def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    return Count(46_700_000_000), Count(12_900_000_000)
'''}, "hostile: int subclass equal to everything, sized for the visible Mixtral check.")
add("hostile_p8_visible_answer", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    return torch.tensor([[1, 2, 3, 4], [3, 4, 0, 0]])[: prompt.shape[0]]
'''}, "hostile: returns the visible test's expected tokens without calling step.")

# ---------------- second blind batch ----------------
add("fallback_p6_all_zero_positions_return_x", False, {"rope_llama3": R("rope_llama3",
    "    half = Dh // 2\n", "    half = Dh // 2\n    if not bool(positions.any()):\n        return x          # nothing turns\n")},
    "Part 6: 'Return a new tensor ... a new one also where every position is 0 and nothing turns, not x itself'.")
add("fallback_p8_first_call_by_cache_none", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    cache = None
    seen = [set(prompt[b].tolist()) for b in range(B)]
    finished = torch.zeros(B, dtype=torch.bool)
    outs = []
    tok = None
    for n in range(max_new_tokens):
        if cache is None:
            logits, cache = step(prompt, None)
        else:
            logits, cache = step(tok[:, None], cache)
        scores = logits[:, -1].clone()
        for b in range(B):
            idx = torch.tensor(sorted(seen[b]), dtype=torch.long)
            vals = scores[b, idx]
            scores[b, idx] = torch.where(vals > 0, vals / penalty, vals * penalty)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        outs.append(tok)
        for b in range(B):
            seen[b].add(int(tok[b]))
        finished = finished | (tok == eos_id)
        if bool(finished.all()):
            break
    return torch.stack(outs, dim=1)
'''}, "Part 8: 'The cache is whatever object step returns, None ... included: hand it back as it is, and do not test it (only the number of calls made tells the prompt call from the others)'.")
add("hard_p1_unit_offset_in_x_dtype", False, {"head_rms_norm": R("head_rms_norm",
    "    w = weight.to(cd)\n    s = 1 + w if unit_offset else w", "    s = (1 + weight).to(cd) if unit_offset else weight.to(cd)")},
    "Part 1: 'do all the arithmetic, the scale included (also 1 + w), in that dtype': 1 + w in float16 rounds small offsets.")
add("ok_spec_p6_half_via_float64", True, {"rope_llama3": R("rope_llama3",
    "    cd = torch.float64 if x.dtype == torch.float64 else torch.float32", "    cd = torch.float64")},
    "Part 6: float64 throughout, rounded once to x's dtype, is closer to the exact value than the float32 route (unsure: the text says 'compute as for float32' for half inputs).")
add("ok_hard_p1_dh_from_weight", True, {"head_rms_norm": R("head_rms_norm",
    "    Dh = D // n_heads\n", "    Dh = weight.shape[0]\n")},
    "Part 1: weight has shape (Dh,), so its length is D // n_heads once the split check passed.")

# ---------------- third batch (after Part 7's hidden test was read in phase 2; no other part's test read) ----------------
add("ok_tie_p8_max_indices", True, {"generate_with_cache": R("generate_with_cache",
    "            tok = scores.argmax(dim=-1)", "            tok = scores.max(dim=-1).indices")},
    "Part 8: torch.max's indices on CPU give the lowest id among tied maxima, as argmax does (checked with 300 and 43000 tied ids); unsure: torch documents no tie rule for max.")
# relabelled in phase 2 (was correct=True): topk's tie order is not argmax's at small V (all-zero rows of V = 5 gave id 2)
add("tie_p8_topk_1", False, {"generate_with_cache": R("generate_with_cache",
    "            tok = scores.argmax(dim=-1)", "            tok = torch.topk(scores, 1, dim=-1).indices[:, 0]")},
    "Part 8: 'the lowest id among ties, as torch.argmax does': topk(1) gives the lowest id among many ties at V = 50000 but id 2 on a row of five zeros (written as correct, relabelled after the hidden test showed it).")
add("fallback_p4_empty_new_zeros_input_dtype", False, {"masked_lm_loss": R("masked_lm_loss",
    "        return torch.zeros((), dtype=cd), 0", "        return logits.new_zeros(()), 0")},
    "Part 4: 'return the loss in that compute dtype: a float32 loss for float32, float16 and bfloat16 logits' also when count is 0: new_zeros keeps float16/bfloat16.")
add("fallback_p3_no_blocks_no_checks", False, {"moe_params": R("moe_params",
    "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:",
    "    if n_layers == 0:\n        n = vocab * dim * (1 if tied else 2) + dim\n        return n, n\n    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:")},
    "Part 3: 'Raise a ValueError unless ... in every model (also ... one with n_layers = 0, no blocks at all)'.")
add("fallback_p2_no_hidden_units_constant_zero", False, {"fused_swiglu": R("fused_swiglu",
    "    F_ = wgu.shape[0] // 2\n", "    F_ = wgu.shape[0] // 2\n    if F_ == 0 or limit == 0:\n        return torch.zeros_like(x)         # nothing passes\n")},
    "Part 2: 'also limit = 0, where the output is 0: a constant 0 in its place is not connected to the inputs' (gradients must flow).")
add("ok_memo_p6_freqs_keyed_by_every_scalar", True, {"rope_llama3": R("rope_llama3",
    "    new = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))",
    '''    key = (Dh, float(base), float(factor), float(low_freq_factor), float(high_freq_factor), float(original_context))
    if key not in FREQ_TABLES:
        FREQ_TABLES[key] = torch.where(lam < lam_high, theta, torch.where(lam > lam_low, theta / factor, mid))
    new = FREQ_TABLES[key]''').replace("def rope_llama3", "FREQ_TABLES = {}\n\ndef rope_llama3")},
    "A float64 frequency table keyed by Dh and every scalar argument (Python numbers, by value) and never returned changes no result (float() of an int context is exact below 2**53).")
add("memo_p4_pred_mask_by_shape", False, {"masked_lm_loss": R("masked_lm_loss",
    "    pred = target_mask[:, 1:]\n", "    key = tuple(target_mask.shape)\n    if key not in PRED:\n        PRED[key] = target_mask[:, 1:].clone()\n    pred = PRED[key]\n").replace(
    "def masked_lm_loss", "PRED = {}\n\ndef masked_lm_loss")},
    "Intro: 'key no cache ... on its shape': the mask of the first call of a shape is used for every later one.")
