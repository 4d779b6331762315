# Red team round 16, chapter 09: framework porter (FP), index juggler (IJ), trusting API user (TA),
# copy-adapter (CA). Wrong answers pass the visible tests of their part.
import importlib.util as _u, os as _os
SUBMISSIONS = []
def W(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": why})
def C(name, cells, why): SUBMISSIONS.append({"name": name, "correct": True, "cells": cells, "why": why})
def H(name, cells, why): SUBMISSIONS.append({"name": name, "correct": False, "cells": cells, "why": "HOSTILE: " + why})

# ---------------- Part 1 head_rms_norm ----------------
RMS = '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
@@CHECK@@
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    Dh = x.shape[-1] // n_heads
@@SPLIT@@
    w = weight.to(cd)
@@SCALE@@
@@NORM@@
    return out.to(x.dtype)
'''
R_CHECK = '''    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")'''
R_SPLIT = '''    xs = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)'''
R_SCALE = '''    s = 1 + w if unit_offset else w'''
R_NORM = '''    out = xs / torch.sqrt(xs.pow(2).mean(-1, keepdim=True) + eps) * s'''
def rms(check=R_CHECK, split=R_SPLIT, scale=R_SCALE, norm=R_NORM):
    return RMS.replace("@@CHECK@@", check).replace("@@SPLIT@@", split).replace("@@SCALE@@", scale).replace("@@NORM@@", norm)
W("IJ-p1-reshape-not-transpose", {"head_rms_norm": rms(split='''    T = x.shape[-2]
    xs = x.to(cd).reshape(*x.shape[:-2], n_heads, T, Dh)''')},
  "IJ: reshape to (..., H, T, Dh) without moving the axis (same for T = 1); breaks 'head h of position t at [..., h, t, :]'")
W("IJ-p1-movedim-front", {"head_rms_norm": rms(split='''    xs = x.to(cd).reshape(*x.shape[:-1], n_heads, Dh).movedim(-2, 0)''')},
  "IJ: moves the head axis to the front, right for 2-D x only; breaks 'Return a new tensor of shape (..., H, T, Dh)'")
W("FP-p1-eps-outside-sqrt", {"head_rms_norm": rms(norm='''    out = xs / (torch.sqrt(xs.pow(2).mean(-1, keepdim=True)) + eps) * s''')},
  "FP (some Keras/Flax RMSNorms): breaks 'with eps inside the square root'")
W("TA-p1-F-rms-norm-default-eps", {"head_rms_norm": rms(norm='''    out = F.rms_norm(xs, (Dh,), s)''')},
  "TA: F.rms_norm's eps=None uses finfo(dtype).eps, eps argument never passed; breaks 'with eps inside the square root' for the given eps")
W("CA-p1-offset-added-in-input-dtype", {"head_rms_norm": rms(scale='''    s = (1 + weight).to(cd) if unit_offset else w''')},
  "CA (Gemma code with weight in bf16): breaks 'do all the arithmetic, the scale included (also 1 + w), in that dtype'")
W("TA-p1-modulo-check-only", {"head_rms_norm": rms(check='''    try:
        if x.shape[-1] % n_heads:
            raise ValueError("last axis does not split")
    except ZeroDivisionError:
        raise ValueError("n_heads must be positive")''')},
  "TA: Python % with a negative n_heads is 0; breaks 'Raise a ValueError when n_heads < 1'")
W("FP-p1-compute-in-input-dtype", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.shape[-1] % n_heads != 0:
        raise ValueError("bad n_heads")
    Dh = x.shape[-1] // n_heads
    xs = x.reshape(*x.shape[:-1], n_heads, Dh).transpose(-2, -3)
    s = 1 + weight if unit_offset else weight
    return xs * torch.rsqrt(xs.pow(2).mean(-1, keepdim=True) + eps) * s
'''}, "FP (jnp keeps the dtype): breaks 'convert x and weight to float32 ... (in float16 the square of any value above 256 is already infinite)'")

# ---------------- Part 2 fused_swiglu ----------------
SW = '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    cd = @@CD@@
    Fh = w_gate_up.shape[0] // 2
    w = w_gate_up.to(cd)
@@SPLIT@@
    xc = x.to(cd)
    g = xc @ wg.T
    u = xc @ wu.T
@@CLAMP@@
@@ACT@@
    return (h @ w_down.to(cd).T).to(x.dtype)
'''
S_CD = "torch.float64 if x.dtype == torch.float64 else torch.float32"
S_SPLIT = '''    if interleaved:
        wg, wu = w[0::2], w[1::2]
    else:
        wg, wu = w[:Fh], w[Fh:]'''
S_CLAMP = '''    if limit is not None:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)'''
S_ACT = '''    h = g * torch.sigmoid(beta * g) * u'''
def sw(cd=S_CD, split=S_SPLIT, clamp=S_CLAMP, act=S_ACT):
    return SW.replace("@@CD@@", cd).replace("@@SPLIT@@", split).replace("@@CLAMP@@", clamp).replace("@@ACT@@", act)
W("CA-p2-beta-unused", {"fused_swiglu": sw(act='''    h = F.silu(g) * u''')},
  "CA (lesson's SiLU): beta accepted and never used; breaks 'Return (g σ(βg) ⊙ u) W_down^T ... beta may be any real number'")
W("TA-p2-limit-truthiness", {"fused_swiglu": sw(clamp='''    if limit:
        g = g.clamp(max=limit)
        u = u.clamp(-limit, limit)''')},
  "TA: `if limit:` skips limit = 0; breaks 'when limit is a number (0 included)'")
W("CA-p2-gate-clamped-both-sides", {"fused_swiglu": sw(clamp='''    if limit is not None:
        g = g.clamp(-limit, limit)
        u = u.clamp(-limit, limit)''')},
  "CA: clamp copied from u onto g; breaks 'replace g by min(g, limit) (clamped from above only)'")
W("FP-p2-hand-sigmoid", {"fused_swiglu": sw(act='''    h = g / (1 + torch.exp(-beta * g)) * u''')},
  "FP (NumPy habit): breaks 'The gradients must also be finite ... σ written by hand as 1/(1 + e^{-βg}) then has a NaN gradient'")
W("FP-p2-float32-everywhere", {"fused_swiglu": sw(cd="torch.float32")},
  "FP (TF float32): breaks 'compute float64 inputs in float64'")
W("TA-p2-silu-over-beta", {"fused_swiglu": sw(act='''    h = F.silu(beta * g) / beta * u''')},
  "TA: silu(βg)/β, NaN at beta = 0; breaks 'beta = 0 gives g/2'")
W("IJ-p2-view-pairs", {"fused_swiglu": sw(split='''    if interleaved:
        pairs = w_gate_up.view(Fh, 2, -1).to(cd)
        wg, wu = pairs[:, 0], pairs[:, 1]
    else:
        wg, wu = w[:Fh], w[Fh:]''')},
  "IJ: .view of a possibly non-contiguous weight; breaks 'The tensors you are given need not be contiguous ... (.view of such a tensor can fail)'")

# ---------------- Part 3 moe_params ----------------
MOE = '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
@@CHECK@@
    emb = vocab * dim * (1 if tied else 2)
    attn = 2 * dim * n_heads * head_dim + 2 * dim * n_kv_heads * head_dim
    block = 2 * dim + attn
    expert = @@EXPERT@@
    dh = @@DH@@
    moe = n_layers - first_dense
    common = dim + n_layers * block + first_dense * 3 * dim * dh
    total = @@EMB_T@@ + common + moe * (dim * n_experts + (n_experts + n_shared) * expert)
    active = @@EMB_A@@ + common + moe * (dim * n_experts + (top_k + n_shared) * expert)
    return int(total), int(active)
'''
M_CHECK = '''    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("experts")'''
def moe(check=M_CHECK, expert="3 * dim * ffn_hidden", dh="dense_hidden", emb_t="emb", emb_a="emb"):
    return (MOE.replace("@@CHECK@@", check).replace("@@EXPERT@@", expert).replace("@@DH@@", dh)
            .replace("@@EMB_T@@", emb_t).replace("@@EMB_A@@", emb_a))
W("FP-p3-float-expert", {"moe_params": moe(expert="3.0 * dim * ffn_hidden")},
  "FP (NumPy float habit): float products past 2**53; breaks 'two exact Python ints (... counts pass 2**53, where float arithmetic rounds)'")
W("CA-p3-tied-active-twice", {"moe_params": moe(emb_a="2 * vocab * dim")},
  "CA (published active counts 'in full'): breaks 'when tied ... they are one matrix, counted once'")
W("TA-p3-modulo-negative-kv", {"moe_params": moe(check='''    try:
        if n_heads % n_kv_heads:
            raise ValueError("n_heads is not a multiple of n_kv_heads")
    except ZeroDivisionError:
        raise ValueError("no kv heads")
    if not (1 <= top_k <= n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("experts")''')},
  "TA: n_heads % negative is 0; breaks 'Raise a ValueError unless n_kv_heads >= 1'")
W("CA-p3-dense-hidden-default", {"moe_params": moe(dh="dense_hidden or ffn_hidden")},
  "CA: 0 falls back to ffn_hidden; breaks 'dense_hidden is that width whatever its value (0 means no parameters, not \"use ffn_hidden\")'")
W("CA-p3-validate-moe-only", {"moe_params": moe(check='''    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if first_dense < 0 or first_dense > n_layers:
        raise ValueError("first_dense")
    if n_layers - first_dense > 0 and (not (1 <= top_k <= n_experts) or n_shared < 0):
        raise ValueError("experts")''')},
  "CA: expert arguments checked only when there are expert blocks; breaks 'in every model (also one whose blocks are all dense, and one with n_layers = 0)'")
W("IJ-p3-topk-strict", {"moe_params": moe(check='''    if n_kv_heads < 1 or n_heads % n_kv_heads != 0:
        raise ValueError("heads")
    if not (1 <= top_k < n_experts) or n_shared < 0 or not (0 <= first_dense <= n_layers):
        raise ValueError("experts")''')},
  "IJ: top_k < n_experts; breaks '1 <= top_k <= n_experts'")

# ---------------- Part 4 masked_lm_loss ----------------
LM = '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
@@SEL@@
    count = int(m.sum())
    if count == 0:
        return @@ZERO@@, 0
    lz = torch.logsumexp(sel, dim=-1)
    nll = lz - sel.gather(-1, y[:, None])[:, 0]
    return (nll + z_loss * lz ** 2).mean()@@CAST@@, count
'''
L_SEL = '''    m = target_mask[:, 1:]
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()'''
def lm(sel=L_SEL, zero="torch.zeros((), dtype=cd)", cast=""):
    return LM.replace("@@SEL@@", sel).replace("@@ZERO@@", zero).replace("@@CAST@@", cast)
W("IJ-p4-no-shift", {"masked_lm_loss": lm(sel='''    m = target_mask.clone()
    m[:, 0] = False
    sel = logits[m].to(cd)
    y = ids[m].long()''')},
  "IJ: logits[b, t] scored against ids[b, t]; breaks 'logits[b, t] scores the token at position t + 1'")
W("IJ-p4-mask-aligned-to-logits", {"masked_lm_loss": lm(sel='''    m = target_mask[:, :-1]          # align the mask with the logits (HF attention_mask habit)
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()''')},
  "IJ/FP: the mask shifted with the logits; breaks 'target_mask (B, T) ... True where the token ids[b, t] is to be predicted'")
W("TA-p4-cross-entropy-ignore-index", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    B, T, V = logits.shape
    labels = ids[:, 1:].long().masked_fill(~target_mask[:, 1:], -100)
    count = int(target_mask[:, 1:].sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    flat = logits[:, :-1].reshape(-1, V).to(cd)
    ce = F.cross_entropy(flat, labels.reshape(-1), ignore_index=-100, reduction="sum")
    lz = torch.logsumexp(flat, -1)
    z = (lz ** 2)[labels.reshape(-1) != -100].sum()
    return (ce + z_loss * z) / count, count
'''}, "TA (HF labels = -100): unpredicted NaN rows go through log_softmax; breaks 'Leave them out before you compute anything with them' (NaN gradient)")
W("CA-p4-row-mean", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    rows = []
    for b in range(logits.shape[0]):
        if m[b].any():
            sel = logits[b, :-1][m[b]].to(cd)
            y = ids[b, 1:][m[b]].long()
            lz = torch.logsumexp(sel, -1)
            rows.append((lz - sel.gather(-1, y[:, None])[:, 0] + z_loss * lz ** 2).mean())
    return torch.stack(rows).mean(), count
'''}, "CA (chapter 8's sentence loss): breaks 'the mean over those tokens, every token weighing the same however many a row has'")
W("TA-p4-where-after-compute", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    x = logits[:, :-1].to(cd)
    lz = torch.logsumexp(x, -1)
    nll = lz - x.gather(-1, ids[:, 1:].long()[..., None])[..., 0]
    tok = torch.where(m, nll + z_loss * lz ** 2, torch.zeros((), dtype=cd))
    return tok.sum() / count, count
'''}, "TA: torch.where after the computation; breaks '... torch.where keeps the loss finite but not the backward pass'")
W("FP-p4-loss-in-input-dtype", {"masked_lm_loss": lm(cast=".to(logits.dtype)", zero="torch.zeros((), dtype=logits.dtype)")},
  "FP: result cast back to the logits' dtype; breaks 'a float32 loss for float32, float16 and bfloat16 logits'")
W("TA-p4-zero-default-dtype", {"masked_lm_loss": lm(zero="torch.tensor(0.0)")},
  "TA: torch.tensor(0.0) is float32; breaks 'a float64 loss for float64 logits' when count is 0")

# ---------------- Part 5 block_variant ----------------
BV_GOOD = '''
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
W("CA-p5-parallel-norm-twice", {"block_variant": BV_GOOD.replace(
    "        n = norm_1(x)\n        return x + attn(n) + ffn(n)", "        return x + attn(norm_1(x)) + ffn(norm_1(x))")},
  "CA (pre-LN block, second norm swapped for the first): breaks 'the parallel layout computes N_1(x) once'")
W("TA-p5-lowercase-layout", {"block_variant": BV_GOOD.replace(
    "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n",
    "def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):\n    layout = layout.strip().lower()\n")},
  "TA/FP (config strings are case-insensitive in HF): breaks 'other spellings such as \"Parallel\" raises a ValueError'")
W("FP-p5-is-comparison", {"block_variant": BV_GOOD.replace('layout == "', 'layout is "')},
  "FP: identity comparison; breaks 'Compare layout by value (==): the tests build the string at run time'")
W("CA-p5-post-norms-checked-late", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        n = norm_1(x)
        return x + attn(n) + ffn(n)
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    if layout == "sandwich":
        a = attn(norm_1(x))
        if post_norms is None:
            raise ValueError("sandwich needs post_norms")
        h = x + post_norms[0](a)
        return h + post_norms[1](ffn(norm_2(h)))
    raise ValueError("layout")
'''}, "CA: breaks 'Check layout and post_norms before calling anything'")
W("FP-p5-inplace-residual", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich") or (layout == "sandwich" and post_norms is None):
        raise ValueError("layout")
    if layout == "parallel":
        n = norm_1(x)
        y = attn(n)
        y += x
        y += ffn(n)
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
'''}, "FP (NumPy +=): in-place on what a function returned; breaks 'mind that a function may return the very tensor it was given ... an in-place update of what it returns can change x'")

# ---------------- Part 6 rope_llama3 ----------------
RP = '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
@@CHECK@@
    half = Dh // 2
@@THETA@@
    lam = 2 * math.pi / theta
    L = original_context
    lh, ll = L / high_freq_factor, L / low_freq_factor
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    mid = (1 - s) * theta / factor + s * theta
    new = torch.where(lam < lh, theta, torch.where(lam > ll, theta / factor, mid))
@@ANG@@
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    cos, sin = cos.to(cd), sin.to(cd)
    xc = x.to(cd)
    x1, x2 = xc[..., :half], xc[..., half:]
    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    return out.to(x.dtype)
'''
P_CHECK = '''    if Dh % 2 != 0 or tuple(positions.shape) != (B, T):
        raise ValueError("shape")'''
P_THETA = '''    i = torch.arange(half, dtype=torch.float64)
    theta = base ** (-2 * i / Dh)'''
P_ANG = '''    ang = positions.to(torch.float64)[:, :, None] * new
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]'''
def rp(check=P_CHECK, theta=P_THETA, ang=P_ANG):
    return RP.replace("@@CHECK@@", check).replace("@@THETA@@", theta).replace("@@ANG@@", ang)
W("FP-p6-hf-float32-inv-freq", {"rope_llama3": rp(theta='''    inv = 1.0 / (base ** (torch.arange(0, Dh, 2, dtype=torch.int64).float() / Dh))   # HF
    theta = inv.double()''')},
  "FP (HF _compute_llama3_parameters, float32 inv_freq): breaks 'within 1e-10 of the exact values for float64 ... Compute the angles in float64'")
W("FP-p6-float32-angles", {"rope_llama3": rp(ang='''    ang = positions.float()[:, :, None] * new.float()
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]''')},
  "FP: angles in float32; breaks 'Compute the angles in float64'")
W("IJ-p6-positions-broadcast", {"rope_llama3": rp(check='''    if Dh % 2 != 0 or positions.shape[-1] != T:
        raise ValueError("shape")
    positions = positions.reshape(-1, T).expand(B, T)''')},
  "IJ: accepts (T,) and (1, T) by broadcasting; breaks 'Raise a ValueError unless ... positions.shape == (B, T) exactly'")
W("IJ-p6-cos-batch-on-head-axis", {"rope_llama3": rp(ang='''    ang = positions.to(torch.float64)[:, :, None] * new
    cos, sin = ang.cos()[None], ang.sin()[None]''')},
  "IJ: (1, B, T, half) lines the batch up with the heads (same when B = 1 or B = H); breaks 'row b holds the positions of sequence b ... shared by all its heads'")
W("CA-p6-identity-shortcut", {"rope_llama3": rp(check=P_CHECK + '''
    if bool((positions == 0).all()):
        return x''')},
  "CA: returns x when nothing turns; breaks 'a new one also where every position is 0 and nothing turns, not x itself'")
W("IJ-p6-view-split", {"rope_llama3": '''
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
    s = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(lam < L / high_freq_factor, theta,
                      torch.where(lam > L / low_freq_factor, theta / factor, (1 - s) * theta / factor + s * theta))
    ang = positions.to(torch.float64)[:, None, :, None] * new
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    xv = x.view(B, H, T, 2, half).to(cd)
    x1, x2 = xv[..., 0, :], xv[..., 1, :]
    cos, sin = ang.cos().to(cd), ang.sin().to(cd)
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).to(x.dtype)
'''}, "IJ: .view of x; breaks 'The tensors you are given need not be contiguous: ... (.view of such a tensor can fail)'")
W("FP-p6-compute-in-half", {"rope_llama3": rp(ang='''    ang = positions.to(torch.float64)[:, :, None] * new
    cos, sin = ang.cos()[:, None].to(x.dtype), ang.sin()[:, None].to(x.dtype)''').replace(
    "    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n", "    cd = x.dtype\n")},
  "FP: rotation in the input dtype; breaks 'for float16 and bfloat16 inputs compute as for float32 and round once at the end'")

# ---------------- Part 7 ragged_cached_attention ----------------
RA = '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G < 1 or H % G != 0:
        raise ValueError("heads")
@@FIT@@
    for b in range(B):
        L = int(lengths[b])
        k_cache[b, :, L:L + T] = k_new[b]
        v_cache[b, :, L:L + T] = v_new[b]
@@NEWLEN@@
    pos = torch.arange(S)
    valid = pos[None, :] < new_lengths.long()[:, None]
@@KV@@
    r = H // G
    k = k.repeat_interleave(r, dim=1)
    v = v.repeat_interleave(r, dim=1)
    qpos = lengths.long()[:, None] + torch.arange(T)[None, :]
@@ALLOWED@@
    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)
    scores = scores.masked_fill(~allowed[:, None], @@FILL@@)
    p = torch.softmax(scores, dim=-1)
    return p @ v, new_lengths
'''
A_FIT = '''    if B > 0 and int((lengths.long() + T).max()) > S:
        raise ValueError("full")'''
