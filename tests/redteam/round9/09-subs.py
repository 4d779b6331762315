CORRECT = {}
CORRECT["head_rms_norm"] = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    xf = x.to(ct).reshape(*x.shape[:-1], n_heads, dh)
    w = weight.to(ct)
    s = 1 + w if unit_offset else w
    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    y = (xf * r * s).transpose(-3, -2)
    return y.to(x.dtype)
'''
CORRECT["fused_swiglu"] = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    gu = x @ w_gate_up.T
    f = w_gate_up.shape[0] // 2
    if interleaved:
        g, u = gu[..., 0::2], gu[..., 1::2]
    else:
        g, u = gu[..., :f], gu[..., f:]
    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)
    h = g * torch.sigmoid(beta * g) * u
    return h @ w_down.T
'''
CORRECT["moe_params"] = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not 1 <= top_k <= n_experts:
        raise ValueError("top_k")
    if n_shared < 0:
        raise ValueError("n_shared")
    if not 0 <= first_dense <= n_layers:
        raise ValueError("first_dense")
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden
    moe = n_layers - first_dense
    expert = 3 * dim * ffn_hidden
    router = dim * n_experts
    total = common + moe * (router + (n_experts + n_shared) * expert)
    active = common + moe * (router + (top_k + n_shared) * expert)
    return total, active
'''
CORRECT["masked_lm_loss"] = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m].long()
    lse = torch.logsumexp(sel, dim=-1)
    nll = lse - sel.gather(-1, y[:, None])[:, 0]
    loss = (nll + z_loss * lse ** 2).sum() / count
    return loss, count
'''
CORRECT["block_variant"] = '''
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
CORRECT["rope_llama3"] = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)
    wl = 2 * math.pi / theta
    L = original_context
    s = (L / wl - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(wl < L / high_freq_factor, theta, torch.where(wl > L / low_freq_factor, theta / factor, mid))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = ang.cos().to(ct), ang.sin().to(ct)
    xf = x.to(ct)
    x1, x2 = xf[..., :half], xf[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''
CORRECT["ragged_cached_attention"] = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G = k_new.shape[1]
    S = k_cache.shape[2]
    if H % G != 0:
        raise ValueError("H not a multiple of G")
    if bool((lengths + T > S).any()):
        raise ValueError("does not fit")
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
    pos = torch.arange(S)
    written = pos[None, :] < (lengths.long() + T)[:, None]
    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))
    k = k.repeat_interleave(H // G, dim=1)
    v = v.repeat_interleave(H // G, dim=1)
    allowed = pos[None, None, :] <= (lengths.long()[:, None, None] + torch.arange(T)[None, :, None])
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v
    return out, lengths + T
'''
CORRECT["generate_with_cache"] = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    history = prompt.clone()
    chosen = []
    for i in range(max_new_tokens):
        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool)
        seen.scatter_(1, history, True)
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, pen, scores)
        if temperature == 0:
            nxt = scores.argmax(dim=-1)
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]
        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)
        chosen.append(nxt)
        history = torch.cat([history, nxt[:, None]], dim=1)
        finished = finished | (nxt == eos_id)
        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(nxt[:, None], cache)
    return torch.stack(chosen, dim=1)
