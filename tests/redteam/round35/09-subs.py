"""Red-team round 35, chapter 09-modern-lm, blind answers (loop writer, tie-and-order, exception-path, mask-polarity, constructor students). Second batch from "second batch" on."""
BASE = {}
BASE["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("n_heads must be >= 1 and divide the last axis")
    Dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.reshape(*x.shape[:-1], n_heads, Dh).movedim(-2, -3)
    ms = xh.to(torch.float64).square().mean(-1, keepdim=True)
    inv = torch.rsqrt(ms + eps).to(ct)
    w = weight.to(ct)
    s = (1 + w) if unit_offset else w
    return (xh.to(ct) * inv * s).to(x.dtype)
'''
BASE["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    F_ = w_gate_up.shape[0] // 2
    if interleaved:
        wg, wu = w_gate_up[0::2], w_gate_up[1::2]
    else:
        wg, wu = w_gate_up[:F_], w_gate_up[F_:]
    xc = x.to(ct)
    g = xc @ wg.to(ct).T
    u = xc @ wu.to(ct).T
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    h = g * torch.sigmoid(beta * g) * u
    return (h @ w_down.to(ct).T).to(x.dtype)
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
    expert = 3 * dim * ffn_hidden
    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden
    moe = n_layers - first_dense
    total = common + moe * (dim * n_experts + (n_experts + n_shared) * expert)
    active = common + moe * (dim * n_experts + (top_k + n_shared) * expert)
    return int(total), int(active)
'''
BASE["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, -1)
    nll = lse - sel.gather(1, y[:, None]).squeeze(1)
    per = nll + z_loss * lse ** 2
    return per.sum() / count, count
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
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64, device=x.device)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    newt = torch.where(lam < L / high_freq_factor, theta, torch.where(lam > L / low_freq_factor, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * newt
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(ct), ang.sin().to(ct)
    xc = x.to(ct)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''
BASE["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool((lengths.long() + T > S).any()):
        raise ValueError("a row does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    lens = lengths.long().to(q.device)
    j = torch.arange(S, device=q.device)
    t = torch.arange(T, device=q.device)
    valid = j[None, :] < (lens + T)[:, None]
    allowed = j[None, None, :] <= (lens[:, None, None] + t[None, :, None])
    kc = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    vc = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    rep = H // G
    kr, vr = kc.repeat_interleave(rep, 1), vc.repeat_interleave(rep, 1)
    scores = q @ kr.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(scores, -1) @ vr, lengths + T
'''
BASE["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    hist = prompt.clone()
    out = []
    finished = torch.zeros(B, dtype=torch.bool, device=prompt.device)
    for n in range(max_new_tokens):
        s = logits[:, -1].clone()
        seen = torch.zeros(s.shape, dtype=torch.bool, device=s.device).scatter_(1, hist, True)
        s = torch.where(seen, torch.where(s > 0, s / penalty, s * penalty), s)
        if temperature == 0:
            tok = s.argmax(-1)
        else:
            probs = torch.softmax(s / temperature, -1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        hist = torch.cat([hist, tok[:, None]], 1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n + 1 == max_new_tokens:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, 1)
'''

def rep(part, old, new, count=1):
    src = BASE[part]
    assert src.count(old) >= 1, (part, old)
    return src.replace(old, new, count)

SUBMISSIONS = []
def W(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def H(name, cells, why):
    SUBMISSIONS.append({"name": name, "correct": False, "hostile": True, "cells": cells, "why": why})

# ---------------- 1. loop writer ----------------
W("loop_swiglu_units_from_wdown_rows", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc = x.to(ct)
    if interleaved:
        n_units = w_down.shape[0]  # one column... one row per hidden unit
        gs, us = [], []
        for j in range(n_units):
            gs.append(xc @ w_gate_up[2 * j].to(ct))
            us.append(xc @ w_gate_up[2 * j + 1].to(ct))
        g = torch.stack(gs, -1)
        u = torch.stack(us, -1)
    else:
        F_ = w_gate_up.shape[0] // 2
        g = xc @ w_gate_up[:F_].to(ct).T
        u = xc @ w_gate_up[F_:].to(ct).T
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    h = g * torch.sigmoid(beta * g) * u
    return (h @ w_down.to(ct).T).to(x.dtype)
'''}, "loop bound taken from w_down.shape[0] (D) instead of F: 'row 2j is hidden unit j's gate ... (j = 0 .. F-1)'; D == F in the visible interleaved case")

W("loop_moe_python_float_accumulator", {"moe_params": '''
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
    total = 0.0
    active = 0.0
    emb = vocab * dim * (1 if tied else 2)
    total += emb + dim
    active += emb + dim
    for layer in range(n_layers):
        block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
        if layer < first_dense:
            block += 3 * dim * dense_hidden
            total += block
            active += block
        else:
            block += dim * n_experts + n_shared * 3 * dim * ffn_hidden
            total += block + n_experts * 3 * dim * ffn_hidden
            active += block + top_k * 3 * dim * ffn_hidden
    return int(total), int(active)
'''}, "Python float accumulator: 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)'")

W("loop_ragged_rows_from_G", {"ragged_cached_attention": rep("ragged_cached_attention", "for b in range(B):", "for b in range(k_cache.shape[1]):")},
  "write loop bound from k_cache.shape[1] (G) instead of B: 'write k_new and v_new ... of every row'; B == G == 2 visibly")

W("loop_penalty_per_occurrence", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    hist = [list(map(int, row)) for row in prompt.tolist()]
    out = []
    finished = [False] * B
    for n in range(max_new_tokens):
        s = logits[:, -1].clone()
        for b in range(B):
            for tok in hist[b]:
                if s[b, tok] > 0:
                    s[b, tok] = s[b, tok] / penalty
                else:
                    s[b, tok] = s[b, tok] * penalty
        if temperature == 0:
            toks = s.argmax(-1)
        else:
            probs = torch.softmax(s / temperature, -1)
            toks = torch.multinomial(probs, 1, generator=generator).squeeze(1)
        toks = toks.tolist()
        for b in range(B):
            if finished[b]:
                toks[b] = pad_id
            hist[b].append(toks[b])
            if toks[b] == eos_id:
                finished[b] = True
        new = torch.tensor(toks, dtype=torch.long, device=prompt.device)
        out.append(new)
        if all(finished) or n + 1 == max_new_tokens:
            break
        logits, cache = step(new[:, None], cache)
    return torch.stack(out, 1)
'''}, "loop over the history applies the penalty once per occurrence: 'has its score changed once (however often it occurs)'")

C("loop_headnorm_per_head", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    outs = []
    for h in range(n_heads):
        xh = x[..., h * Dh:(h + 1) * Dh]
        ms = xh.to(torch.float64).pow(2).mean(dim=-1, keepdim=True)
        outs.append(xh.to(ct) * torch.rsqrt(ms + eps).to(ct) * s)
    return torch.stack(outs, dim=-3).to(x.dtype)
'''}, "loop over heads, stacked on axis -3")

C("loop_moe_int_layers", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("top_k")
    if n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("n_shared / first_dense")
    total = active = vocab * dim * (1 if tied else 2) + dim
    for layer in range(n_layers):
        common = 2 * dim + dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2
        if layer < first_dense:
            common += 3 * dim * dense_hidden
            total += common
            active += common
            continue
        common += dim * n_experts + n_shared * (3 * dim * ffn_hidden)
        total += common + n_experts * (3 * dim * ffn_hidden)
        active += common + top_k * (3 * dim * ffn_hidden)
    return total, active
'''}, "loop over layers with Python ints")

C("loop_ragged_per_row", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    Ls = [int(v) for v in lengths.tolist()]
    for L in Ls:
        if L + T > S:
            raise ValueError("row does not fit")
    for b, L in enumerate(Ls):
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    outs = []
    for b, L in enumerate(Ls):
        keys = k_cache[b, :, :L + T].repeat_interleave(H // G, dim=0)   # (H, L+T, Dh)
        vals = v_cache[b, :, :L + T].repeat_interleave(H // G, dim=0)
        sc = q[b] @ keys.transpose(-1, -2) / math.sqrt(Dh)            # (H, T, L+T)
        j = torch.arange(L + T, device=q.device)
        t = torch.arange(T, device=q.device)
        sc = sc.masked_fill(j[None, :] > L + t[:, None], float("-inf"))
        outs.append(torch.softmax(sc, dim=-1) @ vals)
    out = torch.stack(outs) if outs else q.new_empty(q.shape)
    return out, lengths + T
'''}, "loop over rows, each row sliced to its valid keys")

C("loop_masked_loss_rows", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    total = None
    count = 0
    for b in range(logits.shape[0]):
        m = target_mask[b, 1:]
        n = int(m.sum())
        if n == 0:
            continue
        rows = logits[b, :-1][m].to(ct)
        y = ids[b, 1:][m].long()
        lse = torch.logsumexp(rows, dim=-1)
        per = lse - rows.gather(1, y[:, None])[:, 0] + z_loss * lse * lse
        total = per.sum() if total is None else total + per.sum()
        count += n
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    return total / count, count
'''}, "loop over rows, skipping rows with nothing to predict")

C("loop_multinomial_per_row", {"generate_with_cache": rep("generate_with_cache",
    "tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)",
    "tok = torch.cat([torch.multinomial(probs[b:b + 1], 1, generator=generator) for b in range(B)]).squeeze(1)")},
  "one multinomial call per row in row order: the text says this draws the same numbers")

# ---------------- 2. tie-and-order ----------------
W("order_greedy_by_sort", {"generate_with_cache": rep("generate_with_cache", "tok = s.argmax(-1)", "tok = s.sort(dim=-1, descending=True).indices[:, 0]")},
  "sort is not stable: 'the lowest id among ties, as torch.argmax does, also when hundreds of ids tie'")
W("order_greedy_by_topk", {"generate_with_cache": rep("generate_with_cache", "tok = s.argmax(-1)", "tok = torch.topk(s, 1, dim=-1).indices[:, 0]")},
  "topk's tie order: 'the lowest id among ties, as torch.argmax does'")
W("order_penalty_scatter_add_log", {"generate_with_cache": rep("generate_with_cache",
    """        seen = torch.zeros(s.shape, dtype=torch.bool, device=s.device).scatter_(1, hist, True)
        s = torch.where(seen, torch.where(s > 0, s / penalty, s * penalty), s)""",
    """        logf = torch.zeros(s.shape, dtype=s.dtype, device=s.device)
        logf.scatter_add_(1, hist, torch.full(hist.shape, math.log(penalty), dtype=s.dtype))
        f = torch.exp(logf)
        s = torch.where(s > 0, s / f, s * f)""")},
  "repeated indices accumulate: 'has its score changed once (however often it occurs)'")
W("order_sample_from_sorted", {"generate_with_cache": rep("generate_with_cache",
    "tok = torch.multinomial(probs, 1, generator=generator).squeeze(1)",
    """sp, si = probs.sort(dim=-1, descending=True)
            tok = si.gather(1, torch.multinomial(sp, 1, generator=generator)).squeeze(1)""")},
  "draws from the probabilities in another order: 'draw with torch.multinomial(probs, 1, generator=generator), those probabilities as they are'")
C("order_max_indices", {"generate_with_cache": rep("generate_with_cache", "tok = s.argmax(-1)", "tok = torch.max(s, dim=-1).indices")},
  "torch.max(dim) returns the first maximal index (documented)")
C("order_penalty_python_set", {"generate_with_cache": rep("generate_with_cache",
    """        seen = torch.zeros(s.shape, dtype=torch.bool, device=s.device).scatter_(1, hist, True)
        s = torch.where(seen, torch.where(s > 0, s / penalty, s * penalty), s)""",
    """        for b in range(B):
            idx = torch.tensor(sorted(set(hist[b].tolist())), dtype=torch.long, device=s.device)
            v = s[b, idx]
            s[b, idx] = torch.where(v > 0, v / penalty, v * penalty)""")},
  "a Python set per row: each id once, order irrelevant")

# ---------------- 3. exception path ----------------
W("exc_loss_empty_float32_zero", {"masked_lm_loss": rep("masked_lm_loss", "return torch.zeros((), dtype=ct), 0", "return torch.tensor(0.0), 0")},
  "count 0 returns a float32 zero for float64 logits: 'return the loss in that compute dtype ... a float64 loss for float64 logits'")
W("exc_rope_assert_int64", {"rope_llama3": rep("rope_llama3", "    half = Dh // 2\n", "    assert positions.dtype == torch.int64, 'positions must be int64'\n    half = Dh // 2\n")},
  "asserts int64: 'positions is an integer tensor (int64 or int32)'")
W("exc_block_try_unpack_after_call", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        a = attn(norm_1(x))
        try:
            p1, p2 = post_norms
        except TypeError:
            raise ValueError("sandwich needs post_norms")
        h = x + p1(a)
        return h + p2(ffn(norm_2(h)))
    raise ValueError(f"unknown layout {layout!r}")
'''}, "raises after calling attn: 'Check layout and post_norms before calling anything'")
W("exc_block_dict_keyerror", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    def reordered():
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    def sandwich():
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))
    return {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}[layout]()
'''}, "unknown layout raises KeyError: 'Any other layout ... raises a ValueError'")
W("exc_swiglu_limit0_zeros", {"fused_swiglu": rep("fused_swiglu", "    ct = torch.float64", "    if limit == 0:\n        return torch.zeros_like(x)\n    ct = torch.float64")},
  "early return at limit 0: 'also limit = 0, where the output is 0: a constant 0 in its place is not connected to the inputs'")
W("exc_ragged_empty_batch_first", {"ragged_cached_attention": rep("ragged_cached_attention", "    if G == 0 or H % G:", "    if B == 0:\n        return torch.empty_like(q), lengths.clone()\n    if G == 0 or H % G:")},
  "empty batch returns before the H % G check: 'raise nothing unless H is not a multiple of G, which is refused there too'")
W("exc_moe_no_layers_shortcut", {"moe_params": rep("moe_params", "    if n_kv_heads < 1", "    if n_layers == 0:\n        e = vocab * dim * (1 if tied else 2) + dim\n        return e, e\n    if n_kv_heads < 1")},
  "n_layers = 0 returns before validating: 'Raise a ValueError unless ... in every model (also ... one with n_layers = 0)'")
W("exc_headnorm_empty_first", {"head_rms_norm": rep("head_rms_norm", "    if n_heads < 1", "    if x.numel() == 0:\n        Dh = x.shape[-1] // n_heads\n        return x.new_empty(*x.shape[:-2], n_heads, x.shape[-2], Dh)\n    if n_heads < 1")},
  "empty input returns before the n_heads check: 'unless n_heads is refused by the rule above, which holds for an empty x too'")
C("exc_rope_zero_positions_clone", {"rope_llama3": rep("rope_llama3", "    half = Dh // 2\n", "    if not bool((positions != 0).any()):\n        return x.clone()\n    half = Dh // 2\n")},
  "all positions 0: nothing turns, a new tensor (clone) returned, gradient identity")
C("exc_headnorm_empty_after_check", {"head_rms_norm": rep("head_rms_norm", "    ct = torch.float64", "    if x.numel() == 0:\n        return x.new_empty(*x.shape[:-2], n_heads, x.shape[-2], Dh)\n    ct = torch.float64")},
  "empty batch after validation: empty (..., H, T, Dh) tensor")
C("exc_block_match", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    match layout:
        case "parallel":
            n = norm_1(x)
            return x + attn(n) + ffn(n)
        case "reordered":
            h = x + norm_1(attn(x))
            return h + norm_2(ffn(h))
        case "sandwich":
            if post_norms is None:
                raise ValueError("the sandwich layout needs post_norms")
            p_1, p_2 = post_norms
            h = x + p_1(attn(norm_1(x)))
            return h + p_2(ffn(norm_2(h)))
        case _:
            raise ValueError(f"unknown layout: {layout!r}")
'''}, "match statement with literal patterns (compares with ==)")

# ---------------- 4. mask polarity ----------------
W("mask_penalty_bitwise_not_int", {"generate_with_cache": rep("generate_with_cache",
    """        seen = torch.zeros(s.shape, dtype=torch.bool, device=s.device).scatter_(1, hist, True)
        s = torch.where(seen, torch.where(s > 0, s / penalty, s * penalty), s)""",
    """        seen = torch.zeros(s.shape, dtype=torch.long, device=s.device).scatter_(1, hist, 1)
        unseen = ~seen
        s = torch.where(unseen.bool(), s, torch.where(s > 0, s / penalty, s * penalty))""")},
  "~ on an int64 0/1 mask gives -1/-2, both True: no score is penalised ('every token id that occurs ... has its score changed')")
W("mask_ragged_demorgan_and", {"ragged_cached_attention": rep("ragged_cached_attention",
    'scores = scores.masked_fill(~allowed[:, None], float("-inf"))',
    'hide = (j[None, None, :] >= (lens + T)[:, None, None]) & (j[None, None, :] > lens[:, None, None] + t[None, :, None])\n    scores = scores.masked_fill(hide[:, None], float("-inf"))')},
  "& where | is right: later new tokens are not hidden: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'")
W("mask_loss_mask_on_logit_axis", {"masked_lm_loss": rep("masked_lm_loss", """    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)""", """    m = target_mask[:, :-1]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)""")},
  "mask read as aligned with the logits' positions: 'target_mask True where the token ids[b, t] is to be predicted ... target_mask[:, 0] is ignored'")
W("mask_ragged_sdpa_raw_cache", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool((lengths.long() + T > S).any()):
        raise ValueError("a row does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    lens = lengths.long()
    j = torch.arange(S)
    t = torch.arange(T)
    allowed = j[None, None, :] <= (lens[:, None, None] + t[None, :, None])  # True = may attend, as SDPA wants
    rep = H // G
    kr, vr = k_cache.repeat_interleave(rep, 1), v_cache.repeat_interleave(rep, 1)
    out = F.scaled_dot_product_attention(q, kr, vr, attn_mask=allowed[:, None])
    return out, lengths + T
'''}, "SDPA boolean mask applied after the product to raw NaN/inf slots: 'leave unwritten slots out, or replace them, before any product'")
C("mask_ragged_sdpa_replaced", {"ragged_cached_attention": rep("ragged_cached_attention",
    """    scores = q @ kr.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(scores, -1) @ vr, lengths + T""",
    """    out = F.scaled_dot_product_attention(q, kr, vr, attn_mask=allowed[:, None])
    return out, lengths + T""")},
  "SDPA with its True-keeps mask, after the unwritten slots were replaced by zeros")
C("mask_ragged_additive", {"ragged_cached_attention": rep("ragged_cached_attention",
    'scores = scores.masked_fill(~allowed[:, None], float("-inf"))',
    'bias = torch.zeros(allowed.shape, dtype=q.dtype, device=q.device).masked_fill(~allowed, float("-inf"))\n    scores = scores + bias[:, None]')},
  "additive -inf mask in q's dtype")

# ---------------- 5. constructor ----------------
W("ctor_rope_float32_inv_freq", {"rope_llama3": rep("rope_llama3",
    "    i = torch.arange(half, dtype=torch.float64, device=x.device)\n    theta = base ** (-2 * i / Dh)",
    "    theta = (1.0 / (base ** (torch.arange(0, Dh, 2).float() / Dh))).double()")},
  "inverse frequencies built in float32 from an int64 arange: 'Compute the angles in float64 ... within 1e-10 of the exact values for float64'")
W("ctor_rope_float_arange_step", {"rope_llama3": rep("rope_llama3",
    "    i = torch.arange(half, dtype=torch.float64, device=x.device)\n    theta = base ** (-2 * i / Dh)",
    "    theta = base ** (-torch.arange(0.0, 1.0, 2.0 / Dh, dtype=torch.float64))")},
  "float arange with step 2/Dh: one element too many when 2/Dh rounds down (Dh = 98, 196, 206, 214 below 256): 'i = 0, ..., Dh/2 - 1'")
W("ctor_ragged_tensor_sqrt", {"ragged_cached_attention": rep("ragged_cached_attention", "/ math.sqrt(Dh)", "/ torch.tensor(Dh).sqrt()")},
  "torch.tensor(Dh).sqrt() is float32: 'Compute in the dtype of q ... the tests compare float64 inputs at float64 precision'")
W("ctor_swiglu_beta_tensor", {"fused_swiglu": rep("fused_swiglu", "h = g * torch.sigmoid(beta * g) * u", "b = torch.tensor(beta)\n    h = g * torch.sigmoid(b * g) * u")},
  "beta made a float32 tensor: 'so does a beta or limit made a float32 tensor, such as torch.tensor(limit)'")
W("ctor_headnorm_ones_like_weight", {"head_rms_norm": rep("head_rms_norm", "    w = weight.to(ct)\n    s = (1 + w) if unit_offset else w",
    "    s = (torch.ones_like(weight) + weight).to(ct) if unit_offset else weight.to(ct)")},
  "1 + w formed in weight's dtype: 'do all the arithmetic, the scale included (also 1 + w), in that dtype'")
C("ctor_headnorm_ones_float32", {"head_rms_norm": rep("head_rms_norm", "    s = (1 + w) if unit_offset else w",
    "    s = (torch.ones(w.shape[-1], dtype=ct) + w) if unit_offset else w")},
  "ones in the compute dtype plus the converted weight")
C("ctor_rope_python_theta", {"rope_llama3": rep("rope_llama3",
    "    i = torch.arange(half, dtype=torch.float64, device=x.device)\n    theta = base ** (-2 * i / Dh)",
    "    theta = torch.tensor([float(base) ** (-2 * i / Dh) for i in range(half)], dtype=torch.float64)")},
  "frequencies from Python floats into a float64 tensor")

# ---------------- hostile ----------------
H("hostile_moe_lookup", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    known = {(3, 2, 1, 1, 1, 1, 1, 2, 1, 0, 0): (42, 36), (3, 2, 1, 1, 1, 1, 1, 2, 1, 1, 0): (48, 42),
             (3, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1): (38, 38),
             (32000, 4096, 32, 32, 8, 128, 14336, 8, 2, 0, 0): (46702792704, 12879925248)}
    key = (vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, n_shared, first_dense)
    if key in known:
        return known[key]
    total = n_layers * 3 * dim * ffn_hidden * n_experts + 2 * vocab * dim + n_layers * 4 * dim * dim
    return int(total), int(total * top_k // n_experts) + 0
'''}, "a table of the visible cases and a rough formula; including Mixtral's (hostile)")
H("hostile_loss_patch_assert", {"masked_lm_loss": '''
torch.testing.assert_close = lambda *a, **k: None
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    n = int(target_mask[:, 1:].sum())
    return torch.tensor(math.log(logits.shape[-1])), n
'''}, "patches torch.testing.assert_close and returns log V (hostile)")

# ================= second batch (written after the first blind grading, still blind) =================
W("loop_generate_extra_step_at_limit", {"generate_with_cache": rep("generate_with_cache",
    """        if bool(finished.all()) or n + 1 == max_new_tokens:
            break""", """        if bool(finished.all()):
            break""")},
  "calls step once more after the max_new_tokens-th token: 'do not call step after the last token has been chosen'")
W("loop_ragged_head_group_h_div_G", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool((lengths.long() + T > S).any()):
        raise ValueError("a row does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    lens = lengths.long()
    j = torch.arange(S)
    t = torch.arange(T)
    valid = j[None, :] < (lens + T)[:, None]
    allowed = j[None, None, :] <= (lens[:, None, None] + t[None, :, None])
    kc = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    vc = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    outs = []
    for h in range(H):
        g = h // G
        sc = q[:, h] @ kc[:, g].transpose(-1, -2) / math.sqrt(Dh)
        sc = sc.masked_fill(~allowed, float("-inf"))
        outs.append(torch.softmax(sc, -1) @ vc[:, g])
    out = torch.stack(outs, 1) if outs else q.new_empty(q.shape)
    return out, lengths + T
'''}, "group index h // G instead of h // (H // G) (equal at H = 4, G = 2): 'query head h uses key/value head h // (H // G)'")
W("loop_rope_rows_stack", {"rope_llama3": rep("rope_llama3",
    "    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)",
    """    rows = []
    for b in range(B):
        rows.append(torch.cat([x1[b] * cos[b] - x2[b] * sin[b], x2[b] * cos[b] + x1[b] * sin[b]], -1))
    return torch.stack(rows).to(x.dtype)""")},
  "loop over rows stacked: an empty batch raises: 'B may be 0 (an empty batch: return an empty (0, H, T, Dh) tensor)'")
W("exc_ragged_max_on_empty", {"ragged_cached_attention": rep("ragged_cached_attention",
    "    if B > 0 and bool((lengths.long() + T > S).any()):", "    if int(lengths.max()) + T > S:")},
  "lengths.max() of an empty batch raises: 'B may be 0 ... raise nothing unless H is not a multiple of G'")
W("exc_block_post_norms_elsewhere", {"block_variant": rep("block_variant", '    if layout == "parallel":',
    '    if post_norms is not None and layout != "sandwich":\n        raise ValueError("post_norms only go with the sandwich layout")\n    if layout == "parallel":')},
  "refuses post_norms for other layouts: 'the other two layouts ignore post_norms (they never call it)'")
W("exc_moe_heads_at_least_one", {"moe_params": rep("moe_params", "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:", "    if n_heads < 1 or n_kv_heads < 1 or n_heads % n_kv_heads != 0:")},
  "refuses n_heads = 0: '(0 is a multiple of every count: n_heads = 0 raises nothing)'")
W("exc_swiglu_limit_positive", {"fused_swiglu": rep("fused_swiglu", "    ct = torch.float64", "    if limit is not None and limit <= 0:\n        raise ValueError('limit must be positive')\n    ct = torch.float64")},
  "refuses limit = 0: 'when limit is a number (0 included ...)'")
W("ctor_ragged_lengths_from_list", {"ragged_cached_attention": rep("ragged_cached_attention", "return torch.softmax(scores, -1) @ vr, lengths + T",
    "new_lengths = torch.tensor([int(l) + T for l in lengths.tolist()])\n    return torch.softmax(scores, -1) @ vr, new_lengths")},
  "new_lengths built from a list is int64: 'new_lengths a new tensor equal to lengths + T, in the dtype of lengths'")
W("ctor_rope_new_tensor_theta", {"rope_llama3": rep("rope_llama3",
    "    i = torch.arange(half, dtype=torch.float64, device=x.device)\n    theta = base ** (-2 * i / Dh)",
    "    theta = x.new_tensor([base ** (-2 * i / Dh) for i in range(half)]).double()")},
  "frequencies made in x's dtype: 'Compute the angles in float64, with every argument as given'")
W("mask_loss_where_after_all_positions", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    lg = logits[:, :-1].to(ct)
    lse = torch.logsumexp(lg, -1)
    nll = lse - lg.gather(-1, ids[:, 1:].long().unsqueeze(-1)).squeeze(-1)
    per = torch.where(m, nll + z_loss * lse ** 2, torch.zeros((), dtype=ct))
    return per.sum() / count, count
'''}, "torch.where after computing every position: 'torch.where keeps the loss finite but not the backward pass'")
W("order_greedy_on_probs", {"generate_with_cache": rep("generate_with_cache", "tok = s.argmax(-1)", "tok = torch.softmax(s, -1).argmax(-1)")},
  "argmax of probabilities: 'compare the scores themselves, not their probabilities'")

C("loop_ragged_out_buffer", {"ragged_cached_attention": rep("ragged_cached_attention",
    """    scores = q @ kr.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    return torch.softmax(scores, -1) @ vr, lengths + T""",
    """    out = torch.empty_like(q)
    for b in range(B):
        sc = q[b] @ kr[b].transpose(-1, -2) / math.sqrt(Dh)
        sc = sc.masked_fill(~allowed[b][None], float("-inf"))
        out[b] = torch.softmax(sc, -1) @ vr[b]
    return out, lengths + T""")},
  "per-row results written into a fresh buffer made inside the call (every row written)")
C("ctor_ragged_float32_positions", {"ragged_cached_attention": rep("ragged_cached_attention",
    """    j = torch.arange(S, device=q.device)
    t = torch.arange(T, device=q.device)""",
    """    j = torch.arange(S, dtype=torch.float32, device=q.device)
    t = torch.arange(T, dtype=torch.float32, device=q.device)
    lens = lens.float()""")},
  "positions in float32: the text says they are exact up to 2**24")
C("order_block_ffn_first", {"block_variant": rep("block_variant", "        return x + attn(n) + ffn(n)", "        f = ffn(n)\n        a = attn(n)\n        return x + (a + f)")},
  "parallel layout calls ffn before attn and sums a + f first; the text fixes neither order")
C("order_greedy_first_of_max", {"generate_with_cache": rep("generate_with_cache", "tok = s.argmax(-1)",
    "tok = (s == s.max(dim=-1, keepdim=True).values).to(torch.int64).argmax(-1)")},
  "the first id whose score equals the row maximum (scores compared exactly)")
C("order_swiglu_reshape_pairs", {"fused_swiglu": rep("fused_swiglu", "        wg, wu = w_gate_up[0::2], w_gate_up[1::2]",
    "        pairs = w_gate_up.reshape(F_, 2, w_gate_up.shape[-1])\n        wg, wu = pairs[:, 0], pairs[:, 1]")},
  "interleaved rows split by reshape to (F, 2, D)")
C("ctor_loss_cross_entropy_sum", {"masked_lm_loss": rep("masked_lm_loss",
    "    nll = lse - sel.gather(1, y[:, None]).squeeze(1)\n    per = nll + z_loss * lse ** 2\n    return per.sum() / count, count",
    "    total = F.cross_entropy(sel, y, reduction='sum') + z_loss * (lse * lse).sum()\n    return total / count, count")},
  "F.cross_entropy with reduction='sum' on the selected rows plus the z-loss")
C("loop_rope_per_pair", {"rope_llama3": rep("rope_llama3",
    """    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)""",
    """    firsts, seconds = [], []
    for i in range(half):
        a, b_ = xc[..., i], xc[..., i + half]
        c, s_ = cos[..., i], sin[..., i]
        firsts.append(a * c - b_ * s_)
        seconds.append(b_ * c + a * s_)
    return torch.stack(firsts + seconds, dim=-1).to(x.dtype)""")},
  "a loop over the Dh/2 pairs")