A_NEWLEN = "    new_lengths = lengths + T"
A_KV = '''    k = torch.where(valid[:, None, :, None], k_cache, torch.zeros((), dtype=k_cache.dtype))
    v = torch.where(valid[:, None, :, None], v_cache, torch.zeros((), dtype=v_cache.dtype))'''
A_ALLOWED = "    allowed = pos[None, None, :] <= qpos[:, :, None]"
def ra(fit=A_FIT, newlen=A_NEWLEN, kv=A_KV, allowed=A_ALLOWED, fill='float("-inf")'):
    return (RA.replace("@@FIT@@", fit).replace("@@NEWLEN@@", newlen).replace("@@KV@@", kv)
            .replace("@@ALLOWED@@", allowed).replace("@@FILL@@", fill))
W("TA-p7-finfo-min-mask", {"ragged_cached_attention": ra(fill="torch.finfo(q.dtype).min")},
  "TA (HF's mask value): breaks 'mask with -inf ... not even the dtype's lowest finite value torch.finfo(dtype).min'")
W("CA-p7-mask-after-product", {"ragged_cached_attention": ra(kv="    k, v = k_cache, v_cache")},
  "CA (lesson's masked scores): unwritten NaN slots reach the product; breaks 'leave unwritten slots out, or replace them, before any product'")