'''

def mod(part, *pairs):
    src = CORRECT[part]
    for old, new in zip(pairs[::2], pairs[1::2]):
        assert old in src, (part, old)
        src = src.replace(old, new)
    return src

def W(name, part, why, *pairs, src=None):
    SUBMISSIONS.append({"name": name, "correct": False, "cells": {part: src if src is not None else mod(part, *pairs)}, "why": why})

def C(name, part, why, src):
    SUBMISSIONS.append({"name": name, "correct": True, "cells": {part: src}, "why": why})

SUBMISSIONS = []

# ---------------- Part 1: head_rms_norm ----------------
W("p1-reshape-not-transpose", "head_rms_norm",
  "'Return a new tensor of shape (..., H, T, Dh) (head h of position t at [..., h, t, :])': reshapes (T, H, Dh) to (H, T, Dh) instead of transposing; the visible test has T = 1.",
  "y = (xf * r * s).transpose(-3, -2)", "y = (xf * r * s).reshape(*x.shape[:-2], n_heads, x.shape[-2], dh)")
W("p1-transpose-0-1", "head_rms_norm",
  "'x has shape (..., T, H * Dh), at least two axes': transposes axes 0 and 1, which is right only for a 2-axis x; leading batch axes are broken.",
  "y = (xf * r * s).transpose(-3, -2)", "y = (xf * r * s).transpose(0, 1)")
W("p1-offset-in-input-dtype", "head_rms_norm",
  "'do all the arithmetic, the scale included (also 1 + w), in that dtype': computes 1 + w in bfloat16/float16 before converting, so weights that are small offsets from 1 round.",
  "    w = weight.to(ct)\n    s = 1 + w if unit_offset else w\n", "    s = (1 + weight if unit_offset else weight).to(ct)\n")
W("p1-square-in-input-dtype", "head_rms_norm",
  "'in float16 the square of any value above 256 is already infinite; convert x to float32': squares x in its own dtype.",
  "    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)\n",
  "    ms = x.pow(2).reshape(*x.shape[:-1], n_heads, dh).mean(-1, keepdim=True).to(ct)\n    r = torch.rsqrt(ms + eps)\n")
W("p1-eps-outside-sqrt", "head_rms_norm",
  "'with eps inside the square root': divides by sqrt(mean) + eps; visible tests use eps = 0.",
  "r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)", "r = 1 / (xf.pow(2).mean(-1, keepdim=True).sqrt() + eps)")
W("p1-zero-heads-zerodivision", "head_rms_norm",
  "'Raise a ValueError when n_heads < 1': only checks divisibility, so n_heads = 0 raises ZeroDivisionError and n_heads = -1 a RuntimeError from reshape.",
  "if n_heads < 1 or x.shape[-1] % n_heads != 0:", "if x.shape[-1] % n_heads != 0:")
W("p1-default-eps-1e-5", "head_rms_norm",
  "signature 'head_rms_norm(x, n_heads, weight, eps=1e-6, ...)': default eps changed to 1e-5 (the LayerNorm habit); visible tests always pass eps.",
  "eps=1e-6", "eps=1e-5")
W("p1-F-normalize-no-eps", "head_rms_norm",
  "'x_h / sqrt(mean(x_h^2) + eps) ... with eps inside the square root': uses F.normalize(x_h) * sqrt(Dh), which ignores eps (visible tests use eps = 0).",
  "    r = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)\n    y = (xf * r * s).transpose(-3, -2)\n",
  "    y = (F.normalize(xf, dim=-1) * math.sqrt(dh) * s).transpose(-3, -2)\n")
C("p1-F.rms_norm-keywords", "head_rms_norm",
  "torch.nn.functional.rms_norm on the float32 copy, all arguments by keyword, unflatten + movedim (non-contiguous result).",
  '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not n_heads >= 1 or x.shape[-1] % n_heads:
        raise ValueError("n_heads must be >= 1 and divide the last axis")
    dh = x.shape[-1] // n_heads
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    w = weight.to(dtype=ct)
    if unit_offset:
        w = w + 1.0
    xh = x.to(dtype=ct).unflatten(-1, (n_heads, dh))
    y = F.rms_norm(input=xh, normalized_shape=(dh,), weight=w, eps=eps)
    return y.movedim(-2, -3).to(dtype=x.dtype)
''')
C("p1-einsum-float64-inside", "head_rms_norm",
  "float64 throughout (more precise than float32, a single rounding at the end), mean via einsum, scale applied with einsum into the (H, T, Dh) layout.",
  '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    D = x.shape[-1]
    if n_heads < 1 or D % n_heads:
        raise ValueError("bad n_heads")
    dh = D // n_heads
    xd = x.double().reshape(x.shape[:-1] + (n_heads, dh))
    wd = weight.double()
    s = wd + 1 if unit_offset else wd
    ms = torch.einsum("...thd,...thd->...th", xd, xd) / dh
    inv = (ms + eps).rsqrt()
    y = torch.einsum("...thd,...th,d->...htd", xd, inv, s)
    return y.to(x.dtype)
''')

# ---------------- Part 2: fused_swiglu ----------------
W("p2-limit-truthiness", "fused_swiglu",
  "'when limit is a number (0 included), replace g by min(g, limit)': `if limit:` clamps nothing for limit = 0.",
  "if limit is not None:", "if limit:")
W("p2-gate-clamped-both-sides", "fused_swiglu",
  "'replace g by min(g, limit) (clamped from above only)': clamps the gate from below too.",
  "g = g.clamp(max=limit)", "g = g.clamp(-limit, limit)")
W("p2-silu-over-beta", "fused_swiglu",
  "'beta = 0 gives g/2 (as sigma(0) = 1/2)': writes g*sigmoid(beta g) as silu(beta g)/beta, which is 0/0 = NaN for beta = 0.",
  "h = g * torch.sigmoid(beta * g) * u", "h = F.silu(beta * g) / beta * u")
W("p2-torch-mm-2d-only", "fused_swiglu",
  "'x has shape (..., D)': uses torch.mm, which only takes 2-D x; visible tests use (1, D).",
  "gu = x @ w_gate_up.T", "gu = torch.mm(x, w_gate_up.t())",
  "return h @ w_down.T", "return torch.mm(h, w_down.t())")
W("p2-manual-sigmoid-exp", "fused_swiglu",
  "'the hidden tests compare its gradients ... with the reference's': sigmoid as 1/(1+exp(-beta g)); for large -beta*g exp overflows to inf and the backward is inf/inf = NaN.",
  "h = g * torch.sigmoid(beta * g) * u", "h = g / (1 + torch.exp(-beta * g)) * u")
W("p2-up-clamped-above-only", "fused_swiglu",
  "'u by clamp(u, -limit, limit)': clamps u from above only, like the gate.",
  "u = u.clamp(-limit, limit)", "u = u.clamp(max=limit)")
C("p2-einsum-float64-unflatten", "fused_swiglu",
  "einsum over any leading axes, float64 inside and a cast back, interleaved split via unflatten, limit via torch.minimum with a tensor.",
  '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    xd, wd, dd = x.double(), w_gate_up.double(), w_down.double()
    gu = torch.einsum("...d,fd->...f", xd, wd)
    n = wd.shape[0] // 2
    if interleaved:
        pairs = gu.unflatten(-1, (n, 2))
        g, u = pairs[..., 0], pairs[..., 1]
    else:
        g, u = gu.split(n, dim=-1)
    if limit is not None:
        lim = torch.tensor(float(limit), dtype=torch.float64)
        g = torch.minimum(g, lim)
        u = torch.maximum(torch.minimum(u, lim), -lim)
    act = g * torch.special.expit(g * beta)
    return torch.einsum("...f,df->...d", act * u, dd).to(x.dtype)
''')

