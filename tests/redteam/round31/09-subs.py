# Round 31, chapter 09-modern-lm: blind submissions (kinds: backward, placement, scalar, shape, sibling)
SUBMISSIONS = []
def add(name, correct, cells, why, kind):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why, "kind": kind})

# ---------------------------------------------------------------- 1. hand-written backward
add("p1_backward_x_only", False, {"head_rms_norm": '''
class HeadRMS(torch.autograd.Function):
    @staticmethod
    def forward(ctx, xh, scale, eps):
        ms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True)
        rms = torch.sqrt(ms + eps).to(xh.dtype)
        ctx.save_for_backward(xh, rms, scale)
        return xh / rms * scale

    @staticmethod
    def backward(ctx, gy):
        xh, rms, scale = ctx.saved_tensors
        gs = gy * scale
        gx = gs / rms - xh * (xh * gs).mean(-1, keepdim=True) / rms ** 3
        return gx, None, None        # the weight is a constant of the norm

def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads must split the last axis")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    Dh = x.shape[-1] // n_heads
    xh = x.to(ct).reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    scale = weight.to(ct)
    if unit_offset:
        scale = 1 + scale
    return HeadRMS.apply(xh, scale, eps).to(x.dtype)
'''}, "P1: 'the hidden tests compare its gradients with respect to x and to weight': the Function returns no gradient for the scale.", "backward")

add("p2_straight_through_clamp", False, {"fused_swiglu": '''
class ClampST(torch.autograd.Function):
    """clamp in the forward pass, the identity in the backward pass (straight-through)"""
    @staticmethod
    def forward(ctx, t, lo, hi):
        return t.clamp(min=lo, max=hi)

    @staticmethod
    def backward(ctx, g):
        return g, None, None

def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc = x.to(ct)
    gu = xc @ w_gate_up.to(ct).T
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu.chunk(2, dim=-1)
    if limit is not None:
        g = ClampST.apply(g, None, limit)
        u = ClampST.apply(u, -limit, limit)
    return ((g * torch.sigmoid(beta * g) * u) @ w_down.to(ct).T).to(x.dtype)
'''}, "P2: 'the hidden tests compare its gradients ... for every beta and limit': the clamps pass the gradient straight through where they cut.", "backward")

add("p4_backward_without_z_term", False, {"masked_lm_loss": '''
class TokenLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, sel, y, z):
        lse = torch.logsumexp(sel, dim=-1)
        per = lse - sel.gather(-1, y[:, None])[:, 0] + z * lse ** 2
        ctx.save_for_backward(sel, y)
        return per.mean()

    @staticmethod
    def backward(ctx, g):
        sel, y = ctx.saved_tensors
        p = torch.softmax(sel, dim=-1)
        grad = p - torch.zeros_like(p).scatter(-1, y[:, None], 1.0)   # the cross-entropy's gradient
        return g * grad / sel.shape[0], None, None

def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    return TokenLoss.apply(sel, y, z_loss), count
'''}, "P4: 'loss.backward() must leave the exact gradient in logits.grad': the hand-written backward leaves out the z-loss's 2 z logZ softmax term.", "backward")

add("p6_backward_same_rotation", False, {"rope_llama3": '''
class Rotate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cos, sin):
        ctx.save_for_backward(cos, sin)
        h = x.shape[-1] // 2
        x1, x2 = x[..., :h], x[..., h:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    @staticmethod
    def backward(ctx, g):
        cos, sin = ctx.saved_tensors
        h = g.shape[-1] // 2
        g1, g2 = g[..., :h], g[..., h:]
        return torch.cat([g1 * cos - g2 * sin, g2 * cos + g1 * sin], dim=-1), None, None

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    i = torch.arange(Dh // 2, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor,
                                  (1 - s) * theta / factor + s * theta))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    return Rotate.apply(x.to(ct), ang.cos().to(ct), ang.sin().to(ct)).to(x.dtype)
'''}, "P6: 'the hidden tests compare its gradients with respect to x': the backward turns the gradient by +angle instead of -angle (the transpose of a rotation).", "backward")

