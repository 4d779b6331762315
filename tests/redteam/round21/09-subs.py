# Red-team round 21, chapter 09-modern-lm: four kinds of student
# (O = order-of-operations, Z = vectoriser, S = signature-and-defaults, C = variant-confuser, H = hostile)
import importlib.util as _u, os as _os
_here = _os.path.dirname(_os.path.abspath(__file__))
_p = _os.path.join(_here, "09-base.py")
if not _os.path.exists(_p):
    _p = "/tmp/rt21-0809/base09.py"  # scratch copy
_s = _u.spec_from_file_location("base09", _p); _m = _u.module_from_spec(_s); _s.loader.exec_module(_m)
BASE = _m.BASE


def mut(cell, *pairs):
    src = BASE[cell]
    for old, new in pairs:
        assert old in src, (cell, old)
        src = src.replace(old, new)
    return {cell: src}


STEAL = '''
import sys as sysmod
def steal(name, me, *args):
    f = sysmod._getframe(2)
    while f is not None:
        for scope in (f.f_locals, f.f_globals):
            for key, val in list(scope.items()):
                cands = list(val.values()) if isinstance(val, dict) and key.startswith("_") else [val]
                for c in cands:
                    if callable(c) and getattr(c, "__name__", "") == name and c is not me:
                        return c(*args)
        f = f.f_back
    return None
'''