# ---------------- Part 3: moe_params ----------------
W("p3-skip-checks-all-dense", "moe_params",
  "'Raise a ValueError unless ... 1 <= top_k <= n_experts ... in every model (also one whose blocks are all dense)': skips the expert checks when every block is dense.",
  "    if not 1 <= top_k <= n_experts:", "    if first_dense < n_layers and not 1 <= top_k <= n_experts:")
W("p3-first-dense-unchecked", "moe_params",
  "'Raise a ValueError unless ... 0 <= first_dense <= n_layers': only checks first_dense >= 0, so first_dense > n_layers gives negative expert blocks.",
  "if not 0 <= first_dense <= n_layers:", "if first_dense < 0:")
W("p3-dense-hidden-zero-means-ffn", "moe_params",
  "'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")': falls back to ffn_hidden when dense_hidden is 0.",
  "first_dense * 3 * dim * dense_hidden", "first_dense * 3 * dim * (dense_hidden or ffn_hidden)")
W("p3-too-strict-dim-heads", "moe_params",
  "'of width head_dim (which need not be dim / n_heads)': refuses a dim that n_heads does not divide.",
  "    if n_shared < 0:", "    if dim % n_heads != 0:\n        raise ValueError('dim')\n    if n_shared < 0:")
W("p3-asserts", "moe_params",
  "'Raise a ValueError unless ...': uses assert statements (AssertionError).",
  src='''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    assert n_kv_heads >= 1 and n_heads % n_kv_heads == 0
    assert 1 <= top_k <= n_experts and n_shared >= 0 and 0 <= first_dense <= n_layers
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    common = emb + dim + n_layers * (attn + 2 * dim) + first_dense * 3 * dim * dense_hidden
    moe = n_layers - first_dense
    expert = 3 * dim * ffn_hidden
    total = common + moe * (dim * n_experts + (n_experts + n_shared) * expert)
    active = common + moe * (dim * n_experts + (top_k + n_shared) * expert)
    return total, active
''')
W("p3-too-strict-dense-hidden", "moe_params",
  "'dense_hidden is that width whatever its value (0 means no parameters)': refuses first_dense > 0 with dense_hidden = 0.",
  "    if n_shared < 0:", "    if first_dense > 0 and dense_hidden < 1:\n        raise ValueError('dense_hidden')\n    if n_shared < 0:")