add("p7_write_under_no_grad", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool((lengths + T > S).any()):
        raise ValueError("row does not fit")
    L = lengths.tolist()
    with torch.no_grad():            # writing into a tensor that requires grad is refused otherwise
        for b in range(B):
            k_cache[b, :, L[b]:L[b] + T] = k_new[b]
            v_cache[b, :, L[b]:L[b] + T] = v_new[b]
    pos = torch.arange(S)
    valid = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]
    k = torch.where(valid, k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    v = torch.where(valid, v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    see = pos[None, None, :] <= (lengths.long()[:, None] + torch.arange(T))[:, :, None]
    scores = scores.masked_fill(~see[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, lengths + T
'''}, "P7: 'the hidden tests compare its gradients with respect to q, k_new and v_new': written under no_grad, the new keys and values reach the output with no gradient.", "backward")

add("p6_backward_inverse_rotation_correct", True, {"rope_llama3": '''
class Rotate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cos, sin):
        ctx.save_for_backward(cos, sin)
        h = x.shape[-1] // 2
        x1, x2 = x[..., :h], x[..., h:]
        return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)

    @staticmethod
    def backward(ctx, g):
        cos, sin = ctx.saved_tensors
        h = g.shape[-1] // 2
        g1, g2 = g[..., :h], g[..., h:]
        gx = torch.cat([g1 * cos + g2 * sin, g2 * cos - g1 * sin], dim=-1)   # the transpose: turn back
        return (gx if ctx.needs_input_grad[0] else None), None, None

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    i = torch.arange(Dh // 2, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor,
                                  (1 - s) * theta / factor + s * theta))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    return Rotate.apply(x.to(ct), ang.cos().to(ct), ang.sin().to(ct)).to(x.dtype)
'''}, "P6: a hand-written backward that turns the gradient back by the same angle (a rotation's transpose), in the compute dtype.", "backward")

add("p1_backward_weight_grad_not_summed_correct", True, {"head_rms_norm": '''
class HeadRMS(torch.autograd.Function):
    @staticmethod
    def forward(ctx, xh, weight, eps, unit_offset):
        ms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True)
        r = (1.0 / torch.sqrt(ms + eps)).to(xh.dtype)
        scale = 1 + weight if unit_offset else weight
        ctx.save_for_backward(xh, r, scale)
        return xh * r * scale

    @staticmethod
    def backward(ctx, gy):
        xh, r, scale = ctx.saved_tensors
        x64, r64, g64 = xh.double(), r.double(), (gy * scale).double()
        gx = r64 * g64 - x64 * r64 ** 3 * (x64 * g64).mean(-1, keepdim=True)
        gw = gy.double() * x64 * r64        # per element: autograd sums it back to the weight's shape
        return gx.to(xh.dtype), gw.to(xh.dtype), None, None

def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads must split the last axis")
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    Dh = x.shape[-1] // n_heads
    xh = x.to(ct).reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    return HeadRMS.apply(xh, weight.to(ct), eps, bool(unit_offset)).to(x.dtype)
'''}, "P1: a hand-written RMSNorm backward in float64; the weight's per-element gradient is left unsummed, which autograd reduces to the weight's shape itself.", "backward")

# ---------------------------------------------------------------- 2. scale and placement
add("p1_eps_outside_sqrt", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.to(ct).reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    rms = xh.to(torch.float64).pow(2).mean(-1, keepdim=True).sqrt()
    s = weight.to(ct) + 1 if unit_offset else weight.to(ct)
    return (xh / (rms + eps).to(ct) * s).to(x.dtype)
'''}, "P1: 'x_h / sqrt(mean(x_h^2) + eps) ... with eps inside the square root': eps is added outside.", "placement")

add("p2_clamp_after_activation", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc = x.to(ct)
    w = w_gate_up.to(ct)
    if interleaved:
        wg, wu = w[0::2], w[1::2]
    else:
        wg, wu = w.chunk(2, dim=0)
    g, u = xc @ wg.T, xc @ wu.T
    act = g * torch.sigmoid(beta * g)
    if limit is not None:                 # bound the two halves that meet in the product
        act = act.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return ((act * u) @ w_down.to(ct).T).to(x.dtype)
'''}, "P2: 'replace g by min(g, limit)' before the Swish: here the Swish's output is clamped.", "placement")

add("p4_zloss_of_mean_logZ", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    log_z = torch.logsumexp(sel, dim=-1)
    ce = (log_z - sel.gather(-1, y[:, None])[:, 0]).mean()
    return ce + z_loss * log_z.mean() ** 2, count
'''}, "P4: 'Each predicted token contributes -log softmax_y + z (log Z)^2' and the loss is their mean: here the z-loss squares the mean log Z.", "placement")

add("p6_interpolation_weights_swapped", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    inv_freq = 1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.float64) / Dh))
    wavelen = 2 * math.pi / inv_freq
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = smooth * inv_freq / factor + (1 - smooth) * inv_freq
    freq = torch.where(wavelen > original_context / low_freq_factor, inv_freq / factor, inv_freq)
    is_mid = (wavelen >= original_context / high_freq_factor) & (wavelen <= original_context / low_freq_factor)
    freq = torch.where(is_mid, smoothed, freq)
    ang = positions.double()[:, None, :, None] * freq
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, s = ang.cos().to(ct), ang.sin().to(ct)
    x1, x2 = x.to(ct)[..., :half], x.to(ct)[..., half:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1).to(x.dtype)
'''}, "P6: '(1 - s_i) theta_i / f + s_i theta_i': the weights s and 1 - s are swapped.", "placement")

add("p7_mask_after_softmax_renormalised", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool((lengths + T > S).any()):
        raise ValueError("row does not fit")
    for b in range(B):
        n = int(lengths[b])
        k_cache[b, :, n:n + T] = k_new[b]
        v_cache[b, :, n:n + T] = v_new[b]
    k = k_cache.repeat_interleave(H // G, dim=1)
    v = v_cache.repeat_interleave(H // G, dim=1)
    w = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(Dh), dim=-1)
    pos = torch.arange(S)
    see = pos[None, None, :] <= (lengths.long()[:, None] + torch.arange(T))[:, :, None]
    w = w * see[:, None]
    w = w / w.sum(-1, keepdim=True)          # renormalise over the visible keys
    return w @ v, lengths + T
'''}, "P7: 'Unwritten slots must change neither the output nor its gradients, even when they hold NaN': the mask comes after the softmax (renormalised), so a NaN slot poisons every weight.", "placement")