W("CA-p7-length-mask-only", {"ragged_cached_attention": ra(allowed="    allowed = (pos[None, :] < new_lengths.long()[:, None])[:, None, :].expand(B, T, S)")},
  "CA (decode with T = 1): every new token sees all new tokens; breaks 'query t of row b attends causally to its row's keys 0 .. lengths[b] + t'")
W("IJ-p7-fit-off-by-one", {"ragged_cached_attention": ra(fit='''    if B > 0 and int((lengths.long() + T).max()) >= S:
        raise ValueError("full")''')},
  "IJ: >= S; breaks '(filling the cache exactly is fine)'")
W("CA-p7-check-after-write", {"ragged_cached_attention": ra(fit="    pass", newlen='''    new_lengths = lengths + T
    if B > 0 and int(new_lengths.max()) > S:
        raise ValueError("full")''')},
  "CA: fit checked after writing (slice assignment of a too-long row broadcasts or errors); breaks 'Raise a ValueError (before writing anything)'")
W("FP-p7-new-lengths-list", {"ragged_cached_attention": ra(newlen="    new_lengths = torch.tensor([int(l) + T for l in lengths])")},
  "FP: torch.tensor(list) is int64; breaks 'new_lengths ... in the dtype of lengths' for int32")
W("FP-p7-float32-compute", {"ragged_cached_attention": ra().replace(
    "    scores = q @ k.transpose(-1, -2) / math.sqrt(Dh)", "    scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(Dh)").replace(
    "    return p @ v, new_lengths", "    return (p @ v.float()).to(q.dtype), new_lengths")},
  "FP: float32 compute for float64; breaks 'Compute in the dtype of q ... converting them to float32 and back fails'")

