"""Red team round 17, chapter 09-modern-lm: blind submissions (the defensive programmer, the high-level library user,
the production engineer, the test-driven student). Each "why" is tagged with its kind of student. BASE holds the
helper's own answers, from which most submissions change one line."""
BASE = {}
BASE["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(cd).reshape(*x.shape[:-1], n_heads, dh).transpose(-3, -2)
    w = weight.to(cd)
    s = 1 + w if unit_offset else w
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * s
    return out.to(x.dtype)
'''
BASE["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    h = x @ w_gate_up.T
    if interleaved:
        g, u = h[..., 0::2], h[..., 1::2]
    else:
        f = w_gate_up.shape[0] // 2
        g, u = h[..., :f], h[..., f:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return (g * torch.sigmoid(beta * g) * u) @ w_down.T
'''
BASE["moe_params"] = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not 1 <= top_k <= n_experts:
        raise ValueError("top_k")
    if n_shared < 0 or not 0 <= first_dense <= n_layers:
        raise ValueError("other")
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    norms = 2 * dim
    expert = 3 * dim * ffn_hidden
    dense = first_dense * (norms + attn + 3 * dim * dense_hidden)
    n_moe = n_layers - first_dense
    base = norms + attn + dim * n_experts + n_shared * expert
    total = emb + dim + dense + n_moe * (base + n_experts * expert)
    active = emb + dim + dense + n_moe * (base + top_k * expert)
    return int(total), int(active)
'''
BASE["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    lz = torch.logsumexp(sel, dim=-1)
    nll = lz - sel.gather(-1, y[:, None])[:, 0]
    loss = (nll + z_loss * lz ** 2).sum() / count
    return loss, count
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
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shape")
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
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(cd), torch.sin(ang).to(cd)
    xf = x.to(cd)
    x1, x2 = xf[..., :half], xf[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''
BASE["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G = k_cache.shape[1]
    S = k_cache.shape[2]
    if H % G != 0:
        raise ValueError("heads")
    if B > 0 and int((lengths + T).max()) > S:
        raise ValueError("fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    limit = lengths.long()[:, None] + torch.arange(T)[None, :]  # (B, T) last visible
    vis = pos[None, None, :] <= limit[:, :, None]  # (B, T, S)
    written = pos[None, :] < (lengths.long() + T)[:, None]  # (B, S)
    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    rep = H // G
    k = k.repeat_interleave(rep, dim=1)
    v = v.repeat_interleave(rep, dim=1)
    sc = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    sc = sc.masked_fill(~vis[:, None], float("-inf"))
    out = torch.softmax(sc, dim=-1) @ v
    return out, lengths + T
'''
BASE["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    done = torch.zeros(B, dtype=torch.bool)
    out = []
    while True:
        scores = logits[:, -1].clone()
        V = scores.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool)
        seen.scatter_(1, history, True)
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, pen, scores)
        if temperature == 0:
            nxt = scores.argmax(-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        out.append(nxt)
        done = done | (nxt == eos_id)
        history = torch.cat([history, nxt[:, None]], dim=1)
        if bool(done.all()) or len(out) >= max_new_tokens:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(out, dim=1)
'''

def sub(name, correct, gid, old, new, why, kind):
    src = BASE[gid]
    for o, n in zip(old if isinstance(old, list) else [old], new if isinstance(new, list) else [new]):
        assert o in src, (name, o)
        src = src.replace(o, n)
    return {"name": name, "correct": correct, "cells": {gid: src}, "why": f"[{kind}] {why}"}
def full(name, correct, gid, src, why, kind):
    return {"name": name, "correct": correct, "cells": {gid: src}, "why": f"[{kind}] {why}"}
S = []
P1, P2, P3, P4, P5, P6, P7, P8 = ("head_rms_norm", "fused_swiglu", "moe_params", "masked_lm_loss", "block_variant",
                                  "rope_llama3", "ragged_cached_attention", "generate_with_cache")
# ---------------- Part 1 ----------------
S.append(sub("p1_clamp_ms_min_eps", False, P1, "xf.pow(2).mean(-1, keepdim=True) + eps", "xf.pow(2).mean(-1, keepdim=True).clamp(min=eps)",
    "'x_h / sqrt(mean(x_h^2) + eps) ... with eps inside the square root': max(ms, eps) is not ms + eps", "defensive"))
S.append(sub("p1_extra_eps_1e-12", False, P1, "xf.pow(2).mean(-1, keepdim=True) + eps", "xf.pow(2).mean(-1, keepdim=True) + eps + 1e-12",
    "'x_h / sqrt(mean(x_h^2) + eps)': an extra 1e-12 changes the result for eps=0 and tiny x", "defensive"))
S.append(full("p1_F_rms_norm_in_input_dtype", False, P1, '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    xs = x.reshape(*x.shape[:-1], n_heads, dh).transpose(-3, -2)
    s = 1 + weight if unit_offset else weight
    return F.rms_norm(xs, (dh,), weight=s, eps=eps)
''', "'convert x and weight to float32 ..., do all the arithmetic, the scale included (also 1 + w), in that dtype, and convert the product ... once, at the end': F.rms_norm rounds before the weight product, and 1 + w is in float16", "high-level"))
S.append(full("p1_scale_cache_keyed_on_shape", False, P1, '''
SCALE_CACHE = {}
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    key = (tuple(weight.shape), weight.dtype, bool(unit_offset))
    if key not in SCALE_CACHE:
        w = weight.to(cd)
        SCALE_CACHE[key] = (1 + w) if unit_offset else w
    s = SCALE_CACHE[key]
    xf = x.to(cd).reshape(*x.shape[:-1], n_heads, dh).transpose(-3, -2)
    out = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * s
    return out.to(x.dtype)
''', "'The scale is s = w (weight)': a scale cached by shape uses the first call's weight", "production"))
S.append(sub("p1_only_modulo_check", False, P1, "if n_heads < 1 or x.shape[-1] % n_heads != 0:", "if x.shape[-1] % n_heads != 0:",
    "'Raise a ValueError when n_heads < 1': n_heads = 0 raises ZeroDivisionError, negative n_heads passes the check", "test-driven"))