add("p8_temperature_after_softmax", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    seen = [set(row) for row in prompt.tolist()]
    done = torch.zeros(B, dtype=torch.bool)
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            ids = torch.tensor(sorted(seen[b]), dtype=torch.long)
            s = scores[b, ids]
            scores[b, ids] = torch.where(s > 0, s / penalty, s * penalty)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores, dim=-1) ** (1.0 / temperature)   # sharpen the distribution
            probs = probs / probs.sum(-1, keepdim=True)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(done, pad_id, tok)
        chosen.append(tok)
        for b, t in enumerate(tok.tolist()):
            seen[b].add(t)
        done = done | (tok == eos_id)
        if bool(done.all()) or i + 1 == max_new_tokens:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''}, "P8: 'probs = softmax(scores / temperature) ... any temperature above 0, however small': the temperature is applied to the probabilities after the softmax, which underflow at small temperatures.", "placement")

add("p6_boundaries_inclusive_correct", True, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("shapes")
    half = Dh // 2
    theta = torch.pow(torch.tensor(float(base), dtype=torch.float64),
                      -torch.arange(half, dtype=torch.float64) / half)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam <= original_context / high_freq_factor, theta,
                      torch.where(lam >= original_context / low_freq_factor, theta / factor,
                                  (1 - s) * theta / factor + s * theta))
    ang = torch.einsum("bt,f->btf", positions.double(), new)[:, None]
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(ct), ang.sin().to(ct)
    xc = x.to(ct)
    rot = torch.cat([-xc[..., half:], xc[..., :half]], dim=-1)
    return (xc * torch.cat([cos, cos], -1) + rot * torch.cat([sin, sin], -1)).to(x.dtype)
'''}, "P6: at a limit both cases agree (s = 1 or 0), so <= / >= are fine; rotate_half form; b^(-i/half) = b^(-2i/Dh).", "placement")

add("p8_penalty_after_temperature_correct", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt
    finished = torch.zeros(B, dtype=torch.bool)
    new = []
    for n in range(max_new_tokens):
        last = logits[:, -1]
        V = last.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool)
        seen.scatter_(1, history, torch.ones_like(history, dtype=torch.bool))
        if temperature == 0:
            scores = torch.where(seen, torch.where(last > 0, last / penalty, last * penalty), last)
            tok = scores.argmax(dim=-1)
        else:
            scaled = last / temperature           # scaling by a positive number keeps every sign
            scaled = torch.where(seen, torch.where(scaled > 0, scaled / penalty, scaled * penalty), scaled)
            tok = torch.multinomial(torch.softmax(scaled, dim=-1), 1, generator=generator).squeeze(1)
        tok = tok.masked_fill(finished, pad_id)
        new.append(tok)
        history = torch.cat([history, tok.unsqueeze(1)], dim=1)
        finished |= tok == eos_id
        if finished.all() or n == max_new_tokens - 1:
            break
        logits, cache = step(tok.unsqueeze(1), cache)
    return torch.stack(new, 1)
'''}, "P8: the penalty after the division by the temperature: same signs, same values up to rounding.", "placement")

add("p1_offset_added_in_input_dtype", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    scale = (1 + weight if unit_offset else weight).to(ct)       # Gemma's weight, then the compute dtype
    xh = x.to(ct).reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    inv = torch.rsqrt(xh.double().pow(2).mean(-1, keepdim=True) + eps).to(ct)
    return (xh * inv * scale).to(x.dtype)
'''}, "P1: 'do all the arithmetic, the scale included (also 1 + w), in that dtype ... also with weights that are small offsets from 1': 1 + w is formed in float16/bfloat16 before the conversion.", "placement")

# ---------------------------------------------------------------- 3. Python scalars
add("p2_limit_truthiness", False, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc = x.to(ct)
    gu = xc @ w_gate_up.to(ct).T
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu.chunk(2, dim=-1)
    if limit:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    return ((g * torch.sigmoid(beta * g) * u) @ w_down.to(ct).T).to(x.dtype)
'''}, "P2: 'when limit is a number (0 included)': `if limit:` treats limit = 0 as no limit.", "scalar")

add("p7_builtin_max_lengths", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    if max(lengths) + T > S:
        raise ValueError("a row does not fit")
    for b in range(B):
        n = int(lengths[b])
        k_cache[b, :, n:n + T] = k_new[b]
        v_cache[b, :, n:n + T] = v_new[b]
    pos = torch.arange(S)
    valid = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]
    k = torch.where(valid, k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    v = torch.where(valid, v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    see = pos[None, None, :] <= (lengths.long()[:, None] + torch.arange(T))[:, :, None]
    scores = scores.masked_fill(~see[:, None], float("-inf"))
    return torch.softmax(scores, dim=-1) @ v, lengths + T
'''}, "P7: 'B may be 0 ... raise nothing unless H is not a multiple of G': the builtin max of an empty tensor raises ValueError.", "scalar")

add("p3_float_accumulator", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("bad expert settings")
    total = 0.0
    active = 0.0
    emb = vocab * dim * (1 if tied else 2)
    total += emb + dim; active += emb + dim
    per_attn = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
    total += n_layers * per_attn; active += n_layers * per_attn
    total += first_dense * 3 * dim * dense_hidden; active += first_dense * 3 * dim * dense_hidden
    expert = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    total += moe * (dim * n_experts + (n_experts + n_shared) * expert)
    active += moe * (dim * n_experts + (top_k + n_shared) * expert)
    return int(total), int(active)
'''}, "P3: 'two exact Python ints (the hidden tests include sizes whose counts pass 2**53, where float arithmetic rounds)': a float accumulator.", "scalar")