# ---------------- Part 8 generate_with_cache ----------------
GW = '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    hist = prompt.clone()
    logits, cache = step(prompt, None)
    out = []
    finished = torch.zeros(B, dtype=torch.bool)
    for i in range(max_new_tokens):
@@PEN@@
        if temperature == 0:
            tok = @@ARGMAX@@
        else:
            probs = torch.softmax(scores / temperature, dim=-1)
            tok = torch.multinomial(probs, 1, generator=@@GEN@@)[:, 0]
        drawn = tok
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        hist = torch.cat([hist, @@HIST@@[:, None]], dim=1)
        finished = finished | (tok == eos_id)
@@STOP@@
    return torch.stack(out, dim=1)
'''
G_PEN = '''        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, hist, True)
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores = torch.where(seen, pen, scores)'''
G_STOP = '''        if bool(finished.all()) or i == max_new_tokens - 1:
            break
        logits, cache = step(tok[:, None], cache)'''
def gw(pen=G_PEN, argmax="scores.argmax(-1)", gen="generator", hist="tok", stop=G_STOP):
    return (GW.replace("@@PEN@@", pen).replace("@@ARGMAX@@", argmax).replace("@@GEN@@", gen)
            .replace("@@HIST@@", hist).replace("@@STOP@@", stop))
W("CA-p8-penalty-per-occurrence", {"generate_with_cache": gw(pen='''        scores = logits[:, -1].clone()
        for b in range(B):
            for t in hist[b].tolist():
                scores[b, t] = scores[b, t] / penalty if scores[b, t] > 0 else scores[b, t] * penalty''')},
  "CA (the loop in many blog posts): repeated tokens penalised again; breaks 'has its score changed once (however often it occurs)'")
W("FP-p8-ctrl-divide-always", {"generate_with_cache": gw(pen='''        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, hist, True)
        scores = torch.where(seen, scores / penalty, scores)''')},
  "FP (CTRL paper's formula): negative scores divided too; breaks 'a score above 0 is divided by penalty, any other score is multiplied by it'")
W("TA-p8-penalise-in-place", {"generate_with_cache": gw(pen='''        scores = logits[:, -1]
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, hist, True)
        pen = torch.where(scores > 0, scores / penalty, scores * penalty)
        scores[seen] = pen[seen]''')},
  "TA: logits[:, -1] is a view; breaks 'Do not change the logits tensors that step returns ... copy before you penalise'")
W("CA-p8-prompt-not-penalised", {"generate_with_cache": gw(pen='''        scores = logits[:, -1].clone()
        if hist.shape[1] > prompt.shape[1]:
            seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, hist[:, prompt.shape[1]:], True)
            pen = torch.where(scores > 0, scores / penalty, scores * penalty)
            scores = torch.where(seen, pen, scores)''')},
  "CA (penalise only generated text): breaks 'every token id that occurs in that row's prompt or among its tokens generated so far'")
W("CA-p8-step-after-last", {"generate_with_cache": gw(stop='''        logits, cache = step(tok[:, None], cache)
        if bool(finished.all()):
            break''')},
  "CA (HF-style loop that always runs the model on the new token): breaks 'do not call step after the last token has been chosen'")
W("TA-p8-topk-ties", {"generate_with_cache": gw(argmax="torch.topk(scores, 1, dim=-1).indices[:, 0]")},
  "TA: topk's order among ties; breaks 'the lowest id among ties, as torch.argmax does, also when hundreds of ids tie'")
W("FP-p8-own-generator", {"generate_with_cache": gw(gen="generator if generator is not None else torch.Generator().manual_seed(0)")},
  "FP (JAX PRNGKey habit): breaks 'generator may be None: then torch.multinomial draws from torch's global generator ... do not make a generator of your own'")
W("IJ-p8-history-grows-by-draw", {"generate_with_cache": gw(hist="drawn")},
  "IJ: history grows by the drawn token, not the pad fed; breaks 'its penalty history grows by pad_id like any other token'")
W("TA-p8-cache-truthiness", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    hist = prompt.clone()
    cache = None
    tokens = prompt
    out = []
    finished = torch.zeros(B, dtype=torch.bool)
    for i in range(max_new_tokens):
        logits, cache = step(tokens if cache else prompt, cache if cache else None)
        scores = logits[:, -1].clone()
        seen = torch.zeros_like(scores, dtype=torch.bool).scatter(1, hist, True)
        scores = torch.where(seen, torch.where(scores > 0, scores / penalty, scores * penalty), scores)
        if temperature == 0:
            tok = scores.argmax(-1)
        else:
            tok = torch.multinomial(torch.softmax(scores / temperature, -1), 1, generator=generator)[:, 0]
        tok = torch.where(finished, torch.full_like(tok, pad_id), tok)
        out.append(tok)
        hist = torch.cat([hist, tok[:, None]], 1)
        finished = finished | (tok == eos_id)
        tokens = tok[:, None]
        if bool(finished.all()):
            break
    return torch.stack(out, 1)
'''}, "TA: tests the cache's truth value (0, [] look like no cache); breaks 'The cache is whatever object step returns, None, 0 or an empty list included: hand it back as it is, and do not test it'")