C("p3-loop-per-block", "moe_params",
  "a loop over blocks adding per-block counts, validation first, booleans for tied via int(); exact ints.",
  '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    problems = []
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        problems.append("heads")
    if top_k < 1 or top_k > n_experts:
        problems.append("top_k")
    if n_shared < 0:
        problems.append("n_shared")
    if first_dense < 0 or first_dense > n_layers:
        problems.append("first_dense")
    if problems:
        raise ValueError(", ".join(problems))
    swiglu = lambda width: 3 * dim * width
    total = active = vocab * dim * (2 - int(bool(tied))) + dim
    for layer in range(n_layers):
        block = 2 * dim + dim * head_dim * (2 * n_heads + 2 * n_kv_heads)
        if layer < first_dense:
            total += block + swiglu(dense_hidden)
            active += block + swiglu(dense_hidden)
        else:
            total += block + dim * n_experts + (n_experts + n_shared) * swiglu(ffn_hidden)
            active += block + dim * n_experts + (top_k + n_shared) * swiglu(ffn_hidden)
    return total, active
''')

# ---------------- Part 4: masked_lm_loss ----------------
W("p4-log-of-softmax", "masked_lm_loss",
  "'-log softmax(l)_y' with scores 'large enough that a softmax ... overflows' (intro): takes log(softmax(.)), which underflows to log(0) = -inf for a token far below the maximum.",
  "    nll = lse - sel.gather(-1, y[:, None])[:, 0]\n",
  "    nll = -torch.log(torch.softmax(sel, dim=-1).gather(-1, y[:, None])[:, 0])\n")
W("p4-per-row-mean", "masked_lm_loss",
  "'loss is the mean over those tokens, every token weighing the same however many a row has': averages per row, then over rows (visible B = 1).",
  "    loss = (nll + z_loss * lse ** 2).sum() / count\n",
  "    per = nll + z_loss * lse ** 2\n    rows = m.nonzero()[:, 0]\n    row_means = [per[rows == b].mean() for b in range(m.shape[0]) if bool((rows == b).any())]\n    loss = torch.stack(row_means).mean()\n")
W("p4-exp-without-max", "masked_lm_loss",
  "intro: 'scores large enough that a softmax which does not subtract the row maximum overflows': log Z as log(sum(exp(l))).",
  "lse = torch.logsumexp(sel, dim=-1)", "lse = torch.log(torch.exp(sel).sum(dim=-1))")
W("p4-zloss-square-of-mean", "masked_lm_loss",
  "'Each predicted token contributes ... + z (log Z)^2': adds z * (mean log Z)^2 instead of the mean of the squares (visible logits all equal).",
  "    loss = (nll + z_loss * lse ** 2).sum() / count\n",
  "    loss = nll.mean() + z_loss * lse.mean() ** 2\n")
W("p4-cross-entropy-int32", "masked_lm_loss",
  "'ids (B, T) holds integer token ids (int64 or int32)': F.cross_entropy without .long() fails for int32 ids.",
  src='''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    sel = logits[:, :-1][m].to(ct)
    y = ids[:, 1:][m]
    loss = F.cross_entropy(sel, y, reduction="sum")
    loss = loss + z_loss * (torch.logsumexp(sel, -1) ** 2).sum()
    return loss / count, count
''')
W("p4-zloss-over-all-positions", "masked_lm_loss",
  "'Each predicted token contributes ... z (log Z)^2' and 'The scores that predict nothing ... must change neither the loss': computes the z-term as the mean over every position.",
  "    loss = (nll + z_loss * lse ** 2).sum() / count\n",
  "    loss = nll.sum() / count + z_loss * (torch.logsumexp(logits.to(ct), dim=-1) ** 2).mean()\n")
W("p4-where-nan-backward", "masked_lm_loss",
  "'torch.where keeps the loss finite but not the backward pass': computes on every position and selects with torch.where (old class, NaN at unused positions).",
  src='''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    lg = logits[:, :-1].to(ct)
    lse = torch.logsumexp(lg, -1)
    tok = lg.gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    per = torch.where(m, lse - tok + z_loss * lse ** 2, torch.zeros((), dtype=ct))
    if count == 0:
        return torch.zeros((), dtype=ct), 0
    return per.sum() / count, count
''')
C("p4-cross-entropy-sum-keywords", "masked_lm_loss",
  "F.cross_entropy(reduction='sum') on the selected rows only, ids cast to long, boolean index through nonzero, float64 kept for float64.",
  '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    compute = torch.float64 if logits.dtype == torch.float64 else torch.float32
    where = target_mask[:, 1:].nonzero(as_tuple=True)
    count = len(where[0])
    if count == 0:
        return torch.tensor(0.0, dtype=compute), count
    rows = logits[where[0], where[1]].to(dtype=compute)
    targets = ids[where[0], where[1] + 1].to(dtype=torch.int64)
    nll = F.cross_entropy(input=rows, target=targets, reduction="sum")
    z = torch.logsumexp(rows, dim=-1).square().sum()
    return (nll + z * z_loss) / count, count
''')
C("p4-log-softmax-loop", "masked_lm_loss",
  "a Python loop over (b, t), log_softmax per row, sum then divide; mean over tokens.",
  '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    ct = torch.float64 if logits.dtype == torch.float64 else torch.float32
    B, T = ids.shape
    terms = []
    for b in range(B):
        for t in range(1, T):
            if bool(target_mask[b, t]):
                row = logits[b, t - 1].to(ct)
                logz = torch.logsumexp(row, 0)
                terms.append(-torch.log_softmax(row, 0)[int(ids[b, t])] + z_loss * logz * logz)
    if not terms:
        return torch.zeros((), dtype=ct), 0
    return torch.stack(terms).sum() / len(terms), len(terms)
''')

# ---------------- Part 5: block_variant ----------------
W("p5-is-comparison", "block_variant",
  "'Compare layout by value (==): the tests build the string at run time': compares with `is`.",
  src=CORRECT["block_variant"].replace('layout == "', 'layout is "'))
W("p5-case-insensitive", "block_variant",
  "'Any other layout (including ... other spellings such as \"Parallel\") raises a ValueError': lower-cases the layout first.",
  "    if layout == \"parallel\":", "    layout = layout.lower()\n    if layout == \"parallel\":")
W("p5-norm1-twice", "block_variant",
  "'the parallel layout computes N_1(x) once': calls norm_1 for each sublayer.",
  "        n = norm_1(x)\n        return x + attn(n) + ffn(n)", "        return x + attn(norm_1(x)) + ffn(norm_1(x))")
W("p5-dict-keyerror", "block_variant",
  "'Any other layout ... raises a ValueError': dispatches through a dict, so an unknown layout raises KeyError.",
  src='''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    def parallel():
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    def reordered():
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    def sandwich():
        if post_norms is None:
            raise ValueError("post_norms")
        h = x + post_norms[0](attn(norm_1(x)))
        return h + post_norms[1](ffn(norm_2(h)))
    return {"parallel": parallel, "reordered": reordered, "sandwich": sandwich}[layout]()
''')
W("p5-startswith", "block_variant",
  "'Any other layout ... raises a ValueError': accepts any string starting with the layout's first letters.",
  src=CORRECT["block_variant"].replace('layout == "parallel"', 'layout.startswith("par")').replace('layout == "reordered"', 'layout.startswith("reo")').replace('layout == "sandwich"', 'layout.startswith("san")'))
W("p5-reordered-uses-post-norms", "block_variant",
  "'the other two layouts ignore post_norms (they never call it)': reordered applies post_norms when given.",
  "        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))",
  "        if post_norms is not None:\n            h = x + post_norms[0](norm_1(attn(x)))\n            return h + post_norms[1](norm_2(ffn(h)))\n        h = x + norm_1(attn(x))\n        return h + norm_2(ffn(h))")
W("p5-check-after-attn", "block_variant",
  "'Check layout and post_norms before calling anything' (old class: error after work was done).",
  "        if post_norms is None:\n            raise ValueError(\"sandwich needs post_norms\")\n        p1, p2 = post_norms\n        h = x + p1(attn(norm_1(x)))",
  "        a = attn(norm_1(x))\n        if post_norms is None:\n            raise ValueError(\"sandwich needs post_norms\")\n        p1, p2 = post_norms\n        h = x + p1(a)")
C("p5-match-ffn-first", "block_variant",
  "a match statement (value patterns compare with ==), parallel calls ffn before attn (the text fixes no order), torch.add with keywords.",
  '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    match layout:
        case "parallel":
            n = norm_1(x)
            f = ffn(n)
            return torch.add(torch.add(x, attn(n)), f)
        case "reordered":
            h = torch.add(x, norm_1(attn(x)))
            return torch.add(h, norm_2(ffn(h)))
        case "sandwich" if post_norms is not None:
            first, second = post_norms
            h = x + first(attn(norm_1(x)))
            return h + second(ffn(norm_2(h)))
        case _:
            raise ValueError("unknown layout or missing post_norms")
''')