S.append(full("p1_ok_F_rms_norm_float32", True, P1, '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("x's last axis does not split into n_heads heads")
    dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.to(cd).unflatten(-1, (n_heads, dh)).movedim(-2, -3)
    s = weight.to(cd) + 1 if unit_offset else weight.to(cd)
    return F.rms_norm(xs, normalized_shape=(dh,), weight=s, eps=eps).to(x.dtype)
''', "F.rms_norm in float32 with the scale computed in float32", "high-level"))
S.append(full("p1_ok_defensive_float64_contig_clone", True, P1, '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not isinstance(n_heads, int) or n_heads < 1:
        raise ValueError("n_heads must be a positive int")
    if x.dim() < 2 or x.shape[-1] % n_heads != 0:
        raise ValueError("last axis must split into n_heads parts")
    dh = x.shape[-1] // n_heads
    xf = x.clone().to(torch.float64).contiguous()
    w = weight.clone().to(torch.float64)
    xs = xf.reshape(*x.shape[:-1], n_heads, dh).transpose(-3, -2).contiguous()
    ms = (xs * xs).sum(dim=-1, keepdim=True) / dh
    s = (w + 1.0) if unit_offset else w
    out = xs / torch.sqrt(ms + eps) * s
    return out.to(dtype=x.dtype)
''', "float64 for every dtype (allowed), clones, contiguous", "defensive"))
# ---------------- Part 2 ----------------
S.append(sub("p2_if_limit_truthy", False, P2, "if limit is not None:", "if limit:",
    "'when limit is a number (0 included), replace g by min(g, limit)': limit = 0 clamps nothing", "defensive"))
S.append(full("p2_split_weight_cache_by_shape", False, P2, '''
SPLIT_CACHE = {}
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    key = (tuple(w_gate_up.shape), w_gate_up.dtype, bool(interleaved))
    if key not in SPLIT_CACHE:
        if interleaved:
            SPLIT_CACHE[key] = (w_gate_up[0::2], w_gate_up[1::2])
        else:
            f = w_gate_up.shape[0] // 2
            SPLIT_CACHE[key] = (w_gate_up[:f], w_gate_up[f:])
    wg, wu = SPLIT_CACHE[key]
    g, u = F.linear(x, wg), F.linear(x, wu)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return F.linear(g * torch.sigmoid(beta * g) * u, w_down)
''', "'With g = x W_gate^T and u = x W_up^T' of this call's w_gate_up: halves cached by shape keep the first call's weights", "production"))
S.append(sub("p2_clamp_up_from_above_only", False, P2, "u = u.clamp(-limit, limit)", "u = u.clamp(max=limit)",
    "'u by clamp(u, -limit, limit)': both sides, the gpt-oss gate rule applied to the up half too", "test-driven"))
S.append(sub("p2_beta_clamped_positive", False, P2, "return (g * torch.sigmoid(beta * g) * u) @ w_down.T",
    "beta = max(float(beta), 1e-6)\n    return (g * torch.sigmoid(beta * g) * u) @ w_down.T",
    "'beta may be any real number ... beta = 0 gives g/2 ... negative values are allowed'", "defensive"))