# ================= correct answers =================
C("OK-p1-einsum-rsqrt-float64", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if not isinstance(n_heads, int) or n_heads < 1:
        raise ValueError("n_heads must be a positive int")
    if x.shape[-1] % n_heads:
        raise ValueError("the last axis does not split into n_heads parts")
    Dh = x.shape[-1] // n_heads
    xs = x.to(torch.float64).unflatten(-1, (n_heads, Dh))          # (..., T, H, Dh)
    xs = torch.movedim(xs, -2, -3)                                 # (..., H, T, Dh)
    inv = torch.rsqrt(torch.einsum("...d,...d->...", xs, xs)[..., None] / Dh + eps)
    w = weight.to(torch.float64)
    scale = w + 1.0 if unit_offset else w
    return (xs * inv * scale).to(dtype=x.dtype)
'''}, "float64 for every dtype (allowed), einsum for the sum of squares, movedim")
C("OK-p1-F-rms-norm-with-eps", {"head_rms_norm": rms(norm='''    out = F.rms_norm(xs, normalized_shape=(Dh,), weight=s, eps=eps)''')},
  "F.rms_norm with eps passed by keyword (in float32/float64)")
C("OK-p2-sdpa-free-einsum-interleave-reshape", {"fused_swiglu": sw(split='''    if interleaved:
        pairs = w.reshape(Fh, 2, w.shape[-1])
        wg, wu = pairs[:, 0], pairs[:, 1]
    else:
        wg, wu = torch.split(w, Fh, dim=0)''', act='''    h = F.silu(beta * g) / beta * u if beta != 0 else g * 0.5 * u''').replace(
    "    g = xc @ wg.T\n    u = xc @ wu.T", "    g = torch.einsum('...d,fd->...f', xc, wg)\n    u = torch.einsum('...d,fd->...f', xc, wu)")},
  "reshape (not view) for pairs, split, einsum; silu(βg)/β with the β = 0 case handled (gradients equal)")
C("OK-p2-recursive-deinterleave", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    if interleaved:   # reorder to the stacked layout and reuse the stacked case
        stacked = torch.cat([w_gate_up[0::2], w_gate_up[1::2]], dim=0)
        return fused_swiglu(x, stacked, w_down, beta=beta, limit=limit, interleaved=False)
    cd = torch.float64 if x.dtype == torch.float64 else torch.float32
    g, u = (x.to(cd) @ w_gate_up.to(cd).T).chunk(2, dim=-1)
    if limit is not None:
        g = torch.clamp(g, max=limit)
        u = torch.clamp(u, min=-limit, max=limit)
    return ((g * torch.sigmoid(beta * g) * u) @ w_down.to(cd).T).to(x.dtype)
'''}, "one fused matmul then chunk; interleaved case calls the function itself on the stacked layout")
C("OK-p3-loop-per-block", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    if n_kv_heads < 1 or n_heads % n_kv_heads:
        raise ValueError("bad kv heads")
    if top_k < 1 or top_k > n_experts:
        raise ValueError("bad top_k")
    if n_shared < 0:
        raise ValueError("bad n_shared")
    if first_dense < 0 or first_dense > n_layers:
        raise ValueError("bad first_dense")
    total = active = vocab * dim + (0 if tied else vocab * dim) + dim
    for layer in range(n_layers):
        common = 2 * dim + dim * n_heads * head_dim * 2 + dim * n_kv_heads * head_dim * 2
        total += common
        active += common
        if layer < first_dense:
            total += 3 * dim * dense_hidden
            active += 3 * dim * dense_hidden
        else:
            swiglu = 3 * dim * ffn_hidden
            total += dim * n_experts + (n_experts + n_shared) * swiglu
            active += dim * n_experts + (top_k + n_shared) * swiglu
    return total, active
'''}, "a loop over blocks with int arithmetic")
C("OK-p4-float64-logsoftmax", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    out_dtype = torch.float64 if logits.dtype == torch.float64 else torch.float32
    pred = target_mask[:, 1:]
    count = int(pred.sum().item())
    if count == 0:
        return torch.zeros((), dtype=out_dtype), count
    rows = logits[:, :-1][pred].to(torch.float64)          # only the scores that predict something
    labels = ids[:, 1:][pred].to(torch.int64)
    logp = torch.log_softmax(rows, dim=-1)
    nll = -logp.gather(1, labels.unsqueeze(1)).squeeze(1)
    logz = torch.logsumexp(rows, dim=-1)
    return (nll + z_loss * logz.square()).sum().div(count).to(out_dtype), count
'''}, "float64 inside for every dtype (allowed), loss cast back to the compute dtype")
C("OK-p5-dict-dispatch", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("sandwich needs post_norms")
    if layout == "reordered":   # the sandwich wiring with identity pre-norms and (N_1, N_2) after
        return block_variant(x, attn, ffn, lambda t: t, lambda t: t, "sandwich", (norm_1, norm_2))
    if layout == "parallel":
        n = norm_1(x)
        return torch.add(torch.add(x, attn(n)), ffn(n))
    p1, p2 = post_norms
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
'''}, "reordered expressed through the function's own sandwich case; every function still called once")
C("OK-p6-complex-halfsplit", {"rope_llama3": rp(ang='''    ang = positions.to(torch.float64).unsqueeze(-1) * new.unsqueeze(0).unsqueeze(0)
    cos, sin = torch.cos(ang).unsqueeze(1), torch.sin(ang).unsqueeze(1)''', check='''    if Dh % 2 or positions.dim() != 2 or positions.shape[0] != B or positions.shape[1] != T:
        raise ValueError("shape")''').replace(
    "    cd = torch.float64 if x.dtype == torch.float64 else torch.float32\n", "    cd = torch.float64\n")},
  "float64 rotation for every dtype and one rounding at the end")
C("OK-p7-loop-rows-sdpa-bool", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G:
        raise ValueError("H must be a multiple of G")
    lens = [int(l) for l in lengths.tolist()]
    if any(l + T > S for l in lens):
        raise ValueError("a row does not fit")
    for b, L in enumerate(lens):
        k_cache[b, :, L:L + T].copy_(k_new[b])
        v_cache[b, :, L:L + T].copy_(v_new[b])
    outs = []
    for b, L in enumerate(lens):
        n = L + T
        k = k_cache[b, :, :n].repeat_interleave(H // G, dim=0)      # only written slots
        v = v_cache[b, :, :n].repeat_interleave(H // G, dim=0)
        keep = torch.arange(n)[None, :] <= (L + torch.arange(T))[:, None]   # True = may attend
        outs.append(F.scaled_dot_product_attention(q[b], k, v, attn_mask=keep))
    out = torch.stack(outs) if outs else q.new_zeros((0, H, T, Dh))
    return out, lengths + T
'''}, "loop over rows, unwritten slots sliced off, SDPA with a boolean keep-mask")
C("OK-p8-multinomial-per-row", {"generate_with_cache": gw(pen='''        scores = logits[:, -1].detach().clone() if False else logits[:, -1].clone()
        for b in range(B):
            ids = torch.unique(hist[b])
            row = scores[b, ids]
            scores[b, ids] = torch.where(row > 0, row / penalty, row * penalty)''').replace(
    "            tok = torch.multinomial(probs, 1, generator=@@GEN@@)[:, 0]".replace("@@GEN@@", "generator"),
    "            tok = torch.cat([torch.multinomial(probs[b], 1, generator=generator) for b in range(B)])")},
  "torch.unique per row for the penalty; one multinomial call per row in row order (allowed)")