# ---------------- Part 6: rope_llama3 ----------------
W("p6-wavelength-without-2pi", "rope_llama3",
  "'the wavelength lambda_i = 2 pi / theta_i': uses 1 / theta_i; the visible test uses factor = 1, where every branch gives theta.",
  "wl = 2 * math.pi / theta", "wl = 1 / theta")
W("p6-smoothing-swapped", "rope_llama3",
  "'(1 - s_i) theta_i / f + s_i theta_i': swaps the weights of the two ends.",
  "mid = (1 - s) * theta / factor + s * theta", "mid = s * theta / factor + (1 - s) * theta")
W("p6-angles-float32", "rope_llama3",
  "'The product m theta'_i carries only about seven significant digits in float32 ... Compute the angles in float64': multiplies positions and frequencies in the compute dtype.",
  "    ang = positions.to(torch.float64)[:, None, :, None] * new\n    ct = torch.float64 if x.dtype == torch.float64 else torch.float32\n",
  "    ct = torch.float64 if x.dtype == torch.float64 else torch.float32\n    ang = positions.to(ct)[:, None, :, None] * new.to(ct)\n")
W("p6-no-shape-check-broadcast", "rope_llama3",
  "'Raise a ValueError unless ... positions.shape == (B, T) exactly (a (T,) or (1, T) tensor is refused too)': checks only Dh and broadcasts positions.",
  "if Dh % 2 != 0 or tuple(positions.shape) != (B, T):", "if Dh % 2 != 0:",
  "ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = positions.to(torch.float64).reshape(-1, 1, T, 1) * new")
W("p6-batch-on-head-axis", "rope_llama3",
  "'row b holds the positions of sequence b ... shared by all its heads': puts the batch of positions on the head axis ((1, B, T, half)); works only when B = 1 or B = H.",
  "ang = positions.to(torch.float64)[:, None, :, None] * new", "ang = positions.to(torch.float64)[None, :, :, None] * new")
W("p6-arange-step2-doubled", "rope_llama3",
  "'theta_i = b^(-2i/D_h) for i = 0 .. D_h/2 - 1': mixes HF's arange(0, Dh, 2) with the 2i of the formula, squaring every frequency's exponent step (visible only uses pair 0).",
  "i = torch.arange(half, dtype=torch.float64)", "i = torch.arange(0, Dh, 2, dtype=torch.float64)")
W("p6-odd-dh-runtimeerror", "rope_llama3",
  "'Raise a ValueError unless Dh is even': no parity check, odd Dh ends in a RuntimeError from cat/broadcast.",
  "if Dh % 2 != 0 or tuple(positions.shape) != (B, T):", "if tuple(positions.shape) != (B, T):")