S.append(full("p2_inplace_mul", False, P2, '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    h = F.linear(x, w_gate_up)
    if interleaved:
        g, u = h[..., 0::2], h[..., 1::2]
    else:
        g, u = h.chunk(2, dim=-1)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    act = torch.sigmoid(beta * g)
    act.mul_(g).mul_(u)
    return F.linear(act, w_down)
''', "'Gradients must flow through the result ... the hidden tests compare its gradients': in-place mul_ on the sigmoid output breaks backward", "production"))
S.append(full("p2_ok_silu_over_beta_unflatten", True, P2, '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    f = w_down.shape[1]
    h = F.linear(x, w_gate_up)
    if interleaved:
        g, u = h.unflatten(-1, (f, 2)).unbind(-1)
    else:
        g, u = h.unflatten(-1, (2, f)).unbind(-2)
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = F.hardtanh(u, -limit, limit)
    act = F.silu(beta * g) / beta if beta != 0 else g / 2
    return F.linear(act * u, w_down)
''', "silu(beta g)/beta equals g sigma(beta g) for beta != 0; unflatten for the two layouts", "high-level"))
S.append(full("p2_ok_float64_inside", True, P2, '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    xd, wg, wd = x.double(), w_gate_up.double(), w_down.double()
    h = torch.einsum("...d,fd->...f", xd, wg)
    if interleaved:
        g, u = h[..., ::2], h[..., 1::2]
    else:
        g, u = torch.split(h, wd.shape[1], dim=-1)
    if limit is not None:
        g = torch.minimum(g, torch.tensor(float(limit), dtype=g.dtype))
        u = torch.clamp(u, min=-limit, max=limit)
    out = torch.einsum("...f,df->...d", g * torch.sigmoid(beta * g) * u, wd)
    return out.to(x.dtype)
''', "float64 inside, einsum, split by F", "defensive"))
# ---------------- Part 3 ----------------
S.append(sub("p3_dense_hidden_zero_refused", False, P3, "    if n_shared < 0", "    if first_dense > 0 and dense_hidden <= 0:\n        raise ValueError('dense blocks need a width')\n    if n_shared < 0",
    "'dense_hidden is that width whatever its value (0 means no parameters ...)'", "defensive"))
S.append(sub("p3_early_return_no_layers", False, P3, "    if n_kv_heads < 1", "    if n_layers == 0:\n        e = vocab * dim * (1 if tied else 2) + dim\n        return e, e\n    if n_kv_heads < 1",
    "'Raise a ValueError unless ... in every model (also ... one with n_layers = 0, no blocks at all)'", "defensive"))
S.append(sub("p3_tied_total_only", False, P3, ["emb = vocab * dim * (1 if tied else 2)", "active = emb + dim"],
    ["emb = vocab * dim * 2", "active = emb + dim"], "'when tied is true they are one matrix, counted once' (TDD: no visible tied case; here tied is ignored)", "test-driven"))
S.append(sub("p3_zerodiv_to_valueerror", False, P3, "    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:\n        raise ValueError(\"heads\")",
    "    try:\n        if n_heads % n_kv_heads:\n            raise ValueError('heads')\n    except ZeroDivisionError:\n        raise ValueError('no kv heads')",
    "'Raise a ValueError unless n_kv_heads >= 1': negative n_kv_heads passes", "defensive"))
S.append(sub("p3_topk_clamped", False, P3, "    if not 1 <= top_k <= n_experts:\n        raise ValueError(\"top_k\")", "    top_k = max(1, min(int(top_k), n_experts))",
    "'Raise a ValueError unless ... 1 <= top_k <= n_experts'", "defensive"))
S.append(sub("p3_topk_checked_only_with_moe_blocks", False, P3, "    if not 1 <= top_k <= n_experts:", "    if n_layers > first_dense and not 1 <= top_k <= n_experts:",
    "'... in every model (also one whose blocks are all dense ...)'", "test-driven"))
S.append(full("p3_ok_meta_modules", True, P3, '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("bad config")
    nn = torch.nn
    def lin(i, o):
        return nn.Linear(i, o, bias=False, device="meta")
    def count(mods):
        return sum(p.numel() for m in mods for p in m.parameters())
    emb = nn.Embedding(vocab, dim, device="meta")
    out = lin(dim, vocab)
    if tied:
        out.weight = emb.weight
    top = nn.ModuleList([emb, out, nn.RMSNorm(dim, device="meta")])
    common = count([nn.RMSNorm(dim, device="meta"), nn.RMSNorm(dim, device="meta"), lin(dim, n_heads * head_dim),
                    lin(dim, n_kv_heads * head_dim), lin(dim, n_kv_heads * head_dim), lin(n_heads * head_dim, dim)])
    glu = 3 * dim * ffn_hidden
    dense_ffn = count([lin(dim, dense_hidden), lin(dim, dense_hidden), lin(dense_hidden, dim)])
    router = count([lin(dim, n_experts)])
    t = count([top])
    total = t + n_layers * common + first_dense * dense_ffn
    active = total
    moe = n_layers - first_dense
    total += moe * (router + (n_experts + n_shared) * glu)
    active += moe * (router + (top_k + n_shared) * glu)
    return int(total), int(active)
''', "nn modules on the meta device, counted with numel; a tied output shares the embedding's Parameter", "high-level"))
S.append(full("p3_ok_lru_cache_explicit_sums", True, P3, '''
import functools
@functools.lru_cache(maxsize=None)
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if first_dense < 0 or first_dense > n_layers:
        raise ValueError("first_dense")
    total = 0
    active = 0
    for layer in range(n_layers):
        blk = 2 * dim + dim * n_heads * head_dim * 2 + 2 * dim * n_kv_heads * head_dim
        if layer < first_dense:
            blk += 3 * dim * dense_hidden
            total += blk
            active += blk
        else:
            blk += dim * n_experts + n_shared * 3 * dim * ffn_hidden
            total += blk + n_experts * 3 * dim * ffn_hidden
            active += blk + top_k * 3 * dim * ffn_hidden
    top = (1 if tied else 2) * vocab * dim + dim
    return total + top, active + top
''', "a loop over blocks, lru_cache (ints cached, tuple of ints returned)", "production"))
# ---------------- Part 4 ----------------
S.append(sub("p4_logp_clamped_min_-100", False, P4, "nll = lz - sel.gather(-1, y[:, None])[:, 0]", "nll = (lz - sel.gather(-1, y[:, None])[:, 0]).clamp(max=100.0)",
    "'Each predicted token contributes -log softmax(l)_y + ...': capping each token's loss at 100 (as BCE does) changes it for large score gaps", "defensive"))