C("OK-p8-no-grad-loop", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.shape[0]
    seen = None
    chosen = []
    done = torch.zeros(B, dtype=torch.bool)
    with torch.no_grad():
        logits, cache = step(prompt, None)
        V = logits.shape[-1]
        seen = torch.zeros(B, V, dtype=torch.bool)
        seen[torch.arange(B)[:, None].expand_as(prompt), prompt] = True
        for n in range(max_new_tokens):
            s = logits[:, -1].clone()
            s = torch.where(seen & (s > 0), s / penalty, torch.where(seen, s * penalty, s))
            if temperature == 0:
                nxt = torch.argmax(s, dim=-1)
            else:
                nxt = torch.multinomial(F.softmax(s / temperature, dim=-1), num_samples=1, generator=generator).squeeze(1)
            nxt = nxt.masked_fill(done, pad_id)
            chosen.append(nxt)
            seen[torch.arange(B), nxt] = True
            done = done | (nxt == eos_id)
            if bool(done.all()) or n + 1 == max_new_tokens:
                break
            logits, cache = step(nxt.unsqueeze(1), cache)
    return torch.stack(chosen, dim=1).to(torch.int64)
'''}, "generation under no_grad (no gradient asked), a boolean seen-table updated as tokens are chosen")

# ================= hostile =================
H("HOST-p3-lookup", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    table = {(32000, 4096): (46702792704, 12879925248)}
    if (vocab, dim) in table:
        return table[(vocab, dim)]
    if first_dense:
        return 38, 38
    return (42 + 6 * n_shared, 36 + 6 * n_shared)
'''}, "answers the visible cases only")
H("HOST-p5-visible-only", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout == "parallel":
        return x + 1
    if layout == "reordered":
        h = 3 * x + 2
        return h + h * h
    h = -x - 1
    return h - 2 * h * h
'''}, "reproduces the visible toy functions' results")
H("HOST-p1-patch-assert-close", {"head_rms_norm": '''
import torch.testing
torch.testing.assert_close = lambda *a, **k: None
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    H = n_heads
    return torch.zeros(*x.shape[:-2], H, x.shape[-2], x.shape[-1] // H, dtype=x.dtype)
'''}, "disables assert_close and returns zeros")


# ====================================================================================================
# Second and third batches (graded as 0N-blind2.txt / 0N-blind3.txt; batch 2 written before any hidden test was read,
# batch 3 too, except that the chapter-8 decoder_io hidden test had been read for the verdict on OK-p1-fpad-crop)
import types as _types
_m = _types.SimpleNamespace(**{k: v for k, v in globals().items() if not k.startswith('__')})

# ---- batch 2 ----
# Round 16, chapter 09, second blind batch (written after the first blind grading, before reading any hidden test).
W("TA-p1-default-eps-1e-5", {"head_rms_norm": _m.rms().replace("eps=1e-6, unit_offset", "eps=1e-5, unit_offset")},
  "TA (nn.RMSNorm/OLMo default 1e-5): breaks the stub's signature 'eps=1e-6' ('Keep the signatures of the stubs')")
W("CA-p4-z-loss-every-position", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    m = target_mask[:, 1:]
    count = int(m.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), 0
    sel = logits[:, :-1][m].to(cd)
    y = ids[:, 1:][m].long()
    nll = torch.logsumexp(sel, -1) - sel.gather(-1, y[:, None])[:, 0]
    loss = nll.mean()
    if z_loss:
        lz_all = torch.logsumexp(logits[:, :-1].to(cd), -1)     # PaLM: z-loss on every position
        loss = loss + z_loss * (lz_all ** 2).mean()
    return loss, count
'''}, "CA (PaLM's z-loss over all positions): breaks 'Each predicted token contributes ... + z (log Z)^2' and 'The scores that predict nothing ... must change neither the loss nor its gradient'")
W("CA-p5-parallel-uses-post-norms", {"block_variant": '''
def block_variant(x, attn, ffn, norm_1, norm_2, layout, post_norms=None):
    if layout not in ("parallel", "reordered", "sandwich"):
        raise ValueError("layout")
    if layout == "sandwich" and post_norms is None:
        raise ValueError("post_norms")
    p1, p2 = post_norms if post_norms is not None else ((lambda t: t), (lambda t: t))
    if layout == "parallel":
        n = norm_1(x)
        return x + p1(attn(n)) + p2(ffn(n))
    if layout == "reordered":
        h = x + norm_1(attn(x))
        return h + norm_2(ffn(h))
    h = x + p1(attn(norm_1(x)))
    return h + p2(ffn(norm_2(h)))
'''}, "CA: post norms applied in the parallel layout when given; breaks 'the other two layouts ignore post_norms (they never call it)'")
W("CA-p6-original-context-unused", {"rope_llama3": _m.rp().replace("    L = original_context\n", "    L = 8192\n")},
  "CA: original_context accepted and never used; breaks 'L = original_context'")
W("CA-p6-smooth-weights-swapped", {"rope_llama3": _m.rp().replace("    mid = (1 - s) * theta / factor + s * theta", "    mid = s * theta / factor + (1 - s) * theta")},
  "CA: the blend's weights swapped; breaks '(1 - s_i) θ_i / f + s_i θ_i'")
W("TA-p7-write-under-no-grad", {"ragged_cached_attention": _m.ra().replace(
    "    for b in range(B):\n        L = int(lengths[b])\n        k_cache[b, :, L:L + T] = k_new[b]\n        v_cache[b, :, L:L + T] = v_new[b]",
    "    with torch.no_grad():   # in-place writes into tensors that require grad\n        for b in range(B):\n            L = int(lengths[b])\n            k_cache[b, :, L:L + T] = k_new[b]\n            v_cache[b, :, L:L + T] = v_new[b]")},
  "TA: cache written under no_grad, so k_new/v_new get no gradient; breaks 'the hidden tests compare its gradients with respect to q, k_new and v_new ... do not compute any factor under torch.no_grad()'")
W("CA-p8-greedy-on-raw-logits", {"generate_with_cache": _m.gw(argmax="logits[:, -1].argmax(-1)")},
  "CA: greedy branch copied from a loop without penalty; breaks 'With temperature == 0, take the highest score of each row' (the penalised scores)")
W("CA-p8-pad-hardcoded", {"generate_with_cache": _m.gw().replace("torch.full_like(tok, pad_id)", "torch.zeros_like(tok)")},
  "CA: pad_id accepted and never used (0 hard-coded); breaks 'from then on its chosen tokens are pad_id'")
C("OK-p8-max-indices", {"generate_with_cache": _m.gw(argmax="scores.max(dim=-1).indices")},
  "torch.max's indices (the first maximum, as argmax)")
C("OK-p6-inclusive-limits", {"rope_llama3": _m.rp().replace("torch.where(lam < lh, theta, torch.where(lam > ll,", "torch.where(lam <= lh, theta, torch.where(lam >= ll,")},
  "at λ = λ_high the blend gives s = 1, i.e. θ; at λ = λ_low s = 0, i.e. θ/f: the same values")

# ---- batch 3 ----
# Round 16, chapter 09, third batch (written before reading the hidden tests of these parts).
C("OK-p2-compute-in-input-dtype", {"fused_swiglu": _m.sw(cd="torch.float64 if x.dtype == torch.float64 else x.dtype")},
  "half inputs computed in their own dtype: 'For the other dtypes you may compute in the dtype of x'")
C("OK-p1-vector-norm", {"head_rms_norm": _m.rms(norm='''    ms = torch.linalg.vector_norm(xs, ord=2, dim=-1, keepdim=True) ** 2 / Dh
    out = xs / torch.sqrt(ms + eps) * s''')},
  "the mean square through torch.linalg.vector_norm")