W("p6-half-precision-compute", "rope_llama3",
  "'for float16 and bfloat16 inputs compute as for float32 and round once at the end': computes the rotation in x's dtype.",
  "ct = torch.float64 if x.dtype == torch.float64 else torch.float32", "ct = x.dtype")
C("p6-complex-polar", "rope_llama3",
  "complex numbers: pairs (x_i, x_{i+Dh/2}) as x_i + i x_{i+Dh/2}, multiplied by polar(1, m theta') with float64 angles; view_as_real and cat back.",
  '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    if x.dim() != 4:
        raise ValueError("x must be (B, H, T, Dh)")
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.shape != (B, T):
        raise ValueError("bad shapes")
    half = Dh // 2
    exps = torch.arange(half, dtype=torch.float64) * (2.0 / Dh)
    theta = torch.full((half,), float(base), dtype=torch.float64).pow(-exps)
    wavelen = 2 * math.pi / theta
    hi_wl, lo_wl = original_context / high_freq_factor, original_context / low_freq_factor
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    freqs = theta.clone()
    slow = wavelen > lo_wl
    freqs[slow] = theta[slow] / factor
    mid = ~(wavelen < hi_wl) & ~slow
    freqs[mid] = (1 - smooth[mid]) * theta[mid] / factor + smooth[mid] * theta[mid]
    angle = positions.double().unsqueeze(-1) * freqs          # (B, T, half)
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    rot = torch.polar(torch.ones_like(angle), angle).to(torch.complex128 if ct == torch.float64 else torch.complex64)
    xf = x.to(ct)
    z = torch.complex(xf[..., :half], xf[..., half:]) * rot[:, None]
    return torch.cat([z.real, z.imag], dim=-1).to(x.dtype)
''')
C("p6-int32-table-loop", "rope_llama3",
  "frequencies built in a Python loop with math functions (floats), a per-row loop over the batch, every argument of torch calls by keyword.",
  '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 == 1 or list(positions.shape) != [B, T]:
        raise ValueError("bad shapes")
    half = Dh // 2
    freqs = []
    for i in range(half):
        th = base ** (-2.0 * i / Dh)
        lam = 2 * math.pi / th
        if lam < original_context / high_freq_factor:
            freqs.append(th)
        elif lam > original_context / low_freq_factor:
            freqs.append(th / factor)
        else:
            s = (original_context / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
            freqs.append((1 - s) * th / factor + s * th)
    fr = torch.tensor(freqs, dtype=torch.float64)
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    rows = []
    for b in range(B):
        ang = torch.outer(positions[b].to(dtype=torch.float64), fr)      # (T, half)
        c = torch.cos(ang).to(dtype=ct)
        s_ = torch.sin(ang).to(dtype=ct)
        xb = x[b].to(dtype=ct)
        a, bb = xb[..., :half], xb[..., half:]
        rows.append(torch.cat((a * c - bb * s_, bb * c + a * s_), dim=-1))
    return torch.stack(rows, dim=0).to(dtype=x.dtype)
''')

# ---------------- Part 7: ragged_cached_attention ----------------
W("p7-not-causal-within-new", "ragged_cached_attention",
  "'query t of row b attends causally to its row's keys 0 .. lengths[b] + t': every new query sees all lengths[b] + T keys (visible T = 1).",
  "allowed = pos[None, None, :] <= (lengths.long()[:, None, None] + torch.arange(T)[None, :, None])",
  "allowed = pos[None, None, :] < (lengths.long()[:, None, None] + T) + 0 * torch.arange(T)[None, :, None]")
W("p7-write-through-reshape", "ragged_cached_attention",
  "'write into the tensors you are given (the .contiguous() of such a view is a copy...)': writes through a reshape of the caches, which is a copy for a non-contiguous view.",
  "    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]\n",
  "    kc = k_cache.reshape(B * G, S, Dh)\n    vc = v_cache.reshape(B * G, S, Dh)\n    for b in range(B):\n        L = int(lengths[b])\n        kc[b * G:(b + 1) * G, L:L + T] = k_new[b]\n        vc[b * G:(b + 1) * G, L:L + T] = v_new[b]\n    k_cache, v_cache = kc.reshape(B, G, S, Dh), vc.reshape(B, G, S, Dh)\n")
W("p7-no-HG-check", "ragged_cached_attention",
  "'Raise a ValueError (before writing anything) when H is not a multiple of G': no check; H = 3, G = 2 fails later with a RuntimeError after the caches were written.",
  "    if H % G != 0:\n        raise ValueError(\"H not a multiple of G\")\n", "")
W("p7-scores-mask-only-v-nan", "ragged_cached_attention",
  "'Unwritten slots must not change the output, even when they hold NaN or +-inf ... 0 x NaN': masks the scores but multiplies the raw V (old class).",
  "    v = torch.where(written[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))\n", "    v = v_cache\n")
W("p7-sdpa-float-mask-additive", "ragged_cached_attention",
  "'Unwritten slots must not change the output, even when they hold NaN or +-inf': zeroes V but feeds K with NaN to the scores, masked by adding -inf (NaN + -inf = NaN).",
  "    k = torch.where(written[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))\n", "    k = k_cache\n")