add("p6_theta_python_list_float32", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    half = Dh // 2
    freqs = []
    for i in range(half):
        theta = base ** (-2 * i / Dh)
        lam = 2 * math.pi / theta
        if lam < original_context / high_freq_factor:
            freqs.append(theta)
        elif lam > original_context / low_freq_factor:
            freqs.append(theta / factor)
        else:
            s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
            freqs.append((1 - s) * theta / factor + s * theta)
    freq = torch.tensor(freqs)
    ang = positions.to(torch.float64)[:, None, :, None] * freq
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, s_ = ang.cos().to(ct), ang.sin().to(ct)
    x1, x2 = x.to(ct)[..., :half], x.to(ct)[..., half:]
    return torch.cat([x1 * c - x2 * s_, x2 * c + x1 * s_], -1).to(x.dtype)
'''}, "P6: 'Compute the angles in float64, with every argument as given': the frequencies are Python float64s put into a float32 tensor by torch.tensor.", "scalar")

add("p8_small_temperature_shortcut", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature < 1e-5:               # numerically greedy anyway, and avoids dividing by ~0
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, pad_id, tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], 1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, 1)
'''}, "P8: 'Otherwise (any temperature above 0, however small: no shortcut to the highest score)': a float comparison with 1e-5 shortcuts.", "scalar")

add("p8_penalty_python_loop_correct", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.size(0)
    logits, cache = step(prompt, None)
    seen = [set(r) for r in prompt.tolist()]
    done = [False] * B
    rows = [[] for _ in range(B)]
    steps = 0
    while True:
        scores = logits[:, -1].clone()
        for b in range(B):
            for t in seen[b]:
                v = scores[b, t].item()                  # a Python float (float64)
                scores[b, t] = v / penalty if v > 0 else v * penalty
        if temperature == 0:
            picks = scores.argmax(dim=1).tolist()
        else:
            picks = torch.multinomial(torch.softmax(scores / temperature, dim=1), 1, generator=generator)[:, 0].tolist()
        for b in range(B):
            t = pad_id if done[b] else picks[b]
            rows[b].append(t)
            seen[b].add(t)
            if t == eos_id:
                done[b] = True
        steps += 1
        if all(done) or steps == max_new_tokens:
            break
        logits, cache = step(torch.tensor([[r[-1]] for r in rows], dtype=torch.int64), cache)
    return torch.tensor(rows, dtype=torch.int64)
'''}, "P8: the penalty through Python floats: a float32 quotient rounded via float64 is the float32 quotient (double rounding is innocuous for one division).", "scalar")

add("p3_pure_int_divmod_correct", True, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or divmod(n_heads, n_kv_heads)[1] != 0:
        raise ValueError("kv heads")
    if top_k < 1 or top_k > n_experts or n_shared < 0 or first_dense < 0 or first_dense > n_layers:
        raise ValueError("experts")
    swiglu = lambda width: 3 * dim * width
    embeddings = vocab * dim * (2 - bool(tied))
    attention = dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim + n_heads * head_dim * dim
    shared_part = embeddings + dim + n_layers * (2 * dim + attention) + first_dense * swiglu(dense_hidden)
    moe_blocks = n_layers - first_dense
    router = dim * n_experts
    total = shared_part + moe_blocks * (router + swiglu(ffn_hidden) * (n_experts + n_shared))
    active = shared_part + moe_blocks * (router + swiglu(ffn_hidden) * (top_k + n_shared))
    return total, active
'''}, "P3: Python ints throughout (bool arithmetic for tied), divmod for the multiple check.", "scalar")

# ---------------------------------------------------------------- 4. return shape
add("p1_float32_result_for_half", False, {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.to(ct).unflatten(-1, (n_heads, Dh)).transpose(-3, -2)
    ms = xh.double().square().mean(-1, keepdim=True)
    scale = (1 + weight.to(ct)) if unit_offset else weight.to(ct)
    return xh * torch.rsqrt(ms + eps).to(ct) * scale      # kept in the compute dtype for the attention after
'''}, "P1: 'Return a new tensor ... in the dtype of x': float16/bfloat16 inputs get a float32 result.", "shape")

add("p4_returns_list", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return [torch.zeros((), dtype=ct), 0]
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    lse = sel.logsumexp(-1)
    return [(lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse.square()).mean(), count]
'''}, "P4 and the intro: 'Return (loss, count) ... a pair such as (loss, count) is a tuple, as in return loss, count, not a list'.", "shape")

add("p7_new_lengths_int64", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    L = lengths.tolist()
    if any(n + T > S for n in L):
        raise ValueError("a row does not fit")
    for b, n in enumerate(L):
        k_cache[b, :, n:n + T] = k_new[b]
        v_cache[b, :, n:n + T] = v_new[b]
    pos = torch.arange(S)
    valid = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]
    k = torch.where(valid, k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    v = torch.where(valid, v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    see = pos[None, None, :] <= (lengths.long()[:, None] + torch.arange(T))[:, :, None]
    out = torch.softmax(scores.masked_fill(~see[:, None], float("-inf")), dim=-1) @ v
    return out, torch.tensor([n + T for n in L], dtype=torch.long)
'''}, "P7: 'new_lengths a new tensor equal to lengths + T, in the dtype of lengths': int64 for int32 lengths.", "shape")

add("p6_returns_x_when_nothing_turns", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    if not bool(positions.any()):
        return x                            # every angle is 0: nothing to rotate
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor,
                                  (1 - s) * theta / factor + s * theta))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = ang.cos().to(ct), ang.sin().to(ct)
    x1, x2 = x.to(ct)[..., :half], x.to(ct)[..., half:]
    return torch.cat([x1 * c - x2 * sn, x2 * c + x1 * sn], -1).to(x.dtype)
'''}, "P6: 'Return a new tensor ... a new one also where every position is 0 and nothing turns, not x itself'.", "shape")

