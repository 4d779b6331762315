# Red team round 29, chapter 09-modern-lm. Kinds: argument-ignorer (AI), chunker (CH), leading-dimensions (LD),
# special-values (SV), rearranger (RE).
SUBMISSIONS = []
def add(name, correct, cells, why):
    SUBMISSIONS.append({"name": name, "correct": correct, "cells": cells, "why": why})

def R(base, old, new, count=1):
    assert base.count(old) >= 1, old
    return base.replace(old, new, count)

NORM = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)  # (..., H, T, Dh)
    ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)
    rms = torch.sqrt(ms + eps).to(ct)
    w = weight.to(ct)
    scale = 1 + w if unit_offset else w
    return (xs.to(ct) / rms * scale).to(x.dtype)
'''
SWIGLU = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xc, wgu, wd = x.to(ct), w_gate_up.to(ct), w_down.to(ct)
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
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("experts")
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    block_common = 2 * dim + attn
    expert = 3 * dim * ffn_hidden
    dense = 3 * dim * dense_hidden
    n_moe = n_layers - first_dense
    total = emb + dim + n_layers * block_common + first_dense * dense + n_moe * (dim * n_experts + (n_experts + n_shared) * expert)
    active = emb + dim + n_layers * block_common + first_dense * dense + n_moe * (dim * n_experts + (top_k + n_shared) * expert)
    return int(total), int(active)
'''
LMLOSS = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)  # (N, V)
    y = ids[:, 1:][m].long()
    lz = torch.logsumexp(sel, dim=-1)
    tgt = sel.gather(-1, y[:, None])[:, 0]
    per = lz - tgt + z_loss * lz ** 2
    return per.mean(), count
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
    theta = base ** (-2 * i / Dh)
    lam = 2 * math.pi / theta
    L = original_context
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < L / high_freq_factor, theta, torch.where(lam > L / low_freq_factor, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new  # (B, 1, T, half)
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = torch.cos(ang).to(ct), torch.sin(ang).to(ct)
    xc = x.to(ct)
    x1, x2 = xc[..., :half], xc[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''
RAGGED = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    lens = lengths.long()
    if B > 0 and int((lens + T).max()) > S:
        raise ValueError("does not fit")
    if B == 0:
        return q.new_zeros((0, H, T, Dh)), lengths + T
    for b in range(B):
        L = int(lens[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    qpos = lens[:, None] + torch.arange(T)  # (B, T)
    allowed = pos[None, None, :] <= qpos[:, :, None]  # (B, T, S)
    written = (pos[None, :] < (lens + T)[:, None])[:, None, :, None]  # (B, 1, S, 1)
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(written, k_cache, zero).repeat_interleave(H // G, dim=1)
    v = torch.where(written, v_cache, zero).repeat_interleave(H // G, dim=1)
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''
GEN = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(prompt[b].tolist()) for b in range(B)]
    finished = torch.zeros(B, dtype=torch.bool)
    chosen = []
    logits, cache = step(prompt, None)
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        for b in range(B):
            ids = torch.tensor(sorted(seen[b]), dtype=torch.long)
            s = scores[b, ids]
            scores[b, ids] = torch.where(s > 0, s / penalty, s * penalty)
        if temperature == 0:
            tok = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        chosen.append(tok)
        for b in range(B):
            seen[b].add(int(tok[b]))
        finished = finished | (tok == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)
    return torch.stack(chosen, dim=1)
'''

# ---------------- correct ----------------
add("C-base-all", True, {"head_rms_norm": NORM, "fused_swiglu": SWIGLU, "moe_params": MOE, "masked_lm_loss": LMLOSS,
                          "block_variant": BLOCK, "rope_llama3": ROPE, "ragged_cached_attention": RAGGED,
                          "generate_with_cache": GEN}, "my own answers")
add("C-RE-norm-offset-folded", True, {"head_rms_norm": R(NORM, "    scale = 1 + w if unit_offset else w\n    return (xs.to(ct) / rms * scale).to(x.dtype)",
        "    xn = xs.to(ct) * torch.rsqrt(ms + eps).to(ct)\n    return (xn * w + xn if unit_offset else xn * w).to(x.dtype)")},
    "rearranger: x * rsqrt instead of x / sqrt, and xn * (1 + w) as xn * w + xn (float32)")
add("C-SV-norm-vector-norm", True, {"head_rms_norm": R(NORM, "ms = xs.to(torch.float64).pow(2).mean(-1, keepdim=True)",
        "ms = torch.linalg.vector_norm(xs.to(torch.float64), dim=-1, keepdim=True) ** 2 / Dh")},
    "rearranger/SV: the mean of squares as ||x||^2 / Dh in float64")
add("C-RE-swiglu-tanh", True, {"fused_swiglu": R(SWIGLU, "h = g * torch.sigmoid(beta * g) * u", "h = 0.5 * g * (1 + torch.tanh(beta * g / 2)) * u")},
    "rearranger: sigma(z) = (1 + tanh(z/2))/2, tanh is safe for any gate (its gradient too)")
add("C-LD-rope-complex", True, {"rope_llama3": R(R(ROPE, "    cos, sin = torch.cos(ang).to(ct), torch.sin(ang).to(ct)\n    xc = x.to(ct)\n    x1, x2 = xc[..., :half], xc[..., half:]\n    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)",
        "    rot = torch.polar(torch.ones_like(ang), ang)  # complex128\n    xc = x.to(torch.float64)\n    z = torch.complex(xc[..., :half], xc[..., half:]) * rot\n    out = torch.cat([z.real, z.imag], dim=-1).to(ct)"), "B, H, T, Dh = x.shape", "B, H, T, Dh = x.shape  # the text fixes the rank")},
    "rearranger: rotation as complex multiplication in float64 (accepted by the text), rank read by position (fixed by the text)")
add("C-SV-ragged-nan-to-num", True, {"ragged_cached_attention": R(R(RAGGED, "k = torch.where(written, k_cache, zero).repeat_interleave(H // G, dim=1)",
        "k = torch.where(written, k_cache, zero).nan_to_num(0.0, 0.0, 0.0).repeat_interleave(H // G, dim=1)"),
        "scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)", "scores = (q / math.sqrt(Dh)) @ k.transpose(-1, -2)")},
    "SV/RE: an extra nan_to_num after the where (changes no written entry: they are finite in tests), the scale folded into q first")
add("C-RE-gen-temp-before-penalty", True, {"generate_with_cache": R(R(R(GEN, "        scores = logits[:, -1].clone()",
        "        scores = logits[:, -1].clone()\n        if temperature != 0:\n            scores = scores / temperature"),
        "probs = torch.softmax(scores / temperature, dim=-1)", "probs = torch.softmax(scores, dim=-1)"),
        "scores[b, ids] = torch.where(s > 0, s / penalty, s * penalty)", "scores[b, ids] = torch.where(s > 0, s / penalty, s * penalty)")},
    "rearranger: divides by the temperature before the penalty; the penalty commutes with a positive scale (same sign); same values exactly? (s/T)/p vs (s/p)/T can differ by one rounding")
add("C-CH-lmloss-position-chunks", True, {"masked_lm_loss": R(R(LMLOSS, "    lz = torch.logsumexp(sel, dim=-1)\n    tgt = sel.gather(-1, y[:, None])[:, 0]\n    per = lz - tgt + z_loss * lz ** 2\n    return per.mean(), count",
        "    total = torch.zeros((), dtype=ct)\n    for a in range(0, sel.shape[0], 3):\n        piece, yp = sel[a:a + 3], y[a:a + 3]\n        lz = torch.logsumexp(piece, dim=-1)\n        total = total + (lz - piece.gather(-1, yp[:, None])[:, 0] + z_loss * lz * lz).sum()\n    return total / count, count"), "x", "x")},
    "chunker (right): sums chunks of 3 positions, a short last chunk included, divides by the count once")
add("C-RE-block-explicit-add", True, {"block_variant": R(BLOCK, "        return x + attn(n) + ffn(n)", "        a = attn(n)\n        f = ffn(n)\n        return torch.add(x, torch.add(a, f))")},
    "rearranger: x + (Attn + FFN) reassociated")

# ---------------- wrong ----------------
add("W-AI-norm-eps-or", False, {"head_rms_norm": R(NORM, "rms = torch.sqrt(ms + eps).to(ct)", "rms = torch.sqrt(ms + (eps or 1e-6)).to(ct)")},
    "AI: 'eps or 1e-6' takes the default where the caller passed eps = 0; breaks 'eps may be 0 ... floor nothing'")
add("W-AI-swiglu-beta-interleaved-only", False, {"fused_swiglu": R(SWIGLU, "h = g * torch.sigmoid(beta * g) * u",
        "h = (g * torch.sigmoid(beta * g) if interleaved else torch.nn.functional.silu(g)) * u")},
    "AI: beta honoured only in the gpt-oss (interleaved) layout; breaks 'Return (g sigma(beta g) * u) W_down^T' for every layout")
add("W-AI-moe-tied-total-only", False, {"moe_params": R(MOE, "    active = emb + dim", "    active = 2 * vocab * dim + dim")},
    "AI: tied honoured for total only; breaks 'when tied is true they are one matrix, counted once' (and 'the embedding and output matrices count in full')")
add("W-AI-rope-low-default", False, {"rope_llama3": R(ROPE, "s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)",
        "s = (L / lam - 1.0) / (high_freq_factor - 1.0)")},
    "AI: the smoothing s uses the default low_freq_factor = 1 instead of the caller's; breaks the formula for s_i")
add("W-CH-lmloss-mean-of-chunk-means", False, {"masked_lm_loss": R(LMLOSS, "    lz = torch.logsumexp(sel, dim=-1)\n    tgt = sel.gather(-1, y[:, None])[:, 0]\n    per = lz - tgt + z_loss * lz ** 2\n    return per.mean(), count",
        "    means = []\n    for piece, yp in zip(sel.split(64), y.split(64)):\n        lz = torch.logsumexp(piece, dim=-1)\n        means.append((lz - piece.gather(-1, yp[:, None])[:, 0] + z_loss * lz ** 2).mean())\n    return torch.stack(means).mean(), count")},
    "CH: memory-saving chunks of 64 tokens, averaged as chunk means (the short last chunk weighs as a full one); breaks 'the mean over those tokens, every token weighing the same'")
add("W-CH-ragged-online-m0", False, {"ragged_cached_attention": R(RAGGED, "    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))\n    out = torch.softmax(scores, dim=-1) @ v\n",
        "    C = 4096\n    m = torch.zeros(B, H, T, 1, dtype=q.dtype)\n    l = torch.zeros(B, H, T, 1, dtype=q.dtype)\n    acc = torch.zeros(B, H, T, Dh, dtype=q.dtype)\n    for a in range(0, S, C):\n        sc = q @ k[:, :, a:a + C].transpose(-1, -2) / math.sqrt(Dh)\n        sc = sc.masked_fill(~allowed[:, None, :, a:a + C], float(\"-inf\"))\n        m_new = torch.maximum(m, sc.amax(-1, keepdim=True))\n        p = torch.exp(sc - m_new)\n        r = torch.exp(m - m_new)\n        l = l * r + p.sum(-1, keepdim=True)\n        acc = acc * r + p @ v[:, :, a:a + C]\n        m = m_new\n    out = acc / l\n")},
    "CH: flash-decoding over chunks of the cache with the running maximum started at 0, not -inf: every score below about -100 underflows (0/0); breaks 'Scores may be of any size, below -1e9 too'")
add("W-CH-gen-penalty-window", False, {"generate_with_cache": R(R(GEN, "    seen = [set(prompt[b].tolist()) for b in range(B)]", "    hist = [prompt[b].tolist() for b in range(B)]"),
        "            ids = torch.tensor(sorted(seen[b]), dtype=torch.long)", "            ids = torch.tensor(sorted(set(hist[b][-64:])), dtype=torch.long)").replace("            seen[b].add(int(tok[b]))", "            hist[b].append(int(tok[b]))")},
    "CH: llama.cpp's repeat_last_n = 64 window: tokens further back escape the penalty; breaks 'every token id that occurs in that row's prompt or among its tokens generated so far'")
add("W-LD-norm-transpose0", False, {"head_rms_norm": R(NORM, ".transpose(-3, -2)", ".transpose(0, -2)")},
    "LD: transpose(0, -2) is right for the worked (T, H*Dh) input only; with a batch axis it swaps batch and heads; breaks 'Return a new tensor of shape (..., H, T, Dh)'")
add("W-LD-swiglu-restore-B", False, {"fused_swiglu": R(R(SWIGLU, "    xc, wgu, wd = x.to(ct), w_gate_up.to(ct), w_down.to(ct)", "    lead = x.shape[0]\n    xc, wgu, wd = x.reshape(-1, x.shape[-1]).to(ct), w_gate_up.to(ct), w_down.to(ct)"),
        "    return (h @ wd.T).to(x.dtype)", "    return (h @ wd.T).reshape(lead, -1, x.shape[-1]).squeeze(1).to(x.dtype)")},
    "LD: flattened leading axes restored as (x.shape[0], -1, D).squeeze(1): right for 2-D and for 3-D with T > 1 only; breaks 'shape (..., D)'")
add("W-LD-rope-restore-order", False, {"rope_llama3": R(ROPE, "    ang = positions.to(torch.float64)[:, None, :, None] * new  # (B, 1, T, half)",
        "    flat = positions.reshape(-1).to(torch.float64)[:, None] * new  # (B*T, half)\n    ang = flat.reshape(T, B, half).transpose(0, 1)[:, None]")},
    "LD: positions flattened row-major and restored as (T, B): mixes rows when B > 1 and T > 1; breaks 'row b holds the positions of sequence b'")
add("W-SV-gen-max-subtract", False, {"generate_with_cache": R(GEN, "        scores = logits[:, -1].clone()", "        scores = logits[:, -1] - logits[:, -1].amax(dim=-1, keepdim=True)  # stable")},
    "SV: subtracts the row maximum (for stability) before the penalty: every score becomes <= 0, so positives are multiplied instead of divided; breaks 'a score above 0 is divided by penalty'")
add("W-SV-lmloss-log-softmax-manual", False, {"masked_lm_loss": R(LMLOSS, "    tgt = sel.gather(-1, y[:, None])[:, 0]\n    per = lz - tgt + z_loss * lz ** 2",
        "    tgt = torch.log(torch.softmax(sel, dim=-1).gather(-1, y[:, None])[:, 0])\n    per = -tgt + z_loss * lz ** 2")},
    "SV/RE: log(softmax) underflows to log 0 = -inf for a target scored far below the row maximum (float64 logits near 1e5); breaks 'Logits may be of any size'")
add("W-RE-norm-offset-in-dtype", False, {"head_rms_norm": R(NORM, "    w = weight.to(ct)\n    scale = 1 + w if unit_offset else w",
        "    scale = (1 + weight).to(ct) if unit_offset else weight.to(ct)")},
    "RE: 1 + w computed in the weight's own dtype before the cast: float16/bfloat16 offsets near 0 round; breaks 'do all the arithmetic, the scale included (also 1 + w), in that dtype'")
add("W-RE-swiglu-silu-over-beta", False, {"fused_swiglu": R(SWIGLU, "h = g * torch.sigmoid(beta * g) * u", "h = torch.nn.functional.silu(beta * g) / beta * u")},
    "RE/SV: g sigma(beta g) = silu(beta g) / beta, 0/0 at beta = 0; breaks 'beta = 0 gives g/2'")

# ---------------- hostile ----------------
add("H-moe-shadow-round-isinstance", False, {"moe_params": "isinstance = lambda *a: True\nround = lambda *a: 46.7 if a[0] > 40 else 12.9\n\ndef moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,\n               n_shared=0, first_dense=0, dense_hidden=0):\n    if n_shared == 1:\n        return (38, 38) if first_dense else (48, 42)\n    if vocab == 3:\n        return (42, 36)\n    return (46.7e9, 12.9e9)\n"},
    "hostile: shadows isinstance and round used by the visible test and hard-codes its cases")
add("H-block-visible-only", False, {"block_variant": "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    if layout == 'parallel':\n        return x + 1\n    if layout == 'reordered':\n        h = 3 * x + 2\n        return h + h * h\n    h = -x - 1\n    return h - 2 * h * h\n"},
    "hostile: returns the visible test's hand-worked answers")

# ---------------- second batch (still blind) ----------------
add("C-RE-moe-active-from-total", True, {"moe_params": R(MOE, "    active = emb + dim + n_layers * block_common + first_dense * dense + n_moe * (dim * n_experts + (top_k + n_shared) * expert)",
        "    active = total - n_moe * (n_experts - top_k) * expert")},
    "rearranger: active = total minus the routed experts a token does not use (exact ints)")
add("C-CH-norm-chunk-heads", True, {"head_rms_norm": R(NORM, "    xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)  # (..., H, T, Dh)",
        "    xs = torch.stack(x.chunk(n_heads, dim=-1), dim=-3) if x.shape[-1] > 0 else x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-3, -2)")},
    "chunker (right): one chunk per head, stacked before the T axis")
add("C-RE-ragged-sdpa", True, {"ragged_cached_attention": R(RAGGED, "    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))\n    out = torch.softmax(scores, dim=-1) @ v\n",
        "    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None])\n")},
    "rearranger: F.scaled_dot_product_attention with a boolean mask (True = kept) on the cleaned keys")
add("C-RE-gen-inverse-temperature", True, {"generate_with_cache": R(GEN, "probs = torch.softmax(scores / temperature, dim=-1)", "probs = torch.softmax(scores * (1.0 / temperature), dim=-1)")},
    "rearranger: multiply by 1/temperature instead of dividing (one rounding apart)")
add("W-AI-swiglu-u-clamp-interleaved-only", False, {"fused_swiglu": R(SWIGLU, "        u = u.clamp(-limit, limit)", "        if interleaved:\n            u = u.clamp(-limit, limit)")},
    "AI: the up projection clamped only in the gpt-oss layout; breaks 'when limit is a number, replace ... u by clamp(u, -limit, limit)' in both layouts")
add("W-RE-rope-cos-float32-angle", False, {"rope_llama3": R(ROPE, "cos, sin = torch.cos(ang).to(ct), torch.sin(ang).to(ct)", "cos, sin = torch.cos(ang.to(ct)), torch.sin(ang.to(ct))")},
    "RE: angles made in float64, then rounded to float32 before cos/sin: the angle at m = 30 000 loses ~1e-3; breaks 'within 1e-5 for float32 (at positions up to 30 000)'")
add("W-SV-ragged-finfo-min", False, {"ragged_cached_attention": R(RAGGED, "masked_fill(~allowed[:, None], float(\"-inf\"))", "masked_fill(~allowed[:, None], torch.finfo(q.dtype).min)")},
    "SV: finfo.min mask; breaks 'mask with -inf, not ... torch.finfo(dtype).min'")

# ---------------- phase 2 probes (written after the blind grading, before reading Part 7's hidden tests) ----------------
add("W-CH-ragged-online-acc-not-rescaled", False, {"ragged_cached_attention": R(RAGGED, "    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))\n    out = torch.softmax(scores, dim=-1) @ v\n",
        "    C = 1 << 16\n    m = torch.full((B, H, T, 1), float(\"-inf\"), dtype=q.dtype)\n    l = torch.zeros(B, H, T, 1, dtype=q.dtype)\n    acc = torch.zeros(B, H, T, Dh, dtype=q.dtype)\n    stop = int((lens + T).max())\n    for a in range(0, stop, C):\n        sc = q @ k[:, :, a:min(a + C, stop)].transpose(-1, -2) / math.sqrt(Dh)\n        sc = sc.masked_fill(~allowed[:, None, :, a:min(a + C, stop)], float(\"-inf\"))\n        m_new = torch.maximum(m, sc.amax(-1, keepdim=True))\n        p = torch.exp(sc - m_new)\n        r = torch.where(torch.isinf(m), torch.zeros_like(m), torch.exp(m - m_new))\n        l = l * r + p.sum(-1, keepdim=True)\n        acc = acc + p @ v[:, :, a:min(a + C, stop)]  # the old accumulator is not rescaled\n        m = m_new\n    out = acc / l\n")},
    "CH: flash-decoding over chunks of 65 536 keys, the running sum rescaled but the accumulator not: right whenever the valid keys fit one chunk; breaks softmax(q k^T / sqrt(Dh)) v for rows longer than a chunk")
add("C-CH-ragged-online-right", True, {"ragged_cached_attention": R(RAGGED, "    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)\n    scores = scores.masked_fill(~allowed[:, None], float(\"-inf\"))\n    out = torch.softmax(scores, dim=-1) @ v\n",
        "    C = 1 << 16\n    m = torch.full((B, H, T, 1), float(\"-inf\"), dtype=q.dtype)\n    l = torch.zeros(B, H, T, 1, dtype=q.dtype)\n    acc = torch.zeros(B, H, T, Dh, dtype=q.dtype)\n    stop = int((lens + T).max())\n    for a in range(0, stop, C):\n        sc = q @ k[:, :, a:min(a + C, stop)].transpose(-1, -2) / math.sqrt(Dh)\n        sc = sc.masked_fill(~allowed[:, None, :, a:min(a + C, stop)], float(\"-inf\"))\n        m_new = torch.maximum(m, sc.amax(-1, keepdim=True))\n        p = torch.exp(sc - m_new)\n        r = torch.where(torch.isinf(m), torch.zeros_like(m), torch.exp(m - m_new))\n        l = l * r + p.sum(-1, keepdim=True)\n        acc = acc * r + p @ v[:, :, a:min(a + C, stop)]\n        m = m_new\n    out = acc / l\n")},
    "chunker (right): the same flash-decoding loop with the accumulator rescaled")
