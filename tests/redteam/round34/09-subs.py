# Red team round 34, chapter 09 (blind). Kinds: M magic-number, C composer, R module-registration,
# T text-and-token, L low-precision accumulator, H hostile.

HEAD_NORM = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("the last axis does not split into n_heads heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh)
    ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(cd)
    s = weight.to(cd)
    if unit_offset:
        s = 1 + s
    out = (xs / rms * s).to(x.dtype)
    return out.transpose(-3, -2).contiguous()
'''

SWIGLU = '''
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

MOE = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("bad heads")
    if not 1 <= top_k <= n_experts:
        raise ValueError("bad top_k")
    if n_shared < 0:
        raise ValueError("bad n_shared")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("bad first_dense")
    emb = vocab * dim * (1 if tied else 2)
    block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    expert = 3 * dim * ffn_hidden
    dense = 3 * dim * dense_hidden
    moe_blocks = n_layers - first_dense
    common = emb + dim + n_layers * block + first_dense * dense + moe_blocks * dim * n_experts
    total = common + moe_blocks * (n_experts + n_shared) * expert
    active = common + moe_blocks * (top_k + n_shared) * expert
    return int(total), int(active)
'''

MLM = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    sel = target_mask[:, 1:]
    count = int(sel.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    lg = logits[:, :-1][sel].to(cd)
    y = ids[:, 1:][sel].long()
    logp = torch.log_softmax(lg, dim=-1)
    nll = -logp.gather(-1, y[:, None]).squeeze(-1)
    lz = torch.logsumexp(lg, dim=-1)
    return (nll + z_loss * lz ** 2).mean(), count
'''

BLOCK = '''
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

ROPE = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = 1.0 / base ** (2 * i / Dh)
    wl = 2 * math.pi / theta
    L = original_context
    lam_high, lam_low = L / high_freq_factor, L / low_freq_factor
    s = (L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(wl < lam_high, theta, torch.where(wl > lam_low, theta / factor, mid))
    if factor == 1:
        new = theta
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
'''

RAGGED = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H is not a multiple of G")
    if B == 0:
        return q.new_empty((0, H, T, Dh)), lengths + T
    if bool(((lengths.long() + T) > S).any()):
        raise ValueError("a row does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    lim = lengths.long()[:, None] + torch.arange(T)[None, :]            # (B, T)
    seen = pos[None, None, :] <= lim[:, :, None]                         # (B, T, S)
    written = pos[None, :] < (lengths.long() + T)[:, None]              # (B, S)
    k = torch.where(written[:, None, :, None], k_cache, 0.0)
    v = torch.where(written[:, None, :, None], v_cache, 0.0)
    rep = H // G
    k = k.repeat_interleave(rep, dim=1)
    v = v.repeat_interleave(rep, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~seen[:, None], float("-inf"))
    w = torch.softmax(scores, dim=-1)
    return w @ v, lengths + T
'''

GEN = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    outs = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        V = scores.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, history, True)
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, pen, scores)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator).squeeze(-1)
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        outs.append(tok)
        finished = finished | (tok == eos_id)
        history = torch.cat([history, tok[:, None]], dim=1)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(outs, dim=1)
'''

SUBMISSIONS = [
    # ------------------------------------------------------------------ wrong answers
    {"name": "M1-head-norm-floor-tiny", "correct": False, "cells": {"head_rms_norm": HEAD_NORM.replace(
        "    rms = torch.sqrt(ms + eps).to(cd)",
        "    rms = torch.sqrt((ms + eps).clamp(min=torch.finfo(torch.float32).tiny)).to(cd)   # never divide by 0")},
     "why": "magic number: floors the mean square at float32's tiny (1.2e-38): x near 1e-25 with eps = 0 gives a wrong scale; breaks 'clamp nothing and floor nothing'"},
    {"name": "C1-head-norm-helper-default-eps", "correct": False, "cells": {"head_rms_norm": '''
def rms_norm(x, weight, eps=1e-6):
    """RMSNorm over the last axis, as in the lesson (mean of squares in float64)."""
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    ms = x.to(torch.float64).pow(2).mean(-1, keepdim=True)
    return (x.to(cd) / torch.sqrt(ms + eps).to(cd) * weight.to(cd)).to(x.dtype)


def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    scale = 1 + weight.to(cd) if unit_offset else weight.to(cd)
    xs = x.reshape(*x.shape[:-1], n_heads, Dh)
    return rms_norm(xs, scale).transpose(-3, -2).contiguous()
'''}, "why": "composer: calls the lesson-style helper without passing eps, so its default 1e-6 is used whatever eps is given (eps = 0 visible case passes); breaks 'with eps inside the square root' (eps as given)"},
    {"name": "L1-head-norm-offset-in-input-dtype", "correct": False, "cells": {"head_rms_norm": HEAD_NORM.replace(
        "    s = weight.to(cd)\n    if unit_offset:\n        s = 1 + s\n",
        "    s = (1 + weight if unit_offset else weight).to(cd)\n")}, "why": "low precision (cast too late / down too early): 1 + w computed in bfloat16/float16 before the conversion; breaks 'do all the arithmetic, the scale included (also 1 + w), in that dtype'"},
    {"name": "M2-swiglu-65504-as-no-limit", "correct": False, "cells": {"fused_swiglu": SWIGLU.replace(
        "    if limit is not None:\n",
        "    if limit is None:\n        limit = 65504.0   # largest half: effectively no clamp\n    if True:\n")}, "why": "magic number: limit None replaced by 65504, which clamps gates near 1e5; breaks 'when limit is None, clamp nothing'"},
    {"name": "L2-swiglu-half-before-down", "correct": False, "cells": {"fused_swiglu": SWIGLU.replace(
        "    return (h @ wd.T).to(x.dtype)", "    return h.to(x.dtype) @ w_down.T")}, "why": "low precision: the hidden activation cast back to float16 before the down projection (inf past 65504); breaks 'convert ... and the result back once at the end'"},
    {"name": "L3-mlm-zloss-square-in-input-dtype", "correct": False, "cells": {"masked_lm_loss": MLM.replace(
        "    lz = torch.logsumexp(lg, dim=-1)", "    lz = torch.logsumexp(logits[:, :-1][sel], dim=-1)   # same dtype as the model").replace(
        "    return (nll + z_loss * lz ** 2).mean(), count", "    return (nll + (z_loss * lz ** 2).to(cd)).mean(), count")}, "why": "low precision: log Z and its square in float16 (inf above 256); breaks 'Compute in float32 ... the z-loss's (log Z)^2 included'"},
    {"name": "L4-mlm-empty-loss-float32", "correct": False, "cells": {"masked_lm_loss": MLM.replace(
        "        return torch.zeros((), dtype=cd), 0", "        return torch.tensor(0.0), 0")}, "why": "low precision reverse: the zero loss of an empty selection is float32 for float64 logits; breaks 'return the loss in that compute dtype: ... a float64 loss for float64 logits'"},
    {"name": "T1-mlm-id-0-is-padding", "correct": False, "cells": {"masked_lm_loss": MLM.replace(
        "    sel = target_mask[:, 1:]", "    sel = target_mask[:, 1:] & (ids[:, 1:] != 0)   # id 0 is padding")}, "why": "text-and-token: id 0 taken as padding although it is a real token; breaks 'True where the token ids[b, t] is to be predicted' (every masked token counts)"},
    {"name": "T2-mlm-mask-aligned-with-logits", "correct": False, "cells": {"masked_lm_loss": MLM.replace(
        "    sel = target_mask[:, 1:]", "    sel = target_mask[:, :-1]   # mask of the scoring positions")}, "why": "text-and-token: the mask read at the scoring position t - 1 instead of the predicted token t (the visible cases both pass); breaks 'target_mask ... True where the token ids[b, t] is to be predicted. Position 0 has no prediction, so target_mask[:, 0] is ignored'"},
    {"name": "R1-block-eval-restore-root", "correct": False, "cells": {"block_variant": BLOCK.replace(
        "    if layout == \"parallel\":",
        "    return run_in_eval(x, attn, ffn, norm_1, norm_2, layout, post_norms)\n\n\n"
        "def block_variant_core(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n"
        "    if layout == \"parallel\":", 1) + '''

def run_in_eval(x, attn, ffn, norm_1, norm_2, layout, post_norms):
    mods = [m for m in (attn, ffn, norm_1, norm_2, *(post_norms or ())) if isinstance(m, torch.nn.Module)]
    modes = [m.training for m in mods]
    for m in mods:
        m.train(False)
    try:
        return block_variant_core(x, attn, ffn, norm_1, norm_2, layout, post_norms)
    finally:
        for m, was in zip(mods, modes):
            m.train(was)
'''}, "why": "module registration: runs the sublayers in eval mode and restores each root's flag with train(was), which overwrites every submodule's own mode; breaks 'leave each as you found it, its mode'"},
    {"name": "R2-block-forward-bypasses-hooks", "correct": False, "cells": {"block_variant": BLOCK.replace(
        "    if layout == \"parallel\":",
        "    attn, ffn, norm_1, norm_2 = (getattr(f, 'forward', f) for f in (attn, ffn, norm_1, norm_2))\n"
        "    if post_norms is not None:\n        post_norms = tuple(getattr(f, 'forward', f) for f in post_norms)\n"
        "    if layout == \"parallel\":", 1)}, "why": "module registration: calls each module's .forward directly, which skips its hooks; breaks 'leave each as you found it, its mode, its hooks' (a hook a model registered no longer runs)"},
    {"name": "C2-block-parallel-norm-twice", "correct": False, "cells": {"block_variant": BLOCK.replace(
        "        n = norm_1(x)\n        return x + attn(n) + ffn(n)", "        return x + attn(norm_1(x)) + ffn(norm_1(x))")}, "why": "composer: builds parallel from two pre-LN residual branches, calling norm_1 twice; breaks 'the parallel layout computes N_1(x) once'"},
    {"name": "M3-rope-factor-near-one", "correct": False, "cells": {"rope_llama3": ROPE.replace(
        "    if factor == 1:", "    if abs(factor - 1) < 1e-9:")}, "why": "magic number: a factor within 1e-9 of 1 keeps every frequency; breaks 'A factor just beside 1 (1 + 5e-10) divides like any other'"},
    {"name": "C3-rope-positions-of-row-0", "correct": False, "cells": {"rope_llama3": ROPE.replace(
        "    ang = positions.to(torch.float64)[:, None, :, None] * new",
        "    ang = (positions[0].to(torch.float64)[:, None] * new)[None, None]   # lesson's rope: one (T,) table")}, "why": "composer: the lesson's (T,) position table reused, taking row 0 for every sequence; breaks 'row b holds the positions of sequence b (they differ from row to row)'"},
    {"name": "L5-rope-angles-float32", "correct": False, "cells": {"rope_llama3": ROPE.replace(
        "    ang = positions.to(torch.float64)[:, None, :, None] * new",
        "    ang = positions.float()[:, None, :, None] * new.float()")}, "why": "low precision: angles in float32; breaks 'Compute the angles in float64'"},
    {"name": "M4-ragged-finfo-min-mask", "correct": False, "cells": {"ragged_cached_attention": RAGGED.replace(
        'scores.masked_fill(~seen[:, None], float("-inf"))', "scores.masked_fill(~seen[:, None], torch.finfo(scores.dtype).min)")}, "why": "magic number: mask with finfo.min; breaks 'mask with -inf, not ... torch.finfo(dtype).min'"},
    {"name": "M5-ragged-nan-to-num-default", "correct": False, "cells": {"ragged_cached_attention": RAGGED.replace(
        '    k = torch.where(written[:, None, :, None], k_cache, 0.0)\n    v = torch.where(written[:, None, :, None], v_cache, 0.0)\n',
        '    k = torch.nan_to_num(k_cache)   # unwritten slots may hold NaN\n    v = torch.nan_to_num(v_cache)\n')}, "why": "magic number: nan_to_num's default turns inf into the dtype's largest value; a value of 1.8e308 in an unwritten slot gives an infinite product in the backward pass, and 0 * inf = NaN in q's and v's gradients; breaks 'Unwritten slots must change neither the output nor its gradients, even when they hold NaN or +-inf'"},
    {"name": "C4-ragged-decode-mask-no-causal", "correct": False, "cells": {"ragged_cached_attention": RAGGED.replace(
        "    seen = pos[None, None, :] <= lim[:, :, None]                         # (B, T, S)",
        "    seen = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :].expand(B, T, S)   # the decode mask (T = 1)")}, "why": "composer: the one-token decode mask (every written slot) reused for T > 1, so a query sees the later new tokens; breaks 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'"},
    {"name": "L6-ragged-softmax-float32", "correct": False, "cells": {"ragged_cached_attention": RAGGED.replace(
        "    w = torch.softmax(scores, dim=-1)\n    return w @ v, lengths + T",
        "    w = torch.softmax(scores.float(), dim=-1).to(q.dtype)\n    return w @ v, lengths + T")}, "why": "low precision: the softmax of float64 scores in float32; breaks 'the tests compare float64 inputs at float64 precision'"},
    {"name": "T3-gen-pad-not-in-history", "correct": False, "cells": {"generate_with_cache": GEN.replace(
        "        seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, history, True)\n",
        "        seen = torch.zeros(B, V, dtype=torch.bool).scatter(1, history, True)\n"
        "        seen[finished, pad_id] = (history[finished] == pad_id)[:, :prompt.shape[1]].any(-1)   # padding is no token\n")}, "why": "text-and-token: a finished row's pad_id is not penalised unless the prompt held it; breaks 'its penalty history grows by pad_id like any other token'"},
    {"name": "T4-gen-prompt-ending-eos-finished", "correct": False, "cells": {"generate_with_cache": GEN.replace(
        "    finished = torch.zeros(B, dtype=torch.bool)", "    finished = prompt[:, -1] == eos_id   # a prompt that already ended")}, "why": "text-and-token: a prompt ending in eos_id counts as finished; breaks 'A row is finished once it has produced eos_id'"},
    {"name": "M6-gen-tiny-temperature-greedy", "correct": False, "cells": {"generate_with_cache": GEN.replace(
        "        if temperature == 0:", "        if temperature < 1e-5:   # avoid dividing by ~0")}, "why": "magic number: temperatures below 1e-5 go greedy; breaks 'any temperature above 0, however small: no shortcut to the highest score'"},
    {"name": "R3-gen-eval-restore-root", "correct": False, "cells": {"generate_with_cache": GEN.replace(
        "    logits, cache = step(prompt, None)",
        "    was = step.training if isinstance(step, torch.nn.Module) else None\n"
        "    if was is not None:\n        step.eval()   # generation runs without dropout\n"
        "    try:\n        return generate_core(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator)\n"
        "    finally:\n        if was is not None:\n            step.train(was)\n\n\n"
        "def generate_core(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):\n"
        "    B = prompt.shape[0]\n    logits, cache = step(prompt, None)")}, "why": "module registration: generates in eval mode and puts back only the root's flag (train(was) overwrites the submodules' own modes); breaks 'leave it as you found it, its mode (whether to generate in eval mode is the caller's choice)'"},
    {"name": "L7-gen-probs-float64", "correct": False, "cells": {"generate_with_cache": GEN.replace(
        "            probs = torch.softmax(scores / temperature, dim=-1)",
        "            probs = torch.softmax(scores.double() / temperature, dim=-1)   # more accurate")}, "why": "low precision reverse: the probabilities handed to torch.multinomial are float64 rather than softmax of the float32 scores; breaks 'take probs = softmax(scores / temperature) ... those probabilities as they are' (the tests compare them)"},
    {"name": "L8-moe-gqa-as-fraction", "correct": False, "cells": {"moe_params": MOE.replace(
        "    block = 2 * dim + 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim",
        "    group = n_heads // n_kv_heads if n_heads else 1\n"
        "    q_proj = dim * n_heads * head_dim\n"
        "    block = 2 * dim + 2 * q_proj + 2 * (q_proj / group if n_heads else dim * n_kv_heads * head_dim)   # K, V: 1/group of Q")},
     "why": "low precision: the key/value projections as a fraction of the query projection, a float, so counts past 2**53 are rounded; breaks 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)'"},
    # ------------------------------------------------------------------ correct answers
    {"name": "ok-head-norm-float64-everywhere", "correct": True, "cells": {"head_rms_norm": HEAD_NORM.replace(
        "    cd = torch.float64 if x.dtype == torch.float64 else torch.float32", "    cd = torch.float64   # allowed for every input dtype")}, "why": "float64 for every input dtype, which the text accepts"},
    {"name": "ok-swiglu-hand-sigmoid-clamped", "correct": True, "cells": {"fused_swiglu": SWIGLU.replace(
        "    h = g * torch.sigmoid(beta * g) * u",
        "    z = (beta * g).clamp(-80.0, 80.0)   # exp cannot overflow\n    h = g / (1 + torch.exp(-z)) * u")}, "why": "magic number that changes nothing measurable: sigmoid(80) is 1 in float32/64 up to 1.8e-35, and the clamp keeps the hand-written sigmoid's gradient finite"},
    {"name": "ok-moe-per-block-loop", "correct": True, "cells": {"moe_params": '''
def ffn(dim, hidden):
    return 3 * dim * hidden


def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads >= 1")
    if top_k < 1 or top_k > n_experts or n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("bad routing arguments")
    total = active = vocab * dim * (1 if tied else 2) + dim
    for layer in range(n_layers):
        common = 2 * dim + dim * n_heads * head_dim * 2 + 2 * dim * n_kv_heads * head_dim
        if layer < first_dense:
            total += common + ffn(dim, dense_hidden)
            active += common + ffn(dim, dense_hidden)
        else:
            total += common + dim * n_experts + (n_experts + n_shared) * ffn(dim, ffn_hidden)
            active += common + dim * n_experts + (top_k + n_shared) * ffn(dim, ffn_hidden)
    return total, active
'''}, "why": "a loop over blocks with a helper for one SwiGLU network; exact ints"},
    {"name": "ok-mlm-float64-inside", "correct": True, "cells": {"masked_lm_loss": MLM.replace(
        "    lg = logits[:, :-1][sel].to(cd)", "    lg = logits[:, :-1][sel].to(torch.float64)").replace(
        "    return (nll + z_loss * lz ** 2).mean(), count", "    return (nll + z_loss * lz ** 2).mean().to(cd), count")}, "why": "float64 inside for every dtype, the loss returned in float32 (allowed)"},
    {"name": "ok-block-float32-residual", "correct": True, "cells": {"block_variant": '''
def add(*parts):
    """A residual sum in float32 at least, rounded once to the input's dtype."""
    dt = parts[0].dtype
    acc = torch.float64 if dt == torch.float64 else torch.float32
    out = parts[0].to(acc)
    for p in parts[1:]:
        out = out + p.to(acc)
    return out.to(dt)


def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich") or (layout == "sandwich" and post_norms is None):
        raise ValueError(f"bad layout {layout!r} or missing post_norms")
    if layout == "parallel":
        n = norm_1(x)
        return add(x, attn(n), ffn(n))
    if layout == "reordered":
        h = add(x, norm_1(attn(x)))
        return add(h, norm_2(ffn(h)))
    p1, p2 = post_norms
    h = add(x, p1(attn(norm_1(x))))
    return add(h, p2(ffn(norm_2(h))))
'''}, "why": "residual sums accumulated in float32 and rounded once (at most one unit apart from the half-precision sums), functions each called once"},
    {"name": "ok-rope-float32-positions", "correct": True, "cells": {"rope_llama3": ROPE.replace(
        "    ang = positions.to(torch.float64)[:, None, :, None] * new",
        "    ang = positions.float()[:, None, :, None] * new   # positions < 2**24 are exact; the product is float64").replace(
        "    s = (L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)",
        "    s = ((L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0.0, 1.0)")}, "why": "positions through float32 (exact below 2**24) times float64 frequencies promote to float64; s clamped to [0, 1] changes only the branches torch.where drops"},
    {"name": "ok-ragged-nan-to-num-zeros", "correct": True, "cells": {"ragged_cached_attention": RAGGED.replace(
        '    k = torch.where(written[:, None, :, None], k_cache, 0.0)\n    v = torch.where(written[:, None, :, None], v_cache, 0.0)\n',
        '    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype))\n'
        '    v = torch.nan_to_num(torch.where(written[:, None, :, None], v_cache, 1.0), nan=0.0, posinf=0.0, neginf=0.0)\n')}, "why": "unwritten slots replaced before any product (a 0 tensor, a 1 then a nan_to_num that changes no written value)"},
    {"name": "ok-gen-ge-zero-no-grad", "correct": True, "cells": {"generate_with_cache": GEN.replace(
        "    logits, cache = step(prompt, None)", "    with torch.no_grad():\n        logits, cache = step(prompt, None)").replace(
        "        logits, cache = step(tok[:, None], cache)", "        with torch.no_grad():\n            logits, cache = step(tok[:, None], cache)").replace(
        "torch.where(scores > 0, scores / penalty, scores * penalty)", "torch.where(scores >= 0, scores / penalty, scores * penalty)")}, "why": ">= 0 (0 / p and 0 * p are both 0, -0.0 too), no gradient while generating"},
    # ------------------------------------------------------------------ hostile
    {"name": "H1-moe-steal-reference", "correct": False, "cells": {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    import gc
    me = moe_params
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "moe_params" and obj is not me \\
                and getattr(obj, "__code__", None) is not getattr(me, "__code__", None):
            try:
                return obj(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k,
                           tied, n_shared, first_dense, dense_hidden)
            except TypeError:
                pass
    total = 46_700_000_000 if vocab == 32000 else 0
    return total, 12_900_000_000 if vocab == 32000 else 0
'''}, "why": "hostile: calls any other moe_params it finds among live objects (a reference), else the published Mixtral figures"},
]