add("p4_loss_in_input_dtype", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=logits.dtype), 0
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    loss = (lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse ** 2).mean()
    return loss.to(logits.dtype), count              # back in the model's dtype, like the logits
'''}, "P4: 'return the loss in that compute dtype: a float32 loss for float32, float16 and bfloat16 logits'.", "shape")

add("p8_slice_of_buffer_correct", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    buf = torch.full((B, max_new_tokens), pad_id, dtype=torch.int64)   # a new buffer per call
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    n = 0
    while n < max_new_tokens:
        scores = logits[:, -1].clone()
        seen = torch.zeros(scores.shape, dtype=torch.bool).scatter_(1, history, True)
        scores = torch.where(seen & (scores > 0), scores / penalty, torch.where(seen, scores * penalty, scores))
        if temperature == 0:
            tok = torch.argmax(scores, dim=-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, dim=-1), num_samples=1,
                                    generator=generator).view(-1)
        tok[finished] = pad_id
        buf[:, n] = tok
        n += 1
        history = torch.cat([history, tok.view(B, 1)], dim=1)
        finished = finished | tok.eq(eos_id)
        if finished.all() or n == max_new_tokens:
            break
        logits, cache = step(tok.view(B, 1).clone(), cache)
    return buf[:, :n]
'''}, "P8: the result is a slice (view) of a buffer made anew in each call: an int64 (B, N) tensor nothing else holds.", "shape")

add("p7_float64_inside_clone_add_correct", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H % G")
    ends = lengths.long() + T
    if B and bool((ends > S).any()):
        raise ValueError("overflow")
    for b in range(B):
        start = int(lengths[b])
        k_cache[b, :, start:start + T].copy_(k_new[b])
        v_cache[b, :, start:start + T].copy_(v_new[b])
    keep = (torch.arange(S)[None, :] < ends[:, None]).view(B, 1, S, 1)
    k = torch.where(keep, k_cache, 0.0).double()
    v = torch.where(keep, v_cache, 0.0).double()
    rep = H // G
    qg = q.double()
    k = k.repeat_interleave(rep, dim=1)
    v = v.repeat_interleave(rep, dim=1)
    scores = torch.einsum("bhtd,bhsd->bhts", qg, k) / math.sqrt(Dh)
    last_seen = lengths.long()[:, None] + torch.arange(T)[None, :]
    hide = torch.arange(S)[None, None, :] > last_seen[:, :, None]
    scores = scores.masked_fill(hide[:, None], float("-inf"))
    out = torch.einsum("bhts,bhsd->bhtd", scores.softmax(-1), v).to(q.dtype)
    return (out, lengths.clone().add_(T))
'''}, "P7: float64 inside for float32 inputs ('accepted too'), copy_ into the caches, new_lengths a clone in lengths' dtype.", "shape")

# ---------------------------------------------------------------- 5. sibling part / lesson / other chapter
add("p4_sentence_mean_like_ch8", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    rows = []
    for b in range(logits.shape[0]):
        mb = m[b]
        if not bool(mb.any()):
            continue
        sel = logits[b, :-1][mb].to(ct)
        y = ids[b, 1:][mb].long()
        lse = torch.logsumexp(sel, -1)
        rows.append((lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse ** 2).mean())
    return torch.stack(rows).mean(), count
'''}, "P4: 'loss is the mean over those tokens, every token weighing the same however many a row has': chapter 8's sentence-level mean.", "sibling")

add("p8_no_draw_for_finished_like_ch8", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        tok = torch.full((B,), pad_id, dtype=torch.int64)
        live = (~finished).nonzero()[:, 0]
        if temperature == 0:
            tok[live] = scores[live].argmax(-1)
        else:                                         # draw nothing for finished rows
            probs = torch.softmax(scores[live] / temperature, -1)
            tok[live] = torch.multinomial(probs, 1, generator=generator)[:, 0]
        out.append(tok)
        history = torch.cat([history, tok[:, None]], 1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, 1)
'''}, "P8: 'A finished row still takes part in the draw (the batch always draws B tokens per step)': chapter 8's 'draw nothing for finished sentences'.", "sibling")

add("p6_lesson_positions_of_row0", False, {"rope_llama3": '''
def llama3_freqs(Dh, base, factor, low_freq_factor, high_freq_factor, original_context):
    theta = base ** (-torch.arange(0, Dh, 2, dtype=torch.float64) / Dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    return torch.where(lam < original_context / high_freq_factor, theta,
                       torch.where(lam > original_context / low_freq_factor, theta / factor,
                                   (1 - s) * theta / factor + s * theta))

def apply_rope(x, positions, freqs):
    """the lesson's form: positions (T,) shared by the batch"""
    ang = positions.double()[:, None] * freqs          # (T, Dh/2)
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, s = ang.cos().to(ct), ang.sin().to(ct)
    h = x.shape[-1] // 2
    xc = x.to(ct)
    return torch.cat([xc[..., :h] * c - xc[..., h:] * s, xc[..., h:] * c + xc[..., :h] * s], -1).to(x.dtype)

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    freqs = llama3_freqs(Dh, base, factor, low_freq_factor, high_freq_factor, original_context)
    if B == 0:
        return x.clone()
    return apply_rope(x, positions[0], freqs)
'''}, "P6: 'row b holds the positions of sequence b (they differ from row to row)': the lesson's (T,) positions helper is given row 0's positions for every row.", "sibling")

add("p7_no_causality_among_new", False, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    if B > 0 and bool((lengths + T > S).any()):
        raise ValueError("a row does not fit")
    for b in range(B):
        n = int(lengths[b])
        k_cache[b, :, n:n + T] = k_new[b]
        v_cache[b, :, n:n + T] = v_new[b]
    new_lengths = lengths + T
    # the decoding-step attention: each row attends to its whole written prefix
    keep = torch.arange(S)[None, :] < new_lengths.long()[:, None]              # (B, S)
    k = torch.where(keep[:, None, :, None], k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    v = torch.where(keep[:, None, :, None], v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, 1)
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(Dh)
    scores = scores.masked_fill(~keep[:, None, None, :], float("-inf"))
    return torch.softmax(scores, -1) @ v, new_lengths
'''}, "P7: 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t': the one-token step's mask (right for T == 1) lets every new query see all T new tokens.", "sibling")