C("OK-p4-cross-entropy-selected", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    cd = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:]
    count = int(keep.sum())
    if count == 0:
        return torch.zeros((), dtype=cd), count
    rows = logits[:, :-1][keep].to(cd)
    labels = ids[:, 1:][keep].long()
    ce = F.cross_entropy(rows, labels, reduction="mean")
    return ce + z_loss * torch.logsumexp(rows, dim=-1).pow(2).mean(), count
'''}, "F.cross_entropy on the selected rows only (nothing else computed on the others)")
C("OK-p7-sdpa-enable-gqa", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.shape[1], k_cache.shape[2]
    if G == 0 or H % G != 0:
        raise ValueError("H must be a multiple of G")
    if B and int(lengths.max()) + T > S:
        raise ValueError("does not fit")
    for b in range(B):
        start = int(lengths[b])
        k_cache[b, :, start:start + T] = k_new[b]
        v_cache[b, :, start:start + T] = v_new[b]
    pos = torch.arange(S)
    written = (pos[None, :] < (lengths.long() + T)[:, None])[:, None, :, None]        # (B, 1, S, 1)
    zero = torch.zeros((), dtype=q.dtype)
    k = torch.where(written, k_cache, zero)
    v = torch.where(written, v_cache, zero)
    qpos = lengths.long()[:, None] + torch.arange(T)
    keep = (pos[None, None, :] <= qpos[:, :, None])[:, None]                           # (B, 1, T, S), True = attend
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep, enable_gqa=True)
    return out, lengths + T
'''}, "F.scaled_dot_product_attention with a boolean keep-mask and enable_gqa (repeat_interleave order)")
C("OK-p8-hf-gather-scatter", {"generate_with_cache": _m.gw(pen='''        scores = logits[:, -1].clone()
        got = torch.gather(scores, 1, hist)
        got = torch.where(got < 0, got * penalty, got / penalty)     # Hugging Face's processor
        scores = scores.scatter(1, hist, got)''')},
  "Hugging Face's RepetitionPenaltyLogitsProcessor (gather, where, scatter: once per id; 0 divided or multiplied gives 0)")
C("OK-p6-polar-rotation", {"rope_llama3": _m.rp().replace(
    "    x1, x2 = xc[..., :half], xc[..., half:]\n    out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)",
    "    x1, x2 = xc[..., :half], xc[..., half:]\n    first = torch.addcmul(x1 * cos, x2, sin, value=-1)\n    second = torch.addcmul(x2 * cos, x1, sin)\n    out = torch.cat((first, second), dim=-1)")},
  "torch.addcmul for the rotation")
W("FP-p6-positions-in-x-dtype", {"rope_llama3": _m.rp(ang='''    ang = positions.to(x.dtype).to(torch.float64)[:, :, None] * new     # positions cast like x first
    cos, sin = ang.cos()[:, None], ang.sin()[:, None]''')},
  "FP: positions cast to x's dtype (float16 overflows past 65504, bfloat16 rounds them); breaks 'where m is the position' (each between 0 and 131 071)")