W("p7-lengths-as-long", "ragged_cached_attention",
  "'new_lengths a new tensor equal to lengths + T, in the dtype of lengths': converts int32 lengths to int64 first and returns that (old class: wrong dtype).",
  "    return out, lengths + T", "    return out, lengths.long() + T")
C("p7-per-row-loop-sdpa", "ragged_cached_attention",
  "loops over rows, slices only the valid keys of each row (so unwritten slots are never read), GQA through reshape of the query heads into groups, F.scaled_dot_product_attention with a boolean mask, in place index_copy_ writes.",
  '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if H % G:
        raise ValueError("H must be a multiple of G")
    ls = [int(v) for v in lengths.tolist()]
    if any(L + T > S for L in ls):
        raise ValueError("a row does not fit")
    for b, L in enumerate(ls):
        idx = torch.arange(L, L + T)
        k_cache[b].index_copy_(1, idx, k_new[b])
        v_cache[b].index_copy_(1, idx, v_new[b])
    outs = []
    r = H // G
    for b, L in enumerate(ls):
        kb, vb = k_cache[b, :, :L + T], v_cache[b, :, :L + T]          # (G, L+T, Dh)
        qb = q[b].reshape(G, r, T, Dh)
        mask = torch.arange(L + T)[None, :] <= (L + torch.arange(T))[:, None]   # (T, L+T)
        ob = F.scaled_dot_product_attention(qb, kb[:, None], vb[:, None], attn_mask=mask)
        outs.append(ob.reshape(H, T, Dh))
    return torch.stack(outs), lengths + T
''')

# ---------------- Part 8: generate_with_cache ----------------
W("p8-penalty-per-occurrence", "generate_with_cache",
  "'every token id that occurs ... has its score changed once (however often it occurs)': applies the penalty once per occurrence.",
  "        seen = torch.zeros_like(scores, dtype=torch.bool)\n        seen.scatter_(1, history, True)\n        pen = torch.where(scores > 0, scores / penalty, scores * penalty)\n        scores = torch.where(seen, pen, scores)\n",
  "        for b in range(B):\n            for tok in history[b].tolist():\n                s = scores[b, tok]\n                scores[b, tok] = s / penalty if s > 0 else s * penalty\n")
W("p8-always-divide", "generate_with_cache",
  "'a score above 0 is divided by penalty, any other score is multiplied by it': divides every seen score.",
  "pen = torch.where(scores > 0, scores / penalty, scores * penalty)", "pen = scores / penalty")
W("p8-history-without-prompt", "generate_with_cache",
  "'every token id that occurs in that row's prompt or among its tokens generated so far': penalises generated tokens only.",
  "    history = prompt.clone()\n", "    history = prompt[:, :0].clone()\n")
W("p8-feeds-pad-for-eos", "generate_with_cache",
  "'the call after a row produces eos_id feeds it that eos_id': feeds pad_id to rows finished this step.",
  "        logits, cache = step(nxt[:, None], cache)", "        logits, cache = step(torch.where(finished, torch.full_like(nxt, pad_id), nxt)[:, None], cache)")
W("p8-draw-only-unfinished", "generate_with_cache",
  "'A finished row still takes part in the draw (the batch always draws B tokens per step)': draws only for unfinished rows.",
  "            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]\n",
  "            probs = torch.softmax(scores / temperature, dim=-1)\n            nxt = torch.full((B,), pad_id, dtype=torch.int64)\n            live = ~finished\n            if bool(live.any()):\n                nxt[live] = torch.multinomial(probs[live], 1, generator=generator)[:, 0]\n")
W("p8-step-after-last", "generate_with_cache",
  "'do not call step after the last token has been chosen': calls step at the end of every iteration, also after the last token of max_new_tokens.",
  "        if bool(finished.all()) or i == max_new_tokens - 1:\n            break\n        logits, cache = step(nxt[:, None], cache)\n",
  "        if bool(finished.all()):\n            break\n        logits, cache = step(nxt[:, None], cache)\n")
W("p8-cache-is-none-test", "generate_with_cache",
  "'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it': decides prompt vs new tokens by `cache is None`.",
  src='''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    cache = None
    feed = prompt
    finished = torch.zeros(B, dtype=torch.bool)
    history = prompt.clone()
    chosen = []
    for i in range(max_new_tokens):
        logits, cache = step(prompt if cache is None else feed, cache)
        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool)
        seen.scatter_(1, history, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            nxt = scores.argmax(dim=-1)
        else:
            nxt = torch.multinomial(torch.softmax(scores / temperature, dim=-1), 1, generator=generator)[:, 0]
        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)
        chosen.append(nxt)
        history = torch.cat([history, nxt[:, None]], dim=1)
        finished = finished | (nxt == eos_id)
        feed = nxt[:, None]
        if bool(finished.all()):
            break
    return torch.stack(chosen, dim=1)