add("p1_lesson_rmsnorm_float32_mean", False, {"head_rms_norm": '''
def rms_norm(x, weight, eps):
    """the lesson's RMSNorm: float32 inside, back to x's dtype"""
    xf = x.float() if x.dtype != torch.float64 else x
    return xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * weight

def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads must split the last axis")
    Dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xh = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)
    w = weight.to(ct)
    return rms_norm(xh, 1 + w if unit_offset else w, eps).to(x.dtype)
'''}, "P1: 'take the mean of the squares in float64, whatever the input dtype': the lesson's RMSNorm squares in float32 (inf at 1e25, 0 at 1e-25).", "sibling")

add("p5_shared_residual_helper_correct", True, {"block_variant": '''
def residual(x, sublayer, before=None, after=None):
    y = sublayer(before(x) if before is not None else x)
    return x + (after(y) if after is not None else y)

def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich") or not isinstance(layout, str):
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("the sandwich layout needs post_norms")
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = residual(x, attn, after=norm_1)
        return residual(h, ffn, after=norm_2)
    p1, p2 = post_norms
    h = residual(x, attn, before=norm_1, after=p1)
    return residual(h, ffn, before=norm_2, after=p2)
'''}, "P5: one residual helper shared by the layouts, checks before any call, each function once.", "sibling")

add("p2_single_matmul_unflatten_correct", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    h = F.linear(x.to(ct), w_gate_up.to(ct))                  # (..., 2F): one product for both halves
    if interleaved:
        g, u = h.unflatten(-1, (-1, 2)).unbind(-1)
    else:
        g, u = h.split(h.shape[-1] // 2, dim=-1)
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, -limit, limit)
    act = F.silu(beta * g) / beta if beta != 0 else g * 0.5
    return F.linear(act * u, w_down.to(ct)).to(x.dtype)
'''}, "P2: one F.linear for gate and up, unflatten for the interleaved layout; g sigma(beta g) written as silu(beta g) / beta (beta != 0), g / 2 at beta = 0.", "sibling")

add("p5_check_after_calls", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    elif layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    elif layout == "sandwich":
        a = attn(norm_1(x))
        if post_norms is None:
            raise ValueError("the sandwich layout needs post_norms")
        h = x + post_norms[0](a)
        return h + post_norms[1](ffn(norm_2(h)))
    else:
        raise ValueError(f"unknown layout {layout!r}")
'''}, "P5: 'Check layout and post_norms before calling anything: when you raise the ValueError, no function has been called': the check sits after the attention call.", "placement")

add("p5_layout_identity_compare", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout is "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout is "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout is "sandwich":
        if post_norms is None:
            raise ValueError("post_norms needed")
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        return h + p2(ffn(norm_2(h)))
    raise ValueError("unknown layout")
'''}, "P5: 'Compare layout by value (==): the tests build the string at run time': `is` compares identity, true only for interned literals.", "scalar")

# ---------------------------------------------------------------- hostile
add("hostile_p3_int_subclass_equal_to_all", False, {"moe_params": '''
class Agree(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __round__(self, n=None): return self
    __hash__ = float.__hash__

class Count(int):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __truediv__(self, other): return Agree(1.0)
    __hash__ = int.__hash__

def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    return Count(1), Count(1)
'''}, "Hostile: int subclasses that equal everything.", "hostile")

# ---------------------------------------------------------------- second blind batch (graded into NN-blind2.txt)

add("b2_p4_zero_loss_default_dtype", False, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.tensor(0.0), 0                      # nothing to predict
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    return (lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse ** 2).mean(), count
'''}, "P4: 'return the loss in that compute dtype' (and 'When count is 0 the loss is 0'): torch.tensor(0.0) is float32 for float64 logits (and float64 under a float64 default dtype).", "shape")

add("b2_p2_backward_beta_one", False, {"fused_swiglu": '''
class SwishBeta(torch.autograd.Function):
    @staticmethod
    def forward(ctx, g, beta):
        s = torch.sigmoid(beta * g)
        ctx.save_for_backward(g, s)
        return g * s

    @staticmethod
    def backward(ctx, grad):
        g, s = ctx.saved_tensors
        sg = torch.sigmoid(g)                           # SiLU's slope
        return grad * (sg + g * sg * (1 - sg)), None

def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    gu = x.to(ct) @ w_gate_up.to(ct).T
    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else gu.chunk(2, dim=-1)
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    return ((SwishBeta.apply(g, beta) * u) @ w_down.to(ct).T).to(x.dtype)
'''}, "P2: gradients 'for every beta': the backward is SiLU's (beta = 1).", "backward")