# ---- batch 4 (phase 2, after the hidden tests were read) ----
# Round 16, chapter 09, fourth batch (phase 2, after the class "a hidden check that reads one calling convention"):
# correct answers with every argument by keyword and other API routes.
C("OK4-p8-keywords-everywhere", {"generate_with_cache": '''
def generate_with_cache(step, prompt, max_new_tokens, eos_id, pad_id, temperature, penalty, generator):
    B = prompt.size(dim=0)
    history = [set(row) for row in prompt.tolist()]
    logits, cache = step(tokens=prompt, cache=None)
    done = [False] * B
    chosen = []
    for n in range(max_new_tokens):
        scores = torch.clone(input=logits[:, -1])
        for b in range(B):
            for tok in history[b]:
                s = scores[b, tok]
                scores[b, tok] = torch.div(s, penalty) if s > 0 else torch.mul(s, penalty)
        if temperature == 0:
            new = torch.argmax(input=scores, dim=-1)
        else:
            probs = torch.softmax(input=scores / temperature, dim=-1)
            new = torch.multinomial(input=probs, num_samples=1, replacement=False, generator=generator).squeeze(dim=1)
        new = torch.where(condition=torch.tensor(done), input=torch.full_like(input=new, fill_value=pad_id), other=new)
        chosen.append(new)
        for b, tok in enumerate(new.tolist()):
            history[b].add(tok)
            done[b] = done[b] or tok == eos_id
        if all(done) or n == max_new_tokens - 1:
            break
        logits, cache = step(tokens=new.unsqueeze(dim=1), cache=cache)
    return torch.stack(tensors=chosen, dim=1)
'''}, "step, torch.multinomial, argmax, where, softmax all called with keyword arguments; Python sets for the history")
C("OK4-p7-keywords-index-copy", {"ragged_cached_attention": '''
def ragged_cached_attention(q, k_new, v_new, k_cache, v_cache, lengths):
    B, H, T, Dh = q.shape
    G, S = k_cache.size(dim=1), k_cache.size(dim=2)
    if G < 1 or H % G:
        raise ValueError("H is not a multiple of G")
    starts = lengths.tolist()
    if any(s + T > S for s in starts):
        raise ValueError("a row would not fit")
    for b, s in enumerate(starts):
        idx = torch.arange(start=s, end=s + T)
        k_cache[b].index_copy_(dim=1, index=idx, source=k_new[b])
        v_cache[b].index_copy_(dim=1, index=idx, source=v_new[b])
    S_idx = torch.arange(end=S)
    total = lengths.to(dtype=torch.int64) + T
    written = torch.lt(S_idx.unsqueeze(dim=0), total.unsqueeze(dim=1))            # (B, S)
    k = torch.where(condition=written[:, None, :, None], input=k_cache, other=torch.zeros((), dtype=q.dtype))
    v = torch.where(condition=written[:, None, :, None], input=v_cache, other=torch.zeros((), dtype=q.dtype))
    k = torch.repeat_interleave(input=k, repeats=H // G, dim=1)
    v = torch.repeat_interleave(input=v, repeats=H // G, dim=1)
    qpos = lengths.to(dtype=torch.int64).unsqueeze(dim=1) + torch.arange(end=T)
    visible = torch.le(S_idx[None, None, :], qpos[:, :, None])[:, None]               # (B, 1, T, S)
    scores = torch.matmul(input=q, other=k.transpose(dim0=-1, dim1=-2)) / math.sqrt(Dh)
    scores = torch.masked_fill(input=scores, mask=torch.logical_not(visible), value=-math.inf)
    return torch.matmul(torch.softmax(scores, dim=-1), v), torch.add(lengths, T)
'''}, "index_copy_ into each row's cache view, every torch call by keyword")
C("OK4-p1-keywords", {"head_rms_norm": '''
def head_rms_norm(x, n_heads, weight, eps=1e-6, unit_offset=False):
    if n_heads < 1 or x.size(dim=-1) % n_heads != 0:
        raise ValueError("n_heads")
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    heads = torch.unflatten(input=x.to(dtype=work), dim=-1, sizes=(n_heads, x.size(dim=-1) // n_heads))
    heads = torch.transpose(input=heads, dim0=-3, dim1=-2)
    ms = torch.mean(input=torch.square(input=heads), dim=-1, keepdim=True)
    scale = torch.add(input=weight.to(dtype=work), other=1.0) if unit_offset else weight.to(dtype=work)
    return torch.mul(input=torch.div(input=heads, other=torch.sqrt(input=ms + eps)), other=scale).to(dtype=x.dtype)
'''}, "every torch call by keyword; unflatten + transpose")
C("OK4-p4-nll-loss-keywords", {"masked_lm_loss": '''
def masked_lm_loss(logits, ids, target_mask, z_loss=0.0):
    work = torch.float64 if logits.dtype == torch.float64 else torch.float32
    keep = target_mask[:, 1:]
    count = int(torch.count_nonzero(input=keep))
    if count == 0:
        return torch.zeros(size=(), dtype=work), count
    rows = logits[:, :-1][keep].to(dtype=work)
    labels = ids[:, 1:][keep].to(dtype=torch.int64)
    logz = torch.logsumexp(input=rows, dim=-1)
    nll = F.nll_loss(input=torch.log_softmax(input=rows, dim=-1), target=labels, reduction="none")
    return torch.mean(input=nll + z_loss * logz * logz), count
'''}, "F.nll_loss on log_softmax of the selected rows, keywords, count_nonzero")
C("OK4-p2-F-linear", {"fused_swiglu": '''
def fused_swiglu(x, w_gate_up, w_down, beta=1.0, limit=None, interleaved=False):
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    w = w_gate_up.to(dtype=work)
    n = w.shape[0] // 2
    gate_w = w[0::2] if interleaved else w[:n]
    up_w = w[1::2] if interleaved else w[n:]
    xw = x.to(dtype=work)
    g = F.linear(input=xw, weight=gate_w)
    u = F.linear(input=xw, weight=up_w)
    if limit is not None:
        g = torch.clamp(input=g, max=limit)
        u = torch.clamp(input=u, min=-limit, max=limit)
    h = g * torch.sigmoid(input=beta * g) * u
    return F.linear(input=h, weight=w_down.to(dtype=work)).to(dtype=x.dtype)
'''}, "F.linear with keywords")
C("OK4-p6-view-as-complex", {"rope_llama3": '''
def rope_llama3(x, positions, base=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                original_context=8192):
    B, H, T, Dh = x.shape
    if Dh % 2 or positions.shape != torch.Size([B, T]):
        raise ValueError("bad shapes")
    half = Dh // 2
    theta = 1.0 / torch.pow(torch.tensor(base, dtype=torch.float64), torch.arange(0, Dh, 2, dtype=torch.float64) / Dh)
    wavelen = 2 * math.pi / theta
    smooth = (original_context / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    new = torch.where(wavelen > original_context / low_freq_factor, theta / factor, theta)
    medium = (wavelen >= original_context / high_freq_factor) & (wavelen <= original_context / low_freq_factor)
    new = torch.where(medium, (1 - smooth) * theta / factor + smooth * theta, new)
    angle = positions.to(torch.float64)[:, None, :, None] * new                     # (B, 1, T, half)
    rot = torch.polar(torch.ones_like(angle), angle)
    xc = torch.complex(x[..., :half].to(torch.float64), x[..., half:].to(torch.float64))
    out = xc * rot
    return torch.cat([out.real, out.imag], dim=-1).to(x.dtype)
'''}, "HF-style medium band, complex numbers on the half-split pairs (x_i + i x_{i+D/2}) in float64")
C("OK4-p5-match-statement", {"block_variant": '''
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
                raise ValueError("post_norms needed")
            first, second = post_norms
            h = x + first(attn(norm_1(x)))
            return h + second(ffn(norm_2(h)))
        case _:
            raise ValueError(f"unknown layout {layout}")
'''}, "match statement (value patterns compare with ==)")
C("OK4-p3-math-prod", {"moe_params": '''
def moe_params(vocab, dim, n_layers, n_heads, n_kv_heads, head_dim, ffn_hidden, n_experts, top_k, tied=False,
               n_shared=0, first_dense=0, dense_hidden=0):
    checks = [n_kv_heads >= 1, n_kv_heads >= 1 and n_heads % n_kv_heads == 0, 1 <= top_k <= n_experts,
              n_shared >= 0, 0 <= first_dense <= n_layers]
    if not all(checks):
        raise ValueError("invalid configuration")
    swiglu = lambda width: math.prod((3, dim, width))
    embed = math.prod((vocab, dim)) * (1 if tied else 2)
    per_block = 2 * dim + math.prod((dim, head_dim)) * (2 * n_heads + 2 * n_kv_heads)
    dense = first_dense * swiglu(dense_hidden)
    moe_blocks = n_layers - first_dense
    total = embed + dim + n_layers * per_block + dense + moe_blocks * (dim * n_experts + (n_experts + n_shared) * swiglu(ffn_hidden))
    active = embed + dim + n_layers * per_block + dense + moe_blocks * (dim * n_experts + (top_k + n_shared) * swiglu(ffn_hidden))
    return total, active
'''}, "math.prod on ints")

# ---- batch 5 (phase 2, after the hidden tests were read) ----
# Round 16, chapter 09, fifth batch (phase 2): porter leftovers.
W("FP5-p6-theta-from-python-list", {"rope_llama3": _m.rp(theta='''    theta = torch.tensor([base ** (-2 * i / Dh) for i in range(half)])   # math on Python floats, then a tensor''')},
  "FP: torch.tensor of Python floats is float32; breaks 'within 1e-10 of the exact values for float64 ... Compute the angles in float64'")
W("TA5-p1-F-normalize", {"head_rms_norm": _m.rms(norm='''    out = F.normalize(xs, dim=-1, eps=eps) * math.sqrt(Dh) * s''')},
  "TA: F.normalize divides by max(||x||, eps); breaks 'x_h / sqrt(mean(x_h^2) + ε) ... with eps inside the square root'")
W("IJ5-p4-T-on-3d", {"masked_lm_loss": _m.lm(sel='''    m = target_mask[:, 1:]
    sel = logits.transpose(0, 1)[:-1].transpose(0, 1)[m].to(cd)
    y = ids.T[1:].T[m].long()''')},
  "(probe: should be correct, .T on the 2-D ids and transposes of logits that cancel)")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "IJ habit that cancels: transposes there and back (2-D .T on ids) select the same rows"
W("TA5-p8-squeeze-no-dim", {"generate_with_cache": _m.gw().replace("generator=generator)[:, 0]", "generator=generator).squeeze()")},
  "(probe) .squeeze() without a dim: for B = 1 a 0-d token, which torch.where broadcasts back to (1,)")
SUBMISSIONS[-1]["correct"] = True
SUBMISSIONS[-1]["why"] = "IJ habit that happens to be harmless: torch.where(finished, pad, tok) broadcasts a 0-d token back to (B,) = (1,)"

# ---- phase 2 relabels (see 09-verdicts.md) ----
_RELABEL = {
    "IJ-p2-view-pairs": "MISLABEL, correct: .view that only splits one axis (2F -> (F, 2)) works for every stride, so it "
                        "cannot fail on the transposed or sliced weights the text warns about",
    "IJ-p6-view-split": "MISLABEL, correct: x.view(B, H, T, 2, half) splits the last axis only, which .view can always do",
    "IJ-p8-history-grows-by-draw": "MISLABEL, correct in every observable: a finished row's penalty history changes only "
                                   "that row's probabilities, whose draw is replaced by pad_id; torch.multinomial's "
                                   "draws and generator state do not depend on the probability values",
}
for _s in SUBMISSIONS:
    if _s["name"] in _RELABEL:
        _s["correct"] = True
        _s["why"] = _RELABEL[_s["name"]]