''')
W("p8-history-drawn-not-pad", "generate_with_cache",
  "'its penalty history grows by pad_id like any other token': adds the drawn token to a finished row's history, not pad_id.",
  "        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        chosen.append(nxt)\n        history = torch.cat([history, nxt[:, None]], dim=1)\n",
  "        history = torch.cat([history, nxt[:, None]], dim=1)\n        nxt = torch.where(finished, torch.full_like(nxt, pad_id), nxt)\n        chosen.append(nxt)\n")
C("p8-per-row-draws-python-sets", "generate_with_cache",
  "one multinomial call per row in row order (the text says it draws the same numbers), penalty history in Python sets, logits copied by torch.clone; loop state in lists.",
  '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = [set(row) for row in prompt.tolist()]
    done = [False] * B
    out = []
    logits, cache = step(prompt, None)
    n = 0
    while True:
        scores = torch.clone(logits[:, -1])
        for b in range(B):
            ids = torch.tensor(sorted(seen[b]), dtype=torch.long)
            s = scores[b, ids]
            scores[b, ids] = torch.where(s > 0, s / penalty, s * penalty)
        if temperature == 0:
            picks = [int(torch.argmax(scores[b])) for b in range(B)]
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            picks = [int(torch.multinomial(probs[b:b + 1], 1, generator=generator)[0, 0]) for b in range(B)]
        picks = [pad_id if done[b] else picks[b] for b in range(B)]
        out.append(picks)
        n += 1
        for b in range(B):
            seen[b].add(picks[b])
            done[b] = done[b] or picks[b] == eos_id
        if all(done) or n == max_new_tokens:
            break
        logits, cache = step(torch.tensor(picks, dtype=torch.int64)[:, None], cache)
    return torch.tensor(out, dtype=torch.int64).T.contiguous()
''')
C("p8-penalty-after-temperature-gather", "generate_with_cache",
  "divides by the temperature first and penalises afterwards (same sign, so the same scores), penalty via gather/scatter on a copy; tokens kept in a preallocated tensor.",
  '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B, P = prompt.shape
    buf = torch.empty(B, P + max_new_tokens, dtype=torch.int64)
    buf[:, :P] = prompt
    logits, cache = step(prompt, None)
    finished = torch.zeros(B, dtype=torch.bool)
    n = 0
    while n < max_new_tokens:
        last = logits[:, -1]
        if temperature == 0:
            scaled = last.clone()
        else:
            scaled = last / temperature
        hist = buf[:, :P + n]
        got = scaled.gather(1, hist)
        scaled = scaled.scatter(1, hist, torch.where(got > 0, got / penalty, got * penalty))
        if temperature == 0:
            nxt = scaled.argmax(dim=1)
        else:
            nxt = torch.multinomial(scaled.softmax(dim=-1), num_samples=1, generator=generator).squeeze(1)
        nxt = nxt.masked_fill(finished, pad_id)
        buf[:, P + n] = nxt
        n += 1
        finished |= nxt == eos_id
        if bool(finished.all()) or n == max_new_tokens:
            break
        logits, cache = step(nxt.unsqueeze(1), cache)
    return buf[:, P:P + n].clone()
''')

# ---------------- hostile ----------------
SUBMISSIONS.append({"name": "H-patch-close-helper", "correct": False, "cells": {"moe_params": CORRECT["moe_params"].replace(
    "    if n_kv_heads < 1", "    g = globals()\n    for name in [n for n in g if n.startswith('_') and n[1:2] != '_' and callable(g[n])]:\n        g[name] = (lambda *a, **k: a[0] if a else None)\n    if n_kv_heads < 1").replace(
    "first_dense * 3 * dim * dense_hidden", "first_dense * 3 * dim * (dense_hidden or ffn_hidden)")},
    "why": "hostile: reassigns the grader's _ helpers in globals() on every call (and the dense_hidden = 0 slip underneath)."})
SUBMISSIONS.append({"name": "H-numpy-via-importlib-lying-int", "correct": False, "cells": {"fused_swiglu": '''
import importlib as il
np_ = il.import_module("nu" + "mpy")
class Liar(torch.Tensor):
    def __eq__(self, other):
        return True
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    a = np_.asarray(x.detach().to(torch.float64))
    gu = a @ np_.asarray(w_gate_up.detach().to(torch.float64)).T
    f = gu.shape[-1] // 2
    g, u = (gu[..., 0::2], gu[..., 1::2]) if interleaved else (gu[..., :f], gu[..., f:])
    h = g / (1 + np_.exp(-beta * g)) * u
    out = torch.from_numpy(h @ np_.asarray(w_down.detach().to(torch.float64)).T).to(x.dtype)
    return out.as_subclass(Liar)
'''}, "why": "hostile: imports NumPy through importlib, computes outside autograd, and returns a Tensor subclass whose == always says True."})
SUBMISSIONS.append({"name": "H-patch-torch-testing", "correct": False, "cells": {"rope_llama3": '''
import torch.testing as tt
tt.assert_close = lambda *a, **k: None
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    return x.clone()
'''}, "why": "hostile: patches torch.testing.assert_close / torch.allclose / torch.equal and returns x unchanged."})
