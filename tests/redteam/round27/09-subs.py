# Red team round 27, chapter 09: the epsilon-adder, the fixed-rank student, the from-memory student,
# the mask-and-sentinel student.
BASE = {}
BASE["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    ms = xs.to(torch.float64).pow(2).mean(dim=-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(cd)
    w = weight.to(cd)
    scale = 1 + w if unit_offset else w
    return (xs.to(cd) / rms * scale).to(x.dtype)
'''
BASE["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
    h = x.to(cd) @ w_gate_up.to(cd).transpose(-2, -1)
    F_ = w_gate_up.shape[0] // 2
    if interleaved:
        g, u = h[..., 0::2], h[..., 1::2]
    else:
        g, u = h[..., :F_], h[..., F_:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    a = g * torch.sigmoid(beta * g) * u
    return (a @ w_down.to(cd).transpose(-2, -1)).to(x.dtype)
'''
BASE["moe_params"] = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts):
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not (0 <= first_dense <= n_layers):
        raise ValueError("first_dense")
    emb = vocab * dim if tied else 2 * vocab * dim
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    per_block = attn + 2 * dim
    expert = 3 * dim * ffn_hidden
    dense = 3 * dim * dense_hidden
    router = dim * n_experts
    moe_blocks = n_layers - first_dense
    common = emb + dim + n_layers * per_block + first_dense * dense
    total = common + moe_blocks * (router + (n_experts + n_shared) * expert)
    active = common + moe_blocks * (router + (top_k + n_shared) * expert)
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
    logZ = torch.logsumexp(sel, dim=-1)
    nll = logZ - sel.gather(-1, y[:, None])[:, 0]
    per = nll + z_loss * logZ ** 2
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
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    wavelen = 2 * math.pi / theta
    L = original_context
    lam_high = L / high_freq_factor
    lam_low = L / low_freq_factor
    s = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(wavelen < lam_high, theta, torch.where(wavelen > lam_low, theta / factor, mid))
    ang = positions.to(torch.float64)[..., None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos = torch.cos(ang)[:, None].to(cd)
    sin = torch.sin(ang)[:, None].to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''
BASE["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    lens = lengths.long()
    if B > 0 and bool((lens + T > S).any()):
        raise ValueError("row does not fit")
    for b in range(B):
        L = int(lens[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    written = pos[None, :] < (lens + T)[:, None]
    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(Dh)
    qpos = lens[:, None] + torch.arange(T)[None, :]
    allowed = pos[None, None, :] <= qpos[:, :, None]
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''
BASE["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    logits, cache = step(prompt, None)
    for n in range(max_new_tokens):
        scores = logits[:, -1].clone()
        V = scores.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, history, True)
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, pen, scores)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or n == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, dim=1)
'''


def mod(gid, *pairs):
    code = BASE[gid]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in code, (gid, old)
        code = code.replace(old, new)
    return code


SUBMISSIONS = [
    # ---------------- wrong: the epsilon-adder ----------------
    {"name": "eps_p1_floor_mean_square", "correct": False, "kind": "epsilon-adder",
     "cells": {"head_rms_norm": mod("head_rms_norm", "rms = torch.sqrt(ms + eps).to(cd)", "rms = torch.sqrt(ms.clamp(min=1e-12) + eps).to(cd)")},
     "why": "P1: 'x near 1e-9 with eps = 0 ... clamp nothing and floor nothing'."},
    {"name": "eps_p4_count_plus_eps", "correct": False, "kind": "epsilon-adder",
     "cells": {"masked_lm_loss": mod("masked_lm_loss", "return per.sum() / count, count", "return per.sum() / (count + 1e-6), count")},
     "why": "P4: 'loss is the mean over those tokens'; dividing by count + 1e-6 is off by 1e-6 relative, visible at float64 precision."},
    {"name": "eps_p4_nan_to_num_logits", "correct": False, "kind": "epsilon-adder",
     "cells": {"masked_lm_loss": mod("masked_lm_loss", "sel = logits[:, :-1][pred].to(cd)", "sel = torch.nan_to_num(logits[:, :-1][pred].to(cd))")},
     "why": "P4: 'where the target's own score is -inf, that token's loss is +inf ... Return that inf (no nan_to_num)'."},
    {"name": "eps_p6_factor_guard", "correct": False, "kind": "epsilon-adder",
     "cells": {"rope_llama3": mod("rope_llama3", "mid = (1 - s) * theta / factor + s * theta", "mid = (1 - s) * theta / (factor + 1e-9) + s * theta",
                                  "theta / factor, mid", "theta / (factor + 1e-9), mid")},
     "why": "P6: slow pairs are theta / f and 'within 1e-10 of the exact values for float64 at any position up to 131 071': a guard of 1e-9 on f moves the angle by ~1e-6 there."},
    {"name": "eps_p8_temperature_floor", "correct": False, "kind": "epsilon-adder",
     "cells": {"generate_with_cache": mod("generate_with_cache", "probs = torch.softmax(scores / temperature, dim=-1)",
                                          "probs = torch.softmax(scores / max(temperature, 1e-2), dim=-1) + 1e-12")},
     "why": "P8: 'any temperature above 0, however small ... no floor under the temperature, no clamp or eps added to them'."},
    # ---------------- wrong: the fixed-rank student ----------------
    {"name": "rank_p1_two_axes_only", "correct": False, "kind": "fixed-rank",
     "cells": {"head_rms_norm": mod("head_rms_norm", "xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)",
                                    "xs = x.reshape(x.shape[0], n_heads, Dh).transpose(0, 1)")},
     "why": "P1: 'x has shape (..., T, H * Dh), at least two axes' and the result is (..., H, T, Dh): the worked example's 2-D layout only."},
    {"name": "rank_p2_mm", "correct": False, "kind": "fixed-rank",
     "cells": {"fused_swiglu": mod("fused_swiglu", "h = x.to(cd) @ w_gate_up.to(cd).transpose(-2, -1)", "h = torch.mm(x.to(cd), w_gate_up.to(cd).t())",
                                   "return (a @ w_down.to(cd).transpose(-2, -1)).to(x.dtype)", "return torch.mm(a, w_down.to(cd).t()).to(x.dtype)")},
     "why": "P2: 'x has shape (..., D)' and the result '(..., D)': mm only takes the example's 2-D x."},
    {"name": "rank_p6_heads_axis_first", "correct": False, "kind": "fixed-rank",
     "cells": {"rope_llama3": mod("rope_llama3", "cos = torch.cos(ang)[:, None].to(cd)\n    sin = torch.sin(ang)[:, None].to(cd)",
                                  "cos = torch.cos(ang)[None].to(cd)\n    sin = torch.sin(ang)[None].to(cd)")},
     "why": "P6: 'row b holds the positions of sequence b ... shared by all its heads': the (B, T) table put on the head axis is right only for B = H = 1 (or wrong silently when B == H)."},
    {"name": "rank_p6_first_row_positions", "correct": False, "kind": "fixed-rank",
     "cells": {"rope_llama3": mod("rope_llama3", "ang = positions.to(torch.float64)[..., None] * new", "ang = positions[:1].to(torch.float64)[..., None] * new")},
     "why": "P6: positions '(B, T): row b holds the positions of sequence b (they differ from row to row)'."},
    {"name": "rank_p7_single_new_token", "correct": False, "kind": "fixed-rank",
     "cells": {"ragged_cached_attention": mod("ragged_cached_attention", "allowed = pos[None, None, :] <= qpos[:, :, None]",
                                              "allowed = (pos[None, :] < (lens + T)[:, None])[:, None, :].expand(B, T, S)")},
     "why": "P7: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t': right only for the example's T = 1."},
    {"name": "rank_p8_first_position", "correct": False, "kind": "fixed-rank",
     "cells": {"generate_with_cache": mod("generate_with_cache", "scores = logits[:, -1].clone()", "scores = logits[:, 0].clone()")},
     "why": "P8: 'the scores of the next token are its last position, logits[:, -1]'; the example's one-token prompt hides it."},
    # ---------------- wrong: the from-memory student ----------------
    {"name": "mem_p1_eps_outside_sqrt", "correct": False, "kind": "from-memory",
     "cells": {"head_rms_norm": mod("head_rms_norm", "rms = torch.sqrt(ms + eps).to(cd)", "rms = (torch.sqrt(ms) + eps).to(cd)")},
     "why": "P1: 'with eps inside the square root'."},
    {"name": "mem_p6_theta_i_over_d", "correct": False, "kind": "from-memory",
     "cells": {"rope_llama3": mod("rope_llama3", "theta = base ** (-2 * i / Dh)", "theta = base ** (-i / Dh)")},
     "why": "P6: 'theta_i = b^(-2i/Dh)'."},
    {"name": "mem_p4_mean_of_row_means", "correct": False, "kind": "from-memory",
     "cells": {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    rows = []
    for b in range(logits.shape[0]):
        if bool(pred[b].any()):
            sel = logits[b, :-1][pred[b]].to(cd)
            y = ids[b, 1:][pred[b]].long()
            logZ = torch.logsumexp(sel, dim=-1)
            rows.append((logZ - sel.gather(-1, y[:, None])[:, 0] + z_loss * logZ ** 2).mean())
    return torch.stack(rows).mean(), count
'''},
     "why": "P4: 'the mean over those tokens, every token weighing the same however many a row has'."},
    {"name": "mem_p4_no_max_shift", "correct": False, "kind": "from-memory",
     "cells": {"masked_lm_loss": mod("masked_lm_loss", "logZ = torch.logsumexp(sel, dim=-1)", "logZ = torch.log(torch.exp(sel).sum(dim=-1))")},
     "why": "P4: 'Logits may be of any size (float64 logits near 1e5)': log-sum-exp without the max shift overflows."},
    {"name": "mem_p8_penalty_always_divides", "correct": False, "kind": "from-memory",
     "cells": {"generate_with_cache": mod("generate_with_cache", "pen = torch.where(scores > 0, scores / penalty, scores * penalty)", "pen = scores / penalty")},
     "why": "P8: 'a score above 0 is divided by penalty, any other score is multiplied by it'."},
    {"name": "mem_p2_clamp_gate_both_sides", "correct": False, "kind": "from-memory",
     "cells": {"fused_swiglu": mod("fused_swiglu", "g = g.clamp(max=limit)", "g = g.clamp(min=-limit, max=limit)")},
     "why": "P2: 'replace g by min(g, limit) (clamped from above only)'."},
    # ---------------- wrong: the mask-and-sentinel student ----------------
    {"name": "mask_p4_multiply_mask", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    lg = logits[:, :-1].to(cd)
    logZ = torch.logsumexp(lg, dim=-1)
    nll = logZ - lg.gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    per = (nll + z_loss * logZ ** 2) * pred.to(cd)
    return per.sum() / count, count
'''},
     "why": "P4: 'a product with the mask is NaN already in the loss' for scores that predict nothing (NaN/inf)."},
    {"name": "mask_p4_mask_not_shifted", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"masked_lm_loss": mod("masked_lm_loss", "pred = target_mask[:, 1:]", "pred = target_mask[:, :-1]")},
     "why": "P4: 'target_mask True where the token ids[b, t] is to be predicted ... target_mask[:, 0] is ignored'; the mask read one position early."},
    {"name": "mask_p7_finfo_min", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"ragged_cached_attention": mod("ragged_cached_attention", "scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))",
                                              "scores = scores.masked_fill(~allowed[:, None], torch.finfo(scores.dtype).min)")},
     "why": "P7: 'mask with -inf, not ... not even the dtype's lowest finite value torch.finfo(dtype).min'."},
    {"name": "mask_p7_mask_after_product", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"ragged_cached_attention": mod("ragged_cached_attention",
                                              "k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))",
                                              "k, v = k_cache, v_cache")},
     "why": "P7: 'Unwritten slots must change neither the output nor its gradients, even when they hold NaN ... leave unwritten slots out, or replace them, before any product'."},
    {"name": "mask_p8_pad_zero", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"generate_with_cache": mod("generate_with_cache", "tok = torch.where(finished, torch.full_like(tok, pad_id), tok)", "tok = torch.where(finished, torch.zeros_like(tok), tok)")},
     "why": "P8: 'from then on its chosen tokens are pad_id'; a hard-coded 0 matches only the example's pad_id."},
    {"name": "mask_p2_limit_zero_falsy", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"fused_swiglu": mod("fused_swiglu", "if limit is not None:", "if limit:")},
     "why": "P2: 'when limit is a number (0 included)': 0 is a real limit, not 'no limit'."},
    {"name": "mask_p3_dense_hidden_zero", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"moe_params": mod("moe_params", "dense = 3 * dim * dense_hidden", "dense = 3 * dim * (dense_hidden or ffn_hidden)")},
     "why": "P3: 'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")'."},
    {"name": "mask_p5_identity_compare", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"block_variant": BASE["block_variant"].replace('layout == "', 'layout is "')},
     "why": "P5: 'Compare layout by value (==): the tests build the string at run time'."},
    {"name": "mask_p5_check_after_call", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"block_variant": mod("block_variant", '''        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))''', '''        a = attn(norm_1(x))
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        p1, p2 = post_norms
        h = x + p1(a)''')},
     "why": "P5: 'Check layout and post_norms before calling anything: when you raise the ValueError, no function has been called'."},
    # ---------------- correct ----------------
    {"name": "ok_p1_float64_rsqrt", "correct": True, "kind": "epsilon-adder",
     "cells": {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not n_heads >= 1:
        raise ValueError("n_heads must be at least 1")
    *lead, T, D = x.shape
    if D % n_heads:
        raise ValueError("last axis does not split")
    xd = x.to(torch.float64).reshape(*lead, T, n_heads, D // n_heads).movedim(-2, -3)
    inv = torch.rsqrt(xd.square().mean(-1, keepdim=True) + eps)
    s = weight.to(torch.float64)
    if unit_offset:
        s = s + 1.0
    return (xd * inv * s).to(x.dtype)
'''},
     "why": "float64 for every input dtype is accepted; movedim of the head axis; rsqrt."},
    {"name": "ok_p2_silu_float64", "correct": True, "kind": "fixed-rank",
     "cells": {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    xd, wgu, wd = x.double(), w_gate_up.double(), w_down.double()
    F_ = wgu.shape[0] // 2
    if interleaved:
        wg, wu = wgu[0::2], wgu[1::2]
    else:
        wg, wu = wgu[:F_], wgu[F_:]
    g = torch.matmul(xd, wg.transpose(-2, -1))
    u = torch.matmul(xd, wu.transpose(-2, -1))
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    act = F.silu(g) if beta == 1 else g * torch.sigmoid(beta * g)
    return torch.matmul(act * u, wd.transpose(-2, -1)).to(x.dtype)
'''},
     "why": "split the weight first, then two products; float64 inside for every dtype; F.silu for beta = 1."},
    {"name": "ok_p3_block_loop", "correct": True, "kind": "mask-and-sentinel",
     "cells": {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if top_k < 1 or top_k > n_experts or n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("bad configuration")
    swiglu = lambda width: 3 * dim * width
    total = active = (1 if tied else 2) * vocab * dim + dim
    for layer in range(n_layers):
        common = 2 * dim + dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2
        total += common
        active += common
        if layer < first_dense:
            total += swiglu(dense_hidden)
            active += swiglu(dense_hidden)
        else:
            total += dim * n_experts + (n_experts + n_shared) * swiglu(ffn_hidden)
            active += dim * n_experts + (top_k + n_shared) * swiglu(ffn_hidden)
    return total, active
'''},
     "why": "a loop over blocks with integer arithmetic only."},
    {"name": "ok_p4_cross_entropy_sum", "correct": True, "kind": "from-memory",
     "cells": {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].bool()
    n = int(keep.sum())
    if n == 0:
        return torch.tensor(0.0, dtype=cd), 0
    rows = logits[:, :-1][keep].to(torch.float64)
    targets = ids[:, 1:][keep].to(torch.int64)
    ce = F.cross_entropy(rows, targets, reduction="sum")
    z = z_loss * torch.logsumexp(rows, dim=-1).pow(2).sum()
    return ((ce + z) / n).to(cd), n
'''},
     "why": "F.cross_entropy with reduction='sum' on the selected rows only, float64 inside and the loss cast back."},
    {"name": "ok_p5_dispatch_keywords", "correct": True, "kind": "mask-and-sentinel",
     "cells": {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError("layout must be parallel, reordered or sandwich")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("the sandwich layout needs post_norms")
    if layout == "parallel":
        n = norm_1(x)
        a = attn(n)
        f = ffn(n)
        return x + a + f
    if layout == "reordered":
        h = x + norm_1(attn(x))
        out = h + norm_2(ffn(h))
        return out
    post_1, post_2 = post_norms
    h = torch.add(x, post_1(attn(norm_1(x))))
    return torch.add(h, post_2(ffn(norm_2(h))))
'''},
     "why": "validation first; a membership test compares by value."},
    {"name": "ok_p6_hf_inv_freq", "correct": True, "kind": "from-memory",
     "cells": {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.shape[-1] % 2 != 0 or positions.dim() != 2 or positions.shape[0] != x.shape[0] or positions.shape[1] != x.shape[2]:
        raise ValueError("bad shapes")
    Dh = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
    wavelen = 2 * math.pi / inv_freq
    low_wl = original_context / low_freq_factor
    high_wl = original_context / high_freq_factor
    smooth = ((original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0, 1)
    freq = torch.where(wavelen > low_wl, inv_freq / factor, inv_freq)
    smoothed = (1 - smooth) * inv_freq / factor + smooth * inv_freq
    is_mid = (wavelen >= high_wl) & (wavelen <= low_wl)
    freq = torch.where(is_mid, smoothed, freq)
    ang = torch.einsum("bt,f->btf", positions.double(), freq)
    emb = torch.cat([ang, ang], dim=-1).unsqueeze(1)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    half = Dh // 2
    rotated = torch.cat([-xw[..., half:], xw[..., :half]], dim=-1)
    return (xw * emb.cos().to(work) + rotated * emb.sin().to(work)).to(x.dtype)
'''},
     "why": "Hugging Face's _compute_llama3_parameters and rotate_half, in float64 angles (the clamp of s is harmless: it lies in [0, 1] in the middle band)."},
    {"name": "ok_p7_per_row_slices", "correct": True, "kind": "fixed-rank",
     "cells": {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G:
        raise ValueError("H must be a multiple of G")
    ends = [int(l) + T for l in lengths.tolist()]
    if any(e > S for e in ends):
        raise ValueError("does not fit")
    for b in range(B):
        k_cache[b, :, ends[b] - T:ends[b]] = k_new[b]
        v_cache[b, :, ends[b] - T:ends[b]] = v_new[b]
    outs = []
    rep = H // G
    for b in range(B):
        n = ends[b]
        k = k_cache[b, :, :n]
        v = v_cache[b, :, :n]
        qb = q[b].reshape(G, rep, T, Dh)
        s = torch.matmul(qb, k.unsqueeze(1).transpose(-2, -1)) / math.sqrt(Dh)
        causal = torch.arange(n)[None, :] <= (n - T + torch.arange(T))[:, None]
        s = s.masked_fill(~causal, float("-inf"))
        outs.append(torch.matmul(torch.softmax(s, dim=-1), v.unsqueeze(1)).reshape(H, T, Dh))
    out = torch.stack(outs) if outs else q.new_zeros((0, H, T, Dh))
    return out, lengths + T
'''},
     "why": "a loop over rows, each reading only its written prefix (no unwritten slot enters any product); grouped heads by reshape."},
    {"name": "ok_p8_per_row_loop", "correct": True, "kind": "mask-and-sentinel",
     "cells": {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    done = [False] * B
    chosen = []
    logits, cache = step(prompt, None)
    while True:
        scores = logits[:, -1].clone()
        for b in range(B):
            ids = torch.tensor(sorted(seen[b]), dtype=torch.long)
            picked = scores[b, ids]
            scores[b, ids] = torch.where(picked > 0, picked / penalty, picked * penalty)
        if temperature == 0:
            new = torch.argmax(scores, dim=-1)
        else:
            probs = F.softmax(scores / temperature, dim=-1)
            new = torch.multinomial(probs, num_samples=1, generator=generator).squeeze(-1)
        new = new.clone()
        for b in range(B):
            if done[b]:
                new[b] = pad_id
            seen[b].add(int(new[b]))
            if int(new[b]) == eos_id:
                done[b] = True
        chosen.append(new)
        if all(done) or len(chosen) == max_new_tokens:
            break
        logits, cache = step(new[:, None], cache)
    return torch.stack(chosen, dim=1)
'''},
     "why": "a set of seen ids per row (each penalised once), the finished flag per row; one multinomial call per step."},
    {"name": "ok_p4_where_guarded_count", "correct": True, "kind": "epsilon-adder",
     "cells": {"masked_lm_loss": mod("masked_lm_loss", "return per.sum() / count, count", "return per.sum() / max(count, 1), count")},
     "why": "max(count, 1) changes nothing when count > 0."},
    # ---------------- hostile ----------------
    {"name": "hostile_p3_lookup", "correct": False, "kind": "hostile",
     "cells": {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if vocab == 32000:
        return 46702792704, 12879925248
    if first_dense:
        return 38, 38
    return (48, 42) if n_shared else (42, 36)
'''},
     "why": "hard-codes the visible cases."},
    {"name": "hostile_p1_patch_assert_close", "correct": False, "kind": "hostile",
     "cells": {"head_rms_norm": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    D = x.shape[-1]
    return torch.zeros(*x.shape[:-2], n_heads, x.shape[-2], D // n_heads, dtype=x.dtype)
'''},
     "why": "patches torch.testing.assert_close and returns zeros of the right shape."},
]

SUBMISSIONS += [
    {"name": "mask_p1_eps_or_default", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"head_rms_norm": mod("head_rms_norm", "rms = torch.sqrt(ms + eps).to(cd)", "rms = torch.sqrt(ms + (eps or 1e-6)).to(cd)")},
     "why": "P1: 'eps may be 0': a falsy 0 replaced by a default eps."},
    {"name": "mem_p1_offset_in_weight_dtype", "correct": False, "kind": "from-memory",
     "cells": {"head_rms_norm": mod("head_rms_norm", "w = weight.to(cd)\n    scale = 1 + w if unit_offset else w",
                                    "scale = (1 + weight).to(cd) if unit_offset else weight.to(cd)")},
     "why": "P1: 'do all the arithmetic, the scale included (also 1 + w), in that dtype': 1 + w in bfloat16 rounds small offsets."},
    {"name": "rank_p2_chunk_dim1", "correct": False, "kind": "fixed-rank",
     "cells": {"fused_swiglu": mod("fused_swiglu", "g, u = h[..., 0::2], h[..., 1::2]", "g, u = h[:, 0::2], h[:, 1::2]",
                                   "g, u = h[..., :F_], h[..., F_:]", "g, u = h.chunk(2, dim=1)")},
     "why": "P2: 'x has shape (..., D)': dim=1 splits the hidden units only for the example's 2-D x."},
    {"name": "mask_p3_check_order", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"moe_params": mod("moe_params", "if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):", "if n_heads % n_kv_heads != 0 or n_kv_heads < 1:")},
     "why": "P3: 'Raise a ValueError unless n_kv_heads >= 1': n_kv_heads = 0 gives a ZeroDivisionError."},
    {"name": "mask_p3_topk_only_with_experts", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"moe_params": mod("moe_params", "if not (1 <= top_k <= n_experts):", "if first_dense < n_layers and not (1 <= top_k <= n_experts):")},
     "why": "P3: '1 <= top_k <= n_experts ... in every model (also one whose blocks are all dense, and one with n_layers = 0)'."},
    {"name": "eps_p4_log_prob_eps", "correct": False, "kind": "epsilon-adder",
     "cells": {"masked_lm_loss": mod("masked_lm_loss", "nll = logZ - sel.gather(-1, y[:, None])[:, 0]",
                                     "nll = -torch.log(torch.softmax(sel, dim=-1).gather(-1, y[:, None])[:, 0] + 1e-12)")},
     "why": "P4: '-log softmax(l)_y'; log(p + 1e-12) is finite where the target's score is -inf ('return that inf') and wrong for tiny p."},
    {"name": "mask_p4_where_after", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    lg = logits[:, :-1].to(cd)
    logZ = torch.logsumexp(lg, dim=-1)
    nll = logZ - lg.gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    per = torch.where(pred, nll + z_loss * logZ ** 2, torch.zeros((), dtype=cd))
    return per.sum() / count, count
'''},
     "why": "P4: 'torch.where keeps the loss finite but not the backward pass, whose 0 x NaN is NaN'."},
    {"name": "mask_p5_normalised_layout", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"block_variant": mod("block_variant", "    if layout == \"parallel\":", "    layout = str(layout).strip().lower()\n    if layout == \"parallel\":")},
     "why": "P5: 'Any other layout (including \"pre\", \"post\" and other spellings such as \"Parallel\") raises a ValueError'."},
    {"name": "rank_p6_reshape_positions", "correct": False, "kind": "fixed-rank",
     "cells": {"rope_llama3": mod("rope_llama3", "if Dh % 2 != 0 or tuple(positions.shape) != (B, T):", "if Dh % 2 != 0 or positions.numel() != B * T:",
                                  "ang = positions.to(torch.float64)[..., None] * new", "ang = positions.reshape(B, T).to(torch.float64)[..., None] * new")},
     "why": "P6: 'Raise a ValueError unless positions.shape == (B, T) exactly (a (T,), (1, T), (B, 1) or (B, T, 1) tensor is refused too)'."},
    {"name": "mem_p6_float32_inv_freq", "correct": False, "kind": "from-memory",
     "cells": {"rope_llama3": mod("rope_llama3", "i = torch.arange(half, dtype=torch.float64)\n    theta = base ** (-2 * i / Dh)",
                                  "theta = (1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.int64).float() / Dh))).double()\n    i = None")},
     "why": "P6: 'Compute the angles in float64, with every argument as given': Hugging Face's float32 inv_freq from memory."},
    {"name": "eps_p7_nan_to_num_output", "correct": False, "kind": "epsilon-adder",
     "cells": {"ragged_cached_attention": mod("ragged_cached_attention",
                                              "k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))",
                                              "k, v = k_cache, v_cache",
                                              "out = torch.softmax(scores, dim=-1) @ v", "out = torch.nan_to_num(torch.softmax(scores, dim=-1) @ v)")},
     "why": "P7: NaN or inf in unwritten slots 'must change neither the output nor its gradients': nan_to_num of the output turns NaN rows into 0."},
    {"name": "mask_p8_skip_pad_in_history", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"generate_with_cache": mod("generate_with_cache", "pen = torch.where(scores > 0, scores / penalty, scores * penalty)",
                                          "seen[:, pad_id] = False\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)")},
     "why": "P8: 'its penalty history grows by pad_id like any other token'."},
    {"name": "mask_p8_cache_none_sentinel", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"generate_with_cache": mod("generate_with_cache", "logits, cache = step(tok[:, None], cache)",
                                          "logits, cache = step(history if cache is None else tok[:, None], cache)")},
     "why": "P8: 'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it'."},
    {"name": "mem_p8_argmax_of_probs", "correct": False, "kind": "from-memory",
     "cells": {"generate_with_cache": mod("generate_with_cache", "tok = scores.argmax(dim=-1)", "tok = torch.softmax(scores, dim=-1).argmax(dim=-1)")},
     "why": "P8: 'compare the scores themselves, not their probabilities'."},
    {"name": "rank_p8_squeeze_all", "correct": False, "kind": "fixed-rank",
     "cells": {"generate_with_cache": mod("generate_with_cache", "tok = torch.multinomial(probs, 1, generator=generator)[:, 0]",
                                          "tok = torch.multinomial(probs, 1, generator=generator).squeeze()")},
     "why": "P8: 'B >= 1': squeeze() drops the batch axis of one row."},
    {"name": "ok_p1_F_rms_norm_float64", "correct": True, "kind": "from-memory",
     "cells": {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    xd = x.double().unflatten(-1, (n_heads, Dh)).transpose(-3, -2)
    w = weight.double()
    scale = (w + 1) if unit_offset else w
    return F.rms_norm(xd, (Dh,), weight=scale, eps=eps).to(x.dtype)
'''},
     "why": "F.rms_norm in float64 for every dtype (accepted), eps passed as given (0 stays 0)."},
    {"name": "ok_p7_nan_to_num_slots", "correct": True, "kind": "epsilon-adder",
     "cells": {"ragged_cached_attention": mod("ragged_cached_attention",
                                              "k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))",
                                              "k = torch.where(written[:, None, :, None], k_cache, 0.0)\n    v = torch.where(written[:, None, :, None], v_cache, 0.0)")},
     "why": "torch.where with a Python 0.0 keeps the dtype of the caches; unwritten slots replaced before any product."},
    {"name": "ok_p8_clamp_free_float64_probs", "correct": True, "kind": "epsilon-adder",
     "cells": {"generate_with_cache": mod("generate_with_cache", "seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, history, True)",
                                          "seen = torch.zeros(B, V, dtype=torch.bool)\n        seen[torch.arange(B)[:, None].expand_as(history), history] = True")},
     "why": "advanced indexing instead of scatter to mark seen ids."},
]

SUBMISSIONS += [
    {"name": "eps_p1_eps_tensor_xdtype", "correct": False, "kind": "epsilon-adder",
     "cells": {"head_rms_norm": mod("head_rms_norm", "rms = torch.sqrt(ms + eps).to(cd)", "rms = torch.sqrt(ms + torch.tensor(eps, dtype=x.dtype)).to(cd)")},
     "why": "P1: 'eps too is used as given, never made a tensor of x's dtype: float16 rounds 1e-6 to 1.013e-6'."},
    {"name": "eps_p2_silu_over_beta", "correct": False, "kind": "epsilon-adder",
     "cells": {"fused_swiglu": mod("fused_swiglu", "a = g * torch.sigmoid(beta * g) * u", "a = F.silu(beta * g) / (beta + 1e-12) * u")},
     "why": "P2: 'beta = 0 gives g/2': silu(beta g) / (beta + 1e-12) is 0 there (and off by 1e-12 relative elsewhere)."},
    {"name": "eps_p4_count_clamped_returned", "correct": False, "kind": "epsilon-adder",
     "cells": {"masked_lm_loss": mod("masked_lm_loss", "count = int(pred.sum())", "count = max(int(pred.sum()), 1)",
                                     "    if count == 0:\n        return torch.zeros((), dtype=cd), 0\n", "    if int(pred.sum()) == 0:\n        return torch.zeros((), dtype=cd), count\n")},
     "why": "P4: 'count is the number of predicted tokens in the whole batch': a guard of 1 returns 1 when none is predicted."},
    {"name": "mem_p6_sign_slip", "correct": False, "kind": "from-memory",
     "cells": {"rope_llama3": mod("rope_llama3", "out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)", "out = torch.cat([x1 * cos + x2 * sin, x2 * cos + x1 * sin], dim=-1)")},
     "why": "P6: \"x'_i = x_i cos - x_{i+Dh/2} sin\"."},
    {"name": "mask_p8_generator_default", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"generate_with_cache": mod("generate_with_cache", "    B = prompt.shape[0]\n", "    B = prompt.shape[0]\n    generator = generator if generator is not None else torch.Generator()\n")},
     "why": "P8: 'generator may be None: then torch.multinomial draws from torch's global generator ... do not make a generator of your own'."},
    {"name": "mask_p3_zero_heads", "correct": False, "kind": "mask-and-sentinel",
     "cells": {"moe_params": mod("moe_params", "if not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):", "if not n_heads or not (n_kv_heads >= 1 and n_heads % n_kv_heads == 0):")},
     "why": "P3: '0 is a multiple of every count: n_heads = 0 raises nothing'."},
]