S.append(sub("p4_zloss_detached", False, P4, "loss = (nll + z_loss * lz ** 2).sum() / count", "loss = (nll + z_loss * lz.detach() ** 2).sum() / count",
    "'loss.backward() must leave the exact gradient in logits.grad': the z-loss is part of the loss", "defensive"))
S.append(sub("p4_empty_scalar_for_no_tokens", False, P4, "return torch.zeros((), dtype=cd), 0", "return torch.empty((), dtype=cd), 0",
    "'When count is 0 the loss is 0': torch.empty is garbage", "production"))
S.append(sub("p4_int32_ids_gather", False, P4, "y = ids[:, 1:][m].long()", "y = ids[:, 1:][m]",
    "'ids (B, T) holds integer token ids (int64 or int32)': gather refuses an int32 index", "test-driven"))
S.append(full("p4_per_row_mean", False, P4, '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    rows = []
    count = 0
    for b in range(logits.shape[0]):
        m = target_mask[b, 1:]
        n = int(m.sum())
        if n == 0:
            continue
        sel = logits[b, :-1][m].to(cd)
        y = ids[b, 1:][m].long()
        lz = torch.logsumexp(sel, -1)
        rows.append((lz - sel.gather(-1, y[:, None])[:, 0] + z_loss * lz ** 2).mean())
        count += n
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    return torch.stack(rows).mean(), count
''', "'the mean over those tokens, every token weighing the same however many a row has'", "test-driven"))
S.append(full("p4_cross_entropy_ignore_index", False, P4, '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    count = int(target_mask[:, 1:].sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    lg = logits[:, :-1].to(cd)
    tgt = ids[:, 1:].long().masked_fill(~target_mask[:, 1:], -100)
    ce = F.cross_entropy(lg.transpose(1, 2), tgt, ignore_index=-100, reduction="sum")
    lz = torch.logsumexp(lg, -1)[target_mask[:, 1:]]
    return (ce + z_loss * (lz ** 2).sum()) / count, count
''', "'scores that predict nothing may hold anything, NaN and inf included: they must change neither the loss nor its gradient': cross_entropy's ignore_index still runs log_softmax over them", "high-level"))
S.append(full("p4_ok_cross_entropy_selected", True, P4, '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:]
    count = int(keep.sum().item())
    if count == 0:
        return torch.tensor(0.0, dtype=cd), 0
    sel = logits[:, :-1][keep].to(cd)
    tgt = ids[:, 1:][keep].to(torch.long)
    ce = F.cross_entropy(sel, tgt, reduction="mean")
    zl = torch.logsumexp(sel, dim=-1).pow(2).mean()
    return ce + z_loss * zl, count
''', "F.cross_entropy on the selected rows; mean reduction", "high-level"))
S.append(full("p4_ok_categorical", True, P4, '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].to(torch.bool)
    count = int(keep.sum())
    sel = logits[:, :-1][keep].to(cd)
    if count == 0:
        return torch.zeros((), dtype=cd), count
    dist = torch.distributions.Categorical(logits=sel, validate_args=False)
    nll = -dist.log_prob(ids[:, 1:][keep].long())
    lz = torch.logsumexp(sel, -1)
    return (nll + z_loss * lz * lz).sum() / max(count, 1), count
''', "Categorical(logits=...).log_prob on the selected rows", "high-level"))
S.append(full("p4_ok_nan_to_num_then_select", True, P4, '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:]
    count = int(keep.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    safe = torch.nan_to_num(logits[:, :-1].to(cd))
    logp = torch.log_softmax(safe, dim=-1)
    lz = torch.logsumexp(safe, dim=-1)
    tok = logp.gather(-1, ids[:, 1:].long().unsqueeze(-1)).squeeze(-1)
    per = -tok + z_loss * lz.square()
    return per[keep].sum() / count, count
''', "nan_to_num on every score first, then select: the unpredicted rows get zero gradient (nan_to_num's gradient is 0 at non-finite entries and 1 elsewhere; the selected rows are finite)", "defensive"))
# ---------------- Part 5 ----------------
S.append(sub("p5_post_norms_refused_elsewhere", False, P5, "    if layout == \"parallel\":", "    if post_norms is not None and layout != \"sandwich\":\n        raise ValueError('post_norms is only for the sandwich layout')\n    if layout == \"parallel\":",
    "'the other two layouts ignore post_norms (they never call it)'", "defensive"))
S.append(sub("p5_layout_lowercased", False, P5, "    if layout == \"parallel\":", "    layout = str(layout).strip().lower()\n    if layout == \"parallel\":",
    "'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError'", "defensive"))
S.append(full("p5_inplace_add_to_sublayer_output", False, P5, '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(layout)
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    if layout == "parallel":
        n = norm_1(x)
        y = attn(n)
        y += ffn(n)
        y += x
        return y
    if layout == "reordered":
        h = norm_1(attn(x))
        h += x
        y = norm_2(ffn(h))
        y += h
        return y
    h = post_norms[0](attn(norm_1(x)))
    h += x
    y = post_norms[1](ffn(norm_2(h)))
    y += h
    return y
''', "'Do not change x; mind that a function may return the very tensor it was given ... an in-place update of what it returns can change x'", "production"))
S.append(sub("p5_parallel_norm_twice", False, P5, "        n = norm_1(x)\n        return x + attn(n) + ffn(n)", "        return x + attn(norm_1(x)) + ffn(norm_1(x))",
    "'Call each function the layout uses exactly once (the parallel layout computes N_1(x) once)'", "test-driven"))
S.append(sub("p5_sandwich_check_late", False, P5, "        if post_norms is None:\n            raise ValueError(\"post_norms\")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))",
    "        a = attn(norm_1(x))\n        if post_norms is None:\n            raise ValueError(\"post_norms\")\n        p1, p2 = post_norms\n        h = x + p1(a)",
    "'Check layout and post_norms before calling anything: when you raise the ValueError, no function has been called'", "test-driven"))
S.append(full("p5_out_buffer_cached", False, P5, '''
BLOCK_BUF = {}
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich") or (layout == "sandwich" and post_norms is None):
        raise ValueError("bad layout")
    key = (tuple(x.shape), x.dtype)
    if key not in BLOCK_BUF:
        BLOCK_BUF[key] = torch.empty_like(x)
    buf = BLOCK_BUF[key]
    if layout == "parallel":
        n = norm_1(x)
        return torch.add(x, attn(n) + ffn(n), out=buf) if not torch.is_grad_enabled() or not x.requires_grad else x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    h = x + post_norms[0](attn(norm_1(x)))
    return h + post_norms[1](ffn(norm_2(h)))
''', "'Each call returns new tensors: a result the caller holds must not change when your function is called again' (parallel without grad writes into a reused buffer)", "production"))
S.append(full("p5_ok_dispatch_table", True, P5, '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "sandwich":
        if post_norms is None:
            raise ValueError("the sandwich layout needs post_norms")
        first, second = post_norms
    elif layout != "parallel" and layout != "reordered":
        raise ValueError(f"unknown layout {layout!r}")
    x0 = x
    if layout == "parallel":
        n = norm_1(x0)
        a = attn(n)
        f = ffn(n)
        return torch.add(torch.add(x0, a), f)
    if layout == "reordered":
        h = torch.add(x0, norm_1(attn(x0)))
        return torch.add(h, norm_2(ffn(h)))
    h = x0 + first(attn(norm_1(x0)))
    return h + second(ffn(norm_2(h)))
''', "torch.add, unpacks post_norms after the check and before any call", "defensive"))
S.append(full("p5_ok_clone_everything", True, P5, '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    valid = ["parallel", "reordered", "sandwich"]
    if not any(layout == v for v in valid):
        raise ValueError("layout")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    xc = x.clone()
    if layout == "parallel":
        n = norm_1(xc)
        return xc + attn(n).clone() + ffn(n).clone()
    if layout == "reordered":
        h = xc + norm_1(attn(xc)).clone()
        return h + norm_2(ffn(h)).clone()
    h = xc + post_norms[0](attn(norm_1(xc))).clone()
    return h + post_norms[1](ffn(norm_2(h))).clone()
''', "clones (harmless, gradient flows through clone)", "defensive"))
# ---------------- Part 6 ----------------
S.append(sub("p6_empty_batch_early_return", False, P6, "    B, H, T, Dh = x.shape\n", "    B, H, T, Dh = x.shape\n    if B == 0:\n        return x.new_empty(x.shape)\n",
    "'Raise a ValueError unless Dh is even and positions.shape == (B, T) ... with an empty batch too'", "defensive"))
S.append(sub("p6_positions_clamped_to_context", False, P6, "ang = positions.to(torch.float64)", "ang = positions.clamp(0, original_context - 1).to(torch.float64)",
    "'each between 0 and 131 071 (the 128K context)': clamping to original_context - 1 is wrong above 8191", "defensive"))
S.append(sub("p6_all_zero_returns_x", False, P6, "    half = Dh // 2\n", "    if positions.numel() == 0 or not bool(positions.any()):\n        return x\n    half = Dh // 2\n",
    "'Return a new tensor ... a new one also where every position is 0 and nothing turns, not x itself'", "defensive"))
S.append(sub("p6_hf_cos_in_x_dtype", False, P6, "cd = torch.float64 if x.dtype == torch.float64 else torch.float32", "cd = x.dtype",
    "'for float16 and bfloat16 inputs compute as for float32 and round once at the end' (HF casts cos/sin to x's dtype)", "high-level"))
S.append(full("p6_inv_freq_cache_keyed_on_dh", False, P6, '''
FREQ_CACHE = {}
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shape")
    half = Dh // 2
    if Dh not in FREQ_CACHE:
        i = torch.arange(half, dtype=torch.float64)
        theta = base ** (-2 * i / Dh)
        lam = 2 * math.pi / theta
        L = original_context
        s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
        mid = (1 - s) * theta / factor + s * theta
        FREQ_CACHE[Dh] = torch.where(lam < L / high_freq_factor, theta, torch.where(lam > L / low_freq_factor, theta / factor, mid))
    new = FREQ_CACHE[Dh]
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(cd), torch.sin(ang).to(cd)
    xf = x.to(cd)
    x1, x2 = xf[..., :half], xf[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
''', "'With theta_i = b^(-2i/Dh) ... (b = base)': frequencies cached by Dh only keep the first call's base and factors", "production"))
S.append(sub("p6_smoothing_swapped", False, P6, "mid = (1 - s) * theta / factor + s * theta", "mid = s * theta / factor + (1 - s) * theta",
    "'(1 - s_i) theta_i / f + s_i theta_i' (the visible test has factor 1, where both agree)", "test-driven"))
S.append(sub("p6_positions_last_axis_only", False, P6, "tuple(positions.shape) != (B, T)", "positions.shape[-1] != T",
    "'Raise a ValueError unless ... positions.shape == (B, T) exactly ... a (T,), (1, T) ... tensor is refused too'", "test-driven"))
S.append(full("p6_ok_polar_complex", True, P6, '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("bad shapes")
    half = Dh // 2
    inv = 1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
    wl = 2 * math.pi / inv
    lo_wl, hi_wl = original_context / low_freq_factor, original_context / high_freq_factor
    smooth = (original_context / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
    scaled = torch.where(wl > lo_wl, inv / factor, inv)
    medium = ~(wl < hi_wl) & ~(wl > lo_wl)
    scaled = torch.where(medium, (1 - smooth) * inv / factor + smooth * inv, scaled)
    ang = positions.double().unsqueeze(1).unsqueeze(-1) * scaled
    rot = torch.polar(torch.ones_like(ang), ang)
    real = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc = torch.complex(x[..., :half].to(real), x[..., half:].to(real))
    yc = xc * rot.to(torch.complex128 if real == torch.float64 else torch.complex64)
    return torch.cat([yc.real, yc.imag], dim=-1).to(x.dtype)
''', "Hugging Face's llama3 scaling and a complex product for the half-split pairs", "high-level"))
S.append(full("p6_ok_table_cache_all_positions", True, P6, '''
TABLES = {}
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shape")
    half = Dh // 2
    key = (Dh, float(base), float(factor), float(low_freq_factor), float(high_freq_factor), float(original_context))
    if key not in TABLES:
        i = torch.arange(half, dtype=torch.float64)
        theta = base ** (-2 * i / Dh)
        lam = 2 * math.pi / theta
        L = original_context
        s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
        new = torch.where(lam < L / high_freq_factor, theta,
                          torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
        ang = torch.arange(131072, dtype=torch.float64)[:, None] * new
        TABLES[key] = (torch.cos(ang), torch.sin(ang))
    cos_t, sin_t = TABLES[key]
    idx = positions.long()
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos = cos_t[idx].to(cd)[:, None]
    sin = sin_t[idx].to(cd)[:, None]
    out = torch.empty(x.shape, dtype=cd)
    xf = x.to(cd)
    out[..., :half] = xf[..., :half] * cos - xf[..., half:] * sin
    out[..., half:] = xf[..., half:] * cos + xf[..., :half] * sin
    return out.to(x.dtype) if cd != x.dtype else out
''', "cos/sin tables for all 131072 positions cached per parameter set, gathered (copies); torch.empty filled completely", "production"))
# ---------------- Part 7 ----------------
S.append(sub("p7_scores_clamped", False, P7, "sc = q @ k.transpose(-1, -2) / math.sqrt(Dh)", "sc = (q @ k.transpose(-1, -2) / math.sqrt(Dh)).clamp(-1e4, 1e4)",
    "'Scores may be of any size, below -1e9 too': clamping them changes the softmax", "defensive"))
S.append(sub("p7_int64_lengths_only", False, P7, "    if H % G != 0:", "    if lengths.dtype != torch.int64:\n        raise ValueError('lengths must be int64')\n    if H % G != 0:",
    "'lengths is an integer tensor of shape (B,) (int64 or int32)'", "defensive"))
S.append(sub("p7_contiguous_caches", False, P7, "    for b in range(B):", "    k_cache = k_cache.contiguous()\n    v_cache = v_cache.contiguous()\n    for b in range(B):",
    "'write into the tensors you are given (the .contiguous() of such a view is a copy ...)'", "defensive"))
S.append(sub("p7_cache_write_no_grad", False, P7, "        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]",
    "        with torch.no_grad():\n            k_cache[b, :, L:L + T] = k_new[b]\n            v_cache[b, :, L:L + T] = v_new[b]",
    "'the hidden tests compare its gradients with respect to q, k_new and v_new': a write under no_grad cuts k_new and v_new off", "production"))
S.append(full("p7_sdpa_unsanitised", False, P7, '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("heads")
    if B and bool(((lengths.long() + T) > S).any()):
        raise ValueError("fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    keep = torch.arange(S)[None, None, :] <= (lengths.long()[:, None, None] + torch.arange(T)[None, :, None])
    out = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=keep[:, None], enable_gqa=True)
    return out, lengths + T
''', "'Unwritten slots must change neither the output nor its gradients, even when they hold NaN': SDPA's boolean mask is applied after the product", "high-level"))
S.append(sub("p7_new_tokens_see_each_other", False, P7, "vis = pos[None, None, :] <= limit[:, :, None]", "vis = (pos[None, None, :] < (lengths.long() + T)[:, None, None]).expand(B, T, S)",
    "'query t of row b attends causally to its row's keys 0 .. lengths[b] + t' (the visible test has T = 1)", "test-driven"))
S.append(full("p7_ok_sdpa_sanitised", True, P7, '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    lens = lengths.to(torch.int64)
    if B > 0 and bool((lens + T > S).any()):
        raise ValueError("a row does not fit")
    for b in range(B):
        start = int(lens[b])
        idx = torch.arange(start, start + T)
        k_cache[b].index_copy_(1, idx, k_new[b])
        v_cache[b].index_copy_(1, idx, v_new[b])
    pos = torch.arange(S)
    written = (pos[None, :] < (lens + T)[:, None])[:, None, :, None]
    k = k_cache.masked_fill(~written, 0.0)
    v = v_cache.masked_fill(~written, 0.0)
    keep = pos[None, None, :] <= (lens[:, None, None] + torch.arange(T)[None, :, None])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None], scale=1.0 / math.sqrt(Dh), enable_gqa=True)
    return out, lengths + T
''', "index_copy_ into the caches, masked_fill of unwritten slots, SDPA with a True-means-kept mask and enable_gqa", "high-level"))
S.append(full("p7_ok_nan_to_num_baddbmm", True, P7, '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("heads")
    for b in range(B):
        if int(lengths[b]) + T > S:
            raise ValueError("row does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T].copy_(k_new[b])
        v_cache[b, :, L:L + T].copy_(v_new[b])
    r = H // G
    lens = lengths.long()
    pos = torch.arange(S)
    written = (pos[None, :] < (lens + T)[:, None])[:, None, :, None]
    k = torch.where(written, torch.nan_to_num(k_cache, nan=0.0, posinf=0.0, neginf=0.0), torch.zeros((), dtype=q.dtype))
    v = torch.where(written, torch.nan_to_num(v_cache, nan=0.0, posinf=0.0, neginf=0.0), torch.zeros((), dtype=q.dtype))
    k = k[:, :, None].expand(B, G, r, S, Dh).reshape(B * H, S, Dh)
    v = v[:, :, None].expand(B, G, r, S, Dh).reshape(B * H, S, Dh)
    vis = pos[None, None, :] <= (lens[:, None, None] + torch.arange(T)[None, :, None])
    bias = torch.zeros(B, 1, T, S, dtype=q.dtype).masked_fill(~vis[:, None], float("-inf")).expand(B, H, T, S).reshape(B * H, T, S)
    sc = torch.baddbmm(bias, q.reshape(B * H, T, Dh), k.transpose(1, 2), alpha=1.0 / math.sqrt(Dh))
    out = torch.bmm(torch.softmax(sc, dim=-1), v).reshape(B, H, T, Dh)
    return out, lengths + T
''', "baddbmm with an additive -inf bias on sanitised keys; expand/reshape for the groups", "production"))
# ---------------- Part 8 ----------------
S.append(sub("p8_float_is_no_copy", False, P8, "        scores = logits[:, -1].clone()\n        V = scores.shape[-1]\n        seen = torch.zeros(B, V, dtype=torch.bool)\n        seen.scatter_(1, history, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)",
    "        scores = logits[:, -1].float()\n        V = scores.shape[-1]\n        seen = torch.zeros(B, V, dtype=torch.bool)\n        seen.scatter_(1, history, True)\n        pos = seen & (scores > 0)\n        neg = seen & ~(scores > 0)\n        scores[pos] = scores[pos] / penalty\n        scores[neg] = scores[neg] * penalty",
    "'Do not change the logits tensors that step returns ... copy before you penalise': .float() of a float32 tensor is the tensor itself", "defensive"))
S.append(sub("p8_detach_is_no_copy", False, P8, "        scores = logits[:, -1].clone()\n        V = scores.shape[-1]\n        seen = torch.zeros(B, V, dtype=torch.bool)\n        seen.scatter_(1, history, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)",
    "        scores = logits[:, -1].detach()\n        V = scores.shape[-1]\n        seen = torch.zeros(B, V, dtype=torch.bool)\n        seen.scatter_(1, history, True)\n        g = torch.gather(scores, 1, history)\n        g = torch.where(g < 0, g * penalty, g / penalty)\n        scores.scatter_(1, history, g)",
    "'Do not change the logits tensors that step returns ... copy before you penalise': .detach() shares memory (HF's in-place scatter_)", "high-level"))
S.append(sub("p8_categorical_sample", False, P8, "nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]", "nxt = torch.distributions.Categorical(probs=probs).sample()",
    "'draw with torch.multinomial(probs, 1, generator=generator) ... and no other random source'", "high-level"))
S.append(sub("p8_temperature_floor", False, P8, "probs = torch.softmax(scores / temperature, dim=-1)", "probs = torch.softmax(scores / max(temperature, 1e-4), dim=-1)",
    "'any temperature above 0, however small: ... probs = softmax(scores / temperature)'", "defensive"))
S.append(sub("p8_probs_clamped", False, P8, "nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]", "nxt = torch.multinomial(probs.clamp(min=1e-8), 1, generator=generator)[:, 0]",
    "'take probs = softmax(scores / temperature) and draw with torch.multinomial(probs, 1, ...)': clamped probabilities draw other tokens", "defensive"))
S.append(full("p8_draw_unfinished_only", False, P8, BASE[P8].replace(
    "            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]",
    "            nxt = torch.full((B,), pad_id, dtype=torch.long)\n            live = ~done\n            if bool(live.any()):\n                probs = torch.softmax(scores[live] / temperature, dim=-1)\n                nxt[live] = torch.multinomial(probs, 1, generator=generator)[:, 0]"),
    "'A finished row still takes part in the draw (the batch always draws B tokens per step)'", "production"))
S.append(full("p8_penalty_per_occurrence", False, P8, BASE[P8].replace(
    "        seen = torch.zeros(B, V, dtype=torch.bool)\n        seen.scatter_(1, history, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)",
    "        for b in range(B):\n            for tok in history[b].tolist():\n                s = scores[b, tok]\n                scores[b, tok] = s / penalty if s > 0 else s * penalty"),
    "'has its score changed once (however often it occurs)' (visible test: penalty 1)", "test-driven"))
S.append(full("p8_ok_inference_mode_hf_penalty", True, P8, '''
@torch.inference_mode()
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    hist = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for _ in range(max_new_tokens):
        scores = logits[:, -1].clone()
        g = torch.gather(scores, 1, hist)
        g = torch.where(g < 0, g * penalty, g / penalty)
        scores.scatter_(1, hist, g)
        if temperature == 0:
            tok = torch.argmax(scores, dim=-1)
        else:
            tok = torch.multinomial(F.softmax(scores / temperature, dim=-1), num_samples=1, generator=generator).squeeze(1)
        tok = tok.masked_fill(finished, pad_id)
        chosen.append(tok)
        finished |= tok == eos_id
        hist = torch.cat((hist, tok.unsqueeze(1)), dim=1)
        if finished.all() or len(chosen) == max_new_tokens:
            break
        logits, cache = step(tok.unsqueeze(1), cache)
    return torch.stack(chosen, dim=1)
''', "inference_mode (no grad is asked), HF's gather/scatter_ penalty on a clone (0 < 0 is false: 0 / p = 0 * p)", "production"))
S.append(full("p8_ok_per_row_draws_onehot", True, P8, '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    V = logits.shape[-1]
    seen = F.one_hot(prompt, V).amax(dim=1).bool()
    done = [False] * B
    cols = []
    while True:
        scores = logits[:, -1].to(torch.float32, copy=True)
        scores = torch.where(seen & (scores > 0), scores / penalty, torch.where(seen, scores * penalty, scores))
        toks = []
        for b in range(B):
            if temperature == 0:
                t = int(torch.argmax(scores[b]))
            else:
                p = torch.softmax(scores[b] / temperature, dim=-1)
                t = int(torch.multinomial(p, 1, generator=generator)[0])
            if done[b]:
                t = pad_id
            toks.append(t)
        for b in range(B):
            if toks[b] == eos_id:
                done[b] = True
        nxt = torch.tensor(toks, dtype=torch.int64)
        cols.append(nxt)
        seen = seen | F.one_hot(nxt, V).bool()
        if all(done) or len(cols) == max_new_tokens:
            break
        logits, cache = step(nxt.view(B, 1), cache)
    return torch.stack(cols, 1)
''', "one multinomial call per row in row order (the text says it draws the same numbers), one_hot history", "high-level"))
# ---------------- hostile ----------------
S.append(full("hostile_p3_hardcoded", False, P3, '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    table = {(32000, 4096, 32): (46702792704, 12879921152), (3, 2, 1): (42, 36)}
    if n_shared == 1:
        return (38, 38) if first_dense else (48, 42)
    return table.get((vocab, dim, n_layers), (0, 0))
''', "hostile: hard-codes the visible outputs", "hostile"))
S.append(full("hostile_p5_visible_only", False, P5, '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        return x + 1
    if layout == "reordered":
        h = 3 * x + 2
        return h + h * h
    h = -x - 1
    return h - 2 * h * h
''', "hostile: computes the visible test's closed forms", "hostile"))
S.append(full("hostile_p6_visible_only", False, P6, '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    out = x.clone()
    if x.shape[-1] == 4:
        a = positions.to(x.dtype)[:, None, :, None]
        x1, x2 = x[..., :2], x[..., 2:]
        out = torch.cat([x1 * torch.cos(a) - x2 * torch.sin(a), x2 * torch.cos(a) + x1 * torch.sin(a)], -1)
    return out
''', "hostile: turns by one radian per position whatever the frequencies", "hostile"))
SUBMISSIONS = S
