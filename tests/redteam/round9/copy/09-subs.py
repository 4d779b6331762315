SUBMISSIONS = [
{"name": "p1 head_rms_norm", "correct": True, "cells": {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads:
        raise ValueError(f"cannot split {x.shape[-1]} features into {n_heads} heads")
    h = x.to(torch.promote_types(x.dtype, torch.float32))
    h = h.unflatten(-1, (n_heads, x.shape[-1] // n_heads)).transpose(-3, -2)
    h = h * torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + eps)
    w = weight.to(h.dtype)
    return ((1 + w if unit_offset else w) * h).to(x.dtype)
'''}, "why": "copied from lm/layers.py RMSNorm.forward; changes: 5 lines (check, split into (H,T,Dh), weight cast, 1+w option, single rounding at the end)"},
{"name": "p2 fused_swiglu", "correct": True, "cells": {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    w1, w3 = (w_gate_up[0::2], w_gate_up[1::2]) if interleaved else w_gate_up.chunk(2)
    g, u = F.linear(x, w1), F.linear(x, w3)
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    return F.linear(g * torch.sigmoid(beta * g) * u, w_down)
'''}, "why": "copied from lm/layers.py SwiGLU.forward; changes: 5 lines (split of the fused matrix in two layouts, F.linear, limit if/clamp, silu -> g*sigmoid(beta*g))"},
{"name": "p4 masked_lm_loss (6 lines, over budget)", "correct": True, "cells": {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    scores, targets = logits[:, :-1], ids[:, 1:]
    sel = target_mask[:, 1:]
    s = scores[sel].to(torch.promote_types(logits.dtype, torch.float32))
    t = targets[sel].long()
    logz = s.logsumexp(-1)
    loss = -(s.log_softmax(-1).gather(-1, t[..., None]))[..., 0] + z_loss * logz ** 2
    count = int(sel.sum())
    return (loss.mean() if count else s.new_zeros(())), count
'''}, "why": "copied from index.md loss cell (scores, targets = logits[:, :-1], tokens[:, 1:]; -(log_softmax.gather)).mean()); changes: 6 lines (mask selection x2, dtype, logZ and z-loss term, count, empty case)"},
{"name": "p5 block_variant (over budget)", "correct": True, "cells": {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich") or (layout == "sandwich" and post_norms is None):
        raise ValueError(f"bad layout {layout!r}")
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    h = x + post_norms[0](attn(norm_1(x)))
    return h + post_norms[1](ffn(norm_2(h)))
'''}, "why": "adapted from lm/model.py DecoderBlock.forward (x = x + attn(norm(x))); changes: 8 lines, the three layouts transcribed from the exercise text - over budget"},
{"name": "p6 rope_llama3 (over budget)", "correct": True, "cells": {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    b, h, t, dh = x.shape
    if dh % 2 or tuple(positions.shape) != (b, t):
        raise ValueError("bad shapes")
    freq = base ** (-torch.arange(0, dh, 2, dtype=torch.float64) / dh)
    wavelen = 2 * math.pi / freq
    s = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    freq = torch.where(wavelen < original_context / high_freq_factor, freq,
                       torch.where(wavelen > original_context / low_freq_factor, freq / factor, (1 - s) * freq / factor + s * freq))
    angle = positions.to(torch.float64)[:, None, :, None] * freq
    xc = x.to(torch.promote_types(x.dtype, torch.float32))
    cos, sin = angle.cos().to(xc.dtype), angle.sin().to(xc.dtype)
    cos, sin = torch.cat([cos, cos], dim=-1), torch.cat([sin, sin], dim=-1)
    x1, x2 = xc.chunk(2, dim=-1)
    return (xc * cos + torch.cat([-x2, x1], dim=-1) * sin).to(x.dtype)
'''}, "why": "copied from positional.py rope (half pairing) + rope_angles; changes: ~8 lines (checks, the three-case frequency rule from the exercise text, (B,T) positions, float32 compute) - over budget"},
{"name": "p7 ragged_cached_attention (over budget)", "correct": True, "cells": {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G or bool((lengths.long() + T > S).any()):
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    new_lengths = lengths + T
    pos = lengths.long()[:, None] + torch.arange(T)
    allowed = torch.arange(S)[None, None, :] <= pos[:, :, None]
    valid = (torch.arange(S)[None, :] < new_lengths.long()[:, None])[:, None, :, None]
    k = torch.where(valid, k_cache, torch.zeros((), dtype=k_cache.dtype)).repeat_interleave(H // G, dim=1)
    v = torch.where(valid, v_cache, torch.zeros((), dtype=v_cache.dtype)).repeat_interleave(H // G, dim=1)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None]), new_lengths
'''}, "why": "adapted from lm/attention.py CausalSelfAttention.forward (repeat_kv, causal allowed, F.sdpa); changes: ~10 lines (checks, per-row write, per-row mask, zeroing unwritten slots) - over budget"},
]