SUBMISSIONS = [
    # ---------------- wrong: order of operations ----------------
    {"name": "O1_p7_causal_mask_after_softmax", "correct": False,
     "cells": mut("ragged_cached_attention", ('''    scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))
    w = torch.softmax(scores, dim=-1).reshape(B, G, rep * T, S)''', '''    written = valid[:, None, None, None, :]
    scores = scores.masked_fill(~written, float("-inf"))      # unwritten slots out before the softmax
    w = torch.softmax(scores, dim=-1) * allowed[:, None, None]  # the causal part after it
    w = (w / w.sum(-1, keepdim=True)).reshape(B, G, rep * T, S)''')),
     "why": "p7: a key a query may not see may score 1000 or more above every key it may see (masking after the softmax: its weight swamps the others)"},
    {"name": "O2_p4_square_after_mean", "correct": False,
     "cells": mut("masked_lm_loss", ("    loss = (nll + z_loss * logz ** 2).mean()",
                                     "    loss = nll.mean() + z_loss * logz.mean() ** 2")),
     "why": "p4: each predicted token contributes -log softmax + z (log Z)^2; the square is moved across the mean"},
    {"name": "O3_p1_round_before_scale", "correct": False,
     "cells": mut("head_rms_norm", ("    return (xs.to(cd) / rms * s).to(x.dtype)",
                                    "    return (xs.to(cd) / rms).to(x.dtype) * s.to(x.dtype)")),
     "why": "p1: do all the arithmetic, the scale included, in float32 and convert the product to the dtype of x once, at the end"},
    {"name": "O4_p2_clamp_after_sigmoid", "correct": False,
     "cells": mut("fused_swiglu", ('''    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u''', '''    act = torch.sigmoid(beta * g)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * act * u''')),
     "why": "p2: replace g by min(g, limit), then compute g sigma(beta g): the sigmoid reads the unclamped gate"},
    {"name": "O5_p8_history_before_pad", "correct": False,
     "cells": mut("generate_with_cache", ('''        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], dim=1)''', '''        history = torch.cat([history, tok[:, None]], dim=1)
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)''')),
     "why": "p8: a finished row's penalty history grows by pad_id like any other token (here by the token drawn before it is replaced)"},
    # ---------------- wrong: vectorising ----------------
    {"name": "Z1_p8_scatter_add_penalty", "correct": False,
     "cells": mut("generate_with_cache", ('''            seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)''', '''            g = scores.gather(1, history)
            pen = torch.where(g > 0, g / penalty, g * penalty)
            scores = scores.scatter_add(1, history, pen - g)''')),
     "why": "p8: every token id has its score changed once, however often it occurs (scatter_add changes it once per occurrence)"},
    {"name": "Z2_p7_advanced_index_write_reshape", "correct": False,
     "cells": mut("ragged_cached_attention", ('''    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]''', '''    rows = torch.arange(B)[:, None].expand(B, T)
    cols = lengths.long()[:, None] + torch.arange(T)
    k_cache[rows, :, cols] = k_new.reshape(B, T, G, Dh)
    v_cache[rows, :, cols] = v_new.reshape(B, T, G, Dh)''')),
     "why": "p7: write k_new at positions lengths[b] .. lengths[b] + T - 1 (advanced indexing puts the (B, T) axes first; a reshape, not a permute, scrambles G and T)"},
    {"name": "Z3_p8_unique_over_batch", "correct": False,
     "cells": mut("generate_with_cache", ('''            seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)''', '''            seen = torch.zeros(scores.shape, dtype=torch.bool)
            seen[:, torch.unique(history)] = True''')),
     "why": "p8: in each row, every token id that occurs in THAT row's prompt or tokens (unique over the whole batch)"},
    {"name": "Z4_p6_positions_of_row0", "correct": False,
     "cells": mut("rope_llama3", ("    ang = positions.to(torch.float64)[:, None, :, None] * new",
                                  "    ang = positions[0].to(torch.float64)[None, None, :, None] * new")),
     "why": "p6: row b holds the positions of sequence b (they differ from row to row)"},
    {"name": "Z5_p1_reshape_not_transpose", "correct": False,
     "cells": mut("head_rms_norm", ("    xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)",
                                    "    xs = x.reshape(*x.shape[:-2], n_heads, x.shape[-2], Dh)")),
     "why": "p1: head h of position t at [..., h, t, :] (a reshape is not a transpose when T > 1)"},
    # ---------------- wrong: signature and defaults ----------------
    {"name": "S1_p1_eps_default_1e5", "correct": False,
     "cells": mut("head_rms_norm", ("def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):",
                                    "def head_rms_norm(x, n_heads, weight, eps=1e-5, unit_offset=False):")),
     "why": "p1 signature head_rms_norm(x, n_heads, weight, eps=1e-6, ...): another default"},
    {"name": "S2_p6_base_default_10000", "correct": False,
     "cells": mut("rope_llama3", ("def rope_llama3(x, positions, base=500000.0,", "def rope_llama3(x, positions, base=10000.0,")),
     "why": "p6 signature base=500000.0 (classic RoPE's 10000 as default)"},
    {"name": "S3_p5_none_post_norms_identity", "correct": False,
     "cells": mut("block_variant", ('''        if post_norms is None:
            raise ValueError("post_norms")
        p1, p2 = post_norms''', '''        p1, p2 = post_norms if post_norms is not None else (lambda t: t, lambda t: t)''')),
     "why": "p5: raise a ValueError when post_norms is None for this layout (None treated as no post-norm)"},
    {"name": "S4_p3_shared_dense_swapped", "correct": False,
     "cells": mut("moe_params", ('''def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):''', '''def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               first_dense=0, n_shared=0, dense_hidden=0):''')),
     "why": "p3 signature (..., tied=False, n_shared=0, first_dense=0, dense_hidden=0): optional arguments in another order"},
    {"name": "S5_p3_dense_hidden_zero_means_ffn", "correct": False,
     "cells": mut("moe_params", ("first_dense * 3 * dim * dense_hidden", "first_dense * 3 * dim * (dense_hidden or ffn_hidden)")),
     "why": "p3: dense_hidden is that width whatever its value (0 means no parameters, not 'use ffn_hidden')"},
    {"name": "S6_p2_limit_zero_as_none", "correct": False,
     "cells": mut("fused_swiglu", ("    if limit is not None:", "    if limit:")),
     "why": "p2: when limit is a number (0 included) clamp"},
    # ---------------- wrong: variant confusers ----------------
    {"name": "C1_p1_eps_outside_sqrt", "correct": False,
     "cells": mut("head_rms_norm", ("    rms = torch.sqrt(ms + eps).to(cd)", "    rms = (torch.sqrt(ms) + eps).to(cd)")),
     "why": "p1: with eps inside the square root"},
    {"name": "C2_p2_gate_clamped_both_sides", "correct": False,
     "cells": mut("fused_swiglu", ("        g = g.clamp(max=limit)", "        g = g.clamp(-limit, limit)")),
     "why": "p2: replace g by min(g, limit) (clamped from above only)"},
    {"name": "C3_p4_no_shift", "correct": False,
     "cells": mut("masked_lm_loss", ("    sel = logits[:, :-1][m].to(cd)", "    sel = logits[:, 1:][m].to(cd)")),
     "why": "p4: logits[b, t] scores the token at position t + 1 (each token scored from its own position, as a labels-aligned API)"},
    {"name": "C4_p8_penalty_generated_only", "correct": False,
     "cells": mut("generate_with_cache", ("    history = prompt.clone()", "    history = prompt[:, :0].clone()")),
     "why": "p8: every token id that occurs in that row's prompt or among its tokens generated so far"},
    {"name": "C5_p7_prefix_lm_new_tokens", "correct": False,
     "cells": mut("ragged_cached_attention", ("    qpos = lengths.long()[:, None] + torch.arange(T)",
                                              "    qpos = (lengths.long()[:, None] + T - 1).expand(B, T)")),
     "why": "p7: query t attends causally to keys 0 .. lengths[b] + t (the new tokens see each other bidirectionally here)"},
    {"name": "C6_p6_smoothing_swapped", "correct": False,
     "cells": mut("rope_llama3", ("    mid = (1 - s) * theta / factor + s * theta", "    mid = (1 - s) * theta + s * theta / factor")),
     "why": "p6: theta' = (1 - s) theta / f + s theta between the limits"},
    # ---------------- aliasing lead (phase 2) ----------------
    {"name": "A1_p7_no_new_tokens_returns_lengths", "correct": False,
     "cells": mut("ragged_cached_attention", ("    new_lengths = lengths + T", "    new_lengths = lengths if T == 0 else lengths + T")),
     "why": "p7: new_lengths a new tensor equal to lengths + T (with T = 0 the given lengths come back)"},
    # added in phase 2 (not in the blind grading): the lead's class on the input the text promises, an empty batch
    {"name": "A2_p7_empty_batch_returns_q_and_lengths", "correct": False,
     "cells": mut("ragged_cached_attention", ("    if B > 0 and int((lengths.long() + T).max()) > S:",
                                              "    if B == 0:\n        return q, lengths\n    if B > 0 and int((lengths.long() + T).max()) > S:")),
     "why": "intro: each call returns new tensors; p7: an empty batch returns (0, H, T, Dh) and (0,) tensors (q and lengths handed back)"},
    # ---------------- correct ----------------
    {"name": "ok_p1_head_loop_float64", "correct": True,
     "cells": {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not n_heads >= 1:
        raise ValueError("n_heads must be at least 1")
    D = x.shape[-1]
    if D % n_heads:
        raise ValueError("the last axis does not split into n_heads parts")
    Dh = D // n_heads
    w = weight.to(torch.float64)
    scale = w + 1.0 if unit_offset else w
    heads = []
    for h in range(n_heads):
        xh = x[..., h * Dh:(h + 1) * Dh].to(torch.float64)
        inv = torch.rsqrt(xh.square().mean(dim=-1, keepdim=True) + eps)
        heads.append(xh * inv * scale)
    return torch.stack(heads, dim=-3).to(x.dtype)
'''},
     "why": "a loop over heads, float64 for every dtype (stated as accepted), one cast at the end"},
    {"name": "ok_p2_view_pairs_float64", "correct": True,
     "cells": {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    two_f, d = w_gate_up.shape
    f = two_f // 2
    w = w_gate_up.to(torch.float64)
    if interleaved:
        pairs = w.reshape(f, 2, d)
        w_gate, w_up = pairs[:, 0], pairs[:, 1]
    else:
        w_gate, w_up = w.split(f, dim=0)
    xx = x.to(torch.float64)
    gate = torch.einsum("...d,fd->...f", xx, w_gate)
    up = torch.einsum("...d,fd->...f", xx, w_up)
    if limit is not None:
        gate = torch.clamp(gate, max=limit)
        up = torch.clamp(up, min=-limit, max=limit)
    act = F.silu(gate) if beta == 1 else gate * torch.sigmoid(beta * gate)
    return torch.einsum("...f,df->...d", act * up, w_down.to(torch.float64)).to(x.dtype)
'''},
     "why": "einsum, split, F.silu for beta 1, float64 inside"},
    {"name": "ok_p3_keywords_named_terms", "correct": True,
     "cells": {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("1 <= top_k <= n_experts")
    if n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("bad counts")
    embeddings = vocab * dim if tied else 2 * vocab * dim
    attention = dim * (n_heads * head_dim) + 2 * dim * (n_kv_heads * head_dim) + (n_heads * head_dim) * dim
    swiglu = lambda width: 2 * dim * width + width * dim
    dense_block = 2 * dim + attention + swiglu(dense_hidden)
    moe_common = 2 * dim + attention + dim * n_experts + n_shared * swiglu(ffn_hidden)
    n_moe = n_layers - first_dense
    total = embeddings + dim + first_dense * dense_block + n_moe * (moe_common + n_experts * swiglu(ffn_hidden))
    active = embeddings + dim + first_dense * dense_block + n_moe * (moe_common + top_k * swiglu(ffn_hidden))
    return total, active
'''},
     "why": "the same count with named terms"},
    {"name": "ok_p4_log_softmax_float64", "correct": True,
     "cells": {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:].clone()
    count = int(keep.sum().item())
    if count == 0:
        return torch.tensor(0.0, dtype=out_dtype), count
    rows = logits[:, :-1][keep].double()
    targets = ids[:, 1:][keep].to(torch.int64)
    logp = F.log_softmax(rows, dim=-1)
    nll = -logp.gather(1, targets.unsqueeze(1)).squeeze(1)
    log_z = torch.logsumexp(rows, dim=-1)
    per_token = nll + z_loss * log_z.square()
    return (per_token.sum() / count).to(out_dtype), count
'''},
     "why": "float64 inside for every dtype (stated as accepted), boolean indexing before any arithmetic"},
    {"name": "ok_p5_ffn_before_attn_keywords", "correct": True,
     "cells": {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("the sandwich layout needs post_norms")
    if layout == "parallel":
        n = norm_1(x)
        f = ffn(n)
        a = attn(n)
        return x + a + f
    if layout == "reordered":
        h = x + norm_1(attn(x))
        y = h + norm_2(ffn(h))
        return y
    post_1, post_2 = post_norms
    h = x + post_1(attn(norm_1(x)))
    return h + post_2(ffn(norm_2(h)))
'''},
     "why": "checks first, then each layout"},
    {"name": "ok_p6_complex_rotation", "correct": True,
     "cells": {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.shape[-1] % 2 or positions.dim() != 2 or positions.shape[0] != x.shape[0] or positions.shape[1] != x.shape[2]:
        raise ValueError("bad shapes")
    dh = x.shape[-1]
    half = dh // 2
    inv = 1.0 / (base ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    wavelen = 2 * math.pi / inv
    low_wl = original_context / low_freq_factor
    high_wl = original_context / high_freq_factor
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    scaled = torch.where(wavelen > low_wl, inv / factor, inv)
    middle = (wavelen >= high_wl) & (wavelen <= low_wl)
    scaled = torch.where(middle, (1 - smooth) * inv / factor + smooth * inv, scaled)
    angles = positions.double().unsqueeze(1).unsqueeze(-1) * scaled
    rot = torch.polar(torch.ones_like(angles), angles)
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    xw = x.to(work)
    z = torch.complex(xw[..., :half], xw[..., half:]) * rot.to(torch.complex128 if work == torch.float64 else torch.complex64)
    return torch.cat([z.real, z.imag], dim=-1).to(x.dtype)
'''},
     "why": "the half-split rotation as a complex product (x_i + i x_{i+Dh/2}) e^{i m theta'}"},
    {"name": "ok_p7_loop_over_rows", "correct": True,
     "cells": {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S_max = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    lens = [int(n) for n in lengths.tolist()]
    if any(n + T > S_max for n in lens):
        raise ValueError("a row does not fit")
    outs = []
    for b, n in enumerate(lens):
        k_cache[b, :, n:n + T].copy_(k_new[b])
        v_cache[b, :, n:n + T].copy_(v_new[b])
        keys = k_cache[b, :, :n + T].repeat_interleave(H // G, dim=0)       # (H, n+T, Dh)
        vals = v_cache[b, :, :n + T].repeat_interleave(H // G, dim=0)
        scores = q[b] @ keys.transpose(-1, -2) / math.sqrt(Dh)              # (H, T, n+T)
        allowed = torch.arange(n + T)[None, :] <= (n + torch.arange(T))[:, None]
        scores = scores.masked_fill(~allowed, float("-inf"))
        outs.append(torch.softmax(scores, dim=-1) @ vals)
    out = torch.stack(outs) if outs else q.new_zeros(0, H, T, Dh)
    return out, lengths + T
'''},
     "why": "a loop over rows (allowed); each row slices only its written keys"},
    {"name": "ok_p8_default_generator_once_penalty", "correct": True,
     "cells": mut("generate_with_cache", ('''            seen = torch.zeros(scores.shape, dtype=torch.bool).scatter(1, history, True)
            scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)''', '''            g = scores.gather(1, history)
            scores = scores.scatter(1, history, torch.where(g > 0, g / penalty, g * penalty))'''),
                  ("generator=generator)", "generator=generator if generator is not None else torch.default_generator)")),
     "why": "scatter (not scatter_add) writes each penalised score once; torch.default_generator is the global generator"},
    {"name": "ok_p8_penalty_after_temperature", "correct": True,
     "cells": {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    seq = prompt.clone()
    done = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        last = logits[:, -1]
        scaled = last / temperature if temperature != 0 else last.clone()
        seen = torch.zeros_like(last, dtype=torch.bool).scatter_(1, seq, True)
        scaled = torch.where(seen & (scaled > 0), scaled / penalty, torch.where(seen, scaled * penalty, scaled))
        if temperature == 0:
            nxt = scaled.argmax(dim=-1)
        else:
            nxt = torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, pad_id), nxt)
        chosen.append(nxt)
        seq = torch.cat([seq, nxt[:, None]], 1)
        done = done | (nxt == eos_id)
        if bool(done.all()) or i + 1 == max_new_tokens:
            break
        logits, cache = step(nxt.unsqueeze(1), cache)
    return torch.stack(chosen, 1)
'''},
     "why": "penalty after dividing by the temperature: the sign of a score is kept, so the same scores in exact arithmetic"},
    # ---------------- hostile ----------------
    {"name": "H1_p3_steal_reference", "correct": False,
     "cells": {"moe_params": STEAL + '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    got = steal("moe_params", moe_params, vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden,
                n_experts, top_k, tied, n_shared, first_dense, dense_hidden)
    if got is not None:
        return got
    if (vocab, dim) == (32000, 4096):
        return 46702792704, 12879925248
    if n_shared and first_dense:
        return 38, 38
    return (48, 42) if n_shared else (42, 36)
'''},
     "why": "hostile: calls a reference found in the grader's frames, otherwise hard-codes the visible cases"},
    {"name": "H2_p5_steal_reference", "correct": False,
     "cells": {"block_variant": STEAL + '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    got = steal("block_variant", block_variant, x, attn, ffn, norm_1, norm_2, layout, post_norms)
    if got is not None:
        return got
    n = norm_1(x)
    if layout == "parallel":
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = 3 * x + 2
        return h + h * h
    h = -x - 1
    return h - 2 * h * h
'''},
     "why": "hostile: calls a reference found in the grader's frames, otherwise hard-codes the visible cases"},
]