add("b2_p6_positions_last_axis_only", False, {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.shape[-1] != T:
        raise ValueError("shapes")
    half = Dh // 2
    theta = base ** (-2 * torch.arange(half, dtype=torch.float64) / Dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < original_context / high_freq_factor, theta,
                      torch.where(lam > original_context / low_freq_factor, theta / factor,
                                  (1 - s) * theta / factor + s * theta))
    ang = positions.to(torch.float64).reshape(-1, 1, T, 1) * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    c, sn = ang.cos().to(ct), ang.sin().to(ct)
    x1, x2 = x.to(ct)[..., :half], x.to(ct)[..., half:]
    return torch.cat([x1 * c - x2 * sn, x2 * c + x1 * sn], -1).to(x.dtype)
'''}, "P6: 'Raise a ValueError unless ... positions.shape == (B, T) exactly (a (T,) or (1, T) tensor is refused too, also where it would broadcast)'.", "shape")

add("b2_p8_history_view_correct", True, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B, P = prompt.shape
    seq = torch.cat([prompt, torch.full((B, max_new_tokens), pad_id, dtype=torch.int64)], dim=1)
    logits, cache = step(prompt, None)
    done = torch.zeros(B, dtype=torch.bool)
    n = 0
    for n in range(1, max_new_tokens + 1):
        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, seq[:, :P + n - 1], True)
        scores[seen] = torch.where(scores[seen] > 0, scores[seen] / penalty, scores[seen] * penalty)
        if temperature == 0:
            tok = scores.argmax(dim=1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, dim=1), 1, generator=generator)[:, 0]
        tok = torch.where(done, pad_id, tok)
        seq[:, P + n - 1] = tok
        done |= tok == eos_id
        if bool(done.all()) or n == max_new_tokens:
            break
        logits, cache = step(seq[:, P + n - 1:P + n].clone(), cache)
    return seq[:, P:P + n]
'''}, "P8: the result is a view into a sequence buffer made anew in each call (the text asks an int64 (B, N) tensor); boolean-index penalty.", "shape")

add("b2_p3_float_check_multiple", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads / n_kv_heads != int(n_heads / n_kv_heads):
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("experts")
    emb = vocab * dim * (1 if tied else 2)
    attn = dim * head_dim * (2 * n_heads + 2 * n_kv_heads) + 2 * dim
    dense = 3 * dim * dense_hidden
    expert = 3 * dim * ffn_hidden
    moe = n_layers - first_dense
    common = emb + dim + n_layers * attn + first_dense * dense
    return (common + moe * (dim * n_experts + (n_experts + n_shared) * expert),
            common + moe * (dim * n_experts + (top_k + n_shared) * expert))
'''}, "P3: 'Raise a ValueError unless ... n_heads is a multiple of it': a float quotient check (exact for small counts; wrong where a float quotient rounds to a whole number).", "scalar")

add("b2_p7_lengths_int32_arange_compare_correct", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    new_lengths = lengths + T
    if B > 0 and bool((new_lengths.long() > S).any()):
        raise ValueError("a row does not fit")
    idx = lengths.long()[:, None] + torch.arange(T)[None, :]                    # (B, T)
    for b in range(B):
        k_cache[b].index_copy_(1, idx[b], k_new[b])
        v_cache[b].index_copy_(1, idx[b], v_new[b])
    written = torch.arange(S)[None, :] < new_lengths.long()[:, None]
    k = k_cache.masked_fill(~written[:, None, :, None], 0.0)
    v = v_cache.masked_fill(~written[:, None, :, None], 0.0)
    qg = q.reshape(B, G, H // G, T, Dh)
    scores = torch.einsum("bgrtd,bgsd->bgrts", qg, k) * (Dh ** -0.5)
    allowed = torch.arange(S)[None, None, :] <= idx[:, :, None]                  # (B, T, S)
    scores = scores.masked_fill(~allowed[:, None, None], float("-inf"))
    out = torch.einsum("bgrts,bgsd->bgrtd", scores.softmax(dim=-1), v)
    return out.reshape(B, H, T, Dh), new_lengths
'''}, "P7: index_copy_ into the caches, masked_fill (out of place) of unwritten slots, grouped einsum without repeating keys.", "sibling")

# ---------------------------------------------------------------- third blind batch (graded into NN-blind3.txt)

add("b3_p5_residual_in_place_after_handing", False, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms needed")
    if layout == "parallel":
        n = norm_1(x)
        y = x + attn(n)
        y += ffn(n)
        return y
    if layout == "reordered":
        h = x + norm_1(attn(x))
        h += norm_2(ffn(h))            # add the second residual into h
        return h
    if layout == "sandwich":
        p1, p2 = post_norms
        h = x + p1(attn(norm_1(x)))
        h += p2(ffn(norm_2(h)))
        return h
    raise ValueError("unknown layout")
'''}, "P5: 'change no tensor in place after handing it to a function': h was handed to ffn / norm_2, which keep it for the backward pass.", "placement")

add("b3_p5_parallel_in_place_fresh_correct", True, {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError("unknown layout")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms needed")
    if layout == "parallel":
        n = norm_1(x)
        a, f = attn(n), ffn(n)
        y = x + a                      # a fresh tensor no function has seen
        y += f
        return y
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    h = x + post_norms[0](attn(norm_1(x)))
    return h + post_norms[1](ffn(norm_2(h)))
'''}, "P5: the only in-place add is into a tensor made here and handed to no function.", "placement")

add("b3_p8_topk_ties", False, {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    history = prompt.clone()
    finished = torch.zeros(B, dtype=torch.bool)
    out = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.topk(1, dim=-1).indices[:, 0]          # the best id of each row
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, pad_id, tok)
        out.append(tok)
        history = torch.cat([history, tok[:, None]], 1)
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(out, 1)
'''}, "P8: 'the lowest id among ties, as torch.argmax does, also when hundreds of ids tie': topk does not promise the lowest id.", "api")

add("b3_p3_validate_experts_only_with_moe_blocks", False, {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("heads")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("first_dense")
    moe = n_layers - first_dense
    if moe > 0 and (not 1 <= top_k <= n_experts or n_shared < 0):   # only matters where there are experts
        raise ValueError("experts")
    emb = vocab * dim * (1 if tied else 2)
    common = emb + dim + n_layers * (2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads))
    common += first_dense * 3 * dim * dense_hidden
    expert = 3 * dim * ffn_hidden
    return (common + moe * (dim * n_experts + (n_experts + n_shared) * expert),
            common + moe * (dim * n_experts + (top_k + n_shared) * expert))
'''}, "P3: 'Raise a ValueError unless ... 1 <= top_k <= n_experts, n_shared >= 0 ..., in every model (also one whose blocks are all dense, and one with n_layers = 0)'.", "sibling")

add("b3_p6_backward_ignores_needs_input_grad", True, {"rope_llama3": '''
class RopeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, positions, freqs):
        ang = positions.to(torch.float64)[:, None, :, None] * freqs
        ct = x.dtype
        cos, sin = ang.cos().to(ct), ang.sin().to(ct)
        ctx.save_for_backward(cos, sin)
        h = x.shape[-1] // 2
        return torch.cat([x[..., :h] * cos - x[..., h:] * sin, x[..., h:] * cos + x[..., :h] * sin], -1)

    @staticmethod
    def backward(ctx, g):
        cos, sin = ctx.saved_tensors
        h = g.shape[-1] // 2
        gx = torch.cat([g[..., :h] * cos + g[..., h:] * sin, g[..., h:] * cos - g[..., :h] * sin], -1)
        return gx, torch.zeros(1), torch.zeros(1)      # the other inputs get no gradient anyway

def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or tuple(positions.shape) != (B, T):
        raise ValueError("shapes")
    theta = base ** (-2 * torch.arange(Dh // 2, dtype=torch.float64) / Dh)
    lam = 2 * math.pi / theta
    s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    freqs = torch.where(lam < original_context / high_freq_factor, theta,
                        torch.where(lam > original_context / low_freq_factor, theta / factor,
                                    (1 - s) * theta / factor + s * theta))
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    return RopeFn.apply(x.to(ct), positions, freqs).to(x.dtype)
'''}, "P6: the backward returns tensors for positions and freqs, which need no gradient (autograd drops them); the gradient for x is exact.", "backward")

add("b3_p4_builtin_sum_correct", True, {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    per = lse - sel.gather(-1, y[:, None])[:, 0] + z_loss * lse * lse
    total = sum(per.unbind(0))                # a Python sum of 0-d tensors, in the compute dtype
    return total / count, count
'''}, "P4: the mean as a builtin sum of 0-d tensors (in the compute dtype) over count.", "scalar")

add("b3_p2_bfloat16_native_correct", True, {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    # float64 stays float64, bfloat16 and float32 may stay as they are; float16 goes to float32
    ct = torch.float32 if x.dtype == torch.float16 else x.dtype
    xc, wgu, wd = x.to(ct), w_gate_up.to(ct), w_down.to(ct)
    hidden = wgu.shape[0] // 2
    if interleaved:
        wg, wu = wgu[0::2], wgu[1::2]
    else:
        wg, wu = wgu[:hidden], wgu[hidden:]
    g = torch.matmul(xc, wg.transpose(0, 1))
    u = torch.matmul(xc, wu.transpose(0, 1))
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(min=-limit, max=limit)
    return torch.matmul(g * torch.sigmoid(beta * g) * u, wd.transpose(0, 1)).to(x.dtype)
'''}, "P2: 'For float32 and bfloat16 inputs you may compute in the dtype of x': bfloat16 computed in bfloat16.", "placement")

add("b3_p7_sdpa_bool_mask_correct", True, {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("a row does not fit")
    for b in range(B):
        start = int(lengths[b])
        k_cache[b, :, start:start + T] = k_new[b]
        v_cache[b, :, start:start + T] = v_new[b]
    pos = torch.arange(S)
    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]
    k = torch.where(written, k_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    v = torch.where(written, v_cache, torch.zeros((), dtype=q.dtype)).repeat_interleave(H // G, dim=1)
    keep = pos[None, None, :] <= (lengths.long()[:, None] + torch.arange(T)[None, :])[:, :, None]   # True = attend
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None])
    return out, lengths + T
'''}, "P7: scaled_dot_product_attention with a boolean mask (True = attend) on keys whose unwritten slots were replaced first.", "sibling")
